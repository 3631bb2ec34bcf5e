/* test_spec.c - speculative decoding: acceptance model, draft cost, memory, run and serve. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"
#include "metrics.h"
#include "run.h"
#include "spec.h"

static const sim_prec BF16 = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false, false};

static void test_acceptance_length(void **state)
{
    (void)state;
    /* tau = (1 - a^(K+1)) / (1 - a): a = 0.8, K = 4: (1 - 0.32768) / 0.2 = 3.3616 */
    assert_near(sim_spec_tau(0.8, 4), 3.3616, 1e-12);
    assert_near(sim_spec_tau(0.0, 4), 1.0, 0);
    assert_near(sim_spec_tau(1.0, 4), 5.0, 0);
    assert_near(sim_spec_tau(0.5, 1), 1.5, 1e-12);
    assert_near(sim_spec_alpha_for_tau(3.3616, 4), 0.8, 1e-9);
    assert_near(sim_spec_alpha_for_tau(5.0, 4), 1.0, 1e-9);
    /* draws: mean accepted + 1 over many verify steps is tau */
    sim_spec s = {.method = SIM_SPEC_NGRAM, .k = 4, .alpha = 0.8};
    sim_rng rng;
    sim_rng_seed(&rng, 1);
    double sum = 0;
    for (int i = 0; i < 200000; i++)
        sum += 1 + sim_spec_draw(&s, &rng, 4);
    assert_near(sum / 200000, 3.3616, 0.01);
}

static void test_init_errors(void **state)
{
    (void)state;
    sim_model t = tu_model("llama-3.1-8b"), d = tu_model("llama-3.2-1b");
    sim_spec s;
    sim_err err = {{0}};
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_NGRAM, 0, 0.5, -1, &t, NULL, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--num-speculative-tokens"));
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_NGRAM, 4, 0.5, 2.0, &t, NULL, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "exactly one"));
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_NGRAM, 4, -1, -1, &t, NULL, &err), SIM_EINPUT);
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_NGRAM, 4, -1, 6.0, &t, NULL, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--spec-acceptance-length"));
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_DRAFT, 4, 0.5, -1, &t, NULL, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--spec-model"));
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_EAGLE, 4, 0.5, -1, &t, &d, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--spec-model"));
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_MTP, 4, 0.5, -1, &t, NULL, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "num_nextn_predict_layers"));
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_DRAFT, 4, -1, 3.0, &t, &d, &err), SIM_OK);
    assert_near(sim_spec_tau(s.alpha, 4), 3.0, 1e-9);
    /* a draft with another tokenizer */
    sim_model l2 = tu_model("llama-2-7b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = {.model = &t, .hw = &hw, .tp = 1, .prec = BF16};
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_DRAFT, 4, 0.5, -1, &t, &l2, &err), SIM_OK);
    assert_int_equal(sim_spec_check(&s, &c, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "vocab_size"));
    /* mtp uses the model's own MTP layers */
    t.mtp_layers = 2;
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_MTP, 2, 0.7, -1, &t, NULL, &err), SIM_OK);
    assert_int_equal(s.head.layers, 2);
}

static void test_memory(void **state)
{
    (void)state;
    sim_model t = tu_model("llama-3.1-8b"), d = tu_model("llama-3.2-1b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = {.model = &t, .hw = &hw, .tp = 1, .prec = BF16};
    sim_spec s;
    sim_err err = {{0}};
    /* draft: all 1,235,814,400 parameters of Llama-3.2-1B in bf16; its KV 16 x 2 x 8 x 64 x 2 */
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_DRAFT, 4, 0.7, -1, &t, &d, &err), SIM_OK);
    sim_mem_extra x = sim_spec_mem_extra(&s, &c);
    assert_near(x.weight_bytes, 2.0 * 1235814400.0, 1e-12);
    assert_near(x.kv_bytes_per_token, 32768.0, 0);
    assert_int_equal(x.kv_slots_per_seq, 4);
    /* eagle: one layer of the 8B (218,112,000 parameters) and its KV, 2 x 8 x 128 x 2, and
     * EAGLE-1's 8192 x 4096 fc (33,554,432 parameters, vLLM llama_eagle.py) */
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_EAGLE, 4, 0.7, -1, &t, NULL, &err), SIM_OK);
    x = sim_spec_mem_extra(&s, &c);
    assert_near(x.weight_bytes, 2.0 * (218112000.0 + 33554432.0), 1e-12);
    assert_near(x.kv_bytes_per_token, 4096.0, 0);
    /* medusa, 4 heads of (4096^2 + 128256 x 4096) bf16 parameters, no KV */
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_MEDUSA, 4, 0.7, -1, &t, NULL, &err), SIM_OK);
    x = sim_spec_mem_extra(&s, &c);
    assert_near(x.weight_bytes, 4.0 * (16777216.0 + 525336576.0) * 2.0, 1e-12);
    assert_near(x.kv_bytes_per_token, 0.0, 0);
    /* ngram: only the K verify slots */
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_NGRAM, 4, 0.7, -1, &t, NULL, &err), SIM_OK);
    x = sim_spec_mem_extra(&s, &c);
    assert_near(x.weight_bytes, 0.0, 0);
    assert_int_equal(x.kv_slots_per_seq, 4);
}

/* run with and without speculation; returns the spec run, fills *plain */
static sim_run_result *run_spec(const sim_model *t, const sim_hw *hw, const sim_spec *s,
                                int64_t batch, sim_run_result *plain)
{
    sim_run_cfg c = {.step = {.model = t,
                              .hw = hw,
                              .tp = 1,
                              .prec = BF16,
                              .iteration_overhead_ns = 1e6,
                              .request_overhead_ns = 1e4},
                     .batch = batch,
                     .input_len = 512,
                     .output_len = 257,
                     .mem_util = 0.9,
                     .spec = s};
    sim_err err = {{0}};
    if (sim_run_check(&c, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    sim_run_result *r = calloc(1, sizeof *r);
    sim_run_simulate(&c, r);
    if (plain) {
        c.spec = NULL;
        sim_run_simulate(&c, plain);
    }
    return r;
}

static void test_run_speedups(void **state)
{
    (void)state;
    sim_model t = tu_model("llama-3.1-8b"), d = tu_model("llama-3.2-1b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_spec s;
    sim_err err = {{0}};
    sim_run_result *plain = calloc(1, sizeof *plain);
    /* acceptance length 1: every verify step does the work of K + 1 tokens for one, and the draft
     * costs extra: slower than no speculation */
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_DRAFT, 4, 0.0, -1, &t, &d, &err), SIM_OK);
    sim_run_result *r = run_spec(&t, &hw, &s, 1, plain);
    assert_true(r->tpot_ns > plain->tpot_ns);
    assert_true(r->spec_speedup < 1.0);
    free(r);
    /* full acceptance at batch 1, no draft compute: (K+1) = 5x fewer target steps, each a verify
     * of 5 tokens that costs about one decode step (memory-bound): speed-up just under 5 */
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_NGRAM, 4, 1.0, -1, &t, NULL, &err), SIM_OK);
    r = run_spec(&t, &hw, &s, 1, plain);
    assert_near(r->spec_tau, 5.0, 0);
    assert_between(r->spec_speedup, 4.8, 5.0);
    /* 256 tokens at 5 per verify step: 51 full ones and one more for the last token (whole
     * iterations, issue 33 D8), not 256 / 5 = 51.2 */
    assert_near(r->spec_iterations, 52.0, 1e-12);
    free(r);
    /* with a draft model, minus the draft's cost: 5 x TPOT_plain / (draft + verify) */
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_DRAFT, 4, 1.0, -1, &t, &d, &err), SIM_OK);
    r = run_spec(&t, &hw, &s, 1, plain);
    double expect = 5.0 * plain->tpot_ns / (r->spec_draft_ns + r->spec_verify_ns);
    assert_near(r->spec_speedup, expect, 0.02);
    /* and the part that is physics: a 5-token verify at batch 1 is memory-bound, so it costs
     * about one plain decode step (the weights are read once either way) */
    assert_near(r->spec_verify_ns, plain->tpot_ns, 0.01);
    assert_true(r->spec_speedup < 4.0 && r->spec_speedup > 1.5);
    assert_true(r->ttft_ns > plain->ttft_ns); /* the draft prefills the prompt too */
    free(r);
    free(plain);
}

static void test_speedup_shrinks_with_batch(void **state)
{
    (void)state;
    /* verifying K + 1 tokens per sequence multiplies the GEMMs' tokens by K + 1: free while
     * decode is memory-bound, paid in full once the batch makes it compute-bound */
    sim_model t = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_spec s;
    sim_err err = {{0}};
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_NGRAM, 4, 0.8, -1, &t, NULL, &err), SIM_OK);
    const int64_t batches[] = {1, 16, 64, 160};
    double prev = 1e9;
    for (int i = 0; i < 4; i++) {
        sim_run_result *r = run_spec(&t, &hw, &s, batches[i], NULL);
        assert_true(r->spec_speedup < prev);
        prev = r->spec_speedup;
        free(r);
    }
    assert_true(prev < 2.0); /* still above 1 at batch 160: KV reads amortize over K + 1 */
}

static void test_draft_lowers_largest_batch(void **state)
{
    (void)state;
    sim_model t = tu_model("llama-3.1-8b"), d = tu_model("llama-3.2-1b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_spec s;
    sim_err err = {{0}};
    sim_run_result *plain = calloc(1, sizeof *plain);
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_DRAFT, 4, 0.7, -1, &t, &d, &err), SIM_OK);
    sim_run_result *r = run_spec(&t, &hw, &s, 1, plain);
    /* 2.5 GB more weights and 25% more KV per token (32 KiB on 128 KiB) */
    assert_true(r->mem.max_batch < plain->mem.max_batch);
    assert_between((double)r->mem.max_batch / (double)plain->mem.max_batch, 0.7, 0.85);
    /* room 79.6 GiB x 0.9 - 16,060,522,496 weights - 1 GiB = 59,788,599,951 B;
     * plain: 769 x 131,072 KV + 512 x 102,400 workspace + 128,256 x 4 logits = 153,736,192 B per
     *   sequence -> 388.9 -> 388;
     * draft: (room - 2 x 1,235,814,400 draft weights) / (773 x 163,840 + 52,428,800 + 513,024 =
     *   179,590,144) = 319.15 -> 319 */
    assert_int_equal(plain->mem.max_batch, 388);
    assert_int_equal(r->mem.max_batch, 319);
    free(r);
    free(plain);
}

/* A vLLM-default engine (256 sequences, 8192 tokens, chunked prefill, 1 ms + 10 us of host
 * work) speculating with `s` (K = s->k) on one GPU. */
static sim_engine_cfg spec_engine(const sim_model *t, const sim_hw *hw, const sim_spec *s)
{
    return (sim_engine_cfg){.step = {.model = t,
                                     .hw = hw,
                                     .tp = 1,
                                     .prec = BF16,
                                     .iteration_overhead_ns = 1e6,
                                     .request_overhead_ns = 1e4},
                            .sched = {.max_num_seqs = 256,
                                      .max_num_batched_tokens = 8192,
                                      .chunked_prefill = true,
                                      .spec_tokens = s->k},
                            .block_size = 16,
                            .mem_util = 0.9,
                            .spec = s};
}

static void test_serve_acceptance(void **state)
{
    (void)state;
    sim_model t = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_spec s;
    sim_err err = {{0}};
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_EAGLE, 3, -1, 2.6, &t, NULL, &err), SIM_OK);
    sim_engine_cfg cfg = spec_engine(&t, &hw, &s);
    cfg.seed = 11;
    sim_synth_cfg sc = {.num_prompts = 200,
                        .input_len = 256,
                        .output_len = 256,
                        .request_rate = 10.0,
                        .burstiness = 1.0,
                        .seed = 5};
    sim_workload w;
    assert_int_equal(sim_workload_synthetic(&sc, &w, &err), SIM_OK);
    assert_int_equal(sim_engine_check(&cfg, &w, &err), SIM_OK);
    sim_engine_result r;
    assert_int_equal(sim_engine_run(&cfg, &w, &r, &err), SIM_OK);
    sim_serve_metrics m;
    sim_slo none = {{0}};
    assert_int_equal(sim_metrics_compute(&r, &none, &m), SIM_OK);
    /* 200 x 255 tokens / 2.6 per verify: ~19,600 verify steps; measured mean within 3% */
    assert_true(r.spec_verifies >= 10000);
    assert_near((double)r.spec_verifies, 200.0 * 255 / 2.6, 0.03); /* 19,615 */
    assert_near(m.spec_acceptance_length, 2.6, 0.03);
    assert_true(m.spec_draft_time_fraction > 0.0 && m.spec_draft_time_fraction < 0.5);
    /* every token still comes out exactly once; chunks of several tokens: fewer ITL samples
     * than tokens, and mean ITL above mean TPOT */
    for (size_t i = 0; i < r.n; i++)
        assert_int_equal(r.seqs[i].generated, 256);
    assert_true(r.itl.n < 200 * 255);
    assert_true(m.dist[SIM_M_ITL].mean > 1.5 * m.dist[SIM_M_TPOT].mean);
    sim_engine_result_free(&r);
    sim_workload_free(&w);
}

static void test_draft_memo_matches(void **state)
{
    (void)state;
    /* the draft's steps through memos price exactly as afresh, iteration after iteration, with
     * and without prefill chunks, the verifying batch growing and shrinking */
    sim_model t = tu_model("llama-3.1-8b"), d = tu_model("llama-3.2-1b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = {.model = &t,
                      .hw = &hw,
                      .tp = 1,
                      .prec = BF16,
                      .overlap = 0.2,
                      .iteration_overhead_ns = 1e6,
                      .request_overhead_ns = 1e4};
    sim_err err = {{0}};
    const sim_spec_method methods[] = {SIM_SPEC_DRAFT, SIM_SPEC_EAGLE, SIM_SPEC_MEDUSA};
    for (int mi = 0; mi < 3; mi++) {
        for (int eager = 0; eager < 2; eager++) {
            sim_spec s;
            assert_int_equal(sim_spec_init(&s, methods[mi], 5, 0.7, -1, &t,
                                           methods[mi] == SIM_SPEC_DRAFT ? &d : NULL, &err),
                             SIM_OK);
            c.eager = eager;
            sim_spec_memo *memo = calloc(1, sizeof *memo);
            sim_seq_group pre[2], dec[3], scratch[5];
            for (int it = 0; it < 30; it++) {
                size_t n_pre = it % 4 == 0 ? 2 : it % 5 == 0 ? 1 : 0;
                size_t n_dec = it % 9 == 0 ? 0 : 1 + (size_t)(it / 10);
                for (size_t i = 0; i < n_pre; i++)
                    pre[i] = (sim_seq_group){
                        .count = 1, .q = 100 + 37 * it, .c = 10 * it, .logits = i == 0};
                for (size_t i = 0; i < n_dec; i++)
                    dec[i] = (sim_seq_group){.count = 4 + (int64_t)i, .q = 6, .c = 500 + 3 * it};
                double a = sim_spec_draft_ns(&s, &c, pre, n_pre, dec, n_dec, scratch, NULL);
                double b = sim_spec_draft_ns(&s, &c, pre, n_pre, dec, n_dec, scratch, memo);
                assert_true(a == b);
                assert_true(n_dec == 0 || a > 0.0);
            }
            free(memo);
        }
    }
}

/* The draft's steps of one iteration priced one by one, each in the launch mode given. */
static double draft_by_hand(const sim_spec *s, const sim_step_cfg *target, const sim_seq_group *pre,
                            const sim_seq_group *dec, const bool *eager)
{
    sim_step_cfg d = *target;
    d.model = s->draft;
    d.iteration_overhead_ns = d.request_overhead_ns = 0.0;
    double total = 0.0;
    sim_step_result r;
    for (int j = 0; j < s->k; j++) {
        /* the first pass runs over the K + 1 verified tokens (padded), logits at the last */
        sim_seq_group g[2] = {
            *pre, {.count = dec->count, .q = j == 0 ? s->k + 1 : 1, .c = dec->c + j, .logits = 1}};
        d.eager = eager[j];
        sim_step_price(&d, j == 0 ? g : g + 1, j == 0 ? 2 : 1, &r);
        /* plus the head's own input projection over the pass's tokens (the prompt chunk's, with
         * its logits row, included in the first) */
        double tokens = (double)g[1].count * (double)g[1].q, rows = (double)g[1].count;
        if (j == 0) {
            tokens += (double)pre->count * (double)pre->q;
            rows += (double)pre->count * (double)pre->logits;
        }
        total += r.t_ns + sim_spec_head_extra_ns(s, &d, tokens, rows, j == 0);
    }
    return total;
}

static void test_draft_launch_modes(void **state)
{
    (void)state;
    /* the rule: steps with prefill run eagerly, decode-only steps replay CUDA graphs unless
     * --enforce-eager */
    sim_model t = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = {.model = &t, .hw = &hw, .tp = 1, .prec = BF16};
    assert_false(sim_step_eager(&c, false));
    assert_true(sim_step_eager(&c, true));
    sim_spec s;
    sim_err err = {{0}};
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_EAGLE, 4, 0.7, -1, &t, NULL, &err), SIM_OK);
    /* a mixed iteration: a prompt chunk and 8 verifying sequences. Only the draft's first step
     * carries the chunk and runs eagerly; steps 2..4 are decode-only, from graphs */
    sim_seq_group pre = {.count = 1, .q = 700, .c = 0, .logits = 1};
    sim_seq_group dec = {.count = 8, .q = 5, .c = 900};
    sim_seq_group scratch[2];
    const bool mixed[4] = {true, false, false, false}, all[4] = {true, true, true, true};
    double got = sim_spec_draft_ns(&s, &c, &pre, 1, &dec, 1, scratch, NULL);
    assert_true(got == draft_by_hand(&s, &c, &pre, &dec, mixed));
    assert_true(got < draft_by_hand(&s, &c, &pre, &dec, all));
    /* --enforce-eager: every step eager */
    c.eager = true;
    assert_true(sim_step_eager(&c, false));
    got = sim_spec_draft_ns(&s, &c, &pre, 1, &dec, 1, scratch, NULL);
    assert_true(got == draft_by_hand(&s, &c, &pre, &dec, all));
}

typedef struct mixed_watch {
    int64_t iterations, index; /* index: the first mixed iteration (1-based), 0 before */
    double draft_ns;
} mixed_watch;

static void watch_mixed(void *ctx, const sim_iter_info *it)
{
    mixed_watch *w = ctx;
    w->iterations++;
    if (w->index == 0 && it->prefill_tokens > 0 && it->decode_tokens > 0) {
        w->index = w->iterations;
        w->draft_ns = it->draft_ns;
    }
}

static void test_serve_draft_launch_modes(void **state)
{
    (void)state;
    /* in serve, an iteration with a prompt chunk runs the target eagerly, but the draft's
     * decode-only steps still replay graphs: the engine hands the draft the configuration as
     * given, not the iteration's launch mode */
    sim_model t = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_spec s;
    sim_err err = {{0}};
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_EAGLE, 3, 0.0, -1, &t, NULL, &err), SIM_OK);
    mixed_watch mw = {0};
    sim_engine_observer obs = {.ctx = &mw, .iteration = watch_mixed};
    sim_engine_cfg cfg = spec_engine(&t, &hw, &s);
    cfg.sched.max_num_seqs = 8;
    cfg.observer = &obs;
    /* request 0 decodes when request 1's prompt arrives; nothing is accepted (alpha 0), so
     * request 0 advances one token per iteration: at iteration m >= 2 its context is 100 + m - 2 */
    sim_request reqs[2] = {{.arrival_ns = 0, .input_tokens = 100, .output_tokens = 200},
                           {.arrival_ns = 50000000, .input_tokens = 300, .output_tokens = 2}};
    sim_workload w = {.reqs = reqs, .n = 2, .source = "test"};
    assert_int_equal(sim_engine_check(&cfg, &w, &err), SIM_OK);
    sim_engine_result r;
    assert_int_equal(sim_engine_run(&cfg, &w, &r, &err), SIM_OK);
    assert_true(mw.index >= 2);
    sim_seq_group pre = {.count = 1, .q = 300, .c = 0, .logits = 1};
    sim_seq_group dec = {.count = 1, .q = 4, .c = 100 + mw.index - 2, .logits = 4};
    sim_seq_group scratch[2];
    assert_true(mw.draft_ns == sim_spec_draft_ns(&s, &cfg.step, &pre, 1, &dec, 1, scratch, NULL));
    sim_step_cfg forced = cfg.step;
    forced.eager = true;
    assert_true(mw.draft_ns < sim_spec_draft_ns(&s, &forced, &pre, 1, &dec, 1, scratch, NULL));
    sim_engine_result_free(&r);
}

/* Issue 33 D8: one output token takes one whole verify step. Before, (O - 1) / tau = 1 / 2.95
 * of a verify step was charged for it, a speed-up of ~2.9x on a token that cannot come faster
 * than one target forward (the weights are read once per forward either way). Now the speed-up
 * of a 2-token output (1 decode token) is at most 1, and for any O at most the weights-read
 * bound: (O - 1) tokens over at least ceil((O - 1) / (K + 1)) verify steps. */
static void test_short_output_whole_steps(void **state)
{
    (void)state;
    sim_model t = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_spec s;
    sim_err err = {{0}};
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_NGRAM, 3, 0.8, -1, &t, NULL, &err), SIM_OK);
    const int64_t outs[] = {2, 3, 5, 9};
    for (int i = 0; i < 4; i++) {
        sim_run_cfg c = {.step = {.model = &t, .hw = &hw, .tp = 1, .prec = BF16},
                         .batch = 1,
                         .input_len = 512,
                         .output_len = outs[i],
                         .mem_util = 0.9,
                         .spec = &s};
        assert_int_equal(sim_run_check(&c, &err), SIM_OK);
        sim_run_result r;
        sim_run_simulate(&c, &r);
        double tokens = (double)(outs[i] - 1);
        double fewest = ceil(tokens / 4.0); /* K + 1 = 4 tokens per step at most */
        assert_true(r.spec_iterations >= fewest);
        assert_true(r.spec_speedup <= tokens / fewest + 1e-9);
        if (outs[i] == 2) {
            assert_near(r.spec_iterations, 1.0, 0);
            assert_true(r.spec_speedup <= 1.0);
        }
    }
}

/* Expected verify iterations, worked by hand for K = 1, alpha = 0.5 (a step yields 1 or 2
 * tokens, each with probability 1/2): E(1) = 1; E(2) = 1 + E(1)/2 + E(0)/2 = 1.5;
 * E(3) = 1 + E(2)/2 + E(1)/2 = 2.25; E(4) = 1 + E(3)/2 + E(2)/2 = 2.875. Long outputs tend to
 * r / tau + (tau2 - tau) / (2 tau^2)... checked against the renewal rate 1/tau = 2/3 per token. */
static void test_expected_iterations(void **state)
{
    (void)state;
    sim_spec s = {.method = SIM_SPEC_NGRAM, .k = 1, .alpha = 0.5};
    assert_near(sim_run_spec_iterations(&s, 0), 0.0, 0);
    assert_near(sim_run_spec_iterations(&s, 1), 1.0, 1e-15);
    assert_near(sim_run_spec_iterations(&s, 2), 1.5, 1e-15);
    assert_near(sim_run_spec_iterations(&s, 3), 2.25, 1e-15);
    assert_near(sim_run_spec_iterations(&s, 4), 2.875, 1e-15);
    double a = sim_run_spec_iterations(&s, 100001), b = sim_run_spec_iterations(&s, 100000);
    assert_near(a - b, 2.0 / 3.0, 1e-9);
    /* full acceptance: exactly ceil(r / (K + 1)) */
    sim_spec full = {.method = SIM_SPEC_NGRAM, .k = 4, .alpha = 1.0};
    assert_near(sim_run_spec_iterations(&full, 256), 52.0, 1e-12);
}

/* Per-position acceptance as vLLM reports it ("acceptance at token i"): 0.8, 0.6, 0.4 means
 * P(>= 1 accepted) = 0.8, P(>= 2) = 0.6, P(>= 3) = 0.4: tau = 1 + 0.8 + 0.6 + 0.4 = 2.8; the
 * conditional rates are 0.8, 0.75, 0.667. A rate above the one before is refused. */
static void test_per_position_rates(void **state)
{
    (void)state;
    sim_model t = tu_model("llama-3.1-8b");
    sim_spec s;
    sim_err err = {{0}};
    sim_spec_tree chain = sim_spec_chain(3);
    sim_spec_accept acc = {.alpha = -1, .tau = -1, .n_rates = 3, .rates = {0.8, 0.6, 0.4}};
    assert_int_equal(
        sim_spec_init_tree(&s, SIM_SPEC_EAGLE, &chain, &acc, "--x", &t, NULL, &err), SIM_OK);
    assert_near(sim_spec_mean_tokens(&s), 2.8, 1e-12);
    assert_near(sim_spec_reach(&s, 2), 0.6, 0);
    sim_rng rng;
    sim_rng_seed(&rng, 3);
    double sum = 0;
    int hist[4] = {0};
    for (int i = 0; i < 200000; i++) {
        int a = sim_spec_draw(&s, &rng, 3);
        hist[a]++;
        sum += 1 + a;
    }
    assert_near(sum / 200000, 2.8, 0.01);
    assert_near(hist[3] / 200000.0, 0.4, 0.02); /* all three accepted */
    assert_near(hist[0] / 200000.0, 0.2, 0.02); /* the first rejected */
    acc.rates[2] = 0.7;
    assert_int_equal(
        sim_spec_init_tree(&s, SIM_SPEC_EAGLE, &chain, &acc, "--x", &t, NULL, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "position 2"));
    acc.n_rates = 2;
    assert_int_equal(
        sim_spec_init_tree(&s, SIM_SPEC_EAGLE, &chain, &acc, "--x", &t, NULL, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "expected 3"));
}

/* A tree against a chain of the same acceptance length (tau = 3.0): SGLang's topk 4, steps 3,
 * 16 draft tokens verifies 16 tokens per sequence where the chain verifies 4, drafts 1 + 4 + 4
 * tokens per sequence over its three levels where the chain drafts 1 + 1 + 1, and pays the tree
 * mask: per layer 16 x 15 / 2 = 120 extra query-key pairs per sequence, 2 x (128 + 128) FLOPs per
 * pair and head over 32 heads = 1,966,080 FLOPs, and four kernels (two top-k selections, the tree
 * build, the acceptance walk). For the same tokens per step the tree costs more: it pays only
 * where it accepts more. */
static void test_tree_vs_chain(void **state)
{
    (void)state;
    sim_model t = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_err err = {{0}};
    sim_spec_req tr, ch;
    assert_int_equal(sim_spec_parse_sglang("EAGLE3", 3, 4, 16, &tr, &err), SIM_OK);
    assert_int_equal(tr.tree.depth, 3);
    assert_int_equal(tr.tree.width[0], 1);
    assert_int_equal(tr.tree.width[2], 4);
    assert_int_equal(tr.tree.tokens, 16);
    assert_int_equal(sim_spec_parse_sglang("EAGLE3", 3, 1, 16, &ch, &err), SIM_OK);
    assert_int_equal(ch.tree.tokens, 4); /* topk 1: SGLang sets steps + 1 */
    sim_spec_accept acc = {.alpha = -1, .tau = 3.0};
    sim_spec tree, chain;
    assert_int_equal(sim_spec_init_tree(&tree, tr.method, &tr.tree, &acc, "--t", &t, NULL, &err),
                     SIM_OK);
    assert_int_equal(
        sim_spec_init_tree(&chain, ch.method, &ch.tree, &acc, "--t", &t, NULL, &err), SIM_OK);
    assert_int_equal(tree.k, 15);
    assert_near(sim_spec_mean_tokens(&tree), sim_spec_mean_tokens(&chain), 1e-12);
    sim_step_cfg c = {.model = &t, .hw = &hw, .tp = 1, .prec = BF16};
    assert_near(sim_spec_tree_ns(&chain, &c, 8), 0.0, 0);
    double launch = sim_step_launch_ns(&c);
    double extra = sim_spec_tree_ns(&tree, &c, 1);
    assert_true(extra >= 4.0 * launch);
    /* the mask's FLOPs: 1,966,080 per layer and sequence, at most a few us over 32 layers */
    assert_true(extra < 4.0 * launch + 32 * 2e3);
    assert_true(sim_spec_tree_ns(&tree, &c, 64) > extra);
    /* a run of each at batch 8: same tokens per step, the tree's verify and draft dearer */
    sim_run_cfg rc = {.step = c, .batch = 8, .input_len = 512, .output_len = 257, .mem_util = 0.9};
    sim_run_result rt, rch;
    rc.spec = &tree;
    sim_run_simulate(&rc, &rt);
    rc.spec = &chain;
    sim_run_simulate(&rc, &rch);
    assert_near(rt.spec_tokens_per_iteration, rch.spec_tokens_per_iteration, 1e-9);
    assert_true(rt.spec_verify_ns > rch.spec_verify_ns);
    assert_true(rt.spec_draft_ns > rch.spec_draft_ns);
    assert_true(rt.spec_speedup < rch.spec_speedup);
    /* SGLang's own bounds: the three sized flags together; tokens no more than the candidates */
    assert_int_equal(sim_spec_parse_sglang("EAGLE", 3, 0, 16, &tr, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "all three"));
    assert_int_equal(sim_spec_parse_sglang("MEDUSA", 0, 0, 0, &tr, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--speculative-algorithm"));
    assert_int_equal(sim_spec_parse_sglang("EAGLE", 2, 2, 16, &tr, &err),
                     SIM_EINPUT); /* 2 + 4 = 6 candidates for 15 draft tokens */
    assert_non_null(strstr(err.msg, "candidates"));
    assert_int_equal(sim_spec_parse_sglang("EAGLE", 2, 2, 7, &tr, &err), SIM_OK);
    /* TensorRT-LLM's static trees: paths from the root. Four paths [0] [1] [0,0] [0,1]: depth 2,
     * 5 tree tokens, the draft's forwards over the root and the two depth-1 nodes */
    assert_int_equal(sim_spec_parse_trtllm("{\"decoding_type\": \"Medusa\", \"max_draft_len\": 4, "
                                           "\"medusa_choices\": [[0], [1], [0, 0], [0, 1]]}",
                                           &tr, &err),
                     SIM_OK);
    assert_int_equal(tr.method, SIM_SPEC_MEDUSA);
    assert_int_equal(tr.tree.depth, 2);
    assert_int_equal(tr.tree.tokens, 5);
    assert_int_equal(tr.tree.width[1], 2);
    sim_spec_accept past = {.alpha = -1, .tau = 3.5};
    assert_int_equal(sim_spec_init_tree(&tree, tr.method, &tr.tree, &past, "--t", &t, NULL, &err),
                     SIM_EINPUT); /* tau 3.5 is past depth 2 + 1 */
    sim_spec_accept two = {.alpha = -1, .tau = 2.2};
    assert_int_equal(sim_spec_init_tree(&tree, tr.method, &tr.tree, &two, "--t", &t, NULL, &err),
                     SIM_OK);
    assert_true(sim_spec_tree_ns(&tree, &c, 1) > 0.0);
    assert_int_equal(sim_spec_parse_trtllm("{\"decoding_type\": \"Medusa\", \"max_draft_len\": 1, "
                                           "\"medusa_choices\": [[0], [0, 0]]}",
                                           &tr, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "max_draft_len"));
}

/* DeepSeek-V3's MTP module as the draft: its one MoE layer, counted without the embedding and LM
 * head it shares with the target (the report's 14B MTP weights less the 1.85B of embedding and
 * head; the eh projection is not priced). At TP 8 in fp8, as vLLM shards it:
 *   split 8 ways: experts 256 x 3 x 7168 x 2048 = 11,274,289,152, the shared expert 44,040,192,
 *     q_b 1536 x 24576 = 37,748,736, kv_b 512 x 32768 = 16,777,216, o 16384 x 7168 =
 *     117,440,512: 11,490,295,808 / 8 = 1,436,286,976 bytes;
 *   replicated (vLLM's ReplicatedLinear): q_a 7168 x 1536 + kv_a 7168 x 576 = 15,138,816 bytes;
 *   the router 7168 x 256 in bf16, replicated: 3,670,016 bytes;
 *   norms (2 x 7168 + 1536 + 512) x 2 bytes = 32,768;
 * 1,455,128,576 bytes per GPU. Its KV per token: one layer of MLA's latent, (512 + 64) x 2 bytes
 * = 1152, replicated on every GPU. */
static void test_mtp_deepseek(void **state)
{
    (void)state;
    sim_model t = tu_model("deepseek-v3");
    sim_hw hw = tu_hw("h200");
    sim_err err = {{0}};
    sim_spec s;
    sim_spec_req r;
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"deepseek_mtp\"}", false, &r, &err), SIM_OK);
    assert_int_equal(r.tree.depth, 0); /* the model's own depth */
    sim_spec_tree one = sim_spec_chain((int)t.mtp_layers);
    assert_int_equal(one.depth, 1);
    sim_spec_accept acc = {.alpha = -1, .tau = -1, .n_rates = 1, .rates = {0.85}};
    assert_int_equal(sim_spec_init_tree(&s, r.method, &one, &acc, "--t", &t, NULL, &err), SIM_OK);
    sim_prec p = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false};
    sim_step_cfg c = {.model = &t, .hw = &hw, .tp = 8, .prec = p};
    sim_mem_extra x = sim_spec_mem_extra(&s, &c);
    /* the layer's 1,455,128,576 bytes and eh_proj, a bf16 14336 x 7168 linear unsharded
     * (vLLM deepseek_mtp.py): 2 x 7168^2 x 2 = 205,520,896 */
    assert_near(x.weight_bytes, 1455128576.0 + 205520896.0, 0);
    assert_near(x.kv_bytes_per_token, 1152.0, 0);
    assert_int_equal(x.kv_slots_per_seq, 1);
    /* acceptance per position: one MTP token accepted 85 % of the time, tau 1.85 */
    assert_near(sim_spec_mean_tokens(&s), 1.85, 1e-12);
}

/* Qwen3-Next's MTP module as the draft (vLLM qwen3_next_mtp.py): num_nextn_predict_layers absent
 * from the released config, so vLLM's default of one layer, of the target's full-attention kind
 * (gated attention and the sparse MoE block), sharing the embedding and LM head; one fc of 2d -> d
 * for the module, column-parallel. bf16 at TP 4, per GPU (d 2048, 16 heads and 2 KV heads of 256,
 * 512 experts of 512, a shared expert of 512):
 *   attention: q_proj with its gate 2048 x 8192 / 4 = 4,194,304; k and v, 2 KV heads over 4 GPUs,
 *     one head each: 2 x 2048 x 256 = 1,048,576; o_proj 4096 x 2048 / 4 = 2,097,152;
 *   experts 512 x 3 x 2048 x 512 / 4 = 402,653,184; the shared expert 3 x 2048 x 512 / 4 =
 *     786,432; its gate 2048 and the router 2048 x 512 = 1,048,576 (replicated);
 *   norms: 2 x 2048 and q/k norms 2 x 256;
 *   411,834,880 parameters x 2 bytes = 823,669,760, and the fc 2 x 2048 x 512 x 2 = 4,194,304:
 *   827,864,064 bytes. Its KV per token: one full-attention layer's one KV head per GPU,
 *   2 x 256 x 2 bytes = 1024 (2048 at TP 1, where the fc is 2 x 2048 x 2048 x 2 = 16,777,216 and
 *   the layer 3,284,153,344: 3,300,930,560 bytes). */
static void test_mtp_qwen3_next(void **state)
{
    (void)state;
    sim_model t = tu_model("qwen3-next-80b-a3b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_err err = {{0}};
    assert_int_equal(t.mtp_layers, 1);
    assert_true(t.mtp_shared_fc);
    sim_spec_req r;
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"qwen3_next_mtp\", "
                                         "\"num_speculative_tokens\": 2}",
                                         false, &r, &err),
                     SIM_OK);
    assert_int_equal(r.method, SIM_SPEC_MTP);
    assert_int_equal(r.tree.depth, 2);
    sim_spec s;
    sim_spec_accept acc = {.alpha = -1, .tau = -1, .n_rates = 2, .rates = {0.85, 0.65}};
    assert_int_equal(sim_spec_init_tree(&s, r.method, &r.tree, &acc, "--t", &t, NULL, &err),
                     SIM_OK);
    assert_int_equal(s.head.layers, 1);
    assert_int_equal(s.head.linear_layers, 0); /* full attention, no Gated DeltaNet state */
    sim_prec p = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false, false};
    sim_step_cfg c4 = {.model = &t, .hw = &hw, .tp = 4, .prec = p};
    sim_mem_extra x = sim_spec_mem_extra(&s, &c4);
    assert_near(x.weight_bytes, 827864064.0, 0);
    assert_near(x.kv_bytes_per_token, 1024.0, 0);
    assert_int_equal(x.kv_slots_per_seq, 2);
    sim_step_cfg c1 = {.model = &t, .hw = &hw, .tp = 1, .prec = p};
    x = sim_spec_mem_extra(&s, &c1);
    assert_near(x.weight_bytes, 3300930560.0, 0);
    assert_near(x.kv_bytes_per_token, 2048.0, 0);
    /* tau = 1 + 0.85 + 0.65 */
    assert_near(sim_spec_mean_tokens(&s), 2.5, 1e-12);
    /* the fc's sharding shows in its pass: at TP 4 a quarter of the outputs of TP 1's, the same
     * 2d inputs (one decode token: weight-read bound, so cheaper) */
    sim_step_cfg d4 = c4, d1 = c1;
    d4.model = d1.model = &s.head;
    assert_true(sim_spec_head_extra_ns(&s, &d4, 1.0, 1.0, true) <
                sim_spec_head_extra_ns(&s, &d1, 1.0, 1.0, true));
}

/* The engines' load rules, at the batches their sources name:
 *   vLLM V0 disable_by_batch_size 32: off when running_queue_size >= 32 (spec_decode_worker.py);
 *   TensorRT-LLM max_concurrency 16: on while the active requests are <= 16 (drafter.py);
 *   vLLM V1 num_speculative_tokens_per_batch_size [[1,16,5],[17,32,4],[33,64,3],[65,128,1],
 *   [129,512,0]] (the docs' example): K by the scheduled batch, 0 from 129, and past the last
 *   range the last K. */
static void test_load_rules(void **state)
{
    (void)state;
    sim_model t = tu_model("llama-3.1-8b");
    sim_err err = {{0}};
    sim_spec_req r;
    sim_spec s;
    sim_spec_accept acc = {.alpha = 0.7, .tau = -1};
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"eagle\", \"num_speculative_tokens\": 3, "
                                         "\"disable_by_batch_size\": 32}",
                                         true, &r, &err),
                     SIM_OK);
    assert_int_equal(sim_spec_init_tree(&s, r.method, &r.tree, &acc, "--t", &t, NULL, &err), SIM_OK);
    s.adapt = r.adapt;
    assert_int_equal(sim_spec_adapt_depth(&s, 31), 3);
    assert_int_equal(sim_spec_adapt_depth(&s, 32), 0);
    /* V1 does not read it: refused, naming the field and what V1 reads */
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"eagle\", \"num_speculative_tokens\": 3, "
                                         "\"disable_by_batch_size\": 32}",
                                         false, &r, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "disable_by_batch_size"));
    assert_int_equal(sim_spec_parse_trtllm("{\"decoding_type\": \"Eagle3\", \"max_draft_len\": 3, "
                                           "\"max_concurrency\": 16}",
                                           &r, &err),
                     SIM_OK);
    s.adapt = r.adapt;
    assert_int_equal(sim_spec_adapt_depth(&s, 16), 3);
    assert_int_equal(sim_spec_adapt_depth(&s, 17), 0);
    assert_int_equal(
        sim_spec_parse_vllm("{\"method\": \"eagle3\", \"num_speculative_tokens\": 5, "
                            "\"num_speculative_tokens_per_batch_size\": [[1, 16, 5], [17, 32, 4], "
                            "[33, 64, 3], [65, 128, 1], [129, 512, 0]]}",
                            false, &r, &err),
        SIM_OK);
    acc.alpha = 0.7;
    assert_int_equal(sim_spec_init_tree(&s, r.method, &r.tree, &acc, "--t", &t, NULL, &err), SIM_OK);
    s.adapt = r.adapt;
    assert_int_equal(sim_spec_adapt_depth(&s, 1), 5);
    assert_int_equal(sim_spec_adapt_depth(&s, 17), 4);
    assert_int_equal(sim_spec_adapt_depth(&s, 128), 1);
    assert_int_equal(sim_spec_adapt_depth(&s, 129), 0);
    assert_int_equal(sim_spec_adapt_depth(&s, 4096), 0);
    /* a schedule that does not start at 1, or overlaps */
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"eagle3\", \"num_speculative_tokens\": 5, "
                                         "\"num_speculative_tokens_per_batch_size\": [[2, 16, 5]]}",
                                         false, &r, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "num_speculative_tokens_per_batch_size"));
    /* a static batch under V0's rule: 32 sequences run without speculation (speed-up 1), 31 with
     * it */
    sim_hw hw = tu_hw("h100-sxm");
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"eagle\", \"num_speculative_tokens\": 3, "
                                         "\"disable_by_batch_size\": 32}",
                                         true, &r, &err),
                     SIM_OK);
    assert_int_equal(sim_spec_init_tree(&s, r.method, &r.tree, &acc, "--t", &t, NULL, &err), SIM_OK);
    s.adapt = r.adapt;
    sim_run_cfg c = {.step = {.model = &t, .hw = &hw, .tp = 1, .prec = BF16},
                     .batch = 32,
                     .input_len = 256,
                     .output_len = 65,
                     .mem_util = 0.9,
                     .spec = &s};
    sim_run_result *on = calloc(1, sizeof *on), *off = calloc(1, sizeof *off);
    sim_run_simulate(&c, off);
    assert_int_equal(off->spec_depth, 0);
    assert_near(off->spec_speedup, 1.0, 0);
    c.batch = 31;
    sim_run_simulate(&c, on);
    assert_int_equal(on->spec_depth, 3);
    assert_true(on->spec_speedup > 1.0);
    free(on);
    free(off);
}

/* A serving run under V0's rule at 32: 64 requests at once fill the batch past 32, where the
 * engine stops drafting, and as they finish it drafts again; with the rule at 65 it never stops.
 * Every token still comes out once. */
static void test_serve_load_rule(void **state)
{
    (void)state;
    sim_model t = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_err err = {{0}};
    sim_spec s;
    sim_spec_accept acc = {.alpha = 0.7, .tau = -1};
    sim_spec_tree chain = sim_spec_chain(3);
    assert_int_equal(sim_spec_init_tree(&s, SIM_SPEC_EAGLE, &chain, &acc, "--t", &t, NULL, &err),
                     SIM_OK);
    sim_synth_cfg sc = {.num_prompts = 64,
                        .input_len = 256,
                        .output_len = 128,
                        .range_ratio = 0.5,
                        .request_rate = INFINITY,
                        .burstiness = 1.0,
                        .seed = 2};
    sim_workload w;
    assert_int_equal(sim_workload_synthetic(&sc, &w, &err), SIM_OK);
    const int64_t at[] = {32, 65};
    for (int i = 0; i < 2; i++) {
        s.adapt = (sim_spec_adapt){.n = 1, .batch_min = {at[i]}, .depth = {0}};
        sim_engine_cfg cfg = spec_engine(&t, &hw, &s);
        cfg.seed = 3;
        assert_int_equal(sim_engine_check(&cfg, &w, &err), SIM_OK);
        sim_engine_result r;
        assert_int_equal(sim_engine_run(&cfg, &w, &r, &err), SIM_OK);
        for (size_t j = 0; j < r.n; j++)
            assert_int_equal(r.seqs[j].generated, r.seqs[j].output);
        if (at[i] == 32) {
            assert_true(r.spec_off_iterations > 0);
            assert_true(r.spec_verifies > 0); /* on again once fewer than 32 run */
        } else {
            assert_int_equal(r.spec_off_iterations, 0);
        }
        sim_engine_result_free(&r);
    }
    sim_workload_free(&w);
}

/* The engines' spellings, refused as the engine refuses them, naming the field. */
static void test_engine_spellings(void **state)
{
    (void)state;
    sim_err err = {{0}};
    sim_spec_req r;
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"eagle3\"", false, &r, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "not a JSON object"));
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"lookahead\", \"num_speculative_tokens\": 2}",
                                         false, &r, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "field 'method'"));
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"eagle\", \"num_speculative_tokens\": 2, "
                                         "\"speculative_token_tree\": \"[(0,)]\"}",
                                         false, &r, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "speculative_token_tree"));
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"eagle\"}", false, &r, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "num_speculative_tokens"));
    assert_int_equal(
        sim_spec_parse_vllm("{\"method\": \"draft_model\", \"num_speculative_tokens\": 4, "
                            "\"model\": \"llama-3.2-1b\"}",
                            false, &r, &err),
        SIM_OK);
    assert_int_equal(r.method, SIM_SPEC_DRAFT);
    assert_string_equal(r.draft_model, "llama-3.2-1b");
    assert_string_equal(r.method_name, "draft");
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"ngram\", \"num_speculative_tokens\": 4, "
                                         "\"prompt_lookup_max\": 4}",
                                         false, &r, &err),
                     SIM_OK);
    assert_int_equal(r.tree.tokens, 5);
    assert_int_equal(sim_spec_parse_trtllm("{\"decoding_type\": \"MTP\", "
                                           "\"num_nextn_predict_layers\": 3}",
                                           &r, &err),
                     SIM_OK);
    assert_int_equal(r.method, SIM_SPEC_MTP);
    assert_int_equal(r.tree.depth, 3);
    assert_int_equal(sim_spec_parse_trtllm("{\"decoding_type\": \"Lookahead\"}", &r, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "decoding_type"));
    assert_int_equal(sim_spec_parse_sglang("NEXTN", 0, 0, 0, &r, &err), SIM_OK);
    assert_int_equal(r.method, SIM_SPEC_MTP); /* SGLang's default: steps 3, topk 1, 4 tokens */
    assert_int_equal(r.tree.depth, 3);
    assert_int_equal(r.tree.tokens, 4);
}

/* Published acceptance from the data file: the row of the same tree, else (for a chain) a chain
 * row carried to this depth by its constant per-depth rate; a tree never takes a chain's. */
static void test_acceptance_data(void **state)
{
    (void)state;
    char path[256];
    tu_snprintf(path, sizeof path, "%s/infersim-acc-XXXXXX", tu_tmpdir());
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("method,model,dataset,depth,topk,tokens,tau,rates,source\n"
          "eagle3,llama-3.1-8b,mt-bench,7,1,8,3.54,,test\n"
          "eagle3,llama-3.1-8b,mt-bench,3,1,4,2.79,0.74;0.54;0.4,test\n"
          "eagle3,llama-3.1-8b,mt-bench,6,10,60,6.13,,test\n",
          f);
    fclose(f);
    sim_model t = tu_model("llama-3.1-8b");
    sim_err err = {{0}};
    sim_spec_req r;
    sim_spec_accept acc;
    /* the tree of the row: its tau */
    assert_int_equal(sim_spec_parse_sglang("EAGLE3", 6, 10, 60, &r, &err), SIM_OK);
    assert_int_equal(sim_spec_acceptance_lookup(path, &r, &t, "mt-bench", &acc, &err), SIM_OK);
    assert_near(acc.tau, 6.13, 0);
    /* another tree: no row */
    assert_int_equal(sim_spec_parse_sglang("EAGLE3", 5, 8, 32, &r, &err), SIM_OK);
    assert_int_equal(sim_spec_acceptance_lookup(path, &r, &t, "mt-bench", &acc, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "no row"));
    /* the chain of 3: its own per-position rates */
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"eagle3\", \"num_speculative_tokens\": 3}",
                                         false, &r, &err),
                     SIM_OK);
    assert_int_equal(sim_spec_acceptance_lookup(path, &r, &t, "mt-bench", &acc, &err), SIM_OK);
    assert_int_equal(acc.n_rates, 3);
    assert_near(acc.rates[1], 0.54, 0);
    /* a chain of 2 from the first chain row (7 deep, tau 3.54): its constant rate */
    assert_int_equal(sim_spec_parse_vllm("{\"method\": \"eagle3\", \"num_speculative_tokens\": 2}",
                                         false, &r, &err),
                     SIM_OK);
    assert_int_equal(sim_spec_acceptance_lookup(path, &r, &t, "mt-bench", &acc, &err), SIM_OK);
    assert_near(acc.alpha, sim_spec_alpha_for_tau(3.54, 7), 1e-12);
    assert_int_equal(sim_spec_acceptance_lookup(path, &r, &t, "gsm8k", &acc, &err), SIM_EINPUT);
    unlink(path);
}

/* EAGLE-3's head and the engines' proposers, as their sources run them. */
static void test_eagle3_and_proposers(void **state)
{
    (void)state;
    /* the table: the longest prefix of the profile's name */
    sim_spec_proposer p = sim_spec_proposer_for("vllm-0.11");
    assert_string_equal(p.name, "vllm");
    assert_int_equal(p.first_host_kernels, 21);
    assert_int_equal(p.step_host_kernels, 15);
    assert_false(p.first_eager || p.steps_eager);
    assert_true(p.full_vocab_logits);
    /* vLLM 0.10.2: the same proposer, its head's passes without CUDA graphs (PR #20059
     * until PR #25109) */
    assert_near(p.host_op_cpu_ns, 0.0, 0); /* the newest proposer prepares on the device */
    assert_int_equal(p.verify_host_ops, 0);
    p = sim_spec_proposer_for("vllm-0.10");
    assert_string_equal(p.name, "vllm-0.10");
    assert_true(p.first_eager && p.steps_eager);
    assert_int_equal(p.first_host_kernels, 27); /* the runner's 6 and the proposer's 21 */
    assert_int_equal(p.step_host_kernels, 15);
    assert_true(p.full_vocab_logits);
    assert_near(p.eager_pass_cpu_ns, 0.0, 0); /* 0.10.2's head was compiled: not eager PyTorch */
    assert_near(p.host_op_cpu_ns, 8e3, 0);
    assert_int_equal(p.verify_host_ops, 7);
    p = sim_spec_proposer_for("vllm-0.9");
    assert_string_equal(p.name, "vllm-0.9");
    assert_false(p.first_eager || p.steps_eager);
    assert_int_equal(p.first_host_kernels, 27);
    p = sim_spec_proposer_for("vllm-0.8");
    assert_true(p.first_eager && p.steps_eager);
    assert_int_equal(p.first_host_kernels, 24); /* the runner's 6 and the proposer's 18 */
    assert_int_equal(p.step_host_kernels, 7);
    assert_near(p.eager_pass_cpu_ns, 25e3, 0);
    assert_int_equal(p.verify_host_ops, 7);
    assert_int_equal(sim_spec_proposer_for("vllm-v0").first_host_kernels, 0);
    p = sim_spec_proposer_for("sglang-0.4");
    assert_true(p.first_eager && !p.steps_eager && !p.full_vocab_logits);
    assert_false(sim_spec_proposer_for("sglang").first_eager);
    assert_int_equal(sim_spec_proposer_for("trtllm").first_host_kernels, 0);
    assert_int_equal(sim_spec_proposer_for(NULL).step_host_kernels, 0);

    sim_model t = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = {.model = &t, .hw = &hw, .tp = 1, .prec = BF16};
    sim_err err = {{0}};
    sim_spec e1, e3;
    assert_int_equal(sim_spec_init(&e1, SIM_SPEC_EAGLE, 3, 0.7, -1, &t, NULL, &err), SIM_OK);
    assert_int_equal(sim_spec_init(&e3, SIM_SPEC_EAGLE, 3, 0.7, -1, &t, NULL, &err), SIM_OK);
    assert_int_equal(sim_spec_set_eagle3(&e3, 32000, &err), SIM_OK);
    assert_int_equal(e3.head.vocab, 32000);
    /* memory: EAGLE-3 holds a 12288 x 4096 fc (50,331,648), the embedding half of its QKV
     * (6144 x 4096 = 25,165,824) and its own 32000 x 4096 LM head (131,072,000): 206,569,472
     * bf16 parameters = 413,138,944 bytes, against EAGLE-1's fc 2 x 4096^2 x 2 = 67,108,864;
     * the decoder layer is the same */
    double d3 = sim_spec_mem_extra(&e3, &c).weight_bytes, d1 = sim_spec_mem_extra(&e1, &c).weight_bytes;
    assert_near(d3 - d1, 413138944.0 - 67108864.0, 1e-3);
    /* bad input: a draft vocabulary past the target's, or EAGLE-3 on another method */
    sim_spec bad = e1;
    assert_int_equal(sim_spec_set_eagle3(&bad, 128257, &err), SIM_EINPUT);
    sim_spec ng;
    assert_int_equal(sim_spec_init(&ng, SIM_SPEC_NGRAM, 3, 0.7, -1, &t, NULL, &err), SIM_OK);
    assert_int_equal(sim_spec_set_eagle3(&ng, 32000, &err), SIM_EINPUT);

    /* EAGLE-1's fc over one token: a 1 x 4096 x 8192 bf16 GEMM, weight-bound: its 67,108,864
     * bytes at 3.35 TB/s are 20.03 us, plus a graph launch of 1.5 us; no streaming efficiency
     * below 0.7 */
    sim_step_cfg d = c;
    d.model = e1.draft;
    double fc = sim_spec_head_extra_ns(&e1, &d, 1.0, 1.0, false);
    assert_true(fc >= 20032.0 + 1500.0 && fc <= 20032.0 / 0.7 + 1500.0 + 100.0);
    /* vLLM's full-vocabulary scatter of an EAGLE-3 pass, one logits row: new_full writes
     * 128256, index_put reads and writes 32000 each, argmax reads 96256 more: 577,024 bf16
     * bytes (172 ns at 3.35 TB/s) behind 4 eager launches of 4 us */
    d.model = e3.draft;
    double no_map = sim_spec_head_extra_ns(&e3, &d, 1.0, 1.0, false);
    e3.prop.full_vocab_logits = true;
    double map = sim_spec_head_extra_ns(&e3, &d, 1.0, 1.0, false) - no_map;
    assert_true(map >= 16000.0 + 172.2 && map <= 16000.0 + 172.2 / 0.5);
    /* the first pass adds the 3 x 4096 -> 4096 fusion: at least its 100,663,296 bytes' 30.05 us */
    assert_true(sim_spec_head_extra_ns(&e3, &d, 1.0, 1.0, true) -
                    sim_spec_head_extra_ns(&e3, &d, 1.0, 1.0, false) >=
                30048.0);
    /* the proposer's host kernels: vLLM's 21 before the first pass and 15 before each of the
     * other two of a chain of 3, eager launches of 4 us each: 51 x 4 = 204 us more */
    sim_seq_group dec = {.count = 1, .q = 4, .c = 500};
    sim_seq_group scratch[1];
    double plain = sim_spec_draft_ns(&e1, &c, NULL, 0, &dec, 1, scratch, NULL);
    e1.prop = sim_spec_proposer_for("vllm");
    double prop = sim_spec_draft_ns(&e1, &c, NULL, 0, &dec, 1, scratch, NULL);
    assert_near(prop - plain, 204000.0, 1e-6);
    /* vLLM 0.9's synchronous step: the first pass is prepared after the verify's blocking read,
     * nothing queued on the GPU, so its 27 ops cost a raw PyTorch op's 8 us of host dispatch
     * each (216 us); the two later passes' 15 ops run behind the pass before, at the device's
     * 4 us launch (2 x 60 us); the verify's metadata, 7 ops before the target's forward, costs
     * 7 x 8 = 56 us in a loop without asynchronous scheduling: 392 us against the proposer-less
     * head. With asynchronous scheduling the metadata hides behind the previous iteration
     * (336 us), unless the engine turns it off under speculation (sync_host: 392 us again). */
    e1.prop = sim_spec_proposer_for("vllm-0.9");
    assert_near(sim_spec_draft_ns(&e1, &c, NULL, 0, &dec, 1, scratch, NULL) - plain, 392000.0,
                1e-6);
    sim_step_cfg ca = c;
    ca.async_sched = true;
    double plain_async = 0.0;
    {
        sim_spec bare = e1;
        bare.prop = (sim_spec_proposer){0};
        plain_async = sim_spec_draft_ns(&bare, &ca, NULL, 0, &dec, 1, scratch, NULL);
    }
    assert_near(sim_spec_draft_ns(&e1, &ca, NULL, 0, &dec, 1, scratch, NULL) - plain_async,
                336000.0, 1e-6);
    e1.sync_host = true;
    assert_near(sim_spec_draft_ns(&e1, &ca, NULL, 0, &dec, 1, scratch, NULL) - plain_async,
                392000.0, 1e-6);
    e1.sync_host = false;
    /* a prefill-only call (the draft's one pass over a new prompt) verifies nothing: its 27
     * preparation ops at 8 us, no metadata ops */
    sim_seq_group pre = {.count = 1, .q = 128, .c = 0, .logits = 1};
    double pre_prop = sim_spec_draft_ns(&e1, &c, &pre, 1, NULL, 0, scratch, NULL);
    e1.prop = (sim_spec_proposer){0};
    assert_near(pre_prop - sim_spec_draft_ns(&e1, &c, &pre, 1, NULL, 0, scratch, NULL),
                27.0 * 8e3, 1e-6);
    /* TensorRT-LLM's KV move after a tree verify: a tree of depth 3 (widths 1, 4, 4; 10
     * tokens) accepting tau = 2.5, 1.5 drafts per sequence; 4 sequences x 1.5 x 131,072 KV
     * bytes per token (32 layers x 8 heads x 128 x 2 x 2), read and written: 1,572,864 bytes
     * (469.5 ns at 3.35 TB/s) behind one graph launch of 1.5 us */
    sim_spec tr;
    sim_spec_tree tree = {.depth = 3, .width = {1, 4, 4}, .tokens = 10};
    sim_spec_accept acc = {.alpha = -1.0, .tau = 2.5};
    assert_int_equal(sim_spec_init_tree(&tr, SIM_SPEC_EAGLE, &tree, &acc, "--t", &t, NULL, &err),
                     SIM_OK);
    double no_move = sim_spec_tree_ns(&tr, &c, 4.0);
    tr.prop = sim_spec_proposer_for("trtllm");
    double move = sim_spec_tree_ns(&tr, &c, 4.0) - no_move;
    assert_true(move >= 1500.0 + 469.5 && move <= 1500.0 + 469.5 / 0.5);
    /* vLLM 0.10.2's eager head passes: dearer than 0.11's graphed ones, the host kernels alike */
    e1.prop = sim_spec_proposer_for("vllm-0.11");
    double graphed = sim_spec_draft_ns(&e1, &c, NULL, 0, &dec, 1, scratch, NULL);
    e1.prop = sim_spec_proposer_for("vllm-0.10");
    assert_true(sim_spec_draft_ns(&e1, &c, NULL, 0, &dec, 1, scratch, NULL) > graphed);
    /* vLLM 0.8's head, neither compiled nor captured, dispatches each kernel of a pass from
     * Python at 25 us. An EAGLE-3 pass on this H100 is 22 kernels: 22 x 25 = 550 us of CPU
     * against its 309.5 us (first pass, 4 tokens) and 309.1 us (later ones) on the GPU, so each
     * of a chain of 3 takes the CPU's 550 us: (550 - 309.5) + 2 x (550 - 309.1) = 722.3 us more
     * than the same passes dispatched at the device's launch alone. EAGLE-1's pass reads a
     * 128256-row LM head: its GPU time covers most of its dispatch, so it gains less. */
    sim_spec_proposer eager08 = sim_spec_proposer_for("vllm-0.8"), launch_only = eager08;
    launch_only.eager_pass_cpu_ns = 0.0;
    sim_step_cfg h = c;
    h.model = e3.draft;
    h.eager = true;
    sim_seq_group first = {.count = 1, .q = 4, .c = 500, .logits = 1};
    sim_seq_group later = {.count = 1, .q = 1, .c = 500, .logits = 1};
    sim_step_result r4, r1;
    sim_step_price(&h, &first, 1, &r4);
    sim_step_price(&h, &later, 1, &r1);
    assert_near(r4.kernels, 22.0, 0);
    assert_true(r4.t_ns < 550e3 && r1.t_ns < 550e3);
    e3.prop = eager08;
    double cpu = sim_spec_draft_ns(&e3, &c, NULL, 0, &dec, 1, scratch, NULL);
    e3.prop = launch_only;
    double gpu = sim_spec_draft_ns(&e3, &c, NULL, 0, &dec, 1, scratch, NULL);
    assert_near(cpu - gpu, (550e3 - r4.t_ns) + 2.0 * (550e3 - r1.t_ns), 1e-3);
    assert_near(cpu - gpu, 722.3e3, 1e3);
    e1.prop = eager08;
    double cpu1 = sim_spec_draft_ns(&e1, &c, NULL, 0, &dec, 1, scratch, NULL);
    e1.prop = launch_only;
    assert_true(cpu1 - sim_spec_draft_ns(&e1, &c, NULL, 0, &dec, 1, scratch, NULL) < cpu - gpu);
    /* SGLang 0.4 runs the draft extend (the first pass) eagerly: dearer than SGLang's graph */
    e1.prop = sim_spec_proposer_for("sglang");
    double graph = sim_spec_draft_ns(&e1, &c, NULL, 0, &dec, 1, scratch, NULL);
    e1.prop = sim_spec_proposer_for("sglang-0.4");
    assert_true(sim_spec_draft_ns(&e1, &c, NULL, 0, &dec, 1, scratch, NULL) > graph);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_acceptance_length),
        cmocka_unit_test(test_init_errors),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_run_speedups),
        cmocka_unit_test(test_speedup_shrinks_with_batch),
        cmocka_unit_test(test_draft_lowers_largest_batch),
        cmocka_unit_test(test_serve_acceptance),
        cmocka_unit_test(test_draft_memo_matches),
        cmocka_unit_test(test_draft_launch_modes),
        cmocka_unit_test(test_serve_draft_launch_modes),
        cmocka_unit_test(test_short_output_whole_steps),
        cmocka_unit_test(test_expected_iterations),
        cmocka_unit_test(test_per_position_rates),
        cmocka_unit_test(test_tree_vs_chain),
        cmocka_unit_test(test_mtp_deepseek),
        cmocka_unit_test(test_mtp_qwen3_next),
        cmocka_unit_test(test_load_rules),
        cmocka_unit_test(test_serve_load_rule),
        cmocka_unit_test(test_engine_spellings),
        cmocka_unit_test(test_acceptance_data),
        cmocka_unit_test(test_eagle3_and_proposers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
