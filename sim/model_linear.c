/* model_linear.c - the layer kinds beyond dense attention: the hybrid layer plans of
 * linear-attention and state-space models (Qwen3-Next's Gated DeltaNet layers, Nemotron-H's
 * Mamba-2 / attention / MLP blocks) and DeepSeek-V3.2's lightning indexer (declared in model.h
 * and model_internal.h). */
#include "model_internal.h"

#include <string.h>

#include "jsonf.h"

/* FLA's chunked gated-delta-rule kernels (chunk_gated_delta_rule, fla/ops/gated_delta_rule/
 * chunk.py, which vLLM's qwen3_next.py calls) work in chunks of 64 tokens. */
#define GDN_CHUNK 64
/* Mamba2Config's and NemotronHConfig's default chunk_size (transformers). */
#define MAMBA2_CHUNK 256

/* Qwen3-Next (transformers' Qwen3NextConfig, vLLM's qwen3_next.py):
 * - layer i is full attention when layer_types says so, else when (i + 1) % full_attention_interval
 *   == 0 (default 4), linear attention (Gated DeltaNet) otherwise;
 * - Gated DeltaNet: linear_num_key_heads q/k heads of linear_key_head_dim, linear_num_value_heads
 *   v heads of linear_value_head_dim, a causal conv of linear_conv_kernel_dim taps, no bias;
 * - the attention layers are gated (attn_output_gate, default true: q_proj yields the query and a
 *   sigmoid gate per head) with per-head q/k RMSNorms. */
sim_status sim_model_read_qwen3_next(const cJSON *cfg, const char *path, sim_model *m,
                                     sim_err *err)
{
    const int64_t big = (int64_t)1 << 16;
    int64_t interval = 4;
    sim_status st;
    if ((st = sim_jsonf_int(cfg, path, "linear_num_key_heads", 1, big, &m->lin_k_heads, err)) ||
        (st = sim_jsonf_int(cfg, path, "linear_num_value_heads", 1, big, &m->lin_v_heads, err)) ||
        (st = sim_jsonf_int(cfg, path, "linear_key_head_dim", 1, big, &m->lin_k_dim, err)) ||
        (st = sim_jsonf_int(cfg, path, "linear_value_head_dim", 1, big, &m->lin_v_dim, err)) ||
        (st = sim_jsonf_int(cfg, path, "linear_conv_kernel_dim", 1, 64, &m->lin_conv_kernel,
                            err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "full_attention_interval", 1, m->layers, 4, &interval,
                                err)) ||
        (st = sim_jsonf_bool_opt(cfg, path, "attn_output_gate", true, &m->attn_out_gate, err)))
        return st;
    if (m->lin_v_heads % m->lin_k_heads != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'linear_num_value_heads' is %lld, expected a multiple of "
                        "linear_num_key_heads %lld (each q/k head serves a group of v heads)",
                        path, (long long)m->lin_v_heads, (long long)m->lin_k_heads);
    if (!sim_jsonf_find(cfg, "layer_types")) {
        m->linear_layers = 0;
        for (int64_t i = 0; i < m->layers; i++)
            m->linear_layers += (i + 1) % interval != 0;
    }
    if (m->linear_layers == m->layers)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'layer_types' (or full_attention_interval) leaves no "
                        "full-attention layer, expected at least one",
                        path);
    m->linear_kind = SIM_LINEAR_GDN;
    m->lin_chunk = GDN_CHUNK;
    m->qk_norm = true;
    /* its MTP module (the checkpoint's mtp.* weights): vLLM's Qwen3NextMultiTokenPredictor reads
     * num_nextn_predict_layers with a default of 1, which the released config.json does not
     * give; one 2d -> d fc (ColumnParallelLinear, sharded) before its layers, not one per layer
     * as DeepSeek's eh_proj (vllm/model_executor/models/qwen3_next_mtp.py) */
    if (!sim_jsonf_find(cfg, "num_nextn_predict_layers"))
        m->mtp_layers = 1;
    m->mtp_shared_fc = true;
    return SIM_OK;
}

/* hybrid_override_pattern: one character per block, 'M' a Mamba-2 mixer, '*' attention, '-' an
 * MLP (transformers' NemotronHConfig; 'E', a MoE block of later Nemotrons, is not priced). */
static sim_status read_pattern(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    const char *p = NULL;
    sim_status st = sim_jsonf_str_opt(cfg, path, "hybrid_override_pattern", &p, err);
    if (st)
        return st;
    if (!p)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'hybrid_override_pattern' is missing; a nemotron_h config needs "
                        "its block pattern (one of M, *, - per layer)",
                        path);
    if ((int64_t)strlen(p) != m->layers)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'hybrid_override_pattern' has %zu blocks, expected one per "
                        "layer (num_hidden_layers %lld)",
                        path, strlen(p), (long long)m->layers);
    int64_t mamba = 0, attn = 0, mlp = 0;
    for (const char *c = p; *c; c++) {
        if (*c == 'M')
            mamba++;
        else if (*c == '*')
            attn++;
        else if (*c == '-')
            mlp++;
        else
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'hybrid_override_pattern' holds '%c', a block kind infersim "
                            "does not price; expected M (Mamba-2), * (attention) or - (MLP)",
                            path, *c);
    }
    if (attn == 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'hybrid_override_pattern' has no attention block ('*'), "
                        "expected at least one (pure Mamba models are not priced)",
                        path);
    m->linear_layers = mamba;
    m->no_mixer_layers = mlp;
    m->no_mlp_layers = mamba + attn;
    return SIM_OK;
}

/* Nemotron-H (transformers' NemotronHConfig, vLLM's nemotron_h.py and mamba_mixer2.py): blocks
 * of one mixer or one MLP each, behind one RMSNorm; Mamba-2 with mamba_num_heads heads of
 * mamba_head_dim, n_groups groups of B and C of ssm_state_size, conv_kernel taps (use_conv_bias,
 * default true), chunk_size; the MLP is up -> relu2 -> down (mlp_hidden_act relu2). */
sim_status sim_model_read_nemotron_h(const cJSON *cfg, const char *path, sim_model *m,
                                     sim_err *err)
{
    const int64_t big = (int64_t)1 << 16;
    const char *act = NULL;
    sim_status st;
    if ((st = read_pattern(cfg, path, m, err)) ||
        (st = sim_jsonf_int(cfg, path, "mamba_num_heads", 1, big, &m->lin_v_heads, err)) ||
        (st = sim_jsonf_int(cfg, path, "mamba_head_dim", 1, big, &m->lin_v_dim, err)) ||
        (st = sim_jsonf_int(cfg, path, "ssm_state_size", 1, big, &m->lin_k_dim, err)) ||
        (st = sim_jsonf_int(cfg, path, "n_groups", 1, big, &m->lin_k_heads, err)) ||
        (st = sim_jsonf_int(cfg, path, "conv_kernel", 1, 64, &m->lin_conv_kernel, err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "chunk_size", 1, big, MAMBA2_CHUNK, &m->lin_chunk,
                                err)) ||
        (st = sim_jsonf_bool_opt(cfg, path, "use_conv_bias", true, &m->lin_conv_bias, err)) ||
        (st = sim_jsonf_str_opt(cfg, path, "mlp_hidden_act", &act, err)))
        return st;
    if (m->lin_v_heads % m->lin_k_heads != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'mamba_num_heads' is %lld, expected a multiple of n_groups %lld",
                        path, (long long)m->lin_v_heads, (long long)m->lin_k_heads);
    if (act && strcmp(act, "relu2") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'mlp_hidden_act' is \"%s\", expected \"relu2\" (the up -> "
                        "squared ReLU -> down MLP infersim prices for nemotron_h)",
                        path, act);
    m->linear_kind = SIM_LINEAR_MAMBA2;
    m->mlp_ungated = true;
    return SIM_OK;
}

double sim_model_linear_params(const sim_model *m)
{
    if (m->linear_layers == 0)
        return 0.0;
    const double d = (double)m->hidden, hv = (double)m->lin_v_heads;
    const double vdim = hv * (double)m->lin_v_dim;
    const double conv = 2.0 * (double)(m->lin_k_heads * m->lin_k_dim) + vdim;
    const bool gdn = m->linear_kind == SIM_LINEAR_GDN;
    /* in_proj: the conv's channels (q k v / x B C), the gate z (vdim), the per-head scalars
     * (GDN: beta and the decay a; Mamba-2: dt) */
    const double in = d * (conv + vdim + (gdn ? 2.0 : 1.0) * hv);
    const double conv_w = conv * (double)m->lin_conv_kernel + (m->lin_conv_bias ? conv : 0.0);
    const double scalars = (gdn ? 2.0 : 3.0) * hv; /* dt_bias, A_log (+ D) */
    const double gnorm = gdn ? (double)m->lin_v_dim : vdim;
    return in + conv_w + scalars + gnorm + vdim * d;
}

sim_status sim_model_read_dsa(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    const int64_t big = (int64_t)1 << 16;
    sim_status st;
    if (!m->mla)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'kv_lora_rank' is missing; a deepseek_v32 config's sparse "
                        "attention runs over MLA's latent cache",
                        path);
    if ((st = sim_jsonf_int(cfg, path, "index_topk", 1, (int64_t)1 << 32, &m->index_topk, err)) ||
        (st = sim_jsonf_int(cfg, path, "index_n_heads", 1, big, &m->index_heads, err)) ||
        (st = sim_jsonf_int(cfg, path, "index_head_dim", 1, big, &m->index_head_dim, err)))
        return st;
    if (m->q_lora_rank == 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'q_lora_rank' is missing; the lightning indexer's queries come "
                        "from the query latent",
                        path);
    return SIM_OK;
}

double sim_model_indexer_params(const sim_model *m)
{
    if (m->index_topk == 0)
        return 0.0;
    const double hi = (double)m->index_heads, di = (double)m->index_head_dim;
    return (double)m->q_lora_rank * hi * di + (double)m->hidden * (di + hi) + 2.0 * di;
}
