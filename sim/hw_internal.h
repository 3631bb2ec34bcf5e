/* hw_internal.h - what the device loader (hw.c) shares with its provenance part (hw_prov.c). */
#ifndef SIM_HW_INTERNAL_H
#define SIM_HW_INTERNAL_H

#include <cjson/cJSON.h>

#include "hw.h"

/* Fills hw->prov from the file's `provenance` object and the fields' origins (hw.h); called by
 * sim_hw_load once every field is loaded. Errors name the file and the entry. */
sim_status sim_hw_prov_load(const cJSON *root, const char *path, sim_hw *hw, sim_err *err);

/* The earlier field whose value field `json` copied (its rule HR_COPY, or HR_COPY_FILE when the
 * file gave that field), or NULL when `json` is no field-table row or was not copied. */
const char *sim_hw_copied_from(const sim_hw *hw, const char *json);

#endif
