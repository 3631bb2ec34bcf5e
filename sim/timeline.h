/* timeline.h - the Chrome Trace Event JSON writer (Perfetto, chrome://tracing), streamed to disk.
 * It knows events, processes and tracks, not what they show: the timelines of a run
 * (timeline_run.h), of a serving run (timeline_serve.h) and of a deployment (cluster_timeline.h) write
 * through it, and timeline_check.h validates what it wrote.
 *
 * Rules every writer here keeps (and sim_timeline_check verifies):
 *   - ts and dur are microseconds from simulated time 0, printed from integer nanoseconds with
 *     three decimals (trailing zeros left out), so slices on one track nest exactly and never
 *     partially overlap;
 *   - every pid and tid is named with process_name / thread_name metadata events;
 *   - counters' args are objects of finite numbers; async ids are integers; strings are escaped
 *     (strbuf.h's JSON escaping, whole: no name is cut);
 *   - events stream to "<path>.tmp" as the simulation runs (memory does not grow with the trace),
 *     and the file is renamed to <path> only when complete.
 *
 * Example (const char *path, sim_err *err):
 *   sim_timeline t;
 *   sim_status st = sim_timeline_open(&t, path, err);
 *   if (st)
 *       return st;
 *   sim_timeline_name_process(&t, 1, "engine", 0);
 *   sim_timeline_name_thread(&t, 1, 1, "iterations", 1);
 *   sim_targs a;
 *   sim_targs_reset(&a);
 *   sim_targs_int(&a, "batch_size", 8);
 *   sim_timeline_slice(&t, 1, 1, "iteration", "iteration", 0, 1500, &a); // pid 1, tid 1, 1.5 us
 *   return sim_timeline_close(&t, err); // (sim_timeline_abort drops a trace that fails half-way)
 */
#ifndef SIM_TIMELINE_H
#define SIM_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "outfile.h"
#include "status.h"
#include "strbuf.h"

#define SIM_TIMELINE_NUM_MEMO 4096
typedef struct sim_timeline {
    sim_outfile out; /* out.f is the stream events go to */
    bool first;      /* no event written yet */
    int64_t events;
    sim_strbuf ev;    /* the event being written (reused; one write per event) */
    double max_bytes; /* sim_timeline_limit's; 0: none */
    int64_t bytes;    /* the file's bytes so far (once over: with the event that passed and the
                         footer, more than max_bytes) */
    bool over;        /* passed max_bytes: the file is removed, later events are dropped */
    /* counters' numbers printed before, by their bits (direct-mapped, SIM_TIMELINE_NUM_MEMO
     * entries, allocated at the first counter; when that fails, the trace fails as out of
     * memory): a counter's values come back (the KV cache's usage_pct repeats as blocks are used
     * and freed) and the shortest round-trip text costs up to three printf and strtod calls */
    struct sim_timeline_num_memo *memo;
} sim_timeline;

/* Event arguments, built into a JSON object fragment in the struct itself (no allocation: a
 * sim_targs lives on the stack). A key whose value does not fit in the 1536 bytes is left out
 * whole; every args object the timelines write is a few hundred bytes. */
typedef struct sim_targs {
    char buf[1536];
    size_t len;
} sim_targs;

void sim_targs_reset(sim_targs *a);
void sim_targs_num(sim_targs *a, const char *key, double v); /* full precision; non-finite -> 0 */
void sim_targs_int(sim_targs *a, const char *key, int64_t v);
void sim_targs_str(sim_targs *a, const char *key, const char *v);
/* Nanoseconds as seconds: the text sim_targs_num(a, key, (double)ns / 1e9) writes, printed from
 * the integer where that is exact (no floating-point printing; timeline.c has the argument). */
void sim_targs_ns_as_s(sim_targs *a, const char *key, int64_t ns);

/* Numbers in args: the shortest decimal that reads back as exactly v (non-finite -> 0). */
void sim_timeline_fmt_num(char *buf, size_t len, double v);

/* Opens "<path>.tmp" and writes the header. */
sim_status sim_timeline_open(sim_timeline *t, const char *path, sim_err *err);

/* The same with extra metadata: meta's key/values go into the header's "otherData" object. */
sim_status sim_timeline_open_meta(sim_timeline *t, const char *path, const sim_targs *meta,
                                  sim_err *err);

/* Finishes the JSON and renames the file into place (SIM_EINTERNAL, the file removed, when an
 * event could not be written). */
sim_status sim_timeline_close(sim_timeline *t, sim_err *err);

/* Drops a trace that will not be completed (removes the temporary file). */
void sim_timeline_abort(sim_timeline *t);

/* A limit on the file's size, checked as it streams: the event that would take the file (its
 * footer included) past max_bytes is not written, the temporary file is removed at once, and
 * every later event is dropped unformatted (sim_timeline_over; sim_timeline_close then fails with
 * SIM_EINPUT, and t->bytes holds the file's size had it closed after the event that passed:
 * more than max_bytes). max_bytes <= 0: no limit.
 * Example (sim_timeline *t):
 *   sim_timeline_limit(t, 512e6); // as --trace-max-mb 512
 */
void sim_timeline_limit(sim_timeline *t, double max_bytes);
bool sim_timeline_over(const sim_timeline *t);

/* Metadata: names and sort order of a process (pid) and of a thread (pid, tid). */
void sim_timeline_name_process(sim_timeline *t, int pid, const char *name, int sort);
void sim_timeline_name_thread(sim_timeline *t, int pid, int tid, const char *name, int sort);

/* A complete slice ("X"). args may be NULL. */
void sim_timeline_slice(sim_timeline *t, int pid, int tid, const char *name, const char *cat,
                        int64_t ts_ns, int64_t dur_ns, const sim_targs *args);

/* A counter sample ("C"): one series per numeric arg. */
void sim_timeline_counter(sim_timeline *t, int pid, const char *name, int64_t ts_ns,
                          const sim_targs *args);

/* A counter written sampled: a sample only when a series' value changed, and at most one per
 * every_ns of simulated time. A change that comes sooner is held and written at the interval's
 * end, with the value the counter has then (values are set in time order and hold until the next
 * set, so each sample is the counter's exact value at its ts); a change that returns to the value
 * shown is not written. sim_timeline_ctr_flush writes the last value held at the time it was set,
 * so the last sample is always exact. every_ns < 0 writes every set, as sim_timeline_counter does.
 * Example (sim_timeline *t):
 *   static const char *const keys[] = {"running", "waiting"};
 *   sim_timeline_ctr c;
 *   sim_timeline_ctr_init(&c, 1, "requests", 10000000, 2, keys);  // at most one per 10 ms
 *   sim_timeline_ctr_set(t, &c, 0, (const double[]){1, 0});       // written at 0
 *   sim_timeline_ctr_set(t, &c, 4000000, (const double[]){2, 0});  // held
 *   sim_timeline_ctr_set(t, &c, 12000000, (const double[]){2, 0}); // {2, 0} written at 10 ms
 *   sim_timeline_ctr_set(t, &c, 15000000, (const double[]){3, 1}); // held
 *   sim_timeline_ctr_flush(t, &c);                                 // {3, 1} written at 15 ms
 */
#define SIM_TIMELINE_CTR_MAX 4
typedef struct sim_timeline_ctr {
    int pid;
    const char *name;
    int64_t every_ns;
    int n; /* series, at most SIM_TIMELINE_CTR_MAX */
    const char *keys[SIM_TIMELINE_CTR_MAX];
    double shown[SIM_TIMELINE_CTR_MAX], held[SIM_TIMELINE_CTR_MAX];
    int64_t shown_ns, held_ns;
    bool any_shown, any_held;
} sim_timeline_ctr;

void sim_timeline_ctr_init(sim_timeline_ctr *c, int pid, const char *name, int64_t every_ns, int n,
                           const char *const *keys);
void sim_timeline_ctr_set(sim_timeline *t, sim_timeline_ctr *c, int64_t ts_ns, const double *v);
void sim_timeline_ctr_flush(sim_timeline *t, sim_timeline_ctr *c);

/* Slices merged where identical: a slice set here that starts where the held one ends, on the
 * same track, with the same name, cat and args, extends it; any other is written as it comes.
 * A merged slice of n > 1 gets one more arg, count_key: n (the held one is written when the next
 * differs, and by sim_timeline_merge_flush). For a track whose slices have no children (a merged
 * slice would take a later slice's children as its own); name and cat must outlive the held
 * slice (string constants). count_key NULL: nothing is merged.
 * Example (sim_timeline *t, const sim_targs *a):
 *   sim_timeline_merge m;
 *   sim_timeline_merge_init(&m, "iterations");
 *   sim_timeline_merge_slice(t, &m, 1, 1, "iteration", "iteration", 0, 500, a);
 *   sim_timeline_merge_slice(t, &m, 1, 1, "iteration", "iteration", 500, 700, a);
 *   sim_timeline_merge_flush(t, &m); // one slice 0..1.2 us, args a and "iterations": 2
 */
typedef struct sim_timeline_merge {
    const char *count_key;
    bool held;
    int pid, tid;
    const char *name, *cat;
    int64_t ts_ns, end_ns, n;
    sim_targs args;
} sim_timeline_merge;

void sim_timeline_merge_init(sim_timeline_merge *m, const char *count_key);
void sim_timeline_merge_slice(sim_timeline *t, sim_timeline_merge *m, int pid, int tid,
                              const char *name, const char *cat, int64_t ts_ns, int64_t dur_ns,
                              const sim_targs *args);
void sim_timeline_merge_flush(sim_timeline *t, sim_timeline_merge *m);

/* Extends the held slice by a slice of the same args (the caller knows them equal: it need not
 * build them) when it starts where the held one ends on the same track with the same name and
 * cat; false (nothing done) otherwise, or when nothing is merged. */
bool sim_timeline_merge_extend(sim_timeline_merge *m, int pid, int tid, const char *name,
                               const char *cat, int64_t ts_ns, int64_t dur_ns);

/* A flow arrow from one track to another: ph 's' (its start) and 'f' (its finish), the same cat
 * and integer id, each bound to the slice that encloses it on (pid, tid) ("bp": "e"), as a
 * viewer draws a transfer from the slice that sent it to the slice that received it. */
void sim_timeline_flow(sim_timeline *t, char ph, int pid, int tid, const char *cat,
                       const char *name, int64_t id, int64_t ts_ns);

/* Nestable async events: ph 'b' (begin), 'e' (end), 'n' (instant), integer id. */
void sim_timeline_async(sim_timeline *t, char ph, int pid, const char *cat, const char *name,
                        int64_t id, int64_t ts_ns, const sim_targs *args);

#endif
