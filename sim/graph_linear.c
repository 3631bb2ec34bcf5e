/* graph_linear.c - the mixer of a linear-attention / state-space layer (Qwen3-Next's Gated
 * DeltaNet, Nemotron-H's Mamba-2) per GPU: its ops' FLOPs and bytes, its weights and its state
 * per sequence (declared in graph.h).
 *
 * Per GPU under TP (heads split tp ways, as vLLM's Qwen3NextGatedDeltaNet and MambaMixer2 shard
 * them): hk = lin_k_heads / tp q/k heads (GDN) or B/C groups (Mamba-2) of dk = lin_k_dim,
 * hv = lin_v_heads / tp v heads of dv = lin_v_dim, conv = 2 hk dk + hv dv channels, vd = hv dv.
 *
 * Recurrent update (decode; groups of <= SIM_GRAPH_ABSORB_MAX_Q new tokens, which vLLM runs with
 * the fused recurrent / selective-state-update kernels), per token per head, FLOPs:
 *   GDN      S <- a S (dk dv), r = S^T k (2 dk dv), S <- S + k (b (v - r))^T (2 dk dv),
 *            o = S^T q (2 dk dv): 7 dk dv
 *   Mamba-2  h <- exp(dt A) h (dk dv), h <- h + dt x B^T (2 dk dv), y = h C (2 dk dv): 5 dk dv
 * and each sequence's state (hv dk dv) read once and written once: the kernel keeps it in
 * registers over the group's tokens.
 *
 * Chunked scan (prefill), chunks of C tokens, per token per head, FLOPs (2 per multiply-add):
 *   GDN (FLA's chunk_gated_delta_rule: kkt, the triangular solve, w/u, the state pass, the
 *   output): A = beta K K^T (2 C dk), its inverse (2/3 C^2 per chunk: C^3 / 3 multiply-adds),
 *   w = A beta K (2 C dk), u = A beta V (2 C dv), v' = u - w S and S <- S + K^T v' (4 dk dv),
 *   o = Q S + (Q K^T . M) v' (2 dk dv + 2 C dk + 2 C dv):
 *            6 dk dv + C (6 dk + 4 dv) + 2 C^2 / 3
 *   Mamba-2 (SSD, mamba_chunk_scan_combined: chunk states, state passing, the diagonal blocks,
 *   the off-diagonal output): B^T x (2 dk dv), y_off = C h (2 dk dv), C B^T per group shared by
 *   hv / hk heads (2 C dk hk / hv), (L . C B^T) x (2 C dv), the state pass per chunk (2 dk dv / C):
 *            4 dk dv + 2 C dv + 2 C dk hk / hv + 2 dk dv / C
 * Qwen3-Next (dk = dv = 128, C = 64): 98,304 + 81,920 + 2,731 = 182,955 FLOPs per token and head.
 * Bytes: the inputs (conv + per-head scalars) and the output (vd) per token, the intra-chunk
 * matrix (GDN: A, C values per token and head; Mamba-2: C B^T, C per token and group) written and
 * read, the chunk states (GDN: written and read once in the 16-bit format, FLA's h; Mamba-2:
 * chunk_state writes fp32 states, state_passing reads and rewrites them, chunk_scan reads them:
 * four fp32 passes), and each sequence's cached state read and written once. A sequence's last
 * partial chunk counts as a whole one (chunks = prefill tokens / C + prefill sequences).
 */
#include "graph.h"

#define LIN_NORM_FLOPS 4.0 /* RMSNorm: square, sum, rsqrt scale, weight */
#define LIN_SILU_FLOPS 4.0 /* exp, add, divide, multiply */
#define LIN_FP32 4.0
#define GDN_REC_FLOPS 7.0
#define MAMBA_REC_FLOPS 5.0
/* kernels per step: GDN prefill chunk_local_cumsum, chunk_scaled_dot_kkt, solve_tril,
 * recompute_w_u, chunk_fwd_h, chunk_fwd_o (FLA); Mamba-2 prefill chunk_cumsum, chunk_state,
 * state_passing, bmm_chunk, chunk_scan; decode one fused recurrent / selective_state_update; GDN's
 * fused_gdn_gating (the decay and beta from a, b) in both */
#define GDN_PREFILL_KERNELS 6
#define MAMBA_PREFILL_KERNELS 5

typedef struct lin_dims {
    double hk, hv, dk, dv, conv, vd, scal, C;
    bool gdn;
} lin_dims;

static lin_dims dims(const sim_model *m, int tp)
{
    lin_dims x;
    x.gdn = m->linear_kind == SIM_LINEAR_GDN;
    x.hk = (double)(m->lin_k_heads / tp);
    x.hv = (double)(m->lin_v_heads / tp);
    x.dk = (double)m->lin_k_dim;
    x.dv = (double)m->lin_v_dim;
    x.conv = 2.0 * x.hk * x.dk + x.hv * x.dv;
    x.vd = x.hv * x.dv;
    x.scal = (x.gdn ? 2.0 : 1.0) * x.hv; /* GDN: beta and a; Mamba-2: dt */
    x.C = (double)(m->lin_chunk > 0 ? m->lin_chunk : 1);
    return x;
}

double sim_graph_linear_state_bytes(const sim_model *m, int tp, const sim_prec *prec)
{
    if (m->linear_layers == 0)
        return 0.0;
    const lin_dims x = dims(m, tp);
    const double sb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));
    return ((double)(m->lin_conv_kernel - 1) * x.conv + x.hv * x.dk * x.dv) * sb;
}

double sim_graph_linear_core_params(const sim_model *m, int tp)
{
    if (m->linear_layers == 0)
        return 0.0;
    const lin_dims x = dims(m, tp);
    const double d = (double)m->hidden;
    return d * (x.conv + x.vd + x.scal) + x.vd * d;
}

double sim_graph_linear_extra_bytes(const sim_model *m, int tp, double rb)
{
    if (m->linear_layers == 0)
        return 0.0;
    const lin_dims x = dims(m, tp);
    const double conv = x.conv * (double)m->lin_conv_kernel + (m->lin_conv_bias ? x.conv : 0.0);
    const double scalars = (x.gdn ? 2.0 : 3.0) * x.hv; /* dt_bias, A_log (+ D) */
    return (conv + scalars + (x.gdn ? x.dv : x.vd)) * rb;
}

/* A GEMM of t x k by k x n, as graph_build.c's: input in the activation format, 16-bit out. */
static void lin_gemm(sim_op *op, double t, double n, double k, const sim_prec *prec, double rb)
{
    op->m = (int64_t)t;
    op->n = (int64_t)n;
    op->k = (int64_t)k;
    op->flops = 2.0 * t * n * k;
    op->weight_bytes = n * k * sim_graph_weight_elem_bytes(prec, prec->weight);
    op->act_bytes = t * k * sim_dtype_bytes(prec->act) + t * n * rb;
    op->weight = prec->weight;
    op->compute = prec->act;
    op->weight_only = sim_graph_mixed_input(prec, prec->weight);
}

/* The scan's FLOPs per prefill token and head (the chunked forms above). */
static double chunk_flops(const lin_dims *x)
{
    const double C = x->C;
    if (x->gdn)
        return 6.0 * x->dk * x->dv + C * (6.0 * x->dk + 4.0 * x->dv) + 2.0 * C * C / 3.0;
    return 4.0 * x->dk * x->dv + 2.0 * C * x->dv + 2.0 * C * x->dk * x->hk / x->hv +
           2.0 * x->dk * x->dv / C;
}

static void build_scan(const lin_dims *x, const sim_batch_shape *s, double rb, double sb,
                       sim_op *op)
{
    const double dec_t = s->dec_tokens, pre_t = s->tokens - s->dec_tokens;
    const double pre_seqs = s->seqs - s->dec_seqs;
    const double state = x->hv * x->dk * x->dv; /* one sequence's recurrent state, values */
    const double rec = x->gdn ? GDN_REC_FLOPS : MAMBA_REC_FLOPS;
    op->flops = dec_t * x->hv * rec * x->dk * x->dv + pre_t * x->hv * chunk_flops(x);
    /* inputs (conv channels, the per-head scalars) and the output, every token */
    op->act_bytes = s->tokens * (x->conv + x->scal + x->vd) * rb;
    if (pre_t > 0.0) {
        const double chunks = pre_t / x->C + pre_seqs;
        const double intra = 2.0 * pre_t * (x->gdn ? x->hv : x->hk) * x->C * rb;
        const double passes = x->gdn ? 2.0 * rb : 4.0 * LIN_FP32;
        op->act_bytes += intra + chunks * state * passes;
        if (x->gdn) /* w and u written by recompute_w_u, read by the state pass */
            op->act_bytes += 2.0 * pre_t * x->hv * (x->dk + x->dv) * rb;
    }
    op->kv_read_bytes = s->seqs * state * sb;
    op->kv_write_bytes = s->seqs * state * sb;
    /* a speculative verify: GDN's recurrent kernel stores the state after every token, into the
     * token's own slot, until the acceptance picks one (vLLM fla/ops/fused_recurrent.py, "keep
     * the states for multi-query tokens"; the next step reads slot num_accepted_tokens - 1) */
    if (x->gdn)
        op->kv_write_bytes += s->verify_extra * state * sb;
    op->kernels = (pre_t > 0.0 ? (x->gdn ? GDN_PREFILL_KERNELS : MAMBA_PREFILL_KERNELS) : 0) +
                  (dec_t > 0.0 ? 1 : 0) + (x->gdn ? 1 : 0);
}

void sim_graph_build_linear(const sim_model *m, int tp, const sim_prec *prec,
                            const sim_batch_shape *s, double rb, double ab, sim_graph *g)
{
    const lin_dims x = dims(m, tp);
    const double t = s->tokens, d = (double)m->hidden;
    const double sb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));

    sim_op *op = &g->ops[SIM_OP_LINEAR_IN_PROJ];
    lin_gemm(op, t, x.conv + x.vd + x.scal, d, prec, rb);
    op->kernels = x.gdn ? 2 : 1; /* GDN: in_proj_qkvz and in_proj_ba */

    /* causal_conv1d: K multiply-adds and a SiLU per channel and token; each sequence's conv state
     * ((K - 1) x conv) read and written */
    op = &g->ops[SIM_OP_LINEAR_CONV];
    const double K = (double)m->lin_conv_kernel;
    op->flops = t * x.conv * (2.0 * K + LIN_SILU_FLOPS);
    op->act_bytes = 2.0 * t * x.conv * rb;
    op->weight_bytes = (x.conv * K + (m->lin_conv_bias ? x.conv : 0.0)) * rb;
    op->kv_read_bytes = s->seqs * (K - 1.0) * x.conv * sb;
    op->kv_write_bytes = op->kv_read_bytes;

    op = &g->ops[SIM_OP_LINEAR_SCAN];
    build_scan(&x, s, rb, sb, op);
    op->compute = sim_graph_resid_dtype(m, prec);

    /* gated RMSNorm (RMSNormGated): norm(o) x SiLU(z), written in the GEMM-input format */
    op = &g->ops[SIM_OP_LINEAR_NORM];
    op->flops = t * x.vd * (LIN_NORM_FLOPS + LIN_SILU_FLOPS + 1.0);
    op->act_bytes = 2.0 * t * x.vd * rb + t * x.vd * ab;
    op->weight_bytes = (x.gdn ? x.dv : x.vd) * rb;

    lin_gemm(&g->ops[SIM_OP_LINEAR_OUT_PROJ], t, d, x.vd, prec, rb);
}
