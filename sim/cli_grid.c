/* cli_grid.c - the sweep's command line: its own flags and --help, and its grid from the command
 * line's comma-separated lists and a --grid file. */
#define _POSIX_C_SOURCE 200809L
#include "cli_grid.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonf.h"
#include "price.h"

/* The sweep's own flags: the option row (its help is the tail of a value's error) and the line
 * of `infersim sweep --help`. */
typedef struct sweep_flag_def {
    cli_opt_def def;
    const char *usage;
} sweep_flag_def;

#define SO(flag, kind_, field, lo, hi, help_, usage_)                                              \
    {                                                                                              \
        .def = {.name = (flag),                                                                    \
                .kind = (kind_),                                                                   \
                .offset = offsetof(cli_grid_opts, field),                                          \
                .min = (lo),                                                                       \
                .max = (hi),                                                                       \
                .help = (help_)},                                                                  \
        .usage = (usage_)                                                                          \
    }
static const sweep_flag_def sweep_flags[] = {
    SO("--out", CLI_OPT_STR, out, 0, 0, "expected a file for the rows",
       "write the rows here (.csv, or .jsonl/.json for JSON lines; - or default: stdout, CSV)"),
    SO("--slo", CLI_OPT_STR, slo, 0, 0, "expected ttft:MS,tpot:MS,e2el:MS",
       "SLOs a point must meet (--slo ttft:500,tpot:50); the summary names the best"),
    SO("--shard", CLI_OPT_STR, shard, 0, 0, "expected I/N",
       "run the I-th of N interleaved slices of the grid (merge them with 'infersim merge')"),
    SO("--grid", CLI_OPT_STR, grid, 0, 0, "expected a grid JSON file",
       "a grid JSON file: {\"grid\": {\"--tp\": [1, 2], ...}}"),
    SO("--html", CLI_OPT_STR, html, 0, 0, "expected a file for the HTML report",
       "write an HTML report of the sweep here"),
    SO("--threads", CLI_OPT_INT, threads, 1, 1024, "threads",
       "worker threads (default: every core)"),
    SO("--slo-percentile", CLI_OPT_INT, pct, 50, 99, "50, 90 or 99",
       "the latency percentile --slo checks, 50, 90 or 99 (default 90)"),
    SO("--objective", CLI_OPT_STR, objective, 0, 0, "throughput, cost or energy",
       "throughput|cost|energy: what the summary's best point maximizes or minimizes (cost: US$ "
       "per output token; energy: J per output token, an estimate; default throughput)"),
    SO("--format", CLI_OPT_STR, format, 0, 0, "expected csv or jsonl",
       "csv|jsonl: the rows' format (default: from --out's extension, else csv)"),
};
#undef SO
enum { N_SWEEP_FLAGS = sizeof sweep_flags / sizeof sweep_flags[0] };

/* The index of the sweep's flag `name` in sweep_flags, or -1. */
static int find_sweep_flag(const char *name)
{
    for (int i = 0; i < N_SWEEP_FLAGS; i++)
        if (strcmp(name, sweep_flags[i].def.name) == 0)
            return i;
    return -1;
}

/* Whether `name` is a sweep-level flag; if so, *st says whether its value `v` parsed. Each may
 * be given once. */
static bool sweep_flag(const char *name, const char *v, cli_grid_opts *s, sim_err *err,
                       sim_status *st)
{
    int i = find_sweep_flag(name);
    if (i < 0)
        return false;
    const cli_opt_def *def = &sweep_flags[i].def;
    unsigned bit = 1u << i;
    if (s->seen & bit) {
        *st = sim_fail(err, SIM_EINPUT, "%s: given twice, expected once", name);
        return true;
    }
    s->seen |= bit;
    if (!v) {
        *st = sim_fail(err, SIM_EINPUT, "%s: missing value", name);
        return true;
    }
    *st = cli_opt_parse_value(def, v, s, err);
    bool kept_pct = s->pct == 50 || s->pct == 90 || s->pct == 99; /* those the metrics report */
    if (!*st && def->offset == offsetof(cli_grid_opts, pct) && !kept_pct)
        *st = sim_fail(err, SIM_EINPUT, "%s: value '%s', expected 50, 90 or 99", name, v);
    return true;
}

void cli_grid_usage(FILE *f, const char *sub)
{
    fprintf(
        f,
        "usage: infersim sweep %s [flags]\n"
        "  every flag of 'infersim %s' (see 'infersim %s --help'), any value a comma-separated\n"
        "  list (--tp 1,2,4): the grid is every combination; and the sweep's own:\n",
        sub ? sub : "run|serve", sub ? sub : "run|serve", sub ? sub : "run|serve");
    for (size_t i = 0; i < N_SWEEP_FLAGS; i++)
        cli_opt_usage_line(f, &sweep_flags[i].def, sweep_flags[i].usage);
}

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
    const cli_opt_def *def = name ? cli_opt_find(name, mask) : NULL;
    if (name && find_sweep_flag(name) >= 0) {
        sim_fail(err, SIM_EINPUT, "%s%s is the sweep's own flag, expected on the command line", at,
                 name);
        return NULL;
    }
    if (!def) {
        char near[320] = ""; /* "; did you mean --format?" */
        if (name)
            cli_opt_suggest(name, mask, near, sizeof near);
        if (src->file)
            sim_fail(err, SIM_EINPUT,
                     "%sunknown flag '%s%s', expected a flag of 'infersim %s'%s (see 'infersim %s "
                     "--help')",
                     at, strncmp(src->key, "--", 2) ? "--" : "", src->key, src->cmd, near,
                     src->cmd);
        else
            sim_fail(err, SIM_EINPUT,
                     "sweep %s: unknown flag '%s'%s see 'infersim sweep %s --help'", src->cmd,
                     src->key, near[0] ? near : ";", src->cmd);
        return NULL;
    }
    if (def->cmds & CLI_OPT_PER_RUN) {
        sim_fail(err, SIM_EINPUT,
                 "%s%s: not available in a sweep (one output per point); run the point on its own",
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
    for (size_t i = 0; i < n && def->kind == CLI_OPT_BOOL; i++)
        if (strcmp(vals[i], "true") != 0 && strcmp(vals[i], "false") != 0)
            return sim_fail(err, SIM_EINPUT, "%s%s: value '%s', expected true or false", at,
                            def->name, vals[i]);
    /* a price list is checked whole (its devices are checked when a point loads) */
    sim_price_list pl;
    for (size_t i = 0; i < n && def == &cli_opt_table[CLI_OPT_ID_USD_PER_GPU_HOUR]; i++) {
        sim_status pst = sim_price_list_parse(def->name, vals[i], &pl, err);
        if (pst) {
            sim_err e = *err;
            return sim_fail(err, pst, "%s%s", at, e.msg);
        }
    }
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
sim_status cli_grid_parse(int argc, char **argv, int mask, sim_grid *g, cli_grid_opts *so,
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
        /* the next argument a flag: this one's value is missing (as cli_opt_parse says) */
        const char *v = eq                                                          ? eq + 1
                        : i + 1 < argc && !(strncmp(argv[i + 1], "--", 2) == 0 && argv[i + 1][2])
                            ? argv[i + 1]
                            : NULL;
        if (len < sizeof name && sweep_flag(name, v, so, err, &st)) {
            i += !eq;
            continue;
        }
        const dim_src src = {NULL, arg, argv[2]};
        const cli_opt_def *def = sweep_dim_flag(len < sizeof name ? name : NULL, mask, &src, err);
        if (!def)
            return SIM_EINPUT;
        if (def->kind == CLI_OPT_BOOL) {
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
        /* a list flag's value holds commas of its own, and so does a JSON object
         * (--speculative-config): never a dimension */
        if (def == &cli_opt_table[CLI_OPT_ID_USD_PER_GPU_HOUR]) {
            /* DEVICE=USD pairs are one value (one price per device, never a dimension); bare
             * numbers are a dimension as any flag's */
            sim_grid one = {0};
            st = strchr(v, '=') ? sim_grid_add_values(&one, name, &v, 1, err)
                                : sim_grid_add(&one, name, v, err);
            if (!st)
                st = add_dim(g, def, (const char *const *)one.dims[0].values, one.dims[0].n, &src,
                             err);
            sim_grid_free(&one);
            continue;
        }
        st = def->kind == CLI_OPT_LIST || v[0] == '{' ? sim_grid_add_values(g, name, &v, 1, err)
                                                      : sim_grid_add(g, name, v, err);
    }
    return st;
}

/* The sweep's grid: a --grid file's dimensions first, then the command line's (`cl`, moved). */
sim_status cli_grid_build(const cli_grid_opts *so, const char *cmd, int mask, sim_grid *cl,
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
    if (!st && g->n_dims > CLI_GRID_MAX_DIMS)
        st =
            sim_fail(err, SIM_EINPUT, "sweep: %zu flags, at most %d", g->n_dims, CLI_GRID_MAX_DIMS);
    return st;
}
