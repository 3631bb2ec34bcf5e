/* fuzz_model.c - the model config loader (sim_model_load) on arbitrary bytes. */
#include "fuzz_util.h"

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_model m;
    sim_err err = {{0}};
    (void)sim_model_load(fuzz_file(data, size, ".json"), &m, &err);
    return 0;
}
