/* mem.c - per-GPU memory plan. */
#include "mem.h"

#include <math.h>

#include "pp.h"

#define FP32_BYTES 4.0
#define GB 1e9

double sim_mem_weight_bytes(const sim_step_cfg *cfg)
{
    sim_par par = sim_step_par(cfg);
    if (sim_pp_stages(cfg) > 1)
        return sim_pp_weight_bytes(cfg); /* the heaviest pipeline stage's */
    return sim_graph_weight_bytes_par(cfg->model, &par, &cfg->prec);
}

double sim_mem_kv_bytes_per_token(const sim_step_cfg *cfg)
{
    sim_par par = sim_step_par(cfg);
    double kv = sim_graph_kv_bytes_per_token_par(cfg->model, &par, &cfg->prec);
    /* pipeline stages: the stage with the most layers holds their share */
    return sim_pp_stages(cfg) > 1 ? kv * sim_pp_layer_share(cfg) : kv;
}

double sim_mem_state_bytes_per_seq(const sim_step_cfg *cfg)
{
    const sim_model *m = cfg->model;
    if (m->linear_layers == 0)
        return 0.0;
    /* the heaviest stage's share of the layers; with data-parallel attention a sequence's state
     * lives in one group, the mean per GPU its 1/dp (as sim_graph_kv_bytes_per_token_par) */
    const double share = sim_pp_stages(cfg) > 1 ? sim_pp_layer_share(cfg) : 1.0;
    const sim_par par = sim_step_par(cfg);
    return (double)m->linear_layers * share *
           sim_graph_linear_state_bytes(m, cfg->tp, &cfg->prec) / (double)sim_par_dp(&par);
}

double sim_mem_kv_bytes_per_seq(const sim_step_cfg *cfg, double tokens)
{
    const sim_model *m = cfg->model;
    const double per_token = sim_mem_kv_bytes_per_token(cfg);
    const double state = sim_mem_state_bytes_per_seq(cfg);
    if (m->sliding_layers == 0 || m->sliding_window <= 0)
        return tokens * per_token + state;
    /* the sliding layers keep their window's tokens, the others all of them; chunked layers
     * (Llama 4) at most a chunk's, the peak a sequence reaches once it is that long */
    const int64_t attn = sim_model_attn_layers(m);
    const double per_layer = per_token / (double)attn;
    const double w = (double)m->sliding_window, local = tokens < w ? tokens : w;
    return per_layer * ((double)(attn - m->sliding_layers) * tokens +
                        (double)m->sliding_layers * local) +
           state;
}

double sim_mem_workspace_bytes(const sim_step_cfg *cfg, double tokens, double logit_tokens)
{
    const sim_model *m = cfg->model;
    const int tp = cfg->tp;
    const sim_par par = sim_step_par(cfg);
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, &cfg->prec));
    const double ab = sim_dtype_bytes(sim_graph_gemm_dtype(&cfg->prec));
    const double hd = (double)m->head_dim;
    const double hq = (double)(m->heads / tp), hkv = (double)sim_graph_kv_heads_per_gpu(m, tp);
    const double f = (double)(m->intermediate / tp);
    /* MLA prefill expands the latent into per-head K (nope + rope) and V */
    double attn = m->mla ? hq * (2.0 * hd + 2.0 * (double)m->v_head_dim) * rb
                         : (hq + 2.0 * hkv) * hd * rb + hq * hd * rb;
    double mlp = (m->mlp_ungated ? f * rb : 2.0 * f * rb) + f * ab;
    if (m->linear_layers > 0) { /* a linear mixer's in_proj output and its gated-norm output */
        const double hv = (double)(m->lin_v_heads / tp), vd = hv * (double)m->lin_v_dim;
        const double conv = 2.0 * (double)(m->lin_k_heads / tp * m->lin_k_dim) + vd;
        const double lin = (conv + 2.0 * vd + 2.0 * hv) * rb;
        if (lin > attn)
            attn = lin;
    }
    if (m->experts > 0) {
        /* each token's k routed copies (1/ep of them per GPU under EP, times the imbalance) with
         * their gate/up output and activation */
        const bool ep = par.ep > 1;
        const double fe = (double)sim_par_moe_slice(m, &par).intermediate; /* graph.h's slice */
        /* (a routing-derived imbalance, 0, sizes the workspace at the mean) */
        double imb = par.imbalance > 0.0 ? par.imbalance : 1.0;
        double copies = (double)m->experts_per_tok * (ep ? imb / par.ep : 1.0);
        double moe = copies * ((double)m->hidden * ab + 2.0 * fe * rb + fe * ab);
        if (moe > mlp)
            mlp = moe;
    }
    double per_token = 2.0 * (double)m->hidden * rb + (attn > mlp ? attn : mlp);
    double v_gpu = (double)((m->vocab + tp - 1) / tp);
    return (tokens * per_token + logit_tokens * v_gpu * FP32_BYTES) / sim_par_dp(&par);
}

double sim_mem_kv_capacity_bytes(const sim_step_cfg *cfg, double util, int64_t max_tokens,
                                 int64_t max_seqs, double extra_weight_bytes)
{
    double weights = sim_mem_weight_bytes(cfg) + extra_weight_bytes;
    double work = sim_mem_workspace_bytes(cfg, (double)max_tokens, (double)max_seqs);
    double others = weights + work + cfg->hw->runtime_reserved_bytes;
    if (cfg->mem_rule == SIM_MEM_OF_FREE) /* a share of what the others leave */
        return util * (cfg->hw->hbm_bytes - others);
    if (cfg->mem_rule == SIM_MEM_STATIC) /* the activations live outside the fraction */
        return cfg->hw->hbm_bytes * util - (others - work);
    return cfg->hw->hbm_bytes * util - others;
}

sim_status sim_mem_check_util(double util, sim_err *err)
{
    if (util > 0.0 && util <= 1.0) /* (NaN fails both comparisons) */
        return SIM_OK;
    return sim_fail(err, SIM_EINPUT,
                    "--gpu-memory-utilization: value %g, expected a number in (0, 1]", util);
}

void sim_mem_plan(const sim_step_cfg *cfg, double util, const sim_mem_extra *extra, int64_t batch,
                  int64_t input_len, int64_t output_len, sim_mem_report *out)
{
    static const sim_mem_extra none = {0};
    if (!extra)
        extra = &none;
    const double seq_len = (double)(input_len + output_len + extra->kv_slots_per_seq);
    out->weight_bytes = sim_mem_weight_bytes(cfg) + extra->weight_bytes;
    out->kv_bytes_per_token = sim_mem_kv_bytes_per_token(cfg) + extra->kv_bytes_per_token;
    /* a linear / state-space layer's state once per speculative token more (vLLM's MambaSpec
     * num_speculative_blocks: the verify keeps the state after every token, engine_kv.c) */
    const double kv_seq = sim_mem_kv_bytes_per_seq(cfg, seq_len) + seq_len * extra->kv_bytes_per_token +
                          (double)extra->kv_slots_per_seq * sim_mem_state_bytes_per_seq(cfg);
    out->kv_bytes = (double)batch * kv_seq;
    out->workspace_bytes =
        sim_mem_workspace_bytes(cfg, (double)batch * (double)input_len, (double)batch);
    out->reserved_bytes = cfg->hw->runtime_reserved_bytes;
    out->need_bytes =
        out->weight_bytes + out->kv_bytes + out->workspace_bytes + out->reserved_bytes;
    const double hbm = cfg->hw->hbm_bytes, fixed = out->weight_bytes + out->reserved_bytes;
    const double ws_seq = sim_mem_workspace_bytes(cfg, (double)input_len, 1.0);
    double per_seq, room;
    if (cfg->mem_rule == SIM_MEM_OF_FREE) {
        /* the KV cache may take util of what weights, workspace and reserve leave:
         * kv <= util (HBM - fixed - ws), i.e. need <= fixed + ws + util (HBM - fixed - ws) */
        double rest = hbm - fixed - out->workspace_bytes;
        out->capacity_bytes = fixed + out->workspace_bytes + util * (rest > 0.0 ? rest : 0.0);
        per_seq = kv_seq + util * ws_seq; /* B kv_seq <= util (HBM - fixed - B ws_seq) */
        room = util * (hbm - fixed);
    } else if (cfg->mem_rule == SIM_MEM_STATIC) {
        /* weights, reserve and KV within HBM x util; the activations in the rest, as much of it
         * as there is: need <= HBM util + min(ws, HBM (1 - util)) */
        const double outside = hbm * (1.0 - util);
        out->capacity_bytes = hbm * util + fmin(out->workspace_bytes, outside);
        per_seq = kv_seq; /* the KV pool alone grows into the fraction */
        room = hbm * util - fixed;
        if (out->workspace_bytes > outside) /* activations spilling into the fraction */
            room -= out->workspace_bytes - outside;
    } else {
        out->capacity_bytes = hbm * util;
        per_seq = kv_seq + ws_seq; /* everything but weights and reserve grows with the batch */
        room = out->capacity_bytes - fixed;
    }
    out->fits = out->need_bytes <= out->capacity_bytes;
    out->max_batch = room > 0.0 ? (int64_t)floor(room / per_seq) : 0;
}

sim_status sim_mem_fail(const sim_mem_report *r, const sim_step_cfg *cfg, sim_err *err)
{
    char par[96];
    sim_step_par_text(cfg, par, sizeof par);
    return sim_fail(err, SIM_EINPUT,
                    "%s does not fit on %s at --tp %d%s: needs %.1f GB per GPU (weights %.1f, KV "
                    "cache %.1f, activations %.1f, runtime %.1f), has %.1f GB (HBM x "
                    "--gpu-memory-utilization); largest batch that fits: %lld",
                    cfg->model->name, cfg->hw->name, cfg->tp, par, r->need_bytes / GB,
                    r->weight_bytes / GB, r->kv_bytes / GB, r->workspace_bytes / GB,
                    r->reserved_bytes / GB, r->capacity_bytes / GB, (long long)r->max_batch);
}
