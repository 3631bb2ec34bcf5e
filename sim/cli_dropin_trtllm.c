/* cli_dropin_trtllm.c - trtllm-bench's flags: the command group's options
 * (tensorrt_llm/commands/bench.py: --model, --model_path, --workspace, --log_level) and those of
 * its throughput and latency commands (tensorrt_llm/bench/benchmark/throughput.py, commit
 * 56851033, and low_latency.py). They are click options spelled with underscores; '-' is taken
 * for '_' as well. The --dataset file is read for every request's lengths (lenfile.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_dropin.h"
#include "cli_dropin_internal.h"

#include <stdio.h>
#include <string.h>

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
    REFUSE("--extra_llm_api_options", VALUE,
           "a YAML file of LLM API settings, not read: give its settings as flags"),
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
    REFUSE("--extra_llm_api_options", VALUE,
           "a YAML file of LLM API settings, not read: give its settings as flags"),
    NONE("--reasoning_parser", VALUE, "reasoning output"),
    NONE("--tool_parser", VALUE, "tool calls"),
    MAP("--num_postprocess_workers", NULL, VALUE, "--api-server-count",
        "processes that detokenize and stream (the front end's)"),
    NONE("--fail_fast_on_attention_window_too_large", FLAG, "a start-up check"),
    REFUSE("--server_role", VALUE, "a disaggregated instance (simulate with --disagg)"),
    END};

sim_status cli_dropin_trtllm_finish(cli_dropin_line *t, sim_err *err)
{
    if (!t->dataset)
        return sim_fail(err, SIM_EINPUT,
                        "%s %s: needs --dataset FILE (trtllm-bench reads standard input "
                        "otherwise; write one with prepare_dataset.py)",
                        t->tool->words, t->tool->sub);
    return SIM_OK;
}
