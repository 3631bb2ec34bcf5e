/* test_step.c - one iteration: sums over layers, bounds, overlap. */
#include "testutil.h"

#include "step.h"

static const sim_prec BF16 = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false, false};

static sim_step_result price(const sim_model *m, const sim_hw *hw, int tp, double overlap,
                             int64_t batch, int64_t q, int64_t c)
{
    sim_step_cfg cfg = {.model = m, .hw = hw, .tp = tp, .prec = BF16, .overlap = overlap};
    sim_seq_group g = {.count = batch, .q = q, .c = c, .logits = 1};
    sim_step_result r;
    sim_step_price(&cfg, &g, 1, &r);
    return r;
}

static void test_weight_streaming_floor(void **state)
{
    (void)state;
    /* Seed 3.3: decoding Llama-70B at batch 1 reads every weight once per token:
     * ~140 GB / 3.35 TB/s = 42 ms, the TPOT floor on one H100. Exactly: all 141.1 GB but the
     * embedding table, of which one row is read: 2 x 70,553,706,496 - 128256 x 8192 x 2 =
     * 139,006,066,688 B / 3.35e12 = 41.49 ms (+ a few MB of activations). */
    sim_model m = tu_model("llama-3.1-70b");
    sim_hw hw = tu_fixture_hw();
    sim_hw ideal = hw;
    ideal.eff_memory = ideal.eff_attn_memory = 1.0;
    sim_step_result r = price(&m, &ideal, 1, 0.0, 1, 1, 0);
    assert_near(r.t_mem_ns / 1e6, 42.0, 0.02);
    assert_near(r.t_mem_ns / 1e6, 41.494, 0.001);
    assert_int_equal(r.bound, SIM_BOUND_MEMORY);
    /* with the achievable bandwidth (86.6 %; the one token of KV at 72 %) it is slower */
    sim_step_result real = price(&m, &hw, 1, 0.0, 1, 1, 0);
    assert_near(real.t_mem_ns, r.t_mem_ns / 0.866, 1e-5);
    assert_true(real.t_ns > real.t_mem_ns);
    /* one GPU, no host work: all that is added to the busy time is the kernels' launches */
    assert_near(real.t_ns - real.busy_ns, real.t_launch_ns, 1e-9);
    assert_true(real.t_launch_ns > 0.0);
}

/* The experts' kernel family a step runs (step.h): the quantized one for 8-bit weights. */
static void test_moe_kernel_by_weights(void **state)
{
    (void)state;
    sim_step_cfg cfg = {.prec = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false},
                        .moe_kernel = SIM_MOE_TRITON,
                        .moe_kernel_quantized = SIM_MOE_CUTLASS};
    assert_int_equal(sim_step_moe_kernel(&cfg), SIM_MOE_CUTLASS);
    cfg.prec.weight = SIM_DT_BF16;
    assert_int_equal(sim_step_moe_kernel(&cfg), SIM_MOE_TRITON);
}

static void test_layers_multiply(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_fixture_hw();
    sim_step_result r = price(&m, &hw, 1, 0.0, 4, 1, 100);
    double layer = 0.0, edges = 0.0;
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        if (sim_op_info((sim_op_id)i)->per_layer)
            layer += r.graph.ops[i].flops;
        else
            edges += r.graph.ops[i].flops;
    }
    assert_near(r.flops, 32.0 * layer + edges, 1e-12);
    assert_near(sim_step_op_repeats(&r, SIM_OP_QKV_PROJ), 32.0, 0);
    assert_near(sim_step_op_repeats(&r, SIM_OP_LM_HEAD), 1.0, 0);
}

static void test_bounds_bracket_the_prediction(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-70b");
    sim_hw hw = tu_fixture_hw();
    const double overlaps[] = {0.0, 0.3, 1.0};
    const int64_t shapes[][3] = {{1, 1, 10}, {64, 1, 4000}, {8, 2048, 0}, {1, 8192, 0}};
    for (size_t o = 0; o < 3; o++) {
        for (size_t s = 0; s < 4; s++) {
            sim_step_result r =
                price(&m, &hw, 8, overlaps[o], shapes[s][0], shapes[s][1], shapes[s][2]);
            assert_true(r.t_lower_ns <= r.t_ns * (1 + 1e-12));
            assert_true(r.t_ns <= r.t_upper_ns * (1 + 1e-12));
            assert_true(r.t_lower_ns > 0.0);
            assert_near(r.net_hidden_ns + r.net_exposed_ns, r.t_net_ns, 1e-12);
        }
    }
}

static void test_overlap(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-70b");
    sim_hw hw = tu_fixture_hw();
    /* no overlap: all network time exposed, prediction = busy + launch + net */
    sim_step_result r0 = price(&m, &hw, 8, 0.0, 32, 1, 1000);
    assert_true(r0.t_net_ns > 0.0);
    assert_near(r0.net_exposed_ns, r0.t_net_ns, 0);
    assert_near(r0.t_ns, r0.busy_ns + r0.t_launch_ns + r0.t_net_ns, 1e-12);
    /* half: half of it hides behind compute */
    sim_step_result r5 = price(&m, &hw, 8, 0.5, 32, 1, 1000);
    assert_near(r5.net_hidden_ns, 0.5 * r5.t_net_ns, 1e-12);
    assert_near(r5.t_ns, r0.t_ns - 0.5 * r0.t_net_ns, 1e-12);
    /* full overlap, network smaller than compute: the step costs busy + launch */
    sim_step_result r1 = price(&m, &hw, 8, 1.0, 32, 1, 1000);
    assert_true(r1.t_net_ns < r1.busy_ns);
    assert_near(r1.t_ns, r1.busy_ns + r1.t_launch_ns, 1e-12);
    /* per-op split adds up */
    double hidden = 0.0;
    for (int i = 0; i < SIM_OP_COUNT; i++)
        hidden += sim_step_op_repeats(&r5, (sim_op_id)i) * r5.hidden_ns[i];
    assert_near(hidden, r5.net_hidden_ns, 1e-9);
}

static void test_network_can_only_hide_behind_compute(void **state)
{
    (void)state;
    /* Llama-3.2-1B at TP 8 over two slow PCIe pairs: the collectives outweigh the compute, so
     * even full overlap leaves network time exposed and the step is network-bound. */
    sim_model m = tu_model("llama-3.2-1b");
    sim_hw hw = tu_hw("l40s");
    sim_step_result r = price(&m, &hw, 8, 1.0, 256, 1, 100);
    assert_true(r.t_net_ns > r.busy_ns);
    assert_near(r.net_hidden_ns, r.busy_ns, 1e-12);
    assert_true(r.t_ns >= r.t_net_ns);
    assert_int_equal(r.bound, SIM_BOUND_NETWORK);
}

static void test_mean_of_steps(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_fixture_hw();
    sim_step_result a = price(&m, &hw, 1, 0.0, 16, 1, 100);
    sim_step_result b = price(&m, &hw, 1, 0.0, 16, 1, 3000);
    sim_step_result sum;
    memset(&sum, 0, sizeof sum);
    sim_step_accumulate(&sum, &a);
    sim_step_accumulate(&sum, &b);
    sim_step_scale(&sum, 0.5);
    assert_near(sum.t_ns, 0.5 * (a.t_ns + b.t_ns), 1e-12);
    assert_near(sum.flops, 0.5 * (a.flops + b.flops), 1e-12);
    assert_near(sum.graph.ops[SIM_OP_ATTENTION].kv_read_bytes,
                0.5 * (a.graph.ops[SIM_OP_ATTENTION].kv_read_bytes +
                       b.graph.ops[SIM_OP_ATTENTION].kv_read_bytes),
                1e-12);
    assert_int_equal(sum.graph.tokens, 16);
}

static void test_host_overhead(void **state)
{
    (void)state;
    /* 500 us per iteration + 20 us per sequence x 8 sequences = 660 us the GPU waits for;
     * serial, so it shifts the prediction and both bounds by exactly that much. */
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_fixture_hw();
    sim_step_cfg cfg = {.model = &m, .hw = &hw, .tp = 1, .prec = BF16};
    sim_seq_group g = {.count = 8, .q = 1, .c = 1000, .logits = 1};
    sim_step_result a, b;
    sim_step_price(&cfg, &g, 1, &a);
    cfg.iteration_overhead_ns = 500e3;
    cfg.request_overhead_ns = 20e3;
    sim_step_price(&cfg, &g, 1, &b);
    assert_near(a.t_host_ns, 0.0, 0);
    assert_near(b.t_host_ns, 660e3, 1e-12);
    assert_near(b.t_ns - a.t_ns, 660e3, 1e-9);
    assert_near(b.t_lower_ns - a.t_lower_ns, 660e3, 1e-9);
    assert_near(b.t_upper_ns - a.t_upper_ns, 660e3, 1e-9);
    /* asynchronous scheduling: the 660 us of CPU work hides behind the ~6 ms GPU step... */
    cfg.async_sched = true;
    sim_step_price(&cfg, &g, 1, &b);
    assert_near(b.t_cpu_ns, 660e3, 1e-12);
    assert_near(b.t_host_ns, 0.0, 0);
    assert_near(b.t_ns, a.t_ns, 1e-12);
    /* ...unless it is longer than the GPU step: then the step lasts as long as the CPU work */
    cfg.iteration_overhead_ns = 50e6;
    sim_step_price(&cfg, &g, 1, &b);
    assert_near(b.t_ns, 50e6 + 8 * 20e3, 1e-12);
    /* CPU work after a wait on the device (SGLang 0.4's FlashInfer plan): 2 ms of it is exposed
     * even with async scheduling, the other 660 us still hide behind the ~6 ms GPU step:
     * cpu = 500 + 8 x 20 + 2000 = 2660 us, host = 2000 + max(0, 660 us - GPU) = 2000 us */
    cfg.iteration_overhead_ns = 500e3;
    cfg.sync_overhead_ns = 2000e3;
    sim_step_price(&cfg, &g, 1, &b);
    assert_near(b.t_cpu_ns, 2660e3, 1e-12);
    assert_near(b.t_host_ns, 2000e3, 1e-12);
    assert_near(b.t_ns - a.t_ns, 2000e3, 1e-9);
    /* a synchronous engine waits for all of it: 2660 us */
    cfg.async_sched = false;
    sim_step_price(&cfg, &g, 1, &b);
    assert_near(b.t_host_ns, 2660e3, 1e-12);
    sim_err err = {{0}};
    cfg.sync_overhead_ns = -1.0;
    assert_int_equal(sim_step_check(&cfg, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "host.sync_overhead_us"));
    cfg.sync_overhead_ns = 0.0;
    cfg.request_overhead_ns = -1.0;
    assert_int_equal(sim_step_check(&cfg, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--request-overhead-us"));
}

static void test_eager_dispatch(void **state)
{
    (void)state;
    /* The host rule (step.h): 100 kernels at 25 us of CPU each = 2.5 ms of launches; a 40 us GPU
     * step waits 2.5 - 0.04 = 2.46 ms for them. Synchronous: + 1 ms of scheduling = 3.46 ms;
     * asynchronous: the scheduling runs on the same CPU thread, 1 + 2.5 - 0.04 = 3.46 ms too;
     * a 5 ms GPU step hides both (async: 3.5 < 5 -> 0) but a synchronous engine still waits
     * for its 1 ms of scheduling. */
    assert_near(sim_step_host_ns(1e6, 0.0, 100 * 25e3, 40e3, false), 3.46e6, 1e-6);
    assert_near(sim_step_host_ns(1e6, 0.0, 100 * 25e3, 40e3, true), 3.46e6, 1e-6);
    assert_near(sim_step_host_ns(1e6, 0.0, 100 * 25e3, 5e6, true), 0.0, 0);
    assert_near(sim_step_host_ns(1e6, 0.0, 100 * 25e3, 5e6, false), 1e6, 1e-6);
    /* 3 ms of scheduling, 2 ms of it after a device wait (async): the 2 ms are exposed, and the
     * other 1 ms with the launches exceed the GPU by 1 + 2.5 - 0.04 = 3.46 ms: 5.46 ms */
    assert_near(sim_step_host_ns(3e6, 2e6, 100 * 25e3, 40e3, true), 5.46e6, 1e-6);

    /* In a step: a prefill of 16 tokens of Llama-3.1-8B launches every op's kernels once per
     * layer; with 25 us per kernel the CPU takes kernels x 25 us, and the step lasts that long
     * when the GPU's own work is shorter (a synchronous engine with no other CPU work: t = GPU
     * time + max(0, dispatch - GPU time) = dispatch). A graph-replayed decode step dispatches
     * nothing. */
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_fixture_hw();
    sim_step_cfg cfg = {.model = &m, .hw = &hw, .tp = 1, .prec = BF16, .eager = true};
    sim_seq_group g = {.count = 1, .q = 16, .c = 0, .logits = 1};
    sim_step_result a, b;
    sim_step_price(&cfg, &g, 1, &a);
    assert_true(a.kernels > 32.0 * 8.0); /* at least 8 kernels a layer over 32 layers */
    cfg.eager_kernel_cpu_ns = 25e3;
    sim_step_price(&cfg, &g, 1, &b);
    const double dispatch = a.kernels * 25e3;
    assert_true(dispatch > a.t_ns); /* the CPU bounds this step */
    assert_near(b.kernels, a.kernels, 0);
    assert_near(b.t_cpu_ns, dispatch, 1e-6);
    assert_near(b.t_ns, dispatch, 1e-6 * dispatch);
    assert_true(b.t_lower_ns <= b.t_ns && b.t_ns <= b.t_upper_ns);
    /* the same step replayed from a graph: no eager launches, nothing waits */
    cfg.eager = false;
    g = (sim_seq_group){.count = 1, .q = 1, .c = 16, .logits = 1};
    sim_step_price(&cfg, &g, 1, &b);
    assert_near(b.t_cpu_ns, 0.0, 0);
    assert_near(b.t_host_ns, 0.0, 0);
    sim_err err = {{0}};
    cfg.eager_kernel_cpu_ns = -1.0;
    assert_int_equal(sim_step_check(&cfg, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "host.eager_kernel_cpu_us"));
}

static void test_memo_matches(void **state)
{
    (void)state;
    /* consecutive decode steps through the memos price exactly as without them, however the
     * batch and launch mode change between them (one memo per launch mode, as the engine keeps) */
    sim_model m = tu_model("llama-3.1-70b");
    sim_hw hw = tu_fixture_hw();
    sim_step_cfg cfg = {.model = &m,
                        .hw = &hw,
                        .tp = 8,
                        .prec = BF16,
                        .overlap = 0.3,
                        .iteration_overhead_ns = 1e6,
                        .request_overhead_ns = 1e4};
    sim_step_memo *memo = calloc(2, sizeof *memo);
    sim_step_memo_ways *ways = calloc(2, sizeof *ways); /* and through the ways, whose batch */
    sim_step_result a;                                  /* returns to shapes it had */
    for (int j = 0; j < 120; j++) {
        sim_seq_group g[2] = {{.count = 16 + (j / 10) % 3 + j % 3, .q = 1, .c = 1000 + j, .logits = 1},
                              {.count = 1, .q = j % 7 == 0 ? 300 : 1, .c = 50 * j, .logits = 1}};
        cfg.eager = j % 7 == 0;
        sim_step_price(&cfg, g, 2, &a);
        const sim_step_result *r[2] = {sim_step_price_memo(&cfg, g, 2, &memo[cfg.eager]),
                                       sim_step_price_memo_ways(&cfg, g, 2, &ways[cfg.eager])};
        for (int k = 0; k < 2; k++) {
            const sim_step_result *b = r[k];
            assert_true(a.t_ns == b->t_ns && a.t_lower_ns == b->t_lower_ns &&
                        a.t_upper_ns == b->t_upper_ns && a.flops == b->flops &&
                        a.bytes == b->bytes && a.net_hidden_ns == b->net_hidden_ns &&
                        a.t_host_ns == b->t_host_ns && a.kernels == b->kernels);
            for (int i = 0; i < SIM_OP_COUNT; i++) /* field by field: padding is not data */
                assert_true(a.cost[i].t_ns == b->cost[i].t_ns &&
                            a.cost[i].bound == b->cost[i].bound &&
                            a.hidden_ns[i] == b->hidden_ns[i] &&
                            a.graph.ops[i].flops == b->graph.ops[i].flops);
        }
    }
    free(memo);
    free(ways);
}

static void test_check(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_fixture_hw();
    sim_err err = {{0}};
    sim_step_cfg cfg = {.model = &m, .hw = &hw, .tp = 1, .prec = BF16, .overlap = 1.5};
    assert_int_equal(sim_step_check(&cfg, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--overlap-comm"));
    cfg.overlap = 0.0;
    cfg.tp = 5;
    assert_int_equal(sim_step_check(&cfg, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--tp"));
}

/* --fuse-allreduce-norm: at TP 4 a decode step's all-reduces (1 token x 4096 x 2 B = 8 KiB) run
 * one-shot, so the norm after each (attn_norm after the previous layer's, mlp_norm after the
 * attention's, final_norm after the last) joins it: no launch of its own and no read of the
 * reduced T x d values from HBM. The step saves, per layer, 2 launches and 2 x 8192 B, and once
 * more for the final norm. With NCCL's ring (forced) nothing fuses. */
static void test_fuse_allreduce_norm(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg cfg = {.model = &m, .hw = &hw, .tp = 4, .prec = BF16};
    sim_seq_group g = {.count = 1, .q = 1, .c = 1024, .logits = 1};
    sim_step_result plain, fused;
    sim_step_price(&cfg, &g, 1, &plain);
    cfg.fuse_allreduce_norm = true;
    sim_step_price(&cfg, &g, 1, &fused);
    assert_int_equal(plain.cost[SIM_OP_ATTN_ALLREDUCE].coll_algo, SIM_COLL_ONESHOT);
    assert_true(fused.graph.ops[SIM_OP_MLP_NORM].fused && fused.graph.ops[SIM_OP_ATTN_NORM].fused);
    assert_near(fused.cost[SIM_OP_MLP_NORM].t_launch_ns, 0.0, 0);
    double launch = hw.graph_launch_ns, saved = 2.0 * 32 + 1.0;
    assert_near(plain.t_launch_ns - fused.t_launch_ns, saved * launch, 1e-9);
    assert_near(plain.bytes - fused.bytes, saved * 4096.0 * 2.0, 1e-9);
    double mem = plain.cost[SIM_OP_MLP_NORM].t_mem_ns - fused.cost[SIM_OP_MLP_NORM].t_mem_ns;
    assert_near(mem, 8192.0 / (hw.hbm_bytes_per_s * hw.eff_memory) * 1e9, 1e-9);
    assert_true(fused.t_ns < plain.t_ns);
    /* NCCL's ring is not an engine kernel: no fusion */
    cfg.allreduce = SIM_COLL_RING;
    sim_step_price(&cfg, &g, 1, &fused);
    assert_false(fused.graph.ops[SIM_OP_MLP_NORM].fused);
    /* one GPU: no all-reduce, nothing to fuse into */
    cfg.tp = 1;
    cfg.allreduce = SIM_COLL_AUTO;
    sim_step_price(&cfg, &g, 1, &fused);
    sim_step_price(&(sim_step_cfg){.model = &m, .hw = &hw, .tp = 1, .prec = BF16}, &g, 1, &plain);
    assert_near(fused.t_ns, plain.t_ns, 0);
}

/* The q/k norm folded into RoPE (TensorRT-LLM 1.x): Qwen3-32B at batch 1 on one H100 launches
 * 2 kernels fewer per layer (q_norm + k_norm + rope become one), 64 x 2 graph launches, and
 * drops RoPE's own read and write of q and k (2 x (64 + 8 heads) x 128 values x 2 B = 36,864 B
 * a layer); Llama, without q/k norms, is unchanged. */
static void test_fuse_qk_norm_rope(void **state)
{
    (void)state;
    sim_model m = tu_model("qwen3-32b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg cfg = {.model = &m, .hw = &hw, .tp = 1, .prec = BF16};
    sim_seq_group g = {.count = 1, .q = 1, .c = 1024, .logits = 1};
    sim_step_result plain, fused;
    sim_step_price(&cfg, &g, 1, &plain);
    cfg.fuse_qk_norm_rope = true;
    sim_step_price(&cfg, &g, 1, &fused);
    assert_near(plain.kernels - fused.kernels, 2.0 * 64, 1e-12);
    assert_near(plain.t_launch_ns - fused.t_launch_ns, 2.0 * 64 * hw.graph_launch_ns, 1e-9);
    assert_near(plain.bytes - fused.bytes, 64.0 * 36864.0, 1e-9);
    assert_true(fused.t_ns < plain.t_ns);
    sim_model l = tu_model("llama-3.1-8b");
    cfg.model = &l;
    sim_step_price(&cfg, &g, 1, &fused);
    cfg.fuse_qk_norm_rope = false;
    sim_step_price(&cfg, &g, 1, &plain);
    assert_near(fused.t_ns, plain.t_ns, 0);
}

/* The all-reduce an engine profile picks (collectives.allreduce of the files in hw/engines) on a TP 8
 * decode step of llama-3.1-8b on H100 SXM: 1 token x 4096 x 2 B = M = 8192 B per all-reduce.
 * vLLM, SGLang and TensorRT-LLM (auto) run their custom one-shot kernel:
 *   L_1 + (N-1) M / (B_up e_1) = 3968.5 + 7 x 8192 / (450e9 x 0.6518) s = 3968.5 + 195.5 ns
 *   = 4164.0 ns;
 * Hugging Face (nccl) gets NCCL's cheapest, the LL ring (tree = ring within one node):
 *   F + b_LL + 2(N-1) h_LL + 2(N-1)/N M / (B_up e w_LL)
 *   = 3882.9 + 6600 + 14 x 600 + 14336 / (450e9 x 0.8456 x 0.3156) s = 18882.9 + 119.4 ns
 *   = 19002.3 ns.
 * The step's network time differs by (19002.3 - 4164.0) ns per all-reduce it runs. */
static void test_engine_allreduce_choice(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_result r[2]; /* the profiles' two picks: auto (custom kernels), nccl */
    for (int i = 0; i < 2; i++) {
        sim_step_cfg cfg = {.model = &m,
                            .hw = &hw,
                            .tp = 8,
                            .prec = BF16,
                            .allreduce = i ? SIM_COLL_NCCL : SIM_COLL_AUTO};
        sim_step_price(&cfg, &(sim_seq_group){.count = 1, .q = 1, .c = 1024, .logits = 1}, 1,
                       &r[i]);
    }
    const sim_step_result *custom = &r[0], *nccl = &r[1];
    const double t_one = 3968.5 + 7.0 * 8192.0 / (450e9 * 0.6518) * 1e9;
    const double t_ll = 3882.9 + 6600.0 + 14.0 * 600.0 + 14336.0 / (450e9 * 0.8456 * 0.3156) * 1e9;
    assert_near(t_one, 4164.0, 0.1);
    assert_near(t_ll, 19002.3, 0.1);
    assert_int_equal(custom->cost[SIM_OP_MLP_ALLREDUCE].coll_algo, SIM_COLL_ONESHOT);
    assert_near(custom->cost[SIM_OP_MLP_ALLREDUCE].t_net_ns, t_one, 0.01);
    sim_coll_algo a = nccl->cost[SIM_OP_MLP_ALLREDUCE].coll_algo;
    assert_true(a == SIM_COLL_RING || a == SIM_COLL_TREE);
    assert_int_equal(nccl->cost[SIM_OP_MLP_ALLREDUCE].coll_proto, SIM_COLL_LL);
    assert_near(nccl->cost[SIM_OP_MLP_ALLREDUCE].t_net_ns, t_ll, 0.01);
    /* every all-reduce of the step has the same message: the step moves by the count of them */
    double n_ar = 0.0;
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (custom->graph.ops[i].present && custom->graph.ops[i].net_kind == SIM_COLL_ALLREDUCE &&
            custom->graph.ops[i].net_bytes > 0.0)
            n_ar += sim_step_op_repeats(custom, (sim_op_id)i);
    assert_true(n_ar >= 2.0 * 32);
    assert_near(nccl->t_net_ns - custom->t_net_ns, n_ar * (t_ll - t_one), 1e-6 * nccl->t_net_ns);
    assert_true(nccl->t_ns > custom->t_ns);
}

/* vLLM 0.5 quantizes each of a layer's four GEMM inputs in 3 kernels of its own. Llama-3.1-8B
 * at TP 1, fp8 weights and activations, one decode token: the graph's act_quant (o_proj's input,
 * K = 32 x 128 = 4096) becomes qkv + o + gate_up + down = 4096 + 4096 + 4096 + 14336 = 26624
 * values, each read in 16 bits and written in 8, plus one fp32 scale per token per input:
 * 26624 x 3 + 4 x 4 = 79,888 bytes against o_proj's 4096 x 3 + 4 = 12,292 (6.4992x), and
 * 4 x 3 = 12 launches: 18 us at 1.5 us each inside a CUDA graph.
 * Fused (the default), it is one launch. The decode attention kernel follows the KV format:
 * trtllm-0.11's masked MHA at batch 1 over an fp8 cache prices the attention op's CTA bound. */
static void test_engine_kernels(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_fixture_hw();
    sim_prec fp8 = {.weight = SIM_DT_FP8, .act = SIM_DT_FP8, .kv = SIM_DT_FP8};
    sim_step_cfg cfg = {.model = &m, .hw = &hw, .tp = 1, .prec = fp8};
    sim_seq_group g = {.count = 1, .q = 1, .c = 1535, .logits = 1};
    sim_step_result *fused = calloc(1, sizeof *fused), *own = calloc(1, sizeof *own);
    assert_non_null(fused);
    assert_non_null(own);
    sim_step_price(&cfg, &g, 1, fused);
    cfg.act_quant_kernels = 3;
    sim_step_price(&cfg, &g, 1, own);
    assert_near(fused->cost[SIM_OP_ACT_QUANT].t_launch_ns, 1500.0, 1e-9);
    assert_near(own->cost[SIM_OP_ACT_QUANT].t_launch_ns, 18000.0, 1e-9);
    assert_near(fused->graph.ops[SIM_OP_ACT_QUANT].act_bytes, 12292.0, 1e-9);
    assert_near(own->graph.ops[SIM_OP_ACT_QUANT].act_bytes, 79888.0, 1e-9);
    /* 32 CTAs of 1536 x 256 fp8 values, each converted: 786,432 B at the fixture's rate */
    assert_int_equal(own->graph.ops[SIM_OP_ATTENTION].dattn, SIM_DATTN_SPLIT);
    cfg.decode_attn_quant_kv = SIM_DATTN_TRTLLM_011;
    sim_step_price(&cfg, &g, 1, own);
    assert_int_equal(own->graph.ops[SIM_OP_ATTENTION].dattn, SIM_DATTN_TRTLLM_011);
    assert_near(own->cost[SIM_OP_ATTENTION].t_mem_ns, 786432.0 / hw.decode_cta_bytes_per_s * 1e9,
                1e-9);
    free(fused);
    free(own);
}

/* Piecewise graphs (vLLM V1 before 0.11): a replayed decode step launches each layer's attention
 * kernels eagerly and relaunches the next graph piece. On the fixture H100 (4 us eager, 1.5 us in
 * a graph) the attention op's 2 kernels cost 2 x 4 + 4 = 12 us of launches per layer instead of
 * 2 x 1.5 = 3 us, so Llama-3.1-8B's 32 layers take 32 x 9 = 288 us more; nothing else moves, and an
 * eager step (prefill, --enforce-eager) is the same either way. */
static void test_piecewise_graphs(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_fixture_hw();
    sim_step_cfg cfg = {.model = &m, .hw = &hw, .tp = 1, .prec = BF16};
    sim_seq_group g = {.count = 4, .q = 1, .c = 1000, .logits = 4};
    sim_step_result *full = calloc(1, sizeof *full), *pw = calloc(1, sizeof *pw);
    assert_non_null(full);
    assert_non_null(pw);
    sim_step_price(&cfg, &g, 1, full);
    cfg.piecewise_graphs = true;
    sim_step_price(&cfg, &g, 1, pw);
    assert_near(full->cost[SIM_OP_ATTENTION].t_launch_ns, 3000.0, 1e-9);
    assert_near(pw->cost[SIM_OP_ATTENTION].t_launch_ns, 12000.0, 1e-9);
    assert_near(pw->cost[SIM_OP_QKV_PROJ].t_launch_ns, full->cost[SIM_OP_QKV_PROJ].t_launch_ns, 0);
    assert_near(pw->t_launch_ns - full->t_launch_ns, 288000.0, 1e-6);
    assert_near(pw->t_ns - full->t_ns, 288000.0, 1e-6);
    /* the memo reprices attention (context-dependent) the same way */
    sim_step_memo memo = {0};
    const sim_step_result *a = sim_step_price_memo(&cfg, &g, 1, &memo);
    g.c = 1001;
    const sim_step_result *b = sim_step_price_memo(&cfg, &g, 1, &memo);
    assert_true(a == b);
    assert_near(b->cost[SIM_OP_ATTENTION].t_launch_ns, 12000.0, 1e-9);
    /* eager steps do not change */
    cfg.eager = true;
    sim_step_price(&cfg, &g, 1, pw);
    cfg.piecewise_graphs = false;
    sim_step_price(&cfg, &g, 1, full);
    assert_near(pw->t_ns, full->t_ns, 0);
    free(full);
    free(pw);
}

static void test_graph_padding(void **state)
{
    (void)state;
    /* captured sizes 1, 2, 4, 8, 16, ..., up to the largest: a batch pads to the next one */
    sim_step_cfg c = {.graph_max_bs = 512};
    const int64_t seqs[] = {1, 2, 3, 5, 9, 500, 509, 512, 513};
    const int64_t want[] = {1, 2, 4, 8, 16, 504, 512, 512, 0}; /* 0: eager above 512 */
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
        assert_int_equal(sim_step_graph_seqs(&c, seqs[i]), want[i]);
    c.graph_max_bs = 100; /* a largest size off the multiples of 8 is captured too */
    assert_int_equal(sim_step_graph_seqs(&c, 97), 100);
    c.graph_max_bs = 0; /* every batch its own graph */
    assert_int_equal(sim_step_graph_seqs(&c, 77), 77);
    c.eager = true;
    assert_int_equal(sim_step_graph_seqs(&c, 1), 0);
}

static void test_tbo_schedule(void **state)
{
    (void)state;
    /* two micro-batches, each MoE layer c0 = 10, x0 = 6, c1 = 8, x1 = 4 (ns). Compute stream
     * A.c0 0-10, B.c0 10-20; comm A.x0 10-16, B.x0 20-26; A.c1 max(16, 20) = 20-28, B.c1
     * max(26, 28) = 28-36; A.x1 max(28, 26) = 28-32, B.x1 max(36, 32) = 36-40: 40 ns against
     * 56 without overlap */
    const double a[4] = {10, 6, 8, 4};
    assert_near(sim_step_tbo_makespan(a, a, 1), 40.0, 1e-12);
    /* layer 2: A.c0 max(32, 36) = 36-46, B.c0 46-56, A.x0 46-52, B.x0 56-62, A.c1
     * max(52, 56) = 56-64, B.c1 max(62, 64) = 64-72, A.x1 64-68, B.x1 72-76 */
    assert_near(sim_step_tbo_makespan(a, a, 2), 76.0, 1e-12);
    /* communication-bound: c = 1, x = 10: the comm stream runs back to back after A.c0: 1 + 4 x
     * 10 = 41 per layer... A.x0 1-11, B.x0 11-21, A.x1 max(A.c1 12, 21) = 21-31, B.x1 31-41 */
    const double c[4] = {1, 10, 1, 10};
    assert_near(sim_step_tbo_makespan(c, c, 1), 41.0, 1e-12);
    /* nothing to overlap: one micro-batch empty runs the other serially */
    const double z[4] = {0, 0, 0, 0};
    assert_near(sim_step_tbo_makespan(a, z, 3), 3 * 28.0, 1e-12);
}

/* DeepSeek-V3 in fp8 at --tp 1 --ep `ep` --dp-attention on hw */
static sim_step_cfg dsv3_dp(const sim_model *m, const sim_hw *hw, int ep)
{
    const sim_prec fp8 = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false};
    return (sim_step_cfg){.model = m, .hw = hw, .tp = 1, .prec = fp8, .ep = ep,
                          .dp_attention = true};
}

/* DeepEP's low-latency buffer (a2a.h SIM_A2A_LL_MAX_TOKENS, SGLang's 128 tokens per rank):
 * DeepSeek-V3 at --tp 1 --ep 8 --dp-attention, each rank sends ceil(T / 8) */
static void test_deepep_ll_buffer(void **state)
{
    (void)state;
    sim_model m = tu_model("deepseek-v3");
    sim_hw hw = tu_hw("h200");
    sim_step_cfg cfg = dsv3_dp(&m, &hw, 8);
    const sim_prec fp8 = cfg.prec;
    sim_err err = {{0}};
    /* decode under auto runs low-latency: 1024 / 8 = 128 fit, 1025 put ceil(128.1) = 129 */
    assert_int_equal(sim_step_check_a2a_tokens(&cfg, 1024, false, "--batch", &err), SIM_OK);
    assert_int_equal(sim_step_check_a2a_tokens(&cfg, 1025, false, "--batch", &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--batch: a decode step of 1025 tokens puts 129 on each of "
                                    "the 8 EP ranks"));
    assert_non_null(strstr(err.msg, "buffer of 128 tokens per rank"));
    /* a prefill step under auto runs the normal kernels, which have no such buffer */
    assert_int_equal(sim_step_check_a2a_tokens(&cfg, 65536, true, "--batch", &err), SIM_OK);
    /* forced low-latency, the prefill too; forced normal, nothing */
    cfg.moe_a2a = SIM_A2A_LOW_LATENCY;
    assert_int_equal(sim_step_check_a2a_tokens(&cfg, 1025, true, "--batch", &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "a prefill step"));
    cfg.moe_a2a = SIM_A2A_NORMAL;
    assert_int_equal(sim_step_check_a2a_tokens(&cfg, 1e6, false, "--batch", &err), SIM_OK);
    /* a larger buffer (--deepep-ll-max-tokens 256): 2048 fit, 2049 do not */
    cfg.moe_a2a = SIM_A2A_AUTO;
    cfg.a2a_ll_max_tokens = 256;
    assert_int_equal(sim_step_check_a2a_tokens(&cfg, 2048, false, "--batch", &err), SIM_OK);
    assert_int_equal(sim_step_check_a2a_tokens(&cfg, 2049, false, "--batch", &err), SIM_EINPUT);
    /* EP over the TP group under auto: no all-to-all, no buffer */
    cfg = (sim_step_cfg){.model = &m, .hw = &hw, .tp = 8, .prec = fp8, .ep = 8};
    assert_int_equal(sim_step_check_a2a_tokens(&cfg, 1e6, false, "--batch", &err), SIM_OK);
    /* a negative buffer is bad input */
    cfg.a2a_ll_max_tokens = -1;
    assert_int_equal(sim_step_check(&cfg, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--deepep-ll-max-tokens"));
}

static void test_tbo_step(void **state)
{
    (void)state;
    /* DeepSeek-V3 at EP 32 over H800 nodes, decode of 8192 sequences (256 per GPU): TBO hides
     * network behind the other half's compute, the time identity holds, bounds bracket it */
    sim_model m = tu_model("deepseek-v3");
    sim_hw hw = tu_hw("h800");
    sim_step_cfg cfg = dsv3_dp(&m, &hw, 32);
    sim_seq_group g = {.count = 8192, .q = 1, .c = 2000, .logits = 1};
    sim_step_result off, on;
    sim_step_price(&cfg, &g, 1, &off);
    cfg.tbo = true;
    sim_step_price(&cfg, &g, 1, &on);
    assert_true(off.net_hidden_ns == 0.0);
    assert_true(on.net_hidden_ns > 0.5 * on.t_net_ns);
    assert_near(on.t_ns, on.busy_ns + on.t_launch_ns + on.t_host_ns + on.net_exposed_ns, 1e-12);
    assert_true(on.t_lower_ns <= on.t_ns && on.t_ns <= on.t_upper_ns);
    /* two halves of 4096 read every MoE-layer weight twice: more bytes than one batch */
    assert_true(on.bytes > off.bytes);
    /* at this batch the overlap wins */
    assert_true(on.t_ns < off.t_ns);
    /* through the memo: the same numbers */
    sim_step_memo *memo = calloc(1, sizeof *memo);
    const sim_step_result *mr = sim_step_price_memo(&cfg, &g, 1, memo);
    assert_true(mr->t_ns == on.t_ns);
    mr = sim_step_price_memo(&cfg, &g, 1, memo);
    assert_true(mr->t_ns == on.t_ns);
    free(memo);
    /* one decode sequence cannot be split; no EP: no TBO */
    g.count = 1;
    sim_step_price(&cfg, &g, 1, &on);
    cfg.tbo = false;
    sim_step_price(&cfg, &g, 1, &off);
    assert_true(on.t_ns == off.t_ns);
}

static void test_dp_attention_waits_for_slowest(void **state)
{
    (void)state;
    /* DeepSeek-V3 at EP 8 with 8 DP attention groups, 8 decodes. Equal contexts: every group
     * has one sequence at 4000. One request at 32000 instead: its group reads 8x the latent,
     * and the whole step waits for it; the mean share would have spread it over all 8 */
    sim_model m = tu_model("deepseek-v3");
    sim_hw hw = tu_hw("h200");
    const sim_prec fp8 = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false};
    sim_step_cfg cfg = {.model = &m, .hw = &hw, .tp = 1, .prec = fp8, .ep = 8,
                        .dp_attention = true};
    sim_seq_group g[8];
    for (int i = 0; i < 8; i++)
        g[i] = (sim_seq_group){.count = 1, .q = 1, .c = 4000, .logits = 1, .rank = i};
    sim_step_result even, skew;
    sim_step_price(&cfg, g, 8, &even);
    g[5].c = 32000;
    sim_step_price(&cfg, g, 8, &skew);
    /* the slowest group's attention reads 32001 latents of 576 values, 2 B each (bf16 KV) */
    assert_near(skew.graph.ops[SIM_OP_ATTENTION].kv_read_bytes, 32001.0 * 576 * 2, 1e-12);
    assert_near(even.graph.ops[SIM_OP_ATTENTION].kv_read_bytes, 4001.0 * 576 * 2, 1e-12);
    assert_true(skew.t_ns > even.t_ns);
    /* each group's scheduler runs apart: the CPU work per request is the slowest group's one
     * sequence's, not the replica's eight */
    cfg.request_overhead_ns = 1e4;
    sim_step_result host;
    sim_step_price(&cfg, g, 8, &host);
    assert_near(host.t_cpu_ns, 1e4, 1e-12);
    cfg.request_overhead_ns = 0.0;
    /* the barrier is priced once per step */
    assert_true(skew.cost[SIM_OP_DP_SYNC].t_net_ns > 0.0);
    assert_near(sim_step_op_repeats(&skew, SIM_OP_DP_SYNC), 1.0, 0);
    /* the memo prices it the same, and notices the slowest group changing */
    sim_step_memo *memo = calloc(1, sizeof *memo);
    g[5].c = 4000;
    const sim_step_result *r = sim_step_price_memo(&cfg, g, 8, memo);
    assert_true(r->t_ns == even.t_ns);
    g[5].c = 32000;
    r = sim_step_price_memo(&cfg, g, 8, memo);
    assert_true(r->t_ns == skew.t_ns);
    free(memo);
}

/* DeepSeek-V3 (fp8, 128 x 128 weight blocks) at TP 8 on H200, one decode token: q_down is
 * N 1536 x K 7168, 12 thread blocks of the Triton kernel in one wave of 132 SMs, each streaming
 * 7168 x 128 + 56 x 4 = 917,728 B at 42 GB/s: 21.851 us (its 11 MB over HBM: ~3 us). An engine
 * running DeepGEMM (block_fp8_triton false, SGLang) does not take that bound. */
static void test_block_fp8_engine(void **state)
{
    (void)state;
    sim_model m = tu_model("deepseek-v3");
    sim_hw hw = tu_hw("h200");
    sim_prec_given g = {0};
    sim_prec p;
    assert_true(sim_graph_prec_defaults(&m, &hw, &g, &p));
    assert_true(p.block_scaled);
    sim_step_cfg cfg = {.model = &m, .hw = &hw, .tp = 8, .prec = p, .block_fp8_triton = true};
    sim_seq_group gr = {.count = 1, .q = 1, .c = 1024, .logits = 1};
    sim_step_result *r = malloc(sizeof *r);
    assert_non_null(r);
    sim_step_price(&cfg, &gr, 1, r);
    assert_near(r->cost[SIM_OP_Q_DOWN].t_mem_ns, 917728.0 / 42e9 * 1e9, 1e-6);
    const double triton_ns = r->t_ns;
    cfg.block_fp8_triton = false;
    sim_step_price(&cfg, &gr, 1, r);
    assert_true(r->cost[SIM_OP_Q_DOWN].t_mem_ns < 5000.0);
    assert_true(r->t_ns < triton_ns - 2e6); /* more than 2 ms of the step is that bound */
    free(r);
}

/* n additions one at a time: what sim_step_add_repeated must give, bit for bit. */
static double add_loop(double s, double x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        s += x;
    return s;
}

static void test_add_repeated_matches_loop(void **state)
{
    (void)state;
    /* the header's example: ten additions of 0.1 from 0 fall one unit short of 1 */
    assert_true(sim_step_add_repeated(0.0, 0.1, 10) == 0.9999999999999999);
    /* ties (x half a unit of s: ties to even, which depends on s's last bit), a tie every other
     * step (x one and a half units), x under half a unit (s never moves), binade crossings,
     * zero, negative, tiny and huge terms */
    const double u = 0x1p-52; /* a unit of [1, 2) */
    const struct {
        double s, x;
        int64_t n;
    } c[] = {{1.0, u / 2, 100},        {1.0 + u, u / 2, 100},   {1.0, 1.5 * u, 1000},
             {1.0 + u, 1.5 * u, 999},   {1.0, u / 4, 50},        {1.0, 0.1, 10000},
             {0.0, 0.1, 100000},        {0.0, 3.0, 12345},       {5.0, 0.0, 7},
             {-0.0, 0.0, 3},            {2.0, -0.3, 100},        {-1.0, -0.7, 1000},
             {0x1p-1070, 0x1p-1074, 9}, {1e300, 1e299, 1000},    {123.456, 1e-14, 100000},
             {0.0, 2.4e7, 255},         {4.7e11, 3.3e5, 4096},   {1.0, 1.0, 0}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const double want = add_loop(c[i].s, c[i].x, c[i].n);
        const double got = sim_step_add_repeated(c[i].s, c[i].x, c[i].n);
        assert_memory_equal(&want, &got, sizeof want); /* -0.0, inf too */
    }
    /* and a spread of terms whose increments round every way */
    uint64_t r = 88172645463325252u;
    for (int i = 0; i < 3000; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        const double s = (double)(r % 100000) * 1.37, x = (double)((r >> 20) % 9973 + 1) * 0.0137;
        const int64_t n = (int64_t)((r >> 40) % 3000);
        const double want = add_loop(s, x, n), got = sim_step_add_repeated(s, x, n);
        assert_memory_equal(&want, &got, sizeof want);
    }
}

/* Every additive field of two summed steps is the same double. */
static void assert_same_sum(const sim_step_result *a, const sim_step_result *b)
{
    assert_true(a->net_hidden_ns == b->net_hidden_ns && a->t_host_ns == b->t_host_ns &&
                a->t_cpu_ns == b->t_cpu_ns && a->graph.tokens == b->graph.tokens &&
                a->graph.seqs == b->graph.seqs && a->graph.logit_tokens == b->graph.logit_tokens);
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        const sim_op *p = &a->graph.ops[i], *q = &b->graph.ops[i];
        const sim_op_cost *x = &a->cost[i], *y = &b->cost[i];
        assert_true(p->flops == q->flops && p->weight_bytes == q->weight_bytes &&
                    p->act_bytes == q->act_bytes && p->kv_read_bytes == q->kv_read_bytes &&
                    p->kv_write_bytes == q->kv_write_bytes && p->net_bytes == q->net_bytes &&
                    p->net_msg_bytes == q->net_msg_bytes);
        assert_true(x->t_math_ns == y->t_math_ns && x->t_mem_ns == y->t_mem_ns &&
                    x->t_net_ns == y->t_net_ns && x->t_launch_ns == y->t_launch_ns &&
                    x->t_ns == y->t_ns && a->hidden_ns[i] == b->hidden_ns[i]);
    }
}

static void test_step_sum_matches_accumulate(void **state)
{
    (void)state;
    /* a static run's decode steps (memo hits after the first, the overlap's share moving with
     * the context at TP 8), summed a run at a time, give sim_step_accumulate's sum exactly; so
     * do steps that change shape midway (a miss ends the run) */
    sim_model m = tu_model("llama-3.1-70b");
    sim_hw hw = tu_fixture_hw();
    sim_step_cfg cfg = {.model = &m,
                        .hw = &hw,
                        .tp = 8,
                        .prec = BF16,
                        .overlap = 0.3,
                        .iteration_overhead_ns = 1e6,
                        .request_overhead_ns = 1e4};
    sim_step_memo *memo = calloc(1, sizeof *memo);
    sim_step_result *sum = calloc(1, sizeof *sum);
    sim_step_sum *acc = calloc(1, sizeof *acc);
    int hits = 0;
    for (int j = 0; j < 2000; j++) {
        sim_seq_group g = {.count = j < 1500 ? 32 : 7, .q = 1, .c = 100 + j, .logits = 1};
        const sim_step_result *r = sim_step_price_memo(&cfg, &g, 1, memo);
        hits += memo->hit;
        sim_step_accumulate(sum, r);
        sim_step_sum_add(acc, r, memo->hit);
    }
    assert_true(hits > 1900); /* the runs were long */
    assert_same_sum(sum, sim_step_sum_end(acc));
    free(memo);
    free(sum);
    free(acc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_padding),
        cmocka_unit_test(test_deepep_ll_buffer),
        cmocka_unit_test(test_engine_kernels),
        cmocka_unit_test(test_weight_streaming_floor),
        cmocka_unit_test(test_fuse_allreduce_norm),
        cmocka_unit_test(test_fuse_qk_norm_rope),
        cmocka_unit_test(test_engine_allreduce_choice),
        cmocka_unit_test(test_layers_multiply), cmocka_unit_test(test_moe_kernel_by_weights),
        cmocka_unit_test(test_bounds_bracket_the_prediction),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_network_can_only_hide_behind_compute),
        cmocka_unit_test(test_mean_of_steps),
        cmocka_unit_test(test_host_overhead),
        cmocka_unit_test(test_memo_matches),
        cmocka_unit_test(test_add_repeated_matches_loop),
        cmocka_unit_test(test_step_sum_matches_accumulate),
        cmocka_unit_test(test_tbo_schedule),
        cmocka_unit_test(test_tbo_step),
        cmocka_unit_test(test_dp_attention_waits_for_slowest),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_piecewise_graphs),
        cmocka_unit_test(test_block_fp8_engine),
        cmocka_unit_test(test_eager_dispatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
