/* fuzz_validation.c - the validation / calibration CSV reader (sim_validate_load), and what a file
 * it accepts does downstream: a file of at most 16 rows, all op-level (op prices are closed
 * forms, so a run stays short whatever the sizes), goes through `validate --data FILE` in
 * process (its device lookups, the predictions, the report and the gates). Seeds:
 * tests/fuzz/seeds/validation (one row of every kind, quoting, a BOM, a bad row);
 * tools/fuzz adds the shipped table. */
#include "fuzz_util.h"

#include "cli.h"
#include "validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    sim_vrow *rows = NULL;
    size_t n = 0;
    sim_err err = {{0}};
    const char *path = fuzz_file(data, size, ".csv");
    bool ops = sim_validate_load(path, &rows, &n, &err) == SIM_OK && n <= 16;
    for (size_t i = 0; ops && i < n; i++)
        ops = sim_vkind_is_op(rows[i].kind);
    free(rows);
    if (ops) {
        char *argv[] = {"infersim",          "validate", "--data", (char *)path,
                        "--coverage-draws", "0",        NULL};
        (void)sim_cli_main(6, argv, sink, sink);
    }
    return 0;
}
