/* timeline_serve.h - the Chrome trace timeline of a serving run: an observer of the engine
 * (engine.h) that streams, as the simulation runs, an "engine" process with one slice per
 * iteration (args: batch size, prefill, cached and decode tokens, KV blocks, running and waiting
 * requests) and the step's layers and ops nested inside at layer and op detail (timeline_detail.h),
 * counters of requests, batch tokens and KV cache use, a "requests" process with one async span
 * per request and its phases (queued, prefill, decode; preemptions as instants) and, with
 * pipeline stages, a process per stage with its micro-batches. A window keeps the part of the
 * run between two simulated times.
 *
 * Example (sim_engine_cfg *cfg, const sim_workload *w, const char *path, sim_err *err):
 *   sim_timeline_serve ts; // one slice per iteration, no window
 *   sim_status st = sim_timeline_serve_open(&ts, path, SIM_TIMELINE_ITERATION, 0, -1, w->n,
 *                                        &cfg->step, err);
 *   if (st)
 *       return st;
 *   cfg->observer = &ts.observer;
 *   sim_engine_result res;
 *   if ((st = sim_engine_run(cfg, w, &res, err))) {
 *       sim_timeline_serve_abort(&ts);
 *       return st;
 *   }
 *   st = sim_timeline_serve_close(&ts, res.duration_ns, err);
 *   sim_engine_result_free(&res);
 *   return st;
 */
#ifndef SIM_TIMELINE_SERVE_H
#define SIM_TIMELINE_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "timeline.h"
#include "timeline_detail.h"

/* Estimated size in bytes of a serving timeline at `detail` over a run of that many iterations,
 * requests and preemptions (for a window: the part inside it). cfg prices the ops layer and op
 * detail nest. -1 when out of memory. */
double sim_timeline_serve_estimate_bytes(sim_timeline_detail detail, const sim_step_cfg *cfg,
                                         double iterations, double requests, double preemptions);

/* Slim by default: at iteration detail, back-to-back iterations with identical args (every key
 * above) are one slice with "iterations": n; the counters are written only when a value changes,
 * at most one sample per SIM_TIMELINE_SERVE_COUNTER_EVERY_NS of simulated time, each sample exact
 * and the last value written when the run ends (timeline.h's sim_timeline_ctr). sim_timeline_serve_full
 * writes every iteration's slice and counters as they come. */
#define SIM_TIMELINE_SERVE_COUNTER_EVERY_NS 10000000 /* 10 ms */

/* A serving timeline: an observer of the engine. */
typedef struct sim_timeline_serve {
    sim_timeline t;
    sim_engine_observer observer; /* pass &observer to the engine */
    sim_timeline_detail detail;
    int64_t w0_ns, w1_ns;     /* window; events outside it are dropped */
    bool started, ended;      /* window opened / closed */
    const sim_step_cfg *step; /* for layer and op detail */
    size_t n;
    unsigned char *phase; /* per request: current phase */
    unsigned char *open;  /* per request: bit 0 span open, bit 1 phase open */
    int64_t *arrival_ns;
    /* with pipeline stages: a process per stage, its micro-batches priced afresh */
    sim_seq_group *mb; /* a micro-batch's groups (room for n_mb) */
    size_t n_mb;
    sim_step_result *mb_step; /* a micro-batch's step */
    sim_timeline_tiers tiers; /* the lower KV tiers' tracks (with --kv-offload) */
    int64_t tier_flows;
    sim_timeline_merge iters;              /* iteration slices, merged where identical */
    sim_timeline_ctr requests, tokens, kv; /* the counters, sampled */
    int64_t upto_ns; /* the last simulated time seen before the file passed its limit */
    /* the last iteration's slice args as values (compared instead of formatted when merging) */
    int64_t last_args[8];
    double last_draft_ns;
    int last_bound; /* -1: none yet */
} sim_timeline_serve;

/* Opens a serving timeline of n requests. w1_ns < 0: no end to the window. */
sim_status sim_timeline_serve_open(sim_timeline_serve *ts, const char *path,
                                   sim_timeline_detail detail, int64_t w0_ns, int64_t w1_ns,
                                   size_t n, const sim_step_cfg *step, sim_err *err);

/* A limit on the file's size (timeline.h's sim_timeline_limit): past it the file is removed and the rest
 * of the run is not formatted. sim_timeline_serve_over_bytes then says how large the timeline would
 * have been, about: the bytes written up to the limit, scaled from the simulated time they cover
 * to the window's whole span (to end_ns, the run's duration, when the window has no earlier end);
 * 0 while the file is within its limit. Ask after sim_timeline_serve_close (whose last events can pass
 * the limit too; it then fails with SIM_EINPUT). */
void sim_timeline_serve_limit(sim_timeline_serve *ts, double max_bytes);
double sim_timeline_serve_over_bytes(const sim_timeline_serve *ts, int64_t end_ns);

/* Every event: no slice merged, every counter sample written (call before the run). */
void sim_timeline_serve_full(sim_timeline_serve *ts);

/* Closes every open span at end_ns and finishes the file. */
sim_status sim_timeline_serve_close(sim_timeline_serve *ts, int64_t end_ns, sim_err *err);

void sim_timeline_serve_abort(sim_timeline_serve *ts);

#endif
