/* report_fields.c - the report module's field table of the serve metrics (declared in report.h):
 * one row per metric (key, kind, how its value is read, the serve table's label) and, per output,
 * the list of rows it writes in its order with its rule for a row without a value (the rules and
 * lists' types: report_fields_internal.h, shared with report_run_fields.c's run result table).
 * The writers in report_serve.c (the serve table included) and the sweep rows in cli_sweep.c read
 * the fields it returns; no key or label of those outputs' metrics is written anywhere else. */
#include "report.h"
#include "report_fields_internal.h"

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
    sim_power_totals power; /* the power estimate (power.h); zeros without the device's power */
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
/* MoE: the experts' kernel family, and the busiest EP rank's expected load over the mean at the
 * run's mean step (its new tokens: every input and output token over the iterations) */
#define MOE_ON (s->r->cfg->step.model && s->r->cfg->step.model->experts > 0)
#define MOE_EP (MOE_ON && s->r->cfg->step.ep > 1)
GET(moe_kernel, MOE_ON, text, sim_moe_kernel_name(sim_step_moe_kernel(&s->r->cfg->step)))
static double mean_step_imbalance(const serve_src *s)
{
    const sim_step_cfg *c = &s->r->cfg->step;
    const sim_serve_metrics *m = s->r->m;
    double t = m->iterations > 0 ? (double)(m->total_input_tokens + m->total_output_tokens) /
                                       (double)m->iterations
                                 : 0.0;
    sim_moe_step_load ld;
    sim_moe_step_load_of(&c->routing, c->model->experts, c->model->experts_per_tok, c->ep, t,
                         c->expert_imbalance, NULL, &ld);
    return t > 0.0 ? ld.imbalance : 1.0;
}
GET(moe_busiest_rank_imbalance, MOE_EP, num, mean_step_imbalance(s))
GET(spec_method, SPEC_ON, text, sim_spec_method_name(s->r->cfg->spec->method))
GET(num_speculative_tokens, SPEC_ON, num, s->r->cfg->spec->k)
GET(spec_acceptance_rate, SPEC_ON, num, s->r->cfg->spec->alpha)
GET_ANYWAY(spec_acceptance_length, SPEC_ON, s->r->m->spec_acceptance_length)
GET(spec_draft_time_fraction, SPEC_ON, num, m->spec_draft_time_fraction)
/* how far the device's efficiencies rest on measurements (hw.h); "" for the header's empty run */
GET(hw_efficiency, true, text, s->r->cfg->step.hw ? sim_hw_trust_name(s->r->cfg->step.hw) : "")
GET(spec_verify_time_fraction, SPEC_ON && s->r->res && s->r->res->busy_ns > 0.0, num,
    s->r->res->verify_ns / s->r->res->busy_ns)
GET(spec_load_rule, SPEC_ON && s->r->cfg->spec->adapt.n > 0, text, s->r->cfg->spec->adapt.rule)
GET(spec_off_iteration_fraction,
    SPEC_ON && s->r->res && s->r->cfg->spec->adapt.n > 0 && m->iterations > 0,
    num, (double)s->r->res->spec_off_iterations / (double)m->iterations)
/* absent when speculation pays up to the engine's largest batch */
GET(spec_break_even_batch, SPEC_ON && s->r->spec_break_even_batch > 0, num,
    (double)s->r->spec_break_even_batch)
#undef SPEC_ON
#define FE_ON m->has_frontend
GET(mean_frontend_ttft_ms, FE_ON, num, m->mean_frontend_ttft_ms)
GET(mean_frontend_e2el_ms, FE_ON, num, m->mean_frontend_e2el_ms)
GET(frontend_ttft_fraction, FE_ON, num, m->frontend_ttft_fraction)
GET(frontend_e2el_fraction, FE_ON, num, m->frontend_e2el_fraction)
GET(api_server_count, FE_ON, num, (double)s->r->cfg->frontend.processes)
GET(stream_interval, FE_ON, num, (double)s->r->cfg->frontend.stream_interval)
#undef FE_ON
/* lower KV tiers (engine.h sim_engine_offload): per tier its loads and writes, and the wait */
#define OFF_ON (s->r->res && s->r->res->offload_on)
#define OFF_T(t, x) ((double)s->r->res->offload_##x[t])
#define OFF_TIER(tier, t)                                                                          \
    GET(kv_offload_##tier##_hit_tokens, OFF_ON, num, OFF_T(t, hit_tokens))                         \
    GET(kv_offload_##tier##_read_bytes, OFF_ON, num, OFF_T(t, read_bytes))                         \
    GET(kv_offload_##tier##_write_bytes, OFF_ON, num, OFF_T(t, write_bytes))
OFF_TIER(cpu, 0)
OFF_TIER(disk, 1)
OFF_TIER(remote, 2)
#undef OFF_TIER
GET(kv_offload_load_ms, OFF_ON, num, s->r->res->offload_load_ns / 1e6)
#undef OFF_T
#undef OFF_ON
#define POWER_ON m->has_power
GET(avg_power_w, POWER_ON, num, s->power.avg_power_w)
GET(joules_per_output_token, POWER_ON, num, s->power.joules_per_output_token)
GET(output_tokens_per_s_per_mw, POWER_ON, num, s->power.output_tokens_per_s_per_mw)
#undef POWER_ON
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
    F_MOE_KERNEL,
    F_MOE_BUSIEST_RANK_IMBALANCE,
    F_SPEC_METHOD,
    F_NUM_SPECULATIVE_TOKENS,
    F_SPEC_ACCEPTANCE_RATE,
    F_SPEC_ACCEPTANCE_LENGTH,
    F_SPEC_DRAFT_TIME_FRACTION,
    F_SPEC_VERIFY_TIME_FRACTION,
    F_SPEC_LOAD_RULE,
    F_SPEC_OFF_ITERATION_FRACTION,
    F_SPEC_BREAK_EVEN_BATCH,
    F_MEAN_FRONTEND_TTFT_MS,
    F_MEAN_FRONTEND_E2EL_MS,
    F_FRONTEND_TTFT_FRACTION,
    F_FRONTEND_E2EL_FRACTION,
    F_API_SERVER_COUNT,
    F_STREAM_INTERVAL,
    F_HW_EFFICIENCY,
#define OFF_IDS(T)                                                                                 \
    F_KV_OFFLOAD_##T##_HIT_TOKENS, F_KV_OFFLOAD_##T##_READ_BYTES, F_KV_OFFLOAD_##T##_WRITE_BYTES
    OFF_IDS(CPU),
    OFF_IDS(DISK),
    OFF_IDS(REMOTE),
#undef OFF_IDS
    F_KV_OFFLOAD_LOAD_MS,
    F_AVG_POWER_W,
    F_JOULES_PER_OUTPUT_TOKEN,
    F_OUTPUT_TOKENS_PER_S_PER_MW,
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
                        .label = SIM_REPORT_PRICE_LABEL,
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
    ROW(F_MOE_KERNEL, moe_kernel, SIM_FIELD_TEXT, "MoE kernel:"),
    ROW(F_MOE_BUSIEST_RANK_IMBALANCE, moe_busiest_rank_imbalance, SIM_FIELD_NUM,
        "Busiest EP rank load (x mean, mean step):"),
    ROW(F_SPEC_METHOD, spec_method, SIM_FIELD_TEXT, NULL),
    ROW(F_NUM_SPECULATIVE_TOKENS, num_speculative_tokens, SIM_FIELD_NUM, NULL),
    ROW(F_SPEC_ACCEPTANCE_RATE, spec_acceptance_rate, SIM_FIELD_NUM, NULL),
    ROW(F_SPEC_ACCEPTANCE_LENGTH, spec_acceptance_length, SIM_FIELD_NUM,
        "Acceptance length (tokens/verify):"),
    PCT(F_SPEC_DRAFT_TIME_FRACTION, spec_draft_time_fraction, "Draft time (% of busy time):"),
    PCT(F_SPEC_VERIFY_TIME_FRACTION, spec_verify_time_fraction,
        "Verify time (% of busy time):"),
    ROW(F_SPEC_LOAD_RULE, spec_load_rule, SIM_FIELD_TEXT, "Speculation load rule:"),
    PCT(F_SPEC_OFF_ITERATION_FRACTION, spec_off_iteration_fraction,
        "Iterations without speculation (%):"),
    ROW(F_SPEC_BREAK_EVEN_BATCH, spec_break_even_batch, SIM_FIELD_INT,
        "Speculation stops paying at batch:"),
    ROW(F_MEAN_FRONTEND_TTFT_MS, mean_frontend_ttft_ms, SIM_FIELD_NUM,
        "Mean front-end part of TTFT (ms):"),
    ROW(F_MEAN_FRONTEND_E2EL_MS, mean_frontend_e2el_ms, SIM_FIELD_NUM,
        "Mean front-end part of E2EL (ms):"),
    PCT(F_FRONTEND_TTFT_FRACTION, frontend_ttft_fraction, "Front end's share of mean TTFT (%):"),
    PCT(F_FRONTEND_E2EL_FRACTION, frontend_e2el_fraction, "Front end's share of mean E2EL (%):"),
    ROW(F_API_SERVER_COUNT, api_server_count, SIM_FIELD_INT, "Front-end processes:"),
    ROW(F_STREAM_INTERVAL, stream_interval, SIM_FIELD_INT, "Stream interval (tokens):"),
    ROW(F_HW_EFFICIENCY, hw_efficiency, SIM_FIELD_TEXT, NULL),
/* a lower tier's three rows: loads (tokens), reads and writes (bytes) */
#define OFF_ROWS(T, tier, where)                                                                   \
    ROW(F_KV_OFFLOAD_##T##_HIT_TOKENS, kv_offload_##tier##_hit_tokens, SIM_FIELD_INT,              \
        "KV loaded from " where " (tokens):"),                                                     \
        ROW(F_KV_OFFLOAD_##T##_READ_BYTES, kv_offload_##tier##_read_bytes, SIM_FIELD_INT,          \
            "KV read from " where " (bytes):"),                                                    \
        ROW(F_KV_OFFLOAD_##T##_WRITE_BYTES, kv_offload_##tier##_write_bytes, SIM_FIELD_INT,        \
            "KV written to " where " (bytes):")
    OFF_ROWS(CPU, cpu, "DRAM"),
    OFF_ROWS(DISK, disk, "disk"),
    OFF_ROWS(REMOTE, remote, "the remote store"),
#undef OFF_ROWS
    ROW(F_KV_OFFLOAD_LOAD_MS, kv_offload_load_ms, SIM_FIELD_NUM,
        "Iterations waiting for KV loads (ms):"),
    [F_AVG_POWER_W] = {.key = "avg_power_w",
                       .kind = SIM_FIELD_NUM,
                       .get = get_avg_power_w,
                       .label = "Avg power per GPU (W, estimate):",
                       .unknown = "unknown (the device file has no power)"},
    [F_JOULES_PER_OUTPUT_TOKEN] = {.key = "joules_per_output_token",
                                   .kind = SIM_FIELD_NUM,
                                   .get = get_joules_per_output_token,
                                   .label = "Energy per output token (J):",
                                   .decimals = 4},
    [F_OUTPUT_TOKENS_PER_S_PER_MW] = {.key = "output_tokens_per_s_per_mw",
                                      .kind = SIM_FIELD_NUM,
                                      .get = get_output_tokens_per_s_per_mw,
                                      .label = "Output tok/s per MW:"},
#undef PCT
#undef ROW
};

/* The latency statistics, in their order within one metric. LAT_SEL: the percentiles vLLM's
 * --metric-percentiles selected (p90, p99 by default), and only the metrics it selected. */
enum { LAT_MEAN = 1, LAT_MEDIAN = 2, LAT_STD = 4, LAT_P90 = 8, LAT_P99 = 16, LAT_SEL = 32 };

/* the lists' columns (report_fields_internal.h) */
#define NUL(r) SIM_REPORT_NUL(r)
#define ONE(r) SIM_REPORT_ONE(r)
#define PRICE_COLS                                                                                 \
    ONE(F_GPUS), NUL(F_USD_PER_GPU_HOUR), NUL(F_USD_PER_HOUR),                                     \
        NUL(F_USD_PER_MILLION_OUTPUT_TOKENS), NUL(F_USD_PER_MILLION_TOTAL_TOKENS)
#define VLLM_HEAD                                                                                  \
    ONE(F_DURATION), ONE(F_COMPLETED), ONE(F_FAILED), ONE(F_TOTAL_INPUT_TOKENS),                   \
        ONE(F_TOTAL_OUTPUT_TOKENS), ONE(F_REQUEST_THROUGHPUT)
#define VLLM_TAIL                                                                                  \
    ONE(F_OUTPUT_THROUGHPUT), ONE(F_TOTAL_TOKEN_THROUGHPUT), ONE(F_MAX_OUTPUT_TOKENS_PER_S),       \
        ONE(F_MAX_CONCURRENT_REQUESTS)
#define OFFLOAD_COLS                                                                               \
    ONE(F_KV_OFFLOAD_CPU_HIT_TOKENS), ONE(F_KV_OFFLOAD_CPU_READ_BYTES),                            \
        ONE(F_KV_OFFLOAD_CPU_WRITE_BYTES), ONE(F_KV_OFFLOAD_DISK_HIT_TOKENS),                      \
        ONE(F_KV_OFFLOAD_DISK_READ_BYTES), ONE(F_KV_OFFLOAD_DISK_WRITE_BYTES),                     \
        ONE(F_KV_OFFLOAD_REMOTE_HIT_TOKENS), ONE(F_KV_OFFLOAD_REMOTE_READ_BYTES),                  \
        ONE(F_KV_OFFLOAD_REMOTE_WRITE_BYTES), ONE(F_KV_OFFLOAD_LOAD_MS)
#define VLLM_LATENCY                                                                               \
    {                                                                                              \
        .row = F_LATENCY, .lat = LAT_MEAN | LAT_MEDIAN | LAT_STD | LAT_SEL                         \
    }

static const sim_report_col json_cols[] = {
    ONE(F_REQUEST_RATE),
    {.row = F_MAX_CONCURRENCY, .miss = SIM_REPORT_MISS_VALUE},
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
static const sim_report_col json_tail_cols[] = {
    {.row = F_PREFIX_CACHE_HIT_RATE, .miss = SIM_REPORT_MISS_VALUE},
    ONE(F_ENGINE),
    ONE(F_ENGINE_VERSION),
    ONE(F_ENGINE_FUSIONS),
    ONE(F_MAX_NUM_SEQS),
    ONE(F_MAX_NUM_BATCHED_TOKENS),
    ONE(F_MEMORY_FRACTION),
    ONE(F_CUDA_GRAPH_MAX_BS),
    ONE(F_ENGINE_RULES),
    ONE(F_MOE_KERNEL),
    ONE(F_MOE_BUSIEST_RANK_IMBALANCE),
    ONE(F_SPEC_METHOD),
    ONE(F_NUM_SPECULATIVE_TOKENS),
    ONE(F_SPEC_ACCEPTANCE_RATE),
    ONE(F_SPEC_ACCEPTANCE_LENGTH),
    ONE(F_SPEC_DRAFT_TIME_FRACTION),
    ONE(F_SPEC_VERIFY_TIME_FRACTION),
    ONE(F_SPEC_LOAD_RULE),
    ONE(F_SPEC_OFF_ITERATION_FRACTION),
    ONE(F_SPEC_BREAK_EVEN_BATCH),
    ONE(F_MEAN_FRONTEND_TTFT_MS),
    ONE(F_MEAN_FRONTEND_E2EL_MS),
    ONE(F_FRONTEND_TTFT_FRACTION),
    ONE(F_FRONTEND_E2EL_FRACTION),
    ONE(F_API_SERVER_COUNT),
    ONE(F_STREAM_INTERVAL),
    NUL(F_AVG_POWER_W),
    NUL(F_JOULES_PER_OUTPUT_TOKEN),
    NUL(F_OUTPUT_TOKENS_PER_S_PER_MW),
    OFFLOAD_COLS};
static const sim_report_col csv_cols[] = {
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
    NUL(F_USD_PER_MILLION_TOTAL_TOKENS),
    ONE(F_MEAN_FRONTEND_TTFT_MS),
    ONE(F_MEAN_FRONTEND_E2EL_MS),
    ONE(F_FRONTEND_TTFT_FRACTION),
    ONE(F_FRONTEND_E2EL_FRACTION),
    ONE(F_API_SERVER_COUNT),
    ONE(F_STREAM_INTERVAL),
    NUL(F_AVG_POWER_W),
    NUL(F_JOULES_PER_OUTPUT_TOKEN),
    NUL(F_OUTPUT_TOKENS_PER_S_PER_MW),
    OFFLOAD_COLS};
static const sim_report_col vllm_cols[] = {VLLM_HEAD, NUL(F_REQUEST_GOODPUT), VLLM_TAIL,
                                           VLLM_LATENCY};
static const sim_report_col sweep_cols[] = {
    ONE(F_GPUS),
    ONE(F_COMPLETED),
    ONE(F_DURATION),
    ONE(F_REQUEST_THROUGHPUT),
    ONE(F_OUTPUT_THROUGHPUT),
    ONE(F_OUTPUT_THROUGHPUT_PER_GPU),
    ONE(F_TOTAL_TOKEN_THROUGHPUT),
    {.row = F_LATENCY, .lat = LAT_MEAN | LAT_MEDIAN | LAT_P90 | LAT_P99},
    {.row = F_REQUEST_GOODPUT, .miss = SIM_REPORT_MISS_ZERO},
    ONE(F_PREEMPTIONS),
    ONE(F_MEAN_BATCH_SIZE),
    ONE(F_KV_CACHE_PEAK_USAGE),
    {.row = F_SPEC_ACCEPTANCE_LENGTH, .miss = SIM_REPORT_MISS_VALUE},
    NUL(F_USD_PER_HOUR),
    NUL(F_USD_PER_MILLION_OUTPUT_TOKENS),
    NUL(F_AVG_POWER_W),
    NUL(F_JOULES_PER_OUTPUT_TOKEN),
    NUL(F_OUTPUT_TOKENS_PER_S_PER_MW),
    ONE(F_HW_EFFICIENCY)};
/* vLLM's "Serving Benchmark Result" rows, then infersim's own */
static const sim_report_col table_cols[] = {
    ONE(F_COMPLETED),
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
    ONE(F_MOE_KERNEL),
    ONE(F_MOE_BUSIEST_RANK_IMBALANCE),
    ONE(F_SPEC_ACCEPTANCE_LENGTH),
    ONE(F_SPEC_DRAFT_TIME_FRACTION),
    ONE(F_SPEC_VERIFY_TIME_FRACTION),
    ONE(F_SPEC_LOAD_RULE),
    ONE(F_SPEC_OFF_ITERATION_FRACTION),
    ONE(F_SPEC_BREAK_EVEN_BATCH),
    ONE(F_MEAN_FRONTEND_TTFT_MS),
    ONE(F_MEAN_FRONTEND_E2EL_MS),
    ONE(F_FRONTEND_TTFT_FRACTION),
    ONE(F_FRONTEND_E2EL_FRACTION),
    ONE(F_API_SERVER_COUNT),
    ONE(F_STREAM_INTERVAL),
    NUL(F_AVG_POWER_W),
    ONE(F_JOULES_PER_OUTPUT_TOKEN),
    ONE(F_OUTPUT_TOKENS_PER_S_PER_MW),
    OFFLOAD_COLS};
#undef PRICE_COLS
#undef VLLM_HEAD
#undef VLLM_TAIL
#undef VLLM_LATENCY
#undef OFFLOAD_COLS
#undef NUL
#undef ONE

static const sim_report_cols serve_outputs[SIM_FIELDS_OUT_COUNT] = {
    SIM_REPORT_COLS(SIM_FIELDS_JSON, json_cols),
    SIM_REPORT_COLS(SIM_FIELDS_JSON_TAIL, json_tail_cols),
    SIM_REPORT_COLS(SIM_FIELDS_CSV, csv_cols),
    SIM_REPORT_COLS(SIM_FIELDS_VLLM, vllm_cols),
    SIM_REPORT_COLS(SIM_FIELDS_SWEEP, sweep_cols),
    SIM_REPORT_COLS(SIM_FIELDS_TABLE, table_cols),
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
    if (r->m->has_power)
        s.power = sim_power_totals_of(r->m->idle_w, r->m->active_j, r->m->duration_s,
                                      (double)s.price.gpus, (double)r->m->total_output_tokens);
    const bool table = which == SIM_FIELDS_TABLE;
    size_t n = 0;
    for (size_t i = 0; i < serve_outputs[which].n; i++) {
        const sim_report_col *c = &serve_outputs[which].cols[i];
        if (c->row == F_LATENCY) {
            size_t k = latency_fields(r, c->lat, table, out + n);
            for (size_t j = n; table && j < n + k; j++)
                sim_report_band_mark(r->band, &out[j], 1.0);
            n += k;
            continue;
        }
        sim_field f = sim_report_field_of(serve_rows[c->row].key, serve_rows[c->row].kind, 6);
        if (!sim_report_field_keep(serve_rows[c->row].get(&s, &f), c->miss, &f))
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
            sim_report_band_mark(r->band, &f, serve_rows[c->row].pct ? 100.0 : 1.0);
        }
        out[n++] = f;
    }
    return sim_report_band_expand(r->band, which, out, n);
}
