/* test_cli.c - the command line end to end: JSON parsed back, exit codes, one-line errors.
 *
 * The cases run in this process through sim_cli_main (cliutil.h); the few that must launch the
 * infersim binary (run_process_in) say why. */
#include "cliutil.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "jsonf.h"

typedef struct result {
    int rc;
    char out[1 << 17];
    char err[1 << 16]; /* a sweep's summary goes here when its rows go to stdout */
} result;

static result R; /* big: keep it off the stack */

/* Runs "infersim <args>" in this process and captures its output, diagnostics and exit status. */
static void run(const char *args) { R.rc = tu_cli(args, R.out, sizeof R.out, R.err, sizeof R.err); }

/* The same with printf-style arguments (paths under tu_root() and tu_tmpdir()). */
static void runf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void runf(const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && n < (int)sizeof args);
    run(args);
}

/* Launches "BIN <args>" from `cwd` as a process, without $INFERSIM_DATA (the lookup is the
 * binary's own), and captures stdout, stderr and the exit status: only for what needs the real
 * binary (main.c, its exit status, its working directory and location at start-up). */
static void run_process_bin(const char *cwd, const char *bin, const char *args)
{
    char errpath[256], cmd[4096];
    tu_snprintf(errpath, sizeof errpath, "%s/infersim-cli-%d.err", tu_tmpdir(), (int)getpid());
    tu_snprintf(cmd, sizeof cmd, "cd '%s' && env -u INFERSIM_DATA '%s' %s 2>%s", cwd, bin, args,
                errpath);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(R.out, 1, sizeof R.out - 1, p);
    R.out[n] = '\0';
    int status = pclose(p);
    R.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    FILE *e = fopen(errpath, "r");
    n = e ? fread(R.err, 1, sizeof R.err - 1, e) : 0;
    R.err[n] = '\0';
    if (e)
        fclose(e);
    remove(errpath);
}

/* The same for "$INFERSIM_BIN <args>", the binary of this build. */
static void run_process_in(const char *cwd, const char *args)
{
    const char *bin = getenv("INFERSIM_BIN");
    assert_non_null(bin);
    run_process_bin(cwd, bin, args);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Reads a whole file into a malloc'd string. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

/* "nan" (but not "nano": nemotron-nano-9b-v2), "inf" (but not "infersim"), "NaN" or JSON null
 * anywhere in an output. */
static void assert_no_nonfinite(const char *s)
{
    bool bad = strstr(s, "NaN") || strstr(s, "null");
    for (const char *p = strstr(s, "nan"); p && !bad; p = strstr(p + 1, "nan"))
        bad = p[3] != 'o';
    for (const char *p = strstr(s, "inf"); p && !bad; p = strstr(p + 1, "inf"))
        bad = strncmp(p, "infersim", 8) != 0;
    if (bad) {
        print_error("non-finite value in output:\n%s\n", s);
        fail();
    }
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(it)) {
        print_error("key '%s' missing or not a number\n", k);
        fail();
    }
    return it->valuedouble;
}

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

static void expect_bad(const char *args, const char *must_mention)
{
    run(args);
    if (R.rc != 2 || count_lines(R.err) != 1 || !strstr(R.err, must_mention) || R.out[0]) {
        print_error("'%s': rc %d, stderr '%s', stdout %zu bytes; expected exit 2 and one line "
                    "naming '%s'\n",
                    args, R.rc, R.err, strlen(R.out), must_mention);
        fail();
    }
}

/* `base` with `extra` appended must fail with exit 2 and one line mentioning `mention`. */
static void bad_flag(const char *base, const char *extra, const char *mention)
{
    char a[1024];
    snprintf(a, sizeof a, "%s %s", base, extra);
    expect_bad(a, mention);
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

static void test_serve(void **state)
{
    (void)state;
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 60 --random-input-len 300 "
        "--random-output-len 40 --random-range-ratio 0.5 --request-rate 20 --seed 3 "
        "--goodput ttft:200 tpot:40 --format json");
    assert_int_equal(R.rc, 0);
    assert_string_equal(R.err, "");
    assert_no_nonfinite(R.out);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    /* the keys of vLLM's --save-result file, plus infersim's own */
    static const char *const keys[] = {
        "completed",          "duration",          "total_input_tokens",     "total_output_tokens",
        "request_throughput", "output_throughput", "total_token_throughput", "request_goodput",
        "preemptions",        "mean_batch_size",   "kv_cache_peak_usage"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        num(j, keys[k]);
    static const char *const ms[] = {"ttft", "tpot", "itl", "e2el"};
    static const char *const st[] = {"mean", "median", "std", "p90", "p99"};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 5; b++) {
            char key[32];
            snprintf(key, sizeof key, "%s_%s_ms", st[b], ms[a]);
            assert_true(num(j, key) >= 0.0);
        }
    assert_near(num(j, "completed"), 60.0, 0);
    assert_near(num(j, "request_throughput"), 60.0 / num(j, "duration"), 1e-9);
    cJSON_Delete(j);
    /* the same seed gives the same output; another seed does not */
    static char first[sizeof R.out];
    memcpy(first, R.out, sizeof first);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 60 --random-input-len 300 "
        "--random-output-len 40 --random-range-ratio 0.5 --request-rate 20 --seed 3 "
        "--goodput ttft:200 tpot:40 --format json");
    assert_string_equal(first, R.out);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 60 --random-input-len 300 "
        "--random-output-len 40 --random-range-ratio 0.5 --request-rate 20 --seed 4 "
        "--goodput ttft:200 tpot:40 --format json");
    assert_true(strcmp(first, R.out) != 0);
    /* vLLM's table, and a trace replayed */
    runf("serve --model llama-3.1-8b --hw h100-sxm --trace %s/traces/azure-conv-sample.csv "
         "--time-scale 0.5",
         tu_root());
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "============ Serving Benchmark Result ============\n"));
    assert_non_null(strstr(R.out, "Successful requests:                     300"));
    assert_non_null(strstr(R.out, "---------------Time to First Token----------------\n"));
    assert_non_null(strstr(R.out, "Mean TTFT (ms):"));
    runf("serve --model llama-3.1-8b --hw h100-sxm --trace %s/traces/mooncake-sample.jsonl "
         "--num-prompts 20 --format csv",
         tu_root());
    assert_int_equal(R.rc, 0);
    assert_int_equal(count_lines(R.out), 2);
}

static void test_serve_save_requests(void **state)
{
    (void)state;
    char path[256], cmd[512];
    tu_snprintf(path, sizeof path, "%s/infersim-req-%d.csv", tu_tmpdir(), (int)getpid());
    snprintf(cmd, sizeof cmd,
             "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 25 --random-input-len 100 "
             "--random-output-len 10 --save-requests %s --format json",
             path);
    run(cmd);
    assert_int_equal(R.rc, 0);
    char *csv = slurp(path);
    assert_non_null(csv);
    assert_int_equal(count_lines(csv), 26); /* header + 25 requests */
    free(csv);
    assert_int_equal(tu_temporaries(path), 0); /* renamed, nothing half-written left */
    remove(path);
}

static void test_serve_bad_input(void **state)
{
    (void)state;
    const char *base = "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 5";
    char a[1024];
    bad_flag(base, "--request-rate abc", "--request-rate");
    bad_flag(base, "--request-rate 0", "--request-rate");
    bad_flag(base, "--random-range-ratio 1", "--random-range-ratio");
    bad_flag(base, "--max-num-seqs 0", "--max-num-seqs");
    bad_flag(base, "--block-size -16", "--block-size");
    bad_flag(base, "--goodput latency:5", "--goodput");
    bad_flag(base, "--time-scale 2", "--time-scale");
    bad_flag(base, "--trace azure-conv-sample.csv --random-input-len 5", "--random-input-len");
    bad_flag(base, "--trace /nonexistent/trace.csv", "/nonexistent/trace.csv");
    bad_flag(base, "--random-input-len 200000", "max_position_embeddings");
    /* images: a model without a vision encoder, a malformed size */
    bad_flag(base, "--random-images-per-request 1", "--images-per-request");
    bad_flag("serve --model qwen2.5-vl-72b --hw h100-sxm --tp 4 --num-prompts 5",
             "--images-per-request 1 --image-size 1280x", "--image-size");
    bad_flag("run --model qwen2.5-vl-72b --hw h100-sxm --tp 4", "--image-size 0x720",
             "--image-size");
    bad_flag(base, "--swa-full-tokens-ratio 0.5", "--swa-full-tokens-ratio");
    bad_flag(base, "--save-requests /nonexistent/dir/r.csv", "--save-requests");
    bad_flag(base, "--batch 4", "--batch");
    const char *p = tu_write_tmp("when,in,out\n1,2,3\n");
    snprintf(a, sizeof a, "%s --trace %s", base, p);
    expect_bad(a, "unknown trace format");
    p = tu_write_tmp("arrival_s,input_tokens,output_tokens\n0,100,10\n1,200000,10\n");
    snprintf(a, sizeof a, "%s --trace %s", base, p);
    expect_bad(a, ":3:");
    p = tu_write_tmp("arrival_s,input_tokens,output_tokens\n0,100,10\n1,x,10\n");
    snprintf(a, sizeof a, "%s --trace %s", base, p);
    expect_bad(a, ":3: field 'input_tokens'");
}

static void test_spec_flags(void **state)
{
    (void)state;
    run("run --model llama-3.1-8b --hw h100-sxm --batch 4 --spec-method draft "
        "--spec-model llama-3.2-1b --num-speculative-tokens 4 --spec-acceptance-rate 0.7 "
        "--format json");
    assert_int_equal(R.rc, 0);
    assert_no_nonfinite(R.out);
    cJSON *j = cJSON_Parse(R.out);
    assert_near(num(j, "spec_acceptance_length"), (1 - pow(0.7, 5)) / 0.3, 1e-9);
    assert_true(num(j, "spec_draft_ms") > 0 && num(j, "spec_verify_ms") > 0);
    assert_true(num(j, "spec_speedup") > 1.0);
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 40 --random-input-len 200 "
        "--random-output-len 64 --request-rate 10 --spec-method medusa "
        "--num-speculative-tokens 3 --spec-acceptance-length 2.2 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_near(num(j, "spec_acceptance_length"), 2.2, 0.1);
    assert_true(num(j, "spec_draft_time_fraction") > 0);
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 20 --spec-method ngram "
        "--num-speculative-tokens 2 --spec-acceptance-rate 0.5");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "Acceptance length (tokens/verify):"));
    const char *base = "run --model llama-3.1-8b --hw h100-sxm";
    char a[512];
    snprintf(a, sizeof a, "%s --num-speculative-tokens 4", base);
    expect_bad(a, "--spec-method");
    snprintf(a, sizeof a, "%s --spec-method lookahead --num-speculative-tokens 4", base);
    expect_bad(a, "--spec-method");
    snprintf(a, sizeof a, "%s --spec-method ngram --spec-acceptance-rate 0.5", base);
    expect_bad(a, "--num-speculative-tokens");
    snprintf(a, sizeof a,
             "%s --spec-method draft --num-speculative-tokens 4 "
             "--spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "--spec-model");
    snprintf(a, sizeof a,
             "%s --spec-method ngram --num-speculative-tokens 4 "
             "--spec-acceptance-rate 1.5",
             base);
    expect_bad(a, "--spec-acceptance-rate");
    snprintf(a, sizeof a,
             "%s --spec-method draft --spec-model llama-2-7b "
             "--num-speculative-tokens 4 --spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "vocab_size");
    /* an EAGLE-3 head's draft vocabulary: its own smaller LM head drafts faster and weighs
     * less; refused for another method and past the target's vocabulary */
    run("run --model llama-3.1-8b --hw h100-sxm --speculative-config "
        "{\"method\":\"eagle3\",\"num_speculative_tokens\":3} --spec-acceptance-length 2.8 "
        "--format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    double full = num(j, "spec_draft_ms");
    cJSON_Delete(j);
    run("run --model llama-3.1-8b --hw h100-sxm --speculative-config "
        "{\"method\":\"eagle3\",\"num_speculative_tokens\":3} --spec-acceptance-length 2.8 "
        "--spec-draft-vocab 32000 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_true(num(j, "spec_draft_ms") < full);
    cJSON_Delete(j);
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle\",\"num_speculative_tokens\":3} "
             "--spec-acceptance-rate 0.5 --spec-draft-vocab 32000",
             base);
    expect_bad(a, "--spec-draft-vocab");
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle3\",\"num_speculative_tokens\":3} "
             "--spec-acceptance-rate 0.5 --spec-draft-vocab 200000",
             base);
    expect_bad(a, "128256");
    /* the engines' own spellings: bad JSON, an unknown method or field, a key twice, each exit 2
     * naming it; one engine's flags under another's refused */
    snprintf(a, sizeof a, "%s --speculative-config {\"method\":\"eagle3\" --spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "not a JSON object");
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle4\",\"num_speculative_tokens\":3} "
             "--spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "field 'method'");
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle\",\"num_speculative_tokens\":3,"
             "\"tree\":1} --spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "field 'tree'");
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle\",\"method\":\"ngram\","
             "\"num_speculative_tokens\":3} --spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "twice");
    snprintf(a, sizeof a, "%s --speculative-algorithm EAGLE3 --spec-acceptance-rate 0.5", base);
    expect_bad(a, "--speculative-algorithm");
    snprintf(a, sizeof a,
             "%s --engine sglang --speculative-algorithm EAGLE3 --speculative-num-steps 3 "
             "--spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "all three");
    snprintf(a, sizeof a, "%s --engine trtllm --speculative-config {\"decoding_type\":\"Eagle9\"} "
             "--spec-acceptance-rate 0.5", base);
    expect_bad(a, "decoding_type");
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle\",\"num_speculative_tokens\":3} "
             "--spec-acceptance-rates 0.8,0.9,0.5",
             base);
    expect_bad(a, "--spec-acceptance-rates");
    /* the SGLang tree runs, and its cap of 48 running requests applies unless a flag sets it */
    snprintf(a, sizeof a,
             "%s --engine sglang --speculative-algorithm EAGLE3 --speculative-num-steps 6 "
             "--speculative-eagle-topk 10 --speculative-num-draft-tokens 32 "
             "--spec-acceptance-length 5 --format json",
             base);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"num_speculative_tokens\":\t31"));
    assert_non_null(strstr(R.out, "\"spec_depth\":\t6"));
    run("serve --model llama-3.1-8b --hw h100-sxm --engine sglang --num-prompts 60 "
        "--request-rate inf --random-input-len 64 --random-output-len 32 "
        "--speculative-algorithm NEXTN --spec-acceptance-rate 0.7");
    assert_int_equal(R.rc, 2); /* llama-3.1-8b has no MTP layers */
    run("serve --model llama-3.1-8b --hw h100-sxm --engine sglang --num-prompts 60 "
        "--request-rate inf --random-input-len 64 --random-output-len 32 "
        "--speculative-algorithm EAGLE --spec-acceptance-rate 0.7 --format json");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"max_num_seqs\":\t48"));
    assert_non_null(strstr(R.out, "\"max_concurrent_requests\":\t60"));
}

static void test_chrome_traces(void **state)
{
    (void)state;
    char path[256], a[512];
    tu_snprintf(path, sizeof path, "%s/infersim-cli-trace-%d.json", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a,
             "run --model llama-3.1-8b --hw h100-sxm --tp 2 --batch 4 "
             "--output-len 8 --chrome-trace %s --format json",
             path);
    run(a);
    assert_int_equal(R.rc, 0);
    FILE *trf = fopen(path, "r");
    assert_non_null(trf);
    char tbuf[1 << 16];
    size_t tn = fread(tbuf, 1, sizeof tbuf - 1, trf);
    fclose(trf);
    tbuf[tn] = '\0';
    /* the prefill's 32 MiB all-reduces are past the custom limit: NCCL's ring */
    assert_non_null(strstr(tbuf, "\"collective_algo\":\"ring\",\"collective_protocol\":\""));
    snprintf(a, sizeof a, "trace-check %s", path);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, ": ok:"));
    snprintf(a, sizeof a,
             "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 50 "
             "--request-rate 20 --trace-detail layer --trace-window 0.5:2 "
             "--chrome-trace %s --format json",
             path);
    run(a);
    assert_int_equal(R.rc, 0);
    snprintf(a, sizeof a, "trace-check %s", path);
    run(a);
    assert_int_equal(R.rc, 0);
    remove(path);
    /* --pp 2: a process per stage, named with its layers, on run and serve; both pass */
    static const char *const pp_cmds[] = {
        "run --model llama-3.1-8b --hw h100-sxm --pp 2 --batch 4 --output-len 8 --trace-ranks all",
        "serve --model llama-3.1-8b --hw h100-sxm --pp 2 --num-prompts 20 --request-rate 20"};
    for (int k = 0; k < 2; k++) {
        snprintf(a, sizeof a, "%s --chrome-trace %s --format json", pp_cmds[k], path);
        run(a);
        assert_int_equal(R.rc, 0);
        trf = fopen(path, "r");
        assert_non_null(trf);
        tn = fread(tbuf, 1, sizeof tbuf - 1, trf);
        fclose(trf);
        tbuf[tn] = '\0';
        assert_non_null(
            strstr(tbuf, k ? "\"stage 0: layers 0-15\"" : "\"stage 0 GPU 0: layers 0-15\""));
        assert_non_null(
            strstr(tbuf, k ? "\"stage 1: layers 16-31\"" : "\"stage 1 GPU 1: layers 16-31\""));
        snprintf(a, sizeof a, "trace-check %s", path);
        run(a);
        assert_int_equal(R.rc, 0);
        remove(path);
    }
    /* an autoscaled pool's timeline: a replicas counter (ready, held), valid for trace-check */
    snprintf(a, sizeof a,
             "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 900 --rate-schedule 0:5,30:30 "
             "--random-input-len 128 --random-output-len 8 --autoscale 1:3 --autoscale-metric "
             "rate --autoscale-target 11 --uncertainty 0 --chrome-trace %s --format json",
             path);
    run(a);
    assert_int_equal(R.rc, 0);
    char *as_trace = slurp(path);
    assert_non_null(as_trace);
    assert_non_null(strstr(as_trace, "\"name\":\"replicas\""));
    assert_non_null(strstr(as_trace, "\"held\":3"));
    free(as_trace);
    snprintf(a, sizeof a, "trace-check %s", path);
    run(a);
    assert_int_equal(R.rc, 0);
    remove(path);
    /* a 1,000-request serve trace at the default (iteration) detail stays well under 100 MB */
    snprintf(a, sizeof a,
             "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 1000 "
             "--random-input-len 512 --random-output-len 256 --request-rate 8 "
             "--chrome-trace %s --format json",
             path);
    run(a);
    assert_int_equal(R.rc, 0);
    FILE *tf = fopen(path, "rb");
    assert_non_null(tf);
    fseek(tf, 0, SEEK_END);
    long size = ftell(tf);
    fclose(tf);
    assert_true(size > 1000000 && size < 30000000); /* measured ~9 MB */
    remove(path);
    const char *base = "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 5";
    snprintf(a, sizeof a, "%s --chrome-trace %s --trace-window 3:1", base, path);
    expect_bad(a, "--trace-window");
    snprintf(a, sizeof a, "%s --chrome-trace %s --trace-detail kernel", base, path);
    expect_bad(a, "--trace-detail");
    snprintf(a, sizeof a, "%s --trace-detail op", base);
    expect_bad(a, "--chrome-trace");
    snprintf(a, sizeof a, "%s --chrome-trace /nonexistent/dir/t.json", base);
    expect_bad(a, "--chrome-trace");
    assert_int_not_equal(access(path, F_OK), 0); /* failed runs leave no file */
    /* traces: the rank choice, and a refusal past --trace-max-mb before a byte is written */
    snprintf(a, sizeof a,
             "run --model llama-3.1-8b --hw h100-sxm --chrome-trace %s --trace-ranks two", path);
    expect_bad(a, "--trace-ranks");
    expect_bad("run --model llama-3.1-8b --hw h100-sxm --trace-ranks all", "--chrome-trace");
    snprintf(a, sizeof a,
             "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 1000 "
             "--random-input-len 512 --random-output-len 256 --request-rate 8 "
             "--trace-detail op --chrome-trace %s",
             path);
    expect_bad(a, "past --trace-max-mb 512");
    assert_non_null(strstr(R.err, "would take about "));
    assert_int_not_equal(access(path, F_OK), 0);
    snprintf(a, sizeof a,
             "run --model llama-3.1-70b --hw h100-sxm --tp 8 --batch 32 --input-len 2048 "
             "--chrome-trace %s --trace-ranks all --trace-max-mb 2",
             path);
    expect_bad(a, "the run timeline of 8 ranks would take about 7 MB");
    assert_int_not_equal(access(path, F_OK), 0);
    expect_bad("trace-check /nonexistent/trace.json", "/nonexistent/trace.json");
    const char *bad = tu_write_tmp("{\"traceEvents\": [{\"ph\": \"X\", \"pid\": 1, "
                                   "\"tid\": 1, \"name\": \"a\", \"ts\": 0, \"dur\": 1}]}");
    snprintf(a, sizeof a, "trace-check %s", bad);
    expect_bad(a, "process_name");
}

/* --html on run, serve and sweep: a page with its charts, the usual output unchanged. */
static void test_html_reports(void **state)
{
    (void)state;
    char path[256], a[768];
    tu_snprintf(path, sizeof path, "%s/infersim-cli-report-%d.html", tu_tmpdir(), (int)getpid());
    static const struct {
        const char *args, *must_hold, *stdout_holds;
        int svgs;
    } cases[] = {
        {"run --model llama-3.1-8b --hw h100-sxm --batch 8 --output-len 16", "class=\"op\"",
         "TTFT (ms)", 3},
        {"run --model llama-3.1-8b --hw h100-sxm --batch 8 --output-len 16 --spec-method ngram "
         "--num-speculative-tokens 4 --spec-acceptance-rate 0.8",
         "draft vs verify", "TTFT (ms)", 4},
        /* 4 CDFs, 3 series (no preemptions in this run: no panel), the requests */
        {"serve --model llama-3.1-8b --hw h100-sxm --num-prompts 200 --request-rate 20 "
         "--goodput ttft:500 tpot:50",
         "SLO 500 ms", "Serving Benchmark Result", 8},
        {"sweep serve --model llama-3.1-8b --hw h100-sxm --num-prompts 50 --request-rate 2,50 "
         "--max-num-seqs 16,64 --slo ttft:2000,tpot:100 --threads 1",
         "class=\"front\"", "point,", 4},
        /* an autoscaled pool: the latency CDFs, the replicas over time, the requests */
        {"serve --model llama-3.1-8b --hw h100-sxm --num-prompts 600 --rate-schedule 0:5,30:30 "
         "--autoscale 1:4 --autoscale-metric rate --autoscale-target 11 --uncertainty 0",
         "Replicas over time", "autoscaled 1..4 on rate", 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        remove(path);
        snprintf(a, sizeof a, "%s --html %s", cases[i].args, path);
        run(a);
        assert_int_equal(R.rc, 0);
        assert_non_null(strstr(R.out, cases[i].stdout_holds));
        char *page = slurp(path);
        assert_non_null(page);
        assert_true(strncmp(page, "<!DOCTYPE html>", 15) == 0);
        assert_non_null(strstr(page, cases[i].must_hold));
        assert_null(strstr(page, "<script"));
        int svgs = 0;
        for (const char *p = strstr(page, "<svg "); p; p = strstr(p + 1, "<svg "))
            svgs++;
        if (svgs < cases[i].svgs) {
            print_error("%s: %d charts, expected at least %d\n", cases[i].args, svgs,
                        cases[i].svgs);
            fail();
        }
        assert_no_nonfinite(page);
        free(page);
    }
    remove(path);
    expect_bad("run --model llama-3.1-8b --hw h100-sxm --html /nonexistent/dir/r.html", "--html");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 5 "
               "--html /nonexistent/dir/r.html",
               "--html");
    /* a sweep's page is written before its rows: nothing on stdout when it fails */
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --num-prompts 5 --tp 1,2 "
               "--html /nonexistent/dir/r.html",
               "--html");
    /* the grid file cannot hold it: it is the sweep's own flag */
    const char *grid = tu_write_tmp("{\"command\": \"serve\", \"grid\": {\"html\": [\"a.html\"]}}");
    snprintf(a, sizeof a, "sweep serve --model llama-3.1-8b --hw h100-sxm --grid %s", grid);
    expect_bad(a, "sweep's own flag");
    assert_int_not_equal(access("/nonexistent/dir/r.html", F_OK), 0);
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
    expect_bad("run --model mixtral-8x7b --hw h200 --tp 2 --moe-kernel marlin", "--moe-kernel");
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

/* Removes the last k comma-separated fields of every line of text (fields without commas). */
static void cut_last_fields(char *text, int k)
{
    char *w = text;
    for (char *l = text; *l;) {
        size_t len = strcspn(l, "\n");
        const bool nl = l[len] == '\n';
        size_t keep = len;
        for (int j = 0; j < k && keep > 0; j++) {
            while (keep > 0 && l[keep - 1] != ',')
                keep--;
            if (keep > 0)
                keep--;
        }
        memmove(w, l, keep);
        w += keep;
        if (nl)
            *w++ = '\n';
        l += len + nl;
    }
    *w = '\0';
}

static void test_sweep(void **state)
{
    (void)state;
    char a[2048], p1[256], p2[256], s0[256], s1[256], m[256];
    int pid = (int)getpid();
    tu_snprintf(p1, sizeof p1, "%s/infersim-sw1-%d.csv", tu_tmpdir(), pid);
    tu_snprintf(p2, sizeof p2, "%s/infersim-sw2-%d.csv", tu_tmpdir(), pid);
    tu_snprintf(s0, sizeof s0, "%s/infersim-sw-s0-%d.csv", tu_tmpdir(), pid);
    tu_snprintf(s1, sizeof s1, "%s/infersim-sw-s1-%d.csv", tu_tmpdir(), pid);
    tu_snprintf(m, sizeof m, "%s/infersim-sw-m-%d.csv", tu_tmpdir(), pid);
    const char *grid = "sweep serve --model llama-3.1-8b,llama-3.1-70b --hw h100-sxm --tp 1,4,3 "
                       "--request-rate 2,inf --num-prompts 40 --random-input-len 256 "
                       "--random-output-len 32 --slo ttft:400,tpot:30";
    /* 12 points; 70B at TP 1 does not fit and TP 3 divides no head count: error rows */
    snprintf(a, sizeof a, "%s --threads 1 --out %s", grid, p1);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_string_equal(R.err, ""); /* no progress bar when stderr is not a terminal */
    assert_non_null(strstr(R.out, "sweep: 12 points"));
    assert_non_null(strstr(R.out, "Pareto frontier"));
    snprintf(a, sizeof a, "%s --threads 2 --out %s", grid, p2);
    run(a);
    assert_int_equal(R.rc, 0);
    char *one = slurp(p1), *two = slurp(p2);
    assert_non_null(one);
    assert_non_null(two);
    assert_string_equal(one, two); /* byte-identical whatever the thread count */
    assert_int_equal(count_lines(one), 13);
    assert_non_null(strstr(one, "point,model,tp,request-rate,gpus,"));
    assert_non_null(strstr(one, ",meets_slo,error,band_basis,decision,beat_probability,"
                                "decision_tie,decision_versus_point\n"));
    int errors = 0;
    for (char *l = strchr(one, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
        char row[2048];
        snprintf(row, sizeof row, "%.*s", (int)strcspn(l, "\n"), l);
        if (strstr(row, "for the KV cache") || strstr(row, "--tp: value 3"))
            errors++;
    }
    assert_int_equal(errors, 6); /* 70B tp1 x 2 rates + tp3 x 2 models x 2 rates */
    /* two shards merged back give the same file */
    snprintf(a, sizeof a, "%s --shard 1/2 --out %s", grid, s1);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "sweep: 6 points (shard 1/2 of 12)"));
    snprintf(a, sizeof a, "%s --shard 0/2 --out %s", grid, s0);
    run(a);
    assert_int_equal(R.rc, 0);
    snprintf(a, sizeof a, "merge --out %s %s %s", m, s1, s0);
    run(a);
    assert_int_equal(R.rc, 0);
    char *merged = slurp(m);
    /* the same file but for the decision's last four columns, which only the whole sweep fills
     * (a shard sees part of the grid): empty in the merged rows */
    assert_non_null(strstr(one, ",winner,"));
    assert_null(strstr(merged, ",winner,"));
    cut_last_fields(one, 4);
    cut_last_fields(merged, 4);
    assert_string_equal(merged, one);
    /* a shard merged twice is an error */
    snprintf(a, sizeof a, "merge --out %s %s %s", m, s1, s1);
    expect_bad(a, "appears in two shards");
    free(one);
    free(two);
    free(merged);
    remove(p1);
    remove(p2);
    remove(s0);
    remove(s1);
    remove(m);
}

/* `--out -` is standard output, as a Unix tool reads "-": sweep, merge and calibrate write their
 * output there and create no file named "-". */
static void test_out_dash_is_stdout(void **state)
{
    (void)state;
    char shard[512];
    run("sweep run --model llama-3.1-8b --hw h100-sxm --tp 1,2 --out -");
    assert_int_equal(R.rc, 0);
    assert_true(strncmp(R.out, "point,tp,", 9) == 0);
    assert_non_null(strstr(R.out, "\n1,2,2,"));
    assert_int_equal(access("-", F_OK), -1);
    tu_snprintf(shard, sizeof shard, "%s/dash-shard.csv", tu_tmpdir());
    runf("sweep run --model llama-3.1-8b --hw h100-sxm --tp 1,2 --shard 0/1 --out %s", shard);
    assert_int_equal(R.rc, 0);
    runf("merge %s --out -", shard);
    assert_int_equal(R.rc, 0);
    assert_true(strncmp(R.out, "point,tp,", 9) == 0);
    run("calibrate --hw h100-sxm --out -");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"name\":"));
    assert_int_equal(access("-", F_OK), -1);
}

static void test_sweep_slo_rows(void **state)
{
    (void)state;
    /* run points: TPOT is deterministic; meets_slo must say TPOT <= 30 ms exactly */
    char p[256], a[512];
    tu_snprintf(p, sizeof p, "%s/infersim-sw-slo-%d.jsonl", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a,
             "sweep run --model llama-3.1-70b --hw h100-sxm --tp 2,4,8 "
             "--batch 1,16,64 --slo tpot:30 --out %s",
             p);
    run(a);
    assert_int_equal(R.rc, 0);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    char line[4096];
    int n = 0, meets = 0;
    while (fgets(line, sizeof line, f)) {
        cJSON *j = cJSON_Parse(line);
        assert_non_null(j);
        n++;
        if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "error"))) {
            /* a point that does not fit: an error row, never meeting the SLO */
            assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "meets_slo")));
            cJSON_Delete(j);
            continue;
        }
        double tpot = num(j, "tpot_ms");
        bool m = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "meets_slo"));
        assert_true(m == (tpot <= 30.0));
        meets += m;
        cJSON_Delete(j);
    }
    fclose(f);
    assert_int_equal(n, 9);
    assert_true(meets > 0 && meets < 9);
    assert_non_null(strstr(R.out, "best under the SLO: point"));
    remove(p);
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --chrome-trace x.json",
               "--chrome-trace");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --shard 2/2", "--shard");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --slo fast", "--slo");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --tp 1,,2", "--tp");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --bogus 1", "--bogus");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --threads 0", "--threads");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --threads=2x", "--threads");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --slo-percentile 95",
               "expected 50, 90 or 99");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --out", "--out: missing value");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --out=", "--out: empty value");
    expect_bad("sweep roofline --hw h100-sxm", "sweep");
}

static void test_sweep_grid_file(void **state)
{
    (void)state;
    const char *g = tu_write_tmp("{\"command\": \"run\", \"grid\": {\"model\": "
                                 "\"llama-3.1-8b\", \"--batch\": [1, 8], \"--kv-cache-dtype\": "
                                 "[\"bf16\", \"fp8\"], \"--enforce-eager\": [false, true]}}");
    char a[512];
    snprintf(a, sizeof a, "sweep run --grid %s --hw h100-sxm", g);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_int_equal(count_lines(R.out), 9); /* header + 8 points, to stdout without --out */
    assert_non_null(strstr(R.out, "point,batch,kv-cache-dtype,enforce-eager,"));
    g = tu_write_tmp("{\"command\": \"serve\", \"grid\": {\"--batch\": [1]}}");
    snprintf(a, sizeof a, "sweep run --grid %s --hw h100-sxm", g);
    expect_bad(a, "command");
}

/* `json` written to a grid file, then `sweep run --grid FILE <rest>` must fail naming `mention`
 * and the file. */
static void bad_grid(const char *json, const char *rest, const char *mention)
{
    const char *g = tu_write_tmp(json);
    char a[1024];
    snprintf(a, sizeof a, "sweep run --grid %s --model llama-3.1-8b --hw h100-sxm %s", g, rest);
    expect_bad(a, mention);
    if (!strstr(R.err, g) && !strstr(mention, "given twice")) {
        print_error("'%s': stderr '%s' does not name the grid file\n", a, R.err);
        fail();
    }
}

/* A grid file takes exactly the flags the command line takes, and keeps every value whole. */
static void test_sweep_grid_file_checks(void **state)
{
    (void)state;
    /* a misspelt flag made every point fail, exit 0: refused up front */
    bad_grid("{\"grid\": {\"--fromat\": [\"csv\"]}}", "",
             "field 'grid.--fromat': unknown flag '--fromat', expected a flag of 'infersim run'");
    bad_grid("{\"grid\": {\"batchh\": [1]}}", "", "unknown flag '--batchh'");
    bad_grid("{\"grid\": {\"--fromat\": [\"json\"]}}", "",
             "expected a flag of 'infersim run'; did you mean --format? (see");
    bad_grid("{\"grid\": {\"--request-rate\": [1]}}", "", "unknown flag '--request-rate'");
    /* per-run outputs, as on the command line */
    bad_grid("{\"grid\": {\"format\": [\"csv\"]}}", "",
             "field 'grid.format': --format is the sweep's own flag"); /* the rows' format */
    bad_grid("{\"grid\": {\"--chrome-trace\": [\"t.json\"]}}", "", "--chrome-trace: not available");
    bad_grid("{\"grid\": {\"help\": [true]}}", "", "--help: not available");
    bad_grid("{\"grid\": {\"threads\": [2]}}", "", "--threads is the sweep's own flag");
    /* values checked as the command line's are */
    bad_grid("{\"grid\": {\"--batch\": []}}", "", "field 'grid.--batch' is [], expected");
    bad_grid("{\"grid\": {\"--batch\": [1, {}]}}", "", "not a string, number or boolean");
    bad_grid("{\"grid\": {\"model\": [\"\"]}}", "", "empty string");
    bad_grid("{\"grid\": {\"enforce-eager\": [\"yes\"]}}", "",
             "field 'grid.enforce-eager': --enforce-eager: value 'yes', expected true or false");
    bad_grid("{\"grid\": {}, \"gird\": {}}", "", "unknown field 'gird'");
    bad_grid("[1, 2]", "", "not a JSON object");
    expect_bad("sweep run --model llama-3.1-8b --hw h100-sxm --enforce-eager=false,yes",
               "--enforce-eager: value 'yes', expected true or false");
    /* a key longer than any flag is named whole, never cut */
    char key[200], json[400];
    memset(key, 'k', 120);
    key[120] = '\0';
    snprintf(json, sizeof json, "{\"grid\": {\"%s\": [1]}}", key);
    bad_grid(json, "", key);
    /* --grid twice: the first file's error used to be overwritten by the second's success */
    char g1[256];
    snprintf(g1, sizeof g1, "%s", tu_write_tmp("{\"grid\": {\"--fromat\": [\"csv\"]}}"));
    const char *g2 = tu_write_tmp("{\"grid\": {\"--batch\": [1]}}");
    char a[1024];
    snprintf(a, sizeof a, "sweep run --grid %s --grid %s --model llama-3.1-8b --hw h100-sxm", g1,
             g2);
    expect_bad(a, "--grid: given twice");
    expect_bad("sweep run --model llama-3.1-8b --hw h100-sxm --out a.csv --out=b.csv",
               "--out: given twice");
    /* more than 64 values: every one a point (the file's dimensions were cut at 64) */
    char big[1024] = "{\"command\": \"run\", \"grid\": {\"--batch\": [1";
    for (int b = 2; b <= 100; b++)
        snprintf(big + strlen(big), sizeof big - strlen(big), ", %d", b);
    snprintf(big + strlen(big), sizeof big - strlen(big), "]}}");
    snprintf(a, sizeof a, "sweep run --grid %s --model llama-3.1-8b --hw h100-sxm",
             tu_write_tmp(big));
    run(a);
    assert_int_equal(R.rc, 0);
    assert_int_equal(count_lines(R.out), 101);
    assert_non_null(strstr(R.out, "\n99,100,"));
    /* a value past 255 characters is kept whole (it was cut): the row's error names it all */
    char model[400] = "/nonexistent/";
    memset(model + strlen(model), 'm', 300);
    model[313] = '\0';
    char mj[600];
    snprintf(mj, sizeof mj, "{\"grid\": {\"model\": [\"%s\"], \"batch\": [1, 2]}}", model);
    snprintf(a, sizeof a, "sweep run --grid %s --hw h100-sxm", tu_write_tmp(mj));
    run(a);
    assert_int_equal(R.rc, 0);
    assert_int_equal(count_lines(R.out), 3);
    assert_non_null(strstr(R.out, model));
}

/* A flag swept twice used to keep its last value while the rows showed the first: refused. */
static void test_sweep_flag_given_twice(void **state)
{
    (void)state;
    const char *g = tu_write_tmp("{\"grid\": {\"--batch\": [1, 2]}}");
    char a[512];
    snprintf(a, sizeof a, "sweep run --grid %s --model llama-3.1-8b --hw h100-sxm --batch 4", g);
    expect_bad(a, "--batch: given twice");
    expect_bad("sweep run --model llama-3.1-8b --hw h100-sxm --batch 1,2 --batch 4",
               "--batch: given twice");
    expect_bad("sweep run --model llama-3.1-8b --hw h100-sxm --batch=1 --batch=1",
               "--batch: given twice");
    /* in a grid file too, "batch" and "--batch" are the same flag */
    g = tu_write_tmp("{\"grid\": {\"batch\": [1], \"--batch\": [2]}}");
    snprintf(a, sizeof a, "sweep run --grid %s --model llama-3.1-8b --hw h100-sxm", g);
    expect_bad(a, "--batch: given twice");
}

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
     * fused_moe rows (issue 23) */
    assert_non_null(strstr(R.out, "\nvalidation: 482 points, median |error| "));
    assert_non_null(strstr(R.out, "\n  op-level: 429 points")); /* 7 block-fp8 rows 3600-3606 */
    assert_non_null(strstr(R.out, "\n  op moe_layer: 36 points"));
    assert_non_null(strstr(R.out, "\n  op decode_attention: 35 points"));
    assert_non_null(strstr(R.out, "\n  end-to-end: 53 points")); /* 52 static, 1 serve */
    /* by the engine that measured them: TensorRT-LLM 0.11's static rows and 1.0's 1113, vLLM's */
    assert_non_null(strstr(R.out, "\n  end-to-end, engine trtllm: "));
    assert_non_null(strstr(R.out, "\n  end-to-end, engine vllm: "));
    assert_non_null(strstr(R.out, "\n  quantized: op-level 162 points")); /* 20 MI300X fp8 */
    assert_non_null(strstr(R.out, "\n  op alltoall: 34 points"));
    assert_non_null(strstr(R.out, "\n  op allreduce_norm: 3 points"));
    assert_non_null(strstr(R.out, "\n  op allreduce: 53 points"));
    assert_non_null(strstr(R.out, "\n  op size <= 64 KB: "));
    assert_non_null(strstr(R.out, "\n  op size <= 4 MB: "));
    assert_non_null(strstr(R.out, "\n  op size > 4 MB: "));
    assert_non_null(strstr(R.out, "(53 low-trust rows shown above"));
    assert_non_null(strstr(R.out, "% (low trust)\n"));
    assert_non_null(strstr(R.out, "1113 serve     h100-sxm       output_tps     2048/128 x3000"));
    assert_non_null(strstr(R.out, "  41 skipped: GB200"));
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

/* Every shipped device refuses a compute format it has no tensor peak for, naming the ones it
 * has (a test per lacking format); Blackwell Ultra computes fp4 and MI355X fp8 and mxfp4. */
static void test_device_formats(void **state)
{
    (void)state;
    static const struct {
        const char *hw, *fmt, *has;
    } lacking[] = {
        {"b300", "int8", "it computes bf16, fp16, fp8, fp4, mxfp4"},
        {"gb300", "int8", "it computes bf16, fp16, fp8, fp4, mxfp4"},
        {"mi300x", "fp4", "it computes bf16, fp16, fp8, int8:"},
        {"mi300x", "mxfp4", "it computes bf16, fp16, fp8, int8:"},
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

/* A sweep over devices marks the points on devices whose efficiencies are all defaults: the
 * hw_efficiency column (CSV, JSONL), the summary's [default-only] marks and the chart's key. */
static void test_sweep_marks_default_only(void **state)
{
    (void)state;
    run("sweep run --model llama-3.1-8b --hw h100-sxm,l40s,b300 --batch 8 --output-len 16 "
        "--threads 1");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, ",hw_efficiency,error,band_basis,"));
    assert_non_null(strstr(R.out, "\n0,h100-sxm,"));
    assert_non_null(strstr(R.out, ",fitted,,engine "));
    assert_non_null(strstr(R.out, ",default-only,,engine ")); /* l40s: estimates only */
    assert_non_null(strstr(R.out, ",inherited,,engine "));    /* b300: B200 fitted values */
    assert_non_null(strstr(R.err, "1 points on devices with default-only efficiencies"));
    char path[256];
    tu_snprintf(path, sizeof path, "%s/infersim-sweep-mark-%d.jsonl", tu_tmpdir(), (int)getpid());
    runf("sweep serve --model llama-3.1-8b --hw l40s --num-prompts 20 --threads 1 --out %s",
         path);
    assert_int_equal(R.rc, 0);
    char *rows = slurp(path);
    assert_non_null(rows);
    assert_non_null(strstr(rows, "\"hw_efficiency\":\"default-only\""));
    free(rows);
    assert_non_null(strstr(R.out, "[default-only]")); /* the frontier's only point */
    tu_snprintf(path, sizeof path, "%s/infersim-sweep-mark-%d.html", tu_tmpdir(), (int)getpid());
    runf("sweep run --model llama-3.1-8b --hw h100-sxm,l40s --batch 8 --output-len 16 "
         "--threads 1 --html %s",
         path);
    assert_int_equal(R.rc, 0);
    char *page = slurp(path);
    assert_non_null(page);
    assert_non_null(strstr(page, "device default-only"));
    assert_non_null(strstr(page, "device efficiencies default-only (unmeasured)"));
    free(page);
    remove(path);
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

/* --pp on run and serve (the JSON names the stages, gpus is tp x pp); --replicas behind a
 * --router (gpus and cost multiply, per-replica load); --disagg P:D pools */
static void test_deployment_flags(void **state)
{
    (void)state;
    run("run --model llama-3.1-8b --hw h100-sxm --tp 2 --pp 2 --batch 4 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(j, "pp"), 2.0, 0);
    assert_near(num(j, "gpus"), 4.0, 0);
    cJSON_Delete(j);
    run("serve --model llama-3.1-70b --hw h100-sxm --pp 2 --num-prompts 20 --random-input-len 200 "
        "--random-output-len 20 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(j, "gpus"), 2.0, 0);
    assert_near(num(j, "completed"), 20.0, 0);
    cJSON_Delete(j);
    run("run --model llama-3.1-8b --hw h100-sxm --pp 2");
    assert_non_null(strstr(R.out, "pipeline: 2 stages of 1 GPU, layers 16/16"));
    expect_bad("run --model llama-3.1-8b --hw h100-sxm --pp 33", "--pp: value 33");
    /* replicas: gpus and cost follow, per-replica load in the JSON */
    runf("serve --model llama-3.1-8b --hw h100-sxm --replicas 3 --router prefix-aware "
         "--trace %s/traces/mooncake-sample.jsonl --num-prompts 30 --format json",
         tu_root());
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(j, "gpus"), 3.0, 0);
    assert_near(num(j, "replicas"), 3.0, 0);
    assert_near(num(j, "usd_per_hour"), 3.0 * num(j, "usd_per_gpu_hour"), 1e-12);
    assert_between(num(j, "router_prefix_match_rate"), 0.0, 1.0);
    const cJSON *load = cJSON_GetObjectItemCaseSensitive(j, "replica_load");
    assert_int_equal(cJSON_GetArraySize(load), 3);
    double n = 0;
    for (int i = 0; i < 3; i++)
        n += num(cJSON_GetArrayItem(load, i), "requests");
    assert_near(n, 30.0, 0);
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --replicas 2 --num-prompts 10");
    assert_non_null(
        strstr(R.out, "2 replicas, router least-outstanding; requests per replica: 5 5"));
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --replicas 2 --router random",
               "--router: value 'random'");
    /* --html of several engines: per replica, and per pool and instance with --disagg */
    char hpath[256], hcmd[512];
    tu_snprintf(hpath, sizeof hpath, "%s/infersim-deploy-%d.html", tu_tmpdir(), (int)getpid());
    snprintf(hcmd, sizeof hcmd,
             "serve --model llama-3.1-8b --hw h100-sxm --replicas 2 --num-prompts 10 --html %s",
             hpath);
    run(hcmd);
    assert_int_equal(R.rc, 0);
    char *page = slurp(hpath);
    assert_non_null(page);
    assert_non_null(strstr(page, "Replica 1</td><td class=\"v\">5 requests"));
    /* and each replica's run over time: four charts, a line per replica */
    assert_non_null(strstr(page, "Requests in each instance"));
    assert_non_null(strstr(page, "KV-cache usage of each instance"));
    assert_non_null(strstr(page, ">replica 1<"));
    assert_null(strstr(page, "not charted"));
    free(page);
    snprintf(hcmd, sizeof hcmd,
             "serve --model llama-3.1-8b --hw h100-sxm --disagg 1:2 --num-prompts 10 --html %s",
             hpath);
    run(hcmd);
    assert_int_equal(R.rc, 0);
    page = slurp(hpath);
    assert_non_null(page);
    assert_non_null(strstr(page, "Prefill pool (1 instances)</td><td class=\"v\">10 requests"));
    assert_non_null(strstr(page, "Decode instance 1"));
    assert_non_null(strstr(page, ">prefill 0<"));
    assert_non_null(strstr(page, ">decode 1<"));
    free(page);
    remove(hpath);
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --replicas 2 --chrome-trace /tmp/x.json "
               "--trace-detail op",
               "--trace-detail: applies to one engine's timeline");
    /* the timelines of several engines: a process per instance, requests, KV transfers */
    char tpath[256], tcmd[512];
    tu_snprintf(tpath, sizeof tpath, "%s/infersim-deploy-%d.json", tu_tmpdir(), (int)getpid());
    snprintf(tcmd, sizeof tcmd,
             "serve --model llama-3.1-8b --hw h100-sxm --disagg 1:2 --num-prompts 12 "
             "--request-rate 10 --chrome-trace %s",
             tpath);
    run(tcmd);
    assert_int_equal(R.rc, 0);
    char *tr = slurp(tpath);
    assert_non_null(tr);
    assert_non_null(strstr(tr, "\"prefill 0\""));
    assert_non_null(strstr(tr, "\"decode 1\""));
    assert_non_null(strstr(tr, "\"kv transfer\""));
    free(tr);
    snprintf(tcmd, sizeof tcmd, "trace-check %s", tpath);
    run(tcmd);
    assert_int_equal(R.rc, 0);
    /* 12 requests x 3 spans (prefill, transfer, decode) x (begin, end) */
    assert_non_null(strstr(R.out, "72 async"));
    snprintf(tcmd, sizeof tcmd,
             "serve --model llama-3.1-8b --hw h100-sxm --replicas 3 --num-prompts 12 "
             "--chrome-trace %s",
             tpath);
    run(tcmd);
    assert_int_equal(R.rc, 0);
    snprintf(tcmd, sizeof tcmd, "trace-check %s", tpath);
    run(tcmd);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "on 3 tracks"));
    remove(tpath);
    /* --disagg 1:1 at TP 1: two GPUs, a positive KV transfer, both pools' utilisation */
    run("serve --model llama-3.1-8b --hw h100-sxm --disagg 1:1 --num-prompts 20 --request-rate 10 "
        "--format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(j, "gpus"), 2.0, 0);
    assert_true(num(j, "kv_transfer_ms_mean") > 0.0);
    assert_between(num(j, "prefill_utilization"), 0.0, 1.0);
    assert_between(num(j, "decode_utilization"), 0.0, 1.0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "kv_link")),
                        "scaleup");
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --tp 2 --prefill-tp 1 --disagg 3:1 "
        "--num-prompts 10 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_near(num(j, "gpus"), 5.0, 0); /* 3 x 1 + 1 x 2 */
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --disagg 1:1 --kv-stream --num-prompts 10");
    assert_non_null(strstr(R.out, "disaggregated: 1 prefill + 1 decode instances"));
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --disagg 2", "--disagg: value '2'");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --disagg 1:1 --prefill-tp 3",
               "prefill instances (--prefill-tp 3)");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --disagg 1:1 --replicas 2",
               "--replicas with --disagg");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --kv-stream", "--kv-stream: applies only");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --prefill-tp 2",
               "--prefill-tp: applies only");
    /* the three can be swept; the rows carry gpus and the cost */
    char path[256], cmd[512];
    tu_snprintf(path, sizeof path, "%s/infersim-deploy-%d.csv", tu_tmpdir(), (int)getpid());
    snprintf(cmd, sizeof cmd,
             "sweep serve --model llama-3.1-8b --hw h100-sxm --replicas 1,2 --pp 1,2 "
             "--num-prompts 10 --threads 2 --out %s",
             path);
    run(cmd);
    assert_int_equal(R.rc, 0);
    char *csv = slurp(path);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "point,replicas,pp,gpus,"));
    assert_non_null(strstr(csv, "\n3,2,2,4,"));
    free(csv);
    snprintf(cmd, sizeof cmd,
             "sweep serve --model llama-3.1-8b --hw h100-sxm --disagg 1:1,2:1 --num-prompts 10 "
             "--objective cost --out %s",
             path);
    run(cmd);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "cheapest: point"));
    csv = slurp(path);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "point,disagg,gpus,"));
    assert_non_null(strstr(csv, "\n1,2:1,3,"));
    assert_non_null(strstr(csv, "usd_per_million_output_tokens"));
    free(csv);
    remove(path);
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --pp 2 --spec-method ngram "
               "--num-speculative-tokens 2 --spec-acceptance-rate 0.5",
               "--pp with --spec-method");
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

/* A number from the JSON on stdout. */
static double out_num(const char *key)
{
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    assert_true(cJSON_IsNumber(v));
    double x = v->valuedouble;
    cJSON_Delete(j);
    return x;
}

static void test_engine_profiles(void **state)
{
    (void)state;
    /* one workload, three engines: each with its own KV sizing, page size and scheduler */
    static const char *const engines[] = {"vllm", "sglang", "trtllm"};
    const double pages[] = {16, 1, 32};
    double ttft[3], blocks[3];
    for (int i = 0; i < 3; i++) {
        char a[512];
        snprintf(a, sizeof a,
                 "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 200 --random-input-len "
                 "2000 --random-output-len 200 --request-rate 10 --engine %s --format json",
                 engines[i]);
        run(a);
        assert_int_equal(R.rc, 0);
        assert_near(out_num("block_size"), pages[i], 0);
        ttft[i] = out_num("mean_ttft_ms");
        blocks[i] = out_num("kv_cache_blocks") * pages[i];
        assert_non_null(strstr(R.out, engines[i]));
    }
    assert_true(ttft[0] != ttft[1] && ttft[1] != ttft[2] && ttft[0] != ttft[2]);
    assert_true(blocks[2] > blocks[0]); /* TensorRT-LLM: 0.9 of the free memory, not of all */
    /* a profile field overridden by its flag, and a contradiction refused */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --engine trtllm "
        "--max-batch-size 1 --format json"); /* TensorRT-LLM's name for --max-num-seqs */
    assert_int_equal(R.rc, 0);
    assert_near(out_num("mean_batch_size"), 1, 0);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --engine sglang --block-size 16 "
        "--format json");
    assert_near(out_num("block_size"), 16, 0);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --async-scheduling "
        "--no-async-scheduling");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "contradict"));
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --engine nosuch");
    assert_int_equal(R.rc, 2);
    /* a sweep over engines: one row each, the profiles preloaded before the parallel loop */
    run("sweep serve --model llama-3.1-8b --hw h100-sxm --engine vllm,sglang,trtllm "
        "--num-prompts 50 --request-rate 4 --threads 2");
    assert_int_equal(R.rc, 0);
    for (int i = 0; i < 3; i++) {
        char row[32];
        snprintf(row, sizeof row, "\n%d,%s,", i, engines[i]);
        assert_non_null(strstr(R.out, row));
    }
}

/* --engine NAME@VERSION: the profile whose range holds the release (the choices are worked out in
 * test_engprof.c), the device's platform deciding between a CUDA and a ROCm build; an unknown
 * release exits 2 naming the known ranges; a sweep over releases; compare takes the engine and
 * release from a result file's backend and version. */
static void test_engine_versions(void **state)
{
    (void)state;
    static const struct {
        const char *flags, *profile;
    } want[] = {
        {"--hw h100-sxm --engine vllm@0.10.2", "vllm-0.10"},
        {"--hw h100-sxm --engine vllm@0.6.3", "vllm-v0"},
        {"--hw h100-sxm --engine vllm", "vllm"},
        {"--hw mi300x --engine vllm@0.10.2", "vllm-rocm-0.10"},
        {"--hw mi300x --engine vllm@0.6", "vllm-v0-rocm"},
        {"--hw mi300x --engine vllm", "vllm-rocm"},
        {"--hw mi300x --engine sglang@0.5.4", "sglang-rocm"},
        {"--hw h100-sxm --engine trtllm@0.17", "trtllm-0.14"},
        {"--hw h100-sxm --engine trtllm-0.11", "trtllm-0.11"}, /* a profile by its file name */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char a[512], key[96];
        snprintf(a, sizeof a, "serve --model llama-3.1-8b --num-prompts 5 --format json %s",
                 want[i].flags);
        run(a);
        assert_int_equal(R.rc, 0);
        snprintf(key, sizeof key, "\"engine\":\t\"%s\"", want[i].profile);
        if (!strstr(R.out, key)) {
            print_error("%s: no %s in the output\n", want[i].flags, key);
            fail();
        }
    }
    /* the version decides: vLLM 0.10 runs its scheduler on the GPU's time, 0.12 ahead of it */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 20 --request-rate 4 --format json "
        "--engine vllm@0.10.2");
    assert_int_equal(R.rc, 0);
    double tpot_010 = out_num("mean_tpot_ms");
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 20 --request-rate 4 --format json "
        "--engine vllm@0.12");
    assert_int_equal(R.rc, 0);
    assert_true(out_num("mean_tpot_ms") < tpot_010);
    /* --cudagraph-mode as vLLM spells it: piecewise slows a decode step, none is eager */
    run("run --model llama-3.1-8b --hw h100-sxm --format json --cudagraph-mode FULL_AND_PIECEWISE");
    assert_int_equal(R.rc, 0);
    double tpot_full = out_num("tpot_ms");
    run("run --model llama-3.1-8b --hw h100-sxm --format json --cudagraph-mode piecewise");
    assert_int_equal(R.rc, 0);
    assert_true(out_num("tpot_ms") > tpot_full);
    run("run --model llama-3.1-8b --hw h100-sxm --cudagraph-mode full --enforce-eager");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "contradict"));
    run("run --model llama-3.1-8b --hw h100-sxm --cudagraph-mode half");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "--cudagraph-mode: value 'half'"));
    /* refusals: exit 2, one line with the value and the known ranges */
    run("serve --model llama-3.1-8b --hw h100-sxm --engine vllm@0.3");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "'vllm@0.3'"));
    assert_non_null(strstr(R.err, "vllm-v0 >=0.5,<0.8"));
    assert_non_null(strstr(R.err, "vllm >=0.12"));
    run("serve --model llama-3.1-8b --hw h100-sxm --engine nosuch@1.0");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "sglang, trtllm"));
    /* a sweep over releases: each point its profile (preloaded once) */
    run("sweep serve --model llama-3.1-8b --hw h100-sxm --engine vllm@0.6,vllm@0.10,vllm@0.3 "
        "--num-prompts 10 --threads 2");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, ",vllm@0.6,"));
    assert_non_null(strstr(R.out, "no vllm profile covers release 0.3"));
    /* compare: the result file's backend and version pick the profile; a flag wins */
    const char *res = tu_write_tmp(
        "{\"backend\": \"vllm\", \"version\": \"0.6.3\", \"num_prompts\": 10, \"request_rate\": 4, "
        "\"completed\": 10, \"total_input_tokens\": 5120, \"total_output_tokens\": 640, "
        "\"mean_ttft_ms\": 40}");
    char a[512];
    snprintf(a, sizeof a, "compare --result %s --model llama-3.1-8b --hw h100-sxm --format json",
             res);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"engine\":\t\"vllm-v0\""));
    snprintf(a, sizeof a, "compare --result %s --model llama-3.1-8b --hw h100-sxm --engine sglang",
             res);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "(engine profile sglang)"));
    assert_non_null(strstr(R.err, "contradicts"));
}

/* The profiles' device and TP rules reach the output (JSON and text),
 * and the flags win (the numbers are worked out by hand in test_engprof.c). */
static void test_engine_device_rules(void **state)
{
    (void)state;
    const char *w = "serve --model llama-3.1-8b --num-prompts 10 --format json";
    char a[512];
    snprintf(a, sizeof a, "%s --hw a100-sxm-80gb", w); /* vLLM: an A100 gets 256 / 2048 */
    run(a);
    assert_int_equal(R.rc, 0);
    assert_near(out_num("max_num_seqs"), 256, 0);
    assert_near(out_num("max_num_batched_tokens"), 2048, 0);
    assert_non_null(strstr(R.out, "(any device)"));
    snprintf(a, sizeof a, "%s --hw h100-sxm --tp 8 --engine sglang", w);
    run(a);
    assert_near(out_num("cuda_graph_max_bs"), 512, 0);
    assert_near(out_num("memory_fraction"), 0.818, 1e-12);
    /* an explicit chunk size counts in SGLang's reserve; an explicit fraction wins */
    snprintf(a, sizeof a, "%s --hw a100-sxm-40gb --engine sglang --chunked-prefill-size 8192", w);
    run(a);
    assert_near(out_num("max_num_batched_tokens"), 8192, 0);
    assert_near(out_num("memory_fraction"), 0.683, 1e-12);
    snprintf(a, sizeof a, "%s --hw a100-sxm-40gb --engine sglang --mem-fraction-static 0.8", w);
    run(a);
    assert_near(out_num("memory_fraction"), 0.8, 1e-12);
    assert_null(strstr(R.out, "memory.reserve_mib"));
    snprintf(a, sizeof a, "%s --hw a100-sxm-80gb --max-num-seqs 64", w);
    run(a);
    assert_near(out_num("max_num_seqs"), 64, 0);
    /* the text report shows the settings in force */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --engine sglang");
    assert_non_null(strstr(R.out, "Memory fraction:                         0.835"));
    assert_non_null(strstr(R.out, "CUDA graph max batch:                    256"));
}

/* The front end from the command line: on by default with the profile's costs, its share of
 * TTFT and E2E in the JSON (and the flags that set it), gone with --frontend none; a burst of
 * short prompts queues in it (its mean share grows with the burst); bad values exit 2. */
static void test_frontend_flags(void **state)
{
    (void)state;
    const char *w = "serve --model llama-3.1-8b --hw h100-sxm --random-input-len 128 "
                    "--random-output-len 4 --format json";
    char a[512];
    snprintf(a, sizeof a, "%s --num-prompts 100", w);
    run(a);
    assert_int_equal(R.rc, 0);
    const double share100 = out_num("mean_frontend_ttft_ms");
    assert_true(share100 > 0.0 && share100 <= out_num("mean_ttft_ms"));
    assert_near(out_num("frontend_ttft_fraction"), share100 / out_num("mean_ttft_ms"), 1e-9);
    assert_near(out_num("api_server_count"), 1, 0);
    assert_near(out_num("stream_interval"), 1, 0);
    assert_non_null(strstr(R.out, "mean_frontend_e2el_ms"));
    /* vLLM's 3 ms + 128 x 1 us per request on one API server: 400 requests queue 4 times longer */
    snprintf(a, sizeof a, "%s --num-prompts 400", w);
    run(a);
    assert_true(out_num("mean_frontend_ttft_ms") > 3.0 * share100);
    /* two API servers take the burst in half the time */
    snprintf(a, sizeof a, "%s --num-prompts 400 --api-server-count 2", w);
    run(a);
    assert_near(out_num("api_server_count"), 2, 0);
    const double two = out_num("mean_frontend_ttft_ms");
    snprintf(a, sizeof a, "%s --num-prompts 400 --tokenizer-worker-num 2", w);
    run(a);
    assert_near(out_num("mean_frontend_ttft_ms"), two, 0);
    snprintf(a, sizeof a, "%s --num-prompts 100 --frontend none", w);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_null(strstr(R.out, "frontend"));
    assert_null(strstr(R.out, "stream_interval"));
    /* SGLang's interval: the first token comes with the 4th, the last */
    snprintf(a, sizeof a, "%s --num-prompts 1 --engine sglang --stream-interval 4", w);
    run(a);
    const double ttft4 = out_num("mean_ttft_ms");
    assert_near(out_num("stream_interval"), 4, 0);
    assert_near(out_num("mean_ttft_ms"), out_num("mean_e2el_ms"), 0);
    snprintf(a, sizeof a, "%s --num-prompts 1 --engine sglang", w);
    run(a);
    assert_true(out_num("mean_ttft_ms") < ttft4);
    /* the table shows the share */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 20 --random-output-len 4");
    assert_non_null(strstr(R.out, "Front end's share of mean TTFT (%):"));
    snprintf(a, sizeof a, "%s --num-prompts 10 --frontend fast", w);
    run(a);
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "--frontend"));
    snprintf(a, sizeof a, "%s --num-prompts 10 --stream-interval 0", w);
    run(a);
    assert_int_equal(R.rc, 2);
    snprintf(a, sizeof a, "%s --num-prompts 10 --frontend-request-us -1", w);
    run(a);
    assert_int_equal(R.rc, 2);
}

static void test_long_context_no_evict(void **state)
{
    (void)state;
    /* 300 prompts of 20,000 tokens and 2,000 out, all at once, Llama-3.1-8B on one H100: vLLM
     * admits prompts whose KV cannot grow and preempts thousands of times; TensorRT-LLM's
     * GUARANTEED_NO_EVICT admits only what can finish, never preempts, and ends far sooner */
    const char *w = "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 300 "
                    "--random-input-len 20000 --random-output-len 2000 --format json";
    char a[512];
    snprintf(a, sizeof a, "%s --engine vllm", w);
    run(a);
    assert_int_equal(R.rc, 0);
    double vllm_pre = out_num("preemptions"), vllm_dur = out_num("duration");
    snprintf(a, sizeof a, "%s --engine trtllm --enable-chunked-prefill", w);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_true(vllm_pre > 1000);
    assert_near(out_num("preemptions"), 0, 0);
    assert_true(out_num("duration") < 0.5 * vllm_dur);
}

static void test_kv_offload_and_sessions(void **state)
{
    (void)state;
    const char *base = "serve --model llama-3.1-8b --hw h100-sxm";
    /* four-turn sessions: a later turn finds its context cached; the tiers report per tier */
    run("serve --model llama-3.1-8b --hw h100-sxm --sessions 20 --turns-per-session 4 "
        "--think-time-s exp:2 --request-rate 2 --random-input-len 512 --random-output-len 64 "
        "--gpu-memory-utilization 0.25 --kv-offload cpu:200,disk:1000 --format json");
    assert_int_equal(R.rc, 0);
    assert_near(out_num("completed"), 80, 0);
    assert_true(out_num("prefix_cache_hit_rate") > 0.4);
    assert_true(out_num("kv_offload_cpu_write_bytes") > 0);
    assert_near(out_num("kv_offload_disk_hit_tokens"), 0, 0); /* 200 GB of DRAM holds it all */
    run("serve --model llama-3.1-8b --hw h100-sxm --sessions 20 --format json");
    assert_int_equal(R.rc, 0);
    assert_null(strstr(R.out, "kv_offload")); /* no tier: no key */
    bad_flag(base, "--kv-offload cpu:0", "--kv-offload");
    bad_flag(base, "--kv-offload gpu:10", "--kv-offload");
    bad_flag(base, "--kv-offload cpu:10,cpu:20", "--kv-offload");
    bad_flag(base, "--kv-offload cpu:10x", "--kv-offload");
    bad_flag(base, "--kv-offload cpu:10 --no-enable-prefix-caching", "prefix caching");
    bad_flag(base, "--kv-offload-write evict", "--kv-offload");
    bad_flag(base, "--kv-offload cpu:10 --kv-offload-write sometimes", "--kv-offload-write");
    bad_flag(base, "--sessions 0", "--sessions");
    bad_flag(base, "--think-time-s 3", "--sessions");
    bad_flag(base, "--turns-per-session 3", "--sessions");
    bad_flag(base, "--sessions 4 --think-time-s uniform:3:1", "--think-time-s");
    bad_flag(base, "--sessions 4 --num-prompts 10", "--num-prompts");
    /* sessions over disaggregated pools: every turn completes */
    run("serve --model llama-3.1-8b --hw h100-sxm --sessions 4 --turns-per-session 3 "
        "--think-time-s 1 --disagg 1:1 --uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    assert_near(out_num("completed"), 12, 0);
    bad_flag(base, "--session-affinity", "--session-affinity");
    bad_flag(base, "--replicas 2 --kv-overlap-score-weight 2", "--router kv-aware");
    bad_flag(base, "--router-refresh-ms 50", "--replicas N > 1");
    bad_flag(base, "--replicas 2 --router-refresh-ms -1", "--router-refresh-ms");
    bad_flag(base, "--sessions 4 --replicas 2 --router-refresh-ms 50", "--sessions");
    /* a scraped view every 50 ms herds 100 requests/s onto one replica per refresh */
    const char *herd = "serve --model llama-3.1-8b --hw h100-sxm --replicas 4 --num-prompts 400 "
                       "--request-rate 100 --random-input-len 1024 --random-output-len 64 "
                       "--format json";
    char line[512];
    run(herd);
    assert_int_equal(R.rc, 0);
    const double live = out_num("mean_ttft_ms");
    snprintf(line, sizeof line, "%s --router-refresh-ms 50", herd);
    run(line);
    assert_int_equal(R.rc, 0);
    assert_true(out_num("mean_ttft_ms") > 1.3 * live);
    /* autoscaling on the request rate over a step from 5/s to 30/s at 60 s (target 11/s, near-
     * regular gaps): 1 replica until the evaluation at 75 s sees 30/s, ceil(30 / 11) = 3; the
     * two added are held from 75 s to the end (~120 s), replica 0 throughout:
     * (120 + 2 x 45) s / 3600 = 0.0583 GPU-hours, at H100's $2.69: $0.157; their weights (16.06 GB
     * a GPU) load at the device's 6 GB/s NVMe in 2.68 s */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 2100 --rate-schedule 0:5,60:30 "
        "--burstiness 1000 --random-input-len 256 --random-output-len 32 --autoscale 1:4 "
        "--autoscale-metric rate --autoscale-target 11 --uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    assert_near(out_num("gpu_hours"), 210.0 / 3600.0, 0.01);
    assert_near(out_num("usd"), out_num("gpu_hours") * 2.69, 1e-9);
    assert_near(out_num("usd_per_million_output_tokens"),
                out_num("usd") / out_num("total_output_tokens") * 1e6, 1e-6);
    assert_near(out_num("replicas_peak"), 3, 0);
    assert_near(out_num("gpus"), 3, 0);
    assert_near(out_num("autoscale_start_s"), 2.677, 0.001);
    assert_non_null(strstr(R.out, "\"autoscale_timeline\""));
    bad_flag(base, "--autoscale 1:4", "--autoscale-target");
    bad_flag(base, "--autoscale-target 3", "--autoscale MIN:MAX");
    bad_flag(base, "--autoscale 1:4 --autoscale-target 3 --replicas 2", "--replicas");
    bad_flag(base, "--autoscale 4:1 --autoscale-target 3", "--autoscale");
    bad_flag(base, "--autoscale 1:4 --autoscale-target 3 --autoscale-metric cpu",
             "--autoscale-metric");
    bad_flag(base, "--rate-schedule 0:1 --request-rate 3", "--rate-schedule");
    bad_flag(base, "--rate-schedule 1:3", "--rate-schedule");
    /* a trace's sessions: --session-affinity takes them; --save-requests names session, turn */
    char cmd[1024];
    const char *tp = tu_write_tmp("arrival_s,input_tokens,output_tokens,session_id\n"
                                  "0,1000,20,a\n0.001,1100,20,a\n0.002,500,20,b\n");
    snprintf(cmd, sizeof cmd,
             "serve --model llama-3.1-8b --hw h100-sxm --trace %s --replicas 2 "
             "--session-affinity --uncertainty 0 --format json",
             tp);
    run(cmd);
    assert_int_equal(R.rc, 0);
    assert_near(out_num("completed"), 3, 0);
    /* replicas on two devices: each replica's device in replica_load, the blended price */
    run("serve --model llama-3.1-8b --hw h100-sxm --replica-hw h100-sxm:1,h200:2 --num-prompts 60 "
        "--request-rate 20 --uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    assert_near(out_num("gpus"), 3, 0);
    assert_near(out_num("usd_per_gpu_hour"), (2.69 + 2 * 3.59) / 3, 1e-9);
    assert_non_null(strstr(R.out, "\"hw\":\t\"NVIDIA H200"));
    bad_flag(base, "--replica-hw h100-sxm:1", "at least 2");
    bad_flag(base, "--replica-hw h100-sxm:2,h200:2 --replicas 3", "--replicas");
    bad_flag(base, "--replica-hw h100-sxm:2,h200", "--replica-hw");
    bad_flag(base, "--replica-hw h100-sxm:2 --disagg 1:1", "--replica-hw");
    /* mixed hardware: H100 prefill, H200 decode; no NVLink between them, the blended price */
    run("serve --model llama-3.1-8b --hw h200 --prefill-hw h100-sxm --disagg 1:1 --num-prompts 20 "
        "--request-rate 4 --uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"kv_link\":\t\"scaleout\""));
    assert_non_null(strstr(R.out, "\"prefill_hw\":\t\"NVIDIA H100"));
    assert_near(out_num("usd_per_gpu_hour"), (2.69 + 3.59) / 2, 1e-9);
    bad_flag(base, "--prefill-hw h200", "--disagg");
    run("serve --model llama-3.1-8b --hw h100-sxm --replicas 2 --router kv-aware "
        "--kv-overlap-score-weight 2 --dataset-name prefix_repetition --num-prompts 100 "
        "--request-rate 20 --format json");
    assert_int_equal(R.rc, 0);
    assert_true(out_num("prefix_cache_hit_rate") > 0.3);
}

static void test_prefix_repetition_and_model_len(void **state)
{
    (void)state;
    /* 256 shared + 256 own tokens: at most half of each prompt can come from the cache, and the
     * first requests of each prefix find nothing */
    run("serve --model llama-3.1-8b --hw h100-sxm --dataset-name prefix_repetition "
        "--num-prompts 200 --request-rate 20 --format json");
    assert_int_equal(R.rc, 0);
    assert_between(out_num("prefix_cache_hit_rate"), 0.4, 0.5);
    double on = out_num("mean_ttft_ms");
    run("serve --model llama-3.1-8b --hw h100-sxm --dataset-name prefix_repetition "
        "--num-prompts 200 --request-rate 20 --format json --no-enable-prefix-caching");
    assert_near(out_num("prefix_cache_hit_rate"), 0, 0);
    assert_true(out_num("mean_ttft_ms") > on);
    run("serve --model llama-3.1-8b --hw h100-sxm --random-input-len 100 --prefix-repetition-"
        "prefix-len 10");
    assert_int_equal(R.rc, 2);
    /* the timeline shows the prompt tokens each iteration took from the cache */
    char trace[256];
    tu_snprintf(trace, sizeof trace, "%s/infersim-prefix-%d.json", tu_tmpdir(), (int)getpid());
    runf("serve --model llama-3.1-8b --hw h100-sxm --trace %s/traces/mooncake-sample.jsonl "
         "--chrome-trace %s --format json",
         tu_root(), trace);
    assert_int_equal(R.rc, 0);
    assert_true(out_num("prefix_cache_hit_rate") > 0.5);
    char *tl = slurp(trace);
    assert_non_null(tl);
    assert_non_null(strstr(tl, "\"cached_prompt_tokens\":1536"));
    assert_non_null(strstr(tl, "\"cached_prompt_tokens\":0"));
    free(tl);
    remove(trace);
    /* --max-model-len: past the config's limit with a warning, below it as a hard limit */
    run("run --model llama-3.1-8b --hw h100-sxm --input-len 200000 --output-len 16");
    assert_int_equal(R.rc, 2);
    run("run --model llama-3.1-8b --hw h100-sxm --input-len 200000 --output-len 16 "
        "--max-model-len 262144 --format json");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.err, "warning: --max-model-len 262144 is above"));
    run("run --model llama-3.1-8b --hw h100-sxm --input-len 2000 --max-model-len 1024");
    assert_int_equal(R.rc, 2);
}

/* The engine profile picks the all-reduce and the norm fusion; the flags win. At TP 8 a decode
 * all-reduce of 4 tokens x 8192 x 2 B = 64 KiB: vLLM (auto) runs its one-shot kernel, Hugging
 * Face (nccl) NCCL's ring, TensorRT-LLM fuses the norms into its kernel. */
static void test_engine_picks_allreduce(void **state)
{
    (void)state;
    const char *w = "run --model llama-3.1-70b --hw h100-sxm --tp 8 --batch 4 --input-len 256 "
                    "--output-len 8 --format json";
    static const struct {
        const char *flags, *algo;
        bool fused;
    } cases[] = {
        {"--engine vllm", "oneshot", false},
        {"--engine hf", "ring", false},
        {"--engine hf --allreduce auto", "oneshot", false},
        {"--engine trtllm", "oneshot", true},
        {"--engine trtllm --no-fuse-allreduce-norm", "oneshot", false},
        {"--engine vllm --fuse-allreduce-norm", "oneshot", true},
        {"--engine trtllm --allreduce nccl", "ring", false}, /* NCCL's kernels do not fuse */
    };
    char a[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(a, sizeof a, "%s %s", w, cases[i].flags);
        run(a);
        assert_int_equal(R.rc, 0);
        cJSON *j = cJSON_Parse(R.out);
        assert_non_null(j);
        const cJSON *ops = cJSON_GetObjectItemCaseSensitive(j, "ops");
        const cJSON *ar = cJSON_GetArrayItem(ops, 16 + 6); /* decode attn_allreduce */
        const cJSON *algo = cJSON_GetObjectItemCaseSensitive(ar, "collective_algo");
        if (!algo || strcmp(algo->valuestring, cases[i].algo) != 0) {
            print_error("%s: collective_algo %s, expected %s\n", cases[i].flags,
                        algo ? algo->valuestring : "missing", cases[i].algo);
            fail();
        }
        const cJSON *norm = cJSON_GetArrayItem(ops, 16 + 7); /* decode mlp_norm */
        assert_int_equal(
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(norm, "fused_into_allreduce")),
            cases[i].fused);
        cJSON_Delete(j);
    }
    run("run --model llama-3.1-8b --hw h100-sxm --tp 2 --fuse-allreduce-norm "
        "--no-fuse-allreduce-norm");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "contradict"));
}

/* The vLLM profile with limits.max_model_len set to n, written to a temporary file. */
static const char *vllm_with_max_model_len(long n)
{
    char *text = slurp(tu_path("hw/engines", "vllm"));
    assert_non_null(text);
    const char *key = "\"max_model_len\": 0";
    char *at = strstr(text, key);
    assert_non_null(at);
    static char prof[16384];
    snprintf(prof, sizeof prof, "%.*s\"max_model_len\": %ld%s", (int)(at - text), text, n,
             at + strlen(key));
    free(text);
    return tu_write_tmp(prof);
}

/* Length limits from the profile: TensorRT-LLM 0.11's engine build takes prompts up to 1024
 * tokens (--max-input-len raises it); a profile's limits.max_model_len replaces the config's
 * context, --max-model-len replaces the profile's, with the warning above the config's. */
static void test_engine_length_limits(void **state)
{
    (void)state;
    static const struct {
        const char *args, *err; /* err: in stderr, and exit 2; NULL: exit 0 */
    } cases[] = {
        {"run --engine trtllm-0.11 --input-len 2000 --output-len 8", "max_input_len 1024"},
        {"run --engine trtllm-0.11 --input-len 2000 --output-len 8 --max-input-len 4096", NULL},
        {"serve --engine trtllm-0.11 --num-prompts 4 --random-input-len 2000 "
         "--random-output-len 8",
         "max_input_len 1024"},
        {"serve --engine trtllm --num-prompts 4 --random-input-len 2000 --random-output-len 8",
         NULL},
    };
    char a[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(a, sizeof a, "%s --model llama-3.1-8b --hw h100-sxm", cases[i].args);
        run(a);
        assert_int_equal(R.rc, cases[i].err ? 2 : 0);
        assert_true(!cases[i].err || strstr(R.err, cases[i].err));
    }
    /* profiles whose engine caps the context (llama-3.1-8b's config: 131072 tokens): the cap
     * is the limit, --max-model-len replaces it, and above the config's it warns naming the
     * profile's field */
    static const struct {
        long limit;
        const char *flags;
        int rc;
        const char *err; /* NULL: no warning */
    } lim[] = {
        {4096, "--input-len 4000 --output-len 200", 2, "4096"},
        {4096, "--input-len 4000 --output-len 200 --max-model-len 8192", 0, NULL},
        {262144, "--input-len 200000 --output-len 16", 0, "limits.max_model_len 262144 is above"},
    };
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        snprintf(a, sizeof a, "run --model llama-3.1-8b --hw h100-sxm --engine %s %s",
                 vllm_with_max_model_len(lim[i].limit), lim[i].flags);
        run(a);
        assert_int_equal(R.rc, lim[i].rc);
        if (lim[i].err)
            assert_non_null(strstr(R.err, lim[i].err));
        else
            assert_null(strstr(R.err, "warning"));
    }
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

/* How many files in `dir` have a name that starts with `prefix` and ends with `suffix`. */
static int files_named(const char *dir, const char *prefix, const char *suffix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        size_t len = strlen(e->d_name), pl = strlen(prefix), sl = strlen(suffix);
        n += len >= pl + sl && strncmp(e->d_name, prefix, pl) == 0 &&
             strcmp(e->d_name + len - sl, suffix) == 0;
    }
    closedir(d);
    return n;
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

/* A vLLM `bench serve` command line, with --hw added, runs as it is and writes vLLM's result JSON
 * (named as vLLM names it) into --result-dir. */
static void test_vllm_command_line(void **state)
{
    (void)state;
    char dir[256], a[2048];
    tu_snprintf(dir, sizeof dir, "%s/infersim-vllm-%d", tu_tmpdir(), (int)getpid());
    snprintf(
        a, sizeof a,
        "serve --backend vllm --base-url http://127.0.0.1:8000 --endpoint /v1/completions "
        "--model meta-llama/Llama-3.1-8B-Instruct --tokenizer meta-llama/Llama-3.1-8B-Instruct "
        "--dataset-name random --random-input-len 256 --random-output-len 32 --num-prompts 40 "
        "--request-rate 8 --ignore-eos --percentile-metrics ttft,tpot,itl,e2el "
        "--metric-percentiles 50,90,99.9 --save-result --result-dir %s "
        "--result-filename out.json --hw h100-sxm",
        dir);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "P99.9 E2EL (ms):")); /* the printed table follows the flags */
    assert_null(strstr(R.out, "P99 TTFT"));
    char path[300];
    snprintf(path, sizeof path, "%s/out.json", dir);
    cJSON *j;
    sim_err err = {{0}};
    assert_int_equal(sim_jsonf_load(path, &j, &err), SIM_OK);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "backend")->valuestring, "vllm");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "model_id")->valuestring,
                        "meta-llama/Llama-3.1-8B-Instruct");
    assert_int_equal((int)num(j, "num_prompts"), 40);
    assert_int_equal((int)num(j, "completed"), 40);
    assert_true(num(j, "request_rate") == 8.0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "max_concurrency")));
    assert_true(num(j, "p50_ttft_ms") <= num(j, "p90_ttft_ms"));
    assert_true(num(j, "p90_ttft_ms") <= num(j, "p99.9_ttft_ms"));
    assert_true(num(j, "p99.9_e2el_ms") > 0.0);
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "p99_ttft_ms")); /* only those asked for */
    assert_true(num(j, "mean_tpot_ms") > 0.0 && num(j, "std_itl_ms") >= 0.0);
    cJSON_Delete(j);
    /* compare reads it back: the same flags predict the same numbers */
    snprintf(a, sizeof a,
             "compare --result %s --model meta-llama/Llama-3.1-8B-Instruct --hw h100-sxm "
             "--random-input-len 256 --random-output-len 32 --num-prompts 40 --request-rate 8",
             path);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "median |error| 0.0%"));
    remove(path);
    /* without --result-filename: vLLM's name, {backend}-{rate}qps-{model}-{date}.json */
    snprintf(a, sizeof a,
             "serve --model meta-llama/Llama-3.1-8B --hw h100-sxm --num-prompts 5 "
             "--random-input-len 64 --random-output-len 4 --save-result --result-dir %s",
             dir);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_int_equal(files_named(dir, "openai-infqps-Llama-3.1-8B-2", ".json"), 1);
    tu_rm_r(dir);
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --dataset-name sonnet",
               "--dataset-name: value 'sonnet', expected random, prefix_repetition or one of");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --result-dir x",
               "--result-dir: needs --save-result");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --metric-percentiles 50,101",
               "--metric-percentiles");
    expect_bad("run --model meta-llama/No-Such-Model --hw h100-sxm",
               "meta-llama/No-Such-Model: no such file, and no models/NAME.json lists this Hugging "
               "Face id");
    /* a checkpoint folder stands for its config.json, as vLLM's --model takes it */
    char ckpt[256], config[300];
    tu_snprintf(ckpt, sizeof ckpt, "%s/infersim-ckpt-%d", tu_tmpdir(), (int)getpid());
    assert_int_equal(mkdir(ckpt, 0700), 0);
    tu_snprintf(config, sizeof config, "%s/config.json", ckpt);
    char *text = slurp(tu_path("models", "llama-3.2-1b"));
    assert_non_null(text);
    FILE *f = fopen(config, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    free(text);
    runf("run --model %s --hw h100-sxm --format json", ckpt);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"model\":\t\"infersim-ckpt-")); /* named by its folder */
    tu_rm_r(ckpt);
    /* a name found nowhere says where infersim looked and which names it knows */
    expect_bad("run --model llama-3.1-8b --hw h100", "no hw/h100.json in the working directory");
    assert_non_null(strstr(R.err, "h100-sxm, h20, h200"));
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

/* Cost: the device file's price, --usd-per-gpu-hour over it, and the cheapest sweep point. */
static void test_cost(void **state)
{
    (void)state;
    double per_tok[2], per_hour[2];
    const char *price[2] = {"2.5", "5"};
    for (int i = 0; i < 2; i++) {
        char a[512];
        snprintf(a, sizeof a,
                 "run --model llama-3.1-8b --hw h100-sxm --tp 2 --batch 4 --input-len 512 "
                 "--output-len 64 --usd-per-gpu-hour %s --format json",
                 price[i]);
        run(a);
        assert_int_equal(R.rc, 0);
        cJSON *j = cJSON_Parse(R.out);
        assert_non_null(j);
        assert_int_equal((int)num(j, "gpus"), 2);
        per_hour[i] = num(j, "usd_per_hour");
        per_tok[i] = num(j, "usd_per_million_output_tokens");
        /* by hand: 2 GPUs x $2.5 = $5/h over output_throughput x 3600 tokens per hour */
        if (i == 0)
            assert_near(per_tok[0], 5.0 / (num(j, "output_throughput") * 3600.0) * 1e6, 1e-9);
        assert_true(num(j, "usd_per_million_total_tokens") < per_tok[i]);
        cJSON_Delete(j);
    }
    assert_near(per_hour[0], 5.0, 1e-12);
    assert_near(per_hour[1], 2.0 * per_hour[0], 1e-12);
    assert_near(per_tok[1], 2.0 * per_tok[0], 1e-12); /* doubling the price doubles cost/token */
    /* serve: the device file's own price */
    run("serve --model llama-3.2-1b --hw h100-sxm --num-prompts 20 --random-input-len 128 "
        "--random-output-len 16 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(j, "usd_per_gpu_hour"), 2.69, 1e-12);
    assert_near(num(j, "usd_per_million_output_tokens"),
                2.69 / (num(j, "output_throughput") * 3600.0) * 1e6, 1e-9);
    cJSON_Delete(j);
    /* a device file without a price: the keys are null and the table says unknown */
    char hw[256], a[768];
    tu_snprintf(hw, sizeof hw, "%s/infersim-noprice-%d.json", tu_tmpdir(), (int)getpid());
    char *src = slurp(tu_path("tests/data", "h100-fixture"));
    assert_non_null(src);
    assert_null(strstr(src, "usd_per_gpu_hour")); /* the fixture has no price */
    FILE *f = fopen(hw, "w");
    fputs(src, f);
    fclose(f);
    free(src);
    snprintf(a, sizeof a, "run --model llama-3.2-1b --hw %s --format json", hw);
    run(a);
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "usd_per_hour")));
    /* nor a power: the energy keys are null too */
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "avg_power_w")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "joules_per_output_token")));
    cJSON_Delete(j);
    snprintf(a, sizeof a, "run --model llama-3.2-1b --hw %s", hw);
    run(a);
    assert_non_null(strstr(R.out, "unknown"));
    /* sweep --objective cost: rows carry the price; the cheapest point under the SLO is named */
    char out[256];
    tu_snprintf(out, sizeof out, "%s/infersim-cost-%d.jsonl", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a,
             "sweep run --model llama-3.1-8b --hw h100-sxm,h200,a100-sxm-80gb --tp 1,2 "
             "--batch 16 --input-len 512 --output-len 64 --slo tpot:20 --objective cost --out %s",
             out);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "cheapest under the SLO: point"));
    f = fopen(out, "r");
    assert_non_null(f);
    char line[4096];
    double cheapest = INFINITY;
    long cheapest_point = -1;
    while (fgets(line, sizeof line, f)) {
        cJSON *r = cJSON_Parse(line);
        assert_non_null(r);
        double c = num(r, "usd_per_million_output_tokens");
        assert_true(c > 0.0);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "meets_slo")) && c < cheapest) {
            cheapest = c;
            cheapest_point = (long)num(r, "point");
        }
        cJSON_Delete(r);
    }
    fclose(f);
    char want[64];
    snprintf(want, sizeof want, "cheapest under the SLO: point %ld ", cheapest_point);
    assert_non_null(strstr(R.out, want));
    /* a point without a price cannot be ranked by cost: an error row naming the flag */
    snprintf(a, sizeof a, "sweep run --model llama-3.2-1b --hw %s,h100-sxm --objective cost --out %s",
             hw, out);
    run(a);
    assert_int_equal(R.rc, 0);
    char *rows = slurp(out);
    assert_non_null(strstr(rows, "give --usd-per-gpu-hour"));
    free(rows);
    remove(out);
    remove(hw);
    expect_bad("sweep run --model llama-3.2-1b --hw h100-sxm --objective speed", "--objective");
    /* sweep --objective energy: the least J per output token under the SLO is named, and a
     * device file without power is an error row naming the field */
    snprintf(a, sizeof a,
             "sweep run --model llama-3.1-8b --hw h100-sxm,h200,a100-sxm-80gb --batch 1,16 "
             "--input-len 512 --output-len 64 --slo tpot:20 --objective energy --out %s",
             out);
    run(a);
    assert_int_equal(R.rc, 0);
    f = fopen(out, "r");
    assert_non_null(f);
    double least = INFINITY;
    long least_point = -1;
    while (fgets(line, sizeof line, f)) {
        cJSON *r = cJSON_Parse(line);
        assert_non_null(r);
        double e = num(r, "joules_per_output_token");
        assert_true(e > 0.0);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "meets_slo")) && e < least) {
            least = e;
            least_point = (long)num(r, "point");
        }
        cJSON_Delete(r);
    }
    fclose(f);
    snprintf(want, sizeof want, "least energy under the SLO: point %ld ", least_point);
    assert_non_null(strstr(R.out, want));
    snprintf(a, sizeof a,
             "sweep run --model llama-3.2-1b --hw tpu-v5e,h100-sxm --objective energy --out %s",
             out);
    run(a);
    assert_int_equal(R.rc, 0);
    rows = slurp(out);
    assert_non_null(strstr(rows, "power.tdp_w"));
    free(rows);
    remove(out);
    expect_bad("run --model llama-3.2-1b --hw h100-sxm --usd-per-gpu-hour 0", "--usd-per-gpu-hour");
    expect_bad("run --model llama-3.2-1b --hw h100-sxm --usd-per-gpu-hour -1", "--usd-per-gpu-hour");
}

/* Per-device prices (--usd-per-gpu-hour DEVICE=USD,...): each device its own price in one
 * sweep (not crossed with --hw), the device file's where the list does not name it, a bare
 * number every device's; a malformed list or an unknown device is exit 2 naming the value. */
static void test_per_device_prices(void **state)
{
    (void)state;
    char out[256], a[768];
    tu_snprintf(out, sizeof out, "%s/infersim-prices-%d.jsonl", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a,
             "sweep run --model llama-3.2-1b --hw h100-sxm,b300,h200 --tp 1,2 --batch 4 "
             "--input-len 128 --output-len 16 --usd-per-gpu-hour h100-sxm=2.49,b300=7.5 --out %s",
             out);
    run(a);
    assert_int_equal(R.rc, 0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char line[4096];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        cJSON *r = cJSON_Parse(line);
        assert_non_null(r);
        const char *hw = cJSON_GetObjectItemCaseSensitive(r, "hw")->valuestring;
        /* by hand: GPUs x the device's price: 2.49, 7.5 given, the H200 file's 3.59 */
        double want = strcmp(hw, "h100-sxm") == 0 ? 2.49 : strcmp(hw, "b300") == 0 ? 7.5 : 3.59;
        assert_near(num(r, "usd_per_hour"), num(r, "gpus") * want, 1e-9);
        cJSON_Delete(r);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 6); /* 3 devices x 2 TP sizes: the list is one value */
    remove(out);
    run("run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour 2.5 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_near(num(j, "usd_per_gpu_hour"), 2.5, 1e-12);
    cJSON_Delete(j);
    run("run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour h200=1.25,l4=0.3 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_near(num(j, "usd_per_gpu_hour"), 1.25, 1e-12);
    cJSON_Delete(j);
    expect_bad("run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour h2oo=1", "'h2oo'");
    expect_bad("run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour h200=x", "'h200=x'");
    expect_bad("sweep run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour 1,0", "value '0'");
    expect_bad("sweep run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour h200=1,b300",
               "item 'b300'");
}

/* A sweep page follows --objective: its summary's best point and the charts' highlighted one
 * are the point the command line names, for every objective; the cost view is on the page. */
static void test_sweep_page_objective(void **state)
{
    (void)state;
    const char *objs[][2] = {{"throughput", "best under the SLO: point "},
                             {"cost", "cheapest under the SLO: point "},
                             {"energy", "least energy under the SLO: point "}};
    char page[256], rows[256], a[1024];
    tu_snprintf(page, sizeof page, "%s/infersim-objpage-%d.html", tu_tmpdir(), (int)getpid());
    tu_snprintf(rows, sizeof rows, "%s/infersim-objpage-%d.csv", tu_tmpdir(), (int)getpid());
    long points[3];
    for (int k = 0; k < 3; k++) {
        snprintf(a, sizeof a,
                 "sweep run --model llama-3.1-8b --hw h100-sxm,h200,a100-sxm-80gb,l40s --batch "
                 "1,16,64 --input-len 512 --output-len 64 --slo tpot:30 --objective %s --html %s "
                 "--out %s",
                 objs[k][0], page, rows);
        run(a);
        assert_int_equal(R.rc, 0);
        const char *p = strstr(R.out, objs[k][1]);
        assert_non_null(p);
        points[k] = strtol(p + strlen(objs[k][1]), NULL, 10);
        char *html = slurp(page);
        assert_non_null(html);
        char want[128];
        snprintf(want, sizeof want, "Best by %s under the SLO</td><td class=\"v\">point %ld (",
                 objs[k][0], points[k]);
        assert_non_null(strstr(html, want));
        if (k == 0)
            snprintf(want, sizeof want, "best: point %ld,", points[k]);
        else
            snprintf(want, sizeof want, "best by %s: point %ld,", objs[k][0], points[k]);
        assert_non_null(strstr(html, want)); /* the charts' label */
        assert_non_null(strstr(html, "Cost per million output tokens against TPOT"));
        free(html);
    }
    /* the objectives pick different points here, so the page cannot be right by accident */
    assert_true(points[0] != points[1] || points[1] != points[2]);
    remove(page);
    remove(rows);
}

/* --dataset-name with a public dataset: `workload` shows its fit and sources; serve draws its
 * lengths (ShareGPT's published means 161.31 and 337.99 within 8 % over 800 requests); the
 * random dataset's length flags and unknown names are refused. */
static void test_public_datasets(void **state)
{
    (void)state;
    run("workload --dataset-name sharegpt");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "mean and sigma (estimate)"));
    assert_non_null(strstr(R.out, "Kwon et al."));
    run("workload --dataset-name code --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(cJSON_GetObjectItemCaseSensitive(j, "input"), "fitted_median"), 1500, 1e-9);
    cJSON_Delete(j);
    run("serve --model llama-3.2-1b --hw h100-sxm --dataset-name sharegpt --num-prompts 800 "
        "--request-rate 20 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_near(num(j, "total_input_tokens") / 800.0, 161.31, 0.08 * 161.31);
    assert_near(num(j, "total_output_tokens") / 800.0, 337.99, 0.08 * 337.99);
    cJSON_Delete(j);
    /* a production trace: its first requests, their lengths as recorded (the conversation
     * trace's first 10 rows: 4364 prompt and 716 generated tokens), their gaps scaled to the
     * rate (the last of 10 sent at 9 / 2 = 4.5 s, so the run lasts longer than that) */
    run("serve --model llama-3.2-1b --hw h100-sxm --dataset-name azure-conv-2023 --num-prompts 10 "
        "--request-rate 2 --uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_int_equal((int)num(j, "total_input_tokens"), 4364);
    assert_int_equal((int)num(j, "total_output_tokens"), 716);
    assert_true(num(j, "duration") > 4.5 && num(j, "duration") < 6.0);
    cJSON_Delete(j);
    run("workload --dataset-name azure-conv-2023 --num-prompts 10 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(j, "trace");
    assert_int_equal((int)num(tr, "requests"), 10);
    assert_near(num(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "input"),
                                                     "published"),
                    "mean"),
                436.4, 1e-9);
    /* 18:15:46.6805900 to 18:15:55.1455750: 9 gaps over 8.464985 s */
    assert_near(num(tr, "request_rate"), 9.0 / 8.464985, 1e-6);
    cJSON_Delete(j);
    /* the trace's arrival shape counts: the code trace's first 1000 requests (45 breaks of 10 s or
     * more hold most of its hour, gaps' CV 13) sustain under half the rate of the same lengths
     * sent as a Poisson stream (trtllm-bench's lengths file, one line per request) */
    char lens[256];
    tu_snprintf(lens, sizeof lens, "%s/code-lengths.jsonl", tu_tmpdir());
    char tpath[1024];
    snprintf(tpath, sizeof tpath, "%s/traces/azure-llm-2023-code.csv", tu_root());
    FILE *in = fopen(tpath, "r"), *lf = fopen(lens, "w");
    assert_true(in && lf);
    char line[256];
    assert_non_null(fgets(line, sizeof line, in)); /* the header */
    for (int i = 0; i < 1000; i++) {
        long a, b;
        assert_non_null(fgets(line, sizeof line, in));
        assert_int_equal(sscanf(line, "%*[^,],%ld,%ld", &a, &b), 2);
        fprintf(lf, "{\"input_len\": %ld, \"output_tokens\": %ld}\n", a, b);
    }
    fclose(in);
    fclose(lf);
    double rate[2];
    for (int k = 0; k < 2; k++) {
        char cmd[768];
        snprintf(cmd, sizeof cmd,
                 "capacity --model llama-3.1-8b --hw h100-sxm --num-prompts 1000 %s%s "
                 "--slo ttft:1000,tpot:50 --uncertainty 0 --format json",
                 k ? "--lengths-file " : "--dataset-name azure-code-2023", k ? lens : "");
        run(cmd);
        assert_int_equal(R.rc, 0);
        j = cJSON_Parse(R.out);
        rate[k] = num(j, "max_request_rate");
        cJSON_Delete(j);
    }
    assert_true(rate[0] > 0.0 && rate[0] < 0.5 * rate[1]);
    remove(lens);
    expect_bad("serve --model llama-3.2-1b --hw h100-sxm --dataset-name azure-conv-2023 "
               "--burstiness 0.5",
               "--burstiness: does not apply to --dataset-name azure-conv-2023");
    expect_bad("serve --model llama-3.2-1b --hw h100-sxm --dataset-name mooncake-conversation "
               "--num-prompts 20000",
               "has 12031 requests");
    expect_bad("workload --dataset-name alpaca", "'alpaca'");
    expect_bad("workload --dataset-name random", "vLLM's synthetic dataset");
    expect_bad("serve --model llama-3.2-1b --hw h100-sxm --dataset-name lmsys-chat "
               "--random-input-len 100",
               "--random-input-len: does not apply to --dataset-name lmsys-chat");
    expect_bad("capacity --model llama-3.2-1b --hw h100-sxm --dataset-name nosuch --slo tpot:50",
               "'nosuch'");
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
        cmocka_unit_test(test_serve),
        cmocka_unit_test(test_serve_save_requests),
        cmocka_unit_test(test_serve_bad_input),
        cmocka_unit_test(test_spec_flags),
        cmocka_unit_test(test_chrome_traces),
        cmocka_unit_test(test_html_reports),
        cmocka_unit_test(test_moe_models),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_out_dash_is_stdout),
        cmocka_unit_test(test_sweep_slo_rows),
        cmocka_unit_test(test_sweep_grid_file),
        cmocka_unit_test(test_sweep_flag_given_twice),
        cmocka_unit_test(test_sweep_grid_file_checks),
        cmocka_unit_test(test_validation_commands),
        cmocka_unit_test(test_strict_inputs),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_deployment_flags),
        cmocka_unit_test(test_engine_profiles),
        cmocka_unit_test(test_engine_device_rules),
        cmocka_unit_test(test_engine_versions),
        cmocka_unit_test(test_validate_row_versions),
        cmocka_unit_test(test_validate_row_max_concurrency),
        cmocka_unit_test(test_validate_timed_and_moe_lines),
        cmocka_unit_test(test_frontend_flags),
        cmocka_unit_test(test_long_context_no_evict),
        cmocka_unit_test(test_prefix_repetition_and_model_len),
        cmocka_unit_test(test_kv_offload_and_sessions),
        cmocka_unit_test(test_engine_picks_allreduce),
        cmocka_unit_test(test_engine_length_limits),
        cmocka_unit_test(test_compare_reads_the_result),
        cmocka_unit_test(test_help_everywhere),
        cmocka_unit_test(test_every_shipped_model_runs),
        cmocka_unit_test(test_validation_spec_rows),
        cmocka_unit_test(test_vllm_command_line),
        cmocka_unit_test(test_datasheet_device),
        cmocka_unit_test(test_data_lookup_and_calibrate),
        cmocka_unit_test(test_data_from_out_of_tree_build),
        cmocka_unit_test(test_device_formats),
        cmocka_unit_test(test_hw_provenance),
        cmocka_unit_test(test_sweep_marks_default_only),
        cmocka_unit_test(test_calibrate_from_microbench_rows),
        cmocka_unit_test(test_cost),
        cmocka_unit_test(test_per_device_prices),
        cmocka_unit_test(test_sweep_page_objective),
        cmocka_unit_test(test_public_datasets),
        cmocka_unit_test(test_energy_outputs),
        cmocka_unit_test(test_families_2026),
        cmocka_unit_test(test_names_forgive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
