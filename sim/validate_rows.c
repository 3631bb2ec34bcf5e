/* validate_rows.c - the measured rows of validate: kinds and reading the normalized CSV. */
#define _POSIX_C_SOURCE 200809L
#include "validate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"

static const char *const kind_names[SIM_VK_COUNT] = {[SIM_VK_GEMM] = "gemm",
                                                     [SIM_VK_ATTENTION] = "attention",
                                                     [SIM_VK_COPY] = "copy",
                                                     [SIM_VK_ALLREDUCE] = "allreduce",
                                                     [SIM_VK_ALLREDUCE_NORM] = "allreduce_norm",
                                                     [SIM_VK_FUSED_ALLREDUCE_NORM] =
                                                         "fused_allreduce_norm",
                                                     [SIM_VK_GROUPED_GEMM] = "grouped_gemm",
                                                     [SIM_VK_ALLTOALL] = "alltoall",
                                                     [SIM_VK_DECODE_ATTENTION] =
                                                         "decode_attention",
                                                     [SIM_VK_MOE_LAYER] = "moe_layer",
                                                     [SIM_VK_E2E] = "e2e",
                                                     [SIM_VK_TTFT] = "ttft",
                                                     [SIM_VK_SERVE] = "serve",
                                                     [SIM_VK_SPEC] = "spec"};

const char *sim_vkind_name(sim_vkind k) { return kind_names[k]; }

bool sim_vkind_is_op(sim_vkind k) { return k < SIM_VK_E2E; }

/* The latency metrics a serve row may measure, as `vllm bench serve` names them: the mean or
 * median over requests (TTFT, TPOT, E2EL) or over every token gap (ITL), in ms. */
static const struct {
    const char *name;
    sim_metric metric;
    bool median;
} serve_latency[] = {
    {"mean_ttft_ms", SIM_M_TTFT, false}, {"median_ttft_ms", SIM_M_TTFT, true},
    {"mean_tpot_ms", SIM_M_TPOT, false}, {"median_tpot_ms", SIM_M_TPOT, true},
    {"mean_itl_ms", SIM_M_ITL, false},   {"median_itl_ms", SIM_M_ITL, true},
    {"mean_e2el_ms", SIM_M_E2EL, false}, {"median_e2el_ms", SIM_M_E2EL, true},
};
enum { N_SERVE_LATENCY = sizeof serve_latency / sizeof serve_latency[0] };

/* The serve latency metric named m, or -1. */
static int serve_latency_index(const char *m)
{
    for (int i = 0; i < N_SERVE_LATENCY; i++)
        if (strcmp(m, serve_latency[i].name) == 0)
            return i;
    return -1;
}

bool sim_validate_is_energy(const char *metric)
{
    return strcmp(metric, "avg_power_w") == 0 || strcmp(metric, "joules_per_output_token") == 0;
}

bool sim_validate_is_serve_latency(const char *metric)
{
    return serve_latency_index(metric) >= 0;
}

bool sim_validate_serve_latency(const char *metric, sim_metric *which, bool *median)
{
    const int i = serve_latency_index(metric);
    if (i < 0)
        return false;
    *which = serve_latency[i].metric;
    *median = serve_latency[i].median;
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* CSV */

#define MAX_FIELDS 40
enum { SPLIT_TOO_MANY = -1, SPLIT_OPEN_QUOTE = -2 }; /* split's failures */

/* Splits one CSV line in place (RFC 4180 quotes, no line breaks inside fields): the number of
 * fields, or SPLIT_TOO_MANY / SPLIT_OPEN_QUOTE. */
static int split(char *line, char **f)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == MAX_FIELDS)
            return SPLIT_TOO_MANY;
        if (*p == '"') {
            char *out = ++p;
            f[n++] = out;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"')
                    p++;
                *out++ = *p++;
            }
            if (*p != '"')
                return SPLIT_OPEN_QUOTE;
            *out = '\0';
            p++;
        } else {
            f[n++] = p;
            p += strcspn(p, ",\r\n");
        }
        if (*p != ',') {
            *p = '\0';
            return n;
        }
        *p++ = '\0';
    }
}

static const char *const columns[] = {
    "id",        "kind",   "hw",        "dtype",      "gpus",         "m",         "n",
    "k",         "batch",  "seq",       "heads",      "head_dim",     "causal",    "bytes",
    "model",     "tp",     "input_len", "output_len", "weight_dtype", "act_dtype", "kv_dtype",
    "framework", "metric", "value",     "unit",       "skip",         "source",    "group_size",
    "act_quant", "algo",   "trust",     "request_rate", "range_ratio"};
/* The first 27 columns come in this order; files may leave out the later ones, or give them in
 * any order after `source` (they are then read as empty). */
enum { N_COLUMNS = sizeof columns / sizeof columns[0], N_LEGACY_COLUMNS = 27 };

/* Largest value a whole-number column may hold: shapes and lengths up to 2^40, message sizes up to
 * 2^50 bytes, GPU counts up to 65536 (the `op` command's flag ranges). */
static int64_t col_max(int col)
{
    if (strcmp(columns[col], "bytes") == 0)
        return 1LL << 50;
    if (strcmp(columns[col], "gpus") == 0 || strcmp(columns[col], "tp") == 0)
        return 65536;
    return 1LL << 40;
}

/* A whole-number column: empty leaves 0 (a column the row's kind does not use; check_kind makes
 * the used ones required), else decimal digits only, in [0, col_max]. */
static sim_status col_int(char **f, int col, const char *path, int64_t line, int64_t *out,
                          sim_err *err)
{
    const char *s = f[col];
    *out = 0;
    if (!*s)
        return SIM_OK;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*s < '0' || *s > '9' || errno || *end || v > col_max(col))
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field '%s' is '%s', expected a whole number in [0, %lld] or "
                        "empty",
                        path, (long long)line, columns[col], s, (long long)col_max(col));
    *out = v;
    return SIM_OK;
}

/* A number format column: empty leaves dflt, else one of the known names. */
static sim_status col_dtype(char **f, int col, const char *path, int64_t line, sim_dtype dflt,
                            sim_dtype *out, sim_err *err)
{
    *out = dflt;
    if (*f[col] && !sim_dtype_parse(f[col], out))
        return sim_fail(err, SIM_EINPUT, "%s:%lld: field '%s' is '%s', expected one of %s or empty",
                        path, (long long)line, columns[col], f[col], sim_dtype_names());
    return SIM_OK;
}

static int col_index(const char *name)
{
    for (int i = 0; i < N_COLUMNS; i++)
        if (strcmp(columns[i], name) == 0)
            return i;
    return -1;
}

/* A grouped GEMM's kernel family and layout from the algo column: FAMILY, or deepgemm with
 * -contiguous (prefill) or -masked (decode). */
static bool parse_moe_algo(const char *algo, sim_vrow *r)
{
    r->moe_decode = false;
    if (!*algo)
        return true;
    if (strcmp(algo, "deepgemm-contiguous") == 0 || strcmp(algo, "deepgemm-masked") == 0) {
        r->moe_kernel = SIM_MOE_DEEPGEMM;
        r->moe_decode = strcmp(algo, "deepgemm-masked") == 0;
        return true;
    }
    return strcmp(algo, "deepgemm") != 0 && sim_moe_kernel_parse(algo, &r->moe_kernel);
}

/* The columns each kind uses, with their least value; a used column cannot be empty. */
typedef struct need {
    const char *col;
    int64_t min;
} need;

static const need needs_gemm[] = {{"dtype", 0}, {"m", 1}, {"n", 1}, {"k", 1}, {NULL, 0}};
static const need needs_attention[] = {{"dtype", 0},    {"batch", 1},  {"seq", 1}, {"heads", 1},
                                       {"head_dim", 1}, {"causal", 0}, {NULL, 0}};
static const need needs_copy[] = {{"bytes", 1}, {NULL, 0}};
static const need needs_allreduce[] = {{"gpus", 2}, {"bytes", 1}, {NULL, 0}};
static const need needs_ar_norm[] = {{"gpus", 2}, {"bytes", 1}, {"n", 1}, {NULL, 0}};
static const need needs_grouped[] = {{"dtype", 0}, {"batch", 1}, {"m", 1},
                                     {"n", 1},     {"k", 1},     {NULL, 0}};
static const need needs_moe_layer[] = {{"dtype", 0}, {"m", 1},     {"n", 1},
                                       {"k", 1},     {"batch", 1}, {"heads", 1}, {NULL, 0}};
static const need needs_decode_attention[] = {{"dtype", 0},    {"batch", 1}, {"seq", 1},
                                              {"heads", 1},    {"n", 1},     {"head_dim", 1},
                                              {NULL, 0}};
static const need needs_e2e[] = {{"model", 0},     {"batch", 1},      {"tp", 1},
                                 {"input_len", 1}, {"output_len", 1}, {"weight_dtype", 0},
                                 {NULL, 0}};
static const need *const kind_needs[SIM_VK_COUNT] = {[SIM_VK_GEMM] = needs_gemm,
                                                     [SIM_VK_ATTENTION] = needs_attention,
                                                     [SIM_VK_COPY] = needs_copy,
                                                     [SIM_VK_ALLREDUCE] = needs_allreduce,
                                                     [SIM_VK_ALLREDUCE_NORM] = needs_ar_norm,
                                                     [SIM_VK_FUSED_ALLREDUCE_NORM] = needs_ar_norm,
                                                     [SIM_VK_GROUPED_GEMM] = needs_grouped,
                                                     [SIM_VK_ALLTOALL] = needs_allreduce,
                                                     [SIM_VK_DECODE_ATTENTION] =
                                                         needs_decode_attention,
                                                     [SIM_VK_MOE_LAYER] = needs_moe_layer,
                                                     [SIM_VK_E2E] = needs_e2e,
                                                     [SIM_VK_TTFT] = needs_e2e,
                                                     [SIM_VK_SERVE] =
                                                         needs_e2e, /* batch: requests */
                                                     [SIM_VK_SPEC] = needs_e2e};

/* The metric of each end-to-end kind. */
static const char *const e2e_metric[SIM_VK_COUNT] = {
    [SIM_VK_E2E] = "e2e_s", [SIM_VK_TTFT] = "ttft_ms", [SIM_VK_SERVE] = "output_tps",
    [SIM_VK_SPEC] = "speedup"};

/* The metrics each kind can be measured in (a serve row also in duration_s: the benchmark's
 * duration, for runs whose outputs stopped before output_len so their token count is not
 * batch x output_len; and in the latency metrics above). */
static bool metric_fits(sim_vkind k, const char *m)
{
    if (sim_vkind_is_op(k))
        return strcmp(m, "tflops") == 0 || strcmp(m, "tb_per_s") == 0 ||
               strcmp(m, "busbw_gb_per_s") == 0 || strcmp(m, "latency_ms") == 0;
    return strcmp(m, e2e_metric[k]) == 0 ||
           ((k == SIM_VK_E2E || k == SIM_VK_SERVE) && sim_validate_is_energy(m)) ||
           (k == SIM_VK_SPEC && strcmp(m, "throughput_ratio") == 0) ||
           (k == SIM_VK_SERVE &&
            (strcmp(m, "duration_s") == 0 || sim_validate_is_serve_latency(m)));
}

/* Every column the row's kind uses is present and in range, and `hw` is named, unless the row is
 * skipped (it cannot be expressed, so nothing of it is used). */
static sim_status check_kind(char **f, const sim_vrow *r, const char *path, int64_t line,
                             sim_err *err)
{
    const char *kn = kind_names[r->kind];
    static const struct {
        int col;
        size_t cap;
    } texts[] = {{2, sizeof r->hw}, {14, sizeof r->model}, {22, sizeof r->metric}};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (strlen(f[texts[i].col]) >= texts[i].cap)
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field '%s' is '%.40s...', expected at most "
                            "%zu characters",
                            path, (long long)line, columns[texts[i].col], f[texts[i].col],
                            texts[i].cap - 1);
    if (r->skip[0])
        return SIM_OK; /* a row that cannot be expressed need not fill every column */
    if (!r->hw[0])
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'hw' is empty, expected a device name for %s rows that "
                        "are not skipped",
                        path, (long long)line, kn);
    for (const need *nd = kind_needs[r->kind]; nd->col; nd++) {
        int c = col_index(nd->col);
        if (!*f[c])
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field '%s' is empty, expected a value for "
                            "%s rows",
                            path, (long long)line, nd->col, kn);
        if (nd->min > 0 && strtoll(f[c], NULL, 10) < nd->min)
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field '%s' is '%s', expected >= %lld for "
                            "%s rows",
                            path, (long long)line, nd->col, f[c], (long long)nd->min, kn);
    }
    if (!metric_fits(r->kind, r->metric))
        return sim_fail(err, SIM_EINPUT, "%s:%lld: field 'metric' is '%s', expected %s for %s rows",
                        path, (long long)line, r->metric,
                        sim_vkind_is_op(r->kind)  ? "tflops, tb_per_s, busbw_gb_per_s or latency_ms"
                        : r->kind == SIM_VK_SERVE ? "output_tps, duration_s, avg_power_w, "
                                                    "joules_per_output_token or a mean_/median_ "
                                                    "ttft_ms, tpot_ms, itl_ms or e2el_ms"
                        : r->kind == SIM_VK_E2E   ? "e2e_s, avg_power_w or joules_per_output_token"
                                                  : e2e_metric[r->kind],
                        kn);
    return SIM_OK;
}

/* A serve row's arrival and length columns: request_rate (requests per second of Poisson
 * arrivals; empty or "inf" sends every request at t = 0) and range_ratio (lengths uniform in
 * [L(1 - R), L(1 + R)] as vLLM's --random-range-ratio; empty: 0, fixed lengths). Other kinds leave
 * both empty. */
static sim_status col_arrivals(char **f, sim_vrow *r, const char *path, int64_t line, sim_err *err)
{
    r->request_rate = INFINITY;
    r->range_ratio = 0.0;
    static const char *const cols[] = {"request_rate", "range_ratio"};
    for (int i = 0; i < 2; i++) {
        const char *s = f[col_index(cols[i])];
        if (!*s || (i == 0 && r->kind == SIM_VK_SERVE && strcmp(s, "inf") == 0))
            continue;
        if (r->kind != SIM_VK_SERVE)
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field '%s' is '%.20s', expected empty for %s rows", path,
                            (long long)line, cols[i], s, kind_names[r->kind]);
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        bool ok = !errno && end != s && !*end && isfinite(v) &&
                  (i == 0 ? v > 0.0 : v >= 0.0 && v < 1.0);
        if (!ok)
            return sim_fail(err, SIM_EINPUT, "%s:%lld: field '%s' is '%.20s', expected %s", path,
                            (long long)line, cols[i], s,
                            i == 0 ? "requests per second > 0, inf or empty"
                                   : "a ratio in [0, 1) or empty");
        *(i == 0 ? &r->request_rate : &r->range_ratio) = v;
    }
    return SIM_OK;
}

static sim_status parse_row(char **f, const char *path, int64_t line, sim_vrow *r, sim_err *err)
{
    memset(r, 0, sizeof *r);
    r->line = line;
    int kind = -1;
    for (int i = 0; i < SIM_VK_COUNT; i++)
        if (strcmp(f[1], kind_names[i]) == 0)
            kind = i;
    if (kind < 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'kind' is '%s', expected gemm, attention, copy, "
                        "allreduce, allreduce_norm, fused_allreduce_norm, grouped_gemm, "
                        "alltoall, decode_attention, moe_layer, e2e, ttft, serve or spec",
                        path, (long long)line, f[1]);
    r->kind = (sim_vkind)kind;
    if (!*f[0])
        return sim_fail(err, SIM_EINPUT, "%s:%lld: field 'id' is empty, expected a whole number",
                        path, (long long)line);
    int64_t *const ints[] = {&r->id,    &r->gpus,      &r->m,          &r->n,         &r->k,
                             &r->batch, &r->seq,       &r->heads,      &r->head_dim,  &r->bytes,
                             &r->tp,    &r->input_len, &r->output_len, &r->group_size};
    static const char *const int_cols[] = {"id",    "gpus",      "m",          "n",         "k",
                                           "batch", "seq",       "heads",      "head_dim",  "bytes",
                                           "tp",    "input_len", "output_len", "group_size"};
    sim_status st = SIM_OK;
    for (size_t i = 0; !st && i < sizeof ints / sizeof ints[0]; i++)
        st = col_int(f, col_index(int_cols[i]), path, line, ints[i], err);
    if (!st)
        st = col_dtype(f, col_index("dtype"), path, line, SIM_DT_BF16, &r->dtype, err);
    /* activations default to the weights' format, the KV cache to the activations' */
    /* a GEMM's weights default to its compute format (dtype); other kinds' to bf16 */
    if (!st)
        st = col_dtype(f, col_index("weight_dtype"), path, line,
                       r->kind == SIM_VK_GEMM ? r->dtype : SIM_DT_BF16, &r->weight, err);
    if (!st)
        st = col_dtype(f, col_index("act_dtype"), path, line, r->weight, &r->act, err);
    if (!st)
        st = col_dtype(f, col_index("kv_dtype"), path, line, r->act, &r->kv, err);
    if (st)
        return st;
    r->weight_set = *f[col_index("weight_dtype")] != '\0';
    r->act_set = *f[col_index("act_dtype")] != '\0';
    r->kv_set = *f[col_index("kv_dtype")] != '\0';
    r->group_size_set = *f[col_index("group_size")] != '\0';
    const char *causal = f[col_index("causal")];
    if (*causal && strcmp(causal, "true") != 0 && strcmp(causal, "false") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'causal' is '%s', expected true, false "
                        "or empty",
                        path, (long long)line, causal);
    r->causal = strcmp(causal, "true") == 0;
    const char *aq = f[col_index("act_quant")];
    if (*aq && strcmp(aq, "true") != 0 && strcmp(aq, "false") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'act_quant' is '%s', expected true, false or empty", path,
                        (long long)line, aq);
    r->act_quant = strcmp(aq, "true") == 0;
    snprintf(r->hw, sizeof r->hw, "%s", f[2]);
    snprintf(r->model, sizeof r->model, "%s", f[14]);
    /* the engine and the flags validate applies are read from it: a cut column would drop one */
    if (strlen(f[21]) >= sizeof r->framework)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'framework' has %zu characters, expected at most %zu (the "
                        "setup beyond the engine and its flags goes in 'source')",
                        path, (long long)line, strlen(f[21]), sizeof r->framework - 1);
    snprintf(r->framework, sizeof r->framework, "%s", f[21]);
    snprintf(r->metric, sizeof r->metric, "%s", f[22]);
    char *end;
    errno = 0;
    r->value = strtod(f[23], &end);
    if (errno || end == f[23] || *end || !(r->value >= SIM_VALIDATE_MIN_MEASURED) ||
        !isfinite(r->value))
        return sim_fail(err, SIM_EINPUT, "%s:%lld: field 'value' is '%s', expected a number >= %g",
                        path, (long long)line, f[23], SIM_VALIDATE_MIN_MEASURED);
    snprintf(r->unit, sizeof r->unit, "%s", f[24]);
    snprintf(r->skip, sizeof r->skip, "%s", f[25]);
    snprintf(r->source, sizeof r->source, "%s", f[26]);
    r->algo = SIM_COLL_AUTO;
    const char *algo = f[col_index("algo")], *trust = f[col_index("trust")];
    r->a2a = SIM_A2A_LOW_LATENCY;
    r->a2a_rdma_only = false;
    r->moe_kernel = SIM_MOE_TRITON;
    if (r->kind == SIM_VK_ALLTOALL) {
        r->a2a_rdma_only = !*algo || strcmp(algo, "low_latency_rdma") == 0;
        if (!r->a2a_rdma_only &&
            (!sim_a2a_mode_parse(algo, &r->a2a) || r->a2a == SIM_A2A_AUTO))
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field 'algo' is '%s', expected normal, low_latency, "
                            "low_latency_rdma or empty for an alltoall row",
                            path, (long long)line, algo);
        if (!r->a2a_rdma_only && (r->m < 1 || r->n < 1 || r->k < 1 || r->batch < r->k))
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: an alltoall row in mode %s needs m (tokens per rank), n "
                            "(hidden), k (top-k) and batch (experts, >= k) >= 1",
                            path, (long long)line, algo);
    } else if (r->kind == SIM_VK_SPEC) {
        if (!*algo || strlen(algo) >= sizeof r->spec)
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field 'algo' is '%.40s', expected the speculation as "
                            "\"METHOD DEPTH TOPK TOKENS TAU\"",
                            path, (long long)line, algo);
        snprintf(r->spec, sizeof r->spec, "%s", algo);
    } else if (r->kind == SIM_VK_GROUPED_GEMM || r->kind == SIM_VK_MOE_LAYER) {
        if (!parse_moe_algo(algo, r))
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field 'algo' is '%s', expected triton, "
                            "deepgemm-contiguous, deepgemm-masked, cutlass, ck, marlin or empty",
                            path, (long long)line, algo);
    } else if (r->kind == SIM_VK_GEMM && strncmp(algo, "block-fp8", 9) == 0) {
        r->block_fp8 = strcmp(algo, "block-fp8-triton") == 0     ? 1
                       : strcmp(algo, "block-fp8-deepgemm") == 0 ? 2
                                                                 : 0;
        if (!r->block_fp8 || r->dtype != SIM_DT_FP8)
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field 'algo' is '%s', expected block-fp8-triton or "
                            "block-fp8-deepgemm on an fp8 gemm row",
                            path, (long long)line, algo);
    } else if (r->kind == SIM_VK_DECODE_ATTENTION) {
        if (!sim_dattn_parse(algo, &r->dattn))
            return sim_fail(err, SIM_EINPUT, "%s:%lld: field 'algo' is '%s', expected %s", path,
                            (long long)line, algo, sim_dattn_names());
    } else if (*algo && !sim_coll_algo_parse(algo, &r->algo))
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'algo' is '%s', expected auto, ring, tree, oneshot, "
                        "twoshot, nvls, nccl or empty",
                        path, (long long)line, algo);
    static const char *const trusts[] = {"", "high", "medium", "low"};
    size_t t = 0;
    while (t < 4 && strcmp(trust, trusts[t]) != 0)
        t++;
    if (t == 4)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'trust' is '%.20s', expected high, medium, low or empty",
                        path, (long long)line, trust);
    r->low_trust = t == 3;
    if ((st = col_arrivals(f, r, path, line, err)))
        return st;
    return check_kind(f, r, path, line, err);
}

/* Where each column is in a file whose header is `f`: the first 27 in their order, then any of
 * the later ones once each, in any order. */
static sim_status header_positions(char **f, int nf, const char *path, int *pos, sim_err *err)
{
    bool ok = nf >= N_LEGACY_COLUMNS && nf <= N_COLUMNS;
    for (int i = 0; i < N_COLUMNS; i++)
        pos[i] = i < N_LEGACY_COLUMNS ? i : -1;
    for (int i = 0; ok && i < N_LEGACY_COLUMNS; i++)
        ok = strcmp(f[i], columns[i]) == 0;
    for (int i = N_LEGACY_COLUMNS; ok && i < nf; i++) {
        int c = col_index(f[i]);
        ok = c >= N_LEGACY_COLUMNS && pos[c] < 0;
        if (ok)
            pos[c] = i;
    }
    if (!ok)
        return sim_fail(err, SIM_EINPUT,
                        "%s:1: header is not the validation columns (id,kind,hw,...,skip,source "
                        "then any of group_size,act_quant,algo,trust,request_rate,range_ratio)",
                        path);
    return SIM_OK;
}

sim_status sim_validate_load(const char *path, sim_vrow **rows, size_t *n, sim_err *err)
{
    *rows = NULL;
    *n = 0;
    sim_lines lr;
    sim_status st = sim_lines_open(&lr, path, err);
    if (st)
        return st;
    char *line = NULL;
    size_t cap = 0;
    bool header = false;
    int ncols = N_COLUMNS;
    int pos[N_COLUMNS]; /* the file's field of each column, -1 when the file has none */
    char empty[1] = ""; /* what a column the file lacks reads as */
    while (!st && !(st = sim_lines_next(&lr, &line, err)) && line) {
        int64_t lineno = lr.lineno;
        char *f[MAX_FIELDS];
        int nf = split(line, f);
        if (nf < 0) {
            if (nf == SPLIT_OPEN_QUOTE)
                st = sim_fail(err, SIM_EINPUT,
                              "%s:%lld: a quoted field without its closing '\"', expected \"...\"",
                              path, (long long)lr.lineno);
            else
                st = sim_fail(err, SIM_EINPUT, "%s:%lld: more than %d fields, expected %d at most",
                              path, (long long)lr.lineno, MAX_FIELDS, (int)N_COLUMNS);
            break;
        }
        if (!header) { /* line 1 */
            ncols = nf;
            st = header_positions(f, nf, path, pos, err);
            header = true;
            continue;
        }
        if (nf == 1 && !*f[0])
            continue;
        if (nf != ncols) {
            st = sim_fail(err, SIM_EINPUT, "%s:%lld: %d fields, expected %d", path,
                          (long long)lineno, nf, ncols);
            break;
        }
        char *canon[N_COLUMNS]; /* the row's fields in the order of `columns` */
        for (int i = 0; i < N_COLUMNS; i++)
            canon[i] = pos[i] >= 0 ? f[pos[i]] : empty;
        if (*n == cap) {
            cap = cap ? 2 * cap : 128;
            sim_vrow *r = realloc(*rows, cap * sizeof *r);
            if (!r) {
                st = sim_fail(err, SIM_EINTERNAL, "out of memory");
                break;
            }
            *rows = r;
        }
        st = parse_row(canon, path, lineno, &(*rows)[*n], err);
        if (!st)
            (*n)++;
    }
    sim_lines_close(&lr);
    if (!st && !header)
        st = sim_fail(err, SIM_EINPUT, "%s: empty, expected the validation CSV header and rows",
                      path);
    else if (!st && *n == 0)
        st = sim_fail(err, SIM_EINPUT, "%s: no rows after the header, expected measurements", path);
    if (st) {
        free(*rows);
        *rows = NULL;
        *n = 0;
    }
    return st;
}
