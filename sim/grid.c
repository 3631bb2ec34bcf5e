/* grid.c - a parameter grid (dimensions of flag values, its points in mixed radix) and its
 * shards (every N-th point). */
#include "grid.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

sim_status sim_grid_add_values(sim_grid *g, const char *name, const char *const *values, size_t n,
                               sim_err *err)
{
    if (n == 0)
        return sim_fail(err, SIM_EINPUT, "%s: no values", name);
    if (strlen(name) >= sizeof g->dims->name)
        return sim_fail(err, SIM_EINPUT, "%.64s...: flag name longer than %zu characters", name,
                        sizeof g->dims->name - 1);
    for (size_t d = 0; d < g->n_dims; d++)
        if (strcmp(g->dims[d].name, name) == 0)
            return sim_fail(err, SIM_EINPUT,
                            "%s: given twice, expected once (a flag is swept once: list all its "
                            "values in one place)",
                            name);
    sim_grid_dim *dims = realloc(g->dims, (g->n_dims + 1) * sizeof *dims);
    if (!dims)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    g->dims = dims;
    sim_grid_dim *d = &g->dims[g->n_dims];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", name);
    d->values = calloc(n, sizeof *d->values);
    if (!d->values)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    g->n_dims++;
    for (size_t i = 0; i < n; i++) {
        if (!(d->values[i] = dup_n(values[i], strlen(values[i]))))
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        d->n++;
    }
    return SIM_OK;
}

sim_status sim_grid_add(sim_grid *g, const char *name, const char *csv, sim_err *err)
{
    size_t n = 1;
    for (const char *p = csv; *p; p++)
        n += *p == ',';
    char **vals = calloc(n, sizeof *vals);
    if (!vals)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_status st = SIM_OK;
    const char *p = csv;
    for (size_t i = 0; i < n && !st; i++) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            st = sim_fail(err, SIM_EINPUT, "%s: empty item in the list '%s'", name, csv);
        else if (!(vals[i] = dup_n(p, len)))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        p += len + (p[len] == ',');
    }
    if (!st)
        st = sim_grid_add_values(g, name, (const char *const *)vals, n, err);
    for (size_t i = 0; i < n; i++)
        free(vals[i]);
    free(vals);
    return st;
}

size_t sim_grid_points(const sim_grid *g)
{
    size_t n = 1;
    for (size_t d = 0; d < g->n_dims; d++) /* saturates: a product past SIZE_MAX is refused */
        n = g->dims[d].n && n > SIZE_MAX / g->dims[d].n ? SIZE_MAX : n * g->dims[d].n;
    return n;
}

void sim_grid_point(const sim_grid *g, size_t index, const char **out)
{
    for (size_t d = g->n_dims; d-- > 0;) {
        out[d] = g->dims[d].values[index % g->dims[d].n];
        index /= g->dims[d].n;
    }
}

void sim_grid_label(const sim_grid *g, size_t index, char *buf, size_t len)
{
    const char **vals = malloc((g->n_dims ? g->n_dims : 1) * sizeof *vals);
    size_t n = 0;
    buf[0] = '\0';
    if (!vals)
        return;
    sim_grid_point(g, index, vals);
    for (size_t d = 0; d < g->n_dims && n + 1 < len; d++)
        if (g->dims[d].n > 1)
            n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? " " : "", g->dims[d].name,
                                  vals[d]);
    free(vals);
}

void sim_grid_free(sim_grid *g)
{
    for (size_t d = 0; d < g->n_dims; d++) {
        for (size_t i = 0; i < g->dims[d].n; i++)
            free(g->dims[d].values[i]);
        free(g->dims[d].values);
    }
    free(g->dims);
    g->dims = NULL;
    g->n_dims = 0;
}

sim_status sim_grid_shard_parse(const char *s, sim_grid_shard *out, sim_err *err)
{
    char *end;
    errno = 0;
    long long i = strtoll(s, &end, 10), n = -1;
    if (!errno && end != s && *end == '/') {
        const char *p = end + 1;
        n = strtoll(p, &end, 10);
        if (errno || end == p || *end)
            n = -1;
    }
    if (n < 1 || i < 0 || i >= n)
        return sim_fail(err, SIM_EINPUT,
                        "--shard: value '%s', expected I/N with 0 <= I < N (e.g. "
                        "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)",
                        s);
    out->index = (size_t)i;
    out->count = (size_t)n;
    return SIM_OK;
}

size_t sim_grid_shard_points(const sim_grid_shard *s, size_t total)
{
    return total > s->index ? (total - s->index + s->count - 1) / s->count : 0;
}

size_t sim_grid_shard_point(const sim_grid_shard *s, size_t k) { return s->index + k * s->count; }
