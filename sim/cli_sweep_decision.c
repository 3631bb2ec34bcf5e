/* cli_sweep_decision.c - how sure a sweep's decision is: the winner against the runner-up over
 * the paired parameter draws (cli_sweep_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_sweep_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "unc.h"

/* The probability over the paired draws that row a beats row b (NAN without draws). */
static double beat(const sweep_ctx *c, const sim_sweep_row *a, const sim_sweep_row *b)
{
    if (!a->draws || !b->draws || a->n_draws != b->n_draws)
        return NAN;
    return sim_unc_beat_prob(a->draws, b->draws, (size_t)a->n_draws,
                             c->min_cost || c->min_energy);
}

/* The objective's value of a row, its unit's prefix and suffix in the decision's text. */
static double objective_of(const sweep_ctx *c, const sim_sweep_row *r, const char **pre,
                           const char **post)
{
    *pre = c->min_cost ? "$" : "";
    *post = c->min_cost     ? ""
            : c->min_energy ? " J per output token, an estimate"
                            : " tok/s per GPU";
    return c->min_cost     ? r->usd_per_million_output_tokens
           : c->min_energy ? r->joules_per_output_token
                           : r->tput_per_gpu;
}

/* A tie: the 80 % band of the paired ratio winner / runner-up over the draws holds 1
 * (sim_unc_tie), so the draws do not say which is ahead. */
static bool tied(const sim_sweep_row *w, const sim_sweep_row *r)
{
    if (!w->draws || !r->draws || w->n_draws != r->n_draws || w->n_draws < 1)
        return false;
    return sim_unc_tie(w->draws, r->draws, (size_t)w->n_draws);
}

/* How sure the decision is: the winner against the runner-up over the draws ("" without). */
void cli_sweep_decision_text(const sweep_ctx *c, const sim_sweep_row *rows, size_t n,
                             sim_strbuf *b)
{
    if (!c->bands || c->winner >= n || c->runner >= n)
        return;
    const sim_sweep_row *w = &rows[c->winner], *r = &rows[c->runner];
    const double p = beat(c, w, r);
    if (isnan(p))
        return;
    const char *pre, *post;
    const double x = objective_of(c, r, &pre, &post);
    char other[160];
    snprintf(other, sizeof other, "point %zu (%s%.4g%s)", r->point, pre, x, post);
    sim_unc_decision_text(p, tied(w, r), w->n_draws, other, b);
    if (c->min_energy) /* the power estimate's error is in the draws, and it is large */
        sim_strbuf_printf(b, " (the energy draws carry the power estimate's error, sigma %.2f "
                             "from few measured rows: tools/data/uncertainty.csv)",
                          c->power_sigma);
}

/* The decision's columns of a row (--uncertainty on): "winner" or "runner_up" (else empty),
 * the probability over the draws that it beats the other, whether the two tie, the other's
 * point. */
void cli_sweep_decision_cols(const sweep_ctx *c, const sim_sweep_row *rows, size_t n, size_t i,
                             sim_strbuf *b)
{
    /* a shard does not see the other shards' points: its rows leave the decision empty (the
     * whole sweep's summary, or a sweep run whole, makes it) */
    const bool whole = c->shard.count <= 1;
    const bool w = whole && i == c->winner && c->runner < n,
               r = whole && i == c->runner && c->winner < n;
    const sim_sweep_row *me = &rows[i], *other = w ? &rows[c->runner] : r ? &rows[c->winner] : NULL;
    const double p = other ? beat(c, me, other) : NAN;
    const bool has = other && !isnan(p);
    const bool tie = has && (w ? tied(me, other) : tied(other, me));
    if (c->jsonl) {
        sim_strbuf_printf(b, ",\"decision\":");
        if (has)
            sim_strbuf_printf(b, "\"%s\",\"beat_probability\":%.4g,\"decision_tie\":%s,"
                                 "\"decision_versus_point\":%zu",
                              w ? "winner" : "runner_up", p, tie ? "true" : "false",
                              other->point);
        else
            sim_strbuf_printf(b, "null,\"beat_probability\":null,\"decision_tie\":null,"
                                 "\"decision_versus_point\":null");
    } else if (has) {
        sim_strbuf_printf(b, ",%s,%.4g,%s,%zu", w ? "winner" : "runner_up", p,
                          tie ? "true" : "false", other->point);
    } else {
        sim_strbuf_printf(b, ",,,,");
    }
}

void cli_sweep_decision_line(FILE *f, const sweep_ctx *c, const sim_sweep_row *rows, size_t n)
{
    sim_strbuf b = {0};
    cli_sweep_decision_text(c, rows, n, &b);
    if (b.s && !b.oom)
        fprintf(f, "  %s\n", b.s);
    sim_strbuf_free(&b);
}

