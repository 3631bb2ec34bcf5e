/* test_cost.c - roofline pricing of single ops against hand calculations. */
#include "testutil.h"

#include "cost.h"
#include "kfloor.h"

static sim_op gemm_op(int64_t m, int64_t n, int64_t k, sim_dtype w, sim_dtype compute)
{
    sim_op op = {.id = SIM_OP_GATE_UP_PROJ,
                 .present = true,
                 .m = m,
                 .n = n,
                 .k = k,
                 .weight = w,
                 .compute = compute};
    op.flops = 2.0 * m * n * k;
    op.weight_bytes = (double)n * k * sim_dtype_bytes(w);
    op.act_bytes = (double)m * k * 2 + (double)m * n * 2;
    op.weight_only = !sim_dtype_is_16bit(w) && sim_dtype_is_16bit(compute);
    return op;
}

/* The fixture device has no `collectives` object: NCCL's ring with the Simple protocol (base 0)
 * is its only algorithm, so auto prices F + 2(N-1) hops + bus bytes / (link x efficiency). */
static double ring_ns(const sim_hw *hw, double msg, int ranks)
{
    return sim_collective_allreduce(hw, msg, ranks, SIM_COLL_AUTO).t_ns;
}

static void test_ring_allreduce(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    /* 8 x H100, 1 MiB: each GPU sends 2 x 7/8 x 1,048,576 = 1,835,008 B at 450 GB/s x 0.85 =
     * 382.5 GB/s -> 4.797 us, plus 8 us fixed and 14 hops x 1.5 us = 29 us: 33.80 us (Vidur
     * measured 34 us). */
    assert_near(ring_ns(&hw, 1048576.0, 8), 33797.4, 1e-4);
    /* 64 MiB: 117,440,512 B / 382.5 GB/s = 307.03 us + 29 = 336.0 us (measured 322 us) */
    assert_near(ring_ns(&hw, 67108864.0, 8), 336034.0, 1e-4);
    /* 2 GPUs, 8 KiB (one decode token of a 4096-wide model): 8 us + 2 x 1.5 us + 8192 B /
     * 382.5 GB/s = 11.02 us: the fixed cost dominates small collectives */
    assert_near(ring_ns(&hw, 8192.0, 2), 11021.4, 1e-4);
    /* 16 GPUs span two nodes: the ring runs at the scale-out rate, 50 GB/s x 0.85, and each of
     * the 30 hops costs 5 us: 8 us + 1,966,080 B / 42.5 GB/s = 46.26 us + 150 us = 204.26 us */
    assert_near(ring_ns(&hw, 1048576.0, 16), 204260.7, 1e-4);
    assert_near(ring_ns(&hw, 1e6, 1), 0.0, 0);
}

/* A short prompt's GEMM (128 tokens x 4096 x 4096, bf16) has 1 x 32 output tiles for 132 SMs.
 * Plain tiling: 2 x 128 x 4096^2 = 4.295 GFLOP at 791.52 TFLOP/s x 32/132 busy = 22.384 us.
 * Split-K 4 ways (floor(132 / 32)): 128/132 busy -> 5.596 us, plus the reduction of 4 fp32
 * partials written and read, 2 x 4 x 128 x 4096 x 4 = 16.78 MB at 3.35e12 x 0.866 = 5.783 us:
 * 11.379 us. cuBLAS picks split-K; the cost takes the cheaper. */
static void test_gemm_small_m_split_k(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    sim_op op = gemm_op(128, 4096, 4096, SIM_DT_BF16, SIM_DT_BF16);
    assert_int_equal(sim_cost_gemm_split_k(&hw, 128, 4096), 4);
    assert_near(sim_cost_gemm_split_bytes(128, 4096, 4), 16777216.0, 0);
    assert_near(sim_cost_op(&hw, &op, 0).t_math_ns, 5595.797 + 5783.053, 1e-6);
    /* a large K split 4 ways with a costly reduction of a wide output loses to plain tiling when
     * the tiles already nearly fill a wave: 1024 x 1024 x 1024 (64 tiles, split 2) */
    sim_op sq = gemm_op(1024, 1024, 1024, SIM_DT_BF16, SIM_DT_BF16);
    double plain = 2.0 * 1024 * 1024 * 1024 / (989.4e12 * 0.80 * 64.0 / 132.0) * 1e9;
    double split = 2.0 * 1024 * 1024 * 1024 / (989.4e12 * 0.80 * 128.0 / 132.0) * 1e9 +
                   2.0 * 2 * 1024 * 1024 * 4 / (3.35e12 * 0.866) * 1e9;
    assert_near(sim_cost_op(&hw, &sq, 0).t_math_ns, plain < split ? plain : split, 1e-12);
}

static void test_gemm_padding_and_bounds(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    /* Llama-3.1-8B gate_up at one token: M = 1 padded to 64; 224 output tiles of 128 run in 2
     * waves of 132 SMs (224 / 264 busy), too many to split K.
     * math = 2 x 64 x 28672 x 4096 / (989.4e12 x 0.80) x 264 / 224 = 22.383 us
     * mem  = (28672 x 4096 x 2 + 4096 x 2 + 28672 x 2) / (3.35e12 x 0.866) = 80.985 us */
    sim_op op = gemm_op(1, 28672, 4096, SIM_DT_BF16, SIM_DT_BF16);
    sim_op_cost c = sim_cost_op(&hw, &op, 1500.0);
    assert_near(c.t_math_ns, 18991.8 * 264.0 / 224.0, 1e-4);
    assert_near(c.t_mem_ns, 80985.3, 1e-4);
    assert_near(c.t_launch_ns, 1500.0, 0);
    assert_near(c.t_ns, 80985.3 + 1500.0, 1e-4);
    assert_int_equal(c.bound, SIM_BOUND_MEMORY);
    /* M = 64 costs the same math as M = 1; M = 65 pads to 128 and doubles it */
    sim_op op64 = gemm_op(64, 28672, 4096, SIM_DT_BF16, SIM_DT_BF16);
    sim_op op65 = gemm_op(65, 28672, 4096, SIM_DT_BF16, SIM_DT_BF16);
    assert_near(sim_cost_op(&hw, &op64, 0).t_math_ns, c.t_math_ns, 1e-12);
    assert_near(sim_cost_op(&hw, &op65, 0).t_math_ns, 2.0 * c.t_math_ns, 1e-12);
    /* at 4096 tokens it is compute-bound: 2 x 4096 x 28672 x 4096 / 791.52e12 = 1215.5 us at
     * full occupancy; its 32 x 224 = 7168 tiles of 128 x 128 run in ceil(7168 / 132) = 55 waves
     * on 132 SMs, 7168 / 7260 = 98.7% busy: 1231.1 us */
    sim_op big = gemm_op(4096, 28672, 4096, SIM_DT_BF16, SIM_DT_BF16);
    c = sim_cost_op(&hw, &big, 0);
    assert_int_equal(c.bound, SIM_BOUND_COMPUTE);
    assert_near(sim_cost_gemm_shape_eff(&hw, 4096, 28672, 4096, 1), 7168.0 / 7260.0, 1e-12);
    assert_int_equal(sim_cost_gemm_split_k(&hw, 4096, 28672), 1);
    assert_near(c.t_math_ns, 1215475.0 * 7260.0 / 7168.0, 1e-4);
    /* a skinny GEMM (M = 64, padded to 64: half a 128-row tile): 12 half tiles, 6 tiles' worth of
     * work, leave 126 of 132 SMs idle; split 22 ways, K fills all 132 */
    assert_near(sim_cost_gemm_shape_eff(&hw, 64, 1536, 4096, 1), 6.0 / 132.0, 1e-12);
    assert_int_equal(sim_cost_gemm_split_k(&hw, 64, 1536), 22);
    assert_near(sim_cost_gemm_shape_eff(&hw, 64, 1536, 4096, 22), 1.0, 1e-12);
    /* the waves are counted in the rows the FLOPs are padded to: a GEMM of 129..192 rows pads to
     * 192 and runs 1.5 tiles' worth per 128-row tile column, never cheaper per row than 128
     * (issue 33 D4: with whole 128-row tiles, 192 rows were 2 tiles for 1.5x the FLOPs) */
    assert_near(sim_cost_gemm_shape_eff(&hw, 192, 1536, 4096, 1), 18.0 / 132.0, 1e-12);
    double prev = 0.0;
    for (int64_t m = 1; m <= 1024; m++) {
        sim_op g = gemm_op(m, 4096, 4096, SIM_DT_BF16, SIM_DT_BF16);
        double t = sim_cost_op(&hw, &g, 0).t_math_ns;
        if (t < prev * (1.0 - 1e-12)) { /* equal times may differ in the last bit */
            print_error("m %lld: %.6f < %.6f\n", (long long)m, t, prev);
            fail();
        }
        prev = t;
    }
    /* 1024 x 1024: 64 tiles on 132 SMs, one wave, 48% busy */
    assert_near(sim_cost_gemm_shape_eff(&hw, 1024, 1024, 1024, 1), 64.0 / 132.0, 1e-12);
    /* full fp8 doubles the peak (at fp8's own efficiency 0.71): 2 x 4096 x 28672 x 4096 /
     * (1978.9e12 x 0.71) = 684.74 us, / 0.98733 for the waves = 693.53 us */
    sim_op f8 = gemm_op(4096, 28672, 4096, SIM_DT_FP8, SIM_DT_FP8);
    assert_near(sim_cost_op(&hw, &f8, 0).t_math_ns, 684740.0 * 7260.0 / 7168.0, 1e-4);
    /* the 4096-token bf16 GEMM on a part whose tensor cores run at a fifth of the rate its 0.80
     * was measured at (hw.h sim_hw_gemm_frac), 197.88 TFLOP/s: 0.80 / (0.80 + 0.2 x 0.2) =
     * 0.952381 of that peak, 962.07 GFLOP / (197.88e12 x 0.952381) = 5104.97 us at full
     * occupancy, x 7260 / 7168 for the waves */
    hw.peak_flops[SIM_DT_BF16] *= 0.2;
    hw.tensor_rate_ratio = 0.2;
    assert_near(sim_cost_op(&hw, &big, 0).t_math_ns, 1215475.0 * 5.0 * 0.84 * 7260.0 / 7168.0,
                1e-3);
}

static void test_grouped_gemm_and_all_to_all(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    /* 100 rows over 4 experts: 25 each, padded to 64: 256 rows; 1000 rows over 4: 250 each ->
     * 256: 1024 rows; one group is the plain padding */
    assert_near(sim_cost_grouped_padded_m(100, 4, 64), 256.0, 0);
    assert_near(sim_cost_grouped_padded_m(1000, 4, 64), 1024.0, 0);
    assert_near(sim_cost_grouped_padded_m(65, 1, 64), 128.0, 0);
    /* decode MoE: 8 rows over 8 touched experts, one each: a fused-MoE kernel pads each to the
     * MMA's 16 rows (gemm_weight_only_tile_m), 128 rows: 2 x 128 x 2048 x 4096 = 2.147 GFLOP in
     * 16 output tiles on 132 SMs: plain tiling 16/132 busy = 22.383 us; split-K s ways costs
     * 22.383 / s us of math plus the reduction of 2 x s x 128 x 2048 x 4 B at 2.9011 TB/s
     * (0.7229 s us): 8 ways (the most, 128/132 busy) 2.798 + 5.783 = 8.581 us, 4 ways 8.487 us,
     * 6 ways 3.731 + 4.337 = 8.068 us, the cheapest (5: 8.091, 7: 8.258) */
    sim_op op = gemm_op(8, 2048, 4096, SIM_DT_BF16, SIM_DT_BF16);
    op.id = SIM_OP_EXPERTS_GATE_UP;
    op.groups = 8.0;
    assert_int_equal(sim_cost_gemm_split_k(&hw, 128, 2048), 8);
    assert_near(sim_cost_op(&hw, &op, 0).t_math_ns, 3730.53 + 4337.29, 1e-4);
    /* with a K-step constant (moe.h) a Triton grouped op (8 experts' 16-row blocks) pays K
     * 4096 / 64 = 64 steps x 500 ns = 32 us on top of both its math and its bytes; a mixed-input
     * one and another family do not */
    sim_op grouped = op;
    grouped.moe_kernel = SIM_MOE_TRITON;
    grouped.moe_blocks[0] = 8.0;
    grouped.moe_tokens = 8.0;
    const sim_op_cost before = sim_cost_op(&hw, &grouped, 0);
    hw.moe_k_step_ns = 500.0;
    const sim_op_cost after = sim_cost_op(&hw, &grouped, 0);
    assert_near(after.t_math_ns - before.t_math_ns, 32000.0, 1e-6);
    assert_near(after.t_mem_ns - before.t_mem_ns, 32000.0, 1e-6);
    grouped.moe_kernel = SIM_MOE_CUTLASS;
    const sim_op_cost cutlass = sim_cost_op(&hw, &grouped, 0);
    hw.moe_k_step_ns = 0.0;
    assert_near(cutlass.t_mem_ns, sim_cost_op(&hw, &grouped, 0).t_mem_ns, 1e-9);
    hw.moe_k_step_ns = 500.0;
    grouped.moe_kernel = SIM_MOE_TRITON;
    grouped.weight_only = true;
    const double wo = sim_cost_op(&hw, &grouped, 0).t_mem_ns;
    hw.moe_k_step_ns = 0.0;
    assert_near(wo, sim_cost_op(&hw, &grouped, 0).t_mem_ns, 1e-9);
    /* 64 rows each over 8 experts: 512 rows at the 64-row tile */
    assert_near(sim_cost_grouped_padded_m(512, 8, hw.gemm_tile_m), 512.0, 0);
    /* the all-to-all goes through the collective model (collective.h): 8 GPUs, each holding
     * 458,752 B of routed rows and sending 7/8 of them (401,408 B) to its peers at once, the
     * fixture's ring-only device (Simple, base 0): 8 us + one 1.5 us hop + 401,408 / 382.5 GB/s
     * (1.049 us) = 10.549 us */
    assert_near(sim_collective_alltoall(&hw, 458752.0, 8, 1).t_ns, 8000.0 + 1049.4 + 1500.0, 1e-4);
    sim_op a2a = {.id = SIM_OP_MOE_DISPATCH,
                  .present = true,
                  .net_kind = SIM_COLL_ALLTOALL,
                  .net_msg_bytes = 458752.0,
                  .net_bytes = 401408.0,
                  .net_ranks = 8,
                  .net_hops = 1};
    assert_near(sim_cost_op(&hw, &a2a, 0).t_net_ns,
                sim_collective_alltoall(&hw, 458752.0, 8, 1).t_ns, 1e-12);
    /* prefill's normal mode sends to one peer per step: 6 more hops */
    a2a.net_hops = 7;
    assert_near(sim_cost_op(&hw, &a2a, 0).t_net_ns, 8000.0 + 1049.4 + 7 * 1500.0, 1e-4);
}

static void test_weight_only_dequantization(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    /* int4 weights, bf16 math, M = 1 padded to the 16-row mixed-input tile, dequantized once
     * per 64-row block. The 16 rows are an eighth of a 128-row tile: 224 / 8 = 28 tiles' worth
     * of work, split K up to 4 ways (floor(132 / 28)); 4 ways fills 112 of 132 SMs:
     * math = 2 x 16 x NK / (989.4e12 x 0.6) x 132/112 = 7.461 us, + the reduction of
     *        2 x 4 x 1 x 28672 x 4 B at 2.9011 TB/s = 0.316 us (3 ways: 9.948 + 0.237; plain
     *        29.85 us), + 1 block x NK x 4 ops / 67e12 = 7.011 us: 14.789 us (NK = 28672 x 4096)
     * mem  = (NK / 2 + 8192 + 57344) / 2.9011e12 = 20.263 us: memory-bound, 4x less than bf16 */
    sim_op w4 = gemm_op(1, 28672, 4096, SIM_DT_INT4, SIM_DT_BF16);
    sim_op_cost c = sim_cost_op(&hw, &w4, 0);
    assert_near(c.t_math_ns, 7461.06 + 316.26 + 7011.3, 1e-4);
    assert_near(c.t_mem_ns, 20263.3, 1e-3);
    assert_int_equal(c.bound, SIM_BOUND_MEMORY);
    /* at 256 tokens the dequantization (4 blocks) and the weaker kernel make int4 slower than
     * bf16: math 2 x 256 x NK / 593.64e12 = 101.29 us, over the waves (2 x 224 = 448 tiles in 4
     * waves of 132: 448 / 528 busy) = 119.38 us, + 4 x 7.011 = 147.42 us, against bf16's
     * max(89.5 us math, 86.75 us memory); the memory includes the activations:
     * (28672 x 4096 x 2 + 256 x 4096 x 2 + 256 x 28672 x 2) / 2.9011e12 = 251,658,240 B */
    sim_op w4b = gemm_op(256, 28672, 4096, SIM_DT_INT4, SIM_DT_BF16);
    sim_op bf = gemm_op(256, 28672, 4096, SIM_DT_BF16, SIM_DT_BF16);
    assert_near(sim_cost_op(&hw, &w4b, 0).t_math_ns, 101290.0 * 528.0 / 448.0 + 4 * 7011.4, 1e-3);
    assert_near(sim_cost_op(&hw, &bf, 0).t_ns, 75967.2 * 528.0 / 448.0, 1e-3);
    assert_true(sim_cost_op(&hw, &w4b, 0).t_ns > sim_cost_op(&hw, &bf, 0).t_ns);
}

static void test_other_kinds(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    /* attention runs at the attention efficiency: 1e12 FLOPs / (989.4e12 x 0.57) = 1773.18 us */
    sim_op a = {.id = SIM_OP_ATTENTION, .present = true, .flops = 1e12, .compute = SIM_DT_BF16};
    assert_near(sim_cost_op(&hw, &a, 0).t_math_ns, 1773182.0, 1e-4);
    /* attention reads a paged KV cache at 72% of the bandwidth, the rest streams at 86.6%:
     * 1e9 / (3.35e12 x 0.72) + 1e9 / (3.35e12 x 0.866) = 414.59 + 344.69 = 759.28 us */
    sim_op kv = {.id = SIM_OP_ATTENTION,
                 .present = true,
                 .kv_read_bytes = 1e9,
                 .act_bytes = 1e9,
                 .compute = SIM_DT_BF16};
    assert_near(sim_cost_op(&hw, &kv, 0).t_mem_ns, 759284.0, 1e-4);
    /* vector ops run on the FP32 units: 67e9 FLOPs / 67e12 = 1 ms */
    sim_op v = {.id = SIM_OP_ACT, .present = true, .flops = 67e9, .compute = SIM_DT_BF16};
    assert_near(sim_cost_op(&hw, &v, 0).t_math_ns, 1e6, 1e-9);
    /* a tiny op is launch-bound */
    sim_op tiny = {.id = SIM_OP_ROPE,
                   .present = true,
                   .flops = 100,
                   .act_bytes = 1000,
                   .compute = SIM_DT_BF16};
    assert_int_equal(sim_cost_op(&hw, &tiny, 4000.0).bound, SIM_BOUND_OVERHEAD);
    /* an absent op costs nothing */
    sim_op none = {.id = SIM_OP_MLP_ALLREDUCE, .present = false, .net_bytes = 1e9};
    sim_op_cost c = sim_cost_op(&hw, &none, 4000.0);
    assert_near(c.t_ns, 0.0, 0);
    /* attention kernel count: 2 launches (cache write + attention) */
    assert_near(sim_cost_op(&hw, &a, 1000.0).t_launch_ns, 2000.0, 0);
    assert_string_equal(sim_bound_name(SIM_BOUND_NETWORK), "network");
}

static void test_device_support(void **state)
{
    (void)state;
    sim_hw a100 = tu_hw("a100-sxm-80gb");
    sim_err err = {{0}};
    sim_prec p = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false};
    assert_int_equal(sim_cost_check_support(&a100, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--weight-dtype"));
    assert_non_null(strstr(err.msg, "fp8"));
    assert_non_null(strstr(err.msg, "A100"));
    p = (sim_prec){SIM_DT_BF16, SIM_DT_BF16, SIM_DT_FP8, 0, false, false};
    assert_int_equal(sim_cost_check_support(&a100, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--kv-cache-dtype"));
    p = (sim_prec){SIM_DT_INT4, SIM_DT_BF16, SIM_DT_INT8, 0, false, false}; /* int4 is never computed */
    assert_int_equal(sim_cost_check_support(&a100, &p, &err), SIM_OK);
    sim_hw tpu = tu_hw("tpu-v5e");
    p = (sim_prec){SIM_DT_FP16, SIM_DT_FP16, SIM_DT_FP16, 0, false, false};
    assert_int_equal(sim_cost_check_support(&tpu, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "fp16"));
}

static void test_seed_scheme_table(void **state)
{
    (void)state;
    /* Seed section 4.3 on H100 (989.4 / 1978.9 TFLOP/s, 3.35 TB/s), B* = peak x bytes / (2 bw):
     *   bf16       2 B            989.4e12 x 2 / 6.7e12           = 295.34
     *   int8 W-only 1 + 2/128     989.4e12 x 1.015625 / 6.7e12     = 149.98  (seed ~150)
     *   int4 W-only 0.5 + 2/128   989.4e12 x 0.515625 / 6.7e12     =  76.14  (seed ~75)
     *   int8, fp8  1 B            1978.9e12 x 1 / 6.7e12           = 295.36
     * no fp4 tensor cores: no fp4 row; w4a8 = 1978.9e12 x 0.515625 / 6.7e12 = 152.29 */
    sim_hw hw = tu_hw("h100-sxm");
    sim_quant_scheme q[SIM_QUANT_SCHEMES];
    size_t n = sim_cost_quant_schemes(&hw, 128, q);
    assert_int_equal(n, 6);
    const char *names[] = {"bf16", "int8-weight-only", "int4-weight-only", "int8", "fp8", "w4a8"};
    const double crit[] = {295.34, 149.98, 76.14, 295.36, 295.36, 152.29};
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(q[i].name, names[i]);
        assert_near(q[i].critical_batch, crit[i], 1e-4);
    }
    assert_near(q[1].bytes_per_param, 1.015625, 0);
    assert_near(q[4].peak_flops, 1978.9e12, 1e-12);
    /* B200 (2250 / 4500 / fp4 9000 TFLOP/s, 8 TB/s): bf16 = fp8 = int8 = 2250 x 2 / 16 = 281.25;
     * fp4 full quantization keeps it up to its block scales: 9000 x 0.5625 / 16 = 316.41 */
    hw = tu_hw("b200");
    n = sim_cost_quant_schemes(&hw, 128, q);
    assert_int_equal(n, 7);
    assert_near(q[0].critical_batch, 281.25, 1e-12);
    assert_near(q[3].critical_batch, 281.25, 1e-12);
    assert_near(q[4].critical_batch, 281.25, 1e-12);
    assert_string_equal(q[5].name, "fp4");
    assert_near(q[5].critical_batch, 316.40625, 1e-12);
    assert_near(q[5].peak_flops, 2.0 * q[4].peak_flops, 0); /* fp4 peak = 2x fp8 */
}

static void test_quantized_gemm_streaming(void **state)
{
    (void)state;
    /* A decode GEMM (M = 1, N = 12288, K = 5376) on the fixture H100 (3.35 TB/s, memory 0.866):
     * set quant.gemm_memory.fp8 = 0.75 and
     * the fp8 GEMM's 66,060,288 B stream at 0.75 x 3.35 = 2.5125 TB/s = 26.29 us (+ 5376 + 24576
     * activation bytes); quant.mixed_input_memory.int4 = 0.4 prices an int4 W4A16 GEMM's
     * 33,030,144 B (per channel) + 10,752 + 24,576 B at 1.34 TB/s. */
    sim_hw hw = tu_fixture_hw();
    hw.quant.gemm_memory[SIM_DT_FP8] = 0.75;
    hw.quant.mixed_input_memory[SIM_DT_INT4] = 0.4;
    sim_prec f8 = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false};
    sim_op op;
    sim_graph_gemm(&op, SIM_OP_O_PROJ, 1.0, 12288, 5376, SIM_DT_FP8, &f8, 2.0);
    double bytes = 66060288.0 + 5376.0 + 24576.0;
    assert_near(sim_cost_op(&hw, &op, 0.0).t_mem_ns, bytes / (0.75 * 3.35e12) * 1e9, 1e-12);
    sim_prec w4 = {SIM_DT_INT4, SIM_DT_BF16, SIM_DT_BF16, 0, false, false};
    sim_graph_gemm(&op, SIM_OP_O_PROJ, 1.0, 12288, 5376, SIM_DT_INT4, &w4, 2.0);
    bytes = 33030144.0 + 10752.0 + 24576.0;
    assert_near(sim_cost_op(&hw, &op, 0.0).t_mem_ns, bytes / (0.4 * 3.35e12) * 1e9, 1e-12);
    /* per-format K term: k_half 1000 for fp8 only: shape = K / (K + 1000) for fp8, 1 for bf16
     * (6 tiles' worth split K 22 ways: all 132 SMs busy) */
    hw.gemm_k_half = 0.0;
    hw.quant.gemm_k_half[SIM_DT_FP8] = 1000.0;
    assert_near(sim_cost_gemm_shape_eff_in(&hw, SIM_DT_FP8, 64, 1536, 4096, 22), 4096.0 / 5096.0,
                1e-12);
    assert_near(sim_cost_gemm_shape_eff_in(&hw, SIM_DT_BF16, 64, 1536, 4096, 22), 1.0, 1e-12);
}

static void test_mla_decode_tiles(void **state)
{
    (void)state;
    /* MLA decode as FlashMLA runs it: 128 sequences over 4096 cached latents of 576 values
     * (bf16), values 512 wide, h_q = 16 query heads x s_q query tokens. s_q = 1: 16 rows padded
     * to one 64-row tile, 2 x 128 x 64 x 4096 x 1088 = 73,014,444,032 FLOPs at 989.4 TFLOP/s x
     * 0.667 = 110.64 us; the latent 128 x 4096 x 576 x 2 = 603,979,776 B at 3.35 TB/s x 0.84 =
     * 214.63 us: memory-bound. s_q = 5: 80 rows, two tiles: 221.3 us of math, now the larger */
    sim_hw hw = tu_fixture_hw();
    hw.peak_flops[SIM_DT_BF16] = 989.4e12;
    hw.hbm_bytes_per_s = 3.35e12;
    hw.mla_compute_eff = 0.667;
    hw.mla_memory_eff = 0.84;
    for (int sq = 1; sq <= 5; sq += 4) {
        sim_op op = {.id = SIM_OP_ATTENTION, .present = true, .compute = SIM_DT_BF16};
        op.flops = 2.0 * 128 * 16 * sq * 4096 * 1088;
        op.kv_read_bytes = 128.0 * 4096 * 576 * 2;
        op.dec = (sim_dattn_shape){.seqs = 128, .ctx = 4096, .q_heads = 16, .kv_heads = 1,
                                   .head_dim = 576, .kv_elem_bytes = 2, .v_dim = 512,
                                   .q_per_seq = sq};
        sim_op_cost c = sim_cost_op(&hw, &op, 0.0);
        const double tiles = sq == 1 ? 1.0 : 2.0;
        assert_near(c.t_math_ns, tiles * 2.0 * 128 * 64 * 4096 * 1088 / (989.4e12 * 0.667) * 1e9,
                    1e-12);
        assert_near(c.t_mem_ns, 603979776.0 / (3.35e12 * 0.84) * 1e9, 1e-12);
    }
    /* a GQA decode (v_dim 0) keeps the attention efficiencies */
    sim_op g = {.id = SIM_OP_ATTENTION, .present = true, .compute = SIM_DT_BF16, .flops = 1e9};
    assert_near(sim_cost_op(&hw, &g, 0.0).t_math_ns, 1e9 / (989.4e12 * hw.eff_attention) * 1e9,
                1e-12);
}

/* A block-scaled fp8 GEMM as vLLM's Triton kernel launches it (cost.h), on H100 SXM (132 SMs,
 * fp8 peak 1979 TFLOP/s, block_fp8_cta_gb_per_s 42, block_fp8_math_eff 0.230). DeepSeek-V3's
 * fused q_a / kv_a shape N 2112, K 7168:
 *   M 1: BLOCK_SIZE_M 16, ceil(2112 / 128) = 17 blocks, one wave; each streams 7168 x 128
 *        bytes + 56 scales x 4 = 917,728 B / 42e9 B/s = 21.851 us (its 15 MB over HBM: ~5 us);
 *        its tile 2 x 16 x 128 x 7168 = 29.36 MFLOP / (1979e12 x 0.230 / 132) = 8.51 us
 *   M 4096: 64-row blocks, 64 x 17 = 1088 in ceil(1088 / 132) = 9 waves of 117.4 MFLOP tiles:
 *        9 x 117.44e6 / 3.4483e12 = 306.5 us
 * Without the flag (DeepGEMM, or per-tensor fp8) neither bound applies. */
static void test_block_fp8(void **state)
{
    (void)state;
    sim_hw hw = tu_hw("h100-sxm");
    sim_prec p = {.weight = SIM_DT_FP8, .act = SIM_DT_FP8, .kv = SIM_DT_BF16, .block_scaled = true};
    sim_op op;
    sim_graph_gemm(&op, SIM_OP_Q_DOWN, 1.0, 2112, 7168, SIM_DT_FP8, &p, 2.0);
    assert_true(op.block_scaled);
    assert_near(sim_cost_block_fp8_cta_ns(&hw, &op), 917728.0 / 42e9 * 1e9, 1e-9);
    assert_near(sim_cost_block_fp8_math_ns(&hw, &op), 29.360128e6 / (1979e12 * 0.230 / 132) * 1e9,
                1e-3);
    sim_op_cost c = sim_cost_op(&hw, &op, 0.0);
    assert_near(c.t_mem_ns, 21851.0, 1e-3);
    sim_graph_gemm(&op, SIM_OP_Q_DOWN, 4096.0, 2112, 7168, SIM_DT_FP8, &p, 2.0);
    assert_near(sim_cost_block_fp8_math_ns(&hw, &op), 306.5e3, 2e-3);
    assert_true(sim_cost_op(&hw, &op, 0.0).t_math_ns >= 306.5e3 * 0.998);
    p.block_scaled = false;
    sim_graph_gemm(&op, SIM_OP_Q_DOWN, 1.0, 2112, 7168, SIM_DT_FP8, &p, 2.0);
    assert_true(sim_cost_block_fp8_cta_ns(&hw, &op) == 0.0);
    assert_true(sim_cost_op(&hw, &op, 0.0).t_mem_ns < 8000.0);
}

/* The same stream in a block-scaled fp8 Triton fused_moe (cost.h), H100 SXM (132 SMs, 42 GB/s
 * per thread block). DeepSeek-V3 at TP 8, one token routed to 8 experts, each padded to one
 * 16-row block (128 padded rows):
 *   gate_up N 2 x 256 = 512, K 7168: 8 blocks x 4 column blocks = 32 programs, one wave, each
 *     7168 x 128 + 56 x 4 = 917,728 B / 42e9 = 21.851 us (the 8 experts' 29.4 MB over HBM: ~8 us)
 *   down N 7168, K 256: 8 x 56 = 448 programs, ceil(448 / 132) = 4 waves of 256 x 128 + 2 x 4 =
 *     32,776 B: 4 x 0.7804 = 3.1215 us
 * Not for another family, for 16-bit or per-tensor experts, nor where the device states the
 * fitted K loop (moe_k_step_us: it stands for these steps). */
static void test_block_fp8_moe(void **state)
{
    (void)state;
    sim_hw hw = tu_hw("h100-sxm");
    sim_prec p = {.weight = SIM_DT_FP8, .act = SIM_DT_FP8, .kv = SIM_DT_BF16, .block_scaled = true};
    sim_op op;
    sim_graph_gemm(&op, SIM_OP_EXPERTS_GATE_UP, 8.0, 512, 7168, SIM_DT_FP8, &p, 2.0);
    op.moe_kernel = SIM_MOE_TRITON;
    for (int i = 0; i < SIM_MOE_BLOCKS; i++) /* one block per expert at any block size */
        op.moe_blocks[i] = 8.0;
    op.moe_tokens = 1.0;
    op.moe_decode = true;
    op.groups = 8.0;
    assert_true(op.block_scaled);
    assert_near(sim_cost_block_fp8_moe_cta_ns(&hw, &op, 16, 128.0), 917728.0 / 42e9 * 1e9, 1e-9);
    sim_op_cost c = sim_cost_op(&hw, &op, 0.0);
    assert_int_equal(c.moe_block_m, 16);
    assert_near(c.moe_padded_rows, 128.0, 1e-9);
    assert_near(c.t_mem_ns, 21851.0, 1e-3);
    /* the dense kernel's own bound stays off for a grouped op */
    assert_true(sim_cost_block_fp8_cta_ns(&hw, &op) == 0.0);
    sim_op down;
    sim_graph_gemm(&down, SIM_OP_EXPERTS_DOWN, 8.0, 7168, 256, SIM_DT_FP8, &p, 2.0);
    down.moe_kernel = SIM_MOE_TRITON;
    for (int i = 0; i < SIM_MOE_BLOCKS; i++)
        down.moe_blocks[i] = 8.0;
    down.moe_tokens = 1.0;
    down.moe_decode = true;
    down.groups = 8.0;
    assert_near(sim_cost_block_fp8_moe_cta_ns(&hw, &down, 16, 128.0), 4.0 * 32776.0 / 42e9 * 1e9,
                1e-9);
    /* another family, per-tensor scales, or a fitted K loop: none */
    sim_op other = op;
    other.moe_kernel = SIM_MOE_DEEPGEMM;
    assert_true(sim_cost_block_fp8_moe_cta_ns(&hw, &other, 16, 128.0) == 0.0);
    other = op;
    other.block_scaled = false;
    assert_true(sim_cost_block_fp8_moe_cta_ns(&hw, &other, 16, 128.0) == 0.0);
    assert_true(sim_cost_op(&hw, &other, 0.0).t_mem_ns < 10000.0);
    hw.moe_k_step_ns = 545.0;
    assert_true(sim_cost_block_fp8_moe_cta_ns(&hw, &op, 16, 128.0) == 0.0);
}

static void test_gemm_fixed_time(void **state)
{
    (void)state;
    /* The same decode GEMM (M = 1, N = 12288, K = 5376, fp8) with quant.gemm_fixed_us.fp8 = 6:
     * memory 66,090,240 B / (0.75 x 3.35 TB/s) = 26,304.57 ns, math 2 x 12288 x 5376 FLOP at
     * a few TFLOP/s far below it; the kernel's fixed 6,000 ns adds to both bounds, so the op
     * takes 26,304.57 + 6,000 = 32,304.57 ns (no launch). A 16-bit GEMM takes
     * efficiency.gemm_fixed_us (2 us here) and a mixed-input (W4A16) GEMM none: its kernel
     * family is priced by quant.mixed_input_memory alone. */
    sim_hw hw = tu_fixture_hw();
    hw.quant.gemm_memory[SIM_DT_FP8] = 0.75;
    sim_prec f8 = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false};
    sim_op op;
    sim_graph_gemm(&op, SIM_OP_O_PROJ, 1.0, 12288, 5376, SIM_DT_FP8, &f8, 2.0);
    double mem = (66060288.0 + 5376.0 + 24576.0) / (0.75 * 3.35e12) * 1e9;
    sim_op_cost before = sim_cost_op(&hw, &op, 0.0);
    assert_near(before.t_ns, mem, 1e-6);
    hw.quant.gemm_fixed_ns[SIM_DT_FP8] = 6000.0;
    hw.gemm_fixed_ns = 2000.0;
    sim_op_cost c = sim_cost_op(&hw, &op, 0.0);
    assert_near(c.t_mem_ns, mem + 6000.0, 1e-6);
    assert_near(c.t_math_ns, before.t_math_ns + 6000.0, 1e-6);
    assert_near(c.t_ns, 32304.57, 0.01);
    assert_near(sim_hw_gemm_fixed_ns(&hw, SIM_DT_BF16), 2000.0, 1e-12);
    sim_prec w4 = {SIM_DT_INT4, SIM_DT_BF16, SIM_DT_BF16, 0, false, false};
    sim_graph_gemm(&op, SIM_OP_O_PROJ, 1.0, 12288, 5376, SIM_DT_INT4, &w4, 2.0);
    sim_op_cost mixed = sim_cost_op(&hw, &op, 0.0);
    hw.gemm_fixed_ns = 0.0;
    assert_near(sim_cost_op(&hw, &op, 0.0).t_ns, mixed.t_ns, 1e-9);
}

/* A device whose compute units' operand feed is stated prices a GEMM as the tuned library's
 * tiles run it (cost.c, feed_tiles): the fastest tile and K split, each wave as long as one
 * tile's MMAs or its operands at the unit's feed. Fixture changed to 1 TFLOP/s of bf16
 * (efficiency 1, no K term, no fixed time), HBM fast enough that a split's reduction costs
 * nothing measurable.
 * - 256 x 256 x 1024 on ONE unit, feed 1 GB/s: one 256 x 256 tile moves (256 + 256) x 1024 x
 *   2 B = 1,048,576 B (1048.576 us) for 2 x 256^2 x 1024 FLOP (134.2 us at 1 TFLOP/s): feed-
 *   bound, and every other tile moves more in all (2 x 128 x 256: 1,572,864 B; 2 x 192 x 256:
 *   1,835,008 B; 4 x 128 x 128: 2,097,152 B). With 1 TB/s of feed the MMAs bound it:
 *   134.218 us.
 * - 64 x 256 x 1024 on 4 units (0.25 TFLOP/s each), feed 1 GB/s: two 64 x 128 tiles split 2
 *   ways over K fill the 4 units in one wave, each moving (64 + 128) x 512 x 2 B = 196,608 B:
 *   196.608 us (its MMAs, 2 x 64 x 128 x 512 FLOP, take 33.6 us); four 64 x 64 tiles move
 *   262,144 B each: 262.144 us; one padded 128 x 256 tile split 4 ways ties at 196,608 B.
 * - Without a feed the one-tile model stands: 64 padded rows are one 128 x 128 tile's half of
 *   2 tiles, split 4 ways: 2 x 64 x 256 x 1024 FLOP at 1 TFLOP/s = 33.554 us. */
static void test_gemm_operand_feed(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    hw.compute_units = 1;
    hw.peak_flops[SIM_DT_BF16] = 1e12;
    hw.eff_gemm[SIM_DT_BF16] = 1.0;
    hw.gemm_k_half = 0.0;
    hw.quant.gemm_k_half[SIM_DT_BF16] = 0.0;
    hw.gemm_fixed_ns = 0.0;
    hw.hbm_bytes_per_s = 1e21;
    hw.gemm_cu_feed_bytes_per_s = 1e9;
    sim_op big = gemm_op(256, 256, 1024, SIM_DT_BF16, SIM_DT_BF16);
    assert_near(sim_cost_op(&hw, &big, 0).t_math_ns, 1048576.0, 1e-9);
    hw.gemm_cu_feed_bytes_per_s = 1e12;
    assert_near(sim_cost_op(&hw, &big, 0).t_math_ns, 2.0 * 256 * 256 * 1024 / 1e12 * 1e9, 1e-9);
    hw.compute_units = 4;
    hw.gemm_cu_feed_bytes_per_s = 1e9;
    sim_op small = gemm_op(64, 256, 1024, SIM_DT_BF16, SIM_DT_BF16);
    assert_near(sim_cost_op(&hw, &small, 0).t_math_ns, 196608.0, 1e-6);
    hw.gemm_cu_feed_bytes_per_s = 0.0;
    assert_int_equal(hw.wave_tile, 128);
    assert_near(sim_cost_op(&hw, &small, 0).t_math_ns, 2.0 * 64 * 256 * 1024 / 1e12 * 1e9,
                1e-3);
}

/* FlashAttention-2's softmax exponentials (cost.h): a device that states its special-function
 * rate adds one exp per score beside the MMAs. A100 row 59's shape: 2 x 32 heads of 64 over
 * 8192 x 8192 keys, non-causal: 4 x 2 x 32 x 64 x 8192^2 = 1.09951e12 FLOPs and 4.29497e9
 * scores; at 2.4365e12 exps per s 1762.76 us; the MMAs at 312e12 x 0.8083: 4359.86 us; their
 * sum 6122.62 us, 179.58 TFLOP/s (measured 179.5). Without the rate: the MMAs alone. MLA
 * (dec.v_dim set) and GEMMs never take the term. */
static void test_attention_exp(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    hw.peak_flops[SIM_DT_BF16] = 312e12;
    hw.eff_attention = 0.8083;
    const double flops = 4.0 * 2 * 32 * 64 * 8192.0 * 8192.0;
    sim_op a = {.id = SIM_OP_ATTENTION, .present = true, .flops = flops, .compute = SIM_DT_BF16};
    a.dec.head_dim = 64;
    const double mma = flops / (312e12 * 0.8083) * 1e9;
    assert_near(sim_cost_op(&hw, &a, 0).t_math_ns, mma, 1e-6);
    hw.attn_exp_per_s = 2.4365e12;
    assert_near(sim_cost_attention_exp_ns(&hw, &a), 1762761.0, 1.0);
    assert_near(sim_cost_op(&hw, &a, 0).t_math_ns, mma + flops / 256.0 / 2.4365e12 * 1e9, 1e-6);
    assert_near(flops / (sim_cost_op(&hw, &a, 0).t_math_ns * 1e-9) / 1e12, 179.58, 0.01);
    a.dec.v_dim = 512;
    assert_near(sim_cost_attention_exp_ns(&hw, &a), 0.0, 0);
    sim_op g = gemm_op(64, 64, 64, SIM_DT_BF16, SIM_DT_BF16);
    g.dec.head_dim = 64;
    assert_near(sim_cost_attention_exp_ns(&hw, &g), 0.0, 0);
}

/* A fused attention kernel's fixed work per query block (cost.h): MI355X's MHA row 3820's
 * shape, 16 x 16 heads of 128 over 4096 x 4096 keys, non-causal: 4 x 256 x 128 x 4096^2 =
 * 2.19902e12 FLOPs; at 2516.6e12 x 0.378 = 951.27 TFLOP/s the main loop takes 2311.67 us; with
 * 683 keys of fixed work per query block x (1 + 683 / 4096) = 1.166748: 2697.14 us, 815.3
 * TFLOP/s (measured 816). Causal (keys per query (4096 + 1) / 2 = 2048.5) pays twice the share:
 * x 1.333415. Without the field, or for an op without keys (MLA, vision): x 1. */
static void test_attention_block_work(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    hw.peak_flops[SIM_DT_BF16] = 2516.6e12;
    hw.eff_attention = 0.378;
    hw.attn_exp_per_s = 0.0;
    const double flops = 4.0 * 16 * 16 * 128 * 4096.0 * 4096.0;
    sim_op a = {.id = SIM_OP_ATTENTION, .present = true, .flops = flops, .compute = SIM_DT_BF16};
    a.dec.head_dim = 128;
    const double loop = flops / (2516.6e12 * 0.378) * 1e9;
    assert_near(loop, 2311.67e3, 10.0);
    assert_near(sim_cost_op(&hw, &a, 0).t_math_ns, loop, 1e-6); /* no field, no keys: x 1 */
    hw.attn_kv_half = 683.0;
    assert_near(sim_cost_op(&hw, &a, 0).t_math_ns, loop, 1e-6); /* no keys: x 1 */
    a.attn_keys = 4096.0;
    assert_near(sim_cost_attention_block_factor(&hw, &a), 1.166748, 1e-6);
    const double t = sim_cost_op(&hw, &a, 0).t_math_ns;
    assert_near(t, 2697.14e3, 10.0);
    assert_near(flops / (t * 1e-9) / 1e12, 815.3, 0.1);
    a.attn_keys = 4097.0 / 2.0;
    assert_near(sim_cost_attention_block_factor(&hw, &a), 1.333415, 1e-6);
}

/* kfloor.h: an engine's small kernels no faster than their measured time per launch in a graph.
 * Fixture H100 with a 1.5 us graph launch gap set here; floors: norm 5.53 us, quant 3.1 us, grouped
 * top-k 8.5 us. */
static void test_kernel_floors(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    hw.graph_launch_ns = 1500.0;
    const sim_kfloor f = {.in_graph_ns = {[SIM_KFLOOR_NORM] = 5530.0,
                                          [SIM_KFLOOR_QUANT] = 3100.0,
                                          [SIM_KFLOOR_TOPK] = 8500.0}};
    sim_model grouped = {.route_groups = 8}, plain = {.route_groups = 0};
    /* a batch-1 RMSNorm of a 7168 row: 7168 x 2 B in, residual in and out, weights, out = 71.7
     * KB, 0.02 us over HBM; its busy time rises to 5.53 - 1.5 = 4.03 us, the op to 4.03 + 1.5 */
    sim_op norm = {.id = SIM_OP_ATTN_NORM, .present = true, .act_bytes = 71680.0,
                   .compute = SIM_DT_BF16};
    sim_op_cost c = sim_cost_op(&hw, &norm, hw.graph_launch_ns);
    assert_true(c.t_ns < 1600.0);
    sim_kfloor_raise(&hw, &f, &plain, &norm, &c);
    assert_near(c.t_mem_ns, 4030.0, 1e-12);
    assert_near(c.t_ns, 5530.0, 1e-12);
    assert_int_equal(c.bound, SIM_BOUND_MEMORY);
    /* q and k norms are two launches: 2 x 4.03 = 8.06 us busy */
    sim_op qk = {.id = SIM_OP_QK_NORM, .present = true, .act_bytes = 1000.0};
    c = sim_cost_op(&hw, &qk, hw.graph_launch_ns);
    sim_kfloor_raise(&hw, &f, &plain, &qk, &c);
    assert_near(c.t_mem_ns, 8060.0, 1e-12);
    assert_near(c.t_ns, 8060.0 + 2 * 1500.0, 1e-12);
    /* MLA's kv_down: the latent norm after the GEMM adds its 4.03 us to math and memory */
    sim_op kv = gemm_op(1, 576, 7168, SIM_DT_BF16, SIM_DT_BF16);
    kv.id = SIM_OP_KV_DOWN;
    const sim_op_cost k0 = sim_cost_op(&hw, &kv, hw.graph_launch_ns);
    c = k0;
    sim_kfloor_raise(&hw, &f, &plain, &kv, &c);
    assert_near(c.t_ns - k0.t_ns, 4030.0, 1e-9);
    assert_near(c.t_math_ns - k0.t_math_ns, 4030.0, 1e-9);
    /* a one-kernel kv_down (no latent norm) has none */
    kv.kernels = 1;
    c = sim_cost_op(&hw, &kv, hw.graph_launch_ns);
    sim_kfloor_raise(&hw, &f, &plain, &kv, &c);
    assert_near(c.t_ns, sim_cost_op(&hw, &kv, hw.graph_launch_ns).t_ns, 0);
    /* with its input quantization (sim_graph_block_quant: kernels 3, one quantizing): the latent
     * norm's 4.03 and the quantization's 3.1 - 1.5 = 1.6 us; a shared expert's two: 3.2 us */
    kv.kernels = 3;
    kv.quant_kernels = 1;
    c = sim_cost_op(&hw, &kv, hw.graph_launch_ns);
    double fl, se;
    sim_kfloor_of(&hw, &f, &plain, &kv, &fl, &se);
    assert_near(se, 4030.0 + 1600.0, 1e-9);
    sim_op sh = gemm_op(1, 512, 7168, SIM_DT_FP8, SIM_DT_FP8);
    sh.id = SIM_OP_SHARED_EXPERT;
    sh.kernels = 5;
    sh.quant_kernels = 2;
    sim_kfloor_of(&hw, &f, &plain, &sh, &fl, &se);
    assert_near(se, 3200.0, 1e-9);
    assert_near(fl, 0.0, 0);
    /* quantization: 3.1 - 1.5 = 1.6 us per launch */
    sim_op q = {.id = SIM_OP_ACT_QUANT, .present = true, .act_bytes = 1000.0};
    c = sim_cost_op(&hw, &q, hw.graph_launch_ns);
    sim_kfloor_raise(&hw, &f, &plain, &q, &c);
    assert_near(c.t_mem_ns, 1600.0, 1e-12);
    /* the grouped top-k floor: 7 us busy with route groups, none for a softmax top-k */
    sim_op topk = {.id = SIM_OP_MOE_TOPK, .present = true, .act_bytes = 1000.0};
    const sim_op_cost t0 = sim_cost_op(&hw, &topk, hw.graph_launch_ns);
    c = t0;
    sim_kfloor_raise(&hw, &f, &grouped, &topk, &c);
    assert_near(c.t_mem_ns, 7000.0, 1e-12);
    c = t0;
    sim_kfloor_raise(&hw, &f, &plain, &topk, &c);
    assert_near(c.t_ns, t0.t_ns, 0);
    /* a norm whose bytes take longer than the floor keeps its bytes' time: 1 GB */
    sim_op big = norm;
    big.act_bytes = 1e9;
    const sim_op_cost b0 = sim_cost_op(&hw, &big, hw.graph_launch_ns);
    c = b0;
    sim_kfloor_raise(&hw, &f, &plain, &big, &c);
    assert_near(c.t_ns, b0.t_ns, 0);
    /* fused into another kernel, other ops, no floors, or a floor under the launch gap: none */
    sim_op fused = norm;
    fused.fused = true;
    sim_op rope = {.id = SIM_OP_ROPE, .present = true, .act_bytes = 1000.0};
    const sim_kfloor none = {{0}}, low = {.in_graph_ns = {[SIM_KFLOOR_NORM] = 1000.0}};
    const sim_op *ops[] = {&fused, &rope, &norm, &norm};
    const sim_kfloor *fs[] = {&f, &f, &none, &low};
    for (int i = 0; i < 4; i++) {
        sim_kfloor_of(&hw, fs[i], &plain, ops[i], &fl, &se);
        assert_true(fl == 0.0 && se == 0.0);
    }
    assert_string_equal(sim_kfloor_kind_name(SIM_KFLOOR_TOPK), "topk");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_scheme_table),
        cmocka_unit_test(test_mla_decode_tiles),
        cmocka_unit_test(test_quantized_gemm_streaming),
        cmocka_unit_test(test_gemm_fixed_time),
        cmocka_unit_test(test_ring_allreduce),
        cmocka_unit_test(test_gemm_padding_and_bounds),
        cmocka_unit_test(test_gemm_small_m_split_k),
        cmocka_unit_test(test_gemm_operand_feed),
        cmocka_unit_test(test_attention_exp),
        cmocka_unit_test(test_attention_block_work),
        cmocka_unit_test(test_weight_only_dequantization),
        cmocka_unit_test(test_grouped_gemm_and_all_to_all),
        cmocka_unit_test(test_other_kinds),
        cmocka_unit_test(test_device_support),
        cmocka_unit_test(test_block_fp8),
        cmocka_unit_test(test_block_fp8_moe),
        cmocka_unit_test(test_kernel_floors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
