/* engine_batch.c - one iteration's target step as the engine prices it (engine.h): the launch
 * mode, the CUDA graph's padding, the memo, the pipeline round. The engine's iterations and the
 * step predictor (api_step.c) share it, so that their times cannot drift apart. */
#include "engine.h"

/* The launch mode and the padding of a batch of n groups and `steady` single decodes: the
 * configuration priced, and the groups with the padding appended (their count returned). */
static size_t launch(const sim_engine_cfg *cfg, sim_seq_group *groups, size_t n, int64_t steady,
                     bool prefill, int64_t k, sim_engine_batch *out)
{
    sim_step_cfg sc = cfg->step;
    sc.eager = sim_step_eager(&cfg->step, prefill);
    if (cfg->sched.spec_tokens > 0 && cfg->spec->sync_host)
        sc.async_sched = false; /* the engine schedules speculation synchronously (spec.h) */
    size_t n_groups = n;
    const int64_t seqs = (int64_t)n + steady;
    int64_t graph_seqs = 0;
    if (!sc.eager) {
        graph_seqs = sim_step_graph_seqs(&sc, seqs);
        if (graph_seqs == 0) /* above the largest captured batch */
            sc.eager = true;
        else if (graph_seqs > seqs) /* dummy sequences pad the batch to the graph's */
            groups[n_groups++] = (sim_seq_group){
                .count = graph_seqs - seqs, .q = 1 + k, .c = 0, .logits = 1 + k};
    }
    out->sc = sc;
    out->graph_seqs = graph_seqs;
    out->n_groups = n_groups;
    return n_groups;
}

void sim_engine_price_batch(const sim_engine_cfg *cfg, sim_seq_group *groups, size_t n,
                            bool prefill, int64_t k, sim_engine_memo *memo, sim_engine_batch *out)
{
    const size_t n_groups = launch(cfg, groups, n, 0, prefill, k, out);
    const sim_step_cfg *sc = &out->sc;
    out->step = sim_step_price_memo_ways(sc, groups, n_groups, &memo->step[sc->eager]);
    /* with pipeline stages, a round of micro-batches (pp.h) of the batch as scheduled */
    out->gpu_ns = memo->pp.m ? sim_pp_round_ns(sc, groups, n, &memo->pp, true) : out->step->t_ns;
}

void sim_engine_price_batch_plus(const sim_engine_cfg *cfg, sim_seq_group *groups, size_t n,
                                 int64_t steady, int64_t c_sum, bool prefill,
                                 sim_engine_memo *memo, sim_engine_batch *out)
{
    const size_t n_groups = launch(cfg, groups, n, steady, prefill, 0, out);
    const sim_step_cfg *sc = &out->sc;
    out->step = sim_step_price_memo_ways_plus(sc, groups, n_groups, steady, c_sum,
                                              &memo->step[sc->eager]);
    out->gpu_ns = out->step->t_ns;
}
