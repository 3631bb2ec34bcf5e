/* fuzz_e2e.c - a fuzzed input file run end to end, through the command line in process: the first
 * byte picks what the rest is (0: a model config, 1: a device file, 2: a trace as CSV, 3: a trace
 * as Mooncake JSON lines, taken modulo 4), the others are shipped files, and a small `run` (batch
 * 2, 64 + 8 tokens) and `serve` (4 requests; both with --max-model-len 1024, so a request stays
 * short) price it: every check between the loaders and the
 * outputs sees what the loaders let through. Seeds: tests/fuzz/seeds/e2e (shipped files with the
 * selector byte in front; tools/fuzz adds every model and device). */
#include "fuzz_util.h"

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    if (size < 1)
        return 0;
    static const char *const sfx[] = {".json", ".json", ".csv", ".jsonl"};
    const int kind = data[0] % 4;
    const char *file = fuzz_file_k(kind, data + 1, size - 1, sfx[kind]);
    const char *model = kind == 0 ? file : "llama-3.2-1b";
    const char *hw = kind == 1 ? file : "h100-sxm";
    char *run[] = {"infersim",    "run",          "--model",      (char *)model, "--hw",
                   (char *)hw,    "--batch",      "2",            "--input-len", "64",
                   "--output-len", "8",           "--max-model-len", "1024",     "--format",
                   "json",        NULL};
    (void)sim_cli_main(16, run, sink, sink);
    char *serve_synth[] = {"infersim",           "serve",     "--model",
                           (char *)model,        "--hw",      (char *)hw,
                           "--num-prompts",      "4",         "--random-input-len",
                           "64",                 "--random-output-len", "8",
                           "--max-model-len",    "1024",      NULL};
    char *serve_trace[] = {"infersim", "serve", "--model", (char *)model, "--hw", (char *)hw,
                           "--trace",  (char *)file, "--num-prompts", "4", "--max-model-len",
                           "1024",     "--format", "json", NULL};
    if (kind >= 2)
        (void)sim_cli_main(14, serve_trace, sink, sink);
    else
        (void)sim_cli_main(14, serve_synth, sink, sink);
    return 0;
}
