/* find.c - data roots and the lookup of a data file in them. */
#define _GNU_SOURCE /* dladdr */
#include "find.h"

#include <dirent.h>
#include <dlfcn.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef INFERSIM_DATADIR
#define INFERSIM_DATADIR "/usr/local/share/infersim"
#endif

/* Appends one root (formatted) unless it is too long. */
static void add_root(char *buf, size_t len, const char **roots, size_t *n, const char *a,
                     const char *b)
{
    if (*n >= SIM_FIND_MAX_ROOTS)
        return;
    char *slot = buf + *n * len;
    int w = snprintf(slot, len, "%s%s", a, b);
    if (w > 0 && (size_t)w < len)
        roots[(*n)++] = slot;
}

/* The nearest ancestor of `dir` (itself included, up to 5 levels) holding share/infersim. */
static void add_share(char *buf, size_t len, const char **roots, size_t *n, const char *dir)
{
    char cand[PATH_MAX + 64];
    for (int up = 0; up <= 5 && *n < SIM_FIND_MAX_ROOTS; up++) {
        size_t w = (size_t)snprintf(cand, sizeof cand, "%s", dir);
        for (int k = 0; k < up && w + 4 < sizeof cand; k++)
            w += (size_t)snprintf(cand + w, sizeof cand - w, "/..");
        if (w + 16 >= sizeof cand)
            return;
        snprintf(cand + w, sizeof cand - w, "/share/infersim");
        if (access(cand, R_OK) == 0) {
            add_root(buf, len, roots, n, cand, "");
            return;
        }
    }
}

/* A build folder's record of its source tree: the first line of `infersim-source` in `dir` or
 * up to `levels` folders above it (build/infersim: 0; build/python/infersim/_infersim.so: 2), an
 * absolute path written by CMake at configure time. An installed binary or library has none
 * there (PREFIX/bin, PREFIX/lib/python3/dist-packages/infersim and the two above it). */
static void add_build_source(char *buf, size_t len, const char **roots, size_t *n, const char *dir,
                             size_t levels)
{
    static const char *const up[] = {"", "/..", "/../.."};
    for (size_t i = 0; i <= levels && i < sizeof up / sizeof up[0] && *n < SIM_FIND_MAX_ROOTS;
         i++) {
        char cand[PATH_MAX + 64], line[PATH_MAX];
        if (snprintf(cand, sizeof cand, "%s%s/infersim-source", dir, up[i]) >= (int)sizeof cand)
            return;
        FILE *f = fopen(cand, "r");
        if (!f)
            continue;
        bool got = fgets(line, sizeof line, f) != NULL;
        fclose(f);
        line[got ? strcspn(line, "\r\n") : 0] = '\0';
        if (line[0] == '/')
            add_root(buf, len, roots, n, line, "");
        return;
    }
}

/* The folder of a file path (in place). False for a path without one. */
static bool dir_of(char *path)
{
    char *slash = strrchr(path, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return true;
}

size_t sim_find_roots(char *buf, size_t len, const char *roots[SIM_FIND_MAX_ROOTS])
{
    size_t n = 0;
    add_root(buf, len, roots, &n, ".", "");
    const char *env = getenv("INFERSIM_DATA");
    if (env && *env)
        add_root(buf, len, roots, &n, env, "");
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = '\0';
    bool have_exe = dir_of(exe);
    if (have_exe) {
        add_root(buf, len, roots, &n, exe, "/..");
        add_root(buf, len, roots, &n, exe, "");
        add_build_source(buf, len, roots, &n, exe, 0);
        add_share(buf, len, roots, &n, exe);
    }
    /* the library itself (libinfersim.so, or the Python package's _infersim.so) */
    static const char anchor = 0; /* any object of this library: dladdr names its file */
    Dl_info info;
    char lib[PATH_MAX];
    if (dladdr(&anchor, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
        snprintf(lib, sizeof lib, "%s", info.dli_fname) < (int)sizeof lib && dir_of(lib) &&
        !(have_exe && strcmp(lib, exe) == 0)) {
        add_share(buf, len, roots, &n, lib);
        add_build_source(buf, len, roots, &n, lib, 2);
    }
    if (n < SIM_FIND_MAX_ROOTS)
        add_root(buf, len, roots, &n, INFERSIM_DATADIR, "");
    return n;
}

bool sim_find_file(const char *dir, const char *file, char *out, size_t len)
{
    char buf[SIM_FIND_MAX_ROOTS * PATH_MAX];
    const char *roots[SIM_FIND_MAX_ROOTS];
    size_t n = sim_find_roots(buf, PATH_MAX, roots);
    for (size_t i = 0; i < n; i++) {
        char cand[PATH_MAX + 512];
        int w = strcmp(roots[i], ".") == 0
                    ? snprintf(cand, sizeof cand, "%s/%s", dir, file)
                    : snprintf(cand, sizeof cand, "%s/%s/%s", roots[i], dir, file);
        if (w <= 0 || (size_t)w >= len || (size_t)w >= sizeof cand || access(cand, R_OK) != 0)
            continue;
        memcpy(out, cand, (size_t)w + 1);
        return true;
    }
    return false;
}

void sim_find_names(const char *dir, char *out, size_t len)
{
    char path[PATH_MAX];
    out[0] = '\0';
    if (!sim_find_file(dir, ".", path, sizeof path))
        return;
    struct dirent **names = NULL;
    int n = scandir(path, &names, NULL, alphasort);
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        size_t l = strlen(nm);
        if (l > 5 && strcmp(nm + l - 5, ".json") == 0 && used + l + 8 < len)
            used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? ", " : "",
                                     (int)(l - 5), nm);
        else if (l > 5 && strcmp(nm + l - 5, ".json") == 0 && used + 6 < len && !strstr(out, "..."))
            used += (size_t)snprintf(out + used, len - used, ", ...");
        free(names[i]);
    }
    free(names);
}

size_t sim_find_each(const char *dir, void (*fn)(void *ctx, const char *name), void *ctx)
{
    char path[PATH_MAX];
    if (!sim_find_file(dir, ".", path, sizeof path))
        return 0;
    struct dirent **names = NULL;
    int n = scandir(path, &names, NULL, alphasort);
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        char *nm = names[i]->d_name;
        size_t l = strlen(nm);
        if (l > 5 && strcmp(nm + l - 5, ".json") == 0) {
            nm[l - 5] = '\0';
            fn(ctx, nm);
            k++;
        }
        free(names[i]);
    }
    free(names);
    return k;
}
