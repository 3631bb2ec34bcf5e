/* model.c - Hugging Face config.json reader. */
#define _POSIX_C_SOURCE 200809L
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonf.h"
#include "model_internal.h"

static sim_status read_dtype(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    const char *s = NULL;
    const char *field = "torch_dtype";
    sim_status st = sim_jsonf_str_opt(cfg, path, field, &s, err);
    if (!st && !s) {
        field = "dtype";
        st = sim_jsonf_str_opt(cfg, path, field, &s, err);
    }
    if (st || !s)
        return st;
    static const struct {
        const char *hf;
        sim_dtype dt;
    } map[] = {{"bfloat16", SIM_DT_BF16}, {"float16", SIM_DT_FP16}, {"float32", SIM_DT_BF16}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(s, map[i].hf) == 0) {
            m->dtype = map[i].dt;
            m->dtype_known = true;
            return SIM_OK;
        }
    }
    return sim_fail(err, SIM_EINPUT,
                    "%s: field '%s' is \"%s\", expected \"bfloat16\", \"float16\" or \"float32\"",
                    path, field, s);
}

static void stem(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out, len, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot && strcmp(dot, ".json") == 0)
        *dot = '\0';
    /* ".../Llama-3.1-8B/config.json" is better named by its folder */
    if (strcmp(out, "config") == 0 && base != path) {
        const char *start = base - 1;
        while (start > path && start[-1] != '/')
            start--;
        snprintf(out, len, "%.*s", (int)(base - 1 - start), start);
    }
}

/* Gemma 3's published configs leave out what transformers' Gemma3TextConfig defaults:
 * vocab_size 262,208, max_position_embeddings 131,072, tied embeddings. */
static bool is_gemma3(const cJSON *cfg)
{
    const cJSON *t = sim_jsonf_find(cfg, "model_type");
    return cJSON_IsString(t) && strcmp(t->valuestring, "gemma3_text") == 0;
}

static sim_status read_shape(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    const int64_t big = (int64_t)1 << 20;
    sim_status st;
    if (is_gemma3(cfg) &&
        ((st = sim_jsonf_int_opt(cfg, path, "vocab_size", 1, 64 * big, 262208, &m->vocab, err)) ||
         (st = sim_jsonf_int_opt(cfg, path, "max_position_embeddings", 1, 64 * big, 131072,
                                 &m->max_positions, err))))
        return st;
    if ((st = sim_jsonf_int(cfg, path, "hidden_size", 1, big, &m->hidden, err)) ||
        (st = sim_jsonf_int(cfg, path, "intermediate_size", 1, 8 * big, &m->intermediate, err)) ||
        (st = sim_jsonf_int(cfg, path, "num_hidden_layers", 1, 10000, &m->layers, err)) ||
        (st = sim_jsonf_int(cfg, path, "num_attention_heads", 1, 65536, &m->heads, err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "num_key_value_heads", 1, m->heads, m->heads,
                                &m->kv_heads, err)) ||
        (!is_gemma3(cfg) &&
         ((st = sim_jsonf_int(cfg, path, "vocab_size", 1, 64 * big, &m->vocab, err)) ||
          (st = sim_jsonf_int(cfg, path, "max_position_embeddings", 1, 64 * big,
                              &m->max_positions, err)))) ||
        (st = sim_jsonf_bool_opt(cfg, path, "tie_word_embeddings", is_gemma3(cfg),
                                 &m->tied_embeddings, err)))
        return st;
    if (m->heads % m->kv_heads != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'num_key_value_heads' is %lld, expected a divisor of "
                        "num_attention_heads %lld",
                        path, (long long)m->kv_heads, (long long)m->heads);
    if (!sim_jsonf_find(cfg, "head_dim") && m->hidden % m->heads != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'head_dim' is missing and hidden_size %lld is not a multiple of "
                        "num_attention_heads %lld; expected an explicit head_dim",
                        path, (long long)m->hidden, (long long)m->heads);
    return sim_jsonf_int_opt(cfg, path, "head_dim", 1, 65536, m->hidden / m->heads, &m->head_dim,
                             err);
}

static sim_status read_attention_options(const cJSON *cfg, const char *path, sim_model *m,
                                         sim_err *err)
{
    bool use_window = true;
    const char *type = NULL;
    sim_status st;
    if ((st = sim_jsonf_bool_opt(cfg, path, "use_sliding_window", true, &use_window, err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "sliding_window", 1, (int64_t)1 << 32, 0,
                                &m->sliding_window, err)) ||
        (st = sim_jsonf_str_opt(cfg, path, "model_type", &type, err)))
        return st;
    if (!use_window || m->sliding_window >= m->max_positions)
        m->sliding_window = 0;
    bool qwen2 = type && (strcmp(type, "qwen2") == 0 || strcmp(type, "qwen2_5_vl") == 0);
    if ((st = sim_jsonf_int_opt(cfg, path, "num_nextn_predict_layers", 0, 64, 0, &m->mtp_layers,
                                err)))
        return st;
    return sim_jsonf_bool_opt(cfg, path, "attention_bias", qwen2, &m->qkv_bias, err);
}

/* The first of `fields` that the config gives (non-null), or NULL. */
static const char *first_given(const cJSON *cfg, const char *const *fields, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sim_jsonf_find(cfg, fields[i]))
            return fields[i];
    return NULL;
}

/* mlp_only_layers: a list of layer indices whose MLP stays dense (Qwen MoE). Sets dense[i]. */
static sim_status read_mlp_only(const cJSON *cfg, const char *path, int64_t layers, bool *dense,
                                sim_err *err)
{
    const cJSON *a = sim_jsonf_find(cfg, "mlp_only_layers");
    if (!a)
        return SIM_OK;
    if (!cJSON_IsArray(a))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'mlp_only_layers' is not a list, expected a "
                        "list of layer indices",
                        path);
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        /* the range first: a huge number must not reach the integer conversion */
        if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0 && it->valuedouble < (double)layers) ||
            it->valuedouble != floor(it->valuedouble))
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'mlp_only_layers' holds %s, expected layer indices in "
                            "[0, %lld)",
                            path, cJSON_IsNumber(it) ? "a number out of range" : "a non-number",
                            (long long)layers);
        dense[(int64_t)it->valuedouble] = true;
    }
    return SIM_OK;
}

/* Which layers are MoE: DeepSeek's first_k_dense_replace / moe_layer_freq, Qwen's
 * decoder_sparse_step / mlp_only_layers; every layer otherwise (Mixtral, gpt-oss). */
static sim_status read_moe_layers(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    int64_t first_dense = 0, freq = 1, step = 1;
    sim_status st;
    if ((st = sim_jsonf_int_opt(cfg, path, "first_k_dense_replace", 0, m->layers, 0, &first_dense,
                                err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "moe_layer_freq", 1, m->layers, 1, &freq, err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "decoder_sparse_step", 1, m->layers, 1, &step, err)))
        return st;
    bool *dense = calloc((size_t)m->layers, sizeof *dense);
    if (!dense)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    st = read_mlp_only(cfg, path, m->layers, dense, err);
    m->moe_layers = 0;
    for (int64_t i = 0; !st && i < m->layers; i++)
        if (!dense[i] && i >= first_dense && i % freq == 0 && (i + 1) % step == 0)
            m->moe_layers++;
    free(dense);
    return st;
}

/* DeepSeek's node-limited routing (n_group, topk_group; DeepseekV3MoEGate in the model's
 * modeling_deepseek.py, vLLM's and SGLang's grouped top-k): the E experts in n_group groups of
 * E / n_group by id, a token's k experts picked among the topk_group groups it scores best. Both
 * absent, or n_group 1: no limit (route_groups 0). */
static sim_status read_route_groups(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    int64_t ng = 0, kg = 0;
    sim_status st;
    if ((st = sim_jsonf_int_opt(cfg, path, "n_group", 1, m->experts, 1, &ng, err)))
        return st;
    if ((st = sim_jsonf_int_opt(cfg, path, "topk_group", 1, ng, ng, &kg, err)))
        return st;
    if (m->experts % ng != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'n_group' is %lld, expected a divisor of the %lld routed "
                        "experts (equal groups)",
                        path, (long long)ng, (long long)m->experts);
    if (kg * (m->experts / ng) < m->experts_per_tok)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'topk_group' is %lld, expected groups enough for the %lld "
                        "experts a token picks (%lld groups of %lld hold fewer)",
                        path, (long long)kg, (long long)m->experts_per_tok, (long long)kg,
                        (long long)(m->experts / ng));
    if (ng > 1 && kg < ng) {
        m->route_groups = ng;
        m->route_topk_groups = kg;
    }
    return SIM_OK;
}

/* The routed experts, their top-k and width, the shared expert, and which layers are MoE. */
static sim_status read_moe(const cJSON *cfg, const char *path, const char *type, sim_model *m,
                           sim_err *err)
{
    static const char *const count_fields[] = {"num_local_experts", "num_experts",
                                               "n_routed_experts"};
    static const char *const topk_fields[] = {"num_experts_per_tok", "experts_per_token"};
    const char *count = first_given(cfg, count_fields, 3);
    sim_status st;
    if (!count)
        return SIM_OK;
    if ((st = sim_jsonf_int(cfg, path, count, 0, 1 << 16, &m->experts, err)))
        return st;
    const char *topk = first_given(cfg, topk_fields, 2);
    if (m->experts == 0) {
        /* a dense config may say num_experts: 0; a mixture-of-experts one (experts per token,
         * an expert width, or a MoE model_type) with no experts is broken, not dense */
        static const char *const moe_types[] = {"moe", "mixtral", "deepseek_v2", "deepseek_v3",
                                                "gpt_oss"};
        bool moe_type = false;
        for (size_t i = 0; type && i < sizeof moe_types / sizeof moe_types[0]; i++)
            moe_type |= strstr(type, moe_types[i]) != NULL;
        const cJSON *k = topk ? sim_jsonf_find(cfg, topk) : NULL;
        const char *why = moe_type ? "model_type"
                          : k && cJSON_IsNumber(k) && k->valuedouble != 0.0 ? topk
                          : sim_jsonf_find(cfg, "moe_intermediate_size") ? "moe_intermediate_size"
                                                                          : NULL;
        if (why)
            return sim_fail(err, SIM_EINPUT,
                            "%s: field '%s' is 0 in a mixture-of-experts config (its %s says "
                            "so), expected the number of routed experts (1 or more)",
                            path, count, why);
        return SIM_OK; /* num_experts: 0 in a dense config */
    }
    if (!topk)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'num_experts_per_tok' is missing; a mixture-of-experts config "
                        "(%s %lld) needs the experts each token is routed to",
                        path, count, (long long)m->experts);
    if ((st = sim_jsonf_int(cfg, path, topk, 1, m->experts, &m->experts_per_tok, err)))
        return st;
    /* Mixtral and gpt-oss experts are intermediate_size wide; Qwen's and DeepSeek's say so */
    if (strcmp(count, "num_local_experts") == 0)
        m->moe_intermediate = m->intermediate;
    else if (!sim_jsonf_find(cfg, "moe_intermediate_size"))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'moe_intermediate_size' is missing; a mixture-of-experts config "
                        "with %s needs the width of one expert",
                        path, count);
    int64_t n_shared = 0;
    if ((st = sim_jsonf_int_opt(cfg, path, "moe_intermediate_size", 1, (int64_t)1 << 23,
                                m->moe_intermediate, &m->moe_intermediate, err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "n_shared_experts", 0, 1024, 0, &n_shared, err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "shared_expert_intermediate_size", 0, (int64_t)1 << 23,
                                n_shared * m->moe_intermediate, &m->shared_intermediate, err)))
        return st;
    m->shared_expert_gate =
        sim_jsonf_find(cfg, "shared_expert_intermediate_size") && m->shared_intermediate > 0;
    m->moe_bias = type && strcmp(type, "gpt_oss") == 0;
    if ((st = read_route_groups(cfg, path, m, err)))
        return st;
    return read_moe_layers(cfg, path, m, err);
}

/* Multi-head latent attention (DeepSeek-V2/V3): present when kv_lora_rank is given. */
static sim_status read_mla(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    const int64_t big = (int64_t)1 << 16;
    sim_status st;
    if (!sim_jsonf_find(cfg, "kv_lora_rank"))
        return SIM_OK;
    m->mla = true;
    if ((st = sim_jsonf_int(cfg, path, "kv_lora_rank", 1, big, &m->kv_lora_rank, err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "q_lora_rank", 1, big, 0, &m->q_lora_rank, err)) ||
        (st = sim_jsonf_int(cfg, path, "qk_nope_head_dim", 1, big, &m->qk_nope_dim, err)) ||
        (st = sim_jsonf_int(cfg, path, "qk_rope_head_dim", 1, big, &m->qk_rope_dim, err)) ||
        (st = sim_jsonf_int(cfg, path, "v_head_dim", 1, big, &m->v_head_dim, err)))
        return st;
    /* the query/key head dimension, for anything that asks for head_dim */
    m->head_dim = m->qk_nope_dim + m->qk_rope_dim;
    return SIM_OK;
}

/* layer_types (gpt-oss, Gemma 3, Qwen3-Next): how many layers use the sliding window, and
 * (Qwen3-Next only: `linear` true) how many are linear attention. */
static sim_status read_layer_types(const cJSON *cfg, const char *path, bool linear, sim_model *m,
                                   sim_err *err)
{
    const cJSON *a = sim_jsonf_find(cfg, "layer_types");
    m->sliding_layers = m->sliding_window > 0 ? m->layers : 0;
    if (!a)
        return SIM_OK;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != m->layers)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'layer_types' is not a list of %lld entries, expected one "
                        "\"sliding_attention\" or \"full_attention\" per layer",
                        path, (long long)m->layers);
    int64_t sliding = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        const char *s = cJSON_IsString(it) ? it->valuestring : "";
        if (strcmp(s, "sliding_attention") == 0)
            sliding++;
        else if (linear && strcmp(s, "linear_attention") == 0)
            m->linear_layers++;
        else if (strcmp(s, "full_attention") != 0)
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'layer_types' holds \"%s\", a layer kind infersim does "
                            "not price here; expected \"sliding_attention\" or "
                            "\"full_attention\"%s",
                            path, s, linear ? " or \"linear_attention\"" : "");
    }
    m->sliding_layers = m->sliding_window > 0 ? sliding : 0;
    return SIM_OK;
}

/* The families infersim prices (README "Model families"): a config's model_type and each of its
 * architectures must be one of these, and a multimodal wrapper's outer model_type one of the
 * wrappers, whose text_config is read (the vision tower is not priced). Anything else is refused
 * by name rather than approximated as a Llama. */
static const struct {
    const char *model_type, *architecture;
} priced_families[] = {
    {"llama", "LlamaForCausalLM"},          {"mistral", "MistralForCausalLM"},
    {"mixtral", "MixtralForCausalLM"},      {"qwen2", "Qwen2ForCausalLM"},
    {"qwen2_moe", "Qwen2MoeForCausalLM"},   {"qwen3", "Qwen3ForCausalLM"},
    {"qwen3_moe", "Qwen3MoeForCausalLM"},   {"deepseek_v2", "DeepseekV2ForCausalLM"},
    {"deepseek_v3", "DeepseekV3ForCausalLM"}, {"gpt_oss", "GptOssForCausalLM"},
    {"llama4_text", "Llama4ForCausalLM"},   {"gemma3_text", "Gemma3ForCausalLM"},
    {"qwen3_next", "Qwen3NextForCausalLM"}, {"nemotron_h", "NemotronHForCausalLM"},
    {"deepseek_v32", "DeepseekV32ForCausalLM"},
    {"qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration"},
};
static const struct {
    const char *model_type, *architecture;
} priced_wrappers[] = {
    {"llava", "LlavaForConditionalGeneration"},
    {"mistral3", "Mistral3ForConditionalGeneration"},
    {"llama4", "Llama4ForConditionalGeneration"},
    {"gemma3", "Gemma3ForConditionalGeneration"},
};

/* Fields that announce a layer kind or mechanism infersim does not price, unless model_type is
 * the family that reads it (`family`): a config that has one is refused naming it. */
static const struct {
    const char *field, *what, *family;
} unpriced_fields[] = {
    {"hybrid_override_pattern", "Mamba-2 / attention hybrid layers", "nemotron_h"},
    {"layers_block_type", "Mamba / attention hybrid layers (Jamba, Granite 4)", NULL},
    {"ssm_cfg", "state-space (Mamba) layers", NULL},
    {"mamba_d_state", "state-space (Mamba) layers", NULL},
    {"linear_num_value_heads", "linear-attention (Gated DeltaNet) layers", "qwen3_next"},
    {"index_topk", "sparse attention with a lightning indexer (DSA)", "deepseek_v32"},
    {"cross_attention_layers", "cross-attention layers (Llama 3.2 Vision)", NULL},
};

static bool in_table(const char *s, size_t n, const char *(*get)(size_t))
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, get(i)) == 0)
            return true;
    return false;
}
static const char *family_type(size_t i) { return priced_families[i].model_type; }
static const char *family_arch(size_t i) { return priced_families[i].architecture; }
static const char *wrapper_type(size_t i) { return priced_wrappers[i].model_type; }
static const char *wrapper_arch(size_t i) { return priced_wrappers[i].architecture; }
#define N_FAMILIES (sizeof priced_families / sizeof priced_families[0])
#define N_WRAPPERS (sizeof priced_wrappers / sizeof priced_wrappers[0])

/* Refuses, by field and value, a config (root; cfg is the language model inside it, root itself
 * when not wrapped) of a family infersim does not price. Absent model_type / architectures are
 * taken as a plain decoder (hand-written configs). */
static sim_status check_family(const cJSON *root, const cJSON *cfg, const char *path, sim_err *err)
{
    const char *type = NULL;
    sim_status st;
    if (root != cfg) {
        if ((st = sim_jsonf_str_opt(root, path, "model_type", &type, err)))
            return st;
        if (type && !in_table(type, N_WRAPPERS, wrapper_type))
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'model_type' is \"%s\", a multimodal family infersim "
                            "does not price; expected a wrapper of a priced language model "
                            "(README \"Model families\")",
                            path, type);
    }
    if ((st = sim_jsonf_str_opt(cfg, path, "model_type", &type, err)))
        return st;
    if (type && !in_table(type, N_FAMILIES, family_type))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'model_type' is \"%s\", a family infersim does not price; "
                        "expected one of llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, "
                        "qwen3_moe, deepseek_v2, deepseek_v3, gpt_oss, llama4_text, gemma3_text, "
                        "qwen3_next, nemotron_h, deepseek_v32, qwen2_5_vl (README \"Model families\")",
                        path, type);
    const cJSON *archs = sim_jsonf_find(root, "architectures");
    if (archs && !cJSON_IsArray(archs))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'architectures' is not a list, expected a list of class names",
                        path);
    const cJSON *it;
    cJSON_ArrayForEach(it, archs)
    {
        const char *a = cJSON_IsString(it) ? it->valuestring : "(not a string)";
        bool ok = in_table(a, N_FAMILIES, family_arch) ||
                  (root != cfg && in_table(a, N_WRAPPERS, wrapper_arch));
        if (!ok)
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'architectures' holds \"%s\", an architecture infersim "
                            "does not price; expected a priced family's class, e.g. "
                            "LlamaForCausalLM (README \"Model families\")",
                            path, a);
    }
    for (size_t i = 0; i < sizeof unpriced_fields / sizeof unpriced_fields[0]; i++)
        if ((sim_jsonf_find(cfg, unpriced_fields[i].field) ||
             sim_jsonf_find(root, unpriced_fields[i].field)) &&
            !(type && unpriced_fields[i].family && strcmp(type, unpriced_fields[i].family) == 0))
            return sim_fail(err, SIM_EINPUT,
                            "%s: field '%s' is given: %s, which infersim does not price; "
                            "expected a config without it (README \"Model families\")",
                            path, unpriced_fields[i].field, unpriced_fields[i].what);
    return SIM_OK;
}

/* Llama 4 (model_type llama4_text; transformers' Llama4TextConfig and modeling_llama4.py):
 * - MoE layers: moe_layers when given, else every interleave_moe_layer_step-th layer
 *   (range(step - 1, L, step)); their routed experts and the one always-on shared expert are
 *   intermediate_size wide, the dense layers' MLP intermediate_size_mlp wide.
 * - iRoPE: the RoPE layers (no_rope_layers[i] == 1; by default every layer but each
 *   no_rope_layer_interval-th, interval 4) attend within aligned chunks of attention_chunk_size
 *   tokens, the NoPE layers to the whole context.
 * - use_qk_norm: a weightless L2 norm of q and k (Llama4TextL2Norm): no parameters, and its
 *   elementwise cost is not priced. */
static sim_status read_llama4(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    int64_t step = 1, dense_width = 0, chunk = 0, interval = 4;
    sim_status st;
    if ((st = sim_jsonf_int_opt(cfg, path, "interleave_moe_layer_step", 1, m->layers, 1, &step,
                                err)) ||
        (st = sim_jsonf_int(cfg, path, "intermediate_size_mlp", 1, (int64_t)1 << 23, &dense_width,
                            err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "attention_chunk_size", 1, (int64_t)1 << 32, 0, &chunk,
                                err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "no_rope_layer_interval", 1, m->layers, 4, &interval,
                                err)))
        return st;
    if (m->experts == 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'num_local_experts' is missing; a llama4_text config needs "
                        "its routed experts",
                        path);
    m->moe_intermediate = m->intermediate;
    m->shared_intermediate = m->intermediate;
    m->intermediate = dense_width;
    const cJSON *moe = sim_jsonf_find(cfg, "moe_layers");
    if (moe) {
        if (!cJSON_IsArray(moe))
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'moe_layers' is not a list, expected layer indices", path);
        m->moe_layers = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, moe)
        {
            if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0 && it->valuedouble < (double)m->layers))
                return sim_fail(err, SIM_EINPUT,
                                "%s: field 'moe_layers' holds a value that is not a layer index "
                                "in [0, %lld)",
                                path, (long long)m->layers);
            m->moe_layers++;
        }
    } else {
        m->moe_layers = (m->layers - (step - 1) + step - 1) / step;
    }
    /* the chunked (RoPE) layers */
    int64_t rope = 0;
    const cJSON *nr = sim_jsonf_find(cfg, "no_rope_layers");
    if (cJSON_IsArray(nr) && cJSON_GetArraySize(nr) > 0) {
        if (cJSON_GetArraySize(nr) != m->layers)
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'no_rope_layers' has %d entries, expected one 0 or 1 per "
                            "layer (%lld)",
                            path, cJSON_GetArraySize(nr), (long long)m->layers);
        const cJSON *it;
        cJSON_ArrayForEach(it, nr)
        {
            if (!cJSON_IsNumber(it) || (it->valuedouble != 0.0 && it->valuedouble != 1.0))
                return sim_fail(err, SIM_EINPUT,
                                "%s: field 'no_rope_layers' holds a value other than 0 or 1", path);
            rope += it->valuedouble == 1.0;
        }
    } else {
        for (int64_t i = 0; i < m->layers; i++)
            rope += (i + 1) % interval != 0;
    }
    if (chunk > 0 && chunk < m->max_positions && rope > 0) {
        m->sliding_window = chunk;
        m->sliding_layers = rope;
        m->chunked_attn = true;
    }
    return SIM_OK;
}

/* Gemma 3 (gemma3_text; transformers' Gemma3TextConfig and modeling_gemma3.py): every
 * sliding_window_pattern-th layer (default 6: layers 5, 11, ...) attends to everything, the others
 * within sliding_window, unless layer_types lists them; four RMSNorms a layer (before and after
 * attention and the MLP) and per-head q/k RMSNorms; the GeGLU MLP has the gated MLP's three
 * matrices. The SigLIP vision tower of the gemma3 wrapper is not priced (nor its ~0.4 B weights
 * counted). */
static sim_status read_gemma3(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    int64_t pattern = 6;
    sim_status st = sim_jsonf_int_opt(cfg, path, "sliding_window_pattern", 1, m->layers, 6,
                                      &pattern, err);
    if (st)
        return st;
    m->extra_norms = 2;
    m->qk_norm = true;
    if (!sim_jsonf_find(cfg, "layer_types") && m->sliding_window > 0) {
        m->sliding_layers = 0;
        for (int64_t i = 0; i < m->layers; i++)
            m->sliding_layers += (i + 1) % pattern != 0;
    }
    return SIM_OK;
}

/* The family-specific parts: MoE, MLA, per-layer attention, gpt-oss and Qwen3 extras. */
static sim_status read_architecture(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    const char *type = NULL;
    sim_status st;
    if ((st = sim_jsonf_str_opt(cfg, path, "model_type", &type, err)) ||
        (st = read_moe(cfg, path, type, m, err)) || (st = read_mla(cfg, path, m, err)) ||
        (st = read_layer_types(cfg, path, type && strcmp(type, "qwen3_next") == 0, m, err)))
        return st;
    bool gpt_oss = type && strcmp(type, "gpt_oss") == 0;
    m->attn_sinks = gpt_oss;
    m->o_bias = gpt_oss && m->qkv_bias;
    m->qk_norm = type && (strcmp(type, "qwen3") == 0 || strcmp(type, "qwen3_moe") == 0);
    if (type && strcmp(type, "llama4_text") == 0)
        return read_llama4(cfg, path, m, err);
    if (type && strcmp(type, "gemma3_text") == 0)
        return read_gemma3(cfg, path, m, err);
    if (type && strcmp(type, "qwen3_next") == 0)
        return sim_model_read_qwen3_next(cfg, path, m, err);
    if (type && strcmp(type, "deepseek_v32") == 0)
        return sim_model_read_dsa(cfg, path, m, err);
    if (type && strcmp(type, "nemotron_h") == 0)
        return sim_model_read_nemotron_h(cfg, path, m, err);
    return SIM_OK;
}

sim_status sim_model_load(const char *path, sim_model *m, sim_err *err)
{
    memset(m, 0, sizeof *m);
    cJSON *root;
    sim_status st = sim_jsonf_load(path, &root, err);
    if (st)
        return st;
    const cJSON *cfg = root;
    const cJSON *text = sim_jsonf_find(root, "text_config");
    if (!sim_jsonf_find(root, "hidden_size") && cJSON_IsObject(text))
        cfg = text;
    if (!(st = check_family(root, cfg, path, err)) && !(st = read_shape(cfg, path, m, err)) &&
        !(st = read_attention_options(cfg, path, m, err)) &&
        !(st = read_architecture(cfg, path, m, err)) && !(st = read_dtype(cfg, path, m, err)) &&
        /* a wrapper's text_config may leave the dtype to the wrapper (Gemma 3) */
        !(st = !m->dtype_known && root != cfg ? read_dtype(root, path, m, err) : SIM_OK) &&
        !(st = sim_model_read_vision(root, cfg, path, m, err)) &&
        !(st = sim_quant_read(sim_jsonf_find(root, "quantization_config") ? root : cfg, path,
                              &m->quant, err))) {
        snprintf(m->path, sizeof m->path, "%s", path);
        stem(path, m->name, sizeof m->name);
    }
    cJSON_Delete(root);
    return st;
}

double sim_model_attn_params(const sim_model *m)
{
    const double d = (double)m->hidden, h = (double)m->heads;
    if (m->mla) {
        /* q: d -> q_lora (+ its norm) -> h x (nope + rope), or d -> h x (nope + rope); kv: d ->
         * kv_lora + rope (+ the latent's norm), kv_lora -> h x (nope + v); o: h x v -> d */
        const double qk = (double)(m->qk_nope_dim + m->qk_rope_dim), ql = (double)m->q_lora_rank;
        const double kvl = (double)m->kv_lora_rank;
        double q = ql > 0.0 ? d * ql + ql + ql * h * qk : d * h * qk;
        double kv = d * (kvl + (double)m->qk_rope_dim) + kvl +
                    kvl * h * (double)(m->qk_nope_dim + m->v_head_dim);
        return q + kv + h * (double)m->v_head_dim * d + sim_model_indexer_params(m);
    }
    double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
    double p = d * q * (m->attn_out_gate ? 2.0 : 1.0) + 2.0 * d * kv + q * d;
    if (m->qkv_bias)
        p += q + 2.0 * kv;
    if (m->o_bias)
        p += d;
    if (m->attn_sinks)
        p += h;
    if (m->qk_norm)
        p += 2.0 * (double)m->head_dim;
    return p;
}

double sim_model_expert_params(const sim_model *m)
{
    double d = (double)m->hidden, f = (double)m->moe_intermediate;
    return 3.0 * d * f + (m->moe_bias ? 2.0 * f + d : 0.0);
}

/* One MoE layer's MLP with `experts` routed experts in it: the experts, the router (E x d, plus
 * a bias with gpt-oss) and the shared expert (plus its d -> 1 gate). */
static double moe_mlp_params(const sim_model *m, double experts)
{
    double d = (double)m->hidden, e = (double)m->experts;
    double router = e * d + (m->moe_bias ? e : 0.0);
    double shared = 3.0 * d * (double)m->shared_intermediate + (m->shared_expert_gate ? d : 0.0);
    return experts * sim_model_expert_params(m) + router + shared;
}

/* The layers with `experts` routed experts counted in each MoE layer: each mixer (attention or
 * linear) and each MLP with the RMSNorm before it, a layer's extra norms (Gemma 3), the dense
 * MLPs (gate, up, down; up and down when ungated) and the MoE blocks. */
static double layers_params(const sim_model *m, double experts)
{
    double d = (double)m->hidden, f = (double)m->intermediate;
    if (m->linear_layers == 0 && m->no_mixer_layers == 0 && m->no_mlp_layers == 0) {
        double per_layer = sim_model_attn_params(m) + (double)(2 + m->extra_norms) * d;
        return (double)m->layers * per_layer + (double)(m->layers - m->moe_layers) * 3.0 * d * f +
               (double)m->moe_layers * moe_mlp_params(m, experts);
    }
    const int64_t mlp = sim_model_mlp_layers(m);
    double dense_layers = (double)(mlp - m->moe_layers);
    double norms = (double)(sim_model_attn_layers(m) + m->linear_layers + mlp) +
                   (double)(m->layers * m->extra_norms);
    return (double)sim_model_attn_layers(m) * sim_model_attn_params(m) +
           (double)m->linear_layers * sim_model_linear_params(m) + norms * d +
           dense_layers * (m->mlp_ungated ? 2.0 : 3.0) * d * f +
           (double)m->moe_layers * moe_mlp_params(m, experts);
}

double sim_model_embedding_params(const sim_model *m)
{
    return (double)m->vocab * (double)m->hidden;
}

double sim_model_params(const sim_model *m)
{
    double embed = sim_model_embedding_params(m) * (m->tied_embeddings ? 1.0 : 2.0);
    return layers_params(m, (double)m->experts) + embed + (double)m->hidden + m->vision_params;
}

double sim_model_active_params(const sim_model *m)
{
    return layers_params(m, (double)m->experts_per_tok) + sim_model_embedding_params(m) +
           (double)m->hidden;
}
