/* metrics.h - latency samples, percentiles, throughput and goodput, defined exactly as vLLM's
 * `vllm bench serve` defines them:
 *   TTFT  = first token - send time;   E2EL = last token - send time;
 *   TPOT  = (E2EL - TTFT) / (output - 1) per request with output > 1 (else no sample);
 *   ITL   = every gap between successive tokens of every request, pooled;
 *   mean, median, std (population) and percentiles with linear interpolation between order
 *   statistics (numpy.percentile's default);
 *   request/output/total-token throughput = completed, output tokens, input + output tokens over
 *   the duration; goodput = requests meeting every given SLO (value <= SLO; TPOT counts as 0 for
 *   one-token outputs) over the duration.
 */
#ifndef SIM_METRICS_H
#define SIM_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "hist.h"

typedef struct sim_dist {
    double mean, median, std, p90, p99; /* milliseconds */
    size_t n;                           /* samples */
} sim_dist;

typedef enum sim_metric { SIM_M_TTFT, SIM_M_TPOT, SIM_M_ITL, SIM_M_E2EL, SIM_M_COUNT } sim_metric;

/* "ttft", "tpot", "itl", "e2el". */
const char *sim_metric_name(sim_metric m);

/* Service-level objectives in ms; a value <= 0 means "not given". */
typedef struct sim_slo {
    double ms[SIM_M_COUNT]; /* ITL is not an SLO; its slot is unused */
} sim_slo;

typedef struct sim_serve_metrics {
    size_t completed;
    double duration_s;
    int64_t total_input_tokens, total_output_tokens;
    double request_throughput, output_throughput, total_token_throughput;
    sim_dist dist[SIM_M_COUNT];
    bool has_goodput;
    double request_goodput;
    int64_t preemptions;
    double mean_batch_size;     /* requests per iteration */
    double kv_cache_peak_usage; /* fraction of KV blocks in use at the peak */
    int64_t iterations;
    int64_t peak_concurrency;
    double peak_output_throughput;
    bool has_spec;
    double spec_acceptance_length;   /* measured tokens per verify step (accepted + 1) */
    double spec_draft_time_fraction; /* of the busy time, spent drafting */
    /* with a front end (engine.h): its mean part of each request's TTFT and E2EL, and those as
     * fractions of the mean TTFT and E2EL */
    bool has_frontend;
    double mean_frontend_ttft_ms, mean_frontend_e2el_ms;
    double frontend_ttft_fraction, frontend_e2el_fraction;
} sim_serve_metrics;

/* Summary of n samples in nanoseconds, reported in ms. Reorders `ns` (selection, O(n) each
 * percentile). n = 0 gives zeros. */
sim_dist sim_metrics_dist(double *ns, size_t n);

/* The same summary of a finished histogram of nanoseconds (exact integer moments, see hist.h). */
sim_dist sim_metrics_hist_dist(const sim_hist *h);

/* The linearly interpolated p-th percentile (0..100) of n > 0 values; reorders them. */
double sim_metrics_percentile(double *v, size_t n, double p);

/* Aggregates an engine result: ITL from its runs as they are, TTFT, TPOT and E2EL through one
 * scratch array of the requests' samples (8 bytes a request), each metric in turn. Returns
 * SIM_EINTERNAL when out of memory. */
sim_status sim_metrics_compute(const sim_engine_result *res, const sim_slo *slo,
                               sim_serve_metrics *out);

/* The p[j]-th percentiles (each 0..100, any order) of metric m over a result, in ms, with the
 * same interpolation as sim_serve_metrics' median, p90 and p99 (0 when there is no sample): ITL
 * from the result's runs, the others through one scratch array. Returns SIM_EINTERNAL when out
 * of memory. */
sim_status sim_metrics_percentiles(const sim_engine_result *res, sim_metric m, const double *p,
                                   size_t np, double *out_ms);

/* Which metrics' percentiles are reported, and which percentiles: vLLM's --percentile-metrics
 * ("ttft,tpot,itl") and --metric-percentiles ("25,50,99"). */
#define SIM_MAX_PCTS 16
typedef struct sim_pct_sel {
    bool metric[SIM_M_COUNT];
    int n;
    double p[SIM_MAX_PCTS]; /* increasing, each in [0, 100] */
} sim_pct_sel;

/* The selected percentiles of each selected metric, in ms. */
typedef struct sim_pct_values {
    double ms[SIM_M_COUNT][SIM_MAX_PCTS];
} sim_pct_values;

/* Parses the two lists (comma-separated; NULL for vLLM's defaults "ttft,tpot,itl" and "99").
 * Percentiles are sorted and a repeated one kept once. Errors name the flag and the value. */
sim_status sim_pct_sel_parse(const char *metrics, const char *percentiles, sim_pct_sel *out,
                             sim_err *err);

/* The key vLLM gives percentile p: "99", "99.9" (as in p99_ttft_ms). */
void sim_pct_word(double p, char *buf, size_t len);

/* The selected percentiles of the selected metrics (sim_metrics_percentiles for each; the others
 * stay 0). SIM_EINTERNAL when out of memory. */
sim_status sim_metrics_selected(const sim_engine_result *res, const sim_pct_sel *sel,
                                sim_pct_values *out);

/* Parses "ttft:300,tpot:50" (also space-separated pairs joined by the caller) into slo. */
sim_status sim_slo_parse(const char *s, sim_slo *slo, sim_err *err);

#endif
