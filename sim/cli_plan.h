/* cli_plan.h - the plan command's pieces (private to sim/cli_plan*.c): one evaluated candidate
 * deployment as a row (what the shards write and merge joins), the ranking, the report and the
 * launch command lines.
 *
 * A candidate is one model on one device with an engine, a precision and a parallel layout (TP,
 * PP, EP, data-parallel attention), aggregated (replicas of one instance) or disaggregated (P
 * prefill and D decode instances). Its row says whether it serves the target rate under the SLO,
 * with how many GPUs, at what price, and the metrics of the serving run that showed it.
 *
 * Example (const cli_plan_row *r, const cli_plan_bench *b):
 *   sim_strbuf s = {0};
 *   cli_plan_launch_serve(r, 0, &s); // "vllm serve meta-llama/... --tensor-parallel-size 4 ..."
 *   sim_strbuf_free(&s);
 *   cli_plan_launch_bench(r, b, &s); // "vllm bench serve --backend vllm ..."
 *   sim_strbuf_free(&s);
 */
#ifndef SIM_CLI_PLAN_H
#define SIM_CLI_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "metrics.h"
#include "status.h"
#include "strbuf.h"

/* The most parameter draws a plan row keeps (--uncertainty N, N <= this). */
enum { CLI_PLAN_MAX_DRAWS = 64 };

/* What a row's search concluded. */
typedef enum cli_plan_status {
    CLI_PLAN_OK,      /* serves the target rate under the SLO */
    CLI_PLAN_UNFIT,   /* does not load or fit (weights, KV, layout): reason says why */
    CLI_PLAN_ALONE,   /* one request alone misses the SLO: no replica count helps */
    CLI_PLAN_MISSED,  /* no rate (or no P:D) meets the SLO within the search */
    CLI_PLAN_TOO_BIG, /* it would take more than --max-gpus GPUs */
    CLI_PLAN_STATUS_COUNT
} cli_plan_status;

const char *cli_plan_status_name(cli_plan_status s);
bool cli_plan_status_parse(const char *s, cli_plan_status *out);

typedef struct cli_plan_row {
    int64_t point; /* the candidate's index in the plan's order */
    /* the candidate */
    char model[128], hw[128], engine[32];
    char precision[16]; /* "default" (the checkpoint's formats) or "fp8" (W8A8 fp8 weights) */
    bool disagg;        /* P prefill + D decode instances instead of replicas */
    int64_t tp, pp, ep, dp;
    bool dp_attention;
    char kv_cache[16]; /* "default" (the engine's KV-cache format) or "fp8" (--kv-cache-dtypes) */
    char spec[24];     /* "none" or METHOD:K, an EAGLE head or MTP drafting K (--spec-methods) */
    char spec_acceptance_data[48]; /* its published acceptance's dataset ("": the flags') */
    /* the result */
    cli_plan_status status;
    char reason[560];
    double instance_max_rate; /* the highest rate one instance meets the SLO at (INFINITY: every
                               * rate; 0: not searched) */
    int64_t replicas, prefill, decode, gpus;
    double usd_per_gpu_hour, usd_per_hour, usd_per_million_output_tokens; /* 0: unknown */
    double request_throughput, output_throughput;
    double p_ms[SIM_M_COUNT];   /* each metric at the SLO percentile */
    double headroom;            /* min over the SLO's metrics of 1 - value / limit */
    double attainment;          /* share of requests meeting every SLO */
    double joules_per_output_token; /* 0: the device gives no power */
    /* what the engine ran with (its profile and the flags), for the launch lines */
    char engine_version[208];
    int64_t max_num_seqs, max_num_batched_tokens, block_size;
    double gpu_memory_utilization;
    char weight_dtype[16], act_dtype[16], kv_dtype[16];
    char hf_id[160]; /* the checkpoint's Hugging Face id (the model file's first), else --model */
    /* --uncertainty (bands on, cli_plan_band.c): the deployment served at the target rate under
     * each parameter draw, with the workload of its nominal run (the same draws for every row:
     * paired); band_draws 0: no bands (and none of these keys in the row's JSON) */
    int64_t band_draws;
    double slo_met_probability;          /* share of the draws whose run meets the SLO */
    double p_lo[SIM_M_COUNT], p_hi[SIM_M_COUNT]; /* each metric at the percentile: 10th, 90th */
    double usd_per_million_output_tokens_lo, usd_per_million_output_tokens_hi;
    double output_throughput_lo, output_throughput_hi;
    double joules_per_output_token_lo, joules_per_output_token_hi;
    bool draw_met[CLI_PLAN_MAX_DRAWS];        /* whether draw i meets the SLO at the rate */
    double draw_ttft_ms[CLI_PLAN_MAX_DRAWS];  /* TTFT at the percentile under draw i */
    double draw_joules[CLI_PLAN_MAX_DRAWS];   /* J per output token under draw i (0: no power) */
    char band_basis[384];                     /* what the bands rest on (unc.h) */
    /* --request-rate LO:HI (cli_plan_range.c; gpus_at_rate_low 0: no range, and none of these
     * keys in the row's JSON): the fewest instances of the row's kind that serve LO under the
     * SLO, and the highest rate the deployment sized for HI meets it at (INFINITY: every rate;
     * 0: none found) */
    int64_t replicas_at_rate_low, prefill_at_rate_low, decode_at_rate_low, gpus_at_rate_low;
    double max_request_rate;
} cli_plan_row;

/* The row as one JSON line (malloc'd, no newline; NULL when out of memory). Numbers round-trip
 * exactly, so a row read back ranks and reports as the one written. */
char *cli_plan_row_json(const cli_plan_row *r);

/* Reads a line written by cli_plan_row_json; SIM_EINPUT names `where` and the bad field. */
sim_status cli_plan_row_parse(const char *line, const char *where, cli_plan_row *r, sim_err *err);

/* What to rank by (--objective). */
typedef enum cli_plan_objective {
    CLI_PLAN_COST,   /* least US$ per hour (the same rate served: the least per token) */
    CLI_PLAN_GPUS,   /* fewest GPUs, then the least US$ per hour */
    CLI_PLAN_ENERGY, /* least energy per output token */
    CLI_PLAN_TTFT    /* lowest TTFT at the SLO percentile */
} cli_plan_objective;

bool cli_plan_objective_parse(const char *s, cli_plan_objective *out);
const char *cli_plan_objective_name(cli_plan_objective o);

/* Whether a ranks before b (both OK; ties broken by point, so any order of evaluation ranks the
 * same). A row the objective cannot rank (no price for cost, no power for energy) comes last. */
bool cli_plan_better(const cli_plan_row *a, const cli_plan_row *b, cli_plan_objective obj);

/* Whether the objective can rank r (cost needs a price, energy a power). */
bool cli_plan_rankable(const cli_plan_row *r, cli_plan_objective obj);

/* The objective of r under each of its draws into out (room for CLI_PLAN_MAX_DRAWS), lower
 * better: cost its US$ per hour, gpus its GPUs, energy its J per output token, ttft its TTFT at
 * the percentile; INFINITY in a draw whose run misses the SLO (the deployment does not serve the
 * rate there). Returns r->band_draws (0: no bands). */
size_t cli_plan_objective_draws(const cli_plan_row *r, cli_plan_objective obj, double *out);

/* The objective's 80 % band over r's draws (sim_unc_band_of; hi INFINITY when more than a tenth
 * of the draws miss the SLO); false without bands. */
bool cli_plan_objective_band(const cli_plan_row *r, cli_plan_objective obj, double *lo,
                             double *hi);

/* How sure the ranking is that w beats u (the runner-up): the share of paired draws in which w's
 * objective is lower (sim_unc_beat_prob: a draw in which w serves the rate under the SLO and u
 * does not counts for w, one in which neither does counts one half) and whether the two tie
 * (sim_unc_tie: the 80 % band of the ratio holds 1). False when either has no bands or their
 * draw counts differ. */
bool cli_plan_decision(const cli_plan_row *w, const cli_plan_row *u, cli_plan_objective obj,
                       double *beat, bool *tie);

/* The workload and SLO the bench line replays (vLLM's bench serve flags). */
typedef struct cli_plan_bench {
    const char *dataset; /* "random" or "prefix_repetition" */
    int64_t num_prompts, rand_in, rand_out, seed;
    double range_ratio, rate, burstiness, pct;
    int64_t prefix_len, suffix_len, num_prefixes, prefix_out;
    sim_slo slo;
    double in_mean, out_mean; /* a public dataset's fitted mean lengths (dataset.h) */
} cli_plan_bench;

/* A row's speculation ("eagle3:3"): its method and K; false for "none" (or malformed). */
bool cli_plan_spec_parse(const char *spec, char method[16], int64_t *k);

/* The speculation as `engine` takes it: vLLM's --speculative-config JSON
 * ({"method":"eagle3","model":"HEAD","num_speculative_tokens":3}), TensorRT-LLM's
 * speculative_config as JSON ({"decoding_type":"Eagle3","max_draft_len":3,...}); for SGLang the
 * --speculative-algorithm name (EAGLE, EAGLE3, NEXTN). HEAD stands for the EAGLE head's
 * checkpoint, which the operator names (infersim prices the head from the target's shape). */
void cli_plan_spec_spelling(const char *engine, const char *method, int64_t k, char *buf,
                            size_t len);

/* The command that starts instance `which` of r's deployment (0: the instance, or with disagg the
 * prefill one; 1: disagg's decode one), realising its layout, batch limits, memory fraction,
 * KV-cache format and quantization in its engine's spelling, into *out (appended). */
void cli_plan_launch_serve(const cli_plan_row *r, int which, sim_strbuf *out);

/* What the serve lines leave to the operator (replicas behind a router, the P:D proxy, a
 * TensorRT-LLM options file), one note per line, into *out. */
void cli_plan_launch_notes(const cli_plan_row *r, sim_strbuf *out);

/* `vllm bench serve` against r's server with the plan's workload, rate and SLO. */
void cli_plan_launch_bench(const cli_plan_row *r, const cli_plan_bench *b, sim_strbuf *out);

/* The report over the rows (all candidates, in point order). */
typedef struct cli_plan_report {
    const cli_plan_row *rows;
    size_t n;
    cli_plan_objective objective;
    int64_t top;
    double rate;
    double rate_low;      /* --request-rate LO:HI: LO (rate is HI); 0: one rate */
    const char *slo_text; /* --slo / --goodput as given */
    bool goodput;
    sim_slo slo;
    cli_plan_bench bench;
    bool json;
    bool csv; /* --format csv: a line per candidate (json false) */
} cli_plan_report;

sim_status cli_plan_report_write(FILE *f, const cli_plan_report *rep, sim_err *err);

/* The winner against the runner-up over the draws, the decision's sentence (unc.h's
 * sim_unc_decision_text) into *out; false when there is none to say (no bands, fewer than two
 * rankable rows). */
bool cli_plan_report_decision(const cli_plan_report *rep, sim_strbuf *out);

/* "3 x TP 4", "TP 8 x PP 2", "DP-attn 8 x EP 8", "2P:3D x TP 4": a row's layout in words, with
 * a searched fp8 KV cache and speculation after it ("3 x TP 2 +kv fp8 +eagle3:3"), into a buffer
 * of CLI_PLAN_LAYOUT_LEN bytes (the parallel part's 95 characters, " +kv fp8", " +" and the spec's
 * 23, and the terminator: 129, rounded up). */
enum { CLI_PLAN_LAYOUT_LEN = 160 };
void cli_plan_layout(const cli_plan_row *r, char *buf, size_t len);

/* The layout's parallel part alone ("3 x TP 2"). */
void cli_plan_layout_parallel(const cli_plan_row *r, char *buf, size_t len);

#endif
