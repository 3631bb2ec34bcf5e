/* test_cli_serve.c - `serve` end to end: its JSON and saved requests, bad input, speculative
 * decoding, Chrome traces, --html reports, public datasets and the deployment flags (--pp,
 * --replicas, --disagg).
 *
 * The cases run in this process through sim_cli_main (clitest.h, cliutil.h); the few that must
 * launch the infersim binary (run_process_in) say why. */
#include "clitest.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "jsonf.h"

static void test_serve(void **state)
{
    (void)state;
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 60 --random-input-len 300 "
        "--random-output-len 40 --random-range-ratio 0.5 --request-rate 20 --seed 3 "
        "--goodput ttft:200 tpot:40 --format json");
    assert_int_equal(R.rc, 0);
    assert_string_equal(R.err, "");
    assert_no_nonfinite(R.out);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    /* the keys of vLLM's --save-result file, plus infersim's own */
    static const char *const keys[] = {
        "completed",          "duration",          "total_input_tokens",     "total_output_tokens",
        "request_throughput", "output_throughput", "total_token_throughput", "request_goodput",
        "preemptions",        "mean_batch_size",   "kv_cache_peak_usage"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        num(j, keys[k]);
    static const char *const ms[] = {"ttft", "tpot", "itl", "e2el"};
    static const char *const st[] = {"mean", "median", "std", "p90", "p99"};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 5; b++) {
            char key[32];
            snprintf(key, sizeof key, "%s_%s_ms", st[b], ms[a]);
            assert_true(num(j, key) >= 0.0);
        }
    assert_near(num(j, "completed"), 60.0, 0);
    assert_near(num(j, "request_throughput"), 60.0 / num(j, "duration"), 1e-9);
    cJSON_Delete(j);
    /* the same seed gives the same output; another seed does not */
    static char first[sizeof R.out];
    memcpy(first, R.out, sizeof first);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 60 --random-input-len 300 "
        "--random-output-len 40 --random-range-ratio 0.5 --request-rate 20 --seed 3 "
        "--goodput ttft:200 tpot:40 --format json");
    assert_string_equal(first, R.out);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 60 --random-input-len 300 "
        "--random-output-len 40 --random-range-ratio 0.5 --request-rate 20 --seed 4 "
        "--goodput ttft:200 tpot:40 --format json");
    assert_true(strcmp(first, R.out) != 0);
    /* vLLM's table, and a trace replayed */
    runf("serve --model llama-3.1-8b --hw h100-sxm --trace %s/traces/azure-conv-sample.csv "
         "--time-scale 0.5",
         tu_root());
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "============ Serving Benchmark Result ============\n"));
    assert_non_null(strstr(R.out, "Successful requests:                     300"));
    assert_non_null(strstr(R.out, "---------------Time to First Token----------------\n"));
    assert_non_null(strstr(R.out, "Mean TTFT (ms):"));
    runf("serve --model llama-3.1-8b --hw h100-sxm --trace %s/traces/mooncake-sample.jsonl "
         "--num-prompts 20 --format csv",
         tu_root());
    assert_int_equal(R.rc, 0);
    assert_int_equal(count_lines(R.out), 2);
}

static void test_serve_save_requests(void **state)
{
    (void)state;
    char path[256], cmd[512];
    tu_snprintf(path, sizeof path, "%s/infersim-req-%d.csv", tu_tmpdir(), (int)getpid());
    snprintf(cmd, sizeof cmd,
             "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 25 --random-input-len 100 "
             "--random-output-len 10 --save-requests %s --format json",
             path);
    run(cmd);
    assert_int_equal(R.rc, 0);
    char *csv = slurp(path);
    assert_non_null(csv);
    assert_int_equal(count_lines(csv), 26); /* header + 25 requests */
    free(csv);
    assert_int_equal(tu_temporaries(path), 0); /* renamed, nothing half-written left */
    remove(path);
}

static void test_serve_bad_input(void **state)
{
    (void)state;
    const char *base = "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 5";
    char a[1024];
    bad_flag(base, "--request-rate abc", "--request-rate");
    bad_flag(base, "--request-rate 0", "--request-rate");
    bad_flag(base, "--random-range-ratio 1", "--random-range-ratio");
    bad_flag(base, "--max-num-seqs 0", "--max-num-seqs");
    bad_flag(base, "--block-size -16", "--block-size");
    bad_flag(base, "--goodput latency:5", "--goodput");
    bad_flag(base, "--time-scale 2", "--time-scale");
    bad_flag(base, "--trace azure-conv-sample.csv --random-input-len 5", "--random-input-len");
    bad_flag(base, "--trace /nonexistent/trace.csv", "/nonexistent/trace.csv");
    bad_flag(base, "--random-input-len 200000", "max_position_embeddings");
    /* images: a model without a vision encoder, a malformed size */
    bad_flag(base, "--random-images-per-request 1", "--images-per-request");
    bad_flag("serve --model qwen2.5-vl-72b --hw h100-sxm --tp 4 --num-prompts 5",
             "--images-per-request 1 --image-size 1280x", "--image-size");
    bad_flag("run --model qwen2.5-vl-72b --hw h100-sxm --tp 4", "--image-size 0x720",
             "--image-size");
    bad_flag(base, "--swa-full-tokens-ratio 0.5", "--swa-full-tokens-ratio");
    bad_flag(base, "--save-requests /nonexistent/dir/r.csv", "--save-requests");
    bad_flag(base, "--batch 4", "--batch");
    const char *p = tu_write_tmp("when,in,out\n1,2,3\n");
    snprintf(a, sizeof a, "%s --trace %s", base, p);
    expect_bad(a, "unknown trace format");
    p = tu_write_tmp("arrival_s,input_tokens,output_tokens\n0,100,10\n1,200000,10\n");
    snprintf(a, sizeof a, "%s --trace %s", base, p);
    expect_bad(a, ":3:");
    p = tu_write_tmp("arrival_s,input_tokens,output_tokens\n0,100,10\n1,x,10\n");
    snprintf(a, sizeof a, "%s --trace %s", base, p);
    expect_bad(a, ":3: field 'input_tokens'");
}

static void test_spec_flags(void **state)
{
    (void)state;
    run("run --model llama-3.1-8b --hw h100-sxm --batch 4 --spec-method draft "
        "--spec-model llama-3.2-1b --num-speculative-tokens 4 --spec-acceptance-rate 0.7 "
        "--format json");
    assert_int_equal(R.rc, 0);
    assert_no_nonfinite(R.out);
    cJSON *j = cJSON_Parse(R.out);
    assert_near(num(j, "spec_acceptance_length"), (1 - pow(0.7, 5)) / 0.3, 1e-9);
    assert_true(num(j, "spec_draft_ms") > 0 && num(j, "spec_verify_ms") > 0);
    assert_true(num(j, "spec_speedup") > 1.0);
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 40 --random-input-len 200 "
        "--random-output-len 64 --request-rate 10 --spec-method medusa "
        "--num-speculative-tokens 3 --spec-acceptance-length 2.2 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_near(num(j, "spec_acceptance_length"), 2.2, 0.1);
    assert_true(num(j, "spec_draft_time_fraction") > 0);
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 20 --spec-method ngram "
        "--num-speculative-tokens 2 --spec-acceptance-rate 0.5");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "Acceptance length (tokens/verify):"));
    const char *base = "run --model llama-3.1-8b --hw h100-sxm";
    char a[512];
    snprintf(a, sizeof a, "%s --num-speculative-tokens 4", base);
    expect_bad(a, "--spec-method");
    snprintf(a, sizeof a, "%s --spec-method lookahead --num-speculative-tokens 4", base);
    expect_bad(a, "--spec-method");
    snprintf(a, sizeof a, "%s --spec-method ngram --spec-acceptance-rate 0.5", base);
    expect_bad(a, "--num-speculative-tokens");
    snprintf(a, sizeof a,
             "%s --spec-method draft --num-speculative-tokens 4 "
             "--spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "--spec-model");
    snprintf(a, sizeof a,
             "%s --spec-method ngram --num-speculative-tokens 4 "
             "--spec-acceptance-rate 1.5",
             base);
    expect_bad(a, "--spec-acceptance-rate");
    snprintf(a, sizeof a,
             "%s --spec-method draft --spec-model llama-2-7b "
             "--num-speculative-tokens 4 --spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "vocab_size");
    /* an EAGLE-3 head's draft vocabulary: its own smaller LM head drafts faster and weighs
     * less; refused for another method and past the target's vocabulary */
    run("run --model llama-3.1-8b --hw h100-sxm --speculative-config "
        "{\"method\":\"eagle3\",\"num_speculative_tokens\":3} --spec-acceptance-length 2.8 "
        "--format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    double full = num(j, "spec_draft_ms");
    cJSON_Delete(j);
    run("run --model llama-3.1-8b --hw h100-sxm --speculative-config "
        "{\"method\":\"eagle3\",\"num_speculative_tokens\":3} --spec-acceptance-length 2.8 "
        "--spec-draft-vocab 32000 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_true(num(j, "spec_draft_ms") < full);
    cJSON_Delete(j);
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle\",\"num_speculative_tokens\":3} "
             "--spec-acceptance-rate 0.5 --spec-draft-vocab 32000",
             base);
    expect_bad(a, "--spec-draft-vocab");
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle3\",\"num_speculative_tokens\":3} "
             "--spec-acceptance-rate 0.5 --spec-draft-vocab 200000",
             base);
    expect_bad(a, "128256");
    /* the engines' own spellings: bad JSON, an unknown method or field, a key twice, each exit 2
     * naming it; one engine's flags under another's refused */
    snprintf(a, sizeof a, "%s --speculative-config {\"method\":\"eagle3\" --spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "not a JSON object");
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle4\",\"num_speculative_tokens\":3} "
             "--spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "field 'method'");
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle\",\"num_speculative_tokens\":3,"
             "\"tree\":1} --spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "field 'tree'");
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle\",\"method\":\"ngram\","
             "\"num_speculative_tokens\":3} --spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "twice");
    snprintf(a, sizeof a, "%s --speculative-algorithm EAGLE3 --spec-acceptance-rate 0.5", base);
    expect_bad(a, "--speculative-algorithm");
    snprintf(a, sizeof a,
             "%s --engine sglang --speculative-algorithm EAGLE3 --speculative-num-steps 3 "
             "--spec-acceptance-rate 0.5",
             base);
    expect_bad(a, "all three");
    snprintf(a, sizeof a, "%s --engine trtllm --speculative-config {\"decoding_type\":\"Eagle9\"} "
             "--spec-acceptance-rate 0.5", base);
    expect_bad(a, "decoding_type");
    snprintf(a, sizeof a,
             "%s --speculative-config {\"method\":\"eagle\",\"num_speculative_tokens\":3} "
             "--spec-acceptance-rates 0.8,0.9,0.5",
             base);
    expect_bad(a, "--spec-acceptance-rates");
    /* the SGLang tree runs, and its cap of 48 running requests applies unless a flag sets it */
    snprintf(a, sizeof a,
             "%s --engine sglang --speculative-algorithm EAGLE3 --speculative-num-steps 6 "
             "--speculative-eagle-topk 10 --speculative-num-draft-tokens 32 "
             "--spec-acceptance-length 5 --format json",
             base);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"num_speculative_tokens\":\t31"));
    assert_non_null(strstr(R.out, "\"spec_depth\":\t6"));
    run("serve --model llama-3.1-8b --hw h100-sxm --engine sglang --num-prompts 60 "
        "--request-rate inf --random-input-len 64 --random-output-len 32 "
        "--speculative-algorithm NEXTN --spec-acceptance-rate 0.7");
    assert_int_equal(R.rc, 2); /* llama-3.1-8b has no MTP layers */
    run("serve --model llama-3.1-8b --hw h100-sxm --engine sglang --num-prompts 60 "
        "--request-rate inf --random-input-len 64 --random-output-len 32 "
        "--speculative-algorithm EAGLE --spec-acceptance-rate 0.7 --format json");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"max_num_seqs\":\t48"));
    assert_non_null(strstr(R.out, "\"max_concurrent_requests\":\t60"));
}

static void test_chrome_traces(void **state)
{
    (void)state;
    char path[256], a[512];
    tu_snprintf(path, sizeof path, "%s/infersim-cli-trace-%d.json", tu_tmpdir(), (int)getpid());
    snprintf(a, sizeof a,
             "run --model llama-3.1-8b --hw h100-sxm --tp 2 --batch 4 "
             "--output-len 8 --chrome-trace %s --format json",
             path);
    run(a);
    assert_int_equal(R.rc, 0);
    FILE *trf = fopen(path, "r");
    assert_non_null(trf);
    char tbuf[1 << 16];
    size_t tn = fread(tbuf, 1, sizeof tbuf - 1, trf);
    fclose(trf);
    tbuf[tn] = '\0';
    /* the prefill's 32 MiB all-reduces are past the custom limit: NCCL's ring */
    assert_non_null(strstr(tbuf, "\"collective_algo\":\"ring\",\"collective_protocol\":\""));
    snprintf(a, sizeof a, "trace-check %s", path);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, ": ok:"));
    snprintf(a, sizeof a,
             "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 50 "
             "--request-rate 20 --trace-detail layer --trace-window 0.5:2 "
             "--chrome-trace %s --format json",
             path);
    run(a);
    assert_int_equal(R.rc, 0);
    snprintf(a, sizeof a, "trace-check %s", path);
    run(a);
    assert_int_equal(R.rc, 0);
    remove(path);
    /* --pp 2: a process per stage, named with its layers, on run and serve; both pass */
    static const char *const pp_cmds[] = {
        "run --model llama-3.1-8b --hw h100-sxm --pp 2 --batch 4 --output-len 8 --trace-ranks all",
        "serve --model llama-3.1-8b --hw h100-sxm --pp 2 --num-prompts 20 --request-rate 20"};
    for (int k = 0; k < 2; k++) {
        snprintf(a, sizeof a, "%s --chrome-trace %s --format json", pp_cmds[k], path);
        run(a);
        assert_int_equal(R.rc, 0);
        trf = fopen(path, "r");
        assert_non_null(trf);
        tn = fread(tbuf, 1, sizeof tbuf - 1, trf);
        fclose(trf);
        tbuf[tn] = '\0';
        assert_non_null(
            strstr(tbuf, k ? "\"stage 0: layers 0-15\"" : "\"stage 0 GPU 0: layers 0-15\""));
        assert_non_null(
            strstr(tbuf, k ? "\"stage 1: layers 16-31\"" : "\"stage 1 GPU 1: layers 16-31\""));
        snprintf(a, sizeof a, "trace-check %s", path);
        run(a);
        assert_int_equal(R.rc, 0);
        remove(path);
    }
    /* an autoscaled pool's timeline: a replicas counter (ready, held), valid for trace-check */
    snprintf(a, sizeof a,
             "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 900 --rate-schedule 0:5,30:30 "
             "--random-input-len 128 --random-output-len 8 --autoscale 1:3 --autoscale-metric "
             "rate --autoscale-target 11 --uncertainty 0 --chrome-trace %s --format json",
             path);
    run(a);
    assert_int_equal(R.rc, 0);
    char *as_trace = slurp(path);
    assert_non_null(as_trace);
    assert_non_null(strstr(as_trace, "\"name\":\"replicas\""));
    assert_non_null(strstr(as_trace, "\"held\":3"));
    free(as_trace);
    snprintf(a, sizeof a, "trace-check %s", path);
    run(a);
    assert_int_equal(R.rc, 0);
    remove(path);
    /* a 1,000-request serve trace at the default (iteration) detail stays well under 100 MB */
    snprintf(a, sizeof a,
             "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 1000 "
             "--random-input-len 512 --random-output-len 256 --request-rate 8 "
             "--chrome-trace %s --format json",
             path);
    run(a);
    assert_int_equal(R.rc, 0);
    FILE *tf = fopen(path, "rb");
    assert_non_null(tf);
    fseek(tf, 0, SEEK_END);
    long size = ftell(tf);
    fclose(tf);
    assert_true(size > 1000000 && size < 30000000); /* measured ~9 MB */
    remove(path);
    const char *base = "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 5";
    snprintf(a, sizeof a, "%s --chrome-trace %s --trace-window 3:1", base, path);
    expect_bad(a, "--trace-window");
    snprintf(a, sizeof a, "%s --chrome-trace %s --trace-detail kernel", base, path);
    expect_bad(a, "--trace-detail");
    snprintf(a, sizeof a, "%s --trace-detail op", base);
    expect_bad(a, "--chrome-trace");
    snprintf(a, sizeof a, "%s --chrome-trace /nonexistent/dir/t.json", base);
    expect_bad(a, "--chrome-trace");
    assert_int_not_equal(access(path, F_OK), 0); /* failed runs leave no file */
    /* traces: the rank choice, and a refusal past --trace-max-mb before a byte is written */
    snprintf(a, sizeof a,
             "run --model llama-3.1-8b --hw h100-sxm --chrome-trace %s --trace-ranks two", path);
    expect_bad(a, "--trace-ranks");
    expect_bad("run --model llama-3.1-8b --hw h100-sxm --trace-ranks all", "--chrome-trace");
    /* serve's limit is checked as the file streams: the partial file is removed, the message
     * the same, the size the bytes written scaled to the run's simulated time (the whole file,
     * written without the limit, is 12.49 MB) */
    snprintf(a, sizeof a,
             "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 200 "
             "--random-input-len 512 --random-output-len 256 --request-rate 8 "
             "--trace-detail layer --trace-max-mb 2 --chrome-trace %s",
             path);
    expect_bad(a, "--chrome-trace: the serve timeline at --trace-detail layer would take about 12 MB");
    assert_non_null(strstr(R.err, " MB, past --trace-max-mb 2; raise the limit or write less"));
    assert_int_not_equal(access(path, F_OK), 0);
    snprintf(a, sizeof a,
             "run --model llama-3.1-70b --hw h100-sxm --tp 8 --batch 32 --input-len 2048 "
             "--chrome-trace %s --trace-ranks all --trace-max-mb 2",
             path);
    expect_bad(a, "the run timeline of 8 ranks would take about 7 MB");
    assert_int_not_equal(access(path, F_OK), 0);
    expect_bad("trace-check /nonexistent/trace.json", "/nonexistent/trace.json");
    const char *bad = tu_write_tmp("{\"traceEvents\": [{\"ph\": \"X\", \"pid\": 1, "
                                   "\"tid\": 1, \"name\": \"a\", \"ts\": 0, \"dur\": 1}]}");
    snprintf(a, sizeof a, "trace-check %s", bad);
    expect_bad(a, "process_name");
}

/* --html on run, serve and sweep: a page with its charts, the usual output unchanged. */
static void test_html_reports(void **state)
{
    (void)state;
    char path[256], a[768];
    tu_snprintf(path, sizeof path, "%s/infersim-cli-report-%d.html", tu_tmpdir(), (int)getpid());
    static const struct {
        const char *args, *must_hold, *stdout_holds;
        int svgs;
    } cases[] = {
        {"run --model llama-3.1-8b --hw h100-sxm --batch 8 --output-len 16", "class=\"op\"",
         "TTFT (ms)", 3},
        {"run --model llama-3.1-8b --hw h100-sxm --batch 8 --output-len 16 --spec-method ngram "
         "--num-speculative-tokens 4 --spec-acceptance-rate 0.8",
         "draft vs verify", "TTFT (ms)", 4},
        /* 4 CDFs, 3 series (no preemptions in this run: no panel), the requests */
        {"serve --model llama-3.1-8b --hw h100-sxm --num-prompts 200 --request-rate 20 "
         "--goodput ttft:500 tpot:50",
         "SLO 500 ms", "Serving Benchmark Result", 8},
        {"sweep serve --model llama-3.1-8b --hw h100-sxm --num-prompts 50 --request-rate 2,50 "
         "--max-num-seqs 16,64 --slo ttft:2000,tpot:100 --threads 1",
         "class=\"front\"", "point,", 4},
        /* an autoscaled pool: the latency CDFs, the replicas over time, the requests */
        {"serve --model llama-3.1-8b --hw h100-sxm --num-prompts 600 --rate-schedule 0:5,30:30 "
         "--autoscale 1:4 --autoscale-metric rate --autoscale-target 11 --uncertainty 0",
         "Replicas over time", "autoscaled 1..4 on rate", 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        remove(path);
        snprintf(a, sizeof a, "%s --html %s", cases[i].args, path);
        run(a);
        assert_int_equal(R.rc, 0);
        assert_non_null(strstr(R.out, cases[i].stdout_holds));
        char *page = slurp(path);
        assert_non_null(page);
        assert_true(strncmp(page, "<!DOCTYPE html>", 15) == 0);
        assert_non_null(strstr(page, cases[i].must_hold));
        assert_null(strstr(page, "<script"));
        int svgs = 0;
        for (const char *p = strstr(page, "<svg "); p; p = strstr(p + 1, "<svg "))
            svgs++;
        if (svgs < cases[i].svgs) {
            print_error("%s: %d charts, expected at least %d\n", cases[i].args, svgs,
                        cases[i].svgs);
            fail();
        }
        assert_no_nonfinite(page);
        free(page);
    }
    remove(path);
    expect_bad("run --model llama-3.1-8b --hw h100-sxm --html /nonexistent/dir/r.html", "--html");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 5 "
               "--html /nonexistent/dir/r.html",
               "--html");
    /* a sweep's page is written before its rows: nothing on stdout when it fails */
    expect_bad("sweep serve --model llama-3.1-8b --hw h100-sxm --num-prompts 5 --tp 1,2 "
               "--html /nonexistent/dir/r.html",
               "--html");
    /* the grid file cannot hold it: it is the sweep's own flag */
    const char *grid = tu_write_tmp("{\"command\": \"serve\", \"grid\": {\"html\": [\"a.html\"]}}");
    snprintf(a, sizeof a, "sweep serve --model llama-3.1-8b --hw h100-sxm --grid %s", grid);
    expect_bad(a, "sweep's own flag");
    assert_int_not_equal(access("/nonexistent/dir/r.html", F_OK), 0);
}

/* --pp on run and serve (the JSON names the stages, gpus is tp x pp); --replicas behind a
 * --router (gpus and cost multiply, per-replica load); --disagg P:D pools */
static void test_deployment_flags(void **state)
{
    (void)state;
    run("run --model llama-3.1-8b --hw h100-sxm --tp 2 --pp 2 --batch 4 --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(j, "pp"), 2.0, 0);
    assert_near(num(j, "gpus"), 4.0, 0);
    cJSON_Delete(j);
    run("serve --model llama-3.1-70b --hw h100-sxm --pp 2 --num-prompts 20 --random-input-len 200 "
        "--random-output-len 20 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(j, "gpus"), 2.0, 0);
    assert_near(num(j, "completed"), 20.0, 0);
    cJSON_Delete(j);
    run("run --model llama-3.1-8b --hw h100-sxm --pp 2");
    assert_non_null(strstr(R.out, "pipeline: 2 stages of 1 GPU, layers 16/16"));
    expect_bad("run --model llama-3.1-8b --hw h100-sxm --pp 33", "--pp: value 33");
    /* replicas: gpus and cost follow, per-replica load in the JSON */
    runf("serve --model llama-3.1-8b --hw h100-sxm --replicas 3 --router prefix-aware "
         "--trace %s/traces/mooncake-sample.jsonl --num-prompts 30 --format json",
         tu_root());
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(j, "gpus"), 3.0, 0);
    assert_near(num(j, "replicas"), 3.0, 0);
    assert_near(num(j, "usd_per_hour"), 3.0 * num(j, "usd_per_gpu_hour"), 1e-12);
    assert_between(num(j, "router_prefix_match_rate"), 0.0, 1.0);
    const cJSON *load = cJSON_GetObjectItemCaseSensitive(j, "replica_load");
    assert_int_equal(cJSON_GetArraySize(load), 3);
    double n = 0;
    for (int i = 0; i < 3; i++)
        n += num(cJSON_GetArrayItem(load, i), "requests");
    assert_near(n, 30.0, 0);
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --replicas 2 --num-prompts 10");
    assert_non_null(
        strstr(R.out, "2 replicas, router least-outstanding; requests per replica: 5 5"));
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --replicas 2 --router random",
               "--router: value 'random'");
    /* --html of several engines: per replica, and per pool and instance with --disagg */
    char hpath[256], hcmd[512];
    tu_snprintf(hpath, sizeof hpath, "%s/infersim-deploy-%d.html", tu_tmpdir(), (int)getpid());
    snprintf(hcmd, sizeof hcmd,
             "serve --model llama-3.1-8b --hw h100-sxm --replicas 2 --num-prompts 10 --html %s",
             hpath);
    run(hcmd);
    assert_int_equal(R.rc, 0);
    char *page = slurp(hpath);
    assert_non_null(page);
    assert_non_null(strstr(page, "Replica 1</td><td class=\"v\">5 requests"));
    /* and each replica's run over time: four charts, a line per replica */
    assert_non_null(strstr(page, "Requests in each instance"));
    assert_non_null(strstr(page, "KV-cache usage of each instance"));
    assert_non_null(strstr(page, ">replica 1<"));
    assert_null(strstr(page, "not charted"));
    free(page);
    snprintf(hcmd, sizeof hcmd,
             "serve --model llama-3.1-8b --hw h100-sxm --disagg 1:2 --num-prompts 10 --html %s",
             hpath);
    run(hcmd);
    assert_int_equal(R.rc, 0);
    page = slurp(hpath);
    assert_non_null(page);
    assert_non_null(strstr(page, "Prefill pool (1 instances)</td><td class=\"v\">10 requests"));
    assert_non_null(strstr(page, "Decode instance 1"));
    assert_non_null(strstr(page, ">prefill 0<"));
    assert_non_null(strstr(page, ">decode 1<"));
    free(page);
    remove(hpath);
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --replicas 2 --chrome-trace /tmp/x.json "
               "--trace-detail op",
               "--trace-detail: applies to one engine's timeline");
    /* the timelines of several engines: a process per instance, requests, KV transfers */
    char tpath[256], tcmd[512];
    tu_snprintf(tpath, sizeof tpath, "%s/infersim-deploy-%d.json", tu_tmpdir(), (int)getpid());
    snprintf(tcmd, sizeof tcmd,
             "serve --model llama-3.1-8b --hw h100-sxm --disagg 1:2 --num-prompts 12 "
             "--request-rate 10 --chrome-trace %s",
             tpath);
    run(tcmd);
    assert_int_equal(R.rc, 0);
    char *tr = slurp(tpath);
    assert_non_null(tr);
    assert_non_null(strstr(tr, "\"prefill 0\""));
    assert_non_null(strstr(tr, "\"decode 1\""));
    assert_non_null(strstr(tr, "\"kv transfer\""));
    free(tr);
    snprintf(tcmd, sizeof tcmd, "trace-check %s", tpath);
    run(tcmd);
    assert_int_equal(R.rc, 0);
    /* 12 requests x 3 spans (prefill, transfer, decode) x (begin, end) */
    assert_non_null(strstr(R.out, "72 async"));
    assert_non_null(strstr(R.out, "12 flows")); /* one arrow per transfer, prefill to decode */
    snprintf(tcmd, sizeof tcmd,
             "serve --model llama-3.1-8b --hw h100-sxm --replicas 3 --num-prompts 12 "
             "--chrome-trace %s",
             tpath);
    run(tcmd);
    assert_int_equal(R.rc, 0);
    snprintf(tcmd, sizeof tcmd, "trace-check %s", tpath);
    run(tcmd);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "on 3 tracks"));
    remove(tpath);
    /* --disagg 1:1 at TP 1: two GPUs, a positive KV transfer, both pools' utilisation */
    run("serve --model llama-3.1-8b --hw h100-sxm --disagg 1:1 --num-prompts 20 --request-rate 10 "
        "--format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(j, "gpus"), 2.0, 0);
    assert_true(num(j, "kv_transfer_ms_mean") > 0.0);
    assert_between(num(j, "prefill_utilization"), 0.0, 1.0);
    assert_between(num(j, "decode_utilization"), 0.0, 1.0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "kv_link")),
                        "scaleup");
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --tp 2 --prefill-tp 1 --disagg 3:1 "
        "--num-prompts 10 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_near(num(j, "gpus"), 5.0, 0); /* 3 x 1 + 1 x 2 */
    cJSON_Delete(j);
    run("serve --model llama-3.1-8b --hw h100-sxm --disagg 1:1 --kv-stream --num-prompts 10");
    assert_non_null(strstr(R.out, "disaggregated: 1 prefill + 1 decode instances"));
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --disagg 2", "--disagg: value '2'");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --disagg 1:1 --prefill-tp 3",
               "prefill instances (--prefill-tp 3)");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --disagg 1:1 --replicas 2",
               "--replicas with --disagg");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --kv-stream", "--kv-stream: applies only");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --prefill-tp 2",
               "--prefill-tp: applies only");
    /* the three can be swept; the rows carry gpus and the cost */
    char path[256], cmd[512];
    tu_snprintf(path, sizeof path, "%s/infersim-deploy-%d.csv", tu_tmpdir(), (int)getpid());
    snprintf(cmd, sizeof cmd,
             "sweep serve --model llama-3.1-8b --hw h100-sxm --replicas 1,2 --pp 1,2 "
             "--num-prompts 10 --threads 2 --out %s",
             path);
    run(cmd);
    assert_int_equal(R.rc, 0);
    char *csv = slurp(path);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "point,replicas,pp,gpus,"));
    assert_non_null(strstr(csv, "\n3,2,2,4,"));
    free(csv);
    snprintf(cmd, sizeof cmd,
             "sweep serve --model llama-3.1-8b --hw h100-sxm --disagg 1:1,2:1 --num-prompts 10 "
             "--objective cost --out %s",
             path);
    run(cmd);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "cheapest: point"));
    csv = slurp(path);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "point,disagg,gpus,"));
    assert_non_null(strstr(csv, "\n1,2:1,3,"));
    assert_non_null(strstr(csv, "usd_per_million_output_tokens"));
    free(csv);
    remove(path);
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --pp 2 --spec-method ngram "
               "--num-speculative-tokens 2 --spec-acceptance-rate 0.5",
               "--pp with --spec-method");
}

/* --dataset-name with a public dataset: `workload` shows its fit and sources; serve draws its
 * lengths (ShareGPT's published means 161.31 and 337.99 within 8 % over 800 requests); the
 * random dataset's length flags and unknown names are refused. */
/* How many times `needle` occurs in s. */
static int occurrences(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The lower KV tiers in the timelines: with --kv-offload, every load from DRAM and every store
 * into it is a slice on its tier's track and a flow arrow (a slice, an 's' and an 'f' event
 * named alike), in one engine's timeline and in a deployment's (a process per replica); the
 * flows trace-check counts are those arrows, each start matched by its finish. */
static void test_trace_kv_tiers(void **state)
{
    (void)state;
    char tpath[256], tcmd[640];
    tu_snprintf(tpath, sizeof tpath, "%s/infersim-tiers-%d.json", tu_tmpdir(), (int)getpid());
    for (int replicas = 1; replicas <= 2; replicas++) {
        snprintf(tcmd, sizeof tcmd,
                 "serve --model llama-3.1-8b --hw h100-sxm --sessions 30 --turns-per-session 3 "
                 "--think-time-s exp:20 --request-rate 2 --random-input-len 1024 "
                 "--random-output-len 128 --kv-offload cpu:200 --gpu-memory-utilization 0.3 "
                 "--uncertainty 0 --replicas %d --chrome-trace %s",
                 replicas, tpath);
        run(tcmd);
        assert_int_equal(R.rc, 0);
        char *tr = slurp(tpath);
        assert_non_null(tr);
        const int loads = occurrences(tr, "\"load from cpu\""),
                  stores = occurrences(tr, "\"store to cpu\"");
        assert_true(loads > 0 && loads % 3 == 0 && stores > 0 && stores % 3 == 0);
        assert_non_null(strstr(tr, "\"cpu loads\""));
        assert_non_null(strstr(tr, "\"cpu stores\""));
        assert_int_equal(occurrences(tr, "\"cat\":\"kv tier\""), loads + stores);
        free(tr);
        snprintf(tcmd, sizeof tcmd, "trace-check %s", tpath);
        run(tcmd);
        assert_int_equal(R.rc, 0);
        char want[32];
        snprintf(want, sizeof want, " %d flows", (loads + stores) / 3);
        assert_non_null(strstr(R.out, want));
    }
    remove(tpath);
}

static void test_public_datasets(void **state)
{
    (void)state;
    run("workload --dataset-name sharegpt");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "mean and sigma (estimate)"));
    assert_non_null(strstr(R.out, "Kwon et al."));
    run("workload --dataset-name code --format json");
    assert_int_equal(R.rc, 0);
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    assert_near(num(cJSON_GetObjectItemCaseSensitive(j, "input"), "fitted_median"), 1500, 1e-9);
    cJSON_Delete(j);
    run("serve --model llama-3.2-1b --hw h100-sxm --dataset-name sharegpt --num-prompts 800 "
        "--request-rate 20 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_near(num(j, "total_input_tokens") / 800.0, 161.31, 0.08 * 161.31);
    assert_near(num(j, "total_output_tokens") / 800.0, 337.99, 0.08 * 337.99);
    cJSON_Delete(j);
    /* a production trace: its first requests, their lengths as recorded (the conversation
     * trace's first 10 rows: 4364 prompt and 716 generated tokens), their gaps scaled to the
     * rate (the last of 10 sent at 9 / 2 = 4.5 s, so the run lasts longer than that) */
    run("serve --model llama-3.2-1b --hw h100-sxm --dataset-name azure-conv-2023 --num-prompts 10 "
        "--request-rate 2 --uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    assert_int_equal((int)num(j, "total_input_tokens"), 4364);
    assert_int_equal((int)num(j, "total_output_tokens"), 716);
    assert_true(num(j, "duration") > 4.5 && num(j, "duration") < 6.0);
    cJSON_Delete(j);
    run("workload --dataset-name azure-conv-2023 --num-prompts 10 --format json");
    assert_int_equal(R.rc, 0);
    j = cJSON_Parse(R.out);
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(j, "trace");
    assert_int_equal((int)num(tr, "requests"), 10);
    assert_near(num(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "input"),
                                                     "published"),
                    "mean"),
                436.4, 1e-9);
    /* 18:15:46.6805900 to 18:15:55.1455750: 9 gaps over 8.464985 s */
    assert_near(num(tr, "request_rate"), 9.0 / 8.464985, 1e-6);
    cJSON_Delete(j);
    /* the trace's arrival shape counts: the code trace's first 1000 requests (45 breaks of 10 s or
     * more hold most of its hour, gaps' CV 13) sustain under half the rate of the same lengths
     * sent as a Poisson stream (trtllm-bench's lengths file, one line per request) */
    char lens[256];
    tu_snprintf(lens, sizeof lens, "%s/code-lengths.jsonl", tu_tmpdir());
    char tpath[1024];
    snprintf(tpath, sizeof tpath, "%s/traces/azure-llm-2023-code.csv", tu_root());
    FILE *in = fopen(tpath, "r"), *lf = fopen(lens, "w");
    assert_true(in && lf);
    char line[256];
    assert_non_null(fgets(line, sizeof line, in)); /* the header */
    for (int i = 0; i < 1000; i++) {
        long a, b;
        assert_non_null(fgets(line, sizeof line, in));
        assert_int_equal(sscanf(line, "%*[^,],%ld,%ld", &a, &b), 2);
        fprintf(lf, "{\"input_len\": %ld, \"output_tokens\": %ld}\n", a, b);
    }
    fclose(in);
    fclose(lf);
    double rate[2];
    for (int k = 0; k < 2; k++) {
        char cmd[768];
        snprintf(cmd, sizeof cmd,
                 "capacity --model llama-3.1-8b --hw h100-sxm --num-prompts 1000 %s%s "
                 "--slo ttft:1000,tpot:50 --uncertainty 0 --format json",
                 k ? "--lengths-file " : "--dataset-name azure-code-2023", k ? lens : "");
        run(cmd);
        assert_int_equal(R.rc, 0);
        j = cJSON_Parse(R.out);
        rate[k] = num(j, "max_request_rate");
        cJSON_Delete(j);
    }
    assert_true(rate[0] > 0.0 && rate[0] < 0.5 * rate[1]);
    remove(lens);
    expect_bad("serve --model llama-3.2-1b --hw h100-sxm --dataset-name azure-conv-2023 "
               "--burstiness 0.5",
               "--burstiness: does not apply to --dataset-name azure-conv-2023");
    expect_bad("serve --model llama-3.2-1b --hw h100-sxm --dataset-name mooncake-conversation "
               "--num-prompts 20000",
               "has 12031 requests");
    expect_bad("workload --dataset-name alpaca", "'alpaca'");
    expect_bad("workload --dataset-name random", "vLLM's synthetic dataset");
    expect_bad("serve --model llama-3.2-1b --hw h100-sxm --dataset-name lmsys-chat "
               "--random-input-len 100",
               "--random-input-len: does not apply to --dataset-name lmsys-chat");
    expect_bad("capacity --model llama-3.2-1b --hw h100-sxm --dataset-name nosuch --slo tpot:50",
               "'nosuch'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serve),
        cmocka_unit_test(test_serve_save_requests),
        cmocka_unit_test(test_serve_bad_input),
        cmocka_unit_test(test_spec_flags),
        cmocka_unit_test(test_chrome_traces),
        cmocka_unit_test(test_trace_kv_tiers),
        cmocka_unit_test(test_html_reports),
        cmocka_unit_test(test_deployment_flags),
        cmocka_unit_test(test_public_datasets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
