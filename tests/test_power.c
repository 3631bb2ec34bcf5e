/* test_power.c - the power and energy estimate (power.h) against numbers worked out by hand, and
 * the device file's power fields. */
#include "testutil.h"

#include "power.h"

/* A 700 W device idling at 70 W (the H100 SXM's file values) with a bf16 GEMM rate of
 * 1000 TFLOP/s x 0.8 = 8e14 FLOP/s and fp8 twice that; the rest of sim_hw is unused. */
static sim_hw device(void)
{
    sim_hw hw;
    memset(&hw, 0, sizeof hw);
    hw.power.tdp_w = 700.0;
    hw.power.idle_w = 70.0;
    hw.peak_flops[SIM_DT_BF16] = 1000e12;
    hw.eff_gemm[SIM_DT_BF16] = 0.8;
    hw.peak_flops[SIM_DT_FP8] = 2000e12;
    hw.eff_gemm[SIM_DT_FP8] = 0.8;
    return hw;
}

static void test_step_power_hand_worked(void **state)
{
    (void)state;
    sim_hw hw = device();
    /* a 10 ms step of 1.6e12 FLOPs (at 8e14 FLOP/s: 2 ms), 8 ms of memory traffic, 1 ms of
     * network. busy: c = 0.2, m = 0.8, n = 0.1
     * activity = 1.0 x 0.2 + 0.40 x 0.8 + 0.10 x 0.1 = 0.2 + 0.32 + 0.01 = 0.53
     * power    = 70 + (700 - 70) x 0.53 = 70 + 333.9 = 403.9 W
     * energy above idle = 630 x 0.53 x 0.010 s = 3.339 J */
    sim_step_result r = {
        .t_ns = 10e6, .flops = 1.6e12, .t_math_ns = 2e6, .t_mem_ns = 8e6, .t_net_ns = 1e6};
    sim_power_busy b = sim_power_step_busy(&hw, SIM_DT_BF16, &r);
    assert_near(b.compute, 0.2, 1e-12);
    assert_near(b.memory, 0.8, 1e-12);
    assert_near(b.network, 0.1, 1e-12);
    assert_near(sim_power_activity(b), 0.53, 1e-12);
    assert_near(sim_power_step_w(&hw, SIM_DT_BF16, &r), 403.9, 1e-9);
    assert_near(sim_power_step_active_j(&hw, SIM_DT_BF16, &r), 3.339, 1e-9);
    /* the same FLOPs in fp8 (twice the rate): 1 ms, c = 0.1; activity 0.43, 70 + 630 x 0.43 =
     * 340.9 W; a format without a peak (int4) counts at bf16's */
    assert_near(sim_power_step_busy(&hw, SIM_DT_FP8, &r).compute, 0.1, 1e-12);
    assert_near(sim_power_step_w(&hw, SIM_DT_FP8, &r), 340.9, 1e-9);
    assert_near(sim_power_step_busy(&hw, SIM_DT_INT4, &r).compute, 0.2, 1e-12);
}

static void test_padded_math_is_not_compute(void **state)
{
    (void)state;
    sim_hw hw = device();
    /* a batch-1 decode step: 6 ms, 1.6e10 FLOPs (20 us at 8e14), 1.5 ms of math time priced
     * for the GEMMs' M padded to the tile, 5.2 ms of memory time. Compute-busy counts the FLOPs
     * done: c = 20e3 / 6e6 = 0.003333; m = 0.866667; activity = 0.003333 + 0.4 x 0.866667 =
     * 0.35; P = 70 + 630 x 0.35 = 290.5 W (not 70 + 630 x (0.25 + 0.3467) = 446 W) */
    sim_step_result r = {.t_ns = 6e6, .flops = 1.6e10, .t_math_ns = 1.5e6, .t_mem_ns = 5.2e6};
    assert_near(sim_power_step_busy(&hw, SIM_DT_BF16, &r).compute, 1.0 / 300.0, 1e-12);
    assert_near(sim_power_step_w(&hw, SIM_DT_BF16, &r), 290.5, 1e-9);
}

static void test_compute_bound_clamps_at_tdp(void **state)
{
    (void)state;
    sim_hw hw = device();
    /* a compute-bound prefill: math 9 of 10 ms, memory 4 ms: 0.9 + 0.4 x 0.4 = 1.06 -> 1, so the
     * board power, 700 W (never above it) */
    sim_step_result r = {.t_ns = 10e6, .flops = 7.2e12, .t_math_ns = 9e6, .t_mem_ns = 4e6};
    assert_near(sim_power_activity(sim_power_step_busy(&hw, SIM_DT_BF16, &r)), 1.0, 1e-12);
    assert_near(sim_power_step_w(&hw, SIM_DT_BF16, &r), 700.0, 1e-9);
    /* a step of launch gaps and host time only: the idle floor */
    sim_step_result idle = {.t_ns = 1e6};
    assert_near(sim_power_step_w(&hw, SIM_DT_BF16, &idle), 70.0, 1e-12);
    assert_near(sim_power_step_active_j(&hw, SIM_DT_BF16, &idle), 0.0, 1e-15);
    /* a zero-time step: no fraction, no energy (no division by zero) */
    sim_step_result none = {0};
    assert_near(sim_power_activity(sim_power_step_busy(&hw, SIM_DT_BF16, &none)), 0.0, 0.0);
    assert_near(sim_power_step_active_j(&hw, SIM_DT_BF16, &none), 0.0, 0.0);
}

static void test_totals_hand_worked(void **state)
{
    (void)state;
    /* 8 GPUs idling at 70 W for 100 s: 8 x 70 x 100 = 56 kJ; plus 44 kJ above idle = 100 kJ.
     * average per GPU: 100e3 / 100 / 8 = 125 W; 50,000 output tokens: 2 J per token;
     * tokens/s per MW: 500 tokens/s over 1000 W = 0.001 MW -> 500,000 */
    sim_power_totals t = sim_power_totals_of(8 * 70.0, 44e3, 100.0, 8.0, 50000.0);
    assert_near(t.energy_j, 100e3, 1e-6);
    assert_near(t.avg_power_w, 125.0, 1e-9);
    assert_near(t.joules_per_output_token, 2.0, 1e-12);
    assert_near(t.output_tokens_per_s_per_mw, 500000.0, 1e-6);
    /* no time, no GPUs, no tokens: zeros, never inf or NaN */
    sim_power_totals z = sim_power_totals_of(560.0, 1.0, 0.0, 8.0, 10.0);
    assert_true(z.energy_j == 0.0 && z.avg_power_w == 0.0 && z.joules_per_output_token == 0.0);
    z = sim_power_totals_of(560.0, 1.0, 10.0, 8.0, 0.0);
    assert_true(z.joules_per_output_token == 0.0 && z.output_tokens_per_s_per_mw == 0.0);
    assert_near(z.avg_power_w, (5600.0 + 1.0) / 10.0 / 8.0, 1e-12);
}

static void test_unknown_power(void **state)
{
    (void)state;
    sim_hw hw;
    memset(&hw, 0, sizeof hw);
    sim_step_result r = {.t_ns = 10e6, .flops = 1e12, .t_math_ns = 2e6};
    assert_false(sim_power_known(&hw));
    assert_near(sim_power_step_w(&hw, SIM_DT_BF16, &r), 0.0, 0.0);
    assert_near(sim_power_step_active_j(&hw, SIM_DT_BF16, &r), 0.0, 0.0);
}

static void write_hw(const char *path, const char *power)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"name\": \"t\", \"dense_tflops\": 100, \"hbm_gib\": 10, \"hbm_tb_per_s\": 1, "
            "\"scaleup_gb_per_s_per_dir\": 10, \"compute_units\": 10%s}",
            power);
    fclose(f);
}

static void test_device_file_fields(void **state)
{
    (void)state;
    char path[512];
    tu_snprintf(path, sizeof path, "%s/p.json", tu_tmpdir());
    sim_hw hw;
    sim_err err;
    /* the shipped H100 SXM: 700 W board power, 117 W floor of a held GPU */
    hw = tu_hw("h100-sxm");
    assert_near(hw.power.tdp_w, 700.0, 0.0);
    assert_near(hw.power.idle_w, 117.0, 0.0);
    /* absent: unknown */
    write_hw(path, "");
    assert_int_equal(sim_hw_load(path, &hw, &err), SIM_OK);
    assert_false(sim_power_known(&hw));
    write_hw(path, ", \"power\": {\"tdp_w\": 300, \"idle_w\": 30}");
    assert_int_equal(sim_hw_load(path, &hw, &err), SIM_OK);
    assert_near(hw.power.tdp_w, 300.0, 0.0);
    /* idle at or above the board power */
    write_hw(path, ", \"power\": {\"tdp_w\": 300, \"idle_w\": 300}");
    assert_int_equal(sim_hw_load(path, &hw, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "power.idle_w"));
    /* an idle floor without a board power */
    write_hw(path, ", \"power\": {\"idle_w\": 30}");
    assert_int_equal(sim_hw_load(path, &hw, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "power.tdp_w"));
    /* out of range, and not a number */
    write_hw(path, ", \"power\": {\"tdp_w\": -5}");
    assert_int_equal(sim_hw_load(path, &hw, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "power.tdp_w"));
    write_hw(path, ", \"power\": {\"tdp_w\": \"700\"}");
    assert_int_equal(sim_hw_load(path, &hw, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "power.tdp_w"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_power_hand_worked),
        cmocka_unit_test(test_padded_math_is_not_compute),
        cmocka_unit_test(test_compute_bound_clamps_at_tdp),
        cmocka_unit_test(test_totals_hand_worked),
        cmocka_unit_test(test_unknown_power),
        cmocka_unit_test(test_device_file_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
