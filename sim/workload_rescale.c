/* workload_rescale.c - a production trace at another request rate, and what its requests are
 * (workload.h: sim_workload_at_rate, sim_workload_stats_of). */
#define _POSIX_C_SOURCE 200809L
#include "workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sim_status sim_workload_at_rate(const sim_workload *src, double rate, sim_workload *dst,
                                sim_err *err)
{
    memset(dst, 0, sizeof *dst);
    if (src->links)
        return sim_fail(err, SIM_EINTERNAL, "a session workload cannot be rescaled");
    if (!(rate > 0.0))
        return sim_fail(err, SIM_EINPUT, "--request-rate: value %g, expected a number > 0", rate);
    const size_t n = src->n;
    const int64_t t0 = n ? src->reqs[0].arrival_ns : 0;
    const int64_t span_ns = n ? src->reqs[n - 1].arrival_ns - t0 : 0;
    const double target_s = n > 1 && isfinite(rate) ? (double)(n - 1) / rate : 0.0;
    if (target_s > SIM_ARRIVAL_MAX_S)
        return sim_fail(err, SIM_EINPUT,
                        "--request-rate: %g req/s spreads %zu requests over %.4g s, past the "
                        "%g s an arrival may be",
                        rate, n, target_s, (double)SIM_ARRIVAL_MAX_S);
    dst->reqs = malloc((n ? n : 1) * sizeof *dst->reqs);
    dst->hash_ids = malloc((src->n_hash_ids ? src->n_hash_ids : 1) * sizeof *dst->hash_ids);
    if (!dst->reqs || !dst->hash_ids) {
        sim_workload_free(dst);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    memcpy(dst->reqs, src->reqs, n * sizeof *dst->reqs);
    if (src->n_hash_ids)
        memcpy(dst->hash_ids, src->hash_ids, src->n_hash_ids * sizeof *dst->hash_ids);
    dst->n = n;
    dst->n_hash_ids = src->n_hash_ids;
    dst->hash_block_tokens = src->hash_block_tokens;
    dst->hash_covers_output = src->hash_covers_output;
    memcpy(dst->source, src->source, sizeof dst->source);
    /* one factor for every gap: the trace's shape kept, its mean gap 1 / rate */
    const double f = span_ns > 0 ? target_s * 1e9 / (double)span_ns : 0.0;
    for (size_t i = 0; i < n; i++)
        dst->reqs[i].arrival_ns = (int64_t)llround((double)(src->reqs[i].arrival_ns - t0) * f);
    return SIM_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* One side's statistics and fit from its n lengths (sorted in place). */
static sim_status side_stats(int64_t *v, size_t n, const char *what, sim_length_dist *d,
                             sim_err *err)
{
    qsort(v, n, sizeof *v, cmp_i64);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i];
    /* nearest rank: the ceil(q n)-th smallest */
    const double median = (double)v[(size_t)ceil(0.5 * (double)n) - 1];
    const double p90 = (double)v[(size_t)ceil(0.9 * (double)n) - 1];
    const double mean = sum / (double)n;
    sim_status st = sim_dataset_fit(mean, median, p90 > median ? p90 : 0.0, 0.0, v[0],
                                    v[n - 1], d, err);
    if (st) {
        sim_err e = *err;
        return sim_fail(err, st, "%s lengths: %s", what, e.msg);
    }
    d->p90 = p90; /* as measured, also where the fit took the mean instead */
    return SIM_OK;
}

sim_status sim_workload_stats_of(const sim_workload *w, sim_workload_stats *st, sim_err *err)
{
    memset(st, 0, sizeof *st);
    const size_t n = w->n;
    if (n < 2)
        return sim_fail(err, SIM_EINPUT, "%s: %zu requests, expected at least 2", w->source, n);
    int64_t *v = malloc(n * sizeof *v);
    if (!v)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++)
        v[i] = w->reqs[i].input_tokens;
    sim_status s = side_stats(v, n, "input", &st->in, err);
    for (size_t i = 0; !s && i < n; i++)
        v[i] = w->reqs[i].output_tokens;
    if (!s)
        s = side_stats(v, n, "output", &st->out, err);
    free(v);
    if (s)
        return s;
    st->n = (int64_t)n;
    st->span_s = (double)(w->reqs[n - 1].arrival_ns - w->reqs[0].arrival_ns) / 1e9;
    st->rate_per_s = st->span_s > 0.0 ? (double)(n - 1) / st->span_s : 0.0;
    double mean = st->span_s / (double)(n - 1), ss = 0.0;
    for (size_t i = 1; i < n; i++) {
        double g = (double)(w->reqs[i].arrival_ns - w->reqs[i - 1].arrival_ns) / 1e9 - mean;
        ss += g * g;
    }
    st->gap_cv = mean > 0.0 ? sqrt(ss / (double)(n - 1)) / mean : 0.0;
    return SIM_OK;
}
