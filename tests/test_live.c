/* test_live.c - the live simulation's metrics (live_prom.c): vLLM's gauges counted from the
 * engine's events, histograms bucketed by hand, the Prometheus text read back. */
#include "testutil.h"

#include "live_internal.h"

/* The value on the line that starts with `key` (its labels included), or -1. */
static double value_of(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p ? strtod(p + strlen(key), NULL) : -1.0;
}

static void test_gauges_and_histograms(void **state)
{
    (void)state;
    live_prom p;
    live_prom_init(&p);
    /* three arrive, two are admitted, one of them preempted (back to waiting), one finishes:
     * running 2 - 1 - 1 = 0 ... counted event by event */
    const sim_request_event evs[] = {SIM_EV_ARRIVED,   SIM_EV_ARRIVED,   SIM_EV_ARRIVED,
                                     SIM_EV_SCHEDULED, SIM_EV_SCHEDULED, SIM_EV_PREEMPTED,
                                     SIM_EV_DECODING,  SIM_EV_FINISHED};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        live_prom_request(&p, evs[i]);
    assert_int_equal(p.waiting, 3 - 2 + 1); /* 2 */
    assert_int_equal(p.running, 2 - 1 - 1); /* 0 */
    assert_int_equal(p.preemptions, 1);
    live_prom_iteration(&p, 0.25);
    live_prom_iteration(&p, 0.5);
    /* TTFTs 0.003 s (bucket le 0.005), 0.005 s (le 0.005: the bound holds it), 3000 s (+Inf) */
    live_prom_ttft(&p, 0.003, 300); /* prompts of 300, 12 and 0 tokens: 312 counted */
    live_prom_ttft(&p, 0.005, 12);
    live_prom_ttft(&p, 3000.0, 0);
    live_prom_gap(&p, 0.02); /* le 0.025 */
    live_prom_tokens(&p, 7);
    live_prom_finished(&p, 1.2); /* le 1.5 */
    live_prom_abort(&p, SIM_SEQ_WAITING); /* one of the two waiting: 1 left */
    assert_int_equal(p.waiting, 1);
    sim_strbuf b = {0};
    live_prom_write(&p, "a\"b", &b);
    assert_false(b.oom);
    const char *lab = "{engine=\"0\",model_name=\"a\\\"b\"}";
    char key[160];
    snprintf(key, sizeof key, "vllm:num_requests_waiting%s ", lab);
    assert_true(value_of(b.s, key) == 1.0);
    snprintf(key, sizeof key, "vllm:num_requests_running%s ", lab);
    assert_true(value_of(b.s, key) == 0.0);
    snprintf(key, sizeof key, "vllm:kv_cache_usage_perc%s ", lab);
    assert_true(value_of(b.s, key) == 0.5); /* the last iteration's */
    snprintf(key, sizeof key, "vllm:prompt_tokens_total%s ", lab);
    assert_true(value_of(b.s, key) == 312.0);
    snprintf(key, sizeof key, "vllm:generation_tokens_total%s ", lab);
    assert_true(value_of(b.s, key) == 7.0);
    assert_non_null(strstr(b.s, "# TYPE vllm:time_to_first_token_seconds histogram\n"));
    /* cumulative: le 0.001 holds none, le 0.005 both small ones, +Inf all three */
    assert_non_null(strstr(b.s, "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"0.001\","
                                "model_name=\"a\\\"b\"} 0\n"));
    assert_non_null(strstr(b.s, "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"0.005\","
                                "model_name=\"a\\\"b\"} 2\n"));
    assert_non_null(strstr(b.s, "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"2560\","
                                "model_name=\"a\\\"b\"} 2\n"));
    assert_non_null(strstr(b.s, "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"+Inf\","
                                "model_name=\"a\\\"b\"} 3\n"));
    snprintf(key, sizeof key, "vllm:time_to_first_token_seconds_sum%s ", lab);
    assert_true(fabs(value_of(b.s, key) - 3000.008) < 1e-9);
    assert_non_null(strstr(b.s, "vllm:inter_token_latency_seconds_bucket{engine=\"0\",le=\"0.025\","
                                "model_name=\"a\\\"b\"} 1\n"));
    assert_non_null(strstr(b.s, "vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"1\","
                                "model_name=\"a\\\"b\"} 0\n"));
    assert_non_null(strstr(b.s, "vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"1.5\","
                                "model_name=\"a\\\"b\"} 1\n"));
    assert_non_null(strstr(b.s, "vllm:request_success_total{engine=\"0\",model_name=\"a\\\"b\","
                                "finished_reason=\"length\"} 1\n"));
    assert_non_null(strstr(b.s, "vllm:request_success_total{engine=\"0\",model_name=\"a\\\"b\","
                                "finished_reason=\"abort\"} 1\n"));
    sim_strbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gauges_and_histograms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
