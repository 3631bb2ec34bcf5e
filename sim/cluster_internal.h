/* cluster_internal.h - what cluster.c (replicas behind a router) shares with disagg.c
 * (prefill/decode pools, the disagg module's one file): the engine instances and their
 * bookkeeping. Private to these two modules. */
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
    size_t room;            /* requests w.reqs and global hold (grown as they are given) */
    sim_engine *e;
    sim_engine_result res;
    idset seen;
    size_t first_open; /* kv-aware: its requests before this one are all finished */
    /* replicas behind a router (cluster.c) release the finished front of their streams into
     * done_to (the deployment's seqs by global index; NULL: they keep every request, as the
     * disaggregated pools do): base of them so far (its request j is the (base + j)-th given),
     * their prompt and output tokens and their last finish */
    sim_req_result *done_to;
    size_t base;
    int64_t released_input, released_output, released_finish_ns;
} replica;

/* The instance with the fewest requests given and not finished at t (lowest index on ties),
 * among those with ok[r] (ok NULL: all). */
int sim_cluster_least_outstanding(replica *rep, int n, const bool *ok, int64_t t);

/* The autoscaler's run state (cluster.h, cluster_scale.c). */
typedef struct sim_scaler {
    const sim_autoscale *a;
    int n;                /* the pool: a->max */
    signed char *state;   /* per replica: off, starting, ready, draining */
    bool *ok;             /* ready: the router may pick it */
    int64_t *on_ns;       /* when it was last added */
    int64_t *ready_ns;    /* starting: when it takes requests */
    int64_t *drain_ns;    /* draining: since when */
    size_t *first;        /* its stream's first request since it was added */
    int64_t next_eval_ns, next_ready_ns;
    int64_t arrivals;     /* routed since the last evaluation */
    int *rec;             /* desired counts of the evaluations, for the stabilization window */
    sim_cluster_result *out; /* held_ns, peak_held, scale_ups/downs, timeline */
    size_t cap_timeline;
} sim_scaler;

/* Sets up the pool: replicas [0, min) ready at 0, the others off. Returns 0 when out of memory. */
int sim_scaler_init(sim_scaler *s, const sim_autoscale *a, sim_cluster_result *out);

/* Runs every evaluation due at or before t (advancing the replicas to each), then makes ready
 * the replicas whose start has ended by t. */
sim_status sim_scaler_step(sim_scaler *s, replica *rep, int64_t t, sim_err *err);

/* At the run's end (every engine finished, end_ns the deployment's last finish): the time held
 * by the replicas still held. Frees the state (not out's timeline). */
void sim_scaler_finish(sim_scaler *s, const replica *rep, int64_t end_ns);
void sim_scaler_free(sim_scaler *s);

/* Starts n engines (deployment indices first, first + 1, ...) on empty streams with room for
 * every request of w. Returns how many started in *started. */
sim_status sim_cluster_start_all(replica *rep, int n, int first, const sim_engine_cfg *cfg,
                                 const sim_workload *w, const sim_cluster_observer *obs,
                                 int *started, sim_err *err);

/* Finishes (st 0) or aborts the started engines; returns the first error. */
sim_status sim_cluster_end_all(replica *rep, int started, sim_status st, sim_err *err);

void sim_cluster_free_all(replica *rep, int n);

/* Appends request q (global index i) to replica R's stream, growing it and the engine's room
 * for it (sim_engine_reserve) geometrically: a replica holds its share, not the workload. */
sim_status sim_cluster_give(replica *R, const sim_request *q, size_t i, sim_err *err);

/* Before replica R's stream grows (R->w.n == R->room, R->done_to set): when at least half of it
 * is a finished front (each request finished before the engine's clock, sim_engine_release),
 * that front's results go to R->done_to by global index and the replica and its engine drop
 * them, so a replica holds about the requests it has in flight, not every one it was sent
 * (cluster_release.c). Nothing otherwise. */
sim_status sim_cluster_release_front(replica *R, sim_err *err);

/* Adds instances [from, to) into the merged totals and their loads (cluster.c). Returns 0 when
 * out of memory. */
int sim_cluster_add_totals(const replica *rep, int from, int to, bool streams, bool prompts,
                           sim_engine_result *all, sim_hist *secs, sim_replica_load *load);

/* The deployment-wide statistics once every request's timeline is in `all`. Frees secs. Returns
 * 0 when out of memory. */
int sim_cluster_finish_totals(sim_engine_result *all, sim_hist *secs);

/* The benchmark client's cap on requests in flight across the replicas (cluster.h): `cap`
 * requests at most between a send and its last token; the next waits for the earliest finish. */
typedef struct sim_cluster_client {
    int64_t cap, inflight, last_ns;
    int64_t *fin;     /* finish times found and not yet past the client's clock: a min-heap */
    size_t n_fin;
    size_t *counted;  /* per replica: its finishes noted so far */
    int64_t *next_ns; /* per replica: its next event (sim_engine_next_ns), kept as it moves */
} sim_cluster_client;

/* Room for min(cap, n_reqs) finishes and n_replicas counts. Returns 0 when out of memory. */
int sim_cluster_client_init(sim_cluster_client *c, int64_t cap, int n_replicas, size_t n_reqs);
void sim_cluster_client_free(sim_cluster_client *c);

/* When a request that arrives at arrival_ns is sent (*send_ns): at its arrival when fewer than
 * cap are in flight then, else at the earliest finish that frees a slot. The replicas are run up
 * to it (every iteration that starts before *send_ns, and no other: the request joins its
 * replica's next one); the caller routes and gives it, then calls sim_cluster_client_given. */
sim_status sim_cluster_client_send(sim_cluster_client *c, replica *rep, int n, int64_t arrival_ns,
                                   int64_t *send_ns, sim_err *err);

/* Replica r was given the request just sent: it is in flight, and r's next event moves. */
void sim_cluster_client_given(sim_cluster_client *c, const replica *rep, int r);

#endif
