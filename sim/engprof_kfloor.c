/* engprof_kfloor.c - the engine profile's optional "kernel_floor_us" object: the measured time
 * of one launch of the engine's RMSNorm, activation quantization and top-k kernels inside a CUDA
 * graph (kfloor.h), each with its source. */
#include "engprof_internal.h"

#include <stdio.h>
#include <string.h>

#include "jsonf.h"

#define KFLOOR_KEY "kernel_floor_us."

static void key_of(sim_kfloor_kind k, char *out, size_t n)
{
    snprintf(out, n, KFLOOR_KEY "%s", sim_kfloor_kind_name(k));
}

sim_status sim_engprof_load_kfloor(const cJSON *root, const char *path, sim_engprof *p,
                                   sim_err *err)
{
    memset(&p->kfloor, 0, sizeof p->kfloor);
    sim_status st = SIM_OK;
    for (int k = 0; !st && k < SIM_KFLOOR_COUNT; k++) {
        char key[64];
        key_of((sim_kfloor_kind)k, key, sizeof key);
        if (!sim_jsonf_find(root, key))
            continue;
        double us = 0.0;
        st = sim_jsonf_num(root, path, key, 0.0, 1000.0, &us, err);
        if (!st)
            st = sim_engprof_need_source(root, path, key, err);
        p->kfloor.in_graph_ns[k] = us * 1e3;
    }
    return st;
}

bool sim_engprof_kfloor_known(const char *field)
{
    for (int k = 0; k < SIM_KFLOOR_COUNT; k++) {
        char key[64];
        key_of((sim_kfloor_kind)k, key, sizeof key);
        if (strcmp(field, key) == 0)
            return true;
    }
    return false;
}
