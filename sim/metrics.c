/* metrics.c - vLLM's serving metrics from an engine result. */
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[SIM_M_COUNT] = {
    [SIM_M_TTFT] = "ttft", [SIM_M_TPOT] = "tpot", [SIM_M_ITL] = "itl", [SIM_M_E2EL] = "e2el"};

const char *sim_metric_name(sim_metric m) { return metric_names[m]; }

static void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* Puts the k-th smallest of v[lo, hi) at v[k], smaller ones before it, larger ones after.
 * Three-way partitioning keeps it linear on the many equal values latency samples have; the pivot
 * is the median of three positions drawn from a fixed-seed generator, so structured inputs
 * (runs of equal gaps, sorted stretches) cannot make it quadratic and results never vary. */
static void select_kth(double *v, size_t lo, size_t hi, size_t k)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    while (hi - lo > 1) {
        double p3[3];
        for (int j = 0; j < 3; j++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            p3[j] = v[lo + (size_t)(x % (hi - lo))];
        }
        double a = p3[0], b = p3[1], c = p3[2];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            if (v[i] < pivot)
                swap(&v[lt++], &v[i++]);
            else if (v[i] > pivot)
                swap(&v[i], &v[--gt]);
            else
                i++;
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return; /* v[lt..gt) all equal the pivot */
    }
}

/* Percentiles p[0] < p[1] < ... of n > 0 values (linear interpolation). Each selection only
 * searches above the previous one. */
static void percentiles(double *v, size_t n, const double *p, double *out, int np)
{
    size_t from = 0;
    for (int j = 0; j < np; j++) {
        double pos = p[j] / 100.0 * (double)(n - 1);
        size_t k = (size_t)floor(pos);
        double frac = pos - (double)k;
        if (k < from)
            from = 0; /* not increasing: search everything */
        select_kth(v, from, n, k);
        double lo = v[k];
        out[j] = lo;
        if (frac > 0.0 && k + 1 < n) {
            double hi = v[k + 1];
            for (size_t i = k + 2; i < n; i++)
                if (v[i] < hi)
                    hi = v[i];
            out[j] = lo + frac * (hi - lo);
        }
        from = k + 1 < n ? k + 1 : k;
    }
}

double sim_metrics_percentile(double *v, size_t n, double p)
{
    double out;
    percentiles(v, n, &p, &out, 1);
    return out;
}

sim_dist sim_metrics_dist(double *ns, size_t n)
{
    sim_dist d = {0};
    d.n = n;
    if (n == 0)
        return d;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += ns[i];
    double mean = sum / (double)n, ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (ns[i] - mean) * (ns[i] - mean);
    d.mean = mean / 1e6;
    d.std = sqrt(ss / (double)n) / 1e6;
    static const double ps[3] = {50.0, 90.0, 99.0};
    double q[3];
    percentiles(ns, n, ps, q, 3);
    d.median = q[0] / 1e6;
    d.p90 = q[1] / 1e6;
    d.p99 = q[2] / 1e6;
    return d;
}

sim_dist sim_metrics_hist_dist(const sim_hist *h)
{
    sim_dist d = {0};
    d.n = (size_t)h->n;
    if (h->n == 0)
        return d;
    double mean, std;
    sim_hist_moments(h, &mean, &std);
    d.mean = mean / 1e6;
    d.std = std / 1e6;
    d.median = sim_hist_percentile(h, 50.0) / 1e6;
    d.p90 = sim_hist_percentile(h, 90.0) / 1e6;
    d.p99 = sim_hist_percentile(h, 99.0) / 1e6;
    return d;
}

/* TTFT, TPOT and E2EL of a request in ns (TPOT 0 for a one-token output). */
static void req_latencies(const sim_req_result *r, double v[SIM_M_COUNT])
{
    v[SIM_M_TTFT] = (double)(r->first_token_ns - r->send_ns);
    v[SIM_M_E2EL] = (double)(r->finish_ns - r->send_ns);
    v[SIM_M_TPOT] = r->output > 1 ? (v[SIM_M_E2EL] - v[SIM_M_TTFT]) / (double)(r->output - 1) : 0.0;
    v[SIM_M_ITL] = 0.0;
}

/* The samples of a per-request metric (not ITL) into v, in request order; returns how many (TPOT
 * only for outputs of more than one token). */
static size_t gather(const sim_engine_result *res, sim_metric m, double *v)
{
    size_t len = 0;
    for (size_t i = 0; i < res->n; i++) {
        const sim_req_result r = sim_engine_req(res, i);
        double lat[SIM_M_COUNT];
        req_latencies(&r, lat);
        if (m != SIM_M_TPOT || r.output > 1)
            v[len++] = lat[m];
    }
    return len;
}

sim_status sim_metrics_percentiles(const sim_engine_result *res, sim_metric m, const double *p,
                                   size_t np, double *out_ms)
{
    if (m == SIM_M_ITL) {
        for (size_t j = 0; j < np; j++)
            out_ms[j] = res->itl.n > 0 ? sim_hist_percentile(&res->itl, p[j]) / 1e6 : 0.0;
        return SIM_OK;
    }
    double *v = malloc((res->n ? res->n : 1) * sizeof *v);
    if (!v)
        return SIM_EINTERNAL;
    size_t len = gather(res, m, v);
    for (size_t j = 0; j < np; j++)
        out_ms[j] = len > 0 ? sim_metrics_percentile(v, len, p[j]) / 1e6 : 0.0;
    free(v);
    return SIM_OK;
}

sim_status sim_metrics_compute(const sim_engine_result *res, const sim_slo *slo,
                               sim_serve_metrics *out)
{
    memset(out, 0, sizeof *out);
    size_t n = res->n;
    /* one scratch for the per-request samples of each metric in turn, in request order (the
     * order their sums were always taken in); ITL comes from the engine's runs, uncopied */
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return SIM_EINTERNAL;
    size_t good = 0;
    bool any_slo = false;
    for (int m = 0; m < SIM_M_COUNT; m++)
        any_slo |= slo && slo->ms[m] > 0.0;
    for (size_t i = 0; i < n; i++) {
        const sim_req_result r = sim_engine_req(res, i);
        out->total_input_tokens += r.input;
        out->total_output_tokens += r.output;
        if (any_slo) {
            double lat[SIM_M_COUNT];
            req_latencies(&r, lat);
            bool ok = true;
            for (int m = 0; m < SIM_M_COUNT; m++)
                if (m != SIM_M_ITL && slo->ms[m] > 0.0 && lat[m] > slo->ms[m] * 1e6)
                    ok = false;
            good += ok;
        }
    }
    static const sim_metric per_req[3] = {SIM_M_TTFT, SIM_M_TPOT, SIM_M_E2EL};
    for (int k = 0; k < 3; k++)
        out->dist[per_req[k]] = sim_metrics_dist(v, gather(res, per_req[k], v));
    free(v);
    out->completed = n;
    out->duration_s = (double)res->duration_ns / 1e9;
    double dur = out->duration_s > 0.0 ? out->duration_s : 1e-9;
    out->request_throughput = (double)n / dur;
    out->output_throughput = (double)out->total_output_tokens / dur;
    out->total_token_throughput =
        (double)(out->total_input_tokens + out->total_output_tokens) / dur;
    out->has_goodput = any_slo;
    out->request_goodput = (double)good / dur;
    out->dist[SIM_M_ITL] = sim_metrics_hist_dist(&res->itl);
    out->preemptions = res->preemptions;
    out->iterations = res->iterations;
    out->mean_batch_size =
        res->iterations > 0 ? (double)res->scheduled_seqs / (double)res->iterations : 0.0;
    out->kv_cache_peak_usage =
        res->kv_blocks > 0 ? (double)res->kv_peak_blocks / (double)res->kv_blocks : 0.0;
    out->peak_concurrency = res->peak_concurrency;
    out->has_spec = res->spec_verifies > 0;
    out->spec_acceptance_length =
        out->has_spec ? (double)res->spec_tokens / (double)res->spec_verifies : 0.0;
    out->spec_draft_time_fraction = res->busy_ns > 0.0 ? res->draft_ns / res->busy_ns : 0.0;
    out->peak_output_throughput = res->peak_output_tps;
    out->has_frontend = res->frontend_on;
    out->has_power = !res->power_unknown;
    out->idle_w = res->idle_w;
    out->active_j = res->active_j;
    if (res->frontend_on && n > 0) {
        out->mean_frontend_ttft_ms = res->frontend_ttft_ns / (double)n / 1e6;
        out->mean_frontend_e2el_ms = res->frontend_e2e_ns / (double)n / 1e6;
        const double ttft = out->dist[SIM_M_TTFT].mean, e2el = out->dist[SIM_M_E2EL].mean;
        out->frontend_ttft_fraction = ttft > 0.0 ? out->mean_frontend_ttft_ms / ttft : 0.0;
        out->frontend_e2el_fraction = e2el > 0.0 ? out->mean_frontend_e2el_ms / e2el : 0.0;
    }
    return SIM_OK;
}

sim_status sim_slo_parse(const char *s, sim_slo *slo, sim_err *err)
{
    memset(slo, 0, sizeof *slo);
    const char *p = s;
    bool any = false;
    while (*p) {
        size_t len = strcspn(p, ", ");
        if (len > 0) {
            char tok[64];
            snprintf(tok, sizeof tok, "%.*s", (int)len, p);
            char *colon = strchr(tok, ':');
            int m = -1;
            if (colon) {
                *colon = '\0';
                for (int k = 0; k < SIM_M_COUNT; k++)
                    if (k != SIM_M_ITL && strcmp(tok, metric_names[k]) == 0)
                        m = k;
            }
            char *end = NULL;
            double v = colon ? strtod(colon + 1, &end) : NAN;
            if (len >= sizeof tok || m < 0 || !end || end == colon + 1 || *end || !(v > 0.0) ||
                !isfinite(v) || strpbrk(colon + 1, "xX")) /* decimal only, not hexadecimal */
                return sim_fail(err, SIM_EINPUT,
                                "--goodput: '%s' is not KEY:MS, expected ttft:MS, tpot:MS or "
                                "e2el:MS with MS > 0 (e.g. --goodput ttft:500,tpot:50)",
                                s);
            slo->ms[m] = v;
            any = true;
        }
        p += len;
        p += strspn(p, ", ");
    }
    if (!any)
        return sim_fail(err, SIM_EINPUT, "--goodput: empty, expected ttft:MS, tpot:MS or e2el:MS");
    return SIM_OK;
}

sim_status sim_pct_sel_parse(const char *metrics, const char *percentiles, sim_pct_sel *out,
                             sim_err *err)
{
    memset(out, 0, sizeof *out);
    const char *ms = metrics ? metrics : "ttft,tpot,itl";
    for (const char *p = ms; *p;) {
        size_t len = strcspn(p, ",");
        int m = -1;
        for (int k = 0; k < SIM_M_COUNT; k++)
            if (strlen(metric_names[k]) == len && strncmp(p, metric_names[k], len) == 0)
                m = k;
        if (m < 0 || (p[len] == ',' && !p[len + 1]))
            return sim_fail(err, SIM_EINPUT,
                            "--percentile-metrics: value '%s', expected a comma-separated list of "
                            "ttft, tpot, itl, e2el",
                            ms);
        out->metric[m] = true;
        p += len + (p[len] == ',');
    }
    const char *ps = percentiles ? percentiles : "99";
    for (const char *p = ps; *p;) {
        char *end = NULL;
        double v = strtod(p, &end);
        if (end == p || (*end && *end != ',') || (*end == ',' && !end[1]) ||
            !(v >= 0.0 && v <= 100.0) || out->n == SIM_MAX_PCTS ||
            memchr(p, 'x', (size_t)(end - p)) || memchr(p, 'X', (size_t)(end - p)))
            return sim_fail(err, SIM_EINPUT,
                            "--metric-percentiles: value '%s', expected up to %d comma-separated "
                            "numbers in [0, 100] (e.g. 50,90,99)",
                            ps, SIM_MAX_PCTS);
        int i = out->n;
        while (i > 0 && out->p[i - 1] > v) /* insertion keeps them increasing */
            i--;
        if (!(i > 0 && out->p[i - 1] == v)) {
            memmove(&out->p[i + 1], &out->p[i], (size_t)(out->n - i) * sizeof out->p[0]);
            out->p[i] = v;
            out->n++;
        }
        p = *end ? end + 1 : end;
    }
    bool any = false;
    for (int k = 0; k < SIM_M_COUNT; k++)
        any |= out->metric[k];
    if (!any || out->n == 0)
        return sim_fail(err, SIM_EINPUT, "%s: empty, expected at least one value",
                        !any ? "--percentile-metrics" : "--metric-percentiles");
    return SIM_OK;
}

void sim_pct_word(double p, char *buf, size_t len) { snprintf(buf, len, "%.15g", p); }

sim_status sim_metrics_selected(const sim_engine_result *res, const sim_pct_sel *sel,
                                sim_pct_values *out)
{
    memset(out, 0, sizeof *out);
    for (int m = 0; m < SIM_M_COUNT; m++)
        if (sel->metric[m] &&
            sim_metrics_percentiles(res, (sim_metric)m, sel->p, (size_t)sel->n, out->ms[m]))
            return SIM_EINTERNAL;
    return SIM_OK;
}
