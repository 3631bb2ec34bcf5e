/* fuzz_timeline_check.c - the Chrome trace checker (sim_timeline_check) on arbitrary bytes. */
#include "fuzz_util.h"

#include "timeline_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_timeline_stats s;
    sim_err err = {{0}};
    (void)sim_timeline_check(fuzz_file(data, size, ".json"), &s, &err);
    return 0;
}
