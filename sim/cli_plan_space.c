/* cli_plan_space.c - the plan's candidates: each model on each device with every engine,
 * precision and layout the search spans (cli_plan.c says which, cli_plan_internal.h), the P:D
 * ratios a disaggregated one tries, and a candidate's flags set as the command line would. */
#define _POSIX_C_SOURCE 200809L
#include "cli_plan_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "a2a.h"
#include "engprof.h"
#include "find.h"
#include "jsonf.h"
#include "lines.h"

/* ------------------------------------------------------------------------------------------ */
/* The candidates */

/* P:D of a disaggregated candidate, in the order tried. */
const int64_t cli_plan_pd[CLI_PLAN_N_PD][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 3}, {3, 1}, {2, 3},
                                {3, 2}, {3, 3}, {2, 4}, {4, 2}, {3, 4}, {4, 3}, {4, 4}};

sim_status cli_plan_set_flag(cli_opts *q, cli_opt_id id, const char *v, sim_err *err)
{
    q->given[id] = true;
    return cli_opt_parse_value(&cli_opt_table[id], v, q, err);
}

sim_status cli_plan_cand_opts(const plan_ctx *c, const plan_cand *k, cli_plan_flags *f,
                              cli_opts *q, sim_err *err)
{
    *q = *c->o;
    q->model = c->models[k->model];
    q->hw = c->hws[k->hw];
    q->warn = NULL;
    q->html = NULL;
    q->out_file = NULL;
    snprintf(f->tp, sizeof f->tp, "%lld", (long long)k->tp);
    snprintf(f->pp, sizeof f->pp, "%lld", (long long)k->pp);
    snprintf(f->ep, sizeof f->ep, "%lld", (long long)k->ep);
    snprintf(f->dp, sizeof f->dp, "%lld", (long long)k->dp);
    sim_status st = cli_plan_set_flag(q, CLI_OPT_ID_ENGINE, k->engine, err);
    if (!st)
        st = cli_plan_set_flag(q, CLI_OPT_ID_TP, f->tp, err);
    if (!st && k->pp > 1)
        st = cli_plan_set_flag(q, CLI_OPT_ID_PP, f->pp, err);
    if (!st && k->ep > 1)
        st = cli_plan_set_flag(q, CLI_OPT_ID_EP, f->ep, err);
    if (!st && k->dp_attention) {
        st = cli_plan_set_flag(q, CLI_OPT_ID_DP_ATTENTION, "", err);
        if (!st)
            st = cli_plan_set_flag(q, CLI_OPT_ID_DP, f->dp, err);
        /* the decode batch DeepEP's low-latency buffer holds (cli_plan_internal.h) */
        const int64_t cap = q->deepep_ll_max_tokens > 0 ? q->deepep_ll_max_tokens
                                                        : SIM_A2A_LL_MAX_TOKENS;
        if (!st && !q->given[CLI_OPT_ID_MAX_NUM_SEQS] && k->dp > 0) {
            snprintf(f->max_num_seqs, sizeof f->max_num_seqs, "%lld",
                     (long long)(cap * k->ep / k->dp > 0 ? cap * k->ep / k->dp : 1));
            st = cli_plan_set_flag(q, CLI_OPT_ID_MAX_NUM_SEQS, f->max_num_seqs, err);
        }
    }
    if (!st && k->fp8)
        st = cli_plan_set_flag(q, CLI_OPT_ID_WEIGHT_DTYPE, "fp8", err);
    if (!st)
        st = cli_plan_variant_flags(c, k, q, f->spec_json, f->spec_sizes, err);
    return st;
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

/* ------------------------------------------------------------------------------------------ */
/* The KV-cache formats and speculations searched (--kv-cache-dtypes, --spec-methods) */

sim_status cli_plan_variants(plan_ctx *c, sim_err *err)
{
    const cli_opts *o = c->o;
    static const cli_opt_id by_list[][2] = {
        {CLI_OPT_ID_KV_CACHE_DTYPE, CLI_OPT_ID_KV_CACHE_DTYPES},
        {CLI_OPT_ID_SPEC_METHOD, CLI_OPT_ID_SPEC_METHODS},
        {CLI_OPT_ID_SPECULATIVE_CONFIG, CLI_OPT_ID_SPEC_METHODS},
        {CLI_OPT_ID_SPECULATIVE_ALGORITHM, CLI_OPT_ID_SPEC_METHODS},
        {CLI_OPT_ID_NUM_SPECULATIVE_TOKENS, CLI_OPT_ID_SPEC_METHODS}};
    for (size_t i = 0; i < sizeof by_list / sizeof by_list[0]; i++)
        if (cli_opt_given(o, by_list[i][0]) && cli_opt_given(o, by_list[i][1]))
            return sim_fail(err, SIM_EINPUT,
                            "%s with %s: expected one of them (the first applies to every "
                            "candidate, the second is searched)",
                            cli_opt_name(by_list[i][0]), cli_opt_name(by_list[i][1]));
    for (const char *p = o->kv_dtypes; p && *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!((n == 7 && strncmp(p, "default", 7) == 0) || (n == 3 && strncmp(p, "fp8", 3) == 0)))
            return sim_fail(err, SIM_EINPUT, "--kv-cache-dtypes: item '%.*s' of '%s', expected "
                                             "default or fp8",
                            (int)n, p, o->kv_dtypes);
        p = e ? e + 1 : NULL;
    }
    c->n_specs = 0;
    const char *list = o->spec_methods ? o->spec_methods : "none";
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char item[32];
        snprintf(item, sizeof item, "%.*s", (int)(n < 31 ? n : 31), p);
        plan_spec sp = {{0}, 0};
        char *colon = strchr(item, ':');
        char *end = NULL;
        if (colon) {
            *colon = '\0';
            sp.k = strtoll(colon + 1, &end, 10);
        }
        snprintf(sp.method, sizeof sp.method, "%.15s", item);
        const bool known = strcmp(item, "none") == 0 || strcmp(item, "eagle") == 0 ||
                           strcmp(item, "eagle3") == 0 || strcmp(item, "mtp") == 0;
        if (n > 31 || !known || (colon && (strcmp(item, "none") == 0 || *end || sp.k < 1 ||
                                           sp.k > 16)))
            return sim_fail(err, SIM_EINPUT,
                            "--spec-methods: item '%.*s' of '%s', expected none, eagle, eagle3 or "
                            "mtp, each optionally with :K drafted tokens (1..16)",
                            (int)n, p, list);
        if (c->n_specs == PLAN_MAX_SPECS)
            return sim_fail(err, SIM_EINPUT, "--spec-methods: more than %d items in '%s'",
                            PLAN_MAX_SPECS, list);
        c->specs[c->n_specs++] = sp;
        p = e ? e + 1 : p + n;
    }
    return SIM_OK;
}

bool cli_plan_acceptance_given(const cli_opts *o)
{
    return cli_opt_given(o, CLI_OPT_ID_SPEC_ACCEPTANCE_RATE) ||
           cli_opt_given(o, CLI_OPT_ID_SPEC_ACCEPTANCE_LENGTH) || o->spec_rates[0] || o->spec_data;
}

/* The dataset of the first row of tools/data/spec_acceptance.csv for method on model (its
 * first three columns, which are never quoted) into ds; "" when none. */
static void published_dataset(const char *method, const char *model, char *ds, size_t len)
{
    ds[0] = '\0';
    char path[PATH_MAX];
    snprintf(path, sizeof path, "tools/data/spec_acceptance.csv");
    sim_find_file("tools/data", "spec_acceptance.csv", path, sizeof path);
    sim_lines in;
    sim_err e;
    if (sim_lines_open(&in, path, &e))
        return;
    char *line;
    while (!ds[0] && !sim_lines_next(&in, &line, &e) && line) {
        char *f[3] = {line, NULL, NULL};
        for (int i = 1; i < 3 && f[i - 1]; i++)
            if ((f[i] = strchr(f[i - 1], ',')))
                *f[i]++ = '\0';
        char *end = f[2] ? strchr(f[2], ',') : NULL;
        if (end && strcmp(f[0], method) == 0 && strcmp(f[1], model) == 0) {
            *end = '\0';
            snprintf(ds, len, "%s", f[2]);
        }
    }
    sim_lines_close(&in);
}

sim_status cli_plan_variant_flags(const plan_ctx *c, const plan_cand *k, cli_opts *q,
                                  char spec_json[160], char spec_sizes[3][24], sim_err *err)
{
    sim_status st = SIM_OK;
    if (k->kv8)
        st = cli_plan_set_flag(q, CLI_OPT_ID_KV_CACHE_DTYPE, "fp8", err);
    const plan_spec *sp = &c->specs[k->spec];
    if (st || !c->o->spec_methods)
        return st;
    if (strcmp(sp->method, "none") == 0) { /* the acceptance given is for the speculations */
        static const cli_opt_id acc[] = {
            CLI_OPT_ID_SPEC_ACCEPTANCE_RATE, CLI_OPT_ID_SPEC_ACCEPTANCE_LENGTH,
            CLI_OPT_ID_SPEC_ACCEPTANCE_RATES, CLI_OPT_ID_SPEC_ACCEPTANCE_DATA};
        for (size_t i = 0; i < sizeof acc / sizeof acc[0]; i++)
            q->given[acc[i]] = false;
        q->spec_rates[0] = '\0';
        q->spec_data = NULL;
        return SIM_OK;
    }
    cli_plan_spec_spelling(k->engine, sp->method, k->spec_k, spec_json, 160);
    if (strcmp(k->engine, "sglang") == 0) {
        snprintf(spec_sizes[0], 24, "%lld", (long long)k->spec_k);
        snprintf(spec_sizes[1], 24, "1");
        snprintf(spec_sizes[2], 24, "%lld", (long long)k->spec_k + 1);
        st = cli_plan_set_flag(q, CLI_OPT_ID_SPECULATIVE_ALGORITHM, spec_json, err);
        if (!st)
            st = cli_plan_set_flag(q, CLI_OPT_ID_SPECULATIVE_NUM_STEPS, spec_sizes[0], err);
        if (!st)
            st = cli_plan_set_flag(q, CLI_OPT_ID_SPECULATIVE_EAGLE_TOPK, spec_sizes[1], err);
        if (!st)
            st = cli_plan_set_flag(q, CLI_OPT_ID_SPECULATIVE_NUM_DRAFT_TOKENS, spec_sizes[2], err);
    } else {
        st = cli_plan_set_flag(q, CLI_OPT_ID_SPECULATIVE_CONFIG, spec_json, err);
    }
    if (!st && !cli_plan_acceptance_given(c->o) && c->spec_data[k->model][k->spec][0])
        st = cli_plan_set_flag(q, CLI_OPT_ID_SPEC_ACCEPTANCE_DATA, c->spec_data[k->model][k->spec],
                               err);
    return st;
}

bool cli_plan_spec_unpriced(const plan_ctx *c, const plan_cand *k, cli_plan_row *r)
{
    if (k->spec_k == 0 || cli_plan_acceptance_given(c->o) || c->spec_data[k->model][k->spec][0])
        return false;
    r->status = CLI_PLAN_UNFIT;
    snprintf(r->reason, sizeof r->reason,
             "no published acceptance of %s on %s in tools/data/spec_acceptance.csv (give "
             "--spec-acceptance-rate, -length, -rates or -data)",
             c->specs[k->spec].method, c->models[k->model]);
    return true;
}

static sim_status enumerate_on(plan_ctx *c, int m, int h, const sim_hw *hw, const sim_model *mod,
                               sim_err *err);
static sim_status enumerate_layouts(plan_ctx *c, const plan_cand *base, int64_t experts,
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
    if ((st = cli_load_price(c->o, &c->cache, hpath, &he->hw, &usd, err)))
        return st;
    /* copies: adding the engine profiles below may move the cache's entries */
    sim_hw *hw = malloc(sizeof *hw);
    sim_model *mod = malloc(sizeof *mod);
    if (!hw || !mod) {
        free(hw);
        free(mod);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    *hw = he->hw;
    *mod = me->model;
    for (int i = 0; i < c->n_specs; i++)
        published_dataset(c->specs[i].method, mod->name, c->spec_data[m][i],
                          sizeof c->spec_data[m][i]);
    st = enumerate_on(c, m, h, hw, mod, err);
    free(hw);
    free(mod);
    return st;
}

/* enumerate's loops, on a copy of the device. */
static sim_status enumerate_on(plan_ctx *c, int m, int h, const sim_hw *hw, const sim_model *mod,
                               sim_err *err)
{
    const int64_t experts = mod->experts;
    const cli_opts *o = c->o;
    sim_status st;
    static const char *const cuda[] = {"vllm", "sglang", "trtllm"};
    size_t n_eng = 1;
    if (strcmp(hw->arch, "tpu") != 0 && strcmp(hw->arch, "gaudi") != 0)
        n_eng = sim_engprof_device_platform(hw) == SIM_ENGPROF_ROCM ? 2 : 3;
    /* the checkpoint's weights are 16-bit unless quantized: fp8 is a candidate then */
    bool can_fp8 = hw->peak_flops[SIM_DT_FP8] > 0.0;
    bool can_kv8 = false; /* a 16-bit KV cache by default: fp8 is a candidate then */
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
        can_kv8 = loaded && sim_dtype_bytes(L->step.prec.kv) >= 2.0;
        free(L);
    }
    for (size_t ei = 0; ei < n_eng; ei++) {
        if (o->engines && !listed(o->engines, cuda[ei]))
            continue;
        cli_opts q = *o;
        q.model = c->models[m], q.hw = c->hws[h], q.engine = cuda[ei];
        /* every name the candidates' probes resolve, and the engine profile, once */
        if (cli_load_cache_prepare(&c->cache, &q, true, cli_point_draw_count(&q, true) > 0))
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        for (int fp8 = 0; fp8 <= (can_fp8 ? 1 : 0); fp8++) {
            if (o->precisions && !listed(o->precisions, fp8 ? "fp8" : "default"))
                continue;
            /* an fp8 KV cache when listed and the default is wider; the default unless only fp8
             * is listed and it is wider */
            const bool kv_hi = can_kv8 && o->kv_dtypes && listed(o->kv_dtypes, "fp8");
            const bool kv_lo = !(can_kv8 && o->kv_dtypes && !listed(o->kv_dtypes, "default"));
            for (int kv8 = kv_lo ? 0 : 1; kv8 <= (kv_hi ? 1 : 0); kv8++)
                for (int si = 0; si < c->n_specs; si++) {
                    plan_cand base = {.model = m, .hw = h, .engine = cuda[ei], .fp8 = fp8,
                                      .kv8 = kv8, .spec = si, .pp = 1, .ep = 1, .dp = 1};
                    const plan_spec *sp = &c->specs[si];
                    /* MTP needs the checkpoint's MTP layers; K defaults as the engines do */
                    if (strcmp(sp->method, "mtp") == 0 && mod->mtp_layers < 1)
                        continue;
                    base.spec_k = sp->k ? sp->k : strcmp(sp->method, "mtp") == 0 ? mod->mtp_layers
                                                  : strcmp(sp->method, "none") == 0 ? 0
                                                                                    : 3;
                    if ((st = enumerate_layouts(c, &base, experts, err)))
                        return st;
                }
        }
    }
    return SIM_OK;
}

/* Every layout of a candidate's engine, precision, KV-cache format and speculation (a speculation
 * neither over pipeline stages nor disaggregated: infersim models neither). */
static sim_status enumerate_layouts(plan_ctx *c, const plan_cand *base, int64_t experts,
                                    sim_err *err)
{
    /* layouts: {tp, pp, ep, dp-attention groups} */
    int64_t lay[24][4];
    size_t nl = 0;
    for (int64_t tp = 1; tp <= 8; tp *= 2)
        lay[nl][0] = tp, lay[nl][1] = 1, lay[nl][2] = 1, lay[nl++][3] = 1;
    for (int64_t tp = 4; tp <= 8 && base->spec_k == 0; tp *= 2)
        lay[nl][0] = tp, lay[nl][1] = 2, lay[nl][2] = 1, lay[nl++][3] = 1;
    if (experts > 0) {
        for (int64_t n = 2; n <= 8; n *= 2)
            lay[nl][0] = n, lay[nl][1] = 1, lay[nl][2] = n, lay[nl++][3] = 1;
        for (int64_t n = 2; n <= 8; n *= 2)
            lay[nl][0] = 1, lay[nl][1] = 1, lay[nl][2] = n, lay[nl++][3] = n;
    }
    for (size_t li = 0; li < nl; li++)
        for (int dis = 0; dis <= (lay[li][1] == 1 && base->spec_k == 0 ? 1 : 0); dis++) {
            plan_cand k = *base;
            k.tp = lay[li][0], k.pp = lay[li][1], k.ep = lay[li][2];
            k.dp = lay[li][3], k.dp_attention = lay[li][3] > 1, k.disagg = dis;
            if (k.tp * k.dp * k.pp > c->o->max_gpus)
                continue;
            sim_status st = add(c, k, err);
            if (st)
                return st;
        }
    return SIM_OK;
}
