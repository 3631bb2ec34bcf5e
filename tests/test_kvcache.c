/* test_kvcache.c - block accounting of the paged KV cache. */
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
    assert_true(sim_kvcache_alloc(&kv, 7, 0));
    assert_false(sim_kvcache_alloc(&kv, 4, 0)); /* 3 left: nothing taken */
    assert_int_equal(sim_kvcache_used(&kv, 0), 7);
    assert_true(sim_kvcache_alloc(&kv, 3, 0));
    sim_kvcache_release(&kv, 6);
    assert_int_equal(sim_kvcache_used(&kv, 0), 4);
    assert_int_equal(kv.peak_used, 10);
}

static void test_evictable_blocks_are_not_used(void **state)
{
    (void)state;
    /* blocks only the prefix cache holds count as neither free nor in use */
    sim_kvcache kv;
    sim_kvcache_init(&kv, 10, 16);
    assert_true(sim_kvcache_alloc(&kv, 6, 0));
    /* 4 of the 6 now belong to unused cache entries (the prefix cache's count): 10 - 4 free
     * - 4 evictable = 2 in use */
    assert_int_equal(sim_kvcache_used(&kv, 4), 2);
    assert_true(sim_kvcache_alloc(&kv, 3, 4));
    assert_int_equal(kv.peak_used, 6); /* 9 taken, 4 of them evictable: 5 after, 6 before */
}

static void test_sliding_window_tables(void **state)
{
    (void)state;
    sim_kvcache kv;
    sim_kvcache_init(&kv, 1000, 16);
    /* one full table: blocks_for, as before */
    assert_int_equal(sim_kvcache_blocks_held(&kv, 0, 33), 3);
    /* gpt-oss under vLLM: 1 full + 1 sliding table, window 128. Decoding token 33001 (33000
     * computed): full ceil(33001 / 16) = 2063; sliding frees blocks [0, (33000 - 128 + 1) / 16
     * = 2054): 2063 - 2054 = 9 kept. Together 2072, against 2 x 2063 = 4126 at full length. */
    sim_kvcache_set_groups(&kv, 1, 1, 128);
    assert_int_equal(sim_kvcache_blocks_held(&kv, 33000, 33001), 2072);
    /* a prompt's first chunk of 8192 tokens (nothing computed): nothing freed yet, 512 + 512 */
    assert_int_equal(sim_kvcache_blocks_held(&kv, 0, 8192), 1024);
    /* inside the window nothing is freed: 127 computed, (127 - 128 + 1) / 16 = 0 */
    assert_int_equal(sim_kvcache_blocks_held(&kv, 127, 128), 16);
    /* 144 computed: (144 - 127) / 16 = 1 block freed; 145 tokens = 10 blocks, 10 + 9 */
    assert_int_equal(sim_kvcache_blocks_held(&kv, 144, 145), 19);
    /* Gemma-3-27B-like 10 full + 52 sliding layers (vLLM: groups of 10, 1 full + 6 sliding
     * tables), window 1024, decoding token 131072: full 8192; each sliding table frees
     * (131071 - 1024 + 1) / 16 = 8128 blocks and keeps 64: 8192 + 6 x 64 = 8576 */
    sim_kvcache_set_groups(&kv, 1, 6, 1024);
    assert_int_equal(sim_kvcache_blocks_held(&kv, 131071, 131072), 8192 + 6 * 64);
}

/* Llama 4's chunked layers under vLLM (ChunkedLocalAttentionManager): the blocks before the
 * current chunk of 8192 are freed. 12 full + 36 chunked layers: groups of 12, 1 full and 3
 * chunked tables. Decoding token 100,001 (100,000 computed): full ceil(100001 / 16) = 6251;
 * chunked skips 100000 / 8192 x 8192 = 98,304 tokens = 6144 blocks, keeps 107: 6251 + 3 x 107 =
 * 6572 blocks; at a chunk's start (98,304 computed) each chunked table keeps 1 block. */
static void test_chunked_tables(void **state)
{
    (void)state;
    sim_kvcache kv;
    sim_kvcache_init(&kv, 100000, 16);
    sim_kvcache_set_groups(&kv, 1, 3, 8192);
    sim_kvcache_set_chunked(&kv, true);
    assert_int_equal(sim_kvcache_blocks_held(&kv, 100000, 100001), 6251 + 3 * 107);
    assert_int_equal(sim_kvcache_blocks_held(&kv, 98304, 98305), 6145 + 3 * 1);
    /* inside the first chunk nothing is freed */
    assert_int_equal(sim_kvcache_blocks_held(&kv, 8191, 8192), 4 * 512);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_evictable_blocks_are_not_used),
        cmocka_unit_test(test_sliding_window_tables),
        cmocka_unit_test(test_chunked_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
