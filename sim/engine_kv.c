/* engine_kv.c - the KV cache an engine cuts its blocks from: the capacity, vLLM's hybrid KV cache
 * groups (sliding and chunked layers), and the blocks that follow; the prompt a request's images
 * add to (declared in engine.h). */
#include "engine.h"
#include "kvtier.h"

#include <math.h>

#include "pp.h"

/* The group size vLLM's _get_kv_cache_groups_uniform_page_size gives two layer types of
 * nf and ns layers: the fewest, or the most when max < 1.5 x min. */
static int64_t group_size(int64_t nf, int64_t ns)
{
    int64_t lo = nf < ns ? nf : ns, hi = nf < ns ? ns : nf;
    return 2 * hi < 3 * lo ? hi : lo;
}

/* A hybrid linear / state-space model's groups under vLLM v1 (engine.h): `attn` full-attention
 * layers, the linear ones in state groups, the block raised to hold a state page. */
static sim_engine_kv_groups state_groups(const sim_engine_cfg *cfg, int64_t attn,
                                         sim_engine_kv_groups g)
{
    const sim_model *m = cfg->step.model;
    const int64_t size = group_size(attn, m->linear_layers);
    g.full = (attn + size - 1) / size;
    g.state = (m->linear_layers + size - 1) / size;
    /* speculation: a state page per group for each speculative token too, where the verify's
     * recurrent kernel keeps the state after every token until the acceptance is known
     * (vllm/model_executor/layers/mamba/abstract.py get_kv_cache_spec: MambaSpec's
     * num_speculative_blocks = num_speculative_tokens; the manager holds 1 + that per request) */
    if (sim_spec_active(cfg->spec))
        g.state *= 1 + (int64_t)cfg->spec->k;
    g.layers_per_block = size;
    const double page_1 = sim_graph_kv_bytes_per_token(m, cfg->step.tp, &cfg->step.prec) /
                          (double)attn; /* one attention layer's page of one token */
    const double state = sim_graph_linear_state_bytes(m, cfg->step.tp, &cfg->step.prec);
    const int64_t need = 16 * (int64_t)ceil(state / (16.0 * page_1));
    if (g.block_size < need)
        g.block_size = need;
    return g;
}

double sim_engine_kv_capacity_bytes(const sim_engine_cfg *cfg)
{
    return sim_mem_kv_capacity_bytes(&cfg->step, cfg->mem_util, cfg->sched.max_num_batched_tokens,
                                     cfg->sched.max_num_seqs,
                                     sim_spec_mem_extra(cfg->spec, &cfg->step).weight_bytes);
}

sim_engine_kv_groups sim_engine_kv_groups_for(const sim_engine_cfg *cfg, int64_t hash_block_tokens)
{
    const sim_model *m = cfg->step.model;
    const int64_t attn = sim_model_attn_layers(m);
    sim_engine_kv_groups g = {.full = 1,
                              .swa = 0,
                              .block_size = cfg->block_size,
                              .layers_per_block = attn,
                              .window = 0};
    int64_t ns = m->sliding_layers, nf = attn - m->sliding_layers;
    /* vLLM v1 (chunked prefill) only, one pipeline stage, no separate draft model's KV: the
     * other engines and those layouts still size every layer at full length (README "Model
     * families") */
    const bool vllm_v1 = cfg->sched.policy == SIM_POLICY_VLLM && cfg->sched.chunked_prefill;
    if (m->linear_layers > 0)
        return state_groups(cfg, attn, g);
    const sim_spec *sp = cfg->spec;
    const bool heads = sim_spec_active(sp) && (sp->method == SIM_SPEC_EAGLE ||
                                               sp->method == SIM_SPEC_MTP);
    if (!vllm_v1 || ns == 0 || m->sliding_window <= 0 || sim_pp_stages(&cfg->step) > 1 ||
        (sim_spec_active(sp) && !heads))
        return g;
    if (heads) {
        /* an EAGLE / MTP head's layers have the target's attention shape, so the same page a
         * token: vLLM's KV cache groups take them beside the target's layers (the draft's
         * attention layers are in the same kv_cache_spec, gpu_model_runner.py
         * get_kv_cache_spec), full attention unless every target layer slides (spec.c) */
        nf += sp->head.layers - sp->head.sliding_layers;
        ns += sp->head.sliding_layers;
    }
    if (nf == 0) {
        /* every layer slides (Mistral v0.1): one KV cache group of every layer's
         * SlidingWindowSpec (vllm/attention/layer.py @004a5da: a layer without a window of its
         * own takes the model's, cache_config.sliding_window), a SlidingWindowManager table per
         * request. A uniform model stays so with --disable-hybrid-kv-cache-manager
         * (vllm/v1/core/kv_cache_utils.py @bbf906a, unify_hybrid_kv_cache_specs returns on a
         * uniform spec). Not with a prefix cache in use: infersim's cached hash blocks live in
         * full tables (sched.c), so those runs keep one full table (README "Model families"). */
        if (hash_block_tokens > 0 && sim_engine_prefix_caching(cfg))
            return g;
        g.full = 0;
        g.swa = 1;
        g.layers_per_block = ns; /* the target's layers and a head's */
        g.window = m->sliding_window;
        g.chunked = m->chunked_attn;
        g.heads_in_groups = heads;
        return g;
    }
    if (cfg->no_hybrid_kv)
        return g;
    /* vllm/v1/core/kv_cache_utils.py, _get_kv_cache_groups_uniform_page_size: the group size is
     * the fewest layers of any attention type, or the most when max < 1.5 x min; each type is
     * cut into cdiv(count, size) groups (the last padded); get_kv_cache_config_from_groups
     * gives each block page_size x group size bytes. gpt-oss (18 + 18): one full and one
     * sliding group of 18 layers; 10 full + 52 sliding: groups of 10, 1 full and 6 sliding. */
    int64_t size = group_size(nf, ns);
    g.full = (nf + size - 1) / size;
    g.swa = (ns + size - 1) / size;
    g.layers_per_block = size;
    g.window = m->sliding_window;
    g.chunked = m->chunked_attn;
    g.heads_in_groups = heads;
    return g;
}

sim_engine_kv_groups sim_engine_kv_groups_of(const sim_engine_cfg *cfg)
{
    return sim_engine_kv_groups_for(cfg, 0);
}

void sim_engine_kvcache_init(sim_kvcache *kv, const sim_engine_kv_groups *g, int64_t blocks)
{
    sim_kvcache_init(kv, blocks, g->block_size);
    sim_kvcache_set_groups(kv, g->full, g->swa, g->window > 0 ? g->window : 1);
    sim_kvcache_set_chunked(kv, g->chunked);
    sim_kvcache_set_state_groups(kv, g->state);
}

/* SGLang's default --swa-full-tokens-ratio (python/sglang/srt/server_args.py). */
#define SGLANG_SWA_FULL_TOKENS_RATIO 0.8

/* SGLang's hybrid SWA memory (model_runner_kv_cache_mixin.py, set_num_tokens_hybrid_swa, at
 * sgl-project/sglang@001ccef; the 0.5 releases' token form is the same when every layer's
 * token costs the same bytes): the profiled tokens T (memory / every layer's bytes per token)
 * are re-cut into a full pool of T (nf + ns) / (nf + r ns) tokens for the nf full layers and an
 * SWA pool of r times that for the ns sliding ones, r = --swa-full-tokens-ratio; the scheduler's
 * token budget (max_total_num_tokens) is the full pool. 0 when the rule does not apply (another
 * engine, no sliding layers, every layer sliding, Llama 4's chunks, a draft model's KV). */
static int64_t sglang_full_pool_tokens(const sim_engine_cfg *cfg, double bytes, double per_token)
{
    const sim_model *m = cfg->step.model;
    const int64_t attn = sim_model_attn_layers(m), ns = m->sliding_layers, nf = attn - ns;
    if (cfg->sched.policy != SIM_POLICY_SGLANG || ns == 0 || nf == 0 || m->sliding_window <= 0 ||
        m->chunked_attn || sim_spec_active(cfg->spec) || !(bytes > 0.0))
        return 0;
    const double r =
        cfg->swa_full_tokens_ratio > 0.0 ? cfg->swa_full_tokens_ratio : SGLANG_SWA_FULL_TOKENS_RATIO;
    const double tokens = floor(bytes / per_token);
    const int64_t full = (int64_t)(tokens * (double)attn / ((double)nf + r * (double)ns));
    return full / cfg->block_size * cfg->block_size; /* aligned to the page */
}

int64_t sim_engine_kv_blocks(const sim_engine_cfg *cfg)
{
    /* a block holds block_size tokens of the target's KV and of the draft's, in
     * layers_per_block of the model's layers (all of them unless vLLM groups them) */
    const sim_engine_kv_groups g = sim_engine_kv_groups_of(cfg);
    double per_token = sim_mem_kv_bytes_per_token(&cfg->step) * (double)g.layers_per_block /
                       (double)sim_model_attn_layers(cfg->step.model);
    if (!g.heads_in_groups) /* else the heads' layers are among the group's layers */
        per_token += sim_spec_mem_extra(cfg->spec, &cfg->step).kv_bytes_per_token;
    double bytes = sim_engine_kv_capacity_bytes(cfg);
    const int64_t sglang = sglang_full_pool_tokens(cfg, bytes, per_token);
    if (sglang > 0)
        return sglang / g.block_size;
    return bytes > 0.0 ? (int64_t)floor(bytes / ((double)g.block_size * per_token)) : 0;
}

/* vLLM v1 disables prefix caching for hybrid and Mamba models (model_executor/models/config.py,
 * MambaModelConfig: "prefix caching is not yet supported"), so a linear model's prompts never
 * share cached blocks. */
bool sim_engine_prefix_caching(const sim_engine_cfg *cfg)
{
    return cfg->prefix_caching && cfg->step.model->linear_layers == 0;
}

/* A model with linear-attention / state-space layers is priced as vLLM v1 allocates its state
 * (sim_engine_kv_groups_of); the layouts that allocation does not cover are refused. */
sim_status sim_engine_check_state(const sim_engine_cfg *cfg, sim_err *err)
{
    const sim_model *m = cfg->step.model;
    if (m->linear_layers == 0)
        return SIM_OK;
    if (cfg->sched.policy != SIM_POLICY_VLLM || !cfg->sched.chunked_prefill)
        return sim_fail(err, SIM_EINPUT,
                        "--engine: %s has linear-attention / state-space layers, whose state per "
                        "sequence infersim prices as vLLM v1's hybrid KV cache manager allocates "
                        "it; this engine's state pool (SGLang's MambaPool, TensorRT-LLM's) is not "
                        "priced; expected a vLLM v1 engine (--engine vllm)",
                        m->path);
    if (cfg->no_hybrid_kv)
        return sim_fail(err, SIM_EINPUT,
                        "--disable-hybrid-kv-cache-manager: %s has linear-attention / state-space "
                        "layers, which vLLM serves only through the hybrid KV cache manager; "
                        "expected the flag left out",
                        m->path);
    if (sim_pp_stages(&cfg->step) > 1)
        return sim_fail(err, SIM_EINPUT,
                        "--pp: %s has linear-attention / state-space layers, whose state infersim "
                        "prices for one pipeline stage; expected --pp 1",
                        m->path);
    return SIM_OK;
}

int64_t sim_engine_prompt_tokens(const sim_engine_cfg *cfg, const sim_request *q)
{
    sim_vision_image im;
    if (q->images <= 0 ||
        !sim_model_vision_image(cfg->step.model, cfg->image_w, cfg->image_h, &im))
        return q->input_tokens;
    return q->input_tokens + q->images * im.tokens;
}

sim_status sim_engine_check_images(const sim_engine_cfg *cfg, const sim_request *q,
                                   const char *at, sim_err *err)
{
    sim_vision_image im;
    if (q->images <= 0 || sim_model_vision_image(cfg->step.model, cfg->image_w, cfg->image_h, &im))
        return SIM_OK;
    return sim_fail(err, SIM_EINPUT, "%s: %lld images, but %s%s", at, (long long)q->images,
                    cfg->step.model->path,
                    cfg->step.model->vision.kind == SIM_VISION_NONE
                        ? " has no vision encoder infersim prices"
                        : ": the engine's image size is not set (image_w, image_h)");
}

int64_t sim_engine_offload_entries(const sim_engine_cfg *cfg, int tier, int64_t hash_tokens)
{
    const double per_block = (double)hash_tokens * sim_mem_kv_bytes_per_token(&cfg->step) *
                             (double)sim_step_gpus(&cfg->step);
    const double b = cfg->offload.bytes[tier];
    return b > 0.0 && per_block > 0.0 ? (int64_t)floor(b / per_block) : 0;
}

double sim_engine_offload_tier_ns(const sim_engine_cfg *cfg, int tier, int64_t tokens,
                                  int64_t reqs)
{
    return (double)tokens * sim_mem_kv_bytes_per_token(&cfg->step) /
               cfg->offload.read_bytes_per_s[tier] * 1e9 +
           (double)reqs * cfg->offload.latency_ns[tier];
}

double sim_engine_offload_load_ns(const sim_engine_cfg *cfg, const int64_t tokens[],
                                  const int64_t reqs[])
{
    double ns = 0.0;
    for (int t = 0; t < SIM_KVTIER_LOWER; t++)
        if (tokens[t] > 0)
            ns += sim_engine_offload_tier_ns(cfg, t, tokens[t], reqs[t]);
    return ns;
}

bool sim_engine_offload_on(const sim_engine_cfg *cfg)
{
    for (int t = 0; t < SIM_KVTIER_LOWER; t++)
        if (cfg->offload.bytes[t] > 0.0)
            return true;
    return false;
}

/* Lower KV tiers need prefix caching and the workload's hash ids, and each tier a bandwidth. */
sim_status sim_engine_check_offload(const sim_engine_cfg *cfg, sim_err *err)
{
    const sim_engine_offload *o = &cfg->offload;
    bool any = false;
    for (int t = 0; t < SIM_KVTIER_LOWER; t++) {
        if (!(o->bytes[t] >= 0.0 && isfinite(o->bytes[t])))
            return sim_fail(err, SIM_EINPUT, "--kv-offload: %s size %g bytes, expected >= 0",
                            sim_kvtier_name(t), o->bytes[t]);
        if (o->bytes[t] == 0.0)
            continue;
        any = true;
        if (!(o->read_bytes_per_s[t] > 0.0 && isfinite(o->read_bytes_per_s[t]) &&
              o->latency_ns[t] >= 0.0 && isfinite(o->latency_ns[t])))
            return sim_fail(err, SIM_EINPUT,
                            "--kv-offload: the %s tier's read bandwidth %g B/s and latency %g ns, "
                            "expected a bandwidth > 0 and a latency >= 0 (the device file's "
                            "host_link / host_disk / scaleout fields)",
                            sim_kvtier_name(t), o->read_bytes_per_s[t], o->latency_ns[t]);
    }
    if (any && !sim_engine_prefix_caching(cfg))
        return sim_fail(err, SIM_EINPUT,
                        "--kv-offload: the lower KV tiers hold prefix-cache blocks, and prefix "
                        "caching is off (--no-enable-prefix-caching, or a model vLLM caches no "
                        "prefixes for); expected prefix caching on");
    return SIM_OK;
}
