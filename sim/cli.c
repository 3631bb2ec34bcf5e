/* cli.c - command line parsing and the run / roofline commands. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine.h"
#include "find.h"
#include "html.h"
#include "jsonf.h"
#include "cluster_trace.h"
#include "metrics.h"
#include "outfile.h"
#include "pp.h"
#include "rng.h"
#include "report.h"
#include "run.h"
#include "spec.h"
#include "sweep.h"
#include "trace_check.h"
#include "trace_run.h"
#include "trace_serve.h"
#include "validate.h"
#include "workload.h"

#ifndef INFERSIM_VERSION
#define INFERSIM_VERSION "0.1.0"
#endif

/* ------------------------------------------------------------------------------------------ */
/* Options: one table drives parsing, validation and --help. */

#define O(name, kind, member, min, max, cmds, help)                                                \
    {                                                                                              \
        name, kind, offsetof(cli_opts, member), min, max, cmds, help                               \
    }
const cli_opt_def cli_opts_table[] = {
    O("--model", OPT_STR, model, 0, 0, CMD_MODEL,
      "model config.json path, or a name in models/ (e.g. llama-3.1-8b)"),
    O("--hw", OPT_STR, hw, 0, 0, CMD_MODEL | CMD_OP | CMD_CALIBRATE | CMD_HW,
      "device file path, or a name in hw/ (e.g. h100-sxm)"),
    O("--tp", OPT_INT, tp, 1, 1024, CMD_MODEL, "tensor-parallel GPUs (default 1)"),
    O("--pp", OPT_INT, pp, 1, 64, CMD_RUN | CMD_SERVE,
      "pipeline stages, each --tp GPUs (default 1); layers split as vLLM splits them"),
    O("--ep", OPT_INT, ep, 1, 1024, CMD_MODEL,
      "expert-parallel GPUs: E/ep whole experts per GPU, tokens all-to-all'ed (default 1)"),
    O("--dp-attention", OPT_BOOL, dp_attention, 0, 0, CMD_MODEL,
      "attention data-parallel over the EP group: ep/tp groups of --tp GPUs"),
    O("--expert-imbalance", OPT_NUM, expert_imbalance, 1, 1024, CMD_MODEL,
      "busiest EP rank's routed tokens over the mean, >= 1 (default 1: uniform routing)"),
    O("--batch", OPT_INT, batch, 1, 1 << 20, CMD_RUN | CMD_ROOFLINE | CMD_OP,
      "sequences (default 1)"),
    O("--input-len", OPT_INT, input_len, 1, 1 << 26, CMD_RUN | CMD_ROOFLINE,
      "prompt tokens per sequence (default 1024)"),
    O("--output-len", OPT_INT, output_len, 1, 1 << 26, CMD_RUN,
      "generated tokens per sequence (default 256)"),
    O("--weight-dtype", OPT_STR, weight_dtype, 0, 0, CMD_MODEL | CMD_OP,
      "bf16|fp16|fp8|int8|int4|fp4|mxfp4 (default: the model's quantization_config, else its "
      "torch_dtype)"),
    O("--act-dtype", OPT_STR, act_dtype, 0, 0, CMD_MODEL,
      "bf16|fp16|fp8|int8|fp4|mxfp4 (default: the quantization_config's; fp8 with fp8 weights, "
      "fp4 with fp4 weights on fp4 tensor cores, else the model's 16-bit format)"),
    O("--kv-cache-dtype", OPT_STR, kv_dtype, 0, 0, CMD_MODEL,
      "bf16|fp16|fp8|int8 (default: the quantization_config's, else the 16-bit activation "
      "format)"),
    O("--weight-group-size", OPT_INT, group_size, 0, 1 << 20, CMD_MODEL | CMD_OP,
      "weights per scale of int4/int8 weights a kernel dequantizes (AWQ, GPTQ, W4A8); 0 = per "
      "channel (default: the quantization_config's, else 128)"),
    O("--overlap-comm", OPT_NUM, overlap, 0, 1, CMD_MODEL,
      "fraction of network time hidden behind compute, 0..1 (default 0)"),
    O("--engine", OPT_STR, engine, 0, 0, CMD_MODEL,
      "vllm|vllm-v0|sglang|trtllm|trtllm-0.11|hf or a profile file: its defaults (default vllm)"),
    O("--gpu-memory-utilization", OPT_NUM, util, 0.01, 1, CMD_ENGINE,
      "KV-cache memory fraction (of all HBM; TensorRT-LLM: of what is free) (default: engine)"),
    O("--mem-fraction-static", OPT_NUM, util, 0.01, 1, CMD_ENGINE,
      "SGLang's name for --gpu-memory-utilization"),
    O("--kv-cache-free-gpu-mem-fraction", OPT_NUM, util, 0.01, 1, CMD_ENGINE,
      "TensorRT-LLM's name for --gpu-memory-utilization"),
    O("--iteration-overhead-us", OPT_NUM, iter_us, 0, 1e7, CMD_ENGINE,
      "engine CPU time per iteration (default: engine; vllm 1000)"),
    O("--request-overhead-us", OPT_NUM, req_us, 0, 1e7, CMD_ENGINE,
      "engine CPU time per request in the iteration (default: engine; vllm 10)"),
    O("--layer-overhead-us", OPT_NUM, layer_us, 0, 1e6, CMD_ENGINE,
      "engine CPU time per model layer per iteration (eager Python; default: engine, hf 100)"),
    O("--usd-per-gpu-hour", OPT_NUM, usd_per_gpu_hour, 0.001, SIM_PRICE_MAX_USD_PER_GPU_HOUR,
      CMD_ENGINE, "price of one GPU-hour in US$ (default: the device file's usd_per_gpu_hour)"),
    O("--async-scheduling", OPT_BOOL, async_sched, 0, 0, CMD_ENGINE,
      "the CPU prepares the next iteration while the GPU runs (default: engine)"),
    O("--no-async-scheduling", OPT_BOOL, no_async_sched, 0, 0, CMD_ENGINE,
      "a synchronous engine loop: the GPU waits for the CPU's work"),
    O("--enforce-eager", OPT_BOOL, enforce_eager, 0, 0, CMD_MODEL,
      "launch decode kernels eagerly instead of from CUDA graphs"),
    O("--allreduce", OPT_STR, allreduce, 0, 0, CMD_MODEL | CMD_OP,
      "auto|ring|tree|oneshot|twoshot|nvls|nccl: all-reduce algorithm (default: engine; auto "
      "is the cheapest the device has, nccl NCCL's own)"),
    O("--fuse-allreduce-norm", OPT_BOOL, fuse_ar_norm, 0, 0, CMD_MODEL,
      "fuse all-reduce + residual + RMSNorm into one kernel (custom / NVLS all-reduce only; "
      "default: engine)"),
    O("--no-fuse-allreduce-norm", OPT_BOOL, no_fuse_ar_norm, 0, 0, CMD_MODEL,
      "run the all-reduce and the RMSNorm as separate kernels"),
    O("--cuda-graph-max-bs", OPT_INT, graph_max_bs, 0, 1 << 20, CMD_MODEL,
      "largest decode batch replayed from a CUDA graph; 0 = all (default: engine)"),
    O("--max-model-len", OPT_INT, max_model_len, 1, 1 << 26, CMD_ENGINE,
      "context limit in tokens instead of the config's max_position_embeddings (default: "
      "engine)"),
    O("--max-input-len", OPT_INT, max_input_len, 1, 1 << 26, CMD_ENGINE,
      "longest prompt the engine takes (default: engine; TensorRT-LLM's build limit)"),
    O("--spec-method", OPT_STR, spec_method, 0, 0, CMD_ENGINE,
      "speculative decoding: draft|eagle|medusa|mtp|ngram (default: none)"),
    O("--num-speculative-tokens", OPT_INT, spec_k, 1, 16, CMD_ENGINE,
      "K tokens drafted per verify step (required with --spec-method)"),
    O("--spec-model", OPT_STR, spec_model, 0, 0, CMD_ENGINE,
      "the draft model's config.json or name (--spec-method draft)"),
    O("--spec-acceptance-rate", OPT_NUM, spec_alpha, 0, 1, CMD_ENGINE,
      "per-token probability that a drafted token is accepted"),
    O("--spec-acceptance-length", OPT_NUM, spec_tau, 1, 17, CMD_ENGINE,
      "or: mean tokens per verify step, 1..K+1"),
    O("--dtype", OPT_STR, dtype, 0, 0, CMD_ROOFLINE | CMD_OP,
      "compute format (roofline: of the ridge; default the GEMM format, bf16 without a model)"),
    O("--num-prompts", OPT_INT, num_prompts, 1, 1 << 28, CMD_SERVE,
      "requests (default 1000; with --trace: the first N of the trace)"),
    O("--random-input-len", OPT_INT, rand_in, 1, 1 << 26, CMD_SERVE,
      "prompt tokens per request (default 1024)"),
    O("--random-output-len", OPT_INT, rand_out, 1, 1 << 26, CMD_SERVE,
      "generated tokens per request (default 128)"),
    O("--random-range-ratio", OPT_NUM, range_ratio, 0, 0.999999, CMD_SERVE,
      "lengths uniform in [L(1-R), L(1+R)], R in [0, 1) (default 0: fixed)"),
    O("--request-rate", OPT_RATE, rate, 0, 1e9, CMD_SERVE,
      "requests/s, or inf to send all at t = 0 (default inf)"),
    O("--burstiness", OPT_NUM, burstiness, 1e-3, 1e3, CMD_SERVE,
      "gamma shape of the arrival gaps; 1 = Poisson (default 1)"),
    O("--replicas", OPT_INT, replicas, 1, SIM_CLUSTER_MAX_REPLICAS, CMD_SERVE,
      "independent engines behind a router, each --tp x --pp GPUs (default 1)"),
    O("--router", OPT_STR, router, 0, 0, CMD_SERVE,
      "round-robin|least-outstanding|prefix-aware: how --replicas share the requests "
      "(default least-outstanding)"),
    O("--disagg", OPT_STR, disagg, 0, 0, CMD_SERVE,
      "P:D prefill and decode instances (prefill/decode disaggregation; default off)"),
    O("--prefill-tp", OPT_INT, prefill_tp, 1, 1024, CMD_SERVE,
      "tensor-parallel GPUs of each prefill instance with --disagg (default --tp)"),
    O("--kv-stream", OPT_BOOL, kv_stream, 0, 0, CMD_SERVE,
      "with --disagg: send the KV layer by layer during the prefill (overlap the transfer)"),
    O("--max-concurrency", OPT_INT, max_concurrency, 1, 1 << 28, CMD_SERVE,
      "at most C requests in flight (closed loop; default: no limit)"),
    O("--seed", OPT_INT, seed, 0, 9e18, CMD_SERVE, "random seed (default 0)"),
    O("--trace", OPT_STR, trace, 0, 0, CMD_SERVE,
      "replay a trace: Azure CSV, Mooncake JSONL or arrival_s,input_tokens,output_tokens"),
    O("--time-scale", OPT_NUM, time_scale, 1e-6, 1e6, CMD_SERVE,
      "multiply trace arrival times (0.5 = twice as fast; default 1)"),
    O("--block-size", OPT_INT, block_size, 1, 1 << 16, CMD_SERVE,
      "KV-cache tokens per block (page) (default: engine; vllm 16)"),
    O("--max-num-seqs", OPT_INT, max_seqs, 1, 1 << 20, CMD_SERVE,
      "requests per iteration (default: engine; vllm 256)"),
    O("--max-batch-size", OPT_INT, max_seqs, 1, 1 << 20, CMD_SERVE,
      "TensorRT-LLM's name for --max-num-seqs"),
    O("--max-running-requests", OPT_INT, max_seqs, 1, 1 << 20, CMD_SERVE,
      "SGLang's name for --max-num-seqs"),
    O("--max-num-batched-tokens", OPT_INT, max_tokens, 1, 1 << 26, CMD_SERVE,
      "token budget per iteration (default: engine; vllm 8192)"),
    O("--max-num-tokens", OPT_INT, max_tokens, 1, 1 << 26, CMD_SERVE,
      "TensorRT-LLM's name for --max-num-batched-tokens"),
    O("--chunked-prefill-size", OPT_INT, max_tokens, 1, 1 << 26, CMD_SERVE,
      "SGLang's name for --max-num-batched-tokens (its prefill budget)"),
    O("--no-chunked-prefill", OPT_BOOL, no_chunked, 0, 0, CMD_SERVE,
      "whole prompts (vllm: in prefill-only iterations, v0 style)"),
    O("--enable-chunked-prefill", OPT_BOOL, chunked, 0, 0, CMD_SERVE,
      "split long prompts across iterations within the token budget"),
    O("--scheduler-policy", OPT_STR, sched_policy, 0, 0, CMD_SERVE,
      "vllm|sglang|guaranteed_no_evict|max_utilization|static (default: engine)"),
    O("--capacity-scheduler-policy", OPT_STR, sched_policy, 0, 0, CMD_SERVE,
      "TensorRT-LLM's GUARANTEED_NO_EVICT|MAX_UTILIZATION (sets --scheduler-policy)"),
    O("--schedule-policy", OPT_STR, order, 0, 0, CMD_SERVE,
      "fcfs|lpm: admission order; lpm = longest cached prefix first, as SGLang (default: engine)"),
    O("--schedule-conservativeness", OPT_NUM, conservativeness, 0.01, 100, CMD_SERVE,
      "SGLang: scales the new-token ratio it reserves for running requests (default 1)"),
    O("--enable-prefix-caching", OPT_BOOL, prefix_caching, 0, 0, CMD_SERVE,
      "reuse cached prompt prefixes (default: engine; on for vllm, sglang, trtllm)"),
    O("--no-enable-prefix-caching", OPT_BOOL, no_prefix_caching, 0, 0, CMD_SERVE,
      "turn prefix caching off"),
    O("--prefix-repetition-prefix-len", OPT_INT, prefix_len, 0, 1 << 26, CMD_SERVE,
      "shared prefix tokens per prompt (default 256)"),
    O("--prefix-repetition-suffix-len", OPT_INT, suffix_len, 0, 1 << 26, CMD_SERVE,
      "own tokens after the prefix (default 256)"),
    O("--prefix-repetition-num-prefixes", OPT_INT, num_prefixes, 1, 1 << 28, CMD_SERVE,
      "distinct prefixes (default 10)"),
    O("--prefix-repetition-output-len", OPT_INT, prefix_out, 1, 1 << 26, CMD_SERVE,
      "generated tokens per request (default 128)"),
    O("--goodput", OPT_LIST, goodput, 0, 0, CMD_SERVE,
      "SLOs for request_goodput: ttft:MS tpot:MS e2el:MS"),
    O("--save-requests", OPT_STR, save_requests, 0, 0, CMD_SERVE,
      "write one CSV row per request to FILE"),
    O("--dataset-name", OPT_STR, dataset_name, 0, 0, CMD_SERVE,
      "random|prefix_repetition (vLLM's synthetic datasets; recorded traffic: --trace)"),
    O("--percentile-metrics", OPT_STR, percentile_metrics, 0, 0, CMD_SERVE,
      "metrics whose percentiles are printed and saved: ttft,tpot,itl,e2el (vLLM's flag)"),
    O("--metric-percentiles", OPT_STR, metric_percentiles, 0, 0, CMD_SERVE,
      "the percentiles, e.g. 50,90,99 (default: 90,99; --save-result: vLLM's 99)"),
    O("--save-result", OPT_BOOL, save_result, 0, 0, CMD_SERVE,
      "write vLLM's result JSON (--result-dir, --result-filename; vLLM's default name)"),
    O("--result-dir", OPT_STR, result_dir, 0, 0, CMD_SERVE, "folder of the --save-result file"),
    O("--result-filename", OPT_STR, result_filename, 0, 0, CMD_SERVE,
      "name of the --save-result file"),
    O("--backend", OPT_STR, backend, 0, 0, CMD_SERVE,
      "recorded in the --save-result file (no effect on the prediction; default openai)"),
    O("--label", OPT_STR, label, 0, 0, CMD_SERVE,
      "names the --save-result file instead of --backend (no effect on the prediction)"),
    O("--tokenizer", OPT_STR, tokenizer, 0, 0, CMD_SERVE,
      "recorded in the --save-result file (no effect: lengths are token counts)"),
    O("--base-url", OPT_STR, vllm_noop, 0, 0, CMD_SERVE, "accepted, no effect (no server)"),
    O("--host", OPT_STR, vllm_noop, 0, 0, CMD_SERVE, "accepted, no effect (no server)"),
    O("--port", OPT_STR, vllm_noop, 0, 0, CMD_SERVE, "accepted, no effect (no server)"),
    O("--endpoint", OPT_STR, vllm_noop, 0, 0, CMD_SERVE, "accepted, no effect (no server)"),
    O("--served-model-name", OPT_STR, vllm_noop, 0, 0, CMD_SERVE, "accepted, no effect"),
    O("--ignore-eos", OPT_BOOL, vllm_noop_bool, 0, 0, CMD_SERVE,
      "accepted, no effect (every request generates its output length, as with it in vLLM)"),
    O("--trust-remote-code", OPT_BOOL, vllm_noop_bool, 0, 0, CMD_SERVE, "accepted, no effect"),
    O("--disable-tqdm", OPT_BOOL, vllm_noop_bool, 0, 0, CMD_SERVE, "accepted, no effect"),
    O("--chrome-trace", OPT_STR, chrome_trace, 0, 0, CMD_ENGINE,
      "write a Chrome Trace Event JSON timeline (Perfetto, chrome://tracing) to FILE"),
    O("--trace-detail", OPT_STR, trace_detail, 0, 0, CMD_SERVE,
      "iteration|layer|op: how deep the serve timeline goes (default iteration)"),
    O("--trace-window", OPT_STR, trace_window, 0, 0, CMD_SERVE,
      "START:END seconds of simulated time to keep in the timeline (END may be empty)"),
    O("--trace-ranks", OPT_STR, trace_ranks, 0, 0, CMD_RUN,
      "all|one: GPU ranks in the run timeline (they are identical; default one)"),
    O("--trace-max-mb", OPT_NUM, trace_max_mb, 1, 1e7, CMD_ENGINE,
      "refuse a timeline estimated past this many MB (default 512)"),
    O("--html", OPT_STR, html, 0, 0, CMD_ENGINE,
      "write a self-contained HTML report with the charts to FILE"),
    O("--data", OPT_STR, data, 0, 0, CMD_VALIDATE | CMD_CALIBRATE,
      "measurements CSV (default tools/data/validation.csv)"),
    O("--max-op-median", OPT_NUM, max_op_median, 0, 1000, CMD_VALIDATE,
      "exit 1 if the op-level median |error| (%) is above this"),
    O("--max-bucket-median", OPT_NUM, max_bucket_median, 0, 1000, CMD_VALIDATE,
      "exit 1 if any op-level size bucket's median |error| (%) is above this"),
    O("--max-e2e-median", OPT_NUM, max_e2e_median, 0, 1000, CMD_VALIDATE,
      "exit 1 if the end-to-end median |error| (%) is above this"),
    O("--out", OPT_STR, out_file, 0, 0, CMD_CALIBRATE,
      "write the calibrated device file here (default: stdout)"),
    O("--op", OPT_STR, op, 0, 0, CMD_OP, "gemm|attention|allreduce|copy|grouped_gemm|alltoall"),
    O("--m", OPT_INT, m, 1, (double)(1LL << 40), CMD_OP, "GEMM rows (tokens)"),
    O("--n", OPT_INT, n, 1, (double)(1LL << 40), CMD_OP, "GEMM columns"),
    O("--k", OPT_INT, k, 1, (double)(1LL << 40), CMD_OP, "GEMM inner dimension"),
    O("--heads", OPT_INT, heads, 1, 1 << 16, CMD_OP, "attention heads"),
    O("--head-dim", OPT_INT, head_dim, 1, 1 << 16, CMD_OP, "attention head dimension"),
    O("--seq", OPT_INT, seq, 1, 1 << 26, CMD_OP, "attention sequence length"),
    O("--causal", OPT_BOOL, causal, 0, 0, CMD_OP, "causal attention (half the pairs)"),
    O("--bytes", OPT_INT, bytes, 1, (double)(1LL << 50), CMD_OP, "copy / all-reduce message size"),
    O("--gpus", OPT_INT, gpus, 2, 65536, CMD_OP, "all-reduce participants"),
    O("--format", OPT_STR, format, 0, 0, CMD_MODEL | CMD_CHECK | CMD_HW,
      "table|json|csv (default table; hw: table|json)"),
    O("--help", OPT_BOOL, help, 0, 0,
      CMD_MODEL | CMD_CHECK | CMD_VALIDATE | CMD_OP | CMD_CALIBRATE | CMD_HW, "this text"),
};
#undef O
const size_t cli_n_opts = sizeof cli_opts_table / sizeof cli_opts_table[0];
_Static_assert(sizeof cli_opts_table / sizeof cli_opts_table[0] <= 128,
               "cli_opts.given is too small");

const cli_opt_def *cli_find_opt(const char *name, int mask)
{
    for (size_t j = 0; j < cli_n_opts; j++)
        if (strcmp(cli_opts_table[j].name, name) == 0 && (cli_opts_table[j].cmds & mask))
            return &cli_opts_table[j];
    return NULL;
}

/* Whether the command line named flag `name`. */
bool cli_given(const cli_opts *o, const char *name)
{
    const cli_opt_def *d = cli_find_opt(name, ~0);
    return d && o->given[d - cli_opts_table];
}

static void usage(FILE *f, const char *cmd, int mask)
{
    fprintf(f, "usage: infersim %s [flags]\n", cmd);
    for (size_t i = 0; i < cli_n_opts; i++) {
        const cli_opt_def *o = &cli_opts_table[i];
        if (!(o->cmds & mask))
            continue;
        const char *meta = o->kind == OPT_STR    ? " S"
                           : o->kind == OPT_BOOL ? ""
                           : o->kind == OPT_LIST ? " K:V.."
                                                 : " N";
        fprintf(f, "  %s%-*s %s\n", o->name, (int)(26 - strlen(o->name)), meta, o->help);
    }
}

sim_status cli_parse_value(const cli_opt_def *o, const char *v, void *out, sim_err *err)
{
    void *dst = (char *)out + o->offset;
    char *end = NULL;
    errno = 0;
    switch (o->kind) {
    case OPT_STR:
        if (!*v)
            return sim_fail(err, SIM_EINPUT, "%s: empty value, %s", o->name, o->help);
        *(const char **)dst = v;
        return SIM_OK;
    case OPT_INT: {
        long long x = strtoll(v, &end, 10);
        if (errno || end == v || *end || x < (long long)o->min || x > (long long)o->max)
            return sim_fail(err, SIM_EINPUT,
                            "%s: value '%s', expected a whole number in [%.0f, %.0f]", o->name, v,
                            o->min, o->max);
        *(int64_t *)dst = x;
        return SIM_OK;
    }
    case OPT_NUM: {
        double x = strtod(v, &end);
        if (errno || end == v || *end || !isfinite(x) || x < o->min || x > o->max)
            return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected a number in [%g, %g]",
                            o->name, v, o->min, o->max);
        *(double *)dst = x;
        return SIM_OK;
    }
    case OPT_BOOL:
        *(bool *)dst = true;
        return SIM_OK;
    case OPT_RATE: {
        if (strcmp(v, "inf") == 0) {
            *(double *)dst = INFINITY;
            return SIM_OK;
        }
        double x = strtod(v, &end);
        if (errno || end == v || *end || !isfinite(x) || x <= 0 || x > o->max)
            return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected a number in (0, %g] or inf",
                            o->name, v, o->max);
        *(double *)dst = x;
        return SIM_OK;
    }
    case OPT_LIST: {
        char *buf = dst;
        size_t len = strlen(buf);
        if (len + strlen(v) + 2 > LIST_LEN)
            return sim_fail(err, SIM_EINPUT, "%s: values too long", o->name);
        snprintf(buf + len, LIST_LEN - len, "%s%s", len ? "," : "", v);
        return SIM_OK;
    }
    }
    return SIM_EINTERNAL;
}

/* Parses argv[first..] for command `cmd` (bit `mask`). Accepts "--flag value" and "--flag=value".
 */
sim_status cli_parse_opts(int argc, char **argv, int first, const char *cmd, int mask,
                          cli_opts *out, sim_err *err)
{
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        char name[64]; /* a name longer than this is no flag's */
        const cli_opt_def *o = NULL;
        if (len < sizeof name) {
            memcpy(name, arg, len);
            name[len] = '\0';
            o = cli_find_opt(name, mask);
        }
        if (!o && mask == CMD_CHECK && arg[0] != '-' && !out->trace) {
            out->trace = arg; /* trace-check FILE */
            continue;
        }
        if (!o && mask == CMD_HW && arg[0] != '-' && !out->hw) {
            out->hw = arg; /* hw FILE */
            continue;
        }
        if (!o)
            return sim_fail(err, SIM_EINPUT, "%s: unknown %s '%s'; see 'infersim %s --help'", cmd,
                            arg[0] == '-' ? "flag" : "argument", arg, cmd);
        const char *v = eq ? eq + 1 : NULL;
        if (out->given[o - cli_opts_table] && o->kind != OPT_LIST)
            return sim_fail(err, SIM_EINPUT, "%s: given twice, expected once", o->name);
        out->given[o - cli_opts_table] = true;
        if (o->kind == OPT_BOOL) {
            if (v)
                return sim_fail(err, SIM_EINPUT, "%s: takes no value, got '%s'", o->name, v);
        } else if (!v) {
            if (i + 1 >= argc)
                return sim_fail(err, SIM_EINPUT, "%s: missing value; %s", o->name, o->help);
            v = argv[++i];
        }
        sim_status st = cli_parse_value(o, v ? v : "", out, err);
        /* a list takes every following value up to the next flag */
        while (!st && o->kind == OPT_LIST && !eq && i + 1 < argc &&
               strncmp(argv[i + 1], "--", 2) != 0)
            st = cli_parse_value(o, argv[++i], out, err);
        if (st)
            return st;
    }
    return SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Model and device names */

/* A bare name ("h100-sxm") is looked up as DIR/NAME.json in the data roots (find.h); for models, a
 * folder stands for its config.json (a checkpoint, as vLLM's --model takes it) and a Hugging Face
 * id ("meta-llama/Llama-3.1-8B") that is not a path names the model file listing it.
 * Anything else is used as given (and its loader says it cannot be opened). */
void cli_resolve(const char *dir, const char *arg, char *buf, size_t len)
{
    snprintf(buf, len, "%s", arg);
    struct stat sb;
    if (strcmp(dir, "models") == 0 && stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        /* a checkpoint folder, as vLLM's --model takes it: its config.json */
        char cfg[PATH_MAX + 16];
        snprintf(cfg, sizeof cfg, "%s/config.json", arg);
        if (strlen(cfg) < len)
            memcpy(buf, cfg, strlen(cfg) + 1);
        return;
    }
    if (access(arg, F_OK) == 0)
        return;
    if (strchr(arg, '/')) {
        if (strcmp(dir, "models") == 0)
            sim_model_find_hf(arg, buf, len);
        return;
    }
    char file[NAME_MAX + 8]; /* traces are named with their extension, models and devices not */
    if (snprintf(file, sizeof file, "%s%s", arg, strcmp(dir, "traces") == 0 ? "" : ".json") <
        (int)sizeof file)
        sim_find_file(dir, file, buf, len);
}

sim_status cli_parse_dtype_flag(const char *flag, const char *v, sim_dtype *out, sim_err *err)
{
    if (!sim_dtype_parse(v, out))
        return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected one of %s", flag, v,
                        sim_dtype_names());
    return SIM_OK;
}

/* Defaults: a flag, else the model's quantization_config, else: weights in the model's format;
 * activations fp8 with fp8 weights (W8A8, as vLLM's fp8 quantization), fp4/mxfp4 with those
 * weights on a device with fp4 tensor cores (else weight-only), else the 16-bit format; KV cache
 * in the 16-bit activation format; group size 128 (AWQ's and GPTQ's usual). */
static sim_status resolve_prec(const cli_opts *o, const sim_model *m, const sim_hw *hw, sim_prec *p,
                               sim_err *err)
{
    const sim_quant *q = &m->quant;
    sim_status st;
    if (o->weight_dtype) {
        if ((st = cli_parse_dtype_flag("--weight-dtype", o->weight_dtype, &p->weight, err)))
            return st;
    } else if (q->present) {
        p->weight = q->weight;
    } else if (m->dtype_known) {
        p->weight = m->dtype;
    } else {
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'torch_dtype' is missing; pass --weight-dtype to say how the "
                        "weights are stored",
                        m->path);
    }
    sim_dtype base = sim_dtype_is_16bit(p->weight) ? p->weight : m->dtype;
    if (o->act_dtype) {
        if ((st = cli_parse_dtype_flag("--act-dtype", o->act_dtype, &p->act, err)))
            return st;
    } else if (q->act_set && !o->weight_dtype) {
        p->act = q->act_16bit ? base : q->act;
    } else if (p->weight == SIM_DT_FP8) {
        p->act = SIM_DT_FP8;
    } else if (sim_dtype_is_fp4(p->weight) && hw->peak_flops[p->weight] > 0.0) {
        p->act = p->weight;
    } else {
        p->act = base;
    }
    p->group_size = cli_given(o, "--weight-group-size") ? o->group_size
                    : q->present                        ? q->group_size
                                                        : 128;
    p->zero_point = q->present && q->zero_point;
    if (o->kv_dtype)
        return cli_parse_dtype_flag("--kv-cache-dtype", o->kv_dtype, &p->kv, err);
    p->kv = q->kv_set ? q->kv : sim_dtype_is_16bit(p->act) ? p->act : base;
    return SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Files, loaded once: a sweep loads every model, device and trace it names before its parallel
 * loop (the points only copy them), so no file is parsed on a worker thread. */

const cli_cache_entry *cli_cache_find(const cli_file_cache *c, char kind, const char *path,
                                      double scale, int64_t limit)
{
    for (size_t i = 0; c && i < c->n; i++)
        if (c->e[i].kind == kind && strcmp(c->e[i].path, path) == 0 &&
            (kind != 't' || (c->e[i].scale == scale && c->e[i].limit == limit)))
            return &c->e[i];
    return NULL;
}

/* A name that is no file and was found in no data folder (cli_resolve left it as given): the
 * message says where infersim looked and which names it has, instead of "cannot open". */
static sim_status explain_missing(const char *dir, const char *name, sim_status st, sim_err *err)
{
    size_t l = strlen(name);
    bool is_json = l > 5 && strcmp(name + l - 5, ".json") == 0;
    if (!st || is_json || access(name, F_OK) == 0)
        return st;
    char known[384];
    sim_find_names(dir, known, sizeof known);
    if (!known[0])
        snprintf(known, sizeof known, "(no %s/ folder found)", dir);
    if (strchr(name, '/'))
        return strcmp(dir, "models") != 0
                   ? st
                   : sim_fail(err, SIM_EINPUT,
                              "%s: no such file, and no models/NAME.json lists this Hugging Face "
                              "id in its infersim_hf_ids; expected a config.json path, a model "
                              "name (%s) or a listed id",
                              name, known);
    return sim_fail(err, SIM_EINPUT,
                    "%s: no such file, and no %s/%s.json in the working directory, "
                    "$INFERSIM_DATA, next to the binary or in share/infersim; expected a path or "
                    "one of: %s",
                    name, dir, name, known);
}

static sim_status load_model(const char *path, sim_model *m, sim_err *err)
{
    return explain_missing("models", path, sim_model_load(path, m, err), err);
}

static sim_status load_hw(const char *path, sim_hw *hw, sim_err *err)
{
    return explain_missing("hw", path, sim_hw_load(path, hw, err), err);
}

/* Loads a file into the cache unless it is there (its failure is kept for the points). */
sim_status cli_cache_add(cli_file_cache *c, char kind, const char *path, double scale,
                         int64_t limit)
{
    if (cli_cache_find(c, kind, path, scale, limit))
        return SIM_OK;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        cli_cache_entry *e = realloc(c->e, cap * sizeof *e);
        if (!e)
            return SIM_EINTERNAL;
        c->e = e;
        c->cap = cap;
    }
    cli_cache_entry *e = &c->e[c->n++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    snprintf(e->path, sizeof e->path, "%s", path);
    e->scale = scale;
    e->limit = limit;
    e->st = kind == 'm'   ? load_model(path, &e->model, &e->err)
            : kind == 'h' ? load_hw(path, &e->hw, &e->err)
            : kind == 'e' ? sim_engprof_load(path, &e->eng, &e->err)
                          : sim_workload_load_trace(path, scale, limit, &e->w, &e->err);
    return SIM_OK;
}

void cli_cache_free(cli_file_cache *c)
{
    for (size_t i = 0; i < c->n; i++)
        sim_workload_free(&c->e[i].w);
    free(c->e);
    c->e = NULL;
    c->n = c->cap = 0;
}

/* A cached entry, or its load error; SIM_EINTERNAL if the sweep forgot to load it. */
const cli_cache_entry *cli_cache_get(const cli_file_cache *c, char kind, const char *path,
                                     double scale, int64_t limit, sim_err *err, sim_status *st)
{
    const cli_cache_entry *e = cli_cache_find(c, kind, path, scale, limit);
    *st = !e ? sim_fail(err, SIM_EINTERNAL, "%s was not preloaded", path) : e->st;
    if (e && e->st && err)
        *err = e->err;
    return *st ? NULL : e;
}

sim_status cli_get_model(const cli_file_cache *c, const char *path, sim_model *out, sim_err *err)
{
    if (!c)
        return load_model(path, out, err);
    sim_status st;
    const cli_cache_entry *e = cli_cache_get(c, 'm', path, 0, 0, err, &st);
    if (e)
        *out = e->model;
    return st;
}

sim_status cli_get_hw(const cli_file_cache *c, const char *path, sim_hw *out, sim_err *err)
{
    if (!c)
        return load_hw(path, out, err);
    sim_status st;
    const cli_cache_entry *e = cli_cache_get(c, 'h', path, 0, 0, err, &st);
    if (e)
        *out = e->hw;
    return st;
}

/* Speculative decoding from the --spec-* flags (after the target model is loaded). */
static sim_status load_spec(const cli_opts *o, cli_loaded *L, const cli_file_cache *cache,
                            sim_err *err)
{
    static const char *const spec_flags[] = {"--num-speculative-tokens", "--spec-model",
                                             "--spec-acceptance-rate", "--spec-acceptance-length"};
    sim_spec_method method = SIM_SPEC_NONE;
    if (!o->spec_method) {
        for (size_t i = 0; i < sizeof spec_flags / sizeof spec_flags[0]; i++)
            if (cli_given(o, spec_flags[i]))
                return sim_fail(err, SIM_EINPUT, "%s: needs --spec-method", spec_flags[i]);
        return sim_spec_init(&L->spec, SIM_SPEC_NONE, 0, -1, -1, &L->model, NULL, err);
    }
    if (!sim_spec_method_parse(o->spec_method, &method))
        return sim_fail(err, SIM_EINPUT,
                        "--spec-method: value '%s', expected draft, eagle, medusa, mtp or ngram",
                        o->spec_method);
    if (!cli_given(o, "--num-speculative-tokens"))
        return sim_fail(err, SIM_EINPUT,
                        "--num-speculative-tokens: missing, --spec-method %s "
                        "needs K (tokens drafted per verify step)",
                        o->spec_method);
    const sim_model *draft = NULL;
    if (o->spec_model) {
        char path[PATH_MAX];
        cli_resolve("models", o->spec_model, path, sizeof path);
        sim_status st = cli_get_model(cache, path, &L->draft, err);
        if (st)
            return st;
        draft = &L->draft;
    }
    double alpha = cli_given(o, "--spec-acceptance-rate") ? o->spec_alpha : -1.0;
    double tau = cli_given(o, "--spec-acceptance-length") ? o->spec_tau : -1.0;
    return sim_spec_init(&L->spec, method, (int)o->spec_k, alpha, tau, &L->model, draft, err);
}

sim_status cli_parse_allreduce(const cli_opts *o, sim_coll_algo *out, sim_err *err)
{
    *out = SIM_COLL_AUTO;
    if (o->allreduce && !sim_coll_algo_parse(o->allreduce, out))
        return sim_fail(err, SIM_EINPUT,
                        "--allreduce: value '%s', expected auto, ring, tree, oneshot, twoshot, "
                        "nvls or nccl",
                        o->allreduce);
    return SIM_OK;
}

/* Whether any of the spellings of one setting was given (they share a field). */
static bool given_any(const cli_opts *o, const char *const *names)
{
    for (; *names; names++)
        if (cli_given(o, *names))
            return true;
    return false;
}

/* An on/off setting with a flag for each way: neither keeps the profile's, both is an error. */
static sim_status on_off(const cli_opts *o, const char *on, const char *off, bool *v, sim_err *err)
{
    if (cli_given(o, on) && cli_given(o, off))
        return sim_fail(err, SIM_EINPUT, "%s and %s: contradict each other, expected one", on, off);
    if (cli_given(o, on) || cli_given(o, off))
        *v = cli_given(o, on);
    return SIM_OK;
}

void cli_engine_path(const cli_opts *o, char *buf, size_t len)
{
    cli_resolve("hw/engines", o->engine, buf, len);
}

/* The engine profile for this device and TP (its rules), with every flag that overrides one of
 * its fields applied, then its memory reserve (unless a flag gives the fraction). */
static sim_status load_engine(const cli_opts *o, const cli_file_cache *cache, const sim_hw *hw,
                              sim_engprof *e, sim_err *err)
{
    char path[PATH_MAX];
    cli_engine_path(o, path, sizeof path);
    sim_status st;
    if (cache) {
        const cli_cache_entry *c = cli_cache_get(cache, 'e', path, 0, 0, err, &st);
        if (c)
            *e = c->eng;
    } else {
        st = sim_engprof_load(path, e, err);
    }
    if (st)
        return st;
    sim_engprof_for_device(e, hw, o->tp);
    const bool util_given =
        given_any(o, (const char *const[]){"--gpu-memory-utilization", "--mem-fraction-static",
                                           "--kv-cache-free-gpu-mem-fraction", NULL});
    if (util_given)
        e->mem_fraction = o->util;
    if (cli_given(o, "--block-size"))
        e->block_size = o->block_size;
    if (given_any(o, (const char *const[]){"--max-num-seqs", "--max-batch-size",
                                           "--max-running-requests", NULL}))
        e->max_num_seqs = o->max_seqs;
    if (given_any(o, (const char *const[]){"--max-num-batched-tokens", "--max-num-tokens",
                                           "--chunked-prefill-size", NULL}))
        e->max_num_batched_tokens = o->max_tokens;
    if (o->sched_policy && !sim_engprof_policy_parse(o->sched_policy, &e->policy))
        return sim_fail(err, SIM_EINPUT,
                        "--scheduler-policy: value '%s', expected vllm, sglang, "
                        "guaranteed_no_evict, max_utilization or static",
                        o->sched_policy);
    if (o->order && strcmp(o->order, "fcfs") != 0 && strcmp(o->order, "lpm") != 0)
        return sim_fail(err, SIM_EINPUT, "--schedule-policy: value '%s', expected fcfs or lpm",
                        o->order);
    if (o->order)
        e->lpm = strcmp(o->order, "lpm") == 0;
    if (cli_given(o, "--iteration-overhead-us"))
        e->iteration_overhead_us = o->iter_us;
    if (cli_given(o, "--request-overhead-us"))
        e->request_overhead_us = o->req_us;
    if (cli_given(o, "--layer-overhead-us"))
        e->layer_overhead_us = o->layer_us;
    if (cli_given(o, "--enforce-eager"))
        e->cuda_graphs = false;
    if (cli_given(o, "--cuda-graph-max-bs"))
        e->cuda_graph_max_bs = o->graph_max_bs;
    if (o->allreduce && (st = cli_parse_allreduce(o, &e->allreduce, err)))
        return st;
    if (cli_given(o, "--max-model-len"))
        e->max_model_len = o->max_model_len;
    if (cli_given(o, "--max-input-len"))
        e->max_input_len = o->max_input_len;
    if (cli_given(o, "--schedule-conservativeness")) { /* SGLang scales its ratios, capped at 1 */
        e->ratio_init = fmin(e->ratio_init * o->conservativeness, 1.0);
        e->ratio_min = fmin(e->ratio_min * o->conservativeness, e->ratio_init);
        e->ratio_decay *= o->conservativeness;
    }
    if ((st = on_off(o, "--enable-chunked-prefill", "--no-chunked-prefill", &e->chunked_prefill,
                     err)) ||
        (st =
             on_off(o, "--async-scheduling", "--no-async-scheduling", &e->async_scheduling, err)) ||
        (st = on_off(o, "--fuse-allreduce-norm", "--no-fuse-allreduce-norm",
                     &e->fuse_allreduce_norm, err)))
        return st;
    if (!util_given)
        sim_engprof_apply_reserve(e, hw, o->tp, o->pp);
    return on_off(o, "--enable-prefix-caching", "--no-enable-prefix-caching", &e->prefix_caching,
                  err);
}

sim_step_cfg cli_engine_step(const sim_engprof *e, const sim_model *m)
{
    /* eager Python runs every layer's modules on the CPU each iteration */
    double layers_us = e->layer_overhead_us * (double)m->layers;
    return (sim_step_cfg){.model = m,
                          .eager = !e->cuda_graphs,
                          .iteration_overhead_ns = (e->iteration_overhead_us + layers_us) * 1e3,
                          .request_overhead_ns = e->request_overhead_us * 1e3,
                          .async_sched = e->async_scheduling,
                          .mem_rule = e->mem_rule,
                          .graph_max_bs = e->cuda_graph_max_bs,
                          .allreduce = e->allreduce,
                          .fuse_allreduce_norm = e->fuse_allreduce_norm};
}

void cli_engine_cfg(const sim_engprof *e, sim_engine_cfg *cfg)
{
    cfg->sched = (sim_sched_cfg){.max_num_seqs = e->max_num_seqs,
                                 .max_num_batched_tokens = e->max_num_batched_tokens,
                                 .chunked_prefill = e->chunked_prefill,
                                 .policy = e->policy,
                                 .ratio_init = e->ratio_init,
                                 .ratio_min = e->ratio_min,
                                 .ratio_decay = e->ratio_decay,
                                 .lpm = e->lpm};
    cfg->block_size = e->block_size;
    cfg->mem_util = e->mem_fraction;
    cfg->prefix_caching = e->prefix_caching;
    cfg->max_input_len = e->max_input_len;
}

/* The engine's context limit (--max-model-len, else the profile's limits.max_model_len; 0 keeps
 * the config's) replaces the config's, with a warning when it exceeds it. */
static void apply_max_model_len(const cli_opts *o, const sim_engprof *e, sim_model *m)
{
    if (e->max_model_len <= 0)
        return;
    const bool flag = cli_given(o, "--max-model-len");
    if (e->max_model_len > m->max_positions && o->warn)
        fprintf(o->warn,
                "infersim: warning: %s%s %lld is above %s's max_position_embeddings %lld; the "
                "model was not trained for that context\n",
                flag ? "--max-model-len" : e->path, flag ? "" : ": limits.max_model_len",
                (long long)e->max_model_len, m->path, (long long)m->max_positions);
    m->max_positions = e->max_model_len;
}

/* Loads what the commands share (from the cache when one is given). The model is optional for
 * roofline. */
sim_status cli_load_common(const cli_opts *o, bool need_model, cli_loaded *L,
                           const cli_file_cache *cache, sim_err *err)
{
    char path[PATH_MAX];
    sim_status st;
    if (!o->hw)
        return sim_fail(err, SIM_EINPUT,
                        "--hw: missing, expected a device file or name (e.g. "
                        "--hw h100-sxm)");
    if (need_model && !o->model)
        return sim_fail(err, SIM_EINPUT,
                        "--model: missing, expected a config.json or name (e.g. "
                        "--model llama-3.1-8b)");
    if (!sim_format_parse(o->format, &L->fmt))
        return sim_fail(err, SIM_EINPUT, "--format: value '%s', expected table, json or csv",
                        o->format);
    cli_resolve("hw", o->hw, path, sizeof path);
    if ((st = cli_get_hw(cache, path, &L->hw, err)) ||
        (st = load_engine(o, cache, &L->hw, &L->eng, err)))
        return st;
    L->usd_per_gpu_hour =
        cli_given(o, "--usd-per-gpu-hour") ? o->usd_per_gpu_hour : L->hw.usd_per_gpu_hour;
    if (o->model) {
        cli_resolve("models", o->model, path, sizeof path);
        if ((st = cli_get_model(cache, path, &L->model, err)))
            return st;
        apply_max_model_len(o, &L->eng, &L->model);
    }
    L->step = cli_engine_step(&L->eng, &L->model);
    L->step.hw = &L->hw;
    L->step.tp = (int)o->tp;
    L->step.pp = (int)o->pp;
    L->step.overlap = o->overlap;
    L->step.ep = (int)o->ep;
    L->step.dp_attention = o->dp_attention;
    L->step.expert_imbalance = o->expert_imbalance;
    if (!o->model)
        return SIM_OK;
    if ((st = resolve_prec(o, &L->model, &L->hw, &L->step.prec, err)) ||
        (st = load_spec(o, L, cache, err)))
        return st;
    return sim_step_check(&L->step, err);
}

const cli_opts cli_defaults = {
    .format = "table",
    .tp = 1,
    .pp = 1,
    .replicas = 1,
    .ep = 1,
    .expert_imbalance = 1.0,
    .batch = 1,
    .input_len = 1024,
    .output_len = 256,
    .overlap = 0.0,
    /* the engine's settings (memory fraction, host overheads, block size, batch limits) come from
     * its profile, hw/engines/NAME.json, unless a flag gives them */
    /* serve: vLLM's bench defaults where they exist (random dataset, rate inf) */
    .num_prompts = 1000,
    .rand_in = 1024,
    .rand_out = 128,
    .rate = INFINITY,
    .burstiness = 1.0,
    .time_scale = 1.0,
    .trace_max_mb = 512.0,
    .engine = "vllm",
    .conservativeness = 1.0,
    /* vLLM's prefix_repetition dataset defaults (vllm/benchmarks/datasets.py) */
    .prefix_len = 256,
    .suffix_len = 256,
    .num_prefixes = 10,
    .prefix_out = 128,
};

/* ------------------------------------------------------------------------------------------ */
/* Commands */

/* Refuses a timeline estimated past --trace-max-mb, before a byte of it is written. */
static sim_status check_trace_size(const cli_opts *o, double est_bytes, const char *what,
                                   sim_err *err)
{
    if (est_bytes <= o->trace_max_mb * 1e6)
        return SIM_OK;
    return sim_fail(err, SIM_EINPUT,
                    "--chrome-trace: %s would take about %.0f MB, past --trace-max-mb %g; "
                    "raise the limit or write less (%s)",
                    what, est_bytes / 1e6, o->trace_max_mb,
                    o->trace_ranks ? "fewer ranks, a --trace-window or a coarser --trace-detail"
                                   : "a --trace-window, a coarser --trace-detail or fewer "
                                     "--num-prompts");
}

/* The run's timeline over pipeline stages (speculative decoding is refused with --pp). */
static sim_status write_run_trace_pp(const cli_opts *o, const sim_run_cfg *cfg, bool all,
                                     sim_err *err)
{
    const sim_seq_group pre = {.count = cfg->batch, .q = cfg->input_len, .c = 0, .logits = 1};
    const sim_seq_group dec = {.count = cfg->batch, .q = 1, .c = cfg->input_len, .logits = 1};
    const sim_seq_group *d = cfg->output_len > 1 ? &dec : NULL;
    const int ranks = all ? cfg->step.tp : 1;
    char what[96];
    snprintf(what, sizeof what, "the run timeline of %d stage%s x %d rank%s", cfg->step.pp,
             cfg->step.pp > 1 ? "s" : "", ranks, ranks > 1 ? "s" : "");
    double est = sim_trace_run_pp_estimate_bytes(&cfg->step, &pre, d, ranks);
    if (est < 0)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_status st = check_trace_size(o, est, what, err);
    return st ? st : sim_trace_run_pp(o->chrome_trace, &cfg->step, &pre, d, all, err);
}

/* The run's timeline: its prefill step and its first decode (or verify) step. */
static sim_status write_run_trace(const cli_opts *o, const sim_run_cfg *cfg,
                                  const sim_run_result *r, sim_err *err)
{
    bool all = false;
    if (o->trace_ranks && !(all = strcmp(o->trace_ranks, "all") == 0) &&
        strcmp(o->trace_ranks, "one") != 0)
        return sim_fail(err, SIM_EINPUT, "--trace-ranks: value '%s', expected all or one",
                        o->trace_ranks);
    if (sim_pp_stages(&cfg->step) > 1) /* one process per stage */
        return write_run_trace_pp(o, cfg, all, err);
    sim_step_result *dec = NULL;
    if (cfg->output_len > 1) {
        dec = calloc(1, sizeof *dec);
        if (!dec)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        bool spec = sim_spec_active(cfg->spec);
        int64_t q = spec ? cfg->spec->k + 1 : 1;
        sim_seq_group g = {.count = cfg->batch, .q = q, .c = cfg->input_len, .logits = q};
        sim_step_price(&cfg->step, &g, 1, dec);
    }
    char what[64];
    snprintf(what, sizeof what, "the run timeline of %d rank%s", all ? cfg->step.tp : 1,
             all && cfg->step.tp > 1 ? "s" : "");
    sim_status st = check_trace_size(
        o, sim_trace_run_estimate_bytes(&r->prefill, dec, all ? cfg->step.tp : 1), what, err);
    if (!st)
        st = sim_trace_run(o->chrome_trace, &cfg->step, &r->prefill, dec, all, err);
    free(dec);
    return st;
}

/* A static batch from the flags: loaded (from the cache when given), checked, simulated. */
sim_status cli_run_point(const cli_opts *o, cli_loaded *L, const cli_file_cache *cache,
                         sim_run_cfg *cfg, sim_run_result *r, sim_err *err)
{
    sim_status st = cli_load_common(o, true, L, cache, err);
    *cfg = (sim_run_cfg){.batch = o->batch,
                         .input_len = o->input_len,
                         .output_len = o->output_len,
                         .mem_util = L->eng.mem_fraction,
                         .spec = &L->spec,
                         .usd_per_gpu_hour = L->usd_per_gpu_hour};
    if (!st && L->eng.max_input_len > 0 && o->input_len > L->eng.max_input_len)
        st = sim_fail(err, SIM_EINPUT,
                      "--input-len: value %lld is past the engine's max_input_len %lld (%s; "
                      "pass --max-input-len to build for longer prompts)",
                      (long long)o->input_len, (long long)L->eng.max_input_len, L->eng.path);
    if (!st) {
        cfg->step = L->step;
        st = sim_run_check(cfg, err);
    }
    if (!st)
        sim_run_simulate(cfg, r);
    return st;
}

static sim_status cmd_run(const cli_opts *o, FILE *out, sim_err *err)
{
    cli_loaded *L = calloc(1, sizeof *L);
    sim_run_result *r = calloc(1, sizeof *r);
    if (!L || !r) {
        free(L);
        free(r);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    sim_run_cfg cfg;
    sim_status st = cli_run_point(o, L, NULL, &cfg, r, err);
    if (!st && !o->chrome_trace && (o->trace_ranks || cli_given(o, "--trace-max-mb")))
        st = sim_fail(err, SIM_EINPUT, "%s: needs --chrome-trace FILE",
                      o->trace_ranks ? "--trace-ranks" : "--trace-max-mb");
    if (!st && o->chrome_trace)
        st = write_run_trace(o, &cfg, r, err);
    if (!st && o->html)
        st = sim_html_run(o->html, o->cmdline ? o->cmdline : "infersim run", &cfg, r, err);
    if (!st && (st = sim_report_run(out, L->fmt, &cfg, r)))
        sim_fail(err, st, "writing the result failed");
    free(r);
    free(L);
    return st;
}

static sim_status cmd_roofline(const cli_opts *o, FILE *out, sim_err *err)
{
    cli_loaded *L = calloc(1, sizeof *L);
    sim_step_result *pre = calloc(1, sizeof *pre), *dec = calloc(1, sizeof *dec);
    if (!L || !pre || !dec) {
        free(L);
        free(pre);
        free(dec);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    sim_status st = cli_load_common(o, false, L, NULL, err);
    sim_roofline rf = {.hw = &L->hw,
                       .dtype = SIM_DT_BF16,
                       .batch = o->batch,
                       .input_len = o->input_len,
                       .group_size = cli_given(o, "--weight-group-size") ? o->group_size : 128};
    if (!st && o->model) {
        rf.dtype = sim_graph_gemm_dtype(&L->step.prec);
        rf.group_size = L->step.prec.group_size;
    }
    if (!st && o->dtype && !(st = cli_parse_dtype_flag("--dtype", o->dtype, &rf.dtype, err)) &&
        L->hw.peak_flops[rf.dtype] <= 0.0)
        st = sim_fail(err, SIM_EINPUT,
                      "--dtype: value %s is not computed by %s (%s has no "
                      "dense_tflops.%s)",
                      o->dtype, L->hw.name, L->hw.path, o->dtype);
    if (!st && o->model) {
        if (o->input_len > L->model.max_positions)
            st =
                sim_fail(err, SIM_EINPUT,
                         "--input-len: value %lld is past the context of %s "
                         "(max_position_embeddings %lld)",
                         (long long)o->input_len, L->model.path, (long long)L->model.max_positions);
        sim_step_cfg pcfg = L->step;
        pcfg.eager = true;
        sim_seq_group gp = {.count = o->batch, .q = o->input_len, .c = 0, .logits = 1};
        sim_seq_group gd = {.count = o->batch, .q = 1, .c = o->input_len, .logits = 1};
        sim_step_price(&pcfg, &gp, 1, pre);
        sim_step_price(&L->step, &gd, 1, dec);
        rf.step = &L->step;
        rf.prefill = pre;
        rf.decode = dec;
    }
    if (!st && (st = sim_report_roofline(out, L->fmt, &rf)))
        sim_fail(err, st, "writing the result failed");
    free(pre);
    free(dec);
    free(L);
    return st;
}

/* The workload of a serve command: a trace, or vLLM's random or prefix_repetition dataset. */
static sim_status check_workload_flags(const cli_opts *o, sim_err *err)
{
    static const char *const repetition[] = {
        "--prefix-repetition-prefix-len", "--prefix-repetition-suffix-len",
        "--prefix-repetition-num-prefixes", "--prefix-repetition-output-len"};
    static const char *const random_only[] = {"--random-input-len", "--random-output-len",
                                              "--random-range-ratio"};
    bool rep = o->dataset_name && strcmp(o->dataset_name, "prefix_repetition") == 0;
    for (size_t i = 0; i < sizeof repetition / sizeof repetition[0]; i++)
        if (!rep && cli_given(o, repetition[i]))
            return sim_fail(err, SIM_EINPUT, "%s: needs --dataset-name prefix_repetition",
                            repetition[i]);
    for (size_t i = 0; i < sizeof random_only / sizeof random_only[0]; i++)
        if (rep && cli_given(o, random_only[i]))
            return sim_fail(err, SIM_EINPUT,
                            "%s: does not apply to --dataset-name prefix_repetition (use "
                            "--prefix-repetition-* for its lengths)",
                            random_only[i]);
    static const char *const synthetic_only[] = {"--random-input-len",   "--random-output-len",
                                                 "--random-range-ratio", "--request-rate",
                                                 "--burstiness",         "--seed",
                                                 "--dataset-name"};
    if (o->trace) {
        for (size_t i = 0; i < sizeof synthetic_only / sizeof synthetic_only[0]; i++)
            if (cli_given(o, synthetic_only[i]))
                return sim_fail(err, SIM_EINPUT,
                                "%s: does not apply to --trace (the trace gives arrivals and "
                                "lengths; use --time-scale to replay it faster or slower)",
                                synthetic_only[i]);
        return SIM_OK;
    }
    if (cli_given(o, "--time-scale"))
        return sim_fail(err, SIM_EINPUT, "--time-scale: applies only to --trace");
    return SIM_OK;
}

int64_t cli_trace_limit(const cli_opts *o)
{
    return cli_given(o, "--num-prompts") ? o->num_prompts : 0;
}

/* The workload of a serve command: a trace (from the cache when given), or vLLM's random or
 * prefix_repetition dataset drawn with `seed` (its prefix-cache ids name blocks of the engine's
 * block size, at least 16 tokens). *w points at `own` or at the cached trace. */
static sim_status serve_workload(const cli_opts *o, const cli_file_cache *cache, uint64_t seed,
                                 int64_t block_size, sim_workload *own, const sim_workload **w,
                                 sim_err *err)
{
    sim_status st = check_workload_flags(o, err);
    *w = own;
    if (st)
        return st;
    char path[PATH_MAX];
    if (o->trace)
        cli_resolve("traces", o->trace, path, sizeof path);
    if (o->trace && cache) {
        const cli_cache_entry *e =
            cli_cache_get(cache, 't', path, o->time_scale, cli_trace_limit(o), err, &st);
        if (e)
            *w = &e->w;
        return st;
    }
    if (o->trace)
        return sim_workload_load_trace(path, o->time_scale, cli_trace_limit(o), own, err);
    sim_synth_cfg s = {.num_prompts = o->num_prompts,
                       .input_len = o->rand_in,
                       .output_len = o->rand_out,
                       .range_ratio = o->range_ratio,
                       .request_rate = o->rate,
                       .burstiness = o->burstiness,
                       .seed = seed,
                       .input_lens = o->replay_in,
                       .output_lens = o->replay_out};
    if (o->dataset_name && strcmp(o->dataset_name, "prefix_repetition") == 0) {
        s.num_prefixes = o->num_prefixes;
        s.prefix_len = o->prefix_len;
        s.suffix_len = o->suffix_len;
        s.output_len = o->prefix_out;
        s.hash_block_tokens = block_size >= 16 || 16 % block_size ? block_size : 16;
    }
    return sim_workload_synthetic(&s, own, err);
}

/* Parses --trace-window START:END (seconds; END may be empty) into nanoseconds. */
static sim_status parse_window(const char *s, int64_t *w0, int64_t *w1, sim_err *err)
{
    char *end;
    errno = 0;
    double a = strtod(s, &end), b = -1.0;
    bool ok = end != s && *end == ':' && !errno && isfinite(a) && a >= 0;
    if (ok && end[1]) {
        const char *p = end + 1;
        b = strtod(p, &end);
        ok = end != p && !*end && !errno && isfinite(b) && b > a;
    }
    if (!ok || a > 1e9 || b > 1e9)
        return sim_fail(err, SIM_EINPUT,
                        "--trace-window: value '%s', expected START:END seconds with "
                        "0 <= START < END (or START: for no end)",
                        s);
    *w0 = (int64_t)llround(a * 1e9);
    *w1 = b < 0 ? -1 : (int64_t)llround(b * 1e9);
    return SIM_OK;
}

/* The timeline's estimated size: a first pass of the simulation (deterministic, so the second
 * pass repeats it exactly) counts the iterations, requests and preemptions inside the window. */
static sim_status serve_trace_size(const cli_opts *o, const sim_engine_cfg *cfg,
                                   const sim_workload *w, sim_trace_detail detail, int64_t w0,
                                   int64_t w1, sim_err *err)
{
    sim_engine_cfg quiet = *cfg;
    quiet.observer = NULL;
    sim_engine_result res;
    sim_status st = sim_engine_run(&quiet, w, &res, err);
    if (st)
        return st;
    double dur = (double)res.duration_ns;
    double end = w1 < 0 || (double)w1 > dur ? dur : (double)w1;
    double frac = dur > 0.0 ? fmax(0.0, end - (double)w0) / dur : 1.0;
    double est =
        sim_trace_serve_estimate_bytes(detail, &cfg->step, frac * (double)res.iterations,
                                       frac * (double)res.n, frac * (double)res.preemptions);
    sim_engine_result_free(&res);
    if (est < 0.0)
        return sim_fail(err, SIM_EINTERNAL, "out of memory estimating the timeline");
    char what[96];
    snprintf(what, sizeof what, "the serve timeline at --trace-detail %s",
             o->trace_detail ? o->trace_detail : "iteration");
    return check_trace_size(o, est, what, err);
}

static sim_status open_serve_trace(const cli_opts *o, sim_engine_cfg *cfg, const sim_workload *w,
                                   sim_trace_serve **out, sim_err *err)
{
    sim_trace_detail detail = SIM_TRACE_ITERATION;
    int64_t w0 = 0, w1 = -1;
    if (o->trace_detail && !sim_trace_detail_parse(o->trace_detail, &detail))
        return sim_fail(err, SIM_EINPUT,
                        "--trace-detail: value '%s', expected iteration, layer "
                        "or op",
                        o->trace_detail);
    sim_status st = o->trace_window ? parse_window(o->trace_window, &w0, &w1, err) : SIM_OK;
    if (!st)
        st = serve_trace_size(o, cfg, w, detail, w0, w1, err);
    if (st)
        return st;
    sim_trace_serve *ts = calloc(1, sizeof *ts);
    if (!ts)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    if ((st = sim_trace_serve_open(ts, o->chrome_trace, detail, w0, w1, w->n, &cfg->step, err))) {
        free(ts);
        return st;
    }
    cfg->observer = &ts->observer;
    *out = ts;
    return SIM_OK;
}

/* A serving run from the flags, with what its report needs. */

int64_t cli_serve_gpus(const cli_serve_state *s)
{
    return s->gpus > 0 ? s->gpus : sim_pp_gpus(&s->cfg.step);
}

void cli_serve_state_free(cli_serve_state *s)
{
    free(s->series);
    s->series = NULL;
    sim_engine_result_free(&s->res);
    sim_cluster_result_free(&s->cluster);
    sim_workload_free(&s->own);
}

/* The timeline of several engines (--replicas, --disagg): iteration detail, no window. */
static sim_status open_cluster_trace(const cli_opts *o, int n_prefill, int instances,
                                     sim_cluster_trace **out, sim_err *err)
{
    static const char *const one_engine[] = {"--trace-detail", "--trace-window", "--trace-max-mb"};
    for (size_t i = 0; i < sizeof one_engine / sizeof one_engine[0]; i++)
        if (cli_given(o, one_engine[i]))
            return sim_fail(err, SIM_EINPUT,
                            "%s: applies to one engine's timeline; with --replicas or --disagg "
                            "the timeline has iterations only",
                            one_engine[i]);
    sim_cluster_trace *ct = calloc(1, sizeof *ct);
    if (!ct)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_status st = sim_cluster_trace_open(ct, o->chrome_trace, n_prefill, instances, err);
    if (st)
        free(ct);
    else
        *out = ct;
    return st;
}

/* --disagg P:D (with its companions) into dc; n_prefill stays 0 without it. */
static sim_status disagg_flags(const cli_opts *o, sim_disagg_cfg *dc, sim_err *err)
{
    if (!o->disagg) {
        if (cli_given(o, "--prefill-tp") || o->kv_stream)
            return sim_fail(err, SIM_EINPUT, "%s: applies only with --disagg P:D",
                            o->kv_stream ? "--kv-stream" : "--prefill-tp");
        return SIM_OK;
    }
    char *end;
    errno = 0;
    long p = strtol(o->disagg, &end, 10), d = 0;
    bool ok = end != o->disagg && *end == ':' && !errno;
    if (ok) {
        const char *q = end + 1;
        d = strtol(q, &end, 10);
        ok = end != q && !*end && !errno;
    }
    if (!ok || p < 1 || d < 1 || p + d > SIM_CLUSTER_MAX_REPLICAS)
        return sim_fail(err, SIM_EINPUT,
                        "--disagg: value '%s', expected P:D prefill and decode instances, each "
                        ">= 1, P + D <= %d",
                        o->disagg, SIM_CLUSTER_MAX_REPLICAS);
    if (o->replicas > 1)
        return sim_fail(err, SIM_EINPUT,
                        "--replicas with --disagg: expected one of them (--disagg P:D gives the "
                        "instance counts)");
    dc->n_prefill = (int)p;
    dc->n_decode = (int)d;
    return SIM_OK;
}

/* Loads, checks and simulates; a --chrome-trace timeline is written alongside. */
sim_status cli_serve_point(const cli_opts *o, cli_loaded *L, const cli_file_cache *cache,
                           uint64_t seed, cli_serve_state *s, sim_err *err)
{
    memset(s, 0, sizeof *s);
    s->w = &s->own;
    if (!o->chrome_trace && (o->trace_detail || o->trace_window || cli_given(o, "--trace-max-mb")))
        return sim_fail(err, SIM_EINPUT, "%s: needs --chrome-trace FILE",
                        o->trace_detail   ? "--trace-detail"
                        : o->trace_window ? "--trace-window"
                                          : "--trace-max-mb");
    sim_status st = cli_load_common(o, true, L, cache, err);
    cli_engine_cfg(&L->eng, &s->cfg);
    s->cfg.max_concurrency = cli_given(o, "--max-concurrency") ? o->max_concurrency : 0;
    s->cfg.seed = seed;
    if (!st && o->goodput[0])
        st = sim_slo_parse(o->goodput, &s->slo, err);
    if (!st)
        st = serve_workload(o, cache, seed, L->eng.block_size, &s->own, &s->w, err);
    sim_cluster_cfg cc = {
        .engine = &s->cfg, .replicas = (int)o->replicas, .router = SIM_ROUTER_LEAST_OUTSTANDING};
    if (!st && o->router && !sim_router_parse(o->router, &cc.router))
        st = sim_fail(err, SIM_EINPUT,
                      "--router: value '%s', expected round-robin, least-outstanding or "
                      "prefix-aware",
                      o->router);
    if (!st) {
        s->usd_per_gpu_hour = L->usd_per_gpu_hour;
        s->cfg.step = L->step;
        /* each of vLLM's data-parallel engines has its own batch limits: the replica's scheduler
         * gets dp times the flags' */
        sim_par par = sim_step_par(&s->cfg.step);
        s->cfg.sched.max_num_seqs *= sim_par_dp(&par);
        s->cfg.sched.max_num_batched_tokens *= sim_par_dp(&par);
        s->cfg.spec = &L->spec;
        s->cfg.sched.spec_tokens = sim_spec_active(&L->spec) ? L->spec.k : 0;
        s->gpus = sim_pp_gpus(&s->cfg.step) * cc.replicas;
        st = sim_engine_check(&s->cfg, s->w, err);
    }
    sim_disagg_cfg dc = {.prefill = &s->prefill, .decode = &s->cfg, .kv_stream = o->kv_stream};
    if (!st)
        st = disagg_flags(o, &dc, err);
    sim_trace_serve *ts = NULL;
    sim_cluster_trace *ct = NULL; /* several engines: their own timeline */
    const int instances = dc.n_prefill > 0 ? dc.n_prefill + dc.n_decode : cc.replicas;
    if (!st && o->chrome_trace && instances > 1)
        st = open_cluster_trace(o, dc.n_prefill, instances, &ct, err);
    else if (!st && o->chrome_trace)
        st = open_serve_trace(o, &s->cfg, s->w, &ts, err);
    cc.observer = dc.observer = ct ? &ct->observer : NULL;
    if (!st && o->html) { /* the run over time, recorded before the timeline sees it */
        if (!(s->series = malloc(sizeof *s->series)))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        else
            sim_series_init(s->series, s->cfg.observer);
        if (s->series)
            s->cfg.observer = &s->series->observer;
    }
    if (!st && dc.n_prefill > 0) {
        s->prefill = s->cfg;
        s->prefill.step.tp = cli_given(o, "--prefill-tp") ? (int)o->prefill_tp : s->cfg.step.tp;
        s->gpus =
            dc.n_prefill * sim_pp_gpus(&s->prefill.step) + dc.n_decode * sim_pp_gpus(&s->cfg.step);
        if (!(st = sim_disagg_check(&dc, s->w, err)))
            st = sim_disagg_run(&dc, s->w, &s->res, &s->cluster, err);
    } else if (!st && cc.replicas > 1 && !(st = sim_cluster_check(&cc, s->w, err))) {
        st = sim_cluster_run(&cc, s->w, &s->res, &s->cluster, err);
    } else if (!st) {
        st = sim_engine_run(&s->cfg, s->w, &s->res, err);
    }
    if (s->series) {
        s->series->next = NULL;
        s->cfg.observer = NULL;
    }
    if (ts) {
        if (!st)
            st = sim_trace_serve_close(ts, s->res.duration_ns, err);
        else
            sim_trace_serve_abort(ts);
        free(ts);
        s->cfg.observer = NULL;
    }
    if (ct) {
        if (!st)
            st = sim_cluster_trace_close(ct, err);
        else
            sim_cluster_trace_abort(ct);
        free(ct);
    }
    if (!st && sim_metrics_compute(&s->res, &s->slo, &s->m))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory computing metrics");
    return st;
}

/* Python's str() of a float, as vLLM's file name holds the request rate: "inf", "10.0", "2.5". */
static void py_float(double v, char *buf, size_t len)
{
    if (isinf(v)) {
        snprintf(buf, len, "inf");
        return;
    }
    snprintf(buf, len, "%.15g", v);
    if (!strpbrk(buf, ".e"))
        snprintf(buf + strlen(buf), len - strlen(buf), ".0");
}

/* Creates every folder of `dir` that is missing (vLLM's os.makedirs(exist_ok=True)). */
static sim_status make_dirs(const char *dir, sim_err *err)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return sim_fail(err, SIM_EINPUT, "--result-dir: path too long");
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p)
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return sim_fail(err, SIM_EINPUT, "--result-dir: cannot create %s: %s", buf,
                            strerror(errno));
        if (!c)
            return SIM_OK;
        *p = c;
    }
}

/* vLLM's --save-result: its file name (or --result-filename) in --result-dir, its JSON. */
static sim_status save_vllm_result(const cli_opts *o, const sim_serve_report *rep, sim_err *err)
{
    char date[32], rate[64], name[PATH_MAX], path[PATH_MAX * 2];
    time_t now = time(NULL);
    struct tm tm;
    if (!localtime_r(&now, &tm) || !strftime(date, sizeof date, "%Y%m%d-%H%M%S", &tm))
        snprintf(date, sizeof date, "19700101-000000");
    const char *backend = o->backend ? o->backend : "openai";
    const char *base = strrchr(o->model, '/') ? strrchr(o->model, '/') + 1 : o->model;
    py_float(o->rate, rate, sizeof rate);
    if (o->result_filename)
        snprintf(name, sizeof name, "%s", o->result_filename);
    else if (o->max_concurrency > 0 && cli_given(o, "--max-concurrency"))
        snprintf(name, sizeof name, "%s-%sqps-concurrency%lld-%s-%s.json",
                 o->label ? o->label : backend, rate, (long long)o->max_concurrency, base, date);
    else
        snprintf(name, sizeof name, "%s-%sqps-%s-%s.json", o->label ? o->label : backend, rate,
                 base, date);
    sim_status st = o->result_dir ? make_dirs(o->result_dir, err) : SIM_OK;
    if (st)
        return st;
    snprintf(path, sizeof path, "%s%s%s", o->result_dir ? o->result_dir : "",
             o->result_dir ? "/" : "", name);
    sim_vllm_meta meta = {.backend = backend,
                          .model_id = o->model,
                          .tokenizer_id = o->tokenizer ? o->tokenizer : o->model,
                          .date = date,
                          .num_prompts = (int64_t)rep->w->n,
                          .request_rate = rep->request_rate,
                          .burstiness = o->burstiness,
                          .max_concurrency =
                              cli_given(o, "--max-concurrency") ? o->max_concurrency : 0};
    return sim_report_vllm_result(path, rep, &meta, err);
}

/* vLLM's flags that only make sense together, and its datasets. */
static sim_status check_vllm_flags(const cli_opts *o, sim_err *err)
{
    if (o->dataset_name && strcmp(o->dataset_name, "random") != 0 &&
        strcmp(o->dataset_name, "prefix_repetition") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--dataset-name: value '%s', expected random or prefix_repetition "
                        "(infersim draws vLLM's synthetic datasets from their flags; to replay "
                        "recorded traffic use --trace FILE: Azure CSV, Mooncake JSONL or a CSV of "
                        "arrival_s,input_tokens,output_tokens)",
                        o->dataset_name);
    if (!o->save_result && (o->result_dir || o->result_filename))
        return sim_fail(err, SIM_EINPUT, "%s: needs --save-result",
                        o->result_dir ? "--result-dir" : "--result-filename");
    return SIM_OK;
}

static sim_status cmd_serve(const cli_opts *o, FILE *out, sim_err *err)
{
    cli_loaded *L = calloc(1, sizeof *L);
    cli_serve_state *s = calloc(1, sizeof *s);
    sim_pct_values *saved = calloc(1, sizeof *saved);
    if (!L || !s || !saved) {
        free(L);
        free(s);
        free(saved);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    /* printed: every metric at p90 and p99 unless vLLM's two flags say otherwise; saved: what
     * vLLM saves (its defaults ttft,tpot,itl at p99 unless the flags say otherwise) */
    bool pick = o->percentile_metrics || o->metric_percentiles;
    sim_pct_sel sel;
    sim_status st = check_vllm_flags(o, err);
    if (!st)
        st = sim_pct_sel_parse(o->percentile_metrics, o->metric_percentiles, &sel, err);
    if (!st)
        st = cli_serve_point(o, L, NULL, (uint64_t)o->seed, s, err);
    if (!st && (pick || o->save_result) && sim_metrics_selected(&s->res, &sel, saved))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory computing percentiles");
    sim_serve_report rep = {.cfg = &s->cfg,
                            .w = s->w,
                            .res = &s->res,
                            .m = &s->m,
                            .request_rate = o->trace ? NAN : o->rate,
                            .engine = L->eng.name,
                            .engine_version = L->eng.version,
                            .engine_fusions = L->eng.fusions,
                            .engine_rules = L->eng.chosen,
                            .usd_per_gpu_hour = s->usd_per_gpu_hour,
                            .gpus = s->gpus,
                            .cluster = &s->cluster,
                            .pct = &sel,
                            .pct_ms = saved};
    if (!st && o->save_requests)
        st = sim_report_save_requests(o->save_requests, &rep, err);
    if (!st && o->save_result)
        st = save_vllm_result(o, &rep, err);
    if (!pick)
        rep.pct = NULL, rep.pct_ms = NULL;
    if (!st && o->html)
        st = sim_html_serve(o->html, o->cmdline ? o->cmdline : "infersim serve", &rep, &s->slo,
                            s->series, err);
    if (!st && (st = sim_report_serve(out, L->fmt, &rep)))
        sim_fail(err, st, "writing the result failed");
    cli_serve_state_free(s);
    free(s);
    free(L);
    free(saved);
    return st;
}

static sim_status cmd_trace_check(const cli_opts *o, FILE *out, sim_err *err)
{
    if (!o->trace)
        return sim_fail(err, SIM_EINPUT, "trace-check: missing FILE (infersim trace-check FILE)");
    sim_trace_stats s;
    sim_status st = sim_trace_check(o->trace, &s, err);
    if (st)
        return st;
    fprintf(out,
            "%s: ok: %lld events (%lld slices on %lld tracks, %lld counters, %lld async, "
            "%lld metadata); ends at %.3f ms; %lld iterations, busy %.3f ms\n",
            o->trace, (long long)s.events, (long long)s.slices, (long long)s.tracks,
            (long long)s.counters, (long long)s.async_events, (long long)s.metadata,
            (double)s.end_ns / 1e6, (long long)s.iterations, (double)s.iteration_ns / 1e6);
    return SIM_OK;
}

/* hw FILE: every field of a device with its value and where it came from. */
static sim_status cmd_hw(const cli_opts *o, FILE *out, sim_err *err)
{
    if (!o->hw)
        return sim_fail(err, SIM_EINPUT, "hw: missing FILE (infersim hw FILE|NAME)");
    bool json = strcmp(o->format, "json") == 0;
    if (!json && strcmp(o->format, "table") != 0)
        return sim_fail(err, SIM_EINPUT, "--format: value '%s', expected table or json", o->format);
    char path[PATH_MAX];
    cli_resolve("hw", o->hw, path, sizeof path);
    sim_hw hw;
    sim_status st = cli_get_hw(NULL, path, &hw, err);
    if (st)
        return st;
    cJSON *root = json ? cJSON_CreateObject() : NULL, *fields = NULL;
    if (json) {
        cJSON_AddStringToObject(root, "name", hw.name);
        cJSON_AddStringToObject(root, "path", hw.path);
        cJSON_AddStringToObject(root, "arch", hw.arch);
        fields = cJSON_AddArrayToObject(root, "fields");
    } else {
        fprintf(out, "%s (%s), arch %s\n", hw.name, hw.path, hw.arch[0] ? hw.arch : "(none)");
        fprintf(out, "%-30s %12s  %-8s %s\n", "field", "value", "from", "default rule");
    }
    const char *arch_source = NULL;
    for (size_t i = 0; i < sim_hw_n_fields(); i++) {
        sim_hw_field_info f = sim_hw_field(&hw, i);
        if (f.origin != SIM_HW_FILE && f.arch_source)
            arch_source = f.arch_source;
        if (!json) {
            fprintf(out, "%-30s %12.6g  %-8s %s\n", f.json, f.value, sim_hw_origin_name(f.origin),
                    f.origin == SIM_HW_FILE ? "" : f.rule);
            continue;
        }
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "field", f.json);
        cJSON_AddNumberToObject(row, "value", f.value);
        cJSON_AddStringToObject(row, "from", sim_hw_origin_name(f.origin));
        cJSON_AddStringToObject(row, "rule", f.rule);
        cJSON_AddItemToArray(fields, row);
    }
    if (json) {
        cJSON_AddStringToObject(root, "arch_source", arch_source ? arch_source : "");
        char *txt = cJSON_Print(root);
        cJSON_Delete(root);
        if (!txt)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        fprintf(out, "%s\n", txt);
        free(txt);
    } else if (arch_source) {
        fprintf(out, "architecture constants: %s\n", arch_source);
    }
    return ferror(out) ? sim_fail(err, SIM_EINTERNAL, "writing the result failed") : SIM_OK;
}

/* One command: its flags come from the option table (mask) and run through fn, or (sweep, merge,
 * compare) it parses its own arguments through argv_fn. One table drives dispatch, the top-level
 * usage and every --help. */
typedef struct command {
    const char *name;
    int mask;
    sim_status (*fn)(const cli_opts *, FILE *, sim_err *);
    sim_status (*argv_fn)(int argc, char **argv, FILE *out, FILE *errf, sim_err *err);
    const char *summary;
    const char *usage; /* argv commands: their synopsis and flags */
} command;

static sim_status cmd_merge(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    (void)errf;
    return cli_cmd_merge(argc, argv, out, err);
}

static sim_status cmd_compare(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    return cli_cmd_compare(argc, argv, out, errf, err);
}

static const command commands[] = {
    {"run", CMD_RUN, cmd_run, NULL, "static batch: TTFT, TPOT, E2E, throughput, per-op breakdown",
     NULL},
    {"roofline", CMD_ROOFLINE, cmd_roofline, NULL, "peaks, bandwidth, ridge points, op intensities",
     NULL},
    {"serve", CMD_SERVE, cmd_serve, NULL,
     "request stream under continuous batching: vLLM's serving benchmark metrics", NULL},
    {"sweep", 0, NULL, cli_cmd_sweep,
     "run|serve over a grid (any flag a comma-separated list), in parallel", NULL},
    {"merge", 0, NULL, cmd_merge, "join sweep shard files back into grid order",
     "usage: infersim merge [--out FILE] SHARD...\n"
     "  SHARD...                   the files of 'infersim sweep --shard I/N --out FILE' (all CSV "
     "or\n"
     "                             all JSONL), joined back into grid order\n"
     "  --out S                    write the merged rows here (default: stdout)\n"},
    {"compare", 0, NULL, cmd_compare,
     "a vLLM --save-result (or run-style) JSON against the prediction for the same flags",
     "usage: infersim compare --result FILE.json [the run or serve flags of the measurement]\n"
     "  --result S                 a vLLM --save-result file (mean_ttft_ms, ...: compared with\n"
     "                             'infersim serve') or a run-style JSON (ttft_ms, ...: 'infersim\n"
     "                             run'); the other flags are those commands' flags\n"},
    {"trace-check", CMD_CHECK, cmd_trace_check, NULL,
     "validate a Chrome trace (slices nest, names, counters, ids)", NULL},
    {"op", CMD_OP, cli_cmd_op, NULL, "price one GEMM, attention, copy or all-reduce on a device",
     NULL},
    {"validate", CMD_VALIDATE, cli_cmd_validate, NULL,
     "predictions against the public measurements, with the error summary", NULL},
    {"calibrate", CMD_CALIBRATE, cli_cmd_calibrate, NULL,
     "fit a device's efficiencies to its op-level measurements", NULL},
    {"hw", CMD_HW, cmd_hw, NULL,
     "a device file's every field, and whether it came from the file, a default or is derived",
     NULL},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static void top_usage(FILE *f)
{
    fprintf(f,
            "infersim %s - predicts LLM serving performance with the roofline model\n"
            "usage: infersim COMMAND [flags]   (infersim COMMAND --help for its flags)\n",
            INFERSIM_VERSION);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
}

/* Whether argv[first..] asks for help. */
static bool wants_help(int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

/* A command's --help; sweep's names its subcommand's flags. */
static void command_help(FILE *f, const command *c, int argc, char **argv)
{
    if (c->fn)
        usage(f, c->name, c->mask);
    else if (strcmp(c->name, "sweep") == 0)
        cli_sweep_usage(
            f, argc > 2 && (strcmp(argv[2], "run") == 0 || strcmp(argv[2], "serve") == 0) ? argv[2]
                                                                                          : NULL);
    else
        fputs(c->usage, f);
}

/* Runs argv[1] with its flags; a failure's message is left in err. */
static sim_status dispatch(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    const char *name = argv[1];
    for (size_t i = 0; i < N_COMMANDS; i++) {
        const command *c = &commands[i];
        if (strcmp(name, c->name) != 0)
            continue;
        if (wants_help(argc, argv, 2)) {
            command_help(out, c, argc, argv);
            return SIM_OK;
        }
        if (c->argv_fn)
            return c->argv_fn(argc, argv, out, errf, err);
        cli_opts o = cli_defaults;
        o.warn = errf;
        sim_status st = cli_parse_opts(argc, argv, 2, c->name, c->mask, &o, err);
        if (!st)
            st = cli_check_outputs(&o, err);
        if (st)
            return st;
        char *cmdline = cli_cmdline(argc, argv); /* the command as typed, for --html reports */
        if (!cmdline)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        o.cmdline = cmdline;
        st = c->fn(&o, out, err);
        free(cmdline);
        return st;
    }
    char names[512] = "";
    for (size_t i = 0; i < N_COMMANDS; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 i == 0                ? ""
                 : i + 1 == N_COMMANDS ? " or "
                                       : ", ",
                 commands[i].name);
    return sim_fail(err, SIM_EINPUT, "unknown command '%s'; expected %s (infersim --help)", name,
                    names);
}

sim_status cli_check_outputs(const cli_opts *o, sim_err *err)
{
    char result[PATH_MAX + 256] = "";
    if (o->result_filename)
        snprintf(result, sizeof result, "%s%s%s", o->result_dir ? o->result_dir : "",
                 o->result_dir ? "/" : "", o->result_filename);
    const char *flag[] = {"--save-requests", "--chrome-trace", "--html", "--out",
                          "--result-filename"};
    const char *path[] = {o->save_requests, o->chrome_trace, o->html, o->out_file,
                          result[0] ? result : NULL};
    return sim_outfile_distinct(flag, path, sizeof path / sizeof path[0], err);
}

sim_status sim_cli_run(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    if (argc < 2)
        return sim_fail(err, SIM_EINPUT,
                        "missing command; expected 'infersim COMMAND [flags]' (infersim --help)");
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "help") == 0 || strcmp(name, "-h") == 0) {
        top_usage(out);
        return SIM_OK;
    }
    if (strcmp(name, "--version") == 0) {
        fprintf(out, "infersim %s\n", INFERSIM_VERSION);
        return SIM_OK;
    }
    sim_status st = dispatch(argc, argv, out, errf, err);
    if (st && !err->msg[0])
        sim_fail(err, st, "internal error");
    return st;
}

char *cli_cmdline(int argc, char **argv)
{
    size_t len = 16;
    for (int i = 1; i < argc; i++)
        len += strlen(argv[i]) + 3;
    char *s = malloc(len);
    if (!s)
        return NULL;
    size_t n = (size_t)snprintf(s, len, "infersim");
    for (int i = 1; i < argc; i++) {
        bool quote = argv[i][0] == '\0' || strpbrk(argv[i], " \t\"'$&|;<>*?()") != NULL;
        n += (size_t)snprintf(s + n, len - n, quote ? " '%s'" : " %s", argv[i]);
    }
    return s;
}

int sim_cli_main(int argc, char **argv, FILE *out, FILE *errf)
{
    if (argc < 2) {
        top_usage(errf);
        return SIM_EINPUT;
    }
    sim_err err = {{0}};
    sim_status st = sim_cli_run(argc, argv, out, errf, &err);
    if (st)
        fprintf(errf, "infersim: %s\n", err.msg);
    return (int)st;
}
