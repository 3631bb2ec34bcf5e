/* test_moe.c - expert load from routing and grouped-GEMM kernel families, by hand. */
#include "testutil.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "moe.h"
#include "step.h"

static sim_moe_load load(int64_t e, int64_t k, int ep, double t, const sim_moe_routing *r)
{
    sim_moe_load ld;
    sim_moe_load_compute(r, e, k, ep, t, 0.0, &ld);
    return ld;
}

/* Mixtral (E = 8, top-2) under uniform routing at EP 1, 2, 4, 8. A rank of m = 8/ep experts gets
 * L ~ Binomial(T m, 1/4) rows; the busiest of ep expects sum_x (1 - F(x-1)^ep). One token:
 *   ep 1: the one rank gets both rows, T k = 2; touched 8 (1 - 6/8) = 2 (the graph's function)
 *   ep 2: Bin(4, .25): F = .31641, .73828, .94922, .99609, 1; terms 1 - F^2 = .89989, .45494,
 *         .09898, .00780: 1.46161 rows
 *   ep 4: Bin(2, .25): F = .5625, .9375; 1 - F^4 = .89989 + .22752 = 1.12741
 *   ep 8: Bin(1, .25): 1 - .75^8 = .89989 (below the cap T min(k, 1) = 1)
 * With one token the rows a rank gets are the experts it touches there: touched = rows. Two
 * tokens at ep 4: Bin(4, .25) over 4 ranks: .98998 + .70290 + .18822 + .01553 = 1.89659 rows;
 * s = 1.89659 (mean 1), each local expert picked with q = .25 s = .47415 per token: touched
 * 2 (1 - .52585^2) = 1.44696. */
static void test_uniform_busiest_rank(void **state)
{
    (void)state;
    sim_moe_routing u = {.kind = SIM_MOE_ROUTE_UNIFORM};
    static const struct {
        int ep;
        double t, rows, touched;
    } cases[] = {{1, 1, 2.0, 2.0},           {2, 1, 1.461609, 1.461609}, {4, 1, 1.127411, 1.127411},
                 {8, 1, 0.899887, 0.899887}, {4, 2, 1.896591, 1.446959}, {2, 4, 4.964342, 3.094741}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_moe_load ld = load(8, 2, cases[i].ep, cases[i].t, &u);
        assert_near(ld.rows, cases[i].rows, 1e-5);
        assert_near(ld.touched, cases[i].touched, 1e-5);
        assert_near(ld.mean_rows, cases[i].t * 2.0 / cases[i].ep, 1e-12);
    }
    /* ep 1 is the tested formula: E (1 - (1 - k/E)^T) for any T */
    for (double t = 1; t <= 64; t *= 2)
        assert_near(load(8, 2, 1, t, &u).touched, sim_graph_experts_touched(8, 2, t), 1e-9);
    assert_near(load(256, 8, 1, 8, &u).touched, 57.4208, 1e-4);
}

/* Many tokens: the busiest rank's excess over the mean shrinks as sqrt(T) grows slower than T;
 * it never falls below the mean and never exceeds T min(k, E/ep). */
static void test_uniform_bounds(void **state)
{
    (void)state;
    sim_moe_routing u = {.kind = SIM_MOE_ROUTE_UNIFORM};
    double prev = 0.0;
    for (double t = 1; t <= 16384; t *= 2) {
        sim_moe_load ld = load(256, 8, 8, t, &u);
        assert_true(ld.rows >= ld.mean_rows - 1e-9);
        assert_true(ld.rows <= t * 8.0 + 1e-9);
        assert_true(ld.rows >= prev); /* more tokens, more rows */
        prev = ld.rows;
    }
    sim_moe_load big = load(256, 8, 8, 16384, &u);
    assert_true(big.imbalance > 1.0 && big.imbalance < 1.05);
    /* a fixed --expert-imbalance: rows = T k / ep x X */
    sim_moe_load fx;
    sim_moe_load_compute(&u, 8, 2, 4, 10, 1.5, &fx);
    assert_near(fx.rows, 10 * 2 / 4.0 * 1.5, 1e-12);
}

/* E[ceil(n / B)] for n ~ Binomial: Bin(2, .5) in blocks of 16 is P(n > 0) = .75; Bin(40, 1) is
 * exactly ceil(40 / 16) = 3; p = 0 is no block. */
static void test_binomial_blocks(void **state)
{
    (void)state;
    assert_near(sim_moe_binomial_blocks(2, 0.5, 16), 0.75, 1e-12);
    assert_near(sim_moe_binomial_blocks(40, 1.0, 16), 3.0, 1e-12);
    assert_near(sim_moe_binomial_blocks(40, 0.0, 16), 0.0, 0);
    /* Bin(20, .5) in blocks of 8: P(n > 0) + P(n > 8) + P(n > 16) = (1 - 2^-20) + .74828 +
     * .00129 */
    assert_near(sim_moe_binomial_blocks(20, 0.5, 8), 1.0 - pow(2, -20) + 0.748278 + 0.001288,
                1e-5);
}

/* EPLB on 4 uniform experts, top-1, EP 2, 2 redundant: the replicas go to experts 0 and 1
 * (ties: the lowest id), slots .25 (e2), .25 (e3), .125 x 4 packed heaviest first to the lighter
 * rank: .5 per rank, 3 slots each. The busiest rank then expects Binomial(3T, 1/6) rows, and
 * each GPU holds 3 experts' weights. */
static void test_redundant_experts(void **state)
{
    (void)state;
    sim_moe_routing r = {.kind = SIM_MOE_ROUTE_UNIFORM, .redundant = 2};
    sim_err err = {{0}};
    assert_int_equal(sim_moe_routing_check(&r, 4, 1, 2, &err), SIM_OK);
    sim_moe_load ld = load(4, 1, 2, 1, &r);
    assert_int_equal(ld.slots, 3);
    /* one token, Bin(3, 1/6) per rank: F = .57870, .92593, .99537; terms 1 - F^2 = .66510,
     * .14266, .00925: .81701 rows (the ranks taken as independent; the one row lands on one
     * rank, so the exact value is 1: the approximation's worst case, one top-1 token) */
    const double f0 = pow(5.0 / 6.0, 3), f1 = f0 + 3.0 / 6.0 * pow(5.0 / 6.0, 2),
                 f2 = f1 + 3.0 / 36.0 * 5.0 / 6.0;
    assert_near(ld.rows, (1 - f0 * f0) + (1 - f1 * f1) + (1 - f2 * f2), 1e-9);
    r.redundant = 3; /* 7 slots over 2 ranks */
    assert_int_equal(sim_moe_routing_check(&r, 4, 1, 2, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--redundant-experts"));
}

/* Zipf routing: probabilities sum to k, the busiest rank is above the uniform one's, and EPLB's
 * redundant experts bring it back down. */
static void test_zipf(void **state)
{
    (void)state;
    sim_moe_routing u = {.kind = SIM_MOE_ROUTE_UNIFORM};
    sim_moe_routing z = {.kind = SIM_MOE_ROUTE_ZIPF, .zipf_s = 1.0};
    assert_true(sim_moe_routing_parse("zipf:1.2", &z) && z.zipf_s == 1.2);
    assert_false(sim_moe_routing_parse("zipf:0", &z));
    assert_false(sim_moe_routing_parse("zipf:1e0", &z));
    assert_false(sim_moe_routing_parse("zipf:", &z));
    assert_true(sim_moe_routing_parse("zipf:1", &z));
    sim_moe_load lu = load(64, 4, 8, 4096, &u), lz = load(64, 4, 8, 4096, &z);
    assert_true(lz.rows > 1.2 * lu.rows);
    z.redundant = 16;
    sim_moe_load le = load(64, 4, 8, 4096, &z);
    assert_true(le.rows < lz.rows);
}

/* Grouped GEMM on the fixture H100 (989.4 TFLOP/s bf16 x 0.8 over 132 SMs = 5.996 TFLOP/s per
 * SM, no K term): 8 experts of 800 rows, N = K = 4096, Triton (M blocks 16..128, N blocks 32,
 * 64, 128). M blocks: 400 / 200 / 100 / 56 (800/128 -> 7 per expert). With N block 128: tiles
 * x 32 = 12800 / 6400 / 3200 / 1792, waves of 132: 97 / 49 / 25 / 14, a tile of B x 128 x 4096
 * 2 B 128 4096 / 5.996e12 s = 2.798 / 5.596 / 11.19 / 22.38 us: 271.40 / 274.19 / 279.79 /
 * 313.36 us. 16 x 32, 16 x 64, 32 x 32, 32 x 64 and 64 x 32 tiles fill their waves as exactly
 * (64 x 32: 12800 tiles in 97 waves of 2.798 us): 271.40 us, and of the tied the largest tile is
 * kept (64 x 32). DeepGEMM's contiguous layout has only the 128-row
 * block: 313.36 us with any of its N blocks. */
static void test_gemm_waves(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    const double blocks[SIM_MOE_BLOCKS] = {400, 200, 100, 56};
    sim_moe_gemm t = sim_moe_gemm_price(&hw, SIM_MOE_TRITON, false, 0.0, SIM_DT_BF16, SIM_DT_BF16,
                                        false, blocks, 4096, 4096);
    assert_int_equal(t.block_m, 64);
    assert_int_equal(t.block_n, 32);
    assert_near(t.waves, 97, 0);
    assert_near(t.math_ns, 271396.14, 0.5);
    assert_near(t.padded_rows, 6400, 1e-9); /* 100 blocks of 64 */
    sim_moe_gemm d = sim_moe_gemm_price(&hw, SIM_MOE_DEEPGEMM, false, 0.0, SIM_DT_BF16, SIM_DT_BF16,
                                        false, blocks, 4096, 4096);
    assert_int_equal(d.block_m, 128);
    assert_near(d.math_ns, 313364.62, 0.5);
    assert_near(d.padded_rows, 7168, 1e-9); /* 8 experts x 7 x 128 */
    /* the same part with its tensor cores at a quarter of the rate the fractions were measured
     * at (hw.h sim_hw_gemm_frac): 0.8 becomes 0.8 / (0.8 + 0.25 x 0.2) = 0.941176 of the peak,
     * every tile 0.8 / 0.941176 = 0.85 of its time: 271396.14 x 0.85 = 230686.72 ns */
    hw.tensor_rate_ratio = 0.25;
    sim_moe_gemm q = sim_moe_gemm_price(&hw, SIM_MOE_TRITON, false, 0.0, SIM_DT_BF16, SIM_DT_BF16,
                                        false, blocks, 4096, 4096);
    assert_int_equal(q.block_m, 64);
    assert_near(q.math_ns, 230686.72, 0.5);
    hw.tensor_rate_ratio = 0.0;
    const double none[SIM_MOE_BLOCKS] = {0};
    assert_near(sim_moe_gemm_price(&hw, SIM_MOE_CK, true, 0.0, SIM_DT_BF16, SIM_DT_BF16, false, none,
                                   4096, 4096)
                    .math_ns,
                0.0, 0);
    sim_moe_kernel k;
    assert_true(sim_moe_kernel_parse("deepgemm", &k) && k == SIM_MOE_DEEPGEMM);
    assert_false(sim_moe_kernel_parse("cublas", &k));
    assert_string_equal(sim_moe_layout(SIM_MOE_DEEPGEMM, true), "masked");
    assert_string_equal(sim_moe_layout(SIM_MOE_DEEPGEMM, false), "contiguous");
}

/* The 8 experts of 800 rows above (blocks 400 / 200 / 100 / 56, N = K = 4096) in bf16 math,
 * weights in `weight` (mixed-input when wo). */
static sim_moe_gemm experts_800(const sim_hw *hw, sim_moe_kernel kernel, sim_dtype weight, bool wo)
{
    const double blocks[SIM_MOE_BLOCKS] = {400, 200, 100, 56};
    return sim_moe_gemm_price(hw, kernel, false, 0.0, SIM_DT_BF16, weight, wo, blocks, 4096, 4096);
}

/* Marlin's fused MoE on the fixture H100 with Hopper's mma.sync share (hw mma_sync_fraction
 * 2/3): the same 8 experts of 800 rows, N = K = 4096, in 16-bit math. Marlin picks M blocks of
 * 16, 32 or 64 rows (never 128) and N blocks of 64 or 128, at the family's efficiency 1 on top
 * of the fixture's bf16 0.8 and mma.sync's 2/3 of the peak: 989.4e12 x 0.8 x 2/3 / 132 =
 * 3.9976 TFLOP/s per SM. A 32 x 64 tile (200 blocks x 64 = 12800 tiles, 97 waves of 132) takes
 * 2 x 32 x 64 x 4096 / 3.9976e12 s = 4.1967 us: 407.08 us; 16 x 64 (25600 tiles, 194 waves of
 * 2.0983 us) and 16 x 128 (12800, 97 of 4.1967 us) tie with it and the larger M block is kept;
 * 64 x 64 and 32 x 128 take 49 waves of 8.3934 us (411.28 us), 64 x 128 25 of 16.787 (419.67).
 * With the share left at 1 (hw files that state none: Ampere, Ada) the same tile takes 2/3 of
 * that: 271.39 us. Mixed-input (int4 weights) at the weight-only 0.6 instead of 0.8, plus
 * dequantizing every weight once per M block (4 vector ops per int4 weight at 67 TFLOP/s):
 * 64 x 64 tiles 49 x 11.191 us = 548.36 us + 100 blocks x 4096 x 4096 x 4 / 6.7e13 s =
 * 100.17 us: 648.53 us (32 x 64: 97 waves of 5.596 us = 542.76 us + 200 blocks' dequantization
 * 200.35 us; 64 x 128: 25 waves of 22.38 us = 559.6 us + 100.17 us: both more). */
static void test_marlin_mma_sync(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    hw.mma_sync_frac = 2.0 / 3.0;
    sim_moe_gemm m = experts_800(&hw, SIM_MOE_MARLIN, SIM_DT_BF16, false);
    assert_int_equal(m.block_m, 32);
    assert_int_equal(m.block_n, 64);
    assert_near(m.waves, 97, 0);
    assert_near(m.math_ns, 407081.0, 5.0);
    sim_moe_gemm w = experts_800(&hw, SIM_MOE_MARLIN, SIM_DT_INT4, true);
    assert_int_equal(w.block_m, 64);
    assert_near(w.math_ns, 648530.0, 50.0);
    assert_near(sim_moe_kernel_peak_frac(&hw, SIM_MOE_MARLIN), 2.0 / 3.0, 1e-12);
    assert_near(sim_moe_kernel_peak_frac(&hw, SIM_MOE_TRITON), 1.0, 0);
    hw.mma_sync_frac = 1.0;
    sim_moe_gemm a = experts_800(&hw, SIM_MOE_MARLIN, SIM_DT_BF16, false);
    assert_near(a.math_ns, m.math_ns * 2.0 / 3.0, 1e-6);
    hw.mma_sync_frac = 0.0; /* a hand-built device that leaves it out: the dense peak */
    assert_near(sim_moe_kernel_peak_frac(&hw, SIM_MOE_MARLIN), 1.0, 0);
    sim_moe_kernel k;
    assert_true(sim_moe_kernel_parse("marlin", &k) && k == SIM_MOE_MARLIN);
    assert_string_equal(sim_moe_layout(SIM_MOE_MARLIN, false), "sorted");
    assert_true(sim_moe_gathers_rows(SIM_MOE_MARLIN) && sim_moe_gathers_rows(SIM_MOE_TRITON));
    assert_false(sim_moe_gathers_rows(SIM_MOE_CUTLASS));
}


/* Triton fused_moe's K loop (moe.h): ceil(K / BLOCK_SIZE_K) steps of moe_k_step_ns. By hand,
 * at B200's 0.545 us: Qwen3-235B-A22B at TP 8 in bf16, gate_up K 4096 / 64 = 64 steps =
 * 34.88 us and down K 192 / 64 = 3 steps = 1.635 us; DeepSeek-V3's fp8 gate_up K 7168 / 128 =
 * 56 steps = 30.52 us; a K of 100 in fp8 still one step (545 ns). None for 4-bit math, another
 * family, K 0, or a device without the constant. */
static void test_triton_kloop(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    assert_near(sim_moe_triton_kloop_ns(&hw, SIM_MOE_TRITON, SIM_DT_BF16, 4096), 0.0, 0);
    hw.moe_k_step_ns = 545.0;
    assert_int_equal(sim_moe_triton_block_k(SIM_DT_BF16), 64);
    assert_int_equal(sim_moe_triton_block_k(SIM_DT_FP8), 128);
    assert_near(sim_moe_triton_kloop_ns(&hw, SIM_MOE_TRITON, SIM_DT_BF16, 4096), 34880.0, 1e-9);
    assert_near(sim_moe_triton_kloop_ns(&hw, SIM_MOE_TRITON, SIM_DT_BF16, 192), 1635.0, 1e-9);
    assert_near(sim_moe_triton_kloop_ns(&hw, SIM_MOE_TRITON, SIM_DT_FP8, 7168), 30520.0, 1e-9);
    assert_near(sim_moe_triton_kloop_ns(&hw, SIM_MOE_TRITON, SIM_DT_FP8, 100), 545.0, 1e-9);
    assert_near(sim_moe_triton_kloop_ns(&hw, SIM_MOE_TRITON, SIM_DT_FP4, 4096), 0.0, 0);
    assert_near(sim_moe_triton_kloop_ns(&hw, SIM_MOE_CUTLASS, SIM_DT_BF16, 4096), 0.0, 0);
    assert_near(sim_moe_triton_kloop_ns(&hw, SIM_MOE_TRITON, SIM_DT_BF16, 0), 0.0, 0);
    /* the shipped B200 states it; H100 does not (no hopper row of the default config at trust) */
    sim_hw b200 = tu_hw("b200"), h100 = tu_hw("h100-sxm");
    assert_near(b200.moe_k_step_ns, 545.0, 1e-9);
    assert_near(h100.moe_k_step_ns, 0.0, 0);
    /* both A100 files state the A100 fit (0.798 us, rows 3674-3678): the Qwen3-30B-A3B layer of
     * those rows in bf16 is gate_up K 2048 / 64 = 32 steps = 25.536 us and down K 768 / 64 = 12
     * steps = 9.576 us, 35.112 us a layer; Mixtral at TP 4 (K 4096 and 3584) 64 + 56 = 120 steps
     * = 95.76 us a layer */
    sim_hw a40 = tu_hw("a100-sxm-40gb"), a80 = tu_hw("a100-sxm-80gb");
    assert_near(a40.moe_k_step_ns, 798.0, 1e-9);
    assert_near(a80.moe_k_step_ns, 798.0, 1e-9);
    assert_near(sim_moe_triton_kloop_ns(&a40, SIM_MOE_TRITON, SIM_DT_BF16, 2048), 25536.0, 1e-6);
    assert_near(sim_moe_triton_kloop_ns(&a40, SIM_MOE_TRITON, SIM_DT_BF16, 768), 9576.0, 1e-6);
    assert_near(sim_moe_triton_kloop_ns(&a80, SIM_MOE_TRITON, SIM_DT_BF16, 4096) +
                    sim_moe_triton_kloop_ns(&a80, SIM_MOE_TRITON, SIM_DT_BF16, 3584),
                95760.0, 1e-6);
}

/* The regression of issue 23: Mixtral on H20 at TP 4 / EP 4 gave decode steps of 4.6 / 9.7 /
 * 6.8 ms at batch 1 / 2 / 3 (a busiest rank expecting <= 1 expert priced as a GEMM padded to a
 * 64-row tile, or as nothing when its rows truncated to 0). The steps must not shrink. */
static double decode_ns(const sim_step_cfg *cfg, int64_t batch)
{
    sim_seq_group g = {.count = batch, .q = 1, .c = 1024, .logits = 1};
    sim_step_result r;
    sim_step_price(cfg, &g, 1, &r);
    return r.t_ns;
}

static sim_step_cfg moe_cfg(const sim_model *m, const sim_hw *hw, int ep)
{
    sim_prec prec = {0};
    sim_prec_given given = {0};
    if (!sim_graph_prec_defaults(m, hw, &given, &prec))
        fail();
    return (sim_step_cfg){.model = m, .hw = hw, .tp = ep, .prec = prec, .ep = ep};
}

static void test_small_batch_ep(void **state)
{
    (void)state;
    sim_model m = tu_model("mixtral-8x7b");
    sim_hw hw = tu_hw("h20");
    sim_step_cfg cfg = moe_cfg(&m, &hw, 4);
    sim_err err = {{0}};
    assert_int_equal(sim_step_check(&cfg, &err), SIM_OK);
    double t1 = decode_ns(&cfg, 1), t2 = decode_ns(&cfg, 2), t3 = decode_ns(&cfg, 3);
    assert_true(t1 <= t2 && t2 <= t3);
}

/* The shipped files of `dir` (models/ or hw/), their names without ".json", sorted; at most
 * `cap`. */
static size_t shipped(const char *dir, char names[][64], size_t cap)
{
    char path[1024];
    tu_snprintf(path, sizeof path, "%s/%s", tu_root(), dir);
    DIR *d = opendir(path);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const size_t len = strlen(e->d_name);
        if (len <= 5 || len >= 64 + 5 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        assert_true(n < cap);
        memcpy(names[n], e->d_name, len - 5);
        names[n][len - 5] = '\0';
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    return n;
}

/* Decode step time non-decreasing in batch for every shipped MoE model (every models/ file with
 * routed experts) on every shipped device (every hw/ file), at EP 1, 2, 4, 8 (TP = EP), under each
 * grouped-GEMM kernel family; configurations the model or device refuses (memory, divisibility)
 * are skipped. The files are listed, not named here, so a new model or device is covered. */
static void test_decode_monotone_grid(void **state)
{
    (void)state;
    static char models[64][64], hws[64][64];
    const size_t nm = shipped("models", models, 64), nh = shipped("hw", hws, 64);
    static const int64_t batches[] = {1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256};
    int checked = 0, moe_models = 0;
    for (size_t a = 0; a < nm; a++) {
        sim_model m = tu_model(models[a]);
        if (m.experts <= 0)
            continue;
        moe_models++;
        for (size_t b = 0; b < nh; b++) {
            sim_hw hw = tu_hw(hws[b]);
            for (int ep = 1; ep <= 8; ep *= 2)
                for (int fam = 0; fam < SIM_MOE_KERNEL_COUNT; fam++) {
                    sim_step_cfg cfg = moe_cfg(&m, &hw, ep);
                    cfg.moe_kernel = (sim_moe_kernel)fam;
                    cfg.moe_kernel_quantized = (sim_moe_kernel)fam;
                    cfg.moe_kernel_mixed = (sim_moe_kernel)fam;
                    sim_err err = {{0}};
                    if (sim_step_check(&cfg, &err) != SIM_OK)
                        continue;
                    double prev = 0.0;
                    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
                        double t = decode_ns(&cfg, batches[i]);
                        if (t < prev * (1.0 - 1e-9))
                            print_error("%s on %s, EP %d, %s: batch %lld %.1f us < %.1f us\n",
                                        models[a], hws[b], ep,
                                        sim_moe_kernel_name((sim_moe_kernel)fam),
                                        (long long)batches[i], t / 1e3, prev / 1e3);
                        assert_true(t >= prev * (1.0 - 1e-9));
                        prev = t;
                    }
                    checked++;
                }
        }
    }
    /* the shipped MoE models (11 today) on the shipped devices (24) */
    assert_true(moe_models >= 11);
    assert_true(checked > 1000);
}

/* A measured histogram (--expert-load), Mixtral's E = 8, top-2, EP 4, two layers, one token.
 * Layer 0 counts 3,1,1,1,1,1,1,1 (shares .3, .1 x 7; p = k share = .6, .2 x 7): rank 0 holds
 * experts 0-1 (q .8, two slots of mean .4), ranks 1-3 q .4 (slots of .2). L_r ~ Bin(2, q/2):
 *   x = 1: F_0(0) = .6^2 = .36, F_r(0) = .8^2 = .64: 1 - .36 x .64^3 = .9056282
 *   x = 2: F_0(1) = 1 - .4^2 = .84, F_r(1) = 1 - .2^2 = .96: 1 - .84 x .96^3 = .2568218
 *   rows 1.1624500 (above the busiest mean .8, below the cap 2)
 * Layer 1 counts all 2 (shares 1/8): the uniform case, 1.1274109 rows (test_uniform_busiest_rank).
 * The step load is the layers' mean: 1.1449305 rows, over the mean T k / ep = .5: x2.289861. */
static void test_expert_load_file(void **state)
{
    (void)state;
    static sim_moe_hist h;
    sim_err err;
    const char *p = tu_write_tmp("{\"logical_count\": [[3, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2]]}");
    assert_int_equal(sim_moe_hist_load(p, 8, 2, 2, &h, &err), SIM_OK);
    assert_int_equal(h.layers, 2);
    assert_near(h.share[0], 0.3, 1e-12);
    sim_moe_routing r = {.kind = SIM_MOE_ROUTE_FILE, .hist = &h};
    assert_int_equal(sim_moe_routing_check(&r, 8, 2, 4, &err), SIM_OK);
    sim_moe_load ld = load(8, 2, 4, 1.0, &r);
    assert_near(ld.rows, 1.1624500, 1e-6);
    sim_moe_step_load sl;
    sim_moe_step_load_of(&r, 8, 2, 4, 1.0, 0.0, NULL, &sl);
    assert_near(sl.rows, 1.1449305, 1e-6);
    assert_near(sl.imbalance, 2.289861, 1e-6);
    /* the memo: the same numbers bit for bit, the second time a hit */
    static sim_moe_cache c;
    sim_moe_step_load a, b;
    sim_moe_step_load_of(&r, 8, 2, 4, 1.0, 0.0, &c, &a);
    sim_moe_step_load_of(&r, 8, 2, 4, 1.0, 0.0, &c, &b);
    assert_memory_equal(&a, &sl, sizeof a);
    assert_memory_equal(&b, &sl, sizeof b);
    assert_int_equal(c.hits, 1);
    assert_int_equal(c.misses, 1);
    /* another key in the same slot is recomputed, then the first again */
    double other = 2.0;
    while (sim_moe_cache_slot(other) != sim_moe_cache_slot(1.0))
        other += 1.0;
    sim_moe_step_load_of(&r, 8, 2, 4, other, 0.0, &c, &a);
    sim_moe_step_load_of(&r, 8, 2, 4, 1.0, 0.0, &c, &b);
    assert_memory_equal(&b, &sl, sizeof b);
    assert_int_equal(c.misses, 3);
    /* a prefill of 256 x 2048 tokens and its decode of 256 keep their own slots (the count modulo
     * the slots put both in slot 0, and a run's draws evicted them in turn) */
    assert_true(sim_moe_cache_slot(256.0 * 2048.0) != sim_moe_cache_slot(256.0));
    assert_true(sim_moe_cache_slot(128.0) != sim_moe_cache_slot(256.0));
    /* one layer stands for all; bad files are SIM_EINPUT naming the field */
    p = tu_write_tmp("{\"logical_count\": [[1, 1, 1, 1, 1, 1, 1, 1]]}");
    assert_int_equal(sim_moe_hist_load(p, 8, 2, 32, &h, &err), SIM_OK);
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"{\"logical_count\": [[1, 1, 1]]}", "logical_count[0]: 3 values"},
        {"{\"logical_count\": [[1, 1, 1, 1, 1, 1, 1, -1]]}", "logical_count[0][7]"},
        {"{\"logical_count\": [[0, 0, 0, 0, 0, 0, 0, 0]]}", "sum to 0"},
        {"{\"logical_count\": [[9, 1, 0, 0, 0, 0, 0, 0]]}", "logical_count[0][0]: 0.9"},
        {"{\"logical_count\": [[1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1]]}", "2 layers"},
        {"{\"logical_count\": 3}", "not an array"},
        {"{\"counts\": []}", "logical_count: missing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = tu_write_tmp(bad[i].text);
        assert_int_equal(sim_moe_hist_load(p, 8, 2, 32, &h, &err), SIM_EINPUT);
        if (!strstr(err.msg, bad[i].needle))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].needle);
        assert_non_null(strstr(err.msg, p));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uniform_busiest_rank), cmocka_unit_test(test_uniform_bounds),
        cmocka_unit_test(test_binomial_blocks),      cmocka_unit_test(test_redundant_experts),
        cmocka_unit_test(test_zipf),                 cmocka_unit_test(test_gemm_waves),
        cmocka_unit_test(test_marlin_mma_sync),
        cmocka_unit_test(test_small_batch_ep),       cmocka_unit_test(test_decode_monotone_grid),
        cmocka_unit_test(test_expert_load_file),     cmocka_unit_test(test_triton_kloop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
