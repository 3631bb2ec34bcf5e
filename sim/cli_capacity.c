/* cli_capacity.c - the capacity command: the highest request rate whose serving run meets an SLO.
 *
 * The search over rates and its SLO criterion are cli_rate.h's; this file takes serve's flags
 * (less those that do not apply), runs it and writes its report (JSON, table, CSV).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_point.h"
#include "cli_rate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "html.h"
#include "report.h"

/* Flags of serve that capacity does not take: its outputs are one run's, or the rate is searched. */
static const cli_opt_id refused[] = {
    CLI_OPT_ID_REQUEST_RATE,      CLI_OPT_ID_TRACE,           CLI_OPT_ID_TIME_SCALE,
    CLI_OPT_ID_CHROME_TRACE,      CLI_OPT_ID_SAVE_REQUESTS,   CLI_OPT_ID_SAVE_RESULT,
    CLI_OPT_ID_RESULT_DIR,        CLI_OPT_ID_RESULT_FILENAME, CLI_OPT_ID_TRACE_DETAIL,
    CLI_OPT_ID_TRACE_WINDOW,      CLI_OPT_ID_TRACE_MAX_MB,    CLI_OPT_ID_PERCENTILE_METRICS,
    CLI_OPT_ID_METRIC_PERCENTILES, CLI_OPT_ID_TRACE_FULL};
enum { N_REFUSED = sizeof refused / sizeof refused[0] };

void cli_capacity_help(FILE *f, int argc, char **argv)
{
    (void)argc, (void)argv;
    cli_opt_usage(f, "capacity", CLI_OPT_CMD_SERVE | CLI_OPT_CMD_CAPACITY);
    fprintf(f,
            "serve's flags capacity refuses (it searches the rate and writes its own report):\n ");
    for (size_t i = 0; i < N_REFUSED; i++)
        fprintf(f, " %s", cli_opt_name(refused[i]));
    fprintf(f, "\n");
}

static sim_status check_flags(const cli_opts *o, sim_err *err)
{
    for (size_t i = 0; i < N_REFUSED; i++)
        if (cli_opt_given(o, refused[i]))
            return sim_fail(err, SIM_EINPUT,
                            "%s: does not apply to capacity (it searches the request rate over "
                            "vLLM's synthetic datasets and writes its own report; run serve at "
                            "the rate it finds for that)",
                            cli_opt_name(refused[i]));
    if (cli_opt_given(o, CLI_OPT_ID_MAX_CONCURRENCY))
        return sim_fail(err, SIM_EINPUT,
                        "--max-concurrency: does not apply to capacity (the client would hold "
                        "back requests past the limit, out of every latency, so no rate would "
                        "look overloaded)");
    sim_dataset ds; /* a public dataset's lengths: its name checked before any probe */
    if (cli_point_public_dataset(o)) {
        sim_status st = cli_point_dataset(o, NULL, &ds, err);
        if (st)
            return st;
    }
    if (o->slo && o->goodput[0])
        return sim_fail(err, SIM_EINPUT,
                        "--slo with --goodput: expected one of them (--slo: each metric's "
                        "percentile under its limit; --goodput: that share of requests under "
                        "every limit)");
    if (!o->slo && !o->goodput[0])
        return sim_fail(err, SIM_EINPUT,
                        "capacity: needs --slo ttft:MS,tpot:MS (or --goodput ttft:MS tpot:MS)");
    return SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* The report */

static const char *const slo_keys[SIM_M_COUNT] = {"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"};

/* "p90_ttft_ms": vLLM's key of a metric's percentile. */
static void pct_key(const cli_rate_search *c, int m, char *buf, size_t len)
{
    char w[32];
    sim_pct_word(c->pct, w, sizeof w);
    snprintf(buf, len, "p%s_%s_ms", w, sim_metric_name((sim_metric)m));
}

/* A rate as JSON: a number, "inf" for INFINITY (as serve writes request_rate inf). */
static cJSON *rate_json(double r)
{
    return isinf(r) ? cJSON_CreateString("inf") : cJSON_CreateNumber(r);
}

static const char *summary(const cli_rate_search *c, char *buf, size_t len)
{
    if (c->best >= 0 && isinf(c->lo))
        snprintf(buf, len,
                 "the SLO is met even with every request sent at t = 0: any rate meets it");
    else if (c->best < 0)
        snprintf(buf, len,
                 "the SLO is missed at every rate probed, down to %.6g req/s: no request rate "
                 "meets it on this deployment",
                 c->min_rate);
    else if (!c->converged)
        snprintf(buf, len, "met up to %.6g req/s, the highest rate probed", c->lo);
    else
        snprintf(buf, len, "met at %.6g req/s, missed at %.6g req/s (within %g %%)", c->lo, c->hi,
                 100.0 * c->tol);
    return buf;
}

/* Whether the best run's arrivals span CLI_RATE_STEADY_LIFETIMES mean E2E latencies. */
static bool steady(const cli_rate_search *c, const cli_rate_run *r)
{
    const sim_serve_metrics *m = &r->s[0]->m;
    if (!r->s[0]->w)
        return false;
    double span_s = (double)r->s[0]->w->n / c->lo;
    return span_s >= CLI_RATE_STEADY_LIFETIMES * m->dist[SIM_M_E2EL].mean / 1e3;
}

/* The serve report of the best run (its metrics, price and GPUs). */
static sim_serve_report best_report(const cli_rate_search *c, const cli_rate_run *r)
{
    const cli_point_serve_state *s = r->s[0];
    const cli_load_result *L = r->L[0];
    return (sim_serve_report){.cfg = &s->cfg,
                              .w = s->w,
                              .res = &s->res,
                              .m = &s->m,
                              .request_rate = c->lo,
                              .engine = L->eng.name,
                              .engine_version = L->eng.version,
                              .engine_fusions = L->eng.fusions,
                              .engine_rules = L->eng.chosen,
                              .usd_per_gpu_hour = s->usd_per_gpu_hour,
                              .gpus = s->gpus,
                              .cluster = &s->cluster};
}

/* serve --format json of the best run, parsed back into a tree (NULL when out of memory). */
static cJSON *serve_json(const sim_serve_report *rep)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    sim_status st = sim_report_serve(f, SIM_FMT_JSON, rep);
    fclose(f);
    cJSON *j = st ? NULL : cJSON_Parse(buf);
    free(buf);
    return j;
}

static cJSON *report_json(const cli_rate_search *c, const cli_rate_run *r)
{
    char msg[256];
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "max_request_rate", rate_json(c->best >= 0 ? c->lo : 0.0));
    cJSON_AddBoolToObject(j, "met", c->best >= 0);
    if (c->hi > 0.0)
        cJSON_AddItemToObject(j, "missed_request_rate", rate_json(c->hi));
    else
        cJSON_AddNullToObject(j, "missed_request_rate");
    cJSON_AddBoolToObject(j, "converged", c->converged);
    cJSON_AddNumberToObject(j, "rate_tolerance", c->tol);
    cJSON_AddStringToObject(j, "slo_form", c->goodput ? "goodput" : "percentile");
    cJSON_AddNumberToObject(j, "slo_percentile", c->pct);
    cJSON *slo = cJSON_AddObjectToObject(j, "slo");
    for (int m = 0; m < SIM_M_COUNT; m++)
        if (c->slo.ms[m] > 0.0)
            cJSON_AddNumberToObject(slo, slo_keys[m], c->slo.ms[m]);
    cJSON_AddStringToObject(j, "message", summary(c, msg, sizeof msg));
    sim_price pr;
    bool priced = false;
    if (c->best >= 0) {
        sim_serve_report rep = best_report(c, r);
        cJSON_AddNumberToObject(j, "gpus", (double)sim_report_serve_gpus(&rep));
        if (isfinite(c->lo))
            cJSON_AddBoolToObject(j, "steady_state", steady(c, r));
        priced = sim_report_serve_price(&rep, &pr);
        cJSON *sj = serve_json(&rep);
        if (sj)
            cJSON_AddItemToObject(j, "metrics", sj);
        else
            cJSON_AddNullToObject(j, "metrics");
    } else {
        cJSON_AddNullToObject(j, "gpus");
        cJSON_AddNullToObject(j, "metrics");
    }
    const char *pk[] = {"usd_per_hour", "usd_per_million_output_tokens",
                        "usd_per_million_total_tokens"};
    const double pv[] = {priced ? pr.usd_per_hour : 0,
                         priced ? pr.usd_per_million_output_tokens : 0,
                         priced ? pr.usd_per_million_total_tokens : 0};
    for (int i = 0; i < 3; i++)
        if (priced)
            cJSON_AddNumberToObject(j, pk[i], pv[i]);
        else
            cJSON_AddNullToObject(j, pk[i]);
    cJSON *probes = cJSON_AddArrayToObject(j, "probes");
    for (int i = 0; i < c->n; i++) {
        const cli_rate_probe *p = &c->probes[i];
        cJSON *pj = cJSON_CreateObject();
        cJSON_AddItemToObject(pj, "request_rate", rate_json(p->rate));
        cJSON_AddBoolToObject(pj, "met", p->met);
        cJSON_AddBoolToObject(pj, "keeps_up", p->keeps_up);
        char key[64];
        for (int m = 0; m < SIM_M_COUNT; m++)
            if (c->slo.ms[m] > 0.0) {
                pct_key(c, m, key, sizeof key);
                cJSON_AddNumberToObject(pj, key, p->value_ms[m]);
            }
        cJSON_AddNumberToObject(pj, "slo_attainment", p->attainment);
        cJSON_AddNumberToObject(pj, "request_throughput", p->request_throughput);
        cJSON_AddItemToArray(probes, pj);
    }
    return j;
}

static void rate_text(double r, char *buf, size_t len)
{
    if (isinf(r))
        snprintf(buf, len, "inf");
    else
        snprintf(buf, len, "%.4f", r);
}

static sim_status write_table(FILE *f, const cli_rate_search *c, const cli_rate_run *r)
{
    char msg[256], rate[32], key[64];
    fprintf(f, "============ Capacity: the highest rate meeting the SLO ============\n");
    fprintf(f, "SLO:");
    const char *sep = " ";
    for (int m = 0; m < SIM_M_COUNT; m++)
        if (c->slo.ms[m] > 0.0) {
            fprintf(f, "%s%s <= %g ms", sep, sim_metric_name((sim_metric)m), c->slo.ms[m]);
            sep = ", ";
        }
    if (c->goodput)
        fprintf(f, ", for at least %g %% of the requests (goodput)\n", c->pct);
    else
        fprintf(f, " (each at p%g)\n", c->pct);
    rate_text(c->best >= 0 ? c->lo : 0.0, rate, sizeof rate);
    fprintf(f, "%-40s %s\n", "Max request rate (req/s):", rate);
    fprintf(f, "%s\n", summary(c, msg, sizeof msg));
    if (c->best >= 0) {
        sim_serve_report rep = best_report(c, r);
        sim_price pr;
        fprintf(f, "%-40s %lld\n", "GPUs:", (long long)sim_report_serve_gpus(&rep));
        if (sim_report_serve_price(&rep, &pr)) {
            fprintf(f, "%-40s %.2f\n", "Cost ($/hour):", pr.usd_per_hour);
            fprintf(f, "%-40s %.4f\n", "Cost ($/Mtok output):", pr.usd_per_million_output_tokens);
            fprintf(f, "%-40s %.4f\n", "Cost ($/Mtok total):", pr.usd_per_million_total_tokens);
        } else {
            fprintf(f, "%-40s %s\n", "Cost ($/Mtok output):",
                    "unknown (no usd_per_gpu_hour; pass --usd-per-gpu-hour)");
        }
    }
    fprintf(f, "---------------------------Probes-----------------------------------\n");
    fprintf(f, "%14s %5s", "rate (req/s)", "met");
    for (int m = 0; m < SIM_M_COUNT; m++)
        if (c->slo.ms[m] > 0.0) {
            pct_key(c, m, key, sizeof key);
            fprintf(f, " %16s", key);
        }
    fprintf(f, " %14s %9s\n", "slo_attainment", "keeps_up");
    for (int i = 0; i < c->n; i++) {
        const cli_rate_probe *p = &c->probes[i];
        rate_text(p->rate, rate, sizeof rate);
        fprintf(f, "%14s %5s", rate, p->met ? "yes" : "no");
        for (int m = 0; m < SIM_M_COUNT; m++)
            if (c->slo.ms[m] > 0.0)
                fprintf(f, " %16.2f", p->value_ms[m]);
        fprintf(f, " %14.4f %9s\n", p->attainment, p->keeps_up ? "yes" : "no");
    }
    if (c->best < 0)
        return SIM_OK;
    rate_text(c->lo, rate, sizeof rate);
    fprintf(f, "\nThe serving run at %s req/s:\n", rate);
    sim_serve_report rep = best_report(c, r);
    return sim_report_serve(f, SIM_FMT_TABLE, &rep);
}

/* One CSV row per probe; `chosen` marks the max_request_rate's. */
static void write_csv(FILE *f, const cli_rate_search *c)
{
    char key[64], rate[32];
    fprintf(f, "request_rate,met,chosen");
    for (int m = 0; m < SIM_M_COUNT; m++)
        if (c->slo.ms[m] > 0.0) {
            pct_key(c, m, key, sizeof key);
            fprintf(f, ",%s", key);
        }
    fprintf(f, ",slo_attainment,request_throughput,keeps_up\n");
    for (int i = 0; i < c->n; i++) {
        const cli_rate_probe *p = &c->probes[i];
        if (isinf(p->rate))
            snprintf(rate, sizeof rate, "inf");
        else
            snprintf(rate, sizeof rate, "%.17g", p->rate);
        fprintf(f, "%s,%s,%s", rate, p->met ? "true" : "false", i == c->best ? "true" : "false");
        for (int m = 0; m < SIM_M_COUNT; m++)
            if (c->slo.ms[m] > 0.0)
                fprintf(f, ",%.6f", p->value_ms[m]);
        fprintf(f, ",%.6f,%.6f,%s\n", p->attainment, p->request_throughput,
                p->keeps_up ? "true" : "false");
    }
}

static sim_status write_report(const cli_opts *o, FILE *out, const cli_rate_search *c, const cli_rate_run *r,
                               sim_err *err)
{
    sim_format fmt = SIM_FMT_TABLE;
    if (o->format && !sim_format_parse(o->format, &fmt))
        return sim_fail(err, SIM_EINPUT, "--format: value '%s', expected table, json or csv",
                        o->format);
    if (fmt == SIM_FMT_CSV) {
        write_csv(out, c);
        return ferror(out) ? sim_fail(err, SIM_EINTERNAL, "writing the result failed") : SIM_OK;
    }
    if (fmt == SIM_FMT_TABLE) {
        sim_status st = write_table(out, c, r);
        return st || ferror(out) ? sim_fail(err, SIM_EINTERNAL, "writing the result failed")
                                 : SIM_OK;
    }
    cJSON *j = report_json(c, r);
    char *text = j ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    if (!text)
        return sim_fail(err, SIM_EINTERNAL, "out of memory writing the result");
    fprintf(out, "%s\n", text);
    free(text);
    return ferror(out) ? sim_fail(err, SIM_EINTERNAL, "writing the result failed") : SIM_OK;
}

/* --html: the probes' charts and the summary. */
static sim_status write_html(const cli_opts *o, const cli_rate_search *c, const cli_rate_run *r,
                             sim_err *err)
{
    double rate[CLI_RATE_MAX_PROBES], val[SIM_M_COUNT][CLI_RATE_MAX_PROBES];
    bool met[CLI_RATE_MAX_PROBES];
    sim_chart_capacity ch = {.rate = rate, .met = met, .n = (size_t)c->n, .pct = c->pct,
                             .max_rate = c->best >= 0 ? c->lo : 0.0, .flags = o->cmdline};
    for (int i = 0; i < c->n; i++) {
        rate[i] = c->probes[i].rate;
        met[i] = c->probes[i].met;
        for (int m = 0; m < SIM_M_COUNT; m++)
            val[m][i] = c->probes[i].value_ms[m];
    }
    for (int m = 0; m < SIM_M_COUNT; m++) {
        ch.slo_ms[m] = c->slo.ms[m];
        ch.value[m] = c->slo.ms[m] > 0.0 ? val[m] : NULL;
    }
    char msg[256], rs[32], gpus[32] = "-", usd[64] = "unknown (no usd_per_gpu_hour)";
    summary(c, msg, sizeof msg);
    rate_text(c->best >= 0 ? c->lo : 0.0, rs, sizeof rs);
    if (c->best >= 0) {
        sim_serve_report rep = best_report(c, r);
        sim_price pr;
        snprintf(gpus, sizeof gpus, "%lld", (long long)sim_report_serve_gpus(&rep));
        if (sim_report_serve_price(&rep, &pr))
            snprintf(usd, sizeof usd, "$%.2f per hour, $%.4f per Mtok output", pr.usd_per_hour,
                     pr.usd_per_million_output_tokens);
    }
    const char *lines[] = {"Max request rate (req/s)", rs, "Result", msg, "GPUs", gpus, "Cost",
                           usd};
    return sim_html_capacity(o->html, o->cmdline ? o->cmdline : "infersim capacity", &ch, lines,
                             sizeof lines / sizeof lines[0], err);
}

sim_status cli_capacity_cmd(const cli_opts *o, FILE *out, sim_err *err)
{
    sim_status st = check_flags(o, err);
    if (st)
        return st;
    cli_rate_search *c = calloc(1, sizeof *c);
    cli_rate_run r = {{NULL, NULL}, {NULL, NULL}};
    cli_load_cache cache = {0}; /* every name resolved and file loaded once, not per probe */
    st = c ? cli_rate_init(o, c, err) : sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!st)
        st = cli_rate_run_alloc(&r, err);
    if (!st && cli_load_cache_prepare(&cache, o, true, false))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!st)
        st = cli_rate_search_max(o, &cache, c, &r, err);
    if (!st && o->warn && c->best >= 0 && isfinite(c->lo) && r.s[0]->w && !steady(c, &r))
        fprintf(o->warn,
                "infersim: warning: at %.6g req/s the %zu requests arrive over %.3g s, under %g "
                "times a request's mean E2EL (%.3g s): the latencies are the ramp-up's, not the "
                "steady state's; raise --num-prompts\n",
                c->lo, r.s[0]->w->n, (double)r.s[0]->w->n / c->lo, CLI_RATE_STEADY_LIFETIMES,
                r.s[0]->m.dist[SIM_M_E2EL].mean / 1e3);
    if (!st)
        st = write_report(o, out, c, &r, err);
    if (!st && o->html)
        st = write_html(o, c, &r, err);
    cli_rate_run_free(&r);
    cli_load_cache_free(&cache);
    free(c);
    return st;
}
