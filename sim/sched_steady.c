/* sched_steady.c - the scheduler's steady decodes (sched.h): running requests that decode one
 * token an iteration held as an aggregate, touched only at their events. */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

/* The ring's size: events come at most one KV block of decodes apart, so a ring longer than a
 * block holds every next event; a larger block size gets horizon events (a request due with
 * nothing happening is walked once and re-filed). */
#define STEADY_RING_MIN 16
#define STEADY_RING_MAX 1024

bool sim_sched_steady_init(sim_sched_steady *t, size_t n, size_t m, int64_t block_size)
{
    memset(t, 0, sizeof *t);
    size_t ring = STEADY_RING_MIN;
    while (ring < STEADY_RING_MAX && (int64_t)ring < block_size + 2)
        ring *= 2;
    n = n ? n : 1;
    m = m ? m : 1;
    t->base = malloc(n * sizeof *t->base);
    t->ev = malloc(n * sizeof *t->ev);
    t->rank = malloc(n * sizeof *t->rank);
    t->bucket = calloc(ring, sizeof *t->bucket);
    t->b_len = calloc(ring, sizeof *t->b_len);
    t->b_cap = calloc(ring, sizeof *t->b_cap);
    t->active = malloc(m * sizeof *t->active);
    t->due = malloc(m * sizeof *t->due);
    t->walk = malloc(m * sizeof *t->walk);
    t->mask = ring - 1;
    t->m = m;
    if (!t->base || !t->ev || !t->rank || !t->bucket || !t->b_len || !t->b_cap || !t->active ||
        !t->due || !t->walk) {
        sim_sched_steady_free(t);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        t->ev[i] = -1;
    t->on = true;
    return true;
}

void sim_sched_steady_free(sim_sched_steady *t)
{
    for (size_t b = 0; t->bucket && b <= t->mask; b++)
        free(t->bucket[b]);
    free(t->bucket);
    free(t->b_len);
    free(t->b_cap);
    free(t->base);
    free(t->ev);
    free(t->rank);
    free(t->active);
    free(t->due);
    free(t->walk);
    memset(t, 0, sizeof *t);
}

/* Writes a steady request's counts as of `tick` and takes it out of the aggregate: it decoded
 * one token in each iteration since `base`, the last of them streamed at last_ns. */
void sim_sched_steady_write(sim_sched_steady *t, sim_seq *r, int64_t id)
{
    const int32_t d = t->tick - t->base[id];
    r->computed += d;
    r->generated += d;
    r->last_token_ns = t->last_ns;
    t->n--;
    t->c_sum -= r->computed;
    t->ev[id] = -1;
}

void sim_sched_steady_drop(sim_sched_steady *t, sim_seq *seqs, int64_t id)
{
    if (t->on && t->ev[id] >= 0)
        sim_sched_steady_write(t, &seqs[id], id);
}

size_t sim_sched_steady_gather(sim_sched_steady *t)
{
    const size_t b = (size_t)t->tick & t->mask;
    size_t n_due = 0;
    for (size_t i = 0; i < t->b_len[b]; i++) {
        const int32_t id = t->bucket[b][i];
        if (t->ev[id] != t->tick) /* left since (preempted), or filed again for a later tick */
            continue;
        /* by rank: insertion, the bucket is filed in rank order iteration by iteration */
        size_t j = n_due++;
        for (; j > 0 && t->rank[t->due[j - 1]] > t->rank[id]; j--)
            t->due[j] = t->due[j - 1];
        t->due[j] = id;
    }
    t->b_len[b] = 0;
    /* merge the walked requests and the due ones, both by rank */
    size_t a = 0, d = 0, k = 0;
    while (a < t->n_active || d < n_due)
        t->walk[k++] = d == n_due || (a < t->n_active && t->rank[t->active[a]] < t->rank[t->due[d]])
                           ? t->active[a++]
                           : t->due[d++];
    return k;
}

bool sim_sched_steady_file(sim_sched_steady *t, int64_t id, int32_t at)
{
    const size_t b = (size_t)at & t->mask;
    if (t->b_len[b] == t->b_cap[b]) {
        const size_t cap = t->b_cap[b] ? 2 * t->b_cap[b] : 64;
        int32_t *p = realloc(t->bucket[b], cap * sizeof *p);
        if (!p)
            return false;
        t->bucket[b] = p;
        t->b_cap[b] = cap;
    }
    t->bucket[b][t->b_len[b]++] = (int32_t)id;
    t->ev[id] = at;
    return true;
}

int64_t sim_sched_steady_until(const sim_sched *s, const sim_seq *r, int64_t computed,
                               int64_t generated)
{
    const sim_kvcache *kv = &s->kv;
    /* blocks_held(t) = full_groups x ceil(t / block) + state_groups (no sliding tables): the
     * blocks hold `room` tokens, and iteration k feeds token computed + k, so it needs a block
     * once computed + k + 1 > room */
    int64_t room = r->blocks - kv->state_groups;
    if (kv->full_groups != 1)
        room = kv->full_groups > 0 ? room / kv->full_groups : 0;
    room = kv->block_shift >= 0 ? room << kv->block_shift : room * kv->block_size;
    int64_t k = room - computed;
    const int64_t fin = (int64_t)r->output - generated - 1;
    k = k < fin ? k : fin;
    k = k < 0 ? 0 : k;
    return k < (int64_t)s->st.mask ? k : (int64_t)s->st.mask;
}

/* A request that still runs may be held when its next iteration is a one-token decode, its
 * last token came out at last_ns, and no prompt block of its own is left to cache. */
static bool steady(const sim_sched *s, const sim_seq *r, int64_t last_ns)
{
    return r->phase == SIM_SEQ_RUNNING && r->generated > 0 && r->generated < r->output &&
           r->computed == r->input + r->generated - 1 && r->last_token_ns == last_ns &&
           (s->cfg.prefix_block_tokens == 0 || r->n_ref >= r->n_hash);
}

bool sim_sched_steady_settle(sim_sched *s, sim_seq *seqs, const sim_sched_entry *out, size_t n,
                             int64_t last_ns)
{
    sim_sched_steady *t = &s->st;
    t->c_sum += t->n; /* every steady request computed one more token */
    t->tick++;
    t->n_active = 0;
    /* a budget cut walked every running request, and left some out of out[] */
    const size_t len = t->full ? s->r_len : n;
    for (size_t i = 0; i < len; i++) {
        const int64_t id = t->full ? s->running[i] : out[i].req;
        sim_seq *r = &seqs[id];
        if (!steady(s, r, last_ns)) {
            if (r->phase == SIM_SEQ_RUNNING)
                t->active[t->n_active++] = id;
            continue;
        }
        t->base[id] = t->tick;
        t->n++;
        t->c_sum += r->computed;
        if (!sim_sched_steady_file(t, id, (int32_t)(t->tick + sim_sched_steady_until(s, r, r->computed,
                                                                          r->generated))))
            return false;
    }
    t->full = false;
    return true;
}

void sim_sched_steady_flush(sim_sched *s, sim_seq *seqs)
{
    sim_sched_steady *t = &s->st;
    for (size_t i = 0; t->n > 0 && i < s->r_len; i++)
        sim_sched_steady_drop(t, seqs, s->running[i]);
    for (size_t b = 0; b <= t->mask; b++)
        t->b_len[b] = 0;
}
