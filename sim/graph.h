/* graph.h - the operators one forward step runs, per GPU, with their FLOPs and bytes.
 *
 * A step is a batch of sequence groups: `count` sequences, each with q new tokens over c cached
 * tokens, of which `logits` tokens per sequence need logits (prefill: q = prompt, c = 0,
 * logits = 1; decode: q = 1, c = context so far, logits = 1; a speculative verify: q = K+1,
 * logits = K+1; a non-final prefill chunk: logits = 0).
 *
 *   sim_seq_group g = {.count = 32, .q = 1, .c = 2048, .logits = 1};
 *   sim_graph gr;
 *   sim_graph_build(&model, tp, &prec, &g, 1, &gr);
 *   gr.ops[SIM_OP_ATTENTION].flops  // FLOPs of one layer's attention on one GPU
 *
 * Per-layer ops (sim_op_info(id)->per_layer) describe ONE layer; a step runs them
 * model->layers times. Everything is per GPU under tensor parallelism of degree tp:
 *   - query heads and MLP width are split tp ways; KV heads are split too, but when
 *     num_key_value_heads < tp they are replicated: per-GPU KV heads = ceil(h_kv / tp);
 *   - two all-reduces per layer of T x d activations (after o_proj and after down_proj), one after
 *     the vocab-parallel embedding, and a gather of the logits;
 *   - the LM head runs only on the tokens that need logits.
 * Attention is a fused (Flash) kernel: reads Q, K, V once and writes O once, never the scores.
 * Prefill attention is causal (about half the FLOPs of full attention).
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

#include "coll.h"
#include "dtype.h"
#include "model.h"
#include "status.h"

typedef enum sim_op_id {
    SIM_OP_EMBED,
    SIM_OP_ATTN_NORM,
    SIM_OP_QKV_PROJ,
    SIM_OP_ROPE,
    SIM_OP_ATTENTION,
    SIM_OP_ACT_QUANT,
    SIM_OP_O_PROJ,
    SIM_OP_ATTN_ALLREDUCE,
    SIM_OP_MLP_NORM,
    SIM_OP_GATE_UP_PROJ,
    SIM_OP_ACT,
    SIM_OP_DOWN_PROJ,
    SIM_OP_MLP_ALLREDUCE,
    SIM_OP_FINAL_NORM,
    SIM_OP_LM_HEAD,
    SIM_OP_LOGITS_GATHER,
    SIM_OP_SAMPLING,
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
    bool per_layer; /* runs once per transformer layer (else once per step) */
    int kernels;    /* kernel launches it takes (attention: cache write + attention) */
} sim_op_meta;

/* Precision of a run. */
typedef struct sim_prec {
    sim_dtype weight;   /* transformer-layer weights */
    sim_dtype act;      /* GEMM input activations */
    sim_dtype kv;       /* KV cache */
    int64_t group_size; /* weights per scale of dequantized integer weights (0: per channel) */
    bool zero_point;    /* those groups carry a zero point too (AWQ, asymmetric GPTQ) */
} sim_prec;

/* A group of identical sequences in one step. */
typedef struct sim_seq_group {
    int64_t count;  /* sequences */
    int64_t q;      /* new tokens per sequence this step (>= 1) */
    int64_t c;      /* cached tokens per sequence before this step */
    int64_t logits; /* tokens per sequence that need logits (0..q) */
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
    bool weight_only;      /* mixed-input GEMM: dequantizes its weights to the compute format
                            * (W4A16, W8A16, W4A8) */
} sim_op;

typedef struct sim_graph {
    sim_op ops[SIM_OP_COUNT]; /* indexed by sim_op_id */
    int64_t layers;           /* per-layer ops run this many times */
    int64_t tokens;           /* T: new tokens in the step */
    int64_t seqs;             /* sequences in the step */
    int64_t logit_tokens;     /* tokens that need logits */
} sim_graph;

/* Name, kind, scope and kernel count of an op. */
const sim_op_meta *sim_op_info(sim_op_id id);

/* Total bytes an op moves through HBM. */
double sim_op_bytes(const sim_op *op);

/* Checks that the model can run at tensor parallelism tp (heads, KV heads and MLP width divide),
 * and that the precision combination is meaningful. Errors name the flag and the value. */
sim_status sim_graph_check(const sim_model *m, int tp, const sim_prec *prec, sim_err *err);

/* The 16-bit format of the residual stream: prec->act when 16-bit, else the model's format. */
sim_dtype sim_graph_resid_dtype(const sim_model *m, const sim_prec *prec);

/* The format whose tensor peak prices the weight GEMMs: the activation format (full
 * quantization with fp8/int8 activations, or plain 16-bit). */
sim_dtype sim_graph_gemm_dtype(const sim_prec *prec);

/* A step's batch, summed over its groups: all the op list depends on. */
typedef struct sim_batch_shape {
    double tokens, seqs, logits; /* new tokens, sequences, tokens needing logits */
    double pairs;                /* query-key pairs attention computes */
    double kv_tokens;            /* cached + new tokens whose K and V attention reads */
} sim_batch_shape;

/* Sums the groups (those with count 0 are ignored). */
sim_batch_shape sim_graph_shape(const sim_model *m, const sim_seq_group *groups, size_t n_groups);

/* Builds the op list for one step. Pure: no allocation. */
void sim_graph_build(const sim_model *m, int tp, const sim_prec *prec, const sim_seq_group *groups,
                     size_t n_groups, sim_graph *out);

/* The same from a shape. */
void sim_graph_build_shape(const sim_model *m, int tp, const sim_prec *prec,
                           const sim_batch_shape *s, sim_graph *out);

/* Rebuilds only the attention op for a shape: the one op that depends on more than the tokens,
 * sequences and logits (so a step priced for the same three can reuse every other op). */
void sim_graph_attention(const sim_model *m, int tp, const sim_prec *prec, const sim_batch_shape *s,
                         sim_op *op);

/* Fills `op` as a GEMM of `tokens` x k by k x n with weights stored as `weight`: FLOPs, weight
 * bytes, input (activation format) and 16-bit output bytes, compute format. For heads that are
 * not part of the layer graph (speculative-decoding heads). */
void sim_graph_gemm(sim_op *op, sim_op_id id, double tokens, int64_t n, int64_t k, sim_dtype weight,
                    const sim_prec *prec, double resid_bytes);

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

/* Bytes per stored weight of format `w` under `prec`: the format's bytes (block scales
 * included) plus, for dequantized integer weights, the group scales and zero points. */
double sim_graph_weight_elem_bytes(const sim_prec *prec, sim_dtype w);

/* Fills `op` as the dynamic per-token quantization of a tokens x k 16-bit tensor (resid_bytes
 * per element) into prec->act: read it, write it quantized plus one fp32 scale per token.
 * Not present when prec->act is 16-bit. */
void sim_graph_act_quant(sim_op *op, double tokens, int64_t k, const sim_prec *prec,
                         double resid_bytes);

/* Weight bytes resident on each GPU (layers, embedding, LM head, norms). */
double sim_graph_weight_bytes_per_gpu(const sim_model *m, int tp, const sim_prec *prec);

/* KV-cache bytes one token occupies on each GPU (all layers, K and V). */
double sim_graph_kv_bytes_per_token(const sim_model *m, int tp, const sim_prec *prec);

/* KV heads each GPU holds: ceil(kv_heads / tp). */
int64_t sim_graph_kv_heads_per_gpu(const sim_model *m, int tp);

/* Query-key pairs a causal attention over q new tokens after c cached ones computes, with an
 * optional sliding window (0 = none): sum over j < q of min(c + j + 1, window). */
double sim_graph_attn_pairs(int64_t q, int64_t c, int64_t window);

#endif
