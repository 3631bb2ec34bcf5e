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

#include "engine.h"

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

#endif
