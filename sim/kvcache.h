/* kvcache.h - paged KV cache: block accounting of a cache of blocks of `block_size` tokens.
 *
 * Only counts matter to timing (which physical block a token sits in does not), so a request
 * holds a number of blocks and the cache a number of free ones: every operation is O(1).
 * How many blocks there are is the memory plan's business (sim_mem_kv_capacity_bytes in mem.h;
 * the engine divides it by block_size x KV bytes per token): this module knows nothing of
 * models, devices or costs.
 */
#ifndef SIM_KVCACHE_H
#define SIM_KVCACHE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_kvcache {
    int64_t block_size; /* tokens per block */
    /* block tables each request has (vLLM's hybrid KV cache manager: one per KV cache group,
     * every block of the pool the same bytes): full_groups tables that keep every token's block,
     * swa_groups that keep only the blocks the sliding window still reaches. A uniform model has
     * one full table (full_groups 1, swa_groups 0). */
    int64_t full_groups, swa_groups;
    /* block tables of a hybrid model's state layers (vLLM's MambaSpec groups): one block per
     * request each, whatever its length, while it holds any token (0 for other models) */
    int64_t state_groups;
    int64_t window; /* sliding window in tokens (with swa_groups > 0) */
    bool chunked;   /* the swa tables are chunked local attention of `window`-token chunks */
    int block_shift;    /* log2(block_size) when it is a power of two, else -1 */
    int64_t total_blocks;
    /* of the others, the ones only a prefix cache holds are its count (sim_prefix's
     * evictable_blocks), passed in where they matter */
    int64_t free_blocks;
    int64_t peak_used; /* most blocks ever in use by requests at once */
} sim_kvcache;

/* Sets up a cache of `blocks` blocks of `block_size` tokens, one full block table per request. */
void sim_kvcache_init(sim_kvcache *kv, int64_t blocks, int64_t block_size);

/* Gives each request `full_groups` full and `swa_groups` sliding-window block tables (window
 * tokens), as sim_kvcache_blocks_held counts them. full_groups + swa_groups >= 1, window >= 1. */
void sim_kvcache_set_groups(sim_kvcache *kv, int64_t full_groups, int64_t swa_groups,
                            int64_t window);

/* Gives each request `state_groups` (>= 0) constant-size state tables of one block each. */
void sim_kvcache_set_state_groups(sim_kvcache *kv, int64_t state_groups);

/* Makes the swa tables chunked local attention (aligned chunks of `window` tokens). */
void sim_kvcache_set_chunked(sim_kvcache *kv, bool chunked);

/* Blocks needed to hold `tokens` (>= 0) tokens: ceil(tokens / block_size). Inline, with a shift
 * for the usual power-of-two block sizes: the scheduler asks once per running request per
 * iteration, and a 64-bit division was 15% of a long serve run. */
static inline int64_t sim_kvcache_blocks_for(const sim_kvcache *kv, int64_t tokens)
{
    if (kv->block_shift >= 0)
        return (tokens + kv->block_size - 1) >> kv->block_shift;
    return (tokens + kv->block_size - 1) / kv->block_size;
}

/* Blocks a request holds, over all its block tables, once `tokens` (>= computed) tokens have
 * slots and `computed` of them are computed. A sliding table frees each block whose tokens all
 * lie before the window of the next token: vLLM v1's SlidingWindowManager.remove_skipped_blocks
 * (vllm/v1/core/single_type_kv_cache_manager.py) frees blocks [0, (computed - window + 1) /
 * block_size) before it allocates for the step. Example: window 128, block 16, computed 33000,
 * tokens 33001: 2063 blocks per full table, 2063 - floor(32873 / 16) = 9 per sliding table.
 * A state table holds one block while the request holds any token (vLLM v1's MambaManager with
 * MambaSpec's block_size = max_model_len: cdiv(tokens, max_model_len) = 1). */
static inline int64_t sim_kvcache_blocks_held(const sim_kvcache *kv, int64_t computed,
                                              int64_t tokens)
{
    int64_t b = sim_kvcache_blocks_for(kv, tokens);
    if (kv->swa_groups == 0)
        return kv->full_groups * b + (tokens > 0 ? kv->state_groups : 0);
    /* chunked local attention (ChunkedLocalAttentionManager.get_num_skipped_tokens): the
     * tokens before the current chunk, (computed / chunk) x chunk */
    int64_t first_useful =
        kv->chunked ? computed / kv->window * kv->window : computed - kv->window + 1;
    int64_t skipped = first_useful > 0 ? first_useful / kv->block_size : 0;
    return kv->full_groups * b + kv->swa_groups * (b - skipped) +
           (tokens > 0 ? kv->state_groups : 0);
}

/* Blocks in use by requests now: all but the free ones and the `evictable` ones only a prefix
 * cache holds (its count, 0 without one). 10 blocks, 3 free, 4 evictable: 3 in use. */
static inline int64_t sim_kvcache_used(const sim_kvcache *kv, int64_t evictable)
{
    return kv->total_blocks - kv->free_blocks - evictable;
}

/* Takes n blocks if that many are free (true), else changes nothing (false); the peak counts
 * the blocks in use (sim_kvcache_used with `evictable`). Inline: the scheduler calls it once per
 * running request per iteration, mostly with n = 0. */
static inline bool sim_kvcache_alloc(sim_kvcache *kv, int64_t n, int64_t evictable)
{
    if (n > kv->free_blocks)
        return false;
    kv->free_blocks -= n;
    int64_t used = sim_kvcache_used(kv, evictable);
    if (used > kv->peak_used)
        kv->peak_used = used;
    return true;
}

/* Returns n blocks. */
void sim_kvcache_release(sim_kvcache *kv, int64_t n);

#endif
