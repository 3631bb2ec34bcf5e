/* cli_plan_range.c - a plan over a rate range (--request-rate LO:HI): each deployment is sized
 * and ranked for the top of the range, HI (every rate of the range is then served: the fleet for
 * HI is the one to buy or reserve), and says what it needs at the bottom, LO (the fewest replicas,
 * or the smallest P:D, of the same kind that serve LO under the SLO: where an autoscaler can go
 * down to), and up to which rate the fleet sized for HI keeps meeting the SLO (its headroom in
 * requests/s: capacity's search over that fleet). cli_plan_internal.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli_plan.h"
#include "cli_plan_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One serve run of d at `rate`, judged against the SLO into *met (rr's scratch run). */
static sim_status probe(const plan_ctx *c, const cli_opts *d, double rate, cli_rate_run *rr,
                        bool *met, sim_err *err)
{
    cli_rate_search *cs = malloc(sizeof *cs);
    if (!cs)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_status st = cli_rate_init(d, cs, err);
    cli_point_serve_free(rr->s[1]);
    memset(rr->L[1], 0, sizeof *rr->L[1]);
    if (!st)
        st = cli_rate_probe_at(d, &c->cache, rate, cs, rr->L[1], rr->s[1], err);
    *met = !st && cs->probes[cs->n - 1].met;
    free(cs);
    return st;
}

/* d: q with r's instances as HI's search found them (n replicas, or P:D). */
static sim_status deployment(const cli_opts *q, const cli_plan_row *r, int64_t n, int64_t p,
                             int64_t dd, char *buf, size_t len, cli_opts *d, sim_err *err)
{
    *d = *q;
    if (r->disagg) {
        snprintf(buf, len, "%lld:%lld", (long long)p, (long long)dd);
        return cli_plan_set_flag(d, CLI_OPT_ID_DISAGG, buf, err);
    }
    snprintf(buf, len, "%lld", (long long)n);
    return n > 1 ? cli_plan_set_flag(d, CLI_OPT_ID_REPLICAS, buf, err) : SIM_OK;
}

sim_status cli_plan_range(const plan_ctx *c, const cli_opts *q, cli_rate_run *rr,
                          cli_plan_row *r, sim_err *err)
{
    const double lo = c->o->rate_low;
    const int64_t per = r->tp * r->dp * r->pp;
    char buf[48];
    cli_opts d;
    bool met = false;
    sim_status st = SIM_OK;
    if (r->disagg) { /* P:D in the order tried, none with more instances than HI's */
        for (int i = 0; i < CLI_PLAN_N_PD && !st && !met; i++) {
            const int64_t p = cli_plan_pd[i][0], dd = cli_plan_pd[i][1];
            if (p > r->prefill || dd > r->decode)
                continue;
            if (!(st = deployment(q, r, 1, p, dd, buf, sizeof buf, &d, err)))
                st = probe(c, &d, lo, rr, &met, err);
            if (met)
                r->prefill_at_rate_low = p, r->decode_at_rate_low = dd,
                r->gpus_at_rate_low = (p + dd) * per;
        }
    } else { /* replicas from what one instance's rate says for LO, up to HI's */
        const double r1 = r->instance_max_rate;
        int64_t n = isinf(r1) || !(r1 > 0.0) ? 1 : (int64_t)ceil(lo / r1 - 1e-9);
        n = n < 1 ? 1 : n > r->replicas ? r->replicas : n;
        for (; n <= r->replicas && !st && !met; n++) {
            if (!(st = deployment(q, r, n, 0, 0, buf, sizeof buf, &d, err)))
                st = probe(c, &d, lo, rr, &met, err);
            if (met)
                r->replicas_at_rate_low = n, r->gpus_at_rate_low = n * per;
        }
    }
    if (!st && !met) { /* latency not monotone in the rate: said, not hidden */
        r->status = CLI_PLAN_MISSED;
        snprintf(r->reason, sizeof r->reason,
                 "serves %g req/s under the SLO but not %g req/s, the range's bottom, with the "
                 "same deployment",
                 c->o->rate, lo);
        return SIM_OK;
    }
    /* the fleet sized for HI: the highest rate it meets the SLO at */
    cli_rate_search *cs = st ? NULL : malloc(sizeof *cs);
    if (!st && !cs)
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!st)
        st = deployment(q, r, r->replicas, r->prefill, r->decode, buf, sizeof buf, &d, err);
    if (!st)
        st = cli_rate_init(&d, cs, err);
    if (!st)
        st = cli_rate_search_max(&d, &c->cache, cs, rr, err);
    /* at least HI, a rate that was run and met: capacity's bracket can end below it where the
     * latency is not monotone in the rate (a disaggregated 1P:1D x TP 2 of a 1B model on L4s:
     * met at 80 req/s, the search's bracket ended at 68.8) */
    if (!st)
        r->max_request_rate = cs->best >= 0 && cs->lo > c->o->rate ? cs->lo : c->o->rate;
    free(cs);
    return st;
}
