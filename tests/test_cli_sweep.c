/* test_cli_sweep.c - `sweep` end to end: its rows, --out -, SLO rows, grid files, flags given
 * twice, default-only devices, the page's objective, and cost (prices, --usd-per-gpu-hour, the
 * cheapest point).
 *
 * The cases run in this process through sim_cli_main (clitest.h, cliutil.h); the few that must
 * launch the infersim binary (run_process_in) say why. */
#include "clitest.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "jsonf.h"

/* Removes the last k comma-separated fields of every line of text (fields without commas). */
static void cut_last_fields(char *text, int k)
{
    char *w = text;
    for (char *l = text; *l;) {
        size_t len = strcspn(l, "\n");
        const bool nl = l[len] == '\n';
        size_t keep = len;
        for (int j = 0; j < k && keep > 0; j++) {
            while (keep > 0 && l[keep - 1] != ',')
                keep--;
            if (keep > 0)
                keep--;
        }
        memmove(w, l, keep);
        w += keep;
        if (nl)
            *w++ = '\n';
        l += len + nl;
    }
    *w = '\0';
}

static void test_sweep(void **state)
{
    (void)state;
    char a[2048], p1[256], p2[256], s0[256], s1[256], m[256];
    int pid = (int)getpid();
    tu_snprintf(p1, sizeof p1, "%s/infersim-sw1-%d.csv", tu_tmpdir(), pid);
    tu_snprintf(p2, sizeof p2, "%s/infersim-sw2-%d.csv", tu_tmpdir(), pid);
    tu_snprintf(s0, sizeof s0, "%s/infersim-sw-s0-%d.csv", tu_tmpdir(), pid);
    tu_snprintf(s1, sizeof s1, "%s/infersim-sw-s1-%d.csv", tu_tmpdir(), pid);
    tu_snprintf(m, sizeof m, "%s/infersim-sw-m-%d.csv", tu_tmpdir(), pid);
    const char *grid = "sweep serve --model llama-3.1-8b,llama-3.1-70b --hw h100-sxm --tp 1,4,3 "
                       "--request-rate 2,inf --num-prompts 40 --random-input-len 256 "
                       "--random-output-len 32 --slo ttft:400,tpot:30";
    /* 12 points; 70B at TP 1 does not fit and TP 3 divides no head count: error rows */
    snprintf(a, sizeof a, "%s --threads 1 --out %s", grid, p1);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_string_equal(R.err, ""); /* no progress bar when stderr is not a terminal */
    assert_non_null(strstr(R.out, "sweep: 12 points"));
    assert_non_null(strstr(R.out, "Pareto frontier"));
    snprintf(a, sizeof a, "%s --threads 2 --out %s", grid, p2);
    run(a);
    assert_int_equal(R.rc, 0);
    char *one = slurp(p1), *two = slurp(p2);
    assert_non_null(one);
    assert_non_null(two);
    assert_string_equal(one, two); /* byte-identical whatever the thread count */
    assert_int_equal(count_lines(one), 13);
    assert_non_null(strstr(one, "point,model,tp,request-rate,gpus,"));
    assert_non_null(strstr(one, ",meets_slo,error,band_basis,decision,beat_probability,"
                                "decision_tie,decision_versus_point\n"));
    int errors = 0;
    for (char *l = strchr(one, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
        char row[2048];
        snprintf(row, sizeof row, "%.*s", (int)strcspn(l, "\n"), l);
        if (strstr(row, "for the KV cache") || strstr(row, "--tp: value 3"))
            errors++;
    }
    assert_int_equal(errors, 6); /* 70B tp1 x 2 rates + tp3 x 2 models x 2 rates */
    /* two shards merged back give the same file */
    snprintf(a, sizeof a, "%s --shard 1/2 --out %s", grid, s1);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "sweep: 6 points (shard 1/2 of 12)"));
    snprintf(a, sizeof a, "%s --shard 0/2 --out %s", grid, s0);
    run(a);
    assert_int_equal(R.rc, 0);
    snprintf(a, sizeof a, "merge --out %s %s %s", m, s1, s0);
    run(a);
    assert_int_equal(R.rc, 0);
    char *merged = slurp(m);
    /* the same file but for the decision's last four columns, which only the whole sweep fills
     * (a shard sees part of the grid): empty in the merged rows */
    assert_non_null(strstr(one, ",winner,"));
    assert_null(strstr(merged, ",winner,"));
    cut_last_fields(one, 4);
    cut_last_fields(merged, 4);
    assert_string_equal(merged, one);
    /* a shard merged twice is an error */
    snprintf(a, sizeof a, "merge --out %s %s %s", m, s1, s1);
    expect_bad(a, "appears in two shards");
    free(one);
    free(two);
    free(merged);
    remove(p1);
    remove(p2);
    remove(s0);
    remove(s1);
    remove(m);
}

/* `--out -` is standard output, as a Unix tool reads "-": sweep, merge and calibrate write their
 * output there and create no file named "-". */
static void test_out_dash_is_stdout(void **state)
{
    (void)state;
    char shard[512];
    run("sweep run --model llama-3.1-8b --hw h100-sxm --tp 1,2 --out -");
    assert_int_equal(R.rc, 0);
    assert_true(strncmp(R.out, "point,tp,", 9) == 0);
    assert_non_null(strstr(R.out, "\n1,2,2,"));
    assert_int_equal(access("-", F_OK), -1);
    tu_snprintf(shard, sizeof shard, "%s/dash-shard.csv", tu_tmpdir());
    runf("sweep run --model llama-3.1-8b --hw h100-sxm --tp 1,2 --shard 0/1 --out %s", shard);
    assert_int_equal(R.rc, 0);
    runf("merge %s --out -", shard);
    assert_int_equal(R.rc, 0);
    assert_true(strncmp(R.out, "point,tp,", 9) == 0);
    run("calibrate --hw h100-sxm --out -");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"name\":"));
    assert_int_equal(access("-", F_OK), -1);
}

static void test_sweep_slo_rows(void **state)
{
    (void)state;
    /* run points: TPOT is deterministic; meets_slo must say TPOT <= 30 ms exactly */
    char p[256], a[512];
    tu_snprintf(p, sizeof p, "%s/infersim-sw-slo-%d.jsonl", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a,
             "sweep run --model llama-3.1-70b --hw h100-sxm --tp 2,4,8 "
             "--batch 1,16,64 --slo tpot:30 --out %s",
             p);
    run(a);
    assert_int_equal(R.rc, 0);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    char line[4096];
    int n = 0, meets = 0;
    while (fgets(line, sizeof line, f)) {
        cJSON *j = cJSON_Parse(line);
        assert_non_null(j);
        n++;
        if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "error"))) {
            /* a point that does not fit: an error row, never meeting the SLO */
            assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "meets_slo")));
            cJSON_Delete(j);
            continue;
        }
        double tpot = num(j, "tpot_ms");
        bool m = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "meets_slo"));
        assert_true(m == (tpot <= 30.0));
        meets += m;
        cJSON_Delete(j);
    }
    fclose(f);
    assert_int_equal(n, 9);
    assert_true(meets > 0 && meets < 9);
    assert_non_null(strstr(R.out, "best under the SLO: point"));
    remove(p);
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --chrome-trace x.json",
               "--chrome-trace");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --shard 2/2", "--shard");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --slo fast", "--slo");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --tp 1,,2", "--tp");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --bogus 1", "--bogus");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --threads 0", "--threads");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --threads=2x", "--threads");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --slo-percentile 95",
               "expected 50, 90 or 99");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --out", "--out: missing value");
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --out=", "--out: empty value");
    expect_bad("sweep roofline --hw h100-sxm", "sweep");
}

static void test_sweep_grid_file(void **state)
{
    (void)state;
    const char *g = tu_write_tmp("{\"command\": \"run\", \"grid\": {\"model\": "
                                 "\"llama-3.1-8b\", \"--batch\": [1, 8], \"--kv-cache-dtype\": "
                                 "[\"bf16\", \"fp8\"], \"--enforce-eager\": [false, true]}}");
    char a[512];
    snprintf(a, sizeof a, "sweep run --grid %s --hw h100-sxm", g);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_int_equal(count_lines(R.out), 9); /* header + 8 points, to stdout without --out */
    assert_non_null(strstr(R.out, "point,batch,kv-cache-dtype,enforce-eager,"));
    g = tu_write_tmp("{\"command\": \"serve\", \"grid\": {\"--batch\": [1]}}");
    snprintf(a, sizeof a, "sweep run --grid %s --hw h100-sxm", g);
    expect_bad(a, "command");
}

/* `json` written to a grid file, then `sweep run --grid FILE <rest>` must fail naming `mention`
 * and the file. */
static void bad_grid(const char *json, const char *rest, const char *mention)
{
    const char *g = tu_write_tmp(json);
    char a[1024];
    snprintf(a, sizeof a, "sweep run --grid %s --model llama-3.1-8b --hw h100-sxm %s", g, rest);
    expect_bad(a, mention);
    if (!strstr(R.err, g) && !strstr(mention, "given twice")) {
        print_error("'%s': stderr '%s' does not name the grid file\n", a, R.err);
        fail();
    }
}

/* A grid file takes exactly the flags the command line takes, and keeps every value whole. */
static void test_sweep_grid_file_checks(void **state)
{
    (void)state;
    /* a misspelt flag made every point fail, exit 0: refused up front */
    bad_grid("{\"grid\": {\"--fromat\": [\"csv\"]}}", "",
             "field 'grid.--fromat': unknown flag '--fromat', expected a flag of 'infersim run'");
    bad_grid("{\"grid\": {\"batchh\": [1]}}", "", "unknown flag '--batchh'");
    bad_grid("{\"grid\": {\"--fromat\": [\"json\"]}}", "",
             "expected a flag of 'infersim run'; did you mean --format? (see");
    bad_grid("{\"grid\": {\"--request-rate\": [1]}}", "", "unknown flag '--request-rate'");
    /* per-run outputs, as on the command line */
    bad_grid("{\"grid\": {\"format\": [\"csv\"]}}", "",
             "field 'grid.format': --format is the sweep's own flag"); /* the rows' format */
    bad_grid("{\"grid\": {\"--chrome-trace\": [\"t.json\"]}}", "", "--chrome-trace: not available");
    bad_grid("{\"grid\": {\"help\": [true]}}", "", "--help: not available");
    bad_grid("{\"grid\": {\"threads\": [2]}}", "", "--threads is the sweep's own flag");
    /* values checked as the command line's are */
    bad_grid("{\"grid\": {\"--batch\": []}}", "", "field 'grid.--batch' is [], expected");
    bad_grid("{\"grid\": {\"--batch\": [1, {}]}}", "", "not a string, number or boolean");
    bad_grid("{\"grid\": {\"model\": [\"\"]}}", "", "empty string");
    bad_grid("{\"grid\": {\"enforce-eager\": [\"yes\"]}}", "",
             "field 'grid.enforce-eager': --enforce-eager: value 'yes', expected true or false");
    bad_grid("{\"grid\": {}, \"gird\": {}}", "", "unknown field 'gird'");
    bad_grid("[1, 2]", "", "not a JSON object");
    expect_bad("sweep run --model llama-3.1-8b --hw h100-sxm --enforce-eager=false,yes",
               "--enforce-eager: value 'yes', expected true or false");
    /* a key longer than any flag is named whole, never cut */
    char key[200], json[400];
    memset(key, 'k', 120);
    key[120] = '\0';
    snprintf(json, sizeof json, "{\"grid\": {\"%s\": [1]}}", key);
    bad_grid(json, "", key);
    /* --grid twice: the first file's error used to be overwritten by the second's success */
    char g1[256];
    snprintf(g1, sizeof g1, "%s", tu_write_tmp("{\"grid\": {\"--fromat\": [\"csv\"]}}"));
    const char *g2 = tu_write_tmp("{\"grid\": {\"--batch\": [1]}}");
    char a[1024];
    snprintf(a, sizeof a, "sweep run --grid %s --grid %s --model llama-3.1-8b --hw h100-sxm", g1,
             g2);
    expect_bad(a, "--grid: given twice");
    expect_bad("sweep run --model llama-3.1-8b --hw h100-sxm --out a.csv --out=b.csv",
               "--out: given twice");
    /* more than 64 values: every one a point (the file's dimensions were cut at 64) */
    char big[1024] = "{\"command\": \"run\", \"grid\": {\"--batch\": [1";
    for (int b = 2; b <= 100; b++)
        snprintf(big + strlen(big), sizeof big - strlen(big), ", %d", b);
    snprintf(big + strlen(big), sizeof big - strlen(big), "]}}");
    snprintf(a, sizeof a, "sweep run --grid %s --model llama-3.1-8b --hw h100-sxm",
             tu_write_tmp(big));
    run(a);
    assert_int_equal(R.rc, 0);
    assert_int_equal(count_lines(R.out), 101);
    assert_non_null(strstr(R.out, "\n99,100,"));
    /* a value past 255 characters is kept whole (it was cut): the row's error names it all */
    char model[400] = "/nonexistent/";
    memset(model + strlen(model), 'm', 300);
    model[313] = '\0';
    char mj[600];
    snprintf(mj, sizeof mj, "{\"grid\": {\"model\": [\"%s\"], \"batch\": [1, 2]}}", model);
    snprintf(a, sizeof a, "sweep run --grid %s --hw h100-sxm", tu_write_tmp(mj));
    run(a);
    assert_int_equal(R.rc, 0);
    assert_int_equal(count_lines(R.out), 3);
    assert_non_null(strstr(R.out, model));
}

/* A flag swept twice used to keep its last value while the rows showed the first: refused. */
static void test_sweep_flag_given_twice(void **state)
{
    (void)state;
    const char *g = tu_write_tmp("{\"grid\": {\"--batch\": [1, 2]}}");
    char a[512];
    snprintf(a, sizeof a, "sweep run --grid %s --model llama-3.1-8b --hw h100-sxm --batch 4", g);
    expect_bad(a, "--batch: given twice");
    expect_bad("sweep run --model llama-3.1-8b --hw h100-sxm --batch 1,2 --batch 4",
               "--batch: given twice");
    expect_bad("sweep run --model llama-3.1-8b --hw h100-sxm --batch=1 --batch=1",
               "--batch: given twice");
    /* in a grid file too, "batch" and "--batch" are the same flag */
    g = tu_write_tmp("{\"grid\": {\"batch\": [1], \"--batch\": [2]}}");
    snprintf(a, sizeof a, "sweep run --grid %s --model llama-3.1-8b --hw h100-sxm", g);
    expect_bad(a, "--batch: given twice");
}

/* A sweep loads every file its points name before them (cli_load_cache_prepare), the devices of
 * --prefill-hw and --replica-hw too: each point here runs (50 requests completed on 2 GPUs) and
 * none reports "hw/h200.json was not preloaded", as both did when only --hw was loaded. */
static void test_sweep_other_devices(void **state)
{
    (void)state;
    const char *const cmds[] = {
        "sweep serve --model llama-3.1-8b --hw h100-sxm --disagg 1:1 --prefill-hw h200 "
        "--num-prompts 50 --request-rate 2,4 --uncertainty 0",
        "sweep serve --model llama-3.1-8b --hw h100-sxm --replica-hw h200:2 --num-prompts 50 "
        "--request-rate 2,4 --uncertainty 0"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        run(cmds[i]);
        assert_int_equal(R.rc, 0);
        assert_null(strstr(R.out, "not preloaded"));
        assert_non_null(strstr(R.out, "\n0,2,2,50,"));
        assert_non_null(strstr(R.out, "\n1,4,2,50,"));
    }
}

/* A sweep over devices marks the points on devices whose efficiencies are all defaults: the
 * hw_efficiency column (CSV, JSONL), the summary's [default-only] marks and the chart's key. */
static void test_sweep_marks_default_only(void **state)
{
    (void)state;
    run("sweep run --model llama-3.1-8b --hw h100-sxm,l40s,b300 --batch 8 --output-len 16 "
        "--threads 1");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, ",hw_efficiency,error,band_basis,"));
    assert_non_null(strstr(R.out, "\n0,h100-sxm,"));
    assert_non_null(strstr(R.out, ",fitted,,engine "));
    assert_non_null(strstr(R.out, ",default-only,,engine ")); /* l40s: estimates only */
    assert_non_null(strstr(R.out, ",inherited,,engine "));    /* b300: B200 fitted values */
    assert_non_null(strstr(R.err, "1 points on devices with default-only efficiencies"));
    char path[256];
    tu_snprintf(path, sizeof path, "%s/infersim-sweep-mark-%d.jsonl", tu_tmpdir(), (int)getpid());
    runf("sweep serve --model llama-3.1-8b --hw l40s --num-prompts 20 --threads 1 --out %s",
         path);
    assert_int_equal(R.rc, 0);
    char *rows = slurp(path);
    assert_non_null(rows);
    assert_non_null(strstr(rows, "\"hw_efficiency\":\"default-only\""));
    free(rows);
    assert_non_null(strstr(R.out, "[default-only]")); /* the frontier's only point */
    tu_snprintf(path, sizeof path, "%s/infersim-sweep-mark-%d.html", tu_tmpdir(), (int)getpid());
    runf("sweep run --model llama-3.1-8b --hw h100-sxm,l40s --batch 8 --output-len 16 "
         "--threads 1 --html %s",
         path);
    assert_int_equal(R.rc, 0);
    char *page = slurp(path);
    assert_non_null(page);
    assert_non_null(strstr(page, "device default-only"));
    assert_non_null(strstr(page, "device efficiencies default-only (unmeasured)"));
    free(page);
    remove(path);
}

/* Cost: the device file's price, --usd-per-gpu-hour over it, and the cheapest sweep point. */
static void test_cost(void **state)
{
    (void)state;
    double per_tok[2], per_hour[2];
    const char *price[2] = {"2.5", "5"};
    for (int i = 0; i < 2; i++) {
        char a[512];
        snprintf(a, sizeof a,
                 "run --model llama-3.1-8b --hw h100-sxm --tp 2 --batch 4 --input-len 512 "
                 "--output-len 64 --usd-per-gpu-hour %s --format json",
                 price[i]);
        run(a);
        assert_int_equal(R.rc, 0);
        cJSON *j = cJSON_Parse(R.out);
        assert_non_null(j);
        assert_int_equal((int)num(j, "gpus"), 2);
        per_hour[i] = num(j, "usd_per_hour");
        per_tok[i] = num(j, "usd_per_million_output_tokens");
        /* by hand: 2 GPUs x $2.5 = $5/h over output_throughput x 3600 tokens per hour */
        if (i == 0)
            assert_near(per_tok[0], 5.0 / (num(j, "output_throughput") * 3600.0) * 1e6, 1e-9);
        assert_true(num(j, "usd_per_million_total_tokens") < per_tok[i]);
        cJSON_Delete(j);
    }
    assert_near(per_hour[0], 5.0, 1e-12);
    assert_near(per_hour[1], 2.0 * per_hour[0], 1e-12);
    assert_near(per_tok[1], 2.0 * per_tok[0], 1e-12); /* doubling the price doubles cost/token */
    /* serve: the device file's own price */
    run("serve --model llama-3.2-1b --hw h100-sxm --num-prompts 20 --random-input-len 128 "
        "--random-output-len 16 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(j, "usd_per_gpu_hour"), 2.69, 1e-12);
    assert_near(num(j, "usd_per_million_output_tokens"),
                2.69 / (num(j, "output_throughput") * 3600.0) * 1e6, 1e-9);
    cJSON_Delete(j);
    /* a device file without a price: the keys are null and the table says unknown */
    char hw[256], a[768];
    tu_snprintf(hw, sizeof hw, "%s/infersim-noprice-%d.json", tu_tmpdir(), (int)getpid());
    char *src = slurp(tu_path("tests/data", "h100-fixture"));
    assert_non_null(src);
    assert_null(strstr(src, "usd_per_gpu_hour")); /* the fixture has no price */
    FILE *f = fopen(hw, "w");
    fputs(src, f);
    fclose(f);
    free(src);
    snprintf(a, sizeof a, "run --model llama-3.2-1b --hw %s --format json", hw);
    run(a);
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "usd_per_hour")));
    /* nor a power: the energy keys are null too */
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "avg_power_w")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "joules_per_output_token")));
    cJSON_Delete(j);
    snprintf(a, sizeof a, "run --model llama-3.2-1b --hw %s", hw);
    run(a);
    assert_non_null(strstr(R.out, "unknown"));
    /* sweep --objective cost: rows carry the price; the cheapest point under the SLO is named */
    char out[256];
    tu_snprintf(out, sizeof out, "%s/infersim-cost-%d.jsonl", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a,
             "sweep run --model llama-3.1-8b --hw h100-sxm,h200,a100-sxm-80gb --tp 1,2 "
             "--batch 16 --input-len 512 --output-len 64 --slo tpot:20 --objective cost --out %s",
             out);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "cheapest under the SLO: point"));
    f = fopen(out, "r");
    assert_non_null(f);
    char line[4096];
    double cheapest = INFINITY;
    long cheapest_point = -1;
    while (fgets(line, sizeof line, f)) {
        cJSON *r = cJSON_Parse(line);
        assert_non_null(r);
        double c = num(r, "usd_per_million_output_tokens");
        assert_true(c > 0.0);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "meets_slo")) && c < cheapest) {
            cheapest = c;
            cheapest_point = (long)num(r, "point");
        }
        cJSON_Delete(r);
    }
    fclose(f);
    char want[64];
    snprintf(want, sizeof want, "cheapest under the SLO: point %ld ", cheapest_point);
    assert_non_null(strstr(R.out, want));
    /* a point without a price cannot be ranked by cost: an error row naming the flag */
    snprintf(a, sizeof a, "sweep run --model llama-3.2-1b --hw %s,h100-sxm --objective cost --out %s",
             hw, out);
    run(a);
    assert_int_equal(R.rc, 0);
    char *rows = slurp(out);
    assert_non_null(strstr(rows, "give --usd-per-gpu-hour"));
    free(rows);
    remove(out);
    remove(hw);
    expect_bad("sweep run --model llama-3.2-1b --hw h100-sxm --objective speed", "--objective");
    /* sweep --objective energy: the least J per output token under the SLO is named, and a
     * device file without power is an error row naming the field */
    snprintf(a, sizeof a,
             "sweep run --model llama-3.1-8b --hw h100-sxm,h200,a100-sxm-80gb --batch 1,16 "
             "--input-len 512 --output-len 64 --slo tpot:20 --objective energy --out %s",
             out);
    run(a);
    assert_int_equal(R.rc, 0);
    f = fopen(out, "r");
    assert_non_null(f);
    double least = INFINITY;
    long least_point = -1;
    while (fgets(line, sizeof line, f)) {
        cJSON *r = cJSON_Parse(line);
        assert_non_null(r);
        double e = num(r, "joules_per_output_token");
        assert_true(e > 0.0);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "meets_slo")) && e < least) {
            least = e;
            least_point = (long)num(r, "point");
        }
        cJSON_Delete(r);
    }
    fclose(f);
    snprintf(want, sizeof want, "least energy under the SLO: point %ld ", least_point);
    assert_non_null(strstr(R.out, want));
    snprintf(a, sizeof a,
             "sweep run --model llama-3.2-1b --hw tpu-v5e,h100-sxm --objective energy --out %s",
             out);
    run(a);
    assert_int_equal(R.rc, 0);
    rows = slurp(out);
    assert_non_null(strstr(rows, "power.tdp_w"));
    free(rows);
    remove(out);
    expect_bad("run --model llama-3.2-1b --hw h100-sxm --usd-per-gpu-hour 0", "--usd-per-gpu-hour");
    expect_bad("run --model llama-3.2-1b --hw h100-sxm --usd-per-gpu-hour -1", "--usd-per-gpu-hour");
}

/* Per-device prices (--usd-per-gpu-hour DEVICE=USD,...): each device its own price in one
 * sweep (not crossed with --hw), the device file's where the list does not name it, a bare
 * number every device's; a malformed list or an unknown device is exit 2 naming the value. */
static void test_per_device_prices(void **state)
{
    (void)state;
    char out[256], a[768];
    tu_snprintf(out, sizeof out, "%s/infersim-prices-%d.jsonl", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a,
             "sweep run --model llama-3.2-1b --hw h100-sxm,b300,h200 --tp 1,2 --batch 4 "
             "--input-len 128 --output-len 16 --usd-per-gpu-hour h100-sxm=2.49,b300=7.5 --out %s",
             out);
    run(a);
    assert_int_equal(R.rc, 0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char line[4096];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        cJSON *r = cJSON_Parse(line);
        assert_non_null(r);
        const char *hw = cJSON_GetObjectItemCaseSensitive(r, "hw")->valuestring;
        /* by hand: GPUs x the device's price: 2.49, 7.5 given, the H200 file's 3.59 */
        double want = strcmp(hw, "h100-sxm") == 0 ? 2.49 : strcmp(hw, "b300") == 0 ? 7.5 : 3.59;
        assert_near(num(r, "usd_per_hour"), num(r, "gpus") * want, 1e-9);
        cJSON_Delete(r);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 6); /* 3 devices x 2 TP sizes: the list is one value */
    remove(out);
    run("run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour 2.5 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_near(num(j, "usd_per_gpu_hour"), 2.5, 1e-12);
    cJSON_Delete(j);
    run("run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour h200=1.25,l4=0.3 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_near(num(j, "usd_per_gpu_hour"), 1.25, 1e-12);
    cJSON_Delete(j);
    expect_bad("run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour h2oo=1", "'h2oo'");
    expect_bad("run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour h200=x", "'h200=x'");
    expect_bad("sweep run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour 1,0", "value '0'");
    expect_bad("sweep run --model llama-3.2-1b --hw h200 --usd-per-gpu-hour h200=1,b300",
               "item 'b300'");
}

/* A sweep page follows --objective: its summary's best point and the charts' highlighted one
 * are the point the command line names, for every objective; the cost view is on the page. */
static void test_sweep_page_objective(void **state)
{
    (void)state;
    const char *objs[][2] = {{"throughput", "best under the SLO: point "},
                             {"cost", "cheapest under the SLO: point "},
                             {"energy", "least energy under the SLO: point "}};
    char page[256], rows[256], a[1024];
    tu_snprintf(page, sizeof page, "%s/infersim-objpage-%d.html", tu_tmpdir(), (int)getpid());
    tu_snprintf(rows, sizeof rows, "%s/infersim-objpage-%d.csv", tu_tmpdir(), (int)getpid());
    long points[3];
    for (int k = 0; k < 3; k++) {
        snprintf(a, sizeof a,
                 "sweep run --model llama-3.1-8b --hw h100-sxm,h200,a100-sxm-80gb,l40s --batch "
                 "1,16,64 --input-len 512 --output-len 64 --slo tpot:30 --objective %s --html %s "
                 "--out %s",
                 objs[k][0], page, rows);
        run(a);
        assert_int_equal(R.rc, 0);
        const char *p = strstr(R.out, objs[k][1]);
        assert_non_null(p);
        points[k] = strtol(p + strlen(objs[k][1]), NULL, 10);
        char *html = slurp(page);
        assert_non_null(html);
        char want[128];
        snprintf(want, sizeof want, "Best by %s under the SLO</td><td class=\"v\">point %ld (",
                 objs[k][0], points[k]);
        assert_non_null(strstr(html, want));
        if (k == 0)
            snprintf(want, sizeof want, "best: point %ld,", points[k]);
        else
            snprintf(want, sizeof want, "best by %s: point %ld,", objs[k][0], points[k]);
        assert_non_null(strstr(html, want)); /* the charts' label */
        assert_non_null(strstr(html, "Cost per million output tokens against TPOT"));
        free(html);
    }
    /* the objectives pick different points here, so the page cannot be right by accident */
    assert_true(points[0] != points[1] || points[1] != points[2]);
    remove(page);
    remove(rows);
}

/* The row of `line` past its first k fields (the point index, the swept flags' values). */
static const char *past_fields(const char *line, int k)
{
    for (int i = 0; i < k; i++)
        line = strchr(line, ',') + 1;
    return line;
}

static void test_sweep_run_decode_kept(void **state)
{
    (void)state;
    /* a static sweep along --output-len: each thread takes the decode steps of its point before
     * (run.h's sim_run_decode); the rows are byte for byte those of each point swept alone, for
     * 1 and 2 threads, a point that fails (past the context) in the middle included */
    char a[1024], p1[256], p2[256], q[256];
    int pid = (int)getpid();
    tu_snprintf(p1, sizeof p1, "%s/infersim-swd1-%d.csv", tu_tmpdir(), pid);
    tu_snprintf(p2, sizeof p2, "%s/infersim-swd2-%d.csv", tu_tmpdir(), pid);
    tu_snprintf(q, sizeof q, "%s/infersim-swdq-%d.csv", tu_tmpdir(), pid);
    const char *base = "sweep run --model llama-3.1-8b --hw h100-sxm --input-len 200 "
                       "--uncertainty 0";
    const int64_t batch[] = {2, 5}, out[] = {40, 900, 200000, 300};
    snprintf(a, sizeof a, "%s --batch 2,5 --output-len 40,900,200000,300 --threads 1 --out %s",
             base, p1);
    run(a);
    assert_int_equal(R.rc, 0);
    snprintf(a, sizeof a, "%s --batch 2,5 --output-len 40,900,200000,300 --threads 2 --out %s",
             base, p2);
    run(a);
    assert_int_equal(R.rc, 0);
    char *one = slurp(p1), *two = slurp(p2);
    assert_non_null(one);
    assert_non_null(two);
    assert_string_equal(one, two);
    const char *line = strchr(one, '\n') + 1;
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 4; j++, line = strchr(line, '\n') + 1) {
            snprintf(a, sizeof a, "%s --batch %lld --output-len %lld --out %s", base,
                     (long long)batch[i], (long long)out[j], q);
            run(a);
            assert_int_equal(R.rc, 0);
            char *alone = slurp(q);
            assert_non_null(alone);
            const char *row = strchr(alone, '\n') + 1;
            /* past point, batch, output-len in the sweep's rows; past point alone's */
            const size_t len = strcspn(past_fields(row, 1), "\n");
            assert_int_equal(strcspn(past_fields(line, 3), "\n"), len);
            assert_memory_equal(past_fields(line, 3), past_fields(row, 1), len);
            assert_true((strstr(row, "context") != NULL) == (out[j] == 200000));
            free(alone);
        }
    free(one);
    free(two);
    remove(p1);
    remove(p2);
    remove(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_sweep_run_decode_kept),
        cmocka_unit_test(test_out_dash_is_stdout),
        cmocka_unit_test(test_sweep_slo_rows),
        cmocka_unit_test(test_sweep_grid_file),
        cmocka_unit_test(test_sweep_flag_given_twice),
        cmocka_unit_test(test_sweep_other_devices),
        cmocka_unit_test(test_sweep_grid_file_checks),
        cmocka_unit_test(test_sweep_marks_default_only),
        cmocka_unit_test(test_cost),
        cmocka_unit_test(test_per_device_prices),
        cmocka_unit_test(test_sweep_page_objective),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
