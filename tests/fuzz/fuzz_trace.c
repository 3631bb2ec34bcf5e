/* fuzz_trace.c - the request trace reader (Azure CSV, Mooncake JSONL, arrival_s CSV: the format
 * is told from the first line) on arbitrary bytes; seeds of all three formats. */
#include "fuzz_util.h"

#include "workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_workload w;
    sim_err err = {{0}};
    if (sim_workload_load_trace(fuzz_file(data, size, ".csv"), 1.0, 0, &w, &err) == SIM_OK)
        sim_workload_free(&w);
    return 0;
}
