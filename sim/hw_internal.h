/* hw_internal.h - what the device loader (hw.c) shares with its provenance part (hw_prov.c) and
 * its architectures' table (hw_arch.c). */
#ifndef SIM_HW_INTERNAL_H
#define SIM_HW_INTERNAL_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "hw.h"

/* The earlier field whose value field `json` copied (its rule HR_COPY, or HR_COPY_FILE when the
 * file gave that field), or NULL when `json` is no field-table row or was not copied: hw.c's
 * field table answers, handed to sim_hw_prov_load so that hw_prov.c calls nothing of hw.c. */
typedef const char *(*sim_hw_copied_from_fn)(const sim_hw *hw, const char *json);

/* Fills hw->prov from the file's `provenance` object and the fields' origins (hw.h), each copied
 * field following the one `copied_from` names; called by sim_hw_load once every field is loaded.
 * Errors name the file and the entry. */
sim_status sim_hw_prov_load(const cJSON *root, const char *path, sim_hw *hw,
                            sim_hw_copied_from_fn copied_from, sim_err *err);

/* power.idle_w below power.tdp_w, and no idle floor without a board power: a file error naming
 * the field (kept here, beside the other checks of what a file states, to keep hw.c short). */
sim_status sim_hw_check_power(const sim_hw *hw, const char *path, sim_err *err);

/* An architecture's constants: what a datasheet does not give. Each row is the measured or
 * estimated values of the shipped device files of that architecture (before calibration), so a
 * new device of a known architecture starts where its siblings started (hw_arch.c). */
typedef struct sim_hw_arch {
    const char *name;
    /* dense peak of the format / dense bf16 peak; 0: none */
    double fp16, fp8, int8, int4, fp4, mxfp6;
    double vector_ratio; /* FP32 vector peak / dense bf16 peak */
    double tile_m, wo_tile_m, wave_tile, devices_per_node;
    double launch_us, graph_launch_us, collective_us, hop_us;
    double scaleout_gb, scaleout_us, reserved_gib;
    double host_link_gb; /* the GPU's host link per direction (PCIe x16 of its generation) */
    double eff_bf16, eff_fp8, eff_int8, eff_wo, eff_attn, eff_mem, eff_attn_mem, eff_net;
    double decode_cta_gb, block_fp8_cta_gb, block_fp8_math_eff; /* dattn.h, cost.h; 0: none */
    double moe_k_step_us; /* moe.h sim_moe_triton_kloop_ns; 0: none */
    const char *source;
} sim_hw_arch;

/* The row named `name` ("" is the no-arch row), or NULL. */
const sim_hw_arch *sim_hw_arch_find(const char *name);

/* The double member at byte offset `off` of row `a` (offsetof(sim_hw_arch, member)). */
double sim_hw_arch_num(const sim_hw_arch *a, size_t off);

#endif
