/* report_fields.c - the report module's field tables (declared in report.h): one row per serve
 * metric and per run result field (key, kind, CSV decimals, how its value is read, the serve
 * or run table's label) and, per output, the list of rows it writes in its order with its rule
 * for a row without a value. The writers in report.c and report_serve.c (the serve and run tables
 * included) and the sweep rows in cli_sweep.c read the fields these return; no key or label of
 * those outputs' metrics is written anywhere else. */
#include "report.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>

/* ------------------------------------------------------------------------------------------ */
/* The serve metrics */

/* What a row reads: the report and its price, computed once. */
typedef struct serve_src {
    const sim_serve_report *r;
    sim_price price;
    bool known; /* the price */
} serve_src;

/* A row's value: sets f->num or f->text, returns whether there is one. */
typedef bool (*serve_get)(const serve_src *s, sim_field *f);

#define GET(name, present, field, expr)                                                            \
    static bool get_##name(const serve_src *s, sim_field *f)                                       \
    {                                                                                              \
        const sim_serve_metrics *m = s->r->m;                                                      \
        (void)m;                                                                                   \
        if (!(present))                                                                            \
            return false;                                                                          \
        f->field = (expr);                                                                         \
        return true;                                                                               \
    }
/* A metric that holds a value (0) even when its feature is off. */
#define GET_ANYWAY(name, present, expr)                                                            \
    static bool get_##name(const serve_src *s, sim_field *f)                                       \
    {                                                                                              \
        f->num = (expr);                                                                           \
        return (present);                                                                          \
    }
#define SPEC_ON sim_spec_active(s->r->cfg->spec)
GET(request_rate, !isnan(s->r->request_rate), num, s->r->request_rate)
GET_ANYWAY(max_concurrency, s->r->cfg->max_concurrency > 0, (double)s->r->cfg->max_concurrency)
GET(duration, true, num, m->duration_s)
GET(completed, true, num, (double)m->completed)
GET(failed, true, num, 0.0)
GET(total_input_tokens, true, num, (double)m->total_input_tokens)
GET(total_output_tokens, true, num, (double)m->total_output_tokens)
GET(request_throughput, true, num, m->request_throughput)
GET(request_goodput, m->has_goodput, num, m->request_goodput)
GET(output_throughput, true, num, m->output_throughput)
GET(output_throughput_per_gpu, true, num, m->output_throughput / (double)s->price.gpus)
GET(total_token_throughput, true, num, m->total_token_throughput)
GET(max_output_tokens_per_s, true, num, m->peak_output_throughput)
GET(max_concurrent_requests, true, num, (double)m->peak_concurrency)
GET(gpus, true, num, (double)s->price.gpus)
GET(usd_per_gpu_hour, s->known, num, s->price.usd_per_gpu_hour)
GET(usd_per_hour, s->known, num, s->price.usd_per_hour)
GET(usd_per_million_output_tokens, s->known, num, s->price.usd_per_million_output_tokens)
GET(usd_per_million_total_tokens, s->known, num, s->price.usd_per_million_total_tokens)
GET(preemptions, true, num, (double)m->preemptions)
GET(mean_batch_size, true, num, m->mean_batch_size)
GET(kv_cache_peak_usage, true, num, m->kv_cache_peak_usage)
GET(kv_cache_blocks, true, num, (double)s->r->res->kv_blocks)
GET(block_size, true, num, (double)s->r->res->block_size)
GET(iterations, true, num, (double)m->iterations)
GET_ANYWAY(prefix_cache_hit_rate, s->r->cfg->prefix_caching, sim_report_prefix_hit_rate(s->r->res))
GET(engine, s->r->engine, text, s->r->engine)
GET(engine_version, s->r->engine_version, text, s->r->engine_version)
GET(engine_fusions, s->r->engine_fusions, text, s->r->engine_fusions)
/* the engine settings in force: the profile's, its device rules' or a flag's */
GET(max_num_seqs, s->r->engine, num, (double)s->r->cfg->sched.max_num_seqs)
GET(max_num_batched_tokens, s->r->engine, num, (double)s->r->cfg->sched.max_num_batched_tokens)
GET(memory_fraction, s->r->engine, num, s->r->cfg->mem_util)
GET(cuda_graph_max_bs, s->r->engine && !s->r->cfg->step.eager, num,
    (double)s->r->cfg->step.graph_max_bs)
GET(engine_rules, s->r->engine_rules && s->r->engine_rules[0], text, s->r->engine_rules)
GET(spec_method, SPEC_ON, text, sim_spec_method_name(s->r->cfg->spec->method))
GET(num_speculative_tokens, SPEC_ON, num, s->r->cfg->spec->k)
GET(spec_acceptance_rate, SPEC_ON, num, s->r->cfg->spec->alpha)
GET_ANYWAY(spec_acceptance_length, SPEC_ON, s->r->m->spec_acceptance_length)
GET(spec_draft_time_fraction, SPEC_ON, num, m->spec_draft_time_fraction)
#undef SPEC_ON
#undef GET_ANYWAY
#undef GET

/* The rows: each scalar metric, then the latency summaries (expanded per metric). */
typedef enum serve_row {
    F_REQUEST_RATE,
    F_MAX_CONCURRENCY,
    F_DURATION,
    F_COMPLETED,
    F_FAILED,
    F_TOTAL_INPUT_TOKENS,
    F_TOTAL_OUTPUT_TOKENS,
    F_REQUEST_THROUGHPUT,
    F_REQUEST_GOODPUT,
    F_OUTPUT_THROUGHPUT,
    F_OUTPUT_THROUGHPUT_PER_GPU,
    F_TOTAL_TOKEN_THROUGHPUT,
    F_MAX_OUTPUT_TOKENS_PER_S,
    F_MAX_CONCURRENT_REQUESTS,
    F_GPUS,
    F_USD_PER_GPU_HOUR,
    F_USD_PER_HOUR,
    F_USD_PER_MILLION_OUTPUT_TOKENS,
    F_USD_PER_MILLION_TOTAL_TOKENS,
    F_PREEMPTIONS,
    F_MEAN_BATCH_SIZE,
    F_KV_CACHE_PEAK_USAGE,
    F_KV_CACHE_BLOCKS,
    F_BLOCK_SIZE,
    F_ITERATIONS,
    F_PREFIX_CACHE_HIT_RATE,
    F_ENGINE,
    F_ENGINE_VERSION,
    F_ENGINE_FUSIONS,
    F_MAX_NUM_SEQS,
    F_MAX_NUM_BATCHED_TOKENS,
    F_MEMORY_FRACTION,
    F_CUDA_GRAPH_MAX_BS,
    F_ENGINE_RULES,
    F_SPEC_METHOD,
    F_NUM_SPECULATIVE_TOKENS,
    F_SPEC_ACCEPTANCE_RATE,
    F_SPEC_ACCEPTANCE_LENGTH,
    F_SPEC_DRAFT_TIME_FRACTION,
    F_SCALARS,
    F_LATENCY = F_SCALARS, /* mean_, median_, std_, pP_ METRIC_ms: its `lat` says which */
} serve_row;

/* Each row: its key, kind and getter, and its label in the table (vLLM's where vLLM prints it;
 * `pct`: a fraction the table shows as a percentage; `unknown`: the table's text for a row
 * without a value). */
static const struct {
    const char *key;
    sim_field_kind kind;
    serve_get get;
    const char *label;
    bool pct;
    const char *unknown;
    sim_field_style style;
    int decimals; /* in the table, when not 2 */
} serve_rows[F_SCALARS] = {
#define ROW(id, name, k, text)                                                                     \
    [id] = {.key = #name, .kind = (k), .get = get_##name, .label = (text)}
#define PCT(id, name, text)                                                                        \
    [id] = {.key = #name, .kind = SIM_FIELD_NUM, .get = get_##name, .label = (text), .pct = true}
    ROW(F_REQUEST_RATE, request_rate, SIM_FIELD_NUM, "Request rate configured (RPS):"),
    ROW(F_MAX_CONCURRENCY, max_concurrency, SIM_FIELD_INT, "Maximum request concurrency:"),
    ROW(F_DURATION, duration, SIM_FIELD_NUM, "Benchmark duration (s):"),
    ROW(F_COMPLETED, completed, SIM_FIELD_INT, "Successful requests:"),
    ROW(F_FAILED, failed, SIM_FIELD_INT, "Failed requests:"),
    ROW(F_TOTAL_INPUT_TOKENS, total_input_tokens, SIM_FIELD_INT, "Total input tokens:"),
    ROW(F_TOTAL_OUTPUT_TOKENS, total_output_tokens, SIM_FIELD_INT, "Total generated tokens:"),
    ROW(F_REQUEST_THROUGHPUT, request_throughput, SIM_FIELD_NUM, "Request throughput (req/s):"),
    ROW(F_REQUEST_GOODPUT, request_goodput, SIM_FIELD_NUM, "Request goodput (req/s):"),
    ROW(F_OUTPUT_THROUGHPUT, output_throughput, SIM_FIELD_NUM, "Output token throughput (tok/s):"),
    ROW(F_OUTPUT_THROUGHPUT_PER_GPU, output_throughput_per_gpu, SIM_FIELD_NUM, NULL),
    ROW(F_TOTAL_TOKEN_THROUGHPUT, total_token_throughput, SIM_FIELD_NUM,
        "Total token throughput (tok/s):"),
    ROW(F_MAX_OUTPUT_TOKENS_PER_S, max_output_tokens_per_s, SIM_FIELD_NUM,
        "Peak output token throughput (tok/s):"),
    ROW(F_MAX_CONCURRENT_REQUESTS, max_concurrent_requests, SIM_FIELD_INT,
        "Peak concurrent requests:"),
    ROW(F_GPUS, gpus, SIM_FIELD_INT, "GPUs:"),
    ROW(F_USD_PER_GPU_HOUR, usd_per_gpu_hour, SIM_FIELD_NUM, NULL),
    [F_USD_PER_HOUR] = {.key = "usd_per_hour",
                        .kind = SIM_FIELD_NUM,
                        .get = get_usd_per_hour,
                        .label = "Cost (US$/hour):",
                        .unknown = "unknown (--usd-per-gpu-hour)"},
    ROW(F_USD_PER_MILLION_OUTPUT_TOKENS, usd_per_million_output_tokens, SIM_FIELD_NUM,
        "Cost per million output tokens (US$):"),
    ROW(F_USD_PER_MILLION_TOTAL_TOKENS, usd_per_million_total_tokens, SIM_FIELD_NUM,
        "Cost per million total tokens (US$):"),
    ROW(F_PREEMPTIONS, preemptions, SIM_FIELD_INT, "Preemptions:"),
    ROW(F_MEAN_BATCH_SIZE, mean_batch_size, SIM_FIELD_NUM, "Mean batch size (requests/iteration):"),
    PCT(F_KV_CACHE_PEAK_USAGE, kv_cache_peak_usage, "KV cache peak usage (%):"),
    ROW(F_KV_CACHE_BLOCKS, kv_cache_blocks, SIM_FIELD_INT, "KV cache blocks:"),
    ROW(F_BLOCK_SIZE, block_size, SIM_FIELD_INT, NULL),
    ROW(F_ITERATIONS, iterations, SIM_FIELD_INT, "Iterations:"),
    PCT(F_PREFIX_CACHE_HIT_RATE, prefix_cache_hit_rate, "Prefix cache hit rate (%):"),
    [F_ENGINE] = {.key = "engine",
                  .kind = SIM_FIELD_TEXT,
                  .get = get_engine,
                  .label = "Engine:",
                  .style = SIM_STYLE_TIGHT},
    ROW(F_ENGINE_VERSION, engine_version, SIM_FIELD_TEXT, NULL),
    ROW(F_ENGINE_FUSIONS, engine_fusions, SIM_FIELD_TEXT, NULL),
    ROW(F_MAX_NUM_SEQS, max_num_seqs, SIM_FIELD_INT, "Max running requests:"),
    ROW(F_MAX_NUM_BATCHED_TOKENS, max_num_batched_tokens, SIM_FIELD_INT, "Max batched tokens:"),
    [F_MEMORY_FRACTION] = {.key = "memory_fraction",
                           .kind = SIM_FIELD_NUM,
                           .get = get_memory_fraction,
                           .label = "Memory fraction:",
                           .style = SIM_STYLE_BARE,
                           .decimals = 3},
    ROW(F_CUDA_GRAPH_MAX_BS, cuda_graph_max_bs, SIM_FIELD_INT, "CUDA graph max batch:"),
    ROW(F_ENGINE_RULES, engine_rules, SIM_FIELD_TEXT, "Chosen by device rules:"),
    ROW(F_SPEC_METHOD, spec_method, SIM_FIELD_TEXT, NULL),
    ROW(F_NUM_SPECULATIVE_TOKENS, num_speculative_tokens, SIM_FIELD_NUM, NULL),
    ROW(F_SPEC_ACCEPTANCE_RATE, spec_acceptance_rate, SIM_FIELD_NUM, NULL),
    ROW(F_SPEC_ACCEPTANCE_LENGTH, spec_acceptance_length, SIM_FIELD_NUM,
        "Acceptance length (tokens/verify):"),
    PCT(F_SPEC_DRAFT_TIME_FRACTION, spec_draft_time_fraction, "Draft time (% of busy time):"),
#undef PCT
#undef ROW
};

/* The latency statistics, in their order within one metric. LAT_SEL: the percentiles vLLM's
 * --metric-percentiles selected (p90, p99 by default), and only the metrics it selected. */
enum { LAT_MEAN = 1, LAT_MEDIAN = 2, LAT_STD = 4, LAT_P90 = 8, LAT_P99 = 16, LAT_SEL = 32 };

/* How an output writes a row without a value. */
typedef enum field_miss {
    MISS_OMIT,  /* left out */
    MISS_NULL,  /* null in JSON, empty in CSV */
    MISS_ZERO,  /* 0 */
    MISS_VALUE, /* the value the metric holds anyway (0 when its feature is off) */
} field_miss;

/* A row's field before its value is read. */
static sim_field field_of(const char *key, sim_field_kind kind, int decimals)
{
    sim_field f = {.kind = kind, .decimals = decimals};
    snprintf(f.key, sizeof f.key, "%s", key);
    return f;
}

/* Applies an output's rule to a row read with or without a value; false: leave it out. */
static bool field_keep(bool present, field_miss miss, sim_field *f)
{
    if (present || miss == MISS_VALUE) /* MISS_VALUE keeps what the row read */
        return true;
    if (miss == MISS_NULL)
        f->missing = true;
    else if (miss == MISS_ZERO)
        f->num = 0.0;
    return miss != MISS_OMIT;
}

typedef struct field_col {
    int row; /* a serve_row or a run_row */
    field_miss miss;
    int lat;             /* F_LATENCY: LAT_* */
    const char *section; /* the table: a heading before the row */
} field_col;

/* A column that leaves out a row without a value (ONE) or writes it as missing (NUL); the
 * run's lists use them too. */
#define NUL(r)                                                                                     \
    {                                                                                              \
        .row = (r), .miss = MISS_NULL                                                              \
    }
#define ONE(r)                                                                                     \
    {                                                                                              \
        .row = (r), .miss = MISS_OMIT                                                              \
    }
#define PRICE_COLS                                                                                 \
    ONE(F_GPUS), NUL(F_USD_PER_GPU_HOUR), NUL(F_USD_PER_HOUR),                                     \
        NUL(F_USD_PER_MILLION_OUTPUT_TOKENS), NUL(F_USD_PER_MILLION_TOTAL_TOKENS)
#define VLLM_HEAD                                                                                  \
    ONE(F_DURATION), ONE(F_COMPLETED), ONE(F_FAILED), ONE(F_TOTAL_INPUT_TOKENS),                   \
        ONE(F_TOTAL_OUTPUT_TOKENS), ONE(F_REQUEST_THROUGHPUT)
#define VLLM_TAIL                                                                                  \
    ONE(F_OUTPUT_THROUGHPUT), ONE(F_TOTAL_TOKEN_THROUGHPUT), ONE(F_MAX_OUTPUT_TOKENS_PER_S),       \
        ONE(F_MAX_CONCURRENT_REQUESTS)
#define VLLM_LATENCY                                                                               \
    {                                                                                              \
        .row = F_LATENCY, .lat = LAT_MEAN | LAT_MEDIAN | LAT_STD | LAT_SEL                         \
    }

static const field_col json_cols[] = {ONE(F_REQUEST_RATE),
                                      {.row = F_MAX_CONCURRENCY, .miss = MISS_VALUE},
                                      VLLM_HEAD,
                                      ONE(F_REQUEST_GOODPUT),
                                      VLLM_TAIL,
                                      PRICE_COLS,
                                      VLLM_LATENCY,
                                      ONE(F_PREEMPTIONS),
                                      ONE(F_MEAN_BATCH_SIZE),
                                      ONE(F_KV_CACHE_PEAK_USAGE),
                                      ONE(F_KV_CACHE_BLOCKS),
                                      ONE(F_BLOCK_SIZE),
                                      ONE(F_ITERATIONS)};
static const field_col json_tail_cols[] = {{.row = F_PREFIX_CACHE_HIT_RATE, .miss = MISS_VALUE},
                                           ONE(F_ENGINE),
                                           ONE(F_ENGINE_VERSION),
                                           ONE(F_ENGINE_FUSIONS),
                                           ONE(F_MAX_NUM_SEQS),
                                           ONE(F_MAX_NUM_BATCHED_TOKENS),
                                           ONE(F_MEMORY_FRACTION),
                                           ONE(F_CUDA_GRAPH_MAX_BS),
                                           ONE(F_ENGINE_RULES),
                                           ONE(F_SPEC_METHOD),
                                           ONE(F_NUM_SPECULATIVE_TOKENS),
                                           ONE(F_SPEC_ACCEPTANCE_RATE),
                                           ONE(F_SPEC_ACCEPTANCE_LENGTH),
                                           ONE(F_SPEC_DRAFT_TIME_FRACTION)};
static const field_col csv_cols[] = {
    ONE(F_COMPLETED),
    ONE(F_DURATION),
    ONE(F_REQUEST_THROUGHPUT),
    ONE(F_OUTPUT_THROUGHPUT),
    ONE(F_TOTAL_TOKEN_THROUGHPUT),
    {.row = F_LATENCY, .lat = LAT_MEAN | LAT_MEDIAN | LAT_STD | LAT_P90 | LAT_P99},
    NUL(F_REQUEST_GOODPUT),
    ONE(F_PREEMPTIONS),
    ONE(F_MEAN_BATCH_SIZE),
    ONE(F_KV_CACHE_PEAK_USAGE),
    ONE(F_GPUS),
    NUL(F_USD_PER_HOUR),
    NUL(F_USD_PER_MILLION_OUTPUT_TOKENS),
    NUL(F_USD_PER_MILLION_TOTAL_TOKENS)};
static const field_col vllm_cols[] = {VLLM_HEAD, NUL(F_REQUEST_GOODPUT), VLLM_TAIL, VLLM_LATENCY};
static const field_col sweep_cols[] = {
    ONE(F_GPUS),
    ONE(F_COMPLETED),
    ONE(F_DURATION),
    ONE(F_REQUEST_THROUGHPUT),
    ONE(F_OUTPUT_THROUGHPUT),
    ONE(F_OUTPUT_THROUGHPUT_PER_GPU),
    ONE(F_TOTAL_TOKEN_THROUGHPUT),
    {.row = F_LATENCY, .lat = LAT_MEAN | LAT_MEDIAN | LAT_P90 | LAT_P99},
    {.row = F_REQUEST_GOODPUT, .miss = MISS_ZERO},
    ONE(F_PREEMPTIONS),
    ONE(F_MEAN_BATCH_SIZE),
    ONE(F_KV_CACHE_PEAK_USAGE),
    {.row = F_SPEC_ACCEPTANCE_LENGTH, .miss = MISS_VALUE},
    NUL(F_USD_PER_HOUR),
    NUL(F_USD_PER_MILLION_OUTPUT_TOKENS)};
/* vLLM's "Serving Benchmark Result" rows, then infersim's own */
static const field_col table_cols[] = {ONE(F_COMPLETED),
                                       ONE(F_FAILED),
                                       ONE(F_MAX_CONCURRENCY),
                                       ONE(F_REQUEST_RATE),
                                       ONE(F_DURATION),
                                       ONE(F_TOTAL_INPUT_TOKENS),
                                       ONE(F_TOTAL_OUTPUT_TOKENS),
                                       ONE(F_REQUEST_THROUGHPUT),
                                       ONE(F_REQUEST_GOODPUT),
                                       ONE(F_OUTPUT_THROUGHPUT),
                                       ONE(F_MAX_OUTPUT_TOKENS_PER_S),
                                       ONE(F_MAX_CONCURRENT_REQUESTS),
                                       ONE(F_TOTAL_TOKEN_THROUGHPUT),
                                       ONE(F_GPUS),
                                       NUL(F_USD_PER_HOUR),
                                       ONE(F_USD_PER_MILLION_OUTPUT_TOKENS),
                                       ONE(F_USD_PER_MILLION_TOTAL_TOKENS),
                                       {.row = F_LATENCY, .lat = LAT_MEAN | LAT_MEDIAN | LAT_SEL},
                                       {.row = F_PREEMPTIONS, .section = "infersim"},
                                       ONE(F_MEAN_BATCH_SIZE),
                                       ONE(F_KV_CACHE_PEAK_USAGE),
                                       ONE(F_KV_CACHE_BLOCKS),
                                       ONE(F_ITERATIONS),
                                       ONE(F_PREFIX_CACHE_HIT_RATE),
                                       ONE(F_ENGINE),
                                       ONE(F_MAX_NUM_SEQS),
                                       ONE(F_MAX_NUM_BATCHED_TOKENS),
                                       ONE(F_MEMORY_FRACTION),
                                       ONE(F_CUDA_GRAPH_MAX_BS),
                                       ONE(F_ENGINE_RULES),
                                       ONE(F_SPEC_ACCEPTANCE_LENGTH),
                                       ONE(F_SPEC_DRAFT_TIME_FRACTION)};
#undef PRICE_COLS
#undef VLLM_HEAD
#undef VLLM_TAIL
#undef VLLM_LATENCY

/* An output's columns, in order. */
typedef struct field_list {
    const field_col *cols;
    size_t n;
} field_list;
#define OUT(id, a) [id] = {(a), sizeof(a) / sizeof((a)[0])}

static const field_list serve_outputs[SIM_FIELDS_OUT_COUNT] = {
    OUT(SIM_FIELDS_JSON, json_cols),   OUT(SIM_FIELDS_JSON_TAIL, json_tail_cols),
    OUT(SIM_FIELDS_CSV, csv_cols),     OUT(SIM_FIELDS_VLLM, vllm_cols),
    OUT(SIM_FIELDS_SWEEP, sweep_cols), OUT(SIM_FIELDS_TABLE, table_cols),
};

/* The table's heading of each metric's latency rows (vLLM's). */
static const char *const metric_titles[SIM_M_COUNT] = {
    [SIM_M_TTFT] = "Time to First Token",
    [SIM_M_TPOT] = "Time per Output Token (excl. 1st token)",
    [SIM_M_ITL] = "Inter-token Latency",
    [SIM_M_E2EL] = "End-to-end Latency",
};

/* One latency field: key "<word>_<metric>_ms"; in the table, label "<Word> <METRIC> (ms):" and
 * the metric's heading before its first row. */
static sim_field latency_field(const char *word, sim_metric k, double v, bool table, bool first)
{
    sim_field f = {.kind = SIM_FIELD_NUM, .decimals = 6, .num = v};
    const char *name = sim_metric_name(k);
    snprintf(f.key, sizeof f.key, "%s_%s_ms", word, name);
    if (table) {
        f.decimals = 2;
        char upper[16];
        size_t i = 0;
        for (; name[i] && i + 1 < sizeof upper; i++)
            upper[i] = (char)toupper((unsigned char)name[i]);
        upper[i] = '\0';
        snprintf(f.label, sizeof f.label, "%c%s %s (ms):", toupper((unsigned char)word[0]),
                 word + 1, upper);
        f.section = first ? metric_titles[k] : NULL;
    }
    return f;
}

/* The latency fields of one column: per metric, its statistics in LAT_* order. */
static size_t latency_fields(const sim_serve_report *r, int lat, bool table, sim_field *out)
{
    static const struct {
        int bit;
        const char *word;
        size_t offset;
    } stats[] = {
        {LAT_MEAN, "mean", offsetof(sim_dist, mean)},
        {LAT_MEDIAN, "median", offsetof(sim_dist, median)},
        {LAT_STD, "std", offsetof(sim_dist, std)},
        {LAT_P90, "p90", offsetof(sim_dist, p90)},
        {LAT_P99, "p99", offsetof(sim_dist, p99)},
    };
    size_t n = 0;
    for (int k = 0; k < SIM_M_COUNT; k++) {
        const sim_dist *d = &r->m->dist[k];
        const size_t first = n;
        if ((lat & LAT_SEL) && r->pct && !r->pct->metric[k])
            continue;
        for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++) {
            if (!(lat & stats[i].bit))
                continue;
            double v = *(const double *)((const char *)d + stats[i].offset);
            out[n] = latency_field(stats[i].word, (sim_metric)k, v, table, n == first);
            n++;
        }
        for (int j = 0; (lat & LAT_SEL) && j < (r->pct ? r->pct->n : 2); j++) {
            char word[32] = "p";
            sim_pct_word(r->pct ? r->pct->p[j] : j ? 99.0 : 90.0, word + 1, sizeof word - 1);
            double v = r->pct ? r->pct_ms->ms[k][j] : j ? d->p99 : d->p90;
            out[n] = latency_field(word, (sim_metric)k, v, table, n == first);
            n++;
        }
    }
    return n;
}

size_t sim_report_serve_fields(const sim_serve_report *r, sim_field_out which, sim_field *out)
{
    serve_src s = {.r = r};
    s.known = sim_report_serve_price(r, &s.price);
    const bool table = which == SIM_FIELDS_TABLE;
    size_t n = 0;
    for (size_t i = 0; i < serve_outputs[which].n; i++) {
        const field_col *c = &serve_outputs[which].cols[i];
        if (c->row == F_LATENCY) {
            n += latency_fields(r, c->lat, table, out + n);
            continue;
        }
        sim_field f = field_of(serve_rows[c->row].key, serve_rows[c->row].kind, 6);
        if (!field_keep(serve_rows[c->row].get(&s, &f), c->miss, &f))
            continue;
        if (table) {
            const char *label = serve_rows[c->row].label;
            snprintf(f.label, sizeof f.label, "%s", label ? label : f.key);
            f.section = c->section;
            f.style = serve_rows[c->row].style;
            f.decimals = serve_rows[c->row].decimals ? serve_rows[c->row].decimals : 2;
            if (serve_rows[c->row].pct)
                f.num = 100.0 * f.num;
            if (f.missing)
                f.text = serve_rows[c->row].unknown;
        }
        out[n++] = f;
    }
    return n;
}

/* The run result's table: as the serve one, one row per field and a list of rows per output. */

typedef struct run_src {
    const sim_run_cfg *cfg;
    const sim_run_result *r;
    sim_price price;
    bool known; /* the price */
} run_src;

#define RGET(name, present, field, expr)                                                           \
    static bool rget_##name(const run_src *s, sim_field *f)                                        \
    {                                                                                              \
        const sim_run_result *r = s->r;                                                            \
        (void)r;                                                                                   \
        if (!(present))                                                                            \
            return false;                                                                          \
        f->field = (expr);                                                                         \
        return true;                                                                               \
    }
RGET(ttft_ms, true, num, r->ttft_ns / 1e6)
RGET(tpot_ms, true, num, r->tpot_ns / 1e6)
RGET(e2e_ms, true, num, r->e2e_ns / 1e6)
RGET(output_throughput, true, num, r->output_throughput)
RGET(output_throughput_per_gpu, true, num, r->output_throughput / (double)s->price.gpus)
RGET(prefill_bound, true, text, sim_bound_name(r->prefill.bound))
RGET(decode_bound, true, text, r->decode_steps > 0 ? sim_bound_name(r->decode.bound) : "")
RGET(prefill_t_lower_ms, true, num, r->prefill.t_lower_ns / 1e6)
RGET(prefill_t_upper_ms, true, num, r->prefill.t_upper_ns / 1e6)
RGET(decode_t_lower_ms, true, num, r->decode.t_lower_ns / 1e6)
RGET(decode_t_upper_ms, true, num, r->decode.t_upper_ns / 1e6)
RGET(weight_bytes_per_gpu, true, num, r->mem.weight_bytes)
RGET(kv_bytes_per_gpu, true, num, r->mem.kv_bytes)
RGET(hbm_bytes_per_gpu, true, num, r->mem.need_bytes)
RGET(fits, true, text, r->mem.fits ? "true" : "false")
RGET(max_batch, true, num, (double)r->mem.max_batch)
RGET(spec_speedup, true, num, r->spec_speedup)
RGET(gpus, true, num, (double)s->price.gpus)
RGET(usd_per_gpu_hour, s->known, num, s->price.usd_per_gpu_hour)
RGET(usd_per_hour, s->known, num, s->price.usd_per_hour)
RGET(usd_per_million_output_tokens, s->known, num, s->price.usd_per_million_output_tokens)
RGET(usd_per_million_total_tokens, s->known, num, s->price.usd_per_million_total_tokens)
#undef RGET

typedef enum run_row {
    R_TTFT_MS,
    R_TPOT_MS,
    R_E2E_MS,
    R_OUTPUT_THROUGHPUT,
    R_OUTPUT_THROUGHPUT_PER_GPU,
    R_PREFILL_BOUND,
    R_DECODE_BOUND,
    R_PREFILL_T_LOWER_MS,
    R_PREFILL_T_UPPER_MS,
    R_DECODE_T_LOWER_MS,
    R_DECODE_T_UPPER_MS,
    R_WEIGHT_BYTES_PER_GPU,
    R_KV_BYTES_PER_GPU,
    R_HBM_BYTES_PER_GPU,
    R_FITS,
    R_MAX_BATCH,
    R_SPEC_SPEEDUP,
    R_GPUS,
    R_USD_PER_GPU_HOUR,
    R_USD_PER_HOUR,
    R_USD_PER_MILLION_OUTPUT_TOKENS,
    R_USD_PER_MILLION_TOTAL_TOKENS,
    R_COUNT
} run_row;

typedef struct run_row_def {
    const char *key;
    sim_field_kind kind;
    int decimals; /* in CSV */
    bool (*get)(const run_src *s, sim_field *f);
    /* run's table: the label (its unit in it; NULL: not in the table), the decimals and how
     * many of the value make one shown unit (GB: 1e9 bytes; 0: as it is) */
    const char *label;
    int table_decimals;
    double per;
} run_row_def;

static const run_row_def run_rows[R_COUNT] = {
#define ROW(id, name, kind, decimals) [id] = {#name, kind, decimals, rget_##name, NULL, 0, 0}
#define ROWL(id, name, kind, decimals, label, tdec, per)                                           \
    [id] = {#name, kind, decimals, rget_##name, label, tdec, per}
    ROWL(R_TTFT_MS, ttft_ms, SIM_FIELD_NUM, 6, "TTFT (ms):", 3, 0),
    ROWL(R_TPOT_MS, tpot_ms, SIM_FIELD_NUM, 6, "TPOT (ms):", 3, 0),
    ROWL(R_E2E_MS, e2e_ms, SIM_FIELD_NUM, 6, "E2E latency (ms):", 3, 0),
    ROWL(R_OUTPUT_THROUGHPUT, output_throughput, SIM_FIELD_NUM, 3, "Output throughput (tok/s):", 1,
         0),
    ROW(R_OUTPUT_THROUGHPUT_PER_GPU, output_throughput_per_gpu, SIM_FIELD_NUM, 3),
    ROW(R_PREFILL_BOUND, prefill_bound, SIM_FIELD_TEXT, 0),
    ROW(R_DECODE_BOUND, decode_bound, SIM_FIELD_TEXT, 0),
    ROW(R_PREFILL_T_LOWER_MS, prefill_t_lower_ms, SIM_FIELD_NUM, 6),
    ROW(R_PREFILL_T_UPPER_MS, prefill_t_upper_ms, SIM_FIELD_NUM, 6),
    ROW(R_DECODE_T_LOWER_MS, decode_t_lower_ms, SIM_FIELD_NUM, 6),
    ROW(R_DECODE_T_UPPER_MS, decode_t_upper_ms, SIM_FIELD_NUM, 6),
    ROW(R_WEIGHT_BYTES_PER_GPU, weight_bytes_per_gpu, SIM_FIELD_NUM, 0),
    ROW(R_KV_BYTES_PER_GPU, kv_bytes_per_gpu, SIM_FIELD_NUM, 0),
    ROWL(R_HBM_BYTES_PER_GPU, hbm_bytes_per_gpu, SIM_FIELD_NUM, 0, "Memory per GPU (GB):", 2, 1e9),
    ROW(R_FITS, fits, SIM_FIELD_TEXT, 0),
    ROWL(R_MAX_BATCH, max_batch, SIM_FIELD_INT, 0, "Largest batch that fits:", 0, 0),
    ROW(R_SPEC_SPEEDUP, spec_speedup, SIM_FIELD_NUM, 6),
    ROW(R_GPUS, gpus, SIM_FIELD_INT, 0),
    ROW(R_USD_PER_GPU_HOUR, usd_per_gpu_hour, SIM_FIELD_NUM, 6),
    ROW(R_USD_PER_HOUR, usd_per_hour, SIM_FIELD_NUM, 6),
    ROW(R_USD_PER_MILLION_OUTPUT_TOKENS, usd_per_million_output_tokens, SIM_FIELD_NUM, 6),
    ROW(R_USD_PER_MILLION_TOTAL_TOKENS, usd_per_million_total_tokens, SIM_FIELD_NUM, 6),
#undef ROWL
#undef ROW
};

static const field_col run_json_cols[] = {ONE(R_TTFT_MS),
                                          ONE(R_TPOT_MS),
                                          ONE(R_E2E_MS),
                                          ONE(R_OUTPUT_THROUGHPUT),
                                          ONE(R_GPUS),
                                          NUL(R_USD_PER_GPU_HOUR),
                                          NUL(R_USD_PER_HOUR),
                                          NUL(R_USD_PER_MILLION_OUTPUT_TOKENS),
                                          NUL(R_USD_PER_MILLION_TOTAL_TOKENS)};
static const field_col run_csv_cols[] = {ONE(R_TTFT_MS),
                                         ONE(R_TPOT_MS),
                                         ONE(R_E2E_MS),
                                         ONE(R_OUTPUT_THROUGHPUT),
                                         ONE(R_PREFILL_BOUND),
                                         ONE(R_DECODE_BOUND),
                                         ONE(R_PREFILL_T_LOWER_MS),
                                         ONE(R_PREFILL_T_UPPER_MS),
                                         ONE(R_DECODE_T_LOWER_MS),
                                         ONE(R_DECODE_T_UPPER_MS),
                                         ONE(R_WEIGHT_BYTES_PER_GPU),
                                         ONE(R_KV_BYTES_PER_GPU),
                                         ONE(R_HBM_BYTES_PER_GPU),
                                         ONE(R_FITS),
                                         ONE(R_MAX_BATCH),
                                         ONE(R_GPUS),
                                         NUL(R_USD_PER_HOUR),
                                         NUL(R_USD_PER_MILLION_OUTPUT_TOKENS),
                                         NUL(R_USD_PER_MILLION_TOTAL_TOKENS)};
static const field_col run_sweep_cols[] = {ONE(R_GPUS),
                                           ONE(R_TTFT_MS),
                                           ONE(R_TPOT_MS),
                                           ONE(R_E2E_MS),
                                           ONE(R_OUTPUT_THROUGHPUT),
                                           ONE(R_OUTPUT_THROUGHPUT_PER_GPU),
                                           ONE(R_PREFILL_BOUND),
                                           ONE(R_DECODE_BOUND),
                                           ONE(R_HBM_BYTES_PER_GPU),
                                           ONE(R_MAX_BATCH),
                                           ONE(R_SPEC_SPEEDUP),
                                           NUL(R_USD_PER_HOUR),
                                           NUL(R_USD_PER_MILLION_OUTPUT_TOKENS)};
/* run's table: the latencies, throughput and memory, then (after the memory's parts) the batch */
static const field_col run_table_cols[] = {ONE(R_TTFT_MS), ONE(R_TPOT_MS), ONE(R_E2E_MS),
                                           ONE(R_OUTPUT_THROUGHPUT), ONE(R_HBM_BYTES_PER_GPU)};
static const field_col run_table_tail_cols[] = {ONE(R_MAX_BATCH)};
#undef NUL
#undef ONE

static const field_list run_outputs[SIM_FIELDS_OUT_COUNT] = {
    OUT(SIM_FIELDS_JSON, run_json_cols),
    OUT(SIM_FIELDS_CSV, run_csv_cols),
    OUT(SIM_FIELDS_SWEEP, run_sweep_cols),
    OUT(SIM_FIELDS_TABLE, run_table_cols),
    OUT(SIM_FIELDS_TABLE_TAIL, run_table_tail_cols),
#undef OUT
};

size_t sim_report_run_fields(const sim_run_cfg *cfg, const sim_run_result *r, sim_field_out which,
                             sim_field *out)
{
    run_src s = {.cfg = cfg, .r = r};
    s.known = sim_report_run_price(cfg, r, &s.price);
    size_t n = 0;
    for (size_t i = 0; i < run_outputs[which].n; i++) {
        const field_col *c = &run_outputs[which].cols[i];
        const run_row_def *row = &run_rows[c->row];
        sim_field f = field_of(row->key, row->kind, row->decimals);
        if (!field_keep(row->get(&s, &f), c->miss, &f))
            continue;
        if (which == SIM_FIELDS_TABLE || which == SIM_FIELDS_TABLE_TAIL) {
            snprintf(f.label, sizeof f.label, "%s", row->label);
            f.decimals = row->table_decimals;
            if (row->per > 0.0)
                f.num /= row->per;
        }
        out[n++] = f;
    }
    return n;
}
