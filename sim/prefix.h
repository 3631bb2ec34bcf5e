/* prefix.h - the prefix cache (vLLM automatic prefix caching, SGLang's radix cache, TensorRT-LLM
 * KV reuse): KV blocks of prompts already computed, kept after their request finishes and found
 * again by a later prompt that starts the same way.
 *
 * A prompt is a chain of hash blocks of `block_tokens` tokens, each named by an id that stands
 * for the whole prefix up to the block's end (Mooncake's hash_ids, one per 512 tokens; the
 * synthetic prefix-repetition dataset makes its own). Two prompts share their first k blocks when
 * their first k ids agree, so the cache is a map from id to entry and a prompt's cached prefix is
 * its longest run of leading ids present.
 *
 * An entry holds `kv_blocks` KV-cache blocks (block_tokens / the engine's block size) and counts
 * the running requests that use it. Entries nobody uses stay cached but are evictable: they sit
 * in a least-recently-used list and are evicted from its head when the KV cache needs blocks. A
 * finishing request releases its blocks last block first, so the tail of a prompt is evicted
 * before its head (as vLLM's free-block queue does).
 *
 * Memory: entries are preallocated for every KV block (an entry holds at least one), so no
 * operation allocates. Map operations are O(1) expected (open addressing, linear probing with
 * backward-shift deletion).
 */
#ifndef SIM_PREFIX_H
#define SIM_PREFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct sim_prefix_entry {
    uint64_t id;
    int64_t refs;       /* running requests using it; 0 = evictable, in the LRU list */
    int32_t prev, next; /* LRU links (-1 = none) */
} sim_prefix_entry;

typedef struct sim_prefix {
    int64_t block_tokens; /* tokens per hash block */
    int64_t kv_blocks;    /* KV-cache blocks per entry */
    sim_prefix_entry *e;
    int32_t *free_list; /* unused entry slots */
    size_t n_free, cap;
    int32_t *slot; /* the map: entry index per slot, -1 = empty */
    size_t mask;   /* slots - 1 (a power of two) */
    int32_t lru_head, lru_tail;
    int64_t evictable_blocks; /* KV blocks held by entries nobody uses */
    /* called with each id sim_prefix_evict evicts (a lower KV tier takes it, kvtier.h); NULL:
     * nobody (set after sim_prefix_init, which clears it) */
    void (*on_evict)(void *ctx, uint64_t id);
    void *on_evict_ctx;
} sim_prefix;

/* Room for `max_entries` entries of `kv_blocks` KV blocks of `block_tokens` tokens each.
 * SIM_EINTERNAL when out of memory. */
sim_status sim_prefix_init(sim_prefix *p, int64_t block_tokens, int64_t kv_blocks,
                           size_t max_entries);

void sim_prefix_free(sim_prefix *p);

/* How many of ids[0..n) lead the prompt from the cache (the longest run of leading ids present). */
int64_t sim_prefix_match(const sim_prefix *p, const uint64_t *ids, int64_t n);

/* Takes a use of each of the first n ids (all present: n <= sim_prefix_match). */
void sim_prefix_ref(sim_prefix *p, const uint64_t *ids, int64_t n);

/* Drops a use of each of the first n ids, the last first; an entry nobody uses becomes
 * evictable at the LRU list's tail. */
void sim_prefix_unref(sim_prefix *p, const uint64_t *ids, int64_t n);

/* A request computed the block `id` and holds its KV blocks: it becomes a cache entry with one
 * use (true; the blocks now belong to the entry). If the id is cached already, the request takes
 * a use of that entry instead and returns false: its own copy of the blocks is the caller's to
 * free. */
bool sim_prefix_insert(sim_prefix *p, uint64_t id);

/* Whether every entry is in use or cached (the next sim_prefix_insert of a new id needs an
 * eviction first). */
static inline bool sim_prefix_full(const sim_prefix *p) { return p->n_free == 0; }

/* Evicts the least recently used unused entry into *id (true), or finds none (false). Not
 * reported to on_evict. */
bool sim_prefix_evict_one(sim_prefix *p, uint64_t *id);

/* Evicts least recently used entries until `blocks` KV blocks are freed or none is evictable;
 * returns the KV blocks freed. Each evicted id goes to on_evict when one is set. */
int64_t sim_prefix_evict(sim_prefix *p, int64_t blocks);

#endif
