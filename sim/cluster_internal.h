/* cluster_internal.h - what cluster.c (replicas behind a router) shares with cluster_disagg.c
 * (prefill/decode pools): the engine instances and their bookkeeping. Private to the module. */
#ifndef SIM_CLUSTER_INTERNAL_H
#define SIM_CLUSTER_INTERNAL_H

#include "cluster.h"
#include "hist.h"

/* The prefix-aware router's record: per replica, the set of block ids it was sent. */
typedef struct idset {
    uint64_t *slot; /* open addressing; EMPTY = free */
    size_t cap, len;
} idset;

typedef struct replica {
    sim_engine_cfg cfg; /* its configuration (outlives the engine) */
    int index;          /* in the deployment (the result's load) */
    const sim_cluster_observer *obs;
    sim_engine_observer eo; /* forwards to obs with the instance and the workload's ids */
    sim_workload w;         /* its share of the stream, growing */
    size_t *global;         /* its request j is the workload's request global[j] */
    sim_engine *e;
    sim_engine_result res;
    idset seen;
    size_t first_open; /* kv-aware: its requests before this one are all finished */
} replica;

/* The instance with the fewest requests given and not finished at t (lowest index on ties). */
int sim_cluster_least_outstanding(replica *rep, int n, int64_t t);

/* Starts n engines (deployment indices first, first + 1, ...) on empty streams with room for
 * every request of w. Returns how many started in *started. */
sim_status sim_cluster_start_all(replica *rep, int n, int first, const sim_engine_cfg *cfg,
                                 const sim_workload *w, const sim_cluster_observer *obs,
                                 int *started, sim_err *err);

/* Finishes (st 0) or aborts the started engines; returns the first error. */
sim_status sim_cluster_end_all(replica *rep, int started, sim_status st, sim_err *err);

void sim_cluster_free_all(replica *rep, int n);

/* Appends request q (global index i) to replica R's stream. */
void sim_cluster_give(replica *R, const sim_request *q, size_t i);

/* Adds instances [from, to) into the merged totals and their loads (cluster.c). Returns 0 when
 * out of memory. */
int sim_cluster_add_totals(const replica *rep, int from, int to, bool streams, bool prompts,
                           sim_engine_result *all, sim_hist *secs, sim_replica_load *load);

/* The deployment-wide statistics once every request's timeline is in `all`. Frees secs. Returns
 * 0 when out of memory. */
int sim_cluster_finish_totals(sim_engine_result *all, sim_hist *secs);

#endif
