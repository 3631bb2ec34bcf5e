/* test_graph.c - FLOPs and bytes of every op, against numbers worked by hand. */
#include "testutil.h"

#include "a2a.h"
#include "graph.h"
#include "hw.h"

static const sim_prec BF16 = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false, false};

static double intensity(const sim_op *op) { return op->flops / sim_op_bytes(op); }

static sim_graph decode(const sim_model *m, int tp, const sim_prec *p, int64_t batch, int64_t ctx)
{
    sim_graph g;
    sim_seq_group grp = {.count = batch, .q = 1, .c = ctx, .logits = 1};
    sim_graph_build(m, tp, p, &grp, 1, &g);
    return g;
}

static void test_matmul_intensity_is_tokens(void **state)
{
    (void)state;
    /* Seed 3.1: intensity = BDF / (BD + DF + BF) ~ B when B << D, F. Llama-3.1-70B gate_up at
     * 16 tokens: D = 8192, F = 2 x 28672 = 57344: 16 / (1 + 16/57344 + 16/8192) = 15.96. */
    sim_model m = tu_model("llama-3.1-70b");
    sim_graph g = decode(&m, 1, &BF16, 16, 100);
    assert_near(intensity(&g.ops[SIM_OP_GATE_UP_PROJ]), 15.96, 0.002);
    assert_near(intensity(&g.ops[SIM_OP_QKV_PROJ]), 16.0, 0.01);
    assert_near(intensity(&g.ops[SIM_OP_DOWN_PROJ]), 16.0, 0.01);
    g = decode(&m, 1, &BF16, 1, 100);
    assert_near(intensity(&g.ops[SIM_OP_GATE_UP_PROJ]), 1.0, 0.001);
    /* FLOPs = 2 x T x D x F exactly */
    assert_near(g.ops[SIM_OP_GATE_UP_PROJ].flops, 2.0 * 1 * 8192 * 57344, 0);
}

static void test_decode_attention_seed_numbers(void **state)
{
    (void)state;
    /* Seed 5.1-5.3: batch 1 decoding at 4096 cached keys, 64 query heads, 8 KV heads, hd 128:
     * FLOPs = 64 x 2 x 128 x 4096 (QK^T) + the same for PV = 134,217,728;
     * KV read = 2 x 8 x 4096 x 128 x 2 B = 16,777,216; intensity ~ 8 FLOP/byte.
     * c = 4095 cached + 1 new token = 4096 keys. */
    sim_model m = tu_model("llama-3.1-70b");
    sim_graph g = decode(&m, 1, &BF16, 1, 4095);
    const sim_op *a = &g.ops[SIM_OP_ATTENTION];
    assert_near(a->flops, 134217728.0, 0);
    assert_near(a->kv_read_bytes, 16777216.0, 0);
    /* + Q, O, new K, V (1 x (2x64 + 2x8) x 128 x 2 B = 36,864) + KV write (4096 B):
     * 134217728 / 16818176 = 7.98 */
    assert_near(intensity(a), 7.98, 0.002);
}

static void test_attention_intensity_does_not_grow_with_batch(void **state)
{
    (void)state;
    /* Every sequence reads its own KV: 64 sequences read 64x the bytes for 64x the FLOPs. */
    sim_model m = tu_model("llama-3.1-70b");
    sim_graph g1 = decode(&m, 1, &BF16, 1, 4095);
    sim_graph g64 = decode(&m, 1, &BF16, 64, 4095);
    assert_near(intensity(&g64.ops[SIM_OP_ATTENTION]), 8.0, 0.01);
    assert_near(intensity(&g64.ops[SIM_OP_ATTENTION]), intensity(&g1.ops[SIM_OP_ATTENTION]), 1e-9);
    /* ...while the weight matmuls' intensity grows with the batch (~64) */
    assert_near(intensity(&g64.ops[SIM_OP_O_PROJ]), 64.0, 0.03);
    /* fp8 KV halves the KV bytes: 134217728 / (8388608 + 36864 + 2048) = 15.93 ~ 16 */
    sim_prec fp8kv = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_FP8, 0, false, false};
    sim_graph g8 = decode(&m, 1, &fp8kv, 64, 4095);
    assert_near(intensity(&g8.ops[SIM_OP_ATTENTION]), 15.93, 0.002);
}

static void test_prefill_attention_is_causal(void **state)
{
    (void)state;
    /* q = S new tokens over c = 0: token j sees j + 1 keys, sum = S(S+1)/2 ~ S^2 / 2. */
    sim_model m = tu_model("llama-3.1-8b");
    sim_seq_group g = {.count = 1, .q = 4096, .c = 0, .logits = 1};
    sim_graph gr;
    sim_graph_build(&m, 1, &BF16, &g, 1, &gr);
    double full = 4.0 * 32 * 128 * 4096.0 * 4096.0;
    assert_near(gr.ops[SIM_OP_ATTENTION].flops, full * 4097.0 / 4096.0 / 2.0, 1e-12);
    /* each query attends (S + 1) / 2 keys on average: 4097 x 4096 / 2 pairs over 4096 tokens */
    assert_near(gr.ops[SIM_OP_ATTENTION].attn_keys, 2048.5, 1e-12);
    /* the LM head runs on the one token that needs logits: 2 x 1 x 4096 x 128256 */
    assert_int_equal(gr.ops[SIM_OP_LM_HEAD].m, 1);
    assert_near(gr.ops[SIM_OP_LM_HEAD].flops, 2.0 * 4096 * 128256, 0);
    /* a non-final chunk needs no logits at all */
    g.logits = 0;
    sim_graph_build(&m, 1, &BF16, &g, 1, &gr);
    assert_near(gr.ops[SIM_OP_LM_HEAD].flops, 0.0, 0);
}

static void test_attention_pairs(void **state)
{
    (void)state;
    /* No window: q = 3 after c = 2: keys 3, 4, 5 = 12 */
    assert_near(sim_graph_attn_pairs(3, 2, 0), 12.0, 0);
    /* window 4, q = 10, c = 0: keys 1, 2, 3, 4, then 4 x 6 = 34 */
    assert_near(sim_graph_attn_pairs(10, 0, 4), 34.0, 0);
    /* decode far past a window sees the window only */
    assert_near(sim_graph_attn_pairs(1, 9999, 4096), 4096.0, 0);
    /* chunked local attention (Llama 4): tokens 6, 7 see 7, 8 keys; 8, 9 (the next chunk) 1, 2 */
    assert_near(sim_graph_chunk_pairs(4, 6, 8), 18.0, 0);
    /* a decode at position 10,000, chunks of 8192: 10000 - 8192 + 1 = 1809 keys */
    assert_near(sim_graph_chunk_pairs(1, 10000, 8192), 1809.0, 0);
    /* a 16,384-token prefill: two whole chunks, 2 x 8192 x 8193 / 2 */
    assert_near(sim_graph_chunk_pairs(16384, 0, 8192), 67117056.0, 0);
}

static void test_kv_heads_replicated(void **state)
{
    (void)state;
    /* 8 KV heads over 16 GPUs cannot be split: each GPU holds ceil(8/16) = 1 head, so the KV
     * bytes per token per GPU are 80 x 2 x 1 x 128 x 2 = 40,960, not 327,680 / 16 = 20,480. */
    sim_model m = tu_model("llama-3.1-70b");
    assert_int_equal(sim_graph_kv_heads_per_gpu(&m, 16), 1);
    assert_near(sim_graph_kv_bytes_per_token(&m, 16, &BF16), 40960.0, 0);
    assert_int_equal(sim_graph_kv_heads_per_gpu(&m, 4), 2);
    assert_near(sim_graph_kv_bytes_per_token(&m, 4, &BF16), 81920.0, 0);
    /* the K and V projections are replicated too: qkv N = (64/16 + 2 x 1) x 128 = 768 */
    sim_graph g = decode(&m, 16, &BF16, 1, 10);
    assert_int_equal(g.ops[SIM_OP_QKV_PROJ].n, 768);
}

static void test_tp_checks(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-70b");
    sim_err err = {{0}};
    assert_int_equal(sim_graph_check(&m, 8, &BF16, &err), SIM_OK);
    assert_int_equal(sim_graph_check(&m, 16, &BF16, &err), SIM_OK);
    assert_int_equal(sim_graph_check(&m, 3, &BF16, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--tp"));
    assert_non_null(strstr(err.msg, "num_attention_heads"));
    assert_non_null(strstr(err.msg, "64"));
    m = tu_model("llama-2-13b"); /* 40 heads, 40 KV heads: 8 divides them, 16 does not */
    assert_int_equal(sim_graph_check(&m, 8, &BF16, &err), SIM_OK);
    assert_int_equal(sim_graph_check(&m, 16, &BF16, &err), SIM_EINPUT);
}

static void test_precision_checks(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_err err = {{0}};
    sim_prec p = {SIM_DT_BF16, SIM_DT_FP8, SIM_DT_BF16, 0,
                  false, false}; /* fp8 activations, bf16 weights */
    assert_int_equal(sim_graph_check(&m, 1, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--act-dtype"));
    p = (sim_prec){SIM_DT_INT4, SIM_DT_INT4, SIM_DT_BF16, 0, false, false};
    assert_int_equal(sim_graph_check(&m, 1, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "weights only"));
    p = (sim_prec){SIM_DT_BF16, SIM_DT_BF16, SIM_DT_INT4, 0, false, false};
    assert_int_equal(sim_graph_check(&m, 1, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--kv-cache-dtype"));
    p = (sim_prec){SIM_DT_INT4, SIM_DT_BF16, SIM_DT_FP8, 0, false, false};
    assert_int_equal(sim_graph_check(&m, 1, &p, &err), SIM_OK);
    /* W4A8: int4 weights dequantized to fp8 (or int8, QServe) math; fp8 weights under int8
     * math, or wider weights than the math, are not */
    p = (sim_prec){SIM_DT_INT4, SIM_DT_FP8, SIM_DT_BF16, 128, false, false};
    assert_int_equal(sim_graph_check(&m, 1, &p, &err), SIM_OK);
    p = (sim_prec){SIM_DT_INT4, SIM_DT_INT8, SIM_DT_BF16, 128, false, false};
    assert_int_equal(sim_graph_check(&m, 1, &p, &err), SIM_OK);
    p = (sim_prec){SIM_DT_FP8, SIM_DT_INT8, SIM_DT_BF16, 128, false, false};
    assert_int_equal(sim_graph_check(&m, 1, &p, &err), SIM_EINPUT);
    p = (sim_prec){SIM_DT_FP8, SIM_DT_FP4, SIM_DT_BF16, 128, false, false};
    assert_int_equal(sim_graph_check(&m, 1, &p, &err), SIM_EINPUT);
    p = (sim_prec){SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, -1, false, false};
    assert_int_equal(sim_graph_check(&m, 1, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--weight-group-size"));
}

/* Smallest token count at which gate_up reaches the ridge of its compute format. */
static int64_t critical_tokens(const sim_model *m, const sim_hw *hw, const sim_prec *p)
{
    for (int64_t t = 1; t < 100000; t++) {
        sim_graph g = decode(m, 1, p, t, 0);
        const sim_op *op = &g.ops[SIM_OP_GATE_UP_PROJ];
        if (intensity(op) >= sim_hw_ridge(hw, op->compute))
            return t;
    }
    return -1;
}

static void test_quantization_moves_the_critical_batch(void **state)
{
    (void)state;
    /* Seed 4.1-4.3 on H100: ridge R = 989.4 / 3.35 = 295.34 (bf16), R8 = 1978.9 / 3.35 = 590.72
     * (fp8); 70B gate_up, D 8192, F 57344; the first whole T whose intensity reaches the ridge:
     *   bf16:        2TDF / 2(DF + TD + TF)    >= R   ->  T >= R / (1 - R (1/F + 1/D))   = 308.03
     *   int8 W-only: 2TDF / (DF + 2TD + 2TF)   >= R   ->  T >= R / (2 - 2R (1/F + 1/D))  = 154.02
     *   int4 W-only: 2TDF / (DF/2 + 2TD + 2TF) >= R   ->  T >= R / (4 - 4R (1/F + 1/D))  =  77.01
     *   fp8 full:    2TDF / (DF + TD + 2TF)    >= R8  ->  T >= R8 / (2 - R8/F - 2 R8/D)  = 320.09
     * so 309, 155, 78 and 321: weight-only quantization halves and quarters the critical batch. */
    sim_model m = tu_model("llama-3.1-70b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_prec w8 = {SIM_DT_INT8, SIM_DT_BF16, SIM_DT_BF16, 0, false, false};
    sim_prec w4 = {SIM_DT_INT4, SIM_DT_BF16, SIM_DT_BF16, 0, false, false};
    sim_prec f8 = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false};
    double bf16 = (double)critical_tokens(&m, &hw, &BF16);
    assert_near(bf16, 308.0, 0.005);
    assert_near(bf16, 295.0, 0.05);
    assert_near(critical_tokens(&m, &hw, &w8) / bf16, 0.5, 0.01);
    assert_near(critical_tokens(&m, &hw, &w4) / bf16, 0.25, 0.01);
    assert_near(critical_tokens(&m, &hw, &f8) / bf16, 1.0, 0.05);
    assert_int_equal(critical_tokens(&m, &hw, &BF16), 309);
    assert_int_equal(critical_tokens(&m, &hw, &w8), 155);
    assert_int_equal(critical_tokens(&m, &hw, &w4), 78);
    assert_int_equal(critical_tokens(&m, &hw, &f8), 321);
}

static void test_allreduce_bytes(void **state)
{
    (void)state;
    /* TP 8, 32 decode tokens: message T x d x 2 B = 32 x 8192 x 2 = 524,288 B; a ring sends
     * 2 (N-1)/N of it = 917,504 B per GPU in 2 (N-1) = 14 steps. */
    sim_model m = tu_model("llama-3.1-70b");
    sim_graph g = decode(&m, 8, &BF16, 32, 100);
    const sim_op *ar = &g.ops[SIM_OP_ATTN_ALLREDUCE];
    assert_true(ar->present);
    assert_near(ar->net_msg_bytes, 524288.0, 0);
    assert_near(ar->net_bytes, 917504.0, 0);
    assert_int_equal(ar->net_hops, 14);
    g = decode(&m, 1, &BF16, 32, 100);
    assert_false(g.ops[SIM_OP_MLP_ALLREDUCE].present);
    assert_near(g.ops[SIM_OP_EMBED].net_bytes, 0.0, 0);
}

static void test_weight_bytes(void **state)
{
    (void)state;
    /* Llama-3.1-70B bf16 on one GPU: 2 bytes x 70,553,706,496 parameters. */
    sim_model m = tu_model("llama-3.1-70b");
    assert_near(sim_graph_weight_bytes_per_gpu(&m, 1, &BF16), 2.0 * 70553706496.0, 1e-12);
    /* TP 8, per layer (8192 x (8+2) x 128 + 8 x 128 x 8192 + 3 x 8192 x 3584) x 2
     * + 2 x 8192 x 2 = 213,942,272; x 80 = 17,115,381,760; embedding + LM head
     * 2 x 16032 x 8192 x 2 = 525,336,576; final norm 16,384: 17,640,734,720 */
    assert_near(sim_graph_weight_bytes_per_gpu(&m, 8, &BF16), 17640734720.0, 1e-12);
    /* int4 weight-only quarters the layer weights, not the embeddings */
    sim_prec w4 = {SIM_DT_INT4, SIM_DT_BF16, SIM_DT_BF16, 0, false, false};
    double layers16 = 17115381760.0 - 80 * 2 * 8192 * 2;
    double expect = layers16 / 4 + 80 * 2 * 8192 * 2 + 525336576.0 + 16384;
    assert_near(sim_graph_weight_bytes_per_gpu(&m, 8, &w4), expect, 1e-12);
}

static sim_graph decode_par(const sim_model *m, const sim_par *par, const sim_prec *p,
                            int64_t batch, int64_t ctx)
{
    sim_graph g;
    sim_seq_group grp = {.count = batch, .q = 1, .c = ctx, .logits = 1};
    sim_batch_shape s = sim_graph_shape(m, &grp, 1);
    sim_graph_build_par(m, par, p, &s, &g);
    return g;
}

/* Weight bytes a step reads: every op's, times the layers it runs in. */
static double step_weight_bytes(const sim_graph *g)
{
    double w = 0.0;
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (g->ops[i].present)
            w += (double)g->repeats[i] * g->ops[i].weight_bytes;
    return w;
}

static void test_experts_touched(void **state)
{
    (void)state;
    /* E (1 - (1 - k/E)^T): 8 experts, top-2: one token touches 2, two tokens 8 (1 - 0.75^2) =
     * 3.5, many tokens all 8; DeepSeek-V3 (256, top-8) at 8 tokens: 256 (1 - (31/32)^8) =
     * 57.42 (ln(31/32) = -0.031749, x 8, exp = 0.77571) */
    assert_near(sim_graph_experts_touched(8, 2, 1), 2.0, 1e-12);
    assert_near(sim_graph_experts_touched(8, 2, 2), 3.5, 1e-12);
    assert_near(sim_graph_experts_touched(8, 2, 1000), 8.0, 1e-12);
    assert_near(sim_graph_experts_touched(256, 8, 8), 57.4208, 1e-5);
}

static void test_moe_decode_weights_grow_with_batch(void **state)
{
    (void)state;
    /* Mixtral-8x7B, TP 1, bf16: experts_gate_up reads touched x 2 x 14336 x 4096 x 2 B =
     * touched x 234,881,024: 2 experts at batch 1 (469,762,048), 3.5 at batch 2, ~8 at 64 */
    sim_model m = tu_model("mixtral-8x7b");
    sim_graph g = decode(&m, 1, &BF16, 1, 100);
    assert_near(g.ops[SIM_OP_EXPERTS_GATE_UP].weight_bytes, 469762048.0, 1e-12);
    assert_int_equal(g.repeats[SIM_OP_EXPERTS_GATE_UP], 32);
    assert_false(g.ops[SIM_OP_GATE_UP_PROJ].present); /* no dense MLP layer */
    /* at batch 1 the step streams the active parameters: 2 bytes each (bf16), the input
     * embedding (a row gather, no weight read) aside */
    assert_near(step_weight_bytes(&g), 2.0 * sim_model_active_params(&m), 1e-9);
    g = decode(&m, 1, &BF16, 2, 100);
    assert_near(g.ops[SIM_OP_EXPERTS_GATE_UP].weight_bytes, 3.5 * 234881024.0, 1e-12);
    double w2 = step_weight_bytes(&g);
    g = decode(&m, 1, &BF16, 64, 100);
    assert_near(g.ops[SIM_OP_EXPERTS_GATE_UP].weight_bytes, 8.0 * 234881024.0, 1e-6);
    assert_true(step_weight_bytes(&g) > w2);
    /* ... and at large batch nearly all of them (every expert, once) */
    assert_near(step_weight_bytes(&g), 2.0 * (sim_model_params(&m) - 32000.0 * 4096), 1e-6);
    /* routed FLOPs follow the active experts: 2 x T x k x 2 f x d at T = 64 */
    assert_near(g.ops[SIM_OP_EXPERTS_GATE_UP].flops, 2.0 * 64 * 2 * 2 * 14336 * 4096.0, 1e-12);
    assert_near(g.ops[SIM_OP_EXPERTS_GATE_UP].groups, 8.0, 1e-6);
}

static void test_expert_parallel_all_to_all(void **state)
{
    (void)state;
    /* DeepSeek-V3, TP 8, decode batch 64, fp8 activations. --ep 8: each GPU dispatches and
     * receives T k / ep = 64 x 8 / 8 = 64 rows, 7/8 of them to or from peers:
     * dispatch 64 x 7168 x 1 B (fp8) x 7/8 = 401,408 B, combine in bf16 802,816 B. */
    sim_model m = tu_model("deepseek-v3");
    const sim_prec fp8 = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false};
    sim_par tp8 = sim_par_tp(8), ep8 = {.tp = 8, .ep = 8, .imbalance = 1.0};
    sim_graph g = decode_par(&m, &tp8, &fp8, 64, 1000);
    assert_false(g.ops[SIM_OP_MOE_DISPATCH].present);
    assert_false(g.ops[SIM_OP_MOE_COMBINE].present);
    g = decode_par(&m, &ep8, &fp8, 64, 1000);
    assert_true(g.ops[SIM_OP_MOE_DISPATCH].present);
    assert_near(g.ops[SIM_OP_MOE_DISPATCH].net_bytes, 401408.0, 1e-12);
    assert_near(g.ops[SIM_OP_MOE_COMBINE].net_bytes, 802816.0, 1e-12);
    assert_int_equal(g.ops[SIM_OP_MOE_DISPATCH].net_hops, 1); /* decode: low-latency mode */
    assert_int_equal(g.repeats[SIM_OP_MOE_DISPATCH], 58);
    assert_int_equal(g.repeats[SIM_OP_GATE_UP_PROJ], 3); /* the first 3 layers stay dense */
    /* an imbalance of 1.5 loads the busiest rank with 96 rows */
    ep8.imbalance = 1.5;
    g = decode_par(&m, &ep8, &fp8, 64, 1000);
    assert_near(g.ops[SIM_OP_MOE_DISPATCH].net_bytes, 1.5 * 401408.0, 1e-12);
    assert_near(g.ops[SIM_OP_EXPERTS_GATE_UP].flops, 2.0 * 96 * 2 * 2048 * 7168.0, 1e-12);
    /* 256/8 whole experts per GPU hold as many bytes as 1/8 of all 256: same weights per GPU */
    ep8.imbalance = 1.0;
    assert_near(sim_graph_weight_bytes_par(&m, &ep8, &fp8),
                sim_graph_weight_bytes_par(&m, &tp8, &fp8), 1e-12);
    /* data-parallel attention over 8 GPUs at TP 1: attention, dense layers, shared experts and
     * tables whole on every GPU, 32 of the 256 experts. At TP 1 without EP a GPU holds all
     * 671,026,404,352 parameters (2 B each); EP 8 drops 58 layers x 224 experts x 44,040,192
     * parameters: 1,342,052,808,704 - 1,144,340,348,928 = 197,712,459,776 B */
    sim_par tp1 = sim_par_tp(1), dp8 = {.tp = 1, .ep = 8, .dp_attention = true, .imbalance = 1.0};
    assert_near(sim_graph_weight_bytes_par(&m, &tp1, &BF16), 1342052808704.0, 1e-12);
    assert_near(sim_graph_weight_bytes_par(&m, &dp8, &BF16), 197712459776.0, 1e-12);
    /* each DP rank runs attention on its 8 of the 64 sequences: q_up over 8 tokens */
    g = decode_par(&m, &dp8, &fp8, 64, 1000);
    assert_int_equal(g.ops[SIM_OP_Q_UP].m, 8);
    assert_false(g.ops[SIM_OP_ATTN_ALLREDUCE].present);
    /* the expert weights a decode step reads grow with the batch: 32 local experts,
     * 32 (1 - (31/32)^T) touched, 2 x 2048 x 7168 B each (fp8) */
    g = decode_par(&m, &ep8, &fp8, 1, 1000);
    assert_near(g.ops[SIM_OP_EXPERTS_GATE_UP].weight_bytes,
                32.0 * (1.0 - pow(31.0 / 32.0, 1.0)) * 2 * 2048 * 7168.0, 1e-12);
}

/* Node-limited routing in DeepEP's traffic: DeepSeek-V3 (n_group 8, topk_group 4) at EP 8 with DP
 * attention, a prefill step of 8 x 512 tokens, 512 per rank. The experts sit on the ranks by id,
 * so rank r holds group r: a token's dispatch reaches the ranks of its 4 groups only. Distinct
 * ranks a token is sent to (a2a.h u): without the limit 8 (1 - prod_{i<8} (224 - i)/(256 - i)) =
 * 8 (1 - 0.33817) = 5.2947; with it, each rank picked with 4/8 and then hit unless its 32
 * experts miss all 8 of the 128 picked: 8 x 1/2 x (1 - prod (96 - i)/(128 - i)) = 4 (1 - 0.09275)
 * = 3.6290. The normal kernel's NVLink bytes fall by 3.6290 / 5.2947 = 0.6854. */
static void test_node_limited_dispatch(void **state)
{
    (void)state;
    sim_model m = tu_model("deepseek-v3");
    const sim_prec fp8 = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false};
    sim_par par = {.tp = 1, .ep = 8, .dp_attention = true, .imbalance = 1.0};
    sim_seq_group grp = {.count = 8, .q = 512, .c = 0, .logits = 1};
    sim_batch_shape sh = sim_graph_shape(&m, &grp, 1);
    sim_graph g;
    sim_graph_build_par(&m, &par, &fp8, &sh, &g);
    const sim_op *op = &g.ops[SIM_OP_MOE_DISPATCH];
    assert_int_equal(op->a2a.route_groups, 8);
    assert_int_equal(op->a2a.route_topk_groups, 4);
    assert_int_equal(g.ops[SIM_OP_MOE_COMBINE].a2a.route_groups, 8);
    double miss = 1.0, m2 = 1.0;
    for (int i = 0; i < 8; i++) {
        miss *= (224.0 - i) / (256.0 - i);
        m2 *= (96.0 - i) / (128.0 - i);
    }
    assert_near(m2, 0.09275, 1e-4);
    sim_hw hw = tu_hw("h200");
    sim_a2a_shape free_routing = op->a2a;
    free_routing.route_groups = 0;
    const double lim = sim_a2a_price(&hw, SIM_A2A_NORMAL, &op->a2a).nvlink_bytes;
    const double all = sim_a2a_price(&hw, SIM_A2A_NORMAL, &free_routing).nvlink_bytes;
    assert_near(lim / all, 4.0 * (1.0 - m2) / (8.0 * (1.0 - miss)), 1e-12);
    assert_near(lim / all, 0.6854, 1e-4);
    /* each (token, expert) copy goes out in the low-latency kernel: the limit does not move it */
    assert_near(sim_a2a_price(&hw, SIM_A2A_LOW_LATENCY, &op->a2a).nvlink_bytes,
                sim_a2a_price(&hw, SIM_A2A_LOW_LATENCY, &free_routing).nvlink_bytes, 1e-12);
    /* EPLB's redundant experts are placed by load, not by group: no limit */
    par.routing.redundant = 32;
    sim_graph_build_par(&m, &par, &fp8, &sh, &g);
    assert_int_equal(g.ops[SIM_OP_MOE_DISPATCH].a2a.route_groups, 0);
}

static void test_mla(void **state)
{
    (void)state;
    sim_model m = tu_model("deepseek-v3");
    /* the latent and the rope key, 512 + 64 values per token per layer, on every TP rank:
     * 61 x 576 x 2 B = 70,272 B per token in bf16 at TP 1 and TP 8 */
    assert_near(sim_graph_kv_bytes_per_token(&m, 1, &BF16), 61.0 * 576 * 2, 0);
    assert_near(sim_graph_kv_bytes_per_token(&m, 8, &BF16), 70272.0, 0);
    /* data-parallel attention over 8: a token's latent lives on one GPU; the mean is 1/8 */
    sim_par dp = {.tp = 1, .ep = 8, .dp_attention = true, .imbalance = 1.0};
    assert_near(sim_graph_kv_bytes_per_token_par(&m, &dp, &BF16), 70272.0 / 8, 0);
    /* absorbed decode, batch 1 at 4095 cached tokens, TP 1: 128 heads over one latent,
     * 2 x 128 x (2 x 512 + 64) x 4096 = 1,140,850,688 FLOPs; reads 4096 x 576 x 2 B =
     * 4,718,592 B of cache: intensity ~ 240, FlashMLA's compute-bound regime */
    sim_graph g = decode(&m, 1, &BF16, 1, 4095);
    assert_near(g.ops[SIM_OP_ATTENTION].flops, 1140850688.0, 1e-12);
    assert_near(g.ops[SIM_OP_ATTENTION].kv_read_bytes, 4718592.0, 1e-12);
    assert_false(g.ops[SIM_OP_QKV_PROJ].present);
    /* the projections: q_down 2 x 7168 x 1536, q_up 2 x 1536 x 128 x 192, kv_down 2 x 7168 x 576
     * FLOPs per token; kv_up absorbed: 2 x 128 x 512 x (128 + 128) per token */
    assert_near(g.ops[SIM_OP_Q_DOWN].flops, 2.0 * 7168 * 1536, 1e-12);
    assert_near(g.ops[SIM_OP_Q_UP].flops, 2.0 * 1536 * 128 * 192, 1e-12);
    assert_near(g.ops[SIM_OP_KV_DOWN].flops, 2.0 * 7168 * 576, 1e-12);
    assert_near(g.ops[SIM_OP_KV_UP].flops, 2.0 * 128 * 512 * 256, 1e-12);
    /* a decode step at batch 1 streams DeepSeek-V3's active parameters (bf16, TP 1): the MLA
     * projections and latent norms, 8 routed + 1 shared expert, the router, the dense layers,
     * the LM head (36,625,603,584 x 2 B) */
    assert_near(step_weight_bytes(&g), 2.0 * 36625603584.0, 1e-12);
    /* the TP 8 rank: 16 heads, the same latent read whole */
    g = decode(&m, 8, &BF16, 1, 4095);
    assert_near(g.ops[SIM_OP_ATTENTION].flops, 1140850688.0 / 8, 1e-12);
    assert_near(g.ops[SIM_OP_ATTENTION].kv_read_bytes, 4718592.0, 1e-12);
    /* prefill expands: 1024 new tokens, causal 1024 x 1025 / 2 pairs, 2 x 128 x (192 + 128)
     * FLOPs each; kv_up expands the 1024 latents: 2 x 1024 x 512 x 128 x 256 */
    sim_seq_group p = {.count = 1, .q = 1024, .c = 0, .logits = 1};
    sim_graph_build(&m, 1, &BF16, &p, 1, &g);
    assert_near(g.ops[SIM_OP_ATTENTION].flops, 2.0 * 128 * 320 * (1024.0 * 1025 / 2), 1e-12);
    assert_near(g.ops[SIM_OP_KV_UP].flops, 2.0 * 1024 * 512 * 128 * 256, 1e-12);
    assert_near(g.ops[SIM_OP_ATTENTION].kv_write_bytes, 1024.0 * 576 * 2, 1e-12);
}

static void test_sliding_and_full_layers(void **state)
{
    (void)state;
    /* gpt-oss-120b: 18 sliding (128) and 18 full layers. Decode at 4095 cached tokens, TP 1:
     * full layers read 2 x 8 x 64 x 2 B x 4096 = 8,388,608 B, sliding ones 128 tokens' worth,
     * 262,144 B */
    sim_model m = tu_model("gpt-oss-120b");
    sim_graph g = decode(&m, 1, &BF16, 1, 4095);
    assert_int_equal(g.repeats[SIM_OP_ATTENTION], 18);
    assert_int_equal(g.repeats[SIM_OP_ATTENTION_SLIDING], 18);
    assert_near(g.ops[SIM_OP_ATTENTION].kv_read_bytes, 8388608.0, 1e-12);
    assert_near(g.ops[SIM_OP_ATTENTION_SLIDING].kv_read_bytes, 262144.0, 1e-12);
    /* the timeline's placement covers each op's layers exactly once */
    int64_t full = 0, sliding = 0;
    for (int64_t l = 0; l < g.layers; l++) {
        bool a = sim_graph_op_in_layer(&g, SIM_OP_ATTENTION, l);
        bool b = sim_graph_op_in_layer(&g, SIM_OP_ATTENTION_SLIDING, l);
        assert_true(a != b);
        full += a;
        sliding += b;
    }
    assert_int_equal(full, 18);
    assert_int_equal(sliding, 18);
    /* Mistral slides in every layer: one attention op with the window */
    m = tu_model("mistral-7b");
    g = decode(&m, 1, &BF16, 1, 8000);
    assert_int_equal(g.repeats[SIM_OP_ATTENTION], 32);
    assert_false(g.ops[SIM_OP_ATTENTION_SLIDING].present);
}

static void test_mxfp4_quantizes_only_the_experts(void **state)
{
    (void)state;
    /* vLLM's Mxfp4Config runs every linear layer unquantized, only FusedMoE in mxfp4.
     * gpt-oss-20b, TP 1, decode at batch 1: qkv N = (64 + 2 x 8) x 64 = 5120, K = 2880:
     * 5120 x 2880 x 2 B + bias 5120 x 2 B = 29,501,440 B; o_proj 2880 x 4096 x 2 B + bias
     * 2880 x 2 B = 23,598,720 B, both 16-bit GEMMs; gate_up stays mxfp4 (0.53125 B). */
    sim_model m = tu_model("gpt-oss-20b");
    const sim_prec mx = {SIM_DT_MXFP4, SIM_DT_BF16, SIM_DT_BF16, 32, false, false};
    sim_graph g = decode(&m, 1, &mx, 1, 100);
    assert_near(g.ops[SIM_OP_QKV_PROJ].weight_bytes, 29501440.0, 0);
    assert_int_equal(g.ops[SIM_OP_QKV_PROJ].weight, SIM_DT_BF16);
    assert_false(g.ops[SIM_OP_QKV_PROJ].weight_only);
    assert_near(g.ops[SIM_OP_O_PROJ].weight_bytes, 23598720.0, 0);
    assert_false(g.ops[SIM_OP_ACT_QUANT].present);
    assert_int_equal(g.ops[SIM_OP_EXPERTS_GATE_UP].weight, SIM_DT_MXFP4);
    assert_true(g.ops[SIM_OP_EXPERTS_GATE_UP].weight_only);
    /* the memory plan: the experts alone shrink from 2 to 0.53125 B per weight,
     * 24 layers x 32 experts x (2880 x 5760 + 2880 x 2880) = 19,110,297,600 weights:
     * 19,110,297,600 x 1.46875 = 28,068,249,600 B below the bf16 plan */
    assert_near(sim_graph_weight_bytes_per_gpu(&m, 1, &BF16) -
                    sim_graph_weight_bytes_per_gpu(&m, 1, &mx),
                28068249600.0, 1e-12);
    /* an explicit format the checkpoint does not use quantizes every layer GEMM */
    const sim_prec nv = {SIM_DT_FP4, SIM_DT_BF16, SIM_DT_BF16, 16, false, false};
    assert_int_equal(decode(&m, 1, &nv, 1, 100).ops[SIM_OP_QKV_PROJ].weight, SIM_DT_FP4);
}

static void test_qk_norm(void **state)
{
    (void)state;
    /* Qwen3-32B (64 query heads, 8 KV heads, head_dim 128) at TP 2, 16 decodes: 32 + 4 heads a
     * GPU, 36 x 128 = 4608 values a token, 16 x 4608 = 73,728 values; RMSNorm at 4 FLOPs a
     * value: 294,912 FLOPs; each value read and written once in bf16: 2 x 73,728 x 2 B =
     * 294,912 B; the q_norm and k_norm weights 2 x 128 x 2 B = 512 B; two launches; every one of
     * the 64 layers. */
    sim_model m = tu_model("qwen3-32b");
    sim_graph g = decode(&m, 2, &BF16, 16, 1000);
    const sim_op *qk = &g.ops[SIM_OP_QK_NORM];
    assert_true(qk->present);
    assert_int_equal(g.repeats[SIM_OP_QK_NORM], 64);
    assert_near(qk->flops, 294912.0, 1e-12);
    assert_near(qk->act_bytes, 294912.0, 1e-12);
    assert_near(qk->weight_bytes, 512.0, 1e-12);
    assert_int_equal(sim_op_info(SIM_OP_QK_NORM)->kernels, 2);
    /* fused with RoPE (TensorRT-LLM): one launch, RoPE's 3 FLOPs a value join it (221,184), and
     * RoPE itself moves nothing and launches nothing */
    sim_graph_fuse_qk_norm_rope(&g);
    assert_near(qk->flops, 294912.0 + 221184.0, 1e-12);
    assert_near(qk->act_bytes, 294912.0, 1e-12);
    assert_int_equal(qk->kernels, 1);
    assert_true(g.ops[SIM_OP_ROPE].fused);
    assert_near(g.ops[SIM_OP_ROPE].act_bytes, 0.0, 0);
    assert_near(g.ops[SIM_OP_ROPE].flops, 0.0, 0);
    /* a model without q/k norms has no such op, and the fusion leaves it alone */
    sim_model l = tu_model("llama-3.1-8b");
    sim_graph lg = decode(&l, 1, &BF16, 16, 1000);
    assert_false(lg.ops[SIM_OP_QK_NORM].present);
    assert_int_equal(lg.repeats[SIM_OP_QK_NORM], 0);
    const double rope = lg.ops[SIM_OP_ROPE].act_bytes;
    sim_graph_fuse_qk_norm_rope(&lg);
    assert_false(lg.ops[SIM_OP_ROPE].fused);
    assert_near(lg.ops[SIM_OP_ROPE].act_bytes, rope, 0);
    /* Qwen3-Next: only its 12 full-attention layers normalize q and k (2 x 16 gated query
     * heads count once: the norm runs on the 16 query and 2 KV heads of 256 values) */
    sim_model n = tu_model("qwen3-next-80b-a3b");
    sim_graph ng = decode(&n, 1, &BF16, 1, 4096);
    assert_int_equal(ng.repeats[SIM_OP_QK_NORM], 12);
    assert_near(ng.ops[SIM_OP_QK_NORM].flops, 4.0 * 18.0 * 256.0, 1e-12);
}

static void test_parallel_checks(void **state)
{
    (void)state;
    sim_err err = {{0}};
    sim_model m = tu_model("deepseek-v3");
    sim_par p = {.tp = 8, .ep = 6, .imbalance = 1.0};
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_EINPUT); /* 256 % 6 */
    assert_non_null(strstr(err.msg, "--ep"));
    p = (sim_par){.tp = 4, .ep = 8, .imbalance = 1.0};
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_EINPUT); /* TP != EP */
    p.dp_attention = true; /* 2 DP groups of TP 4 */
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_OK);
    p = (sim_par){.tp = 3, .ep = 8, .dp_attention = true, .imbalance = 1.0};
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_EINPUT); /* 8 % 3 */
    p = (sim_par){.tp = 1, .ep = 1, .dp_attention = true, .imbalance = 1.0};
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_EINPUT);
    p = (sim_par){.tp = 8, .ep = 8, .imbalance = 9.0};
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_EINPUT);
    p = (sim_par){.tp = 8, .ep = 1, .imbalance = 2.0}; /* no EP: no EP ranks to skew */
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_EINPUT);
    /* DP attention with the MoE split by TP (SGLang --tp 8 --dp 8 --enable-dp-attention): 8
     * groups of attention TP 1; attention TP 2 refused; --dp without --dp-attention refused; a
     * dp that is not ep / tp refused */
    p = (sim_par){.tp = 1, .ep = 1, .dp_attention = true, .imbalance = 1.0, .dp = 8};
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_OK);
    p.tp = 2;
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "expected --tp 1"));
    p = (sim_par){.tp = 1, .ep = 1, .imbalance = 1.0, .dp = 8};
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--dp: value 8"));
    p = (sim_par){.tp = 1, .ep = 8, .dp_attention = true, .imbalance = 1.0, .dp = 4};
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "expected ep / tp = 8"));
    m = tu_model("llama-3.1-8b");
    p = (sim_par){.tp = 2, .ep = 2, .imbalance = 1.0};
    assert_int_equal(sim_graph_check_par(&m, &p, &BF16, &err), SIM_EINPUT); /* no experts */
}

static void test_attention_flops(void **state)
{
    (void)state;
    /* GQA: 32 heads of 128 over 1000 pairs: QK^T 32 x 128 x 1000 multiply-adds, PV as many,
     * 2 FLOPs each: 4 x 32 x 128 x 1000 = 16,384,000 */
    assert_near(sim_graph_attention_flops(32.0, 128.0, 128.0, 1000.0), 16384000.0, 1e-15);
    /* MLA absorbed, DeepSeek-V3 at TP 8 (16 heads): QK^T over 512 + 64, PV over 512:
     * 2 x 16 x (576 + 512) = 34,816 a pair */
    assert_near(sim_graph_attention_flops(16.0, 576.0, 512.0, 1.0), 34816.0, 1e-15);
    /* the graph's attention is the owner's: Llama-3.1-8B, one decode at context 999 (1000 pairs,
     * 32 heads of 128 at TP 1) and DeepSeek-V3 at TP 8, the same decode: 34,816,000 */
    sim_model l = tu_model("llama-3.1-8b"), d = tu_model("deepseek-v3");
    sim_par tp1 = sim_par_tp(1), tp8 = sim_par_tp(8);
    assert_near(decode_par(&l, &tp1, &BF16, 1, 999).ops[SIM_OP_ATTENTION].flops, 16384000.0,
                1e-15);
    assert_near(decode_par(&d, &tp8, &BF16, 1, 999).ops[SIM_OP_ATTENTION].flops, 34816000.0,
                1e-15);
}

static void test_moe_slice(void **state)
{
    (void)state;
    /* DeepSeek-V3: 256 routed experts 2048 wide, one shared expert 2048 wide */
    sim_model m = tu_model("deepseek-v3");
    /* TP 8, experts split by TP: all 256 experts, each 2048 / 8 = 256 wide; shared 256 */
    sim_par p = sim_par_tp(8);
    sim_par_experts s = sim_par_moe_slice(&m, &p);
    assert_near(s.experts, 256.0, 1e-15);
    assert_int_equal(s.intermediate, 256);
    assert_int_equal(s.shared, 256);
    /* TP 8 EP 8 with EPLB's 32 redundant experts: (256 + 32) / 8 = 36 whole experts of 2048;
     * the shared expert still split over the attention's TP 8: 256 */
    p = (sim_par){.tp = 8, .ep = 8, .imbalance = 1.0, .routing = {.redundant = 32}};
    s = sim_par_moe_slice(&m, &p);
    assert_near(s.experts, 36.0, 1e-15);
    assert_int_equal(s.intermediate, 2048);
    assert_int_equal(s.shared, 256);
    assert_int_equal(sim_par_shared_tp(&p), 8);
    /* DP attention 8 x TP 2, EP 16: 256 / 16 = 16 experts of 2048, shared 2048 / 2 = 1024 */
    p = (sim_par){.tp = 2, .ep = 16, .dp_attention = true, .imbalance = 1.0};
    s = sim_par_moe_slice(&m, &p);
    assert_near(s.experts, 16.0, 1e-15);
    assert_int_equal(s.intermediate, 2048);
    assert_int_equal(s.shared, 1024);
    /* DP attention 8 x TP 1 with TP-split MoE (ep 1): every expert over all 8 GPUs, 2048 / 8 =
     * 256 wide, the shared expert too */
    p = (sim_par){.tp = 1, .ep = 1, .dp_attention = true, .imbalance = 1.0, .dp = 8};
    s = sim_par_moe_slice(&m, &p);
    assert_near(s.experts, 256.0, 1e-15);
    assert_int_equal(s.intermediate, 256);
    assert_int_equal(s.shared, 256);
    assert_int_equal(sim_par_shared_tp(&p), 8);
    /* the weight groups' check takes the experts' down K from the slice: int4 groups of 512
     * divide every other K of DeepSeek-V3 (hidden 7168, attention output 128 x 128, dense MLP
     * 18432, q_lora 1536, kv_lora 512) and the whole 2048, not this layout's 256; 128 does */
    sim_err err;
    sim_prec w4 = {.weight = SIM_DT_INT4, .act = SIM_DT_BF16, .kv = SIM_DT_BF16, .group_size = 512};
    assert_int_equal(sim_graph_check_par(&m, &p, &w4, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "moe_intermediate_size per GPU"));
    assert_non_null(strstr(err.msg, ", 256, "));
    w4.group_size = 128;
    assert_int_equal(sim_graph_check_par(&m, &p, &w4, &err), SIM_OK);
}

static void test_dp_attention_tp_moe(void **state)
{
    (void)state;
    /* DeepSeek-V3, 8 GPUs: DP attention (8 groups of TP 1), every expert split 8 ways by TP.
     * A decode step of 64 sequences: each GPU's attention runs its 8 sequences; before each MoE
     * layer an all-gather of the 64 tokens' 16-bit hidden states (64 x 7168 x 2 = 917,504 B
     * gathered over 8 GPUs), the MoE on all 64 tokens with 2048 / 8 = 256-wide expert slices
     * (T k = 512 rows), a reduce-scatter of the same bytes back */
    sim_model m = tu_model("deepseek-v3");
    const sim_prec fp8 = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false};
    sim_par p = {.tp = 1, .ep = 1, .dp_attention = true, .imbalance = 1.0, .dp = 8};
    assert_int_equal(sim_par_dp(&p), 8);
    assert_int_equal(sim_par_moe_tp(&p), 8);
    sim_graph g = decode_par(&m, &p, &fp8, 64, 1000);
    assert_int_equal(g.ops[SIM_OP_Q_UP].m, 8);
    const sim_op *ag = &g.ops[SIM_OP_MOE_DISPATCH], *rs = &g.ops[SIM_OP_MOE_COMBINE];
    assert_true(ag->present && ag->net_kind == SIM_COLL_ALLGATHER && ag->net_ranks == 8);
    assert_near(ag->net_msg_bytes, 64.0 * 7168 * 2, 1e-12);
    assert_near(ag->net_bytes, 7.0 / 8.0 * 64 * 7168 * 2, 1e-12);
    assert_true(rs->present && rs->net_kind == SIM_COLL_REDUCE_SCATTER);
    assert_near(rs->net_msg_bytes, 64.0 * 7168 * 2, 1e-12);
    assert_int_equal(g.ops[SIM_OP_EXPERTS_GATE_UP].m, 512);
    assert_int_equal(g.ops[SIM_OP_EXPERTS_GATE_UP].n, 2 * 256);
    assert_int_equal(g.ops[SIM_OP_EXPERTS_DOWN].k, 256);
    /* the router and the shared expert (2048 / 8 wide) on all 64 tokens */
    assert_int_equal(g.ops[SIM_OP_ROUTER].m, 64);
    assert_int_equal(g.ops[SIM_OP_SHARED_EXPERT].m, 64);
    assert_int_equal(g.ops[SIM_OP_SHARED_EXPERT].n, 3 * 256);
    /* no all-reduce at attention TP 1 */
    assert_false(g.ops[SIM_OP_MLP_ALLREDUCE].present);
    /* weights per GPU: attention, dense layers and tables whole; every routed and shared
     * expert a 1/8 slice: the same expert bytes as EP 8 (whole experts, 32 of 256), the shared
     * experts 1/8 instead of whole: 58 x 3 x 7168 x 2048 x 7/8 fewer parameters */
    sim_par ep8 = {.tp = 1, .ep = 8, .dp_attention = true, .imbalance = 1.0};
    assert_near(sim_graph_weight_bytes_par(&m, &ep8, &BF16) - sim_graph_weight_bytes_par(&m, &p, &BF16),
                2.0 * 58 * 3 * 7168 * 2048 * 7.0 / 8.0, 1e-12);
    /* the KV cache: a token's latent on one GPU, as with EP */
    assert_near(sim_graph_kv_bytes_per_token_par(&m, &p, &BF16), 70272.0 / 8, 0);
}

static void test_scale_bytes(void **state)
{
    (void)state;
    /* 8B gate_up on one GPU: N = 2 x 14336 = 28672, K = 4096: 117,440,512 weights.
     * AWQ int4, G = 128, zeros: 0.5 + (2 + 0.5)/128 = 0.51953125 B -> 61,014,016 B;
     * GPTQ int4 per channel (G = 0): 0.5 B -> 58,720,256 B; NVFP4: 0.5 + 1/16 = 0.5625 B ->
     * 66,060,288 B; MXFP4: 0.5 + 1/32 = 0.53125 B -> 62,390,272 B; full int8 (per-channel scales,
     * not counted): 1 B. W4A8 (int4 weights, fp8 math) keeps its group scales: 0.515625 B. */
    sim_model m = tu_model("llama-3.1-8b");
    const double w = 28672.0 * 4096.0;
    sim_prec awq = {SIM_DT_INT4, SIM_DT_BF16, SIM_DT_BF16, 128, true, false};
    assert_near(decode(&m, 1, &awq, 1, 0).ops[SIM_OP_GATE_UP_PROJ].weight_bytes, 61014016.0, 0);
    assert_near(w * 0.51953125, 61014016.0, 0);
    sim_prec ch = {SIM_DT_INT4, SIM_DT_BF16, SIM_DT_BF16, 0, false, false};
    assert_near(decode(&m, 1, &ch, 1, 0).ops[SIM_OP_GATE_UP_PROJ].weight_bytes, 58720256.0, 0);
    sim_prec nv = {SIM_DT_FP4, SIM_DT_FP4, SIM_DT_BF16, 128, false, false};
    assert_near(decode(&m, 1, &nv, 1, 0).ops[SIM_OP_GATE_UP_PROJ].weight_bytes, 66060288.0, 0);
    sim_prec mx = {SIM_DT_MXFP4, SIM_DT_BF16, SIM_DT_BF16, 128, false, false};
    assert_near(decode(&m, 1, &mx, 1, 0).ops[SIM_OP_GATE_UP_PROJ].weight_bytes, 62390272.0, 0);
    sim_prec i8 = {SIM_DT_INT8, SIM_DT_INT8, SIM_DT_BF16, 128, false, false};
    assert_near(decode(&m, 1, &i8, 1, 0).ops[SIM_OP_GATE_UP_PROJ].weight_bytes, w, 0);
    sim_prec w4a8 = {SIM_DT_INT4, SIM_DT_FP8, SIM_DT_BF16, 128, false, false};
    sim_graph g = decode(&m, 1, &w4a8, 1, 0);
    assert_near(g.ops[SIM_OP_GATE_UP_PROJ].weight_bytes, w * 0.515625, 0);
    assert_true(g.ops[SIM_OP_GATE_UP_PROJ].weight_only); /* mixed-input kernel */
    assert_int_equal(g.ops[SIM_OP_GATE_UP_PROJ].compute, SIM_DT_FP8);
    /* the memory plan counts the same scales: layer GEMM weights x 0.51953125 + 16-bit rest;
     * 8B per layer: d (q 4096 + kv 2048) + 4096 x 4096 + 3 x 4096 x 14336 = 218,103,808 */
    double layer = 218103808.0;
    double rest = sim_graph_weight_bytes_per_gpu(&m, 1, &BF16) - 32.0 * layer * 2.0;
    assert_near(sim_graph_weight_bytes_per_gpu(&m, 1, &awq), rest + 32.0 * layer * 0.51953125,
                1e-12);
    /* an fp4 KV cache carries its block scales: 0.5625 B per element */
    sim_prec kv4 = {SIM_DT_FP4, SIM_DT_FP4, SIM_DT_FP4, 0, false, false};
    assert_near(sim_graph_kv_bytes_per_token(&m, 1, &kv4), 2.0 * 32 * 8 * 128 * 0.5625, 0);
}

static void test_act_quant_op(void **state)
{
    (void)state;
    /* fp8 activations, 8B decode of 16 tokens: the attention output (16 x 32 heads x 128 =
     * 65,536 elements) is read in bf16, written in fp8, plus one fp32 scale per token:
     * 65,536 x 3 + 16 x 4 = 196,672 B; 3 FLOPs per element = 196,608. bf16: no such op. */
    sim_model m = tu_model("llama-3.1-8b");
    sim_prec f8 = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 128, false, false};
    const sim_op *q = &decode(&m, 1, &f8, 16, 100).ops[SIM_OP_ACT_QUANT];
    assert_true(q->present);
    assert_near(q->act_bytes, 196672.0, 0);
    assert_near(q->flops, 196608.0, 0);
    assert_string_equal(sim_op_info(SIM_OP_ACT_QUANT)->name, "act_quant");
    assert_false(decode(&m, 1, &BF16, 16, 100).ops[SIM_OP_ACT_QUANT].present);
}

static void test_dp_slowest_group(void **state)
{
    (void)state;
    sim_model m = tu_model("deepseek-v3");
    /* four decodes of requests 0..3 over 2 groups, round-robin: group 0 holds requests 0 and 2
     * (contexts 1000, 1000), group 1 requests 1 and 3 (1000, 9000). Weighting the cached tokens
     * read only, group 1 is the slowest: 1001 + 9001 = 10002 keys, 2 tokens, 2 sequences */
    sim_seq_group g[4];
    const int64_t ctx[4] = {1000, 1000, 1000, 9000};
    for (int i = 0; i < 4; i++)
        g[i] = (sim_seq_group){.count = 1, .q = 1, .c = ctx[i], .logits = 1, .rank = i};
    const double kv_only[3] = {0, 0, 1};
    sim_batch_shape b;
    assert_true(sim_graph_shape_dp(&m, g, 4, 2, kv_only, &b));
    assert_near(b.kv_tokens, 10002.0, 1e-12);
    assert_near(b.tokens, 2.0, 1e-12);
    assert_near(b.seqs, 2.0, 1e-12);
    assert_near(b.dec_kv_tokens, 10002.0, 1e-12);
    /* a group of 5 identical sequences from group 1 over 2 groups: 1, 0, 1, 0, 1 -> group 1
     * holds 3, group 0 holds 2; by tokens, group 1 */
    sim_seq_group five = {.count = 5, .q = 1, .c = 100, .logits = 1, .rank = 1};
    const double tok_only[3] = {1, 0, 0};
    assert_true(sim_graph_shape_dp(&m, &five, 1, 2, tok_only, &b));
    assert_near(b.seqs, 3.0, 1e-12);
    assert_near(b.kv_tokens, 3.0 * 101, 1e-12);
    /* a prefill on one group outweighs decodes on the others */
    sim_seq_group mix[3] = {{.count = 1, .q = 1, .c = 5000, .logits = 1, .rank = 0},
                            {.count = 1, .q = 2048, .c = 0, .logits = 1, .rank = 1},
                            {.count = 1, .q = 1, .c = 5000, .logits = 1, .rank = 2}};
    const double w[3] = {1.0, 0.01, 0.001};
    assert_true(sim_graph_shape_dp(&m, mix, 3, 4, w, &b));
    assert_near(b.tokens, 2048.0, 1e-12);
    assert_near(b.dec_tokens, 0.0, 0);
    /* the graph runs that group's attention side: q_up over its 2048 tokens, not 2050 / 4 */
    sim_batch_shape s = sim_graph_shape(&m, mix, 3);
    s.busiest = &b;
    sim_par p = {.tp = 1, .ep = 4, .dp_attention = true, .imbalance = 1.0};
    const sim_prec fp8 = {SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16, 0, false, false};
    sim_graph gr;
    sim_graph_build_par(&m, &p, &fp8, &s, &gr);
    assert_int_equal(gr.ops[SIM_OP_Q_UP].m, 2048);
    /* the MoE side still routes all 2050 tokens: 2050 / 4 per EP rank, rounded up */
    assert_int_equal(gr.ops[SIM_OP_ROUTER].m, 513);
    /* the step's barrier: an all-gather of 6 int64 per GPU over the 4 GPUs */
    const sim_op *sync = &gr.ops[SIM_OP_DP_SYNC];
    assert_true(sync->present && sync->net_kind == SIM_COLL_ALLGATHER && sync->net_ranks == 4);
    assert_near(sync->net_msg_bytes, 4 * 48.0, 1e-12);
    /* no group holds a sequence, or one group: nothing to pick */
    assert_false(sim_graph_shape_dp(&m, g, 0, 2, w, &b));
    assert_false(sim_graph_shape_dp(&m, g, 4, 1, w, &b));
    /* without data-parallel attention there is no barrier */
    sim_graph_build_par(&m, &(sim_par){.tp = 8, .ep = 8, .imbalance = 1.0}, &fp8, &s, &gr);
    assert_false(gr.ops[SIM_OP_DP_SYNC].present);
    /* quantized experts run the quantized family (graph.h), 16-bit ones moe_kernel */
    const sim_par two = {.tp = 8, .ep = 1, .imbalance = 1.0, .moe_kernel = SIM_MOE_TRITON,
                         .moe_kernel_quantized = SIM_MOE_CUTLASS};
    sim_graph_build_par(&m, &two, &fp8, &s, &gr);
    assert_int_equal(gr.ops[SIM_OP_EXPERTS_GATE_UP].moe_kernel, SIM_MOE_CUTLASS);
    assert_int_equal(gr.ops[SIM_OP_EXPERTS_DOWN].moe_kernel, SIM_MOE_CUTLASS);
    sim_graph_build_par(&m, &two, &BF16, &s, &gr);
    assert_int_equal(gr.ops[SIM_OP_EXPERTS_GATE_UP].moe_kernel, SIM_MOE_TRITON);
}

/* The linear mixer's ops, by hand (graph_linear.c's formulas), bf16, TP 1.
 * Qwen3-Next (GDN: 16 q/k heads, 32 v heads, 128 x 128 state per v head, conv channels 8192,
 * kernel 4, chunk 64), one decode at context 4096:
 *   in_proj n = 8192 + 4096 (z) + 64 (beta, a) = 12,352: 2 x 12,352 x 2048 = 50,593,792 FLOPs
 *   conv 8192 x (2 x 4 + 4) = 98,304 FLOPs, its state 3 x 8192 x 2 B = 49,152 B read and written
 *   scan 32 x 7 x 128 x 128 = 3,670,016 FLOPs; the state 32 x 128 x 128 x 2 = 1,048,576 B read
 *   and written; inputs and output 12,352 x 2 = 24,704 B; kernels: recurrent + gating = 2
 * One prefill of 1000 tokens: 182,954.67 FLOPs per token and head (6 x 16,384 + 64 x (6 x 128 +
 *   4 x 128) + 2 x 64^2 / 3): 1000 x 32 x that = 5,854,549,333 FLOPs; bytes 1000 x 12,352 x 2
 *   (inputs, output) + 2 x 1000 x 32 x 64 x 2 (A) + (1000 / 64 + 1) x 524,288 x 2 x 2 (chunk
 *   states) + 2 x 1000 x 32 x 256 x 2 (w, u) = 24,704,000 + 8,192,000 + 34,865,152 + 32,768,000
 *   = 100,529,152; kernels 6 + gating = 7.
 * Nemotron-Nano-9B-v2 (Mamba-2: 8 groups, 128 heads of 80, state 128, chunk 128), one prefill of
 *   1024: per token and head 4 x 128 x 80 + 2 x 128 x 80 + 2 x 128 x 128 x 8 / 128 + 2 x 128 x
 *   80 / 128 = 40,960 + 20,480 + 2,048 + 160 = 63,648; x 128 x 1024 = 8,342,470,656 FLOPs; bytes
 *   1024 x (12,288 + 128 + 10,240) x 2 + 2 x 1024 x 8 x 128 x 2 + (8 + 1) chunks x 1,310,720 x
 *   4 fp32 passes x 4 B = 46,399,488 + 4,194,304 + 188,743,680 = 239,337,472; one decode:
 *   128 x 5 x 128 x 80 = 6,553,600 FLOPs, state 1,310,720 x 2 = 2,621,440 B. */
static void test_linear_mixer(void **state)
{
    (void)state;
    sim_model q = tu_model("qwen3-next-80b-a3b");
    sim_graph g = decode(&q, 1, &BF16, 1, 4096);
    assert_int_equal(g.repeats[SIM_OP_LINEAR_SCAN], 36);
    assert_int_equal(g.repeats[SIM_OP_ATTENTION], 12);
    assert_int_equal(g.repeats[SIM_OP_QKV_PROJ], 12);
    assert_int_equal(g.repeats[SIM_OP_ATTN_NORM], 48);
    assert_int_equal(g.repeats[SIM_OP_MLP_NORM], 48);
    assert_int_equal(g.ops[SIM_OP_QKV_PROJ].n, (2 * 16 + 2 * 2) * 256); /* query and gate */
    assert_near(g.ops[SIM_OP_LINEAR_IN_PROJ].flops, 50593792.0, 1e-12);
    assert_near(g.ops[SIM_OP_LINEAR_CONV].flops, 98304.0, 1e-12);
    assert_near(g.ops[SIM_OP_LINEAR_CONV].kv_read_bytes, 49152.0, 1e-12);
    const sim_op *scan = &g.ops[SIM_OP_LINEAR_SCAN];
    assert_near(scan->flops, 3670016.0, 1e-12);
    assert_near(scan->kv_read_bytes, 1048576.0, 1e-12);
    assert_near(scan->kv_write_bytes, 1048576.0, 1e-12);
    assert_near(scan->act_bytes, 24704.0, 1e-12);
    assert_int_equal(scan->kernels, 2);
    /* the state does not grow with the context: a decode at 128K moves the same bytes */
    sim_graph far = decode(&q, 1, &BF16, 1, 131072);
    assert_near(far.ops[SIM_OP_LINEAR_SCAN].kv_read_bytes, scan->kv_read_bytes, 0);
    assert_true(far.ops[SIM_OP_ATTENTION].kv_read_bytes > 30.0 * g.ops[SIM_OP_ATTENTION].kv_read_bytes);

    /* a speculative verify of 3 tokens (logits at each) at context 4096: the recurrent kernel
     * stores the state after each token (vLLM fused_recurrent.py), 3 x 1,048,576 B written and
     * one read; a 3-token prompt chunk (one logit) still writes one */
    sim_seq_group ver = {.count = 1, .q = 3, .c = 4096, .logits = 3};
    sim_graph_build(&q, 1, &BF16, &ver, 1, &g);
    assert_near(g.ops[SIM_OP_LINEAR_SCAN].kv_write_bytes, 3.0 * 1048576.0, 1e-12);
    assert_near(g.ops[SIM_OP_LINEAR_SCAN].kv_read_bytes, 1048576.0, 1e-12);
    ver.logits = 1;
    sim_graph_build(&q, 1, &BF16, &ver, 1, &g);
    assert_near(g.ops[SIM_OP_LINEAR_SCAN].kv_write_bytes, 1048576.0, 1e-12);

    sim_seq_group pre = {.count = 1, .q = 1000, .c = 0, .logits = 1};
    sim_graph_build(&q, 1, &BF16, &pre, 1, &g);
    assert_near(g.ops[SIM_OP_LINEAR_SCAN].flops, 1000.0 * 32.0 * (6.0 * 16384.0 + 64.0 * 1280.0 +
                                                                   2.0 * 4096.0 / 3.0),
                1e-12);
    assert_near(g.ops[SIM_OP_LINEAR_SCAN].act_bytes, 100529152.0, 1e-12);
    assert_int_equal(g.ops[SIM_OP_LINEAR_SCAN].kernels, 7);

    sim_model n = tu_model("nemotron-nano-9b-v2");
    pre.q = 1024;
    sim_graph_build(&n, 1, &BF16, &pre, 1, &g);
    assert_near(g.ops[SIM_OP_LINEAR_SCAN].flops, 8342470656.0, 1e-12);
    assert_near(g.ops[SIM_OP_LINEAR_SCAN].act_bytes, 239337472.0, 1e-12);
    assert_int_equal(g.repeats[SIM_OP_LINEAR_SCAN], 27);
    assert_int_equal(g.repeats[SIM_OP_ATTENTION], 4);
    assert_int_equal(g.repeats[SIM_OP_GATE_UP_PROJ], 25);
    assert_int_equal(g.repeats[SIM_OP_ATTN_NORM], 31);
    assert_int_equal(g.repeats[SIM_OP_MLP_NORM], 25);
    assert_int_equal(g.ops[SIM_OP_GATE_UP_PROJ].n, 15680); /* up only: relu2, no gate */
    g = decode(&n, 1, &BF16, 1, 4096);
    assert_near(g.ops[SIM_OP_LINEAR_SCAN].flops, 6553600.0, 1e-12);
    assert_near(g.ops[SIM_OP_LINEAR_SCAN].kv_read_bytes, 2621440.0, 1e-12);
    /* every layer's ops sum to the repeats in the timeline's layer placement */
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        if (!sim_op_info((sim_op_id)i)->per_layer)
            continue;
        int64_t in = 0;
        for (int64_t l = 0; l < g.layers; l++)
            in += sim_graph_op_in_layer(&g, (sim_op_id)i, l);
        assert_int_equal(in, g.repeats[i]);
    }
    /* TP must divide the heads and groups of the linear layers */
    sim_err err = {{0}};
    assert_int_equal(sim_graph_check(&n, 16, &BF16, &err), SIM_EINPUT);
    /* weights per GPU: the parameter count at 2 bytes (no vision tower) */
    assert_near(sim_graph_weight_bytes_per_gpu(&n, 1, &BF16), 2.0 * sim_model_params(&n), 1e-12);
    assert_near(sim_graph_weight_bytes_per_gpu(&q, 1, &BF16), 2.0 * sim_model_params(&q), 1e-12);
    /* KV per token: the attention layers only, 12 x 2 x 2 x 256 x 2 and 4 x 2 x 8 x 128 x 2 */
    assert_near(sim_graph_kv_bytes_per_token(&q, 1, &BF16), 24576.0, 0);
    assert_near(sim_graph_kv_bytes_per_token(&n, 1, &BF16), 16384.0, 0);
    assert_near(sim_graph_linear_state_bytes(&q, 1, &BF16), 1097728.0, 0);
    assert_near(sim_graph_linear_state_bytes(&n, 1, &BF16), 2695168.0, 0);
}

/* DeepSeek Sparse Attention, TP 8, bf16 KV (graph_dsa.c, graph_build.c): a decode attends to
 * min(context, 2048) latents, so the sparse MLA's FLOPs and bytes are flat past 2048: 2 x 16
 * heads x (2 x 512 + 64) x 2048 = 71,303,168 FLOPs and 2048 x 576 x 2 = 2,359,296 B read at 8K
 * and at 128K alike (dense MLA at 128K reads 131,072 x 576 x 2 = 150,994,944 B). The indexer
 * scores every key: at 128K, 131,072 x (2 x 64 x 128 + 2 x 64) = 2,164,260,864 FLOPs and
 * 131,072 x 132 = 17,301,504 B of keys; 16x at 128K what it is at 8K. KV per token per GPU:
 * 61 x (576 x 2 + 132) = 78,324 B. */
static void test_dsa_flat_past_topk(void **state)
{
    (void)state;
    sim_model m = tu_model("deepseek-v3.2");
    sim_graph g8 = decode(&m, 8, &BF16, 1, 8191), g128 = decode(&m, 8, &BF16, 1, 131071);
    assert_near(g8.ops[SIM_OP_ATTENTION].flops, 71303168.0, 1e-12);
    assert_near(g128.ops[SIM_OP_ATTENTION].flops, 71303168.0, 1e-12);
    assert_near(g8.ops[SIM_OP_ATTENTION].kv_read_bytes, 2359296.0, 1e-12);
    assert_near(g128.ops[SIM_OP_ATTENTION].kv_read_bytes, 2359296.0, 1e-12);
    assert_near(g128.ops[SIM_OP_INDEXER].flops, 2164260864.0, 1e-12);
    assert_near(g128.ops[SIM_OP_INDEXER].kv_read_bytes, 17301504.0, 1e-12);
    assert_near(g128.ops[SIM_OP_INDEXER].kv_read_bytes / g8.ops[SIM_OP_INDEXER].kv_read_bytes,
                16.0, 1e-12);
    assert_int_equal(g128.repeats[SIM_OP_INDEXER], 61);
    assert_near(sim_graph_kv_bytes_per_token(&m, 8, &BF16), 78324.0, 0);
    /* dense MLA (DeepSeek-V3) grows with the context; it has no indexer */
    sim_model v3 = tu_model("deepseek-v3");
    sim_graph d128 = decode(&v3, 8, &BF16, 1, 131071);
    assert_near(d128.ops[SIM_OP_ATTENTION].kv_read_bytes, 150994944.0, 1e-12);
    assert_int_equal(d128.repeats[SIM_OP_INDEXER], 0);
    assert_false(d128.ops[SIM_OP_INDEXER].present);
    /* a prefill chunk runs absorbed over capped pairs too: 4096 new tokens see 1..2048 keys
     * (2048 x 2049 / 2 + 2048 x 2048 = 6,292,480 pairs), the indexer all 4096 x 4097 / 2 */
    sim_seq_group pre = {.count = 1, .q = 4096, .c = 0, .logits = 1};
    sim_graph p;
    sim_graph_build(&m, 8, &BF16, &pre, 1, &p);
    assert_near(p.ops[SIM_OP_ATTENTION].flops, 2.0 * 16.0 * 1088.0 * 6292480.0, 1e-12);
    assert_near(p.ops[SIM_OP_INDEXER].flops, 4096.0 * 4097.0 / 2.0 * 16512.0, 1e-12);
}

/* The vision encoder's FLOPs for one 1280 x 720 image on Qwen2.5-VL-72B at TP 1 (4784 patches,
 * 1196 merged tokens; test_model.c's hand count of the grid):
 *   patch embedding 2 x 4784 x 1176 x 1280 = 14,402,519,040
 *   a layer's GEMMs 2 x 4784 x 1280 x (3840 + 1280 + 6912) + 2 x 4784 x 3456 x 1280
 *     = 147,356,385,280 + 42,325,770,240 = 189,682,155,520, x 32
 *   attention 4 x 16 heads x 80 x pairs: full 5120 x 22,886,656 in 4 layers, windowed
 *     5120 x 288,000 in 28
 *   merger 2 x 1196 x 5120 x 5120 + 2 x 1196 x 5120 x 8192
 *   norms 4 FLOPs x 4784 x 1280 x 65, the SwiGLU 5 x 4784 x 3456 x 32
 * = 6,761,507,962,880 in all; and at TP 4 the heads and the MLP split four ways, the patch
 * embedding replicated, 64 all-reduces of 4784 x 1280 x 2 B. Without images: no vision op. */
static void test_vision_encoder(void **state)
{
    (void)state;
    sim_model m = tu_model("qwen2.5-vl-72b");
    const double P = 4784.0, M = 1196.0;
    const double layer = 2 * P * 1280 * (3840 + 1280 + 6912) + 2 * P * 3456 * 1280;
    const double want = 2 * P * 1176 * 1280 + 32 * layer + 4 * 5120 * P * P + 28 * 5120 * 288000.0 +
                        2 * M * 5120 * 5120 + 2 * M * 5120 * 8192 + 4 * P * 1280 * 65 +
                        5 * P * 3456 * 32;
    assert_near(want, 6761507962880.0, 1e-15);
    sim_seq_group g = {.count = 1, .q = 1296, .c = 0, .logits = 1, .images = 1,
                       .image_w = 1280, .image_h = 720};
    sim_graph gr;
    sim_graph_build(&m, 1, &BF16, &g, 1, &gr);
    double flops = 0.0;
    for (int i = SIM_OP_VISION_PATCH_EMBED; i <= SIM_OP_VISION_PROJ; i++)
        if (gr.ops[i].present)
            flops += gr.ops[i].flops * (double)gr.repeats[i];
    assert_near(flops, 6761507962880.0, 1e-12);
    assert_false(gr.ops[SIM_OP_VISION_ALLREDUCE].present);
    assert_false(gr.ops[SIM_OP_VISION_PROJ].present);
    assert_int_equal(gr.repeats[SIM_OP_VISION_ATTENTION], 4);
    assert_int_equal(gr.repeats[SIM_OP_VISION_ATTENTION_WINDOW], 28);
    sim_graph_build(&m, 4, &BF16, &g, 1, &gr);
    assert_near(gr.ops[SIM_OP_VISION_QKV].flops, 2 * P * 1280 * 960, 1e-12);
    assert_near(gr.ops[SIM_OP_VISION_PATCH_EMBED].flops, 2 * P * 1176 * 1280, 1e-12);
    assert_true(gr.ops[SIM_OP_VISION_ALLREDUCE].present);
    assert_int_equal(gr.repeats[SIM_OP_VISION_ALLREDUCE], 64);
    assert_near(gr.ops[SIM_OP_VISION_ALLREDUCE].net_msg_bytes, P * 1280 * 2, 1e-12);
    g.images = 0;
    sim_graph_build(&m, 4, &BF16, &g, 1, &gr);
    for (int i = SIM_OP_VISION_PATCH_EMBED; i <= SIM_OP_VISION_PROJ; i++)
        assert_false(gr.ops[i].present);
}

/* graph.h sim_graph_block_quant: a block-scaled fp8 GEMM's input quantization kernels. DeepSeek-V3
 * at TP 8, one decode token, fp8 weights and activations with 128 x 128 blocks, bf16 residual:
 * q_down (the fused q_a / kv_a input, K 7168) gains one kernel and 7168 x (2 + 1) + 56 x 4 =
 * 21,728 B; kv_down none (the same input); q_up and the shared expert (2 inputs) gain theirs; the
 * expert GEMMs keep their own; kv_up and the 16-bit router none; a bf16 graph none. */
static void test_block_quant_kernels(void **state)
{
    (void)state;
    sim_model m = tu_model("deepseek-v3");
    const sim_prec fp8 = {.weight = SIM_DT_FP8, .act = SIM_DT_FP8, .kv = SIM_DT_BF16,
                          .block_scaled = true};
    sim_graph g = decode(&m, 8, &fp8, 1, 100), b = g;
    sim_graph_block_quant(&b, 2.0);
    const sim_op *q0 = &g.ops[SIM_OP_Q_DOWN], *q1 = &b.ops[SIM_OP_Q_DOWN];
    assert_true(q0->block_scaled);
    assert_int_equal(q1->kernels, 3);
    assert_int_equal(q1->quant_kernels, 1);
    assert_near(q1->act_bytes - q0->act_bytes, 21728.0, 1e-9);
    assert_int_equal(b.ops[SIM_OP_KV_DOWN].quant_kernels, 0);
    assert_int_equal(b.ops[SIM_OP_Q_UP].quant_kernels, 1);
    assert_int_equal(b.ops[SIM_OP_SHARED_EXPERT].quant_kernels, 2);
    assert_int_equal(b.ops[SIM_OP_SHARED_EXPERT].kernels, 5);
    /* the Triton fused_moe's quantizations are its own, already among its two kernels */
    assert_int_equal(g.ops[SIM_OP_EXPERTS_GATE_UP].quant_kernels, 1);
    assert_int_equal(b.ops[SIM_OP_EXPERTS_GATE_UP].kernels, 2);
    assert_int_equal(b.ops[SIM_OP_EXPERTS_DOWN].kernels, 2);
    assert_int_equal(b.ops[SIM_OP_KV_UP].quant_kernels, 0);
    assert_int_equal(b.ops[SIM_OP_ROUTER].quant_kernels, 0);
    /* applied twice, it adds nothing more */
    sim_graph c = b;
    sim_graph_block_quant(&c, 2.0);
    assert_int_equal(c.ops[SIM_OP_Q_DOWN].kernels, 3);
    assert_near(c.ops[SIM_OP_Q_DOWN].act_bytes, q1->act_bytes, 0);
    /* 16-bit weights: no block-scaled GEMM, nothing added */
    sim_graph h = decode(&m, 8, &BF16, 1, 100), h2 = h;
    sim_graph_block_quant(&h2, 2.0);
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        assert_int_equal(h2.ops[i].kernels, h.ops[i].kernels);
        assert_int_equal(h2.ops[i].quant_kernels, h.ops[i].quant_kernels);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale_bytes),
        cmocka_unit_test(test_act_quant_op),
        cmocka_unit_test(test_matmul_intensity_is_tokens),
        cmocka_unit_test(test_decode_attention_seed_numbers),
        cmocka_unit_test(test_attention_intensity_does_not_grow_with_batch),
        cmocka_unit_test(test_prefill_attention_is_causal),
        cmocka_unit_test(test_attention_pairs),
        cmocka_unit_test(test_kv_heads_replicated),
        cmocka_unit_test(test_tp_checks),
        cmocka_unit_test(test_precision_checks),
        cmocka_unit_test(test_quantization_moves_the_critical_batch),
        cmocka_unit_test(test_allreduce_bytes),
        cmocka_unit_test(test_weight_bytes),
        cmocka_unit_test(test_mxfp4_quantizes_only_the_experts),
        cmocka_unit_test(test_qk_norm),
        cmocka_unit_test(test_experts_touched),
        cmocka_unit_test(test_moe_decode_weights_grow_with_batch),
        cmocka_unit_test(test_expert_parallel_all_to_all),
        cmocka_unit_test(test_mla),
        cmocka_unit_test(test_node_limited_dispatch),
        cmocka_unit_test(test_sliding_and_full_layers),
        cmocka_unit_test(test_parallel_checks),
        cmocka_unit_test(test_attention_flops),
        cmocka_unit_test(test_moe_slice),
        cmocka_unit_test(test_dp_attention_tp_moe),
        cmocka_unit_test(test_dp_slowest_group),
        cmocka_unit_test(test_linear_mixer),
        cmocka_unit_test(test_dsa_flat_past_topk),
        cmocka_unit_test(test_vision_encoder),
        cmocka_unit_test(test_block_quant_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
