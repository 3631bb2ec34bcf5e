/* prefix.c - the prefix cache: an id -> entry map with an LRU list of unused entries. */
#include "prefix.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static size_t hash_slot(const sim_prefix *p, uint64_t id)
{
    id ^= id >> 33; /* splitmix64 finalizer */
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    id *= 0xc4ceb9fe1a85ec53ULL;
    id ^= id >> 33;
    return (size_t)id & p->mask;
}

sim_status sim_prefix_init(sim_prefix *p, int64_t block_tokens, int64_t kv_blocks,
                           size_t max_entries)
{
    memset(p, 0, sizeof *p);
    p->block_tokens = block_tokens;
    p->kv_blocks = kv_blocks;
    p->cap = max_entries ? max_entries : 1;
    size_t slots = 2;
    while (slots < 2 * p->cap)
        slots *= 2;
    p->mask = slots - 1;
    p->e = malloc(p->cap * sizeof *p->e);
    p->free_list = malloc(p->cap * sizeof *p->free_list);
    p->slot = malloc(slots * sizeof *p->slot);
    if (!p->e || !p->free_list || !p->slot) {
        sim_prefix_free(p);
        return SIM_EINTERNAL;
    }
    for (size_t i = 0; i < slots; i++)
        p->slot[i] = -1;
    for (size_t i = 0; i < p->cap; i++)
        p->free_list[i] = (int32_t)(p->cap - 1 - i);
    p->n_free = p->cap;
    p->lru_head = p->lru_tail = -1;
    return SIM_OK;
}

void sim_prefix_free(sim_prefix *p)
{
    free(p->e);
    free(p->free_list);
    free(p->slot);
    p->e = NULL;
    p->free_list = NULL;
    p->slot = NULL;
}

/* The slot holding id, or the empty slot where it would go. */
static size_t find(const sim_prefix *p, uint64_t id)
{
    size_t s = hash_slot(p, id);
    while (p->slot[s] >= 0 && p->e[p->slot[s]].id != id)
        s = (s + 1) & p->mask;
    return s;
}

static int32_t lookup(const sim_prefix *p, uint64_t id) { return p->slot[find(p, id)]; }

/* Removes the entry in slot s, shifting later members of its probe run back. */
static void map_delete(sim_prefix *p, size_t s)
{
    size_t hole = s, j = s;
    for (;;) {
        j = (j + 1) & p->mask;
        if (p->slot[j] < 0)
            break;
        size_t home = hash_slot(p, p->e[p->slot[j]].id);
        /* j's entry may move into the hole unless its home lies cyclically in (hole, j] */
        bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            p->slot[hole] = p->slot[j];
            hole = j;
        }
    }
    p->slot[hole] = -1;
}

static void lru_remove(sim_prefix *p, int32_t i)
{
    sim_prefix_entry *x = &p->e[i];
    if (x->prev >= 0)
        p->e[x->prev].next = x->next;
    else
        p->lru_head = x->next;
    if (x->next >= 0)
        p->e[x->next].prev = x->prev;
    else
        p->lru_tail = x->prev;
    x->prev = x->next = -1;
    p->evictable_blocks -= p->kv_blocks;
}

static void lru_push(sim_prefix *p, int32_t i)
{
    sim_prefix_entry *x = &p->e[i];
    x->prev = p->lru_tail;
    x->next = -1;
    if (p->lru_tail >= 0)
        p->e[p->lru_tail].next = i;
    else
        p->lru_head = i;
    p->lru_tail = i;
    p->evictable_blocks += p->kv_blocks;
}

int64_t sim_prefix_match(const sim_prefix *p, const uint64_t *ids, int64_t n)
{
    int64_t k = 0;
    while (k < n && lookup(p, ids[k]) >= 0)
        k++;
    return k;
}

static void take(sim_prefix *p, int32_t i)
{
    if (p->e[i].refs++ == 0)
        lru_remove(p, i);
}

void sim_prefix_ref(sim_prefix *p, const uint64_t *ids, int64_t n)
{
    for (int64_t k = 0; k < n; k++) {
        int32_t i = lookup(p, ids[k]);
        assert(i >= 0);
        take(p, i);
    }
}

void sim_prefix_unref(sim_prefix *p, const uint64_t *ids, int64_t n)
{
    for (int64_t k = n - 1; k >= 0; k--) {
        int32_t i = lookup(p, ids[k]);
        assert(i >= 0 && p->e[i].refs > 0);
        if (--p->e[i].refs == 0)
            lru_push(p, i);
    }
}

bool sim_prefix_insert(sim_prefix *p, uint64_t id)
{
    size_t s = find(p, id);
    if (p->slot[s] >= 0) {
        take(p, p->slot[s]);
        return false;
    }
    assert(p->n_free > 0); /* every entry holds KV blocks: the cache cannot hold more */
    int32_t i = p->free_list[--p->n_free];
    p->e[i] = (sim_prefix_entry){.id = id, .refs = 1, .prev = -1, .next = -1};
    p->slot[s] = i;
    return true;
}

bool sim_prefix_evict_one(sim_prefix *p, uint64_t *id)
{
    if (p->lru_head < 0)
        return false;
    int32_t i = p->lru_head;
    lru_remove(p, i);
    map_delete(p, find(p, p->e[i].id));
    p->free_list[p->n_free++] = i;
    *id = p->e[i].id;
    return true;
}

int64_t sim_prefix_evict(sim_prefix *p, int64_t blocks)
{
    int64_t freed = 0;
    uint64_t id;
    while (freed < blocks && sim_prefix_evict_one(p, &id)) {
        if (p->on_evict)
            p->on_evict(p->on_evict_ctx, id);
        freed += p->kv_blocks;
    }
    return freed;
}
