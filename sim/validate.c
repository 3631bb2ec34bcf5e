/* validate.c - op, end-to-end and serve predictions for measured rows, their errors and
 * summaries (the rows: validate_rows.c; fitting: validate_fit.c). */
#define _POSIX_C_SOURCE 200809L
#include "validate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "graph.h"
#include "metrics.h"
#include "pp.h"
#include "run.h"

double sim_validate_size_bytes(const sim_vrow *r)
{
    double eb = sim_dtype_bytes(r->dtype);
    switch (r->kind) {
    case SIM_VK_GEMM:
        return ((double)r->m * (double)r->k + (double)r->k * (double)r->n +
                (double)r->m * (double)r->n) *
               eb;
    case SIM_VK_ATTENTION:
        return 4.0 * (double)r->batch * (double)r->seq * (double)r->heads * (double)r->head_dim *
               eb;
    case SIM_VK_MOE_LAYER: /* every expert's weights */
        return 3.0 * (double)r->batch * (double)r->n * (double)r->k * eb;
    case SIM_VK_DECODE_ATTENTION: /* the KV cache it reads */
        return 2.0 * (double)r->batch * (double)r->seq * (double)r->n * (double)r->head_dim * eb;
    default:
        return (double)r->bytes;
    }
}

int sim_validate_bucket(const sim_vrow *r)
{
    double b = sim_validate_size_bytes(r);
    return b <= 65536.0 ? 0 : b <= 4194304.0 ? 1 : 2;
}

const char *sim_validate_bucket_name(int bucket)
{
    static const char *const names[SIM_VBUCKET_COUNT] = {"<= 64 KB", "<= 4 MB", "> 4 MB"};
    return names[bucket];
}

double sim_validate_error_pct(double predicted, double measured)
{
    return 100.0 * (predicted - measured) / measured;
}

/* One op's time on the device, with the per-kernel cost of back-to-back launches. */
static double op_ns(const sim_hw *hw, const sim_op *op)
{
    return sim_cost_op(hw, op, hw->graph_launch_ns).t_ns;
}

sim_status sim_validate_op(const sim_vrow *r, const sim_hw *hw, double *pred, sim_err *err)
{
    sim_op op = {.present = true, .compute = r->dtype, .weight = r->dtype};
    double ns = 0.0, work = 0.0; /* work: FLOPs or bytes behind the metric */
    if (!sim_vkind_is_op(r->kind))
        return sim_fail(err, SIM_EINTERNAL, "row %lld is not an op", (long long)r->id);
    /* the shape a hand-built row (the op command, a test) must have; loaded rows are checked */
    const struct {
        const char *name;
        int64_t v, min;
    } shape[SIM_VK_E2E][4] = {[SIM_VK_GEMM] = {{"m", r->m, 1}, {"n", r->n, 1}, {"k", r->k, 1}},
                              [SIM_VK_ATTENTION] = {{"batch", r->batch, 1},
                                                    {"seq", r->seq, 1},
                                                    {"heads", r->heads, 1},
                                                    {"head_dim", r->head_dim, 1}},
                              [SIM_VK_COPY] = {{"bytes", r->bytes, 1}},
                              [SIM_VK_ALLREDUCE] = {{"gpus", r->gpus, 2}, {"bytes", r->bytes, 1}},
                              [SIM_VK_GROUPED_GEMM] = {{"batch", r->batch, 1},
                                                       {"m", r->m, 1},
                                                       {"n", r->n, 1},
                                                       {"k", r->k, 1}},
                              [SIM_VK_ALLTOALL] = {{"gpus", r->gpus, 2}, {"bytes", r->bytes, 1}},
                              [SIM_VK_MOE_LAYER] = {{"m", r->m, 1},
                                                    {"n", r->n, 1},
                                                    {"k", r->k, 1},
                                                    {"heads", r->heads, 1}},
                              [SIM_VK_DECODE_ATTENTION] = {{"batch", r->batch, 1},
                                                           {"seq", r->seq, 1},
                                                           {"heads", r->heads, 1},
                                                           {"n", r->n, 1}},
                              [SIM_VK_ALLREDUCE_NORM] = {{"gpus", r->gpus, 2},
                                                         {"bytes", r->bytes, 1},
                                                         {"n", r->n, 1}},
                              [SIM_VK_FUSED_ALLREDUCE_NORM] = {{"gpus", r->gpus, 2},
                                                               {"bytes", r->bytes, 1},
                                                               {"n", r->n, 1}}};
    for (int i = 0; i < 4 && shape[r->kind][i].name; i++)
        if (shape[r->kind][i].v < shape[r->kind][i].min)
            return sim_fail(
                err, SIM_EINPUT, "row %lld: field '%s' is %lld, expected >= %lld for %s",
                (long long)r->id, shape[r->kind][i].name, (long long)shape[r->kind][i].v,
                (long long)shape[r->kind][i].min, sim_vkind_name(r->kind));
    /* the kinds that compute need the device to compute in the format */
    if ((r->kind == SIM_VK_GEMM || r->kind == SIM_VK_ATTENTION || r->kind == SIM_VK_GROUPED_GEMM ||
         r->kind == SIM_VK_MOE_LAYER) &&
        !(hw->peak_flops[r->dtype] > 0.0))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'dense_tflops.%s' is missing, expected a peak to price %s in %s",
                        hw->path[0] ? hw->path : hw->name, sim_dtype_name(r->dtype),
                        sim_vkind_name(r->kind), sim_dtype_name(r->dtype));
    switch (r->kind) {
    case SIM_VK_GEMM: {
        /* math in dtype, weights stored as weight_dtype (a mixed-input kernel when they
         * differ), 16-bit output; with act_quant, the dynamic quantization of the input first */
        sim_prec p = {.weight = r->weight,
                      .act = r->dtype,
                      .kv = r->dtype,
                      .group_size = r->group_size,
                      .block_scaled = r->block_fp8 > 0};
        sim_graph_gemm(&op, SIM_OP_GATE_UP_PROJ, (double)r->m, r->n, r->k, r->weight, &p, 2.0);
        op.block_scaled = r->block_fp8 == 1; /* DeepGEMM's fills the SMs (step.c) */
        ns = op_ns(hw, &op);
        work = op.flops;
        if (r->act_quant) {
            sim_op q = {0};
            sim_graph_act_quant(&q, (double)r->m, r->k, &p, 2.0);
            ns += op_ns(hw, &q);
        }
        break;
    }
    case SIM_VK_GROUPED_GEMM: {
        /* `batch` experts' GEMMs of m rows each in one grouped kernel, as an MoE layer's */
        sim_prec p = {.weight = r->dtype, .act = r->dtype, .kv = r->dtype};
        double rb = sim_dtype_is_16bit(r->dtype) ? 2.0 : sim_dtype_bytes(r->dtype);
        double rows = (double)r->batch * (double)r->m;
        sim_graph_gemm(&op, SIM_OP_EXPERTS_GATE_UP, rows, r->n, r->k, r->dtype, &p, rb);
        op.groups = (double)r->batch;
        op.weight_bytes *= (double)r->batch; /* each expert's own weights */
        /* every expert has exactly m rows: batch x ceil(m / B) blocks of each size */
        op.moe_kernel = r->moe_kernel;
        op.moe_decode = r->moe_decode;
        op.moe_tokens = 0.0; /* a row's tokens are not given: the least-time M block */
        for (int b = 0; b < SIM_MOE_BLOCKS; b++)
            op.moe_blocks[b] = (double)r->batch * ceil((double)r->m / sim_moe_block_rows(b));
        ns = op_ns(hw, &op);
        work = op.flops;
        break;
    }
    case SIM_VK_MOE_LAYER: {
        /* one MoE layer on one GPU (every expert local), routed uniformly, as the graph builds it;
         * benchmark_moe.py times fused_moe from the router's logits: the router GEMM is not in it */
        if (r->heads > r->batch)
            return sim_fail(err, SIM_EINPUT, "row %lld: field 'heads' (top-k) is %lld, expected "
                            "at most the %lld experts", (long long)r->id, (long long)r->heads,
                            (long long)r->batch);
        sim_model mm = {.hidden = r->k, .experts = r->batch, .experts_per_tok = r->heads,
                        .moe_intermediate = r->n, .layers = 1, .moe_layers = 1,
                        .dtype = SIM_DT_BF16, .dtype_known = true};
        /* math in dtype; weights in weight_dtype when the row gives one (a mixed-input kernel
         * when they differ: Marlin's W4A16, group scales per group_size) */
        sim_prec p = {.weight = r->weight_set ? r->weight : r->dtype,
                      .act = r->dtype,
                      .kv = SIM_DT_BF16,
                      .group_size = r->group_size};
        sim_par par = {.tp = 1, .ep = 1, .moe_kernel = r->moe_kernel,
                       .moe_kernel_quantized = r->moe_kernel, .moe_kernel_mixed = r->moe_kernel};
        sim_batch_shape s = {.tokens = (double)r->m, .seqs = (double)r->m,
                             .dec_tokens = r->moe_decode ? (double)r->m : 0.0};
        sim_graph g;
        sim_graph_build_moe(&mm, &par, &p, &s, &g);
        static const sim_op_id ops[] = {SIM_OP_MOE_TOPK,    SIM_OP_MOE_PERMUTE,
                                        SIM_OP_EXPERTS_GATE_UP, SIM_OP_EXPERTS_ACT,
                                        SIM_OP_EXPERTS_DOWN, SIM_OP_MOE_UNPERMUTE};
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            ns += op_ns(hw, &g.ops[ops[i]]);
        work = g.ops[SIM_OP_EXPERTS_GATE_UP].flops + g.ops[SIM_OP_EXPERTS_DOWN].flops;
        break;
    }
    case SIM_VK_ALLTOALL: {
        /* DeepEP's dispatch or combine (a2a.h). The first low-latency kernels sent every
         * peer's share over RDMA even within a node: `bytes` sent, as if each GPU were a node */
        /* a row built by hand (the op command) without a mode reads as those */
        const bool first = r->a2a_rdma_only || r->a2a == SIM_A2A_AUTO;
        const sim_a2a_mode mode = first ? SIM_A2A_LOW_LATENCY : r->a2a;
        sim_a2a_shape a = {.tokens = 1.0, .topk = 1.0, .experts = 1.0,
                           .token_bytes = (double)r->bytes, .ranks = (int)r->gpus,
                           .rdma_only = first};
        if (!first) {
            const double d = (double)r->n, eb = sim_dtype_bytes(r->dtype);
            a.tokens = (double)r->m;
            a.topk = (double)r->k;
            a.experts = (double)r->batch;
            a.token_bytes = d * eb + (eb < 2.0 ? d / 128.0 * 4.0 : 0.0);
        }
        if (mode == SIM_A2A_NORMAL && r->heads > 0) {
            /* the test's routing groups are its nodes (ceil(gpus / devices_per_node)) */
            a.route_groups = (int)ceil((double)r->gpus / hw->devices_per_node);
            a.route_topk_groups = (int)r->heads;
        }
        ns = sim_a2a_price(hw, mode, &a).t_ns;
        work = mode == SIM_A2A_NORMAL ? sim_a2a_normal_logical_bytes(hw, &a) : (double)r->bytes;
        break;
    }
    case SIM_VK_ATTENTION: {
        /* fused attention over B x H heads of S tokens (sim_graph_attention_flops); Q, K, V read
         * and O written once */
        double s = (double)r->seq;
        double pairs = r->causal ? s * (s + 1.0) / 2.0 : s * s;
        op.id = SIM_OP_ATTENTION;
        const double bh = (double)r->batch * (double)r->heads, hd = (double)r->head_dim;
        op.flops = sim_graph_attention_flops(bh, hd, hd, pairs);
        op.act_bytes = 4.0 * (double)r->batch * s * (double)r->heads * (double)r->head_dim * 2.0;
        op.dec.head_dim = r->head_dim; /* its softmax's scores (sim_cost_attention_exp_ns) */
        op.attn_keys = pairs / s;      /* keys per query: s, or (s + 1) / 2 causal */
        ns = op_ns(hw, &op);
        work = op.flops;
        break;
    }
    case SIM_VK_DECODE_ATTENTION: {
        /* one token per sequence: QK^T and PV over the cache for every query head, each
         * sequence's K and V of n KV heads read once, Q read and O written in 16 bits; the
         * kernel's launch decides whether its CTAs fill the GPU (dattn.h) */
        const double b = (double)r->batch, s = (double)r->seq, hd = (double)r->head_dim;
        const double kvb = sim_dtype_bytes(r->dtype);
        op.id = SIM_OP_ATTENTION;
        op.flops = sim_graph_attention_flops(b * (double)r->heads, hd, hd, s);
        op.kv_read_bytes = b * s * (double)r->n * 2.0 * hd * kvb;
        op.act_bytes = 2.0 * b * (double)r->heads * hd * 2.0;
        op.dec = (sim_dattn_shape){.seqs = b,
                                   .ctx = s,
                                   .q_heads = r->heads,
                                   .kv_heads = r->n,
                                   .head_dim = r->head_dim,
                                   .kv_elem_bytes = kvb};
        op.dattn = r->dattn;
        if (r->k > 0) {
            /* MLA's absorbed decode (FlashMLA's test): m query tokens per sequence over one
             * latent of head_dim values (kv_lora_rank + rope) read once, values k wide;
             * 2 (head_dim + k) FLOPs per query row and key, rows padded to the kernel's tile */
            const double sq = r->m > 0 ? (double)r->m : 1.0, dv = (double)r->k;
            op.flops = sim_graph_attention_flops(b * (double)r->heads * sq, hd, dv, s);
            op.kv_read_bytes = b * s * hd * kvb;
            op.act_bytes = b * (double)r->heads * sq * (hd + dv) * 2.0;
            op.dec.kv_heads = 1;
            op.dec.v_dim = r->k;
            op.dec.q_per_seq = sq;
            op.dattn = SIM_DATTN_SPLIT;
        }
        ns = op_ns(hw, &op);
        work = op.kv_read_bytes;
        break;
    }
    case SIM_VK_COPY:
        op.id = SIM_OP_ACT; /* a streaming vector kernel: read and write every byte */
        op.act_bytes = 2.0 * (double)r->bytes;
        ns = op_ns(hw, &op);
        work = op.act_bytes;
        break;
    case SIM_VK_ALLREDUCE:
    case SIM_VK_ALLREDUCE_NORM:
    case SIM_VK_FUSED_ALLREDUCE_NORM: {
        /* one all-reduce kernel (CUDA events around it include its launch) */
        op.id = SIM_OP_ATTN_ALLREDUCE;
        op.net_kind = SIM_COLL_ALLREDUCE;
        op.net_algo = r->algo;
        op.net_ranks = (int)r->gpus;
        op.net_msg_bytes = (double)r->bytes;
        op.net_bytes = sim_collective_bus_bytes(SIM_COLL_ALLREDUCE, op.net_msg_bytes, op.net_ranks);
        ns = op_ns(hw, &op);
        work = op.net_bytes;
        if (r->kind == SIM_VK_ALLREDUCE)
            break;
        /* then residual add + RMSNorm over bytes / 2 / hidden tokens of 16-bit values, its own
         * kernel or inside the all-reduce's */
        sim_op nm;
        sim_graph_norm(&nm, SIM_OP_MLP_NORM, (double)r->bytes / 2.0 / (double)r->n, r->n, 2.0, 2.0);
        if (r->kind == SIM_VK_FUSED_ALLREDUCE_NORM)
            sim_graph_fuse_norm(&nm, 2.0);
        ns += op_ns(hw, &nm);
        break;
    }
    default:
        return sim_fail(err, SIM_EINTERNAL, "row %lld is not an op", (long long)r->id);
    }
    if (!(ns > 0.0))
        return sim_fail(err, SIM_EINTERNAL, "row %lld priced at 0 ns", (long long)r->id);
    if (strcmp(r->metric, "tflops") == 0 || strcmp(r->metric, "tb_per_s") == 0)
        *pred = work / ns / 1e3; /* FLOP/ns or B/ns -> T/s */
    else if (strcmp(r->metric, "busbw_gb_per_s") == 0)
        *pred = work / ns;
    else if (strcmp(r->metric, "latency_ms") == 0)
        *pred = ns / 1e6;
    else
        return sim_fail(err, SIM_EINPUT, "row %lld: metric '%s' is not an op metric",
                        (long long)r->id, r->metric);
    return SIM_OK;
}

/* The energy metric `metric` of a run's or a serving run's power totals. */
static double energy_metric(const char *metric, const sim_power_totals *t)
{
    return strcmp(metric, "avg_power_w") == 0 ? t->avg_power_w : t->joules_per_output_token;
}

/* An end-to-end row's all-reduce: the one its algo column names, else the engine profile's. */
static sim_coll_algo row_allreduce(const sim_vrow *r, sim_coll_algo engine)
{
    return r->algo != SIM_COLL_AUTO ? r->algo : engine;
}

sim_status sim_validate_row_prec(const sim_vrow *r, const sim_model *model, const sim_hw *hw,
                                 sim_prec *out, sim_err *err)
{
    const sim_prec_given g = {
        .prec = {.weight = r->weight, .act = r->act, .kv = r->kv, .group_size = r->group_size},
        .weight = r->weight_set,
        .act = r->act_set,
        .kv = r->kv_set,
        .group_size = r->group_size_set};
    if (sim_graph_prec_defaults(model, hw, &g, out))
        return SIM_OK;
    return sim_fail(err, SIM_EINPUT,
                    "row %lld: field 'weight_dtype' is empty and %s has no torch_dtype, expected "
                    "the weights' format",
                    (long long)r->id, model->path);
}

/* The static batch an end-to-end or speculative row measured, on the engine's step template:
 * its model, device, TP and all-reduce, its batch and lengths (precision set by the caller). */
static sim_run_cfg row_run_cfg(const sim_vrow *r, const sim_model *model, const sim_hw *hw,
                               const sim_step_cfg *tmpl)
{
    sim_run_cfg c = {.step = *tmpl,
                     .batch = r->batch,
                     .input_len = r->input_len,
                     .output_len = r->output_len,
                     .mem_util = 0.9};
    c.step.model = model;
    c.step.hw = hw;
    c.step.tp = (int)r->tp;
    c.step.allreduce = row_allreduce(r, tmpl->allreduce);
    return c;
}

sim_status sim_validate_e2e(const sim_vrow *r, const sim_model *model, const sim_hw *hw,
                            const sim_step_cfg *tmpl, double *pred, sim_err *err)
{
    sim_run_cfg c = row_run_cfg(r, model, hw, tmpl);
    sim_status st = sim_validate_row_prec(r, model, hw, &c.step.prec, err);
    if (!st)
        st = sim_run_check(&c, err);
    if (st)
        return st;
    sim_run_result *res = calloc(1, sizeof *res);
    if (!res)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_run_simulate(&c, res);
    st = sim_run_check_result(res, err);
    *pred = r->kind == SIM_VK_TTFT              ? res->ttft_ns / 1e6
            : sim_validate_is_energy(r->metric) ? energy_metric(r->metric, &res->power)
                                                : res->e2e_ns / 1e9;
    free(res);
    if (st == SIM_OK && sim_validate_is_energy(r->metric) && !sim_power_known(hw))
        return sim_fail(err, SIM_EINPUT, "row %lld: %s has no power.tdp_w, expected one for %s",
                        (long long)r->id, hw->path, r->metric);
    return st;
}

/* The speculation of a spec row's algo column: "METHOD DEPTH TOPK TOKENS TAU". */
static sim_status row_spec(const sim_vrow *r, const sim_model *model, sim_spec *s, sim_err *err)
{
    char buf[sizeof r->spec], *save = NULL, *tok[6] = {0};
    snprintf(buf, sizeof buf, "%s", r->spec);
    int n = 0;
    for (char *t = strtok_r(buf, " ", &save); t && n < 6; t = strtok_r(NULL, " ", &save))
        tok[n++] = t;
    long v[3] = {0};
    long dv = 0; /* eagle3's draft vocabulary: "dv=N" */
    bool ok = (n == 5 || n == 6) && strlen(tok[0]) < 24;
    if (ok && n == 6) {
        char *e;
        errno = 0;
        dv = strncmp(tok[5], "dv=", 3) == 0 ? strtol(tok[5] + 3, &e, 10) : 0;
        ok = dv > 0 && !errno && !*e && strcmp(tok[0], "eagle3") == 0;
    }
    for (int i = 0; ok && i < 3; i++) {
        char *end;
        errno = 0;
        v[i] = strtol(tok[i + 1], &end, 10);
        ok = !errno && end != tok[i + 1] && !*end;
    }
    char *end = NULL;
    double tau = ok ? strtod(tok[4], &end) : 0.0;
    ok = ok && end != tok[4] && !*end && isfinite(tau);
    const char *method = ok ? tok[0] : "";
    int depth = (int)(ok && v[0] > 0 && v[0] <= SIM_SPEC_MAX_DEPTH ? v[0] : 0);
    int topk = (int)(ok && v[1] > 0 && v[1] <= SIM_SPEC_MAX_TOKENS ? v[1] : 0);
    int tokens = (int)(ok && v[2] > 0 && v[2] <= SIM_SPEC_MAX_TOKENS ? v[2] : 0);
    if (!ok || depth < 1 || topk < 1 || tokens < 1)
        return sim_fail(err, SIM_EINPUT,
                        "row %lld: field 'algo' is '%s', expected \"METHOD DEPTH TOPK TOKENS "
                        "TAU\" (depth 1..%d; eagle3 may add \"dv=N\", its draft vocabulary)",
                        (long long)r->id, r->spec, SIM_SPEC_MAX_DEPTH);
    sim_spec_method m;
    if (strcmp(method, "eagle3") == 0)
        m = SIM_SPEC_EAGLE;
    else if (!sim_spec_method_parse(method, &m) || m == SIM_SPEC_DRAFT)
        return sim_fail(err, SIM_EINPUT,
                        "row %lld: field 'algo' method '%s', expected eagle, eagle3, medusa, mtp "
                        "or ngram",
                        (long long)r->id, method);
    sim_spec_tree t = {.depth = depth, .tokens = tokens};
    for (int j = 0; j < depth; j++)
        t.width[j] = j == 0 ? 1 : topk;
    sim_spec_accept acc = {.alpha = -1.0, .tau = tau};
    sim_status st = sim_spec_init_tree(s, m, &t, &acc, "algo", model, NULL, err);
    if (!st && strcmp(method, "eagle3") == 0)
        st = sim_spec_set_eagle3(s, dv, err);
    return st;
}

sim_status sim_validate_spec(const sim_vrow *r, const sim_model *model, const sim_hw *hw,
                             const sim_step_cfg *tmpl, bool spec_async,
                             const sim_spec_proposer *prop, double *pred, sim_err *err)
{
    sim_spec *s = calloc(1, sizeof *s);
    sim_run_result *on = calloc(1, sizeof *on), *off = calloc(1, sizeof *off);
    sim_status st = s && on && off ? SIM_OK : sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_run_cfg c = row_run_cfg(r, model, hw, tmpl);
    if (!st)
        st = sim_validate_row_prec(r, model, hw, &c.step.prec, err);
    if (!st)
        st = row_spec(r, model, s, err);
    if (!st && prop)
        s->prop = *prop;
    c.spec = s;
    if (!st)
        st = sim_run_check(&c, err);
    if (!st) {
        s->sync_host = c.step.async_sched && !spec_async;
        sim_run_simulate(&c, on);
        c.spec = NULL;
        sim_run_simulate(&c, off);
        /* speedup: TPOT's ratio, each run as its engine schedules it */
        *pred = strcmp(r->metric, "speedup") == 0 ? (on->tpot_ns > 0.0 ? off->tpot_ns / on->tpot_ns : 1.0)
                                                  : off->e2e_ns / on->e2e_ns;
    }
    free(s);
    free(on);
    free(off);
    return st;
}

sim_status sim_validate_serve(const sim_vrow *r, const sim_model *model, const sim_hw *hw,
                              const sim_engine_cfg *tmpl, double *pred, sim_err *err)
{
    sim_engine_cfg c = *tmpl;
    c.step.model = model;
    c.step.hw = hw;
    c.step.tp = (int)r->tp;
    c.step.allreduce = row_allreduce(r, tmpl->step.allreduce);
    sim_status st = sim_validate_row_prec(r, model, hw, &c.step.prec, err);
    if (st)
        return st;
    /* Poisson arrivals (burstiness 1) at the row's rate and lengths in its range, from a fixed
     * seed: the same stream on every run */
    sim_synth_cfg s = {.num_prompts = r->batch,
                       .input_len = r->input_len,
                       .output_len = r->output_len,
                       .range_ratio = r->range_ratio,
                       .request_rate = r->request_rate,
                       .burstiness = 1.0,
                       .seed = SIM_VALIDATE_SERVE_SEED};
    sim_workload w;
    if ((st = sim_workload_synthetic(&s, &w, err)))
        return st;
    sim_engine_result res;
    if (!(st = sim_engine_check(&c, &w, err)) && !(st = sim_engine_run(&c, &w, &res, err))) {
        const double dur_s = (double)res.duration_ns * 1e-9;
        sim_metric lat_metric = SIM_M_TTFT;
        bool lat_median = false;
        const bool lat = sim_validate_serve_latency(r->metric, &lat_metric, &lat_median);
        sim_serve_metrics sm;
        int64_t out_tokens = 0; /* batch x output_len at fixed lengths */
        for (size_t i = 0; i < w.n; i++)
            out_tokens += w.reqs[i].output_tokens;
        if (sim_validate_is_energy(r->metric)) {
            const sim_power_totals t =
                sim_power_totals_of(res.idle_w, res.active_j, dur_s,
                                    (double)sim_pp_gpus(&c.step), (double)out_tokens);
            *pred = energy_metric(r->metric, &t);
            if (res.power_unknown)
                st = sim_fail(err, SIM_EINPUT,
                              "row %lld: %s has no power.tdp_w, expected one for %s",
                              (long long)r->id, hw->path, r->metric);
        } else if (!lat)
            *pred = strcmp(r->metric, "duration_s") == 0 ? dur_s : (double)out_tokens / dur_s;
        else if (!(st = sim_metrics_compute(&res, &(sim_slo){{0}}, &sm))) {
            const sim_dist *d = &sm.dist[lat_metric];
            *pred = lat_median ? d->median : d->mean;
        }
        sim_engine_result_free(&res);
    }
    sim_workload_free(&w);
    return st;
}

void sim_validate_summary(const double *abs_err, size_t n, double *median, double *p90)
{
    *median = *p90 = 0.0;
    if (n == 0)
        return;
    double *v = malloc(n * sizeof *v);
    if (!v)
        return;
    memcpy(v, abs_err, n * sizeof *v); /* sim_metrics_percentile reorders its input */
    *median = sim_metrics_percentile(v, n, 50.0);
    *p90 = sim_metrics_percentile(v, n, 90.0);
    free(v);
}
