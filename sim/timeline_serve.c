/* timeline_serve.c - the serving timeline: the engine's iterations, the requests' spans and phases,
 * the pipeline stages' micro-batches. */
#include "timeline_serve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pp.h"
#include "report.h"

enum { TID_ISSUE = SIM_TIMELINE_DETAIL_TID_ISSUE };

double sim_timeline_serve_estimate_bytes(sim_timeline_detail detail, const sim_step_cfg *cfg,
                                         double iterations, double requests, double preemptions)
{
    double n[SIM_TIMELINE_DETAIL_EV_KINDS] = {0};
    sim_step_result *s = malloc(sizeof *s);
    if (!s)
        return -1.0; /* out of memory */
    /* which ops run does not depend on the batch: one decode stands for all */
    sim_seq_group g = {.count = 1, .q = 1, .c = 1, .logits = 1};
    sim_step_price(cfg, &g, 1, s);
    sim_timeline_detail_count(s, detail, n);
    free(s);
    for (int k = 0; k < SIM_TIMELINE_DETAIL_EV_KINDS; k++)
        n[k] *= iterations;
    n[SIM_TIMELINE_DETAIL_EV_META] = 4 + 2.0 * (detail == SIM_TIMELINE_OP ? 4 : 1);
    /* stages: a process and track each, and a slice per micro-batch (counted at pp per
     * iteration, as under load; lighter batches cut fewer) */
    const int pp = sim_pp_stages(cfg);
    if (pp > 1) {
        n[SIM_TIMELINE_DETAIL_EV_META] += 4.0 * pp;
        n[SIM_TIMELINE_DETAIL_EV_MB] = (double)pp * pp * iterations;
    }
    n[SIM_TIMELINE_DETAIL_EV_ITER] = iterations;
    n[SIM_TIMELINE_DETAIL_EV_COUNTER] = 3.0 * iterations;
    /* a request: its span and three phases, begun and ended; a preemption: an instant and a
     * phase ended and begun */
    n[SIM_TIMELINE_DETAIL_EV_ASYNC] = 8.0 * requests + 3.0 * preemptions;
    return sim_timeline_detail_bytes(n);
}

/* ------------------------------------------------------------------------------------------ */
/* Serving timeline */

enum { PID_ENGINE = 1, PID_REQUESTS = 2 };
enum { PH_NONE, PH_QUEUED, PH_PREFILL, PH_DECODE, PH_DONE };
enum { OPEN_SPAN = 1, OPEN_PHASE = 2 };
static const char *const phase_names[] = {"", "queued", "prefill", "decode", ""};

static void req_name(char *buf, size_t len, int64_t id)
{
    snprintf(buf, len, "request %lld", (long long)id);
}

static void open_span(sim_timeline_serve *ts, int64_t id, int64_t t)
{
    char name[48];
    req_name(name, sizeof name, id);
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_ns_as_s(&a, "arrival_s", ts->arrival_ns[id]);
    sim_timeline_async(&ts->t, 'b', PID_REQUESTS, "request", name, id + 1, t, &a);
    ts->open[id] |= OPEN_SPAN;
}

static void open_phase(sim_timeline_serve *ts, int64_t id, int64_t t)
{
    sim_timeline_async(&ts->t, 'b', PID_REQUESTS, "request", phase_names[ts->phase[id]], id + 1, t,
                       NULL);
    ts->open[id] |= OPEN_PHASE;
}

static void close_phase(sim_timeline_serve *ts, int64_t id, int64_t t)
{
    if (!(ts->open[id] & OPEN_PHASE))
        return;
    sim_timeline_async(&ts->t, 'e', PID_REQUESTS, "request", phase_names[ts->phase[id]], id + 1, t,
                       NULL);
    ts->open[id] &= (unsigned char)~OPEN_PHASE;
}

static void close_span(sim_timeline_serve *ts, int64_t id, int64_t t)
{
    close_phase(ts, id, t);
    if (!(ts->open[id] & OPEN_SPAN))
        return;
    char name[48];
    req_name(name, sizeof name, id);
    sim_timeline_async(&ts->t, 'e', PID_REQUESTS, "request", name, id + 1, t, NULL);
    ts->open[id] &= (unsigned char)~OPEN_SPAN;
}

static bool active(const sim_timeline_serve *ts) { return ts->started && !ts->ended; }

/* Opens the window when simulated time reaches it (spans of requests already in flight start at
 * its edge) and closes it when time passes its end. */
static void advance(sim_timeline_serve *ts, int64_t t)
{
    if (!sim_timeline_over(&ts->t))
        ts->upto_ns = t;
    if (!ts->started && t >= ts->w0_ns) {
        ts->started = true;
        for (size_t i = 0; i < ts->n; i++) {
            if (ts->phase[i] == PH_NONE || ts->phase[i] == PH_DONE)
                continue;
            open_span(ts, (int64_t)i, ts->w0_ns);
            open_phase(ts, (int64_t)i, ts->w0_ns);
        }
    }
    if (ts->started && !ts->ended && ts->w1_ns >= 0 && t > ts->w1_ns) {
        ts->ended = true;
        for (size_t i = 0; i < ts->n; i++)
            close_span(ts, (int64_t)i, ts->w1_ns);
    }
}

/* Closes the current phase of a request and opens the next one. */
static void enter_phase(sim_timeline_serve *ts, int64_t id, unsigned char phase, int64_t t)
{
    close_phase(ts, id, t);
    ts->phase[id] = phase;
    if (active(ts) && (ts->open[id] & OPEN_SPAN))
        open_phase(ts, id, t);
}

static void on_request(void *ctx, int64_t id, sim_request_event ev, int64_t t)
{
    sim_timeline_serve *ts = ctx;
    if (sim_timeline_over(&ts->t))
        return; /* nothing more is written */
    advance(ts, t);
    int64_t at = t < ts->w0_ns ? ts->w0_ns : t; /* an arrival before the window opened */
    switch (ev) {
    case SIM_EV_ARRIVED:
        ts->arrival_ns[id] = t;
        ts->phase[id] = PH_QUEUED;
        if (active(ts)) {
            open_span(ts, id, at);
            open_phase(ts, id, at);
        }
        return;
    case SIM_EV_PREEMPTED:
        if (active(ts))
            sim_timeline_async(&ts->t, 'n', PID_REQUESTS, "request", "preempted", id + 1, t, NULL);
        enter_phase(ts, id, PH_QUEUED, t); /* back to the queue */
        return;
    case SIM_EV_SCHEDULED:
        enter_phase(ts, id, PH_PREFILL, t);
        return;
    case SIM_EV_DECODING:
        enter_phase(ts, id, PH_DECODE, t);
        return;
    case SIM_EV_FINISHED:
        close_span(ts, id, t);
        ts->phase[id] = PH_DONE;
        return;
    }
}

enum { PID_STAGES = 3 }; /* stage k: pid 3 + k */

/* With pipeline stages: each stage's busy time in the iteration, one slice per micro-batch
 * (pp.h: its stage time), back to back. Stage s starts where the first micro-batch reaches it
 * (the stage times and transfers before it), or earlier when its slices would not end by the
 * iteration's end otherwise (the steady round overlaps the stages); the rest is its wait. */
static void write_serve_stages(sim_timeline_serve *ts, const sim_iter_info *it)
{
    const sim_step_cfg *cfg = it->step_cfg;
    if (!cfg || sim_pp_stages(cfg) == 1 || !it->groups || it->n_groups == 0)
        return;
    if (it->n_groups > ts->n_mb) {
        sim_seq_group *g = realloc(ts->mb, it->n_groups * sizeof *g);
        if (!g)
            return; /* out of memory: the stages' slices are left out of this iteration */
        ts->mb = g;
        ts->n_mb = it->n_groups;
    }
    if (!ts->mb_step && !(ts->mb_step = malloc(sizeof *ts->mb_step)))
        return;
    const int pp = sim_pp_stages(cfg), m = sim_pp_micro_batches(cfg, it->groups, it->n_groups);
    double t_ns[SIM_PP_MAX][SIM_PP_MAX];
    int64_t busy[SIM_PP_MAX] = {0}, reach[SIM_PP_MAX] = {0};
    sim_field mb[SIM_PP_MAX][SIM_FIELDS_STAGE_MAX]; /* each micro-batch's tokens and sequences */
    size_t n_mb[SIM_PP_MAX];
    for (int j = 0; j < m; j++) {
        size_t k = sim_pp_micro_batch(it->groups, it->n_groups, j, m, ts->mb);
        sim_step_price(cfg, ts->mb, k, ts->mb_step);
        n_mb[j] = sim_report_step_fields(ts->mb_step, SIM_FIELDS_TRACE_STAGE, mb[j]);
        const double tokens = (double)ts->mb_step->graph.tokens;
        double arrive = 0.0;
        for (int s = 0; s < pp; s++) {
            t_ns[j][s] = sim_pp_stage_ns(cfg, ts->mb_step, s);
            busy[s] += (int64_t)floor(t_ns[j][s]);
            if (j == 0)
                reach[s] = (int64_t)floor(arrive);
            arrive += t_ns[j][s] + (s + 1 < pp ? sim_pp_xfer_ns(cfg, tokens, s) : 0.0);
        }
    }
    const int64_t end = it->start_ns + it->dur_ns;
    for (int s = 0; s < pp; s++) {
        int64_t at = it->start_ns + reach[s];
        if (at + busy[s] > end)
            at = end - busy[s] > it->start_ns ? end - busy[s] : it->start_ns;
        for (int j = 0; j < m; j++) {
            char name[32];
            snprintf(name, sizeof name, "micro-batch %d", j);
            sim_targs a;
            sim_targs_reset(&a);
            sim_timeline_detail_add_fields(&a, mb[j], n_mb[j]);
            sim_targs_num(&a, "stage_us", t_ns[j][s] / 1e3);
            int64_t d = (int64_t)floor(t_ns[j][s]);
            if (at + d > end) /* a stage's busy time fits in its round (pp.h); rounding aside */
                d = end - at;
            sim_timeline_slice(&ts->t, PID_STAGES + s, TID_ISSUE, name, "stage", at, d, &a);
            at += d;
        }
    }
}

/* Whether the iteration's slice args (sim_timeline_detail_iter_args' engine rows: its counts,
 * draft_us and bound) are the last iteration's; records them as the last. */
static bool same_args(sim_timeline_serve *ts, const sim_iter_info *it)
{
    const int64_t v[8] = {it->seqs,       it->prefill_tokens, it->decode_tokens, it->cached_tokens,
                          it->graph_seqs, it->kv_used_blocks, it->running,       it->waiting};
    const int bound = it->step ? (int)it->step->bound : -2;
    const bool same = ts->last_bound == bound && memcmp(v, ts->last_args, sizeof v) == 0 &&
                      it->draft_ns == ts->last_draft_ns && /* -0 prints apart from 0 */
                      !signbit(it->draft_ns) == !signbit(ts->last_draft_ns);
    memcpy(ts->last_args, v, sizeof v);
    ts->last_draft_ns = it->draft_ns;
    ts->last_bound = bound;
    return same;
}

static void on_iteration(void *ctx, const sim_iter_info *it)
{
    sim_timeline_serve *ts = ctx;
    if (sim_timeline_over(&ts->t))
        return;
    advance(ts, it->start_ns);
    if (!active(ts))
        return;
    sim_timeline *t = &ts->t;
    if (ts->detail == SIM_TIMELINE_ITERATION) {
        /* the args are formatted only when they differ from the held slice's */
        if (!(same_args(ts, it) &&
              sim_timeline_merge_extend(&ts->iters, PID_ENGINE, TID_ISSUE, "iteration", "iteration",
                                        it->start_ns, it->dur_ns))) {
            sim_targs a;
            sim_timeline_detail_iter_args(&a, it, SIM_TIMELINE_DETAIL_ITER_ENGINE);
            sim_timeline_merge_slice(t, &ts->iters, PID_ENGINE, TID_ISSUE, "iteration", "iteration",
                                     it->start_ns, it->dur_ns, &a);
        }
    } else { /* layers and ops nest in each iteration: not merged */
        sim_targs a;
        sim_timeline_detail_iter_args(&a, it, SIM_TIMELINE_DETAIL_ITER_ENGINE);
        sim_timeline_slice(t, PID_ENGINE, TID_ISSUE, "iteration", "iteration", it->start_ns,
                           it->dur_ns, &a);
    }
    const double req[] = {(double)it->running, (double)it->waiting};
    sim_timeline_ctr_set(t, &ts->requests, it->start_ns, req);
    const double tok[] = {(double)it->prefill_tokens, (double)it->cached_tokens,
                          (double)it->decode_tokens};
    sim_timeline_ctr_set(t, &ts->tokens, it->start_ns, tok);
    const double kv[] = {(double)it->kv_used_blocks, sim_timeline_detail_kv_usage_pct(it)};
    sim_timeline_ctr_set(t, &ts->kv, it->start_ns, kv);
    write_serve_stages(ts, it);
    if (ts->detail == SIM_TIMELINE_ITERATION)
        return;
    int64_t t0 = it->start_ns;
    int64_t draft = (int64_t)floor(it->draft_ns);
    if (draft > 0)
        sim_timeline_slice(t, PID_ENGINE, TID_ISSUE, "draft (speculative)", "draft", t0, draft,
                           NULL);
    int64_t room = it->dur_ns - draft;
    if (sim_timeline_detail_step_ns(it->step) > room)
        return; /* rounding left no room to nest exactly: keep the iteration slice alone */
    sim_timeline_detail_writer w = {
        .t = t, .pid = PID_ENGINE, .detail = ts->detail, .net_free_ns = t0 + draft};
    sim_timeline_detail_write_step(&w, it->step, t0 + draft);
}

static void on_tier(void *ctx, const sim_tier_move *m)
{
    sim_timeline_serve *ts = ctx;
    if (active(ts)) /* (on_iteration advanced the window to its iteration) */
        sim_timeline_detail_tier(&ts->t, PID_ENGINE, TID_ISSUE, &ts->tiers, &ts->tier_flows, m);
}

/* The engine's counters (sim_timeline_detail_kv_counter's keys for the KV cache), sampled. */
static void init_counters(sim_timeline_serve *ts, int64_t every_ns)
{
    static const char *const req[] = {"running", "waiting"};
    static const char *const tok[] = {"prefill", "cached", "decode"};
    static const char *const kv[] = {"blocks_used", "usage_pct"};
    sim_timeline_ctr_init(&ts->requests, PID_ENGINE, "requests", every_ns, 2, req);
    sim_timeline_ctr_init(&ts->tokens, PID_ENGINE, "batch tokens", every_ns, 3, tok);
    sim_timeline_ctr_init(&ts->kv, PID_ENGINE, "kv cache", every_ns, 2, kv);
}

void sim_timeline_serve_limit(sim_timeline_serve *ts, double max_bytes)
{
    sim_timeline_limit(&ts->t, max_bytes);
}

double sim_timeline_serve_over_bytes(const sim_timeline_serve *ts, int64_t end_ns)
{
    if (!sim_timeline_over(&ts->t))
        return 0.0;
    const int64_t end = ts->w1_ns >= 0 && ts->w1_ns < end_ns ? ts->w1_ns : end_ns;
    const double span = (double)(end - ts->w0_ns), done = (double)(ts->upto_ns - ts->w0_ns);
    const double bytes = (double)ts->t.bytes;
    return done > 0.0 && span > done ? bytes * span / done : bytes;
}

void sim_timeline_serve_full(sim_timeline_serve *ts)
{
    ts->iters.count_key = NULL; /* no merging */
    init_counters(ts, -1);
}

sim_status sim_timeline_serve_open(sim_timeline_serve *ts, const char *path,
                                   sim_timeline_detail detail, int64_t w0_ns, int64_t w1_ns,
                                   size_t n, const sim_step_cfg *step, sim_err *err)
{
    memset(ts, 0, sizeof *ts);
    ts->phase = calloc(n ? n : 1, 1);
    ts->open = calloc(n ? n : 1, 1);
    ts->arrival_ns = calloc(n ? n : 1, sizeof *ts->arrival_ns);
    if (!ts->phase || !ts->open || !ts->arrival_ns) {
        sim_timeline_serve_abort(ts);
        return sim_fail(err, SIM_EINTERNAL, "out of memory for the trace");
    }
    sim_status st = sim_timeline_open(&ts->t, path, err);
    if (st) {
        sim_timeline_serve_abort(ts);
        return st;
    }
    ts->detail = detail;
    ts->w0_ns = w0_ns;
    ts->w1_ns = w1_ns;
    ts->step = step;
    ts->n = n;
    ts->observer = (sim_engine_observer){
        .ctx = ts, .iteration = on_iteration, .request = on_request, .tier = on_tier};
    sim_timeline_merge_init(&ts->iters, "iterations");
    ts->last_bound = -1;
    init_counters(ts, SIM_TIMELINE_SERVE_COUNTER_EVERY_NS);
    sim_timeline_name_process(&ts->t, PID_ENGINE, "engine", 0);
    sim_timeline_detail_tracks(&ts->t, PID_ENGINE, detail == SIM_TIMELINE_OP);
    sim_timeline_name_process(&ts->t, PID_REQUESTS, "requests", 1);
    for (int k = 0; step && sim_pp_stages(step) > 1 && k < sim_pp_stages(step); k++) {
        const sim_timeline_detail_part p = sim_timeline_detail_stage(step, k);
        char name[64];
        snprintf(name, sizeof name, "stage %d: layers %lld-%lld", k, (long long)p.l0,
                 (long long)(p.l1 - 1));
        sim_timeline_name_process(&ts->t, PID_STAGES + k, name, 2 + k);
        sim_timeline_name_thread(&ts->t, PID_STAGES + k, TID_ISSUE, "micro-batches", TID_ISSUE);
    }
    return SIM_OK;
}

/* Frees the per-request state (the trace writer is closed or aborted by the caller). */
static void free_state(sim_timeline_serve *ts)
{
    free(ts->phase);
    free(ts->open);
    free(ts->arrival_ns);
    free(ts->mb);
    free(ts->mb_step);
    ts->phase = ts->open = NULL;
    ts->arrival_ns = NULL;
    ts->mb = NULL;
    ts->mb_step = NULL;
}

sim_status sim_timeline_serve_close(sim_timeline_serve *ts, int64_t end_ns, sim_err *err)
{
    advance(ts, end_ns);
    for (size_t i = 0; i < ts->n; i++)
        close_span(ts, (int64_t)i, end_ns);
    sim_timeline_merge_flush(&ts->t, &ts->iters);
    sim_timeline_ctr_flush(&ts->t, &ts->requests);
    sim_timeline_ctr_flush(&ts->t, &ts->tokens);
    sim_timeline_ctr_flush(&ts->t, &ts->kv);
    sim_status st = sim_timeline_close(&ts->t, err);
    free_state(ts);
    return st;
}

void sim_timeline_serve_abort(sim_timeline_serve *ts)
{
    sim_timeline_abort(&ts->t);
    free_state(ts);
}
