/* kvcache.c - block accounting of the paged KV cache. */
#include "kvcache.h"

#include <assert.h>

void sim_kvcache_init(sim_kvcache *kv, int64_t blocks, int64_t block_size)
{
    kv->block_size = block_size;
    kv->block_shift = -1;
    for (int b = 0; b < 62; b++)
        if (block_size == (int64_t)1 << b)
            kv->block_shift = b;
    kv->full_groups = 1;
    kv->swa_groups = 0;
    kv->state_groups = 0;
    kv->window = 0;
    kv->chunked = false;
    kv->total_blocks = blocks;
    kv->free_blocks = blocks;
    kv->peak_used = 0;
}

void sim_kvcache_release(sim_kvcache *kv, int64_t n)
{
    kv->free_blocks += n;
    assert(kv->free_blocks <= kv->total_blocks);
}

void sim_kvcache_set_groups(sim_kvcache *kv, int64_t full_groups, int64_t swa_groups,
                            int64_t window)
{
    kv->full_groups = full_groups;
    kv->swa_groups = swa_groups;
    kv->window = window;
}

void sim_kvcache_set_chunked(sim_kvcache *kv, bool chunked) { kv->chunked = chunked; }

void sim_kvcache_set_state_groups(sim_kvcache *kv, int64_t state_groups)
{
    kv->state_groups = state_groups > 0 ? state_groups : 0;
}
