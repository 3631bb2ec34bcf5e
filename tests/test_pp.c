/* test_pp.c - pipeline stages: vLLM's layer split, per-stage memory, transfers, rounds. */
#include "testutil.h"

#include "engine.h"
#include "metrics.h"
#include "pp.h"
#include "run.h"

static sim_step_cfg cfg_of(const sim_model *m, const sim_hw *hw, int tp, int pp)
{
    return (sim_step_cfg){
        .model = m, .hw = hw, .tp = tp, .pp = pp, .prec = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16}};
}

static void test_partition_as_vllm(void **state)
{
    (void)state;
    int64_t p[4];
    /* vLLM's tests/distributed/test_pipeline_partition.py: 5 layers at pp 3 -> (0,2) (2,4) (4,5) */
    sim_pp_partition(5, 3, p);
    assert_int_equal(p[0], 2);
    assert_int_equal(p[1], 2);
    assert_int_equal(p[2], 1);
    /* 80 at pp 3: 26 each, the 2 left over to stages 1 and 0 (second-to-last first) */
    sim_pp_partition(80, 3, p);
    assert_int_equal(p[0], 27);
    assert_int_equal(p[1], 27);
    assert_int_equal(p[2], 26);
    /* 10 at pp 4: 2 each, 2 left over to stages 2 and 1 */
    sim_pp_partition(10, 4, p);
    assert_int_equal(p[0], 2);
    assert_int_equal(p[1], 3);
    assert_int_equal(p[2], 3);
    assert_int_equal(p[3], 2);
    sim_pp_partition(32, 1, p);
    assert_int_equal(p[0], 32);
}

static void test_memory_per_stage(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b"); /* 32 layers, d 4096, untied 128256 vocab, bf16 */
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg one = cfg_of(&m, &hw, 1, 1), two = cfg_of(&m, &hw, 1, 2);
    double w1 = sim_mem_weight_bytes(&one);
    assert_near(w1, sim_graph_weight_bytes_per_gpu(&m, 1, &one.prec), 0);
    /* whole: 32 L + 2 tables + norm (d x 2 B); the last stage of two: 16 L + table + norm
     * = (whole - norm) / 2 + norm = whole / 2 + 4096 B */
    assert_near(sim_mem_weight_bytes(&two), w1 / 2.0 + 4096.0, 1e-12);
    /* KV per token: 16 of the 32 layers */
    assert_near(sim_mem_kv_bytes_per_token(&two), sim_mem_kv_bytes_per_token(&one) / 2.0, 1e-12);
    /* the memory plan per GPU follows */
    sim_mem_report a, b;
    sim_mem_plan(&one, 0.9, NULL, 1, 1024, 128, &a);
    sim_mem_plan(&two, 0.9, NULL, 1, 1024, 128, &b);
    assert_near(b.weight_bytes, a.weight_bytes / 2.0 + 4096.0, 1e-12);
    assert_true(b.max_batch > a.max_batch); /* half the KV per token (the workspace stays) */
    assert_int_equal(sim_pp_gpus(&two), 2);
    sim_step_cfg t4p2 = cfg_of(&m, &hw, 4, 2);
    assert_int_equal(sim_pp_gpus(&t4p2), 8);
}

static void test_transfer_links(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm"); /* 8 GPUs a node */
    /* tp 4 x pp 4: stages 0-1 on node 0, 2-3 on node 1: only boundary 1 crosses */
    sim_step_cfg c = cfg_of(&m, &hw, 4, 4);
    assert_false(sim_pp_boundary_scaleout(&c, 0));
    assert_true(sim_pp_boundary_scaleout(&c, 1));
    assert_false(sim_pp_boundary_scaleout(&c, 2));
    /* 100 tokens: hidden + residual, 2 x 100 x 4096 x 2 B / tp 4 = 409600 B per GPU */
    assert_near(sim_pp_xfer_bytes(&c, 100.0), 409600.0, 1e-12);
    double up = 409600.0 / (hw.scaleup_bytes_per_s * hw.eff_network) * 1e9 + hw.scaleup_latency_ns;
    double out =
        409600.0 / (hw.scaleout_bytes_per_s * hw.eff_network) * 1e9 + hw.scaleout_latency_ns;
    assert_near(sim_pp_xfer_ns(&c, 100.0, 0), up, 1e-12);
    assert_near(sim_pp_xfer_ns(&c, 100.0, 1), out, 1e-12);
    assert_true(out > up);
}

static void test_stages_add_up_and_rounds(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = cfg_of(&m, &hw, 1, 2);
    c.iteration_overhead_ns = 1e6;
    sim_seq_group g = {.count = 1, .q = 1, .c = 1000, .logits = 1};
    sim_step_result r;
    sim_step_price(&c, &g, 1, &r);
    /* without overlap the stages split the step exactly (host time on stage 0) */
    double t0 = sim_pp_stage_ns(&c, &r, 0), t1 = sim_pp_stage_ns(&c, &r, 1);
    assert_near(t0 + t1, r.t_ns, 1e-12);
    double x = sim_pp_xfer_ns(&c, 1.0, 0);
    /* one sequence: one micro-batch crossing both stages and the link, steady or not */
    assert_near(sim_pp_round_ns(&c, &g, 1, NULL, true), r.t_ns + x, 1e-12);
    assert_near(sim_pp_round_ns(&c, &g, 1, NULL, false), r.t_ns + x, 1e-12);
    /* two identical sequences: two micro-batches of one. Steady: max(2 t0, 2 t1, t0 + x + t1).
     * One-shot makespan: mb0 leaves stage 0 at t0, stage 1 at t0 + x + t1; mb1 leaves stage 0
     * at 2 t0 and starts stage 1 at max(t0 + x + t1, 2 t0 + x). */
    sim_seq_group g2 = g;
    g2.count = 2;
    double steady = fmax(fmax(2 * t0, 2 * t1), t0 + x + t1);
    double once = fmax(t0 + x + t1, 2 * t0 + x) + t1;
    assert_near(sim_pp_round_ns(&c, &g2, 1, NULL, true), steady, 1e-12);
    assert_near(sim_pp_round_ns(&c, &g2, 1, NULL, false), once, 1e-12);
    /* the memoized path agrees with the fresh one */
    sim_pp_memo pm = {0};
    assert_true(sim_pp_memo_init(&pm, &c, 2));
    sim_seq_group two[2] = {g, g};
    assert_near(sim_pp_round_ns(&c, two, 2, &pm, true), steady, 1e-12);
    assert_near(sim_pp_round_ns(&c, two, 2, &pm, true), steady, 1e-12);
    sim_pp_memo_free(&pm);
}

/* A MoE model with dense leading layers: each stage prices the dense and the MoE layers it holds,
 * and the stages still add up to the whole step. */
static void test_moe_stages(void **state)
{
    (void)state;
    sim_model m = tu_model("deepseek-v3"); /* 61 layers, the first 3 dense */
    sim_hw hw = tu_hw("h200");
    sim_step_cfg c = cfg_of(&m, &hw, 8, 3);
    sim_err err = {{0}};
    assert_int_equal(sim_step_check(&c, &err), SIM_OK);
    sim_seq_group g = {.count = 8, .q = 1, .c = 2000, .logits = 1};
    sim_step_result r;
    sim_step_price(&c, &g, 1, &r);
    assert_true(r.graph.dense_layers > 0 && r.graph.dense_layers < r.graph.layers);
    double sum = 0.0;
    for (int s = 0; s < 3; s++)
        sum += sim_pp_stage_ns(&c, &r, s);
    assert_near(sum, r.t_ns, 1e-12);
    /* 61 at pp 3: 20, 21, 20; stage 0 holds the 3 dense layers (lighter MLPs than the experts')
     * and the embedding, stage 2 the LM head */
    int64_t p[3];
    sim_pp_partition(61, 3, p);
    assert_int_equal(p[1], 21);
    assert_true(sim_pp_stage_ns(&c, &r, 1) > sim_pp_stage_ns(&c, &r, 0));
}

static void test_batch1_latency_not_lowered(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_run_cfg a = {.step = cfg_of(&m, &hw, 1, 1),
                     .batch = 1,
                     .input_len = 512,
                     .output_len = 32,
                     .mem_util = 0.9};
    sim_run_cfg b = a;
    b.step.pp = 2;
    sim_err err = {{0}};
    assert_int_equal(sim_run_check(&b, &err), SIM_OK);
    sim_run_result ra, rb;
    sim_run_simulate(&a, &ra);
    sim_run_simulate(&b, &rb);
    /* batch 1: each token crosses both stages plus one transfer of one token's activations */
    assert_near(rb.tpot_ns, ra.tpot_ns + sim_pp_xfer_ns(&b.step, 1.0, 0), 1e-9);
    assert_true(rb.tpot_ns >= ra.tpot_ns);
    assert_true(rb.ttft_ns >= ra.ttft_ns);
    /* batch 64: the stages work on two micro-batches at once, so a decode round costs less than
     * the two stages one after the other would */
    a.batch = b.batch = 64;
    sim_run_simulate(&b, &rb);
    sim_seq_group g = {.count = 32, .q = 1, .c = 512, .logits = 1};
    sim_step_result half;
    sim_step_price(&b.step, &g, 1, &half);
    assert_true(rb.tpot_ns < 2.0 * half.t_ns);
}

/* Serving: one request alone decodes no faster over two stages (each token crosses both and the
 * link); a saturated 70B engine over two stages of TP 2 holds far more KV than one TP 2 engine
 * (the batch grows to vLLM's 1024-request limit) and serves more than twice the tokens per
 * second: the stages' GPUs are used no worse than the single engine's. */
static double serve_tps(const sim_model *m, const sim_hw *hw, int tp, int pp, int64_t n,
                        double *tpot_ms)
{
    sim_engine_cfg c = {
        .step = cfg_of(m, hw, tp, pp),
        .sched = {.max_num_seqs = 1024, .max_num_batched_tokens = 8192, .chunked_prefill = true},
        .block_size = 16,
        .mem_util = 0.9};
    c.step.iteration_overhead_ns = 1e6;
    sim_synth_cfg s = {.num_prompts = n,
                       .input_len = 500,
                       .output_len = 100,
                       .request_rate = INFINITY,
                       .burstiness = 1.0};
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_synthetic(&s, &w, &err), SIM_OK);
    sim_engine_result r;
    assert_int_equal(sim_engine_check(&c, &w, &err), SIM_OK);
    assert_int_equal(sim_engine_run(&c, &w, &r, &err), SIM_OK);
    sim_slo slo = {0};
    sim_serve_metrics mt;
    assert_int_equal(sim_metrics_compute(&r, &slo, &mt), SIM_OK);
    *tpot_ms = mt.dist[SIM_M_TPOT].mean;
    sim_engine_result_free(&r);
    sim_workload_free(&w);
    return mt.output_throughput;
}

static void test_serve_pipeline(void **state)
{
    (void)state;
    sim_model m8 = tu_model("llama-3.1-8b"), m70 = tu_model("llama-3.1-70b");
    sim_hw hw = tu_hw("h100-sxm");
    double t1, t2;
    serve_tps(&m8, &hw, 1, 1, 1, &t1);
    serve_tps(&m8, &hw, 1, 2, 1, &t2);
    assert_true(t2 >= t1);
    double x1 = serve_tps(&m70, &hw, 2, 1, 400, &t1), x2 = serve_tps(&m70, &hw, 2, 2, 400, &t2);
    assert_true(x2 > 2.0 * x1);
}

static void test_checks(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = cfg_of(&m, &hw, 1, 33);
    sim_err err = {{0}};
    assert_int_equal(sim_step_check(&c, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--pp: value 33"));
    c.pp = 32;
    assert_int_equal(sim_step_check(&c, &err), SIM_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_as_vllm), cmocka_unit_test(test_memory_per_stage),
        cmocka_unit_test(test_transfer_links),    cmocka_unit_test(test_stages_add_up_and_rounds),
        cmocka_unit_test(test_moe_stages),        cmocka_unit_test(test_batch1_latency_not_lowered),
        cmocka_unit_test(test_serve_pipeline),    cmocka_unit_test(test_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
