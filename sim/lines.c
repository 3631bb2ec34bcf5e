/* lines.c - see lines.h. */
#define _POSIX_C_SOURCE 200809L
#include "lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

sim_status sim_lines_open(sim_lines *r, const char *path, sim_err *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    if (!(r->f = fopen(path, "r")))
        return sim_fail(err, SIM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(r->f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(r->f);
        r->f = NULL;
        return sim_fail(err, SIM_EINPUT, "%s: is a directory, expected a text file", path);
    }
    return SIM_OK;
}

static sim_status put(sim_lines *r, size_t n, char c, sim_err *err)
{
    if (n + 1 >= r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        if (cap > SIM_LINES_MAX_BYTES + 2)
            cap = SIM_LINES_MAX_BYTES + 2;
        char *b = realloc(r->buf, cap);
        if (!b)
            return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", r->path);
        r->buf = b;
        r->cap = cap;
    }
    r->buf[n] = c;
    return SIM_OK;
}

sim_status sim_lines_next(sim_lines *r, char **line, sim_err *err)
{
    *line = NULL;
    if (!r->f)
        return SIM_OK;
    size_t n = 0;
    int c = EOF;
    sim_status st = SIM_OK;
    while ((c = getc(r->f)) != EOF && c != '\n') {
        if (c == '\0')
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: a NUL byte at column %zu, expected a text file", r->path,
                            (long long)r->lineno + 1, n + 1);
        if (n >= SIM_LINES_MAX_BYTES)
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: line longer than %zu bytes (1 MiB), expected a text file "
                            "of shorter lines",
                            r->path, (long long)r->lineno + 1, SIM_LINES_MAX_BYTES);
        if ((st = put(r, n++, (char)c, err)))
            return st;
    }
    if (ferror(r->f))
        return sim_fail(err, SIM_EINPUT, "%s:%lld: read error: %s", r->path,
                        (long long)r->lineno + 1, strerror(errno));
    if (c == EOF && n == 0)
        return SIM_OK; /* the end */
    if ((st = put(r, n, '\0', err)))
        return st;
    if (n && r->buf[n - 1] == '\r')
        r->buf[--n] = '\0';
    r->lineno++;
    char *s = r->buf;
    if (r->lineno == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
        s += 3; /* a UTF-8 byte order mark */
    *line = s;
    return SIM_OK;
}

void sim_lines_close(sim_lines *r)
{
    if (r->f)
        fclose(r->f);
    free(r->buf);
    memset(r, 0, sizeof *r);
}
