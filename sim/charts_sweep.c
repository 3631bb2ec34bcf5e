/* charts_sweep.c - the pictures of a sweep (the Pareto frontier, one dimension of the grid) and
 * of a validation (predicted against measured). */
#include "charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Sweeps */

size_t sim_chart_sweep_best(const sim_chart_sweep *sw)
{
    if (sw->best_given)
        return sw->best < sw->n ? sw->best : sw->n;
    size_t b = sim_sweep_best(sw->rows, sw->n);
    return sw->has_slo ? b : sw->n;
}

/* The latency axis: linear from 0, or logarithmic when the points span more than LOG_SPAN (so
 * that the points under a tight SLO are not squeezed into one pixel column by a slow one). */
enum { LOG_SPAN = 30 };
static sim_scale latency_axis(const double *v, const bool *use, size_t n, double slo,
                              const sim_svg_frame *fr, bool *log_axis)
{
    double lo = INFINITY, hi = 0.0;
    for (size_t i = 0; i < n; i++)
        if (use[i] && v[i] > 0.0) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    hi = fmax(hi, slo);
    if (slo > 0.0)
        lo = fmin(lo, slo);
    *log_axis = isfinite(lo) && lo > 0.0 && hi / lo > LOG_SPAN;
    if (*log_axis)
        return sim_scale_log(lo / 1.25, hi * 1.25, fr->x0, fr->x1);
    return sim_scale_linear(0.0, (hi > 0.0 ? hi : 1.0) * 1.05, fr->x0, fr->x1);
}

/* The label of the highlighted point: "best by cost: point 8, $1.825/Mtok". */
static void best_tip(const sim_chart_sweep *sw, const sim_sweep_row *r, char *buf, size_t len)
{
    const char *o = sw->objective ? sw->objective : "throughput";
    if (strcmp(o, "cost") == 0)
        snprintf(buf, len, "best by cost: point %zu, $%.4g per Mtok", r->point,
                 r->usd_per_million_output_tokens);
    else if (strcmp(o, "energy") == 0)
        snprintf(buf, len, "best by energy: point %zu, %.4g J per token", r->point,
                 r->joules_per_output_token);
    else
        snprintf(buf, len, "best: point %zu, %.4g tok/s/GPU", r->point, r->tput_per_gpu);
}

void sim_chart_pareto(sim_svg *s, const sim_chart_sweep *sw, bool by_ttft)
{
    const char *metric = by_ttft ? "TTFT" : "TPOT";
    char title[128], xl[64];
    snprintf(title, sizeof title, "Output throughput per GPU against %s, with the Pareto front",
             metric);
    snprintf(xl, sizeof xl, "%s at p%d (ms)", metric, sw->pct);
    sim_svg_begin(s, W, H, title);
    sim_svg_title(s, W, title, sw->flags);
    sim_svg_frame fr = sim_svg_plot_area(W, H);
    /* the frontier is computed on whichever latency is plotted */
    sim_sweep_row *rows = calloc(sw->n ? sw->n : 1, sizeof *rows);
    bool *front = calloc(sw->n ? sw->n : 1, sizeof *front);
    size_t *order = calloc(sw->n ? sw->n : 1, sizeof *order);
    if (!rows || !front || !order) {
        free(rows);
        free(front);
        free(order);
        sim_svg_end(s);
        return;
    }
    double xmax = 0.0, ymax = 0.0;
    for (size_t i = 0; i < sw->n; i++) {
        rows[i] = sw->rows[i];
        if (by_ttft)
            rows[i].tpot_ms = sw->rows[i].ttft_ms;
        if (rows[i].ok) {
            xmax = max2(xmax, rows[i].tpot_ms);
            ymax = max2(ymax, rows[i].tput_per_gpu);
        }
    }
    double slo = sw->has_slo ? sw->slo_ms[by_ttft ? SIM_M_TTFT : SIM_M_TPOT] : 0.0;
    double *lat = malloc((sw->n ? sw->n : 1) * sizeof *lat);
    bool *use = calloc(sw->n ? sw->n : 1, sizeof *use);
    for (size_t i = 0; lat && use && i < sw->n; i++)
        lat[i] = rows[i].tpot_ms, use[i] = rows[i].ok;
    bool log_axis = false;
    sim_scale x = lat && use ? latency_axis(lat, use, sw->n, slo, &fr, &log_axis)
                             : sim_scale_linear(0.0, max2(xmax, slo) * 1.05, fr.x0, fr.x1);
    free(lat);
    free(use);
    if (log_axis)
        snprintf(xl, sizeof xl, "%s at p%d (ms, log scale)", metric, sw->pct);
    sim_scale y = sim_scale_linear(0.0, ymax * 1.08, fr.y1, fr.y0);
    sim_svg_axes(s, &fr, &x, &y, xl, "output throughput (tok/s per GPU)");
    if (slo > 0.0) {
        double sx = sim_scale_map(&x, slo);
        sim_svg_rect(s, sx, fr.y0, fr.x1 - sx, fr.y1 - fr.y0, "#fbe3e3", NULL, NULL);
        sim_svg_line(s, sx, fr.y0, sx, fr.y1, SLO_COLOUR, 2, "6 3");
        char t[48];
        snprintf(t, sizeof t, "SLO %.4g ms", slo);
        sim_svg_text(s, sx + 4, fr.y0 + 12, SIM_SVG_START, 10.5, false, 0, t);
    }
    size_t nf = sim_sweep_pareto(rows, sw->n, front, order);
    double *fx = malloc((nf ? nf : 1) * sizeof *fx), *fy = malloc((nf ? nf : 1) * sizeof *fy);
    for (size_t k = 0; fx && fy && k < nf; k++) {
        fx[k] = sim_scale_map(&x, rows[order[k]].tpot_ms);
        fy[k] = sim_scale_map(&y, rows[order[k]].tput_per_gpu);
    }
    if (fx && fy && nf)
        sim_svg_polyline(s, fx, fy, nf, "#333333", 1.8, NULL, "front");
    free(fx);
    free(fy);
    char label[512], tip[720];
    size_t guessed = 0;
    for (size_t i = 0; i < sw->n; i++) {
        if (!rows[i].ok)
            continue;
        sim_grid_label(sw->grid, rows[i].point, label, sizeof label);
        snprintf(tip, sizeof tip, "point %zu (%s): %s %.4g ms, %.4g tok/s per GPU%s%s%s",
                 rows[i].point, label, metric, rows[i].tpot_ms, rows[i].tput_per_gpu,
                 front[i] ? ", on the front" : "", rows[i].meets_slo ? ", meets the SLO" : "",
                 rows[i].hw_default_only ? ", device efficiencies default-only (unmeasured)"
                                         : "");
        /* a point whose device has no measured efficiency is drawn in orange */
        const char *fill = rows[i].hw_default_only          ? "#ff7f0e"
                           : sw->has_slo && rows[i].meets_slo ? "#2ca02c"
                                                              : "#9d9d9d";
        guessed += rows[i].hw_default_only;
        double cx = sim_scale_map(&x, rows[i].tpot_ms),
               cy = sim_scale_map(&y, rows[i].tput_per_gpu);
        sim_svg_circle(s, cx, cy, front[i] ? 5.5 : 4, fill, "pt", tip);
    }
    size_t best = sim_chart_sweep_best(sw);
    if (best < sw->n) {
        double cx = sim_scale_map(&x, rows[best].tpot_ms);
        double cy = sim_scale_map(&y, rows[best].tput_per_gpu);
        sim_svg_raw(s,
                    "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"9\" fill=\"none\" stroke=\"#2ca02c\" "
                    "stroke-width=\"2\" class=\"best\"/>",
                    cx, cy);
        sim_grid_label(sw->grid, rows[best].point, label, sizeof label);
        best_tip(sw, &rows[best], tip, sizeof tip);
        bool left = cx > (fr.x0 + fr.x1) / 2;
        sim_svg_text(s, cx + (left ? -12 : 12), cy - 4, left ? SIM_SVG_END : SIM_SVG_START, 11,
                     true, 0, tip);
        sim_svg_text(s, cx + (left ? -12 : 12), cy + 9, left ? SIM_SVG_END : SIM_SVG_START, 10,
                     false, 0, label);
    }
    sim_svg_key keys[5];
    size_t nk = 0;
    keys[nk++] = (sim_svg_key){"Pareto front", "#333333", true};
    if (sw->has_slo) {
        keys[nk++] = (sim_svg_key){"meets the SLO", "#2ca02c", false};
        keys[nk++] = (sim_svg_key){"misses it", "#9d9d9d", false};
        keys[nk++] = (sim_svg_key){"SLO", SLO_COLOUR, true};
    } else {
        keys[nk++] = (sim_svg_key){"point", "#9d9d9d", false};
    }
    if (guessed)
        keys[nk++] = (sim_svg_key){"device default-only", "#ff7f0e", false};
    sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, keys, nk);
    snprintf(tip, sizeof tip, "%zu points on the front", nf);
    sim_svg_text(s, fr.x1 + 14, fr.y0 + 10 + 18.0 * (double)nk + 6, SIM_SVG_START, 10, false, 0,
                 tip);
    free(rows);
    free(front);
    free(order);
    sim_svg_end(s);
}

void sim_chart_sweep_cost(sim_svg *s, const sim_chart_sweep *sw, bool by_ttft)
{
    const char *metric = by_ttft ? "TTFT" : "TPOT";
    char title[128], xl[64], tip[720], label[512];
    snprintf(title, sizeof title, "Cost per million output tokens against %s", metric);
    snprintf(xl, sizeof xl, "%s at p%d (ms)", metric, sw->pct);
    sim_svg_begin(s, W, H, title);
    sim_svg_title(s, W, title, sw->flags);
    sim_svg_frame fr = sim_svg_plot_area(W, H);
    size_t n = sw->n;
    double *lat = malloc((n ? n : 1) * sizeof *lat);
    bool *use = calloc(n ? n : 1, sizeof *use);
    if (!lat || !use) {
        free(lat);
        free(use);
        sim_svg_end(s);
        return;
    }
    double ymax = 0.0;
    for (size_t i = 0; i < n; i++) {
        const sim_sweep_row *r = &sw->rows[i];
        lat[i] = by_ttft ? r->ttft_ms : r->tpot_ms;
        use[i] = r->ok && r->usd_per_million_output_tokens > 0.0;
        if (use[i])
            ymax = max2(ymax, r->usd_per_million_output_tokens);
    }
    double slo = sw->has_slo ? sw->slo_ms[by_ttft ? SIM_M_TTFT : SIM_M_TPOT] : 0.0;
    bool log_axis = false;
    sim_scale x = latency_axis(lat, use, n, slo, &fr, &log_axis);
    if (log_axis)
        snprintf(xl, sizeof xl, "%s at p%d (ms, log scale)", metric, sw->pct);
    sim_scale y = sim_scale_linear(0.0, (ymax > 0 ? ymax : 1.0) * 1.08, fr.y1, fr.y0);
    sim_svg_axes(s, &fr, &x, &y, xl, "US$ per million output tokens");
    if (slo > 0.0) {
        double sx = sim_scale_map(&x, slo);
        sim_svg_rect(s, sx, fr.y0, fr.x1 - sx, fr.y1 - fr.y0, "#fbe3e3", NULL, NULL);
        sim_svg_line(s, sx, fr.y0, sx, fr.y1, SLO_COLOUR, 2, "6 3");
        char t[48];
        snprintf(t, sizeof t, "SLO %.4g ms", slo);
        sim_svg_text(s, sx + 4, fr.y0 + 12, SIM_SVG_START, 10.5, false, 0, t);
    }
    size_t priced = 0;
    for (size_t i = 0; i < n; i++) {
        if (!use[i])
            continue;
        const sim_sweep_row *r = &sw->rows[i];
        priced++;
        sim_grid_label(sw->grid, r->point, label, sizeof label);
        snprintf(tip, sizeof tip, "point %zu (%s): %s %.4g ms, $%.4g per Mtok%s", r->point, label,
                 metric, lat[i], r->usd_per_million_output_tokens,
                 r->meets_slo ? ", meets the SLO" : "");
        const char *fill = sw->has_slo && r->meets_slo ? "#2ca02c" : "#9d9d9d";
        sim_svg_circle(s, sim_scale_map(&x, lat[i]),
                       sim_scale_map(&y, r->usd_per_million_output_tokens), 4, fill, "pt", tip);
    }
    size_t best = sim_chart_sweep_best(sw);
    if (best < n && use[best]) {
        const sim_sweep_row *r = &sw->rows[best];
        double cx = sim_scale_map(&x, lat[best]);
        double cy = sim_scale_map(&y, r->usd_per_million_output_tokens);
        sim_svg_raw(s,
                    "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"9\" fill=\"none\" stroke=\"#2ca02c\" "
                    "stroke-width=\"2\" class=\"best\"/>",
                    cx, cy);
        best_tip(sw, r, tip, sizeof tip);
        sim_grid_label(sw->grid, r->point, label, sizeof label);
        bool left = cx > (fr.x0 + fr.x1) / 2;
        sim_svg_text(s, cx + (left ? -12 : 12), cy - 4, left ? SIM_SVG_END : SIM_SVG_START, 11,
                     true, 0, tip);
        sim_svg_text(s, cx + (left ? -12 : 12), cy + 9, left ? SIM_SVG_END : SIM_SVG_START, 10,
                     false, 0, label);
    }
    if (!priced)
        sim_svg_text(s, (fr.x0 + fr.x1) / 2, (fr.y0 + fr.y1) / 2, SIM_SVG_MIDDLE, 12, false, 0,
                     "no point has a price (usd_per_gpu_hour or --usd-per-gpu-hour)");
    sim_svg_key keys[3] = {{"meets the SLO", "#2ca02c", false},
                           {"misses it", "#9d9d9d", false},
                           {"SLO", SLO_COLOUR, true}};
    sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, keys, sw->has_slo ? 3 : 0);
    free(lat);
    free(use);
    sim_svg_end(s);
}

void sim_chart_sweep_dim(sim_svg *s, const sim_chart_sweep *sw, size_t dim)
{
    const sim_grid_dim *d = &sw->grid->dims[dim];
    enum { PW = 370, PH = 320 };
    char title[128];
    snprintf(title, sizeof title, "Throughput per GPU by %s", d->name);
    sim_svg_begin(s, PW, PH, title);
    sim_svg_title(s, PW, title, sw->flags);
    sim_svg_frame fr = {64, 64, PW - 16, PH - 82}; /* room for two rows of value labels */
    double ymax = 0.0;
    for (size_t i = 0; i < sw->n; i++)
        if (sw->rows[i].ok)
            ymax = max2(ymax, sw->rows[i].tput_per_gpu);
    sim_scale y = sim_scale_linear(0.0, ymax * 1.05, fr.y1, fr.y0);
    sim_svg_axes(s, &fr, NULL, &y, NULL, "tok/s per GPU");
    size_t nv = d->n ? d->n : 1;
    const char **labels = malloc(nv * sizeof *labels);
    const char **vals = malloc((sw->grid->n_dims ? sw->grid->n_dims : 1) * sizeof *vals);
    double *best = calloc(nv, sizeof *best), *px = malloc(nv * sizeof *px),
           *py = malloc(nv * sizeof *py);
    if (labels && vals && best && px && py) {
        for (size_t v = 0; v < d->n; v++)
            labels[v] = d->values[v];
        sim_svg_xcats(s, &fr, labels, d->n, d->name);
        double band = (fr.x1 - fr.x0) / (double)nv;
        for (size_t i = 0; i < sw->n; i++) {
            if (!sw->rows[i].ok)
                continue;
            sim_grid_point(sw->grid, sw->rows[i].point, vals);
            size_t v = 0;
            while (v < d->n && strcmp(d->values[v], vals[dim]) != 0)
                v++;
            if (v == d->n)
                continue;
            /* under an SLO the best of a value is the best of its points that meet it */
            if (!sw->has_slo || sw->rows[i].meets_slo)
                best[v] = max2(best[v], sw->rows[i].tput_per_gpu);
            char tip[96];
            snprintf(tip, sizeof tip, "point %zu: %.4g tok/s per GPU", sw->rows[i].point,
                     sw->rows[i].tput_per_gpu);
            sim_svg_circle(s, fr.x0 + band * ((double)v + 0.5),
                           sim_scale_map(&y, sw->rows[i].tput_per_gpu), 3,
                           sw->has_slo && sw->rows[i].meets_slo ? "#2ca02c" : "#9d9d9d", "pt", tip);
        }
        /* the line through each value's best, broken at a value with none (no point of it
         * meets the SLO, or none ran) */
        for (size_t v = 0, from = 0; v <= d->n; v++) {
            if (v < d->n && best[v] > 0.0) {
                px[v] = fr.x0 + band * ((double)v + 0.5);
                py[v] = sim_scale_map(&y, best[v]);
                continue;
            }
            if (v > from)
                sim_svg_polyline(s, px + from, py + from, v - from, "#1f77b4", 1.5, "4 2", "best");
            from = v + 1;
        }
    }
    /* the legend in one row under the axis */
    const sim_svg_key slo_keys[] = {{"meets SLO", "#2ca02c", false},
                                    {"misses it", "#9d9d9d", false},
                                    {"best meeting it", "#1f77b4", true}};
    const sim_svg_key plain_keys[] = {{"point", "#9d9d9d", false},
                                      {"best per value", "#1f77b4", true}};
    const sim_svg_key *keys = sw->has_slo ? slo_keys : plain_keys;
    size_t nk = sw->has_slo ? 3 : 2;
    for (size_t k = 0; k < nk; k++)
        sim_svg_legend(s, 14 + 118.0 * (double)k, PH - 12, &keys[k], 1);
    free(labels);
    free(vals);
    free(best);
    free(px);
    free(py);
    sim_svg_end(s);
}

/* ------------------------------------------------------------------------------------------ */
/* Prediction against measurement */

void sim_chart_compare(sim_svg *s, const char *const *names, const double *measured,
                       const double *predicted, size_t n, const char *flags)
{
    double row_h = 22.0, top = 84.0;
    double h = top + row_h * (double)n + 60.0;
    sim_svg_begin(s, W, h, "Predicted against measured");
    sim_svg_title(s, W, "Predicted against measured: error per metric", flags);
    sim_svg_frame fr = {150, top, W - 230, top + row_h * (double)n};
    double emax = 10.0;
    for (size_t i = 0; i < n; i++)
        if (measured[i] > 0.0)
            emax = max2(emax, fabs(100.0 * (predicted[i] - measured[i]) / measured[i]));
    sim_scale x = sim_scale_linear(-emax * 1.05, emax * 1.05, fr.x0, fr.x1);
    sim_svg_axes(s, &fr, &x, NULL, "error: (predicted - measured) / measured (%)", NULL);
    double zero = sim_scale_map(&x, 0.0);
    sim_svg_line(s, zero, fr.y0, zero, fr.y1, "#333333", 1.2, NULL);
    for (size_t i = 0; i < n; i++) {
        double y = fr.y0 + row_h * (double)i;
        sim_svg_text(s, fr.x0 - 8, y + row_h / 2 + 4, SIM_SVG_END, 11, false, 0, names[i]);
        char val[96];
        if (measured[i] > 0.0) {
            double e = 100.0 * (predicted[i] - measured[i]) / measured[i];
            double xe = sim_scale_map(&x, e);
            char tip[160];
            snprintf(tip, sizeof tip, "%s: measured %.4g, predicted %.4g, error %+.1f%%", names[i],
                     measured[i], predicted[i], e);
            sim_svg_rect(s, fmin(zero, xe), y + 4, fabs(xe - zero), row_h - 8,
                         fabs(e) <= 10.0   ? "#54a24b"
                         : fabs(e) <= 25.0 ? "#f58518"
                                           : SLO_COLOUR,
                         "err", tip);
            snprintf(val, sizeof val, "%+.1f%%  (%.4g vs %.4g)", e, predicted[i], measured[i]);
        } else {
            snprintf(val, sizeof val,
                     measured[i] < 0.0 ? "not measured (predicted %.4g)"
                                       : "measured 0 (predicted %.4g)",
                     predicted[i]);
        }
        sim_svg_text(s, fr.x1 + 8, y + row_h / 2 + 4, SIM_SVG_START, 10, false, 0, val);
    }
    const sim_svg_key keys[] = {{"|error| <= 10%", "#54a24b", false},
                                {"10-25%", "#f58518", false},
                                {"> 25%", SLO_COLOUR, false}};
    sim_svg_legend(s, fr.x0, fr.y1 + 56, keys, 1);
    sim_svg_legend(s, fr.x0 + 140, fr.y1 + 56, keys + 1, 1);
    sim_svg_legend(s, fr.x0 + 240, fr.y1 + 56, keys + 2, 1);
    sim_svg_end(s);
}
