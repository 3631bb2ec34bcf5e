/* live_prom.c - the live simulation's metrics (live.h), kept as the clock releases events and
 * written in Prometheus' text exposition format under vLLM's names, types, help and buckets, as
 * vLLM's V1 engine registers them: vllm/v1/metrics/loggers.py (PrometheusStatLogger) at
 * vllm-project/vllm@005a810bc40faa25b8870fbc8559c3462581eee3, labels model_name and engine.
 * vllm:inter_token_latency_seconds is the name later vLLM releases give the gap histogram
 * (llm-d-inference-sim docs/metrics.md lists both); written with the same samples and buckets. */
#include "live_internal.h"

#include <stdio.h>
#include <string.h>

/* appends a string literal */
#define PUT(b, lit) sim_strbuf_put((b), (lit), sizeof(lit) - 1)

/* vLLM's buckets (loggers.py, the commit above) */
static const double TTFT_LE[] = {0.001, 0.005, 0.01, 0.02,  0.04,  0.06,  0.08, 0.1,
                                 0.25,  0.5,   0.75, 1.0,   2.5,   5.0,   7.5,  10.0,
                                 20.0,  40.0,  80.0, 160.0, 640.0, 2560.0};
static const double TPOT_LE[] = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,  0.3,  0.4, 0.5,
                                 0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
static const double E2E_LE[] = {0.3,  0.5,   0.8,   1.0,   1.5,   2.0,    2.5,
                                5.0,  10.0,  15.0,  20.0,  30.0,  40.0,   50.0,
                                60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
#define N_OF(a) (sizeof(a) / sizeof(a)[0])

static void hist_init(live_hist *h, const double *le, size_t n)
{
    memset(h, 0, sizeof *h);
    h->le = le;
    h->n = n;
}

/* One sample into the first bucket whose bound holds it (the +Inf one above the last). */
static void hist_add(live_hist *h, double v)
{
    size_t i = 0;
    while (i < h->n && v > h->le[i])
        i++;
    h->count[i]++;
    h->sum += v;
    h->total++;
}

void live_prom_init(live_prom *p)
{
    memset(p, 0, sizeof *p);
    hist_init(&p->ttft, TTFT_LE, N_OF(TTFT_LE));
    hist_init(&p->itl, TPOT_LE, N_OF(TPOT_LE));
    hist_init(&p->e2e, E2E_LE, N_OF(E2E_LE));
}

void live_prom_iteration(live_prom *p, double kv_usage)
{
    p->iterations++;
    p->kv_usage = kv_usage;
}

/* The scheduler's gauges as vLLM counts them: waiting from the arrival (the front end's queue
 * included) to admission and again after a preemption, running from admission to the last
 * token. */
void live_prom_request(live_prom *p, sim_request_event ev)
{
    switch (ev) {
    case SIM_EV_ARRIVED:
        p->waiting++;
        break;
    case SIM_EV_SCHEDULED:
        p->waiting--;
        p->running++;
        break;
    case SIM_EV_PREEMPTED:
        p->preemptions++;
        p->running--;
        p->waiting++;
        break;
    case SIM_EV_FINISHED:
        p->running--;
        break;
    case SIM_EV_DECODING:
        break;
    }
}

void live_prom_tokens(live_prom *p, int64_t tokens) { p->generation_tokens += tokens; }
/* A request's first token: its TTFT, and its whole prompt counted as vLLM's V1 counts prompt
 * tokens (IterationStats: the prompt length of each request in the iteration that ends its
 * prefill, cached tokens included). */
void live_prom_ttft(live_prom *p, double s, int64_t prompt_tokens)
{
    hist_add(&p->ttft, s);
    p->prompt_tokens += prompt_tokens;
}
void live_prom_gap(live_prom *p, double s) { hist_add(&p->itl, s); }

void live_prom_finished(live_prom *p, double e2e_s)
{
    p->success++;
    hist_add(&p->e2e, e2e_s);
}

/* A request aborted when its client went away: out of the gauge it was in, counted under
 * vLLM's finished_reason "abort". */
void live_prom_abort(live_prom *p, sim_seq_phase was)
{
    p->running -= was == SIM_SEQ_RUNNING;
    p->waiting -= was == SIM_SEQ_WAITING;
    p->aborted++;
}

/* The labels: engine 0, the bucket's bound `le` (NULL: none), model_name as a Prometheus label
 * value (backslash, quote and line feed escaped) and `more` (",name=\"value\"" or ""). */
static void labels_more(sim_strbuf *out, const char *model_name, const char *le, const char *more)
{
    PUT(out, "{engine=\"0\",");
    if (le)
        sim_strbuf_printf(out, "le=\"%s\",", le);
    PUT(out, "model_name=\"");
    for (const char *c = model_name; *c; c++) {
        if (*c == '\\' || *c == '"')
            PUT(out, "\\");
        if (*c == '\n')
            PUT(out, "\\n");
        else
            sim_strbuf_put(out, c, 1);
    }
    sim_strbuf_printf(out, "\"%s}", more);
}

static void labels(sim_strbuf *out, const char *model_name, const char *le)
{
    labels_more(out, model_name, le, "");
}

static void head(sim_strbuf *out, const char *name, const char *type, const char *help)
{
    sim_strbuf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void scalar(sim_strbuf *out, const char *m, const char *name, const char *type,
                   const char *help, double v)
{
    const bool counter = strcmp(type, "counter") == 0;
    head(out, name, type, help);
    sim_strbuf_printf(out, "%s%s", name, counter ? "_total" : "");
    labels(out, m, NULL);
    sim_strbuf_printf(out, " %.17g\n", v);
}

static void histogram(sim_strbuf *out, const char *m, const char *name, const char *help,
                      const live_hist *h)
{
    head(out, name, "histogram", help);
    int64_t cum = 0;
    char le[32];
    for (size_t i = 0; i <= h->n; i++) {
        cum += h->count[i];
        if (i < h->n)
            snprintf(le, sizeof le, "%.15g", h->le[i]);
        else
            snprintf(le, sizeof le, "+Inf");
        sim_strbuf_printf(out, "%s_bucket", name);
        labels(out, m, le);
        sim_strbuf_printf(out, " %lld\n", (long long)cum);
    }
    sim_strbuf_printf(out, "%s_count", name);
    labels(out, m, NULL);
    sim_strbuf_printf(out, " %lld\n%s_sum", (long long)h->total, name);
    labels(out, m, NULL);
    sim_strbuf_printf(out, " %.17g\n", h->sum);
}

void live_prom_write(const live_prom *p, const char *m, sim_strbuf *out)
{
    scalar(out, m, "vllm:num_requests_running", "gauge",
           "Number of requests in model execution batches.", (double)p->running);
    scalar(out, m, "vllm:num_requests_waiting", "gauge",
           "Number of requests waiting to be processed.", (double)p->waiting);
    scalar(out, m, "vllm:kv_cache_usage_perc", "gauge",
           "KV-cache usage. 1 means 100 percent usage.", p->kv_usage);
    scalar(out, m, "vllm:gpu_cache_usage_perc", "gauge",
           "GPU KV-cache usage. 1 means 100 percent usage. DEPRECATED: Use "
           "vllm:kv_cache_usage_perc instead.",
           p->kv_usage);
    scalar(out, m, "vllm:num_preemptions", "counter",
           "Cumulative number of preemption from the engine.", (double)p->preemptions);
    scalar(out, m, "vllm:prompt_tokens", "counter", "Number of prefill tokens processed.",
           (double)p->prompt_tokens);
    scalar(out, m, "vllm:generation_tokens", "counter", "Number of generation tokens processed.",
           (double)p->generation_tokens);
    head(out, "vllm:request_success", "counter", "Count of successfully processed requests.");
    sim_strbuf_printf(out, "vllm:request_success_total");
    /* every request ends by its length (filler tokens never stop early) or is aborted */
    labels_more(out, m, NULL, ",finished_reason=\"length\"");
    sim_strbuf_printf(out, " %lld\nvllm:request_success_total", (long long)p->success);
    labels_more(out, m, NULL, ",finished_reason=\"abort\"");
    sim_strbuf_printf(out, " %lld\n", (long long)p->aborted);
    histogram(out, m, "vllm:time_to_first_token_seconds",
              "Histogram of time to first token in seconds.", &p->ttft);
    histogram(out, m, "vllm:time_per_output_token_seconds",
              "Histogram of time per output token in seconds.", &p->itl);
    histogram(out, m, "vllm:inter_token_latency_seconds",
              "Histogram of inter-token latency in seconds.", &p->itl);
    histogram(out, m, "vllm:e2e_request_latency_seconds",
              "Histogram of e2e request latency in seconds.", &p->e2e);
}
