/* hw_kernels.c - the per-format constants of a device's GEMM kernels (hw.h): a quantized
 * format's own value from the `quant` object, else the 16-bit one. */
#include "hw.h"

double sim_hw_gemm_k_half(const sim_hw *hw, sim_dtype compute)
{
    double q = hw->quant.gemm_k_half[compute];
    return q > 0.0 ? q : hw->gemm_k_half;
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
