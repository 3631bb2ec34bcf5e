/* run.c - static-batch simulation: one prefill step, then the decode steps. */
#include "run.h"

#include <string.h>

sim_status sim_run_check(const sim_run_cfg *cfg, sim_err *err)
{
    sim_status st = sim_step_check(&cfg->step, err);
    if (st)
        return st;
    const sim_model *m = cfg->step.model;
    if (cfg->batch < 1 || cfg->input_len < 1 || cfg->output_len < 1)
        return sim_fail(err, SIM_EINPUT,
                        "--batch, --input-len, --output-len: values %lld, %lld, %lld, expected "
                        "each >= 1",
                        (long long)cfg->batch, (long long)cfg->input_len,
                        (long long)cfg->output_len);
    if (cfg->input_len + cfg->output_len > m->max_positions)
        return sim_fail(err, SIM_EINPUT,
                        "--input-len + --output-len: %lld + %lld = %lld tokens is past the context "
                        "of %s (max_position_embeddings %lld)",
                        (long long)cfg->input_len, (long long)cfg->output_len,
                        (long long)(cfg->input_len + cfg->output_len), m->path,
                        (long long)m->max_positions);
    if (!(cfg->mem_util > 0.0 && cfg->mem_util <= 1.0))
        return sim_fail(err, SIM_EINPUT,
                        "--gpu-memory-utilization: value %g, expected a number in (0, 1]",
                        cfg->mem_util);
    sim_mem_report mem;
    sim_mem_plan(&cfg->step, cfg->mem_util, cfg->batch, cfg->input_len, cfg->output_len, &mem);
    if (!mem.fits)
        return sim_mem_fail(&mem, &cfg->step, err);
    return SIM_OK;
}

void sim_run_simulate(const sim_run_cfg *cfg, sim_run_result *out)
{
    memset(out, 0, sizeof *out);
    sim_mem_plan(&cfg->step, cfg->mem_util, cfg->batch, cfg->input_len, cfg->output_len,
                 &out->mem);

    /* Prefill runs eagerly: engines capture CUDA graphs for decode batches only. */
    sim_step_cfg pre = cfg->step;
    pre.eager = true;
    sim_seq_group g = {.count = cfg->batch, .q = cfg->input_len, .c = 0, .logits = 1};
    sim_step_price(&pre, &g, 1, &out->prefill);
    out->ttft_ns = out->prefill.t_ns;

    double decode_ns = 0.0;
    sim_step_result step;
    for (int64_t j = 1; j < cfg->output_len; j++) {
        g = (sim_seq_group){.count = cfg->batch, .q = 1, .c = cfg->input_len + j - 1, .logits = 1};
        sim_step_price(&cfg->step, &g, 1, &step);
        decode_ns += step.t_ns;
        sim_step_accumulate(&out->decode, &step);
    }
    out->decode_steps = cfg->output_len - 1;
    if (out->decode_steps > 0) {
        sim_step_scale(&out->decode, 1.0 / (double)out->decode_steps);
        out->tpot_ns = decode_ns / (double)out->decode_steps;
    }
    out->e2e_ns = out->ttft_ns + decode_ns;
    out->output_throughput = (double)(cfg->batch * cfg->output_len) / (out->e2e_ns * 1e-9);
}
