/* rng.c - xoshiro256** and the distributions the workload needs. */
#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void sim_rng_seed(sim_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t sim_rng_next(sim_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double sim_rng_uniform(sim_rng *r) { return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53; }

int64_t sim_rng_int(sim_rng *r, int64_t lo, int64_t hi)
{
    /* the difference in unsigned arithmetic: hi - lo itself overflows int64_t past INT64_MAX */
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    if (span == 0) /* the whole 64-bit range */
        return (int64_t)sim_rng_next(r);
    /* rejection keeps it unbiased */
    uint64_t limit = UINT64_MAX - UINT64_MAX % span;
    uint64_t x;
    do
        x = sim_rng_next(r);
    while (x >= limit);
    return (int64_t)((uint64_t)lo + x % span); /* lo + (x % span), which may pass INT64_MAX - lo */
}

double sim_rng_normal(sim_rng *r)
{
    double u1 = 1.0 - sim_rng_uniform(r); /* (0, 1]: log is finite */
    double u2 = sim_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double sim_rng_gamma(sim_rng *r, double shape, double scale)
{
    if (shape < 1.0) {
        /* G(k) = G(k + 1) x U^(1/k) */
        double u = 1.0 - sim_rng_uniform(r);
        return sim_rng_gamma(r, shape + 1.0, scale) * pow(u, 1.0 / shape);
    }
    double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = sim_rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        double u = 1.0 - sim_rng_uniform(r);
        if (u < 1.0 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
            return d * v * scale;
    }
}
