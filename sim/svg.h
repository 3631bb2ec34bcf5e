/* svg.h - a small SVG writer: a growing text buffer, scales (linear and log), axes with ticks,
 * titles, legends and XML escaping. Every chart (charts.h) draws through it; nothing here knows
 * what is plotted.
 *
 * Example:
 *   sim_svg s = {0};
 *   sim_svg_begin(&s, 720, 400, "Roofline");         // <svg ... role="img"><title>Roofline</title>
 *   sim_svg_frame fr = sim_svg_plot_area(720, 400);     // the plot rectangle inside the margins
 *   sim_scale x = sim_scale_log(0.1, 1e4, fr.x0, fr.x1);
 *   sim_scale y = sim_scale_linear(0, 1000, fr.y1, fr.y0);   // y grows upwards
 *   sim_svg_axes(&s, &fr, &x, &y, "intensity (FLOP/byte)", "achieved (TFLOP/s)");
 *   sim_svg_circle(&s, sim_scale_map(&x, 8.0), sim_scale_map(&y, 42.0), 4, "#1f77b4", "op",
 *                  "attention");                      // class "op", tooltip "attention"
 *   sim_svg_end(&s);
 *   ... s.s holds the <svg> element (NUL-terminated), s.oom says whether memory ran out ...
 *   sim_svg_free(&s);
 *
 * Text given to any function is escaped (& < > " '); colours and classes are the caller's
 * constants. Coordinates are pixels, printed with two decimals; a non-finite coordinate is drawn
 * at 0 so the output never holds NaN or inf. Tooltips are <title> children (native in browsers).
 */
#ifndef SIM_SVG_H
#define SIM_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"

/* The document so far: a text buffer (s: NUL-terminated, owned; oom: an append failed). */
typedef sim_strbuf sim_svg;

/* Appends printf-formatted raw text (no escaping: markup the caller owns). */
void sim_svg_raw(sim_svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends `text` escaped for XML content or attribute values. */
void sim_svg_escaped(sim_svg *s, const char *text);

/* Opens <svg width height viewBox role="img"> with a <title> (the accessible name). */
void sim_svg_begin(sim_svg *s, double width, double height, const char *title);
void sim_svg_end(sim_svg *s);
void sim_svg_free(sim_svg *s);

/* Shapes. fill/stroke are colours ("#1f77b4", "none"); cls a CSS class or NULL; tip a tooltip
 * or NULL. */
void sim_svg_rect(sim_svg *s, double x, double y, double w, double h, const char *fill,
                  const char *cls, const char *tip);
void sim_svg_circle(sim_svg *s, double cx, double cy, double r, const char *fill, const char *cls,
                    const char *tip);
void sim_svg_line(sim_svg *s, double x1, double y1, double x2, double y2, const char *stroke,
                  double width, const char *dash);
void sim_svg_polyline(sim_svg *s, const double *x, const double *y, size_t n, const char *stroke,
                      double width, const char *dash, const char *cls);

typedef enum sim_svg_anchor { SIM_SVG_START, SIM_SVG_MIDDLE, SIM_SVG_END } sim_svg_anchor;

/* Text at (x, y) (the baseline), size in px, bold or not, rotated by `deg` about (x, y). */
void sim_svg_text(sim_svg *s, double x, double y, sim_svg_anchor anchor, double size, bool bold,
                  double deg, const char *text);

/* ------------------------------------------------------------------------------------------ */
/* Scales: a data interval onto a pixel interval (r0 may exceed r1: y axes grow upwards). */

typedef struct sim_scale {
    double d0, d1; /* data domain (log: both > 0) */
    double r0, r1; /* pixels */
    bool log;      /* base-10 logarithmic */
} sim_scale;

/* A linear scale whose domain is [lo, hi] widened to round tick values (1, 2, 5 x 10^k). A
 * degenerate interval (lo == hi) is widened around its value. */
sim_scale sim_scale_linear(double lo, double hi, double r0, double r1);

/* A linear scale whose domain is exactly [lo, hi] (a time axis that ends where the run ends);
 * its ticks are the round values inside it. Degenerate input is widened as sim_scale_linear. */
sim_scale sim_scale_linear_exact(double lo, double hi, double r0, double r1);

/* A log scale whose domain is [lo, hi] widened to whole decades. lo and hi must be > 0 (values
 * <= 0 are taken as 1). */
sim_scale sim_scale_log(double lo, double hi, double r0, double r1);

/* Pixel position of v (clamped into the domain; log scales clamp v <= 0 to the domain's low
 * end). */
double sim_scale_map(const sim_scale *sc, double v);

/* The segment from (xa, ya) to (xb, yb) in data units, straight in the scales' space (a line
 * y = c x on log-log axes), cut to the part inside both domains: its ends in pixels in px, py.
 * Returns false when no part is inside. Unlike sim_scale_map on each end, the slope is kept.
 * For instance, on log x [1, 100] and log y [1, 100], y = 10 x from x = 1 to 100 is drawn from
 * (1, 10) to (10, 100). */
bool sim_svg_clip(const sim_scale *x, const sim_scale *y, double xa, double ya, double xb,
                  double yb, double px[2], double py[2]);

/* Tick values inside the domain: decades for log scales, 1-2-5 steps for linear (about 6).
 * Returns how many were written (at most max). */
size_t sim_scale_ticks(const sim_scale *sc, double *out, size_t max);

/* A number as a short tick label: 0.001 0.5 12 1.5k 20M 3G 1T 1e+18 (SI suffixes). */
void sim_svg_fmt(char *buf, size_t len, double v);

/* ------------------------------------------------------------------------------------------ */
/* A plot: the rectangle inside the margins, axes, legend */

typedef struct sim_svg_frame {
    double x0, y0, x1, y1; /* plot area in pixels: left, top, right, bottom */
} sim_svg_frame;

/* The plot area of a width x height chart with the standard margins (title on top, tick labels
 * and axis titles left and below, room for a legend on the right). */
sim_svg_frame sim_svg_plot_area(double width, double height);

/* The chart title (bold, top left) and under it the subtitle (the flags, smaller) in at most two
 * lines of a chart `width` px wide, cut with "..." past that. */
void sim_svg_title(sim_svg *s, double width, const char *title, const char *subtitle);

/* Frame, grid lines, ticks and labels on both axes, and the axis titles (with units). A NULL
 * scale draws no ticks on that axis (a categorical or single-bar axis). */
void sim_svg_axes(sim_svg *s, const sim_svg_frame *f, const sim_scale *x, const sim_scale *y,
                  const char *xlabel, const char *ylabel);

/* The width a text of `size` px takes, estimated (0.6 em a character: sans-serif digits and
 * lower case are narrower), for laying labels out so that they do not overlap. */
double sim_svg_text_width(const char *text, double size);

/* A categorical x axis: `n` labels centred in equal bands across the frame, in a
 * <g class="xcats">. Labels too wide for their band are staggered over two rows, and past that
 * only every k-th is written (each tick stays), so that no two overlap; the axis title moves
 * down a row when two are used (leave 60 px under the frame). */
void sim_svg_xcats(sim_svg *s, const sim_svg_frame *f, const char *const *labels, size_t n,
                   const char *xlabel);

/* A legend: a column of swatches (a square, or a line when `line` is true) and labels, from
 * (x, y) downwards, in a <g class="legend">. */
typedef struct sim_svg_key {
    const char *label;
    const char *colour;
    bool line;
} sim_svg_key;
void sim_svg_legend(sim_svg *s, double x, double y, const sim_svg_key *keys, size_t n);

#endif
