/* test_metrics.c - vLLM's metric definitions on hand-computed samples. */
#include "testutil.h"

#include "metrics.h"

static void test_percentiles_like_numpy(void **state)
{
    (void)state;
    /* numpy.percentile([1, 2, 3, 4], p): position p/100 x 3 between order statistics:
     * p50 -> 1.5 -> 2.5; p90 -> 2.7 -> 3.7; p99 -> 2.97 -> 3.97 */
    double v[4] = {4, 1, 3, 2};
    assert_near(sim_metrics_percentile(v, 4, 50), 2.5, 1e-12);
    assert_near(sim_metrics_percentile(v, 4, 90), 3.7, 1e-12);
    assert_near(sim_metrics_percentile(v, 4, 99), 3.97, 1e-12);
    assert_near(sim_metrics_percentile(v, 4, 0), 1.0, 0);
    assert_near(sim_metrics_percentile(v, 4, 100), 4.0, 0);
    double one[1] = {7};
    assert_near(sim_metrics_percentile(one, 1, 99), 7.0, 0);
    /* many equal values and a long sorted run stay exact (and fast) */
    size_t n = 200001;
    double *big = malloc(n * sizeof *big);
    for (size_t i = 0; i < n; i++)
        big[i] = (double)(i % 3 == 0 ? 5 : i); /* ~1/3 fives */
    double *copy = malloc(n * sizeof *copy);
    memcpy(copy, big, n * sizeof *big);
    /* reference: count-based order statistics */
    double med = sim_metrics_percentile(copy, n, 50);
    size_t below = 0, equal = 0;
    for (size_t i = 0; i < n; i++) {
        below += big[i] < med;
        equal += big[i] == med;
    }
    assert_true(below <= n / 2 && below + equal > n / 2);
    free(big);
    free(copy);
}

static void test_dist(void **state)
{
    (void)state;
    /* samples 1, 2, 3, 4 ms: mean 2.5, population std sqrt(1.25) = 1.1180 */
    double ns[4] = {3e6, 1e6, 4e6, 2e6};
    sim_dist d = sim_metrics_dist(ns, 4);
    assert_near(d.mean, 2.5, 1e-12);
    assert_near(d.std, 1.118033988749895, 1e-12);
    assert_near(d.median, 2.5, 1e-12);
    assert_near(d.p90, 3.7, 1e-12);
    assert_near(d.p99, 3.97, 1e-12);
    assert_int_equal(d.n, 4);
    sim_dist z = sim_metrics_dist(NULL, 0);
    assert_near(z.mean, 0.0, 0);
}

static void test_request_metrics_and_goodput(void **state)
{
    (void)state;
    /* two requests over a 10 s run:
     *   A: sent 0, first token 100 ms, last 1100 ms, 11 tokens -> TTFT 100, TPOT 100, E2EL 1100
     *   B: sent 1 s, first token 1.5 s, 1 token               -> TTFT 500, no TPOT, E2EL 500 */
    sim_seq seqs[2] = {
        {.input = 100,
         .output = 11,
         .generated = 11,
         .send_ns = 0,
         .first_token_ns = 100000000,
         .finish_ns = 1100000000,
         .phase = SIM_SEQ_DONE},
        {.input = 50,
         .output = 1,
         .generated = 1,
         .send_ns = 1000000000,
         .first_token_ns = 1500000000,
         .finish_ns = 1500000000,
         .phase = SIM_SEQ_DONE},
    };
    sim_hist itl = {0}; /* A's 10 gaps of 100 ms */
    assert_int_equal(sim_hist_add(&itl, 100000000, 10), 1);
    sim_engine_result r = {.seqs = seqs,
                           .n = 2,
                           .itl = itl,
                           .duration_ns = 10000000000LL,
                           .iterations = 20,
                           .scheduled_seqs = 30,
                           .kv_blocks = 100,
                           .kv_peak_blocks = 25};
    sim_slo slo = {{0}};
    sim_err err = {{0}};
    assert_int_equal(sim_slo_parse("ttft:300,tpot:120", &slo, &err), SIM_OK);
    sim_serve_metrics m;
    assert_int_equal(sim_metrics_compute(&r, &slo, &m), SIM_OK);
    assert_near(m.dist[SIM_M_TTFT].mean, 300.0, 1e-12);
    assert_int_equal(m.dist[SIM_M_TPOT].n, 1); /* one-token outputs have no TPOT */
    assert_near(m.dist[SIM_M_TPOT].mean, 100.0, 1e-12);
    assert_near(m.dist[SIM_M_ITL].mean, 100.0, 1e-12);
    assert_near(m.dist[SIM_M_E2EL].mean, 800.0, 1e-12);
    assert_near(m.request_throughput, 0.2, 1e-12);
    assert_near(m.output_throughput, 1.2, 1e-12);
    assert_near(m.total_token_throughput, 16.2, 1e-12);
    /* A meets both SLOs; B's TTFT of 500 ms misses 300 (its TPOT counts as 0) */
    assert_true(m.has_goodput);
    assert_near(m.request_goodput, 0.1, 1e-12);
    assert_near(m.mean_batch_size, 1.5, 0);
    assert_near(m.kv_cache_peak_usage, 0.25, 0);
    /* without SLOs no goodput */
    sim_slo none = {{0}};
    assert_int_equal(sim_metrics_compute(&r, &none, &m), SIM_OK);
    assert_false(m.has_goodput);
    /* any percentile: TTFT samples 100 and 500 ms -> p50 at position 0.5 = 300, p90 = 100 +
     * 0.9 x 400 = 460, p0 = 100; TPOT has A's 100 only; every ITL gap is 100; the median, p90
     * and p99 agree with the summary's */
    const double ps[4] = {90, 50, 0, 99};
    double q[4];
    assert_int_equal(sim_metrics_percentiles(&r, SIM_M_TTFT, ps, 4, q), SIM_OK);
    assert_near(q[0], 460.0, 1e-12);
    assert_near(q[1], 300.0, 1e-12);
    assert_near(q[2], 100.0, 0);
    assert_true(q[1] == m.dist[SIM_M_TTFT].median && q[0] == m.dist[SIM_M_TTFT].p90 &&
                q[3] == m.dist[SIM_M_TTFT].p99);
    assert_int_equal(sim_metrics_percentiles(&r, SIM_M_TPOT, ps, 4, q), SIM_OK);
    assert_near(q[0], 100.0, 1e-12);
    assert_int_equal(sim_metrics_percentiles(&r, SIM_M_ITL, ps, 4, q), SIM_OK);
    assert_near(q[3], 100.0, 0);
    sim_hist_free(&r.itl);
}

static void test_slo_parse(void **state)
{
    (void)state;
    sim_slo s;
    sim_err err = {{0}};
    assert_int_equal(sim_slo_parse("ttft:500 tpot:50,e2el:10000", &s, &err), SIM_OK);
    assert_near(s.ms[SIM_M_TTFT], 500.0, 0);
    assert_near(s.ms[SIM_M_TPOT], 50.0, 0);
    assert_near(s.ms[SIM_M_E2EL], 10000.0, 0);
    const char *bad[] = {"ttft", "ttft:", "ttft:-1", "itl:5", "latency:5", "ttft:5x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sim_slo_parse(bad[i], &s, &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, "--goodput"));
    }
}

/* vLLM's --percentile-metrics / --metric-percentiles, on three hand-made requests:
 *   TTFT 100, 200, 400 ms; E2EL 1100, 1200, 1400 ms; 11 tokens each -> TPOT 100 ms each.
 * numpy.percentile([100, 200, 400], 25) = 100 + 0.5 x (200 - 100) = 150;
 * 50 -> 200; 99 -> 200 + 0.98 x (400 - 200) = 396; 99.9 -> 200 + 0.998 x 200 = 399.6. */
static void test_selected_percentiles(void **state)
{
    (void)state;
    sim_seq seqs[3];
    const int64_t ttft_ms[3] = {100, 200, 400};
    for (int i = 0; i < 3; i++)
        seqs[i] = (sim_seq){.input = 10,
                            .output = 11,
                            .generated = 11,
                            .send_ns = 0,
                            .first_token_ns = ttft_ms[i] * 1000000,
                            .finish_ns = (ttft_ms[i] + 1000) * 1000000,
                            .phase = SIM_SEQ_DONE};
    sim_hist itl = {0}; /* two gaps: 5 and 7 ms */
    assert_int_equal(sim_hist_add(&itl, 5000000, 1), 1);
    assert_int_equal(sim_hist_add(&itl, 7000000, 1), 1);
    assert_int_equal(sim_hist_finish(&itl), 1);
    sim_engine_result r = {.seqs = seqs, .n = 3, .itl = itl, .duration_ns = 1};
    sim_pct_sel sel;
    sim_err err = {{0}};
    assert_int_equal(sim_pct_sel_parse("ttft,itl", "99.9,25,50,99,50", &sel, &err), SIM_OK);
    assert_int_equal(sel.n, 4); /* sorted, the repeated 50 kept once */
    assert_near(sel.p[0], 25.0, 0);
    assert_near(sel.p[3], 99.9, 0);
    assert_true(sel.metric[SIM_M_TTFT] && sel.metric[SIM_M_ITL]);
    assert_false(sel.metric[SIM_M_TPOT] || sel.metric[SIM_M_E2EL]);
    sim_pct_values v;
    assert_int_equal(sim_metrics_selected(&r, &sel, &v), SIM_OK);
    assert_near(v.ms[SIM_M_TTFT][0], 150.0, 1e-12);
    assert_near(v.ms[SIM_M_TTFT][1], 200.0, 1e-12);
    assert_near(v.ms[SIM_M_TTFT][2], 396.0, 1e-12);
    assert_near(v.ms[SIM_M_TTFT][3], 399.6, 1e-12);
    /* ITL [5, 7]: p25 = 5.5, p50 = 6 */
    assert_near(v.ms[SIM_M_ITL][0], 5.5, 1e-12);
    assert_near(v.ms[SIM_M_ITL][1], 6.0, 1e-12);
    assert_true(v.ms[SIM_M_E2EL][0] == 0.0); /* not selected */
    /* vLLM's defaults: ttft, tpot, itl at p99 */
    assert_int_equal(sim_pct_sel_parse(NULL, NULL, &sel, &err), SIM_OK);
    assert_int_equal(sel.n, 1);
    assert_near(sel.p[0], 99.0, 0);
    assert_true(sel.metric[SIM_M_TPOT] && !sel.metric[SIM_M_E2EL]);
    assert_int_equal(sim_metrics_selected(&r, &sel, &v), SIM_OK);
    assert_near(v.ms[SIM_M_TPOT][0], 100.0, 1e-12);
    char word[16];
    sim_pct_word(99.0, word, sizeof word);
    assert_string_equal(word, "99");
    sim_pct_word(99.9, word, sizeof word);
    assert_string_equal(word, "99.9");
    /* errors name the flag */
    assert_int_equal(sim_pct_sel_parse("ttft,latency", NULL, &sel, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--percentile-metrics: value 'ttft,latency'"));
    const char *bad[] = {"101", "-1", "abc", "50,", "", "nan"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sim_pct_sel_parse(NULL, bad[i], &sel, &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, "--metric-percentiles"));
    }
    sim_hist_free(&r.itl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles_like_numpy),      cmocka_unit_test(test_dist),
        cmocka_unit_test(test_request_metrics_and_goodput), cmocka_unit_test(test_slo_parse),
        cmocka_unit_test(test_selected_percentiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
