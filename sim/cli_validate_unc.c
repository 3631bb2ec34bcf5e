/* cli_validate_unc.c - the validate command's uncertainty: the table of every family's error
 * from the rows' residuals (validate.h's sim_validate_unc_table), written with
 * --uncertainty-out, and the coverage of the end-to-end rows by their 80 % bands, each row's band
 * drawn from a table built without the row's source. */
#define _POSIX_C_SOURCE 200809L
#include "cli_validate_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"

/* Draws of the op families alone per end-to-end row: the variance the kernels explain. */
enum { OP_DRAWS = 8, MAX_DEVICES = 64 };

/* A device of the rows with its two variants: its efficiencies from the architecture's default
 * rules (the file without efficiency, quant and decode_cta_gb_per_s), and those of a sibling of
 * its architecture (another device of the rows). */
typedef struct variant {
    char name[48];
    bool has_default, has_sibling;
    sim_hw def, sibling;
} variant;

/* The device file at `path` without its measured efficiencies, loaded through a temporary copy. */
static bool load_default(const char *path, sim_hw *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            char *t = realloc(text, cap = 2 * cap + 8192);
            if (!t) {
                free(text);
                fclose(f);
                return false;
            }
            text = t;
        }
        size_t k = fread(text + len, 1, 4096, f);
        len += k;
        if (k < 4096)
            break;
    }
    fclose(f);
    text[len] = '\0';
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root)
        return false;
    static const char *const measured[] = {"efficiency", "quant", "decode_cta_gb_per_s"};
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(root, measured[i]);
    char *json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    const char *dir = getenv("TMPDIR");
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/infersim-default-XXXXXX", dir && dir[0] ? dir : "/tmp");
    int fd = json ? mkstemp(tmp) : -1;
    bool ok = false;
    if (fd >= 0) {
        size_t n = strlen(json);
        ok = write(fd, json, n) == (ssize_t)n;
        close(fd);
        sim_err e;
        ok = ok && sim_hw_load(tmp, out, &e) == SIM_OK;
        unlink(tmp);
    }
    free(json);
    return ok;
}

/* The sibling's measured efficiencies on `hw` (the sibling's name kept for the draws' seeds is
 * hw's: the variant stands for hw with borrowed numbers). */
static void borrow(const sim_hw *from, sim_hw *hw)
{
    memcpy(hw->eff_gemm, from->eff_gemm, sizeof hw->eff_gemm);
    hw->eff_gemm_weight_only = from->eff_gemm_weight_only;
    hw->eff_attention = from->eff_attention;
    hw->attn_kv_half = from->attn_kv_half;
    hw->eff_memory = from->eff_memory;
    hw->eff_attn_memory = from->eff_attn_memory;
    hw->eff_network = from->eff_network;
    hw->decode_cta_bytes_per_s = from->decode_cta_bytes_per_s;
    hw->gemm_k_half = from->gemm_k_half;
    hw->quant = from->quant;
}

/* The variants of every device the op rows name. */
static size_t build_variants(cli_load_cache *cache, const sim_vrow *rows, size_t n,
                             const double *preds, variant *v)
{
    size_t nv = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(preds[i]) || !sim_vkind_is_op(rows[i].kind))
            continue;
        size_t j = 0;
        while (j < nv && strcmp(v[j].name, rows[i].hw) != 0)
            j++;
        if (j < nv || nv == MAX_DEVICES)
            continue;
        sim_err e;
        sim_status st;
        const cli_load_entry *h = cli_validate_row_file(cache, CLI_LOAD_HW, rows[i].hw, &e, &st);
        if (!h)
            continue;
        variant *x = &v[nv++];
        memset(x, 0, sizeof *x);
        snprintf(x->name, sizeof x->name, "%s", rows[i].hw);
        x->has_default = load_default(h->hw.path, &x->def);
    }
    /* each device's sibling: the first other device of its architecture */
    for (size_t j = 0; j < nv; j++) {
        sim_err e;
        sim_status st;
        const cli_load_entry *h = cli_validate_row_file(cache, CLI_LOAD_HW, v[j].name, &e, &st);
        for (size_t k = 0; h && k < nv && !v[j].has_sibling; k++) {
            const cli_load_entry *s = cli_validate_row_file(cache, CLI_LOAD_HW, v[k].name, &e, &st);
            h = cli_validate_row_file(cache, CLI_LOAD_HW, v[j].name, &e, &st);
            if (k == j || !s || !h ||
                strcmp(sim_unc_device_family(&s->hw), sim_unc_device_family(&h->hw)) != 0)
                continue;
            v[j].sibling = h->hw;
            borrow(&s->hw, &v[j].sibling);
            v[j].has_sibling = true;
        }
    }
    return nv;
}

static void add_ev(sim_unc_evidence *ev, size_t *n, bool e2e, sim_unc_family f, sim_unc_prov p,
                   const char *scope, const char *source, double pred, double measured)
{
    sim_unc_evidence *e = &ev[(*n)++];
    *e = (sim_unc_evidence){.e2e = e2e, .family = f, .prov = p, .log_err = log(pred / measured)};
    snprintf(e->scope, sizeof e->scope, "%.31s", scope);
    sim_validate_source_key(source, e->source, sizeof e->source);
}

/* Whether the architecture's default of family f was measured on the device file at `path` (its
 * arch row's source names the file): then its rows would vouch for themselves as defaults. */
static bool vouches(const sim_hw *def, sim_unc_family f, const char *path)
{
    const char *field = sim_unc_family_field(f), *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; field && i < sim_hw_n_fields(); i++) {
        sim_hw_field_info fi = sim_hw_field(def, i);
        if (strcmp(fi.json, field) == 0)
            return fi.arch_source && strstr(fi.arch_source, base);
    }
    return false;
}

/* The op rows' evidence: each row as priced, on its default variant (unless the default was
 * measured on that device) and on its sibling's. */
static void op_evidence(const cli_opts *o, cli_load_cache *cache, const sim_vrow *rows, size_t n,
                        const double *preds, const variant *v, size_t nv, sim_unc_evidence *ev,
                        size_t *ne)
{
    for (size_t i = 0; i < n; i++) {
        const sim_vrow *r = &rows[i];
        if (isnan(preds[i]) || !sim_vkind_is_op(r->kind))
            continue;
        sim_err e;
        sim_status st;
        const cli_load_entry *h = cli_validate_row_file(cache, CLI_LOAD_HW, r->hw, &e, &st);
        if (!h)
            continue;
        const sim_unc_family f = sim_validate_row_family(r, &h->hw);
        const sim_unc_prov p = sim_unc_provenance(&h->hw, f);
        const char *arch = sim_unc_device_family(&h->hw);
        add_ev(ev, ne, false, f, p, arch, r->source, preds[i], r->value);
        size_t j = 0;
        while (j < nv && strcmp(v[j].name, r->hw) != 0)
            j++;
        if (j == nv || p != SIM_UNC_FITTED)
            continue;
        double pred;
        sim_prec prec;
        if (v[j].has_default && !vouches(&v[j].def, f, h->hw.path) &&
            !cli_validate_predict(o, cache, r, &v[j].def, NULL, &pred, &prec, &e))
            add_ev(ev, ne, false, f, SIM_UNC_DEFAULT, arch, r->source, pred, r->value);
        if (v[j].has_sibling &&
            !cli_validate_predict(o, cache, r, &v[j].sibling, NULL, &pred, &prec, &e))
            add_ev(ev, ne, false, f, SIM_UNC_INHERITED, arch, r->source, pred, r->value);
    }
}

/* The energy rows' evidence (the power family): each row that counts, as predicted. */
static void energy_evidence(const cli_opts *o, cli_load_cache *cache, const sim_vrow *rows,
                            size_t n, sim_unc_evidence *ev, size_t *ne)
{
    for (size_t i = 0; i < n; i++) {
        const sim_vrow *r = &rows[i];
        if (r->skip[0] || r->low_trust || !sim_validate_is_energy(r->metric))
            continue;
        sim_err e;
        sim_status st;
        double pred;
        sim_prec prec;
        const cli_load_entry *h = cli_validate_row_file(cache, CLI_LOAD_HW, r->hw, &e, &st);
        if (!h)
            continue;
        char arch[32];
        snprintf(arch, sizeof arch, "%s", sim_unc_device_family(&h->hw));
        if (cli_validate_predict(o, cache, r, NULL, NULL, &pred, &prec, &e) || !(pred > 0.0) ||
            !(r->value > 0.0))
            continue;
        add_ev(ev, ne, false, SIM_UNC_POWER, SIM_UNC_DEFAULT, arch, r->source, pred, r->value);
    }
}

/* An end-to-end row's engine (unc.h): the version-exact profile that scores it (its framework
 * column resolved as --engine NAME@VERSION is) and that profile's engine, ":moe" for a MoE
 * model. */
static void row_ref(cli_load_cache *cache, const sim_vrow *r, sim_unc_engine_ref *ref)
{
    sim_err e;
    sim_status st;
    const cli_load_entry *p = cli_validate_row_profile(cache, r, &st, &e);
    char name[32] = "*", engine[32] = "";
    if (p) {
        snprintf(name, sizeof name, "%s", p->eng.name);
        snprintf(engine, sizeof engine, "%s", p->eng.engine);
    }
    const cli_load_entry *m = cli_validate_row_file(cache, CLI_LOAD_MODEL, r->model, &e, &st);
    sim_unc_engine_ref_of(name, engine, m ? &m->model : NULL, ref);
}

/* Row r's predictions under draws 0 .. nd-1 of table t (families: unc.h's mask, 0 all). */
static sim_status draws_of(const cli_opts *o, cli_load_cache *cache, const sim_vrow *r, const sim_unc_table *t,
                           unsigned families, int nd, double *out, sim_err *err)
{
    sim_status st;
    const cli_load_entry *h = cli_validate_row_file(cache, CLI_LOAD_HW, r->hw, err, &st);
    if (!h)
        return st;
    sim_hw hw = h->hw; /* the entry may move while the row's files load */
    sim_unc_engine_ref ref;
    row_ref(cache, r, &ref);
    for (int d = 0; d < nd; d++) {
        sim_unc_draw dr;
        sim_unc_draw_make_n(t, &hw, &ref, 0, d, nd, families, &dr);
        sim_prec prec;
        if ((st = cli_validate_predict(o, cache, r, NULL, &dr, &out[d], &prec, err)))
            return st;
    }
    return SIM_OK;
}

/* The groups of the coverage: all, static, serve, MoE, quantized, then one per device family. */
enum { G_ALL, G_STATIC, G_SERVE, G_MOE, G_QUANT, G_ARCH, MAX_GROUPS = G_ARCH + 16 };

typedef struct coverage {
    char name[MAX_GROUPS][24];
    size_t in[MAX_GROUPS], rows[MAX_GROUPS];
    double width[MAX_GROUPS]; /* sum of log(hi / lo) */
    size_t n;
} coverage;

static void count(coverage *c, const char *name, bool in, double width)
{
    size_t g = 0;
    while (g < c->n && strcmp(c->name[g], name) != 0)
        g++;
    if (g == c->n) {
        if (c->n == MAX_GROUPS)
            return;
        snprintf(c->name[c->n++], sizeof c->name[0], "%s", name);
    }
    c->rows[g]++;
    c->in[g] += in;
    c->width[g] += width;
}

static double pct(const coverage *c, size_t g)
{
    return c->rows[g] ? 100.0 * (double)c->in[g] / (double)c->rows[g] : 0.0;
}

/* Prints the coverage and applies the gates; the gates skip a group of fewer than 5 rows. */
static sim_status coverage_report(const cli_opts *o, const coverage *c, int nd, FILE *out,
                                  sim_err *err)
{
    fprintf(out,
            "  bands (80 %%, %d draws, leave-one-source-out): %.1f%% of %zu end-to-end rows "
            "inside, median width x%.2f\n   ",
            nd, pct(c, 0), c->rows[0], c->rows[0] ? exp(c->width[0] / (double)c->rows[0]) : 1.0);
    for (size_t g = 1; g < c->n; g++)
        fprintf(out, " %s %.0f%% (%zu)%s", c->name[g], pct(c, g), c->rows[g],
                g + 1 < c->n ? "," : "\n");
    if (c->n <= 1)
        fputc('\n', out);
    if (cli_opt_given(o, CLI_OPT_ID_MIN_COVERAGE) || cli_opt_given(o, CLI_OPT_ID_MAX_COVERAGE)) {
        if (!c->rows[0])
            return sim_fail(err, SIM_EINPUT,
                            "--min-coverage: no end-to-end row could be banded, expected one");
        if ((cli_opt_given(o, CLI_OPT_ID_MIN_COVERAGE) && pct(c, 0) < o->min_coverage) ||
            (cli_opt_given(o, CLI_OPT_ID_MAX_COVERAGE) && pct(c, 0) > o->max_coverage))
            return sim_fail(err, SIM_EINTERNAL,
                            "validation: the 80 %% bands hold %.1f%% of the end-to-end rows, "
                            "outside %g-%g%%",
                            pct(c, 0), o->min_coverage, o->max_coverage);
    }
    for (size_t g = 1; g < c->n; g++) {
        if (c->rows[g] < 5)
            continue;
        if ((cli_opt_given(o, CLI_OPT_ID_MIN_GROUP_COVERAGE) &&
             pct(c, g) < o->min_group_coverage) ||
            (cli_opt_given(o, CLI_OPT_ID_MAX_GROUP_COVERAGE) && pct(c, g) > o->max_group_coverage))
            return sim_fail(err, SIM_EINTERNAL,
                            "validation: the 80 %% bands hold %.1f%% of the %s rows, outside "
                            "%g-%g%%",
                            pct(c, g), c->name[g], o->min_group_coverage, o->max_group_coverage);
    }
    return SIM_OK;
}

/* One row of --coverage-out: the row, its band, the engine scope and sigma it drew from (the
 * table without its source) and whether the band held the measurement. */
static void band_row(sim_strbuf *b, const sim_vrow *r, double pred, double lo, double hi,
                     bool in, const sim_unc_basis *basis, const char *source)
{
    sim_strbuf_printf(b, "%lld,%s,%s,", (long long)r->id, sim_vkind_name(r->kind), r->hw);
    sim_strbuf_csv(b, r->model, false);
    sim_strbuf_printf(b, ",%s,%.6g,%.6g,%.6g,%.6g,%d,%s,%.4f,%s,", r->metric, r->value, pred, lo,
                      hi, in, basis->scope, basis->sigma, sim_unc_level_name(basis->level));
    sim_strbuf_csv(b, source, false);
    sim_strbuf_printf(b, "\n");
}

/* The band of each end-to-end row from a table without its source; counted by group, and each
 * row's written to `rows_out` (NULL: not asked for). */
static sim_status measure_coverage(const cli_opts *o, cli_load_cache *cache, const sim_vrow *rows, size_t n,
                                   const double *preds, const sim_unc_evidence *ev, size_t ne,
                                   int nd, coverage *c, sim_strbuf *rows_out, sim_err *err)
{
    if (rows_out)
        sim_strbuf_printf(rows_out, "id,kind,hw,model,metric,measured,predicted,lo,hi,inside,"
                                    "engine_scope,engine_sigma,engine_level,source\n");
    sim_unc_table *t = malloc(sizeof *t);
    double *v = malloc((size_t)nd * sizeof *v);
    sim_status st = t && v ? SIM_OK : sim_fail(err, SIM_EINTERNAL, "out of memory");
    for (size_t i = 0; !st && i < n; i++) {
        const sim_vrow *r = &rows[i];
        if (isnan(preds[i]) || sim_vkind_is_op(r->kind) || r->kind == SIM_VK_SPEC)
            continue;
        char source[200];
        sim_validate_source_key(r->source, source, sizeof source);
        if (!sim_validate_unc_table(ev, ne, source, t))
            st = sim_fail(err, SIM_EINTERNAL, "the uncertainty table is full");
        if (!st && (st = draws_of(o, cache, r, t, 0, nd, v, err)) == SIM_EINPUT)
            st = SIM_OK; /* the row was priced once: a draw cannot make it unpriceable */
        if (st)
            break;
        double lo, hi;
        sim_unc_band_of(v, (size_t)nd, &lo, &hi);
        const bool in = r->value >= lo && r->value <= hi;
        const double w = lo > 0.0 ? log(hi / lo) : 0.0;
        if (rows_out) {
            sim_unc_engine_ref ref;
            row_ref(cache, r, &ref);
            sim_unc_basis basis;
            sim_unc_engine_sigma(t, &ref, &basis);
            band_row(rows_out, r, preds[i], lo, hi, in, &basis, source);
        }
        sim_err e;
        const cli_load_entry *m = cli_validate_row_file(cache, CLI_LOAD_MODEL, r->model, &e, &st);
        const bool moe = m && m->model.experts > 0;
        sim_prec prec = {0};
        const cli_load_entry *h = cli_validate_row_file(cache, CLI_LOAD_HW, r->hw, &e, &st);
        st = SIM_OK;
        if (m && h)
            sim_validate_row_prec(r, &m->model, &h->hw, &prec, &e);
        count(c, "all", in, w);
        count(c, r->kind == SIM_VK_SERVE ? "serve" : "static", in, w);
        if (moe)
            count(c, "MoE", in, w);
        if (cli_validate_row_quantized(r, &prec))
            count(c, "quantized", in, w);
        if (h)
            count(c, sim_unc_device_family(&h->hw), in, w);
    }
    free(t);
    free(v);
    return st;
}

/* Text b to the file `given` names (its flag `flag`; "-": out), whole or not at all. */
static sim_status write_text(const sim_strbuf *b, const char *given, const char *flag, FILE *out,
                             sim_err *err)
{
    const char *path = cli_opt_out_path(given);
    sim_outfile of;
    sim_status st;
    if (b->oom)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!path) {
        fputs(b->s ? b->s : "", out);
        return SIM_OK;
    }
    if ((st = sim_outfile_open(&of, path, flag, err)))
        return st;
    fputs(b->s ? b->s : "", of.f);
    return sim_outfile_commit(&of, err);
}

sim_status cli_validate_bands(const cli_opts *o, cli_load_cache *cache, const sim_vrow *rows,
                              size_t n, const double *preds, FILE *out, sim_err *err)
{
    variant *v = calloc(MAX_DEVICES, sizeof *v);
    sim_unc_evidence *ev = calloc(3 * n + 1, sizeof *ev);
    sim_unc_table *t = malloc(sizeof *t);
    double *d = calloc(OP_DRAWS, sizeof *d);
    coverage *c = calloc(1, sizeof *c);
    sim_status st = v && ev && t && d && c ? SIM_OK : sim_fail(err, SIM_EINTERNAL, "out of memory");
    size_t ne = 0;
    if (!st) {
        size_t nv = build_variants(cache, rows, n, preds, v);
        op_evidence(o, cache, rows, n, preds, v, nv, ev, &ne);
        energy_evidence(o, cache, rows, n, ev, &ne);
        sim_validate_source_ids(ev, ne);
        if (!sim_validate_unc_table(ev, ne, NULL, t)) /* the op families' alone, for op_var */
            st = sim_fail(err, SIM_EINTERNAL, "the uncertainty table is full");
    }
    /* the end-to-end rows: their residuals and what the op families' draws explain of them */
    for (size_t i = 0; !st && i < n; i++) {
        const sim_vrow *r = &rows[i];
        if (isnan(preds[i]) || sim_vkind_is_op(r->kind) || r->kind == SIM_VK_SPEC)
            continue;
        const unsigned op_families = ((1u << SIM_UNC_FAMILY_COUNT) - 1) & ~(1u << SIM_UNC_ENGINE);
        st = draws_of(o, cache, r, t, op_families, OP_DRAWS, d, err);
        if (st == SIM_EINPUT) {
            st = SIM_OK;
            continue;
        }
        double mean = 0.0, var = 0.0;
        for (int k = 0; k < OP_DRAWS; k++)
            mean += log(d[k]) / OP_DRAWS;
        for (int k = 0; k < OP_DRAWS; k++)
            var += (log(d[k]) - mean) * (log(d[k]) - mean) / (OP_DRAWS - 1);
        sim_unc_engine_ref ref;
        row_ref(cache, r, &ref);
        add_ev(ev, &ne, true, SIM_UNC_ENGINE, SIM_UNC_FITTED, ref.profile, r->source, preds[i],
               r->value);
        snprintf(ev[ne - 1].engine_scope, sizeof ev[ne - 1].engine_scope, "%.31s", ref.family);
        ev[ne - 1].op_var = var;
    }
    sim_validate_source_ids(ev, ne);
    if (!st && !sim_validate_unc_table(ev, ne, NULL, t))
        st = sim_fail(err, SIM_EINTERNAL, "the uncertainty table is full");
    if (!st && o->unc_out) {
        sim_strbuf b = {0};
        sim_unc_format(t, &b);
        st = write_text(&b, o->unc_out, "--uncertainty-out", out, err);
        sim_strbuf_free(&b);
    }
    sim_strbuf rows_out = {0};
    if (!st && o->coverage_draws > 0)
        st = measure_coverage(o, cache, rows, n, preds, ev, ne, (int)o->coverage_draws, c,
                              o->coverage_out ? &rows_out : NULL, err);
    if (!st && o->coverage_out)
        st = write_text(&rows_out, o->coverage_out, "--coverage-out", out, err);
    sim_strbuf_free(&rows_out);
    if (!st && o->coverage_draws > 0)
        st = coverage_report(o, c, (int)o->coverage_draws, out, err);
    free(v);
    free(ev);
    free(t);
    free(d);
    free(c);
    return st;
}
