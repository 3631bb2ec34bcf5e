/* test_cli_validate.c - `validate`, `calibrate` and `compare` end to end: the validation CSV's rows
 * and summary lines, calibration from microbench rows, strict inputs, compare's result files.
 *
 * The cases run in this process through sim_cli_main (clitest.h, cliutil.h); the few that must
 * launch the infersim binary (run_process_in) say why. */
#include "clitest.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "jsonf.h"

/* The header of tools/data/validation.csv and the rows `keep` takes (given the row's text up to
 * its end of line), written to `path`. */
static void validation_rows(const char *path, bool (*keep)(const char *row))
{
    char csv[1024];
    tu_snprintf(csv, sizeof csv, "%s/tools/data/validation.csv", tu_root());
    char *all = slurp(csv);
    assert_non_null(all);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (char *line = all; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
        char *row = strndup(line, len);
        if (line == all || keep(row))
            fputs(row, f);
        free(row);
        line += len;
    }
    assert_int_equal(fclose(f), 0);
    free(all);
}

/* Every row but the serve ones, except serve row 1113. */
static bool static_or_1113(const char *row)
{
    const char *kind = strchr(row, ',');
    if (kind && strncmp(kind, ",spec,", 6) == 0)
        return false; /* speculative decoding's rows: test_validation_spec_rows */
    return !kind || strncmp(kind, ",serve,", 7) != 0 || strncmp(row, "1113,", 5) == 0;
}

static bool spec_only(const char *row)
{
    const char *kind = strchr(row, ',');
    return !kind || strncmp(kind, ",spec,", 6) == 0; /* the header has no kind */
}

/* The speculative-decoding rows (ids 3200..3399): their own summary line and gate, out of the
 * end-to-end figures; a gate with none of them refused. */
static void test_validation_spec_rows(void **state)
{
    (void)state;
    char subset[256], vcmd[512];
    tu_snprintf(subset, sizeof subset, "%s/validation-spec.csv", tu_tmpdir());
    validation_rows(subset, spec_only);
    snprintf(vcmd, sizeof vcmd, "validate --data %s", subset);
    run(vcmd);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\n  speculative decoding: 35 points, median |error| "));
    /* the same rows by the engine that measured them and by method: 16 vLLM (3200-3211,
     * 3900-3903) and 19 SGLang (3212-3230); 18 EAGLE-1 and 17 EAGLE-3; the low-trust MTP and
     * Llama-3-8B rows in none */
    assert_non_null(strstr(R.out, "\n  speculative decoding, engine vllm: 16 points, median "));
    assert_non_null(strstr(R.out, "\n  speculative decoding, engine sglang: 19 points, median "));
    assert_non_null(strstr(R.out, "\n  speculative decoding, method eagle: 18 points, median "));
    assert_non_null(strstr(R.out, "\n  speculative decoding, method eagle3: 17 points, median "));
    assert_null(strstr(R.out, "speculative decoding, method mtp"));
    assert_non_null(strstr(R.out, "\n  end-to-end: 0 points"));
    snprintf(vcmd, sizeof vcmd, "validate --data %s --max-spec-median 0.01", subset);
    run(vcmd);
    assert_int_equal(R.rc, 1);
    assert_non_null(strstr(R.err, "speculative-decoding median"));
    tu_snprintf(subset, sizeof subset, "%s/validation-subset.csv", tu_tmpdir());
    validation_rows(subset, static_or_1113);
    snprintf(vcmd, sizeof vcmd, "validate --data %s --max-spec-median 10", subset);
    run(vcmd);
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "no spec row"));
}

/* A few H100 rows of each group: 16-bit GEMMs and a copy, fp8 GEMMs, Marlin int4. */
static bool calibration_sample(const char *row)
{
    static const char *const ids[] = {"31",   "37",   "38",   "44",   "45",   "64",   "1078",
                                      "1083", "1088", "1092", "1094", "1096", "1098", "1102"};
    size_t n = strcspn(row, ",");
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (strlen(ids[i]) == n && strncmp(row, ids[i], n) == 0)
            return true;
    return false;
}

/* The header of tools/data/validation.csv, for the tests' own tables of rows. */
#define VALIDATE_HDR                                                                               \
    "id,kind,hw,dtype,gpus,m,n,k,batch,seq,heads,head_dim,causal,bytes,model,tp,input_len,"      \
    "output_len,weight_dtype,act_dtype,kv_dtype,framework,metric,value,unit,skip,source,"         \
    "group_size,act_quant,algo,trust,request_rate,range_ratio\n"

/* Runs validate on a table of rows written to a temporary file; it must succeed. */
static void validate_rows_ok(const char *csv)
{
    const char *path = tu_write_tmp(csv);
    char a[512];
    snprintf(a, sizeof a, "validate --data %s", path);
    run(a);
    assert_int_equal(R.rc, 0);
}

/* validate picks each end-to-end row's profile from its framework column on its device: a vLLM 0.6
 * row on MI300X is the ROCm V0 build's, a TensorRT-LLM 0.17 row with Triton trtllm-triton's, and a
 * release no profile covers skips the row with the ranges there are. */
static void test_validate_row_versions(void **state)
{
    (void)state;
    const char *hdr = VALIDATE_HDR;
    char csv[2048];
    snprintf(csv, sizeof csv,
             "%s"
             "1,e2e,mi300x,,,,,,1,,,,,,llama-3.1-8b,1,128,128,bf16,bf16,bf16,\"vLLM 0.6.3 ROCm\","
             "e2e_s,1.0,s,,test,,,,,,\n"
             "2,e2e,h100-sxm,,,,,,1,,,,,,llama-3.1-8b,1,128,128,bf16,bf16,bf16,\"TensorRT-LLM 0.17 "
             "with Triton\",e2e_s,1.0,s,,test,,,,,,\n"
             "3,e2e,h100-sxm,,,,,,1,,,,,,llama-3.1-8b,1,128,128,bf16,bf16,bf16,\"vLLM 0.3\","
             "e2e_s,1.0,s,,test,,,,,,\n",
             hdr);
    validate_rows_ok(csv);
    assert_non_null(strstr(R.out, "\n  end-to-end, engine vllm rocm: 1 points"));
    assert_non_null(strstr(R.out, "\n  end-to-end, engine trtllm-triton: 1 points"));
    assert_non_null(strstr(R.out, "   3 skipped: row 3: framework: value 'vllm@0.3'"));
    assert_non_null(strstr(R.out, "vllm-v0 >=0.5,<0.8"));
}

/* A serve row whose framework records the client's --max-concurrency runs that closed loop: 4
 * requests of 64 / 8 tokens one at a time each reach their first token as one request alone
 * (the median TTFT `serve --max-concurrency 1` prints), sooner than 4 sent at once. */
static void test_validate_row_max_concurrency(void **state)
{
    (void)state;
    const char *hdr = VALIDATE_HDR;
    char csv[1024];
    snprintf(csv, sizeof csv,
             "%s"
             "1,serve,h100-sxm,,,,,,4,,,,,,llama-3.1-8b,1,64,8,bf16,bf16,bf16,\"SGLang 0.5.6 "
             "(bench_serving)\",median_ttft_ms,10,ms,,test,,,,,,\n"
             "2,serve,h100-sxm,,,,,,4,,,,,,llama-3.1-8b,1,64,8,bf16,bf16,bf16,\"SGLang 0.5.6 "
             "(bench_serving, --max-concurrency 1)\",median_ttft_ms,10,ms,,test,,,,,,\n",
             hdr);
    validate_rows_ok(csv);
    double pred[2] = {0.0, 0.0};
    for (int i = 0; i < 2; i++) {
        char key[32];
        snprintf(key, sizeof key, "\n   %d serve ", i + 1);
        const char *line = strstr(R.out, key);
        assert_non_null(line);
        double measured = 0.0;
        assert_int_equal(sscanf(strstr(line, "x4") + 2, "%lf %lf", &measured, &pred[i]), 2);
    }
    run("serve --model llama-3.1-8b --hw h100-sxm --engine sglang@0.5.6 --num-prompts 4 "
        "--random-input-len 64 --random-output-len 8 --max-concurrency 1 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    const double alone = num(j, "median_ttft_ms");
    cJSON_Delete(j);
    assert_near(pred[1], alone, 1e-3); /* validate prints 4 significant digits */
    assert_true(pred[0] > 1.5 * pred[1]);
}

/* validate's summary splits the end-to-end rows by what they time (TTFT; ITL or TPOT) and gives
 * the MoE models' rows apart, split the same way; a server memory flag in the framework column
 * (SGLang's --mem-fraction-static, vLLM's --gpu-memory-utilization) is the fraction the row runs
 * at, and one outside (0, 1] skips the row saying so. */
static void test_validate_timed_and_moe_lines(void **state)
{
    (void)state;
    const char *hdr = VALIDATE_HDR;
    char csv[2048];
    snprintf(csv, sizeof csv,
             "%s"
             "1,serve,h100-sxm,,,,,,4,,,,,,llama-3.1-8b,1,64,8,bf16,bf16,bf16,\"SGLang 0.5.6 "
             "(bench_serving)\",median_ttft_ms,10,ms,,test,,,,,,\n"
             "2,serve,h100-sxm,,,,,,4,,,,,,qwen3-30b-a3b,1,64,8,bf16,bf16,bf16,\"SGLang 0.5.6 "
             "(bench_serving)\",median_itl_ms,5,ms,,test,,,,,,\n"
             "3,e2e,h100-sxm,,,,,,1,,,,,,qwen3-30b-a3b,1,64,8,bf16,bf16,bf16,\"vLLM 0.11\","
             "e2e_s,0.1,s,,test,,,,,,\n"
             /* 0.15 of 80 GB holds no 16 GB of weights: the flag is applied */
             "4,serve,h100-sxm,,,,,,4,,,,,,llama-3.1-8b,1,64,8,bf16,bf16,bf16,\"SGLang 0.5.6 "
             "(--mem-fraction-static 0.15)\",median_ttft_ms,10,ms,,test,,,,,,\n"
             "5,serve,h100-sxm,,,,,,4,,,,,,llama-3.1-8b,1,64,8,bf16,bf16,bf16,\"vLLM 0.11 "
             "(--gpu-memory-utilization=1.5)\",median_ttft_ms,10,ms,,test,,,,,,\n",
             hdr);
    validate_rows_ok(csv);
    assert_non_null(strstr(R.out, "\n  end-to-end: 3 points, "));
    assert_non_null(strstr(R.out, "\n    TTFT: 1 points, "));
    assert_non_null(strstr(R.out, "\n    ITL / TPOT: 1 points, "));
    assert_non_null(strstr(R.out, "\n  end-to-end MoE: 2 points, "));
    assert_non_null(strstr(R.out, "\n    MoE TTFT: 0 points\n")); /* no median for no rows */
    assert_non_null(strstr(R.out, "\n    MoE ITL / TPOT: 1 points, "));
    assert_non_null(strstr(R.out, "\n   4 skipped: "));
    assert_non_null(strstr(R.out, "at --gpu-memory-utilization 0.15"));
    assert_non_null(strstr(R.out, "\n   5 skipped: row 5: framework: --gpu-memory-utilization value "
                                  "'1.5)', expected a fraction in (0, 1]"));
}

/* validate over the rows in csv with --max-family-median gate (no band draws). */
static void family_gate(const char *csv, double gate)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "validate --data %s --coverage-draws 0 --max-family-median %g",
             tu_write_tmp(csv), gate);
    run(cmd);
}

/* validate groups a device's op rows with the other boards of its chip: the A100 40 GB and 80 GB
 * files are one family (a100), a line of its own; --max-family-median gates each family of 8 rows
 * or more. Hand-worked: both boards price a 4096^3 bf16 GEMM at the same rate P (312 TFLOP/s x the
 * same fitted fraction), so rows measured at P / (1 + e) err by e: 1, 2, 3, 5, 5, 6 % on the 80 GB
 * board and 10, 20 % on the 40 GB one, whose family median is 5 % (the 4th and 5th of eight
 * sorted errors are both 5, whatever the percentile's interpolation). */
/* Rows 0-29: the Argonne static batches (TensorRT-LLM 0.11 and vLLM 0.5/0.6 on H100 and A100). */
static bool argonne_static(const char *row)
{
    return atoi(row) < 30 && strchr(row, ',') && strncmp(strchr(row, ','), ",e2e,", 5) == 0;
}

/* --coverage-out: one CSV line per banded end-to-end row, as many as the coverage line counts,
 * each band holding its prediction and its `inside` what lo <= measured <= hi says; without
 * draws there is nothing to write. */
static void test_validate_coverage_out(void **state)
{
    (void)state;
    char subset[256], bands[256], vcmd[1024];
    tu_snprintf(subset, sizeof subset, "%s/validation-argonne.csv", tu_tmpdir());
    tu_snprintf(bands, sizeof bands, "%s/bands.csv", tu_tmpdir());
    validation_rows(subset, argonne_static);
    snprintf(vcmd, sizeof vcmd, "validate --data %s --coverage-draws 4 --coverage-out %s", subset,
             bands);
    run(vcmd);
    assert_int_equal(R.rc, 0);
    const char *cov = strstr(R.out, "leave-one-source-out): ");
    assert_non_null(cov);
    int rows = 0;
    double pct = 0.0;
    assert_int_equal(sscanf(cov, "leave-one-source-out): %lf%% of %d", &pct, &rows), 2);
    assert_true(rows >= 20); /* 26 rows, less the two that do not fit or have no fp8 */
    char *text = slurp(bands);
    assert_non_null(text);
    const char *header = "id,kind,hw,model,metric,measured,predicted,lo,hi,inside,engine_scope,"
                         "engine_sigma,engine_level,source\n";
    assert_int_equal(strncmp(text, header, strlen(header)), 0);
    int lines = 0, inside = 0;
    for (char *l = strchr(text, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
        long long id;
        char kind[16], hw[32], model[64], metric[32];
        double measured, pred, lo, hi;
        int in;
        assert_int_equal(sscanf(l, "%lld,%15[^,],%31[^,],%63[^,],%31[^,],%lf,%lf,%lf,%lf,%d", &id,
                                kind, hw, model, metric, &measured, &pred, &lo, &hi, &in),
                         10);
        assert_true(lo <= pred && pred <= hi);
        assert_int_equal(in, measured >= lo && measured <= hi);
        inside += in;
        lines++;
    }
    free(text);
    assert_int_equal(lines, rows);
    assert_float_equal(pct, 100.0 * inside / lines, 0.051); /* the line prints one decimal */
    snprintf(vcmd, sizeof vcmd, "validate --data %s --coverage-draws 0 --coverage-out %s",
             subset, bands);
    expect_bad(vcmd, "--coverage-draws: value 0 with --coverage-out, expected draws above 0");
}

static void test_validate_device_families(void **state)
{
    (void)state;
    double p80 = 0.0, p40 = 0.0;
    run("op --hw a100-sxm-80gb --op gemm --m 4096 --n 4096 --k 4096");
    assert_int_equal(R.rc, 0);
    assert_int_equal(sscanf(strstr(R.out, " ms, ") + 5, "%lf", &p80), 1);
    run("op --hw a100-sxm-40gb --op gemm --m 4096 --n 4096 --k 4096");
    assert_int_equal(R.rc, 0);
    assert_int_equal(sscanf(strstr(R.out, " ms, ") + 5, "%lf", &p40), 1);
    static const struct {
        const char *hw;
        double err_pct;
    } rows[] = {{"a100-sxm-80gb", 1},  {"a100-sxm-80gb", 2},  {"a100-sxm-80gb", 3},
                {"a100-sxm-80gb", 5},  {"a100-sxm-80gb", 5},  {"a100-sxm-80gb", 6},
                {"a100-sxm-40gb", 10}, {"a100-sxm-40gb", 20}};
    char csv[4096];
    int at = snprintf(csv, sizeof csv, "%s", VALIDATE_HDR);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const double p = strcmp(rows[i].hw, "a100-sxm-40gb") ? p80 : p40;
        at += snprintf(csv + at, sizeof csv - (size_t)at,
                       "%zu,gemm,%s,bf16,,4096,4096,4096,,,,,,,,,,,,,,test,tflops,%.9g,TFLOP/s,,"
                       "test,,,,,,\n",
                       i + 1, rows[i].hw, p / (1.0 + rows[i].err_pct / 100.0));
    }
    family_gate(csv, 5.1);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\n  op hw a100-sxm-80gb: 6 points, median |error| 4.0%"));
    assert_non_null(strstr(R.out, "\n  op hw a100-sxm-40gb: 2 points, "));
    assert_non_null(strstr(R.out, "\n  op family a100 (a100-sxm-80gb, a100-sxm-40gb): 8 points, "
                                  "median |error| 5.0%"));
    family_gate(csv, 4.9);
    assert_int_equal(R.rc, 1);
    assert_non_null(strstr(R.err, "op-level median 5.0% of device family a100 (8 rows) is above "
                                  "4.9%"));
    /* seven rows: no family to gate, and a gate over none is refused */
    *strrchr(csv, '\n') = '\0';
    *(strrchr(csv, '\n') + 1) = '\0';
    family_gate(csv, 50);
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "--max-family-median: no device family has 8 or more op-level "
                                  "rows"));
}

static void test_validation_commands(void **state)
{
    (void)state;
    expect_bad("run --model llama-3.1-8b --hw a100-sxm-80gb --tp 2 --allreduce nvls",
               "--allreduce: value nvls is not an algorithm of NVIDIA A100 SXM4 80GB");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --tp 2 --allreduce warp",
               "--allreduce: value 'warp'");
    /* the shipped table without its serve rows but one (the 18 simulate ~100,000 requests, too
     * slow for the sanitizer build; tools/validate runs them all): an impossible target fails
     * after the whole table and its summary */
    char subset[256], vcmd[512];
    tu_snprintf(subset, sizeof subset, "%s/validation-subset.csv", tu_tmpdir());
    validation_rows(subset, static_or_1113);
    snprintf(vcmd, sizeof vcmd, "validate --data %s --max-op-median 0.01", subset);
    run(vcmd);
    assert_int_equal(R.rc, 1);
    assert_non_null(strstr(R.err, "op-level median"));
    /* the file's rows less its serve ones (all but 1113): 31 skipped (29 in the file, 15 of them
     * Mixtral's identical-prompt batches; an A100 40GB batch that does not fit, fp8 KV on A100),
     * 53 low-trust shown but not counted (26 of them fused_moe rows: untuned, L2-resident; 9
     * MI300X rows, ids 2600-2608); ids
     * 2800-2808, 2846-2997 and 3580-3599 are 181 op rows of issue 25's devices, 3540-3559 20
     * MI300X fp8 GEMMs (issue 24), 3620-3628 9 B200 fused_moe rows (issue 24), 3508-3512 5 H20
     * fused_moe rows (issue 23), 3721-3752 32 op rows of Azure's MI300X and GB200 suites with
     * GB200's 41, 76 and 77 (issue 25), 3661-3673 13 H20 Marlin fused-MoE rows (issue 28),
     * 3674-3678 5 A100 fused_moe rows (issues 23 / 28) */
    assert_non_null(strstr(R.out, "\nvalidation: 532 points, median |error| "));
    assert_non_null(strstr(R.out, "\n  op-level: 479 points")); /* 7 block-fp8 rows 3600-3606 */
    assert_non_null(strstr(R.out, "\n  op moe_layer: 54 points"));
    assert_non_null(strstr(R.out, "\n  op decode_attention: 35 points"));
    assert_non_null(strstr(R.out, "\n  end-to-end: 53 points")); /* 52 static, 1 serve */
    /* by the engine that measured them: TensorRT-LLM 0.11's static rows and 1.0's 1113, vLLM's */
    assert_non_null(strstr(R.out, "\n  end-to-end, engine trtllm: "));
    assert_non_null(strstr(R.out, "\n  end-to-end, engine vllm: "));
    assert_non_null(strstr(R.out, "\n  quantized: op-level 178 points")); /* 20 + 7 MI300X fp8 */
    assert_non_null(strstr(R.out, "\n  op alltoall: 34 points"));
    assert_non_null(strstr(R.out, "\n  op allreduce_norm: 3 points"));
    assert_non_null(strstr(R.out, "\n  op allreduce: 67 points")); /* 7 MI300X, 7 GB200 */
    assert_non_null(strstr(R.out, "\n  op size <= 64 KB: "));
    assert_non_null(strstr(R.out, "\n  op size <= 4 MB: "));
    assert_non_null(strstr(R.out, "\n  op size > 4 MB: "));
    assert_non_null(strstr(R.out, "(53 low-trust rows shown above"));
    assert_non_null(strstr(R.out, "% (low trust)\n"));
    assert_non_null(strstr(R.out, "1113 serve     h100-sxm       output_tps     2048/128 x3000"));
    assert_non_null(strstr(R.out, "  58 skipped: FlashAttention-2 has no Blackwell kernel"));
    /* a size bucket past its target fails too */
    snprintf(vcmd, sizeof vcmd, "validate --data %s --max-bucket-median 0.01", subset);
    run(vcmd);
    assert_int_equal(R.rc, 1);
    assert_non_null(strstr(R.err, "of size <= 64 KB is above"));
    run("op --hw h100-sxm --op allreduce --bytes 1048576 --gpus 8");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "GB/s bus bandwidth"));
    /* a 16 KB all-reduce on 8 H100s is a one-shot custom kernel of at most 12 us; 256 MB keeps
     * NCCL's large-message bus bandwidth (NVLS: 330 .. 450 GB/s) */
    double ms, gbs;
    run("op --hw h100-sxm --op allreduce --bytes 16384 --gpus 8");
    assert_int_equal(R.rc, 0);
    assert_int_equal(sscanf(strstr(R.out, ": ") + 2, "%lf ms, %lf", &ms, &gbs), 2);
    assert_true(ms * 1e3 <= 12.0 && ms > 0.0);
    assert_non_null(strstr(R.out, "(oneshot)"));
    run("op --hw h100-sxm --op allreduce --bytes 268435456 --gpus 8");
    assert_int_equal(R.rc, 0);
    assert_int_equal(sscanf(strstr(R.out, ": ") + 2, "%lf ms, %lf", &ms, &gbs), 2);
    assert_between(gbs, 330.0, 450.0);
    run("op --hw h100-sxm --op allreduce --bytes 1048576 --gpus 8 --allreduce ring");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "GB/s bus bandwidth (ring "));
    expect_bad("op --hw a100-sxm-80gb --op allreduce --bytes 1024 --allreduce nvls",
               "--allreduce: value nvls is not an algorithm of NVIDIA A100 SXM4 80GB");
    expect_bad("op --hw h100-sxm --op allreduce --bytes 1024 --gpus 16 --allreduce oneshot",
               "16 GPUs span nodes of 8");
    expect_bad("op --hw h100-sxm --op allreduce --bytes 1024 --allreduce fast",
               "--allreduce: value 'fast', expected auto, ring");
    run("op --hw a100-sxm-80gb --op gemm --m 4096 --n 4096 --k 4096 --dtype fp16");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "TFLOP/s"));
    expect_bad("op --hw h100-sxm --op gemm --m 4", "--m --n --k");
    expect_bad("op --hw h100-sxm --op conv --m 4", "--op");
    run("op --hw h100-sxm --op alltoall --bytes 7340032 --gpus 16");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "alltoall on NVIDIA H100"));
    run("op --hw h100-sxm --op grouped_gemm --batch 4 --m 256 --n 4096 --k 7168 --dtype fp8");
    assert_int_equal(R.rc, 0);
    expect_bad("op --hw h100-sxm --op grouped_gemm --m 4", "grouped_gemm: --batch");
    /* calibration writes a device file that loads, with the note of what it was fitted on */
    char path[256], a[512];
    tu_snprintf(path, sizeof path, "%s/infersim-cal-%d.json", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a, "calibrate --hw a100-sxm-80gb --out %s", path);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "op-level rows"));
    snprintf(a, sizeof a, "run --model llama-3.1-8b --hw %s --format json", path);
    run(a);
    assert_int_equal(R.rc, 0);
    cJSON *j;
    sim_err err = {{0}};
    assert_int_equal(sim_jsonf_load(path, &j, &err), SIM_OK);
    const cJSON *cal = cJSON_GetObjectItemCaseSensitive(j, "calibration");
    assert_true(num(cal, "rows") >= 10);
    assert_non_null(
        strstr(cJSON_GetObjectItemCaseSensitive(cal, "fitted_on")->valuestring, "validation.csv"));
    cJSON_Delete(j);
    remove(path);
    expect_bad("calibrate --hw l40", "no op-level rows");
    /* a calibration of a calibrated file changes nothing, and its notes do not stack: fitted
     * on H100, then again on the output */
    char dir[256], first[300], second[300];
    tu_snprintf(dir, sizeof dir, "%s/infersim-cal2-%d", tu_tmpdir(), (int)getpid());
    assert_int_equal(mkdir(dir, 0700), 0);
    tu_snprintf(first, sizeof first, "%s/a", dir);
    assert_int_equal(mkdir(first, 0700), 0);
    tu_snprintf(second, sizeof second, "%s/b", dir);
    assert_int_equal(mkdir(second, 0700), 0);
    snprintf(first, sizeof first, "%s/a/h100-sxm.json", dir);
    snprintf(second, sizeof second, "%s/b/h100-sxm.json", dir);
    char data[300];
    snprintf(data, sizeof data, "%s/rows.csv", dir);
    validation_rows(data, calibration_sample);
    runf("calibrate --hw h100-sxm --data %s --out %s", data, first);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "leave-one-out"));
    runf("calibrate --hw %s --data %s --out %s", first, data, second);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "nothing moves"));
    char *t1 = slurp(first), *t2 = slurp(second);
    assert_non_null(t1);
    assert_non_null(t2);
    assert_string_equal(t1, t2);
    const char *note = strstr(t1, "\"efficiency.memory\":\t\"fitted by");
    assert_non_null(note);
    const char *next = strstr(strstr(note, "fitted by") + 9, "fitted by infersim calibrate");
    const char *eol = strchr(note, '\n');
    assert_true(!next || next > eol); /* one provenance per source */
    /* every parameter the rows constrain is recorded as fitted on them (hw.h) */
    const char *prov = strstr(t1, "\"provenance\":");
    assert_non_null(prov);
    assert_non_null(strstr(prov, "\"kind\":\t\"fitted\""));
    free(t1);
    free(t2);
    tu_rm_r(dir);
}

/* calibrate fits a device file from the rows tools/microbench writes: the fixture is the
 * script's rows_csv of synthetic timings (tests/data/microbench-measured.json, priced by
 * `infersim op` on the H100 fixture with gemm.bf16 0.70, gemm.fp8 0.62, attention 0.45, memory
 * 0.80; tests/python/test_microbench.py checks the script writes exactly these rows), and the
 * fit recovers those four values from the fixture's 0.80, 0.71, 0.57 and 0.866. */
static void test_calibrate_from_microbench_rows(void **state)
{
    (void)state;
    char out[256];
    tu_snprintf(out, sizeof out, "%s/infersim-mb-%d.json", tu_tmpdir(), (int)getpid());
    runf("calibrate --hw %s --data %s/tests/data/microbench-rows.csv --out %s",
         tu_path("tests/data", "h100-fixture"), tu_root(), out);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "24 op-level rows"));
    sim_hw hw;
    sim_err err = {{0}};
    assert_int_equal(sim_hw_load(out, &hw, &err), SIM_OK);
    assert_true(fabs(hw.eff_gemm[SIM_DT_BF16] - 0.70) < 0.005);
    assert_true(fabs(hw.eff_gemm[SIM_DT_FP8] - 0.62) < 0.005);
    assert_true(fabs(hw.eff_attention - 0.45) < 0.005);
    assert_true(fabs(hw.eff_memory - 0.80) < 0.005);
    const sim_hw_prov *p = sim_hw_provenance(&hw, "efficiency.gemm.fp8");
    assert_int_equal(p->kind, SIM_HW_PROV_FITTED);
    assert_int_equal(p->rows, 8); /* the 8 fp8 GEMM rows of its own group */
    assert_non_null(strstr(p->note, "microbench-rows.csv"));
    assert_int_equal(sim_hw_provenance(&hw, "efficiency.attention")->rows, 16);
    /* a device that states no per-query-block attention work gets none fitted */
    assert_true(hw.attn_kv_half == 0.0);
    remove(out);
}

/* calibrate fits efficiency.attention_kv_half where the file states it: MI355X's 20 CK FMHA rows
 * (ids 3813-3832, validation-pending.csv; head dim 128, N 1024-16384, causal and not) move the
 * hand-worked 683 keys and 0.378 to about 350.6 and 0.3677 (median 4.9 -> 2.9 %), both fitted
 * on those 20 rows. */
static void test_calibrate_attention_block_work(void **state)
{
    (void)state;
    char out[256];
    tu_snprintf(out, sizeof out, "%s/infersim-kvh-%d.json", tu_tmpdir(), (int)getpid());
    runf("calibrate --hw mi355x --data %s/tools/data/validation-pending.csv --out %s", tu_root(),
         out);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "20 op-level rows"));
    assert_non_null(strstr(R.out, "efficiency.attention_kv_half 683 ->"));
    sim_hw hw;
    sim_err err = {{0}};
    assert_int_equal(sim_hw_load(out, &hw, &err), SIM_OK);
    assert_true(fabs(hw.attn_kv_half - 350.6) < 5.0);
    assert_true(fabs(hw.eff_attention - 0.3677) < 0.002);
    const sim_hw_prov *p = sim_hw_provenance(&hw, "efficiency.attention_kv_half");
    assert_int_equal(p->kind, SIM_HW_PROV_FITTED);
    assert_int_equal(p->rows, 20);
    remove(out);
}

/* Validation CSVs, traces and result files are read strictly: exit 2, one line naming the file,
 * the line or field, the value and what was expected. */
static void test_strict_inputs(void **state)
{
    (void)state;
    static const char *const header =
        "id,kind,hw,dtype,gpus,m,n,k,batch,seq,heads,head_dim,causal,bytes,model,tp,input_len,"
        "output_len,weight_dtype,act_dtype,kv_dtype,framework,metric,value,unit,skip,source,"
        "group_size,act_quant\n";
    static const struct {
        const char *cmd, *row, *mention;
    } rows[] = {
        {"validate",
         "1,allreduce,h100-sxm,,1,,,,,,,,,1048576,,,,,,,,x,busbw_gb_per_s,100,GB/s,,s,,",
         ":2: field 'gpus' is '1', expected >= 2 for allreduce rows"},
        {"validate", "1,gemm,h100-sxm,bf16,,4k,4096,4096,,,,,,,,,,,,,,x,tflops,700,TFLOP/s,,s,,",
         ":2: field 'm' is '4k', expected a whole number"},
        {"calibrate --hw h100-sxm",
         "1,gemm,h100-sxm,fp6,,4096,4096,4096,,,,,,,,,,,,,,x,tflops,700,TFLOP/s,,s,,",
         ":2: field 'dtype' is 'fp6', expected one of bf16"},
    };
    char a[512], text[1024];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        snprintf(text, sizeof text, "%s%s\n", header, rows[i].row);
        snprintf(a, sizeof a, "%s --data %s", rows[i].cmd, tu_write_tmp(text));
        expect_bad(a, rows[i].mention);
    }
    /* attention in a format the device has no peak for would price at inf */
    expect_bad("op --hw h100-sxm --op attention --dtype int4 --batch 1 --seq 1024 --heads 8 "
               "--head-dim 128",
               "field 'dense_tflops.int4' is missing");
    /* 1e4 s x 1e6 = 1e10 s after the first arrival: past the 1e9 s bound */
    const char *t = tu_write_tmp("arrival_s,input_tokens,output_tokens\n0,10,20\n1e4,30,40\n");
    snprintf(a, sizeof a, "serve --model llama-3.1-8b --hw h100-sxm --trace %s --time-scale 1e6",
             t);
    expect_bad(a, ":3: field 'arrival_s' is 10000");
    /* compare: no metric at all, or one of the wrong type */
    snprintf(a, sizeof a, "compare --result %s --model llama-3.1-8b --hw h100-sxm",
             tu_write_tmp("{\"foo\": 1}"));
    expect_bad(a, "expected at least one measured metric");
    snprintf(a, sizeof a, "compare --result %s --model llama-3.1-8b --hw h100-sxm",
             tu_write_tmp("{\"ttft_ms\": \"12\"}"));
    expect_bad(a, "field 'ttft_ms' is the string \"12\"");
}

static void test_compare(void **state)
{
    (void)state;
    /* a "measurement" that is our own prediction compares at 0% everywhere */
    const char *flags = "--model llama-3.1-8b --hw h100-sxm --num-prompts 50 --request-rate 5 "
                        "--random-input-len 300 --random-output-len 40";
    char a[1024];
    snprintf(a, sizeof a, "serve %s --format json", flags);
    run(a);
    assert_int_equal(R.rc, 0);
    const char *res = tu_write_tmp(R.out);
    snprintf(a, sizeof a, "compare --result %s %s", res, flags);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "mean_ttft_ms"));
    assert_non_null(strstr(R.out, "compare: 14 metrics, median |error| 0.0%"));
    /* a run-style measurement */
    res = tu_write_tmp("{\"ttft_ms\": 30.0, \"tpot_ms\": 7.0, \"e2e_ms\": 1800}");
    snprintf(a, sizeof a,
             "compare --result %s --model llama-3.1-8b --hw h100-sxm --batch 1 "
             "--input-len 1024 --output-len 256",
             res);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "tpot_ms"));
    assert_non_null(strstr(R.out, "compare: 3 metrics"));
    /* --html: a bar of error for each of the three measured metrics, none for the fourth */
    char page[256];
    tu_snprintf(page, sizeof page, "%s/infersim-cli-compare-%d.html", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a,
             "compare --result %s --model llama-3.1-8b --hw h100-sxm --batch 1 "
             "--input-len 1024 --output-len 256 --html %s",
             res, page);
    run(a);
    assert_int_equal(R.rc, 0);
    char *html = slurp(page);
    assert_non_null(html);
    int bars = 0;
    for (const char *p = strstr(html, "class=\"err\""); p; p = strstr(p + 1, "class=\"err\""))
        bars++;
    assert_int_equal(bars, 3);
    assert_non_null(strstr(html, "not measured"));
    free(html);
    remove(page);
    expect_bad("compare --model llama-3.1-8b --hw h100-sxm", "--result");
}

static void test_compare_reads_the_result(void **state)
{
    (void)state;
    /* a vLLM --save-result file of our own prediction, with the keys vLLM writes: compare needs
     * only --hw, and agrees to 0% */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 40 --request-rate 4 "
        "--random-input-len 500 --random-output-len 50 --format json");
    assert_int_equal(R.rc, 0);
    static char file[(1 << 17) + 4096];
    char *end = strrchr(R.out, '}');
    assert_non_null(end);
    *end = '\0';
    snprintf(file, sizeof file,
             "%s, \"model_id\": \"meta-llama/Llama-3.1-8B-Instruct\", \"num_prompts\": 40, "
             "\"burstiness\": 1.0}", /* (serve's JSON has max_concurrency: a key is taken once) */
             R.out);
    const char *res = tu_write_tmp(file);
    char a[1024];
    snprintf(a, sizeof a, "compare --result %s --hw h100-sxm", res);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "compare: 14 metrics, median |error| 0.0%"));
    assert_int_equal(R.err[0], '\0');
    /* the workload it simulated, and what of it the file gave, before the table */
    assert_non_null(strstr(R.out, "workload: model "));
    assert_non_null(strstr(R.out, "models/llama-3.1-8b.json, engine vllm, 40 "
                                  "prompts, input 500, output 50 tokens, request rate 4/s, "
                                  "burstiness 1, "));
    assert_non_null(strstr(R.out, "workload taken from "));
    assert_non_null(strstr(R.out, ": --model, --num-prompts, --random-input-len, "
                                  "--random-output-len, --request-rate, --burstiness"));
    assert_true(strstr(R.out, "workload:") < strstr(R.out, "metric "));
    /* --save-detailed lengths are replayed exactly: 40 x 500 / 50 is the same workload */
    char lens[2][4096] = {"", ""};
    for (int i = 0; i < 40; i++) {
        strcat(lens[0], i ? ",500" : "500");
        strcat(lens[1], i ? ",50" : "50");
    }
    *strrchr(file, '}') = '\0';
    size_t n = strlen(file);
    snprintf(file + n, sizeof file - n, ", \"input_lens\": [%s], \"output_lens\": [%s]}", lens[0],
             lens[1]);
    res = tu_write_tmp(file);
    snprintf(a, sizeof a, "compare --result %s --hw h100-sxm --format json", res);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_near(out_num("median_abs_error_pct"), 0, 0);
    assert_null(strstr(R.out, "workload")); /* JSON: no new text, only its keys */
    snprintf(a, sizeof a, "compare --result %s --hw h100-sxm --model llama-3.1-8b", res);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "workload: model llama-3.1-8b, engine vllm, 40 prompts, lengths "
                                  "per request from input_lens / output_lens (mean input 500.0, "
                                  "output 50.0 tokens)"));
    assert_non_null(strstr(R.out, "--burstiness, input_lens / output_lens\n"));
    /* a flag that contradicts the file wins, with a warning */
    snprintf(a, sizeof a, "compare --result %s --hw h100-sxm --request-rate 8", res);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.err, "--request-rate 8 contradicts"));
    /* serve's own --save-result file (vLLM's format, a Hugging Face model id) round-trips */
    char dir[256];
    tu_snprintf(dir, sizeof dir, "%s/infersim-compare-%d", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a,
             "serve --model meta-llama/Llama-3.1-8B-Instruct --hw h100-sxm --num-prompts 30 "
             "--random-input-len 300 --random-output-len 40 --request-rate 5 --save-result "
             "--result-dir %s --result-filename r.json",
             dir);
    run(a);
    assert_int_equal(R.rc, 0);
    snprintf(a, sizeof a, "compare --result %s/r.json --hw h100-sxm", dir);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "median |error| 0.0%"));
    tu_rm_r(dir);
    /* an id no model file lists */
    snprintf(file, sizeof file, "{\"model_id\": \"org/unknown\", \"mean_ttft_ms\": 5}");
    snprintf(a, sizeof a, "compare --result %s --hw h100-sxm", tu_write_tmp(file));
    run(a);
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "model_id 'org/unknown'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validation_commands),
        cmocka_unit_test(test_strict_inputs),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_validate_row_versions),
        cmocka_unit_test(test_validate_row_max_concurrency),
        cmocka_unit_test(test_validate_timed_and_moe_lines),
        cmocka_unit_test(test_compare_reads_the_result),
        cmocka_unit_test(test_validation_spec_rows),
        cmocka_unit_test(test_calibrate_from_microbench_rows),
        cmocka_unit_test(test_calibrate_attention_block_work),
        cmocka_unit_test(test_validate_device_families),
        cmocka_unit_test(test_validate_coverage_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
