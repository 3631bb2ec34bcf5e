/* cliutil.h - runs an infersim command line inside the test process, through the library's
 * sim_cli_main, instead of launching the binary.
 *
 * The command's output and diagnostics go to two files under tu_tmpdir() (the FILE*s
 * sim_cli_main is given), read back whole and removed. A command that writes to the process's
 * own stdout or stderr, or leaves a file open, fails the test: both are bugs of the C API. Paths in the arguments should be absolute: the test's working directory is
 * CTest's (the build folder), never the source tree.
 */
#ifndef CLIUTIL_H
#define CLIUTIL_H

#include <stdbool.h>

#include "testutil.h"

#include "cli.h"

#define TU_CLI_MAX_ARGS 256

/* Splits `line` in place into words at blanks; a word in single quotes keeps its blanks (the
 * quotes are dropped). argv[0] is "infersim". Returns argc; fails the test past `max` words or
 * on an unclosed quote. */
static inline int tu_cli_split(char *line, char **argv, int max)
{
    static char name[] = "infersim";
    int argc = 0;
    argv[argc++] = name;
    char *r = line;
    while (*r) {
        while (*r == ' ' || *r == '\t' || *r == '\n')
            r++;
        if (!*r)
            break;
        if (argc == max) {
            print_error("more than %d words in a command line\n", max);
            fail();
        }
        char *w = r, *word = r; /* the word is rewritten in place, without its quotes */
        while (*r && *r != ' ' && *r != '\t' && *r != '\n') {
            if (*r == '\'') {
                char *close = strchr(r + 1, '\'');
                if (!close) {
                    print_error("unclosed quote in '%s'\n", word);
                    fail();
                }
                size_t n = (size_t)(close - r - 1);
                memmove(w, r + 1, n);
                w += n;
                r = close + 1;
            } else {
                *w++ = *r++;
            }
        }
        bool end = *r == '\0';
        *w = '\0';
        argv[argc++] = word;
        if (end)
            break;
        r++;
    }
    argv[argc] = NULL;
    return argc;
}

/* The whole of `f` from its start into buf (len bytes with the NUL); fails the test when it does
 * not fit, rather than cutting what a test then searches. */
static inline void tu_read_back(FILE *f, char *buf, size_t len, const char *what)
{
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    if (n == len - 1 && fgetc(f) != EOF) {
        print_error("the command's %s is longer than the test's buffer of %zu bytes\n", what, len);
        fail();
    }
}

/* How many files this process has open (-1 where /proc is not mounted). */
static inline int tu_open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Runs "infersim <args>" in this process: sim_cli_main(argc, argv, out, err) with out and err
 * files under tu_tmpdir(), whose text is left in out_text and err_text. Returns the exit status. */
static inline int tu_cli(const char *args, char *out_text, size_t out_len, char *err_text,
                         size_t err_len)
{
    static char line[8192];
    if (strlen(args) >= sizeof line) {
        print_error("command line longer than %zu bytes\n", sizeof line);
        fail();
    }
    strcpy(line, args);
    char *argv[TU_CLI_MAX_ARGS + 1];
    int argc = tu_cli_split(line, argv, TU_CLI_MAX_ARGS);
    char out_path[256], err_path[256];
    tu_snprintf(out_path, sizeof out_path, "%s/cli.out", tu_tmpdir());
    tu_snprintf(err_path, sizeof err_path, "%s/cli.err", tu_tmpdir());
    char stray_path[256];
    tu_snprintf(stray_path, sizeof stray_path, "%s/cli.stray", tu_tmpdir());
    FILE *out = fopen(out_path, "w+"), *err = fopen(err_path, "w+");
    FILE *stray = fopen(stray_path, "w+");
    assert_non_null(out);
    assert_non_null(err);
    assert_non_null(stray);
    /* the process's own stdout and stderr go to `stray` meanwhile: the command must write
     * nothing there (restored before any check, so that cmocka's messages are seen) */
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    assert_true(saved_out >= 0 && saved_err >= 0);
    assert_true(dup2(fileno(stray), 1) == 1 && dup2(fileno(stray), 2) == 2);
    int fds = tu_open_fds();
    int rc = sim_cli_main(argc, argv, out, err);
    int left_open = tu_open_fds() - fds;
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    if (left_open) { /* a file the command opened and left open */
        print_error("'%s' left %d files open\n", args, left_open);
        fail();
    }
    char stray_text[512];
    tu_read_back(stray, stray_text, sizeof stray_text, "output past its FILE*s");
    if (stray_text[0]) {
        print_error("'%s' wrote past the FILE*s it was given: '%s'\n", args, stray_text);
        fail();
    }
    tu_read_back(out, out_text, out_len, "output");
    tu_read_back(err, err_text, err_len, "diagnostics");
    fclose(out);
    fclose(err);
    fclose(stray);
    remove(out_path);
    remove(err_path);
    remove(stray_path);
    return rc;
}

#endif
