/* engprof.c - engine profile loader. */
#include "engprof.h"
#include "engprof_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "frontend.h"
#include "jsonf.h"

static const char *const policy_names[] = {
    [SIM_POLICY_VLLM] = "vllm",
    [SIM_POLICY_SGLANG] = "sglang",
    [SIM_POLICY_NO_EVICT] = "guaranteed_no_evict",
    [SIM_POLICY_MAX_UTIL] = "max_utilization",
    [SIM_POLICY_STATIC] = "static",
};
#define N_POLICIES (sizeof policy_names / sizeof policy_names[0])


bool sim_engprof_policy_parse(const char *s, sim_sched_policy *out)
{
    for (size_t i = 0; i < N_POLICIES; i++)
        if (strcasecmp(s, policy_names[i]) == 0) {
            *out = (sim_sched_policy)i;
            return true;
        }
    return false;
}

/* Numeric fields: JSON name, range, destination (double or int64_t). One table drives parsing
 * and the check that each field has a source. */
typedef struct prof_field {
    const char *json;
    double min, max;
    bool is_int;
    size_t offset;
} prof_field;

#define PF(json, min, max, is_int, member)                                                         \
    {                                                                                              \
        json, min, max, is_int, offsetof(sim_engprof, member)                                      \
    }
static const prof_field prof_fields[] = {
    PF("memory.fraction", 0.01, 1.0, false, mem_fraction),
    PF("block_size", 1, 65536, true, block_size),
    PF("scheduler.max_num_seqs", 1, 1 << 20, true, max_num_seqs),
    PF("scheduler.max_num_batched_tokens", 1, 1 << 26, true, max_num_batched_tokens),
    PF("scheduler.new_token_ratio_init", 0.0, 1.0, false, ratio_init),
    PF("scheduler.new_token_ratio_min", 0.0, 1.0, false, ratio_min),
    PF("scheduler.new_token_ratio_decay", 0.0, 1.0, false, ratio_decay),
    PF("host.iteration_overhead_us", 0.0, 1e7, false, iteration_overhead_us),
    PF("host.request_overhead_us", 0.0, 1e7, false, request_overhead_us),
    PF("host.layer_overhead_us", 0.0, 1e6, false, layer_overhead_us),
    PF("cuda_graphs.max_batch_size", 0, 1 << 20, true, cuda_graph_max_bs),
    PF("limits.max_model_len", 0, 1 << 26, true, max_model_len),
    PF("limits.max_input_len", 0, 1 << 26, true, max_input_len),
    PF("frontend.processes", 1, SIM_FRONTEND_MAX_PROCESSES, true, fe_processes),
    PF("frontend.request_us", 0.0, 1e7, false, fe_request_us),
    PF("frontend.input_token_us", 0.0, 1e7, false, fe_input_token_us),
    PF("frontend.output_token_us", 0.0, 1e7, false, fe_output_token_us),
    PF("frontend.chunk_us", 0.0, 1e7, false, fe_chunk_us),
    PF("frontend.stream_interval", 1, 1 << 20, true, fe_stream_interval),
};
#undef PF

typedef struct prof_flag {
    const char *json;
    size_t offset;
} prof_flag;

static const prof_flag prof_flags[] = {
    {"scheduler.chunked_prefill", offsetof(sim_engprof, chunked_prefill)},
    {"host.async_scheduling", offsetof(sim_engprof, async_scheduling)},
    {"cuda_graphs.enabled", offsetof(sim_engprof, cuda_graphs)},
    {"prefix_caching", offsetof(sim_engprof, prefix_caching)},
    {"collectives.fuse_allreduce_norm", offsetof(sim_engprof, fuse_allreduce_norm)},
    {"frontend.first_token_alone", offsetof(sim_engprof, fe_first_token_alone)},
};

static sim_status load_enums(const cJSON *root, const char *path, sim_engprof *p, sim_err *err)
{
    const char *rule = NULL, *policy = NULL, *version = NULL;
    sim_status st = sim_jsonf_str_opt(root, path, "memory.rule", &rule, err);
    if (!st && (!rule || (strcmp(rule, "total") != 0 && strcmp(rule, "free") != 0 &&
                          strcmp(rule, "static") != 0)))
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'memory.rule' is %s, expected \"total\" (a fraction of all HBM), "
                      "\"free\" (of what weights and activations leave) or \"static\" (of all "
                      "HBM for weights and the KV pool, activations outside)",
                      path, rule ? rule : "missing");
    if (!st)
        p->mem_rule = strcmp(rule, "free") == 0     ? SIM_MEM_OF_FREE
                      : strcmp(rule, "static") == 0 ? SIM_MEM_STATIC
                                                    : SIM_MEM_OF_TOTAL;
    if (!st)
        st = sim_jsonf_str_opt(root, path, "scheduler.policy", &policy, err);
    if (!st && (!policy || !sim_engprof_policy_parse(policy, &p->policy)))
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'scheduler.policy' is %s, expected vllm, sglang, "
                      "guaranteed_no_evict, max_utilization or static",
                      path, policy ? policy : "missing");
    const char *order = NULL;
    if (!st)
        st = sim_jsonf_str_opt(root, path, "scheduler.order", &order, err);
    if (!st && (!order || (strcmp(order, "fcfs") != 0 && strcmp(order, "lpm") != 0)))
        st = sim_fail(err, SIM_EINPUT, "%s: field 'scheduler.order' is %s, expected fcfs or lpm",
                      path, order ? order : "missing");
    if (!st)
        p->lpm = strcmp(order, "lpm") == 0;
    if (!st)
        st = sim_jsonf_str_opt(root, path, "version", &version, err);
    if (!st && !version)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'version' is missing, expected the engine release the defaults "
                      "come from",
                      path);
    if (!st && strlen(version) >= sizeof p->version)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'version' is %zu characters, expected at most %zu (the release; "
                      "details go in 'sources')",
                      path, strlen(version), sizeof p->version - 1);
    if (!st)
        snprintf(p->version, sizeof p->version, "%s", version);
    const char *ar = NULL;
    if (!st)
        st = sim_jsonf_str_opt(root, path, "collectives.allreduce", &ar, err);
    if (!st && (!ar || !sim_coll_algo_parse(ar, &p->allreduce)))
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'collectives.allreduce' is %s, expected auto (the engine's custom "
                      "all-reduce where it applies, else NCCL), nccl, ring, tree, oneshot, "
                      "twoshot or nvls",
                      path, ar ? ar : "missing");
    for (const char *const *f =
             (const char *const[]){"memory.rule", "scheduler.policy", "scheduler.order",
                                   "collectives.allreduce", NULL};
         !st && *f; f++)
        st = sim_engprof_need_source(root, path, *f, err);
    return st;
}

/* The optional "attention" object: both kernels, each with its source; absent: split. */
static sim_status load_attention(const cJSON *root, const char *path, sim_engprof *p, sim_err *err)
{
    p->decode_attn = p->decode_attn_quant_kv = SIM_DATTN_SPLIT;
    if (!sim_jsonf_find(root, "attention"))
        return SIM_OK;
    static const char *const fields[] = {"attention.decode", "attention.decode_quant_kv"};
    sim_dattn_kernel *dst[] = {&p->decode_attn, &p->decode_attn_quant_kv};
    for (size_t i = 0; i < 2; i++) {
        const char *v = NULL;
        sim_status st = sim_jsonf_str_opt(root, path, fields[i], &v, err);
        if (!st && (!v || !sim_dattn_parse(v, dst[i])))
            st = sim_fail(err, SIM_EINPUT, "%s: field '%s' is %s, expected %s", path, fields[i],
                          v ? v : "missing", sim_dattn_names());
        if (!st)
            st = sim_engprof_need_source(root, path, fields[i], err);
        if (st)
            return st;
    }
    return SIM_OK;
}

/* The optional moe.kernel with its source; absent: triton. */
static sim_status load_moe(const cJSON *root, const char *path, sim_engprof *p, sim_err *err)
{
    p->moe_kernel = SIM_MOE_TRITON;
    p->has_moe_kernel_sm100 = false;
    p->has_moe_kernel_mixed_input = false;
    static const char *const keys[] = {"moe.kernel", "moe.kernel_sm100_mla_quantized",
                                       "moe.kernel_mixed_input"};
    sim_moe_kernel *out[] = {&p->moe_kernel, &p->moe_kernel_sm100, &p->moe_kernel_mixed_input};
    sim_status st = SIM_OK;
    for (int i = 0; i < 3 && !st; i++) {
        if (!sim_jsonf_find(root, keys[i]))
            continue;
        const char *v = NULL;
        st = sim_jsonf_str_opt(root, path, keys[i], &v, err);
        if (!st && (!v || !sim_moe_kernel_parse(v, out[i])))
            st = sim_fail(err, SIM_EINPUT, "%s: field '%s' is %s, expected %s", path, keys[i],
                          v ? v : "missing", sim_moe_kernel_names());
        if (!st)
            st = sim_engprof_need_source(root, path, keys[i], err);
        if (!st && i == 1)
            p->has_moe_kernel_sm100 = true;
        if (!st && i == 2)
            p->has_moe_kernel_mixed_input = true;
    }
    p->moe_kernel_quantized = p->moe_kernel;
    p->moe_kernel_mixed = p->moe_kernel;
    return st;
}

/* The optional gemm.block_fp8 with its source: the kernel of the dense block-scaled fp8 GEMMs
 * ("triton": one thread block per 128-column weight block, no split-K, as vLLM's
 * w8a8_block_fp8_matmul launches them; "deepgemm": DeepGEMM's fp8 GEMM, whose block_n
 * heuristic fills the SMs); absent: deepgemm's pricing (no thread-block bound: nothing is
 * claimed for an engine whose kernel was not read). */
static sim_status load_block_fp8(const cJSON *root, const char *path, sim_engprof *p,
                                 sim_err *err)
{
    p->block_fp8_triton = false;
    if (!sim_jsonf_find(root, "gemm.block_fp8"))
        return SIM_OK;
    const char *v = NULL;
    sim_status st = sim_jsonf_str_opt(root, path, "gemm.block_fp8", &v, err);
    if (!st && (!v || (strcmp(v, "triton") != 0 && strcmp(v, "deepgemm") != 0)))
        st = sim_fail(err, SIM_EINPUT, "%s: field 'gemm.block_fp8' is %s, expected triton or "
                      "deepgemm", path, v ? v : "missing");
    if (!st)
        p->block_fp8_triton = strcmp(v, "triton") == 0;
    return st ? st : sim_engprof_need_source(root, path, "gemm.block_fp8", err);
}

/* The optional "quantization" object: act_quant_kernels with its source; absent: 0. */
static sim_status load_quantization(const cJSON *root, const char *path, sim_engprof *p,
                                    sim_err *err)
{
    p->act_quant_kernels = 0;
    if (!sim_jsonf_find(root, "quantization"))
        return SIM_OK;
    sim_status st = sim_jsonf_int(root, path, "quantization.act_quant_kernels", 0, 16,
                                  &p->act_quant_kernels, err);
    return st ? st : sim_engprof_need_source(root, path, "quantization.act_quant_kernels", err);
}

/* The optional host.sync_overhead_us with its source; absent: 0 (nothing the CPU prepares for a
 * step waits on the device). */
static sim_status load_sync(const cJSON *root, const char *path, sim_engprof *p, sim_err *err)
{
    p->sync_overhead_us = 0.0;
    if (!sim_jsonf_find(root, "host.sync_overhead_us"))
        return SIM_OK;
    sim_status st =
        sim_jsonf_num(root, path, "host.sync_overhead_us", 0.0, 1e6, &p->sync_overhead_us, err);
    return st ? st : sim_engprof_need_source(root, path, "host.sync_overhead_us", err);
}

/* The optional host.eager_kernel_cpu_us with its source; absent: 0 (an eager step's launches
 * never bound it). */
static sim_status load_eager_cpu(const cJSON *root, const char *path, sim_engprof *p,
                                 sim_err *err)
{
    p->eager_kernel_cpu_us = 0.0;
    if (!sim_jsonf_find(root, "host.eager_kernel_cpu_us"))
        return SIM_OK;
    sim_status st = sim_jsonf_num(root, path, "host.eager_kernel_cpu_us", 0.0, 1e4,
                                  &p->eager_kernel_cpu_us, err);
    return st ? st : sim_engprof_need_source(root, path, "host.eager_kernel_cpu_us", err);
}

/* The optional booleans, each with its source; absent: false. cuda_graphs.piecewise: graphs stop
 * at every attention op (absent: whole-step graphs); fusion.qk_norm_rope: q/k norm and RoPE in one
 * kernel (absent: separate). */
static const prof_flag prof_opt_flags[] = {
    {"cuda_graphs.piecewise", offsetof(sim_engprof, piecewise_graphs)},
    {"fusion.qk_norm_rope", offsetof(sim_engprof, fuse_qk_norm_rope)},
    {"collectives.vllm_stages", offsetof(sim_engprof, vllm_stages)},
};

static sim_status load_opt_flags(const cJSON *root, const char *path, sim_engprof *p,
                                 sim_err *err)
{
    sim_status st = SIM_OK;
    for (size_t i = 0; !st && i < sizeof prof_opt_flags / sizeof prof_opt_flags[0]; i++) {
        bool *dst = (bool *)((char *)p + prof_opt_flags[i].offset);
        const cJSON *b = sim_jsonf_find(root, prof_opt_flags[i].json);
        *dst = false;
        if (!b)
            continue;
        if (!cJSON_IsBool(b))
            return sim_fail(err, SIM_EINPUT,
                            "%s: field '%s' is not a boolean, expected true or false", path,
                            prof_opt_flags[i].json);
        *dst = cJSON_IsTrue(b);
        st = sim_engprof_need_source(root, path, prof_opt_flags[i].json, err);
    }
    return st;
}

static sim_status load_fusions(const cJSON *root, const char *path, sim_engprof *p, sim_err *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "fusions");
    if (!cJSON_IsArray(a))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'fusions' is %s, expected an array of names (may be empty)",
                        path, a ? "not an array" : "missing");
    size_t len = 0;
    for (const cJSON *it = a->child; it; it = it->next) {
        if (!cJSON_IsString(it))
            return sim_fail(err, SIM_EINPUT, "%s: field 'fusions' holds a non-string", path);
        int w = snprintf(p->fusions + len, sizeof p->fusions - len, "%s%s", len ? "," : "",
                         it->valuestring);
        if (w < 0 || (size_t)w >= sizeof p->fusions - len)
            return sim_fail(err, SIM_EINPUT, "%s: field 'fusions' is too long", path);
        len += (size_t)w;
    }
    return sim_engprof_need_source(root, path, "fusions", err);
}

/* ------------------------------------------------------------------------------------------ */
/* Device- and TP-dependent rules */

#define N_FIELDS (sizeof prof_fields / sizeof prof_fields[0])

/* The index of a numeric field by its JSON name, or -1. */
static int field_index(const char *json)
{
    for (size_t i = 0; i < N_FIELDS; i++)
        if (strcmp(prof_fields[i].json, json) == 0)
            return (int)i;
    return -1;
}

static void field_set(sim_engprof *p, int i, double v)
{
    void *dst = (char *)p + prof_fields[i].offset;
    if (prof_fields[i].is_int)
        *(int64_t *)dst = (int64_t)v;
    else
        *(double *)dst = v;
}

/* A rule's optional substring condition (at most 31 characters). */
static sim_status rule_str(const cJSON *when, const char *path, int k, const char *key, char *out,
                           size_t len, sim_err *err)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(when, key);
    if (!s)
        return SIM_OK;
    if (!cJSON_IsString(s) || !s->valuestring[0] || strlen(s->valuestring) >= len)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'rules[%d].when.%s' is %s, expected a device-name substring of "
                        "1 to %zu characters",
                        path, k, key, cJSON_IsString(s) ? s->valuestring : "not a string", len - 1);
    snprintf(out, len, "%s", s->valuestring);
    return SIM_OK;
}

/* A rule's conditions: every key must be one it knows (a misspelt one would always match). */
static sim_status load_when(const cJSON *when, const char *path, int k, sim_engprof_rule *r,
                            sim_err *err)
{
    static const char *const keys[] = {"hbm_gib_min", "hbm_gib_below", "tp_min",
                                       "tp_below",    "name_has",      "name_lacks"};
    if (!cJSON_IsObject(when))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'rules[%d].when' is %s, expected an object of conditions "
                        "(may be empty)",
                        path, k, when ? "not an object" : "missing");
    for (const cJSON *c = when->child; c; c = c->next) {
        size_t i = 0;
        while (i < sizeof keys / sizeof keys[0] && strcmp(c->string, keys[i]) != 0)
            i++;
        if (i == sizeof keys / sizeof keys[0])
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'rules[%d].when.%s' is unknown, expected hbm_gib_min, "
                            "hbm_gib_below, tp_min, tp_below, name_has or name_lacks",
                            path, k, c->string);
    }
    r->hbm_gib_below = INFINITY;
    r->tp_below = INT64_MAX;
    sim_status st =
        sim_jsonf_num_opt(when, path, "hbm_gib_min", 0.0, 1e5, 0.0, &r->hbm_gib_min, err);
    if (!st)
        st = sim_jsonf_num_opt(when, path, "hbm_gib_below", 0.0, 1e5, INFINITY, &r->hbm_gib_below,
                               err);
    if (!st)
        st = sim_jsonf_int_opt(when, path, "tp_min", 1, 1 << 20, 0, &r->tp_min, err);
    if (!st)
        st = sim_jsonf_int_opt(when, path, "tp_below", 2, 1 << 20, INT64_MAX, &r->tp_below, err);
    if (st) { /* jsonf names the key, not the rule it is in */
        size_t n = err ? strlen(err->msg) : 0;
        if (err)
            snprintf(err->msg + n, sizeof err->msg - n, " (in rules[%d].when)", k);
        return st;
    }
    st = rule_str(when, path, k, "name_has", r->name_has, sizeof r->name_has, err);
    if (!st)
        st = rule_str(when, path, k, "name_lacks", r->name_lacks, sizeof r->name_lacks, err);
    return st;
}

/* A rule's "set": numeric fields of the table, each within its range. */
static sim_status load_set(const cJSON *set, const char *path, int k, sim_engprof_rule *r,
                           sim_err *err)
{
    if (!cJSON_IsObject(set) || !set->child)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'rules[%d].set' is %s, expected an object of profile fields "
                        "and values",
                        path, k, set ? "not an object or empty" : "missing");
    for (const cJSON *c = set->child; c; c = c->next) {
        int i = field_index(c->string);
        if (i < 0)
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'rules[%d].set.%s' is not a numeric profile field, "
                            "expected one such as scheduler.max_num_seqs",
                            path, k, c->string);
        if (strncmp(c->string, "scheduler.new_token_ratio", 25) == 0) /* ordered at load */
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'rules[%d].set.%s' cannot be set by a rule, expected a "
                            "field other than the new-token ratios (checked against each other "
                            "once, at load)",
                            path, k, c->string);
        const prof_field *f = &prof_fields[i];
        double v = cJSON_IsNumber(c) ? c->valuedouble : NAN;
        if (!(v >= f->min && v <= f->max) || (f->is_int && v != floor(v)))
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'rules[%d].set.%s' is %s, expected a%s number in [%g, %g]",
                            path, k, c->string, cJSON_IsNumber(c) ? "out of range" : "not a number",
                            f->is_int ? " whole" : "", f->min, f->max);
        if (r->n_sets == SIM_ENGPROF_RULE_SETS)
            return sim_fail(err, SIM_EINPUT, "%s: field 'rules[%d].set' has more than %d fields",
                            path, k, SIM_ENGPROF_RULE_SETS);
        r->field[r->n_sets] = i;
        r->value[r->n_sets++] = v;
    }
    return SIM_OK;
}

static sim_status load_rules(const cJSON *root, const char *path, sim_engprof *p, sim_err *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "rules");
    if (!a)
        return SIM_OK;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > SIM_ENGPROF_MAX_RULES)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'rules' is %s, expected an array of at most %d rules", path,
                        cJSON_IsArray(a) ? "too long" : "not an array", SIM_ENGPROF_MAX_RULES);
    int k = 0;
    for (const cJSON *it = a->child; it; it = it->next, k++) {
        sim_engprof_rule *r = &p->rules[k];
        for (const cJSON *c = cJSON_IsObject(it) ? it->child : NULL; c; c = c->next)
            if (strcmp(c->string, "when") != 0 && strcmp(c->string, "set") != 0 &&
                strcmp(c->string, "source") != 0)
                return sim_fail(err, SIM_EINPUT,
                                "%s: field 'rules[%d].%s' is unknown, expected 'rules[%d].when', "
                                "'rules[%d].set' and 'rules[%d].source'",
                                path, k, c->string, k, k, k);
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(it, "source");
        sim_status st = load_when(cJSON_GetObjectItemCaseSensitive(it, "when"), path, k, r, err);
        if (!st)
            st = load_set(cJSON_GetObjectItemCaseSensitive(it, "set"), path, k, r, err);
        if (!st && (!cJSON_IsString(src) || !src->valuestring[0]))
            st = sim_fail(err, SIM_EINPUT,
                          "%s: field 'rules[%d].source' is missing, expected a string saying "
                          "where the rule comes from (engine source file and version)",
                          path, k);
        if (st)
            return st;
    }
    p->n_rules = k;
    return SIM_OK;
}

static sim_status load_reserve(const cJSON *root, const char *path, sim_engprof *p, sim_err *err)
{
    static const struct {
        const char *json;
        double max;
        size_t offset;
    } parts[] = {
        {"memory.reserve_mib.base", 1e6, offsetof(sim_engprof_reserve, base_mib)},
        {"memory.reserve_mib.per_prefill_token", 1e3,
         offsetof(sim_engprof_reserve, per_prefill_token_mib)},
        {"memory.reserve_mib.min_prefill_tokens", 1e7,
         offsetof(sim_engprof_reserve, min_prefill_tokens)},
        {"memory.reserve_mib.per_graph_batch", 1e3,
         offsetof(sim_engprof_reserve, per_graph_batch_mib)},
        {"memory.reserve_mib.per_gpu", 1e5, offsetof(sim_engprof_reserve, per_gpu_mib)},
        {"memory.reserve_mib.floor", 1e6, offsetof(sim_engprof_reserve, floor_mib)},
        {"memory.reserve_mib.floor_above_hbm_gib", 1e5,
         offsetof(sim_engprof_reserve, floor_above_hbm_gib)},
    };
    if (!sim_jsonf_find(root, "memory.reserve_mib"))
        return SIM_OK;
    sim_status st = sim_engprof_need_source(root, path, "memory.reserve_mib", err);
    for (size_t i = 0; !st && i < sizeof parts / sizeof parts[0]; i++)
        st = sim_jsonf_num(root, path, parts[i].json, 0.0, parts[i].max,
                           (double *)((char *)&p->reserve + parts[i].offset), err);
    p->reserve.on = !st;
    return st;
}

static bool has_ci(const char *hay, const char *needle)
{
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, strlen(needle)) == 0)
            return true;
    return false;
}

static bool rule_matches(const sim_engprof_rule *r, double hbm_gib, const char *name, int64_t tp)
{
    return hbm_gib >= r->hbm_gib_min && hbm_gib < r->hbm_gib_below && tp >= r->tp_min &&
           tp < r->tp_below && (!r->name_has[0] || has_ci(name, r->name_has)) &&
           (!r->name_lacks[0] || !has_ci(name, r->name_lacks));
}

static double hbm_gib(const sim_hw *hw) { return hw->hbm_bytes / 1073741824.0; }

/* A rule's conditions in words: "hbm_gib >= 70, name lacks 'a100'"; "any device" when none. */
static void describe_when(const sim_engprof_rule *r, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int w_ = snprintf(buf + n, len - n, "%s", n ? ", " : "");                                  \
        if (w_ > 0 && (size_t)w_ < len - n)                                                        \
            n += (size_t)w_;                                                                       \
        w_ = snprintf(buf + n, len - n, __VA_ARGS__);                                              \
        if (w_ > 0 && (size_t)w_ < len - n)                                                        \
            n += (size_t)w_;                                                                       \
    } while (0)
    if (r->hbm_gib_min > 0.0)
        PUT("hbm_gib >= %g", r->hbm_gib_min);
    if (isfinite(r->hbm_gib_below))
        PUT("hbm_gib < %g", r->hbm_gib_below);
    if (r->tp_min > 0)
        PUT("tp >= %lld", (long long)r->tp_min);
    if (r->tp_below < INT64_MAX)
        PUT("tp < %lld", (long long)r->tp_below);
    if (r->name_has[0])
        PUT("name has '%s'", r->name_has);
    if (r->name_lacks[0])
        PUT("name lacks '%s'", r->name_lacks);
#undef PUT
    if (!n)
        snprintf(buf, len, "any device");
}

/* Appends "field=value (why)" to p->chosen (cut short, never overrun, when it is full). */
static void chosen_add(sim_engprof *p, const char *field, double v, const char *why)
{
    size_t n = strlen(p->chosen);
    snprintf(p->chosen + n, sizeof p->chosen - n, "%s%s=%g (%s)", n ? "; " : "", field, v, why);
}

/* SM100 (Blackwell datacenter: B200, GB200, B300, GB300) by the device's name, as SGLang's
 * is_sm100_supported() tells it by compute capability 10.x; the workstation Blackwell (SM120)
 * names neither */
static bool sm100_device(const char *name) { return has_ci(name, "B200") || has_ci(name, "B300"); }

void sim_engprof_for_device(sim_engprof *p, const sim_hw *hw, int64_t tp)
{
    bool done[N_FIELDS] = {false};
    p->chosen[0] = '\0';
    const bool sm100 = sm100_device(hw->name);
    p->moe_kernel_quantized =
        p->has_moe_kernel_sm100 && sm100 ? p->moe_kernel_sm100 : p->moe_kernel;
    p->moe_kernel_mixed =
        p->has_moe_kernel_mixed_input && !sm100 ? p->moe_kernel_mixed_input : p->moe_kernel;
    for (int k = 0; k < p->n_rules; k++) {
        const sim_engprof_rule *r = &p->rules[k];
        if (!rule_matches(r, hbm_gib(hw), hw->name, tp))
            continue;
        char why[160];
        describe_when(r, why, sizeof why);
        for (int j = 0; j < r->n_sets; j++) {
            int i = r->field[j];
            if (done[i])
                continue;
            done[i] = true;
            field_set(p, i, r->value[j]);
            chosen_add(p, prof_fields[i].json, r->value[j], why);
        }
    }
}

void sim_engprof_apply_reserve(sim_engprof *p, const sim_hw *hw, int64_t tp, int64_t pp)
{
    if (!p->reserve.on)
        return;
    p->mem_fraction = sim_engprof_reserve_fraction(p, hw, tp, pp);
    chosen_add(p, "memory.fraction", p->mem_fraction, "memory.reserve_mib");
}

double sim_engprof_reserve_fraction(const sim_engprof *p, const sim_hw *hw, int64_t tp, int64_t pp)
{
    const sim_engprof_reserve *r = &p->reserve;
    if (!r->on)
        return p->mem_fraction;
    const double mib = hbm_gib(hw) * 1024.0;
    double reserved =
        r->base_mib +
        r->per_prefill_token_mib * fmax((double)p->max_num_batched_tokens, r->min_prefill_tokens) +
        r->per_graph_batch_mib * (double)p->cuda_graph_max_bs + r->per_gpu_mib * (double)(tp * pp);
    if (hbm_gib(hw) > r->floor_above_hbm_gib)
        reserved = fmax(reserved, r->floor_mib);
    /* SGLang rounds to three decimals; a device smaller than the reserve keeps 1% */
    return fmax(round((mib - reserved) / mib * 1000.0) / 1000.0, 0.01);
}

/* ------------------------------------------------------------------------------------------ */

/* Every field an engine profile may hold (outside "sources"), as the loaders above read them;
 * "name" names the engine for a reader (the file's name is the one used), "fusions" and
 * "rules" are read whole (each rule's own keys checked there). */
static bool prof_known(const char *field, const cJSON *v)
{
    (void)v;
    static const char *const fixed[] = {
        "name", "version", "engine", "versions", "platform", "memory.rule", "scheduler.policy", "scheduler.order",
        "collectives.allreduce", "attention.decode", "attention.decode_quant_kv",
        "quantization.act_quant_kernels", "host.sync_overhead_us", "host.eager_kernel_cpu_us",
        "moe.kernel", "moe.kernel_sm100_mla_quantized", "moe.kernel_mixed_input", "gemm.block_fp8",
        "fusions", "rules",
        "memory.reserve_mib.base", "memory.reserve_mib.per_prefill_token",
        "memory.reserve_mib.min_prefill_tokens", "memory.reserve_mib.per_graph_batch",
        "memory.reserve_mib.per_gpu", "memory.reserve_mib.floor",
        "memory.reserve_mib.floor_above_hbm_gib"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(field, fixed[i]) == 0)
            return true;
    for (size_t i = 0; i < sizeof prof_fields / sizeof prof_fields[0]; i++)
        if (strcmp(field, prof_fields[i].json) == 0)
            return true;
    for (size_t i = 0; i < sizeof prof_flags / sizeof prof_flags[0]; i++)
        if (strcmp(field, prof_flags[i].json) == 0)
            return true;
    for (size_t i = 0; i < sizeof prof_opt_flags / sizeof prof_opt_flags[0]; i++)
        if (strcmp(field, prof_opt_flags[i].json) == 0)
            return true;
    return sim_engprof_kfloor_known(field);
}

sim_status sim_engprof_load(const char *path, sim_engprof *p, sim_err *err)
{
    memset(p, 0, sizeof *p);
    cJSON *root;
    sim_status st = sim_jsonf_load(path, &root, err);
    if (st)
        return st;
    st = sim_jsonf_known_keys(root, path, prof_known,
                              "an engine-profile field (README: \"Engine profiles\")", err);
    for (size_t i = 0; !st && i < sizeof prof_fields / sizeof prof_fields[0]; i++) {
        const prof_field *f = &prof_fields[i];
        void *dst = (char *)p + f->offset;
        st = f->is_int ? sim_jsonf_int(root, path, f->json, (int64_t)f->min, (int64_t)f->max,
                                       (int64_t *)dst, err)
                       : sim_jsonf_num(root, path, f->json, f->min, f->max, (double *)dst, err);
        if (!st)
            st = sim_engprof_need_source(root, path, f->json, err);
    }
    for (size_t i = 0; !st && i < sizeof prof_flags / sizeof prof_flags[0]; i++) {
        const cJSON *b = sim_jsonf_find(root, prof_flags[i].json);
        if (!cJSON_IsBool(b))
            st = sim_fail(err, SIM_EINPUT, "%s: field '%s' is %s, expected true or false", path,
                          prof_flags[i].json, b ? "not a boolean" : "missing");
        else
            *(bool *)((char *)p + prof_flags[i].offset) = cJSON_IsTrue(b);
        if (!st)
            st = sim_engprof_need_source(root, path, prof_flags[i].json, err);
    }
    /* the objects read by loaders of their own, in this order */
    static sim_status (*const loaders[])(const cJSON *, const char *, sim_engprof *, sim_err *) = {
        load_enums,     sim_engprof_load_versions, load_fusions,   load_attention,
        load_quantization, load_moe, load_block_fp8, load_sync,   load_eager_cpu,
        load_opt_flags, load_rules,                load_reserve,   sim_engprof_load_kfloor};
    for (size_t i = 0; !st && i < sizeof loaders / sizeof loaders[0]; i++)
        st = loaders[i](root, path, p, err);
    if (!st && p->ratio_min > p->ratio_init)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'scheduler.new_token_ratio_min' is %g, expected at most "
                      "new_token_ratio_init %g",
                      path, p->ratio_min, p->ratio_init);
    if (!st) {
        p->fe_on = true;
        const char *b = strrchr(path, '/');
        snprintf(p->name, sizeof p->name, "%s", b ? b + 1 : path);
        char *dot = strrchr(p->name, '.');
        if (dot)
            *dot = '\0';
        snprintf(p->path, sizeof p->path, "%s", path);
    }
    cJSON_Delete(root);
    return st;
}
