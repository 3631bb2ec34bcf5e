/* test_spec.c - speculative decoding: acceptance model, draft cost, memory, run and serve. */
#include "testutil.h"

#include "engine.h"
#include "metrics.h"
#include "run.h"
#include "spec.h"

static const sim_prec BF16 = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false};

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
    /* eagle: one layer of the 8B (218,112,000 parameters) and its KV, 2 x 8 x 128 x 2 */
    assert_int_equal(sim_spec_init(&s, SIM_SPEC_EAGLE, 4, 0.7, -1, &t, NULL, &err), SIM_OK);
    x = sim_spec_mem_extra(&s, &c);
    assert_near(x.weight_bytes, 2.0 * 218112000.0, 1e-12);
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
        sim_seq_group g[2] = {*pre, {.count = dec->count, .q = 1, .c = dec->c + j, .logits = 1}};
        d.eager = eager[j];
        sim_step_price(&d, j == 0 ? g : g + 1, j == 0 ? 2 : 1, &r);
        total += r.t_ns;
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
