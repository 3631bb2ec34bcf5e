/* engprof.c - engine profile loader. */
#include "engprof.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "jsonf.h"

static const char *const policy_names[] = {
    [SIM_POLICY_VLLM] = "vllm",
    [SIM_POLICY_SGLANG] = "sglang",
    [SIM_POLICY_NO_EVICT] = "guaranteed_no_evict",
    [SIM_POLICY_MAX_UTIL] = "max_utilization",
    [SIM_POLICY_STATIC] = "static",
};
#define N_POLICIES (sizeof policy_names / sizeof policy_names[0])

const char *sim_engprof_policy_name(sim_sched_policy p) { return policy_names[p]; }

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
};

/* Every field needs a string in "sources" saying where its value comes from. */
static sim_status need_source(const cJSON *root, const char *path, const char *field, sim_err *err)
{
    const cJSON *src =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "sources"), field);
    if (!cJSON_IsString(src) || !src->valuestring[0])
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'sources.%s' is missing, expected a string saying where the "
                        "default comes from (engine docs, source file, release notes)",
                        path, field);
    return SIM_OK;
}

static sim_status load_enums(const cJSON *root, const char *path, sim_engprof *p, sim_err *err)
{
    const char *rule = NULL, *policy = NULL, *version = NULL;
    sim_status st = sim_jsonf_str_opt(root, path, "memory.rule", &rule, err);
    if (!st && (!rule || (strcmp(rule, "total") != 0 && strcmp(rule, "free") != 0)))
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'memory.rule' is %s, expected \"total\" (a fraction of all HBM) "
                      "or \"free\" (of what weights and activations leave)",
                      path, rule ? rule : "missing");
    if (!st)
        p->mem_rule = strcmp(rule, "free") == 0 ? SIM_MEM_OF_FREE : SIM_MEM_OF_TOTAL;
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
        st = need_source(root, path, *f, err);
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
            st = need_source(root, path, fields[i], err);
        if (st)
            return st;
    }
    return SIM_OK;
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
    return st ? st : need_source(root, path, "quantization.act_quant_kernels", err);
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
    return need_source(root, path, "fusions", err);
}

sim_status sim_engprof_load(const char *path, sim_engprof *p, sim_err *err)
{
    memset(p, 0, sizeof *p);
    cJSON *root;
    sim_status st = sim_jsonf_load(path, &root, err);
    if (st)
        return st;
    for (size_t i = 0; !st && i < sizeof prof_fields / sizeof prof_fields[0]; i++) {
        const prof_field *f = &prof_fields[i];
        void *dst = (char *)p + f->offset;
        st = f->is_int ? sim_jsonf_int(root, path, f->json, (int64_t)f->min, (int64_t)f->max,
                                       (int64_t *)dst, err)
                       : sim_jsonf_num(root, path, f->json, f->min, f->max, (double *)dst, err);
        if (!st)
            st = need_source(root, path, f->json, err);
    }
    for (size_t i = 0; !st && i < sizeof prof_flags / sizeof prof_flags[0]; i++) {
        const cJSON *b = sim_jsonf_find(root, prof_flags[i].json);
        if (!cJSON_IsBool(b))
            st = sim_fail(err, SIM_EINPUT, "%s: field '%s' is %s, expected true or false", path,
                          prof_flags[i].json, b ? "not a boolean" : "missing");
        else
            *(bool *)((char *)p + prof_flags[i].offset) = cJSON_IsTrue(b);
        if (!st)
            st = need_source(root, path, prof_flags[i].json, err);
    }
    if (!st)
        st = load_enums(root, path, p, err);
    if (!st)
        st = load_fusions(root, path, p, err);
    if (!st)
        st = load_attention(root, path, p, err);
    if (!st)
        st = load_quantization(root, path, p, err);
    if (!st && p->ratio_min > p->ratio_init)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'scheduler.new_token_ratio_min' is %g, expected at most "
                      "new_token_ratio_init %g",
                      path, p->ratio_min, p->ratio_init);
    if (!st) {
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
