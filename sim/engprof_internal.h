/* engprof_internal.h - what the profile loader (engprof.c) shares with its version part
 * (engprof_version.c) and its kernel floors (engprof_kfloor.c). */
#ifndef SIM_ENGPROF_INTERNAL_H
#define SIM_ENGPROF_INTERNAL_H

#include <cjson/cJSON.h>

#include "engprof.h"

/* SIM_OK when "sources" holds a non-empty string for `field`, else a file error naming it
 * (engprof_version.c). */
sim_status sim_engprof_need_source(const cJSON *root, const char *path, const char *field,
                                   sim_err *err);

/* Reads "engine" (the NAME of --engine NAME@VERSION), "versions" (the releases the profile
 * covers) and the optional "platform" into p, each with its source but the name; errors name
 * the file and the field. */
sim_status sim_engprof_load_versions(const cJSON *root, const char *path, sim_engprof *p,
                                     sim_err *err);

/* Reads the optional "kernel_floor_us" object (norm, quant, topk: us per launch inside a CUDA
 * graph, 0-1000, each with its source) into p->kfloor; absent kinds: 0, no floor
 * (engprof_kfloor.c). */
sim_status sim_engprof_load_kfloor(const cJSON *root, const char *path, sim_engprof *p,
                                   sim_err *err);

/* Whether `field` is one of the keys sim_engprof_load_kfloor reads. */
bool sim_engprof_kfloor_known(const char *field);

#endif
