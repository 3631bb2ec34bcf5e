/* fuzz_compare.c - compare's result file (a vLLM --save-result or a run-style JSON) on arbitrary
 * bytes, through the command line in process: `compare --result FILE --model llama-3.2-1b --hw
 * h100-sxm`. The file sets the workload it is compared with, so that a run stays short an input
 * with an integer of more than 3 digits or an exponent is skipped (at most 999 prompts of 999
 * tokens). Seeds: tests/fuzz/seeds/compare. */
#include "fuzz_util.h"

#include <stdbool.h>
#include <string.h>

#include "cli.h"

/* Whether every number in the bytes is small: no run of 4 digits before a decimal point (or
 * outside one) and no exponent. */
static bool small_numbers(const uint8_t *d, size_t n)
{
    int digits = 0;
    bool frac = false;
    for (size_t i = 0; i < n; i++) {
        bool dig = d[i] >= '0' && d[i] <= '9';
        if (dig && !frac && ++digits > 3)
            return false;
        if (!dig) {
            frac = d[i] == '.';
            digits = 0;
        }
        if ((d[i] == 'e' || d[i] == 'E') && i + 1 < n &&
            ((d[i + 1] >= '0' && d[i + 1] <= '9') || d[i + 1] == '+' || d[i + 1] == '-'))
            return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    if (!small_numbers(data, size))
        return 0;
    char *argv[] = {"infersim", "compare",     "--result", (char *)fuzz_file(data, size, ".json"),
                    "--model",  "llama-3.2-1b", "--hw",     "h100-sxm",
                    NULL};
    (void)sim_cli_main(8, argv, sink, sink);
    return 0;
}
