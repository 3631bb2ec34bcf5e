/* test_prefix.c - the prefix cache's map, uses and LRU eviction, traced by hand. */
#include "testutil.h"

#include "prefix.h"

static void test_match_share_and_evict_tail_first(void **state)
{
    (void)state;
    sim_prefix p;
    assert_int_equal(sim_prefix_init(&p, 32, 2, 16), SIM_OK);
    const uint64_t a[] = {1, 2, 3}, b[] = {1, 2, 9};
    assert_int_equal(sim_prefix_match(&p, a, 3), 0);
    /* a request computes blocks 1, 2, 3: three entries with one use each, nothing evictable */
    for (int k = 0; k < 3; k++)
        assert_true(sim_prefix_insert(&p, a[k]));
    assert_int_equal(p.evictable_blocks, 0);
    assert_int_equal(sim_prefix_match(&p, a, 3), 3);
    assert_int_equal(sim_prefix_match(&p, b, 3), 2); /* 9 breaks the chain */
    /* a second request shares 1 and 2 */
    sim_prefix_ref(&p, b, 2);
    /* the first finishes: 3 has no user left (2 blocks evictable); 1, 2 are still used */
    sim_prefix_unref(&p, a, 3);
    assert_int_equal(p.evictable_blocks, 2);
    /* the second finishes too: released 2 then 1, so the LRU order is 3, 2, 1 */
    sim_prefix_unref(&p, b, 2);
    assert_int_equal(p.evictable_blocks, 6);
    /* 3 KV blocks wanted: entries of 2 blocks each go from the head, 3 then 2 (4 blocks freed) */
    assert_int_equal(sim_prefix_evict(&p, 3), 4);
    assert_int_equal(p.evictable_blocks, 2);
    assert_int_equal(sim_prefix_match(&p, a, 3), 1); /* the prompt's head survives */
    /* an id cached already is shared, not duplicated */
    assert_false(sim_prefix_insert(&p, 1));
    assert_int_equal(p.evictable_blocks, 0);
    assert_int_equal(sim_prefix_evict(&p, 10), 0); /* nothing unused to evict */
    sim_prefix_free(&p);
}

static void test_map_survives_many_deletions(void **state)
{
    (void)state;
    /* 500 entries in 1024 slots, ids chosen to collide in probe runs; evicting the 250 oldest
     * must leave exactly the 250 newest findable (backward-shift deletion keeps runs whole) */
    sim_prefix p;
    assert_int_equal(sim_prefix_init(&p, 16, 1, 500), SIM_OK);
    uint64_t ids[500];
    for (int i = 0; i < 500; i++) {
        ids[i] = (uint64_t)i * 1024u;
        assert_true(sim_prefix_insert(&p, ids[i]));
    }
    for (int i = 0; i < 500; i++)
        sim_prefix_unref(&p, &ids[i], 1); /* LRU order: 0, 1, ..., 499 */
    assert_int_equal(sim_prefix_evict(&p, 250), 250);
    for (int i = 0; i < 500; i++)
        assert_int_equal(sim_prefix_match(&p, &ids[i], 1), i >= 250);
    sim_prefix_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_share_and_evict_tail_first),
        cmocka_unit_test(test_map_survives_many_deletions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
