/* cli_sweep.c - the sweep and merge commands: run or serve over a grid, shards joined. */
#define _POSIX_C_SOURCE 200809L
#include "cli_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "html.h"
#include "jsonf.h"
#include "lines.h"
#include "outfile.h"
#include "pp.h"
#include "rng.h"
#include "strbuf.h"
#include "sweep.h"
#include "validate.h"

/* ------------------------------------------------------------------------------------------ */
/* sweep: the run or serve command over a grid of flag values, points in parallel */

enum { SWEEP_MAX_DIMS = 48 };

typedef struct sweep_ctx {
    int mask; /* CMD_RUN or CMD_SERVE */
    const sim_grid *g;
    sim_shard shard;
    cli_opts *opts;     /* per shard point */
    sim_status *opt_st; /* per shard point: building its options */
    sim_err *opt_err;
    cli_file_cache cache;
    bool jsonl;
    bool has_slo;
    sim_slo slo;
    int pct;        /* SLO percentile: 50, 90 or 99 */
    bool min_cost;  /* --objective cost: the best point is the cheapest per output token */
} sweep_ctx;

/* A point's flags: the command's defaults, then each dimension's value. */
static sim_status point_opts(const sweep_ctx *c, size_t point, cli_opts *o, sim_err *err)
{
    const char *vals[SWEEP_MAX_DIMS];
    sim_grid_point(c->g, point, vals);
    *o = cli_defaults;
    for (size_t d = 0; d < c->g->n_dims; d++) {
        const char *name = c->g->dims[d].name;
        const cli_opt_def *def = cli_find_opt(name, c->mask);
        if (!def)
            return sim_fail(err, SIM_EINTERNAL, "%s: not a flag of this command", name);
        if (def->kind == OPT_BOOL) {
            if (strcmp(vals[d], "false") == 0)
                continue;
            if (strcmp(vals[d], "true") != 0)
                return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected true or false", name,
                                vals[d]);
        }
        o->given[def - cli_opts_table] = true;
        sim_status st = cli_parse_value(def, def->kind == OPT_BOOL ? "" : vals[d], o, err);
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

static sim_serve_report serve_report(const cli_serve_state *s)
{
    return (sim_serve_report){
        .cfg = &s->cfg, .m = &s->m, .usd_per_gpu_hour = s->usd_per_gpu_hour, .gpus = s->gpus};
}

static size_t serve_metrics(const cli_serve_state *s, sim_field *m)
{
    sim_serve_report rep = serve_report(s);
    return sim_report_serve_fields(&rep, SIM_FIELDS_SWEEP, m);
}

/* The metric names of a command (from a zeroed result), for the header. */
static size_t metric_names(int mask, sim_field *m)
{
    static const sim_run_result r0;
    static const cli_serve_state s0 = {.cfg = {.step = {.tp = 1}}};
    static const sim_run_cfg c0 = {.step = {.tp = 1}};
    return mask == CMD_RUN ? run_metrics(&c0, &r0, m) : serve_metrics(&s0, m);
}

/* A dimension shows as a column when it has more than one value. */
static bool shown(const sim_grid_dim *d) { return d->n > 1; }

static void row_text(const sweep_ctx *c, size_t point, const sim_field *m, size_t nm, bool meets,
                     const char *error, sim_strbuf *b)
{
    const char *vals[SWEEP_MAX_DIMS];
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
        for (size_t k = 0; k < nm && !error; k++) {
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
    for (size_t k = 0; k < nm; k++) {
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
    cli_loaded *L = calloc(1, sizeof *L);
    if (!L)
        return;
    double ttft = 0, tpot = 0, e2el = 0;
    if (!st && c->mask == CMD_RUN) {
        sim_run_result *r = calloc(1, sizeof *r);
        sim_run_cfg cfg;
        st = r ? cli_run_point(o, L, &c->cache, &cfg, r, &err) : SIM_EINTERNAL;
        if (!st) {
            nm = run_metrics(&cfg, r, m);
            ttft = r->ttft_ns / 1e6;
            tpot = r->tpot_ns / 1e6;
            e2el = r->e2e_ns / 1e6;
            row->tput_per_gpu = r->output_throughput / (double)sim_pp_gpus(&cfg.step);
            row->ttft_ms = ttft;
            sim_price p;
            if (sim_report_run_price(&cfg, r, &p))
                row->usd_per_million_output_tokens = p.usd_per_million_output_tokens;
        }
        free(r);
    } else if (!st) {
        cli_serve_state *s = calloc(1, sizeof *s);
        /* each point's own seed, from the global seed and its grid index */
        sim_rng rng;
        sim_rng_seed(&rng, (uint64_t)o->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(point + 1)));
        st = s ? cli_serve_point(o, L, &c->cache, sim_rng_next(&rng), s, &err) : SIM_EINTERNAL;
        if (!st) {
            nm = serve_metrics(s, m);
            ttft = at_pct(&s->m.dist[SIM_M_TTFT], c->pct);
            tpot = at_pct(&s->m.dist[SIM_M_TPOT], c->pct);
            e2el = at_pct(&s->m.dist[SIM_M_E2EL], c->pct);
            row->tput_per_gpu = s->m.output_throughput / (double)cli_serve_gpus(s);
            row->ttft_ms = ttft;
            sim_price p;
            sim_serve_report rep = serve_report(s);
            if (sim_report_serve_price(&rep, &p))
                row->usd_per_million_output_tokens = p.usd_per_million_output_tokens;
        }
        if (s)
            cli_serve_state_free(s);
        free(s);
    }
    free(L);
    if (!st && c->min_cost && row->usd_per_million_output_tokens <= 0.0)
        st = sim_fail(&err, SIM_EINPUT,
                      "--objective cost: no price for this point's device (its file has no "
                      "usd_per_gpu_hour); give --usd-per-gpu-hour");
    row->ok = st == SIM_OK;
    row->tpot_ms = tpot;
    row->meets_slo = row->ok && c->has_slo && meets_slo(c, ttft, tpot, e2el);
    row_text(c, point, m, nm, row->meets_slo, st ? (err.msg[0] ? err.msg : "internal error") : NULL,
             &b);
    if (b.oom) {
        free(b.s);
        b.s = NULL;
    }
    row->text = b.s;
}

/* Loads, serially, every file the shard's points name. */
static sim_status sweep_prepare(sweep_ctx *c, size_t n, sim_err *err)
{
    for (size_t k = 0; k < n; k++) {
        size_t point = sim_shard_point(&c->shard, k);
        c->opt_st[k] = point_opts(c, point, &c->opts[k], &c->opt_err[k]);
        if (c->opt_st[k])
            continue;
        const cli_opts *o = &c->opts[k];
        char path[PATH_MAX];
        sim_status st = SIM_OK;
        if (o->hw) {
            cli_resolve("hw", o->hw, path, sizeof path);
            st |= cli_cache_add(&c->cache, 'h', path, 0, 0);
        }
        if (o->model) {
            cli_resolve("models", o->model, path, sizeof path);
            st |= cli_cache_add(&c->cache, 'm', path, 0, 0);
        }
        if (o->spec_model) {
            cli_resolve("models", o->spec_model, path, sizeof path);
            st |= cli_cache_add(&c->cache, 'm', path, 0, 0);
        }
        cli_engine_path(o, path, sizeof path);
        st |= cli_cache_add(&c->cache, 'e', path, 0, 0);
        if (o->trace && c->mask == CMD_SERVE) {
            cli_resolve("traces", o->trace, path, sizeof path);
            st |= cli_cache_add(&c->cache, 't', path, o->time_scale, cli_trace_limit(o));
        }
        if (st)
            return sim_fail(err, SIM_EINTERNAL, "out of memory loading the sweep's files");
    }
    return SIM_OK;
}

/* Sweep-level flags, apart from the command's. */
typedef struct sweep_opts {
    const char *out, *slo, *shard, *grid, *html, *objective, *format;
    int64_t threads, pct;
    unsigned seen; /* bit i: sweep_flags[i] was given */
} sweep_opts;

#define SO(flag, kind, field, lo, hi, help)                                                        \
    {                                                                                              \
        flag, kind, offsetof(sweep_opts, field), lo, hi, 0, help                                   \
    }
static const cli_opt_def sweep_flags[] = {
    SO("--out", OPT_STR, out, 0, 0, "expected a file for the rows"),
    SO("--slo", OPT_STR, slo, 0, 0, "expected ttft:MS,tpot:MS,e2el:MS"),
    SO("--shard", OPT_STR, shard, 0, 0, "expected I/N"),
    SO("--grid", OPT_STR, grid, 0, 0, "expected a grid JSON file"),
    SO("--html", OPT_STR, html, 0, 0, "expected a file for the HTML report"),
    SO("--threads", OPT_INT, threads, 1, 1024, "threads"),
    SO("--slo-percentile", OPT_INT, pct, 50, 99, "50, 90 or 99"),
    SO("--objective", OPT_STR, objective, 0, 0, "throughput or cost"),
    SO("--format", OPT_STR, format, 0, 0, "expected csv or jsonl"),
};
#undef SO
enum { N_SWEEP_FLAGS = sizeof sweep_flags / sizeof sweep_flags[0] };

static const cli_opt_def *find_sweep_flag(const char *name)
{
    for (size_t i = 0; i < N_SWEEP_FLAGS; i++)
        if (strcmp(name, sweep_flags[i].name) == 0)
            return &sweep_flags[i];
    return NULL;
}

/* Whether `name` is a sweep-level flag; if so, *st says whether its value `v` parsed. Each may
 * be given once. */
static bool sweep_flag(const char *name, const char *v, sweep_opts *s, sim_err *err, sim_status *st)
{
    const cli_opt_def *def = find_sweep_flag(name);
    if (!def)
        return false;
    unsigned bit = 1u << (def - sweep_flags);
    if (s->seen & bit) {
        *st = sim_fail(err, SIM_EINPUT, "%s: given twice, expected once", name);
        return true;
    }
    s->seen |= bit;
    if (!v) {
        *st = sim_fail(err, SIM_EINPUT, "%s: missing value", name);
        return true;
    }
    *st = cli_parse_value(def, v, s, err);
    bool kept_pct = s->pct == 50 || s->pct == 90 || s->pct == 99; /* those the metrics report */
    if (!*st && def->offset == offsetof(sweep_opts, pct) && !kept_pct)
        *st = sim_fail(err, SIM_EINPUT, "%s: value '%s', expected 50, 90 or 99", name, v);
    return true;
}

void cli_sweep_usage(FILE *f, const char *sub)
{
    fprintf(
        f,
        "usage: infersim sweep %s [flags]\n"
        "  every flag of 'infersim %s' (see 'infersim %s --help'), any value a comma-separated\n"
        "  list (--tp 1,2,4): the grid is every combination; and the sweep's own:\n",
        sub ? sub : "run|serve", sub ? sub : "run|serve", sub ? sub : "run|serve");
    /* the sweep's flags, explained (a flag missing here shows its table entry's text) */
    static const struct {
        const char *flag, *text;
    } what[] = {
        {"--out", "write the rows here (.csv, or .jsonl/.json for JSON lines; default: stdout, CSV)"},
        {"--slo", "SLOs a point must meet (--slo ttft:500,tpot:50); the summary names the best"},
        {"--shard", "run the I-th of N interleaved slices of the grid (merge them with 'infersim "
                    "merge')"},
        {"--grid", "a grid JSON file: {\"grid\": {\"--tp\": [1, 2], ...}}"},
        {"--html", "write an HTML report of the sweep here"},
        {"--threads", "worker threads (default: every core)"},
        {"--slo-percentile", "the latency percentile --slo checks, 50, 90 or 99 (default 90)"},
        {"--objective", "throughput|cost: what the summary's best point maximizes or minimizes "
                        "(default throughput)"},
        {"--format", "csv|jsonl: the rows' format (default: from --out's extension, else csv)"}};
    for (size_t i = 0; i < N_SWEEP_FLAGS; i++) {
        const char *text = sweep_flags[i].help;
        for (size_t k = 0; k < sizeof what / sizeof what[0]; k++)
            if (strcmp(what[k].flag, sweep_flags[i].name) == 0)
                text = what[k].text;
        fprintf(f, "  %s%-*s %s\n", sweep_flags[i].name, (int)(26 - strlen(sweep_flags[i].name)),
                sweep_flags[i].kind == OPT_STR ? " S" : " N", text);
    }
}

/* Outputs written once per run: a sweep has one per point, so they are refused. */
static const char *const per_run_flags[] = {
    "--save-requests", "--chrome-trace",     "--trace-detail",       "--trace-window",
    "--trace-ranks",   "--trace-max-mb",     "--format",             "--help",
    "--save-result",   "--result-dir",       "--result-filename",    "--percentile-metrics",
    "--metric-percentiles"};

/* Where a sweep dimension comes from, for its error messages: a grid file's key, or (file NULL)
 * a command-line argument. */
typedef struct dim_src {
    const char *file, *key; /* key: the grid file's key or the argument, as written */
    const char *cmd;        /* "run" or "serve" */
} dim_src;

/* The message prefix naming the source: "FILE: field 'grid.KEY': " or "". */
static const char *src_at(const dim_src *src, char *buf, size_t len)
{
    if (!src->file)
        return "";
    snprintf(buf, len, "%s: field 'grid.%s': ", src->file, src->key);
    return buf;
}

/* The flag a sweep dimension `name` ("--tp"; NULL when no flag could be that long) names, the
 * same checks for the command line and a grid file: NULL with *err set when the command `mask`
 * does not take it, it is the sweep's own flag, or it is a per-run output. */
static const cli_opt_def *sweep_dim_flag(const char *name, int mask, const dim_src *src,
                                         sim_err *err)
{
    char buf[PATH_MAX + 128];
    const char *at = src_at(src, buf, sizeof buf);
    const cli_opt_def *def = name ? cli_find_opt(name, mask) : NULL;
    if (name && find_sweep_flag(name)) {
        sim_fail(err, SIM_EINPUT, "%s%s is the sweep's own flag, expected on the command line", at,
                 name);
        return NULL;
    }
    if (!def) {
        if (src->file)
            sim_fail(err, SIM_EINPUT,
                     "%sunknown flag '%s%s', expected a flag of 'infersim %s' (see 'infersim %s "
                     "--help')",
                     at, strncmp(src->key, "--", 2) ? "--" : "", src->key, src->cmd, src->cmd);
        else
            sim_fail(err, SIM_EINPUT, "sweep %s: unknown flag '%s'; see 'infersim sweep %s --help'",
                     src->cmd, src->key, src->cmd);
        return NULL;
    }
    for (size_t k = 0; k < sizeof per_run_flags / sizeof per_run_flags[0]; k++)
        if (strcmp(name, per_run_flags[k]) == 0) {
            sim_fail(err, SIM_EINPUT,
                     "%s%s: not available in a sweep (one output per point); run the point on "
                     "its own",
                     at, name);
            return NULL;
        }
    return def;
}

/* Adds the dimension `def` takes, checking what can be checked before any point runs: an on/off
 * flag's values are true or false. */
static sim_status add_dim(sim_grid *g, const cli_opt_def *def, const char *const *vals, size_t n,
                          const dim_src *src, sim_err *err)
{
    char buf[PATH_MAX + 128];
    const char *at = src_at(src, buf, sizeof buf);
    for (size_t i = 0; i < n && def->kind == OPT_BOOL; i++)
        if (strcmp(vals[i], "true") != 0 && strcmp(vals[i], "false") != 0)
            return sim_fail(err, SIM_EINPUT, "%s%s: value '%s', expected true or false", at,
                            def->name, vals[i]);
    sim_status st = sim_grid_add_values(g, def->name, vals, n, err);
    if (st == SIM_EINPUT && *at) {
        sim_err e = *err;
        st = sim_fail(err, st, "%s%s", at, e.msg);
    }
    return st;
}

/* A grid file's string, boolean or number as the string a flag takes (malloc'd; NULL for any
 * other value, or out of memory). */
static char *grid_value(const cJSON *v)
{
    char num[64];
    if (cJSON_IsString(v))
        return strdup(v->valuestring);
    if (cJSON_IsBool(v))
        return strdup(cJSON_IsTrue(v) ? "true" : "false");
    if (!cJSON_IsNumber(v))
        return NULL;
    snprintf(num, sizeof num, "%.17g", v->valuedouble);
    return strdup(num);
}

/* One grid-file key: a flag and its values (a list, or one value). */
static sim_status grid_dim(const char *path, const cJSON *dim, int mask, const char *cmd,
                           sim_grid *g, sim_err *err)
{
    const dim_src src = {path, dim->string, cmd};
    char name[64]; /* a name longer than this is no flag's */
    int len =
        snprintf(name, sizeof name, "%s%s", strncmp(dim->string, "--", 2) ? "--" : "", dim->string);
    const cli_opt_def *def =
        sweep_dim_flag(len >= 0 && (size_t)len < sizeof name ? name : NULL, mask, &src, err);
    if (!def)
        return SIM_EINPUT;
    size_t n = cJSON_IsArray(dim) ? (size_t)cJSON_GetArraySize(dim) : 1;
    if (n == 0)
        return sim_fail(err, SIM_EINPUT, "%s: field 'grid.%s' is [], expected one or more values",
                        path, dim->string);
    char **vals = calloc(n, sizeof *vals);
    if (!vals)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_status st = SIM_OK;
    size_t k = 0;
    for (const cJSON *v = cJSON_IsArray(dim) ? dim->child : dim; v && k < n && !st;
         v = cJSON_IsArray(dim) ? v->next : NULL, k++) {
        if (!(cJSON_IsString(v) || cJSON_IsBool(v) || cJSON_IsNumber(v)))
            st = sim_fail(err, SIM_EINPUT,
                          "%s: field 'grid.%s' holds a value that is not a string, number or "
                          "boolean",
                          path, dim->string);
        else if (!(vals[k] = grid_value(v)))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        else if (!vals[k][0])
            st = sim_fail(err, SIM_EINPUT,
                          "%s: field 'grid.%s' holds an empty string, expected a value", path,
                          dim->string);
    }
    if (!st)
        st = add_dim(g, def, (const char *const *)vals, k, &src, err); /* k == n: all filled */
    for (size_t i = 0; i < n; i++)
        free(vals[i]);
    free(vals);
    return st;
}

/* --grid FILE: {"command": "serve", "grid": {"--tp": [1, 2], "model": ["a", "b"], ...}}: the
 * same flags as the command line takes, each key once. */
static sim_status grid_from_file(const char *path, const char *cmd, int mask, sim_grid *g,
                                 sim_err *err)
{
    cJSON *root;
    sim_status st = sim_jsonf_load(path, &root, err);
    if (st)
        return st;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "command");
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(root, "grid");
    if (!cJSON_IsObject(root))
        st = sim_fail(err, SIM_EINPUT,
                      "%s: not a JSON object, expected {\"command\": ..., \"grid\": {...}}", path);
    else if (c && (!cJSON_IsString(c) || strcmp(c->valuestring, cmd) != 0))
        st = sim_fail(err, SIM_EINPUT, "%s: field 'command' is not \"%s\" (the sweep's command)",
                      path, cmd);
    else if (!cJSON_IsObject(grid))
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'grid' is missing, expected an object of "
                      "flag: [values]",
                      path);
    for (const cJSON *k = root ? root->child : NULL; k && !st; k = k->next)
        if (strcmp(k->string, "command") != 0 && strcmp(k->string, "grid") != 0)
            st = sim_fail(err, SIM_EINPUT,
                          "%s: unknown field '%s', expected only 'command' and 'grid'", path,
                          k->string);
    const cJSON *dim;
    if (!st) {
        cJSON_ArrayForEach(dim, grid)
        {
            st = grid_dim(path, dim, mask, cmd, g, err);
            if (st)
                break;
        }
    }
    cJSON_Delete(root);
    return st;
}

/* Parses `infersim sweep run|serve [flags]` into the grid and the sweep's own flags. */
static sim_status sweep_parse(int argc, char **argv, int mask, sim_grid *g, sweep_opts *so,
                              sim_err *err)
{
    sim_status st = SIM_OK;
    for (int i = 3; i < argc && !st; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        char name[64]; /* a name longer than this is no flag's */
        if (len < sizeof name) {
            memcpy(name, arg, len);
            name[len] = '\0';
        }
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[i + 1] : NULL);
        if (len < sizeof name && sweep_flag(name, v, so, err, &st)) {
            i += !eq;
            continue;
        }
        const dim_src src = {NULL, arg, argv[2]};
        const cli_opt_def *def = sweep_dim_flag(len < sizeof name ? name : NULL, mask, &src, err);
        if (!def)
            return SIM_EINPUT;
        if (def->kind == OPT_BOOL) {
            sim_grid one = {0}; /* split the list, then check the values */
            st = sim_grid_add(&one, name, eq ? eq + 1 : "true", err);
            if (!st)
                st = add_dim(g, def, (const char *const *)one.dims[0].values, one.dims[0].n, &src,
                             err);
            sim_grid_free(&one);
            continue;
        }
        if (!v)
            return sim_fail(err, SIM_EINPUT, "%s: missing value", name);
        i += !eq;
        /* a list flag's value holds commas of its own: never a dimension */
        st = def->kind == OPT_LIST ? sim_grid_add_values(g, name, &v, 1, err)
                                   : sim_grid_add(g, name, v, err);
    }
    return st;
}

/* The sweep's grid: a --grid file's dimensions first, then the command line's (`cl`, moved). */
static sim_status sweep_grid(const sweep_opts *so, const char *cmd, int mask, sim_grid *cl,
                             sim_grid *g, sim_err *err)
{
    sim_status st = so->grid ? grid_from_file(so->grid, cmd, mask, g, err) : SIM_OK;
    for (size_t d = 0; d < cl->n_dims && !st; d++) {
        st = sim_grid_add_values(g, cl->dims[d].name, (const char *const *)cl->dims[d].values,
                                 cl->dims[d].n, err);
        if (st == SIM_EINPUT && so->grid) { /* cl itself holds no name twice */
            sim_err e = *err;
            st = sim_fail(err, st, "%s; in %s and on the command line", e.msg, so->grid);
        }
    }
    if (!st && g->n_dims > SWEEP_MAX_DIMS)
        st = sim_fail(err, SIM_EINPUT, "sweep: %zu flags, at most %d", g->n_dims, SWEEP_MAX_DIMS);
    return st;
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
    char label[1024];
    if (c->min_cost) {
        const char *what = c->has_slo ? "cheapest under the SLO" : "cheapest";
        size_t b = sim_sweep_cheapest(rows, n, c->has_slo);
        if (b < n) {
            sim_grid_label(c->g, rows[b].point, label, sizeof label);
            fprintf(f,
                    "%s: point %zu (%s): $%.4f per million output tokens, %.1f output tok/s "
                    "per GPU, TPOT %.2f ms\n",
                    what, rows[b].point, label, rows[b].usd_per_million_output_tokens,
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
                    "ms\n",
                    rows[b].point, label, rows[b].tput_per_gpu, rows[b].tpot_ms);
        } else {
            fprintf(f, "best under the SLO: none meets it\n");
        }
    }
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
        fprintf(f, "  point %zu: TPOT %.2f ms, %.1f tok/s per GPU%s  %s\n", rows[i].point,
                rows[i].tpot_ms, rows[i].tput_per_gpu,
                c->has_slo ? (rows[i].meets_slo ? " (meets SLO)" : "") : "", label);
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
    for (size_t k = 0; k < nm; k++)
        fprintf(f, ",%s", m[k].key);
    if (c->has_slo)
        fprintf(f, ",meets_slo");
    fprintf(f, ",error\n");
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
    for (size_t i = 0; i < n; i++)
        fputs(rows[i].text, f);
    if (path)
        return sim_outfile_commit(&o, err);
    return ferror(f) ? sim_fail(err, SIM_EINTERNAL, "writing the rows failed") : SIM_OK;
}

/* The sweep's pictures: throughput per GPU against TPOT and TTFT, and one panel per flag. */
static sim_status sweep_html(const char *path, int argc, char **argv, const sweep_ctx *c,
                             const sim_sweep_row *rows, size_t n, sim_err *err)
{
    char *cmdline = cli_cmdline(argc, argv);
    if (!cmdline)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_chart_sweep sw = {
        .rows = rows, .n = n, .grid = c->g, .has_slo = c->has_slo, .pct = c->pct, .flags = cmdline};
    memcpy(sw.slo_ms, c->slo.ms, sizeof sw.slo_ms);
    sim_status st = sim_html_sweep(path, cmdline, &sw, err);
    free(cmdline);
    return st;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

sim_status cli_cmd_sweep(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    if (argc < 3 || (strcmp(argv[2], "run") != 0 && strcmp(argv[2], "serve") != 0))
        return sim_fail(err, SIM_EINPUT,
                        "sweep: expected 'infersim sweep run|serve [flags, any "
                        "value a comma-separated list]'");
    sweep_ctx c = {
        .mask = strcmp(argv[2], "run") == 0 ? CMD_RUN : CMD_SERVE, .shard = {0, 1}, .pct = 90};
    sweep_opts so = {.threads = sim_sweep_max_threads(), .pct = 90};
    sim_grid g = {0}, cl = {0};
    sim_status st = sweep_parse(argc, argv, c.mask, &cl, &so, err);
    if (!st)
        st = sweep_grid(&so, argv[2], c.mask, &cl, &g, err);
    sim_grid_free(&cl);
    if (!st && so.shard)
        st = sim_shard_parse(so.shard, &c.shard, err);
    if (!st && so.slo) {
        st = sim_slo_parse(so.slo, &c.slo, err);
        if (st) /* name the sweep's flag, not serve's */
            st = sim_fail(err, SIM_EINPUT, "--slo: '%s', expected ttft:MS,tpot:MS[,e2el:MS]",
                          so.slo);
        c.has_slo = !st;
    }
    if (!st && so.objective) {
        c.min_cost = strcmp(so.objective, "cost") == 0;
        if (!c.min_cost && strcmp(so.objective, "throughput") != 0)
            st = sim_fail(err, SIM_EINPUT, "--objective: value '%s', expected throughput or cost",
                          so.objective);
    }
    if (!st) {
        const char *flag[] = {"--out", "--html"}, *path[] = {so.out, so.html};
        st = sim_outfile_distinct(flag, path, 2, err);
    }
    c.g = &g;
    c.pct = (int)so.pct;
    c.jsonl = so.out && (ends_with(so.out, ".jsonl") || ends_with(so.out, ".json"));
    if (!st && so.format) {
        c.jsonl = strcmp(so.format, "jsonl") == 0;
        if (!c.jsonl && strcmp(so.format, "csv") != 0)
            st =
                sim_fail(err, SIM_EINPUT, "--format: value '%s', expected csv or jsonl", so.format);
    }
    size_t n = st ? 0 : sim_shard_points(&c.shard, sim_grid_points(&g));
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
    if (!st) {
        FILE *progress = isatty(fileno(errf)) ? errf : NULL;
        st = sim_sweep_run(&g, &c.shard, (int)so.threads, sweep_eval, &c, progress, &rows, &n_rows,
                           err);
    }
    if (!st)
        st = so.html ? sweep_html(so.html, argc, argv, &c, rows, n_rows, err) : SIM_OK;
    if (!st) /* after the page: a page that cannot be written leaves no rows on stdout */
        st = write_rows(so.out, so.out ? NULL : out, &c, rows, n_rows, err);
    if (!st)
        sweep_summary(so.out ? out : errf, &c, rows, n_rows);
    sim_sweep_rows_free(rows, n_rows);
    free(c.opts);
    free(c.opt_st);
    free(c.opt_err);
    cli_cache_free(&c.cache);
    sim_grid_free(&g);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* merge: shard files back into one, in grid order */

typedef struct merge_line {
    long long point;
    char *text;
} merge_line;

static int by_point(const void *a, const void *b)
{
    const merge_line *x = a, *y = b;
    return x->point < y->point ? -1 : x->point > y->point;
}

/* The point index of a row: the first CSV field, or the "point" key of a JSON line. */
static bool row_point(const char *line, bool jsonl, long long *out)
{
    const char *p = line;
    if (jsonl) {
        p = strstr(line, "\"point\":");
        if (!p)
            return false;
        p += 8;
    }
    char *end;
    errno = 0;
    *out = strtoll(p, &end, 10);
    return !errno && end != p && (*end == ',' || *end == '}') && *out >= 0;
}

sim_status cli_cmd_merge(int argc, char **argv, FILE *out, sim_err *err)
{
    const char *dest = NULL;
    merge_line *lines = NULL;
    size_t n = 0, cap = 0;
    char *header = NULL;
    sim_status st = SIM_OK;
    int files = 0;
    bool jsonl = false;
    for (int i = 2; i < argc && !st; i++) {
        if (strcmp(argv[i], "--out") == 0 || strncmp(argv[i], "--out=", 6) == 0) {
            if (dest) {
                st = sim_fail(err, SIM_EINPUT, "--out: given twice, expected once");
                break;
            }
            dest = argv[i][5] == '=' ? argv[i] + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!dest)
                st = sim_fail(err, SIM_EINPUT, "--out: missing value");
            continue;
        }
        if (argv[i][0] == '-') {
            st = sim_fail(err, SIM_EINPUT, "merge: unknown flag '%s'; see 'infersim merge --help'",
                          argv[i]);
            break;
        }
        sim_lines lr;
        if ((st = sim_lines_open(&lr, argv[i], err)))
            break;
        bool this_jsonl = ends_with(argv[i], ".jsonl") || ends_with(argv[i], ".json");
        if (files++ && this_jsonl != jsonl)
            st = sim_fail(err, SIM_EINPUT, "%s: mixes CSV and JSONL shards", argv[i]);
        jsonl = this_jsonl;
        char *buf = NULL;
        while (!st && !(st = sim_lines_next(&lr, &buf, err)) && buf) {
            long lineno = (long)lr.lineno;
            if (!jsonl && lineno == 1) {
                if (!header)
                    st = (header = strdup(buf)) ? SIM_OK
                                                : sim_fail(err, SIM_EINTERNAL, "out of memory");
                else if (strcmp(header, buf) != 0)
                    st = sim_fail(err, SIM_EINPUT, "%s:1: header differs from the first shard's",
                                  argv[i]);
                continue;
            }
            if (!buf[0])
                continue;
            long long point;
            if (!row_point(buf, jsonl, &point)) {
                st = sim_fail(err, SIM_EINPUT, "%s:%ld: no point index", argv[i], lineno);
                break;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                merge_line *l = realloc(lines, cap * sizeof *l);
                if (!l) {
                    st = sim_fail(err, SIM_EINTERNAL, "out of memory");
                    break;
                }
                lines = l;
            }
            lines[n].point = point;
            if (!(lines[n++].text = strdup(buf)))
                st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        }
        if (!st && !jsonl && lr.lineno == 0) /* a CSV shard has its header even without rows */
            st = sim_fail(err, SIM_EINPUT,
                          "%s: empty, expected a CSV shard written by sweep --shard", argv[i]);
        sim_lines_close(&lr);
    }
    if (!st && files == 0)
        st = sim_fail(err, SIM_EINPUT,
                      "merge: expected shard files (infersim merge --out FILE "
                      "shard...)");
    if (!st && n == 0)
        st = sim_fail(err, SIM_EINPUT, "merge: the shards hold no rows, expected sweep output");
    if (!st) {
        qsort(lines, n, sizeof *lines, by_point);
        for (size_t i = 1; i < n && !st; i++)
            if (lines[i].point == lines[i - 1].point)
                st = sim_fail(err, SIM_EINPUT, "merge: point %lld appears in two shards",
                              lines[i].point);
    }
    sim_outfile o;
    FILE *f = out;
    if (!st && dest && !(st = sim_outfile_open(&o, dest, "--out", err)))
        f = o.f;
    if (!st) {
        if (header)
            fprintf(f, "%s\n", header);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s\n", lines[i].text);
        if (dest)
            st = sim_outfile_commit(&o, err);
    }
    for (size_t i = 0; i < n; i++)
        free(lines[i].text);
    free(lines);
    free(header);
    return st;
}
