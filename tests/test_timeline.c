/* test_timeline.c - Chrome-trace timelines: the writer's rules, run and serve traces, the checker. */
#include "testutil.h"

#include <cjson/cJSON.h>

#include "engine.h"
#include "jsonf.h"
#include "pp.h"
#include "run.h"
#include "timeline.h"
#include "timeline_check.h"
#include "timeline_run.h"
#include "timeline_serve.h"

static const char *tmp_path(const char *tag)
{
    static char buf[512];
    tu_snprintf(buf, sizeof buf, "%s/infersim-trace-%d-%s.json", tu_tmpdir(), (int)getpid(), tag);
    return buf;
}

static sim_timeline_stats check_ok(const char *path)
{
    sim_timeline_stats s;
    sim_err err = {{0}};
    if (sim_timeline_check(path, &s, &err) != SIM_OK) {
        print_error("%s\n", err.msg);
        fail();
    }
    return s;
}

static void test_run_trace(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-70b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_run_cfg c = {.step = {.model = &m,
                              .hw = &hw,
                              .tp = 4,
                              .overlap = 0.5,
                              .prec = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false},
                              .iteration_overhead_ns = 1e6,
                              .request_overhead_ns = 1e4},
                     .batch = 8,
                     .input_len = 512,
                     .output_len = 16,
                     .mem_util = 0.9};
    sim_run_result *r = calloc(1, sizeof *r);
    sim_run_simulate(&c, r);
    sim_seq_group g = {.count = 8, .q = 1, .c = 512, .logits = 1};
    sim_step_result *dec = calloc(1, sizeof *dec);
    sim_step_price(&c.step, &g, 1, dec);
    const char *path = tmp_path("run");
    sim_err err = {{0}};
    assert_int_equal(sim_timeline_run(path, &c.step, &r->prefill, dec, true, &err), SIM_OK);
    sim_timeline_stats s = check_ok(path);
    assert_int_equal(s.tracks, 16); /* 4 ranks x (issued, compute, memory, network) */
    /* the two steps end where TTFT + one decode step end, less at most 1 ns per op of
     * truncation */
    double want = r->prefill.t_ns + dec->t_ns;
    assert_between((double)s.end_ns, want - 2000.0, want);
    /* an op slice carries the roofline reasoning */
    cJSON *root;
    assert_int_equal(sim_jsonf_load_max(path, 1L << 30, &root, &err), SIM_OK);
    const cJSON *ev;
    bool found = false;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(root, "traceEvents"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(ev, "name");
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(ev, "cat");
        if (cJSON_IsString(cat) && strcmp(cat->valuestring, "op") == 0 &&
            strcmp(name->valuestring, "attn_allreduce") == 0) {
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(ev, "args");
            static const char *const keys[] = {"flops", "bytes",         "intensity",
                                               "bound", "net_hidden_us", "net_exposed_us"};
            for (int k = 0; k < 6; k++)
                assert_non_null(cJSON_GetObjectItemCaseSensitive(a, keys[k]));
            assert_true(cJSON_GetObjectItemCaseSensitive(a, "net_hidden_us")->valuedouble > 0);
            found = true;
            break;
        }
    }
    assert_true(found);
    cJSON_Delete(root);
    remove(path);
    free(r);
    free(dec);
}

/* The size of a file in bytes. */
static double file_bytes(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    double n = (double)ftell(f);
    fclose(f);
    return n;
}

static double last_serve_bytes, last_serve_estimate; /* of the last serve_trace */
static bool serve_full; /* the serve traces below written with sim_timeline_serve_full */

/* root: NULL, or where the trace is loaded to (then the caller deletes it) */
static void serve_trace_pp(sim_timeline_detail detail, int64_t w0, int64_t w1, double util, int pp,
                           sim_engine_result *res, sim_timeline_stats *stats, cJSON **root)
{
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_engine_cfg cfg = {
        .step = {.model = &m,
                 .hw = &hw,
                 .tp = 1,
                 .pp = pp,
                 .prec = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false},
                 .iteration_overhead_ns = 1e6,
                 .request_overhead_ns = 1e4},
        .sched = {.max_num_seqs = 64, .max_num_batched_tokens = 4096, .chunked_prefill = true},
        .block_size = 16,
        .mem_util = util};
    sim_synth_cfg sc = {.num_prompts = 200,
                        .input_len = 1500,
                        .output_len = 300,
                        .range_ratio = 0.5,
                        .request_rate = 20.0,
                        .burstiness = 1.0,
                        .seed = 3};
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_synthetic(&sc, &w, &err), SIM_OK);
    const char *path = tmp_path("serve");
    sim_timeline_serve *ts = calloc(1, sizeof *ts);
    assert_int_equal(sim_timeline_serve_open(ts, path, detail, w0, w1, w.n, &cfg.step, &err),
                     SIM_OK);
    if (serve_full)
        sim_timeline_serve_full(ts);
    cfg.observer = &ts->observer;
    assert_int_equal(sim_engine_check(&cfg, &w, &err), SIM_OK);
    assert_int_equal(sim_engine_run(&cfg, &w, res, &err), SIM_OK);
    assert_int_equal(sim_timeline_serve_close(ts, res->duration_ns, &err), SIM_OK);
    free(ts);
    *stats = check_ok(path);
    last_serve_bytes = file_bytes(path);
    last_serve_estimate = sim_timeline_serve_estimate_bytes(
        detail, &cfg.step, (double)res->iterations, (double)res->n, (double)res->preemptions);
    if (root)
        assert_int_equal(sim_jsonf_load_max(path, 1L << 30, root, &err), SIM_OK);
    remove(path);
    sim_workload_free(&w);
}

static void serve_trace(sim_timeline_detail detail, int64_t w0, int64_t w1, double util,
                        sim_engine_result *res, sim_timeline_stats *stats)
{
    serve_trace_pp(detail, w0, w1, util, 1, res, stats, NULL);
}

static void test_serve_trace_adds_up(void **state)
{
    (void)state;
    sim_engine_result res;
    sim_timeline_stats s, slim;
    serve_full = true;
    serve_trace(SIM_TIMELINE_ITERATION, 0, -1, 0.9, &res, &s);
    /* one slice per iteration, their durations exactly the engine's busy time, the last one
     * ending at the run's duration */
    assert_int_equal(s.iterations, res.iterations);
    assert_int_equal(s.slices, res.iterations);
    assert_int_equal(s.iteration_ns, (int64_t)res.busy_ns);
    assert_int_equal(s.last_iteration_end_ns, res.duration_ns);
    assert_int_equal(s.counters, 3 * res.iterations);
    /* per request: a span with queued, prefill and decode phases: 8 async events */
    assert_int_equal(s.async_events, 8 * 200);
    /* the size estimated from the counts is within 10% of the full file */
    assert_near(last_serve_estimate, last_serve_bytes, 0.10);
    const double full_bytes = last_serve_bytes;
    sim_engine_result_free(&res);
    /* slim (the default): the same iterations, busy time and end in fewer slices and samples,
     * the same requests; smaller than the full file and than the estimate */
    serve_full = false;
    serve_trace(SIM_TIMELINE_ITERATION, 0, -1, 0.9, &res, &slim);
    assert_int_equal(slim.iterations, res.iterations);
    assert_int_equal(slim.iteration_ns, (int64_t)res.busy_ns);
    assert_int_equal(slim.last_iteration_end_ns, res.duration_ns);
    assert_int_equal(slim.async_events, 8 * 200);
    assert_true(slim.slices < s.slices);
    assert_true(slim.counters < s.counters);
    assert_true(last_serve_bytes < full_bytes && last_serve_bytes < last_serve_estimate);
    sim_engine_result_free(&res);
    serve_full = true;
    serve_trace(SIM_TIMELINE_LAYER, 0, -1, 0.9, &res, &s);
    assert_near(last_serve_estimate, last_serve_bytes, 0.10);
    sim_engine_result_free(&res);
    serve_full = false;
}

/* Args keep every digit: the shortest decimal that reads back exactly (the step's 2799525.877 us
 * used to print as 2.79953e+06 beside the slice's exact dur). */
static void test_args_full_precision(void **state)
{
    (void)state;
    static const double v[] = {2799525.877, 1.0 / 3.0, 1e16, 0.1, 123456789012345678.0, -2.5e-7};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        sim_targs a;
        sim_targs_reset(&a);
        sim_targs_num(&a, "x", v[i]);
        assert_true(strncmp(a.buf, "\"x\":", 4) == 0);
        assert_true(strtod(a.buf + 4, NULL) == v[i]);
    }
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_num(&a, "time_us", 2799525.877);
    assert_string_equal(a.buf, "\"time_us\":2799525.877");
    sim_targs_reset(&a);
    sim_targs_num(&a, "third", 1.0 / 3.0);
    assert_string_equal(a.buf, "\"third\":0.3333333333333333");
}

/* A run's step configuration in bf16 with engine overheads. */
static sim_step_cfg run_cfg(const sim_model *m, const sim_hw *hw, int tp, int pp)
{
    return (sim_step_cfg){.model = m,
                          .hw = hw,
                          .tp = tp,
                          .pp = pp,
                          .prec = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16},
                          .iteration_overhead_ns = 1e6,
                          .request_overhead_ns = 1e4};
}

/* One rank by default (TP ranks are identical), stated in the header; the estimate is within
 * 10% of what is written. */
static void test_run_trace_one_rank(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg sc = run_cfg(&m, &hw, 4, 1);
    sim_step_result *pre = calloc(1, sizeof *pre), *dec = calloc(1, sizeof *dec);
    sim_seq_group gp = {.count = 4, .q = 512, .c = 0, .logits = 1};
    sim_seq_group gd = {.count = 4, .q = 1, .c = 512, .logits = 1};
    sim_step_price(&sc, &gp, 1, pre);
    sim_step_price(&sc, &gd, 1, dec);
    const char *path = tmp_path("ranks");
    sim_err err = {{0}};
    for (int all = 0; all < 2; all++) {
        assert_int_equal(sim_timeline_run(path, &sc, pre, dec, all, &err), SIM_OK);
        sim_timeline_stats s = check_ok(path);
        assert_int_equal(s.tracks, all ? 16 : 4);
        assert_near(sim_timeline_run_estimate_bytes(pre, dec, all ? 4 : 1), file_bytes(path), 0.10);
        cJSON *root;
        assert_int_equal(sim_jsonf_load_max(path, 1L << 30, &root, &err), SIM_OK);
        const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "otherData");
        assert_int_equal(cJSON_GetObjectItemCaseSensitive(meta, "ranks_written")->valueint,
                         all ? 4 : 1);
        assert_int_equal(cJSON_GetObjectItemCaseSensitive(meta, "tp")->valueint, 4);
        cJSON_Delete(root);
        remove(path);
    }
    free(pre);
    free(dec);
}

/* The "stage" slices of process pid in the trace, in file order: their ts and dur in ns. */
static int stage_slices(const cJSON *root, int pid, int64_t *ts_ns, int64_t *dur_ns, int cap)
{
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "traceEvents"))
    {
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
        if (cJSON_GetObjectItemCaseSensitive(e, "pid")->valueint != pid || !cJSON_IsString(cat) ||
            strcmp(cat->valuestring, "stage") != 0 || n >= cap)
            continue;
        ts_ns[n] = llround(cJSON_GetObjectItemCaseSensitive(e, "ts")->valuedouble * 1e3);
        dur_ns[n++] = llround(cJSON_GetObjectItemCaseSensitive(e, "dur")->valuedouble * 1e3);
    }
    return n;
}

/* The name metadata of process pid. */
static const char *process_name(const cJSON *root, int pid)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "traceEvents"))
    {
        if (cJSON_GetObjectItemCaseSensitive(e, "pid")->valueint == pid &&
            strcmp(cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring, "process_name") == 0)
            return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "args"),
                                                    "name")
                ->valuestring;
    }
    return "";
}

/* --pp 2, batch 2, prefill only: two micro-batches of one sequence, a one-shot pipeline. With
 * T0, T1 a micro-batch's stage times (pp.c) and X the transfer, by hand:
 *   stage 0: mb 0 at 0 for T0, mb 1 at T0 for T0
 *   stage 1: mb 0 at T0 + X for T1, mb 1 at max(T0 + X + T1, 2 T0 + X) for T1
 * (each slice starts at the whole ns below and lasts the whole ns below its exact time), and the
 * last one ends at the run's TTFT (the makespan sim_pp_round_ns gives). Llama-3.1-8B's 32 layers
 * split 16 + 16; with --pp 3 11 + 11 + 10 (stage 1 and 0 take the 2 left over). */
static void test_run_trace_pp_stages(void **state)
{
    (void)state;
    const char *path = tmp_path("pp");
    sim_err err = {{0}};
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg sc = run_cfg(&m, &hw, 2, 2);
    sc.overlap = 0.5; /* two micro-batches of one sequence: */
    sim_seq_group gp = {.count = 2, .q = 512, .c = 0, .logits = 1};
    assert_int_equal(sim_timeline_run_pp(path, &sc, &gp, NULL, false, &err), SIM_OK);
    check_ok(path);
    cJSON *root;
    assert_int_equal(sim_jsonf_load_max(path, 1L << 30, &root, &err), SIM_OK);
    assert_string_equal(process_name(root, 0), "stage 0: layers 0-15");
    assert_string_equal(process_name(root, 1), "stage 1: layers 16-31");
    sim_step_cfg pre = sc;
    pre.eager = sim_step_eager(&sc, true);
    sim_seq_group one = {.count = 1, .q = 512, .c = 0, .logits = 1};
    sim_step_result *r = calloc(1, sizeof *r);
    sim_step_price(&pre, &one, 1, r);
    const double t0 = sim_pp_stage_ns(&pre, r, 0), t1 = sim_pp_stage_ns(&pre, r, 1);
    const double x = sim_pp_xfer_ns(&pre, 512, 0);
    assert_true(t0 > 0 && t1 > 0 && x > 0);
    int64_t ts[4], dur[4];
    assert_int_equal(stage_slices(root, 0, ts, dur, 4), 2);
    assert_int_equal(ts[0], 0);
    assert_int_equal(dur[0], (int64_t)floor(t0));
    assert_int_equal(ts[1], (int64_t)floor(t0));
    assert_int_equal(dur[1], (int64_t)floor(t0));
    assert_int_equal(stage_slices(root, 1, ts, dur, 4), 2);
    assert_int_equal(ts[0], (int64_t)floor(t0 + x));
    assert_int_equal(dur[0], (int64_t)floor(t1));
    const double s1 = fmax(t0 + x + t1, 2 * t0 + x);
    assert_int_equal(ts[1], (int64_t)floor(s1));
    assert_int_equal(dur[1], (int64_t)floor(t1));
    /* the makespan is the run's TTFT */
    assert_near(s1 + t1, sim_pp_round_ns(&pre, &gp, 1, NULL, false), 1e-9);
    cJSON_Delete(root);

    /* three stages with a decode round, one and every rank: the checker passes, the names carry
     * the layer ranges, each stage's slices add up to its stage times, the estimate is within
     * 10% */
    sc.pp = 3;
    pre.pp = 3;
    sim_seq_group gd = {.count = 2, .q = 1, .c = 512, .logits = 1};
    static const char *const names[2][3] = {
        {"stage 0: layers 0-10", "stage 1: layers 11-21", "stage 2: layers 22-31"},
        {"stage 0 GPU 0: layers 0-10", "stage 1 GPU 2: layers 11-21",
         "stage 2 GPU 4: layers 22-31"}};
    sim_step_price(&pre, &one, 1, r);
    sim_step_result *d = calloc(1, sizeof *d);
    sim_seq_group d1 = {.count = 1, .q = 1, .c = 512, .logits = 1};
    sim_step_price(&sc, &d1, 1, d);
    for (int all = 0; all < 2; all++) {
        const int ranks = all ? 2 : 1;
        assert_int_equal(sim_timeline_run_pp(path, &sc, &gp, &gd, all, &err), SIM_OK);
        sim_timeline_stats st = check_ok(path);
        assert_int_equal(st.tracks, 3 * ranks * 4);
        assert_near(sim_timeline_run_pp_estimate_bytes(&sc, &gp, &gd, ranks), file_bytes(path),
                    0.10);
        assert_int_equal(sim_jsonf_load_max(path, 1L << 30, &root, &err), SIM_OK);
        for (int k = 0; k < 3; k++) {
            assert_string_equal(process_name(root, k * ranks), names[all][k]);
            /* 2 prefill and 2 decode micro-batches of one sequence each */
            assert_int_equal(stage_slices(root, k * ranks, ts, dur, 4), 4);
            int64_t sum = dur[0] + dur[1] + dur[2] + dur[3];
            double want = 2 * sim_pp_stage_ns(&pre, r, k) + 2 * sim_pp_stage_ns(&sc, d, k);
            assert_true(fabs((double)sum - want) < 4.0); /* four slices, each truncated */
        }
        cJSON_Delete(root);
    }
    remove(path);
    free(r);
    free(d);
}

/* serve --pp 2: a process per stage with a slice per micro-batch inside each iteration, and the
 * request tracks as before. A lone sequence's round is one micro-batch through both stages and
 * the link (pp.h: round = T0 + X + T1): stage 0 starts with the iteration, stage 1 where the
 * micro-batch reaches it (T0 + X later) and ends with it (whole ns, so within 2 ns). */
static void test_serve_trace_pp_stages(void **state)
{
    (void)state;
    sim_engine_result res;
    sim_timeline_stats st;
    cJSON *root = NULL;
    serve_trace_pp(SIM_TIMELINE_ITERATION, 0, -1, 0.9, 2, &res, &st, &root);
    assert_int_equal(st.iterations, res.iterations);
    assert_int_equal(st.async_events, 8 * 200);
    /* the estimate is of the full trace: an upper bound of the slim one */
    assert_true(last_serve_bytes < last_serve_estimate);
    assert_string_equal(process_name(root, 3), "stage 0: layers 0-15");
    assert_string_equal(process_name(root, 4), "stage 1: layers 16-31");
    /* the first iteration: the first request's prompt alone */
    int64_t ts[2], dur[2];
    assert_int_equal(stage_slices(root, 3, ts, dur, 1), 1);
    assert_int_equal(stage_slices(root, 4, ts + 1, dur + 1, 1), 1);
    const cJSON *e, *first = NULL;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "traceEvents"))
    {
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
        if (!first && cJSON_IsString(cat) && strcmp(cat->valuestring, "iteration") == 0)
            first = e;
    }
    assert_non_null(first);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(first, "args");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(args, "batch_size")->valueint, 1);
    const int64_t tokens = cJSON_GetObjectItemCaseSensitive(args, "prefill_tokens")->valueint;
    const int64_t it0 = llround(cJSON_GetObjectItemCaseSensitive(first, "ts")->valuedouble * 1e3);
    const int64_t it_dur =
        llround(cJSON_GetObjectItemCaseSensitive(first, "dur")->valuedouble * 1e3);
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = {.model = &m, .hw = &hw, .tp = 1, .pp = 2};
    const double x = sim_pp_xfer_ns(&c, (double)tokens, 0);
    assert_int_equal(ts[0], it0);
    assert_true(llabs(ts[1] - (it0 + dur[0] + llround(x))) <= 1);
    assert_true(llabs(dur[0] + dur[1] + llround(x) - it_dur) <= 2);
    cJSON_Delete(root);
    sim_engine_result_free(&res);
}

/* What an engine run showed its observer: the iterations, and the preemptions (all of
 * decoding requests, or not). */
typedef struct engine_log {
    int64_t start_ns[1024], dur_ns[1024], prefill_tokens[1024], decode_tokens[1024];
    int64_t iterations, preemptions, preempted_not_decoding;
    bool decoding[64]; /* per request: its last event was SIM_EV_DECODING */
} engine_log;

static void log_iteration(void *ctx, const sim_iter_info *it)
{
    engine_log *g = ctx;
    assert_true(g->iterations < 1024);
    g->start_ns[g->iterations] = it->start_ns;
    g->dur_ns[g->iterations] = it->dur_ns;
    g->prefill_tokens[g->iterations] = it->prefill_tokens;
    g->decode_tokens[g->iterations++] = it->decode_tokens;
}

static void log_request(void *ctx, int64_t id, sim_request_event ev, int64_t t_ns)
{
    (void)t_ns;
    engine_log *g = ctx;
    assert_true(id < 64);
    if (ev == SIM_EV_PREEMPTED) {
        g->preemptions++;
        g->preempted_not_decoding += !g->decoding[id];
    }
    g->decoding[id] = ev == SIM_EV_DECODING;
}

/* n requests of `in` prompt and `out` output tokens, all sent at t = 0, served by Llama-3.1-8B on
 * the H100 fixture at --gpu-memory-utilization util: run once with `log` watching, then again
 * into a timeline at `detail` over [w0, w1], whose checked stats are returned. */
static sim_timeline_stats small_serve_trace(int64_t n, int64_t in, int64_t out, double util,
                                            sim_timeline_detail detail, int64_t w0, int64_t w1,
                                            engine_log *log, sim_engine_result *res)
{
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_fixture_hw();
    sim_engine_cfg cfg = {
        .step = {.model = &m,
                 .hw = &hw,
                 .tp = 1,
                 .prec = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false},
                 .iteration_overhead_ns = 1e6,
                 .request_overhead_ns = 1e4},
        .sched = {.max_num_seqs = 64, .max_num_batched_tokens = 4096, .chunked_prefill = true},
        .block_size = 16,
        .mem_util = util};
    sim_workload w = tu_synth(n, in, out, INFINITY, 0.0);
    sim_err err = {{0}};
    assert_int_equal(sim_engine_check(&cfg, &w, &err), SIM_OK);
    memset(log, 0, sizeof *log);
    const sim_engine_observer watch = {
        .ctx = log, .iteration = log_iteration, .request = log_request};
    cfg.observer = &watch;
    assert_int_equal(sim_engine_run(&cfg, &w, res, &err), SIM_OK);
    sim_engine_result_free(res);
    const char *path = tmp_path("small-serve");
    sim_timeline_serve *ts = calloc(1, sizeof *ts);
    assert_int_equal(sim_timeline_serve_open(ts, path, detail, w0, w1, w.n, &cfg.step, &err),
                     SIM_OK);
    if (serve_full)
        sim_timeline_serve_full(ts);
    cfg.observer = &ts->observer;
    assert_int_equal(sim_engine_run(&cfg, &w, res, &err), SIM_OK);
    assert_int_equal(sim_timeline_serve_close(ts, res->duration_ns, &err), SIM_OK);
    free(ts);
    sim_timeline_stats s = check_ok(path);
    remove(path);
    sim_workload_free(&w);
    return s;
}

static void test_serve_trace_details_and_window(void **state)
{
    (void)state;
    static engine_log log;
    sim_engine_result res;
    /* 3 prompts of 100 tokens, 4 output tokens each, all at t = 0: one iteration prefills the
     * 300 tokens (and yields each first token), three decode the other 3 x 3 */
    small_serve_trace(3, 100, 4, 0.9, SIM_TIMELINE_ITERATION, 0, -1, &log, &res);
    sim_engine_result_free(&res);
    assert_int_equal(log.iterations, 4);
    assert_int_equal(log.prefill_tokens[0], 300);
    for (int i = 1; i < 4; i++)
        assert_int_equal(log.decode_tokens[i], 3);
    /* op detail over [start of iteration 2, start of iteration 3]: exactly those two decode
     * iterations (one starting on each edge), the trace ending where iteration 3 ends */
    sim_timeline_stats s = small_serve_trace(3, 100, 4, 0.9, SIM_TIMELINE_OP, log.start_ns[2],
                                             log.start_ns[3], &log, &res);
    assert_int_equal(s.iterations, 2);
    assert_int_equal(s.iteration_ns, log.dur_ns[2] + log.dur_ns[3]);
    assert_int_equal(s.last_iteration_end_ns, log.start_ns[3] + log.dur_ns[3]);
    assert_int_equal(s.end_ns, log.start_ns[3] + log.dur_ns[3]);
    /* each counter once: the second iteration's values are the first's (3 running, 0 waiting; 3
     * decode tokens; 3 x 7 blocks, 100-103 tokens fitting in 7 of 16) */
    assert_int_equal(s.counters, 3);
    /* the 3 requests, decoding all along: span and phase begun at the window's start, ended at
     * its end */
    assert_int_equal(s.async_events, 3 * 4);
    /* op level at TP 1: the as-issued, compute and memory tracks (no collectives) */
    assert_int_equal(s.tracks, 3);
    /* per decode iteration: itself, 32 layers, the host time; the 9 x 32 + 4 ops on the
     * as-issued and the memory tracks, and on the compute track all but those of less than 1 ns
     * of math: the embedding (a gather, no FLOPs), each layer's two norms and RoPE, the final
     * norm (3 tokens x 4096 x a few FLOPs: ~50 kFLOP, well under 1 ns on an H100) */
    const int ops = 9 * 32 + 4;
    assert_int_equal(s.slices, 2 * (1 + 32 + 1 + 2 * ops + ops - (3 * 32 + 2)));
    sim_engine_result_free(&res);
    /* a tight KV cache: 172 blocks of 16 tokens for 10 requests of 160 + 160 tokens. The
     * prefill takes 10 x 10 blocks; the requests then grow together, a block each per 16 tokens:
     * at 273 tokens their 18th blocks would make 180 > 172, so the last one (9) is preempted and
     * frees its 17; the other nine hold 9 x 18 = 162 blocks, 9 x 19 = 171 at 289 tokens, and
     * their 20th blocks at 305 tokens would make 180: request 8 goes. The two recompute once the
     * rest have finished. Both were decoding: an instant, and their decode phase ended, queued,
     * prefilled and decoding again (7 async events on top of a request's 8) */
    s = small_serve_trace(10, 160, 160, 0.21, SIM_TIMELINE_LAYER, 0, -1, &log, &res);
    assert_int_equal(res.kv_blocks, 172);
    assert_int_equal(res.preemptions, 2);
    assert_int_equal(log.preemptions, res.preemptions);
    assert_int_equal(log.preempted_not_decoding, 0);
    assert_int_equal(s.async_events, 10 * 8 + 7 * res.preemptions);
    assert_int_equal(s.iterations, res.iterations);
    assert_int_equal(s.iteration_ns, (int64_t)res.busy_ns);
    assert_int_equal(s.last_iteration_end_ns, res.duration_ns);
    /* layer level: the as-issued track only; per iteration itself, 32 layers and the host time */
    assert_int_equal(s.tracks, 1);
    assert_int_equal(s.slices, res.iterations * (1 + 32 + 1));
    sim_engine_result_free(&res);
}

/* The small run above (3 prompts of 100 tokens, 4 out) at iteration detail, full and slim. Full:
 * 4 iteration slices and 3 counters x 4 samples. Slim: the three decode iterations have the same
 * args (batch 3, 3 decode tokens, one CUDA-graph batch, 21 KV blocks as 100-103 tokens fit in 7
 * blocks of 16, 3 running, 0 waiting) and run back to back,
 * so they are one slice with "iterations": 3 next to the prefill's; "requests" (3, 0) and
 * "kv cache" (21 blocks) never change after the first sample (1 each); "batch tokens" goes from
 * (300, 0, 0) to (0, 0, 3) once (2). Events: 6 metadata and 24 async in both; 6 + 4 + 12 + 24 =
 * 46 full, 6 + 2 + 4 + 24 = 36 slim. */
static void test_serve_trace_slim_counts(void **state)
{
    (void)state;
    static engine_log log;
    sim_engine_result res;
    serve_full = true;
    sim_timeline_stats f =
        small_serve_trace(3, 100, 4, 0.9, SIM_TIMELINE_ITERATION, 0, -1, &log, &res);
    sim_engine_result_free(&res);
    serve_full = false;
    sim_timeline_stats s =
        small_serve_trace(3, 100, 4, 0.9, SIM_TIMELINE_ITERATION, 0, -1, &log, &res);
    assert_int_equal(f.slices, 4);
    assert_int_equal(f.counters, 12);
    assert_int_equal(f.events, 46);
    assert_int_equal(s.slices, 2);
    assert_int_equal(s.iterations, 4);
    assert_int_equal(s.iteration_ns, f.iteration_ns);
    assert_int_equal(s.iteration_ns, (int64_t)res.busy_ns);
    assert_int_equal(s.last_iteration_end_ns, res.duration_ns);
    assert_int_equal(s.counters, 4);
    assert_int_equal(s.async_events, f.async_events);
    assert_int_equal(s.events, 36);
    sim_engine_result_free(&res);
}

/* sim_targs_ns_as_s writes sim_targs_num's text for ns / 1e9 (trace.c's argument, checked):
 * edges of its fixed-point range and of the fallback, and a million values spread over it. */
static void test_ns_as_s_same_text(void **state)
{
    (void)state;
    static const int64_t edge[] = {0,
                                   1,
                                   37000,
                                   99999,
                                   100000,
                                   100001,
                                   999999999,
                                   1000000000,
                                   1000000001,
                                   123456789012345,
                                   999999999999999,
                                   1000000000000000,
                                   1234567890123456789};
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 1000000 + (int)(sizeof edge / sizeof edge[0]); i++) {
        int64_t ns;
        if (i < (int)(sizeof edge / sizeof edge[0])) {
            ns = edge[i];
        } else { /* xorshift: a value of 1 to 16 digits */
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            int64_t scale = 1;
            for (int d = (int)(x % 16); d > 0; d--)
                scale *= 10;
            ns = (int64_t)((x >> 8) % (uint64_t)(10 * scale));
        }
        sim_targs a, b;
        sim_targs_reset(&a);
        sim_targs_reset(&b);
        sim_targs_ns_as_s(&a, "arrival_s", ns);
        sim_targs_num(&b, "arrival_s", (double)ns / 1e9);
        if (strcmp(a.buf, b.buf) != 0) {
            print_error("ns %lld: %s, expected %s\n", (long long)ns, a.buf, b.buf);
            fail();
        }
    }
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_ns_as_s(&a, "t", 123456789);
    assert_string_equal(a.buf, "\"t\":0.123456789");
    sim_targs_reset(&a);
    sim_targs_ns_as_s(&a, "t", 2500000000);
    assert_string_equal(a.buf, "\"t\":2.5");
}

/* A serving timeline driven by hand (no engine): four requests, arrivals from 37 us (printed
 * 3.7e-05) to 1.000000001 s, thirty iterations of 6.5-7.25 ms, runs of identical ones (merged),
 * a KV cache of 27,858 blocks (usage_pct 100 x used / 27858, full precision), a draft of
 * 1234.5 ns (draft_us 1.2345) in some. Returns the time the run ends. */
static int64_t hand_serve_run(sim_timeline_serve *ts, sim_step_result *step)
{
    const sim_engine_observer *o = &ts->observer;
    static const int64_t arrive_ns[4] = {37000, 123456789, 250000001, 1000000001};
    int64_t t = 0;
    int next = 0, running = 0;
    step->bound = SIM_BOUND_MEMORY;
    for (int i = 0; i < 30; i++) {
        while (next < 4 && arrive_ns[next] <= t + 40000000) {
            o->request(o->ctx, next, SIM_EV_ARRIVED, arrive_ns[next]);
            if (t < arrive_ns[next])
                t = arrive_ns[next];
            o->request(o->ctx, next, SIM_EV_SCHEDULED, t);
            next++;
            running++;
        }
        const sim_iter_info it = {.start_ns = t,
                                  .dur_ns = 6500000 + 250000 * (i % 4 == 3 ? 3 : 0) + i / 10,
                                  .seqs = running,
                                  .prefill_tokens = i % 7 == 0 ? 512 : 0,
                                  .decode_tokens = i % 7 == 0 ? running - 1 : running,
                                  .graph_seqs = i % 7 == 0 ? 0 : 8,
                                  .kv_used_blocks = 32 * running + i / 8,
                                  .kv_total_blocks = 27858,
                                  .running = running,
                                  .waiting = 4 - next,
                                  .draft_ns = i % 5 == 4 ? 1234.5 : 0.0,
                                  .step = step};
        o->iteration(o->ctx, &it);
        t += it.dur_ns;
        if (i == 1)
            o->request(o->ctx, 0, SIM_EV_DECODING, t);
        if (i == 20)
            o->request(o->ctx, 0, SIM_EV_FINISHED, t);
    }
    return t;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Writes the hand-built run's slim timeline to path, limited to max_bytes (0: none); the
 * status of closing it, and the size it would take when it passed the limit. */
static sim_status hand_serve_trace(const char *path, double max_bytes, double *over_bytes)
{
    sim_err err = {{0}};
    sim_timeline_serve *ts = calloc(1, sizeof *ts);
    sim_step_result *step = calloc(1, sizeof *step);
    assert_non_null(ts);
    assert_non_null(step);
    assert_int_equal(
        sim_timeline_serve_open(ts, path, SIM_TIMELINE_ITERATION, 0, -1, 4, NULL, &err), SIM_OK);
    sim_timeline_serve_limit(ts, max_bytes);
    const int64_t end = hand_serve_run(ts, step);
    sim_status st = sim_timeline_serve_close(ts, end, &err); /* its last events can pass it too */
    *over_bytes = sim_timeline_serve_over_bytes(ts, end);
    free(ts);
    free(step);
    return st;
}

/* The slim timeline byte for byte as tests/data/trace-serve-slim.json holds it (written before
 * the args' numbers got their own printers: the text did not change), and --trace-max-mb's limit
 * as the file streams: one byte short of the whole file refuses it and leaves no file (nor its
 * temporary), its size scaled from the simulated time written; the exact size writes it. */
static void test_serve_trace_hand_built_golden_and_limit(void **state)
{
    (void)state;
    const char *path = tmp_path("hand");
    double over = -1.0;
    assert_int_equal(hand_serve_trace(path, 0.0, &over), SIM_OK);
    assert_true(over == 0.0);
    (void)check_ok(path);
    char *got = read_all(path);
    char golden[1024];
    tu_snprintf(golden, sizeof golden, "%s/tests/data/trace-serve-slim.json", tu_root());
    char *want = read_all(golden);
    assert_string_equal(got, want);
    const double size = (double)strlen(got);
    free(got);
    free(want);
    remove(path);
    assert_int_equal(hand_serve_trace(path, size, &over), SIM_OK);
    assert_true(over == 0.0);
    assert_true(file_bytes(path) == size);
    remove(path);
    assert_int_equal(hand_serve_trace(path, size - 1.0, &over), SIM_EINPUT);
    assert_true(over > size - 1.0 && over < 1.2 * size);
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_equal(hand_serve_trace(path, size / 4.0, &over), SIM_EINPUT);
    assert_int_not_equal(access(path, F_OK), 0);
    /* past the limit, scaled from the time its quarter covers (the hand-built run is uneven: its
     * first events are metadata and a lone request, so the scale overshoots; on an even run it is
     * close, test_cli_serve: 12 MB for 12.49) */
    assert_true(over > size / 4.0 && over < 2.0 * size);
    char dir_cmd[1200];
    tu_snprintf(dir_cmd, sizeof dir_cmd, "ls %s.*.tmp >/dev/null 2>&1", path);
    assert_int_not_equal(system(dir_cmd), 0); /* no temporary left */
}

static void test_writer_escapes_and_is_atomic(void **state)
{
    (void)state;
    const char *path = tmp_path("esc");
    remove(path);
    sim_timeline t;
    sim_err err = {{0}};
    assert_int_equal(sim_timeline_open(&t, path, &err), SIM_OK);
    sim_timeline_name_process(&t, 1, "GPU \"0\"\n\\", 0);
    sim_timeline_name_thread(&t, 1, 1, "tab\there", 0);
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_num(&a, "nan", NAN);
    sim_targs_str(&a, "quote", "say \"hi\"");
    sim_timeline_slice(&t, 1, 1, "a\"b", "op", 1500, 2500, &a);
    /* nothing at the final path until the trace is complete */
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_equal(sim_timeline_close(&t, &err), SIM_OK);
    assert_int_equal(access(path, F_OK), 0);
    sim_timeline_stats s = check_ok(path);
    assert_int_equal(s.slices, 1);
    assert_int_equal(s.end_ns, 4000);
    remove(path);
    /* an aborted trace leaves nothing behind */
    assert_int_equal(sim_timeline_open(&t, path, &err), SIM_OK);
    sim_timeline_abort(&t);
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_not_equal(access(t.out.tmp, F_OK), 0);
}

/* The i-th event of a loaded trace with ph p (NULL past the last). */
static const cJSON *nth_event(const cJSON *root, char p, int i)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "traceEvents"))
    {
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        if (ph->valuestring[0] == p && i-- == 0)
            return e;
    }
    return NULL;
}

static double ev_num(const cJSON *e, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);
    if (!v)
        v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "args"), key);
    assert_non_null(v);
    return v->valuedouble;
}

/* A counter sampled at most once per 10 ms, set (ms: value) 0: 1, 4: 2, 6: 3, 12: 3, 13: 5,
 * 15: 3, 25: 7, 27: 8. Written: 1 at 0; the 3 held since 6 ms at 10 ms (the interval's end; it is
 * the counter's value then) when the set at 12 ms comes; the 5 of 13 ms dropped, the counter back
 * at 3 by 15 ms; 7 at 25 ms (10 ms after the last sample); the 8 of 27 ms, held, written by the
 * flush at 27 ms: the last value exact. Every set written (every_ns -1): all 8. Slices: two
 * back-to-back ones with the same args merge (0..1200 ns, "iterations": 2); one with other args
 * (1200..1300), one like the first after it (1300..1400) and one after a gap (1500..1600) do not. */
static void test_sampled_counter_and_merge(void **state)
{
    (void)state;
    static const int64_t at_ms[] = {0, 4, 6, 12, 13, 15, 25, 27};
    static const double val[] = {1, 2, 3, 3, 5, 3, 7, 8};
    static const char *const keys[] = {"n"};
    const char *path = tmp_path("ctr");
    sim_err err = {{0}};
    for (int full = 0; full < 2; full++) {
        sim_timeline t;
        assert_int_equal(sim_timeline_open(&t, path, &err), SIM_OK);
        sim_timeline_name_process(&t, 1, "p", 0);
        sim_timeline_name_thread(&t, 1, 1, "t", 0);
        sim_timeline_ctr c;
        sim_timeline_ctr_init(&c, 1, "c", full ? -1 : 10000000, 1, keys);
        for (int i = 0; i < 8; i++)
            sim_timeline_ctr_set(&t, &c, at_ms[i] * 1000000, &val[i]);
        sim_timeline_ctr_flush(&t, &c);
        sim_timeline_merge m;
        sim_timeline_merge_init(&m, "iterations");
        sim_targs a, b;
        sim_targs_reset(&a);
        sim_targs_int(&a, "batch_size", 4);
        sim_targs_reset(&b);
        sim_targs_int(&b, "batch_size", 5);
        sim_timeline_merge_slice(&t, &m, 1, 1, "it", "iteration", 0, 500, &a);
        sim_timeline_merge_slice(&t, &m, 1, 1, "it", "iteration", 500, 700, &a);
        sim_timeline_merge_slice(&t, &m, 1, 1, "it", "iteration", 1200, 100, &b);
        sim_timeline_merge_slice(&t, &m, 1, 1, "it", "iteration", 1300, 100, &a);
        sim_timeline_merge_slice(&t, &m, 1, 1, "it", "iteration", 1500, 100, &a);
        sim_timeline_merge_flush(&t, &m);
        assert_int_equal(sim_timeline_close(&t, &err), SIM_OK);
        sim_timeline_stats s = check_ok(path);
        cJSON *root = NULL;
        assert_int_equal(sim_jsonf_load_max(path, 1L << 20, &root, &err), SIM_OK);
        remove(path);
        assert_int_equal(s.iterations, 5);
        assert_int_equal(s.iteration_ns, 1200 + 100 + 100 + 100);
        assert_int_equal(s.slices, 4);
        if (full) {
            assert_int_equal(s.counters, 8);
            for (int i = 0; i < 8; i++)
                assert_true(ev_num(nth_event(root, 'C', i), "n") == val[i]);
        } else {
            static const double want_us[] = {0, 10000, 25000, 27000}, want[] = {1, 3, 7, 8};
            assert_int_equal(s.counters, 4);
            for (int i = 0; i < 4; i++) {
                const cJSON *e = nth_event(root, 'C', i);
                assert_true(ev_num(e, "ts") == want_us[i]);
                assert_true(ev_num(e, "n") == want[i]);
            }
        }
        const cJSON *x = nth_event(root, 'X', 0);
        assert_true(ev_num(x, "dur") == 1.2);
        assert_true(ev_num(x, "iterations") == 2);
        assert_null(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(nth_event(root, 'X', 2), "args"), "iterations"));
        cJSON_Delete(root);
    }
}

/* Names are escaped whole, however long (strbuf.h's escaping: no fixed buffer cuts them), and an
 * args object that outgrows its 1536 bytes leaves out whole keys, never half of one. */
static void test_writer_long_names_and_full_args(void **state)
{
    (void)state;
    const char *path = tmp_path("long");
    remove(path);
    char name[2001];
    memset(name, 'n', 2000);
    name[1998] = '"'; /* escaped as \" near the end */
    name[2000] = '\0';
    sim_timeline t;
    sim_err err = {{0}};
    assert_int_equal(sim_timeline_open(&t, path, &err), SIM_OK);
    sim_timeline_name_process(&t, 1, "p", 0);
    sim_timeline_name_thread(&t, 1, 1, "t", 0);
    /* each key and value "k00":1234567890.125 is 21 bytes with its comma: 73 fit in 1536 */
    sim_targs a;
    sim_targs_reset(&a);
    for (int i = 0; i < 100; i++) {
        char key[8];
        snprintf(key, sizeof key, "k%02d", i);
        sim_targs_num(&a, key, 1234567890.125);
    }
    assert_int_equal(a.len, 73 * 21 - 1);
    sim_timeline_slice(&t, 1, 1, name, "op", 0, 1000, &a);
    assert_int_equal(sim_timeline_close(&t, &err), SIM_OK);
    assert_int_equal(check_ok(path).slices, 1);
    /* the file holds the whole name, its quote escaped, and the args up to k72 */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *text = calloc(1, 16384);
    size_t n = fread(text, 1, 16383, f);
    fclose(f);
    assert_true(n > 2000 + 73 * 21);
    char want[2010];
    memcpy(want, name, 1998);
    memcpy(want + 1998, "\\\"n\"", 4); /* ...n\"n" */
    want[2002] = '\0';
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "\"k72\":1234567890.125}"));
    assert_null(strstr(text, "\"k73\""));
    free(text);
    remove(path);
}

static void expect_rejected(const char *events, const char *mention)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\","
             "\"args\":{\"name\":\"p\"}},{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":"
             "\"thread_name\",\"args\":{\"name\":\"t\"}}%s]}",
             events);
    const char *p = tu_write_tmp(text);
    sim_timeline_stats s;
    sim_err err = {{0}};
    assert_int_equal(sim_timeline_check(p, &s, &err), SIM_EINPUT);
    if (!strstr(err.msg, mention)) {
        print_error("'%s' does not mention '%s'\n", err.msg, mention);
        fail();
    }
}

static void test_shipped_examples_pass(void **state)
{
    (void)state;
    static const char *const files[] = {"example-run-llama-3.1-8b-tp2",
                                        "example-serve-llama-3.1-8b"};
    for (int i = 0; i < 2; i++) {
        sim_timeline_stats s = check_ok(tu_path("traces", files[i]));
        assert_true(s.slices > 1000);
    }
}

static void test_checker_catches_violations(void **state)
{
    (void)state;
    expect_rejected(",{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":0,\"dur\":10},"
                    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"b\",\"ts\":5,\"dur\":10}",
                    "overlap partially");
    expect_rejected(",{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"a\",\"ts\":0,\"dur\":10}",
                    "thread_name");
    expect_rejected(",{\"ph\":\"X\",\"pid\":3,\"tid\":1,\"name\":\"a\",\"ts\":0,\"dur\":10}",
                    "process_name");
    expect_rejected(",{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":0}", "dur");
    expect_rejected(",{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":-1,\"dur\":1}", "ts");
    /* times are bounded so ts + dur in ns cannot overflow (ts = dur = 9e15 us made UBSan abort);
     * events count from 0 after the two metadata events, so this is event 2 */
    expect_rejected(",{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":9e15,\"dur\":9e15}",
                    "event 2: field 'ts' is 9000000000000000, expected microseconds in [0, 1e+15]");
    expect_rejected(",{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":0,\"dur\":1.5e15}",
                    "event 2: field 'dur' is 1500000000000000, expected");
    expect_rejected(",{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":0}",
                    "event 2: field 'dur' is missing or not a number");
    expect_rejected(",{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":\"0\",\"dur\":1}",
                    "event 2: field 'ts' is missing or not a number");
    /* pid, tid, id past 2^53 would make the int64_t casts undefined */
    expect_rejected(",{\"ph\":\"X\",\"pid\":1e300,\"tid\":1,\"name\":\"a\",\"ts\":0,\"dur\":1}",
                    "event 2: pid must be an integer (|pid| <= 2^53)");
    expect_rejected(",{\"ph\":\"X\",\"pid\":1,\"tid\":-1e19,\"name\":\"a\",\"ts\":0,\"dur\":1}",
                    "event 2: tid must be an integer");
    expect_rejected(",{\"ph\":\"b\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"cat\":\"c\",\"id\":1e19,"
                    "\"ts\":0}",
                    "event 2: async event without an integer id");
    expect_rejected(",{\"ph\":\"C\",\"pid\":1,\"name\":\"c\",\"ts\":0,\"args\":{\"v\":\"x\"}}",
                    "counter");
    expect_rejected(",{\"ph\":\"C\",\"pid\":1,\"name\":\"c\",\"ts\":0,\"args\":5}", "counter");
    expect_rejected(",{\"ph\":\"b\",\"pid\":1,\"cat\":\"r\",\"name\":\"a\",\"id\":\"req-1\","
                    "\"ts\":0}",
                    "integer id");
    expect_rejected(",{\"ph\":\"b\",\"pid\":1,\"cat\":\"r\",\"name\":\"a\",\"id\":7,\"ts\":0}",
                    "without an end");
    expect_rejected(",{\"ph\":\"e\",\"pid\":1,\"cat\":\"r\",\"name\":\"a\",\"id\":7,\"ts\":0}",
                    "without a matching begin");
    /* a flow finish closes only a flow start of its cat and id, never an async begin */
    expect_rejected(",{\"ph\":\"b\",\"pid\":1,\"cat\":\"r\",\"name\":\"a\",\"id\":7,\"ts\":0}"
                    ",{\"ph\":\"f\",\"pid\":1,\"tid\":1,\"cat\":\"r\",\"name\":\"a\",\"id\":7,"
                    "\"ts\":1,\"bp\":\"e\"}",
                    "flow finish without a matching start");
    expect_rejected(",{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"cat\":\"r\",\"name\":\"a\",\"id\":7,"
                    "\"ts\":0}",
                    "without an end");
    expect_rejected(",{\"ph\":\"X\",\"pid\":\"gpu\",\"tid\":1,\"name\":\"a\",\"ts\":0,\"dur\":1}",
                    "pid");
    /* nested and sequential slices are fine */
    const char *ok = tu_write_tmp(
        "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":"
        "\"p\"}},{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":"
        "\"t\"}},{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":0,\"dur\":10},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"b\",\"ts\":0,\"dur\":4},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"c\",\"ts\":4,\"dur\":6},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"d\",\"ts\":10,\"dur\":1}]}");
    check_ok(ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_trace),
        cmocka_unit_test(test_serve_trace_adds_up),
        cmocka_unit_test(test_args_full_precision),
        cmocka_unit_test(test_run_trace_one_rank),
        cmocka_unit_test(test_run_trace_pp_stages),
        cmocka_unit_test(test_serve_trace_pp_stages),
        cmocka_unit_test(test_serve_trace_details_and_window),
        cmocka_unit_test(test_serve_trace_slim_counts),
        cmocka_unit_test(test_serve_trace_hand_built_golden_and_limit),
        cmocka_unit_test(test_ns_as_s_same_text),
        cmocka_unit_test(test_sampled_counter_and_merge),
        cmocka_unit_test(test_writer_escapes_and_is_atomic),
        cmocka_unit_test(test_writer_long_names_and_full_args),
        cmocka_unit_test(test_shipped_examples_pass),
        cmocka_unit_test(test_checker_catches_violations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
