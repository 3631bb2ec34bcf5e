/* cluster_scale.c - the autoscaler of a replica pool (cluster.h sim_autoscale): HPA's count
 * every interval, replicas added after their start-up and drained before release. */
#include "cluster.h"
#include "cluster_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[SIM_SCALE_COUNT] = {
    [SIM_SCALE_QUEUE] = "queue",
    [SIM_SCALE_KV] = "kv",
    [SIM_SCALE_RATE] = "rate",
};

bool sim_scale_metric_parse(const char *s, sim_scale_metric *out)
{
    for (int i = 0; i < SIM_SCALE_COUNT; i++)
        if (strcmp(s, metric_names[i]) == 0) {
            *out = (sim_scale_metric)i;
            return true;
        }
    return false;
}

const char *sim_scale_metric_name(sim_scale_metric m) { return metric_names[m]; }

int sim_autoscale_desired(const sim_autoscale *a, int current, double sum)
{
    double want = (double)current;
    if (current < 1 || fabs(sum / ((double)current * a->target) - 1.0) > a->tolerance)
        want = ceil(sum / a->target);
    /* HPA's default scale-up policies: 100 % or 4 pods per period, whichever adds more */
    const double up = current < 1 ? (double)a->max
                                  : (double)(2 * current > current + 4 ? 2 * current
                                                                       : current + 4);
    if (want > up)
        want = up;
    if (want > (double)a->max)
        want = (double)a->max;
    if (want < (double)a->min)
        want = (double)a->min;
    return (int)want;
}

enum { OFF, STARTING, READY, DRAINING };

int sim_scaler_init(sim_scaler *s, const sim_autoscale *a, sim_cluster_result *out)
{
    memset(s, 0, sizeof *s);
    const size_t n = (size_t)a->max;
    s->a = a;
    s->n = a->max;
    s->out = out;
    s->state = calloc(n, sizeof *s->state);
    s->ok = calloc(n, sizeof *s->ok);
    s->on_ns = calloc(n, sizeof *s->on_ns);
    s->ready_ns = calloc(n, sizeof *s->ready_ns);
    s->drain_ns = calloc(n, sizeof *s->drain_ns);
    s->first = calloc(n, sizeof *s->first);
    if (!s->state || !s->ok || !s->on_ns || !s->ready_ns || !s->drain_ns || !s->first)
        return 0;
    for (int r = 0; r < a->min; r++) {
        s->state[r] = READY;
        s->ok[r] = true;
    }
    s->next_eval_ns = a->interval_ns;
    s->next_ready_ns = INT64_MAX;
    out->autoscaled = true;
    out->scale_min = a->min;
    out->scale_metric = a->metric;
    out->scale_start_ns = a->start_ns;
    out->peak_held = a->min;
    return 1;
}

void sim_scaler_free(sim_scaler *s)
{
    free(s->state);
    free(s->ok);
    free(s->on_ns);
    free(s->ready_ns);
    free(s->drain_ns);
    free(s->first);
    free(s->rec);
    memset(s, 0, sizeof *s);
}

/* The last finish of replica r's requests since it was added (it has none left); of those it
 * released, the last finish of all (any before the add finished before it: no later). */
static int64_t last_finish(const sim_scaler *s, const replica *R, int r)
{
    int64_t t = R->released_finish_ns;
    for (size_t j = s->first[r] > R->base ? s->first[r] - R->base : 0; j < R->w.n; j++)
        if (R->res.seqs[j].finish_ns > t)
            t = R->res.seqs[j].finish_ns;
    return t;
}

/* Releases replica r at the later of `t` and its last request's finish. */
static void release(sim_scaler *s, const replica *rep, int r, int64_t t)
{
    const int64_t f = last_finish(s, &rep[r], r);
    s->out->held_ns += (double)((f > t ? f : t) - s->on_ns[r]);
    s->state[r] = OFF;
    s->ok[r] = false;
}

/* Makes ready the starting replicas whose start has ended by t. */
static void make_ready(sim_scaler *s, int64_t t)
{
    if (t < s->next_ready_ns)
        return;
    s->next_ready_ns = INT64_MAX;
    for (int r = 0; r < s->n; r++) {
        if (s->state[r] != STARTING)
            continue;
        if (s->ready_ns[r] <= t) {
            s->state[r] = READY;
            s->ok[r] = true;
        } else if (s->ready_ns[r] < s->next_ready_ns) {
            s->next_ready_ns = s->ready_ns[r];
        }
    }
}

/* Adds the timeline point; returns 0 when out of memory. */
static int record(sim_scaler *s, sim_scale_point p, int raw)
{
    sim_cluster_result *o = s->out;
    if (o->n_timeline == s->cap_timeline) {
        size_t cap = s->cap_timeline ? 2 * s->cap_timeline : 64;
        sim_scale_point *tl = realloc(o->timeline, cap * sizeof *tl);
        if (tl)
            o->timeline = tl;
        int *rec = tl ? realloc(s->rec, cap * sizeof *rec) : NULL;
        if (!rec)
            return 0;
        s->rec = rec;
        s->cap_timeline = cap;
    }
    s->rec[o->n_timeline] = raw;
    o->timeline[o->n_timeline++] = p;
    return 1;
}

/* One evaluation at t, every replica advanced to t. */
static sim_status evaluate(sim_scaler *s, replica *rep, int64_t t, sim_err *err)
{
    const sim_autoscale *a = s->a;
    make_ready(s, t);
    int current = 0, ready = 0;
    double sum = 0.0;
    for (int r = 0; r < s->n; r++) {
        if (s->state[r] == DRAINING && sim_engine_outstanding(rep[r].e, t) == 0)
            release(s, rep, r, s->drain_ns[r]);
        if (s->state[r] == STARTING)
            current++;
        if (s->state[r] != READY)
            continue;
        current++;
        ready++;
        if (a->metric == SIM_SCALE_QUEUE)
            sum += (double)sim_engine_outstanding(rep[r].e, t);
        else if (a->metric == SIM_SCALE_KV)
            sum += sim_engine_kv_usage(rep[r].e);
    }
    if (a->metric == SIM_SCALE_RATE)
        sum = (double)s->arrivals / ((double)a->interval_ns / 1e9);
    s->arrivals = 0;
    const int raw = sim_autoscale_desired(a, current, sum);
    int want = raw;
    /* a scale-down takes the highest count within the stabilization window, this one included */
    const sim_scale_point *tl = s->out->timeline;
    for (size_t k = s->out->n_timeline; want < current && k-- > 0;) {
        if (tl[k].t_ns <= t - a->down_window_ns)
            break;
        if (s->rec[k] > want)
            want = s->rec[k] < current ? s->rec[k] : current;
    }
    for (int r = 0; want > current && r < s->n; r++)
        if (s->state[r] == OFF) {
            s->state[r] = STARTING;
            s->on_ns[r] = t;
            s->ready_ns[r] = t + a->start_ns;
            s->first[r] = rep[r].base + rep[r].w.n; /* counted from its first request given */
            if (s->ready_ns[r] < s->next_ready_ns)
                s->next_ready_ns = s->ready_ns[r];
            s->out->scale_ups++;
            current++;
        }
    /* fewer: the starting ones are cancelled first, then the ready ones drained, highest first */
    for (int pass = STARTING; want < current && pass <= READY; pass++)
        for (int r = s->n - 1; want < current && r >= 0; r--) {
            if (s->state[r] != pass)
                continue;
            s->out->scale_downs++;
            current--;
            if (pass == STARTING) {
                s->out->held_ns += (double)(t - s->on_ns[r]);
                s->state[r] = OFF;
                continue;
            }
            ready--;
            s->state[r] = DRAINING;
            s->ok[r] = false;
            s->drain_ns[r] = t;
            if (sim_engine_outstanding(rep[r].e, t) == 0)
                release(s, rep, r, t);
        }
    make_ready(s, t);
    int held = 0;
    ready = 0;
    for (int r = 0; r < s->n; r++) {
        held += s->state[r] != OFF;
        ready += s->state[r] == READY;
    }
    if (held > s->out->peak_held)
        s->out->peak_held = held;
    if (!record(s, (sim_scale_point){t, ready, held, want, sum}, raw))
        return sim_fail(err, SIM_EINTERNAL, "out of memory for the autoscaler's timeline");
    return SIM_OK;
}

sim_status sim_scaler_step(sim_scaler *s, replica *rep, int64_t t, sim_err *err)
{
    sim_status st = SIM_OK;
    while (!st && s->next_eval_ns <= t) {
        const int64_t at = s->next_eval_ns;
        for (int r = 0; !st && r < s->n; r++)
            st = sim_engine_advance(rep[r].e, at, err);
        if (!st)
            st = evaluate(s, rep, at, err);
        s->next_eval_ns += s->a->interval_ns;
    }
    make_ready(s, t);
    return st;
}

void sim_scaler_finish(sim_scaler *s, const replica *rep, int64_t end_ns)
{
    for (int r = 0; r < s->n; r++) {
        if (s->state[r] == DRAINING)
            release(s, rep, r, s->drain_ns[r]);
        else if (s->state[r] != OFF)
            s->out->held_ns += (double)(end_ns - s->on_ns[r]);
    }
    sim_scaler_free(s);
}
