/* html.c - the report pages: a head with inline CSS, sections of figures and tables. */
#include "html.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "outfile.h"
#include "pp.h"
#include "spec.h"

/* The page is built in a text buffer (svg.h's writer escapes and grows it), then written. */
typedef sim_svg page;

static const char css[] =
    "body{font-family:sans-serif;color:#222;max-width:1180px;margin:24px auto;padding:0 16px;"
    "line-height:1.4}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;"
    "border-bottom:1px solid #ddd;padding-bottom:4px}"
    "pre.cmd{background:#f4f4f4;padding:8px 10px;white-space:pre-wrap;word-break:break-all;"
    "font-size:12px;border-radius:4px}"
    "table.kv{border-collapse:collapse;font-size:13px}"
    "table.kv td{padding:2px 14px 2px 0;border-bottom:1px solid #eee}"
    "table.kv td.v{text-align:right;font-variant-numeric:tabular-nums}"
    "figure{margin:12px 0;break-inside:avoid;page-break-inside:avoid}"
    "figure svg{max-width:100%;height:auto;border:1px solid #e4e4e4}"
    "figcaption{font-size:12.5px;color:#444;max-width:780px}"
    ".grid{display:flex;flex-wrap:wrap;gap:12px}.grid figure{margin:0}"
    "footer{margin-top:32px;font-size:11.5px;color:#666}"
    "@media print{body{max-width:none;margin:0}h2{break-after:avoid}"
    "figure svg{border:none}}";

static void page_begin(page *p, const char *title, const char *subtitle, const char *cmdline)
{
    sim_svg_raw(p, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                   "<title>");
    sim_svg_escaped(p, title);
    sim_svg_raw(p, "</title><style>%s</style></head>\n<body><header><h1>", css);
    sim_svg_escaped(p, title);
    sim_svg_raw(p, "</h1><div>");
    sim_svg_escaped(p, subtitle);
    sim_svg_raw(p, "</div><pre class=\"cmd\">$ ");
    sim_svg_escaped(p, cmdline);
    sim_svg_raw(p, "</pre></header>\n");
}

static void section(page *p, const char *h2)
{
    sim_svg_raw(p, "<h2>");
    sim_svg_escaped(p, h2);
    sim_svg_raw(p, "</h2>\n");
}

/* A figure holding a chart; the chart's buffer is freed. */
static void figure(page *p, sim_svg *chart, const char *caption)
{
    sim_svg_raw(p, "<figure>");
    if (chart->oom)
        p->oom = true;
    else if (chart->s)
        sim_svg_raw(p, "%s", chart->s);
    if (caption) {
        sim_svg_raw(p, "<figcaption>");
        sim_svg_escaped(p, caption);
        sim_svg_raw(p, "</figcaption>");
    }
    sim_svg_raw(p, "</figure>\n");
    sim_svg_free(chart);
}

static void table_begin(page *p) { sim_svg_raw(p, "<table class=\"kv\">"); }
static void table_end(page *p) { sim_svg_raw(p, "</table>\n"); }

static void row(page *p, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void row(page *p, const char *label, const char *fmt, ...)
{
    char v[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    sim_svg_raw(p, "<tr><td>");
    sim_svg_escaped(p, label);
    sim_svg_raw(p, "</td><td class=\"v\">");
    sim_svg_escaped(p, v);
    sim_svg_raw(p, "</td></tr>");
}

/* Closes the page and writes it to `path` through a temporary file. */
static sim_status page_write(page *p, const char *path, sim_err *err)
{
    sim_svg_raw(p, "<footer>Made by infersim: every number is a prediction of the roofline "
                   "model, not a measurement. Self-contained: no scripts, no network.</footer>"
                   "\n</body></html>\n");
    if (p->oom) {
        sim_svg_free(p);
        return sim_fail(err, SIM_EINTERNAL, "out of memory building the --html report");
    }
    sim_outfile o;
    sim_status st = sim_outfile_open(&o, path, "--html", err);
    if (!st) {
        fwrite(p->s, 1, p->len, o.f);
        st = sim_outfile_commit(&o, err);
    }
    sim_svg_free(p);
    return st;
}

/* --uncertainty: every banded metric with its 80 % band (the parameter draws' 10th and 90th
 * percentiles). */
static void band_section(page *p, const sim_unc_band *b)
{
    if (!b || !b->n)
        return;
    section(p, "How sure: 80 % bands");
    table_begin(p);
    for (size_t i = 0; i < b->n; i++)
        row(p, b->key[i], "%.4g - %.4g", b->lo[i], b->hi[i]);
    table_end(p);
    sim_svg_raw(p, "<p style=\"font-size:12.5px;color:#444\">");
    char text[160];
    snprintf(text, sizeof text,
             "The run repeated under %d draws of the step model's efficiencies and overheads "
             "(tools/data/uncertainty.csv, docs/VALIDATION.md).",
             b->draws);
    sim_svg_escaped(p, text);
    if (b->basis[0]) { /* what the bands rest on: the engine's and the device's evidence */
        sim_svg_escaped(p, " They rest on: ");
        sim_svg_escaped(p, b->basis);
        sim_svg_escaped(p, ".");
    }
    sim_svg_raw(p, "</p>\n");
}

/* ------------------------------------------------------------------------------------------ */

sim_status sim_html_run(const char *path, const char *cmdline, const sim_run_cfg *cfg,
                        const sim_run_result *r, sim_err *err)
{
    page p = {0};
    const sim_step_cfg *sc = &cfg->step;
    char sub[512];
    snprintf(sub, sizeof sub,
             "%s on %d x %s: batch %lld, %lld prompt + %lld generated tokens per sequence; "
             "weights %s, activations %s, KV cache %s",
             sc->model->name, sc->tp, sc->hw->name, (long long)cfg->batch,
             (long long)cfg->input_len, (long long)cfg->output_len, sim_dtype_name(sc->prec.weight),
             sim_dtype_name(sc->prec.act), sim_dtype_name(sc->prec.kv));
    page_begin(&p, "infersim run: one static batch", sub, cmdline);
    section(&p, "Summary");
    table_begin(&p);
    row(&p, "TTFT (ms)", "%.3f", r->ttft_ns / 1e6);
    row(&p, "TPOT (ms)", "%.3f", r->tpot_ns / 1e6);
    row(&p, "E2E latency (ms)", "%.3f", r->e2e_ns / 1e6);
    row(&p, "Output throughput (tok/s, whole batch)", "%.1f", r->output_throughput);
    row(&p, "Prefill step", "%.3f ms, %s-bound", r->prefill.t_ns / 1e6,
        sim_bound_name(r->prefill.bound));
    if (cfg->output_len > 1)
        row(&p, "Mean decode step", "%.3f ms, %s-bound (%lld steps)", r->decode.t_ns / 1e6,
            sim_bound_name(r->decode.bound), (long long)r->decode_steps);
    row(&p, "Memory per GPU (GB)", "%.2f of %.2f", r->mem.need_bytes / 1e9,
        r->mem.capacity_bytes / 1e9);
    row(&p, "Largest batch that fits", "%lld", (long long)r->mem.max_batch);
    sim_price price;
    if (sim_report_run_price(cfg, r, &price))
        row(&p, "Cost (US$ per million output tokens)", "%.4f (%lld GPUs at %.4g $/h)",
            price.usd_per_million_output_tokens, (long long)price.gpus, price.usd_per_gpu_hour);
    if (sim_spec_active(cfg->spec)) {
        row(&p, "Speculative decoding", "%s, K = %d", sim_spec_method_name(cfg->spec->method),
            cfg->spec->k);
        row(&p, "Tokens per verify step (tau)", "%.3f", r->spec_tau);
        row(&p, "Decode speed-up", "%.2fx", r->spec_speedup);
    }
    table_end(&p);
    band_section(&p, cfg->band);

    const sim_step_result *dec = cfg->output_len > 1 ? &r->decode : NULL;
    sim_svg c = {0};
    section(&p, "Roofline");
    sim_chart_roofline(&c, sc->hw, &r->prefill, dec, cmdline);
    figure(&p, &c,
           "Each circle is one op of the prefill step or of the mean decode step: its FLOPs over "
           "its HBM bytes (x) and its FLOPs over its predicted time, launch and network included "
           "(y). The bigger the circle, the larger its share of the step's time. Ops left of a "
           "ridge cannot reach "
           "that format's peak whatever the kernel.");
    section(&p, "Where the step's time goes");
    const sim_step_result *steps[2] = {&r->prefill, &r->decode};
    const char *names[2] = {"prefill step",
                            sim_spec_active(cfg->spec) ? "mean verify step" : "mean decode step"};
    sim_chart_step_ops(&c, steps, names, dec ? 2 : 1, cmdline);
    figure(&p, &c,
           "Top bar of each step: its ops in issue order (x the layer count), coloured by what "
           "bounds each. Bottom bar: the same time split into math- and memory-bound busy time, "
           "exposed network, kernel launches and host (engine CPU) time.");
    section(&p, "Memory");
    sim_chart_memory(&c, &r->mem, cmdline);
    figure(&p, &c,
           "Per GPU: weights / TP, the KV cache of the whole batch at full length, the "
           "activation workspace of the largest step and the runtime's reserve, against "
           "HBM x --gpu-memory-utilization.");
    if (sim_spec_active(cfg->spec) && dec) {
        section(&p, "Speculative decoding");
        sim_chart_spec(&c, r, cmdline);
        figure(&p, &c,
               "One speculative iteration: the draft's proposals, then the target's "
               "verify step; the dashed line is what plain decoding needs for the same "
               "expected tokens.");
    }
    return page_write(&p, path, err);
}

/* Several engines (--replicas, --disagg): each instance's share of the requests and tokens, its
 * busy time, iterations, preemptions and KV peak, per replica or per pool. */
static void instances_section(page *p, const sim_serve_report *rep,
                              const sim_series_set *set, const char *cmdline)
{
    const sim_cluster_result *c = rep->cluster;
    if (!c || c->replicas <= 1 || !c->load)
        return;
    bool dis = c->prefill > 0;
    section(p, dis ? "Per pool and per instance" : "Per replica");
    table_begin(p);
    double dur = (double)rep->res->duration_ns;
    if (dis)
        for (int pool = 0; pool < 2; pool++) {
            int a = pool ? c->prefill : 0, b = pool ? c->replicas : c->prefill;
            int64_t req = 0, in = 0, out = 0;
            double busy = 0;
            for (int i = a; i < b; i++)
                req += c->load[i].requests, in += c->load[i].input_tokens,
                    out += c->load[i].output_tokens, busy += c->load[i].busy_ns;
            char label[64];
            snprintf(label, sizeof label, "%s pool (%d instances)", pool ? "Decode" : "Prefill",
                     b - a);
            row(p, label, "%lld requests, %lld prompt and %lld output tokens, busy %.1f%%",
                (long long)req, (long long)in, (long long)out,
                dur > 0 && b > a ? 100.0 * busy / (dur * (b - a)) : 0.0);
        }
    for (int i = 0; i < c->replicas; i++) {
        const sim_replica_load *l = &c->load[i];
        char label[64];
        if (dis)
            snprintf(label, sizeof label, "%s instance %d", i < c->prefill ? "Prefill" : "Decode",
                     i < c->prefill ? i : i - c->prefill);
        else
            snprintf(label, sizeof label, "Replica %d", i);
        row(p, label,
            "%lld requests, %lld + %lld tokens, busy %.1f%%, %lld iterations, %lld preemptions, "
            "KV peak %lld blocks",
            (long long)l->requests, (long long)l->input_tokens, (long long)l->output_tokens,
            dur > 0 ? 100.0 * l->busy_ns / dur : 0.0, (long long)l->iterations,
            (long long)l->preemptions, (long long)l->kv_peak_blocks);
    }
    table_end(p);
    if (set && set->n == c->replicas) {
        static const char *const captions[SIM_VIEW_COUNT] = {
            "Requests in each instance (running and queued), averaged over the iterations that "
            "start in each bucket: where the router's choices pile up.",
            "Prompt and decode tokens per iteration of each instance, averaged per bucket.",
            "Each instance's most KV-cache blocks in use at an iteration's start, as a share of "
            "its own cache.",
            "Requests each instance preempted (recompute) in each bucket."};
        sim_svg c_svg = {0};
        for (int v = 0; v < SIM_VIEW_COUNT; v++) {
            bool shows = false; /* no instance preempted: no empty preemptions panel */
            for (int i = 0; i < set->n && !shows; i++)
                shows = sim_chart_series_shows(&set->s[i], (sim_series_view)v);
            if (!shows)
                continue;
            sim_chart_series_instances(&c_svg, set, c->prefill, (sim_series_view)v,
                                       rep->res->duration_ns, cmdline);
            figure(p, &c_svg, captions[v]);
        }
    }
    sim_svg_raw(p, "<p style=\"font-size:12.5px;color:#444\">");
    sim_svg_escaped(p, "The latency CDFs above pool every instance's requests.");
    sim_svg_raw(p, "</p>\n");
}

sim_status sim_html_serve(const char *path, const char *cmdline, const sim_serve_report *rep,
                          const sim_slo *slo, const sim_series *series,
                          const sim_series_set *instances, sim_err *err)
{
    page p = {0};
    const sim_step_cfg *sc = &rep->cfg->step;
    const sim_serve_metrics *m = rep->m;
    char sub[512], rate[48];
    if (isnan(rep->request_rate))
        snprintf(rate, sizeof rate, "a trace");
    else if (isinf(rep->request_rate))
        snprintf(rate, sizeof rate, "all at t = 0");
    else
        snprintf(rate, sizeof rate, "%.4g requests/s", rep->request_rate);
    snprintf(sub, sizeof sub, "%s on %d x %s: %zu requests, arrivals %s", sc->model->name, sc->tp,
             sc->hw->name, m->completed, rate);
    page_begin(&p, "infersim serve: a request stream under continuous batching", sub, cmdline);
    section(&p, "Summary");
    table_begin(&p);
    row(&p, "Successful requests", "%zu", m->completed);
    row(&p, "Benchmark duration (s)", "%.2f", m->duration_s);
    row(&p, "Request throughput (req/s)", "%.2f", m->request_throughput);
    row(&p, "Output token throughput (tok/s)", "%.2f", m->output_throughput);
    row(&p, "Total token throughput (tok/s)", "%.2f", m->total_token_throughput);
    if (m->has_goodput)
        row(&p, "Request goodput (req/s)", "%.2f", m->request_goodput);
    for (int k = 0; k < SIM_M_COUNT; k++) {
        char label[64];
        const sim_dist *d = &m->dist[k];
        snprintf(label, sizeof label, "%s mean / p50 / p90 / p99 (ms)", sim_metric_name(k));
        row(&p, label, "%.2f / %.2f / %.2f / %.2f", d->mean, d->median, d->p90, d->p99);
    }
    row(&p, "Preemptions", "%lld", (long long)m->preemptions);
    row(&p, "Mean batch size (requests per iteration)", "%.2f", m->mean_batch_size);
    row(&p, "KV-cache peak usage", "%.1f%%", 100.0 * m->kv_cache_peak_usage);
    sim_price price;
    if (sim_report_serve_price(rep, &price))
        row(&p, "Cost (US$ per million output tokens)", "%.4f (%lld GPUs at %.4g $/h)",
            price.usd_per_million_output_tokens, (long long)price.gpus, price.usd_per_gpu_hour);
    if (rep->band && rep->band->n && rep->capacity_rps > 0.0) {
        row(&p, "Capacity (req/s)", "%.2f (80 %%: %.2f - %.2f)", rep->capacity_rps,
            rep->capacity_lo, rep->capacity_hi);
        if (rep->offered_rps > 0.0)
            row(&p, "Offered load / capacity", "%.2f (80 %%: %.2f - %.2f)",
                rep->offered_rps / rep->capacity_rps, rep->offered_rps / rep->capacity_hi,
                rep->offered_rps / rep->capacity_lo);
    }
    table_end(&p);
    band_section(&p, rep->band);

    sim_svg c = {0};
    section(&p, "Latency distributions");
    sim_svg_raw(&p, "<div class=\"grid\">");
    for (int k = 0; k < SIM_M_COUNT; k++) {
        sim_chart_cdf(&c, rep->res, (sim_metric)k, &m->dist[k], slo ? slo->ms[k] : 0.0, cmdline);
        figure(&p, &c, NULL);
    }
    sim_svg_raw(&p, "</div>");
    sim_svg_raw(&p, "<p style=\"font-size:12.5px;color:#444\">");
    sim_svg_escaped(&p, "Empirical CDFs as vLLM's benchmark defines the metrics (from each "
                        "request's send time; TPOT excludes the first token; ITL pools every gap "
                        "between streamed chunks); p50, p90 and p99 marked; red: the --goodput "
                        "SLO.");
    sim_svg_raw(&p, "</p>\n");
    if (!series) {
        instances_section(&p, rep, instances, cmdline);
        if (rep->cluster && rep->cluster->autoscaled) {
            const sim_cluster_result *cl = rep->cluster;
            const double gpu_hours = cl->held_ns * (double)sim_pp_gpus(sc) / 3.6e12;
            char cost[96] = "";
            sim_price pr;
            if (sim_report_serve_price(rep, &pr))
                snprintf(cost, sizeof cost, ", US$ %.2f at %.4g $ per GPU-hour",
                         gpu_hours * pr.usd_per_gpu_hour, pr.usd_per_gpu_hour);
            char cap[400];
            snprintf(cap, sizeof cap,
                     "The autoscaler's pool after each evaluation (every --autoscale-interval-s): "
                     "%lld replicas added, %lld removed, %.2f held on average, %.3f GPU-hours%s "
                     "(from the decision to add a replica to its release).",
                     (long long)cl->scale_ups, (long long)cl->scale_downs,
                     cl->held_ns / fmax((double)rep->res->duration_ns, 1.0), gpu_hours, cost);
            section(&p, "Autoscaling");
            sim_chart_autoscale(&c, cl, rep->res->duration_ns, cmdline);
            figure(&p, &c, cap);
        }
        section(&p, "Requests");
        sim_chart_gantt(&c, rep->res, 40, cmdline);
        figure(&p, &c,
               "From send to first scheduled (queued), to the first token (prefill, "
               "including any recompute), to the last token (decode).");
        return page_write(&p, path, err);
    }
    section(&p, "Over simulated time");
    static const char *const captions[SIM_VIEW_COUNT] = {
        ("Requests holding KV blocks (running) and queued (waiting), averaged over the "
         "iterations that start in each bucket."),
        "Prompt (and recompute) tokens and decode tokens per iteration, averaged per bucket.",
        "The most KV-cache blocks in use at any iteration's start in each bucket.",
        "Requests preempted (recompute) in each bucket."};
    for (int v = 0; v < SIM_VIEW_COUNT; v++)
        if (sim_chart_series_shows(series, (sim_series_view)v)) { /* no empty preemptions */
            sim_chart_series(&c, series, (sim_series_view)v, rep->res->duration_ns, cmdline);
            figure(&p, &c, captions[v]);
        }
    section(&p, "Requests");
    sim_chart_gantt(&c, rep->res, 40, cmdline);
    figure(&p, &c,
           "From send to first scheduled (queued), to the first token (prefill, "
           "including any recompute), to the last token (decode).");
    return page_write(&p, path, err);
}

sim_status sim_html_sweep(const char *path, const char *cmdline, const sim_chart_sweep *sw,
                          sim_err *err)
{
    page p = {0};
    size_t ok = 0, meet = 0;
    for (size_t i = 0; i < sw->n; i++) {
        ok += sw->rows[i].ok;
        meet += sw->rows[i].meets_slo;
    }
    char sub[256];
    snprintf(sub, sizeof sub, "%zu points, %zu evaluated, %zu invalid", sw->n, ok, sw->n - ok);
    page_begin(&p, "infersim sweep: which configuration?", sub, cmdline);
    section(&p, "Summary");
    table_begin(&p);
    row(&p, "Points", "%zu (%zu ok)", sw->n, ok);
    for (size_t d = 0; d < sw->grid->n_dims; d++)
        if (sw->grid->dims[d].n > 1)
            row(&p, sw->grid->dims[d].name, "%zu values", sw->grid->dims[d].n);
    if (sw->has_slo) {
        char slo[160];
        size_t n = 0;
        for (int k = 0; k < SIM_M_COUNT; k++)
            if (sw->slo_ms[k] > 0.0)
                n += (size_t)snprintf(slo + n, sizeof slo - n, "%s%s <= %.4g ms", n ? ", " : "",
                                      sim_metric_name(k), sw->slo_ms[k]);
        row(&p, "SLO", "%s at p%d", n ? slo : "none", sw->pct);
        row(&p, "Points meeting the SLO", "%zu", meet);
    }
    const char *obj = sw->objective ? sw->objective : "throughput";
    size_t b = sim_chart_sweep_best(sw);
    char label[512], what[96];
    snprintf(what, sizeof what, "Best by %s%s", obj, sw->has_slo ? " under the SLO" : "");
    if (b < sw->n) {
        const sim_sweep_row *r = &sw->rows[b];
        sim_grid_label(sw->grid, r->point, label, sizeof label);
        if (strcmp(obj, "cost") == 0)
            row(&p, what, "point %zu (%s): $%.4f per million output tokens, %.1f tok/s per GPU",
                r->point, label, r->usd_per_million_output_tokens, r->tput_per_gpu);
        else if (strcmp(obj, "energy") == 0)
            row(&p, what, "point %zu (%s): %.4f J per output token, %.1f tok/s per GPU", r->point,
                label, r->joules_per_output_token, r->tput_per_gpu);
        else
            row(&p, what, "point %zu (%s): %.1f tok/s per GPU", r->point, label,
                r->tput_per_gpu);
    } else if (sw->has_slo || sw->best_given) {
        row(&p, what, "none%s", sw->has_slo ? " meets it" : "");
    }
    if (sw->decision && sw->decision[0])
        row(&p, "How sure (parameter draws)", "%s", sw->decision);
    table_end(&p);
    sim_svg c = {0};
    section(&p, "Throughput against latency");
    sim_chart_pareto(&c, sw, false);
    figure(&p, &c,
           "Each circle is a point of the grid; the line joins the Pareto front (no "
           "other point is both faster per token and higher in throughput per GPU).");
    sim_chart_pareto(&c, sw, true);
    figure(&p, &c, "The same points against time to first token, with that front.");
    size_t priced = 0;
    for (size_t i = 0; i < sw->n; i++)
        priced += sw->rows[i].ok && sw->rows[i].usd_per_million_output_tokens > 0.0;
    if (priced) {
        section(&p, "Cost against latency");
        sim_chart_sweep_cost(&c, sw, false);
        figure(&p, &c,
               "Each priced point's US$ per million output tokens against TPOT: the cheapest "
               "points under the SLO sit low and left of its line.");
        sim_chart_sweep_cost(&c, sw, true);
        figure(&p, &c, "The same against time to first token.");
    }
    size_t shown = 0;
    for (size_t d = 0; d < sw->grid->n_dims; d++)
        shown += sw->grid->dims[d].n > 1;
    if (shown) {
        section(&p, "By swept flag");
        sim_svg_raw(&p, "<div class=\"grid\">");
        for (size_t d = 0; d < sw->grid->n_dims; d++)
            if (sw->grid->dims[d].n > 1) {
                sim_chart_sweep_dim(&c, sw, d);
                figure(&p, &c, NULL);
            }
        sim_svg_raw(&p, "</div>");
    }
    return page_write(&p, path, err);
}

sim_status sim_html_compare(const char *path, const char *cmdline, const char *result_file,
                            const char *const *names, const double *measured,
                            const double *predicted, size_t n, sim_err *err)
{
    page p = {0};
    char sub[512];
    snprintf(sub, sizeof sub, "the measurements in %s against the prediction for the same flags",
             result_file);
    page_begin(&p, "infersim compare: prediction against measurement", sub, cmdline);
    section(&p, "Metrics");
    table_begin(&p);
    for (size_t i = 0; i < n; i++) {
        if (measured[i] > 0.0)
            row(&p, names[i], "measured %.4g, predicted %.4g, error %+.1f%%", measured[i],
                predicted[i], 100.0 * (predicted[i] - measured[i]) / measured[i]);
        else
            row(&p, names[i], "%s, predicted %.4g",
                measured[i] < 0.0 ? "not measured" : "measured 0", predicted[i]);
    }
    table_end(&p);
    sim_svg c = {0};
    section(&p, "Error per metric");
    sim_chart_compare(&c, names, measured, predicted, n, cmdline);
    figure(&p, &c,
           "Signed error of each prediction; the project's targets are 10% op-level and "
           "15% end-to-end (median).");
    return page_write(&p, path, err);
}

/* The "Summary" section of a page: a table of (label, value) pairs, lines[2i] and lines[2i+1]. */
static void summary_pairs(page *p, const char *const *lines, size_t n_lines)
{
    section(p, "Summary");
    table_begin(p);
    for (size_t i = 0; i + 1 < n_lines; i += 2)
        row(p, lines[i], "%s", lines[i + 1]);
    table_end(p);
}

sim_status sim_html_capacity(const char *path, const char *cmdline, const sim_chart_capacity *c,
                             const char *const *lines, size_t n_lines, sim_err *err)
{
    page p = {0};
    char sub[128];
    snprintf(sub, sizeof sub, "%zu probes of the same workload", c->n);
    page_begin(&p, "infersim capacity: the highest rate meeting the SLO", sub, cmdline);
    summary_pairs(&p, lines, n_lines);
    section(&p, "The SLO's metrics against the request rate");
    sim_svg ch = {0};
    for (int m = 0; m < SIM_M_COUNT; m++)
        if (c->slo_ms[m] > 0.0 && c->value[m]) {
            sim_chart_capacity_metric(&ch, c, (sim_metric)m);
            figure(&p, &ch,
                   "Each circle is a serving run of the same requests at one rate (green: the "
                   "SLO held and the queue kept up); the dashed red line is the SLO, the green "
                   "one the rate found. A value past 4 x the SLO is drawn at the top (^).");
        }
    section(&p, "Probes");
    table_begin(&p);
    for (size_t i = 0; i < c->n; i++) {
        char r[32], v[160];
        size_t n = 0;
        snprintf(r, sizeof r, isinf(c->rate[i]) ? "inf req/s" : "%.4g req/s", c->rate[i]);
        for (int m = 0; m < SIM_M_COUNT; m++)
            if (c->slo_ms[m] > 0.0 && c->value[m])
                n += (size_t)snprintf(v + n, sizeof v - n, "%s %.4g ms, ", sim_metric_name(m),
                                      c->value[m][i]);
        row(&p, r, "%s%s", v, c->met[i] ? "met" : "missed");
    }
    table_end(&p);
    return page_write(&p, path, err);
}

sim_status sim_html_plan(const char *path, const char *cmdline, const sim_chart_plan *pl,
                         const char *const *lines, size_t n_lines, const char *text, sim_err *err)
{
    page p = {0};
    char sub[128];
    snprintf(sub, sizeof sub, "%zu deployments serve the rate under the SLO", pl->n);
    page_begin(&p, "infersim plan: which GPUs, configured how", sub, cmdline);
    summary_pairs(&p, lines, n_lines);
    if (pl->n) {
        sim_svg ch = {0};
        section(&p, "Cost of each deployment");
        sim_chart_plan_groups(&ch, pl);
        figure(&p, &ch, "The cheapest deployment that serves the rate, per model and device.");
        sim_chart_plan_cost(&ch, pl, false);
        figure(&p, &ch,
               "Every deployment that serves the rate under the SLO: its fleet's US$ per hour "
               "against its TPOT at the percentile; the winner circled.");
        sim_chart_plan_cost(&ch, pl, true);
        figure(&p, &ch, "The same against time to first token.");
    }
    if (pl->winner_series && pl->winner_series->n > 0) {
        sim_svg ch = {0};
        char h[256];
        snprintf(h, sizeof h, "The winner over time, per instance: %s",
                 pl->winner_label ? pl->winner_label : "");
        section(&p, h);
        static const sim_series_view views[] = {SIM_VIEW_REQUESTS, SIM_VIEW_KV, SIM_VIEW_TOKENS};
        static const char *const captions[] = {
            ("The winner's serving run at the target rate (the plan's workload): requests in "
             "each instance, running and queued, averaged over the iterations starting in each "
             "bucket."),
            "Each instance's most KV-cache blocks in use, as a share of its own cache.",
            "Prompt and decode tokens per iteration of each instance."};
        for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
            sim_chart_series_instances(&ch, pl->winner_series, pl->winner_prefill, views[v],
                                       pl->winner_duration_ns, cmdline);
            figure(&p, &ch, captions[v]);
        }
    }
    section(&p, "The ranking, the winner and its command lines");
    sim_svg_raw(&p, "<pre class=\"cmd\">");
    sim_svg_escaped(&p, text ? text : "");
    sim_svg_raw(&p, "</pre>\n");
    return page_write(&p, path, err);
}
