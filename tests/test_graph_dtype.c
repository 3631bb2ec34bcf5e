/* test_graph_dtype.c - the default precision of a deployment (sim_graph_prec_defaults), the rule
 * `run`, `serve`, `roofline` and the validation table's end-to-end rows share. Each case's
 * expectation follows from the rule in graph.h by hand. */
#include "testutil.h"

#include "graph.h"

/* A bf16 checkpoint without quantization_config; a device with and one without fp4 math. */
static sim_model bf16_model(void)
{
    sim_model m = {0};
    snprintf(m.path, sizeof m.path, "models/x.json");
    m.dtype = SIM_DT_BF16;
    m.dtype_known = true;
    return m;
}

static sim_hw device(bool fp4)
{
    sim_hw hw = {0};
    hw.peak_flops[SIM_DT_BF16] = 989e12;
    hw.peak_flops[SIM_DT_FP8] = 1979e12;
    if (fp4)
        hw.peak_flops[SIM_DT_FP4] = 4500e12;
    return hw;
}

/* The formats chosen: `w`, `a`, `kv` < 0 for not chosen. */
static sim_prec resolve(const sim_model *m, const sim_hw *hw, int w, int a, int kv)
{
    sim_prec_given g = {.weight = w >= 0, .act = a >= 0, .kv = kv >= 0};
    g.prec.weight = w >= 0 ? (sim_dtype)w : SIM_DT_BF16;
    g.prec.act = a >= 0 ? (sim_dtype)a : SIM_DT_BF16;
    g.prec.kv = kv >= 0 ? (sim_dtype)kv : SIM_DT_BF16;
    sim_prec p;
    assert_true(sim_graph_prec_defaults(m, hw, &g, &p));
    return p;
}

static void assert_prec(sim_prec p, sim_dtype w, sim_dtype a, sim_dtype kv)
{
    assert_int_equal(p.weight, w);
    assert_int_equal(p.act, a);
    assert_int_equal(p.kv, kv);
}

static void test_flags_over_16bit_checkpoint(void **state)
{
    (void)state;
    const sim_model m = bf16_model();
    const sim_hw h100 = device(false), b200 = device(true);
    /* nothing chosen: all in torch_dtype, 128 weights per group, no zero points */
    sim_prec p = resolve(&m, &h100, -1, -1, -1);
    assert_prec(p, SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16);
    assert_int_equal(p.group_size, 128);
    assert_false(p.zero_point);
    /* fp8 weights compute in fp8 (W8A8); the KV cache stays in the 16-bit format */
    assert_prec(resolve(&m, &h100, SIM_DT_FP8, -1, -1), SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16);
    /* int4 / int8 weights alone are weight-only: 16-bit math */
    assert_prec(resolve(&m, &h100, SIM_DT_INT4, -1, -1), SIM_DT_INT4, SIM_DT_BF16, SIM_DT_BF16);
    assert_prec(resolve(&m, &h100, SIM_DT_INT8, -1, -1), SIM_DT_INT8, SIM_DT_BF16, SIM_DT_BF16);
    /* fp4 weights compute in fp4 only where the device has fp4 tensor cores */
    assert_prec(resolve(&m, &b200, SIM_DT_FP4, -1, -1), SIM_DT_FP4, SIM_DT_FP4, SIM_DT_BF16);
    assert_prec(resolve(&m, &h100, SIM_DT_FP4, -1, -1), SIM_DT_FP4, SIM_DT_BF16, SIM_DT_BF16);
    /* fp16 weights on a bf16 checkpoint: the 16-bit format is the weights' */
    assert_prec(resolve(&m, &h100, SIM_DT_FP16, -1, -1), SIM_DT_FP16, SIM_DT_FP16, SIM_DT_FP16);
    /* W4A8: the chosen activations; the KV cache not 16-bit-activation: the model's format */
    assert_prec(resolve(&m, &h100, SIM_DT_INT4, SIM_DT_INT8, -1), SIM_DT_INT4, SIM_DT_INT8,
                SIM_DT_BF16);
    /* a chosen KV format alone */
    assert_prec(resolve(&m, &h100, -1, -1, SIM_DT_FP8), SIM_DT_BF16, SIM_DT_BF16, SIM_DT_FP8);
    /* a chosen group size, 0 = per channel */
    sim_prec_given g = {.prec.group_size = 0, .group_size = true};
    assert_true(sim_graph_prec_defaults(&m, &h100, &g, &p));
    assert_int_equal(p.group_size, 0);
}

static void test_quantization_config(void **state)
{
    (void)state;
    const sim_hw h100 = device(false);
    /* AWQ: int4 weights, 16-bit activations, groups of 128 with zero points */
    sim_model awq = bf16_model();
    awq.quant = (sim_quant){.present = true,
                            .weight = SIM_DT_INT4,
                            .act_set = true,
                            .act_16bit = true,
                            .group_size = 128,
                            .zero_point = true};
    sim_prec p = resolve(&awq, &h100, -1, -1, -1);
    assert_prec(p, SIM_DT_INT4, SIM_DT_BF16, SIM_DT_BF16);
    assert_int_equal(p.group_size, 128);
    assert_true(p.zero_point);
    /* compressed-tensors fp8 W8A8 with an fp8 KV cache, no torch_dtype needed */
    sim_model w8a8 = bf16_model();
    w8a8.dtype_known = false;
    w8a8.quant = (sim_quant){.present = true,
                             .weight = SIM_DT_FP8,
                             .act_set = true,
                             .act = SIM_DT_FP8,
                             .kv_set = true,
                             .kv = SIM_DT_FP8};
    p = resolve(&w8a8, &h100, -1, -1, -1);
    assert_prec(p, SIM_DT_FP8, SIM_DT_FP8, SIM_DT_FP8);
    assert_int_equal(p.group_size, 0); /* the config's: per channel */
    /* chosen weights set the config's activations aside (int8 weights: weight-only), not its KV */
    assert_prec(resolve(&w8a8, &h100, SIM_DT_INT8, -1, -1), SIM_DT_INT8, SIM_DT_BF16, SIM_DT_FP8);
}

static void test_unknown_weights(void **state)
{
    (void)state;
    sim_model m = bf16_model();
    m.dtype_known = false; /* no torch_dtype, no quantization_config */
    const sim_hw hw = device(false);
    sim_prec_given g = {0};
    sim_prec p = {.weight = SIM_DT_INT4, .act = SIM_DT_INT8, .kv = SIM_DT_FP8, .group_size = 7};
    assert_false(sim_graph_prec_defaults(&m, &hw, &g, &p));
    assert_prec(p, SIM_DT_INT4, SIM_DT_INT8, SIM_DT_FP8); /* untouched */
    assert_int_equal(p.group_size, 7);
    /* chosen weights need no torch_dtype */
    assert_prec(resolve(&m, &hw, SIM_DT_FP8, -1, -1), SIM_DT_FP8, SIM_DT_FP8, SIM_DT_BF16);
}

/* Which kernel family the experts run in (sim_graph_moe_family): 16-bit weights the plain
 * one; int4 / mxfp4 weights under bf16 math (W4A16, gpt-oss) the mixed-input one; fp8 weights
 * with fp8 math and int4 weights with fp8 math (W4A8: neither 16-bit math nor one format) the
 * quantized one. */
static void test_moe_family(void **state)
{
    (void)state;
    static const struct {
        sim_dtype w, a;
        sim_moe_kernel want;
    } cases[] = {
        {SIM_DT_BF16, SIM_DT_BF16, SIM_MOE_TRITON},  {SIM_DT_MXFP4, SIM_DT_BF16, SIM_MOE_MARLIN},
        {SIM_DT_INT4, SIM_DT_FP16, SIM_MOE_MARLIN},  {SIM_DT_FP8, SIM_DT_FP8, SIM_MOE_CUTLASS},
        {SIM_DT_INT4, SIM_DT_FP8, SIM_MOE_CUTLASS},  {SIM_DT_FP4, SIM_DT_FP4, SIM_MOE_CUTLASS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_prec p = {.weight = cases[i].w, .act = cases[i].a, .kv = SIM_DT_BF16};
        assert_int_equal(sim_graph_moe_family(&p, SIM_MOE_TRITON, SIM_MOE_CUTLASS, SIM_MOE_MARLIN),
                         cases[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flags_over_16bit_checkpoint),
        cmocka_unit_test(test_quantization_config),
        cmocka_unit_test(test_unknown_weights),
        cmocka_unit_test(test_moe_family),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
