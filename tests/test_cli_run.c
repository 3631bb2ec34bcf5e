/* test_cli_run.c - `run` end to end: JSON read back, its formats and CSV fields, names that
 * forgive, bad input, MoE and quantized models, every shipped model, the power keys and the 2026
 * families.
 *
 * The cases run in this process through sim_cli_main (clitest.h, cliutil.h); the few that must
 * launch the infersim binary (run_process_in) say why. */
#include "clitest.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "jsonf.h"
static void test_run_json_round_trip(void **state)
{
    (void)state;
    runf("run --model %s/models/llama-3.1-8b.json --hw %s/hw/h100-sxm.json --batch 8 "
         "--input-len 512 --output-len 128 --format json",
         tu_root(), tu_root());
    assert_int_equal(R.rc, 0);
    assert_string_equal(R.err, "");
    assert_no_nonfinite(R.out);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    double ttft = num(j, "ttft_ms"), tpot = num(j, "tpot_ms"), e2e = num(j, "e2e_ms");
    assert_true(ttft > 0 && tpot > 0);
    assert_near(e2e, ttft + 127 * tpot, 1e-9);
    assert_near(num(j, "output_throughput"), 8.0 * 128 / (e2e / 1e3), 1e-9);
    static const char *const step_keys[] = {"time_ms", "t_lower_ms", "t_upper_ms",
                                            "flops",   "bytes",      "net_bytes"};
    for (int p = 0; p < 2; p++) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, p ? "decode" : "prefill");
        assert_non_null(s);
        for (size_t k = 0; k < sizeof step_keys / sizeof step_keys[0]; k++)
            num(s, step_keys[k]);
        assert_true(num(s, "t_lower_ms") <= num(s, "time_ms"));
        assert_true(num(s, "time_ms") <= num(s, "t_upper_ms"));
        assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(s, "bound")));
    }
    assert_near(num(cJSON_GetObjectItemCaseSensitive(j, "prefill"), "time_ms"), ttft, 1e-12);
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(j, "memory");
    assert_near(num(mem, "weight_bytes_per_gpu"), 2.0 * 8030261248.0, 1e-12);
    num(mem, "kv_bytes_per_gpu");
    num(mem, "hbm_bytes_per_gpu");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mem, "fits")));
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(j, "ops");
    /* TP 1: 13 ops per phase (no all-reduces, no logits gather) */
    assert_int_equal(cJSON_GetArraySize(ops), 26);
    const cJSON *op;
    cJSON_ArrayForEach(op, ops)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(op, "name");
        const cJSON *phase = cJSON_GetObjectItemCaseSensitive(op, "phase");
        const cJSON *bound = cJSON_GetObjectItemCaseSensitive(op, "bound");
        assert_true(cJSON_IsString(name) && cJSON_IsString(phase) && cJSON_IsString(bound));
        assert_true(strcmp(phase->valuestring, "prefill") == 0 ||
                    strcmp(phase->valuestring, "decode") == 0);
        num(op, "flops");
        num(op, "bytes");
        num(op, "net_bytes");
        num(op, "intensity");
        num(op, "time_us");
    }
    cJSON_Delete(j);
}

static void test_tp_ops_and_names(void **state)
{
    (void)state;
    /* bare names resolve outside the source tree (the working directory is the build folder) */
    run("run --model llama-3.1-70b --hw h100-sxm --tp 8 --batch 4 --input-len 256 "
        "--output-len 8 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(j, "ops");
    assert_int_equal(cJSON_GetArraySize(ops), 32); /* all 16 ops in both phases */
    static const char *const names[] = {
        "embed",          "attn_norm", "qkv_proj",      "rope",    "attention", "o_proj",
        "attn_allreduce", "mlp_norm",  "gate_up_proj",  "act",     "down_proj", "mlp_allreduce",
        "final_norm",     "lm_head",   "logits_gather", "sampling"};
    for (int i = 0; i < 16; i++) {
        const cJSON *op = cJSON_GetArrayItem(ops, i);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(op, "name")->valuestring, names[i]);
    }
    assert_true(num(cJSON_GetArrayItem(ops, 6), "net_bytes") > 0.0);
    /* the decode all-reduce (4 tokens x 8192 x 2 B = 64 KiB on 8 H100s) names its algorithm */
    const cJSON *ar = cJSON_GetArrayItem(ops, 16 + 6);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(ar, "collective_algo")->valuestring,
                        "oneshot");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(ar, "collective_protocol")->valuestring,
                        "");
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ops, 1), "collective_algo"));
    cJSON_Delete(j);
    /* the algorithm and the fusion sweep like any flag; a device without NVLS is an error row */
    run("sweep run --model llama-3.1-8b --hw h100-sxm,a100-sxm-80gb --tp 8 --output-len 4 "
        "--allreduce auto,nccl,nvls --fuse-allreduce-norm=false,true --threads 1");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "point,hw,allreduce,fuse-allreduce-norm,"));
    assert_non_null(strstr(R.out, "is not an algorithm of NVIDIA A100 SXM4 80GB"));
    /* forced NCCL ring, and a fused norm */
    run("run --model llama-3.1-70b --hw h100-sxm --tp 8 --batch 4 --input-len 256 --output-len 8 "
        "--allreduce ring --format json");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"collective_algo\":\t\"ring\""));
    run("run --model llama-3.1-70b --hw h100-sxm --tp 8 --batch 4 --input-len 256 --output-len 8 "
        "--fuse-allreduce-norm --format json");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"fused_into_allreduce\":\ttrue"));
    run("run --model llama-3.1-70b --hw h100-sxm --tp 8 --batch 4 --input-len 256 --output-len 8");
    assert_non_null(strstr(R.out, "collectives: embed oneshot, attn_allreduce oneshot"));
}

/* A device named with a quote and a comma stays one CSV field in every CSV output. */
static void test_csv_quotes_names(void **state)
{
    (void)state;
    char *text = slurp(tu_path("hw", "h100-sxm"));
    assert_non_null(text);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    cJSON_ReplaceItemInObjectCaseSensitive(j, "name", cJSON_CreateString("Odd \"GPU\", v2"));
    char *odd = cJSON_Print(j);
    cJSON_Delete(j);
    const char *hw = tu_write_tmp(odd);
    free(odd);
    static const char *const cmds[] = {
        "roofline --hw %s --format csv",
        "run --model llama-3.1-8b --hw %s --format csv",
        "serve --model llama-3.1-8b --hw %s --num-prompts 5 --format csv",
    };
    char a[512];
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        snprintf(a, sizeof a, cmds[i], hw);
        run(a);
        assert_int_equal(R.rc, 0);
        assert_non_null(strstr(R.out, "\"Odd \"\"GPU\"\", v2\","));
    }
}

static void test_formats(void **state)
{
    (void)state;
    run("run --model llama-3.1-8b --hw h100-sxm --batch 2 --input-len 128 --output-len 1");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "TTFT (ms):"));
    assert_non_null(strstr(R.out, "gate_up_proj"));
    assert_non_null(strstr(R.out, "Largest batch that fits:"));
    assert_no_nonfinite(R.out);
    run("run --model llama-3.1-8b --hw h100-sxm --format=csv --weight-dtype int4");
    assert_int_equal(R.rc, 0);
    assert_int_equal(count_lines(R.out), 2);
    char *nl = strchr(R.out, '\n');
    int header = 0, row = 0;
    for (char *c = R.out; *c; c++)
        *(c < nl ? &header : &row) += *c == ',';
    assert_int_equal(header, row);
    assert_non_null(strstr(R.out, "int4,bf16,bf16"));
    run("roofline --hw h100-sxm --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_near(num(j, "critical_intensity"), 295.3, 0.001);
    assert_near(num(j, "peak_flops"), 989.4e12, 1e-9);
    num(j, "hbm_bytes_per_s");
    cJSON_Delete(j);
    run("roofline --hw h100-sxm --model llama-3.1-70b --tp 8 --batch 16 --input-len 2048 "
        "--format json");
    assert_int_equal(R.rc, 0);
    assert_no_nonfinite(R.out);
    j = cJSON_Parse(R.out);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "ops")), 32);
    cJSON_Delete(j);
    run("roofline --hw a100-sxm-80gb --model llama-2-7b");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "attention"));
    run("--help");
    assert_int_equal(R.rc, 0);
    run("run --help");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "--kv-cache-dtype"));
}

/* Names that forgive (suggest.h): a data name equal up to case is taken when it is the only one;
 * a near miss of a data name or a flag exits 2 with one line naming it and what was meant. */
static void test_names_forgive(void **state)
{
    (void)state;
    const char *sv = "serve --num-prompts 20 --random-input-len 200 --random-output-len 50 "
                     "--format json";
    char a[512];
    static char want[sizeof R.out];
    /* device and model names up to case: the same prediction as the lower-case names */
    snprintf(a, sizeof a, "%s --model llama-3.1-8b --hw h100-sxm --engine vllm", sv);
    run(a);
    assert_int_equal(R.rc, 0);
    snprintf(want, sizeof want, "%s", R.out);
    snprintf(a, sizeof a, "%s --model Llama-3.1-8B --hw H100-SXM --engine vLLM", sv);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_string_equal(R.out, want);
    /* on ROCm, "vLLM" is still vllm's ROCm profile (not the CUDA file found up to case) */
    snprintf(a, sizeof a, "%s --model llama-3.1-8b --hw mi300x --engine vllm", sv);
    run(a);
    assert_int_equal(R.rc, 0);
    snprintf(want, sizeof want, "%s", R.out);
    snprintf(a, sizeof a, "%s --model llama-3.1-8b --hw mi300x --engine vLLM", sv);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_string_equal(R.out, want);
    /* a dtype up to case */
    run("run --model llama-3.1-8b --hw h100-sxm --kv-cache-dtype fp8 --format json");
    assert_int_equal(R.rc, 0);
    snprintf(want, sizeof want, "%s", R.out);
    run("run --model llama-3.1-8b --hw h100-sxm --kv-cache-dtype FP8 --format json");
    assert_int_equal(R.rc, 0);
    assert_string_equal(R.out, want);
    /* near misses: one line, exit 2, the value and the suggestion */
    expect_bad("run --model llama-3.1-8b --hw h100", "h100: no such file, and no hw/h100.json");
    expect_bad("run --model llama-3.1-8b --hw h100", "did you mean h100-pcie or h100-sxm?");
    expect_bad("run --model llama-3.1-8b --hw h100-sx", "did you mean h100-sxm?");
    expect_bad("run --model lama-3.1-8b --hw h100-sxm", "lama-3.1-8b: no such file");
    expect_bad("run --model lama-3.1-8b --hw h100-sxm", "did you mean llama-3.1-8b?");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --engine vlm",
               "--engine: value 'vlm': no profile of engine 'vlm'; did you mean vllm?");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --engine sgalng", "did you mean sglang?");
    expect_bad("run --model llama-3.1-8b --hw h100-sxm --weight-dtype bf61",
               "--weight-dtype: value 'bf61'; did you mean bf16?");
    /* flags: a near miss, even one only of case, is never taken */
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --num-prompt 10",
               "serve: unknown flag '--num-prompt'; did you mean --num-prompts?");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --Num-Prompts 10",
               "unknown flag '--Num-Prompts'; did you mean --num-prompts?");
    expect_bad("run --model llama-3.1-8b --hw h100-sxm --bacth 2", "did you mean --batch?");
    expect_bad("sweep run --model llama-3.1-8b --hw h100-sxm --bacth 1,2",
               "sweep run: unknown flag '--bacth'; did you mean --batch? see 'infersim sweep run");
    /* nothing near: the old message, no guess */
    expect_bad("run --model llama-3.1-8b --hw h100-sxm --bogus-flag 2",
               "run: unknown flag '--bogus-flag'; see 'infersim run --help'");
    expect_bad("run --model llama-3.1-8b --hw zz9", "expected a path or one of:");
    run("run --model llama-3.1-8b --hw zz9");
    assert_null(strstr(R.err, "did you mean"));
}

static void test_bad_input(void **state)
{
    (void)state;
    const char *base = "run --model llama-3.1-8b --hw h100-sxm";
    char a[512];
    bad_flag(base, "--foo 1", "--foo");
    bad_flag(base, "--batch abc", "--batch");
    bad_flag(base, "--batch 0", "--batch");
    bad_flag(base, "--batch 1.5", "--batch");
    bad_flag(base, "--batch", "--batch");
    bad_flag(base, "--tp 3", "num_attention_heads");
    bad_flag(base, "--weight-dtype fp3", "--weight-dtype");
    bad_flag(base, "--act-dtype int4", "--act-dtype");
    bad_flag(base, "--act-dtype fp8", "--act-dtype");
    bad_flag(base, "--kv-cache-dtype int4", "--kv-cache-dtype");
    bad_flag(base, "--input-len 200000", "max_position_embeddings");
    bad_flag(base, "--overlap-comm 2", "--overlap-comm");
    bad_flag(base, "--overlap-comm nan", "--overlap-comm");
    bad_flag(base, "--gpu-memory-utilization 0", "--gpu-memory-utilization");
    bad_flag(base, "--format xml", "--format");
    bad_flag(base, "--batch 100000 --input-len 4096", "does not fit");
    bad_flag(base, "extra", "extra");
    /* a flag name longer than any in the table is unknown, whole or with a value */
    bad_flag(base, "--batch-size-of-a-length-no-flag-has-in-the-table-at-all-anywhere 1",
             "unknown flag '--batch-size-of-a-length-no-flag-has-in-the-table-at-all-anywhere'");
    bad_flag(base, "--batch-size-of-a-length-no-flag-has-in-the-table-at-all-anywhere=1",
             "--batch-size-of-a-length-no-flag-has-in-the-table-at-all-anywhere=1");
    bad_flag(base, "--tp=4 --batch=2 --enforce-eager=1", "--enforce-eager: takes no value");
    expect_bad("run --model llama-3.1-70b --hw a100-sxm-80gb --tp 4 --kv-cache-dtype fp8", "fp8");
    expect_bad("run --model /nonexistent/config.json --hw h100-sxm", "/nonexistent/config.json");
    expect_bad("run --model llama-3.1-8b --hw /nonexistent/hw.json", "/nonexistent/hw.json");
    expect_bad("run --hw h100-sxm", "--model");
    expect_bad("run --model llama-3.1-8b", "--hw");
    expect_bad("serve-everything", "serve-everything");
    expect_bad("roofline --hw a100-sxm-80gb --dtype fp8", "--dtype");
    const char *p = tu_write_tmp("{\"hidden_size\": 4096,, }");
    snprintf(a, sizeof a, "run --model %s --hw h100-sxm", p);
    expect_bad(a, p);
    p = tu_write_tmp("{\"hidden_size\": 4096, \"intermediate_size\": 14336, "
                     "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, "
                     "\"num_key_value_heads\": 8, \"vocab_size\": 32000, "
                     "\"max_position_embeddings\": 32768, \"num_local_experts\": 8}");
    snprintf(a, sizeof a, "run --model %s --hw h100-sxm", p);
    expect_bad(a, "mixture-of-experts");
    p = tu_write_tmp("{\"hidden_size\": 4096, \"intermediate_size\": 14336, "
                     "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, "
                     "\"vocab_size\": 32000, \"max_position_embeddings\": 32768}");
    snprintf(a, sizeof a, "run --model %s --hw h100-sxm", p);
    expect_bad(a, "torch_dtype");
}

/* Whether a run JSON's ops hold an op of this name. */
static bool has_op(const cJSON *j, const char *name)
{
    const cJSON *op;
    cJSON_ArrayForEach(op, cJSON_GetObjectItemCaseSensitive(j, "ops"))
    {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(op, "name")->valuestring, name) == 0)
            return true;
    }
    return false;
}

static void test_moe_models(void **state)
{
    (void)state;
    /* model_params: total and active as the cards count them (hand-derived in test_model) */
    run("run --model deepseek-v3 --hw h200 --tp 8 --weight-dtype fp8 --batch 4 "
        "--input-len 256 --output-len 8 --format json");
    assert_int_equal(R.rc, 0);
    assert_no_nonfinite(R.out);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "model_params");
    assert_near(num(p, "total"), 671026404352.0, 1e-12);
    assert_near(num(p, "active"), 36625603584.0, 1e-12);
    /* MLA: 61 x 576 x 2 B per token (bf16 KV), not split over the 8 TP ranks */
    assert_near(num(cJSON_GetObjectItemCaseSensitive(j, "memory"), "kv_bytes_per_token"),
                61.0 * 576 * 2, 0);
    assert_true(has_op(j, "experts_gate_up") && has_op(j, "router") && has_op(j, "shared_expert") &&
                has_op(j, "kv_up"));
    assert_false(has_op(j, "moe_dispatch"));
    cJSON_Delete(j);
    /* --ep 8 over the TP group: every rank holds every token, the all-reduce combines the
     * experts' outputs; DeepEP's kernels when asked for; --expert-imbalance 1 fixes the busiest
     * rank at the mean */
    run("run --model deepseek-v3 --hw h200 --tp 8 --ep 8 --weight-dtype fp8 --batch 4 "
        "--input-len 256 --output-len 8 --expert-imbalance 1 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_false(has_op(j, "moe_dispatch") || has_op(j, "moe_combine"));
    cJSON_Delete(j);
    run("run --model deepseek-v3 --hw h200 --tp 8 --ep 8 --weight-dtype fp8 --batch 4 "
        "--input-len 256 --output-len 8 --expert-imbalance 1 --moe-a2a low-latency --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_true(has_op(j, "moe_dispatch") && has_op(j, "moe_combine"));
    /* batch 4, prefill of 4 x 256 tokens: 32 local experts, all touched; decode: 4 tokens touch
     * 32 (1 - (31/32)^4) = 3.81 of them */
    const cJSON *op;
    cJSON_ArrayForEach(op, cJSON_GetObjectItemCaseSensitive(j, "ops"))
    {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(op, "name")->valuestring, "experts_down"))
            continue;
        bool dec =
            strcmp(cJSON_GetObjectItemCaseSensitive(op, "phase")->valuestring, "decode") == 0;
        assert_near(num(op, "experts_touched"), dec ? 32.0 * (1.0 - pow(31.0 / 32.0, 4)) : 32.0,
                    1e-6);
    }
    cJSON_Delete(j);
    /* a minimal Mixtral-style config runs */
    const char *mini = tu_write_tmp(
        "{\"hidden_size\": 1024, \"intermediate_size\": 2048, \"num_hidden_layers\": 4, "
        "\"num_attention_heads\": 8, \"num_key_value_heads\": 2, \"vocab_size\": 1000, "
        "\"max_position_embeddings\": 4096, \"torch_dtype\": \"bfloat16\", "
        "\"num_local_experts\": 4, \"num_experts_per_tok\": 2}");
    char a[512];
    snprintf(a, sizeof a, "run --model %s --hw h100-sxm --tp 2 --format json", mini);
    run(a);
    assert_int_equal(R.rc, 0);
    /* missing fields and bad combinations: exit 2 naming them */
    const char *no_k = tu_write_tmp(
        "{\"hidden_size\": 1024, \"intermediate_size\": 2048, \"num_hidden_layers\": 4, "
        "\"num_attention_heads\": 8, \"vocab_size\": 1000, \"max_position_embeddings\": 4096, "
        "\"torch_dtype\": \"bfloat16\", \"num_local_experts\": 4}");
    snprintf(a, sizeof a, "run --model %s --hw h100-sxm", no_k);
    expect_bad(a, "num_experts_per_tok");
    expect_bad("run --model deepseek-v3 --hw h200 --tp 8 --ep 3", "--ep");
    expect_bad("run --model mixtral-8x7b --hw h200 --tp 2 --ep 4", "--ep");
    expect_bad("run --model llama-3.1-8b --hw h200 --tp 2 --ep 2", "no experts");
    expect_bad("run --model mixtral-8x7b --hw h200 --tp 2 --dp-attention", "--dp-attention");
    expect_bad("run --model mixtral-8x7b --hw h200 --tp 2 --ep 2 --expert-imbalance 0.5",
               "--expert-imbalance");
    /* the routing, EPLB's redundant experts and the kernel family: bad values are exit 2 */
    expect_bad("run --model mixtral-8x7b --hw h200 --tp 2 --ep 2 --expert-routing zipf:-1",
               "--expert-routing");
    expect_bad("run --model mixtral-8x7b --hw h200 --tp 2 --ep 2 --expert-routing skewed",
               "--expert-routing");
    expect_bad("run --model mixtral-8x7b --hw h200 --tp 2 --ep 2 --redundant-experts 3",
               "--redundant-experts");
    expect_bad("run --model mixtral-8x7b --hw h200 --tp 2 --redundant-experts 2",
               "--redundant-experts");
    /* --expert-load: a histogram of the wrong shape, a missing file, a dense model, and with
     * --expert-routing: exit 2 naming the file and field; a good one runs */
    {
        const char *bad = tu_write_tmp("{\"logical_count\": [[1, 2, 3]]}");
        snprintf(a, sizeof a, "run --model mixtral-8x7b --hw h200 --tp 2 --ep 2 --expert-load %s",
                 bad);
        expect_bad(a, "logical_count[0]: 3 values");
        expect_bad("run --model mixtral-8x7b --hw h200 --tp 2 --ep 2 --expert-load /nonexistent.json",
                   "/nonexistent.json");
        const char *good = tu_write_tmp("{\"logical_count\": [[4, 1, 1, 1, 1, 1, 1, 2]]}");
        snprintf(a, sizeof a, "run --model llama-3.1-8b --hw h200 --expert-load %s", good);
        expect_bad(a, "no routed experts");
        snprintf(a, sizeof a,
                 "run --model mixtral-8x7b --hw h200 --tp 2 --ep 2 --expert-load %s "
                 "--expert-routing zipf:1",
                 good);
        expect_bad(a, "--expert-routing");
        snprintf(a, sizeof a,
                 "run --model mixtral-8x7b --hw h200 --tp 2 --ep 2 --expert-load %s "
                 "--uncertainty 0 --format json",
                 good);
        run(a);
        assert_int_equal(R.rc, 0);
        assert_non_null(strstr(R.out, "\"tpot_ms\""));
    }
    expect_bad("run --model mixtral-8x7b --hw h200 --tp 2 --moe-kernel machete", "--moe-kernel");
    /* gpt-oss's mxfp4 experts under vLLM 0.11: the profile's moe.kernel (Triton) on an H100 and
     * a B200, Marlin's fused MoE with --moe-kernel marlin */
    static const struct {
        const char *hw, *want;
    } goss[] = {{"h100-sxm", "\"moe_kernel\":\t\"triton\""},
                {"b200", "\"moe_kernel\":\t\"triton\""},
                {"h100-sxm --moe-kernel marlin", "\"moe_kernel\":\t\"marlin\""}};
    for (size_t i = 0; i < sizeof goss / sizeof goss[0]; i++) {
        char cmd[160];
        tu_snprintf(cmd, sizeof cmd,
                    "run --model gpt-oss-20b --hw %s --engine vllm@0.11.0 --uncertainty 0 "
                    "--format json",
                    goss[i].hw);
        run(cmd);
        assert_int_equal(R.rc, 0);
        assert_non_null(strstr(R.out, goss[i].want));
    }
    /* SGLang 0.5 on a B200 runs DeepSeek-V3's fp8 experts through FlashInfer's TRT-LLM MoE (the
     * profile's moe.kernel_sm100_mla_quantized: cutlass), Qwen3's bf16 ones and any on an H200
     * through Triton; --moe-kernel sets every format */
    static const struct {
        const char *model, *hw, *flags, *want;
    } fams[] = {
        {"deepseek-v3", "b200", "", "cutlass"},
        {"deepseek-v3", "h200", "", "triton"},
        {"qwen3-235b-a22b", "b200", "", "triton"},
        {"deepseek-v3", "b200", " --moe-kernel deepgemm", "deepgemm"},
    };
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++) {
        char c[512];
        snprintf(c, sizeof c,
                 "run --model %s --hw %s --tp 8 --engine sglang@0.5.6 --batch 1 --input-len 16 "
                 "--output-len 2 --uncertainty 0 --format json%s",
                 fams[i].model, fams[i].hw, fams[i].flags);
        run(c);
        assert_int_equal(R.rc, 0);
        j = cJSON_Parse(R.out);
        int seen = 0;
        cJSON_ArrayForEach(op, cJSON_GetObjectItemCaseSensitive(j, "ops"))
        {
            if (strcmp(cJSON_GetObjectItemCaseSensitive(op, "name")->valuestring,
                       "experts_gate_up") == 0) {
                assert_string_equal(
                    cJSON_GetObjectItemCaseSensitive(op, "moe_kernel")->valuestring,
                    fams[i].want);
                seen++;
            }
        }
        assert_true(seen > 0);
        cJSON_Delete(j);
    }
    /* run JSON's grouped GEMMs name their family, M block, padding and the busiest rank; EPLB's
     * 2 redundant experts put 5 on each of 2 GPUs (weights up by one expert per GPU) */
    run("run --model mixtral-8x7b --hw h200 --tp 2 --ep 2 --batch 4 --input-len 64 --output-len 4 "
        "--moe-kernel deepgemm --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    double w0 = num(cJSON_GetObjectItemCaseSensitive(j, "memory"), "weight_bytes_per_gpu");
    cJSON_ArrayForEach(op, cJSON_GetObjectItemCaseSensitive(j, "ops"))
    {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(op, "name")->valuestring, "experts_gate_up"))
            continue;
        bool dec =
            strcmp(cJSON_GetObjectItemCaseSensitive(op, "phase")->valuestring, "decode") == 0;
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(op, "moe_kernel")->valuestring,
                            "deepgemm");
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(op, "moe_layout")->valuestring,
                            dec ? "masked" : "contiguous");
        assert_true(num(op, "moe_block_m") == (dec ? 64 : 128) ||
                    (dec && num(op, "moe_block_m") == 128));
        assert_true(num(op, "moe_padded_rows") >= num(op, "moe_busiest_rank_rows"));
        assert_true(num(op, "moe_rank_imbalance") >= 1.0);
    }
    cJSON_Delete(j);
    run("run --model mixtral-8x7b --hw h200 --tp 2 --ep 2 --batch 4 --input-len 64 --output-len 4 "
        "--redundant-experts 2 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    double w1 = num(cJSON_GetObjectItemCaseSensitive(j, "memory"), "weight_bytes_per_gpu");
    /* one more expert per GPU in each of the 32 layers: 32 x 3 x 4096 x 14336 bf16 weights =
     * 11,274,289,152 bytes */
    assert_near(w1 - w0, 32.0 * 3.0 * 4096 * 14336 * 2, 1.0);
    cJSON_Delete(j);
    /* the seven shipped configs under serve, and MTP for DeepSeek-V3 */
    static const char *const models[] = {"mixtral-8x7b",  "mixtral-8x22b",   "deepseek-v3",
                                         "qwen3-30b-a3b", "qwen3-235b-a22b", "gpt-oss-20b",
                                         "gpt-oss-120b"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        snprintf(a, sizeof a,
                 "serve --model %s --hw h200 --tp 8 --ep 8 --weight-dtype fp8 --num-prompts 20 "
                 "--request-rate 50 "
                 "--random-input-len 256 --random-output-len 16 --format json",
                 models[i]);
        run(a);
        assert_int_equal(R.rc, 0);
        assert_no_nonfinite(R.out);
    }
    run("run --model deepseek-v3 --hw h200 --tp 8 --weight-dtype fp8 --spec-method mtp "
        "--num-speculative-tokens 1 --spec-acceptance-rate 0.8 --output-len 32 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_true(num(j, "spec_speedup") > 1.0);
    cJSON_Delete(j);
    /* the table names the parallelism; a model that does not fit says under which */
    run("run --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1 --ep 8 --dp-attention "
        "--batch 8 --input-len 128 --output-len 4");
    assert_int_equal(R.rc, 0);
    assert_non_null(
        strstr(R.out, "on 8 x NVIDIA H200 SXM 141GB (TP 1, EP 8, DP attention 8, all-to-all auto)\n"));
    /* the all-to-all mode each step ran: normal with the prompt, low-latency decoding */
    assert_non_null(strstr(R.out, "collectives: moe_dispatch direct normal, moe_combine direct normal, "));
    assert_non_null(strstr(
        R.out, "collectives: moe_dispatch direct low_latency, moe_combine direct low_latency, "));
    run("run --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1 --ep 8 --dp-attention "
        "--batch 8 --input-len 128 --output-len 4 --moe-a2a low-latency --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    int modes = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItem(j, "ops"))
    {
        const cJSON *m = cJSON_GetObjectItem(o, "alltoall_mode");
        if (m) {
            assert_string_equal(m->valuestring, "low_latency");
            modes++;
        }
    }
    assert_int_equal(modes, 4); /* dispatch and combine, prefill and decode */
    cJSON_Delete(j);
    /* DeepEP's low-latency buffer: 128 tokens per rank (SGLang's default) */
    expect_bad("run --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1 --ep 8 --dp-attention "
               "--batch 1025 --input-len 128 --output-len 4",
               "--batch: a decode step of 1025 tokens puts 129 on each of the 8 EP ranks");
    run("run --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1 --ep 8 --dp-attention "
        "--batch 1025 --input-len 128 --output-len 4 --deepep-ll-max-tokens 256");
    assert_int_equal(R.rc, 0);
    /* DP attention with the MoE split by TP, once refused: an all-gather and a reduce-scatter */
    run("run --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1 --dp 8 --dp-attention "
        "--batch 8 --input-len 128 --output-len 4");
    assert_int_equal(R.rc, 0);
    assert_non_null(
        strstr(R.out, "on 8 x NVIDIA H200 SXM 141GB (TP 1, DP attention 8, MoE TP 8)\n"));
    assert_non_null(strstr(R.out, "collectives: moe_dispatch ring"));
    expect_bad("run --model deepseek-v3 --hw h200 --tp 2 --dp 4 --dp-attention", "expected --tp 1");
    expect_bad("run --model deepseek-v3 --hw h200 --tp 1 --ep 8 --dp-attention --moe-a2a fast",
               "--moe-a2a: value 'fast', expected auto, normal or low-latency");
    expect_bad("run --model deepseek-v3 --hw h200 --tp 8 --ep 8 --weight-dtype bf16",
               "--tp 8 (TP 8, EP 8, all-to-all auto)");
    /* 8 GPUs are priced: TP 1 x 8 data-parallel attention groups */
    run("run --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1 --ep 8 --dp-attention "
        "--batch 8 --input-len 128 --output-len 4 --format json");
    j = cJSON_Parse(R.out);
    assert_near(num(j, "gpus"), 8.0, 0);
    cJSON_Delete(j);
    /* --max-num-seqs is per DP group, as each of vLLM's DP engines has its own: 8 groups of 64 */
    run("serve --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1 --ep 8 --dp-attention "
        "--num-prompts 600 --random-input-len 256 --random-output-len 64 --max-num-seqs 64 "
        "--format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_between(num(j, "mean_batch_size"), 65.0, 512.0);
    cJSON_Delete(j);
    /* DeepEP's low-latency buffer in serve: 2000 requests under the default --max-num-seqs
     * (1024 per group) can form a decode step of 2000 tokens, 250 per EP rank, past its 128;
     * the same with --max-num-seqs 16 per group (128 on a rank) or --moe-a2a normal runs */
    expect_bad("serve --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1 --ep 8 "
               "--dp-attention --num-prompts 2000 --random-input-len 64 --random-output-len 4",
               "--max-num-seqs: a decode step of 2000 tokens puts 250 on each of the 8 EP ranks");
    expect_bad("serve --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1 --ep 8 "
               "--dp-attention --num-prompts 2000 --random-input-len 64 --random-output-len 4 "
               "--max-num-seqs 16 --moe-a2a low-latency",
               "--max-num-batched-tokens: a prefill step of");
    run("serve --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1 --ep 8 --dp-attention "
        "--num-prompts 2000 --random-input-len 64 --random-output-len 4 --max-num-seqs 16 "
        "--uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    run("serve --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1 --ep 8 --dp-attention "
        "--num-prompts 2000 --random-input-len 64 --random-output-len 4 --moe-a2a normal "
        "--uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    run("serve --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 8 --ep 8 "
        "--num-prompts 600 --random-input-len 256 --random-output-len 64 --max-num-seqs 64 "
        "--format json");
    j = cJSON_Parse(R.out);
    assert_between(num(j, "mean_batch_size"), 1.0, 64.0);
    cJSON_Delete(j);
    /* a sweep over the parallelism: the invalid point is a row with its reason */
    run("sweep run --model deepseek-v3 --hw h200 --weight-dtype fp8 --tp 1,8 --ep 8 "
        "--dp-attention=false,true --batch 8 --input-len 128 --output-len 4 --threads 1");
    assert_int_equal(R.rc, 0);
    assert_int_equal(count_lines(R.out), 5);
    assert_non_null(strstr(R.out, "differs from --tp 1"));
    /* the trace shows the MoE ops and the all-to-alls */
    char path[300];
    tu_snprintf(path, sizeof path, "%s/infersim-cli-moe-%d.json", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a,
             "run --model qwen3-30b-a3b --hw h200 --tp 2 --ep 2 --batch 2 --input-len 64 "
             "--output-len 4 --moe-a2a normal --chrome-trace %s --format json",
             path);
    run(a);
    assert_int_equal(R.rc, 0);
    char *t = slurp(path);
    assert_non_null(t);
    assert_non_null(strstr(t, "\"moe_dispatch\""));
    assert_non_null(strstr(t, "\"alltoall_mode\":\"normal\""));
    assert_non_null(strstr(t, "\"experts_down\""));
    free(t);
    snprintf(a, sizeof a, "trace-check %s", path);
    run(a);
    assert_int_equal(R.rc, 0);
    remove(path);
}

/* Every shipped file in models/ runs `run`, `serve` and `sweep` (on 8 H200s, which hold the
 * largest of them): exit 0, output, no warning (sweep prints its summary on stderr). */
static void test_every_shipped_model_runs(void **state)
{
    (void)state;
    char dir[512], a[1024];
    snprintf(dir, sizeof dir, "%s/models", tu_root());
    DIR *d = opendir(dir);
    assert_non_null(d);
    static const char *const cmds[] = {
        "run --batch 4 --input-len 512 --output-len 64",
        "serve --num-prompts 20 --random-input-len 512 --random-output-len 64",
        "sweep serve --num-prompts 10 --random-input-len 256,512 --random-output-len 32 "
        "--threads 1"};
    int models = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        models++;
        for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
            snprintf(a, sizeof a, "%s --model %s/%s --hw h200 --tp 8", cmds[i], dir, e->d_name);
            run(a);
            if (R.rc != 0 || !R.out[0] || strstr(R.err, "warning")) {
                print_error("'%s': rc %d, stderr '%s'\n", a, R.rc, R.err);
                fail();
            }
        }
    }
    closedir(d);
    assert_true(models >= 20);
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    assert_true(cJSON_IsString(it));
    return it->valuestring;
}

static void test_quantized_checkpoints(void **state)
{
    (void)state;
    /* an fp8 config.json (compressed-tensors, RedHatAI FP8-dynamic) runs fp8 weights and
     * activations without a flag: 8B layer weights 1 B each + 16-bit embeddings, LM head and norms
     * = 6,979,321,856 + 2 x 1,050,673,152 + norms 532,480 = 9,081,200,640 B; an act_quant op runs */
    run("run --model llama-3.1-8b-fp8 --hw h100-sxm --batch 4 --input-len 256 --output-len 8 "
        "--format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_string_equal(str(j, "weight_dtype"), "fp8");
    assert_string_equal(str(j, "act_dtype"), "fp8");
    assert_string_equal(str(j, "kv_cache_dtype"), "bf16");
    assert_string_equal(str(j, "quant_method"), "compressed-tensors");
    assert_near(num(cJSON_GetObjectItemCaseSensitive(j, "memory"), "weight_bytes_per_gpu"),
                9081200640.0, 1e-12);
    assert_non_null(strstr(R.out, "\"act_quant\""));
    cJSON_Delete(j);
    /* AWQ 70B: int4 weights in groups of 128 with zero points, fp16 math, echoed */
    run("run --model llama-3.1-70b-awq --hw h100-sxm --tp 2 --output-len 4 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_string_equal(str(j, "weight_dtype"), "int4");
    assert_string_equal(str(j, "act_dtype"), "fp16");
    assert_near(num(j, "weight_group_size"), 128, 0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "weight_zero_point")));
    assert_null(strstr(R.out, "\"act_quant\""));
    cJSON_Delete(j);
    /* explicit flags win over the config */
    run("run --model llama-3.1-70b-awq --hw h100-sxm --tp 2 --output-len 4 --weight-group-size 32 "
        "--format json");
    j = cJSON_Parse(R.out);
    assert_near(num(j, "weight_group_size"), 32, 0);
    cJSON_Delete(j);
    run("run --model llama-3.1-8b-fp8 --hw h100-sxm --output-len 4 --weight-dtype bf16 "
        "--format json");
    j = cJSON_Parse(R.out);
    assert_string_equal(str(j, "weight_dtype"), "bf16");
    assert_string_equal(str(j, "act_dtype"), "bf16");
    cJSON_Delete(j);
    /* NVFP4: fp4 math on B200's fp4 tensor cores, weight-only (W4A16) on H100 */
    run("run --model llama-3.1-8b-nvfp4 --hw b200 --output-len 4 --format json");
    j = cJSON_Parse(R.out);
    assert_string_equal(str(j, "act_dtype"), "fp4");
    assert_string_equal(str(j, "kv_cache_dtype"), "fp8");
    cJSON_Delete(j);
    run("run --model llama-3.1-8b-nvfp4 --hw h100-sxm --output-len 4 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_string_equal(str(j, "weight_dtype"), "fp4");
    assert_string_equal(str(j, "act_dtype"), "bf16");
    cJSON_Delete(j);
    /* W4A8 and MXFP4 run */
    run("run --model llama-3.1-8b --hw h100-sxm --weight-dtype int4 --act-dtype fp8 --output-len "
        "4");
    assert_int_equal(R.rc, 0);
    run("run --model llama-3.1-8b --hw b200 --weight-dtype mxfp4 --output-len 4 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_string_equal(str(j, "act_dtype"), "mxfp4");
    cJSON_Delete(j);
    /* a method infersim cannot price: exit 2 naming the field */
    const char *bad = tu_write_tmp(
        "{\"hidden_size\": 64, \"intermediate_size\": 128, \"num_hidden_layers\": 2, "
        "\"num_attention_heads\": 4, \"vocab_size\": 100, \"max_position_embeddings\": 512, "
        "\"torch_dtype\": \"bfloat16\", \"quantization_config\": {\"quant_method\": \"hqq\"}}");
    char args[512];
    snprintf(args, sizeof args, "run --model %s --hw h100-sxm", bad);
    run(args);
    remove(bad);
    assert_int_equal(R.rc, 2);
    assert_int_equal(count_lines(R.err), 1);
    assert_non_null(strstr(R.err, "quantization_config.quant_method"));
    assert_non_null(strstr(R.err, "hqq"));
    /* the seed's scheme table in roofline JSON */
    run("roofline --hw h100-sxm --format json");
    j = cJSON_Parse(R.out);
    const cJSON *qs = cJSON_GetObjectItemCaseSensitive(j, "quant_schemes");
    assert_int_equal(cJSON_GetArraySize(qs), 6);
    const double seed[] = {295, 150, 75, 295, 295};
    for (int i = 0; i < 5; i++) {
        const cJSON *e = cJSON_GetArrayItem(qs, i);
        assert_near(num(e, "critical_batch"), seed[i], 0.02);
        num(e, "weight_bytes_per_param");
        num(e, "peak_tflops");
    }
    assert_string_equal(str(cJSON_GetArrayItem(qs, 4), "scheme"), "fp8");
    cJSON_Delete(j);
    run("roofline --hw b200");
    assert_non_null(strstr(R.out, "fp4"));
    assert_non_null(strstr(R.out, "critical batch"));
}

/* The power estimate's keys in run and serve JSON (power.h): the average per GPU between the
 * device file's idle floor (70 W) and board power (700 W), and the identities that tie the
 * three keys together: J/token x output tok/s = W per GPU x GPUs (the energy over the time), and
 * tok/s per MW = 1e6 / (J/token). */
static void check_energy_keys(const cJSON *j, double gpus)
{
    double w = num(j, "avg_power_w"), jt = num(j, "joules_per_output_token");
    double tps = num(j, "output_throughput"), mw = num(j, "output_tokens_per_s_per_mw");
    assert_true(w > 70.0 && w < 700.0);
    assert_near(jt * tps, w * gpus, 1e-6 * w * gpus);
    assert_near(mw, 1e6 / jt, 1e-6 * mw);
}

static void test_energy_outputs(void **state)
{
    (void)state;
    run("run --model llama-3.1-8b --hw h100-sxm --tp 2 --batch 8 --input-len 256 --output-len 64 "
        "--format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    check_energy_keys(j, 2.0);
    cJSON_Delete(j);
    run("run --model llama-3.1-8b --hw h100-sxm --batch 8 --input-len 256 --output-len 64");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "Avg power per GPU (W, estimate):"));
    /* serve: the idle floor over the gaps between requests lowers the average; two replicas
     * hold twice the GPUs */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 40 --request-rate 2 "
        "--random-input-len 256 --random-output-len 64 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_non_null(j);
    check_energy_keys(j, 1.0);
    double slow = num(j, "avg_power_w");
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 40 --request-rate 40 "
        "--random-input-len 256 --random-output-len 64 --format json");
    j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_true(num(j, "avg_power_w") > slow);
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --replicas 2 --num-prompts 40 --request-rate 40 "
        "--random-input-len 256 --random-output-len 64 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_non_null(j);
    check_energy_keys(j, 2.0);
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --request-rate 2 "
        "--random-input-len 256 --random-output-len 64");
    assert_non_null(strstr(R.out, "Energy per output token (J):"));
}

/* The 2026 families (issue 28) run, serve and sweep from their shipped configs; a hybrid linear
 * model under an engine whose state pool is not priced exits 2 naming --engine; vLLM's raised
 * block size shows in serve's JSON. */
static void test_families_2026(void **state)
{
    (void)state;
    static const struct {
        const char *model, *hw;
        int tp;
    } cases[] = {{"qwen3-next-80b-a3b", "h100-sxm", 4},
                 {"nemotron-nano-9b-v2", "h100-sxm", 1},
                 {"deepseek-v3.2", "h200", 8}};
    char a[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(a, sizeof a,
                 "run --model %s --hw %s --tp %d --batch 4 --input-len 512 --output-len 8 "
                 "--format json",
                 cases[i].model, cases[i].hw, cases[i].tp);
        run(a);
        assert_int_equal(R.rc, 0);
        assert_no_nonfinite(R.out);
        snprintf(a, sizeof a,
                 "serve --model %s --hw %s --tp %d --num-prompts 12 --random-input-len 600 "
                 "--random-output-len 16 --request-rate 20 --format json",
                 cases[i].model, cases[i].hw, cases[i].tp);
        run(a);
        assert_int_equal(R.rc, 0);
        assert_no_nonfinite(R.out);
        snprintf(a, sizeof a,
                 "sweep serve --model %s --hw %s --tp %d --num-prompts 8 --random-input-len 300 "
                 "--random-output-len 8 --request-rate 4,inf --threads 1 --out -",
                 cases[i].model, cases[i].hw, cases[i].tp);
        run(a);
        assert_int_equal(R.rc, 0);
    }
    run("serve --model qwen3-next-80b-a3b --hw h100-sxm --tp 4 --num-prompts 4 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_near(num(j, "block_size"), 272.0, 0); /* 16 x ceil(274,432 / 16,384) */
    cJSON_Delete(j);
    run("serve --model nemotron-nano-9b-v2 --hw h100-sxm --engine sglang --num-prompts 4");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "--engine"));
    assert_non_null(strstr(R.err, "state"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantized_checkpoints),
        cmocka_unit_test(test_run_json_round_trip),
        cmocka_unit_test(test_tp_ops_and_names),
        cmocka_unit_test(test_csv_quotes_names),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_moe_models),
        cmocka_unit_test(test_every_shipped_model_runs),
        cmocka_unit_test(test_energy_outputs),
        cmocka_unit_test(test_families_2026),
        cmocka_unit_test(test_names_forgive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
