/* test_price.c - cost per hour and per token, against numbers worked out by hand. */
#include "testutil.h"

#include "price.h"

static void test_hand_worked(void **state)
{
    (void)state;
    sim_price p;
    /* 8 GPUs at $2.69: 8 x 2.69 = $21.52 per hour. 1000 output tokens/s = 3.6e6 per hour, so a
     * million cost 21.52 / 3.6 = $5.97778; 3000 total tokens/s: 21.52 / 10.8 = $1.99259. */
    assert_true(sim_price_compute(8, 2.69, 1000.0, 3000.0, &p));
    assert_int_equal(p.gpus, 8);
    assert_near(p.usd_per_gpu_hour, 2.69, 1e-12);
    assert_near(p.usd_per_hour, 21.52, 1e-12);
    assert_near(p.usd_per_million_output_tokens, 5.977777778, 1e-9);
    assert_near(p.usd_per_million_total_tokens, 1.992592593, 1e-9);
    /* one GPU at $3.60 producing 1 token/s: $3.60 per 3600 tokens = $1000 per million */
    assert_near(sim_price_per_million(3.6, 1.0), 1000.0, 1e-12);
}

static void test_doubling_price_doubles_cost(void **state)
{
    (void)state;
    sim_price a, b;
    assert_true(sim_price_compute(4, 1.5, 777.0, 1234.0, &a));
    assert_true(sim_price_compute(4, 3.0, 777.0, 1234.0, &b));
    assert_near(b.usd_per_hour, 2.0 * a.usd_per_hour, 1e-12);
    assert_near(b.usd_per_million_output_tokens, 2.0 * a.usd_per_million_output_tokens, 1e-12);
    assert_near(b.usd_per_million_total_tokens, 2.0 * a.usd_per_million_total_tokens, 1e-12);
}

static void test_unknown_and_idle(void **state)
{
    (void)state;
    sim_price p;
    /* no price: unknown, every dollar figure 0 (the reports print null / "unknown") */
    assert_false(sim_price_compute(2, 0.0, 100.0, 200.0, &p));
    assert_int_equal(p.gpus, 2);
    assert_true(p.usd_per_hour == 0.0 && p.usd_per_million_output_tokens == 0.0);
    /* no tokens: the per-token price is 0, never inf or NaN */
    assert_true(sim_price_compute(2, 2.0, 0.0, 0.0, &p));
    assert_near(p.usd_per_hour, 4.0, 1e-12);
    assert_true(p.usd_per_million_output_tokens == 0.0);
    assert_true(p.usd_per_million_total_tokens == 0.0);
}

/* --usd-per-gpu-hour's values: a bare number prices every device; DEVICE=USD pairs price those
 * named and leave the rest to their files (0); malformed items are refused by name. */
static void test_price_list(void **state)
{
    (void)state;
    sim_price_list l;
    sim_err e;
    assert_int_equal(sim_price_list_parse("--usd-per-gpu-hour", "2.49", &l, &e), SIM_OK);
    assert_near(sim_price_list_find(&l, "h100-sxm"), 2.49, 1e-15);
    assert_near(sim_price_list_find(&l, "anything"), 2.49, 1e-15);
    assert_int_equal(sim_price_list_parse("--usd-per-gpu-hour", "h100-sxm=2.49,b300=7.5", &l, &e),
                     SIM_OK);
    assert_int_equal((int)l.n, 2);
    assert_near(sim_price_list_find(&l, "h100-sxm"), 2.49, 1e-15);
    assert_near(sim_price_list_find(&l, "b300"), 7.5, 1e-15);
    assert_true(sim_price_list_find(&l, "h200") == 0.0);
    const char *bad[][2] = {
        {"0", "value '0'"},
        {"0x2", "value '0x2'"},
        {"inf", "value 'inf'"},
        {"h100-sxm=2,", "item '' of"},
        {"=2", "item '=2'"},
        {"h100-sxm=", "item 'h100-sxm='"},
        {"h100-sxm=nan", "item 'h100-sxm=nan'"},
        {"h100-sxm=2,b300", "item 'b300'"},
        {"h100-sxm=20000", "item 'h100-sxm=20000'"},
        {"b300=2,b300=3", "device 'b300' priced twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sim_price_list_parse("--usd-per-gpu-hour", bad[i][0], &l, &e),
                         SIM_EINPUT);
        assert_non_null(strstr(e.msg, "--usd-per-gpu-hour"));
        assert_non_null(strstr(e.msg, bad[i][1]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_worked),
        cmocka_unit_test(test_doubling_price_doubles_cost),
        cmocka_unit_test(test_unknown_and_idle),
        cmocka_unit_test(test_price_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
