/* test_sched.c - continuous batching decisions on small hand-traced scenarios. */
#include "testutil.h"

#include "sched.h"

#define MAXR 8

typedef struct world {
    sim_seq seqs[MAXR];
    sim_sched s;
    sim_sched_entry batch[MAXR];
    size_t n;
} world;

static void setup_cfg(world *w, int nreq, int64_t input, int64_t output, int64_t blocks,
                      int64_t block_size, const sim_sched_cfg *cfg)
{
    memset(w, 0, sizeof *w);
    sim_kvcache kv;
    sim_kvcache_init(&kv, blocks, block_size);
    assert_int_equal(sim_sched_init(&w->s, cfg, &kv, MAXR), SIM_OK);
    for (int i = 0; i < nreq; i++) {
        w->seqs[i].input = input;
        w->seqs[i].output = output;
        w->seqs[i].first_sched_ns = -1;
        sim_sched_enqueue(&w->s, w->seqs, i);
    }
}

static void setup(world *w, int nreq, int64_t input, int64_t output, int64_t blocks,
                  int64_t block_size, int64_t max_seqs, int64_t budget, bool chunked)
{
    sim_sched_cfg cfg = {
        .max_num_seqs = max_seqs, .max_num_batched_tokens = budget, .chunked_prefill = chunked};
    setup_cfg(w, nreq, input, output, blocks, block_size, &cfg);
}

/* Schedules one iteration and applies it as the engine does. */
static void step(world *w)
{
    w->n = sim_sched_next(&w->s, w->seqs, w->batch);
    for (size_t i = 0; i < w->n; i++) {
        sim_seq *r = &w->seqs[w->batch[i].req];
        r->computed += w->batch[i].num_new;
        if (r->first_sched_ns < 0)
            r->first_sched_ns = 0;
        if (!w->batch[i].decode)
            sim_sched_cache_prompt(&w->s, w->seqs, w->batch[i].req);
        if (r->computed == sim_seq_known(r) && ++r->generated == r->output)
            sim_sched_finish(&w->s, w->seqs, w->batch[i].req);
    }
    sim_sched_compact(&w->s, w->seqs);
}

static void expect(const world *w, size_t i, int64_t req, int64_t num_new)
{
    assert_true(i < w->n);
    assert_int_equal(w->batch[i].req, req);
    assert_int_equal(w->batch[i].num_new, num_new);
}

static void test_chunked_fcfs(void **state)
{
    (void)state;
    /* budget 64, three 40-token prompts: iteration 1 admits r0 whole (40) and the first 24
     * tokens of r1; iteration 2 decodes r0 (1), finishes r1's prompt (16) and admits r2 (40) */
    world w;
    setup(&w, 3, 40, 5, 100, 16, 4, 64, true);
    step(&w);
    assert_int_equal(w.n, 2);
    expect(&w, 0, 0, 40);
    expect(&w, 1, 1, 24);
    assert_int_equal(w.seqs[0].generated, 1); /* the prompt's last position samples a token */
    assert_int_equal(w.seqs[1].generated, 0); /* a partial chunk does not */
    assert_int_equal(w.seqs[1].blocks, 2);    /* 24 tokens in blocks of 16 */
    step(&w);
    assert_int_equal(w.n, 3);
    expect(&w, 0, 0, 1);
    expect(&w, 1, 1, 16);
    expect(&w, 2, 2, 40);
    sim_sched_free(&w.s);
}

static void test_max_num_seqs(void **state)
{
    (void)state;
    world w;
    setup(&w, 5, 8, 3, 100, 16, 2, 1000, true);
    step(&w);
    assert_int_equal(w.n, 2); /* only two may run */
    step(&w);
    assert_int_equal(w.n, 2);
    step(&w); /* both finish their 3 tokens here */
    assert_int_equal(w.seqs[0].phase, SIM_SEQ_DONE);
    step(&w);
    expect(&w, 0, 2, 8);
    sim_sched_free(&w.s);
}

/* An abort (a client gone): 5 requests of 8 + 3 tokens, blocks of 16 tokens, 2 may run. After
 * one iteration 0 and 1 run (one block each) and 2, 3, 4 wait. Aborting running 1 frees its
 * block (100 - 1 used) and aborting waiting 3 takes it out of the queue: the next iteration
 * decodes 0 and admits 2 (the queue's order kept), and 4 comes after 2, never 3. */
static void test_abort(void **state)
{
    (void)state;
    world w;
    setup(&w, 5, 8, 3, 100, 16, 2, 1000, true);
    step(&w);
    assert_int_equal(sim_kvcache_used(&w.s.kv, 0), 2);
    assert_int_equal(sim_sched_abort(&w.s, w.seqs, 1), SIM_SEQ_RUNNING);
    assert_int_equal(sim_kvcache_used(&w.s.kv, 0), 1);
    assert_int_equal(sim_sched_abort(&w.s, w.seqs, 3), SIM_SEQ_WAITING);
    assert_int_equal(sim_sched_abort(&w.s, w.seqs, 3), SIM_SEQ_DONE); /* once */
    assert_int_equal(w.s.w_len, 2);
    assert_true(sim_sched_blocks_conserved(&w.s, w.seqs));
    step(&w);
    expect(&w, 0, 0, 1);
    expect(&w, 1, 2, 8);
    assert_int_equal(w.n, 2);
    step(&w); /* 0 finishes */
    step(&w);
    expect(&w, 0, 2, 1);
    expect(&w, 1, 4, 8);
    assert_int_equal(w.n, 2);
    sim_sched_free(&w.s);
}

static void test_preemption_recomputes_the_newest(void **state)
{
    (void)state;
    /* 6 blocks of 16 = 96 tokens; two 40-token prompts take 3 blocks each. Decoding fills the
     * third block at 48 tokens; the 49th needs a fourth: r1 (the newest) is preempted, frees its
     * 3 blocks, goes to the front of the queue with computed = 0, and r0 decodes alone. */
    world w;
    setup(&w, 2, 40, 100, 6, 16, 8, 1000, true);
    step(&w);
    assert_int_equal(w.s.kv.free_blocks, 0);
    for (int i = 0; i < 8; i++) {
        step(&w);
        assert_int_equal(w.n, 2);
    }
    assert_int_equal(w.seqs[0].computed, 48);
    step(&w);
    assert_int_equal(w.n, 1);
    expect(&w, 0, 0, 1);
    assert_int_equal(w.seqs[1].phase, SIM_SEQ_WAITING);
    assert_int_equal(w.seqs[1].computed, 0);
    assert_int_equal(w.seqs[1].blocks, 0);
    assert_int_equal(w.seqs[1].preemptions, 1);
    assert_int_equal(w.seqs[1].generated, 9); /* tokens already streamed stay generated */
    assert_int_equal(w.s.preemptions, 1);
    assert_int_equal(w.seqs[0].blocks, 4);
    /* it comes back as a recompute of all 49 known tokens once r0 leaves room */
    assert_int_equal(sim_seq_known(&w.seqs[1]), 49);
    sim_sched_free(&w.s);
}

static void test_unchunked_prefill_only(void **state)
{
    (void)state;
    /* budget 64: r0's 40 tokens fit, r1's do not fit beside them, and unchunked prompts are not
     * split: iteration 1 prefills r0 alone, iteration 2 prefills r1 alone (prefill-only, r0
     * waits), iteration 3 decodes both */
    world w;
    setup(&w, 2, 40, 5, 100, 16, 8, 64, false);
    step(&w);
    assert_int_equal(w.n, 1);
    expect(&w, 0, 0, 40);
    step(&w);
    assert_int_equal(w.n, 1);
    expect(&w, 0, 1, 40);
    step(&w);
    assert_int_equal(w.n, 2);
    expect(&w, 0, 0, 1);
    expect(&w, 1, 1, 1);
    sim_sched_free(&w.s);
}

static void test_decode_flag(void **state)
{
    (void)state;
    /* budget 40. r0: a 41-token prompt, so iteration 2 feeds its last prompt token alone: no
     * decode (nothing generated yet), though it samples. r1: a recompute of 32 prompt + 8
     * generated = 40 known tokens (as after a preemption), admitted in iteration 2 beside r0's 1
     * token with 39 of them; iteration 3 feeds its last one alone, which IS a decode: the token
     * it samples is the 9th, as any decode's. */
    world w;
    setup(&w, 1, 41, 5, 100, 16, 4, 40, true);
    w.seqs[1] = (sim_seq){.input = 32, .output = 20, .generated = 8};
    sim_sched_enqueue(&w.s, w.seqs, 1);
    step(&w);
    assert_int_equal(w.n, 1);
    expect(&w, 0, 0, 40);
    assert_false(w.batch[0].decode);
    step(&w);
    assert_int_equal(w.n, 2);
    expect(&w, 0, 0, 1);
    assert_false(w.batch[0].decode);
    expect(&w, 1, 1, 39);
    assert_false(w.batch[1].decode);
    step(&w);
    assert_int_equal(w.n, 2);
    expect(&w, 0, 0, 1);
    assert_true(w.batch[0].decode);
    expect(&w, 1, 1, 1);
    assert_true(w.batch[1].decode);
    assert_int_equal(w.seqs[1].generated, 9);
    sim_sched_free(&w.s);
}

/* Runs until every request is done (at most `limit` iterations); returns the iterations. */
static int run_all(world *w, int nreq, int limit)
{
    int it = 0;
    for (; it < limit; it++) {
        int done = 0;
        for (int i = 0; i < nreq; i++)
            done += w->seqs[i].phase == SIM_SEQ_DONE;
        if (done == nreq)
            break;
        step(w);
        assert_true(w->n > 0);
    }
    assert_true(it < limit);
    return it;
}

static void test_no_evict_never_preempts(void **state)
{
    (void)state;
    /* 10 blocks of 16 tokens; three requests of 50 + 50 tokens. vLLM admits two prompts (4 blocks
     * each), whose KV then grows to ceil(100/16) = 7 blocks each: 14 > 10, so one is preempted.
     * GUARANTEED_NO_EVICT takes the 7 blocks of a whole sequence at admission: only one fits
     * (7 + 7 > 10), the others wait, and nobody is ever preempted. */
    world w;
    sim_sched_cfg cfg = {.max_num_seqs = 4, .max_num_batched_tokens = 1000};
    setup_cfg(&w, 3, 50, 50, 10, 16, &cfg);
    run_all(&w, 3, 1000);
    assert_true(w.s.preemptions > 0);
    sim_sched_free(&w.s);
    cfg.policy = SIM_POLICY_NO_EVICT;
    setup_cfg(&w, 3, 50, 50, 10, 16, &cfg);
    step(&w);
    assert_int_equal(w.n, 1);
    assert_int_equal(w.seqs[0].blocks, 7);
    run_all(&w, 3, 1000);
    assert_int_equal(w.s.preemptions, 0);
    sim_sched_free(&w.s);
}

static void test_sglang_ratio(void **state)
{
    (void)state;
    /* 200 one-token pages; three prompts of 20 tokens with 100 to generate each (want 20 + 100
     * = 120 tokens to be admitted). Iteration 1 (prefill): room 200 admits r0 (room 80 left),
     * not r1. Iteration 2: r0 holds its 20 prompt pages and has 99 tokens left to generate:
     * room = (200 - 20) - ratio x 99. With ratio 1.0 (conservativeness): 180 - 99 = 81 < 120, a
     * decode iteration, and r1 waits until r0 is done: never a retraction. With ratio 0.1:
     * 180 - 9.9 = 170 >= 120, a prefill iteration admitting r1; the three then over-commit the
     * 200 pages (3 x 120 = 360) and decode retracts. */
    world w;
    sim_sched_cfg cfg = {.max_num_seqs = 4,
                         .max_num_batched_tokens = 1000,
                         .policy = SIM_POLICY_SGLANG,
                         .ratio_init = 1.0,
                         .ratio_min = 1.0};
    setup_cfg(&w, 3, 20, 100, 200, 1, &cfg);
    step(&w);
    assert_int_equal(w.n, 1);
    expect(&w, 0, 0, 20);
    step(&w);
    assert_int_equal(w.n, 1);
    assert_true(w.batch[0].decode);
    run_all(&w, 3, 2000);
    assert_int_equal(w.s.preemptions, 0);
    sim_sched_free(&w.s);

    cfg.ratio_init = 0.1;
    cfg.ratio_min = 0.1;
    setup_cfg(&w, 3, 20, 100, 200, 1, &cfg);
    step(&w);
    step(&w);
    assert_int_equal(w.n, 1);
    expect(&w, 0, 1, 20); /* a prefill-only iteration: r0 does not decode in it */
    run_all(&w, 3, 2000);
    assert_true(w.s.preemptions > 0);
    assert_true(w.s.ratio > 0.1); /* a retraction raised the ratio */
    sim_sched_free(&w.s);
}

static void test_static_batches(void **state)
{
    (void)state;
    /* Hugging Face generate, batch 2: r0 and r1 start together; r2 waits for both although
     * blocks are free, and starts only in the iteration after the batch's last token. */
    world w;
    sim_sched_cfg cfg = {
        .max_num_seqs = 2, .max_num_batched_tokens = 1000, .policy = SIM_POLICY_STATIC};
    setup_cfg(&w, 3, 10, 3, 100, 1, &cfg);
    step(&w);
    assert_int_equal(w.n, 2);
    assert_int_equal(w.seqs[0].blocks, 13); /* prompt + whole output reserved */
    step(&w);                               /* decodes: r0, r1 have 2 tokens */
    assert_int_equal(w.n, 2);
    step(&w); /* both done */
    assert_int_equal(w.seqs[1].phase, SIM_SEQ_DONE);
    assert_int_equal(w.seqs[2].phase, SIM_SEQ_WAITING);
    step(&w);
    expect(&w, 0, 2, 10);
    sim_sched_free(&w.s);
}

static void test_prefix_cache_hits_and_evictions(void **state)
{
    (void)state;
    /* Hash blocks of 32 tokens (2 KV blocks of 16); prompts of 100 tokens have 3 whole hash
     * blocks; one request at a time. r0 (ids 1 2 3) computes and caches them. r1 (ids 7 8 9)
     * and r2 (ids 1 2 3 again): with a 20-block cache r2 finds all 3 (96 tokens) and computes
     * 100 - 96 = 4; with an 8-block cache r1's 7 blocks need 2 free + 6 evicted (all of r0's
     * entries), so r2 finds nothing. */
    const uint64_t ids[3][3] = {{1, 2, 3}, {7, 8, 9}, {1, 2, 3}};
    for (int small = 0; small < 2; small++) {
        world w;
        sim_sched_cfg cfg = {.max_num_seqs = 1,
                             .max_num_batched_tokens = 1000,
                             .chunked_prefill = true,
                             .prefix_block_tokens = 32};
        setup_cfg(&w, 3, 100, 2, small ? 8 : 20, 16, &cfg);
        for (int i = 0; i < 3; i++) {
            w.seqs[i].hash = ids[i];
            w.seqs[i].n_hash = 3;
        }
        step(&w); /* r0's prompt */
        assert_int_equal(w.s.prefix.evictable_blocks, 0);
        assert_int_equal(w.seqs[0].n_ref, 3); /* its 3 hash blocks are cache entries */
        step(&w);                             /* r0's last token: done, its entries evictable */
        /* one count, the prefix cache's: its 3 entries x 2 blocks, none in use, all of the
         * 20 (or 8) blocks either free or evictable */
        assert_int_equal(w.s.prefix.evictable_blocks, 6);
        assert_int_equal(sim_sched_evictable(&w.s), 6);
        assert_int_equal(sim_sched_kv_used(&w.s), 0);
        assert_int_equal(w.s.kv.free_blocks + 6, w.s.kv.total_blocks);
        step(&w); /* r1 */
        step(&w);
        step(&w); /* r2 */
        expect(&w, 0, 2, small ? 100 : 4);
        assert_int_equal(w.seqs[2].cached, small ? 0 : 96);
        assert_int_equal(w.s.prefix_hit_tokens, small ? 0 : 96);
        assert_int_equal(w.s.prefix_query_tokens, 300);
        sim_sched_free(&w.s);
    }
}

static void test_max_utilization_mixes_whole_prompts(void **state)
{
    (void)state;
    /* budget 15, no chunking, prompts of 10: iteration 1 admits r0 (10; r1 does not fit the 5
     * left). Iteration 2 under MAX_UTILIZATION decodes r0 (1) and admits r1 whole (10) in the
     * same iteration; vLLM v0 runs r1's prompt alone in a prefill-only iteration */
    for (int trt = 0; trt < 2; trt++) {
        world w;
        sim_sched_cfg cfg = {.max_num_seqs = 4,
                             .max_num_batched_tokens = 15,
                             .policy = trt ? SIM_POLICY_MAX_UTIL : SIM_POLICY_VLLM};
        setup_cfg(&w, 2, 10, 3, 100, 16, &cfg);
        step(&w);
        assert_int_equal(w.n, 1);
        expect(&w, 0, 0, 10);
        step(&w);
        assert_int_equal(w.n, trt ? 2 : 1);
        if (trt) {
            expect(&w, 0, 0, 1);
            expect(&w, 1, 1, 10);
        } else {
            expect(&w, 0, 1, 10);
        }
        sim_sched_free(&w.s);
    }
}

static void test_lpm_orders_by_cached_prefix(void **state)
{
    (void)state;
    /* as above with a 20-block cache: after r0 cached ids 1 2 3, FCFS admits r1 (nothing cached)
     * before r2 (3 blocks cached); lpm puts r2 first */
    const uint64_t ids[3][3] = {{1, 2, 3}, {7, 8, 9}, {1, 2, 3}};
    for (int lpm = 0; lpm < 2; lpm++) {
        world w;
        sim_sched_cfg cfg = {.max_num_seqs = 1,
                             .max_num_batched_tokens = 1000,
                             .chunked_prefill = true,
                             .prefix_block_tokens = 32,
                             .lpm = lpm};
        setup_cfg(&w, 3, 100, 2, 20, 16, &cfg);
        for (int i = 0; i < 3; i++) {
            w.seqs[i].hash = ids[i];
            w.seqs[i].n_hash = 3;
        }
        step(&w);
        step(&w); /* r0 done */
        step(&w);
        expect(&w, 0, lpm ? 2 : 1, lpm ? 4 : 100);
        sim_sched_free(&w.s);
    }
}

static void test_largest_request_fits_32_bit_counts(void **state)
{
    (void)state;
    /* sim_seq holds token and block counts in 32 bits: the largest request the engine admits has
     * input + output = 2^26 (model.c's cap on max_position_embeddings). Reserving everything at
     * admission (GUARANTEED_NO_EVICT), input 2^26 - 2 and output 2 hold 2^26 tokens = 2^26 / 16
     * = 4,194,304 blocks of 16; the prompt is fed whole (budget 2^26) and samples its first
     * token, then one decode finishes it: computed = 2^26 - 1, nothing wraps. */
    const int64_t top = (int64_t)1 << 26;
    sim_sched_cfg cfg = {.max_num_seqs = 1,
                         .max_num_batched_tokens = top,
                         .chunked_prefill = true,
                         .policy = SIM_POLICY_NO_EVICT};
    world w;
    setup_cfg(&w, 1, top - 2, 2, top / 16, 16, &cfg);
    step(&w);
    expect(&w, 0, 0, top - 2);
    assert_int_equal(w.seqs[0].blocks, 4194304);
    assert_int_equal(w.s.kv.free_blocks, 0);
    assert_int_equal(w.seqs[0].generated, 1);
    step(&w);
    expect(&w, 0, 0, 1);
    assert_int_equal(w.seqs[0].computed, top - 1);
    assert_int_equal(w.seqs[0].phase, SIM_SEQ_DONE);
    assert_int_equal(w.s.kv.free_blocks, top / 16);
    /* the per-request state's budget (issue 18: 1M requests in well under 300 MB) */
    assert_true(sizeof(sim_seq) <= 96);
    sim_sched_free(&w.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunked_fcfs),
        cmocka_unit_test(test_max_num_seqs),
        cmocka_unit_test(test_preemption_recomputes_the_newest),
        cmocka_unit_test(test_unchunked_prefill_only),
        cmocka_unit_test(test_decode_flag),
        cmocka_unit_test(test_no_evict_never_preempts),
        cmocka_unit_test(test_sglang_ratio),
        cmocka_unit_test(test_static_batches),
        cmocka_unit_test(test_prefix_cache_hits_and_evictions),
        cmocka_unit_test(test_lpm_orders_by_cached_prefix),
        cmocka_unit_test(test_max_utilization_mixes_whole_prompts),
        cmocka_unit_test(test_largest_request_fits_32_bit_counts),
        cmocka_unit_test(test_abort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
