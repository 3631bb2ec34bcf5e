/* kvcache.h - paged KV cache: capacity in blocks of `block_size` tokens, and block accounting.
 *
 * Only counts matter to timing (which physical block a token sits in does not), so a request
 * holds a number of blocks and the cache a number of free ones: every operation is O(1).
 *
 *   capacity bytes = HBM x utilization - weights/TP - activation workspace - runtime reserve
 *                    (TensorRT-LLM's rule, step cfg mem_rule SIM_MEM_OF_FREE:
 *                     utilization x (HBM - weights/TP - workspace - reserve))
 *   blocks         = floor(capacity / (block_size x KV bytes per token per GPU))
 */
#ifndef SIM_KVCACHE_H
#define SIM_KVCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "step.h"

typedef struct sim_kvcache {
    int64_t block_size; /* tokens per block */
    int block_shift;    /* log2(block_size) when it is a power of two, else -1 */
    int64_t total_blocks;
    int64_t free_blocks;
    int64_t evictable; /* of the others, blocks only the prefix cache holds (reclaimable) */
    int64_t peak_used; /* most blocks ever in use by requests at once */
} sim_kvcache;

/* KV-cache bytes per GPU that the memory plan leaves: HBM x util - weights (the target's plus
 * extra_weight_bytes, e.g. a draft model) - workspace of a step of `max_tokens` tokens and
 * `max_seqs` logits - runtime reserve. May be <= 0. */
double sim_kvcache_capacity_bytes(const sim_step_cfg *cfg, double util, int64_t max_tokens,
                                  int64_t max_seqs, double extra_weight_bytes);

/* Sets up a cache of `blocks` blocks of `block_size` tokens. */
void sim_kvcache_init(sim_kvcache *kv, int64_t blocks, int64_t block_size);

/* Blocks needed to hold `tokens` (>= 0) tokens: ceil(tokens / block_size). Inline, with a shift
 * for the usual power-of-two block sizes: the scheduler asks once per running request per
 * iteration, and a 64-bit division was 15% of a long serve run. */
static inline int64_t sim_kvcache_blocks_for(const sim_kvcache *kv, int64_t tokens)
{
    if (kv->block_shift >= 0)
        return (tokens + kv->block_size - 1) >> kv->block_shift;
    return (tokens + kv->block_size - 1) / kv->block_size;
}

/* Blocks in use by requests now (the prefix cache's evictable blocks not counted). */
static inline int64_t sim_kvcache_used(const sim_kvcache *kv)
{
    return kv->total_blocks - kv->free_blocks - kv->evictable;
}

/* Takes n blocks if that many are free (true), else changes nothing (false). Inline: the
 * scheduler calls it once per running request per iteration, mostly with n = 0. */
static inline bool sim_kvcache_alloc(sim_kvcache *kv, int64_t n)
{
    if (n > kv->free_blocks)
        return false;
    kv->free_blocks -= n;
    int64_t used = sim_kvcache_used(kv);
    if (used > kv->peak_used)
        kv->peak_used = used;
    return true;
}

/* Returns n blocks. */
void sim_kvcache_release(sim_kvcache *kv, int64_t n);

#endif
