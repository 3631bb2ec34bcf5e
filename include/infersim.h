/* infersim.h - infersim as a library: one command line, run in-process, its JSON back.
 *
 * Example:
 *   #include <infersim.h>
 *   #include <stdio.h>
 *   #include <stdlib.h>
 *   const char *argv[] = {"run", "--model", "llama-3.1-8b", "--hw", "h100-sxm", "--tp", "2"};
 *   char err[512];
 *   char *json = infersim_json(7, argv, err, sizeof err);
 *   if (!json) {
 *       fprintf(stderr, "%s\n", err);
 *       return 2;
 *   }
 *   ... parse json ...
 *   free(json);
 *
 * Link with `pkg-config --cflags --libs infersim`. Names (--model llama-3.1-8b, --hw h100-sxm)
 * are looked up as the command line looks them up: the path as given, the working directory,
 * $INFERSIM_DATA, the source tree next to the executable, the installed share/infersim.
 *
 * Thread safety: every call keeps its own state (no globals, no static buffers, nothing written
 * to stdout or stderr), so calls may run at once from several threads. A sweep inside a call uses
 * OpenMP threads of its own (--threads N bounds them).
 */
#ifndef INFERSIM_H
#define INFERSIM_H

#include <stddef.h>

/* What the shared library exports: these declarations alone (it is built with hidden visibility,
 * and a test fails on any other exported symbol). */
#if defined(__GNUC__) || defined(__clang__)
#define INFERSIM_API __attribute__((visibility("default")))
#else
#define INFERSIM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Runs one infersim command line. argv[0] is the command ("run", "serve", "roofline", "sweep",
 * "op", "validate", "compare", ...), the rest its flags exactly as on the command line (see
 * `infersim COMMAND --help`); argc counts them all.
 *
 * Returns a malloc'd, NUL-terminated JSON text the caller frees with free():
 *   run, serve, roofline, hw: the object `--format json` prints (a --format given is overridden);
 *   sweep:                 {"points": [one object per grid point, in grid order]};
 *   any other command:     {"text": "<what it prints>"}.
 * A word "--report-html" among the flags (the API's own; run, serve, and sweep without --out)
 * adds "report_html": the text of the page --html would write (its tables and SVG charts, with
 * the caller's words as its command line), written to a folder of its own under $TMPDIR (else
 * /tmp) and removed before the call returns.
 * On bad input (an unknown flag, a model or device that cannot be loaded, a configuration that
 * does not fit) returns NULL and writes the one-line message the command line would print,
 * "infersim: ...", into err (truncated to err_len - 1 bytes; err may be NULL when err_len is 0).
 * An internal failure (out of memory) also returns NULL, with its message. "endpoint" (a server
 * that runs until a signal) is refused: run the infersim program for it. */
INFERSIM_API char *infersim_json(int argc, const char *const argv[], char *err, size_t err_len);

/* The library's version, "MAJOR.MINOR.PATCH" (a static string). */
INFERSIM_API const char *infersim_version(void);

#ifdef __cplusplus
}
#endif

#endif
