/* lenfile.c - request lengths from a JSON-lines dataset file. */
#include "lenfile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lines.h"

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

/* One line's lengths into *in, *out. */
static sim_status parse_line(const cJSON *o, const char *path, int64_t line, int64_t *in,
                             int64_t *out, sim_err *err)
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
                            "%s:%lld: expected \"input_ids\" (or \"input_len\"): %s", path,
                            (long long)line,
                            cJSON_GetObjectItemCaseSensitive(o, "prompt")
                                ? "a text \"prompt\" needs a tokenizer to count its tokens"
                                : "the prompt's tokens");
    }
    *out = count_field(o, "output_tokens", path, line, err);
    if (*out == -1)
        *out = count_field(o, "output_len", path, line, err);
    if (*out == -2)
        return SIM_EINPUT;
    if (*out == -1)
        return sim_fail(err, SIM_EINPUT, "%s:%lld: expected \"output_tokens\" (a whole number)",
                        path, (long long)line);
    return SIM_OK;
}

sim_status sim_lenfile_load(const char *path, int64_t limit, sim_lenfile *out, sim_err *err)
{
    memset(out, 0, sizeof *out);
    sim_lines r;
    sim_status st = sim_lines_open(&r, path, err);
    if (st)
        return st;
    size_t cap = 0;
    char *line;
    while (!(st = sim_lines_next(&r, &line, err)) && line) {
        if (limit > 0 && out->n >= (size_t)limit)
            break;
        if (!line[strspn(line, " \t\r")])
            continue;
        cJSON *o = cJSON_Parse(line);
        if (!o) {
            st = sim_fail(err, SIM_EINPUT, "%s:%lld: not JSON (expected one object a line)", path,
                          (long long)r.lineno);
            break;
        }
        int64_t in = 0, outl = 0;
        st = parse_line(o, path, r.lineno, &in, &outl, err);
        cJSON_Delete(o);
        if (st)
            break;
        if (out->n == cap) {
            size_t nc = cap ? 2 * cap : 1024;
            int64_t *a = realloc(out->input_len, nc * sizeof *a);
            if (a)
                out->input_len = a;
            int64_t *b = a ? realloc(out->output_len, nc * sizeof *b) : NULL;
            if (!b) {
                st = sim_fail(err, SIM_EINTERNAL, "%s: out of memory", path);
                break;
            }
            out->output_len = b;
            cap = nc;
        }
        out->input_len[out->n] = in;
        out->output_len[out->n] = outl;
        out->n++;
    }
    sim_lines_close(&r);
    if (!st && out->n == 0)
        st = sim_fail(err, SIM_EINPUT, "%s: no requests (expected one JSON object a line)", path);
    if (st)
        sim_lenfile_free(out);
    return st;
}

void sim_lenfile_free(sim_lenfile *f)
{
    free(f->input_len);
    free(f->output_len);
    memset(f, 0, sizeof *f);
}
