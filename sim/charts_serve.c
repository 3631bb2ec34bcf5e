/* charts_serve.c - the pictures of a serving run: latency CDFs, the run over simulated time, a
 * sample of requests as a Gantt chart. */
#include "charts.h"

#include <stdio.h>
#include <stdlib.h>

#include "charts_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Latency CDFs */

/* A distribution as ascending (value in ms, count) runs: per-request metrics one run a request,
 * ITL the engine's histogram runs. */
typedef struct cdf_run {
    double ms;
    int64_t count;
} cdf_run;

static int cmp_run(const void *a, const void *b)
{
    double x = ((const cdf_run *)a)->ms, y = ((const cdf_run *)b)->ms;
    return (x > y) - (x < y);
}

/* The metric's samples (definitions as metrics.h: from the send time; TPOT only for requests
 * with more than one output token), sorted. Returns the runs written (out has room for res->n or
 * res->itl.len) and the samples in *n. */
static size_t samples_ms(const sim_engine_result *res, sim_metric m, cdf_run *out, int64_t *n)
{
    size_t k = 0;
    *n = 0;
    if (m == SIM_M_ITL) { /* finished: ascending, one run per value */
        for (size_t i = 0; i < res->itl.len; i++) {
            out[k++] = (cdf_run){(double)res->itl.runs[i].value / 1e6, res->itl.runs[i].count};
            *n += res->itl.runs[i].count;
        }
        return k;
    }
    for (size_t i = 0; i < res->n; i++) {
        const sim_req_result rq = sim_engine_req(res, i), *r = &rq;
        double ttft = (double)(r->first_token_ns - r->send_ns) / 1e6;
        double e2el = (double)(r->finish_ns - r->send_ns) / 1e6;
        if (m == SIM_M_TTFT)
            out[k++] = (cdf_run){ttft, 1};
        else if (m == SIM_M_E2EL)
            out[k++] = (cdf_run){e2el, 1};
        else if (r->output > 1)
            out[k++] = (cdf_run){(e2el - ttft) / (double)(r->output - 1), 1};
    }
    qsort(out, k, sizeof *out, cmp_run);
    *n = (int64_t)k;
    return k;
}

void sim_chart_cdf(sim_svg *s, const sim_engine_result *res, sim_metric m, const sim_dist *d,
                   double slo_ms, const char *flags)
{
    static const char *const title[SIM_M_COUNT] = {
        [SIM_M_TTFT] = "Time to first token (TTFT)",
        [SIM_M_TPOT] = "Time per output token (TPOT, excl. 1st)",
        [SIM_M_ITL] = "Inter-token latency (ITL, all gaps)",
        [SIM_M_E2EL] = "End-to-end latency (E2EL)"};
    size_t cap = m == SIM_M_ITL ? res->itl.len : res->n;
    cdf_run *v = malloc((cap ? cap : 1) * sizeof *v);
    int64_t n = 0;
    size_t nr = v ? samples_ms(res, m, v, &n) : 0;
    enum { CW = 560, CH = 330 };
    sim_svg_begin(s, CW, CH, title[m]);
    sim_svg_title(s, CW, title[m], flags);
    sim_svg_frame fr = sim_svg_plot_area(CW, CH);
    fr.x1 = CW - 130;
    double hi = nr ? v[nr - 1].ms : 1.0;
    if (slo_ms > 0.0 && m != SIM_M_ITL)
        hi = max2(hi, slo_ms);
    sim_scale x = sim_scale_linear(0.0, hi, fr.x0, fr.x1);
    sim_scale y = sim_scale_linear(0.0, 1.0, fr.y1, fr.y0);
    sim_svg_axes(s, &fr, &x, &y, "latency (ms)",
                 m == SIM_M_ITL ? "fraction of gaps" : "fraction of requests");
    /* at most 400 points: the samples at ranks n/400, 2n/400, ... (the curve is exact at each),
     * walked through the runs in order */
    enum { PTS = 400 };
    double px[PTS + 1], py[PTS + 1];
    size_t np = 0;
    if (n > 0) {
        int64_t steps = n < PTS ? n : PTS, below = 0; /* samples in runs before run r */
        size_t r = 0;
        px[np] = sim_scale_map(&x, v[0].ms);
        py[np++] = sim_scale_map(&y, 0.0);
        for (int64_t j = 1; j <= steps; j++) {
            int64_t rank = j * n / steps; /* 1-based: the rank-th smallest sample */
            while (r + 1 < nr && below + v[r].count < rank) { /* (the counts sum to n) */
                below += v[r].count;
                r++;
            }
            px[np] = sim_scale_map(&x, v[r].ms);
            py[np++] = sim_scale_map(&y, (double)rank / (double)n);
        }
        sim_svg_polyline(s, px, py, np, "#1f77b4", 2, NULL, "cdf");
    } else {
        sim_svg_text(s, (fr.x0 + fr.x1) / 2, (fr.y0 + fr.y1) / 2, SIM_SVG_MIDDLE, 12, false, 0,
                     "no samples");
    }
    static const char *const pname[3] = {"p50", "p90", "p99"};
    const double pv[3] = {d->median, d->p90, d->p99}, pf[3] = {0.5, 0.9, 0.99};
    for (int k = 0; k < 3 && n > 0; k++) {
        double ax = sim_scale_map(&x, pv[k]), ay = sim_scale_map(&y, pf[k]);
        sim_svg_line(s, ax, ay, ax, fr.y1, "#555555", 1, "2 2");
        char t[64];
        snprintf(t, sizeof t, pv[k] >= 1000.0 ? "%s %.0f ms" : "%s %.4g ms", pname[k], pv[k]);
        sim_svg_circle(s, ax, ay, 3, "#555555", "pct", t);
        sim_svg_text(s, ax + 6, ay + (k == 2 ? -2 : 9), SIM_SVG_START, 10, false, 0, pname[k]);
        sim_svg_text(s, fr.x1 + 14, fr.y0 + 76 + 13.0 * k, SIM_SVG_START, 10, false, 0, t);
    }
    sim_svg_key keys[2] = {{"CDF", "#1f77b4", true}, {"SLO", SLO_COLOUR, true}};
    size_t nk = 1;
    if (slo_ms > 0.0 && m != SIM_M_ITL) {
        double sx = sim_scale_map(&x, slo_ms);
        sim_svg_line(s, sx, fr.y0, sx, fr.y1, SLO_COLOUR, 2, "6 3");
        char t[48];
        snprintf(t, sizeof t, "SLO %.4g ms", slo_ms);
        bool left = sx > (fr.x0 + fr.x1) / 2;
        sim_svg_text(s, sx + (left ? -4 : 4), fr.y0 + 12, left ? SIM_SVG_END : SIM_SVG_START, 10.5,
                     false, 0, t);
        nk = 2;
    }
    sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, keys, nk);
    char ns[48];
    snprintf(ns, sizeof ns, "%lld samples", (long long)n);
    sim_svg_text(s, fr.x1 + 14, fr.y0 + 10 + 18.0 * (double)nk + 6, SIM_SVG_START, 10, false, 0,
                 ns);
    sim_svg_end(s);
    free(v);
}

/* ------------------------------------------------------------------------------------------ */
/* Over simulated time */

bool sim_chart_series_shows(const sim_series *ser, sim_series_view view)
{
    if (view != SIM_VIEW_PREEMPTIONS)
        return true;
    for (size_t i = 0; i < ser->n; i++)
        if (ser->b[i].preemptions > 0)
            return true;
    return false;
}

void sim_chart_series(sim_svg *s, const sim_series *ser, sim_series_view view, int64_t duration_ns,
                      const char *flags)
{
    static const struct {
        const char *title, *ylabel;
    } views[SIM_VIEW_COUNT] = {
        [SIM_VIEW_REQUESTS] = {"Requests in the engine", "requests (mean per iteration)"},
        [SIM_VIEW_TOKENS] = {"Batch tokens per iteration", "tokens (mean per iteration)"},
        [SIM_VIEW_KV] = {"KV-cache usage", "blocks in use (% of cache, peak)"},
        [SIM_VIEW_PREEMPTIONS] = {"Preemptions", "preemptions per bucket"}};
    enum { SW = W, SH = 270 };
    sim_svg_begin(s, SW, SH, views[view].title);
    sim_svg_title(s, SW, views[view].title, flags);
    sim_svg_frame fr = sim_svg_plot_area(SW, SH);
    size_t n = ser->n;
    double width_s = (double)ser->width_ns / 1e9;
    double a[SIM_SERIES_BUCKETS], b[SIM_SERIES_BUCKETS], ymax = 0.0;
    for (size_t i = 0; i < n; i++) {
        const sim_series_bucket *k = &ser->b[i];
        double it = k->iterations > 0 ? (double)k->iterations : 1.0;
        switch (view) {
        case SIM_VIEW_REQUESTS:
            a[i] = k->running / it;
            b[i] = k->waiting / it;
            break;
        case SIM_VIEW_TOKENS:
            a[i] = k->prefill_tokens / it;
            b[i] = k->decode_tokens / it;
            break;
        case SIM_VIEW_KV:
            a[i] = ser->kv_total_blocks > 0
                       ? 100.0 * (double)k->kv_peak_blocks / (double)ser->kv_total_blocks
                       : 0.0;
            b[i] = 0.0;
            break;
        default:
            a[i] = (double)k->preemptions;
            b[i] = 0.0;
        }
        ymax = max2(ymax, view == SIM_VIEW_TOKENS ? a[i] + b[i] : max2(a[i], b[i]));
    }
    /* the time axis ends where the run ends (the last bucket may reach past it: cut there) */
    double tmax = duration_ns > 0 ? (double)duration_ns / 1e9 : (double)n * width_s;
    sim_scale x = sim_scale_linear_exact(0.0, tmax > 0.0 ? tmax : 1.0, fr.x0, fr.x1);
    sim_scale y =
        sim_scale_linear(0.0, view == SIM_VIEW_KV ? 100.0 : max2(ymax, 1.0), fr.y1, fr.y0);
    sim_svg_axes(s, &fr, &x, &y, "simulated time (s)", views[view].ylabel);
    char t[160];
    snprintf(t, sizeof t, "bucket: %.4g s", width_s);
    if (view == SIM_VIEW_TOKENS || view == SIM_VIEW_PREEMPTIONS) {
        for (size_t i = 0; i < n; i++) {
            double xa = sim_scale_map(&x, (double)i * width_s);
            double xb = sim_scale_map(&x, (double)(i + 1) * width_s);
            double y0 = sim_scale_map(&y, 0.0), ya = sim_scale_map(&y, a[i]);
            char tip[160];
            if (view == SIM_VIEW_TOKENS)
                snprintf(tip, sizeof tip, "t %.4g s: prefill %.4g, decode %.4g tokens",
                         (double)i * width_s, a[i], b[i]);
            else
                snprintf(tip, sizeof tip, "t %.4g s: %.0f preemptions", (double)i * width_s, a[i]);
            if (a[i] > 0.0)
                sim_svg_rect(s, xa, ya, xb - xa, y0 - ya,
                             view == SIM_VIEW_TOKENS ? "#1f77b4" : SLO_COLOUR, "bucket", tip);
            if (b[i] > 0.0) {
                double yb = sim_scale_map(&y, a[i] + b[i]);
                sim_svg_rect(s, xa, yb, xb - xa, ya - yb, "#ff7f0e", "bucket", tip);
            }
        }
        const sim_svg_key tk[] = {{"prefill", "#1f77b4", false}, {"decode", "#ff7f0e", false}};
        const sim_svg_key pk[] = {{"preemptions", SLO_COLOUR, false}};
        if (view == SIM_VIEW_TOKENS)
            sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, tk, 2);
        else
            sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, pk, 1);
    } else {
        double *px = malloc((n ? n : 1) * sizeof *px), *pa = malloc((n ? n : 1) * sizeof *pa),
               *pb = malloc((n ? n : 1) * sizeof *pb);
        for (size_t i = 0; px && pa && pb && i < n; i++) {
            px[i] = sim_scale_map(&x, ((double)i + 0.5) * width_s);
            pa[i] = sim_scale_map(&y, a[i]);
            pb[i] = sim_scale_map(&y, b[i]);
        }
        if (px && pa && pb) {
            sim_svg_polyline(s, px, pa, n, "#1f77b4", 1.8, NULL, "series");
            if (view == SIM_VIEW_REQUESTS)
                sim_svg_polyline(s, px, pb, n, "#ff7f0e", 1.8, NULL, "series");
        }
        free(px);
        free(pa);
        free(pb);
        const sim_svg_key rk[] = {{"running", "#1f77b4", true}, {"waiting", "#ff7f0e", true}};
        const sim_svg_key kk[] = {{"KV blocks used", "#1f77b4", true}};
        if (view == SIM_VIEW_REQUESTS)
            sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, rk, 2);
        else
            sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, kk, 1);
    }
    sim_svg_text(s, fr.x1 + 14, fr.y0 + 60, SIM_SVG_START, 10, false, 0, t);
    sim_svg_end(s);
}

/* A step line of v over the evaluations: MIN from 0 (ready and held alike), each point's value
 * from its time, the last to the run's end. Returns 0 when out of memory. */
static int scale_steps(sim_svg *s, const sim_cluster_result *c, const sim_scale *x,
                       const sim_scale *y, double tmax, bool held, const char *colour)
{
    const size_t n = 2 * c->n_timeline + 2;
    double *px = malloc(n * sizeof *px), *py = malloc(n * sizeof *py);
    if (!px || !py) {
        free(px);
        free(py);
        return 0;
    }
    size_t k = 0;
    double v = (double)c->scale_min;
    px[k] = sim_scale_map(x, 0.0), py[k++] = sim_scale_map(y, v);
    for (size_t i = 0; i < c->n_timeline; i++) {
        const sim_scale_point *p = &c->timeline[i];
        const double t = (double)p->t_ns / 1e9;
        px[k] = sim_scale_map(x, t), py[k++] = sim_scale_map(y, v);
        v = (double)(held ? p->held : p->ready);
        px[k] = sim_scale_map(x, t), py[k++] = sim_scale_map(y, v);
    }
    px[k] = sim_scale_map(x, tmax), py[k++] = sim_scale_map(y, v);
    sim_svg_polyline(s, px, py, k, colour, 1.8, held ? "5,3" : NULL, "series");
    free(px);
    free(py);
    return 1;
}

void sim_chart_autoscale(sim_svg *s, const sim_cluster_result *c, int64_t duration_ns,
                         const char *flags)
{
    enum { SW = W, SH = 270 };
    sim_svg_begin(s, SW, SH, "Replicas over time");
    sim_svg_title(s, SW, "Replicas over time", flags);
    sim_svg_frame fr = sim_svg_plot_area(SW, SH);
    double tmax = (double)duration_ns / 1e9;
    for (size_t i = 0; i < c->n_timeline; i++)
        tmax = max2(tmax, (double)c->timeline[i].t_ns / 1e9);
    sim_scale x = sim_scale_linear(0.0, tmax > 0.0 ? tmax : 1.0, fr.x0, fr.x1);
    sim_scale y = sim_scale_linear(0.0, max2((double)c->peak_held, 1.0) + 1.0, fr.y1, fr.y0);
    sim_svg_axes(s, &fr, &x, &y, "simulated time (s)", "replicas");
    if (!scale_steps(s, c, &x, &y, tmax, true, "#ff7f0e") ||
        !scale_steps(s, c, &x, &y, tmax, false, "#1f77b4"))
        s->oom = true;
    const sim_svg_key keys[] = {{"ready", "#1f77b4", true}, {"held (ready, starting, draining)",
                                                             "#ff7f0e", true}};
    sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, keys, 2);
    sim_svg_end(s);
}

/* One bucket's value in a per-instance view. */
static double instance_value(const sim_series *ser, const sim_series_bucket *k, sim_series_view v)
{
    double it = k->iterations > 0 ? (double)k->iterations : 1.0;
    switch (v) {
    case SIM_VIEW_REQUESTS:
        return (k->running + k->waiting) / it;
    case SIM_VIEW_TOKENS:
        return (k->prefill_tokens + k->decode_tokens) / it;
    case SIM_VIEW_KV:
        return ser->kv_total_blocks > 0
                   ? 100.0 * (double)k->kv_peak_blocks / (double)ser->kv_total_blocks
                   : 0.0;
    default:
        return (double)k->preemptions;
    }
}

void sim_chart_series_instances(sim_svg *s, const sim_series_set *set, int prefill,
                                sim_series_view view, int64_t duration_ns, const char *flags)
{
    static const char *const titles[SIM_VIEW_COUNT][2] = {
        [SIM_VIEW_REQUESTS] = {"Requests in each instance", "running + waiting (mean per iter.)"},
        [SIM_VIEW_TOKENS] = {"Batch tokens in each instance", "tokens (mean per iteration)"},
        [SIM_VIEW_KV] = {"KV-cache usage of each instance", "blocks in use (% of its cache)"},
        [SIM_VIEW_PREEMPTIONS] = {"Preemptions in each instance", "preemptions per bucket"}};
    static const char *const palette[10] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                            "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                            "#bcbd22", "#17becf"};
    const int n = set->n < SIM_CHART_MAX_INSTANCES ? set->n : SIM_CHART_MAX_INSTANCES;
    /* tall enough for the legend's rows (18 px each) beside the plot */
    const double SH = max2(270.0, 150.0 + 18.0 * n);
    sim_svg_begin(s, W, SH, titles[view][0]);
    sim_svg_title(s, W, titles[view][0], flags);
    sim_svg_frame fr = sim_svg_plot_area(W, SH);
    double ymax = 0.0, tmax = (double)duration_ns / 1e9;
    for (int i = 0; i < n; i++) {
        const sim_series *ser = &set->s[i];
        tmax = max2(tmax, (double)ser->n * (double)ser->width_ns / 1e9);
        for (size_t b = 0; b < ser->n; b++)
            ymax = max2(ymax, instance_value(ser, &ser->b[b], view));
    }
    sim_scale x = sim_scale_linear(0.0, tmax > 0.0 ? tmax : 1.0, fr.x0, fr.x1);
    sim_scale y =
        sim_scale_linear(0.0, view == SIM_VIEW_KV ? 100.0 : max2(ymax, 1.0), fr.y1, fr.y0);
    sim_svg_axes(s, &fr, &x, &y, "simulated time (s)", titles[view][1]);
    sim_svg_key keys[SIM_CHART_MAX_INSTANCES];
    char names[SIM_CHART_MAX_INSTANCES][32];
    double px[SIM_SERIES_BUCKETS], py[SIM_SERIES_BUCKETS];
    for (int i = 0; i < n; i++) {
        const sim_series *ser = &set->s[i];
        const double width_s = (double)ser->width_ns / 1e9;
        for (size_t b = 0; b < ser->n; b++) {
            px[b] = sim_scale_map(&x, ((double)b + 0.5) * width_s);
            py[b] = sim_scale_map(&y, instance_value(ser, &ser->b[b], view));
        }
        const char *colour = palette[i % 10];
        /* past ten instances the colours repeat, dashed */
        sim_svg_polyline(s, px, py, ser->n, colour, 1.6, i >= 10 ? "5,3" : NULL, "series");
        if (prefill > 0)
            snprintf(names[i], sizeof names[i], "%s %d", i < prefill ? "prefill" : "decode",
                     i < prefill ? i : i - prefill);
        else
            snprintf(names[i], sizeof names[i], "replica %d", i);
        keys[i] = (sim_svg_key){names[i], colour, true};
    }
    sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, keys, (size_t)n);
    char t[96];
    snprintf(t, sizeof t, "bucket: %.4g s%s", set->n ? (double)set->s[0].width_ns / 1e9 : 0.0,
             set->n > n ? "; the first 16" : "");
    sim_svg_text(s, fr.x1 + 14, fr.y0 + 10 + 18.0 * n, SIM_SVG_START, 10, false, 0, t);
    sim_svg_end(s);
}

void sim_chart_gantt(sim_svg *s, const sim_engine_result *res, size_t max_rows, const char *flags)
{
    size_t rows = res->n < max_rows ? res->n : max_rows;
    double row_h = 12.0, top = 72.0;
    double h = top + row_h * (double)rows + 56.0;
    sim_svg_begin(s, W, h, "Requests over time (a sample)");
    char title[96];
    snprintf(title, sizeof title, "Requests over time: %zu of %zu, evenly spaced", rows, res->n);
    sim_svg_title(s, W, title, flags);
    sim_svg_frame fr = {90, top, W - 170, top + row_h * (double)rows};
    sim_scale x =
        sim_scale_linear_exact(0.0, max2((double)res->duration_ns / 1e9, 1e-9), fr.x0, fr.x1);
    sim_svg_axes(s, &fr, &x, NULL, "simulated time (s)",
                 rows >= 14 ? "request (# in the workload)" : NULL); /* room to write it */
    static const char *const seg_name[3] = {"queued", "prefill", "decode"};
    static const char *const seg_colour[3] = {"#bab0ac", "#1f77b4", "#ff7f0e"};
    for (size_t k = 0; k < rows; k++) {
        size_t i = rows > 1 ? k * (res->n - 1) / (rows - 1) : 0;
        const sim_req_result rq = sim_engine_req(res, i), *r = &rq;
        double yy = fr.y0 + row_h * (double)k + 1.5;
        double at[4] = {(double)r->send_ns / 1e9, (double)r->first_sched_ns / 1e9,
                        (double)r->first_token_ns / 1e9, (double)r->finish_ns / 1e9};
        char label[32];
        snprintf(label, sizeof label, "#%zu", i);
        sim_svg_text(s, fr.x0 - 6, yy + row_h - 4, SIM_SVG_END, 9, false, 0, label);
        for (int p = 0; p < 3; p++) {
            if (at[p + 1] < at[p])
                continue;
            char tip[192];
            snprintf(tip, sizeof tip,
                     "request %zu %s: %.6g s to %.6g s (%lld in, %lld out, %lld preemptions)", i,
                     seg_name[p], at[p], at[p + 1], (long long)r->input, (long long)r->output,
                     (long long)r->preemptions);
            double xa = sim_scale_map(&x, at[p]), xb = sim_scale_map(&x, at[p + 1]);
            sim_svg_rect(s, xa, yy, max2(xb - xa, 0.8), row_h - 3, seg_colour[p], "seg", tip);
        }
        if (r->preemptions > 0)
            sim_svg_circle(s, sim_scale_map(&x, at[3]) + 5, yy + (row_h - 3) / 2, 2.5, SLO_COLOUR,
                           "preempted", "preempted at least once");
    }
    const sim_svg_key keys[] = {{"queued", seg_colour[0], false},
                                {"prefill (to 1st token)", seg_colour[1], false},
                                {"decode", seg_colour[2], false},
                                {"was preempted", SLO_COLOUR, false}};
    sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, keys, 4);
    sim_svg_end(s);
}
