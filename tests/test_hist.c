/* test_hist.c - (value, count) runs: numpy's percentiles and exact moments, whatever the order
 * the samples came in. */
#include "testutil.h"

#include "hist.h"
#include "metrics.h"

static void test_percentiles_and_moments_by_hand(void **state)
{
    (void)state;
    /* samples 1, 2, 3, 4 added out of order: numpy.percentile at p50 -> position 1.5 -> 2.5,
     * p90 -> 2.7 -> 3.7, p99 -> 2.97 -> 3.97; mean 2.5; variance (1.5^2 + 0.5^2) x 2 / 4 = 1.25,
     * std sqrt(1.25) = 1.118033988749895 */
    sim_hist h = {0};
    const int64_t v[4] = {3, 1, 4, 2};
    for (int i = 0; i < 4; i++)
        assert_int_equal(sim_hist_add(&h, v[i], 1), 1);
    assert_int_equal(sim_hist_finish(&h), 1);
    assert_int_equal(h.len, 4);
    assert_near(sim_hist_percentile(&h, 50), 2.5, 0);
    assert_near(sim_hist_percentile(&h, 90), 3.7, 1e-15);
    assert_near(sim_hist_percentile(&h, 99), 3.97, 1e-15);
    assert_near(sim_hist_percentile(&h, 0), 1.0, 0);
    assert_near(sim_hist_percentile(&h, 100), 4.0, 0);
    double mean, std;
    sim_hist_moments(&h, &mean, &std);
    assert_near(mean, 2.5, 0);
    assert_near(std, 1.118033988749895, 1e-15);
    /* runs with counts: 10, 10, 10, 20. p50: position 1.5 lies between two 10s -> 10; p90: 2.7,
     * between the last 10 and the 20 -> 10 + 0.7 x 10 = 17; mean 12.5; variance
     * (3 x 2.5^2 + 7.5^2) / 4 = 18.75, std 4.330127018922194 */
    sim_hist_clear(&h);
    sim_hist_add(&h, 20, 1);
    sim_hist_add(&h, 10, 2);
    sim_hist_add(&h, 10, 1); /* joins the run before it */
    sim_hist_add(&h, 7, 0);  /* nothing */
    assert_int_equal(sim_hist_finish(&h), 1);
    assert_int_equal(h.n, 4);
    assert_int_equal(h.len, 2);
    assert_near(sim_hist_percentile(&h, 50), 10.0, 0);
    assert_near(sim_hist_percentile(&h, 90), 17.0, 1e-15);
    sim_hist_moments(&h, &mean, &std);
    assert_near(mean, 12.5, 0);
    assert_near(std, 4.330127018922194, 1e-15);
    sim_hist_free(&h);
    sim_hist_moments(&h, &mean, &std); /* empty */
    assert_near(mean, 0.0, 0);
    assert_near(std, 0.0, 0);
}

static void test_moments_exact_at_the_extremes(void **state)
{
    (void)state;
    /* {0, a} in equal numbers: mean a/2 and population std a/2, exactly. With a = 2^62 and
     * 2^40 samples of each: S1 = 2^102, S2 = 2^164, n S2 - S1^2 = 2^205 - 2^204 = 2^204,
     * sqrt = 2^102, over n = 2^41 -> 2^61: every limb of the 256-bit arithmetic is used. */
    sim_hist h = {0};
    const int64_t a = INT64_C(1) << 62, c = INT64_C(1) << 40;
    sim_hist_add(&h, a, c);
    sim_hist_add(&h, 0, c);
    assert_int_equal(sim_hist_finish(&h), 1);
    double mean, std;
    sim_hist_moments(&h, &mean, &std);
    assert_near(mean, ldexp(1.0, 61), 0);
    assert_near(std, ldexp(1.0, 61), 0);
    assert_near(sim_hist_percentile(&h, 50), ldexp(1.0, 61), 0);
    /* a constant: std exactly 0 (a two-pass double sum of 10^6 ns values agrees) */
    sim_hist_clear(&h);
    sim_hist_add(&h, 1000001, 3);
    sim_hist_add(&h, 1000001, 1);
    sim_hist_moments(&h, &mean, &std);
    assert_near(mean, 1000001.0, 0);
    assert_near(std, 0.0, 0);
    sim_hist_free(&h);
}

/* The runs give what the sorted array of every sample gives (sim_metrics_percentile, numpy's
 * rule), and the same bytes however the samples were ordered and grouped. */
static void test_matches_the_expanded_samples(void **state)
{
    (void)state;
    enum { RUNS = 3000 };
    sim_hist a = {0}, b = {0};
    int64_t vals[RUNS], cnts[RUNS];
    uint64_t x = 12345;
    size_t n = 0;
    for (int i = 0; i < RUNS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        vals[i] = (int64_t)((x >> 33) % 5000) * 1000 + 7; /* ~5000 distinct: merges happen */
        cnts[i] = (int64_t)((x >> 20) % 7) + 1;
        n += (size_t)cnts[i];
        assert_int_equal(sim_hist_add(&a, vals[i], cnts[i]), 1);
    }
    /* b: the same samples one at a time, in reverse */
    double *all = malloc(n * sizeof *all);
    size_t m = 0;
    for (int i = RUNS - 1; i >= 0; i--)
        for (int64_t k = 0; k < cnts[i]; k++) {
            sim_hist_add(&b, vals[i], 1);
            all[m++] = (double)vals[i];
        }
    assert_int_equal(sim_hist_finish(&a), 1);
    assert_int_equal(sim_hist_finish(&b), 1);
    assert_int_equal(a.n, (int64_t)n);
    assert_int_equal(a.len, b.len);
    assert_true(a.cap <= 2 * 8192); /* bounded by the distinct values, not the samples */
    const double ps[] = {0, 1, 25, 50, 90, 99, 99.9, 100, 33.3};
    for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++) {
        double ref = sim_metrics_percentile(all, n, ps[j]);
        assert_true(sim_hist_percentile(&a, ps[j]) == ref);
        assert_true(sim_hist_percentile(&b, ps[j]) == ref);
    }
    double ma, sa, mb, sb;
    sim_hist_moments(&a, &ma, &sa);
    sim_hist_moments(&b, &mb, &sb);
    assert_true(ma == mb && sa == sb);
    /* values below 2^53 with a sum below 2^53: the double sum is exact, so the means agree
     * exactly; the std agrees to rounding */
    sim_dist d = sim_metrics_dist(all, n);
    assert_true(ma / 1e6 == d.mean);
    assert_near(sa / 1e6, d.std, 1e-12);
    free(all);
    sim_hist_free(&a);
    sim_hist_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles_and_moments_by_hand),
        cmocka_unit_test(test_moments_exact_at_the_extremes),
        cmocka_unit_test(test_matches_the_expanded_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
