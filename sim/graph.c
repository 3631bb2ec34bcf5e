/* graph.c - operators of one forward step, per GPU. */
#include "graph.h"

#include <assert.h>
#include <string.h>

#include "collective.h"

/* Kernel counts: attention = KV-cache write + attention kernel; sampling = logits to fp32,
 * softmax/temperature, the draw, and the token gather (vLLM's sampler, greedy or random). */
static const sim_op_meta op_table[SIM_OP_COUNT] = {
    [SIM_OP_EMBED] = {"embed", SIM_OPK_VECTOR, false, 1},
    [SIM_OP_ATTN_NORM] = {"attn_norm", SIM_OPK_VECTOR, true, 1},
    [SIM_OP_QKV_PROJ] = {"qkv_proj", SIM_OPK_GEMM, true, 1},
    [SIM_OP_ROPE] = {"rope", SIM_OPK_VECTOR, true, 1},
    [SIM_OP_ATTENTION] = {"attention", SIM_OPK_ATTENTION, true, 2},
    [SIM_OP_ACT_QUANT] = {"act_quant", SIM_OPK_VECTOR, true, 1},
    [SIM_OP_O_PROJ] = {"o_proj", SIM_OPK_GEMM, true, 1},
    [SIM_OP_ATTN_ALLREDUCE] = {"attn_allreduce", SIM_OPK_COMM, true, 1},
    [SIM_OP_MLP_NORM] = {"mlp_norm", SIM_OPK_VECTOR, true, 1},
    [SIM_OP_GATE_UP_PROJ] = {"gate_up_proj", SIM_OPK_GEMM, true, 1},
    [SIM_OP_ACT] = {"act", SIM_OPK_VECTOR, true, 1},
    [SIM_OP_DOWN_PROJ] = {"down_proj", SIM_OPK_GEMM, true, 1},
    [SIM_OP_MLP_ALLREDUCE] = {"mlp_allreduce", SIM_OPK_COMM, true, 1},
    [SIM_OP_FINAL_NORM] = {"final_norm", SIM_OPK_VECTOR, false, 1},
    [SIM_OP_LM_HEAD] = {"lm_head", SIM_OPK_GEMM, false, 1},
    [SIM_OP_LOGITS_GATHER] = {"logits_gather", SIM_OPK_COMM, false, 1},
    [SIM_OP_SAMPLING] = {"sampling", SIM_OPK_VECTOR, false, 4},
};
static_assert(SIM_OP_COUNT == 17, "op_table must list every sim_op_id");

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

sim_status sim_graph_check(const sim_model *m, int tp, const sim_prec *prec, sim_err *err)
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

double sim_graph_attn_pairs(int64_t q, int64_t c, int64_t window)
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

sim_batch_shape sim_graph_shape(const sim_model *m, const sim_seq_group *g, size_t n)
{
    sim_batch_shape s = {0};
    for (size_t i = 0; i < n; i++) {
        double cnt = (double)g[i].count;
        if (g[i].count <= 0)
            continue;
        int64_t seen = g[i].c + g[i].q;
        if (m->sliding_window > 0 && seen > m->sliding_window)
            seen = m->sliding_window;
        s.tokens += cnt * (double)g[i].q;
        s.seqs += cnt;
        s.logits += cnt * (double)g[i].logits;
        s.pairs += cnt * sim_graph_attn_pairs(g[i].q, g[i].c, m->sliding_window);
        s.kv_tokens += cnt * (double)seen;
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

void sim_graph_attention(const sim_model *m, int tp, const sim_prec *prec, const sim_batch_shape *s,
                         sim_op *op)
{
    const double t = s->tokens, hd = (double)m->head_dim;
    const int64_t hq = m->heads / tp, hkv = sim_graph_kv_heads_per_gpu(m, tp);
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));
    const double kb = sim_dtype_bytes(prec->kv);
    /* Fused attention: read Q and the new K, V; write O; write the new K, V into the cache; read
     * every cached K, V of each sequence once. 2 FLOPs per multiply-add, QK^T and PV. */
    op->flops = 4.0 * (double)hq * hd * s->pairs;
    op->act_bytes = t * (double)(2 * hq + 2 * hkv) * hd * rb;
    op->kv_write_bytes = t * 2.0 * (double)hkv * hd * kb;
    op->kv_read_bytes = s->kv_tokens * 2.0 * (double)hkv * hd * kb;
}

static void build_layer(const sim_model *m, int tp, const sim_prec *prec, const sim_batch_shape *s,
                        sim_graph *g)
{
    const double t = s->tokens, d = (double)m->hidden, hd = (double)m->head_dim;
    const int64_t hq = m->heads / tp, hkv = sim_graph_kv_heads_per_gpu(m, tp);
    const int64_t f = m->intermediate / tp;
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));
    const double ab = sim_dtype_bytes(sim_graph_gemm_dtype(prec));
    const int64_t qkv_n = (hq + 2 * hkv) * m->head_dim;

    norm(&g->ops[SIM_OP_ATTN_NORM], t, d, rb, ab);

    sim_op *op = &g->ops[SIM_OP_QKV_PROJ];
    gemm(op, t, qkv_n, m->hidden, prec->weight, prec, rb);
    if (m->qkv_bias) {
        op->weight_bytes += (double)qkv_n * rb;
        op->flops += t * (double)qkv_n;
    }

    op = &g->ops[SIM_OP_ROPE];
    op->flops = ROPE_FLOPS * t * (double)(hq + hkv) * hd;
    op->act_bytes = 2.0 * t * (double)(hq + hkv) * hd * rb;

    sim_graph_attention(m, tp, prec, s, &g->ops[SIM_OP_ATTENTION]);

    /* the attention output, 16-bit, quantized per token for o_proj */
    sim_graph_act_quant(&g->ops[SIM_OP_ACT_QUANT], t, hq * m->head_dim, prec, rb);

    gemm(&g->ops[SIM_OP_O_PROJ], t, m->hidden, hq * m->head_dim, prec->weight, prec, rb);
    allreduce(&g->ops[SIM_OP_ATTN_ALLREDUCE], t * d * rb, tp);
    norm(&g->ops[SIM_OP_MLP_NORM], t, d, rb, ab);
    gemm(&g->ops[SIM_OP_GATE_UP_PROJ], t, 2 * f, m->hidden, prec->weight, prec, rb);

    op = &g->ops[SIM_OP_ACT];
    op->flops = ACT_FLOPS * t * (double)f;
    op->act_bytes = t * 2.0 * (double)f * rb + t * (double)f * ab;

    gemm(&g->ops[SIM_OP_DOWN_PROJ], t, m->hidden, f, prec->weight, prec, rb);
    allreduce(&g->ops[SIM_OP_MLP_ALLREDUCE], t * d * rb, tp);
}

static void build_edges(const sim_model *m, int tp, const sim_prec *prec, const sim_batch_shape *s,
                        sim_graph *g)
{
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
    memset(out, 0, sizeof *out);
    const sim_dtype vec = sim_graph_resid_dtype(m, prec);
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        out->ops[i].id = (sim_op_id)i;
        out->ops[i].present = true;
        out->ops[i].compute = vec;
        out->ops[i].weight = vec;
    }
    out->layers = m->layers;
    out->tokens = (int64_t)sp->tokens;
    out->seqs = (int64_t)sp->seqs;
    out->logit_tokens = (int64_t)sp->logits;
    build_layer(m, tp, prec, sp, out);
    build_edges(m, tp, prec, sp, out);
}

double sim_graph_weight_bytes_per_gpu(const sim_model *m, int tp, const sim_prec *prec)
{
    const double d = (double)m->hidden, hd = (double)m->head_dim;
    const double wb = sim_graph_weight_elem_bytes(prec, prec->weight);
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, prec));
    const double hq = (double)(m->heads / tp), hkv = (double)sim_graph_kv_heads_per_gpu(m, tp);
    const double f = (double)(m->intermediate / tp);
    const double qkv_n = (hq + 2.0 * hkv) * hd;
    double layer = (d * qkv_n + hq * hd * d + 3.0 * d * f) * wb + 2.0 * d * rb;
    if (m->qkv_bias)
        layer += qkv_n * rb;
    const double v_gpu = (double)((m->vocab + tp - 1) / tp);
    const double tables = v_gpu * d * rb * (m->tied_embeddings ? 1.0 : 2.0);
    return (double)m->layers * layer + tables + d * rb;
}

double sim_graph_kv_bytes_per_token(const sim_model *m, int tp, const sim_prec *prec)
{
    return (double)m->layers * 2.0 * (double)sim_graph_kv_heads_per_gpu(m, tp) *
           (double)m->head_dim * sim_dtype_bytes(prec->kv);
}
