/* cluster.c - replicas behind a router, simulated side by side. */
#include "cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const router_names[SIM_ROUTER_COUNT] = {
    [SIM_ROUTER_ROUND_ROBIN] = "round-robin",
    [SIM_ROUTER_LEAST_OUTSTANDING] = "least-outstanding",
    [SIM_ROUTER_PREFIX_AWARE] = "prefix-aware",
};

bool sim_router_parse(const char *s, sim_router *out)
{
    for (int i = 0; i < SIM_ROUTER_COUNT; i++)
        if (strcmp(s, router_names[i]) == 0) {
            *out = (sim_router)i;
            return true;
        }
    return false;
}

const char *sim_router_name(sim_router r) { return router_names[r]; }

sim_status sim_cluster_check(const sim_cluster_cfg *cfg, const sim_workload *w, sim_err *err)
{
    if (cfg->replicas < 1 || cfg->replicas > SIM_CLUSTER_MAX_REPLICAS)
        return sim_fail(err, SIM_EINPUT, "--replicas: value %d, expected 1..%d", cfg->replicas,
                        SIM_CLUSTER_MAX_REPLICAS);
    if (cfg->replicas > 1 && cfg->engine->max_concurrency > 0)
        return sim_fail(err, SIM_EINPUT,
                        "--max-concurrency with --replicas %d: a client-side cap across replicas "
                        "is not modelled; expected one of them",
                        cfg->replicas);
    if (cfg->replicas > 1 && cfg->engine->observer)
        return sim_fail(err, SIM_EINPUT,
                        "--chrome-trace with --replicas %d: a timeline of several replicas is not "
                        "written; expected one of them",
                        cfg->replicas);
    return sim_engine_check(cfg->engine, w, err);
}

void sim_cluster_result_free(sim_cluster_result *r)
{
    free(r->load);
    r->load = NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The prefix-aware router's record: per replica, the set of block ids it was sent. */

typedef struct idset {
    uint64_t *slot; /* open addressing; EMPTY = free */
    size_t cap, len;
} idset;

#define EMPTY UINT64_MAX

static size_t slot_of(const idset *s, uint64_t id)
{
    uint64_t h = id * 0x9e3779b97f4a7c15ULL;
    size_t i = (size_t)(h >> 17) & (s->cap - 1);
    while (s->slot[i] != EMPTY && s->slot[i] != id)
        i = (i + 1) & (s->cap - 1);
    return i;
}

static bool idset_has(const idset *s, uint64_t id)
{
    return s->cap > 0 && s->slot[slot_of(s, id)] == id;
}

/* Returns 0 when out of memory. */
static int idset_add(idset *s, uint64_t id)
{
    if (2 * (s->len + 1) > s->cap) {
        idset g = {.cap = s->cap ? 2 * s->cap : 64};
        g.slot = malloc(g.cap * sizeof *g.slot);
        if (!g.slot)
            return 0;
        memset(g.slot, 0xff, g.cap * sizeof *g.slot);
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i] != EMPTY) {
                g.slot[slot_of(&g, s->slot[i])] = s->slot[i];
                g.len++;
            }
        free(s->slot);
        *s = g;
    }
    size_t i = slot_of(s, id);
    if (s->slot[i] == EMPTY) {
        s->slot[i] = id;
        s->len++;
    }
    return 1;
}

/* ------------------------------------------------------------------------------------------ */

typedef struct replica {
    sim_workload w; /* its share of the stream, growing */
    size_t *global; /* its request j is the workload's request global[j] */
    sim_engine *e;
    sim_engine_result res;
    idset seen;
} replica;

static int least_outstanding(replica *rep, int n, int64_t t)
{
    int best = 0;
    int64_t low = INT64_MAX;
    for (int r = 0; r < n; r++) {
        int64_t o = sim_engine_outstanding(rep[r].e, t);
        if (o < low) {
            low = o;
            best = r;
        }
    }
    return best;
}

/* Leading block ids of request q that replica r was sent. */
static int64_t prefix_match(const replica *r, const sim_workload *w, const sim_request *q)
{
    int64_t k = 0;
    while (k < q->n_hash && idset_has(&r->seen, w->hash_ids[q->hash_off + (size_t)k]))
        k++;
    return k;
}

static int route(const sim_cluster_cfg *cfg, replica *rep, const sim_workload *w, size_t i,
                 int64_t *matched)
{
    const sim_request *q = &w->reqs[i];
    *matched = 0;
    if (cfg->router == SIM_ROUTER_ROUND_ROBIN)
        return (int)(i % (size_t)cfg->replicas);
    if (cfg->router == SIM_ROUTER_PREFIX_AWARE) {
        int best = -1;
        for (int r = 0; r < cfg->replicas; r++) {
            int64_t k = prefix_match(&rep[r], w, q);
            if (k > *matched) {
                *matched = k;
                best = r;
            }
        }
        if (best >= 0)
            return best;
    }
    /* least-outstanding, and prefix-aware when no replica holds a prefix */
    return least_outstanding(rep, cfg->replicas, q->arrival_ns);
}

/* Requests in flight at once over the whole deployment: sends +1, finishes -1, a finish before a
 * send at the same time (an engine frees a slot at an iteration's end, then sends). */
typedef struct event {
    int64_t t;
    int delta;
} event;

static int by_time(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->delta - y->delta;
}

static sim_status merge(const sim_cluster_cfg *cfg, replica *rep, const sim_workload *w,
                        sim_engine_result *all, sim_cluster_result *out, sim_err *err)
{
    memset(all, 0, sizeof *all);
    all->n = w->n;
    all->reqs = malloc((w->n ? w->n : 1) * sizeof *all->reqs);
    event *ev = malloc((2 * w->n + 1) * sizeof *ev);
    sim_hist secs = {0};
    int ok = all->reqs && ev;
    all->block_size = cfg->engine->block_size;
    for (int r = 0; ok && r < cfg->replicas; r++) {
        const sim_engine_result *x = &rep[r].res;
        sim_replica_load *ld = &out->load[r];
        for (size_t j = 0; j < x->n; j++) {
            all->reqs[rep[r].global[j]] = x->reqs[j];
            ld->input_tokens += x->reqs[j].input;
            ld->output_tokens += x->reqs[j].output;
        }
        for (size_t k = 0; ok && k < x->itl.len; k++)
            ok = sim_hist_add(&all->itl, x->itl.runs[k].value, x->itl.runs[k].count);
        for (size_t k = 0; ok && k < x->out_seconds.len; k++)
            ok = sim_hist_add(&secs, x->out_seconds.runs[k].value, x->out_seconds.runs[k].count);
        ld->requests = (int64_t)x->n;
        ld->busy_ns = x->busy_ns;
        ld->iterations = x->iterations;
        ld->scheduled_seqs = x->scheduled_seqs;
        ld->preemptions = x->preemptions;
        ld->kv_blocks = x->kv_blocks;
        ld->kv_peak_blocks = x->kv_peak_blocks;
        if (x->duration_ns > all->duration_ns)
            all->duration_ns = x->duration_ns;
        all->iterations += x->iterations;
        all->scheduled_seqs += x->scheduled_seqs;
        all->preemptions += x->preemptions;
        all->kv_blocks += x->kv_blocks;
        all->kv_peak_blocks += x->kv_peak_blocks;
        all->busy_ns += x->busy_ns;
        all->draft_ns += x->draft_ns;
        all->spec_verifies += x->spec_verifies;
        all->spec_tokens += x->spec_tokens;
    }
    ok = ok && sim_hist_finish(&all->itl) && sim_hist_finish(&secs);
    for (size_t k = 0; ok && k < secs.len; k++)
        if ((double)secs.runs[k].count > all->peak_output_tps)
            all->peak_output_tps = (double)secs.runs[k].count;
    if (ok) {
        for (size_t i = 0; i < w->n; i++) {
            ev[2 * i] = (event){all->reqs[i].send_ns, 1};
            ev[2 * i + 1] = (event){all->reqs[i].finish_ns, -1};
        }
        qsort(ev, 2 * w->n, sizeof *ev, by_time);
        int64_t in = 0;
        for (size_t k = 0; k < 2 * w->n; k++) {
            in += ev[k].delta;
            if (in > all->peak_concurrency)
                all->peak_concurrency = in;
        }
    }
    free(ev);
    sim_hist_free(&secs);
    if (!ok) {
        sim_engine_result_free(all);
        return sim_fail(err, SIM_EINTERNAL, "out of memory merging %d replicas", cfg->replicas);
    }
    return SIM_OK;
}

sim_status sim_cluster_run(const sim_cluster_cfg *cfg, const sim_workload *w,
                           sim_engine_result *all, sim_cluster_result *out, sim_err *err)
{
    const int n = cfg->replicas;
    memset(out, 0, sizeof *out);
    memset(all, 0, sizeof *all);
    out->replicas = n;
    out->router = cfg->router;
    out->load = calloc((size_t)n, sizeof *out->load);
    replica *rep = calloc((size_t)n, sizeof *rep);
    sim_engine_cfg ec = *cfg->engine;
    ec.record_seconds = true;
    sim_status st = out->load && rep ? SIM_OK
                                     : sim_fail(err, SIM_EINTERNAL, "out of memory for replicas");
    int started = 0;
    for (int r = 0; !st && r < n; r++) {
        rep[r].w.reqs = malloc((w->n ? w->n : 1) * sizeof *rep[r].w.reqs);
        rep[r].global = malloc((w->n ? w->n : 1) * sizeof *rep[r].global);
        rep[r].w.hash_ids = w->hash_ids; /* borrowed: the requests keep their offsets */
        snprintf(rep[r].w.source, sizeof rep[r].w.source, "%s", w->source);
        if (!rep[r].w.reqs || !rep[r].global)
            st = sim_fail(err, SIM_EINTERNAL, "out of memory for replicas");
        else if (!(st = sim_engine_start(&ec, &rep[r].w, w->n, &rep[r].res, &rep[r].e, err)))
            started++;
    }
    for (size_t i = 0; !st && i < w->n; i++) {
        const sim_request *q = &w->reqs[i];
        for (int r = 0; !st && r < n; r++)
            st = sim_engine_advance(rep[r].e, q->arrival_ns, err);
        if (st)
            break;
        int64_t matched;
        int r = route(cfg, rep, w, i, &matched);
        replica *R = &rep[r];
        R->global[R->w.n] = i;
        R->w.reqs[R->w.n++] = *q;
        out->load[r].prefix_blocks += matched;
        out->prefix_blocks += matched;
        out->blocks += q->n_hash;
        for (int64_t k = 0; k < q->n_hash && cfg->router == SIM_ROUTER_PREFIX_AWARE; k++)
            if (!idset_add(&R->seen, w->hash_ids[q->hash_off + (size_t)k]))
                st = sim_fail(err, SIM_EINTERNAL, "out of memory for the router's record");
    }
    /* every started engine is finished (which frees it), whatever happened */
    for (int r = 0; r < started; r++) {
        if (st)
            sim_engine_abort(rep[r].e, &rep[r].res);
        else
            st = sim_engine_finish(rep[r].e, err);
    }
    if (!st)
        st = merge(cfg, rep, w, all, out, err);
    for (int r = 0; rep && r < n; r++) {
        sim_engine_result_free(&rep[r].res);
        free(rep[r].w.reqs);
        free(rep[r].global);
        free(rep[r].seen.slot);
    }
    free(rep);
    if (st)
        sim_cluster_result_free(out);
    return st;
}
