/* test_steady.c - steady decodes (sched.h): a run that holds its decoding sequences as an
 * aggregate, touched only at their events, gives every number of the run that walks each one.
 *
 * sim_engine_run holds them where they fit; the stepping API (sim_engine_start, then
 * sim_engine_finish) never does, so the two runs of one workload are compared field by field:
 * every request's counts and times, the run's totals, and the metrics (ITL runs included). */
#include "engfix.h"

#include "engine.h"
#include "metrics.h"

static fixture *fx_new(void) { return tu_engine_new("llama-3.1-8b", "h100-sxm", 1); }

static void same_dist(const sim_dist *a, const sim_dist *b)
{
    assert_true(a->mean == b->mean && a->median == b->median && a->std == b->std);
    assert_true(a->p90 == b->p90 && a->p99 == b->p99 && a->n == b->n);
}

/* Runs w both ways and checks they agree exactly; returns the sequence-iterations the steady
 * run held as aggregates. */
static int64_t both(const fixture *f, const sim_workload *w, int64_t *preemptions)
{
    sim_err err = {{0}};
    sim_engine_result a, b;
    if (sim_engine_check(&f->cfg, w, &err) || sim_engine_run(&f->cfg, w, &a, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    sim_engine *e;
    assert_int_equal(sim_engine_start(&f->cfg, w, w->n, &b, &e, &err), SIM_OK);
    assert_int_equal(sim_engine_finish(e, &err), SIM_OK);
    assert_int_equal(b.steady_seqs, 0); /* a stepped engine walks every sequence */
    assert_int_equal(a.n, b.n);
    for (size_t i = 0; i < a.n; i++) {
        const sim_seq *x = &a.seqs[i], *y = &b.seqs[i];
        assert_int_equal(x->computed, y->computed);
        assert_int_equal(x->generated, y->generated);
        assert_int_equal(x->blocks, y->blocks);
        assert_int_equal(x->n_ref, y->n_ref);
        assert_int_equal(x->cached, y->cached);
        assert_int_equal(x->phase, y->phase);
        assert_int_equal(x->preemptions, y->preemptions);
        assert_int_equal(x->send_ns, y->send_ns);
        assert_int_equal(x->first_sched_ns, y->first_sched_ns);
        assert_int_equal(x->first_token_ns, y->first_token_ns);
        assert_int_equal(x->last_token_ns, y->last_token_ns);
        assert_int_equal(x->finish_ns, y->finish_ns);
    }
    assert_int_equal(a.iterations, b.iterations);
    assert_int_equal(a.scheduled_seqs, b.scheduled_seqs);
    assert_int_equal(a.duration_ns, b.duration_ns);
    assert_int_equal(a.preemptions, b.preemptions);
    assert_int_equal(a.kv_peak_blocks, b.kv_peak_blocks);
    assert_int_equal(a.prefix_hit_tokens, b.prefix_hit_tokens);
    assert_true(a.busy_ns == b.busy_ns && a.active_j == b.active_j);
    assert_true(a.peak_output_tps == b.peak_output_tps);
    sim_slo none = {{0}};
    sim_serve_metrics ma, mb;
    assert_int_equal(sim_metrics_compute(&a, &none, &ma), SIM_OK);
    assert_int_equal(sim_metrics_compute(&b, &none, &mb), SIM_OK);
    for (int m = 0; m < SIM_M_COUNT; m++)
        same_dist(&ma.dist[m], &mb.dist[m]);
    assert_true(ma.mean_frontend_ttft_ms == mb.mean_frontend_ttft_ms);
    assert_true(ma.mean_frontend_e2el_ms == mb.mean_frontend_e2el_ms);
    const int64_t held = a.steady_seqs;
    assert_true(held < a.scheduled_seqs);
    if (preemptions)
        *preemptions = a.preemptions;
    sim_engine_result_free(&a);
    sim_engine_result_free(&b);
    return held;
}

/* Saturated, KV cache a fraction of the demand: preemptions every few iterations, each at a
 * request's block event or behind one; most sequence-iterations are still held. */
static void test_preemptions(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.mem_util = 0.26;
    sim_workload w = tu_synth(600, 512, 256, INFINITY, 0.5);
    int64_t pre = 0;
    const int64_t held = both(f, &w, &pre);
    assert_true(pre > 50);
    assert_true(held > 0);
    sim_workload_free(&w);
    free(f);
}

/* Poisson arrivals through a front end that streams every token: the steady decodes' chunks
 * and gaps come out of the output jobs exactly. */
static void test_frontend(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.frontend = (sim_frontend_cfg){.on = true,
                                         .processes = 2,
                                         .request_ns = 2e6,
                                         .input_token_ns = 1e3,
                                         .output_token_ns = 1e4,
                                         .chunk_ns = 2e4,
                                         .stream_interval = 1,
                                         .first_token_alone = true};
    sim_workload w = tu_synth(400, 700, 200, 20.0, 0.8);
    assert_true(both(f, &w, NULL) > 0);
    /* every third token a chunk: each sequence's stream has state of its own, so it walks */
    f->cfg.frontend.stream_interval = 3;
    assert_int_equal(both(f, &w, NULL), 0);
    sim_workload_free(&w);
    free(f);
}

/* Shared prefixes in a prefix cache under KV pressure (evictions before preemptions), and
 * TensorRT-LLM's MAX_UTILIZATION policy on the same stream. */
static void test_prefix_cache_and_policy(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.prefix_caching = true;
    f->cfg.mem_util = 0.3;
    sim_synth_cfg c = {.num_prompts = 500,
                       .input_len = 1224,
                       .output_len = 300,
                       .request_rate = INFINITY,
                       .burstiness = 1.0,
                       .seed = 3,
                       .num_prefixes = 5,
                       .prefix_len = 1024,
                       .suffix_len = 200,
                       .hash_block_tokens = 16};
    sim_workload w;
    sim_err err = {{0}};
    if (sim_workload_synthetic(&c, &w, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    int64_t pre = 0;
    assert_true(both(f, &w, &pre) > 0);
    assert_true(pre > 0);
    f->cfg.sched.policy = SIM_POLICY_MAX_UTIL;
    assert_true(both(f, &w, NULL) > 0);
    sim_workload_free(&w);
    free(f);
}

/* A token budget below the running batch's demand cuts the walk: those iterations walk every
 * sequence (and hold them again after), with the same numbers. */
static void test_budget_cut(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.sched.max_num_batched_tokens = 200;
    sim_workload w = tu_synth(300, 150, 120, INFINITY, 0.5);
    assert_true(both(f, &w, NULL) > 0);
    sim_workload_free(&w);
    free(f);
}

/* Where the scheduler's walk is not the one steady decodes reproduce (SGLang's separate prefill
 * and decode iterations and its new-token ratio read every running request), the run walks
 * every sequence. */
static void test_sglang_walks(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.sched.policy = SIM_POLICY_SGLANG;
    f->cfg.sched.ratio_init = 0.7;
    f->cfg.sched.ratio_min = 0.1;
    f->cfg.sched.ratio_decay = 0.001;
    sim_workload w = tu_synth(100, 300, 50, INFINITY, 0.0);
    assert_int_equal(both(f, &w, NULL), 0);
    sim_workload_free(&w);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preemptions),
        cmocka_unit_test(test_frontend),
        cmocka_unit_test(test_prefix_cache_and_policy),
        cmocka_unit_test(test_budget_cut),
        cmocka_unit_test(test_sglang_walks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
