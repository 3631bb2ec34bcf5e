/* cli.c - command line parsing and the run / roofline commands. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "jsonf.h"
#include "metrics.h"
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

enum { CMD_RUN = 1, CMD_ROOFLINE = 2, CMD_SERVE = 4, CMD_CHECK = 8, CMD_VALIDATE = 16,
       CMD_OP = 32, CMD_CALIBRATE = 64 };
#define CMD_MODEL (CMD_RUN | CMD_ROOFLINE | CMD_SERVE) /* flags every model command takes */
#define CMD_ENGINE (CMD_RUN | CMD_SERVE)               /* flags of commands that run steps */

/* OPT_RATE: a number > 0 or "inf"; OPT_LIST: one or more values up to the next flag, joined
 * with commas (vLLM's --goodput ttft:300 tpot:50). */
typedef enum opt_kind { OPT_STR, OPT_INT, OPT_NUM, OPT_BOOL, OPT_RATE, OPT_LIST } opt_kind;

#define LIST_LEN 256

typedef struct cli_opts {
    const char *model, *hw, *format, *weight_dtype, *act_dtype, *kv_dtype, *dtype;
    int64_t tp, batch, input_len, output_len;
    double overlap, util, iter_us, req_us;
    bool enforce_eager, async_sched, help;
    /* serve */
    const char *trace, *save_requests;
    int64_t num_prompts, rand_in, rand_out, max_concurrency, seed, block_size, max_seqs,
        max_tokens;
    double range_ratio, rate, burstiness, time_scale;
    bool no_chunked;
    char goodput[LIST_LEN];
    /* validation */
    const char *data, *op, *out_file;
    int64_t m, n, k, heads, head_dim, seq, bytes, gpus;
    bool causal;
    double max_op_median, max_e2e_median;
    /* timelines */
    const char *chrome_trace, *trace_detail, *trace_window;
    /* speculative decoding */
    const char *spec_method, *spec_model;
    int64_t spec_k;
    double spec_alpha, spec_tau;
    bool given[96]; /* by index into opts_table */
} cli_opts;

typedef struct opt_def {
    const char *name;
    opt_kind kind;
    size_t offset;
    double min, max; /* numeric range (inclusive) */
    int cmds;        /* commands that take it */
    const char *help;
} opt_def;

#define O(name, kind, member, min, max, cmds, help)                                                \
    {name, kind, offsetof(cli_opts, member), min, max, cmds, help}
static const opt_def opts_table[] = {
    O("--model", OPT_STR, model, 0, 0, CMD_MODEL,
      "model config.json path, or a name in models/ (e.g. llama-3.1-8b)"),
    O("--hw", OPT_STR, hw, 0, 0, CMD_MODEL | CMD_OP | CMD_CALIBRATE,
      "device file path, or a name in hw/ (e.g. h100-sxm)"),
    O("--tp", OPT_INT, tp, 1, 1024, CMD_MODEL, "tensor-parallel GPUs (default 1)"),
    O("--batch", OPT_INT, batch, 1, 1 << 20, CMD_RUN | CMD_ROOFLINE | CMD_OP,
      "sequences (default 1)"),
    O("--input-len", OPT_INT, input_len, 1, 1 << 26, CMD_RUN | CMD_ROOFLINE,
      "prompt tokens per sequence (default 1024)"),
    O("--output-len", OPT_INT, output_len, 1, 1 << 26, CMD_RUN,
      "generated tokens per sequence (default 256)"),
    O("--weight-dtype", OPT_STR, weight_dtype, 0, 0, CMD_MODEL,
      "bf16|fp16|fp8|int8|int4 (default: the model's torch_dtype)"),
    O("--act-dtype", OPT_STR, act_dtype, 0, 0, CMD_MODEL,
      "bf16|fp16|fp8|int8 (default: fp8 with fp8 weights, else the model's 16-bit format)"),
    O("--kv-cache-dtype", OPT_STR, kv_dtype, 0, 0, CMD_MODEL,
      "bf16|fp16|fp8|int8 (default: the 16-bit activation format)"),
    O("--overlap-comm", OPT_NUM, overlap, 0, 1, CMD_MODEL,
      "fraction of network time hidden behind compute, 0..1 (default 0)"),
    O("--gpu-memory-utilization", OPT_NUM, util, 0.01, 1, CMD_ENGINE,
      "usable fraction of HBM, (0, 1] (default 0.9)"),
    O("--iteration-overhead-us", OPT_NUM, iter_us, 0, 1e7, CMD_ENGINE,
      "engine CPU time per iteration (default 1000)"),
    O("--request-overhead-us", OPT_NUM, req_us, 0, 1e7, CMD_ENGINE,
      "engine CPU time per request in the iteration (default 10)"),
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
    O("--data", OPT_STR, data, 0, 0, CMD_VALIDATE | CMD_CALIBRATE,
      "measurements CSV (default tools/data/validation.csv)"),
    O("--max-op-median", OPT_NUM, max_op_median, 0, 1000, CMD_VALIDATE,
      "exit 1 if the op-level median |error| (%) is above this"),
    O("--max-e2e-median", OPT_NUM, max_e2e_median, 0, 1000, CMD_VALIDATE,
      "exit 1 if the end-to-end median |error| (%) is above this"),
    O("--out", OPT_STR, out_file, 0, 0, CMD_CALIBRATE,
      "write the calibrated device file here (default: stdout)"),
    O("--op", OPT_STR, op, 0, 0, CMD_OP, "gemm|attention|allreduce|copy"),
    O("--m", OPT_INT, m, 1, (double)(1LL << 40), CMD_OP, "GEMM rows (tokens)"),
    O("--n", OPT_INT, n, 1, (double)(1LL << 40), CMD_OP, "GEMM columns"),
    O("--k", OPT_INT, k, 1, (double)(1LL << 40), CMD_OP, "GEMM inner dimension"),
    O("--heads", OPT_INT, heads, 1, 1 << 16, CMD_OP, "attention heads"),
    O("--head-dim", OPT_INT, head_dim, 1, 1 << 16, CMD_OP, "attention head dimension"),
    O("--seq", OPT_INT, seq, 1, 1 << 26, CMD_OP, "attention sequence length"),
    O("--causal", OPT_BOOL, causal, 0, 0, CMD_OP, "causal attention (half the pairs)"),
    O("--bytes", OPT_INT, bytes, 1, (double)(1LL << 50), CMD_OP,
      "copy / all-reduce message size"),
    O("--gpus", OPT_INT, gpus, 2, 65536, CMD_OP, "all-reduce participants"),
    O("--format", OPT_STR, format, 0, 0, CMD_MODEL | CMD_CHECK, "table|json|csv (default table)"),
    O("--help", OPT_BOOL, help, 0, 0, CMD_MODEL | CMD_CHECK | CMD_VALIDATE | CMD_OP | CMD_CALIBRATE,
      "this text"),
};
#undef O
#define N_OPTS (sizeof opts_table / sizeof opts_table[0])
_Static_assert(sizeof opts_table / sizeof opts_table[0] <= 96, "cli_opts.given is too small");

/* Whether the command line named flag `name`. */
static bool given(const cli_opts *o, const char *name)
{
    for (size_t j = 0; j < N_OPTS; j++)
        if (strcmp(opts_table[j].name, name) == 0)
            return o->given[j];
    return false;
}

static void usage(FILE *f, const char *cmd, int mask)
{
    fprintf(f, "usage: infersim %s [flags]\n", cmd);
    for (size_t i = 0; i < N_OPTS; i++) {
        const opt_def *o = &opts_table[i];
        if (!(o->cmds & mask))
            continue;
        const char *meta = o->kind == OPT_STR    ? " S"
                           : o->kind == OPT_BOOL ? ""
                           : o->kind == OPT_LIST ? " K:V.."
                                                 : " N";
        fprintf(f, "  %s%-*s %s\n", o->name, (int)(26 - strlen(o->name)), meta, o->help);
    }
}

static sim_status parse_value(const opt_def *o, const char *v, cli_opts *out, sim_err *err)
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

/* Parses argv[first..] for command `cmd` (bit `mask`). Accepts "--flag value" and "--flag=value". */
static sim_status parse_opts(int argc, char **argv, int first, const char *cmd, int mask,
                             cli_opts *out, sim_err *err)
{
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        const opt_def *o = NULL;
        for (size_t j = 0; j < N_OPTS; j++)
            if (strlen(opts_table[j].name) == len && strncmp(opts_table[j].name, arg, len) == 0 &&
                (opts_table[j].cmds & mask))
                o = &opts_table[j];
        if (!o && mask == CMD_CHECK && arg[0] != '-' && !out->trace) {
            out->trace = arg; /* trace-check FILE */
            continue;
        }
        if (!o)
            return sim_fail(err, SIM_EINPUT, "infersim %s: unknown %s '%s'; see 'infersim %s --help'",
                            cmd, arg[0] == '-' ? "flag" : "argument", arg, cmd);
        const char *v = eq ? eq + 1 : NULL;
        out->given[o - opts_table] = true;
        if (o->kind == OPT_BOOL) {
            if (v)
                return sim_fail(err, SIM_EINPUT, "%s: takes no value, got '%s'", o->name, v);
        } else if (!v) {
            if (i + 1 >= argc)
                return sim_fail(err, SIM_EINPUT, "%s: missing value; %s", o->name, o->help);
            v = argv[++i];
        }
        sim_status st = parse_value(o, v ? v : "", out, err);
        /* a list takes every following value up to the next flag */
        while (!st && o->kind == OPT_LIST && !eq && i + 1 < argc && strncmp(argv[i + 1], "--", 2))
            st = parse_value(o, argv[++i], out, err);
        if (st)
            return st;
    }
    return SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Model and device names */

/* A bare name ("h100-sxm") is looked up as DIR/NAME.json in the working directory, then in the
 * source tree next to the binary (build/infersim -> ../DIR). Anything else is used as given. */
static void resolve(const char *dir, const char *arg, char *buf, size_t len)
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

static sim_status parse_dtype_flag(const char *flag, const char *v, sim_dtype *out, sim_err *err)
{
    if (!sim_dtype_parse(v, out))
        return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected one of %s", flag, v,
                        sim_dtype_names());
    return SIM_OK;
}

/* Defaults: weights in the model's format; activations fp8 with fp8 weights (W8A8, as vLLM's fp8
 * quantization), the 16-bit weight format with 16-bit weights, else the model's format
 * (weight-only int8/int4); KV cache in the 16-bit activation format. */
static sim_status resolve_prec(const cli_opts *o, const sim_model *m, sim_prec *p, sim_err *err)
{
    sim_status st;
    if (o->weight_dtype) {
        if ((st = parse_dtype_flag("--weight-dtype", o->weight_dtype, &p->weight, err)))
            return st;
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
        if ((st = parse_dtype_flag("--act-dtype", o->act_dtype, &p->act, err)))
            return st;
    } else {
        p->act = p->weight == SIM_DT_FP8 ? SIM_DT_FP8 : base;
    }
    if (o->kv_dtype)
        return parse_dtype_flag("--kv-cache-dtype", o->kv_dtype, &p->kv, err);
    p->kv = sim_dtype_is_16bit(p->act) ? p->act : base;
    return SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Files, loaded once: a sweep loads every model, device and trace it names before its parallel
 * loop (the points only copy them), so no file is parsed on a worker thread. */

typedef struct cache_entry {
    char kind;          /* 'm' model, 'h' device, 't' trace */
    char path[PATH_MAX];
    double scale;       /* traces: --time-scale */
    int64_t limit;      /* traces: --num-prompts, 0 = all */
    sim_status st;      /* how loading went */
    sim_err err;
    sim_model model;
    sim_hw hw;
    sim_workload w;
} cache_entry;

typedef struct file_cache {
    cache_entry *e;
    size_t n, cap;
} file_cache;

static const cache_entry *cache_find(const file_cache *c, char kind, const char *path,
                                     double scale, int64_t limit)
{
    for (size_t i = 0; c && i < c->n; i++)
        if (c->e[i].kind == kind && strcmp(c->e[i].path, path) == 0 &&
            (kind != 't' || (c->e[i].scale == scale && c->e[i].limit == limit)))
            return &c->e[i];
    return NULL;
}

/* Loads a file into the cache unless it is there (its failure is kept for the points). */
static sim_status cache_add(file_cache *c, char kind, const char *path, double scale,
                            int64_t limit)
{
    if (cache_find(c, kind, path, scale, limit))
        return SIM_OK;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        cache_entry *e = realloc(c->e, cap * sizeof *e);
        if (!e)
            return SIM_EINTERNAL;
        c->e = e;
        c->cap = cap;
    }
    cache_entry *e = &c->e[c->n++];
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

static void cache_free(file_cache *c)
{
    for (size_t i = 0; i < c->n; i++)
        sim_workload_free(&c->e[i].w);
    free(c->e);
    c->e = NULL;
    c->n = c->cap = 0;
}

/* A cached entry, or its load error; SIM_EINTERNAL if the sweep forgot to load it. */
static const cache_entry *cache_get(const file_cache *c, char kind, const char *path,
                                    double scale, int64_t limit, sim_err *err, sim_status *st)
{
    const cache_entry *e = cache_find(c, kind, path, scale, limit);
    *st = !e ? sim_fail(err, SIM_EINTERNAL, "%s was not preloaded", path) : e->st;
    if (e && e->st && err)
        *err = e->err;
    return *st ? NULL : e;
}

static sim_status get_model(const file_cache *c, const char *path, sim_model *out, sim_err *err)
{
    if (!c)
        return sim_model_load(path, out, err);
    sim_status st;
    const cache_entry *e = cache_get(c, 'm', path, 0, 0, err, &st);
    if (e)
        *out = e->model;
    return st;
}

static sim_status get_hw(const file_cache *c, const char *path, sim_hw *out, sim_err *err)
{
    if (!c)
        return sim_hw_load(path, out, err);
    sim_status st;
    const cache_entry *e = cache_get(c, 'h', path, 0, 0, err, &st);
    if (e)
        *out = e->hw;
    return st;
}

typedef struct loaded {
    sim_model model;
    sim_hw hw;
    sim_format fmt;
    sim_step_cfg step;
    sim_model draft; /* --spec-model */
    sim_spec spec;   /* method none without --spec-method */
} loaded;

/* Speculative decoding from the --spec-* flags (after the target model is loaded). */
static sim_status load_spec(const cli_opts *o, loaded *L, const file_cache *cache, sim_err *err)
{
    static const char *const spec_flags[] = {"--num-speculative-tokens", "--spec-model",
                                             "--spec-acceptance-rate", "--spec-acceptance-length"};
    sim_spec_method method = SIM_SPEC_NONE;
    if (!o->spec_method) {
        for (size_t i = 0; i < sizeof spec_flags / sizeof spec_flags[0]; i++)
            if (given(o, spec_flags[i]))
                return sim_fail(err, SIM_EINPUT, "%s: needs --spec-method", spec_flags[i]);
        return sim_spec_init(&L->spec, SIM_SPEC_NONE, 0, -1, -1, &L->model, NULL, err);
    }
    if (!sim_spec_method_parse(o->spec_method, &method))
        return sim_fail(err, SIM_EINPUT,
                        "--spec-method: value '%s', expected draft, eagle, medusa, mtp or ngram",
                        o->spec_method);
    if (!given(o, "--num-speculative-tokens"))
        return sim_fail(err, SIM_EINPUT, "--num-speculative-tokens: missing, --spec-method %s "
                                         "needs K (tokens drafted per verify step)",
                        o->spec_method);
    const sim_model *draft = NULL;
    if (o->spec_model) {
        char path[PATH_MAX];
        resolve("models", o->spec_model, path, sizeof path);
        sim_status st = get_model(cache, path, &L->draft, err);
        if (st)
            return st;
        draft = &L->draft;
    }
    double alpha = given(o, "--spec-acceptance-rate") ? o->spec_alpha : -1.0;
    double tau = given(o, "--spec-acceptance-length") ? o->spec_tau : -1.0;
    return sim_spec_init(&L->spec, method, (int)o->spec_k, alpha, tau, &L->model, draft, err);
}

/* Loads what the commands share (from the cache when one is given). The model is optional for
 * roofline. */
static sim_status load_common(const cli_opts *o, bool need_model, loaded *L,
                              const file_cache *cache, sim_err *err)
{
    char path[PATH_MAX];
    sim_status st;
    if (!o->hw)
        return sim_fail(err, SIM_EINPUT, "--hw: missing, expected a device file or name (e.g. "
                                         "--hw h100-sxm)");
    if (need_model && !o->model)
        return sim_fail(err, SIM_EINPUT, "--model: missing, expected a config.json or name (e.g. "
                                         "--model llama-3.1-8b)");
    if (!sim_format_parse(o->format, &L->fmt))
        return sim_fail(err, SIM_EINPUT, "--format: value '%s', expected table, json or csv",
                        o->format);
    resolve("hw", o->hw, path, sizeof path);
    if ((st = get_hw(cache, path, &L->hw, err)))
        return st;
    L->step = (sim_step_cfg){.model = &L->model, .hw = &L->hw, .tp = (int)o->tp,
                             .overlap = o->overlap, .eager = o->enforce_eager,
                             .iteration_overhead_ns = o->iter_us * 1e3,
                             .request_overhead_ns = o->req_us * 1e3,
                             .async_sched = o->async_sched};
    if (!o->model)
        return SIM_OK;
    resolve("models", o->model, path, sizeof path);
    if ((st = get_model(cache, path, &L->model, err)) ||
        (st = resolve_prec(o, &L->model, &L->step.prec, err)) ||
        (st = load_spec(o, L, cache, err)))
        return st;
    return sim_step_check(&L->step, err);
}

static const cli_opts defaults = {
    .format = "table", .tp = 1, .batch = 1, .input_len = 1024, .output_len = 256,
    .overlap = 0.0, .util = 0.9,
    /* A synchronous engine loop (vLLM's default; --async-scheduling is opt-in) spends 1-5 ms of
     * CPU per step in public profiles (vLLM RFC #6854: ~4 ms GPU bubbles per decode step before
     * v0.6); the defaults take the low end, plus a per-request share that grows the scheduler's
     * work with the batch. Not calibrated: set them to your engine's. */
    .iter_us = 1000.0, .req_us = 10.0,
    /* serve: vLLM's bench defaults where they exist (random dataset, rate inf), its engine
     * defaults for the batch limits (256 sequences; 8192 tokens, its default on large GPUs) */
    .num_prompts = 1000, .rand_in = 1024, .rand_out = 128, .rate = INFINITY, .burstiness = 1.0,
    .time_scale = 1.0, .block_size = 16, .max_seqs = 256, .max_tokens = 8192,
};

/* ------------------------------------------------------------------------------------------ */
/* Commands */

/* The run's timeline: its prefill step and its first decode (or verify) step. */
static sim_status write_run_trace(const char *path, const sim_run_cfg *cfg,
                                  const sim_run_result *r, sim_err *err)
{
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
    sim_status st = sim_trace_run(path, &cfg->step, &r->prefill, dec, err);
    free(dec);
    return st;
}

/* A static batch from the flags: loaded (from the cache when given), checked, simulated. */
static sim_status run_point(const cli_opts *o, loaded *L, const file_cache *cache,
                            sim_run_cfg *cfg, sim_run_result *r, sim_err *err)
{
    sim_status st = load_common(o, true, L, cache, err);
    *cfg = (sim_run_cfg){.batch = o->batch, .input_len = o->input_len,
                         .output_len = o->output_len, .mem_util = o->util, .spec = &L->spec};
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
    loaded *L = calloc(1, sizeof *L);
    sim_run_result *r = calloc(1, sizeof *r);
    if (!L || !r) {
        free(L);
        free(r);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    sim_run_cfg cfg;
    sim_status st = run_point(o, L, NULL, &cfg, r, err);
    if (!st && o->chrome_trace)
        st = write_run_trace(o->chrome_trace, &cfg, r, err);
    if (!st && (st = sim_report_run(out, L->fmt, &cfg, r)))
        sim_fail(err, st, "writing the result failed");
    free(r);
    free(L);
    return st;
}

static sim_status cmd_roofline(const cli_opts *o, FILE *out, sim_err *err)
{
    loaded *L = calloc(1, sizeof *L);
    sim_step_result *pre = calloc(1, sizeof *pre), *dec = calloc(1, sizeof *dec);
    if (!L || !pre || !dec) {
        free(L);
        free(pre);
        free(dec);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    sim_status st = load_common(o, false, L, NULL, err);
    sim_roofline rf = {.hw = &L->hw, .dtype = SIM_DT_BF16, .batch = o->batch,
                       .input_len = o->input_len};
    if (!st && o->model)
        rf.dtype = sim_graph_gemm_dtype(&L->step.prec);
    if (!st && o->dtype && !(st = parse_dtype_flag("--dtype", o->dtype, &rf.dtype, err)) &&
        L->hw.peak_flops[rf.dtype] <= 0.0)
        st = sim_fail(err, SIM_EINPUT, "--dtype: value %s is not computed by %s (%s has no "
                                       "dense_tflops.%s)",
                      o->dtype, L->hw.name, L->hw.path, o->dtype);
    if (!st && o->model) {
        if (o->input_len > L->model.max_positions)
            st = sim_fail(err, SIM_EINPUT, "--input-len: value %lld is past the context of %s "
                                           "(max_position_embeddings %lld)",
                          (long long)o->input_len, L->model.path,
                          (long long)L->model.max_positions);
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
    static const char *const synthetic_only[] = {"--random-input-len", "--random-output-len",
                                                 "--random-range-ratio", "--request-rate",
                                                 "--burstiness", "--seed"};
    if (o->trace) {
        for (size_t i = 0; i < sizeof synthetic_only / sizeof synthetic_only[0]; i++)
            if (given(o, synthetic_only[i]))
                return sim_fail(err, SIM_EINPUT,
                                "%s: does not apply to --trace (the trace gives arrivals and "
                                "lengths; use --time-scale to replay it faster or slower)",
                                synthetic_only[i]);
        return SIM_OK;
    }
    if (given(o, "--time-scale"))
        return sim_fail(err, SIM_EINPUT, "--time-scale: applies only to --trace");
    return SIM_OK;
}

static int64_t trace_limit(const cli_opts *o) { return given(o, "--num-prompts") ? o->num_prompts : 0; }

/* The workload of a serve command: a trace (from the cache when given), or vLLM's random dataset
 * drawn with `seed`. *w points at `own` or at the cached trace. */
static sim_status serve_workload(const cli_opts *o, const file_cache *cache, uint64_t seed,
                                 sim_workload *own, const sim_workload **w, sim_err *err)
{
    sim_status st = check_workload_flags(o, err);
    *w = own;
    if (st)
        return st;
    if (o->trace && cache) {
        const cache_entry *e = cache_get(cache, 't', o->trace, o->time_scale, trace_limit(o), err,
                                         &st);
        if (e)
            *w = &e->w;
        return st;
    }
    if (o->trace)
        return sim_workload_load_trace(o->trace, o->time_scale, trace_limit(o), own, err);
    sim_synth_cfg s = {.num_prompts = o->num_prompts, .input_len = o->rand_in,
                       .output_len = o->rand_out, .range_ratio = o->range_ratio,
                       .request_rate = o->rate, .burstiness = o->burstiness, .seed = seed};
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

static sim_status open_serve_trace(const cli_opts *o, sim_engine_cfg *cfg, size_t n,
                                   sim_trace_serve **out, sim_err *err)
{
    sim_trace_detail detail = SIM_TRACE_ITERATION;
    int64_t w0 = 0, w1 = -1;
    if (o->trace_detail && !sim_trace_detail_parse(o->trace_detail, &detail))
        return sim_fail(err, SIM_EINPUT, "--trace-detail: value '%s', expected iteration, layer "
                                         "or op",
                        o->trace_detail);
    sim_status st = o->trace_window ? parse_window(o->trace_window, &w0, &w1, err) : SIM_OK;
    if (st)
        return st;
    sim_trace_serve *ts = calloc(1, sizeof *ts);
    if (!ts)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    if ((st = sim_trace_serve_open(ts, o->chrome_trace, detail, w0, w1, n, &cfg->step, err))) {
        free(ts);
        return st;
    }
    cfg->observer = &ts->observer;
    *out = ts;
    return SIM_OK;
}

/* A serving run from the flags, with what its report needs. */
typedef struct serve_state {
    sim_engine_cfg cfg;
    sim_workload own;        /* a synthetic workload */
    const sim_workload *w;   /* &own or a cached trace */
    sim_engine_result res;
    sim_serve_metrics m;
    sim_slo slo;
} serve_state;

static void serve_state_free(serve_state *s)
{
    sim_engine_result_free(&s->res);
    sim_workload_free(&s->own);
}

/* Loads, checks and simulates; a --chrome-trace timeline is written alongside. */
static sim_status serve_point(const cli_opts *o, loaded *L, const file_cache *cache,
                              uint64_t seed, serve_state *s, sim_err *err)
{
    memset(s, 0, sizeof *s);
    s->cfg = (sim_engine_cfg){
        .sched = {.max_num_seqs = o->max_seqs, .max_num_batched_tokens = o->max_tokens,
                  .chunked_prefill = !o->no_chunked},
        .block_size = o->block_size, .mem_util = o->util,
        .max_concurrency = given(o, "--max-concurrency") ? o->max_concurrency : 0, .seed = seed};
    if (!o->chrome_trace && (o->trace_detail || o->trace_window))
        return sim_fail(err, SIM_EINPUT, "%s: needs --chrome-trace FILE",
                        o->trace_detail ? "--trace-detail" : "--trace-window");
    sim_status st = load_common(o, true, L, cache, err);
    if (!st && o->goodput[0])
        st = sim_slo_parse(o->goodput, &s->slo, err);
    if (!st)
        st = serve_workload(o, cache, seed, &s->own, &s->w, err);
    if (!st) {
        s->cfg.step = L->step;
        s->cfg.spec = &L->spec;
        s->cfg.sched.spec_tokens = sim_spec_active(&L->spec) ? L->spec.k : 0;
        st = sim_engine_check(&s->cfg, s->w, err);
    }
    sim_trace_serve *ts = NULL;
    if (!st && o->chrome_trace)
        st = open_serve_trace(o, &s->cfg, s->w->n, &ts, err);
    if (!st)
        st = sim_engine_run(&s->cfg, s->w, &s->res, err);
    if (ts) {
        if (!st)
            st = sim_trace_serve_close(ts, s->res.duration_ns, err);
        else
            sim_trace_serve_abort(ts);
        free(ts);
        s->cfg.observer = NULL;
    }
    if (!st && sim_metrics_compute(&s->res, &s->slo, &s->m))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory computing metrics");
    return st;
}

static sim_status cmd_serve(const cli_opts *o, FILE *out, sim_err *err)
{
    loaded *L = calloc(1, sizeof *L);
    serve_state *s = calloc(1, sizeof *s);
    if (!L || !s) {
        free(L);
        free(s);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    sim_status st = serve_point(o, L, NULL, (uint64_t)o->seed, s, err);
    sim_serve_report rep = {.cfg = &s->cfg, .w = s->w, .res = &s->res, .m = &s->m,
                            .request_rate = o->trace ? NAN : o->rate};
    if (!st && o->save_requests)
        st = sim_report_save_requests(o->save_requests, &rep, err);
    if (!st && (st = sim_report_serve(out, L->fmt, &rep)))
        sim_fail(err, st, "writing the result failed");
    serve_state_free(s);
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
    fprintf(out, "%s: ok: %lld events (%lld slices on %lld tracks, %lld counters, %lld async, "
                 "%lld metadata); ends at %.3f ms; %lld iterations, busy %.3f ms\n",
            o->trace, (long long)s.events, (long long)s.slices, (long long)s.tracks,
            (long long)s.counters, (long long)s.async_events, (long long)s.metadata,
            (double)s.end_ns / 1e6, (long long)s.iterations, (double)s.iteration_ns / 1e6);
    return SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* sweep: the run or serve command over a grid of flag values, points in parallel */

enum { SWEEP_MAX_DIMS = 48 };

typedef struct sweep_ctx {
    int mask;                 /* CMD_RUN or CMD_SERVE */
    const sim_grid *g;
    sim_shard shard;
    cli_opts *opts;           /* per shard point */
    sim_status *opt_st;       /* per shard point: building its options */
    sim_err *opt_err;
    file_cache cache;
    bool jsonl;
    bool has_slo;
    sim_slo slo;
    int pct;                  /* SLO percentile: 50, 90 or 99 */
} sweep_ctx;

/* A point's flags: the command's defaults, then each dimension's value. */
static sim_status point_opts(const sweep_ctx *c, size_t point, cli_opts *o, sim_err *err)
{
    const char *vals[SWEEP_MAX_DIMS];
    sim_grid_point(c->g, point, vals);
    *o = defaults;
    for (size_t d = 0; d < c->g->n_dims; d++) {
        const char *name = c->g->dims[d].name;
        const opt_def *def = NULL;
        for (size_t j = 0; j < N_OPTS; j++)
            if (strcmp(opts_table[j].name, name) == 0 && (opts_table[j].cmds & c->mask))
                def = &opts_table[j];
        if (!def)
            return sim_fail(err, SIM_EINTERNAL, "%s: not a flag of this command", name);
        if (def->kind == OPT_BOOL) {
            if (strcmp(vals[d], "false") == 0)
                continue;
            if (strcmp(vals[d], "true") != 0)
                return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected true or false", name,
                                vals[d]);
        }
        o->given[def - opts_table] = true;
        sim_status st = parse_value(def, def->kind == OPT_BOOL ? "" : vals[d], o, err);
        if (st)
            return st;
    }
    return SIM_OK;
}

/* "1" for a number, "\"x\"" otherwise: how a JSONL row writes a swept value. */
static bool is_number(const char *v)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    return end != v && !*end && !errno && isfinite(x);
}

/* Appends to a growing row buffer. */
typedef struct rowbuf {
    char *s;
    size_t len, cap;
    bool oom;
} rowbuf;

static void rb_add(rowbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rb_add(rowbuf *b, const char *fmt, ...)
{
    for (int tries = 0; tries < 2 && !b->oom; tries++) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 64) * 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
}

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void rb_csv(rowbuf *b, const char *v)
{
    if (!strpbrk(v, ",\"\n\r")) {
        rb_add(b, "%s", v);
        return;
    }
    rb_add(b, "\"");
    for (const char *p = v; *p; p++)
        rb_add(b, *p == '"' ? "\"\"" : "%c", *p);
    rb_add(b, "\"");
}

static void rb_json_str(rowbuf *b, const char *v)
{
    rb_add(b, "\"");
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\')
            rb_add(b, "\\%c", *p);
        else if (*p < 0x20)
            rb_add(b, "\\u%04x", *p);
        else
            rb_add(b, "%c", *p);
    }
    rb_add(b, "\"");
}

/* Metric columns: one table per command, each a name and where its value comes from. */
typedef struct metric_val {
    const char *name;
    bool is_text;
    double num;
    const char *text;
} metric_val;

#define MAX_METRICS 40

static size_t run_metrics(const sim_run_cfg *cfg, const sim_run_result *r, metric_val *m)
{
    size_t n = 0;
    double gpus = cfg->step.tp;
#define NUM(k, v) m[n++] = (metric_val){.name = k, .num = (v)}
#define TXT(k, v) m[n++] = (metric_val){.name = k, .is_text = true, .text = (v)}
    NUM("gpus", gpus);
    NUM("ttft_ms", r->ttft_ns / 1e6);
    NUM("tpot_ms", r->tpot_ns / 1e6);
    NUM("e2e_ms", r->e2e_ns / 1e6);
    NUM("output_throughput", r->output_throughput);
    NUM("output_throughput_per_gpu", r->output_throughput / gpus);
    TXT("prefill_bound", sim_bound_name(r->prefill.bound));
    TXT("decode_bound", r->decode_steps > 0 ? sim_bound_name(r->decode.bound) : "");
    NUM("hbm_bytes_per_gpu", r->mem.need_bytes);
    NUM("max_batch", (double)r->mem.max_batch);
    NUM("spec_speedup", r->spec_speedup);
    return n;
}

static size_t serve_metrics(const serve_state *s, metric_val *m)
{
    size_t n = 0;
    const sim_serve_metrics *x = &s->m;
    double gpus = s->cfg.step.tp;
    NUM("gpus", gpus);
    NUM("completed", (double)x->completed);
    NUM("duration", x->duration_s);
    NUM("request_throughput", x->request_throughput);
    NUM("output_throughput", x->output_throughput);
    NUM("output_throughput_per_gpu", x->output_throughput / gpus);
    NUM("total_token_throughput", x->total_token_throughput);
    static const char *const keys[SIM_M_COUNT][4] = {
        [SIM_M_TTFT] = {"mean_ttft_ms", "median_ttft_ms", "p90_ttft_ms", "p99_ttft_ms"},
        [SIM_M_TPOT] = {"mean_tpot_ms", "median_tpot_ms", "p90_tpot_ms", "p99_tpot_ms"},
        [SIM_M_ITL] = {"mean_itl_ms", "median_itl_ms", "p90_itl_ms", "p99_itl_ms"},
        [SIM_M_E2EL] = {"mean_e2el_ms", "median_e2el_ms", "p90_e2el_ms", "p99_e2el_ms"},
    };
    for (int k = 0; k < SIM_M_COUNT; k++) {
        NUM(keys[k][0], x->dist[k].mean);
        NUM(keys[k][1], x->dist[k].median);
        NUM(keys[k][2], x->dist[k].p90);
        NUM(keys[k][3], x->dist[k].p99);
    }
    NUM("request_goodput", x->has_goodput ? x->request_goodput : 0.0);
    NUM("preemptions", (double)x->preemptions);
    NUM("mean_batch_size", x->mean_batch_size);
    NUM("kv_cache_peak_usage", x->kv_cache_peak_usage);
    NUM("spec_acceptance_length", x->spec_acceptance_length);
#undef NUM
#undef TXT
    return n;
}

/* The metric names of a command (from a zeroed result), for the header. */
static size_t metric_names(int mask, metric_val *m)
{
    static const sim_run_result r0;
    static const serve_state s0 = {.cfg = {.step = {.tp = 1}}};
    static const sim_run_cfg c0 = {.step = {.tp = 1}};
    return mask == CMD_RUN ? run_metrics(&c0, &r0, m) : serve_metrics(&s0, m);
}

/* A dimension shows as a column when it has more than one value. */
static bool shown(const sim_grid_dim *d) { return d->n > 1; }

static void row_text(const sweep_ctx *c, size_t point, const metric_val *m, size_t nm,
                     bool meets, const char *error, rowbuf *b)
{
    const char *vals[SWEEP_MAX_DIMS];
    sim_grid_point(c->g, point, vals);
    if (c->jsonl) {
        rb_add(b, "{\"point\":%zu", point);
        for (size_t d = 0; d < c->g->n_dims; d++) {
            if (!shown(&c->g->dims[d]))
                continue;
            rb_add(b, ",");
            rb_json_str(b, c->g->dims[d].name + 2);
            rb_add(b, ":");
            if (is_number(vals[d]))
                rb_add(b, "%s", vals[d]);
            else
                rb_json_str(b, vals[d]);
        }
        for (size_t k = 0; k < nm && !error; k++) {
            rb_add(b, ",\"%s\":", m[k].name);
            if (m[k].is_text)
                rb_json_str(b, m[k].text);
            else
                rb_add(b, "%.10g", isfinite(m[k].num) ? m[k].num : 0.0);
        }
        if (c->has_slo)
            rb_add(b, ",\"meets_slo\":%s", meets ? "true" : "false");
        rb_add(b, ",\"error\":");
        if (error)
            rb_json_str(b, error);
        else
            rb_add(b, "null");
        rb_add(b, "}\n");
        return;
    }
    rb_add(b, "%zu", point);
    for (size_t d = 0; d < c->g->n_dims; d++) {
        if (!shown(&c->g->dims[d]))
            continue;
        rb_add(b, ",");
        rb_csv(b, vals[d]);
    }
    for (size_t k = 0; k < nm; k++) {
        if (error)
            rb_add(b, ",");
        else if (m[k].is_text)
            rb_add(b, ",%s", m[k].text);
        else
            rb_add(b, ",%.10g", isfinite(m[k].num) ? m[k].num : 0.0);
    }
    if (c->has_slo)
        rb_add(b, ",%s", error ? "" : meets ? "true" : "false");
    rb_add(b, ",");
    if (error)
        rb_csv(b, error);
    rb_add(b, "\n");
}

/* Whether a point meets the SLO at the chosen percentile, and its TPOT there. */
static bool meets_slo(const sweep_ctx *c, double ttft, double tpot, double e2el)
{
    const double *slo = c->slo.ms;
    return (slo[SIM_M_TTFT] <= 0 || ttft <= slo[SIM_M_TTFT]) &&
           (slo[SIM_M_TPOT] <= 0 || tpot <= slo[SIM_M_TPOT]) &&
           (slo[SIM_M_E2EL] <= 0 || e2el <= slo[SIM_M_E2EL]);
}

static double at_pct(const sim_dist *d, int pct)
{
    return pct == 50 ? d->median : pct == 99 ? d->p99 : d->p90;
}

/* Evaluates one point (any thread): run or serve, into a formatted row. */
static void sweep_eval(void *vctx, size_t point, sim_sweep_row *row)
{
    const sweep_ctx *c = vctx;
    size_t k = (point - c->shard.index) / c->shard.count;
    const cli_opts *o = &c->opts[k];
    sim_err err = c->opt_err[k];
    sim_status st = c->opt_st[k];
    metric_val m[MAX_METRICS];
    size_t nm = metric_names(c->mask, m);
    rowbuf b = {0};
    loaded *L = calloc(1, sizeof *L);
    if (!L)
        return;
    double ttft = 0, tpot = 0, e2el = 0;
    if (!st && c->mask == CMD_RUN) {
        sim_run_result *r = calloc(1, sizeof *r);
        sim_run_cfg cfg;
        st = r ? run_point(o, L, &c->cache, &cfg, r, &err) : SIM_EINTERNAL;
        if (!st) {
            nm = run_metrics(&cfg, r, m);
            ttft = r->ttft_ns / 1e6;
            tpot = r->tpot_ns / 1e6;
            e2el = r->e2e_ns / 1e6;
            row->tput_per_gpu = r->output_throughput / cfg.step.tp;
        }
        free(r);
    } else if (!st) {
        serve_state *s = calloc(1, sizeof *s);
        /* each point's own seed, from the global seed and its grid index */
        sim_rng rng;
        sim_rng_seed(&rng, (uint64_t)o->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(point + 1)));
        st = s ? serve_point(o, L, &c->cache, sim_rng_next(&rng), s, &err) : SIM_EINTERNAL;
        if (!st) {
            nm = serve_metrics(s, m);
            ttft = at_pct(&s->m.dist[SIM_M_TTFT], c->pct);
            tpot = at_pct(&s->m.dist[SIM_M_TPOT], c->pct);
            e2el = at_pct(&s->m.dist[SIM_M_E2EL], c->pct);
            row->tput_per_gpu = s->m.output_throughput / s->cfg.step.tp;
        }
        if (s)
            serve_state_free(s);
        free(s);
    }
    free(L);
    row->ok = st == SIM_OK;
    row->tpot_ms = tpot;
    row->meets_slo = row->ok && c->has_slo && meets_slo(c, ttft, tpot, e2el);
    row_text(c, point, m, nm, row->meets_slo, st ? (err.msg[0] ? err.msg : "internal error") : NULL,
             &b);
    if (b.oom) {
        free(b.s);
        b.s = NULL;
    }
    row->text = b.s;
}

/* Loads, serially, every file the shard's points name. */
static sim_status sweep_prepare(sweep_ctx *c, size_t n, sim_err *err)
{
    for (size_t k = 0; k < n; k++) {
        size_t point = sim_shard_point(&c->shard, k);
        c->opt_st[k] = point_opts(c, point, &c->opts[k], &c->opt_err[k]);
        if (c->opt_st[k])
            continue;
        const cli_opts *o = &c->opts[k];
        char path[PATH_MAX];
        sim_status st = SIM_OK;
        if (o->hw) {
            resolve("hw", o->hw, path, sizeof path);
            st |= cache_add(&c->cache, 'h', path, 0, 0);
        }
        if (o->model) {
            resolve("models", o->model, path, sizeof path);
            st |= cache_add(&c->cache, 'm', path, 0, 0);
        }
        if (o->spec_model) {
            resolve("models", o->spec_model, path, sizeof path);
            st |= cache_add(&c->cache, 'm', path, 0, 0);
        }
        if (o->trace && c->mask == CMD_SERVE)
            st |= cache_add(&c->cache, 't', o->trace, o->time_scale, trace_limit(o));
        if (st)
            return sim_fail(err, SIM_EINTERNAL, "out of memory loading the sweep's files");
    }
    return SIM_OK;
}

/* Sweep-level flags, apart from the command's. */
typedef struct sweep_opts {
    const char *out, *slo, *shard, *grid;
    int64_t threads, pct;
} sweep_opts;

static bool sweep_flag(const char *name, const char *v, sweep_opts *s, sim_err *err,
                       sim_status *st)
{
    static const char *const names[] = {"--out", "--slo", "--shard", "--grid", "--threads",
                                        "--slo-percentile"};
    int which = -1;
    for (int i = 0; i < 6; i++)
        if (strcmp(name, names[i]) == 0)
            which = i;
    if (which < 0)
        return false;
    *st = SIM_OK;
    if (!v) {
        *st = sim_fail(err, SIM_EINPUT, "%s: missing value", name);
        return true;
    }
    char *end;
    long long x = 0;
    switch (which) {
    case 0: s->out = v; break;
    case 1: s->slo = v; break;
    case 2: s->shard = v; break;
    case 3: s->grid = v; break;
    default:
        errno = 0;
        x = strtoll(v, &end, 10);
        if (errno || end == v || *end || (which == 4 && (x < 1 || x > 1024)) ||
            (which == 5 && x != 50 && x != 90 && x != 99))
            *st = sim_fail(err, SIM_EINPUT, "%s: value '%s', expected %s", name, v,
                           which == 4 ? "1..1024 threads" : "50, 90 or 99");
        else if (which == 4)
            s->threads = x;
        else
            s->pct = x;
    }
    return true;
}

/* --grid FILE: {"command": "serve", "grid": {"--tp": [1, 2], "model": ["a", "b"], ...}} */
static sim_status grid_from_file(const char *path, const char *cmd, sim_grid *g, sim_err *err)
{
    cJSON *root;
    sim_status st = sim_jsonf_load(path, &root, err);
    if (st)
        return st;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "command");
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(root, "grid");
    if (c && (!cJSON_IsString(c) || strcmp(c->valuestring, cmd) != 0))
        st = sim_fail(err, SIM_EINPUT, "%s: field 'command' is not \"%s\" (the sweep's command)",
                      path, cmd);
    else if (!cJSON_IsObject(grid))
        st = sim_fail(err, SIM_EINPUT, "%s: field 'grid' is missing, expected an object of "
                                       "flag: [values]",
                      path);
    const cJSON *dim;
    if (!st) {
        cJSON_ArrayForEach(dim, grid)
        {
            char name[64], vbuf[64][256];
            const char *vals[64];
            snprintf(name, sizeof name, "%s%s", strncmp(dim->string, "--", 2) ? "--" : "",
                     dim->string);
            size_t n = 0;
            const cJSON *v = cJSON_IsArray(dim) ? dim->child : dim;
            for (; v && n < 64; v = cJSON_IsArray(dim) ? v->next : NULL) {
                if (cJSON_IsString(v))
                    snprintf(vbuf[n], sizeof vbuf[n], "%s", v->valuestring);
                else if (cJSON_IsBool(v))
                    snprintf(vbuf[n], sizeof vbuf[n], "%s", cJSON_IsTrue(v) ? "true" : "false");
                else if (cJSON_IsNumber(v))
                    snprintf(vbuf[n], sizeof vbuf[n], "%.17g", v->valuedouble);
                else {
                    st = sim_fail(err, SIM_EINPUT, "%s: grid.%s holds a value that is not a "
                                                   "string, number or boolean",
                                  path, dim->string);
                    break;
                }
                vals[n] = vbuf[n];
                n++;
            }
            if (!st)
                st = sim_grid_add_values(g, name, vals, n, err);
            if (st)
                break;
        }
    }
    cJSON_Delete(root);
    return st;
}

/* Parses `infersim sweep run|serve [flags]` into the grid and the sweep's own flags. */
static sim_status sweep_parse(int argc, char **argv, int mask, sim_grid *g, sweep_opts *so,
                              sim_err *err)
{
    sim_status st = SIM_OK;
    for (int i = 3; i < argc && !st; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq ? eq - arg : (long)strlen(arg)), arg);
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[i + 1] : NULL);
        if (sweep_flag(name, v, so, err, &st)) {
            i += !eq;
            continue;
        }
        const opt_def *def = NULL;
        for (size_t j = 0; j < N_OPTS; j++)
            if (strcmp(opts_table[j].name, name) == 0 && (opts_table[j].cmds & mask))
                def = &opts_table[j];
        if (!def)
            return sim_fail(err, SIM_EINPUT, "infersim sweep %s: unknown flag '%s'", argv[2], arg);
        static const char *const per_run[] = {"--save-requests", "--chrome-trace",
                                              "--trace-detail", "--trace-window", "--format",
                                              "--help"};
        for (size_t k = 0; k < sizeof per_run / sizeof per_run[0]; k++)
            if (strcmp(name, per_run[k]) == 0)
                return sim_fail(err, SIM_EINPUT, "%s: not available in a sweep (one output per "
                                                 "point); run the point on its own",
                                name);
        if (def->kind == OPT_BOOL) {
            st = sim_grid_add(g, name, eq ? eq + 1 : "true", err);
            continue;
        }
        if (!v)
            return sim_fail(err, SIM_EINPUT, "%s: missing value", name);
        i += !eq;
        /* a list flag's value holds commas of its own: never a dimension */
        st = def->kind == OPT_LIST ? sim_grid_add_values(g, name, &v, 1, err)
                                   : sim_grid_add(g, name, v, err);
    }
    if (!st && g->n_dims > SWEEP_MAX_DIMS)
        st = sim_fail(err, SIM_EINPUT, "sweep: %zu flags, at most %d", g->n_dims, SWEEP_MAX_DIMS);
    return st;
}

static void point_label(const sim_grid *g, size_t point, char *buf, size_t len)
{
    const char *vals[SWEEP_MAX_DIMS];
    sim_grid_point(g, point, vals);
    size_t n = 0;
    buf[0] = '\0';
    for (size_t d = 0; d < g->n_dims && n + 1 < len; d++)
        if (shown(&g->dims[d]))
            n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? " " : "", g->dims[d].name,
                                  vals[d]);
}

static void sweep_summary(FILE *f, const sweep_ctx *c, const sim_sweep_row *rows, size_t n)
{
    size_t ok = 0, meet = 0;
    for (size_t i = 0; i < n; i++) {
        ok += rows[i].ok;
        meet += rows[i].meets_slo;
    }
    fprintf(f, "sweep: %zu points (shard %zu/%zu of %zu), %zu ok, %zu invalid", n, c->shard.index,
            c->shard.count, sim_grid_points(c->g), ok, n - ok);
    if (c->has_slo)
        fprintf(f, ", %zu meet the SLO (p%d)", meet, c->pct);
    fputc('\n', f);
    char label[1024];
    if (c->has_slo) {
        size_t b = sim_sweep_best(rows, n);
        if (b < n) {
            point_label(c->g, rows[b].point, label, sizeof label);
            fprintf(f, "best under the SLO: point %zu (%s): %.1f output tok/s per GPU, TPOT %.2f "
                       "ms\n",
                    rows[b].point, label, rows[b].tput_per_gpu, rows[b].tpot_ms);
        } else {
            fprintf(f, "best under the SLO: none meets it\n");
        }
    }
    bool *front = calloc(n ? n : 1, sizeof *front);
    if (!front)
        return;
    size_t nf = sim_sweep_pareto(rows, n, front);
    fprintf(f, "Pareto frontier (output tok/s per GPU against TPOT), %zu points:\n", nf);
    /* listed from the lowest TPOT up, as the frontier runs */
    for (size_t shown_n = 0, prev = n; shown_n < nf; shown_n++) {
        size_t i = n;
        for (size_t j = 0; j < n; j++)
            if (front[j] && (prev == n || rows[j].tpot_ms > rows[prev].tpot_ms ||
                             (rows[j].tpot_ms == rows[prev].tpot_ms && j > prev)) &&
                (i == n || rows[j].tpot_ms < rows[i].tpot_ms))
                i = j;
        if (i == n)
            break;
        prev = i;
        point_label(c->g, rows[i].point, label, sizeof label);
        fprintf(f, "  point %zu: TPOT %.2f ms, %.1f tok/s per GPU%s  %s\n", rows[i].point,
                rows[i].tpot_ms, rows[i].tput_per_gpu,
                c->has_slo ? (rows[i].meets_slo ? " (meets SLO)" : "") : "", label);
    }
    free(front);
}

static void sweep_header(FILE *f, const sweep_ctx *c)
{
    if (c->jsonl)
        return;
    metric_val m[MAX_METRICS];
    size_t nm = metric_names(c->mask, m);
    fprintf(f, "point");
    for (size_t d = 0; d < c->g->n_dims; d++)
        if (shown(&c->g->dims[d]))
            fprintf(f, ",%s", c->g->dims[d].name + 2);
    for (size_t k = 0; k < nm; k++)
        fprintf(f, ",%s", m[k].name);
    if (c->has_slo)
        fprintf(f, ",meets_slo");
    fprintf(f, ",error\n");
}

/* Writes rows in order to `path` through a temporary file (or to `f` when path is NULL). */
static sim_status write_rows(const char *path, FILE *f, const sweep_ctx *c,
                             const sim_sweep_row *rows, size_t n, sim_err *err)
{
    char tmp[PATH_MAX + 8];
    if (path) {
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        if (!(f = fopen(tmp, "w")))
            return sim_fail(err, SIM_EINPUT, "--out: cannot write %s: %s", tmp, strerror(errno));
    }
    sweep_header(f, c);
    for (size_t i = 0; i < n; i++)
        fputs(rows[i].text, f);
    if (!path)
        return ferror(f) ? sim_fail(err, SIM_EINTERNAL, "writing the rows failed") : SIM_OK;
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        remove(tmp);
        return sim_fail(err, SIM_EINPUT, "--out: writing %s failed", path);
    }
    return SIM_OK;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static sim_status cmd_sweep(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    if (argc < 3 || (strcmp(argv[2], "run") != 0 && strcmp(argv[2], "serve") != 0))
        return sim_fail(err, SIM_EINPUT, "sweep: expected 'infersim sweep run|serve [flags, any "
                                         "value a comma-separated list]'");
    sweep_ctx c = {.mask = strcmp(argv[2], "run") == 0 ? CMD_RUN : CMD_SERVE, .shard = {0, 1},
                   .pct = 90};
    sweep_opts so = {.threads = sim_sweep_max_threads(), .pct = 90};
    sim_grid g = {0};
    sim_status st = SIM_OK;
    /* the grid file's dimensions come first, the command line's after */
    for (int i = 3; i < argc; i++)
        if (strncmp(argv[i], "--grid", 6) == 0 && (argv[i][6] == '=' || !argv[i][6]))
            st = grid_from_file(argv[i][6] == '=' ? argv[i] + 7 : (i + 1 < argc ? argv[i + 1] : ""),
                                argv[2], &g, err);
    if (!st)
        st = sweep_parse(argc, argv, c.mask, &g, &so, err);
    if (!st && so.shard)
        st = sim_shard_parse(so.shard, &c.shard, err);
    if (!st && so.slo) {
        st = sim_slo_parse(so.slo, &c.slo, err);
        if (st) /* name the sweep's flag, not serve's */
            st = sim_fail(err, SIM_EINPUT, "--slo: '%s', expected ttft:MS,tpot:MS[,e2el:MS]",
                          so.slo);
        c.has_slo = !st;
    }
    c.g = &g;
    c.pct = (int)so.pct;
    c.jsonl = so.out && (ends_with(so.out, ".jsonl") || ends_with(so.out, ".json"));
    size_t n = st ? 0 : sim_shard_points(&c.shard, sim_grid_points(&g));
    sim_sweep_row *rows = NULL;
    size_t n_rows = 0;
    if (!st) {
        c.opts = calloc(n ? n : 1, sizeof *c.opts);
        c.opt_st = calloc(n ? n : 1, sizeof *c.opt_st);
        c.opt_err = calloc(n ? n : 1, sizeof *c.opt_err);
        if (!c.opts || !c.opt_st || !c.opt_err)
            st = sim_fail(err, SIM_EINTERNAL, "out of memory for %zu points", n);
    }
    if (!st)
        st = sweep_prepare(&c, n, err);
    if (!st) {
        FILE *progress = isatty(fileno(errf)) ? errf : NULL;
        st = sim_sweep_run(&g, &c.shard, (int)so.threads, sweep_eval, &c, progress, &rows,
                           &n_rows, err);
    }
    if (!st)
        st = write_rows(so.out, so.out ? NULL : out, &c, rows, n_rows, err);
    if (!st)
        sweep_summary(so.out ? out : errf, &c, rows, n_rows);
    sim_sweep_rows_free(rows, n_rows);
    free(c.opts);
    free(c.opt_st);
    free(c.opt_err);
    cache_free(&c.cache);
    sim_grid_free(&g);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* merge: shard files back into one, in grid order */

typedef struct merge_line {
    long long point;
    char *text;
} merge_line;

static int by_point(const void *a, const void *b)
{
    const merge_line *x = a, *y = b;
    return x->point < y->point ? -1 : x->point > y->point;
}

/* The point index of a row: the first CSV field, or the "point" key of a JSON line. */
static bool row_point(const char *line, bool jsonl, long long *out)
{
    const char *p = line;
    if (jsonl) {
        p = strstr(line, "\"point\":");
        if (!p)
            return false;
        p += 8;
    }
    char *end;
    errno = 0;
    *out = strtoll(p, &end, 10);
    return !errno && end != p && (*end == ',' || *end == '}') && *out >= 0;
}

static sim_status cmd_merge(int argc, char **argv, FILE *out, sim_err *err)
{
    const char *dest = NULL;
    merge_line *lines = NULL;
    size_t n = 0, cap = 0;
    char *header = NULL, *buf = NULL;
    size_t blen = 0;
    sim_status st = SIM_OK;
    int files = 0;
    bool jsonl = false;
    for (int i = 2; i < argc && !st; i++) {
        if (strcmp(argv[i], "--out") == 0 || strncmp(argv[i], "--out=", 6) == 0) {
            dest = argv[i][5] == '=' ? argv[i] + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!dest)
                st = sim_fail(err, SIM_EINPUT, "--out: missing value");
            continue;
        }
        if (argv[i][0] == '-') {
            st = sim_fail(err, SIM_EINPUT, "infersim merge: unknown flag '%s'", argv[i]);
            break;
        }
        FILE *f = fopen(argv[i], "r");
        if (!f) {
            st = sim_fail(err, SIM_EINPUT, "%s: cannot open: %s", argv[i], strerror(errno));
            break;
        }
        bool this_jsonl = ends_with(argv[i], ".jsonl") || ends_with(argv[i], ".json");
        if (files++ && this_jsonl != jsonl)
            st = sim_fail(err, SIM_EINPUT, "%s: mixes CSV and JSONL shards", argv[i]);
        jsonl = this_jsonl;
        long lineno = 0;
        while (!st && getline(&buf, &blen, f) >= 0) {
            lineno++;
            if (!jsonl && lineno == 1) {
                if (!header)
                    header = strdup(buf);
                else if (strcmp(header, buf) != 0)
                    st = sim_fail(err, SIM_EINPUT, "%s:1: header differs from the first shard's",
                                  argv[i]);
                continue;
            }
            if (buf[0] == '\n')
                continue;
            long long point;
            if (!row_point(buf, jsonl, &point)) {
                st = sim_fail(err, SIM_EINPUT, "%s:%ld: no point index", argv[i], lineno);
                break;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                merge_line *l = realloc(lines, cap * sizeof *l);
                if (!l) {
                    st = sim_fail(err, SIM_EINTERNAL, "out of memory");
                    break;
                }
                lines = l;
            }
            lines[n].point = point;
            if (!(lines[n++].text = strdup(buf)))
                st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        }
        fclose(f);
    }
    if (!st && files == 0)
        st = sim_fail(err, SIM_EINPUT, "merge: expected shard files (infersim merge --out FILE "
                                       "shard...)");
    if (!st) {
        qsort(lines, n, sizeof *lines, by_point);
        for (size_t i = 1; i < n && !st; i++)
            if (lines[i].point == lines[i - 1].point)
                st = sim_fail(err, SIM_EINPUT, "merge: point %lld appears in two shards",
                              lines[i].point);
    }
    char tmp[PATH_MAX + 8];
    FILE *f = out;
    if (!st && dest) {
        snprintf(tmp, sizeof tmp, "%s.tmp", dest);
        if (!(f = fopen(tmp, "w")))
            st = sim_fail(err, SIM_EINPUT, "--out: cannot write %s: %s", tmp, strerror(errno));
    }
    if (!st) {
        if (header)
            fputs(header, f);
        for (size_t i = 0; i < n; i++) {
            fputs(lines[i].text, f);
            if (!strchr(lines[i].text, '\n'))
                fputc('\n', f);
        }
        if (dest) {
            bool bad = ferror(f) != 0;
            if (fclose(f) != 0 || bad || rename(tmp, dest) != 0) {
                remove(tmp);
                st = sim_fail(err, SIM_EINPUT, "--out: writing %s failed", dest);
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        free(lines[i].text);
    free(lines);
    free(header);
    free(buf);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Validation: op queries, the validation table, calibration, comparison with a measurement */

#define VALIDATION_DATA "tools/data/validation.csv"

/* The default measurements file, from the working directory or next to the binary. */
static void data_path(const cli_opts *o, char *buf, size_t len)
{
    if (o->data) {
        snprintf(buf, len, "%s", o->data);
        return;
    }
    resolve("tools/data", "validation", buf, len);
    if (access(buf, F_OK) != 0)
        snprintf(buf, len, "%s", VALIDATION_DATA);
}

static sim_status cmd_op(const cli_opts *o, FILE *out, sim_err *err)
{
    static const struct {
        const char *name;
        sim_vkind kind;
        const char *metric, *unit;
    } ops[] = {{"gemm", SIM_VK_GEMM, "tflops", "TFLOP/s"},
               {"attention", SIM_VK_ATTENTION, "tflops", "TFLOP/s"},
               {"copy", SIM_VK_COPY, "tb_per_s", "TB/s"},
               {"allreduce", SIM_VK_ALLREDUCE, "busbw_gb_per_s", "GB/s bus bandwidth"}};
    if (!o->hw || !o->op)
        return sim_fail(err, SIM_EINPUT, "op: expected --hw H --op gemm|attention|copy|allreduce");
    int which = -1;
    for (int i = 0; i < 4; i++)
        if (strcmp(o->op, ops[i].name) == 0)
            which = i;
    if (which < 0)
        return sim_fail(err, SIM_EINPUT,
                        "--op: value '%s', expected gemm, attention, copy or allreduce", o->op);
    sim_vrow r = {.kind = ops[which].kind, .m = o->m, .n = o->n, .k = o->k, .batch = o->batch,
                  .seq = o->seq, .heads = o->heads, .head_dim = o->head_dim, .causal = o->causal,
                  .bytes = o->bytes, .gpus = o->gpus ? o->gpus : 8, .dtype = SIM_DT_BF16};
    snprintf(r.metric, sizeof r.metric, "%s", ops[which].metric);
    if (o->dtype && !sim_dtype_parse(o->dtype, &r.dtype))
        return sim_fail(err, SIM_EINPUT, "--dtype: value '%s', expected one of %s", o->dtype,
                        sim_dtype_names());
    bool shape_ok = r.kind == SIM_VK_GEMM        ? r.m && r.n && r.k
                    : r.kind == SIM_VK_ATTENTION ? r.seq && r.heads && r.head_dim
                                                 : r.bytes > 0;
    if (!shape_ok)
        return sim_fail(err, SIM_EINPUT,
                        "op %s: missing its shape (gemm: --m --n --k; attention: --batch --seq "
                        "--heads --head-dim; copy, allreduce: --bytes [--gpus])",
                        o->op);
    char path[PATH_MAX];
    resolve("hw", o->hw, path, sizeof path);
    sim_hw hw;
    double pred, ms;
    sim_status st = sim_hw_load(path, &hw, err);
    if (!st)
        st = sim_validate_op(&r, &hw, &pred, err);
    snprintf(r.metric, sizeof r.metric, "latency_ms");
    if (!st)
        st = sim_validate_op(&r, &hw, &ms, err);
    if (!st)
        fprintf(out, "%s on %s: %.4f ms, %.2f %s\n", o->op, hw.name, ms, pred, ops[which].unit);
    return st;
}

/* Loads the device or model a validation row names (cached across rows). */
static const cache_entry *row_file(file_cache *c, char kind, const char *name, sim_err *err,
                                   sim_status *st)
{
    char path[PATH_MAX];
    resolve(kind == 'h' ? "hw" : "models", name, path, sizeof path);
    if (cache_add(c, kind, path, 0, 0)) {
        *st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        return NULL;
    }
    return cache_get(c, kind, path, 0, 0, err, st);
}

static sim_status cmd_validate(const cli_opts *o, FILE *out, sim_err *err)
{
    char path[PATH_MAX];
    data_path(o, path, sizeof path);
    sim_vrow *rows;
    size_t n;
    sim_status st = sim_validate_load(path, &rows, &n, err);
    if (st)
        return st;
    file_cache cache = {0};
    double *errs[2];
    size_t cnt[2] = {0, 0};
    errs[0] = malloc((n ? n : 1) * sizeof(double));
    errs[1] = malloc((n ? n : 1) * sizeof(double));
    if (!errs[0] || !errs[1])
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    const sim_step_cfg tmpl = {.iteration_overhead_ns = defaults.iter_us * 1e3,
                               .request_overhead_ns = defaults.req_us * 1e3};
    fprintf(out, "%4s %-9s %-14s %-14s %-15s %12s %12s %8s\n", "id", "kind", "hw", "metric",
            "detail", "measured", "predicted", "error");
    for (size_t i = 0; i < n && !st; i++) {
        const sim_vrow *r = &rows[i];
        char detail[160];
        if (r->kind == SIM_VK_GEMM)
            snprintf(detail, sizeof detail, "%lldx%lldx%lld", (long long)r->m, (long long)r->n,
                     (long long)r->k);
        else if (sim_vkind_is_op(r->kind))
            snprintf(detail, sizeof detail, "%s", r->framework);
        else
            snprintf(detail, sizeof detail, "%s b%lld", r->model, (long long)r->batch);
        if (r->skip[0]) {
            fprintf(out, "%4lld skipped: %s\n", (long long)r->id, r->skip);
            continue;
        }
        sim_err rerr = {{0}};
        sim_status rs;
        double pred = 0.0;
        const cache_entry *h = row_file(&cache, 'h', r->hw, &rerr, &rs);
        if (h && sim_vkind_is_op(r->kind)) {
            rs = sim_validate_op(r, &h->hw, &pred, &rerr);
        } else if (h) {
            const cache_entry *m = row_file(&cache, 'm', r->model, &rerr, &rs);
            if (m)
                rs = sim_validate_e2e(r, &m->model, &h->hw, &tmpl, &pred, &rerr);
        }
        if (rs == SIM_EINTERNAL) {
            *err = rerr;
            st = rs;
            break;
        }
        if (rs) {
            fprintf(out, "%4lld skipped: %s\n", (long long)r->id, rerr.msg);
            continue;
        }
        double e = sim_validate_error_pct(pred, r->value);
        int cat = sim_vkind_is_op(r->kind) ? 0 : 1;
        errs[cat][cnt[cat]++] = fabs(e);
        fprintf(out, "%4lld %-9s %-14s %-14s %-15.15s %12.4g %12.4g %+7.1f%%\n", (long long)r->id,
                sim_vkind_name(r->kind), r->hw, r->metric, detail, r->value, pred, e);
    }
    if (!st) {
        double med[3], p90[3];
        size_t all = cnt[0] + cnt[1];
        double *both = malloc((all ? all : 1) * sizeof *both);
        if (!both) {
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        } else {
            memcpy(both, errs[0], cnt[0] * sizeof *both);
            memcpy(both + cnt[0], errs[1], cnt[1] * sizeof *both);
            sim_validate_summary(both, all, &med[2], &p90[2]);
            sim_validate_summary(errs[0], cnt[0], &med[0], &p90[0]);
            sim_validate_summary(errs[1], cnt[1], &med[1], &p90[1]);
            free(both);
            fprintf(out, "validation: %zu points, median |error| %.1f%%, p90 %.1f%%\n", all,
                    med[2], p90[2]);
            fprintf(out, "  op-level: %zu points, median |error| %.1f%%, p90 %.1f%%\n", cnt[0],
                    med[0], p90[0]);
            fprintf(out, "  end-to-end: %zu points, median |error| %.1f%%, p90 %.1f%%\n", cnt[1],
                    med[1], p90[1]);
            if (given(o, "--max-op-median") && med[0] > o->max_op_median)
                st = sim_fail(err, SIM_EINTERNAL, "validation: op-level median %.1f%% is above "
                                                  "%.1f%%",
                              med[0], o->max_op_median);
            else if (given(o, "--max-e2e-median") && med[1] > o->max_e2e_median)
                st = sim_fail(err, SIM_EINTERNAL, "validation: end-to-end median %.1f%% is above "
                                                  "%.1f%%",
                              med[1], o->max_e2e_median);
        }
    }
    free(errs[0]);
    free(errs[1]);
    free(rows);
    cache_free(&cache);
    return st;
}

/* The stem of a path: "hw/h100-sxm.json" -> "h100-sxm". */
static void file_stem(const char *path, char *buf, size_t len)
{
    const char *b = strrchr(path, '/');
    snprintf(buf, len, "%.*s", (int)len - 1, b ? b + 1 : path);
    char *dot = strrchr(buf, '.');
    if (dot)
        *dot = '\0';
}

static sim_status write_calibrated(const char *src, const char *dest, const sim_hw *hw,
                                   const char *data, const sim_fit_report *rep, FILE *out,
                                   sim_err *err)
{
    cJSON *root;
    sim_status st = sim_jsonf_load(src, &root, err);
    if (st)
        return st;
    cJSON *eff = cJSON_GetObjectItemCaseSensitive(root, "efficiency");
    cJSON *gemm = eff ? cJSON_GetObjectItemCaseSensitive(eff, "gemm") : NULL;
    if (!cJSON_IsObject(eff) || !cJSON_IsObject(gemm)) {
        cJSON_Delete(root);
        return sim_fail(err, SIM_EINPUT, "%s: no efficiency.gemm object", src);
    }
    for (int dt = 0; dt < SIM_DT_COUNT; dt++)
        if (hw->peak_flops[dt] > 0.0 && dt != SIM_DT_FP16 && dt != SIM_DT_INT4) {
            cJSON_DeleteItemFromObjectCaseSensitive(gemm, sim_dtype_name((sim_dtype)dt));
            cJSON_AddNumberToObject(gemm, sim_dtype_name((sim_dtype)dt),
                                    round(hw->eff_gemm[dt] * 1e4) / 1e4);
        }
    static const char *const keys[] = {"attention", "memory", "network", "gemm_k_half"};
    const double vals[] = {hw->eff_attention, hw->eff_memory, hw->eff_network, hw->gemm_k_half};
    for (int i = 0; i < 4; i++) {
        cJSON_DeleteItemFromObjectCaseSensitive(eff, keys[i]);
        cJSON_AddNumberToObject(eff, keys[i], round(vals[i] * 1e4) / 1e4);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(root, "collective_latency_us");
    cJSON_AddNumberToObject(root, "collective_latency_us", round(hw->collective_ns / 10.0) / 100.0);
    cJSON_DeleteItemFromObjectCaseSensitive(root, "scaleup_latency_us");
    cJSON_AddNumberToObject(root, "scaleup_latency_us",
                            round(hw->scaleup_latency_ns / 10.0) / 100.0);
    /* every fitted number now comes from the fit: say so where its source was */
    cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
    static const char *const fields[] = {
        "efficiency.gemm.bf16", "efficiency.gemm.fp8", "efficiency.gemm.int8",
        "efficiency.gemm_k_half", "efficiency.attention", "efficiency.memory",
        "efficiency.network", "collective_latency_us", "scaleup_latency_us"};
    for (size_t i = 0; cJSON_IsObject(sources) && i < sizeof fields / sizeof fields[0]; i++) {
        if (!strstr(rep->fitted, fields[i]))
            continue;
        char note[1024];
        const cJSON *old = cJSON_GetObjectItemCaseSensitive(sources, fields[i]);
        snprintf(note, sizeof note,
                 "fitted by infersim calibrate on the %zu op-level rows of this device in %.200s "
                 "(least squares on relative error); starting value from: %.600s",
                 rep->rows, data, cJSON_IsString(old) ? old->valuestring : "none");
        cJSON_DeleteItemFromObjectCaseSensitive(sources, fields[i]);
        cJSON_AddStringToObject(sources, fields[i], note);
    }
    cJSON *cal = cJSON_CreateObject();
    cJSON_AddStringToObject(cal, "fitted_on", data);
    cJSON_AddStringToObject(cal, "method", "infersim calibrate: least squares on relative error "
                                           "over the op-level rows of this device");
    cJSON_AddNumberToObject(cal, "rows", (double)rep->rows);
    cJSON_AddNumberToObject(cal, "median_abs_error_before_pct",
                            round(rep->before_median * 100) / 100);
    cJSON_AddNumberToObject(cal, "median_abs_error_after_pct",
                            round(rep->after_median * 100) / 100);
    cJSON_AddStringToObject(cal, "fitted", rep->fitted);
    cJSON_DeleteItemFromObjectCaseSensitive(root, "calibration");
    cJSON_AddItemToObject(root, "calibration", cal);
    char *txt = cJSON_Print(root);
    cJSON_Delete(root);
    if (!txt)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!dest) {
        fprintf(out, "%s\n", txt);
        free(txt);
        return SIM_OK;
    }
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", dest);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        free(txt);
        return sim_fail(err, SIM_EINPUT, "--out: cannot write %s: %s", tmp, strerror(errno));
    }
    fprintf(f, "%s\n", txt);
    free(txt);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad || rename(tmp, dest) != 0) {
        remove(tmp);
        return sim_fail(err, SIM_EINPUT, "--out: writing %s failed", dest);
    }
    return SIM_OK;
}

static sim_status cmd_calibrate(const cli_opts *o, FILE *out, sim_err *err)
{
    if (!o->hw)
        return sim_fail(err, SIM_EINPUT, "calibrate: expected --hw H --data FILE");
    char hw_path[PATH_MAX], data[PATH_MAX], name[128];
    resolve("hw", o->hw, hw_path, sizeof hw_path);
    data_path(o, data, sizeof data);
    file_stem(hw_path, name, sizeof name);
    sim_hw hw;
    sim_vrow *rows = NULL;
    size_t n = 0;
    sim_fit_report rep;
    sim_status st = sim_hw_load(hw_path, &hw, err);
    if (!st)
        st = sim_validate_load(data, &rows, &n, err);
    if (!st)
        st = sim_validate_fit(rows, n, name, &hw, &rep, err);
    if (!st) {
        fprintf(o->out_file ? out : stderr,
                "calibrate %s: %zu op-level rows of %s; median |error| %.1f%% -> %.1f%%\n  %s\n",
                name, rep.rows, data, rep.before_median, rep.after_median, rep.fitted);
        st = write_calibrated(hw_path, o->out_file, &hw, data, &rep, out, err);
    }
    free(rows);
    return st;
}

/* compare --result FILE [run or serve flags]: a measurement against the prediction. */
static sim_status cmd_compare(int argc, char **argv, FILE *out, sim_err *err)
{
    const char *result = NULL;
    char **rest = malloc((size_t)argc * sizeof *rest);
    if (!rest)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    int nrest = 0;
    rest[nrest++] = argv[0];
    rest[nrest++] = argv[1];
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--result") == 0 && i + 1 < argc)
            result = argv[++i];
        else if (strncmp(argv[i], "--result=", 9) == 0)
            result = argv[i] + 9;
        else
            rest[nrest++] = argv[i];
    }
    cJSON *root = NULL;
    sim_status st = result ? sim_jsonf_load(result, &root, err)
                           : sim_fail(err, SIM_EINPUT, "compare: missing --result FILE.json");
    /* a vLLM --save-result file has mean_ttft_ms; a run-style one has ttft_ms */
    bool serve = root && cJSON_GetObjectItemCaseSensitive(root, "mean_ttft_ms");
    static const char *const serve_keys[] = {
        "mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms",
        "p99_tpot_ms", "mean_itl_ms", "median_itl_ms", "p99_itl_ms", "mean_e2el_ms",
        "median_e2el_ms", "p99_e2el_ms", "request_throughput", "output_throughput"};
    static const char *const run_keys[] = {"ttft_ms", "tpot_ms", "e2e_ms", "output_throughput"};
    cli_opts o = defaults;
    if (!st)
        st = parse_opts(nrest, rest, 2, serve ? "serve" : "run", serve ? CMD_SERVE : CMD_RUN, &o,
                        err);
    loaded *L = calloc(1, sizeof *L);
    serve_state *s = calloc(1, sizeof *s);
    sim_run_result *r = calloc(1, sizeof *r);
    if (!st && (!L || !s || !r))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    double pred[14] = {0};
    size_t nk = serve ? 14 : 4;
    if (!st && serve) {
        st = serve_point(&o, L, NULL, (uint64_t)o.seed, s, err);
        if (!st) {
            const sim_dist *d = s->m.dist;
            const double v[14] = {d[SIM_M_TTFT].mean, d[SIM_M_TTFT].median, d[SIM_M_TTFT].p99,
                                  d[SIM_M_TPOT].mean, d[SIM_M_TPOT].median, d[SIM_M_TPOT].p99,
                                  d[SIM_M_ITL].mean,  d[SIM_M_ITL].median,  d[SIM_M_ITL].p99,
                                  d[SIM_M_E2EL].mean, d[SIM_M_E2EL].median, d[SIM_M_E2EL].p99,
                                  s->m.request_throughput, s->m.output_throughput};
            memcpy(pred, v, sizeof v);
        }
    } else if (!st) {
        sim_run_cfg cfg;
        st = run_point(&o, L, NULL, &cfg, r, err);
        if (!st) {
            pred[0] = r->ttft_ns / 1e6;
            pred[1] = r->tpot_ns / 1e6;
            pred[2] = r->e2e_ns / 1e6;
            pred[3] = r->output_throughput;
        }
    }
    if (!st) {
        fprintf(out, "%-22s %14s %14s %9s\n", "metric", "measured", "predicted", "error");
        double abs_err[14];
        size_t m = 0;
        for (size_t k = 0; k < nk; k++) {
            const char *key = serve ? serve_keys[k] : run_keys[k];
            const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, key);
            if (!cJSON_IsNumber(it) || !(it->valuedouble > 0)) {
                fprintf(out, "%-22s %14s %14.4g\n", key, "-", pred[k]);
                continue;
            }
            double e = sim_validate_error_pct(pred[k], it->valuedouble);
            abs_err[m++] = fabs(e);
            fprintf(out, "%-22s %14.4g %14.4g %+8.1f%%\n", key, it->valuedouble, pred[k], e);
        }
        double med, p90;
        sim_validate_summary(abs_err, m, &med, &p90);
        fprintf(out, "compare: %zu metrics, median |error| %.1f%%, worst within p90 %.1f%%\n", m,
                med, p90);
    }
    if (s)
        serve_state_free(s);
    free(s);
    free(r);
    free(L);
    cJSON_Delete(root);
    free(rest);
    return st;
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
    {"op", CMD_OP, cmd_op, "price one GEMM, attention, copy or all-reduce on a device"},
    {"validate", CMD_VALIDATE, cmd_validate,
     "predictions against the public measurements, with the error summary"},
    {"calibrate", CMD_CALIBRATE, cmd_calibrate,
     "fit a device's efficiencies to its op-level measurements"},
};

static void top_usage(FILE *f)
{
    fprintf(f, "infersim %s - predicts LLM serving performance with the roofline model\n"
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
    if (strcmp(name, "sweep") == 0 || strcmp(name, "merge") == 0 ||
        strcmp(name, "compare") == 0) {
        sim_err err = {{0}};
        sim_status st = name[0] == 's'   ? cmd_sweep(argc, argv, out, errf, &err)
                        : name[0] == 'm' ? cmd_merge(argc, argv, out, &err)
                                         : cmd_compare(argc, argv, out, &err);
        if (st)
            fprintf(errf, "infersim: %s\n", err.msg[0] ? err.msg : "internal error");
        return (int)st;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const command *c = &commands[i];
        if (strcmp(name, c->name) != 0)
            continue;
        cli_opts o = defaults;
        sim_err err = {{0}};
        sim_status st = parse_opts(argc, argv, 2, c->name, c->mask, &o, &err);
        if (!st && o.help) {
            usage(out, c->name, c->mask);
            return 0;
        }
        if (!st)
            st = c->fn(&o, out, &err);
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
