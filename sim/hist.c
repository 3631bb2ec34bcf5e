/* hist.c - (value, count) runs with exact, order-independent statistics. */
#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

/* An unsigned 256-bit integer, least significant limb first: wide enough for n x S2 with
 * n < 2^64 samples of values < 2^63 (n S2 <= n^2 x^2 < 2^254). */
typedef struct u256 {
    uint64_t w[4];
} u256;

/* a += b x 2^(64 shift) for a 128-bit b. */
static void u256_add128(u256 *a, u128 b, int shift)
{
    u128 carry = 0;
    for (int i = shift; i < 4; i++) {
        u128 add = i == shift ? (uint64_t)b : i == shift + 1 ? (uint64_t)(b >> 64) : 0;
        u128 s = (u128)a->w[i] + add + carry;
        a->w[i] = (uint64_t)s;
        carry = s >> 64;
    }
}

/* a x b for a 256-bit a (the product must fit 256 bits). */
static u256 u256_mul64(const u256 *a, uint64_t b)
{
    u256 r = {{0}};
    for (int i = 0; i < 4; i++)
        u256_add128(&r, (u128)a->w[i] * b, i);
    return r;
}

static u256 u128_square(u128 a)
{
    uint64_t lo = (uint64_t)a, hi = (uint64_t)(a >> 64);
    u256 r = {{0}};
    u256_add128(&r, (u128)lo * lo, 0);
    u256_add128(&r, (u128)lo * hi, 1);
    u256_add128(&r, (u128)lo * hi, 1);
    u256_add128(&r, (u128)hi * hi, 2);
    return r;
}

/* a - b for a >= b. */
static u256 u256_sub(const u256 *a, const u256 *b)
{
    u256 r;
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t d = a->w[i] - b->w[i];
        uint64_t nb = (a->w[i] < b->w[i]) | (d < borrow);
        r.w[i] = d - borrow;
        borrow = nb;
    }
    return r;
}

/* Rounded to the nearest double: the top 64 bits, with any bit below them folded into the
 * lowest (a sticky bit, far below double's 53), converted once. */
static double u256_to_double(const u256 *a)
{
    int t = 3;
    while (t > 0 && a->w[t] == 0)
        t--;
    if (t == 0)
        return (double)a->w[0];
    int s = 0;
    while (!(a->w[t] >> (63 - s)))
        s++;
    uint64_t win = a->w[t] << s, rest = 0;
    if (s > 0) {
        win |= a->w[t - 1] >> (64 - s);
        rest = a->w[t - 1] << s;
    } else {
        rest = a->w[t - 1];
    }
    for (int i = t - 2; i >= 0; i--)
        rest |= a->w[i];
    win |= rest != 0;
    return ldexp((double)win, 64 * t - s); /* win holds bits 64t + 63 - s down to 64t - s */
}

/* Sorts runs by value (stable): least-significant-digit radix sort with one pass per byte that
 * differs between the values (gaps of up to ~4 s take at most 4 passes), linear in the runs where
 * a comparison sort cost half the simulation's time at low request rates. tmp has room for n. */
static void radix_sort(sim_hist_run *runs, size_t n, sim_hist_run *tmp)
{
    uint64_t differ = 0;
    for (size_t i = 1; i < n; i++)
        differ |= (uint64_t)runs[i].value ^ (uint64_t)runs[0].value;
    sim_hist_run *src = runs, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        if (!(differ >> shift & 255))
            continue; /* this byte is the same everywhere */
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(uint64_t)src[i].value >> shift & 255]++;
        size_t at = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(uint64_t)src[i].value >> shift & 255]++] = src[i];
        sim_hist_run *t = src;
        src = dst;
        dst = t;
    }
    if (src != runs)
        memcpy(runs, src, n * sizeof *runs);
}

/* Sorts the runs added since the last compaction and merges them into the sorted ones, equal
 * values into one run. Returns 0 when out of memory (runs unchanged). */
static int compact(sim_hist *h)
{
    if (h->sorted == h->len)
        return 1;
    sim_hist_run *tmp = malloc(h->len * sizeof *tmp);
    if (!tmp)
        return 0;
    const sim_hist_run *a = h->runs, *b = h->runs + h->sorted;
    size_t na = h->sorted, nb = h->len - h->sorted, i = 0, j = 0, m = 0;
    radix_sort(h->runs + h->sorted, nb, tmp);
    while (i < na || j < nb) {
        sim_hist_run r = j == nb || (i < na && a[i].value <= b[j].value) ? a[i++] : b[j++];
        if (m > 0 && tmp[m - 1].value == r.value)
            tmp[m - 1].count += r.count;
        else
            tmp[m++] = r;
    }
    memcpy(h->runs, tmp, m * sizeof *tmp);
    free(tmp);
    h->len = h->sorted = m;
    return 1;
}

int sim_hist_finish(sim_hist *h) { return compact(h); }

int sim_hist_add(sim_hist *h, int64_t value, int64_t count)
{
    if (count <= 0)
        return 1;
    if (h->len > 0 && h->runs[h->len - 1].value == value) {
        h->runs[h->len - 1].count += count;
        h->n += count;
        return 1;
    }
    if (h->len == h->cap) {
        if (!compact(h)) /* merging equal values may free room */
            return 0;
        if (2 * h->len >= h->cap) {
            size_t cap = h->cap ? 2 * h->cap : 64;
            sim_hist_run *r = realloc(h->runs, cap * sizeof *r);
            if (!r)
                return 0;
            h->runs = r;
            h->cap = cap;
        }
    }
    h->runs[h->len++] = (sim_hist_run){.value = value, .count = count};
    h->n += count;
    return 1;
}

double sim_hist_percentile(const sim_hist *h, double p)
{
    double pos = p / 100.0 * (double)(h->n - 1);
    int64_t k = (int64_t)floor(pos);
    double frac = pos - (double)k;
    int64_t below = 0; /* samples in the runs before i */
    size_t i = 0;
    while (i + 1 < h->len && below + h->runs[i].count <= k)
        below += h->runs[i++].count;
    double lo = (double)h->runs[i].value;
    if (!(frac > 0.0 && k + 1 < h->n))
        return lo;
    /* sample k + 1 is in run i too, or opens the next one */
    double hi = k + 1 < below + h->runs[i].count ? lo : (double)h->runs[i + 1].value;
    return lo + frac * (hi - lo);
}

void sim_hist_moments(const sim_hist *h, double *mean, double *std)
{
    *mean = *std = 0.0;
    if (h->n <= 0)
        return;
    u128 s1 = 0;
    u256 s2 = {{0}};
    for (size_t i = 0; i < h->len; i++) {
        u128 v = (uint64_t)h->runs[i].value, c = (uint64_t)h->runs[i].count;
        s1 += c * v;
        u128 v2 = v * v; /* < 2^126 */
        u256_add128(&s2, (uint64_t)v2 * c, 0);
        u256_add128(&s2, (uint64_t)(v2 >> 64) * c, 1);
    }
    const double n = (double)h->n;
    *mean = (double)s1 / n;
    u256 ns2 = u256_mul64(&s2, (uint64_t)h->n), s1sq = u128_square(s1);
    u256 d = u256_sub(&ns2, &s1sq); /* n^2 x variance, exactly */
    *std = sqrt(u256_to_double(&d)) / n;
}

void sim_hist_clear(sim_hist *h)
{
    h->len = h->sorted = 0;
    h->n = 0;
}

void sim_hist_free(sim_hist *h)
{
    free(h->runs);
    memset(h, 0, sizeof *h);
}
