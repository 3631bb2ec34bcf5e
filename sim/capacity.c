/* capacity.c - an engine's saturated request rate from the step model (capacity.h). */
#include "capacity.h"

#include <math.h>

double sim_capacity_seqs(const sim_engine_cfg *cfg, double in, double out)
{
    const int64_t blocks = sim_engine_kv_blocks(cfg);
    if (blocks <= 0 || !(in >= 1.0) || !(out >= 1.0))
        return 0.0;
    /* one sequence's blocks at its mean context over every block table it holds (kvcache.h):
     * the full ones, the sliding ones within their window, the state ones a block each, in
     * blocks of the groups' size (vLLM raises it for a state page) */
    const sim_engine_kv_groups kg = sim_engine_kv_groups_of(cfg);
    sim_kvcache kv;
    sim_engine_kvcache_init(&kv, &kg, blocks);
    const int64_t mean = (int64_t)ceil(in + out / 2.0);
    double b = floor((double)blocks / (double)sim_kvcache_blocks_held(&kv, mean, mean));
    if (cfg->sched.max_num_seqs > 0)
        b = fmin(b, (double)cfg->sched.max_num_seqs);
    if (cfg->max_concurrency > 0)
        b = fmin(b, (double)cfg->max_concurrency);
    return b < 1.0 ? 1.0 : b;
}

double sim_capacity_rps(const sim_engine_cfg *cfg, double in, double out)
{
    const double b = sim_capacity_seqs(cfg, in, out);
    if (!(b >= 1.0))
        return 0.0;
    const double budget =
        cfg->sched.max_num_batched_tokens > 0 ? (double)cfg->sched.max_num_batched_tokens : INFINITY;
    const double steps = fmax(out, ceil(b * (in + out) / budget));
    const sim_seq_group g[2] = {
        {.count = (int64_t)fmax(1.0, round(b * out / steps)),
         .q = 1,
         .c = (int64_t)(in + out / 2.0),
         .logits = 1},
        {.count = 1, .q = (int64_t)fmax(1.0, round(b * in / steps)), .c = 0, .logits = 1}};
    sim_step_result local, *r = &local;
    sim_step_cfg step = cfg->step;
    step.eager = sim_step_eager(&cfg->step, true);
    sim_step_price(&step, g, 2, r);
    return r->t_ns > 0.0 ? b / (steps * r->t_ns * 1e-9) : 0.0;
}
