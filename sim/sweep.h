/* sweep.h - a parameter grid's points (grid.h) run in parallel with OpenMP, rows collected in
 * grid order. Knows nothing of what a point computes or how its row is formatted.
 *
 * Example (const sim_grid_shard *shard, int threads, sim_sweep_eval eval, void *ctx, sim_err *err):
 *   sim_grid g = {0};
 *   sim_sweep_row *rows;
 *   size_t n;
 *   sim_status st = sim_grid_add(&g, "--tp", "1,2,4,8", err);
 *   if (!st)
 *       st = sim_grid_add(&g, "--request-rate", "1,4,inf", err); // 12 points, the last fastest
 *   if (!st)
 *       st = sim_sweep_run(&g, shard, threads, eval, ctx, NULL, &rows, &n, err);
 *   if (!st) {
 *       ... rows[k] for the k-th point of the shard, in grid order ...
 *       sim_sweep_rows_free(rows, n);
 *   }
 *   sim_grid_free(&g);
 *   return st;
 *
 * Every point is independent (eval must not share mutable state), so the rows, and any output
 * written from them in order, are identical for every thread count and every shard split.
 */
#ifndef SIM_SWEEP_H
#define SIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grid.h"
#include "status.h"

/* The most points one sweep evaluates (its shard's share of the grid): each keeps its options
 * and its row until the rows are written in grid order, about 2 KB a point, so 2^21 = 2,097,152
 * points take about 4 GB. A larger shard is exit 2 naming the grid's product and the --shard
 * that splits it (sim_sweep_check_points), never an out-of-memory failure. */
#define SIM_SWEEP_MAX_POINTS ((size_t)1 << 21)

/* SIM_EINPUT when `points` (this shard's) exceed SIM_SWEEP_MAX_POINTS: the message names each
 * dimension's size ("--batch 4096 x --tp 4 x --input-len 200 = 3276800 points") and the number
 * of shards that brings each under the cap. */
sim_status sim_sweep_check_points(const sim_grid *g, size_t points, size_t shards, sim_err *err);

/* One evaluated point. */
typedef struct sim_sweep_row {
    size_t point; /* grid index */
    char *text;   /* formatted row, owned (malloc) */
    bool ok;      /* evaluated without error */
    bool meets_slo;
    double tput_per_gpu; /* output tokens/s per GPU */
    double tpot_ms;      /* at the SLO percentile */
    double ttft_ms;      /* at the SLO percentile */
    double usd_per_million_output_tokens; /* 0 = price unknown */
    double joules_per_output_token;       /* the power estimate (power.h); 0 = power unknown */
    /* --uncertainty: the objective (cost per million output tokens, or output tokens/s per
     * GPU) under each parameter draw, the same draws at every point (owned; NULL: none) */
    double *draws;
    int n_draws;
    bool hw_default_only; /* its device has no fitted or inherited efficiency (hw.h): the
                           * summary, the rows' hw_efficiency column and the chart mark it */
    int thread; /* set by sim_sweep_run before eval: the thread evaluating it, 0 .. threads - 1
                 * (for scratch state of the thread's own; never in the results) */
} sim_sweep_row;

/* Evaluates point `point` into *row (text malloc'd). Runs on any thread. */
typedef void (*sim_sweep_eval)(void *ctx, size_t point, sim_sweep_row *row);

/* Runs the shard's points on `threads` threads (dynamic schedule) and returns their rows in grid
 * order (*rows owned by the caller: free with sim_sweep_rows_free). progress: a terminal to draw a
 * progress bar on, or NULL. */
sim_status sim_sweep_run(const sim_grid *g, const sim_grid_shard *shard, int threads,
                         sim_sweep_eval eval, void *ctx, FILE *progress, sim_sweep_row **rows,
                         size_t *n_rows, sim_err *err);

void sim_sweep_rows_free(sim_sweep_row *rows, size_t n);

/* Marks on_frontier[i]: the Pareto frontier of throughput per GPU (higher is better) against
 * TPOT (lower is better) among the ok rows. Returns how many are on it; when `order` is not NULL
 * (room for n) it receives their row indices as the frontier runs, from the lowest TPOT up. */
size_t sim_sweep_pareto(const sim_sweep_row *rows, size_t n, bool *on_frontier, size_t *order);

/* Index of the ok row meeting the SLO with the highest throughput per GPU, or n if none. */
size_t sim_sweep_best(const sim_sweep_row *rows, size_t n);

/* Index of the ok row with a known price and the lowest cost per output token (among those
 * meeting the SLO when `need_slo`), the first in grid order on a tie, or n if none. */
size_t sim_sweep_cheapest(const sim_sweep_row *rows, size_t n, bool need_slo);

/* The same for the least energy per output token (rows with a known power). */
size_t sim_sweep_least_energy(const sim_sweep_row *rows, size_t n, bool need_slo);

/* The row that comes second by sim_sweep_least_energy's rule (winner left out), or n. */
size_t sim_sweep_runner_up_energy(const sim_sweep_row *rows, size_t n, size_t winner,
                                  bool need_slo);
/* The ok row that comes second by the same rule as `winner` (sim_sweep_cheapest when `cheapest`,
 * else sim_sweep_best), or n if none. */
size_t sim_sweep_runner_up(const sim_sweep_row *rows, size_t n, size_t winner, bool cheapest,
                           bool need_slo);

/* The default thread count: every core OpenMP sees (1 without OpenMP). */
int sim_sweep_max_threads(void);

#endif
