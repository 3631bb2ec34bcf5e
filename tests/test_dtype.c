/* test_dtype.c - the numeric format table. */
#include "testutil.h"

#include "dtype.h"

static void test_sizes(void **state)
{
    (void)state;
    /* bf16/fp16 2 bytes, fp8/int8 1 byte, int4 half a byte */
    assert_near(sim_dtype_bytes(SIM_DT_BF16), 2.0, 0);
    assert_near(sim_dtype_bytes(SIM_DT_FP16), 2.0, 0);
    assert_near(sim_dtype_bytes(SIM_DT_FP8), 1.0, 0);
    assert_near(sim_dtype_bytes(SIM_DT_INT8), 1.0, 0);
    assert_near(sim_dtype_bytes(SIM_DT_INT4), 0.5, 0);
    /* NVFP4: 4 bits + an 8-bit scale per 16 = 4.5 bits; MXFP4: 4 + 8/32 = 4.25 bits */
    assert_near(sim_dtype_bytes(SIM_DT_FP4), 0.5625, 0);
    assert_near(sim_dtype_bytes(SIM_DT_MXFP4), 0.53125, 0);
    /* mxfp4 runs on the fp4 tensor cores */
    assert_int_equal(sim_dtype_get(SIM_DT_MXFP4)->peak_of, SIM_DT_FP4);
    assert_true(sim_dtype_is_fp4(SIM_DT_MXFP4) && !sim_dtype_is_fp4(SIM_DT_INT4));
    /* MXFP6: 6 bits + an 8-bit e8m0 scale per 32 = 6.25 bits = 0.78125 bytes; a peak of its own
     * (the fp8 rate on Blackwell, the fp4 rate on MI355X: no one format it shares) */
    assert_near(sim_dtype_bytes(SIM_DT_MXFP6), 0.78125, 0);
    assert_int_equal(sim_dtype_get(SIM_DT_MXFP6)->peak_of, SIM_DT_MXFP6);
    assert_false(sim_dtype_is_fp4(SIM_DT_MXFP6));
    /* the block-scaled floats take their own activations; int4's group scales are not that */
    assert_true(sim_dtype_is_block_float(SIM_DT_FP4) && sim_dtype_is_block_float(SIM_DT_MXFP4) &&
                sim_dtype_is_block_float(SIM_DT_MXFP6));
    assert_false(sim_dtype_is_block_float(SIM_DT_INT4) || sim_dtype_is_block_float(SIM_DT_FP8) ||
                 sim_dtype_is_block_float(SIM_DT_BF16));
}

static void test_parse_round_trip(void **state)
{
    (void)state;
    for (int i = 0; i < SIM_DT_COUNT; i++) {
        sim_dtype dt;
        assert_true(sim_dtype_parse(sim_dtype_name((sim_dtype)i), &dt));
        assert_int_equal(dt, i);
        assert_non_null(strstr(sim_dtype_names(), sim_dtype_name((sim_dtype)i)));
    }
    sim_dtype dt;
    assert_false(sim_dtype_parse("fp6", &dt));
    assert_true(sim_dtype_parse("mxfp6", &dt) && dt == SIM_DT_MXFP6);
    assert_false(sim_dtype_parse("BF16", &dt));
    assert_false(sim_dtype_parse("", &dt));
}

static void test_kinds(void **state)
{
    (void)state;
    assert_true(sim_dtype_is_16bit(SIM_DT_BF16));
    assert_true(sim_dtype_is_16bit(SIM_DT_FP16));
    assert_false(sim_dtype_is_16bit(SIM_DT_FP8));
    assert_true(sim_dtype_get(SIM_DT_INT4)->weights_only);
    assert_false(sim_dtype_get(SIM_DT_INT8)->weights_only);
    /* 16-bit weights need no dequantization; int4 needs the most */
    assert_true(sim_dtype_get(SIM_DT_BF16)->dequant_ops == 0.0);
    assert_true(sim_dtype_get(SIM_DT_INT4)->dequant_ops > sim_dtype_get(SIM_DT_INT8)->dequant_ops);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_parse_round_trip),
        cmocka_unit_test(test_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
