/* cli_load.c - what the commands share loaded from the flags: the precision, the engine profile
 * with its flags, the front end, the model's length limit (the names: cli_load_name.c; the file
 * cache: cli_load_cache.c). */
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

/* The precision from the flags; the rest from the model and device (sim_graph_prec_defaults). A
 * flag's value is checked before the defaults are taken, the weights' first. */
static sim_status resolve_prec(const cli_opts *o, const sim_model *m, const sim_hw *hw, sim_prec *p,
                               sim_err *err)
{
    sim_prec_given g = {.prec.group_size = o->group_size,
                        .weight = o->weight_dtype != NULL,
                        .group_size = cli_opt_given(o, CLI_OPT_ID_WEIGHT_GROUP_SIZE)};
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

/* --frontend over the profile's front end (frontend.h; its numbers are the table's overrides). */
static sim_status load_frontend(const cli_opts *o, sim_engprof *e, sim_err *err)
{
    if (strcmp(o->frontend, "profile") != 0 && strcmp(o->frontend, "none") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--frontend: value '%s', expected profile (the engine profile's front "
                        "end) or none",
                        o->frontend);
    e->fe_on = strcmp(o->frontend, "profile") == 0;
    return SIM_OK;
}

/* The engine profile for this device and TP (its rules), with the flags whose value needs parsing
 * or checking applied, then every other flag that overrides one of its fields (the option table's
 * eng column, cli_load_engine_overrides), then its memory reserve (unless a flag gives the
 * fraction). */
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
    if (o->cudagraph_mode &&
        (st =
             cudagraph_mode(o->cudagraph_mode, cli_opt_given(o, CLI_OPT_ID_ENFORCE_EAGER), e, err)))
        return st;
    if (o->moe_kernel && !sim_moe_kernel_parse(o->moe_kernel, &e->moe_kernel))
        return sim_fail(err, SIM_EINPUT, "--moe-kernel: value '%s', expected %s", o->moe_kernel,
                        sim_moe_kernel_names());
    if (o->moe_kernel) { /* the flag names the kernel of every expert format */
        e->moe_kernel_quantized = e->moe_kernel;
        e->moe_kernel_mixed = e->moe_kernel;
        e->has_moe_kernel_mixed_input = false;
    }
    if (o->allreduce && (st = cli_opt_parse_allreduce(o, &e->allreduce, err)))
        return st;
    if (cli_opt_given(
            o, CLI_OPT_ID_SCHEDULE_CONSERVATIVENESS)) { /* SGLang scales its ratios, capped at 1 */
        e->ratio_init = fmin(e->ratio_init * o->conservativeness, 1.0);
        e->ratio_min = fmin(e->ratio_min * o->conservativeness, e->ratio_init);
        e->ratio_decay *= o->conservativeness;
    }
    if ((st = load_frontend(o, e, err)) || (st = cli_load_engine_overrides(o, e, err)))
        return st;
    /* the reserve after the chunk and graph sizes the flags set, unless a flag gives it */
    if (!cli_opt_given_any(o, (const cli_opt_id[]){
                                  CLI_OPT_ID_GPU_MEMORY_UTILIZATION, CLI_OPT_ID_MEM_FRACTION_STATIC,
                                  CLI_OPT_ID_KV_CACHE_FREE_GPU_MEM_FRACTION, CLI_OPT_ID_NONE}))
        sim_engprof_apply_reserve(e, hw, o->tp, o->pp);
    return SIM_OK;
}

/* The engine's context limit (--max-model-len, else the profile's limits.max_model_len; 0 keeps
 * the config's) replaces the config's, with a warning when it exceeds it. */
static void apply_max_model_len(const cli_opts *o, const sim_engprof *e, sim_model *m)
{
    if (e->max_model_len <= 0)
        return;
    const bool flag = cli_opt_given(o, CLI_OPT_ID_MAX_MODEL_LEN);
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
    L->step.dp = cli_opt_given(o, CLI_OPT_ID_DP) ? (int)o->dp : 0;
    if (o->moe_a2a && !sim_a2a_mode_parse(o->moe_a2a, &L->step.moe_a2a))
        return sim_fail(err, SIM_EINPUT,
                        "--moe-a2a: value '%s', expected auto, normal or low-latency", o->moe_a2a);
    L->step.a2a_ll_max_tokens = (int)o->deepep_ll_max_tokens;
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
    /* zeroed but for two parts written whole before anything reads them: the device
     * (cli_load_hw, cli_load_common's first load; 21 KB) and the histogram's shares */
    const size_t hw = offsetof(cli_load_result, hw);
    const size_t at = offsetof(cli_load_result, moe_hist) + offsetof(sim_moe_hist, share);
    const size_t skip = sizeof L->moe_hist.share;
    memset(L, 0, hw);
    memset((char *)L + hw + sizeof L->hw, 0, at - hw - sizeof L->hw);
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
