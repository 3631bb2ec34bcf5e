/* cluster_timeline.h - the Chrome trace timeline of a deployment of several engines: replicas
 * behind a router, or disaggregated prefill and decode pools (cluster.h, disagg.h).
 *
 * Example (sim_cluster_cfg *cfg, const sim_workload *w, const char *path, sim_err *err):
 *   sim_cluster_trace ct;
 *   sim_status st = sim_cluster_trace_open(&ct, path, 0, cfg->replicas, err); // 0: no prefill
 *   if (st)
 *       return st;
 *   cfg->observer = &ct.observer;
 *   sim_engine_result all;
 *   sim_cluster_result per;
 *   if ((st = sim_cluster_run(cfg, w, &all, &per, err))) { // or sim_disagg_run
 *       sim_cluster_trace_abort(&ct);
 *       return st;
 *   }
 *   st = sim_cluster_trace_close(&ct, err);
 *   sim_engine_result_free(&all);
 *   sim_cluster_result_free(&per);
 *   return st;
 *
 * One process per instance ("replica 2", "prefill 0", "decode 1") with its iterations on one
 * track (args: batch size, prefill and decode tokens, KV blocks used) and a "kv cache" counter;
 * a "requests" process with one async span per request per instance it visits (named after the
 * instance, from its arrival there to its last token there; preemptions as instants) and, with
 * disaggregation, a "kv transfer" span from the prefill's end to the KV's arrival at the decode
 * instance. Iteration detail only (no layers, ops or window: one engine's timeline has those).
 */
#ifndef SIM_CLUSTER_TIMELINE_H
#define SIM_CLUSTER_TIMELINE_H

#include "cluster.h"
#include "disagg.h"
#include "timeline.h"
#include "timeline_detail.h"

typedef struct sim_cluster_trace {
    sim_timeline t;
    sim_cluster_observer observer; /* pass &observer to the deployment */
    int n_prefill, n;
    sim_timeline_tiers *tiers; /* per instance, its lower KV tiers' tracks (owned) */
    int64_t tier_flows;
} sim_cluster_trace;

sim_status sim_cluster_trace_open(sim_cluster_trace *ct, const char *path, int n_prefill,
                                  int n_instances, sim_err *err);

/* An autoscaled pool (c->autoscaled): a `replicas` counter on the requests process, the
 * replicas ready and held from MIN at 0 through each evaluation. Call after the run, before
 * closing. */
void sim_cluster_trace_autoscale(sim_cluster_trace *ct, const sim_cluster_result *c);

/* Finishes the file (every span was closed by its request's end). */
sim_status sim_cluster_trace_close(sim_cluster_trace *ct, sim_err *err);

void sim_cluster_trace_abort(sim_cluster_trace *ct);

#endif
