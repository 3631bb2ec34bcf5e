/* cli_validate.c - the op, validate, calibrate and compare commands. */
#define _POSIX_C_SOURCE 200809L
#include "cli_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "find.h"
#include "html.h"
#include "jsonf.h"
#include "outfile.h"
#include "rng.h"
#include "sweep.h"
#include "validate.h"

/* ------------------------------------------------------------------------------------------ */
/* Validation: op queries, the validation table, calibration, comparison with a measurement */

#define VALIDATION_DATA "tools/data/validation.csv"

/* The measurements file: --data as given, else tools/data/validation.csv in the data roots
 * (find.h), so the commands work from any directory and from an installed copy. */
static void data_path(const cli_opts *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s", o->data ? o->data : VALIDATION_DATA);
    if (!o->data)
        sim_find_file("tools/data", "validation.csv", buf, len);
}

sim_status cli_cmd_op(const cli_opts *o, FILE *out, sim_err *err)
{
    static const struct {
        const char *name;
        sim_vkind kind;
        const char *metric, *unit;
    } ops[] = {{"gemm", SIM_VK_GEMM, "tflops", "TFLOP/s"},
               {"attention", SIM_VK_ATTENTION, "tflops", "TFLOP/s"},
               {"copy", SIM_VK_COPY, "tb_per_s", "TB/s"},
               {"allreduce", SIM_VK_ALLREDUCE, "busbw_gb_per_s", "GB/s bus bandwidth"},
               {"grouped_gemm", SIM_VK_GROUPED_GEMM, "tflops", "TFLOP/s"},
               {"alltoall", SIM_VK_ALLTOALL, "busbw_gb_per_s", "GB/s of routed data per GPU"}};
    const char *names = "gemm, attention, copy, allreduce, grouped_gemm or alltoall";
    if (!o->hw || !o->op)
        return sim_fail(err, SIM_EINPUT, "op: expected --hw H and --op: %s", names);
    int which = -1;
    for (int i = 0; i < (int)(sizeof ops / sizeof ops[0]); i++)
        if (strcmp(o->op, ops[i].name) == 0)
            which = i;
    if (which < 0)
        return sim_fail(err, SIM_EINPUT, "--op: value '%s', expected %s", o->op, names);
    sim_vrow r = {.kind = ops[which].kind,
                  .m = o->m,
                  .n = o->n,
                  .k = o->k,
                  .batch = o->batch,
                  .seq = o->seq,
                  .heads = o->heads,
                  .head_dim = o->head_dim,
                  .causal = o->causal,
                  .bytes = o->bytes,
                  .gpus = o->gpus ? o->gpus : 8,
                  .dtype = SIM_DT_BF16};
    snprintf(r.metric, sizeof r.metric, "%s", ops[which].metric);
    sim_status st;
    if (o->dtype && (st = cli_parse_dtype_flag("--dtype", o->dtype, &r.dtype, err)))
        return st;
    /* a GEMM's weights: its compute format, or narrower ones a mixed-input kernel dequantizes */
    r.weight = r.dtype;
    r.group_size = cli_given(o, "--weight-group-size") ? o->group_size : 128;
    if (o->weight_dtype &&
        (st = cli_parse_dtype_flag("--weight-dtype", o->weight_dtype, &r.weight, err)))
        return st;
    if ((r.kind == SIM_VK_GEMM || r.kind == SIM_VK_GROUPED_GEMM) && r.weight != r.dtype &&
        !(sim_dtype_get(r.weight)->bits < sim_dtype_get(r.dtype)->bits))
        return sim_fail(err, SIM_EINPUT,
                        "--weight-dtype: value %s is not narrower than the compute format --dtype "
                        "%s; expected %s or a narrower format (a mixed-input GEMM)",
                        sim_dtype_name(r.weight), sim_dtype_name(r.dtype), sim_dtype_name(r.dtype));
    if ((st = cli_parse_allreduce(o, &r.algo, err)))
        return st;
    bool shape_ok = r.kind == SIM_VK_GEMM           ? r.m && r.n && r.k
                    : r.kind == SIM_VK_GROUPED_GEMM ? r.m && r.n && r.k && r.batch
                    : r.kind == SIM_VK_ATTENTION    ? r.seq && r.heads && r.head_dim
                                                    : r.bytes > 0;
    if (!shape_ok)
        return sim_fail(err, SIM_EINPUT,
                        "op %s: missing its shape (gemm: --m --n --k; grouped_gemm: --batch "
                        "(groups) --m (rows each) --n --k; attention: --batch --seq --heads "
                        "--head-dim; copy, allreduce, alltoall: --bytes [--gpus])",
                        o->op);
    char path[PATH_MAX];
    cli_resolve("hw", o->hw, path, sizeof path);
    sim_hw hw;
    double pred, ms;
    st = sim_hw_load(path, &hw, err);
    if (!st && r.kind == SIM_VK_ALLREDUCE)
        st = sim_coll_check(&hw, r.algo, (int)r.gpus, "--allreduce", err);
    if (!st)
        st = sim_validate_op(&r, &hw, &pred, err);
    snprintf(r.metric, sizeof r.metric, "latency_ms");
    if (!st)
        st = sim_validate_op(&r, &hw, &ms, err);
    char how[48] = "";
    if (!st && r.kind == SIM_VK_ALLREDUCE) {
        sim_coll_cost cc = sim_coll_allreduce(&hw, (double)r.bytes, (int)r.gpus, r.algo);
        snprintf(how, sizeof how, " (%s%s%s)", sim_coll_algo_name(cc.algo),
                 cc.proto == SIM_COLL_PROTO_NONE ? "" : " ", sim_coll_proto_name(cc.proto));
    }
    if (!st)
        fprintf(out, "%s on %s: %.4f ms, %.2f %s%s\n", o->op, hw.name, ms, pred, ops[which].unit,
                how);
    return st;
}

/* Loads the device or model a validation row names (cached across rows). */
static const cli_cache_entry *row_file(cli_file_cache *c, char kind, const char *name, sim_err *err,
                                       sim_status *st)
{
    char path[PATH_MAX];
    cli_resolve(kind == 'h'   ? "hw"
                : kind == 'e' ? "hw/engines"
                              : "models",
                name, path, sizeof path);
    if (cli_cache_add(c, kind, path, 0, 0)) {
        *st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        return NULL;
    }
    return cli_cache_get(c, kind, path, 0, 0, err, st);
}

/* The engine profile that scores an end-to-end row: the engine (and version) that measured it,
 * from the row's framework column; rows of an engine not listed use the default profile. */
static const struct {
    const char *framework_prefix, *profile;
} row_engines[] = {
    {"TensorRT-LLM 0.11", "trtllm-0.11"},
    {"TensorRT-LLM", "trtllm"},
    {"vLLM ~0.5/0.6", "vllm-v0"},
    {"vLLM 0.5", "vllm-v0"},
    {"vLLM 0.6", "vllm-v0"},
    {"SGLang", "sglang"},
    {"vLLM", "vllm"},
};

static const char *row_engine(const sim_vrow *r)
{
    for (size_t i = 0; i < sizeof row_engines / sizeof row_engines[0]; i++)
        if (strncmp(r->framework, row_engines[i].framework_prefix,
                    strlen(row_engines[i].framework_prefix)) == 0)
            return row_engines[i].profile;
    return cli_defaults.engine;
}

/* A row that measures quantized weights, activations or KV cache. */
static bool vrow_quantized(const sim_vrow *r)
{
    if (r->kind == SIM_VK_GEMM)
        return !sim_dtype_is_16bit(r->dtype) || r->weight != r->dtype;
    if (sim_vkind_is_op(r->kind))
        return false;
    return !sim_dtype_is_16bit(r->weight) || !sim_dtype_is_16bit(r->act) ||
           !sim_dtype_is_16bit(r->kv);
}

/* One summary line: "<label>: N points, median |error| X%, p90 Y%"; the median in *med. */
static void summary_line(FILE *out, const char *label, const double *e, size_t n, double *med)
{
    double p90;
    sim_validate_summary(e, n, med, &p90);
    fprintf(out, "%s: %zu points, median |error| %.1f%%, p90 %.1f%%\n", label, n, *med, p90);
}

/* |errors| of the rows that count, grouped: op-level, end-to-end, all; quantized op-level,
 * quantized and 16-bit end-to-end; then one group per op kind and per op size bucket. */
enum {
    G_OP,
    G_E2E,
    G_ALL,
    G_QOP,
    G_QE2E,
    G_E2E16,
    G_KIND,
    G_BUCKET = G_KIND + SIM_VK_E2E,
    N_GROUPS = G_BUCKET + SIM_VBUCKET_COUNT
};

static sim_status validate_summaries(const cli_opts *o, const char *path, double *const *errs,
                                     const size_t *cnt, size_t low, FILE *out, sim_err *err)
{
    double med[N_GROUPS];
    char label[64];
    summary_line(out, "validation", errs[G_ALL], cnt[G_ALL], &med[G_ALL]);
    summary_line(out, "  op-level", errs[G_OP], cnt[G_OP], &med[G_OP]);
    summary_line(out, "  end-to-end", errs[G_E2E], cnt[G_E2E], &med[G_E2E]);
    double p90;
    for (int g = G_QOP; g <= G_E2E16; g++)
        sim_validate_summary(errs[g], cnt[g], &med[g], &p90);
    fprintf(out,
            "  quantized: op-level %zu points, median |error| %.1f%%; end-to-end %zu points, "
            "median %.1f%% (16-bit end-to-end: %zu points, median %.1f%%)\n",
            cnt[G_QOP], med[G_QOP], cnt[G_QE2E], med[G_QE2E], cnt[G_E2E16], med[G_E2E16]);
    for (int k = 0; k < SIM_VK_E2E; k++) {
        snprintf(label, sizeof label, "  op %s", sim_vkind_name((sim_vkind)k));
        summary_line(out, label, errs[G_KIND + k], cnt[G_KIND + k], &med[G_KIND + k]);
    }
    for (int b = 0; b < SIM_VBUCKET_COUNT; b++) {
        snprintf(label, sizeof label, "  op size %s", sim_validate_bucket_name(b));
        summary_line(out, label, errs[G_BUCKET + b], cnt[G_BUCKET + b], &med[G_BUCKET + b]);
    }
    if (low)
        fprintf(out, "  (%zu low-trust rows shown above, left out of these figures)\n", low);
    /* a gate over no points would pass whatever the model does */
    if ((cli_given(o, "--max-op-median") || cli_given(o, "--max-bucket-median")) && !cnt[G_OP])
        return sim_fail(err, SIM_EINPUT,
                        "%s: %s has no op-level row that could be priced, expected at least one",
                        cli_given(o, "--max-op-median") ? "--max-op-median" : "--max-bucket-median",
                        path);
    if (cli_given(o, "--max-e2e-median") && !cnt[G_E2E])
        return sim_fail(err, SIM_EINPUT,
                        "--max-e2e-median: %s has no end-to-end row that could be priced, "
                        "expected at least one",
                        path);
    if (cli_given(o, "--max-op-median") && med[G_OP] > o->max_op_median)
        return sim_fail(err, SIM_EINTERNAL, "validation: op-level median %.1f%% is above %.1f%%",
                        med[G_OP], o->max_op_median);
    for (int b = 0; b < SIM_VBUCKET_COUNT; b++)
        if (cli_given(o, "--max-bucket-median") && med[G_BUCKET + b] > o->max_bucket_median)
            return sim_fail(err, SIM_EINTERNAL,
                            "validation: op-level median %.1f%% of size %s is above %.1f%%",
                            med[G_BUCKET + b], sim_validate_bucket_name(b), o->max_bucket_median);
    if (cli_given(o, "--max-e2e-median") && med[G_E2E] > o->max_e2e_median)
        return sim_fail(err, SIM_EINTERNAL, "validation: end-to-end median %.1f%% is above %.1f%%",
                        med[G_E2E], o->max_e2e_median);
    return SIM_OK;
}

sim_status cli_cmd_validate(const cli_opts *o, FILE *out, sim_err *err)
{
    char path[PATH_MAX];
    data_path(o, path, sizeof path);
    sim_vrow *rows;
    size_t n;
    sim_status st = sim_validate_load(path, &rows, &n, err);
    if (st)
        return st;
    cli_file_cache cache = {0};
    double *errs[N_GROUPS];
    size_t cnt[N_GROUPS] = {0}, low = 0;
    for (int g = 0; g < N_GROUPS; g++)
        if (!(errs[g] = malloc((n ? n : 1) * sizeof(double))))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    fprintf(out, "%4s %-9s %-14s %-14s %-15s %12s %12s %8s\n", "id", "kind", "hw", "metric",
            "detail", "measured", "predicted", "error");
    for (size_t i = 0; i < n && !st; i++) {
        const sim_vrow *r = &rows[i];
        char detail[160];
        if (r->kind == SIM_VK_GEMM)
            snprintf(detail, sizeof detail, "%lldx%lldx%lld", (long long)r->m, (long long)r->n,
                     (long long)r->k);
        else if (r->kind == SIM_VK_GROUPED_GEMM)
            snprintf(detail, sizeof detail, "%lldx(%lldx%lldx%lld)", (long long)r->batch,
                     (long long)r->m, (long long)r->n, (long long)r->k);
        else if (sim_vkind_is_op(r->kind))
            snprintf(detail, sizeof detail, "%s", r->framework);
        else if (r->kind == SIM_VK_SERVE) /* lengths and requests */
            snprintf(detail, sizeof detail, "%lld/%lld x%lld", (long long)r->input_len,
                     (long long)r->output_len, (long long)r->batch);
        else
            snprintf(detail, sizeof detail, "%s b%lld", r->model, (long long)r->batch);
        if (r->skip[0]) {
            fprintf(out, "%4lld skipped: %s\n", (long long)r->id, r->skip);
            continue;
        }
        sim_err rerr = {{0}};
        sim_status rs;
        double pred = 0.0;
        const cli_cache_entry *h = row_file(&cache, 'h', r->hw, &rerr, &rs);
        if (h && sim_vkind_is_op(r->kind)) {
            rs = sim_validate_op(r, &h->hw, &pred, &rerr);
        } else if (h) {
            const cli_cache_entry *m = row_file(&cache, 'm', r->model, &rerr, &rs);
            const cli_cache_entry *e = m ? row_file(&cache, 'e', row_engine(r), &rerr, &rs) : NULL;
            /* loading a file may move the cache's entries: look the earlier ones up again (they
             * are cached now, so this adds nothing and moves nothing) */
            if (e) {
                h = row_file(&cache, 'h', r->hw, &rerr, &rs);
                m = row_file(&cache, 'm', r->model, &rerr, &rs);
            }
            sim_engprof eng; /* the profile as the engine chose it on the row's device */
            if (e) {
                eng = e->eng;
                sim_engprof_for_device(&eng, &h->hw, r->tp);
                sim_engprof_apply_reserve(&eng, &h->hw, r->tp, 1);
            }
            if (e && r->kind == SIM_VK_SERVE) {
                sim_engine_cfg tmpl = {.step = cli_engine_step(&eng, &m->model)};
                cli_engine_cfg(&eng, &tmpl);
                tmpl.max_input_len = 0; /* the benchmark built its engine for its own prompts */
                rs = sim_validate_serve(r, &m->model, &h->hw, &tmpl, &pred, &rerr);
            } else if (e) {
                const sim_step_cfg tmpl = cli_engine_step(&eng, &m->model);
                rs = sim_validate_e2e(r, &m->model, &h->hw, &tmpl, &pred, &rerr);
            }
        }
        if (rs == SIM_EINTERNAL) {
            *err = rerr;
            st = rs;
            break;
        }
        if (rs) {
            fprintf(out, "%4lld skipped: %s\n", (long long)r->id, rerr.msg);
            continue;
        }
        double e = sim_validate_error_pct(pred, r->value);
        fprintf(out, "%4lld %-9s %-14s %-14s %-15.15s %12.4g %12.4g %+7.1f%%%s\n", (long long)r->id,
                sim_vkind_name(r->kind), r->hw, r->metric, detail, r->value, pred, e,
                r->low_trust ? " (low trust)" : "");
        if (r->low_trust) {
            low++;
            continue;
        }
        bool op = sim_vkind_is_op(r->kind);
        int groups[5] = {op ? G_OP : G_E2E, G_ALL, op ? G_KIND + (int)r->kind : -1,
                         op ? G_BUCKET + sim_validate_bucket(r) : -1,
                         vrow_quantized(r) ? (op ? G_QOP : G_QE2E) : op ? -1 : G_E2E16};
        for (int g = 0; g < 5; g++)
            if (groups[g] >= 0)
                errs[groups[g]][cnt[groups[g]]++] = fabs(e);
    }
    if (!st)
        st = validate_summaries(o, path, errs, cnt, low, out, err);
    for (int g = 0; g < N_GROUPS; g++)
        free(errs[g]);
    free(rows);
    cli_cache_free(&cache);
    return st;
}

/* The stem of a path: "hw/h100-sxm.json" -> "h100-sxm". */
static void file_stem(const char *path, char *buf, size_t len)
{
    const char *b = strrchr(path, '/');
    snprintf(buf, len, "%.*s", (int)len - 1, b ? b + 1 : path);
    char *dot = strrchr(buf, '.');
    if (dot)
        *dot = '\0';
}

/* Sets a number at a dotted path ("quant.gemm_memory.fp8"), creating the objects on the way. */
static bool set_dotted(cJSON *root, const char *field, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", field);
    cJSON *o = root;
    char *part = buf;
    for (char *dot = strchr(part, '.'); dot; part = dot + 1, dot = strchr(part, '.')) {
        *dot = '\0';
        cJSON *next = cJSON_GetObjectItemCaseSensitive(o, part);
        if (!cJSON_IsObject(next)) {
            cJSON_DeleteItemFromObjectCaseSensitive(o, part);
            if (!(next = cJSON_AddObjectToObject(o, part)))
                return false;
        }
        o = next;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(o, part);
    return cJSON_AddNumberToObject(o, part, v) != NULL;
}

/* Where a value came from before any calibration: a fitted field's note keeps the original
 * source after "starting value from: ", so refits do not stack their notes. */
static const char *original_source(const cJSON *old)
{
    static const char mark[] = "starting value from: ";
    if (!cJSON_IsString(old))
        return "none";
    const char *s = old->valuestring;
    const char *p = strncmp(s, "fitted by infersim calibrate", 28) == 0 ? strstr(s, mark) : NULL;
    return p ? p + sizeof mark - 1 : s;
}

static sim_status write_text(const char *dest, const char *txt, FILE *out, sim_err *err)
{
    if (!dest)
        return fprintf(out, "%s\n", txt) < 0 ? sim_fail(err, SIM_EINTERNAL, "writing failed")
                                             : SIM_OK;
    sim_outfile o;
    sim_status st = sim_outfile_open(&o, dest, "--out", err);
    if (!st) {
        fprintf(o.f, "%s\n", txt);
        st = sim_outfile_commit(&o, err);
    }
    return st;
}

static sim_status write_calibrated(const char *src, const char *dest, const char *data,
                                   const sim_fit_report *rep, FILE *out, sim_err *err)
{
    cJSON *root;
    sim_status st = sim_jsonf_load(src, &root, err);
    if (st)
        return st;
    cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
    bool ok = true;
    for (size_t i = 0; i < rep->n_params; i++) {
        const sim_fit_param *p = &rep->params[i];
        ok = ok && set_dotted(root, p->name, p->value);
        if (!cJSON_IsObject(sources))
            continue;
        /* every fitted number now comes from the fit: say so where its source was */
        char note[1200];
        snprintf(note, sizeof note,
                 "fitted by infersim calibrate on the %zu %s op-level rows of this device in "
                 "%.200s (least squares on relative error; leave-one-out median |error| %.1f%% "
                 "over all its rows); starting value from: %.700s",
                 p->rows, p->group, data, rep->loo_median,
                 original_source(cJSON_GetObjectItemCaseSensitive(sources, p->name)));
        cJSON_DeleteItemFromObjectCaseSensitive(sources, p->name);
        ok = ok && cJSON_AddStringToObject(sources, p->name, note);
    }
    if (rep->n_params > 0) { /* a refit that moves nothing leaves the file as it was */
        cJSON *cal = cJSON_CreateObject();
        cJSON_AddStringToObject(cal, "fitted_on", data);
        cJSON_AddStringToObject(cal, "method",
                                "infersim calibrate: least squares on relative error over the "
                                "op-level rows of this device, each format on its own rows");
        cJSON_AddNumberToObject(cal, "rows", (double)rep->rows);
        cJSON_AddNumberToObject(cal, "median_abs_error_before_pct",
                                round(rep->before_median * 100) / 100);
        cJSON_AddNumberToObject(cal, "median_abs_error_after_pct",
                                round(rep->after_median * 100) / 100);
        cJSON_AddNumberToObject(cal, "leave_one_out_median_abs_error_pct",
                                round(rep->loo_median * 100) / 100);
        cJSON_AddStringToObject(cal, "fitted", rep->fitted);
        cJSON_DeleteItemFromObjectCaseSensitive(root, "calibration");
        cJSON_AddItemToObject(root, "calibration", cal);
    }
    char *txt = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!txt)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    st = write_text(dest, txt, out, err);
    free(txt);
    return st;
}

sim_status cli_cmd_calibrate(const cli_opts *o, FILE *out, sim_err *err)
{
    if (!o->hw)
        return sim_fail(err, SIM_EINPUT, "calibrate: expected --hw H --data FILE");
    char hw_path[PATH_MAX], data[PATH_MAX], name[128];
    cli_resolve("hw", o->hw, hw_path, sizeof hw_path);
    data_path(o, data, sizeof data);
    file_stem(hw_path, name, sizeof name);
    /* the file records the data as named, not where it was found: the same from any folder */
    const char *data_name = o->data ? o->data : VALIDATION_DATA;
    sim_hw hw;
    sim_vrow *rows = NULL;
    size_t n = 0;
    sim_fit_report rep;
    sim_status st = sim_hw_load(hw_path, &hw, err);
    if (!st)
        st = sim_validate_load(data, &rows, &n, err);
    if (!st)
        st = sim_validate_fit(rows, n, name, &hw, &rep, err);
    /* the file first: a report on stdout means the file was written */
    if (!st)
        st = write_calibrated(hw_path, o->out_file, data_name, &rep, out, err);
    if (!st && o->out_file) /* with no --out, stdout holds the file alone (nothing on stderr) */
        fprintf(out,
                "calibrate %s: %zu op-level rows of %s; median |error| %.1f%% -> %.1f%% "
                "(leave-one-out %.1f%%)\n  %s\n",
                name, rep.rows, data_name, rep.before_median, rep.after_median, rep.loo_median,
                rep.n_params ? rep.fitted : "nothing moves: the file is already fitted");
    free(rows);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* compare: the run a vLLM --save-result file describes */

/* Marks a flag as given (its value set from the result file). */
static void set_given(cli_opts *o, const char *name)
{
    const cli_opt_def *d = cli_find_opt(name, CMD_SERVE);
    if (d)
        o->given[d - cli_opts_table] = true;
}

/* A number field of the result: *present false when missing or null; "inf" when allowed. */
static sim_status result_num(const cJSON *root, const char *file, const char *field, double min,
                             double max, bool allow_inf, double *v, bool *present, sim_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, field);
    *present = it && !cJSON_IsNull(it);
    if (!*present)
        return SIM_OK;
    if (allow_inf && ((cJSON_IsString(it) && strcmp(it->valuestring, "inf") == 0) ||
                      (cJSON_IsNumber(it) && isinf(it->valuedouble)))) {
        *v = INFINITY;
        return SIM_OK;
    }
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < min ||
        it->valuedouble > max)
        return sim_fail(err, SIM_EINPUT, "%s: field '%s' is not a number in [%g, %g]%s", file,
                        field, min, max, allow_inf ? " or \"inf\"" : "");
    *v = it->valuedouble;
    return SIM_OK;
}

static void contradiction(const cli_opts *o, const char *flag, double given, const char *file,
                          const char *field, double v)
{
    if (o->warn && given != v)
        fprintf(o->warn, "infersim: warning: %s %g contradicts %s's %s %g; using the flag\n", flag,
                given, file, field, v);
}

/* The file's value for a flag the command line did not give; a given flag wins, with a warning
 * when it disagrees. */
static void take_double(cli_opts *o, const char *flag, double *dst, double v, const char *file,
                        const char *field)
{
    if (cli_given(o, flag)) {
        contradiction(o, flag, *dst, file, field, v);
        return;
    }
    *dst = v;
    set_given(o, flag);
}

static void take_int(cli_opts *o, const char *flag, int64_t *dst, double v, const char *file,
                     const char *field)
{
    if (cli_given(o, flag)) {
        contradiction(o, flag, (double)*dst, file, field, v);
        return;
    }
    *dst = (int64_t)v;
    set_given(o, flag);
}

/* --save-detailed's per-request lengths: NULL when absent; whole numbers >= 1. */
static sim_status result_lens(const cJSON *root, const char *file, const char *field, int64_t **out,
                              size_t *n, sim_err *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, field);
    *out = NULL;
    if (!a || cJSON_IsNull(a))
        return SIM_OK;
    int len = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
    if (len < 1)
        return sim_fail(err, SIM_EINPUT, "%s: field '%s' is not a non-empty array of lengths", file,
                        field);
    if (*n && (size_t)len != *n)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field '%s' has %d lengths, expected %zu (as input_lens)", file, field,
                        len, *n);
    *n = (size_t)len;
    if (!(*out = malloc((size_t)len * sizeof **out)))
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    size_t k = 0;
    for (const cJSON *it = a->child; it; it = it->next, k++) {
        double v = cJSON_IsNumber(it) ? it->valuedouble : 0.0;
        if (!(v >= 1.0 && v <= (double)(1 << 26) && v == floor(v))) {
            free(*out);
            *out = NULL;
            return sim_fail(err, SIM_EINPUT,
                            "%s: field '%s' element %zu is not a whole number in [1, 67108864]",
                            file, field, k);
        }
        (*out)[k] = (int64_t)v;
    }
    return SIM_OK;
}

typedef struct result_run {
    char model[PATH_MAX];
    int64_t *in, *out; /* replayed lengths (owned) */
} result_run;

/* model_id: a shipped name or path, or a Hugging Face id a model file lists. */
static sim_status result_model(const cJSON *root, const char *file, cli_opts *o, result_run *rr,
                               sim_err *err)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "model_id");
    if (!cJSON_IsString(id) || !id->valuestring[0])
        return SIM_OK;
    char path[PATH_MAX];
    cli_resolve("models", id->valuestring, path, sizeof path);
    bool found = access(path, F_OK) == 0;
    if (cli_given(o, "--model")) { /* the flag wins; say so when it names another model */
        char mine[PATH_MAX];
        cli_resolve("models", o->model, mine, sizeof mine);
        if (o->warn && (!found || strcmp(mine, path) != 0))
            fprintf(o->warn,
                    "infersim: warning: --model %s contradicts %s's model_id %s; using the "
                    "flag\n",
                    o->model, file, id->valuestring);
        return SIM_OK;
    }
    if (!found)
        return sim_fail(err, SIM_EINPUT,
                        "%s: model_id '%s' is no model file and no models/NAME.json lists it in "
                        "infersim_hf_ids; pass --model with a config.json or a shipped name",
                        file, id->valuestring);
    snprintf(rr->model, sizeof rr->model, "%s", path);
    o->model = rr->model;
    set_given(o, "--model");
    return SIM_OK;
}

/* Fills the serve flags the command line left out from a vLLM --save-result file: model_id,
 * num_prompts, request_rate, burstiness, max_concurrency, and the lengths (replayed exactly from
 * --save-detailed's input_lens / output_lens, else the means of total_*_tokens / completed). */
static sim_status result_workload(const cJSON *root, const char *file, cli_opts *o, result_run *rr,
                                  sim_err *err)
{
    sim_status st = result_model(root, file, o, rr, err);
    if (st || o->trace)
        return st; /* a trace gives arrivals and lengths itself */
    static const struct {
        const char *field, *flag;
        double min, max;
        bool is_int;
    } fields[] = {{"num_prompts", "--num-prompts", 1, 1 << 28, true},
                  {"request_rate", "--request-rate", 1e-9, INFINITY, false},
                  {"burstiness", "--burstiness", 1e-3, 1e3, false},
                  {"max_concurrency", "--max-concurrency", 0, 1 << 28, true}}; /* 0: none */
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        double v;
        bool present;
        if ((st = result_num(root, file, fields[i].field, fields[i].min, fields[i].max,
                             isinf(fields[i].max), &v, &present, err)))
            return st;
        if (!present || v == 0.0)
            continue;
        if (fields[i].is_int && v != floor(v))
            return sim_fail(err, SIM_EINPUT, "%s: field '%s' is %g, expected a whole number", file,
                            fields[i].field, v);
        if (strcmp(fields[i].flag, "--num-prompts") == 0)
            take_int(o, fields[i].flag, &o->num_prompts, v, file, fields[i].field);
        else if (strcmp(fields[i].flag, "--max-concurrency") == 0)
            take_int(o, fields[i].flag, &o->max_concurrency, v, file, fields[i].field);
        else
            take_double(o, fields[i].flag,
                        strcmp(fields[i].flag, "--burstiness") == 0 ? &o->burstiness : &o->rate, v,
                        file, fields[i].field);
    }
    size_t n = 0;
    if ((st = result_lens(root, file, "input_lens", &rr->in, &n, err)) ||
        (rr->in && (st = result_lens(root, file, "output_lens", &rr->out, &n, err))))
        return st;
    bool flags = cli_given(o, "--random-input-len") || cli_given(o, "--random-output-len");
    if (rr->in && !rr->out)
        return sim_fail(err, SIM_EINPUT, "%s: field 'input_lens' without 'output_lens'", file);
    if (rr->in && !flags) {
        if ((size_t)o->num_prompts > n)
            return sim_fail(err, SIM_EINPUT,
                            "--num-prompts: value %lld, but %s has lengths for %zu requests",
                            (long long)o->num_prompts, file, n);
        o->replay_in = rr->in;
        o->replay_out = rr->out;
        return SIM_OK;
    }
    if (rr->in && o->warn)
        fprintf(o->warn,
                "infersim: warning: --random-input-len / --random-output-len contradict %s's "
                "input_lens / output_lens; using the flags\n",
                file);
    double done, tin, tout;
    bool p1, p2, p3;
    if ((st = result_num(root, file, "completed", 1, 1e12, false, &done, &p1, err)) ||
        (st = result_num(root, file, "total_input_tokens", 1, 1e18, false, &tin, &p2, err)) ||
        (st = result_num(root, file, "total_output_tokens", 1, 1e18, false, &tout, &p3, err)))
        return st;
    if (p1 && p2)
        take_int(o, "--random-input-len", &o->rand_in, fmax(1.0, round(tin / done)), file,
                 "total_input_tokens / completed");
    if (p1 && p3)
        take_int(o, "--random-output-len", &o->rand_out, fmax(1.0, round(tout / done)), file,
                 "total_output_tokens / completed");
    return SIM_OK;
}

/* The comparison, as a table or JSON. */
static sim_status print_compare(FILE *out, sim_format fmt, const char *file,
                                const char *const *keys, const double *meas, const double *pred,
                                size_t nk)
{
    double abs_err[16];
    size_t m = 0;
    cJSON *root = fmt == SIM_FMT_JSON ? cJSON_CreateObject() : NULL;
    cJSON *arr = root ? cJSON_AddArrayToObject(root, "metrics") : NULL;
    if (fmt == SIM_FMT_JSON && (!root || !arr)) {
        cJSON_Delete(root);
        return SIM_EINTERNAL;
    }
    if (!root)
        fprintf(out, "%-22s %14s %14s %9s\n", "metric", "measured", "predicted", "error");
    for (size_t k = 0; k < nk; k++) {
        bool has = meas[k] > 0.0;
        double e = has ? sim_validate_error_pct(pred[k], meas[k]) : 0.0;
        if (has)
            abs_err[m++] = fabs(e);
        if (root) {
            cJSON *it = cJSON_CreateObject();
            cJSON_AddItemToArray(arr, it);
            cJSON_AddStringToObject(it, "metric", keys[k]);
            if (meas[k] >= 0.0)
                cJSON_AddNumberToObject(it, "measured", meas[k]);
            else
                cJSON_AddNullToObject(it, "measured");
            cJSON_AddNumberToObject(it, "predicted", pred[k]);
            if (has)
                cJSON_AddNumberToObject(it, "error_pct", e);
            else
                cJSON_AddNullToObject(it, "error_pct");
        } else if (meas[k] < 0.0) { /* not in the file */
            fprintf(out, "%-22s %14s %14.4g\n", keys[k], "-", pred[k]);
        } else if (!has) { /* measured 0: no relative error to take */
            fprintf(out, "%-22s %14.4g %14.4g %9s\n", keys[k], 0.0, pred[k], "n/a");
        } else {
            fprintf(out, "%-22s %14.4g %14.4g %+8.1f%%\n", keys[k], meas[k], pred[k], e);
        }
    }
    double med, p90;
    sim_validate_summary(abs_err, m, &med, &p90);
    if (!root) {
        fprintf(out, "compare: %zu metrics, median |error| %.1f%%, worst within p90 %.1f%%\n", m,
                med, p90);
        return SIM_OK;
    }
    cJSON_AddStringToObject(root, "result", file);
    cJSON_AddNumberToObject(root, "metrics_compared", (double)m);
    cJSON_AddNumberToObject(root, "median_abs_error_pct", med);
    cJSON_AddNumberToObject(root, "p90_abs_error_pct", p90);
    char *txt = cJSON_Print(root);
    cJSON_Delete(root);
    if (!txt)
        return SIM_EINTERNAL;
    fprintf(out, "%s\n", txt);
    free(txt);
    return SIM_OK;
}

/* compare --result FILE [run or serve flags]: a measurement against the prediction. A vLLM
 * --save-result file also says what it measured: the flags it implies are taken from it. */
sim_status cli_cmd_compare(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    const char *result = NULL;
    char **rest = malloc((size_t)argc * sizeof *rest);
    if (!rest)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    int nrest = 0;
    rest[nrest++] = argv[0];
    rest[nrest++] = argv[1];
    bool twice = false;
    for (int i = 2; i < argc; i++) {
        const char *prev = result;
        if (strcmp(argv[i], "--result") == 0 && i + 1 < argc)
            result = argv[++i];
        else if (strncmp(argv[i], "--result=", 9) == 0)
            result = argv[i] + 9;
        else
            rest[nrest++] = argv[i];
        twice |= prev && result != prev;
    }
    if (twice) {
        free(rest);
        return sim_fail(err, SIM_EINPUT, "--result: given twice, expected once");
    }
    cJSON *root = NULL;
    sim_status st = result ? sim_jsonf_load(result, &root, err)
                           : sim_fail(err, SIM_EINPUT, "compare: missing --result FILE.json");
    /* a vLLM --save-result file has mean_ttft_ms; a run-style one has ttft_ms */
    bool serve = root && cJSON_GetObjectItemCaseSensitive(root, "mean_ttft_ms");
    static const char *const serve_keys[] = {
        "mean_ttft_ms",       "median_ttft_ms",   "p99_ttft_ms",    "mean_tpot_ms",
        "median_tpot_ms",     "p99_tpot_ms",      "mean_itl_ms",    "median_itl_ms",
        "p99_itl_ms",         "mean_e2el_ms",     "median_e2el_ms", "p99_e2el_ms",
        "request_throughput", "output_throughput"};
    static const char *const run_keys[] = {"ttft_ms", "tpot_ms", "e2e_ms", "output_throughput"};
    /* the measurements, read before simulating: a missing key is not measured (shown as "-"), a
     * present one must be a number in [0, 1e15]; a file with none above 0 is not a result */
    size_t nk = serve ? 14 : 4;
    double meas[14];
    size_t found = 0;
    for (size_t k = 0; !st && k < nk; k++) {
        const char *key = serve ? serve_keys[k] : run_keys[k];
        st = sim_jsonf_num_opt(root, result, key, 0.0, 1e15, -1.0, &meas[k], err);
        /* a tiny measurement would make the relative error overflow to inf */
        if (!st && meas[k] > 0.0 && meas[k] < SIM_VALIDATE_MIN_MEASURED)
            st = sim_fail(err, SIM_EINPUT,
                          "%s: field '%s' is %.17g, expected 0 (not measured) or a number in "
                          "[%g, %g]",
                          result, key, meas[k], SIM_VALIDATE_MIN_MEASURED, 1e15);
        found += !st && meas[k] > 0.0;
    }
    if (!st && found == 0)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: none of the fields ttft_ms, tpot_ms, e2e_ms, output_throughput (a run "
                      "result) or mean_ttft_ms, ... (a vLLM --save-result file) is above 0, "
                      "expected at least one measured metric",
                      result);
    cli_opts o = cli_defaults;
    o.warn = errf;
    result_run rr = {.in = NULL, .out = NULL};
    if (!st)
        st = cli_parse_opts(nrest, rest, 2, serve ? "serve" : "run", serve ? CMD_SERVE : CMD_RUN,
                            &o, err);
    if (!st)
        st = cli_check_outputs(&o, err);
    if (!st && serve)
        st = result_workload(root, result, &o, &rr, err);
    cli_loaded *L = calloc(1, sizeof *L);
    cli_serve_state *s = calloc(1, sizeof *s);
    sim_run_result *r = calloc(1, sizeof *r);
    if (!st && (!L || !s || !r))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    double pred[14] = {0};
    if (!st && serve) {
        st = cli_serve_point(&o, L, NULL, (uint64_t)o.seed, s, err);
        if (!st) {
            const sim_dist *d = s->m.dist;
            const double v[14] = {d[SIM_M_TTFT].mean,      d[SIM_M_TTFT].median,  d[SIM_M_TTFT].p99,
                                  d[SIM_M_TPOT].mean,      d[SIM_M_TPOT].median,  d[SIM_M_TPOT].p99,
                                  d[SIM_M_ITL].mean,       d[SIM_M_ITL].median,   d[SIM_M_ITL].p99,
                                  d[SIM_M_E2EL].mean,      d[SIM_M_E2EL].median,  d[SIM_M_E2EL].p99,
                                  s->m.request_throughput, s->m.output_throughput};
            memcpy(pred, v, sizeof v);
        }
    } else if (!st) {
        sim_run_cfg cfg;
        st = cli_run_point(&o, L, NULL, &cfg, r, err);
        if (!st) {
            pred[0] = r->ttft_ns / 1e6;
            pred[1] = r->tpot_ns / 1e6;
            pred[2] = r->e2e_ns / 1e6;
            pred[3] = r->output_throughput;
        }
    }
    if (!st && o.html) { /* the page first: a failed one leaves no half output */
        char *cmdline = cli_cmdline(argc, argv);
        st = cmdline ? sim_html_compare(o.html, cmdline, result, serve ? serve_keys : run_keys,
                                        meas, pred, nk, err)
                     : sim_fail(err, SIM_EINTERNAL, "out of memory");
        free(cmdline);
    }
    if (!st && print_compare(out, L->fmt, result, serve ? serve_keys : run_keys, meas, pred, nk))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory writing the comparison");
    if (s)
        cli_serve_state_free(s);
    free(s);
    free(r);
    free(L);
    free(rr.in);
    free(rr.out);
    cJSON_Delete(root);
    free(rest);
    return st;
}
