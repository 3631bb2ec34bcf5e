/* kvtier.c - the KV cache's lower tiers (host DRAM, disk, remote): LRU stores of hash-block ids. */
#include "kvtier.h"

#include <string.h>

const char *sim_kvtier_name(int i)
{
    static const char *const names[SIM_KVTIER_LOWER] = {"cpu", "disk", "remote"};
    return i >= 0 && i < SIM_KVTIER_LOWER ? names[i] : "?";
}

sim_status sim_kvtier_init(sim_kvtier *t, const sim_kvtier_cfg *cfg)
{
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    for (int i = 0; i < SIM_KVTIER_LOWER; i++) {
        if (cfg->entries[i] <= 0)
            continue;
        if (sim_prefix_init(&t->store[i], 1, 1, (size_t)cfg->entries[i])) {
            sim_kvtier_free(t);
            return SIM_EINTERNAL;
        }
    }
    return SIM_OK;
}

void sim_kvtier_free(sim_kvtier *t)
{
    for (int i = 0; i < SIM_KVTIER_LOWER; i++)
        sim_prefix_free(&t->store[i]);
}

bool sim_kvtier_cfg_on(const sim_kvtier_cfg *c)
{
    for (int i = 0; i < SIM_KVTIER_LOWER; i++)
        if (c->entries[i] > 0)
            return true;
    return false;
}

bool sim_kvtier_on(const sim_kvtier *t) { return sim_kvtier_cfg_on(&t->cfg); }

static bool has(const sim_kvtier *t, int i) { return t->cfg.entries[i] > 0; }

int sim_kvtier_find(const sim_kvtier *t, uint64_t id)
{
    for (int i = 0; i < SIM_KVTIER_LOWER; i++)
        if (has(t, i) && sim_prefix_match(&t->store[i], &id, 1) == 1)
            return i + 1;
    return 0;
}

void sim_kvtier_touch(sim_kvtier *t, int tier, uint64_t id)
{
    sim_prefix *p = &t->store[tier - 1];
    sim_prefix_ref(p, &id, 1); /* out of the LRU list, back in at its most recent end */
    sim_prefix_unref(p, &id, 1);
}

/* Writes id into tier index i (0 DRAM, 1 disk, 2 remote). A full tier evicts its least recently
 * used block first, which under write on eviction goes on down. */
static void put(sim_kvtier *t, int i, uint64_t id)
{
    for (; i < SIM_KVTIER_LOWER; i++) {
        if (!has(t, i))
            continue;
        sim_prefix *p = &t->store[i];
        if (sim_prefix_match(p, &id, 1) == 1) {
            sim_kvtier_touch(t, i + 1, id);
            return;
        }
        uint64_t out = 0;
        bool spilled = sim_prefix_full(p) && sim_prefix_evict_one(p, &out);
        sim_prefix_insert(p, id);
        sim_prefix_unref(p, &id, 1);
        t->written[i]++;
        if (!spilled || t->cfg.write_through)
            return;
        id = out; /* the evicted block, one tier down */
    }
}

void sim_kvtier_computed(sim_kvtier *t, uint64_t id)
{
    if (!t->cfg.write_through)
        return;
    for (int i = 0; i < SIM_KVTIER_LOWER; i++) {
        if (!has(t, i))
            continue;
        /* write-through: every tier gets its copy; an eviction there is simply dropped */
        sim_prefix *p = &t->store[i];
        if (sim_prefix_match(p, &id, 1) == 1) {
            sim_kvtier_touch(t, i + 1, id);
            continue;
        }
        uint64_t out;
        if (sim_prefix_full(p))
            sim_prefix_evict_one(p, &out);
        sim_prefix_insert(p, id);
        sim_prefix_unref(p, &id, 1);
        t->written[i]++;
    }
}

void sim_kvtier_evicted(sim_kvtier *t, uint64_t id)
{
    if (!t->cfg.write_through)
        put(t, 0, id);
}
