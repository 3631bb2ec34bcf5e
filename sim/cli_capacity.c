/* cli_capacity.c - the capacity command: the highest request rate whose serving run meets an SLO.
 *
 * Every probe is one serve run (cli_point_serve) of the SAME workload: the same seed draws the
 * same prompts and lengths first and then the same gamma variates for the arrival gaps, whose
 * scale is 1 / rate (workload.c), so a probe at rate r has the arrivals of a probe at rate r0
 * times r0 / r (common random numbers; the search compares rates, not draws).
 *
 * The search: a probe with every request at t = 0 (rate inf) first: if it meets the SLO, every
 * rate does. Else its request throughput X (the deployment's saturated rate) is the first finite
 * probe; from there the rate doubles while met (or halves while missed) until one probe meets and
 * one misses, then bisection until the missed rate is within --rate-tolerance of the met one:
 * hi <= lo (1 + tol). The reported max_request_rate is lo, a rate that was run and met.
 *
 * A criterion: --slo ttft:MS,tpot:MS,e2el:MS holds when each named metric's --slo-percentile
 * over the run's requests is at most MS; --goodput (vLLM's form) holds when at least
 * --slo-percentile % of the requests meet every SLO (request_goodput / request_throughput).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_point.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report.h"

/* A run reaches its steady state when its arrivals span several request lifetimes: with fewer,
 * its latencies are those of the ramp-up (a batch that never fills), and the rate found is the
 * burst's, not the deployment's (measured: 8B on an H100, p90 TPOT <= 50 ms, 500 requests give
 * 25.8 req/s on one replica and 90.9 on two; 2,000 give 21.8 and 44.4, 4,000 21.0 and 42.3). */
#define CAP_STEADY_LIFETIMES 5.0
/* The rate halving goes down to: arrivals 20 request lifetimes apart, each request alone. */
#define CAP_ALONE_GAPS 20.0

enum {
    CAP_MAX_PROBES = 96,
    CAP_MAX_STEPS = 40 /* doublings or halvings of the bracket: 2^40 either side of X */
};

typedef struct cap_probe {
    double rate;                  /* req/s; INFINITY: every request at t = 0 */
    bool met;                     /* the SLO holds and the deployment keeps up */
    bool keeps_up;                /* the queueing delay does not grow over the run (queue_grows) */
    double value_ms[SIM_M_COUNT]; /* each SLO metric at the percentile; 0 where none is set */
    double attainment;            /* share of requests meeting every SLO */
    double mean_e2el_ms;
    double request_throughput;
} cap_probe;

typedef struct cap_search {
    sim_slo slo;
    bool goodput; /* vLLM's --goodput form: attainment >= percentile / 100 */
    double pct;   /* --slo-percentile */
    double tol;   /* --rate-tolerance */
    cap_probe probes[CAP_MAX_PROBES];
    int n;
    double lo, hi;   /* met at lo (0: none met), missed at hi (0: none missed) */
    int best;        /* the probe at lo, or -1 */
    bool converged;  /* hi <= lo (1 + tol), or every rate met */
    double min_rate; /* the lowest rate the halving went down to */
} cap_search;

/* Flags of serve that capacity does not take: its outputs are one run's, or the rate is searched. */
static const char *const refused[] = {"--request-rate",       "--trace",
                                      "--time-scale",         "--html",
                                      "--chrome-trace",       "--save-requests",
                                      "--save-result",        "--result-dir",
                                      "--result-filename",    "--trace-detail",
                                      "--trace-window",       "--trace-max-mb",
                                      "--percentile-metrics", "--metric-percentiles"};
enum { N_REFUSED = sizeof refused / sizeof refused[0] };

void cli_capacity_help(FILE *f, int argc, char **argv)
{
    (void)argc, (void)argv;
    cli_opt_usage(f, "capacity", CLI_OPT_CMD_SERVE | CLI_OPT_CMD_CAPACITY);
    fprintf(f,
            "serve's flags capacity refuses (it searches the rate and writes its own report):\n ");
    for (size_t i = 0; i < N_REFUSED; i++)
        fprintf(f, " %s", refused[i]);
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
                            refused[i]);
    if (cli_opt_given(o, "--max-concurrency"))
        return sim_fail(err, SIM_EINPUT,
                        "--max-concurrency: does not apply to capacity (the client would hold "
                        "back requests past the limit, out of every latency, so no rate would "
                        "look overloaded)");
    if (o->dataset_name && strcmp(o->dataset_name, "random") != 0 &&
        strcmp(o->dataset_name, "prefix_repetition") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--dataset-name: value '%s', expected random or prefix_repetition",
                        o->dataset_name);
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

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The median queueing delay (first scheduled - sent) of requests [a, b) in arrival order, ns;
 * scratch holds b - a values. */
static int64_t median_delay(const sim_engine_result *res, size_t a, size_t b, int64_t *scratch)
{
    size_t n = 0;
    for (size_t i = a; i < b; i++)
        if (res->seqs[i].first_sched_ns >= 0)
            scratch[n++] = res->seqs[i].first_sched_ns - res->seqs[i].send_ns;
    if (!n)
        return 0;
    qsort(scratch, n, sizeof *scratch, cmp_i64);
    return scratch[n / 2];
}

/* Whether a finite-rate run is overloaded: offered more than it serves, its queue grows all run
 * long, so a request's wait grows with its arrival (by (rate / X - 1) of the time since the
 * start at service rate X). A stable queue's wait is the same at every point of the run; the
 * last quarter's median is compared with the second quarter's (the first is the ramp-up). A wait
 * growing from 0 in proportion to the arrival time gives medians at 3/8 and 7/8 of the run, a
 * ratio of 7/3; the bound, 1.5 times plus four mean iterations of slack for a stable queue's
 * noise, sits between. A TPOT-only SLO is met under overload (the batch stays capped); this is
 * what makes such a rate unsustainable. */
static sim_status queue_grows(const sim_engine_result *res, bool *grows, sim_err *err)
{
    *grows = false;
    if (res->n < 8 || res->iterations <= 0)
        return SIM_OK;
    int64_t *scratch = malloc(res->n * sizeof *scratch);
    if (!scratch)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    size_t q = res->n / 4;
    double second = (double)median_delay(res, q, 2 * q, scratch);
    double last = (double)median_delay(res, res->n - q, res->n, scratch);
    double iter_ns = (double)res->duration_ns / (double)res->iterations;
    *grows = last > 1.5 * second + 4.0 * iter_ns;
    free(scratch);
    return SIM_OK;
}

/* One serve run at `rate` into s (freed by the caller), judged against the SLO. */
static sim_status probe(const cli_opts *o, double rate, cap_search *c, cli_load_result *L,
                        cli_point_serve_state *s, sim_err *err)
{
    if (c->n >= CAP_MAX_PROBES)
        return sim_fail(err, SIM_EINTERNAL, "capacity: more than %d probes", CAP_MAX_PROBES);
    cli_opts q = *o;
    q.rate = rate;
    if (o->slo) /* goodput under the same limits, for the attainment and the metrics */
        snprintf(q.goodput, sizeof q.goodput, "%s", o->slo);
    memset(L, 0, sizeof *L);
    sim_status st = cli_point_serve(&q, L, NULL, (uint64_t)o->seed, s, err);
    if (st)
        return st;
    cap_probe *p = &c->probes[c->n++];
    memset(p, 0, sizeof *p);
    p->rate = rate;
    p->request_throughput = s->m.request_throughput;
    p->mean_e2el_ms = s->m.dist[SIM_M_E2EL].mean;
    p->attainment = s->m.request_throughput > 0.0
                        ? fmin(1.0, s->m.request_goodput / s->m.request_throughput)
                        : 0.0;
    bool met = true;
    for (int m = 0; m < SIM_M_COUNT; m++) {
        if (!(c->slo.ms[m] > 0.0))
            continue;
        if (sim_metrics_percentiles(&s->res, (sim_metric)m, &c->pct, 1, &p->value_ms[m]))
            return sim_fail(err, SIM_EINTERNAL, "out of memory computing percentiles");
        met = met && p->value_ms[m] <= c->slo.ms[m];
    }
    /* the share is compared with the percentile as a fraction, to a part in 1e12 (an exact
     * 90 of 100 requests is 0.9 after two divisions) */
    p->met = c->goodput ? p->attainment >= c->pct / 100.0 - 1e-12 : met;
    bool grows = false;
    if ((st = queue_grows(&s->res, &grows, err)))
        return st;
    p->keeps_up = !grows;
    p->met = p->met && p->keeps_up;
    return SIM_OK;
}

typedef struct cap_run {
    cli_load_result *L[2];
    cli_point_serve_state *s[2]; /* [0]: the best met probe's run, [1]: scratch */
} cap_run;

/* Probes `rate`; a met probe at a higher rate than the best so far becomes the best. */
static sim_status step(const cli_opts *o, double rate, cap_search *c, cap_run *r, bool *met,
                       sim_err *err)
{
    cli_point_serve_free(r->s[1]);
    sim_status st = probe(o, rate, c, r->L[1], r->s[1], err);
    if (st)
        return st;
    *met = c->probes[c->n - 1].met;
    if (*met && (c->best < 0 || rate > c->lo)) {
        c->lo = rate;
        c->best = c->n - 1;
        cli_load_result *L = r->L[0];
        cli_point_serve_state *s = r->s[0];
        r->L[0] = r->L[1], r->s[0] = r->s[1];
        r->L[1] = L, r->s[1] = s;
    } else if (!*met && (c->hi == 0.0 || rate < c->hi)) {
        c->hi = rate;
    }
    return SIM_OK;
}

static sim_status search(const cli_opts *o, cap_search *c, cap_run *r, sim_err *err)
{
    bool met;
    sim_status st = step(o, INFINITY, c, r, &met, err);
    if (st || met) {
        c->converged = true;
        return st;
    }
    c->hi = 0.0; /* a missed inf bounds nothing finite */
    double x = c->probes[0].request_throughput;
    if (!(x > 0.0) || !isfinite(x))
        return sim_fail(err, SIM_EINTERNAL, "capacity: the saturated run completed nothing");
    /* the lowest rate a workload of N requests may have (workload.h), with room */
    double floor_rate = 2.0 * (double)o->num_prompts / SIM_ARRIVAL_MAX_S;
    double rate = x;
    if ((st = step(o, rate, c, r, &met, err)))
        return st;
    for (int k = 0; k < CAP_MAX_STEPS && met; k++)
        if ((st = step(o, rate *= 2.0, c, r, &met, err)))
            return st;
    /* halving stops where requests no longer overlap: a mean gap of CAP_ALONE_GAPS request
     * lifetimes; a lower rate runs each request alone just the same */
    for (int k = 0; k < CAP_MAX_STEPS && c->best < 0 && rate / 2.0 >= floor_rate &&
                    1e3 / rate < CAP_ALONE_GAPS * c->probes[c->n - 1].mean_e2el_ms;
         k++)
        if ((st = step(o, rate /= 2.0, c, r, &met, err)))
            return st;
    c->min_rate = c->best < 0 ? rate : c->lo;
    if (c->best < 0 || c->hi == 0.0)
        return SIM_OK; /* no rate met, or every finite rate tried did */
    while (c->hi > c->lo * (1.0 + c->tol))
        if ((st = step(o, 0.5 * (c->lo + c->hi), c, r, &met, err)))
            return st;
    c->converged = true;
    return SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* The report */

static const char *const slo_keys[SIM_M_COUNT] = {"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"};

/* "p90_ttft_ms": vLLM's key of a metric's percentile. */
static void pct_key(const cap_search *c, int m, char *buf, size_t len)
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

static const char *summary(const cap_search *c, char *buf, size_t len)
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

/* Whether the best run's arrivals span CAP_STEADY_LIFETIMES mean E2E latencies. */
static bool steady(const cap_search *c, const cap_run *r)
{
    const sim_serve_metrics *m = &r->s[0]->m;
    if (!r->s[0]->w)
        return false;
    double span_s = (double)r->s[0]->w->n / c->lo;
    return span_s >= CAP_STEADY_LIFETIMES * m->dist[SIM_M_E2EL].mean / 1e3;
}

/* The serve report of the best run (its metrics, price and GPUs). */
static sim_serve_report best_report(const cap_search *c, const cap_run *r)
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

static cJSON *report_json(const cap_search *c, const cap_run *r)
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
        const cap_probe *p = &c->probes[i];
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

static sim_status write_table(FILE *f, const cap_search *c, const cap_run *r)
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
        const cap_probe *p = &c->probes[i];
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
static void write_csv(FILE *f, const cap_search *c)
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
        const cap_probe *p = &c->probes[i];
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

static sim_status write_report(const cli_opts *o, FILE *out, const cap_search *c, const cap_run *r,
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

sim_status cli_capacity_cmd(const cli_opts *o, FILE *out, sim_err *err)
{
    sim_status st = check_flags(o, err);
    if (st)
        return st;
    cap_search *c = calloc(1, sizeof *c);
    cap_run r = {{calloc(1, sizeof *r.L[0]), calloc(1, sizeof *r.L[1])},
                 {calloc(1, sizeof *r.s[0]), calloc(1, sizeof *r.s[1])}};
    if (!c || !r.L[0] || !r.L[1] || !r.s[0] || !r.s[1])
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!st) {
        c->best = -1;
        c->pct = o->slo_percentile;
        c->tol = o->rate_tolerance;
        c->goodput = !o->slo;
        const char *text = o->slo ? o->slo : o->goodput;
        if (sim_slo_parse(text, &c->slo, err))
            st = sim_fail(err, SIM_EINPUT,
                          "%s: value '%s', expected ttft:MS, tpot:MS or e2el:MS with MS > 0, "
                          "comma-separated (e.g. %s ttft:500,tpot:50)",
                          o->slo ? "--slo" : "--goodput", text, o->slo ? "--slo" : "--goodput");
    }
    if (!st)
        st = search(o, c, &r, err);
    if (!st && o->warn && c->best >= 0 && isfinite(c->lo) && r.s[0]->w && !steady(c, &r))
        fprintf(o->warn,
                "infersim: warning: at %.6g req/s the %zu requests arrive over %.3g s, under %g "
                "times a request's mean E2EL (%.3g s): the latencies are the ramp-up's, not the "
                "steady state's; raise --num-prompts\n",
                c->lo, r.s[0]->w->n, (double)r.s[0]->w->n / c->lo, CAP_STEADY_LIFETIMES,
                r.s[0]->m.dist[SIM_M_E2EL].mean / 1e3);
    if (!st)
        st = write_report(o, out, c, &r, err);
    for (int i = 0; i < 2; i++) {
        if (r.s[i])
            cli_point_serve_free(r.s[i]);
        free(r.s[i]);
        free(r.L[i]);
    }
    free(c);
    return st;
}
