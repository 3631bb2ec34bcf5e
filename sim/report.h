/* report.h - human tables, JSON and CSV for every result. Knows nothing of how results were
 * computed; writes to the stream it is given and never prints NaN or inf (every ratio guards its
 * denominator).
 *
 * The keys are a contract (added, never renamed): README.md's "Output contract" lists them, and
 * docs/ARCHITECTURE.md's "Outputs and their contract" says how the field tables below
 * (report_fields.c, report_run_fields.c, report_step.c) keep each one written once. run has
 * ttft_ms, tpot_ms, e2e_ms, output_throughput, prefill/decode {time_ms, t_lower_ms, t_upper_ms,
 * flops, bytes, net_bytes, bound, ...}, memory {weight_bytes_per_gpu, kv_bytes_per_gpu,
 * hbm_bytes_per_gpu, fits, ...} and ops [{name, phase, flops, bytes, net_bytes, intensity, bound,
 * time_us, ...}]; roofline has hw, dtype, peak_flops, hbm_bytes_per_s, critical_intensity and,
 * with a model, ops; serve has vLLM's --save-result keys and infersim's own.
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "cluster.h"
#include "metrics.h"
#include "price.h"
#include "run.h"
#include "unc.h"

typedef enum sim_format { SIM_FMT_TABLE, SIM_FMT_JSON, SIM_FMT_CSV, SIM_FMT_COUNT } sim_format;

/* Parses "table", "json", "csv". */
bool sim_format_parse(const char *s, sim_format *out);

/* Writes a static-batch result. Returns SIM_EINTERNAL on a write or allocation failure. */
sim_status sim_report_run(FILE *f, sim_format fmt, const sim_run_cfg *cfg, const sim_run_result *r);

/* What `roofline` reports: the device's ridge for one compute format and, when a model is given,
 * one prefill and one decode step. */
typedef struct sim_roofline {
    const sim_hw *hw;
    sim_dtype dtype;                /* compute format of the ridge */
    const sim_step_cfg *step;       /* NULL without a model */
    const sim_step_result *prefill; /* NULL without a model */
    const sim_step_result *decode;  /* NULL without a model */
    int64_t batch, input_len;
    int64_t group_size; /* of the quantization schemes' integer weights */
} sim_roofline;

sim_status sim_report_roofline(FILE *f, sim_format fmt, const sim_roofline *r);

/* What `serve` reports. */
typedef struct sim_serve_report {
    const sim_engine_cfg *cfg;
    const sim_workload *w;
    const sim_engine_result *res;
    const sim_serve_metrics *m;
    double request_rate; /* requests/s as configured; INFINITY for inf; NAN for a trace */
    const char *engine, *engine_version; /* the engine profile's name and release (may be NULL) */
    const char *engine_fusions;          /* the fusions it records, comma-separated (may be NULL) */
    const char *engine_rules; /* which device / TP rules of the profile chose what (may be NULL) */
    double usd_per_gpu_hour; /* price of a GPU-hour (0 unknown) */
    int64_t gpus;            /* every GPU of the deployment; 0: one engine's, tp x pp */
    const sim_cluster_result *cluster; /* replicas' load; NULL (or 0 replicas): one engine */
    /* vLLM's --percentile-metrics / --metric-percentiles: NULL for the default report (every
     * metric, p90 and p99); else only the selected metrics, with these percentiles */
    const sim_pct_sel *pct;
    const sim_pct_values *pct_ms;
    /* --uncertainty: the 10th / 90th percentiles of the headline metrics over the parameter
     * draws (NULL or no draws: none); JSON and CSV add KEY_lo and KEY_hi after each banded KEY,
     * the table "(80 %: lo-hi)" after its value. vLLM's --save-result file never has them. */
    const sim_unc_band *band;
    /* with a band: the engine's capacity (requests/s its steady state completes, unc.h's
     * capacity rule) and its band, and the offered load (requests/s; 0: unbounded) */
    double capacity_rps, capacity_lo, capacity_hi, offered_rps;
    int64_t spec_break_even_batch; /* speculation: the batch it stops paying at (run.h; 0 none) */
} sim_serve_report;

/* Prompt tokens served from the prefix cache / prompt tokens (first admissions); 0 without
 * prefix caching. */
double sim_report_prefix_hit_rate(const sim_engine_result *res);
/* What vLLM's --save-result file records about the benchmark besides the metrics. */
typedef struct sim_vllm_meta {
    const char *backend, *model_id, *tokenizer_id;
    const char *date; /* vLLM's "%Y%m%d-%H%M%S", local time */
    int64_t num_prompts;
    double request_rate; /* INFINITY: "inf"; NAN (a trace): null */
    double burstiness;
    int64_t max_concurrency; /* 0: null (no limit) */
} sim_vllm_meta;

/* Writes vLLM's `vllm bench serve --save-result` JSON to `path` (complete or absent): date,
 * backend, model_id, tokenizer_id, num_prompts, request_rate, burstiness, max_concurrency,
 * duration, completed, failed, total_input_tokens, total_output_tokens, request_throughput,
 * request_goodput (null without --goodput), output_throughput, total_token_throughput,
 * max_output_tokens_per_s, max_concurrent_requests, and mean_/median_/std_/pP_ METRIC_ms for the
 * selected metrics and percentiles (r->pct, which must be set). The per-request lists vLLM adds
 * with --save-detailed are not written. */
sim_status sim_report_vllm_result(const char *path, const sim_serve_report *r,
                                  const sim_vllm_meta *meta, sim_err *err);

/* Writes vLLM's "Serving Benchmark Result" block (table), its --save-result keys (json) or one
 * CSV row. */
sim_status sim_report_serve(FILE *f, sim_format fmt, const sim_serve_report *r);

/* One table of the serve metrics. Each metric is one row of a table in report_fields.c: its
 * key, its kind and how its value is read from a sim_serve_report (and the latency summaries,
 * one row per statistic, expanded per metric). Each output is a list of those rows in its own
 * order, saying for each how a metric without a value (goodput without --goodput, a price the
 * device file lacks, a speculative-decoding metric without it) is written: left out, as a
 * missing value, or as 0. serve --format table, json and csv, vLLM's --save-result file and
 * sweep's serve rows all write the fields sim_report_serve_fields returns (the table's with their
 * labels and sections); adding a metric is adding a row and naming it in the outputs' lists. */
typedef enum sim_field_out {
    SIM_FIELDS_JSON,        /* serve --format json: the metrics before the replicas' keys */
    SIM_FIELDS_JSON_TAIL,   /* serve --format json: the metrics after them; run --format json:
                               the speculative-decoding keys after the memory object */
    SIM_FIELDS_CSV,         /* serve --format csv: the columns after the configuration's */
    SIM_FIELDS_VLLM,        /* --save-result: the keys after the benchmark's description */
    SIM_FIELDS_SWEEP,       /* sweep's serve rows: reads r->cfg, r->m and the price only */
    SIM_FIELDS_TABLE,       /* serve --format table: the rows under vLLM's "Serving Benchmark
                              Result" banner, each with its label (its unit in it) and section;
                              run --format table: a step's line and an op's columns, each with
                              its label, width and the text around it */
    SIM_FIELDS_TRACE,       /* a step's or an op's args on the Chrome trace (timeline_detail.h) */
    SIM_FIELDS_TRACE_NET,   /* an op's network slice's args on the Chrome trace (op detail) */
    SIM_FIELDS_TRACE_STAGE, /* a pipeline stage's slice on the Chrome trace: its micro-batch's
                               tokens and sequences (at most SIM_FIELDS_STAGE_MAX) */
    SIM_FIELDS_TABLE_TAIL,  /* run --format table: the rows after the memory's parts */
    SIM_FIELDS_TABLE_ROOF,  /* roofline --format table: an op's intensity and bound columns */
    SIM_FIELDS_TABLE_COLL,  /* run --format table: a collective's algorithm and protocol on the
                              "collectives:" line (none for an op that is not one) */
    SIM_FIELDS_JSON_MEMORY, /* run --format json: the keys of its "memory" object */
    SIM_FIELDS_TABLE_PRICE, /* run --format table: the price's row, before its detail line */
    SIM_FIELDS_TABLE_MEM,   /* run --format table: the memory line's parts ("weights 16.06"), each
                               with its label, decimals and the text around it (`before`) */
    SIM_FIELDS_TABLE_SPEC,  /* run --format table: the speculative-decoding lines' fields (none
                               without it), the same way */
    SIM_FIELDS_TABLE_MOE,   /* run --format table: a grouped expert GEMM on the "moe:" line (its
                               kernel family, layout, M block, padded rows, the busiest rank's
                               rows and their imbalance; none for other ops) */
    SIM_FIELDS_OUT_COUNT
} sim_field_out;

typedef enum sim_field_kind {
    SIM_FIELD_NUM,  /* a double: `decimals` places in CSV */
    SIM_FIELD_INT,  /* a count: an integer in CSV */
    SIM_FIELD_TEXT, /* a string, as it is in CSV */
    SIM_FIELD_BOOL, /* num 1 or 0 and text "true" or "false": a JSON bool, the text in CSV */
} sim_field_kind;

/* How the serve table sets a value after its 40-column label. */
typedef enum sim_field_style {
    SIM_STYLE_PAD,   /* after a space, in 10 columns: a number with `decimals` places, a count; a
                        text after a space */
    SIM_STYLE_BARE,  /* a number with `decimals` places after a space, unpadded */
    SIM_STYLE_TIGHT, /* the text right after the label's 40 columns */
} sim_field_style;

/* One field of one output. */
typedef struct sim_field {
    char key[40];
    sim_field_kind kind;
    int decimals; /* SIM_FIELD_NUM in CSV */
    bool missing; /* no value: null in JSON, an empty CSV field, `text` in the table */
    double num;   /* JSON writes an infinite one as "inf"; the table leaves a non-finite one out */
    const char *text; /* SIM_FIELD_TEXT, _BOOL, or a missing field's table text: owned by the
                         report's inputs (or static) */
    /* SIM_FIELDS_TABLE only: */
    char label[48];        /* "Benchmark duration (s):"; percentages are scaled to their "(%)" */
    const char *section;   /* a heading printed before this row, or NULL (static) */
    sim_field_style style; /* with `decimals`: 2 places but where the row says otherwise */
    /* A step's or an op's SIM_FIELDS_TABLE, _TABLE_ROOF, _TABLE_COLL (run's and roofline's
     * tables) and run's SIM_FIELDS_TABLE_MEM, _TABLE_SPEC: the value in `width` columns (0: as
     * wide as it is; text left-aligned) with `decimals` places, after `before` and the label (and
     * a space) when there is one, followed by `after` (static; NULL elsewhere). A column's label
     * (width > 0) is its heading. */
    int width;
    const char *before, *after;
    /* a table's field with a band (--uncertainty): its 10th and 90th percentiles, in the
     * table's unit */
    bool banded;
    double lo, hi;
} sim_field;

/* The most fields one output has: every scalar row, and mean, median, std and every selectable
 * percentile of each metric. */
enum { SIM_FIELDS_MAX = 40 + SIM_M_COUNT * (3 + SIM_MAX_PCTS) + 2 * SIM_UNC_BAND_MAX };

/* Fills `out` (SIM_FIELDS_MAX entries) with output `which`'s fields of r, in order; returns
 * their number. */
size_t sim_report_serve_fields(const sim_serve_report *r, sim_field_out which, sim_field *out);

/* The fields of one step (sim_step_result) and of its op `op`: run --format json's prefill and
 * decode objects and ops list, roofline's ops (SIM_FIELDS_JSON: step times in milliseconds, op
 * times in microseconds) and the Chrome trace's step and op slices' args (SIM_FIELDS_TRACE:
 * microseconds; SIM_FIELDS_TRACE_NET: an op's network slice) and run's text table
 * (SIM_FIELDS_TABLE: the step's line in milliseconds, an op's columns in microseconds, GFLOP and
 * MB). Each key's stem, label and time unit are written once, in report_step.c; the unit suffix
 * (_ms, _us) is the output's. Return their number (at most SIM_FIELDS_STEP_MAX; 0 for
 * the other outputs). */
enum { SIM_FIELDS_STEP_MAX = 32, SIM_FIELDS_STAGE_MAX = 2 };
size_t sim_report_step_fields(const sim_step_result *s, sim_field_out which, sim_field *out);
size_t sim_report_op_fields(const sim_step_result *s, int op, sim_field_out which, sim_field *out);

/* The same for a static batch: its table's rows (ttft_ms, tpot_ms, e2e_ms, output_throughput,
 * bounds, lower and upper step times, memory, price, speculative decoding, ...) as run --format
 * json writes them at the top level (SIM_FIELDS_JSON; SIM_FIELDS_JSON_TAIL: the speculative-
 * decoding keys, none without it) and in its "memory" object (SIM_FIELDS_JSON_MEMORY), run
 * --format csv after its configuration columns (SIM_FIELDS_CSV), sweep's run rows
 * (SIM_FIELDS_SWEEP) and run's table (SIM_FIELDS_TABLE, _TABLE_TAIL, _TABLE_PRICE, _TABLE_MEM,
 * _TABLE_SPEC: each with its label, decimals and shown unit; a missing one with its table text);
 * the other outputs have none (0). */
size_t sim_report_run_fields(const sim_run_cfg *cfg, const sim_run_result *r, sim_field_out which,
                             sim_field *out);

/* What a static batch and a serving run cost: all GPUs they hold (tp x pp, or r->gpus) at cfg's price, spread
 * over their output and total (prompt + output) tokens per second. Return whether the price is
 * known. */
bool sim_report_run_price(const sim_run_cfg *cfg, const sim_run_result *r, sim_price *out);
bool sim_report_serve_price(const sim_serve_report *r, sim_price *out);

/* The GPUs a serving deployment holds: r->gpus, else tp x pp of its engine. */
int64_t sim_report_serve_gpus(const sim_serve_report *r);

/* An autoscaled pool's GPU-hours: the replicas' held time x each one's GPUs. */
double sim_report_serve_gpu_hours(const sim_serve_report *r);

/* Writes one CSV row per request to `path`, through a temporary file renamed when complete. */
sim_status sim_report_save_requests(const char *path, const sim_serve_report *r, sim_err *err);

#endif
