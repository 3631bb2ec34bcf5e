/* dattn.c - decode attention kernels' launches and their CTA bound. */
#include "dattn.h"

#include <math.h>
#include <string.h>

/* vLLM PagedAttention: V2's partition, and the limits of its V1/V2 choice
 * (vllm/attention/ops/paged_attn.py, v0.5: use_v1 = max_seq_len <= 8192 and (max_num_partitions
 * == 1 or num_seqs * num_heads > 512)) */
#define VLLM_PARTITION_TOKENS 512.0
#define VLLM_V1_MAX_CTX 8192.0
#define VLLM_V1_MIN_CTAS 512.0
/* TensorRT-LLM's XQA dispatch: kEnableMinBlockFactor (decoderXQAImplPrecompiled.cpp) */
#define TRTLLM_XQA_BLOCK_FACTOR 4.0
/* FlashAttention-2's forward tile for head_dim 128 on sm80/sm90: kBlockM = 128 query rows
 * (csrc/flash_attn/src/flash_fwd_launch_template.h, run_mha_fwd_hdim128) */
#define FA2_BLOCK_M 128.0

static const struct {
    const char *name;
    int resident; /* CTAs per SM: the kernels' occupancy (see dattn.h) */
} kernels[SIM_DATTN_COUNT] = {
    [SIM_DATTN_SPLIT] = {"split", 1},
    [SIM_DATTN_FA2] = {"fa2", 1},
    [SIM_DATTN_VLLM_PAGED] = {"vllm-paged", 2},
    [SIM_DATTN_VLLM_PAGED_V1] = {"vllm-paged-v1", 2},
    [SIM_DATTN_VLLM_PAGED_V2] = {"vllm-paged-v2", 2},
    [SIM_DATTN_TRTLLM_011] = {"trtllm-0.11", 1},
};

const char *sim_dattn_name(sim_dattn_kernel k) { return kernels[k].name; }

bool sim_dattn_parse(const char *s, sim_dattn_kernel *out)
{
    for (int i = 0; i < SIM_DATTN_COUNT; i++)
        if (strcmp(s, kernels[i].name) == 0) {
            *out = (sim_dattn_kernel)i;
            return true;
        }
    return false;
}

const char *sim_dattn_names(void)
{
    return "split, fa2, vllm-paged, vllm-paged-v1, vllm-paged-v2 or trtllm-0.11";
}

/* K and V of one head over `tokens` tokens. */
static double head_bytes(const sim_dattn_shape *s, double tokens)
{
    return tokens * 2.0 * (double)s->head_dim * s->kv_elem_bytes;
}

sim_dattn_launch sim_dattn_plan(const sim_hw *hw, sim_dattn_kernel k, const sim_dattn_shape *s)
{
    sim_dattn_launch l = {.ctas = 0.0, .cta_bytes = 0.0, .resident = kernels[k].resident};
    if (!(s->seqs > 0.0) || !(s->ctx > 0.0))
        return l;
    const double per_head = s->seqs * (double)s->q_heads;
    switch (k) {
    case SIM_DATTN_SPLIT:
        break;
    case SIM_DATTN_TRTLLM_011:
        if ((double)s->kv_heads * s->seqs * TRTLLM_XQA_BLOCK_FACTOR >= (double)hw->compute_units)
            break; /* XQA; else masked MHA, one CTA per (sequence, query head): */
        /* fall through */
    case SIM_DATTN_FA2:
        l.ctas = per_head;
        l.cta_bytes = head_bytes(s, s->ctx);
        if (k == SIM_DATTN_FA2) /* QK^T and PV over the padded query tile */
            l.cta_flops = 4.0 * FA2_BLOCK_M * s->ctx * (double)s->head_dim;
        break;
    case SIM_DATTN_VLLM_PAGED:
    case SIM_DATTN_VLLM_PAGED_V1:
    case SIM_DATTN_VLLM_PAGED_V2: {
        double parts = ceil(s->ctx / VLLM_PARTITION_TOKENS);
        bool v1 = k == SIM_DATTN_VLLM_PAGED_V1 ||
                  (k == SIM_DATTN_VLLM_PAGED && s->ctx <= VLLM_V1_MAX_CTX &&
                   (parts <= 1.0 || per_head > VLLM_V1_MIN_CTAS));
        if (v1) {
            l.ctas = per_head;
            l.cta_bytes = head_bytes(s, s->ctx);
        } else {
            /* every CTA but a sequence's last streams a whole 512-token partition, and a wave
             * lasts as long as its longest CTA: the partition's size, never the mean share
             * (ctx / parts, which made 9000 tokens 18 CTAs of 500) */
            l.ctas = per_head * parts;
            l.cta_bytes = head_bytes(s, s->ctx < VLLM_PARTITION_TOKENS ? s->ctx
                                                                        : VLLM_PARTITION_TOKENS);
        }
        break;
    }
    case SIM_DATTN_COUNT:
        break;
    }
    return l;
}

/* A CUDA-core CTA's rate is per value at its 16-bit rate: over an 8-bit cache it converts every
 * value to 16 bits before its dot products, so it runs no faster (bytes x 2 / kv bytes). */
static double cuda_core_widen(const sim_dattn_shape *s)
{
    return s->kv_elem_bytes < 2.0 ? 2.0 / s->kv_elem_bytes : 1.0;
}

double sim_dattn_cta_ns(const sim_hw *hw, sim_dattn_kernel k, const sim_dattn_shape *s)
{
    sim_dattn_launch l = sim_dattn_plan(hw, k, s);
    if (!(l.ctas > 0.0))
        return 0.0;
    /* a tensor-core CTA computes at its SM's share of the 16-bit peak; a CUDA-core one streams */
    double sm_flops = hw->peak_flops[SIM_DT_BF16] * hw->eff_attention / hw->compute_units;
    double cta_ns = l.cta_flops > 0.0
                        ? l.cta_flops / sm_flops * 1e9
                        : l.cta_bytes * cuda_core_widen(s) / hw->decode_cta_bytes_per_s * 1e9;
    /* a tensor-core CTA's softmax: one exp per score of its padded tile at its SM's share of
     * the special-function rate (cost.h, sim_cost_attention_exp_ns) */
    if (l.cta_flops > 0.0 && hw->attn_exp_per_s > 0.0 && s->head_dim > 0)
        cta_ns += l.cta_flops / (4.0 * (double)s->head_dim) /
                  (hw->attn_exp_per_s / hw->compute_units) * 1e9;
    double waves = ceil(l.ctas / ((double)hw->compute_units * l.resident));
    return waves * cta_ns;
}

/* The splits (partitions) whose partial results a merge pass reads: 0 when there is none. */
static double merged_parts(const sim_hw *hw, sim_dattn_kernel k, const sim_dattn_shape *s)
{
    if (!(s->seqs > 0.0) || !(s->ctx > 0.0) || s->v_dim > 0)
        return 0.0;
    sim_dattn_launch l = sim_dattn_plan(hw, k, s);
    /* PagedAttention V2 (partitions of 512 tokens) always launches its reduce kernel */
    bool v2 = (k == SIM_DATTN_VLLM_PAGED_V2 || k == SIM_DATTN_VLLM_PAGED) &&
              l.ctas > s->seqs * (double)s->q_heads;
    if (k == SIM_DATTN_VLLM_PAGED_V2)
        v2 = true;
    return v2 ? ceil(s->ctx / VLLM_PARTITION_TOKENS) : 0.0;
}

int sim_dattn_extra_kernels(const sim_hw *hw, sim_dattn_kernel k, const sim_dattn_shape *s)
{
    return merged_parts(hw, k, s) > 0.0 ? 1 : 0;
}

double sim_dattn_merge_bytes(const sim_hw *hw, sim_dattn_kernel k, const sim_dattn_shape *s)
{
    const double parts = merged_parts(hw, k, s);
    return parts * ceil(s->seqs) * (double)s->q_heads * ((double)s->head_dim + 1.0) * 4.0;
}
