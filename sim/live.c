/* live.c - the serving simulation in real time (live.h): the clock thread, the engine it
 * advances, the chunks it releases. The metrics it keeps and writes: live_prom.c. */
#define _POSIX_C_SOURCE 200809L
#include "live.h"
#include "live_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The simulated time (ns from the start) at wall time `wall`, and back. */
static int64_t sim_at(const sim_live *l, int64_t wall)
{
    return llround((double)(wall - l->wall0_ns) * l->cfg.time_scale);
}
static int64_t wall_at(const sim_live *l, int64_t sim_ns)
{
    return l->wall0_ns + llround((double)sim_ns / l->cfg.time_scale);
}

/* ---- the event heap: what the engine did, by simulated time (then the order it was told) ---- */

static bool ev_before(const live_event *a, const live_event *b)
{
    return a->t_ns != b->t_ns ? a->t_ns < b->t_ns : a->seq < b->seq;
}

static void ev_push(sim_live *l, live_event ev)
{
    if (l->n_ev == l->cap_ev) {
        size_t cap = l->cap_ev ? 2 * l->cap_ev : 256;
        live_event *p = realloc(l->ev, cap * sizeof *p);
        if (!p) {
            l->oom = true;
            return;
        }
        l->ev = p;
        l->cap_ev = cap;
    }
    ev.seq = l->ev_seq++;
    size_t i = l->n_ev++;
    while (i > 0 && ev_before(&ev, &l->ev[(i - 1) / 2])) {
        l->ev[i] = l->ev[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    l->ev[i] = ev;
}

static live_event ev_pop(sim_live *l)
{
    live_event top = l->ev[0], last = l->ev[--l->n_ev];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= l->n_ev)
            break;
        if (c + 1 < l->n_ev && ev_before(&l->ev[c + 1], &l->ev[c]))
            c++;
        if (!ev_before(&l->ev[c], &last))
            break;
        l->ev[i] = l->ev[c];
        i = c;
    }
    if (l->n_ev > 0)
        l->ev[i] = last;
    return top;
}

/* ---- the engine's observer: every event into the heap at the engine's time plus the offset of
 * the engine's start ---- */

static void on_request(void *ctx, int64_t id, sim_request_event e, int64_t t_ns)
{
    sim_live *l = ctx;
    ev_push(l, (live_event){.t_ns = l->gen_off_ns + t_ns, .kind = (int)e, .id = id});
}

static void on_chunk(void *ctx, int64_t id, int64_t streamed, int64_t t_ns)
{
    sim_live *l = ctx;
    ev_push(l, (live_event){
                   .t_ns = l->gen_off_ns + t_ns, .kind = LIVE_EV_CHUNK, .id = id, .n = streamed});
}

static void on_iteration(void *ctx, const sim_iter_info *it)
{
    sim_live *l = ctx;
    ev_push(l, (live_event){.t_ns = l->gen_off_ns + it->start_ns,
                            .kind = LIVE_EV_ITERATION,
                            .kv = it->kv_total_blocks > 0
                                      ? (double)it->kv_used_blocks / (double)it->kv_total_blocks
                                      : 0.0});
}

/* An event whose time has come: the request's state, its client's view, the metrics. */
static void apply(sim_live *l, const live_event *ev)
{
    live_req *r = ev->kind == LIVE_EV_ITERATION ? NULL : &l->reqs[ev->id];
    switch (ev->kind) {
    case LIVE_EV_ITERATION:
        live_prom_iteration(&l->prom, ev->kv);
        return;
    case LIVE_EV_ABORT:
        live_prom_abort(&l->prom, (sim_seq_phase)ev->n);
        return;
    case LIVE_EV_CHUNK: {
        const double since_s = (double)(ev->t_ns - r->arrival_ns) * 1e-9;
        if (r->chunks == 0)
            r->ttft_s = since_s;
        else
            live_prom_gap(&l->prom, (double)(ev->t_ns - r->last_ns) * 1e-9);
        live_prom_tokens(&l->prom, ev->n - r->streamed);
        r->streamed = ev->n;
        r->last_ns = ev->t_ns;
        if (r->chunks++ == 0) {
            r->first_ns = ev->t_ns;
            live_prom_ttft(&l->prom, since_s, r->input);
        }
        if (r->streamed == r->output) {
            r->finished = true;
            r->e2e_s = since_s;
            live_prom_finished(&l->prom, since_s);
        }
        return;
    }
    default:
        live_prom_request(&l->prom, (sim_request_event)ev->kind);
        return;
    }
}

/* ---- engines: one holds max_requests; a fresh one starts once all are done and released ---- */

static sim_status engine_begin(sim_live *l, int64_t at_ns, sim_err *err)
{
    l->w.n = 0;
    l->gen_off_ns = at_ns;
    l->last_until_ns = 0;
    l->released = 0;
    l->gen++;
    return sim_engine_start(l->ecfg_ptr, &l->w, l->cfg.max_requests, &l->res, &l->e, err);
}

/* Whether the engine is full and done with: every request finished, released, nothing pending. */
static bool engine_spent(const sim_live *l)
{
    return l->w.n == l->cfg.max_requests && l->released == l->w.n && l->n_ev == 0 &&
           sim_engine_done(l->e) == l->w.n;
}

static sim_status engine_renew(sim_live *l, int64_t at_ns, sim_err *err)
{
    sim_status st = sim_engine_finish(l->e, err);
    l->e = NULL;
    if (!st)
        sim_engine_result_free(&l->res);
    return st ? st : engine_begin(l, at_ns, err);
}

/* ---- the clock thread ---- */

static void fail(sim_live *l, const sim_err *e)
{
    l->failed = true;
    l->fail_err = *e;
    pthread_cond_broadcast(&l->out_cv);
}

/* One turn: the engine advanced to the clock, the events due released. Returns the simulated
 * time of the next thing to do (INT64_MAX: nothing until a request comes). */
static int64_t turn(sim_live *l)
{
    const int64_t now = sim_at(l, mono_ns());
    sim_err err = {0};
    const int64_t te = now - l->gen_off_ns;
    if (te + 1 > l->last_until_ns) { /* the iterations that start by now */
        l->last_until_ns = te + 1;
        if (sim_engine_advance(l->e, te + 1, &err)) {
            fail(l, &err);
            return INT64_MAX;
        }
    }
    if (l->oom) {
        sim_fail(&err, SIM_EINTERNAL, "out of memory for the endpoint's events");
        fail(l, &err);
        return INT64_MAX;
    }
    bool released = false;
    while (l->n_ev > 0 && l->ev[0].t_ns <= now) {
        live_event ev = ev_pop(l);
        apply(l, &ev);
        released = true;
    }
    if (released)
        pthread_cond_broadcast(&l->out_cv);
    if (engine_spent(l) && engine_renew(l, now, &err)) {
        fail(l, &err);
        return INT64_MAX;
    }
    int64_t next = l->n_ev > 0 ? l->ev[0].t_ns : INT64_MAX;
    if (sim_engine_outstanding(l->e, te + 1) > 0) {
        /* busy: its next iteration starts where its clock stands; waiting on its front end (a
         * request not yet taken in): look again in a millisecond of wall time */
        const int64_t at = l->gen_off_ns + sim_engine_now(l->e);
        const int64_t poll = now + llround(1e6 * l->cfg.time_scale);
        const int64_t n = at > now + 1 ? at : poll;
        next = n < next ? n : next;
    }
    return next;
}

static void *clock_main(void *arg)
{
    sim_live *l = arg;
    pthread_mutex_lock(&l->mu);
    while (!l->stop && !l->failed) {
        const int64_t next = turn(l);
        if (l->stop || l->failed)
            break;
        if (l->kick) { /* a request came in while it turned */
            l->kick = false;
            continue;
        }
        if (next == INT64_MAX) {
            pthread_cond_wait(&l->in_cv, &l->mu);
        } else {
            const int64_t wall = wall_at(l, next);
            struct timespec ts = {.tv_sec = (time_t)(wall / 1000000000),
                                  .tv_nsec = (long)(wall % 1000000000)};
            (void)pthread_cond_timedwait(&l->in_cv, &l->mu, &ts);
        }
        l->kick = false;
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

/* ---- the public calls ---- */

sim_status sim_live_start(const sim_engine_cfg *cfg, const sim_live_cfg *lc, sim_live **out,
                          sim_err *err)
{
    *out = NULL;
    if (!(lc->time_scale >= 1e-3 && lc->time_scale <= 1e3))
        return sim_fail(err, SIM_EINPUT, "--time-scale: value %g, expected 0.001 to 1000",
                        lc->time_scale);
    if (lc->max_requests < 1 || lc->max_requests > (size_t)1 << 24)
        return sim_fail(err, SIM_EINPUT, "--max-requests: value %zu, expected 1 to 16777216",
                        lc->max_requests);
    sim_workload none = {.source = "request"};
    sim_status st = sim_engine_check(cfg, &none, err);
    if (st)
        return st;
    sim_live *l = calloc(1, sizeof *l);
    if (!l)
        return sim_fail(err, SIM_EINTERNAL, "out of memory for the endpoint");
    l->cfg = *lc;
    l->ecfg = *cfg;
    l->obs = (sim_engine_observer){
        .ctx = l, .iteration = on_iteration, .request = on_request, .chunk = on_chunk};
    l->ecfg.observer = &l->obs;
    l->ecfg_ptr = &l->ecfg;
    l->w.reqs = calloc(lc->max_requests, sizeof *l->w.reqs);
    l->reqs = calloc(lc->max_requests, sizeof *l->reqs);
    snprintf(l->w.source, sizeof l->w.source, "request");
    pthread_condattr_t ca;
    bool ok = l->w.reqs && l->reqs && pthread_condattr_init(&ca) == 0;
    ok = ok && pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
         pthread_cond_init(&l->in_cv, &ca) == 0 && pthread_cond_init(&l->out_cv, &ca) == 0 &&
         pthread_mutex_init(&l->mu, NULL) == 0;
    if (!ok) {
        free(l->w.reqs);
        free(l->reqs);
        free(l);
        return sim_fail(err, SIM_EINTERNAL, "out of memory for the endpoint");
    }
    live_prom_init(&l->prom);
    l->wall0_ns = mono_ns();
    st = engine_begin(l, 0, err);
    if (!st && pthread_create(&l->thread, NULL, clock_main, l) != 0)
        st = sim_fail(err, SIM_EINTERNAL, "cannot start the endpoint's clock thread: %s",
                      strerror(errno));
    if (st) {
        if (l->e)
            sim_engine_abort(l->e, &l->res);
        l->e = NULL;
        l->joined = true;
        sim_live_free(l);
        return st;
    }
    *out = l;
    return SIM_OK;
}

sim_status sim_live_submit(sim_live *l, int64_t input_tokens, int64_t output_tokens,
                           int64_t *handle, bool *busy, sim_err *err)
{
    *busy = false;
    sim_request q = {.input_tokens = input_tokens, .output_tokens = output_tokens};
    sim_workload one = {.reqs = &q, .n = 1, .source = "request"};
    if (input_tokens < 1 || output_tokens < 1)
        return sim_fail(err, SIM_EINPUT,
                        "request: %lld prompt and %lld output tokens, expected each >= 1",
                        (long long)input_tokens, (long long)output_tokens);
    pthread_mutex_lock(&l->mu);
    /* the request alone against the engine's limits, under the lock: the configuration is const
     * but the step's caches it reaches are the clock thread's */
    sim_status st = sim_engine_check(&l->ecfg, &one, err);
    if (st) {
        /* refused: the engine's message */
    } else if (l->failed || l->stop) {
        st = sim_fail(err, SIM_EINTERNAL, "the simulation has stopped");
    } else if (l->w.n == l->cfg.max_requests) {
        *busy = true;
        st = sim_fail(err, SIM_EINPUT,
                      "the simulated engine holds its --max-requests %zu requests; it restarts "
                      "once they are done: try again",
                      l->cfg.max_requests);
    } else {
        const int64_t te = sim_at(l, mono_ns()) - l->gen_off_ns;
        const size_t i = l->w.n;
        q.arrival_ns = te > l->last_until_ns ? te : l->last_until_ns;
        l->w.reqs[i] = q;
        l->reqs[i] = (live_req){.arrival_ns = l->gen_off_ns + q.arrival_ns,
                                .input = input_tokens,
                                .output = output_tokens,
                                .ttft_s = -1.0,
                                .e2e_s = -1.0};
        l->w.n++;
        *handle = (int64_t)(((uint64_t)l->gen << 32) | i);
        l->kick = true;
        pthread_cond_signal(&l->in_cv);
    }
    pthread_mutex_unlock(&l->mu);
    return st;
}

/* The slot of a handle of the running engine, or NULL (an earlier engine's: cannot be, since an
 * engine is renewed only once all its handles were released). */
static live_req *slot_of(sim_live *l, int64_t handle)
{
    const uint64_t h = (uint64_t)handle;
    const size_t i = (size_t)(h & 0xffffffffu);
    return (h >> 32) == l->gen && i < l->w.n ? &l->reqs[i] : NULL;
}

void sim_live_wait(sim_live *l, int64_t handle, int64_t have, sim_live_view *v)
{
    pthread_mutex_lock(&l->mu);
    live_req *r = slot_of(l, handle);
    while (r && !l->stop && !l->failed && r->streamed <= have && !r->finished) {
        pthread_cond_wait(&l->out_cv, &l->mu);
        r = slot_of(l, handle);
    }
    *v = (sim_live_view){
        .stopped = !r || l->stop || l->failed, .ttft_s = -1.0, .e2e_s = -1.0, .itl_mean_s = -1.0};
    if (r) {
        v->streamed = r->streamed;
        v->output = r->output;
        v->finished = r->finished;
        v->ttft_s = r->ttft_s;
        v->e2e_s = r->e2e_s;
        v->chunks = r->chunks;
        if (r->chunks > 1)
            v->itl_mean_s = (double)(r->last_ns - r->first_ns) * 1e-9 / (double)(r->chunks - 1);
    }
    pthread_mutex_unlock(&l->mu);
}

void sim_live_release(sim_live *l, int64_t handle)
{
    pthread_mutex_lock(&l->mu);
    live_req *r = slot_of(l, handle);
    if (r && !r->released) {
        /* gone before its last chunk: aborted in the engine as vLLM aborts it, its blocks freed
         * (one not yet in the scheduler runs on) */
        const int64_t i = (int64_t)((uint64_t)handle & 0xffffffffu);
        const sim_seq_phase was = r->finished ? SIM_SEQ_DONE : sim_engine_abort_request(l->e, i);
        if (was == SIM_SEQ_RUNNING || was == SIM_SEQ_WAITING)
            ev_push(l, (live_event){.t_ns = sim_at(l, mono_ns()),
                                    .kind = LIVE_EV_ABORT,
                                    .id = i,
                                    .n = (int64_t)was});
        r->released = true;
        l->released++;
        l->kick = true;
        pthread_cond_signal(&l->in_cv);
        pthread_cond_broadcast(&l->out_cv); /* for sim_live_drain */
    }
    pthread_mutex_unlock(&l->mu);
}

void sim_live_prometheus(sim_live *l, const char *model_name, sim_strbuf *out)
{
    pthread_mutex_lock(&l->mu);
    live_prom_write(&l->prom, model_name, out);
    pthread_mutex_unlock(&l->mu);
}

bool sim_live_healthy(sim_live *l, sim_err *err)
{
    pthread_mutex_lock(&l->mu);
    const bool ok = !l->failed;
    if (!ok)
        *err = l->fail_err;
    pthread_mutex_unlock(&l->mu);
    return ok;
}

bool sim_live_drain(sim_live *l, double wall_s)
{
    const int64_t until = mono_ns() + llround(wall_s * 1e9);
    const struct timespec ts = {.tv_sec = (time_t)(until / 1000000000),
                                .tv_nsec = (long)(until % 1000000000)};
    pthread_mutex_lock(&l->mu);
    while (l->released < l->w.n && !l->failed &&
           pthread_cond_timedwait(&l->out_cv, &l->mu, &ts) != ETIMEDOUT)
        ;
    const bool all = l->released == l->w.n;
    pthread_mutex_unlock(&l->mu);
    return all;
}

void sim_live_stop(sim_live *l)
{
    pthread_mutex_lock(&l->mu);
    l->stop = true;
    pthread_cond_broadcast(&l->in_cv);
    pthread_cond_broadcast(&l->out_cv);
    pthread_mutex_unlock(&l->mu);
    if (!l->joined)
        pthread_join(l->thread, NULL);
    l->joined = true;
}

void sim_live_free(sim_live *l)
{
    if (!l)
        return;
    if (!l->joined)
        sim_live_stop(l);
    if (l->e)
        sim_engine_abort(l->e, &l->res);
    pthread_cond_destroy(&l->in_cv);
    pthread_cond_destroy(&l->out_cv);
    pthread_mutex_destroy(&l->mu);
    free(l->ev);
    free(l->w.reqs);
    free(l->reqs);
    free(l);
}
