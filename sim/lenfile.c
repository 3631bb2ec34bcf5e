/* lenfile.c - request lengths from a JSON-lines dataset file or a BurstGPT trace. */
#include "lenfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lines.h"
#include "rng.h"

/* the longest prompt or output a line may name: what a workload holds (workload.c's inputs) */
#define LENFILE_MAX_TOKENS ((int64_t)1 << 26)

/* A whole number field >= 1, or -1 when absent; -2 (an error in err) when present but wrong. */
static int64_t count_field(const cJSON *o, const char *key, const char *path, int64_t line,
                           sim_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return -1;
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(x >= 1.0 && x <= (double)LENFILE_MAX_TOKENS && x == floor(x))) {
        sim_fail(err, SIM_EINPUT, "%s:%lld: \"%s\": expected a whole number in [1, %lld]", path,
                 (long long)line, key, (long long)LENFILE_MAX_TOKENS);
        return -2;
    }
    return (int64_t)x;
}

/* One line's lengths into *in, *out; every_out > 0: every output is that (the line need not give
 * one). */
static sim_status parse_line(const cJSON *o, const char *path, int64_t line, int64_t every_out,
                             int64_t *in, int64_t *out, sim_err *err)
{
    if (!cJSON_IsObject(o))
        return sim_fail(err, SIM_EINPUT, "%s:%lld: expected a JSON object a line", path,
                        (long long)line);
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(o, "input_ids");
    if (ids) {
        int n = cJSON_IsArray(ids) ? cJSON_GetArraySize(ids) : -1;
        if (n < 1)
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: \"input_ids\": expected a non-empty list of token ids", path,
                            (long long)line);
        *in = n;
    } else {
        *in = count_field(o, "input_len", path, line, err);
        if (*in == -1)
            *in = count_field(o, "prompt_len", path, line, err);
        if (*in == -2)
            return SIM_EINPUT;
        if (*in == -1)
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: expected \"input_ids\" (or \"input_len\" / \"prompt_len\", "
                            "the prompt's tokens)%s",
                            path, (long long)line,
                            cJSON_GetObjectItemCaseSensitive(o, "prompt")
                                ? ": a text \"prompt\" needs a tokenizer to count its tokens"
                                : "");
    }
    if (every_out > 0) {
        *out = every_out;
        return SIM_OK;
    }
    *out = count_field(o, "output_tokens", path, line, err);
    if (*out == -1)
        *out = count_field(o, "output_len", path, line, err);
    if (*out == -2)
        return SIM_EINPUT;
    if (*out == -1)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: expected \"output_tokens\" (or \"output_len\", a whole "
                        "number; or every output's tokens from --custom-output-len)",
                        path, (long long)line);
    return SIM_OK;
}

/* Appends one request's lengths (*cap grows the arrays). */
static sim_status append(sim_lenfile *f, size_t *cap, int64_t in, int64_t outl, const char *path,
                         sim_err *err)
{
    if (f->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 1024;
        int64_t *a = realloc(f->input_len, nc * sizeof *a);
        if (a)
            f->input_len = a;
        int64_t *b = a ? realloc(f->output_len, nc * sizeof *b) : NULL;
        if (!b)
            return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", path);
        f->output_len = b;
        *cap = nc;
    }
    f->input_len[f->n] = in;
    f->output_len[f->n] = outl;
    f->n++;
    return SIM_OK;
}

/* BurstGPT's columns (HPMLL/BurstGPT, BurstGPT_*.csv: Timestamp, Model, Request tokens, Response
 * tokens, Total tokens, Log Type): the index of each one read, -1 when the header lacks it. */
enum { BGPT_MODEL, BGPT_REQUEST, BGPT_RESPONSE, BGPT_COLUMNS };
static const char *const bgpt_names[BGPT_COLUMNS] = {"Model", "Request tokens", "Response tokens"};

/* Splits a CSV line in place at ','; quoted fields are not read (BurstGPT has none). Returns the
 * number of fields (at most `max`), -1 for a quote. */
static int split_csv(char *line, char **field, int max)
{
    if (strchr(line, '"'))
        return -1;
    line[strcspn(line, "\r")] = '\0';
    int n = 0;
    for (char *p = line; n < max; n++) {
        field[n] = p;
        char *c = strchr(p, ',');
        if (!c)
            return n + 1;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

/* A whole token count >= 0 in a CSV field (BurstGPT writes integers); -1 when it is none. */
static int64_t csv_count(const char *s)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < 0 || v > LENFILE_MAX_TOKENS)
        return -1;
    return v;
}

/* The rows of a BurstGPT trace that vLLM's BurstGPTDataset keeps (vllm/benchmarks/datasets.py:
 * Model "GPT-4", Response tokens > 0), in file order. `header` is its first line. */
static sim_status load_burstgpt(sim_lines *r, char *header, const char *path, sim_lenfile *out,
                                sim_err *err)
{
    char *field[64];
    int col[BGPT_COLUMNS], n = split_csv(header, field, 64);
    for (int c = 0; c < BGPT_COLUMNS; c++) {
        col[c] = -1;
        for (int k = 0; k < n; k++)
            if (strcmp(field[k], bgpt_names[c]) == 0)
                col[c] = k;
        if (col[c] < 0)
            return sim_fail(err, SIM_EINPUT,
                            "%s:1: no \"%s\" column (expected BurstGPT's header: "
                            "Timestamp,Model,Request tokens,Response tokens,...)",
                            path, bgpt_names[c]);
    }
    size_t cap = 0;
    char *line;
    sim_status st;
    while (!(st = sim_lines_next(r, &line, err)) && line) {
        if (!line[strspn(line, " \t\r")])
            continue;
        n = split_csv(line, field, 64);
        int need = col[BGPT_MODEL] > col[BGPT_REQUEST] ? col[BGPT_MODEL] : col[BGPT_REQUEST];
        need = need > col[BGPT_RESPONSE] ? need : col[BGPT_RESPONSE];
        if (n <= need)
            return sim_fail(err, SIM_EINPUT, "%s:%lld: %s, expected the header's columns", path,
                            (long long)r->lineno, n < 0 ? "a quoted field" : "too few fields");
        if (strcmp(field[col[BGPT_MODEL]], "GPT-4") != 0)
            continue;
        int64_t in = csv_count(field[col[BGPT_REQUEST]]);
        int64_t o = csv_count(field[col[BGPT_RESPONSE]]);
        if (in < 0 || o < 0)
            return sim_fail(
                err, SIM_EINPUT,
                "%s:%lld: \"%s\": '%s', expected a whole number in "
                "[0, %lld]",
                path, (long long)r->lineno, bgpt_names[in < 0 ? BGPT_REQUEST : BGPT_RESPONSE],
                field[col[in < 0 ? BGPT_REQUEST : BGPT_RESPONSE]], (long long)LENFILE_MAX_TOKENS);
        if (o == 0) /* a failed request: vLLM leaves it out */
            continue;
        if (in == 0)
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: \"Request tokens\": 0, expected >= 1 (an empty prompt)", path,
                            (long long)r->lineno);
        if ((st = append(out, &cap, in, o, path, err)))
            return st;
    }
    if (!st && out->n == 0)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: no GPT-4 rows with Response tokens > 0 (what vLLM's BurstGPT dataset "
                      "samples)",
                      path);
    return st;
}

sim_status sim_lenfile_load(const char *path, int64_t limit, int64_t every_out, sim_lenfile *out,
                            sim_err *err)
{
    memset(out, 0, sizeof *out);
    sim_lines r;
    sim_status st = sim_lines_open(&r, path, err);
    if (st)
        return st;
    size_t cap = 0;
    char *line;
    bool first = true;
    while (!(st = sim_lines_next(&r, &line, err)) && line) {
        if (limit > 0 && out->n >= (size_t)limit)
            break;
        if (!line[strspn(line, " \t\r")])
            continue;
        /* a first line that is no JSON object but comma-separated: a CSV header */
        if (first && line[strspn(line, " \t")] != '{' && strchr(line, ',') && !strchr(line, '{')) {
            out->burstgpt = true; /* a BurstGPT trace: all of its rows (sim_lenfile_sample) */
            st = load_burstgpt(&r, line, path, out, err);
            break;
        }
        first = false;
        cJSON *o = cJSON_Parse(line);
        if (!o) {
            st = sim_fail(err, SIM_EINPUT, "%s:%lld: not JSON (expected one object a line)", path,
                          (long long)r.lineno);
            break;
        }
        int64_t in = 0, outl = 0;
        st = parse_line(o, path, r.lineno, every_out, &in, &outl, err);
        cJSON_Delete(o);
        if (!st)
            st = append(out, &cap, in, outl, path, err);
        if (st)
            break;
    }
    sim_lines_close(&r);
    for (size_t i = 0; !st && every_out > 0 && i < out->n; i++) /* a BurstGPT trace's too */
        out->output_len[i] = every_out;
    if (!st && out->n == 0)
        st = sim_fail(err, SIM_EINPUT, "%s: no requests (expected one JSON object a line)", path);
    if (st)
        sim_lenfile_free(out);
    return st;
}

sim_status sim_lenfile_sample(sim_lenfile *f, int64_t n, uint64_t seed, sim_err *err)
{
    int64_t *in = n > 0 ? malloc((size_t)n * sizeof *in) : NULL;
    int64_t *o = in ? malloc((size_t)n * sizeof *o) : NULL;
    size_t *idx = o ? malloc(f->n * sizeof *idx) : NULL;
    if (!idx) {
        free(in);
        free(o);
        return n > 0 ? sim_fail(err, SIM_EINTERNAL, "out of memory")
                     : sim_fail(err, SIM_EINPUT, "--num-prompts: value %lld, expected >= 1",
                                (long long)n);
    }
    sim_rng r;
    sim_rng_seed(&r, seed);
    for (size_t i = 0; i < f->n; i++)
        idx[i] = i;
    for (int64_t k = 0; k < n; k++) {
        size_t pick;
        if ((size_t)n <= f->n) { /* without replacement: a partial Fisher-Yates shuffle */
            size_t j = (size_t)k + (size_t)sim_rng_int(&r, 0, (int64_t)(f->n - (size_t)k) - 1);
            size_t t = idx[k];
            idx[k] = idx[j];
            idx[j] = t;
            pick = idx[k];
        } else /* more than the rows: every draw with replacement */
            pick = (size_t)sim_rng_int(&r, 0, (int64_t)f->n - 1);
        in[k] = f->input_len[pick];
        o[k] = f->output_len[pick];
    }
    free(idx);
    free(f->input_len);
    free(f->output_len);
    f->input_len = in;
    f->output_len = o;
    f->n = (size_t)n;
    return SIM_OK;
}

void sim_lenfile_free(sim_lenfile *f)
{
    free(f->input_len);
    free(f->output_len);
    memset(f, 0, sizeof *f);
}
