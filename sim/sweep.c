/* sweep.c - grid expansion, sharding and the OpenMP point loop. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "sweep.h"

#include <stddef.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

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

sim_status sim_sweep_check_points(const sim_grid *g, size_t points, size_t shards, sim_err *err)
{
    if (points <= SIM_SWEEP_MAX_POINTS)
        return SIM_OK;
    char product[512] = "";
    size_t len = 0;
    for (size_t d = 0; d < g->n_dims && len < sizeof product; d++) {
        if (g->dims[d].n < 2)
            continue; /* one value: a factor of 1 */
        int w = snprintf(product + len, sizeof product - len, "%s%s %zu", len ? " x " : "",
                         g->dims[d].name, g->dims[d].n);
        len += w > 0 ? (size_t)w : 0;
    }
    size_t total = sim_grid_points(g);
    size_t need = (total + SIM_SWEEP_MAX_POINTS - 1) / SIM_SWEEP_MAX_POINTS;
    if (total == SIZE_MAX)
        return sim_fail(err, SIM_EINPUT,
                        "sweep: %s is more points than a number holds, above the %zu points a "
                        "sweep holds in memory (about 2 KB each); expected a smaller grid",
                        product, (size_t)SIM_SWEEP_MAX_POINTS);
    return sim_fail(err, SIM_EINPUT,
                    "sweep: %s = %zu points, %zu in this shard (of %zu), above the %zu points a "
                    "sweep holds in memory (about 2 KB each); split the grid with --shard I/N, "
                    "N >= %zu, and join the shards with infersim merge",
                    product, total, points, shards, (size_t)SIM_SWEEP_MAX_POINTS, need);
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

sim_status sim_shard_parse(const char *s, sim_shard *out, sim_err *err)
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

size_t sim_shard_points(const sim_shard *s, size_t total)
{
    return total > s->index ? (total - s->index + s->count - 1) / s->count : 0;
}

size_t sim_shard_point(const sim_shard *s, size_t k) { return s->index + k * s->count; }

int sim_sweep_max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "[=======>     ] 120/400 points, 35.2/s, ETA 8 s" redrawn in place. */
static void draw_progress(FILE *f, size_t done, size_t total, double t0, double *last)
{
    double t = now_s();
    if (done < total && t - *last < 0.1)
        return;
    *last = t;
    int width = 30, fill = total ? (int)((double)done / (double)total * width) : width;
    double rate = t > t0 ? (double)done / (t - t0) : 0.0;
    double eta = rate > 0 ? (double)(total - done) / rate : 0.0;
    fprintf(f, "\r[%.*s%s%*s] %zu/%zu points, %.1f/s, ETA %.0f s ", fill,
            "==============================", fill < width ? ">" : "",
            width - fill - (fill < width), "", done, total, rate, eta);
    if (done == total)
        fputc('\n', f);
    fflush(f);
}

sim_status sim_sweep_run(const sim_grid *g, const sim_shard *shard, int threads,
                         sim_sweep_eval eval, void *ctx, FILE *progress, sim_sweep_row **rows,
                         size_t *n_rows, sim_err *err)
{
    size_t n = sim_shard_points(shard, sim_grid_points(g));
    *rows = calloc(n ? n : 1, sizeof **rows);
    *n_rows = n;
    if (!*rows)
        return sim_fail(err, SIM_EINTERNAL, "out of memory for %zu rows", n);
    size_t done = 0;
    double t0 = now_s(), last = 0.0;
    (void)threads; /* read by the pragma; unused in a build without OpenMP */
    long long nn = (long long)n;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (long long k = 0; k < nn; k++) {
        sim_sweep_row *r = &(*rows)[k];
        r->point = sim_shard_point(shard, (size_t)k);
#ifdef _OPENMP
        r->thread = omp_get_thread_num();
#endif
        eval(ctx, r->point, r);
        if (progress) {
            /* unnamed: a named critical is a global symbol (.gomp_critical_user_NAME) that a
             * shared library exports whatever its visibility (tests/exports-check) */
#pragma omp critical
            draw_progress(progress, ++done, n, t0, &last);
        }
    }
    for (size_t k = 0; k < n; k++)
        if (!(*rows)[k].text)
            return sim_fail(err, SIM_EINTERNAL, "out of memory formatting point %zu",
                            (*rows)[k].point);
    return SIM_OK;
}

void sim_sweep_rows_free(sim_sweep_row *rows, size_t n)
{
    if (!rows)
        return;
    for (size_t i = 0; i < n; i++) {
        free(rows[i].text);
        free(rows[i].draws);
    }
    free(rows);
}

typedef struct frontier_key {
    double tpot, tput;
    size_t point, row;
} frontier_key;

static int by_tpot(const void *a, const void *b)
{
    const frontier_key *x = a, *y = b;
    if (x->tpot != y->tpot)
        return x->tpot < y->tpot ? -1 : 1;
    if (x->tput != y->tput)
        return x->tput > y->tput ? -1 : 1;
    return x->point < y->point ? -1 : x->point > y->point;
}

size_t sim_sweep_pareto(const sim_sweep_row *rows, size_t n, bool *on_frontier, size_t *order)
{
    frontier_key *keys = malloc((n ? n : 1) * sizeof *keys);
    size_t m = 0;
    if (!keys)
        return 0;
    for (size_t i = 0; i < n; i++) {
        on_frontier[i] = false;
        if (rows[i].ok)
            keys[m++] = (frontier_key){rows[i].tpot_ms, rows[i].tput_per_gpu, rows[i].point, i};
    }
    /* by TPOT, then highest throughput: a point is on the frontier when no point with a TPOT as
     * low has as much throughput */
    qsort(keys, m, sizeof *keys, by_tpot);
    double best = -1.0;
    size_t count = 0;
    for (size_t k = 0; k < m; k++) {
        if (keys[k].tput > best) {
            on_frontier[keys[k].row] = true;
            if (order)
                order[count] = keys[k].row;
            best = keys[k].tput;
            count++;
        }
    }
    free(keys);
    return count;
}

/* The ok row (meeting the SLO when need_slo) with the lowest positive value of the double at
 * `offset` in sim_sweep_row (0: unknown), the first in grid order on a tie, or n. */
static size_t least_known(const sim_sweep_row *rows, size_t n, bool need_slo, size_t offset,
                          size_t except)
{
#define AT(i) (*(const double *)((const char *)&rows[i] + offset))
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        if (i != except && rows[i].ok && (!need_slo || rows[i].meets_slo) && AT(i) > 0.0 &&
            (best == n || AT(i) < AT(best)))
            best = i;
    return best;
#undef AT
}

size_t sim_sweep_cheapest(const sim_sweep_row *rows, size_t n, bool need_slo)
{
    return least_known(rows, n, need_slo, offsetof(sim_sweep_row, usd_per_million_output_tokens),
                       n);
}

size_t sim_sweep_least_energy(const sim_sweep_row *rows, size_t n, bool need_slo)
{
    return least_known(rows, n, need_slo, offsetof(sim_sweep_row, joules_per_output_token), n);
}

size_t sim_sweep_runner_up_energy(const sim_sweep_row *rows, size_t n, size_t winner,
                                  bool need_slo)
{
    return least_known(rows, n, need_slo, offsetof(sim_sweep_row, joules_per_output_token),
                       winner);
}

size_t sim_sweep_best(const sim_sweep_row *rows, size_t n)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        if (rows[i].ok && rows[i].meets_slo &&
            (best == n || rows[i].tput_per_gpu > rows[best].tput_per_gpu))
            best = i;
    return best;
}

size_t sim_sweep_runner_up(const sim_sweep_row *rows, size_t n, size_t winner, bool cheapest,
                           bool need_slo)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++) {
        if (i == winner || !rows[i].ok)
            continue;
        if (cheapest ? (need_slo && !rows[i].meets_slo) || !(rows[i].usd_per_million_output_tokens > 0.0)
                     : !rows[i].meets_slo)
            continue;
        if (best == n ||
            (cheapest ? rows[i].usd_per_million_output_tokens <
                            rows[best].usd_per_million_output_tokens
                      : rows[i].tput_per_gpu > rows[best].tput_per_gpu))
            best = i;
    }
    return best;
}
