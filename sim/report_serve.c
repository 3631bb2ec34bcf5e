/* report_serve.c - what `serve` reports: vLLM's "Serving Benchmark Result" table, JSON and CSV
 * (the serve field table, report_fields.c), the replicas' and pools' load, vLLM's --save-result
 * file and one CSV row per request. */
#include "report.h"
#include "report_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "outfile.h"
#include "pp.h"

static void add_num(cJSON *o, const char *k, double v) { cJSON_AddNumberToObject(o, k, v); }

/* Mean busy fraction of instances [from, to) over the run. */
static double pool_busy(const sim_cluster_result *c, int from, int to, double dur_ns)
{
    double busy = 0.0;
    for (int i = from; i < to; i++)
        busy += sim_report_ratio(c->load[i].busy_ns, dur_ns);
    return sim_report_ratio(busy, (double)(to - from));
}

/* Python's '{:{fill}^50}': text centred in 50 columns, the odd fill character on the right. */
static void banner(FILE *f, const char *text, char fill)
{
    static const char eq[] = "==================================================";
    static const char dash[] = "--------------------------------------------------";
    const char *line = fill == '=' ? eq : dash;
    int width = 50, len = (int)strlen(text);
    int left = len < width ? (width - len) / 2 : 0, right = len < width ? width - len - left : 0;
    fprintf(f, "%.*s%s%.*s\n", left, line, text, right, line);
}

/* A row of the serve table: its section's heading first; then its value in the row's style, or
 * a missing value's text; a non-finite number is left out. */
static void table_row(FILE *f, const sim_field *v)
{
    if (v->kind != SIM_FIELD_TEXT && !v->missing && !isfinite(v->num))
        return;
    if (v->section)
        banner(f, v->section, '-');
    if (v->missing)
        fprintf(f, "%-40s %s\n", v->label, v->text);
    else if (v->kind == SIM_FIELD_TEXT)
        fprintf(f, v->style == SIM_STYLE_TIGHT ? "%-40s%s\n" : "%-40s %s\n", v->label, v->text);
    else if (v->kind == SIM_FIELD_INT)
        fprintf(f, "%-40s %-10lld\n", v->label, (long long)v->num);
    else if (v->banded)
        fprintf(f, "%-40s %-10.*f (80 %%: %.*f-%.*f)\n", v->label, v->decimals, v->num,
                v->decimals, v->lo, v->decimals, v->hi);
    else if (v->style == SIM_STYLE_BARE)
        fprintf(f, "%-40s %.*f\n", v->label, v->decimals, v->num);
    else
        fprintf(f, "%-40s %-10.*f\n", v->label, v->decimals, v->num);
}

/* With a band: the engine's capacity and the offered load over it, each with its band. */
static void capacity_table(FILE *f, const sim_serve_report *r)
{
    if (!r->band || !r->band->n || !(r->capacity_rps > 0.0))
        return;
    fprintf(f, "%-40s %-10.2f (80 %%: %.2f-%.2f)\n", "Capacity (req/s):", r->capacity_rps,
            r->capacity_lo, r->capacity_hi);
    if (r->offered_rps > 0.0)
        fprintf(f, "%-40s %-10.2f (80 %%: %.2f-%.2f)\n", "Offered load / capacity:",
                r->offered_rps / r->capacity_rps, r->offered_rps / r->capacity_hi,
                r->offered_rps / r->capacity_lo);
}

/* With a band: what it rests on (unc.h), one line. */
static void basis_line(FILE *f, const sim_unc_band *b)
{
    if (b && b->n && b->basis[0])
        fprintf(f, "Bands (80 %%) rest on: %s\n", b->basis);
}

static sim_status serve_table(FILE *f, const sim_serve_report *r)
{
    const sim_step_cfg *s = &r->cfg->step;
    char par[96];
    sim_step_par_text(s, par, sizeof par);
    fprintf(f, "infersim serve: %s on %d x %s%s; weights %s, activations %s, KV %s; %s\n",
            s->model->name, sim_step_gpus(s), s->hw->name, par, sim_dtype_name(s->prec.weight),
            sim_dtype_name(s->prec.act), sim_dtype_name(s->prec.kv), r->w->source);
    sim_report_pp_line(f, s);
    const sim_cluster_result *c = r->cluster;
    if (c && c->prefill > 0) {
        const double dur = (double)r->res->duration_ns;
        const bool mixed = strcmp(c->prefill_hw, s->hw->name) != 0;
        fprintf(f,
                "disaggregated: %d prefill%s%s%s + %d decode instances; KV over the %s link, mean "
                "%.3f ms per request; utilisation prefill %.2f, decode %.2f\n",
                c->prefill, mixed ? " (on " : "", mixed ? c->prefill_hw : "", mixed ? ")" : "",
                c->decode, c->kv_scaleout ? "scale-out" : "scale-up",
                sim_report_ratio(c->kv_transfer_ns, (double)r->res->n) / 1e6,
                pool_busy(c, 0, c->prefill, dur), pool_busy(c, c->prefill, c->replicas, dur));
    } else if (c && c->replicas > 0) {
        fprintf(f, "%d replicas, router %s; requests per replica:", c->replicas,
                sim_router_name(c->router));
        for (int i = 0; i < c->replicas; i++)
            fprintf(f, " %lld", (long long)c->load[i].requests);
        fprintf(f, "\n");
        if (c->autoscaled)
            fprintf(f,
                    "autoscaled %d..%d on %s: at most %d held, %.2f on average; %lld added, "
                    "%lld removed; %.3f GPU-hours\n",
                    c->scale_min, c->replicas, sim_scale_metric_name(c->scale_metric), c->peak_held,
                    sim_report_ratio(c->held_ns, (double)r->res->duration_ns),
                    (long long)c->scale_ups, (long long)c->scale_downs,
                    sim_report_serve_gpu_hours(r));
    }
    banner(f, " Serving Benchmark Result ", '=');
    sim_field fields[SIM_FIELDS_MAX];
    size_t n = sim_report_serve_fields(r, SIM_FIELDS_TABLE, fields);
    for (size_t i = 0; i < n; i++)
        table_row(f, &fields[i]);
    capacity_table(f, r);
    basis_line(f, r->band);
    banner(f, "", '=');
    return ferror(f) ? SIM_EINTERNAL : SIM_OK;
}

/* Disaggregation: the pools, their utilisation and the KV transfers. */
static void disagg_json(cJSON *o, const sim_serve_report *r)
{
    const sim_cluster_result *c = r->cluster;
    const double dur = (double)r->res->duration_ns, n = (double)r->res->n;
    char pd[32];
    snprintf(pd, sizeof pd, "%d:%d", c->prefill, c->decode);
    cJSON_AddStringToObject(o, "disagg", pd);
    add_num(o, "prefill_instances", c->prefill);
    cJSON_AddStringToObject(o, "prefill_hw", c->prefill_hw);
    add_num(o, "decode_instances", c->decode);
    cJSON_AddStringToObject(o, "kv_link", c->kv_scaleout ? "scaleout" : "scaleup");
    add_num(o, "kv_transfer_ms_mean", sim_report_ratio(c->kv_transfer_ns, n) / 1e6);
    add_num(o, "kv_transfer_bytes_per_gpu_mean", sim_report_ratio(c->kv_transfer_bytes, n));
    add_num(o, "prefill_utilization", pool_busy(c, 0, c->prefill, dur));
    add_num(o, "decode_utilization", pool_busy(c, c->prefill, c->replicas, dur));
}

/* An autoscaled pool: its bounds and metric, what it held and cost, each evaluation. */
static void autoscale_json(cJSON *o, const sim_serve_report *r)
{
    const sim_cluster_result *c = r->cluster;
    const double dur = (double)r->res->duration_ns;
    char mm[32];
    snprintf(mm, sizeof mm, "%d:%d", c->scale_min, c->replicas);
    cJSON_AddStringToObject(o, "autoscale", mm);
    cJSON_AddStringToObject(o, "autoscale_metric", sim_scale_metric_name(c->scale_metric));
    add_num(o, "autoscale_start_s", (double)c->scale_start_ns / 1e9);
    add_num(o, "replicas_peak", c->peak_held);
    add_num(o, "replicas_mean", sim_report_ratio(c->held_ns, dur));
    add_num(o, "scale_ups", (double)c->scale_ups);
    add_num(o, "scale_downs", (double)c->scale_downs);
    add_num(o, "gpu_hours", sim_report_serve_gpu_hours(r));
    if (r->usd_per_gpu_hour > 0.0)
        add_num(o, "usd", sim_report_serve_gpu_hours(r) * r->usd_per_gpu_hour);
    cJSON *arr = cJSON_AddArrayToObject(o, "autoscale_timeline");
    for (size_t k = 0; arr && k < c->n_timeline; k++) {
        const sim_scale_point *p = &c->timeline[k];
        cJSON *x = cJSON_CreateObject();
        add_num(x, "t_s", (double)p->t_ns / 1e9);
        add_num(x, "ready", p->ready);
        add_num(x, "held", p->held);
        add_num(x, "desired", p->desired);
        add_num(x, "metric", p->metric);
        cJSON_AddItemToArray(arr, x);
    }
}

/* Replicas (the router) or disaggregated pools, and each instance's share of the work. */
static void cluster_json(cJSON *o, const sim_serve_report *r)
{
    const sim_cluster_result *c = r->cluster;
    if (!c || c->replicas < 1)
        return;
    if (c->prefill > 0) {
        disagg_json(o, r);
    } else {
        add_num(o, "replicas", c->replicas);
        cJSON_AddStringToObject(o, "router", sim_router_name(c->router));
    }
    if (c->autoscaled)
        autoscale_json(o, r);
    if (c->router == SIM_ROUTER_PREFIX_AWARE)
        add_num(o, "router_prefix_match_rate",
                sim_report_ratio((double)c->prefix_blocks, (double)c->blocks));
    cJSON *arr = cJSON_AddArrayToObject(o, "replica_load");
    const double dur = (double)r->res->duration_ns;
    for (int i = 0; arr && i < c->replicas; i++) {
        const sim_replica_load *l = &c->load[i];
        cJSON *x = cJSON_CreateObject();
        if (c->prefill > 0)
            cJSON_AddStringToObject(x, "role", i < c->prefill ? "prefill" : "decode");
        if (c->mixed)
            cJSON_AddStringToObject(x, "hw", l->hw);
        add_num(x, "requests", (double)l->requests);
        add_num(x, "input_tokens", (double)l->input_tokens);
        add_num(x, "output_tokens", (double)l->output_tokens);
        add_num(x, "busy_fraction", sim_report_ratio(l->busy_ns, dur));
        add_num(x, "mean_batch_size",
                sim_report_ratio((double)l->scheduled_seqs, (double)l->iterations));
        add_num(x, "kv_cache_peak_usage",
                sim_report_ratio((double)l->kv_peak_blocks, (double)l->kv_blocks));
        add_num(x, "preemptions", (double)l->preemptions);
        if (c->router == SIM_ROUTER_PREFIX_AWARE)
            add_num(x, "prefix_blocks", (double)l->prefix_blocks);
        cJSON_AddItemToArray(arr, x);
    }
}

static sim_status serve_json(FILE *f, const sim_serve_report *r)
{
    cJSON *o = cJSON_CreateObject();
    sim_report_config_json(o, &r->cfg->step);
    cJSON_AddStringToObject(o, "workload", r->w->source);
    sim_field fields[SIM_FIELDS_MAX];
    sim_report_fields_json(o, fields, sim_report_serve_fields(r, SIM_FIELDS_JSON, fields));
    cluster_json(o, r);
    sim_report_fields_json(o, fields, sim_report_serve_fields(r, SIM_FIELDS_JSON_TAIL, fields));
    if (r->band && r->band->n && r->capacity_rps > 0.0) {
        add_num(o, "capacity_requests_per_s", r->capacity_rps);
        add_num(o, "capacity_requests_per_s_lo", r->capacity_lo);
        add_num(o, "capacity_requests_per_s_hi", r->capacity_hi);
        if (r->offered_rps > 0.0) {
            add_num(o, "offered_load_over_capacity", r->offered_rps / r->capacity_rps);
            add_num(o, "offered_load_over_capacity_lo", r->offered_rps / r->capacity_hi);
            add_num(o, "offered_load_over_capacity_hi", r->offered_rps / r->capacity_lo);
        } else {
            cJSON_AddNullToObject(o, "offered_load_over_capacity");
        }
    }
    return sim_report_print_json(f, o);
}

static sim_status serve_csv(FILE *f, const sim_serve_report *r)
{
    const sim_step_cfg *s = &r->cfg->step;
    sim_field fields[SIM_FIELDS_MAX];
    size_t n = sim_report_serve_fields(r, SIM_FIELDS_CSV, fields);
    fprintf(f, "model,hw,tp,weight_dtype,act_dtype,kv_cache_dtype");
    sim_report_fields_csv_header(f, fields, n);
    bool ok = sim_report_csv_text(f, s->model->name) && sim_report_csv_text(f, s->hw->name);
    fprintf(f, "%d,%s,%s,%s", s->tp, sim_dtype_name(s->prec.weight), sim_dtype_name(s->prec.act),
            sim_dtype_name(s->prec.kv));
    sim_report_fields_csv(f, fields, n);
    return !ok || ferror(f) ? SIM_EINTERNAL : SIM_OK;
}

sim_status sim_report_serve(FILE *f, sim_format fmt, const sim_serve_report *r)
{
    static sim_status (*const writers[SIM_FMT_COUNT])(FILE *, const sim_serve_report *) = {
        [SIM_FMT_TABLE] = serve_table, [SIM_FMT_JSON] = serve_json, [SIM_FMT_CSV] = serve_csv};
    return writers[fmt](f, r);
}

sim_status sim_report_save_requests(const char *path, const sim_serve_report *r, sim_err *err)
{
    sim_outfile o;
    sim_status st = sim_outfile_open(&o, path, "--save-requests", err);
    if (st)
        return st;
    FILE *f = o.f;
    const sim_session_link *lk = r->w->links; /* sessions: their columns after the others */
    fprintf(f, "request,trace_line,arrival_s,send_s,input_tokens,output_tokens,first_scheduled_s,"
               "ttft_ms,tpot_ms,e2el_ms,finish_s,preemptions%s\n",
            lk ? ",session,turn,cached_tokens" : "");
    for (size_t i = 0; i < r->res->n; i++) {
        const sim_req_result rq = sim_engine_req(r->res, i), *q = &rq;
        double ttft = (double)(q->first_token_ns - q->send_ns) / 1e6;
        double e2el = (double)(q->finish_ns - q->send_ns) / 1e6;
        double tpot = q->output > 1 ? (e2el - ttft) / (double)(q->output - 1) : 0.0;
        fprintf(f, "%zu,%lld,%.9f,%.9f,%lld,%lld,%.9f,%.6f,%.6f,%.6f,%.9f,%lld", i,
                (long long)r->w->reqs[i].line, (double)r->w->reqs[i].arrival_ns / 1e9,
                (double)q->send_ns / 1e9, (long long)q->input, (long long)q->output,
                (double)q->first_sched_ns / 1e9, ttft, tpot, e2el, (double)q->finish_ns / 1e9,
                (long long)q->preemptions);
        if (lk)
            fprintf(f, ",%lld,%lld,%lld", (long long)lk[i].session, (long long)lk[i].turn,
                    (long long)q->cached);
        fputc('\n', f);
    }
    return sim_outfile_commit(&o, err);
}

sim_status sim_report_vllm_result(const char *path, const sim_serve_report *r,
                                  const sim_vllm_meta *meta, sim_err *err)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    cJSON_AddStringToObject(o, "date", meta->date);
    cJSON_AddStringToObject(o, "backend", meta->backend);
    cJSON_AddStringToObject(o, "model_id", meta->model_id);
    cJSON_AddStringToObject(o, "tokenizer_id", meta->tokenizer_id);
    add_num(o, "num_prompts", (double)meta->num_prompts);
    if (isnan(meta->request_rate))
        cJSON_AddNullToObject(o, "request_rate");
    else if (isinf(meta->request_rate))
        cJSON_AddStringToObject(o, "request_rate", "inf");
    else
        add_num(o, "request_rate", meta->request_rate);
    add_num(o, "burstiness", meta->burstiness);
    if (meta->max_concurrency > 0)
        add_num(o, "max_concurrency", (double)meta->max_concurrency);
    else
        cJSON_AddNullToObject(o, "max_concurrency");
    sim_field fields[SIM_FIELDS_MAX];
    sim_report_fields_json(o, fields, sim_report_serve_fields(r, SIM_FIELDS_VLLM, fields));
    char *txt = cJSON_Print(o);
    cJSON_Delete(o);
    if (!txt)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_outfile out;
    sim_status st = sim_outfile_open(&out, path, "--save-result", err);
    if (!st) {
        fprintf(out.f, "%s\n", txt);
        st = sim_outfile_commit(&out, err);
    }
    free(txt);
    return st;
}
