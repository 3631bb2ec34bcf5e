/* series.h - what a serving run did over simulated time, in a fixed number of buckets: running
 * and waiting requests, batch tokens (prefill and decode), KV-cache usage and preemptions. An
 * engine observer (engine.h), so the engine knows nothing of it; memory is O(1) whatever the
 * run's length.
 *
 * Example (sim_engine_cfg *cfg, const sim_workload *w, sim_err *err):
 *   sim_series s;
 *   sim_series_init(&s, cfg->observer); // chains to another observer (a trace writer) or NULL
 *   cfg->observer = &s.observer;
 *   sim_engine_result res;
 *   sim_status st = sim_engine_run(cfg, w, &res, err);
 *   if (st)
 *       return st;
 *   ... for i < s.n: s.b[i] covers [i * s.width_ns, (i + 1) * s.width_ns) ...
 *   sim_engine_result_free(&res);
 *
 * Buckets start 1 ms wide; when simulated time passes the last one, neighbouring buckets are
 * merged in pairs and the width doubles (sums add, maxima take the larger), so a run of any
 * length keeps between SIM_SERIES_BUCKETS / 2 and SIM_SERIES_BUCKETS buckets once it is longer
 * than SIM_SERIES_BUCKETS ms. An iteration counts in the bucket where it starts; a preemption
 * where it happens. Deterministic: the same run gives the same series.
 */
#ifndef SIM_SERIES_H
#define SIM_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "engine.h"
#include "status.h"

enum { SIM_SERIES_BUCKETS = 256 };

typedef struct sim_series_bucket {
    int64_t iterations;                   /* iterations that started in the bucket */
    double running, waiting;              /* sums over those iterations (mean: / iterations) */
    double prefill_tokens, decode_tokens; /* sums over those iterations */
    int64_t kv_peak_blocks;               /* most KV blocks in use at an iteration's start */
    int64_t preemptions;
} sim_series_bucket;

typedef struct sim_series {
    sim_engine_observer observer;    /* pass &observer to the engine */
    const sim_engine_observer *next; /* called after recording; NULL for none */
    int64_t width_ns;                /* bucket width */
    size_t n;                        /* buckets in use: up to the latest event's */
    int64_t kv_total_blocks;         /* the cache's size (from the iterations) */
    sim_series_bucket b[SIM_SERIES_BUCKETS];
} sim_series;

/* Starts an empty series that passes every event on to `next` (may be NULL). */
void sim_series_init(sim_series *s, const sim_engine_observer *next);

/* Several engines (--replicas, --disagg): one series per instance, recorded by a cluster
 * observer (cluster.h; pass &observer to the cluster or the disaggregated run) that passes every
 * event on to `next` (a timeline writer, or NULL). Each instance's events come in time order,
 * so each series is as an engine's own would be.
 * Example (sim_cluster_cfg *cc, const sim_workload *w, sim_err *err):
 *   sim_series_set set;
 *   if (sim_series_set_init(&set, cc->replicas, cc->observer, err))
 *       return SIM_EINTERNAL;
 *   cc->observer = &set.observer;
 *   ... sim_cluster_run(cc, w, &res, &cluster, err) ...
 *   sim_series_set_align(&set); // set.s[i].width_ns now equal for every i
 *   sim_series_set_free(&set);
 */
typedef struct sim_series_set {
    sim_cluster_observer observer;
    const sim_cluster_observer *next;
    int n;
    sim_series *s; /* [n], owned */
} sim_series_set;

/* n >= 1 empty series; SIM_EINTERNAL when out of memory. */
sim_status sim_series_set_init(sim_series_set *set, int n, const sim_cluster_observer *next,
                               sim_err *err);

/* Coarsens every series to the widest one's bucket width (pairs merged as the run would have
 * merged them), so that they share one time axis. */
void sim_series_set_align(sim_series_set *set);

void sim_series_set_free(sim_series_set *set);

#endif
