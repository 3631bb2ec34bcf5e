/* cli_info.c - one-off questions: the op command (one operator on a device), hw (a device file's
 * fields and their origins) and trace-check (a Chrome trace's consistency). */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_load.h"
#include "cli_point.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "timeline_check.h"
#include "validate.h"

sim_status cli_info_op(const cli_opts *o, FILE *out, sim_err *err)
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
    if (o->dtype && (st = cli_opt_parse_dtype("--dtype", o->dtype, &r.dtype, err)))
        return st;
    /* a GEMM's weights: its compute format, or narrower ones a mixed-input kernel dequantizes */
    r.weight = r.dtype;
    r.group_size = cli_opt_given(o, CLI_OPT_ID_WEIGHT_GROUP_SIZE) ? o->group_size : 128;
    if (o->weight_dtype &&
        (st = cli_opt_parse_dtype("--weight-dtype", o->weight_dtype, &r.weight, err)))
        return st;
    if ((r.kind == SIM_VK_GEMM || r.kind == SIM_VK_GROUPED_GEMM) && r.weight != r.dtype &&
        !(sim_dtype_get(r.weight)->bits < sim_dtype_get(r.dtype)->bits))
        return sim_fail(err, SIM_EINPUT,
                        "--weight-dtype: value %s is not narrower than the compute format --dtype "
                        "%s; expected %s or a narrower format (a mixed-input GEMM)",
                        sim_dtype_name(r.weight), sim_dtype_name(r.dtype), sim_dtype_name(r.dtype));
    if ((st = cli_opt_parse_allreduce(o, &r.algo, err)))
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
    cli_load_resolve(CLI_LOAD_HW, o->hw, path, sizeof path);
    sim_hw hw;
    double pred, ms;
    st = sim_hw_load(path, &hw, err);
    if (!st && r.kind == SIM_VK_ALLREDUCE)
        st = sim_collective_check(&hw, r.algo, (int)r.gpus, "--allreduce", err);
    if (!st)
        st = sim_validate_op(&r, &hw, &pred, err);
    snprintf(r.metric, sizeof r.metric, "latency_ms");
    if (!st)
        st = sim_validate_op(&r, &hw, &ms, err);
    char how[48] = "";
    if (!st && r.kind == SIM_VK_ALLREDUCE) {
        sim_collective_cost cc =
            sim_collective_allreduce(&hw, (double)r.bytes, (int)r.gpus, r.algo);
        snprintf(how, sizeof how, " (%s%s%s)", sim_coll_algo_name(cc.algo),
                 cc.proto == SIM_COLL_PROTO_NONE ? "" : " ", sim_coll_proto_name(cc.proto));
    }
    if (!st)
        fprintf(out, "%s on %s: %.4f ms, %.2f %s%s\n", o->op, hw.name, ms, pred, ops[which].unit,
                how);
    return st;
}

sim_status cli_info_trace_check(const cli_opts *o, FILE *out, sim_err *err)
{
    if (!o->trace)
        return sim_fail(err, SIM_EINPUT, "trace-check: missing FILE (infersim trace-check FILE)");
    sim_timeline_stats s;
    sim_status st = sim_timeline_check(o->trace, &s, err);
    if (st)
        return st;
    fprintf(out,
            "%s: ok: %lld events (%lld slices on %lld tracks, %lld counters, %lld async, "
            "%lld flows, %lld metadata); ends at %.3f ms; %lld iterations, busy %.3f ms\n",
            o->trace, (long long)s.events, (long long)s.slices, (long long)s.tracks,
            (long long)s.counters, (long long)s.async_events, (long long)s.flows, (long long)s.metadata,
            (double)s.end_ns / 1e6, (long long)s.iterations, (double)s.iteration_ns / 1e6);
    return SIM_OK;
}

/* hw FILE: every field of a device with its value and where it came from. */
sim_status cli_info_hw(const cli_opts *o, FILE *out, sim_err *err)
{
    if (!o->hw)
        return sim_fail(err, SIM_EINPUT, "hw: missing FILE (infersim hw FILE|NAME)");
    bool json = strcmp(o->format, "json") == 0;
    if (!json && strcmp(o->format, "table") != 0)
        return sim_fail(err, SIM_EINPUT, "--format: value '%s', expected table or json", o->format);
    char path[PATH_MAX];
    cli_load_resolve(CLI_LOAD_HW, o->hw, path, sizeof path);
    sim_hw hw;
    sim_status st = cli_load_hw(NULL, path, &hw, err);
    if (st)
        return st;
    cJSON *root = json ? cJSON_CreateObject() : NULL, *fields = NULL;
    if (json) {
        cJSON_AddStringToObject(root, "name", hw.name);
        cJSON_AddStringToObject(root, "path", hw.path);
        cJSON_AddStringToObject(root, "arch", hw.arch);
        fields = cJSON_AddArrayToObject(root, "fields");
    } else {
        fprintf(out, "%s (%s), arch %s\n", hw.name, hw.path, hw.arch[0] ? hw.arch : "(none)");
        fprintf(out, "%-30s %12s  %-8s %s\n", "field", "value", "from", "default rule");
    }
    const char *arch_source = NULL;
    for (size_t i = 0; i < sim_hw_n_fields(); i++) {
        sim_hw_field_info f = sim_hw_field(&hw, i);
        if (f.origin != SIM_HW_FILE && f.arch_source)
            arch_source = f.arch_source;
        if (!json) {
            fprintf(out, "%-30s %12.6g  %-8s %s\n", f.json, f.value, sim_hw_origin_name(f.origin),
                    f.origin == SIM_HW_FILE ? "" : f.rule);
            continue;
        }
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "field", f.json);
        cJSON_AddNumberToObject(row, "value", f.value);
        cJSON_AddStringToObject(row, "from", sim_hw_origin_name(f.origin));
        cJSON_AddStringToObject(row, "rule", f.rule);
        cJSON_AddItemToArray(fields, row);
    }
    /* the provenance of each efficiency: the field-table ones always, the quantized and
     * collective ones where they are not a default */
    cJSON *provs = json ? cJSON_AddArrayToObject(root, "provenance") : NULL;
    if (!json)
        fprintf(out, "provenance of the efficiencies (%s):\n",
                sim_hw_default_only(&hw) ? "default-only: none is fitted or inherited"
                                         : "fitted, inherited, stated or default");
    for (size_t i = 0; i < SIM_HW_N_EFF; i++) {
        const char *name = sim_hw_eff_name(i);
        const sim_hw_prov *p = sim_hw_provenance(&hw, name);
        if (!json) {
            if (p->kind == SIM_HW_PROV_DEFAULT && strncmp(name, "quant.", 6) == 0)
                continue;
            if (p->kind == SIM_HW_PROV_DEFAULT && strncmp(name, "collectives.", 12) == 0)
                continue;
            char line[400];
            sim_hw_prov_describe(p, line, sizeof line);
            fprintf(out, "  %-30s %-9s %s\n", name, sim_hw_prov_kind_name(p->kind), line);
            continue;
        }
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "field", name);
        cJSON_AddStringToObject(row, "kind", sim_hw_prov_kind_name(p->kind));
        cJSON_AddNumberToObject(row, "rows", p->rows);
        cJSON_AddStringToObject(row, "device", p->device);
        cJSON_AddStringToObject(row, "note", p->note);
        cJSON_AddItemToArray(provs, row);
    }
    if (json) {
        cJSON_AddBoolToObject(root, "default_only", sim_hw_default_only(&hw));
        cJSON_AddStringToObject(root, "arch_source", arch_source ? arch_source : "");
        char *txt = cJSON_Print(root);
        cJSON_Delete(root);
        if (!txt)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        fprintf(out, "%s\n", txt);
        free(txt);
    } else if (arch_source) {
        fprintf(out, "architecture constants: %s\n", arch_source);
    }
    return ferror(out) ? sim_fail(err, SIM_EINTERNAL, "writing the result failed") : SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* workload: a public dataset's token lengths */

static const char *const side_names[2] = {"input", "output"};

static cJSON *side_json(const sim_length_dist *d)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *pub = cJSON_AddObjectToObject(j, "published");
    const char *pk[] = {"mean", "median", "p90", "sigma"};
    const double pv[] = {d->mean, d->median, d->p90, d->sigma_given};
    for (int i = 0; i < 4; i++)
        if (pv[i] > 0.0)
            cJSON_AddNumberToObject(pub, pk[i], pv[i]);
    cJSON_AddStringToObject(j, "fit", d->fit);
    cJSON_AddNumberToObject(j, "mu", d->mu);
    cJSON_AddNumberToObject(j, "sigma", d->sigma);
    cJSON_AddNumberToObject(j, "min", (double)d->min);
    cJSON_AddNumberToObject(j, "max", (double)d->max);
    cJSON_AddNumberToObject(j, "fitted_mean", sim_dataset_mean(d));
    cJSON_AddNumberToObject(j, "fitted_median", sim_dataset_quantile(d, 0.5));
    cJSON_AddNumberToObject(j, "fitted_p90", sim_dataset_quantile(d, 0.9));
    cJSON_AddNumberToObject(j, "fitted_p99", sim_dataset_quantile(d, 0.99));
    cJSON_AddStringToObject(j, "source", d->source);
    return j;
}

sim_status cli_info_workload(const cli_opts *o, FILE *out, sim_err *err)
{
    if (!o->dataset_name)
        return sim_fail(err, SIM_EINPUT,
                        "--dataset-name: missing, expected sharegpt, lmsys-chat, "
                        "arxiv-summarization, code or reasoning");
    if (!cli_point_public_dataset(o))
        return sim_fail(err, SIM_EINPUT,
                        "--dataset-name: value '%s' is vLLM's synthetic dataset, drawn from its "
                        "flags (see infersim serve --help); expected a public dataset's name",
                        o->dataset_name);
    sim_dataset ds;
    sim_workload_stats ts; /* a production trace's: its first --num-prompts requests measured */
    sim_status st = cli_point_dataset(o, NULL, &ds, err);
    if (!st)
        st = cli_point_dataset_stats(o, &ds, &ts, err);
    if (st)
        return st;
    const sim_length_dist *d[2] = {&ds.in, &ds.out};
    if (o->format && strcmp(o->format, "json") == 0) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "dataset", ds.name);
        cJSON_AddStringToObject(j, "description", ds.description);
        if (ds.trace[0]) {
            cJSON *t = cJSON_AddObjectToObject(j, "trace");
            cJSON_AddStringToObject(t, "file", ds.trace);
            cJSON_AddNumberToObject(t, "requests", (double)ts.n);
            cJSON_AddNumberToObject(t, "span_s", ts.span_s);
            cJSON_AddNumberToObject(t, "request_rate", ts.rate_per_s);
            cJSON_AddNumberToObject(t, "gap_cv", ts.gap_cv);
            cJSON_AddStringToObject(t, "source", ds.trace_source);
        }
        for (int k = 0; k < 2; k++)
            cJSON_AddItemToObject(j, side_names[k], side_json(d[k]));
        char *t = cJSON_Print(j);
        cJSON_Delete(j);
        if (!t)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        fprintf(out, "%s\n", t);
        free(t);
        return SIM_OK;
    }
    if (o->format && strcmp(o->format, "table") != 0)
        return sim_fail(err, SIM_EINPUT, "--format: value '%s', expected table or json",
                        o->format);
    fprintf(out, "Dataset %s: %s\n", ds.name, ds.description);
    if (ds.trace[0])
        fprintf(out,
                "A production trace (traces/%s): its first %lld requests are the workload, in "
                "order, their gaps scaled to --request-rate;\nrecorded: %.1f s, %.4g req/s, gaps' "
                "coefficient of variation %.3f (1: Poisson)\nsource: %s\nIts lengths measured "
                "(the fit below is what plan's one-request check and the bench line use)\n\n",
                ds.trace, (long long)ts.n, ts.span_s, ts.rate_per_s, ts.gap_cv, ds.trace_source);
    else
        fprintf(out, "Token lengths: a log-normal per side, fitted to the published statistics, "
                     "clipped to [min, max]\n\n");
    fprintf(out, "%-7s %-28s %7s %6s %8s %8s %8s %8s %13s\n", "side", "fit", "mu", "sigma",
            "median", "mean", "p90", "p99", "clip");
    for (int k = 0; k < 2; k++) {
        char clip[32];
        snprintf(clip, sizeof clip, "[%lld, %lld]", (long long)d[k]->min, (long long)d[k]->max);
        fprintf(out, "%-7s %-28s %7.4f %6.3f %8.1f %8.1f %8.1f %8.1f %13s\n", side_names[k],
                d[k]->fit, d[k]->mu, d[k]->sigma, sim_dataset_quantile(d[k], 0.5),
                sim_dataset_mean(d[k]), sim_dataset_quantile(d[k], 0.9),
                sim_dataset_quantile(d[k], 0.99), clip);
    }
    for (int k = 0; k < 2; k++) {
        fprintf(out, "\n%s, %s:", side_names[k], ds.trace[0] ? "measured" : "published");
        if (d[k]->mean > 0)
            fprintf(out, " mean %g", d[k]->mean);
        if (d[k]->median > 0)
            fprintf(out, " median %g", d[k]->median);
        if (d[k]->p90 > 0)
            fprintf(out, " p90 %g", d[k]->p90);
        if (d[k]->sigma_given > 0)
            fprintf(out, " (sigma %g stated: an estimate)", d[k]->sigma_given);
        fprintf(out, "\n  source: %s\n", d[k]->source);
    }
    fprintf(out, "\n(the fitted mean and percentiles are the unclipped log-normal's, then clipped; "
                 "use it with serve, capacity, plan: --dataset-name %s)\n",
            ds.name);
    return ferror(out) ? sim_fail(err, SIM_EINTERNAL, "writing the result failed") : SIM_OK;
}
