/* cli_dropin_trtllm.c - trtllm-bench's flags: the command group's options
 * (tensorrt_llm/commands/bench.py: --model, --model_path, --workspace, --log_level) and those of
 * its throughput and latency commands (tensorrt_llm/bench/benchmark/throughput.py, commit
 * 56851033, and low_latency.py). They are click options spelled with underscores; '-' is taken
 * for '_' as well. The --dataset file is read for every request's lengths (lenfile.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_dropin.h"
#include "cli_dropin_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "suggest.h"

static sim_status only_one(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    if (strcmp(v, "1") == 0)
        return cli_dropin_no_effect(t, f);
    return sim_fail(err, SIM_EINPUT, "%s: %s %s changes the timing and is not modelled (only 1)",
                    t->tool->words, f, v);
}

/* --eos_id -1 (the default): no EOS, every request generates its output_tokens */
static sim_status eos(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    if (strcmp(v, "-1") == 0)
        return cli_dropin_no_effect(t, f);
    return sim_fail(err, SIM_EINPUT,
                    "%s: %s %s changes the timing and is not modelled (requests that stop at "
                    "EOS; only -1)",
                    t->tool->words, f, v);
}

/* --backend: pytorch (the default), _autodeploy, tensorrt / trt (a built engine): TensorRT-LLM's
 * own runtime either way, its trtllm profile */
static sim_status backend(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    static const char *const ok[] = {"pytorch", "_autodeploy", "tensorrt", "trt", NULL};
    for (int i = 0; ok[i]; i++)
        if (strcmp(v, ok[i]) == 0)
            return cli_dropin_has(t, "--engine") ? SIM_OK
                                                 : cli_dropin_push(t, "--engine", "trtllm", err);
    return sim_fail(err, SIM_EINPUT, "%s: %s %s: expected pytorch, _autodeploy or tensorrt",
                    t->tool->words, f, v);
}

static sim_status dataset(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)f;
    t->dataset = v;
    return cli_dropin_push(t, "--lengths-file", v, err);
}

/* --concurrency N; <= 0: no limit (throughput.py) */
static sim_status concurrency(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    if (v[0] == '-' || strcmp(v, "0") == 0) {
        if (strcmp(t->tool->sub, "latency") == 0)
            return sim_fail(err, SIM_EINPUT, "%s: %s %s: expected >= 1", t->tool->words, f, v);
        return cli_dropin_no_effect(t, f);
    }
    int64_t n;
    sim_status st = cli_dropin_count(f, v, &n, err);
    return st ? st : cli_dropin_push(t, "--max-concurrency", v, err);
}

static sim_status chunked(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    (void)v;
    return cli_dropin_push(
        t, strstr(f, "disable") ? "--no-chunked-prefill" : "--enable-chunked-prefill", NULL, err);
}

/* --extra_llm_api_options FILE.yaml: read once the line's flags are in (its keys win) */
static sim_status extra_options(cli_dropin_line *t, const char *f, const char *v, sim_err *err)
{
    if (t->extra_options)
        return sim_fail(err, SIM_EINPUT, "%s: %s: given twice, expected one file", t->tool->words,
                        f);
    t->extra_options = v;
    return SIM_OK;
}

/* TensorRT-LLM's serving benchmark (tensorrt_llm/serve/scripts/benchmark_serving.py, a fork of
 * vLLM's benchmark_serving.py, NVIDIA/TensorRT-LLM@f61d71d9): vLLM's rows, plus its own. Its
 * random prompts are token ids or ShareGPT text cut to the lengths asked, tokenized where the
 * flags say; infersim's requests have those lengths either way. */
const cli_dropin_flag cli_dropin_trtllm_serving[] = {
    NONE("--random-ids", FLAG, "random token ids instead of ShareGPT text (the same lengths)"),
    NONE("--tokenize-on-client", FLAG, "where the random prompts are tokenized (the same lengths)"),
    NONE("--download-path", VALUE, "where ShareGPT is downloaded"),
    NONE("--download-timeout", VALUE, "the dataset download's timeout"),
    NONE("--custom-tokenizer", VALUE, "the tokenizer class"),
    NONE("--no-test-input", FLAG, "the test request before the run"),
    REFUSE("--non-streaming", FLAG, "responses in one piece (infersim times streamed ones)"),
    END};

const cli_dropin_flag cli_dropin_trtllm_bench[] = {
    /* the command group's */
    MAP("--model", "-m", VALUE, "--model", "the model (its Hugging Face name)"),
    NONE("--model_path", VALUE, "where the checkpoint is (the config comes from --model)"),
    NONE("--workspace", VALUE, "the working folder"), NONE("-w", VALUE, "the working folder"),
    NONE("--log_level", VALUE, "logging"), NONE("--revision", VALUE, "the checkpoint's revision"),
    /* throughput's and latency's */
    NONE("--engine_dir", VALUE, "a built engine (its limits are the flags below)"),
    CALL("--backend", NULL, VALUE, backend, "--engine",
         "pytorch (default), _autodeploy, tensorrt: the engine profile"),
    NONE("--custom_module_dirs", VALUE, "modules imported"),
    CALL("--extra_llm_api_options", NULL, VALUE, extra_options, "(its keys, below)",
         "a YAML file of LLM API settings (its keys win over the flags)"),
    NONE("--sampler_options", VALUE, "sampling"),
    MAP("--max_batch_size", NULL, VALUE, "--max-batch-size", "requests per iteration"),
    MAP("--max_num_tokens", NULL, VALUE, "--max-num-tokens", "tokens per iteration"),
    MAP("--max_seq_len", NULL, VALUE, "--max-model-len", "the context limit"),
    CALL("--beam_width", NULL, VALUE, only_one, "(1 only)", "beam search: only 1"),
    MAP("--kv_cache_free_gpu_mem_fraction", NULL, VALUE, "--kv-cache-free-gpu-mem-fraction",
        "KV cache share of the free memory (default 0.90)"),
    CALL("--dataset", NULL, VALUE, dataset, "--lengths-file",
         "the requests: input_ids and output_tokens per line"),
    NONE("--no_skip_tokenizer_init", FLAG, "the tokenizer"),
    CALL("--eos_id", NULL, VALUE, eos, "(-1 only)", "EOS: only -1 (none)"),
    REFUSE("--modality", VALUE, "multimodal requests"),
    NONE("--image_data_format", VALUE, "multimodal data"),
    NONE("--data_device", VALUE, "multimodal data"),
    NONE("--max_input_len", VALUE, "used only with --modality"),
    MAP("--num_requests", NULL, VALUE, "--num-prompts", "the first N requests of the dataset"),
    NONE("--warmup", VALUE, "warm-up requests are not measured"),
    NONE("--target_input_len", VALUE, "tuning heuristics' input length"),
    NONE("--target_output_len", VALUE, "tuning heuristics' output length"),
    MAP("--tp", NULL, VALUE, "--tp", "tensor-parallel GPUs"),
    MAP("--pp", NULL, VALUE, "--pp", "pipeline stages"),
    MAP("--ep", NULL, VALUE, "--ep", "expert-parallel GPUs"),
    REFUSE("--cluster_size", VALUE, "expert cluster parallelism"),
    CALL("--concurrency", NULL, VALUE, concurrency, "--max-concurrency",
         "requests in flight (throughput: <= 0 no limit; latency: default 1)"),
    NONE("--streaming", FLAG, "streamed responses (the simulation reports TTFT either way)"),
    NONE("--report_json", VALUE, "a result file"), NONE("--iteration_log", VALUE, "a log file"),
    NONE("--output_json", VALUE, "a result file"), NONE("--request_json", VALUE, "a result file"),
    CALL("--enable_chunked_context", NULL, FLAG, chunked, "--enable-chunked-prefill",
         "chunked prefill (the default)"),
    CALL("--disable_chunked_context", NULL, FLAG, chunked, "--no-chunked-prefill", "whole prompts"),
    MAP("--scheduler_policy", NULL, VALUE, "--scheduler-policy",
        "guaranteed_no_evict or max_utilization"),
    REFUSE("--medusa_choices", VALUE, "Medusa's tree (latency)"), END};

/* trtllm-serve MODEL's options (tensorrt_llm/commands/serve.py; its gRPC entry lists the same:
 * --max_batch_size, --max_num_tokens, --max_seq_len, --tp_size, --pp_size, --ep_size,
 * --kv_cache_free_gpu_memory_fraction 0.9, ...) */
const cli_dropin_flag cli_dropin_trtllm_serve[] = {
    NONE("--tokenizer", VALUE, "the tokenizer"),
    NONE("--host", VALUE, "the server's address"),
    NONE("--port", VALUE, "the server's address"),
    CALL("--backend", NULL, VALUE, backend, "--engine", "pytorch (default), trt"),
    NONE("--log_level", VALUE, "logging"),
    CALL("--max_beam_width", NULL, VALUE, only_one, "(1 only)", "beam search: only 1"),
    MAP("--max_batch_size", NULL, VALUE, "--max-batch-size", "requests per iteration"),
    MAP("--max_num_tokens", NULL, VALUE, "--max-num-tokens", "tokens per iteration"),
    MAP("--max_seq_len", NULL, VALUE, "--max-model-len", "the context limit"),
    MAP("--tp_size", NULL, VALUE, "--tp", "tensor-parallel GPUs"),
    MAP("--pp_size", NULL, VALUE, "--pp", "pipeline stages"),
    MAP("--ep_size", NULL, VALUE, "--ep", "expert-parallel GPUs"),
    REFUSE("--cluster_size", VALUE, "expert cluster parallelism"),
    NONE("--gpus_per_node", VALUE, "how the GPUs are spread over nodes"),
    MAP("--kv_cache_free_gpu_memory_fraction", "--free_gpu_memory_fraction", VALUE,
        "--kv-cache-free-gpu-mem-fraction", "KV cache share of the free memory (default 0.9)"),
    NONE("--trust_remote_code", FLAG, "loading the model's code"),
    CALL("--extra_llm_api_options", NULL, VALUE, extra_options, "(its keys, below)",
         "a YAML file of LLM API settings (its keys win over the flags)"),
    NONE("--reasoning_parser", VALUE, "reasoning output"),
    NONE("--tool_parser", VALUE, "tool calls"),
    MAP("--num_postprocess_workers", NULL, VALUE, "--api-server-count",
        "processes that detokenize and stream (the front end's)"),
    NONE("--fail_fast_on_attention_window_too_large", FLAG, "a start-up check"),
    REFUSE("--server_role", VALUE, "a disaggregated instance (simulate with --disagg)"),
    END};

/* ------------------------------------------------------------------------------------------ */
/* The option file's keys (tensorrt_llm/llmapi/llm_args.py at v1.0: TorchLlmArgs and its
 * KvCacheConfig, CudaGraphConfig, SchedulerConfig, MoeConfig). The file's top-level keys replace
 * the command line's settings (llm_args.py update_llm_args_with_extra_dict: llm_args |
 * yaml.safe_load(file)), so a key wins over its flag, and a nested mapping replaces the whole
 * object the flags filled. A key is a dotted path; a row's value is its text, "true" /
 * "false" for a boolean, NULL for null. */

/* `to` off the line, then `to VALUE` (or the flag alone) on it: the file's value wins. */
static sim_status replace(cli_dropin_line *t, const char *to, const char *v, sim_err *err)
{
    cli_dropin_drop(t, to);
    return cli_dropin_push(t, to, v, err);
}

/* A FLAG infersim flag (no value) off the line. */
static void drop_flag(cli_dropin_line *t, const char *flag)
{
    for (int k = 2; k < t->argc; k++)
        if (strcmp(t->argv[k], flag) == 0) {
            free(t->argv[k]);
            memmove(&t->argv[k], &t->argv[k + 1], (size_t)(t->argc - k - 1) * sizeof t->argv[0]);
            t->argc--;
            return;
        }
}

/* A bool key's value: 1 true, 0 false; -1 with the error set. */
static int truth(const cli_dropin_line *t, const char *key, const char *v, sim_err *err)
{
    if (v && strcmp(v, "true") == 0)
        return 1;
    if (v && strcmp(v, "false") == 0)
        return 0;
    sim_fail(err, SIM_EINPUT, "%s: key '%s': value '%s', expected true or false", t->extra_options,
             key, v ? v : "null");
    return -1;
}

/* a bool that sets one of two infersim flags */
static sim_status two_way(cli_dropin_line *t, const char *key, const char *v, const char *on,
                          const char *off, sim_err *err)
{
    int b = truth(t, key, v, err);
    if (b < 0)
        return SIM_EINPUT;
    drop_flag(t, on);
    drop_flag(t, off);
    return cli_dropin_push(t, b ? on : off, NULL, err);
}

static sim_status y_chunked(cli_dropin_line *t, const char *k, const char *v, sim_err *err)
{
    return two_way(t, k, v, "--enable-chunked-prefill", "--no-chunked-prefill", err);
}

static sim_status y_block_reuse(cli_dropin_line *t, const char *k, const char *v, sim_err *err)
{
    return two_way(t, k, v, "--enable-prefix-caching", "--no-enable-prefix-caching", err);
}

/* disable_overlap_scheduler: true runs each step after the last one's host work */
static sim_status y_overlap(cli_dropin_line *t, const char *k, const char *v, sim_err *err)
{
    return two_way(t, k, v, "--no-async-scheduling", "--async-scheduling", err);
}

/* enable_attention_dp: attention data-parallel over the tensor-parallel ranks (each rank its own
 * requests, the MoE layers over the EP group), as SGLang's --enable-dp-attention: --dp-attention
 * --dp TP; applied once every key is in (the TP size may come later in the file) */
static sim_status y_attention_dp(cli_dropin_line *t, const char *k, const char *v, sim_err *err)
{
    int b = truth(t, k, v, err);
    if (b < 0)
        return SIM_EINPUT;
    t->dp_attention = b;
    return SIM_OK;
}

/* A word of the file and the infersim value it stands for (NULL: the flag left off). */
typedef struct word_map {
    const char *from, *to;
} word_map;

/* Value `v` of key `k` looked up in `map`: infersim flag `flag` set to its word; anything else is
 * an error listing `expected`. */
static sim_status map_word(cli_dropin_line *t, const char *k, const char *v, const word_map *map,
                           size_t n, const char *flag, const char *expected, sim_err *err)
{
    for (size_t i = 0; v && i < n; i++)
        if (strcmp(v, map[i].from) == 0) {
            if (map[i].to)
                return replace(t, flag, map[i].to, err);
            cli_dropin_drop(t, flag);
            return SIM_OK;
        }
    return sim_fail(err, SIM_EINPUT, "%s: key '%s': value '%s', expected %s", t->extra_options, k,
                    v ? v : "null", expected);
}

/* kv_cache_config.dtype: auto (the checkpoint's), fp8, or a 16-bit format */
static sim_status y_kv_dtype(cli_dropin_line *t, const char *k, const char *v, sim_err *err)
{
    static const word_map m[] = {
        {"auto", NULL}, {"fp8", "fp8"}, {"bfloat16", "bf16"}, {"float16", "fp16"}};
    return map_word(t, k, v, m, sizeof m / sizeof m[0], "--kv-cache-dtype",
                    "auto, fp8, bfloat16 or float16", err);
}

/* cuda_graph_config: null runs every step eagerly (a mapping: the keys below) */
static sim_status y_graphs(cli_dropin_line *t, const char *k, const char *v, sim_err *err)
{
    if (v)
        return sim_fail(err, SIM_EINPUT, "%s: key '%s': value '%s', expected null or a mapping",
                        t->extra_options, k, v);
    cli_dropin_drop(t, "--cuda-graph-max-bs");
    drop_flag(t, "--enforce-eager");
    return cli_dropin_push(t, "--enforce-eager", NULL, err);
}

/* scheduler_config.capacity_scheduler_policy: GUARANTEED_NO_EVICT or MAX_UTILIZATION
 * (STATIC_BATCH: --scheduler-policy static) */
static sim_status y_policy(cli_dropin_line *t, const char *k, const char *v, sim_err *err)
{
    static const word_map m[] = {{"GUARANTEED_NO_EVICT", "guaranteed_no_evict"},
                                 {"MAX_UTILIZATION", "max_utilization"},
                                 {"STATIC_BATCH", "static"}};
    return map_word(t, k, v, m, sizeof m / sizeof m[0], "--scheduler-policy",
                    "GUARANTEED_NO_EVICT, MAX_UTILIZATION or STATIC_BATCH", err);
}

/* moe_config.backend: CUTLASS and DEEPGEMM are infersim's kernel families of those names; the
 * others (TRTLLM, WIDEEP, CUTEDSL) are other kernels, not modelled */
static sim_status y_moe(cli_dropin_line *t, const char *k, const char *v, sim_err *err)
{
    static const word_map m[] = {{"CUTLASS", "cutlass"}, {"DEEPGEMM", "deepgemm"}};
    return map_word(t, k, v, m, sizeof m / sizeof m[0], "--moe-kernel",
                    "CUTLASS or DEEPGEMM (the other kernels are not modelled)", err);
}

/* speculative_config: the mapping as TensorRT-LLM's JSON (decoding_type MTP, Eagle, ...) */
static sim_status y_spec(cli_dropin_line *t, const char *k, const char *v, sim_err *err)
{
    (void)k;
    if (v)
        return replace(t, "--speculative-config", v, err);
    cli_dropin_drop(t, "--speculative-config"); /* null: no speculation */
    return SIM_OK;
}

static sim_status y_value(cli_dropin_line *t, const cli_dropin_flag *r, const char *v, sim_err *err)
{
    if (!v)
        return sim_fail(err, SIM_EINPUT, "%s: key '%s': null, expected a value", t->extra_options,
                        r->name);
    return replace(t, r->to, v, err);
}

const cli_dropin_flag cli_dropin_trtllm_options[] = {
    MAP("max_batch_size", NULL, VALUE, "--max-batch-size", "requests per iteration"),
    MAP("max_num_tokens", NULL, VALUE, "--max-num-tokens", "tokens per iteration"),
    MAP("max_seq_len", NULL, VALUE, "--max-model-len", "the context limit"),
    /* tp_size, pp_size, ep_size and kv_cache_free_gpu_memory_fraction: trtllm-serve's flag names,
     * as the shipped option files write them (examples/configs/gpt-oss-120b-throughput.yaml
     * @16b3ea33, qwen3.yaml@deecf64; docs/source/deployment-guide/
     * deployment-guide-for-gpt-oss-on-trtllm.md@03e4d74f lists them as YAML options) */
    MAP("tensor_parallel_size", NULL, VALUE, "--tp", "tensor-parallel GPUs"),
    MAP("tp_size", NULL, VALUE, "--tp", "tensor-parallel GPUs"),
    MAP("pipeline_parallel_size", NULL, VALUE, "--pp", "pipeline stages"),
    MAP("pp_size", NULL, VALUE, "--pp", "pipeline stages"),
    MAP("moe_expert_parallel_size", NULL, VALUE, "--ep", "expert-parallel GPUs"),
    MAP("ep_size", NULL, VALUE, "--ep", "expert-parallel GPUs"),
    MAP("kv_cache_free_gpu_memory_fraction", NULL, VALUE, "--kv-cache-free-gpu-mem-fraction",
        "KV cache share of the free memory"),
    CALL("enable_attention_dp", NULL, FLAG, y_attention_dp, "--dp-attention, --dp",
         "attention data-parallel over the TP ranks"),
    CALL("enable_chunked_prefill", NULL, FLAG, y_chunked,
         "--enable-chunked-prefill, --no-chunked-prefill", "chunked prefill"),
    CALL("disable_overlap_scheduler", NULL, FLAG, y_overlap,
         "--no-async-scheduling, --async-scheduling", "the overlap scheduler off"),
    MAP("stream_interval", NULL, VALUE, "--stream-interval", "tokens per streamed chunk"),
    MAP("num_postprocess_workers", NULL, VALUE, "--api-server-count",
        "processes that detokenize and stream"),
    MAP("kv_cache_config.free_gpu_memory_fraction", NULL, VALUE, "--kv-cache-free-gpu-mem-fraction",
        "KV cache share of the free memory"),
    CALL("kv_cache_config.dtype", NULL, VALUE, y_kv_dtype, "--kv-cache-dtype",
         "auto, fp8, bfloat16, float16"),
    CALL("kv_cache_config.enable_block_reuse", NULL, FLAG, y_block_reuse,
         "--enable-prefix-caching, --no-enable-prefix-caching", "prefix reuse"),
    REFUSE("kv_cache_config.max_tokens", VALUE, "a KV cache of a fixed token count"),
    REFUSE("kv_cache_config.host_cache_size", VALUE, "KV blocks offloaded to host memory"),
    /* one block pool per window size (kvCacheManager.cpp calculateMaxNumBlocks), its memory
     * split as the release splits it: README "Model families" */
    REFUSE("kv_cache_config.max_attention_window", LIST,
           "a KV block pool per attention window size (variable sliding-window attention)"),
    CALL("cuda_graph_config", NULL, VALUE, y_graphs, "--enforce-eager",
         "null: no CUDA graphs (a mapping: its keys)"),
    MAP("cuda_graph_config.max_batch_size", NULL, VALUE, "--cuda-graph-max-bs",
        "largest batch captured in a CUDA graph"),
    NONE("cuda_graph_config.enable_padding", FLAG,
         "batches padded to a captured size: not priced either way (every decode batch up to "
         "the largest captured one replays a graph, the trtllm profile's estimate)"),
    REFUSE("cuda_graph_config.batch_sizes", LIST, "graphs captured for listed sizes only"),
    CALL("scheduler_config.capacity_scheduler_policy", NULL, VALUE, y_policy, "--scheduler-policy",
         "GUARANTEED_NO_EVICT, MAX_UTILIZATION, STATIC_BATCH"),
    REFUSE("scheduler_config.context_chunking_policy", VALUE, "the order context chunks run in"),
    CALL("moe_config.backend", NULL, VALUE, y_moe, "--moe-kernel", "CUTLASS or DEEPGEMM"),
    CALL("speculative_config", NULL, VALUE, y_spec, "--speculative-config",
         "the mapping, as TensorRT-LLM's JSON"),
    NONE("print_iter_log", FLAG, "a per-iteration log"),
    NONE("enable_iter_perf_stats", FLAG, "per-iteration statistics"),
    NONE("return_perf_metrics", FLAG, "per-request metrics"),
    NONE("trust_remote_code", FLAG, "loading the model's code"),
    NONE("backend", VALUE, "pytorch (the runtime)"),
    REFUSE("attn_backend", VALUE, "the attention kernels' library"),
    REFUSE("torch_compile_config", VALUE, "torch.compile"),
    REFUSE("lora_config", VALUE, "LoRA adapters"),
    END};

static const cli_dropin_flag *option_row(const char *key)
{
    for (const cli_dropin_flag *r = cli_dropin_trtllm_options; r->name; r++)
        if (strcmp(r->name, key) == 0)
            return r;
    return NULL;
}

/* Whether some row's key lies under `path` ("cuda_graph_config." ...). */
static bool has_keys_under(const char *path)
{
    size_t n = strlen(path);
    for (const cli_dropin_flag *r = cli_dropin_trtllm_options; r->name; r++)
        if (strncmp(r->name, path, n) == 0 && r->name[n] == '.')
            return true;
    return false;
}

static sim_status unknown_key(const char *file, const char *key, sim_err *err)
{
    sim_suggest s;
    sim_suggest_init(&s, key);
    for (const cli_dropin_flag *r = cli_dropin_trtllm_options; r->name; r++)
        sim_suggest_add(&s, r->name);
    char near[4 * SIM_SUGGEST_NAME_MAX + 16];
    bool any = sim_suggest_text(&s, near, sizeof near);
    return sim_fail(err, SIM_EINPUT,
                    "%s: key '%s' is not a setting infersim reads%s%s%s (its keys: 'infersim "
                    "trtllm-serve --help')",
                    file, key, any ? "; did you mean " : "", any ? near : "", any ? "?" : "");
}

/* The keys of mapping `m` under `prefix` ("" at the top), each applied by its row. */
static sim_status apply_keys(cli_dropin_line *t, const cJSON *m, const char *prefix, sim_err *err)
{
    sim_status st = SIM_OK;
    for (const cJSON *it = m->child; !st && it; it = it->next) {
        char key[256], text[2048];
        if (snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", it->string) >=
            (int)sizeof key)
            return sim_fail(err, SIM_EINPUT, "%s: key '%.60s...' is too long", t->extra_options,
                            key);
        const cli_dropin_flag *r = option_row(key);
        if (cJSON_IsObject(it) && (has_keys_under(key) || !r)) {
            if (!has_keys_under(key))
                return unknown_key(t->extra_options, key, err);
            /* the file's mapping replaces the whole object (llm_args | file, at the top level):
             * a flag's value inside it is back to the object's default unless the file sets it
             * (KvCacheConfig's free_gpu_memory_fraction 0.9, the tool's default below;
             * SchedulerConfig's GUARANTEED_NO_EVICT, the engine profile's) */
            static const char *const replaced[][2] = {
                {"kv_cache_config", "--kv-cache-free-gpu-mem-fraction"},
                {"scheduler_config", "--scheduler-policy"}};
            for (size_t k = 0; !*prefix && k < sizeof replaced / sizeof replaced[0]; k++)
                if (strcmp(key, replaced[k][0]) == 0)
                    cli_dropin_drop(t, replaced[k][1]);
            st = apply_keys(t, it, key, err);
            continue;
        }
        if (!r)
            return unknown_key(t->extra_options, key, err);
        const char *v = NULL;
        char *json = NULL;
        if (cJSON_IsBool(it))
            v = cJSON_IsTrue(it) ? "true" : "false";
        else if (cJSON_IsObject(it) || cJSON_IsArray(it))
            v = json = cJSON_PrintUnformatted(it);
        else if (!cJSON_IsNull(it)) {
            if (!cli_dropin_yaml_text(it, text, sizeof text))
                return sim_fail(err, SIM_EINPUT, "%s: key '%s': value too long", t->extra_options,
                                key);
            v = text;
        }
        if ((cJSON_IsObject(it) || cJSON_IsArray(it)) && !json)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        switch (r->act) {
        case CLI_DROPIN_NONE:
            st = cli_dropin_no_effect(t, key);
            break;
        case CLI_DROPIN_REFUSE:
            st = sim_fail(err, SIM_EINPUT,
                          "%s: key '%s' changes the timing and is not modelled "
                          "(%s)",
                          t->extra_options, key, r->note);
            break;
        case CLI_DROPIN_CALL:
            st = r->call(t, key, v, err);
            break;
        case CLI_DROPIN_MAP:
            st = y_value(t, r, v, err);
            break;
        }
        free(json);
    }
    return st;
}

/* The value of infersim flag `flag` on the line, as a count (1 when it gives none). */
static long line_count(const cli_dropin_line *t, const char *flag)
{
    for (int k = 2; k + 1 < t->argc; k++)
        if (strcmp(t->argv[k], flag) == 0)
            return strtol(t->argv[k + 1], NULL, 10);
    return 1;
}

/* Attention DP over the TP size N (llm_args.py enable_attention_dp: each rank its own requests,
 * attention unsplit): with the experts over the same N GPUs (moe_expert_parallel_size N),
 * infersim's --tp 1 --ep N --dp-attention; with the MoE layers split by TP (TensorRT-LLM's default
 * moe_tp_size = tp_size), --tp N --dp N --dp-attention, as SGLang's layout; at TP 1 nothing. */
static sim_status attention_dp(cli_dropin_line *t, sim_err *err)
{
    long tp = line_count(t, "--tp"), ep = line_count(t, "--ep");
    char buf[32];
    if (tp <= 1)
        return cli_dropin_no_effect(t, "enable_attention_dp");
    if (ep > 1 && ep != tp)
        return sim_fail(err, SIM_EINPUT,
                        "%s: enable_attention_dp with tensor_parallel_size %ld and "
                        "moe_expert_parallel_size %ld: experts split both ways under attention "
                        "DP are not modelled (expected EP = TP, or EP 1)",
                        t->extra_options, tp, ep);
    drop_flag(t, "--dp-attention");
    cli_dropin_drop(t, "--dp");
    sim_status st = cli_dropin_push(t, "--dp-attention", NULL, err);
    snprintf(buf, sizeof buf, "%ld", tp);
    if (!st && ep > 1)
        st = replace(t, "--tp", "1", err);
    else if (!st)
        st = cli_dropin_push(t, "--dp", buf, err);
    return st;
}

/* The option file's keys over the line's flags, then attention DP (its TP size known). */
static sim_status apply_options(cli_dropin_line *t, sim_err *err)
{
    if (!t->extra_options)
        return SIM_OK;
    cJSON *cfg = NULL;
    sim_status st = cli_dropin_yaml_load(t->extra_options, "--extra_llm_api_options", &cfg, err);
    if (!st)
        st = apply_keys(t, cfg, "", err);
    cJSON_Delete(cfg);
    if (!st && t->dp_attention)
        st = attention_dp(t, err);
    return st;
}

sim_status cli_dropin_trtllm_serve_finish(cli_dropin_line *t, sim_err *err)
{
    return apply_options(t, err);
}

sim_status cli_dropin_trtllm_finish(cli_dropin_line *t, sim_err *err)
{
    sim_status st = apply_options(t, err);
    if (st)
        return st;
    if (!t->dataset)
        return sim_fail(err, SIM_EINPUT,
                        "%s %s: needs --dataset FILE (trtllm-bench reads standard input "
                        "otherwise; write one with prepare_dataset.py)",
                        t->tool->words, t->tool->sub);
    return SIM_OK;
}
