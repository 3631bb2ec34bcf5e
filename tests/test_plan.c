/* test_plan.c - `infersim plan`: the README's worked example reproduced, the launch lines'
 * flags against the configuration each came from, the same report for any thread count and
 * shard split, and bad input refused by name. */
#include "cliutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <unistd.h>

typedef struct result {
    int rc;
    char out[1 << 21];
    char err[1 << 14];
} result;

static result R; /* big: keep it off the stack */

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
    if (R.rc != 0)
        print_message("%s\n", R.err);
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

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsString(it)) {
        print_error("key '%s' missing or not a string\n", k);
        fail();
    }
    return it->valuestring;
}

static bool flag_on(const cJSON *o, const char *k)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* The README's worked example: Llama-3.1-70B at 20 req/s, 1024 + 256 tokens, p90 TTFT 500 ms and
 * TPOT 50 ms, vLLM in bf16 on H100 SXM and H200. The sweep there found 3 x TP 4 on 12 H100s the
 * cheapest ($32.28/hour at $2.69: 12 x 2.69); plan finds the same deployment without a grid. */
#define EXAMPLE                                                                                    \
    "plan --model llama-3.1-70b --hw h100-sxm,h200 --request-rate 20 --num-prompts 2000 "          \
    "--random-input-len 1024 --random-output-len 256 --slo ttft:500,tpot:50 --engines vllm "       \
    "--precisions default"

static void test_readme_example(void **state)
{
    (void)state;
    char rows[256];
    tu_snprintf(rows, sizeof rows, "%s/infersim-plan-example-%d.jsonl", tu_tmpdir(), (int)getpid());
    runf(EXAMPLE " --format json --out %s", rows);
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "winner");
    assert_true(cJSON_IsObject(w));
    assert_string_equal(str(w, "hw"), "h100-sxm");
    assert_int_equal((int)num(w, "tp"), 4);
    assert_int_equal((int)num(w, "replicas"), 3);
    assert_false(flag_on(w, "disagg"));
    assert_int_equal((int)num(w, "gpus"), 12);
    assert_near(num(w, "usd_per_hour"), 12 * 2.69, 1e-9);
    assert_true(num(w, "p_ttft_ms") <= 500.0 && num(w, "p_tpot_ms") <= 50.0);
    /* one instance's capacity says 3: ceil(20 / r1) with r1 between 20/3 and 10 */
    assert_true(num(w, "instance_max_rate") >= 20.0 / 3.0 && num(w, "instance_max_rate") < 10.0);
    /* the objective gpus never takes more GPUs than cost's winner */
    /* (the rows again, ranked by another objective: --from reports without re-running) */
    runf(EXAMPLE " --format json --objective gpus --from %s", rows);
    assert_int_equal(R.rc, 0);
    cJSON *g = cJSON_Parse(R.out);
    assert_true(num(cJSON_GetObjectItemCaseSensitive(g, "winner"), "gpus") <= num(w, "gpus"));
    cJSON_Delete(g);
    cJSON_Delete(j);
    /* the table names the winner and the lines to launch and measure it */
    runf(EXAMPLE " --from %s", rows);
    assert_int_equal(R.rc, 0);
    remove(rows);
    assert_non_null(strstr(R.out, "Winner: llama-3.1-70b on h100-sxm, vllm"));
    assert_non_null(strstr(R.out, "3 x TP 4: 12 GPUs, $32.28/hour"));
    assert_non_null(strstr(R.out, "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4"));
    assert_non_null(strstr(R.out, "vllm bench serve --backend vllm"));
}

/* The value after `flag` in `line` ("--tp 4" -> "4"); NULL when absent. */
static const char *value_of(const char *line, const char *flag, char *buf, size_t len)
{
    size_t fl = strlen(flag);
    for (const char *p = strstr(line, flag); p; p = strstr(p + 1, flag))
        if ((p == line || p[-1] == ' ') && (p[fl] == ' ' || p[fl] == '\0')) {
            const char *v = p + fl + (p[fl] == ' ');
            size_t n = strcspn(v, " ");
            snprintf(buf, len, "%.*s", (int)n, v);
            return buf;
        }
    return NULL;
}

static void expect_int(const char *line, const char *flag, long long want)
{
    char buf[64];
    const char *v = value_of(line, flag, buf, sizeof buf);
    if (!v || atoll(v) != want) {
        print_error("%s: %s is %s, expected %lld\n", line, flag, v ? v : "absent", want);
        fail();
    }
}

static void expect_absent(const char *line, const char *flag)
{
    char buf[64];
    if (value_of(line, flag, buf, sizeof buf)) {
        print_error("%s: %s present, expected absent\n", line, flag);
        fail();
    }
}

static void expect_num(const char *line, const char *flag, double want)
{
    char buf[64];
    const char *v = value_of(line, flag, buf, sizeof buf);
    if (!v || fabs(atof(v) - want) > 5e-4 * want) {
        print_error("%s: %s is %s, expected %.2f\n", line, flag, v ? v : "absent", want);
        fail();
    }
}

/* A searched speculation in each engine's spelling, written out by hand from the engines'
 * documentation (vLLM's --speculative-config JSON, SGLang's --speculative-* flags with a chain:
 * steps K, topk 1, K + 1 draft tokens; TensorRT-LLM's speculative_config in the options file). */
static const char *const spec_spellings[][4] = {
    {"eagle3:3", "--speculative-config '{\"method\":\"eagle3\",\"model\":\"HEAD\","
                 "\"num_speculative_tokens\":3}'",
     "--speculative-algorithm EAGLE3 --speculative-draft-model-path HEAD --speculative-num-steps 3 "
     "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
     "speculative_config: {\"decoding_type\":\"Eagle3\",\"max_draft_len\":3,"
     "\"speculative_model_dir\":\"HEAD\"}"},
    {"eagle:2", "--speculative-config '{\"method\":\"eagle\",\"model\":\"HEAD\","
                "\"num_speculative_tokens\":2}'",
     "--speculative-algorithm EAGLE --speculative-draft-model-path HEAD --speculative-num-steps 2 "
     "--speculative-eagle-topk 1 --speculative-num-draft-tokens 3",
     "speculative_config: {\"decoding_type\":\"Eagle\",\"max_draft_len\":2,"
     "\"speculative_model_dir\":\"HEAD\"}"},
    {"mtp:1", "--speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":1}'",
     "--speculative-algorithm NEXTN --speculative-num-steps 1 --speculative-eagle-topk 1 "
     "--speculative-num-draft-tokens 2",
     "speculative_config: {\"decoding_type\":\"MTP\",\"num_nextn_predict_layers\":1}"}};

/* The row's speculation in its engine's lines (serve lines, or the TensorRT-LLM options note):
 * present, spelled as above, exactly when the row has one; the note names the acceptance. */
static void check_spec_launch(const cJSON *r, const cJSON *launch)
{
    const char *spec = str(r, "spec");
    const char *eng = str(r, "engine");
    const int col = strcmp(eng, "vllm") == 0 ? 1 : strcmp(eng, "sglang") == 0 ? 2 : 3;
    const char *want = NULL;
    for (size_t i = 0; i < sizeof spec_spellings / sizeof spec_spellings[0]; i++)
        if (strcmp(spec_spellings[i][0], spec) == 0)
            want = spec_spellings[i][col];
    if (strcmp(spec, "none") != 0 && !want) {
        print_error("spec %s: no spelling in the test's table\n", spec);
        fail();
    }
    const cJSON *lines = cJSON_GetObjectItemCaseSensitive(launch, col == 3 ? "notes" : "serve");
    const cJSON *l;
    bool found = false, any = false;
    cJSON_ArrayForEach(l, lines)
    {
        found = found || (want && strstr(l->valuestring, want) != NULL);
        any = any || strstr(l->valuestring, col == 1   ? "--speculative-config"
                                             : col == 2 ? "--speculative-algorithm"
                                                        : "speculative_config") != NULL;
    }
    assert_true(want ? found : !any);
    if (!want)
        return;
    const char *ds = str(r, "spec_acceptance_data");
    bool named = false;
    cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(launch, "notes"))
        named = named || (ds[0] && strstr(l->valuestring, ds) != NULL);
    assert_true(named);
}

/* Each flag of the engine's line against the row's configuration. */
static void check_launch(const cJSON *r)
{
    const char *eng = str(r, "engine");
    const cJSON *launch = cJSON_GetObjectItemCaseSensitive(r, "launch");
    const cJSON *serve = cJSON_GetObjectItemCaseSensitive(launch, "serve");
    assert_int_equal(cJSON_GetArraySize(serve), flag_on(r, "disagg") ? 2 : 1);
    long long tp = (long long)num(r, "tp"), pp = (long long)num(r, "pp");
    long long ep = (long long)num(r, "ep"), dp = (long long)num(r, "dp");
    bool dpa = flag_on(r, "dp_attention");
    bool fp8 = strcmp(str(r, "precision"), "fp8") == 0;
    bool kv8 = strncmp(str(r, "kv_dtype"), "fp8", 3) == 0;
    /* a searched fp8 KV cache is the one the engine ran (the default here is 16-bit) */
    assert_true(strcmp(str(r, "kv_cache"), "fp8") != 0 || kv8);
    long long seqs = (long long)num(r, "max_num_seqs");
    long long toks = (long long)num(r, "max_num_batched_tokens");
    double util = num(r, "gpu_memory_utilization");
    const cJSON *line_j;
    cJSON_ArrayForEach(line_j, serve)
    {
        const char *l = line_j->valuestring;
        assert_non_null(strstr(l, str(r, "hf_id")));
        if (strcmp(eng, "vllm") == 0) {
            assert_true(strncmp(l, "vllm serve ", 11) == 0);
            expect_int(l, "--tensor-parallel-size", tp);
            pp > 1 ? expect_int(l, "--pipeline-parallel-size", pp)
                   : expect_absent(l, "--pipeline-parallel-size");
            dpa ? expect_int(l, "--data-parallel-size", dp) : expect_absent(l, "--data-parallel-size");
            assert_true((strstr(l, "--enable-expert-parallel") != NULL) == (ep > 1));
            expect_int(l, "--max-num-seqs", seqs);
            expect_int(l, "--max-num-batched-tokens", toks);
            expect_num(l, "--gpu-memory-utilization", util);
            assert_true((strstr(l, "--kv-cache-dtype fp8") != NULL) == kv8);
            assert_true((strstr(l, "--quantization fp8") != NULL) == fp8);
            assert_true((strstr(l, "--kv-transfer-config") != NULL) == flag_on(r, "disagg"));
        } else if (strcmp(eng, "sglang") == 0) {
            assert_true(strncmp(l, "python -m sglang.launch_server --model-path ", 44) == 0);
            expect_int(l, "--tp", tp * (dpa ? dp : 1)); /* SGLang's --tp: every GPU */
            dpa ? expect_int(l, "--dp", dp) : expect_absent(l, "--dp");
            assert_true((strstr(l, "--enable-dp-attention") != NULL) == dpa);
            ep > 1 ? expect_int(l, "--ep-size", ep) : expect_absent(l, "--ep-size");
            pp > 1 ? expect_int(l, "--pp-size", pp) : expect_absent(l, "--pp-size");
            expect_int(l, "--max-running-requests", seqs);
            expect_int(l, "--chunked-prefill-size", toks);
            expect_num(l, "--mem-fraction-static", util);
            assert_true((strstr(l, "--kv-cache-dtype fp8_e4m3") != NULL) == kv8);
            assert_true((strstr(l, "--quantization fp8") != NULL) == fp8);
            assert_true((strstr(l, "--disaggregation-mode") != NULL) == flag_on(r, "disagg"));
        } else {
            assert_string_equal(eng, "trtllm");
            assert_true(strncmp(l, "trtllm-serve ", 13) == 0);
            assert_non_null(strstr(l, "--backend pytorch"));
            expect_int(l, "--tp_size", tp * (dpa ? dp : 1));
            pp > 1 ? expect_int(l, "--pp_size", pp) : expect_absent(l, "--pp_size");
            ep > 1 ? expect_int(l, "--ep_size", ep) : expect_absent(l, "--ep_size");
            expect_int(l, "--max_batch_size", seqs);
            expect_int(l, "--max_num_tokens", toks);
            expect_num(l, "--kv_cache_free_gpu_memory_fraction", util);
            assert_true((strstr(l, "--extra_llm_api_options") != NULL) ==
                        (dpa || kv8 || flag_on(r, "disagg") || strcmp(str(r, "spec"), "none") != 0));
        }
    }
    check_spec_launch(r, launch);
    /* the notes: replicas and the P:D split as the row has them */
    const cJSON *notes = cJSON_GetObjectItemCaseSensitive(launch, "notes");
    char want[64];
    if (flag_on(r, "disagg"))
        snprintf(want, sizeof want, "%lld prefill instance", (long long)num(r, "prefill"));
    else if (num(r, "replicas") > 1)
        snprintf(want, sizeof want, "%lld replicas", (long long)num(r, "replicas"));
    else
        want[0] = '\0';
    if (want[0]) {
        bool found = false;
        const cJSON *n;
        cJSON_ArrayForEach(n, notes) found = found || strstr(n->valuestring, want) != NULL;
        assert_true(found);
    }
    /* the bench line replays the plan's workload, rate and SLO */
    const char *b = str(launch, "bench");
    assert_true(strncmp(b, "vllm bench serve --backend ", 27) == 0);
    expect_int(b, "--random-input-len", 512);
    expect_int(b, "--random-output-len", 64);
    expect_int(b, "--num-prompts", 100);
    expect_num(b, "--request-rate", 6.0);
    expect_int(b, "--metric-percentiles", 90);
    assert_non_null(strstr(b, "--goodput ttft:1000 tpot:60"));
}

/* Every engine's lines on a MoE model (EP, data-parallel attention, fp8, disaggregation): each
 * listed deployment's flags are those of its row. */
static void test_launch_lines(void **state)
{
    (void)state;
    runf("plan --model qwen3-30b-a3b --hw h100-sxm,mi300x --request-rate 6 --num-prompts 100 "
         "--random-input-len 512 --random-output-len 64 --slo ttft:1000,tpot:60 --top 1000 "
         "--max-gpus 8 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    const cJSON *d, *r;
    int checked = 0, dpa = 0, ep = 0, fp8 = 0, dis = 0, eng[3] = {0};
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(j, "devices"))
    {
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(d, "top"))
        {
            check_launch(r);
            checked++;
            dpa += flag_on(r, "dp_attention");
            ep += num(r, "ep") > 1;
            fp8 += strcmp(str(r, "precision"), "fp8") == 0;
            dis += flag_on(r, "disagg");
            eng[strcmp(str(r, "engine"), "vllm") == 0   ? 0
                : strcmp(str(r, "engine"), "sglang") == 0 ? 1
                                                          : 2]++;
            /* no TensorRT-LLM on an AMD device */
            assert_false(strcmp(str(d, "hw"), "mi300x") == 0 &&
                         strcmp(str(r, "engine"), "trtllm") == 0);
        }
    }
    /* the search spanned every kind of layout the lines spell */
    assert_true(checked > 20 && dpa > 0 && ep > 0 && fp8 > 0 && dis > 0);
    assert_true(eng[0] > 0 && eng[1] > 0 && eng[2] > 0);
    check_launch(cJSON_GetObjectItemCaseSensitive(j, "winner"));
    cJSON_Delete(j);
}

/* The same report for 1 and 2 threads, and from three shards joined by merge. */
static void test_threads_and_shards(void **state)
{
    (void)state;
#define SMALL                                                                                      \
    "plan --model llama-3.2-1b,llama-3.1-8b --hw h100-sxm,l4 --request-rate 30 --num-prompts 150 " \
    "--random-input-len 512 --random-output-len 64 --slo ttft:300,tpot:30 --precisions default "  \
    "--engines vllm,sglang"
    static char one[1 << 21];
    runf(SMALL " --threads 1 --format json");
    assert_int_equal(R.rc, 0);
    snprintf(one, sizeof one, "%s", R.out);
    runf(SMALL " --threads 2 --format json");
    assert_int_equal(R.rc, 0);
    assert_string_equal(R.out, one);
    char files[3][256], merged[256];
    for (int i = 0; i < 3; i++) {
        tu_snprintf(files[i], sizeof files[i], "%s/infersim-plan-%d-%d.jsonl", tu_tmpdir(),
                    (int)getpid(), i);
        runf(SMALL " --threads %d --shard %d/3 --out %s", 1 + i % 2, i, files[i]);
        assert_int_equal(R.rc, 0);
        assert_non_null(strstr(R.out, "plan: shard"));
    }
    tu_snprintf(merged, sizeof merged, "%s/infersim-plan-%d.jsonl", tu_tmpdir(), (int)getpid());
    runf("merge --out %s %s %s %s", merged, files[2], files[0], files[1]);
    assert_int_equal(R.rc, 0);
    runf(SMALL " --from %s --format json", merged);
    assert_int_equal(R.rc, 0);
    assert_string_equal(R.out, one);
    /* a shard missing: refused, naming the count */
    runf("merge --out %s %s %s", merged, files[0], files[1]);
    assert_int_equal(R.rc, 0);
    runf(SMALL " --from %s", merged);
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "a shard missing"));
    /* rows of another plan: refused */
    runf("merge --out %s %s %s %s", merged, files[0], files[1], files[2]);
    runf("plan --model llama-3.2-1b --hw h100-sxm,l4 --request-rate 30 --num-prompts 150 "
         "--slo ttft:300,tpot:30 --precisions default --engines vllm,sglang --from %s",
         merged);
    assert_int_equal(R.rc, 2);
    for (int i = 0; i < 3; i++)
        remove(files[i]);
    remove(merged);
}

/* The KV-cache format and speculation as searched dimensions (--kv-cache-dtypes, --spec-methods):
 * the candidates counted by hand, every listed line spelling them, and a candidate's row equal to
 * serve's run of its own launch and bench lines (the drop-in reads them back). */
#define VARIANTS                                                                                   \
    "plan --model llama-3.1-8b --hw h100-sxm --request-rate 6 --num-prompts 100 "                 \
    "--random-input-len 512 --random-output-len 64 --slo ttft:1000,tpot:60 --precisions default " \
    "--uncertainty 0 --top 1000 --format json "

static void test_kv_and_spec(void **state)
{
    (void)state;
    runf(VARIANTS "--kv-cache-dtypes default,fp8 --spec-methods none,eagle3");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    /* per engine (3) and KV format (2): without speculation TP 1, 2, 4, 8 each aggregated and
     * disaggregated, and TP 4, 8 over PP 2 (10); EAGLE-3 TP 1, 2, 4, 8 aggregated only
     * (speculation is modelled neither over pipeline stages nor disaggregated): 4. 3 x 2 x 14 */
    assert_int_equal((int)num(j, "candidates"), 84);
    int kv8 = 0, spec = 0, both = 0;
    const cJSON *d, *r;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(j, "devices"))
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(d, "top"))
        {
            check_launch(r);
            const bool k = strcmp(str(r, "kv_cache"), "fp8") == 0;
            const bool s = strcmp(str(r, "spec"), "eagle3:3") == 0;
            kv8 += k, spec += s, both += k && s;
            if (s) /* the published chain of 3 (vLLM issue #20780, MT-bench) */
                assert_string_equal(str(r, "spec_acceptance_data"), "mt-bench");
            char lay[64];
            snprintf(lay, sizeof lay, "%s%s", k ? " +kv fp8" : "", s ? " +eagle3:3" : "");
            assert_non_null(strstr(str(r, "layout"), lay));
        }
    assert_true(kv8 > 0 && spec > 0 && both > 0);
    /* the vLLM TP 1 row with both (--top 1000 lists every row that serves the rate): its lines,
     * run by serve's drop-in, give the row's metrics */
    const cJSON *pick = NULL;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(j, "devices"))
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(d, "top"))
            if (!pick && strcmp(str(r, "engine"), "vllm") == 0 && num(r, "tp") == 1 &&
                !flag_on(r, "disagg") && strcmp(str(r, "kv_cache"), "fp8") == 0 &&
                strcmp(str(r, "spec"), "eagle3:3") == 0)
                pick = r;
    assert_non_null(pick);
    assert_int_equal((int)num(pick, "replicas"), 1);
    const double ttft = num(pick, "p_ttft_ms"), tpot = num(pick, "p_tpot_ms");
    static char serve_line[2048], bench_line[2048];
    const cJSON *launch = cJSON_GetObjectItemCaseSensitive(pick, "launch");
    snprintf(serve_line, sizeof serve_line, "%s",
             cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(launch, "serve"), 0)->valuestring);
    /* the bench line saves vLLM's result file (--save-result): into the test's own folder */
    tu_snprintf(bench_line, sizeof bench_line, "%s --result-dir %s", str(launch, "bench"),
                tu_tmpdir());
    cJSON_Delete(j);
    assert_non_null(strstr(serve_line, "--kv-cache-dtype fp8 --speculative-config"));
    /* the lines hold quotes of both kinds: the words handed over as they are */
    char *argv[] = {"infersim", "serve", "--hw", "h100-sxm", "--server", serve_line, "--bench",
                    bench_line, "--spec-acceptance-data", "mt-bench", "--uncertainty", "0",
                    "--format", "json", NULL};
    FILE *out = tmpfile(), *errf = tmpfile();
    assert_non_null(out);
    assert_non_null(errf);
    const int rc = sim_cli_main(14, argv, out, errf);
    tu_read_back(errf, R.err, sizeof R.err, "stderr");
    if (rc)
        print_message("%s\n", R.err);
    assert_int_equal(rc, 0);
    tu_read_back(out, R.out, sizeof R.out, "stdout");
    fclose(out);
    fclose(errf);
    j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_float_equal(num(j, "p90_ttft_ms"), ttft, 1e-9 * ttft);
    assert_float_equal(num(j, "p90_tpot_ms"), tpot, 1e-9 * tpot);
    cJSON_Delete(j);
    /* speculation only: no row without it; MTP is no candidate of a model without MTP layers */
    runf(VARIANTS "--engines vllm --spec-methods eagle3,mtp");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_int_equal((int)num(j, "candidates"), 4);
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(j, "rows"))
        assert_string_equal(str(r, "spec"), "eagle3:3");
    cJSON_Delete(j);
    /* no published acceptance of the method on the model: unfit, saying so; a given one prices */
    runf(VARIANTS "--engines vllm --spec-methods eagle:2 --max-gpus 1");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_string_equal(str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "rows"), 0),
                            "status"),
                        "ok"); /* eagle chains of 2 on Llama-3.1-8B are published */
    cJSON_Delete(j);
    runf("plan --model llama-3.2-1b --hw h100-sxm --request-rate 6 --num-prompts 100 "
         "--random-input-len 512 --random-output-len 64 --slo ttft:1000,tpot:60 --engines vllm "
         "--precisions default --uncertainty 0 --spec-methods eagle3 --max-gpus 1 --format json");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "no published acceptance of eagle3 on llama-3.2-1b"));
    runf("plan --model llama-3.2-1b --hw h100-sxm --request-rate 6 --num-prompts 100 "
         "--random-input-len 512 --random-output-len 64 --slo ttft:1000,tpot:60 --engines vllm "
         "--precisions default --uncertainty 0 --spec-methods none,eagle3 --max-gpus 1 "
         "--spec-acceptance-rate 0.7 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    int aggregated = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(j, "rows"))
    {
        assert_string_equal(str(r, "spec_acceptance_data"), "");
        if (flag_on(r, "disagg")) /* 1P:1D takes 2 GPUs: past --max-gpus 1 */
            continue;
        assert_string_equal(str(r, "status"), "ok"); /* the rate applies to eagle3's row only */
        aggregated++;
    }
    assert_int_equal(aggregated, 2);
    cJSON_Delete(j);
}

static void test_bad_input(void **state)
{
    (void)state;
    const char *base = "plan --model llama-3.2-1b --hw h100-sxm --request-rate 5 --slo tpot:50";
    const char *cases[][2] = {
        {" --objective speed", "--objective: value 'speed'"},
        {" --engines vllm,tgi", "--engines: item 'tgi'"},
        {" --precisions int4", "--precisions: item 'int4'"},
        {" --tp 2", "--tp: does not apply to plan"},
        {" --replicas 2", "--replicas: does not apply"},
        {" --shard 0/2", "--shard: needs --out"},
        {" --usd-per-gpu-hour h100=2", "'h100'"},
        {" --slo-percentile 0", "--slo-percentile"},
        {" --kv-cache-dtypes int4", "--kv-cache-dtypes: item 'int4'"},
        {" --spec-methods medusa", "--spec-methods: item 'medusa'"},
        {" --spec-methods eagle3:0", "--spec-methods: item 'eagle3:0'"},
        {" --spec-methods none:2", "--spec-methods: item 'none:2'"},
        {" --spec-methods eagle3:3x", "--spec-methods: item 'eagle3:3x'"},
        {" --kv-cache-dtype fp8 --kv-cache-dtypes fp8", "--kv-cache-dtype with --kv-cache-dtypes"},
        {" --spec-method eagle --num-speculative-tokens 2 --spec-methods eagle",
         "--spec-method with --spec-methods"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        runf("%s%s", base, cases[i][0]);
        assert_int_equal(R.rc, 2);
        assert_non_null(strstr(R.err, cases[i][1]));
    }
    runf("plan --model llama-3.2-1b --hw h100-sxm --slo tpot:50");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "--request-rate: missing"));
    runf("plan --model llama-3.2-1b --hw h100-sxm --request-rate inf --slo tpot:50");
    assert_int_equal(R.rc, 2);
    runf("plan --model llama-3.2-1b --hw h100-sxm --request-rate 5");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "--slo"));
}

/* --html: the page holds the charts, the ranking and the winner's launch lines. */
static void test_html(void **state)
{
    (void)state;
    char page[256];
    tu_snprintf(page, sizeof page, "%s/infersim-plan-%d.html", tu_tmpdir(), (int)getpid());
    runf("plan --model llama-3.2-1b --hw h100-sxm,l4 --request-rate 30 --num-prompts 150 "
         "--random-input-len 512 --random-output-len 64 --slo ttft:300,tpot:30 --engines vllm "
         "--html %s",
         page);
    assert_int_equal(R.rc, 0);
    FILE *f = fopen(page, "r");
    assert_non_null(f);
    static char html[1 << 21];
    size_t n = fread(html, 1, sizeof html - 1, f);
    html[n] = '\0';
    fclose(f);
    assert_non_null(strstr(html, "The cheapest deployment of each model on each device"));
    assert_non_null(strstr(html, "US$ per hour against TPOT"));
    assert_non_null(strstr(html, "class=\"best\""));
    assert_non_null(strstr(html, "Winner: llama-3.2-1b on"));
    assert_non_null(strstr(html, "vllm bench serve"));
    /* the winner served again at the rate, each instance over time */
    assert_non_null(strstr(html, "The winner over time, per instance: vllm"));
    assert_non_null(strstr(html, "Requests in each instance"));
    assert_null(strstr(html, "<script"));
    remove(page);
}

/* Bands: the same device twice gives twin deployments, whose paired draws are identical: the
 * winner beats its twin with probability 0.5, and the two tie (every ratio 1). */
#define TWINS                                                                                      \
    "plan --model llama-3.2-1b --hw h100-sxm,h100-sxm --request-rate 30 --num-prompts 150 "        \
    "--random-input-len 512 --random-output-len 64 --engines vllm --precisions default "

static void test_bands_twins(void **state)
{
    (void)state;
    runf(TWINS "--slo ttft:300,tpot:30 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "winner");
    assert_true(cJSON_IsObject(w));
    assert_string_equal(str(w, "decision"), "winner");
    assert_float_equal(num(w, "beat_probability"), 0.5, 1e-12);
    assert_true(flag_on(w, "decision_tie"));
    /* the runner-up is the same candidate on the second h100-sxm: half the points further on */
    const int twin = (int)num(w, "decision_versus_point");
    const int n = (int)num(j, "candidates");
    assert_int_equal(twin, (int)num(w, "point") + n / 2);
    assert_non_null(strstr(str(w, "decision_text"), "a tie with point"));
    /* bands around the nominal values: lo <= value <= hi */
    assert_true(num(w, "band_draws") >= 2);
    static const char *const m[] = {"p_ttft_ms", "p_tpot_ms", "usd_per_million_output_tokens"};
    for (int i = 0; i < 3; i++) {
        char lo[64], hi[64];
        snprintf(lo, sizeof lo, "%s_lo", m[i]);
        snprintf(hi, sizeof hi, "%s_hi", m[i]);
        assert_true(num(w, lo) <= num(w, m[i]) && num(w, m[i]) <= num(w, hi));
        assert_true(num(w, lo) < num(w, hi));
    }
    /* a loose SLO holds under every draw: the cost band is the fleet's price itself */
    assert_float_equal(num(w, "slo_met_probability"), 1.0, 1e-12);
    assert_float_equal(num(w, "objective_lo"), num(w, "usd_per_hour"), 1e-9);
    assert_float_equal(num(w, "objective_hi"), num(w, "usd_per_hour"), 1e-9);
    /* a TPOT limit halfway between the winner's p90 TPOT and its band's top: the nominal run
     * meets it, the draws above it do not, so the SLO holds in some draws and not in others */
    char slo[64];
    snprintf(slo, sizeof slo, "ttft:300,tpot:%.4f",
             0.5 * (num(w, "p_tpot_ms") + num(w, "p_tpot_ms_hi")));
    cJSON_Delete(j);
    runf(TWINS "--max-gpus 1 --slo %s --format json", slo);
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    w = cJSON_GetObjectItemCaseSensitive(j, "winner");
    assert_true(cJSON_IsObject(w));
    const double held = num(w, "slo_met_probability");
    assert_true(held > 0.0 && held < 1.0);
    cJSON_Delete(j);
    /* the table and the CSV say the same; --uncertainty 0 has no band anywhere */
    runf(TWINS "--slo ttft:300,tpot:30");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "SLO held"));
    assert_non_null(strstr(R.out, "Decision (cost): a tie with point"));
    runf(TWINS "--slo ttft:300,tpot:30 --format csv");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, ",objective_lo,objective_hi,decision,beat_probability,"
                                  "decision_tie,decision_versus_point\n"));
    assert_non_null(strstr(R.out, ",winner,0.5,true,"));
    assert_non_null(strstr(R.out, ",runner_up,0.5,true,"));
    runf(TWINS "--slo ttft:300,tpot:30 --uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    assert_null(strstr(R.out, "band_draws"));
    assert_null(strstr(R.out, "beat_probability"));
    runf(TWINS "--slo ttft:300,tpot:30 --uncertainty 65");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "--uncertainty: value 65"));
}

/* --request-rate LO:HI: every row sized for HI says the fewest replicas of its kind that serve LO
 * (a plan at LO alone finds the same for an aggregated row: the same search from ceil(LO / r1))
 * and the highest rate the fleet sized for HI meets the SLO at, which is capacity's answer for
 * that deployment (the same search, the same workload). */
#define RANGE_LOAD                                                                                 \
    "--model llama-3.2-1b --hw l4 --num-prompts 300 --random-input-len 512 "                      \
    "--random-output-len 64 --slo ttft:300,tpot:30 --uncertainty 0 "
#define RANGE_BASE RANGE_LOAD "--engines vllm --precisions default "

static void test_rate_range(void **state)
{
    (void)state;
    runf("plan " RANGE_BASE "--request-rate 5:80 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_float_equal(num(j, "request_rate"), 80.0, 0.0);
    assert_float_equal(num(j, "request_rate_low"), 5.0, 0.0);
    runf("plan " RANGE_BASE "--request-rate 5 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *at_lo = cJSON_Parse(R.out);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(j, "rows"),
                *lo_rows = cJSON_GetObjectItemCaseSensitive(at_lo, "rows");
    int checked = 0, scaled = 0;
    for (int i = 0; i < cJSON_GetArraySize(rows); i++) {
        const cJSON *r = cJSON_GetArrayItem(rows, i), *l = cJSON_GetArrayItem(lo_rows, i);
        if (strcmp(str(r, "status"), "ok") != 0)
            continue;
        assert_true(num(r, "gpus_at_rate_low") >= 1 && num(r, "gpus_at_rate_low") <= num(r, "gpus"));
        const cJSON *mx = cJSON_GetObjectItemCaseSensitive(r, "max_request_rate");
        assert_true(cJSON_IsString(mx) || mx->valuedouble >= 80.0 / 1.02);
        if (flag_on(r, "disagg") || strcmp(str(l, "status"), "ok") != 0)
            continue;
        assert_int_equal((int)num(r, "replicas_at_rate_low"), (int)num(l, "replicas"));
        checked++;
        scaled += num(r, "replicas") > num(r, "replicas_at_rate_low");
    }
    assert_true(checked > 0 && scaled > 0); /* some fleet does shrink at the bottom */
    /* the winner's headroom in req/s is capacity's for its deployment */
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "winner");
    assert_false(flag_on(w, "disagg"));
    const double mx = num(w, "max_request_rate");
    char rep[32] = "";
    if (num(w, "replicas") > 1)
        snprintf(rep, sizeof rep, "--replicas %d", (int)num(w, "replicas"));
    runf("capacity " RANGE_LOAD "--engine vllm --tp %d %s --format json", (int)num(w, "tp"), rep);
    assert_int_equal(R.rc, 0);
    cJSON *cap = cJSON_Parse(R.out);
    assert_float_equal(num(cap, "max_request_rate"), mx, 0.0);
    cJSON_Delete(cap);
    cJSON_Delete(at_lo);
    cJSON_Delete(j);
    /* the table says both ends */
    runf("plan " RANGE_BASE "--request-rate 5:80");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "Plan: 5-80 req/s (sized for 80)"));
    assert_non_null(strstr(R.out, "GPUs@5"));
    assert_non_null(strstr(R.out, "At 5 req/s: "));
    /* a range is plan's; a bad one is refused by value */
    static const char *const bad[] = {"80:5", "5:", ":5", "a:b", "5:5", "0:5", "5:inf"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        runf("plan " RANGE_BASE "--request-rate %s", bad[i]);
        assert_int_equal(R.rc, 2);
        assert_non_null(strstr(R.err, "expected a range LO:HI"));
    }
    runf("serve --model llama-3.2-1b --hw l4 --request-rate 5:20");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "a range LO:HI is plan's"));
    runf("sweep serve --model llama-3.2-1b --hw l4 --num-prompts 10 --request-rate 5:20,30");
    assert_int_equal(R.rc, 0); /* a sweep's bad point is an invalid row, the others run */
    assert_non_null(strstr(R.out, "a range LO:HI is plan's"));
}

/* A DP-attention candidate runs at most DeepEP's low-latency buffer x ep / dp sequences per DP
 * group (cli_plan_internal.h): at --ep 2 --dp 2, 128 x 2 / 2 = 128 per group, 256 in all (serve
 * refuses a larger decode batch, step.h); a user's --max-num-seqs 8 (16 in all) stays. */
static void test_dp_attention_batch(void **state)
{
    (void)state;
    const char *base = "plan --model qwen3-30b-a3b --hw h100-sxm --max-gpus 2 --request-rate 1 "
                       "--num-prompts 300 --random-input-len 256 --random-output-len 32 "
                       "--slo ttft:5000,tpot:200 --format json";
    const char *extra[2] = {"", " --max-num-seqs 8"};
    const double want[2] = {256.0, 16.0};
    for (int i = 0; i < 2; i++) {
        runf("%s%s", base, extra[i]);
        assert_int_equal(R.rc, 0);
        cJSON *j = cJSON_Parse(R.out);
        assert_non_null(j);
        int dpa = 0;
        const cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(j, "rows"))
        {
            if (!flag_on(r, "dp_attention") || strcmp(str(r, "status"), "ok") != 0)
                continue;
            assert_near(num(r, "max_num_seqs"), want[i], 0);
            dpa++;
        }
        assert_true(dpa > 0);
        cJSON_Delete(j);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readme_example),
        cmocka_unit_test(test_launch_lines),
        cmocka_unit_test(test_threads_and_shards),
        cmocka_unit_test(test_kv_and_spec),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_html),
        cmocka_unit_test(test_bands_twins),
        cmocka_unit_test(test_rate_range),
        cmocka_unit_test(test_dp_attention_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
