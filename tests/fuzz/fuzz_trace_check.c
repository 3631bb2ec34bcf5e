/* fuzz_trace_check.c - the Chrome trace checker (sim_trace_check) on arbitrary bytes. */
#include "fuzz_util.h"

#include "trace_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_trace_stats s;
    sim_err err = {{0}};
    (void)sim_trace_check(fuzz_file(data, size, ".json"), &s, &err);
    return 0;
}
