/* report_run_fields.c - the report module's field table of the run result (declared in
 * report.h): one row per field (key, kind, CSV decimals, how its value is read and, when run's
 * table shows it, its label, decimals and shown unit) and, per output (run JSON and CSV, sweep's
 * run rows, run's table), the list of rows it writes in its order with its rule for a row without
 * a value. The writers in report.c and the sweep rows in cli_sweep.c read the fields it returns;
 * no key or label of those outputs' run results is written anywhere else. */
#include "report.h"
#include "report_fields_internal.h"

#include <stdio.h>

/* the lists' columns (report_fields_internal.h) */
#define NUL(r) SIM_REPORT_NUL(r)
#define ONE(r) SIM_REPORT_ONE(r)

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
RGET(workspace_bytes_per_gpu, true, num, r->mem.workspace_bytes)
RGET(reserved_bytes_per_gpu, true, num, r->mem.reserved_bytes)
RGET(hbm_bytes_per_gpu, true, num, r->mem.need_bytes)
RGET(capacity_bytes_per_gpu, true, num, r->mem.capacity_bytes)
RGET(memory_fraction, true, num, s->cfg->mem_util) /* the engine's, after its device rules */
RGET(kv_bytes_per_token, true, num, r->mem.kv_bytes_per_token)
static bool rget_fits(const run_src *s, sim_field *f)
{
    f->num = s->r->mem.fits;
    f->text = s->r->mem.fits ? "true" : "false";
    return true;
}
RGET(max_batch, true, num, (double)r->mem.max_batch)
#define SPEC_ON sim_spec_active(s->cfg->spec)
RGET(spec_method, SPEC_ON, text, sim_spec_method_name(s->cfg->spec->method))
RGET(num_speculative_tokens, SPEC_ON, num, s->cfg->spec->k)
RGET(spec_acceptance_rate, SPEC_ON, num, s->cfg->spec->alpha)
RGET(spec_acceptance_length, SPEC_ON, num, r->spec_tau)
RGET(spec_iterations, SPEC_ON, num, r->spec_iterations)
RGET(spec_draft_ms, SPEC_ON, num, r->spec_draft_ns / 1e6)
RGET(spec_verify_ms, SPEC_ON, num, r->spec_verify_ns / 1e6)
/* holds a value (0 when speculative decoding is off) that sweep's rows write anyway */
static bool rget_spec_speedup(const run_src *s, sim_field *f)
{
    f->num = s->r->spec_speedup;
    return SPEC_ON;
}
static double spec_iteration_ns(const sim_run_result *r)
{
    return r->spec_draft_ns + r->spec_verify_ns;
}
RGET(spec_tokens_per_iteration, SPEC_ON, num, r->spec_tokens_per_iteration)
RGET(spec_draft_share, SPEC_ON && spec_iteration_ns(r) > 0.0, num,
     r->spec_draft_ns / spec_iteration_ns(r))
RGET(spec_verify_share, SPEC_ON && spec_iteration_ns(r) > 0.0, num,
     r->spec_verify_ns / spec_iteration_ns(r))
RGET(spec_depth, SPEC_ON, num, (double)r->spec_depth)
RGET(spec_load_rule, SPEC_ON && s->cfg->spec->adapt.n > 0, text, s->cfg->spec->adapt.rule)
/* absent when speculation pays up to the largest batch that fits */
RGET(spec_break_even_batch, SPEC_ON && r->spec_break_even_batch > 0, num,
     (double)r->spec_break_even_batch)
#undef SPEC_ON
RGET(gpus, true, num, (double)s->price.gpus)
RGET(usd_per_gpu_hour, s->known, num, s->price.usd_per_gpu_hour)
RGET(usd_per_hour, s->known, num, s->price.usd_per_hour)
RGET(usd_per_million_output_tokens, s->known, num, s->price.usd_per_million_output_tokens)
RGET(usd_per_million_total_tokens, s->known, num, s->price.usd_per_million_total_tokens)
/* how far the device's efficiencies rest on measurements (hw.h); "" for the header's empty run */
RGET(hw_efficiency, true, text, s->cfg->step.hw ? sim_hw_trust_name(s->cfg->step.hw) : "")
/* the power estimate (power.h): without the device's power.tdp_w, no value */
#define POWER_ON (s->cfg->step.hw && sim_power_known(s->cfg->step.hw))
RGET(avg_power_w, POWER_ON, num, r->power.avg_power_w)
RGET(joules_per_output_token, POWER_ON, num, r->power.joules_per_output_token)
RGET(output_tokens_per_s_per_mw, POWER_ON, num, r->power.output_tokens_per_s_per_mw)
#undef POWER_ON
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
    R_WORKSPACE_BYTES_PER_GPU,
    R_RESERVED_BYTES_PER_GPU,
    R_HBM_BYTES_PER_GPU,
    R_CAPACITY_BYTES_PER_GPU,
    R_MEMORY_FRACTION,
    R_KV_BYTES_PER_TOKEN,
    R_FITS,
    R_MAX_BATCH,
    R_SPEC_METHOD,
    R_NUM_SPECULATIVE_TOKENS,
    R_SPEC_ACCEPTANCE_RATE,
    R_SPEC_ACCEPTANCE_LENGTH,
    R_SPEC_ITERATIONS,
    R_SPEC_DRAFT_MS,
    R_SPEC_VERIFY_MS,
    R_SPEC_SPEEDUP,
    R_SPEC_TOKENS_PER_ITERATION,
    R_SPEC_DRAFT_SHARE,
    R_SPEC_VERIFY_SHARE,
    R_SPEC_BREAK_EVEN_BATCH,
    R_SPEC_LOAD_RULE,
    R_SPEC_DEPTH,
    R_GPUS,
    R_USD_PER_GPU_HOUR,
    R_USD_PER_HOUR,
    R_USD_PER_MILLION_OUTPUT_TOKENS,
    R_USD_PER_MILLION_TOTAL_TOKENS,
    R_HW_EFFICIENCY,
    R_AVG_POWER_W,
    R_JOULES_PER_OUTPUT_TOKEN,
    R_OUTPUT_TOKENS_PER_S_PER_MW,
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
    const char *unknown_label, *unknown; /* the table's label and text without a value */
    /* run's memory and speculative-decoding lines: the text around "label value" */
    const char *before, *after;
} run_row_def;

static const run_row_def run_rows[R_COUNT] = {
#define ROW(id, name, k, csv_decimals)                                                             \
    [id] = {.key = #name, .kind = (k), .decimals = (csv_decimals), .get = rget_##name}
#define ROWL(id, name, k, csv_decimals, text, tdec, per_unit)                                      \
    [id] = {.key = #name,                                                                          \
            .kind = (k),                                                                           \
            .decimals = (csv_decimals),                                                            \
            .get = rget_##name,                                                                    \
            .label = (text),                                                                       \
            .table_decimals = (tdec),                                                              \
            .per = (per_unit)}
/* a speculative-decoding field: "K = 3" on run's speculative-decoding lines */
#define ROWS(id, name, k, csv_decimals, text, tdec, before_text, after_text)                       \
    [id] = {.key = #name,                                                                          \
            .kind = (k),                                                                           \
            .decimals = (csv_decimals),                                                            \
            .get = rget_##name,                                                                    \
            .label = (text),                                                                       \
            .table_decimals = (tdec),                                                              \
            .before = (before_text),                                                               \
            .after = (after_text)}
/* a part of the memory per GPU, in bytes: "weights 16.06" in GB on run's memory line */
#define ROWM(id, name, text, before_text, after_text)                                              \
    [id] = {.key = #name,                                                                          \
            .kind = SIM_FIELD_NUM,                                                                 \
            .get = rget_##name,                                                                    \
            .label = (text),                                                                       \
            .table_decimals = 2,                                                                   \
            .per = 1e9,                                                                            \
            .before = (before_text),                                                               \
            .after = (after_text)}
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
    ROWM(R_WEIGHT_BYTES_PER_GPU, weight_bytes_per_gpu, "weights", "  ", ""),
    ROWM(R_KV_BYTES_PER_GPU, kv_bytes_per_gpu, "KV cache", ", ", ""),
    ROWM(R_WORKSPACE_BYTES_PER_GPU, workspace_bytes_per_gpu, "activations", ", ", ""),
    ROWM(R_RESERVED_BYTES_PER_GPU, reserved_bytes_per_gpu, "runtime", ", ", ""),
    ROWL(R_HBM_BYTES_PER_GPU, hbm_bytes_per_gpu, SIM_FIELD_NUM, 0, "Memory per GPU (GB):", 2, 1e9),
    ROWM(R_CAPACITY_BYTES_PER_GPU, capacity_bytes_per_gpu, "capacity", "; ", " GB"),
    ROW(R_MEMORY_FRACTION, memory_fraction, SIM_FIELD_NUM, 3),
    ROW(R_KV_BYTES_PER_TOKEN, kv_bytes_per_token, SIM_FIELD_NUM, 0),
    ROW(R_FITS, fits, SIM_FIELD_BOOL, 0),
    ROWL(R_MAX_BATCH, max_batch, SIM_FIELD_INT, 0, "Largest batch that fits:", 0, 0),
    ROWS(R_SPEC_METHOD, spec_method, SIM_FIELD_TEXT, 0, "", 0, "Speculative decoding: ", ""),
    ROWS(R_NUM_SPECULATIVE_TOKENS, num_speculative_tokens, SIM_FIELD_INT, 0, "K =", 0, ", ", ""),
    ROWS(R_SPEC_ACCEPTANCE_RATE, spec_acceptance_rate, SIM_FIELD_NUM, 6, "acceptance rate", 3, ", ",
         ""),
    ROWS(R_SPEC_ACCEPTANCE_LENGTH, spec_acceptance_length, SIM_FIELD_NUM, 6, "", 3, " -> ",
         " tokens per verify step\n"),
    ROWS(R_SPEC_ITERATIONS, spec_iterations, SIM_FIELD_NUM, 6, "", 1, "; ", " iterations"),
    ROWS(R_SPEC_DRAFT_MS, spec_draft_ms, SIM_FIELD_NUM, 6, "draft", 3, "  per iteration: ", " ms"),
    ROWS(R_SPEC_VERIFY_MS, spec_verify_ms, SIM_FIELD_NUM, 6, "verify", 3, " + ", " ms"),
    ROWS(R_SPEC_SPEEDUP, spec_speedup, SIM_FIELD_NUM, 6, "speed-up against plain decoding", 2, "; ",
         "x\n"),
    ROWS(R_SPEC_TOKENS_PER_ITERATION, spec_tokens_per_iteration, SIM_FIELD_NUM, 6,
         "tokens per iteration", 3, "  ", ""),
    ROWS(R_SPEC_DRAFT_SHARE, spec_draft_share, SIM_FIELD_NUM, 6, "draft share", 3, ", ", ""),
    ROWS(R_SPEC_VERIFY_SHARE, spec_verify_share, SIM_FIELD_NUM, 6, "verify share", 3, ", ", ""),
    ROWS(R_SPEC_BREAK_EVEN_BATCH, spec_break_even_batch, SIM_FIELD_INT, 0,
         "stops paying at batch", 0, "; ", ""),
    ROWS(R_SPEC_LOAD_RULE, spec_load_rule, SIM_FIELD_TEXT, 0, "load rule", 0, "; ", ""),
    ROWS(R_SPEC_DEPTH, spec_depth, SIM_FIELD_INT, 0, "drafted depth at this batch", 0, "; ",
         "\n"),
    ROW(R_GPUS, gpus, SIM_FIELD_INT, 0),
    ROW(R_USD_PER_GPU_HOUR, usd_per_gpu_hour, SIM_FIELD_NUM, 6),
    [R_USD_PER_HOUR] = {.key = "usd_per_hour",
                        .kind = SIM_FIELD_NUM,
                        .decimals = 6,
                        .get = rget_usd_per_hour,
                        .label = SIM_REPORT_PRICE_LABEL,
                        .table_decimals = 2,
                        .unknown_label = "Cost:",
                        .unknown = "unknown"},
    ROW(R_USD_PER_MILLION_OUTPUT_TOKENS, usd_per_million_output_tokens, SIM_FIELD_NUM, 6),
    ROW(R_USD_PER_MILLION_TOTAL_TOKENS, usd_per_million_total_tokens, SIM_FIELD_NUM, 6),
    ROW(R_HW_EFFICIENCY, hw_efficiency, SIM_FIELD_TEXT, 0),
    [R_AVG_POWER_W] = {.key = "avg_power_w",
                       .kind = SIM_FIELD_NUM,
                       .decimals = 3,
                       .get = rget_avg_power_w,
                       .label = "Avg power per GPU (W, estimate):",
                       .table_decimals = 1,
                       .unknown_label = "Power (estimate):",
                       .unknown = "unknown"},
    ROWL(R_JOULES_PER_OUTPUT_TOKEN, joules_per_output_token, SIM_FIELD_NUM, 6,
         "Energy per output token (J):", 4, 0),
    ROWL(R_OUTPUT_TOKENS_PER_S_PER_MW, output_tokens_per_s_per_mw, SIM_FIELD_NUM, 1,
         "Output tok/s per MW:", 0, 0),
#undef ROWM
#undef ROWS
#undef ROWL
#undef ROW
};

static const sim_report_col run_json_cols[] = {ONE(R_TTFT_MS),
                                               ONE(R_TPOT_MS),
                                               ONE(R_E2E_MS),
                                               ONE(R_OUTPUT_THROUGHPUT),
                                               ONE(R_GPUS),
                                               NUL(R_USD_PER_GPU_HOUR),
                                               NUL(R_USD_PER_HOUR),
                                               NUL(R_USD_PER_MILLION_OUTPUT_TOKENS),
                                               NUL(R_USD_PER_MILLION_TOTAL_TOKENS),
                                               NUL(R_AVG_POWER_W),
                                               NUL(R_JOULES_PER_OUTPUT_TOKEN),
                                               NUL(R_OUTPUT_TOKENS_PER_S_PER_MW)};
static const sim_report_col run_csv_cols[] = {ONE(R_TTFT_MS),
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
                                              NUL(R_USD_PER_MILLION_TOTAL_TOKENS),
                                              NUL(R_AVG_POWER_W),
                                              NUL(R_JOULES_PER_OUTPUT_TOKEN),
                                              NUL(R_OUTPUT_TOKENS_PER_S_PER_MW)};
static const sim_report_col run_sweep_cols[] = {
    ONE(R_GPUS),
    ONE(R_TTFT_MS),
    ONE(R_TPOT_MS),
    ONE(R_E2E_MS),
    ONE(R_OUTPUT_THROUGHPUT),
    ONE(R_OUTPUT_THROUGHPUT_PER_GPU),
    ONE(R_PREFILL_BOUND),
    ONE(R_DECODE_BOUND),
    ONE(R_HBM_BYTES_PER_GPU),
    ONE(R_MAX_BATCH),
    {.row = R_SPEC_SPEEDUP, .miss = SIM_REPORT_MISS_VALUE},
    NUL(R_USD_PER_HOUR),
    NUL(R_USD_PER_MILLION_OUTPUT_TOKENS),
    NUL(R_AVG_POWER_W),
    NUL(R_JOULES_PER_OUTPUT_TOKEN),
    NUL(R_OUTPUT_TOKENS_PER_S_PER_MW),
    ONE(R_HW_EFFICIENCY)};
/* run JSON's "memory" object */
static const sim_report_col run_json_memory_cols[] = {ONE(R_WEIGHT_BYTES_PER_GPU),
                                                      ONE(R_KV_BYTES_PER_GPU),
                                                      ONE(R_WORKSPACE_BYTES_PER_GPU),
                                                      ONE(R_RESERVED_BYTES_PER_GPU),
                                                      ONE(R_HBM_BYTES_PER_GPU),
                                                      ONE(R_CAPACITY_BYTES_PER_GPU),
                                                      ONE(R_MEMORY_FRACTION),
                                                      ONE(R_KV_BYTES_PER_TOKEN),
                                                      ONE(R_FITS),
                                                      ONE(R_MAX_BATCH)};
/* run JSON's speculative-decoding keys (none without it), after the memory object */
static const sim_report_col run_json_spec_cols[] = {
    ONE(R_SPEC_METHOD),          ONE(R_NUM_SPECULATIVE_TOKENS),
    ONE(R_SPEC_ACCEPTANCE_RATE), ONE(R_SPEC_ACCEPTANCE_LENGTH),
    ONE(R_SPEC_ITERATIONS),      ONE(R_SPEC_DRAFT_MS),
    ONE(R_SPEC_VERIFY_MS),       ONE(R_SPEC_SPEEDUP),
    ONE(R_SPEC_TOKENS_PER_ITERATION), ONE(R_SPEC_DRAFT_SHARE),
    ONE(R_SPEC_VERIFY_SHARE),    ONE(R_SPEC_BREAK_EVEN_BATCH),
    ONE(R_SPEC_LOAD_RULE),       ONE(R_SPEC_DEPTH)};
/* run's table: the latencies, throughput and memory, then (after the memory's parts) the batch */
static const sim_report_col run_table_cols[] = {ONE(R_TTFT_MS), ONE(R_TPOT_MS), ONE(R_E2E_MS),
                                                ONE(R_OUTPUT_THROUGHPUT), ONE(R_HBM_BYTES_PER_GPU)};
/* ... the power estimate's rows (one "unknown" line without the device's power) */
static const sim_report_col run_table_tail_cols[] = {ONE(R_MAX_BATCH), NUL(R_AVG_POWER_W),
                                                     ONE(R_JOULES_PER_OUTPUT_TOKEN),
                                                     ONE(R_OUTPUT_TOKENS_PER_S_PER_MW)};
static const sim_report_col run_table_price_cols[] = {NUL(R_USD_PER_HOUR)};
/* run's speculative-decoding lines (none without it): method, K and acceptance, then per
 * iteration */
static const sim_report_col run_table_spec_cols[] = {
    ONE(R_SPEC_METHOD),          ONE(R_NUM_SPECULATIVE_TOKENS),
    ONE(R_SPEC_ACCEPTANCE_RATE), ONE(R_SPEC_ACCEPTANCE_LENGTH),
    ONE(R_SPEC_DRAFT_MS),        ONE(R_SPEC_VERIFY_MS),
    ONE(R_SPEC_ITERATIONS),      ONE(R_SPEC_SPEEDUP),
    ONE(R_SPEC_TOKENS_PER_ITERATION), ONE(R_SPEC_DRAFT_SHARE),
    ONE(R_SPEC_VERIFY_SHARE),    ONE(R_SPEC_BREAK_EVEN_BATCH),
    ONE(R_SPEC_LOAD_RULE),       ONE(R_SPEC_DEPTH)};
/* run's memory line, under its memory row: the parts of the memory per GPU and the capacity */
static const sim_report_col run_table_mem_cols[] = {
    ONE(R_WEIGHT_BYTES_PER_GPU), ONE(R_KV_BYTES_PER_GPU), ONE(R_WORKSPACE_BYTES_PER_GPU),
    ONE(R_RESERVED_BYTES_PER_GPU), ONE(R_CAPACITY_BYTES_PER_GPU)};
#undef NUL
#undef ONE

static const sim_report_cols run_outputs[SIM_FIELDS_OUT_COUNT] = {
    SIM_REPORT_COLS(SIM_FIELDS_JSON, run_json_cols),
    SIM_REPORT_COLS(SIM_FIELDS_JSON_TAIL, run_json_spec_cols),
    SIM_REPORT_COLS(SIM_FIELDS_JSON_MEMORY, run_json_memory_cols),
    SIM_REPORT_COLS(SIM_FIELDS_CSV, run_csv_cols),
    SIM_REPORT_COLS(SIM_FIELDS_SWEEP, run_sweep_cols),
    SIM_REPORT_COLS(SIM_FIELDS_TABLE, run_table_cols),
    SIM_REPORT_COLS(SIM_FIELDS_TABLE_TAIL, run_table_tail_cols),
    SIM_REPORT_COLS(SIM_FIELDS_TABLE_PRICE, run_table_price_cols),
    SIM_REPORT_COLS(SIM_FIELDS_TABLE_MEM, run_table_mem_cols),
    SIM_REPORT_COLS(SIM_FIELDS_TABLE_SPEC, run_table_spec_cols),
};

size_t sim_report_run_fields(const sim_run_cfg *cfg, const sim_run_result *r, sim_field_out which,
                             sim_field *out)
{
    run_src s = {.cfg = cfg, .r = r};
    s.known = sim_report_run_price(cfg, r, &s.price);
    size_t n = 0;
    for (size_t i = 0; i < run_outputs[which].n; i++) {
        const sim_report_col *c = &run_outputs[which].cols[i];
        const run_row_def *row = &run_rows[c->row];
        sim_field f = sim_report_field_of(row->key, row->kind, row->decimals);
        if (!sim_report_field_keep(row->get(&s, &f), c->miss, &f))
            continue;
        if (which == SIM_FIELDS_TABLE || which == SIM_FIELDS_TABLE_TAIL ||
            which == SIM_FIELDS_TABLE_PRICE || which == SIM_FIELDS_TABLE_MEM ||
            which == SIM_FIELDS_TABLE_SPEC) {
            snprintf(f.label, sizeof f.label, "%s", f.missing ? row->unknown_label : row->label);
            f.decimals = row->table_decimals;
            if (row->per > 0.0)
                f.num /= row->per;
            if (f.missing)
                f.text = row->unknown;
            sim_report_band_mark(cfg->band, &f, row->per > 0.0 ? 1.0 / row->per : 1.0);
            if (which == SIM_FIELDS_TABLE_MEM || which == SIM_FIELDS_TABLE_SPEC) {
                f.before = row->before;
                f.after = row->after;
            }
        }
        out[n++] = f;
    }
    return sim_report_band_expand(cfg->band, which, out, n);
}
