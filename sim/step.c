/* step.c - one iteration = sum of its ops. */
#include "step.h"
#include "step_internal.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

sim_moe_kernel sim_step_moe_kernel(const sim_step_cfg *cfg)
{
    return sim_graph_moe_family(&cfg->prec, cfg->moe_kernel, cfg->moe_kernel_quantized,
                                cfg->moe_kernel_mixed);
}

sim_par sim_step_par(const sim_step_cfg *cfg)
{
    return (sim_par){.tp = cfg->tp,
                     .ep = cfg->ep > 0 ? cfg->ep : 1,
                     .dp_attention = cfg->dp_attention,
                     .dp = cfg->dp,
                     .imbalance = cfg->expert_imbalance > 0.0 ? cfg->expert_imbalance : 0.0,
                     .routing = cfg->routing,
                     .moe_kernel = cfg->moe_kernel,
                     .moe_kernel_quantized = cfg->moe_kernel_quantized,
                     .moe_kernel_mixed = cfg->moe_kernel_mixed,
                     .moe_cache = cfg->moe_cache};
}

int sim_step_gpus(const sim_step_cfg *cfg)
{
    sim_par par = sim_step_par(cfg);
    return cfg->tp * sim_par_dp(&par);
}

void sim_step_par_text(const sim_step_cfg *cfg, char *buf, size_t len)
{
    sim_par par = sim_step_par(cfg);
    buf[0] = '\0';
    if (sim_par_tp_moe(&par)) {
        snprintf(buf, len, " (TP %d, DP attention %d, MoE TP %d)", par.tp, sim_par_dp(&par),
                 sim_par_moe_tp(&par));
        return;
    }
    if (par.ep <= 1)
        return;
    int n = snprintf(buf, len, " (TP %d, EP %d", par.tp, par.ep);
    if (n > 0 && (size_t)n < len && par.dp_attention)
        n += snprintf(buf + n, len - (size_t)n, ", DP attention %d", sim_par_dp(&par));
    if (n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, ", all-to-all %s",
                      sim_a2a_mode_name(cfg->moe_a2a));
    if (n > 0 && (size_t)n < len && cfg->tbo)
        n += snprintf(buf + n, len - (size_t)n, ", TBO");
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ")");
}

double sim_step_op_repeats(const sim_step_result *r, sim_op_id id)
{
    return (double)r->graph.repeats[id];
}

static sim_bound largest(const sim_step_result *r)
{
    sim_op_cost sums = {.t_math_ns = r->t_math_ns,
                        .t_mem_ns = r->t_mem_ns,
                        .t_net_ns = r->t_net_ns,
                        .t_launch_ns = r->t_launch_ns + r->t_host_ns};
    return sim_cost_bound(&sums);
}

/* Sums over a step's ops (per-layer ops counted `layers` times). */
typedef struct step_sums {
    double flops, bytes, net_bytes, math, mem, net, launch, busy, kernels;
} step_sums;
static_assert(sizeof(step_sums) == sizeof(((sim_step_memo *)0)->base),
              "sim_step_memo.base must hold a step_sums");

static void add_op(step_sums *s, const sim_step_result *r, int i)
{
    const sim_op *op = &r->graph.ops[i];
    const sim_op_cost *c = &r->cost[i];
    double n = sim_step_op_repeats(r, (sim_op_id)i);
    s->flops += n * op->flops;
    s->bytes += n * sim_op_bytes(op);
    s->net_bytes += n * op->net_bytes;
    s->math += n * c->t_math_ns;
    s->mem += n * c->t_mem_ns;
    s->net += n * c->t_net_ns;
    s->launch += n * c->t_launch_ns;
    s->kernels += op->fused ? 0.0
                            : n * ((op->kernels > 0 ? op->kernels : sim_op_info(op->id)->kernels) +
                                   c->extra_kernels);
    s->busy += n * (c->t_math_ns > c->t_mem_ns ? c->t_math_ns : c->t_mem_ns);
}

/* Every op that does not depend on the contexts: what a memo can keep between decode steps. */
static step_sums sums_but_attention(const sim_step_result *r)
{
    step_sums s = {0};
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (!sim_op_info((sim_op_id)i)->context)
            add_op(&s, r, i);
    return s;
}

/* The ops that depend on the contexts, in order, into ids; returns how many. */
static int context_ops(int ids[SIM_OP_COUNT])
{
    int n = 0;
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (sim_op_info((sim_op_id)i)->context)
            ids[n++] = i;
    return n;
}

/* The step's totals: the other ops' sums plus the context-dependent ones (ids, in order), always
 * in that order, so a memoized step adds up exactly as a fresh one. */
static void totals_of(sim_step_result *r, const step_sums *base, const int *ids, int n_ids)
{
    step_sums s = *base;
    /* an op in no layer adds n x 0 = +0 to each (finite, non-negative) sum: skipped, exactly */
    for (int k = 0; k < n_ids; k++)
        if (r->graph.repeats[ids[k]] != 0)
            add_op(&s, r, ids[k]);
    r->flops = s.flops;
    r->bytes = s.bytes;
    r->net_bytes = s.net_bytes;
    r->t_math_ns = s.math;
    r->t_mem_ns = s.mem;
    r->t_net_ns = s.net;
    r->t_launch_ns = s.launch;
    r->busy_ns = s.busy;
    r->kernels = s.kernels;
}

static void totals(sim_step_result *r, const step_sums *base)
{
    int ids[SIM_OP_COUNT];
    totals_of(r, base, ids, context_ops(ids));
}

/* The prediction, its bounds and its bound label, once the hidden network time and the exposed
 * host time are known. */
static void finish(sim_step_result *r, double hidden_ns, double host_ns)
{
    r->net_hidden_ns = hidden_ns;
    r->net_exposed_ns = r->t_net_ns - hidden_ns;
    r->t_host_ns = host_ns;
    double serial = r->t_launch_ns + host_ns;
    double top = r->t_math_ns;
    if (r->t_mem_ns > top)
        top = r->t_mem_ns;
    if (r->t_net_ns > top)
        top = r->t_net_ns;
    r->t_ns = r->busy_ns + serial + r->net_exposed_ns;
    r->t_lower_ns = serial + top;
    r->t_upper_ns = serial + r->t_math_ns + r->t_mem_ns + r->t_net_ns;
    r->bound = largest(r);
    /* lower <= time <= upper (sums in another order may differ in their last bits) */
    SIM_ASSERT(!(r->t_ns < r->t_lower_ns * (1.0 - 1e-9)) &&
               !(r->t_ns > r->t_upper_ns * (1.0 + 1e-9)));
}

double sim_step_host_ns(double cpu_ns, double sync_ns, double dispatch_ns, double gpu_ns,
                        bool async_sched)
{
    if (!async_sched)
        return cpu_ns + (dispatch_ns > gpu_ns ? dispatch_ns - gpu_ns : 0.0);
    double ahead = cpu_ns - sync_ns + dispatch_ns;
    return sync_ns + (ahead > gpu_ns ? ahead - gpu_ns : 0.0);
}

/* The CPU time of an eager step's launches (kernels x the engine's dispatch cost per kernel);
 * a step replayed from a graph dispatches one launch, priced in the iteration's overhead. */
static double dispatch_ns(const sim_step_cfg *cfg, const sim_step_result *r)
{
    return cfg->eager ? r->kernels * cfg->eager_kernel_cpu_ns : 0.0;
}

bool sim_step_eager(const sim_step_cfg *cfg, bool has_prefill) { return cfg->eager || has_prefill; }

int64_t sim_step_graph_seqs(const sim_step_cfg *cfg, int64_t seqs)
{
    if (cfg->eager || (cfg->graph_max_bs > 0 && seqs > cfg->graph_max_bs))
        return 0;
    if (cfg->graph_max_bs == 0 || seqs <= 2)
        return seqs;
    int64_t pad = seqs <= 4 ? 4 : (seqs + 7) / 8 * 8;
    return pad < cfg->graph_max_bs ? pad : cfg->graph_max_bs;
}

double sim_step_launch_ns(const sim_step_cfg *cfg)
{
    return cfg->eager ? cfg->hw->launch_ns : cfg->hw->graph_launch_ns;
}

sim_op_cost sim_step_cost_op(const sim_step_cfg *cfg, const sim_op *op, double launch_ns)
{
    const bool between_pieces = cfg->piecewise_graphs && !cfg->eager && op->present &&
                                !op->fused && sim_op_info(op->id)->kind == SIM_OPK_ATTENTION;
    /* an engine whose dense block-fp8 GEMMs fill the SMs (DeepGEMM) has no thread-block bound
     * there (cost.h); its Triton fused_moe keeps its own (sim_cost_block_fp8_moe_cta_ns) */
    if (op->block_scaled && !cfg->block_fp8_triton && !sim_cost_is_grouped(op)) {
        sim_op o = *op;
        o.block_scaled = false;
        return sim_step_cost_op(cfg, &o, launch_ns);
    }
    if (!between_pieces) {
        sim_op_cost c = sim_cost_op(cfg->hw, op, launch_ns);
        sim_kfloor_raise(cfg->hw, &cfg->kfloor, cfg->model, op, &c); /* its small kernels' floors */
        return c;
    }
    sim_op_cost c = sim_cost_op(cfg->hw, op, cfg->hw->launch_ns);
    c.t_launch_ns += cfg->hw->launch_ns; /* the next graph piece */
    c.t_ns += cfg->hw->launch_ns;
    c.bound = sim_cost_bound(&c);
    return c;
}

/* The engine's CPU work of the step (its iteration, its requests, its eager launches), the part
 * of it the GPU waits for, and the step's time and bounds. */
static void finish_host(const sim_step_cfg *cfg, double seqs, double hidden, sim_step_result *out)
{
    const double sched = cfg->iteration_overhead_ns + cfg->request_overhead_ns * seqs +
                         cfg->sync_overhead_ns;
    const double launch_cpu = dispatch_ns(cfg, out);
    const double gpu = out->busy_ns + out->t_launch_ns + out->t_net_ns - hidden;
    out->t_cpu_ns = sched + launch_cpu;
    finish(out, hidden,
           sim_step_host_ns(sched, cfg->sync_overhead_ns, launch_cpu, gpu, cfg->async_sched));
}

/* Totals, overlap, host time and bounds once every op is priced. */
/* The sequences whose per-request CPU work the step waits for: with data-parallel attention each
 * group's scheduler runs in its own process, so the slowest group's (its share: the busiest
 * group's own, else the mean rounded up), else the step's. */
static double host_seqs(const sim_step_cfg *cfg, const sim_batch_shape *s)
{
    const sim_par par = sim_step_par(cfg);
    const int dp = sim_par_dp(&par);
    if (dp <= 1)
        return s->seqs;
    return s->busiest ? s->busiest->seqs : ceil(s->seqs / dp);
}

/* Totals (base plus the context ops ids), overlap, host time and bounds once every op is
 * priced. *share (NULL: none kept) is the overlap's share of each op's network time that
 * out->hidden_ns holds: the other ops' hidden times are rewritten only when it moved. Returns
 * whether they were kept. */
static bool price_finish_ops(const sim_step_cfg *cfg, const step_sums *base, double seqs,
                             const int *ids, int n_ids, double *share, sim_step_result *out)
{
    bool kept = true;
    totals_of(out, base, ids, n_ids);
    double hidden = cfg->overlap * out->t_net_ns;
    if (hidden > out->busy_ns)
        hidden = out->busy_ns;
    const double sh = out->t_net_ns > 0.0 ? hidden / out->t_net_ns : 0.0;
    if (!share || *share != sh) {
        for (int i = 0; i < SIM_OP_COUNT; i++)
            out->hidden_ns[i] = out->cost[i].t_net_ns * sh;
        kept = false;
    } else /* the other ops' network times and the share are those out holds */
        for (int k = 0; k < n_ids; k++)
            out->hidden_ns[ids[k]] = out->cost[ids[k]].t_net_ns * sh;
    if (share)
        *share = sh;
    finish_host(cfg, seqs, hidden, out);
    return kept;
}

static void price_finish(const sim_step_cfg *cfg, const step_sums *base, double seqs,
                         sim_step_result *out)
{
    int ids[SIM_OP_COUNT];
    (void)price_finish_ops(cfg, base, seqs, ids, context_ops(ids), NULL, out);
}

/* The decode attention kernel the engine runs over this run's KV cache format (MLA's decode
 * kernels all split the context: dattn.h). */
static sim_dattn_kernel decode_kernel(const sim_step_cfg *cfg)
{
    if (cfg->model->mla)
        return SIM_DATTN_SPLIT;
    return sim_dtype_bytes(cfg->prec.kv) < 2.0 ? cfg->decode_attn_quant_kv : cfg->decode_attn;
}

/* Builds and prices every op of the shape (the graph, each op's cost, the fused norms). */
static void build_cost(const sim_step_cfg *cfg, const sim_batch_shape *s, sim_step_result *out)
{
    /* the graph, the result's first and largest part, sim_graph_build_par clears itself: the
     * rest here (a static sweep point builds two steps; each was cleared twice) */
    static_assert(offsetof(sim_step_result, graph) == 0, "sim_step_result starts with its graph");
    memset((char *)out + sizeof out->graph, 0, sizeof *out - sizeof out->graph);
    sim_par par = sim_step_par(cfg);
    sim_graph_build_par(cfg->model, &par, &cfg->prec, s, &out->graph);
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (out->graph.ops[i].net_kind == SIM_COLL_ALLREDUCE)
            out->graph.ops[i].net_algo = sim_collective_engine_algo(
                cfg->hw, out->graph.ops[i].net_msg_bytes, out->graph.ops[i].net_ranks,
                cfg->allreduce, cfg->vllm_stages);
    out->graph.ops[SIM_OP_ATTENTION].dattn = decode_kernel(cfg);
    if (cfg->moe_a2a != SIM_A2A_AUTO) {
        out->graph.ops[SIM_OP_MOE_DISPATCH].a2a_mode = cfg->moe_a2a;
        out->graph.ops[SIM_OP_MOE_COMBINE].a2a_mode = cfg->moe_a2a;
    } else if (!cfg->dp_attention) {
        /* EP over the TP group: every rank already holds every token, runs its own experts on
         * the ones routed to them and the MLP all-reduce sums the outputs (vLLM and SGLang
         * without DeepEP, TensorRT-LLM without attention DP): no all-to-all (a2a.h) */
        out->graph.ops[SIM_OP_MOE_DISPATCH].present = false;
        out->graph.ops[SIM_OP_MOE_COMBINE].present = false;
    }
    if (cfg->fuse_qk_norm_rope)
        sim_graph_fuse_qk_norm_rope(&out->graph);
    sim_graph_unfuse_act_quant(&out->graph.ops[SIM_OP_ACT_QUANT], cfg->model, cfg->tp, &cfg->prec,
                               out->graph.tokens, cfg->act_quant_kernels);
    sim_graph_block_quant(&out->graph, sim_dtype_bytes(sim_graph_resid_dtype(cfg->model, &cfg->prec)));
    double launch = sim_step_launch_ns(cfg);
    for (int i = 0; i < SIM_OP_COUNT; i++)
        out->cost[i] = sim_step_cost_op(cfg, &out->graph.ops[i], launch);
    /* every all-reduce of a step has the same T x d message, so one algorithm: where it runs as
     * a kernel of the engine (not NCCL's), the norm after it can be fused into it */
    sim_coll_algo ar = out->cost[SIM_OP_ATTN_ALLREDUCE].coll_algo;
    if (cfg->fuse_allreduce_norm && out->graph.ops[SIM_OP_ATTN_ALLREDUCE].present &&
        (ar == SIM_COLL_ONESHOT || ar == SIM_COLL_TWOSHOT || ar == SIM_COLL_NVLS)) {
        static const sim_op_id norms[] = {SIM_OP_ATTN_NORM, SIM_OP_MLP_NORM, SIM_OP_FINAL_NORM};
        for (size_t i = 0; i < sizeof norms / sizeof norms[0]; i++) {
            sim_graph_fuse_norm(&out->graph.ops[norms[i]],
                                sim_dtype_bytes(sim_graph_resid_dtype(cfg->model, &cfg->prec)));
            out->cost[norms[i]] = sim_step_cost_op(cfg, &out->graph.ops[norms[i]], launch);
        }
    }
}

/* Builds and prices every op of the shape; returns the sums over every op but attention (what a
 * memo keeps). */
static step_sums price_shape(const sim_step_cfg *cfg, const sim_batch_shape *s,
                             sim_step_result *out)
{
    build_cost(cfg, s, out);
    step_sums base = sums_but_attention(out);
    price_finish(cfg, &base, host_seqs(cfg, s), out);
    return base;
}

/* ---- two-batch overlap (step.h) ---- */

bool sim_step_tbo_applies(const sim_step_cfg *cfg, const sim_batch_shape *s)
{
    return cfg->tbo && cfg->ep > 1 && cfg->model->moe_layers > 0 &&
           (s->seqs >= 2.0 || s->tokens >= 2.0);
}

double sim_step_tbo_makespan(const double a[4], const double b[4], int64_t layers)
{
    const double *mb[2] = {a, b};
    double done[2] = {0.0, 0.0}; /* when each micro-batch's last segment ended */
    double stream[2] = {0.0, 0.0}; /* when the compute (0) and communication (1) streams free */
    for (int64_t l = 0; l < layers; l++)
        for (int seg = 0; seg < 4; seg++) /* c0, x0, c1, x1: even compute, odd communication */
            for (int m = 0; m < 2; m++) {
                double *free_at = &stream[seg & 1];
                double start = done[m] > *free_at ? done[m] : *free_at;
                done[m] = *free_at = start + mb[m][seg];
            }
    return done[0] > done[1] ? done[0] : done[1];
}

/* The share of an op's instances that run in the MoE layers (the MoE ops: all; the dense MLP's:
 * none; the others' spread evenly over the layers). */
static double moe_share(const sim_graph *g, int i)
{
    if (!sim_op_info((sim_op_id)i)->per_layer || g->repeats[i] == 0 || g->layers == 0)
        return 0.0;
    if (i == SIM_OP_GATE_UP_PROJ || i == SIM_OP_ACT || i == SIM_OP_DOWN_PROJ)
        return 0.0;
    if (i >= SIM_OP_ROUTER && i <= SIM_OP_SHARED_EXPERT)
        return 1.0;
    return (double)(g->layers - g->dense_layers) / (double)g->layers;
}

/* One micro-batch's MoE layer as the schedule's four segments (c0, x0, c1, x1), each op's time
 * per MoE layer (its instances there over the MoE layers); a collective's launch stays on the
 * compute stream. */
static void tbo_segments(const sim_step_result *h, double seg[4])
{
    const sim_graph *g = &h->graph;
    const double moe_layers = (double)(g->layers - g->dense_layers);
    seg[0] = seg[1] = seg[2] = seg[3] = 0.0;
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        if (!g->ops[i].present || moe_share(g, i) == 0.0)
            continue;
        const sim_op_cost *c = &h->cost[i];
        const double per = moe_share(g, i) * (double)g->repeats[i] / moe_layers;
        const bool experts = i == SIM_OP_MOE_PERMUTE || i == SIM_OP_EXPERTS_GATE_UP ||
                             i == SIM_OP_EXPERTS_ACT || i == SIM_OP_EXPERTS_DOWN ||
                             i == SIM_OP_MOE_UNPERMUTE;
        if (i == SIM_OP_MOE_DISPATCH || i == SIM_OP_MOE_COMBINE) {
            seg[i == SIM_OP_MOE_DISPATCH ? 1 : 3] += per * c->t_net_ns;
            seg[i == SIM_OP_MOE_DISPATCH ? 0 : 2] += per * (c->t_ns - c->t_net_ns);
        } else {
            seg[experts ? 2 : 0] += per * c->t_ns;
        }
    }
}

/* The two micro-batches' shapes: A ceil(seqs / 2) sequences (one sequence: ceil(tokens / 2) of
 * its tokens), B the rest; what is summed over sequences in proportion. */
static void tbo_split(const sim_batch_shape *s, sim_batch_shape *a, sim_batch_shape *b)
{
    const bool by_seq = s->seqs >= 2.0;
    const double fa = by_seq ? ceil(s->seqs / 2.0) / s->seqs : ceil(s->tokens / 2.0) / s->tokens;
    *a = *s;
    *b = *s;
    a->tokens = ceil(s->tokens * fa);
    b->tokens = s->tokens - a->tokens;
    a->seqs = by_seq ? ceil(s->seqs / 2.0) : 1.0;
    b->seqs = by_seq ? s->seqs - a->seqs : 1.0;
    a->logits = ceil(s->logits * fa);
    b->logits = s->logits - a->logits;
    a->dec_seqs = ceil(s->dec_seqs * fa);
    b->dec_seqs = s->dec_seqs - a->dec_seqs;
    const double dec = s->tokens > 0.0 ? s->dec_tokens / s->tokens : 0.0;
    a->dec_tokens = a->tokens * dec;
    b->dec_tokens = b->tokens * dec;
#define SPLIT(f)                                                                                       a->f = s->f * fa;                                                                                  b->f = s->f - a->f;
    SPLIT(pairs) SPLIT(kv_tokens) SPLIT(swa_pairs) SPLIT(swa_kv_tokens) SPLIT(dec_pairs)
    SPLIT(dec_kv_tokens) SPLIT(verify_extra)
#undef SPLIT
}


/* The whole step under two-batch overlap (step.h): the full batch's ops outside the MoE layers,
 * the two halves' inside, the schedule's makespan for the MoE layers. */
static void price_tbo(const sim_step_cfg *cfg, const sim_batch_shape *s, sim_step_result *out)
{
    sim_batch_shape sa, sb, ra, rb;
    tbo_split(s, &sa, &sb);
    if (s->busiest) { /* the slowest group's halves */
        tbo_split(s->busiest, &ra, &rb);
        sa.busiest = &ra;
        sb.busiest = &rb;
    }
    sim_step_result ha, hb;
    build_cost(cfg, &sa, &ha);
    build_cost(cfg, &sb, &hb);
    build_cost(cfg, s, out);
    double a[4], b[4];
    tbo_segments(&ha, a);
    tbo_segments(&hb, b);
    const int64_t moe_layers = out->graph.layers - out->graph.dense_layers;
    const double makespan = sim_step_tbo_makespan(a, b, moe_layers);
    const double serial = (double)moe_layers * (a[0] + a[1] + a[2] + a[3] + b[0] + b[1] + b[2] + b[3]);
    const double net_moe = (double)moe_layers * (a[1] + a[3] + b[1] + b[3]);
    /* each op: its instances outside the MoE layers at the full batch, inside as A + B */
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        const double share = moe_share(&out->graph, i);
        if (share == 0.0 || !out->graph.ops[i].present)
            continue;
        sim_op *o = &out->graph.ops[i];
        sim_op_cost *c = &out->cost[i];
#define MIX(f) o->f = (1.0 - share) * o->f + share * (ha.graph.ops[i].f + hb.graph.ops[i].f);
        OP_FIELDS(MIX)
#undef MIX
#define MIX(f) c->f = (1.0 - share) * c->f + share * (ha.cost[i].f + hb.cost[i].f);
        COST_FIELDS(MIX)
#undef MIX
        c->bound = sim_cost_bound(c);
    }
    step_sums base = sums_but_attention(out);
    totals(out, &base);
    const double hidden_tbo = serial > makespan ? serial - makespan : 0.0;
    const double net_rest = out->t_net_ns > net_moe ? out->t_net_ns - net_moe : 0.0;
    double hidden = hidden_tbo + cfg->overlap * net_rest;
    if (hidden > out->busy_ns)
        hidden = out->busy_ns;
    const double share_moe = net_moe > 0.0 ? hidden_tbo / net_moe : 0.0;
    const double share_rest = net_rest > 0.0 ? (hidden - hidden_tbo) / net_rest : 0.0;
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        bool moe_comm = i == SIM_OP_MOE_DISPATCH || i == SIM_OP_MOE_COMBINE;
        out->hidden_ns[i] = out->cost[i].t_net_ns * (moe_comm ? share_moe : share_rest);
    }
    finish_host(cfg, host_seqs(cfg, s), hidden, out);
}

bool sim_step_dp_busiest(const sim_step_cfg *cfg, const sim_seq_group *groups, size_t n_groups,
                         sim_batch_shape *busiest)
{
    const sim_par par = sim_step_par(cfg);
    const int dp = sim_par_dp(&par);
    if (dp < 2)
        return false;
    const sim_model *m = cfg->model;
    const sim_hw *hw = cfg->hw;
    const sim_dtype c = sim_graph_gemm_dtype(&cfg->prec);
    const double gemm = hw->peak_flops[c] * sim_hw_gemm_frac(hw, hw->eff_gemm[c]);
    const double attn = (hw->peak_flops[SIM_DT_BF16] > 0.0 ? hw->peak_flops[SIM_DT_BF16]
                                                           : hw->peak_flops[SIM_DT_FP16]) *
                        hw->eff_attention;
    const double h = (double)(m->heads / cfg->tp);
    const double kvl = (double)m->kv_lora_rank, hd = (double)m->head_dim;
    const double lat = kvl + (double)m->qk_rope_dim; /* MLA's absorbed decode */
    const double pair = m->mla ? sim_graph_attention_flops(h, lat, kvl, 1.0)
                               : sim_graph_attention_flops(h, hd, hd, 1.0);
    const double kv = sim_graph_kv_bytes_per_token(m, cfg->tp, &cfg->prec) / (double)m->layers;
    const double w[3] = {
        gemm > 0.0 ? 2.0 * sim_graph_attn_params(m, cfg->tp) / gemm * 1e9 : 0.0,
        attn > 0.0 ? pair / attn * 1e9 : 0.0,
        kv / (hw->hbm_bytes_per_s * hw->eff_attn_memory) * 1e9};
    return sim_graph_shape_dp(m, groups, n_groups, dp, w, busiest);
}

void sim_step_price(const sim_step_cfg *cfg, const sim_seq_group *groups, size_t n_groups,
                    sim_step_result *out)
{
    sim_batch_shape s = sim_graph_shape(cfg->model, groups, n_groups), busy;
    if (sim_step_dp_busiest(cfg, groups, n_groups, &busy))
        s.busiest = &busy;
    if (sim_step_tbo_applies(cfg, &s))
        price_tbo(cfg, &s, out);
    else
        price_shape(cfg, &s, out);
}

/* sim_step_price_memo of the step's shape s (busy: its slowest data-parallel group's, zero when
 * none). */
static const sim_step_result *price_memo_shape(const sim_step_cfg *cfg, sim_batch_shape s,
                                               const sim_batch_shape *busy, sim_step_memo *memo)
{
    const double rank[4] = {busy->tokens, busy->seqs, busy->logits, busy->dec_tokens};
    step_sums base;
    if (sim_step_tbo_applies(cfg, &s)) { /* the halves' ops change with the split: no reuse */
        price_tbo(cfg, &s, &memo->r);
        memo->valid = false;
        memo->hit = false;
        return &memo->r;
    }
    if (!memo->valid || memo->tokens != s.tokens || memo->seqs != s.seqs ||
        memo->logits != s.logits || memo->dec_tokens != s.dec_tokens ||
        memo->vis_patches != s.vis_patches || memo->vis_window_pairs != s.vis_window_pairs ||
        memo->rank[0] != rank[0] || memo->rank[1] != rank[1] || memo->rank[2] != rank[2] ||
        memo->rank[3] != rank[3]) {
        base = price_shape(cfg, &s, &memo->r);
        memcpy(memo->base, &base, sizeof base);
        memo->n_ctx = context_ops(memo->ctx_ops);
        const double net = memo->r.t_net_ns;
        memo->share = net > 0.0 ? memo->r.net_hidden_ns / net : 0.0;
        memo->valid = true;
        memo->tokens = s.tokens;
        memo->seqs = s.seqs;
        memo->logits = s.logits;
        memo->dec_tokens = s.dec_tokens;
        memo->vis_patches = s.vis_patches;
        memo->vis_window_pairs = s.vis_window_pairs;
        memcpy(memo->rank, rank, sizeof rank);
        memo->hit = false;
        return &memo->r;
    }
    /* same tokens, sequences, logits and decode tokens: only the context-dependent ops changed */
    sim_par par = sim_step_par(cfg);
    sim_graph_rebuild_context(cfg->model, &par, &cfg->prec, &s, &memo->r.graph);
    memo->r.graph.ops[SIM_OP_ATTENTION].dattn = decode_kernel(cfg);
    const double launch = sim_step_launch_ns(cfg);
    for (int k = 0; k < memo->n_ctx; k++) {
        const int i = memo->ctx_ops[k];
        /* an absent op costs nothing (sim_step_cost_op's own answer for it) */
        memo->r.cost[i] = memo->r.graph.ops[i].present
                              ? sim_step_cost_op(cfg, &memo->r.graph.ops[i], launch)
                              : (sim_op_cost){0};
    }
    memcpy(&base, memo->base, sizeof base);
    memo->hit = price_finish_ops(cfg, &base, host_seqs(cfg, &s), memo->ctx_ops, memo->n_ctx,
                                 &memo->share, &memo->r);
    return &memo->r;
}

const sim_step_result *sim_step_price_memo(const sim_step_cfg *cfg, const sim_seq_group *groups,
                                           size_t n_groups, sim_step_memo *memo)
{
    sim_batch_shape s = sim_graph_shape(cfg->model, groups, n_groups), busy = {0};
    if (sim_step_dp_busiest(cfg, groups, n_groups, &busy))
        s.busiest = &busy;
    return price_memo_shape(cfg, s, &busy, memo);
}

/* The way of a shape's counts (whole numbers, far below 2^64). */
static const sim_step_result *price_way(const sim_step_cfg *cfg, sim_batch_shape s,
                                        const sim_batch_shape *busy, sim_step_memo_ways *m)
{
    const uint64_t h = (uint64_t)s.tokens * 0x9E3779B97F4A7C15u + (uint64_t)s.seqs * 0xC2B2AE35u +
                       (uint64_t)s.logits * 0x165667B1u + (uint64_t)s.dec_tokens;
    return price_memo_shape(cfg, s, busy, &m->way[(h ^ (h >> 29)) % SIM_STEP_MEMO_WAYS]);
}

const sim_step_result *sim_step_price_memo_ways(const sim_step_cfg *cfg,
                                                const sim_seq_group *groups, size_t n_groups,
                                                sim_step_memo_ways *m)
{
    sim_batch_shape s = sim_graph_shape(cfg->model, groups, n_groups), busy = {0};
    if (sim_step_dp_busiest(cfg, groups, n_groups, &busy))
        s.busiest = &busy;
    return price_way(cfg, s, &busy, m);
}

const sim_step_result *sim_step_price_memo_ways_plus(const sim_step_cfg *cfg,
                                                     const sim_seq_group *groups,
                                                     size_t n_groups, int64_t n, int64_t c_sum,
                                                     sim_step_memo_ways *m)
{
    sim_batch_shape s = sim_graph_shape(cfg->model, groups, n_groups);
    const sim_batch_shape busy = {0};
    sim_graph_shape_add_decodes(&s, n, c_sum);
    return price_way(cfg, s, &busy, m);
}


void sim_step_scale(sim_step_result *r, double f)
{
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        sim_op *a = &r->graph.ops[i];
#define MUL(x) a->x *= f;
        OP_FIELDS(MUL)
#undef MUL
#define MUL(x) r->cost[i].x *= f;
        COST_FIELDS(MUL)
#undef MUL
        r->cost[i].bound = sim_cost_bound(&r->cost[i]);
        r->hidden_ns[i] *= f;
    }
    r->t_cpu_ns *= f;
    step_sums base = sums_but_attention(r);
    totals(r, &base);
    finish(r, r->net_hidden_ns * f, r->t_host_ns * f);
    r->graph.tokens = (int64_t)((double)r->graph.tokens * f);
    r->graph.seqs = (int64_t)((double)r->graph.seqs * f);
    r->graph.logit_tokens = (int64_t)((double)r->graph.logit_tokens * f);
}
