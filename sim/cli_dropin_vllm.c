/* cli_dropin_vllm.c - vLLM's benchmark flags (`vllm bench serve|throughput|latency`), read from
 * vllm-project/vllm: vllm/benchmarks/serve.py (add_cli_args, commit def9ce85),
 * vllm/benchmarks/datasets.py (add_dataset_parser, add_random_dataset_base_args),
 * vllm/benchmarks/throughput.py (add_cli_args, commit 1a91bc2d), vllm/benchmarks/latency.py (commit
 * 7142f6ae: --input-len 32, --output-len 128, --batch-size 8, prefix caching off) and
 * the engine arguments of vllm/engine/arg_utils.py (EngineArgs.add_cli_args). vLLM's
 * FlexibleArgumentParser takes '_' for '-' in a flag's name; argparse takes a unique prefix. */
#define _POSIX_C_SOURCE 200809L
#include "cli_dropin.h"
#include "cli_dropin_internal.h"

#include <stdio.h>
#include <string.h>

/* A value that is one of `names` (NULL-terminated), or -1. */
static int pick(const char *v, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

static sim_status add_none(cli_dropin_line *t, const char *flag)
{
    return cli_dropin_no_effect(t, flag);
}

const char *cli_dropin_backend_engine(const char *b)
{
    /* vllm bench serve's request functions (vllm/benchmarks/lib/endpoint_request_func.py),
     * SGLang bench_serving's (sglang, sglang-native, sglang-oai, sglang-oai-chat, vllm,
     * vllm-chat, trt: Triton's TensorRT-LLM ensemble endpoint), vllm bench throughput's (vllm,
     * vllm-chat, hf), trtllm-bench's (pytorch, _autodeploy, tensorrt: TensorRT-LLM's own
     * runtime) */
    static const char *const names[] = {
        "openai", "openai-chat",   "vllm",        "vllm-chat",       "openai-audio",
        "sglang", "sglang-native", "sglang-oai",  "sglang-oai-chat", "tensorrt-llm",
        "trt",    "pytorch",       "_autodeploy", "tensorrt",        "hf",
        NULL};
    static const char *const engine[] = {"vllm",          "vllm",   "vllm",   "vllm",   "vllm",
                                         "sglang",        "sglang", "sglang", "sglang", "trtllm",
                                         "trtllm-triton", "trtllm", "trtllm", "trtllm", "hf"};
    int i = pick(b, names);
    return i < 0 ? NULL : engine[i];
}

sim_status cli_dropin_backend(cli_dropin_line *t, const char *flag, const char *v, sim_err *err)
{
    const char *e = cli_dropin_backend_engine(v);
    /* an OpenAI-compatible client names no engine: the tool's own (TensorRT-LLM's
     * benchmark_serving.py --backend openai against trtllm-serve) */
    if (e && strncmp(v, "openai", 6) == 0)
        e = t->tool->engine;
    if (!e)
        return sim_fail(err, SIM_EINPUT,
                        "%s: %s '%s' names an engine infersim has no profile for (it has vllm, "
                        "sglang, trtllm, hf)",
                        t->tool->words, flag, v);
    t->backend = v;
    /* a benchmark's --backend is recorded in serve's --save-result file */
    sim_status st = strcmp(t->tool->cmd, "serve") == 0 && !t->tool->server &&
                            strcmp(t->tool->words, "trtllm-bench") != 0
                        ? cli_dropin_push(t, "--backend", v, err)
                        : SIM_OK;
    return st                              ? st
           : cli_dropin_has(t, "--engine") ? SIM_OK
                                           : cli_dropin_push(t, "--engine", e, err);
}

static sim_status keep_int(const char *flag, const char *v, int64_t *out, sim_err *err)
{
    return cli_dropin_count(flag, v, out, err);
}

static sim_status tp(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    return keep_int(f, v, &t->tp, err);
}
static sim_status dp(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    return keep_int(f, v, &t->dp, err);
}
static sim_status ep_on(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)f, (void)v, (void)err;
    t->expert_parallel = true;
    return SIM_OK;
}
static sim_status input_len(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)f, (void)err;
    t->input_len = v;
    return SIM_OK;
}
static sim_status output_len(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)f, (void)err;
    t->output_len = v;
    return SIM_OK;
}

/* --dataset-name: the workloads vLLM's datasets produce (vllm/benchmarks/datasets.py): random,
 * prefix_repetition, sharegpt (its fitted lengths), sonnet (a shared prefix of poem lines and
 * lines drawn at random after it: prefix_repetition with one prefix), burstgpt (the trace's GPT-4
 * rows, --dataset-path), custom (a JSONL file of prompts, --dataset-path: read when its lines carry
 * their lengths in tokens, lenfile.h); the prompts of spec_bench and hf are text, counted by a
 * tokenizer */
static sim_status dataset(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    static const char *const ok[] = {
        "random", "prefix_repetition", "sharegpt", "sonnet", "burstgpt", "hf", "custom", NULL};
    static const char *const text[] = {"spec_bench", NULL};
    if (pick(v, text) >= 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: %s %s changes the timing and is not modelled (its prompts are text: "
                        "their lengths need the model's tokenizer; give them as a --lengths-file "
                        "or take a dataset infersim simulates: random, prefix_repetition, "
                        "sharegpt, sonnet, burstgpt, custom)",
                        t->tool->words, f, v);
    int i = pick(v, ok);
    if (i < 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: %s %s changes the timing and is not modelled (infersim simulates "
                        "random, prefix_repetition, sharegpt's fitted lengths, sonnet, "
                        "burstgpt and custom)",
                        t->tool->words, f, v);
    if (i >= 3 && strcmp(t->tool->words, "vllm bench serve") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: %s %s changes the timing and is not modelled here (vllm bench "
                        "serve's %s is)",
                        t->tool->words, f, v, v);
    t->dataset = v;
    return SIM_OK;
}

static sim_status dataset_path(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)f, (void)err;
    t->dataset_path = v;
    return SIM_OK;
}

/* --hf-output-len: every output N tokens (a Hugging Face dataset's own completions otherwise) */
static sim_status hf_output_len(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    int64_t n;
    sim_status st = cli_dropin_count(f, v, &n, err);
    if (!st)
        t->hf_output_len = v;
    return st;
}

/* --custom-output-len: every output N tokens of the custom dataset (its lines' own otherwise) */
static sim_status custom_output_len(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    int64_t n;
    sim_status st = cli_dropin_count(f, v, &n, err);
    if (!st)
        t->custom_output_len = v;
    return st;
}

/* The Hugging Face datasets vllm bench serve --dataset-name hf reads whose requests infersim has
 * a length fit for (datasets.py's dataset classes by SUPPORTED_DATASET_PATHS): ConversationDataset
 * takes each conversation's first turn, prompt and completion, as ShareGPT's fit does. */
static const char *const hf_known[][2] = {{"Aeala/ShareGPT_Vicuna_unfiltered", "sharegpt"}};

/* --sonnet-input-len, --sonnet-output-len, --sonnet-prefix-len (datasets.py: 550, 150, 200) */
static sim_status sonnet(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    int64_t n;
    sim_status st = cli_dropin_count(f, v, &n, err);
    int k = strstr(f, "input") ? 0 : strstr(f, "output") ? 1 : 2;
    if (!st)
        t->sonnet[k] = v;
    return st;
}

/* an argument that must stay at its no-op value ("0", "1") to be simulated */
static sim_status only(cli_dropin_line *t, const char *f, const char *v, const char *noop,
                       sim_err *err)
{
    if (strcmp(v, noop) == 0)
        return add_none(t, f);
    return sim_fail(err, SIM_EINPUT, "%s: %s %s changes the timing and is not modelled (only %s)",
                    t->tool->words, f, v, noop);
}
static sim_status zero(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    return only(t, f, v, "0", err);
}
static sim_status one(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    return only(t, f, v, "1", err);
}

/* --dtype: the 16-bit formats run alike; the checkpoint's quantization keeps its own */
static sim_status dtype(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    static const char *const same[] = {"auto", "bfloat16", "float16", "half", "bf16", "fp16", NULL};
    if (pick(v, same) >= 0)
        return add_none(t, f);
    return sim_fail(err, SIM_EINPUT,
                    "%s: %s %s changes the timing and is not modelled (16-bit formats only)",
                    t->tool->words, f, v);
}

/* --quantization: vLLM's online fp8 is W8A8 (fp8 activations on fp8 tensor cores); AWQ and
 * GPTQ are 4-bit weights (vllm/model_executor/layers/quantization); a checkpoint's own method
 * (compressed-tensors, modelopt, ...) is its quantization_config, read from the model file */
static sim_status quant(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    static const char *const names[] = {"fp8",
                                        "awq",
                                        "gptq",
                                        "awq_marlin",
                                        "gptq_marlin",
                                        "mxfp4",
                                        "modelopt_fp4",
                                        "compressed-tensors",
                                        "modelopt",
                                        "fbgemm_fp8",
                                        NULL};
    static const char *const to[] = {"fp8",   "int4", "int4", "int4", "int4",
                                     "mxfp4", "fp4",  NULL,   NULL,   "fp8"};
    int i = pick(v, names);
    if (i < 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: %s %s changes the timing and is not modelled (infersim prices fp8, "
                        "awq, gptq, mxfp4, modelopt_fp4 and the checkpoint's own "
                        "quantization_config)",
                        t->tool->words, f, v);
    t->quant = v;
    return to[i] ? cli_dropin_push(t, "--weight-dtype", to[i], err) : add_none(t, f);
}

/* --kv-cache-dtype auto|fp8|fp8_e4m3|fp8_e5m2|bfloat16 (vllm/config/cache.py CacheDType) */
static sim_status kv_dtype(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    if (strcmp(v, "auto") == 0)
        return add_none(t, f);
    if (strncmp(v, "fp8", 3) == 0)
        return cli_dropin_push(t, "--kv-cache-dtype", "fp8", err);
    if (strcmp(v, "bfloat16") == 0 || strcmp(v, "float16") == 0 || strcmp(v, "half") == 0)
        return cli_dropin_push(t, "--kv-cache-dtype", v[0] == 'b' ? "bf16" : "fp16", err);
    return sim_fail(err, SIM_EINPUT,
                    "%s: %s %s: expected auto, fp8, fp8_e4m3, fp8_e5m2 or "
                    "bfloat16",
                    t->tool->words, f, v);
}

/* --disable-custom-all-reduce: NCCL's all-reduce instead of vLLM's custom kernel */
static sim_status no_custom_ar(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)f, (void)v;
    return cli_dropin_push(t, "--allreduce", "nccl", err);
}

/* the client's flags: vllm bench serve (serve.py add_cli_args) */
const cli_dropin_flag cli_dropin_vllm_serve[] = {
    MAP("--model", NULL, VALUE, "--model", "the model"),
    CALL("--backend", NULL, VALUE, cli_dropin_backend, "--engine, --backend",
         "the request API; an engine's (vllm, openai, sglang, tensorrt-llm) picks its profile"),
    MAP("--label", NULL, VALUE, "--label", "names the result file"),
    MAP("--max-concurrency", NULL, VALUE, "--max-concurrency", "requests in flight at most"),
    CALL("--input-len", NULL, VALUE, input_len, "--random-input-len",
         "the dataset's input length (random)"),
    CALL("--output-len", NULL, VALUE, output_len,
         "--random-output-len, --prefix-repetition-output-len, --sharegpt-output-len",
         "the dataset's output length"),
    MAP("--tokenizer", NULL, VALUE, "--tokenizer", "recorded in the result file"),
    MAP("--request-rate", NULL, VALUE, "--request-rate", "requests/s, inf: all at t = 0"),
    MAP("--burstiness", NULL, VALUE, "--burstiness", "the gamma arrivals' shape"),
    MAP("--save-result", NULL, FLAG, "--save-result", "writes vLLM's result JSON"),
    MAP("--result-dir", NULL, VALUE, "--result-dir", "the result file's folder"),
    MAP("--result-filename", NULL, VALUE, "--result-filename", "the result file's name"),
    MAP("--percentile-metrics", NULL, VALUE, "--percentile-metrics", "metrics reported"),
    MAP("--metric-percentiles", NULL, VALUE, "--metric-percentiles", "percentiles reported"),
    MAP("--goodput", NULL, LIST, "--goodput", "SLOs of request_goodput"),
    MAP("--ignore-eos", NULL, FLAG, "--ignore-eos",
        "every request generates its output length (as infersim always does)"),
    NONE("--base-url", VALUE, "the server's address"),
    NONE("--host", VALUE, "the server's address"),
    NONE("--port", VALUE, "the server's address"),
    NONE("--endpoint", VALUE, "the API path"),
    NONE("--header", LIST, "HTTP headers"),
    NONE("--tokenizer-mode", VALUE, "the tokenizer's implementation"),
    NONE("--trust-remote-code", FLAG, "loading code for the tokenizer"),
    NONE("--disable-tqdm", FLAG, "the progress bar"),
    NONE("--num-warmups", VALUE, "warm-up requests are not measured"),
    NONE("--profile", FLAG, "the torch profiler on the server"),
    NONE("--save-detailed", FLAG, "per-request lists in the result file (not written)"),
    NONE("--append-result", FLAG, "appends to the result file"),
    NONE("--metadata", LIST, "KEY=VALUE pairs recorded in the result file"),
    NONE("--request-id-prefix", VALUE, "request ids"),
    NONE("--logprobs", VALUE, "logprobs returned per token"),
    NONE("--top-p", VALUE, "sampling"),
    NONE("--top-k", VALUE, "sampling"),
    NONE("--min-p", VALUE, "sampling"),
    NONE("--temperature", VALUE, "sampling"),
    NONE("--frequency-penalty", VALUE, "sampling"),
    NONE("--presence-penalty", VALUE, "sampling"),
    NONE("--repetition-penalty", VALUE, "sampling"),
    NONE("--served-model-name", VALUE, "the model's name in the API"),
    NONE("--ready-check-timeout-sec", VALUE, "waiting for the server"),
    NONE("--extra-body", VALUE, "extra request fields"),
    NONE("--plot-timeline", FLAG, "a plot of the requests (vllm/benchmarks/timeline_plot.py)"),
    CALL("--common-prefix-len", NULL, VALUE, zero, "(0 only)",
         "a prefix shared by all prompts: only 0 is simulated"),
    REFUSE("--use-beam-search", FLAG, "beam search"),
    REFUSE("--lora-modules", LIST, "LoRA adapters"),
    REFUSE("--ramp-up-strategy", VALUE, "a request rate that ramps up"),
    REFUSE("--ramp-up-start-rps", VALUE, "a request rate that ramps up"),
    REFUSE("--ramp-up-end-rps", VALUE, "a request rate that ramps up"),
    END};

/* the dataset flags of vllm bench serve (datasets.py add_dataset_parser) */
const cli_dropin_flag cli_dropin_vllm_dataset[] = {
    MAP("--seed", NULL, VALUE, "--seed", "the lengths' and arrivals' random seed"),
    MAP("--num-prompts", NULL, VALUE, "--num-prompts", "requests"),
    CALL("--dataset-name", NULL, VALUE, dataset, "--dataset-name",
         "random, prefix_repetition, sharegpt (its fitted lengths), sonnet, burstgpt, custom "
         "(lines with their lengths); the others are refused"),
    CALL("--dataset-path", NULL, VALUE, dataset_path, "--lengths-file",
         "burstgpt: the trace's CSV; custom: its JSONL (the others: no effect; sharegpt: its "
         "published lengths' fit)"),
    NONE("--no-stream", FLAG, "loading the dataset"),
    NONE("--no-oversample", FLAG, "oversampling a short dataset"),
    NONE("--skip-chat-template", FLAG, "the prompt's chat template"),
    NONE("--enable-multimodal-chat", FLAG, "multimodal chat formatting"),
    NONE("--disable-shuffle", FLAG, "the dataset's order"),
    MAP("--random-input-len", NULL, VALUE, "--random-input-len", "prompt tokens"),
    MAP("--random-output-len", NULL, VALUE, "--random-output-len", "output tokens"),
    MAP("--random-range-ratio", NULL, VALUE, "--random-range-ratio",
        "lengths uniform in [L(1-R), L(1+R)]"),
    CALL("--random-prefix-len", NULL, VALUE, zero, "(0 only)",
         "a fixed prefix before the random tokens: only 0 is simulated"),
    CALL("--random-batch-size", NULL, VALUE, one, "(1 only)", "embeddings batches: only 1"),
    MAP("--prefix-repetition-prefix-len", NULL, VALUE, "--prefix-repetition-prefix-len",
        "shared prefix tokens"),
    MAP("--prefix-repetition-suffix-len", NULL, VALUE, "--prefix-repetition-suffix-len",
        "own tokens after it"),
    MAP("--prefix-repetition-num-prefixes", NULL, VALUE, "--prefix-repetition-num-prefixes",
        "distinct prefixes"),
    MAP("--prefix-repetition-output-len", NULL, VALUE, "--prefix-repetition-output-len",
        "output tokens"),
    MAP("--sharegpt-output-len", NULL, VALUE, "--sharegpt-output-len",
        "every output N tokens over ShareGPT's prompt lengths"),
    CALL("--custom-output-len", NULL, VALUE, custom_output_len, "--custom-output-len",
         "custom: every output N tokens (the lines' output_len otherwise)"),
    CALL("--sonnet-input-len", NULL, VALUE, sonnet, "--prefix-repetition-suffix-len",
         "sonnet: prompt tokens (default 550)"),
    CALL("--sonnet-output-len", NULL, VALUE, sonnet, "--prefix-repetition-output-len",
         "sonnet: output tokens (default 150)"),
    CALL("--sonnet-prefix-len", NULL, VALUE, sonnet, "--prefix-repetition-prefix-len",
         "sonnet: the prompts' shared prefix tokens (default 200)"),
    NONE("--hf-subset", VALUE, "the Hugging Face dataset's subset (its fit stands for it)"),
    NONE("--hf-split", VALUE, "the Hugging Face dataset's split (its fit stands for it)"),
    NONE("--hf-name", VALUE, "the dataset class's name for a local copy"),
    CALL("--hf-output-len", NULL, VALUE, hf_output_len, "--sharegpt-output-len",
         "hf: every output N tokens"),
    REFUSE("--spec-bench-output-len", VALUE, "the spec_bench dataset"),
    REFUSE("--spec-bench-category", VALUE, "the spec_bench dataset"),
    END};

/* the engine's arguments (vllm/engine/arg_utils.py), as vllm bench throughput|latency and
 * vllm serve take them */
const cli_dropin_flag cli_dropin_vllm_engine[] = {
    MAP("--model", NULL, VALUE, "--model", "the model"),
    CALL("--tensor-parallel-size", "-tp", VALUE, tp, "--tp", "tensor-parallel GPUs"),
    MAP("--pipeline-parallel-size", "-pp", VALUE, "--pp", "pipeline stages"),
    CALL("--data-parallel-size", "-dp", VALUE, dp, "--replicas, --dp",
         "engine copies; with --enable-expert-parallel, attention data-parallel groups"),
    CALL("--enable-expert-parallel", NULL, FLAG, ep_on, "--ep, --dp-attention",
         "experts split over the TP x DP GPUs"),
    CALL("--dtype", NULL, VALUE, dtype, "(16-bit only)", "auto, bfloat16, float16: alike"),
    CALL("--quantization", "-q", VALUE, quant, "--weight-dtype",
         "fp8 (W8A8), awq / gptq (int4), mxfp4, modelopt_fp4"),
    CALL("--kv-cache-dtype", NULL, VALUE, kv_dtype, "--kv-cache-dtype", "auto, fp8, bfloat16"),
    MAP("--max-model-len", NULL, VALUE, "--max-model-len", "the context limit"),
    MAP("--gpu-memory-utilization", NULL, VALUE, "--gpu-memory-utilization", "the memory fraction"),
    MAP("--max-num-seqs", NULL, VALUE, "--max-num-seqs", "requests per iteration"),
    MAP("--max-num-batched-tokens", NULL, VALUE, "--max-num-batched-tokens",
        "tokens per iteration"),
    MAP("--block-size", NULL, VALUE, "--block-size", "KV-cache tokens per block"),
    MAP("--enable-prefix-caching", NULL, FLAG, "--enable-prefix-caching", "prefix caching"),
    MAP("--no-enable-prefix-caching", NULL, FLAG, "--no-enable-prefix-caching",
        "no prefix caching"),
    MAP("--enable-chunked-prefill", NULL, FLAG, "--enable-chunked-prefill", "chunked prefill"),
    MAP("--no-enable-chunked-prefill", NULL, FLAG, "--no-chunked-prefill", "whole prompts"),
    MAP("--enforce-eager", NULL, FLAG, "--enforce-eager", "no CUDA graphs"),
    MAP("--speculative-config", NULL, VALUE, "--speculative-config", "speculative decoding"),
    MAP("--async-scheduling", NULL, FLAG, "--async-scheduling", "the CPU runs ahead"),
    MAP("--enable-dbo", NULL, FLAG, "--enable-dbo", "dual-batch overlap"),
    MAP("--disable-hybrid-kv-cache-manager", NULL, FLAG, "--disable-hybrid-kv-cache-manager",
        "sliding-window KV at full length"),
    MAP("--stream-interval", NULL, VALUE, "--stream-interval", "tokens per streamed chunk"),
    CALL("--disable-custom-all-reduce", NULL, FLAG, no_custom_ar, "--allreduce nccl",
         "NCCL's all-reduce"),
    MAP("--seed", NULL, VALUE, "--seed", "the random seed"),
    NONE("--tokenizer", VALUE, "the tokenizer"),
    NONE("--tokenizer-mode", VALUE, "the tokenizer's implementation"),
    NONE("--trust-remote-code", FLAG, "loading the model's code"),
    NONE("--download-dir", VALUE, "where weights are stored"),
    NONE("--load-format", VALUE, "how weights are loaded"),
    NONE("--revision", VALUE, "the checkpoint's revision"),
    NONE("--served-model-name", LIST, "the model's name in the API"),
    NONE("--disable-log-stats", FLAG, "logging"),
    NONE("--disable-log-requests", FLAG, "logging"),
    NONE("--max-logprobs", VALUE, "logprobs limit"),
    NONE("--swap-space", VALUE, "CPU swap space (vLLM V1 recomputes preempted requests)"),
    NONE("--distributed-executor-backend", VALUE, "how GPU workers are launched"),
    NONE("--limit-mm-per-prompt", VALUE, "multimodal inputs"),
    REFUSE("--cpu-offload-gb", VALUE, "weights offloaded to the CPU"),
    REFUSE("--compilation-config", VALUE, "torch.compile and CUDA-graph settings"),
    REFUSE("-O", VALUE, "torch.compile and CUDA-graph settings"),
    REFUSE("--kv-cache-memory-bytes", VALUE, "a KV cache sized in bytes"),
    REFUSE("--enable-lora", FLAG, "LoRA adapters"),
    REFUSE("--max-lora-rank", VALUE, "LoRA adapters"),
    REFUSE("--num-scheduler-steps", VALUE, "multi-step scheduling (vLLM V0)"),
    REFUSE("--long-prefill-token-threshold", VALUE, "partial prefills"),
    REFUSE("--max-num-partial-prefills", VALUE, "partial prefills"),
    REFUSE("--hf-overrides", VALUE, "a changed model config"),
    END};

/* --all2all-backend: DeepEP's kernels (vllm/config/parallel.py All2AllBackend) */
static sim_status a2a(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    if (strcmp(v, "deepep_low_latency") == 0)
        return cli_dropin_push(t, "--moe-a2a", "low-latency", err);
    if (strcmp(v, "deepep_high_throughput") == 0)
        return cli_dropin_push(t, "--moe-a2a", "normal", err);
    return sim_fail(err, SIM_EINPUT,
                    "%s: %s %s changes the timing and is not modelled (deepep_low_latency and "
                    "deepep_high_throughput are)",
                    t->tool->words, f, v);
}

/* vllm serve's own flags (vllm/entrypoints/openai/cli_args.py make_arg_parser) */
const cli_dropin_flag cli_dropin_vllm_server[] = {
    NONE("--host", VALUE, "the server's address"),
    NONE("--port", VALUE, "the server's address"),
    NONE("--uvicorn-log-level", VALUE, "logging"),
    NONE("--api-key", VALUE, "authentication"),
    NONE("--chat-template", VALUE, "the chat template"),
    NONE("--response-role", VALUE, "the chat response's role"),
    NONE("--enable-auto-tool-choice", FLAG, "tool calls"),
    NONE("--tool-call-parser", VALUE, "tool calls"),
    NONE("--tool-server", VALUE, "tool calls"),
    NONE("--reasoning-parser", VALUE, "reasoning output"),
    NONE("--enable-log-outputs", FLAG, "logging"),
    NONE("--max-log-len", VALUE, "logging"),
    NONE("--allowed-local-media-path", VALUE, "multimodal inputs"),
    NONE("--mm-processor-kwargs", VALUE, "multimodal inputs"),
    NONE("--generation-config", VALUE, "default sampling"),
    NONE("--headless", FLAG, "a worker node without the API server"),
    NONE("--data-parallel-size-local", VALUE, "DP ranks on this node"),
    NONE("--data-parallel-address", VALUE, "DP ranks' addresses"),
    NONE("--data-parallel-rpc-port", VALUE, "DP ranks' addresses"),
    NONE("--data-parallel-start-rank", VALUE, "DP ranks' numbering"),
    MAP("--api-server-count", NULL, VALUE, "--api-server-count", "front-end processes"),
    MAP("--max-cudagraph-capture-size", NULL, VALUE, "--cuda-graph-max-bs",
        "largest batch captured in a CUDA graph"),
    CALL("--all2all-backend", NULL, VALUE, a2a, "--moe-a2a", "DeepEP's kernels under EP"),
    CALL("--config", NULL, VALUE, cli_dropin_config, "(its keys as flags)",
         "a YAML file of flags, key: value (the line's own flags win)"),
    REFUSE("--cuda-graph-sizes", LIST, "the batch sizes captured in CUDA graphs"),
    REFUSE("--attention-backend", VALUE, "the attention kernels' library"),
    REFUSE("--enable-eplb", FLAG, "expert rebalancing while serving"),
    REFUSE("--eplb-config", VALUE, "expert rebalancing while serving"),
    END};

/* vllm bench throughput's own flags (throughput.py add_cli_args) */
const cli_dropin_flag cli_dropin_vllm_throughput[] = {
    CALL("--backend", NULL, VALUE, cli_dropin_backend, "--engine", "vllm, vllm-chat or hf"),
    CALL("--dataset-name", NULL, VALUE, dataset, "--dataset-name",
         "random, prefix_repetition, sharegpt (its fitted lengths)"),
    NONE("--dataset", VALUE, "the ShareGPT file (its published lengths' fit)"),
    CALL("--dataset-path", NULL, VALUE, dataset_path, "--lengths-file",
         "the dataset file (no effect: sharegpt takes its published lengths' fit)"),
    CALL("--input-len", NULL, VALUE, input_len, "--random-input-len", "prompt tokens"),
    CALL("--output-len", NULL, VALUE, output_len,
         "--random-output-len, --prefix-repetition-output-len, --sharegpt-output-len",
         "output tokens"),
    CALL("--n", NULL, VALUE, one, "(1 only)", "sequences per prompt: only 1"),
    MAP("--num-prompts", NULL, VALUE, "--num-prompts", "requests, all at t = 0"),
    REFUSE("--hf-max-batch-size", VALUE, "the hf backend's batches"),
    NONE("--output-json", VALUE, "a result file"),
    NONE("--async-engine", FLAG, "the engine's front end"),
    NONE("--disable-frontend-multiprocessing", FLAG, "the engine's front end"),
    NONE("--disable-detokenize", FLAG, "detokenization (offline: not priced)"),
    REFUSE("--lora-path", VALUE, "LoRA adapters"),
    CALL("--prefix-len", NULL, VALUE, zero, "(0 only)", "a fixed prefix: only 0"),
    MAP("--random-range-ratio", NULL, VALUE, "--random-range-ratio",
        "lengths uniform in [L(1-R), L(1+R)]"),
    REFUSE("--hf-subset", VALUE, "Hugging Face datasets"),
    REFUSE("--hf-split", VALUE, "Hugging Face datasets"),
    NONE("--profile", FLAG, "the torch profiler"),
    MAP("--prefix-repetition-prefix-len", NULL, VALUE, "--prefix-repetition-prefix-len",
        "shared prefix tokens"),
    MAP("--prefix-repetition-suffix-len", NULL, VALUE, "--prefix-repetition-suffix-len",
        "own tokens after it"),
    MAP("--prefix-repetition-num-prefixes", NULL, VALUE, "--prefix-repetition-num-prefixes",
        "distinct prefixes"),
    MAP("--prefix-repetition-output-len", NULL, VALUE, "--prefix-repetition-output-len",
        "output tokens"),
    END};

/* vllm bench latency's own flags (latency.py add_cli_args: --input-len 32, --output-len 128,
 * --batch-size 8, --n 1, --num-iters-warmup 10, --num-iters 30) */
const cli_dropin_flag cli_dropin_vllm_latency[] = {
    MAP("--input-len", NULL, VALUE, "--input-len", "prompt tokens"),
    MAP("--output-len", NULL, VALUE, "--output-len", "output tokens"),
    MAP("--batch-size", NULL, VALUE, "--batch", "sequences"),
    CALL("--n", NULL, VALUE, one, "(1 only)", "sequences per prompt: only 1"),
    REFUSE("--use-beam-search", FLAG, "beam search"),
    NONE("--num-iters-warmup", VALUE, "warm-up iterations are not measured"),
    NONE("--num-iters", VALUE, "repetitions of the same batch"),
    NONE("--profile", FLAG, "the torch profiler"),
    NONE("--output-json", VALUE, "a result file"),
    NONE("--disable-detokenize", FLAG, "detokenization (offline: not priced)"),
    END};

/* SonnetDataset (datasets.py): each prompt the chat template, "Pick as many lines as you can from
 * these poem lines:", the poem's first lines up to the prefix length (the same in every prompt)
 * and lines drawn at random up to the input length, a prompt past it drawn again; every output
 * the output length. As infersim's prefix_repetition with one prefix: PREFIX tokens shared,
 * INPUT - PREFIX of the request's own, OUTPUT generated (token counts as the flags give them: the
 * tokenizer's rounding to whole lines, at most a line's tokens below INPUT, is left out).
 * --input-len and --output-len set the input and output where the --sonnet-* flags do not. */
static sim_status sonnet_workload(cli_dropin_line *t, sim_err *err)
{
    const char *in = t->sonnet[0] ? t->sonnet[0] : t->input_len ? t->input_len : "550";
    const char *out = t->sonnet[1] ? t->sonnet[1] : t->output_len ? t->output_len : "150";
    const char *pre = t->sonnet[2] ? t->sonnet[2] : "200";
    int64_t i, p, o;
    sim_status st = cli_dropin_count("--sonnet-input-len", in, &i, err);
    if (!st)
        st = cli_dropin_count("--sonnet-prefix-len", pre, &p, err);
    if (!st)
        st = cli_dropin_count("--sonnet-output-len", out, &o, err);
    if (st)
        return st;
    if (i <= p)
        return sim_fail(err, SIM_EINPUT,
                        "%s: --dataset-name sonnet: input length %lld, expected more than the "
                        "prefix length %lld",
                        t->tool->words, (long long)i, (long long)p);
    char suffix[32];
    snprintf(suffix, sizeof suffix, "%lld", (long long)(i - p));
    const char *flags[][2] = {{"--dataset-name", "prefix_repetition"},
                              {"--prefix-repetition-num-prefixes", "1"},
                              {"--prefix-repetition-prefix-len", pre},
                              {"--prefix-repetition-suffix-len", suffix},
                              {"--prefix-repetition-output-len", out}};
    for (size_t k = 0; !st && k < sizeof flags / sizeof flags[0]; k++)
        st = cli_dropin_push(t, flags[k][0], flags[k][1], err);
    return st;
}

/* CustomDataset (datasets.py): the first --num-prompts lines of a JSONL file of {"prompt": TEXT},
 * each prompt's tokens counted by the tokenizer, every output --custom-output-len. infersim has no
 * tokenizer: each line must carry its prompt's tokens ("prompt_len", lenfile.h) and, unless
 * --custom-output-len is given, its output's ("output_len"); a text-only line is refused, naming
 * it. --input-len and --output-len set none of it (serve.py passes custom_output_len). */
static sim_status custom_workload(cli_dropin_line *t, sim_err *err)
{
    if (!t->dataset_path)
        return sim_fail(err, SIM_EINPUT,
                        "%s: --dataset-name custom: needs --dataset-path FILE.jsonl (one "
                        "{\"prompt_len\": N, \"output_len\": M} a line)",
                        t->tool->words);
    sim_status st = cli_dropin_push(t, "--lengths-file", t->dataset_path, err);
    if (!st && t->custom_output_len)
        st = cli_dropin_push(t, "--custom-output-len", t->custom_output_len, err);
    if (!st && t->input_len)
        st = add_none(t, "--input-len");
    if (!st && t->output_len)
        st = add_none(t, "--output-len");
    return st;
}

sim_status cli_dropin_vllm_finish(cli_dropin_line *t, sim_err *err)
{
    sim_status st = SIM_OK;
    char buf[32];
    bool serve = strcmp(t->tool->cmd, "serve") == 0;
    int64_t tpn = t->tp ? t->tp : 1, dpn = t->dp ? t->dp : 1;
    if (t->tp) {
        snprintf(buf, sizeof buf, "%lld", (long long)tpn);
        st = cli_dropin_push(t, "--tp", buf, err);
    }
    /* vLLM's expert parallelism: the experts over TP x DP GPUs, attention data-parallel over the
     * DP ranks (docs/serving/expert_parallel_deployment.md); without it, DP ranks are engines */
    if (!st && t->expert_parallel) {
        snprintf(buf, sizeof buf, "%lld", (long long)tpn * (long long)dpn);
        st = cli_dropin_push(t, "--ep", buf, err);
        if (!st && dpn > 1) {
            snprintf(buf, sizeof buf, "%lld", (long long)dpn);
            st = cli_dropin_push(t, "--dp-attention", NULL, err);
            if (!st)
                st = cli_dropin_push(t, "--dp", buf, err);
        }
    } else if (!st && dpn > 1) {
        if (!serve)
            return sim_fail(err, SIM_EINPUT,
                            "%s: --data-parallel-size %lld: a static batch runs on one engine "
                            "(vLLM's offline benchmarks take DP only with an external launcher)",
                            t->tool->words, (long long)dpn);
        snprintf(buf, sizeof buf, "%lld", (long long)dpn);
        st = cli_dropin_push(t, "--replicas", buf, err);
    }
    if (st || !serve || t->tool->server) /* a server's line: no workload */
        return st;
    const char *ds = t->dataset ? t->dataset : "random";
    bool sonnet = strcmp(ds, "sonnet") == 0, burst = strcmp(ds, "burstgpt") == 0;
    bool custom = strcmp(ds, "custom") == 0;
    if (t->dataset_path && !burst && !custom && strcmp(ds, "hf") != 0)
        st = add_none(t, "--dataset-path");
    if (!st && t->custom_output_len && !custom)
        st = add_none(t, "--custom-output-len");
    if (!st && custom)
        return custom_workload(t, err);
    for (int k = 0; !st && !sonnet && k < 3; k++)
        if (t->sonnet[k])
            return sim_fail(err, SIM_EINPUT, "%s: --sonnet-*: needs --dataset-name sonnet",
                            t->tool->words);
    if (!st && sonnet)
        return sonnet_workload(t, err);
    if (!st && t->hf_output_len && strcmp(ds, "hf") != 0)
        return sim_fail(err, SIM_EINPUT, "%s: --hf-output-len: needs --dataset-name hf",
                        t->tool->words);
    if (!st && strcmp(ds, "hf") == 0) {
        size_t k = 0, n = sizeof hf_known / sizeof hf_known[0];
        while (k < n && !(t->dataset_path && strcmp(t->dataset_path, hf_known[k][0]) == 0))
            k++;
        if (k == n)
            return sim_fail(err, SIM_EINPUT,
                            "%s: --dataset-name hf --dataset-path %s changes the timing and is "
                            "not modelled (its prompts are text, their lengths need the model's "
                            "tokenizer; infersim has the lengths of %s)",
                            t->tool->words, t->dataset_path ? t->dataset_path : "(none)",
                            hf_known[0][0]);
        st = cli_dropin_push(t, "--dataset-name", hf_known[k][1], err);
        if (!st && (t->hf_output_len || t->output_len))
            st = cli_dropin_push(t, "--sharegpt-output-len",
                                 t->hf_output_len ? t->hf_output_len : t->output_len, err);
        if (!st && t->input_len)
            st = add_none(t, "--input-len");
        return st;
    }
    if (!st && burst) {
        /* BurstGPTDataset: the trace's GPT-4 rows, --num-prompts of them drawn with --seed; its
         * lengths are the trace's (--input-len, --output-len set none of them) */
        if (!t->dataset_path)
            return sim_fail(err, SIM_EINPUT,
                            "%s: --dataset-name burstgpt: needs --dataset-path FILE.csv (the "
                            "BurstGPT trace, as vLLM does)",
                            t->tool->words);
        st = cli_dropin_push(t, "--lengths-file", t->dataset_path, err);
        if (!st && t->input_len)
            st = add_none(t, "--input-len");
        if (!st && t->output_len)
            st = add_none(t, "--output-len");
        return st;
    }
    if (!st && t->dataset)
        st = cli_dropin_push(t, "--dataset-name", ds, err);
    bool rep = strcmp(ds, "prefix_repetition") == 0, random = strcmp(ds, "random") == 0;
    /* serve.py: --input-len sets random (and sonnet) lengths, --output-len every dataset's */
    if (!st && t->input_len) {
        if (random)
            st = cli_dropin_has(t, "--random-input-len")
                     ? SIM_OK
                     : cli_dropin_push(t, "--random-input-len", t->input_len, err);
        else
            st = add_none(t, "--input-len");
    }
    if (!st && t->output_len) {
        const char *to = rep      ? "--prefix-repetition-output-len"
                         : random ? "--random-output-len"
                                  : "--sharegpt-output-len";
        if (!cli_dropin_has(t, to))
            st = cli_dropin_push(t, to, t->output_len, err);
    }
    return st;
}
