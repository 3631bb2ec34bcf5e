/* svg.c - the SVG writer: buffer, shapes, scales, axes, legends. */
#include "svg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* The buffer */

void sim_svg_raw(sim_svg *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_strbuf_vprintf(s, fmt, ap);
    va_end(ap);
}

void sim_svg_escaped(sim_svg *s, const char *text)
{
    static const char *const ent[] = {
        ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&#39;"};
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        const char *e = *p < sizeof ent / sizeof ent[0] ? ent[*p] : NULL;
        if (e) {
            sim_svg_raw(s, "%s", e);
        } else if (*p < 0x20 && *p != '\n' && *p != '\t') {
            continue; /* control characters are not allowed in XML 1.0 */
        } else {
            sim_strbuf_printf(s, "%c", *p);
        }
    }
}

/* A finite coordinate (non-finite ones are drawn at 0, never printed as nan/inf). */
static double fin(double v) { return isfinite(v) ? v : 0.0; }

static void tip(sim_svg *s, const char *t)
{
    if (!t)
        return;
    sim_svg_raw(s, "<title>");
    sim_svg_escaped(s, t);
    sim_svg_raw(s, "</title>");
}

static void cls_attr(sim_svg *s, const char *cls)
{
    if (cls)
        sim_svg_raw(s, " class=\"%s\"", cls);
}

void sim_svg_begin(sim_svg *s, double width, double height, const char *title)
{
    sim_svg_raw(s,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" role=\"img\" font-family=\"sans-serif\">",
                fin(width), fin(height), fin(width), fin(height));
    tip(s, title);
    sim_svg_raw(s, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>",
                fin(width), fin(height));
}

void sim_svg_end(sim_svg *s) { sim_svg_raw(s, "</svg>\n"); }

void sim_svg_free(sim_svg *s) { sim_strbuf_free(s); }

void sim_svg_rect(sim_svg *s, double x, double y, double w, double h, const char *fill,
                  const char *cls, const char *t)
{
    sim_svg_raw(s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"", fin(x),
                fin(y), fmax(0.0, fin(w)), fmax(0.0, fin(h)), fill);
    cls_attr(s, cls);
    if (t) {
        sim_svg_raw(s, ">");
        tip(s, t);
        sim_svg_raw(s, "</rect>");
    } else {
        sim_svg_raw(s, "/>");
    }
}

void sim_svg_circle(sim_svg *s, double cx, double cy, double r, const char *fill, const char *cls,
                    const char *t)
{
    sim_svg_raw(s,
                "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\" fill-opacity=\"0.75\" "
                "stroke=\"#333333\" stroke-width=\"0.6\"",
                fin(cx), fin(cy), fmax(0.0, fin(r)), fill);
    cls_attr(s, cls);
    sim_svg_raw(s, ">");
    tip(s, t);
    sim_svg_raw(s, "</circle>");
}

static void dash_attr(sim_svg *s, const char *dash)
{
    if (dash)
        sim_svg_raw(s, " stroke-dasharray=\"%s\"", dash);
}

void sim_svg_line(sim_svg *s, double x1, double y1, double x2, double y2, const char *stroke,
                  double width, const char *dash)
{
    sim_svg_raw(s,
                "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                "stroke-width=\"%.2f\"",
                fin(x1), fin(y1), fin(x2), fin(y2), stroke, fin(width));
    dash_attr(s, dash);
    sim_svg_raw(s, "/>");
}

void sim_svg_polyline(sim_svg *s, const double *x, const double *y, size_t n, const char *stroke,
                      double width, const char *dash, const char *cls)
{
    sim_svg_raw(s, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.2f\"", stroke,
                fin(width));
    dash_attr(s, dash);
    cls_attr(s, cls);
    sim_svg_raw(s, " points=\"");
    for (size_t i = 0; i < n; i++)
        sim_svg_raw(s, "%s%.2f,%.2f", i ? " " : "", fin(x[i]), fin(y[i]));
    sim_svg_raw(s, "\"/>");
}

void sim_svg_text(sim_svg *s, double x, double y, sim_svg_anchor anchor, double size, bool bold,
                  double deg, const char *text)
{
    static const char *const anchors[] = {"start", "middle", "end"};
    sim_svg_raw(
        s, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\" text-anchor=\"%s\" fill=\"#222222\"",
        fin(x), fin(y), fin(size), anchors[anchor]);
    if (bold)
        sim_svg_raw(s, " font-weight=\"bold\"");
    if (deg != 0.0)
        sim_svg_raw(s, " transform=\"rotate(%.1f %.2f %.2f)\"", fin(deg), fin(x), fin(y));
    sim_svg_raw(s, ">");
    sim_svg_escaped(s, text);
    sim_svg_raw(s, "</text>");
}

/* ------------------------------------------------------------------------------------------ */
/* Scales */

/* The round step (1, 2 or 5 x 10^k) that cuts `span` into about `parts` pieces. */
static double nice_step(double span, double parts)
{
    double raw = span / parts;
    double p = pow(10.0, floor(log10(raw)));
    double f = raw / p;
    return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * p;
}

sim_scale sim_scale_linear(double lo, double hi, double r0, double r1)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        lo = 0.0;
        hi = 1.0;
    }
    if (hi < lo) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    if (hi - lo <= 1e-12 * fmax(1.0, fabs(hi))) { /* one value: an axis from 0 past it */
        lo = hi > 0.0 ? 0.0 : hi < 0.0 ? hi * 1.5 : 0.0;
        hi = hi > 0.0 ? hi * 1.5 : hi < 0.0 ? 0.0 : 1.0;
    }
    double step = nice_step(hi - lo, 5.0);
    return (sim_scale){floor(lo / step) * step, ceil(hi / step) * step, r0, r1, false};
}

sim_scale sim_scale_linear_exact(double lo, double hi, double r0, double r1)
{
    sim_scale sc = sim_scale_linear(lo, hi, r0, r1);
    if (isfinite(lo) && isfinite(hi) && hi > lo) {
        sc.d0 = lo;
        sc.d1 = hi;
    }
    return sc;
}

sim_scale sim_scale_log(double lo, double hi, double r0, double r1)
{
    if (!(lo > 0.0) || !isfinite(lo))
        lo = 1.0;
    if (!(hi > 0.0) || !isfinite(hi))
        hi = lo;
    if (hi < lo) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    double a = floor(log10(lo)), b = ceil(log10(hi));
    if (b <= a)
        b = a + 1.0;
    return (sim_scale){pow(10.0, a), pow(10.0, b), r0, r1, true};
}

/* Where v falls in the domain, 0 at d0 and 1 at d1, not clamped (log: v <= 0 is d0). */
static double scale_unit(const sim_scale *sc, double v)
{
    if (sc->log) {
        double lv = v > 0.0 && isfinite(v) ? log10(v) : log10(sc->d0);
        return (lv - log10(sc->d0)) / (log10(sc->d1) - log10(sc->d0));
    }
    return (fin(v) - sc->d0) / (sc->d1 - sc->d0);
}

double sim_scale_map(const sim_scale *sc, double v)
{
    double t = scale_unit(sc, v);
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return sc->r0 + t * (sc->r1 - sc->r0);
}

bool sim_svg_clip(const sim_scale *x, const sim_scale *y, double xa, double ya, double xb,
                  double yb, double px[2], double py[2])
{
    /* Liang-Barsky on the unit square: the segment a + t (b - a), t in [0, 1], cut to where both
     * coordinates lie in [0, 1] */
    double ua = scale_unit(x, xa), va = scale_unit(y, ya);
    double du = scale_unit(x, xb) - ua, dv = scale_unit(y, yb) - va;
    double t0 = 0.0, t1 = 1.0;
    const double p[4] = {-du, du, -dv, dv}, q[4] = {ua, 1.0 - ua, va, 1.0 - va};
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0.0) {
            if (q[k] < 0.0)
                return false; /* parallel to this edge and outside it */
            continue;
        }
        double t = q[k] / p[k];
        if (p[k] < 0.0)
            t0 = fmax(t0, t);
        else
            t1 = fmin(t1, t);
    }
    if (!(t0 <= t1) || !isfinite(ua + va + du + dv))
        return false;
    for (int e = 0; e < 2; e++) {
        double t = e ? t1 : t0;
        px[e] = x->r0 + (ua + t * du) * (x->r1 - x->r0);
        py[e] = y->r0 + (va + t * dv) * (y->r1 - y->r0);
    }
    return true;
}

size_t sim_scale_ticks(const sim_scale *sc, double *out, size_t max)
{
    size_t n = 0;
    if (sc->log) {
        double a = round(log10(sc->d0)), b = round(log10(sc->d1));
        double every = ceil((b - a) / 8.0); /* at most ~9 labelled decades */
        // NOLINTNEXTLINE(cert-flp30-c): bounded by n < max, not by the float
        for (double e = a; e <= b + 1e-9 && n < max; e += every)
            out[n++] = pow(10.0, e);
        return n;
    }
    double step = nice_step(sc->d1 - sc->d0, 5.0);
    /* from the first multiple of the step in the domain (d0 unless the domain is exact) */
    double first = ceil(sc->d0 / step - 1e-6) * step;
    // NOLINTNEXTLINE(cert-flp30-c): bounded by n < max, not by the float
    for (double v = first; v <= sc->d1 + step * 1e-6 && n < max; v += step)
        out[n++] = fabs(v) < step * 1e-9 ? 0.0 : v;
    return n;
}

void sim_svg_fmt(char *buf, size_t len, double v)
{
    static const struct {
        double at;
        const char *suffix;
    } si[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    double a = fabs(v);
    if (!isfinite(v)) {
        snprintf(buf, len, "0");
        return;
    }
    if (a >= 1e18) {
        snprintf(buf, len, "%.0e", v);
        return;
    }
    for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
        if (a >= si[i].at) {
            snprintf(buf, len, "%g%s", round(v / si[i].at * 100.0) / 100.0, si[i].suffix);
            return;
        }
    if (a > 0.0 && a < 1e-3)
        snprintf(buf, len, "%.0e", v);
    else
        snprintf(buf, len, "%g", round(v * 1e4) / 1e4);
}

/* ------------------------------------------------------------------------------------------ */
/* Axes and legends */

enum { MARGIN_LEFT = 74, MARGIN_TOP = 64, MARGIN_BOTTOM = 50, MARGIN_RIGHT = 170 };

sim_svg_frame sim_svg_plot_area(double width, double height)
{
    return (sim_svg_frame){MARGIN_LEFT, MARGIN_TOP, width - MARGIN_RIGHT, height - MARGIN_BOTTOM};
}

void sim_svg_title(sim_svg *s, double width, const char *title, const char *subtitle)
{
    sim_svg_text(s, 12, 20, SIM_SVG_START, 15, true, 0, title);
    /* the subtitle in at most two lines of what fits (10 px sans-serif: ~5.6 px a character),
     * broken at spaces, the rest cut with "..." */
    size_t fit = (size_t)((width - 24.0) / 5.6), len = subtitle ? strlen(subtitle) : 0;
    const char *p = subtitle;
    for (int line = 0; line < 2 && len > 0; line++) {
        char buf[512];
        size_t n = len;
        if (n > fit) {
            n = fit;
            while (n > fit / 2 && p[n] != ' ')
                n--;
        }
        if (n >= sizeof buf - 4)
            n = sizeof buf - 4;
        memcpy(buf, p, n);
        buf[n] = '\0';
        if (line == 1 && n < len)
            memcpy(buf + (n > 3 ? n - 3 : 0), "...", 4);
        sim_svg_text(s, 12, 35 + 12.0 * line, SIM_SVG_START, 10, false, 0, buf);
        p += n;
        len -= n;
        while (len > 0 && *p == ' ') {
            p++;
            len--;
        }
    }
}

void sim_svg_axes(sim_svg *s, const sim_svg_frame *f, const sim_scale *x, const sim_scale *y,
                  const char *xlabel, const char *ylabel)
{
    double ticks[32];
    char label[32];
    sim_svg_raw(s, "<g class=\"axes\">");
    size_t n = x ? sim_scale_ticks(x, ticks, 32) : 0;
    for (size_t i = 0; i < n; i++) {
        double px = sim_scale_map(x, ticks[i]);
        sim_svg_line(s, px, f->y0, px, f->y1, "#e4e4e4", 1, NULL);
        sim_svg_line(s, px, f->y1, px, f->y1 + 5, "#555555", 1, NULL);
        sim_svg_fmt(label, sizeof label, ticks[i]);
        sim_svg_text(s, px, f->y1 + 17, SIM_SVG_MIDDLE, 10.5, false, 0, label);
    }
    n = y ? sim_scale_ticks(y, ticks, 32) : 0;
    for (size_t i = 0; i < n; i++) {
        double py = sim_scale_map(y, ticks[i]);
        sim_svg_line(s, f->x0, py, f->x1, py, "#e4e4e4", 1, NULL);
        sim_svg_line(s, f->x0 - 5, py, f->x0, py, "#555555", 1, NULL);
        sim_svg_fmt(label, sizeof label, ticks[i]);
        sim_svg_text(s, f->x0 - 8, py + 3.5, SIM_SVG_END, 10.5, false, 0, label);
    }
    sim_svg_raw(s,
                "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
                "stroke=\"#555555\"/>",
                f->x0, f->y0, f->x1 - f->x0, f->y1 - f->y0);
    if (xlabel)
        sim_svg_text(s, (f->x0 + f->x1) / 2, f->y1 + 36, SIM_SVG_MIDDLE, 12, false, 0, xlabel);
    if (ylabel)
        sim_svg_text(s, f->x0 - 54, (f->y0 + f->y1) / 2, SIM_SVG_MIDDLE, 12, false, -90, ylabel);
    sim_svg_raw(s, "</g>");
}

double sim_svg_text_width(const char *text, double size)
{
    return 0.6 * size * (double)(text ? strlen(text) : 0);
}

void sim_svg_xcats(sim_svg *s, const sim_svg_frame *f, const char *const *labels, size_t n,
                   const char *xlabel)
{
    enum { SIZE = 10, GAP = 6 };
    double band = n ? (f->x1 - f->x0) / (double)n : 0.0, widest = 0.0;
    for (size_t i = 0; i < n; i++)
        widest = fmax(widest, sim_svg_text_width(labels[i], SIZE));
    /* one row when every label fits its band; else two staggered rows (a label has two bands),
     * and past that every k-th label on them (a label then has 2k bands) */
    size_t rows = widest + GAP <= band ? 1 : 2, every = 1;
    while (rows == 2 && widest + GAP > 2.0 * band * (double)every && every < n)
        every++;
    sim_svg_raw(s, "<g class=\"xcats\">");
    for (size_t i = 0; i < n; i++) {
        double px = f->x0 + band * ((double)i + 0.5);
        sim_svg_line(s, px, f->y1, px, f->y1 + 5, "#555555", 1, NULL);
        if (i % every == 0)
            sim_svg_text(s, px, f->y1 + 17 + 12.0 * (double)((i / every) % rows), SIM_SVG_MIDDLE,
                         SIZE, false, 0, labels[i]);
    }
    sim_svg_raw(s, "</g>");
    if (xlabel)
        sim_svg_text(s, (f->x0 + f->x1) / 2, f->y1 + 36 + 12.0 * (double)(rows - 1), SIM_SVG_MIDDLE,
                     12, false, 0, xlabel);
}

void sim_svg_legend(sim_svg *s, double x, double y, const sim_svg_key *keys, size_t n)
{
    sim_svg_raw(s, "<g class=\"legend\">");
    for (size_t i = 0; i < n; i++) {
        double row = y + 18.0 * (double)i;
        if (keys[i].line)
            sim_svg_line(s, x, row - 4, x + 16, row - 4, keys[i].colour, 2.5, NULL);
        else
            sim_svg_rect(s, x + 2, row - 10, 12, 12, keys[i].colour, NULL, NULL);
        sim_svg_text(s, x + 22, row, SIM_SVG_START, 11, false, 0, keys[i].label);
    }
    sim_svg_raw(s, "</g>");
}
