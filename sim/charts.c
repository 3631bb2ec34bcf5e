/* charts.c - the pictures of a run: the roofline, a step by op, the memory plan, speculative
 * decoding (a serving run's: charts_serve.c; a sweep's and a validation's: charts_sweep.c). */
#include "charts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "charts_internal.h"
#include "cost.h"
#include "graph.h"

/* Colours: phases, bounds, parts of a step, formats (colour-blind-safe where it matters). */
static const char *const phase_colour[2] = {"#1f77b4", "#ff7f0e"}; /* prefill, decode */
static const char *const bound_colour[SIM_BOUND_COUNT] = {[SIM_BOUND_COMPUTE] = "#4c78a8",
                                                          [SIM_BOUND_MEMORY] = "#f58518",
                                                          [SIM_BOUND_NETWORK] = "#e45756",
                                                          [SIM_BOUND_OVERHEAD] = "#9d9d9d"};
static const char *const dtype_colour[SIM_DT_COUNT] = {"#2ca02c", "#17becf", "#d62728", "#9467bd",
                                                       "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f"};
#define HOST_COLOUR "#b279a2"
#define LAUNCH_COLOUR "#bab0ac"

/* ------------------------------------------------------------------------------------------ */
/* Roofline */

/* Whether an op has a place on a log-log roofline: FLOPs and bytes both above zero. */
static bool on_roofline(const sim_step_result *r, int i)
{
    const sim_op *op = &r->graph.ops[i];
    return op->present && op->flops > 0.0 && sim_op_bytes(op) > 0.0 && r->cost[i].t_ns > 0.0;
}

/* Whether two peaks are one roof (equal to a part in a million: datasheets round the same). */
static bool same_peak(double a, double b) { return a > 0.0 && fabs(a - b) <= 1e-6 * a; }

/* An op's name placed on the roofline: its box (estimated: sim_svg_text_width wide, the text's
 * size tall above its baseline) and where it is written. */
typedef struct op_label {
    double x0, y0, x1, y1;
    double tx, ty;
    sim_svg_anchor anchor;
    const char *name;
} op_label;

/* Places `name` beside a circle (cx, cy, radius r) at the first of eight places around it
 * whose box lies in the frame and clear of the labels placed so far (lab[0..*n)), and adds it;
 * places nothing when none is clear (the op keeps its tooltip). */
static void place_label(const sim_svg_frame *fr, double cx, double cy, double r, const char *name,
                        op_label *lab, size_t *n, size_t cap)
{
    enum { SIZE = 10 };
    double w = sim_svg_text_width(name, SIZE), d = r + 3, e = 0.7 * d;
    const struct {
        double x, y; /* the baseline's anchor point */
        sim_svg_anchor a;
    } at[] = {{cx + d, cy + 3, SIM_SVG_START}, {cx - d, cy + 3, SIM_SVG_END},
              {cx, cy - d, SIM_SVG_MIDDLE},    {cx, cy + d + 8, SIM_SVG_MIDDLE},
              {cx + e, cy - e, SIM_SVG_START}, {cx + e, cy + e + 8, SIM_SVG_START},
              {cx - e, cy - e, SIM_SVG_END},   {cx - e, cy + e + 8, SIM_SVG_END}};
    for (size_t k = 0; k < sizeof at / sizeof at[0] && *n < cap; k++) {
        double bx = at[k].a == SIM_SVG_START ? at[k].x
                    : at[k].a == SIM_SVG_END ? at[k].x - w
                                             : at[k].x - w / 2;
        op_label l = {.x0 = bx,
                      .y0 = at[k].y - 0.8 * SIZE,
                      .x1 = bx + w,
                      .y1 = at[k].y + 0.2 * SIZE,
                      .tx = at[k].x,
                      .ty = at[k].y,
                      .anchor = at[k].a,
                      .name = name};
        bool clear = l.x0 >= fr->x0 && l.x1 <= fr->x1 && l.y0 >= fr->y0 && l.y1 <= fr->y1;
        for (size_t j = 0; clear && j < *n; j++)
            clear =
                l.x1 <= lab[j].x0 || lab[j].x1 <= l.x0 || l.y1 <= lab[j].y0 || lab[j].y1 <= l.y0;
        if (clear) {
            lab[(*n)++] = l;
            return;
        }
    }
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
    /* the memory roof, then each format's compute roof from its ridge on: formats of one peak
     * (bf16 and fp16, fp8 and int8 on most parts) share one roof, labelled with all their names */
    sim_svg_key keys[2 * SIM_DT_COUNT + 3];
    char labels[2 * SIM_DT_COUNT][64];
    size_t nk = 0;
    keys[nk++] = (sim_svg_key){"prefill op", phase_colour[0], false};
    keys[nk++] = (sim_svg_key){"decode op", phase_colour[1], false};
    keys[nk++] = (sim_svg_key){"HBM roof", "#333333", true};
    double bw = hw->hbm_bytes_per_s, clx[2], cly[2];
    for (int d = 0; d < SIM_DT_COUNT; d++) {
        double peak = hw->peak_flops[d];
        bool seen = false;
        for (int e = 0; e < d; e++)
            seen = seen || same_peak(hw->peak_flops[e], peak);
        if (peak <= 0.0 || seen)
            continue;
        char names[40] = "";
        for (int e = d, len = 0; e < SIM_DT_COUNT; e++)
            if (same_peak(hw->peak_flops[e], peak) && len < (int)sizeof names)
                len += snprintf(names + len, sizeof names - (size_t)len, "%s%s", len ? "/" : "",
                                sim_dtype_name((sim_dtype)e));
        double ridge = peak / bw;
        double px[3], py[3];
        size_t np = 0;
        if (sim_svg_clip(&x, &y, x.d0, x.d0 * bw, ridge, peak, clx, cly)) {
            px[np] = clx[0], py[np++] = cly[0];
            px[np] = clx[1], py[np++] = cly[1];
        } else {
            px[np] = sim_scale_map(&x, ridge), py[np++] = sim_scale_map(&y, peak);
        }
        px[np] = sim_scale_map(&x, x.d1), py[np++] = sim_scale_map(&y, peak);
        sim_svg_polyline(s, px, py, np, dtype_colour[d], 1.6, NULL, "roof");
        double rx = sim_scale_map(&x, ridge), ry = sim_scale_map(&y, peak);
        sim_svg_line(s, rx, ry, rx, fr.y1, dtype_colour[d], 1, "3 3");
        /* a roof's names and peak, and under it (no swatch) its ridge: one line for both
         * overflowed the legend's 140 px ("bf16/fp16 989.4T, ridge 295") */
        snprintf(labels[nk - 3], sizeof labels[0], "%s %.4gT", names, peak / 1e12);
        keys[nk] = (sim_svg_key){labels[nk - 3], dtype_colour[d], true};
        nk++;
        snprintf(labels[nk - 3], sizeof labels[0], "ridge %.0f FLOP/byte", ridge);
        keys[nk] = (sim_svg_key){labels[nk - 3], "none", true};
        nk++;
    }
    /* the memory roof past the ridges, cut where it leaves the frame (its slope kept) */
    if (sim_svg_clip(&x, &y, x.d0, x.d0 * bw, x.d1, x.d1 * bw, clx, cly))
        sim_svg_line(s, clx[0], cly[0], clx[1], cly[1], "#333333", 0.8, "6 3");
    /* the ops, largest first so small ones stay visible on top */
    char off[512] = "";
    size_t off_len = 0;
    op_label labs[2 * SIM_OP_COUNT];
    size_t nlab = 0;
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
                place_label(&fr, cx, cy, 3.0 + 16.0 * sqrt(share), name, labs, &nlab,
                            sizeof labs / sizeof labs[0]);
        }
    }
    /* the names over all circles, none over another */
    sim_svg_raw(s, "<g class=\"oplabels\">");
    for (size_t j = 0; j < nlab; j++)
        sim_svg_text(s, labs[j].tx, labs[j].ty, labs[j].anchor, 10, false, 0, labs[j].name);
    sim_svg_raw(s, "</g>");
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
