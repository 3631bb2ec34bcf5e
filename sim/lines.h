/* lines.h - reading a text input file line by line, with bounds.
 *
 * Every line-oriented reader (traces, the validation CSV, merge shards) reads through here, so a
 * hostile input cannot grow memory without bound or slip past a parser:
 *   - a line is at most SIM_LINES_MAX_BYTES (1 MiB); a longer one (or /dev/zero) is an error
 *     naming the file and line, after reading at most that much;
 *   - a NUL byte is an error (the file is binary, not text);
 *   - a UTF-8 byte order mark before the first line is skipped (spreadsheets write one);
 *   - a directory is refused at open ("is a directory").
 *
 * Example (const char *path, sim_err *err):
 *   sim_lines r;
 *   sim_status st = sim_lines_open(&r, path, err);
 *   if (st)
 *       return st;
 *   char *line;
 *   while (!(st = sim_lines_next(&r, &line, err)) && line) {
 *       ... r.lineno is the line's number; the newline is stripped ...
 *   }
 *   sim_lines_close(&r);
 *   return st;
 */
#ifndef SIM_LINES_H
#define SIM_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

#define SIM_LINES_MAX_BYTES ((size_t)1 << 20)

typedef struct sim_lines {
    FILE *f;
    const char *path; /* borrowed: must outlive the reader */
    char *buf;
    size_t cap;
    int64_t lineno; /* of the line last returned, from 1 */
} sim_lines;

/* Opens path for reading. SIM_EINPUT when it cannot be opened or is a directory. */
sim_status sim_lines_open(sim_lines *r, const char *path, sim_err *err);

/* The next line, without its "\n" (or "\r\n"), in *line (owned by the reader, valid until the
 * next call); *line = NULL at the end of the file. SIM_EINPUT for an over-long line, a NUL byte
 * or a read error; SIM_EINTERNAL when out of memory. */
sim_status sim_lines_next(sim_lines *r, char **line, sim_err *err);

void sim_lines_close(sim_lines *r);

#endif
