/* engine_loop.h - the serving loop's state, private to sim/engine*.c: engine.c runs it,
 * engine_query.c answers what a caller stepping the engine asks of it (engine.h). */
#ifndef INFERSIM_ENGINE_LOOP_H
#define INFERSIM_ENGINE_LOOP_H

#include "engine.h"

/* Output tokens of the current 1-second window [k, k+1) s and the most any window saw. Time only
 * moves forward, so one open window is all there is: O(1) memory whatever the span (two requests
 * 1e8 s apart do not allocate 1e8 windows). */
typedef struct window {
    int64_t k, tokens, peak;
    sim_hist *closed; /* NULL, or where each finished window goes as (k, tokens) */
    int ok;           /* 0 once recording ran out of memory */
} window;

/* Where a request's timeline stands, for the observer's events: queued (not yet or again, after
 * a preemption) -> SCHEDULED -> prefill or recompute -> DECODING -> decode. */
typedef enum tl_phase { TL_QUEUED, TL_PREFILL, TL_DECODE } tl_phase;

typedef struct loop {
    const sim_engine_cfg *cfg;
    const sim_workload *w;
    sim_engine_result *res;
    sim_sched sched;
    sim_sched_entry *batch; /* room for max_num_seqs */
    sim_seq_group *groups;  /* the target's step */
    sim_seq_group *draft;   /* the draft's: prefill chunks, then verifying sequences */
    sim_seq_group *scratch;
    unsigned char *tl;     /* per request, a tl_phase: where its timeline events stand */
    sim_rng rng;           /* acceptance draws */
    sim_engine_memo memo; /* the target's steps by launch mode, and its pipeline stages' */
    sim_spec_memo draft_memo;
    window tokens;
    int64_t now;
    int64_t dt;         /* the current iteration's duration */
    double bad_step_ns; /* a step time that was not finite and positive (iterate's -2) */
    int64_t same_gaps;  /* its sequences whose gap equals dt (they streamed in the one before) */
    size_t next;        /* next request to send */
    int64_t inflight;
    int64_t free_since; /* when a concurrency slot last became free */
    size_t done;
    size_t base;        /* requests released (sim_engine_release): request 0 is the base-th given */
    size_t cap;         /* the capacity: w->n may grow up to it */
    size_t room;        /* requests the per-request arrays hold now (<= cap, grown with w->n) */
    size_t done_at_now; /* of `done`, those that finished at `now` (the last iteration's end) */
    /* with a front end: its queue and streams, the next sent request to reach the scheduler, and
     * the last iteration's tokens as emitted (room for max_num_seqs) */
    bool fe_on;
    bool steady; /* the scheduler holds steady decodes (sched.h; sim_engine_run where it fits) */
    sim_frontend fe;
    size_t next_ready; /* the next sent request to reach the scheduler, with or without one */
    bool fe_slot_freed; /* a request that held a slot of --max-concurrency finished */
    sim_frontend_emit *emit;
    size_t n_emit;
    /* sessions (w->links): the turns released and not yet sent, and the send order */
    sim_session_turn *heap;
    size_t heap_n;
    int64_t *order;
    int64_t tier_seen[SIM_KVTIER_LOWER]; /* each lower tier's blocks written, as last reported */
} loop;

/* An iteration's lower-tier moves to the observer's tier callback (engine.h's sim_tier_move;
 * nothing without one or without offload): with `loads`, the loads the iteration starting at
 * iter_ns waits for, within [iter_ns, end_ns]; and the blocks written into each tier since the
 * last report, as stores issued at at_ns (engine_tier.c). */
void sim_engine_report_tiers(loop *L, int64_t iter_ns, int64_t at_ns, int64_t end_ns, bool loads);

/* Whether the run may hold its decodes as steady aggregates, and the run's totals written into
 * out at its end (engine_query.c). */
bool sim_engine_steady_fits(const loop *L);
void sim_engine_totals(const loop *L, sim_engine_result *out);

/* The engine a caller steps (engine.h): the loop itself. */
struct sim_engine {
    loop L;
};

#endif
