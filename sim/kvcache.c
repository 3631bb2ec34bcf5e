/* kvcache.c - block accounting of the paged KV cache. */
#include "kvcache.h"

#include <assert.h>

#include "mem.h"

double sim_kvcache_capacity_bytes(const sim_step_cfg *cfg, double util, int64_t max_tokens,
                                  int64_t max_seqs, double extra_weight_bytes)
{
    double weights = sim_mem_weight_bytes(cfg) + extra_weight_bytes;
    double work = sim_mem_workspace_bytes(cfg, (double)max_tokens, (double)max_seqs);
    double others = weights + work + cfg->hw->runtime_reserved_bytes;
    if (cfg->mem_rule == SIM_MEM_OF_FREE) /* a share of what the others leave */
        return util * (cfg->hw->hbm_bytes - others);
    return cfg->hw->hbm_bytes * util - others;
}

void sim_kvcache_init(sim_kvcache *kv, int64_t blocks, int64_t block_size)
{
    kv->block_size = block_size;
    kv->block_shift = -1;
    for (int b = 0; b < 62; b++)
        if (block_size == (int64_t)1 << b)
            kv->block_shift = b;
    kv->total_blocks = blocks;
    kv->free_blocks = blocks;
    kv->evictable = 0;
    kv->peak_used = 0;
}

void sim_kvcache_release(sim_kvcache *kv, int64_t n)
{
    kv->free_blocks += n;
    assert(kv->free_blocks <= kv->total_blocks);
}
