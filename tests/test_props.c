/* test_props.c - properties over every shipped model and device: a step's time is finite and
 * positive for every precision the checks accept, and never falls when the batch gains tokens. */
#include "testutil.h"

#include <math.h>

#include "engine.h"
#include "metrics.h"
#include "price.h"
#include "rng.h"
#include "run.h"
#include "step.h"

#define MAX_FILES 64

typedef struct shipped {
    sim_model models[MAX_FILES];
    sim_hw hws[MAX_FILES];
    size_t n_models, n_hws;
} shipped;

/* Every `*.json` directly in <root>/<dir>, loaded with `load` into consecutive slots of `out`
 * (`size` bytes each); returns how many. */
static size_t load_dir(const char *dir, void *out, size_t size,
                       sim_status (*load)(const char *, void *, sim_err *))
{
    char path[1024];
    tu_snprintf(path, sizeof path, "%s/%s", tu_root(), dir);
    DIR *d = opendir(path);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        assert_true(n < MAX_FILES);
        char file[1280];
        tu_snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        sim_err err = {{0}};
        if (load(file, (char *)out + n * size, &err) != SIM_OK) {
            print_error("%s: %s\n", file, err.msg);
            fail();
        }
        n++;
    }
    closedir(d);
    return n;
}

static sim_status load_model(const char *path, void *out, sim_err *err)
{
    return sim_model_load(path, out, err);
}

static sim_status load_hw(const char *path, void *out, sim_err *err)
{
    return sim_hw_load(path, out, err);
}

static shipped *load_shipped(void)
{
    shipped *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->n_models = load_dir("models", s->models, sizeof s->models[0], load_model);
    s->n_hws = load_dir("hw", s->hws, sizeof s->hws[0], load_hw);
    assert_true(s->n_models >= 10 && s->n_hws >= 10);
    return s;
}

static int setup(void **state)
{
    *state = load_shipped();
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static bool finite_positive(double x) { return isfinite(x) && x > 0.0; }

/* The step and each of its ops priced finite and positive (ops absent from the step cost 0). */
static void expect_finite(const sim_step_cfg *cfg, const sim_seq_group *g, const char *what)
{
    sim_step_result r;
    sim_step_price(cfg, g, 1, &r);
    bool ok = finite_positive(r.t_ns) && finite_positive(r.t_lower_ns) &&
              finite_positive(r.t_upper_ns);
    for (int i = 0; i < SIM_OP_COUNT; i++)
        ok = ok && isfinite(r.cost[i].t_ns) && r.cost[i].t_ns >= 0.0;
    if (!ok) {
        print_error("%s on %s, weights %s, activations %s, KV %s, %s: step %g ns\n",
                    cfg->model->name, cfg->hw->name, sim_dtype_name(cfg->prec.weight),
                    sim_dtype_name(cfg->prec.act), sim_dtype_name(cfg->prec.kv), what, r.t_ns);
        fail();
    }
}

/* Issue 33 D1: an fp16 checkpoint (llama-2-*, llama-3.1-70b-awq) with 8-bit weights and
 * activations on a device without an fp16 peak (Gaudi 3, TPU v5e/v6e) passed the checks of the
 * formats the flags name, while attention and the LM head computed in fp16 at a zero peak: an
 * infinite step. Every combination of weight, activation and KV format the checks accept, for
 * every shipped model on every shipped device, prices a prefill and a decode step finite. */
static void test_every_accepted_precision_is_finite(void **state)
{
    const shipped *s = *state;
    int accepted = 0, refused_16bit = 0;
    for (size_t mi = 0; mi < s->n_models; mi++)
        for (size_t hi = 0; hi < s->n_hws; hi++)
            for (int w = 0; w < SIM_DT_COUNT; w++)
                for (int a = 0; a < SIM_DT_COUNT; a++)
                    for (int kv = 0; kv < SIM_DT_COUNT; kv++) {
                        sim_step_cfg cfg = {.model = &s->models[mi],
                                            .hw = &s->hws[hi],
                                            .tp = 1,
                                            .prec = {.weight = (sim_dtype)w,
                                                     .act = (sim_dtype)a,
                                                     .kv = (sim_dtype)kv,
                                                     .group_size = 128}};
                        sim_err err = {{0}};
                        if (sim_step_check(&cfg, &err) != SIM_OK) {
                            refused_16bit += strstr(err.msg, "leaves attention") != NULL;
                            continue;
                        }
                        accepted++;
                        sim_seq_group pre = {.count = 2, .q = 512, .c = 0, .logits = 1};
                        sim_seq_group dec = {.count = 8, .q = 1, .c = 2048, .logits = 1};
                        expect_finite(&cfg, &pre, "prefill");
                        expect_finite(&cfg, &dec, "decode");
                    }
    /* the combinations the audit found are now refused, with their reason */
    assert_true(refused_16bit > 0);
    assert_true(accepted > 1000);
}

/* Issue 33 D1, the second half: a step time that is not finite and positive is an internal error
 * of run and serve, never reported (run printed inf) nor clamped (serve made it 1 ns, 3e9 tok/s).
 * The configuration the checks now refuse is priced anyway, as a bug in the checks would. */
static void test_infinite_step_is_an_internal_error(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-2-7b");
    sim_hw hw = tu_hw("gaudi3");
    sim_step_cfg step = {.model = &m,
                         .hw = &hw,
                         .tp = 1,
                         .prec = {.weight = SIM_DT_FP8, .act = SIM_DT_FP8, .kv = SIM_DT_FP8}};
    sim_err err = {{0}};
    assert_int_equal(sim_step_check(&step, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "leaves attention and the LM head in fp16"));
    assert_non_null(strstr(err.msg, "no dense_tflops.fp16"));

    sim_run_cfg rc = {.step = step, .batch = 1, .input_len = 128, .output_len = 8, .mem_util = 0.9};
    sim_run_result r;
    sim_run_simulate(&rc, &r);
    assert_int_equal(sim_run_check_result(&r, &err), SIM_EINTERNAL);
    assert_non_null(strstr(err.msg, "TTFT is inf"));

    sim_engine_cfg ec = {.step = step,
                         .sched = {.max_num_seqs = 8, .max_num_batched_tokens = 2048,
                                   .chunked_prefill = true},
                         .block_size = 16,
                         .mem_util = 0.9};
    sim_workload w = tu_synth(4, 128, 8, INFINITY, 0.0);
    sim_engine_result er;
    assert_int_equal(sim_engine_run(&ec, &w, &er, &err), SIM_EINTERNAL);
    assert_non_null(strstr(err.msg, "not a finite positive number"));
    sim_engine_result_free(&er);
    sim_workload_free(&w);
}

/* The token counts a monotonicity check steps through: every count to 200 (the GEMM tiles' and the
 * weight-only tile's edges: 16, 64, 128, 192), then every 29th to 4096 (29 is prime: the steps
 * land on every residue of the tiles). */
static int64_t nth_tokens(int i)
{
    return i < 200 ? i + 1 : 200 + (int64_t)(i - 199) * 29;
}
#define N_TOKEN_STEPS (199 + (4096 - 200) / 29)

/* The formats a device runs a model in, for the monotonicity check: bf16, and where the device
 * computes them full fp8 and int4 weights with 16-bit math (a mixed-input GEMM). */
static int precisions(const sim_hw *hw, sim_prec out[3])
{
    int n = 0;
    out[n++] = (sim_prec){SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 128, false, false};
    if (hw->peak_flops[SIM_DT_FP8] > 0.0)
        out[n++] = (sim_prec){SIM_DT_FP8, SIM_DT_FP8, SIM_DT_FP8, 128, false, false};
    out[n++] = (sim_prec){SIM_DT_INT4, SIM_DT_BF16, SIM_DT_BF16, 128, false, false};
    return n;
}

/* Issue 33 D4: a prompt's TTFT fell as it grew (up to 14 %: a loaded request could get its first
 * token sooner than alone), because a GEMM's FLOPs were padded to one tile and its waves counted
 * in another. A step's time never falls when it gains tokens: a prompt growing, and a decode
 * batch growing, for every shipped model on every shipped device, in each format it runs, and for
 * a mixture-of-experts model with each grouped-GEMM kernel family. (The Triton family took its
 * BLOCK_SIZE_M from the tuned configs' switch alone, so qwen3-30b-a3b int4 on Gaudi 3 ran 1012
 * tokens in 23.69 ms and 1041 in 22.76 ms; moe.c now prices the cheapest block the configs use
 * at these tokens or more.) */
static void test_step_time_non_decreasing_in_tokens(void **state)
{
    const shipped *s = *state;
    int moe_checked = 0;
    for (size_t mi = 0; mi < s->n_models; mi++)
        for (size_t hi = 0; hi < s->n_hws; hi++) {
            sim_prec precs[3];
            int np = precisions(&s->hws[hi], precs);
            const int kernels = s->models[mi].experts > 0 ? SIM_MOE_KERNEL_COUNT : 1;
            for (int pk = 0; pk < np * kernels; pk++) {
                const int pi = pk % np;
                sim_step_cfg cfg = {.model = &s->models[mi],
                                    .hw = &s->hws[hi],
                                    .tp = 1,
                                    .prec = precs[pi],
                                    .moe_kernel = (sim_moe_kernel)(pk / np),
                                    .moe_kernel_quantized = (sim_moe_kernel)(pk / np),
                                    .moe_kernel_mixed = (sim_moe_kernel)(pk / np)};
                sim_err err = {{0}};
                if (sim_step_check(&cfg, &err) != SIM_OK)
                    continue;
                moe_checked += s->models[mi].experts > 0;
                for (int phase = 0; phase < 2; phase++) {
                    double last = 0.0;
                    int64_t last_t = 0;
                    /* the families other than Triton (engine profiles' choice) at every 5th
                     * count: each takes the cheapest of a fixed set of tiles, so the check stays
                     * fast (CI, the sanitizers) */
                    const int stride = cfg.moe_kernel == SIM_MOE_TRITON ? 1 : 5;
                    for (int i = 0; i < N_TOKEN_STEPS; i += stride) {
                        int64_t t = nth_tokens(i);
                        if (phase == 1 && t > 512)
                            break;
                        /* phase 0: one prompt of t tokens; phase 1: t decoding sequences */
                        sim_seq_group g = phase == 0
                                              ? (sim_seq_group){.count = 1, .q = t, .logits = 1}
                                              : (sim_seq_group){
                                                    .count = t, .q = 1, .c = 1024, .logits = 1};
                        sim_step_result r;
                        sim_step_price(&cfg, &g, 1, &r);
                        /* 1e-12 relative: sums in another order, not a physical fall */
                        if (r.t_ns < last * (1.0 - 1e-12)) {
                            print_error("%s on %s (weights %s, activations %s, experts %s): %s "
                                        "%lld tokens %.6g us, %lld tokens %.6g us\n",
                                        s->models[mi].name, s->hws[hi].name,
                                        sim_dtype_name(cfg.prec.weight),
                                        sim_dtype_name(cfg.prec.act),
                                        sim_moe_kernel_name(cfg.moe_kernel),
                                        phase == 0 ? "prefill" : "decode", (long long)last_t,
                                        last / 1e3, (long long)t, r.t_ns / 1e3);
                            fail();
                        }
                        last = r.t_ns;
                        last_t = t;
                    }
                }
            }
        }
    assert_true(moe_checked > 0); /* the MoE models are in, not all refused */
}

/* The draws of the random-configuration suite: INFERSIM_PROPS_DRAWS (a larger run: 20000), else
 * 300 per CI run; the seed is fixed (INFERSIM_PROPS_SEED to vary it), so a failure repeats. */
static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : dflt;
}

static bool near_rel(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

/* A step's time, checked finite and within its bounds. */
static double priced(const sim_step_cfg *cfg, const sim_seq_group *g, sim_step_result *r)
{
    sim_step_price(cfg, g, 1, r);
    assert_true(finite_positive(r->t_ns));
    assert_true(r->t_lower_ns <= r->t_ns * (1.0 + 1e-9) && r->t_ns <= r->t_upper_ns * (1.0 + 1e-9));
    return r->t_ns;
}

/* Issue 33: random valid configurations (a shipped model on a shipped device, a TP size, a
 * format, a batch and lengths) checked against physical invariants: a step within its bounds;
 * never slower with more HBM bandwidth, more prompt tokens or more decoding sequences; the same
 * bits when priced twice; run = serve for one request alone; the price arithmetic; finite
 * results. */
static void test_random_configurations(void **state)
{
    const shipped *s = *state;
    const long draws = env_long("INFERSIM_PROPS_DRAWS", 300);
    sim_rng rng;
    sim_rng_seed(&rng, (uint64_t)env_long("INFERSIM_PROPS_SEED", 33));
    static const int tps[] = {1, 2, 4, 8};
    sim_step_result *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    sim_run_result *run = calloc(1, sizeof *run);
    assert_true(a && b && run);
    long valid = 0, serve_checked = 0;
    for (long d = 0; valid < draws && d < draws * 50; d++) {
        const sim_model *m = &s->models[sim_rng_int(&rng, 0, (int64_t)s->n_models - 1)];
        sim_hw hw = s->hws[sim_rng_int(&rng, 0, (int64_t)s->n_hws - 1)];
        sim_prec precs[3];
        int np = precisions(&hw, precs);
        sim_step_cfg cfg = {.model = m,
                            .hw = &hw,
                            .tp = tps[sim_rng_int(&rng, 0, 3)],
                            .prec = precs[sim_rng_int(&rng, 0, np - 1)],
                            .overlap = sim_rng_uniform(&rng),
                            .iteration_overhead_ns = (double)sim_rng_int(&rng, 0, 2000) * 1e3,
                            .request_overhead_ns = (double)sim_rng_int(&rng, 0, 50) * 1e3};
        const int64_t batch = sim_rng_int(&rng, 1, 64), in = sim_rng_int(&rng, 1, 4096),
                      out = sim_rng_int(&rng, 1, 64);
        sim_run_cfg rc = {.step = cfg, .batch = batch, .input_len = in, .output_len = out,
                          .mem_util = 0.9};
        sim_err err = {{0}};
        if (sim_run_check(&rc, &err) != SIM_OK)
            continue; /* an invalid draw (heads against TP, does not fit): drawn again */
        valid++;
        /* bounds, determinism */
        sim_seq_group pre = {.count = batch, .q = in, .logits = 1};
        sim_seq_group dec = {.count = batch, .q = 1, .c = in, .logits = 1};
        double tp0 = priced(&cfg, &pre, a), td0 = priced(&cfg, &dec, b);
        assert_memory_equal(&tp0, &(double){priced(&cfg, &pre, a)}, sizeof tp0);
        /* more tokens in the prompt, more sequences decoding: never faster */
        sim_seq_group pre2 = pre, dec2 = dec;
        pre2.q += sim_rng_int(&rng, 1, 256);
        dec2.count += sim_rng_int(&rng, 1, 16);
        /* (not for MoE models' prompts: their Triton block size is keyed on the tokens, see
         * test_step_time_non_decreasing_in_tokens) */
        assert_true(priced(&cfg, &pre2, a) >= tp0 * (1.0 - 1e-12) || m->experts > 0);
        assert_true(priced(&cfg, &dec2, a) >= td0 * (1.0 - 1e-12) || m->experts > 0);
        /* more HBM bandwidth: never slower */
        sim_hw fast = hw;
        fast.hbm_bytes_per_s *= 1.0 + sim_rng_uniform(&rng);
        sim_step_cfg fcfg = cfg;
        fcfg.hw = &fast;
        assert_true(priced(&fcfg, &pre, a) <= tp0 * (1.0 + 1e-12));
        assert_true(priced(&fcfg, &dec, a) <= td0 * (1.0 + 1e-12));
        /* the run: finite, and its throughput and price as their definitions say */
        sim_run_simulate(&rc, run);
        assert_int_equal(sim_run_check_result(run, &err), SIM_OK);
        assert_true(near_rel(run->output_throughput,
                             (double)(batch * out) / (run->e2e_ns * 1e-9), 1e-12));
        sim_price p;
        double usd = 0.5 + sim_rng_uniform(&rng) * 10.0;
        assert_true(sim_price_compute(cfg.tp, usd, run->output_throughput,
                                      run->output_throughput * (double)(in + out) / (double)out,
                                      &p));
        assert_true(near_rel(p.usd_per_hour, usd * cfg.tp, 1e-12));
        assert_true(near_rel(p.usd_per_million_output_tokens,
                             usd * cfg.tp / (run->output_throughput * 3600.0) * 1e6, 1e-12));
        /* serve of one request alone = run of a batch of one (every 8th draw: it simulates) */
        if (valid % 8 != 0)
            continue;
        rc.batch = 1;
        if (sim_run_check(&rc, &err) != SIM_OK)
            continue;
        sim_run_simulate(&rc, run);
        sim_engine_cfg ec = {.step = cfg,
                             .sched = {.max_num_seqs = 256, .max_num_batched_tokens = 8192,
                                       .chunked_prefill = true},
                             .block_size = 16,
                             .mem_util = 0.9};
        sim_workload w = tu_synth(1, in, out, INFINITY, 0.0);
        sim_engine_result er;
        if (sim_engine_check(&ec, &w, &err) == SIM_OK) {
            assert_int_equal(sim_engine_run(&ec, &w, &er, &err), SIM_OK);
            /* each iteration is rounded to the nanosecond */
            assert_true(fabs((double)(er.seqs[0].first_token_ns - er.seqs[0].send_ns) -
                             run->ttft_ns) <= 1.0);
            assert_true(fabs((double)(er.seqs[0].finish_ns - er.seqs[0].send_ns) - run->e2e_ns) <=
                        (double)out);
            sim_engine_result_free(&er);
            serve_checked++;
        }
        sim_workload_free(&w);
    }
    assert_int_equal(valid, draws);
    free(a);
    free(b);
    free(run);
    assert_true(serve_checked > 0); /* the run = serve check ran */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_accepted_precision_is_finite),
        cmocka_unit_test(test_infinite_step_is_an_internal_error),
        cmocka_unit_test(test_step_time_non_decreasing_in_tokens),
        cmocka_unit_test(test_random_configurations),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
