/* fuzz_merge.c - merge's shard files on arbitrary bytes: the input is split at its first form
 * feed (or in half) into two shards, CSV or JSON lines as their first byte says, joined by
 * `merge --out /dev/null SHARD SHARD` in process. Seeds: tests/fuzz/seeds/merge (the shards of
 * a small sweep). */
#include "fuzz_util.h"

#include <string.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    const uint8_t *ff = memchr(data, '\f', size);
    size_t cut = ff ? (size_t)(ff - data) : size / 2;
    const uint8_t *second = data + cut + (ff ? 1 : 0);
    size_t second_len = size - cut - (ff ? 1 : 0);
    const char *sfx = size && data[0] == '{' ? ".jsonl" : ".csv";
    char *argv[] = {"infersim",
                    "merge",
                    "--out",
                    "/dev/null",
                    (char *)fuzz_file_k(0, data, cut, sfx),
                    (char *)fuzz_file_k(1, second, second_len, sfx),
                    NULL};
    (void)sim_cli_main(6, argv, sink, sink);
    return 0;
}
