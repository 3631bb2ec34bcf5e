/* test_unc.c - the uncertainty bands (unc.h): the draws' arithmetic by hand, the table's checks,
 * and the bands end to end through the command line (cliutil.h): a default-only device is less
 * certain than a fitted one, a load near capacity less certain than a light one, identical sweep
 * points identical, a point against itself a coin toss. */
#include "cliutil.h"

#include <cjson/cJSON.h>
#include <math.h>

#include "capacity.h"
#include "unc.h"

typedef struct result {
    int rc;
    char out[1 << 17];
    char err[1 << 16];
} result;

static result R;

static void runf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void runf(const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && n < (int)sizeof args);
    R.rc = tu_cli(args, R.out, sizeof R.out, R.err, sizeof R.err);
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(it)) {
        print_error("key '%s' missing or not a number\n", k);
        fail();
    }
    return it->valuedouble;
}

/* A table of every family at sigma s (fitted), 2s (inherited), 4s (default), engine e. */
static void flat_table(sim_unc_table *t, double s, double e)
{
    memset(t, 0, sizeof *t);
    for (int f = 0; f < SIM_UNC_ENGINE; f++)
        for (int p = 0; p < SIM_UNC_PROV_COUNT; p++)
            assert_true(sim_unc_set(t, (sim_unc_family)f, "*", (sim_unc_prov)p,
                                    s * (double)(1 << p), 1));
    assert_true(sim_unc_set(t, SIM_UNC_ENGINE, "*", SIM_UNC_DEFAULT, e, 1));
    assert_true(sim_unc_set(t, SIM_UNC_POWER, "*", SIM_UNC_DEFAULT, e, 1));
}

static void test_percentile_and_band(void **state)
{
    (void)state;
    /* numpy.percentile([1..5], 10): position 0.1 x 4 = 0.4 -> 1 + 0.4 x (2 - 1) = 1.4 */
    double v[] = {5, 3, 1, 4, 2};
    assert_float_equal(sim_unc_percentile(v, 5, 10.0), 1.4, 1e-12);
    assert_float_equal(sim_unc_percentile(v, 5, 90.0), 4.6, 1e-12);
    /* log-normal band of {e^-1, e^1}: logs -1 and 1, mean 0, sd sqrt(((-1)^2 + 1^2) / 1) =
     * 1.414214; 10th and 90th percentiles exp(-/+ 1.281552 x 1.414214) = exp(-/+ 1.812388):
     * 0.163264 and 6.125054 */
    double w[] = {exp(-1.0), exp(1.0)}, lo, hi;
    sim_unc_band_of(w, 2, &lo, &hi);
    assert_float_equal(lo, 0.163264, 1e-6);
    assert_float_equal(hi, 6.125054, 1e-6);
    /* a zero value: the draws' own percentiles (0, 10 -> 1 and 9) */
    double z[] = {0.0, 10.0};
    sim_unc_band_of(z, 2, &lo, &hi);
    assert_float_equal(lo, 1.0, 1e-12);
    assert_float_equal(hi, 9.0, 1e-12);
    sim_unc_band b = {0};
    double x[] = {2.0, 2.0, 2.0};
    assert_true(sim_unc_band_add(&b, "tpot_ms", x, 3));
    assert_non_null(sim_unc_band_get(&b, "tpot_ms", &hi));
    assert_float_equal(hi, 2.0, 1e-12); /* no spread: no band */
    assert_null(sim_unc_band_get(&b, "ttft_ms", NULL));
}

static void test_beat_probability(void **state)
{
    (void)state;
    const double a[] = {1.0, 2.0, 3.0, 4.0}, b[] = {2.0, 1.0, 4.0, 4.0};
    /* a point against itself: every draw a tie, one half each */
    assert_float_equal(sim_unc_beat_prob(a, a, 4, true), 0.5, 1e-12);
    assert_float_equal(sim_unc_beat_prob(a, a, 4, false), 0.5, 1e-12);
    /* lower is better: a wins draws 0 and 2, loses 1, ties 3: (1 + 0 + 1 + 0.5) / 4 */
    assert_float_equal(sim_unc_beat_prob(a, b, 4, true), 0.625, 1e-12);
    assert_float_equal(sim_unc_beat_prob(a, b, 4, false), 0.375, 1e-12);
    assert_float_equal(sim_unc_beat_prob(a, b, 0, true), 0.5, 1e-12);
}

/* The tie test by hand: the 80 % band of the paired ratio holding 1. */
static void test_tie(void **state)
{
    (void)state;
    const double a[] = {1.0, 2.0, 3.0, 4.0}, twice[] = {2.0, 4.0, 6.0, 8.0};
    assert_true(sim_unc_tie(a, a, 4));      /* every ratio 1: a tie */
    assert_false(sim_unc_tie(a, twice, 4)); /* every ratio 1/2: the band is [0.5, 0.5] */
    assert_false(sim_unc_tie(a, a, 0));
    /* ratios 0.9, 1.1, 0.9, 1.1: log-normal band exp(0 -+ 1.2816 x 0.1155) = [0.862, 1.16] */
    const double b[] = {1.0, 2.0, 3.0, 4.0}, c[] = {1.0 / 0.9, 2.0 / 1.1, 3.0 / 0.9, 4.0 / 1.1};
    assert_true(sim_unc_tie(b, c, 4));
    /* a plan's draw that misses its SLO is infinite: two that both miss tie there (ratio 1), one
     * that serves against one that misses wins it (ratio 0) */
    const double inf = INFINITY, all[] = {inf, inf, inf, inf}, half[] = {1.0, inf, 1.0, inf};
    assert_true(sim_unc_tie(all, all, 4));
    assert_float_equal(sim_unc_beat_prob(all, all, 4, true), 0.5, 1e-12);
    assert_false(sim_unc_tie(a, all, 4)); /* ratios 0, 0, 0, 0 */
    assert_float_equal(sim_unc_beat_prob(a, all, 4, true), 1.0, 1e-12);
    /* ratios 1, 0, 1, 0: the draws' own 10th and 90th percentiles, 0 and 1: holds 1 */
    const double ones[] = {1.0, 1.0, 1.0, 1.0};
    assert_true(sim_unc_tie(ones, half, 4));
    assert_float_equal(sim_unc_beat_prob(ones, half, 4, true), 0.75, 1e-12);
    assert_float_equal(sim_unc_beat_prob(half, all, 4, true), 0.75, 1e-12);
    sim_strbuf t = {0};
    sim_unc_decision_text(0.5, true, 6, "point 3", &t);
    assert_string_equal(t.s, "a tie with point 3: the 80 % band of their ratio holds 1; the "
                             "winner is ahead in 50% of 6 parameter draws");
    sim_strbuf_free(&t);
    sim_unc_decision_text(0.9, false, 10, "point 1", &t);
    assert_string_equal(t.s, "beats the runner-up, point 1, in 90% of 10 parameter draws");
    sim_strbuf_free(&t);
}

static void test_apply_and_draws(void **state)
{
    (void)state;
    sim_hw hw;
    sim_err err;
    char path[512];
    tu_snprintf(path, sizeof path, "%s/tests/data/h100-fixture.json", tu_root());
    assert_int_equal(sim_hw_load(path, &hw, &err), SIM_OK);
    sim_unc_draw d = {0};
    for (int f = 0; f < SIM_UNC_FAMILY_COUNT; f++)
        d.factor[f] = 1.0;
    d.factor[SIM_UNC_MEMORY] = 1.25;
    d.factor[SIM_UNC_GEMM16] = 0.5;
    d.factor[SIM_UNC_LAUNCH] = 2.0;
    sim_hw o;
    sim_unc_apply_hw(&hw, &d, &o);
    /* an efficiency divided by its time factor: memory / 1.25; bf16 GEMM 0.8 / 0.5 = 1.6 is
     * capped at the peak, 1; a launch multiplied: 4 us x 2 */
    assert_float_equal(o.eff_memory, hw.eff_memory / 1.25, 1e-12);
    assert_float_equal(o.eff_gemm[SIM_DT_BF16], 1.0, 1e-12);
    assert_float_equal(o.eff_gemm[SIM_DT_FP8], hw.eff_gemm[SIM_DT_FP8], 1e-12);
    assert_float_equal(o.launch_ns, 8000.0, 1e-9);
    /* the engine factor: every kernel efficiency and the CPU overheads together */
    d.factor[SIM_UNC_ENGINE] = 1.1;
    sim_step_cfg c = {.hw = &hw, .iteration_overhead_ns = 1000.0}, m;
    m = sim_unc_apply(&c, &d, &o);
    assert_ptr_equal(m.hw, &o);
    assert_float_equal(m.iteration_overhead_ns, 1100.0, 1e-9);
    assert_float_equal(o.eff_attention, hw.eff_attention, 1e-12);
    assert_float_equal(o.hbm_bytes_per_s, hw.hbm_bytes_per_s / 1.1, 1e-3);
    assert_float_equal(o.peak_flops[SIM_DT_BF16], hw.peak_flops[SIM_DT_BF16] / 1.1, 1.0);
    assert_float_equal(o.launch_ns, 8000.0 * 1.1, 1e-9);
    /* draws: deterministic, antithetic in pairs, and a zero sigma moves nothing */
    sim_unc_table t;
    flat_table(&t, 0.1, 0.2);
    sim_unc_draw d0, d1, again;
    sim_unc_draw_make(&t, &hw, "vllm", 0, 0, &d0);
    sim_unc_draw_make(&t, &hw, "vllm", 0, 1, &d1);
    sim_unc_draw_make(&t, &hw, "vllm", 0, 0, &again);
    for (int f = 0; f < SIM_UNC_FAMILY_COUNT; f++) {
        assert_float_equal(d0.factor[f], again.factor[f], 0.0);
        assert_float_equal(log(d0.factor[f]), -log(d1.factor[f]), 1e-12);
    }
    assert_true(fabs(log(d0.factor[SIM_UNC_MEMORY])) > 0.0);
    flat_table(&t, 0.0, 0.0);
    sim_unc_draw_make(&t, &hw, "vllm", 0, 5, &d0);
    for (int f = 0; f < SIM_UNC_FAMILY_COUNT; f++)
        assert_float_equal(d0.factor[f], 1.0, 0.0);
    /* the fixture gives its efficiencies: fitted; fp4's is copied from its bf16: inherited */
    assert_int_equal(sim_unc_provenance(&hw, SIM_UNC_GEMM16), SIM_UNC_FITTED);
    assert_int_equal(sim_unc_provenance(&hw, SIM_UNC_GEMM4), SIM_UNC_INHERITED);
    assert_string_equal(sim_unc_device_family(&hw), "hopper");
    char scope[64];
    sim_unc_engine_scope("vllm", NULL, scope, sizeof scope);
    assert_string_equal(scope, "vllm");
}

static void test_stratified_draws(void **state)
{
    (void)state;
    /* the normal's quantiles (tables): Phi^-1(0.975) = 1.959964, Phi^-1(0.1) = -1.281552,
     * Phi^-1(0.5) = 0, Phi^-1(0.01) = -2.326348 (a tail of Acklam's approximation) */
    assert_float_equal(sim_unc_normal_quantile(0.975), 1.959964, 1e-6);
    assert_float_equal(sim_unc_normal_quantile(0.1), -1.281552, 1e-6);
    assert_float_equal(sim_unc_normal_quantile(0.5), 0.0, 1e-12);
    assert_float_equal(sim_unc_normal_quantile(0.01), -2.326348, 1e-6);
    sim_hw hw;
    sim_err err;
    char path[512];
    tu_snprintf(path, sizeof path, "%s/tests/data/h100-fixture.json", tu_root());
    assert_int_equal(sim_hw_load(path, &hw, &err), SIM_OK);
    sim_unc_table t;
    flat_table(&t, 0.1, 0.2);
    sim_unc_engine_ref eng;
    sim_unc_engine_ref_of("vllm-0.11", "vllm", NULL, &eng);
    /* n = 10 draws of a Latin hypercube: each family's log factors are sigma x the ten strata
     * Phi^-1(0.05), ..., Phi^-1(0.95) scaled to a standard deviation of 1: their mean is 0 and
     * their sample standard deviation sigma exactly (memory, fitted: 0.1; the engine: 0.2) */
    for (int f = SIM_UNC_MEMORY; f <= SIM_UNC_ENGINE; f += SIM_UNC_ENGINE - SIM_UNC_MEMORY) {
        double sum = 0.0, ss = 0.0, z_max = 0.0;
        for (int i = 0; i < 10; i++) {
            sim_unc_draw d;
            sim_unc_draw_make_n(&t, &hw, &eng, 0, i, 10, 0, &d);
            sum += log(d.factor[f]);
            ss += log(d.factor[f]) * log(d.factor[f]);
            z_max = fmax(z_max, log(d.factor[f]));
        }
        const double sigma = f == SIM_UNC_ENGINE ? 0.2 : 0.1;
        assert_float_equal(sum / 10.0, 0.0, 1e-12);
        assert_float_equal(sqrt(ss / 9.0), sigma, 1e-12);
        /* the top stratum: Phi^-1(0.95) = 1.644854 over the strata's RMS, sqrt(sum q^2 / 9) =
         * 0.988 (2 x (0.1257^2 + 0.3853^2 + 0.6745^2 + 1.0364^2 + 1.6449^2) / 9 = 0.9762) */
        assert_float_equal(z_max / sigma, 1.644854 / sqrt(0.9762), 2e-3);
    }
    /* the same index is the same draw; n <= 1 moves nothing */
    sim_unc_draw a, b;
    sim_unc_draw_make_n(&t, &hw, &eng, 0, 3, 10, 0, &a);
    sim_unc_draw_make_n(&t, &hw, &eng, 0, 3, 10, 0, &b);
    assert_memory_equal(&a, &b, sizeof a);
    sim_unc_draw_make_n(&t, &hw, &eng, 0, 0, 1, 0, &a);
    for (int f = 0; f < SIM_UNC_FAMILY_COUNT; f++)
        assert_float_equal(a.factor[f], 1.0, 0.0);
}

static void test_engine_levels(void **state)
{
    (void)state;
    sim_unc_table t;
    flat_table(&t, 0.1, 0.3);
    assert_true(sim_unc_set_sources(&t, SIM_UNC_ENGINE, "vllm-0.11", SIM_UNC_FITTED, 0.05, 9, 2));
    assert_true(sim_unc_set_sources(&t, SIM_UNC_ENGINE, "vllm@*", SIM_UNC_FITTED, 0.15, 20, 3));
    assert_true(sim_unc_set_sources(&t, SIM_UNC_ENGINE, "*:moe", SIM_UNC_DEFAULT, 0.4, 30, 4));
    sim_unc_engine_ref r;
    sim_unc_basis b;
    /* the version's own rows */
    sim_unc_engine_ref_of("vllm-0.11", "vllm", NULL, &r);
    assert_string_equal(r.profile, "vllm-0.11");
    assert_string_equal(r.family, "vllm@*");
    assert_float_equal(sim_unc_engine_sigma(&t, &r, &b), 0.05, 0.0);
    assert_int_equal(b.level, SIM_UNC_LEVEL_VERSION);
    assert_int_equal(b.rows, 9);
    assert_int_equal(b.sources, 2);
    /* a version without rows: its engine's other versions */
    sim_unc_engine_ref_of("vllm", "vllm", NULL, &r);
    assert_float_equal(sim_unc_engine_sigma(&t, &r, &b), 0.15, 0.0);
    assert_int_equal(b.level, SIM_UNC_LEVEL_ENGINE);
    assert_string_equal(b.scope, "vllm@*");
    /* an engine without rows: the pooled default */
    sim_unc_engine_ref_of("sglang", "sglang", NULL, &r);
    assert_float_equal(sim_unc_engine_sigma(&t, &r, &b), 0.3, 0.0);
    assert_int_equal(b.level, SIM_UNC_LEVEL_DEFAULT);
    /* a MoE model of an engine without MoE rows: the MoE default, not the dense version's */
    sim_model m = {.experts = 8};
    sim_unc_engine_ref_of("vllm-0.11", "vllm", &m, &r);
    assert_string_equal(r.profile, "vllm-0.11:moe");
    assert_float_equal(sim_unc_engine_sigma(&t, &r, &b), 0.4, 0.0);
    assert_string_equal(b.scope, "*:moe");
    assert_string_equal(sim_unc_level_name(SIM_UNC_LEVEL_DEFAULT), "no validation of this engine");
}

static void test_table_sources(void **state)
{
    (void)state;
    sim_unc_table t;
    flat_table(&t, 0.1, 0.2);
    assert_true(sim_unc_set_sources(&t, SIM_UNC_ENGINE, "trtllm@*", SIM_UNC_FITTED, 0.12, 18, 3));
    sim_strbuf b = {0};
    sim_unc_format(&t, &b);
    assert_non_null(strstr(b.s, "family,scope,provenance,sigma,rows,sources\n"));
    assert_non_null(strstr(b.s, "engine,trtllm@*,fitted,0.1200,18,3\n"));
    char path[512];
    tu_snprintf(path, sizeof path, "%s/table.csv", tu_tmpdir());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(b.s, f);
    fclose(f);
    sim_unc_table back;
    sim_err err;
    assert_int_equal(sim_unc_load(path, &back, &err), SIM_OK);
    const sim_unc_entry *e = sim_unc_find(&back, SIM_UNC_ENGINE, "trtllm@*", SIM_UNC_FITTED);
    assert_non_null(e);
    assert_int_equal(e->sources, 3);
    sim_strbuf_free(&b);
    /* a bad count of sources names the field */
    f = fopen(path, "a");
    assert_non_null(f);
    fputs("engine,x,fitted,0.1,3,many\n", f);
    fclose(f);
    assert_int_equal(sim_unc_load(path, &back, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "field 'sources' is 'many'"));
}

static void test_table_file(void **state)
{
    (void)state;
    sim_unc_table t;
    sim_err err;
    char path[512];
    /* the shipped table loads and every lookup finds a value */
    tu_snprintf(path, sizeof path, "%s/tools/data/uncertainty.csv", tu_root());
    assert_int_equal(sim_unc_load(path, &t, &err), SIM_OK);
    assert_true(sim_unc_sigma(&t, SIM_UNC_MEMORY, "nowhere", SIM_UNC_DEFAULT) > 0.0);
    /* a weaker provenance never narrows the band */
    for (int f = 0; f < SIM_UNC_ENGINE; f++)
        assert_true(sim_unc_sigma(&t, (sim_unc_family)f, "*", SIM_UNC_DEFAULT) >=
                    sim_unc_sigma(&t, (sim_unc_family)f, "*", SIM_UNC_FITTED));
    /* bad files: one message naming the file, line and field */
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"family,scope\n", "header is"},
        {"family,scope,provenance,sigma,rows\nfoo,*,fitted,0.1,1\n", "field 'family' is 'foo'"},
        {"family,scope,provenance,sigma,rows\nmemory,*,guess,0.1,1\n", "field 'provenance'"},
        {"family,scope,provenance,sigma,rows\nmemory,*,fitted,nan,1\n", "field 'sigma' is 'nan'"},
        {"family,scope,provenance,sigma,rows\nmemory,*,fitted,-1,1\n", "field 'sigma'"},
        {"family,scope,provenance,sigma,rows\nmemory,*,fitted,0.1\n", "expected 5 fields"},
        {"family,scope,provenance,sigma,rows\nmemory,*,fitted,0.1,1\n", "is missing"},
        {"family,scope,provenance,sigma,rows\nmemory,*,fitted,0.1,1\nmemory,*,fitted,0.1,1\n",
         "given twice"},
    };
    tu_snprintf(path, sizeof path, "%s/unc-bad.csv", tu_tmpdir());
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(bad[i].text, f);
        fclose(f);
        assert_int_equal(sim_unc_load(path, &t, &err), SIM_EINPUT);
        if (!strstr(err.msg, bad[i].msg)) {
            print_error("case %zu: '%s' lacks '%s'\n", i, err.msg, bad[i].msg);
            fail();
        }
    }
    runf("run --model llama-3.1-8b --hw h100-sxm --uncertainty-table %s", path);
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "given twice"));
}

/* hi / lo of a key in a JSON object */
static double width(const cJSON *j, const char *key)
{
    char lo[64], hi[64];
    snprintf(lo, sizeof lo, "%s_lo", key);
    snprintf(hi, sizeof hi, "%s_hi", key);
    return num(j, hi) / num(j, lo);
}

/* The same static batch on the MI300X as shipped and on a copy of it with its efficiencies taken
 * out (every one from the architecture's default rule): the copy's band is wider (the copy keeps
 * the device's name, so both see the same z of every family: only the sigmas differ). */
static void test_default_device_wider(void **state)
{
    (void)state;
    char src[512], dst[512];
    tu_snprintf(src, sizeof src, "%s/hw/mi300x.json", tu_root());
    tu_snprintf(dst, sizeof dst, "%s/mi300x-default.json", tu_tmpdir());
    char *text = NULL;
    FILE *f = fopen(src, "rb");
    assert_non_null(f);
    text = calloc(1, 1 << 20);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    cJSON_DeleteItemFromObjectCaseSensitive(root, "efficiency");
    cJSON_DeleteItemFromObjectCaseSensitive(root, "quant");
    cJSON_DeleteItemFromObjectCaseSensitive(root, "decode_cta_gb_per_s");
    cJSON_DeleteItemFromObjectCaseSensitive(root, "provenance"); /* its fit records with them */
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    f = fopen(dst, "w");
    assert_non_null(f);
    fputs(out, f);
    fclose(f);
    free(out);
    const char *args = "--model llama-3.1-8b --batch 8 --input-len 1024 --output-len 128 "
                       "--format json --uncertainty 16";
    runf("run --hw mi300x %s", args);
    assert_int_equal(R.rc, 0);
    cJSON *fit = cJSON_Parse(R.out);
    runf("run --hw %s %s", dst, args);
    assert_int_equal(R.rc, 0);
    cJSON *def = cJSON_Parse(R.out);
    assert_non_null(fit);
    assert_non_null(def);
    static const char *const keys[] = {"ttft_ms", "tpot_ms", "e2e_ms", "output_throughput"};
    for (size_t k = 0; k < 4; k++) {
        assert_true(width(fit, keys[k]) > 1.0);
        if (!(width(def, keys[k]) > width(fit, keys[k]))) {
            print_error("%s: default-only x%.3f, fitted x%.3f\n", keys[k], width(def, keys[k]),
                        width(fit, keys[k]));
            fail();
        }
    }
    cJSON_Delete(fit);
    cJSON_Delete(def);
    /* --uncertainty 0: no band keys at all */
    runf("run --hw h100-sxm --model llama-3.1-8b --format json --uncertainty 0");
    assert_int_equal(R.rc, 0);
    assert_null(strstr(R.out, "_lo\""));
    /* the table shows the band */
    runf("run --hw h100-sxm --model llama-3.1-8b --uncertainty 4");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "(80 %: "));
}

/* A serving load at 95 % of the engine's capacity and one at 50 %: near saturation a small error
 * in the step's time is a large one in the queue, so the TTFT band is wider. */
static void test_saturation_wider(void **state)
{
    (void)state;
    const char *base = "serve --model llama-3.1-8b --hw h100-sxm --random-input-len 512 "
                       "--random-output-len 64 --format json";
    char args[512];
    snprintf(args, sizeof args, "%s --num-prompts 400", base);
    runf("%s --request-rate 1 --uncertainty 2", args);
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    const double cap = num(j, "capacity_requests_per_s");
    assert_true(num(j, "capacity_requests_per_s_lo") <= cap * 1.5);
    assert_true(num(j, "offered_load_over_capacity") < 0.5);
    cJSON_Delete(j);
    double w[2];
    const double load[2] = {0.5, 0.95};
    for (int i = 0; i < 2; i++) {
        runf("%s --request-rate %.4f --uncertainty 8", args, load[i] * cap);
        assert_int_equal(R.rc, 0);
        j = cJSON_Parse(R.out);
        assert_non_null(j);
        assert_float_equal(num(j, "offered_load_over_capacity"), load[i], 1e-3);
        w[i] = width(j, "mean_ttft_ms");
        cJSON_Delete(j);
    }
    if (!(w[1] > w[0])) {
        print_error("mean TTFT band at 95 %%: x%.3f, at 50 %%: x%.3f\n", w[1], w[0]);
        fail();
    }
    /* past capacity: a warning on stderr naming it */
    runf("%s --request-rate %.4f --uncertainty 4", args, 1.5 * cap);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.err, "warning: the offered load is"));
    /* the capacity rule against the simulation: all requests at t = 0 (saturated), the request
     * throughput within 25 % of the steady state's (the run drains its last batch alone) */
    runf("%s --num-prompts 2000 --uncertainty 2", base);
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_non_null(j);
    const double sat = num(j, "request_throughput");
    if (fabs(sat / cap - 1.0) > 0.25) {
        print_error("saturated throughput %.3f req/s, capacity %.3f\n", sat, cap);
        fail();
    }
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "offered_load_over_capacity")));
    cJSON_Delete(j);
}

/* A sweep with the same point twice: the same rows (but the point's index), a tie, and the
 * winner ahead in half the draws. */
/* Every band says what it rests on, and an engine or a device family without validation rows
 * says so; --objective energy decides with a runner-up over the energy draws, in the rows too. */
static void test_basis_and_energy_decision(void **state)
{
    (void)state;
    /* hf has no end-to-end rows (the default of every engine); L40S's file has estimates only */
    runf("run --model llama-3.1-8b --hw l40s --batch 4 --output-len 16 --engine hf "
         "--format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "band_basis");
    assert_true(cJSON_IsString(b));
    assert_non_null(strstr(b->valuestring, "engine hf: no validation of this engine"));
    assert_non_null(strstr(b->valuestring, "default-only efficiencies"));
    assert_non_null(strstr(b->valuestring, "no 16-bit GEMM validation rows of ada devices"));
    assert_non_null(strstr(b->valuestring, "power estimate: "));
    assert_null(strchr(b->valuestring, ',')); /* one CSV field, unquoted */
    assert_true(width(j, "joules_per_output_token") > 1.5); /* the power estimate's error */
    cJSON_Delete(j);
    /* vllm@0.11 has rows of its own (its MoE path); the newest vllm takes its other versions */
    runf("run --model gpt-oss-20b --hw h100-sxm --batch 4 --output-len 16 --engine vllm@0.11 "
         "--format json");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "engine vllm-0.11:moe: its own end-to-end rows"));
    runf("run --model llama-3.1-8b --hw h100-sxm --batch 4 --output-len 16");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "Bands (80 %) rest on: engine vllm: no end-to-end rows of "
                                  "this version so its engine's other versions (vllm@*)"));
    /* two identical points under --objective energy: a tie at one half, in the rows too */
    runf("sweep run --model llama-3.1-8b --hw h100-sxm,h100-sxm --batch 4 --output-len 16 "
         "--objective energy --threads 2");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.err, "a tie with point 1"));
    assert_non_null(strstr(R.err, "power estimate's error"));
    assert_non_null(strstr(R.out, ",decision,beat_probability,decision_tie,"
                                  "decision_versus_point\n"));
    assert_non_null(strstr(R.out, ",winner,0.5,true,1\n"));
    assert_non_null(strstr(R.out, ",runner_up,0.5,true,0\n"));
    char path[256];
    tu_snprintf(path, sizeof path, "%s/energy.jsonl", tu_tmpdir());
    runf("sweep run --model llama-3.1-8b --hw h100-sxm,h200 --batch 4 --output-len 16 "
         "--objective energy --threads 1 --out %s",
         path);
    assert_int_equal(R.rc, 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1 << 14];
    int decided = 0;
    while (fgets(line, sizeof line, f)) {
        cJSON *row = cJSON_Parse(line);
        assert_non_null(row);
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(row, "decision");
        if (cJSON_IsString(d)) {
            decided++;
            const double p = num(row, "beat_probability");
            assert_true(p >= 0.0 && p <= 1.0);
        } else {
            assert_true(cJSON_IsNull(d));
        }
        cJSON_Delete(row);
    }
    fclose(f);
    assert_int_equal(decided, 2); /* the winner and the runner-up */
}

static void test_sweep_identical_points(void **state)
{
    (void)state;
    for (int serve = 0; serve < 2; serve++) {
        if (serve)
            runf("sweep serve --model llama-3.1-8b --hw h100-sxm,h100-sxm --num-prompts 60 "
                 "--request-rate 8 --objective cost --threads 2");
        else
            runf("sweep run --model llama-3.1-8b --hw h100-sxm,h100-sxm --batch 4 "
                 "--objective cost --threads 2");
        assert_int_equal(R.rc, 0);
        char *l1 = strchr(R.out, '\n');
        assert_non_null(l1);
        char *l2 = strchr(l1 + 1, '\n');
        assert_non_null(l2);
        char *l3 = strchr(l2 + 1, '\n');
        assert_non_null(l3);
        /* rows "0,..." and "1,...": equal after the index but for their decision's columns
         * (the last four: winner and runner-up, each against the other) */
        const char *cut1 = l2, *cut2 = l3;
        for (int k = 0; k < 4; k++) {
            while (*--cut1 != ',')
                ;
            while (*--cut2 != ',')
                ;
        }
        assert_true(cut2 - l2 == cut1 - l1);
        assert_memory_equal(strchr(l1 + 1, ','), strchr(l2 + 1, ','), (size_t)(cut1 - l1) - 2);
        assert_non_null(strstr(l1, ",winner,0.5,true,1\n"));
        assert_non_null(strstr(l2, ",runner_up,0.5,true,0\n"));
        assert_non_null(strstr(R.out, "_lo,"));
        assert_non_null(strstr(R.err, "a tie with point 1"));
        assert_non_null(strstr(R.err, "ahead in 50%"));
    }
}

/* The bands read the device's recorded provenance: B300's efficiencies are inherited from B200
 * by a stated rule (its file gives them, but they were not fitted on its rows), the RTX PRO 6000's
 * are architecture defaults, H100 SXM's are fitted on its rows; a run with bands on the
 * default-only device says so on the warning stream, one on a fitted device does not. */
static void test_device_provenance(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        sim_unc_prov gemm16;
    } cases[] = {{"b300", SIM_UNC_INHERITED},
                 {"rtx-pro-6000-blackwell", SIM_UNC_DEFAULT},
                 {"h100-sxm", SIM_UNC_FITTED}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        tu_snprintf(path, sizeof path, "%s/hw/%s.json", tu_root(), cases[i].file);
        sim_hw hw;
        sim_err err = {{0}};
        assert_int_equal(sim_hw_load(path, &hw, &err), SIM_OK);
        assert_int_equal(sim_unc_provenance(&hw, SIM_UNC_GEMM16), cases[i].gemm16);
    }
    runf("run --hw rtx-pro-6000-blackwell --model llama-3.1-8b --batch 8 --uncertainty 4");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.err, "has no measured efficiency (default-only"));
    runf("run --hw rtx-pro-6000-blackwell --model llama-3.1-8b --batch 8 --uncertainty 0");
    assert_int_equal(R.rc, 0);
    assert_null(strstr(R.err, "default-only"));
    runf("run --hw h100-sxm --model llama-3.1-8b --batch 8 --uncertainty 4");
    assert_int_equal(R.rc, 0);
    assert_null(strstr(R.err, "default-only"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentile_and_band),
        cmocka_unit_test(test_beat_probability),
        cmocka_unit_test(test_tie),
        cmocka_unit_test(test_device_provenance),
        cmocka_unit_test(test_apply_and_draws),
        cmocka_unit_test(test_stratified_draws),
        cmocka_unit_test(test_engine_levels),
        cmocka_unit_test(test_table_sources),
        cmocka_unit_test(test_table_file),
        cmocka_unit_test(test_default_device_wider),
        cmocka_unit_test(test_saturation_wider),
        cmocka_unit_test(test_sweep_identical_points),
        cmocka_unit_test(test_basis_and_energy_decision),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
