/* dtype.c - the numeric format table. */
#include "dtype.h"

#include <assert.h>
#include <string.h>

/* dequant_ops: an int4 weight is unpacked (shift, mask), converted and scaled: ~4 vector ops;
 * int8 and fp8 need a convert and a scale: ~2; e2m1 is unpacked, converted through a lookup and
 * scaled by its block scale: ~4. These price the in-kernel dequantization of mixed-input GEMMs
 * (sim/cost.c prices it: dequant_ops vector operations per weight, once per M-tile).
 * Block scales: NVFP4 one e4m3 per 16 values, MXFP4 and MXFP6 one e8m0 per 32 (OCP
 * Microscaling Formats v1.0,
 * https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf;
 * NVIDIA, "Introducing NVFP4", https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-
 * and-accurate-low-precision-inference/). */
static const sim_dtype_info dtype_table[SIM_DT_COUNT] = {
    [SIM_DT_BF16] = {.name = "bf16", .bits = 16, .peak_of = SIM_DT_BF16},
    [SIM_DT_FP16] = {.name = "fp16", .bits = 16, .peak_of = SIM_DT_FP16},
    [SIM_DT_FP8] = {.name = "fp8", .bits = 8, .dequant_ops = 2.0, .peak_of = SIM_DT_FP8},
    [SIM_DT_INT8] = {.name = "int8",
                     .bits = 8,
                     .dequant_ops = 2.0,
                     .group_scaled = true,
                     .peak_of = SIM_DT_INT8},
    [SIM_DT_INT4] = {.name = "int4",
                     .bits = 4,
                     .dequant_ops = 4.0,
                     .weights_only = true,
                     .group_scaled = true,
                     .peak_of = SIM_DT_INT4},
    [SIM_DT_FP4] = {.name = "fp4",
                    .bits = 4,
                    .block = 16,
                    .block_scale_bits = 8,
                    .dequant_ops = 4.0,
                    .peak_of = SIM_DT_FP4},
    [SIM_DT_MXFP4] = {.name = "mxfp4",
                      .bits = 4,
                      .block = 32,
                      .block_scale_bits = 8,
                      .dequant_ops = 4.0,
                      .peak_of = SIM_DT_FP4},
    /* e2m3 / e3m2: a 6-bit value is unpacked across byte boundaries, converted and scaled: ~4 */
    [SIM_DT_MXFP6] = {.name = "mxfp6",
                      .bits = 6,
                      .block = 32,
                      .block_scale_bits = 8,
                      .dequant_ops = 4.0,
                      .peak_of = SIM_DT_MXFP6},
};
static_assert(SIM_DT_COUNT == 8, "dtype_table must list every sim_dtype");

const sim_dtype_info *sim_dtype_get(sim_dtype dt)
{
    assert(dt >= 0 && dt < SIM_DT_COUNT);
    return &dtype_table[dt];
}

double sim_dtype_bytes(sim_dtype dt)
{
    const sim_dtype_info *i = sim_dtype_get(dt);
    double bits = i->bits;
    if (i->block > 0)
        bits += (double)i->block_scale_bits / i->block;
    return bits / 8.0;
}

const char *sim_dtype_name(sim_dtype dt) { return sim_dtype_get(dt)->name; }

bool sim_dtype_parse(const char *s, sim_dtype *out)
{
    for (int i = 0; i < SIM_DT_COUNT; i++) {
        if (strcmp(s, dtype_table[i].name) == 0) {
            *out = (sim_dtype)i;
            return true;
        }
    }
    return false;
}

bool sim_dtype_is_16bit(sim_dtype dt) { return dt == SIM_DT_BF16 || dt == SIM_DT_FP16; }

bool sim_dtype_is_fp4(sim_dtype dt) { return dt == SIM_DT_FP4 || dt == SIM_DT_MXFP4; }

bool sim_dtype_is_block_float(sim_dtype dt)
{
    const sim_dtype_info *i = sim_dtype_get(dt);
    return i->block > 0 && !i->group_scaled;
}

const char *sim_dtype_names(void) { return "bf16, fp16, fp8, int8, int4, fp4, mxfp4, mxfp6"; }
