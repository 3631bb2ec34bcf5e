/* cluster.c - engines stepped side by side: replicas behind a router, prefill/decode pools. */
#include "cluster.h"
#include "cluster_internal.h"

#include "mem.h"
#include "pp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const router_names[SIM_ROUTER_COUNT] = {
    [SIM_ROUTER_ROUND_ROBIN] = "round-robin",
    [SIM_ROUTER_LEAST_OUTSTANDING] = "least-outstanding",
    [SIM_ROUTER_PREFIX_AWARE] = "prefix-aware",
    [SIM_ROUTER_KV_AWARE] = "kv-aware",
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
    const sim_engine_cfg *one = cfg->engine;
    if (one->max_concurrency > 0 && (w->links || cfg->refresh_ns > 0 || cfg->autoscale.max > 0))
        return sim_fail(err, SIM_EINPUT,
                        "--max-concurrency with --replicas and %s: the client's cap across "
                        "replicas is modelled without it; expected one of them",
                        w->links ? "--sessions"
                        : cfg->refresh_ns > 0 ? "--router-refresh-ms"
                                              : "--autoscale");
    if (cfg->refresh_ns < 0 || (cfg->refresh_ns > 0 && w->links))
        return sim_fail(err, SIM_EINPUT,
                        "--router-refresh-ms: a stale router view %s; expected it without "
                        "--sessions, at least 0",
                        cfg->refresh_ns < 0 ? "below 0" : "with --sessions is not modelled");
    const sim_autoscale *a = &cfg->autoscale;
    if (a->max > 0 && (a->min < 1 || a->min > a->max || a->max != cfg->replicas))
        return sim_fail(err, SIM_EINPUT, "--autoscale: value %d:%d, expected MIN:MAX with 1 <= MIN "
                        "<= MAX <= %d", a->min, a->max, SIM_CLUSTER_MAX_REPLICAS);
    if (a->max > 0 && (!(a->target > 0.0) || (a->metric == SIM_SCALE_KV && a->target > 1.0)))
        return sim_fail(err, SIM_EINPUT,
                        "--autoscale-target: value %g, expected > 0 (a fraction in (0, 1] for "
                        "--autoscale-metric kv)",
                        a->target);
    if (a->max > 0 && (a->interval_ns < 1 || a->start_ns < 0 || a->down_window_ns < 0 ||
                       !(a->tolerance >= 0.0)))
        return sim_fail(err, SIM_EINPUT,
                        "--autoscale: interval %lld ns, start %lld ns, window %lld ns, tolerance "
                        "%g; expected an interval > 0, the others >= 0",
                        (long long)a->interval_ns, (long long)a->start_ns,
                        (long long)a->down_window_ns, a->tolerance);
    if (a->max > 0 && cfg->refresh_ns > 0)
        return sim_fail(err, SIM_EINPUT,
                        "--autoscale with --router-refresh-ms: a stale view of an autoscaled pool "
                        "is not modelled; expected one of them");
    if (a->max > 0 && w->links)
        return sim_fail(err, SIM_EINPUT,
                        "--autoscale with --sessions: sessions over an autoscaled pool are not "
                        "modelled; expected one of them");
    for (int r = 0; cfg->per_replica && r < cfg->replicas; r++) {
        const sim_engine_cfg *e = &cfg->per_replica[r];
        if (e->block_size != cfg->engine->block_size)
            return sim_fail(err, SIM_EINPUT,
                            "replica %d: block size %lld, expected every replica's %lld", r,
                            (long long)e->block_size, (long long)cfg->engine->block_size);
        sim_status st = sim_engine_check(e, w, err);
        if (st) { /* say which replica */
            sim_err why = *err;
            return sim_fail(err, st, "replica %d (%s): %s", r, e->step.hw->name, why.msg);
        }
    }
    if (cfg->replicas > 1 && cfg->engine->observer)
        return sim_fail(err, SIM_EINPUT,
                        "--html with --replicas %d: the report of several replicas over time is "
                        "not written; expected one of them",
                        cfg->replicas);
    return sim_engine_check(cfg->engine, w, err);
}

void sim_cluster_result_free(sim_cluster_result *r)
{
    free(r->load);
    free(r->timeline);
    r->load = NULL;
    r->timeline = NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The prefix-aware router's record: per replica, the set of block ids it was sent. */

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

int sim_cluster_least_outstanding(replica *rep, int n, const bool *ok, int64_t t)
{
    int best = 0;
    int64_t low = INT64_MAX;
    for (int r = 0; r < n; r++) {
        if (ok && !ok[r])
            continue;
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

/* The router's count of a replica's active blocks (Dynamo tracks them itself: added when it
 * routes a request, grown as it generates, dropped when it finishes): every request it was given
 * and that is not finished, ceil((prompt + generated) / block size) blocks each. */
static double active_blocks(replica *R, double bs)
{
    while (R->first_open < R->w.n && R->res.seqs[R->first_open].phase == SIM_SEQ_DONE)
        R->first_open++;
    double b = 0.0;
    for (size_t j = R->first_open; j < R->w.n; j++) {
        const sim_seq *x = &R->res.seqs[j];
        if (x->phase != SIM_SEQ_DONE)
            b += ceil((double)(R->w.reqs[j].input_tokens + x->generated) / bs);
    }
    return b;
}

/* Dynamo's KV router cost (cluster.h): the replica with the lowest
 * weight x prefill blocks + active blocks; *matched: its cached leading hash blocks. */
static int kv_aware(const sim_cluster_cfg *cfg, replica *rep, const sim_workload *w,
                    const sim_request *q, const bool *ok, int64_t *matched)
{
    const double bs = (double)cfg->engine->block_size;
    const double add = ceil((double)q->input_tokens / bs);
    const int64_t h = w->hash_block_tokens;
    const int64_t usable = h > 0 ? (q->input_tokens - 1) / h : 0; /* as the scheduler takes */
    int best = 0;
    double low = INFINITY;
    for (int r = 0; r < cfg->replicas; r++) {
        if (ok && !ok[r])
            continue;
        int64_t k = usable > 0 ? sim_engine_cached_prefix(rep[r].e, w->hash_ids + q->hash_off,
                                                          q->n_hash < usable ? q->n_hash : usable)
                               : 0;
        double cost = cfg->kv_overlap_weight * (double)(q->input_tokens - k * h) / bs +
                      active_blocks(&rep[r], bs) + add;
        if (cost < low) {
            low = cost;
            best = r;
            *matched = k;
        }
    }
    return best;
}

/* The replica with the fewest requests in `held` (lowest index on ties), among ok ones. */
static int least_held(const int64_t *held, const bool *ok, int n)
{
    int best = -1;
    for (int r = 0; r < n; r++)
        if ((!ok || ok[r]) && (best < 0 || held[r] < held[best]))
            best = r;
    return best;
}

/* The (i mod ready)-th of the replicas with ok[r] (ok NULL: all). */
static int round_robin(const bool *ok, int n, size_t i)
{
    if (!ok)
        return (int)(i % (size_t)n);
    size_t ready = 0;
    for (int r = 0; r < n; r++)
        ready += ok[r];
    size_t k = i % ready;
    for (int r = 0; r < n; r++)
        if (ok[r] && k-- == 0)
            return r;
    return 0;
}

/* held: with a stale view, each replica's requests at the last refresh (NULL: live); ok: the
 * replicas it may pick (autoscaling: the ready ones; NULL: all). */
static int route(const sim_cluster_cfg *cfg, replica *rep, const sim_workload *w,
                 const sim_request *q, size_t i, const int64_t *held, const bool *ok,
                 int64_t *matched)
{
    *matched = 0;
    if (cfg->router == SIM_ROUTER_ROUND_ROBIN)
        return round_robin(ok, cfg->replicas, i);
    if (cfg->router == SIM_ROUTER_KV_AWARE)
        return kv_aware(cfg, rep, w, q, ok, matched);
    if (cfg->router == SIM_ROUTER_PREFIX_AWARE) {
        int best = -1;
        for (int r = 0; r < cfg->replicas; r++) {
            if (ok && !ok[r])
                continue;
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
    return held ? least_held(held, ok, cfg->replicas)
                : sim_cluster_least_outstanding(rep, cfg->replicas, ok, q->arrival_ns);
}

static int by_ns(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Adds instances [from, to) into the merged totals and their loads; `streams`: their tokens are
 * the ones the client sees (gaps, busiest second, KV pool); `prompts`: they compute the prompts
 * (their prefix-cache hits count). Returns 0 when out of memory. */
int sim_cluster_add_totals(const replica *rep, int from, int to, bool streams, bool prompts,
                           sim_engine_result *all, sim_hist *secs, sim_replica_load *load)
{
    int ok = 1;
    for (int r = from; ok && r < to; r++) {
        const sim_engine_result *x = &rep[r].res;
        sim_replica_load *ld = &load[r];
        ld->input_tokens = rep[r].released_input;
        ld->output_tokens = rep[r].released_output;
        for (size_t j = 0; j < x->n; j++) {
            ld->input_tokens += x->seqs[j].input;
            ld->output_tokens += x->seqs[j].output;
        }
        ld->requests = (int64_t)(rep[r].base + x->n);
        snprintf(ld->hw, sizeof ld->hw, "%s", rep[r].cfg.step.hw->name);
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
        all->busy_ns += x->busy_ns;
        all->draft_ns += x->draft_ns;
        all->spec_verifies += x->spec_verifies;
        all->spec_tokens += x->spec_tokens;
        /* the power estimate: every engine's floor and energy (each pool its own GPUs) */
        all->idle_w += x->idle_w;
        all->active_j += x->active_j;
        all->power_unknown |= x->power_unknown;
        all->spec_off_iterations += x->spec_off_iterations;
        all->verify_ns += x->verify_ns;
        /* each engine's front end adds its part (disaggregated: the prefill side takes the
         * request in, the decode side streams) */
        all->frontend_on |= x->frontend_on;
        all->frontend_ttft_ns += x->frontend_ttft_ns;
        all->frontend_e2e_ns += x->frontend_e2e_ns;
        if (prompts) {
            all->prefix_hit_tokens += x->prefix_hit_tokens;
            all->prefix_query_tokens += x->prefix_query_tokens;
        }
        all->offload_on |= x->offload_on; /* every engine's lower KV tiers */
        all->offload_load_ns += x->offload_load_ns;
        for (int t = 0; t < SIM_KVTIER_LOWER; t++) {
            all->offload_hit_tokens[t] += x->offload_hit_tokens[t];
            all->offload_read_bytes[t] += x->offload_read_bytes[t];
            all->offload_write_bytes[t] += x->offload_write_bytes[t];
        }
        if (!streams)
            continue;
        all->kv_blocks += x->kv_blocks;
        all->kv_peak_blocks += x->kv_peak_blocks;
        for (size_t k = 0; ok && k < x->itl.len; k++)
            ok = sim_hist_add(&all->itl, x->itl.runs[k].value, x->itl.runs[k].count);
        for (size_t k = 0; ok && k < x->out_seconds.len; k++)
            ok = sim_hist_add(secs, x->out_seconds.runs[k].value, x->out_seconds.runs[k].count);
    }
    return ok;
}

/* The deployment-wide statistics once every request's timeline is in `all`: gaps sorted, the
 * busiest second, the peak concurrency. Frees secs. Returns 0 when out of memory. */
int sim_cluster_finish_totals(sim_engine_result *all, sim_hist *secs)
{
    int ok = sim_hist_finish(&all->itl) && sim_hist_finish(secs);
    for (size_t k = 0; ok && k < secs->len; k++)
        if ((double)secs->runs[k].count > all->peak_output_tps)
            all->peak_output_tps = (double)secs->runs[k].count;
    sim_hist_free(secs);
    /* requests in flight at once over the whole deployment: the sends and the finishes, each
     * sorted, merged with a finish before a send at the same time (an engine frees a slot at an
     * iteration's end, then sends) */
    const size_t n = all->n;
    int64_t *send = malloc((n ? n : 1) * sizeof *send);
    int64_t *fin = malloc((n ? n : 1) * sizeof *fin);
    if (!ok || !send || !fin) {
        free(send);
        free(fin);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const sim_req_result r = sim_engine_req(all, i);
        send[i] = r.send_ns;
        fin[i] = r.finish_ns;
    }
    qsort(send, n, sizeof *send, by_ns);
    qsort(fin, n, sizeof *fin, by_ns);
    int64_t in = 0;
    for (size_t i = 0, j = 0; j < n; j++) {
        while (i < n && fin[i] <= send[j]) { /* the finishes up to this send first */
            in--;
            i++;
        }
        if (++in > all->peak_concurrency)
            all->peak_concurrency = in;
    }
    free(send);
    free(fin);
    return 1;
}

static void fwd_iteration(void *ctx, const sim_iter_info *it)
{
    const replica *R = ctx;
    if (R->obs->iteration)
        R->obs->iteration(R->obs->ctx, R->index, it);
}

static void fwd_request(void *ctx, int64_t id, sim_request_event ev, int64_t t)
{
    const replica *R = ctx;
    if (R->obs->request)
        R->obs->request(R->obs->ctx, R->index, (int64_t)R->global[id], ev, t);
}

static void fwd_tier(void *ctx, const sim_tier_move *m)
{
    const replica *R = ctx;
    if (R->obs->tier)
        R->obs->tier(R->obs->ctx, R->index, m);
}

/* Starts n engines (deployment indices first, first + 1, ...) on empty streams with room for
 * every request of w. Returns how many started in *started. */
sim_status sim_cluster_start_all(replica *rep, int n, int first, const sim_engine_cfg *cfg,
                                 const sim_workload *w, const sim_cluster_observer *obs,
                                 int *started, sim_err *err)
{
    if (n < 1) /* the callers' checks refuse it: --replicas, --disagg P:D */
        return sim_fail(err, SIM_EINTERNAL, "%d engines to start, expected at least 1", n);
    sim_engine_cfg ec = *cfg;
    ec.record_seconds = true;
    ec.max_concurrency = 0; /* the client's cap is the deployment's (sim_cluster_client_send) */
    for (int r = 0; r < n; r++) {
        rep[r].index = first + r;
        rep[r].obs = obs;
        rep[r].w.reqs = NULL; /* grown as requests are given (sim_cluster_give) */
        rep[r].global = NULL;
        rep[r].room = 0;
        rep[r].w.hash_ids = w->hash_ids; /* borrowed: the requests keep their offsets */
        rep[r].w.n_hash_ids = w->n_hash_ids;
        rep[r].w.hash_block_tokens = w->hash_block_tokens;
        rep[r].w.hash_covers_output = w->hash_covers_output; /* sessions: outputs cached */
        snprintf(rep[r].w.source, sizeof rep[r].w.source, "%s", w->source);
        /* the configuration is copied per engine: it must outlive them */
        rep[r].cfg = ec;
        if (obs) {
            rep[r].eo = (sim_engine_observer){.ctx = &rep[r],
                                              .iteration = fwd_iteration,
                                              .request = fwd_request,
                                              .tier = fwd_tier};
            rep[r].cfg.observer = &rep[r].eo;
        }
        sim_status st = sim_engine_start(&rep[r].cfg, &rep[r].w, w->n, &rep[r].res, &rep[r].e, err);
        if (st)
            return st;
        (*started)++;
    }
    return SIM_OK;
}

/* Finishes every started engine (aborting them after an error), frees the replicas. */
sim_status sim_cluster_end_all(replica *rep, int started, sim_status st, sim_err *err)
{
    for (int r = 0; r < started; r++) {
        if (st)
            sim_engine_abort(rep[r].e, &rep[r].res);
        else
            st = sim_engine_finish(rep[r].e, err);
    }
    return st;
}

void sim_cluster_free_all(replica *rep, int n)
{
    for (int r = 0; rep && r < n; r++) {
        sim_engine_result_free(&rep[r].res);
        free(rep[r].w.reqs);
        free(rep[r].global);
        free(rep[r].seen.slot);
    }
    free(rep);
}

/* Appends request q (global index i) to replica R's stream. */
sim_status sim_cluster_give(replica *R, const sim_request *q, size_t i, sim_err *err)
{
    if (R->w.n == R->room) { /* doubled: n requests given cost O(n) copies */
        const size_t n = R->room < 8 ? 16 : 2 * R->room;
        sim_request *reqs = realloc(R->w.reqs, n * sizeof *reqs);
        if (reqs)
            R->w.reqs = reqs;
        size_t *global = reqs ? realloc(R->global, n * sizeof *global) : NULL;
        if (!global)
            return sim_fail(err, SIM_EINTERNAL, "out of memory for %zu requests on an engine", n);
        R->global = global;
        R->room = n;
    }
    R->global[R->w.n] = i;
    R->w.reqs[R->w.n++] = *q;
    return sim_engine_reserve(R->e, err);
}

/* Routes request i (q: as sent, its arrival the send time) and gives it to the replica (*chosen);
 * `to` >= 0 names the replica (session affinity). */
static sim_status route_one(const sim_cluster_cfg *cfg, replica *rep, const sim_workload *w,
                            const sim_request *q, size_t i, int to, const int64_t *held,
                            const bool *ok, sim_cluster_result *out, int *chosen, sim_err *err)
{
    int64_t matched = 0;
    int r = to >= 0 ? to : route(cfg, rep, w, q, i, held, ok, &matched);
    *chosen = r;
    sim_status st = sim_cluster_release_front(&rep[r], err);
    if (!st)
        st = sim_cluster_give(&rep[r], q, i, err);
    if (st)
        return st;
    out->load[r].prefix_blocks += matched;
    out->prefix_blocks += matched;
    out->blocks += q->n_hash;
    for (int64_t k = 0; k < q->n_hash && cfg->router == SIM_ROUTER_PREFIX_AWARE; k++)
        if (!idset_add(&rep[r].seen, w->hash_ids[q->hash_off + (size_t)k]))
            return sim_fail(err, SIM_EINTERNAL, "out of memory for the router's record");
    return SIM_OK;
}

/* Sessions over replicas (cluster.h): the replicas advance in steps no longer than the shortest
 * think time (at least SESSION_STEP_NS), so a turn released by a finish in one step is sent no
 * earlier than where the replicas stand; each step's releases and due arrivals are routed. */
#define SESSION_STEP_NS 1000000LL

static sim_status session_loop(const sim_cluster_cfg *cfg, replica *rep, const sim_workload *w,
                               sim_cluster_result *out, sim_err *err)
{
    const int n = cfg->replicas;
    const size_t N = w->n;
    sim_session_turn *heap = malloc((N ? N : 1) * sizeof *heap);
    size_t *open = malloc((N ? N : 1) * sizeof *open); /* given, their next turn not released */
    size_t *loc = malloc((N ? N : 1) * sizeof *loc);   /* its place among its replica's given */
    int *at = malloc((N ? N : 1) * sizeof *at);        /* its replica */
    size_t hn = 0, n_open = 0, given = 0, seen_done = 0;
    int64_t step = INT64_MAX, until = 0;
    sim_status st =
        heap && open && loc && at ? SIM_OK : sim_fail(err, SIM_EINTERNAL, "out of memory");
    for (size_t i = 0; !st && i < N; i++) {
        if (!w->links[i].follows)
            sim_workload_turn_push(heap, &hn,
                                   (sim_session_turn){w->reqs[i].arrival_ns, (int64_t)i, -1});
        if (w->links[i].follow > 0 && w->links[i].think_ns < step)
            step = w->links[i].think_ns;
    }
    if (step < SESSION_STEP_NS)
        step = SESSION_STEP_NS;
    while (!st && given < N) {
        int64_t t = hn > 0 ? heap[0].t_ns : INT64_MAX;
        if (n_open > 0 && until <= INT64_MAX - step && until + step < t)
            t = until + step;
        if (t == INT64_MAX) {
            st = sim_fail(err, SIM_EINTERNAL, "sessions stalled with %zu of %zu turns sent", given,
                          N);
            break;
        }
        for (int r = 0; !st && r < n; r++)
            st = sim_engine_advance(rep[r].e, t, err);
        until = t;
        size_t done = 0;
        for (int r = 0; r < n; r++)
            done += sim_engine_done(rep[r].e);
        for (size_t k = 0; !st && done != seen_done && k < n_open;) {
            const size_t id = open[k];
            const replica *R = &rep[at[id]];
            const sim_seq *x = &R->res.seqs[loc[id] - R->base];
            if (x->phase != SIM_SEQ_DONE) {
                k++;
                continue;
            }
            sim_workload_turn_push(
                heap, &hn,
                (sim_session_turn){sim_workload_turn_release(w, id, x->finish_ns, until),
                                   w->links[id].follow, at[id]});
            open[k] = open[--n_open];
        }
        seen_done = done;
        while (!st && hn > 0 && heap[0].t_ns <= until) {
            const sim_session_turn x = sim_workload_turn_pop(heap, &hn);
            const size_t id = (size_t)x.id;
            sim_request q = w->reqs[id];
            q.arrival_ns = x.t_ns;
            const int to = cfg->session_affinity && x.prev >= 0 ? x.prev : -1;
            if ((st = route_one(cfg, rep, w, &q, id, to, NULL, NULL, out, &at[id], err)))
                break;
            loc[id] = rep[at[id]].base + rep[at[id]].w.n - 1; /* counted from its first */
            if (w->links[id].follow > 0)
                open[n_open++] = id;
            given++;
        }
    }
    free(heap);
    free(open);
    free(loc);
    free(at);
    return st;
}

sim_status sim_cluster_run(const sim_cluster_cfg *cfg, const sim_workload *w,
                           sim_engine_result *all, sim_cluster_result *out, sim_err *err)
{
    const int n = cfg->replicas;
    memset(out, 0, sizeof *out);
    memset(all, 0, sizeof *all);
    out->replicas = n;
    out->router = cfg->router;
    out->mixed = cfg->per_replica != NULL;
    out->load = calloc((size_t)n, sizeof *out->load);
    replica *rep = calloc((size_t)n, sizeof *rep);
    /* every request's result, as its replica releases it (sim_cluster_release_front) or at the
     * end */
    all->done = malloc((w->n ? w->n : 1) * sizeof *all->done);
    int started = 0;
    sim_status st = out->load && rep && all->done
                        ? SIM_OK
                        : sim_fail(err, SIM_EINTERNAL, "out of memory for replicas");
    for (int r = 0; !st && r < n; r++)
        rep[r].done_to = all->done;
    if (!st && !cfg->per_replica)
        st = sim_cluster_start_all(rep, n, 0, cfg->engine, w, cfg->observer, &started, err);
    for (int r = 0; !st && cfg->per_replica && r < n; r++) /* each on its own device */
        st = sim_cluster_start_all(rep + r, 1, r, &cfg->per_replica[r], w, cfg->observer,
                                   &started, err);
    if (!st && w->links)
        st = session_loop(cfg, rep, w, out, err);
    /* a stale view (cluster.h): the replicas stand at the last refresh, each one's requests then */
    const int64_t L = cfg->refresh_ns;
    int64_t *held = L > 0 ? malloc((size_t)n * sizeof *held) : NULL;
    if (!st && L > 0 && !held)
        st = sim_fail(err, SIM_EINTERNAL, "out of memory for the router's view");
    sim_scaler sc = {0};
    const bool scaled = cfg->autoscale.max > 0;
    if (!st && scaled && !sim_scaler_init(&sc, &cfg->autoscale, out))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory for the autoscaler");
    const int64_t cap = cfg->engine->max_concurrency;
    sim_cluster_client client = {0};
    if (!st && cap > 0 && !sim_cluster_client_init(&client, cap, n, w->n))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory for the client's cap");
    for (int64_t i = 0; !st && cap > 0 && i < (int64_t)w->n; i++) {
        sim_request q = w->reqs[i]; /* sent when a slot frees: its latencies count from then */
        int chosen;
        if (!(st = sim_cluster_client_send(&client, rep, n, q.arrival_ns, &q.arrival_ns, err)))
            st = route_one(cfg, rep, w, &q, (size_t)i, -1, NULL, NULL, out, &chosen, err);
        if (!st)
            sim_cluster_client_given(&client, rep, chosen);
    }
    sim_cluster_client_free(&client);
    for (int64_t seen = -1, i = 0; !st && !w->links && cap == 0 && i < (int64_t)w->n; i++) {
        const sim_request *q = &w->reqs[i];
        if (scaled && (st = sim_scaler_step(&sc, rep, q->arrival_ns, err)))
            break;
        sc.arrivals++;
        const int64_t t = L > 0 ? q->arrival_ns / L * L : q->arrival_ns;
        for (int r = 0; !st && t != seen && r < n; r++)
            if (!(st = sim_engine_advance(rep[r].e, t, err)) && held)
                held[r] = sim_engine_outstanding(rep[r].e, t);
        seen = L > 0 ? t : -1;
        int chosen;
        if (!st)
            st = route_one(cfg, rep, w, q, (size_t)i, -1, held, scaled ? sc.ok : NULL, out,
                           &chosen, err);
    }
    free(held);
    if (scaled && !st) { /* the held time runs to the last finish: every engine ends first */
        int64_t end = 0;
        int r = 0;
        for (; !st && r < started; r++)
            if (!(st = sim_engine_finish(rep[r].e, err)) && rep[r].res.duration_ns > end)
                end = rep[r].res.duration_ns;
        for (; r < started; r++)
            sim_engine_abort(rep[r].e, &rep[r].res);
        started = 0;
        if (!st)
            sim_scaler_finish(&sc, rep, end);
    }
    sim_scaler_free(&sc);
    st = sim_cluster_end_all(rep, started, st, err);
    sim_hist secs = {0};
    if (!st) {
        all->n = w->n;
        all->block_size = cfg->engine->block_size;
        for (int r = 0; r < n; r++) /* what each replica still holds */
            for (size_t j = 0; j < rep[r].res.n; j++)
                all->done[rep[r].global[j]] = sim_engine_req_of(&rep[r].res.seqs[j]);
        if (!sim_cluster_add_totals(rep, 0, n, true, true, all, &secs, out->load) ||
            !sim_cluster_finish_totals(all, &secs))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory merging %d replicas", n);
    }
    sim_hist_free(&secs);
    sim_cluster_free_all(rep, n);
    if (st) {
        sim_engine_result_free(all);
        sim_cluster_result_free(out);
    }
    return st;
}
