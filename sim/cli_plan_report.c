/* cli_plan_report.c - the plan's report: the top deployments of each model on each device by the
 * objective, the overall winner and its launch lines, as a table or JSON (cli_plan.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "unc.h"

/* "3 x TP 4", "TP 8 x PP 2", "DP-attention 8 x EP 8", "2P:3D x TP 4"; a searched fp8 KV cache
 * and speculation after it: "3 x TP 2 +kv fp8 +eagle3:3". */
void cli_plan_layout(const cli_plan_row *r, char *buf, size_t len)
{
    char base[96];
    cli_plan_layout_parallel(r, base, sizeof base);
    snprintf(buf, len, "%s%s%s%s", base, strcmp(r->kv_cache, "fp8") == 0 ? " +kv fp8" : "",
             strcmp(r->spec, "none") != 0 && r->spec[0] ? " +" : "",
             strcmp(r->spec, "none") != 0 ? r->spec : "");
}

void cli_plan_layout_parallel(const cli_plan_row *r, char *buf, size_t len)
{
    char par[64];
    if (r->dp_attention && r->dp > 1)
        snprintf(par, sizeof par, "DP-attn %lld x EP %lld", (long long)r->dp, (long long)r->ep);
    else if (r->ep > 1)
        snprintf(par, sizeof par, "TP %lld + EP %lld", (long long)r->tp, (long long)r->ep);
    else
        snprintf(par, sizeof par, "TP %lld", (long long)r->tp);
    if (r->pp > 1)
        snprintf(par + strlen(par), sizeof par - strlen(par), " x PP %lld", (long long)r->pp);
    if (r->disagg)
        snprintf(buf, len, "%lldP:%lldD x %s", (long long)r->prefill, (long long)r->decode, par);
    else if (r->replicas > 1)
        snprintf(buf, len, "%lld x %s", (long long)r->replicas, par);
    else
        snprintf(buf, len, "%s", par);
}

/* The indices of the rankable rows of (model, hw) best first (at most `top`); returns how many. */
static size_t ranked(const cli_plan_report *rep, const char *model, const char *hw, size_t *idx,
                     size_t top)
{
    size_t n = 0;
    for (size_t i = 0; i < rep->n; i++) {
        const cli_plan_row *r = &rep->rows[i];
        if ((model && strcmp(r->model, model) != 0) || (hw && strcmp(r->hw, hw) != 0) ||
            !cli_plan_rankable(r, rep->objective))
            continue;
        /* insertion into the best `top` (idx[0..n) filled) */
        if (!top)
            break;
        size_t k = n < top ? n++ : top;
        if (k == top && !cli_plan_better(r, &rep->rows[idx[top - 1]], rep->objective))
            continue;
        if (k == top)
            k = top - 1;
        while (k > 0 && cli_plan_better(r, &rep->rows[idx[k - 1]], rep->objective)) {
            idx[k] = idx[k - 1];
            k--;
        }
        idx[k] = i;
    }
    return n;
}

/* The distinct (model, hw) pairs in row order: first indices into pairs. */
static size_t pairs_of(const cli_plan_report *rep, size_t *first)
{
    size_t n = 0;
    for (size_t i = 0; i < rep->n; i++) {
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = !strcmp(rep->rows[first[k]].model, rep->rows[i].model) &&
                   !strcmp(rep->rows[first[k]].hw, rep->rows[i].hw);
        if (!seen)
            first[n++] = i;
    }
    return n;
}

static void count(const cli_plan_report *rep, const char *model, const char *hw,
                  size_t by[CLI_PLAN_STATUS_COUNT])
{
    memset(by, 0, CLI_PLAN_STATUS_COUNT * sizeof *by);
    for (size_t i = 0; i < rep->n; i++)
        if ((!model || !strcmp(rep->rows[i].model, model)) && (!hw || !strcmp(rep->rows[i].hw, hw)))
            by[rep->rows[i].status]++;
}

static char *text_of(sim_strbuf *b)
{
    char *s = b->oom ? NULL : b->s;
    if (!s)
        sim_strbuf_free(b);
    return s ? s : NULL;
}

static cJSON *launch_json(const cli_plan_row *r, const cli_plan_bench *bench)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *serve = cJSON_AddArrayToObject(j, "serve");
    for (int w = 0; w < (r->disagg ? 2 : 1); w++) {
        sim_strbuf b = {0};
        cli_plan_launch_serve(r, w, &b);
        char *s = text_of(&b);
        cJSON_AddItemToArray(serve, cJSON_CreateString(s ? s : ""));
        free(s);
    }
    sim_strbuf b = {0};
    cli_plan_launch_notes(r, &b);
    cJSON *notes = cJSON_AddArrayToObject(j, "notes");
    for (char *p = b.s, *e; p && *p; p = e + 1) {
        e = strchr(p, '\n');
        if (!e)
            break;
        *e = '\0';
        cJSON_AddItemToArray(notes, cJSON_CreateString(p));
    }
    sim_strbuf_free(&b);
    cli_plan_launch_bench(r, bench, &b);
    char *s = text_of(&b);
    cJSON_AddStringToObject(j, "bench", s ? s : "");
    free(s);
    return j;
}

static cJSON *row_json(const cli_plan_row *r, const cli_plan_bench *bench,
                       cli_plan_objective obj)
{
    char *t = cli_plan_row_json(r);
    cJSON *j = t ? cJSON_Parse(t) : NULL;
    free(t);
    if (!j)
        return NULL;
    char lay[CLI_PLAN_LAYOUT_LEN];
    cli_plan_layout(r, lay, sizeof lay);
    cJSON_AddStringToObject(j, "layout", lay);
    cJSON_AddItemToObject(j, "launch", launch_json(r, bench));
    double lo, hi;
    if (cli_plan_objective_band(r, obj, &lo, &hi)) {
        cJSON_AddNumberToObject(j, "objective_lo", lo);
        if (isinf(hi))
            cJSON_AddStringToObject(j, "objective_hi", "inf");
        else
            cJSON_AddNumberToObject(j, "objective_hi", hi);
    }
    return j;
}

/* The winner and the runner-up over every device (idx room for 2); false without a winner. */
static bool top_two(const cli_plan_report *rep, size_t *idx, size_t *n)
{
    *n = ranked(rep, NULL, NULL, idx, 2);
    return *n > 0;
}

/* The decision between the winner and the runner-up over the draws (false: none to say). */
static bool decide(const cli_plan_report *rep, const size_t *idx, size_t n, double *p, bool *tie)
{
    return n == 2 &&
           cli_plan_decision(&rep->rows[idx[0]], &rep->rows[idx[1]], rep->objective, p, tie);
}

/* How the runner-up is named in the decision's sentence. */
static void runner_name(const cli_plan_row *u, char *buf, size_t len)
{
    char lay[CLI_PLAN_LAYOUT_LEN];
    cli_plan_layout(u, lay, sizeof lay);
    snprintf(buf, len, "point %lld (%s on %s, %s %s, %s)", (long long)u->point, u->model, u->hw,
             u->engine, u->precision, lay);
}

static sim_status write_json(FILE *f, const cli_plan_report *rep, size_t *idx, size_t *first,
                             size_t np)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "request_rate", rep->rate);
    if (rep->rate_low > 0.0)
        cJSON_AddNumberToObject(j, "request_rate_low", rep->rate_low);
    cJSON_AddStringToObject(j, "objective", cli_plan_objective_name(rep->objective));
    cJSON_AddStringToObject(j, "slo_form", rep->goodput ? "goodput" : "percentile");
    cJSON_AddNumberToObject(j, "slo_percentile", rep->bench.pct);
    cJSON *slo = cJSON_AddObjectToObject(j, "slo");
    for (int m = 0; m < SIM_M_COUNT; m++)
        if (rep->slo.ms[m] > 0.0) {
            char k[32];
            snprintf(k, sizeof k, "%s_ms", sim_metric_name((sim_metric)m));
            cJSON_AddNumberToObject(slo, k, rep->slo.ms[m]);
        }
    size_t by[CLI_PLAN_STATUS_COUNT];
    count(rep, NULL, NULL, by);
    cJSON_AddNumberToObject(j, "candidates", (double)rep->n);
    cJSON *cj = cJSON_AddObjectToObject(j, "by_status");
    for (int s = 0; s < CLI_PLAN_STATUS_COUNT; s++)
        cJSON_AddNumberToObject(cj, cli_plan_status_name((cli_plan_status)s), (double)by[s]);
    cJSON *devs = cJSON_AddArrayToObject(j, "devices");
    for (size_t p = 0; p < np; p++) {
        const cli_plan_row *r0 = &rep->rows[first[p]];
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "model", r0->model);
        cJSON_AddStringToObject(d, "hw", r0->hw);
        count(rep, r0->model, r0->hw, by);
        cJSON_AddNumberToObject(d, "candidates", (double)(by[0] + by[1] + by[2] + by[3] + by[4]));
        cJSON_AddNumberToObject(d, "ok", (double)by[CLI_PLAN_OK]);
        cJSON *top = cJSON_AddArrayToObject(d, "top");
        size_t n = ranked(rep, r0->model, r0->hw, idx, (size_t)rep->top);
        for (size_t k = 0; k < n; k++)
            cJSON_AddItemToArray(top, row_json(&rep->rows[idx[k]], &rep->bench, rep->objective));
        cJSON_AddItemToArray(devs, d);
    }
    size_t n, two[2];
    if (top_two(rep, two, &n)) {
        cJSON *w = row_json(&rep->rows[two[0]], &rep->bench, rep->objective);
        double p;
        bool tie;
        if (w && decide(rep, two, n, &p, &tie)) { /* the sweep's decision keys */
            cJSON_AddStringToObject(w, "decision", "winner");
            cJSON_AddNumberToObject(w, "beat_probability", p);
            cJSON_AddBoolToObject(w, "decision_tie", tie);
            cJSON_AddNumberToObject(w, "decision_versus_point", (double)rep->rows[two[1]].point);
            sim_strbuf b = {0};
            cli_plan_report_decision(rep, &b);
            cJSON_AddStringToObject(w, "decision_text", b.s && !b.oom ? b.s : "");
            sim_strbuf_free(&b);
        }
        cJSON_AddItemToObject(j, "winner", w);
    } else {
        cJSON_AddNullToObject(j, "winner");
    }
    cJSON *rows = cJSON_AddArrayToObject(j, "rows");
    for (size_t i = 0; i < rep->n; i++) {
        char *t = cli_plan_row_json(&rep->rows[i]);
        cJSON_AddItemToArray(rows, t ? cJSON_Parse(t) : cJSON_CreateNull());
        free(t);
    }
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    if (!text)
        return SIM_EINTERNAL;
    fprintf(f, "%s\n", text);
    free(text);
    return SIM_OK;
}

/* A rate range's columns: GPUs at the range's bottom, the highest rate the fleet meets. */
static void print_range(FILE *f, const cli_plan_row *r)
{
    char mx[32];
    if (isinf(r->max_request_rate))
        snprintf(mx, sizeof mx, "inf");
    else
        snprintf(mx, sizeof mx, "%.2f", r->max_request_rate);
    fprintf(f, " %9lld %9s", (long long)r->gpus_at_rate_low, mx);
}

static void print_row(FILE *f, size_t rank, const cli_plan_row *r, bool bands, bool range)
{
    char lay[CLI_PLAN_LAYOUT_LEN], usd[32], mtok[32];
    cli_plan_layout(r, lay, sizeof lay);
    snprintf(usd, sizeof usd, r->usd_per_hour > 0 ? "%.2f" : "-", r->usd_per_hour);
    snprintf(mtok, sizeof mtok, r->usd_per_hour > 0 ? "%.3f" : "-",
             r->usd_per_million_output_tokens);
    fprintf(f, "%3zu %-7s %-7s %-24s %5lld %8s %8s %7.2f %9.1f %9.2f %8.0f%%", rank, r->engine,
            r->precision, lay, (long long)r->gpus, usd, mtok, r->request_throughput,
            r->p_ms[SIM_M_TTFT], r->p_ms[SIM_M_TPOT], 100.0 * r->headroom);
    if (bands && r->band_draws > 0) {
        char t[48], p[48];
        snprintf(t, sizeof t, "%.0f-%.0f", r->p_lo[SIM_M_TTFT], r->p_hi[SIM_M_TTFT]);
        snprintf(p, sizeof p, "%.1f-%.1f", r->p_lo[SIM_M_TPOT], r->p_hi[SIM_M_TPOT]);
        fprintf(f, " %13s %11s %7.0f%%", t, p, 100.0 * r->slo_met_probability);
    }
    if (range && r->gpus_at_rate_low > 0)
        print_range(f, r);
    fprintf(f, "\n");
}

/* Whether any row the report ranks has bands. */
static bool any_bands(const cli_plan_report *rep)
{
    for (size_t i = 0; i < rep->n; i++)
        if (rep->rows[i].band_draws > 0)
            return true;
    return false;
}

static void write_table(FILE *f, const cli_plan_report *rep, size_t *idx, size_t *first, size_t np)
{
    char w[32];
    sim_pct_word(rep->bench.pct, w, sizeof w);
    char rt[96];
    if (rep->rate_low > 0.0)
        snprintf(rt, sizeof rt, "%g-%g req/s (sized for %g)", rep->rate_low, rep->rate, rep->rate);
    else
        snprintf(rt, sizeof rt, "%g req/s", rep->rate);
    fprintf(f, "============ Plan: %s, SLO %s (%s p%s), objective %s ============\n", rt,
            rep->slo_text, rep->goodput ? "goodput" : "each metric at", w,
            cli_plan_objective_name(rep->objective));
    const bool bands = any_bands(rep), range = rep->rate_low > 0.0;
    size_t by[CLI_PLAN_STATUS_COUNT];
    count(rep, NULL, NULL, by);
    fprintf(f,
            "%zu candidates: %zu serve the rate under the SLO, %zu do not fit or load, %zu miss "
            "it with one request alone, %zu miss it at every replica count or P:D tried, %zu "
            "would exceed --max-gpus\n",
            rep->n, by[CLI_PLAN_OK], by[CLI_PLAN_UNFIT], by[CLI_PLAN_ALONE], by[CLI_PLAN_MISSED],
            by[CLI_PLAN_TOO_BIG]);
    for (size_t p = 0; p < np; p++) {
        const cli_plan_row *r0 = &rep->rows[first[p]];
        size_t n = ranked(rep, r0->model, r0->hw, idx, (size_t)rep->top);
        fprintf(f, "\n--- %s on %s: top %zu by %s ---\n", r0->model, r0->hw, n,
                cli_plan_objective_name(rep->objective));
        if (!n) {
            fprintf(f, "  no deployment serves %s under the SLO\n", rt);
            continue;
        }
        fprintf(f, "%3s %-7s %-7s %-24s %5s %8s %8s %7s %9s %9s %9s", "#", "engine", "prec",
                "layout", "GPUs", "$/hour", "$/Mtok", "req/s", "TTFT ms", "TPOT ms", "headroom");
        if (bands)
            fprintf(f, " %13s %11s %8s", "TTFT 80 %", "TPOT 80 %", "SLO held");
        if (range) {
            char h[32];
            snprintf(h, sizeof h, "GPUs@%g", rep->rate_low);
            fprintf(f, " %9s %9s", h, "max req/s");
        }
        fprintf(f, "\n");
        for (size_t k = 0; k < n; k++)
            print_row(f, k + 1, &rep->rows[idx[k]], bands, range);
    }
    size_t n, two[2];
    if (!top_two(rep, two, &n)) {
        fprintf(f, "\nNo deployment serves %s under the SLO%s.\n", rt,
                rep->objective == CLI_PLAN_COST ? " with a known price" : "");
        return;
    }
    const cli_plan_row *r = &rep->rows[two[0]];
    char lay[CLI_PLAN_LAYOUT_LEN];
    cli_plan_layout(r, lay, sizeof lay);
    fprintf(f, "\nWinner: %s on %s, %s (%s precision), %s: %lld GPUs", r->model, r->hw,
            r->engine, r->precision, lay, (long long)r->gpus);
    if (r->usd_per_hour > 0)
        fprintf(f, ", $%.2f/hour, $%.3f per million output tokens", r->usd_per_hour,
                r->usd_per_million_output_tokens);
    fprintf(f, "; p%s TTFT %.1f ms, TPOT %.2f ms (%.0f%% headroom)\n", w, r->p_ms[SIM_M_TTFT],
            r->p_ms[SIM_M_TPOT], 100.0 * r->headroom);
    if (range && r->gpus_at_rate_low > 0) {
        char lo[CLI_PLAN_LAYOUT_LEN];
        cli_plan_row low = *r;
        low.replicas = r->replicas_at_rate_low;
        low.prefill = r->prefill_at_rate_low;
        low.decode = r->decode_at_rate_low;
        cli_plan_layout(&low, lo, sizeof lo);
        fprintf(f, "  At %g req/s: %s, %lld GPUs; the %lld GPUs meet the SLO up to ", rep->rate_low,
                lo, (long long)r->gpus_at_rate_low, (long long)r->gpus);
        if (isinf(r->max_request_rate))
            fprintf(f, "any rate\n");
        else
            fprintf(f, "%.2f req/s\n", r->max_request_rate);
    }
    if (r->band_draws > 0) {
        fprintf(f, "  80 %%: TTFT %.1f-%.1f ms, TPOT %.2f-%.2f ms", r->p_lo[SIM_M_TTFT],
                r->p_hi[SIM_M_TTFT], r->p_lo[SIM_M_TPOT], r->p_hi[SIM_M_TPOT]);
        if (r->usd_per_hour > 0)
            fprintf(f, ", $%.3f-%.3f per million output tokens",
                    r->usd_per_million_output_tokens_lo, r->usd_per_million_output_tokens_hi);
        fprintf(f, "; meets the SLO in %.0f%% of %lld parameter draws\n",
                100.0 * r->slo_met_probability, (long long)r->band_draws);
        sim_strbuf b = {0};
        if (cli_plan_report_decision(rep, &b))
            fprintf(f, "  Decision (%s): %s\n", cli_plan_objective_name(rep->objective),
                    b.s && !b.oom ? b.s : "");
        sim_strbuf_free(&b);
        fprintf(f, "  Bands (80 %%) rest on: %s\n", r->band_basis);
    }
    fprintf(f, "\nLaunch it:\n");
    for (int k = 0; k < (r->disagg ? 2 : 1); k++) {
        sim_strbuf b = {0};
        cli_plan_launch_serve(r, k, &b);
        fprintf(f, "  %s\n", b.s ? b.s : "");
        sim_strbuf_free(&b);
    }
    sim_strbuf b = {0};
    cli_plan_launch_notes(r, &b);
    for (char *p = b.s, *e; p && *p && (e = strchr(p, '\n')); p = e + 1)
        fprintf(f, "  # %.*s\n", (int)(e - p), p);
    sim_strbuf_free(&b);
    fprintf(f, "Measure it:\n");
    cli_plan_launch_bench(r, &rep->bench, &b);
    fprintf(f, "  %s\n", b.s ? b.s : "");
    sim_strbuf_free(&b);
}

/* One CSV field: a string quoted when it holds a comma, a quote or a line break; a number as
 * %.10g (a bool as true/false, the row's "inf" as inf); empty when absent. */
static void csv_field(FILE *f, const cJSON *v)
{
    if (cJSON_IsString(v)) {
        const char *t = v->valuestring;
        if (!strpbrk(t, ",\"\n\r")) {
            fputs(t, f);
            return;
        }
        fputc('"', f);
        for (; *t; t++) {
            if (*t == '"')
                fputc('"', f);
            fputc(*t, f);
        }
        fputc('"', f);
    } else if (cJSON_IsBool(v)) {
        fputs(cJSON_IsTrue(v) ? "true" : "false", f);
    } else if (cJSON_IsNumber(v)) {
        fprintf(f, "%.10g", v->valuedouble);
    }
}

/* --format csv: one line per candidate in point order, the row's keys (the draws' arrays left
 * out), with bands the objective's band and the decision's columns as a sweep writes them. */
static sim_status write_csv(FILE *f, const cli_plan_report *rep)
{
    const bool bands = any_bands(rep);
    cli_plan_row *t = calloc(1, sizeof *t); /* the keys, from a row of the same kind */
    if (!t)
        return SIM_EINTERNAL;
    t->band_draws = bands ? 1 : 0;
    char *tt = cli_plan_row_json(t);
    free(t);
    cJSON *keys = tt ? cJSON_Parse(tt) : NULL;
    free(tt);
    if (!keys)
        return SIM_EINTERNAL;
    size_t n = 0, two[2];
    top_two(rep, two, &n);
    double p = 0.5;
    bool tie = false;
    const bool has = decide(rep, two, n, &p, &tie);
    bool first = true;
    for (const cJSON *k = keys->child; k; k = k->next)
        if (!cJSON_IsArray(k))
            fprintf(f, "%s%s", first ? "" : ",", k->string), first = false;
    if (bands)
        fprintf(f, ",objective_lo,objective_hi,decision,beat_probability,decision_tie,"
                   "decision_versus_point");
    fprintf(f, "\n");
    sim_status st = SIM_OK;
    for (size_t i = 0; i < rep->n && !st; i++) {
        const cli_plan_row *r = &rep->rows[i];
        char *rt = cli_plan_row_json(r);
        cJSON *row = rt ? cJSON_Parse(rt) : NULL;
        free(rt);
        if (!row) {
            st = SIM_EINTERNAL;
            break;
        }
        first = true;
        for (const cJSON *k = keys->child; k; k = k->next) {
            if (cJSON_IsArray(k))
                continue;
            if (!first)
                fputc(',', f);
            first = false;
            csv_field(f, cJSON_GetObjectItemCaseSensitive(row, k->string));
        }
        cJSON_Delete(row);
        if (bands) {
            double lo, hi;
            if (cli_plan_objective_band(r, rep->objective, &lo, &hi))
                fprintf(f, ",%.10g,%.10g", lo, hi);
            else
                fprintf(f, ",,");
            const bool w = has && i == two[0], u = has && i == two[1];
            if (w || u)
                fprintf(f, ",%s,%.4g,%s,%lld", w ? "winner" : "runner_up", w ? p : 1.0 - p,
                        tie ? "true" : "false", (long long)rep->rows[w ? two[1] : two[0]].point);
            else
                fprintf(f, ",,,,");
        }
        fprintf(f, "\n");
    }
    cJSON_Delete(keys);
    return st;
}

bool cli_plan_report_decision(const cli_plan_report *rep, sim_strbuf *out)
{
    size_t n, two[2];
    double p;
    bool tie;
    if (!top_two(rep, two, &n) || !decide(rep, two, n, &p, &tie))
        return false;
    char other[512];
    runner_name(&rep->rows[two[1]], other, sizeof other);
    sim_unc_decision_text(p, tie, (int)rep->rows[two[0]].band_draws, other, out);
    return true;
}

sim_status cli_plan_report_write(FILE *f, const cli_plan_report *rep, sim_err *err)
{
    size_t *idx = calloc((size_t)rep->top + 1, sizeof *idx);
    size_t *first = calloc(rep->n + 1, sizeof *first);
    sim_status st = idx && first ? SIM_OK : sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!st) {
        size_t np = pairs_of(rep, first);
        if (rep->json)
            st = write_json(f, rep, idx, first, np);
        else if (rep->csv)
            st = write_csv(f, rep);
        else
            write_table(f, rep, idx, first, np);
        if (st)
            st = sim_fail(err, SIM_EINTERNAL, "out of memory writing the plan");
    }
    free(idx);
    free(first);
    if (!st && ferror(f))
        st = sim_fail(err, SIM_EINTERNAL, "writing the plan failed");
    return st;
}
