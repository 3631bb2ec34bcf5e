/* hw_kernels.c - the per-format constants of a device's GEMM kernels (hw.h): a quantized
 * format's own value from the `quant` object, else the 16-bit one; the formats it computes and
 * each one's ridge. */
#include "hw.h"

#include <stdio.h>

double sim_hw_gemm_k_half(const sim_hw *hw, sim_dtype compute)
{
    double q = hw->quant.gemm_k_half[compute];
    return q > 0.0 ? q : hw->gemm_k_half;
}

double sim_hw_gemm_k_pipe(const sim_hw *hw, sim_dtype compute)
{
    const double r = hw->tensor_rate_ratio;
    return sim_hw_gemm_k_half(hw, compute) * (r > 0.0 && r < 1.0 ? r : 1.0);
}

double sim_hw_gemm_frac(const sim_hw *hw, double frac)
{
    const double r = hw->tensor_rate_ratio;
    if (!(r > 0.0 && r < 1.0) || !(frac > 0.0))
        return frac;
    return frac / (frac + r * (1.0 - frac));
}

double sim_hw_gemm_memory(const sim_hw *hw, sim_dtype compute)
{
    double q = hw->quant.gemm_memory[compute];
    return q > 0.0 ? q : hw->eff_memory;
}

double sim_hw_gemm_fixed_ns(const sim_hw *hw, sim_dtype compute)
{
    double q = hw->quant.gemm_fixed_ns[compute];
    return q > 0.0 ? q : hw->gemm_fixed_ns;
}

double sim_hw_mixed_input_memory(const sim_hw *hw, sim_dtype weight)
{
    double q = hw->quant.mixed_input_memory[weight];
    return q > 0.0 ? q : hw->eff_memory;
}

void sim_hw_formats(const sim_hw *hw, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int dt = 0; dt < SIM_DT_COUNT && n < len; dt++)
        if (hw->peak_flops[dt] > 0.0 && !sim_dtype_get((sim_dtype)dt)->weights_only)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
                                  sim_dtype_name((sim_dtype)dt));
    if (!n)
        snprintf(buf, len, "none");
}

double sim_hw_ridge(const sim_hw *hw, sim_dtype compute)
{
    return hw->peak_flops[compute] / hw->hbm_bytes_per_s;
}
