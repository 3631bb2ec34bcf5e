/* workload_synth.c - synthetic request streams (workload.h sim_workload_synthetic): vLLM's random
 * and prefix_repetition datasets, fixed or ranged lengths, Poisson or gamma arrivals, a rate
 * schedule. */
#define _POSIX_C_SOURCE 200809L
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "workload_internal.h"

#define NS_PER_S 1e9

sim_status sim_workload_check_lengths(int64_t input_len, int64_t output_len, double range_ratio,
                                      sim_err *err)
{
    if (input_len < 1 || output_len < 1)
        return sim_fail(err, SIM_EINPUT,
                        "--random-input-len, --random-output-len: values %lld, %lld, expected >= 1",
                        (long long)input_len, (long long)output_len);
    if (!(range_ratio >= 0.0 && range_ratio < 1.0))
        return sim_fail(err, SIM_EINPUT, "--random-range-ratio: value %g, expected [0, 1)",
                        range_ratio);
    return SIM_OK;
}

static void length_range(int64_t len, double ratio, int64_t *lo, int64_t *hi)
{
    *lo = (int64_t)floor((double)len * (1.0 - ratio));
    *hi = (int64_t)ceil((double)len * (1.0 + ratio));
    if (*lo < 1)
        *lo = 1;
    if (*hi < *lo)
        *hi = *lo;
}

/* SGLang's random lengths: numpy's randint(int(len R), len + 1), [floor(len R), len], with the
 * floor at 1 token (sglang/bench_serving.py, sample_random_requests). len 100, R 0.8: [80, 100];
 * R 0 (SGLang's default): [1, 100]. */
static void length_floor_range(int64_t len, double ratio, int64_t *lo, int64_t *hi)
{
    *lo = (int64_t)floor((double)len * ratio);
    *hi = len;
    if (*lo < 1)
        *lo = 1;
}

/* vLLM's prefix_repetition dataset: prefix p of request i is shuffled; its ids are
 * (p + 1) << 32 | k for the hash blocks inside the prefix and unique per request after. */
static sim_status prefix_repetition(const sim_synth_cfg *c, sim_rng *rng, sim_workload *w,
                                    sim_err *err)
{
    if (c->prefix_len < 0 || c->suffix_len < 0 || c->prefix_len + c->suffix_len < 1 ||
        c->hash_block_tokens < 1 || c->num_prefixes > c->num_prompts)
        return sim_fail(err, SIM_EINPUT,
                        "--prefix-repetition-prefix-len, -suffix-len, -num-prefixes: values %lld, "
                        "%lld, %lld, expected lengths >= 0 adding up to >= 1 and at most "
                        "--num-prompts (%lld) prefixes",
                        (long long)c->prefix_len, (long long)c->suffix_len,
                        (long long)c->num_prefixes, (long long)c->num_prompts);
    const size_t n = w->n;
    const int64_t len = c->prefix_len + c->suffix_len, h = c->hash_block_tokens;
    const int64_t blocks = len / h, shared = c->prefix_len / h;
    w->hash_ids = malloc((n * (size_t)blocks + 1) * sizeof *w->hash_ids);
    int64_t *prefix = malloc(n * sizeof *prefix);
    if (!w->hash_ids || !prefix) {
        free(prefix);
        return sim_fail(err, SIM_EINTERNAL, "out of memory for %zu requests' prefix ids", n);
    }
    for (size_t i = 0; i < n; i++)
        prefix[i] = (int64_t)i % c->num_prefixes;
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)sim_rng_int(rng, 0, (int64_t)i - 1);
        int64_t t = prefix[i - 1];
        prefix[i - 1] = prefix[j];
        prefix[j] = t;
    }
    w->hash_block_tokens = h;
    for (size_t i = 0; i < n; i++) {
        sim_request *r = &w->reqs[i];
        r->input_tokens = len;
        r->output_tokens = c->output_len;
        r->hash_off = w->n_hash_ids;
        r->n_hash = blocks;
        uint64_t owner = (uint64_t)c->num_prefixes + 1 + (uint64_t)i; /* its own blocks */
        for (int64_t k = 0; k < blocks; k++)
            w->hash_ids[w->n_hash_ids++] =
                ((k < shared ? (uint64_t)prefix[i] + 1 : owner) << 32) | (uint64_t)k;
    }
    free(prefix);
    return SIM_OK;
}

sim_status sim_workload_synthetic(const sim_synth_cfg *c, sim_workload *out, sim_err *err)
{
    memset(out, 0, sizeof *out);
    if (c->num_prompts < 1 || c->num_prompts > SIM_WORKLOAD_MAX_REQUESTS)
        return sim_fail(err, SIM_EINPUT,
                        "--num-prompts: value %lld, expected 1..%lld (the requests a serving run "
                        "holds in memory, about 160 bytes each: %lld is about %.1f GB)",
                        (long long)c->num_prompts, (long long)SIM_WORKLOAD_MAX_REQUESTS,
                        (long long)c->num_prompts, (double)c->num_prompts * 160.0 / 1e9);
    sim_status lst = sim_workload_check_lengths(c->input_len, c->output_len, c->range_ratio, err);
    if (lst)
        return lst;
    if (c->range_floor_on && !(c->range_floor >= 0.0 && c->range_floor <= 1.0))
        return sim_fail(err, SIM_EINPUT, "--random-range-floor: value %g, expected [0, 1]",
                        c->range_floor);
    if (!(c->request_rate > 0.0))
        return sim_fail(err, SIM_EINPUT, "--request-rate: value %g, expected > 0 or inf",
                        c->request_rate);
    if (c->schedule &&
        sim_workload_schedule_time(c->schedule, (double)c->num_prompts) > SIM_ARRIVAL_MAX_S)
        return sim_fail(err, SIM_EINPUT,
                        "--rate-schedule: %lld requests take past %g s, expected at most %g s",
                        (long long)c->num_prompts, SIM_ARRIVAL_MAX_S, SIM_ARRIVAL_MAX_S);
    if (!c->schedule && (double)c->num_prompts / c->request_rate > SIM_ARRIVAL_MAX_S)
        return sim_fail(err, SIM_EINPUT,
                        "--request-rate: value %g spreads %lld requests over %g s, expected at "
                        "most %g s (a rate of at least %g)",
                        c->request_rate, (long long)c->num_prompts,
                        (double)c->num_prompts / c->request_rate, SIM_ARRIVAL_MAX_S,
                        (double)c->num_prompts / SIM_ARRIVAL_MAX_S);
    if (!(c->burstiness > 0.0 && isfinite(c->burstiness)))
        return sim_fail(err, SIM_EINPUT, "--burstiness: value %g, expected > 0", c->burstiness);
    size_t n = (size_t)c->num_prompts;
    out->reqs = calloc(n, sizeof *out->reqs);
    /* a schedule's gaps are drawn at a unit rate, then mapped through it */
    const double rate = c->schedule ? 1.0 : c->request_rate;
    double *gaps = isfinite(rate) ? malloc(n * sizeof *gaps) : NULL;
    if (!out->reqs || (isfinite(rate) && !gaps)) {
        free(gaps);
        sim_workload_free(out);
        return sim_fail(err, SIM_EINTERNAL, "out of memory for %zu requests", n);
    }
    out->n = n;
    snprintf(out->source, sizeof out->source, "random");
    sim_rng rng;
    sim_rng_seed(&rng, c->seed);
    int64_t in_lo, in_hi, out_lo, out_hi;
    length_range(c->input_len, c->range_ratio, &in_lo, &in_hi);
    length_range(c->output_len, c->range_ratio, &out_lo, &out_hi);
    if (c->range_floor_on) {
        length_floor_range(c->input_len, c->range_floor, &in_lo, &in_hi);
        length_floor_range(c->output_len, c->range_floor, &out_lo, &out_hi);
    }
    if (c->input_lens) {
        /* the random lengths are still drawn (and replaced), so the arrivals that follow are
         * those of the same stream: replaying a synthetic run's own lengths reproduces it */
        for (size_t i = 0; i < n; i++) {
            sim_rng_int(&rng, in_lo, in_hi);
            sim_rng_int(&rng, out_lo, out_hi);
            out->reqs[i].input_tokens = c->input_lens[i];
            out->reqs[i].output_tokens = c->output_lens[i];
        }
    } else if (c->num_prefixes > 0) {
        sim_status st = prefix_repetition(c, &rng, out, err);
        if (st) {
            free(gaps);
            sim_workload_free(out);
            return st;
        }
    } else if (c->input_dist && c->output_dist) {
        for (size_t i = 0; i < n; i++) {
            out->reqs[i].input_tokens = sim_dataset_draw(c->input_dist, &rng);
            out->reqs[i].output_tokens = sim_dataset_draw(c->output_dist, &rng);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            out->reqs[i].input_tokens = sim_rng_int(&rng, in_lo, in_hi);
            out->reqs[i].output_tokens = sim_rng_int(&rng, out_lo, out_hi);
        }
    }
    for (size_t i = 0; i < n; i++)
        out->reqs[i].images = c->images_per_request;
    if (gaps) {
        /* gamma(shape B, scale 1 / (rate B)) has mean 1 / rate; rescale to exactly N / rate */
        double total = 0.0;
        for (size_t i = 0; i < n; i++)
            total += gaps[i] = sim_rng_gamma(&rng, c->burstiness, 1.0 / (rate * c->burstiness));
        double f = total > 0.0 ? ((double)n / rate) / total : 0.0;
        double t = 0.0;
        for (size_t i = 0; i < n; i++) {
            const double at = c->schedule ? sim_workload_schedule_time(c->schedule, t) : t;
            out->reqs[i].arrival_ns = (int64_t)llround(at * NS_PER_S);
            t += gaps[i] * f;
        }
    }
    free(gaps);
    return SIM_OK;
}
