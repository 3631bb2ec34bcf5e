/* run.c - static-batch simulation: one prefill step, then the decode steps. */
#include "run.h"

#include <math.h>
#include <string.h>

#include "pp.h"

sim_status sim_run_check(const sim_run_cfg *cfg, sim_err *err)
{
    sim_status st = sim_step_check(&cfg->step, err);
    if (!st && sim_spec_active(cfg->spec))
        st = sim_spec_check(cfg->spec, &cfg->step, err);
    if (!st && sim_pp_stages(&cfg->step) > 1 && sim_spec_active(cfg->spec))
        st = sim_fail(err, SIM_EINPUT,
                      "--pp with --spec-method: speculative decoding over "
                      "pipeline stages is not modeled; expected one of them");
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
                        (long long)cfg->input_len + (long long)cfg->output_len, m->path,
                        (long long)m->max_positions);
    if (!(cfg->mem_util > 0.0 && cfg->mem_util <= 1.0))
        return sim_fail(err, SIM_EINPUT,
                        "--gpu-memory-utilization: value %g, expected a number in (0, 1]",
                        cfg->mem_util);
    sim_mem_report mem;
    sim_mem_extra extra = sim_spec_mem_extra(cfg->spec, &cfg->step);
    sim_mem_plan(&cfg->step, cfg->mem_util, &extra, cfg->batch, cfg->input_len, cfg->output_len,
                 &mem);
    if (!mem.fits)
        return sim_mem_fail(&mem, &cfg->step, err);
    return SIM_OK;
}

/* Plain decoding: O-1 steps of one token per sequence, the context growing. */
static double plain_decode(const sim_run_cfg *cfg, sim_step_result *mean)
{
    double total = 0.0;
    sim_step_memo memo = {0};
    for (int64_t j = 1; j < cfg->output_len; j++) {
        sim_seq_group g = {.count = cfg->batch, .q = 1, .c = cfg->input_len + j - 1, .logits = 1};
        const sim_step_result *step = sim_step_price_memo(&cfg->step, &g, 1, &memo);
        /* over pipeline stages, a steady round of micro-batches (pp.h) */
        total += sim_pp_stages(&cfg->step) > 1 ? sim_pp_round_ns(&cfg->step, &g, 1, NULL, true)
                                               : step->t_ns;
        if (mean)
            sim_step_accumulate(mean, step);
    }
    if (mean && cfg->output_len > 1)
        sim_step_scale(mean, 1.0 / (double)(cfg->output_len - 1));
    return total;
}

/* Speculative decoding in expected value: (O-1)/tau iterations of draft + verify, the context
 * growing by tau per iteration. */
static double spec_decode(const sim_run_cfg *cfg, sim_run_result *out)
{
    const sim_spec *s = cfg->spec;
    const double tau = sim_spec_tau(s->alpha, s->k);
    const double iters = (double)(cfg->output_len - 1) / tau;
    const int64_t full = (int64_t)floor(iters);
    double total = 0.0, draft = 0.0, verify = 0.0, weight_sum = 0.0;
    sim_step_result step;
    sim_seq_group scratch;
    sim_step_memo memo = {0};
    sim_spec_memo draft_memo = {0};
    for (int64_t j = 0; j <= full; j++) {
        double w = j < full ? 1.0 : iters - (double)full; /* the last one by its fraction */
        if (w <= 0.0)
            break;
        int64_t c = cfg->input_len + (int64_t)llround((double)j * tau);
        sim_seq_group v = {.count = cfg->batch, .q = s->k + 1, .c = c, .logits = s->k + 1};
        sim_seq_group d = {.count = cfg->batch, .q = 1, .c = c, .logits = 1};
        step = *sim_step_price_memo(&cfg->step, &v, 1, &memo);
        double dn = sim_spec_draft_ns(s, &cfg->step, NULL, 0, &d, 1, &scratch, &draft_memo);
        total += w * (step.t_ns + dn);
        draft += w * dn;
        verify += w * step.t_ns;
        weight_sum += w;
        sim_step_scale(&step, w);
        sim_step_accumulate(&out->decode, &step);
    }
    if (weight_sum > 0.0) {
        sim_step_scale(&out->decode, 1.0 / weight_sum);
        out->spec_draft_ns = draft / weight_sum;
        out->spec_verify_ns = verify / weight_sum;
    }
    out->spec_tau = tau;
    out->spec_iterations = iters;
    out->decode_steps = (int64_t)ceil(iters);
    return total;
}

void sim_run_simulate(const sim_run_cfg *cfg, sim_run_result *out)
{
    memset(out, 0, sizeof *out);
    sim_mem_extra extra = sim_spec_mem_extra(cfg->spec, &cfg->step);
    sim_mem_plan(&cfg->step, cfg->mem_util, &extra, cfg->batch, cfg->input_len, cfg->output_len,
                 &out->mem);

    /* Prefill runs eagerly: engines capture CUDA graphs for decode batches only. */
    sim_step_cfg pre = cfg->step;
    pre.eager = sim_step_eager(&cfg->step, true);
    sim_seq_group g = {.count = cfg->batch, .q = cfg->input_len, .c = 0, .logits = 1};
    sim_step_price(&pre, &g, 1, &out->prefill);
    /* over pipeline stages, the one-shot makespan of the prompt's micro-batches */
    out->ttft_ns = sim_pp_stages(&cfg->step) > 1 ? sim_pp_round_ns(&pre, &g, 1, NULL, false)
                                                 : out->prefill.t_ns;
    if (sim_spec_active(cfg->spec)) {
        sim_seq_group scratch;
        out->ttft_ns += sim_spec_draft_ns(cfg->spec, &cfg->step, &g, 1, NULL, 0, &scratch, NULL);
    }

    double decode_ns;
    if (sim_spec_active(cfg->spec)) {
        decode_ns = spec_decode(cfg, out);
        double plain = plain_decode(cfg, NULL);
        out->spec_speedup = decode_ns > 0.0 ? plain / decode_ns : 1.0;
    } else {
        decode_ns = plain_decode(cfg, &out->decode);
        out->decode_steps = cfg->output_len - 1;
    }
    if (cfg->output_len > 1)
        out->tpot_ns = decode_ns / (double)(cfg->output_len - 1);
    out->e2e_ns = out->ttft_ns + decode_ns;
    out->output_throughput = (double)(cfg->batch * cfg->output_len) / (out->e2e_ns * 1e-9);
}

sim_status sim_run_check_result(const sim_run_result *r, sim_err *err)
{
    const struct {
        const char *name;
        double v;
        bool zero_ok;
    } q[] = {{"TTFT", r->ttft_ns, false},
             {"TPOT", r->tpot_ns, true},
             {"E2E latency", r->e2e_ns, false},
             {"output throughput", r->output_throughput, false}};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        if (!(isfinite(q[i].v) && (q[i].v > 0.0 || (q[i].zero_ok && q[i].v == 0.0))))
            return sim_fail(err, SIM_EINTERNAL,
                            "run's %s is %g, not a finite %s number (a bug: every format the "
                            "steps compute in was checked)",
                            q[i].name, q[i].v, q[i].zero_ok ? "non-negative" : "positive");
    return SIM_OK;
}
