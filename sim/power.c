/* power.c - the power and energy estimate of power.h: busy fractions of a step weighted into an
 * activity between the device's idle floor and its board power. */
#include "power.h"

static double frac(double part_ns, double t_ns)
{
    if (!(t_ns > 0.0) || !(part_ns > 0.0))
        return 0.0;
    return part_ns >= t_ns ? 1.0 : part_ns / t_ns;
}

bool sim_power_known(const sim_hw *hw) { return hw->power.tdp_w > 0.0; }

sim_power_busy sim_power_step_busy(const sim_hw *hw, sim_dtype compute, const sim_step_result *r)
{
    /* the GEMM rate the step was priced at (hw.h sim_hw_gemm_frac) */
    double rate = hw->peak_flops[compute] * sim_hw_gemm_frac(hw, hw->eff_gemm[compute]);
    if (!(rate > 0.0))
        rate = hw->peak_flops[SIM_DT_BF16] * sim_hw_gemm_frac(hw, hw->eff_gemm[SIM_DT_BF16]);
    const double math_ns = rate > 0.0 ? r->flops / rate * 1e9 : 0.0;
    return (sim_power_busy){.compute = frac(math_ns, r->t_ns),
                            .memory = frac(r->t_mem_ns, r->t_ns),
                            .network = frac(r->t_net_ns, r->t_ns)};
}

double sim_power_activity(sim_power_busy b)
{
    double a = SIM_POWER_W_COMPUTE * b.compute + SIM_POWER_W_MEMORY * b.memory +
               SIM_POWER_W_NETWORK * b.network;
    return a < 1.0 ? a : 1.0;
}

double sim_power_w(const sim_hw *hw, double activity)
{
    if (!sim_power_known(hw))
        return 0.0;
    return hw->power.idle_w + (hw->power.tdp_w - hw->power.idle_w) * activity;
}

double sim_power_step_w(const sim_hw *hw, sim_dtype compute, const sim_step_result *r)
{
    return sim_power_w(hw, sim_power_activity(sim_power_step_busy(hw, compute, r)));
}

double sim_power_step_active_j(const sim_hw *hw, sim_dtype compute, const sim_step_result *r)
{
    if (!sim_power_known(hw) || !(r->t_ns > 0.0))
        return 0.0;
    const double a = sim_power_activity(sim_power_step_busy(hw, compute, r));
    return (hw->power.tdp_w - hw->power.idle_w) * a * r->t_ns * 1e-9;
}

sim_power_totals sim_power_totals_of(double idle_w, double active_j, double time_s, double gpus,
                                     double output_tokens)
{
    sim_power_totals t = {0};
    if (!(time_s > 0.0) || !(gpus > 0.0))
        return t;
    t.energy_j = idle_w * time_s + active_j;
    const double total_w = t.energy_j / time_s;
    t.avg_power_w = total_w / gpus;
    if (output_tokens > 0.0 && t.energy_j > 0.0) {
        t.joules_per_output_token = t.energy_j / output_tokens;
        t.output_tokens_per_s_per_mw = output_tokens / time_s / (total_w * 1e-6);
    }
    return t;
}
