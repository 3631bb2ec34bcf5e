/* disagg.c - prefill/decode disaggregation (disagg.h): prefill and decode pools of engines and
 * the KV transfer between them, stepped with the instances' bookkeeping of cluster_internal.h. */
#include "disagg.h"

#include "cluster_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp.h"

/* ------------------------------------------------------------------------------------------ */
/* Prefill/decode disaggregation */

static int instance_gpus(const sim_engine_cfg *c) { return (int)sim_pp_gpus(&c->step); }

/* Whether the pools run on one kind of device (by its name): else no NVLink domain holds both. */
static bool one_device(const sim_disagg_cfg *cfg)
{
    return strcmp(cfg->prefill->step.hw->name, cfg->decode->step.hw->name) == 0;
}

bool sim_disagg_scaleout(const sim_disagg_cfg *cfg)
{
    if (!one_device(cfg))
        return true;
    int64_t gpus = (int64_t)cfg->n_prefill * instance_gpus(cfg->prefill) +
                   (int64_t)cfg->n_decode * instance_gpus(cfg->decode);
    return gpus > cfg->decode->step.hw->devices_per_node;
}

double sim_disagg_kv_bytes(const sim_disagg_cfg *cfg, int64_t input)
{
    double p = sim_mem_kv_bytes_per_token(&cfg->prefill->step);
    double d = sim_mem_kv_bytes_per_token(&cfg->decode->step);
    return (double)input * (p > d ? p : d);
}

double sim_disagg_kv_ns(const sim_disagg_cfg *cfg, int64_t input)
{
    const sim_hw *hw = cfg->decode->step.hw, *ph = cfg->prefill->step.hw;
    const bool out = sim_disagg_scaleout(cfg);
    double bw = (out ? hw->scaleout_bytes_per_s : hw->scaleup_bytes_per_s) * hw->eff_network;
    double lat = out ? hw->scaleout_latency_ns : hw->scaleup_latency_ns;
    if (!one_device(cfg)) { /* two devices' NICs: the slower end, the longer latency */
        const double pbw = ph->scaleout_bytes_per_s * ph->eff_network;
        bw = pbw < bw ? pbw : bw;
        lat = ph->scaleout_latency_ns > lat ? ph->scaleout_latency_ns : lat;
    }
    return sim_disagg_kv_bytes(cfg, input) / bw * 1e9 + lat;
}

sim_status sim_disagg_check(const sim_disagg_cfg *cfg, const sim_workload *w, sim_err *err)
{
    if (cfg->n_prefill < 1 || cfg->n_decode < 1 ||
        cfg->n_prefill + cfg->n_decode > SIM_CLUSTER_MAX_REPLICAS)
        return sim_fail(err, SIM_EINPUT,
                        "--disagg: value %d:%d, expected P:D with P, D >= 1 and "
                        "P + D <= %d",
                        cfg->n_prefill, cfg->n_decode, SIM_CLUSTER_MAX_REPLICAS);
    const sim_engine_cfg *e = cfg->decode;
    if (e->max_concurrency > 0 || e->observer || sim_spec_active(e->spec))
        return sim_fail(err, SIM_EINPUT,
                        "%s with --disagg: not modelled for disaggregated pools; expected one of "
                        "them",
                        e->max_concurrency > 0 ? "--max-concurrency"
                        : e->observer          ? "--html"
                                               : "--spec-method");
    sim_status st = sim_engine_check(cfg->prefill, w, err);
    if (st) { /* say which pool */
        sim_err why = *err;
        return sim_fail(err, st, "prefill instances (--prefill-tp %d): %s", cfg->prefill->step.tp,
                        why.msg);
    }
    return sim_engine_check(cfg->decode, w, err);
}

/* A pending decode arrival: request i's KV, sent by prefill instance `from` at `sent`, is at
 * the decode side at t. */
typedef struct ready {
    int64_t t;
    size_t i;
    int from;
    int64_t sent;
} ready;

/* Min-heap on (t, i). */
static bool ready_before(const ready *a, const ready *b)
{
    return a->t != b->t ? a->t < b->t : a->i < b->i;
}

static void heap_push(ready *h, size_t *n, ready x)
{
    size_t k = (*n)++;
    while (k > 0 && ready_before(&x, &h[(k - 1) / 2])) {
        h[k] = h[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h[k] = x;
}

static ready heap_pop(ready *h, size_t *n)
{
    ready top = h[0], last = h[--(*n)];
    size_t k = 0;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && ready_before(&h[c + 1], &h[c]))
            c++;
        if (!ready_before(&h[c], &last))
            break;
        h[k] = h[c];
        k = c;
    }
    if (*n > 0)
        h[k] = last;
    return top;
}

typedef struct pools {
    const sim_disagg_cfg *cfg;
    const sim_workload *w;
    replica *rep;             /* prefill instances, then decode instances */
    size_t *scan;             /* per prefill instance: its requests before this one are collected */
    unsigned char *collected; /* per request: its prefill finish is known */
    ready *heap;
    size_t heap_n;
    double kv_ns, kv_bytes;
} pools;

/* Advances the prefill pool to t and queues the decode arrival of every prompt finished by then
 * (every finish before t is known once each prefill instance has run the iterations starting
 * before t). */
static sim_status prefill_to(pools *P, int64_t t, sim_err *err)
{
    const sim_disagg_cfg *c = P->cfg;
    const int64_t layers = c->prefill->step.model->layers;
    for (int r = 0; r < c->n_prefill; r++) {
        replica *R = &P->rep[r];
        sim_status st = sim_engine_advance(R->e, t, err);
        if (st)
            return st;
        for (size_t j = P->scan[r]; j < R->w.n; j++) {
            const sim_seq *x = &R->res.seqs[j];
            size_t i = R->global[j];
            if (x->finish_ns < 0 || P->collected[i])
                continue;
            P->collected[i] = 1;
            double kv = sim_disagg_kv_ns(c, x->input);
            if (c->kv_stream) {
                /* layer by layer during the prefill: only what outlasts it, at least one layer */
                double hidden = (double)(x->finish_ns - x->first_sched_ns);
                kv = kv - hidden > kv / (double)layers ? kv - hidden : kv / (double)layers;
            }
            P->kv_ns += kv;
            P->kv_bytes += sim_disagg_kv_bytes(c, x->input);
            heap_push(P->heap, &P->heap_n,
                      (ready){x->finish_ns + (int64_t)llround(kv), i, r, x->finish_ns});
        }
        while (P->scan[r] < R->w.n && P->collected[R->global[P->scan[r]]])
            P->scan[r]++;
    }
    return SIM_OK;
}

/* Sessions over the pools (disagg.h): the turns released and not sent (a min-heap), those at a
 * decode instance whose next turn is not released, and the pools' stepping. */
typedef struct turns {
    sim_session_turn *heap;
    size_t n, *open, n_open, *loc; /* loc: a turn's index in its decode instance's stream */
    int *at;                       /* its decode instance */
    int64_t step, until;           /* the stepping: no longer than the shortest think time */
    size_t in_prefill;             /* turns given to the prefill pool, not yet at a decode one */
} turns;

static sim_status turns_init(turns *T, const sim_workload *w, sim_err *err)
{
    const size_t n = w->n ? w->n : 1;
    T->heap = malloc(n * sizeof *T->heap);
    T->open = malloc(n * sizeof *T->open);
    T->loc = malloc(n * sizeof *T->loc);
    T->at = malloc(n * sizeof *T->at);
    if (!T->heap || !T->open || !T->loc || !T->at)
        return sim_fail(err, SIM_EINTERNAL, "out of memory for sessions");
    T->step = INT64_MAX;
    for (size_t i = 0; i < w->n; i++) {
        if (!w->links[i].follows)
            sim_workload_turn_push(T->heap, &T->n,
                                   (sim_session_turn){w->reqs[i].arrival_ns, (int64_t)i, -1});
        if (w->links[i].follow > 0 && w->links[i].think_ns < T->step)
            T->step = w->links[i].think_ns;
    }
    if (T->step < 1000000LL) /* as the replicas' sessions step: at least 1 ms */
        T->step = 1000000LL;
    return SIM_OK;
}

static void turns_free(turns *T)
{
    free(T->heap);
    free(T->open);
    free(T->loc);
    free(T->at);
}

/* The decode pool advanced to t: every turn finished by then releases its session's next, its
 * think time after the last token (not before its own arrival, nor before t). */
static sim_status turns_scan(pools *P, turns *T, int64_t t, sim_err *err)
{
    const sim_disagg_cfg *c = P->cfg;
    replica *dec = P->rep + c->n_prefill;
    sim_status st = SIM_OK;
    for (int r = 0; !st && r < c->n_decode; r++)
        st = sim_engine_advance(dec[r].e, t, err);
    T->until = t;
    for (size_t k = 0; !st && k < T->n_open;) {
        const size_t id = T->open[k];
        const sim_seq *x = &dec[T->at[id]].res.seqs[T->loc[id]];
        if (x->phase != SIM_SEQ_DONE) {
            k++;
            continue;
        }
        sim_workload_turn_push(T->heap, &T->n,
                               (sim_session_turn){sim_workload_turn_release(P->w, id, x->finish_ns,
                                                                            t),
                                                  P->w->links[id].follow, -1});
        T->open[k] = T->open[--T->n_open];
    }
    return st;
}

static sim_status disagg_loop(pools *P, sim_err *err)
{
    const sim_disagg_cfg *c = P->cfg;
    const sim_workload *w = P->w;
    replica *dec = P->rep + c->n_prefill;
    size_t next = 0, sent = 0;
    turns T = {0};
    sim_status st = w->links ? turns_init(&T, w, err) : SIM_OK;
    const bool sessions = w->links && T.heap && T.open && T.loc && T.at; /* (else st is set) */
    while (!st && sent < w->n) {
        bool client = sessions ? T.n > 0 : next < w->n;
        int64_t t = !client ? INT64_MAX : sessions ? T.heap[0].t_ns : w->reqs[next].arrival_ns;
        /* sessions: a step to find the finishes (and the prompts done) before the next release */
        const bool stepping = sessions && (T.n_open > 0 || T.in_prefill > 0) &&
                              T.until <= INT64_MAX - T.step && T.until + T.step < t;
        if (stepping)
            t = T.until + T.step;
        if ((st = prefill_to(P, t, err)))
            break;
        if (P->heap_n > 0 && P->heap[0].t < t) {
            /* a prompt's KV is at the decode side first */
            ready x = heap_pop(P->heap, &P->heap_n);
            for (int r = 0; !st && r < c->n_decode; r++)
                st = sim_engine_advance(dec[r].e, x.t, err);
            if (st)
                break;
            sim_request q = w->reqs[x.i];
            q.arrival_ns = x.t;
            /* the last prompt token is computed to sample; the images came encoded */
            q.kv_ready = sim_engine_prompt_tokens(c->prefill, &q) - 1;
            int to = sim_cluster_least_outstanding(dec, c->n_decode, NULL, x.t);
            if (c->observer && c->observer->kv_transfer)
                c->observer->kv_transfer(c->observer->ctx, (int64_t)x.i, x.from, c->n_prefill + to,
                                         x.sent, x.t);
            if ((st = sim_cluster_give(&dec[to], &q, x.i, err)))
                break;
            if (sessions) {
                T.in_prefill--;
                T.at[x.i] = to;
                T.loc[x.i] = dec[to].w.n - 1;
                if (w->links[x.i].follow > 0)
                    T.open[T.n_open++] = x.i;
            }
            sent++;
        } else if (stepping) {
            st = turns_scan(P, &T, t, err);
        } else if (client) {
            size_t i = next;
            if (sessions) { /* the prefill pool is at t: no later release before it */
                i = (size_t)sim_workload_turn_pop(T.heap, &T.n).id;
                T.in_prefill++;
                T.until = t > T.until ? t : T.until;
            }
            sim_request q = w->reqs[i];
            q.arrival_ns = t;
            q.output_tokens = 1; /* the prefill instance samples one token */
            const int to = sim_cluster_least_outstanding(P->rep, c->n_prefill, NULL, t);
            if ((st = sim_cluster_give(&P->rep[to], &q, i, err)))
                break;
            next += !sessions;
        } else if (P->heap_n == 0) {
            st = sim_fail(err, SIM_EINTERNAL,
                          "disaggregation stalled with %zu of %zu requests "
                          "sent to decode",
                          sent, w->n);
        }
    }
    turns_free(&T);
    return st;
}

sim_status sim_disagg_run(const sim_disagg_cfg *cfg, const sim_workload *w, sim_engine_result *all,
                          sim_cluster_result *out, sim_err *err)
{
    const int n = cfg->n_prefill + cfg->n_decode;
    memset(out, 0, sizeof *out);
    memset(all, 0, sizeof *all);
    out->replicas = n;
    out->router = SIM_ROUTER_LEAST_OUTSTANDING;
    out->prefill = cfg->n_prefill;
    out->decode = cfg->n_decode;
    out->kv_scaleout = sim_disagg_scaleout(cfg);
    snprintf(out->prefill_hw, sizeof out->prefill_hw, "%s", cfg->prefill->step.hw->name);
    out->load = calloc((size_t)n, sizeof *out->load);
    pools P = {.cfg = cfg, .w = w};
    P.rep = calloc((size_t)n, sizeof *P.rep);
    P.scan = calloc((size_t)cfg->n_prefill, sizeof *P.scan);
    P.collected = calloc(w->n ? w->n : 1, 1);
    P.heap = malloc((w->n ? w->n : 1) * sizeof *P.heap);
    int started = 0;
    sim_status st = SIM_OK;
    if (!out->load || !P.rep || !P.scan || !P.collected || !P.heap)
        st = sim_fail(err, SIM_EINTERNAL, "out of memory for %d engines", n);
    if (!st)
        st = sim_cluster_start_all(P.rep, cfg->n_prefill, 0, cfg->prefill, w, cfg->observer,
                                   &started, err);
    int started_dec = 0;
    if (!st)
        st = sim_cluster_start_all(P.rep + cfg->n_prefill, cfg->n_decode, cfg->n_prefill,
                                   cfg->decode, w, cfg->observer, &started_dec, err);
    if (!st)
        st = disagg_loop(&P, err);
    st = sim_cluster_end_all(P.rep, started, st, err);
    st = sim_cluster_end_all(P.rep + cfg->n_prefill, started_dec, st, err);
    sim_hist secs = {0};
    if (!st && P.rep) { /* P.rep: set when st is, said here for the analyzer across files */
        all->n = w->n;
        all->seqs = malloc((w->n ? w->n : 1) * sizeof *all->seqs);
        all->block_size = cfg->decode->block_size;
        /* the client's view: sent and first scheduled at the prefill side, tokens from the
         * decode side */
        for (int r = cfg->n_prefill; all->seqs && r < n; r++)
            for (size_t j = 0; j < P.rep[r].res.n; j++)
                all->seqs[P.rep[r].global[j]] = P.rep[r].res.seqs[j];
        for (int r = 0; all->seqs && r < cfg->n_prefill; r++)
            for (size_t j = 0; j < P.rep[r].res.n; j++) {
                const sim_seq *p = &P.rep[r].res.seqs[j];
                sim_seq *x = &all->seqs[P.rep[r].global[j]];
                x->send_ns = p->send_ns;
                x->first_sched_ns = p->first_sched_ns;
                x->preemptions += p->preemptions;
            }
        if (!all->seqs ||
            !sim_cluster_add_totals(P.rep, 0, cfg->n_prefill, false, true, all, &secs, out->load) ||
            !sim_cluster_add_totals(P.rep, cfg->n_prefill, n, true, false, all, &secs, out->load) ||
            !sim_cluster_finish_totals(all, &secs))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory merging the pools");
        out->kv_transfer_ns = P.kv_ns;
        out->kv_transfer_bytes = P.kv_bytes;
    }
    sim_hist_free(&secs);
    sim_cluster_free_all(P.rep, n);
    free(P.scan);
    free(P.collected);
    free(P.heap);
    if (st) {
        sim_engine_result_free(all);
        sim_cluster_result_free(out);
    }
    return st;
}
