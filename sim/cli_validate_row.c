/* cli_validate_row.c - one validation row's prediction for the validate command: the device,
 * model and engine profile it names (cached across rows), the flags its framework column records,
 * and its predicted value (cli_validate_internal.h). Called by cli_validate.c (the command's
 * summaries) and cli_validate_unc.c (the bands' draws); it calls neither. */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_load.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_validate_internal.h"

/* Loads the device or model a validation row names (cached across rows). */
const cli_load_entry *cli_validate_row_file(cli_load_cache *c, cli_load_kind kind, const char *name,
                                      sim_err *err, sim_status *st)
{
    char path[PATH_MAX];
    cli_load_resolve(kind, name, path, sizeof path);
    if (cli_load_cache_add(c, kind, path, 0, 0)) {
        *st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        return NULL;
    }
    return cli_load_cache_get(c, kind, path, 0, 0, err, st);
}

/* The engine profile that scores an end-to-end row: the engine and release that measured it, from
 * the row's framework column ("vLLM 0.10.2 (...)": vllm@0.10.2, sim_engprof_spec_of) on the row's
 * device (a ROCm profile on an AMD one); rows that name no engine use the default profile. */
static sim_status row_engine(const sim_vrow *r, const cli_load_cache *c, const sim_hw *hw,
                             char *path, size_t len, sim_err *err)
{
    char spec[64], what[96];
    if (!sim_engprof_spec_of(r->framework, NULL, spec, sizeof spec))
        snprintf(spec, sizeof spec, "%s", cli_opt_defaults.engine);
    snprintf(what, sizeof what, "row %lld: framework", (long long)r->id);
    return cli_load_engine_spec_path(spec, what, c, hw, path, len, err);
}

/* Engine flags a row's framework column records ("vLLM 0.11 (--async-scheduling, ...)"): the
 * profile's default as the benchmark overrode it. */
static void row_engine_flags(const sim_vrow *r, sim_engprof *e)
{
    static const struct {
        const char *flag;
        bool async;
    } flags[] = {{"--async-scheduling", true}, {"--no-async-scheduling", false}};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        const char *at = strstr(r->framework, flags[i].flag);
        size_t l = strlen(flags[i].flag);
        if (at && !isalnum((unsigned char)at[l]) && at[l] != '-')
            e->async_scheduling = flags[i].async;
    }
}

/* Where the value of `flag` starts in a row's framework column ("--max-concurrency 32",
 * "--mem-fraction-static=0.9"), or NULL when the column does not record the flag. */
static const char *row_flag_value(const sim_vrow *r, const char *flag)
{
    const char *at = strstr(r->framework, flag);
    if (!at)
        return NULL;
    at += strlen(flag);
    while (*at == ' ' || *at == '=')
        at++;
    return at;
}

/* The client's cap on requests in flight a serve row's framework column records ("(vllm bench
 * serve, --max-concurrency 32)": a closed loop that sends the next request when one finishes);
 * 0 when it records none. */
static int64_t row_max_concurrency(const sim_vrow *r)
{
    const char *at = row_flag_value(r, "--max-concurrency");
    if (!at)
        return 0;
    long long n = 0;
    while (isdigit((unsigned char)*at) && n < (1LL << 28))
        n = n * 10 + (*at++ - '0');
    return (int64_t)n;
}

/* The share of HBM the server was given, as the row's framework column records the engine's flag
 * (SGLang's --mem-fraction-static, vLLM's --gpu-memory-utilization): *fraction, or 0 when the
 * column records neither. A value outside (0, 1] fails the row. */
static sim_status row_mem_fraction(const sim_vrow *r, double *fraction, sim_err *err)
{
    static const char *const flags[] = {"--mem-fraction-static", "--gpu-memory-utilization"};
    *fraction = 0.0;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        const char *at = row_flag_value(r, flags[i]);
        if (!at)
            continue;
        char *end;
        const double v = strtod(at, &end);
        if (end == at || !(v > 0.0 && v <= 1.0))
            return sim_fail(err, SIM_EINPUT,
                            "row %lld: framework: %s value '%.12s', expected a fraction in (0, 1]",
                            (long long)r->id, flags[i], at);
        *fraction = v;
    }
    return SIM_OK;
}

const cli_load_entry *cli_validate_row_profile(cli_load_cache *cache, const sim_vrow *r,
                                              sim_status *st, sim_err *err)
{
    const cli_load_entry *h = cli_validate_row_file(cache, CLI_LOAD_HW, r->hw, err, st);
    const cli_load_entry *m = h ? cli_validate_row_file(cache, CLI_LOAD_MODEL, r->model, err, st)
                                : NULL;
    if (!m)
        return NULL;
    h = cli_validate_row_file(cache, CLI_LOAD_HW, r->hw, err, st); /* the model's load may move it */
    if (cli_load_catalog_load(&cache->catalog)) {
        *st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        return NULL;
    }
    char epath[PATH_MAX];
    if ((*st = row_engine(r, cache, &h->hw, epath, sizeof epath, err)))
        return NULL;
    return cli_validate_row_file(cache, CLI_LOAD_ENGINE, epath, err, st);
}

/* Whether a serve row's benchmark went through the engine's HTTP front end: not trtllm-bench,
 * which feeds token ids to the executor in-process, nor an offline run. */
static bool row_has_frontend(const sim_vrow *r)
{
    return !strstr(r->framework, "trtllm-bench") && !strstr(r->framework, "offline");
}

/* A row that measures quantized weights, activations or KV cache; `p`: an end-to-end row's
 * precision as it ran. */
bool cli_validate_row_quantized(const sim_vrow *r, const sim_prec *p)
{
    if (r->kind == SIM_VK_GEMM)
        return !sim_dtype_is_16bit(r->dtype) || r->weight != r->dtype;
    if (sim_vkind_is_op(r->kind))
        return false;
    return !sim_dtype_is_16bit(p->weight) || !sim_dtype_is_16bit(p->act) ||
           !sim_dtype_is_16bit(p->kv);
}

/* Predicts row r. An op row runs on `variant` when given (the device with other efficiencies),
 * else on its device; an end-to-end row under draw d when given (unc.h: its device and its
 * engine's overheads moved), else as the files give them. */
sim_status cli_validate_predict(const cli_opts *o, cli_load_cache *cache, const sim_vrow *r,
                                const sim_hw *variant, const sim_unc_draw *d, double *pred,
                                sim_prec *prec, sim_err *rerr)
{
    sim_status rs;
    const cli_load_entry *h = cli_validate_row_file(cache, CLI_LOAD_HW, r->hw, rerr, &rs);
    if (h && sim_vkind_is_op(r->kind))
        return sim_validate_op(r, variant ? variant : &h->hw, pred, rerr);
    if (!h)
        return rs;
    const cli_load_entry *m = NULL;
    const cli_load_entry *e = cli_validate_row_profile(cache, r, &rs, rerr);
    /* loading a file may move the cache's entries: look the earlier ones up again (they are
     * cached now, so this adds nothing and moves nothing) */
    if (!e)
        return rs;
    h = cli_validate_row_file(cache, CLI_LOAD_HW, r->hw, rerr, &rs);
    m = cli_validate_row_file(cache, CLI_LOAD_MODEL, r->model, rerr, &rs);
    sim_engprof eng = e->eng; /* the profile as the engine chose it on the row's device */
    row_engine_flags(r, &eng);
    sim_engprof_for_device(&eng, &h->hw, r->tp);
    sim_engprof_apply_reserve(&eng, &h->hw, r->tp, 1);
    double given_fraction; /* the server's memory flag, as the CLI's wins over the profile */
    if ((rs = row_mem_fraction(r, &given_fraction, rerr)))
        return rs;
    if (given_fraction > 0.0)
        eng.mem_fraction = given_fraction;
    if ((rs = sim_validate_row_prec(r, &m->model, &h->hw, prec, rerr)))
        return rs;
    sim_step_cfg step = cli_load_engine_step(&eng, &m->model);
    sim_hw *moved = d ? malloc(sizeof *moved) : NULL;
    if (d && !moved)
        return sim_fail(rerr, SIM_EINTERNAL, "out of memory");
    const sim_hw *hw = &h->hw;
    if (d) {
        step.hw = &h->hw;
        step = sim_unc_apply(&step, d, moved);
        hw = moved;
    }
    if (r->kind == SIM_VK_SERVE) {
        sim_engine_cfg tmpl = {.step = step};
        cli_load_engine_cfg(&eng, &tmpl);
        tmpl.max_input_len = 0; /* the benchmark built its engine for its own prompts */
        tmpl.max_concurrency = row_max_concurrency(r);
        tmpl.frontend.on = row_has_frontend(r) && strcmp(o->frontend, "none") != 0;
        if (d) /* the front end's costs are the engine's: its factor */
            sim_unc_apply_frontend(&tmpl.frontend, d);
        rs = sim_validate_serve(r, &m->model, hw, &tmpl, pred, rerr);
    } else if (r->kind == SIM_VK_SPEC) {
        /* the speculative run's host scheduling as the engine runs it (spec.h); the plain run
         * keeps the profile's */
        bool spec_async = eng.async_scheduling && eng.policy != SIM_POLICY_SGLANG &&
                          strncmp(eng.name, "vllm", 4) != 0;
        const sim_spec_proposer prop = sim_spec_proposer_for(eng.name);
        rs = sim_validate_spec(r, &m->model, hw, &step, spec_async, &prop, pred, rerr);
    } else {
        rs = sim_validate_e2e(r, &m->model, hw, &step, pred, rerr);
    }
    free(moved);
    return rs;
}
