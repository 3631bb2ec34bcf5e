/* timeline_check.h - validates a Chrome Trace Event JSON file against the rules the writer keeps
 * (timeline.h): every event an object with a one-letter ph and an integer pid (and tid); ts and
 * dur microseconds in [0, SIM_TIMELINE_MAX_US]; slices on one track nested, never partially
 * overlapping; every pid with events and every track with slices named by process_name /
 * thread_name metadata; counters' args finite numbers; async begins and ends matched per (cat,
 * id), and flow starts and finishes ('s', 'f') likewise. `infersim trace-check FILE` runs it; it reads any trace, not only infersim's.
 *
 * Example (sim_err *err):
 *   sim_timeline_stats stats;
 *   sim_status st = sim_timeline_check("trace.json", &stats, err);
 *   ... st != SIM_OK: err->msg names the event and the rule ...
 *   return st;
 */
#ifndef SIM_TIMELINE_CHECK_H
#define SIM_TIMELINE_CHECK_H

#include <stdint.h>

#include "status.h"

/* The largest ts or dur sim_timeline_check accepts, in microseconds (1e15 us = 1e9 s, the longest
 * trace offset a workload may have): ts + dur in ns stays within int64_t. pid, tid and async ids
 * must be integers of at most 2^53 in magnitude. */
#define SIM_TIMELINE_MAX_US 1e15

/* What sim_timeline_check found. */
typedef struct sim_timeline_stats {
    int64_t events, slices, counters, async_events, instants, metadata;
    int64_t flows;        /* flow arrows ('s' events) */
    int64_t tracks;       /* distinct (pid, tid) with slices */
    int64_t end_ns;       /* latest ts + dur */
    int64_t iteration_ns; /* sum of the durations of slices with cat "iteration" */
    int64_t iterations;   /* slices with cat "iteration", each counted args.iterations times */
    int64_t last_iteration_end_ns;
} sim_timeline_stats;

/* Validates a trace file against the rules above. Errors name the event index and the rule. The
 * file is streamed (sim_jstream): memory grows with the slices (32 bytes each) and the tracks, not
 * with the size of the file. */
sim_status sim_timeline_check(const char *path, sim_timeline_stats *stats, sim_err *err);

#endif
