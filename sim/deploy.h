/* deploy.h - the deployment a serving run asks for, chosen and run in one call: prefill and
 * decode pools (disagg.h), replicas or an autoscaled pool behind a router (cluster.h), or one
 * engine (engine.h); and the batch limits and GPUs the command line sizes them by.
 *
 * Example (const sim_cluster_cfg *cc, const sim_workload *w, sim_err *err):
 *   sim_engine_result all;
 *   sim_cluster_result per;
 *   sim_status st = sim_deploy_run(cc, NULL, w, &all, &per, err); // no pools: replicas or one
 *   if (st)
 *       return st;
 *   sim_engine_result_free(&all);
 *   sim_cluster_result_free(&per);
 */
#ifndef SIM_DEPLOY_H
#define SIM_DEPLOY_H

#include <stdint.h>

#include "cluster.h"
#include "disagg.h"
#include "engine.h"

/* The deployment a serving run asks for, checked and run: prefill and decode pools when dc is
 * given with dc->n_prefill > 0 (sim_disagg_check, sim_disagg_run), else replicas or an
 * autoscaled pool when cc->replicas > 1 or cc->autoscale.max > 0 (sim_cluster_check,
 * sim_cluster_run), else the one engine cc->engine (sim_engine_run: *out is zeroed, no per-
 * instance load). `all` holds every request as the client saw it; free both results. */
sim_status sim_deploy_run(const sim_cluster_cfg *cc, const sim_disagg_cfg *dc,
                          const sim_workload *w, sim_engine_result *all, sim_cluster_result *out,
                          sim_err *err);

/* vLLM's data-parallel engines each keep their own batch limits: an engine of dp attention
 * groups (sim_par_dp of its step) schedules dp x --max-num-seqs sequences and dp x
 * --max-num-batched-tokens tokens an iteration (dp 4, 256 and 8192: 1024 and 32768). */
void sim_deploy_dp_limits(sim_engine_cfg *cfg);

/* Every GPU of prefill and decode pools: n_prefill x the prefill engine's tp x pp + n_decode x
 * the decode engine's (2 of TP 4 and 1 of TP 8: 16). */
int64_t sim_deploy_disagg_gpus(const sim_disagg_cfg *dc);

#endif
