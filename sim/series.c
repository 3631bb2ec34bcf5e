/* series.c - the bounded time-series recorder of a serving run. */
#include "series.h"

#include <stdlib.h>
#include <string.h>

/* Halves the resolution: bucket i takes buckets 2i and 2i+1. */
static void merge_pairs(sim_series *s)
{
    for (size_t i = 0; i < SIM_SERIES_BUCKETS / 2; i++) {
        sim_series_bucket a = s->b[2 * i], c = s->b[2 * i + 1];
        s->b[i] = (sim_series_bucket){.iterations = a.iterations + c.iterations,
                                      .running = a.running + c.running,
                                      .waiting = a.waiting + c.waiting,
                                      .prefill_tokens = a.prefill_tokens + c.prefill_tokens,
                                      .decode_tokens = a.decode_tokens + c.decode_tokens,
                                      .kv_peak_blocks = a.kv_peak_blocks > c.kv_peak_blocks
                                                            ? a.kv_peak_blocks
                                                            : c.kv_peak_blocks,
                                      .preemptions = a.preemptions + c.preemptions};
    }
    memset(&s->b[SIM_SERIES_BUCKETS / 2], 0, sizeof s->b / 2);
    s->width_ns *= 2;
    s->n = (s->n + 1) / 2;
}

/* The bucket of time t, coarsening until it fits. */
static sim_series_bucket *at(sim_series *s, int64_t t)
{
    if (t < 0)
        t = 0;
    while (t / s->width_ns >= SIM_SERIES_BUCKETS)
        merge_pairs(s);
    size_t i = (size_t)(t / s->width_ns);
    if (i + 1 > s->n)
        s->n = i + 1;
    return &s->b[i];
}

static void record_iteration(sim_series *s, const sim_iter_info *it)
{
    sim_series_bucket *b = at(s, it->start_ns);
    b->iterations++;
    b->running += (double)it->running;
    b->waiting += (double)it->waiting;
    b->prefill_tokens += (double)it->prefill_tokens;
    b->decode_tokens += (double)it->decode_tokens;
    if (it->kv_used_blocks > b->kv_peak_blocks)
        b->kv_peak_blocks = it->kv_used_blocks;
    s->kv_total_blocks = it->kv_total_blocks;
}

static void on_iteration(void *ctx, const sim_iter_info *it)
{
    sim_series *s = ctx;
    record_iteration(s, it);
    if (s->next && s->next->iteration)
        s->next->iteration(s->next->ctx, it);
}

static void on_request(void *ctx, int64_t id, sim_request_event ev, int64_t t_ns)
{
    sim_series *s = ctx;
    if (ev == SIM_EV_PREEMPTED)
        at(s, t_ns)->preemptions++;
    if (s->next && s->next->request)
        s->next->request(s->next->ctx, id, ev, t_ns);
}

void sim_series_init(sim_series *s, const sim_engine_observer *next)
{
    memset(s, 0, sizeof *s);
    s->next = next;
    s->width_ns = 1000000; /* 1 ms */
    s->observer = (sim_engine_observer){.ctx = s, .iteration = on_iteration, .request = on_request};
}

/* ------------------------------------------------------------------------------------------ */
/* One series per instance */

static void set_iteration(void *ctx, int instance, const sim_iter_info *it)
{
    sim_series_set *set = ctx;
    if (instance >= 0 && instance < set->n)
        record_iteration(&set->s[instance], it);
    if (set->next && set->next->iteration)
        set->next->iteration(set->next->ctx, instance, it);
}

static void set_request(void *ctx, int instance, int64_t id, sim_request_event ev, int64_t t_ns)
{
    sim_series_set *set = ctx;
    if (ev == SIM_EV_PREEMPTED && instance >= 0 && instance < set->n)
        at(&set->s[instance], t_ns)->preemptions++;
    if (set->next && set->next->request)
        set->next->request(set->next->ctx, instance, id, ev, t_ns);
}

static void set_kv_transfer(void *ctx, int64_t id, int from, int to, int64_t start_ns,
                            int64_t end_ns)
{
    sim_series_set *set = ctx;
    if (set->next && set->next->kv_transfer)
        set->next->kv_transfer(set->next->ctx, id, from, to, start_ns, end_ns);
}

sim_status sim_series_set_init(sim_series_set *set, int n, const sim_cluster_observer *next,
                               sim_err *err)
{
    memset(set, 0, sizeof *set);
    if (n < 1 || !(set->s = malloc((size_t)n * sizeof *set->s)))
        return sim_fail(err, SIM_EINTERNAL, "out of memory for %d instances' series", n);
    set->n = n;
    set->next = next;
    for (int i = 0; i < n; i++)
        sim_series_init(&set->s[i], NULL);
    set->observer = (sim_cluster_observer){.ctx = set,
                                           .iteration = set_iteration,
                                           .request = set_request,
                                           .kv_transfer = set_kv_transfer};
    return SIM_OK;
}

void sim_series_set_align(sim_series_set *set)
{
    int64_t w = 0;
    for (int i = 0; i < set->n; i++)
        w = set->s[i].width_ns > w ? set->s[i].width_ns : w;
    for (int i = 0; i < set->n; i++)
        while (set->s[i].width_ns < w)
            merge_pairs(&set->s[i]);
}

void sim_series_set_free(sim_series_set *set)
{
    free(set->s);
    memset(set, 0, sizeof *set);
}
