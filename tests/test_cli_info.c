/* test_cli_info.c - `hw`, --help and the data lookup end to end: compute formats a device refuses,
 * each efficiency's provenance, datasheet devices, --help everywhere, names resolved from any
 * folder and from an out-of-tree build.
 *
 * The cases run in this process through sim_cli_main (clitest.h, cliutil.h); the few that must
 * launch the infersim binary (run_process_in) say why. */
#include "clitest.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "jsonf.h"

/* Every shipped device refuses a compute format it has no tensor peak for, naming the ones it
 * has (a test per lacking format); Blackwell Ultra computes fp4 and MI355X fp8 and mxfp4. */
static void test_device_formats(void **state)
{
    (void)state;
    static const struct {
        const char *hw, *fmt, *has;
    } lacking[] = {
        {"b300", "int8", "it computes bf16, fp16, fp8, fp4, mxfp4, mxfp6"},
        {"gb300", "int8", "it computes bf16, fp16, fp8, fp4, mxfp4, mxfp6"},
        {"mi300x", "fp4", "it computes bf16, fp16, fp8, int8:"},
        {"mi300x", "mxfp4", "it computes bf16, fp16, fp8, int8:"},
        {"mi300x", "mxfp6", "it computes bf16, fp16, fp8, int8:"},
        {"mi325x", "mxfp6", "it computes bf16, fp16, fp8, int8:"},
        {"h200", "mxfp6", "it computes bf16, fp16, fp8, int8:"},
        {"rtx-pro-6000-blackwell", "mxfp6", "it computes bf16, fp16, fp8, int8, fp4, mxfp4:"},
        {"mi325x", "fp4", "it computes bf16, fp16, fp8, int8:"},
        {"h100-sxm", "fp4", "it computes bf16, fp16, fp8, int8:"},
        {"h200", "mxfp4", "it computes bf16, fp16, fp8, int8:"},
        {"h20", "fp4", "it computes bf16, fp16, fp8, int8:"},
        {"a100-sxm-80gb", "fp8", "it computes bf16, fp16, int8:"},
        {"gaudi3", "int8", "it computes bf16, fp8:"},
        {"gaudi3", "fp4", "it computes bf16, fp8:"},
        {"tpu-v5e", "fp8", "it computes bf16, int8:"},
        {"tpu-v6e", "fp16", "it computes bf16, int8:"},
        /* one lacking format of every other shipped device that lacks one (the datasheets list
         * no such peak; B200, GB200, MI355X and RTX PRO 6000 compute every format) */
        {"a100-sxm-40gb", "fp4", "it computes bf16"},
        {"a100-sxm-80gb", "mxfp6", "it computes bf16"},
        {"a10g", "fp8", "it computes bf16"},
        {"h100-pcie", "fp4", "it computes bf16"},
        {"h800", "fp4", "it computes bf16"},
        {"l4", "fp4", "it computes bf16"},
        {"l40", "fp4", "it computes bf16"},
        {"l40s", "fp4", "it computes bf16"},
        {"rtx-4090", "fp4", "it computes bf16"},
        {"tpu-v5e", "fp4", "it computes bf16"},
        {"tpu-v7", "int8", "it computes bf16"},
        {"tpu-v7", "fp16", "it computes bf16"},
    };
    char a[256];
    for (size_t i = 0; i < sizeof lacking / sizeof lacking[0]; i++) {
        snprintf(a, sizeof a, "run --model llama-3.1-8b --hw %s --weight-dtype %s --act-dtype %s",
                 lacking[i].hw, lacking[i].fmt, lacking[i].fmt);
        expect_bad(a, lacking[i].has);
        snprintf(a, sizeof a, "has no dense_tflops.%s",
                 strcmp(lacking[i].fmt, "mxfp4") == 0 ? "fp4" : lacking[i].fmt);
        assert_non_null(strstr(R.err, a));
    }
    static const struct {
        const char *model, *hw, *act;
    } runs[] = {
        {"llama-3.1-8b-nvfp4", "b300", "fp4"},  {"llama-3.1-8b-nvfp4", "gb300", "fp4"},
        {"llama-3.1-8b-fp8", "mi355x", "fp8"},  {"gpt-oss-120b", "mi355x", "mxfp4"},
        {"llama-3.1-8b-fp8", "b300", "fp8"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        runf("run --model %s --hw %s --batch 64 --format json", runs[i].model, runs[i].hw);
        assert_int_equal(R.rc, 0);
        cJSON *j = cJSON_Parse(R.out);
        assert_non_null(j);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "act_dtype")->valuestring,
                            runs[i].act);
        cJSON_Delete(j);
    }
    /* mxfp6 weights run mxfp6 math where the part has the peak (MI355X at its mxfp4 rate,
     * Blackwell at its fp8 rate), and stay weight-only (16-bit math) where it has none */
    static const struct {
        const char *hw, *act;
    } fp6[] = {{"mi355x", "mxfp6"}, {"b300", "mxfp6"}, {"gb200", "mxfp6"}, {"mi300x", "bf16"}};
    for (size_t i = 0; i < sizeof fp6 / sizeof fp6[0]; i++) {
        runf("run --model llama-3.1-8b --hw %s --weight-dtype mxfp6 --batch 64 --format json",
             fp6[i].hw);
        assert_int_equal(R.rc, 0);
        cJSON *j = cJSON_Parse(R.out);
        assert_non_null(j);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "act_dtype")->valuestring,
                            fp6[i].act);
        cJSON_Delete(j);
    }
}

/* `infersim hw` shows each efficiency's provenance: fitted on N rows of the device, inherited
 * from a measured part with its rule, or default; JSON carries the same. */
static void test_hw_provenance(void **state)
{
    (void)state;
    run("hw b300");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "efficiency.gemm.bf16           inherited inherited from b200"));
    run("hw l40s");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "default-only"));
    run("hw mi355x --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "default_only")));
    const cJSON *p;
    int fitted = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(j, "provenance"))
    {
        const char *f = cJSON_GetObjectItemCaseSensitive(p, "field")->valuestring;
        const char *k = cJSON_GetObjectItemCaseSensitive(p, "kind")->valuestring;
        if (strcmp(f, "efficiency.gemm.fp8") == 0) {
            assert_string_equal(k, "fitted");
            assert_true(num(p, "rows") >= 8);
            assert_string_equal(cJSON_GetObjectItemCaseSensitive(p, "device")->valuestring,
                                "mi355x");
        }
        fitted += strcmp(k, "fitted") == 0;
    }
    assert_true(fitted >= 4);
    cJSON_Delete(j);
}

/* Every command, and sweep's subcommands, answer --help on stdout with exit 0. */
static void test_help_everywhere(void **state)
{
    (void)state;
    static const char *const cmds[] = {"--help",
                                       "help",
                                       "run --help",
                                       "roofline --help",
                                       "serve --help",
                                       "sweep --help",
                                       "sweep run --help",
                                       "sweep serve --help",
                                       "merge --help",
                                       "compare --help",
                                       "trace-check --help",
                                       "op --help",
                                       "validate --help",
                                       "calibrate --help",
                                       "hw --help",
                                       "run --model x --help"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        run(cmds[i]);
        if (R.rc != 0 || !strstr(R.out, "usage: infersim") || R.err[0]) {
            print_error("'%s': rc %d, stderr '%s', stdout '%.80s'\n", cmds[i], R.rc, R.err, R.out);
            fail();
        }
    }
    run("sweep serve --help");
    assert_non_null(strstr(R.out, "--slo-percentile"));
    assert_non_null(strstr(R.out, "infersim serve --help"));
    /* one prefix per message */
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --bogus 1",
               "infersim: serve: unknown flag '--bogus'; see 'infersim serve --help'");
    assert_null(strstr(R.err, "infersim: infersim"));
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --bogus 1",
               "infersim: sweep serve: unknown flag '--bogus'");
    expect_bad("merge --bogus", "infersim: merge: unknown flag '--bogus'");
    expect_bad("frobnicate", "infersim: unknown command 'frobnicate'; expected run, roofline");
    /* a process: main.c hands the real stdout and stderr over and returns the exit status */
    run_process_in(tu_tmpdir(), "frobnicate");
    assert_int_equal(R.rc, 2);
    assert_string_equal(R.out, "");
    assert_int_equal(count_lines(R.err), 1);
    assert_non_null(strstr(R.err, "infersim: unknown command 'frobnicate'"));
}

/* A device from six datasheet fields runs; `infersim hw` says where each field came from. */
static void test_datasheet_device(void **state)
{
    (void)state;
    const char *h20 = tu_write_tmp(
        "{\"name\": \"H20\", \"arch\": \"hopper\", \"dense_tflops\": 148, \"hbm_gib\": 89.4, "
        "\"hbm_tb_per_s\": 4.0, \"scaleup_gb_per_s_per_dir\": 450, \"compute_units\": 78}");
    char a[512];
    snprintf(a, sizeof a, "run --model llama-3.1-8b --hw %s --format json", h20);
    run(a);
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    /* prefill of 1024 tokens is compute-bound: about 2 x 8.03e9 x 1024 / (148e12 x 0.80) =
     * 139 ms */
    assert_between(num(j, "ttft_ms"), 120.0, 160.0);
    cJSON_Delete(j);
    snprintf(a, sizeof a, "run --model llama-3.1-8b --hw %s --weight-dtype fp8", h20);
    run(a); /* fp8 derived from the hopper ratio */
    assert_int_equal(R.rc, 0);
    snprintf(a, sizeof a, "hw %s", h20);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "arch hopper"));
    assert_non_null(strstr(R.out, "dense_tflops.fp8                        296  derived"));
    assert_non_null(strstr(R.out, "hbm_tb_per_s                              4  file"));
    assert_non_null(strstr(R.out, "gemm_tile_m                              64  default"));
    run("hw h100-sxm");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "NVIDIA H100 SXM5"));
    expect_bad("hw", "hw: missing FILE");
}

/* Names resolve without the source tree's help from any folder: the binary finds the data next
 * to itself; calibrate finds its measurements the same way and is idempotent. */
static void test_data_lookup_and_calibrate(void **state)
{
    (void)state;
    /* a process: the real binary started in / (its working directory and its location are what
     * the lookup reads) answers with exit 0 and JSON on its stdout */
    run_process_in("/", "run --model llama-3.1-8b --hw h100-sxm --format json");
    assert_int_equal(R.rc, 0);
    assert_string_equal(R.err, "");
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_true(num(j, "ttft_ms") > 0.0);
    cJSON_Delete(j);
    /* a trace by its name in traces/, from the build folder */
    run("serve --model llama-3.1-8b --hw h100-sxm --trace azure-conv-sample.csv "
        "--num-prompts 5 --format json");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "traces/azure-conv-sample.csv"));
    char dir[256], a[600], b[600];
    tu_snprintf(dir, sizeof dir, "%s/infersim-cal-%d", tu_tmpdir(), (int)getpid());
    assert_int_equal(mkdir(dir, 0700), 0);
    tu_snprintf(a, sizeof a, "%s/1", dir);
    assert_int_equal(mkdir(a, 0700), 0);
    tu_snprintf(a, sizeof a, "%s/2", dir);
    assert_int_equal(mkdir(a, 0700), 0);
    runf("calibrate --hw h100-sxm --out %s/1/h100-sxm.json", dir);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "rows of tools/data/validation.csv"));
    runf("calibrate --hw %s/1/h100-sxm.json --out %s/2/h100-sxm.json", dir, dir);
    assert_int_equal(R.rc, 0);
    snprintf(a, sizeof a, "%s/1/h100-sxm.json", dir);
    snprintf(b, sizeof b, "%s/2/h100-sxm.json", dir);
    char *x = slurp(a), *y = slurp(b);
    assert_non_null(x);
    assert_non_null(y);
    assert_string_equal(x, y); /* calibrating a calibrated file changes nothing */
    /* one provenance line per fitted field: the starting value's source appears once */
    const char *first = strstr(x, "starting value from");
    assert_non_null(first);
    const char *line_end = strchr(first, '\n');
    const char *again = strstr(first + 1, "starting value from");
    assert_true(!again || again > line_end);
    free(x);
    free(y);
    tu_rm_r(dir);
}

/* A binary built out of tree (cmake -S . -B ../build) finds the data of the source tree its
 * build folder records (infersim-source, written by CMake) from any working directory, calibrate's
 * measurements included; without the record it finds none. The build's binary copied into a
 * folder of its own stands for the out-of-tree build: its location is all the lookup reads. */
static void test_data_from_out_of_tree_build(void **state)
{
    (void)state;
    const char *bin = getenv("INFERSIM_BIN"), *root = getenv("INFERSIM_ROOT");
    assert_non_null(bin);
    assert_non_null(root);
    char dir[256], copy[512], rec[512], cmd[1400];
    tu_snprintf(dir, sizeof dir, "%s/outoftree-%d", tu_tmpdir(), (int)getpid());
    assert_int_equal(mkdir(dir, 0700), 0);
    tu_snprintf(copy, sizeof copy, "%s/infersim", dir);
    tu_snprintf(cmd, sizeof cmd, "cp '%s' '%s'", bin, copy);
    assert_int_equal(system(cmd), 0);
    /* no record, and no installed share/infersim on this machine: nothing is found */
    if (access("/usr/local/share/infersim", F_OK) != 0) {
        run_process_bin("/", copy, "run --model llama-3.1-8b --hw h100-sxm --format json");
        assert_int_equal(R.rc, 2);
        assert_non_null(strstr(R.err, "no such file"));
    }
    tu_snprintf(rec, sizeof rec, "%s/infersim-source", dir);
    FILE *f = fopen(rec, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", root);
    assert_int_equal(fclose(f), 0);
    run_process_bin("/", copy, "run --model llama-3.1-8b --hw h100-sxm --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_true(num(j, "ttft_ms") > 0.0);
    cJSON_Delete(j);
    /* calibrate from /: tools/data/validation.csv of the recorded tree */
    tu_snprintf(cmd, sizeof cmd, "calibrate --hw h100-sxm --out %s/h100-sxm.json", dir);
    run_process_bin("/", copy, cmd);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "rows of tools/data/validation.csv"));
    /* a record that is not an absolute path is no root */
    f = fopen(rec, "w");
    assert_non_null(f);
    fprintf(f, "relative/path\n");
    assert_int_equal(fclose(f), 0);
    if (access("/usr/local/share/infersim", F_OK) != 0) {
        run_process_bin("/", copy, "run --model llama-3.1-8b --hw h100-sxm");
        assert_int_equal(R.rc, 2);
    }
    tu_rm_r(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_everywhere),
        cmocka_unit_test(test_datasheet_device),
        cmocka_unit_test(test_data_lookup_and_calibrate),
        cmocka_unit_test(test_data_from_out_of_tree_build),
        cmocka_unit_test(test_device_formats),
        cmocka_unit_test(test_hw_provenance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
