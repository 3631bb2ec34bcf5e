/* unc.c - the uncertainty table, correlated draws of the step model's parameters, bands. */
#define _POSIX_C_SOURCE 200809L
#include "unc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "rng.h"

/* One row per family: its name and the device-file field whose origin is its provenance. */
static const struct {
    const char *name, *field;
} families[SIM_UNC_FAMILY_COUNT] = {
    [SIM_UNC_GEMM16] = {"gemm16", "efficiency.gemm.bf16"},
    [SIM_UNC_GEMM8] = {"gemm8", "efficiency.gemm.fp8"},
    [SIM_UNC_GEMM4] = {"gemm4", "efficiency.gemm.fp4"},
    [SIM_UNC_MIXED] = {"mixed_input", "efficiency.gemm_weight_only"},
    [SIM_UNC_ATTENTION] = {"attention", "efficiency.attention"},
    [SIM_UNC_DECODE_ATTENTION] = {"decode_attention", "efficiency.attention_memory"},
    [SIM_UNC_MEMORY] = {"memory", "efficiency.memory"},
    [SIM_UNC_NETWORK] = {"network", "efficiency.network"},
    [SIM_UNC_LAUNCH] = {"launch", "kernel_launch_us"},
    [SIM_UNC_ENGINE] = {"engine", NULL},
    [SIM_UNC_POWER] = {"power", NULL},
};

static const char *const prov_names[SIM_UNC_PROV_COUNT] = {
    [SIM_UNC_FITTED] = "fitted", [SIM_UNC_INHERITED] = "inherited", [SIM_UNC_DEFAULT] = "default"};

const char *sim_unc_prov_name(sim_unc_prov p) { return prov_names[p]; }
const char *sim_unc_family_field(sim_unc_family f) { return families[f].field; }

sim_unc_prov sim_unc_provenance(const sim_hw *hw, sim_unc_family f)
{
    if (!families[f].field)
        return SIM_UNC_FITTED;
    /* the device's own record (hw_prov.c): fitted on its rows, inherited from a measured part by
     * a stated rule, or a default; a value the file states with only a sources note keeps the
     * file-origin rule below (most were fitted before provenance was recorded) */
    const sim_hw_prov *p = sim_hw_provenance(hw, families[f].field);
    if (p && p->kind == SIM_HW_PROV_FITTED)
        return SIM_UNC_FITTED;
    if (p && p->kind == SIM_HW_PROV_INHERITED)
        return SIM_UNC_INHERITED;
    if (p && p->kind == SIM_HW_PROV_DEFAULT)
        return SIM_UNC_DEFAULT;
    for (size_t i = 0; i < sim_hw_n_fields(); i++) {
        sim_hw_field_info fi = sim_hw_field(hw, i);
        if (strcmp(fi.json, families[f].field) == 0)
            return fi.origin == SIM_HW_FILE      ? SIM_UNC_FITTED
                   : fi.origin == SIM_HW_DERIVED ? SIM_UNC_INHERITED
                                                 : SIM_UNC_DEFAULT;
    }
    return SIM_UNC_DEFAULT;
}

/* Device families by a substring of the display name, for files that name no arch (first match
 * wins: "GB200" before "B200", "H20" after "H200"). */
static const struct {
    const char *has, *family;
} name_families[] = {
    {"GB200", "blackwell"}, {"B200", "blackwell"}, {"B300", "blackwell"},
    {"Blackwell", "blackwell"}, {"H100", "hopper"},  {"H200", "hopper"},
    {"H20", "hopper"},      {"A100", "ampere"},   {"A10G", "ampere"},
    {"L40", "ada"},         {"L4 ", "ada"},       {"4090", "ada"},
    {"MI3", "cdna3"},       {"TPU", "tpu"},       {"Gaudi", "gaudi"},
};

const char *sim_unc_device_family(const sim_hw *hw)
{
    if (hw->arch[0])
        return hw->arch;
    for (size_t i = 0; i < sizeof name_families / sizeof name_families[0]; i++)
        if (strstr(hw->name, name_families[i].has))
            return name_families[i].family;
    return "other";
}

sim_unc_family sim_unc_gemm_family(sim_dtype compute, sim_dtype weight)
{
    if (weight != compute && sim_dtype_bytes(weight) < sim_dtype_bytes(compute))
        return SIM_UNC_MIXED;
    if (sim_dtype_is_16bit(compute))
        return SIM_UNC_GEMM16;
    return sim_dtype_bytes(compute) >= 1.0 ? SIM_UNC_GEMM8 : SIM_UNC_GEMM4;
}

bool sim_unc_set_sources(sim_unc_table *t, sim_unc_family f, const char *scope, sim_unc_prov p,
                         double sigma, int64_t rows, int64_t sources)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->e[i].family == f && t->e[i].prov == p && strcmp(t->e[i].scope, scope) == 0) {
            t->e[i].sigma = sigma;
            t->e[i].rows = rows;
            t->e[i].sources = sources;
            return true;
        }
    if (t->n >= SIM_UNC_MAX_ENTRIES)
        return false;
    sim_unc_entry *e = &t->e[t->n++];
    *e = (sim_unc_entry){.family = f, .prov = p, .sigma = sigma, .rows = rows, .sources = sources};
    snprintf(e->scope, sizeof e->scope, "%s", scope);
    return true;
}

bool sim_unc_set(sim_unc_table *t, sim_unc_family f, const char *scope, sim_unc_prov p,
                 double sigma, int64_t rows)
{
    return sim_unc_set_sources(t, f, scope, p, sigma, rows, 0);
}

const sim_unc_entry *sim_unc_find(const sim_unc_table *t, sim_unc_family f, const char *scope,
                                  sim_unc_prov p)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->e[i].family == f && t->e[i].prov == p && strcmp(t->e[i].scope, scope) == 0)
            return &t->e[i];
    return NULL;
}

double sim_unc_sigma(const sim_unc_table *t, sim_unc_family f, const char *scope,
                     sim_unc_prov p)
{
    const sim_unc_entry *e = sim_unc_find(t, f, scope ? scope : "*", p);
    if (!e)
        e = sim_unc_find(t, f, "*", p);
    if (!e)
        e = sim_unc_find(t, f, "*", SIM_UNC_DEFAULT);
    return e ? e->sigma : 0.0;
}

void sim_unc_format(const sim_unc_table *t, sim_strbuf *b)
{
    sim_strbuf_printf(b, "family,scope,provenance,sigma,rows,sources\n");
    for (size_t i = 0; i < t->n; i++)
        sim_strbuf_printf(b, "%s,%s,%s,%.4f,%lld,%lld\n", families[t->e[i].family].name,
                          t->e[i].scope, prov_names[t->e[i].prov], t->e[i].sigma,
                          (long long)t->e[i].rows, (long long)t->e[i].sources);
}

/* Splits a CSV line of plain fields (the table quotes nothing) into at most n fields. */
static size_t split(char *line, char **f, size_t n)
{
    size_t k = 0;
    for (char *p = line; k < n; p++) {
        f[k++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p = '\0';
    }
    return k;
}

static int name_index(const char *s, bool family)
{
    int n = family ? SIM_UNC_FAMILY_COUNT : SIM_UNC_PROV_COUNT;
    for (int i = 0; i < n; i++)
        if (strcmp(s, family ? families[i].name : prov_names[i]) == 0)
            return i;
    return -1;
}

static sim_status parse_row(const char *path, int64_t line, char **f, sim_unc_table *t,
                            sim_err *err)
{
    int fam = name_index(f[0], true), prov = name_index(f[2], false);
    if (fam < 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'family' is '%s', expected gemm16, gemm8, gemm4, "
                        "mixed_input, attention, decode_attention, memory, network, launch, "
                        "engine or power",
                        path, (long long)line, f[0]);
    if (prov < 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'provenance' is '%s', expected fitted, inherited or "
                        "default",
                        path, (long long)line, f[2]);
    if (!f[1][0] || strlen(f[1]) >= sizeof t->e[0].scope)
        return sim_fail(err, SIM_EINPUT,
                        "%s:%lld: field 'scope' is '%s', expected an arch, an engine or * (1 to "
                        "31 characters)",
                        path, (long long)line, f[1]);
    char *end;
    errno = 0;
    double sigma = strtod(f[3], &end);
    if (end == f[3] || *end || errno || !(sigma >= 0.0 && sigma < 3.0))
        return sim_fail(err, SIM_EINPUT, "%s:%lld: field 'sigma' is '%s', expected 0 <= sigma < 3",
                        path, (long long)line, f[3]);
    errno = 0;
    long long rows = strtoll(f[4], &end, 10);
    if (end == f[4] || *end || errno || rows < 0)
        return sim_fail(err, SIM_EINPUT, "%s:%lld: field 'rows' is '%s', expected a count >= 0",
                        path, (long long)line, f[4]);
    long long sources = 0;
    if (f[5]) {
        errno = 0;
        sources = strtoll(f[5], &end, 10);
        if (end == f[5] || *end || errno || sources < 0)
            return sim_fail(err, SIM_EINPUT,
                            "%s:%lld: field 'sources' is '%s', expected a count >= 0", path,
                            (long long)line, f[5]);
    }
    if (sim_unc_find(t, (sim_unc_family)fam, f[1], (sim_unc_prov)prov))
        return sim_fail(err, SIM_EINPUT, "%s:%lld: row %s,%s,%s is given twice, expected once",
                        path, (long long)line, f[0], f[1], f[2]);
    if (!sim_unc_set_sources(t, (sim_unc_family)fam, f[1], (sim_unc_prov)prov, sigma, rows,
                             sources))
        return sim_fail(err, SIM_EINPUT, "%s:%lld: more than %d rows", path, (long long)line,
                        SIM_UNC_MAX_ENTRIES);
    return SIM_OK;
}

sim_status sim_unc_load(const char *path, sim_unc_table *t, sim_err *err)
{
    memset(t, 0, sizeof *t);
    sim_lines r;
    sim_status st = sim_lines_open(&r, path, err);
    if (st)
        return st;
    char *line;
    size_t fields = 6; /* the header's: 5 in a table without sources */
    while (!st && !(st = sim_lines_next(&r, &line, err)) && line) {
        if (r.lineno == 1) {
            if (strcmp(line, "family,scope,provenance,sigma,rows") == 0)
                fields = 5;
            else if (strcmp(line, "family,scope,provenance,sigma,rows,sources") != 0)
                st = sim_fail(err, SIM_EINPUT,
                              "%s:1: header is '%s', expected "
                              "family,scope,provenance,sigma,rows,sources",
                              path, line);
            continue;
        }
        if (!line[0])
            continue;
        char *f[7] = {0};
        if (split(line, f, 7) != fields)
            st = sim_fail(err, SIM_EINPUT, "%s:%lld: expected %zu fields", path,
                          (long long)r.lineno, fields);
        else
            st = parse_row(path, r.lineno, f, t, err);
    }
    sim_lines_close(&r);
    for (int f = 0; !st && f < SIM_UNC_FAMILY_COUNT; f++)
        for (int p = 0; !st && p < SIM_UNC_PROV_COUNT; p++) {
            if ((f == SIM_UNC_ENGINE || f == SIM_UNC_POWER) && p != SIM_UNC_DEFAULT)
                continue;
            if (!sim_unc_find(t, (sim_unc_family)f, "*", (sim_unc_prov)p))
                st = sim_fail(err, SIM_EINPUT, "%s: row %s,*,%s is missing, expected one", path,
                              families[f].name, prov_names[p]);
        }
    return st;
}

/* FNV-1a of a name: the draws' seed for a device or an engine. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void sim_unc_engine_scope(const char *engine, const sim_model *m, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", engine ? engine : "*", m && m->experts > 0 ? ":moe" : "");
}

void sim_unc_engine_ref_of(const char *profile, const char *engine, const sim_model *m,
                           sim_unc_engine_ref *r)
{
    const char *moe = m && m->experts > 0 ? ":moe" : "";
    snprintf(r->profile, sizeof r->profile, "%.40s%s", profile && profile[0] ? profile : "*", moe);
    if (engine && engine[0])
        snprintf(r->family, sizeof r->family, "%.38s@*%s", engine, moe);
    else
        r->family[0] = '\0';
}

static bool has_moe_suffix(const char *scope)
{
    const char *colon = strrchr(scope, ':');
    return colon && strcmp(colon, ":moe") == 0;
}

const char *sim_unc_level_name(sim_unc_level l)
{
    static const char *const names[] = {"engine version", "engine, other versions",
                                        "no validation of this engine"};
    return names[l];
}

double sim_unc_engine_sigma(const sim_unc_table *t, const sim_unc_engine_ref *r,
                            sim_unc_basis *basis)
{
    const sim_unc_entry *e = sim_unc_find(t, SIM_UNC_ENGINE, r->profile, SIM_UNC_FITTED);
    sim_unc_level level = SIM_UNC_LEVEL_VERSION;
    if (!e && r->family[0]) {
        e = sim_unc_find(t, SIM_UNC_ENGINE, r->family, SIM_UNC_FITTED);
        level = SIM_UNC_LEVEL_ENGINE;
    }
    if (!e) {
        level = SIM_UNC_LEVEL_DEFAULT;
        if (has_moe_suffix(r->profile))
            e = sim_unc_find(t, SIM_UNC_ENGINE, "*:moe", SIM_UNC_DEFAULT);
        if (!e)
            e = sim_unc_find(t, SIM_UNC_ENGINE, "*", SIM_UNC_DEFAULT);
    }
    if (basis) {
        *basis = (sim_unc_basis){.level = level};
        if (e) {
            snprintf(basis->scope, sizeof basis->scope, "%s", e->scope);
            basis->sigma = e->sigma;
            basis->rows = e->rows;
            basis->sources = e->sources;
        }
    }
    return e ? e->sigma : 0.0;
}

/* The seed of one family's draws of a device (the engine's: of the engine scope). */
static uint64_t family_seed(const sim_hw *hw, const char *engine, uint64_t seed, int f)
{
    return name_hash(f == SIM_UNC_ENGINE ? engine : hw->name) ^
           (seed * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)f << 48);
}

double sim_unc_normal_quantile(double p)
{
    /* P. J. Acklam, "An algorithm for computing the inverse normal cumulative distribution
     * function" (2003): rational approximations in a central region and two tails */
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00},
                        b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01},
                        c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00},
                        dd[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                2.445134137142996e+00, 3.754408661907416e+00};
    const double plow = 0.02425;
    if (!(p > 0.0 && p < 1.0))
        return p <= 0.0 ? -INFINITY : INFINITY;
    if (p < plow || p > 1.0 - plow) {
        const double q = sqrt(-2.0 * log(p < plow ? p : 1.0 - p));
        const double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                         ((((dd[0] * q + dd[1]) * q + dd[2]) * q + dd[3]) * q + 1.0);
        return p < plow ? x : -x;
    }
    const double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

/* The z of stratum k of n: Phi^-1((k + 0.5) / n) over the root mean square of the n strata's
 * (their mean is 0 by symmetry), so n of them have a standard deviation (n - 1 in the
 * denominator) of exactly 1. */
static double stratum_z(int k, int n)
{
    double ss = 0.0;
    for (int j = 0; j < n; j++) {
        const double q = sim_unc_normal_quantile(((double)j + 0.5) / (double)n);
        ss += q * q;
    }
    const double sd = sqrt(ss / (double)(n - 1));
    return sim_unc_normal_quantile(((double)k + 0.5) / (double)n) / sd;
}

/* The stratum draw `index` of n takes: a Fisher-Yates shuffle of 0 .. n-1 by the seed. */
static int stratum_of(uint64_t seed, int index, int n)
{
    int perm[SIM_UNC_MAX_DRAWS];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    sim_rng r;
    sim_rng_seed(&r, seed);
    for (int i = n - 1; i > 0; i--) {
        const int j = (int)sim_rng_int(&r, 0, i);
        const int x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    return perm[index];
}

void sim_unc_draw_make_n(const sim_unc_table *t, const sim_hw *hw, const sim_unc_engine_ref *eng,
                         uint64_t seed, int index, int n, unsigned families_mask,
                         sim_unc_draw *d)
{
    if (n > SIM_UNC_MAX_DRAWS)
        n = SIM_UNC_MAX_DRAWS;
    for (int f = 0; f < SIM_UNC_FAMILY_COUNT; f++) {
        d->factor[f] = 1.0;
        if ((families_mask && !(families_mask & (1u << f))) || n <= 1 || index < 0 ||
            index >= n)
            continue;
        const bool e = f == SIM_UNC_ENGINE;
        const double z =
            stratum_z(stratum_of(family_seed(hw, eng->profile, seed, f), index, n), n);
        const double sigma = e ? sim_unc_engine_sigma(t, eng, NULL)
                               : sim_unc_sigma(t, (sim_unc_family)f, sim_unc_device_family(hw),
                                               sim_unc_provenance(hw, (sim_unc_family)f));
        d->factor[f] = exp(sigma * z);
    }
}

void sim_unc_draw_make_only(const sim_unc_table *t, const sim_hw *hw, const char *engine,
                            uint64_t seed, int index, unsigned families_mask, sim_unc_draw *d)
{
    sim_unc_engine_ref ref;
    snprintf(ref.profile, sizeof ref.profile, "%s", engine ? engine : "*");
    ref.family[0] = '\0';
    for (int f = 0; f < SIM_UNC_FAMILY_COUNT; f++) {
        d->factor[f] = 1.0;
        if (families_mask && !(families_mask & (1u << f)))
            continue;
        const bool eng = f == SIM_UNC_ENGINE;
        sim_rng r;
        sim_rng_seed(&r, family_seed(hw, engine, seed, f) ^ (uint64_t)(unsigned)(index / 2));
        /* antithetic pairs: draw 2k + 1 mirrors draw 2k, so a few draws stay centred */
        double z = index % 2 ? -sim_rng_normal(&r) : sim_rng_normal(&r);
        double sigma = eng ? sim_unc_engine_sigma(t, &ref, NULL)
                           : sim_unc_sigma(t, (sim_unc_family)f, sim_unc_device_family(hw),
                                           sim_unc_provenance(hw, (sim_unc_family)f));
        d->factor[f] = exp(sigma * z);
    }
}

void sim_unc_draw_make(const sim_unc_table *t, const sim_hw *hw, const char *engine,
                       uint64_t seed, int index, sim_unc_draw *d)
{
    sim_unc_draw_make_only(t, hw, engine, seed, index, 0, d);
}

/* An efficiency under a time factor: divided, at most 1. */
static void eff(double *e, double f)
{
    if (*e > 0.0)
        *e = fmin(1.0, *e / f);
}

void sim_unc_apply_hw(const sim_hw *hw, const sim_unc_draw *d, sim_hw *o)
{
    *o = *hw;
    const double *f = d->factor, fe = f[SIM_UNC_ENGINE];
    static const sim_dtype g16[] = {SIM_DT_BF16, SIM_DT_FP16}, g8[] = {SIM_DT_FP8, SIM_DT_INT8},
                           g4[] = {SIM_DT_FP4, SIM_DT_INT4};
    for (size_t i = 0; i < 2; i++) {
        eff(&o->eff_gemm[g16[i]], f[SIM_UNC_GEMM16]);
        eff(&o->eff_gemm[g8[i]], f[SIM_UNC_GEMM8]);
        eff(&o->quant.gemm_memory[g8[i]], f[SIM_UNC_GEMM8]);
        eff(&o->eff_gemm[g4[i]], f[SIM_UNC_GEMM4]);
    }
    eff(&o->quant.gemm_memory[SIM_DT_FP4], f[SIM_UNC_GEMM4]);
    /* mxfp6 follows fp8's efficiency (hw_fields.c), so it draws with the 8-bit family */
    eff(&o->eff_gemm[SIM_DT_MXFP6], f[SIM_UNC_GEMM8]);
    eff(&o->quant.gemm_memory[SIM_DT_MXFP6], f[SIM_UNC_GEMM8]);
    eff(&o->eff_gemm_weight_only, f[SIM_UNC_MIXED]);
    for (int t = 0; t < SIM_DT_COUNT; t++)
        eff(&o->quant.mixed_input_memory[t], f[SIM_UNC_MIXED]);
    eff(&o->eff_attention, f[SIM_UNC_ATTENTION]);
    eff(&o->eff_attn_memory, f[SIM_UNC_DECODE_ATTENTION]);
    o->decode_cta_bytes_per_s /= f[SIM_UNC_DECODE_ATTENTION] * fe;
    eff(&o->eff_memory, f[SIM_UNC_MEMORY]);
    const double fn = f[SIM_UNC_NETWORK];
    eff(&o->eff_network, fn);
    o->collective_ns *= fn * fe;
    o->scaleup_latency_ns *= fn * fe;
    o->scaleout_latency_ns *= fn * fe;
    for (int p = 0; p < 3; p++) {
        eff(&o->coll.proto_bw_eff[p], fn);
        o->coll.proto_base_ns[p] *= fn * fe;
        o->coll.proto_hop_ns[p] *= fn * fe;
    }
    for (int a = 0; a < 8; a++) {
        eff(&o->coll.algo_bw_eff[a], fn);
        o->coll.algo_latency_ns[a] *= fn * fe;
    }
    o->launch_ns *= f[SIM_UNC_LAUNCH] * fe;
    o->graph_launch_ns *= f[SIM_UNC_LAUNCH] * fe;
    /* the engine's factor scales every rate of the step (no efficiency cap: it stands for the
     * engine version's kernels and overheads as a whole, not for one kernel's share of a peak) */
    for (int t = 0; t < SIM_DT_COUNT; t++)
        o->peak_flops[t] /= fe;
    o->vector_flops /= fe;
    o->hbm_bytes_per_s /= fe;
    o->scaleup_bytes_per_s /= fe;
    o->scaleout_bytes_per_s /= fe;
}

sim_step_cfg sim_unc_apply(const sim_step_cfg *cfg, const sim_unc_draw *d, sim_hw *hw_out)
{
    sim_unc_apply_hw(cfg->hw, d, hw_out);
    sim_step_cfg c = *cfg;
    c.hw = hw_out;
    const double fe = d->factor[SIM_UNC_ENGINE];
    c.iteration_overhead_ns *= fe;
    c.request_overhead_ns *= fe;
    c.sync_overhead_ns *= fe;
    c.eager_kernel_cpu_ns *= fe;
    return c;
}

void sim_unc_apply_frontend(sim_frontend_cfg *fe, const sim_unc_draw *d)
{
    const double f = d->factor[SIM_UNC_ENGINE];
    fe->request_ns *= f;
    fe->input_token_ns *= f;
    fe->output_token_ns *= f;
    fe->chunk_ns *= f;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double sim_unc_percentile(double *v, size_t n, double p)
{
    qsort(v, n, sizeof *v, cmp_double);
    double pos = p / 100.0 * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n)
        return v[n - 1];
    if (v[i] == v[i + 1]) /* equal neighbours (two infinities too): no interpolation */
        return v[i];
    return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

/* z of the normal's 90th percentile */
#define Z90 1.2815515655446004

void sim_unc_band_of(double *v, size_t n, double *lo, double *hi)
{
    bool positive = n > 1;
    double mean = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++) {
        positive &= v[i] > 0.0 && isfinite(v[i]);
        if (positive)
            mean += log(v[i]) / (double)n;
    }
    if (!positive) { /* a zero or negative value: the draws' own percentiles */
        *lo = sim_unc_percentile(v, n, 10.0);
        *hi = sim_unc_percentile(v, n, 90.0);
        return;
    }
    for (size_t i = 0; i < n; i++)
        ss += (log(v[i]) - mean) * (log(v[i]) - mean);
    const double sd = sqrt(ss / (double)(n - 1));
    *lo = exp(mean - Z90 * sd);
    *hi = exp(mean + Z90 * sd);
}

bool sim_unc_band_add(sim_unc_band *b, const char *key, double *values, size_t n)
{
    if (b->n >= SIM_UNC_BAND_MAX || n == 0)
        return false;
    snprintf(b->key[b->n], sizeof b->key[0], "%s", key);
    sim_unc_band_of(values, n, &b->lo[b->n], &b->hi[b->n]);
    b->n++;
    return true;
}

const double *sim_unc_band_get(const sim_unc_band *b, const char *key, double *hi)
{
    for (size_t i = 0; b && i < b->n; i++)
        if (strcmp(b->key[i], key) == 0) {
            if (hi)
                *hi = b->hi[i];
            return &b->lo[i];
        }
    return NULL;
}

double sim_unc_beat_prob(const double *a, const double *b, size_t n, bool lower_better)
{
    if (n == 0)
        return 0.5;
    double wins = 0.0;
    for (size_t i = 0; i < n; i++)
        wins += a[i] == b[i] ? 0.5 : (a[i] < b[i]) == lower_better ? 1.0 : 0.0;
    return wins / (double)n;
}

bool sim_unc_tie(const double *a, const double *b, size_t n)
{
    if (n == 0)
        return false;
    double *v = malloc(n * sizeof *v), lo, hi;
    if (!v)
        return false;
    for (size_t i = 0; i < n; i++)
        v[i] = a[i] == b[i] ? 1.0 : b[i] > 0.0 && !isinf(b[i]) ? a[i] / b[i] : 0.0;
    sim_unc_band_of(v, n, &lo, &hi);
    free(v);
    return lo <= 1.0 && hi >= 1.0;
}

void sim_unc_decision_text(double p, bool tie, int n, const char *other, sim_strbuf *out)
{
    if (tie)
        sim_strbuf_printf(out,
                          "a tie with %s: the 80 %% band of their ratio holds 1; the winner is "
                          "ahead in %.0f%% of %d parameter draws",
                          other, 100.0 * p, n);
    else
        sim_strbuf_printf(out, "beats the runner-up, %s, in %.0f%% of %d parameter draws", other,
                          100.0 * p, n);
}
