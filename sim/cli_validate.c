/* cli_validate.c - the validate command: predictions against the measurements table. */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_load.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_validate_internal.h"

/* One summary line: "<label>: N points, median |error| X%, p90 Y%" ("<label>: 0 points" for none);
 * the median in *med (0 for none). */
static void summary_line(FILE *out, const char *label, const double *e, size_t n, double *med)
{
    double p90;
    sim_validate_summary(e, n, med, &p90);
    if (!n) { /* no median to print: "0.0%" would read as a perfect score */
        fprintf(out, "%s: 0 points\n", label);
        return;
    }
    fprintf(out, "%s: %zu points, median |error| %.1f%%, p90 %.1f%%\n", label, n, *med, p90);
}

/* |errors| of the rows that count, grouped: op-level, end-to-end, all; quantized op-level,
 * quantized and 16-bit end-to-end; then one group per op kind and per op size bucket. */
enum {
    G_OP,
    G_E2E,
    G_ALL,
    G_QOP,
    G_QE2E,
    G_E2E16,
    G_SPEC, /* speculative decoding's speed-ups */
    G_TTFT, /* end-to-end rows by what they time: the first token, the tokens after it */
    G_ITL,
    G_MOE, /* the end-to-end rows of mixture-of-experts models, all and by what they time */
    G_MOE_TTFT,
    G_MOE_ITL,
    G_KIND,
    G_BUCKET = G_KIND + SIM_VK_E2E,
    G_ENERGY = G_BUCKET + SIM_VBUCKET_COUNT, /* the power estimate's rows: apart, ungated */
    N_GROUPS
};

/* What an end-to-end row's metric times: the first token (G_TTFT: mean/median TTFT), the tokens
 * after it (G_ITL: ITL or TPOT), or neither (-1: a batch's or a run's time, a throughput). */
static int row_timed_group(const sim_vrow *r)
{
    if (strstr(r->metric, "ttft"))
        return G_TTFT;
    if (strstr(r->metric, "itl") || strstr(r->metric, "tpot"))
        return G_ITL;
    return -1;
}

/* |errors| by a name, in the order the rows first give it: the op-level rows of each device (a
 * device's calibration is judged on its own rows: `op hw NAME` lines), and the speculative-decoding
 * rows by the engine that measured them and by the method (`speculative decoding, engine NAME`,
 * `speculative decoding, method NAME` lines). */
enum { MAX_DEVICES = 64 };
typedef struct dev_errs {
    size_t n;
    char name[MAX_DEVICES][48];
    double *e[MAX_DEVICES];
    size_t cnt[MAX_DEVICES];
} dev_errs;

static sim_status dev_add(dev_errs *d, const char *name, double e, size_t rows, sim_err *err)
{
    size_t i = 0;
    while (i < d->n && strcmp(d->name[i], name) != 0)
        i++;
    if (i == d->n) {
        if (d->n == MAX_DEVICES)
            return SIM_OK; /* more devices than lines: the summaries above still count them */
        snprintf(d->name[i], sizeof d->name[i], "%s", name);
        if (!(d->e[i] = malloc((rows ? rows : 1) * sizeof(double))))
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        d->n++;
    }
    d->e[i][d->cnt[i]++] = e;
    return SIM_OK;
}

/* A device's family, the chip the targets count as one ("A100" for the 40 and 80 GB
 * boards, "H100" for SXM and PCIe): the name's first '-'-separated part when it names a chip (has
 * a digit: a100, h100, mi300x, b200), else the whole name (tpu-v6e, rtx-4090 name no chip in
 * their first part). */
static void dev_family(const char *hw, char *fam, size_t len)
{
    const size_t cut = strcspn(hw, "-");
    bool digit = false;
    for (size_t i = 0; i < cut; i++)
        digit = digit || isdigit((unsigned char)hw[i]);
    snprintf(fam, len, "%.*s", (int)(digit ? cut : strlen(hw)), hw);
}

/* Families with at least this many op-level rows are held to --max-family-median (issue 25: "at
 * least 8 rows per device"); fewer rows say too little about a calibration to gate it. */
enum { FAMILY_GATE_ROWS = 8 };

/* One line per device, each label the prefix and the device's name */
static void dev_summaries(const dev_errs *d, const char *prefix, FILE *out)
{
    char label[96];
    double med;
    for (size_t i = 0; i < d->n; i++) {
        snprintf(label, sizeof label, "  %s%s", prefix, d->name[i]);
        summary_line(out, label, d->e[i], d->cnt[i], &med);
    }
}

/* After dev_summaries' op lines, one line per family of two or more devices with their rows
 * together; with --max-family-median, a family of FAMILY_GATE_ROWS rows or more past it fails
 * (exit 1), and the gate with no such family fails as a bad input (it would pass whatever the
 * model does). */
static sim_status family_summaries(const cli_opts *o, const dev_errs *d, FILE *out, sim_err *err)
{
    char label[160], fam[48], other[48];
    double med;
    const bool gate = cli_opt_given(o, CLI_OPT_ID_MAX_FAMILY_MEDIAN);
    size_t gated = 0;
    sim_status st = SIM_OK;
    for (size_t i = 0; i < d->n && !st; i++) {
        dev_family(d->name[i], fam, sizeof fam);
        bool first = true; /* the family's first device in the rows' order prints its line */
        size_t rows = 0, members = 0;
        int at = snprintf(label, sizeof label, "  op family %s (", fam);
        for (size_t j = 0; j < d->n; j++) {
            dev_family(d->name[j], other, sizeof other);
            if (strcmp(fam, other) != 0)
                continue;
            first = first && j >= i;
            rows += d->cnt[j];
            if (at > 0 && (size_t)at < sizeof label)
                at += snprintf(label + at, sizeof label - (size_t)at, "%s%s", members ? ", " : "",
                               d->name[j]);
            members++;
        }
        if (!first)
            continue;
        double *e = malloc((rows ? rows : 1) * sizeof *e);
        if (!e)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        size_t k = 0;
        for (size_t j = 0; j < d->n; j++) {
            dev_family(d->name[j], other, sizeof other);
            for (size_t r = 0; !strcmp(fam, other) && r < d->cnt[j]; r++)
                e[k++] = d->e[j][r];
        }
        if (at > 0 && (size_t)at < sizeof label)
            snprintf(label + at, sizeof label - (size_t)at, ")");
        if (members > 1)
            summary_line(out, label, e, k, &med);
        else
            sim_validate_summary(e, k, &med, &(double){0.0});
        free(e);
        if (gate && rows >= FAMILY_GATE_ROWS) {
            gated++;
            if (med > o->max_family_median)
                st = sim_fail(err, SIM_EINTERNAL,
                              "validation: op-level median %.1f%% of device family %s (%zu rows) "
                              "is above %.1f%%",
                              med, fam, rows, o->max_family_median);
        }
    }
    if (!st && gate && !gated)
        st = sim_fail(err, SIM_EINPUT,
                      "--max-family-median: no device family has %d or more op-level rows that "
                      "could be priced, expected at least one",
                      FAMILY_GATE_ROWS);
    return st;
}

static void dev_free(dev_errs *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->e[i]);
}

/* A counted speculative-decoding row's |error| under its engine (the profile that priced it) and
 * its method (the first word of the row's speculation: eagle, eagle3, mtp, ...). */
static sim_status spec_add(dev_errs *by_engine, dev_errs *by_method, const sim_vrow *r,
                           const sim_engprof *prof, double e, size_t rows, sim_err *err)
{
    sim_status st = prof ? dev_add(by_engine, prof->engine, e, rows, err) : SIM_OK;
    char method[48];
    snprintf(method, sizeof method, "%.*s", (int)strcspn(r->spec, " "), r->spec);
    return st ? st : dev_add(by_method, method, e, rows, err);
}

static sim_status validate_summaries(const cli_opts *o, const char *path, double *const *errs,
                                     const size_t *cnt, size_t low, FILE *out, sim_err *err)
{
    double med[N_GROUPS];
    char label[64];
    summary_line(out, "validation", errs[G_ALL], cnt[G_ALL], &med[G_ALL]);
    summary_line(out, "  op-level", errs[G_OP], cnt[G_OP], &med[G_OP]);
    summary_line(out, "  end-to-end", errs[G_E2E], cnt[G_E2E], &med[G_E2E]);
    static const struct {
        int group;
        const char *label;
    } timed[] = {{G_TTFT, "    TTFT"},
                 {G_ITL, "    ITL / TPOT"},
                 {G_MOE, "  end-to-end MoE"},
                 {G_MOE_TTFT, "    MoE TTFT"},
                 {G_MOE_ITL, "    MoE ITL / TPOT"}};
    for (size_t t = 0; t < sizeof timed / sizeof timed[0]; t++)
        summary_line(out, timed[t].label, errs[timed[t].group], cnt[timed[t].group],
                     &med[timed[t].group]);
    double p90;
    for (int g = G_QOP; g <= G_E2E16; g++)
        sim_validate_summary(errs[g], cnt[g], &med[g], &p90);
    fprintf(out,
            "  quantized: op-level %zu points, median |error| %.1f%%; end-to-end %zu points, "
            "median %.1f%% (16-bit end-to-end: %zu points, median %.1f%%)\n",
            cnt[G_QOP], med[G_QOP], cnt[G_QE2E], med[G_QE2E], cnt[G_E2E16], med[G_E2E16]);
    if (cnt[G_SPEC])
        summary_line(out, "  speculative decoding", errs[G_SPEC], cnt[G_SPEC], &med[G_SPEC]);
    else
        med[G_SPEC] = 0.0;
    for (int k = 0; k < SIM_VK_E2E; k++) {
        snprintf(label, sizeof label, "  op %s", sim_vkind_name((sim_vkind)k));
        summary_line(out, label, errs[G_KIND + k], cnt[G_KIND + k], &med[G_KIND + k]);
    }
    for (int b = 0; b < SIM_VBUCKET_COUNT; b++) {
        snprintf(label, sizeof label, "  op size %s", sim_validate_bucket_name(b));
        summary_line(out, label, errs[G_BUCKET + b], cnt[G_BUCKET + b], &med[G_BUCKET + b]);
    }
    summary_line(out, "  energy (estimate, not gated)", errs[G_ENERGY], cnt[G_ENERGY],
                 &med[G_ENERGY]);
    if (low)
        fprintf(out, "  (%zu low-trust rows shown above, left out of these figures)\n", low);
    /* a gate over no points would pass whatever the model does */
    if ((cli_opt_given(o, CLI_OPT_ID_MAX_OP_MEDIAN) ||
         cli_opt_given(o, CLI_OPT_ID_MAX_BUCKET_MEDIAN)) &&
        !cnt[G_OP])
        return sim_fail(err, SIM_EINPUT,
                        "%s: %s has no op-level row that could be priced, expected at least one",
                        cli_opt_given(o, CLI_OPT_ID_MAX_OP_MEDIAN) ? "--max-op-median"
                                                                   : "--max-bucket-median",
                        path);
    if (cli_opt_given(o, CLI_OPT_ID_MAX_E2E_MEDIAN) && !cnt[G_E2E])
        return sim_fail(err, SIM_EINPUT,
                        "--max-e2e-median: %s has no end-to-end row that could be priced, "
                        "expected at least one",
                        path);
    if (cli_opt_given(o, CLI_OPT_ID_MAX_OP_MEDIAN) && med[G_OP] > o->max_op_median)
        return sim_fail(err, SIM_EINTERNAL, "validation: op-level median %.1f%% is above %.1f%%",
                        med[G_OP], o->max_op_median);
    for (int b = 0; b < SIM_VBUCKET_COUNT; b++)
        if (cli_opt_given(o, CLI_OPT_ID_MAX_BUCKET_MEDIAN) &&
            med[G_BUCKET + b] > o->max_bucket_median)
            return sim_fail(err, SIM_EINTERNAL,
                            "validation: op-level median %.1f%% of size %s is above %.1f%%",
                            med[G_BUCKET + b], sim_validate_bucket_name(b), o->max_bucket_median);
    if (cli_opt_given(o, CLI_OPT_ID_MAX_SPEC_MEDIAN) && !cnt[G_SPEC])
        return sim_fail(err, SIM_EINPUT,
                        "--max-spec-median: %s has no spec row that could be priced, expected at "
                        "least one",
                        path);
    if (cli_opt_given(o, CLI_OPT_ID_MAX_SPEC_MEDIAN) && med[G_SPEC] > o->max_spec_median)
        return sim_fail(err, SIM_EINTERNAL,
                        "validation: speculative-decoding median %.1f%% is above %.1f%%",
                        med[G_SPEC], o->max_spec_median);
    if (cli_opt_given(o, CLI_OPT_ID_MAX_E2E_MEDIAN) && med[G_E2E] > o->max_e2e_median)
        return sim_fail(err, SIM_EINTERNAL, "validation: end-to-end median %.1f%% is above %.1f%%",
                        med[G_E2E], o->max_e2e_median);
    return SIM_OK;
}

/* The end-to-end rows' |errors| by the engine that measured them (the profile's "engine", with
 * " rocm" for a ROCm build): one summary line each. */
#define FAMILIES 16
typedef struct families {
    int n;
    char name[FAMILIES][40];
    double *e[FAMILIES];
    size_t cnt[FAMILIES];
} families;

static sim_status family_add(families *f, const sim_engprof *p, double e, size_t rows)
{
    char name[40];
    snprintf(name, sizeof name, "%s%s", p->engine, p->platform == SIM_ENGPROF_ROCM ? " rocm" : "");
    int k = 0;
    while (k < f->n && strcmp(f->name[k], name) != 0)
        k++;
    if (k == FAMILIES)
        return SIM_OK; /* more engines than lines: the overall figures still count the row */
    if (k == f->n) {
        if (!(f->e[k] = malloc((rows ? rows : 1) * sizeof(double))))
            return SIM_EINTERNAL;
        snprintf(f->name[f->n++], sizeof f->name[0], "%s", name);
    }
    f->e[k][f->cnt[k]++] = fabs(e);
    return SIM_OK;
}

sim_status cli_validate_cmd(const cli_opts *o, FILE *out, sim_err *err)
{
    char path[PATH_MAX];
    if (strcmp(o->frontend, "profile") != 0 && strcmp(o->frontend, "none") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--frontend: value '%s', expected profile (the engine profile's front "
                        "end) or none",
                        o->frontend);
    if (o->coverage_out && o->coverage_draws == 0)
        return sim_fail(err, SIM_EINPUT,
                        "--coverage-draws: value 0 with --coverage-out, expected draws above 0 "
                        "(the bands --coverage-out writes)");
    cli_load_data_path(o, path, sizeof path);
    sim_vrow *rows;
    size_t n;
    sim_status st = sim_validate_load(path, &rows, &n, err);
    if (st)
        return st;
    cli_load_cache cache = {0};
    families fam = {0};
    dev_errs devs = {0}, spec_engines = {0}, spec_methods = {0};
    double *errs[N_GROUPS];
    size_t cnt[N_GROUPS] = {0}, low = 0;
    for (int g = 0; g < N_GROUPS; g++)
        if (!(errs[g] = malloc((n ? n : 1) * sizeof(double))))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    double *preds = malloc((n ? n : 1) * sizeof *preds); /* NAN: not in the summaries */
    if (!preds)
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    for (size_t i = 0; preds && i < n; i++)
        preds[i] = NAN;
    fprintf(out, "%4s %-9s %-14s %-14s %-15s %12s %12s %8s\n", "id", "kind", "hw", "metric",
            "detail", "measured", "predicted", "error");
    for (size_t i = 0; i < n && !st; i++) {
        const sim_vrow *r = &rows[i];
        char detail[sizeof r->framework]; /* an op row shows its framework */
        if (r->kind == SIM_VK_GEMM)
            snprintf(detail, sizeof detail, "%lldx%lldx%lld", (long long)r->m, (long long)r->n,
                     (long long)r->k);
        else if (r->kind == SIM_VK_GROUPED_GEMM)
            snprintf(detail, sizeof detail, "%lldx(%lldx%lldx%lld)", (long long)r->batch,
                     (long long)r->m, (long long)r->n, (long long)r->k);
        else if (sim_vkind_is_op(r->kind))
            snprintf(detail, sizeof detail, "%s", r->framework);
        else if (r->kind == SIM_VK_SERVE) /* lengths and requests */
            snprintf(detail, sizeof detail, "%lld/%lld x%lld", (long long)r->input_len,
                     (long long)r->output_len, (long long)r->batch);
        else
            snprintf(detail, sizeof detail, "%s b%lld", r->model, (long long)r->batch);
        if (r->skip[0]) {
            fprintf(out, "%4lld skipped: %s\n", (long long)r->id, r->skip);
            continue;
        }
        sim_err rerr = {{0}};
        double pred = 0.0;
        sim_prec prec = {0}; /* end-to-end rows: the formats they ran in */
        sim_status rs = cli_validate_predict(o, &cache, r, NULL, NULL, &pred, &prec, &rerr);
        const sim_engprof *row_prof = NULL; /* end-to-end rows: the profile that scored it */
        bool row_moe = false;                /* ... and whether its model routes to experts */
        if (!rs && !sim_vkind_is_op(r->kind)) {
            sim_status ps;
            const cli_load_entry *pm = cli_validate_row_file(&cache, CLI_LOAD_MODEL, r->model,
                                                             &rerr, &ps);
            row_moe = pm && pm->model.experts > 0;
            const cli_load_entry *pe = cli_validate_row_profile(&cache, r, &ps, &rerr);
            row_prof = pe ? &pe->eng : NULL;
        }
        if (rs == SIM_EINTERNAL) {
            *err = rerr;
            st = rs;
            break;
        }
        if (rs) {
            fprintf(out, "%4lld skipped: %s\n", (long long)r->id, rerr.msg);
            continue;
        }
        double e = sim_validate_error_pct(pred, r->value);
        fprintf(out, "%4lld %-9s %-14s %-14s %-15.15s %12.4g %12.4g %+7.1f%%%s\n", (long long)r->id,
                sim_vkind_name(r->kind), r->hw, r->metric, detail, r->value, pred, e,
                r->low_trust ? " (low trust)" : "");
        if (r->low_trust) {
            low++;
            continue;
        }
        if (sim_validate_is_energy(r->metric)) { /* a model of its own: summarized apart */
            errs[G_ENERGY][cnt[G_ENERGY]++] = fabs(e);
            continue;
        }
        preds[i] = pred;
        bool op = sim_vkind_is_op(r->kind);
        if (r->kind == SIM_VK_SPEC) { /* a ratio of two runs: its own group and gate */
            errs[G_SPEC][cnt[G_SPEC]++] = fabs(e);
            errs[G_ALL][cnt[G_ALL]++] = fabs(e);
            st = spec_add(&spec_engines, &spec_methods, r, row_prof, fabs(e), n, err);
            continue;
        }
        int groups[5] = {op ? G_OP : G_E2E, G_ALL, op ? G_KIND + (int)r->kind : -1,
                         op ? G_BUCKET + sim_validate_bucket(r) : -1,
                         cli_validate_row_quantized(r, &prec) ? (op ? G_QOP : G_QE2E)
                         : op                     ? -1
                                                  : G_E2E16};
        const int timed = op ? -1 : row_timed_group(r);
        int more[3] = {timed, !op && row_moe ? G_MOE : -1,
                       !op && row_moe && timed >= 0 ? timed + (G_MOE_TTFT - G_TTFT) : -1};
        for (int g = 0; g < 5; g++)
            if (groups[g] >= 0)
                errs[groups[g]][cnt[groups[g]]++] = fabs(e);
        for (int g = 0; g < 3; g++)
            if (more[g] >= 0)
                errs[more[g]][cnt[more[g]]++] = fabs(e);
        if (!op && row_prof && family_add(&fam, row_prof, e, n))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        if (op && !st)
            st = dev_add(&devs, r->hw, fabs(e), n, err);
    }
    if (!st)
        st = validate_summaries(o, path, errs, cnt, low, out, err);
    if (!st) {
        dev_summaries(&devs, "op hw ", out);
        st = family_summaries(o, &devs, out, err);
        dev_summaries(&spec_engines, "speculative decoding, engine ", out);
        dev_summaries(&spec_methods, "speculative decoding, method ", out);
    }
    if (!st)
        st = cli_validate_bands(o, &cache, rows, n, preds, out, err);
    free(preds);
    dev_free(&devs);
    dev_free(&spec_engines);
    dev_free(&spec_methods);
    for (int k = 0; k < fam.n; k++) {
        char label[64];
        double med;
        snprintf(label, sizeof label, "  end-to-end, engine %s", fam.name[k]);
        if (!st || st == SIM_EINTERNAL)
            summary_line(out, label, fam.e[k], fam.cnt[k], &med);
        free(fam.e[k]);
    }
    for (int g = 0; g < N_GROUPS; g++)
        free(errs[g]);
    free(rows);
    cli_load_cache_free(&cache);
    return st;
}
