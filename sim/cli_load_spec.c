/* cli_load_spec.c - speculative decoding from the command line: each engine family's spelling
 * of it (vLLM's --speculative-config, SGLang's --speculative-*, TensorRT-LLM's), the draft model
 * and the acceptance rates, loaded after the target model and the engine (cli_load.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_load.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "find.h"

bool cli_load_spec_draft_name(const cli_opts *o, char *buf, size_t len)
{
    sim_spec_req r;
    sim_err err = {{0}};
    const char *name = NULL;
    if (o->spec_config) {
        sim_status st = strstr(o->spec_config, "\"decoding_type\"")
                            ? sim_spec_parse_trtllm(o->spec_config, &r, &err)
                            : sim_spec_parse_vllm(o->spec_config, true, &r, &err);
        if (!st && r.method == SIM_SPEC_DRAFT)
            name = o->spec_model ? o->spec_model : r.draft_model;
    } else if (o->spec_algorithm) {
        if (strcmp(o->spec_algorithm, "STANDALONE") == 0)
            name = o->spec_model;
    } else if (o->spec_method && strcmp(o->spec_method, "draft") == 0) {
        name = o->spec_model;
    }
    if (!name || !name[0])
        return false;
    snprintf(buf, len, "%s", name);
    return true;
}

/* Per-position acceptance rates from --spec-acceptance-rates ("0.8,0.6,0.4"). */
static sim_status parse_rates(const char *list, sim_spec_accept *acc, sim_err *err)
{
    const char *p = list;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || (*end && *end != ',') || !(v >= 0.0 && v <= 1.0) ||
            acc->n_rates >= SIM_SPEC_MAX_DEPTH)
            return sim_fail(err, SIM_EINPUT,
                            "--spec-acceptance-rates: value '%s', expected up to %d "
                            "probabilities in [0, 1]",
                            list, SIM_SPEC_MAX_DEPTH);
        acc->rates[acc->n_rates++] = v;
        p = *end ? end + 1 : end;
    }
    return SIM_OK;
}

/* The engine family whose spelling of speculative decoding the flags use. */
typedef enum spec_family { FAM_VLLM, FAM_VLLM_V0, FAM_SGLANG, FAM_TRTLLM } spec_family;

static spec_family engine_family(const sim_engprof *e)
{
    if (e->policy == SIM_POLICY_SGLANG)
        return FAM_SGLANG;
    if (e->policy == SIM_POLICY_MAX_UTIL || e->policy == SIM_POLICY_NO_EVICT)
        return FAM_TRTLLM;
    return strncmp(e->name, "vllm-v0", 7) == 0 ? FAM_VLLM_V0 : FAM_VLLM;
}

/* The speculation as an engine's own flags give it (--speculative-config, SGLang's
 * --speculative-*), or as --spec-method and --num-speculative-tokens give it. */
static sim_status spec_request(const cli_opts *o, const sim_engprof *e, sim_spec_req *r,
                               sim_err *err)
{
    const spec_family fam = engine_family(e);
    const bool sgl_sized = cli_opt_given_any(
        o, (const cli_opt_id[]){CLI_OPT_ID_SPECULATIVE_NUM_STEPS, CLI_OPT_ID_SPECULATIVE_EAGLE_TOPK,
                                CLI_OPT_ID_SPECULATIVE_NUM_DRAFT_TOKENS, CLI_OPT_ID_NONE});
    int ways = (o->spec_method != NULL) + (o->spec_config != NULL) + (o->spec_algorithm != NULL);
    if (ways > 1)
        return sim_fail(err, SIM_EINPUT,
                        "--spec-method, --speculative-config, --speculative-algorithm: give one "
                        "of them");
    if (sgl_sized && !o->spec_algorithm)
        return sim_fail(err, SIM_EINPUT,
                        "--speculative-num-steps, --speculative-eagle-topk, "
                        "--speculative-num-draft-tokens: need --speculative-algorithm");
    memset(r, 0, sizeof *r);
    if (o->spec_config) {
        if (fam == FAM_SGLANG)
            return sim_fail(err, SIM_EINPUT,
                            "--speculative-config: SGLang takes --speculative-algorithm and its "
                            "--speculative-* flags, not a JSON config (--engine %s)",
                            e->name);
        if (cli_opt_given(o, CLI_OPT_ID_NUM_SPECULATIVE_TOKENS))
            return sim_fail(err, SIM_EINPUT,
                            "--num-speculative-tokens: with --speculative-config, give "
                            "num_speculative_tokens (vLLM) or max_draft_len (TensorRT-LLM) in "
                            "the JSON");
        return fam == FAM_TRTLLM ? sim_spec_parse_trtllm(o->spec_config, r, err)
                                 : sim_spec_parse_vllm(o->spec_config, fam == FAM_VLLM_V0, r, err);
    }
    if (o->spec_algorithm) {
        if (fam != FAM_SGLANG)
            return sim_fail(err, SIM_EINPUT,
                            "--speculative-algorithm: SGLang's flag; --engine %s takes "
                            "--speculative-config (or --spec-method)",
                            e->name);
        return sim_spec_parse_sglang(o->spec_algorithm, o->spec_steps, o->spec_topk,
                                     o->spec_draft_tokens, r, err);
    }
    if (!sim_spec_method_parse(o->spec_method, &r->method))
        return sim_fail(err, SIM_EINPUT,
                        "--spec-method: value '%s', expected draft, eagle, medusa, mtp or ngram",
                        o->spec_method);
    if (!cli_opt_given(o, CLI_OPT_ID_NUM_SPECULATIVE_TOKENS))
        return sim_fail(err, SIM_EINPUT,
                        "--num-speculative-tokens: missing, --spec-method %s "
                        "needs K (tokens drafted per verify step)",
                        o->spec_method);
    r->tree = sim_spec_chain((int)o->spec_k);
    snprintf(r->method_name, sizeof r->method_name, "%s", o->spec_method);
    return SIM_OK;
}

/* Speculative decoding from the flags (after the target model and the engine are loaded). */
sim_status cli_load_spec(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                         sim_err *err)
{
    /* without a method, the other speculative flags are refused by the option table's rule */
    if (!o->spec_method && !o->spec_config && !o->spec_algorithm)
        return sim_spec_init(&L->spec, SIM_SPEC_NONE, 0, -1, -1, &L->model, NULL, err);
    sim_spec_req r;
    sim_status st = spec_request(o, &L->eng, &r, err);
    if (st)
        return st;
    if (r.tree.depth == 0) { /* MTP at the model's own depth */
        if (L->model.mtp_layers < 1 || L->model.mtp_layers > SIM_SPEC_MAX_DEPTH)
            return sim_fail(err, SIM_EINPUT,
                            "--speculative-config: method %s without num_speculative_tokens "
                            "takes the model's num_nextn_predict_layers, but %s has %lld",
                            sim_spec_method_name(r.method), L->model.path,
                            (long long)L->model.mtp_layers);
        r.tree = sim_spec_chain((int)L->model.mtp_layers);
    }
    const char *draft_name = o->spec_model      ? o->spec_model
                             : r.draft_model[0] ? r.draft_model
                                                : NULL;
    const sim_model *draft = NULL;
    if (draft_name && r.method == SIM_SPEC_DRAFT) {
        char path[PATH_MAX];
        cli_load_resolve_in(cache, CLI_LOAD_MODEL, draft_name, path, sizeof path);
        st = cli_load_model(cache, path, &L->draft, err);
        if (st)
            return st;
        draft = &L->draft;
    } else if (o->spec_model && o->spec_method) {
        return sim_fail(err, SIM_EINPUT, "--spec-model: applies only to --spec-method draft");
    } /* else: the EAGLE heads and MTP layers are priced from the target's shape; a path given for
       * them names the checkpoint the engine loads, which infersim does not read */
    sim_spec_accept acc = {
        .alpha = cli_opt_given(o, CLI_OPT_ID_SPEC_ACCEPTANCE_RATE) ? o->spec_alpha : -1.0,
        .tau = cli_opt_given(o, CLI_OPT_ID_SPEC_ACCEPTANCE_LENGTH) ? o->spec_tau : -1.0};
    if (o->spec_rates[0] && (st = parse_rates(o->spec_rates, &acc, err)))
        return st;
    if (o->spec_data) {
        if (acc.alpha >= 0.0 || acc.tau > 0.0 || acc.n_rates > 0)
            return sim_fail(err, SIM_EINPUT,
                            "--spec-acceptance-data: give it or an acceptance rate, length or "
                            "rates, not both");
        char path[PATH_MAX];
        snprintf(path, sizeof path, "tools/data/spec_acceptance.csv");
        cli_load_data_in(cache, "spec_acceptance.csv", path, sizeof path);
        if ((st = sim_spec_acceptance_lookup(path, &r, &L->model, o->spec_data, &acc, err)))
            return st;
    }
    st = sim_spec_init_tree(&L->spec, r.method, &r.tree, &acc,
                            o->spec_config      ? "--speculative-config"
                            : o->spec_algorithm ? "--speculative-num-draft-tokens"
                                                : "--num-speculative-tokens",
                            &L->model, draft, err);
    if (st)
        return st;
    L->spec.adapt = r.adapt;
    /* the draft as the engine's proposer runs it; an EAGLE-3 head's own shape */
    L->spec.prop = sim_spec_proposer_for(L->eng.name);
    if (strcmp(r.method_name, "eagle3") == 0)
        st = sim_spec_set_eagle3(&L->spec, o->spec_draft_vocab, err);
    else if (cli_opt_given(o, CLI_OPT_ID_SPEC_DRAFT_VOCAB))
        st = sim_fail(err, SIM_EINPUT,
                      "--spec-draft-vocab: applies to EAGLE-3 heads (method eagle3), not %s",
                      r.method_name);
    if (st)
        return st;
    const spec_family fam = engine_family(&L->eng);
    if (fam == FAM_VLLM || fam == FAM_SGLANG) {
        bool async_on = L->step.async_sched;
        st = sim_spec_engine_async(&L->spec, fam == FAM_SGLANG,
                                   cli_opt_given(o, CLI_OPT_ID_ASYNC_SCHEDULING), &async_on, err);
        if (st)
            return st;
        L->spec.sync_host = L->step.async_sched && !async_on;
    }
    /* SGLang caps the running requests at 48 under speculation unless the flag sets them
     * (python/sglang/srt/server_args.py, _handle_speculative_decoding) */
    if (fam == FAM_SGLANG &&
        !cli_opt_given_any(
            o, (const cli_opt_id[]){CLI_OPT_ID_MAX_NUM_SEQS, CLI_OPT_ID_MAX_BATCH_SIZE,
                                    CLI_OPT_ID_MAX_RUNNING_REQUESTS, CLI_OPT_ID_NONE}) &&
        L->eng.max_num_seqs > 48)
        L->eng.max_num_seqs = 48;
    return SIM_OK;
}
