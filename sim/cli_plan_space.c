/* cli_plan_space.c - the plan's candidates: each model on each device with every engine,
 * precision and layout the search spans (cli_plan.c says which, cli_plan_internal.h), the P:D
 * ratios a disaggregated one tries, and a candidate's flags set as the command line would. */
#define _POSIX_C_SOURCE 200809L
#include "cli_plan_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engprof.h"
#include "jsonf.h"

/* ------------------------------------------------------------------------------------------ */
/* The candidates */

/* P:D of a disaggregated candidate, in the order tried. */
const int64_t cli_plan_pd[CLI_PLAN_N_PD][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 3}, {3, 1}, {2, 3},
                                {3, 2}, {3, 3}, {2, 4}, {4, 2}, {3, 4}, {4, 3}, {4, 4}};

sim_status cli_plan_set_flag(cli_opts *q, const char *name, const char *v, sim_err *err)
{
    const cli_opt_def *d = cli_opt_find(name, ~0);
    if (!d)
        return sim_fail(err, SIM_EINTERNAL, "plan: no flag %s", name);
    q->given[d - cli_opt_table] = true;
    return cli_opt_parse_value(d, v, q, err);
}

sim_status cli_plan_split(char *s, const char **out, int *n, const char *flag, sim_err *err)
{
    *n = 0;
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (*n >= PLAN_MAX_NAMES)
            return sim_fail(err, SIM_EINPUT, "%s: more than %d names", flag, PLAN_MAX_NAMES);
        out[(*n)++] = tok;
    }
    return *n ? SIM_OK : sim_fail(err, SIM_EINPUT, "%s: empty list", flag);
}

static bool listed(const char *list, const char *name)
{
    size_t l = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == l && strncmp(p, name, l) == 0)
            return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

static sim_status add(plan_ctx *c, plan_cand k, sim_err *err)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        plan_cand *p = realloc(c->c, cap * sizeof *p);
        if (!p)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        c->c = p, c->cap = cap;
    }
    c->c[c->n++] = k;
    return SIM_OK;
}

/* The checkpoint's Hugging Face id for the launch lines: the model file's first
 * infersim_hf_ids entry, else --model as given. */
void cli_plan_hf_id(const char *model, char *buf, size_t len)
{
    snprintf(buf, len, "%s", model);
    char path[PATH_MAX];
    cli_load_resolve(CLI_LOAD_MODEL, model, path, sizeof path);
    cJSON *j = NULL;
    sim_err e;
    if (sim_jsonf_load(path, &j, &e))
        return;
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(j, "infersim_hf_ids");
    if (cJSON_IsArray(ids) && cJSON_IsString(ids->child))
        snprintf(buf, len, "%s", ids->child->valuestring);
    cJSON_Delete(j);
}

static sim_status enumerate_on(plan_ctx *c, int m, int h, const sim_hw *hw, int64_t experts,
                               sim_err *err);

/* Every candidate of model m on device h, loading each file once into the cache. */
sim_status cli_plan_enumerate(plan_ctx *c, int m, int h, sim_err *err)
{
    char mpath[PATH_MAX], hpath[PATH_MAX];
    cli_load_resolve(CLI_LOAD_MODEL, c->models[m], mpath, sizeof mpath);
    cli_load_resolve(CLI_LOAD_HW, c->hws[h], hpath, sizeof hpath);
    if (cli_load_cache_add(&c->cache, CLI_LOAD_MODEL, mpath, 0, 0) ||
        cli_load_cache_add(&c->cache, CLI_LOAD_HW, hpath, 0, 0) ||
        cli_load_catalog_load(&c->cache.catalog))
        return sim_fail(err, SIM_EINTERNAL, "out of memory loading the plan's files");
    sim_status st;
    const cli_load_entry *me =
        cli_load_cache_get(&c->cache, CLI_LOAD_MODEL, mpath, 0, 0, err, &st);
    if (!me)
        return st;
    const cli_load_entry *he = cli_load_cache_get(&c->cache, CLI_LOAD_HW, hpath, 0, 0, err, &st);
    if (!he)
        return st;
    double usd; /* a bad --usd-per-gpu-hour is the command's error, not every candidate's */
    if ((st = cli_load_price(c->o, hpath, &he->hw, &usd, err)))
        return st;
    /* copies: adding the engine profiles below may move the cache's entries */
    const int64_t experts = me->model.experts;
    sim_hw *hw = malloc(sizeof *hw);
    if (!hw)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    *hw = he->hw;
    st = enumerate_on(c, m, h, hw, experts, err);
    free(hw);
    return st;
}

/* enumerate's loops, on a copy of the device. */
static sim_status enumerate_on(plan_ctx *c, int m, int h, const sim_hw *hw, int64_t experts,
                               sim_err *err)
{
    const cli_opts *o = c->o;
    sim_status st;
    static const char *const cuda[] = {"vllm", "sglang", "trtllm"};
    size_t n_eng = 1;
    if (strcmp(hw->arch, "tpu") != 0 && strcmp(hw->arch, "gaudi") != 0)
        n_eng = sim_engprof_device_platform(hw) == SIM_ENGPROF_ROCM ? 2 : 3;
    /* the checkpoint's weights are 16-bit unless quantized: fp8 is a candidate then */
    bool can_fp8 = hw->peak_flops[SIM_DT_FP8] > 0.0;
    {
        cli_opts q = *o;
        q.model = c->models[m], q.hw = c->hws[h], q.warn = NULL;
        cli_load_result *L = calloc(1, sizeof *L);
        if (!L)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        sim_err e;
        /* the checkpoint's default formats: at TP 1, else TP 8 (a layout the model refuses at 1) */
        bool loaded = !cli_load_common(&q, true, L, NULL, &e); /* from disk: not all cached yet */
        if (!loaded) {
            memset(L, 0, sizeof *L);
            q.tp = 8;
            loaded = !cli_load_common(&q, true, L, NULL, &e);
        }
        can_fp8 = can_fp8 && loaded && sim_dtype_bytes(L->step.prec.weight) >= 2.0;
        free(L);
    }
    for (size_t ei = 0; ei < n_eng; ei++) {
        if (o->engines && !listed(o->engines, cuda[ei]))
            continue;
        char epath[PATH_MAX];
        cli_opts q = *o;
        q.engine = cuda[ei];
        sim_err e;
        if (!cli_load_engine_path(&q, &c->cache, hw, epath, sizeof epath, &e) &&
            cli_load_cache_add(&c->cache, CLI_LOAD_ENGINE, epath, 0, 0))
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        for (int fp8 = 0; fp8 <= (can_fp8 ? 1 : 0); fp8++) {
            if (o->precisions && !listed(o->precisions, fp8 ? "fp8" : "default"))
                continue;
            plan_cand base = {.model = m, .hw = h, .engine = cuda[ei], .fp8 = fp8, .pp = 1,
                              .ep = 1, .dp = 1};
            /* layouts: {tp, pp, ep, dp-attention groups} */
            int64_t lay[24][4];
            size_t nl = 0;
            for (int64_t tp = 1; tp <= 8; tp *= 2)
                lay[nl][0] = tp, lay[nl][1] = 1, lay[nl][2] = 1, lay[nl++][3] = 1;
            for (int64_t tp = 4; tp <= 8; tp *= 2)
                lay[nl][0] = tp, lay[nl][1] = 2, lay[nl][2] = 1, lay[nl++][3] = 1;
            if (experts > 0) {
                for (int64_t n = 2; n <= 8; n *= 2)
                    lay[nl][0] = n, lay[nl][1] = 1, lay[nl][2] = n, lay[nl++][3] = 1;
                for (int64_t n = 2; n <= 8; n *= 2)
                    lay[nl][0] = 1, lay[nl][1] = 1, lay[nl][2] = n, lay[nl++][3] = n;
            }
            for (size_t li = 0; li < nl; li++)
                for (int dis = 0; dis <= (lay[li][1] == 1 ? 1 : 0); dis++) {
                    plan_cand k = base;
                    k.tp = lay[li][0], k.pp = lay[li][1], k.ep = lay[li][2];
                    k.dp = lay[li][3], k.dp_attention = lay[li][3] > 1, k.disagg = dis;
                    if (k.tp * k.dp * k.pp > o->max_gpus)
                        continue;
                    if ((st = add(c, k, err)))
                        return st;
                }
        }
    }
    return SIM_OK;
}

