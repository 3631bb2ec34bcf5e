/* jstream.c - see jstream.h. */
#define _POSIX_C_SOURCE 200809L
#include "jstream.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jsonf.h"

#define MAX_TOP_KEYS 256

typedef struct scan {
    FILE *f;
    const char *path;
    long off; /* bytes consumed */
    char *buf;
    size_t len, cap, max;
} scan;

static int next(scan *s)
{
    int c = getc(s->f);
    if (c != EOF)
        s->off++;
    return c;
}

/* The next character that is not JSON whitespace (consumed), or EOF. */
static int next_token(scan *s)
{
    int c;
    while ((c = next(s)) == ' ' || c == '\t' || c == '\n' || c == '\r')
        ;
    return c;
}

static sim_status malformed(const scan *s, sim_err *err)
{
    return sim_fail(err, SIM_EINPUT, "%s: malformed JSON near byte %ld", s->path,
                    s->off > 0 ? s->off - 1 : 0);
}

static sim_status put(scan *s, int c, sim_err *err)
{
    if (s->len + 1 >= s->cap) {
        if (s->cap >= s->max + 1)
            return sim_fail(err, SIM_EINPUT,
                            "%s: a value near byte %ld is longer than %zu bytes, expected "
                            "smaller values",
                            s->path, s->off, s->max);
        size_t cap = s->cap ? 2 * s->cap : 4096;
        if (cap > s->max + 1)
            cap = s->max + 1;
        char *b = realloc(s->buf, cap);
        if (!b)
            return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", s->path);
        s->buf = b;
        s->cap = cap;
    }
    s->buf[s->len++] = (char)c;
    return SIM_OK;
}

/* Captures one JSON value starting with character c into s->buf (NUL-terminated) by its
 * structure (strings with escapes, nested brackets); *after is the character that ended a bare
 * number or literal (to be handled by the caller), or 0. The text is checked by cJSON after. */
static sim_status capture(scan *s, int c, int *after, sim_err *err)
{
    s->len = 0;
    *after = 0;
    sim_status st = SIM_OK;
    if (c == '{' || c == '[') {
        long depth = 0;
        bool in_str = false, esc = false;
        for (; c != EOF && !st; c = depth ? next(s) : EOF) {
            st = put(s, c, err);
            if (in_str) {
                if (esc)
                    esc = false;
                else if (c == '\\')
                    esc = true;
                else if (c == '"')
                    in_str = false;
            } else if (c == '"') {
                in_str = true;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
            if (depth == 0)
                break;
        }
        if (!st && depth != 0)
            return malformed(s, err);
    } else if (c == '"') {
        bool esc = false;
        for (st = put(s, c, err); !st;) {
            c = next(s);
            if (c == EOF)
                return malformed(s, err);
            st = put(s, c, err);
            if (esc)
                esc = false;
            else if (c == '\\')
                esc = true;
            else if (c == '"')
                break;
        }
    } else {
        while (!st && c != EOF && !strchr(",}] \t\r\n", c)) {
            st = put(s, c, err);
            c = next(s);
        }
        *after = c == EOF ? 0 : c;
        if (!st && s->len == 0)
            return malformed(s, err);
    }
    if (!st)
        st = put(s, '\0', err);
    return st;
}

/* Captures and parses one value; *out owns the tree. */
static sim_status parse_value(scan *s, int c, int *after, cJSON **out, sim_err *err)
{
    *out = NULL;
    sim_status st = capture(s, c, after, err);
    if (st)
        return st;
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithOpts(s->buf, &end, 1);
    if (!v)
        return sim_fail(err, SIM_EINPUT, "%s: malformed JSON near byte %ld", s->path,
                        s->off - (long)s->len + (end ? (long)(end - s->buf) : 0));
    if ((st = sim_jsonf_unique_keys(v, s->path, err))) {
        cJSON_Delete(v);
        return st;
    }
    *out = v;
    return SIM_OK;
}

/* The character after a value: the one a bare literal stopped at, or the next token. */
static int after_value(scan *s, int after)
{
    if (after && after != ' ' && after != '\t' && after != '\n' && after != '\r')
        return after;
    return next_token(s);
}

static sim_status walk_array(scan *s, const char *key, sim_jstream_fn fn, void *ctx, sim_err *err)
{
    int c = next_token(s);
    if (c == ']')
        return SIM_OK;
    for (long i = 0;; i++) {
        int after;
        cJSON *v;
        sim_status st = parse_value(s, c, &after, &v, err);
        if (!st)
            st = fn(ctx, key, i, v, err);
        cJSON_Delete(v);
        if (st)
            return st;
        c = after_value(s, after);
        if (c == ']')
            return SIM_OK;
        if (c != ',')
            return malformed(s, err);
        c = next_token(s);
    }
}

static sim_status walk_object(scan *s, const char *array_key, sim_jstream_fn fn, void *ctx,
                              char **keys, size_t *n_keys, sim_err *err)
{
    int c = next_token(s);
    if (c == EOF)
        return sim_fail(err, SIM_EINPUT, "%s: empty, expected a JSON object", s->path);
    if (c != '{')
        return sim_fail(err, SIM_EINPUT, "%s: top level is not a JSON object", s->path);
    c = next_token(s);
    if (c == '}')
        return SIM_OK;
    for (;;) {
        int after;
        cJSON *k;
        if (c != '"')
            return malformed(s, err);
        sim_status st = parse_value(s, c, &after, &k, err);
        if (st)
            return st;
        char *key = strdup(k->valuestring);
        cJSON_Delete(k);
        if (!key)
            return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", s->path);
        for (size_t i = 0; i < *n_keys && !st; i++)
            if (strcmp(keys[i], key) == 0)
                st = sim_fail(err, SIM_EINPUT,
                              "%s: key \"%.80s\" appears twice in one object, expected each key "
                              "once",
                              s->path, key);
        if (!st && *n_keys == MAX_TOP_KEYS)
            st =
                sim_fail(err, SIM_EINPUT, "%s: more than %d top-level keys", s->path, MAX_TOP_KEYS);
        if (st) {
            free(key);
            return st;
        }
        keys[(*n_keys)++] = key;
        if (next_token(s) != ':')
            return malformed(s, err);
        c = next_token(s);
        if (array_key && strcmp(key, array_key) == 0 && c == '[') {
            cJSON *empty = cJSON_CreateArray(); /* announces the array */
            st = empty ? fn(ctx, key, -1, empty, err)
                       : sim_fail(err, SIM_EINTERNAL, "%s: out of memory", s->path);
            cJSON_Delete(empty);
            if (!st)
                st = walk_array(s, key, fn, ctx, err);
            after = 0;
        } else {
            cJSON *v;
            st = parse_value(s, c, &after, &v, err);
            if (!st)
                st = fn(ctx, key, -1, v, err);
            cJSON_Delete(v);
        }
        if (st)
            return st;
        c = after_value(s, after);
        if (c == '}')
            break;
        if (c != ',')
            return malformed(s, err);
        c = next_token(s);
    }
    if (next_token(s) != EOF)
        return sim_fail(err, SIM_EINPUT, "%s: data after the JSON object near byte %ld", s->path,
                        s->off - 1);
    return SIM_OK;
}

sim_status sim_jstream_object(const char *path, const char *array_key, size_t max_value_bytes,
                              sim_jstream_fn fn, void *ctx, sim_err *err)
{
    scan s = {.path = path, .max = max_value_bytes};
    if (!(s.f = fopen(path, "rb")))
        return sim_fail(err, SIM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(s.f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(s.f);
        return sim_fail(err, SIM_EINPUT, "%s: is a directory, expected a JSON file", path);
    }
    char *keys[MAX_TOP_KEYS];
    size_t n_keys = 0;
    sim_status st = walk_object(&s, array_key, fn, ctx, keys, &n_keys, err);
    if (!st && ferror(s.f))
        st = sim_fail(err, SIM_EINPUT, "%s: read error: %s", path, strerror(errno));
    for (size_t i = 0; i < n_keys; i++)
        free(keys[i]);
    free(s.buf);
    fclose(s.f);
    return st;
}
