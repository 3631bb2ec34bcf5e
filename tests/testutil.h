/* testutil.h - shared helpers for the cmocka tests. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#define _POSIX_C_SOURCE 200809L /* getpid, popen */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "hw.h"
#include "model.h"
#include "workload.h"

/* cmocka 1.1's assert_float_equal casts to float; this keeps doubles and says what differed. */
#define assert_near(actual, expected, rel_tol)                                                     \
    do {                                                                                           \
        double a_ = (actual), e_ = (expected), t_ = (rel_tol);                                     \
        if (!(fabs(a_ - e_) <= t_ * fabs(e_))) {                                                   \
            print_error("%s = %.10g, expected %.10g within %.3g%%\n", #actual, a_, e_,             \
                        100.0 * t_);                                                               \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

#define assert_between(actual, lo, hi)                                                             \
    do {                                                                                           \
        double a_ = (actual), l_ = (lo), h_ = (hi);                                                \
        if (!(a_ >= l_ && a_ <= h_)) {                                                             \
            print_error("%s = %.10g, expected in [%.10g, %.10g]\n", #actual, a_, l_, h_);          \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* The source tree (set by CTest; falls back to the working directory's parent). */
static inline const char *tu_root(void)
{
    const char *r = getenv("INFERSIM_ROOT");
    return r ? r : "..";
}

/* "<root>/<dir>/<name>.json" in a static buffer (one at a time). */
static inline const char *tu_path(const char *dir, const char *name)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s/%s.json", tu_root(), dir, name);
    return buf;
}

static inline sim_hw tu_hw(const char *name)
{
    sim_hw hw;
    sim_err err = {{0}};
    if (sim_hw_load(tu_path("hw", name), &hw, &err) != SIM_OK) {
        print_error("loading hw %s: %s\n", name, err.msg);
        fail();
    }
    return hw;
}

/* The H100 with the datasheet and micro-benchmark values the hand-worked cost tests assume
 * (the shipped hw/h100-sxm.json is recalibrated as measurements arrive). */
static inline sim_hw tu_fixture_hw(void)
{
    sim_hw hw;
    sim_err err = {{0}};
    if (sim_hw_load(tu_path("tests/data", "h100-fixture"), &hw, &err) != SIM_OK) {
        print_error("loading the H100 fixture: %s\n", err.msg);
        fail();
    }
    return hw;
}

static inline sim_model tu_model(const char *name)
{
    sim_model m;
    sim_err err = {{0}};
    if (sim_model_load(tu_path("models", name), &m, &err) != SIM_OK) {
        print_error("loading model %s: %s\n", name, err.msg);
        fail();
    }
    return m;
}

/* Writes `text` to a fresh temporary file and returns its path (static buffer). */
/* snprintf that fails the test when the text does not fit (paths under $TMPDIR have no fixed
 * length), as a statement. */
#define tu_snprintf(buf, size, ...)                                                                \
    assert_true(snprintf((buf), (size), __VA_ARGS__) < (int)(size))

/* The test process's own directory under $TMPDIR (default /tmp), made on first use; it and the
 * files in it are removed when the process exits, so a test run leaves nothing behind. */
static char tu_tmpdir_buf[200];

/* Removes `path`: a file, or a folder with everything in it (symbolic links are not followed:
 * unlink removes the link itself). */
static inline void tu_rm_r(const char *path)
{
    if (unlink(path) == 0)
        return;
    DIR *d = opendir(path);
    if (d) {
        char sub[512];
        for (struct dirent *e = readdir(d); e; e = readdir(d)) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < (int)sizeof sub)
                tu_rm_r(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

static inline void tu_tmpdir_remove(void) { tu_rm_r(tu_tmpdir_buf); }

static inline const char *tu_tmpdir(void)
{
    if (!tu_tmpdir_buf[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tu_tmpdir_buf, sizeof tu_tmpdir_buf, "%s/infersim-test-XXXXXX",
                 base && *base ? base : "/tmp");
        if (!mkdtemp(tu_tmpdir_buf)) {
            print_error("cannot make a temporary directory under %s\n", base ? base : "/tmp");
            fail();
        }
        atexit(tu_tmpdir_remove);
    }
    return tu_tmpdir_buf;
}

/* How many temporaries of the output `path` (outfile.h: "<path>.XXXXXX.tmp", or the old fixed
 * "<path>.tmp") its directory holds: 0 once an output is committed or abandoned. */
static inline int tu_temporaries(const char *path)
{
    char dir[512];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    const char *base = slash ? slash + 1 : path;
    size_t bl = strlen(base);
    DIR *d = opendir(dir[0] ? dir : "/");
    if (!d)
        return 0;
    int n = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        size_t len = strlen(e->d_name);
        n += len >= bl + 4 && strncmp(e->d_name, base, bl) == 0 && e->d_name[bl] == '.' &&
             strcmp(e->d_name + len - 4, ".tmp") == 0;
    }
    closedir(d);
    return n;
}

/* Writes `text` to a new file in tu_tmpdir(); returns its path (a static buffer: one at a time). */
static inline const char *tu_write_tmp(const char *text)
{
    static char path[256];
    static int n = 0;
    snprintf(path, sizeof path, "%s/%d.json", tu_tmpdir(), n++);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* A synthetic workload (vLLM's random dataset, Poisson arrivals, seed 7) that must build. */
static inline sim_workload tu_synth(int64_t n, int64_t in, int64_t out, double rate, double ratio)
{
    sim_synth_cfg c = {.num_prompts = n,
                       .input_len = in,
                       .output_len = out,
                       .range_ratio = ratio,
                       .request_rate = rate,
                       .burstiness = 1.0,
                       .seed = 7};
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_OK);
    return w;
}

#endif
