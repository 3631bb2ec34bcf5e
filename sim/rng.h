/* rng.h - a small deterministic random number generator (xoshiro256**, seeded with splitmix64).
 *
 * The state lives in the value that uses it, so runs on different threads never share one, and
 * the same seed gives the same stream on every platform:
 *
 * Example (double shape, double scale):
 *   sim_rng r;
 *   sim_rng_seed(&r, 42);
 *   double gap_s = sim_rng_gamma(&r, shape, scale);
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdint.h>

typedef struct sim_rng {
    uint64_t s[4];
} sim_rng;

/* Seeds the generator; any 64-bit seed (0 included) gives a valid state. */
void sim_rng_seed(sim_rng *r, uint64_t seed);

/* Next 64 random bits. */
uint64_t sim_rng_next(sim_rng *r);

/* Uniform double in [0, 1) with 53 random bits. */
double sim_rng_uniform(sim_rng *r);

/* Uniform integer in [lo, hi] (lo <= hi). */
int64_t sim_rng_int(sim_rng *r, int64_t lo, int64_t hi);

/* Standard normal (Box-Muller). */
double sim_rng_normal(sim_rng *r);

/* Gamma(shape k > 0, scale theta > 0), mean k x theta (Marsaglia-Tsang; k < 1 by boosting). */
double sim_rng_gamma(sim_rng *r, double shape, double scale);

#endif
