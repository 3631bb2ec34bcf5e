/* kvtier.h - the KV cache's lower tiers: host DRAM, local disk and a remote store below the GPU's
 * HBM (vLLM's OffloadingConnector with --kv-offloading-size, LMCache's local CPU and disk backends
 * and its remote backends, SGLang's HiCache host pool and its storage backends, Mooncake Store
 * read over RDMA). Bookkeeping only: which prefix-cache hash blocks (prefix.h's ids) each
 * tier holds, least recently used first out; what a transfer costs is the engine's business.
 *
 * Tier 0 is HBM (the prefix cache itself, not held here); tiers 1 (host DRAM), 2 (disk) and 3
 * (remote) each hold up to `entries[t - 1]` hash blocks. The remote tier here is the engine's own
 * share of the store: another replica's blocks are not found in it. Two write policies:
 *   - write-through (LMCache and vLLM's OffloadingConnector store every block a request computes;
 *     SGLang HiCache --hicache-write-policy write_through): a block that enters the HBM prefix
 *     cache is written to every lower tier at once (sim_kvtier_computed), so a lower tier holds a
 *     copy of what HBM holds and HBM's evictions write nothing;
 *   - write on eviction (HiCache write_back): a block goes to DRAM only when HBM evicts it
 *     (sim_kvtier_evicted).
 * A full tier evicts its least recently used block; under write on eviction it goes one tier
 * down (DRAM to disk, disk to remote), under write-through the lower tier has it already. A hit
 * takes the block
 * to its tier's most recently used end (sim_kvtier_touch); the block stays there (a copy is
 * loaded into HBM).
 *
 * Memory: every tier's entries are allocated once (prefix.h's map), 24 + 16 bytes a block.
 *
 * Example (sim_err *err):
 *   sim_kvtier t;
 *   sim_kvtier_cfg c = {.entries = {1000, 0, 0}, .write_through = false};
 *   if (sim_kvtier_init(&t, &c))
 *       return sim_fail(err, SIM_EINTERNAL, "out of memory");
 *   sim_kvtier_evicted(&t, 42); // HBM evicted block 42: it is in DRAM now
 *   int tier = sim_kvtier_find(&t, 42); // 1
 *   (void)tier;
 *   sim_kvtier_free(&t);
 */
#ifndef SIM_KVTIER_H
#define SIM_KVTIER_H

#include <stdbool.h>
#include <stdint.h>

#include "prefix.h"
#include "status.h"

/* Lower tiers: host DRAM (1), local disk (2) and a remote store (3). */
#define SIM_KVTIER_LOWER 3

typedef struct sim_kvtier_cfg {
    int64_t entries[SIM_KVTIER_LOWER]; /* hash blocks each lower tier holds; 0 = no such tier */
    bool write_through;                /* else write on eviction */
} sim_kvtier_cfg;

typedef struct sim_kvtier {
    sim_kvtier_cfg cfg;
    sim_prefix store[SIM_KVTIER_LOWER]; /* each tier's blocks (every entry unused: all in LRU) */
    int64_t written[SIM_KVTIER_LOWER];  /* hash blocks written into each tier so far */
} sim_kvtier;

/* The name of lower tier index `i` (0 "cpu", 1 "disk", 2 "remote"), as --kv-offload spells it. */
const char *sim_kvtier_name(int i);

/* Allocates the tiers. SIM_EINTERNAL when out of memory. */
sim_status sim_kvtier_init(sim_kvtier *t, const sim_kvtier_cfg *cfg);

void sim_kvtier_free(sim_kvtier *t);

/* Whether any lower tier is configured. */
bool sim_kvtier_on(const sim_kvtier *t);

/* Whether `c` configures any lower tier (sim_kvtier_on before the tiers exist). */
bool sim_kvtier_cfg_on(const sim_kvtier_cfg *c);

/* The fastest lower tier holding block `id` (1 DRAM, 2 disk, 3 remote), 0 when none does. */
int sim_kvtier_find(const sim_kvtier *t, uint64_t id);

/* A hit on `id` in `tier` (1 to 3, as sim_kvtier_find said): it becomes that tier's most
 * recently used block. */
void sim_kvtier_touch(sim_kvtier *t, int tier, uint64_t id);

/* Block `id` entered the HBM prefix cache: written to every lower tier under write-through
 * (a tier that holds it already just touches it); nothing under write on eviction. */
void sim_kvtier_computed(sim_kvtier *t, uint64_t id);

/* HBM evicted block `id`: written to the fastest lower tier configured under write on eviction;
 * under
 * write-through nothing (the tiers have their copy unless they evicted it meanwhile). */
void sim_kvtier_evicted(sim_kvtier *t, uint64_t id);

#endif
