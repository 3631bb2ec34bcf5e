/* fuzz_hw.c - the device file loader (sim_hw_load) on arbitrary bytes. */
#include "fuzz_util.h"

#include "hw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_hw hw;
    sim_err err = {{0}};
    (void)sim_hw_load(fuzz_file(data, size, ".json"), &hw, &err);
    return 0;
}
