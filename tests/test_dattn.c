/* test_dattn.c - decode attention kernels' launches and CTA bound against hand calculations. */
#include "testutil.h"

#include "cost.h"
#include "dattn.h"
#include "engprof.h"

/* The whole of a small text file (freed by the caller). */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 16);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    assert_true(n > 0 && n < (1 << 16) - 1);
    return buf;
}

/* The fixture H100 (132 SMs) with a decode CTA rate of `gb_per_s`. */
static sim_hw fixture_at(double gb_per_s)
{
    sim_hw hw = tu_fixture_hw();
    hw.decode_cta_bytes_per_s = gb_per_s * 1e9;
    return hw;
}

/* Llama-3.1-8B's attention on one of tp GPUs: 32 / tp query heads, 8 / tp KV heads, 128 dims. */
static sim_dattn_shape llama8b(int tp, double seqs, double ctx, double kv_bytes)
{
    return (sim_dattn_shape){.seqs = seqs,
                             .ctx = ctx,
                             .q_heads = 32 / tp,
                             .kv_heads = 8 / tp,
                             .head_dim = 128,
                             .kv_elem_bytes = kv_bytes};
}

/* TensorRT-LLM 0.11 at batch 1: XQA needs 8 KV heads x 1 x 4 = 32 >= 132 SMs, no: masked MHA,
 * 32 CTAs, each streaming K and V of one head over 1536 tokens: 1536 x 2 x 128 x 2 B =
 * 786,432 B at 20 GB/s = 39.3216 us, in one wave. At TP 4: 8 CTAs, the same 39.3216 us (the
 * time does not fall with TP). At batch 64: 8 x 64 x 4 = 2048 >= 132: XQA, no CTA bound. */
static void test_trtllm_011(void **state)
{
    (void)state;
    sim_hw hw = fixture_at(20.0);
    sim_dattn_shape s = llama8b(1, 1, 1536, 2);
    sim_dattn_launch l = sim_dattn_plan(&hw, SIM_DATTN_TRTLLM_011, &s);
    assert_near(l.ctas, 32.0, 0);
    assert_near(l.cta_bytes, 786432.0, 0);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_TRTLLM_011, &s), 39321.6, 1e-9);
    s = llama8b(4, 1, 1536, 2);
    assert_near(sim_dattn_plan(&hw, SIM_DATTN_TRTLLM_011, &s).ctas, 8.0, 0);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_TRTLLM_011, &s), 39321.6, 1e-9);
    s = llama8b(1, 64, 1536, 2);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_TRTLLM_011, &s), 0.0, 0);
    /* split kernels and steps without decodes have no CTA bound */
    s = llama8b(1, 1, 1536, 2);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_SPLIT, &s), 0.0, 0);
    s.seqs = 0;
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_FA2, &s), 0.0, 0);
}

/* vLLM PagedAttention over an fp8 cache (1 B per value), 32 heads, 1536 tokens: 3 partitions.
 * A CTA converts each fp8 value to 16 bits: it takes as long as over a 16-bit cache (x 2).
 *   batch 64: 2048 (seq, head) pairs > 512: V1, 2048 CTAs of 1536 x 256 x 1 = 393,216 B; two
 *     resident per SM: ceil(2048 / 264) = 8 waves x 786,432 B (16-bit) / 20 GB/s = 314.5728 us
 *   batch 1: 32 pairs <= 512 and 3 partitions: V2, 96 CTAs of 512 tokens (131,072 B), one wave:
 *     13.1072 us
 *   batch 64 over 9000 tokens (> 8192): V2, 18 partitions of 512 tokens (the last 296):
 *     36,864 CTAs, the longest 512 x 256 x 1 = 131,072 B, ceil(36864 / 264) = 140 waves x
 *     13.1072 us = 1835.008 us (issue 33 D9: the mean partition, 500 tokens, priced 1792 us)
 * and over a 16-bit cache batch 64 / 1536 tokens is the same 314.5728 us. */
static void test_vllm_paged(void **state)
{
    (void)state;
    sim_hw hw = fixture_at(20.0);
    sim_dattn_shape s = llama8b(1, 64, 1536, 1);
    sim_dattn_launch l = sim_dattn_plan(&hw, SIM_DATTN_VLLM_PAGED, &s);
    assert_near(l.ctas, 2048.0, 0);
    assert_int_equal(l.resident, 2);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_VLLM_PAGED, &s), 314572.8, 1e-9);
    s.kv_elem_bytes = 2;
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_VLLM_PAGED, &s), 314572.8, 1e-9);
    s = llama8b(1, 1, 1536, 1);
    assert_near(sim_dattn_plan(&hw, SIM_DATTN_VLLM_PAGED, &s).ctas, 96.0, 0);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_VLLM_PAGED, &s), 13107.2, 1e-9);
    s = llama8b(1, 64, 9000, 1);
    l = sim_dattn_plan(&hw, SIM_DATTN_VLLM_PAGED, &s);
    assert_near(l.ctas, 36864.0, 0);
    assert_near(l.cta_bytes, 131072.0, 1e-12);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_VLLM_PAGED, &s), 1835008.0, 1e-9);
    /* forced V2 under one partition: a CTA is the whole (shorter) context */
    s = llama8b(1, 1, 300, 1);
    assert_near(sim_dattn_plan(&hw, SIM_DATTN_VLLM_PAGED_V2, &s).cta_bytes, 300.0 * 256.0, 1e-12);
}

/* FlashAttention-2 without split on an A100 (108 SMs, 312 TFLOP/s x efficiency.attention
 * 0.5756: 1.662844 TFLOP/s per SM), 16 query heads of 128: each CTA pads its one query row to
 * the 128-row tile and computes 4 x 128 x ctx x 128 FLOPs.
 *   batch 1 over 65,536 tokens: 16 CTAs of 4,294,967,296 FLOPs: 2582.90 us, one wave
 *     (Flash-Decoding's blog measured 2300.6 us)
 *   batch 16 over 4096: 256 CTAs of 268,435,456 FLOPs, ceil(256 / 108) = 3 waves: 484.29 us
 *     (measured 401.7) */
static void test_fa2(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    hw.compute_units = 108;
    hw.peak_flops[SIM_DT_BF16] = 312e12;
    hw.eff_attention = 0.5756;
    const double sm = 312e12 * 0.5756 / 108.0;
    sim_dattn_shape s = {
        .seqs = 1, .ctx = 65536, .q_heads = 16, .kv_heads = 2, .head_dim = 128, .kv_elem_bytes = 2};
    assert_near(sim_dattn_plan(&hw, SIM_DATTN_FA2, &s).cta_flops, 4294967296.0, 0);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_FA2, &s), 4294967296.0 / sm * 1e9, 1e-9);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_FA2, &s), 2582903.8, 1e-6);
    s.seqs = 16;
    s.ctx = 4096;
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_FA2, &s), 3.0 * 268435456.0 / sm * 1e9, 1e-9);
    /* with A100's softmax exponentials priced apart (2.4365e12 per s: 108 SMs x 16 per clock x
     * 1410 MHz, 22.560 G per SM) and the MMAs at 0.8083: batch 1 over 65,536 tokens, one CTA's
     * 128 x 65,536 = 8,388,608 scores take 371.83 us beside 4,294,967,296 FLOPs at
     * 312e12 x 0.8083 / 108 = 2.335089 TFLOP/s per SM, 1839.31 us: 2211.15 us, one wave
     * (measured 2300.6 us; 2582.90 above without the term) */
    hw.attn_exp_per_s = 2.4365e12;
    hw.eff_attention = 0.8083;
    s.seqs = 1;
    s.ctx = 65536;
    const double sm8 = 312e12 * 0.8083 / 108.0;
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_FA2, &s),
                (4294967296.0 / sm8 + 8388608.0 / (2.4365e12 / 108.0)) * 1e9, 1e-9);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_FA2, &s), 2211149.0, 2.0);
}

/* vLLM's benchmark forces a version: V1 at batch 1 over 1024 tokens runs 64 CTAs of the whole
 * context (524,288 B), V2 128 CTAs of 512 tokens; both one wave: 26.2144 and 13.1072 us at
 * 20 GB/s. */
static void test_vllm_forced_versions(void **state)
{
    (void)state;
    sim_hw hw = fixture_at(20.0);
    sim_dattn_shape s = {
        .seqs = 1, .ctx = 1024, .q_heads = 64, .kv_heads = 8, .head_dim = 128, .kv_elem_bytes = 2};
    assert_near(sim_dattn_plan(&hw, SIM_DATTN_VLLM_PAGED_V1, &s).ctas, 64.0, 0);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_VLLM_PAGED_V1, &s), 26214.4, 1e-9);
    assert_near(sim_dattn_plan(&hw, SIM_DATTN_VLLM_PAGED_V2, &s).ctas, 128.0, 0);
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_VLLM_PAGED_V2, &s), 13107.2, 1e-9);
    /* the automatic choice: 64 pairs <= 512 and 2 partitions: V2 */
    assert_near(sim_dattn_cta_ns(&hw, SIM_DATTN_VLLM_PAGED, &s), 13107.2, 1e-9);
}

/* The op's memory time is the larger of the HBM bound and the CTA bound: a batch-1 decode over
 * 1536 tokens reads 1536 x 8 heads x 2 x 128 x 2 B = 6,291,456 B, at 3.35e12 x 0.72 = 2.6085 us;
 * under trtllm-0.11 the 32 CTAs take 39.3216 us. */
static void test_cost_takes_the_bound(void **state)
{
    (void)state;
    sim_hw hw = fixture_at(20.0);
    hw.eff_attn_memory = 0.72;
    sim_op op = {.id = SIM_OP_ATTENTION, .present = true, .compute = SIM_DT_BF16};
    op.kv_read_bytes = 6291456.0;
    op.dec = llama8b(1, 1, 1536, 2);
    assert_near(sim_cost_op(&hw, &op, 0).t_mem_ns, 6291456.0 / (3.35e12 * 0.72) * 1e9, 1e-9);
    op.dattn = SIM_DATTN_TRTLLM_011;
    assert_near(sim_cost_op(&hw, &op, 0).t_mem_ns, 39321.6, 1e-9);
}

static void test_names(void **state)
{
    (void)state;
    for (int i = 0; i < SIM_DATTN_COUNT; i++) {
        sim_dattn_kernel k = SIM_DATTN_COUNT;
        assert_true(sim_dattn_parse(sim_dattn_name((sim_dattn_kernel)i), &k));
        assert_int_equal(k, i);
        assert_non_null(strstr(sim_dattn_names(), sim_dattn_name(k)));
    }
    sim_dattn_kernel k;
    assert_false(sim_dattn_parse("mmha", &k));
}

/* The shipped profiles: vLLM 0.5 splits over a 16-bit cache and runs PagedAttention over fp8;
 * TensorRT-LLM 0.11 its XQA / masked-MHA dispatch; a profile without "attention" splits. A bad
 * kernel name or a missing source is exit 2 naming the field. */
static void test_engine_profiles(void **state)
{
    (void)state;
    sim_engprof p;
    sim_err err = {{0}};
    assert_int_equal(sim_engprof_load(tu_path("hw/engines", "vllm-v0"), &p, &err), SIM_OK);
    assert_int_equal(p.decode_attn, SIM_DATTN_SPLIT);
    assert_int_equal(p.decode_attn_quant_kv, SIM_DATTN_VLLM_PAGED);
    assert_int_equal(p.act_quant_kernels, 3);
    assert_int_equal(sim_engprof_load(tu_path("hw/engines", "trtllm-0.11"), &p, &err), SIM_OK);
    assert_int_equal(p.decode_attn, SIM_DATTN_TRTLLM_011);
    assert_int_equal(sim_engprof_load(tu_path("hw/engines", "vllm"), &p, &err), SIM_OK);
    assert_int_equal(p.decode_attn, SIM_DATTN_SPLIT);
    assert_int_equal(p.decode_attn_quant_kv, SIM_DATTN_SPLIT);
    assert_int_equal(p.act_quant_kernels, 0);
    /* the vllm-v0 file with its kernel renamed, then with a source removed */
    char *text = read_text(tu_path("hw/engines", "vllm-v0"));
    char *at = strstr(text, "\"vllm-paged\"");
    assert_non_null(at);
    memcpy(at, "\"vllm-pagex\"", 12);
    assert_int_equal(sim_engprof_load(tu_write_tmp(text), &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "attention.decode_quant_kv"));
    assert_non_null(strstr(err.msg, "vllm-pagex"));
    memcpy(at, "\"vllm-paged\"", 12);
    at = strstr(text, "\"attention.decode\":");
    assert_non_null(at);
    memcpy(at, "\"attention.decodx\":", 19);
    assert_int_equal(sim_engprof_load(tu_write_tmp(text), &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "sources.attention.decode"));
    free(text);
}

/* The merge pass of a split decode (dattn.h): vLLM's V2 over 1024 tokens (2 partitions of 512)
 * always reduces: 2 x 1 x 64 x (128 + 1) x 4 = 66,048 B read, one more launch; V1, the split
 * kernel and no decode part never. */
static void test_split_merge(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    hw.compute_units = 108;
    sim_dattn_shape v = {
        .seqs = 1, .ctx = 1024, .q_heads = 64, .kv_heads = 8, .head_dim = 128, .kv_elem_bytes = 2};
    assert_int_equal(sim_dattn_extra_kernels(&hw, SIM_DATTN_VLLM_PAGED_V2, &v), 1);
    assert_near(sim_dattn_merge_bytes(&hw, SIM_DATTN_VLLM_PAGED_V2, &v), 66048.0, 0);
    assert_int_equal(sim_dattn_extra_kernels(&hw, SIM_DATTN_VLLM_PAGED_V1, &v), 0);
    /* the op: one more launch, and the merge's bytes at the streaming efficiency */
    sim_op op = {.id = SIM_OP_ATTENTION, .present = true, .compute = SIM_DT_BF16,
                 .kv_read_bytes = 1e6, .dec = v, .dattn = SIM_DATTN_VLLM_PAGED_V2};
    sim_op_cost c = sim_cost_op(&hw, &op, 1000.0);
    assert_int_equal(c.extra_kernels, 1);
    op.dattn = SIM_DATTN_VLLM_PAGED_V1;
    assert_near(c.t_launch_ns - sim_cost_op(&hw, &op, 1000.0).t_launch_ns, 1000.0, 0);
    assert_int_equal(sim_dattn_extra_kernels(&hw, SIM_DATTN_SPLIT, &v), 0);
    assert_near(sim_dattn_merge_bytes(&hw, SIM_DATTN_SPLIT, &v), 0.0, 0);
    /* no decode part: nothing to merge */
    v.seqs = 0;
    assert_int_equal(sim_dattn_extra_kernels(&hw, SIM_DATTN_VLLM_PAGED_V2, &v), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trtllm_011),
        cmocka_unit_test(test_vllm_paged),
        cmocka_unit_test(test_fa2),
        cmocka_unit_test(test_split_merge),
        cmocka_unit_test(test_vllm_forced_versions),
        cmocka_unit_test(test_cost_takes_the_bound),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_engine_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
