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

/* The same for targets that write several files: file `k` (0..3) of this process, named with
 * `suffix` on its first use (each path fixed from then on, removed at exit). */
static char fuzz_paths[4][128];

static inline void fuzz_files_remove(void)
{
    for (int k = 0; k < 4; k++)
        if (fuzz_paths[k][0])
            remove(fuzz_paths[k]);
}

static inline const char *fuzz_file_k(int k, const uint8_t *data, size_t size, const char *suffix)
{
    char *path = fuzz_paths[k];
    if (!path[0]) {
        static int registered;
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(path, sizeof fuzz_paths[k], "%s/infersim-fuzz-%d-%d%s", dir, (int)getpid(), k,
                 suffix);
        if (!registered++)
            atexit(fuzz_files_remove);
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
