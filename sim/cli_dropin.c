/* cli_dropin.c - the engines' benchmark command lines read under their own spelling and
 * translated into infersim's (the tables are in cli_dropin_vllm.c, _sglang.c, _trtllm.c). */
#define _POSIX_C_SOURCE 200809L
#include "cli_dropin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_opt.h"

/* the infersim flags every tool's line may need beyond its rows: --hw, infersim's own output and
 * report flags, and a speculative config's acceptance (the engines' lines measure it, infersim
 * is told it), taken as they are */
static const char *const passthrough[] = {"--hw",
                                          "--format",
                                          "--uncertainty",
                                          "--html",
                                          "--chrome-trace",
                                          "--engine",
                                          "--spec-acceptance-rate",
                                          "--spec-acceptance-length",
                                          "--spec-acceptance-rates",
                                          "--spec-acceptance-data"};

static const char *const vllm_defaults_serve[] = {NULL};
static const char *const vllm_defaults_throughput[] = {"--dataset-name", "random", NULL};
static const char *const vllm_defaults_latency[] = {"--batch",      "8",   "--input-len", "32",
                                                    "--output-len", "128", NULL};
/* SGLang bench_serving's defaults that differ from vLLM's (python/sglang/bench_serving.py):
 * --dataset-name sharegpt, --random-output-len 1024, --seed 1, --random-range-ratio 0.0 in its
 * own meaning (lengths uniform in [1, L]) */
static const char *const sglang_defaults_serving[] = {"--seed", "1", NULL};
/* bench_one_batch: --batch-size 1, --input-len 1024, --output-len 16
 * (python/sglang/bench_one_batch.py BenchArgs) */
static const char *const sglang_defaults_one_batch[] = {"--batch",      "1",  "--input-len", "1024",
                                                        "--output-len", "16", NULL};
/* trtllm-bench throughput: --kv_cache_free_gpu_mem_fraction 0.90, --enable_chunked_context
 * (throughput.py's options) */
static const char *const trtllm_defaults[] = {"--kv-cache-free-gpu-mem-fraction", "0.90",
                                              "--enable-chunked-prefill", NULL, NULL};
/* TensorRT-LLM's benchmark_serving.py: --dataset-name sharegpt (vLLM's bench serve: random) */
static const char *const trtllm_serving_defaults[] = {"--dataset-name", "sharegpt", NULL};
/* trtllm-serve: --kv_cache_free_gpu_memory_fraction 0.9 (tensorrt_llm/commands/serve.py) */
static const char *const trtllm_serve_defaults[] = {"--kv-cache-free-gpu-mem-fraction", "0.9",
                                                    NULL};
/* trtllm-bench latency: --concurrency 1, --kv_cache_free_gpu_mem_fraction 0.90
 * (tensorrt_llm/bench/benchmark/low_latency.py) */
static const char *const trtllm_defaults_latency[] = {
    "--max-concurrency", "1", "--kv-cache-free-gpu-mem-fraction", "0.90", NULL};

const cli_dropin_tool cli_dropin_tools[] = {
    {"vllm bench serve",
     NULL,
     NULL,
     false,
     "serve",
     "vllm",
     "vllm-project/vllm vllm/benchmarks/serve.py, vllm/benchmarks/datasets.py",
     CLI_DROPIN_ABBREV | CLI_DROPIN_UNDERSCORE,
     {cli_dropin_vllm_serve, cli_dropin_vllm_dataset},
     vllm_defaults_serve,
     cli_dropin_vllm_finish},
    {"vllm bench throughput",
     NULL,
     NULL,
     false,
     "serve",
     "vllm",
     "vllm-project/vllm vllm/benchmarks/throughput.py, vllm/engine/arg_utils.py",
     CLI_DROPIN_ABBREV | CLI_DROPIN_UNDERSCORE,
     {cli_dropin_vllm_throughput, cli_dropin_vllm_engine},
     vllm_defaults_throughput,
     cli_dropin_vllm_finish},
    {"vllm bench latency",
     NULL,
     NULL,
     false,
     "run",
     "vllm",
     "vllm-project/vllm vllm/benchmarks/latency.py, vllm/engine/arg_utils.py",
     CLI_DROPIN_ABBREV | CLI_DROPIN_UNDERSCORE,
     {cli_dropin_vllm_latency, cli_dropin_vllm_engine},
     vllm_defaults_latency,
     cli_dropin_vllm_finish},
    {"python3 -m sglang.bench_serving",
     NULL,
     NULL,
     false,
     "serve",
     "sglang",
     "sgl-project/sglang python/sglang/bench_serving.py",
     CLI_DROPIN_ABBREV,
     {cli_dropin_sglang_serving},
     sglang_defaults_serving,
     cli_dropin_sglang_finish},
    {"python3 -m sglang.bench_one_batch",
     NULL,
     NULL,
     false,
     "run",
     "sglang",
     "sgl-project/sglang python/sglang/bench_one_batch.py, python/sglang/srt/server_args.py",
     CLI_DROPIN_ABBREV,
     {cli_dropin_sglang_one_batch, cli_dropin_sglang_server},
     sglang_defaults_one_batch,
     cli_dropin_sglang_finish},
    {"trtllm-bench",
     "throughput",
     NULL,
     false,
     "serve",
     "trtllm",
     "NVIDIA/TensorRT-LLM tensorrt_llm/bench/benchmark/throughput.py, "
     "tensorrt_llm/commands/bench.py",
     CLI_DROPIN_UNDERSCORE,
     {cli_dropin_trtllm_bench},
     trtllm_defaults,
     cli_dropin_trtllm_finish},
    {"trtllm-bench",
     "latency",
     NULL,
     false,
     "serve",
     "trtllm",
     "NVIDIA/TensorRT-LLM tensorrt_llm/bench/benchmark/low_latency.py, "
     "tensorrt_llm/commands/bench.py",
     CLI_DROPIN_UNDERSCORE,
     {cli_dropin_trtllm_bench},
     trtllm_defaults_latency,
     cli_dropin_trtllm_finish},
    {"python3 -m tensorrt_llm.serve.scripts.benchmark_serving",
     NULL,
     NULL,
     false,
     "serve",
     "trtllm",
     "NVIDIA/TensorRT-LLM tensorrt_llm/serve/scripts/benchmark_serving.py (vLLM's rows)",
     CLI_DROPIN_ABBREV,
     {cli_dropin_vllm_serve, cli_dropin_vllm_dataset, cli_dropin_trtllm_serving},
     trtllm_serving_defaults,
     cli_dropin_vllm_finish},
    /* the servers: their launch line alone serves infersim's default workload */
    {"vllm serve",
     NULL,
     "--model",
     true,
     "serve",
     "vllm",
     "vllm-project/vllm vllm/entrypoints/openai/cli_args.py, vllm/engine/arg_utils.py",
     CLI_DROPIN_ABBREV | CLI_DROPIN_UNDERSCORE,
     {cli_dropin_vllm_server, cli_dropin_vllm_engine},
     vllm_defaults_serve,
     cli_dropin_vllm_finish},
    {"python3 -m sglang.launch_server",
     NULL,
     NULL,
     true,
     "serve",
     "sglang",
     "sgl-project/sglang python/sglang/srt/server_args.py",
     CLI_DROPIN_ABBREV,
     {cli_dropin_sglang_launch, cli_dropin_sglang_server},
     vllm_defaults_serve,
     cli_dropin_sglang_finish},
    {"trtllm-serve",
     NULL,
     "--model",
     true,
     "serve",
     "trtllm",
     "NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py",
     CLI_DROPIN_UNDERSCORE,
     {cli_dropin_trtllm_serve},
     trtllm_serve_defaults,
     cli_dropin_trtllm_serve_finish},
};
const size_t cli_dropin_tool_count = sizeof cli_dropin_tools / sizeof cli_dropin_tools[0];

/* Whether word `w` of the line is `want` ("python3" is also python, python3.12). */
static bool word_is(const char *w, const char *want, size_t len)
{
    if (len == 7 && strncmp(want, "python3", 7) == 0)
        return strncmp(w, "python", 6) == 0 && strspn(w + 6, "0123456789.") == strlen(w + 6);
    return strlen(w) == len && strncmp(w, want, len) == 0;
}

/* The number of leading words of argv[1..] that match tool->words, or 0. */
static int match_words(const cli_dropin_tool *tool, int argc, char **argv)
{
    const char *p = tool->words;
    int i = 1;
    while (*p) {
        size_t len = strcspn(p, " ");
        if (i >= argc || !word_is(argv[i], p, len))
            return 0;
        i++;
        p += len;
        p += strspn(p, " ");
    }
    return i;
}

/* The index of the tool's subcommand word in argv, or 0 (none needed: -1 when missing). */
static int find_sub(const cli_dropin_tool *tool, int argc, char **argv, int first)
{
    if (!tool->sub)
        return 0;
    for (int i = first; i < argc; i++)
        if (strcmp(argv[i], tool->sub) == 0)
            return i;
    return -1;
}

const cli_dropin_tool *cli_dropin_find_tool(int argc, char **argv)
{
    for (size_t i = 0; i < cli_dropin_tool_count; i++) {
        const cli_dropin_tool *t = &cli_dropin_tools[i];
        int first = match_words(t, argc, argv);
        if (first && find_sub(t, argc, argv, first) >= 0)
            return t;
    }
    return NULL;
}

bool cli_dropin_is_tool(int argc, char **argv)
{
    if (argc < 2)
        return false;
    const char *w = argv[1];
    return strcmp(w, "vllm") == 0 || strcmp(w, "trtllm-bench") == 0 ||
           strcmp(w, "trtllm-serve") == 0 || word_is(w, "python3", 7);
}

static sim_status translate(int argc, char **argv, cli_dropin_line *t, sim_err *err);

sim_status cli_dropin_translate(int argc, char **argv, cli_dropin_line *t, sim_err *err)
{
    memset(t, 0, sizeof *t);
    sim_status st = translate(argc, argv, t, err);
    if (st) /* the words pushed before the failure */
        cli_dropin_line_free(t);
    return st;
}

static sim_status translate(int argc, char **argv, cli_dropin_line *t, sim_err *err)
{
    const cli_dropin_tool *tool = cli_dropin_find_tool(argc, argv);
    if (!tool) {
        char have[512] = "";
        for (size_t i = 0; i < cli_dropin_tool_count; i++)
            snprintf(have + strlen(have), sizeof have - strlen(have), "%s'%s%s%s'", i ? ", " : "",
                     cli_dropin_tools[i].words, cli_dropin_tools[i].sub ? " " : "",
                     cli_dropin_tools[i].sub ? cli_dropin_tools[i].sub : "");
        char typed[256] = ""; /* the words before the first flag */
        for (int i = 1; i < argc && argv[i][0] != '-' && i < 4; i++)
            snprintf(typed + strlen(typed), sizeof typed - strlen(typed), "%s%s", i > 1 ? " " : "",
                     argv[i]);
        return sim_fail(err, SIM_EINPUT,
                        "'%s': not an engine command line infersim reads%s; expected %s", typed,
                        strcmp(argv[1], "trtllm-bench") == 0
                            ? " (trtllm-bench needs its command: throughput or latency)"
                            : "",
                        have);
    }
    t->tool = tool;
    int first = match_words(tool, argc, argv), sub = find_sub(tool, argc, argv, first);
    t->in_argc = argc;
    t->in_argv = argv;
    t->in_first = first;
    sim_status st = cli_dropin_push(t, "infersim", tool->cmd, err);
    for (int i = first; !st && i < argc; i++) {
        const char *a = argv[i];
        if (i == sub)
            continue;
        const char *eq = a[0] == '-' ? strchr(a, '=') : NULL;
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        bool pass = false;
        for (size_t p = 0; p < sizeof passthrough / sizeof passthrough[0]; p++)
            if (strlen(passthrough[p]) == len && strncmp(a, passthrough[p], len) == 0)
                pass = true;
        if (pass) { /* infersim's own flag: --hw h100-sxm */
            if (!eq && i + 1 >= argc)
                return sim_fail(err, SIM_EINPUT, "%.*s: missing value", (int)len, a);
            if (len == 8 && strncmp(a, "--engine", 8) == 0)
                cli_dropin_drop(t, "--engine"); /* --engine wins over a --backend's engine */
            st = cli_dropin_push(t, a, eq ? NULL : argv[++i], err);
            continue;
        }
        if (!cli_dropin_is_flag(a) && tool->positional && !cli_dropin_has(t, tool->positional)) {
            /* trtllm-serve's click group also takes `trtllm-serve serve MODEL` */
            if (strcmp(a, "serve") == 0 && strcmp(tool->words, "trtllm-serve") == 0 &&
                i + 1 < argc && !cli_dropin_is_flag(argv[i + 1]))
                continue;
            st = cli_dropin_push(t, tool->positional, a, err);
            continue;
        }
        if (!cli_dropin_is_flag(a))
            return sim_fail(err, SIM_EINPUT,
                            "%s: unexpected argument '%s' (every value follows its flag)",
                            tool->words, a);
        st = cli_dropin_take_flag(t, argc, argv, &i, sub, err);
    }
    if (!st && tool->finish)
        st = tool->finish(t, err);
    /* pairs; a flag without a value is followed by NULL, then the next pair */
    for (const char *const *d = tool->defaults; !st && d[0]; d += 2)
        if (!cli_dropin_has(t, d[0]) && !(strcmp(d[0], "--enable-chunked-prefill") == 0 &&
                                          cli_dropin_has(t, "--no-chunked-prefill")))
            st = cli_dropin_push(t, d[0], d[1], err);
    if (!st && !cli_dropin_has(t, "--engine"))
        st = cli_dropin_push(t, "--engine", tool->engine, err);
    return st;
}

static const char *act_text(const cli_dropin_flag *r, char *buf, size_t len)
{
    switch (r->act) {
    case CLI_DROPIN_MAP:
    case CLI_DROPIN_CALL:
        snprintf(buf, len, "%s", r->to);
        break;
    case CLI_DROPIN_NONE:
        snprintf(buf, len, "no effect");
        break;
    case CLI_DROPIN_REFUSE:
        snprintf(buf, len, "refused");
        break;
    }
    return buf;
}

void cli_dropin_help(FILE *f, const cli_dropin_tool *tool)
{
    fprintf(f,
            "usage: infersim %s%s%s [its flags] --hw H\n"
            "  %s's flags as %s reads them (%s), translated into 'infersim %s' flags;\n"
            "  also --hw, --format, --uncertainty, --html, --chrome-trace, --engine\n",
            tool->words, tool->sub ? " " : "", tool->sub ? tool->sub : "", tool->words, tool->words,
            tool->source, tool->cmd);
    for (int k = 0; k < CLI_DROPIN_MAX_TABLES && tool->tables[k]; k++)
        for (const cli_dropin_flag *r = tool->tables[k]; r->name; r++) {
            char buf[160], name[96];
            snprintf(name, sizeof name, "%s%s%s", r->name, r->alias ? ", " : "",
                     r->alias ? r->alias : "");
            fprintf(f, "  %-34s %s: %s\n", name, act_text(r, buf, sizeof buf), r->note);
        }
    /* TensorRT-LLM's tools: the keys their --extra_llm_api_options file may hold */
    if (strcmp(tool->engine, "trtllm") != 0)
        return;
    fprintf(f, "  --extra_llm_api_options FILE.yaml keys (dotted: nested):\n");
    for (const cli_dropin_flag *r = cli_dropin_trtllm_options; r->name; r++) {
        char buf[160];
        fprintf(f, "    %-42s %s: %s\n", r->name, act_text(r, buf, sizeof buf), r->note);
    }
}

/* The rows of `tables` (NULL-ended) by what they do: mapped, no effect, refused (a limit the
 * command does not take, `mask`, has no effect there). */
static void markdown_rows(FILE *f, const cli_dropin_flag *const *tables, int mask)
{
    static const char *const what[] = {"mapped onto infersim's flags",
                                       "accepted, no effect on the prediction",
                                       "refused: they change the timing, not modelled"};
    for (int o = 0; o < 3; o++) {
        int n = 0;
        for (int k = 0; k < CLI_DROPIN_MAX_TABLES && tables[k]; k++)
            for (const cli_dropin_flag *r = tables[k]; r->name; r++) {
                bool takes = r->act != CLI_DROPIN_MAP || cli_opt_find(r->to, mask);
                int kind = r->act == CLI_DROPIN_REFUSE           ? 2
                           : r->act == CLI_DROPIN_NONE || !takes ? 1
                                                                 : 0;
                if (kind != o)
                    continue;
                fprintf(f, "%s`%s`", n++ ? ", " : "- ", r->name);
                if (kind == 0)
                    fprintf(f, " → `%s`", r->to);
            }
        if (n)
            fprintf(f, " (%s)\n", what[o]);
    }
}

void cli_dropin_markdown(FILE *f)
{
    for (size_t i = 0; i < cli_dropin_tool_count; i++) {
        const cli_dropin_tool *tool = &cli_dropin_tools[i];
        int mask = strcmp(tool->cmd, "run") == 0 ? CLI_OPT_CMD_RUN : CLI_OPT_CMD_SERVE;
        fprintf(f, "\n**`infersim %s%s%s`** → `infersim %s` (flags from %s):\n\n", tool->words,
                tool->sub ? " " : "", tool->sub ? tool->sub : "", tool->cmd, tool->source);
        markdown_rows(f, tool->tables, mask);
    }
    const cli_dropin_flag *const options[] = {cli_dropin_trtllm_options, NULL};
    fprintf(f, "\n**TensorRT-LLM's `--extra_llm_api_options FILE.yaml`** (trtllm-bench, "
               "trtllm-serve; keys from NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py, a "
               "dotted key a nested one):\n\n");
    markdown_rows(f, options, CLI_OPT_CMD_SERVE);
}
