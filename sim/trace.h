/* trace.h - Chrome Trace Event JSON timelines (Perfetto, chrome://tracing), streamed to disk.
 *
 * Rules every writer here keeps (and sim_trace_check verifies):
 *   - ts and dur are microseconds from simulated time 0, printed from integer nanoseconds with
 *     three decimals, so slices on one track nest exactly and never partially overlap;
 *   - every pid and tid is named with process_name / thread_name metadata events;
 *   - counters' args are objects of finite numbers; async ids are integers; strings are escaped;
 *   - events stream to "<path>.tmp" as the simulation runs (memory does not grow with the trace),
 *     and the file is renamed to <path> only when complete.
 *
 * Example (const sim_step_cfg *cfg, const sim_step_result *pre, const sim_step_result *dec):
 *   sim_err err;
 *   return sim_trace_run("run.json", cfg, pre, dec, false, &err); // a run's two steps
 *
 * Example (sim_engine_cfg *cfg, const sim_workload *w, const char *path, sim_err *err):
 *   sim_trace_serve ts; // a serving run, one slice per iteration, no window
 *   sim_status st = sim_trace_serve_open(&ts, path, SIM_TRACE_ITERATION, 0, -1, w->n,
 *                                        &cfg->step, err);
 *   if (st)
 *       return st;
 *   cfg->observer = &ts.observer;
 *   sim_engine_result res;
 *   if ((st = sim_engine_run(cfg, w, &res, err))) {
 *       sim_trace_serve_abort(&ts);
 *       return st;
 *   }
 *   st = sim_trace_serve_close(&ts, res.duration_ns, err);
 *   sim_engine_result_free(&res);
 *   return st;
 */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "outfile.h"
#include "step.h"

typedef struct sim_trace {
    sim_outfile out; /* out.f is the stream events go to */
    bool first;      /* no event written yet */
    int64_t events;
} sim_trace;

/* Event arguments, built into a JSON object fragment. */
typedef struct sim_targs {
    char buf[1536];
    size_t len;
} sim_targs;

void sim_targs_reset(sim_targs *a);
void sim_targs_num(sim_targs *a, const char *key, double v); /* full precision; non-finite -> 0 */
void sim_targs_int(sim_targs *a, const char *key, int64_t v);
void sim_targs_str(sim_targs *a, const char *key, const char *v);

/* Numbers in args: the shortest decimal that reads back as exactly v (non-finite -> 0). */
void sim_trace_fmt_num(char *buf, size_t len, double v);

/* Opens "<path>.tmp" and writes the header. */
sim_status sim_trace_open(sim_trace *t, const char *path, sim_err *err);

/* The same with extra metadata: meta's key/values go into the header's "otherData" object. */
sim_status sim_trace_open_meta(sim_trace *t, const char *path, const sim_targs *meta, sim_err *err);

/* Finishes the JSON and renames the file into place. */
sim_status sim_trace_close(sim_trace *t, sim_err *err);

/* Drops a trace that will not be completed (removes the temporary file). */
void sim_trace_abort(sim_trace *t);

/* Metadata: names and sort order of a process (pid) and of a thread (pid, tid). */
void sim_trace_name_process(sim_trace *t, int pid, const char *name, int sort);
void sim_trace_name_thread(sim_trace *t, int pid, int tid, const char *name, int sort);

/* A complete slice ("X"). args may be NULL. */
void sim_trace_slice(sim_trace *t, int pid, int tid, const char *name, const char *cat,
                     int64_t ts_ns, int64_t dur_ns, const sim_targs *args);

/* A counter sample ("C"): one series per numeric arg. */
void sim_trace_counter(sim_trace *t, int pid, const char *name, int64_t ts_ns,
                       const sim_targs *args);

/* Nestable async events: ph 'b' (begin), 'e' (end), 'n' (instant), integer id. */
void sim_trace_async(sim_trace *t, char ph, int pid, const char *cat, const char *name, int64_t id,
                     int64_t ts_ns, const sim_targs *args);

/* Writes `path`: one prefill and one decode step, op by op and layer by layer, on a compute, a
 * memory, a network and an as-issued track for GPU rank 0, or every rank when all_ranks
 * (tensor-parallel ranks run the same ops: one stands for all, and the header's otherData says
 * which was written). Each op slice's args carry its FLOPs, bytes, intensity, bound and
 * exposed/hidden network time. decode may be NULL. */
sim_status sim_trace_run(const char *path, const sim_step_cfg *cfg, const sim_step_result *prefill,
                         const sim_step_result *decode, bool all_ranks, sim_err *err);

/* Estimated size in bytes of sim_trace_run's file: its events counted exactly, times the
 * measured mean size of each kind. */
double sim_trace_run_estimate_bytes(const sim_step_result *prefill, const sim_step_result *decode,
                                    int ranks);

/* The run's timeline over pipeline stages (cfg->pp > 1): one process per stage named "stage k:
 * layers a-b" (with all_ranks one per GPU of each stage, "stage k GPU g: layers a-b"), each
 * showing its share of every micro-batch (pp.h) as a "stage" slice with the stage's layers and
 * ops nested inside (the first stage's embedding and host time, the last's final norm, LM head
 * and sampling) on the same four tracks as sim_trace_run, placed as the one-shot pipeline runs
 * them (a micro-batch enters stage k when stage k is free and its activations have arrived),
 * and each activation transfer as an async span "activations to stage k+1" on the sending
 * stage. The prefill step (eager, as run.h prices it) is followed by one decode round drawn the
 * same way. decode may be NULL. */
sim_status sim_trace_run_pp(const char *path, const sim_step_cfg *cfg, const sim_seq_group *prefill,
                            const sim_seq_group *decode, bool all_ranks, sim_err *err);

/* Estimated size in bytes of sim_trace_run_pp's file (-1 when out of memory). */
double sim_trace_run_pp_estimate_bytes(const sim_step_cfg *cfg, const sim_seq_group *prefill,
                                       const sim_seq_group *decode, int ranks);

typedef enum sim_trace_detail {
    SIM_TRACE_ITERATION, /* one slice per iteration */
    SIM_TRACE_LAYER,     /* ...with a slice per layer inside */
    SIM_TRACE_OP,        /* ...and every op, with its compute / memory / network slices */
    SIM_TRACE_DETAIL_COUNT
} sim_trace_detail;

/* Parses "iteration", "layer", "op". */
bool sim_trace_detail_parse(const char *s, sim_trace_detail *out);

/* Estimated size in bytes of a serving timeline at `detail` over a run of that many iterations,
 * requests and preemptions (for a window: the part inside it). cfg prices the ops layer and op
 * detail nest. */
double sim_trace_serve_estimate_bytes(sim_trace_detail detail, const sim_step_cfg *cfg,
                                      double iterations, double requests, double preemptions);
/* (-1 when out of memory) */

/* A serving timeline: an observer of the engine. */
typedef struct sim_trace_serve {
    sim_trace t;
    sim_engine_observer observer; /* pass &observer to the engine */
    sim_trace_detail detail;
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
} sim_trace_serve;

/* Opens a serving timeline of n requests. w1_ns < 0: no end to the window. */
sim_status sim_trace_serve_open(sim_trace_serve *ts, const char *path, sim_trace_detail detail,
                                int64_t w0_ns, int64_t w1_ns, size_t n, const sim_step_cfg *step,
                                sim_err *err);

/* Closes every open span at end_ns and finishes the file. */
sim_status sim_trace_serve_close(sim_trace_serve *ts, int64_t end_ns, sim_err *err);

void sim_trace_serve_abort(sim_trace_serve *ts);

/* The largest ts or dur sim_trace_check accepts, in microseconds (1e15 us = 1e9 s, the longest
 * trace offset a workload may have): ts + dur in ns stays within int64_t. pid, tid and async ids
 * must be integers of at most 2^53 in magnitude. */
#define SIM_TRACE_MAX_US 1e15

/* What sim_trace_check found. */
typedef struct sim_trace_stats {
    int64_t events, slices, counters, async_events, instants, metadata;
    int64_t tracks;       /* distinct (pid, tid) with slices */
    int64_t end_ns;       /* latest ts + dur */
    int64_t iteration_ns; /* sum of the durations of slices with cat "iteration" */
    int64_t iterations;
    int64_t last_iteration_end_ns;
} sim_trace_stats;

/* Validates a trace file against the rules above. Errors name the event index and the rule. The
 * file is streamed (sim_jstream): memory grows with the slices (32 bytes each) and the tracks, not
 * with the size of the file. */
sim_status sim_trace_check(const char *path, sim_trace_stats *stats, sim_err *err);

#endif
