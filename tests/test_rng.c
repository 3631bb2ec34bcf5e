/* test_rng.c - the seeded generator against values worked out by hand: splitmix64's seeding,
 * one xoshiro256** step from a small state, the uniform, integer and normal draws it makes, and
 * the gamma draw's mean over many samples. */
#include "testutil.h"

#include "rng.h"

static void test_seed_is_splitmix64(void **state)
{
    (void)state;
    /* splitmix64 from x = 0 (Vigna's splitmix64.c, prng.di.unimi.it): x += 0x9e3779b97f4a7c15,
     * then z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9, z = (z ^ z >> 27) * 0x94d049bb133111eb,
     * z ^ z >> 31; its first four outputs are the published test vector below */
    sim_rng r;
    sim_rng_seed(&r, 0);
    assert_true(r.s[0] == 0xe220a8397b1dcdafULL);
    assert_true(r.s[1] == 0x6e789e6aa1b965f4ULL);
    assert_true(r.s[2] == 0x06c45d188009454fULL);
    assert_true(r.s[3] == 0xf88bb8a8724c81ecULL);
    /* the same seed, the same stream; another seed, another */
    sim_rng a, b, c;
    sim_rng_seed(&a, 42);
    sim_rng_seed(&b, 42);
    sim_rng_seed(&c, 43);
    uint64_t xa = sim_rng_next(&a), xc = sim_rng_next(&c);
    assert_true(xa == sim_rng_next(&b));
    assert_true(xa != xc);
}

static void test_one_step_by_hand(void **state)
{
    (void)state;
    /* state {1, 2, 3, 4}: the output is rotl(s1 x 5, 7) x 9 = (10 << 7) x 9 = 1280 x 9 = 11520;
     * then t = s1 << 17 = 262144; s2 ^= s0: 3 ^ 1 = 2; s3 ^= s1: 4 ^ 2 = 6; s1 ^= s2: 2 ^ 2 = 0;
     * s0 ^= s3: 1 ^ 6 = 7; s2 ^= t: 2 + 262144 = 262146; s3 = rotl(6, 45) = 6 x 2^45 =
     * 211106232532992. The next output reads s1 = 0: rotl(0, 7) x 9 = 0. */
    sim_rng r = {{1, 2, 3, 4}};
    assert_true(sim_rng_next(&r) == 11520);
    assert_true(r.s[0] == 7);
    assert_true(r.s[1] == 0);
    assert_true(r.s[2] == 262146);
    assert_true(r.s[3] == 211106232532992ULL);
    assert_true(sim_rng_next(&r) == 0);
}

static void test_draws_by_hand(void **state)
{
    (void)state;
    /* uniform: the output's top 53 bits over 2^53: 11520 >> 11 = 5 -> 5 x 2^-53; then 0 -> 0 */
    sim_rng r = {{1, 2, 3, 4}};
    assert_true(sim_rng_uniform(&r) == 5.0 * 0x1.0p-53);
    assert_true(sim_rng_uniform(&r) == 0.0);
    /* int in [0, 6]: span 7, 11520 is far below the rejection limit, 11520 mod 7 = 11520 - 7 x
     * 1645 = 5; in [100, 109]: 100 + 11520 mod 10 = 100 */
    r = (sim_rng){{1, 2, 3, 4}};
    assert_int_equal(sim_rng_int(&r, 0, 6), 5);
    r = (sim_rng){{1, 2, 3, 4}};
    assert_int_equal(sim_rng_int(&r, 100, 109), 100);
    /* the whole 64-bit range (span wraps to 0): the output itself */
    r = (sim_rng){{1, 2, 3, 4}};
    assert_int_equal(sim_rng_int(&r, INT64_MIN, INT64_MAX), 11520);
    /* lo == hi: always lo */
    r = (sim_rng){{1, 2, 3, 4}};
    assert_int_equal(sim_rng_int(&r, -3, -3), -3);
    /* normal (Box-Muller): u1 = 1 - 5 x 2^-53, u2 = 0: sqrt(-2 ln u1) x cos(0); -ln(1 - e) = e to
     * first order, so sqrt(2 x 5 x 2^-53) = sqrt(1.1102230246251565e-15) = 3.3320e-8 */
    r = (sim_rng){{1, 2, 3, 4}};
    assert_near(sim_rng_normal(&r), sqrt(10.0 * 0x1.0p-53), 1e-6);
}

static void test_gamma_mean(void **state)
{
    (void)state;
    /* Gamma(k, theta) has mean k x theta and variance k x theta^2: over n = 200000 draws the
     * mean's standard error is sqrt(k / n) x theta; Gamma(2, 3): sqrt(1e-5) x 3 = 0.0095 on a mean
     * of 6 (0.16 %), so 1 % is over 6 standard errors. Gamma(0.5, 2) takes the boost for k < 1:
     * mean 1, standard error sqrt(0.5 / 200000) x 2 = 0.0032, 2 % is over 6 of them. */
    sim_rng r;
    sim_rng_seed(&r, 7);
    double sum = 0.0, low = 0.0;
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        double g = sim_rng_gamma(&r, 2.0, 3.0), h = sim_rng_gamma(&r, 0.5, 2.0);
        assert_true(g > 0.0 && isfinite(g));
        assert_true(h >= 0.0 && isfinite(h));
        sum += g;
        low += h;
    }
    assert_near(sum / n, 6.0, 0.01);
    assert_near(low / n, 1.0, 0.02);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_is_splitmix64),
        cmocka_unit_test(test_one_step_by_hand),
        cmocka_unit_test(test_draws_by_hand),
        cmocka_unit_test(test_gamma_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
