/* test_workload.c - synthetic request streams and the three trace formats. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>

#include "workload.h"
#include "lenfile.h"

static sim_synth_cfg synth(double rate)
{
    sim_synth_cfg c = {.num_prompts = 2000,
                       .input_len = 512,
                       .output_len = 128,
                       .range_ratio = 0.0,
                       .request_rate = rate,
                       .burstiness = 1.0,
                       .seed = 1};
    return c;
}

static void test_fixed_lengths_and_infinite_rate(void **state)
{
    (void)state;
    sim_synth_cfg c = synth(INFINITY);
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_OK);
    assert_int_equal(w.n, 2000);
    for (size_t i = 0; i < w.n; i++) {
        assert_int_equal(w.reqs[i].input_tokens, 512);
        assert_int_equal(w.reqs[i].output_tokens, 128);
        assert_int_equal(w.reqs[i].arrival_ns, 0);
        assert_int_equal(w.reqs[i].line, 0);
    }
    sim_workload_free(&w);
}

static void test_range_floor(void **state)
{
    (void)state;
    /* SGLang's random lengths (bench_serving.py sample_random_requests): R = 0.8 around 512 is
     * uniform in [floor(409.6), 512] = [409, 512], mean (409 + 512) / 2 = 460.5; around 128:
     * [102, 128], mean 115. R = 0 (SGLang's default) is [1, 512], mean 256.5. */
    sim_synth_cfg c = synth(INFINITY);
    c.range_floor_on = true;
    c.range_floor = 0.8;
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_OK);
    int64_t lo = 1 << 30, hi = 0;
    double sum = 0, out = 0;
    for (size_t i = 0; i < w.n; i++) {
        int64_t x = w.reqs[i].input_tokens;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        sum += (double)x;
        out += (double)w.reqs[i].output_tokens;
        assert_between((double)w.reqs[i].output_tokens, 102, 128);
    }
    assert_between((double)lo, 409, 412);
    assert_between((double)hi, 509, 512);
    assert_near(sum / (double)w.n, 460.5, 0.01);
    assert_near(out / (double)w.n, 115.0, 0.01);
    sim_workload_free(&w);
    c.range_floor = 0.0;
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_OK);
    sum = 0;
    for (size_t i = 0; i < w.n; i++) {
        assert_between((double)w.reqs[i].input_tokens, 1, 512);
        sum += (double)w.reqs[i].input_tokens;
    }
    assert_near(sum / (double)w.n, 256.5, 0.03);
    sim_workload_free(&w);
    c.range_floor = 1.5;
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--random-range-floor: value 1.5, expected [0, 1]"));
}

/* Writes `text` to a file under the test's directory; its path. */
static const char *lenfile_text(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_lenfile(void **state)
{
    (void)state;
    sim_lenfile f;
    sim_err err = {{0}};
    /* trtllm-bench's lines (3 ids: 3 tokens), the counted spellings, a blank line skipped */
    const char *p = lenfile_text("ok.jsonl",
                                 "{\"task_id\":0,\"input_ids\":[5,6,7],\"output_tokens\":4}\n"
                                 "\n"
                                 "{\"input_len\":10,\"output_len\":2}\n"
                                 "{\"prompt_len\":7,\"output_tokens\":1,\"logits\":[]}\n");
    assert_int_equal(sim_lenfile_load(p, 0, 0, &f, &err), SIM_OK);
    assert_int_equal(f.n, 3);
    assert_int_equal(f.input_len[0], 3);
    assert_int_equal(f.output_len[0], 4);
    assert_int_equal(f.input_len[1], 10);
    assert_int_equal(f.output_len[1], 2);
    assert_int_equal(f.input_len[2], 7);
    sim_lenfile_free(&f);
    assert_int_equal(sim_lenfile_load(p, 2, 0, &f, &err), SIM_OK); /* the first 2 */
    assert_int_equal(f.n, 2);
    sim_lenfile_free(&f);
    /* every_out (--custom-output-len): every output that many tokens, the file's replaced, and a
     * line need not give one (vLLM's custom dataset: prompts only) */
    assert_int_equal(sim_lenfile_load(p, 0, 9, &f, &err), SIM_OK);
    assert_int_equal(f.n, 3);
    for (size_t i = 0; i < f.n; i++)
        assert_int_equal(f.output_len[i], 9);
    assert_int_equal(f.input_len[1], 10);
    sim_lenfile_free(&f);
    const char *q = lenfile_text("custom.jsonl", "{\"prompt\":\"hi\",\"prompt_len\":12}\n");
    assert_int_equal(sim_lenfile_load(q, 0, 5, &f, &err), SIM_OK);
    assert_int_equal(f.input_len[0], 12);
    assert_int_equal(f.output_len[0], 5);
    sim_lenfile_free(&f);
    assert_int_equal(sim_lenfile_load(q, 0, 0, &f, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "custom.jsonl:1: expected \"output_tokens\" (or \"output_len\""));
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"{\"prompt\":\"hi\",\"output_tokens\":3}\n", ":1: expected \"input_ids\""},
        {"{\"input_ids\":[1],\"output_tokens\":0}\n", ":1: \"output_tokens\": expected a whole"},
        {"{\"input_ids\":[],\"output_tokens\":2}\n", ":1: \"input_ids\": expected a non-empty"},
        {"{\"input_len\":2.5,\"output_tokens\":2}\n", ":1: \"input_len\": expected a whole"},
        {"{\"input_ids\":[1]}\n", ":1: expected \"output_tokens\""},
        {"{\"input_ids\":[1],\"output_tokens\":2}\nnot json\n", ":2: not JSON"},
        {"\n\n", "no requests"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = lenfile_text("bad.jsonl", bad[i].text);
        assert_int_equal(sim_lenfile_load(p, 0, 0, &f, &err), SIM_EINPUT);
        if (!strstr(err.msg, bad[i].msg)) {
            print_error("'%s': got '%s', expected '%s'\n", bad[i].text, err.msg, bad[i].msg);
            fail();
        }
    }
}

/* A BurstGPT trace as vLLM's BurstGPTDataset reads it: the GPT-4 rows with a response, then
 * --num-prompts of them drawn with the seed. */
static void test_lenfile_burstgpt(void **state)
{
    (void)state;
    sim_lenfile f;
    sim_err err = {{0}};
    /* 6 rows: ChatGPT's and the failed GPT-4 one (0 response tokens) are left out: 3 kept */
    const char *p = lenfile_text("b.csv", "Timestamp,Model,Request tokens,Response tokens,"
                                          "Total tokens,Log Type\r\n"
                                          "5,ChatGPT,472,18,490,Conversation log\r\n"
                                          "45,GPT-4,1087,230,1317,Conversation log\r\n"
                                          "118,GPT-4,417,276,693,Conversation log\r\n"
                                          "125,GPT-4,301,0,301,Conversation log\r\n"
                                          "\r\n"
                                          "130,GPT-4,2000,500,2500,API log\r\n");
    assert_int_equal(sim_lenfile_load(p, 2, 0, &f, &err), SIM_OK); /* read whole, the limit aside */
    assert_true(f.burstgpt);
    assert_int_equal(f.n, 3);
    assert_int_equal(f.input_len[0], 1087);
    assert_int_equal(f.output_len[0], 230);
    assert_int_equal(f.input_len[2], 2000);
    assert_int_equal(f.output_len[2], 500);
    /* 3 of 3 without replacement: each row once, in the draw's order */
    assert_int_equal(sim_lenfile_sample(&f, 3, 7, &err), SIM_OK);
    assert_int_equal(f.n, 3);
    assert_int_equal(f.input_len[0] + f.input_len[1] + f.input_len[2], 1087 + 417 + 2000);
    assert_true(f.input_len[0] != f.input_len[1] && f.input_len[1] != f.input_len[2] &&
                f.input_len[0] != f.input_len[2]);
    for (int i = 0; i < 3; i++) /* the pairs stay together */
        assert_int_equal(f.output_len[i], f.input_len[i] == 1087  ? 230
                                          : f.input_len[i] == 417 ? 276
                                                                  : 500);
    sim_lenfile_free(&f);
    /* 300 of 3: with replacement, each row about a third of the draws (100 +- 3 sigma, sigma =
     * sqrt(300 x 1/3 x 2/3) = 8.2), the same for the same seed */
    assert_int_equal(sim_lenfile_load(p, 0, 0, &f, &err), SIM_OK);
    assert_int_equal(sim_lenfile_sample(&f, 300, 7, &err), SIM_OK);
    int64_t first = f.input_len[0];
    int count[3] = {0};
    for (size_t i = 0; i < f.n; i++)
        count[f.input_len[i] == 1087 ? 0 : f.input_len[i] == 417 ? 1 : 2]++;
    for (int k = 0; k < 3; k++)
        assert_in_range(count[k], 100 - 25, 100 + 25);
    sim_lenfile_free(&f);
    assert_int_equal(sim_lenfile_load(p, 0, 0, &f, &err), SIM_OK);
    assert_int_equal(sim_lenfile_sample(&f, 300, 7, &err), SIM_OK);
    assert_int_equal(f.input_len[0], first);
    sim_lenfile_free(&f);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"Timestamp,Model,Response tokens\n1,GPT-4,3\n", ":1: no \"Request tokens\" column"},
        {"Model,Request tokens,Response tokens\nGPT-4,12x,3\n",
         ":2: \"Request tokens\": '12x', expected a whole number"},
        {"Model,Request tokens,Response tokens\nGPT-4,0,3\n", ":2: \"Request tokens\": 0"},
        {"Model,Request tokens,Response tokens\nGPT-4,4\n", ":2: too few fields"},
        {"Model,Request tokens,Response tokens\n\"GPT-4\",4,3\n", ":2: a quoted field"},
        {"Model,Request tokens,Response tokens\nChatGPT,4,3\n", "no GPT-4 rows"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = lenfile_text("bad.csv", bad[i].text);
        assert_int_equal(sim_lenfile_load(p, 0, 0, &f, &err), SIM_EINPUT);
        if (!strstr(err.msg, bad[i].msg)) {
            print_error("'%s': got '%s', expected '%s'\n", bad[i].text, err.msg, bad[i].msg);
            fail();
        }
    }
}

static void test_range_ratio(void **state)
{
    (void)state;
    /* R = 0.5 around 512: uniform integers in [256, 768]; around 128: [64, 192] */
    sim_synth_cfg c = synth(INFINITY);
    c.range_ratio = 0.5;
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_OK);
    int64_t lo = 1 << 30, hi = 0;
    double sum = 0;
    for (size_t i = 0; i < w.n; i++) {
        int64_t x = w.reqs[i].input_tokens;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        sum += (double)x;
        assert_between((double)w.reqs[i].output_tokens, 64, 192);
    }
    assert_between((double)lo, 256, 270);
    assert_between((double)hi, 754, 768);
    assert_near(sum / (double)w.n, 512.0, 0.02);
    sim_workload_free(&w);
}

static void test_poisson_arrivals(void **state)
{
    (void)state;
    /* rate 4/s: gaps exponential with mean 0.25 s, rescaled so that 2000 gaps add up to exactly
     * 500 s; the first request at 0. Exponential gaps have CV 1. */
    sim_synth_cfg c = synth(4.0);
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_OK);
    assert_int_equal(w.reqs[0].arrival_ns, 0);
    double last = (double)w.reqs[w.n - 1].arrival_ns / 1e9;
    assert_between(last, 495.0, 500.0);
    double m = 0, m2 = 0;
    for (size_t i = 1; i < w.n; i++) {
        double g = (double)(w.reqs[i].arrival_ns - w.reqs[i - 1].arrival_ns) / 1e9;
        assert_true(g >= 0.0);
        m += g;
        m2 += g * g;
    }
    m /= (double)(w.n - 1);
    double cv = sqrt(m2 / (double)(w.n - 1) - m * m) / m;
    assert_near(m, 0.25, 0.01);
    assert_near(cv, 1.0, 0.08);
    /* burstiness 0.25: gamma shape 0.25 has CV 2 */
    c.burstiness = 0.25;
    sim_workload b;
    assert_int_equal(sim_workload_synthetic(&c, &b, &err), SIM_OK);
    m = m2 = 0;
    for (size_t i = 1; i < b.n; i++) {
        double g = (double)(b.reqs[i].arrival_ns - b.reqs[i - 1].arrival_ns) / 1e9;
        m += g;
        m2 += g * g;
    }
    m /= (double)(b.n - 1);
    cv = sqrt(m2 / (double)(b.n - 1) - m * m) / m;
    assert_near(cv, 2.0, 0.15);
    sim_workload_free(&w);
    sim_workload_free(&b);
}

static void test_seed_determinism(void **state)
{
    (void)state;
    sim_synth_cfg c = synth(2.0);
    c.range_ratio = 0.3;
    sim_workload a, b, d;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_synthetic(&c, &a, &err), SIM_OK);
    assert_int_equal(sim_workload_synthetic(&c, &b, &err), SIM_OK);
    assert_memory_equal(a.reqs, b.reqs, a.n * sizeof *a.reqs);
    c.seed = 2;
    assert_int_equal(sim_workload_synthetic(&c, &d, &err), SIM_OK);
    assert_true(memcmp(a.reqs, d.reqs, a.n * sizeof *a.reqs) != 0);
    sim_workload_free(&a);
    sim_workload_free(&b);
    sim_workload_free(&d);
}

static void test_synthetic_bad_flags(void **state)
{
    (void)state;
    sim_workload w;
    sim_err err = {{0}};
    sim_synth_cfg c = synth(4.0);
    c.range_ratio = 1.0;
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--random-range-ratio"));
    c = synth(-1.0);
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--request-rate"));
    c = synth(4.0);
    c.input_len = 0;
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_EINPUT);
    /* 2000 requests at 1e-12/s span 2e15 s, past the 1e9 s arrival bound (int64 ns would wrap);
     * at 2e-6/s they span exactly 1e9 s, which is allowed, and the last arrival stays positive */
    c = synth(1e-12);
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_EINPUT);
    assert_non_null(
        strstr(err.msg, "--request-rate: value 1e-12 spreads 2000 requests over 2e+15 s"));
    c = synth(2e-6);
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_OK);
    assert_true(w.reqs[w.n - 1].arrival_ns > 0 && w.reqs[w.n - 1].arrival_ns < 1000000000000000000);
    sim_workload_free(&w);
}

static sim_workload load(const char *text, double scale, sim_status want, sim_err *err)
{
    sim_workload w;
    const char *p = tu_write_tmp(text);
    assert_int_equal(sim_workload_load_trace(p, scale, 0, &w, err), want);
    return w;
}

static void test_trace_formats(void **state)
{
    (void)state;
    sim_err err = {{0}};
    /* Azure: date-times relative to the first; other columns ignored */
    sim_workload w = load("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                          "2023-11-16 18:17:03.9799600,4808,10\n"
                          "2023-11-16 18:17:04.4799600,3180,8\n"
                          "2023-11-16 18:18:03.9799600,110,27\n",
                          1.0, SIM_OK, &err);
    assert_int_equal(w.n, 3);
    assert_int_equal(w.reqs[0].arrival_ns, 0);
    assert_int_equal(w.reqs[1].arrival_ns, 500000000);
    assert_int_equal(w.reqs[2].arrival_ns, 60000000000);
    assert_int_equal(w.reqs[1].input_tokens, 3180);
    assert_int_equal(w.reqs[2].output_tokens, 27);
    assert_int_equal(w.reqs[2].line, 4);
    sim_workload_free(&w);
    /* Mooncake: timestamps in ms; unsorted rows are sorted; time scale 0.5 halves the offsets */
    w = load("{\"timestamp\": 1000, \"input_length\": 6955, \"output_length\": 52, "
             "\"hash_ids\": [46, 47]}\n"
             "{\"timestamp\": 500, \"input_length\": 100, \"output_length\": 5}\n"
             "\n"
             "{\"timestamp\": 3000, \"input_length\": 7, \"output_length\": 1}\n",
             0.5, SIM_OK, &err);
    assert_int_equal(w.n, 3);
    assert_int_equal(w.reqs[0].input_tokens, 100);
    assert_int_equal(w.reqs[0].arrival_ns, 0);
    assert_int_equal(w.reqs[1].arrival_ns, 250000000);  /* (1000 - 500) ms x 0.5 */
    assert_int_equal(w.reqs[2].arrival_ns, 1250000000); /* (3000 - 500) ms x 0.5 */
    assert_int_equal(w.reqs[2].line, 4);
    sim_workload_free(&w);
    /* plain CSV with CRLF line ends */
    w = load("arrival_s,input_tokens,output_tokens\r\n0.5,10,20\r\n1.25,30,40\r\n", 1.0, SIM_OK,
             &err);
    assert_int_equal(w.n, 2);
    assert_int_equal(w.reqs[1].arrival_ns, 750000000);
    assert_int_equal(w.reqs[1].images, 0);
    sim_workload_free(&w);
    /* an images column (plain CSV) and field (JSONL): images per request */
    w = load("arrival_s,input_tokens,output_tokens,images\n0,10,20,2\n1,30,40,0\n", 1.0, SIM_OK,
             &err);
    assert_int_equal(w.reqs[0].images, 2);
    assert_int_equal(w.reqs[1].images, 0);
    sim_workload_free(&w);
    w = load("{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 3, \"images\": 3}\n",
             1.0, SIM_OK, &err);
    assert_int_equal(w.reqs[0].images, 3);
    sim_workload_free(&w);
}

static void test_shipped_traces(void **state)
{
    (void)state;
    static const char *const files[] = {"azure-conv-sample.csv",   "mooncake-sample.jsonl",
                                        "mixed-long-prompts.csv",  "azure-llm-2023-code.csv",
                                        "azure-llm-2023-conv.csv", "mooncake-fast25-conversation.jsonl"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/traces/%s", tu_root(), files[i]);
        sim_workload w;
        sim_err err = {{0}};
        assert_int_equal(sim_workload_load_trace(path, 1.0, 0, &w, &err), SIM_OK);
        assert_true(w.n >= 100);
        for (size_t k = 1; k < w.n; k++)
            assert_true(w.reqs[k].arrival_ns >= w.reqs[k - 1].arrival_ns);
        sim_workload w5;
        assert_int_equal(sim_workload_load_trace(path, 1.0, 5, &w5, &err), SIM_OK);
        assert_int_equal(w5.n, 5);
        sim_workload_free(&w);
        sim_workload_free(&w5);
    }
}

static void test_bad_traces(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *mention;
    } cases[] = {
        {"time,prompt,completion\n1,2,3\n", "unknown trace format"},
        {"", "empty trace"},
        {"arrival_s,input_tokens,output_tokens\n", "no requests"},
        {"arrival_s,input_tokens,output_tokens\n0,10,20\n1,abc,20\n", ":3: field 'input_tokens'"},
        {"arrival_s,input_tokens,output_tokens\n0,10,0\n", ":2: field 'output_tokens'"},
        {"arrival_s,input_tokens,output_tokens\n0,-5,3\n", ":2: field 'input_tokens'"},
        {"arrival_s,input_tokens,output_tokens\n0,5.5,3\n", ":2: field 'input_tokens'"},
        {"arrival_s,input_tokens,output_tokens\n-1,5,3\n", ":2: field 'arrival_s'"},
        {"arrival_s,input_tokens,output_tokens\n0,5\n", ":2: 2 fields"},
        {"arrival_s,input_tokens,output_tokens,images\n0,5,3,-1\n", ":2: field 'images'"},
        {"arrival_s,input_tokens,output_tokens,images\n0,5,3,1.5\n", ":2: field 'images'"},
        {"{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 3, \"images\": \"a\"}\n",
         ":1: field 'images'"},
        {"TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,5,3\n", ":2: field 'TIMESTAMP'"},
        {"{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 3}\n{\"timestamp\": 2,\n",
         ":2: malformed JSON"},
        {"{\"timestamp\": 1, \"input_length\": 5}\n", ":1: field 'output_length' is missing"},
        {"{\"timestamp\": 1, \"input_length\": 0, \"output_length\": 3}\n",
         ":1: field 'input_length'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_err err = {{0}};
        sim_workload w = load(cases[i].text, 1.0, SIM_EINPUT, &err);
        (void)w;
        if (!strstr(err.msg, cases[i].mention) || !strstr(err.msg, tu_tmpdir())) {
            print_error("case %zu: '%s' does not mention '%s' and the file\n", i, err.msg,
                        cases[i].mention);
            fail();
        }
    }
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_load_trace("/nonexistent.csv", 1.0, 0, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "/nonexistent.csv"));
    assert_int_equal(sim_workload_load_trace("/nonexistent.csv", 0.0, 0, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--time-scale"));
}

static void test_trace_offset_bound(void **state)
{
    (void)state;
    sim_err err = {{0}};
    /* an arrival 1e12 s after the first would be 1e21 ns, past int64_t (9.2e18): refused, naming
     * the file, line 3, the field and its value */
    sim_workload w =
        load("arrival_s,input_tokens,output_tokens\n0,10,20\n1e12,30,40\n", 1.0, SIM_EINPUT, &err);
    assert_non_null(strstr(err.msg, tu_tmpdir()));
    assert_non_null(strstr(err.msg, ":3: field 'arrival_s' is 1000000000000,"));
    assert_non_null(strstr(err.msg, "expected at most 1e+09 s after it"));
    assert_null(w.reqs);
    /* 1e4 s is fine at scale 1 (1e13 ns) but 1e10 s at --time-scale 1e6 */
    w = load("arrival_s,input_tokens,output_tokens\n0,10,20\n10000,30,40\n", 1.0, SIM_OK, &err);
    assert_int_equal(w.reqs[1].arrival_ns, 10000000000000LL);
    sim_workload_free(&w);
    w = load("arrival_s,input_tokens,output_tokens\n0,10,20\n10000,30,40\n", 1e6, SIM_EINPUT, &err);
    assert_non_null(strstr(err.msg, ":3: field 'arrival_s' is 10000,"));
    assert_non_null(strstr(err.msg, "(1e+10 s at --time-scale 1e+06)"));
    /* the bound itself is allowed: 1e9 s exactly = 1e18 ns */
    w = load("arrival_s,input_tokens,output_tokens\n5,10,20\n1000000005,30,40\n", 1.0, SIM_OK,
             &err);
    assert_int_equal(w.reqs[1].arrival_ns, 1000000000000000000LL);
    sim_workload_free(&w);
    /* offsets count from the earliest, so large absolute times close together are fine; a Mooncake
     * timestamp is in ms and is reported as written */
    w = load("{\"timestamp\": 2e15, \"input_length\": 1, \"output_length\": 1}\n"
             "{\"timestamp\": 1000, \"input_length\": 1, \"output_length\": 1}\n",
             1.0, SIM_EINPUT, &err);
    assert_non_null(strstr(err.msg, ":1: field 'timestamp' is 2000000000000000,"));
    w = load("{\"timestamp\": 2e15, \"input_length\": 1, \"output_length\": 1}\n"
             "{\"timestamp\": 2000000000001000, \"input_length\": 1, \"output_length\": 1}\n",
             1.0, SIM_OK, &err);
    assert_int_equal(w.reqs[1].arrival_ns, 1000000000); /* 1000 ms later */
    sim_workload_free(&w);
}

static void test_mooncake_hash_ids(void **state)
{
    (void)state;
    sim_workload w;
    sim_err err = {{0}};
    const char *ok =
        tu_write_tmp("{\"timestamp\": 5, \"input_length\": 1100, \"output_length\": 3, "
                     "\"hash_ids\": [7, 8, 9]}\n"
                     "{\"timestamp\": 1, \"input_length\": 100, \"output_length\": 3}\n");
    assert_int_equal(sim_workload_load_trace(ok, 1.0, 0, &w, &err), SIM_OK);
    assert_int_equal(w.hash_block_tokens, 512);
    /* sorted by arrival: the line without ids comes first and shares nothing */
    assert_int_equal(w.reqs[0].n_hash, 0);
    assert_int_equal(w.reqs[1].n_hash, 3);
    assert_int_equal(w.hash_ids[w.reqs[1].hash_off + 2], 9);
    sim_workload_free(&w);
    /* 1100 tokens have ceil(1100 / 512) = 3 blocks: a fourth id is an error naming the line */
    const char *bad = tu_write_tmp("{\"timestamp\": 5, \"input_length\": 1100, "
                                   "\"output_length\": 3, \"hash_ids\": [1, 2, 3, 4]}\n");
    assert_int_equal(sim_workload_load_trace(bad, 1.0, 0, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, ":1: field 'hash_ids'"));
    bad = tu_write_tmp("{\"timestamp\": 5, \"input_length\": 1100, \"output_length\": 3, "
                       "\"hash_ids\": [1, -2]}\n");
    assert_int_equal(sim_workload_load_trace(bad, 1.0, 0, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "element 1"));
}

/* The one-pass reader (workload_jsonl.c) reads what the tree reader does: the same rows, once
 * in the flat form it takes and once with an extra key on each (which leaves every row to the
 * tree reader), load to the same requests and ids, number for number; and a row it leaves to
 * the tree reader keeps that reader's message. */
static void test_mooncake_one_pass(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "{\"timestamp\": 5.25, \"input_length\": 1100, \"output_length\": 3, \"hash_ids\": [7, 8, 9]}",
        "{\"timestamp\":1,\"input_length\":100,\"output_length\":3e0}",
        "{ \"hash_ids\": [], \"output_length\": 2, \"input_length\": 1.0E3, \"timestamp\": 0 }",
        "{\"timestamp\": 2.5e3, \"input_length\": 513, \"output_length\": 1, \"hash_ids\": null, "
        "\"images\": 2}",
        "{\"timestamp\": -0, \"input_length\": 600, \"output_length\": 9, \"hash_ids\": "
        "[9007199254740992, 123456789012345]}",
    };
    char flat[2048] = "", tree[2048] = "";
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        strcat(flat, rows[i]);
        strcat(flat, "\n");
        strcat(tree, "{\"x\": 1, ");
        strcat(tree, strchr(rows[i], '{') + 1);
        strcat(tree, "\n");
    }
    sim_err err = {{0}};
    sim_workload a = load(flat, 1.0, SIM_OK, &err), b = load(tree, 1.0, SIM_OK, &err);
    assert_int_equal(a.n, b.n);
    assert_int_equal(a.n_hash_ids, b.n_hash_ids);
    assert_int_equal(a.n_hash_ids, 5);
    assert_int_equal(a.hash_block_tokens, b.hash_block_tokens);
    assert_memory_equal(a.reqs, b.reqs, a.n * sizeof *a.reqs);
    assert_memory_equal(a.hash_ids, b.hash_ids, a.n_hash_ids * sizeof *a.hash_ids);
    assert_int_equal(a.reqs[4].images, 2); /* arrivals 0, -0, 1 ms, 5.25 ms, 2.5 s */
    assert_int_equal(a.reqs[0].input_tokens, 1000); /* 0 and -0 ms: file order */
    sim_workload_free(&a);
    sim_workload_free(&b);
    /* a key twice, an id past the prompt's blocks: the tree reader's messages */
    sim_workload w = load("{\"timestamp\": 5, \"input_length\": 9, \"input_length\": 9, "
                          "\"output_length\": 3}\n",
                          1.0, SIM_EINPUT, &err);
    assert_non_null(strstr(err.msg, "input_length"));
    w = load("{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 3, \"hash_ids\": [1, 2]}\n",
             1.0, SIM_EINPUT, &err);
    assert_non_null(strstr(err.msg, ":1: field 'hash_ids' is 2 ids"));
    (void)w;
}

static void test_prefix_repetition(void **state)
{
    (void)state;
    /* 10 requests, 3 prefixes of 40 tokens plus 30 own tokens, ids per 16 tokens: 70 / 16 = 4
     * blocks, of which 40 / 16 = 2 lie wholly inside the prefix. Prefixes are used 4, 3, 3
     * times; a request shares its first 2 ids with the others of its prefix, never the rest. */
    sim_synth_cfg c = {.num_prompts = 10,
                       .input_len = 1,
                       .output_len = 5,
                       .request_rate = INFINITY,
                       .burstiness = 1.0,
                       .num_prefixes = 3,
                       .prefix_len = 40,
                       .suffix_len = 30,
                       .hash_block_tokens = 16};
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_synthetic(&c, &w, &err), SIM_OK);
    int uses[3] = {0, 0, 0};
    for (size_t i = 0; i < w.n; i++) {
        assert_int_equal(w.reqs[i].input_tokens, 70);
        assert_int_equal(w.reqs[i].output_tokens, 5);
        assert_int_equal(w.reqs[i].n_hash, 4);
        const uint64_t *id = w.hash_ids + w.reqs[i].hash_off;
        uint64_t p = (id[0] >> 32) - 1;
        assert_true(p < 3);
        uses[p]++;
        assert_int_equal(id[1] >> 32, p + 1);
        for (size_t j = 0; j < w.n; j++) /* the suffix blocks are nobody else's */
            if (j != i)
                assert_true(w.hash_ids[w.reqs[j].hash_off + 2] != id[2]);
    }
    assert_int_equal(uses[0], 4);
    assert_int_equal(uses[1], 3);
    assert_int_equal(uses[2], 3);
    sim_workload_free(&w);
}

/* The public datasets' fits (dataset.h), by hand:
 *   mean 161.31, sigma 1: mu = ln 161.31 - 1/2 = 5.08337 - 0.5 = 4.58337, median e^mu = 97.85,
 *     p90 e^(mu + 1.28155) = 97.85 x 3.6022 = 352.5;
 *   median 1500, p90 4500: sigma = ln 3 / 1.28155 = 0.85725;
 *   median 100, mean 150: sigma = sqrt(2 ln 1.5) = sqrt(0.81093) = 0.90052.
 * 20,000 draws of the first average 161.31 within 3 % (the clip at 4096 is 3.7 sigma out). */
static void test_dataset_fit(void **state)
{
    (void)state;
    sim_length_dist d;
    sim_err e;
    assert_int_equal(sim_dataset_fit(161.31, 0, 0, 1.0, 4, 4096, &d, &e), SIM_OK);
    assert_near(d.mu, 4.58337, 1e-4);
    assert_near(sim_dataset_quantile(&d, 0.5), 97.85, 0.01);
    assert_near(sim_dataset_quantile(&d, 0.9), 352.5, 0.1);
    assert_near(sim_dataset_mean(&d), 161.31, 1e-9);
    sim_rng r;
    sim_rng_seed(&r, 7);
    double sum = 0;
    for (int i = 0; i < 20000; i++) {
        int64_t x = sim_dataset_draw(&d, &r);
        assert_true(x >= 4 && x <= 4096);
        sum += (double)x;
    }
    assert_near(sum / 20000.0, 161.31, 0.03 * 161.31);
    assert_int_equal(sim_dataset_fit(0, 1500, 4500, 0, 16, 16384, &d, &e), SIM_OK);
    assert_near(d.sigma, 0.85725, 1e-5);
    assert_string_equal(d.fit, "median and p90");
    assert_int_equal(sim_dataset_fit(150, 100, 0, 0, 1, 1000, &d, &e), SIM_OK);
    assert_near(d.sigma, 0.90052, 1e-5);
    /* what does not determine a log-normal */
    assert_int_equal(sim_dataset_fit(150, 0, 0, 0, 1, 1000, &d, &e), SIM_EINPUT);
    assert_int_equal(sim_dataset_fit(90, 100, 0, 0, 1, 1000, &d, &e), SIM_EINPUT);
    assert_int_equal(sim_dataset_fit(150, 0, 0, 1, 0, 1000, &d, &e), SIM_EINPUT);
    /* every shipped dataset loads from the data file, each side with its source */
    const char *names[] = {"sharegpt", "lmsys-chat", "arxiv-summarization", "code", "reasoning"};
    char path[4096];
    snprintf(path, sizeof path, "%s/tools/data/datasets.json", getenv("INFERSIM_ROOT"));
    for (size_t i = 0; i < 5; i++) {
        sim_dataset ds;
        assert_int_equal(sim_dataset_load(path, names[i], &ds, &e), SIM_OK);
        assert_true(sim_dataset_is_shipped(names[i]));
        assert_true(ds.in.source[0] && ds.out.source[0]);
        assert_true(ds.in.sigma > 0 && ds.out.sigma > 0);
    }
    /* the production traces: a file under traces/ and its source, no fitted sides */
    static const char *const traces[] = {"azure-code-2023", "azure-conv-2023",
                                         "mooncake-conversation"};
    for (size_t i = 0; i < 3; i++) {
        sim_dataset ds;
        assert_int_equal(sim_dataset_load(path, traces[i], &ds, &e), SIM_OK);
        assert_true(sim_dataset_is_shipped(traces[i]));
        assert_true(ds.trace[0] && ds.trace_source[0]);
        char file[1024];
        snprintf(file, sizeof file, "%s/traces/%s", tu_root(), ds.trace);
        FILE *f = fopen(file, "r");
        assert_non_null(f);
        fclose(f);
    }
    const char *bad = tu_write_tmp("{\"datasets\": {\"t\": {\"trace\": \"x.csv\"}}}");
    sim_dataset ds;
    assert_int_equal(sim_dataset_load(bad, "t", &ds, &e), SIM_EINPUT);
    assert_non_null(strstr(e.msg, "field 'source' missing"));
    bad = tu_write_tmp("{\"datasets\": {\"t\": {\"trace\": \"../x.csv\", \"source\": \"s\"}}}");
    assert_int_equal(sim_dataset_load(bad, "t", &ds, &e), SIM_EINPUT);
    assert_non_null(strstr(e.msg, "datasets.t.trace"));
    assert_int_equal(sim_dataset_load(path, "alpaca", &ds, &e), SIM_EINPUT);
    assert_non_null(strstr(e.msg, "sharegpt"));
    /* a synthetic stream draws its lengths from the fits */
    assert_int_equal(sim_dataset_load(path, "sharegpt", &ds, &e), SIM_OK);
    sim_synth_cfg c = {.num_prompts = 4000, .request_rate = 10, .burstiness = 1.0, .seed = 3,
                       .input_dist = &ds.in, .output_dist = &ds.out, .input_len = 1,
                       .output_len = 1};
    sim_workload w;
    assert_int_equal(sim_workload_synthetic(&c, &w, &e), SIM_OK);
    double in = 0, out = 0;
    for (size_t i = 0; i < w.n; i++)
        in += (double)w.reqs[i].input_tokens, out += (double)w.reqs[i].output_tokens;
    assert_near(in / (double)w.n, 161.31, 0.06 * 161.31);
    assert_near(out / (double)w.n, 337.99, 0.06 * 337.99);
    sim_workload_free(&w);
}

static void test_sessions(void **state)
{
    (void)state;
    /* 3 sessions x 2 turns, 100 new tokens a turn, 20 out, all starting at 0 (rate inf), 2.5 s of
     * thinking. Turn 0: 100 in; turn 1: 100 + 20 + 100 = 220 in. Hash blocks of 16 over the KV
     * each computes (all but the last output token): (100 + 20 - 1) / 16 = 7 and
     * (220 + 20 - 1) / 16 = 14, session s's ids (s + 1) << 32 | k, shared by its turns. */
    sim_session_cfg c = {.sessions = 3, .turns = 2, .input_len = 100, .output_len = 20,
                         .request_rate = INFINITY, .burstiness = 1.0,
                         .think = {SIM_THINK_FIXED, 2.5, 0.0}, .hash_block_tokens = 16};
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_sessions(&c, &w, &err), SIM_OK);
    assert_int_equal(w.n, 6);
    assert_int_equal(w.sessions, 3);
    assert_true(w.hash_covers_output);
    for (size_t s = 0; s < 3; s++) {
        const sim_request *t0 = &w.reqs[2 * s], *t1 = &w.reqs[2 * s + 1];
        assert_int_equal(t0->input_tokens, 100);
        assert_int_equal(t1->input_tokens, 220);
        assert_int_equal(t0->output_tokens, 20);
        assert_int_equal(t0->n_hash, 7);
        assert_int_equal(t1->n_hash, 14);
        for (int64_t k = 0; k < 7; k++)
            assert_true(w.hash_ids[t0->hash_off + k] == w.hash_ids[t1->hash_off + k]);
        assert_true(w.hash_ids[t1->hash_off + 13] == (((uint64_t)(s + 1) << 32) | 13));
        assert_int_equal(t0->arrival_ns, 0);
        assert_int_equal(w.links[2 * s].follow, (int64_t)(2 * s + 1));
        assert_int_equal(w.links[2 * s].think_ns, 2500000000LL);
        assert_false(w.links[2 * s].follows);
        assert_true(w.links[2 * s + 1].follows);
        assert_int_equal(w.links[2 * s + 1].follow, 0);
        assert_int_equal(w.links[2 * s + 1].session, (int64_t)s + 1);
    }
    sim_workload_free(&w);
    /* at 2 sessions/s, Poisson: the 3 starts are spread to exactly 3 / 2 s of gaps */
    c.request_rate = 2.0;
    assert_int_equal(sim_workload_sessions(&c, &w, &err), SIM_OK);
    assert_int_equal(w.reqs[0].arrival_ns, 0);
    assert_true(w.reqs[4].arrival_ns > w.reqs[2].arrival_ns && w.reqs[4].arrival_ns < 1500000000);
    assert_int_equal(w.reqs[5].arrival_ns, w.reqs[4].arrival_ns); /* a lower bound */
    sim_workload_free(&w);
    /* think times */
    sim_think t;
    assert_int_equal(sim_workload_think_parse("exp:5", &t, &err), SIM_OK);
    assert_int_equal(t.kind, SIM_THINK_EXP);
    assert_true(t.a_s == 5.0);
    assert_int_equal(sim_workload_think_parse("uniform:1:3", &t, &err), SIM_OK);
    assert_true(t.kind == SIM_THINK_UNIFORM && t.a_s == 1.0 && t.b_s == 3.0);
    const char *bad[] = {"uniform:3:1", "x", "-1", "exp:", "1e7", "0x10", "exp:nan"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sim_workload_think_parse(bad[i], &t, &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, "--think-time-s"));
    }
    /* exponential think times: mean 5 s over many turns (2000 draws: within 10 %) */
    c = (sim_session_cfg){.sessions = 1000, .turns = 2, .input_len = 10, .output_len = 10,
                          .request_rate = INFINITY, .burstiness = 1.0,
                          .think = {SIM_THINK_EXP, 5.0, 0.0}, .hash_block_tokens = 16};
    assert_int_equal(sim_workload_sessions(&c, &w, &err), SIM_OK);
    double sum = 0.0;
    for (size_t i = 0; i < w.n; i++)
        sum += (double)w.links[i].think_ns / 1e9;
    assert_true(fabs(sum / (double)w.n - 5.0) < 0.5);
    sim_workload_free(&w);
}

/* The session turns' heap pops by send time, then by request index: pushed (5, 1), (3, 0),
 * (5, 0), (3, 2), (9, 4) come back as (3, 0), (3, 2), (5, 0), (5, 1), (9, 4), each with its prev. */
static void test_turn_heap(void **state)
{
    (void)state;
    sim_session_turn h[5];
    size_t n = 0;
    const sim_session_turn in[5] = {{5, 1, 7}, {3, 0, -1}, {5, 0, 2}, {3, 2, 1}, {9, 4, 0}};
    for (int i = 0; i < 5; i++)
        sim_workload_turn_push(h, &n, in[i]);
    assert_int_equal(n, 5);
    const int64_t t[5] = {3, 3, 5, 5, 9}, id[5] = {0, 2, 0, 1, 4};
    const int prev[5] = {-1, 1, 2, 7, 0};
    for (int i = 0; i < 5; i++) {
        sim_session_turn x = sim_workload_turn_pop(h, &n);
        assert_int_equal(x.t_ns, t[i]);
        assert_int_equal(x.id, id[i]);
        assert_int_equal(x.prev, prev[i]);
        assert_int_equal(n, (size_t)(4 - i));
    }
}

/* --rate-schedule: 10/s from 0, 40/s from 60 s. R(60) = 600, so unit time 1200 is
 * 60 + (1200 - 600) / 40 = 75 s, 300 is 30 s, 0 is 0; a one-segment schedule is the fixed rate's
 * stream (the same draws, the gaps divided by the rate: equal to the nanosecond, give or take
 * rounding); near-regular gaps (burstiness 1000) put 600 of 1200 arrivals before 60 s. */
static void test_rate_schedule(void **state)
{
    (void)state;
    sim_rate_schedule r;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_schedule_parse("0:10,60:40", &r, &err), SIM_OK);
    assert_int_equal(r.n, 2);
    assert_near(sim_workload_schedule_time(&r, 0.0), 0.0, 1e-12);
    assert_near(sim_workload_schedule_time(&r, 300.0), 30.0, 1e-9);
    assert_near(sim_workload_schedule_time(&r, 600.0), 60.0, 1e-9);
    assert_near(sim_workload_schedule_time(&r, 1200.0), 75.0, 1e-9);
    const char *bad[] = {"", "5:10", "0:10,0:20", "0:10,30:0", "0:-1", "0:10,x", "0:inf",
                         "0:10,20:5,10:5", "0:10;5:3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sim_workload_schedule_parse(bad[i], &r, &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, "--rate-schedule"));
    }
    sim_synth_cfg c = {.num_prompts = 1200, .input_len = 64, .output_len = 8,
                       .request_rate = 4.0, .burstiness = 1.0, .seed = 3};
    sim_workload a, b;
    assert_int_equal(sim_workload_synthetic(&c, &a, &err), SIM_OK);
    assert_int_equal(sim_workload_schedule_parse("0:4", &r, &err), SIM_OK);
    c.schedule = &r;
    assert_int_equal(sim_workload_synthetic(&c, &b, &err), SIM_OK);
    for (size_t i = 0; i < a.n; i++)
        assert_true(llabs(a.reqs[i].arrival_ns - b.reqs[i].arrival_ns) <= 1);
    sim_workload_free(&a);
    sim_workload_free(&b);
    assert_int_equal(sim_workload_schedule_parse("0:10,60:40", &r, &err), SIM_OK);
    c.burstiness = 1000.0;
    assert_int_equal(sim_workload_synthetic(&c, &b, &err), SIM_OK);
    size_t before = 0;
    for (size_t i = 0; i < b.n; i++)
        before += b.reqs[i].arrival_ns < 60000000000LL;
    assert_in_range(before, 595, 605);
    assert_true(b.reqs[b.n - 1].arrival_ns < 75000000000LL);
    assert_true(b.reqs[b.n - 1].arrival_ns > 74000000000LL);
    sim_workload_free(&b);
    assert_int_equal(sim_workload_schedule_parse("0:1e-9", &r, &err), SIM_OK);
    assert_int_equal(sim_workload_synthetic(&c, &b, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--rate-schedule"));
}

/* A trace's session_id: rows sorted by arrival (0 a, 0.2 b, 0.5 none, 1.0 a) make three
 * sessions: a's turns 0 and 3 (request 0 follows on with 3), b's one, the unnamed one; Mooncake's
 * field takes text or numbers. */
static void test_trace_sessions(void **state)
{
    (void)state;
    const char *p = tu_write_tmp("arrival_s,input_tokens,output_tokens,session_id\n"
                                 "0,100,10,a\n1.0,200,10,a\n0.5,50,5,\n0.2,80,8,b\n");
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_load_trace(p, 1.0, 0, &w, &err), SIM_OK);
    assert_non_null(w.links);
    assert_int_equal(w.sessions, 3);
    assert_int_equal(w.reqs[3].input_tokens, 200);
    assert_int_equal(w.links[0].follow, 3);
    assert_false(w.links[0].follows);
    assert_true(w.links[3].follows);
    assert_int_equal(w.links[3].turn, 1);
    assert_int_equal(w.links[3].session, w.links[0].session);
    assert_int_equal(w.links[3].think_ns, 0);
    assert_int_equal(w.links[1].follow, 0);
    assert_false(w.links[2].follows);
    assert_true(w.links[1].session != w.links[2].session);
    sim_workload_free(&w);
    p = tu_write_tmp("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 3, "
                     "\"session_id\": 12}\n"
                     "{\"timestamp\": 9, \"input_length\": 20, \"output_length\": 3, "
                     "\"session_id\": 12}\n"
                     "{\"timestamp\": 5, \"input_length\": 30, \"output_length\": 3, "
                     "\"session_id\": \"12\"}\n");
    assert_int_equal(sim_workload_load_trace(p, 1.0, 0, &w, &err), SIM_OK);
    assert_int_equal(w.sessions, 1); /* 12 and "12" name one session */
    assert_int_equal(w.links[0].follow, 1);
    assert_int_equal(w.links[1].follow, 2);
    sim_workload_free(&w);
    p = tu_write_tmp("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 3, "
                     "\"session_id\": [1]}\n");
    assert_int_equal(sim_workload_load_trace(p, 1.0, 0, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "session_id"));
    p = tu_write_tmp("arrival_s,input_tokens,output_tokens\n0,100,10\n");
    assert_int_equal(sim_workload_load_trace(p, 1.0, 0, &w, &err), SIM_OK);
    assert_null(w.links); /* no column: no sessions */
    sim_workload_free(&w);
}

/* A production trace at another rate (sim_workload_at_rate) and what its requests are
 * (sim_workload_stats_of), on three requests worked by hand. */
static void test_trace_at_rate(void **state)
{
    (void)state;
    sim_err err = {{0}};
    sim_workload w;
    /* sent at 0, 1 and 3 s; lengths 1/7, 2/8, 10/9; the last shares two 512-token blocks */
    const char *p = tu_write_tmp("arrival_s,input_tokens,output_tokens\n0,1,7\n1,2,8\n3,10,9\n");
    assert_int_equal(sim_workload_load_trace(p, 1.0, 0, &w, &err), SIM_OK);
    sim_workload r;
    /* 2 req/s: the span becomes (3 - 1) / 2 = 1 s, every time x 1/3: 0, 1/3 s, 1 s */
    assert_int_equal(sim_workload_at_rate(&w, 2.0, &r, &err), SIM_OK);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.reqs[0].arrival_ns, 0);
    assert_int_equal(r.reqs[1].arrival_ns, 333333333);
    assert_int_equal(r.reqs[2].arrival_ns, 1000000000);
    assert_int_equal(r.reqs[2].input_tokens, 10); /* the lengths kept */
    assert_int_equal(r.reqs[2].output_tokens, 9);
    sim_workload_free(&r);
    /* infinite rate: all at once */
    assert_int_equal(sim_workload_at_rate(&w, INFINITY, &r, &err), SIM_OK);
    assert_int_equal(r.reqs[2].arrival_ns, 0);
    sim_workload_free(&r);
    assert_int_equal(sim_workload_at_rate(&w, 0.0, &r, &err), SIM_EINPUT);
    /* statistics: inputs 1, 2, 10 (mean 13 / 3; median the ceil(1.5) = 2nd smallest, 2; p90 the
     * ceil(2.7) = 3rd, 10), outputs 7, 8, 9; n - 1 = 2 gaps over 3 s: 2/3 req/s; gaps 1 and 2 s:
     * mean 1.5, deviation 0.5, CV 1/3 */
    sim_workload_stats st;
    assert_int_equal(sim_workload_stats_of(&w, &st, &err), SIM_OK);
    assert_float_equal(st.in.mean, 13.0 / 3.0, 1e-12);
    assert_float_equal(st.in.median, 2.0, 0.0);
    assert_float_equal(st.in.p90, 10.0, 0.0);
    assert_float_equal(st.in.mu, log(2.0), 1e-12);
    assert_float_equal(st.in.sigma, log(5.0) / SIM_DATASET_Z90, 1e-12); /* ln(10 / 2) / z90 */
    assert_int_equal(st.in.min, 1);
    assert_int_equal(st.in.max, 10);
    assert_float_equal(st.out.median, 8.0, 0.0);
    assert_float_equal(st.rate_per_s, 2.0 / 3.0, 1e-12);
    assert_float_equal(st.gap_cv, 1.0 / 3.0, 1e-12);
    sim_workload_free(&w);
    /* Mooncake's hash ids travel with the copy */
    p = tu_write_tmp("{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 3, "
                     "\"hash_ids\": [4, 5]}\n{\"timestamp\": 2000, \"input_length\": 600, "
                     "\"output_length\": 3, \"hash_ids\": [4, 6]}\n");
    assert_int_equal(sim_workload_load_trace(p, 1.0, 0, &w, &err), SIM_OK);
    assert_int_equal(sim_workload_at_rate(&w, 4.0, &r, &err), SIM_OK);
    assert_int_equal(r.reqs[1].arrival_ns, 250000000); /* one gap of 1 / 4 s */
    assert_int_equal(r.n_hash_ids, 4);
    assert_int_equal(r.hash_block_tokens, 512);
    assert_int_equal(r.hash_ids[r.reqs[1].hash_off + 1], 6);
    sim_workload_free(&r);
    sim_workload_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mooncake_hash_ids),
        cmocka_unit_test(test_mooncake_one_pass),
        cmocka_unit_test(test_sessions),
        cmocka_unit_test(test_prefix_repetition),
        cmocka_unit_test(test_fixed_lengths_and_infinite_rate),
        cmocka_unit_test(test_range_ratio),
        cmocka_unit_test(test_range_floor),
        cmocka_unit_test(test_lenfile),
        cmocka_unit_test(test_lenfile_burstgpt),
        cmocka_unit_test(test_poisson_arrivals),
        cmocka_unit_test(test_seed_determinism),
        cmocka_unit_test(test_synthetic_bad_flags),
        cmocka_unit_test(test_trace_formats),
        cmocka_unit_test(test_shipped_traces),
        cmocka_unit_test(test_bad_traces),
        cmocka_unit_test(test_trace_offset_bound),
        cmocka_unit_test(test_dataset_fit),
        cmocka_unit_test(test_turn_heap),
        cmocka_unit_test(test_rate_schedule),
        cmocka_unit_test(test_trace_sessions),
        cmocka_unit_test(test_trace_at_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
