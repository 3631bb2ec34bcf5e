/* jsonf.c - validated JSON field access. */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "jsonf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Config files are small; anything bigger than this is not a config file. */
#define JSONF_MAX_BYTES (16L * 1024 * 1024)

sim_status sim_jsonf_load(const char *path, cJSON **out, sim_err *err)
{
    return sim_jsonf_load_max(path, JSONF_MAX_BYTES, out, err);
}

sim_status sim_jsonf_load_max(const char *path, long max_bytes, cJSON **out, sim_err *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return sim_fail(err, SIM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return sim_fail(err, SIM_EINPUT, "%s: is a directory, expected a JSON file", path);
    }
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return sim_fail(err, SIM_EINPUT, "%s: cannot read (not a regular file?)", path);
    }
    if (n == 0 || n > max_bytes) {
        fclose(f);
        return sim_fail(err, SIM_EINPUT,
                        "%s: size %ld bytes, expected a JSON object of 1..%ld bytes", path, n,
                        max_bytes);
    }
    buf = malloc((size_t)n + 1);
    if (!buf) {
        fclose(f);
        return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", path);
    }
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    if (got != (size_t)n) {
        free(buf);
        return sim_fail(err, SIM_EINPUT, "%s: short read", path);
    }
    buf[n] = '\0';
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(buf, &end, 1);
    if (!root) {
        long off = end ? (long)(end - buf) : -1;
        free(buf);
        return sim_fail(err, SIM_EINPUT, "%s: malformed JSON near byte %ld", path, off);
    }
    free(buf);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return sim_fail(err, SIM_EINPUT, "%s: top level is not a JSON object", path);
    }
    sim_status st = sim_jsonf_unique_keys(root, path, err);
    if (st) {
        cJSON_Delete(root);
        return st;
    }
    *out = root;
    return SIM_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

sim_status sim_jsonf_unique_keys(const cJSON *node, const char *path, sim_err *err)
{
    if (!node)
        return SIM_OK;
    size_t n = 0;
    const cJSON *c;
    for (c = node->child; c; c = c->next)
        n++;
    if (cJSON_IsObject(node) && n > 1) {
        const char *small[32];
        const char **keys = n <= 32 ? small : malloc(n * sizeof *keys);
        if (!keys)
            return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", path);
        size_t k = 0;
        for (c = node->child; c; c = c->next)
            keys[k++] = c->string ? c->string : "";
        qsort(keys, n, sizeof *keys, by_name);
        const char *dup = NULL;
        for (k = 1; k < n && !dup; k++)
            if (strcmp(keys[k - 1], keys[k]) == 0)
                dup = keys[k];
        if (keys != small)
            free((void *)keys);
        if (dup)
            return sim_fail(err, SIM_EINPUT,
                            "%s: key \"%.80s\" appears twice in one object, expected each key "
                            "once",
                            path, dup);
    }
    for (c = node->child; c; c = c->next) {
        sim_status st = sim_jsonf_unique_keys(c, path, err);
        if (st)
            return st;
    }
    return SIM_OK;
}

static sim_status known_in(const cJSON *obj, char *field, size_t len, const char *path,
                           sim_jsonf_known_fn known, const char *expected, sim_err *err)
{
    size_t at = strlen(field);
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (strcmp(c->string, "sources") == 0)
            continue;
        int w = snprintf(field + at, len - at, "%s%s", at ? "." : "", c->string);
        if (w < 0 || (size_t)w >= len - at)
            return sim_fail(err, SIM_EINPUT, "%s: field '%.*s...' is nested too deep, expected %s",
                            path, (int)(at < 200 ? at : 200), field, expected);
        sim_status st = SIM_OK;
        if (known(field, c))
            ;
        else if (cJSON_IsObject(c))
            st = known_in(c, field, len, path, known, expected, err);
        else
            st = sim_fail(err, SIM_EINPUT,
                          "%s: field '%s' is unknown (infersim reads no such field), expected %s; "
                          "notes go under \"sources\"",
                          path, field, expected);
        field[at] = '\0';
        if (st)
            return st;
    }
    return SIM_OK;
}

sim_status sim_jsonf_known_keys(const cJSON *root, const char *path, sim_jsonf_known_fn known,
                                const char *expected, sim_err *err)
{
    char field[512] = "";
    return cJSON_IsObject(root) ? known_in(root, field, sizeof field, path, known, expected, err)
                                : SIM_OK;
}

const cJSON *sim_jsonf_find(const cJSON *root, const char *field)
{
    char part[128];
    const cJSON *node = root;
    const char *p = field;
    while (node && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len >= sizeof part)
            return NULL;
        memcpy(part, p, len);
        part[len] = '\0';
        node = cJSON_IsObject(node) ? cJSON_GetObjectItemCaseSensitive(node, part) : NULL;
        p = dot ? dot + 1 : p + len;
    }
    if (!node || cJSON_IsNull(node))
        return NULL;
    return node;
}

/* Describes a JSON item for an error message: its number, or its type. */
static void describe(const cJSON *it, char *buf, size_t len)
{
    if (cJSON_IsNumber(it))
        snprintf(buf, len, "%.17g", it->valuedouble);
    else if (cJSON_IsString(it))
        snprintf(buf, len, "the string \"%.40s\"", it->valuestring);
    else if (cJSON_IsBool(it))
        snprintf(buf, len, "%s", cJSON_IsTrue(it) ? "true" : "false");
    else if (cJSON_IsArray(it))
        snprintf(buf, len, "an array");
    else
        snprintf(buf, len, "an object");
}

static sim_status num_at(const cJSON *it, const char *path, const char *field, double min,
                         double max, double *out, sim_err *err)
{
    char got[80];
    describe(it, got, sizeof got);
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < min ||
        it->valuedouble > max)
        return sim_fail(err, SIM_EINPUT, "%s: field '%s' is %s, expected a number in [%g, %g]",
                        path, field, got, min, max);
    *out = it->valuedouble;
    return SIM_OK;
}

sim_status sim_jsonf_num(const cJSON *root, const char *path, const char *field, double min,
                         double max, double *out, sim_err *err)
{
    const cJSON *it = sim_jsonf_find(root, field);
    if (!it)
        return sim_fail(err, SIM_EINPUT, "%s: field '%s' is missing, expected a number in [%g, %g]",
                        path, field, min, max);
    return num_at(it, path, field, min, max, out, err);
}

sim_status sim_jsonf_num_opt(const cJSON *root, const char *path, const char *field, double min,
                             double max, double dflt, double *out, sim_err *err)
{
    const cJSON *it = sim_jsonf_find(root, field);
    if (!it) {
        *out = dflt;
        return SIM_OK;
    }
    return num_at(it, path, field, min, max, out, err);
}

static sim_status int_at(const cJSON *it, const char *path, const char *field, int64_t min,
                         int64_t max, int64_t *out, sim_err *err)
{
    char got[80];
    describe(it, got, sizeof got);
    double v = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    if (!isfinite(v) || v != floor(v) || v < (double)min || v > (double)max)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field '%s' is %s, expected a whole number in [%lld, %lld]", path,
                        field, got, (long long)min, (long long)max);
    *out = (int64_t)v;
    return SIM_OK;
}

sim_status sim_jsonf_int(const cJSON *root, const char *path, const char *field, int64_t min,
                         int64_t max, int64_t *out, sim_err *err)
{
    const cJSON *it = sim_jsonf_find(root, field);
    if (!it)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field '%s' is missing, expected a whole number in [%lld, %lld]", path,
                        field, (long long)min, (long long)max);
    return int_at(it, path, field, min, max, out, err);
}

sim_status sim_jsonf_int_opt(const cJSON *root, const char *path, const char *field, int64_t min,
                             int64_t max, int64_t dflt, int64_t *out, sim_err *err)
{
    const cJSON *it = sim_jsonf_find(root, field);
    if (!it) {
        *out = dflt;
        return SIM_OK;
    }
    return int_at(it, path, field, min, max, out, err);
}

sim_status sim_jsonf_bool_opt(const cJSON *root, const char *path, const char *field, bool dflt,
                              bool *out, sim_err *err)
{
    const cJSON *it = sim_jsonf_find(root, field);
    if (!it) {
        *out = dflt;
        return SIM_OK;
    }
    if (!cJSON_IsBool(it)) {
        char got[80];
        describe(it, got, sizeof got);
        return sim_fail(err, SIM_EINPUT, "%s: field '%s' is %s, expected true or false", path,
                        field, got);
    }
    *out = cJSON_IsTrue(it);
    return SIM_OK;
}

sim_status sim_jsonf_str_opt(const cJSON *root, const char *path, const char *field,
                             const char **out, sim_err *err)
{
    const cJSON *it = sim_jsonf_find(root, field);
    *out = NULL;
    if (!it)
        return SIM_OK;
    if (!cJSON_IsString(it)) {
        char got[80];
        describe(it, got, sizeof got);
        return sim_fail(err, SIM_EINPUT, "%s: field '%s' is %s, expected a string", path, field,
                        got);
    }
    *out = it->valuestring;
    return SIM_OK;
}
