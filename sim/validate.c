/* validate.c - op and end-to-end predictions for measured rows; fitting efficiencies. */
#define _POSIX_C_SOURCE 200809L
#include "validate.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "graph.h"
#include "lines.h"
#include "metrics.h"
#include "run.h"

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
                                                     [SIM_VK_E2E] = "e2e",
                                                     [SIM_VK_TTFT] = "ttft",
                                                     [SIM_VK_SERVE] = "serve"};

const char *sim_vkind_name(sim_vkind k) { return kind_names[k]; }

bool sim_vkind_is_op(sim_vkind k) { return k < SIM_VK_E2E; }

/* ------------------------------------------------------------------------------------------ */
/* CSV */

#define MAX_FIELDS 40

/* Splits one CSV line in place (RFC 4180 quotes, no line breaks inside fields). */
static int split(char *line, char **f)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == MAX_FIELDS)
            return -1;
        if (*p == '"') {
            char *out = ++p;
            f[n++] = out;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"')
                    p++;
                *out++ = *p++;
            }
            if (*p != '"')
                return -1;
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
                                                     [SIM_VK_E2E] = needs_e2e,
                                                     [SIM_VK_TTFT] = needs_e2e,
                                                     [SIM_VK_SERVE] =
                                                         needs_e2e}; /* batch: requests */

/* The metric of each end-to-end kind. */
static const char *const e2e_metric[SIM_VK_COUNT] = {
    [SIM_VK_E2E] = "e2e_s", [SIM_VK_TTFT] = "ttft_ms", [SIM_VK_SERVE] = "output_tps"};

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

/* The metrics each kind can be measured in (a serve row also in duration_s: the benchmark's
 * duration, for runs whose outputs stopped before output_len so their token count is not
 * batch x output_len; and in the latency metrics above). */
static bool metric_fits(sim_vkind k, const char *m)
{
    if (sim_vkind_is_op(k))
        return strcmp(m, "tflops") == 0 || strcmp(m, "tb_per_s") == 0 ||
               strcmp(m, "busbw_gb_per_s") == 0 || strcmp(m, "latency_ms") == 0;
    return strcmp(m, e2e_metric[k]) == 0 ||
           (k == SIM_VK_SERVE && (strcmp(m, "duration_s") == 0 || serve_latency_index(m) >= 0));
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
                        : r->kind == SIM_VK_SERVE ? "output_tps, duration_s or a mean_/median_ "
                                                    "ttft_ms, tpot_ms, itl_ms or e2el_ms"
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
                        "alltoall, decode_attention, e2e, ttft or serve",
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
    if (r->kind == SIM_VK_DECODE_ATTENTION) {
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

/* ------------------------------------------------------------------------------------------ */
/* Predictions */

double sim_validate_size_bytes(const sim_vrow *r)
{
    double eb = sim_dtype_bytes(r->dtype);
    switch (r->kind) {
    case SIM_VK_GEMM:
        return ((double)r->m * (double)r->k + (double)r->k * (double)r->n +
                (double)r->m * (double)r->n) *
               eb;
    case SIM_VK_ATTENTION:
        return 4.0 * (double)r->batch * (double)r->seq * (double)r->heads * (double)r->head_dim *
               eb;
    case SIM_VK_DECODE_ATTENTION: /* the KV cache it reads */
        return 2.0 * (double)r->batch * (double)r->seq * (double)r->n * (double)r->head_dim * eb;
    default:
        return (double)r->bytes;
    }
}

int sim_validate_bucket(const sim_vrow *r)
{
    double b = sim_validate_size_bytes(r);
    return b <= 65536.0 ? 0 : b <= 4194304.0 ? 1 : 2;
}

const char *sim_validate_bucket_name(int bucket)
{
    static const char *const names[SIM_VBUCKET_COUNT] = {"<= 64 KB", "<= 4 MB", "> 4 MB"};
    return names[bucket];
}

double sim_validate_error_pct(double predicted, double measured)
{
    return 100.0 * (predicted - measured) / measured;
}

/* One op's time on the device, with the per-kernel cost of back-to-back launches. */
static double op_ns(const sim_hw *hw, const sim_op *op)
{
    return sim_cost_op(hw, op, hw->graph_launch_ns).t_ns;
}

sim_status sim_validate_op(const sim_vrow *r, const sim_hw *hw, double *pred, sim_err *err)
{
    sim_op op = {.present = true, .compute = r->dtype, .weight = r->dtype};
    double ns = 0.0, work = 0.0; /* work: FLOPs or bytes behind the metric */
    if (!sim_vkind_is_op(r->kind))
        return sim_fail(err, SIM_EINTERNAL, "row %lld is not an op", (long long)r->id);
    /* the shape a hand-built row (the op command, a test) must have; loaded rows are checked */
    const struct {
        const char *name;
        int64_t v, min;
    } shape[SIM_VK_E2E][4] = {[SIM_VK_GEMM] = {{"m", r->m, 1}, {"n", r->n, 1}, {"k", r->k, 1}},
                              [SIM_VK_ATTENTION] = {{"batch", r->batch, 1},
                                                    {"seq", r->seq, 1},
                                                    {"heads", r->heads, 1},
                                                    {"head_dim", r->head_dim, 1}},
                              [SIM_VK_COPY] = {{"bytes", r->bytes, 1}},
                              [SIM_VK_ALLREDUCE] = {{"gpus", r->gpus, 2}, {"bytes", r->bytes, 1}},
                              [SIM_VK_GROUPED_GEMM] = {{"batch", r->batch, 1},
                                                       {"m", r->m, 1},
                                                       {"n", r->n, 1},
                                                       {"k", r->k, 1}},
                              [SIM_VK_ALLTOALL] = {{"gpus", r->gpus, 2}, {"bytes", r->bytes, 1}},
                              [SIM_VK_DECODE_ATTENTION] = {{"batch", r->batch, 1},
                                                           {"seq", r->seq, 1},
                                                           {"heads", r->heads, 1},
                                                           {"n", r->n, 1}},
                              [SIM_VK_ALLREDUCE_NORM] = {{"gpus", r->gpus, 2},
                                                         {"bytes", r->bytes, 1},
                                                         {"n", r->n, 1}},
                              [SIM_VK_FUSED_ALLREDUCE_NORM] = {{"gpus", r->gpus, 2},
                                                               {"bytes", r->bytes, 1},
                                                               {"n", r->n, 1}}};
    for (int i = 0; i < 4 && shape[r->kind][i].name; i++)
        if (shape[r->kind][i].v < shape[r->kind][i].min)
            return sim_fail(
                err, SIM_EINPUT, "row %lld: field '%s' is %lld, expected >= %lld for %s",
                (long long)r->id, shape[r->kind][i].name, (long long)shape[r->kind][i].v,
                (long long)shape[r->kind][i].min, kind_names[r->kind]);
    /* the kinds that compute need the device to compute in the format */
    if ((r->kind == SIM_VK_GEMM || r->kind == SIM_VK_ATTENTION || r->kind == SIM_VK_GROUPED_GEMM) &&
        !(hw->peak_flops[r->dtype] > 0.0))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'dense_tflops.%s' is missing, expected a peak to price %s in %s",
                        hw->path[0] ? hw->path : hw->name, sim_dtype_name(r->dtype),
                        kind_names[r->kind], sim_dtype_name(r->dtype));
    switch (r->kind) {
    case SIM_VK_GEMM: {
        /* math in dtype, weights stored as weight_dtype (a mixed-input kernel when they
         * differ), 16-bit output; with act_quant, the dynamic quantization of the input first */
        sim_prec p = {
            .weight = r->weight, .act = r->dtype, .kv = r->dtype, .group_size = r->group_size};
        sim_graph_gemm(&op, SIM_OP_GATE_UP_PROJ, (double)r->m, r->n, r->k, r->weight, &p, 2.0);
        ns = op_ns(hw, &op);
        work = op.flops;
        if (r->act_quant) {
            sim_op q = {0};
            sim_graph_act_quant(&q, (double)r->m, r->k, &p, 2.0);
            ns += op_ns(hw, &q);
        }
        break;
    }
    case SIM_VK_GROUPED_GEMM: {
        /* `batch` experts' GEMMs of m rows each in one grouped kernel, as an MoE layer's */
        sim_prec p = {.weight = r->dtype, .act = r->dtype, .kv = r->dtype};
        double rb = sim_dtype_is_16bit(r->dtype) ? 2.0 : sim_dtype_bytes(r->dtype);
        double rows = (double)r->batch * (double)r->m;
        sim_graph_gemm(&op, SIM_OP_EXPERTS_GATE_UP, rows, r->n, r->k, r->dtype, &p, rb);
        op.groups = (double)r->batch;
        op.weight_bytes *= (double)r->batch; /* each expert's own weights */
        ns = op_ns(hw, &op);
        work = op.flops;
        break;
    }
    case SIM_VK_ALLTOALL: {
        /* each GPU keeps 1/N of its routed rows and sends the rest, all peers at once. The rows
         * are DeepEP's first low-latency kernels, which sent every peer's share over RDMA even
         * within a node: priced as if each GPU were a node of its own */
        sim_hw rdma = *hw;
        rdma.devices_per_node = 1;
        ns = sim_coll_alltoall(&rdma, (double)r->bytes, (int)r->gpus, 1).t_ns;
        work = (double)r->bytes;
        break;
    }
    case SIM_VK_ATTENTION: {
        /* fused attention over B x H heads of S tokens: QK^T and PV, 2 FLOPs per multiply-add;
         * Q, K, V read and O written once */
        double s = (double)r->seq;
        double pairs = r->causal ? s * (s + 1.0) / 2.0 : s * s;
        op.id = SIM_OP_ATTENTION;
        op.flops = 4.0 * (double)r->batch * (double)r->heads * (double)r->head_dim * pairs;
        op.act_bytes = 4.0 * (double)r->batch * s * (double)r->heads * (double)r->head_dim * 2.0;
        ns = op_ns(hw, &op);
        work = op.flops;
        break;
    }
    case SIM_VK_DECODE_ATTENTION: {
        /* one token per sequence: QK^T and PV over the cache for every query head, each
         * sequence's K and V of n KV heads read once, Q read and O written in 16 bits; the
         * kernel's launch decides whether its CTAs fill the GPU (dattn.h) */
        const double b = (double)r->batch, s = (double)r->seq, hd = (double)r->head_dim;
        const double kvb = sim_dtype_bytes(r->dtype);
        op.id = SIM_OP_ATTENTION;
        op.flops = 4.0 * b * (double)r->heads * hd * s;
        op.kv_read_bytes = b * s * (double)r->n * 2.0 * hd * kvb;
        op.act_bytes = 2.0 * b * (double)r->heads * hd * 2.0;
        op.dec = (sim_dattn_shape){.seqs = b,
                                   .ctx = s,
                                   .q_heads = r->heads,
                                   .kv_heads = r->n,
                                   .head_dim = r->head_dim,
                                   .kv_elem_bytes = kvb};
        op.dattn = r->dattn;
        ns = op_ns(hw, &op);
        work = op.kv_read_bytes;
        break;
    }
    case SIM_VK_COPY:
        op.id = SIM_OP_ACT; /* a streaming vector kernel: read and write every byte */
        op.act_bytes = 2.0 * (double)r->bytes;
        ns = op_ns(hw, &op);
        work = op.act_bytes;
        break;
    case SIM_VK_ALLREDUCE:
    case SIM_VK_ALLREDUCE_NORM:
    case SIM_VK_FUSED_ALLREDUCE_NORM: {
        /* one all-reduce kernel (CUDA events around it include its launch) */
        op.id = SIM_OP_ATTN_ALLREDUCE;
        op.net_kind = SIM_COLL_ALLREDUCE;
        op.net_algo = r->algo;
        op.net_ranks = (int)r->gpus;
        op.net_msg_bytes = (double)r->bytes;
        op.net_bytes = sim_coll_bus_bytes(SIM_COLL_ALLREDUCE, op.net_msg_bytes, op.net_ranks);
        ns = op_ns(hw, &op);
        work = op.net_bytes;
        if (r->kind == SIM_VK_ALLREDUCE)
            break;
        /* then residual add + RMSNorm over bytes / 2 / hidden tokens of 16-bit values, its own
         * kernel or inside the all-reduce's */
        sim_op nm;
        sim_graph_norm(&nm, SIM_OP_MLP_NORM, (double)r->bytes / 2.0 / (double)r->n, r->n, 2.0, 2.0);
        if (r->kind == SIM_VK_FUSED_ALLREDUCE_NORM)
            sim_graph_fuse_norm(&nm, 2.0);
        ns += op_ns(hw, &nm);
        break;
    }
    default:
        return sim_fail(err, SIM_EINTERNAL, "row %lld is not an op", (long long)r->id);
    }
    if (!(ns > 0.0))
        return sim_fail(err, SIM_EINTERNAL, "row %lld priced at 0 ns", (long long)r->id);
    if (strcmp(r->metric, "tflops") == 0 || strcmp(r->metric, "tb_per_s") == 0)
        *pred = work / ns / 1e3; /* FLOP/ns or B/ns -> T/s */
    else if (strcmp(r->metric, "busbw_gb_per_s") == 0)
        *pred = work / ns;
    else if (strcmp(r->metric, "latency_ms") == 0)
        *pred = ns / 1e6;
    else
        return sim_fail(err, SIM_EINPUT, "row %lld: metric '%s' is not an op metric",
                        (long long)r->id, r->metric);
    return SIM_OK;
}

/* An end-to-end row's all-reduce: the one its algo column names, else the engine profile's. */
static sim_coll_algo row_allreduce(const sim_vrow *r, sim_coll_algo engine)
{
    return r->algo != SIM_COLL_AUTO ? r->algo : engine;
}

sim_status sim_validate_row_prec(const sim_vrow *r, const sim_model *model, const sim_hw *hw,
                                 sim_prec *out, sim_err *err)
{
    const sim_prec_given g = {
        .prec = {.weight = r->weight, .act = r->act, .kv = r->kv, .group_size = r->group_size},
        .weight = r->weight_set,
        .act = r->act_set,
        .kv = r->kv_set,
        .group_size = r->group_size_set};
    if (sim_graph_prec_defaults(model, hw, &g, out))
        return SIM_OK;
    return sim_fail(err, SIM_EINPUT,
                    "row %lld: field 'weight_dtype' is empty and %s has no torch_dtype, expected "
                    "the weights' format",
                    (long long)r->id, model->path);
}

sim_status sim_validate_e2e(const sim_vrow *r, const sim_model *model, const sim_hw *hw,
                            const sim_step_cfg *tmpl, double *pred, sim_err *err)
{
    sim_run_cfg c = {.step = *tmpl,
                     .batch = r->batch,
                     .input_len = r->input_len,
                     .output_len = r->output_len,
                     .mem_util = 0.9};
    c.step.model = model;
    c.step.hw = hw;
    c.step.tp = (int)r->tp;
    c.step.allreduce = row_allreduce(r, tmpl->allreduce);
    sim_status st = sim_validate_row_prec(r, model, hw, &c.step.prec, err);
    if (!st)
        st = sim_run_check(&c, err);
    if (st)
        return st;
    sim_run_result *res = calloc(1, sizeof *res);
    if (!res)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_run_simulate(&c, res);
    *pred = r->kind == SIM_VK_TTFT ? res->ttft_ns / 1e6 : res->e2e_ns / 1e9;
    free(res);
    return SIM_OK;
}

sim_status sim_validate_serve(const sim_vrow *r, const sim_model *model, const sim_hw *hw,
                              const sim_engine_cfg *tmpl, double *pred, sim_err *err)
{
    sim_engine_cfg c = *tmpl;
    c.step.model = model;
    c.step.hw = hw;
    c.step.tp = (int)r->tp;
    c.step.allreduce = row_allreduce(r, tmpl->step.allreduce);
    sim_status st = sim_validate_row_prec(r, model, hw, &c.step.prec, err);
    if (st)
        return st;
    /* Poisson arrivals (burstiness 1) at the row's rate and lengths in its range, from a fixed
     * seed: the same stream on every run */
    sim_synth_cfg s = {.num_prompts = r->batch,
                       .input_len = r->input_len,
                       .output_len = r->output_len,
                       .range_ratio = r->range_ratio,
                       .request_rate = r->request_rate,
                       .burstiness = 1.0,
                       .seed = SIM_VALIDATE_SERVE_SEED};
    sim_workload w;
    if ((st = sim_workload_synthetic(&s, &w, err)))
        return st;
    sim_engine_result res;
    if (!(st = sim_engine_check(&c, &w, err)) && !(st = sim_engine_run(&c, &w, &res, err))) {
        const double dur_s = (double)res.duration_ns * 1e-9;
        const int lat = serve_latency_index(r->metric);
        sim_serve_metrics sm;
        int64_t out_tokens = 0; /* batch x output_len at fixed lengths */
        for (size_t i = 0; i < w.n; i++)
            out_tokens += w.reqs[i].output_tokens;
        if (lat < 0)
            *pred = strcmp(r->metric, "duration_s") == 0 ? dur_s : (double)out_tokens / dur_s;
        else if (!(st = sim_metrics_compute(&res, &(sim_slo){{0}}, &sm))) {
            const sim_dist *d = &sm.dist[serve_latency[lat].metric];
            *pred = serve_latency[lat].median ? d->median : d->mean;
        }
        sim_engine_result_free(&res);
    }
    sim_workload_free(&w);
    return st;
}

void sim_validate_summary(const double *abs_err, size_t n, double *median, double *p90)
{
    *median = *p90 = 0.0;
    if (n == 0)
        return;
    double *v = malloc(n * sizeof *v);
    if (!v)
        return;
    memcpy(v, abs_err, n * sizeof *v); /* sim_metrics_percentile reorders its input */
    *median = sim_metrics_percentile(v, n, 50.0);
    *p90 = sim_metrics_percentile(v, n, 90.0);
    free(v);
}

/* ------------------------------------------------------------------------------------------ */
/* Fitting */

/* Fit groups: each format is fitted on its own rows only. The base group holds the 16-bit GEMMs,
 * attention, copies and collectives; a quantized compute format has its GEMM rows; mixed-input
 * GEMMs (weights stored narrower than the math) have theirs. */
enum { FG_BASE = 0, FG_MIXED = 1, FG_FORMAT = 2, FG_COUNT = FG_FORMAT + SIM_DT_COUNT };

static int row_group(const sim_vrow *r)
{
    if (r->kind != SIM_VK_GEMM || (sim_dtype_is_16bit(r->dtype) && r->weight == r->dtype))
        return FG_BASE;
    if (r->weight != r->dtype)
        return FG_MIXED;
    return FG_FORMAT + (int)sim_dtype_get(r->dtype)->peak_of;
}

static const char *group_name(int g)
{
    return g == FG_BASE    ? "16-bit and non-GEMM"
           : g == FG_MIXED ? "mixed-input GEMM"
                           : sim_dtype_name(g - FG_FORMAT);
}

typedef struct fit_param {
    char name[48]; /* dotted field of the device file */
    double *value;
    double *twin; /* moved together with value (fp16 with bf16, mxfp4 with fp4: one rate) */
    double lo, hi;
    double scale; /* file value = *value / scale */
    int group;
} fit_param;

static void set_param(fit_param *p, double v)
{
    *p->value = v;
    if (p->twin)
        *p->twin = v;
}

/* A decode-attention row of a CUDA-core kernel with one CTA per (sequence, head) or partition:
 * neither the context split to fill the GPU nor FlashAttention-2's tensor-core tile. */
static bool unsplit_cuda_core(const sim_vrow *r)
{
    return r->dattn != SIM_DATTN_SPLIT && r->dattn != SIM_DATTN_FA2;
}

/* Sum of squared relative errors of the device's op rows in `group` (-1: all), leaving out row
 * `skip` (SIZE_MAX: none); sets *used and the |errors| in %. */
static double loss(const sim_vrow *rows, size_t n, const char *name, const sim_hw *hw, int group,
                   size_t skip, size_t *used, double *abs_err)
{
    double s = 0.0;
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_vrow *r = &rows[i];
        /* the fused kernels (FlashInfer's) test --fuse-allreduce-norm; they fit nothing. Nor do
         * the decode rows of split and FlashAttention-2 kernels: they test the launch model
         * (dattn.h) with constants fitted on their own kinds' rows */
        if (!sim_vkind_is_op(r->kind) || r->kind == SIM_VK_FUSED_ALLREDUCE_NORM || r->skip[0] ||
            (r->kind == SIM_VK_DECODE_ATTENTION && !unsplit_cuda_core(r)) ||
            r->low_trust || strcmp(r->hw, name) != 0 || i == skip ||
            (group >= 0 && row_group(r) != group))
            continue;
        double p = 0.0;
        if (sim_validate_op(r, hw, &p, NULL))
            continue;
        double e = (p - r->value) / r->value;
        if (abs_err)
            abs_err[u] = fabs(100.0 * e);
        s += e * e;
        u++;
    }
    if (used)
        *used = u;
    return s;
}

/* Whether any of the device's op rows of its group moves when the parameter does. */
static bool constrained(const sim_vrow *rows, size_t n, const char *name, sim_hw *hw, fit_param *p)
{
    double keep = *p->value, a = loss(rows, n, name, hw, p->group, SIZE_MAX, NULL, NULL);
    set_param(p, p->lo + 0.37 * (p->hi - p->lo));
    double b = loss(rows, n, name, hw, p->group, SIZE_MAX, NULL, NULL);
    set_param(p, keep);
    return fabs(a - b) > 1e-12;
}

/* Coordinate descent: golden-section search on each active parameter in turn, over its group's
 * rows (leaving out row `skip`); only parameters of group `only` (-1: all) move. Sweeps repeat
 * until one lowers the loss by less than 1e-9 of it (correlated parameters, such as a GEMM
 * efficiency and its K term, need many), at most `sweeps` times. */
static void descend(const sim_vrow *rows, size_t n, const char *name, sim_hw *hw, fit_param *params,
                    const bool *active, size_t np, int only, size_t skip, int sweeps, int iters)
{
    const double gr = 0.6180339887498949;
    bool moved = true;
    for (int sweep = 0; sweep < sweeps && moved; sweep++) {
        double l0 = loss(rows, n, name, hw, only, skip, NULL, NULL);
        for (size_t i = 0; i < np; i++) {
            if (!active[i] || (only >= 0 && params[i].group != only))
                continue;
            double a = params[i].lo, b = params[i].hi;
            double c = b - gr * (b - a), d = a + gr * (b - a);
            for (int it = 0; it < iters; it++) {
                set_param(&params[i], c);
                double fc = loss(rows, n, name, hw, params[i].group, skip, NULL, NULL);
                set_param(&params[i], d);
                double fd = loss(rows, n, name, hw, params[i].group, skip, NULL, NULL);
                if (fc <= fd)
                    b = d;
                else
                    a = c;
                c = b - gr * (b - a);
                d = a + gr * (b - a);
            }
            set_param(&params[i], 0.5 * (a + b));
        }
        moved = loss(rows, n, name, hw, only, skip, NULL, NULL) < l0 * (1.0 - 1e-9);
    }
}

/* A value as the device file stores it (4 decimals in the file's unit). */
static double file_round(const fit_param *p, double v)
{
    return round(v / p->scale * 1e4) / 1e4 * p->scale;
}

#define MAX_FIT_PARAMS 40

static fit_param param(const char *prefix, const char *suffix, double *value, double *twin,
                       double lo, double hi, double scale, int group)
{
    fit_param p = {
        .value = value, .twin = twin, .lo = lo, .hi = hi, .scale = scale, .group = group};
    snprintf(p.name, sizeof p.name, "%s%s", prefix, suffix);
    return p;
}

/* A kernel's two constants are fitted only on at least this many rows that can run it. */
enum { MIN_KERNEL_ROWS = 3 };

/* The device's usable all-reduce rows (alone or with a norm) that measured algorithm a itself
 * (not a runtime's choice, which may or may not have taken it). */
static size_t algo_rows(const sim_vrow *rows, size_t n, const char *name, sim_coll_algo a)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_vrow *r = &rows[i];
        if (r->kind < SIM_VK_ALLREDUCE || r->kind > SIM_VK_ALLREDUCE_NORM || r->skip[0] ||
            r->low_trust || strcmp(r->hw, name) != 0)
            continue;
        c += r->algo == a;
    }
    return c;
}

/* The device's usable NCCL all-reduce rows of at most 1 MiB: where its low-latency protocols run. */
static size_t small_nccl_rows(const sim_vrow *rows, size_t n, const char *name)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_vrow *r = &rows[i];
        c += r->kind == SIM_VK_ALLREDUCE && !r->skip[0] && !r->low_trust &&
             strcmp(r->hw, name) == 0 && r->bytes <= 1048576 &&
             (r->algo == SIM_COLL_NCCL || r->algo == SIM_COLL_RING || r->algo == SIM_COLL_TREE);
    }
    return c;
}

/* The collectives' parameters: NCCL's low-latency protocols' share of the link, and the custom
 * and multicast all-reduce kernels the device has, each where enough rows measure it (with
 * fewer, a protocol's share trades against the fixed cost along a flat valley). */
static size_t fit_collective_params(sim_hw *hw, const sim_vrow *rows, size_t n, const char *name,
                                    fit_param *ps)
{
    size_t np = 0;
    /* at most the protocols' payload fractions: LL 1/2, LL128 120/128 */
    static const char *const protos[] = {"collectives.ll.bw_eff", "collectives.ll128.bw_eff"};
    static const double proto_max[] = {0.5, 0.9375};
    for (int p = 0; p < 2; p++)
        if (hw->coll.proto_bw_eff[p] > 0.0 && small_nccl_rows(rows, n, name) >= MIN_KERNEL_ROWS &&
            algo_rows(rows, n, name, SIM_COLL_NCCL) >= MIN_KERNEL_ROWS)
            ps[np++] = param(protos[p], "", &hw->coll.proto_bw_eff[p], NULL, 0.05, proto_max[p],
                             1.0, FG_BASE);
    static const sim_coll_algo kernels[] = {SIM_COLL_ONESHOT, SIM_COLL_TWOSHOT, SIM_COLL_NVLS};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        sim_coll_algo a = kernels[i];
        if (!sim_coll_has(hw, a) || algo_rows(rows, n, name, a) < MIN_KERNEL_ROWS)
            continue;
        char prefix[24];
        snprintf(prefix, sizeof prefix, "collectives.%s.", sim_coll_algo_name(a));
        ps[np++] = param(prefix, "latency_us", &hw->coll.algo_latency_ns[a], NULL, 500.0, 200e3,
                         1e3, FG_BASE);
        ps[np++] =
            param(prefix, "bw_eff", &hw->coll.algo_bw_eff[a], NULL, 0.2, 1.0, 1.0, FG_BASE);
    }
    return np;
}

/* The device's usable decode-attention rows of CUDA-core kernels that give a CTA a whole
 * (sequence, head) or partition: what decode_cta_gb_per_s is fitted on. */
static size_t unsplit_decode_rows(const sim_vrow *rows, size_t n, const char *name)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += rows[i].kind == SIM_VK_DECODE_ATTENTION && unsplit_cuda_core(&rows[i]) &&
             !rows[i].skip[0] && !rows[i].low_trust && strcmp(rows[i].hw, name) == 0;
    return c;
}

/* The parameters a fit may move on `hw`. Quantized formats' K term and streaming fraction start
 * from the values they inherit, so that each format is fitted apart from the 16-bit rows. */
static size_t fit_params(sim_hw *hw, const sim_vrow *rows, size_t n, const char *name,
                         fit_param *ps)
{
    size_t np = 0;
    if (hw->peak_flops[SIM_DT_BF16] > 0.0)
        ps[np++] = param("efficiency.gemm.bf16", "", &hw->eff_gemm[SIM_DT_BF16],
                         &hw->eff_gemm[SIM_DT_FP16], 0.05, 1.0, 1.0, FG_BASE);
    ps[np++] =
        param("efficiency.gemm_k_half", "", &hw->gemm_k_half, NULL, 0.0, 4096.0, 1.0, FG_BASE);
    ps[np++] = param("efficiency.attention", "", &hw->eff_attention, NULL, 0.05, 1.0, 1.0, FG_BASE);
    ps[np++] = param("efficiency.memory", "", &hw->eff_memory, NULL, 0.3, 1.0, 1.0, FG_BASE);
    if (unsplit_decode_rows(rows, n, name) >= MIN_KERNEL_ROWS)
        ps[np++] = param("decode_cta_gb_per_s", "", &hw->decode_cta_bytes_per_s, NULL, 1e9, 1e12,
                         1e9, FG_BASE);
    /* NCCL's constants need NCCL rows of several sizes: with two, its fixed cost, bandwidth and
     * protocols trade along a flat valley (the device keeps its stated values). NCCL's Simple
     * protocol reaches at least half the link on large messages everywhere. */
    if (algo_rows(rows, n, name, SIM_COLL_NCCL) >= MIN_KERNEL_ROWS) {
        ps[np++] = param("efficiency.network", "", &hw->eff_network, NULL, 0.5, 1.0, 1.0, FG_BASE);
        ps[np++] =
            param("collective_latency_us", "", &hw->collective_ns, NULL, 0.0, 50e3, 1e3, FG_BASE);
        ps[np++] = param("scaleup_latency_us", "", &hw->scaleup_latency_ns, NULL, 300.0, 10e3,
                         1e3, FG_BASE);
    }
    np += fit_collective_params(hw, rows, n, name, ps + np);
    for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
        const sim_dtype_info *info = sim_dtype_get((sim_dtype)dt);
        if (sim_dtype_is_16bit((sim_dtype)dt) || info->weights_only || (int)info->peak_of != dt ||
            !(hw->peak_flops[dt] > 0.0))
            continue;
        double *twin_e = dt == SIM_DT_FP4 ? &hw->eff_gemm[SIM_DT_MXFP4] : NULL;
        double *twin_k = dt == SIM_DT_FP4 ? &hw->quant.gemm_k_half[SIM_DT_MXFP4] : NULL;
        double *twin_m = dt == SIM_DT_FP4 ? &hw->quant.gemm_memory[SIM_DT_MXFP4] : NULL;
        hw->quant.gemm_k_half[dt] = sim_hw_gemm_k_half(hw, (sim_dtype)dt);
        hw->quant.gemm_memory[dt] = sim_hw_gemm_memory(hw, (sim_dtype)dt);
        ps[np++] = param("efficiency.gemm.", info->name, &hw->eff_gemm[dt], twin_e, 0.05, 1.0, 1.0,
                         FG_FORMAT + dt);
        ps[np++] = param("quant.gemm_k_half.", info->name, &hw->quant.gemm_k_half[dt], twin_k, 1.0,
                         4096.0, 1.0, FG_FORMAT + dt);
        ps[np++] = param("quant.gemm_memory.", info->name, &hw->quant.gemm_memory[dt], twin_m, 0.05,
                         1.0, 1.0, FG_FORMAT + dt);
    }
    ps[np++] = param("efficiency.gemm_weight_only", "", &hw->eff_gemm_weight_only, NULL, 0.05, 1.0,
                     1.0, FG_MIXED);
    for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
        if (sim_dtype_is_16bit((sim_dtype)dt))
            continue;
        hw->quant.mixed_input_memory[dt] = sim_hw_mixed_input_memory(hw, (sim_dtype)dt);
        ps[np++] = param("quant.mixed_input_memory.", sim_dtype_name((sim_dtype)dt),
                         &hw->quant.mixed_input_memory[dt], NULL, 0.05, 1.0, 1.0, FG_MIXED);
    }
    return np;
}

/* How many different GPU counts the device's all-reduce rows have. */
static int allreduce_sizes(const sim_vrow *rows, size_t n, const char *name)
{
    int64_t first = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_vrow *r = &rows[i];
        if (r->kind != SIM_VK_ALLREDUCE || r->skip[0] || strcmp(r->hw, name) != 0)
            continue;
        if (first && r->gpus != first)
            return 2;
        first = r->gpus;
    }
    return first ? 1 : 0;
}

/* Median |error| of the rows in abs_err[0..n). */
static double median_of(const double *abs_err, size_t n)
{
    double med, p90;
    sim_validate_summary(abs_err, n, &med, &p90);
    return med;
}

sim_status sim_validate_fit(const sim_vrow *rows, size_t n, const char *name, sim_hw *hw,
                            sim_fit_report *rep, sim_err *err)
{
    memset(rep, 0, sizeof *rep);
    double *abs_err = malloc((n ? n : 1) * sizeof *abs_err);
    if (!abs_err)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    loss(rows, n, name, hw, -1, SIZE_MAX, &rep->rows, abs_err);
    rep->before_median = median_of(abs_err, rep->rows);
    if (rep->rows == 0) {
        free(abs_err);
        return sim_fail(err, SIM_EINPUT, "--hw %s: no op-level rows for it in the data", name);
    }
    const sim_hw start_hw = *hw;
    fit_param params[MAX_FIT_PARAMS];
    size_t np = fit_params(hw, rows, n, name, params);
    bool active[MAX_FIT_PARAMS] = {0}; /* all set below; zeroed for -Wmaybe-uninitialized */
    double before[MAX_FIT_PARAMS];
    for (size_t i = 0; i < np; i++) {
        active[i] = constrained(rows, n, name, hw, &params[i]);
        before[i] = *params[i].value;
        /* with one group size, the hops are a constant: their latency and the fixed cost are one
         * number, and the fit keeps their split */
        if (params[i].value == &hw->scaleup_latency_ns)
            active[i] = active[i] && allreduce_sizes(rows, n, name) > 1;
    }
    if (hw->peak_flops[SIM_DT_FP16] > 0.0) /* fp16 and bf16 run at one rate: fit them as one */
        hw->eff_gemm[SIM_DT_FP16] = hw->eff_gemm[SIM_DT_BF16];
    descend(rows, n, name, hw, params, active, np, -1, SIZE_MAX, 2000, 60);
    /* the file keeps 4 decimals; a group whose loss falls by less than 0.1% keeps its starting
     * values (a flat valley is no evidence), so a second calibration on the first one's output
     * changes nothing */
    for (size_t i = 0; i < np; i++)
        if (active[i])
            set_param(&params[i], file_round(&params[i], *params[i].value));
    for (int g = 0; g < FG_COUNT; g++) {
        double l_fit = loss(rows, n, name, hw, g, SIZE_MAX, NULL, NULL);
        double fitted[MAX_FIT_PARAMS];
        for (size_t i = 0; i < np; i++)
            if (active[i] && params[i].group == g) {
                fitted[i] = *params[i].value;
                set_param(&params[i], before[i]);
            }
        double l_start = loss(rows, n, name, hw, g, SIZE_MAX, NULL, NULL);
        bool keep = l_fit < l_start * (1.0 - 1e-3);
        for (size_t i = 0; i < np; i++)
            if (active[i] && params[i].group == g) {
                if (keep)
                    set_param(&params[i], fitted[i]);
                active[i] = keep && fitted[i] != before[i];
            }
    }
    /* leave-one-out: refit each row's group without it and predict it */
    size_t nloo = 0;
    for (size_t r = 0; r < n; r++) {
        const sim_vrow *row = &rows[r];
        double p;
        if (!sim_vkind_is_op(row->kind) || row->skip[0] || strcmp(row->hw, name) != 0 ||
            sim_validate_op(row, hw, &p, NULL))
            continue;
        sim_hw keep = *hw;
        /* from the loaded values (a parameter only this row constrains stays there), five
         * sweeps of a coarser search: an estimate of the converged refit at a fraction of its
         * cost */
        for (size_t i = 0; i < np; i++)
            if (active[i] && params[i].group == row_group(row))
                set_param(&params[i], before[i]);
        descend(rows, n, name, hw, params, active, np, row_group(row), r, 5, 30);
        if (!sim_validate_op(row, hw, &p, NULL))
            abs_err[nloo++] = fabs(sim_validate_error_pct(p, row->value));
        *hw = keep;
    }
    rep->loo_median = median_of(abs_err, nloo);
    loss(rows, n, name, hw, -1, SIZE_MAX, &rep->rows, abs_err);
    rep->after_median = median_of(abs_err, rep->rows);
    size_t len = 0;
    for (size_t i = 0; i < np; i++) {
        if (!active[i]) { /* as it was loaded (a quantized format's 0 stays "inherited") */
            *params[i].value =
                *(const double *)((const char *)&start_hw + ((char *)params[i].value - (char *)hw));
            if (params[i].twin)
                *params[i].twin = *(const double *)((const char *)&start_hw +
                                                    ((char *)params[i].twin - (char *)hw));
            continue;
        }
        size_t used = 0;
        loss(rows, n, name, hw, params[i].group, SIZE_MAX, &used, NULL);
        if (rep->n_params < SIM_FIT_MAX_PARAMS) {
            sim_fit_param *fp = &rep->params[rep->n_params++];
            static_assert(sizeof fp->name == sizeof params[i].name, "field name sizes differ");
            memcpy(fp->name, params[i].name, sizeof fp->name);
            snprintf(fp->group, sizeof fp->group, "%s", group_name(params[i].group));
            fp->value = *params[i].value / params[i].scale;
            fp->before = before[i] / params[i].scale;
            fp->rows = used;
        }
        if (len + 80 < sizeof rep->fitted)
            len += (size_t)snprintf(
                rep->fitted + len, sizeof rep->fitted - len, "%s%s %.4g -> %.4g", len ? ", " : "",
                params[i].name, before[i] / params[i].scale, *params[i].value / params[i].scale);
    }
    free(abs_err);
    return SIM_OK;
}
