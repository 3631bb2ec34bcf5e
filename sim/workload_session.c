/* workload_session.c - multi-turn sessions as a workload (declared in workload.h). */
#include "workload.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "workload_internal.h"

#define NS_PER_S 1e9
#define THINK_MAX_S 1e6

static double think_draw(const sim_think *t, sim_rng *rng)
{
    switch (t->kind) {
    case SIM_THINK_EXP: /* inverse CDF; 1 - u in (0, 1] */
        return -t->a_s * log(1.0 - sim_rng_uniform(rng));
    case SIM_THINK_UNIFORM:
        return t->a_s + (t->b_s - t->a_s) * sim_rng_uniform(rng);
    case SIM_THINK_FIXED:
    default:
        return t->a_s;
    }
}

static bool num(const char *s, double *v, char **end)
{
    errno = 0;
    *v = strtod(s, end);
    return *end != s && !errno && !strpbrk(s, "xX") && isfinite(*v) && *v >= 0.0 &&
           *v <= THINK_MAX_S;
}

sim_status sim_workload_think_parse(const char *s, sim_think *t, sim_err *err)
{
    char *end = NULL;
    bool ok;
    *t = (sim_think){SIM_THINK_FIXED, 0.0, 0.0};
    if (strncmp(s, "exp:", 4) == 0) {
        t->kind = SIM_THINK_EXP;
        ok = num(s + 4, &t->a_s, &end) && !*end;
    } else if (strncmp(s, "uniform:", 8) == 0) {
        t->kind = SIM_THINK_UNIFORM;
        ok = num(s + 8, &t->a_s, &end) && *end == ':' && num(end + 1, &t->b_s, &end) && !*end &&
             t->a_s <= t->b_s;
    } else {
        ok = num(s, &t->a_s, &end) && !*end;
    }
    if (!ok)
        return sim_fail(err, SIM_EINPUT,
                        "--think-time-s: value '%s', expected S, exp:MEAN or uniform:LO:HI "
                        "(seconds, 0..%g, LO <= HI)",
                        s, THINK_MAX_S);
    return SIM_OK;
}

static int64_t draw_len(sim_rng *rng, int64_t len, double ratio)
{
    int64_t lo = (int64_t)floor((double)len * (1.0 - ratio));
    int64_t hi = (int64_t)ceil((double)len * (1.0 + ratio));
    if (lo < 1)
        lo = 1;
    if (hi < lo)
        hi = lo;
    return sim_rng_int(rng, lo, hi);
}

sim_status sim_workload_sessions(const sim_session_cfg *c, sim_workload *out, sim_err *err)
{
    memset(out, 0, sizeof *out);
    if (c->sessions < 1 || c->turns < 1 ||
        (double)c->sessions * (double)c->turns > (double)SIM_WORKLOAD_MAX_REQUESTS)
        return sim_fail(err, SIM_EINPUT,
                        "--sessions x --turns-per-session: %lld x %lld requests, expected each "
                        ">= 1 and at most %lld requests",
                        (long long)c->sessions, (long long)c->turns,
                        (long long)SIM_WORKLOAD_MAX_REQUESTS);
    sim_status lst = sim_workload_check_lengths(c->input_len, c->output_len, c->range_ratio, err);
    if (lst)
        return lst;
    if (c->hash_block_tokens < 1)
        return sim_fail(err, SIM_EINTERNAL, "sessions: hash block of %lld tokens, expected >= 1",
                        (long long)c->hash_block_tokens);
    if (!(c->request_rate > 0.0) || (double)c->sessions / c->request_rate > SIM_ARRIVAL_MAX_S)
        return sim_fail(err, SIM_EINPUT,
                        "--request-rate: value %g for %lld sessions, expected > 0 (or inf) and "
                        "at most %g s of arrivals",
                        c->request_rate, (long long)c->sessions, SIM_ARRIVAL_MAX_S);
    if (!(c->burstiness > 0.0 && isfinite(c->burstiness)))
        return sim_fail(err, SIM_EINPUT, "--burstiness: value %g, expected > 0", c->burstiness);
    const size_t S = (size_t)c->sessions, D = (size_t)c->turns, n = S * D;
    sim_rng rng;
    sim_rng_seed(&rng, c->seed);
    out->reqs = calloc(n, sizeof *out->reqs);
    out->links = calloc(n, sizeof *out->links);
    double *start = calloc(S, sizeof *start);
    if (!out->reqs || !out->links || !start) {
        free(start);
        sim_workload_free(out);
        return sim_fail(err, SIM_EINTERNAL, "out of memory for %zu requests", n);
    }
    out->n = n;
    out->sessions = c->sessions;
    out->hash_block_tokens = c->hash_block_tokens;
    out->hash_covers_output = true;
    snprintf(out->source, sizeof out->source, "sessions");
    /* lengths first (turn by turn), then think times, then the sessions' starts */
    size_t ids = 0;
    for (size_t s = 0; s < S; s++) {
        int64_t context = 0;
        for (size_t t = 0; t < D; t++) {
            sim_request *q = &out->reqs[s * D + t];
            q->input_tokens = context + draw_len(&rng, c->input_len, c->range_ratio);
            q->output_tokens = draw_len(&rng, c->output_len, c->range_ratio);
            context = q->input_tokens + q->output_tokens;
            if (context > ((int64_t)1 << 26)) {
                free(start);
                sim_workload_free(out);
                return sim_fail(err, SIM_EINPUT,
                                "--turns-per-session: session %zu's context passes 2^26 tokens "
                                "by turn %zu; expected fewer turns or shorter ones",
                                s + 1, t + 1);
            }
            /* the blocks of its prompt and output whose KV is computed (all but the last token) */
            q->n_hash = (context - 1) / c->hash_block_tokens;
        }
        ids += (size_t)out->reqs[s * D + D - 1].n_hash; /* every turn's ids lead the last's */
    }
    out->hash_ids = malloc((ids ? ids : 1) * sizeof *out->hash_ids);
    if (!out->hash_ids) {
        free(start);
        sim_workload_free(out);
        return sim_fail(err, SIM_EINTERNAL, "out of memory for %zu prefix-cache ids", ids);
    }
    size_t off = 0;
    for (size_t s = 0; s < S; s++) {
        const size_t base = off;
        for (int64_t k = 0; k < out->reqs[s * D + D - 1].n_hash; k++)
            out->hash_ids[off++] = ((uint64_t)(s + 1) << 32) | (uint64_t)k;
        for (size_t t = 0; t < D; t++) {
            const size_t i = s * D + t;
            out->reqs[i].hash_off = base;
            sim_session_link *l = &out->links[i];
            l->session = (int64_t)s + 1;
            l->turn = (int64_t)t;
            l->follows = t > 0;
            l->follow = t + 1 < D ? (int64_t)(i + 1) : 0;
            l->think_ns = (int64_t)llround(think_draw(&c->think, &rng) * NS_PER_S);
        }
    }
    out->n_hash_ids = off;
    if (isfinite(c->request_rate)) {
        double total = 0.0;
        for (size_t s = 0; s < S; s++)
            total += start[s] =
                sim_rng_gamma(&rng, c->burstiness, 1.0 / (c->request_rate * c->burstiness));
        double f = total > 0.0 ? ((double)S / c->request_rate) / total : 0.0, t = 0.0;
        for (size_t s = 0; s < S; s++) {
            const double gap = start[s] * f;
            start[s] = t;
            t += gap;
        }
    }
    for (size_t i = 0; i < n; i++)
        out->reqs[i].arrival_ns = (int64_t)llround(start[i / D] * NS_PER_S);
    free(start);
    return SIM_OK;
}

sim_status sim_workload_link_sessions(sim_workload *w, const uint64_t *key, sim_err *err)
{
    const size_t n = w->n, cap = 2 * (n ? n : 1);
    size_t slots = 1;
    while (slots < cap)
        slots *= 2;
    /* open addressing: a key's slot holds 1 + the index of its session's last turn so far */
    uint64_t *k = calloc(slots, sizeof *k);
    size_t *last = calloc(slots, sizeof *last);
    w->links = calloc(n ? n : 1, sizeof *w->links);
    if (!k || !last || !w->links) {
        free(k);
        free(last);
        free(w->links);
        w->links = NULL;
        return sim_fail(err, SIM_EINTERNAL, "%s: out of memory for sessions", w->source);
    }
    w->sessions = 0;
    for (size_t i = 0; i < n; i++) {
        sim_session_link *l = &w->links[i];
        size_t h = (size_t)((key[i] * 0x9e3779b97f4a7c15ULL) >> 17) & (slots - 1);
        while (key[i] && k[h] && k[h] != key[i])
            h = (h + 1) & (slots - 1);
        if (key[i] && k[h] == key[i]) {
            sim_session_link *prev = &w->links[last[h] - 1];
            prev->follow = (int64_t)i;
            l->session = prev->session;
            l->turn = prev->turn + 1;
            l->follows = true;
        } else {
            l->session = ++w->sessions;
        }
        if (key[i]) {
            k[h] = key[i];
            last[h] = i + 1;
        }
    }
    free(k);
    free(last);
    return SIM_OK;
}

int64_t sim_workload_turn_release(const sim_workload *w, size_t id, int64_t finish_ns,
                                  int64_t not_before_ns)
{
    const sim_session_link *lk = &w->links[id];
    int64_t t = finish_ns + lk->think_ns;
    const int64_t own = w->reqs[lk->follow].arrival_ns;
    t = t > own ? t : own;
    return t > not_before_ns ? t : not_before_ns;
}

static bool turn_before(const sim_session_turn *a, const sim_session_turn *b)
{
    return a->t_ns != b->t_ns ? a->t_ns < b->t_ns : a->id < b->id;
}

static void turn_swap(sim_session_turn *h, size_t i, size_t j)
{
    sim_session_turn y = h[i];
    h[i] = h[j];
    h[j] = y;
}

void sim_workload_turn_push(sim_session_turn *h, size_t *n, sim_session_turn x)
{
    size_t k = (*n)++;
    h[k] = x;
    for (; k > 0 && turn_before(&h[k], &h[(k - 1) / 2]); k = (k - 1) / 2)
        turn_swap(h, k, (k - 1) / 2);
}

sim_session_turn sim_workload_turn_pop(sim_session_turn *h, size_t *n)
{
    sim_session_turn top = h[0];
    h[0] = h[--*n];
    for (size_t k = 0;;) {
        size_t m = k, a = 2 * k + 1, b = a + 1;
        if (a < *n && turn_before(&h[a], &h[m]))
            m = a;
        if (b < *n && turn_before(&h[b], &h[m]))
            m = b;
        if (m == k)
            return top;
        turn_swap(h, k, m);
        k = m;
    }
}
