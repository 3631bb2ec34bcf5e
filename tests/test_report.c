/* test_report.c - the report's field tables: each output's keys, units and rule for a metric
 * without a value, against values worked out by hand. */
#include "testutil.h"

#include "report.h"

static const sim_field *field(const sim_field *f, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].key, key) == 0)
            return &f[i];
    return NULL;
}

/* 4 GPUs at $2.50 an hour: $10 an hour; 1000 output tokens/s = 3.6e6 tokens an hour, so a
 * million cost 10 / 3.6 = $2.7778; 250 output tokens/s per GPU. No --goodput. */
static void test_serve_outputs(void **state)
{
    (void)state;
    sim_engine_cfg cfg = {.step = {.tp = 1}};
    sim_engine_result res = {.kv_blocks = 77, .block_size = 16};
    sim_serve_metrics m = {.completed = 10, .duration_s = 2.0, .output_throughput = 1000.0};
    m.dist[SIM_M_TTFT] = (sim_dist){.mean = 5.0, .median = 4.0, .std = 1.0, .p90 = 7.0, .p99 = 9.0};
    sim_serve_report r = {.cfg = &cfg, .res = &res, .m = &m, .usd_per_gpu_hour = 2.5, .gpus = 4};
    sim_field f[SIM_FIELDS_MAX];

    size_t n = sim_report_serve_fields(&r, SIM_FIELDS_JSON, f);
    assert_null(field(f, n, "request_goodput")); /* JSON leaves it out */
    assert_near(field(f, n, "usd_per_hour")->num, 10.0, 1e-12);
    assert_near(field(f, n, "usd_per_million_output_tokens")->num, 2.777777778, 1e-9);
    assert_int_equal((int)field(f, n, "kv_cache_blocks")->num, 77);
    assert_near(field(f, n, "p99_ttft_ms")->num, 9.0, 0);
    assert_null(field(f, n, "p50_ttft_ms"));

    n = sim_report_serve_fields(&r, SIM_FIELDS_VLLM, f);
    assert_true(field(f, n, "request_goodput")->missing); /* vLLM writes null */
    assert_null(field(f, n, "gpus"));

    n = sim_report_serve_fields(&r, SIM_FIELDS_CSV, f);
    assert_true(field(f, n, "request_goodput")->missing); /* an empty CSV field */
    assert_int_equal(field(f, n, "completed")->kind, SIM_FIELD_INT);
    assert_int_equal(field(f, n, "duration")->decimals, 6);
    assert_near(field(f, n, "std_ttft_ms")->num, 1.0, 0);

    n = sim_report_serve_fields(&r, SIM_FIELDS_SWEEP, f);
    assert_false(field(f, n, "request_goodput")->missing); /* sweep rows write 0 */
    assert_true(field(f, n, "request_goodput")->num == 0.0);
    assert_near(field(f, n, "output_throughput_per_gpu")->num, 250.0, 1e-12);
    assert_null(field(f, n, "std_ttft_ms"));
    assert_string_equal(f[0].key, "gpus");

    /* no price: null / empty everywhere it is written */
    r.usd_per_gpu_hour = 0.0;
    n = sim_report_serve_fields(&r, SIM_FIELDS_JSON, f);
    assert_true(field(f, n, "usd_per_gpu_hour")->missing);
    assert_int_equal((int)field(f, n, "gpus")->num, 4);
    n = sim_report_serve_fields(&r, SIM_FIELDS_CSV, f);
    assert_true(field(f, n, "usd_per_hour")->missing);
}

/* --percentile-metrics ttft --metric-percentiles 50,99.9: only TTFT, with vLLM's keys */
static void test_selected_percentiles(void **state)
{
    (void)state;
    sim_engine_cfg cfg = {.step = {.tp = 1}};
    sim_engine_result res = {0};
    sim_serve_metrics m = {0};
    sim_pct_sel sel = {.metric = {[SIM_M_TTFT] = true}, .n = 2, .p = {50.0, 99.9}};
    sim_pct_values v = {0};
    v.ms[SIM_M_TTFT][0] = 3.0;
    v.ms[SIM_M_TTFT][1] = 8.5;
    sim_serve_report r = {.cfg = &cfg, .res = &res, .m = &m, .gpus = 1, .pct = &sel, .pct_ms = &v};
    sim_field f[SIM_FIELDS_MAX];
    size_t n = sim_report_serve_fields(&r, SIM_FIELDS_VLLM, f);
    assert_near(field(f, n, "p50_ttft_ms")->num, 3.0, 0);
    assert_near(field(f, n, "p99.9_ttft_ms")->num, 8.5, 0);
    assert_non_null(field(f, n, "std_ttft_ms"));
    assert_null(field(f, n, "mean_tpot_ms"));
    assert_null(field(f, n, "p90_ttft_ms"));
    /* the CSV keeps its fixed columns whatever is selected */
    n = sim_report_serve_fields(&r, SIM_FIELDS_CSV, f);
    assert_non_null(field(f, n, "p90_tpot_ms"));
}

/* A batch that never decodes: its decode bound is empty; 2 GPUs (tp 2) at no price. */
static void test_run_outputs(void **state)
{
    (void)state;
    sim_run_cfg cfg = {.step = {.tp = 2}};
    sim_run_result r = {.ttft_ns = 1.5e6, .output_throughput = 300.0};
    r.mem.fits = true;
    sim_field f[SIM_FIELDS_MAX];
    size_t n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_CSV, f);
    assert_near(field(f, n, "ttft_ms")->num, 1.5, 1e-12);
    assert_int_equal(field(f, n, "output_throughput")->decimals, 3);
    assert_int_equal(field(f, n, "hbm_bytes_per_gpu")->decimals, 0);
    assert_string_equal(field(f, n, "decode_bound")->text, "");
    assert_string_equal(field(f, n, "fits")->text, "true");
    assert_true(field(f, n, "usd_per_hour")->missing);
    n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_SWEEP, f);
    assert_near(field(f, n, "output_throughput_per_gpu")->num, 150.0, 1e-12);
    assert_null(field(f, n, "fits"));
    n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_JSON, f);
    assert_int_equal((int)field(f, n, "gpus")->num, 2);
    assert_true(field(f, n, "usd_per_gpu_hour")->missing);
    assert_int_equal(sim_report_run_fields(&cfg, &r, SIM_FIELDS_VLLM, f), 0);
}

/* The serve table's fields: vLLM's labels, the metric headings as sections, fractions shown as
 * percentages, the price's text when unknown; and the rows the JSON writes that the table leaves
 * out (a max concurrency of 0, the prefix-cache hit rate without prefix caching). */
static void test_serve_table_fields(void **state)
{
    (void)state;
    sim_engine_cfg cfg = {.step = {.tp = 1}};
    sim_engine_result res = {0};
    sim_serve_metrics m = {.completed = 10, .kv_cache_peak_usage = 0.25};
    m.dist[SIM_M_TTFT] = (sim_dist){.mean = 5.0, .median = 4.0, .std = 1.0, .p90 = 7.0, .p99 = 9.0};
    sim_serve_report r = {.cfg = &cfg, .res = &res, .m = &m, .gpus = 1, .request_rate = NAN};
    sim_field f[SIM_FIELDS_MAX];
    size_t n = sim_report_serve_fields(&r, SIM_FIELDS_TABLE, f);
    assert_string_equal(f[0].key, "completed");
    assert_string_equal(f[0].label, "Successful requests:");
    assert_null(f[0].section);
    assert_null(field(f, n, "max_concurrency"));       /* no limit: no row */
    assert_null(field(f, n, "request_rate"));          /* a trace: no configured rate */
    assert_null(field(f, n, "prefix_cache_hit_rate")); /* prefix caching off */
    assert_null(field(f, n, "std_ttft_ms"));           /* vLLM's table has no std */
    /* 0.25 of the KV cache = 25 % */
    assert_near(field(f, n, "kv_cache_peak_usage")->num, 25.0, 1e-12);
    assert_string_equal(field(f, n, "kv_cache_peak_usage")->label, "KV cache peak usage (%):");
    const sim_field *mean = field(f, n, "mean_ttft_ms"), *p99 = field(f, n, "p99_ttft_ms");
    assert_string_equal(mean->label, "Mean TTFT (ms):");
    assert_string_equal(mean->section, "Time to First Token");
    assert_null(field(f, n, "median_ttft_ms")->section);
    assert_string_equal(p99->label, "P99 TTFT (ms):");
    assert_near(p99->num, 9.0, 0);
    assert_string_equal(field(f, n, "preemptions")->section, "infersim");
    /* no price: one row saying so, the per-token costs left out */
    const sim_field *usd = field(f, n, "usd_per_hour");
    assert_true(usd->missing);
    assert_string_equal(usd->text, "unknown (--usd-per-gpu-hour)");
    assert_null(field(f, n, "usd_per_million_output_tokens"));
    /* the JSON writes max_concurrency 0 and the hit rate anyway; no request_rate for a trace */
    n = sim_report_serve_fields(&r, SIM_FIELDS_JSON, f);
    assert_true(field(f, n, "max_concurrency")->num == 0.0);
    assert_true(field(f, n, "request_rate") == NULL);
    n = sim_report_serve_fields(&r, SIM_FIELDS_JSON_TAIL, f);
    assert_non_null(field(f, n, "prefix_cache_hit_rate"));
    /* all requests at t = 0: the JSON's rate is infinite (written "inf"), a limit of 8 shows */
    r.request_rate = INFINITY;
    cfg.max_concurrency = 8;
    n = sim_report_serve_fields(&r, SIM_FIELDS_JSON, f);
    assert_true(isinf(field(f, n, "request_rate")->num));
    n = sim_report_serve_fields(&r, SIM_FIELDS_TABLE, f);
    assert_int_equal((int)field(f, n, "max_concurrency")->num, 8);
    assert_string_equal(field(f, n, "max_concurrency")->label, "Maximum request concurrency:");
    /* an engine profile: its name right after the label, its memory fraction with 3 places */
    r.engine = "vllm";
    cfg.mem_util = 0.9;
    n = sim_report_serve_fields(&r, SIM_FIELDS_TABLE, f);
    assert_int_equal(field(f, n, "engine")->style, SIM_STYLE_TIGHT);
    const sim_field *frac = field(f, n, "memory_fraction");
    assert_int_equal(frac->style, SIM_STYLE_BARE);
    assert_int_equal(frac->decimals, 3);
    assert_int_equal(field(f, n, "duration")->decimals, 2);
    assert_string_equal(field(f, n, "max_num_seqs")->label, "Max running requests:");
}

/* One step and one op in two outputs: run JSON (step in ms, op in us) and the trace (us). A
 * 2.5 ms step of 512 tokens; a GEMM of 2 GFLOP over 1 GB of weights (intensity 2 FLOP/B) that
 * takes 1.5 us, 0.2 of its 0.5 us of network hidden. */
static void test_step_and_op_fields(void **state)
{
    (void)state;
    sim_step_result *s = calloc(1, sizeof *s);
    s->t_ns = 2.5e6;
    s->t_host_ns = 1e5;
    s->graph.tokens = 512;
    const int i = SIM_OP_QKV_PROJ;
    s->graph.ops[i] = (sim_op){.present = true, .flops = 2e9, .weight_bytes = 1e9};
    s->graph.repeats[i] = 32;
    s->cost[i] = (sim_op_cost){.t_ns = 1500.0, .t_net_ns = 500.0};
    s->hidden_ns[i] = 200.0;
    sim_field f[SIM_FIELDS_STEP_MAX];
    size_t n = sim_report_step_fields(s, SIM_FIELDS_JSON, f);
    assert_string_equal(f[0].key, "time_ms");
    assert_near(f[0].num, 2.5, 1e-15);
    assert_near(field(f, n, "t_host_ms")->num, 0.1, 1e-15);
    assert_int_equal(field(f, n, "tokens")->kind, SIM_FIELD_INT);
    n = sim_report_step_fields(s, SIM_FIELDS_TRACE, f);
    assert_string_equal(f[0].key, "tokens");
    assert_near(field(f, n, "time_us")->num, 2500.0, 1e-12);
    assert_null(field(f, n, "t_host_us")); /* not among the trace's step args */
    n = sim_report_op_fields(s, i, SIM_FIELDS_JSON, f);
    assert_near(field(f, n, "repeats")->num, 32.0, 0);
    assert_near(field(f, n, "intensity")->num, 2.0, 1e-15);
    assert_near(field(f, n, "time_us")->num, 1.5, 1e-15);
    assert_near(field(f, n, "net_exposed_us")->num, 0.3, 1e-15);
    assert_null(field(f, n, "experts_touched")); /* not a grouped GEMM */
    assert_null(field(f, n, "collective_algo")); /* not a collective */
    n = sim_report_op_fields(s, i, SIM_FIELDS_TRACE, f);
    assert_null(field(f, n, "repeats"));
    assert_near(field(f, n, "net_hidden_us")->num, 0.2, 1e-15);
    assert_int_equal(sim_report_op_fields(s, i, SIM_FIELDS_CSV, f), 0);
    free(s);
}

/* run's text table from the same rows (SIM_FIELDS_TABLE) and the trace's network slice
 * (SIM_FIELDS_TRACE_NET). The step: 2.5 ms (bounds 2 .. 3 ms), math 1 ms, memory 2 ms, network
 * 0.5 ms of which 0.2 hidden, launch 0.01 ms: its ops' time without overlap is max(math, memory)
 * + network + launch = 2 + 0.5 + 0.01 = 2.51 ms. The op: 32 repeats of 1.5 us are 48 us, a
 * share of 100 x 0.048 / 2.51 = 1.912350598 %; 2 GFLOP, 1000 MB (1 GB of weights), 2 FLOP/B;
 * math 1 us, network 0.5 us with 0.2 hidden, so 0.3 exposed. */
static void test_step_and_op_table_fields(void **state)
{
    (void)state;
    sim_step_result *s = calloc(1, sizeof *s);
    *s = (sim_step_result){.t_ns = 2.5e6,
                           .t_lower_ns = 2e6,
                           .t_upper_ns = 3e6,
                           .t_math_ns = 1e6,
                           .t_mem_ns = 2e6,
                           .t_net_ns = 5e5,
                           .net_exposed_ns = 3e5,
                           .net_hidden_ns = 2e5,
                           .t_launch_ns = 1e4,
                           .busy_ns = 2e6};
    const int i = SIM_OP_QKV_PROJ;
    s->graph.ops[i] = (sim_op){.present = true, .flops = 2e9, .weight_bytes = 1e9};
    s->graph.repeats[i] = 32;
    s->cost[i] = (sim_op_cost){.t_ns = 1500.0, .t_math_ns = 1000.0, .t_net_ns = 500.0};
    s->hidden_ns[i] = 200.0;
    sim_field f[SIM_FIELDS_STEP_MAX];

    size_t n = sim_report_op_fields(s, i, SIM_FIELDS_TABLE, f);
    assert_int_equal(n, 10); /* x, GFLOP, MB, FLOP/B, bound, math, mem, net, time, share */
    assert_string_equal(f[0].label, "x");
    assert_int_equal(f[0].width, 5);
    assert_int_equal(f[0].decimals, 0);
    assert_near(f[0].num, 32.0, 0);
    assert_string_equal(field(f, n, "flops")->label, "GFLOP");
    assert_near(field(f, n, "flops")->num, 2.0, 1e-15);
    assert_string_equal(field(f, n, "bytes")->label, "MB");
    assert_near(field(f, n, "bytes")->num, 1000.0, 1e-12);
    assert_near(field(f, n, "intensity")->num, 2.0, 1e-15);
    assert_string_equal(field(f, n, "t_math_us")->label, "math_us");
    assert_near(field(f, n, "t_math_us")->num, 1.0, 1e-15);
    assert_string_equal(field(f, n, "time_us")->label, "time_us");
    assert_near(field(f, n, "time_us")->num, 1.5, 1e-15);
    const sim_field *share = field(f, n, "share");
    assert_near(share->num, 1.912350598, 1e-9);
    assert_string_equal(share->after, "%");
    assert_int_equal(share->decimals, 1);
    assert_int_equal(field(f, n, "bound")->kind, SIM_FIELD_TEXT);

    n = sim_report_step_fields(s, SIM_FIELDS_TABLE, f);
    assert_int_equal(n, 11);
    assert_string_equal(f[0].label, "step:");
    assert_near(f[0].num, 2.5, 1e-15);
    assert_string_equal(f[0].after, " ms");
    assert_int_equal(f[0].decimals, 3);
    assert_string_equal(field(f, n, "t_lower")->label, "bounds");
    assert_near(field(f, n, "t_upper")->num, 3.0, 1e-15);
    assert_string_equal(field(f, n, "t_upper")->label, ""); /* "2.000 .. 3.000 ms" */
    assert_string_equal(field(f, n, "t_mem")->label, "memory");
    assert_near(field(f, n, "t_mem")->num, 2.0, 1e-15);
    assert_near(field(f, n, "net_hidden")->num, 0.2, 1e-15);
    assert_near(field(f, n, "t_launch")->num, 0.01, 1e-15);
    assert_null(field(f, n, "tokens")); /* not on the step's line */

    n = sim_report_op_fields(s, i, SIM_FIELDS_TRACE_NET, f);
    assert_int_equal(n, 2);
    assert_string_equal(f[0].key, "hidden_us");
    assert_near(f[0].num, 0.2, 1e-15);
    assert_string_equal(f[1].key, "exposed_us");
    assert_near(f[1].num, 0.3, 1e-15);
    assert_int_equal(sim_report_step_fields(s, SIM_FIELDS_TRACE_NET, f), 0);

    /* a pipeline stage's slice: its micro-batch's 96 tokens of 3 sequences */
    s->graph.tokens = 96;
    s->graph.seqs = 3;
    n = sim_report_step_fields(s, SIM_FIELDS_TRACE_STAGE, f);
    assert_int_equal(n, 2);
    assert_string_equal(f[0].key, "tokens");
    assert_int_equal(f[0].kind, SIM_FIELD_INT);
    assert_near(f[0].num, 96.0, 0);
    assert_string_equal(f[1].key, "sequences");
    assert_near(f[1].num, 3.0, 0);

    /* roofline's table: the intensity column (2 FLOP/B) and the bound */
    n = sim_report_op_fields(s, i, SIM_FIELDS_TABLE_ROOF, f);
    assert_int_equal(n, 2);
    assert_string_equal(f[0].label, "FLOP/B");
    assert_near(f[0].num, 2.0, 1e-15);
    assert_int_equal(f[0].width, 9);
    assert_string_equal(f[1].label, "bound");

    /* the "collectives:" line: none for a GEMM; an all-reduce over 2 GPUs as ring, LL128 */
    assert_int_equal(sim_report_op_fields(s, i, SIM_FIELDS_TABLE_COLL, f), 0);
    const int ar = SIM_OP_ATTN_ALLREDUCE;
    s->graph.ops[ar] = (sim_op){.present = true, .net_bytes = 1e6, .net_ranks = 2};
    s->cost[ar] = (sim_op_cost){.coll_algo = SIM_COLL_RING, .coll_proto = SIM_COLL_LL128};
    n = sim_report_op_fields(s, ar, SIM_FIELDS_TABLE_COLL, f);
    assert_int_equal(n, 2);
    assert_string_equal(f[0].text, "ring");
    assert_string_equal(f[1].text, "ll128");
    assert_string_equal(f[1].before, " ");
    s->cost[ar].coll_proto = SIM_COLL_PROTO_NONE; /* a custom kernel: the table leaves "" out */
    n = sim_report_op_fields(s, ar, SIM_FIELDS_TABLE_COLL, f);
    assert_string_equal(f[1].text, "");
    free(s);
}

/* run's table rows: 24.5 ms to the first token (3 places), 17.4e9 bytes per GPU shown as
 * 17.4 GB (2 places), then the largest batch, 218, as a count; every row has its label. */
static void test_run_table_fields(void **state)
{
    (void)state;
    sim_run_cfg cfg = {.step = {.tp = 1}};
    sim_run_result r = {.ttft_ns = 24.5e6, .output_throughput = 172.8};
    r.mem.need_bytes = 17.4e9;
    r.mem.max_batch = 218;
    sim_field f[SIM_FIELDS_MAX];
    size_t n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_TABLE, f);
    assert_int_equal(n, 5); /* TTFT, TPOT, E2E, output throughput, memory */
    for (size_t k = 0; k < n; k++)
        assert_true(f[k].label[0] != '\0');
    assert_string_equal(f[0].label, "TTFT (ms):");
    assert_near(f[0].num, 24.5, 1e-12);
    assert_int_equal(f[0].decimals, 3);
    assert_int_equal(field(f, n, "output_throughput")->decimals, 1);
    const sim_field *mem = field(f, n, "hbm_bytes_per_gpu");
    assert_string_equal(mem->label, "Memory per GPU (GB):");
    assert_near(mem->num, 17.4, 1e-12);
    assert_int_equal(mem->decimals, 2);
    n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_TABLE_TAIL, f);
    assert_int_equal(n, 1);
    assert_string_equal(f[0].label, "Largest batch that fits:");
    assert_int_equal(f[0].kind, SIM_FIELD_INT);
    assert_near(f[0].num, 218.0, 0);
    /* the CSV keeps the bytes */
    n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_CSV, f);
    assert_near(field(f, n, "hbm_bytes_per_gpu")->num, 17.4e9, 0);
}

/* run JSON's "memory" object and speculative-decoding keys come from the run table: the memory
 * keys in their order (fits a bool), the speculative keys only with speculative decoding; an
 * eagle draft of 1.2 ms per iteration is spec_draft_ms 1.2, and sweep's spec_speedup is written
 * anyway (0 without it). */
static void test_run_json_memory_and_spec(void **state)
{
    (void)state;
    sim_run_cfg cfg = {.step = {.tp = 1}, .mem_util = 0.9};
    sim_run_result r = {.spec_draft_ns = 1.2e6, .spec_speedup = 1.8};
    r.mem.weight_bytes = 16e9;
    r.mem.capacity_bytes = 72e9;
    r.mem.fits = true;
    r.mem.max_batch = 12;
    sim_field f[SIM_FIELDS_MAX];
    size_t n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_JSON_MEMORY, f);
    static const char *const keys[] = {"weight_bytes_per_gpu",
                                       "kv_bytes_per_gpu",
                                       "workspace_bytes_per_gpu",
                                       "reserved_bytes_per_gpu",
                                       "hbm_bytes_per_gpu",
                                       "capacity_bytes_per_gpu",
                                       "memory_fraction",
                                       "kv_bytes_per_token",
                                       "fits",
                                       "max_batch"};
    assert_int_equal(n, sizeof keys / sizeof keys[0]);
    for (size_t k = 0; k < n; k++)
        assert_string_equal(f[k].key, keys[k]);
    assert_near(f[0].num, 16e9, 0);
    assert_near(field(f, n, "capacity_bytes_per_gpu")->num, 72e9, 0);
    assert_near(field(f, n, "memory_fraction")->num, 0.9, 0);
    assert_int_equal(field(f, n, "fits")->kind, SIM_FIELD_BOOL);
    assert_near(field(f, n, "fits")->num, 1.0, 0);
    assert_int_equal(field(f, n, "max_batch")->kind, SIM_FIELD_INT);
    /* without speculative decoding: no spec keys in the JSON, spec_speedup still in sweep's */
    assert_int_equal(sim_report_run_fields(&cfg, &r, SIM_FIELDS_JSON_TAIL, f), 0);
    n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_SWEEP, f);
    assert_near(field(f, n, "spec_speedup")->num, 1.8, 0);
    sim_spec spec = {.method = SIM_SPEC_EAGLE, .k = 3, .alpha = 0.7};
    cfg.spec = &spec;
    n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_JSON_TAIL, f);
    /* the eight keys, then tokens per iteration, the draft's and the verify's shares and the
     * drafted depth (no load rule, no break-even batch: both absent) */
    assert_int_equal(n, 12);
    assert_string_equal(f[0].key, "spec_method");
    assert_string_equal(f[0].text, "eagle");
    assert_near(field(f, n, "num_speculative_tokens")->num, 3.0, 0);
    assert_near(field(f, n, "spec_acceptance_rate")->num, 0.7, 0);
    assert_near(field(f, n, "spec_draft_ms")->num, 1.2, 1e-12);
    assert_string_equal(f[7].key, "spec_speedup");
    assert_near(f[7].num, 1.8, 0);
    /* all of the 1.2 ms iteration is the draft's (no verify time set) */
    assert_near(field(f, n, "spec_draft_share")->num, 1.0, 0);
    assert_null(field(f, n, "spec_break_even_batch"));
    assert_null(field(f, n, "spec_load_rule"));
    r.spec_break_even_batch = 96;
    n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_JSON_TAIL, f);
    assert_near(field(f, n, "spec_break_even_batch")->num, 96.0, 0);
    assert_string_equal(f[n - 1].key, "spec_depth");
    r.spec_break_even_batch = 0;
    /* the top level keeps its own keys: no memory key is written twice */
    n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_JSON, f);
    assert_null(field(f, n, "max_batch"));
    assert_null(field(f, n, "weight_bytes_per_gpu"));
}

/* run's price row: 2 GPUs at $2.50 an hour is $5.00 an hour, labelled as serve's price row; at
 * no price, "Cost:" and "unknown". */
static void test_run_table_price(void **state)
{
    (void)state;
    sim_run_cfg cfg = {.step = {.tp = 2}, .usd_per_gpu_hour = 2.5};
    sim_run_result r = {.output_throughput = 100.0, .e2e_ns = 1e9};
    sim_field f[SIM_FIELDS_MAX];
    size_t n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_TABLE_PRICE, f);
    assert_int_equal(n, 1);
    assert_string_equal(f[0].label, "Cost (US$/hour):");
    assert_near(f[0].num, 5.0, 1e-12);
    assert_int_equal(f[0].decimals, 2);
    cfg.usd_per_gpu_hour = 0.0;
    n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_TABLE_PRICE, f);
    assert_int_equal(n, 1);
    assert_true(f[0].missing);
    assert_string_equal(f[0].label, "Cost:");
    assert_string_equal(f[0].text, "unknown");
}

/* run's memory line: 16.06e9 bytes of weights is "weights 16.06" (GB, 2 places) after two
 * spaces, and the line ends with the capacity, 76.9e9 bytes, as "; capacity 76.90 GB". */
static void test_run_table_memory_line(void **state)
{
    (void)state;
    sim_run_cfg cfg = {.step = {.tp = 1}};
    sim_run_result r = {0};
    r.mem.weight_bytes = 16.06e9;
    r.mem.capacity_bytes = 76.9e9;
    sim_field f[SIM_FIELDS_MAX];
    size_t n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_TABLE_MEM, f);
    assert_int_equal(n, 5);
    assert_string_equal(f[0].before, "  ");
    assert_string_equal(f[0].label, "weights");
    assert_near(f[0].num, 16.06, 1e-12);
    assert_int_equal(f[0].decimals, 2);
    assert_string_equal(f[1].label, "KV cache");
    assert_string_equal(f[4].key, "capacity_bytes_per_gpu");
    assert_string_equal(f[4].before, "; ");
    assert_string_equal(f[4].after, " GB");
    assert_near(f[4].num, 76.9, 1e-12);
    /* JSON keeps the bytes */
    n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_JSON_MEMORY, f);
    assert_near(f[0].num, 16.06e9, 0);
}

/* run's speculative-decoding lines: none without it; with eagle, K = 3, "eagle" first and the
 * speed-up of 1.8 last, shown as "1.80" before "x" and the line's end. */
static void test_run_table_spec_lines(void **state)
{
    (void)state;
    sim_run_cfg cfg = {.step = {.tp = 1}};
    sim_run_result r = {.spec_speedup = 1.8, .spec_draft_ns = 1.2e6};
    sim_field f[SIM_FIELDS_MAX];
    assert_int_equal(sim_report_run_fields(&cfg, &r, SIM_FIELDS_TABLE_SPEC, f), 0);
    sim_spec spec = {.method = SIM_SPEC_EAGLE, .k = 3, .alpha = 0.7};
    cfg.spec = &spec;
    size_t n = sim_report_run_fields(&cfg, &r, SIM_FIELDS_TABLE_SPEC, f);
    assert_int_equal(n, 12); /* and the third line: tokens per iteration ... drafted depth */
    assert_string_equal(f[0].before, "Speculative decoding: ");
    assert_string_equal(f[0].text, "eagle");
    assert_string_equal(f[1].label, "K =");
    assert_near(f[1].num, 3.0, 0);
    assert_int_equal(f[1].decimals, 0);
    const sim_field *draft = field(f, n, "spec_draft_ms");
    assert_near(draft->num, 1.2, 1e-12);
    assert_int_equal(draft->decimals, 3);
    assert_string_equal(f[7].key, "spec_speedup");
    assert_int_equal(f[7].decimals, 2);
    assert_string_equal(f[7].after, "x\n");
    assert_string_equal(f[n - 1].key, "spec_depth");
    assert_string_equal(f[n - 1].after, "\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serve_outputs),
        cmocka_unit_test(test_selected_percentiles),
        cmocka_unit_test(test_run_outputs),
        cmocka_unit_test(test_serve_table_fields),
        cmocka_unit_test(test_step_and_op_fields),
        cmocka_unit_test(test_step_and_op_table_fields),
        cmocka_unit_test(test_run_table_fields),
        cmocka_unit_test(test_run_json_memory_and_spec),
        cmocka_unit_test(test_run_table_price),
        cmocka_unit_test(test_run_table_memory_line),
        cmocka_unit_test(test_run_table_spec_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
