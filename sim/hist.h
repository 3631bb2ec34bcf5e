/* hist.h - a distribution of non-negative integer samples (nanoseconds) kept as (value, count)
 * runs instead of one slot per sample: the serving engine's inter-token gaps, where every sequence
 * of an iteration sees the same gap, cost one run per iteration instead of one entry per token.
 *
 * Example:
 *   sim_hist h = {0};
 *   int ok = sim_hist_add(&h, 7000000, 250); // 250 gaps of 7 ms; 0 when out of memory
 *   ok = ok && sim_hist_add(&h, 9000000, 1);
 *   ok = ok && sim_hist_finish(&h); // canonical form: sorted, one run per value
 *   double p99 = ok ? sim_hist_percentile(&h, 99.0) : 0.0;
 *   sim_hist_free(&h);
 *
 * Statistics are a function of the multiset alone, never of the order samples were added in:
 *   - percentiles interpolate linearly between order statistics, as numpy.percentile's default:
 *     pos = p / 100 x (n - 1), k = floor(pos), result = x[k] + (pos - k) x (x[k+1] - x[k]),
 *     computed in double exactly as on a sorted array of the samples;
 *   - the mean is the exact integer sum S1 = sum c x (128 bits), rounded to double, over n;
 *   - the population standard deviation comes from the exact integer n S2 - S1^2 (256 bits;
 *     S2 = sum c x^2), which equals n^2 x variance: std = sqrt(double(n S2 - S1^2)) / n.
 * Memory is O(distinct values): when the buffer fills, the runs added since the last time are
 * radix-sorted and merged into the sorted ones (linear time), and it grows only if that left it
 * at least half full.
 */
#ifndef SIM_HIST_H
#define SIM_HIST_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_hist_run {
    int64_t value; /* >= 0 */
    int64_t count; /* >= 1 */
} sim_hist_run;

typedef struct sim_hist {
    sim_hist_run *runs; /* owned */
    size_t len, cap;
    size_t sorted; /* runs[0, sorted) are ascending and distinct */
    int64_t n;     /* samples */
} sim_hist;

/* Adds `count` samples of `value` (value >= 0; count <= 0 adds nothing). Returns 0 when out of
 * memory (the histogram is unchanged), 1 otherwise. */
int sim_hist_add(sim_hist *h, int64_t value, int64_t count);

/* Sorts and merges the runs: one per distinct value, ascending. Call before the queries. Returns
 * 0 when out of memory (the runs are then left as they were), 1 otherwise. */
int sim_hist_finish(sim_hist *h);

/* The linearly interpolated p-th percentile (0..100) of a finished, non-empty histogram. */
double sim_hist_percentile(const sim_hist *h, double p);

/* Mean and population standard deviation of a finished histogram (0 and 0 when empty). */
void sim_hist_moments(const sim_hist *h, double *mean, double *std);

/* Empties the histogram, keeping its buffer for reuse. */
void sim_hist_clear(sim_hist *h);

void sim_hist_free(sim_hist *h);

#endif
