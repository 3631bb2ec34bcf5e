/* test_dropin.c - the engines' own command lines (cli_dropin.h): their spelling rules, the
 * words a --server / --bench line splits into, the no-effect notice and the refusals, and, per
 * flag family, that each timing flag moves the prediction it should move. */
#include "cliutil.h"

#include <stdlib.h>

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
                         "--extra_llm_api_options e.yml --hw h100-sxm"),
                     2);
    assert_non_null(strstr(R.err, "--extra_llm_api_options changes the timing"));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spelling),  cmocka_unit_test(test_tables),
        cmocka_unit_test(test_every_row), cmocka_unit_test(test_split),
        cmocka_unit_test(test_no_effect), cmocka_unit_test(test_families),
        cmocka_unit_test(test_trtllm),    cmocka_unit_test(test_pair),
        cmocka_unit_test(test_readme),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
