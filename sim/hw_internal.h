/* hw_internal.h - what the device loader (hw.c) shares with its provenance part (hw_prov.c), its
 * architectures' table (hw_arch.c) and its field table (hw_fields.c). */
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

/* Fields. A row is read from the file when present; else its rule fills it:
 *   HR_REQUIRED  no default: one of the six datasheet fields
 *   HR_ARCH      the architecture's constant (origin "default")
 *   HR_RATIO     an earlier field times the architecture's ratio (origin "derived")
 *   HR_PEAK      a format's peak: with "dense_tflops": N (the bf16 peak), N times the
 *                architecture's ratio (derived); with "dense_tflops": {...}, the object lists
 *                every format the chip computes, so one it leaves out is none (default 0)
 *   HR_COPY      an earlier field's value (origin "derived")
 *   HR_COPY_FILE an earlier field's value when the file gave that one, else the architecture's
 *                constant (efficiency.gemm.FORMAT: the file's bf16 efficiency, else the row's)
 *   HR_CONST     a fixed value (origin "default")
 * Fields other issues add become rows here, with their rule. */

typedef enum hw_rule {
    HR_REQUIRED,
    HR_ARCH,
    HR_RATIO,
    HR_PEAK,
    HR_COPY,
    HR_COPY_FILE,
    HR_CONST
} hw_rule;

typedef struct hw_field {
    const char *json;
    double min, max;
    double scale;  /* file units to SI */
    size_t offset; /* into sim_hw */
    bool is_int;   /* an int member, a whole number in the file */
    hw_rule rule;
    size_t arch;      /* HR_ARCH, HR_RATIO, HR_COPY_FILE: offset into sim_hw_arch */
    const char *from; /* HR_RATIO, HR_COPY, HR_COPY_FILE: the earlier field it follows */
    double value;     /* HR_CONST, in file units */
    const char *doc;
} hw_field;

/* The field table (hw_fields.c), in the order the loader reads them: a rule's `from` field
 * comes before the fields that follow it. */
#define SIM_HW_N_FIELD_ROWS 61
extern const hw_field sim_hw_field_rows[SIM_HW_N_FIELD_ROWS];

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
