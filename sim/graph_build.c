/* graph_build.c - the operators of one forward step per GPU: each op's FLOPs and bytes, layer by
 * layer (dense and MoE MLPs, GQA and MLA attention, collectives), and the step's edges. */
#include "graph.h"
#include "graph_internal.h"

#include <math.h>
#include <string.h>

#include "collective.h"

/* Vector FLOPs per element: RMSNorm's NORM_FLOPS (graph_internal.h), rotary embedding (two
 * multiplies and an add per element), SiLU(gate) * up (exp, add, divide, multiply, multiply),
 * sampling (scale, exp, sum, compare). */
#define ROPE_FLOPS 3.0
#define ACT_FLOPS 5.0
#define SAMPLE_FLOPS 4.0
#define QUANT_FLOPS 3.0 /* dynamic quantization: |x|, running max, scale and convert */
#define FP32_BYTES 4.0
#define DP_SYNC_BYTES 48.0 /* per rank: 6 int64 (tokens, logprob tokens, graph, extend, TBO, mode) */

void sim_graph_act_quant(sim_op *op, double tokens, int64_t k, const sim_prec *prec,
                         double resid_bytes)
{
    const double elems = tokens * (double)k;
    op->id = SIM_OP_ACT_QUANT;
    op->present = !sim_dtype_is_16bit(prec->act);
    op->flops = op->present ? QUANT_FLOPS * elems : 0.0;
    op->act_bytes = op->present
                        ? elems * (resid_bytes + sim_dtype_bytes(prec->act)) + tokens * FP32_BYTES
                        : 0.0;
}

void sim_graph_unfuse_act_quant(sim_op *op, const sim_model *m, int tp, const sim_prec *prec,
                                int64_t tokens, int kernels)
{
    if (kernels <= 0 || !op->present || m->mla || m->experts > 0)
        return;
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));
    const int64_t k[4] = {m->hidden, m->heads / tp * m->head_dim, m->hidden, m->intermediate / tp};
    sim_op sum = *op, one;
    sum.flops = sum.act_bytes = 0.0;
    for (int i = 0; i < 4; i++) {
        sim_graph_act_quant(&one, (double)tokens, k[i], prec, rb);
        sum.flops += one.flops;
        sum.act_bytes += one.act_bytes;
    }
    sum.kernels = 4 * kernels;
    *op = sum;
}

/* An all-reduce of `msg` bytes over tp GPUs. net_bytes is its bus bytes (a ring's per-GPU send,
 * 2(N-1)/N of it in 2(N-1) steps) whatever algorithm collective.h prices it with. */
static void allreduce(sim_op *op, double msg, int tp)
{
    op->present = tp > 1;
    if (!op->present)
        return;
    op->net_msg_bytes = msg;
    op->net_ranks = tp;
    op->net_kind = SIM_COLL_ALLREDUCE;
    op->net_hops = 2 * (tp - 1);
    op->net_bytes = sim_collective_bus_bytes(SIM_COLL_ALLREDUCE, msg, tp);
}

/* An all-gather of a `msg`-byte result over tp GPUs: bus bytes (N-1)/N of it. */
static void allgather(sim_op *op, double msg, int tp)
{
    op->present = tp > 1;
    if (!op->present)
        return;
    op->net_msg_bytes = msg;
    op->net_ranks = tp;
    op->net_kind = SIM_COLL_ALLGATHER;
    op->net_hops = tp - 1;
    op->net_bytes = sim_collective_bus_bytes(SIM_COLL_ALLGATHER, msg, tp);
}

/* Per-head RMSNorm of q and k (Qwen3's q_norm / k_norm): `heads` (q + kv) vectors of hd values per
 * token, read and written in place once, and the two hd-wide weights. */
static void qk_norm(sim_op *op, double t, double heads, double hd, double rb)
{
    op->flops = NORM_FLOPS * t * heads * hd;
    op->weight_bytes = 2.0 * hd * rb;
    op->act_bytes = 2.0 * t * heads * hd * rb;
}

void sim_graph_fuse_qk_norm_rope(sim_graph *g)
{
    sim_op *qk = &g->ops[SIM_OP_QK_NORM], *rope = &g->ops[SIM_OP_ROPE];
    if (!qk->present || !rope->present || rope->fused)
        return;
    qk->flops += rope->flops;
    qk->kernels = 1;
    rope->flops = rope->act_bytes = 0.0;
    rope->fused = true;
}

void sim_graph_fuse_norm(sim_op *op, double resid_bytes)
{
    if (op->fused)
        return;
    op->fused = true;
    op->act_bytes -= op->flops / NORM_FLOPS * resid_bytes; /* the T x d reduced values */
}

/* Fused GQA attention over `pairs` query-key pairs and `kv_tokens` cached + new keys: read Q and
 * the new K, V; write O; write the new K, V into the cache; read every cached K, V of each
 * sequence once. 2 FLOPs per multiply-add, QK^T and PV. */
static void gqa_attention(const sim_model *m, int tp, const sim_prec *prec, double t, double pairs,
                          double kv_tokens, sim_op *op)
{
    const double hd = (double)m->head_dim;
    const int64_t hq = m->heads / tp, hkv = sim_graph_kv_heads_per_gpu(m, tp);
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));
    const double kb = sim_dtype_bytes(prec->kv);
    op->flops = sim_graph_attention_flops((double)hq, hd, hd, pairs);
    op->act_bytes = t * (double)(2 * hq + 2 * hkv) * hd * rb;
    op->kv_write_bytes = t * 2.0 * (double)hkv * hd * kb;
    op->kv_read_bytes = kv_tokens * 2.0 * (double)hkv * hd * kb;
    op->attn_keys = t > 0.0 ? pairs / t : 0.0;
}

/* MLA attention per GPU (h = heads / tp query heads, one latent shared by all of them).
 *   absorbed (decode): queries already projected into the latent; QK^T over kv_lora + rope dims,
 *     PV over the kv_lora latent: 2 h (2 kv_lora + rope) FLOPs per pair; reads each sequence's
 *     cached latent once: kv_tokens x (kv_lora + rope) values, the same on every TP rank
 *   expanded (prefill): per-head K (nope + rope) and V (v) from kv_up: 2 h (nope + rope + v)
 *     FLOPs per pair; reads Q, the expanded K, V and writes O; the cached context's latent is
 *     read for the expansion
 * Every new token's latent is written to the cache. */
static void mla_attention(const sim_model *m, int tp, const sim_prec *prec,
                          const sim_batch_shape *s, sim_op *op)
{
    const double h = (double)(m->heads / tp), kvl = (double)m->kv_lora_rank;
    const double rope = (double)m->qk_rope_dim, nope = (double)m->qk_nope_dim;
    const double v = (double)m->v_head_dim, lat = kvl + rope;
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));
    const double kb = sim_dtype_bytes(prec->kv);
    const double tp_tok = s->tokens - s->dec_tokens, tp_kv = s->kv_tokens - s->dec_kv_tokens;
    const double tp_pairs = s->pairs - s->dec_pairs;
    op->flops = sim_graph_attention_flops(h, lat, kvl, s->dec_pairs) +
                sim_graph_attention_flops(h, nope + rope, v, tp_pairs);
    op->act_bytes = s->dec_tokens * h * (lat + kvl) * rb +
                    (tp_tok * h * (nope + rope + v) + tp_kv * h * (nope + rope + v)) * rb;
    op->kv_write_bytes = s->tokens * lat * kb;
    op->kv_read_bytes = (s->dec_kv_tokens + (tp_kv - tp_tok)) * lat * kb;
}

/* MLA's kv_b projection, kv_lora -> h x (nope + v) per GPU. Expanded (prefill): applied to every
 * cached and new latent of the prefill groups. Absorbed (decode): folded into the query (W_UK:
 * nope -> kv_lora per head) and the output (W_UV: kv_lora -> v per head), 2 h kv_lora (nope + v)
 * FLOPs per decode token. Each form present reads the weights once. */
static void mla_kv_up(const sim_model *m, int tp, const sim_prec *prec, const sim_batch_shape *s,
                      double rb, sim_op *op)
{
    const int64_t h = m->heads / tp, kvl = m->kv_lora_rank;
    const int64_t nv = m->qk_nope_dim + m->v_head_dim;
    const double tp_kv = s->kv_tokens - s->dec_kv_tokens;
    sim_op ab = {0}, ex = {0};
    if (s->dec_tokens > 0.0) {
        sim_graph_gemm_shape(&ab, s->dec_tokens, h * kvl, nv, prec->weight, prec, rb);
        ab.act_bytes = s->dec_tokens * (double)h * (double)(2 * kvl + nv) * rb;
    }
    if (tp_kv > 0.0)
        sim_graph_gemm_shape(&ex, tp_kv, h * nv, kvl, prec->weight, prec, rb);
    const sim_op *big = ex.flops >= ab.flops ? &ex : &ab;
    op->m = big->m;
    op->n = big->n;
    op->k = big->k;
    op->weight = prec->weight;
    op->compute = prec->act;
    op->weight_only = big->weight_only;
    op->flops = ab.flops + ex.flops;
    op->weight_bytes = ab.weight_bytes + ex.weight_bytes;
    op->act_bytes = ab.act_bytes + ex.act_bytes;
    op->present = op->flops > 0.0;
}

/* The attention-side share of the busiest data-parallel rank: its own sequences when the shape
 * names them, else the sequences spread evenly over dp. */
static sim_batch_shape dp_share(const sim_batch_shape *s, int dp)
{
    if (dp <= 1)
        return *s;
    if (s->busiest) /* the slowest group's own sequences (sim_graph_shape_dp) */
        return *s->busiest;
    sim_batch_shape r = *s;
    const double f = 1.0 / dp;
    r.tokens = ceil(s->tokens * f);
    r.seqs = ceil(s->seqs * f);
    r.logits = ceil(s->logits * f);
    r.pairs *= f;
    r.kv_tokens *= f;
    r.swa_pairs *= f;
    r.swa_kv_tokens *= f;
    r.dec_tokens = r.tokens * (s->tokens > 0.0 ? s->dec_tokens / s->tokens : 0.0);
    r.dec_pairs *= f;
    r.dec_kv_tokens *= f;
    r.dec_seqs = ceil(s->dec_seqs * f);
    r.verify_extra *= f;
    return r;
}

void sim_graph_rebuild_context(const sim_model *m, const sim_par *par, const sim_prec *prec,
                               const sim_batch_shape *s, sim_graph *g)
{
    const sim_batch_shape a = dp_share(s, sim_par_dp(par));
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));
    const int tp = par->tp;
    if (m->linear_layers > 0) { /* the linear layers' mixer: its conv and scan follow the mix */
        const sim_prec lp = sim_graph_linear_prec(m, prec);
        sim_graph_build_linear(m, tp, &lp, &a, rb, sim_dtype_bytes(sim_graph_gemm_dtype(&lp)), g);
    }
    if (m->mla) {
        const sim_prec lp = sim_graph_linear_prec(m, prec);
        sim_batch_shape sa = a;
        if (m->index_topk > 0) {
            /* DSA: vLLM's sparse MLA kernels (FlashMLA sparse) run prefill too in the absorbed
             * form, over each query's top-k keys (pairs and kv_tokens already capped) */
            sa.dec_tokens = sa.tokens;
            sa.dec_pairs = sa.pairs;
            sa.dec_kv_tokens = sa.kv_tokens;
            sa.dec_seqs = sa.seqs;
            sim_graph_build_indexer(m, &lp, &a, rb, g);
        }
        mla_attention(m, tp, prec, &sa, &g->ops[SIM_OP_ATTENTION]);
        mla_kv_up(m, tp, &lp, &sa, rb, &g->ops[SIM_OP_KV_UP]);
        g->ops[SIM_OP_KV_UP].present = g->repeats[SIM_OP_KV_UP] > 0 && g->ops[SIM_OP_KV_UP].present;
        /* its absorbed decode part, as MLA decode kernels tile it (dattn.h) */
        g->ops[SIM_OP_ATTENTION].dec = (sim_dattn_shape){
            .seqs = sa.dec_seqs,
            .ctx = sa.dec_seqs > 0.0 ? sa.dec_kv_tokens / sa.dec_seqs : 0.0,
            .q_heads = m->heads / tp,
            .kv_heads = 1,
            .head_dim = m->kv_lora_rank + m->qk_rope_dim,
            .kv_elem_bytes = sim_dtype_bytes(prec->kv),
            .v_dim = m->kv_lora_rank,
            .q_per_seq = sa.dec_seqs > 0.0 ? sa.dec_tokens / sa.dec_seqs : 0.0};
        return;
    }
    gqa_attention(m, tp, prec, a.tokens, a.pairs, a.kv_tokens, &g->ops[SIM_OP_ATTENTION]);
    /* its decode part, for the kernels that give a CTA one sequence's head (dattn.h) */
    g->ops[SIM_OP_ATTENTION].dec = (sim_dattn_shape){
        .seqs = a.dec_seqs,
        .ctx = a.dec_seqs > 0.0 ? a.dec_kv_tokens / a.dec_seqs : 0.0,
        .q_heads = m->heads / tp,
        .kv_heads = sim_graph_kv_heads_per_gpu(m, tp),
        .head_dim = m->head_dim,
        .kv_elem_bytes = sim_dtype_bytes(prec->kv)};
    if (g->repeats[SIM_OP_ATTENTION_SLIDING] > 0) {
        gqa_attention(m, tp, prec, a.tokens, a.swa_pairs, a.swa_kv_tokens,
                      &g->ops[SIM_OP_ATTENTION_SLIDING]);
        /* its scores' softmax (cost.h); no decode CTA bound (seqs 0) */
        g->ops[SIM_OP_ATTENTION_SLIDING].dec.head_dim = m->head_dim;
    }
}

/* Attention block of a GQA/MHA layer: norm, fused qkv, rope, attention (and the sliding one of a
 * mixed model), o_proj, all-reduce. */
static void build_attn_gqa(const sim_model *m, int tp, const sim_prec *prec,
                           const sim_batch_shape *s, double rb, sim_graph *g)
{
    const double t = s->tokens, d = (double)m->hidden, hd = (double)m->head_dim;
    const int64_t hq = m->heads / tp, hkv = sim_graph_kv_heads_per_gpu(m, tp);
    /* a gated attention's q_proj also yields the output gate (its sigmoid-and-multiply on the
     * attention output is left out: one pass over hq x hd values) */
    const int64_t qkv_n = ((m->attn_out_gate ? 2 : 1) * hq + 2 * hkv) * m->head_dim;

    sim_op *op = &g->ops[SIM_OP_QKV_PROJ];
    sim_graph_gemm_shape(op, t, qkv_n, m->hidden, prec->weight, prec, rb);
    if (m->qkv_bias) {
        op->weight_bytes += (double)qkv_n * rb;
        op->flops += t * (double)qkv_n;
    }
    if (m->qk_norm) /* q_norm and k_norm: one head_dim-wide RMSNorm per head (no residual) */
        qk_norm(&g->ops[SIM_OP_QK_NORM], t, (double)(hq + hkv), hd, rb);
    op = &g->ops[SIM_OP_ROPE];
    op->flops = ROPE_FLOPS * t * (double)(hq + hkv) * hd;
    op->act_bytes = 2.0 * t * (double)(hq + hkv) * hd * rb;
    /* the attention output, 16-bit, quantized per token for o_proj */
    sim_graph_act_quant(&g->ops[SIM_OP_ACT_QUANT], t, hq * m->head_dim, prec, rb);
    op = &g->ops[SIM_OP_O_PROJ];
    sim_graph_gemm_shape(op, t, m->hidden, hq * m->head_dim, prec->weight, prec, rb);
    if (m->o_bias) {
        op->weight_bytes += d * rb;
        op->flops += t * d;
    }
}

/* The RMSNorm MLA applies to a latent of `width` after its down-projection (a second kernel of
 * the op): its weights, and the latent read and written once more. Its few FLOPs per element are
 * left to the GEMM's compute (they would need the vector units' peak). */
static void mla_latent_norm(sim_op *op, double t, double width, double rb)
{
    op->weight_bytes += width * rb;
    op->act_bytes += 2.0 * t * width * rb;
}

/* Attention block of an MLA layer: q_down (replicated on every TP rank, as vLLM's
 * ReplicatedLinear), q_up (split by heads), kv_down (replicated), rope on the query's and the
 * shared key's rope dims, o_proj. kv_up and attention depend on the contexts. */
static void build_attn_mla(const sim_model *m, int tp, const sim_prec *prec,
                           const sim_batch_shape *s, double rb, sim_graph *g)
{
    const double t = s->tokens;
    const int64_t h = m->heads / tp, qk = m->qk_nope_dim + m->qk_rope_dim;
    const int64_t q_in = m->q_lora_rank > 0 ? m->q_lora_rank : m->hidden;
    const double ql = (double)m->q_lora_rank, kvl = (double)m->kv_lora_rank;
    sim_op *op = &g->ops[SIM_OP_Q_DOWN];
    if (m->q_lora_rank > 0) {
        sim_graph_gemm_shape(op, t, m->q_lora_rank, m->hidden, prec->weight, prec, rb);
        mla_latent_norm(op, t, ql, rb);
    }
    sim_graph_gemm_shape(&g->ops[SIM_OP_Q_UP], t, h * qk, q_in, prec->weight, prec, rb);
    op = &g->ops[SIM_OP_KV_DOWN];
    sim_graph_gemm_shape(op, t, m->kv_lora_rank + m->qk_rope_dim, m->hidden, prec->weight, prec,
                         rb);
    mla_latent_norm(op, t, kvl, rb);
    op = &g->ops[SIM_OP_ROPE];
    op->flops = ROPE_FLOPS * t * (double)(h + 1) * (double)m->qk_rope_dim;
    op->act_bytes = 2.0 * t * (double)(h + 1) * (double)m->qk_rope_dim * rb;
    sim_graph_act_quant(&g->ops[SIM_OP_ACT_QUANT], t, h * m->v_head_dim, prec, rb);
    sim_graph_gemm_shape(&g->ops[SIM_OP_O_PROJ], t, m->hidden, h * m->v_head_dim, prec->weight,
                         prec, rb);
}

/* The dense gated MLP (every layer of a dense model, the dense layers of a MoE one). */
static void build_mlp_dense(const sim_model *m, int tp, const sim_prec *prec, double t, double rb,
                            double ab, sim_graph *g)
{
    const int64_t f = m->intermediate / tp;
    if (m->mlp_ungated) { /* up -> relu2 (max and square: 2 FLOPs) -> down (Nemotron-H) */
        sim_graph_gemm_shape(&g->ops[SIM_OP_GATE_UP_PROJ], t, f, m->hidden, prec->weight, prec, rb);
        sim_op *act = &g->ops[SIM_OP_ACT];
        act->flops = 2.0 * t * (double)f;
        act->act_bytes = t * (double)f * rb + t * (double)f * ab;
        sim_graph_gemm_shape(&g->ops[SIM_OP_DOWN_PROJ], t, m->hidden, f, prec->weight, prec, rb);
        return;
    }
    sim_graph_gemm_shape(&g->ops[SIM_OP_GATE_UP_PROJ], t, 2 * f, m->hidden, prec->weight, prec, rb);
    sim_op *op = &g->ops[SIM_OP_ACT];
    op->flops = ACT_FLOPS * t * (double)f;
    op->act_bytes = t * 2.0 * (double)f * rb + t * (double)f * ab;
    sim_graph_gemm_shape(&g->ops[SIM_OP_DOWN_PROJ], t, m->hidden, f, prec->weight, prec, rb);
}

/* An all-to-all over `ranks` GPUs of `rows` rows of `row_bytes` on the busiest rank: it keeps
 * 1/ranks of them and sends (receives) the rest. `a2a` is what each rank sends as DeepEP's kernels
 * count it (a2a.h, which prices it); decode-only steps run the low-latency mode, others the
 * normal one (the step applies the run's --moe-a2a). */
static void all_to_all(sim_op *op, double rows, double row_bytes, const sim_a2a_shape *a2a,
                       bool low_latency)
{
    const int ranks = a2a->ranks;
    op->present = ranks > 1 && rows > 0.0;
    if (!op->present)
        return;
    op->net_msg_bytes = rows * row_bytes;
    op->net_ranks = ranks;
    op->net_kind = SIM_COLL_ALLTOALL;
    op->net_hops = low_latency ? 1 : ranks - 1;
    op->net_bytes = sim_collective_bus_bytes(SIM_COLL_ALLTOALL, rows * row_bytes, ranks);
    op->a2a = *a2a;
    op->a2a_mode = low_latency ? SIM_A2A_LOW_LATENCY : SIM_A2A_NORMAL;
}

/* Bytes of one token of `d` values sent in a format of `eb` bytes per value: 8-bit formats carry
 * one fp32 scale per 128 values (DeepEP's fp8 dispatch, as DeepGEMM's block-scaled input). */
static double token_bytes(double d, double eb) { return d * eb + (eb < 2.0 ? d / 128.0 * 4.0 : 0.0); }

/* The MoE block of one layer on the busiest GPU. T global tokens (every DP rank's), t_attn the
 * attention-side tokens of this GPU. Tensor-parallel experts (ep 1): every GPU holds a 1/tp
 * slice of all E experts and runs all T k routed rows. Expert parallelism: (E + redundant)/ep
 * whole experts per GPU; the busiest rank's rows, experts touched and M blocks come from the
 * routing (moe.h: sim_moe_load_compute; a fixed --expert-imbalance scales the mean instead);
 * their tokens all-to-all'ed in (fp8 under W8A8, as DeepEP dispatches) and the outputs back in
 * 16 bits. */
static void build_moe(const sim_model *m, const sim_par *par, const sim_prec *prec,
                      const sim_batch_shape *s, double t_attn, double rb, double ab, sim_graph *g)
{
    const double T = s->tokens, d = (double)m->hidden, e = (double)m->experts;
    const double k = (double)m->experts_per_tok;
    const double wb = sim_graph_weight_elem_bytes(prec, prec->weight);
    const bool ep = par->ep > 1, tp_moe = sim_par_tp_moe(par);
    const sim_par_experts sl = sim_par_moe_slice(m, par);
    const int64_t f = sl.intermediate;
    sim_moe_step_load ld;
    sim_moe_step_load_of(&par->routing, m->experts, m->experts_per_tok, ep ? par->ep : 1, T,
                         ep ? par->imbalance : 0.0, par->moe_cache, &ld);
    const double rows = ld.rows, touched = ld.touched;
    const sim_dtype rdt = sim_graph_resid_dtype(m, prec);
    const sim_prec p16 = {.weight = rdt, .act = rdt, .kv = prec->kv};
    const bool low_latency = s->dec_tokens >= s->tokens;
    const sim_moe_kernel fam = sim_graph_moe_family(prec, par->moe_kernel,
                                                    par->moe_kernel_quantized,
                                                    par->moe_kernel_mixed);

    /* router: replicated d x E gate in 16 bits over this GPU's tokens; then its top-k kernel
     * reading the fp32 scores, writing k expert ids (int32) and weights (fp32) per token. DP
     * attention with TP-split MoE: every GPU runs the MoE layer on all T tokens */
    double t_route = ep ? ceil(T / par->ep) : tp_moe ? T : t_attn;
    sim_op *op = &g->ops[SIM_OP_ROUTER];
    sim_graph_gemm_shape(op, t_route, m->experts, m->hidden, rdt, &p16, rb);
    if (m->moe_bias)
        op->weight_bytes += e * rb;
    op = &g->ops[SIM_OP_MOE_TOPK];
    op->flops = t_route * e * SAMPLE_FLOPS;
    op->act_bytes = t_route * e * FP32_BYTES + t_route * k * 2.0 * FP32_BYTES;

    /* DeepEP's dispatch and combine (a2a.h): this rank's tokens, the busiest rank's load from
     * the routing */
    sim_a2a_shape a2a = {.tokens = t_route,
                         .topk = k,
                         .experts = e,
                         .token_bytes = token_bytes(d, ab),
                         .ranks = ep ? par->ep : 1,
                         .imbalance = ep ? ld.imbalance : 1.0};
    /* node-limited routing (the config's n_group / topk_group): with the experts on the ranks
     * by id a group's experts sit on consecutive ranks, so a token reaches the ranks and domains
     * of its topk_group groups only; EPLB's redundant copies are placed by load, not by group,
     * so they lift the limit */
    if (par->routing.redundant == 0) {
        a2a.route_groups = (int)m->route_groups;
        a2a.route_topk_groups = (int)m->route_topk_groups;
    }
    all_to_all(&g->ops[SIM_OP_MOE_DISPATCH], rows, d * ab, &a2a, low_latency);
    a2a.token_bytes = token_bytes(d, rb);
    all_to_all(&g->ops[SIM_OP_MOE_COMBINE], rows, d * rb, &a2a, low_latency);
    if (tp_moe) { /* the groups' 16-bit hidden states gathered, the outputs reduce-scattered */
        const int n = sim_par_moe_tp(par);
        allgather(&g->ops[SIM_OP_MOE_DISPATCH], T * d * rb, n);
        op = &g->ops[SIM_OP_MOE_COMBINE];
        allgather(op, T * d * rb, n);
        op->net_kind = SIM_COLL_REDUCE_SCATTER;
    }

    /* permute: the rows sorted by expert. Triton's fused_moe only sorts the ids
     * (moe_align_block_size) and gathers rows inside the GEMM; DeepGEMM, CUTLASS and CK copy
     * the rows into each expert's segment first. Unpermute: each token's k outputs weighted and
     * summed (moe_sum, finalizeMoeRouting). */
    op = &g->ops[SIM_OP_MOE_PERMUTE];
    op->act_bytes = rows * 2.0 * FP32_BYTES;
    if (!sim_moe_gathers_rows(fam))
        op->act_bytes += 2.0 * rows * d * ab;
    op = &g->ops[SIM_OP_MOE_UNPERMUTE];
    op->flops = 2.0 * rows * d;
    op->act_bytes = rows * d * rb + rows / k * d * rb;

    /* grouped GEMMs: FLOPs of the routed rows, weights of the touched experts, the M blocks
     * each kernel family pads the experts' rows to */
    const double *blocks = ld.blocks;
    static const sim_op_id grouped[2] = {SIM_OP_EXPERTS_GATE_UP, SIM_OP_EXPERTS_DOWN};
    for (int i = 0; i < 2; i++) {
        op = &g->ops[grouped[i]];
        bool up = grouped[i] == SIM_OP_EXPERTS_GATE_UP;
        sim_graph_gemm_shape(op, rows, up ? 2 * f : m->hidden, up ? m->hidden : f, prec->weight,
                             prec, rb);
        op->m = (int64_t)ceil(rows - 1e-9);
        op->groups = touched;
        op->weight_bytes = touched * (up ? 2.0 : 1.0) * (double)f * d * wb +
                           (m->moe_bias ? touched * (up ? 2.0 * (double)f : d) * rb : 0.0);
        op->moe_kernel = fam;
        op->moe_decode = low_latency;
        op->moe_mean_rows = ld.mean_rows;
        op->moe_tokens = T;
        memcpy(op->moe_blocks, blocks, sizeof ld.blocks);
        /* Triton fused_moe quantizes each GEMM's 8-bit input in a kernel of its own (vLLM and
         * SGLang fused_experts_impl): tokens before the first, routed rows before the second */
        if (fam == SIM_MOE_TRITON && !sim_dtype_is_16bit(prec->act) && !op->weight_only) {
            const double in_rows = up ? rows / k : rows, width = up ? d : (double)f;
            op->kernels = 2;
            op->quant_kernels = 1;
            op->act_bytes += in_rows * (width * (rb + ab) + FP32_BYTES);
        }
    }
    op = &g->ops[SIM_OP_EXPERTS_ACT];
    op->flops = ACT_FLOPS * rows * (double)f;
    op->act_bytes = rows * 2.0 * (double)f * rb + rows * (double)f * ab;

    /* shared expert: a dense gated MLP split tp ways on the attention-side tokens (gate_up, act,
     * down: three kernels); priced as one GEMM of 3 f_s outputs with its intermediate traffic */
    op = &g->ops[SIM_OP_SHARED_EXPERT];
    const int64_t fs = sl.shared;
    const double t_sh = tp_moe ? T : t_attn;
    op->present = fs > 0;
    if (op->present) {
        sim_graph_gemm_shape(op, t_sh, 3 * fs, m->hidden, prec->weight, prec, rb);
        op->act_bytes = t_sh * (d * ab + 2.0 * (double)fs * rb + (double)fs * (rb + ab) +
                                  (double)fs * ab + d * rb);
    }
}

void sim_graph_build_moe(const sim_model *m, const sim_par *par, const sim_prec *prec,
                         const sim_batch_shape *s, sim_graph *out)
{
    memset(out, 0, sizeof *out);
    const sim_dtype vec = sim_graph_resid_dtype(m, prec);
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        out->ops[i].id = (sim_op_id)i;
        out->ops[i].compute = vec;
        out->ops[i].weight = vec;
    }
    static const sim_op_id ops[] = {SIM_OP_ROUTER,          SIM_OP_MOE_TOPK,
                                    SIM_OP_MOE_DISPATCH,    SIM_OP_MOE_PERMUTE,
                                    SIM_OP_EXPERTS_GATE_UP, SIM_OP_EXPERTS_ACT,
                                    SIM_OP_EXPERTS_DOWN,    SIM_OP_MOE_UNPERMUTE,
                                    SIM_OP_MOE_COMBINE,     SIM_OP_SHARED_EXPERT};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        out->ops[ops[i]].present = true;
    const sim_batch_shape a = dp_share(s, sim_par_dp(par));
    build_moe(m, par, prec, s, a.tokens, sim_dtype_bytes(vec),
              sim_dtype_bytes(sim_graph_gemm_dtype(prec)), out);
    out->layers = out->repeats[SIM_OP_EXPERTS_GATE_UP] = 1;
}

static void build_layer(const sim_model *m, const sim_par *par, const sim_prec *prec,
                        const sim_batch_shape *s, sim_graph *g)
{
    const int tp = par->tp;
    const sim_batch_shape a = dp_share(s, sim_par_dp(par));
    const double t = a.tokens, d = (double)m->hidden;
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));
    const double ab = sim_dtype_bytes(sim_graph_gemm_dtype(prec));
    /* the attention projections and dense MLPs, 16-bit under an experts-only format */
    const sim_prec lp = sim_graph_linear_prec(m, prec);
    const double lab = sim_dtype_bytes(sim_graph_gemm_dtype(&lp));

    sim_graph_norm_shape(&g->ops[SIM_OP_ATTN_NORM], t, d, rb, lab);
    if (m->mla)
        build_attn_mla(m, tp, &lp, &a, rb, g);
    else
        build_attn_gqa(m, tp, &lp, &a, rb, g);
    sim_graph_rebuild_context(m, par, prec, s, g);
    allreduce(&g->ops[SIM_OP_ATTN_ALLREDUCE], t * d * rb, tp);
    sim_graph_norm_shape(&g->ops[SIM_OP_MLP_NORM], t, d, rb, m->moe_layers > 0 ? ab : lab);
    if (g->dense_layers > 0)
        build_mlp_dense(m, tp, &lp, t, rb, lab, g);
    if (m->moe_layers > 0)
        build_moe(m, par, prec, s, t, rb, ab, g);
    allreduce(&g->ops[SIM_OP_MLP_ALLREDUCE], t * d * rb, tp);
}

/* Layers each op runs in (0 = absent from this model). */
static void set_repeats(const sim_model *m, sim_graph *g)
{
    static const sim_op_id dense_ops[] = {SIM_OP_GATE_UP_PROJ, SIM_OP_ACT, SIM_OP_DOWN_PROJ};
    static const sim_op_id moe_ops[] = {
        SIM_OP_ROUTER,       SIM_OP_MOE_TOPK,    SIM_OP_MOE_DISPATCH, SIM_OP_MOE_PERMUTE,
        SIM_OP_EXPERTS_GATE_UP, SIM_OP_EXPERTS_ACT, SIM_OP_EXPERTS_DOWN, SIM_OP_MOE_UNPERMUTE,
        SIM_OP_MOE_COMBINE,  SIM_OP_SHARED_EXPERT};
    static const sim_op_id gqa_ops[] = {SIM_OP_QKV_PROJ};
    static const sim_op_id mla_ops[] = {SIM_OP_Q_DOWN, SIM_OP_Q_UP, SIM_OP_KV_DOWN, SIM_OP_KV_UP};
    const int64_t attn = sim_model_attn_layers(m);
    const bool mixed = m->sliding_layers > 0 && m->sliding_layers < attn;
    g->layers = m->layers;
    g->dense_layers = sim_model_mlp_layers(m) - m->moe_layers;
    g->hybrid = m->linear_layers > 0 || m->no_mixer_layers > 0 || m->no_mlp_layers > 0;
    g->sliding_layers = mixed ? m->sliding_layers : 0;
    for (int i = 0; i < SIM_OP_COUNT; i++)
        g->repeats[i] = sim_op_info((sim_op_id)i)->per_layer ? m->layers : 1;
    for (size_t i = 0; i < sizeof dense_ops / sizeof dense_ops[0]; i++)
        g->repeats[dense_ops[i]] = g->dense_layers;
    for (size_t i = 0; i < sizeof moe_ops / sizeof moe_ops[0]; i++)
        g->repeats[moe_ops[i]] = m->moe_layers;
    for (size_t i = 0; i < sizeof gqa_ops / sizeof gqa_ops[0]; i++)
        g->repeats[gqa_ops[i]] = m->mla ? 0 : m->layers;
    for (size_t i = 0; i < sizeof mla_ops / sizeof mla_ops[0]; i++)
        g->repeats[mla_ops[i]] = m->mla ? m->layers : 0;
    if (m->q_lora_rank == 0)
        g->repeats[SIM_OP_Q_DOWN] = 0;
    g->repeats[SIM_OP_QK_NORM] = m->qk_norm && !m->mla ? m->layers : 0;
    g->repeats[SIM_OP_INDEXER_PROJ] = g->repeats[SIM_OP_INDEXER] = m->index_topk > 0 ? m->layers : 0;
    g->repeats[SIM_OP_ATTENTION_SLIDING] = g->sliding_layers;
    g->repeats[SIM_OP_ATTENTION] = attn - g->sliding_layers;
    static const sim_op_id linear_ops[] = {SIM_OP_LINEAR_IN_PROJ, SIM_OP_LINEAR_CONV,
                                           SIM_OP_LINEAR_SCAN, SIM_OP_LINEAR_NORM,
                                           SIM_OP_LINEAR_OUT_PROJ};
    for (size_t i = 0; i < sizeof linear_ops / sizeof linear_ops[0]; i++)
        g->repeats[linear_ops[i]] = m->linear_layers;
    if (!g->hybrid)
        return;
    /* a hybrid plan: the attention block in the attention layers, a norm and an all-reduce
     * behind every mixer (attention or linear) and every MLP */
    static const sim_op_id attn_ops[] = {SIM_OP_ROPE, SIM_OP_ACT_QUANT, SIM_OP_O_PROJ};
    for (size_t i = 0; i < sizeof attn_ops / sizeof attn_ops[0]; i++)
        g->repeats[attn_ops[i]] = attn;
    g->repeats[SIM_OP_QK_NORM] = m->qk_norm && !m->mla ? attn : 0;
    g->repeats[SIM_OP_QKV_PROJ] = m->mla ? 0 : attn;
    g->repeats[SIM_OP_ATTN_NORM] = g->repeats[SIM_OP_ATTN_ALLREDUCE] = attn + m->linear_layers;
    g->repeats[SIM_OP_MLP_NORM] = g->repeats[SIM_OP_MLP_ALLREDUCE] = sim_model_mlp_layers(m);
}

static void build_edges(const sim_model *m, int tp, const sim_prec *prec, const sim_batch_shape *s,
                        sim_graph *g)
{
    /* s: this GPU's share (data-parallel attention runs the edges on its own sequences) */
    const double t = s->tokens, d = (double)m->hidden, lg = s->logits;
    const sim_dtype rdt = sim_graph_resid_dtype(m, prec);
    const double rb = sim_dtype_bytes(rdt);
    const int64_t v_gpu = (m->vocab + tp - 1) / tp; /* vocab-parallel shards */
    const sim_prec p16 = {.weight = rdt, .act = rdt, .kv = prec->kv};

    /* Vocab-parallel embedding: each GPU gathers the rows it owns, then an all-reduce. */
    sim_op *op = &g->ops[SIM_OP_EMBED];
    op->act_bytes = 2.0 * t * d * rb;
    allreduce(op, t * d * rb, tp);
    op->present = true;

    op = &g->ops[SIM_OP_FINAL_NORM];
    sim_graph_norm_shape(op, t, d, rb, rb);

    sim_graph_gemm_shape(&g->ops[SIM_OP_LM_HEAD], lg, v_gpu, m->hidden, rdt, &p16, rb);
    allgather(&g->ops[SIM_OP_LOGITS_GATHER], lg * (double)v_gpu * tp * rb, tp);

    /* Sampling on the full logits: read them, write and read an fp32 copy for softmax. */
    op = &g->ops[SIM_OP_SAMPLING];
    op->flops = SAMPLE_FLOPS * lg * (double)m->vocab;
    op->act_bytes = lg * (double)m->vocab * (rb + 2.0 * FP32_BYTES);
}

void sim_graph_build(const sim_model *m, int tp, const sim_prec *prec, const sim_seq_group *groups,
                     size_t n_groups, sim_graph *out)
{
    sim_batch_shape s = sim_graph_shape(m, groups, n_groups);
    sim_graph_build_shape(m, tp, prec, &s, out);
}

void sim_graph_build_shape(const sim_model *m, int tp, const sim_prec *prec,
                           const sim_batch_shape *sp, sim_graph *out)
{
    sim_par par = sim_par_tp(tp);
    sim_graph_build_par(m, &par, prec, sp, out);
}

void sim_graph_build_par(const sim_model *m, const sim_par *par, const sim_prec *prec,
                         const sim_batch_shape *sp, sim_graph *out)
{
    memset(out, 0, sizeof *out);
    const sim_dtype vec = sim_graph_resid_dtype(m, prec);
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        out->ops[i].id = (sim_op_id)i;
        out->ops[i].present = true;
        out->ops[i].compute = vec;
        out->ops[i].weight = vec;
    }
    set_repeats(m, out);
    out->tokens = (int64_t)sp->tokens;
    out->seqs = (int64_t)sp->seqs;
    out->logit_tokens = (int64_t)sp->logits;
    build_layer(m, par, prec, sp, out);
    const sim_batch_shape a = dp_share(sp, sim_par_dp(par));
    build_edges(m, par->tp, prec, &a, out);
    sim_graph_build_vision(m, par->tp, sp, vec, out);
    /* data-parallel attention: before each step every group learns the others' batch (SGLang's
     * prepare_mlp_sync_batch: an all-gather of 6 int64 per rank over all the GPUs), so the
     * groups step together; the step then waits for the slowest group (sim_graph_shape_dp) */
    sim_op *sync = &out->ops[SIM_OP_DP_SYNC];
    const int dp = sim_par_dp(par), gpus = par->tp * dp;
    sync->present = false;
    if (dp > 1)
        allgather(sync, DP_SYNC_BYTES * gpus, gpus);
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (out->repeats[i] == 0)
            out->ops[i].present = false;
}
