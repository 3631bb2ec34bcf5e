/* test_dropin.c - the engines' own command lines (cli_dropin.h): their spelling rules, the
 * words a --server / --bench line splits into, the no-effect notice and the refusals, and, per
 * flag family, that each timing flag moves the prediction it should move. */
#include "cliutil.h"

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "cli_dropin.h"
#include "cli_opt.h"

static struct {
    int rc;
    char out[1 << 16], err[1 << 14];
} R;

static int run(const char *args)
{
    return R.rc = tu_cli(args, R.out, sizeof R.out, R.err, sizeof R.err);
}

/* The translated infersim line of an engine command line (argv words split at blanks). */
static sim_status translate(const char *line, cli_dropin_line *t, sim_err *err)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s", line);
    char *argv[TU_CLI_MAX_ARGS + 1];
    int argc = tu_cli_split(buf, argv, TU_CLI_MAX_ARGS);
    return cli_dropin_translate(argc, argv, t, err);
}

/* Whether the translated line holds "FLAG VALUE" (VALUE NULL: the flag alone). */
static bool holds(const cli_dropin_line *t, const char *flag, const char *value)
{
    for (int i = 2; i < t->argc; i++)
        if (strcmp(t->argv[i], flag) == 0)
            return !value || (i + 1 < t->argc && strcmp(t->argv[i + 1], value) == 0);
    return false;
}

static void test_spelling(void **state)
{
    (void)state;
    cli_dropin_line t;
    sim_err err = {{0}};
    /* argparse's unique prefix (SGLang's docs write --random-input, --num-prompt) */
    assert_int_equal(translate("python3 -m sglang.bench_serving --model llama-3.1-8b "
                               "--dataset-name random --random-input 1024 --num-prompt 10",
                               &t, &err),
                     SIM_OK);
    assert_true(holds(&t, "--random-input-len", "1024"));
    assert_true(holds(&t, "--num-prompts", "10"));
    assert_true(holds(&t, "--engine", "sglang"));
    /* SGLang's random lengths: uniform in [floor(L R), L], its default R 0.0 */
    assert_true(holds(&t, "--random-range-floor", "0"));
    assert_true(holds(&t, "--random-output-len", "1024")); /* SGLang's default, not vLLM's 128 */
    cli_dropin_line_free(&t);
    /* a prefix of several flags is argparse's "ambiguous option" */
    assert_int_equal(translate("python3 -m sglang.bench_serving --random 5", &t, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "ambiguous option: --random could match"));
    /* vLLM's FlexibleArgumentParser takes '_' for '-' */
    assert_int_equal(translate("vllm bench throughput --model llama-3.1-8b --max_num_seqs 8 "
                               "--tensor_parallel_size 2",
                               &t, &err),
                     SIM_OK);
    assert_true(holds(&t, "--max-num-seqs", "8"));
    assert_true(holds(&t, "--tp", "2"));
    cli_dropin_line_free(&t);
    /* trtllm-bench's click options with underscores; its --dataset is the lengths file */
    assert_int_equal(translate("trtllm-bench --model llama-3.1-8b throughput --dataset d.txt "
                               "--max_batch_size 64 --kv_cache_free_gpu_mem_fraction 0.8",
                               &t, &err),
                     SIM_OK);
    assert_true(holds(&t, "--lengths-file", "d.txt"));
    assert_true(holds(&t, "--max-batch-size", "64"));
    assert_true(holds(&t, "--kv-cache-free-gpu-mem-fraction", "0.8"));
    assert_true(holds(&t, "--engine", "trtllm"));
    assert_true(holds(&t, "--enable-chunked-prefill", NULL)); /* trtllm-bench's default */
    cli_dropin_line_free(&t);
    /* a near miss: one line naming the flag meant */
    assert_int_equal(translate("vllm bench serve --num-promts 5", &t, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "unknown flag '--num-promts'; did you mean --num-prompts?"));
    /* --backend picks the engine profile; one without a profile is refused by name */
    assert_int_equal(translate("vllm bench serve --backend sglang --model m", &t, &err), SIM_OK);
    assert_true(holds(&t, "--engine", "sglang"));
    cli_dropin_line_free(&t);
    assert_int_equal(translate("vllm bench serve --backend tgi --model m", &t, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--backend 'tgi'"));
    /* vLLM's expert parallelism: EP = TP x DP, attention data-parallel over the DP ranks */
    assert_int_equal(
        translate("vllm serve deepseek-v3 -tp 1 -dp 8 --enable-expert-parallel", &t, &err), SIM_OK);
    assert_true(holds(&t, "--model", "deepseek-v3"));
    assert_true(holds(&t, "--ep", "8") && holds(&t, "--dp", "8") &&
                holds(&t, "--dp-attention", NULL));
    cli_dropin_line_free(&t);
    /* without EP, vLLM's DP ranks are engine copies */
    assert_int_equal(translate("vllm serve llama-3.1-8b --data-parallel-size 4", &t, &err), SIM_OK);
    assert_true(holds(&t, "--replicas", "4"));
    cli_dropin_line_free(&t);
    /* SGLang's generated-shared-prefix: groups x prompts per group, vLLM's prefix_repetition */
    assert_int_equal(translate("python3 -m sglang.bench_serving --model m --dataset-name "
                               "generated-shared-prefix --gsp-num-groups 4 "
                               "--gsp-prompts-per-group 3",
                               &t, &err),
                     SIM_OK);
    assert_true(holds(&t, "--dataset-name", "prefix_repetition"));
    assert_true(holds(&t, "--num-prompts", "12"));
    assert_true(holds(&t, "--prefix-repetition-num-prefixes", "4"));
    assert_true(holds(&t, "--prefix-repetition-prefix-len", "2048"));
    cli_dropin_line_free(&t);
}

/* Every row's target is a flag of the option table, every row says what it is, and no tool
 * names a flag twice (the second would never be reached). */
static void test_tables(void **state)
{
    (void)state;
    for (size_t i = 0; i < cli_dropin_tool_count; i++) {
        const cli_dropin_tool *tool = &cli_dropin_tools[i];
        for (int k = 0; k < CLI_DROPIN_MAX_TABLES && tool->tables[k]; k++)
            for (const cli_dropin_flag *r = tool->tables[k]; r->name; r++) {
                if (!r->note || !r->note[0] || (r->act == CLI_DROPIN_CALL && !r->call)) {
                    print_error("%s: %s has no note or handler\n", tool->words, r->name);
                    fail();
                }
                if (r->act == CLI_DROPIN_MAP || r->act == CLI_DROPIN_CALL) {
                    /* "--a, --b" or "--allreduce nccl": each flag named */
                    char buf[256];
                    snprintf(buf, sizeof buf, "%s", r->to ? r->to : "");
                    for (char *save = NULL, *w = strtok_r(buf, ", ", &save); w;
                         w = strtok_r(NULL, ", ", &save))
                        if (w[0] == '-' && w[1] == '-' &&
                            !cli_opt_find(w, CLI_OPT_CMD_SERVE | CLI_OPT_CMD_RUN)) {
                            print_error("%s: %s maps onto %s, not an option-table flag\n",
                                        tool->words, r->name, w);
                            fail();
                        }
                }
                for (int k2 = 0; k2 <= k; k2++)
                    for (const cli_dropin_flag *q = tool->tables[k2]; q->name && q != r; q++)
                        if (strcmp(q->name, r->name) == 0) {
                            print_error("%s: %s twice\n", tool->words, r->name);
                            fail();
                        }
            }
    }
}

/* Every row of every tool once: a no-effect row is listed, a refused row refused by name, a
 * mapped row lands on its target; every tool answers --help with its rows. */
static void test_every_row(void **state)
{
    (void)state;
    for (size_t i = 0; i < cli_dropin_tool_count; i++) {
        const cli_dropin_tool *tool = &cli_dropin_tools[i];
        char line[512];
        snprintf(line, sizeof line, "%s%s%s --help", tool->words, tool->sub ? " " : "",
                 tool->sub ? tool->sub : "");
        assert_int_equal(run(line), 0);
        assert_non_null(strstr(R.out, "usage: infersim "));
        for (int k = 0; k < CLI_DROPIN_MAX_TABLES && tool->tables[k]; k++)
            for (const cli_dropin_flag *r = tool->tables[k]; r->name; r++) {
                /* a value every numeric row takes; a dataset for trtllm-bench */
                snprintf(line, sizeof line, "%s%s%s%s %s%s", tool->words, tool->sub ? " " : "",
                         tool->sub ? tool->sub : "", tool->positional ? " m" : " --model m",
                         r->name, r->arity == CLI_DROPIN_FLAG ? "" : " 1");
                if (strcmp(tool->words, "trtllm-bench") == 0)
                    snprintf(line, sizeof line, "trtllm-bench --model m %s %s%s --dataset d",
                             tool->sub, r->name, r->arity == CLI_DROPIN_FLAG ? "" : " 1");
                cli_dropin_line t;
                sim_err err = {{0}};
                sim_status st = translate(line, &t, &err);
                if (r->act == CLI_DROPIN_REFUSE) {
                    if (st != SIM_EINPUT || !strstr(err.msg, "changes the timing")) {
                        print_error("'%s' was not refused (%s)\n", line, err.msg);
                        fail();
                    }
                    continue;
                }
                if (r->act == CLI_DROPIN_NONE) {
                    if (st != SIM_OK || !strstr(t.no_effect, r->name)) {
                        print_error("'%s' was not listed as no effect (%s)\n", line, err.msg);
                        fail();
                    }
                } else if (r->act == CLI_DROPIN_MAP && st == SIM_OK && !holds(&t, r->to, NULL) &&
                           !strstr(t.no_effect, r->name)) {
                    print_error("'%s' did not reach %s\n", line, r->to);
                    fail();
                }
                if (st == SIM_OK)
                    cli_dropin_line_free(&t);
            }
    }
}

static void test_split(void **state)
{
    (void)state;
    char **w;
    int n;
    sim_err err = {{0}};
    /* quotes, an escaped blank, a line continuation, bash's $'...' */
    assert_int_equal(cli_dropin_split("vllm serve  m \\\n  --x 'a b' \"c \\\"d\\\"\" e\\ f "
                                      "$'{\\n}'",
                                      "--server", &w, &n, &err),
                     SIM_OK);
    assert_int_equal(n, 8);
    assert_string_equal(w[0], "vllm");
    assert_string_equal(w[2], "m");
    assert_string_equal(w[3], "--x");
    assert_string_equal(w[4], "a b");
    assert_string_equal(w[5], "c \"d\"");
    assert_string_equal(w[6], "e f");
    assert_string_equal(w[7], "{\n}");
    free(w[0]);
    free(w);
    assert_int_equal(cli_dropin_split("vllm serve 'm", "--server", &w, &n, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--server: a ' is not closed"));
    assert_int_equal(cli_dropin_split("  ", "--bench", &w, &n, &err), SIM_EINPUT);
}

#define BASE "vllm bench serve --model llama-3.1-8b --hw h100-sxm --uncertainty 0 --format json "

static void test_no_effect(void **state)
{
    (void)state;
    /* the flags that do not change timing: listed once, the prediction byte for byte the same */
    assert_int_equal(run(BASE "--num-prompts 40"), 0);
    static char plain[sizeof R.out];
    memcpy(plain, R.out, sizeof plain);
    assert_int_equal(run(BASE "--num-prompts 40 --temperature 0.5 --top-p 0.9 --save-detailed "
                              "--endpoint /v1/completions --plot-timeline --tokenizer-mode hf"),
                     0);
    assert_string_equal(R.out, plain);
    assert_non_null(strstr(R.err, "infersim: no effect on the prediction: --temperature, "
                                  "--top-p, --save-detailed, --endpoint, --plot-timeline, "
                                  "--tokenizer-mode\n"));
    assert_null(strstr(strstr(R.err, "--temperature") + 1, "--temperature"));
    /* a timing flag infersim does not model: exit 2, one line naming it */
    assert_int_equal(run(BASE "--ramp-up-strategy linear --ramp-up-start-rps 1"), 2);
    assert_non_null(strstr(R.err, "--ramp-up-strategy changes the timing and is not modelled"));
    assert_null(strchr(strchr(R.err, '\n') + 1, '\n'));
    assert_int_equal(run("python3 -m sglang.bench_serving --model llama-3.1-8b --hw h100-sxm "
                         "--disable-stream"),
                     2);
    assert_non_null(strstr(R.err, "--disable-stream changes the timing and is not modelled"));
    assert_int_equal(run("trtllm-bench --model llama-3.1-8b throughput --dataset x "
                         "--modality image --hw h100-sxm"),
                     2);
    assert_non_null(strstr(R.err, "--modality changes the timing"));
    /* the help lists each flag and what it does here */
    assert_int_equal(run("vllm bench serve --help"), 0);
    assert_non_null(strstr(R.out, "--temperature"));
    assert_non_null(strstr(R.out, "no effect: sampling"));
}

/* A JSON number of the last run's output. */
static double key(const char *name)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\"%s\":", name);
    const char *p = strstr(R.out, pat);
    if (!p) {
        print_error("no %s in: %.400s\n%s\n", name, R.out, R.err);
        fail();
    }
    return strtod(p + strlen(pat), NULL);
}

/* One flag family: the engine line with its flag at two settings (or without it: ""), and the
 * output the flag must move. */
typedef struct family {
    const char *what, *base, *a, *b, *key;
} family;

#define SERVE BASE "--random-input-len 512 --random-output-len 64 "
#define SERVE60 SERVE "--num-prompts 60 "
#define LATENCY                                                                                    \
    "vllm bench latency --model llama-3.1-8b --hw h100-sxm --uncertainty 0 --format json "
#define THROUGHPUT                                                                                 \
    "vllm bench throughput --model llama-3.1-8b --hw h100-sxm --uncertainty 0 --format json "      \
    "--num-prompts 300 --input-len 1024 --output-len 128 "
#define SGL                                                                                        \
    "python3 -m sglang.bench_serving --model llama-3.1-8b --hw h100-sxm --uncertainty 0 "          \
    "--format json --num-prompts 60 --dataset-name random --random-output 64 "
#define ONEBATCH                                                                                   \
    "python3 -m sglang.bench_one_batch --model-path llama-3.1-8b --hw h100-sxm --uncertainty 0 "   \
    "--format json "
#define TRT "trtllm-bench --model llama-3.1-8b --hw h100-sxm --uncertainty 0 --format json "
/* the servers' launch lines alone (infersim's default workload: 1,000 random requests at once) */
#define OUT "--hw h100-sxm --uncertainty 0 --format json "
#define VSRV "vllm serve llama-3.1-8b " OUT
#define VSRV_MOE "vllm serve qwen3-30b-a3b " OUT "-tp 2 "
#define SSRV "python3 -m sglang.launch_server --model-path llama-3.1-8b " OUT
#define SSRV_MOE "python3 -m sglang.launch_server --model-path qwen3-30b-a3b " OUT "--tp-size 2 "
#define TSRV "trtllm-serve llama-3.1-8b " OUT
#define TSRV_MOE "trtllm-serve qwen3-30b-a3b " OUT "--tp_size 2 "
/* TensorRT-LLM's serving benchmark (tensorrt_llm/serve/scripts/benchmark_serving.py) */
#define TBS                                                                                        \
    "python3 -m tensorrt_llm.serve.scripts.benchmark_serving --model llama-3.1-8b " OUT            \
    "--num-prompts 60 --dataset-name random --random-input-len 512 --random-output-len 64 "

static const family families[] = {
    /* the workload (vllm bench serve, datasets.py) */
    {"requests", SERVE, "--num-prompts 60", "--num-prompts 120", "total_input_tokens"},
    {"input length", BASE "--num-prompts 60 --random-output-len 64 ", "--random-input-len 512",
     "--random-input-len 2048", "mean_ttft_ms"},
    {"output length", BASE "--num-prompts 60 --random-input-len 512 ", "--random-output-len 64",
     "--random-output-len 256", "mean_e2el_ms"},
    {"range ratio", SERVE60, "", "--random-range-ratio 0.5", "total_input_tokens"},
    {"request rate", SERVE60, "", "--request-rate 4", "duration"},
    {"burstiness", SERVE60 "--request-rate 4 ", "", "--burstiness 0.2", "duration"},
    {"concurrency", SERVE60, "", "--max-concurrency 4", "mean_ttft_ms"},
    {"dataset", BASE "--num-prompts 60 ", "--dataset-name random", "--dataset-name sharegpt", NULL},
    {"seed", SERVE60 "--random-range-ratio 0.5 ", "", "--seed 7", "total_input_tokens"},
    {"engine", SERVE60, "", "--backend sglang", "mean_tpot_ms"},
    {"prefix repetition",
     BASE "--dataset-name prefix_repetition --num-prompts 60 --prefix-repetition-suffix-len 64 ",
     "", "--prefix-repetition-prefix-len 2048", "mean_ttft_ms"},
    /* the engine's arguments (vllm bench latency / throughput, arg_utils.py) */
    {"tensor parallel", LATENCY, "", "-tp 2", "tpot_ms"},
    {"pipeline parallel", LATENCY, "", "--pipeline-parallel-size 2", "tpot_ms"},
    {"quantization", LATENCY, "", "--quantization fp8", "tpot_ms"},
    {"KV cache format", LATENCY "--input-len 8192 ", "", "--kv-cache-dtype fp8", "tpot_ms"},
    {"CUDA graphs", LATENCY, "", "--enforce-eager", "tpot_ms"},
    {"batch", LATENCY, "", "--batch-size 32", "tpot_ms"},
    {"static input", LATENCY, "", "--input-len 1024", "ttft_ms"},
    {"sequences per iteration", THROUGHPUT, "", "--max-num-seqs 16", "duration"},
    {"tokens per iteration", THROUGHPUT, "", "--max-num-batched-tokens 256", "mean_ttft_ms"},
    {"memory fraction", THROUGHPUT, "", "--gpu-memory-utilization 0.3", "duration"},
    {"data parallel", THROUGHPUT, "", "--data-parallel-size 2", "duration"},
    {"chunked prefill", THROUGHPUT, "", "--no-enable-chunked-prefill", "mean_ttft_ms"},
    /* SGLang (bench_serving.py, bench_one_batch.py, server_args.py) */
    {"SGLang range ratio", SGL, "", "--random-range-ratio 1", "total_input_tokens"},
    {"SGLang lengths", SGL, "--random-input 512", "--random-input 2048", "total_input_tokens"},
    {"SGLang native ITL",
     "serve --server 'python3 -m sglang.launch_server --model-path llama-3.1-8b --stream-interval "
     "8' --hw h100-sxm --uncertainty 0 --format json --bench 'python3 -m sglang.bench_serving "
     "--num-prompts 40 ",
     "--backend sglang'", "--backend sglang-oai'", "mean_itl_ms"},
    {"SGLang shared prefix",
     "python3 -m sglang.bench_serving --model llama-3.1-8b --hw h100-sxm --uncertainty 0 "
     "--format json --dataset-name generated-shared-prefix --gsp-num-groups 4 "
     "--gsp-prompts-per-group 8 ",
     "", "--gsp-system-prompt-len 8192", "mean_ttft_ms"},
    {"SGLang ShareGPT outputs",
     "python3 -m sglang.bench_serving --model llama-3.1-8b --hw h100-sxm --uncertainty 0 "
     "--format json --num-prompts 60 ",
     "", "--sharegpt-output-len 100", "total_output_tokens"},
    {"SGLang batch", ONEBATCH, "", "--batch-size 16", "tpot_ms"},
    {"SGLang TP", ONEBATCH, "", "--tp-size 2", "tpot_ms"},
    {"SGLang CUDA graphs", ONEBATCH, "", "--disable-cuda-graph", "tpot_ms"},
    {"SGLang quantization", ONEBATCH, "", "--quantization fp8", "tpot_ms"},
    /* the servers' deployment flags (vllm serve: arg_utils.py; launch_server: server_args.py;
     * trtllm-serve: tensorrt_llm/commands/serve.py) */
    {"vLLM server TP", VSRV, "", "--tensor-parallel-size 2", "mean_tpot_ms"},
    {"vLLM server expert parallel", VSRV_MOE, "", "--enable-expert-parallel", "mean_tpot_ms"},
    {"vLLM server all-reduce", VSRV "-tp 2 ", "", "--disable-custom-all-reduce", "mean_ttft_ms"},
    {"vLLM server KV block", VSRV, "", "--block-size 32", "mean_tpot_ms"},
    {"vLLM server speculative config", VSRV, "",
     "--speculative-config '{\"method\":\"ngram\",\"num_speculative_tokens\":3,"
     "\"prompt_lookup_max\":4}' --spec-acceptance-rate 0.7",
     "mean_tpot_ms"},
    {"vLLM server stream interval", VSRV, "", "--stream-interval 8", "mean_ttft_ms"},
    {"vLLM server sequences", VSRV, "", "--max-num-seqs 16", "mean_ttft_ms"},
    {"vLLM server memory", VSRV, "", "--gpu-memory-utilization 0.3", "duration"},
    {"SGLang server TP", SSRV, "", "--tp-size 2", "mean_tpot_ms"},
    {"SGLang server chunk", SSRV, "", "--chunked-prefill-size 512", "mean_ttft_ms"},
    {"SGLang server requests", SSRV, "", "--max-running-requests 16", "mean_ttft_ms"},
    {"SGLang server memory", SSRV, "", "--mem-fraction-static 0.3", "duration"},
    {"SGLang server expert parallel", SSRV_MOE, "", "--ep-size 2", "mean_tpot_ms"},
    {"TensorRT-LLM server TP", TSRV, "", "--tp_size 2", "mean_tpot_ms"},
    {"TensorRT-LLM server batch", TSRV, "", "--max_batch_size 16", "mean_ttft_ms"},
    {"TensorRT-LLM server memory", TSRV, "", "--kv_cache_free_gpu_memory_fraction 0.1", "duration"},
    {"TensorRT-LLM server expert parallel", TSRV_MOE, "", "--ep_size 2", "mean_tpot_ms"},
    {"TensorRT-LLM serving concurrency", TBS, "", "--max-concurrency 4", "mean_ttft_ms"},
    {"TensorRT-LLM serving range ratio", TBS, "", "--random-range-ratio 0.5", "total_input_tokens"},
    {"TensorRT-LLM serving rate", TBS, "", "--request-rate 4", "duration"},
};

static void test_families(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        const family *f = &families[i];
        char line[4096];
        snprintf(line, sizeof line, "%s%s", f->base, f->a);
        if (run(line) != 0) {
            print_error("%s: '%s' failed: %s\n", f->what, line, R.err);
            fail();
        }
        double a = f->key ? key(f->key) : key("total_input_tokens");
        snprintf(line, sizeof line, "%s%s", f->base, f->b);
        if (run(line) != 0) {
            print_error("%s: '%s' failed: %s\n", f->what, line, R.err);
            fail();
        }
        double b = f->key ? key(f->key) : key("total_input_tokens");
        if (!(fabs(a - b) > 1e-9 * fabs(a))) {
            print_error("%s: '%s' did not move %s (%g both)\n", f->what, f->b,
                        f->key ? f->key : "total_input_tokens", a);
            fail();
        }
    }
}

/* trtllm-bench: the dataset file's lengths, its request count, concurrency and limits */
static void test_trtllm(void **state)
{
    (void)state;
    char path[2][256], line[2048];
    for (int k = 0; k < 2; k++) {
        snprintf(path[k], sizeof path[k], "%s/d%d.txt", tu_tmpdir(), k);
        FILE *f = fopen(path[k], "w");
        assert_non_null(f);
        for (int i = 0; i < 40; i++) {
            fprintf(f, "{\"task_id\":%d,\"input_ids\":[", i);
            for (int j = 0; j < (k ? 512 : 128); j++)
                fprintf(f, "%s%d", j ? "," : "", j % 1000);
            fprintf(f, "],\"output_tokens\":%d}\n", k ? 64 : 32);
        }
        fclose(f);
    }
    snprintf(line, sizeof line, TRT "throughput --dataset %s", path[0]);
    assert_int_equal(run(line), 0);
    assert_near(key("total_input_tokens"), 40 * 128, 1e-12);
    assert_near(key("total_output_tokens"), 40 * 32, 1e-12);
    double ttft = key("mean_ttft_ms"), dur = key("duration"), tpot = key("mean_tpot_ms");
    snprintf(line, sizeof line, TRT "throughput --dataset %s", path[1]);
    assert_int_equal(run(line), 0);
    assert_near(key("total_input_tokens"), 40 * 512, 1e-12);
    snprintf(line, sizeof line, TRT "throughput --dataset %s --num_requests 10", path[0]);
    assert_int_equal(run(line), 0);
    assert_near(key("completed"), 10, 1e-12);
    snprintf(line, sizeof line, TRT "throughput --dataset %s --concurrency 2", path[0]);
    assert_int_equal(run(line), 0);
    assert_true(key("mean_ttft_ms") < ttft);
    /* latency: one request at a time (low_latency.py's --concurrency 1) */
    snprintf(line, sizeof line, TRT "latency --dataset %s", path[0]);
    assert_int_equal(run(line), 0);
    assert_true(key("duration") > dur);
    snprintf(line, sizeof line, TRT "throughput --dataset %s --tp 2", path[0]);
    assert_int_equal(run(line), 0);
    assert_true(key("mean_tpot_ms") != tpot);
    snprintf(line, sizeof line, TRT "throughput --dataset %s --max_batch_size 4", path[0]);
    assert_int_equal(run(line), 0);
    assert_true(key("duration") > dur);
    /* TensorRT-LLM's dataset script: stdev 0 gives every request the mean's lengths */
    snprintf(line, sizeof line,
             "trtllm-bench --model llama-3.1-8b prepare-dataset --output %s/p.txt token-norm-dist "
             "--input-mean 128 --output-mean 16 --input-stdev 0 --output-stdev 0 --num-requests 20",
             tu_tmpdir());
    assert_int_equal(run(line), 0);
    snprintf(line, sizeof line, TRT "throughput --dataset %s/p.txt", tu_tmpdir());
    assert_int_equal(run(line), 0);
    assert_near(key("total_input_tokens"), 20 * 128, 1e-12);
    assert_near(key("total_output_tokens"), 20 * 16, 1e-12);
    snprintf(line, sizeof line,
             "python benchmarks/cpp/prepare_dataset.py --stdout --tokenizer m token-unif-dist "
             "--num-requests 50 --input-min 100 --input-max 200 --output-min 5 --output-max 9 ");
    assert_int_equal(run(line), 0);
    assert_int_equal((int)strlen(R.out) > 0, 1);
    for (const char *q = strstr(R.out, "\"output_tokens\":"); q;
         q = strstr(q + 1, "\"output_tokens\":"))
        assert_between(strtod(q + 16, NULL), 5, 9);
    /* a prompt given as text needs a tokenizer: refused, naming the line */
    snprintf(line, sizeof line, "%s/text.txt", tu_tmpdir());
    FILE *f = fopen(line, "w");
    assert_non_null(f);
    fprintf(f, "{\"task_id\":0,\"prompt\":\"hi\",\"output_tokens\":4}\n");
    fclose(f);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, TRT "throughput --dataset %s", line);
    assert_int_equal(run(cmd), 2);
    assert_non_null(strstr(R.err, "text.txt:1: expected \"input_ids\""));
    /* without --dataset: trtllm-bench would read standard input */
    assert_int_equal(run(TRT "throughput"), 2);
    assert_non_null(strstr(R.err, "needs --dataset FILE"));
}

/* A YAML file `name` in the test's folder holding `text`; its path in a static buffer. */
static const char *yaml_file(const char *name, const char *text)
{
    static char path[4][256];
    static int k = 0;
    char *p = path[k++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", tu_tmpdir(), name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* YAML read as PyYAML's safe_load reads it: YAML 1.1's plain scalars, quoted strings, the later
 * of a key given twice, one mapping of one document. */
static void test_yaml(void **state)
{
    (void)state;
    sim_err err = {{0}};
    cJSON *c = NULL;
    const char *p = yaml_file("s.yaml", "a: 0.90\nb: '0.90'\nc: yes\nd: Off\ne: 1e3\n"
                                        "f: 1.5e+3\ng: 0x10\nh: 010\ni: 08\nj: ~\nk:\n"
                                        "l: 1_000\nm: [1, two]\nn: {x: 1}\na2: first\na2: last\n"
                                        "o: .5\n");
    assert_int_equal(cli_dropin_yaml_load(p, "--config", &c, &err), SIM_OK);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(c, "a")));
    assert_near(cJSON_GetObjectItem(c, "a")->valuedouble, 0.9, 0);
    assert_string_equal(cJSON_GetObjectItem(c, "b")->valuestring, "0.90"); /* quoted: a string */
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(c, "c")));                /* YAML 1.1's yes */
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(c, "d")));
    assert_string_equal(cJSON_GetObjectItem(c, "e")->valuestring, "1e3"); /* no '.': a string */
    assert_near(cJSON_GetObjectItem(c, "f")->valuedouble, 1500, 0);
    assert_near(cJSON_GetObjectItem(c, "g")->valuedouble, 16, 0);
    assert_near(cJSON_GetObjectItem(c, "h")->valuedouble, 8, 0); /* 010: octal */
    assert_string_equal(cJSON_GetObjectItem(c, "i")->valuestring, "08");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "j")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "k")));
    assert_near(cJSON_GetObjectItem(c, "l")->valuedouble, 1000, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(c, "m")), 2);
    assert_true(cJSON_IsObject(cJSON_GetObjectItem(c, "n")));
    assert_string_equal(cJSON_GetObjectItem(c, "a2")->valuestring, "last");
    assert_near(cJSON_GetObjectItem(c, "o")->valuedouble, 0.5, 0);
    char text[64];
    assert_true(cli_dropin_yaml_text(cJSON_GetObjectItem(c, "a"), text, sizeof text));
    assert_string_equal(text, "0.9");
    assert_true(cli_dropin_yaml_text(cJSON_GetObjectItem(c, "c"), text, sizeof text));
    assert_string_equal(text, "True"); /* Python's str(True) */
    assert_false(cli_dropin_yaml_text(cJSON_GetObjectItem(c, "m"), text, sizeof text));
    cJSON_Delete(c);
    /* an empty file is an empty mapping */
    assert_int_equal(cli_dropin_yaml_load(yaml_file("e.yaml", "# nothing\n"), "--config", &c, &err),
                     SIM_OK);
    assert_null(c->child);
    cJSON_Delete(c);
    /* bad files: one line naming the file (and line) and what was expected */
    static const struct {
        const char *name, *text, *msg;
    } bad[] = {
        {"b1.yaml", "a: [1, 2\n", "line 2, column 1: not YAML"},
        {"b2.yaml", "- a\n- b\n", "line 1: expected a mapping"},
        {"b3.yaml", "a: 1\n---\nb: 2\n", "more than one YAML document"},
        {"b4.yaml", "a: !!python/object x\n", "tag 'tag:yaml.org,2002:python/object' is not read"},
        {"b5.yaml", "a: .inf\n", "line 1: value '.inf', expected a finite number"},
        {"b6.json", "a: 1\n", "expected a .yaml or .yml file"},
        {"b7.yaml", "? [a]\n: 1\n", "a key that is not a name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(
            cli_dropin_yaml_load(yaml_file(bad[i].name, bad[i].text), "--config", &c, &err),
            SIM_EINPUT);
        assert_null(c);
        if (!strstr(err.msg, bad[i].msg)) {
            print_error("%s: '%s', expected '%s'\n", bad[i].name, err.msg, bad[i].msg);
            fail();
        }
    }
    assert_int_equal(cli_dropin_yaml_load("/no/such.yaml", "--config", &c, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--config: cannot open '/no/such.yaml'"));
}

/* The engines' option files, as each engine merges them: vLLM's and SGLang's --config under the
 * command line (the line wins), TensorRT-LLM's --extra_llm_api_options over it (the file wins). */
static void test_option_files(void **state)
{
    (void)state;
    cli_dropin_line t;
    sim_err err = {{0}};
    char line[2048];
    /* vLLM (argparse_utils.py load_config_file): '-' or '_' keys, false as --no-KEY, a list, a
     * mapping as its JSON, the file's model unless the line gives one */
    const char *v = yaml_file("v.yaml", "model: llama-3.1-70b\ntensor-parallel-size: 2\n"
                                        "max_num_seqs: 64\nenable-prefix-caching: false\n"
                                        "gpu-memory-utilization: 0.85\nport: 8000\n"
                                        "speculative-config:\n  method: ngram\n"
                                        "  num_speculative_tokens: 3\n");
    snprintf(line, sizeof line, "vllm serve --config %s", v);
    assert_int_equal(translate(line, &t, &err), SIM_OK);
    assert_true(holds(&t, "--model", "llama-3.1-70b"));
    assert_true(holds(&t, "--tp", "2"));
    assert_true(holds(&t, "--max-num-seqs", "64"));
    assert_true(holds(&t, "--no-enable-prefix-caching", NULL));
    assert_true(holds(&t, "--gpu-memory-utilization", "0.85"));
    assert_true(
        holds(&t, "--speculative-config", "{\"method\":\"ngram\",\"num_speculative_tokens\":3}"));
    assert_non_null(strstr(t.no_effect, "--port"));
    cli_dropin_line_free(&t);
    snprintf(line, sizeof line, "vllm serve llama-3.1-8b --config %s -tp 4 --max-num-seqs 8", v);
    assert_int_equal(translate(line, &t, &err), SIM_OK);
    assert_true(holds(&t, "--model", "llama-3.1-8b")); /* the positional model wins */
    assert_true(holds(&t, "--tp", "4"));
    assert_true(holds(&t, "--max-num-seqs", "8"));
    assert_false(holds(&t, "--max-num-seqs", "64"));
    cli_dropin_line_free(&t);
    /* a key that is no flag: the tool's did-you-mean, naming the file */
    snprintf(line, sizeof line, "vllm serve m --config %s",
             yaml_file("v2.yaml", "max-num-seq: 4\n"));
    assert_int_equal(translate(line, &t, &err), SIM_OK); /* argparse's prefix */
    assert_true(holds(&t, "--max-num-seqs", "4"));
    cli_dropin_line_free(&t);
    snprintf(line, sizeof line, "vllm serve m --config %s",
             yaml_file("v3.yaml", "max_nm_seqs: 4\n"));
    assert_int_equal(translate(line, &t, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "v3.yaml: key 'max_nm_seqs': vllm serve: unknown flag"));
    assert_non_null(strstr(err.msg, "did you mean --max-num-seqs?"));
    snprintf(line, sizeof line, "vllm serve m --config %s",
             yaml_file("v4.yaml", "max-num-seqs: [4, 8]\n"));
    assert_int_equal(translate(line, &t, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "v4.yaml: key 'max-num-seqs': --max-num-seqs takes one value, "
                                    "the file gives 2"));
    snprintf(line, sizeof line, "vllm serve m --config %s --config %s", v, v);
    assert_int_equal(translate(line, &t, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "given twice"));
    /* SGLang (server_args_config_parser.py): a store_true flag true or left out; a mapping is
     * refused; the line wins */
    const char *s = yaml_file("s.yaml", "model-path: llama-3.1-8b\ntp-size: 2\n"
                                        "disable-cuda-graph: true\ndisable-radix-cache: false\n"
                                        "mem-fraction-static: 0.8\nenable-metrics: true\n");
    snprintf(line, sizeof line, "python3 -m sglang.launch_server --config %s --tp 4", s);
    assert_int_equal(translate(line, &t, &err), SIM_OK);
    assert_true(holds(&t, "--tp", "4"));
    assert_false(holds(&t, "--tp", "2"));
    assert_true(holds(&t, "--enforce-eager", NULL));
    assert_false(holds(&t, "--no-enable-prefix-caching", NULL));
    assert_true(holds(&t, "--mem-fraction-static", "0.8"));
    assert_non_null(strstr(t.no_effect, "--enable-metrics"));
    cli_dropin_line_free(&t);
    snprintf(line, sizeof line, "python3 -m sglang.launch_server --model-path m --config %s",
             yaml_file("s2.yaml", "json-model-override-args: {a: 1}\n"));
    assert_int_equal(translate(line, &t, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "a mapping, expected a value"));
    /* TensorRT-LLM (llm_args.py): dotted keys, the file over the flags, attention DP over the TP
     * ranks with the experts over the same GPUs */
    const char *e = yaml_file("e.yaml", "max_batch_size: 32\nenable_attention_dp: true\n"
                                        "moe_expert_parallel_size: 8\n"
                                        "kv_cache_config:\n  free_gpu_memory_fraction: 0.7\n"
                                        "  dtype: fp8\n  enable_block_reuse: false\n"
                                        "cuda_graph_config:\n  enable_padding: true\n"
                                        "  max_batch_size: 128\nprint_iter_log: true\n"
                                        "scheduler_config:\n"
                                        "  capacity_scheduler_policy: MAX_UTILIZATION\n"
                                        "speculative_config:\n  decoding_type: MTP\n"
                                        "  num_nextn_predict_layers: 1\n");
    snprintf(line, sizeof line,
             "trtllm-serve deepseek-v3 --tp_size 8 --max_batch_size 64 "
             "--kv_cache_free_gpu_memory_fraction 0.9 --extra_llm_api_options %s",
             e);
    assert_int_equal(translate(line, &t, &err), SIM_OK);
    assert_true(holds(&t, "--max-batch-size", "32"));
    assert_false(holds(&t, "--max-batch-size", "64"));
    assert_true(holds(&t, "--kv-cache-free-gpu-mem-fraction", "0.7"));
    assert_true(holds(&t, "--kv-cache-dtype", "fp8"));
    assert_true(holds(&t, "--no-enable-prefix-caching", NULL));
    assert_true(holds(&t, "--cuda-graph-max-bs", "128"));
    assert_true(holds(&t, "--scheduler-policy", "max_utilization"));
    assert_true(holds(&t, "--speculative-config",
                      "{\"decoding_type\":\"MTP\",\"num_nextn_predict_layers\":1}"));
    assert_true(holds(&t, "--tp", "1"));
    assert_true(holds(&t, "--ep", "8"));
    assert_true(holds(&t, "--dp-attention", NULL));
    assert_non_null(strstr(t.no_effect, "cuda_graph_config.enable_padding, print_iter_log"));
    cli_dropin_line_free(&t);
    /* a kv_cache_config mapping replaces the object the flag filled: its fraction back to
     * KvCacheConfig's default 0.9 */
    snprintf(line, sizeof line,
             "trtllm-serve m --kv_cache_free_gpu_memory_fraction 0.5 --extra_llm_api_options %s",
             yaml_file("e3.yaml", "kv_cache_config:\n  dtype: fp8\n"));
    assert_int_equal(translate(line, &t, &err), SIM_OK);
    assert_true(holds(&t, "--kv-cache-free-gpu-mem-fraction", "0.9"));
    assert_false(holds(&t, "--kv-cache-free-gpu-mem-fraction", "0.5"));
    cli_dropin_line_free(&t);
    /* trtllm-serve's own flag names as keys, as TensorRT-LLM's examples/configs files write them
     * (gpt-oss-120b-throughput.yaml: tp_size, ep_size, kv_cache_free_gpu_memory_fraction) */
    snprintf(line, sizeof line, "trtllm-serve m --tp_size 8 --extra_llm_api_options %s",
             yaml_file("e4.yaml", "tp_size: 2\nep_size: 2\npp_size: 1\n"
                                  "kv_cache_free_gpu_memory_fraction: 0.5\n"));
    assert_int_equal(translate(line, &t, &err), SIM_OK);
    assert_true(holds(&t, "--tp", "2"));
    assert_false(holds(&t, "--tp", "8"));
    assert_true(holds(&t, "--ep", "2"));
    assert_true(holds(&t, "--pp", "1"));
    assert_true(holds(&t, "--kv-cache-free-gpu-mem-fraction", "0.5"));
    cli_dropin_line_free(&t);
    /* attention DP with the MoE layers split by TP (the default): SGLang's layout */
    snprintf(line, sizeof line, "trtllm-serve m --tp_size 4 --extra_llm_api_options %s",
             yaml_file("e2.yaml", "enable_attention_dp: true\ncuda_graph_config: null\n"
                                  "enable_chunked_prefill: false\n"));
    assert_int_equal(translate(line, &t, &err), SIM_OK);
    assert_true(holds(&t, "--tp", "4"));
    assert_true(holds(&t, "--dp", "4"));
    assert_true(holds(&t, "--enforce-eager", NULL));
    assert_true(holds(&t, "--no-chunked-prefill", NULL));
    cli_dropin_line_free(&t);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"kv_cache_config:\n  free_gpu_memory_fractio: 0.8\n",
         "key 'kv_cache_config.free_gpu_memory_fractio' is not a setting infersim reads; did you "
         "mean kv_cache_config.free_gpu_memory_fraction?"},
        {"kv_cache_config:\n  max_tokens: 1000\n",
         "key 'kv_cache_config.max_tokens' changes the timing and is not modelled"},
        /* gpt-oss's window pattern as TensorRT-LLM repeats it over the layers */
        {"kv_cache_config:\n  max_attention_window: [128, 131072]\n",
         "key 'kv_cache_config.max_attention_window' changes the timing and is not modelled"},
        {"enable_attention_dp: 1\n", "value '1', expected true or false"},
        {"kv_cache_config:\n  dtype: int4\n", "value 'int4', expected auto, fp8"},
        {"nope: {a: 1}\n", "key 'nope' is not a setting infersim reads"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(line, sizeof line, "trtllm-serve m --extra_llm_api_options %s",
                 yaml_file("bad.yaml", bad[i].text));
        assert_int_equal(translate(line, &t, &err), SIM_EINPUT);
        if (!strstr(err.msg, bad[i].msg) || !strstr(err.msg, "bad.yaml")) {
            print_error("'%s': '%s', expected '%s'\n", bad[i].text, err.msg, bad[i].msg);
            fail();
        }
    }
    /* every key of the table: a note, a handler, targets that are option-table flags */
    for (const cli_dropin_flag *r = cli_dropin_trtllm_options; r->name; r++) {
        assert_true(r->note && r->note[0]);
        assert_true(r->act != CLI_DROPIN_CALL || r->call);
        if (r->act == CLI_DROPIN_MAP)
            assert_non_null(cli_opt_find(r->to, CLI_OPT_CMD_SERVE));
    }
    /* a server line's option file, in serve --server / --bench */
    snprintf(line, sizeof line,
             "serve --server 'vllm serve llama-3.1-8b --config %s' --bench 'vllm bench serve "
             "--num-prompts 20' --hw h100-sxm --uncertainty 0 --format json",
             yaml_file("pair.yaml", "max-num-seqs: 2\n"));
    assert_int_equal(run(line), 0);
    assert_non_null(strstr(R.err, "--max-num-seqs 2"));
    assert_int_equal(run("trtllm-serve --help"), 0);
    assert_non_null(strstr(R.out, "kv_cache_config.free_gpu_memory_fraction"));
    /* the file moves the prediction as its flags do */
    static const struct {
        const char *with_file, *text, *with_flag;
    } same[] = {
        {"vllm serve llama-3.1-8b --config %s", "max-num-seqs: 8\n",
         "vllm serve llama-3.1-8b --max-num-seqs 8"},
        {"python3 -m sglang.launch_server --config %s",
         "model-path: llama-3.1-8b\n"
         "max-running-requests: 8\n",
         "python3 -m sglang.launch_server --model-path llama-3.1-8b --max-running-requests 8"},
        {"trtllm-serve llama-3.1-8b --max_batch_size 256 --extra_llm_api_options %s",
         "max_batch_size: 8\n", "trtllm-serve llama-3.1-8b --max_batch_size 8"},
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        char cmd[2200];
        const char *f = yaml_file("same.yaml", same[i].text);
        snprintf(line, sizeof line, same[i].with_file, f);
        snprintf(cmd, sizeof cmd, "%s --hw h100-sxm --uncertainty 0 --format json", line);
        assert_int_equal(run(cmd), 0);
        double a = key("mean_ttft_ms");
        snprintf(cmd, sizeof cmd, "%s --hw h100-sxm --uncertainty 0 --format json",
                 same[i].with_flag);
        assert_int_equal(run(cmd), 0);
        assert_near(key("mean_ttft_ms"), a, 0);
        char *cut = strstr(cmd, same[i].with_file[0] == 't' ? " --max_batch_size" : " --max");
        assert_non_null(cut);
        snprintf(cut, sizeof cmd - (size_t)(cut - cmd),
                 " --hw h100-sxm --uncertainty 0 "
                 "--format json");
        assert_int_equal(run(cmd), 0);
        if (!(fabs(key("mean_ttft_ms") - a) > 1e-9 * a)) {
            print_error("'%s': the file did not move mean_ttft_ms\n", line);
            fail();
        }
    }
}

/* TensorRT-LLM's benchmark_serving.py: vLLM's flags, its own no-effect ones, its default dataset
 * (sharegpt) and engine (an OpenAI client against trtllm-serve: TensorRT-LLM's profile) */
static void test_trtllm_serving(void **state)
{
    (void)state;
    cli_dropin_line t;
    sim_err err = {{0}};
    assert_int_equal(translate("python -m tensorrt_llm.serve.scripts.benchmark_serving --model m "
                               "--backend openai --dataset-name random --random-input-len 1024 "
                               "--random-output-len 1024 --random-prefix-len 0 --random-ids "
                               "--num-prompts 160 --max-concurrency 32 --ignore-eos "
                               "--tokenize-on-client --percentile-metrics ttft,tpot,itl,e2el",
                               &t, &err),
                     SIM_OK);
    assert_true(holds(&t, "--engine", "trtllm"));
    assert_true(holds(&t, "--dataset-name", "random"));
    assert_true(holds(&t, "--random-input-len", "1024"));
    assert_true(holds(&t, "--max-concurrency", "32"));
    assert_non_null(strstr(t.no_effect, "--random-ids, --tokenize-on-client"));
    cli_dropin_line_free(&t);
    assert_int_equal(
        translate("python3 -m tensorrt_llm.serve.scripts.benchmark_serving --model m", &t, &err),
        SIM_OK);
    assert_true(holds(&t, "--dataset-name", "sharegpt"));
    assert_true(holds(&t, "--engine", "trtllm"));
    cli_dropin_line_free(&t);
    assert_int_equal(translate("python3 -m tensorrt_llm.serve.scripts.benchmark_serving --model m "
                               "--non-streaming",
                               &t, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--non-streaming changes the timing and is not modelled"));
    /* vllm bench serve --backend openai stays vLLM's */
    assert_int_equal(translate("vllm bench serve --model m --backend openai", &t, &err), SIM_OK);
    assert_true(holds(&t, "--engine", "vllm"));
    cli_dropin_line_free(&t);
}

/* vllm bench serve's datasets as the workloads they produce (vllm/benchmarks/datasets.py) */
static void test_datasets(void **state)
{
    (void)state;
    cli_dropin_line t;
    sim_err err = {{0}};
    /* sonnet: a shared prefix of 200 tokens, 550 in all, 150 out (SonnetDataset's defaults) */
    assert_int_equal(translate("vllm bench serve --model m --dataset-name sonnet --dataset-path "
                               "benchmarks/sonnet.txt",
                               &t, &err),
                     SIM_OK);
    assert_true(holds(&t, "--dataset-name", "prefix_repetition"));
    assert_true(holds(&t, "--prefix-repetition-num-prefixes", "1"));
    assert_true(holds(&t, "--prefix-repetition-prefix-len", "200"));
    assert_true(holds(&t, "--prefix-repetition-suffix-len", "350"));
    assert_true(holds(&t, "--prefix-repetition-output-len", "150"));
    assert_non_null(strstr(t.no_effect, "--dataset-path"));
    cli_dropin_line_free(&t);
    /* its flags, and serve.py's general --input-len / --output-len where they are not given */
    assert_int_equal(translate("vllm bench serve --model m --dataset-name sonnet "
                               "--sonnet-input-len 1024 --sonnet-prefix-len 100 --output-len 64",
                               &t, &err),
                     SIM_OK);
    assert_true(holds(&t, "--prefix-repetition-prefix-len", "100"));
    assert_true(holds(&t, "--prefix-repetition-suffix-len", "924"));
    assert_true(holds(&t, "--prefix-repetition-output-len", "64"));
    cli_dropin_line_free(&t);
    assert_int_equal(translate("vllm bench serve --model m --dataset-name sonnet "
                               "--sonnet-input-len 150",
                               &t, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "input length 150, expected more than the prefix length 200"));
    assert_int_equal(translate("vllm bench serve --model m --sonnet-input-len 150", &t, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--sonnet-*: needs --dataset-name sonnet"));
    /* burstgpt: the trace's lengths; it needs the file, as vLLM does */
    assert_int_equal(translate("vllm bench serve --model m --dataset-name burstgpt "
                               "--dataset-path BurstGPT_without_fails_2.csv --output-len 9",
                               &t, &err),
                     SIM_OK);
    assert_true(holds(&t, "--lengths-file", "BurstGPT_without_fails_2.csv"));
    assert_false(holds(&t, "--dataset-name", NULL));
    assert_non_null(strstr(t.no_effect, "--output-len"));
    cli_dropin_line_free(&t);
    assert_int_equal(translate("vllm bench serve --model m --dataset-name burstgpt", &t, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "needs --dataset-path FILE.csv"));
    /* hf: ConversationDataset's ShareGPT id is ShareGPT's first turns (its fit); --hf-output-len
     * sets every output */
    assert_int_equal(translate("vllm bench serve --model m --dataset-name hf --dataset-path "
                               "Aeala/ShareGPT_Vicuna_unfiltered --hf-split train "
                               "--hf-output-len 100",
                               &t, &err),
                     SIM_OK);
    assert_true(holds(&t, "--dataset-name", "sharegpt"));
    assert_true(holds(&t, "--sharegpt-output-len", "100"));
    assert_non_null(strstr(t.no_effect, "--hf-split"));
    cli_dropin_line_free(&t);
    /* text prompts need the tokenizer */
    assert_int_equal(translate("vllm bench serve --model m --dataset-name hf --dataset-path "
                               "likaixin/InstructCoder",
                               &t, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "its prompts are text"));
    assert_int_equal(translate("vllm bench throughput --model m --dataset-name sonnet", &t, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "not modelled here"));
    /* the predictions: sonnet's shared prefix is cached (a longer one, a shorter TTFT); the
     * BurstGPT rows' lengths reach the requests */
    char line[2048];
    assert_int_equal(run(BASE "--num-prompts 60 --request-rate 4 --dataset-name sonnet"), 0);
    double ttft = key("mean_ttft_ms");
    assert_near(key("total_input_tokens"), 60 * 550, 0);
    assert_int_equal(run(BASE "--num-prompts 60 --request-rate 4 --dataset-name sonnet "
                              "--sonnet-prefix-len 500"),
                     0);
    assert_true(key("mean_ttft_ms") < ttft);
    snprintf(line, sizeof line, "%s/b.csv", tu_tmpdir());
    FILE *f = fopen(line, "w");
    assert_non_null(f);
    fputs("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
          "1,GPT-4,800,40,840,Conversation log\n2,ChatGPT,100,10,110,Conversation log\n",
          f);
    fclose(f);
    char cmd[2400];
    snprintf(cmd, sizeof cmd, BASE "--num-prompts 20 --dataset-name burstgpt --dataset-path %s",
             line);
    assert_int_equal(run(cmd), 0);
    assert_near(key("total_input_tokens"), 20 * 800, 0); /* the GPT-4 row, drawn 20 times */
    assert_near(key("total_output_tokens"), 20 * 40, 0);
    /* custom: vLLM's JSONL of prompts, read where its lines carry their lengths in tokens; the
     * first --num-prompts lines; --custom-output-len sets every output, as CustomDataset does */
    assert_int_equal(translate("vllm bench serve --model m --dataset-name custom --dataset-path "
                               "c.jsonl --custom-output-len 32 --output-len 5",
                               &t, &err),
                     SIM_OK);
    assert_true(holds(&t, "--lengths-file", "c.jsonl"));
    assert_true(holds(&t, "--custom-output-len", "32"));
    assert_non_null(strstr(t.no_effect, "--output-len"));
    cli_dropin_line_free(&t);
    assert_int_equal(translate("vllm bench serve --model m --dataset-name custom", &t, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "needs --dataset-path FILE.jsonl"));
    assert_int_equal(translate("vllm bench serve --model m --custom-output-len 9", &t, &err),
                     SIM_OK); /* another dataset: vLLM reads it only for custom */
    assert_non_null(strstr(t.no_effect, "--custom-output-len"));
    assert_false(holds(&t, "--custom-output-len", NULL));
    cli_dropin_line_free(&t);
    assert_int_equal(translate("vllm bench throughput --model m --dataset-name custom", &t, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "not modelled here"));
    static const char c0[] =
        "{\"prompt\":\"Tell me a story\",\"prompt_len\":700,\"output_len\":30}\n"
        "{\"prompt_len\":300,\"output_len\":10}\n"
        "{\"prompt_len\":5,\"output_len\":5}\n";
    const char *const custom[] = {c0, "{\"prompt\":\"What is the capital of India?\"}\n",
                                  "{\"prompt_len\":64}\n"};
    for (int k = 0; k < 3; k++) {
        snprintf(line, sizeof line, "%s/c%d.jsonl", tu_tmpdir(), k);
        f = fopen(line, "w");
        assert_non_null(f);
        fputs(custom[k], f);
        fclose(f);
    }
    snprintf(cmd, sizeof cmd,
             BASE "--num-prompts 2 --dataset-name custom --dataset-path %s/c0.jsonl", tu_tmpdir());
    assert_int_equal(run(cmd), 0);
    assert_near(key("total_input_tokens"), 700 + 300, 0);
    assert_near(key("total_output_tokens"), 30 + 10, 0);
    double e2el = key("mean_e2el_ms");
    snprintf(cmd, sizeof cmd,
             BASE "--num-prompts 2 --dataset-name custom --dataset-path %s/c0.jsonl "
                  "--custom-output-len 200",
             tu_tmpdir());
    assert_int_equal(run(cmd), 0);
    assert_near(key("total_output_tokens"), 2 * 200, 0);
    assert_true(key("mean_e2el_ms") > e2el);
    /* a text-only prompt (vLLM's own format) needs the tokenizer: one line naming what is
     * needed; an output length is needed where --custom-output-len is not given */
    snprintf(cmd, sizeof cmd, BASE "--dataset-name custom --dataset-path %s/c1.jsonl", tu_tmpdir());
    assert_int_equal(run(cmd), 2);
    assert_non_null(strstr(R.err, "c1.jsonl:1: expected \"input_ids\" (or \"input_len\" / "
                                  "\"prompt_len\", the prompt's tokens): a text \"prompt\" needs a "
                                  "tokenizer"));
    snprintf(cmd, sizeof cmd, BASE "--dataset-name custom --dataset-path %s/c2.jsonl", tu_tmpdir());
    assert_int_equal(run(cmd), 2);
    assert_non_null(strstr(R.err, "c2.jsonl:1: expected \"output_tokens\" (or \"output_len\""));
    assert_non_null(strstr(R.err, "--custom-output-len"));
    snprintf(cmd, sizeof cmd,
             BASE "--dataset-name custom --dataset-path %s/c2.jsonl --custom-output-len 8",
             tu_tmpdir());
    assert_int_equal(run(cmd), 0);
    assert_near(key("total_input_tokens"), 64, 0);
    assert_near(key("total_output_tokens"), 8, 0);
}

/* infersim serve --server "LINE" --bench "LINE": the deployment from one, the workload from the
 * other */
static void test_pair(void **state)
{
    (void)state;
    assert_int_equal(run("serve --server 'vllm serve llama-3.1-8b --max-num-seqs 8' --bench "
                         "'vllm bench serve --model llama-3.1-8b --num-prompts 40' --hw h100-sxm "
                         "--uncertainty 0 --format json"),
                     0);
    double one = key("mean_tpot_ms");
    assert_non_null(strstr(R.err, "--max-num-seqs 8"));
    assert_non_null(strstr(R.err, "--num-prompts 40"));
    assert_int_equal(run("serve --server 'vllm serve llama-3.1-8b --max-num-seqs 8 "
                         "--tensor-parallel-size 2' --bench 'vllm bench serve --model "
                         "llama-3.1-8b --num-prompts 40' --hw h100-sxm --uncertainty 0 "
                         "--format json"),
                     0);
    assert_true(key("mean_tpot_ms") < one);
    /* the model is the server's: another one on the bench line is an error */
    assert_int_equal(run("serve --server 'vllm serve llama-3.1-8b' --bench 'vllm bench serve "
                         "--model llama-2-7b' --hw h100-sxm"),
                     2);
    assert_non_null(strstr(R.err, "--bench: --model llama-2-7b is not the --server line's"));
    /* SGLang's and TensorRT-LLM's launch lines set their engines */
    assert_int_equal(run("serve --server 'python3 -m sglang.launch_server --model-path "
                         "llama-3.1-8b --tp 2 --mem-fraction-static 0.8' --bench "
                         "'python3 -m sglang.bench_serving --backend sglang --num-prompts 20' "
                         "--hw h100-sxm --uncertainty 0"),
                     0);
    assert_non_null(strstr(R.err, "--engine sglang"));
    assert_non_null(strstr(R.err, "--tp 2"));
    assert_int_equal(run("serve --server 'trtllm-serve llama-3.1-8b --tp_size 2 "
                         "--max_batch_size 16' --bench 'vllm bench serve --model llama-3.1-8b "
                         "--num-prompts 20' --hw h100-sxm --uncertainty 0"),
                     0);
    assert_non_null(strstr(R.err, "--engine trtllm"));
    assert_non_null(strstr(R.err, "--max-batch-size 16"));
    /* infersim serve's own --backend (vLLM's bench flag) picks the engine it names */
    assert_int_equal(run("serve --model llama-3.1-8b --hw h100-sxm --backend sglang "
                         "--num-prompts 5 --uncertainty 0 --format json"),
                     0);
    assert_non_null(strstr(R.out, "\"engine\":\t\"sglang\""));
    assert_int_equal(run("serve --model llama-3.1-8b --hw h100-sxm --backend sglang --engine vllm "
                         "--num-prompts 5 --uncertainty 0 --format json"),
                     0);
    assert_non_null(strstr(R.out, "\"engine\":\t\"vllm\""));
    /* a benchmark line given as the server's */
    assert_int_equal(run("serve --server 'vllm bench serve --model m' --hw h100-sxm"), 2);
    assert_non_null(strstr(R.err, "is not a server's launch line"));
}

/* The README's drop-in list is `infersim drop-in --markdown`, between its two markers. */
static void test_readme(void **state)
{
    (void)state;
    assert_int_equal(run("drop-in --markdown"), 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/README.md", tu_root());
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char readme[1 << 20];
    size_t n = fread(readme, 1, sizeof readme - 1, f);
    readme[n] = '\0';
    fclose(f);
    const char *open = "<!-- drop-in flags: infersim drop-in --markdown -->\n";
    char *a = strstr(readme, open), *b = a ? strstr(a, "<!-- /drop-in flags -->") : NULL;
    if (!a || !b) {
        print_error("README.md: no drop-in flags block\n");
        fail();
    }
    a += strlen(open);
    *b = '\0';
    if (strcmp(a, R.out) != 0) {
        size_t i = 0;
        while (a[i] && a[i] == R.out[i])
            i++;
        print_error("at byte %zu: README '%.40s', drop-in '%.40s'\n", i, a + i, R.out + i);
        print_error("README.md's drop-in flags block is stale: replace it with the output of "
                    "'infersim drop-in --markdown' (tools/readme-dropin)\n");
        fail();
    }
}

/* cli_opt_find compares a name's first three characters inline (cli_opt.c): every flag of the
 * option table has at least three, and a short or empty name finds nothing without reading past
 * it; each flag finds itself. */
static void test_opt_find(void **state)
{
    (void)state;
    for (size_t i = 0; i < cli_opt_count; i++) {
        assert_true(strlen(cli_opt_table[i].name) >= 3);
        assert_ptr_equal(cli_opt_find(cli_opt_table[i].name, cli_opt_table[i].cmds),
                         &cli_opt_table[i]);
    }
    assert_null(cli_opt_find("", ~0));
    assert_null(cli_opt_find("-", ~0));
    assert_null(cli_opt_find("--", ~0));
    assert_null(cli_opt_find("--t", ~0));
    assert_null(cli_opt_find("--tpx", ~0));
    assert_non_null(cli_opt_find("--tp", ~0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opt_find),
        cmocka_unit_test(test_spelling),  cmocka_unit_test(test_tables),
        cmocka_unit_test(test_every_row), cmocka_unit_test(test_split),
        cmocka_unit_test(test_no_effect), cmocka_unit_test(test_families),
        cmocka_unit_test(test_trtllm),    cmocka_unit_test(test_pair),
        cmocka_unit_test(test_yaml),      cmocka_unit_test(test_option_files),
        cmocka_unit_test(test_datasets),  cmocka_unit_test(test_trtllm_serving),
        cmocka_unit_test(test_readme),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
