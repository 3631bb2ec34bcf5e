/* cli_point.h - one run or serve computation from the flags (private to sim/cli*.c): the run,
 * serve and compare commands compute one point, sweep one per grid point (on any thread, its
 * files from a preloaded cache).
 */
#ifndef SIM_CLI_POINT_H
#define SIM_CLI_POINT_H

#include <stdint.h>

#include "cli_load.h"
#include "cluster.h"
#include "engine.h"
#include "metrics.h"
#include "run.h"
#include "series.h"

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

#endif
