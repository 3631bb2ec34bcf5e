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
#include <unistd.h>

#include "engine.h"
#include "html.h"
#include "jsonf.h"
#include "cluster_trace.h"
#include "metrics.h"
#include "pp.h"
#include "rng.h"
#include "report.h"
#include "run.h"
#include "spec.h"
#include "sweep.h"
#include "trace.h"
#include "validate.h"
#include "workload.h"

#define INFERSIM_VERSION "0.1.0"

/* ------------------------------------------------------------------------------------------ */
/* Options: one table drives parsing, validation and --help. */

#define O(name, kind, member, min, max, cmds, help)                                                \
    {                                                                                              \
        name, kind, offsetof(cli_opts, member), min, max, cmds, help                               \
    }
const cli_opt_def cli_opts_table[] = {
    O("--model", OPT_STR, model, 0, 0, CMD_MODEL,
      "model config.json path, or a name in models/ (e.g. llama-3.1-8b)"),
    O("--hw", OPT_STR, hw, 0, 0, CMD_MODEL | CMD_OP | CMD_CALIBRATE,
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
    O("--gpu-memory-utilization", OPT_NUM, util, 0.01, 1, CMD_ENGINE,
      "usable fraction of HBM, (0, 1] (default 0.9)"),
    O("--iteration-overhead-us", OPT_NUM, iter_us, 0, 1e7, CMD_ENGINE,
      "engine CPU time per iteration (default 1000)"),
    O("--request-overhead-us", OPT_NUM, req_us, 0, 1e7, CMD_ENGINE,
      "engine CPU time per request in the iteration (default 10)"),
    O("--usd-per-gpu-hour", OPT_NUM, usd_per_gpu_hour, 0.001, SIM_PRICE_MAX_USD_PER_GPU_HOUR,
      CMD_ENGINE, "price of one GPU-hour in US$ (default: the device file's usd_per_gpu_hour)"),
    O("--async-scheduling", OPT_BOOL, async_sched, 0, 0, CMD_ENGINE,
      "the CPU prepares the next iteration while the GPU runs (hides host time)"),
    O("--enforce-eager", OPT_BOOL, enforce_eager, 0, 0, CMD_MODEL,
      "launch decode kernels eagerly instead of from CUDA graphs"),
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
      "KV-cache tokens per block (default 16)"),
    O("--max-num-seqs", OPT_INT, max_seqs, 1, 1 << 20, CMD_SERVE,
      "requests per iteration (default 256)"),
    O("--max-num-batched-tokens", OPT_INT, max_tokens, 1, 1 << 26, CMD_SERVE,
      "token budget per iteration (default 8192)"),
    O("--no-chunked-prefill", OPT_BOOL, no_chunked, 0, 0, CMD_SERVE,
      "whole prompts in prefill-only iterations (vLLM v0 style)"),
    O("--goodput", OPT_LIST, goodput, 0, 0, CMD_SERVE,
      "SLOs for request_goodput: ttft:MS tpot:MS e2el:MS"),
    O("--save-requests", OPT_STR, save_requests, 0, 0, CMD_SERVE,
      "write one CSV row per request to FILE"),
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
    O("--format", OPT_STR, format, 0, 0, CMD_MODEL | CMD_CHECK, "table|json|csv (default table)"),
    O("--help", OPT_BOOL, help, 0, 0, CMD_MODEL | CMD_CHECK | CMD_VALIDATE | CMD_OP | CMD_CALIBRATE,
      "this text"),
};
#undef O
const size_t cli_n_opts = sizeof cli_opts_table / sizeof cli_opts_table[0];
_Static_assert(sizeof cli_opts_table / sizeof cli_opts_table[0] <= 96,
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
            return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected a number > 0 or inf",
                            o->name, v);
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
        if (!o)
            return sim_fail(err, SIM_EINPUT,
                            "infersim %s: unknown %s '%s'; see 'infersim %s --help'", cmd,
                            arg[0] == '-' ? "flag" : "argument", arg, cmd);
        const char *v = eq ? eq + 1 : NULL;
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
        while (!st && o->kind == OPT_LIST && !eq && i + 1 < argc && strncmp(argv[i + 1], "--", 2))
            st = cli_parse_value(o, argv[++i], out, err);
        if (st)
            return st;
    }
    return SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Model and device names */

/* A bare name ("h100-sxm") is looked up as DIR/NAME.json in the working directory, then in the
 * source tree next to the binary (build/infersim -> ../DIR). Anything else is used as given. */
void cli_resolve(const char *dir, const char *arg, char *buf, size_t len)
{
    snprintf(buf, len, "%s", arg);
    if (strchr(arg, '/') || access(arg, F_OK) == 0)
        return;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    const char *fmts[] = {"%s/%s.json", "%s/../%s/%s.json", "%s/%s/%s.json"};
    char cand[PATH_MAX + 300];
    snprintf(cand, sizeof cand, fmts[0], dir, arg);
    if (access(cand, F_OK) == 0)
        goto found;
    for (int k = 1; k < 3 && slash; k++) {
        snprintf(cand, sizeof cand, fmts[k], exe, dir, arg);
        if (access(cand, F_OK) == 0)
            goto found;
    }
    return;
found:
    if (strlen(cand) < len)
        memcpy(buf, cand, strlen(cand) + 1);
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
    e->st = kind == 'm'   ? sim_model_load(path, &e->model, &e->err)
            : kind == 'h' ? sim_hw_load(path, &e->hw, &e->err)
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
        return sim_model_load(path, out, err);
    sim_status st;
    const cli_cache_entry *e = cli_cache_get(c, 'm', path, 0, 0, err, &st);
    if (e)
        *out = e->model;
    return st;
}

sim_status cli_get_hw(const cli_file_cache *c, const char *path, sim_hw *out, sim_err *err)
{
    if (!c)
        return sim_hw_load(path, out, err);
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
    if ((st = cli_get_hw(cache, path, &L->hw, err)))
        return st;
    L->usd_per_gpu_hour =
        cli_given(o, "--usd-per-gpu-hour") ? o->usd_per_gpu_hour : L->hw.usd_per_gpu_hour;
    L->step = (sim_step_cfg){.model = &L->model,
                             .hw = &L->hw,
                             .tp = (int)o->tp,
                             .pp = (int)o->pp,
                             .overlap = o->overlap,
                             .eager = o->enforce_eager,
                             .iteration_overhead_ns = o->iter_us * 1e3,
                             .request_overhead_ns = o->req_us * 1e3,
                             .async_sched = o->async_sched,
                             .ep = (int)o->ep,
                             .dp_attention = o->dp_attention,
                             .expert_imbalance = o->expert_imbalance};
    if (!o->model)
        return SIM_OK;
    cli_resolve("models", o->model, path, sizeof path);
    if ((st = cli_get_model(cache, path, &L->model, err)) ||
        (st = resolve_prec(o, &L->model, &L->hw, &L->step.prec, err)) ||
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
    .util = 0.9,
    /* A synchronous engine loop (vLLM's default; --async-scheduling is opt-in) spends 1-5 ms of
     * CPU per step in public profiles (vLLM RFC #6854: ~4 ms GPU bubbles per decode step before
     * v0.6); the defaults take the low end, plus a per-request share that grows the scheduler's
     * work with the batch. Not calibrated: set them to your engine's. */
    .iter_us = 1000.0,
    .req_us = 10.0,
    /* serve: vLLM's bench defaults where they exist (random dataset, rate inf), its engine
     * defaults for the batch limits (256 sequences; 8192 tokens, its default on large GPUs) */
    .num_prompts = 1000,
    .rand_in = 1024,
    .rand_out = 128,
    .rate = INFINITY,
    .burstiness = 1.0,
    .time_scale = 1.0,
    .block_size = 16,
    .max_seqs = 256,
    .trace_max_mb = 512.0,
    .max_tokens = 8192,
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

/* The run's timeline: its prefill step and its first decode (or verify) step. */
static sim_status write_run_trace(const cli_opts *o, const sim_run_cfg *cfg,
                                  const sim_run_result *r, sim_err *err)
{
    bool all = false;
    if (o->trace_ranks && !(all = strcmp(o->trace_ranks, "all") == 0) &&
        strcmp(o->trace_ranks, "one") != 0)
        return sim_fail(err, SIM_EINPUT, "--trace-ranks: value '%s', expected all or one",
                        o->trace_ranks);
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
                         .mem_util = o->util,
                         .spec = &L->spec,
                         .usd_per_gpu_hour = L->usd_per_gpu_hour};
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

/* The workload of a serve command: a trace, or vLLM's random dataset. */
static sim_status check_workload_flags(const cli_opts *o, sim_err *err)
{
    static const char *const synthetic_only[] = {"--random-input-len",   "--random-output-len",
                                                 "--random-range-ratio", "--request-rate",
                                                 "--burstiness",         "--seed"};
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

/* The workload of a serve command: a trace (from the cache when given), or vLLM's random dataset
 * drawn with `seed`. *w points at `own` or at the cached trace. */
static sim_status serve_workload(const cli_opts *o, const cli_file_cache *cache, uint64_t seed,
                                 sim_workload *own, const sim_workload **w, sim_err *err)
{
    sim_status st = check_workload_flags(o, err);
    *w = own;
    if (st)
        return st;
    if (o->trace && cache) {
        const cli_cache_entry *e =
            cli_cache_get(cache, 't', o->trace, o->time_scale, cli_trace_limit(o), err, &st);
        if (e)
            *w = &e->w;
        return st;
    }
    if (o->trace)
        return sim_workload_load_trace(o->trace, o->time_scale, cli_trace_limit(o), own, err);
    sim_synth_cfg s = {.num_prompts = o->num_prompts,
                       .input_len = o->rand_in,
                       .output_len = o->rand_out,
                       .range_ratio = o->range_ratio,
                       .request_rate = o->rate,
                       .burstiness = o->burstiness,
                       .seed = seed};
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
    s->cfg = (sim_engine_cfg){.sched = {.max_num_seqs = o->max_seqs,
                                        .max_num_batched_tokens = o->max_tokens,
                                        .chunked_prefill = !o->no_chunked},
                              .block_size = o->block_size,
                              .mem_util = o->util,
                              .max_concurrency =
                                  cli_given(o, "--max-concurrency") ? o->max_concurrency : 0,
                              .seed = seed};
    if (!o->chrome_trace && (o->trace_detail || o->trace_window || cli_given(o, "--trace-max-mb")))
        return sim_fail(err, SIM_EINPUT, "%s: needs --chrome-trace FILE",
                        o->trace_detail   ? "--trace-detail"
                        : o->trace_window ? "--trace-window"
                                          : "--trace-max-mb");
    sim_status st = cli_load_common(o, true, L, cache, err);
    if (!st && o->goodput[0])
        st = sim_slo_parse(o->goodput, &s->slo, err);
    if (!st)
        st = serve_workload(o, cache, seed, &s->own, &s->w, err);
    sim_cluster_cfg cc = {.engine = &s->cfg, .replicas = (int)o->replicas,
                          .router = SIM_ROUTER_LEAST_OUTSTANDING};
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
        s->gpus = dc.n_prefill * sim_pp_gpus(&s->prefill.step) +
                  dc.n_decode * sim_pp_gpus(&s->cfg.step);
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

static sim_status cmd_serve(const cli_opts *o, FILE *out, sim_err *err)
{
    cli_loaded *L = calloc(1, sizeof *L);
    cli_serve_state *s = calloc(1, sizeof *s);
    if (!L || !s) {
        free(L);
        free(s);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    sim_status st = cli_serve_point(o, L, NULL, (uint64_t)o->seed, s, err);
    sim_serve_report rep = {.cfg = &s->cfg,
                            .w = s->w,
                            .res = &s->res,
                            .m = &s->m,
                            .request_rate = o->trace ? NAN : o->rate,
                            .usd_per_gpu_hour = s->usd_per_gpu_hour,
                            .gpus = s->gpus,
                            .cluster = &s->cluster};
    if (!st && o->save_requests)
        st = sim_report_save_requests(o->save_requests, &rep, err);
    if (!st && o->html)
        st = sim_html_serve(o->html, o->cmdline ? o->cmdline : "infersim serve", &rep, &s->slo,
                            s->series, err);
    if (!st && (st = sim_report_serve(out, L->fmt, &rep)))
        sim_fail(err, st, "writing the result failed");
    cli_serve_state_free(s);
    free(s);
    free(L);
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

typedef struct command {
    const char *name;
    int mask;
    sim_status (*fn)(const cli_opts *, FILE *, sim_err *);
    const char *summary;
} command;

static const command commands[] = {
    {"run", CMD_RUN, cmd_run, "static batch: TTFT, TPOT, E2E, throughput, per-op breakdown"},
    {"roofline", CMD_ROOFLINE, cmd_roofline, "peaks, bandwidth, ridge points, op intensities"},
    {"serve", CMD_SERVE, cmd_serve,
     "request stream under continuous batching: vLLM's serving benchmark metrics"},
    {"trace-check", CMD_CHECK, cmd_trace_check,
     "validate a Chrome trace (slices nest, names, counters, ids)"},
    {"op", CMD_OP, cli_cmd_op, "price one GEMM, attention, copy or all-reduce on a device"},
    {"validate", CMD_VALIDATE, cli_cmd_validate,
     "predictions against the public measurements, with the error summary"},
    {"calibrate", CMD_CALIBRATE, cli_cmd_calibrate,
     "fit a device's efficiencies to its op-level measurements"},
};

static void top_usage(FILE *f)
{
    fprintf(f,
            "infersim %s - predicts LLM serving performance with the roofline model\n"
            "usage: infersim COMMAND [flags]   (infersim COMMAND --help for its flags)\n",
            INFERSIM_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "  %-11s %s\n", "sweep",
            "run|serve over a grid (any flag a comma-separated list), in parallel");
    fprintf(f, "  %-11s %s\n", "merge", "join sweep shard files back into grid order");
    fprintf(f, "  %-11s %s\n", "compare",
            "a vLLM --save-result (or run-style) JSON against the prediction for the same flags");
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
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "help") == 0 || strcmp(name, "-h") == 0) {
        top_usage(out);
        return 0;
    }
    if (strcmp(name, "--version") == 0) {
        fprintf(out, "infersim %s\n", INFERSIM_VERSION);
        return 0;
    }
    if (strcmp(name, "sweep") == 0 || strcmp(name, "merge") == 0 || strcmp(name, "compare") == 0) {
        sim_err err = {{0}};
        sim_status st = name[0] == 's'   ? cli_cmd_sweep(argc, argv, out, errf, &err)
                        : name[0] == 'm' ? cli_cmd_merge(argc, argv, out, &err)
                                         : cli_cmd_compare(argc, argv, out, &err);
        if (st)
            fprintf(errf, "infersim: %s\n", err.msg[0] ? err.msg : "internal error");
        return (int)st;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const command *c = &commands[i];
        if (strcmp(name, c->name) != 0)
            continue;
        cli_opts o = cli_defaults;
        sim_err err = {{0}};
        sim_status st = cli_parse_opts(argc, argv, 2, c->name, c->mask, &o, &err);
        if (!st && o.help) {
            usage(out, c->name, c->mask);
            return 0;
        }
        char *cmdline = cli_cmdline(argc, argv);
        o.cmdline = cmdline;
        if (!st)
            st = c->fn(&o, out, &err);
        free(cmdline);
        if (st)
            fprintf(errf, "infersim: %s\n", err.msg[0] ? err.msg : "internal error");
        return (int)st;
    }
    fprintf(errf,
            "infersim: unknown command '%s'; expected run, serve, roofline, sweep, merge, "
            "trace-check, op, validate, calibrate or compare "
            "(infersim --help)\n",
            name);
    return SIM_EINPUT;
}
