/* cli_opt.c - the option table, flag parsing and the command line as typed. */
#define _POSIX_C_SOURCE 200809L
#include "cli_opt.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "outfile.h"
#include "price.h"
#include "suggest.h"

const cli_opt_def *cli_opt_find(const char *name, int mask)
{
    /* the first three characters compared inline before strcmp (a sweep point asks ~50 times
     * over the table's ~200 names): every table name has at least three, so a shorter `name`
     * differs at its terminator and no byte past it is read */
    for (size_t j = 0; j < cli_opt_count; j++) {
        const char *t = cli_opt_table[j].name;
        if (t[0] == name[0] && t[1] == name[1] && t[2] == name[2] && strcmp(t, name) == 0 &&
            (cli_opt_table[j].cmds & mask))
            return &cli_opt_table[j];
    }
    return NULL;
}

bool cli_opt_suggest(const char *name, int mask, char *out, size_t len)
{
    sim_suggest s;
    sim_suggest_init(&s, name);
    for (size_t j = 0; j < cli_opt_count; j++)
        if (cli_opt_table[j].cmds & mask)
            sim_suggest_add(&s, cli_opt_table[j].name);
    char near[4 * SIM_SUGGEST_NAME_MAX + 16];
    bool any = sim_suggest_text(&s, near, sizeof near);
    snprintf(out, len, "%s%s%s", any ? "; did you mean " : "", any ? near : "", any ? "?" : "");
    return any;
}

bool cli_opt_given_any(const cli_opts *o, const cli_opt_id *ids)
{
    for (; *ids != CLI_OPT_ID_NONE; ids++)
        if (o->given[*ids])
            return true;
    return false;
}

sim_status cli_opt_check_rules(const cli_opts *o, int mask, sim_err *err)
{
    for (size_t i = 0; i < CLI_OPT_ID_COUNT; i++) {
        const cli_opt_def *d = &cli_opt_table[i];
        if (!o->given[i] || (!d->needs && !d->excludes) || !(d->cmds & mask))
            continue;
        for (const cli_opt_id *x = d->excludes; x && *x != CLI_OPT_ID_NONE; x++)
            if (o->given[*x])
                return sim_fail(err, SIM_EINPUT, "%s%s%s", d->excludes_pre, cli_opt_table[*x].name,
                                d->excludes_why);
        if (d->needs && !cli_opt_given_any(o, d->needs))
            return sim_fail(err, SIM_EINPUT, "%s%s", d->name, d->needs_why);
    }
    return SIM_OK;
}

void cli_opt_usage(FILE *f, const char *cmd, int mask)
{
    fprintf(f, "usage: infersim %s [flags]\n", cmd);
    for (size_t i = 0; i < cli_opt_count; i++) {
        const cli_opt_def *o = &cli_opt_table[i];
        if (!(o->cmds & mask))
            continue;
        cli_opt_usage_line(f, o, o->help);
    }
}

void cli_opt_usage_line(FILE *f, const cli_opt_def *o, const char *text)
{
    const char *meta = o->kind == CLI_OPT_STR    ? " S"
                       : o->kind == CLI_OPT_BOOL ? ""
                       : o->kind == CLI_OPT_LIST ? " K:V.."
                                                 : " N";
    fprintf(f, "  %s%-*s %s\n", o->name, (int)(26 - strlen(o->name)), meta, text);
}

sim_status cli_opt_parse_value(const cli_opt_def *o, const char *v, void *out, sim_err *err)
{
    void *dst = (char *)out + o->offset;
    char *end = NULL;
    errno = 0;
    switch (o->kind) {
    case CLI_OPT_STR:
        if (!*v)
            return sim_fail(err, SIM_EINPUT, "%s: empty value, %s", o->name, o->help);
        *(const char **)dst = v;
        return SIM_OK;
    case CLI_OPT_INT: {
        long long x = strtoll(v, &end, 10);
        if (errno || end == v || *end || x < (long long)o->min || x > (long long)o->max)
            return sim_fail(err, SIM_EINPUT,
                            "%s: value '%s', expected a whole number in [%.0f, %.0f]", o->name, v,
                            o->min, o->max);
        *(int64_t *)dst = x;
        return SIM_OK;
    }
    case CLI_OPT_NUM: {
        /* decimal only: strtod also reads hexadecimal floats ("0x1p4" is 16) */
        double x = strpbrk(v, "xX") ? (end = (char *)v, NAN) : strtod(v, &end);
        if (errno || end == v || *end || !isfinite(x) || x < o->min || x > o->max)
            return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected a number in [%g, %g]",
                            o->name, v, o->min, o->max);
        *(double *)dst = x;
        return SIM_OK;
    }
    case CLI_OPT_BOOL:
        *(bool *)dst = true;
        return SIM_OK;
    case CLI_OPT_RATE: {
        const char *colon = strchr(v, ':');
        if (colon && o->offset == offsetof(cli_opts, rate)) { /* a range LO:HI (plan's) */
            char lo_s[64];
            double lo = NAN, hi = NAN;
            char *e2 = NULL;
            if ((size_t)(colon - v) < sizeof lo_s && !strpbrk(v, "xX")) {
                memcpy(lo_s, v, (size_t)(colon - v));
                lo_s[colon - v] = '\0';
                lo = strtod(lo_s, &end);
                lo = end == lo_s || *end ? NAN : lo;
                hi = strtod(colon + 1, &e2);
                hi = e2 == colon + 1 || *e2 ? NAN : hi;
            }
            if (errno || !isfinite(lo) || !isfinite(hi) || lo <= 0 || hi <= lo || hi > o->max)
                return sim_fail(err, SIM_EINPUT,
                                "%s: value '%s', expected a range LO:HI with 0 < LO < HI <= %g "
                                "(req/s)",
                                o->name, v, o->max);
            ((cli_opts *)out)->rate_low = lo;
            *(double *)dst = hi;
            return SIM_OK;
        }
        if (strcmp(v, "inf") == 0) {
            *(double *)dst = INFINITY;
            return SIM_OK;
        }
        double x = strpbrk(v, "xX") ? (end = (char *)v, NAN) /* decimal only, as above */
                                    : strtod(v, &end);
        if (errno || end == v || *end || !isfinite(x) || x <= 0 || x > o->max)
            return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected a number in (0, %g] or inf",
                            o->name, v, o->max);
        *(double *)dst = x;
        return SIM_OK;
    }
    case CLI_OPT_LIST: {
        char *buf = dst;
        size_t len = strlen(buf);
        if (len + strlen(v) + 2 > CLI_OPT_LIST_LEN)
            return sim_fail(err, SIM_EINPUT, "%s: values too long", o->name);
        snprintf(buf + len, CLI_OPT_LIST_LEN - len, "%s%s", len ? "," : "", v);
        return SIM_OK;
    }
    }
    return SIM_EINTERNAL;
}

/* Parses argv[first..] for command `cmd` (bit `mask`). Accepts "--flag value" and "--flag=value".
 */
sim_status cli_opt_parse(int argc, char **argv, int first, const char *cmd, int mask,
                         cli_opt_id positional, cli_opts *out, sim_err *err)
{
    /* the string member a bare argument sets (its flag's, not marked as given) */
    const cli_opt_def *pos = positional != CLI_OPT_ID_NONE ? &cli_opt_table[positional] : NULL;
    const char **pos_value = pos ? (const char **)(void *)((char *)out + pos->offset) : NULL;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        char name[64]; /* a name longer than this is no flag's */
        const cli_opt_def *o = NULL;
        if (len < sizeof name) {
            memcpy(name, arg, len);
            name[len] = '\0';
            o = cli_opt_find(name, mask);
        }
        if (!o && pos_value && arg[0] != '-' && !*pos_value) {
            *pos_value = arg; /* hw FILE, trace-check FILE */
            continue;
        }
        char near[4 * SIM_SUGGEST_NAME_MAX + 32];
        /* a near miss is refused, naming the flag meant */
        if (!o && arg[0] == '-' && len < sizeof name &&
            cli_opt_suggest(name, mask, near, sizeof near))
            return sim_fail(err, SIM_EINPUT, "%s: unknown flag '%s'%s see 'infersim %s --help'",
                            cmd, arg, near, cmd);
        if (!o)
            return sim_fail(err, SIM_EINPUT, "%s: unknown %s '%s'; see 'infersim %s --help'", cmd,
                            arg[0] == '-' ? "flag" : "argument", arg, cmd);
        const char *v = eq ? eq + 1 : NULL;
        if (out->given[o - cli_opt_table] && o->kind != CLI_OPT_LIST)
            return sim_fail(err, SIM_EINPUT, "%s: given twice, expected once", o->name);
        out->given[o - cli_opt_table] = true;
        if (o->kind == CLI_OPT_BOOL) {
            if (v)
                return sim_fail(err, SIM_EINPUT, "%s: takes no value, got '%s'", o->name, v);
        } else if (!v) {
            /* the next argument a flag ("--tp --batch 2"): this one's value is missing, not
             * "--batch" */
            if (i + 1 >= argc || (strncmp(argv[i + 1], "--", 2) == 0 && argv[i + 1][2]))
                return sim_fail(err, SIM_EINPUT, "%s: missing value; %s", o->name, o->help);
            v = argv[++i];
        }
        sim_status st = cli_opt_parse_value(o, v ? v : "", out, err);
        /* a list takes every following value up to the next flag */
        while (!st && o->kind == CLI_OPT_LIST && !eq && i + 1 < argc &&
               strncmp(argv[i + 1], "--", 2) != 0)
            st = cli_opt_parse_value(o, argv[++i], out, err);
        if (st)
            return st;
    }
    if (out->rate_low > 0.0 && !(mask & CLI_OPT_CMD_PLAN))
        return sim_fail(err, SIM_EINPUT,
                        "--request-rate: value '%g:%g', a range LO:HI is plan's; expected a "
                        "number > 0 or inf (a sweep takes a list: 5,10,20)",
                        out->rate_low, out->rate);
    return SIM_OK;
}

sim_status cli_opt_parse_dtype(const char *flag, const char *v, sim_dtype *out, sim_err *err)
{
    if (sim_dtype_parse(v, out))
        return SIM_OK;
    /* "BF16" is bf16 (case aside); "bf61" gets a suggestion */
    sim_suggest s;
    sim_suggest_init(&s, v);
    for (int i = 0; i < SIM_DT_COUNT; i++)
        sim_suggest_add(&s, sim_dtype_name((sim_dtype)i));
    const char *ci = sim_suggest_case_match(&s);
    if (ci && sim_dtype_parse(ci, out))
        return SIM_OK;
    char near[4 * SIM_SUGGEST_NAME_MAX + 16];
    if (sim_suggest_text(&s, near, sizeof near))
        return sim_fail(err, SIM_EINPUT, "%s: value '%s'; did you mean %s? expected one of %s",
                        flag, v, near, sim_dtype_names());
    return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected one of %s", flag, v,
                    sim_dtype_names());
}

sim_status cli_opt_parse_allreduce(const cli_opts *o, sim_coll_algo *out, sim_err *err)
{
    *out = SIM_COLL_AUTO;
    if (o->allreduce && !sim_coll_algo_parse(o->allreduce, out))
        return sim_fail(err, SIM_EINPUT,
                        "--allreduce: value '%s', expected auto, ring, tree, oneshot, twoshot, "
                        "nvls or nccl",
                        o->allreduce);
    return SIM_OK;
}

int64_t cli_opt_trace_limit(const cli_opts *o)
{
    return cli_opt_given(o, CLI_OPT_ID_NUM_PROMPTS) ? o->num_prompts : 0;
}

const cli_opts cli_opt_defaults = {
    .format = "table",
    .tp = 1,
    .pp = 1,
    .replicas = 1,
    .ep = 1,
    .expert_imbalance = 0.0, /* 0: from the routing */
    .batch = 1,
    .input_len = 1024,
    .output_len = 256,
    .overlap = 0.0,
    /* the engine's settings (memory fraction, host overheads, block size, batch limits) come from
     * its profile, hw/engines/NAME.json, unless a flag gives them */
    /* serve: vLLM's bench defaults where they exist (random dataset, rate inf) */
    .num_prompts = 1000,
    .rand_in = 1024,
    .rand_out = 128,
    .rate = INFINITY,
    .burstiness = 1.0,
    .time_scale = 1.0,
    /* endpoint: loopback, vLLM's port, real time, OpenAI's rule of thumb of 4 characters a token */
    .ep_host = "127.0.0.1",
    .ep_port = 8000,
    .ep_time_scale = 1.0,
    .ep_chars_per_token = 4.0,
    .ep_max_requests = 65536,
    .ep_max_connections = 256,
    .ep_max_body_bytes = 1 << 20,
    .slo_percentile = 90.0,
    .rate_tolerance = 0.02,
    .top = 3,
    .max_gpus = 64,
    .trace_max_mb = 512.0,
    .engine = "vllm",
    .frontend = "profile",
    .conservativeness = 1.0,
    .uncertainty = -1,
    .coverage_draws = 20,
    /* vLLM's prefix_repetition dataset defaults (vllm/benchmarks/datasets.py) */
    .prefix_len = 256,
    .suffix_len = 256,
    .num_prefixes = 10,
    .prefix_out = 128,
    .turns = 2,
    .kv_overlap_weight = 1.0,
    .autoscale_interval_s = 15.0,     /* HPA's --horizontal-pod-autoscaler-sync-period */
    .autoscale_down_window_s = 300.0, /* HPA's default scale-down stabilization window */
};

sim_status cli_opt_check_outputs(const cli_opts *o, sim_err *err)
{
    char result[PATH_MAX + 256] = "";
    if (o->result_filename)
        snprintf(result, sizeof result, "%s%s%s", o->result_dir ? o->result_dir : "",
                 o->result_dir ? "/" : "", o->result_filename);
    const char *flag[] = {"--save-requests", "--chrome-trace", "--html", "--out",
                          "--result-filename"};
    const char *path[] = {o->save_requests, o->chrome_trace, o->html, o->out_file,
                          result[0] ? result : NULL};
    return sim_outfile_distinct(flag, path, sizeof path / sizeof path[0], err);
}

char *cli_opt_cmdline(int argc, char **argv)
{
    size_t len = 16;
    for (int i = 1; i < argc; i++)
        len += strlen(argv[i]) + 3;
    char *s = malloc(len);
    if (!s)
        return NULL;
    size_t n = (size_t)snprintf(s, len, "infersim");
    for (int i = 1; i < argc; i++) {
        bool quote = argv[i][0] == '\0' || strpbrk(argv[i], " \t\"'$&|;<>*?()") != NULL;
        n += (size_t)snprintf(s + n, len - n, quote ? " '%s'" : " %s", argv[i]);
    }
    return s;
}

const char *cli_opt_out_path(const char *path)
{
    return path && strcmp(path, "-") == 0 ? NULL : path;
}
