/* dtype.c - the numeric format table. */
#include "dtype.h"

#include <assert.h>
#include <string.h>

/* dequant_ops: an int4 weight is unpacked (shift, mask), converted and scaled: ~4 vector ops;
 * int8 and fp8 need a convert and a scale: ~2. These price the in-kernel dequantization of
 * weight-only GEMMs (DESIGN.md: "extra work per weight element and per M-tile"). */
static const sim_dtype_info dtype_table[SIM_DT_COUNT] = {
    [SIM_DT_BF16] = {.name = "bf16", .bits = 16, .dequant_ops = 0.0, .weights_only = false},
    [SIM_DT_FP16] = {.name = "fp16", .bits = 16, .dequant_ops = 0.0, .weights_only = false},
    [SIM_DT_FP8] = {.name = "fp8", .bits = 8, .dequant_ops = 2.0, .weights_only = false},
    [SIM_DT_INT8] = {.name = "int8", .bits = 8, .dequant_ops = 2.0, .weights_only = false},
    [SIM_DT_INT4] = {.name = "int4", .bits = 4, .dequant_ops = 4.0, .weights_only = true},
};
static_assert(SIM_DT_COUNT == 5, "dtype_table must list every sim_dtype");

const sim_dtype_info *sim_dtype_get(sim_dtype dt)
{
    assert(dt >= 0 && dt < SIM_DT_COUNT);
    return &dtype_table[dt];
}

double sim_dtype_bytes(sim_dtype dt) { return sim_dtype_get(dt)->bits / 8.0; }

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

const char *sim_dtype_names(void) { return "bf16, fp16, fp8, int8, int4"; }
