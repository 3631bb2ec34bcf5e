/* charts_internal.h - what the chart files share (private to sim/charts*.c): the picture size, the
 * SLO colour and max2.
 *
 * charts.c draws a run's pictures (roofline, step by op, memory plan, speculation), charts_serve.c
 * a serving run's (latency CDFs, over simulated time, the request Gantt) and charts_sweep.c a
 * sweep's (Pareto frontier, one dimension) and a validation's (predicted against measured); the
 * public functions of all three are declared in charts.h.
 */
#ifndef SIM_CHARTS_INTERNAL_H
#define SIM_CHARTS_INTERNAL_H

#define SLO_COLOUR "#d62728"

enum { W = 780, H = 420 }; /* a chart's width and plot height, px */

static inline double max2(double a, double b) { return a > b ? a : b; }

#endif
