/* sched.c - vLLM-style continuous batching with recompute preemption. */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

sim_status sim_sched_init(sim_sched *s, const sim_sched_cfg *cfg, const sim_kvcache *kv, size_t n)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->kv = *kv;
    s->cap = n;
    s->waiting = malloc((n ? n : 1) * sizeof *s->waiting);
    s->running = malloc((n ? n : 1) * sizeof *s->running);
    s->preempted = malloc((n ? n : 1) * sizeof *s->preempted);
    if (!s->waiting || !s->running || !s->preempted) {
        sim_sched_free(s);
        return SIM_EINTERNAL;
    }
    return SIM_OK;
}

void sim_sched_free(sim_sched *s)
{
    free(s->waiting);
    free(s->running);
    free(s->preempted);
    s->waiting = s->running = s->preempted = NULL;
}

bool sim_sched_idle(const sim_sched *s) { return s->w_len == 0 && s->r_len == 0; }

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

void sim_sched_enqueue(sim_sched *s, sim_req *reqs, int64_t id)
{
    s->waiting[(s->w_head + s->w_len) % s->cap] = id;
    s->w_len++;
    reqs[id].phase = SIM_REQ_WAITING;
}

/* Recompute preemption of the most recently admitted running request. Returns its index. */
static int64_t preempt_last(sim_sched *s, sim_req *reqs)
{
    int64_t id = s->running[--s->r_len];
    sim_req *r = &reqs[id];
    sim_kvcache_release(&s->kv, r->blocks);
    r->blocks = 0;
    r->computed = 0;
    r->preemptions++;
    s->preemptions++;
    s->preempted[s->n_preempted++] = id;
    w_push_front(s, id);
    r->phase = SIM_REQ_WAITING;
    return id;
}

/* Blocks a request needs beyond those it holds to cache `tokens` tokens. */
static int64_t extra_blocks(const sim_sched *s, const sim_req *r, int64_t tokens)
{
    int64_t need = sim_kvcache_blocks_for(&s->kv, tokens) - r->blocks;
    return need > 0 ? need : 0;
}

/* Schedules running requests (step 1); returns false if any was preempted. `one_token` limits
 * each to a single token (decode-only iterations of the unchunked policy). */
static bool schedule_running(sim_sched *s, sim_req *reqs, sim_sched_entry *out, size_t *n,
                             int64_t *budget, bool one_token)
{
    bool clean = true;
    for (size_t i = 0; i<s->r_len && * budget> 0; i++) {
        int64_t id = s->running[i];
        sim_req *r = &reqs[id];
        int64_t num_new = sim_req_known(r) - r->computed;
        if (one_token && num_new > 1)
            num_new = 1;
        bool decode = num_new == 1 && r->generated > 0;
        if (decode)
            num_new += s->cfg.spec_tokens; /* a decode: verify K drafts as well */
        if (num_new > *budget)
            num_new = *budget;
        int64_t need = extra_blocks(s, r, r->computed + num_new);
        bool self = false;
        while (!sim_kvcache_alloc(&s->kv, need)) {
            clean = false;
            if (preempt_last(s, reqs) == id) {
                self = true;
                break;
            }
        }
        if (self)
            break;
        r->blocks += need;
        out[(*n)++] = (sim_sched_entry){.req = id, .num_new = num_new, .decode = decode};
        *budget -= num_new;
    }
    return clean;
}

/* Admits waiting requests first-come-first-served (step 2). */
static void admit_waiting(sim_sched *s, sim_req *reqs, sim_sched_entry *out, size_t *n,
                          int64_t *budget)
{
    while (s->w_len > 0 && *budget > 0 && (int64_t)s->r_len < s->cfg.max_num_seqs) {
        int64_t id = w_front(s);
        sim_req *r = &reqs[id];
        int64_t num_new = sim_req_known(r) - r->computed;
        if (num_new > *budget) {
            if (!s->cfg.chunked_prefill)
                break;
            num_new = *budget;
        }
        int64_t need = extra_blocks(s, r, r->computed + num_new);
        if (!sim_kvcache_alloc(&s->kv, need))
            break;
        r->blocks += need;
        w_pop_front(s);
        s->running[s->r_len++] = id;
        r->phase = SIM_REQ_RUNNING;
        out[(*n)++] = (sim_sched_entry){.req = id, .num_new = num_new};
        *budget -= num_new;
    }
}

size_t sim_sched_next(sim_sched *s, sim_req *reqs, sim_sched_entry *out)
{
    size_t n = 0;
    int64_t budget = s->cfg.max_num_batched_tokens;
    s->n_preempted = 0;
    if (s->cfg.chunked_prefill) {
        if (schedule_running(s, reqs, out, &n, &budget, false))
            admit_waiting(s, reqs, out, &n, &budget);
        return n;
    }
    /* Unchunked: a prefill-only iteration whenever waiting requests can be admitted whole... */
    admit_waiting(s, reqs, out, &n, &budget);
    if (n > 0)
        return n;
    /* ...else every running request decodes one token. */
    budget = s->cfg.max_num_batched_tokens;
    schedule_running(s, reqs, out, &n, &budget, true);
    return n;
}

void sim_sched_finish(sim_sched *s, sim_req *reqs, int64_t id)
{
    sim_req *r = &reqs[id];
    sim_kvcache_release(&s->kv, r->blocks);
    r->blocks = 0;
    r->phase = SIM_REQ_DONE;
    s->n_finished++;
}

void sim_sched_compact(sim_sched *s, const sim_req *reqs)
{
    if (s->n_finished == 0)
        return; /* most iterations: nobody left */
    s->n_finished = 0;
    size_t k = 0;
    for (size_t i = 0; i < s->r_len; i++)
        if (reqs[s->running[i]].phase == SIM_REQ_RUNNING)
            s->running[k++] = s->running[i];
    s->r_len = k;
}
