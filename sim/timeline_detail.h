/* timeline_detail.h - one engine step on a timeline, as deep as asked: at iteration detail the step
 * is one slice (its timeline draws it); at layer detail a slice per layer nests inside it, with
 * the embedding before and the final norm, LM head, sampling and host time after; at op detail
 * every op nests in its layer on the as-issued track, and its compute, memory and network parts
 * go on three more tracks of the same process. The run (timeline_run.h) and serving (timeline_serve.h)
 * timelines draw their steps, and pipeline stages' shares of them, through here, and with
 * cluster_timeline.h the iterations' args and KV counter; the sizes of their files are estimated
 * from the events counted here. A step's and an op's args are report.h's step and op fields.
 *
 * Example (sim_timeline *t, int pid, const sim_step_result *step, int64_t t0):
 *   sim_timeline_detail_tracks(t, pid, true);             // names the four tracks of process pid
 *   sim_timeline_detail_writer w = {.t = t, .pid = pid, .detail = SIM_TIMELINE_OP};
 *   int64_t d = sim_timeline_detail_step_ns(step);        // the step slice's length
 *   sim_timeline_slice(t, pid, SIM_TIMELINE_DETAIL_TID_ISSUE, "decode step", "step", t0, d, NULL);
 *   sim_timeline_detail_write_step(&w, step, t0);         // its layers and ops inside it
 *
 * Times are whole nanoseconds, each op's truncated, so children never outgrow their parent.
 */
#ifndef SIM_TIMELINE_DETAIL_H
#define SIM_TIMELINE_DETAIL_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "step.h"
#include "timeline.h"

typedef enum sim_timeline_detail {
    SIM_TIMELINE_ITERATION, /* one slice per iteration */
    SIM_TIMELINE_LAYER,     /* ...with a slice per layer inside */
    SIM_TIMELINE_OP,        /* ...and every op, with its compute / memory / network slices */
    SIM_TIMELINE_DETAIL_COUNT
} sim_timeline_detail;

/* Parses "iteration", "layer", "op". */
bool sim_timeline_detail_parse(const char *s, sim_timeline_detail *out);

/* The tracks (tids) of a process that shows steps. */
enum {
    SIM_TIMELINE_DETAIL_TID_ISSUE = 1, /* step / layer / op as issued */
    SIM_TIMELINE_DETAIL_TID_COMPUTE,   /* each op's T_math */
    SIM_TIMELINE_DETAIL_TID_MEMORY,    /* each op's T_mem */
    SIM_TIMELINE_DETAIL_TID_NETWORK,   /* each op's collective, after its busy time */
};

/* Names the tracks of process pid: all four, or the as-issued one alone. */
void sim_timeline_detail_tracks(sim_timeline *t, int pid, bool all);

/* Where a step's slices go, and how deep. */
typedef struct sim_timeline_detail_writer {
    sim_timeline *t;
    int pid;
    sim_timeline_detail detail;
    int64_t net_free_ns; /* the network track is free from here on (set to the step's start) */
} sim_timeline_detail_writer;

/* A pipeline stage's share of a step: layers [l0, l1), the embedding on the first stage, the
 * final norm, LM head and sampling on the last, the host time on the first (pp.h). The whole
 * step is the one stage of layers [0, layers). */
typedef struct sim_timeline_detail_part {
    int64_t l0, l1;
    bool first, last;
} sim_timeline_detail_part;

/* Stage k's part of the model (cfg's pipeline split). */
sim_timeline_detail_part sim_timeline_detail_stage(const sim_step_cfg *cfg, int k);

/* The breakdown of a step (or of a stage's part of it) from t0: edges, layers, then host time. */
void sim_timeline_detail_write_step(sim_timeline_detail_writer *w, const sim_step_result *s,
                                    int64_t t0);
void sim_timeline_detail_write_part(sim_timeline_detail_writer *w, const sim_step_result *s,
                                    const sim_timeline_detail_part *p, int64_t t0);

/* Whole nanoseconds of what write_step / write_part lay out: the length of the slice that holds
 * them. */
int64_t sim_timeline_detail_step_ns(const sim_step_result *s);
int64_t sim_timeline_detail_part_ns(const sim_step_result *s, const sim_timeline_detail_part *p);

/* Appends fields of report.h's step and op tables (sim_field, n of them) to args a: a text as a
 * string, a count as an integer, a number in full precision. */
typedef struct sim_field sim_field;
void sim_timeline_detail_add_fields(sim_targs *a, const sim_field *f, size_t n);

/* A step slice's args: tokens, sequences, FLOPs, bytes, bound, its time and bounds. */
void sim_timeline_detail_step_args(sim_targs *a, const sim_step_result *s);

/* An iteration's slice args: one row per key (batch_size, prefill_tokens, decode_tokens,
 * cached_prompt_tokens, cuda_graph_batch, kv_blocks_used, running, waiting, draft_us, bound) and
 * the rows each timeline writes. */
typedef enum sim_timeline_detail_iter {
    SIM_TIMELINE_DETAIL_ITER_ENGINE,   /* one engine's timeline (timeline_serve.h): every row */
    SIM_TIMELINE_DETAIL_ITER_INSTANCE, /* an instance of a deployment (cluster_timeline.h): the batch,
                                       its tokens, the KV blocks used and the queue */
} sim_timeline_detail_iter;
void sim_timeline_detail_iter_args(sim_targs *a, const sim_iter_info *it,
                                   sim_timeline_detail_iter which);

/* The "kv cache" counter of process pid at the iteration's start: usage_pct (0 without blocks),
 * after blocks_used when asked. */
void sim_timeline_detail_kv_counter(sim_timeline *t, int pid, const sim_iter_info *it,
                                    bool blocks_used);

/* A lower KV tier's load or store (engine.h's sim_tier_move) on process pid's timeline: a slice
 * ("load from cpu", "store to disk", args tokens, requests, MB) on the tier's track of loads or of
 * stores (tids SIM_TIMELINE_DETAIL_TID_TIER + 2 x tier + store, named at their first use), and a
 * flow arrow (cat "kv tier"): from a load's slice to the iteration that waits for it (track
 * iter_tid, at the load's end), from the iteration whose KV a store copies (at its start) to the
 * store's slice. A track's stores are drawn one after another (from the later of their issue and
 * the last one's end: an asynchronous copy stream), so its slices never overlap. *flows: the
 * flow ids used so far in the file (one counter for all its processes). */
enum { SIM_TIMELINE_DETAIL_TID_TIER = 16 };
typedef struct sim_timeline_tiers {
    unsigned named;                          /* bit per track named */
    int64_t store_free_ns[SIM_KVTIER_LOWER]; /* each tier's last store's end */
} sim_timeline_tiers;
void sim_timeline_detail_tier(sim_timeline *t, int pid, int iter_tid, sim_timeline_tiers *st,
                              int64_t *flows, const sim_tier_move *m);

/* The KV cache's usage in percent at the iteration (0 without blocks): the counter's usage_pct. */
double sim_timeline_detail_kv_usage_pct(const sim_iter_info *it);

/* Size estimates: events counted exactly, by kind, times each kind's mean size in bytes. */
typedef enum sim_timeline_detail_ev {
    SIM_TIMELINE_DETAIL_EV_META,
    SIM_TIMELINE_DETAIL_EV_STEP,
    SIM_TIMELINE_DETAIL_EV_OP,
    SIM_TIMELINE_DETAIL_EV_PART,
    SIM_TIMELINE_DETAIL_EV_NET,
    SIM_TIMELINE_DETAIL_EV_LAYER,
    SIM_TIMELINE_DETAIL_EV_HOST,
    SIM_TIMELINE_DETAIL_EV_ITER,
    SIM_TIMELINE_DETAIL_EV_COUNTER,
    SIM_TIMELINE_DETAIL_EV_ASYNC,
    SIM_TIMELINE_DETAIL_EV_STAGE, /* a pipeline stage's micro-batch */
    SIM_TIMELINE_DETAIL_EV_SEND,  /* a transfer to the next stage: begun (with args) and ended */
    SIM_TIMELINE_DETAIL_EV_MB,    /* a serving stage's micro-batch */
    SIM_TIMELINE_DETAIL_EV_KINDS
} sim_timeline_detail_ev;

/* Adds to n (by kind) the events sim_timeline_detail_write_step writes for step s at `detail`. */
void sim_timeline_detail_count(const sim_step_result *s, sim_timeline_detail detail, double *n);

/* The bytes of a file of n events (by kind), header and footer included. */
double sim_timeline_detail_bytes(const double *n);

#endif
