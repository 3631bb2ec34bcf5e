/* validate.c - op and end-to-end predictions for measured rows; fitting efficiencies. */
#define _POSIX_C_SOURCE 200809L
#include "validate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "graph.h"
#include "metrics.h"
#include "run.h"

static const char *const kind_names[SIM_VK_COUNT] = {
    [SIM_VK_GEMM] = "gemm", [SIM_VK_ATTENTION] = "attention",
    [SIM_VK_COPY] = "copy", [SIM_VK_ALLREDUCE] = "allreduce",
    [SIM_VK_E2E] = "e2e",   [SIM_VK_TTFT] = "ttft",           [SIM_VK_SERVE] = "serve"};

const char *sim_vkind_name(sim_vkind k) { return kind_names[k]; }

bool sim_vkind_is_op(sim_vkind k) { return k <= SIM_VK_ALLREDUCE; }

/* ------------------------------------------------------------------------------------------ */
/* CSV */

#define MAX_FIELDS 32

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
    "framework", "metric", "value",     "unit",       "skip",         "source"};
enum { N_COLUMNS = sizeof columns / sizeof columns[0] };

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
static const need needs_e2e[] = {{"model", 0},     {"batch", 1},      {"tp", 1},
                                 {"input_len", 1}, {"output_len", 1}, {"weight_dtype", 0},
                                 {NULL, 0}};
static const need *const kind_needs[SIM_VK_COUNT] = {
    [SIM_VK_GEMM] = needs_gemm, [SIM_VK_ATTENTION] = needs_attention,
    [SIM_VK_COPY] = needs_copy, [SIM_VK_ALLREDUCE] = needs_allreduce,
    [SIM_VK_E2E] = needs_e2e,   [SIM_VK_TTFT] = needs_e2e,
    [SIM_VK_SERVE] = needs_e2e}; /* serve: batch = requests */

/* The metric of each end-to-end kind. */
static const char *const e2e_metric[SIM_VK_COUNT] = {
    [SIM_VK_E2E] = "e2e_s", [SIM_VK_TTFT] = "ttft_ms", [SIM_VK_SERVE] = "output_tps"};

/* The metrics each kind can be measured in. */
static bool metric_fits(sim_vkind k, const char *m)
{
    if (sim_vkind_is_op(k))
        return strcmp(m, "tflops") == 0 || strcmp(m, "tb_per_s") == 0 ||
               strcmp(m, "busbw_gb_per_s") == 0 || strcmp(m, "latency_ms") == 0;
    return strcmp(m, e2e_metric[k]) == 0;
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
                        sim_vkind_is_op(r->kind) ? "tflops, tb_per_s, busbw_gb_per_s or latency_ms"
                                                 : e2e_metric[r->kind],
                        kn);
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
                        "allreduce, e2e, ttft or serve",
                        path, (long long)line, f[1]);
    r->kind = (sim_vkind)kind;
    if (!*f[0])
        return sim_fail(err, SIM_EINPUT, "%s:%lld: field 'id' is empty, expected a whole number",
                        path, (long long)line);
    int64_t *const ints[] = {&r->id,    &r->gpus,      &r->m,         &r->n,        &r->k,
                             &r->batch, &r->seq,       &r->heads,     &r->head_dim, &r->bytes,
                             &r->tp,    &r->input_len, &r->output_len};
    static const char *const int_cols[] = {"id",    "gpus",      "m",         "n",        "k",
                                           "batch", "seq",       "heads",     "head_dim", "bytes",
                                           "tp",    "input_len", "output_len"};
    sim_status st = SIM_OK;
    for (size_t i = 0; !st && i < sizeof ints / sizeof ints[0]; i++)
        st = col_int(f, col_index(int_cols[i]), path, line, ints[i], err);
    if (!st)
        st = col_dtype(f, col_index("dtype"), path, line, SIM_DT_BF16, &r->dtype, err);
    /* activations default to the weights' format, the KV cache to the activations' */
    if (!st)
        st = col_dtype(f, col_index("weight_dtype"), path, line, SIM_DT_BF16, &r->weight, err);
    if (!st)
        st = col_dtype(f, col_index("act_dtype"), path, line, r->weight, &r->act, err);
    if (!st)
        st = col_dtype(f, col_index("kv_dtype"), path, line, r->act, &r->kv, err);
    if (st)
        return st;
    const char *causal = f[col_index("causal")];
    if (*causal && strcmp(causal, "true") != 0 && strcmp(causal, "false") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'causal' is '%s', expected true, false "
                        "or empty",
                        path, (long long)line, causal);
    r->causal = strcmp(causal, "true") == 0;
    snprintf(r->hw, sizeof r->hw, "%s", f[2]);
    snprintf(r->model, sizeof r->model, "%s", f[14]);
    snprintf(r->framework, sizeof r->framework, "%s", f[21]);
    snprintf(r->metric, sizeof r->metric, "%s", f[22]);
    char *end;
    errno = 0;
    r->value = strtod(f[23], &end);
    if (errno || end == f[23] || *end || !(r->value > 0) || !isfinite(r->value))
        return sim_fail(err, SIM_EINPUT, "%s:%lld: field 'value' is '%s', expected a number > 0",
                        path, (long long)line, f[23]);
    snprintf(r->unit, sizeof r->unit, "%s", f[24]);
    snprintf(r->skip, sizeof r->skip, "%s", f[25]);
    snprintf(r->source, sizeof r->source, "%s", f[26]);
    return check_kind(f, r, path, line, err);
}

sim_status sim_validate_load(const char *path, sim_vrow **rows, size_t *n, sim_err *err)
{
    *rows = NULL;
    *n = 0;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sim_fail(err, SIM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t len = 0, cap = 0;
    int64_t lineno = 0;
    sim_status st = SIM_OK;
    while (!st && getline(&line, &len, fp) >= 0) {
        lineno++;
        char *f[MAX_FIELDS];
        int nf = split(line, f);
        if (lineno == 1) {
            bool ok = nf == N_COLUMNS;
            for (int i = 0; ok && i < N_COLUMNS; i++)
                ok = strcmp(f[i], columns[i]) == 0;
            if (!ok)
                st = sim_fail(err, SIM_EINPUT,
                              "%s:1: header is not the validation columns "
                              "(id,kind,hw,...,skip,source)",
                              path);
            continue;
        }
        if (nf == 1 && !*f[0])
            continue;
        if (nf != N_COLUMNS) {
            st = sim_fail(err, SIM_EINPUT, "%s:%lld: %d fields, expected %d", path,
                          (long long)lineno, nf, N_COLUMNS);
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 128;
            sim_vrow *r = realloc(*rows, cap * sizeof *r);
            if (!r) {
                st = sim_fail(err, SIM_EINTERNAL, "out of memory");
                break;
            }
            *rows = r;
        }
        st = parse_row(f, path, lineno, &(*rows)[*n], err);
        if (!st)
            (*n)++;
    }
    free(line);
    fclose(fp);
    if (st) {
        free(*rows);
        *rows = NULL;
        *n = 0;
    }
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Predictions */

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
    } shape[SIM_VK_ALLREDUCE + 1][4] = {
        [SIM_VK_GEMM] = {{"m", r->m, 1}, {"n", r->n, 1}, {"k", r->k, 1}},
        [SIM_VK_ATTENTION] = {{"batch", r->batch, 1},
                              {"seq", r->seq, 1},
                              {"heads", r->heads, 1},
                              {"head_dim", r->head_dim, 1}},
        [SIM_VK_COPY] = {{"bytes", r->bytes, 1}},
        [SIM_VK_ALLREDUCE] = {{"gpus", r->gpus, 2}, {"bytes", r->bytes, 1}}};
    for (int i = 0; i < 4 && shape[r->kind][i].name; i++)
        if (shape[r->kind][i].v < shape[r->kind][i].min)
            return sim_fail(
                err, SIM_EINPUT, "row %lld: field '%s' is %lld, expected >= %lld for %s",
                (long long)r->id, shape[r->kind][i].name, (long long)shape[r->kind][i].v,
                (long long)shape[r->kind][i].min, kind_names[r->kind]);
    /* the kinds that compute need the device to compute in the format */
    if ((r->kind == SIM_VK_GEMM || r->kind == SIM_VK_ATTENTION) &&
        !(hw->peak_flops[r->dtype] > 0.0))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'dense_tflops.%s' is missing, expected a peak to price %s in %s",
                        hw->path[0] ? hw->path : hw->name, sim_dtype_name(r->dtype),
                        kind_names[r->kind], sim_dtype_name(r->dtype));
    switch (r->kind) {
    case SIM_VK_GEMM: {
        sim_prec p = {.weight = r->dtype, .act = r->dtype, .kv = r->dtype};
        double rb = sim_dtype_is_16bit(r->dtype) ? 2.0 : sim_dtype_bytes(r->dtype);
        sim_graph_gemm(&op, SIM_OP_GATE_UP_PROJ, (double)r->m, r->n, r->k, r->dtype, &p, rb);
        ns = op_ns(hw, &op);
        work = op.flops;
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
    case SIM_VK_COPY:
        op.id = SIM_OP_ACT; /* a streaming vector kernel: read and write every byte */
        op.act_bytes = 2.0 * (double)r->bytes;
        ns = op_ns(hw, &op);
        work = op.act_bytes;
        break;
    case SIM_VK_ALLREDUCE: {
        int g = (int)r->gpus;
        double per_gpu = 2.0 * (g - 1) / g * (double)r->bytes; /* = bus bytes */
        ns = sim_cost_collective_ns(hw, per_gpu, g, 2 * (g - 1));
        work = per_gpu;
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
    c.step.prec = (sim_prec){.weight = r->weight, .act = r->act, .kv = r->kv};
    sim_status st = sim_run_check(&c, err);
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
    c.step.prec = (sim_prec){.weight = r->weight, .act = r->act, .kv = r->kv};
    sim_synth_cfg s = {.num_prompts = r->batch,
                       .input_len = r->input_len,
                       .output_len = r->output_len,
                       .request_rate = INFINITY,
                       .burstiness = 1.0};
    sim_workload w;
    sim_status st = sim_workload_synthetic(&s, &w, err);
    if (st)
        return st;
    sim_engine_result res;
    if (!(st = sim_engine_check(&c, &w, err)) && !(st = sim_engine_run(&c, &w, &res, err))) {
        *pred = (double)(r->batch * r->output_len) / ((double)res.duration_ns * 1e-9);
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

typedef struct fit_param {
    const char *name;
    double *value;
    double *twin; /* moved together with value (fp16 with bf16: the same tensor-core rate) */
    double lo, hi;
    double scale; /* for the report: printed value = *value / scale */
} fit_param;

static void set_param(fit_param *p, double v)
{
    *p->value = v;
    if (p->twin)
        *p->twin = v;
}

/* Sum of squared relative errors of the device's op rows; sets *used. */
static double loss(const sim_vrow *rows, size_t n, const char *name, const sim_hw *hw, size_t *used,
                   double *abs_err)
{
    double s = 0.0;
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_vrow *r = &rows[i];
        if (!sim_vkind_is_op(r->kind) || r->skip[0] || strcmp(r->hw, name) != 0)
            continue;
        double p;
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

/* Whether any of the device's op rows moves when the parameter does. */
static bool constrained(const sim_vrow *rows, size_t n, const char *name, sim_hw *hw, fit_param *p)
{
    double keep = *p->value, a = loss(rows, n, name, hw, NULL, NULL);
    set_param(p, p->lo + 0.37 * (p->hi - p->lo));
    double b = loss(rows, n, name, hw, NULL, NULL);
    set_param(p, keep);
    return fabs(a - b) > 1e-12;
}

sim_status sim_validate_fit(const sim_vrow *rows, size_t n, const char *name, sim_hw *hw,
                            sim_fit_report *rep, sim_err *err)
{
    memset(rep, 0, sizeof *rep);
    double *abs_err = malloc((n ? n : 1) * sizeof *abs_err);
    if (!abs_err)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    loss(rows, n, name, hw, &rep->rows, abs_err);
    double p90;
    sim_validate_summary(abs_err, rep->rows, &rep->before_median, &p90);
    if (rep->rows == 0) {
        free(abs_err);
        return sim_fail(err, SIM_EINPUT, "--hw %s: no op-level rows for it in the data", name);
    }
    fit_param params[SIM_DT_COUNT + 7];
    size_t np = 0;
    static const char *const gemm_names[SIM_DT_COUNT] = {[SIM_DT_BF16] = "efficiency.gemm.bf16",
                                                         [SIM_DT_FP8] = "efficiency.gemm.fp8",
                                                         [SIM_DT_INT8] = "efficiency.gemm.int8"};
    for (int dt = 0; dt < SIM_DT_COUNT; dt++)
        if (gemm_names[dt] && hw->peak_flops[dt] > 0.0)
            params[np++] = (fit_param){gemm_names[dt],
                                       &hw->eff_gemm[dt],
                                       dt == SIM_DT_BF16 ? &hw->eff_gemm[SIM_DT_FP16] : NULL,
                                       0.05,
                                       1.0,
                                       1.0};
    params[np++] = (fit_param){"efficiency.gemm_k_half", &hw->gemm_k_half, NULL, 0.0, 4096.0, 1.0};
    params[np++] = (fit_param){"efficiency.attention", &hw->eff_attention, NULL, 0.05, 1.0, 1.0};
    params[np++] = (fit_param){"efficiency.memory", &hw->eff_memory, NULL, 0.3, 1.0, 1.0};
    params[np++] = (fit_param){"efficiency.network", &hw->eff_network, NULL, 0.1, 1.0, 1.0};
    params[np++] = (fit_param){"collective_latency_us", &hw->collective_ns, NULL, 0.0, 50e3, 1e3};
    params[np++] = (fit_param){"scaleup_latency_us", &hw->scaleup_latency_ns, NULL, 0.0, 20e3, 1e3};
    bool active[SIM_DT_COUNT + 7];
    for (size_t i = 0; i < np; i++)
        active[i] = constrained(rows, n, name, hw, &params[i]);
    double before[SIM_DT_COUNT + 7];
    for (size_t i = 0; i < np; i++)
        before[i] = *params[i].value;
    if (hw->peak_flops[SIM_DT_FP16] > 0.0) /* fp16 and bf16 run at one rate: fit them as one */
        hw->eff_gemm[SIM_DT_FP16] = hw->eff_gemm[SIM_DT_BF16];
    /* coordinate descent: golden-section search on each parameter in turn */
    const double gr = 0.6180339887498949;
    for (int sweep = 0; sweep < 12; sweep++) {
        for (size_t i = 0; i < np; i++) {
            if (!active[i])
                continue;
            double a = params[i].lo, b = params[i].hi;
            double c = b - gr * (b - a), d = a + gr * (b - a);
            for (int it = 0; it < 60; it++) {
                set_param(&params[i], c);
                double fc = loss(rows, n, name, hw, NULL, NULL);
                set_param(&params[i], d);
                double fd = loss(rows, n, name, hw, NULL, NULL);
                if (fc <= fd)
                    b = d;
                else
                    a = c;
                c = b - gr * (b - a);
                d = a + gr * (b - a);
            }
            set_param(&params[i], 0.5 * (a + b));
        }
    }
    loss(rows, n, name, hw, &rep->rows, abs_err);
    sim_validate_summary(abs_err, rep->rows, &rep->after_median, &p90);
    free(abs_err);
    size_t len = 0;
    for (size_t i = 0; i < np && len + 80 < sizeof rep->fitted; i++)
        if (active[i])
            len += (size_t)snprintf(
                rep->fitted + len, sizeof rep->fitted - len, "%s%s %.4g -> %.4g", len ? ", " : "",
                params[i].name, before[i] / params[i].scale, *params[i].value / params[i].scale);
    return SIM_OK;
}
