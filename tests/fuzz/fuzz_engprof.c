/* fuzz_engprof.c - the engine-profile loader (sim_engprof_load) on arbitrary bytes. Seeds: the
 * shipped profiles in hw/engines. */
#include "fuzz_util.h"

#include "engprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_engprof p;
    sim_err err = {{0}};
    (void)sim_engprof_load(fuzz_file(data, size, ".json"), &p, &err);
    return 0;
}
