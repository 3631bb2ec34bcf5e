/* clitest.h - what the test_cli_* programs share: one command line run in the test process
 * (through cliutil.h's tu_cli) or launched as the binary, its output, diagnostics and exit status
 * in R, and the checks several groups make of them. Each program links tests/clitest.c.
 * (Apart from cliutil.h, which test_capacity, test_plan and others include with helpers of
 * their own under these names.) */
#ifndef CLITEST_H
#define CLITEST_H

#include <cjson/cJSON.h>

#include "cliutil.h"

typedef struct result {
    int rc;
    char out[1 << 17];
    char err[1 << 16]; /* a sweep's summary goes here when its rows go to stdout */
} result;

/* The last command's exit status, output and diagnostics (big: kept off the stack). */
extern result R;

/* Runs "infersim <args>" in this process and captures its output, diagnostics and exit status. */
void run(const char *args);

/* The same with printf-style arguments (paths under tu_root() and tu_tmpdir()). */
void runf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Launches "BIN <args>" from `cwd` as a process, without $INFERSIM_DATA (the lookup is the
 * binary's own), and captures stdout, stderr and the exit status: only for what needs the real
 * binary (main.c, its exit status, its working directory and location at start-up). */
void run_process_bin(const char *cwd, const char *bin, const char *args);

/* The same for "$INFERSIM_BIN <args>", the binary of this build. */
void run_process_in(const char *cwd, const char *args);

/* The number of newlines in s. */
int count_lines(const char *s);

/* Reads a whole file into a malloc'd string. */
char *slurp(const char *path);

/* "nan" (but not "nano": nemotron-nano-9b-v2), "inf" (but not "infersim"), "NaN" or JSON null
 * anywhere in an output. */
void assert_no_nonfinite(const char *s);

/* The number o[k]; fails the test when it is missing or not a number. */
double num(const cJSON *o, const char *k);

/* "infersim <args>" must fail with exit 2, nothing on stdout and one line naming must_mention. */
void expect_bad(const char *args, const char *must_mention);

/* `base` with `extra` appended must fail with exit 2 and one line mentioning `mention`. */
void bad_flag(const char *base, const char *extra, const char *mention);

/* A number from the JSON on stdout. */
double out_num(const char *key);

#endif
