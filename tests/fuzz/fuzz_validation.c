/* fuzz_validation.c - the validation / calibration CSV reader (sim_validate_load). */
#include "fuzz_util.h"

#include "validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_vrow *rows = NULL;
    size_t n = 0;
    sim_err err = {{0}};
    (void)sim_validate_load(fuzz_file(data, size, ".csv"), &rows, &n, &err);
    free(rows);
    return 0;
}
