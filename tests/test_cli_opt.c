/* test_cli_opt.c - the option table's ids and its needs / excludes columns (cli_opt.h,
 * cli_opt_rows.def): every id is its flag's name, and the one generic cross-check gives, byte for
 * byte, the errors the hand-written checks it replaced gave (captured from the binary before the
 * change, 626cb27), through run and serve.
 *
 * The cases run in this process through sim_cli_main (clitest.h, cliutil.h). */
#include "clitest.h"

#include <ctype.h>

#include "cli_opt.h"

/* The rows again, as (id text, name) pairs in table order. */
static const struct {
    const char *id, *name;
} row_ids[] = {
#define O(id, name, ...) {#id, name},
#define OE O
#define OR O
#include "cli_opt_rows.def"
#undef O
#undef OE
#undef OR
};

/* "--max-num-seqs" as its id text: "MAX_NUM_SEQS". */
static void id_of(const char *name, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = name + 2; *p && n + 1 < len; p++)
        out[n++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    out[n] = '\0';
}

static void test_ids_are_names(void **state)
{
    (void)state;
    assert_int_equal(sizeof row_ids / sizeof row_ids[0], CLI_OPT_ID_COUNT);
    assert_int_equal(cli_opt_count, CLI_OPT_ID_COUNT);
    int seconds = 0;
    for (size_t i = 0; i < CLI_OPT_ID_COUNT; i++) {
        const cli_opt_def *d = &cli_opt_table[i];
        assert_non_null(d->name); /* every index has its row */
        assert_string_equal(d->name, row_ids[i].name);
        assert_string_equal(cli_opt_name((cli_opt_id)i), d->name);
        char want[96], alt[112];
        id_of(d->name, want, sizeof want);
        if (strcmp(row_ids[i].id, want) == 0) {
            assert_ptr_equal(cli_opt_find(d->name, ~0), d); /* the first row of its name */
            continue;
        }
        /* a second row of one name: another command's flag, its id marked */
        snprintf(alt, sizeof alt, "%s_NOOP", want);
        bool noop = strcmp(row_ids[i].id, alt) == 0;
        snprintf(alt, sizeof alt, "ENDPOINT_%s", want);
        bool endpoint = strcmp(row_ids[i].id, alt) == 0;
        if (!(noop && d->offset == offsetof(cli_opts, vllm_noop)) &&
            !(endpoint && d->cmds == CLI_OPT_CMD_ENDPOINT))
            fail_msg("row %zu: id %s does not name %s", i, row_ids[i].id, d->name);
        assert_true(cli_opt_find(d->name, ~0) < d); /* the plain id is the row before */
        seconds++;
    }
    assert_int_equal(seconds, 4); /* --host, --port, --served-model-name, --time-scale */
    assert_true(CLI_OPT_ID_NONE == CLI_OPT_ID_COUNT);
}

/* Every list of the cross-check columns names rows, ends, and never names its own row; every
 * row with a list has its words. */
static void test_rule_columns(void **state)
{
    (void)state;
    int needs = 0, excludes = 0;
    for (size_t i = 0; i < CLI_OPT_ID_COUNT; i++) {
        const cli_opt_def *d = &cli_opt_table[i];
        assert_true(!d->needs == !d->needs_why);
        assert_true(!d->excludes == !d->excludes_why && !d->excludes == !d->excludes_pre);
        const cli_opt_id *lists[] = {d->needs, d->excludes};
        for (int l = 0; l < 2; l++) {
            size_t n = 0;
            for (const cli_opt_id *x = lists[l]; x && *x != CLI_OPT_ID_NONE; x++, n++) {
                assert_true(*x < CLI_OPT_ID_COUNT && *x != i);
                assert_true(cli_opt_table[*x].cmds & d->cmds); /* a flag of its commands */
            }
            assert_true(!lists[l] || (n > 0 && n < 16));
        }
        needs += d->needs != NULL;
        excludes += d->excludes != NULL;
        /* given alone: a row that needs another is refused by name, one that only excludes is
         * not */
        cli_opts o = cli_opt_defaults;
        o.given[i] = true;
        sim_err err = {{0}};
        assert_int_equal(cli_opt_check_rules(&o, d->cmds, &err), d->needs ? SIM_EINPUT : SIM_OK);
        /* with each flag it excludes: refused, naming that flag */
        for (const cli_opt_id *x = d->excludes; x && *x != CLI_OPT_ID_NONE; x++) {
            for (const cli_opt_id *y = d->needs; y && *y != CLI_OPT_ID_NONE; y++)
                o.given[*y] = true;
            o.given[*x] = true;
            assert_int_equal(cli_opt_check_rules(&o, d->cmds, &err), SIM_EINPUT);
            assert_non_null(strstr(err.msg, cli_opt_table[*x].name));
            o.given[*x] = false;
        }
    }
    assert_int_equal(needs, 28); /* with --trace-full (s9-trace) */
    assert_int_equal(excludes, 6);
}

#define SERVE "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 4 "
#define SERVE_RANDOM SERVE "--random-input-len 64 --random-output-len 8 "
#define RUN "run --model llama-3.1-8b --hw h100-sxm --input-len 64 --output-len 4 "

/* The errors as the hand-written checks gave them, one line each, from the binary at 626cb27. */
static void test_rule_messages(void **state)
{
    (void)state;
    static const struct {
        const char *args, *err;
    } cases[] = {
        {SERVE_RANDOM "--custom-output-len 5",
         "--custom-output-len: needs --lengths-file (vLLM's custom dataset, --dataset-path)"},
        {SERVE_RANDOM "--time-scale 2", "--time-scale: applies only to --trace"},
        {SERVE_RANDOM "--turns-per-session 3", "--turns-per-session: applies only with --sessions N"},
        {SERVE_RANDOM "--think-time-s 1", "--think-time-s: applies only with --sessions N"},
        {SERVE_RANDOM "--prefill-tp 2", "--prefill-tp: applies only with --disagg P:D"},
        {SERVE_RANDOM "--prefill-hw h100-sxm", "--prefill-hw: applies only with --disagg P:D"},
        {SERVE_RANDOM "--kv-stream", "--kv-stream: applies only with --disagg P:D"},
        {SERVE_RANDOM "--autoscale-metric kv",
         "--autoscale-metric: applies only with --autoscale MIN:MAX"},
        {SERVE_RANDOM "--autoscale-target 3",
         "--autoscale-target: applies only with --autoscale MIN:MAX"},
        {SERVE_RANDOM "--autoscale-interval-s 3",
         "--autoscale-interval-s: applies only with --autoscale MIN:MAX"},
        {SERVE_RANDOM "--autoscale-provision-s 3",
         "--autoscale-provision-s: applies only with --autoscale MIN:MAX"},
        {SERVE_RANDOM "--autoscale-down-window-s 3",
         "--autoscale-down-window-s: applies only with --autoscale MIN:MAX"},
        {SERVE_RANDOM "--autoscale 1:4",
         "--autoscale: needs --autoscale-target X, the metric per replica it keeps (requests in "
         "flight, KV usage in (0, 1], or requests/s)"},
        {SERVE_RANDOM "--autoscale 1:4 --autoscale-target 2 --replicas 2",
         "--autoscale with --replicas: expected one of them (--autoscale MIN:MAX sizes the pool)"},
        {SERVE_RANDOM "--autoscale 1:4 --autoscale-target 2 --disagg 1:1",
         "--autoscale with --disagg: expected one of them (--autoscale MIN:MAX sizes the pool)"},
        {SERVE_RANDOM "--num-speculative-tokens 3",
         "--num-speculative-tokens: needs --spec-method, --speculative-config or "
         "--speculative-algorithm"},
        {SERVE_RANDOM "--speculative-draft-model-path x",
         "--speculative-draft-model-path: needs --spec-method, --speculative-config or "
         "--speculative-algorithm"},
        {SERVE_RANDOM "--spec-acceptance-rates 0.5",
         "--spec-acceptance-rates: needs --spec-method, --speculative-config or "
         "--speculative-algorithm"},
        {SERVE_RANDOM "--speculative-num-draft-tokens 3",
         "--speculative-num-draft-tokens: needs --spec-method, --speculative-config or "
         "--speculative-algorithm"},
        {RUN "--spec-acceptance-rate 0.5",
         "--spec-acceptance-rate: needs --spec-method, --speculative-config or "
         "--speculative-algorithm"},
        {SERVE_RANDOM "--trace-detail layer", "--trace-detail: needs --chrome-trace FILE"},
        {SERVE_RANDOM "--trace-window 0:1", "--trace-window: needs --chrome-trace FILE"},
        {SERVE_RANDOM "--trace-full", "--trace-full: needs --chrome-trace FILE"},
        {SERVE_RANDOM "--trace-max-mb 5", "--trace-max-mb: needs --chrome-trace FILE"},
        {RUN "--trace-ranks all", "--trace-ranks: needs --chrome-trace FILE"},
        {RUN "--trace-max-mb 5", "--trace-max-mb: needs --chrome-trace FILE"},
        {SERVE_RANDOM "--random-range-floor 0.5 --random-range-ratio 0.5",
         "--random-range-floor: expected it or --random-range-ratio, not both"},
        {SERVE "--lengths-file /x --trace /t",
         "--trace: does not apply to --lengths-file (the file gives every request's lengths)"},
        {SERVE "--lengths-file /x --dataset-name sharegpt",
         "--dataset-name: does not apply to --lengths-file (the file gives every request's "
         "lengths)"},
        {SERVE "--lengths-file /x --random-range-floor 0.5",
         "--random-range-floor: does not apply to --lengths-file (the file gives every request's "
         "lengths)"},
        {SERVE "--trace /t --random-input-len 5",
         "--random-input-len: does not apply to --trace (the trace gives arrivals and lengths; use "
         "--time-scale to replay it faster or slower)"},
        {SERVE "--trace /t --seed 3",
         "--seed: does not apply to --trace (the trace gives arrivals and lengths; use "
         "--time-scale to replay it faster or slower)"},
        {SERVE "--trace /t --dataset-name sharegpt",
         "--dataset-name: does not apply to --trace (the trace gives arrivals and lengths; use "
         "--time-scale to replay it faster or slower)"},
        {SERVE "--rate-schedule 0:1,10:2 --trace /t",
         "--rate-schedule with --trace: expected one of them (the schedule sets the rates of a "
         "synthetic stream)"},
        {SERVE "--rate-schedule 0:1,10:2 --sessions 3",
         "--rate-schedule with --sessions: expected one of them (the schedule sets the rates of a "
         "synthetic stream)"},
        {SERVE "--rate-schedule 0:1,10:2 --request-rate 3",
         "--rate-schedule with --request-rate: expected one of them (the schedule sets the rates "
         "of a synthetic stream)"},
        {SERVE "--sessions 3 --dataset-name sharegpt",
         "--dataset-name with --sessions: expected one workload (--sessions N makes N x "
         "--turns-per-session requests)"},
        {SERVE "--sessions 2 --turns-per-session 2",
         "--num-prompts with --sessions: expected one workload (--sessions N makes N x "
         "--turns-per-session requests)"},
        /* the value rules stay by hand, unchanged */
        {SERVE "--prefix-repetition-prefix-len 5",
         "--prefix-repetition-prefix-len: needs --dataset-name prefix_repetition"},
        {SERVE "--dataset-name prefix_repetition --random-input-len 5",
         "--random-input-len: does not apply to --dataset-name prefix_repetition (use "
         "--prefix-repetition-* for its lengths)"},
        /* before the cross-checks a bad model or a missing flag is reported as before */
        {"serve --hw h100-sxm --time-scale 2",
         "--model: missing, expected a config.json or name (e.g. --model llama-3.1-8b)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run(cases[i].args);
        char want[512];
        snprintf(want, sizeof want, "infersim: %s\n", cases[i].err);
        if (R.rc != 2 || strcmp(R.err, want) != 0 || R.out[0])
            fail_msg("'%s': rc %d, stderr '%s'; expected exit 2 and '%s'", cases[i].args, R.rc,
                     R.err, want);
    }
}

/* What the generic check mends: a trace and --sessions are refused (before, the hand-written
 * check sat behind the trace's replay and --sessions was silently dropped); lines that keep the
 * rules run. */
static void test_rule_fixes(void **state)
{
    (void)state;
    run(SERVE "--trace /t --sessions 3");
    assert_int_equal(R.rc, 2);
    assert_string_equal(R.err, "infersim: --trace with --sessions: expected one workload "
                               "(--sessions N makes N x --turns-per-session requests)\n");
    run(SERVE_RANDOM "--disagg 1:1 --prefill-tp 1 --kv-stream --format json");
    assert_int_equal(R.rc, 0);
    run("serve --model llama-3.1-8b --hw h100-sxm --sessions 2 --turns-per-session 2 "
        "--think-time-s 1 --format json");
    assert_int_equal(R.rc, 0);
    /* plan's probe of a checkpoint's formats loads the files alone: an acceptance given for the
     * searched speculations no longer fails it (before, the speculative flags' check sat in the
     * loader, the probe failed and the fp8 candidates were never tried: 3 candidates, not 6) */
    run("plan --model llama-3.1-8b --hw h100-sxm --slo ttft:500 --request-rate 2 --engines vllm "
        "--spec-methods none,eagle:3 --spec-acceptance-rate 0.7 --max-gpus 1 --uncertainty 0");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "6 candidates: 4 serve the rate"));
    assert_non_null(strstr(R.out, "vllm    fp8     TP 1 +eagle:3"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_are_names),
        cmocka_unit_test(test_rule_columns),
        cmocka_unit_test(test_rule_messages),
        cmocka_unit_test(test_rule_fixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
