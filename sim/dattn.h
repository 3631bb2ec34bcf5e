/* dattn.h - decode attention as the engines' kernels launch it: how many thread blocks (CTAs)
 * a decode step's attention runs, and what that parallelism costs when it does not fill the GPU.
 *
 * A decode token's attention streams its sequence's cached K and V. Kernels that split the
 * context across CTAs (Flash-Decoding, FlashInfer, FlashAttention's split-KV heuristic,
 * TensorRT-LLM's multi-block mode, vLLM's PagedAttention V2) fill every SM whatever the batch,
 * and run at the HBM bound cost.h already prices. Kernels that give one CTA a whole
 * (sequence, query head) pair do not: a batch-1 decode of Llama-3.1-8B runs 32 CTAs on 132
 * SMs (16 per GPU at TP 2, 8 at TP 4), each streaming its head's whole context at what ONE CTA
 * can pull (hw decode_cta_gb_per_s), so the time does not fall with TP. The kernels:
 *   split        context split to fill the GPU: no CTA bound (HBM only)
 *   fa2          FlashAttention-2 without split-KV (flash-attn 2.0.x): seqs x q_heads CTAs, one
 *                resident per SM; a tensor-core kernel whose CTA pads the single query row to
 *                its 128-row tile, so a CTA costs 4 x 128 x ctx x head_dim FLOPs at its SM's
 *                share of the 16-bit peak x efficiency.attention
 *   vllm-paged   vLLM's PagedAttention (csrc/attention, v0.2-0.6): V1 (seqs x q_heads CTAs, each
 *                the whole context) when the context is <= 8192 and it fits one 512-token
 *                partition or seqs x q_heads > 512; else V2 (one CTA per 512-token partition).
 *                Two CTAs resident per SM (vllm-paged-v1, vllm-paged-v2: one version forced)
 *   trtllm-0.11  TensorRT-LLM 0.11 without multi_block_mode (off by default until 0.13): XQA
 *                (GQA-aware, enough CTAs: HBM bound) when kv_heads x seqs x 4 >= SMs, else the
 *                masked-MHA kernel, seqs x q_heads CTAs, one resident per SM
 * The CTA bound: waves = ceil(ctas / (compute_units x resident)), time = waves x one CTA's time;
 * a CUDA-core kernel's CTA (PagedAttention, masked MHA) streams its tokens' K and V of one head
 * (kernels of this kind read a shared GQA head once per query head) at decode_cta_gb_per_s, a
 * rate of 16-bit values: over an 8-bit cache the CTA converts each value to 16 bits on the CUDA
 * cores first and runs no faster than in 16 bits (vLLM 0.5's fp8 KV cache was slower than its
 * fp16 one end to end; Intel's flash_attn decode in sgl-kernel-xpu PR #252 is slower in fp8).
 * The op's memory time is the larger of this and the HBM bound. Pure functions.
 */
#ifndef SIM_DATTN_H
#define SIM_DATTN_H

#include <stdbool.h>
#include <stdint.h>

#include "hw.h"

typedef enum sim_dattn_kernel {
    SIM_DATTN_SPLIT = 0, /* the default: what current engines run */
    SIM_DATTN_FA2,
    SIM_DATTN_VLLM_PAGED,
    SIM_DATTN_VLLM_PAGED_V1, /* V1 or V2 forced (benchmark_paged_attention --version) */
    SIM_DATTN_VLLM_PAGED_V2,
    SIM_DATTN_TRTLLM_011,
    SIM_DATTN_COUNT
} sim_dattn_kernel;

/* The decode part of a step's attention on one GPU: sequences with one new token (seqs 0: none)
 * and the mean context each reads. */
typedef struct sim_dattn_shape {
    double seqs, ctx;
    int64_t q_heads, kv_heads, head_dim; /* per GPU */
    double kv_elem_bytes;                /* bytes of one cached K or V value */
    /* MLA (absorbed decode over the cached latent): the value width (kv_lora_rank; head_dim is
     * the key's, kv_lora_rank + rope) and the query tokens per sequence (a speculative verify:
     * more than 1); v_dim 0: not MLA. MLA decode kernels (FlashMLA, FlashInfer's and FA3's MLA
     * paths) split the context across CTAs and pack a sequence's q_heads x q_per_seq query rows
     * into tiles of SIM_DATTN_MLA_TILE rows: cost.c prices the padded tiles at
     * mla_decode.compute_eff of the 16-bit peak and the latent reads at mla_decode.memory_eff
     * of HBM. */
    int64_t v_dim;
    double q_per_seq;
} sim_dattn_shape;

/* Query rows per tile of an MLA decode kernel (FlashMLA's block of 64 rows of h_q x s_q: at
 * h_q x s_q 80 its time doubles over 64, FlashMLA issue #30 on H20). */
#define SIM_DATTN_MLA_TILE 64

/* How the kernel launches: ctas 0 = it fills the GPU (no CTA bound). */
typedef struct sim_dattn_launch {
    double ctas;      /* thread blocks */
    double cta_bytes; /* K and V bytes one CTA streams */
    double cta_flops; /* tensor-core kernels (fa2): FLOPs one CTA computes, padded; else 0 */
    int resident;     /* CTAs one SM runs at once */
} sim_dattn_launch;

/* "split", "fa2", "vllm-paged", "vllm-paged-v1", "vllm-paged-v2", "trtllm-0.11". */
const char *sim_dattn_name(sim_dattn_kernel k);

/* Parses a name as above; false when unknown. */
bool sim_dattn_parse(const char *s, sim_dattn_kernel *out);

/* The names, comma-separated, for messages. */
const char *sim_dattn_names(void);

/* The launch of kernel k for shape s on hw. */
sim_dattn_launch sim_dattn_plan(const sim_hw *hw, sim_dattn_kernel k, const sim_dattn_shape *s);

/* The CTA-bound time of that launch in ns (0 when the kernel fills the GPU or there is no decode
 * part). */
double sim_dattn_cta_ns(const sim_hw *hw, sim_dattn_kernel k, const sim_dattn_shape *s);

/* The kernels a decode attention launches beyond its main pass: vLLM PagedAttention V2's
 * paged_attention_v2_reduce_kernel, which merges the partitions' partial results (csrc/
 * attention, v0.5: launched with every V2 call): 1, else 0. FlashAttention's split-KV combine
 * kernel (flash_fwd_splitkv_combine_kernel) is left out: its num_splits_heuristic splits only
 * while sequences x KV heads fill under 80 % of the SMs, so the kernel drops out as the batch
 * grows and a step would get faster with one more sequence (the step model's time is
 * non-decreasing in tokens, tests/test_props.c); "split" stays one kernel. MLA: 0. */
int sim_dattn_extra_kernels(const sim_hw *hw, sim_dattn_kernel k, const sim_dattn_shape *s);

/* The bytes that merge pass moves: every split's (partition's) fp32 output and log-sum-exp,
 * partitions x seqs x q_heads x (head_dim + 1) x 4, read once (0 without one).
 * Example (const sim_hw *hw):
 *   sim_dattn_shape s = {.seqs = 1, .ctx = 1024, .q_heads = 64, .kv_heads = 8,
 *                        .head_dim = 128, .kv_elem_bytes = 2};
 *   double b = sim_dattn_merge_bytes(hw, SIM_DATTN_VLLM_PAGED_V2, &s); // 66,048 B
 *   (void)b;
 */
double sim_dattn_merge_bytes(const sim_hw *hw, sim_dattn_kernel k, const sim_dattn_shape *s);

#endif
