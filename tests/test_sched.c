/* test_sched.c - continuous batching decisions on small hand-traced scenarios. */
#include "testutil.h"

#include "sched.h"

#define MAXR 8

typedef struct world {
    sim_req reqs[MAXR];
    sim_sched s;
    sim_sched_entry batch[MAXR];
    size_t n;
} world;

static void setup(world *w, int nreq, int64_t input, int64_t output, int64_t blocks,
                  int64_t block_size, int64_t max_seqs, int64_t budget, bool chunked)
{
    memset(w, 0, sizeof *w);
    sim_kvcache kv;
    sim_kvcache_init(&kv, blocks, block_size);
    sim_sched_cfg cfg = {
        .max_num_seqs = max_seqs, .max_num_batched_tokens = budget, .chunked_prefill = chunked};
    assert_int_equal(sim_sched_init(&w->s, &cfg, &kv, MAXR), SIM_OK);
    for (int i = 0; i < nreq; i++) {
        w->reqs[i].input = input;
        w->reqs[i].output = output;
        sim_sched_enqueue(&w->s, w->reqs, i);
    }
}

/* Schedules one iteration and applies it as the engine does. */
static void step(world *w)
{
    w->n = sim_sched_next(&w->s, w->reqs, w->batch);
    for (size_t i = 0; i < w->n; i++) {
        sim_req *r = &w->reqs[w->batch[i].req];
        r->computed += w->batch[i].num_new;
        if (r->computed == sim_req_known(r) && ++r->generated == r->output)
            sim_sched_finish(&w->s, w->reqs, w->batch[i].req);
    }
    sim_sched_compact(&w->s, w->reqs);
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
    assert_int_equal(w.reqs[0].generated, 1); /* the prompt's last position samples a token */
    assert_int_equal(w.reqs[1].generated, 0); /* a partial chunk does not */
    assert_int_equal(w.reqs[1].blocks, 2);    /* 24 tokens in blocks of 16 */
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
    assert_int_equal(w.reqs[0].phase, SIM_REQ_DONE);
    step(&w);
    expect(&w, 0, 2, 8);
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
    assert_int_equal(w.reqs[0].computed, 48);
    step(&w);
    assert_int_equal(w.n, 1);
    expect(&w, 0, 0, 1);
    assert_int_equal(w.reqs[1].phase, SIM_REQ_WAITING);
    assert_int_equal(w.reqs[1].computed, 0);
    assert_int_equal(w.reqs[1].blocks, 0);
    assert_int_equal(w.reqs[1].preemptions, 1);
    assert_int_equal(w.reqs[1].generated, 9); /* tokens already streamed stay generated */
    assert_int_equal(w.s.preemptions, 1);
    assert_int_equal(w.reqs[0].blocks, 4);
    /* it comes back as a recompute of all 49 known tokens once r0 leaves room */
    assert_int_equal(sim_req_known(&w.reqs[1]), 49);
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
    w.reqs[1] = (sim_req){.input = 32, .output = 20, .generated = 8};
    sim_sched_enqueue(&w.s, w.reqs, 1);
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
    assert_int_equal(w.reqs[1].generated, 9);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
