/* fuzz_grid.c - sweep grid files (--grid FILE) through the command line, in process. Only the
 * shard's first point runs (--shard 0/1000000000), so a grid of many points stays one run. */
#include "fuzz_util.h"

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    char grid[160];
    snprintf(grid, sizeof grid, "%s", fuzz_file(data, size, ".json"));
    char *argv[] = {"infersim",     "sweep",        "run",       "--grid", grid,
                    "--shard",      "0/1000000000", "--threads", "1",      "--model",
                    "llama-3.2-1b", "--hw",         "h100-sxm",  NULL};
    /* the grid may name --model and --hw itself: then the command line's are "given twice" */
    int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
    (void)sim_cli_main(argc, argv, sink, sink);
    return 0;
}
