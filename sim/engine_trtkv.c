/* engine_trtkv.c - TensorRT-LLM's per-window KV block pools (variable sliding-window attention)
 * as its sources cut them from kv_cache_config.max_attention_window (declared in engine.h,
 * which cites them). */
#include "engine.h"

#include <math.h>

/* Counts each attention layer into its window's pool (windows clamped to max_seq_len), the
 * pools ascending by window. */
static void count_layers(int64_t attn, const int64_t windows[], int n, int64_t max_seq_len,
                         sim_engine_trt_pools *out)
{
    for (int64_t layer = 0; layer < attn; layer++) {
        const int64_t w0 = windows[layer % n], w = w0 < max_seq_len ? w0 : max_seq_len;
        int k = 0;
        while (k < out->n && out->pool[k].window < w)
            k++;
        if (k == out->n || out->pool[k].window != w) {
            for (int j = out->n; j > k; j--)
                out->pool[j] = out->pool[j - 1];
            out->pool[k] = (sim_engine_trt_pool){.window = w};
            out->n++;
        }
        out->pool[k].layers++;
    }
}

sim_status sim_engine_trt_pools_of(const sim_engine_cfg *cfg, sim_engine_trt_rule rule,
                                   const int64_t windows[], int n, int64_t max_seq_len,
                                   sim_engine_trt_pools *out, sim_err *err)
{
    *out = (sim_engine_trt_pools){.n = 0, .block_size = cfg->block_size, .rule = rule};
    if (n < 1 || n > SIM_ENGINE_MAX_WINDOWS)
        return sim_fail(err, SIM_EINPUT,
                        "kv_cache_config.max_attention_window: %d windows, expected 1 to %d", n,
                        SIM_ENGINE_MAX_WINDOWS);
    if (max_seq_len < 1 || cfg->block_size < 1)
        return sim_fail(err, SIM_EINPUT,
                        "kv_cache_config.max_attention_window: max_seq_len %lld and block size "
                        "%lld, expected both >= 1",
                        (long long)max_seq_len, (long long)cfg->block_size);
    for (int i = 0; i < n; i++)
        if (windows[i] < 1)
            return sim_fail(err, SIM_EINPUT,
                            "kv_cache_config.max_attention_window: window %d is %lld, expected "
                            "a token count >= 1",
                            i, (long long)windows[i]);
    const sim_model *m = cfg->step.model;
    const int64_t attn = sim_model_attn_layers(m);
    if (attn < 1)
        return sim_fail(err, SIM_EINPUT,
                        "kv_cache_config.max_attention_window: %s has no attention layers",
                        m->path);
    count_layers(attn, windows, n, max_seq_len, out);
    /* every attention layer keeps the same bytes a token in the models priced
     * (sim_mem_kv_bytes_per_token over the attention layers) */
    const double mem = sim_engine_kv_capacity_bytes(cfg);
    const double per_layer = sim_mem_kv_bytes_per_token(&cfg->step) / (double)attn;
    double weight = 0.0;
    for (int k = 0; k < out->n; k++) {
        sim_engine_trt_pool *p = &out->pool[k];
        p->bytes_per_token = per_layer * (double)p->layers;
        weight += (double)p->window * p->bytes_per_token;
    }
    for (int k = 0; k < out->n; k++) {
        sim_engine_trt_pool *p = &out->pool[k];
        p->share = rule == SIM_ENGINE_TRT_EQUAL
                       ? 1.0 / (double)out->n
                       : (double)p->window * p->bytes_per_token / weight;
        const double tokens = mem > 0.0 ? floor(mem * p->share / p->bytes_per_token) : 0.0;
        const double bs = (double)cfg->block_size;
        p->blocks = (int64_t)(rule == SIM_ENGINE_TRT_EQUAL ? floor(tokens / bs) : ceil(tokens / bs));
    }
    return SIM_OK;
}

int64_t sim_engine_trt_seq_blocks(sim_engine_trt_rule rule, int64_t window, int64_t tokens,
                                  int64_t block_size)
{
    const int64_t held = tokens < window ? tokens : window;
    const bool detached = rule == SIM_ENGINE_TRT_EQUAL && tokens > window;
    return (held + block_size - 1) / block_size + (detached ? 1 : 0);
}

int64_t sim_engine_trt_seqs(const sim_engine_trt_pools *p, int64_t tokens)
{
    int64_t seqs = 0;
    for (int k = 0; k < p->n; k++) {
        const int64_t need =
            sim_engine_trt_seq_blocks(p->rule, p->pool[k].window, tokens, p->block_size);
        const int64_t fit = need > 0 ? p->pool[k].blocks / need : p->pool[k].blocks;
        if (k == 0 || fit < seqs)
            seqs = fit;
    }
    return seqs;
}
