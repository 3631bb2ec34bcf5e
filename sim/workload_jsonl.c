/* workload_jsonl.c - a Mooncake JSONL row read in one pass, without a JSON tree: the flat object
 * of numbers (and hash_ids, an array of numbers) that every row of such a trace is. Anything
 * else it leaves to the tree reader (workload.c), which reads every JSON and words the errors;
 * what it accepts it reads to the same doubles, since both take each number's text to strtod.
 */
#include "workload_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

/* A number as JSON writes it (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), its value by strtod
 * of its text; NULL for anything else. */
static const char *number(const char *p, double *v)
{
    const char *s = p;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return NULL;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    size_t n = (size_t)(p - s);
    const size_t sign = *s == '-';
    if (n - sign <= 15 && !memchr(s, '.', n) && !memchr(s, 'e', n) && !memchr(s, 'E', n)) {
        /* an integer of at most 15 digits is below 2^53: exact in a double, so its sum of
         * digits is the value strtod rounds the text to */
        int64_t x = 0;
        for (const char *d = s + sign; d < p; d++)
            x = 10 * x + (*d - '0');
        *v = sign ? -(double)x : (double)x;
        return p;
    }
    char buf[64]; /* strtod reads no further than the number (cJSON copies it out the same way) */
    if (n >= sizeof buf)
        return NULL;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    *v = strtod(buf, &end);
    return *end ? NULL : p;
}

/* Appends one id to the caller's buffer. */
static bool push_id(uint64_t **ids, size_t *n, size_t *cap, double v)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 4096;
        uint64_t *x = realloc(*ids, c * sizeof *x);
        if (!x)
            return false;
        *ids = x;
        *cap = c;
    }
    (*ids)[(*n)++] = (uint64_t)v;
    return true;
}

/* hash_ids' array of whole numbers >= 0 (at most 2^53); NULL for anything else. */
static const char *id_array(const char *p, sim_workload_jsonl_row *row, uint64_t **ids, size_t *n,
                            size_t *cap)
{
    p = skip_ws(p + 1);
    row->has_hash = true;
    if (*p == ']')
        return p + 1;
    for (;;) {
        double v;
        if (!(p = number(p, &v)) || !(v >= 0.0 && v <= 9007199254740992.0 && v == floor(v)) ||
            !push_id(ids, n, cap, v))
            return NULL;
        row->n_hash++;
        p = skip_ws(p);
        if (*p == ']')
            return p + 1;
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1);
    }
}

/* The fields a row may have; any other key is left to the tree reader. */
static const char *const keys[] = {"timestamp", "input_length", "output_length", "images",
                                   "hash_ids"};
#define N_KEYS (sizeof keys / sizeof keys[0])

bool sim_workload_jsonl_scan(const char *line, sim_workload_jsonl_row *row, uint64_t **ids,
                             size_t *n_ids, size_t *cap)
{
    memset(row, 0, sizeof *row);
    double *num[N_KEYS - 1] = {&row->timestamp, &row->input_length, &row->output_length,
                               &row->images};
    bool seen[N_KEYS] = {false};
    const char *p = skip_ws(line);
    if (*p++ != '{')
        return false;
    p = skip_ws(p);
    if (*p == '}')
        return false; /* no fields: the tree reader says which is missing */
    for (;;) {
        if (*p++ != '"')
            return false;
        const char *k = p;
        while (*p && *p != '"' && *p != '\\')
            p++;
        if (*p != '"')
            return false; /* an escape or no end: the tree reader */
        size_t kl = (size_t)(p - k);
        size_t f = 0;
        while (f < N_KEYS && !(strlen(keys[f]) == kl && memcmp(keys[f], k, kl) == 0))
            f++;
        if (f == N_KEYS || seen[f]) /* another key, or one twice: the tree reader */
            return false;
        seen[f] = true;
        p = skip_ws(p + 1);
        if (*p++ != ':')
            return false;
        p = skip_ws(p);
        if (f == N_KEYS - 1) { /* hash_ids: an array, or null */
            if (strncmp(p, "null", 4) == 0)
                p += 4;
            else if (*p != '[' || !(p = id_array(p, row, ids, n_ids, cap)))
                return false;
        } else if (!(p = number(p, num[f]))) {
            return false;
        }
        p = skip_ws(p);
        if (*p == '}')
            break;
        if (*p++ != ',')
            return false;
        p = skip_ws(p);
    }
    row->has_ts = seen[0];
    row->has_in = seen[1];
    row->has_out = seen[2];
    row->has_images = seen[3];
    return *skip_ws(p + 1) == '\0';
}
