/* test_frontend.c - the front end's queue and stream rule by hand, and the engine with a front
 * end: a burst queues in it at its hand-worked rate, the stream interval moves TTFT by the
 * chunk's decode steps, and a front end that costs nothing is the engine without one. */
#include "engfix.h"

#include "cluster.h"
#include "engine.h"
#include "frontend.h"
#include "metrics.h"

/* 2 ms per request, 1 us per prompt token, 20 us per output token, 30 us per chunk */
static sim_frontend_cfg cfg_of(int64_t processes)
{
    return (sim_frontend_cfg){.on = true,
                              .processes = processes,
                              .request_ns = 2e6,
                              .input_token_ns = 1e3,
                              .output_token_ns = 2e4,
                              .chunk_ns = 3e4,
                              .stream_interval = 1};
}

static void test_job_costs(void **state)
{
    (void)state;
    sim_frontend_cfg c = cfg_of(1);
    /* 2e6 + 128 x 1e3 = 2128000 ns; 3 tokens, 2 chunks: 3 x 2e4 + 2 x 3e4 = 120000 ns */
    assert_int_equal(sim_frontend_request_ns(&c, 128), 2128000);
    assert_int_equal(sim_frontend_output_ns(&c, 3, 2), 120000);
    assert_int_equal(sim_frontend_output_ns(&c, 0, 0), 0);
}

static void test_one_process_is_a_fifo(void **state)
{
    (void)state;
    sim_frontend_cfg c = cfg_of(1);
    sim_frontend f;
    assert_true(sim_frontend_init(&f, &c, 0));
    /* two requests sent at 0: the second waits for the first, 2 x 2128000 */
    assert_int_equal(sim_frontend_request(&f, &c, 0, 128), 2128000);
    assert_int_equal(sim_frontend_request(&f, &c, 0, 128), 4256000);
    /* an iteration's 2 tokens in 2 chunks at 1 ms: behind them, 4256000 + 100000 */
    assert_int_equal(sim_frontend_output(&f, &c, 1000000, 2, 2), 4356000);
    /* at 5 ms the process is free: 5000000 + 100000 */
    assert_int_equal(sim_frontend_output(&f, &c, 5000000, 2, 2), 5100000);
    /* nothing to do: the chunks (none) arrive at once, nothing queued */
    assert_int_equal(sim_frontend_output(&f, &c, 6000000, 0, 0), 6000000);
    assert_int_equal(sim_frontend_request(&f, &c, 5100000, 0), 7100000);
    sim_frontend_free(&f);
}

/* Growing keeps the requests taken in (their ready times: 2128000 and 2 x 2128000, as above)
 * and adds ones not taken in; a request taken in after it queues behind both. */
static void test_grow_keeps_what_was_taken(void **state)
{
    (void)state;
    sim_frontend_cfg c = cfg_of(1);
    sim_frontend f;
    assert_true(sim_frontend_init(&f, &c, 2));
    sim_frontend_take(&f, &c, 0, 0, 128);
    sim_frontend_take(&f, &c, 1, 0, 128);
    assert_true(sim_frontend_grow(&f, 2, 40));
    assert_int_equal(f.t_ns[0], 2128000);
    assert_int_equal(f.t_ns[1], 4256000);
    for (int i = 2; i < 40; i++)
        assert_true(f.t_ns[i] == 0 && f.streamed[i] == 0);
    sim_frontend_take(&f, &c, 39, 0, 128);
    assert_int_equal(f.t_ns[39], 6384000);
    sim_frontend_free(&f);
}

static void test_processes_share_the_work(void **state)
{
    (void)state;
    sim_frontend_cfg c = cfg_of(2);
    sim_frontend f;
    assert_true(sim_frontend_init(&f, &c, 0));
    /* two processes take two requests at once; the third waits for the first free one */
    assert_int_equal(sim_frontend_request(&f, &c, 0, 128), 2128000);
    assert_int_equal(sim_frontend_request(&f, &c, 0, 128), 2128000);
    assert_int_equal(sim_frontend_request(&f, &c, 0, 128), 4256000);
    /* an output job of 100000 ns at 5 ms: 50000 on each process, both free: 5050000 */
    assert_int_equal(sim_frontend_output(&f, &c, 5000000, 2, 2), 5050000);
    /* 3 tokens x 20 us + 1 chunk x 40001 ns = 100001 ns at 6 ms: 50001 on the first process,
     * 50000 on the second: done at 6050001 */
    c.chunk_ns = 40001;
    assert_int_equal(sim_frontend_output(&f, &c, 6000000, 3, 1), 6000000 + 50001);
    sim_frontend_free(&f);
}

/* A request told late, sent before the last output job was submitted (an engine stepped past
 * its arrival), goes ahead of that job: one process, an output job of 100 us submitted at 5 ms
 * on an idle process; a request sent at 4.9 ms starts at 4.9 ms and is done at 4.9 + 2.128 =
 * 7.028 ms, the output job after it (7.128 ms); a request sent at 6 ms queues behind both:
 * 7.128 + 2.128 = 9.256 ms. */
static void test_late_request_goes_first(void **state)
{
    (void)state;
    sim_frontend_cfg c = cfg_of(1);
    sim_frontend f;
    assert_true(sim_frontend_init(&f, &c, 0));
    assert_int_equal(sim_frontend_output(&f, &c, 5000000, 2, 2), 5100000);
    assert_int_equal(sim_frontend_request(&f, &c, 4900000, 128), 7028000);
    assert_int_equal(sim_frontend_request(&f, &c, 6000000, 128), 9256000);
    sim_frontend_free(&f);
}

static void test_stream_rule(void **state)
{
    (void)state;
    sim_frontend_cfg c = cfg_of(1);
    c.stream_interval = 4;
    /* SGLang: a chunk at 4 and 8 tokens (one token per iteration), the first token waits */
    int64_t streamed = 0;
    int64_t sent[8], n = 0;
    for (int64_t after = 1; after <= 9; after++)
        if (sim_frontend_streams(&c, after - 1, streamed, after, after == 9)) {
            sent[n++] = after;
            streamed = after;
        }
    assert_int_equal(n, 3);
    assert_int_equal(sent[0], 4);
    assert_int_equal(sent[1], 8);
    assert_int_equal(sent[2], 9); /* finished */
    /* vLLM: the first token at once, then every 4 since the last send: 1, 5, 9 */
    c.first_token_alone = true;
    streamed = n = 0;
    for (int64_t after = 1; after <= 10; after++)
        if (sim_frontend_streams(&c, after - 1, streamed, after, false)) {
            sent[n++] = after;
            streamed = after;
        }
    assert_int_equal(n, 3);
    assert_int_equal(sent[0], 1);
    assert_int_equal(sent[1], 5);
    assert_int_equal(sent[2], 9);
    /* two tokens at once (a speculative verify) that reach the interval stream */
    c.first_token_alone = false;
    assert_true(sim_frontend_streams(&c, 2, 0, 4, false));
    assert_false(sim_frontend_streams(&c, 1, 0, 3, false));
    /* without a front end every iteration's tokens are a chunk */
    c.on = false;
    assert_true(sim_frontend_streams(&c, 1, 0, 2, false));
}

static void test_checks(void **state)
{
    (void)state;
    sim_err err = {{0}};
    sim_frontend_cfg c = cfg_of(0);
    assert_int_equal(sim_frontend_check(&c, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "frontend.processes"));
    c = cfg_of(1);
    c.stream_interval = 0;
    assert_int_equal(sim_frontend_check(&c, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "stream_interval"));
    c = cfg_of(1);
    c.chunk_ns = NAN;
    assert_int_equal(sim_frontend_check(&c, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "frontend.chunk_us"));
    c.request_ns = -1.0;
    assert_int_equal(sim_frontend_check(&c, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "frontend.request_us"));
    c = cfg_of(0);
    c.on = false; /* not checked when off */
    assert_int_equal(sim_frontend_check(&c, &err), SIM_OK);
}

/* ------------------------------------------------------------------------------------------ */
/* The engine with a front end */

static fixture *fx_new(void) { return tu_engine_new("llama-3.1-8b", "h100-sxm", 1); }

static sim_engine_result simulate(const sim_engine_cfg *cfg, const sim_workload *w)
{
    sim_err err = {{0}};
    sim_engine_result r;
    if (sim_engine_check(cfg, w, &err) || sim_engine_run(cfg, w, &r, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    return r;
}

static sim_serve_metrics metrics_of(const sim_engine_result *r)
{
    sim_serve_metrics m;
    sim_slo none = {{0}};
    assert_int_equal(sim_metrics_compute(r, &none, &m), SIM_OK);
    return m;
}

/* A burst of N one-token requests of 128-token prompts at t = 0 into one front-end process
 * whose request job, 50 ms + 128 x 100 us = 62.8 ms, is longer than the engine's iteration of
 * one such prompt (d, a few ms on an H100): request i reaches the scheduler at (i + 1) x 62.8 ms,
 * finds the engine idle, and gets its token d later (the output stage costs nothing here). So
 *   TTFT_i = (i + 1) x 62.8 ms + d:   consecutive TTFTs 62.8 ms apart, exactly;
 *   mean TTFT(N) = 62.8 ms x (N + 1) / 2 + d:   mean(20) - mean(10) = 62.8 x 10 / 2 = 314 ms;
 *   the front end's part of the mean TTFT = 62.8 x (N + 1) / 2 ms.
 * Without the front end the burst prefills together and TTFT barely depends on the order. */
static void test_burst_saturates_the_front_end(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.frontend = (sim_frontend_cfg){
        .on = true, .processes = 1, .request_ns = 50e6, .input_token_ns = 1e5, .stream_interval = 1};
    const int64_t c_ns = 62800000;
    double mean_ms[2];
    for (int k = 0; k < 2; k++) {
        const int64_t n = k == 0 ? 10 : 20;
        sim_workload w = tu_synth(n, 128, 1, INFINITY, 0.0);
        sim_engine_result r = simulate(&f->cfg, &w);
        const int64_t d = sim_engine_req(&r, 0).first_token_ns - c_ns;
        assert_true(d > 0 && d < c_ns);
        for (int64_t i = 0; i < n; i++) {
            assert_int_equal(sim_engine_req(&r, i).first_token_ns - sim_engine_req(&r, i).send_ns, (i + 1) * c_ns + d);
            assert_int_equal(sim_engine_req(&r, i).finish_ns, sim_engine_req(&r, i).first_token_ns);
        }
        sim_serve_metrics m = metrics_of(&r);
        assert_true(m.has_frontend);
        assert_near(m.mean_frontend_ttft_ms, 62.8 * (double)(n + 1) / 2.0, 1e-12);
        assert_near(m.mean_frontend_e2el_ms, m.mean_frontend_ttft_ms, 1e-12);
        mean_ms[k] = m.dist[SIM_M_TTFT].mean;
        sim_engine_result_free(&r);
        sim_workload_free(&w);
    }
    assert_near(mean_ms[1] - mean_ms[0], 314.0, 1e-9);
    free(f);
}

/* Two processes take requests in pairs: request i reaches the scheduler at (i / 2 + 1) x 62.8
 * ms, so TTFT_i - TTFT_{i-2} = 62.8 ms (each pair prefills in one iteration of the same shape). */
static void test_two_processes_halve_the_rate(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.frontend = (sim_frontend_cfg){
        .on = true, .processes = 2, .request_ns = 50e6, .input_token_ns = 1e5, .stream_interval = 1};
    sim_workload w = tu_synth(12, 128, 1, INFINITY, 0.0);
    sim_engine_result r = simulate(&f->cfg, &w);
    for (size_t i = 2; i < r.n; i++)
        assert_int_equal(sim_engine_req(&r, i).first_token_ns - sim_engine_req(&r, i - 2).first_token_ns, 62800000);
    assert_int_equal(sim_engine_req(&r, 1).first_token_ns, sim_engine_req(&r, 0).first_token_ns);
    sim_engine_result_free(&r);
    sim_workload_free(&w);
    free(f);
}

/* One request alone, 64 tokens, a front end that costs nothing: with stream interval 8 and the
 * first token not alone (SGLang) the client's first token is the engine's 8th, which is when the
 * same request with 8 output tokens finishes; TTFT grows by 7 decode steps of one sequence (each
 * ~ the step priced at a 128-token context, within 1 %), the chunk's time. Its 8 chunks give 7
 * gaps of 8 decode steps each (56 per-token samples with per_token_itl). With the first token
 * alone (vLLM) TTFT is interval 1's. */
static void test_stream_interval_moves_ttft_by_the_chunk(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.frontend = (sim_frontend_cfg){.on = true, .processes = 1, .stream_interval = 1};
    sim_workload w8 = tu_synth(1, 128, 8, INFINITY, 0.0);
    sim_workload w64 = tu_synth(1, 128, 64, INFINITY, 0.0);
    sim_engine_result a = simulate(&f->cfg, &w8); /* interval 1: its 8th token at finish */
    sim_engine_result one = simulate(&f->cfg, &w64);
    f->cfg.frontend.stream_interval = 8;
    sim_engine_result b = simulate(&f->cfg, &w64);
    assert_int_equal(sim_engine_req(&b, 0).first_token_ns, sim_engine_req(&a, 0).finish_ns);
    assert_int_equal(sim_engine_req(&b, 0).finish_ns, sim_engine_req(&one, 0).finish_ns); /* the engine is the same */
    /* the chunk's time: 7 decode steps of one sequence over ~128 tokens of context */
    sim_step_cfg sc = f->cfg.step;
    sim_seq_group g = {.count = 1, .q = 1, .c = 131, .logits = 1};
    sim_step_result step;
    sim_step_price(&sc, &g, 1, &step);
    const double shift = (double)(sim_engine_req(&b, 0).first_token_ns - sim_engine_req(&one, 0).first_token_ns);
    assert_near(shift, 7.0 * step.t_ns, 0.01);
    assert_int_equal(b.itl.n, 7);
    assert_near(sim_hist_percentile(&b.itl, 50.0), 8.0 * step.t_ns, 0.01);
    f->cfg.frontend.per_token_itl = true;
    sim_engine_result t = simulate(&f->cfg, &w64);
    assert_int_equal(t.itl.n, 56);
    f->cfg.frontend.per_token_itl = false;
    f->cfg.frontend.first_token_alone = true;
    sim_engine_result v = simulate(&f->cfg, &w64);
    assert_int_equal(sim_engine_req(&v, 0).first_token_ns, sim_engine_req(&one, 0).first_token_ns);
    assert_int_equal(v.itl.n, 8); /* chunks at 1, 9, ..., 57 and the last at 64 */
    sim_engine_result *all[] = {&a, &one, &b, &t, &v};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sim_engine_result_free(all[i]);
    sim_workload_free(&w8);
    sim_workload_free(&w64);
    free(f);
}

/* A front end that costs nothing, streaming every token, is the engine without one: the same
 * first and last tokens for every request, the same gaps, the same duration (Poisson arrivals,
 * lengths in a range, a concurrency cap). */
static void test_free_front_end_is_none(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_workload w = tu_synth(300, 700, 150, 20.0, 0.5);
    for (int cap = 0; cap < 2; cap++) {
        f->cfg.max_concurrency = cap ? 16 : 0;
        f->cfg.frontend = (sim_frontend_cfg){0};
        sim_engine_result off = simulate(&f->cfg, &w);
        f->cfg.frontend = (sim_frontend_cfg){.on = true, .processes = 3, .stream_interval = 1};
        sim_engine_result on = simulate(&f->cfg, &w);
        assert_false(off.frontend_on);
        assert_true(on.frontend_on);
        assert_int_equal(on.duration_ns, off.duration_ns);
        assert_int_equal(on.iterations, off.iterations);
        for (size_t i = 0; i < w.n; i++) {
            assert_int_equal(sim_engine_req(&on, i).send_ns, sim_engine_req(&off, i).send_ns);
            assert_int_equal(sim_engine_req(&on, i).first_token_ns, sim_engine_req(&off, i).first_token_ns);
            assert_int_equal(sim_engine_req(&on, i).finish_ns, sim_engine_req(&off, i).finish_ns);
        }
        assert_int_equal(on.itl.n, off.itl.n);
        sim_serve_metrics a = metrics_of(&off), b = metrics_of(&on);
        assert_true(a.dist[SIM_M_ITL].mean == b.dist[SIM_M_ITL].mean);
        assert_true(a.dist[SIM_M_ITL].p99 == b.dist[SIM_M_ITL].p99);
        assert_true(b.mean_frontend_ttft_ms == 0.0 && b.mean_frontend_e2el_ms == 0.0);
        sim_engine_result_free(&off);
        sim_engine_result_free(&on);
    }
    sim_workload_free(&w);
    free(f);
}

/* The output stage's cost shows in every token: one request alone, 20 us per token and 30 us per
 * chunk, interval 1: each chunk reaches the client 50 us after the engine emitted it, so TTFT and
 * E2E grow by 50 us and the gaps stay the engine's. */
static void test_output_stage_delays_each_token(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_workload w = tu_synth(1, 256, 32, INFINITY, 0.0);
    sim_engine_result off = simulate(&f->cfg, &w);
    f->cfg.frontend = (sim_frontend_cfg){
        .on = true, .processes = 1, .output_token_ns = 2e4, .chunk_ns = 3e4, .stream_interval = 1};
    sim_engine_result on = simulate(&f->cfg, &w);
    assert_int_equal(sim_engine_req(&on, 0).first_token_ns, sim_engine_req(&off, 0).first_token_ns + 50000);
    assert_int_equal(sim_engine_req(&on, 0).finish_ns, sim_engine_req(&off, 0).finish_ns + 50000);
    assert_int_equal(on.duration_ns, off.duration_ns + 50000);
    sim_serve_metrics m = metrics_of(&on), o = metrics_of(&off);
    assert_true(m.dist[SIM_M_ITL].mean == o.dist[SIM_M_ITL].mean);
    assert_near(m.mean_frontend_ttft_ms, 0.05, 1e-12);
    assert_near(m.mean_frontend_e2el_ms, 0.05, 1e-12);
    sim_engine_result_free(&off);
    sim_engine_result_free(&on);
    sim_workload_free(&w);
    free(f);
}

/* Replicas behind a router each have their own front end, and the deployment's part is theirs
 * added up: 40 requests at 2 per second over two replicas, each request job 5 ms + 512 x 10 us =
 * 10.12 ms (nothing queues at that load but an output job or a request a few ms ahead: the
 * front end's part of the mean TTFT is 10.12 ms and a fraction of a ms); the same with one
 * engine. */
static void test_replicas_have_their_own(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.frontend = (sim_frontend_cfg){
        .on = true, .processes = 1, .request_ns = 5e6, .input_token_ns = 1e4,
        .output_token_ns = 1e4, .chunk_ns = 1e4, .stream_interval = 1};
    sim_workload w = tu_synth(40, 512, 32, 2.0, 0.0);
    sim_cluster_cfg cc = {.engine = &f->cfg, .replicas = 2, .router = SIM_ROUTER_ROUND_ROBIN};
    sim_engine_result all;
    sim_cluster_result cr;
    sim_err err = {{0}};
    assert_int_equal(sim_cluster_check(&cc, &w, &err), SIM_OK);
    assert_int_equal(sim_cluster_run(&cc, &w, &all, &cr, &err), SIM_OK);
    sim_serve_metrics m = metrics_of(&all);
    assert_true(m.has_frontend);
    assert_between(m.mean_frontend_ttft_ms, 10.12, 10.12 + 0.5);
    sim_engine_result one = simulate(&f->cfg, &w);
    sim_serve_metrics o = metrics_of(&one);
    assert_between(o.mean_frontend_ttft_ms, 10.12, 10.12 + 0.5);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&cr);
    sim_engine_result_free(&one);
    sim_workload_free(&w);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_costs),
        cmocka_unit_test(test_one_process_is_a_fifo),
        cmocka_unit_test(test_grow_keeps_what_was_taken),
        cmocka_unit_test(test_processes_share_the_work),
        cmocka_unit_test(test_late_request_goes_first),
        cmocka_unit_test(test_stream_rule),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_burst_saturates_the_front_end),
        cmocka_unit_test(test_two_processes_halve_the_rate),
        cmocka_unit_test(test_stream_interval_moves_ttft_by_the_chunk),
        cmocka_unit_test(test_free_front_end_is_none),
        cmocka_unit_test(test_output_stage_delays_each_token),
        cmocka_unit_test(test_replicas_have_their_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
