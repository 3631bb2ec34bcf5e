/* test_hw.c - device files: datasheet arithmetic, sources, validation. */
#include "testutil.h"

#include "jsonf.h"

static const char *const devices[] = {"h100-sxm",      "h100-pcie",     "h200", "b200",
                                      "a100-sxm-40gb", "a100-sxm-80gb", "l40s", "mi300x",
                                      "tpu-v5e",       "tpu-v6e"};

static void test_ridge_points(void **state)
{
    (void)state;
    /* Ridge = dense bf16 peak / HBM bandwidth (seed, table 2.1):
     * H100 989.4e12 / 3.35e12 = 295.3; H200 989.4 / 4.8 = 206.1; A100-80GB 312 / 2.039 = 153.0;
     * B200 2250 / 8.0 = 281.3; TPU v5e 197 / 0.819 = 240.5; TPU v6e 918 / 1.64 = 559.8. */
    sim_hw hw = tu_hw("h100-sxm");
    assert_near(sim_hw_ridge(&hw, SIM_DT_BF16), 295.0, 0.01);
    /* full fp8 doubles the peak and so the ridge: 1978.9 / 3.35 = 590.7 */
    assert_near(sim_hw_ridge(&hw, SIM_DT_FP8), 590.7, 0.01);
    hw = tu_hw("h200");
    assert_near(sim_hw_ridge(&hw, SIM_DT_BF16), 206.0, 0.01);
    hw = tu_hw("a100-sxm-80gb");
    assert_between(sim_hw_ridge(&hw, SIM_DT_BF16), 153.0, 156.0);
    assert_true(hw.peak_flops[SIM_DT_FP8] == 0.0); /* Ampere has no fp8 */
    hw = tu_hw("b200");
    assert_near(sim_hw_ridge(&hw, SIM_DT_BF16), 281.0, 0.01);
    hw = tu_hw("tpu-v5e");
    assert_near(sim_hw_ridge(&hw, SIM_DT_BF16), 240.0, 0.01);
    hw = tu_hw("tpu-v6e");
    assert_near(sim_hw_ridge(&hw, SIM_DT_BF16), 560.0, 0.01);
}

static void test_units(void **state)
{
    (void)state;
    sim_hw hw = tu_hw("h100-sxm");
    /* NVLink 4: 900 GB/s bidirectional is stored per direction */
    assert_near(hw.scaleup_bytes_per_s, 450e9, 1e-9);
    assert_near(hw.hbm_bytes_per_s, 3.35e12, 1e-9);
    assert_near(hw.peak_flops[SIM_DT_BF16], 989.4e12, 1e-9);
    assert_near(hw.hbm_bytes, 79.6 * 1073741824.0, 1e-9);
    assert_int_equal(hw.devices_per_node, 8);
    /* an efficiency missing for a format falls back to the bf16 one (A100 has none for fp16) */
    hw = tu_hw("a100-sxm-80gb");
    assert_near(hw.eff_gemm[SIM_DT_FP16], hw.eff_gemm[SIM_DT_BF16], 0);
}

static void test_every_device_loads_and_cites(void **state)
{
    (void)state;
    static const char *const fields[] = {"dense_tflops",
                                         "vector_tflops",
                                         "hbm_gib",
                                         "hbm_tb_per_s",
                                         "scaleup_gb_per_s_per_dir",
                                         "collective_latency_us",
                                         "scaleup_latency_us",
                                         "scaleout_gb_per_s_per_dir",
                                         "scaleout_latency_us",
                                         "devices_per_node",
                                         "kernel_launch_us",
                                         "graph_kernel_launch_us",
                                         "gemm_tile_m",
                                         "gemm_weight_only_tile_m",
                                         "compute_units",
                                         "gemm_wave_tile",
                                         "runtime_reserved_gib",
                                         "efficiency.gemm.bf16",
                                         "efficiency.gemm_weight_only",
                                         "efficiency.attention",
                                         "efficiency.memory",
                                         "efficiency.attention_memory",
                                         "efficiency.network"};
    for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++) {
        sim_hw hw = tu_hw(devices[d]);
        assert_true(hw.peak_flops[SIM_DT_BF16] > 0.0);
        assert_true(hw.eff_memory > 0.0 && hw.eff_memory <= 1.0);
        cJSON *root;
        sim_err err = {{0}};
        assert_int_equal(sim_jsonf_load(tu_path("hw", devices[d]), &root, &err), SIM_OK);
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(root, "sources");
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
            const cJSON *s = cJSON_GetObjectItemCaseSensitive(src, fields[f]);
            if (!cJSON_IsString(s) || strlen(s->valuestring) < 10) {
                print_error("hw/%s.json: sources.%s missing\n", devices[d], fields[f]);
                fail();
            }
        }
        /* every constant of quantized kernels cites where it comes from too */
        const cJSON *table, *entry;
        cJSON_ArrayForEach(table, cJSON_GetObjectItemCaseSensitive(root, "quant"))
        {
            cJSON_ArrayForEach(entry, table)
            {
                char field[96];
                snprintf(field, sizeof field, "quant.%s.%s", table->string, entry->string);
                const cJSON *s = cJSON_GetObjectItemCaseSensitive(src, field);
                if (!cJSON_IsString(s) || strlen(s->valuestring) < 10) {
                    print_error("hw/%s.json: sources.%s missing\n", devices[d], field);
                    fail();
                }
            }
        }
        cJSON_Delete(root);
    }
}

static const char *good_hw =
    "{\"name\": \"X\", \"dense_tflops\": {\"bf16\": 100}, \"vector_tflops\": 10, \"hbm_gib\": 16,"
    " \"hbm_tb_per_s\": 1, \"scaleup_gb_per_s_per_dir\": 100, \"scaleup_latency_us\": 2,"
    " \"collective_latency_us\": 5,"
    " \"scaleout_gb_per_s_per_dir\": 25, \"scaleout_latency_us\": 5, \"devices_per_node\": 8,"
    " \"kernel_launch_us\": 4, \"graph_kernel_launch_us\": 1, \"gemm_tile_m\": 64, "
    "\"gemm_weight_only_tile_m\": 16,"
    " \"compute_units\": 132, \"gemm_wave_tile\": 128,"
    " \"runtime_reserved_gib\": 1, \"efficiency\": {\"gemm\": {\"bf16\": 0.8},"
    " \"gemm_weight_only\": 0.6, \"attention\": 0.5, \"memory\": 0.8,"
    " \"attention_memory\": 0.7, \"network\": 0.8}}";

/* Replaces the first occurrence of `from` in good_hw by `to`, writes it, and expects an error
 * that mentions `field`. */
static void expect_bad(const char *from, const char *to, const char *field)
{
    char text[2048];
    const char *at = strstr(good_hw, from);
    assert_non_null(at);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good_hw), good_hw, to, at + strlen(from));
    const char *p = tu_write_tmp(text);
    sim_hw hw;
    sim_err err = {{0}};
    assert_int_equal(sim_hw_load(p, &hw, &err), SIM_EINPUT);
    if (!strstr(err.msg, field) || !strstr(err.msg, p)) {
        print_error("error '%s' does not name %s and the file\n", err.msg, field);
        fail();
    }
}

static void test_bad_files(void **state)
{
    (void)state;
    sim_hw hw;
    sim_err err = {{0}};
    assert_int_equal(sim_hw_load(tu_write_tmp(good_hw), &hw, &err), SIM_OK);
    expect_bad("\"hbm_tb_per_s\": 1", "\"hbm_tb_per_s\": -1", "hbm_tb_per_s");
    expect_bad("\"hbm_tb_per_s\": 1", "\"hbm_tb_per_s\": 0", "hbm_tb_per_s");
    expect_bad("\"hbm_tb_per_s\": 1,", "", "hbm_tb_per_s");
    expect_bad("\"memory\": 0.8", "\"memory\": 1.5", "efficiency.memory");
    expect_bad("\"bf16\": 100", "\"bf16\": \"fast\"", "dense_tflops.bf16");
    expect_bad("\"devices_per_node\": 8", "\"devices_per_node\": 2.5", "devices_per_node");
    expect_bad("\"gemm_tile_m\": 64", "\"gemm_tile_m\": 1e9", "gemm_tile_m");
    expect_bad("\"runtime_reserved_gib\": 1", "\"runtime_reserved_gib\": 20",
               "runtime_reserved_gib");
    /* the quant object: fractions in (0, 1], a K term >= 1 */
    expect_bad("\"runtime_reserved_gib\": 1",
               "\"runtime_reserved_gib\": 1, \"quant\": "
               "{\"gemm_memory\": {\"fp8\": 1.5}}",
               "quant.gemm_memory.fp8");
    expect_bad("\"runtime_reserved_gib\": 1",
               "\"runtime_reserved_gib\": 1, \"quant\": "
               "{\"gemm_k_half\": {\"fp8\": 0}}",
               "quant.gemm_k_half.fp8");
    expect_bad("\"runtime_reserved_gib\": 1",
               "\"runtime_reserved_gib\": 1, \"quant\": "
               "{\"mixed_input_memory\": {\"int4\": \"fast\"}}",
               "quant.mixed_input_memory.int4");
}

static void test_quant_constants(void **state)
{
    (void)state;
    /* absent entries read as the 16-bit values; given ones as written; mxfp4 shares fp4's */
    char text[2048];
    snprintf(text, sizeof text,
             "%.*s, \"quant\": {\"gemm_memory\": {\"fp8\": 0.75, \"fp4\": "
             "0.7}, \"gemm_k_half\": {\"fp8\": 900}, \"mixed_input_memory\": {\"int4\": "
             "0.4}}}",
             (int)strlen(good_hw) - 1, good_hw);
    sim_hw hw;
    sim_err err = {{0}};
    assert_int_equal(sim_hw_load(tu_write_tmp(text), &hw, &err), SIM_OK);
    assert_near(sim_hw_gemm_memory(&hw, SIM_DT_FP8), 0.75, 0);
    assert_near(sim_hw_gemm_memory(&hw, SIM_DT_INT8), 0.8, 0); /* efficiency.memory */
    assert_near(sim_hw_gemm_memory(&hw, SIM_DT_MXFP4), 0.7, 0);
    assert_near(sim_hw_gemm_memory(&hw, SIM_DT_BF16), 0.8, 0);
    assert_near(sim_hw_gemm_k_half(&hw, SIM_DT_FP8), 900.0, 0);
    assert_near(sim_hw_gemm_k_half(&hw, SIM_DT_BF16), 0.0, 0);
    assert_near(sim_hw_mixed_input_memory(&hw, SIM_DT_INT4), 0.4, 0);
    assert_near(sim_hw_mixed_input_memory(&hw, SIM_DT_INT8), 0.8, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ridge_points),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_every_device_loads_and_cites),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_quant_constants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
