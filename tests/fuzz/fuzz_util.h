/* fuzz_util.h - what the libFuzzer targets share: the input written to a file, since every
 * infersim parser reads a path (built with -DINFERSIM_FUZZ=ON; see tools/fuzz). */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_path[128];

static inline void fuzz_file_remove(void) { remove(fuzz_path); }

/* Writes data to a per-process file with the given suffix and returns its path (static; removed
 * at exit). */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    char *path = fuzz_path;
    if (!path[0]) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"; /* memory */
        snprintf(path, sizeof fuzz_path, "%s/infersim-fuzz-%d%s", dir, (int)getpid(), suffix);
        atexit(fuzz_file_remove);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    if (fclose(f) != 0)
        abort();
    return path;
}

#endif
