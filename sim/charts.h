/* charts.h - the pictures of a result, as SVG: pure functions from result structs to an
 * <svg> element appended to a sim_svg (svg.h). No I/O; html.h puts them on a page.
 *
 * Every chart has a title, axes with units, a legend, and as its subtitle the `flags` that
 * produced it (the command line). What each draws, so tests can count it:
 *   roofline   one <circle class="op"> per op of each step with FLOPs and bytes > 0 (ops without
 *              FLOPs - collectives, gathers - cannot sit on a log-log roofline and are listed
 *              under the legend), one roof per compute format the device has;
 *   step ops   per step one bar of <rect class="op">, one per present op (its exposed time x
 *              repeats) plus a host segment, and one bar of <rect class="part"> for the busy
 *              time's math-bound and memory-bound parts, exposed network, launch and host;
 *   pareto     one <circle class="pt"> per evaluated point, the frontier as one
 *              <polyline class="front"> in frontier order (x ascending).
 */
#ifndef SIM_CHARTS_H
#define SIM_CHARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster.h"
#include "engine.h"
#include "hw.h"
#include "mem.h"
#include "metrics.h"
#include "run.h"
#include "series.h"
#include "step.h"
#include "svg.h"
#include "sweep.h"

/* The device's roofline (log-log: a bandwidth slope and one flat roof per compute format, with
 * its ridge) and every op of the steps at its intensity and achieved FLOP/s (one instance's
 * FLOPs over its time), sized by its share of its step's time. decode may be NULL. */
void sim_chart_roofline(sim_svg *s, const sim_hw *hw, const sim_step_result *prefill,
                        const sim_step_result *decode, const char *flags);

/* Each step as a bar of its ops and a bar of math / memory / network / launch / host. */
void sim_chart_step_ops(sim_svg *s, const sim_step_result *const *steps, const char *const *names,
                        size_t n, const char *flags);

/* The memory plan: weights, KV cache, activations and runtime reserve against the capacity. */
void sim_chart_memory(sim_svg *s, const sim_mem_report *m, const char *flags);

/* Speculative decoding: one iteration's draft and verify time against the plain decode step. */
void sim_chart_spec(sim_svg *s, const sim_run_result *r, const char *flags);

/* The empirical CDF of one metric over the run's requests (ITL: over all gaps), with p50, p90
 * and p99 marked and the SLO as a line when slo_ms > 0. */
void sim_chart_cdf(sim_svg *s, const sim_engine_result *res, sim_metric m, const sim_dist *d,
                   double slo_ms, const char *flags);

/* Over simulated time, from the series: */
typedef enum sim_series_view {
    SIM_VIEW_REQUESTS,    /* running and waiting requests (mean per iteration) */
    SIM_VIEW_TOKENS,      /* batch tokens per iteration, prefill and decode stacked */
    SIM_VIEW_KV,          /* peak KV-cache usage, % of blocks */
    SIM_VIEW_PREEMPTIONS, /* preemptions per bucket */
    SIM_VIEW_COUNT
} sim_series_view;
void sim_chart_series(sim_svg *s, const sim_series *ser, sim_series_view v, int64_t duration_ns,
                      const char *flags);

/* An autoscaled pool (cluster.h) over simulated time: the replicas ready and held after each
 * evaluation, as steps from MIN at 0 to the run's end. */
void sim_chart_autoscale(sim_svg *s, const sim_cluster_result *c, int64_t duration_ns,
                         const char *flags);

/* Several engines (--replicas, --disagg), one line per instance (the first
 * SIM_CHART_MAX_INSTANCES), from series aligned to one bucket width (sim_series_set_align):
 * SIM_VIEW_REQUESTS requests in the engine (running + waiting, mean per iteration),
 * SIM_VIEW_TOKENS batch tokens (prefill + decode, mean per iteration), SIM_VIEW_KV peak KV-cache
 * usage (% of the instance's blocks), SIM_VIEW_PREEMPTIONS preemptions per bucket. prefill: the
 * first `prefill` instances are a disaggregated deployment's prefill pool (named so); 0 for
 * replicas. */
enum { SIM_CHART_MAX_INSTANCES = 16 };
void sim_chart_series_instances(sim_svg *s, const sim_series_set *set, int prefill,
                                sim_series_view v, int64_t duration_ns, const char *flags);

/* Whether view v of a run has anything to show: all do but the preemptions when there were
 * none (a page leaves that panel out). */
bool sim_chart_series_shows(const sim_series *ser, sim_series_view v);

/* Up to max_rows requests, evenly spaced through the workload: queued, prefill, decode. */
void sim_chart_gantt(sim_svg *s, const sim_engine_result *res, size_t max_rows, const char *flags);

/* A sweep's points for the charts. */
typedef struct sim_chart_sweep {
    const sim_sweep_row *rows;
    size_t n;
    const sim_grid *grid;
    bool has_slo;
    double slo_ms[SIM_M_COUNT]; /* the SLO (0: not given) */
    int pct;                    /* percentile the latencies are at */
    const char *flags;
    const char *decision; /* --uncertainty: how sure the best or cheapest point is (the sweep
                           * summary's line), or NULL */
    /* the point the command line names (--objective's winner: rows[best], n for none); with
     * best_given false the highest throughput per GPU under the SLO */
    size_t best;
    bool best_given;
    const char *objective; /* "throughput", "cost" or "energy" (NULL: throughput) */
} sim_chart_sweep;

/* The row the pictures highlight: sw->best when given, else the best under the SLO (n: none). */
size_t sim_chart_sweep_best(const sim_chart_sweep *sw);

/* Cost per million output tokens against TPOT (or TTFT) at the SLO percentile: the points with a
 * price, the SLO, the objective's point labelled. */
void sim_chart_sweep_cost(sim_svg *s, const sim_chart_sweep *sw, bool by_ttft);

/* Output throughput per GPU against TPOT (or TTFT) at the SLO percentile: every point, the
 * Pareto frontier, the points meeting the SLO, the best one labelled. */
void sim_chart_pareto(sim_svg *s, const sim_chart_sweep *sw, bool by_ttft);

/* One small panel for grid dimension `dim`: throughput per GPU of every point at each value. */
void sim_chart_sweep_dim(sim_svg *s, const sim_chart_sweep *sw, size_t dim);

/* Prediction against measurement: one bar per metric of its signed error (predicted - measured)
 * / measured in %, with the measured and predicted values beside it. Metrics measured as 0 or
 * not measured (measured < 0) get a row with no bar. */
void sim_chart_compare(sim_svg *s, const char *const *names, const double *measured,
                       const double *predicted, size_t n, const char *flags);

/* A rate search's probes (capacity): each probe's rate, whether it met the SLO, and each SLO
 * metric at the percentile. Only finite rates are charted. */
typedef struct sim_chart_capacity {
    const double *rate;               /* req/s */
    const bool *met;                  /* the SLO held and the deployment kept up */
    const double *value[SIM_M_COUNT]; /* value[m][i]: metric m at probe i (NULL: not an SLO's) */
    size_t n;
    double slo_ms[SIM_M_COUNT];
    double pct;
    double max_rate; /* the rate found (0: none met; inf: every rate) */
    const char *flags;
} sim_chart_capacity;

/* Metric m at the SLO percentile against the request rate (log axis when the rates span more
 * than 30x): every probe, met or missed, the SLO's line and the rate found. */
void sim_chart_capacity_metric(sim_svg *s, const sim_chart_capacity *c, sim_metric m);

/* A plan's deployments that serve the rate, for the charts. */
typedef struct sim_chart_plan_point {
    const char *group; /* "llama-3.1-70b on h100-sxm": one colour each */
    char label[160];   /* "vllm fp8 3 x TP 4" */
    double gpus, usd_per_hour, ttft_ms, tpot_ms;
} sim_chart_plan_point;

typedef struct sim_chart_plan {
    const sim_chart_plan_point *pts;
    size_t n;
    size_t winner; /* index into pts (n: none) */
    double slo_ms[SIM_M_COUNT];
    double pct;
    const char *flags;
    /* the winner served once more at the rate: each instance's run over time (NULL: none),
     * `winner_prefill` its disaggregated prefill instances (0: replicas), the run's length and
     * what the deployment is ("trtllm fp8 3 x TP 2 on h100-sxm") */
    const sim_series_set *winner_series;
    int winner_prefill;
    int64_t winner_duration_ns;
    const char *winner_label;
} sim_chart_plan;

/* US$ per hour against TPOT (or TTFT) at the percentile, a colour per group, the winner circled. */
void sim_chart_plan_cost(sim_svg *s, const sim_chart_plan *p, bool by_ttft);

/* The cheapest US$ per hour of each group, one bar each, with its GPUs. */
void sim_chart_plan_groups(sim_svg *s, const sim_chart_plan *p);

#endif
