/* cli_dropin_sglang.c - SGLang's benchmark flags: python/sglang/bench_serving.py (its argparse
 * block, sgl-project/sglang commit 0033168f), python/sglang/bench_one_batch.py (BenchArgs) and
 * the server's arguments, python/sglang/srt/server_args.py (ServerArgs.add_cli_args). argparse
 * takes a unique prefix (--random-input for --random-input-len); '_' is not '-' here. */
#define _POSIX_C_SOURCE 200809L
#include "cli_dropin.h"
#include "cli_dropin_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sim_status keep(cli_dropin_line *t, const char *f, const char *v, int64_t *out, sim_err *err)
{
    (void)t;
    return cli_dropin_count(f, v, out, err);
}
static sim_status tp(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    return keep(t, f, v, &t->tp, err);
}
static sim_status dp(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    return keep(t, f, v, &t->dp, err);
}
static sim_status ep(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    return keep(t, f, v, &t->ep, err);
}
static sim_status dp_attention(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)f, (void)v, (void)err;
    t->dp_attention = true;
    return SIM_OK;
}

static sim_status dataset(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    /* random-ids draws random token ids with random's lengths; generated-shared-prefix is
     * groups of prompts sharing a system prompt: vLLM's prefix_repetition shape */
    if (strcmp(v, "sharegpt") != 0 && strcmp(v, "random") != 0 && strcmp(v, "random-ids") != 0 &&
        strcmp(v, "generated-shared-prefix") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: %s %s changes the timing and is not modelled (infersim simulates "
                        "sharegpt's fitted lengths, random, random-ids and "
                        "generated-shared-prefix)",
                        t->tool->words, f, v);
    t->dataset = v;
    return SIM_OK;
}

static sim_status gsp(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    static const char *const names[] = {"--gsp-num-groups", "--gsp-prompts-per-group",
                                        "--gsp-system-prompt-len", "--gsp-question-len",
                                        "--gsp-output-len"};
    int64_t x;
    sim_status st = cli_dropin_count(f, v, &x, err);
    for (int i = 0; !st && i < 5; i++)
        if (strcmp(f, names[i]) == 0)
            t->gsp[i] = v;
    return st;
}

/* --random-range-ratio R: SGLang's own meaning, lengths uniform in [floor(L R), L] */
static sim_status range(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)f;
    return cli_dropin_push(t, "--random-range-floor", v, err);
}

/* a single value of bench_one_batch's nargs="+" lists (several are a grid: infersim sweep) */
static sim_status single(cli_dropin_line *t, const char *f, const char *v, const char *to,
                         sim_err *err)
{
    if (!v)
        return sim_fail(err, SIM_EINPUT, "%s: missing value", f);
    if (strchr(v, ' '))
        return sim_fail(err, SIM_EINPUT,
                        "%s: '%s': one value here (several are a grid: infersim sweep run %s "
                        "A,B,C)",
                        f, v, to);
    return cli_dropin_push(t, to, v, err);
}
static sim_status batch(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    return single(t, f, v, "--batch", err);
}
static sim_status in_len(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    return single(t, f, v, "--input-len", err);
}
static sim_status out_len(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    return single(t, f, v, "--output-len", err);
}

/* --kv-cache-dtype auto|fp8_e5m2|fp8_e4m3|bf16 (server_args.py) */
static sim_status kv_dtype(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    if (strcmp(v, "auto") == 0)
        return cli_dropin_no_effect(t, f);
    if (strncmp(v, "fp8", 3) == 0)
        return cli_dropin_push(t, "--kv-cache-dtype", "fp8", err);
    if (strcmp(v, "bf16") == 0 || strcmp(v, "bfloat16") == 0)
        return cli_dropin_push(t, "--kv-cache-dtype", "bf16", err);
    return sim_fail(err, SIM_EINPUT, "%s: %s %s: expected auto, fp8_e4m3, fp8_e5m2 or bf16",
                    t->tool->words, f, v);
}

/* --quantization: fp8 (W8A8), w8a8_fp8, awq / gptq (4-bit weights), modelopt_fp4; a
 * checkpoint's own method from its quantization_config */
static sim_status quant(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    static const char *const names[] = {"fp8",          "w8a8_fp8",   "awq",
                                        "gptq",         "awq_marlin", "gptq_marlin",
                                        "modelopt_fp4", "mxfp4",      "compressed-tensors",
                                        "modelopt",     NULL};
    static const char *const to[] = {"fp8",  "fp8", "int4",  "int4", "int4",
                                     "int4", "fp4", "mxfp4", NULL,   NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(v, names[i]) == 0)
            return to[i] ? cli_dropin_push(t, "--weight-dtype", to[i], err)
                         : cli_dropin_no_effect(t, f);
    return sim_fail(err, SIM_EINPUT,
                    "%s: %s %s changes the timing and is not modelled (infersim prices fp8, "
                    "w8a8_fp8, awq, gptq, modelopt_fp4, mxfp4 and the checkpoint's own "
                    "quantization_config)",
                    t->tool->words, f, v);
}

static sim_status dtype(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    if (!strcmp(v, "auto") || !strcmp(v, "bfloat16") || !strcmp(v, "float16") || !strcmp(v, "half"))
        return cli_dropin_no_effect(t, f); /* the 16-bit formats run alike */
    return sim_fail(err, SIM_EINPUT,
                    "%s: %s %s changes the timing and is not modelled (16-bit formats only)",
                    t->tool->words, f, v);
}

/* --deepep-mode auto|normal|low_latency: DeepEP's kernels (infersim --moe-a2a) */
static sim_status deepep_mode(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    if (strcmp(v, "auto") != 0 && strcmp(v, "normal") != 0 && strcmp(v, "low_latency") != 0)
        return sim_fail(err, SIM_EINPUT, "%s: %s %s: expected auto, normal or low_latency",
                        t->tool->words, f, v);
    return cli_dropin_push(t, "--moe-a2a", strcmp(v, "low_latency") != 0 ? v : "low-latency", err);
}

static sim_status flag_to(cli_dropin_line *t, const char *to, sim_err *err)
{
    return cli_dropin_has(t, to) ? SIM_OK : cli_dropin_push(t, to, NULL, err);
}
static sim_status no_radix(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)f, (void)v;
    return flag_to(t, "--no-enable-prefix-caching", err);
}
static sim_status no_graph(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)f, (void)v;
    return flag_to(t, "--enforce-eager", err);
}
static sim_status no_overlap(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)f, (void)v;
    return flag_to(t, "--no-async-scheduling", err);
}

/* bench_serving.py: --backend sglang, --dataset-name sharegpt, --num-prompts 1000,
 * --random-input-len 1024, --random-output-len 1024, --random-range-ratio 0.0, --seed 1 */
const cli_dropin_flag cli_dropin_sglang_serving[] = {
    CALL("--backend", NULL, VALUE, cli_dropin_backend, "--engine, --backend, --itl-per-token",
         "sglang (native /generate: ITL per token), sglang-oai, vllm, trt: the engine profile"),
    NONE("--base-url", VALUE, "the server's address"),
    NONE("--host", VALUE, "the server's address"),
    NONE("--port", VALUE, "the server's address"),
    CALL("--dataset-name", NULL, VALUE, dataset, "--dataset-name",
         "sharegpt (its fitted lengths), random, random-ids, generated-shared-prefix"),
    NONE("--dataset-path", VALUE, "the dataset file (sharegpt: its published lengths' fit)"),
    MAP("--model", NULL, VALUE, "--model", "the model"),
    MAP("--tokenizer", NULL, VALUE, "--tokenizer", "recorded only"),
    MAP("--num-prompts", NULL, VALUE, "--num-prompts", "requests"),
    MAP("--sharegpt-output-len", NULL, VALUE, "--sharegpt-output-len",
        "every output N tokens over ShareGPT's prompt lengths"),
    REFUSE("--sharegpt-context-len", VALUE, "ShareGPT requests dropped past a context length"),
    MAP("--random-input-len", NULL, VALUE, "--random-input-len", "prompt tokens"),
    MAP("--random-output-len", NULL, VALUE, "--random-output-len", "output tokens"),
    CALL("--random-range-ratio", NULL, VALUE, range, "--random-range-floor",
         "lengths uniform in [floor(L R), L]"),
    MAP("--request-rate", NULL, VALUE, "--request-rate", "requests/s (Poisson), inf: all at once"),
    MAP("--max-concurrency", NULL, VALUE, "--max-concurrency", "requests in flight at most"),
    NONE("--output-file", VALUE, "the result file"),
    NONE("--output-details", FLAG, "per-request details in the result file"),
    NONE("--disable-tqdm", FLAG, "the progress bar"),
    REFUSE("--disable-stream", FLAG, "non-streamed responses (TTFT is the whole request)"),
    NONE("--return-logprob", FLAG, "logprobs returned"),
    MAP("--seed", NULL, VALUE, "--seed", "the random seed"),
    REFUSE("--disable-ignore-eos", FLAG, "outputs that stop at EOS, before their length"),
    NONE("--extra-request-body", VALUE, "extra request fields (sampling)"),
    NONE("--apply-chat-template", FLAG, "the prompt's chat template"),
    NONE("--profile", FLAG, "the torch profiler on the server"),
    REFUSE("--lora-name", LIST, "LoRA adapters"),
    NONE("--prompt-suffix", VALUE, "a suffix on every prompt"),
    NONE("--pd-separated", FLAG, "the server is disaggregated (simulate it with --disagg)"),
    NONE("--flush-cache", FLAG, "the cache is flushed before the run (it starts empty here)"),
    NONE("--warmup-requests", VALUE, "warm-up requests are not measured"),
    NONE("--tokenize-prompt", FLAG, "prompts sent as token ids"),
    NONE("--plot-throughput", FLAG, "a plot of the throughput"),
    CALL("--gsp-num-groups", NULL, VALUE, gsp, "--prefix-repetition-num-prefixes",
         "system prompts (default 64)"),
    CALL("--gsp-prompts-per-group", NULL, VALUE, gsp, "--num-prompts",
         "prompts per system prompt (default 16)"),
    CALL("--gsp-system-prompt-len", NULL, VALUE, gsp, "--prefix-repetition-prefix-len",
         "system prompt tokens (default 2048)"),
    CALL("--gsp-question-len", NULL, VALUE, gsp, "--prefix-repetition-suffix-len",
         "question tokens (default 128)"),
    CALL("--gsp-output-len", NULL, VALUE, gsp, "--prefix-repetition-output-len",
         "output tokens (default 256)"),
    END};

/* bench_one_batch.py BenchArgs */
const cli_dropin_flag cli_dropin_sglang_one_batch[] = {
    NONE("--run-name", VALUE, "the run's name"),
    CALL("--batch-size", NULL, LIST, batch, "--batch", "sequences (one value)"),
    CALL("--input-len", NULL, LIST, in_len, "--input-len", "prompt tokens (one value)"),
    CALL("--output-len", NULL, LIST, out_len, "--output-len", "output tokens (one value)"),
    NONE("--result-filename", VALUE, "the result file"),
    REFUSE("--correctness-test", FLAG, "a correctness run, not a timed one"),
    NONE("--cut-len", VALUE, "the correctness test's cut"),
    NONE("--log-decode-step", VALUE, "logging"),
    NONE("--profile", FLAG, "the torch profiler"),
    NONE("--profile-filename-prefix", VALUE, "the profiler's files"),
    END};

/* server_args.py ServerArgs (also python3 -m sglang.launch_server's) */
const cli_dropin_flag cli_dropin_sglang_server[] = {
    MAP("--model-path", "--model", VALUE, "--model", "the model"),
    NONE("--tokenizer-path", VALUE, "the tokenizer"),
    NONE("--trust-remote-code", FLAG, "loading the model's code"),
    NONE("--host", VALUE, "the server's address"),
    NONE("--port", VALUE, "the server's address"),
    NONE("--load-format", VALUE, "how weights are loaded"),
    NONE("--download-dir", VALUE, "where weights are stored"),
    NONE("--log-level", VALUE, "logging"),
    NONE("--random-seed", VALUE, "the server's seed"),
    NONE("--nnodes", VALUE, "how the GPUs are spread over nodes"),
    NONE("--node-rank", VALUE, "how the GPUs are spread over nodes"),
    NONE("--dist-init-addr", VALUE, "how the GPUs are spread over nodes"),
    CALL("--tensor-parallel-size", "--tp-size", VALUE, tp, "--tp", "tensor-parallel GPUs"),
    CALL("--tp", NULL, VALUE, tp, "--tp", "tensor-parallel GPUs"),
    CALL("--data-parallel-size", "--dp-size", VALUE, dp, "--dp, --replicas",
         "with --enable-dp-attention: attention DP groups; without: engine copies"),
    CALL("--dp", NULL, VALUE, dp, "--dp, --replicas", "the same"),
    CALL("--expert-parallel-size", "--ep-size", VALUE, ep, "--ep", "expert-parallel GPUs"),
    CALL("--ep", NULL, VALUE, ep, "--ep", "the same"),
    MAP("--pipeline-parallel-size", "--pp-size", VALUE, "--pp", "pipeline stages"),
    CALL("--enable-dp-attention", NULL, FLAG, dp_attention, "--dp-attention",
         "attention data-parallel"),
    MAP("--mem-fraction-static", NULL, VALUE, "--mem-fraction-static", "the memory fraction"),
    MAP("--max-running-requests", NULL, VALUE, "--max-running-requests", "requests per iteration"),
    MAP("--chunked-prefill-size", NULL, VALUE, "--chunked-prefill-size", "the prefill budget"),
    REFUSE("--max-prefill-tokens", VALUE, "a prefill budget apart from the chunk size"),
    REFUSE("--max-total-tokens", VALUE, "a KV pool sized in tokens"),
    MAP("--context-length", NULL, VALUE, "--max-model-len", "the context limit"),
    MAP("--page-size", NULL, VALUE, "--block-size", "KV-cache tokens per page"),
    CALL("--kv-cache-dtype", NULL, VALUE, kv_dtype, "--kv-cache-dtype", "auto, fp8_e4m3, bf16"),
    CALL("--quantization", NULL, VALUE, quant, "--weight-dtype", "fp8, awq, gptq, ..."),
    CALL("--dtype", NULL, VALUE, dtype, "(16-bit only)", "auto, bfloat16, float16: alike"),
    MAP("--schedule-policy", NULL, VALUE, "--schedule-policy", "fcfs or lpm"),
    MAP("--schedule-conservativeness", NULL, VALUE, "--schedule-conservativeness",
        "the new-token reservation"),
    CALL("--disable-radix-cache", NULL, FLAG, no_radix, "--no-enable-prefix-caching",
         "no prefix cache"),
    CALL("--disable-cuda-graph", NULL, FLAG, no_graph, "--enforce-eager", "no CUDA graphs"),
    MAP("--cuda-graph-max-bs", NULL, VALUE, "--cuda-graph-max-bs", "largest graphed batch"),
    CALL("--disable-overlap-schedule", NULL, FLAG, no_overlap, "--no-async-scheduling",
         "no CPU/GPU overlap"),
    MAP("--enable-two-batch-overlap", NULL, FLAG, "--enable-two-batch-overlap",
        "two-batch overlap"),
    CALL("--deepep-mode", NULL, VALUE, deepep_mode, "--moe-a2a", "DeepEP's kernels"),
    MAP("--ep-num-redundant-experts", NULL, VALUE, "--redundant-experts", "EPLB's replicas"),
    MAP("--stream-interval", NULL, VALUE, "--stream-interval", "tokens per streamed chunk"),
    MAP("--tokenizer-worker-num", NULL, VALUE, "--tokenizer-worker-num", "front-end processes"),
    MAP("--speculative-algorithm", NULL, VALUE, "--speculative-algorithm",
        "EAGLE, EAGLE3, NEXTN, ..."),
    MAP("--speculative-num-steps", NULL, VALUE, "--speculative-num-steps", "draft depth"),
    MAP("--speculative-eagle-topk", NULL, VALUE, "--speculative-eagle-topk", "tree width"),
    MAP("--speculative-num-draft-tokens", NULL, VALUE, "--speculative-num-draft-tokens",
        "verified tokens"),
    MAP("--speculative-draft-model-path", NULL, VALUE, "--speculative-draft-model-path",
        "the draft model"),
    REFUSE("--attention-backend", VALUE, "the attention kernels' library"),
    REFUSE("--enable-torch-compile", FLAG, "torch.compile"),
    REFUSE("--enable-mixed-chunk", FLAG, "prefill chunks mixed with decodes"),
    REFUSE("--enable-eplb", FLAG, "expert rebalancing while serving"),
    REFUSE("--lora-paths", LIST, "LoRA adapters"),
    END};

/* python3 -m sglang.launch_server's flags beyond the engine's (server_args.py) */
const cli_dropin_flag cli_dropin_sglang_launch[] = {
    /* prepare_server_args merges the file (python/sglang/srt/server_args_config_parser.py) */
    CALL("--config", NULL, VALUE, cli_dropin_config, "(its keys as flags)",
         "a YAML file of flags, key: value (the line's own flags win)"),
    NONE("--tool-call-parser", VALUE, "tool calls"),
    NONE("--reasoning-parser", VALUE, "reasoning output"),
    NONE("--chat-template", VALUE, "the chat template"),
    NONE("--api-key", VALUE, "authentication"),
    NONE("--served-model-name", VALUE, "the model's name in the API"),
    NONE("--enable-metrics", FLAG, "metrics"),
    NONE("--log-requests", FLAG, "logging"),
    NONE("--tool-server", VALUE, "tool calls"),
    NONE("--base-gpu-id", VALUE, "which GPUs"),
    NONE("--watchdog-timeout", VALUE, "a hang watchdog"),
    NONE("--skip-server-warmup", FLAG, "the server's warm-up request"),
    NONE("--enable-cache-report", FLAG, "cached-token counts in responses"),
    NONE("--torch-compile-max-bs", VALUE, "used only with --enable-torch-compile (refused)"),
    REFUSE("--cuda-graph-bs", LIST, "the batch sizes captured in CUDA graphs"),
    REFUSE("--disaggregation-mode", VALUE, "a prefill or decode instance (simulate with --disagg)"),
    REFUSE("--json-model-override-args", VALUE, "a changed model config"),
    END};

sim_status cli_dropin_sglang_finish(cli_dropin_line *t, sim_err *err)
{
    sim_status st = SIM_OK;
    char buf[32];
    bool serve = strcmp(t->tool->cmd, "serve") == 0;
    if (t->tp) {
        snprintf(buf, sizeof buf, "%lld", (long long)t->tp);
        st = cli_dropin_push(t, "--tp", buf, err);
    }
    if (!st && t->ep) {
        snprintf(buf, sizeof buf, "%lld", (long long)t->ep);
        st = cli_dropin_push(t, "--ep", buf, err);
    }
    /* SGLang: --tp N --dp N --enable-dp-attention is N GPUs, attention data-parallel over them
     * (infersim's --dp reads it so); --dp without it is N engines behind the router */
    if (!st && t->dp_attention) {
        st = cli_dropin_push(t, "--dp-attention", NULL, err);
        if (!st && t->dp) {
            snprintf(buf, sizeof buf, "%lld", (long long)t->dp);
            st = cli_dropin_push(t, "--dp", buf, err);
        }
    } else if (!st && t->dp > 1) {
        if (!serve)
            return sim_fail(err, SIM_EINPUT,
                            "%s: --dp %lld without --enable-dp-attention: a static batch runs "
                            "on one engine",
                            t->tool->words, (long long)t->dp);
        snprintf(buf, sizeof buf, "%lld", (long long)t->dp);
        st = cli_dropin_push(t, "--replicas", buf, err);
    }
    if (st || !serve || t->tool->server) /* a server's line: no workload */
        return st;
    const char *ds = t->dataset ? t->dataset : "sharegpt";
    bool gsp_given = false;
    for (int i = 0; i < 5; i++)
        gsp_given |= t->gsp[i] != NULL;
    if (gsp_given && strcmp(ds, "generated-shared-prefix") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: --gsp-*: needs --dataset-name "
                        "generated-shared-prefix",
                        t->tool->words);
    if (strcmp(ds, "generated-shared-prefix") == 0) {
        /* bench_serving.py sample_generated_shared_prefix_requests: groups x prompts per group
         * requests, each a group's system prompt then its own question (defaults 64, 16, 2048,
         * 128, 256); --num-prompts is not read for it */
        static const char *const def[] = {"64", "16", "2048", "128", "256"};
        const char *g[5];
        for (int i = 0; i < 5; i++)
            g[i] = t->gsp[i] ? t->gsp[i] : def[i];
        long long n = 1;
        int64_t a = 0, b = 0;
        st = cli_dropin_count("--gsp-num-groups", g[0], &a, err);
        if (!st)
            st = cli_dropin_count("--gsp-prompts-per-group", g[1], &b, err);
        if (st)
            return st;
        n = (long long)a * (long long)b;
        if (cli_dropin_drop(t, "--num-prompts")) /* not read for it: listed instead */
            cli_dropin_no_effect(t, "--num-prompts");
        snprintf(buf, sizeof buf, "%lld", n);
        const char *to[] = {"--prefix-repetition-num-prefixes", "--num-prompts",
                            "--prefix-repetition-prefix-len", "--prefix-repetition-suffix-len",
                            "--prefix-repetition-output-len"};
        st = cli_dropin_push(t, "--dataset-name", "prefix_repetition", err);
        for (int i = 0; !st && i < 5; i++)
            st = cli_dropin_push(t, to[i], i == 1 ? buf : g[i], err);
    } else if (strcmp(ds, "sharegpt") == 0) {
        st = cli_dropin_push(t, "--dataset-name", "sharegpt", err);
        static const char *const random_only[] = {"--random-input-len", "--random-output-len",
                                                  "--random-range-floor"};
        /* bench_serving reads the random flags only for the random datasets */
        for (size_t i = 0; !st && i < 3; i++)
            if (cli_dropin_drop(t, random_only[i]))
                st = cli_dropin_no_effect(t, random_only[i]);
    } else {
        st = cli_dropin_push(t, "--dataset-name", "random", err);
        if (!st && !cli_dropin_has(t, "--random-output-len"))
            st = cli_dropin_push(t, "--random-output-len", "1024", err); /* SGLang's default */
        if (!st && !cli_dropin_has(t, "--random-range-floor"))
            st = cli_dropin_push(t, "--random-range-floor", "0", err); /* SGLang's 0.0 */
    }
    /* the native backend's ITL: each chunk's gap once per token it holds */
    const char *b = t->backend ? t->backend : "sglang";
    if (!st && (strcmp(b, "sglang") == 0 || strcmp(b, "sglang-native") == 0))
        st = cli_dropin_push(t, "--itl-per-token", NULL, err);
    return st;
}
