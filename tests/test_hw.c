/* test_hw.c - device files: datasheet arithmetic, sources, validation. */
#include "testutil.h"

#include "jsonf.h"
#include "power.h"

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
             "0.4}, \"gemm_fixed_us\": {\"fp4\": 5.5}}}",
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
    /* the fixed GEMM time is given in us and kept in ns; mxfp4 shares fp4's, bf16 takes
     * efficiency.gemm_fixed_us (absent: 0) */
    assert_near(sim_hw_gemm_fixed_ns(&hw, SIM_DT_FP4), 5500.0, 1e-9);
    assert_near(sim_hw_gemm_fixed_ns(&hw, SIM_DT_MXFP4), 5500.0, 1e-9);
    assert_near(sim_hw_gemm_fixed_ns(&hw, SIM_DT_BF16), 0.0, 0);
}

/* A device from its datasheet alone: six fields (and an arch) load, and every other field takes
 * its documented rule. Hand-worked for an H20-like part: bf16 148 TFLOP/s dense, 96 GiB, 4 TB/s,
 * NVLink 450 GB/s per direction, 78 SMs, arch hopper. */
static void test_six_field_device(void **state)
{
    (void)state;
    static const char *six =
        "{\"name\": \"H20\", \"arch\": \"hopper\", \"dense_tflops\": 148, \"hbm_gib\": 96, "
        "\"hbm_tb_per_s\": 4.0, \"scaleup_gb_per_s_per_dir\": 450, \"compute_units\": 78}";
    sim_hw hw;
    sim_err err = {{0}};
    assert_int_equal(sim_hw_load(tu_write_tmp(six), &hw, &err), SIM_OK);
    assert_near(hw.peak_flops[SIM_DT_BF16], 148e12, 1e-12);
    assert_near(hw.peak_flops[SIM_DT_FP16], 148e12, 1e-12);     /* = bf16 */
    assert_near(hw.peak_flops[SIM_DT_FP8], 296e12, 1e-12);      /* hopper: 2 x bf16 */
    assert_near(hw.peak_flops[SIM_DT_INT8], 296e12, 1e-12);     /* hopper: 2 x bf16 */
    assert_true(hw.peak_flops[SIM_DT_INT4] == 0.0);             /* hopper: none */
    assert_true(hw.peak_flops[SIM_DT_MXFP6] == 0.0);            /* hopper: none */
    assert_near(hw.vector_flops, 148e12 * 67.0 / 989.4, 1e-12); /* = 10.02 TFLOP/s */
    /* ridge = 148e12 / 4e12 = 37 FLOP/byte; fp8 74 */
    assert_near(sim_hw_ridge(&hw, SIM_DT_BF16), 37.0, 1e-12);
    assert_near(sim_hw_ridge(&hw, SIM_DT_FP8), 74.0, 1e-12);
    /* the hopper row's constants */
    assert_int_equal(hw.gemm_tile_m, 64);
    assert_int_equal(hw.wo_tile_m, 16);
    assert_int_equal(hw.wave_tile, 128);
    assert_int_equal(hw.devices_per_node, 8);
    assert_int_equal(hw.compute_units, 78);
    assert_near(hw.launch_ns, 4000.0, 1e-12);
    assert_near(hw.eff_gemm[SIM_DT_BF16], 0.80, 1e-12);
    assert_near(hw.eff_gemm[SIM_DT_FP16], 0.80, 1e-12);
    assert_near(hw.eff_gemm[SIM_DT_FP8], 0.71, 1e-12); /* no bf16 efficiency in the file */
    assert_near(hw.eff_memory, 0.866, 1e-12);
    assert_near(hw.runtime_reserved_bytes, 1073741824.0, 1e-12);
    assert_true(hw.gemm_k_half == 0.0);
    /* origins: the six from the file, fp8 derived, a constant a default */
    size_t n = sim_hw_n_fields(), from_file = 0;
    for (size_t i = 0; i < n; i++) {
        sim_hw_field_info f = sim_hw_field(&hw, i);
        from_file += f.origin == SIM_HW_FILE;
        if (strcmp(f.json, "dense_tflops.fp8") == 0) {
            assert_int_equal(f.origin, SIM_HW_DERIVED);
            assert_near(f.value, 296.0, 1e-12); /* in the file's units */
        }
        if (strcmp(f.json, "gemm_tile_m") == 0)
            assert_int_equal(f.origin, SIM_HW_DEFAULT);
        assert_non_null(f.rule);
    }
    assert_int_equal(from_file, 5); /* dense_tflops (as bf16), hbm x2, scaleup, compute_units */
    assert_string_equal(sim_hw_origin_name(SIM_HW_DERIVED), "derived");

    /* a file's bf16 GEMM efficiency carries to fp8, as before */
    static const char *eff =
        "{\"dense_tflops\": 100, \"hbm_gib\": 16, \"hbm_tb_per_s\": 1, "
        "\"scaleup_gb_per_s_per_dir\": 32, \"compute_units\": 10, \"arch\": \"ada\", "
        "\"efficiency\": {\"gemm\": {\"bf16\": 0.5}}}";
    assert_int_equal(sim_hw_load(tu_write_tmp(eff), &hw, &err), SIM_OK);
    assert_near(hw.eff_gemm[SIM_DT_FP8], 0.5, 1e-12);
    assert_near(hw.vector_flops, 100e12 * 91.6 / 362.05, 1e-12); /* ada: 25.3 TFLOP/s */

    /* blackwell: mxfp6 at the fp8 rate (2 x bf16), its efficiency the file's fp8 one */
    static const char *bw = "{\"dense_tflops\": 100, \"hbm_gib\": 16, \"hbm_tb_per_s\": 1, "
                            "\"scaleup_gb_per_s_per_dir\": 32, \"compute_units\": 10, "
                            "\"arch\": \"blackwell\", \"efficiency\": {\"gemm\": {\"fp8\": 0.55}}}";
    assert_int_equal(sim_hw_load(tu_write_tmp(bw), &hw, &err), SIM_OK);
    assert_near(hw.peak_flops[SIM_DT_MXFP6], 200e12, 1e-12);
    assert_near(hw.peak_flops[SIM_DT_FP4], 400e12, 1e-12);
    assert_near(hw.eff_gemm[SIM_DT_MXFP6], 0.55, 1e-12);
    /* ada lists no FP6 tensor peak: none */
    assert_int_equal(sim_hw_load(tu_write_tmp(eff), &hw, &err), SIM_OK);
    assert_true(hw.peak_flops[SIM_DT_MXFP6] == 0.0);

    /* no arch: no 8- or 4-bit peak unless the file gives one */
    static const char *plain = "{\"dense_tflops\": 100, \"hbm_gib\": 16, \"hbm_tb_per_s\": 1, "
                               "\"scaleup_gb_per_s_per_dir\": 32, \"compute_units\": 10}";
    assert_int_equal(sim_hw_load(tu_write_tmp(plain), &hw, &err), SIM_OK);
    assert_true(hw.peak_flops[SIM_DT_FP8] == 0.0 && hw.peak_flops[SIM_DT_INT8] == 0.0);
    assert_near(hw.peak_flops[SIM_DT_FP16], 100e12, 1e-12);
    assert_string_equal(hw.arch, "");
    /* tpu: no fp16; ampere: int4 = 4 x bf16, no fp8 */
    static const char *tpu = "{\"dense_tflops\": 100, \"hbm_gib\": 16, \"hbm_tb_per_s\": 1, "
                             "\"scaleup_gb_per_s_per_dir\": 32, \"compute_units\": 2, "
                             "\"arch\": \"tpu\"}";
    assert_int_equal(sim_hw_load(tu_write_tmp(tpu), &hw, &err), SIM_OK);
    assert_true(hw.peak_flops[SIM_DT_FP16] == 0.0);
    assert_int_equal(hw.devices_per_node, 256);
    static const char *ampere = "{\"dense_tflops\": 100, \"hbm_gib\": 16, \"hbm_tb_per_s\": 1, "
                                "\"scaleup_gb_per_s_per_dir\": 32, \"compute_units\": 2, "
                                "\"arch\": \"ampere\"}";
    assert_int_equal(sim_hw_load(tu_write_tmp(ampere), &hw, &err), SIM_OK);
    assert_near(hw.peak_flops[SIM_DT_INT4], 400e12, 1e-12);
    assert_true(hw.peak_flops[SIM_DT_FP8] == 0.0);
    /* the Triton fused_moe K step fitted on A100 (moe.h) is ampere's; none without an arch */
    assert_near(hw.moe_k_step_ns, 798.0, 1e-9);
    assert_int_equal(sim_hw_load(tu_write_tmp(plain), &hw, &err), SIM_OK);
    assert_near(hw.moe_k_step_ns, 0.0, 0);
    /* an object lists every format: one left out is none, whatever the arch */
    static const char *obj = "{\"dense_tflops\": {\"bf16\": 100}, \"hbm_gib\": 16, "
                             "\"hbm_tb_per_s\": 1, \"scaleup_gb_per_s_per_dir\": 32, "
                             "\"compute_units\": 2, \"arch\": \"hopper\"}";
    assert_int_equal(sim_hw_load(tu_write_tmp(obj), &hw, &err), SIM_OK);
    assert_true(hw.peak_flops[SIM_DT_FP8] == 0.0);
    assert_true(hw.peak_flops[SIM_DT_FP16] == 0.0);
}

static void test_datasheet_fields_required(void **state)
{
    (void)state;
    static const char *const six[] = {
        "\"dense_tflops\": 148, ", "\"hbm_gib\": 96, ", "\"hbm_tb_per_s\": 4.0, ",
        "\"scaleup_gb_per_s_per_dir\": 450, ", "\"compute_units\": 78, "};
    static const char *const names[] = {"dense_tflops.bf16", "hbm_gib", "hbm_tb_per_s",
                                        "scaleup_gb_per_s_per_dir", "compute_units"};
    for (size_t drop = 0; drop < 5; drop++) {
        char text[512] = "{";
        for (size_t i = 0; i < 5; i++)
            if (i != drop)
                strcat(text, six[i]);
        strcat(text, "\"arch\": \"hopper\"}");
        const char *p = tu_write_tmp(text);
        sim_hw hw;
        sim_err err = {{0}};
        assert_int_equal(sim_hw_load(p, &hw, &err), SIM_EINPUT);
        if (!strstr(err.msg, names[drop]) || !strstr(err.msg, p)) {
            print_error("dropping %s: '%s'\n", names[drop], err.msg);
            fail();
        }
    }
    sim_hw hw;
    sim_err err = {{0}};
    const char *p = tu_write_tmp("{\"dense_tflops\": 148, \"hbm_gib\": 96, \"hbm_tb_per_s\": 4, "
                                 "\"scaleup_gb_per_s_per_dir\": 450, \"compute_units\": 78, "
                                 "\"arch\": \"volta\"}");
    assert_int_equal(sim_hw_load(p, &hw, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "'arch' is \"volta\", expected ampere, ada, hopper"));
    p = tu_write_tmp("{\"dense_tflops\": \"148\", \"hbm_gib\": 96, \"hbm_tb_per_s\": 4, "
                     "\"scaleup_gb_per_s_per_dir\": 450, \"compute_units\": 78}");
    assert_int_equal(sim_hw_load(p, &hw, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "field 'dense_tflops' is not a number or an object"));
}

/* The provenance of each efficiency (hw.h): fitted and inherited entries from the file, stated
 * for a number given without one, default for the architecture's; copies follow their source;
 * a bad entry is refused with the file and the entry. */
static void test_provenance(void **state)
{
    (void)state;
    static const char *base =
        "{\"name\": \"X\", \"arch\": \"hopper\", \"dense_tflops\": 148, \"hbm_gib\": 96, "
        "\"hbm_tb_per_s\": 4.0, \"scaleup_gb_per_s_per_dir\": 450, \"compute_units\": 78";
    char text[2048];
    sim_hw hw;
    sim_err err = {{0}};
    tu_snprintf(text, sizeof text, "%s}", base);
    assert_int_equal(sim_hw_load(tu_write_tmp(text), &hw, &err), SIM_OK);
    assert_true(sim_hw_default_only(&hw));
    assert_string_equal(sim_hw_trust_name(&hw), "default-only");
    assert_int_equal(sim_hw_provenance(&hw, "efficiency.attention")->kind, SIM_HW_PROV_DEFAULT);
    assert_null(sim_hw_provenance(&hw, "hbm_gib")); /* a datasheet number, not an efficiency */
    tu_snprintf(text, sizeof text,
                "%s, \"efficiency\": {\"gemm\": {\"bf16\": 0.7}, \"memory\": 0.8}, "
                "\"provenance\": {\"efficiency.gemm.bf16\": {\"kind\": \"fitted\", \"rows\": 12, "
                "\"data\": \"rows.csv\"}, \"efficiency.attention\": {\"kind\": \"inherited\", "
                "\"from\": \"h100-sxm\", \"rows\": 5, \"rule\": \"same SM\"}}}",
                base);
    const char *p = tu_write_tmp(text);
    assert_int_equal(sim_hw_load(p, &hw, &err), SIM_OK);
    const sim_hw_prov *g = sim_hw_provenance(&hw, "efficiency.gemm.bf16");
    assert_int_equal(g->kind, SIM_HW_PROV_FITTED);
    assert_int_equal(g->rows, 12);
    assert_string_equal(g->note, "rows.csv");
    /* the rows are the file's own: its stem is the device the rows name */
    char stem[256];
    const char *b = strrchr(p, '/');
    tu_snprintf(stem, sizeof stem, "%s", b ? b + 1 : p);
    *strrchr(stem, '.') = '\0';
    assert_string_equal(g->device, stem);
    /* gemm.fp16 copies gemm.bf16 (and the file's bf16 gives fp8 its value): both fitted */
    assert_int_equal(sim_hw_provenance(&hw, "efficiency.gemm.fp16")->kind, SIM_HW_PROV_FITTED);
    assert_int_equal(sim_hw_provenance(&hw, "efficiency.gemm.fp8")->kind, SIM_HW_PROV_FITTED);
    const sim_hw_prov *a = sim_hw_provenance(&hw, "efficiency.attention");
    assert_int_equal(a->kind, SIM_HW_PROV_INHERITED);
    assert_string_equal(a->device, "h100-sxm");
    assert_int_equal(a->rows, 5);
    /* stated: the file's number with no entry; quant.gemm_memory.fp8 follows efficiency.memory */
    assert_int_equal(sim_hw_provenance(&hw, "efficiency.memory")->kind, SIM_HW_PROV_STATED);
    assert_int_equal(sim_hw_provenance(&hw, "quant.gemm_memory.fp8")->kind, SIM_HW_PROV_STATED);
    assert_false(sim_hw_default_only(&hw));
    assert_string_equal(sim_hw_trust_name(&hw), "fitted");
    char line[512];
    sim_hw_prov_describe(a, line, sizeof line);
    assert_string_equal(line, "inherited from h100-sxm (fitted there on 5 rows): same SM");
    static const struct {
        const char *prov, *msg;
    } bad[] = {
        {"[]", "field 'provenance' is not an object"},
        {"{\"hbm_gib\": {\"kind\": \"fitted\"}}", "an entry 'hbm_gib', expected an efficiency"},
        {"{\"efficiency.memory\": 3}", "'provenance.efficiency.memory' is not an object"},
        {"{\"efficiency.memory\": {\"kind\": \"guessed\"}}", "kind 'guessed', expected"},
        {"{\"efficiency.memory\": {\"kind\": \"fitted\", \"data\": \"x\"}}", "'rows'"},
        {"{\"efficiency.memory\": {\"kind\": \"fitted\", \"rows\": 0, \"data\": \"x\"}}",
         "'rows' out of range"},
        {"{\"efficiency.memory\": {\"kind\": \"fitted\", \"rows\": 3}}", "no 'data'"},
        {"{\"efficiency.memory\": {\"kind\": \"inherited\", \"rule\": \"r\"}}", "no 'from'"},
        {"{\"efficiency.memory\": {\"kind\": \"inherited\", \"from\": \"h100-sxm\"}}",
         "no 'rule'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_snprintf(text, sizeof text, "%s, \"provenance\": %s}", base, bad[i].prov);
        p = tu_write_tmp(text);
        assert_int_equal(sim_hw_load(p, &hw, &err), SIM_EINPUT);
        if (!strstr(err.msg, bad[i].msg) || !strstr(err.msg, p)) {
            print_error("provenance %s: '%s', expected '%s'\n", bad[i].prov, err.msg, bad[i].msg);
            fail();
        }
    }
}

/* Every shipped device loads, states its peaks per format (dense_tflops an object: a format it
 * leaves out is refused), a board power and idle floor unless the vendor publishes none (the
 * TPUs), and cites a source for every number it gives. */
static void test_datasheet_devices(void **state)
{
    (void)state;
    /* mxfp6 peaks, dense TFLOP/s: MI355X 10066.3 (= its mxfp4 rate, AMD's table), the Blackwell
     * parts their FP8/FP6 peak (NVIDIA's pages list one); MI300X and H200 have none */
    static const struct {
        const char *hw;
        double mxfp6;
    } fp6[] = {{"mi355x", 10066.3}, {"b200", 4500}, {"b300", 4500}, {"gb200", 5000},
               {"gb300", 5000},     {"mi300x", 0},  {"mi325x", 0},  {"h200", 0}};
    for (size_t d = 0; d < sizeof fp6 / sizeof fp6[0]; d++) {
        sim_hw hw = tu_hw(fp6[d].hw);
        assert_near(hw.peak_flops[SIM_DT_MXFP6], fp6[d].mxfp6 * 1e12, 1e-9);
        if (fp6[d].mxfp6 > 0.0) /* the fp8 GEMM efficiency carries over */
            assert_near(hw.eff_gemm[SIM_DT_MXFP6], hw.eff_gemm[SIM_DT_FP8], 1e-12);
    }
    static const char *const added[] = {
        "a100-sxm-40gb", "a100-sxm-80gb", "a10g", "b200", "b300", "gaudi3", "gb200", "gb300",
        "h100-pcie", "h100-sxm", "h20", "h200", "h800", "l4", "l40", "l40s", "mi300x", "mi325x",
        "mi355x", "rtx-4090", "rtx-pro-6000-blackwell", "tpu-v5e", "tpu-v6e", "tpu-v7"};
    for (size_t d = 0; d < sizeof added / sizeof added[0]; d++) {
        sim_hw hw = tu_hw(added[d]);
        assert_true(hw.peak_flops[SIM_DT_BF16] > 0.0 && hw.hbm_bytes_per_s > 0.0);
        cJSON *root;
        sim_err err = {{0}};
        assert_int_equal(sim_jsonf_load(tu_path("hw", added[d]), &root, &err), SIM_OK);
        if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "dense_tflops"))) {
            print_error("hw/%s.json: dense_tflops is not an object of formats\n", added[d]);
            fail();
        }
        const bool tpu = strncmp(added[d], "tpu-", 4) == 0; /* Google publishes no chip power */
        if (tpu == sim_power_known(&hw) || (!tpu && !(hw.power.idle_w > 0.0))) {
            print_error("hw/%s.json: power %s\n", added[d], tpu ? "given" : "missing");
            fail();
        }
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(root, "sources");
        const cJSON *it;
        cJSON_ArrayForEach(it, root)
        {
            if (strcmp(it->string, "sources") == 0 || strcmp(it->string, "name") == 0 ||
                strcmp(it->string, "arch") == 0 || strcmp(it->string, "provenance") == 0 ||
                strcmp(it->string, "calibration") == 0)
                continue;
            /* the collectives carry their own sources; efficiency, quant and alltoall one per number */
            if (strcmp(it->string, "collectives") == 0) {
                assert_true(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(it, "sources")));
                continue;
            }
            if (strcmp(it->string, "efficiency") == 0 || strcmp(it->string, "quant") == 0 ||
                strcmp(it->string, "alltoall") == 0) {
                const cJSON *a, *b;
                char key[96];
                cJSON_ArrayForEach(a, it)
                {
                    if (!cJSON_IsObject(a)) {
                        tu_snprintf(key, sizeof key, "%s.%s", it->string, a->string);
                        assert_non_null(cJSON_GetObjectItemCaseSensitive(src, key));
                        continue;
                    }
                    cJSON_ArrayForEach(b, a)
                    {
                        tu_snprintf(key, sizeof key, "%s.%s.%s", it->string, a->string,
                                    b->string);
                        if (!cJSON_GetObjectItemCaseSensitive(src, key)) {
                            print_error("hw/%s.json: sources.%s missing\n", added[d], key);
                            fail();
                        }
                    }
                }
                continue;
            }
            const cJSON *s = cJSON_GetObjectItemCaseSensitive(src, it->string);
            if (!cJSON_IsString(s) || strlen(s->valuestring) < 10) {
                print_error("hw/%s.json: sources.%s missing\n", added[d], it->string);
                fail();
            }
        }
        cJSON_Delete(root);
    }
    /* spot checks against the datasheets: H20 ridge 148 / 4.0 = 37; B300 computes no int8;
     * MI355X fp8 = 2 x 2516.6 */
    sim_hw hw = tu_hw("h20");
    assert_near(sim_hw_ridge(&hw, SIM_DT_BF16), 37.0, 1e-12);
    hw = tu_hw("b300");
    assert_true(hw.peak_flops[SIM_DT_INT8] == 0.0);
    hw = tu_hw("mi355x");
    assert_near(hw.peak_flops[SIM_DT_FP8], 5033.2e12, 1e-12);
}

/* Whether hw.h's field list names `json`: on a line of its own (" *   name  description"), or
 * in a group ("dense_tflops.{bf16,fp16,...}": the prefix, then the last part among the braces,
 * or "..." for the rest of the formats). */
static bool hw_doc_lists(const char *doc, const char *json)
{
    char key[96];
    tu_snprintf(key, sizeof key, "\n *   %s ", json);
    if (strstr(doc, key))
        return true;
    const char *dot = strrchr(json, '.');
    if (!dot)
        return false;
    tu_snprintf(key, sizeof key, "\n *   %.*s.{", (int)(dot - json), json);
    for (const char *p = strstr(doc, key); p; p = strstr(p + 1, key)) {
        const char *item = p + strlen(key), *end = strchr(item, '}');
        while (end && item < end) {
            size_t n = strcspn(item, ",}");
            if ((n == strlen(dot + 1) && strncmp(item, dot + 1, n) == 0) ||
                (n == 3 && strncmp(item, "...", 3) == 0))
                return true;
            item += n + 1;
        }
    }
    return false;
}

static void test_header_lists_every_field(void **state)
{
    (void)state;
    /* hw.h documents the device file: every row of hw_fields.c's field table must be in its list (a
     * field added to the table without a line there fails here) */
    char path[1024];
    tu_snprintf(path, sizeof path, "%s/sim/hw.h", tu_root());
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char doc[1 << 16];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    assert_true(n > 0 && n < sizeof doc - 1);
    doc[n] = '\0';
    sim_hw hw = tu_hw("h100-sxm");
    for (size_t i = 0; i < sim_hw_n_fields(); i++) {
        const char *json = sim_hw_field(&hw, i).json;
        if (!hw_doc_lists(doc, json))
            fail_msg("sim/hw.h does not list the device field '%s'", json);
    }
    /* and the check can fail */
    assert_false(hw_doc_lists(doc, "efficiency.no_such_field"));
    assert_false(hw_doc_lists(doc, "dense_tflops.fp64"));
}

/* Issue 33 D10: a device file's keys that nothing reads were accepted silently (a typo such as
 * "hbm_gb" left the field at its default or missing). Every key outside "sources" must be one a
 * loader reads; notes under "sources" at any depth, and calibrate's "calibration" record, are
 * kept; every shipped device file still loads (test_props loads each one). */
static void test_unknown_keys_refused(void **state)
{
    (void)state;
    static const struct {
        const char *extra, *field;
    } bad[] = {
        {"\"hbm_gb\": 80", "'hbm_gb'"},
        {"\"efficiency\": {\"gemm\": {\"bf17\": 0.8}}", "'efficiency.gemm.bf17'"},
        {"\"collectives\": {\"algorithms\": [\"ring\"], \"simple\": {\"base_us\": 8, "
         "\"hop_us\": 1}}",
         "'collectives.simple.hop_us'"},
        {"\"quant\": {\"gemm_k_half\": {\"int4\": 100}}", "'quant.gemm_k_half.int4'"},
        {"\"note\": \"a datasheet\"", "'note'"},
    };
    const char *base = "\"dense_tflops\": 148, \"hbm_gib\": 96, \"hbm_tb_per_s\": 4, "
                       "\"scaleup_gb_per_s_per_dir\": 450, \"compute_units\": 78";
    char text[1024];
    sim_hw hw;
    sim_err err = {{0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "{%s, %s}", base, bad[i].extra);
        const char *p = tu_write_tmp(text);
        assert_int_equal(sim_hw_load(p, &hw, &err), SIM_EINPUT);
        if (!strstr(err.msg, bad[i].field) || !strstr(err.msg, "is unknown") ||
            !strstr(err.msg, p)) {
            print_error("'%s': message '%s'\n", bad[i].extra, err.msg);
            fail();
        }
    }
    /* notes anywhere under "sources", and calibrate's record, load */
    snprintf(text, sizeof text,
             "{%s, \"collectives\": {\"algorithms\": [\"ring\"], \"simple\": {\"base_us\": 8}, "
             "\"sources\": {\"anything\": {\"at\": 1}}}, \"calibration\": {\"rows\": 3}, "
             "\"sources\": {\"hbm_gib\": \"datasheet\", \"deep\": {\"x\": [1]}}}",
             base);
    assert_int_equal(sim_hw_load(tu_write_tmp(text), &hw, &err), SIM_OK);
}

/* A part whose tensor cores run slower than the chip its GEMM efficiencies were measured on
 * keeps that chip's overhead time (hw.h sim_hw_gemm_frac / sim_hw_gemm_k_pipe). By hand: frac
 * 0.6 at r 0.15 -> 0.6 / (0.6 + 0.15 x 0.4) = 0.6 / 0.66 = 0.909091; H20 (r 0.1496): 0.6 /
 * (0.6 + 0.05984) = 0.909311, its fp8 K term 1283.2283 x 0.1496 = 191.9709; a full fraction
 * stays 1; without the field nothing moves. */
static void test_tensor_rate_ratio(void **state)
{
    (void)state;
    sim_hw hw = tu_hw("h20");
    assert_near(hw.tensor_rate_ratio, 0.1496, 1e-12);
    assert_near(sim_hw_gemm_frac(&hw, 0.6), 0.6 / 0.65984, 1e-9);
    assert_near(sim_hw_gemm_frac(&hw, 1.0), 1.0, 1e-12);
    assert_near(sim_hw_gemm_k_pipe(&hw, SIM_DT_FP8), 191.97111, 1e-4);
    assert_near(sim_hw_gemm_k_half(&hw, SIM_DT_FP8), 1283.2283, 1e-9); /* the file's value */
    hw.tensor_rate_ratio = 0.15;
    assert_near(sim_hw_gemm_frac(&hw, 0.6), 0.909091, 1e-6);
    hw.tensor_rate_ratio = 0.0;
    assert_near(sim_hw_gemm_frac(&hw, 0.6), 0.6, 1e-12);
    assert_near(sim_hw_gemm_k_pipe(&hw, SIM_DT_FP8), 1283.2283, 1e-9);
    sim_hw h100 = tu_hw("h100-sxm");
    assert_true(h100.tensor_rate_ratio == 0.0);
}

/* mma_sync_fraction: the Hopper files state 2/3 (FlashAttention-3: mma.sync reaches about 2/3
 * of Hopper's tensor-core peak), the other files none (1: on Ampere and Ada mma.sync is the
 * tensor-core instruction). */
static void test_mma_sync_fraction(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double want;
    } cases[] = {{"h100-sxm", 0.667}, {"h200", 0.667}, {"h800", 0.667},
                 {"h100-pcie", 0.667}, {"a100-sxm-80gb", 1.0}, {"l40s", 1.0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_near(tu_hw(cases[i].name).mma_sync_frac, cases[i].want, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ridge_points),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_every_device_loads_and_cites),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_six_field_device),
        cmocka_unit_test(test_datasheet_fields_required),
        cmocka_unit_test(test_datasheet_devices),
        cmocka_unit_test(test_provenance),
        cmocka_unit_test(test_quant_constants),
        cmocka_unit_test(test_header_lists_every_field),
        cmocka_unit_test(test_unknown_keys_refused),
        cmocka_unit_test(test_tensor_rate_ratio),
        cmocka_unit_test(test_mma_sync_fraction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
