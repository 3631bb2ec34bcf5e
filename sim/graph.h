/* graph.h - the operators one forward step runs, per GPU, with their FLOPs and bytes.
 *
 * A step is a batch of sequence groups: `count` sequences, each with q new tokens over c cached
 * tokens, of which `logits` tokens per sequence need logits (prefill: q = prompt, c = 0,
 * logits = 1; decode: q = 1, c = context so far, logits = 1; a speculative verify: q = K+1,
 * logits = K+1; a non-final prefill chunk: logits = 0).
 *
 * Example (const sim_model *model, int tp, const sim_prec *prec):
 *   sim_seq_group g = {.count = 32, .q = 1, .c = 2048, .logits = 1}; // 32 decodes at 2k
 *   sim_graph gr;
 *   sim_graph_build(model, tp, prec, &g, 1, &gr);
 *   double flops = gr.ops[SIM_OP_ATTENTION].flops; // one layer's attention on one GPU
 *
 * Per-layer ops (sim_op_info(id)->per_layer) describe ONE layer; a step runs each of them
 * graph.repeats[id] times (the layers it runs in: every layer, the dense or the MoE layers, the
 * sliding or the full-attention layers). Everything is per GPU under tensor parallelism of
 * degree tp:
 *   - query heads and MLP width are split tp ways; KV heads are split too, but when
 *     num_key_value_heads < tp they are replicated: per-GPU KV heads = ceil(h_kv / tp);
 *   - two all-reduces per layer of T x d activations (after o_proj and after down_proj), one after
 *     the vocab-parallel embedding, and a gather of the logits;
 *   - the LM head runs only on the tokens that need logits.
 * Attention is a fused (Flash) kernel: reads Q, K, V once and writes O once, never the scores.
 * Prefill attention is causal (about half the FLOPs of full attention).
 *
 *
 * Mixture of experts (per MoE layer): router (d -> E GEMM), moe_topk, moe_permute, then
 * experts_gate_up and experts_down as grouped GEMMs over the experts the step's T tokens touch on
 * the busiest EP rank (moe.h: from the routing, E (1 - (1 - k/E)^T) of them under uniform routing
 * at ep 1), each expert's rows in the M blocks of the engine's kernel family (moe_blocks, priced
 * by cost.h through moe.h) and each touched expert's weights read once, moe_unpermute;
 * shared_expert (a dense gated MLP) where the model has one. Under
 * expert parallelism moe_dispatch / moe_combine all-to-all the routed tokens (T k d values per
 * layer over the EP group; low-latency single-hop mode for decode-only steps, one hop per peer
 * otherwise).
 * MLA: q_down / q_up / kv_down / kv_up GEMMs; decode (groups of <= SIM_GRAPH_ABSORB_MAX_Q new
 * tokens) absorbs kv_up into the query and output and attends over the cached latent (MQA-like,
 * one 576-wide "head" shared by all query heads), prefill expands the latent into per-head K, V.
 *
 * Precision (sim_prec): weights, GEMM-input activations and the KV cache each have a format.
 * Weight-only quantization (int8/int4/fp8/fp4 weights, 16-bit activations) shrinks weight bytes
 * and keeps 16-bit math; full quantization (fp8, int8 or fp4 weights AND activations) computes in
 * that format; W4A8 (int4 weights, fp8 or int8 activations) dequantizes the weights to the
 * activation format and computes there. A GEMM whose weights are stored in another format than
 * its math is "mixed-input" (sim_op.weight_only). The residual stream, GEMM outputs and
 * all-reduces stay 16-bit; the embedding table, the LM head and the norms are never quantized
 * (as vLLM and TensorRT-LLM ship them).
 *
 * Scales are bytes. fp4/mxfp4 carry their block scales in sim_dtype_bytes. Integer weights that a
 * mixed-input kernel dequantizes (AWQ, GPTQ, W4A8) carry one 16-bit scale per group of
 * prec.group_size weights along K, plus one zero point of the weight's width per group when
 * prec.zero_point: int4 with G = 128 and zeros reads 4 + 16/128 + 4/128 = 4.156 bits per weight.
 * Full int8/fp8 quantization uses per-channel or per-tensor scales (one per N or per tensor:
 * below 0.1% of the weights, not counted).
 *
 * Dynamic activation quantization: the norms and the gated activation write their output in the
 * GEMM-input format directly (vLLM's fused RMSNorm+quant and SiLU-and-mul+quant kernels); the
 * attention output has no such producer, so with quantized activations `act_quant` runs before
 * o_proj: read 16-bit, per-token absmax, scale, write the quantized tensor and one fp32 scale per
 * token.
 */
#ifndef SIM_GRAPH_H
#define SIM_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "a2a.h"
#include "coll.h"
#include "dattn.h"
#include "dtype.h"
#include "hw.h"
#include "model.h"
#include "moe.h"
#include "status.h"

typedef enum sim_op_id {
    /* a multimodal model's vision encoder over the step's images (graph_vision.c): once per
     * step, each repeated over the encoder's layers (repeats) */
    SIM_OP_VISION_PATCH_EMBED, /* the patch embedding: patches x (channels x frames x p^2) -> h */
    SIM_OP_VISION_NORM,        /* the ViT's norms: two a layer, and the merger's / final one */
    SIM_OP_VISION_QKV,         /* h -> 3h / tp */
    SIM_OP_VISION_ATTENTION,   /* non-causal attention over each image's (tile's) patches */
    SIM_OP_VISION_ATTENTION_WINDOW, /* the windowed layers (Qwen2.5-VL) */
    SIM_OP_VISION_O_PROJ,
    SIM_OP_VISION_MLP_UP,   /* h -> f / tp (SwiGLU: gate and up, 2f / tp) */
    SIM_OP_VISION_MLP_ACT,
    SIM_OP_VISION_MLP_DOWN,
    SIM_OP_VISION_ALLREDUCE, /* after the attention and the MLP at tp > 1 */
    SIM_OP_VISION_MERGER_FC1, /* the merger / adapter MLP's first layer (Qwen2.5-VL, Llama 4) */
    SIM_OP_VISION_MERGER_FC2, /* its second */
    SIM_OP_VISION_PROJ,      /* the projection into the language model's width (Gemma 3, Llama 4) */
    SIM_OP_EMBED,
    SIM_OP_ATTN_NORM,
    SIM_OP_QKV_PROJ,
    SIM_OP_Q_DOWN,  /* MLA: d -> q_lora_rank */
    SIM_OP_Q_UP,    /* MLA: q_lora_rank -> heads x (nope + rope) */
    SIM_OP_KV_DOWN, /* MLA: d -> kv_lora_rank + rope (the cached latent) */
    SIM_OP_KV_UP,   /* MLA: the latent's up-projection (expanded in prefill, absorbed in decode) */
    SIM_OP_QK_NORM, /* per-head RMSNorm of q and k (Qwen3's q_norm / k_norm, Gemma 3) */
    SIM_OP_ROPE,
    SIM_OP_INDEXER_PROJ, /* DSA: the lightning indexer's q (wq_b) and k + weights projections */
    SIM_OP_INDEXER,      /* DSA: indexer scores over every cached key, their top-k */
    SIM_OP_ATTENTION,
    SIM_OP_ATTENTION_SLIDING, /* the sliding-window layers of a model that mixes both kinds */
    SIM_OP_ACT_QUANT,
    SIM_OP_O_PROJ,
    /* the linear-attention / state-space mixer of a hybrid model's linear layers (graph_linear.c) */
    SIM_OP_LINEAR_IN_PROJ,  /* d -> q k v z (GDN) / z x B C dt (Mamba-2) */
    SIM_OP_LINEAR_CONV,     /* causal depthwise conv1d + SiLU over the conv channels, its state */
    SIM_OP_LINEAR_SCAN,     /* chunked scan (prefill) / recurrent state update (decode) */
    SIM_OP_LINEAR_NORM,     /* gated RMSNorm: norm(o) x SiLU(z) */
    SIM_OP_LINEAR_OUT_PROJ, /* heads x v dim -> d */
    SIM_OP_ATTN_ALLREDUCE,
    SIM_OP_MLP_NORM,
    SIM_OP_GATE_UP_PROJ,
    SIM_OP_ACT,
    SIM_OP_DOWN_PROJ,
    SIM_OP_ROUTER,          /* MoE: gate GEMM d -> E */
    SIM_OP_MOE_TOPK,        /* MoE: top-k of the router's scores */
    SIM_OP_MOE_DISPATCH,    /* expert parallelism: all-to-all of the routed tokens */
    SIM_OP_MOE_PERMUTE,     /* the routed rows sorted into each expert's segment */
    SIM_OP_EXPERTS_GATE_UP, /* grouped GEMM over the touched experts */
    SIM_OP_EXPERTS_ACT,
    SIM_OP_EXPERTS_DOWN,
    SIM_OP_MOE_UNPERMUTE, /* each token's k expert outputs weighted and summed */
    SIM_OP_MOE_COMBINE, /* expert parallelism: all-to-all of the experts' outputs back */
    SIM_OP_SHARED_EXPERT,
    SIM_OP_MLP_ALLREDUCE,
    SIM_OP_FINAL_NORM,
    SIM_OP_LM_HEAD,
    SIM_OP_LOGITS_GATHER,
    SIM_OP_SAMPLING,
    SIM_OP_DP_SYNC, /* data-parallel attention: the step's all-gather of every group's batch */
    SIM_OP_COUNT
} sim_op_id;

typedef enum sim_op_kind {
    SIM_OPK_GEMM,      /* tensor-core matmul: peak[compute] x eff_gemm, M padded to the tile */
    SIM_OPK_ATTENTION, /* fused attention: 16-bit peak x eff_attention */
    SIM_OPK_VECTOR,    /* element-wise / reductions on the vector units */
    SIM_OPK_COMM,      /* collective over the links */
} sim_op_kind;

typedef struct sim_op_meta {
    const char *name; /* the name scripts read: "qkv_proj", ... */
    sim_op_kind kind;
    bool per_layer;  /* runs once per transformer layer (else once per step) */
    int kernels;     /* kernel launches it takes (attention: cache write + attention) */
    bool context;    /* depends on the sequences' contexts, not only on the token counts */
    bool all_to_all; /* a collective priced as an all-to-all (expert parallelism) */
} sim_op_meta;

/* Precision of a run. */
typedef struct sim_prec {
    sim_dtype weight;   /* transformer-layer weights */
    sim_dtype act;      /* GEMM input activations */
    sim_dtype kv;       /* KV cache */
    int64_t group_size; /* weights per scale of dequantized integer weights (0: per channel) */
    bool zero_point;    /* those groups carry a zero point too (AWQ, asymmetric GPTQ) */
    bool block_scaled;  /* fp8 weights with block scales (quantization_config weight_block_size:
                         * DeepSeek-V3's 128 x 128 blocks, 1 x 128 activation groups) */
} sim_prec;

/* A group of identical sequences in one step. */
typedef struct sim_seq_group {
    int64_t count;  /* sequences */
    int64_t q;      /* new tokens per sequence this step (>= 1) */
    int64_t c;      /* cached tokens per sequence before this step */
    int64_t logits; /* tokens per sequence that need logits (0..q) */
    int64_t images;           /* images per sequence the vision encoder runs this step (their
                               * placeholder tokens are part of q) */
    int64_t image_w, image_h; /* their size in pixels */
    int64_t rank;   /* data-parallel attention: the group (mod dp) its first sequence lives in,
                     * the others following round-robin (an engine passes the request's index:
                     * SGLang's round-robin DP controller); 0 by default */
} sim_seq_group;

/* One operator instance on one GPU. */
typedef struct sim_op {
    sim_op_id id;
    bool present;          /* false when the op does not run (all-reduces at tp = 1) */
    double flops;          /* useful FLOPs (not padded) */
    double weight_bytes;   /* weights read from HBM */
    double act_bytes;      /* activations read + written */
    double kv_read_bytes;  /* KV cache read */
    double kv_write_bytes; /* KV cache written */
    double net_bytes;      /* bytes this GPU sends in the collective */
    double net_msg_bytes;  /* size of the collective's buffer */
    int net_ranks;         /* GPUs in the collective */
    int net_hops;          /* sequential steps of a ring collective (NCCL's ring) */
    /* which collective (all-reduce, all-gather, ...), and the algorithm asked for (AUTO: the
     * cheapest, collective.h) */
    sim_coll_kind net_kind;
    sim_coll_algo net_algo;
    /* runs inside the preceding all-reduce's kernel (no launch; its input never round-trips
     * HBM): --fuse-allreduce-norm */
    bool fused;
    int64_t m, n, k;       /* GEMM shape (m = tokens); 0 if not a GEMM */
    sim_dtype compute;     /* format whose peak prices the math */
    sim_dtype weight;      /* stored weight format (GEMMs) */
    bool block_scaled;     /* an fp8 GEMM of block-scaled weights (sim_prec.block_scaled; cost.h:
                            * its thread blocks' weight stream at small M) */
    int quant_kernels;     /* of `kernels`, the ones quantizing its inputs (sim_graph_block_quant;
                            * a Triton fused_moe GEMM's own, graph_build.c) */
    bool weight_only;      /* mixed-input GEMM: dequantizes its weights to the compute format
                            * (W4A16, W8A16, W4A8) */
    double groups;         /* grouped GEMM: problems (experts), each padded to the tile; 0 = one */
    /* grouped expert GEMMs (moe.h): the kernel family, its layout's phase, and the expected M
     * blocks of each of sim_moe_block_rows(i) rows over the experts; all 0: priced as one GEMM
     * padded to the tile (`groups` problems) */
    sim_moe_kernel moe_kernel;
    bool moe_decode;
    double moe_blocks[SIM_MOE_BLOCKS];
    double moe_mean_rows; /* a rank's mean routed rows (the busiest one's: m) */
    double moe_tokens;    /* the step's tokens, which Triton's configs key its M block on */
    /* attention: its decode part and the kernel the engine runs it with (dattn.h; the step sets
     * the kernel, SPLIT by default) */
    sim_dattn_shape dec;
    sim_dattn_kernel dattn;
    double attn_keys; /* attention: mean keys a query token attends (pairs / query tokens; 0: not
                       * known, no per-query-block term: hw.h efficiency.attention_kv_half) */
    int kernels; /* launches when not the op table's (0: sim_op_info(id)->kernels) */
    /* MoE dispatch / combine under expert parallelism (a2a.h): what each rank sends and the
     * mode the step runs it in (the graph's: normal with prefill tokens, else low_latency; the
     * step applies the run's --moe-a2a) */
    sim_a2a_shape a2a;
    sim_a2a_mode a2a_mode;
} sim_op;

typedef struct sim_graph {
    sim_op ops[SIM_OP_COUNT];      /* indexed by sim_op_id */
    int64_t repeats[SIM_OP_COUNT]; /* times each op runs in the step (layers it runs in, or 1) */
    int64_t layers;                /* transformer layers */
    int64_t dense_layers;          /* the first ones, with a dense MLP (all of a dense model) */
    int64_t sliding_layers;        /* layers priced with attention_sliding (mixed models only) */
    bool hybrid;                   /* linear or mixer-free or MLP-free layers: each per-layer op
                                    * runs in repeats[id] layers spread evenly (op_in_layer) */
    int64_t tokens;                /* T: new tokens in the step */
    int64_t seqs;                  /* sequences in the step */
    int64_t logit_tokens;          /* tokens that need logits */
} sim_graph;

/* Parallelism of a run. GPUs = tp x dp, dp = the data-parallel attention groups (1 without).
 *   tp            attention (and dense MLPs, the shared expert, embedding, LM head) split tp ways
 *   ep            1: every GPU holds a 1/tp slice of every expert (tensor-parallel experts);
 *                 > 1: each GPU holds E/ep whole experts, tokens go to them by all-to-all
 *   dp_attention  attention runs data-parallel: dp groups of tp GPUs, each with its own
 *                 sequences and their KV cache (DeepSeek-style)
 *   dp            the groups: 0 reads as ep / tp (experts split by EP over the groups, which
 *                 requires ep a multiple of tp); with ep 1 and dp > 1 the MoE layers are split by
 *                 TP over all tp x dp GPUs instead (SGLang --tp N --dp N --enable-dp-attention
 *                 without EP; attention tp 1): an all-gather of every group's tokens before each
 *                 MoE layer (moe_dispatch), a reduce-scatter after it (moe_combine)
 *   imbalance     a fixed busiest EP rank's routed tokens over the mean (>= 1; 1 = even);
 *                 0: the expected busiest rank of `routing` (moe.h) for each batch
 *   routing       how tokens pick experts, and EPLB's redundant experts (moe.h)
 *   moe_kernel    the grouped-GEMM kernel family of the experts (moe.h)
 *   moe_kernel_quantized  the family of 8- and 4-bit experts (weights below 16 bits), which an
 *                 engine may run elsewhere (engprof.h: SGLang's FlashInfer TRT-LLM MoE for
 *                 DeepSeek-V3 on SM100); a zero struct gives triton for both
 *   moe_kernel_mixed  the family of mixed-input experts (weights below 16 bits under 16-bit
 *                 math: int4, mxfp4), which vLLM 0.10-0.11 runs through Marlin (engprof.h)
 *   moe_cache     caller-owned memo of the busiest rank's load per batch (NULL: computed) */
typedef struct sim_par {
    int tp, ep;
    bool dp_attention;
    double imbalance;
    int dp;
    sim_moe_routing routing;
    sim_moe_kernel moe_kernel;
    sim_moe_kernel moe_kernel_quantized;
    sim_moe_kernel moe_kernel_mixed;
    sim_moe_cache *moe_cache; /* the MoE load per batch (moe.h: sim_moe_step_load_of); NULL: none */
} sim_par;

/* Tensor parallelism only: {tp, 1, false, 1}. */
sim_par sim_par_tp(int tp);

/* Attention data-parallel degree: dp (or ep / tp) with dp_attention, else 1. */
int sim_par_dp(const sim_par *p);

/* The GPUs each expert's (and, in the MoE layers, the shared expert's) width is split over:
 * 1 under EP, tp x dp in the DP-attention + TP-MoE layout, else tp. */
int sim_par_moe_tp(const sim_par *p);

/* Whether the MoE layers are split by TP under data-parallel attention (ep 1, dp > 1). */
bool sim_par_tp_moe(const sim_par *p);

/* The GPUs the shared expert's width is split over: sim_par_moe_tp in the DP-attention + TP-MoE
 * layout, else tp (under EP too: the shared expert is a dense MLP of the attention's TP group). */
int sim_par_shared_tp(const sim_par *p);

/* One MoE layer's experts on one GPU.
 *   experts       routed experts held: (E + redundant) / ep whole ones under EP (EPLB's
 *                 redundant copies are whole experts), else a slice of all E
 *   intermediate  each routed expert's width: moe_intermediate / sim_par_moe_tp
 *   shared        the shared expert's width: shared_intermediate / sim_par_shared_tp
 * DeepSeek-V3 (256 experts, 2048 wide, a 2048-wide shared expert) at TP 8: EP 8 with 32
 * redundant experts, 288 / 8 = 36 whole experts of 2048, shared 2048 / 8 = 256; EP 1, all 256
 * experts 256 wide, shared 256.
 * Example (const sim_model *deepseek_v3):
 *     sim_par p = {.tp = 8, .ep = 8, .imbalance = 1.0, .routing = {.redundant = 32}};
 *     sim_par_experts s = sim_par_moe_slice(deepseek_v3, &p); // 36.0, 2048, 256
 *     (void)s;
 */
typedef struct sim_par_experts {
    double experts;
    int64_t intermediate, shared;
} sim_par_experts;
sim_par_experts sim_par_moe_slice(const sim_model *m, const sim_par *p);

/* Expected experts touched when T tokens each pick k of E experts uniformly at random:
 * E (1 - (1 - k/E)^T) (sim_moe_experts_touched, which the graph calls for the busiest rank). */
double sim_graph_experts_touched(double experts, double k, double tokens);

/* Name, kind, scope and kernel count of an op. */
const sim_op_meta *sim_op_info(sim_op_id id);

/* Total bytes an op moves through HBM. */
double sim_op_bytes(const sim_op *op);

/* Checks that the model can run at tensor parallelism tp (heads, KV heads and MLP width divide),
 * and that the precision combination is meaningful. Errors name the flag and the value. */
sim_status sim_graph_check(const sim_model *m, int tp, const sim_prec *prec, sim_err *err);

/* The same under any parallelism: also that --ep divides the experts, that EP is 1 or equal to
 * --tp without data-parallel attention and a multiple of it with, that the experts' width divides
 * under tensor-parallel experts, and --expert-imbalance in [1, ep]. */
sim_status sim_graph_check_par(const sim_model *m, const sim_par *par, const sim_prec *prec,
                               sim_err *err);

/* The 16-bit format of the residual stream: prec->act when 16-bit, else the model's format. */
sim_dtype sim_graph_resid_dtype(const sim_model *m, const sim_prec *prec);

/* The format whose tensor peak prices the weight GEMMs: the activation format (full
 * quantization with fp8/int8 activations, or plain 16-bit). */
sim_dtype sim_graph_gemm_dtype(const sim_prec *prec);

/* graph_dtype.c: the precision a deployment runs when nothing says otherwise. `prec` holds the
 * formats a caller chose (flags, a measurement's columns) and the booleans which of them it chose;
 * the rest take the defaults. */
typedef struct sim_prec_given {
    sim_prec prec;
    bool weight, act, kv, group_size;
} sim_prec_given;

/* The chosen formats, else the model's quantization_config, else: weights in the model's
 * torch_dtype; activations fp8 with fp8 weights (W8A8, as vLLM's fp8 quantization), fp4, mxfp4
 * or mxfp6 with those weights on a device with a tensor peak for them (else weight-only), else
 * the 16-bit format (the weights' when 16-bit, else the model's); the KV cache in the 16-bit
 * activation format; the quantization_config's activations only when the weights were not
 * chosen; 128 weights per group scale (AWQ's and GPTQ's usual), zero points as the config says.
 * False (*out untouched) when the weights' format is unknown: not chosen, no
 * quantization_config, no torch_dtype. */
bool sim_graph_prec_defaults(const sim_model *m, const sim_hw *hw, const sim_prec_given *given,
                             sim_prec *out);

/* The precision of the non-expert GEMMs (attention projections, dense MLPs): `prec` itself,
 * except when the weights are in the checkpoint's own format and that format quantizes only the
 * MoE experts (quant.h `experts_only`: mxfp4); then their weights and inputs are 16-bit (the
 * residual format). The shared expert of a MoE layer keeps `prec`. */
sim_prec sim_graph_linear_prec(const sim_model *m, const sim_prec *prec);

/* A step's batch, summed over its groups: all the op list depends on. */
typedef struct sim_batch_shape {
    double tokens, seqs, logits;     /* new tokens, sequences, tokens needing logits */
    double pairs;                    /* query-key pairs attention computes */
    double kv_tokens;                /* cached + new tokens whose K and V attention reads */
    double swa_pairs, swa_kv_tokens; /* the same in the sliding layers of a mixed model; in a DSA
                                      * model (whose pairs and kv_tokens count at most index_topk
                                      * keys a query) the full causal ones the indexer scores */
    /* the part of the above in groups of at most SIM_GRAPH_ABSORB_MAX_Q new tokens (decodes and
     * speculative verifies): MLA runs them in the absorbed form */
    double dec_tokens, dec_pairs, dec_kv_tokens;
    double dec_seqs; /* sequences of those groups */
    /* the vision encoder's work (sim_model_vision_image summed over the step's images) */
    double vis_images, vis_tiles, vis_patches, vis_merged, vis_full_pairs, vis_window_pairs;
    /* a speculative verify's tokens past each sequence's first (groups with context whose every
     * token takes logits: q - 1 each), whose recurrent state a linear layer keeps per token */
    double verify_extra;
    /* data-parallel attention: the slowest group's own share (sim_graph_shape_dp), which the
     * attention side of the step runs; NULL: the mean share, tokens and sequences rounded up */
    const struct sim_batch_shape *busiest;
} sim_batch_shape;

/* Groups with at most this many new tokens per sequence run MLA's absorbed (decode) form: one
 * decode token plus up to 16 speculative ones. */
#define SIM_GRAPH_ABSORB_MAX_Q 17

/* Sums the groups (those with count 0 are ignored). */
sim_batch_shape sim_graph_shape(const sim_model *m, const sim_seq_group *groups, size_t n_groups);

/* Whether every attention layer of m reads its whole context (no sliding window, chunked local
 * attention or sparse top-k): then a decode's shape terms are linear in its context, and
 * sim_graph_shape_add_decodes may stand for a run of single decodes. */
bool sim_graph_decode_linear(const sim_model *m);

/* Adds n single decodes (q = 1, one logit each, count 1) whose contexts sum to c_sum tokens, as
 * sim_graph_shape adds them one by one, for a model with sim_graph_decode_linear: each adds 1
 * token, sequence, logit and decode token and c + 1 pairs and keys read. Bit-identical to the
 * one-by-one sums: every term is a whole number and every partial sum stays below 2^53 (a step
 * of 2^20 sequences of 2^26 tokens is 2^46), so each addition is exact and the order in which
 * they are made does not matter. */
void sim_graph_shape_add_decodes(sim_batch_shape *s, int64_t n, int64_t c_sum);

/* The most data-parallel attention groups a step is split over. */
#define SIM_GRAPH_DP_MAX 1024

/* Data-parallel attention over `dp` groups (2..SIM_GRAPH_DP_MAX): each group runs its own
 * sequences (sim_seq_group.rank) and the step waits for the slowest at every MoE layer's
 * all-to-all. Fills *busiest with the share of the group whose attention side costs most by the
 * linear weights w_ns[3] (ns per new token, per query-key pair, per cached token read: the
 * roofline terms that differ between groups; step.c derives them from the device) and returns
 * whether one was found (false: no group holds a sequence). */
bool sim_graph_shape_dp(const sim_model *m, const sim_seq_group *groups, size_t n_groups, int dp,
                        const double w_ns[3], sim_batch_shape *busiest);

/* Builds the op list for one step under tensor parallelism tp. Pure: no allocation. */
void sim_graph_build(const sim_model *m, int tp, const sim_prec *prec, const sim_seq_group *groups,
                     size_t n_groups, sim_graph *out);

/* The same from a shape. */
void sim_graph_build_shape(const sim_model *m, int tp, const sim_prec *prec,
                           const sim_batch_shape *s, sim_graph *out);

/* The same under any parallelism: the step's batch is the whole replica's (all DP ranks); ops
 * are those of the busiest GPU. */
void sim_graph_build_par(const sim_model *m, const sim_par *par, const sim_prec *prec,
                         const sim_batch_shape *s, sim_graph *out);

/* Only the MoE block of one layer (router, top-k, dispatch, permute, the grouped expert GEMMs and
 * their activation, unpermute, combine, shared expert) as sim_graph_build_par builds it; the
 * other ops are absent. For the validation of fused MoE kernels. */
void sim_graph_build_moe(const sim_model *m, const sim_par *par, const sim_prec *prec,
                         const sim_batch_shape *s, sim_graph *out);

/* Rebuilds only the ops that depend on the contexts (sim_op_info(id)->context: attention, and
 * MLA's up-projection of cached latents), so a step priced for the same tokens, sequences,
 * logits and decode tokens can reuse every other op. */
void sim_graph_rebuild_context(const sim_model *m, const sim_par *par, const sim_prec *prec,
                               const sim_batch_shape *s, sim_graph *g);

/* Whether op `id` runs in layer `layer` (0-based) of the step: dense MLP ops in the first
 * dense_layers, MoE ops in the rest; sliding-window attention in sliding_layers layers spread
 * evenly, full attention in the others. For timelines; the prices only need the counts. */
bool sim_graph_op_in_layer(const sim_graph *g, sim_op_id id, int64_t layer);

/* Fills `op` as a GEMM of `tokens` x k by k x n with weights stored as `weight`: FLOPs, weight
 * bytes, input (activation format) and 16-bit output bytes, compute format. For heads that are
 * not part of the layer graph (speculative-decoding heads). */
void sim_graph_gemm(sim_op *op, sim_op_id id, double tokens, int64_t n, int64_t k, sim_dtype weight,
                    const sim_prec *prec, double resid_bytes);

/* Folds the rotary embedding into the q/k norm before it (TensorRT-LLM's fusedQKNormRope, vLLM's
 * opt-in enable_qk_norm_rope_fusion): one kernel reads q and k, normalizes each head, rotates
 * it and writes it back, so rope has no launch and no pass over memory of its own; a graph
 * without qk_norm is unchanged.
 * Example (sim_graph *g):
 *     sim_graph_fuse_qk_norm_rope(g); // g->ops[SIM_OP_ROPE].fused: no launch, no bytes
 */
void sim_graph_fuse_qk_norm_rope(sim_graph *g);

/* Fuses a norm into the all-reduce before it (--fuse-allreduce-norm): the fused kernel adds the
 * residual and normalizes the reduced sum in registers, so the norm has no launch of its own and
 * does not read the all-reduce's output (T x d 16-bit values) back from HBM. */
void sim_graph_fuse_norm(sim_op *norm, double resid_bytes);

/* Fills `op` as an RMSNorm fused with the residual add over `tokens` x `hidden` values: reads the
 * input and the residual, writes both (the normed one in `out_bytes` per value), plus the weight.
 * For the validation of all-reduce + norm kernels. */
void sim_graph_norm(sim_op *op, sim_op_id id, double tokens, int64_t hidden, double resid_bytes,
                    double out_bytes);

/* Whether a GEMM with weights stored as `w` under `prec` dequantizes them in the kernel: the
 * weights are quantized and not in the format of the math (prec->act). */
bool sim_graph_mixed_input(const sim_prec *prec, sim_dtype w);

/* The kernel family of the experts under `prec`: `plain` for 16-bit weights, `mixed` for
 * mixed-input ones under 16-bit math (int4 / mxfp4 weights, bf16 activations), else `quantized`
 * (8- and 4-bit math). */
sim_moe_kernel sim_graph_moe_family(const sim_prec *prec, sim_moe_kernel plain,
                                    sim_moe_kernel quantized, sim_moe_kernel mixed);

/* Bytes per stored weight of format `w` under `prec`: the format's bytes (block scales
 * included) plus, for dequantized integer weights, the group scales and zero points. */
double sim_graph_weight_elem_bytes(const sim_prec *prec, sim_dtype w);

/* Fills `op` as the dynamic per-token quantization of a tokens x k 16-bit tensor (resid_bytes
 * per element) into prec->act: read it, write it quantized plus one fp32 scale per token.
 * Not present when prec->act is 16-bit. */
void sim_graph_act_quant(sim_op *op, double tokens, int64_t k, const sim_prec *prec,
                         double resid_bytes);

/* The input quantization of block-scaled fp8 GEMMs (DeepSeek-V3's and Qwen3-FP8's 128 x 128
 * weight blocks): each such linear layer quantizes its 16-bit input to fp8 with one scale per
 * 1 x 128 group in a kernel of its own before the GEMM (vLLM and SGLang apply_w8a8_block_fp8_linear:
 * per_token_group_quant_fp8, then the block GEMM). Each present block-scaled GEMM op of g gains
 * those kernels (sim_op.quant_kernels, in sim_op.kernels too) and their bytes (m x k read at
 * resid_bytes, written in 1 byte, an fp32 scale per 128): q_down 1 (MLA's fused q_a / kv_a
 * input, kv_down 0), kv_down 1 without a q_down, q_up 1, qkv_proj 1, gate_up_proj 1, down_proj 1,
 * shared_expert 2. o_proj's input is the graph's act_quant op already, and the Triton fused_moe's
 * quantization before each expert GEMM its own (graph_build.c: one of the op's two kernels,
 * quant_kernels 1); kv_up (MLA's absorbed W_UK / W_UV, run in 16 bits) and ops that are not
 * block-scaled gain nothing.
 * DeepSeek-V3 fp8 decode at one token: q_down's kernels 2 -> 3 (GEMM, latent norm, quantization),
 * its bytes + 7168 x (2 + 1) + 56 x 4 = 21,728.
 * Example (sim_graph *g):
 *   sim_graph_block_quant(g, 2.0); // a bf16 residual stream */
void sim_graph_block_quant(sim_graph *g, double resid_bytes);

/* For an engine that quantizes every GEMM input in kernels of its own (vLLM 0.5) instead of in
 * the norm and the activation before them: `op` (the graph's act_quant) becomes the quantization
 * of all four inputs of a dense GQA layer (qkv: K = hidden, o_proj: heads/tp x head_dim,
 * gate_up: hidden, down: intermediate/tp), each sim_graph_act_quant's bytes and FLOPs, launched
 * `kernels` times per input. MLA and MoE layers, and graphs without act_quant, are left as they
 * are (no engine profile unfuses them). */
void sim_graph_unfuse_act_quant(sim_op *op, const sim_model *m, int tp, const sim_prec *prec,
                                int64_t tokens, int kernels);

/* Parameters of one layer's attention block on each GPU at tensor parallelism tp (the
 * projections; MLA's replicated down-projections whole). */
double sim_graph_attn_params(const sim_model *m, int tp);

/* Weight bytes resident on each GPU (layers, embedding, LM head, norms). */
double sim_graph_weight_bytes_per_gpu(const sim_model *m, int tp, const sim_prec *prec);

/* The same under any parallelism (experts: E/ep whole ones, or a 1/tp slice of each). */
double sim_graph_weight_bytes_par(const sim_model *m, const sim_par *par, const sim_prec *prec);

/* KV-cache bytes one token occupies on each GPU (all layers, K and V; MLA: the latent and the
 * rope key, kv_lora_rank + qk_rope_head_dim values, on every TP rank). */
double sim_graph_kv_bytes_per_token(const sim_model *m, int tp, const sim_prec *prec);

/* The same under any parallelism: with data-parallel attention a token's KV lives in one DP
 * group, so the mean per GPU is the TP figure / dp. */
double sim_graph_kv_bytes_per_token_par(const sim_model *m, const sim_par *par,
                                        const sim_prec *prec);

/* graph_linear.c: the ops of a linear layer's mixer (linear_in_proj, linear_conv, linear_scan,
 * linear_norm, linear_out_proj) for the step's shape s (this GPU's share) under tensor
 * parallelism tp (heads split tp ways), activations of rb bytes, GEMM inputs of ab. The scan's
 * and the conv's state reads and writes are their kv_read_bytes and kv_write_bytes. */
void sim_graph_build_linear(const sim_model *m, int tp, const sim_prec *prec,
                            const sim_batch_shape *s, double rb, double ab, sim_graph *g);

/* Bytes of one sequence's state in one linear layer on each GPU: the conv state (K - 1) x
 * conv_dim / tp and the recurrent state lin_v_heads / tp x lin_k_dim x lin_v_dim, in the model's
 * 16-bit format (vLLM's mamba_cache_dtype and mamba_ssm_cache_dtype "auto"; vllm
 * model_executor/layers/mamba/mamba_utils.py, MambaStateShapeCalculator). Qwen3-Next at TP 1:
 * (3 x 8192 + 32 x 128 x 128) x 2 = 1,097,728 B. */
double sim_graph_linear_state_bytes(const sim_model *m, int tp, const sim_prec *prec);

/* Parameters of one linear layer's mixer on each GPU stored in the weight format (in_proj and
 * out_proj split by heads), and its 16-bit extras per GPU (conv weights and bias, per-head
 * scalars, the gated norm), in bytes of rb. */
double sim_graph_linear_core_params(const sim_model *m, int tp);
double sim_graph_linear_extra_bytes(const sim_model *m, int tp, double rb);

/* graph_dsa.c: DeepSeek Sparse Attention's lightning indexer for the step's shape s (this GPU's
 * share): indexer_proj (wq_b over the query latent in the weight format, the 16-bit wk +
 * weights_proj over the hidden state, replicated on every TP rank as vLLM's Indexer is) and
 * indexer (the scores of every query against every cached key, 2 heads x dim FLOPs a pair, in
 * fp8 when the step's GEMMs are, the fp8 key cache read, the fp32 logits written and read by the
 * top-k, the new keys written). Absent without DSA. */
void sim_graph_build_indexer(const sim_model *m, const sim_prec *prec, const sim_batch_shape *s,
                             double rb, sim_graph *g);

/* Bytes one token's indexer key takes in one layer's cache: index_head_dim fp8 values and an
 * fp32 scale per 128 (vLLM's DeepseekV32IndexerCache: 128 + 4 = 132); 0 without DSA. */
double sim_graph_indexer_key_bytes(const sim_model *m);

/* graph_vision.c: the vision encoder's ops for the step's images (s->vis_*) under tensor
 * parallelism tp (heads, the MLP and the merger's first layer split tp ways, the patch embedding
 * replicated, two all-reduces a layer), every GEMM 16-bit in the residual format rb (engines keep
 * the tower unquantized), and their repeats. Absent without images. */
void sim_graph_build_vision(const sim_model *m, int tp, const sim_batch_shape *s, sim_dtype rdt,
                            sim_graph *g);

/* KV heads each GPU holds: ceil(kv_heads / tp). */
int64_t sim_graph_kv_heads_per_gpu(const sim_model *m, int tp);

/* FLOPs of attention over `pairs` query-key pairs of `heads` query heads (heads may count
 * sequences x heads): QK^T over qk_dim and PV over v_dim, 2 FLOPs per multiply-add,
 * 2 heads (qk_dim + v_dim) pairs. GQA and MHA: qk_dim = v_dim = head_dim (4 heads head_dim a
 * pair); MLA absorbed (decode): kv_lora_rank + rope and kv_lora_rank; MLA expanded (prefill):
 * nope + rope and v_head_dim.
 * Example:
 *     double f = sim_graph_attention_flops(32.0, 128.0, 128.0, 1000.0); // 16,384,000
 *     (void)f;
 */
double sim_graph_attention_flops(double heads, double qk_dim, double v_dim, double pairs);

/* Query-key pairs a causal attention over q new tokens after c cached ones computes, with an
 * optional sliding window (0 = none): sum over j < q of min(c + j + 1, window). */
double sim_graph_attn_pairs(int64_t q, int64_t c, int64_t window);

/* The same for chunked local attention (Llama 4's iRoPE layers): token p attends to the
 * (p mod chunk) + 1 keys of its aligned chunk of `chunk` (>= 1) tokens. Example: q 4, c 6,
 * chunk 8: tokens 6, 7 see 7 and 8 keys, tokens 8, 9 see 1 and 2: 18 pairs. */
double sim_graph_chunk_pairs(int64_t q, int64_t c, int64_t chunk);

#endif
