/* series.c - the bounded time-series recorder of a serving run. */
#include "series.h"

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

static void on_iteration(void *ctx, const sim_iter_info *it)
{
    sim_series *s = ctx;
    sim_series_bucket *b = at(s, it->start_ns);
    b->iterations++;
    b->running += (double)it->running;
    b->waiting += (double)it->waiting;
    b->prefill_tokens += (double)it->prefill_tokens;
    b->decode_tokens += (double)it->decode_tokens;
    if (it->kv_used_blocks > b->kv_peak_blocks)
        b->kv_peak_blocks = it->kv_used_blocks;
    s->kv_total_blocks = it->kv_total_blocks;
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
