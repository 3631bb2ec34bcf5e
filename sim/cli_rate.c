/* cli_rate.c - the highest request rate whose serving run meets an SLO (cli_rate.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_rate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sim_status cli_rate_init(const cli_opts *o, cli_rate_search *c, sim_err *err)
{
    memset(c, 0, sizeof *c);
    c->best = -1;
    c->pct = o->slo_percentile;
    c->tol = o->rate_tolerance;
    c->goodput = !o->slo;
    const char *text = o->slo ? o->slo : o->goodput;
    if (sim_slo_parse(text, &c->slo, err))
        return sim_fail(err, SIM_EINPUT,
                        "%s: value '%s', expected ttft:MS, tpot:MS or e2el:MS with MS > 0, "
                        "comma-separated (e.g. %s ttft:500,tpot:50)",
                        o->slo ? "--slo" : "--goodput", text, o->slo ? "--slo" : "--goodput");
    return SIM_OK;
}

sim_status cli_rate_run_alloc(cli_rate_run *r, sim_err *err)
{
    for (int i = 0; i < 2; i++) {
        r->L[i] = calloc(1, sizeof *r->L[i]);
        r->s[i] = calloc(1, sizeof *r->s[i]);
    }
    if (!r->L[0] || !r->L[1] || !r->s[0] || !r->s[1]) {
        cli_rate_run_free(r);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    return SIM_OK;
}

void cli_rate_run_free(cli_rate_run *r)
{
    for (int i = 0; i < 2; i++) {
        if (r->s[i])
            cli_point_serve_free(r->s[i]);
        free(r->s[i]);
        free(r->L[i]);
        r->s[i] = NULL;
        r->L[i] = NULL;
    }
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
    for (size_t i = a; i < b; i++) {
        const sim_req_result r = sim_engine_req(res, i);
        if (r.first_sched_ns >= 0)
            scratch[n++] = r.first_sched_ns - r.send_ns;
    }
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
sim_status cli_rate_probe_at(const cli_opts *o, const cli_load_cache *cache, double rate,
                             cli_rate_search *c, cli_load_result *L, cli_point_serve_state *s,
                             sim_err *err)
{
    if (c->n >= CLI_RATE_MAX_PROBES)
        return sim_fail(err, SIM_EINTERNAL, "capacity: more than %d probes", CLI_RATE_MAX_PROBES);
    cli_opts q = *o;
    q.rate = rate;
    q.html = NULL; /* capacity's and plan's pages chart the probes, not a run over time */
    if (o->slo) /* goodput under the same limits, for the attainment and the metrics */
        snprintf(q.goodput, sizeof q.goodput, "%s", o->slo);
    memset(L, 0, sizeof *L);
    sim_status st = cli_point_serve(&q, L, cache, (uint64_t)o->seed, s, err);
    if (st)
        return st;
    cli_rate_probe *p = &c->probes[c->n++];
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

/* Probes `rate`; a met probe at a higher rate than the best so far becomes the best. */
static sim_status step(const cli_opts *o, const cli_load_cache *cache, double rate,
                       cli_rate_search *c, cli_rate_run *r, bool *met, sim_err *err)
{
    cli_point_serve_free(r->s[1]);
    sim_status st = cli_rate_probe_at(o, cache, rate, c, r->L[1], r->s[1], err);
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

sim_status cli_rate_search_max(const cli_opts *o, const cli_load_cache *cache, cli_rate_search *c,
                               cli_rate_run *r, sim_err *err)
{
    bool met;
    sim_status st = step(o, cache, INFINITY, c, r, &met, err);
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
    if ((st = step(o, cache, rate, c, r, &met, err)))
        return st;
    for (int k = 0; k < CLI_RATE_MAX_STEPS && met; k++)
        if ((st = step(o, cache, rate *= 2.0, c, r, &met, err)))
            return st;
    /* halving stops where requests no longer overlap: a mean gap of CLI_RATE_ALONE_GAPS request
     * lifetimes; a lower rate runs each request alone just the same */
    for (int k = 0; k < CLI_RATE_MAX_STEPS && c->best < 0 && rate / 2.0 >= floor_rate &&
                    1e3 / rate < CLI_RATE_ALONE_GAPS * c->probes[c->n - 1].mean_e2el_ms;
         k++)
        if ((st = step(o, cache, rate /= 2.0, c, r, &met, err)))
            return st;
    c->min_rate = c->best < 0 ? rate : c->lo;
    if (c->best < 0 || c->hi == 0.0)
        return SIM_OK; /* no rate met, or every finite rate tried did */
    while (c->hi > c->lo * (1.0 + c->tol))
        if ((st = step(o, cache, 0.5 * (c->lo + c->hi), c, r, &met, err)))
            return st;
    c->converged = true;
    return SIM_OK;
}

