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
    assert_true(sim_kvcache_alloc(&kv, 7));
    assert_false(sim_kvcache_alloc(&kv, 4)); /* 3 left: nothing taken */
    assert_int_equal(sim_kvcache_used(&kv), 7);
    assert_true(sim_kvcache_alloc(&kv, 3));
    sim_kvcache_release(&kv, 6);
    assert_int_equal(sim_kvcache_used(&kv), 4);
    assert_int_equal(kv.peak_used, 10);
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
        cmocka_unit_test(test_evictable_blocks_are_not_used),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
