/* cli_validate.c - the op, validate, calibrate and compare commands. */
#define _POSIX_C_SOURCE 200809L
#include "cli_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "html.h"
#include "jsonf.h"
#include "outfile.h"
#include "rng.h"
#include "sweep.h"
#include "validate.h"

/* ------------------------------------------------------------------------------------------ */
/* Validation: op queries, the validation table, calibration, comparison with a measurement */

#define VALIDATION_DATA "tools/data/validation.csv"

/* The default measurements file, from the working directory or next to the binary. */
static void data_path(const cli_opts *o, char *buf, size_t len)
{
    if (o->data) {
        snprintf(buf, len, "%s", o->data);
        return;
    }
    cli_resolve("tools/data", "validation", buf, len);
    if (access(buf, F_OK) != 0)
        snprintf(buf, len, "%s", VALIDATION_DATA);
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
    if (!st)
        st = sim_validate_op(&r, &hw, &pred, err);
    snprintf(r.metric, sizeof r.metric, "latency_ms");
    if (!st)
        st = sim_validate_op(&r, &hw, &ms, err);
    if (!st)
        fprintf(out, "%s on %s: %.4f ms, %.2f %s\n", o->op, hw.name, ms, pred, ops[which].unit);
    return st;
}

/* Loads the device or model a validation row names (cached across rows). */
static const cli_cache_entry *row_file(cli_file_cache *c, char kind, const char *name, sim_err *err,
                                       sim_status *st)
{
    char path[PATH_MAX];
    cli_resolve(kind == 'h' ? "hw" : "models", name, path, sizeof path);
    if (cli_cache_add(c, kind, path, 0, 0)) {
        *st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        return NULL;
    }
    return cli_cache_get(c, kind, path, 0, 0, err, st);
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
    /* op-level, end-to-end; then quantized op-level, quantized and 16-bit end-to-end */
    double *errs[5];
    size_t cnt[5] = {0};
    for (int c = 0; c < 5; c++)
        if (!(errs[c] = malloc((n ? n : 1) * sizeof(double))))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    const sim_step_cfg tmpl = {.iteration_overhead_ns = cli_defaults.iter_us * 1e3,
                               .request_overhead_ns = cli_defaults.req_us * 1e3};
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
            if (m)
                rs = sim_validate_e2e(r, &m->model, &h->hw, &tmpl, &pred, &rerr);
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
        int cat = sim_vkind_is_op(r->kind) ? 0 : 1;
        errs[cat][cnt[cat]++] = fabs(e);
        int sub = vrow_quantized(r) ? 2 + cat : cat == 1 ? 4 : -1;
        if (sub >= 0)
            errs[sub][cnt[sub]++] = fabs(e);
        fprintf(out, "%4lld %-9s %-14s %-14s %-15.15s %12.4g %12.4g %+7.1f%%\n", (long long)r->id,
                sim_vkind_name(r->kind), r->hw, r->metric, detail, r->value, pred, e);
    }
    if (!st) {
        double med[3], p90[3];
        size_t all = cnt[0] + cnt[1];
        double *both = malloc((all ? all : 1) * sizeof *both);
        if (!both) {
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        } else {
            memcpy(both, errs[0], cnt[0] * sizeof *both);
            memcpy(both + cnt[0], errs[1], cnt[1] * sizeof *both);
            sim_validate_summary(both, all, &med[2], &p90[2]);
            sim_validate_summary(errs[0], cnt[0], &med[0], &p90[0]);
            sim_validate_summary(errs[1], cnt[1], &med[1], &p90[1]);
            free(both);
            fprintf(out, "validation: %zu points, median |error| %.1f%%, p90 %.1f%%\n", all, med[2],
                    p90[2]);
            fprintf(out, "  op-level: %zu points, median |error| %.1f%%, p90 %.1f%%\n", cnt[0],
                    med[0], p90[0]);
            fprintf(out, "  end-to-end: %zu points, median |error| %.1f%%, p90 %.1f%%\n", cnt[1],
                    med[1], p90[1]);
            double qm[3], qp[3];
            for (int c = 0; c < 3; c++)
                sim_validate_summary(errs[2 + c], cnt[2 + c], &qm[c], &qp[c]);
            fprintf(out,
                    "  quantized: op-level %zu points, median |error| %.1f%%; end-to-end %zu "
                    "points, median %.1f%% (16-bit end-to-end: %zu points, median %.1f%%)\n",
                    cnt[2], qm[0], cnt[3], qm[1], cnt[4], qm[2]);
            if (cli_given(o, "--max-op-median") && med[0] > o->max_op_median)
                st = sim_fail(err, SIM_EINTERNAL,
                              "validation: op-level median %.1f%% is above "
                              "%.1f%%",
                              med[0], o->max_op_median);
            else if (cli_given(o, "--max-e2e-median") && med[1] > o->max_e2e_median)
                st = sim_fail(err, SIM_EINTERNAL,
                              "validation: end-to-end median %.1f%% is above "
                              "%.1f%%",
                              med[1], o->max_e2e_median);
        }
    }
    for (int c = 0; c < 5; c++)
        free(errs[c]);
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
    sim_hw hw;
    sim_vrow *rows = NULL;
    size_t n = 0;
    sim_fit_report rep;
    sim_status st = sim_hw_load(hw_path, &hw, err);
    if (!st)
        st = sim_validate_load(data, &rows, &n, err);
    if (!st)
        st = sim_validate_fit(rows, n, name, &hw, &rep, err);
    if (!st) {
        fprintf(o->out_file ? out : stderr,
                "calibrate %s: %zu op-level rows of %s; median |error| %.1f%% -> %.1f%% "
                "(leave-one-out %.1f%%)\n  %s\n",
                name, rep.rows, data, rep.before_median, rep.after_median, rep.loo_median,
                rep.n_params ? rep.fitted : "nothing moves: the file is already fitted");
        st = write_calibrated(hw_path, o->out_file, data, &rep, out, err);
    }
    free(rows);
    return st;
}

/* compare --result FILE [run or serve flags]: a measurement against the prediction. */
sim_status cli_cmd_compare(int argc, char **argv, FILE *out, sim_err *err)
{
    const char *result = NULL;
    char **rest = malloc((size_t)argc * sizeof *rest);
    if (!rest)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    int nrest = 0;
    rest[nrest++] = argv[0];
    rest[nrest++] = argv[1];
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--result") == 0 && i + 1 < argc)
            result = argv[++i];
        else if (strncmp(argv[i], "--result=", 9) == 0)
            result = argv[i] + 9;
        else
            rest[nrest++] = argv[i];
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
        st = sim_jsonf_num_opt(root, result, serve ? serve_keys[k] : run_keys[k], 0.0, 1e15, -1.0,
                               &meas[k], err);
        found += !st && meas[k] > 0.0;
    }
    if (!st && found == 0)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: none of the fields ttft_ms, tpot_ms, e2e_ms, output_throughput (a run "
                      "result) or mean_ttft_ms, ... (a vLLM --save-result file) is above 0, "
                      "expected at least one measured metric",
                      result);
    cli_opts o = cli_defaults;
    if (!st)
        st = cli_parse_opts(nrest, rest, 2, serve ? "serve" : "run", serve ? CMD_SERVE : CMD_RUN,
                            &o, err);
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
    if (!st) {
        fprintf(out, "%-22s %14s %14s %9s\n", "metric", "measured", "predicted", "error");
        double abs_err[14];
        size_t m = 0;
        for (size_t k = 0; k < nk; k++) {
            const char *key = serve ? serve_keys[k] : run_keys[k];
            if (meas[k] < 0.0) { /* not in the file */
                fprintf(out, "%-22s %14s %14.4g\n", key, "-", pred[k]);
                continue;
            }
            if (meas[k] == 0.0) { /* measured 0: no relative error to take */
                fprintf(out, "%-22s %14.4g %14.4g %9s\n", key, 0.0, pred[k], "n/a");
                continue;
            }
            double e = sim_validate_error_pct(pred[k], meas[k]);
            abs_err[m++] = fabs(e);
            fprintf(out, "%-22s %14.4g %14.4g %+8.1f%%\n", key, meas[k], pred[k], e);
        }
        double med, p90;
        sim_validate_summary(abs_err, m, &med, &p90);
        fprintf(out, "compare: %zu metrics, median |error| %.1f%%, worst within p90 %.1f%%\n", m,
                med, p90);
    }
    if (s)
        cli_serve_state_free(s);
    free(s);
    free(r);
    free(L);
    cJSON_Delete(root);
    free(rest);
    return st;
}
