/* cli_point.h - one run or serve computation from the flags (private to sim/cli*.c): the run,
 * serve and compare commands compute one point, sweep one per grid point (on any thread, its
 * files from a preloaded cache).
 */
#ifndef SIM_CLI_POINT_H
#define SIM_CLI_POINT_H

#include <stdint.h>

#include "cli_load.h"
#include "cluster.h"
#include "deploy.h"
#include "disagg.h"
#include "dataset.h"
#include "engine.h"
#include "metrics.h"
#include "run.h"
#include "series.h"
#include "unc.h"

/* A static batch: loaded, checked, simulated. */
sim_status cli_point_run(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                         sim_run_cfg *cfg, sim_run_result *r, sim_err *err);

/* The same, its decode steps through `decode` (run.h's sim_run_decode; NULL: none), which the
 * caller hands only to points of the same deployment, batch and prompt (a sweep's points along
 * --output-len, one per thread); cfg->decode is NULL again on return. */
sim_status cli_point_run_decode(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                                sim_run_decode *decode, sim_run_cfg *cfg, sim_run_result *r,
                                sim_err *err);

/* Refuses a timeline past --trace-max-mb (est_bytes, its size or estimate, naming `what`): a run's
 * before a byte of it is written, a serve's once its file passes the limit (timeline_serve.h). */
sim_status cli_point_check_trace_size(const cli_opts *o, double est_bytes, const char *what,
                                      sim_err *err);

typedef struct cli_point_serve_state {
    sim_engine_cfg cfg;
    sim_series *series;    /* with --html: the run over time (owned) */
    sim_series_set *instances; /* with --html and several engines: each one's (owned) */
    sim_workload own;      /* a synthetic workload */
    const sim_workload *w; /* &own or a cached trace */
    sim_engine_result res;
    sim_serve_metrics m;
    sim_slo slo;
    double usd_per_gpu_hour;    /* as cli_load_result's */
    int64_t gpus;               /* every GPU the deployment holds */
    sim_cluster_result cluster; /* per-instance load with --replicas > 1 or --disagg */
    sim_cluster_cfg cc;         /* the replicas' deployment as run (its engine and observer are
                                 * the run's: a band's draws replace both) */
    sim_engine_cfg prefill;     /* --disagg: the prefill instances' configuration */
    sim_hw prefill_hw;          /* --prefill-hw: their device (prefill.step.hw points here) */
    /* --replica-hw: per kind of device its file, per replica its configuration (owned) */
    sim_hw *mix_hw;
    sim_engine_cfg *mix_cfg;
    int64_t spec_break_even;    /* speculation: the batch it stops paying at, for the workload's
                                 * mean lengths (run.h; 0: none) */
} cli_point_serve_state;

/* The deployment flags (cli_point_fleet.c): --disagg P:D with --prefill-tp / --kv-stream into
 * dc (n_prefill 0 without it); --kv-offload into the engine's lower tiers at the device's host
 * link; --autoscale MIN:MAX with its metric, target, interval, provisioning and window into a
 * (max 0 without it; a replica's start is the provisioning plus its weight load). */
sim_status cli_point_disagg_flags(const cli_opts *o, sim_disagg_cfg *dc, sim_err *err);
sim_status cli_point_offload_flags(const cli_opts *o, const sim_hw *hw, sim_engine_offload *off,
                                   sim_err *err);
sim_status cli_point_autoscale_flags(const cli_opts *o, const sim_step_cfg *step,
                                     sim_autoscale *a, sim_err *err);
/* --replica-hw DEV:N,...: each device loaded, s->cfg copied onto it, cc->per_replica and
 * cc->replicas set; the price of a GPU-hour becomes the replicas' mean (unknown when one is). */
sim_status cli_point_mixed_replicas(const cli_opts *o, const cli_load_cache *cache,
                                    cli_point_serve_state *s, sim_cluster_cfg *cc, sim_err *err);

/* GPUs of a serving point: s->gpus when set, else tp x pp. */
int64_t cli_point_serve_gpus(const cli_point_serve_state *s);

/* A serving engine's configuration from the flags, as serve runs it (its files loaded into L,
 * the engine profile, the batch limits per data-parallel engine, speculation, --kv-offload),
 * checked against no workload yet: serve and the live endpoint. */
sim_status cli_point_engine(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                            uint64_t seed, sim_engine_cfg *cfg, sim_err *err);

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

/* The error table the draws read: --uncertainty-table, else tools/data/uncertainty.csv in the
 * data roots; from the cache when it loaded it (cli_load_cache_prepare; NULL: none). */
sim_status cli_point_unc_table(const cli_opts *o, const cli_load_cache *cache, sim_unc_table *t,
                               sim_err *err);

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

/* Whether --dataset-name names a public dataset (not vLLM's random or prefix_repetition), and
 * that dataset from tools/data/datasets.json in the data roots (cli_point_dataset.c): its fitted
 * lengths, or a production trace's name (ds->trace). */
bool cli_point_public_dataset(const cli_opts *o);
sim_status cli_point_dataset(const cli_opts *o, const cli_load_cache *cache, sim_dataset *ds,
                             sim_err *err);

/* A production trace's dataset as the workload: its first --num-prompts requests (the file under
 * the data roots' traces/, from the cache when it holds them: cli_point_dataset_cache_add) with
 * their gaps scaled to --request-rate (sim_workload_at_rate; inf: all at once) into own.
 * --burstiness and --sharegpt-output-len do not apply (exit 2), nor more requests than the trace
 * has. */
sim_status cli_point_dataset_workload(const cli_opts *o, const sim_dataset *ds,
                                      const cli_load_cache *cache, sim_workload *own,
                                      sim_err *err);

/* A trace dataset's requests into the cache before a parallel loop (nothing for other
 * datasets); SIM_EINTERNAL when out of memory. */
sim_status cli_point_dataset_cache_add(const cli_opts *o, const sim_dataset *ds,
                                       cli_load_cache *cache, sim_err *err);

/* A trace dataset's lengths measured (ds->in and ds->out from its first --num-prompts
 * requests: sim_workload_stats_of) and, when st is given, their rate and gaps' CV; a fitted
 * dataset is left as it is (st zeroed). */
sim_status cli_point_dataset_stats(const cli_opts *o, sim_dataset *ds, sim_workload_stats *st,
                                   sim_err *err);

#endif
