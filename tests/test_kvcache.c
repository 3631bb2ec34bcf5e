/* test_kvcache.c - paged KV capacity and block accounting. */
#include "testutil.h"

#include "kvcache.h"

static void test_blocks(void **state)
{
    (void)state;
    sim_kvcache kv;
    sim_kvcache_init(&kv, 10, 16);
    assert_int_equal(sim_kvcache_blocks_for(&kv, 0), 0);
    assert_int_equal(sim_kvcache_blocks_for(&kv, 1), 1);
    assert_int_equal(sim_kvcache_blocks_for(&kv, 16), 1);
    assert_int_equal(sim_kvcache_blocks_for(&kv, 17), 2);
    assert_true(sim_kvcache_alloc(&kv, 7));
    assert_false(sim_kvcache_alloc(&kv, 4)); /* 3 left: nothing taken */
    assert_int_equal(sim_kvcache_used(&kv), 7);
    assert_true(sim_kvcache_alloc(&kv, 3));
    sim_kvcache_release(&kv, 6);
    assert_int_equal(sim_kvcache_used(&kv), 4);
    assert_int_equal(kv.peak_used, 10);
}

static void test_capacity(void **state)
{
    (void)state;
    /* Llama-3.1-8B on one H100 at 0.9: 79.6 GiB x 0.9 = 76,922,864,271 B, minus weights
     * 16,060,522,496, minus the workspace of an 8192-token step with 256 logits
     * (8192 x 102,400 + 256 x 128256 x 4 = 970,194,944), minus 1 GiB runtime reserve:
     * 58,818,405,007 B = 28,046 blocks of 16 tokens x 131,072 B. */
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = {
        .model = &m, .hw = &hw, .tp = 1, .prec = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false}};
    double bytes = sim_kvcache_capacity_bytes(&c, 0.9, 8192, 256, 0.0);
    assert_near(bytes, 58818405007.0, 1e-9);
    assert_int_equal((int64_t)(bytes / (16 * 131072.0)), 28046);
    /* fp8 KV: the same bytes hold twice the tokens */
    c.prec.kv = SIM_DT_FP8;
    assert_near(sim_kvcache_capacity_bytes(&c, 0.9, 8192, 256, 0.0), bytes, 1e-12);
    assert_near(sim_graph_kv_bytes_per_token(&m, 1, &c.prec), 65536.0, 0);
}

static void test_capacity_of_free_memory(void **state)
{
    (void)state;
    /* TensorRT-LLM's rule on the same setup: 0.9 of what the others leave. HBM 79.6 GiB =
     * 85,469,849,190.4 B, minus weights, workspace and reserve (16,060,522,496 + 970,194,944 +
     * 1,073,741,824) = 67,365,389,926.4 B free; x 0.9 = 60,628,850,933.8 B (vs 58,818,405,007 B
     * under vLLM's rule): 14,455 blocks of 32 tokens x 131,072 B. */
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = {.model = &m,
                      .hw = &hw,
                      .tp = 1,
                      .prec = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16},
                      .mem_rule = SIM_MEM_OF_FREE};
    double bytes = sim_kvcache_capacity_bytes(&c, 0.9, 8192, 256, 0.0);
    assert_near(bytes, 60628850933.76, 1e-9);
    assert_int_equal((int64_t)(bytes / (32 * 131072.0)), 14455);
}

static void test_evictable_blocks_are_not_used(void **state)
{
    (void)state;
    /* blocks only the prefix cache holds count as neither free nor in use */
    sim_kvcache kv;
    sim_kvcache_init(&kv, 10, 16);
    assert_true(sim_kvcache_alloc(&kv, 6));
    kv.evictable = 4; /* 4 of the 6 now belong to unused cache entries */
    assert_int_equal(sim_kvcache_used(&kv), 2);
    assert_true(sim_kvcache_alloc(&kv, 3));
    assert_int_equal(kv.peak_used, 6); /* 9 taken, 4 of them evictable: 5 after, 6 before */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_capacity_of_free_memory),
        cmocka_unit_test(test_evictable_blocks_are_not_used),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
