/* cli_load.c - files and names: the file cache, model / device / engine lookup, and what the
 * commands share loaded from the flags. */
#define _POSIX_C_SOURCE 200809L
#include "cli_load.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "find.h"
#include "suggest.h"

/* ------------------------------------------------------------------------------------------ */
/* Model and device names */

const char *cli_load_dir(cli_load_kind kind)
{
    static const char *const dirs[CLI_LOAD_KINDS] = {
        [CLI_LOAD_MODEL] = "models",
        [CLI_LOAD_HW] = "hw",
        [CLI_LOAD_TRACE] = "traces",
        [CLI_LOAD_ENGINE] = "hw/engines",
    };
    return dirs[kind];
}

static void suggest_add(void *s, const char *name) { sim_suggest_add(s, name); }

/* A bare name ("h100-sxm") is looked up as DIR/NAME.json in the data roots (find.h); for models, a
 * folder stands for its config.json (a checkpoint, as vLLM's --model takes it) and a Hugging Face
 * id ("meta-llama/Llama-3.1-8B") that is not a path names the model file listing it.
 * Anything else is used as given (and its loader says it cannot be opened). */
void cli_load_resolve(cli_load_kind kind, const char *arg, char *buf, size_t len)
{
    const char *dir = cli_load_dir(kind);
    snprintf(buf, len, "%s", arg);
    struct stat sb;
    if (kind == CLI_LOAD_MODEL && stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode)) {
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
        if (kind == CLI_LOAD_MODEL)
            sim_model_find_hf(arg, buf, len);
        return;
    }
    char file[NAME_MAX + 8]; /* traces are named with their extension, models and devices not */
    if (snprintf(file, sizeof file, "%s%s", arg, kind == CLI_LOAD_TRACE ? "" : ".json") >=
            (int)sizeof file ||
        sim_find_file(dir, file, buf, len) || kind == CLI_LOAD_TRACE)
        return;
    /* "H100-SXM": the one data name equal up to case (suggest.h) */
    sim_suggest s;
    sim_suggest_init(&s, arg);
    sim_find_each(dir, suggest_add, &s);
    const char *ci = sim_suggest_case_match(&s);
    if (ci && snprintf(file, sizeof file, "%s.json", ci) < (int)sizeof file)
        sim_find_file(dir, file, buf, len);
}

/* The precision from the flags; the rest from the model and device (sim_graph_prec_defaults). A
 * flag's value is checked before the defaults are taken, the weights' first. */
static sim_status resolve_prec(const cli_opts *o, const sim_model *m, const sim_hw *hw, sim_prec *p,
                               sim_err *err)
{
    sim_prec_given g = {.prec.group_size = o->group_size,
                        .weight = o->weight_dtype != NULL,
                        .group_size = cli_opt_given(o, "--weight-group-size")};
    sim_status st;
    if (g.weight &&
        (st = cli_opt_parse_dtype("--weight-dtype", o->weight_dtype, &g.prec.weight, err)))
        return st;
    if (!sim_graph_prec_defaults(m, hw, &g, p))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'torch_dtype' is missing; pass --weight-dtype to say how the "
                        "weights are stored",
                        m->path);
    g.act = o->act_dtype != NULL;
    g.kv = o->kv_dtype != NULL;
    if ((g.act && (st = cli_opt_parse_dtype("--act-dtype", o->act_dtype, &g.prec.act, err))) ||
        (g.kv && (st = cli_opt_parse_dtype("--kv-cache-dtype", o->kv_dtype, &g.prec.kv, err))))
        return st;
    sim_graph_prec_defaults(m, hw, &g, p); /* the weights are known now */
    return SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Files, loaded once: a sweep loads every model, device and trace it names before its parallel
 * loop (the points only copy them), so no file is parsed on a worker thread. */

const cli_load_entry *cli_load_cache_find(const cli_load_cache *c, cli_load_kind kind,
                                          const char *path, double scale, int64_t limit)
{
    for (size_t i = 0; c && i < c->n; i++)
        if (c->e[i].kind == kind && strcmp(c->e[i].path, path) == 0 &&
            (kind != CLI_LOAD_TRACE || (c->e[i].scale == scale && c->e[i].limit == limit)))
            return &c->e[i];
    return NULL;
}

/* A name that is no file and was found in no data folder (cli_load_resolve left it as given): the
 * message says where infersim looked and which names it has, instead of "cannot open". */
static sim_status explain_missing(cli_load_kind kind, const char *name, sim_status st, sim_err *err)
{
    const char *dir = cli_load_dir(kind);
    size_t l = strlen(name);
    bool is_json = l > 5 && strcmp(name + l - 5, ".json") == 0;
    if (!st || is_json || access(name, F_OK) == 0)
        return st;
    char known[384];
    sim_find_names(dir, known, sizeof known);
    if (!known[0])
        snprintf(known, sizeof known, "(no %s/ folder found)", dir);
    if (strchr(name, '/'))
        return kind != CLI_LOAD_MODEL
                   ? st
                   : sim_fail(err, SIM_EINPUT,
                              "%s: no such file, and no models/NAME.json lists this Hugging Face "
                              "id in its infersim_hf_ids; expected a config.json path, a model "
                              "name (%s) or a listed id",
                              name, known);
    sim_suggest s; /* a near miss: "did you mean" (suggest.h) */
    sim_suggest_init(&s, name);
    sim_find_each(dir, suggest_add, &s);
    char mean[4 * SIM_SUGGEST_NAME_MAX + 16], near[sizeof mean + 32] = "";
    if (sim_suggest_text(&s, mean, sizeof mean))
        snprintf(near, sizeof near, "; did you mean %s?", mean);
    return sim_fail(err, SIM_EINPUT,
                    "%s: no such file, and no %s/%s.json in the working directory, "
                    "$INFERSIM_DATA, next to the binary, in its build's source tree or in "
                    "share/infersim%s%s expected a path "
                    "or one of: %s",
                    name, dir, name, near, near[0] ? "" : ";", known);
}

static sim_status load_model(const char *path, sim_model *m, sim_err *err)
{
    return explain_missing(CLI_LOAD_MODEL, path, sim_model_load(path, m, err), err);
}

static sim_status load_hw(const char *path, sim_hw *hw, sim_err *err)
{
    return explain_missing(CLI_LOAD_HW, path, sim_hw_load(path, hw, err), err);
}

/* Loads a file into the cache unless it is there (its failure is kept for the points). */
sim_status cli_load_cache_add(cli_load_cache *c, cli_load_kind kind, const char *path, double scale,
                              int64_t limit)
{
    if (cli_load_cache_find(c, kind, path, scale, limit))
        return SIM_OK;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        cli_load_entry *e = realloc(c->e, cap * sizeof *e);
        if (!e)
            return SIM_EINTERNAL;
        c->e = e;
        c->cap = cap;
    }
    cli_load_entry *e = &c->e[c->n++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    snprintf(e->path, sizeof e->path, "%s", path);
    e->scale = scale;
    e->limit = limit;
    e->st = kind == CLI_LOAD_MODEL    ? load_model(path, &e->model, &e->err)
            : kind == CLI_LOAD_HW     ? load_hw(path, &e->hw, &e->err)
            : kind == CLI_LOAD_ENGINE ? sim_engprof_load(path, &e->eng, &e->err)
                                      : sim_workload_load_trace(path, scale, limit, &e->w, &e->err);
    return SIM_OK;
}

void cli_load_cache_free(cli_load_cache *c)
{
    for (size_t i = 0; i < c->n; i++)
        sim_workload_free(&c->e[i].w);
    free(c->e);
    c->e = NULL;
    c->n = c->cap = 0;
    cli_load_catalog_free(&c->catalog);
    cli_load_names_free(c);
    cli_load_unc_free(c);
}

/* A cached entry, or its load error; SIM_EINTERNAL if the sweep forgot to load it. */
const cli_load_entry *cli_load_cache_get(const cli_load_cache *c, cli_load_kind kind,
                                         const char *path, double scale, int64_t limit,
                                         sim_err *err, sim_status *st)
{
    const cli_load_entry *e = cli_load_cache_find(c, kind, path, scale, limit);
    *st = !e ? sim_fail(err, SIM_EINTERNAL, "%s was not preloaded", path) : e->st;
    if (e && e->st && err)
        *err = e->err;
    return *st ? NULL : e;
}

sim_status cli_load_model(const cli_load_cache *c, const char *path, sim_model *out, sim_err *err)
{
    if (!c)
        return load_model(path, out, err);
    sim_status st;
    const cli_load_entry *e = cli_load_cache_get(c, CLI_LOAD_MODEL, path, 0, 0, err, &st);
    if (e)
        *out = e->model;
    return st;
}

sim_status cli_load_hw(const cli_load_cache *c, const char *path, sim_hw *out, sim_err *err)
{
    if (!c)
        return load_hw(path, out, err);
    sim_status st;
    const cli_load_entry *e = cli_load_cache_get(c, CLI_LOAD_HW, path, 0, 0, err, &st);
    if (e)
        *out = e->hw;
    return st;
}

/* Whether any of the spellings of one setting was given (they share a field). */
bool cli_load_given_any(const cli_opts *o, const char *const *names)
{
    for (; *names; names++)
        if (cli_opt_given(o, *names))
            return true;
    return false;
}

/* An on/off setting with a flag for each way: neither keeps the profile's, both is an error. */
static sim_status on_off(const cli_opts *o, const char *on, const char *off, bool *v, sim_err *err)
{
    if (cli_opt_given(o, on) && cli_opt_given(o, off))
        return sim_fail(err, SIM_EINPUT, "%s and %s: contradict each other, expected one", on, off);
    if (cli_opt_given(o, on) || cli_opt_given(o, off))
        *v = cli_opt_given(o, on);
    return SIM_OK;
}

/* --cudagraph-mode as vLLM names its CUDAGraphMode (case-insensitive): PIECEWISE graphs between
 * the attention ops; FULL, FULL_AND_PIECEWISE, FULL_DECODE_ONLY a whole graph for a decode step
 * (what infersim replays; prefill runs eagerly either way); NONE no graphs. */
static sim_status cudagraph_mode(const char *v, bool eager, sim_engprof *e, sim_err *err)
{
    static const struct {
        const char *name;
        bool graphs, piecewise;
    } modes[] = {{"piecewise", true, true},
                 {"full", true, false},
                 {"full_and_piecewise", true, false},
                 {"full_decode_only", true, false},
                 {"none", false, false}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcasecmp(v, modes[i].name) == 0) {
            if (eager && modes[i].graphs)
                return sim_fail(err, SIM_EINPUT,
                                "--enforce-eager and --cudagraph-mode %s: contradict each other, "
                                "expected one",
                                v);
            e->cuda_graphs = modes[i].graphs;
            e->piecewise_graphs = modes[i].piecewise;
            return SIM_OK;
        }
    return sim_fail(err, SIM_EINPUT,
                    "--cudagraph-mode: value '%s', expected piecewise, full, full_and_piecewise, "
                    "full_decode_only or none",
                    v);
}

/* The front end's flags over the profile's frontend fields (frontend.h). */
static sim_status load_frontend(const cli_opts *o, sim_engprof *e, sim_err *err)
{
    if (strcmp(o->frontend, "profile") != 0 && strcmp(o->frontend, "none") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--frontend: value '%s', expected profile (the engine profile's front "
                        "end) or none",
                        o->frontend);
    e->fe_on = strcmp(o->frontend, "profile") == 0;
    if (cli_load_given_any(
            o, (const char *const[]){"--api-server-count", "--tokenizer-worker-num", NULL}))
        e->fe_processes = o->fe_processes;
    if (cli_opt_given(o, "--stream-interval"))
        e->fe_stream_interval = o->stream_interval;
    static const struct {
        const char *flag;
        size_t opt, prof;
    } costs[] = {
        {"--frontend-request-us", offsetof(cli_opts, fe_request_us),
         offsetof(sim_engprof, fe_request_us)},
        {"--frontend-input-token-us", offsetof(cli_opts, fe_input_token_us),
         offsetof(sim_engprof, fe_input_token_us)},
        {"--frontend-output-token-us", offsetof(cli_opts, fe_output_token_us),
         offsetof(sim_engprof, fe_output_token_us)},
        {"--frontend-chunk-us", offsetof(cli_opts, fe_chunk_us),
         offsetof(sim_engprof, fe_chunk_us)},
    };
    for (size_t i = 0; i < sizeof costs / sizeof costs[0]; i++)
        if (cli_opt_given(o, costs[i].flag))
            *(double *)((char *)e + costs[i].prof) =
                *(const double *)((const char *)o + costs[i].opt);
    e->per_token_itl = o->itl_per_token;
    return SIM_OK;
}

/* The engine profile for this device and TP (its rules), with every flag that overrides one of
 * its fields applied, then its memory reserve (unless a flag gives the fraction). */
static sim_status load_engine(const cli_opts *o, const cli_load_cache *cache, const sim_hw *hw,
                              sim_engprof *e, sim_err *err)
{
    char path[PATH_MAX];
    sim_status st = cli_load_engine_path(o, cache, hw, path, sizeof path, err);
    if (st)
        return st;
    if (cache) {
        const cli_load_entry *c = cli_load_cache_get(cache, CLI_LOAD_ENGINE, path, 0, 0, err, &st);
        if (c)
            *e = c->eng;
    } else {
        st = sim_engprof_load(path, e, err);
    }
    if (st)
        return st;
    sim_engprof_for_device(e, hw, o->tp);
    const bool util_given = cli_load_given_any(
        o, (const char *const[]){"--gpu-memory-utilization", "--mem-fraction-static",
                                 "--kv-cache-free-gpu-mem-fraction", NULL});
    if (util_given)
        e->mem_fraction = o->util;
    if (cli_opt_given(o, "--block-size"))
        e->block_size = o->block_size;
    if (cli_load_given_any(o, (const char *const[]){"--max-num-seqs", "--max-batch-size",
                                                    "--max-running-requests", NULL}))
        e->max_num_seqs = o->max_seqs;
    if (cli_load_given_any(o, (const char *const[]){"--max-num-batched-tokens", "--max-num-tokens",
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
    if (cli_opt_given(o, "--iteration-overhead-us"))
        e->iteration_overhead_us = o->iter_us;
    if (cli_opt_given(o, "--request-overhead-us"))
        e->request_overhead_us = o->req_us;
    if (cli_opt_given(o, "--layer-overhead-us"))
        e->layer_overhead_us = o->layer_us;
    if (cli_opt_given(o, "--enforce-eager"))
        e->cuda_graphs = false;
    if (o->cudagraph_mode &&
        (st = cudagraph_mode(o->cudagraph_mode, cli_opt_given(o, "--enforce-eager"), e, err)))
        return st;
    if (cli_opt_given(o, "--cuda-graph-max-bs"))
        e->cuda_graph_max_bs = o->graph_max_bs;
    if (o->moe_kernel && !sim_moe_kernel_parse(o->moe_kernel, &e->moe_kernel))
        return sim_fail(err, SIM_EINPUT, "--moe-kernel: value '%s', expected %s", o->moe_kernel,
                        sim_moe_kernel_names());
    if (o->moe_kernel) /* the flag names the kernel of every expert format */
        e->moe_kernel_quantized = e->moe_kernel;
    if (o->allreduce && (st = cli_opt_parse_allreduce(o, &e->allreduce, err)))
        return st;
    if (cli_opt_given(o, "--max-model-len"))
        e->max_model_len = o->max_model_len;
    if (cli_opt_given(o, "--max-input-len"))
        e->max_input_len = o->max_input_len;
    if (cli_opt_given(o,
                      "--schedule-conservativeness")) { /* SGLang scales its ratios, capped at 1 */
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
    if ((st = load_frontend(o, e, err)))
        return st;
    if (!util_given)
        sim_engprof_apply_reserve(e, hw, o->tp, o->pp);
    if (cli_opt_given(o, "--disable-hybrid-kv-cache-manager"))
        e->no_hybrid_kv = true;
    return on_off(o, "--enable-prefix-caching", "--no-enable-prefix-caching", &e->prefix_caching,
                  err);
}

/* The engine's context limit (--max-model-len, else the profile's limits.max_model_len; 0 keeps
 * the config's) replaces the config's, with a warning when it exceeds it. */
static void apply_max_model_len(const cli_opts *o, const sim_engprof *e, sim_model *m)
{
    if (e->max_model_len <= 0)
        return;
    const bool flag = cli_opt_given(o, "--max-model-len");
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
sim_status cli_load_common(const cli_opts *o, bool need_model, cli_load_result *L,
                           const cli_load_cache *cache, sim_err *err)
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
    L->cache = cache;
    cli_load_resolve_in(cache, CLI_LOAD_HW, o->hw, path, sizeof path);
    if ((st = cli_load_hw(cache, path, &L->hw, err)) ||
        (st = load_engine(o, cache, &L->hw, &L->eng, err)))
        return st;
    if ((st = cli_load_price(o, cache, path, &L->hw, &L->usd_per_gpu_hour, err)))
        return st;
    if (o->model) {
        cli_load_resolve_in(cache, CLI_LOAD_MODEL, o->model, path, sizeof path);
        if ((st = cli_load_model(cache, path, &L->model, err)))
            return st;
        apply_max_model_len(o, &L->eng, &L->model);
    }
    L->step = cli_load_engine_step(&L->eng, &L->model);
    L->step.hw = &L->hw;
    L->step.moe_cache = &L->moe_cache;
    L->step.tp = (int)o->tp;
    L->step.pp = (int)o->pp;
    L->step.overlap = o->overlap;
    L->step.ep = (int)o->ep;
    L->step.dp_attention = o->dp_attention;
    L->step.expert_imbalance = o->expert_imbalance;
    L->step.tbo = o->tbo;
    L->step.dp = cli_opt_given(o, "--dp") ? (int)o->dp : 0;
    if (o->moe_a2a && !sim_a2a_mode_parse(o->moe_a2a, &L->step.moe_a2a))
        return sim_fail(err, SIM_EINPUT,
                        "--moe-a2a: value '%s', expected auto, normal or low-latency", o->moe_a2a);
    L->step.routing.redundant = (int)o->redundant_experts;
    if (o->expert_routing && !sim_moe_routing_parse(o->expert_routing, &L->step.routing))
        return sim_fail(err, SIM_EINPUT,
                        "--expert-routing: value '%s', expected uniform or zipf:S with S a "
                        "decimal number in (0, 8]",
                        o->expert_routing);
    if (!o->model)
        return SIM_OK;
    if (o->expert_load) { /* the measured histogram is the routing */
        if (o->expert_routing)
            return sim_fail(err, SIM_EINPUT,
                            "--expert-load: %s gives the routing; drop --expert-routing '%s'",
                            o->expert_load, o->expert_routing);
        if (L->model.experts <= 0)
            return sim_fail(err, SIM_EINPUT,
                            "--expert-load: %s: the model %s has no routed experts", o->expert_load,
                            o->model);
        if ((st = sim_moe_hist_load(o->expert_load, L->model.experts, L->model.experts_per_tok,
                                    L->model.moe_layers, &L->moe_hist, err)))
            return st;
        L->step.routing.kind = SIM_MOE_ROUTE_FILE;
        L->step.routing.hist = &L->moe_hist;
    }
    if ((st = resolve_prec(o, &L->model, &L->hw, &L->step.prec, err)) ||
        (st = cli_load_spec(o, L, cache, err)))
        return st;
    return sim_step_check(&L->step, err);
}

cli_load_result *cli_load_result_new(void)
{
    cli_load_result *L = malloc(sizeof *L);
    if (!L)
        return NULL;
    const size_t at = offsetof(cli_load_result, moe_hist) + offsetof(sim_moe_hist, share);
    const size_t skip = sizeof L->moe_hist.share;
    memset(L, 0, at);
    memset((char *)L + at + skip, 0, sizeof *L - at - skip);
    return L;
}

/* The measurements file: --data as given, else tools/data/validation.csv in the data roots
 * (find.h), so the commands work from any directory and from an installed copy. */
void cli_load_data_path(const cli_opts *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s", o->data ? o->data : CLI_LOAD_VALIDATION_DATA);
    if (!o->data)
        sim_find_file("tools/data", "validation.csv", buf, len);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

bool cli_load_is_jsonl(const char *path)
{
    return ends_with(path, ".jsonl") || ends_with(path, ".json");
}
