/* test_sweep.c - grids, shards, the parallel point loop, the Pareto frontier and the SLO pick. */
#include "testutil.h"

#include "sweep.h"

static void test_grid_order(void **state)
{
    (void)state;
    sim_grid g = {0};
    sim_err err = {{0}};
    assert_int_equal(sim_grid_add(&g, "--tp", "1,2", &err), SIM_OK);
    assert_int_equal(sim_grid_add(&g, "--request-rate", "1,4,inf", &err), SIM_OK);
    assert_int_equal(sim_grid_points(&g), 6);
    /* the last flag varies fastest: point 4 = (tp 2, rate 4) */
    const char *v[2];
    sim_grid_point(&g, 4, v);
    assert_string_equal(v[0], "2");
    assert_string_equal(v[1], "4");
    sim_grid_point(&g, 2, v);
    assert_string_equal(v[0], "1");
    assert_string_equal(v[1], "inf");
    assert_int_equal(sim_grid_add(&g, "--batch", "1,,2", &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--batch"));
    sim_grid_free(&g);
}

/* A flag swept twice would have its later values silently win: it is refused instead. */
static void test_grid_flag_given_twice(void **state)
{
    (void)state;
    sim_grid g = {0};
    sim_err err = {{0}};
    const char *const one[] = {"1", "2"};
    assert_int_equal(sim_grid_add_values(&g, "--batch", one, 2, &err), SIM_OK);
    assert_int_equal(sim_grid_add(&g, "--batch", "4", &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--batch: given twice"));
    const char *const four[] = {"4"};
    assert_int_equal(sim_grid_add_values(&g, "--batch", four, 1, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--batch: given twice"));
    /* the grid is unchanged: one dimension, its two values */
    assert_int_equal(g.n_dims, 1);
    assert_int_equal(sim_grid_points(&g), 2);
    assert_int_equal(sim_grid_add(&g, "--tp", "1,2", &err), SIM_OK);
    assert_int_equal(sim_grid_points(&g), 4);
    /* a name too long for the dimension is refused, not cut */
    char name[100];
    memset(name, 'x', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    assert_int_equal(sim_grid_add(&g, name, "1", &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "longer than 63"));
    assert_int_equal(g.n_dims, 2);
    sim_grid_free(&g);
}

static void test_shards(void **state)
{
    (void)state;
    sim_grid_shard s;
    sim_err err = {{0}};
    assert_int_equal(sim_grid_shard_parse("2/3", &s, &err), SIM_OK);
    /* 10 points over 3 shards: shard 2 runs points 2, 5, 8 */
    assert_int_equal(sim_grid_shard_points(&s, 10), 3);
    assert_int_equal(sim_grid_shard_point(&s, 2), 8);
    assert_int_equal(sim_grid_shard_parse("0/1", &s, &err), SIM_OK);
    assert_int_equal(sim_grid_shard_points(&s, 10), 10);
    const char *bad[] = {"3/3", "-1/3", "1/0", "1", "a/b", "1/2/3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sim_grid_shard_parse(bad[i], &s, &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, "--shard"));
    }
}

/* A deterministic evaluation: the row names the point and its values. */
static void eval(void *ctx, size_t point, sim_sweep_row *row)
{
    const sim_grid *g = ctx;
    const char *v[2];
    sim_grid_point(g, point, v);
    char buf[64];
    snprintf(buf, sizeof buf, "%zu:%s:%s\n", point, v[0], v[1]);
    row->text = strdup(buf);
    row->ok = true;
    row->tpot_ms = (double)point;
}

static void test_threads_and_shards_do_not_change_rows(void **state)
{
    (void)state;
    sim_grid g = {0};
    sim_err err = {{0}};
    assert_int_equal(sim_grid_add(&g, "--a", "1,2,3,4,5,6,7", &err), SIM_OK);
    assert_int_equal(sim_grid_add(&g, "--b", "x,y,z", &err), SIM_OK);
    sim_grid_shard all = {0, 1};
    sim_sweep_row *one, *many;
    size_t n1, n4;
    assert_int_equal(sim_sweep_run(&g, &all, 1, eval, &g, NULL, &one, &n1, &err), SIM_OK);
    assert_int_equal(sim_sweep_run(&g, &all, 4, eval, &g, NULL, &many, &n4, &err), SIM_OK);
    assert_int_equal(n1, 21);
    assert_int_equal(n4, 21);
    for (size_t i = 0; i < n1; i++) {
        assert_string_equal(one[i].text, many[i].text);
        assert_int_equal(one[i].point, i);
    }
    /* the shards together hold every row exactly once */
    size_t seen = 0;
    for (size_t k = 0; k < 4; k++) {
        sim_grid_shard s = {k, 4};
        sim_sweep_row *rows;
        size_t n;
        assert_int_equal(sim_sweep_run(&g, &s, 2, eval, &g, NULL, &rows, &n, &err), SIM_OK);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(rows[i].point % 4, k);
            assert_string_equal(rows[i].text, one[rows[i].point].text);
        }
        seen += n;
        sim_sweep_rows_free(rows, n);
    }
    assert_int_equal(seen, 21);
    sim_sweep_rows_free(one, n1);
    sim_sweep_rows_free(many, n4);
    sim_grid_free(&g);
}

static void test_pareto_and_best(void **state)
{
    (void)state;
    /* (TPOT ms, tok/s per GPU), worked by hand:
     *   A (10, 100)  frontier: lowest TPOT
     *   B (12, 300)  frontier: more throughput than A
     *   C (12, 250)  dominated by B (same TPOT, less throughput)
     *   D (15, 280)  dominated by B (slower and less)
     *   E (20, 500)  frontier
     *   F (25, 900)  frontier, but misses the SLO
     *   G (5, 999)   invalid point: never on it
     * Meeting the SLO: A, B, D, E -> best is E (500). */
    sim_sweep_row r[7] = {
        {.point = 0, .ok = true, .tpot_ms = 10, .tput_per_gpu = 100, .meets_slo = true},
        {.point = 1, .ok = true, .tpot_ms = 12, .tput_per_gpu = 300, .meets_slo = true},
        {.point = 2, .ok = true, .tpot_ms = 12, .tput_per_gpu = 250, .meets_slo = false},
        {.point = 3, .ok = true, .tpot_ms = 15, .tput_per_gpu = 280, .meets_slo = true},
        {.point = 4, .ok = true, .tpot_ms = 20, .tput_per_gpu = 500, .meets_slo = true},
        {.point = 5, .ok = true, .tpot_ms = 25, .tput_per_gpu = 900, .meets_slo = false},
        {.point = 6, .ok = false, .tpot_ms = 5, .tput_per_gpu = 999, .meets_slo = false},
    };
    bool front[7];
    assert_int_equal(sim_sweep_pareto(r, 7, front, NULL), 4);
    const bool want[7] = {true, true, false, false, true, true, false};
    for (int i = 0; i < 7; i++)
        assert_int_equal(front[i], want[i]);
    /* the frontier handed back as it runs, from the lowest TPOT up, whatever the row order */
    size_t order[7];
    assert_int_equal(sim_sweep_pareto(r, 7, front, order), 4);
    const size_t want_order[4] = {0, 1, 4, 5};
    for (int i = 0; i < 4; i++)
        assert_int_equal(order[i], want_order[i]);
    sim_sweep_row shuffled[7] = {r[5], r[3], r[0], r[6], r[4], r[2], r[1]};
    assert_int_equal(sim_sweep_pareto(shuffled, 7, front, order), 4);
    const size_t want_shuffled[4] = {2, 6, 4, 0}; /* A, B, E, F */
    for (int i = 0; i < 4; i++)
        assert_int_equal(order[i], want_shuffled[i]);
    assert_int_equal(sim_sweep_best(r, 7), 4);
    for (int i = 0; i < 7; i++)
        r[i].meets_slo = false;
    assert_int_equal(sim_sweep_best(r, 7), 7); /* none */
}

static void test_least_energy(void **state)
{
    (void)state;
    /* J per output token (0: power unknown), worked by hand:
     *   0: 0.30 meets      1: 0.12 misses the SLO      2: 0.20 meets
     *   3: 0.20 meets (tie with 2: the first in grid order wins)
     *   4: 0    meets, power unknown: never picked     5: 0.05 invalid: never picked
     * under the SLO: 2; without it: 1; none known: n */
    sim_sweep_row r[6] = {
        {.point = 0, .ok = true, .meets_slo = true, .joules_per_output_token = 0.30},
        {.point = 1, .ok = true, .meets_slo = false, .joules_per_output_token = 0.12},
        {.point = 2, .ok = true, .meets_slo = true, .joules_per_output_token = 0.20},
        {.point = 3, .ok = true, .meets_slo = true, .joules_per_output_token = 0.20},
        {.point = 4, .ok = true, .meets_slo = true, .joules_per_output_token = 0.0},
        {.point = 5, .ok = false, .meets_slo = false, .joules_per_output_token = 0.05},
    };
    assert_int_equal(sim_sweep_least_energy(r, 6, true), 2);
    assert_int_equal(sim_sweep_least_energy(r, 6, false), 1);
    for (int i = 0; i < 6; i++)
        r[i].joules_per_output_token = 0.0;
    assert_int_equal(sim_sweep_least_energy(r, 6, false), 6);
    /* the cost objective reads its own column only */
    r[0].usd_per_million_output_tokens = 1.0;
    assert_int_equal(sim_sweep_cheapest(r, 6, false), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_order),
        cmocka_unit_test(test_grid_flag_given_twice),
        cmocka_unit_test(test_shards),
        cmocka_unit_test(test_threads_and_shards_do_not_change_rows),
        cmocka_unit_test(test_pareto_and_best),
        cmocka_unit_test(test_least_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
