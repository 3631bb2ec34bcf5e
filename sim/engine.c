/* engine.c - discrete-event serving simulation. */
#include "engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_loop.h"
#include "power.h"
#include "pp.h"

#define NS_PER_S 1000000000LL

void sim_engine_result_free(sim_engine_result *r)
{
    free(r->seqs);
    free(r->done);
    r->seqs = NULL;
    r->done = NULL;
    sim_hist_free(&r->itl);
    sim_hist_free(&r->out_seconds);
}


static void window_add(window *w, int64_t t_ns, int64_t tokens)
{
    int64_t k = t_ns / NS_PER_S;
    if (k != w->k) {
        if (w->closed && !sim_hist_add(w->closed, w->k, w->tokens))
            w->ok = 0;
        w->k = k;
        w->tokens = 0;
    }
    w->tokens += tokens;
    if (w->tokens > w->peak)
        w->peak = w->tokens;
}


static void notify(const loop *L, int64_t id, sim_request_event ev, int64_t t)
{
    const sim_engine_observer *o = L->cfg->observer;
    if (o && o->request)
        o->request(o->ctx, id, ev, t);
}

static void notify_chunk(const loop *L, int64_t id, int64_t streamed, int64_t t)
{
    const sim_engine_observer *o = L->cfg->observer;
    if (o && o->chunk)
        o->chunk(o->ctx, id, streamed, t);
}

/* The next request to send and when it arrives: the workload's next in order, or with sessions
 * the earliest of the turns released so far (a heap by time, then index). False: none yet. */
static bool next_send(const loop *L, int64_t *id, int64_t *arrival)
{
    if (L->w->links) {
        if (L->heap_n == 0)
            return false;
        *id = L->heap[0].id;
        *arrival = L->heap[0].t_ns;
        return true;
    }
    if (L->next >= L->w->n)
        return false;
    *id = (int64_t)L->next;
    *arrival = L->w->reqs[L->next].arrival_ns;
    return true;
}

/* The k-th request sent (send order: the workload's, or the heap's with sessions). */
static int64_t sent_id(const loop *L, size_t k) { return L->order ? L->order[k] : (int64_t)k; }

/* Sends every request that has arrived by `now` and may be in flight. */
static void send_arrivals(loop *L)
{
    const int64_t cap = L->cfg->max_concurrency;
    int64_t id, arrival;
    while ((cap == 0 || L->inflight < cap) && next_send(L, &id, &arrival) && arrival <= L->now) {
        if (L->order) {
            (void)sim_workload_turn_pop(L->heap, &L->heap_n);
            L->order[L->next] = id;
        }
        const sim_request *q = &L->w->reqs[id];
        sim_seq *r = &L->res->seqs[id];
        r->input = sim_engine_prompt_tokens(L->cfg, q);
        r->output = q->output_tokens;
        r->computed = q->kv_ready; /* its first chunk needs the KV blocks */
        if (sim_engine_prefix_caching(L->cfg) && L->w->hash_block_tokens > 0) {
            /* whole blocks of the prompt (and of the output, when the ids name them: all but
             * the last token's KV is computed) */
            int64_t full = (L->w->hash_covers_output ? r->input + r->output - 1 : r->input) /
                           L->w->hash_block_tokens;
            r->hash = L->w->hash_ids + q->hash_off;
            r->n_hash = q->n_hash < full ? q->n_hash : full;
        }
        r->send_ns = arrival > L->free_since ? arrival : L->free_since;
        if (L->fe_on) /* the front end takes it in first (deliver) */
            sim_frontend_take(&L->fe, &L->cfg->frontend, id, r->send_ns, r->input);
        else
            sim_sched_enqueue(&L->sched, L->res->seqs, id);
        L->tl[id] = TL_QUEUED;
        notify(L, id, SIM_EV_ARRIVED, r->send_ns);
        L->next++;
        L->inflight++;
        if (L->inflight > L->res->peak_concurrency)
            L->res->peak_concurrency = L->inflight;
    }
}

/* Sent requests the front end is done with reach the scheduler, in send order. */
static void deliver(loop *L)
{
    while (L->next_ready < L->next && L->fe.t_ns[sent_id(L, L->next_ready)] <= L->now) {
        const int64_t id = sent_id(L, L->next_ready++);
        sim_frontend_deliver(&L->fe, id, L->res->seqs[id].send_ns);
        sim_sched_enqueue(&L->sched, L->res->seqs, id);
    }
}

/* `ntok` tokens of request id came out at `now`, streamed as one chunk (with a front end: noted
 * for it, which streams them, frontend.h). Returns 0 when out of memory. */
static int emit_tokens(loop *L, int64_t id, int64_t ntok)
{
    sim_seq *r = &L->res->seqs[id];
    if (L->fe_on && L->steady) /* streamed: every token, but the steady decodes' are not written */
        L->fe.streamed[id] = r->generated;
    if (L->fe_on)
        L->emit[L->n_emit++] = (sim_frontend_emit){.id = id,
                                                   .before = r->generated,
                                                   .after = r->generated + ntok,
                                                   .finished = r->generated + ntok == r->output};
    else if (r->generated == 0)
        r->first_token_ns = L->now;
    else if (L->now - r->last_token_ns == L->dt)
        L->same_gaps++; /* counted, added as one run by record_iteration */
    else if (!sim_hist_add(&L->res->itl, L->now - r->last_token_ns, 1))
        return 0;
    r->generated += ntok;
    if (!L->fe_on) {
        r->last_token_ns = L->now;
        notify_chunk(L, id, r->generated, L->now);
    }
    if (r->generated == r->output) {
        r->finish_ns = L->now; /* the client's, from the front end's stream when there is one */
        L->done_at_now++;
        notify(L, id, SIM_EV_FINISHED, L->now);
        sim_sched_finish(&L->sched, L->res->seqs, id);
        L->done++;
        if (L->cfg->max_concurrency > 0 && L->inflight == L->cfg->max_concurrency) {
            L->free_since = L->now;
            L->fe_slot_freed = L->fe_on;
        }
        L->inflight--;
    }
    return 1;
}

/* What an iteration adds to the run's totals once its tokens are out: the place for any
 * per-iteration statistic. Returns 0 when out of memory. */
static int record_iteration(loop *L, int64_t n_seqs, double draft_ns, int64_t produced)
{
    L->res->busy_ns += (double)L->dt;
    L->res->draft_ns += draft_ns;
    L->res->iterations++;
    L->res->scheduled_seqs += n_seqs;
    window_add(&L->tokens, L->now, produced);
    int ok = sim_hist_add(&L->res->itl, L->dt, L->same_gaps);
    L->same_gaps = 0;
    return ok;
}

/* Drafted tokens per decode this iteration under the spec's load rule, told to the scheduler:
 * the rule reads the requests running before the iteration is scheduled (vLLM V0's
 * running_queue_size, TensorRT-LLM's active requests; V1 looks up the batch it scheduled last). */
static int64_t spec_tokens_now(loop *L)
{
    const int64_t k = L->cfg->sched.spec_tokens;
    if (k == 0 || L->cfg->spec->adapt.n == 0)
        return k;
    int d = sim_spec_adapt_depth(L->cfg->spec, (int64_t)L->sched.r_len);
    int64_t now = d == sim_spec_depth(L->cfg->spec) ? k : d; /* a shorter chain, or off */
    sim_sched_set_spec_tokens(&L->sched, now);
    if (now < k)
        L->res->spec_off_iterations += now == 0;
    return now;
}

/* Runs one iteration: schedule, price, advance time, apply. Returns 0 if nothing could run, -1
 * when out of memory, -2 when the step's time is not finite and positive. */
static int iterate(loop *L)
{
    sim_seq *seqs = L->res->seqs;
    /* locals: stores through tl (unsigned char, may alias anything) would otherwise make every
     * per-sequence pass reload L's fields */
    unsigned char *const tl = L->tl;
    const sim_sched_entry *const batch = L->batch;
    sim_seq_group *const groups = L->groups;
    /* an engine's load rule drafts by the running batch (spec.h's adapt) */
    const int64_t k = spec_tokens_now(L);
    L->sched.st.last_ns = L->fe_on ? L->fe.prev_ns : L->now; /* the steady decodes' last tokens */
    if (L->steady && (L->sched.st.tick > INT32_MAX / 2 || L->sched.st.next_rank > INT32_MAX / 2)) {
        /* its ticks and ranks are 32-bit: walk every sequence from here */
        sim_sched_steady_flush(&L->sched, seqs);
        sim_sched_compact_all(&L->sched, seqs);
        L->sched.st.on = L->steady = false;
    }
    size_t n = sim_sched_next(&L->sched, seqs, L->batch);
    SIM_ASSERT(sim_sched_blocks_conserved(&L->sched, seqs));
    /* steady decodes (sched.h): one token each, not in the batch */
    const int64_t steady = sim_sched_steady_count(&L->sched);
    if (L->sched.st.oom)
        return -1;
    if (n == 0 && steady == 0)
        return 0;
    bool prefill = false;
    size_t n_pre = 0, n_dec = 0;
    int64_t prefill_tokens = 0;
    for (size_t p = 0; p < L->sched.n_preempted; p++) {
        tl[L->sched.preempted[p]] = TL_QUEUED;
        notify(L, L->sched.preempted[p], SIM_EV_PREEMPTED, L->now);
    }
    for (size_t i = 0; i < n; i++) {
        int64_t id = batch[i].req;
        const sim_seq *r = &seqs[id];
        int64_t q = batch[i].num_new;
        bool decode = batch[i].decode;
        if (tl[id] == TL_QUEUED) {
            tl[id] = TL_PREFILL;
            notify(L, id, SIM_EV_SCHEDULED, L->now);
        }
        if (!decode)
            prefill_tokens += q;
        bool samples = decode || r->computed + q == sim_seq_known(r);
        /* the vision encoder runs a request's images in the step of its first prompt chunk
         * (again after a preemption, which drops their encoder output with the blocks) */
        const int64_t images = !decode && r->computed == 0 ? L->w->reqs[id].images : 0;
        /* a verify step needs logits at every position; a prompt at its last only */
        groups[i] = (sim_seq_group){.count = 1,
                                    .q = q,
                                    .c = r->computed,
                                    .logits = samples ? (decode ? q : 1) : 0,
                                    .images = images,
                                    .image_w = L->cfg->image_w,
                                    .image_h = L->cfg->image_h,
                                    .rank = (int64_t)L->base + id}; /* DP attention: round-robin */
        prefill |= !decode;
        if (k > 0 && decode)
            L->draft[n - 1 - n_dec++] = groups[i]; /* verifying sequences fill from the end */
        else if (k > 0) { /* the draft has no vision encoder: the target encodes the images */
            L->draft[n_pre] = groups[i];
            L->draft[n_pre++].images = 0;
        }
    }
    sim_engine_batch eb;
    if (L->steady)
        sim_engine_price_batch_plus(L->cfg, groups, n, steady,
                                    sim_sched_steady_context(&L->sched), prefill, &L->memo, &eb);
    else
        sim_engine_price_batch(L->cfg, groups, n, prefill, k, &L->memo, &eb);
    const sim_step_cfg sc = eb.sc;
    const sim_step_result *step = eb.step;
    const int64_t graph_seqs = eb.graph_seqs;
    /* the draft picks each of its steps' launch mode from the configuration as given */
    double draft_ns =
        k > 0 ? sim_spec_draft_ns(L->cfg->spec, &L->cfg->step, L->draft, n_pre,
                                  L->draft + n - n_dec, n_dec, L->scratch, &L->draft_memo)
              : 0.0;
    double gpu_ns = eb.gpu_ns;
    /* prefixes loaded from lower KV tiers: the iteration waits for them (engine.h) */
    if (L->res->offload_on) { /* 0 ns when nothing was loaded */
        const double load_ns =
            sim_engine_offload_load_ns(L->cfg, L->sched.loaded_tokens, L->sched.loaded_reqs);
        gpu_ns += load_ns;
        L->res->offload_load_ns += load_ns;
    }
    /* a tree's mask and kernels (spec.h; none for a chain) */
    if (k > 0 && n_dec > 0 && k == L->cfg->sched.spec_tokens)
        gpu_ns += sim_spec_tree_ns(L->cfg->spec, &sc, (double)n_dec);
    if (k > 0 && n_dec > 0)
        L->res->verify_ns += gpu_ns;
    /* a time that is not finite and positive is a bug (an op priced at a zero peak): an internal
     * error, never a step of some made-up length. A positive step under half a nanosecond (a
     * fantasy device) still advances the clock by its 1 ns resolution. */
    if (!(isfinite(gpu_ns + draft_ns) && gpu_ns + draft_ns > 0.0)) {
        L->bad_step_ns = gpu_ns + draft_ns;
        return -2;
    }
    int64_t dt = (int64_t)llround(gpu_ns + draft_ns);
    if (dt < 1)
        dt = 1;
    /* the step's energy above the idle floor on each GPU of its TP group (power.h) */
    const sim_step_cfg *pc = &L->cfg->step;
    L->res->active_j +=
        (double)sim_step_gpus(pc) * sim_power_step_active_j(pc->hw, pc->prec.act, step);
    int64_t start = L->now;
    const sim_engine_observer *obs = L->cfg->observer;
    if (obs && obs->iteration) {
        sim_iter_info it = {.start_ns = start,
                            .dur_ns = dt,
                            .seqs = (int64_t)n,
                            .prefill_tokens = prefill_tokens,
                            .decode_tokens = step->graph.tokens - prefill_tokens,
                            .cached_tokens = L->sched.cached_tokens,
                            .graph_seqs = graph_seqs,
                            .kv_used_blocks = sim_sched_kv_used(&L->sched),
                            .kv_total_blocks = L->sched.kv.total_blocks,
                            .running = (int64_t)L->sched.r_len,
                            .waiting = (int64_t)L->sched.w_len,
                            .draft_ns = draft_ns,
                            .step = step,
                            .step_cfg = &sc,
                            .groups = L->groups,
                            .n_groups = n,
                            .batch = batch};
        obs->iteration(obs->ctx, &it);
    }
    sim_engine_report_tiers(L, start, start, start + dt, true); /* loads, stores on eviction */
    L->now += dt;
    L->dt = dt;
    L->done_at_now = 0;
    L->n_emit = 0;
    if (L->fe_on) /* what arrived during the iteration is ahead of its output in the front end */
        send_arrivals(L);
    int64_t produced = steady;
    if (!L->fe_on) /* each streamed in the iteration before: its gap is dt */
        L->same_gaps += steady;
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        int64_t id = batch[i].req;
        sim_seq *r = &seqs[id];
        int64_t q = batch[i].num_new;
        if (r->first_sched_ns < 0)
            r->first_sched_ns = start;
        int64_t ntok = 0;
        if (batch[i].decode) {
            /* a decode, or a verify of q - 1 drafts: a accepted, plus the target's own token */
            int64_t yield = 1;
            if (q > 1) {
                yield += sim_spec_draw(L->cfg->spec, &L->rng, (int)(q - 1));
                L->res->spec_verifies++;
                L->res->spec_tokens += yield;
            }
            ntok = yield < r->output - r->generated ? yield : r->output - r->generated;
            r->computed += ntok;
            if (r->n_ref < r->n_hash) /* output blocks the ids name (sessions) are cached too */
                sim_sched_cache_prompt(&L->sched, seqs, id);
        } else {
            r->computed += q;
            sim_sched_cache_prompt(&L->sched, seqs, id);
            ntok = r->computed == sim_seq_known(r) ? 1 : 0;
        }
        /* the first token after a prompt or a recompute (whose last chunk may be a lone token,
         * scheduled as a decode): it decodes from here, unless it is done */
        if (ntok > 0 && tl[id] == TL_PREFILL) {
            tl[id] = TL_DECODE;
            if (r->generated + ntok < r->output)
                notify(L, id, SIM_EV_DECODING, L->now);
        }
        if (ntok > 0) {
            ok &= emit_tokens(L, id, ntok);
            produced += ntok;
        }
    }
    if (L->fe_on && (L->n_emit || steady)) {
        int64_t client;
        ok &= sim_frontend_stream(&L->fe, &L->cfg->frontend, L->now, seqs, L->emit, L->n_emit,
                                  steady, produced, &L->res->itl, &client);
        for (size_t i = 0; i < L->n_emit; i++)
            if (L->emit[i].chunk)
                notify_chunk(L, L->emit[i].id, L->emit[i].after, client);
        if (L->fe_slot_freed) /* a client's slot frees when it has its last chunk */
            L->free_since = client;
        L->fe_slot_freed = false;
    }
    if (L->order) /* a finished turn releases its session's next, think_ns after its last chunk */
        for (size_t i = 0; i < n; i++) {
            const int64_t id = batch[i].req;
            const sim_session_link *lk = &L->w->links[id];
            if (seqs[id].phase == SIM_SEQ_DONE && lk->follow > 0)
                sim_workload_turn_push(
                    L->heap, &L->heap_n,
                    (sim_session_turn){
                        sim_workload_turn_release(L->w, (size_t)id, seqs[id].finish_ns, 0),
                        lk->follow, -1});
        }
    sim_engine_report_tiers(L, start, L->now, L->now, false); /* written through at its end */
    if (L->steady)
        ok &= sim_sched_steady_settle(&L->sched, seqs, batch, n,
                                      L->fe_on ? L->fe.prev_ns : L->now);
    sim_sched_compact(&L->sched, seqs);
    L->res->steady_seqs += steady;
    ok &= record_iteration(L, (int64_t)n + steady, draft_ns, produced);
    return ok ? 1 : -1;
}

/* Makes the per-request arrays (the result's seqs, the timelines, the front end's) hold `need`
 * requests (need <= L->cap), doubling them at least, so n appended requests cost O(n) copies.
 * A new entry is pending, its lengths and ids filled in when it is sent. False: out of memory. */
/* Entries [from, to) of the per-request arrays as not yet sent. */
static void pending(loop *L, size_t from, size_t to)
{
    memset(L->res->seqs + from, 0, (to - from) * sizeof *L->res->seqs);
    memset(L->tl + from, 0, (to - from) * sizeof *L->tl);
    for (size_t i = from; i < to; i++) {
        sim_seq *r = &L->res->seqs[i];
        r->first_sched_ns = r->first_token_ns = r->last_token_ns = r->finish_ns = -1;
        r->phase = SIM_SEQ_PENDING;
    }
}

static bool grow(loop *L, size_t need)
{
    if (need <= L->room)
        return true;
    size_t n = 2 * L->room > need ? 2 * L->room : need;
    n = n < 16 ? 16 : n;
    n = n > L->cap ? L->cap : n;
    sim_seq *seqs = realloc(L->res->seqs, n * sizeof *seqs);
    if (seqs)
        L->res->seqs = seqs;
    unsigned char *tl = seqs ? realloc(L->tl, n * sizeof *tl) : NULL;
    if (tl)
        L->tl = tl;
    if (!tl || (L->fe_on && !sim_frontend_grow(&L->fe, L->room, n)) ||
        (L->sched.cap > 0 && !sim_sched_reserve(&L->sched, n))) /* (set up after the first) */
        return false;
    pending(L, L->room, n);
    L->room = n;
    return true;
}

static sim_status setup(loop *L, const sim_engine_cfg *cfg, const sim_workload *w, size_t cap,
                        sim_engine_result *out, sim_err *err)
{
    memset(L, 0, sizeof *L);
    memset(out, 0, sizeof *out);
    L->cfg = cfg;
    L->w = w;
    L->res = out;
    size_t n = w->n > cap ? w->n : cap;
    L->cap = n;
    out->n = w->n;
    L->tokens.ok = 1;
    if (cfg->record_seconds)
        L->tokens.closed = &out->out_seconds;
    /* the per-request arrays hold what w holds now and grow with it (grow): a replica's memory
     * is its share of the stream, not the capacity */
    out->seqs = NULL;
    size_t m = (size_t)cfg->sched.max_num_seqs;
    if (m > n)
        m = n;
    L->batch = malloc(m * sizeof *L->batch);
    L->groups = malloc((m + 1) * sizeof *L->groups); /* + CUDA-graph padding */
    L->draft = malloc(m * sizeof *L->draft);
    L->scratch = malloc(m * sizeof *L->scratch);
    L->fe_on = cfg->frontend.on;
    bool fe_ok = sim_frontend_init(&L->fe, &cfg->frontend, 0) && grow(L, w->n);
    L->emit = L->fe_on ? malloc(m * sizeof *L->emit) : NULL;
    fe_ok = fe_ok && (!L->fe_on || L->emit);
    sim_rng_seed(&L->rng, cfg->seed);
    bool pp_ok = sim_pp_stages(&cfg->step) == 1 || sim_pp_memo_init(&L->memo.pp, &cfg->step, m);
    if (w->links) { /* sessions: every first turn released at its arrival */
        L->heap = malloc(n * sizeof *L->heap);
        L->order = malloc(n * sizeof *L->order);
        pp_ok = pp_ok && L->heap && L->order;
        for (size_t i = 0; pp_ok && i < w->n; i++)
            if (!w->links[i].follows)
                sim_workload_turn_push(L->heap, &L->heap_n,
                                       (sim_session_turn){w->reqs[i].arrival_ns, (int64_t)i, -1});
    }
    if (!L->batch || !L->groups || !L->draft || !L->scratch || !pp_ok || !fe_ok)
        return sim_fail(err, SIM_EINTERNAL, "out of memory for %zu requests", n);
    sim_kvcache kv;
    const sim_engine_kv_groups g = sim_engine_kv_groups_for(cfg, w->hash_block_tokens);
    sim_engine_kvcache_init(&kv, &g, sim_engine_kv_blocks(cfg));
    sim_sched_cfg sc = cfg->sched;
    if (sc.max_num_seqs > (int64_t)n)
        sc.max_num_seqs = (int64_t)n; /* never more running than requests */
    sc.prefix_block_tokens = sim_engine_prefix_caching(cfg) ? w->hash_block_tokens : 0;
    sc.offload = (sim_kvtier_cfg){.write_through = cfg->offload.write_through};
    if (sc.prefix_block_tokens > 0)
        for (int t = 0; t < SIM_KVTIER_LOWER; t++)
            sc.offload.entries[t] = sim_engine_offload_entries(cfg, t, sc.prefix_block_tokens);
    out->offload_on = sim_engine_offload_on(cfg);
    if (sim_sched_init(&L->sched, &sc, &kv, L->room ? L->room : 1)) /* grown with the room */
        return sim_fail(err, SIM_EINTERNAL, "out of memory for the scheduler queues");
    out->kv_blocks = kv.total_blocks;
    out->block_size = kv.block_size;
    out->power_unknown = !sim_power_known(cfg->step.hw);
    out->idle_w =
        out->power_unknown ? 0.0 : cfg->step.hw->power.idle_w * (double)sim_pp_gpus(&cfg->step);
    return SIM_OK;
}

static void teardown(loop *L)
{
    sim_sched_free(&L->sched);
    free(L->batch);
    free(L->groups);
    free(L->draft);
    free(L->scratch);
    free(L->tl);
    free(L->emit);
    free(L->heap);
    free(L->order);
    sim_frontend_free(&L->fe);
    sim_pp_memo_free(&L->memo.pp);
}

/* Runs iterations that start before `until` (INT64_MAX: all there is to run). Returns with the
 * engine idle and every request of w sent, or at the first iteration start >= until. */
static sim_status advance(loop *L, int64_t until, sim_err *err)
{
    const sim_workload *w = L->w;
    while (L->done < w->n && L->now < until) {
        send_arrivals(L);
        if (L->fe_on)
            deliver(L);
        if (sim_sched_idle(&L->sched)) {
            const bool taking = L->fe_on && L->next_ready < L->next; /* in the front end */
            if (L->next >= w->n && !taking)
                return SIM_OK; /* waits for more requests (or finish says it is stuck) */
            /* nothing to run: jump to the next arrival or delivery, not past `until` */
            const int64_t cap = L->cfg->max_concurrency;
            int64_t nid, a;
            const bool sends = (!taking || cap == 0 || L->inflight < cap) && next_send(L, &nid, &a);
            if (!sends)
                a = INT64_MAX;
            if (taking && L->fe.t_ns[sent_id(L, L->next_ready)] < a)
                a = L->fe.t_ns[sent_id(L, L->next_ready)];
            if (a >= until && until > L->now) {
                L->now = until;
                L->done_at_now = 0;
                return SIM_OK;
            }
            if (a > L->now) {
                L->now = a;
                L->done_at_now = 0;
            }
            continue;
        }
        int rc = iterate(L);
        if (rc == -2)
            return sim_fail(err, SIM_EINTERNAL,
                            "a step's time is %g ns at t = %lld ns, not a finite positive number "
                            "(a bug: every format it computes in was checked)",
                            L->bad_step_ns, (long long)L->now);
        if (rc < 0)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        if (rc == 0)
            return sim_fail(err, SIM_EINTERNAL,
                            "scheduler stalled at t = %lld ns with %zu waiting and %zu running "
                            "requests (a bug: every request was checked to fit)",
                            (long long)L->now, L->sched.w_len, L->sched.r_len);
    }
    return SIM_OK;
}

sim_status sim_engine_start(const sim_engine_cfg *cfg, const sim_workload *w, size_t capacity,
                            sim_engine_result *out, sim_engine **e, sim_err *err)
{
    *e = malloc(sizeof **e);
    if (!*e) {
        memset(out, 0, sizeof *out);
        return sim_fail(err, SIM_EINTERNAL, "out of memory for an engine");
    }
    sim_status st = setup(&(*e)->L, cfg, w, capacity, out, err);
    if (st) {
        teardown(&(*e)->L);
        sim_engine_result_free(out);
        free(*e);
        *e = NULL;
    }
    return st;
}

sim_status sim_engine_reserve(sim_engine *e, sim_err *err)
{
    if (e->L.w->n > e->L.cap)
        return sim_fail(err, SIM_EINTERNAL, "engine given %zu requests, room for %zu", e->L.w->n,
                        e->L.cap);
    if (!grow(&e->L, e->L.w->n))
        return sim_fail(err, SIM_EINTERNAL, "out of memory for %zu requests", e->L.w->n);
    return SIM_OK;
}

sim_status sim_engine_release(sim_engine *e, size_t k, sim_err *err)
{
    loop *L = &e->L;
    for (size_t i = 0; i < k; i++) /* (k <= done <= the requests held <= the room) */
        if (L->order || k > L->done || L->res->seqs[i].phase != SIM_SEQ_DONE ||
            L->res->seqs[i].finish_ns >= L->now)
            return sim_fail(err, SIM_EINTERNAL,
                            "engine asked to release request %zu, which is not finished before "
                            "its clock (or runs sessions)",
                            L->base + i);
    if (k == 0)
        return SIM_OK;
    memmove(L->res->seqs, L->res->seqs + k, (L->room - k) * sizeof *L->res->seqs);
    memmove(L->tl, L->tl + k, (L->room - k) * sizeof *L->tl);
    pending(L, L->room - k, L->room);
    if (L->fe_on)
        sim_frontend_drop(&L->fe, k, L->room);
    sim_sched_renumber(&L->sched, (int64_t)k);
    L->next -= k;
    L->next_ready -= k;
    L->done -= k;
    L->base += k;
    return SIM_OK;
}

sim_status sim_engine_advance(sim_engine *e, int64_t until_ns, sim_err *err)
{
    sim_status st = sim_engine_reserve(e, err);
    return st ? st : advance(&e->L, until_ns, err);
}

sim_status sim_engine_finish(sim_engine *e, sim_err *err)
{
    loop *L = &e->L;
    sim_engine_result *out = L->res;
    const size_t n = L->w->n;
    sim_status st = sim_engine_advance(e, INT64_MAX, err);
    if (L->steady) { /* every steady decode's counts written (none is left once all are done) */
        L->sched.st.last_ns = L->fe_on ? L->fe.prev_ns : L->now;
        sim_sched_steady_flush(&L->sched, out->seqs);
    }
    if (!st && L->done < n)
        st = sim_fail(err, SIM_EINTERNAL, "engine idle with %zu of %zu requests done", L->done, n);
    if (!st && !sim_hist_finish(&out->itl))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory sorting the inter-token gaps");
    if (!st && L->tokens.closed &&
        (!sim_hist_add(L->tokens.closed, L->tokens.k, L->tokens.tokens) || !L->tokens.ok ||
         !sim_hist_finish(L->tokens.closed)))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory recording tokens per second");
#ifdef SIM_ASSERTS
    if (!st) { /* tokens in = tokens out: each request generated its output, no more */
        int64_t want = 0, got = 0;
        for (size_t i = 0; i < n; i++) {
            SIM_ASSERT(out->seqs[i].generated == out->seqs[i].output);
            want += out->seqs[i].output;
            got += out->seqs[i].generated;
        }
        SIM_ASSERT(want == got && (n == 0 || out->iterations > 0));
    }
#endif
    if (!st)
        sim_engine_totals(L, out);
    teardown(L);
    free(e);
    if (st)
        sim_engine_result_free(out);
    return st;
}

void sim_engine_abort(sim_engine *e, sim_engine_result *out)
{
    teardown(&e->L);
    free(e);
    sim_engine_result_free(out);
}

sim_status sim_engine_run(const sim_engine_cfg *cfg, const sim_workload *w, sim_engine_result *out,
                          sim_err *err)
{
    sim_engine *e;
    sim_status st = sim_engine_start(cfg, w, w->n, out, &e, err);
    if (st)
        return st;
    loop *L = &e->L;
    if (sim_engine_steady_fits(L) && w->n < (size_t)INT32_MAX / 2) {
        L->steady = sim_sched_steady_init(&L->sched.st, L->cap,
                                          (size_t)L->sched.cfg.max_num_seqs, L->sched.kv.block_size);
        if (!L->steady) {
            sim_engine_abort(e, out);
            return sim_fail(err, SIM_EINTERNAL, "out of memory for %zu requests", w->n);
        }
    }
    return sim_engine_finish(e, err);
}
