/* charts.c - roofline, step, memory, speculation, latency CDFs, time series, Gantt, Pareto. */
#include "charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "graph.h"

/* Colours: phases, bounds, parts of a step, formats (colour-blind-safe where it matters). */
static const char *const phase_colour[2] = {"#1f77b4", "#ff7f0e"}; /* prefill, decode */
static const char *const bound_colour[SIM_BOUND_COUNT] = {[SIM_BOUND_COMPUTE] = "#4c78a8",
                                                          [SIM_BOUND_MEMORY] = "#f58518",
                                                          [SIM_BOUND_NETWORK] = "#e45756",
                                                          [SIM_BOUND_OVERHEAD] = "#9d9d9d"};
static const char *const dtype_colour[SIM_DT_COUNT] = {"#2ca02c", "#17becf", "#d62728", "#9467bd",
                                                       "#8c564b"};
#define HOST_COLOUR "#b279a2"
#define LAUNCH_COLOUR "#bab0ac"
#define SLO_COLOUR "#d62728"

enum { W = 780, H = 420 };

static double max2(double a, double b) { return a > b ? a : b; }

/* ------------------------------------------------------------------------------------------ */
/* Roofline */

/* Whether an op has a place on a log-log roofline: FLOPs and bytes both above zero. */
static bool on_roofline(const sim_step_result *r, int i)
{
    const sim_op *op = &r->graph.ops[i];
    return op->present && op->flops > 0.0 && sim_op_bytes(op) > 0.0 && r->cost[i].t_ns > 0.0;
}

void sim_chart_roofline(sim_svg *s, const sim_hw *hw, const sim_step_result *prefill,
                        const sim_step_result *decode, const char *flags)
{
    const sim_step_result *steps[2] = {prefill, decode};
    static const char *const phase[2] = {"prefill", "decode"};
    double imin = INFINITY, imax = 0.0, flo = INFINITY, fhi = 0.0;
    for (int d = 0; d < SIM_DT_COUNT; d++)
        if (hw->peak_flops[d] > 0.0) {
            imax = max2(imax, sim_hw_ridge(hw, (sim_dtype)d));
            fhi = max2(fhi, hw->peak_flops[d]);
        }
    for (int k = 0; k < 2; k++)
        for (int i = 0; steps[k] && i < SIM_OP_COUNT; i++)
            if (on_roofline(steps[k], i)) {
                const sim_op *op = &steps[k]->graph.ops[i];
                double in = op->flops / sim_op_bytes(op);
                double f = op->flops / (steps[k]->cost[i].t_ns * 1e-9);
                imin = fmin(imin, in);
                imax = max2(imax, in);
                flo = fmin(flo, f);
                fhi = max2(fhi, f);
            }
    if (!isfinite(imin))
        imin = 1.0;
    flo = fmin(flo, imin * hw->hbm_bytes_per_s);
    sim_svg_begin(s, W, H + 40, "Roofline");
    sim_svg_title(s, W, "Roofline: every op of the steps at its intensity and achieved FLOP/s",
                  flags);
    sim_svg_frame fr = sim_svg_plot_area(W, H + 40);
    sim_scale x = sim_scale_log(imin / 2.0, imax * 4.0, fr.x0, fr.x1);
    sim_scale y = sim_scale_log(flo / 2.0, fhi * 2.0, fr.y1, fr.y0);
    sim_svg_axes(s, &fr, &x, &y, "arithmetic intensity (FLOP/byte)", "achieved (FLOP/s per GPU)");
    /* the memory roof, then each format's compute roof from its ridge on */
    sim_svg_key keys[SIM_DT_COUNT + 3];
    char labels[SIM_DT_COUNT][64];
    size_t nk = 0;
    keys[nk++] = (sim_svg_key){"prefill op", phase_colour[0], false};
    keys[nk++] = (sim_svg_key){"decode op", phase_colour[1], false};
    keys[nk++] = (sim_svg_key){"HBM roof", "#333333", true};
    double bw = hw->hbm_bytes_per_s;
    for (int d = 0; d < SIM_DT_COUNT; d++) {
        double peak = hw->peak_flops[d];
        if (peak <= 0.0)
            continue;
        double ridge = peak / bw;
        double px[3] = {sim_scale_map(&x, x.d0), sim_scale_map(&x, ridge), sim_scale_map(&x, x.d1)};
        double py[3] = {sim_scale_map(&y, x.d0 * bw), sim_scale_map(&y, peak),
                        sim_scale_map(&y, peak)};
        sim_svg_polyline(s, px, py, 3, dtype_colour[d], 1.6, NULL, "roof");
        sim_svg_line(s, px[1], py[1], px[1], fr.y1, dtype_colour[d], 1, "3 3");
        snprintf(labels[nk - 3], sizeof labels[0], "%s %.4gT, ridge %.0f", sim_dtype_name(d),
                 peak / 1e12, ridge);
        keys[nk] = (sim_svg_key){labels[nk - 3], dtype_colour[d], true};
        nk++;
    }
    double px0 = sim_scale_map(&x, x.d0), py0 = sim_scale_map(&y, x.d0 * bw);
    sim_svg_line(s, px0, py0, sim_scale_map(&x, x.d1), sim_scale_map(&y, x.d1 * bw), "#333333", 0.8,
                 "6 3");
    /* the ops, largest first so small ones stay visible on top */
    char off[512] = "";
    size_t off_len = 0;
    for (int k = 0; k < 2; k++) {
        const sim_step_result *r = steps[k];
        if (!r)
            continue;
        int order[SIM_OP_COUNT], n = 0;
        for (int i = 0; i < SIM_OP_COUNT; i++)
            if (r->graph.ops[i].present)
                order[n++] = i;
        for (int a = 1; a < n; a++) /* by share of the step, descending (insertion sort) */
            for (int b = a; b > 0; b--) {
                double sa = r->cost[order[b]].t_ns * sim_step_op_repeats(r, (sim_op_id)order[b]);
                double sb =
                    r->cost[order[b - 1]].t_ns * sim_step_op_repeats(r, (sim_op_id)order[b - 1]);
                if (sa <= sb)
                    break;
                int t = order[b];
                order[b] = order[b - 1];
                order[b - 1] = t;
            }
        for (int j = 0; j < n; j++) {
            int i = order[j];
            const sim_op *op = &r->graph.ops[i];
            const char *name = sim_op_info((sim_op_id)i)->name;
            if (!on_roofline(r, i)) {
                if (!strstr(off, name) && off_len + strlen(name) + 3 < sizeof off)
                    off_len += (size_t)snprintf(off + off_len, sizeof off - off_len, "%s%s",
                                                off_len ? ", " : "", name);
                continue;
            }
            double bytes = sim_op_bytes(op);
            double in = op->flops / bytes;
            double f = op->flops / (r->cost[i].t_ns * 1e-9);
            double share = r->t_ns > 0.0
                               ? r->cost[i].t_ns * sim_step_op_repeats(r, (sim_op_id)i) / r->t_ns
                               : 0.0;
            char t[256], fs[16];
            sim_svg_fmt(fs, sizeof fs, f);
            snprintf(t, sizeof t,
                     "%s %s: intensity %.4g FLOP/byte, %sFLOP/s achieved, %.1f%% of "
                     "the step, %s-bound",
                     phase[k], name, in, fs, 100.0 * share, sim_bound_name(r->cost[i].bound));
            double cx = sim_scale_map(&x, in), cy = sim_scale_map(&y, f);
            sim_svg_circle(s, cx, cy, 3.0 + 16.0 * sqrt(share), phase_colour[k], "op", t);
            if (share >= 0.04)
                sim_svg_text(s, cx + 5 + 16.0 * sqrt(share), cy + 3, SIM_SVG_START, 10, false, 0,
                             name);
        }
    }
    sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, keys, nk);
    double ly = fr.y0 + 10 + 18.0 * (double)nk + 8;
    sim_svg_text(s, fr.x1 + 14, ly, SIM_SVG_START, 10, false, 0, "circle size: share of");
    sim_svg_text(s, fr.x1 + 14, ly + 13, SIM_SVG_START, 10, false, 0, "its step's time");
    if (off_len) {
        sim_svg_text(s, fr.x1 + 14, ly + 34, SIM_SVG_START, 10, true, 0, "no FLOPs, not shown:");
        /* wrap the list at commas, about 26 characters a line */
        char line[64];
        size_t ll = 0;
        double yy = ly + 47;
        for (const char *p = off; *p;) {
            size_t w = strcspn(p, ",");
            if (ll && ll + w > 26) {
                line[ll] = '\0';
                sim_svg_text(s, fr.x1 + 14, yy, SIM_SVG_START, 10, false, 0, line);
                yy += 13;
                ll = 0;
            }
            if (w + ll + 2 < sizeof line) {
                memcpy(line + ll, p, w);
                ll += w;
                if (p[w])
                    line[ll++] = ',';
            }
            p += w + (p[w] ? 1 : 0);
            p += strspn(p, " ");
        }
        line[ll] = '\0';
        if (ll)
            sim_svg_text(s, fr.x1 + 14, yy, SIM_SVG_START, 10, false, 0, line);
    }
    sim_svg_end(s);
}

/* ------------------------------------------------------------------------------------------ */
/* A step by op */

/* Exposed time of all instances of op i in a step (what the as-issued timeline shows). */
static double op_exposed_ns(const sim_step_result *r, int i)
{
    return (r->cost[i].t_ns - r->hidden_ns[i]) * sim_step_op_repeats(r, (sim_op_id)i);
}

/* A segment of a stacked bar, labelled inside when wide enough. */
static void segment(sim_svg *s, double x, double y, double w, double h, const char *fill,
                    const char *cls, const char *label, const char *tip)
{
    sim_svg_rect(s, x, y, w, h, fill, cls, tip);
    if (label && w > 7.0 * (double)strlen(label) + 6.0)
        sim_svg_text(s, x + w / 2, y + h / 2 + 4, SIM_SVG_MIDDLE, 10.5, false, 0, label);
}

void sim_chart_step_ops(sim_svg *s, const sim_step_result *const *steps, const char *const *names,
                        size_t n, const char *flags)
{
    double h = 100.0 + 110.0 * (double)n;
    sim_svg_begin(s, W, h, "Step time by op");
    sim_svg_title(s, W, "Step time by op, and by what bounds it", flags);
    double x0 = 110, x1 = W - 170, bar = 30;
    for (size_t k = 0; k < n; k++) {
        const sim_step_result *r = steps[k];
        double y = 84.0 + 110.0 * (double)k, t = r->t_ns > 0.0 ? r->t_ns : 1.0;
        double scale = (x1 - x0) / t;
        char head[128];
        snprintf(head, sizeof head, "%s: %.4g ms, %s-bound", names[k], r->t_ns / 1e6,
                 sim_bound_name(r->bound));
        sim_svg_text(s, x0, y - 6, SIM_SVG_START, 12, true, 0, head);
        sim_svg_text(s, x0 - 8, y + bar / 2 + 4, SIM_SVG_END, 11, false, 0, "ops");
        sim_svg_text(s, x0 - 8, y + bar + 6 + bar / 2 + 4, SIM_SVG_END, 11, false, 0, "bound by");
        double at = x0;
        for (int i = 0; i < SIM_OP_COUNT; i++) {
            if (!r->graph.ops[i].present)
                continue;
            const sim_op_cost *c = &r->cost[i];
            double w = op_exposed_ns(r, i) * scale;
            char tip[256];
            snprintf(tip, sizeof tip,
                     "%s x%.0f: %.4g ms (%.1f%%), %s-bound; per instance math %.4g us, memory "
                     "%.4g us, network %.4g us, launch %.4g us",
                     sim_op_info((sim_op_id)i)->name, sim_step_op_repeats(r, (sim_op_id)i),
                     op_exposed_ns(r, i) / 1e6, 100.0 * op_exposed_ns(r, i) / t,
                     sim_bound_name(c->bound), c->t_math_ns / 1e3, c->t_mem_ns / 1e3,
                     c->t_net_ns / 1e3, c->t_launch_ns / 1e3);
            segment(s, at, y, w, bar, bound_colour[c->bound], "op", sim_op_info((sim_op_id)i)->name,
                    tip);
            sim_svg_line(s, at + w, y, at + w, y + bar, "#ffffff", 0.8, NULL);
            at += w;
        }
        char tip[128];
        snprintf(tip, sizeof tip, "host (engine CPU the GPU waits for): %.4g ms",
                 r->t_host_ns / 1e6);
        segment(s, at, y, r->t_host_ns * scale, bar, HOST_COLOUR, "host", "host", tip);
        /* the same time by what it is: busy split by each op's larger side, then the rest */
        double math = 0.0, mem = 0.0;
        for (int i = 0; i < SIM_OP_COUNT; i++) {
            if (!r->graph.ops[i].present)
                continue;
            double rep = sim_step_op_repeats(r, (sim_op_id)i);
            const sim_op_cost *c = &r->cost[i];
            if (c->t_math_ns >= c->t_mem_ns)
                math += c->t_math_ns * rep;
            else
                mem += c->t_mem_ns * rep;
        }
        const struct {
            const char *name, *colour;
            double ns;
        } parts[] = {{"math", bound_colour[SIM_BOUND_COMPUTE], math},
                     {"memory", bound_colour[SIM_BOUND_MEMORY], mem},
                     {"network", bound_colour[SIM_BOUND_NETWORK], r->net_exposed_ns},
                     {"launch", LAUNCH_COLOUR, r->t_launch_ns},
                     {"host", HOST_COLOUR, r->t_host_ns}};
        at = x0;
        for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
            snprintf(tip, sizeof tip, "%s: %.4g ms (%.1f%%)", parts[p].name, parts[p].ns / 1e6,
                     100.0 * parts[p].ns / t);
            segment(s, at, y + bar + 6, parts[p].ns * scale, bar, parts[p].colour, "part",
                    parts[p].name, tip);
            at += parts[p].ns * scale;
        }
        sim_svg_line(s, x0, y + 2 * bar + 12, x1, y + 2 * bar + 12, "#555555", 1, NULL);
        for (int q = 0; q <= 4; q++) {
            double px = x0 + (x1 - x0) * q / 4.0;
            char lab[32];
            snprintf(lab, sizeof lab, "%.4g ms", r->t_ns / 1e6 * q / 4.0);
            sim_svg_line(s, px, y + 2 * bar + 12, px, y + 2 * bar + 16, "#555555", 1, NULL);
            sim_svg_text(s, px, y + 2 * bar + 27, SIM_SVG_MIDDLE, 10, false, 0, lab);
        }
    }
    const sim_svg_key keys[] = {{"compute-bound / math", bound_colour[SIM_BOUND_COMPUTE], false},
                                {"memory-bound / memory", bound_colour[SIM_BOUND_MEMORY], false},
                                {"network", bound_colour[SIM_BOUND_NETWORK], false},
                                {"launch overhead", LAUNCH_COLOUR, false},
                                {"host (engine CPU)", HOST_COLOUR, false}};
    sim_svg_legend(s, x1 + 14, 84, keys, sizeof keys / sizeof keys[0]);
    sim_svg_text(s, x1 + 14, 84 + 18 * 5 + 6, SIM_SVG_START, 10, false, 0,
                 "x axis: time of the step");
    sim_svg_end(s);
}

/* ------------------------------------------------------------------------------------------ */
/* Horizontal stacked bar of labelled parts on a GB or ms axis (memory plan, speculation) */

typedef struct part {
    const char *name, *colour;
    double v;
} part;

static void hbar(sim_svg *s, const char *title, const char *flags, const part *parts, size_t n,
                 double limit, const char *limit_label, const char *unit)
{
    sim_svg_begin(s, W, 210, title);
    sim_svg_title(s, W, title, flags);
    double total = 0.0;
    for (size_t i = 0; i < n; i++)
        total += parts[i].v;
    sim_svg_frame fr = {110, 84, W - 170, 134};
    sim_scale x = sim_scale_linear(0.0, max2(total, limit) * 1.02, fr.x0, fr.x1);
    char xl[64];
    snprintf(xl, sizeof xl, "%s", unit);
    sim_svg_axes(s, &fr, &x, NULL, xl, NULL);
    double at = 0.0;
    sim_svg_key keys[8];
    for (size_t i = 0; i < n && i < 8; i++) {
        char tip[128], lab[64];
        snprintf(tip, sizeof tip, "%s: %.4g %s", parts[i].name, parts[i].v, unit);
        snprintf(lab, sizeof lab, "%.3g", parts[i].v);
        double a = sim_scale_map(&x, at), b = sim_scale_map(&x, at + parts[i].v);
        segment(s, a, fr.y0 + 8, b - a, fr.y1 - fr.y0 - 16, parts[i].colour, "part", lab, tip);
        at += parts[i].v;
        keys[i] = (sim_svg_key){parts[i].name, parts[i].colour, false};
    }
    if (limit > 0.0) {
        double px = sim_scale_map(&x, limit);
        sim_svg_line(s, px, fr.y0 - 6, px, fr.y1, SLO_COLOUR, 2, "5 3");
        sim_svg_text(s, px, fr.y0 - 10, SIM_SVG_END, 10.5, false, 0, limit_label);
    }
    sim_svg_legend(s, fr.x1 + 14, fr.y0, keys, n < 8 ? n : 8);
    sim_svg_end(s);
}

void sim_chart_memory(sim_svg *s, const sim_mem_report *m, const char *flags)
{
    const part parts[] = {{"weights", "#4c78a8", m->weight_bytes / 1e9},
                          {"KV cache", "#f58518", m->kv_bytes / 1e9},
                          {"activations", "#54a24b", m->workspace_bytes / 1e9},
                          {"runtime reserve", "#bab0ac", m->reserved_bytes / 1e9}};
    char lab[96];
    snprintf(lab, sizeof lab, "capacity %.2f GB (HBM x util.)%s", m->capacity_bytes / 1e9,
             m->fits ? "" : ": does not fit");
    hbar(s, "Memory per GPU", flags, parts, 4, m->capacity_bytes / 1e9, lab, "GB per GPU");
}

void sim_chart_spec(sim_svg *s, const sim_run_result *r, const char *flags)
{
    const part parts[] = {{"draft (proposals)", "#9467bd", r->spec_draft_ns / 1e6},
                          {"verify step", "#4c78a8", r->spec_verify_ns / 1e6}};
    char lab[128];
    double plain = r->spec_tau > 0.0 ? (r->spec_draft_ns + r->spec_verify_ns) / 1e6 : 0.0;
    /* the plain decode time for the same tokens: tau plain steps per iteration at the speed-up */
    plain *= r->spec_speedup;
    snprintf(lab, sizeof lab, "plain decode for %.2f tokens: %.3g ms (%.2fx)", r->spec_tau, plain,
             r->spec_speedup);
    hbar(s, "Speculative decoding: one iteration, draft vs verify", flags, parts, 2, plain, lab,
         "ms per iteration");
}

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
        const sim_seq *r = &res->seqs[i];
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
    double tmax = max2((double)duration_ns / 1e9, (double)n * width_s);
    sim_scale x = sim_scale_linear(0.0, tmax > 0.0 ? tmax : 1.0, fr.x0, fr.x1);
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
    sim_scale x = sim_scale_linear(0.0, max2((double)res->duration_ns / 1e9, 1e-9), fr.x0, fr.x1);
    sim_svg_axes(s, &fr, &x, NULL, "simulated time (s)",
                 rows >= 14 ? "request (# in the workload)" : NULL); /* room to write it */
    static const char *const seg_name[3] = {"queued", "prefill", "decode"};
    static const char *const seg_colour[3] = {"#bab0ac", "#1f77b4", "#ff7f0e"};
    for (size_t k = 0; k < rows; k++) {
        size_t i = rows > 1 ? k * (res->n - 1) / (rows - 1) : 0;
        const sim_seq *r = &res->seqs[i];
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

/* ------------------------------------------------------------------------------------------ */
/* Sweeps */

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
    sim_scale x = sim_scale_linear(0.0, max2(xmax, slo) * 1.05, fr.x0, fr.x1);
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
    char label[512], tip[640];
    for (size_t i = 0; i < sw->n; i++) {
        if (!rows[i].ok)
            continue;
        sim_grid_label(sw->grid, rows[i].point, label, sizeof label);
        snprintf(tip, sizeof tip, "point %zu (%s): %s %.4g ms, %.4g tok/s per GPU%s%s",
                 rows[i].point, label, metric, rows[i].tpot_ms, rows[i].tput_per_gpu,
                 front[i] ? ", on the front" : "", rows[i].meets_slo ? ", meets the SLO" : "");
        const char *fill = sw->has_slo && rows[i].meets_slo ? "#2ca02c" : "#9d9d9d";
        double cx = sim_scale_map(&x, rows[i].tpot_ms),
               cy = sim_scale_map(&y, rows[i].tput_per_gpu);
        sim_svg_circle(s, cx, cy, front[i] ? 5.5 : 4, fill, "pt", tip);
    }
    size_t best = sim_sweep_best(rows, sw->n);
    if (sw->has_slo && best < sw->n) {
        double cx = sim_scale_map(&x, rows[best].tpot_ms);
        double cy = sim_scale_map(&y, rows[best].tput_per_gpu);
        sim_svg_raw(s,
                    "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"9\" fill=\"none\" stroke=\"#2ca02c\" "
                    "stroke-width=\"2\" class=\"best\"/>",
                    cx, cy);
        sim_grid_label(sw->grid, rows[best].point, label, sizeof label);
        snprintf(tip, sizeof tip, "best: point %zu, %.4g tok/s/GPU", rows[best].point,
                 rows[best].tput_per_gpu);
        bool left = cx > (fr.x0 + fr.x1) / 2;
        sim_svg_text(s, cx + (left ? -12 : 12), cy - 4, left ? SIM_SVG_END : SIM_SVG_START, 11,
                     true, 0, tip);
        sim_svg_text(s, cx + (left ? -12 : 12), cy + 9, left ? SIM_SVG_END : SIM_SVG_START, 10,
                     false, 0, label);
    }
    sim_svg_key keys[4];
    size_t nk = 0;
    keys[nk++] = (sim_svg_key){"Pareto front", "#333333", true};
    if (sw->has_slo) {
        keys[nk++] = (sim_svg_key){"meets the SLO", "#2ca02c", false};
        keys[nk++] = (sim_svg_key){"misses it", "#9d9d9d", false};
        keys[nk++] = (sim_svg_key){"SLO", SLO_COLOUR, true};
    } else {
        keys[nk++] = (sim_svg_key){"point", "#9d9d9d", false};
    }
    sim_svg_legend(s, fr.x1 + 14, fr.y0 + 10, keys, nk);
    snprintf(tip, sizeof tip, "%zu points on the front", nf);
    sim_svg_text(s, fr.x1 + 14, fr.y0 + 10 + 18.0 * (double)nk + 6, SIM_SVG_START, 10, false, 0,
                 tip);
    free(rows);
    free(front);
    free(order);
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
    sim_svg_frame fr = {64, 64, PW - 16, PH - 70};
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
            best[v] = max2(best[v], sw->rows[i].tput_per_gpu);
            char tip[96];
            snprintf(tip, sizeof tip, "point %zu: %.4g tok/s per GPU", sw->rows[i].point,
                     sw->rows[i].tput_per_gpu);
            sim_svg_circle(s, fr.x0 + band * ((double)v + 0.5),
                           sim_scale_map(&y, sw->rows[i].tput_per_gpu), 3,
                           sw->has_slo && sw->rows[i].meets_slo ? "#2ca02c" : "#9d9d9d", "pt", tip);
        }
        for (size_t v = 0; v < d->n; v++) {
            px[v] = fr.x0 + band * ((double)v + 0.5);
            py[v] = sim_scale_map(&y, best[v]);
        }
        sim_svg_polyline(s, px, py, d->n, "#1f77b4", 1.5, "4 2", "best");
    }
    /* the legend in one row under the axis */
    const sim_svg_key slo_keys[] = {{"meets SLO", "#2ca02c", false},
                                    {"misses it", "#9d9d9d", false},
                                    {"best per value", "#1f77b4", true}};
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
