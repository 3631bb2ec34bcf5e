/* cli_plan_band.c - how sure a plan is: each deployment that serves the target rate served again
 * under the parameter draws of the uncertainty table (unc.h), with the same workload, each draw
 * judged against the SLO; the objective under each draw, and the winner against the runner-up
 * over the paired draws (unc.h's sim_unc_beat_prob and sim_unc_tie, as a sweep decides).
 * cli_plan.h, cli_plan_internal.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli_plan.h"
#include "cli_plan_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unc.h"

/* The serve band's key of the percentile nearest to pct (the band has the median, p90 and p99 of
 * each metric): "p90_ttft_ms"; *at receives that percentile. */
static void nearest_key(sim_metric m, double pct, char *buf, size_t len, double *at)
{
    static const double have[] = {50.0, 90.0, 99.0};
    int best = 0;
    for (int i = 1; i < 3; i++)
        if (fabs(have[i] - pct) < fabs(have[best] - pct))
            best = i;
    *at = have[best];
    if (best == 0)
        snprintf(buf, len, "median_%s_ms", sim_metric_name(m));
    else
        snprintf(buf, len, "p%.0f_%s_ms", have[best], sim_metric_name(m));
}

/* The band of key's draws into lo, hi (the nominal value both when the key has no draws). */
static void band_of_key(const cli_point_draws *d, const char *key, double nominal, double *lo,
                        double *hi)
{
    double h = nominal;
    const double *l = sim_unc_band_get(&d->band, key, &h);
    *lo = l ? *l : nominal;
    *hi = h;
}

sim_status cli_plan_band(const cli_opts *q, const cli_load_result *L,
                         const cli_point_serve_state *s, const cli_rate_search *cs,
                         cli_plan_row *r, sim_err *err)
{
    r->band_draws = 0;
    const int n = cli_point_draw_count(q, true);
    if (n <= 0)
        return SIM_OK;
    if (n > CLI_PLAN_MAX_DRAWS)
        return sim_fail(err, SIM_EINPUT, "--uncertainty: value %d, expected 0..%d for plan (the "
                                         "draws every row keeps for the decision)",
                        n, CLI_PLAN_MAX_DRAWS);
    /* the serve run's own options: the plan's rate, the SLO as goodput limits (capacity's probe) */
    cli_opts b = *q;
    if (q->slo)
        snprintf(b.goodput, sizeof b.goodput, "%s", q->slo);
    cli_point_draws d;
    sim_status st = cli_point_serve_band(&b, L, s, &d, err);
    if (st || d.n <= 0) {
        cli_point_draws_free(&d);
        return st;
    }
    /* each metric at the SLO percentile under each draw: the full run's value times the draw's
     * ratio at the nearest percentile the band has (the same percentile: the draw's own value) */
    double *pm = calloc((size_t)SIM_M_COUNT * (size_t)d.n, sizeof *pm);
    if (!pm) {
        cli_point_draws_free(&d);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    for (int m = 0; m < SIM_M_COUNT && !st; m++) {
        char key[40];
        double at, nom = 0.0;
        nearest_key((sim_metric)m, cs->pct, key, sizeof key, &at);
        const double *v = cli_point_draws_of(&d, key);
        if (sim_metrics_percentiles(&s->res, (sim_metric)m, &at, 1, &nom))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory computing percentiles");
        for (int i = 0; i < d.n && !st; i++)
            pm[m * d.n + i] = v && nom > 0.0 ? r->p_ms[m] * v[i] / nom : r->p_ms[m];
        r->p_lo[m] = r->p_hi[m] = r->p_ms[m];
        if (!st && v) {
            double *tmp = malloc((size_t)d.n * sizeof *tmp);
            if (!tmp) {
                st = sim_fail(err, SIM_EINTERNAL, "out of memory");
                break;
            }
            memcpy(tmp, pm + (ptrdiff_t)m * d.n, (size_t)d.n * sizeof *tmp);
            sim_unc_band_of(tmp, (size_t)d.n, &r->p_lo[m], &r->p_hi[m]);
            free(tmp);
        }
    }
    const double *good = cli_point_draws_of(&d, "request_goodput"),
                 *thr = cli_point_draws_of(&d, "request_throughput"),
                 *joules = cli_point_draws_of(&d, "joules_per_output_token");
    int met = 0;
    for (int i = 0; i < d.n && !st; i++) {
        bool ok = true;
        if (cs->goodput) /* vLLM's form: the share of requests under every limit */
            ok = good && thr && thr[i] > 0.0
                     ? fmin(1.0, good[i] / thr[i]) >= cs->pct / 100.0 - 1e-12
                     : r->attainment >= cs->pct / 100.0 - 1e-12;
        else
            for (int m = 0; m < SIM_M_COUNT; m++)
                ok = ok && (!(cs->slo.ms[m] > 0.0) || pm[m * d.n + i] <= cs->slo.ms[m]);
        r->draw_met[i] = ok;
        met += ok;
        r->draw_ttft_ms[i] = pm[SIM_M_TTFT * d.n + i];
        r->draw_joules[i] = joules ? joules[i] : r->joules_per_output_token;
    }
    free(pm);
    if (!st) {
        r->band_draws = d.n;
        r->slo_met_probability = (double)met / (double)d.n;
        band_of_key(&d, "usd_per_million_output_tokens", r->usd_per_million_output_tokens,
                    &r->usd_per_million_output_tokens_lo, &r->usd_per_million_output_tokens_hi);
        band_of_key(&d, "output_throughput", r->output_throughput, &r->output_throughput_lo,
                    &r->output_throughput_hi);
        band_of_key(&d, "joules_per_output_token", r->joules_per_output_token,
                    &r->joules_per_output_token_lo, &r->joules_per_output_token_hi);
        snprintf(r->band_basis, sizeof r->band_basis, "%s", d.band.basis);
    }
    cli_point_draws_free(&d);
    return st;
}

size_t cli_plan_objective_draws(const cli_plan_row *r, cli_plan_objective obj, double *out)
{
    const size_t n = r->band_draws > 0 && r->band_draws <= CLI_PLAN_MAX_DRAWS
                         ? (size_t)r->band_draws
                         : 0;
    for (size_t i = 0; i < n; i++) {
        const double v = obj == CLI_PLAN_COST     ? r->usd_per_hour
                         : obj == CLI_PLAN_GPUS   ? (double)r->gpus
                         : obj == CLI_PLAN_ENERGY ? r->draw_joules[i]
                                                  : r->draw_ttft_ms[i];
        out[i] = r->draw_met[i] ? v : INFINITY;
    }
    return n;
}

bool cli_plan_objective_band(const cli_plan_row *r, cli_plan_objective obj, double *lo,
                             double *hi)
{
    double v[CLI_PLAN_MAX_DRAWS];
    const size_t n = cli_plan_objective_draws(r, obj, v);
    if (!n)
        return false;
    sim_unc_band_of(v, n, lo, hi);
    return true;
}

bool cli_plan_decision(const cli_plan_row *w, const cli_plan_row *u, cli_plan_objective obj,
                       double *beat, bool *tie)
{
    double a[CLI_PLAN_MAX_DRAWS], b[CLI_PLAN_MAX_DRAWS];
    const size_t na = cli_plan_objective_draws(w, obj, a), nb = cli_plan_objective_draws(u, obj, b);
    if (!na || na != nb)
        return false;
    *beat = sim_unc_beat_prob(a, b, na, true);
    *tie = sim_unc_tie(a, b, na);
    return true;
}
