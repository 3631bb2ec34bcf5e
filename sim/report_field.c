/* report_field.c - the report module's field machinery, below its tables and writers: a field
 * made, marked with its band, kept or left out by an output's rule, written as CSV or JSON, and
 * the ratios and prices the tables read (report_fields.c, report_run_fields.c, report_step.c
 * above it; report.c and report_serve.c, the writers, above them). It calls none of them. */
#include "report.h"
#include "report_fields_internal.h"
#include "report_internal.h"

#include <math.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "pp.h"
#include "strbuf.h"

/* A row's field before its value is read. */
sim_field sim_report_field_of(const char *key, sim_field_kind kind, int decimals)
{
    sim_field f = {.kind = kind, .decimals = decimals};
    snprintf(f.key, sizeof f.key, "%s", key);
    return f;
}

void sim_report_band_mark(const sim_unc_band *b, sim_field *f, double scale)
{
    double hi;
    const double *lo = f->missing ? NULL : sim_unc_band_get(b, f->key, &hi);
    if (!lo)
        return;
    f->banded = true;
    f->lo = *lo * scale;
    f->hi = hi * scale;
}

size_t sim_report_band_expand(const sim_unc_band *b, sim_field_out which, sim_field *out, size_t n)
{
    if (!b || !b->n ||
        !(which == SIM_FIELDS_JSON || which == SIM_FIELDS_JSON_TAIL || which == SIM_FIELDS_CSV))
        return n;
    /* from the end, so each banded field's two new ones land right after it */
    size_t extra = 0;
    for (size_t i = 0; i < n; i++)
        extra += !out[i].missing && sim_unc_band_get(b, out[i].key, NULL) ? 2 : 0;
    /* what the bands rest on, once, at the end of the JSON's tail and of the CSV row */
    const bool basis = b->basis[0] && (which == SIM_FIELDS_JSON_TAIL || which == SIM_FIELDS_CSV);
    if (n + extra + basis > SIM_FIELDS_MAX)
        return n;
    if (basis) {
        out[n + extra] = sim_report_field_of("band_basis", SIM_FIELD_TEXT, 0);
        out[n + extra].text = b->basis;
    }
    size_t w = n + extra;
    for (size_t i = n; i-- > 0;) {
        double hi;
        const double *lo = out[i].missing ? NULL : sim_unc_band_get(b, out[i].key, &hi);
        if (lo) {
            sim_field h = out[i], l = out[i];
            l.kind = h.kind = SIM_FIELD_NUM;
            snprintf(l.key, sizeof l.key, "%.36s_lo", out[i].key);
            snprintf(h.key, sizeof h.key, "%.36s_hi", out[i].key);
            l.num = *lo;
            h.num = hi;
            out[--w] = h;
            out[--w] = l;
        }
        out[--w] = out[i];
    }
    return n + extra + basis;
}

/* Applies an output's rule to a row read with or without a value; false: leave it out. */
bool sim_report_field_keep(bool present, sim_report_miss miss, sim_field *f)
{
    if (present || miss == SIM_REPORT_MISS_VALUE) /* MISS_VALUE keeps what the row read */
        return true;
    if (miss == SIM_REPORT_MISS_NULL)
        f->missing = true;
    else if (miss == SIM_REPORT_MISS_ZERO)
        f->num = 0.0;
    return miss != SIM_REPORT_MISS_OMIT;
}

double sim_report_ratio(double a, double b) { return b > 0.0 ? a / b : 0.0; }

/* A quoted CSV text field followed by a comma: names come from config files and may hold
 * anything. Returns false when out of memory (nothing written). */
bool sim_report_csv_text(FILE *f, const char *v)
{
    sim_strbuf b = {0};
    sim_strbuf_csv(&b, v, true);
    sim_strbuf_printf(&b, ",");
    bool ok = !b.oom;
    if (ok)
        fputs(b.s, f);
    sim_strbuf_free(&b);
    return ok;
}

/* The CSV header's keys and a row's values, each after a comma: a missing value is empty. */
void sim_report_fields_csv_header(FILE *f, const sim_field *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, ",%s", v[i].key);
    fputc('\n', f);
}

void sim_report_fields_csv(FILE *f, const sim_field *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].missing)
            fputc(',', f);
        else if (v[i].kind == SIM_FIELD_TEXT || v[i].kind == SIM_FIELD_BOOL)
            fprintf(f, ",%s", v[i].text);
        else if (v[i].kind == SIM_FIELD_INT)
            fprintf(f, ",%lld", (long long)v[i].num);
        else
            fprintf(f, ",%.*f", v[i].decimals, v[i].num);
    }
    fputc('\n', f);
}

/* Fields as JSON keys: a missing value is null, an infinite number "inf" (as vLLM's). */
void sim_report_fields_json(cJSON *o, const sim_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (f[i].missing)
            cJSON_AddNullToObject(o, f[i].key);
        else if (f[i].kind != SIM_FIELD_TEXT && isinf(f[i].num))
            cJSON_AddStringToObject(o, f[i].key, "inf");
        else if (f[i].kind == SIM_FIELD_TEXT)
            cJSON_AddStringToObject(o, f[i].key, f[i].text);
        else if (f[i].kind == SIM_FIELD_BOOL)
            cJSON_AddBoolToObject(o, f[i].key, f[i].num != 0.0);
        else
            cJSON_AddNumberToObject(o, f[i].key, f[i].num);
    }
}

bool sim_report_run_price(const sim_run_cfg *cfg, const sim_run_result *r, sim_price *out)
{
    double e2e_s = r->e2e_ns / 1e9;
    double total_tokens = (double)cfg->batch * (double)(cfg->input_len + cfg->output_len);
    return sim_price_compute(sim_pp_gpus(&cfg->step), cfg->usd_per_gpu_hour, r->output_throughput,
                             sim_report_ratio(total_tokens, e2e_s), out);
}

double sim_report_prefix_hit_rate(const sim_engine_result *res)
{
    return res->prefix_query_tokens > 0
               ? (double)res->prefix_hit_tokens / (double)res->prefix_query_tokens
               : 0.0;
}

int64_t sim_report_serve_gpus(const sim_serve_report *r)
{
    return r->gpus > 0 ? r->gpus : sim_pp_gpus(&r->cfg->step);
}

double sim_report_serve_gpu_hours(const sim_serve_report *r)
{
    return r->cluster->held_ns * (double)sim_pp_gpus(&r->cfg->step) / 3.6e12;
}

/* With autoscaling the hourly cost is the GPUs held on average (GPU-hours over the run's hours)
 * and `gpus` the most held at once. */
bool sim_report_serve_price(const sim_serve_report *r, sim_price *out)
{
    bool known = sim_price_compute(sim_report_serve_gpus(r), r->usd_per_gpu_hour,
                                   r->m->output_throughput, r->m->total_token_throughput, out);
    if (known && r->cluster && r->cluster->autoscaled && r->m->duration_s > 0.0) {
        out->usd_per_hour =
            sim_report_serve_gpu_hours(r) * r->usd_per_gpu_hour / (r->m->duration_s / 3600.0);
        out->usd_per_million_output_tokens =
            sim_price_per_million(out->usd_per_hour, r->m->output_throughput);
        out->usd_per_million_total_tokens =
            sim_price_per_million(out->usd_per_hour, r->m->total_token_throughput);
    }
    return known;
}
