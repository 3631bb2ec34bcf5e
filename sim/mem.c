/* mem.c - per-GPU memory plan. */
#include "mem.h"

#include <math.h>

#include "pp.h"

#define FP32_BYTES 4.0
#define GB 1e9

double sim_mem_workspace_bytes(const sim_step_cfg *cfg, double tokens, double logit_tokens)
{
    const sim_model *m = cfg->model;
    const int tp = cfg->tp;
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, &cfg->prec));
    const double ab = sim_dtype_bytes(sim_graph_gemm_dtype(&cfg->prec));
    const double hd = (double)m->head_dim;
    const double hq = (double)(m->heads / tp), hkv = (double)sim_graph_kv_heads_per_gpu(m, tp);
    const double f = (double)(m->intermediate / tp);
    double attn = (hq + 2.0 * hkv) * hd * rb + hq * hd * rb;
    double mlp = 2.0 * f * rb + f * ab;
    double per_token = 2.0 * (double)m->hidden * rb + (attn > mlp ? attn : mlp);
    double v_gpu = (double)((m->vocab + tp - 1) / tp);
    return tokens * per_token + logit_tokens * v_gpu * FP32_BYTES;
}

void sim_mem_plan(const sim_step_cfg *cfg, double util, const sim_mem_extra *extra, int64_t batch,
                  int64_t input_len, int64_t output_len, sim_mem_report *out)
{
    static const sim_mem_extra none = {0};
    if (!extra)
        extra = &none;
    const double seq_len = (double)(input_len + output_len + extra->kv_slots_per_seq);
    out->weight_bytes =
        sim_pp_weight_bytes_per_gpu(cfg) + extra->weight_bytes;
    out->kv_bytes_per_token = sim_pp_kv_bytes_per_token(cfg) + extra->kv_bytes_per_token;
    out->kv_bytes = (double)batch * seq_len * out->kv_bytes_per_token;
    out->workspace_bytes =
        sim_mem_workspace_bytes(cfg, (double)batch * (double)input_len, (double)batch);
    out->reserved_bytes = cfg->hw->runtime_reserved_bytes;
    out->need_bytes =
        out->weight_bytes + out->kv_bytes + out->workspace_bytes + out->reserved_bytes;
    out->capacity_bytes = cfg->hw->hbm_bytes * util;
    out->fits = out->need_bytes <= out->capacity_bytes;
    /* Everything but weights and reserve grows linearly with the batch. */
    double per_seq =
        seq_len * out->kv_bytes_per_token + sim_mem_workspace_bytes(cfg, (double)input_len, 1.0);
    double room = out->capacity_bytes - out->weight_bytes - out->reserved_bytes;
    out->max_batch = room > 0.0 ? (int64_t)floor(room / per_seq) : 0;
}

sim_status sim_mem_fail(const sim_mem_report *r, const sim_step_cfg *cfg, sim_err *err)
{
    return sim_fail(err, SIM_EINPUT,
                    "%s does not fit on %s at --tp %d: needs %.1f GB per GPU (weights %.1f, KV "
                    "cache %.1f, activations %.1f, runtime %.1f), has %.1f GB (HBM x "
                    "--gpu-memory-utilization); largest batch that fits: %lld",
                    cfg->model->name, cfg->hw->name, cfg->tp, r->need_bytes / GB,
                    r->weight_bytes / GB, r->kv_bytes / GB, r->workspace_bytes / GB,
                    r->reserved_bytes / GB, r->capacity_bytes / GB, (long long)r->max_batch);
}
