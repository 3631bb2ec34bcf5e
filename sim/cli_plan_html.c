/* cli_plan_html.c - the plan's page (--html): the deployments that serve the rate as charts, the
 * report's text with the launch lines, and the winner served once more at the target rate with
 * each instance's run over time (cli_plan_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_plan.h"
#include "cli_plan_internal.h"
#include "cli_point.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts.h"
#include "html.h"

/* The winner's serving run at the rate, its instances' series (one engine's wrapped as a set). */
typedef struct winner_run {
    cli_load_result *L;
    cli_point_serve_state *s;
    sim_series_set one; /* a single instance's series as a set of one */
    const sim_series_set *set;
} winner_run;

static void winner_free(winner_run *w)
{
    if (w->s)
        cli_point_serve_free(w->s);
    free(w->s);
    free(w->L);
    sim_series_set_free(&w->one);
    memset(w, 0, sizeof *w);
}

/* Row w's deployment (its replicas or P:D) served at the plan's rate with the plan's workload,
 * recording each instance's run over time. */
static sim_status serve_winner(const plan_ctx *c, const cli_plan_row *w, winner_run *out,
                               sim_err *err)
{
    cli_plan_flags f;
    cli_opts q;
    sim_status st = cli_plan_cand_opts(c, &c->c[w->point], &f, &q, err);
    snprintf(f.replicas, sizeof f.replicas, "%lld", (long long)w->replicas);
    snprintf(f.disagg, sizeof f.disagg, "%lld:%lld", (long long)w->prefill, (long long)w->decode);
    if (!st && w->disagg)
        st = cli_plan_set_flag(&q, CLI_OPT_ID_DISAGG, f.disagg, err);
    else if (!st && w->replicas > 1)
        st = cli_plan_set_flag(&q, CLI_OPT_ID_REPLICAS, f.replicas, err);
    q.html = c->o->html; /* the serving run records its series when a page is asked for */
    out->L = calloc(1, sizeof *out->L);
    out->s = calloc(1, sizeof *out->s);
    if (!st && (!out->L || !out->s))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!st)
        st = cli_point_serve(&q, out->L, &c->cache, (uint64_t)q.seed, out->s, err);
    if (!st && out->s->instances) {
        out->set = out->s->instances;
    } else if (!st && out->s->series) {
        st = sim_series_set_init(&out->one, 1, NULL, err);
        if (!st) {
            out->one.s[0] = *out->s->series;
            out->set = &out->one;
        }
    }
    return st;
}

sim_status cli_plan_html(const plan_ctx *c, const cli_plan_report *rep, sim_err *err)
{
    const cli_opts *o = c->o;
    cli_plan_report tab = *rep;
    tab.json = false;
    tab.csv = false;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_status st = cli_plan_report_write(f, &tab, err);
    fclose(f);
    sim_chart_plan_point *pts = calloc(rep->n ? rep->n : 1, sizeof *pts);
    char(*groups)[288] = calloc(rep->n ? rep->n : 1, sizeof *groups);
    if (!st && (!pts || !groups))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_chart_plan ch = {.pts = pts, .pct = o->slo_percentile, .flags = o->cmdline};
    memcpy(ch.slo_ms, rep->slo.ms, sizeof ch.slo_ms);
    size_t win = rep->n, ok = 0;
    for (size_t i = 0; i < rep->n; i++)
        if (cli_plan_rankable(&rep->rows[i], rep->objective) &&
            (win == rep->n || cli_plan_better(&rep->rows[i], &rep->rows[win], rep->objective)))
            win = i;
    ch.winner = 0;
    for (size_t i = 0; !st && i < rep->n; i++) {
        const cli_plan_row *r = &rep->rows[i];
        if (r->status != CLI_PLAN_OK)
            continue;
        ok++;
        snprintf(groups[ch.n], sizeof groups[ch.n], "%s on %s", r->model, r->hw);
        sim_chart_plan_point *q = &pts[ch.n];
        q->group = groups[ch.n];
        char lay[CLI_PLAN_LAYOUT_LEN];
        cli_plan_layout(r, lay, sizeof lay);
        /* a label past the chart's field ends in "..." (the table names the row in full) */
        if (snprintf(q->label, sizeof q->label, "%s %s %s", r->engine, r->precision, lay) >=
            (int)sizeof q->label)
            memcpy(q->label + sizeof q->label - 4, "...", 4);
        q->gpus = (double)r->gpus;
        q->usd_per_hour = r->usd_per_hour;
        q->ttft_ms = r->p_ms[SIM_M_TTFT];
        q->tpot_ms = r->p_ms[SIM_M_TPOT];
        if (i == win)
            ch.winner = ch.n;
        ch.n++;
    }
    if (win == rep->n)
        ch.winner = ch.n;
    winner_run wr = {0};
    char wlabel[320] = "";
    if (!st && win < rep->n) {
        const cli_plan_row *w = &rep->rows[win];
        char lay[CLI_PLAN_LAYOUT_LEN];
        cli_plan_layout(w, lay, sizeof lay);
        if (snprintf(wlabel, sizeof wlabel, "%s %s %s on %s", w->engine, w->precision, lay,
                     w->hw) >= (int)sizeof wlabel)
            memcpy(wlabel + sizeof wlabel - 4, "...", 4);
        st = serve_winner(c, w, &wr, err);
        ch.winner_series = wr.set;
        ch.winner_prefill = w->disagg ? (int)w->prefill : 0;
        ch.winner_duration_ns = wr.s ? wr.s->res.duration_ns : 0;
        ch.winner_label = wlabel;
    }
    char cands[64], oks[64], rate[96];
    snprintf(cands, sizeof cands, "%zu", rep->n);
    snprintf(oks, sizeof oks, "%zu", ok);
    if (rep->rate_low > 0.0)
        snprintf(rate, sizeof rate, "%g-%g req/s (sized for %g)", rep->rate_low, rep->rate,
                 rep->rate);
    else
        snprintf(rate, sizeof rate, "%g req/s", rep->rate);
    sim_strbuf dec = {0};
    const bool has_dec = cli_plan_report_decision(rep, &dec) && dec.s && !dec.oom;
    const char *lines[] = {"Target rate", rate,     "SLO", rep->slo_text, "Objective",
                           cli_plan_objective_name(rep->objective), "Candidates", cands,
                           "Serve the rate under the SLO", oks, "Decision (80 % bands)",
                           has_dec ? dec.s : ""};
    const size_t n_lines = sizeof lines / sizeof lines[0] - (has_dec ? 0 : 2);
    if (!st)
        st = sim_html_plan(o->html, o->cmdline ? o->cmdline : "infersim plan", &ch, lines,
                           n_lines, text, err);
    sim_strbuf_free(&dec);
    winner_free(&wr);
    free(text);
    free(pts);
    free(groups);
    return st;
}

