/* graph.c - operators of one forward step, per GPU. */
#include "graph.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "collective.h"

/* Kernel counts: attention = KV-cache write + attention kernel; sampling = logits to fp32,
 * softmax/temperature, the draw, and the token gather (vLLM's sampler, greedy or random); MLA's
 * q_down and kv_down = the GEMM + the RMSNorm of the latent; kv_up = W_UK and W_UV (decode). */
static const sim_op_meta op_table[SIM_OP_COUNT] = {
    [SIM_OP_EMBED] = {"embed", SIM_OPK_VECTOR, false, 1, false, false},
    [SIM_OP_ATTN_NORM] = {"attn_norm", SIM_OPK_VECTOR, true, 1, false, false},
    [SIM_OP_QKV_PROJ] = {"qkv_proj", SIM_OPK_GEMM, true, 1, false, false},
    [SIM_OP_Q_DOWN] = {"q_down", SIM_OPK_GEMM, true, 2, false, false},
    [SIM_OP_Q_UP] = {"q_up", SIM_OPK_GEMM, true, 1, false, false},
    [SIM_OP_KV_DOWN] = {"kv_down", SIM_OPK_GEMM, true, 2, false, false},
    [SIM_OP_KV_UP] = {"kv_up", SIM_OPK_GEMM, true, 2, true, false},
    [SIM_OP_ROPE] = {"rope", SIM_OPK_VECTOR, true, 1, false, false},
    [SIM_OP_ATTENTION] = {"attention", SIM_OPK_ATTENTION, true, 2, true, false},
    [SIM_OP_ATTENTION_SLIDING] = {"attention_sliding", SIM_OPK_ATTENTION, true, 2, true, false},
    [SIM_OP_ACT_QUANT] = {"act_quant", SIM_OPK_VECTOR, true, 1, false, false},
    [SIM_OP_O_PROJ] = {"o_proj", SIM_OPK_GEMM, true, 1, false, false},
    [SIM_OP_ATTN_ALLREDUCE] = {"attn_allreduce", SIM_OPK_COMM, true, 1, false, false},
    [SIM_OP_MLP_NORM] = {"mlp_norm", SIM_OPK_VECTOR, true, 1, false, false},
    [SIM_OP_GATE_UP_PROJ] = {"gate_up_proj", SIM_OPK_GEMM, true, 1, false, false},
    [SIM_OP_ACT] = {"act", SIM_OPK_VECTOR, true, 1, false, false},
    [SIM_OP_DOWN_PROJ] = {"down_proj", SIM_OPK_GEMM, true, 1, false, false},
    [SIM_OP_ROUTER] = {"router", SIM_OPK_GEMM, true, 2, false, false},
    [SIM_OP_MOE_DISPATCH] = {"moe_dispatch", SIM_OPK_COMM, true, 1, false, true},
    [SIM_OP_EXPERTS_GATE_UP] = {"experts_gate_up", SIM_OPK_GEMM, true, 1, false, false},
    [SIM_OP_EXPERTS_ACT] = {"experts_act", SIM_OPK_VECTOR, true, 1, false, false},
    [SIM_OP_EXPERTS_DOWN] = {"experts_down", SIM_OPK_GEMM, true, 1, false, false},
    [SIM_OP_MOE_COMBINE] = {"moe_combine", SIM_OPK_COMM, true, 1, false, true},
    [SIM_OP_SHARED_EXPERT] = {"shared_expert", SIM_OPK_GEMM, true, 3, false, false},
    [SIM_OP_MLP_ALLREDUCE] = {"mlp_allreduce", SIM_OPK_COMM, true, 1, false, false},
    [SIM_OP_FINAL_NORM] = {"final_norm", SIM_OPK_VECTOR, false, 1, false, false},
    [SIM_OP_LM_HEAD] = {"lm_head", SIM_OPK_GEMM, false, 1, false, false},
    [SIM_OP_LOGITS_GATHER] = {"logits_gather", SIM_OPK_COMM, false, 1, false, false},
    [SIM_OP_SAMPLING] = {"sampling", SIM_OPK_VECTOR, false, 4, false, false},
};
static_assert(SIM_OP_COUNT == 29, "op_table must list every sim_op_id");

/* Vector FLOPs per element: RMSNorm (square, sum, scale by rsqrt, multiply by weight), rotary
 * embedding (two multiplies and an add per element), SiLU(gate) * up (exp, add, divide,
 * multiply, multiply), sampling (scale, exp, sum, compare). */
#define NORM_FLOPS 4.0
#define ROPE_FLOPS 3.0
#define ACT_FLOPS 5.0
#define SAMPLE_FLOPS 4.0
#define QUANT_FLOPS 3.0 /* dynamic quantization: |x|, running max, scale and convert */
#define FP32_BYTES 4.0
#define SCALE_BYTES 2.0 /* a group scale of AWQ/GPTQ/W4A8 weights: fp16 */

const sim_op_meta *sim_op_info(sim_op_id id)
{
    assert(id >= 0 && id < SIM_OP_COUNT);
    return &op_table[id];
}

double sim_op_bytes(const sim_op *op)
{
    return op->weight_bytes + op->act_bytes + op->kv_read_bytes + op->kv_write_bytes;
}

int64_t sim_graph_kv_heads_per_gpu(const sim_model *m, int tp)
{
    return (m->kv_heads + tp - 1) / tp;
}

sim_dtype sim_graph_resid_dtype(const sim_model *m, const sim_prec *prec)
{
    return sim_dtype_is_16bit(prec->act) ? prec->act : m->dtype;
}

sim_dtype sim_graph_gemm_dtype(const sim_prec *prec) { return prec->act; }

static sim_status check_moe(const sim_model *m, const sim_par *p, sim_err *err);

/* Heads, KV heads and MLP width against tp; the precision combination. */
static sim_status check_tp(const sim_model *m, int tp, const sim_prec *prec, sim_err *err)
{
    if (tp < 1)
        return sim_fail(err, SIM_EINPUT, "--tp: value %d, expected >= 1", tp);
    if (m->heads % tp != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--tp: value %d does not divide num_attention_heads %lld of %s; expected a "
                        "divisor of %lld",
                        tp, (long long)m->heads, m->path, (long long)m->heads);
    if (m->kv_heads % tp != 0 && tp % m->kv_heads != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--tp: value %d neither divides nor is a multiple of num_key_value_heads "
                        "%lld of %s",
                        tp, (long long)m->kv_heads, m->path);
    if (m->intermediate % tp != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--tp: value %d does not divide intermediate_size %lld of %s", tp,
                        (long long)m->intermediate, m->path);
    if (sim_dtype_get(prec->act)->weights_only)
        return sim_fail(err, SIM_EINPUT,
                        "--act-dtype: value %s is for weights only, expected "
                        "bf16, fp16, fp8 or int8",
                        sim_dtype_name(prec->act));
    if (sim_dtype_get(prec->kv)->weights_only)
        return sim_fail(err, SIM_EINPUT,
                        "--kv-cache-dtype: value %s is for weights only, "
                        "expected bf16, fp16, fp8 or int8",
                        sim_dtype_name(prec->kv));
    /* quantized activations need weights in their format, or narrower weights that the kernel
     * dequantizes to it (W4A8: int4 weights, fp8 or int8 math) */
    if (!sim_dtype_is_16bit(prec->act) && prec->weight != prec->act &&
        !(sim_dtype_get(prec->weight)->bits < sim_dtype_get(prec->act)->bits))
        return sim_fail(err, SIM_EINPUT,
                        "--act-dtype: value %s quantizes activations, which needs weights in the "
                        "same format (--weight-dtype %s) or a narrower one (W4A8: int4), got "
                        "--weight-dtype %s",
                        sim_dtype_name(prec->act), sim_dtype_name(prec->act),
                        sim_dtype_name(prec->weight));
    if (prec->group_size < 0)
        return sim_fail(err, SIM_EINPUT,
                        "--weight-group-size: value %lld, expected >= 1 (or 0: per channel)",
                        (long long)prec->group_size);
    return SIM_OK;
}

sim_par sim_par_tp(int tp) { return (sim_par){.tp = tp, .ep = 1, .imbalance = 1.0}; }

int sim_par_dp(const sim_par *p) { return p->dp_attention && p->tp > 0 ? p->ep / p->tp : 1; }

double sim_graph_experts_touched(double experts, double k, double tokens)
{
    if (experts <= 0.0 || tokens <= 0.0)
        return 0.0;
    return experts * (1.0 - pow(1.0 - k / experts, tokens));
}

/* The MoE-specific checks: EP against the experts and TP, the expert widths against TP. */
static sim_status check_moe(const sim_model *m, const sim_par *p, sim_err *err)
{
    if (p->ep < 1)
        return sim_fail(err, SIM_EINPUT, "--ep: value %d, expected >= 1", p->ep);
    if (p->dp_attention && p->ep == 1)
        return sim_fail(err, SIM_EINPUT,
                        "--dp-attention: needs expert parallelism (--ep > 1): attention runs "
                        "data-parallel over the EP group");
    if (m->experts == 0 && p->ep > 1)
        return sim_fail(err, SIM_EINPUT,
                        "--ep: value %d, but %s has no experts (a dense model); expected 1", p->ep,
                        m->path);
    if (p->ep > 1 && m->experts % p->ep != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--ep: value %d does not divide the %lld experts of %s; expected a "
                        "divisor of %lld",
                        p->ep, (long long)m->experts, m->path, (long long)m->experts);
    if (p->ep > 1 && !p->dp_attention && p->ep != p->tp)
        return sim_fail(err, SIM_EINPUT,
                        "--ep: value %d differs from --tp %d; without --dp-attention the experts "
                        "are sharded over the TP group, so EP must equal TP (or pass "
                        "--dp-attention: TP x DP = EP)",
                        p->ep, p->tp);
    if (p->dp_attention && p->ep % p->tp != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--ep: value %d is not a multiple of --tp %d; with --dp-attention the EP "
                        "group is ep/tp data-parallel attention groups of tp GPUs (TP x DP = EP)",
                        p->ep, p->tp);
    if (p->ep == 1 && p->imbalance != 1.0)
        return sim_fail(err, SIM_EINPUT,
                        "--expert-imbalance: value %g applies to expert parallelism; pass --ep",
                        p->imbalance);
    if (!(p->imbalance >= 1.0 && p->imbalance <= (double)p->ep))
        return sim_fail(err, SIM_EINPUT,
                        "--expert-imbalance: value %g, expected a number in [1, --ep %d] (the "
                        "busiest EP rank's routed tokens over the mean)",
                        p->imbalance, p->ep);
    if (m->experts > 0 && p->ep == 1 && m->moe_intermediate % p->tp != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--tp: value %d does not divide moe_intermediate_size %lld of %s "
                        "(tensor-parallel experts); expected a divisor, or --ep",
                        p->tp, (long long)m->moe_intermediate, m->path);
    if (m->shared_intermediate % p->tp != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--tp: value %d does not divide the shared expert width %lld of %s", p->tp,
                        (long long)m->shared_intermediate, m->path);
    return SIM_OK;
}

sim_status sim_graph_check_par(const sim_model *m, const sim_par *par, const sim_prec *prec,
                               sim_err *err)
{
    sim_status st = check_tp(m, par->tp, prec, err);
    return st ? st : check_moe(m, par, err);
}

sim_status sim_graph_check(const sim_model *m, int tp, const sim_prec *prec, sim_err *err)
{
    sim_par par = sim_par_tp(tp);
    return sim_graph_check_par(m, &par, prec, err);
}

/* sim_graph_attn_pairs, inlined into sim_graph_shape's per-sequence loop (a serve run calls it
 * for every sequence of every iteration). */
static inline double attn_pairs(int64_t q, int64_t c, int64_t window)
{
    double a = (double)c + 1.0; /* keys seen by the first new token (itself included) */
    double nq = (double)q;
    if (window <= 0)
        return nq * a + nq * (nq - 1.0) / 2.0;
    /* tokens j with a + j <= window see a + j keys; the rest see the window */
    double n1 = (double)window - a + 1.0;
    if (n1 < 0.0)
        n1 = 0.0;
    if (n1 > nq)
        n1 = nq;
    return n1 * a + n1 * (n1 - 1.0) / 2.0 + (nq - n1) * (double)window;
}

double sim_graph_attn_pairs(int64_t q, int64_t c, int64_t window)
{
    return attn_pairs(q, c, window);
}

/* The window of the `attention` op: the model's when every layer slides, else none (a mixed
 * model's sliding layers are attention_sliding). */
static int64_t main_window(const sim_model *m)
{
    return m->sliding_layers == m->layers ? m->sliding_window : 0;
}

/* Keys a sequence of c + q tokens attends to, capped at the window. */
static double seen_tokens(int64_t c, int64_t q, int64_t window)
{
    int64_t seen = c + q;
    return (double)(window > 0 && seen > window ? window : seen);
}

/* One sequence (count 1) of full attention, added to s: the general loop's sums with cnt = 1.0
 * (x * 1.0 == x exactly, so the sums are bit-identical), for the common dense model whose
 * serve steps are each a long list of single sequences. */
static void shape_add_one(sim_batch_shape *s, const sim_seq_group *g)
{
    double pairs = attn_pairs(g->q, g->c, 0);
    double kv = (double)(g->c + g->q);
    s->tokens += (double)g->q;
    s->seqs += 1.0;
    s->logits += (double)g->logits;
    s->pairs += pairs;
    s->kv_tokens += kv;
    if (g->q <= SIM_GRAPH_ABSORB_MAX_Q) {
        s->dec_tokens += (double)g->q;
        s->dec_pairs += pairs;
        s->dec_kv_tokens += kv;
        s->dec_seqs += 1.0;
    }
}

sim_batch_shape sim_graph_shape(const sim_model *m, const sim_seq_group *g, size_t n)
{
    sim_batch_shape s = {0};
    const int64_t win = main_window(m);
    const bool mixed = m->sliding_layers > 0 && m->sliding_layers < m->layers;
    for (size_t i = 0; i < n; i++) {
        if (g[i].count == 1 && win <= 0 && !mixed) {
            shape_add_one(&s, &g[i]);
            continue;
        }
        double cnt = (double)g[i].count;
        if (g[i].count <= 0)
            continue;
        double pairs = cnt * attn_pairs(g[i].q, g[i].c, win);
        double kv = cnt * seen_tokens(g[i].c, g[i].q, win);
        s.tokens += cnt * (double)g[i].q;
        s.seqs += cnt;
        s.logits += cnt * (double)g[i].logits;
        s.pairs += pairs;
        s.kv_tokens += kv;
        if (mixed) {
            s.swa_pairs += cnt * attn_pairs(g[i].q, g[i].c, m->sliding_window);
            s.swa_kv_tokens += cnt * seen_tokens(g[i].c, g[i].q, m->sliding_window);
        }
        if (g[i].q <= SIM_GRAPH_ABSORB_MAX_Q) {
            s.dec_tokens += cnt * (double)g[i].q;
            s.dec_pairs += pairs;
            s.dec_kv_tokens += kv;
            s.dec_seqs += cnt;
        }
    }
    return s;
}

bool sim_graph_mixed_input(const sim_prec *prec, sim_dtype w)
{
    return !sim_dtype_is_16bit(w) && w != prec->act;
}

double sim_graph_weight_elem_bytes(const sim_prec *prec, sim_dtype w)
{
    const sim_dtype_info *i = sim_dtype_get(w);
    double b = sim_dtype_bytes(w);
    if (i->group_scaled && prec->group_size > 0 && sim_graph_mixed_input(prec, w))
        b += (SCALE_BYTES + (prec->zero_point ? i->bits / 8.0 : 0.0)) / (double)prec->group_size;
    return b;
}

/* A GEMM of T x K by K x N with weights in `wdt`: reads its input in the activation format,
 * writes 16-bit. The math runs in the activation format: 16-bit for plain and weight-only GEMMs,
 * fp8/int8/fp4 under full quantization and W4A8 (mixed-input kernels dequantize the weights). */
static void gemm(sim_op *op, double t, int64_t n, int64_t k, sim_dtype wdt, const sim_prec *prec,
                 double rb)
{
    op->m = (int64_t)t;
    op->n = n;
    op->k = k;
    op->flops = 2.0 * t * (double)n * (double)k;
    op->weight_bytes = (double)n * (double)k * sim_graph_weight_elem_bytes(prec, wdt);
    op->act_bytes = t * (double)k * sim_dtype_bytes(prec->act) + t * (double)n * rb;
    op->weight = wdt;
    op->compute = prec->act;
    op->weight_only = sim_graph_mixed_input(prec, wdt);
}

void sim_graph_gemm(sim_op *op, sim_op_id id, double tokens, int64_t n, int64_t k, sim_dtype weight,
                    const sim_prec *prec, double resid_bytes)
{
    memset(op, 0, sizeof *op);
    op->id = id;
    op->present = true;
    gemm(op, tokens, n, k, weight, prec, resid_bytes);
}

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
    op->net_bytes = sim_coll_bus_bytes(SIM_COLL_ALLREDUCE, msg, tp);
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
    op->net_bytes = sim_coll_bus_bytes(SIM_COLL_ALLGATHER, msg, tp);
}

/* RMSNorm fused with the residual add: reads input and residual, writes both (the normed one in
 * the GEMM input format). */
static void norm(sim_op *op, double t, double d, double rb, double ab)
{
    op->flops = NORM_FLOPS * t * d;
    op->weight_bytes = d * rb;
    op->act_bytes = 2.0 * t * d * rb + t * d * rb + t * d * ab;
}

void sim_graph_fuse_norm(sim_op *op, double resid_bytes)
{
    if (op->fused)
        return;
    op->fused = true;
    op->act_bytes -= op->flops / NORM_FLOPS * resid_bytes; /* the T x d reduced values */
}

void sim_graph_norm(sim_op *op, sim_op_id id, double tokens, int64_t hidden, double resid_bytes,
                    double out_bytes)
{
    memset(op, 0, sizeof *op);
    op->id = id;
    op->present = true;
    norm(op, tokens, (double)hidden, resid_bytes, out_bytes);
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
    op->flops = 4.0 * (double)hq * hd * pairs;
    op->act_bytes = t * (double)(2 * hq + 2 * hkv) * hd * rb;
    op->kv_write_bytes = t * 2.0 * (double)hkv * hd * kb;
    op->kv_read_bytes = kv_tokens * 2.0 * (double)hkv * hd * kb;
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
    op->flops =
        2.0 * h * (2.0 * kvl + rope) * s->dec_pairs + 2.0 * h * (nope + rope + v) * tp_pairs;
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
        gemm(&ab, s->dec_tokens, h * kvl, nv, prec->weight, prec, rb);
        ab.act_bytes = s->dec_tokens * (double)h * (double)(2 * kvl + nv) * rb;
    }
    if (tp_kv > 0.0)
        gemm(&ex, tp_kv, h * nv, kvl, prec->weight, prec, rb);
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

/* The attention-side share of the busiest data-parallel rank: sequences spread evenly over dp. */
static sim_batch_shape dp_share(const sim_batch_shape *s, int dp)
{
    if (dp <= 1)
        return *s;
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
    return r;
}

void sim_graph_rebuild_context(const sim_model *m, const sim_par *par, const sim_prec *prec,
                               const sim_batch_shape *s, sim_graph *g)
{
    const sim_batch_shape a = dp_share(s, sim_par_dp(par));
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));
    const int tp = par->tp;
    if (m->mla) {
        const sim_prec lp = sim_graph_linear_prec(m, prec);
        mla_attention(m, tp, prec, &a, &g->ops[SIM_OP_ATTENTION]);
        mla_kv_up(m, tp, &lp, &a, rb, &g->ops[SIM_OP_KV_UP]);
        g->ops[SIM_OP_KV_UP].present = g->repeats[SIM_OP_KV_UP] > 0 && g->ops[SIM_OP_KV_UP].present;
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
    if (g->repeats[SIM_OP_ATTENTION_SLIDING] > 0)
        gqa_attention(m, tp, prec, a.tokens, a.swa_pairs, a.swa_kv_tokens,
                      &g->ops[SIM_OP_ATTENTION_SLIDING]);
}

/* Attention block of a GQA/MHA layer: norm, fused qkv, rope, attention (and the sliding one of a
 * mixed model), o_proj, all-reduce. */
static void build_attn_gqa(const sim_model *m, int tp, const sim_prec *prec,
                           const sim_batch_shape *s, double rb, sim_graph *g)
{
    const double t = s->tokens, d = (double)m->hidden, hd = (double)m->head_dim;
    const int64_t hq = m->heads / tp, hkv = sim_graph_kv_heads_per_gpu(m, tp);
    const int64_t qkv_n = (hq + 2 * hkv) * m->head_dim;

    sim_op *op = &g->ops[SIM_OP_QKV_PROJ];
    gemm(op, t, qkv_n, m->hidden, prec->weight, prec, rb);
    if (m->qkv_bias) {
        op->weight_bytes += (double)qkv_n * rb;
        op->flops += t * (double)qkv_n;
    }
    op = &g->ops[SIM_OP_ROPE];
    op->flops = ROPE_FLOPS * t * (double)(hq + hkv) * hd;
    op->act_bytes = 2.0 * t * (double)(hq + hkv) * hd * rb;
    /* the attention output, 16-bit, quantized per token for o_proj */
    sim_graph_act_quant(&g->ops[SIM_OP_ACT_QUANT], t, hq * m->head_dim, prec, rb);
    op = &g->ops[SIM_OP_O_PROJ];
    gemm(op, t, m->hidden, hq * m->head_dim, prec->weight, prec, rb);
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
        gemm(op, t, m->q_lora_rank, m->hidden, prec->weight, prec, rb);
        mla_latent_norm(op, t, ql, rb);
    }
    gemm(&g->ops[SIM_OP_Q_UP], t, h * qk, q_in, prec->weight, prec, rb);
    op = &g->ops[SIM_OP_KV_DOWN];
    gemm(op, t, m->kv_lora_rank + m->qk_rope_dim, m->hidden, prec->weight, prec, rb);
    mla_latent_norm(op, t, kvl, rb);
    op = &g->ops[SIM_OP_ROPE];
    op->flops = ROPE_FLOPS * t * (double)(h + 1) * (double)m->qk_rope_dim;
    op->act_bytes = 2.0 * t * (double)(h + 1) * (double)m->qk_rope_dim * rb;
    sim_graph_act_quant(&g->ops[SIM_OP_ACT_QUANT], t, h * m->v_head_dim, prec, rb);
    gemm(&g->ops[SIM_OP_O_PROJ], t, m->hidden, h * m->v_head_dim, prec->weight, prec, rb);
}

/* The dense gated MLP (every layer of a dense model, the dense layers of a MoE one). */
static void build_mlp_dense(const sim_model *m, int tp, const sim_prec *prec, double t, double rb,
                            double ab, sim_graph *g)
{
    const int64_t f = m->intermediate / tp;
    gemm(&g->ops[SIM_OP_GATE_UP_PROJ], t, 2 * f, m->hidden, prec->weight, prec, rb);
    sim_op *op = &g->ops[SIM_OP_ACT];
    op->flops = ACT_FLOPS * t * (double)f;
    op->act_bytes = t * 2.0 * (double)f * rb + t * (double)f * ab;
    gemm(&g->ops[SIM_OP_DOWN_PROJ], t, m->hidden, f, prec->weight, prec, rb);
}

/* An all-to-all over `ranks` GPUs of `rows` rows of `row_bytes` on the busiest rank: it keeps
 * 1/ranks of them and sends (receives) the rest. Decode-only steps use the low-latency mode
 * (every peer written directly: one hop); others the normal mode (one hop per peer). */
static void all_to_all(sim_op *op, double rows, double row_bytes, int ranks, bool low_latency)
{
    op->present = ranks > 1 && rows > 0.0;
    if (!op->present)
        return;
    op->net_msg_bytes = rows * row_bytes;
    op->net_ranks = ranks;
    op->net_kind = SIM_COLL_ALLTOALL;
    op->net_hops = low_latency ? 1 : ranks - 1;
    op->net_bytes = sim_coll_bus_bytes(SIM_COLL_ALLTOALL, rows * row_bytes, ranks);
}

/* The MoE block of one layer on the busiest GPU. T global tokens (every DP rank's), t_attn the
 * attention-side tokens of this GPU. Tensor-parallel experts (ep 1): every GPU holds a 1/tp
 * slice of all E experts and runs all T k routed rows. Expert parallelism: E/ep whole experts
 * per GPU, T k / ep routed rows times the imbalance (at most T per local expert), their tokens
 * all-to-all'ed in (fp8 under W8A8, as DeepEP dispatches) and the outputs back in 16 bits. */
static void build_moe(const sim_model *m, const sim_par *par, const sim_prec *prec,
                      const sim_batch_shape *s, double t_attn, double rb, double ab, sim_graph *g)
{
    const double T = s->tokens, d = (double)m->hidden, e = (double)m->experts;
    const double k = (double)m->experts_per_tok;
    const double wb = sim_graph_weight_elem_bytes(prec, prec->weight);
    const bool ep = par->ep > 1;
    const double local = ep ? e / par->ep : e;
    const int64_t f = ep ? m->moe_intermediate : m->moe_intermediate / par->tp;
    double rows = ep ? T * k / par->ep * par->imbalance : T * k;
    if (rows > T * fmin(k, local))
        rows = T * fmin(k, local);
    const double touched = local * (1.0 - pow(1.0 - k / e, T));
    const sim_dtype rdt = sim_graph_resid_dtype(m, prec);
    const sim_prec p16 = {.weight = rdt, .act = rdt, .kv = prec->kv};

    /* router: replicated d x E gate in 16 bits over this GPU's tokens, then a top-k kernel
     * reading the fp32 scores */
    double t_route = ep ? ceil(T / par->ep) : t_attn;
    sim_op *op = &g->ops[SIM_OP_ROUTER];
    gemm(op, t_route, m->experts, m->hidden, rdt, &p16, rb);
    op->act_bytes += t_route * e * FP32_BYTES;
    if (m->moe_bias)
        op->weight_bytes += e * rb;

    bool low_latency = s->dec_tokens >= s->tokens;
    all_to_all(&g->ops[SIM_OP_MOE_DISPATCH], rows, d * ab, ep ? par->ep : 1, low_latency);
    all_to_all(&g->ops[SIM_OP_MOE_COMBINE], rows, d * rb, ep ? par->ep : 1, low_latency);

    /* grouped GEMMs: FLOPs of the routed rows, weights of the touched experts */
    op = &g->ops[SIM_OP_EXPERTS_GATE_UP];
    gemm(op, rows, 2 * f, m->hidden, prec->weight, prec, rb);
    op->groups = touched;
    op->weight_bytes =
        touched * 2.0 * (double)f * d * wb + (m->moe_bias ? touched * 2.0 * f * rb : 0);
    op = &g->ops[SIM_OP_EXPERTS_ACT];
    op->flops = ACT_FLOPS * rows * (double)f;
    op->act_bytes = rows * 2.0 * (double)f * rb + rows * (double)f * ab;
    op = &g->ops[SIM_OP_EXPERTS_DOWN];
    gemm(op, rows, m->hidden, f, prec->weight, prec, rb);
    op->groups = touched;
    op->weight_bytes = touched * (double)f * d * wb + (m->moe_bias ? touched * d * rb : 0.0);

    /* shared expert: a dense gated MLP split tp ways on the attention-side tokens (gate_up, act,
     * down: three kernels); priced as one GEMM of 3 f_s outputs with its intermediate traffic */
    op = &g->ops[SIM_OP_SHARED_EXPERT];
    const int64_t fs = m->shared_intermediate / par->tp;
    op->present = fs > 0;
    if (op->present) {
        gemm(op, t_attn, 3 * fs, m->hidden, prec->weight, prec, rb);
        op->act_bytes = t_attn * (d * ab + 2.0 * (double)fs * rb + (double)fs * (rb + ab) +
                                  (double)fs * ab + d * rb);
    }
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

    norm(&g->ops[SIM_OP_ATTN_NORM], t, d, rb, lab);
    if (m->mla)
        build_attn_mla(m, tp, &lp, &a, rb, g);
    else
        build_attn_gqa(m, tp, &lp, &a, rb, g);
    sim_graph_rebuild_context(m, par, prec, s, g);
    allreduce(&g->ops[SIM_OP_ATTN_ALLREDUCE], t * d * rb, tp);
    norm(&g->ops[SIM_OP_MLP_NORM], t, d, rb, m->moe_layers > 0 ? ab : lab);
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
        SIM_OP_ROUTER,       SIM_OP_MOE_DISPATCH, SIM_OP_EXPERTS_GATE_UP, SIM_OP_EXPERTS_ACT,
        SIM_OP_EXPERTS_DOWN, SIM_OP_MOE_COMBINE,  SIM_OP_SHARED_EXPERT};
    static const sim_op_id gqa_ops[] = {SIM_OP_QKV_PROJ};
    static const sim_op_id mla_ops[] = {SIM_OP_Q_DOWN, SIM_OP_Q_UP, SIM_OP_KV_DOWN, SIM_OP_KV_UP};
    const bool mixed = m->sliding_layers > 0 && m->sliding_layers < m->layers;
    g->layers = m->layers;
    g->dense_layers = m->layers - m->moe_layers;
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
    g->repeats[SIM_OP_ATTENTION_SLIDING] = g->sliding_layers;
    g->repeats[SIM_OP_ATTENTION] = m->layers - g->sliding_layers;
}

/* Layer `l` is one of n spread evenly over L layers. */
static bool spread(int64_t l, int64_t n, int64_t L) { return (l + 1) * n / L > l * n / L; }

bool sim_graph_op_in_layer(const sim_graph *g, sim_op_id id, int64_t layer)
{
    switch (id) {
    case SIM_OP_GATE_UP_PROJ:
    case SIM_OP_ACT:
    case SIM_OP_DOWN_PROJ:
        return layer < g->dense_layers;
    case SIM_OP_ROUTER:
    case SIM_OP_MOE_DISPATCH:
    case SIM_OP_EXPERTS_GATE_UP:
    case SIM_OP_EXPERTS_ACT:
    case SIM_OP_EXPERTS_DOWN:
    case SIM_OP_MOE_COMBINE:
    case SIM_OP_SHARED_EXPERT:
        return layer >= g->dense_layers;
    case SIM_OP_ATTENTION_SLIDING:
        return spread(layer, g->sliding_layers, g->layers);
    case SIM_OP_ATTENTION:
        return !spread(layer, g->sliding_layers, g->layers);
    default:
        return g->repeats[id] > 0;
    }
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
    norm(op, t, d, rb, rb);

    gemm(&g->ops[SIM_OP_LM_HEAD], lg, v_gpu, m->hidden, rdt, &p16, rb);
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
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (out->repeats[i] == 0)
            out->ops[i].present = false;
}

/* Parameters of one layer's attention block per GPU stored in the weight format: MLA's q_down
 * and kv_down replicated, everything else split by heads. */
static double attn_core_params(const sim_model *m, int tp)
{
    const double d = (double)m->hidden, h = (double)(m->heads / tp);
    if (m->mla) {
        const double qk = (double)(m->qk_nope_dim + m->qk_rope_dim), ql = (double)m->q_lora_rank;
        const double kvl = (double)m->kv_lora_rank;
        double q = ql > 0.0 ? d * ql + ql * h * qk : d * h * qk;
        double kv =
            d * (kvl + (double)m->qk_rope_dim) + kvl * h * (double)(m->qk_nope_dim + m->v_head_dim);
        return q + kv + h * (double)m->v_head_dim * d;
    }
    const double hd = (double)m->head_dim, hkv = (double)sim_graph_kv_heads_per_gpu(m, tp);
    const double qkv_n = (h + 2.0 * hkv) * hd;
    return d * qkv_n + h * hd * d;
}

/* The attention block's 16-bit extras per GPU: biases, sinks, q/k norms, MLA's latent norms. */
static double attn_extra_bytes(const sim_model *m, int tp, double rb)
{
    const double h = (double)(m->heads / tp), hd = (double)m->head_dim;
    if (m->mla)
        return ((double)m->q_lora_rank + (double)m->kv_lora_rank) * rb;
    double b = m->qkv_bias ? (h + 2.0 * (double)sim_graph_kv_heads_per_gpu(m, tp)) * hd * rb : 0.0;
    if (m->o_bias)
        b += (double)m->hidden * rb;
    if (m->attn_sinks)
        b += h * rb;
    if (m->qk_norm)
        b += 2.0 * hd * rb;
    return b;
}

/* One MoE layer's MLP per GPU: parameters in the weight format (the local experts: E/ep whole
 * ones or a 1/tp slice of each; the tp-split shared expert), and 16-bit bytes (the replicated
 * router, biases, the shared expert's gate). */
static double moe_core_params(const sim_model *m, const sim_par *par)
{
    const double d = (double)m->hidden;
    const bool ep = par->ep > 1;
    const double local = ep ? (double)m->experts / par->ep : (double)m->experts;
    const double f = (double)(ep ? m->moe_intermediate : m->moe_intermediate / par->tp);
    return local * 3.0 * d * f + 3.0 * d * (double)(m->shared_intermediate / par->tp);
}

static double moe_extra_bytes(const sim_model *m, const sim_par *par, double rb)
{
    const double d = (double)m->hidden, e = (double)m->experts;
    const bool ep = par->ep > 1;
    const double local = ep ? e / par->ep : e;
    const double f = (double)(ep ? m->moe_intermediate : m->moe_intermediate / par->tp);
    double b = e * d * rb + (m->shared_expert_gate ? d * rb : 0.0);
    if (m->moe_bias)
        b += (local * (2.0 * f + d) + e) * rb;
    return b;
}

double sim_graph_weight_bytes_per_gpu(const sim_model *m, int tp, const sim_prec *prec)
{
    sim_par par = sim_par_tp(tp);
    return sim_graph_weight_bytes_par(m, &par, prec);
}

double sim_graph_weight_bytes_par(const sim_model *m, const sim_par *par, const sim_prec *prec)
{
    const int tp = par->tp;
    const double d = (double)m->hidden;
    const double wb = sim_graph_weight_elem_bytes(prec, prec->weight);
    const sim_prec lp = sim_graph_linear_prec(m, prec);
    const double lb = sim_graph_weight_elem_bytes(&lp, lp.weight); /* non-expert GEMMs */
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));
    const double f = (double)(m->intermediate / tp);
    const double core = attn_core_params(m, tp), extra = attn_extra_bytes(m, tp, rb);
    /* a layer: weights, its two RMSNorms, its 16-bit extras */
    const double dense = (core + 3.0 * d * f) * lb + 2.0 * d * rb + extra;
    const double moe = core * lb + moe_core_params(m, par) * wb + 2.0 * d * rb + extra +
                       moe_extra_bytes(m, par, rb);
    const double layers = (double)(m->layers - m->moe_layers) * dense + (double)m->moe_layers * moe;
    const double v_gpu = (double)((m->vocab + tp - 1) / tp);
    const double tables = v_gpu * d * rb * (m->tied_embeddings ? 1.0 : 2.0);
    return layers + tables + d * rb;
}

double sim_graph_kv_bytes_per_token(const sim_model *m, int tp, const sim_prec *prec)
{
    sim_par par = sim_par_tp(tp);
    return sim_graph_kv_bytes_per_token_par(m, &par, prec);
}

double sim_graph_kv_bytes_per_token_par(const sim_model *m, const sim_par *par,
                                        const sim_prec *prec)
{
    const double kb = sim_dtype_bytes(prec->kv), L = (double)m->layers;
    double per_token = m->mla ? L * (double)(m->kv_lora_rank + m->qk_rope_dim) * kb
                              : L * 2.0 * (double)sim_graph_kv_heads_per_gpu(m, par->tp) *
                                    (double)m->head_dim * kb;
    return per_token / sim_par_dp(par);
}
