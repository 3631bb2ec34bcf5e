/* workload.c - trace readers, and the workload's free (synthetic streams: workload_synth.c). */
#define _POSIX_C_SOURCE 200809L
#include "workload.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonf.h"
#include "lines.h"
#include "workload_internal.h"
#include "rng.h"

#define NS_PER_S 1e9
/* A request this long is certainly a unit mistake; the engine checks the model's real limit. */
#define MAX_TOKENS ((int64_t)1 << 40)

/* ------------------------------------------------------------------------------------------ */
/* Traces */

typedef enum trace_fmt { FMT_AZURE, FMT_MOONCAKE, FMT_PLAIN } trace_fmt;

typedef struct trace_reader {
    const char *path;
    trace_fmt fmt;
    int col_time, col_in, col_out; /* CSV columns */
    int col_images;                /* the plain format's optional images column; -1: none */
    int col_session;               /* its optional session_id column; -1: none */
    uint64_t *key;                 /* per request read: its session id's hash (0: none) */
    bool sessions;                 /* some request has a session id */
    double *t_s;                   /* raw arrival per request, seconds (any origin) */
    size_t cap;
    size_t hash_cap; /* room in the workload's hash_ids */
} trace_reader;

/* Tokens per Mooncake hash id (the trace's README: one id per 512-token block). */
#define MOONCAKE_HASH_TOKENS 512

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* Splits a CSV line in place; returns the number of fields (at most max). */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    for (int i = 0; i < n; i++)
        fields[i] = trim(fields[i]);
    return n;
}

/* A token count parse_tokens takes: a whole number in [1, MAX_TOKENS]. */
static bool whole_tokens(double v)
{
    return isfinite(v) && v == floor(v) && v >= 1 && v <= (double)MAX_TOKENS;
}

static sim_status parse_tokens(const trace_reader *tr, int64_t line, const char *field,
                               const char *s, int64_t *out, sim_err *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v != floor(v) || v < 1 ||
        v > (double)MAX_TOKENS)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field '%s' is '%s', expected a whole number of tokens >= 1",
                        tr->path, (long long)line, field, s);
    *out = (int64_t)v;
    return SIM_OK;
}

/* Days since 1970-01-01 of a civil date (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* "2023-11-16 18:17:03.9799600" (or with a 'T') -> seconds since the epoch. */
static int parse_datetime(const char *s, double *out)
{
    int y, mo, d, h, mi, n = 0;
    double sec;
    /* widths of at most 4 digits cannot overflow an int; the ranges are checked below */
    // NOLINTNEXTLINE(cert-err34-c)
    if (sscanf(s, "%4d-%2d-%2d%*1[ T]%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6)
        return 0;
    const char *rest = s + n;
    if (*rest && strcmp(rest, "Z") != 0 && strcmp(rest, "+00:00") != 0)
        return 0;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec < 0 || sec >= 61)
        return 0;
    *out = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
    return 1;
}

static sim_status grow(trace_reader *tr, sim_workload *w, sim_err *err)
{
    if (w->n < tr->cap)
        return SIM_OK;
    size_t cap = tr->cap ? tr->cap * 2 : 1024;
    sim_request *r = realloc(w->reqs, cap * sizeof *r);
    if (!r)
        return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", tr->path);
    w->reqs = r;
    double *t = realloc(tr->t_s, cap * sizeof *t);
    if (!t)
        return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", tr->path);
    tr->t_s = t;
    uint64_t *k = realloc(tr->key, cap * sizeof *k);
    if (!k)
        return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", tr->path);
    tr->key = k;
    tr->cap = cap;
    return SIM_OK;
}

/* A session id's key: FNV-1a of its text, never 0 (empty text: 0, no session). */
static uint64_t session_key(const char *s)
{
    if (!*s)
        return 0;
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h ? h : 1;
}

static sim_status csv_header(trace_reader *tr, char *line, sim_err *err)
{
    char *f[64];
    int n = split_csv(line, f, 64);
    static const char *azure[3] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
    static const char *plain[3] = {"arrival_s", "input_tokens", "output_tokens"};
    for (int pass = 0; pass < 2; pass++) {
        const char **names = pass ? plain : azure;
        int cols[3] = {-1, -1, -1};
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++)
                if (strcmp(f[i], names[k]) == 0)
                    cols[k] = i;
        if (cols[0] >= 0 && cols[1] >= 0 && cols[2] >= 0) {
            tr->fmt = pass ? FMT_PLAIN : FMT_AZURE;
            tr->col_time = cols[0];
            tr->col_in = cols[1];
            tr->col_out = cols[2];
            tr->col_images = tr->col_session = -1;
            for (int i = 0; pass && i < n; i++) {
                if (strcmp(f[i], "images") == 0)
                    tr->col_images = i;
                if (strcmp(f[i], "session_id") == 0)
                    tr->col_session = i;
            }
            return SIM_OK;
        }
    }
    return sim_fail(
        err, SIM_EINPUT,
        "%s:1: unknown trace format (first line '%.60s'); expected an Azure CSV header "
        "(TIMESTAMP,ContextTokens,GeneratedTokens), Mooncake JSONL ({\"timestamp\": ..., "
        "\"input_length\": ..., \"output_length\": ...}) or the header "
        "arrival_s,input_tokens,output_tokens",
        tr->path, f[0]);
}

/* Images per request (a trace's optional images column or field): a whole number in [0, 1024]. */
#define MAX_IMAGES 1024
static sim_status parse_images(const trace_reader *tr, int64_t line, const char *s, int64_t *out,
                               sim_err *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v != floor(v) || v < 0 || v > MAX_IMAGES)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'images' is '%s', expected a whole number of images in "
                        "[0, %d]",
                        tr->path, (long long)line, s, MAX_IMAGES);
    *out = (int64_t)v;
    return SIM_OK;
}

static sim_status csv_row(trace_reader *tr, char *line, int64_t lineno, sim_request *r, double *t,
                          uint64_t *key, sim_err *err)
{
    char *f[64];
    int n = split_csv(line, f, 64);
    int need = tr->col_time > tr->col_in ? tr->col_time : tr->col_in;
    if (tr->col_out > need)
        need = tr->col_out;
    if (tr->col_images > need)
        need = tr->col_images;
    if (tr->col_session > need)
        need = tr->col_session;
    if (n <= need)
        return sim_fail(err, SIM_EINPUT, "%s:%lld: %d fields, expected at least %d", tr->path,
                        (long long)lineno, n, need + 1);
    const char *ts = f[tr->col_time];
    if (tr->fmt == FMT_AZURE) {
        if (!parse_datetime(ts, t))
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field 'TIMESTAMP' is '%s', expected a date-time like "
                            "2023-11-16 18:17:03.979",
                            tr->path, (long long)lineno, ts);
    } else {
        char *end;
        errno = 0;
        *t = strtod(ts, &end);
        if (errno || end == ts || *end || !isfinite(*t) || *t < 0)
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field 'arrival_s' is '%s', expected seconds >= 0", tr->path,
                            (long long)lineno, ts);
    }
    const char *in_name = tr->fmt == FMT_AZURE ? "ContextTokens" : "input_tokens";
    const char *out_name = tr->fmt == FMT_AZURE ? "GeneratedTokens" : "output_tokens";
    sim_status st = parse_tokens(tr, lineno, in_name, f[tr->col_in], &r->input_tokens, err);
    if (!st)
        st = parse_tokens(tr, lineno, out_name, f[tr->col_out], &r->output_tokens, err);
    if (!st && tr->col_images >= 0)
        st = parse_images(tr, lineno, f[tr->col_images], &r->images, err);
    if (tr->col_session >= 0)
        tr->sessions |= (*key = session_key(f[tr->col_session])) != 0;
    return st;
}

static sim_status json_int_field(const trace_reader *tr, int64_t lineno, const cJSON *o,
                                 const char *field, int64_t *out, sim_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, field);
    char buf[64];
    if (!cJSON_IsNumber(it)) {
        snprintf(buf, sizeof buf, "%s", it ? "not a number" : "missing");
        return sim_fail(err, SIM_EINPUT, "%s:%lld: field '%s' is %s, expected a whole number",
                        tr->path, (long long)lineno, field, buf);
    }
    snprintf(buf, sizeof buf, "%.17g", it->valuedouble);
    return parse_tokens(tr, lineno, field, buf, out, err);
}

/* Mooncake's hash_ids (optional): whole numbers, one per 512-token block of the prompt. */
static sim_status hash_ids_field(trace_reader *tr, int64_t lineno, const cJSON *o, sim_request *r,
                                 sim_workload *w, sim_err *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "hash_ids");
    if (!a || cJSON_IsNull(a))
        return SIM_OK;
    int64_t n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    int64_t blocks = (r->input_tokens + MOONCAKE_HASH_TOKENS - 1) / MOONCAKE_HASH_TOKENS;
    if (n < 0 || n > blocks)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'hash_ids' is %s%lld ids, expected an array of at most "
                        "ceil(input_length / %d) = %lld ids",
                        tr->path, (long long)lineno, n < 0 ? "not an array: " : "",
                        (long long)(n < 0 ? 0 : n), MOONCAKE_HASH_TOKENS, (long long)blocks);
    if (w->n_hash_ids + (size_t)n > tr->hash_cap) {
        size_t cap = tr->hash_cap ? tr->hash_cap : 4096;
        while (cap < w->n_hash_ids + (size_t)n)
            cap *= 2;
        uint64_t *ids = realloc(w->hash_ids, cap * sizeof *ids);
        if (!ids)
            return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", tr->path);
        w->hash_ids = ids;
        tr->hash_cap = cap;
    }
    r->hash_off = w->n_hash_ids;
    r->n_hash = n;
    int64_t k = 0;
    for (const cJSON *it = a->child; it; it = it->next, k++) {
        double v = cJSON_IsNumber(it) ? it->valuedouble : -1.0;
        if (!(v >= 0.0 && v <= 9007199254740992.0 && v == floor(v)))
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field 'hash_ids' element %lld is not a whole number >= 0",
                            tr->path, (long long)lineno, (long long)k);
        w->hash_ids[w->n_hash_ids++] = (uint64_t)v;
    }
    w->hash_block_tokens = MOONCAKE_HASH_TOKENS;
    return SIM_OK;
}

/* A row the one-pass reader took (workload_jsonl.c) whose every field is as the tree reader
 * takes it; false (the ids it appended dropped) to leave the row to that reader. */
static bool jsonl_row_fast(trace_reader *tr, const char *line, sim_request *r, double *t,
                           sim_workload *w)
{
    sim_workload_jsonl_row row;
    const size_t n0 = w->n_hash_ids;
    const bool ok = sim_workload_jsonl_scan(line, &row, &w->hash_ids, &w->n_hash_ids, &tr->hash_cap);
    const double blocks = ceil(row.input_length / MOONCAKE_HASH_TOKENS);
    if (!ok || !row.has_ts || !(isfinite(row.timestamp) && row.timestamp >= 0) || !row.has_in ||
        !row.has_out || !whole_tokens(row.input_length) || !whole_tokens(row.output_length) ||
        (row.has_hash && (double)row.n_hash > blocks) ||
        (row.has_images && !(row.images == floor(row.images) && row.images >= 0 &&
                             row.images <= MAX_IMAGES))) {
        w->n_hash_ids = n0;
        return false;
    }
    *t = row.timestamp / 1e3;
    r->input_tokens = (int64_t)row.input_length;
    r->output_tokens = (int64_t)row.output_length;
    if (row.has_hash) {
        r->hash_off = n0;
        r->n_hash = (int64_t)row.n_hash;
        w->hash_block_tokens = MOONCAKE_HASH_TOKENS;
    }
    if (row.has_images)
        r->images = (int64_t)row.images;
    return true;
}

static sim_status jsonl_row(trace_reader *tr, const char *line, int64_t lineno, sim_request *r,
                            double *t, uint64_t *key, sim_workload *w, sim_err *err)
{
    if (jsonl_row_fast(tr, line, r, t, w))
        return SIM_OK;
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithOpts(line, &end, 1); /* nothing may follow the object */
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: malformed JSON near column %lld, expected one JSON object "
                        "per line",
                        tr->path, (long long)lineno, end ? (long long)(end - line) + 1 : 1LL);
    }
    char where[SIM_ERR_LEN]; /* "path:line", as every message of this reader starts */
    snprintf(where, sizeof where, "%s:%lld", tr->path, (long long)lineno);
    sim_status st = sim_jsonf_unique_keys(o, where, err);
    if (st) {
        cJSON_Delete(o);
        return st;
    }
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(o, "timestamp");
    if (!cJSON_IsNumber(ts) || !isfinite(ts->valuedouble) || ts->valuedouble < 0)
        st = sim_fail(err, SIM_EINPUT,
                      "%s:%lld: field 'timestamp' is missing or negative, expected milliseconds "
                      ">= 0",
                      tr->path, (long long)lineno);
    else
        *t = ts->valuedouble / 1e3;
    if (!st)
        st = json_int_field(tr, lineno, o, "input_length", &r->input_tokens, err);
    if (!st)
        st = json_int_field(tr, lineno, o, "output_length", &r->output_tokens, err);
    if (!st)
        st = hash_ids_field(tr, lineno, o, r, w, err);
    const cJSON *im = cJSON_GetObjectItemCaseSensitive(o, "images");
    if (!st && im) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.17g", cJSON_IsNumber(im) ? im->valuedouble : -1.0);
        st = parse_images(tr, lineno, cJSON_IsNumber(im) ? buf : "not a number", &r->images, err);
    }
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(o, "session_id");
    if (!st && sid) {
        char buf[64] = "";
        const char *text = cJSON_IsString(sid) ? sid->valuestring : buf;
        if (cJSON_IsNumber(sid))
            snprintf(buf, sizeof buf, "%.17g", sid->valuedouble);
        if (!cJSON_IsNumber(sid) && !cJSON_IsString(sid))
            st = sim_fail(err, SIM_EINPUT, "%s:%lld: field 'session_id' is not text or a number",
                          tr->path, (long long)lineno);
        else
            tr->sessions |= (*key = session_key(text)) != 0;
    }
    cJSON_Delete(o);
    return st;
}

static int by_arrival(const void *a, const void *b)
{
    const sim_request *x = a, *y = b;
    if (x->arrival_ns != y->arrival_ns)
        return x->arrival_ns < y->arrival_ns ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line; /* stable: file order */
}

static int by_line(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static sim_status read_lines(sim_lines *lr, trace_reader *tr, int64_t limit, sim_workload *w,
                             sim_err *err)
{
    char *line = NULL;
    bool header_seen = false;
    sim_status st = SIM_OK;
    while (!st && !(st = sim_lines_next(lr, &line, err)) && line) {
        int64_t lineno = lr->lineno;
        char *s = trim(line);
        if (!*s)
            continue;
        if (!header_seen) {
            header_seen = true;
            if (*s == '{') {
                tr->fmt = FMT_MOONCAKE;
            } else {
                st = csv_header(tr, s, err);
                continue;
            }
        }
        if (limit > 0 && (int64_t)w->n >= limit)
            break;
        if ((int64_t)w->n >= SIM_WORKLOAD_MAX_REQUESTS) {
            st = sim_fail(err, SIM_EINPUT,
                          "%s: line %lld: more than %lld requests, the most a serving run holds "
                          "in memory (about 160 bytes each); pass --num-prompts N to take the "
                          "first N",
                          tr->path, (long long)lineno, (long long)SIM_WORKLOAD_MAX_REQUESTS);
            break;
        }
        if ((st = grow(tr, w, err)))
            break;
        sim_request *r = &w->reqs[w->n];
        memset(r, 0, sizeof *r);
        r->line = lineno;
        double *t = &tr->t_s[w->n];
        uint64_t *key = &tr->key[w->n];
        *key = 0;
        st = tr->fmt == FMT_MOONCAKE ? jsonl_row(tr, s, lineno, r, t, key, w, err)
                                     : csv_row(tr, s, lineno, r, t, key, err);
        if (!st)
            w->n++;
    }
    if (!st && !header_seen)
        st = sim_fail(err, SIM_EINPUT, "%s: empty trace", tr->path);
    if (!st && (w->n == 0 || !tr->t_s)) /* (t_s is set whenever a request was read) */
        st = sim_fail(err, SIM_EINPUT, "%s: no requests after the header", tr->path);
    return st;
}

/* The trace's sessions: each request's key found from its line (the rows were read in line
 * order, tr->key in that order), then linked in arrival order. */
static sim_status trace_sessions(const trace_reader *tr, sim_workload *w, sim_err *err)
{
    int64_t *lines = malloc((w->n ? w->n : 1) * sizeof *lines);
    uint64_t *key = malloc((w->n ? w->n : 1) * sizeof *key);
    if (!lines || !key) {
        free(lines);
        free(key);
        return sim_fail(err, SIM_EINTERNAL, "%s: out of memory for sessions", tr->path);
    }
    for (size_t i = 0; i < w->n; i++)
        lines[i] = w->reqs[i].line;
    qsort(lines, w->n, sizeof *lines, by_line);
    for (size_t i = 0; i < w->n; i++) {
        const int64_t *at = bsearch(&w->reqs[i].line, lines, w->n, sizeof *lines, by_line);
        key[i] = tr->key[at - lines];
    }
    sim_status st = sim_workload_link_sessions(w, key, err);
    free(lines);
    free(key);
    return st;
}

sim_status sim_workload_load_trace(const char *path, double time_scale, int64_t limit,
                                   sim_workload *out, sim_err *err)
{
    memset(out, 0, sizeof *out);
    if (!(time_scale > 0.0 && isfinite(time_scale)))
        return sim_fail(err, SIM_EINPUT, "--time-scale: value %g, expected > 0", time_scale);
    sim_lines lr;
    sim_status st = sim_lines_open(&lr, path, err);
    if (st)
        return st;
    trace_reader tr = {.path = path};
    st = read_lines(&lr, &tr, limit, out, err);
    sim_lines_close(&lr);
    if (!st) {
        double t0 = tr.t_s[0];
        for (size_t i = 1; i < out->n; i++)
            if (tr.t_s[i] < t0)
                t0 = tr.t_s[i];
        for (size_t i = 0; !st && i < out->n; i++) {
            double off = (tr.t_s[i] - t0) * time_scale; /* seconds after the earliest */
            if (!(off <= SIM_ARRIVAL_MAX_S)) {
                static const char *const field[] = {[FMT_AZURE] = "TIMESTAMP",
                                                    [FMT_MOONCAKE] = "timestamp",
                                                    [FMT_PLAIN] = "arrival_s"};
                double raw = tr.fmt == FMT_MOONCAKE ? tr.t_s[i] * 1e3 : tr.t_s[i]; /* as written */
                st = sim_fail(err, SIM_EINPUT,
                              "%s:%lld: field '%s' is %.17g, %.6g s after the earliest arrival "
                              "(%.6g s at --time-scale %g), expected at most %g s after it",
                              path, (long long)out->reqs[i].line, field[tr.fmt], raw,
                              tr.t_s[i] - t0, off, time_scale, SIM_ARRIVAL_MAX_S);
                break;
            }
            out->reqs[i].arrival_ns = (int64_t)llround(off * NS_PER_S);
        }
    }
    if (!st) {
        qsort(out->reqs, out->n, sizeof *out->reqs, by_arrival);
        snprintf(out->source, sizeof out->source, "%s", path);
        if (tr.sessions)
            st = trace_sessions(&tr, out, err);
    }
    if (st)
        sim_workload_free(out);
    free(tr.t_s);
    free(tr.key);
    return st;
}
