/* engine_query.c - what a caller stepping the engine (engine.h: sim_engine_start, _advance) asks
 * of it between steps: its clock, its next event, when its client had its last chunks, the
 * requests outstanding and done, the KV cache's use, a prefix's cached length, and the abort of
 * a request whose client went away; and what the loop asks of its own state: whether its decodes
 * may be held steady, and the run's totals. */
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

/* Whether a run may hold its decodes as steady aggregates (sched.h): one token a decode (no
 * speculation), each sequence's step terms linear in its context (full attention: the batch's
 * shape is sums of whole numbers, sim_graph_shape_add_decodes) and not split by rank (no
 * pipeline stages or data-parallel attention, which price each sequence), no sliding block
 * tables, a scheduler whose walk it reproduces, every token streamed as its own chunk, and
 * nobody watching or stepping the engine (observers see each sequence; a caller stepping it
 * reads the requests between steps). Otherwise the run walks every sequence, as before. */
bool sim_engine_steady_fits(const loop *L)
{
    const sim_engine_cfg *c = L->cfg;
    const sim_sched_cfg *s = &L->sched.cfg;
    const sim_par par = sim_step_par(&c->step);
    return !c->observer && s->spec_tokens == 0 && !L->w->links && sim_pp_stages(&c->step) == 1 &&
           sim_par_dp(&par) < 2 && sim_graph_decode_linear(c->step.model) &&
           L->sched.kv.swa_groups == 0 &&
           (s->policy == SIM_POLICY_MAX_UTIL ||
            (s->policy == SIM_POLICY_VLLM && s->chunked_prefill)) &&
           (!L->fe_on || c->frontend.stream_interval == 1);
}

/* The run's totals into out once every request is done (sim_engine_finish). */
void sim_engine_totals(const loop *L, sim_engine_result *out)
{
    out->n = L->w->n;
    out->duration_ns = L->now > L->fe.last_ns ? L->now : L->fe.last_ns;
    out->frontend_on = L->fe_on;
    out->frontend_ttft_ns = L->fe.in_ns + L->fe.first_ns;
    out->frontend_e2e_ns = L->fe.in_ns + L->fe.finish_ns;
    out->preemptions = L->sched.preemptions;
    out->kv_peak_blocks = L->sched.kv.peak_used;
    out->prefix_hit_tokens = L->sched.prefix_hit_tokens;
    out->prefix_query_tokens = L->sched.prefix_query_tokens;
    const double token_bytes =
        sim_mem_kv_bytes_per_token(&L->cfg->step) * (double)sim_step_gpus(&L->cfg->step);
    for (int t = 0; t < SIM_KVTIER_LOWER; t++) {
        out->offload_hit_tokens[t] = L->sched.tier_hit_tokens[t];
        out->offload_read_bytes[t] = (double)L->sched.tier_hit_tokens[t] * token_bytes;
        out->offload_write_bytes[t] = (double)L->sched.tier.written[t] *
                                      (double)L->sched.cfg.prefix_block_tokens * token_bytes;
    }
    out->peak_output_tps = (double)L->tokens.peak;
}

int64_t sim_engine_client_ns(const sim_engine *e)
{
    return e->L.fe_on ? e->L.fe.prev_ns : e->L.now;
}

int64_t sim_engine_next_ns(const sim_engine *e)
{
    const loop *L = &e->L;
    if (!sim_sched_idle(&L->sched))
        return L->now;
    int64_t t = INT64_MAX;
    if (L->next < L->w->n) /* given, not sent (sessions: the first of its heap) */
        t = L->order ? (L->heap_n ? L->heap[0].t_ns : INT64_MAX) : L->w->reqs[L->next].arrival_ns;
    if (L->fe_on && L->next_ready < L->next) { /* in the front end */
        const int64_t d = L->fe.t_ns[L->order ? L->order[L->next_ready] : (int64_t)L->next_ready];
        t = d < t ? d : t;
    }
    return t == INT64_MAX || t > L->now ? t : L->now;
}
