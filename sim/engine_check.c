/* engine_check.c - the serving engine's configuration checked against its workload (declared
 * in engine.h): the step, the limits, the KV cache, and every request's fit. */
#include "engine.h"

#include <stdio.h>

#include "pp.h"

/* "traces/x.csv:17" or "request 17 (--random-... flags)" for messages about one request. */
static void where(const sim_workload *w, size_t i, char *buf, size_t len)
{
    if (w->reqs[i].line > 0)
        snprintf(buf, len, "%s:%lld", w->source, (long long)w->reqs[i].line);
    else
        snprintf(buf, len, "request %zu of the %s workload", i, w->source);
}

sim_status sim_engine_check(const sim_engine_cfg *cfg, const sim_workload *w, sim_err *err)
{
    /* the step and the speculation first, then the front end (the order messages come in) */
    sim_status st = sim_spec_check_deployment(cfg->spec, &cfg->step, err);
    if (!st)
        st = sim_frontend_check(&cfg->frontend, err);
    if (st)
        return st;
    const sim_sched_cfg *sc = &cfg->sched;
    if (sc->spec_tokens != (sim_spec_active(cfg->spec) ? cfg->spec->k : 0))
        return sim_fail(err, SIM_EINTERNAL, "scheduler spec_tokens %lld disagrees with the spec",
                        (long long)sc->spec_tokens);
    if (sc->max_num_seqs < 1 || sc->max_num_batched_tokens < 1 || cfg->block_size < 1)
        return sim_fail(err, SIM_EINPUT,
                        "--max-num-seqs, --max-num-batched-tokens, --block-size: values %lld, "
                        "%lld, %lld, expected each >= 1",
                        (long long)sc->max_num_seqs, (long long)sc->max_num_batched_tokens,
                        (long long)cfg->block_size);
    if ((st = sim_mem_check_util(cfg->mem_util, err)))
        return st;
    /* DeepEP's low-latency buffer: the largest decode step the scheduler may form (every DP
     * group's --max-num-seqs, no more than the workload's requests, each with its speculative
     * tokens) and the largest prefill budget must fit where that mode runs (step.h) */
    const double seqs = (double)(sc->max_num_seqs < (int64_t)w->n ? sc->max_num_seqs
                                                                  : (int64_t)w->n);
    if ((st = sim_step_check_a2a_tokens(&cfg->step, seqs * (double)(1 + sc->spec_tokens), false,
                                        "--max-num-seqs", err)) ||
        (st = sim_step_check_a2a_tokens(&cfg->step, (double)sc->max_num_batched_tokens, true,
                                        "--max-num-batched-tokens", err)))
        return st;
    if ((st = sim_engine_check_state(cfg, err)))
        return st;
    if ((st = sim_engine_check_offload(cfg, err)))
        return st;
    int64_t blocks = sim_engine_kv_blocks(cfg);
    if (blocks < 1) {
        return sim_fail(err, SIM_EINPUT,
                        "%s on %d x %s leaves %.2f GB per GPU for the KV cache at "
                        "--gpu-memory-utilization %g (weights %.1f GB); expected room for at least "
                        "one block of %lld tokens",
                        cfg->step.model->name, sim_step_gpus(&cfg->step), cfg->step.hw->name,
                        sim_engine_kv_capacity_bytes(cfg) / 1e9, cfg->mem_util,
                        (sim_mem_weight_bytes(&cfg->step) +
                         sim_spec_mem_extra(cfg->spec, &cfg->step).weight_bytes) /
                            1e9,
                        (long long)cfg->block_size);
    }
    const int64_t hash = w->hash_block_tokens;
    if (sim_engine_prefix_caching(cfg) && hash > 0 && hash % cfg->block_size != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--block-size: value %lld does not divide the %lld-token hash blocks of "
                        "the %s workload; prefix caching needs it to (or pass "
                        "--no-enable-prefix-caching)",
                        (long long)cfg->block_size, (long long)hash, w->source);
    /* the longest sequence the pool holds: its blocks over all block tables */
    const sim_engine_kv_groups g = sim_engine_kv_groups_for(cfg, w->hash_block_tokens);
    sim_kvcache probe;
    sim_engine_kvcache_init(&probe, &g, blocks);
    const int64_t context = cfg->step.model->max_positions;
    char at[320];
    for (size_t i = 0; i < w->n; i++) {
        const sim_request *q = &w->reqs[i];
        if (q->images > 0 && (where(w, i, at, sizeof at), sim_engine_check_images(cfg, q, at, err)))
            return SIM_EINPUT;
        const int64_t prompt = sim_engine_prompt_tokens(cfg, q);
        int64_t total = prompt + q->output_tokens;
        int64_t slots = total + sc->spec_tokens;
        /* at its largest: the last prompt chunk in flight (sliding tables hold the chunk and
         * the window before it) */
        int64_t before = slots - sc->max_num_batched_tokens;
        if (sim_kvcache_blocks_held(&probe, before > 0 ? before : 0, slots) > blocks) {
            const int64_t cache_tokens = blocks / (g.full + g.swa) * g.block_size;
            where(w, i, at, sizeof at);
            return sim_fail(err, SIM_EINPUT,
                            "%s: %lld input + %lld output tokens%s do not fit the whole KV cache "
                            "(%lld blocks of %lld = %lld tokens)",
                            at, (long long)prompt, (long long)q->output_tokens,
                            sc->spec_tokens ? " + the speculative slots" : "", (long long)blocks,
                            (long long)g.block_size, (long long)cache_tokens);
        }
        if (cfg->max_input_len > 0 && prompt > cfg->max_input_len) {
            where(w, i, at, sizeof at);
            return sim_fail(err, SIM_EINPUT,
                            "%s: %lld prompt tokens are past the engine's max_input_len %lld "
                            "(pass --max-input-len to build for longer prompts)",
                            at, (long long)prompt, (long long)cfg->max_input_len);
        }
        if (total > context) {
            where(w, i, at, sizeof at);
            return sim_fail(err, SIM_EINPUT,
                            "%s: %lld input + %lld output tokens is past the context of %s "
                            "(max_position_embeddings %lld)",
                            at, (long long)prompt, (long long)q->output_tokens,
                            cfg->step.model->path, (long long)context);
        }
        /* unchunked, a request recomputed after preemption re-prefills all it knows */
        if (!sc->chunked_prefill && sc->policy != SIM_POLICY_SGLANG &&
            total - 1 > sc->max_num_batched_tokens) {
            where(w, i, at, sizeof at);
            return sim_fail(err, SIM_EINPUT,
                            "%s: %lld tokens cannot be prefilled in one iteration with "
                            "--no-chunked-prefill and --max-num-batched-tokens %lld; expected a "
                            "budget of at least %lld",
                            at, (long long)(total - 1), (long long)sc->max_num_batched_tokens,
                            (long long)(total - 1));
        }
    }
    return SIM_OK;
}
