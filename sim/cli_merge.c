/* cli_merge.c - the merge command: sweep shard files joined back into grid order. */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_load.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "outfile.h"

/* ------------------------------------------------------------------------------------------ */
/* merge: shard files back into one, in grid order */

typedef struct merge_line {
    long long point;
    char *text;
} merge_line;

static int by_point(const void *a, const void *b)
{
    const merge_line *x = a, *y = b;
    return x->point < y->point ? -1 : x->point > y->point;
}

/* The point index of a row: the first CSV field, or the "point" key of a JSON line. */
static bool row_point(const char *line, bool jsonl, long long *out)
{
    const char *p = line;
    if (jsonl) {
        p = strstr(line, "\"point\":");
        if (!p)
            return false;
        p += 8;
    }
    char *end;
    errno = 0;
    *out = strtoll(p, &end, 10);
    return !errno && end != p && (*end == ',' || *end == '}') && *out >= 0;
}

/* Whether the bare token [p, end) reads as a number that is not finite (nan, inf, 1e999, NaN,
 * Infinity: strtod's spellings); `inf_ok`: the text "inf" itself is allowed (a CSV shard's grid
 * column holds the unbounded request rate as `inf`, as sweep writes it). */
static bool token_not_finite(const char *p, const char *end, bool inf_ok)
{
    char tok[64];
    size_t n = (size_t)(end - p);
    if (n == 0 || n >= sizeof tok)
        return false;
    memcpy(tok, p, n);
    tok[n] = '\0';
    if (inf_ok && strcmp(tok, "inf") == 0)
        return false;
    char *stop;
    double v = strtod(tok, &stop);
    return *stop == '\0' && !isfinite(v);
}

/* The first field of a row (a CSV field outside quotes, a JSON value outside strings) that is a
 * number but not finite, copied into bad; false when there is none. A merge copies rows as they
 * are, and no output holds NaN or inf: a shard that does (edited by hand, or damaged) is refused. */
static bool row_not_finite(const char *line, bool jsonl, char *bad, size_t len)
{
    const char *p = line;
    bool in_str = false;
    while (*p) {
        if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_str = false;
            p++;
            continue;
        }
        if (*p == '"') {
            in_str = true;
            p++;
            continue;
        }
        const char *stops = jsonl ? ",}] \t:" : ",";
        const char *end = p + strcspn(p, stops);
        if (end > p && (!jsonl || (p > line && strchr(":[, \t", p[-1]))) &&
            token_not_finite(p, end, !jsonl)) {
            snprintf(bad, len, "%.*s", (int)(end - p), p);
            return true;
        }
        p = *end ? end + 1 : end;
    }
    return false;
}

void cli_merge_help(FILE *f, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("usage: infersim merge [--out FILE] SHARD...\n"
          "  SHARD...                   the files of 'infersim sweep --shard I/N --out FILE' (all "
          "CSV or\n"
          "                             all JSONL), joined back into grid order\n"
          "  --out S                    write the merged rows here (default: stdout)\n",
          f);
}

sim_status cli_merge_cmd(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    (void)errf; /* merge warns about nothing */
    const char *dest = NULL;
    merge_line *lines = NULL;
    size_t n = 0, cap = 0;
    char *header = NULL;
    sim_status st = SIM_OK;
    int files = 0;
    bool jsonl = false;
    for (int i = 2; i < argc && !st; i++) {
        if (strcmp(argv[i], "--out") == 0 || strncmp(argv[i], "--out=", 6) == 0) {
            if (dest) {
                st = sim_fail(err, SIM_EINPUT, "--out: given twice, expected once");
                break;
            }
            dest = argv[i][5] == '=' ? argv[i] + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!dest)
                st = sim_fail(err, SIM_EINPUT, "--out: missing value");
            continue;
        }
        if (argv[i][0] == '-') {
            st = sim_fail(err, SIM_EINPUT, "merge: unknown flag '%s'; see 'infersim merge --help'",
                          argv[i]);
            break;
        }
        sim_lines lr;
        if ((st = sim_lines_open(&lr, argv[i], err)))
            break;
        bool this_jsonl = cli_load_is_jsonl(argv[i]);
        if (files++ && this_jsonl != jsonl)
            st = sim_fail(err, SIM_EINPUT, "%s: mixes CSV and JSONL shards", argv[i]);
        jsonl = this_jsonl;
        char *buf = NULL;
        while (!st && !(st = sim_lines_next(&lr, &buf, err)) && buf) {
            long lineno = (long)lr.lineno;
            if (!jsonl && lineno == 1) {
                if (!header)
                    st = (header = strdup(buf)) ? SIM_OK
                                                : sim_fail(err, SIM_EINTERNAL, "out of memory");
                else if (strcmp(header, buf) != 0)
                    st = sim_fail(err, SIM_EINPUT, "%s:1: header differs from the first shard's",
                                  argv[i]);
                continue;
            }
            if (!buf[0])
                continue;
            long long point;
            if (!row_point(buf, jsonl, &point)) {
                st = sim_fail(err, SIM_EINPUT, "%s:%ld: no point index", argv[i], lineno);
                break;
            }
            char bad[64];
            if (row_not_finite(buf, jsonl, bad, sizeof bad)) {
                st = sim_fail(err, SIM_EINPUT,
                              "%s:%ld: value '%s' is not a finite number, expected sweep output "
                              "(no output holds NaN or inf)",
                              argv[i], lineno, bad);
                break;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                merge_line *l = realloc(lines, cap * sizeof *l);
                if (!l) {
                    st = sim_fail(err, SIM_EINTERNAL, "out of memory");
                    break;
                }
                lines = l;
            }
            lines[n].point = point;
            if (!(lines[n++].text = strdup(buf)))
                st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        }
        if (!st && !jsonl && lr.lineno == 0) /* a CSV shard has its header even without rows */
            st = sim_fail(err, SIM_EINPUT,
                          "%s: empty, expected a CSV shard written by sweep --shard", argv[i]);
        sim_lines_close(&lr);
    }
    if (!st && files == 0)
        st = sim_fail(err, SIM_EINPUT,
                      "merge: expected shard files (infersim merge --out FILE "
                      "shard...)");
    if (!st && n == 0)
        st = sim_fail(err, SIM_EINPUT, "merge: the shards hold no rows, expected sweep output");
    if (!st) {
        qsort(lines, n, sizeof *lines, by_point);
        for (size_t i = 1; i < n && !st; i++)
            if (lines[i].point == lines[i - 1].point)
                st = sim_fail(err, SIM_EINPUT, "merge: point %lld appears in two shards",
                              lines[i].point);
    }
    sim_outfile o;
    FILE *f = out;
    dest = cli_opt_out_path(dest);
    if (!st && dest && !(st = sim_outfile_open(&o, dest, "--out", err)))
        f = o.f;
    if (!st) {
        if (header)
            fprintf(f, "%s\n", header);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s\n", lines[i].text);
        if (dest)
            st = sim_outfile_commit(&o, err);
    }
    for (size_t i = 0; i < n; i++)
        free(lines[i].text);
    free(lines);
    free(header);
    return st;
}
