/* spec_engine.c - speculative decoding configured as each engine takes it: vLLM's
 * --speculative-config JSON, SGLang's --speculative-* flags, TensorRT-LLM's speculative_config,
 * each mapped onto a tree (spec.h), and the engines' load rules. */
#include "spec.h"

#include "jsonf.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* vLLM's method names (vllm/config/speculative.py, SpeculativeMethod) onto ours. */
typedef struct method_name {
    const char *name;
    sim_spec_method method;
} method_name;

static const method_name vllm_methods[] = {
    {"eagle", SIM_SPEC_EAGLE},  {"eagle3", SIM_SPEC_EAGLE},        {"medusa", SIM_SPEC_MEDUSA},
    {"mtp", SIM_SPEC_MTP},      {"deepseek_mtp", SIM_SPEC_MTP},    {"qwen3_next_mtp", SIM_SPEC_MTP},
    {"ngram", SIM_SPEC_NGRAM},  {"draft_model", SIM_SPEC_DRAFT},   {NULL, SIM_SPEC_NONE}};

/* SGLang's --speculative-algorithm (python/sglang/srt/speculative/spec_info.py): NEXTN is EAGLE
 * over the checkpoint's own MTP layers (server_args.py rewrites it to EAGLE). */
static const method_name sglang_methods[] = {{"EAGLE", SIM_SPEC_EAGLE},
                                             {"EAGLE3", SIM_SPEC_EAGLE},
                                             {"NEXTN", SIM_SPEC_MTP},
                                             {"STANDALONE", SIM_SPEC_DRAFT},
                                             {"NGRAM", SIM_SPEC_NGRAM},
                                             {NULL, SIM_SPEC_NONE}};

/* TensorRT-LLM's decoding_type (tensorrt_llm/llmapi/llm_args.py, DecodingBaseConfig
 * subclasses). */
static const method_name trtllm_methods[] = {{"Eagle", SIM_SPEC_EAGLE},
                                             {"Eagle3", SIM_SPEC_EAGLE},
                                             {"MTP", SIM_SPEC_MTP},
                                             {"Medusa", SIM_SPEC_MEDUSA},
                                             {"NGram", SIM_SPEC_NGRAM},
                                             {"Draft_Target", SIM_SPEC_DRAFT},
                                             {NULL, SIM_SPEC_NONE}};

static bool find_method(const method_name *t, const char *s, sim_spec_method *out)
{
    for (; t->name; t++)
        if (strcmp(t->name, s) == 0) {
            *out = t->method;
            return true;
        }
    return false;
}

static void list_methods(const method_name *t, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (; t->name && n < len; t++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", t->name);
}

/* An integer field of the config object in [lo, hi]; absent leaves *out. */
static sim_status int_field(const cJSON *o, const char *flag, const char *key, int64_t lo,
                            int64_t hi, int64_t *out, sim_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return SIM_OK;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi)
        return sim_fail(err, SIM_EINPUT, "%s: field '%s' is %s, expected an integer in %lld..%lld",
                        flag, key, cJSON_IsNumber(v) ? "out of range" : "not a number",
                        (long long)lo, (long long)hi);
    *out = (int64_t)v->valuedouble;
    return SIM_OK;
}

/* Refuses any key not in `known` (NULL-terminated): a field the engine reads and infersim does
 * not model must not pass silently. */
static sim_status known_keys(const cJSON *o, const char *flag, const char *const *known,
                             sim_err *err)
{
    for (const cJSON *c = o->child; c; c = c->next) {
        bool ok = false;
        for (const char *const *k = known; *k && !ok; k++)
            ok = strcmp(*k, c->string) == 0;
        if (!ok)
            return sim_fail(err, SIM_EINPUT,
                            "%s: field '%s' is not one infersim models (known: method or "
                            "decoding_type, model, num_speculative_tokens and the fields listed "
                            "in the README's speculative-decoding section)",
                            flag, c->string);
    }
    return SIM_OK;
}

static sim_status parse_object(const char *json, const char *flag, cJSON **out, sim_err *err)
{
    *out = cJSON_Parse(json);
    if (!*out || !cJSON_IsObject(*out)) {
        cJSON_Delete(*out);
        *out = NULL;
        return sim_fail(err, SIM_EINPUT, "%s: value '%.60s' is not a JSON object", flag, json);
    }
    /* a key given twice: the engine's parser keeps one of them, silently */
    sim_status st = sim_jsonf_unique_keys(*out, flag, err);
    if (st) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return st;
}

/* A string field that is present but not a string: refused, naming it. */
static sim_status string_type(const cJSON *o, const char *flag, const char *key, sim_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v && !cJSON_IsString(v) && !cJSON_IsNull(v))
        return sim_fail(err, SIM_EINPUT, "%s: field '%s' is not a string", flag, key);
    return SIM_OK;
}

static const char *string_field(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The method's name as the acceptance data spells it: lower case, deepseek_mtp and
 * qwen3_next_mtp as mtp, draft_model and Draft_Target and STANDALONE as draft. */
static void set_name(sim_spec_req *r, const char *m)
{
    size_t i = 0;
    for (; m[i] && i + 1 < sizeof r->method_name; i++)
        r->method_name[i] = (char)(m[i] >= 'A' && m[i] <= 'Z' ? m[i] - 'A' + 'a' : m[i]);
    r->method_name[i] = '\0';
    if (r->method == SIM_SPEC_MTP)
        snprintf(r->method_name, sizeof r->method_name, "mtp");
    else if (r->method == SIM_SPEC_DRAFT)
        snprintf(r->method_name, sizeof r->method_name, "draft");
}

static void copy_model(sim_spec_req *r, const char *s)
{
    if (s)
        snprintf(r->draft_model, sizeof r->draft_model, "%s", s);
}

/* vLLM V0's disable_by_batch_size (vllm/spec_decode/spec_decode_worker.py
 * _should_disable_all_speculation @a4aeba17: off when running_queue_size >= the value). */
static void adapt_off_at(sim_spec_adapt *a, int64_t batch, const char *what)
{
    a->n = 1;
    a->batch_min[0] = batch;
    a->depth[0] = 0;
    snprintf(a->rule, sizeof a->rule, "%s", what);
}

/* vLLM V1's num_speculative_tokens_per_batch_size: [[bs_lo, bs_hi, K], ...] from 1, sorted,
 * non-overlapping; K capped at num_speculative_tokens; a gap and the batches past the last
 * range take the K before (vllm/v1/spec_decode/dynamic/utils.py
 * build_dynamic_sd_schedule_lookup @14b450ca; the scheduler looks K up by the batch it
 * scheduled, vllm/v1/core/sched/scheduler.py). */
static sim_status vllm_schedule(const cJSON *t, const char *flag, int k, sim_spec_adapt *a,
                                sim_err *err)
{
    const char *key = "num_speculative_tokens_per_batch_size";
    if (!cJSON_IsArray(t) || cJSON_GetArraySize(t) < 1 ||
        cJSON_GetArraySize(t) > SIM_SPEC_ADAPT_MAX)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field '%s' must be a list of 1..%d [bs_lo, bs_hi, K] entries", flag,
                        key, SIM_SPEC_ADAPT_MAX);
    int64_t prev_hi = 0;
    for (const cJSON *e = t->child; e; e = e->next) {
        double v[3];
        bool ok = cJSON_IsArray(e) && cJSON_GetArraySize(e) == 3;
        for (int i = 0; ok && i < 3; i++) {
            const cJSON *x = cJSON_GetArrayItem(e, i);
            ok = cJSON_IsNumber(x) && x->valuedouble == floor(x->valuedouble) &&
                 x->valuedouble >= (i < 2 ? 1 : 0) && x->valuedouble <= 1e9;
            v[i] = ok ? x->valuedouble : 0;
        }
        if (!ok || v[0] > v[1] || v[0] <= (double)prev_hi || (prev_hi == 0 && v[0] != 1))
            return sim_fail(err, SIM_EINPUT,
                            "%s: field '%s' entry %d: expected [bs_lo, bs_hi, K] with integers, "
                            "bs_lo <= bs_hi, sorted, non-overlapping, the first from 1",
                            flag, key, a->n);
        a->batch_min[a->n] = (int64_t)v[0];
        a->depth[a->n] = v[2] < k ? (int)v[2] : k;
        a->n++;
        prev_hi = (int64_t)v[1];
    }
    snprintf(a->rule, sizeof a->rule, "vLLM %s", key);
    return SIM_OK;
}

sim_status sim_spec_parse_vllm(const char *json, bool v0, sim_spec_req *r, sim_err *err)
{
    static const char *const flag = "--speculative-config";
    static const char *const known[] = {"method",
                                        "model",
                                        "num_speculative_tokens",
                                        "draft_tensor_parallel_size",
                                        "prompt_lookup_max",
                                        "prompt_lookup_min",
                                        "disable_by_batch_size",
                                        "num_speculative_tokens_per_batch_size",
                                        "max_model_len",
                                        "quantization",
                                        "disable_logprobs",
                                        "disable_log_stats",
                                        NULL};
    memset(r, 0, sizeof *r);
    cJSON *o;
    sim_status st = parse_object(json, flag, &o, err);
    if (st)
        return st;
    st = known_keys(o, flag, known, err);
    if (!st)
        st = string_type(o, flag, "method", err);
    if (!st)
        st = string_type(o, flag, "model", err);
    const char *m = string_field(o, "method");
    if (!st && !m && string_field(o, "model"))
        m = "draft_model"; /* vLLM: a model without a method is a draft model (or its config's) */
    char names[200];
    list_methods(vllm_methods, names, sizeof names);
    if (!st && (!m || !find_method(vllm_methods, m, &r->method)))
        st = sim_fail(err, SIM_EINPUT, "%s: field 'method' is '%s', expected one of %s", flag,
                      m ? m : "(missing)", names);
    if (!st)
        set_name(r, m);
    int64_t k = 0, tp = 0, disable = 0;
    if (!st)
        st = int_field(o, flag, "num_speculative_tokens", 1, SIM_SPEC_MAX_DEPTH, &k, err);
    if (!st)
        st = int_field(o, flag, "draft_tensor_parallel_size", 1, 1024, &tp, err);
    if (!st)
        st = int_field(o, flag, "disable_by_batch_size", 2, 1 << 20, &disable, err);
    if (!st && k == 0 && r->method != SIM_SPEC_MTP)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'num_speculative_tokens' is missing, method %s needs it", flag,
                      m);
    if (!st && r->method == SIM_SPEC_DRAFT && !string_field(o, "model"))
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'model' is missing, method draft_model needs the draft's "
                      "config.json or name",
                      flag);
    if (!st && tp > 1)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'draft_tensor_parallel_size' is %lld; infersim runs the draft at "
                      "the target's --tp (1 or the target's is all it models)",
                      flag, (long long)tp);
    if (!st && disable > 0 && !v0)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'disable_by_batch_size' is read only by vLLM V0's spec-decode "
                      "worker (--engine vllm-v0); V1 switches by "
                      "num_speculative_tokens_per_batch_size",
                      flag);
    if (!st) {
        r->tree = k > 0 ? sim_spec_chain((int)k) : (sim_spec_tree){0}; /* vLLM V1: chains */
        copy_model(r, r->method == SIM_SPEC_DRAFT ? string_field(o, "model") : NULL);
        if (disable > 0) {
            char what[96];
            snprintf(what, sizeof what, "vLLM V0 disable_by_batch_size %lld", (long long)disable);
            adapt_off_at(&r->adapt, disable, what);
        }
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "num_speculative_tokens_per_batch_size");
        if (t && !cJSON_IsNull(t))
            st = v0 ? sim_fail(err, SIM_EINPUT,
                               "%s: field 'num_speculative_tokens_per_batch_size' is vLLM V1's "
                               "(--engine vllm), not V0's",
                               flag)
                    : vllm_schedule(t, flag, (int)(k > 0 ? k : SIM_SPEC_MAX_DEPTH), &r->adapt,
                                    err);
    }
    cJSON_Delete(o);
    return st;
}

sim_status sim_spec_parse_sglang(const char *algo, int64_t steps, int64_t topk, int64_t tokens,
                                 sim_spec_req *r, sim_err *err)
{
    memset(r, 0, sizeof *r);
    char names[200];
    list_methods(sglang_methods, names, sizeof names);
    if (!find_method(sglang_methods, algo, &r->method))
        return sim_fail(err, SIM_EINPUT,
                        "--speculative-algorithm: value '%s', expected one of %s", algo, names);
    set_name(r, strcmp(algo, "NEXTN") == 0 ? "mtp" : algo);
    /* the three sized flags are given together or not at all; SGLang's automatic choice for a
     * model it does not list is (steps 3, topk 1, draft tokens 4): server_args.py
     * auto_choose_speculative_params */
    if (steps == 0 && topk == 0 && tokens == 0) {
        steps = 3, topk = 1, tokens = 4;
    } else if (steps == 0 || topk == 0 || tokens == 0) {
        return sim_fail(err, SIM_EINPUT,
                        "--speculative-num-steps, --speculative-eagle-topk, "
                        "--speculative-num-draft-tokens: give all three or none (SGLang's "
                        "rule)");
    }
    if (steps > SIM_SPEC_MAX_DEPTH)
        return sim_fail(err, SIM_EINPUT, "--speculative-num-steps: value %lld, expected 1..%d",
                        (long long)steps, SIM_SPEC_MAX_DEPTH);
    if (topk == 1)
        tokens = steps + 1; /* SGLang rewrites it (with a warning) */
    /* EAGLE-2's reranking keeps the best tokens - 1 of the candidates: topk from the first step,
     * topk^2 from each later one (SGLang's organize_draft_results takes the top tokens - 1) */
    int64_t candidates = topk + (steps - 1) * topk * topk;
    if (tokens - 1 > candidates)
        return sim_fail(err, SIM_EINPUT,
                        "--speculative-num-draft-tokens: value %lld, but steps %lld and topk %lld "
                        "propose only %lld candidates (at most %lld)",
                        (long long)tokens, (long long)steps, (long long)topk,
                        (long long)candidates, (long long)candidates + 1);
    r->tree.depth = (int)steps;
    for (int j = 0; j < steps; j++)
        r->tree.width[j] = j == 0 ? 1 : (int)topk; /* the first forward drafts from one token */
    r->tree.tokens = (int)tokens;
    return SIM_OK;
}

/* A static tree from TensorRT-LLM's medusa_choices / eagle_choices: each entry the path of one
 * node from the root (child indices per level), so the depth is the longest path, the tree
 * tokens are the paths plus the root, and draft forward j runs over the nodes at depth j (the
 * root, then each level's nodes but the deepest's): tensorrt_llm/llmapi/llm_args.py
 * MedusaDecodingConfig / EagleDecodingConfig. */
static sim_status tree_from_choices(const cJSON *c, const char *flag, const char *key, int k,
                                    sim_spec_tree *t, sim_err *err)
{
    int n = cJSON_IsArray(c) ? cJSON_GetArraySize(c) : -1;
    if (n < 1 || n > SIM_SPEC_MAX_TOKENS - 1)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field '%s' must be a list of 1..%d paths (lists of child indices)",
                        flag, key, SIM_SPEC_MAX_TOKENS - 1);
    int at_depth[SIM_SPEC_MAX_DEPTH + 1] = {0}, depth = 0;
    for (const cJSON *p = c->child; p; p = p->next) {
        int len = cJSON_IsArray(p) ? cJSON_GetArraySize(p) : -1;
        bool ok = len >= 1 && len <= SIM_SPEC_MAX_DEPTH;
        for (const cJSON *x = ok ? p->child : NULL; x && ok; x = x->next)
            ok = cJSON_IsNumber(x) && x->valuedouble >= 0 && x->valuedouble < 1024 &&
                 x->valuedouble == floor(x->valuedouble);
        if (!ok)
            return sim_fail(err, SIM_EINPUT,
                            "%s: field '%s' holds a path that is not a list of 1..%d child "
                            "indices",
                            flag, key, SIM_SPEC_MAX_DEPTH);
        at_depth[len]++;
        if (len > depth)
            depth = len;
    }
    if (k > 0 && depth > k)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field '%s' is %d deep, past max_draft_len %d", flag, key, depth, k);
    *t = (sim_spec_tree){.depth = depth, .tokens = n + 1};
    t->width[0] = 1;
    for (int j = 1; j < depth; j++)
        t->width[j] = at_depth[j] > 0 ? at_depth[j] : 1;
    return SIM_OK;
}

/* TensorRT-LLM's max_concurrency (DecodingBaseConfig, tensorrt_llm/llmapi/llm_args.py): on while
 * the active requests are <= the value (tensorrt_llm/_torch/speculative/drafter.py
 * should_use_spec_decode @83ab45a5). */
sim_status sim_spec_parse_trtllm(const char *json, sim_spec_req *r, sim_err *err)
{
    static const char *const flag = "--speculative-config";
    static const char *const known[] = {"decoding_type",          "max_draft_len",
                                        "speculative_model_dir",  "speculative_model",
                                        "num_nextn_predict_layers", "max_concurrency",
                                        "eagle3_one_model",       "max_matching_ngram_size",
                                        "medusa_choices",         "eagle_choices",
                                        "num_medusa_heads",       NULL};
    memset(r, 0, sizeof *r);
    cJSON *o;
    sim_status st = parse_object(json, flag, &o, err);
    if (st)
        return st;
    st = known_keys(o, flag, known, err);
    if (!st)
        st = string_type(o, flag, "decoding_type", err);
    if (!st)
        st = string_type(o, flag, "speculative_model_dir", err);
    const char *m = string_field(o, "decoding_type");
    char names[200];
    list_methods(trtllm_methods, names, sizeof names);
    if (!st && (!m || !find_method(trtllm_methods, m, &r->method)))
        st = sim_fail(err, SIM_EINPUT, "%s: field 'decoding_type' is '%s', expected one of %s",
                      flag, m ? m : "(missing)", names);
    if (!st)
        set_name(r, m);
    int64_t k = 0, nextn = 0, conc = 0;
    if (!st)
        st = int_field(o, flag, "max_draft_len", 1, SIM_SPEC_MAX_TOKENS - 1, &k, err);
    if (!st)
        st = int_field(o, flag, "num_nextn_predict_layers", 1, SIM_SPEC_MAX_DEPTH, &nextn, err);
    if (!st)
        st = int_field(o, flag, "max_concurrency", 1, 1 << 20, &conc, err);
    if (!st && r->method == SIM_SPEC_MTP && k == 0)
        k = nextn; /* MTPDecodingConfig: max_draft_len = num_nextn_predict_layers */
    if (!st && k == 0 &&
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "medusa_choices")) &&
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "eagle_choices")))
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'max_draft_len' is missing, decoding_type %s needs it", flag, m);
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(o, "medusa_choices");
    const char *ckey = "medusa_choices";
    if (!choices || cJSON_IsNull(choices)) {
        choices = cJSON_GetObjectItemCaseSensitive(o, "eagle_choices");
        ckey = "eagle_choices";
    }
    bool tree = choices && !cJSON_IsNull(choices);
    if (!st && !tree && k > SIM_SPEC_MAX_DEPTH)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'max_draft_len' is %lld, expected 1..%d for a chain (a tree's "
                      "comes with medusa_choices or eagle_choices)",
                      flag, (long long)k, SIM_SPEC_MAX_DEPTH);
    if (!st) {
        r->tree = sim_spec_chain(k > 0 ? (int)k : 1);
        if (tree)
            st = tree_from_choices(choices, flag, ckey, (int)k, &r->tree, err);
        const char *d = string_field(o, "speculative_model_dir");
        copy_model(r, r->method == SIM_SPEC_DRAFT ? (d ? d : string_field(o, "speculative_model"))
                                                  : NULL);
        if (r->method == SIM_SPEC_DRAFT && !r->draft_model[0])
            st = sim_fail(err, SIM_EINPUT,
                          "%s: field 'speculative_model_dir' is missing, decoding_type "
                          "Draft_Target needs the draft's config.json or name",
                          flag);
        if (conc > 0) {
            char what[96];
            snprintf(what, sizeof what, "TensorRT-LLM max_concurrency %lld", (long long)conc);
            adapt_off_at(&r->adapt, conc + 1, what);
        }
    }
    cJSON_Delete(o);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Published acceptance (tools/data/spec_acceptance.csv). */

enum { ACC_METHOD, ACC_MODEL, ACC_DATASET, ACC_DEPTH, ACC_TOPK, ACC_TOKENS, ACC_TAU, ACC_RATES,
       ACC_SOURCE, ACC_COLS };

/* Splits a CSV line in place (quoted fields may hold commas; no escaped quotes inside). */
static int split_csv(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        bool quoted = *p == '"';
        if (quoted)
            p++;
        f[n++] = p;
        while (*p && (quoted ? *p != '"' : *p != ','))
            p++;
        if (quoted && *p == '"')
            *p++ = '\0';
        if (*p != ',') {
            *p = '\0';
            break;
        }
        *p++ = '\0';
    }
    return n;
}

/* A whole number in 1..SIM_SPEC_MAX_TOKENS, all of s; 0 otherwise. */
static int whole(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return errno || end == s || *end || v < 1 || v > SIM_SPEC_MAX_TOKENS ? 0 : (int)v;
}

/* A finite number, all of s; NAN otherwise. */
static double number(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    return errno || end == s || *end || !isfinite(v) ? NAN : v;
}

sim_status sim_spec_acceptance_lookup(const char *path, const sim_spec_req *r,
                                      const sim_model *target, const char *dataset,
                                      sim_spec_accept *acc, sim_err *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sim_fail(err, SIM_EINPUT, "--spec-acceptance-data: %s: cannot open", path);
    char line[2048];
    bool exact = false, chain = false;
    double tau = 0.0;
    int depth = 0, n_rates = 0;
    double rates[SIM_SPEC_MAX_DEPTH];
    int64_t lineno = 0;
    sim_status st = SIM_OK;
    bool req_chain = r->tree.tokens == r->tree.depth + 1;
    for (int j = 0; j < r->tree.depth; j++)
        req_chain = req_chain && r->tree.width[j] == 1;
    while (!st && fgets(line, sizeof line, fp)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        char *f[ACC_COLS + 1];
        if (lineno == 1 || !line[0] || line[0] == '#')
            continue;
        if (split_csv(line, f, ACC_COLS + 1) != ACC_COLS) {
            st = sim_fail(err, SIM_EINPUT, "%s:%lld: expected %d fields", path, (long long)lineno,
                          ACC_COLS);
            break;
        }
        if (strcmp(f[ACC_METHOD], r->method_name) != 0 || strcmp(f[ACC_MODEL], target->name) != 0 ||
            strcmp(f[ACC_DATASET], dataset) != 0)
            continue;
        int d = whole(f[ACC_DEPTH]), k = whole(f[ACC_TOPK]), t = whole(f[ACC_TOKENS]);
        double v = number(f[ACC_TAU]);
        if (d < 1 || d > SIM_SPEC_MAX_DEPTH || k < 1 || t < d + 1 || !(v >= 1.0 && v <= d + 1.0)) {
            st = sim_fail(err, SIM_EINPUT,
                          "%s:%lld: depth %s, topk %s, tokens %s, tau %s: expected depth 1..%d, "
                          "topk >= 1, tokens >= depth + 1, tau in [1, depth + 1]",
                          path, (long long)lineno, f[ACC_DEPTH], f[ACC_TOPK], f[ACC_TOKENS],
                          f[ACC_TAU], SIM_SPEC_MAX_DEPTH);
            break;
        }
        bool same = d == r->tree.depth && t == r->tree.tokens &&
                    k == (r->tree.depth > 1 ? r->tree.width[1] : 1);
        /* a chain row stands for another chain depth, never for a tree (a tree accepts more) */
        if (exact || (!same && (k != 1 || chain || !req_chain)))
            continue;
        exact = same;
        chain = k == 1;
        tau = v;
        depth = d;
        n_rates = 0;
        for (char *p = f[ACC_RATES]; *p && n_rates < SIM_SPEC_MAX_DEPTH;) {
            char *end;
            double rate = strtod(p, &end);
            if (end == p || (*end && *end != ';') || !(rate >= 0.0 && rate <= 1.0)) {
                st = sim_fail(err, SIM_EINPUT,
                              "%s:%lld: field 'rates' is '%s', expected probabilities in [0, 1] "
                              "separated by ';'",
                              path, (long long)lineno, f[ACC_RATES]);
                break;
            }
            rates[n_rates++] = rate;
            p = *end == ';' ? end + 1 : end;
        }
    }
    fclose(fp);
    if (st)
        return st;
    if (!exact && !chain)
        return sim_fail(err, SIM_EINPUT,
                        "--spec-acceptance-data: %s has no row for method %s, model %s, dataset "
                        "%s (a row of this tree or a chain)",
                        path, r->method_name, target->name, dataset);
    memset(acc, 0, sizeof *acc);
    acc->alpha = -1.0;
    acc->tau = -1.0;
    if (exact && n_rates == 0) {
        acc->tau = tau;
        return SIM_OK;
    }
    if (n_rates > 0 && n_rates >= r->tree.depth) { /* the chain's own per-position rates */
        acc->n_rates = r->tree.depth;
        memcpy(acc->rates, rates, sizeof(double) * (size_t)r->tree.depth);
        return SIM_OK;
    }
    /* the constant per-depth rate of the chain's tau, carried to this depth */
    acc->alpha = sim_spec_alpha_for_tau(tau, depth);
    return SIM_OK;
}

sim_status sim_spec_engine_async(const sim_spec *s, bool sglang, bool async_asked, bool *async_on,
                                 sim_err *err)
{
    if (!sim_spec_active(s))
        return SIM_OK;
    bool eagle_kind = s->method == SIM_SPEC_EAGLE || s->method == SIM_SPEC_MTP;
    if (sglang) {
        *async_on = false;
        return SIM_OK;
    }
    if (!async_asked) {
        *async_on = false;
        return SIM_OK;
    }
    if (!eagle_kind)
        return sim_fail(err, SIM_EINPUT,
                        "--async-scheduling: vLLM runs it with EAGLE and MTP speculation only, "
                        "not %s",
                        sim_spec_method_name(s->method));
    return SIM_OK;
}
