/* run.c - static-batch simulation: one prefill step, then the decode steps. */
#include "run.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "pp.h"

sim_status sim_run_check(const sim_run_cfg *cfg, sim_err *err)
{
    sim_status st = sim_spec_check_deployment(cfg->spec, &cfg->step, err);
    if (st)
        return st;
    const sim_model *m = cfg->step.model;
    if (cfg->batch < 1 || cfg->input_len < 1 || cfg->output_len < 1)
        return sim_fail(err, SIM_EINPUT,
                        "--batch, --input-len, --output-len: values %lld, %lld, %lld, expected "
                        "each >= 1",
                        (long long)cfg->batch, (long long)cfg->input_len,
                        (long long)cfg->output_len);
    if (cfg->input_len + cfg->output_len > m->max_positions)
        return sim_fail(err, SIM_EINPUT,
                        "--input-len + --output-len: %lld + %lld = %lld tokens is past the context "
                        "of %s (max_position_embeddings %lld)",
                        (long long)cfg->input_len, (long long)cfg->output_len,
                        (long long)cfg->input_len + (long long)cfg->output_len, m->path,
                        (long long)m->max_positions);
    /* DeepEP's low-latency buffer: the prefill step of every prompt, a decode step of every
     * sequence (and its speculative tokens) */
    const double dec =
        (double)cfg->batch * (1.0 + (sim_spec_active(cfg->spec) ? cfg->spec->k : 0));
    if ((st = sim_step_check_a2a_tokens(&cfg->step, (double)cfg->batch * (double)cfg->input_len,
                                        true, "--batch x --input-len", err)) ||
        (st = sim_step_check_a2a_tokens(&cfg->step, dec, false, "--batch", err)))
        return st;
    if ((st = sim_mem_check_util(cfg->mem_util, err)))
        return st;
    sim_mem_report mem;
    sim_mem_extra extra = sim_spec_mem_extra(cfg->spec, &cfg->step);
    sim_mem_plan(&cfg->step, cfg->mem_util, &extra, cfg->batch, cfg->input_len, cfg->output_len,
                 &mem);
    if (!mem.fits)
        return sim_mem_fail(&mem, &cfg->step, err);
    return SIM_OK;
}

/* d, started afresh unless it holds this run's batch and prompt and no step past its output. */
static void decode_start(const sim_run_cfg *cfg, sim_run_decode *d, bool keep)
{
    if (keep && d->valid && d->batch == cfg->batch && d->input_len == cfg->input_len &&
        d->next <= cfg->output_len)
        return;
    memset(d, 0, sizeof *d);
    d->valid = true;
    d->batch = cfg->batch;
    d->input_len = cfg->input_len;
    d->next = 1;
}

/* Plain decoding: O-1 steps of one token per sequence, the context growing. With mean, through
 * cfg->decode when there is one: the steps it holds are taken, the rest priced after them
 * (run.h's sim_run_decode says why that is exact). Mean (when not NULL) is written whole: the
 * mean decode step, zeros when output_len == 1. */
static double plain_decode(const sim_run_cfg *cfg, sim_step_result *mean)
{
    sim_run_decode local;
    sim_run_decode *d = mean && cfg->decode ? cfg->decode : &local;
    decode_start(cfg, d, d != &local);
    /* the mean step: each step a memo hit after the first, whose context-free ops are summed a
     * run at a time (bit-identical to adding every step, step.h) */
    const bool pp = sim_pp_stages(&cfg->step) > 1;
    for (int64_t j = d->next; j < cfg->output_len; j++) {
        sim_seq_group g = {.count = cfg->batch, .q = 1, .c = cfg->input_len + j - 1, .logits = 1};
        const sim_step_result *step = sim_step_price_memo(&cfg->step, &g, 1, &d->memo);
        /* over pipeline stages, a steady round of micro-batches (pp.h) */
        d->total_ns += pp ? sim_pp_round_ns(&cfg->step, &g, 1, NULL, true) : step->t_ns;
        if (mean)
            sim_step_sum_add(&d->mean, step, d->memo.hit);
    }
    if (cfg->output_len > d->next)
        d->next = cfg->output_len;
    if (mean && cfg->output_len > 1) {
        *mean = *sim_step_sum_end(&d->mean);
        sim_step_scale(mean, 1.0 / (double)(cfg->output_len - 1));
    } else if (mean) {
        memset(mean, 0, sizeof *mean);
    }
    return d->total_ns;
}

/* Expected verify iterations to generate `tokens` tokens when each yields a + 1 (a accepted, the
 * target's own token) but never more than are left: E(r) = 1 + sum_a P(a) E(r - min(a + 1, r)),
 * E(0) = 0. Each output has whole iterations, so E(r) >= 1 for r >= 1: a short output cannot
 * take a fraction of a verify step (issue 33 D8). O(tokens x depth); the sum over r beyond
 * depth + 1 of an increment that has settled (E(r) - E(r - 1) constant to 1e-13) is closed. */
double sim_run_spec_iterations(const sim_spec *s, int64_t tokens)
{
    if (tokens <= 0)
        return 0.0;
    const int d = sim_spec_depth(s);
    double p[SIM_SPEC_MAX_DEPTH + 1]; /* P(a accepted) */
    for (int a = 0; a <= d; a++)
        p[a] = sim_spec_reach(s, a) - (a < d ? sim_spec_reach(s, a + 1) : 0.0);
    double e[SIM_SPEC_MAX_DEPTH + 2] = {0}; /* a ring of the last d + 2 values, e[r % (d + 2)] */
    const int ring = d + 2;
    double last = 0.0, step = 0.0;
    int settled = 0;
    for (int64_t r = 1; r <= tokens; r++) {
        double v = 1.0;
        for (int a = 0; a <= d; a++) {
            int64_t left = r - (a + 1);
            if (left > 0)
                v += p[a] * e[left % ring];
        }
        double inc = v - last;
        settled = r > ring && fabs(inc - step) < 1e-13 ? settled + 1 : 0;
        step = inc;
        e[r % ring] = v;
        last = v;
        if (settled > ring) /* the increment is the renewal rate from here on */
            return v + (double)(tokens - r) * step;
    }
    return last;
}

/* The step configuration speculative iterations run with: without asynchronous scheduling where
 * the engine turns it off under speculation (spec.h's sync_host). */
static sim_step_cfg spec_step(const sim_run_cfg *cfg, const sim_spec *s)
{
    sim_step_cfg sc = cfg->step;
    if (s->sync_host)
        sc.async_sched = false;
    return sc;
}

/* Speculative decoding in expected value: E verify iterations (sim_run_spec_iterations) of draft
 * + verify (+ a tree's mask and kernels), the context growing by the tokens per iteration, the
 * last, fractional part of E counted by its fraction (E >= 1 whole iteration). `s` is the spec
 * the batch runs (after a load rule). */
static double spec_decode(const sim_run_cfg *cfg, const sim_spec *s, sim_run_result *out)
{
    const double tokens = (double)(cfg->output_len - 1);
    const double iters = sim_run_spec_iterations(s, cfg->output_len - 1);
    const double per_iter = iters > 0.0 ? tokens / iters : 0.0;
    const int64_t full = (int64_t)floor(iters);
    double total = 0.0, draft = 0.0, verify = 0.0, weight_sum = 0.0;
    const sim_step_cfg sc = spec_step(cfg, s);
    const double tree = sim_spec_tree_ns(s, &sc, (double)cfg->batch);
    sim_step_result step;
    sim_seq_group scratch;
    sim_step_memo memo = {0};
    sim_spec_memo draft_memo = {0};
    for (int64_t j = 0; j <= full; j++) {
        double w = j < full ? 1.0 : iters - (double)full; /* the last one by its fraction */
        if (w <= 0.0)
            break;
        int64_t c = cfg->input_len + (int64_t)llround((double)j * per_iter);
        sim_seq_group v = {.count = cfg->batch, .q = s->k + 1, .c = c, .logits = s->k + 1};
        sim_seq_group d = {.count = cfg->batch, .q = s->k + 1, .c = c, .logits = 1};
        step = *sim_step_price_memo(&sc, &v, 1, &memo);
        double dn = sim_spec_draft_ns(s, &sc, NULL, 0, &d, 1, &scratch, &draft_memo);
        total += w * (step.t_ns + tree + dn);
        draft += w * dn;
        verify += w * (step.t_ns + tree);
        weight_sum += w;
        sim_step_scale(&step, w);
        sim_step_accumulate(&out->decode, &step);
    }
    if (weight_sum > 0.0) {
        sim_step_scale(&out->decode, 1.0 / weight_sum);
        out->spec_draft_ns = draft / weight_sum;
        out->spec_verify_ns = verify / weight_sum;
    }
    out->spec_tau = sim_spec_mean_tokens(s);
    out->spec_iterations = iters;
    out->spec_tokens_per_iteration = per_iter;
    out->decode_steps = (int64_t)ceil(iters);
    return total;
}

/* The power estimate of the run (power.h): the idle floor of every GPU held for the whole run,
 * and each step's energy above it on every GPU of the TP group (a pipeline's stages split the
 * step's work, so its energy is counted once per TP rank). */
static void run_energy(const sim_run_cfg *cfg, sim_run_result *out)
{
    const sim_hw *hw = cfg->step.hw;
    if (!sim_power_known(hw))
        return;
    const double steps =
        sim_spec_active(cfg->spec) ? out->spec_iterations : (double)out->decode_steps;
    const double active = (double)sim_step_gpus(&cfg->step) *
                          (sim_power_step_active_j(hw, cfg->step.prec.act, &out->prefill) +
                           steps * sim_power_step_active_j(hw, cfg->step.prec.act, &out->decode));
    const double gpus = (double)sim_pp_gpus(&cfg->step);
    out->power = sim_power_totals_of(hw->power.idle_w * gpus, active, out->e2e_ns * 1e-9, gpus,
                                     (double)(cfg->batch * cfg->output_len));
}

/* Decode time per generated token with speculation over plain decoding's for `batch` sequences at
 * context c (one iteration of each; > 1: speculation slower). */
static double spec_cost_ratio(const sim_run_cfg *cfg, const sim_spec *s, int64_t batch, int64_t c)
{
    sim_seq_group p = {.count = batch, .q = 1, .c = c, .logits = 1};
    sim_seq_group v = {.count = batch, .q = s->k + 1, .c = c, .logits = s->k + 1};
    sim_seq_group d = {.count = batch, .q = s->k + 1, .c = c, .logits = 1};
    sim_seq_group scratch;
    sim_step_result r;
    sim_step_price(&cfg->step, &p, 1, &r);
    double plain = r.t_ns;
    const sim_step_cfg sc = spec_step(cfg, s);
    sim_step_price(&sc, &v, 1, &r);
    double spec = r.t_ns + sim_spec_tree_ns(s, &sc, (double)batch) +
                  sim_spec_draft_ns(s, &sc, NULL, 0, &d, 1, &scratch, NULL);
    return spec / (plain * sim_spec_mean_tokens(s));
}

int64_t sim_run_spec_break_even(const sim_run_cfg *cfg, int64_t max_batch)
{
    const sim_spec *s = cfg->spec;
    if (!sim_spec_active(s))
        return 0;
    const int64_t c = cfg->input_len + (cfg->output_len - 1) / 2;
    if (spec_cost_ratio(cfg, s, 1, c) >= 1.0)
        return 1;
    int64_t lo = 1, hi = 2; /* pays at lo; find the first hi where it does not */
    while (hi <= max_batch && spec_cost_ratio(cfg, s, hi, c) < 1.0) {
        lo = hi;
        hi *= 2;
    }
    if (hi > max_batch) {
        if (lo == max_batch || spec_cost_ratio(cfg, s, max_batch, c) < 1.0)
            return 0;
        hi = max_batch;
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (spec_cost_ratio(cfg, s, mid, c) < 1.0)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* The break-even search stops at the largest batch that fits (at least 1). */
static int64_t break_even_cap(const sim_run_result *out)
{
    int64_t m = out->mem.max_batch;
    return m < 1 ? 1 : m > SIM_RUN_BREAK_EVEN_MAX ? SIM_RUN_BREAK_EVEN_MAX : m;
}

sim_seq_group sim_run_prefill_group(const sim_run_cfg *cfg)
{
    return (sim_seq_group){.count = cfg->batch,
                           .q = cfg->input_len,
                           .c = 0,
                           .logits = 1,
                           .images = cfg->images,
                           .image_w = cfg->image_w,
                           .image_h = cfg->image_h};
}

/* The prefill step into out->prefill (written whole) and its makespan, from cfg->decode when it
 * holds this prompt's (sim_run_decode says why that is exact). */
static double prefill(const sim_run_cfg *cfg, const sim_seq_group *g, sim_step_result *out)
{
    sim_run_decode *d = cfg->decode;
    if (d) {
        decode_start(cfg, d, true);
        if (d->has_prefill) {
            *out = d->prefill;
            return d->prefill_ns;
        }
    }
    /* Prefill runs eagerly: engines capture CUDA graphs for decode batches only. */
    sim_step_cfg pre = cfg->step;
    pre.eager = sim_step_eager(&cfg->step, true);
    sim_step_price(&pre, g, 1, out);
    /* over pipeline stages, the one-shot makespan of the prompt's micro-batches */
    const double ns =
        sim_pp_stages(&cfg->step) > 1 ? sim_pp_round_ns(&pre, g, 1, NULL, false) : out->t_ns;
    if (d) {
        d->prefill = *out;
        d->prefill_ns = ns;
        d->has_prefill = true;
    }
    return ns;
}

void sim_run_simulate(const sim_run_cfg *cfg, sim_run_result *out)
{
    /* every field but the two steps, each written whole below (18.6 KB of graph apiece) */
    static_assert(offsetof(sim_run_result, decode) ==
                      offsetof(sim_run_result, prefill) + sizeof out->prefill,
                  "sim_run_result's prefill and decode steps are adjacent");
    const size_t steps_at = offsetof(sim_run_result, prefill);
    const size_t steps_end = offsetof(sim_run_result, decode) + sizeof out->decode;
    memset(out, 0, steps_at);
    memset((char *)out + steps_end, 0, sizeof *out - steps_end);
    sim_mem_extra extra = sim_spec_mem_extra(cfg->spec, &cfg->step);
    sim_mem_plan(&cfg->step, cfg->mem_util, &extra, cfg->batch, cfg->input_len, cfg->output_len,
                 &out->mem);

    sim_seq_group g = sim_run_prefill_group(cfg);
    out->ttft_ns = prefill(cfg, &g, &out->prefill);
    if (sim_spec_active(cfg->spec)) {
        sim_seq_group scratch;
        out->ttft_ns += sim_spec_draft_ns(cfg->spec, &cfg->step, &g, 1, NULL, 0, &scratch, NULL);
    }

    /* a load rule drafts this batch a shorter chain, or nothing (spec.h) */
    sim_spec now;
    const sim_spec *s = cfg->spec;
    if (sim_spec_active(s)) {
        out->spec_depth = sim_spec_adapt_depth(s, cfg->batch);
        if (out->spec_depth != sim_spec_depth(s)) {
            now = *s;
            if (s->draft == &s->head)
                now.draft = &now.head;
            now.tree = sim_spec_chain(out->spec_depth);
            now.k = out->spec_depth;
            now.adapt.n = 0;
            s = &now;
        }
    }
    double decode_ns;
    if (sim_spec_active(s) && out->spec_depth > 0) {
        memset(&out->decode, 0, sizeof out->decode);
        decode_ns = spec_decode(cfg, s, out);
        double plain = plain_decode(cfg, NULL);
        out->spec_speedup = decode_ns > 0.0 ? plain / decode_ns : 1.0;
        out->spec_break_even_batch = sim_run_spec_break_even(cfg, break_even_cap(out));
    } else if (sim_spec_active(s)) { /* switched off at this batch */
        decode_ns = plain_decode(cfg, &out->decode);
        out->decode_steps = cfg->output_len - 1;
        out->spec_speedup = 1.0;
        out->spec_tau = out->spec_tokens_per_iteration = 1.0;
        out->spec_iterations = (double)(cfg->output_len - 1);
        out->spec_break_even_batch = sim_run_spec_break_even(cfg, break_even_cap(out));
    } else {
        decode_ns = plain_decode(cfg, &out->decode);
        out->decode_steps = cfg->output_len - 1;
    }
    if (cfg->output_len > 1)
        out->tpot_ns = decode_ns / (double)(cfg->output_len - 1);
    out->e2e_ns = out->ttft_ns + decode_ns;
    out->output_throughput = (double)(cfg->batch * cfg->output_len) / (out->e2e_ns * 1e-9);
    run_energy(cfg, out);
}

sim_status sim_run_check_result(const sim_run_result *r, sim_err *err)
{
    const struct {
        const char *name;
        double v;
        bool zero_ok;
    } q[] = {{"TTFT", r->ttft_ns, false},
             {"TPOT", r->tpot_ns, true},
             {"E2E latency", r->e2e_ns, false},
             {"output throughput", r->output_throughput, false}};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        if (!(isfinite(q[i].v) && (q[i].v > 0.0 || (q[i].zero_ok && q[i].v == 0.0))))
            return sim_fail(err, SIM_EINTERNAL,
                            "run's %s is %g, not a finite %s number (a bug: every format the "
                            "steps compute in was checked)",
                            q[i].name, q[i].v, q[i].zero_ok ? "non-negative" : "positive");
    return SIM_OK;
}
