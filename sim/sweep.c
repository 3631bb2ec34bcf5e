/* sweep.c - a grid's points (grid.h) run in an OpenMP loop, its rows, their frontier and best. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "sweep.h"

#include <stddef.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

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

sim_status sim_sweep_run(const sim_grid *g, const sim_grid_shard *shard, int threads,
                         sim_sweep_eval eval, void *ctx, FILE *progress, sim_sweep_row **rows,
                         size_t *n_rows, sim_err *err)
{
    size_t n = sim_grid_shard_points(shard, sim_grid_points(g));
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
        r->point = sim_grid_shard_point(shard, (size_t)k);
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
