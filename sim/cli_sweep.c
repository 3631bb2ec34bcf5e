/* cli_sweep.c - the sweep command: run or serve over a grid of flag values, points in parallel. */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_grid.h"
#include "cli_point.h"
#include "cli_sweep_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "html.h"
#include "outfile.h"
#include "pp.h"
#include "rng.h"
#include "strbuf.h"
#include "sweep.h"
#include "validate.h"

/* ------------------------------------------------------------------------------------------ */
/* sweep: the run or serve command over a grid of flag values, points in parallel */


/* A point's flags: the command's defaults, then each dimension's value. */
static sim_status point_opts(const sweep_ctx *c, size_t point, cli_opts *o, sim_err *err)
{
    const char *vals[CLI_GRID_MAX_DIMS];
    sim_grid_point(c->g, point, vals);
    *o = cli_opt_defaults;
    for (size_t d = 0; d < c->g->n_dims; d++) {
        const char *name = c->g->dims[d].name;
        const cli_opt_def *def = cli_opt_find(name, c->mask);
        if (!def)
            return sim_fail(err, SIM_EINTERNAL, "%s: not a flag of this command", name);
        if (def->kind == CLI_OPT_BOOL) {
            if (strcmp(vals[d], "false") == 0)
                continue;
            if (strcmp(vals[d], "true") != 0)
                return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected true or false", name,
                                vals[d]);
        }
        o->given[def - cli_opt_table] = true;
        sim_status st = cli_opt_parse_value(def, def->kind == CLI_OPT_BOOL ? "" : vals[d], o, err);
        if (!st && o->rate_low > 0.0)
            st = sim_fail(err, SIM_EINPUT,
                          "%s: value '%s', a range LO:HI is plan's; expected a number > 0 or inf "
                          "(a sweep takes a list: 5,10,20)",
                          name, vals[d]);
        if (st)
            return st;
    }
    return SIM_OK;
}

/* "1" for a number, "\"x\"" otherwise: how a JSONL row writes a swept value. */
static bool is_number(const char *v)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    return end != v && !*end && !errno && isfinite(x);
}

/* Metric columns: a sweep row's fields, from report's tables (report.h). */
static size_t run_metrics(const sim_run_cfg *cfg, const sim_run_result *r, sim_field *m)
{
    return sim_report_run_fields(cfg, r, SIM_FIELDS_SWEEP, m);
}

static sim_serve_report serve_report(const cli_point_serve_state *s)
{
    return (sim_serve_report){
        .cfg = &s->cfg, .m = &s->m, .usd_per_gpu_hour = s->usd_per_gpu_hour, .gpus = s->gpus};
}

static size_t serve_metrics(const cli_point_serve_state *s, sim_field *m)
{
    sim_serve_report rep = serve_report(s);
    return sim_report_serve_fields(&rep, SIM_FIELDS_SWEEP, m);
}

/* The metric names of a command (from a zeroed result), for the header. */
static size_t metric_names(int mask, sim_field *m)
{
    static const sim_run_result r0;
    static const cli_point_serve_state s0 = {.cfg = {.step = {.tp = 1}}};
    static const sim_run_cfg c0 = {.step = {.tp = 1}};
    return mask == CLI_OPT_CMD_RUN ? run_metrics(&c0, &r0, m) : serve_metrics(&s0, m);
}

/* A dimension shows as a column when it has more than one value. */
static bool shown(const sim_grid_dim *d) { return d->n > 1; }

/* Where the band columns go among the metrics: before the device's hw_efficiency (which ends
 * the metrics, before error), else after the last metric. */
static size_t band_at(const sim_field *m, size_t nm)
{
    size_t k = 0;
    while (k < nm && strcmp(m[k].key, "hw_efficiency") != 0)
        k++;
    return k;
}

/* The band columns of a headline metric: its 10th and 90th percentiles, or empty. */
static void band_cols(const sweep_ctx *c, const sim_field *m, size_t nm, const sim_unc_band *band,
                      const char *error, sim_strbuf *b)
{
    for (size_t k = 0; c->bands && k < nm; k++) {
        if (!cli_point_band_key(c->mask == CLI_OPT_CMD_SERVE, m[k].key))
            continue;
        double hi;
        const double *lo = error ? NULL : sim_unc_band_get(band, m[k].key, &hi);
        if (c->jsonl && lo)
            sim_strbuf_printf(b, ",\"%s_lo\":%.10g,\"%s_hi\":%.10g", m[k].key, *lo, m[k].key, hi);
        else if (c->jsonl)
            sim_strbuf_printf(b, ",\"%s_lo\":null,\"%s_hi\":null", m[k].key, m[k].key);
        else if (lo)
            sim_strbuf_printf(b, ",%.10g,%.10g", *lo, hi);
        else
            sim_strbuf_printf(b, ",,");
    }
}

static void row_text(const sweep_ctx *c, size_t point, const sim_field *m, size_t nm, bool meets,
                     const char *error, const sim_unc_band *band, sim_strbuf *b)
{
    const char *vals[CLI_GRID_MAX_DIMS];
    sim_grid_point(c->g, point, vals);
    if (c->jsonl) {
        sim_strbuf_printf(b, "{\"point\":%zu", point);
        for (size_t d = 0; d < c->g->n_dims; d++) {
            if (!shown(&c->g->dims[d]))
                continue;
            sim_strbuf_printf(b, ",");
            sim_strbuf_json_str(b, c->g->dims[d].name + 2);
            sim_strbuf_printf(b, ":");
            if (is_number(vals[d]))
                sim_strbuf_printf(b, "%s", vals[d]);
            else
                sim_strbuf_json_str(b, vals[d]);
        }
        const size_t at = band_at(m, nm);
        for (size_t k = 0; k <= nm; k++) {
            if (k == at)
                band_cols(c, m, nm, band, error, b);
            if (k == nm || error)
                continue;
            sim_strbuf_printf(b, ",\"%s\":", m[k].key);
            if (m[k].missing)
                sim_strbuf_printf(b, "null");
            else if (m[k].kind == SIM_FIELD_TEXT)
                sim_strbuf_json_str(b, m[k].text);
            else
                sim_strbuf_printf(b, "%.10g", isfinite(m[k].num) ? m[k].num : 0.0);
        }
        if (c->has_slo)
            sim_strbuf_printf(b, ",\"meets_slo\":%s", meets ? "true" : "false");
        sim_strbuf_printf(b, ",\"error\":");
        if (error)
            sim_strbuf_json_str(b, error);
        else
            sim_strbuf_printf(b, "null");
        if (c->bands) {
            sim_strbuf_printf(b, ",\"band_basis\":");
            if (!error && band && band->basis[0])
                sim_strbuf_json_str(b, band->basis);
            else
                sim_strbuf_printf(b, "null");
        }
        sim_strbuf_printf(b, "}\n");
        return;
    }
    sim_strbuf_printf(b, "%zu", point);
    for (size_t d = 0; d < c->g->n_dims; d++) {
        if (!shown(&c->g->dims[d]))
            continue;
        sim_strbuf_printf(b, ",");
        sim_strbuf_csv(b, vals[d], false);
    }
    const size_t at = band_at(m, nm);
    for (size_t k = 0; k <= nm; k++) {
        if (k == at)
            band_cols(c, m, nm, band, error, b);
        if (k == nm)
            break;
        if (error || m[k].missing)
            sim_strbuf_printf(b, ",");
        else if (m[k].kind == SIM_FIELD_TEXT)
            sim_strbuf_printf(b, ",%s", m[k].text);
        else
            sim_strbuf_printf(b, ",%.10g", isfinite(m[k].num) ? m[k].num : 0.0);
    }
    if (c->has_slo)
        sim_strbuf_printf(b, ",%s", error ? "" : meets ? "true" : "false");
    sim_strbuf_printf(b, ",");
    if (error)
        sim_strbuf_csv(b, error, false);
    if (c->bands) {
        sim_strbuf_printf(b, ",");
        if (!error && band && band->basis[0])
            sim_strbuf_csv(b, band->basis, false);
    }
    sim_strbuf_printf(b, "\n");
}

/* Whether a point meets the SLO at the chosen percentile, and its TPOT there. */
static bool meets_slo(const sweep_ctx *c, double ttft, double tpot, double e2el)
{
    const double *slo = c->slo.ms;
    return (slo[SIM_M_TTFT] <= 0 || ttft <= slo[SIM_M_TTFT]) &&
           (slo[SIM_M_TPOT] <= 0 || tpot <= slo[SIM_M_TPOT]) &&
           (slo[SIM_M_E2EL] <= 0 || e2el <= slo[SIM_M_E2EL]);
}

static double at_pct(const sim_dist *d, int pct)
{
    return pct == 50 ? d->median : pct == 99 ? d->p99 : d->p90;
}

/* Evaluates one point (any thread): run or serve, into a formatted row. */
static void sweep_eval(void *vctx, size_t point, sim_sweep_row *row)
{
    const sweep_ctx *c = vctx;
    size_t k = (point - c->shard.index) / c->shard.count;
    const cli_opts *o = &c->opts[k];
    sim_err err = c->opt_err[k];
    sim_status st = c->opt_st[k];
    sim_field m[SIM_FIELDS_MAX];
    size_t nm = metric_names(c->mask, m);
    sim_strbuf b = {0};
    cli_load_result *L = cli_load_result_new();
    if (!L)
        return;
    double ttft = 0, tpot = 0, e2el = 0;
    cli_point_draws d = {0};
    double gpus = 1.0;
    if (!st && c->mask == CLI_OPT_CMD_RUN) {
        sim_run_result *r = malloc(sizeof *r); /* sim_run_simulate writes it whole */
        sim_run_cfg cfg;
        /* the thread's decode steps, kept along --output-len (the same deployment, batch and
         * prompt: every other coordinate of the point the same) */
        sweep_decode *dc = c->decode && row->thread < c->n_decode ? &c->decode[row->thread] : NULL;
        const size_t group = point - point / c->out_stride % c->out_n * c->out_stride;
        if (dc && dc->group != group) {
            dc->run.valid = false;
            dc->group = group;
        }
        st = r ? cli_point_run_decode(o, L, &c->cache, dc ? &dc->run : NULL, &cfg, r, &err)
               : SIM_EINTERNAL;
        if (!st)
            st = cli_point_run_band(o, L, &cfg, &d, &err);
        if (!st) {
            gpus = (double)sim_pp_gpus(&cfg.step);
            nm = run_metrics(&cfg, r, m);
            ttft = r->ttft_ns / 1e6;
            tpot = r->tpot_ns / 1e6;
            e2el = r->e2e_ns / 1e6;
            row->tput_per_gpu = r->output_throughput / (double)sim_pp_gpus(&cfg.step);
            row->ttft_ms = ttft;
            row->hw_default_only = sim_hw_default_only(cfg.step.hw);
            sim_price p;
            if (sim_report_run_price(&cfg, r, &p))
                row->usd_per_million_output_tokens = p.usd_per_million_output_tokens;
            row->joules_per_output_token = r->power.joules_per_output_token;
        }
        free(r);
    } else if (!st) {
        cli_point_serve_state *s = calloc(1, sizeof *s);
        /* every point serves the same arrivals and lengths (common random numbers): --seed's */
        st = s ? cli_point_serve(o, L, &c->cache, (uint64_t)o->seed, s, &err) : SIM_EINTERNAL;
        if (!st)
            st = cli_point_serve_band(o, L, s, &d, &err);
        if (!st) {
            gpus = (double)cli_point_serve_gpus(s);
            nm = serve_metrics(s, m);
            ttft = at_pct(&s->m.dist[SIM_M_TTFT], c->pct);
            tpot = at_pct(&s->m.dist[SIM_M_TPOT], c->pct);
            e2el = at_pct(&s->m.dist[SIM_M_E2EL], c->pct);
            row->tput_per_gpu = s->m.output_throughput / (double)cli_point_serve_gpus(s);
            row->ttft_ms = ttft;
            row->hw_default_only = sim_hw_default_only(s->cfg.step.hw);
            sim_price p;
            sim_serve_report rep = serve_report(s);
            if (sim_report_serve_price(&rep, &p))
                row->usd_per_million_output_tokens = p.usd_per_million_output_tokens;
            if (s->m.has_power)
                row->joules_per_output_token =
                    sim_power_totals_of(s->m.idle_w, s->m.active_j, s->m.duration_s,
                                        (double)cli_point_serve_gpus(s),
                                        (double)s->m.total_output_tokens)
                        .joules_per_output_token;
        }
        if (s)
            cli_point_serve_free(s);
        free(s);
    }
    free(L);
    /* the objective under each draw, for the decision's probability */
    const double *obj = cli_point_draws_of(&d, c->min_cost     ? "usd_per_million_output_tokens"
                                               : c->min_energy ? "joules_per_output_token"
                                                               : "output_throughput");
    if (!st && obj && (row->draws = malloc((size_t)d.n * sizeof *row->draws))) {
        row->n_draws = d.n;
        for (int i = 0; i < d.n; i++)
            row->draws[i] = c->min_cost || c->min_energy ? obj[i] : obj[i] / gpus;
    }
    if (!st && c->min_cost && row->usd_per_million_output_tokens <= 0.0)
        st = sim_fail(&err, SIM_EINPUT,
                      "--objective cost: no price for this point's device (its file has no "
                      "usd_per_gpu_hour); give --usd-per-gpu-hour");
    if (!st && c->min_energy && row->joules_per_output_token <= 0.0)
        st = sim_fail(&err, SIM_EINPUT,
                      "--objective energy: no power for this point's device (its file has no "
                      "power.tdp_w), expected a device file with power.tdp_w and power.idle_w");
    row->ok = st == SIM_OK;
    row->tpot_ms = tpot;
    row->meets_slo = row->ok && c->has_slo && meets_slo(c, ttft, tpot, e2el);
    row_text(c, point, m, nm, row->meets_slo, st ? (err.msg[0] ? err.msg : "internal error") : NULL,
             &d.band, &b);
    cli_point_draws_free(&d);
    if (b.oom) {
        free(b.s);
        b.s = NULL;
    }
    row->text = b.s;
}

/* Resolves and loads, serially, every name and file the shard's points name (the points ask
 * the file system nothing). */
static sim_status sweep_prepare(sweep_ctx *c, size_t n, sim_err *err)
{
    for (size_t k = 0; k < n; k++) {
        size_t point = sim_grid_shard_point(&c->shard, k);
        c->opt_st[k] = point_opts(c, point, &c->opts[k], &c->opt_err[k]);
        if (c->opt_st[k])
            continue;
        const cli_opts *o = &c->opts[k];
        const bool serve = c->mask == CLI_OPT_CMD_SERVE;
        sim_status st =
            cli_load_cache_prepare(&c->cache, o, serve, cli_point_draw_count(o, serve) > 0);
        if (st)
            return sim_fail(err, SIM_EINTERNAL, "out of memory loading the sweep's files");
    }
    return SIM_OK;
}

/* " [default-only]" after a point whose device has no measured efficiency */
static const char *mark(const sim_sweep_row *r)
{
    return r->hw_default_only ? " [default-only]" : "";
}

static void sweep_summary(FILE *f, const sweep_ctx *c, const sim_sweep_row *rows, size_t n)
{
    size_t ok = 0, meet = 0;
    for (size_t i = 0; i < n; i++) {
        ok += rows[i].ok;
        meet += rows[i].meets_slo;
    }
    fprintf(f, "sweep: %zu points (shard %zu/%zu of %zu), %zu ok, %zu invalid", n, c->shard.index,
            c->shard.count, sim_grid_points(c->g), ok, n - ok);
    if (c->has_slo)
        fprintf(f, ", %zu meet the SLO (p%d)", meet, c->pct);
    fputc('\n', f);
    size_t guessed = 0;
    for (size_t i = 0; i < n; i++)
        guessed += rows[i].ok && rows[i].hw_default_only;
    if (guessed)
        fprintf(f,
                "%zu points on devices with default-only efficiencies (hw_efficiency "
                "default-only, marked [default-only]): architecture guesses, no measurement\n",
                guessed);
    char label[1024];
    if (c->min_cost) {
        const char *what = c->has_slo ? "cheapest under the SLO" : "cheapest";
        size_t b = sim_sweep_cheapest(rows, n, c->has_slo);
        if (b < n) {
            sim_grid_label(c->g, rows[b].point, label, sizeof label);
            fprintf(f,
                    "%s: point %zu (%s): $%.4f per million output tokens, %.1f output tok/s "
                    "per GPU, TPOT %.2f ms%s\n",
                    what, rows[b].point, label, rows[b].usd_per_million_output_tokens,
                    rows[b].tput_per_gpu, rows[b].tpot_ms, mark(&rows[b]));
        } else {
            fprintf(f, "%s: none%s\n", what, c->has_slo ? " meets it" : "");
        }
    } else if (c->min_energy) {
        const char *what = c->has_slo ? "least energy under the SLO" : "least energy";
        size_t b = sim_sweep_least_energy(rows, n, c->has_slo);
        if (b < n) {
            sim_grid_label(c->g, rows[b].point, label, sizeof label);
            fprintf(f,
                    "%s: point %zu (%s): %.4f J per output token (estimate), %.1f output tok/s "
                    "per GPU, TPOT %.2f ms\n",
                    what, rows[b].point, label, rows[b].joules_per_output_token,
                    rows[b].tput_per_gpu, rows[b].tpot_ms);
        } else {
            fprintf(f, "%s: none%s\n", what, c->has_slo ? " meets it" : "");
        }
    } else if (c->has_slo) {
        size_t b = sim_sweep_best(rows, n);
        if (b < n) {
            sim_grid_label(c->g, rows[b].point, label, sizeof label);
            fprintf(f,
                    "best under the SLO: point %zu (%s): %.1f output tok/s per GPU, TPOT %.2f "
                    "ms%s\n",
                    rows[b].point, label, rows[b].tput_per_gpu, rows[b].tpot_ms, mark(&rows[b]));
        } else {
            fprintf(f, "best under the SLO: none meets it\n");
        }
    }
    cli_sweep_decision_line(f, c, rows, n);
    bool *front = calloc(n ? n : 1, sizeof *front);
    size_t *order = calloc(n ? n : 1, sizeof *order);
    if (!front || !order) {
        free(front);
        free(order);
        return;
    }
    size_t nf = sim_sweep_pareto(rows, n, front, order);
    fprintf(f, "Pareto frontier (output tok/s per GPU against TPOT), %zu points:\n", nf);
    /* listed from the lowest TPOT up, as the frontier runs */
    for (size_t k = 0; k < nf; k++) {
        size_t i = order[k];
        sim_grid_label(c->g, rows[i].point, label, sizeof label);
        fprintf(f, "  point %zu: TPOT %.2f ms, %.1f tok/s per GPU%s%s  %s\n", rows[i].point,
                rows[i].tpot_ms, rows[i].tput_per_gpu,
                c->has_slo ? (rows[i].meets_slo ? " (meets SLO)" : "") : "", mark(&rows[i]),
                label);
    }
    free(front);
    free(order);
}

static void sweep_header(FILE *f, const sweep_ctx *c)
{
    if (c->jsonl)
        return;
    sim_field m[SIM_FIELDS_MAX];
    size_t nm = metric_names(c->mask, m);
    fprintf(f, "point");
    for (size_t d = 0; d < c->g->n_dims; d++)
        if (shown(&c->g->dims[d]))
            fprintf(f, ",%s", c->g->dims[d].name + 2);
    const size_t at = band_at(m, nm);
    for (size_t k = 0; k <= nm; k++) {
        for (size_t j = 0; k == at && c->bands && j < nm; j++)
            if (cli_point_band_key(c->mask == CLI_OPT_CMD_SERVE, m[j].key))
                fprintf(f, ",%s_lo,%s_hi", m[j].key, m[j].key);
        if (k < nm)
            fprintf(f, ",%s", m[k].key);
    }
    if (c->has_slo)
        fprintf(f, ",meets_slo");
    fprintf(f, ",error%s\n", c->bands ? ",band_basis,decision,beat_probability,decision_tie,"
                                        "decision_versus_point"
                                      : "");
}

/* Writes rows in order to `path` through a temporary file (or to `f` when path is NULL). */
static sim_status write_rows(const char *path, FILE *f, const sweep_ctx *c,
                             const sim_sweep_row *rows, size_t n, sim_err *err)
{
    sim_outfile o;
    if (path) {
        sim_status st = sim_outfile_open(&o, path, "--out", err);
        if (st)
            return st;
        f = o.f;
    }
    sweep_header(f, c);
    for (size_t i = 0; i < n; i++) {
        if (!c->bands) {
            fputs(rows[i].text, f);
            continue;
        }
        /* the decision's columns after the row's own (its newline, and a JSONL row's brace, go
         * after them) */
        const char *t = rows[i].text;
        size_t len = strlen(t);
        len -= len && t[len - 1] == '\n';
        len -= c->jsonl && len && t[len - 1] == '}';
        sim_strbuf b = {0};
        cli_sweep_decision_cols(c, rows, n, i, &b);
        if (b.oom || !b.s) {
            sim_strbuf_free(&b);
            if (path)
                sim_outfile_abort(&o);
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        }
        fprintf(f, "%.*s%s%s\n", (int)len, t, b.s, c->jsonl ? "}" : "");
        sim_strbuf_free(&b);
    }
    if (path)
        return sim_outfile_commit(&o, err);
    return ferror(f) ? sim_fail(err, SIM_EINTERNAL, "writing the rows failed") : SIM_OK;
}

/* The sweep's pictures: throughput per GPU against TPOT and TTFT, and one panel per flag. */
static sim_status sweep_html(const char *path, int argc, char **argv, const sweep_ctx *c,
                             const sim_sweep_row *rows, size_t n, sim_err *err)
{
    char *cmdline = cli_opt_cmdline(argc, argv);
    if (!cmdline)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_strbuf decision = {0};
    cli_sweep_decision_text(c, rows, n, &decision);
    sim_chart_sweep sw = {.rows = rows,
                          .n = n,
                          .grid = c->g,
                          .has_slo = c->has_slo,
                          .pct = c->pct,
                          .flags = cmdline,
                          .decision = decision.oom ? NULL : decision.s,
                          .best = c->winner,
                          .best_given = true,
                          .objective = c->min_cost ? "cost" : c->min_energy ? "energy" : NULL};
    memcpy(sw.slo_ms, c->slo.ms, sizeof sw.slo_ms);
    sim_status st = sim_html_sweep(path, cmdline, &sw, err);
    sim_strbuf_free(&decision);
    free(cmdline);
    return st;
}

void cli_sweep_help(FILE *f, int argc, char **argv)
{
    cli_grid_usage(f, argc > 2 && (strcmp(argv[2], "run") == 0 || strcmp(argv[2], "serve") == 0)
                          ? argv[2]
                          : NULL);
}

sim_status cli_sweep_cmd(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    if (argc < 3 || (strcmp(argv[2], "run") != 0 && strcmp(argv[2], "serve") != 0))
        return sim_fail(err, SIM_EINPUT,
                        "sweep: expected 'infersim sweep run|serve [flags, any "
                        "value a comma-separated list]'");
    sweep_ctx c = {.mask = strcmp(argv[2], "run") == 0 ? CLI_OPT_CMD_RUN : CLI_OPT_CMD_SERVE,
                   .shard = {0, 1},
                   .pct = 90};
    cli_grid_opts so = {.threads = sim_sweep_max_threads(), .pct = 90};
    sim_grid g = {0}, cl = {0};
    sim_status st = cli_grid_parse(argc, argv, c.mask, &cl, &so, err);
    if (!st)
        st = cli_grid_build(&so, argv[2], c.mask, &cl, &g, err);
    sim_grid_free(&cl);
    if (!st && so.shard)
        st = sim_grid_shard_parse(so.shard, &c.shard, err);
    if (!st && so.slo) {
        st = sim_slo_parse(so.slo, &c.slo, err);
        if (st) /* name the sweep's flag, not serve's */
            st = sim_fail(err, SIM_EINPUT, "--slo: '%s', expected ttft:MS,tpot:MS[,e2el:MS]",
                          so.slo);
        c.has_slo = !st;
    }
    if (!st && so.objective) {
        c.min_cost = strcmp(so.objective, "cost") == 0;
        c.min_energy = strcmp(so.objective, "energy") == 0;
        if (!c.min_cost && !c.min_energy && strcmp(so.objective, "throughput") != 0)
            st = sim_fail(err, SIM_EINPUT,
                          "--objective: value '%s', expected throughput, cost or energy",
                          so.objective);
    }
    so.out = cli_opt_out_path(so.out);
    if (!st) {
        const char *flag[] = {"--out", "--html"}, *path[] = {so.out, so.html};
        st = sim_outfile_distinct(flag, path, 2, err);
    }
    c.g = &g;
    c.pct = (int)so.pct;
    c.jsonl = so.out && cli_load_is_jsonl(so.out);
    if (!st && so.format) {
        c.jsonl = strcmp(so.format, "jsonl") == 0;
        if (!c.jsonl && strcmp(so.format, "csv") != 0)
            st =
                sim_fail(err, SIM_EINPUT, "--format: value '%s', expected csv or jsonl", so.format);
    }
    size_t n = st ? 0 : sim_grid_shard_points(&c.shard, sim_grid_points(&g));
    if (!st)
        st = sim_sweep_check_points(&g, n, c.shard.count, err);
    if (st)
        n = 0;
    sim_sweep_row *rows = NULL;
    size_t n_rows = 0;
    if (!st) {
        c.opts = calloc(n ? n : 1, sizeof *c.opts);
        c.opt_st = calloc(n ? n : 1, sizeof *c.opt_st);
        c.opt_err = calloc(n ? n : 1, sizeof *c.opt_err);
        if (!c.opts || !c.opt_st || !c.opt_err)
            st = sim_fail(err, SIM_EINTERNAL, "out of memory for %zu points", n);
    }
    if (!st)
        st = sweep_prepare(&c, n, err);
    c.bands = !st && n > 0 && !c.opt_st[0] &&
              cli_point_draw_count(&c.opts[0], c.mask == CLI_OPT_CMD_SERVE) > 0;
    c.out_stride = c.out_n = 1;
    for (size_t d = g.n_dims; d-- > 0;) { /* the last dimension varies fastest */
        if (strcmp(g.dims[d].name, "--output-len") == 0) {
            c.out_n = g.dims[d].n;
            break;
        }
        c.out_stride *= g.dims[d].n;
    }
    if (c.out_n == 1)
        c.out_stride = 1;
    if (!st && c.mask == CLI_OPT_CMD_RUN) {
        c.n_decode = so.threads > 1 ? (int)so.threads : 1;
        c.decode = calloc((size_t)c.n_decode, sizeof *c.decode);
        if (!c.decode)
            st = sim_fail(err, SIM_EINTERNAL, "out of memory for %d threads", c.n_decode);
    }
    if (!st) {
        FILE *progress = isatty(fileno(errf)) ? errf : NULL;
        st = sim_sweep_run(&g, &c.shard, (int)so.threads, sweep_eval, &c, progress, &rows, &n_rows,
                           err);
    }
    /* the page and the rows' file staged (outfile.h): both appear, or neither; `-` for --html is
     * standard output, which then holds the page alone (the rows need --out FILE) */
    bool html_std = so.html && strcmp(so.html, "-") == 0;
    if (!st && html_std && !so.out)
        st = sim_fail(err, SIM_EINPUT,
                      "--html: '-' is standard output, which holds the rows without --out; give "
                      "--out FILE for the rows");
    sim_outfile_stage page = {0}, file = {0};
    if (!st) {
        c.winner = c.min_cost     ? sim_sweep_cheapest(rows, n_rows, c.has_slo)
                   : c.min_energy ? sim_sweep_least_energy(rows, n_rows, c.has_slo)
                   : c.has_slo    ? sim_sweep_best(rows, n_rows)
                                  : n_rows;
        /* the draws hold the objective: cost, energy (with the power estimate's error) or
         * throughput per GPU */
        c.runner =
            c.winner >= n_rows ? n_rows
            : c.min_energy     ? sim_sweep_runner_up_energy(rows, n_rows, c.winner, c.has_slo)
                               : sim_sweep_runner_up(rows, n_rows, c.winner, c.min_cost, c.has_slo);
        if (c.min_energy && c.bands)
            st = cli_point_power_sigma(&c.opts[0], &c.power_sigma, err);
    }
    if (!st)
        st = sim_outfile_stage_open(&page, so.html, "--html", err);
    if (!st)
        st = sim_outfile_stage_open(&file, so.out, "--out", err);
    if (!st)
        st = so.html ? sweep_html(page.staged, argc, argv, &c, rows, n_rows, err) : SIM_OK;
    if (!st) /* after the page: a page that cannot be written leaves no rows on stdout */
        st = write_rows(so.out ? file.staged : NULL, so.out ? NULL : out, &c, rows, n_rows, err);
    /* the summary before the files: a standard output that cannot take it takes no file */
    FILE *summary = so.out && !html_std ? out : errf;
    if (!st)
        sweep_summary(summary, &c, rows, n_rows);
    if (!st && summary == out && fflush(out) != 0)
        st = sim_fail(err, SIM_EINPUT, "writing the result failed");
    sim_outfile_stage *both[] = {&file, &page};
    if (!st)
        st = sim_outfile_stage_publish(both, 2, out, err); /* both or neither */
    sim_outfile_stage_abort(&page);
    sim_outfile_stage_abort(&file);
    sim_sweep_rows_free(rows, n_rows);
    free(c.opts);
    free(c.opt_st);
    free(c.opt_err);
    free(c.decode);
    cli_load_cache_free(&c.cache);
    sim_grid_free(&g);
    return st;
}
