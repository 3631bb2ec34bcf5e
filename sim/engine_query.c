/* engine_query.c - what a caller stepping the engine (engine.h: sim_engine_start, _advance) asks
 * of it between steps: its clock, the requests outstanding and done, the KV cache's use, a
 * prefix's cached length, and the abort of a request whose client went away. */
#include "engine_loop.h"

int64_t sim_engine_now(const sim_engine *e) { return e->L.now; }

int64_t sim_engine_outstanding(const sim_engine *e, int64_t t_ns)
{
    const loop *L = &e->L;
    /* requests finished at the end of an iteration still running at t are outstanding at t */
    size_t done = L->now > t_ns ? L->done - L->done_at_now : L->done;
    return (int64_t)(L->w->n - done);
}

size_t sim_engine_done(const sim_engine *e) { return e->L.base + e->L.done; }

double sim_engine_kv_usage(const sim_engine *e)
{
    const sim_sched *s = &e->L.sched;
    return s->kv.total_blocks > 0 ? (double)sim_sched_kv_used(s) / (double)s->kv.total_blocks
                                  : 0.0;
}

int64_t sim_engine_cached_prefix(const sim_engine *e, const uint64_t *ids, int64_t n)
{
    const sim_sched *s = &e->L.sched;
    return s->cfg.prefix_block_tokens > 0 ? sim_prefix_match(&s->prefix, ids, n) : 0;
}

sim_seq_phase sim_engine_abort_request(sim_engine *e, int64_t id)
{
    loop *L = &e->L;
    if ((size_t)id >= L->room)
        return SIM_SEQ_PENDING; /* appended since the last advance: not sent */
    sim_seq *r = &L->res->seqs[id];
    const sim_seq_phase was = sim_sched_abort(&L->sched, L->res->seqs, id);
    if (was == SIM_SEQ_RUNNING || was == SIM_SEQ_WAITING) {
        r->output = r->generated; /* what it got is all it generates: tokens in = tokens out */
        r->finish_ns = L->now;
        L->done++;
        L->inflight--;
    }
    return was;
}
