/* step.c - one iteration = sum of its ops. */
#include "step.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

sim_par sim_step_par(const sim_step_cfg *cfg)
{
    return (sim_par){.tp = cfg->tp,
                     .ep = cfg->ep > 0 ? cfg->ep : 1,
                     .dp_attention = cfg->dp_attention,
                     .imbalance = cfg->expert_imbalance > 0.0 ? cfg->expert_imbalance : 0.0,
                     .routing = cfg->routing,
                     .moe_kernel = cfg->moe_kernel};
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
    if (par.ep <= 1)
        return;
    int n = snprintf(buf, len, " (TP %d, EP %d", par.tp, par.ep);
    if (n > 0 && (size_t)n < len && par.dp_attention)
        n += snprintf(buf + n, len - (size_t)n, ", DP attention %d", sim_par_dp(&par));
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ")");
}

sim_status sim_step_check(const sim_step_cfg *cfg, sim_err *err)
{
    sim_par par = sim_step_par(cfg);
    sim_status st = sim_graph_check_par(cfg->model, &par, &cfg->prec, err);
    if (st)
        return st;
    if (cfg->pp < 0 || cfg->pp > 64 || cfg->pp > cfg->model->layers)
        return sim_fail(err, SIM_EINPUT,
                        "--pp: value %d, expected 1..%lld (the layers of %s, at most 64)", cfg->pp,
                        (long long)(cfg->model->layers < 64 ? cfg->model->layers : 64),
                        cfg->model->name);
    if (!(cfg->overlap >= 0.0 && cfg->overlap <= 1.0))
        return sim_fail(err, SIM_EINPUT, "--overlap-comm: value %g, expected a number in [0, 1]",
                        cfg->overlap);
    if (!(cfg->iteration_overhead_ns >= 0.0 && cfg->iteration_overhead_ns <= 1e10) ||
        !(cfg->request_overhead_ns >= 0.0 && cfg->request_overhead_ns <= 1e10))
        return sim_fail(err, SIM_EINPUT,
                        "--iteration-overhead-us, --request-overhead-us: values %g, %g us, "
                        "expected each in [0, 1e7]",
                        cfg->iteration_overhead_ns / 1e3, cfg->request_overhead_ns / 1e3);
    if (!(cfg->sync_overhead_ns >= 0.0 && cfg->sync_overhead_ns <= 1e9))
        return sim_fail(err, SIM_EINPUT,
                        "engine profile host.sync_overhead_us: value %g us, expected [0, 1e6]",
                        cfg->sync_overhead_ns / 1e3);
    st = sim_coll_check(cfg->hw, cfg->allreduce, cfg->tp, "--allreduce", err);
    if (st)
        return st;
    return sim_cost_check_support(cfg->hw, &cfg->prec, err);
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
    double flops, bytes, net_bytes, math, mem, net, launch, busy;
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

/* The step's totals: the other ops' sums plus the context-dependent ones, always in that order,
 * so a memoized step adds up exactly as a fresh one. */
static void totals(sim_step_result *r, const step_sums *base)
{
    step_sums s = *base;
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (sim_op_info((sim_op_id)i)->context)
            add_op(&s, r, i);
    r->flops = s.flops;
    r->bytes = s.bytes;
    r->net_bytes = s.net_bytes;
    r->t_math_ns = s.math;
    r->t_mem_ns = s.mem;
    r->t_net_ns = s.net;
    r->t_launch_ns = s.launch;
    r->busy_ns = s.busy;
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
}

/* Host time the GPU waits for: all of the CPU work in a synchronous engine; when scheduling
 * runs ahead asynchronously, the part done after a wait on the device (sync_ns, within cpu_ns)
 * plus what of the rest exceeds the GPU's own step time. */
static double exposed_host(double cpu_ns, double sync_ns, double gpu_ns, bool async_sched)
{
    if (!async_sched)
        return cpu_ns;
    double ahead = cpu_ns - sync_ns;
    return sync_ns + (ahead > gpu_ns ? ahead - gpu_ns : 0.0);
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

/* Totals, overlap, host time and bounds once every op is priced. */
static void price_finish(const sim_step_cfg *cfg, const step_sums *base, sim_step_result *out)
{
    totals(out, base);
    double hidden = cfg->overlap * out->t_net_ns;
    if (hidden > out->busy_ns)
        hidden = out->busy_ns;
    double share = out->t_net_ns > 0.0 ? hidden / out->t_net_ns : 0.0;
    for (int i = 0; i < SIM_OP_COUNT; i++)
        out->hidden_ns[i] = out->cost[i].t_net_ns * share;
    out->t_cpu_ns = cfg->iteration_overhead_ns +
                    cfg->request_overhead_ns * (double)out->graph.seqs + cfg->sync_overhead_ns;
    double gpu = out->busy_ns + out->t_launch_ns + out->t_net_ns - hidden;
    finish(out, hidden, exposed_host(out->t_cpu_ns, cfg->sync_overhead_ns, gpu, cfg->async_sched));
}

/* The decode attention kernel the engine runs over this run's KV cache format. */
static sim_dattn_kernel decode_kernel(const sim_step_cfg *cfg)
{
    return sim_dtype_bytes(cfg->prec.kv) < 2.0 ? cfg->decode_attn_quant_kv : cfg->decode_attn;
}

/* Builds and prices every op of the shape; returns the sums over every op but attention (what a
 * memo keeps). */
static step_sums price_shape(const sim_step_cfg *cfg, const sim_batch_shape *s,
                             sim_step_result *out)
{
    memset(out, 0, sizeof *out);
    sim_par par = sim_step_par(cfg);
    sim_graph_build_par(cfg->model, &par, &cfg->prec, s, &out->graph);
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (out->graph.ops[i].net_kind == SIM_COLL_ALLREDUCE)
            out->graph.ops[i].net_algo = cfg->allreduce;
    out->graph.ops[SIM_OP_ATTENTION].dattn = decode_kernel(cfg);
    sim_graph_unfuse_act_quant(&out->graph.ops[SIM_OP_ACT_QUANT], cfg->model, cfg->tp, &cfg->prec,
                               out->graph.tokens, cfg->act_quant_kernels);
    double launch = sim_step_launch_ns(cfg);
    for (int i = 0; i < SIM_OP_COUNT; i++)
        out->cost[i] = sim_cost_op(cfg->hw, &out->graph.ops[i], launch);
    /* every all-reduce of a step has the same T x d message, so one algorithm: where it runs as
     * a kernel of the engine (not NCCL's), the norm after it can be fused into it */
    sim_coll_algo ar = out->cost[SIM_OP_ATTN_ALLREDUCE].coll_algo;
    if (cfg->fuse_allreduce_norm && out->graph.ops[SIM_OP_ATTN_ALLREDUCE].present &&
        (ar == SIM_COLL_ONESHOT || ar == SIM_COLL_TWOSHOT || ar == SIM_COLL_NVLS)) {
        static const sim_op_id norms[] = {SIM_OP_ATTN_NORM, SIM_OP_MLP_NORM, SIM_OP_FINAL_NORM};
        for (size_t i = 0; i < sizeof norms / sizeof norms[0]; i++) {
            sim_graph_fuse_norm(&out->graph.ops[norms[i]],
                                sim_dtype_bytes(sim_graph_resid_dtype(cfg->model, &cfg->prec)));
            out->cost[norms[i]] = sim_cost_op(cfg->hw, &out->graph.ops[norms[i]], launch);
        }
    }
    step_sums base = sums_but_attention(out);
    price_finish(cfg, &base, out);
    return base;
}

void sim_step_price(const sim_step_cfg *cfg, const sim_seq_group *groups, size_t n_groups,
                    sim_step_result *out)
{
    sim_batch_shape s = sim_graph_shape(cfg->model, groups, n_groups);
    price_shape(cfg, &s, out);
}

const sim_step_result *sim_step_price_memo(const sim_step_cfg *cfg, const sim_seq_group *groups,
                                           size_t n_groups, sim_step_memo *memo)
{
    sim_batch_shape s = sim_graph_shape(cfg->model, groups, n_groups);
    step_sums base;
    if (!memo->valid || memo->tokens != s.tokens || memo->seqs != s.seqs ||
        memo->logits != s.logits || memo->dec_tokens != s.dec_tokens) {
        base = price_shape(cfg, &s, &memo->r);
        memcpy(memo->base, &base, sizeof base);
        memo->valid = true;
        memo->tokens = s.tokens;
        memo->seqs = s.seqs;
        memo->logits = s.logits;
        memo->dec_tokens = s.dec_tokens;
        return &memo->r;
    }
    /* same tokens, sequences, logits and decode tokens: only the context-dependent ops changed */
    sim_par par = sim_step_par(cfg);
    sim_graph_rebuild_context(cfg->model, &par, &cfg->prec, &s, &memo->r.graph);
    memo->r.graph.ops[SIM_OP_ATTENTION].dattn = decode_kernel(cfg);
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (sim_op_info((sim_op_id)i)->context)
            memo->r.cost[i] = sim_cost_op(cfg->hw, &memo->r.graph.ops[i], sim_step_launch_ns(cfg));
    memcpy(&base, memo->base, sizeof base);
    price_finish(cfg, &base, &memo->r);
    return &memo->r;
}

/* Every additive double of an op and of a cost, listed once for accumulate and scale. */
#define OP_FIELDS(X)                                                                               \
    X(flops)                                                                                       \
    X(weight_bytes) X(act_bytes) X(kv_read_bytes) X(kv_write_bytes) X(net_bytes) X(net_msg_bytes)
#define COST_FIELDS(X) X(t_math_ns) X(t_mem_ns) X(t_net_ns) X(t_launch_ns) X(t_ns)

void sim_step_accumulate(sim_step_result *sum, const sim_step_result *x)
{
    if (sum->graph.layers == 0) {
        *sum = *x;
        return;
    }
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        sim_op *a = &sum->graph.ops[i];
        const sim_op *b = &x->graph.ops[i];
#define ADD(f) a->f += b->f;
        OP_FIELDS(ADD)
#undef ADD
#define ADD(f) sum->cost[i].f += x->cost[i].f;
        COST_FIELDS(ADD)
#undef ADD
        sum->hidden_ns[i] += x->hidden_ns[i];
    }
    sum->net_hidden_ns += x->net_hidden_ns;
    sum->t_host_ns += x->t_host_ns;
    sum->t_cpu_ns += x->t_cpu_ns;
    sum->graph.tokens += x->graph.tokens;
    sum->graph.seqs += x->graph.seqs;
    sum->graph.logit_tokens += x->graph.logit_tokens;
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
