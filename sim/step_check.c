/* step_check.c - a step configuration checked before it is priced: the parallelism, the
 * overheads, the device's formats, and DeepEP's low-latency buffer (declared in step.h). */
#include "step.h"

#include <math.h>

/* The 16-bit format that attention, the LM head, the MoE router and the residual stream compute
 * in (sim_graph_resid_dtype): the activations' when they are 16-bit, else the checkpoint's
 * torch_dtype. With 8-bit or 4-bit weights and activations no flag names it, so
 * sim_cost_check_support never sees it: an fp16 checkpoint on a device without an fp16 peak
 * (Gaudi 3, TPU v5e and v6e) would price those ops at a zero peak, an infinite time. It is
 * refused here, as the same checkpoint run with its own (fp16) weights is refused, rather than
 * cast to bf16 behind the user's back (vLLM's TPU platform does cast an fp16 or fp32 model to
 * bf16 with a warning: TpuPlatform.check_and_update_config, vllm/platforms/tpu.py; pricing that
 * cast is a choice of the engine profile, not of this check). */
sim_status sim_step_check_compute(const sim_model *m, const sim_hw *hw, const sim_prec *prec,
                                  sim_err *err)
{
    sim_dtype dt = sim_graph_resid_dtype(m, prec);
    if (hw->peak_flops[dt] > 0.0)
        return SIM_OK;
    return sim_fail(err, SIM_EINPUT,
                    "--act-dtype: value %s leaves attention and the LM head in %s (the torch_dtype "
                    "of %s), which %s does not compute (%s has no dense_tflops.%s); give 16-bit "
                    "activations the device computes (--act-dtype bf16) or weights in one "
                    "(--weight-dtype bf16)",
                    sim_dtype_name(prec->act), sim_dtype_name(dt), m->name, hw->name, hw->path,
                    sim_dtype_name(dt));
}

sim_status sim_step_check(const sim_step_cfg *cfg, sim_err *err)
{
    sim_par par = sim_step_par(cfg);
    sim_status st = sim_graph_check_par(cfg->model, &par, &cfg->prec, err);
    if (st)
        return st;
    if (cfg->pp < 0 || cfg->pp > 64 || cfg->pp > cfg->model->layers)
        return sim_fail(err, SIM_EINPUT,
                        "--pp: value %d, expected 1..%lld (the layers of %s, at most 64)", cfg->pp,
                        (long long)(cfg->model->layers < 64 ? cfg->model->layers : 64),
                        cfg->model->name);
    if (!(cfg->overlap >= 0.0 && cfg->overlap <= 1.0))
        return sim_fail(err, SIM_EINPUT, "--overlap-comm: value %g, expected a number in [0, 1]",
                        cfg->overlap);
    if (!(cfg->iteration_overhead_ns >= 0.0 && cfg->iteration_overhead_ns <= 1e10) ||
        !(cfg->request_overhead_ns >= 0.0 && cfg->request_overhead_ns <= 1e10))
        return sim_fail(err, SIM_EINPUT,
                        "--iteration-overhead-us, --request-overhead-us: values %g, %g us, "
                        "expected each in [0, 1e7]",
                        cfg->iteration_overhead_ns / 1e3, cfg->request_overhead_ns / 1e3);
    if (!(cfg->sync_overhead_ns >= 0.0 && cfg->sync_overhead_ns <= 1e9))
        return sim_fail(err, SIM_EINPUT,
                        "engine profile host.sync_overhead_us: value %g us, expected [0, 1e6]",
                        cfg->sync_overhead_ns / 1e3);
    if (!(cfg->eager_kernel_cpu_ns >= 0.0 && cfg->eager_kernel_cpu_ns <= 1e7))
        return sim_fail(err, SIM_EINPUT,
                        "engine profile host.eager_kernel_cpu_us: value %g us, expected [0, 1e4]",
                        cfg->eager_kernel_cpu_ns / 1e3);
    st = sim_collective_check(cfg->hw, cfg->allreduce, cfg->tp, "--allreduce", err);
    if (st)
        return st;
    st = sim_cost_check_support(cfg->hw, &cfg->prec, err);
    if (st)
        return st;
    if (cfg->a2a_ll_max_tokens < 0)
        return sim_fail(err, SIM_EINPUT,
                        "--deepep-ll-max-tokens: value %d, expected a token count >= 1",
                        cfg->a2a_ll_max_tokens);
    return sim_step_check_compute(cfg->model, cfg->hw, &cfg->prec, err);
}

sim_status sim_step_check_a2a_tokens(const sim_step_cfg *cfg, double tokens, bool has_prefill,
                                     const char *what, sim_err *err)
{
    const sim_par par = sim_step_par(cfg);
    /* DeepEP runs only under EP with DP attention, or with the mode forced (build_cost) */
    if (cfg->model->experts == 0 || par.ep <= 1 || sim_par_tp_moe(&par) ||
        (cfg->moe_a2a == SIM_A2A_AUTO && !cfg->dp_attention))
        return SIM_OK;
    if (sim_a2a_resolve(cfg->moe_a2a, has_prefill) != SIM_A2A_LOW_LATENCY)
        return SIM_OK;
    const int cap = cfg->a2a_ll_max_tokens > 0 ? cfg->a2a_ll_max_tokens : SIM_A2A_LL_MAX_TOKENS;
    const double per_rank = ceil(tokens / par.ep);
    if (per_rank <= cap)
        return SIM_OK;
    return sim_fail(err, SIM_EINPUT,
                    "%s: a %s step of %.0f tokens puts %.0f on each of the %d EP ranks in one "
                    "DeepEP low-latency dispatch, past its buffer of %d tokens per rank (SGLang's "
                    "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK; DeepEP asserts); expected at "
                    "most %.0f tokens in a step, or --deepep-ll-max-tokens, or --moe-a2a normal",
                    what, has_prefill ? "prefill" : "decode", tokens, per_rank, par.ep, cap,
                    (double)cap * par.ep);
}
