/* graph.c - the operator table (and the layers each op runs in), the model against the
 * parallelism (checks), the shape of a batch, and the weight and KV bytes each GPU holds (the
 * operators of a step: graph_build.c). */
#include "graph.h"

#include <assert.h>
#include <math.h>

/* One row per op: its name and kind, then its members by name (graph.h sim_op_meta; a flag left
 * out is false): per_layer, the kernel launches, whether it reads the contexts, whether it is
 * priced as an all-to-all. Kernel counts: attention = KV-cache write + attention kernel;
 * sampling = logits to fp32, softmax/temperature, the draw, and the token gather (vLLM's sampler,
 * greedy or random); MLA's q_down and kv_down = the GEMM + the RMSNorm of the latent; kv_up = W_UK
 * and W_UV (decode); qk_norm = q_norm and k_norm, two RMSNorm launches (vLLM's and SGLang's
 * Qwen3Attention). */
static const sim_op_meta op_table[SIM_OP_COUNT] = {
    [SIM_OP_VISION_PATCH_EMBED] = {"vision_patch_embed", SIM_OPK_GEMM, .kernels = 1},
    [SIM_OP_VISION_NORM] = {"vision_norm", SIM_OPK_VECTOR, .kernels = 1},
    [SIM_OP_VISION_QKV] = {"vision_qkv", SIM_OPK_GEMM, .kernels = 1},
    [SIM_OP_VISION_ATTENTION] = {"vision_attention", SIM_OPK_ATTENTION, .kernels = 1},
    [SIM_OP_VISION_ATTENTION_WINDOW] = {"vision_attention_window", SIM_OPK_ATTENTION, .kernels = 1},
    [SIM_OP_VISION_O_PROJ] = {"vision_o_proj", SIM_OPK_GEMM, .kernels = 1},
    [SIM_OP_VISION_MLP_UP] = {"vision_mlp_up", SIM_OPK_GEMM, .kernels = 1},
    [SIM_OP_VISION_MLP_ACT] = {"vision_mlp_act", SIM_OPK_VECTOR, .kernels = 1},
    [SIM_OP_VISION_MLP_DOWN] = {"vision_mlp_down", SIM_OPK_GEMM, .kernels = 1},
    [SIM_OP_VISION_ALLREDUCE] = {"vision_allreduce", SIM_OPK_COMM, .kernels = 1},
    [SIM_OP_VISION_MERGER_FC1] = {"vision_merger_fc1", SIM_OPK_GEMM, .kernels = 1},
    [SIM_OP_VISION_MERGER_FC2] = {"vision_merger_fc2", SIM_OPK_GEMM, .kernels = 1},
    [SIM_OP_VISION_PROJ] = {"vision_proj", SIM_OPK_GEMM, .kernels = 1},
    [SIM_OP_EMBED] = {"embed", SIM_OPK_VECTOR, .kernels = 1},
    [SIM_OP_ATTN_NORM] = {"attn_norm", SIM_OPK_VECTOR, .per_layer = true, .kernels = 1},
    [SIM_OP_QKV_PROJ] = {"qkv_proj", SIM_OPK_GEMM, .per_layer = true, .kernels = 1},
    [SIM_OP_Q_DOWN] = {"q_down", SIM_OPK_GEMM, .per_layer = true, .kernels = 2},
    [SIM_OP_Q_UP] = {"q_up", SIM_OPK_GEMM, .per_layer = true, .kernels = 1},
    [SIM_OP_KV_DOWN] = {"kv_down", SIM_OPK_GEMM, .per_layer = true, .kernels = 2},
    [SIM_OP_KV_UP] = {"kv_up", SIM_OPK_GEMM, .per_layer = true, .kernels = 2, .context = true},
    [SIM_OP_QK_NORM] = {"qk_norm", SIM_OPK_VECTOR, .per_layer = true, .kernels = 2},
    [SIM_OP_ROPE] = {"rope", SIM_OPK_VECTOR, .per_layer = true, .kernels = 1},
    [SIM_OP_INDEXER_PROJ] = {"indexer_proj", SIM_OPK_GEMM, .per_layer = true, .kernels = 2},
    [SIM_OP_INDEXER] = {"indexer", SIM_OPK_ATTENTION, .per_layer = true, .kernels = 3,
                        .context = true},
    [SIM_OP_ATTENTION] = {"attention", SIM_OPK_ATTENTION, .per_layer = true, .kernels = 2,
                          .context = true},
    [SIM_OP_ATTENTION_SLIDING] = {"attention_sliding", SIM_OPK_ATTENTION, .per_layer = true,
                                  .kernels = 2, .context = true},
    [SIM_OP_ACT_QUANT] = {"act_quant", SIM_OPK_VECTOR, .per_layer = true, .kernels = 1},
    [SIM_OP_O_PROJ] = {"o_proj", SIM_OPK_GEMM, .per_layer = true, .kernels = 1},
    [SIM_OP_LINEAR_IN_PROJ] = {"linear_in_proj", SIM_OPK_GEMM, .per_layer = true, .kernels = 1},
    [SIM_OP_LINEAR_CONV] = {"linear_conv", SIM_OPK_VECTOR, .per_layer = true, .kernels = 1,
                            .context = true},
    [SIM_OP_LINEAR_SCAN] = {"linear_scan", SIM_OPK_ATTENTION, .per_layer = true, .kernels = 1,
                            .context = true},
    [SIM_OP_LINEAR_NORM] = {"linear_norm", SIM_OPK_VECTOR, .per_layer = true, .kernels = 1},
    [SIM_OP_LINEAR_OUT_PROJ] = {"linear_out_proj", SIM_OPK_GEMM, .per_layer = true, .kernels = 1},
    [SIM_OP_ATTN_ALLREDUCE] = {"attn_allreduce", SIM_OPK_COMM, .per_layer = true, .kernels = 1},
    [SIM_OP_MLP_NORM] = {"mlp_norm", SIM_OPK_VECTOR, .per_layer = true, .kernels = 1},
    [SIM_OP_GATE_UP_PROJ] = {"gate_up_proj", SIM_OPK_GEMM, .per_layer = true, .kernels = 1},
    [SIM_OP_ACT] = {"act", SIM_OPK_VECTOR, .per_layer = true, .kernels = 1},
    [SIM_OP_DOWN_PROJ] = {"down_proj", SIM_OPK_GEMM, .per_layer = true, .kernels = 1},
    [SIM_OP_ROUTER] = {"router", SIM_OPK_GEMM, .per_layer = true, .kernels = 1},
    [SIM_OP_MOE_TOPK] = {"moe_topk", SIM_OPK_VECTOR, .per_layer = true, .kernels = 1},
    [SIM_OP_MOE_DISPATCH] = {"moe_dispatch", SIM_OPK_COMM, .per_layer = true, .kernels = 1,
                             .all_to_all = true},
    [SIM_OP_MOE_PERMUTE] = {"moe_permute", SIM_OPK_VECTOR, .per_layer = true, .kernels = 1},
    [SIM_OP_EXPERTS_GATE_UP] = {"experts_gate_up", SIM_OPK_GEMM, .per_layer = true, .kernels = 1},
    [SIM_OP_EXPERTS_ACT] = {"experts_act", SIM_OPK_VECTOR, .per_layer = true, .kernels = 1},
    [SIM_OP_EXPERTS_DOWN] = {"experts_down", SIM_OPK_GEMM, .per_layer = true, .kernels = 1},
    [SIM_OP_MOE_UNPERMUTE] = {"moe_unpermute", SIM_OPK_VECTOR, .per_layer = true, .kernels = 1},
    [SIM_OP_MOE_COMBINE] = {"moe_combine", SIM_OPK_COMM, .per_layer = true, .kernels = 1,
                            .all_to_all = true},
    [SIM_OP_SHARED_EXPERT] = {"shared_expert", SIM_OPK_GEMM, .per_layer = true, .kernels = 3},
    [SIM_OP_MLP_ALLREDUCE] = {"mlp_allreduce", SIM_OPK_COMM, .per_layer = true, .kernels = 1},
    [SIM_OP_FINAL_NORM] = {"final_norm", SIM_OPK_VECTOR, .kernels = 1},
    [SIM_OP_LM_HEAD] = {"lm_head", SIM_OPK_GEMM, .kernels = 1},
    [SIM_OP_LOGITS_GATHER] = {"logits_gather", SIM_OPK_COMM, .kernels = 1},
    [SIM_OP_SAMPLING] = {"sampling", SIM_OPK_VECTOR, .kernels = 4},
    [SIM_OP_DP_SYNC] = {"dp_sync", SIM_OPK_COMM, .kernels = 1},
};
static_assert(SIM_OP_COUNT == 54, "op_table must list every sim_op_id");

/* Layer `l` is one of n spread evenly over L layers. */
static bool spread(int64_t l, int64_t n, int64_t L) { return (l + 1) * n / L > l * n / L; }

bool sim_graph_op_in_layer(const sim_graph *g, sim_op_id id, int64_t layer)
{
    if (g->hybrid && sim_op_info(id)->per_layer) /* each op's layers spread evenly */
        return spread(layer, g->repeats[id], g->layers);
    switch (id) {
    case SIM_OP_GATE_UP_PROJ:
    case SIM_OP_ACT:
    case SIM_OP_DOWN_PROJ:
        return layer < g->dense_layers;
    case SIM_OP_ROUTER:
    case SIM_OP_MOE_TOPK:
    case SIM_OP_MOE_PERMUTE:
    case SIM_OP_MOE_UNPERMUTE:
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
    if (m->linear_layers > 0 && (m->lin_k_heads % tp != 0 || m->lin_v_heads % tp != 0))
        return sim_fail(err, SIM_EINPUT,
                        "--tp: value %d does not divide the linear layers' %lld key heads (or "
                        "groups) and %lld value heads of %s; expected a divisor of both",
                        tp, (long long)m->lin_k_heads, (long long)m->lin_v_heads, m->path);
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

int sim_par_dp(const sim_par *p)
{
    if (!p->dp_attention || p->tp <= 0)
        return 1;
    return p->dp > 0 ? p->dp : p->ep / p->tp;
}

bool sim_par_tp_moe(const sim_par *p) { return p->dp_attention && p->ep <= 1 && p->dp > 1; }

int sim_par_moe_tp(const sim_par *p)
{
    if (p->ep > 1)
        return 1;
    return sim_par_tp_moe(p) ? p->tp * p->dp : p->tp;
}

int sim_par_shared_tp(const sim_par *p) { return sim_par_tp_moe(p) ? sim_par_moe_tp(p) : p->tp; }

sim_par_experts sim_par_moe_slice(const sim_model *m, const sim_par *p)
{
    const bool ep = p->ep > 1;
    return (sim_par_experts){
        .experts = ep ? (double)(m->experts + p->routing.redundant) / p->ep : (double)m->experts,
        .intermediate = m->moe_intermediate / sim_par_moe_tp(p),
        .shared = m->shared_intermediate / sim_par_shared_tp(p)};
}

double sim_graph_attention_flops(double heads, double qk_dim, double v_dim, double pairs)
{
    return 2.0 * heads * (qk_dim + v_dim) * pairs;
}

double sim_graph_experts_touched(double experts, double k, double tokens)
{
    if (experts <= 0.0)
        return 0.0;
    return sim_moe_experts_touched(experts, k / experts, tokens);
}

/* The MoE-specific checks: EP against the experts and TP, the expert widths against TP. */
static sim_status check_moe(const sim_model *m, const sim_par *p, sim_err *err)
{
    if (p->ep < 1)
        return sim_fail(err, SIM_EINPUT, "--ep: value %d, expected >= 1", p->ep);
    if (p->dp < 0 || (p->dp > 1 && !p->dp_attention))
        return sim_fail(err, SIM_EINPUT,
                        "--dp: value %d applies to data-parallel attention groups; pass "
                        "--dp-attention (and a value >= 1)",
                        p->dp);
    if (p->dp_attention && p->ep == 1 && p->dp <= 1)
        return sim_fail(err, SIM_EINPUT,
                        "--dp-attention: needs expert parallelism (--ep > 1: attention runs "
                        "data-parallel over the EP group) or --dp > 1 (the MoE layers split by TP "
                        "over tp x dp GPUs)");
    if (sim_par_tp_moe(p) && p->tp != 1)
        return sim_fail(err, SIM_EINPUT,
                        "--tp: value %d with --dp %d and --dp-attention but no --ep: the MoE "
                        "layers split by TP over the DP groups take attention TP 1 (SGLang --tp "
                        "N --dp N --enable-dp-attention); expected --tp 1",
                        p->tp, p->dp);
    if (sim_par_tp_moe(p) && m->experts == 0)
        return sim_fail(err, SIM_EINPUT,
                        "--dp-attention: %s has no experts (a dense model); data-parallel "
                        "attention is priced for MoE models",
                        m->path);
    if (p->ep > 1 && p->dp > 0 && p->dp_attention && p->dp * p->tp != p->ep)
        return sim_fail(err, SIM_EINPUT,
                        "--dp: value %d with --ep %d and --tp %d, expected ep / tp = %d (or leave "
                        "it out)",
                        p->dp, p->ep, p->tp, p->tp > 0 ? p->ep / p->tp : 0);
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
    if (p->ep == 1 && p->imbalance != 1.0 && p->imbalance != 0.0)
        return sim_fail(err, SIM_EINPUT,
                        "--expert-imbalance: value %g applies to expert parallelism; pass --ep",
                        p->imbalance);
    if (p->imbalance != 0.0 && !(p->imbalance >= 1.0 && p->imbalance <= (double)p->ep))
        return sim_fail(err, SIM_EINPUT,
                        "--expert-imbalance: value %g, expected a number in [1, --ep %d] (the "
                        "busiest EP rank's routed tokens over the mean)",
                        p->imbalance, p->ep);
    if (m->experts > 0) {
        sim_status st = sim_moe_routing_check(&p->routing, m->experts, m->experts_per_tok,
                                              p->ep, err);
        if (st)
            return st;
    }
    const int mtp = sim_par_moe_tp(p), stp = sim_par_shared_tp(p);
    if (m->experts > 0 && p->ep == 1 && m->moe_intermediate % mtp != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--tp: %d GPUs do not divide moe_intermediate_size %lld of %s "
                        "(tensor-parallel experts); expected a divisor, or --ep",
                        mtp, (long long)m->moe_intermediate, m->path);
    if (m->shared_intermediate % stp != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--tp: %d GPUs do not divide the shared expert width %lld of %s", stp,
                        (long long)m->shared_intermediate, m->path);
    return SIM_OK;
}

/* Group-scaled weights (AWQ, GPTQ, W4A8: int4 or int8 weights a mixed-input kernel dequantizes,
 * one scale per group_size weights along K) need every quantized GEMM's K on this GPU to be a
 * whole number of groups; vLLM refuses the rest at load ("The input size is not aligned with the
 * quantized weight shape": GPTQLinearMethod.create_weights, vllm/model_executor/layers/
 * quantization/gptq.py, and AWQ's likewise). */
static sim_status check_groups(const sim_model *m, const sim_par *par, const sim_prec *prec,
                               sim_err *err)
{
    const int64_t g = prec->group_size;
    if (g <= 0)
        return SIM_OK;
    const sim_prec lp = sim_graph_linear_prec(m, prec);
    const bool dense = sim_dtype_get(lp.weight)->group_scaled && sim_graph_mixed_input(&lp, lp.weight);
    const bool experts = m->experts > 0 && sim_dtype_get(prec->weight)->group_scaled &&
                         sim_graph_mixed_input(prec, prec->weight);
    const int tp = par->tp;
    const int64_t attn_out = m->heads / tp * (m->mla ? m->v_head_dim : m->head_dim);
    const struct {
        const char *what;
        int64_t k;
        bool on;
    } ks[] = {
        {"hidden_size (the QKV and gate/up projections' K)", m->hidden, dense || experts},
        {"the attention output per GPU (o_proj's K)", attn_out, dense},
        {"intermediate_size per GPU (down_proj's K)", m->intermediate / tp,
         dense && m->moe_layers < m->layers},
        {"moe_intermediate_size per GPU (the experts' down K)",
         sim_par_moe_slice(m, par).intermediate, experts},
        {"q_lora_rank (q_up's K)", m->q_lora_rank, dense && m->mla && m->q_lora_rank > 0},
        {"kv_lora_rank (kv_up's K)", m->kv_lora_rank, dense && m->mla},
    };
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (ks[i].on && ks[i].k % g != 0)
            return sim_fail(err, SIM_EINPUT,
                            "--weight-group-size: value %lld does not divide %s, %lld, of %s at "
                            "--tp %d; expected a divisor (vLLM refuses the checkpoint: its "
                            "groups would straddle GPUs)",
                            (long long)g, ks[i].what, (long long)ks[i].k, m->path, tp);
    return SIM_OK;
}

sim_status sim_graph_check_par(const sim_model *m, const sim_par *par, const sim_prec *prec,
                               sim_err *err)
{
    sim_status st = check_tp(m, par->tp, prec, err);
    if (!st)
        st = check_moe(m, par, err);
    return st ? st : check_groups(m, par, prec, err);
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

double sim_graph_chunk_pairs(int64_t q, int64_t c, int64_t chunk)
{
    /* token p sees the (p mod chunk) + 1 keys of its chunk; walk the chunks q spans */
    double pairs = 0.0;
    for (int64_t p = c, end = c + q; p < end;) {
        int64_t start = p / chunk * chunk, stop = start + chunk < end ? start + chunk : end;
        double a = (double)(p - start) + 1.0, n = (double)(stop - p);
        pairs += n * a + n * (n - 1.0) / 2.0;
        p = stop;
    }
    return pairs;
}

/* Keys the chunked layers read for c + q tokens: from the chunk of the first new token on. */
static double chunk_seen(int64_t c, int64_t q, int64_t chunk)
{
    return (double)(c + q - c / chunk * chunk);
}

/* The window of the `attention` op: the model's when every layer slides, else none (a mixed
 * model's sliding layers are attention_sliding). */
static int64_t main_window(const sim_model *m)
{
    if (m->index_topk > 0) /* DSA: each query attends to its top-k keys */
        return m->index_topk;
    return m->sliding_layers == sim_model_attn_layers(m) && !m->chunked_attn ? m->sliding_window
                                                                              : 0;
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
    if (g->q > 1 && g->c > 0 && g->logits == g->q)
        s->verify_extra += (double)(g->q - 1);
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
    const bool mixed =
        m->sliding_layers > 0 && (m->sliding_layers < sim_model_attn_layers(m) || m->chunked_attn);
    for (size_t i = 0; i < n; i++) {
        sim_vision_image im;
        if (g[i].count > 0 && g[i].images > 0 &&
            sim_model_vision_image(m, g[i].image_w, g[i].image_h, &im)) {
            const double k = (double)(g[i].count * g[i].images);
            s.vis_images += k;
            s.vis_tiles += k * (double)im.tiles;
            s.vis_patches += k * (double)im.patches;
            s.vis_merged += k * (double)im.merged;
            s.vis_full_pairs += k * im.full_pairs;
            s.vis_window_pairs += k * im.window_pairs;
        }
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
        if (g[i].q > 1 && g[i].c > 0 && g[i].logits == g[i].q)
            s.verify_extra += cnt * (double)(g[i].q - 1);
        if (mixed && m->chunked_attn) {
            s.swa_pairs += cnt * sim_graph_chunk_pairs(g[i].q, g[i].c, m->sliding_window);
            s.swa_kv_tokens += cnt * chunk_seen(g[i].c, g[i].q, m->sliding_window);
        } else if (mixed) {
            s.swa_pairs += cnt * attn_pairs(g[i].q, g[i].c, m->sliding_window);
            s.swa_kv_tokens += cnt * seen_tokens(g[i].c, g[i].q, m->sliding_window);
        } else if (m->index_topk > 0) { /* the indexer scores the whole causal context */
            s.swa_pairs += cnt * attn_pairs(g[i].q, g[i].c, 0);
            s.swa_kv_tokens += cnt * (double)(g[i].c + g[i].q);
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

bool sim_graph_decode_linear(const sim_model *m)
{
    return main_window(m) <= 0 && m->sliding_layers == 0 && !m->chunked_attn &&
           m->index_topk <= 0;
}

void sim_graph_shape_add_decodes(sim_batch_shape *s, int64_t n, int64_t c_sum)
{
    const double k = (double)n, kv = (double)(c_sum + n); /* sum of c + 1 over the n */
    s->tokens += k;
    s->seqs += k;
    s->logits += k;
    s->pairs += kv; /* attn_pairs(1, c, 0) = c + 1 */
    s->kv_tokens += kv;
    s->dec_tokens += k;
    s->dec_pairs += kv;
    s->dec_kv_tokens += kv;
    s->dec_seqs += k;
}

/* How many of a group's `count` sequences, dealt round-robin from group `first`, group r
 * holds. */
static int64_t dealt(int64_t count, int64_t first, int r, int dp)
{
    int64_t off = ((r - first) % dp + dp) % dp;
    return count / dp + (off < count % dp ? 1 : 0);
}

bool sim_graph_shape_dp(const sim_model *m, const sim_seq_group *g, size_t n, int dp,
                        const double w[3], sim_batch_shape *busiest)
{
    if (dp < 2 || dp > SIM_GRAPH_DP_MAX)
        return false;
    double work[SIM_GRAPH_DP_MAX] = {0};
    bool held[SIM_GRAPH_DP_MAX] = {false};
    for (size_t i = 0; i < n; i++) {
        if (g[i].count <= 0)
            continue;
        const int64_t first = g[i].rank % dp;
        sim_seq_group one = g[i];
        one.count = 1;
        const sim_batch_shape per = sim_graph_shape(m, &one, 1); /* one sequence's share */
        const double cost = w[0] * per.tokens + w[1] * per.pairs + w[2] * per.kv_tokens;
        const int ranks = g[i].count < dp ? (int)g[i].count : dp;
        for (int j = 0; j < ranks; j++) {
            const int r = (int)((first + j) % dp);
            work[r] += cost * (double)dealt(g[i].count, first, r, dp);
            held[r] = true;
        }
    }
    int best = -1;
    for (int r = 0; r < dp; r++)
        if (held[r] && (best < 0 || work[r] > work[best]))
            best = r;
    if (best < 0)
        return false;
    *busiest = (sim_batch_shape){0};
    for (size_t i = 0; i < n; i++) {
        if (g[i].count <= 0)
            continue;
        sim_seq_group mine = g[i];
        mine.count = dealt(g[i].count, g[i].rank % dp, best, dp);
        if (mine.count == 0)
            continue;
        const sim_batch_shape part = sim_graph_shape(m, &mine, 1);
#define ADD(f) busiest->f += part.f;
        ADD(tokens) ADD(seqs) ADD(logits) ADD(pairs) ADD(kv_tokens) ADD(swa_pairs)
        ADD(swa_kv_tokens) ADD(dec_tokens) ADD(dec_pairs) ADD(dec_kv_tokens) ADD(dec_seqs)
        ADD(verify_extra)
#undef ADD
    }
    return true;
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
        /* the indexer's wq_b, replicated on every rank */
        const double idx = (double)(m->q_lora_rank * m->index_heads * m->index_head_dim);
        return q + kv + h * (double)m->v_head_dim * d + idx;
    }
    const double hd = (double)m->head_dim, hkv = (double)sim_graph_kv_heads_per_gpu(m, tp);
    const double qkv_n = ((m->attn_out_gate ? 2.0 : 1.0) * h + 2.0 * hkv) * hd;
    return d * qkv_n + h * hd * d;
}

/* The attention block's 16-bit extras per GPU: biases, sinks, q/k norms, MLA's latent norms. */
static double attn_extra_bytes(const sim_model *m, int tp, double rb)
{
    const double h = (double)(m->heads / tp), hd = (double)m->head_dim;
    if (m->mla) /* the latents' norms; the indexer's 16-bit wk + weights_proj and k_norm */
        return ((double)m->q_lora_rank + (double)m->kv_lora_rank +
                (m->index_topk > 0 ? (double)(m->hidden * (m->index_head_dim + m->index_heads) +
                                              2 * m->index_head_dim)
                                   : 0.0)) *
               rb;
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
    const sim_par_experts sl = sim_par_moe_slice(m, par);
    const double f = (double)sl.intermediate;
    return sl.experts * 3.0 * d * f + 3.0 * d * (double)sl.shared;
}

static double moe_extra_bytes(const sim_model *m, const sim_par *par, double rb)
{
    const double d = (double)m->hidden, e = (double)m->experts;
    const sim_par_experts sl = sim_par_moe_slice(m, par);
    const double local = sl.experts, f = (double)sl.intermediate;
    double b = e * d * rb + (m->shared_expert_gate ? d * rb : 0.0);
    if (m->moe_bias)
        b += (local * (2.0 * f + d) + e) * rb;
    return b;
}

double sim_graph_attn_params(const sim_model *m, int tp) { return attn_core_params(m, tp); }

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
    const double nd = (double)(2 + m->extra_norms) * d * rb;
    const double dense = (core + 3.0 * d * f) * lb + nd + extra;
    const double moe = core * lb + moe_core_params(m, par) * wb + nd + extra +
                       moe_extra_bytes(m, par, rb);
    double layers = (double)(m->layers - m->moe_layers) * dense + (double)m->moe_layers * moe;
    if (m->linear_layers > 0 || m->no_mixer_layers > 0 || m->no_mlp_layers > 0) {
        /* a hybrid plan: each mixer (attention or linear) and each MLP with its norm */
        const int64_t attn = sim_model_attn_layers(m), mlp = sim_model_mlp_layers(m);
        const double norms =
            (double)(attn + m->linear_layers + mlp + m->layers * m->extra_norms) * d * rb;
        layers = (double)attn * (core * lb + extra) +
                 (double)m->linear_layers * (sim_graph_linear_core_params(m, tp) * lb +
                                             sim_graph_linear_extra_bytes(m, tp, rb)) +
                 (double)(mlp - m->moe_layers) * (m->mlp_ungated ? 2.0 : 3.0) * d * f * lb +
                 (double)m->moe_layers * (moe_core_params(m, par) * wb + moe_extra_bytes(m, par, rb)) +
                 norms;
    }
    const double v_gpu = (double)((m->vocab + tp - 1) / tp);
    const double tables = v_gpu * d * rb * (m->tied_embeddings ? 1.0 : 2.0);
    /* a multimodal checkpoint's vision tower (Llama 4): 16-bit, split over the TP ranks as
     * vLLM's Llama4VisionModel splits its linear layers */
    return layers + tables + d * rb + m->vision_params * rb / (double)tp;
}

double sim_graph_kv_bytes_per_token(const sim_model *m, int tp, const sim_prec *prec)
{
    sim_par par = sim_par_tp(tp);
    return sim_graph_kv_bytes_per_token_par(m, &par, prec);
}

double sim_graph_kv_bytes_per_token_par(const sim_model *m, const sim_par *par,
                                        const sim_prec *prec)
{
    const double kb = sim_dtype_bytes(prec->kv), L = (double)sim_model_attn_layers(m);
    double per_token = m->mla ? L * ((double)(m->kv_lora_rank + m->qk_rope_dim) * kb +
                                     sim_graph_indexer_key_bytes(m))
                              : L * 2.0 * (double)sim_graph_kv_heads_per_gpu(m, par->tp) *
                                    (double)m->head_dim * kb;
    return per_token / sim_par_dp(par);
}
