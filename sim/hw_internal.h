/* hw_internal.h - what the device loader (hw.c) shares with its provenance part (hw_prov.c). */
#ifndef SIM_HW_INTERNAL_H
#define SIM_HW_INTERNAL_H

#include <cjson/cJSON.h>

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

#endif
