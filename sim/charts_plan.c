/* charts_plan.c - the pictures of a capacity search (a metric against the request rate) and of a
 * plan (its deployments' cost against latency, the cheapest per model and device). */
#include "charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts_internal.h"

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#bcbd22"};
enum { N_PALETTE = sizeof palette / sizeof palette[0] };

void sim_chart_capacity_metric(sim_svg *s, const sim_chart_capacity *c, sim_metric m)
{
    char title[128], yl[64], tip[160];
    snprintf(title, sizeof title, "p%g %s against the request rate", c->pct, sim_metric_name(m));
    snprintf(yl, sizeof yl, "%s at p%g (ms)", sim_metric_name(m), c->pct);
    sim_svg_begin(s, W, H, title);
    sim_svg_title(s, W, title, c->flags);
    sim_svg_frame fr = sim_svg_plot_area(W, H);
    double lo = INFINITY, hi = 0.0, ymax = c->slo_ms[m];
    for (size_t i = 0; i < c->n; i++)
        if (isfinite(c->rate[i]) && c->rate[i] > 0.0) {
            lo = fmin(lo, c->rate[i]);
            hi = fmax(hi, c->rate[i]);
            if (c->value[m])
                ymax = max2(ymax, c->value[m][i]);
        }
    if (!(hi > 0.0))
        lo = 0.5, hi = 1.0;
    bool log_axis = hi / lo > 30.0;
    sim_scale x = log_axis ? sim_scale_log(lo / 1.25, hi * 1.25, fr.x0, fr.x1)
                           : sim_scale_linear(0.0, hi * 1.08, fr.x0, fr.x1);
    /* a latency past 4 x the SLO is clipped to the top (marked ^): the points near the line keep
     * their room */
    double top = c->slo_ms[m] > 0.0 ? fmin(ymax, 4.0 * c->slo_ms[m]) : ymax;
    sim_scale y = sim_scale_linear(0.0, (top > 0 ? top : 1.0) * 1.08, fr.y1, fr.y0);
    sim_svg_axes(s, &fr, &x, &y, log_axis ? "request rate (req/s, log scale)" : "request rate (req/s)",
                 yl);
    if (c->slo_ms[m] > 0.0) {
        double sy = sim_scale_map(&y, c->slo_ms[m]);
        sim_svg_line(s, fr.x0, sy, fr.x1, sy, SLO_COLOUR, 2, "6 3");
        snprintf(tip, sizeof tip, "SLO %.4g ms", c->slo_ms[m]);
        sim_svg_text(s, fr.x0 + 4, sy - 4, SIM_SVG_START, 10.5, false, 0, tip);
    }
    if (c->max_rate > 0.0 && isfinite(c->max_rate)) {
        double sx = sim_scale_map(&x, c->max_rate);
        sim_svg_line(s, sx, fr.y0, sx, fr.y1, "#2ca02c", 1.5, "3 3");
        snprintf(tip, sizeof tip, "max rate %.4g req/s", c->max_rate);
        sim_svg_text(s, sx + 4, fr.y0 + 12, SIM_SVG_START, 10.5, true, 0, tip);
    }
    /* the probes in rate order, joined */
    size_t *ord = malloc((c->n ? c->n : 1) * sizeof *ord);
    double *px = malloc((c->n ? c->n : 1) * sizeof *px), *py = malloc((c->n ? c->n : 1) * sizeof *py);
    size_t k = 0;
    for (size_t i = 0; ord && px && py && c->value[m] && i < c->n; i++)
        if (isfinite(c->rate[i]) && c->rate[i] > 0.0) {
            size_t j = k++;
            while (j > 0 && c->rate[ord[j - 1]] > c->rate[i]) {
                ord[j] = ord[j - 1];
                j--;
            }
            ord[j] = i;
        }
    for (size_t j = 0; j < k; j++) {
        px[j] = sim_scale_map(&x, c->rate[ord[j]]);
        py[j] = sim_scale_map(&y, fmin(c->value[m][ord[j]], top * 1.08));
    }
    if (k > 1)
        sim_svg_polyline(s, px, py, k, "#777777", 1.2, NULL, "probes");
    for (size_t j = 0; j < k; j++) {
        size_t i = ord[j];
        double v = c->value[m][i];
        snprintf(tip, sizeof tip, "%.4g req/s: %s %.4g ms, %s", c->rate[i], sim_metric_name(m), v,
                 c->met[i] ? "met" : "missed");
        sim_svg_circle(s, px[j], py[j], 5, c->met[i] ? "#2ca02c" : "#d62728", "pt", tip);
        if (v > top * 1.08)
            sim_svg_text(s, px[j], py[j] - 8, SIM_SVG_MIDDLE, 10, true, 0, "^");
    }
    free(ord);
    free(px);
    free(py);
    sim_svg_key keys[4] = {{"met", "#2ca02c", false},
                           {"missed (or queue grows)", "#d62728", false},
                           {"SLO", SLO_COLOUR, true},
                           {"rate found", "#2ca02c", true}};
    sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, keys, 4);
    sim_svg_end(s);
}

/* The colour of a plan point's group (the order groups first appear in). */
static const char *group_colour(const sim_chart_plan *p, size_t i)
{
    size_t g = 0;
    for (size_t k = 0; k < i; k++) {
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++)
            seen = strcmp(p->pts[j].group, p->pts[k].group) == 0;
        if (!seen && strcmp(p->pts[k].group, p->pts[i].group) == 0)
            return palette[g % N_PALETTE];
        g += !seen;
    }
    return palette[g % N_PALETTE];
}

void sim_chart_plan_cost(sim_svg *s, const sim_chart_plan *p, bool by_ttft)
{
    const char *metric = by_ttft ? "TTFT" : "TPOT";
    char title[128], xl[64], tip[256];
    snprintf(title, sizeof title, "Deployments that serve the rate: US$ per hour against %s",
             metric);
    snprintf(xl, sizeof xl, "%s at p%g (ms)", metric, p->pct);
    sim_svg_begin(s, W, H, title);
    sim_svg_title(s, W, title, p->flags);
    sim_svg_frame fr = sim_svg_plot_area(W, H);
    double xmax = p->slo_ms[by_ttft ? SIM_M_TTFT : SIM_M_TPOT], ymax = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        xmax = max2(xmax, by_ttft ? p->pts[i].ttft_ms : p->pts[i].tpot_ms);
        ymax = max2(ymax, p->pts[i].usd_per_hour);
    }
    sim_scale x = sim_scale_linear(0.0, (xmax > 0 ? xmax : 1.0) * 1.05, fr.x0, fr.x1);
    sim_scale y = sim_scale_linear(0.0, (ymax > 0 ? ymax : 1.0) * 1.08, fr.y1, fr.y0);
    sim_svg_axes(s, &fr, &x, &y, xl, "US$ per hour (the fleet)");
    double slo = p->slo_ms[by_ttft ? SIM_M_TTFT : SIM_M_TPOT];
    if (slo > 0.0) {
        double sx = sim_scale_map(&x, slo);
        sim_svg_line(s, sx, fr.y0, sx, fr.y1, SLO_COLOUR, 2, "6 3");
        snprintf(tip, sizeof tip, "SLO %.4g ms", slo);
        sim_svg_text(s, sx + 4, fr.y0 + 12, SIM_SVG_START, 10.5, false, 0, tip);
    }
    sim_svg_key keys[N_PALETTE + 1];
    size_t nk = 0;
    for (size_t i = 0; i < p->n; i++) {
        const sim_chart_plan_point *q = &p->pts[i];
        double v = by_ttft ? q->ttft_ms : q->tpot_ms;
        snprintf(tip, sizeof tip, "%s: %s, %.0f GPUs, $%.2f/hour, %s %.4g ms", q->group, q->label,
                 q->gpus, q->usd_per_hour, metric, v);
        const char *col = group_colour(p, i);
        sim_svg_circle(s, sim_scale_map(&x, v), sim_scale_map(&y, q->usd_per_hour), 4.5, col, "pt",
                       tip);
        bool seen = false;
        for (size_t k = 0; k < nk && !seen; k++)
            seen = strcmp(keys[k].label, q->group) == 0;
        if (!seen && nk < N_PALETTE)
            keys[nk++] = (sim_svg_key){q->group, col, false};
    }
    if (p->winner < p->n) {
        const sim_chart_plan_point *q = &p->pts[p->winner];
        double cx = sim_scale_map(&x, by_ttft ? q->ttft_ms : q->tpot_ms);
        double cy = sim_scale_map(&y, q->usd_per_hour);
        sim_svg_raw(s,
                    "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"9\" fill=\"none\" stroke=\"#222\" "
                    "stroke-width=\"2\" class=\"best\"/>",
                    cx, cy);
        snprintf(tip, sizeof tip, "winner: %s, %s", q->group, q->label);
        bool left = cx > (fr.x0 + fr.x1) / 2;
        sim_svg_text(s, cx + (left ? -12 : 12), cy - 4, left ? SIM_SVG_END : SIM_SVG_START, 11,
                     true, 0, tip);
    }
    sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, keys, nk);
    sim_svg_end(s);
}

void sim_chart_plan_groups(sim_svg *s, const sim_chart_plan *p)
{
    const char *title = "The cheapest deployment of each model on each device";
    sim_svg_begin(s, W, H, title);
    sim_svg_title(s, W, title, p->flags);
    sim_svg_frame fr = sim_svg_plot_area(W, H);
    const char *names[64];
    double best[64], gpus[64];
    size_t ng = 0;
    for (size_t i = 0; i < p->n; i++) {
        size_t g = 0;
        while (g < ng && strcmp(names[g], p->pts[i].group) != 0)
            g++;
        if (g == ng) {
            if (ng == 64)
                continue;
            names[ng] = p->pts[i].group, best[ng] = INFINITY, gpus[ng++] = 0;
        }
        if (p->pts[i].usd_per_hour < best[g])
            best[g] = p->pts[i].usd_per_hour, gpus[g] = p->pts[i].gpus;
    }
    double ymax = 0.0;
    for (size_t g = 0; g < ng; g++)
        ymax = max2(ymax, best[g]);
    sim_scale y = sim_scale_linear(0.0, (ymax > 0 ? ymax : 1.0) * 1.12, fr.y1, fr.y0);
    sim_svg_axes(s, &fr, NULL, &y, "", "US$ per hour");
    sim_svg_xcats(s, &fr, names, ng, "model on device");
    double band = ng ? (fr.x1 - fr.x0) / (double)ng : 0.0;
    char tip[160];
    for (size_t g = 0; g < ng; g++) {
        double top = sim_scale_map(&y, best[g]);
        snprintf(tip, sizeof tip, "%s: $%.2f/hour on %.0f GPUs", names[g], best[g], gpus[g]);
        sim_svg_rect(s, fr.x0 + band * ((double)g + 0.2), top, band * 0.6, fr.y1 - top,
                     palette[g % N_PALETTE], "bar", tip);
        snprintf(tip, sizeof tip, "$%.2f, %.0f GPUs", best[g], gpus[g]);
        sim_svg_text(s, fr.x0 + band * ((double)g + 0.5), top - 5, SIM_SVG_MIDDLE, 10.5, false, 0,
                     tip);
    }
    sim_svg_end(s);
}
