/* test_oom.c - out of memory at every allocation of a serve run: a clean exit 1 with a message.
 *
 * The test binary is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,
 * so every allocation the library makes goes through the counters below; the test fails the Nth
 * and walks N from 1 until a run needs fewer allocations than N. Each failing run must return
 * SIM_EINTERNAL (exit 1) with "out of memory" in its one-line message, print nothing on stdout
 * and leave no temporary file;
 * the sanitizer build (detect_leaks=1) fails the test on any leak along the error paths.
 * (cJSON allocates inside libcjson, which the wrap does not reach: a failed parse there reads as
 * malformed JSON, so the walk starts after the files are parsed for the loaders it covers.) */
#include "testutil.h"

#include <limits.h>

#include "cli.h"
#include "infersim_step.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static long fail_at = -1; /* the allocation to fail, from 1; -1: none */
static long count;        /* allocations since armed */

static bool fail_now(void) { return fail_at > 0 && ++count == fail_at; }

void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fail_now() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { return fail_now() ? NULL : __real_strdup(s); }

static char *out_text, *err_text;
static size_t out_len, err_len;

/* Runs the command with allocation `n` failing; returns the exit status. */
static int run_failing(char **argv, int argc, long n)
{
    free(out_text);
    free(err_text);
    out_text = err_text = NULL;
    FILE *out = open_memstream(&out_text, &out_len);
    FILE *err = open_memstream(&err_text, &err_len);
    assert_non_null(out);
    assert_non_null(err);
    count = 0;
    fail_at = n;
    int rc = sim_cli_main(argc, argv, out, err);
    fail_at = -1;
    fclose(out);
    fclose(err);
    return rc;
}

/* Walks N over every allocation of the command: returns how many it made. */
static long walk(char **argv, int argc, const char *const *outputs)
{
    for (long n = 1;; n++) {
        int rc = run_failing(argv, argc, n);
        if (count < n) { /* the run made fewer than n allocations: it ran whole */
            if (rc != 0)
                print_error("the run without a failure exited %d: %s\n", rc, err_text);
            assert_int_equal(rc, 0);
            return n - 1;
        }
        if (rc != 1 || !strstr(err_text, "out of memory") || out_len != 0) {
            print_error("allocation %ld failing: exit %d, stdout %zu bytes, stderr '%s'; "
                        "expected exit 1 with 'out of memory' and no output\n",
                        n, rc, out_len, err_text);
            fail();
        }
        /* no temporary file is left behind (an output committed before the failure is whole) */
        for (const char *const *o = outputs; *o; o++) {
            assert_int_equal(tu_temporaries(*o), 0);
            remove(*o);
        }
        assert_true(n < 100000);
    }
}

static void test_serve_out_of_memory(void **state)
{
    (void)state;
    char model[1024], hw[1024], reqs[128], trace[128];
    snprintf(model, sizeof model, "%s/models/llama-3.2-1b.json", tu_root());
    snprintf(hw, sizeof hw, "%s/hw/h100-sxm.json", tu_root());
    tu_snprintf(reqs, sizeof reqs, "%s/infersim-oom-%d.csv", tu_tmpdir(), (int)getpid());
    tu_snprintf(trace, sizeof trace, "%s/infersim-oom-%d.json", tu_tmpdir(), (int)getpid());
    char *argv[] = {"infersim",
                    "serve",
                    "--model",
                    model,
                    "--hw",
                    hw,
                    "--num-prompts",
                    "6",
                    "--request-rate",
                    "20",
                    "--random-input-len",
                    "64",
                    "--random-output-len",
                    "5",
                    "--save-requests",
                    reqs,
                    "--chrome-trace",
                    trace,
                    "--trace-detail",
                    "layer",
                    "--goodput",
                    "ttft:100",
                    "--format",
                    "json"};
    const char *const outputs[] = {reqs, trace, NULL};
    long n = walk(argv, (int)(sizeof argv / sizeof argv[0]), outputs);
    print_message("serve: %ld allocations, each failed once\n", n);
    assert_true(n > 10); /* the walk reached the engine, the metrics and both outputs */
    remove(reqs);
    remove(trace);
}

static void test_trace_replay_out_of_memory(void **state)
{
    (void)state;
    char model[1024], hw[1024], tr[1024];
    snprintf(model, sizeof model, "%s/models/llama-3.2-1b.json", tu_root());
    snprintf(hw, sizeof hw, "%s/hw/h100-sxm.json", tu_root());
    snprintf(tr, sizeof tr, "%s/traces/azure-conv-sample.csv", tu_root());
    char *argv[] = {"infersim", "serve", "--model",       model, "--hw",         hw,
                    "--trace",  tr,      "--num-prompts", "8",   "--time-scale", "0.01"};
    const char *const outputs[] = {NULL};
    assert_true(walk(argv, (int)(sizeof argv / sizeof argv[0]), outputs) > 5);
}

/* The step predictor allocates when a handle opens, never per call: a replay of varied batches
 * (decode-only at growing contexts, mixed, prompts alone, pipeline stages, the band's draws)
 * through open handles makes no allocation at all; and an open failing at each allocation is
 * refused with INFERSIM_STEP_EINTERNAL and no handle. */
static void test_step_price_allocates_nothing(void **state)
{
    (void)state;
    const char *pp[] = {"--model", "llama-3.1-70b", "--hw", "h100-sxm", "--tp", "2", "--pp", "2"};
    const char *moe[] = {"--model", "qwen3-30b-a3b", "--hw", "h100-sxm", "--ep", "2",
                         "--dp-attention"};
    const char *const *decks[] = {pp, moe};
    const int argcs[] = {8, 7};
    for (int d = 0; d < 2; d++) {
        char err[512];
        infersim_step *h = NULL;
        infersim_step_status opened =
            infersim_step_open(INFERSIM_STEP_ABI, argcs[d], decks[d], &h, err, sizeof err);
        if (opened)
            print_error("open: %s\n", err);
        assert_int_equal(opened, INFERSIM_STEP_OK);
        infersim_step_seq b[40];
        infersim_step_time t;
        count = 0;
        fail_at = LONG_MAX; /* counts every allocation, fails none */
        for (int i = 0; i < 200; i++) {
            const size_t n = 1 + (size_t)(i % 40);
            for (size_t j = 0; j < n; j++)
                b[j] = (infersim_step_seq){1, 100 + 7 * i + (int64_t)j, INFERSIM_SEQ_DECODE,
                                           (int32_t)j};
            if (i % 5 == 0)
                b[0] = (infersim_step_seq){300 + i, 64, i % 10 ? INFERSIM_SEQ_PREFILL
                                                                : INFERSIM_SEQ_PREFILL_LAST, 0};
            assert_int_equal(infersim_step_price(h, b, n, &t, err, sizeof err), INFERSIM_STEP_OK);
        }
        fail_at = -1;
        assert_int_equal(count, 0);
        infersim_step_close(h);
        /* out of memory at the first allocations of an open (before any file is parsed) */
        for (long n = 1; n <= 3; n++) {
            count = 0;
            fail_at = n;
            infersim_step_status st =
                infersim_step_open(INFERSIM_STEP_ABI, argcs[d], decks[d], &h, err, sizeof err);
            fail_at = -1;
            assert_int_equal(st, INFERSIM_STEP_EINTERNAL);
            assert_null(h);
            assert_non_null(strstr(err, "out of memory"));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serve_out_of_memory),
        cmocka_unit_test(test_trace_replay_out_of_memory),
        cmocka_unit_test(test_step_price_allocates_nothing),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(out_text);
    free(err_text);
    return rc;
}
