/* sched.c - continuous batching (vLLM, SGLang, TensorRT-LLM, static batches) with recompute
 * preemption and a prefix cache. */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

/* SGLang caps the output it reserves for per request (CLIP_MAX_NEW_TOKENS in
 * python/sglang/srt/managers/schedule_policy.py) and, on retraction, assumes every request left
 * decodes this many more steps (RETRACT_DECODE_STEPS in schedule_batch.py). */
#define SGLANG_CLIP_NEW_TOKENS 4096
#define SGLANG_RETRACT_STEPS 20

/* HBM evicted a cached block: the lower tiers take it (kvtier.h). */
static void evicted(void *ctx, uint64_t id) { sim_kvtier_evicted(ctx, id); }

sim_status sim_sched_init(sim_sched *s, const sim_sched_cfg *cfg, const sim_kvcache *kv, size_t n)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->spec_now = cfg->spec_tokens;
    s->kv = *kv;
    s->cap = n;
    s->ratio = cfg->ratio_init;
    s->waiting = malloc((n ? n : 1) * sizeof *s->waiting);
    s->running = malloc((n ? n : 1) * sizeof *s->running);
    s->preempted = malloc((n ? n : 1) * sizeof *s->preempted);
    s->lpm_buf = cfg->lpm ? malloc((size_t)2 * SIM_SCHED_LPM_MAX * sizeof *s->lpm_buf) : NULL;
    sim_status st = !s->waiting || !s->running || !s->preempted || (cfg->lpm && !s->lpm_buf)
                        ? SIM_EINTERNAL
                        : SIM_OK;
    if (!st && cfg->prefix_block_tokens > 0) {
        /* a cached hash block holds its tokens' blocks in every full block table; sliding
         * tables keep only their window, allocated per request (extra_blocks) */
        int64_t per = cfg->prefix_block_tokens / kv->block_size * kv->full_groups;
        st = sim_prefix_init(&s->prefix, cfg->prefix_block_tokens, per,
                             (size_t)(kv->total_blocks / per + 1));
        if (!st && sim_kvtier_cfg_on(&cfg->offload)) {
            st = sim_kvtier_init(&s->tier, &cfg->offload);
            s->prefix.on_evict = evicted;
            s->prefix.on_evict_ctx = &s->tier;
        }
    }
    if (st)
        sim_sched_free(s);
    return st;
}

bool sim_sched_reserve(sim_sched *s, size_t n)
{
    if (n <= s->cap)
        return true;
    int64_t *w = malloc(n * sizeof *w); /* the ring laid out again from its head */
    int64_t *r = w ? realloc(s->running, n * sizeof *r) : NULL;
    if (r)
        s->running = r;
    int64_t *p = r ? realloc(s->preempted, n * sizeof *p) : NULL;
    if (p)
        s->preempted = p;
    if (!p) {
        free(w);
        return false;
    }
    for (size_t i = 0; i < s->w_len; i++)
        w[i] = s->waiting[(s->w_head + i) % s->cap];
    free(s->waiting);
    s->waiting = w;
    s->w_head = 0;
    s->cap = n;
    return true;
}

void sim_sched_renumber(sim_sched *s, int64_t k)
{
    for (size_t i = 0; i < s->w_len; i++)
        s->waiting[(s->w_head + i) % s->cap] -= k;
    for (size_t i = 0; i < s->r_len; i++)
        s->running[i] -= k;
    for (size_t i = 0; i < s->n_preempted; i++)
        s->preempted[i] -= k;
}

void sim_sched_free(sim_sched *s)
{
    free(s->waiting);
    free(s->running);
    free(s->preempted);
    free(s->lpm_buf);
    s->waiting = s->running = s->preempted = s->lpm_buf = NULL;
    sim_prefix_free(&s->prefix);
    sim_kvtier_free(&s->tier);
    sim_sched_steady_free(&s->st);
}

bool sim_sched_idle(const sim_sched *s) { return s->w_len == 0 && sim_sched_running(s) == 0; }

static bool caching(const sim_sched *s) { return s->cfg.prefix_block_tokens > 0; }

static bool tiered(const sim_sched *s) { return caching(s) && sim_kvtier_on(&s->tier); }

static int64_t w_front(const sim_sched *s) { return s->waiting[s->w_head]; }

static void w_pop_front(sim_sched *s)
{
    s->w_head = (s->w_head + 1) % s->cap;
    s->w_len--;
}

static void w_push_front(sim_sched *s, int64_t id)
{
    s->w_head = (s->w_head + s->cap - 1) % s->cap;
    s->waiting[s->w_head] = id;
    s->w_len++;
}

void sim_sched_enqueue(sim_sched *s, sim_seq *seqs, int64_t id)
{
    s->waiting[(s->w_head + s->w_len) % s->cap] = id;
    s->w_len++;
    seqs[id].phase = SIM_SEQ_WAITING;
}

/* Takes n free blocks, evicting unused prefix-cache entries when too few are free. */
static bool kv_take(sim_sched *s, int64_t n)
{
    if (n > s->kv.free_blocks && caching(s) && n <= s->kv.free_blocks + sim_sched_evictable(s))
        sim_kvcache_release(&s->kv, sim_prefix_evict(&s->prefix, n - s->kv.free_blocks));
    return sim_kvcache_alloc(&s->kv, n, sim_sched_evictable(s));
}

/* Frees what a request holds: its own blocks, and its uses of cache entries (which stay cached,
 * evictable once nobody uses them). */
static void release(sim_sched *s, sim_seq *r)
{
    int64_t shared = r->n_ref * (caching(s) ? s->prefix.kv_blocks : 0);
    sim_kvcache_release(&s->kv, r->blocks - shared);
    if (r->n_ref > 0)
        sim_prefix_unref(&s->prefix, r->hash, r->n_ref);
    r->blocks = 0;
    r->n_ref = 0;
}

/* Recompute preemption of the most recently admitted running request. Returns its index. */
static int64_t preempt_last(sim_sched *s, sim_seq *seqs)
{
    /* (with steady decodes the finished stay listed until enough of them are: skip them) */
    while (seqs[s->running[s->r_len - 1]].phase != SIM_SEQ_RUNNING) {
        s->r_len--;
        s->n_finished--;
    }
    int64_t id = s->running[--s->r_len];
    sim_seq *r = &seqs[id];
    sim_sched_steady_drop(&s->st, seqs, id);
    release(s, r);
    r->computed = 0;
    r->preemptions++;
    s->preemptions++;
    s->preempted[s->n_preempted++] = id;
    w_push_front(s, id);
    r->phase = SIM_SEQ_WAITING;
    return id;
}

void sim_sched_set_spec_tokens(sim_sched *s, int64_t k)
{
    s->spec_now = k < 0 ? 0 : k > s->cfg.spec_tokens ? s->cfg.spec_tokens : k;
}

/* Tokens whose KV a request must hold blocks for once it has computed `tokens`: those, or its
 * whole sequence under the policies that reserve everything at admission. */
static int64_t held_tokens(const sim_sched *s, const sim_seq *r, int64_t tokens)
{
    if (s->cfg.policy == SIM_POLICY_NO_EVICT || s->cfg.policy == SIM_POLICY_STATIC) {
        int64_t all = r->input + r->output + s->cfg.spec_tokens;
        return tokens > all ? tokens : all;
    }
    return tokens;
}

/* Blocks a request needs beyond those it holds to cache `tokens` tokens. Sliding-window block
 * tables (kvcache.h) first give back the blocks the window has left behind. */
static int64_t extra_blocks(sim_sched *s, sim_seq *r, int64_t tokens)
{
    int64_t need = sim_kvcache_blocks_held(&s->kv, r->computed, held_tokens(s, r, tokens)) -
                   r->blocks;
    if (need < 0 && s->kv.swa_groups > 0) {
        sim_kvcache_release(&s->kv, -need);
        r->blocks += (int32_t)need;
    }
    return need > 0 ? need : 0;
}

/* Preempts the most recently admitted running requests until `need` blocks can be taken for
 * request id (which found too few). Returns true when id itself had to go. */
static bool preempt_for(sim_sched *s, sim_seq *seqs, int64_t id, int64_t need)
{
    do {
        if (preempt_last(s, seqs) == id)
            return true;
    } while (!kv_take(s, need));
    return false;
}

/* Schedules running requests (step 1); returns false if any was preempted. `one_token` limits
 * each to a single token (decode-only iterations of the unchunked policies); `prompts_only`
 * schedules only requests with prompt (or recompute) work left, never preempting (SGLang's
 * prefill iterations). */
static bool schedule_running(sim_sched *s, sim_seq *seqs, sim_sched_entry *out, size_t *n,
                             int64_t *budget, bool one_token, bool prompts_only)
{
    bool clean = true;
    /* locals, not *n and *budget: the stores into out[] could alias them, and reloading them
     * for every running request cost more than the rest of the loop */
    size_t k = *n;
    int64_t left = *budget;
    const int64_t spec = s->spec_now;
    for (size_t i = 0; i < s->r_len && left > 0; i++) {
        int64_t id = s->running[i];
        sim_seq *r = &seqs[id];
        int64_t num_new = sim_seq_known(r) - r->computed;
        bool prompt = num_new > 1 || r->generated == 0;
        if (prompts_only && !prompt)
            continue;
        if (one_token && num_new > 1)
            num_new = 1;
        bool decode = num_new == 1 && r->generated > 0;
        num_new += decode ? spec : 0; /* a decode: verify K drafts as well */
        if (num_new > left)
            num_new = left;
        int64_t need = extra_blocks(s, r, r->computed + num_new);
        if (!kv_take(s, need)) {
            if (prompts_only)
                continue;
            clean = false;
            if (preempt_for(s, seqs, id, need))
                break;
        }
        r->blocks += need;
        out[k++] = (sim_sched_entry){.req = id, .num_new = num_new, .decode = decode};
        left -= num_new;
    }
    *n = k;
    *budget = left;
    return clean;
}

static void admit_waiting(sim_sched *s, sim_seq *seqs, sim_sched_entry *out, size_t *n,
                          int64_t *budget);

/* Step 1 with steady decodes (sched.h): the walked requests (those not steady, and the steady
 * ones whose event is now) in running order, as schedule_running walks them, the others each
 * taking their one token and no block (each needs none before its event). The same outcome as
 * the whole walk, as long as the budget cuts nobody: every block taken, failed allocation and
 * preemption comes in the same order (a request that takes no block cannot fail, nor lift the
 * KV peak). A steady request whose event is now takes its block and stays steady, filed for its
 * next event; one that produces its last token is written and walked. Returns false, everyone's
 * counts written, when the budget would cut the walk: then the caller walks every request. */
static bool next_steady(sim_sched *s, sim_seq *seqs, sim_sched_entry *out, size_t *n,
                        int64_t *budget)
{
    sim_sched_steady *t = &s->st;
    const size_t nw = sim_sched_steady_gather(t);
    const int64_t *walk = t->walk;
    int64_t demand = t->n; /* one token each */
    for (size_t i = 0; i < nw; i++) {
        const sim_seq *r = &seqs[walk[i]];
        if (t->ev[walk[i]] >= 0)
            continue; /* steady: counted */
        const int64_t num_new = sim_seq_known(r) - r->computed;
        demand += num_new + (num_new == 1 && r->generated > 0 ? s->spec_now : 0);
    }
    if (demand > *budget) {
        sim_sched_steady_flush(s, seqs);
        sim_sched_compact_all(s, seqs);
        t->full = true;
        return false;
    }
    size_t k = *n;
    bool clean = true;
    for (size_t i = 0; i < nw; i++) {
        const int64_t id = walk[i];
        sim_seq *r = &seqs[id];
        if (r->phase != SIM_SEQ_RUNNING) /* preempted for one before it */
            continue;
        const int64_t d = t->ev[id] >= 0 ? t->tick - t->base[id] : -1;
        if (d >= 0 && r->generated + d + 1 == r->output)
            sim_sched_steady_write(t, r, id); /* its last token: walked, as any request */
        int64_t num_new = 1, need;
        bool decode = true;
        if (t->ev[id] >= 0) { /* steady: its token computed + d, a block when it starts one */
            need = sim_kvcache_blocks_held(&s->kv, r->computed + d, r->computed + d + 1) -
                   r->blocks;
            need = need > 0 ? need : 0;
        } else {
            num_new = sim_seq_known(r) - r->computed;
            decode = num_new == 1 && r->generated > 0;
            num_new += decode ? s->spec_now : 0;
            need = extra_blocks(s, r, r->computed + num_new);
        }
        if (!kv_take(s, need)) {
            clean = false;
            if (preempt_for(s, seqs, id, need))
                break;
        }
        r->blocks += need;
        if (t->ev[id] < 0)
            out[k++] = (sim_sched_entry){.req = id, .num_new = num_new, .decode = decode};
        else if (!sim_sched_steady_file(
                     t, id, (int32_t)(t->tick + sim_sched_steady_until(s, r, r->computed + d,
                                                                       r->generated + d))))
            t->oom = true; /* the engine reports it */
    }
    *n = k;
    *budget -= demand;
    if (clean)
        admit_waiting(s, seqs, out, n, budget);
    return true;
}

/* Cached hash blocks a request with nothing computed would take (at least one prompt token is
 * left to compute). */
static int64_t cached_blocks(const sim_sched *s, const sim_seq *r)
{
    int64_t usable = (r->input - 1) / s->cfg.prefix_block_tokens;
    return sim_prefix_match(&s->prefix, r->hash, r->n_hash < usable ? r->n_hash : usable);
}

/* SGLang's lpm: the waiting queue ordered by cached prefix, longest first, stable. */
static void order_by_prefix(sim_sched *s, const sim_seq *seqs)
{
    if (!s->cfg.lpm || !caching(s) || s->w_len < 2 || s->w_len > SIM_SCHED_LPM_MAX)
        return;
    int64_t *b = s->lpm_buf; /* pairs (request, matched blocks) */
    for (size_t i = 0; i < s->w_len; i++) {
        int64_t id = s->waiting[(s->w_head + i) % s->cap];
        int64_t m = seqs[id].computed == 0 ? cached_blocks(s, &seqs[id]) : 0;
        size_t j = i; /* insertion sort: equal matches keep their order */
        for (; j > 0 && b[2 * (j - 1) + 1] < m; j--) {
            b[2 * j] = b[2 * (j - 1)];
            b[2 * j + 1] = b[2 * (j - 1) + 1];
        }
        b[2 * j] = id;
        b[2 * j + 1] = m;
    }
    for (size_t i = 0; i < s->w_len; i++)
        s->waiting[(s->w_head + i) % s->cap] = b[2 * i];
}

/* Takes the longest cached prefix of a request with nothing computed: its HBM run, then the
 * hash blocks after it that lower tiers hold (loaded[t]: how many from tier t + 1; they get KV
 * blocks of their own through extra_blocks). Returns the tier blocks taken. */
static int64_t take_prefix(sim_sched *s, sim_seq *r, int64_t loaded[SIM_KVTIER_LOWER])
{
    memset(loaded, 0, SIM_KVTIER_LOWER * sizeof loaded[0]);
    if (!caching(s) || r->computed > 0 || r->n_hash == 0)
        return 0;
    int64_t h = s->cfg.prefix_block_tokens;
    int64_t m = cached_blocks(s, r);
    sim_prefix_ref(&s->prefix, r->hash, m);
    r->n_ref = m;
    int64_t l = 0;
    if (tiered(s)) {
        int64_t usable = (r->input - 1) / h;
        if (usable > r->n_hash)
            usable = r->n_hash;
        for (int tier; m + l < usable && (tier = sim_kvtier_find(&s->tier, r->hash[m + l])); l++)
            loaded[tier - 1]++;
    }
    r->computed = (m + l) * h;
    r->blocks = m * s->prefix.kv_blocks;
    return l;
}

/* An admission took l blocks from the lower tiers after its m HBM ones: each becomes its tier's
 * most recent, and the iteration's loads count them. */
static void count_loads(sim_sched *s, const sim_seq *r, int64_t l, const int64_t loaded[])
{
    const int64_t h = s->cfg.prefix_block_tokens;
    for (int64_t k = r->n_ref; k < r->n_ref + l; k++) {
        /* (an HBM eviction of this admission may have spilled it since: loaded as seen) */
        int tier = sim_kvtier_find(&s->tier, r->hash[k]);
        if (tier > 0)
            sim_kvtier_touch(&s->tier, tier, r->hash[k]);
    }
    for (int t = 0; t < SIM_KVTIER_LOWER; t++) {
        s->loaded_tokens[t] += loaded[t] * h;
        s->loaded_reqs[t] += loaded[t] > 0;
        s->tier_hit_tokens[t] += loaded[t] * h;
    }
}

/* Gives back a prefix taken for an admission that failed. */
static void drop_prefix(sim_sched *s, sim_seq *r)
{
    release(s, r);
    r->computed = 0;
}

/* SGLang's admission rule: tokens free (the evictable cache included) minus what the running
 * requests are expected to still need (ratio x their remaining output, clipped) minus what this
 * iteration already admitted. */
static int64_t sglang_room(const sim_sched *s, const sim_seq *seqs)
{
    double reserved = 0.0;
    for (size_t i = 0; i < s->r_len; i++) {
        const sim_seq *r = &seqs[s->running[i]];
        int64_t left = r->output - r->generated;
        reserved +=
            s->ratio * (double)(left < SGLANG_CLIP_NEW_TOKENS ? left : SGLANG_CLIP_NEW_TOKENS);
    }
    int64_t free_tokens = (s->kv.free_blocks + sim_sched_evictable(s)) * s->kv.block_size;
    return free_tokens - (int64_t)reserved;
}

/* Admits waiting requests first-come-first-served (step 2). */
static void admit_waiting(sim_sched *s, sim_seq *seqs, sim_sched_entry *out, size_t *n,
                          int64_t *budget)
{
    const bool chunk = s->cfg.chunked_prefill || s->cfg.policy == SIM_POLICY_SGLANG;
    int64_t room = s->cfg.policy == SIM_POLICY_SGLANG ? sglang_room(s, seqs) : 0;
    order_by_prefix(s, seqs);
    while (s->w_len > 0 && *budget > 0 && (int64_t)sim_sched_running(s) < s->cfg.max_num_seqs) {
        int64_t id = w_front(s);
        sim_seq *r = &seqs[id];
        bool first = r->first_sched_ns < 0 && r->preemptions == 0;
        int64_t loaded[SIM_KVTIER_LOWER];
        const int64_t l = take_prefix(s, r, loaded);
        int64_t num_new = sim_seq_known(r) - r->computed;
        if (s->cfg.policy == SIM_POLICY_SGLANG) {
            int64_t left = r->output - r->generated;
            int64_t want =
                num_new + (left < SGLANG_CLIP_NEW_TOKENS ? left : SGLANG_CLIP_NEW_TOKENS);
            if (want > room) {
                drop_prefix(s, r);
                break;
            }
            room -= want;
        }
        if (num_new > *budget) {
            if (!chunk) {
                drop_prefix(s, r);
                break;
            }
            num_new = *budget;
        }
        int64_t need = extra_blocks(s, r, r->computed + num_new);
        if (!kv_take(s, need)) {
            drop_prefix(s, r);
            break;
        }
        r->blocks += need;
        if (l > 0)
            count_loads(s, r, l, loaded);
        if (first && caching(s)) {
            const int64_t hbm = r->n_ref * s->cfg.prefix_block_tokens; /* HBM's part alone */
            r->cached = (int32_t)hbm;
            s->prefix_hit_tokens += hbm;
            s->prefix_query_tokens += r->input;
        }
        s->cached_tokens += r->computed - l * s->cfg.prefix_block_tokens;
        w_pop_front(s);
        if (s->st.on)
            s->st.rank[id] = s->st.next_rank++;
        s->running[s->r_len++] = id;
        r->phase = SIM_SEQ_RUNNING;
        out[(*n)++] = (sim_sched_entry){.req = id, .num_new = num_new};
        *budget -= num_new;
    }
}

/* SGLang: a prefill iteration when there is prompt work, else a decode iteration. */
static size_t next_sglang(sim_sched *s, sim_seq *seqs, sim_sched_entry *out)
{
    size_t n = 0;
    int64_t budget = s->cfg.max_num_batched_tokens;
    schedule_running(s, seqs, out, &n, &budget, false, true);
    admit_waiting(s, seqs, out, &n, &budget);
    if (n > 0)
        return n;
    budget = s->cfg.max_num_batched_tokens + s->cfg.max_num_seqs * (1 + s->spec_now);
    if (!schedule_running(s, seqs, out, &n, &budget, true, false)) {
        /* retracted: expect the requests left to decode a while yet */
        double gen = 0.0, outs = 0.0;
        for (size_t i = 0; i < s->r_len; i++) {
            gen += (double)seqs[s->running[i]].generated + SGLANG_RETRACT_STEPS;
            outs += (double)seqs[s->running[i]].output;
        }
        s->ratio = outs > 0.0 && gen < outs ? gen / outs : 1.0;
    } else {
        s->ratio -= s->cfg.ratio_decay;
    }
    if (s->ratio < s->cfg.ratio_min)
        s->ratio = s->cfg.ratio_min;
    return n;
}

size_t sim_sched_next(sim_sched *s, sim_seq *seqs, sim_sched_entry *out)
{
    size_t n = 0;
    int64_t budget = s->cfg.max_num_batched_tokens;
    s->n_preempted = 0;
    s->cached_tokens = 0;
    memset(s->loaded_tokens, 0, sizeof s->loaded_tokens);
    memset(s->loaded_reqs, 0, sizeof s->loaded_reqs);
    const sim_sched_policy p = s->cfg.policy;
    if (p == SIM_POLICY_SGLANG)
        return next_sglang(s, seqs, out);
    if (p == SIM_POLICY_NO_EVICT || p == SIM_POLICY_MAX_UTIL ||
        (p == SIM_POLICY_VLLM && s->cfg.chunked_prefill)) {
        if (s->st.on && next_steady(s, seqs, out, &n, &budget))
            return n;
        if (schedule_running(s, seqs, out, &n, &budget, false, false))
            admit_waiting(s, seqs, out, &n, &budget);
        return n;
    }
    /* Unchunked (vLLM v0) and static batches: a prefill-only iteration whenever waiting requests
     * can be admitted whole (static: only once the batch before is done)... */
    if (p != SIM_POLICY_STATIC || s->r_len == 0)
        admit_waiting(s, seqs, out, &n, &budget);
    if (n > 0)
        return n;
    /* ...else every running request decodes one token. */
    budget = s->cfg.max_num_batched_tokens;
    schedule_running(s, seqs, out, &n, &budget, true, false);
    return n;
}

void sim_sched_cache_prompt(sim_sched *s, sim_seq *seqs, int64_t id)
{
    if (!caching(s))
        return;
    sim_seq *r = &seqs[id];
    int64_t full = r->computed / s->cfg.prefix_block_tokens;
    if (full > r->n_hash)
        full = r->n_hash;
    for (; r->n_ref < full; r->n_ref++) {
        if (!sim_prefix_insert(&s->prefix, r->hash[r->n_ref])) /* cached meanwhile: share it */
            sim_kvcache_release(&s->kv, s->prefix.kv_blocks);
        else if (s->tier.cfg.write_through)
            sim_kvtier_computed(&s->tier, r->hash[r->n_ref]);
    }
}

bool sim_sched_blocks_conserved(const sim_sched *s, const sim_seq *seqs)
{
    const sim_kvcache *kv = &s->kv;
    if (kv->free_blocks < 0 || sim_sched_evictable(s) < 0 || kv->free_blocks > kv->total_blocks)
        return false;
    const int64_t per = caching(s) ? s->prefix.kv_blocks : 0;
    int64_t held = kv->free_blocks;
    for (size_t i = 0; i < s->r_len; i++) {
        const sim_seq *r = &seqs[s->running[i]];
        if (r->blocks < 0 || r->blocks < r->n_ref * per)
            return false;
        held += r->blocks - r->n_ref * per;
    }
    if (caching(s))
        held += (int64_t)(s->prefix.cap - s->prefix.n_free) * per;
    return held == kv->total_blocks;
}

void sim_sched_finish(sim_sched *s, sim_seq *seqs, int64_t id)
{
    sim_seq *r = &seqs[id];
    release(s, r);
    r->phase = SIM_SEQ_DONE;
    s->n_finished++;
}

sim_seq_phase sim_sched_abort(sim_sched *s, sim_seq *seqs, int64_t id)
{
    sim_seq *r = &seqs[id];
    const sim_seq_phase was = r->phase;
    if (was == SIM_SEQ_RUNNING) {
        sim_sched_finish(s, seqs, id);
        sim_sched_compact(s, seqs);
    } else if (was == SIM_SEQ_WAITING) { /* out of the queue, the others' order kept */
        size_t k = 0;
        for (size_t i = 0; i < s->w_len; i++) {
            const int64_t q = s->waiting[(s->w_head + i) % s->cap];
            if (q != id)
                s->waiting[(s->w_head + k++) % s->cap] = q;
        }
        s->w_len = k;
        release(s, r);
        r->phase = SIM_SEQ_DONE;
    }
    return was;
}

void sim_sched_compact(sim_sched *s, const sim_seq *seqs)
{
    if (s->n_finished == 0)
        return; /* most iterations: nobody left */
    /* with steady decodes the finished stay listed (skipped where it matters) until they are
     * half the list: O(1) an iteration, not O(running) */
    if (s->st.on && 2 * s->n_finished < s->r_len)
        return;
    sim_sched_compact_all(s, seqs);
}

void sim_sched_compact_all(sim_sched *s, const sim_seq *seqs)
{
    s->n_finished = 0;
    size_t k = 0;
    for (size_t i = 0; i < s->r_len; i++)
        if (seqs[s->running[i]].phase == SIM_SEQ_RUNNING)
            s->running[k++] = s->running[i];
    s->r_len = k;
}
