/* engine.h - the discrete-event serving loop: requests arrive, the scheduler forms each
 * iteration, the step model prices it, tokens come out, the KV cache fills and frees.
 *
 * Example (const sim_engine_cfg *cfg, const sim_workload *w, sim_err *err):
 *   sim_engine_result res;
 *   sim_status st = sim_engine_check(cfg, w, err); // bad input: SIM_EINPUT, exit 2
 *   if (st || (st = sim_engine_run(cfg, w, &res, err)))
 *       return st;
 *   ... res.seqs[i].first_token_ns: request i's first token (the workload's order) ...
 *   sim_engine_result_free(&res);
 *
 * Time is integer nanoseconds from 0. Requests that arrive during an iteration join at the next
 * one. A request whose workload entry has kv_ready > 0 arrives with that many prompt tokens'
 * KV computed elsewhere (a disaggregated decode instance's): it is admitted once blocks for its
 * whole prompt are free and feeds only the rest. A client-side cap on requests in flight
 * (--max-concurrency) delays a request's send time until a slot frees; its latencies count from
 * the send, as vLLM's benchmark measures them.
 * Iterations with any prefill tokens launch kernels eagerly; decode-only iterations replay CUDA
 * graphs (unless the step configuration says eager), padded to the next captured batch size and
 * eager above the largest (sim_step_graph_seqs): the padding's dummy sequences are priced as
 * sequences of one token over an empty context. Per iteration the work is
 * O(operators + requests scheduled). Memory is O(requests + distinct inter-token gaps), nothing per
 * token: a sequence that streamed in the previous iteration sees a gap equal to this iteration's
 * duration, so an iteration adds one (duration, count) run to the ITL histogram (gaps spanning
 * several iterations, after a preemption or a skipped turn, are added one by one), and the
 * busiest 1-second window of output is tracked as time advances.
 *
 * With a front end (cfg.frontend, frontend.h), a request reaches the scheduler when the front end
 * has taken it in, and each iteration's tokens reach the client when the front end has streamed
 * them: seqs[i].first_token_ns, last_token_ns, finish_ns and the ITL gaps are the client's (per
 * streamed chunk), TTFT and E2E include the front end's queueing and work, and the duration runs
 * to the last chunk the client receives. Without one (frontend.on false) the engine is exactly as
 * it was: requests enter at their send time and every token is seen when it is emitted.
 *
 * With speculative decoding, an iteration costs the draft's proposals plus the target's verify
 * step; each verifying sequence draws how many drafts are accepted (a in 0..K, from the spec's
 * acceptance model and the seed) and streams a + 1 tokens at once: as in vLLM's benchmark, an
 * inter-token latency sample is the gap between two streamed chunks, so ITL exceeds TPOT.
 */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <stdint.h>

#include "frontend.h"
#include "hist.h"
#include "pp.h"
#include "sched.h"
#include "spec.h"
#include "step.h"
#include "workload.h"

/* What happened to a request, for observers (timelines). */
typedef enum sim_request_event {
    SIM_EV_ARRIVED,   /* sent by the client, queued at the engine */
    SIM_EV_SCHEDULED, /* admitted into an iteration (prefill or recompute starts) */
    SIM_EV_DECODING,  /* its prompt (or recompute) is done: it decodes from here */
    SIM_EV_PREEMPTED, /* evicted (recompute), back in the queue */
    SIM_EV_FINISHED,
} sim_request_event;

/* One engine iteration, for observers. */
typedef struct sim_iter_info {
    int64_t start_ns, dur_ns;
    int64_t seqs;           /* requests in the iteration */
    int64_t prefill_tokens; /* prompt (and recompute) tokens */
    int64_t decode_tokens;  /* decode and verify tokens */
    int64_t cached_tokens;  /* prompt tokens admitted from the prefix cache (not computed) */
    int64_t graph_seqs;     /* decode-only: the CUDA-graph batch replayed (padded); 0 = eager */
    int64_t kv_used_blocks, kv_total_blocks;
    int64_t running, waiting;    /* after scheduling */
    double draft_ns;             /* speculative proposals, before the target's step */
    const sim_step_result *step; /* the target's step, op by op */
    /* what it was priced from: the configuration (launch mode chosen) and the scheduled
     * sequences (no CUDA-graph padding), which pipeline stages cut into micro-batches (pp.h) */
    const sim_step_cfg *step_cfg;
    const sim_seq_group *groups;
    size_t n_groups;
    /* the scheduler's entries behind groups[0..n_groups) (their request, tokens and whether each
     * is a decode: one known token left to feed, sched.h) */
    const sim_sched_entry *batch;
} sim_iter_info;

/* KV moved between HBM and lower tier `tier` (0 DRAM, 1 disk, 2 remote: sim_kvtier_name) as the
 * engine prices it (sim_engine_offload): a load that the iteration starting at iter_ns waits for
 * before its forward (the tiers one after another from iter_ns, each tokens x KV bytes per token
 * per GPU / read_bytes_per_s + requests x latency_ns), or a store into the tier, issued at
 * start_ns by the iteration at iter_ns (written through at its end, when it computed the KV; on
 * eviction, or a spill to the next tier, at its start, when it scheduled) and asynchronous, off
 * every iteration's time: dur_ns is its tokens at the tier's per-direction bandwidth, for the
 * timeline only. Llama-3.1-8B at TP 1, 8192 tokens from DRAM at 50 GB/s, 10 us latency:
 * 8192 x 131,072 B = 1,073,741,824 B in 21,484,836 ns (test_kvtier.c). */
typedef struct sim_tier_move {
    int tier;
    bool store;
    int64_t tokens;   /* KV tokens moved (a store: its hash blocks' tokens) */
    int64_t requests; /* a load: the requests it loads for; a store: 0 */
    double bytes;     /* over the engine's GPUs */
    int64_t iter_ns, start_ns, dur_ns;
} sim_tier_move;

/* Callbacks the engine makes while it simulates (all optional). They see plain values, never the
 * engine's internals; a timeline writer is one such observer. */
typedef struct sim_engine_observer {
    void *ctx;
    void (*iteration)(void *ctx, const sim_iter_info *it);
    void (*request)(void *ctx, int64_t id, sim_request_event ev, int64_t t_ns);
    /* request id's client received a chunk at t_ns and now holds `streamed` output tokens (with
     * a front end, when its stream rule sends one, frontend.h; without, at every emission) */
    void (*chunk)(void *ctx, int64_t id, int64_t streamed, int64_t t_ns);
    /* a lower KV tier's load or store (with cfg.offload), after the iteration's own callback */
    void (*tier)(void *ctx, const sim_tier_move *m);
} sim_engine_observer;

/* Lower KV tiers below HBM (kvtier.h): host DRAM (tier 1), local disk (tier 2) and a remote
 * store (tier 3, read by RDMA over the GPU's NIC into HBM, as Mooncake's transfer engine does).
 * A prompt's prefix found in a lower tier is loaded instead of recomputed: the iteration that admits it
 * waits for the transfer, per tier bytes / read_bytes_per_s + latency_ns per request loaded
 * (bytes: the loaded tokens x the KV bytes per token per GPU; each GPU loads its own share over
 * its own link, in parallel), as a blocking load before the forward (LMCache's retrieve in
 * vLLM's start_load_kv). Writes are asynchronous (off the critical path) and only counted. */
typedef struct sim_engine_offload {
    double bytes[SIM_KVTIER_LOWER];            /* capacity, the engine's GPUs together; 0 = none */
    double read_bytes_per_s[SIM_KVTIER_LOWER]; /* into one GPU's HBM (disk: over the host link;
                                                * remote: over the GPU's NIC) */
    double latency_ns[SIM_KVTIER_LOWER];       /* per request's load from the tier */
    bool write_through;                        /* else write on eviction (kvtier.h) */
} sim_engine_offload;

typedef struct sim_engine_cfg {
    sim_step_cfg step;       /* model, device, TP, precision, overheads */
    sim_sched_cfg sched;     /* batch limits and chunked prefill */
    int64_t block_size;      /* KV tokens per block */
    double mem_util;         /* --gpu-memory-utilization */
    int64_t max_concurrency; /* client-side cap on requests in flight; 0 = none */
    const sim_spec *spec;    /* speculative decoding; NULL or method none: plain decoding */
    bool prefix_caching;     /* share prompt prefixes the workload's hash ids name */
    bool no_hybrid_kv;       /* vLLM's --disable-hybrid-kv-cache-manager: one full block table */
    int64_t max_input_len;   /* longest prompt the engine takes; 0 = only the context limit */
    uint64_t seed;           /* seeds the acceptance draws */
    const sim_engine_observer *observer; /* NULL: nobody watches */
    bool record_seconds; /* keep the output tokens of every 1-second window (res.out_seconds) */
    sim_frontend_cfg frontend; /* the API server / tokenizer and the stream (frontend.h); zero:
                                  none, every request and token as the engine sees it */
    int64_t image_w, image_h;  /* the pixels of every request's images (--image-size) */
    double swa_full_tokens_ratio; /* SGLang's --swa-full-tokens-ratio: its SWA pool's tokens over
                                   * the full pool's (0: its default, 0.8) */
    sim_engine_offload offload; /* lower KV tiers (needs prefix caching); zero: HBM only */
} sim_engine_cfg;

/* The prompt the engine prefills for request q: its input_tokens plus, for each of its images,
 * the placeholder tokens the model's vision encoder writes for an image_w x image_h image
 * (sim_model_vision_image). Equal to input_tokens for a text-only request. */
int64_t sim_engine_prompt_tokens(const sim_engine_cfg *cfg, const sim_request *q);

/* SIM_EINPUT naming `at` (the request's place in the workload) when q carries images the
 * engine cannot encode: the model has no priced vision encoder, or the image size is unset. */
sim_status sim_engine_check_images(const sim_engine_cfg *cfg, const sim_request *q,
                                   const char *at, sim_err *err);

/* A finished request as the outputs read it (metrics, --save-requests, the pictures): its
 * timeline and counts, 48 bytes where the engine's live sim_seq takes 96. */
typedef struct sim_req_result {
    int64_t send_ns, first_sched_ns, first_token_ns, finish_ns;
    int32_t input, output, cached, preemptions;
} sim_req_result;

typedef struct sim_engine_result {
    sim_seq *seqs; /* per request, in workload order (owned); NULL when `done` holds them */
    /* per request, in workload order, in their compact form (owned, in place of seqs): what a
     * deployment of several engines keeps of its requests once each is finished (cluster.h);
     * NULL for one engine's run. Read either through sim_engine_req. */
    sim_req_result *done;
    size_t n;
    /* every gap between successive streamed chunks, as (value, count) runs (owned, finished):
     * an iteration adds one run for all its sequences */
    sim_hist itl;
    int64_t duration_ns; /* from t = 0 to the last token */
    int64_t iterations;
    int64_t scheduled_seqs; /* sum over iterations of the requests in them */
    int64_t steady_seqs;    /* of those, the ones held as steady decodes (sched.h), not walked */
    int64_t preemptions;
    int64_t kv_blocks; /* cache size */
    int64_t kv_peak_blocks;
    int64_t block_size;
    int64_t peak_concurrency; /* most requests in flight at once */
    double peak_output_tps;   /* most output tokens in any 1-second window [k, k+1) */
    double busy_ns;           /* time spent in iterations (the rest is idle) */
    double draft_ns;          /* of which speculative drafting */
    int64_t spec_verifies;    /* verify steps of a sequence */
    int64_t spec_tokens;      /* tokens those verify steps yielded (accepted + 1 each) */
    int64_t spec_off_iterations; /* iterations a load rule ran without speculation */
    double verify_ns;            /* target time of the iterations that verified drafts */
    int64_t prefix_hit_tokens;   /* prompt tokens served from the prefix cache (first admissions) */
    int64_t prefix_query_tokens; /* prompt tokens of those admissions; 0 without prefix caching */
    /* lower KV tiers (cfg.offload): per tier (DRAM, disk, remote), prompt tokens loaded from it
     * (every admission, recomputes after preemption too), the bytes those loads moved and the bytes
     * written into it (summed over the engine's GPUs), and the time iterations waited for loads */
    bool offload_on;
    int64_t offload_hit_tokens[SIM_KVTIER_LOWER];
    double offload_read_bytes[SIM_KVTIER_LOWER], offload_write_bytes[SIM_KVTIER_LOWER];
    double offload_load_ns;
    /* with cfg.record_seconds: (k, output tokens in [k, k+1) s) runs, finished (owned), so
     * several engines' streams can be added up (replicas behind a router) */
    sim_hist out_seconds;
    /* with cfg.frontend.on: the front end's part of the requests' latencies, summed over the
     * requests (ns): the input stage's wait and work (send to scheduler) plus, for TTFT, the time
     * from the engine's first token to the client's first chunk, and for E2E, from the engine's
     * last token to the client's last chunk (the output stage and the stream interval) */
    bool frontend_on;
    double frontend_ttft_ns, frontend_e2e_ns;
    /* the power estimate (power.h): the idle floor of every GPU the engine holds (W, tp x pp x
     * the DP attention groups; 0 without the device's power), and the energy above it of every
     * target step, on each GPU of its TP group (J; a speculative draft's time and the gaps
     * between iterations are at the floor). Several engines add theirs up. */
    double idle_w, active_j;
    bool power_unknown; /* the device file (of one engine) gives no power.tdp_w */
} sim_engine_result;

/* Request i of a finished result as its outputs read it, from `done` or from `seqs`. */
static inline sim_req_result sim_engine_req_of(const sim_seq *x)
{
    return (sim_req_result){.send_ns = x->send_ns,
                            .first_sched_ns = x->first_sched_ns,
                            .first_token_ns = x->first_token_ns,
                            .finish_ns = x->finish_ns,
                            .input = x->input,
                            .output = x->output,
                            .cached = x->cached,
                            .preemptions = (int32_t)x->preemptions};
}
static inline sim_req_result sim_engine_req(const sim_engine_result *r, size_t i)
{
    return r->done ? r->done[i] : sim_engine_req_of(&r->seqs[i]);
}

/* The block tables of vLLM v1's hybrid KV cache manager for a model that mixes full and
 * sliding-window layers (kvcache.h): `full` and `swa` tables per request, each block
 * layers_per_block layers' KV of block_size tokens. A model whose every layer slides (Mistral
 * v0.1) under vLLM v1: one sliding table over all layers (full 0, swa 1), with or without
 * --disable-hybrid-kv-cache-manager, unless a prefix cache is in use (`hash_block_tokens` > 0,
 * the workload's hash blocks, with the engine's prefix caching on): then one full table, as
 * infersim's prefix cache shares full tables only. Mistral-7B v0.1, window 4096, block 16: a
 * request holds 257 blocks with 4097 tokens computed and 4112 held, 256 with 8192 of each
 * (against 512 in a full table). Under EAGLE or MTP the head's layers (the target's attention
 * shape, full attention unless every target layer slides) join the groups as layers of their
 * kind: gpt-oss-120b with an EAGLE head, 19 full + 18 sliding layers, groups of 19 (19 <
 * 1.5 x 18), 1 full and 1 sliding table (padded), heads_in_groups. A separate draft model
 * (--spec-method draft), any other engine or layout: one full table over all layers, the
 * draft's KV an extra per block.
 * A model with linear-attention / state-space layers (vLLM v1 only; sim_engine_check refuses
 * the rest): `full` tables of its attention layers and `state` tables of its linear layers, the
 * group size by the same rule; vLLM (model_executor/models/config.py,
 * HybridAttentionMambaModelConfig) raises the block size to 16 ceil(state page / (16 x attention
 * page of one token)) so that one attention page holds one layer's state, and pads the state
 * page to it. Qwen3-Next-80B at TP 1: state page 1,097,728 B, attention 2,048 B a token:
 * block 16 x 34 = 544 tokens; 12 full + 36 linear layers: groups of 12, 1 full and 3 state. */
typedef struct sim_engine_kv_groups {
    int64_t full, swa;
    int64_t state;      /* hybrid linear / state-space models: state groups (one block each) */
    int64_t block_size; /* tokens per block: the engine's, or the size vLLM raises it to so that
                         * an attention page holds a state page (sim_engine_kv_groups_of) */
    int64_t layers_per_block;
    int64_t window; /* the sliding window or chunk (tokens), 0 with swa 0 */
    bool chunked;   /* the swa tables are chunked local attention (Llama 4) */
    /* an EAGLE / MTP head's layers are among the groups' layers (a model with sliding layers
     * under vLLM v1), not an extra per block */
    bool heads_in_groups;
} sim_engine_kv_groups;
sim_engine_kv_groups sim_engine_kv_groups_for(const sim_engine_cfg *cfg, int64_t hash_block_tokens);
/* The groups without a prefix cache in use: sim_engine_kv_groups_for(cfg, 0). */
sim_engine_kv_groups sim_engine_kv_groups_of(const sim_engine_cfg *cfg);

/* Sets up kv as `blocks` blocks cut by the groups g: their block size, full, sliding (window,
 * chunked) and state tables per request. */
void sim_engine_kvcache_init(sim_kvcache *kv, const sim_engine_kv_groups *g, int64_t blocks);

/* Whether the engine caches prompt prefixes: its prefix_caching, except for a model with
 * linear-attention / state-space layers, for which vLLM v1 turns it off (MambaModelConfig in
 * vllm/model_executor/models/config.py @0144dd5b: "prefix caching is not yet supported"). */
bool sim_engine_prefix_caching(const sim_engine_cfg *cfg);

/* For a model with linear-attention / state-space layers: that the engine is vLLM v1 (chunked
 * prefill) with its hybrid KV cache manager, one pipeline stage and no speculative decoding, the
 * layout whose state allocation infersim prices (sim_engine_kv_groups_of); other engines' state
 * pools (SGLang's MambaPool, TensorRT-LLM's) are refused naming --engine. SIM_OK otherwise. */
sim_status sim_engine_check_state(const sim_engine_cfg *cfg, sim_err *err);

/* KV blocks the configuration leaves (<= 0: the model does not fit). A block is
 * layers_per_block layers' KV (sim_engine_kv_groups_of). */
int64_t sim_engine_kv_blocks(const sim_engine_cfg *cfg);

/* The bytes of KV cache the engine cuts its blocks from: sim_mem_kv_capacity_bytes of its memory
 * fraction, budgets and a draft model's weights. */
double sim_engine_kv_capacity_bytes(const sim_engine_cfg *cfg);

/* TensorRT-LLM's variable sliding-window attention (VSWA) KV pools, cut from
 * kv_cache_config.max_attention_window: the list is cycled over the attention layers (layer i
 * takes windows[i % n]), each window clamped to max_seq_len; the layers of one window share a
 * pool of their own; a pool's blocks are its share of the KV memory over its layers' KV bytes a
 * token, in tokens, per block of block_size. Unset (the default), one window of max_seq_len
 * holds every layer: infersim's single full-length pool. Two rules, by source:
 *   SIM_ENGINE_TRT_EQUAL (the trtllm profile, TensorRT-LLM 1.x's PyTorch backend, the newest
 *     source read): every pool gets 1 / (the number of windows) of the memory
 *     (tensorrt_llm/_torch/pyexecutor/resource_manager.py, _get_window_size_to_layers and
 *     calculate_max_num_blocks_for_vswa with TRTLLM_WINDOW_SIZE_SHARES unset, the copy the
 *     code index holds beside NVIDIA/TensorRT-LLM@d2a5560a's; blocks floor(tokens) //
 *     block_size), and sliding blocks are written linearly and detached once the window has
 *     passed them (NVIDIA/TensorRT-LLM#6768), so a sequence past its window reserves one block
 *     more (sim_engine_trt_seq_blocks);
 *   SIM_ENGINE_TRT_WINDOW (the C++ runtime's BaseKVCacheManager::calculateMaxNumBlocks with
 *     BlockManager::calculateWindowSizeToShare, cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp
 *     at NVIDIA/TensorRT-LLM@002ba6a7; resource_manager.py at d2a5560a hands VSWA to it): a
 *     pool's share is proportional to its window x its layers' bytes a token (what a
 *     window-long sequence keeps in it), blocks ceil(tokens / block_size);
 *     calculateMaxBlockRequirementsPerBeam there: ceil(min(L, window) / block_size), cyclic.
 * Which 1.x release moved from the second to the first is in no release note read; an
 * inventory of v1.2.1's environment variables lists TRTLLM_WINDOW_SIZE_SHARES. Capacity is
 * KVCacheManager::getMaxCapacityBatchSize's: the least over the windows.
 * Example (hand-worked in test_engine's test_trtllm_window_pools): Gemma 3 27B at TP 1,
 * windows {1024 x 5, 131072}, 8,192 B a token a layer: a pool of 52 layers (425,984 B a
 * token) and one of 10 (81,920 B); equal: half the memory each; window: 1024 x 425,984 :
 * 131072 x 81,920, 3.9 % and 96.1 %. */
#define SIM_ENGINE_MAX_WINDOWS 16
typedef enum { SIM_ENGINE_TRT_EQUAL, SIM_ENGINE_TRT_WINDOW } sim_engine_trt_rule;
typedef struct sim_engine_trt_pool {
    int64_t window;         /* tokens, after the clamp to max_seq_len */
    int64_t layers;         /* attention layers that take this window */
    double bytes_per_token; /* their KV bytes a token per GPU */
    double share;           /* of the KV memory */
    int64_t blocks;         /* blocks of block_size tokens in the pool */
} sim_engine_trt_pool;
typedef struct sim_engine_trt_pools {
    int n; /* distinct windows, ascending */
    int64_t block_size;
    sim_engine_trt_rule rule;
    sim_engine_trt_pool pool[SIM_ENGINE_MAX_WINDOWS];
} sim_engine_trt_pools;

/* The pools of windows[0..n) (1 <= n <= SIM_ENGINE_MAX_WINDOWS, each >= 1) under `rule` for
 * cfg's model, KV memory (sim_engine_kv_capacity_bytes) and block size, max_seq_len the
 * engine's longest sequence. SIM_EINPUT naming kv_cache_config.max_attention_window for a bad
 * list. */
sim_status sim_engine_trt_pools_of(const sim_engine_cfg *cfg, sim_engine_trt_rule rule,
                                   const int64_t windows[], int n, int64_t max_seq_len,
                                   sim_engine_trt_pools *out, sim_err *err);

/* Blocks a sequence of `tokens` tokens reserves in a pool of `window` (sink tokens 0):
 * ceil(min(tokens, window) / block_size) (KVCacheManager::calculateMaxBlockRequirementsPerBeam),
 * plus one under SIM_ENGINE_TRT_EQUAL when the sequence outgrows the window (the block the
 * window's edge straddles while the oldest is detached). Window 1024, block 32: 4,096 tokens 33
 * blocks (32 cyclic), 1,000 tokens 32. */
int64_t sim_engine_trt_seq_blocks(sim_engine_trt_rule rule, int64_t window, int64_t tokens,
                                  int64_t block_size);

/* Sequences of `tokens` tokens the pools hold at once: the least over the pools of floor(blocks
 * / sim_engine_trt_seq_blocks) (KVCacheManager::getMaxCapacityBatchSize: the window with the
 * smallest batch binds). */
int64_t sim_engine_trt_seqs(const sim_engine_trt_pools *p, int64_t tokens);

/* Hash blocks each lower tier holds: floor(bytes / (hash block tokens x KV bytes per token over
 * the engine's GPUs)); 0 without the tier. Llama-3.1-8B (131,072 B a token at TP 1), 16-token
 * blocks, 100 GB of DRAM: floor(1e11 / 2,097,152) = 47,683. */
int64_t sim_engine_offload_entries(const sim_engine_cfg *cfg, int tier, int64_t hash_tokens);

/* Nanoseconds an iteration waits to load tokens[t] from lower tier t + 1 for reqs[t] requests:
 * sum of tokens x KV bytes per token per GPU / read_bytes_per_s + reqs x latency_ns; of one tier
 * alone (sim_engine_offload_tier_ns), its term. */
double sim_engine_offload_tier_ns(const sim_engine_cfg *cfg, int tier, int64_t tokens,
                                  int64_t reqs);
double sim_engine_offload_load_ns(const sim_engine_cfg *cfg, const int64_t tokens[],
                                  const int64_t reqs[]);

/* Whether any lower KV tier has a size (cfg.offload.bytes). */
bool sim_engine_offload_on(const sim_engine_cfg *cfg);

/* The lower KV tiers: sizes >= 0, a bandwidth > 0 and a latency >= 0 for each tier given, and
 * prefix caching on when any is (sim_engine_prefix_caching). SIM_EINPUT naming --kv-offload. */
sim_status sim_engine_check_offload(const sim_engine_cfg *cfg, sim_err *err);

/* Validates the configuration against the workload: the step, the limits, that the KV cache
 * holds at least one block, and that every request fits the model's context, the whole KV cache
 * and (without chunked prefill) the token budget. Errors name the file and line of a traced
 * request. */
sim_status sim_engine_check(const sim_engine_cfg *cfg, const sim_workload *w, sim_err *err);

/* The memos of one engine's target steps: one per launch mode (graph, eager) and, with pipeline
 * stages, the micro-batches' (pp: zeroed, and initialised by sim_pp_memo_init for pp > 1). Zero
 * it to start; the caller frees pp. */
typedef struct sim_engine_memo {
    sim_step_memo_ways step[2]; /* by launch mode: graph, eager; a way per batch shape */
    sim_pp_memo pp;
} sim_engine_memo;

/* One iteration's target step as the engine prices it. */
typedef struct sim_engine_batch {
    sim_step_cfg sc;             /* the configuration priced: the launch mode chosen, host
                                  * scheduling synchronous under a speculation that needs it */
    const sim_step_result *step; /* the step (lives in the memo until its next use) */
    int64_t graph_seqs;          /* decode-only: the CUDA-graph batch replayed (padded); 0 eager */
    size_t n_groups;             /* groups priced: the batch's, plus one group of padding */
    double gpu_ns;               /* the target's time: the step's, or the pipeline round's */
} sim_engine_batch;

/* Prices the n groups of one iteration (groups has room for n + 1) as the engine runs them:
 * eager when any carries prefill tokens (sim_step_eager); a decode-only batch replays the next
 * captured CUDA graph (sim_step_graph_seqs), the batch padded with dummy sequences of 1 + k
 * tokens over no context (k: the drafts each decode verifies), or runs eagerly above the largest
 * graph; with pipeline stages the time is a steady round of micro-batches (pp.h) of the groups
 * without the padding. The one statement of that rule: the engine's iterations and the step
 * predictor (include/infersim_step.h) both price here. */
void sim_engine_price_batch(const sim_engine_cfg *cfg, sim_seq_group *groups, size_t n,
                            bool prefill, int64_t k, sim_engine_memo *memo, sim_engine_batch *out);

/* The same with `steady` more decodes in the batch, single sequences whose contexts sum to
 * c_sum tokens, not in groups (the engine's steady decodes, engine.c; sim_step_price_memo_ways_plus:
 * no speculation, pipeline stages or data-parallel attention). The batch is n + steady
 * sequences: the CUDA graph is picked for all of them. */
void sim_engine_price_batch_plus(const sim_engine_cfg *cfg, sim_seq_group *groups, size_t n,
                                 int64_t steady, int64_t c_sum, bool prefill,
                                 sim_engine_memo *memo, sim_engine_batch *out);

/* Simulates the workload. cfg must have passed sim_engine_check with w. */
sim_status sim_engine_run(const sim_engine_cfg *cfg, const sim_workload *w, sim_engine_result *out,
                          sim_err *err);

void sim_engine_result_free(sim_engine_result *r);

/* Stepping, for several engines simulated side by side in time order (replicas behind a
 * router, cluster.h). sim_engine_run is start + finish.
 *
 * Example (const sim_engine_cfg *cfg, sim_workload *w, size_t capacity, int64_t t, sim_err *err):
 *   sim_engine *e;
 *   sim_engine_result res;
 *   sim_status st = sim_engine_start(cfg, w, capacity, &res, &e, err); // w may be empty
 *   if (st)
 *       return st;
 *   if ((st = sim_engine_advance(e, t, err))) { // runs the iterations that start before t
 *       sim_engine_abort(e, &res);
 *       return st;
 *   }
 *   int64_t busy = sim_engine_outstanding(e, t); // what a router weighs
 *   ... append a request arriving at t to w (w->n++), advance to the next arrival, ...
 *   if ((st = sim_engine_finish(e, err))) // runs to the end, fills res, frees e
 *       return st;
 *   sim_engine_result_free(&res);
 *
 * Requests may be appended to w (in arrival order, each arrival no earlier than the time the
 * engine was last advanced to) while w->n <= capacity; cfg must have passed sim_engine_check
 * with every request it will be given. */
typedef struct sim_engine sim_engine;

sim_status sim_engine_start(const sim_engine_cfg *cfg, const sim_workload *w, size_t capacity,
                            sim_engine_result *out, sim_engine **e, sim_err *err);

/* Makes room for the requests w holds now (its per-request arrays, res's seqs among them, grow
 * with w to the capacity: an engine's memory is what it was given); sim_engine_advance does it
 * first. A caller that reads res's seqs of requests appended since the last advance calls it
 * after appending. Fails past the capacity or out of memory. */
sim_status sim_engine_reserve(sim_engine *e, sim_err *err);

/* Runs every iteration that starts before until_ns; an idle engine waits at until_ns (or where
 * it is, with no request left to send). */
sim_status sim_engine_advance(sim_engine *e, int64_t until_ns, sim_err *err);

/* Drops the first k requests of the engine's stream, each finished before its clock (finish_ns <
 * sim_engine_now): the caller, which keeps what it needs of them (res's seqs[0..k)), has already
 * removed them from the front of w (w->n less k); the engine's request j is its request j + k
 * before, in its per-request arrays, its queues and the ids it reports from then on. Its memory
 * is then the requests it holds, not all it was given: replicas behind a router release the
 * finished front of their streams (cluster.h). Fails (SIM_EINTERNAL, nothing dropped) when one
 * of them is not so finished, or the engine runs sessions itself (w->links). */
sim_status sim_engine_release(sim_engine *e, size_t k, sim_err *err);

/* The engine's clock: the end of its last iteration, or where it waits. */
int64_t sim_engine_now(const sim_engine *e);

/* When the requests that finished in its last iteration reached their client: the clock, or
 * with a front end the time its last chunks were streamed (frontend.h). */
int64_t sim_engine_client_ns(const sim_engine *e);

/* When it next runs an iteration or moves a request on (sends a request it was given, or hands
 * one from its front end to the scheduler): its clock with a batch to run, INT64_MAX with nothing
 * to do. sim_engine_advance(e, sim_engine_next_ns(e) + 1) does that one thing: a client that
 * steps several engines in time order (cluster_client.c) runs them one event at a time. */
int64_t sim_engine_next_ns(const sim_engine *e);

/* Requests given to the engine and not finished by t_ns (t_ns at or after the time it was last
 * advanced to). */
int64_t sim_engine_outstanding(const sim_engine *e, int64_t t_ns);

/* What a KV-aware router reads (cluster.h), as of the engine's last iteration: how many of the
 * leading `n` hash ids `ids` its HBM prefix cache holds (0 without prefix caching); and the
 * requests finished so far (the released ones among them). */
size_t sim_engine_done(const sim_engine *e);
/* The KV cache's usage as of the engine's last iteration: blocks held by requests (not the
 * prefix cache's evictable ones) over all blocks, as vLLM's kv_cache_usage_perc counts it. */
double sim_engine_kv_usage(const sim_engine *e);
int64_t sim_engine_cached_prefix(const sim_engine *e, const uint64_t *ids, int64_t n);

/* Aborts request id where the engine's clock stands (sim_sched_abort: its client went away):
 * a waiting or running one is done with the tokens it has (its output becomes them). Returns its
 * phase before; one not yet in the scheduler (PENDING: not sent, or in the front end) or DONE is
 * left to run. */
sim_seq_phase sim_engine_abort_request(sim_engine *e, int64_t id);

/* Runs to the end, completes the result and frees the engine (also on error, when the result is
 * freed too). */
sim_status sim_engine_finish(sim_engine *e, sim_err *err);

/* Stops an engine early: frees it and its result `out` (as given to sim_engine_start). */
void sim_engine_abort(sim_engine *e, sim_engine_result *out);

#endif
