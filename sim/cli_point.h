/* cli_point.h - one run or serve computation from the flags (private to sim/cli*.c): the run,
 * serve and compare commands compute one point, sweep one per grid point (on any thread, its
 * files from a preloaded cache).
 */
#ifndef SIM_CLI_POINT_H
#define SIM_CLI_POINT_H

#include <stdint.h>

#include "cli_load.h"
#include "cluster.h"
#include "dataset.h"
#include "engine.h"
#include "metrics.h"
#include "run.h"
#include "series.h"
#include "unc.h"

/* A static batch: loaded, checked, simulated. */
sim_status cli_point_run(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                         sim_run_cfg *cfg, sim_run_result *r, sim_err *err);

/* Refuses a timeline estimated past --trace-max-mb (est_bytes, naming `what`), before a byte of
 * it is written. */
sim_status cli_point_check_trace_size(const cli_opts *o, double est_bytes, const char *what,
                                      sim_err *err);

typedef struct cli_point_serve_state {
    sim_engine_cfg cfg;
    sim_series *series;    /* with --html: the run over time (owned) */
    sim_workload own;      /* a synthetic workload */
    const sim_workload *w; /* &own or a cached trace */
    sim_engine_result res;
    sim_serve_metrics m;
    sim_slo slo;
    double usd_per_gpu_hour;    /* as cli_load_result's */
    int64_t gpus;               /* every GPU the deployment holds */
    sim_cluster_result cluster; /* per-instance load with --replicas > 1 or --disagg */
    sim_engine_cfg prefill;     /* --disagg: the prefill instances' configuration */
    int64_t spec_break_even;    /* speculation: the batch it stops paying at, for the workload's
                                 * mean lengths (run.h; 0: none) */
} cli_point_serve_state;

/* GPUs of a serving point: s->gpus when set, else tp x pp. */
int64_t cli_point_serve_gpus(const cli_point_serve_state *s);

/* A serving run with the workload drawn from `seed`; a --chrome-trace is written alongside. */
sim_status cli_point_serve(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                           uint64_t seed, cli_point_serve_state *s, sim_err *err);

void cli_point_serve_free(cli_point_serve_state *s);

/* The draws of a point (--uncertainty N): every headline metric's value under each draw (the
 * same draws for every point of a sweep: paired), their bands, and a serving point's capacity. */
typedef struct cli_point_draws {
    int n; /* draws; 0: none */
    size_t n_keys;
    char keys[SIM_UNC_BAND_MAX][40];
    double *v;         /* v[k * n + d]: key k under draw d (owned) */
    sim_unc_band band; /* their 10th and 90th percentiles */
    double capacity_rps, capacity_lo, capacity_hi; /* serve: capacity.h, nominal and band */
    double offered_rps;                            /* serve: requests/s offered; 0: unbounded */
} cli_point_draws;

/* Whether `key` is a headline metric of run (serve false) or serve that gets a band. */
bool cli_point_band_key(bool serve, const char *key);

/* The power estimate's sigma in the uncertainty table the point reads (--uncertainty-table or
 * the shipped one): how uncertain an energy decision is. */
sim_status cli_point_power_sigma(const cli_opts *o, double *sigma, sim_err *err);

/* The draws --uncertainty asks for (its default: run 16, serve 8; 0: none). */
int cli_point_draw_count(const cli_opts *o, bool serve);

/* Re-runs the static batch under each draw (the table from --uncertainty-table or the data
 * roots) and points cfg->band at d's band. Nothing with --uncertainty 0. With the default count
 * a run of more than 65 decode steps draws its prefill as it is and 64 decode steps around the
 * same mean context (TPOT by their ratio to the nominal ones; E2E, throughput and cost from
 * them as run.c computes them). */
sim_status cli_point_run_band(const cli_opts *o, const cli_load_result *L, sim_run_cfg *cfg,
                              cli_point_draws *d, sim_err *err);

/* Re-runs the serving point under each draw with the same workload (with the default count, the
 * draws serve the first tenth of the requests, at least 64, and a metric's band is the nominal
 * value times the draws' spread around the nominal run of that prefix), and its capacity. */
sim_status cli_point_serve_band(const cli_opts *o, const cli_load_result *L,
                                const cli_point_serve_state *s, cli_point_draws *d, sim_err *err);

/* The n values of `key` under the draws, or NULL. */
const double *cli_point_draws_of(const cli_point_draws *d, const char *key);

/* A warning when the offered load is past the capacity or its band straddles 1 (to `warn`). */
void cli_point_warn_capacity(const cli_point_draws *d, FILE *warn);

/* A note when the point has bands and its device has no measured efficiency (default-only: none
 * fitted on its rows nor inherited from a measured part; sim_hw_default_only), to `warn`. */
void cli_point_warn_provenance(const cli_point_draws *d, const sim_hw *hw, FILE *warn);

void cli_point_draws_free(cli_point_draws *d);

/* Whether --dataset-name names a public dataset's lengths (not vLLM's random or
 * prefix_repetition), and that dataset's fit from tools/data/datasets.json in the data roots. */
bool cli_point_public_dataset(const cli_opts *o);
sim_status cli_point_dataset(const cli_opts *o, const cli_load_cache *cache, sim_dataset *ds,
                             sim_err *err);

#endif
