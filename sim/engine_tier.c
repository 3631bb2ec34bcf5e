/* engine_tier.c - an iteration's moves between HBM and the lower KV tiers, as the engine prices
 * them, reported to its observer (engine.h's sim_tier_move): the timeline draws them. */
#include "engine_loop.h"

#include <math.h>

#include "mem.h"

void sim_engine_report_tiers(loop *L, int64_t iter_ns, int64_t at_ns, int64_t end_ns, bool loads)
{
    const sim_engine_observer *o = L->cfg->observer;
    const sim_sched *s = &L->sched;
    if (!o || !o->tier || !L->res->offload_on || s->cfg.prefix_block_tokens == 0)
        return;
    const double per_token = sim_mem_kv_bytes_per_token(&L->cfg->step);
    const double gpus = (double)sim_step_gpus(&L->cfg->step);
    int64_t t0 = iter_ns; /* the loads one after another, as sim_engine_offload_load_ns sums them */
    for (int t = 0; t < SIM_KVTIER_LOWER; t++) {
        if (loads && s->loaded_tokens[t] > 0) {
            int64_t d = llround(
                sim_engine_offload_tier_ns(L->cfg, t, s->loaded_tokens[t], s->loaded_reqs[t]));
            d = t0 + d > end_ns ? end_ns - t0 : d; /* (rounding) within the iteration */
            const sim_tier_move m = {.tier = t,
                                     .tokens = s->loaded_tokens[t],
                                     .requests = s->loaded_reqs[t],
                                     .bytes = (double)s->loaded_tokens[t] * per_token * gpus,
                                     .iter_ns = iter_ns,
                                     .start_ns = t0,
                                     .dur_ns = d};
            o->tier(o->ctx, &m);
            t0 += d;
        }
        const int64_t blocks = s->tier.written[t] - L->tier_seen[t];
        L->tier_seen[t] = s->tier.written[t];
        if (blocks > 0) {
            const int64_t tokens = blocks * s->cfg.prefix_block_tokens;
            const sim_tier_move m = {
                .tier = t,
                .store = true,
                .tokens = tokens,
                .bytes = (double)tokens * per_token * gpus,
                .iter_ns = iter_ns,
                .start_ns = at_ns,
                .dur_ns = llround((double)tokens * per_token /
                                  L->cfg->offload.read_bytes_per_s[t] * 1e9)};
            o->tier(o->ctx, &m);
        }
    }
}
