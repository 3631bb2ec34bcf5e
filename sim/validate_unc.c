/* validate_unc.c - the uncertainty table from the validation rows' residuals (validate.h). */
#define _POSIX_C_SOURCE 200809L
#include "validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sim_unc_family sim_validate_row_family(const sim_vrow *r, const sim_hw *hw)
{
    switch (r->kind) {
    case SIM_VK_GEMM:
    case SIM_VK_GROUPED_GEMM: {
        sim_unc_family f =
            sim_unc_gemm_family(r->dtype, r->kind == SIM_VK_GEMM ? r->weight : r->dtype);
        if (f != SIM_UNC_GEMM16)
            return f;
        /* a 16-bit GEMM below the ridge streams its weights at efficiency.memory */
        const double m = (double)r->m, nn = (double)r->n, k = (double)r->k;
        const double flops = 2.0 * m * nn * k, bytes = sim_validate_size_bytes(r);
        return bytes > 0.0 && flops / bytes < sim_hw_ridge(hw, r->dtype) ? SIM_UNC_MEMORY : f;
    }
    case SIM_VK_MOE_LAYER: /* a fused MoE layer: its grouped GEMMs, by their formats */
        return sim_unc_gemm_family(r->dtype, r->weight);
    case SIM_VK_ATTENTION:
        return SIM_UNC_ATTENTION;
    case SIM_VK_DECODE_ATTENTION:
        return SIM_UNC_DECODE_ATTENTION;
    case SIM_VK_COPY:
        return SIM_UNC_MEMORY;
    default:
        return SIM_UNC_NETWORK;
    }
}

void sim_validate_source_key(const char *source, char *buf, size_t len)
{
    size_t cut = strlen(source);
    static const char *const ends[] = {" @", " (", ";"};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        const char *at = strstr(source, ends[i]);
        if (at && at > source && (size_t)(at - source) < cut)
            cut = (size_t)(at - source);
    }
    snprintf(buf, len, "%.*s", (int)cut, source);
}

static bool keep(const sim_unc_evidence *e, const char *exclude)
{
    return !exclude || strcmp(e->source, exclude) != 0;
}

/* RMS of log_err over the op rows matching (family or -1, prov, scope or NULL). */
static double op_rms(const sim_unc_evidence *ev, size_t n, const char *exclude, int family,
                     sim_unc_prov p, const char *scope, int64_t *rows, int64_t *sources)
{
    double ss = 0.0;
    *rows = 0;
    *sources = 0;
    bool seen[SIM_UNC_MAX_SOURCES] = {false};
    for (size_t i = 0; i < n; i++) {
        const sim_unc_evidence *e = &ev[i];
        if (e->e2e || !keep(e, exclude) || e->prov != p ||
            (family >= 0 ? e->family != (sim_unc_family)family
                         : e->family == SIM_UNC_POWER) || /* energy rows pool apart */
            (scope && strcmp(e->scope, scope) != 0))
            continue;
        ss += e->log_err * e->log_err;
        (*rows)++;
        *sources += !seen[e->source_id];
        seen[e->source_id] = true;
    }
    return *rows ? sqrt(ss / (double)*rows) : 0.0;
}

/* The scopes the op rows (archs) or the end-to-end rows (engine versions or, `by_engine`,
 * engines) name, each once (at most `cap`). */
static size_t scopes(const sim_unc_evidence *ev, size_t n, bool e2e, bool by_engine,
                     const char (**out), size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].e2e != e2e)
            continue;
        const char *s = by_engine ? ev[i].engine_scope : ev[i].scope;
        if (!s[0])
            continue;
        size_t j = 0;
        while (j < k && strcmp(out[j], s) != 0)
            j++;
        if (j == k && k < cap)
            out[k++] = s;
    }
    return k;
}

static bool is_moe(const char *scope)
{
    const char *c = strrchr(scope, ':');
    return c && strcmp(c, ":moe") == 0;
}

/* The end-to-end rows of `scope` (a version's or, `by_engine`, an engine's; NULL: every row of
 * the kind `moe` says): the engine variance each needs for an 80 % band around its prediction to
 * hold its measurement, (log_err / z90)^2 - op_var (at least 0), into need[]; the number of
 * sources among them in *sources. Returns their number. */
static size_t engine_need(const sim_unc_evidence *ev, size_t n, const char *exclude,
                          const char *scope, bool by_engine, bool moe, double *need,
                          int64_t *sources)
{
    size_t rows = 0;
    *sources = 0;
    bool seen[SIM_UNC_MAX_SOURCES] = {false};
    for (size_t i = 0; i < n; i++) {
        const sim_unc_evidence *e = &ev[i];
        const char *s = by_engine ? e->engine_scope : e->scope;
        if (!e->e2e || !keep(e, exclude) || (scope && strcmp(s, scope) != 0) ||
            (!scope && is_moe(e->scope) != moe))
            continue;
        const double z = e->log_err / 1.2815515655446004;
        need[rows++] = fmax(0.0, z * z - e->op_var);
        *sources += !seen[e->source_id];
        seen[e->source_id] = true;
    }
    return rows;
}

void sim_validate_source_ids(sim_unc_evidence *ev, size_t n)
{
    int next = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && strcmp(ev[j].source, ev[i].source) != 0)
            j++;
        if (j < i)
            ev[i].source_id = ev[j].source_id;
        else
            ev[i].source_id = next < SIM_UNC_MAX_SOURCES - 1 ? next++ : next;
    }
}

bool sim_validate_unc_table(const sim_unc_evidence *ev, size_t n, const char *exclude,
                            sim_unc_table *t)
{
    memset(t, 0, sizeof *t);
    bool ok = true;
    const char *arch[32];
    const size_t n_arch = scopes(ev, n, false, false, arch, 32);
    for (int f = 0; f < SIM_UNC_ENGINE; f++) {
        double prev = 0.0;
        for (int p = 0; p < SIM_UNC_PROV_COUNT; p++) {
            int64_t rows, src;
            double s = op_rms(ev, n, exclude, f, (sim_unc_prov)p, NULL, &rows, &src);
            if (rows < SIM_UNC_MIN_ROWS)
                s = op_rms(ev, n, exclude, -1, (sim_unc_prov)p, NULL, &rows, &src);
            s = fmax(s, prev);
            prev = s;
            ok &= sim_unc_set_sources(t, (sim_unc_family)f, "*", (sim_unc_prov)p, s, rows, src);
            for (size_t a = 0; a < n_arch; a++) {
                int64_t ra, sra;
                double sa = op_rms(ev, n, exclude, f, (sim_unc_prov)p, arch[a], &ra, &sra);
                if (ra >= SIM_UNC_MIN_ROWS)
                    ok &= sim_unc_set_sources(
                        t, (sim_unc_family)f, arch[a], (sim_unc_prov)p,
                        fmax(sa, p ? sim_unc_sigma(t, (sim_unc_family)f, arch[a],
                                                   (sim_unc_prov)(p - 1))
                                   : 0.0),
                        ra, sra);
            }
        }
    }
    { /* the power estimate: the energy rows' RMS log error, however few (none: 0) */
        int64_t rows, src;
        const double s = op_rms(ev, n, exclude, SIM_UNC_POWER, SIM_UNC_DEFAULT, NULL, &rows, &src);
        ok &= sim_unc_set_sources(t, SIM_UNC_POWER, "*", SIM_UNC_DEFAULT, s, rows, src);
    }
    double *need = malloc((n ? n : 1) * sizeof *need);
    if (!need)
        return false;
    /* each engine version's own rows, then each engine's over all its versions */
    for (int by_engine = 0; by_engine < 2; by_engine++) {
        const char *eng[64];
        const size_t n_eng = scopes(ev, n, true, by_engine, eng, 64);
        for (size_t e = 0; e < n_eng; e++) {
            int64_t src;
            size_t rows = engine_need(ev, n, exclude, eng[e], by_engine, false, need, &src);
            if (rows >= SIM_UNC_MIN_ROWS)
                ok &= sim_unc_set_sources(t, SIM_UNC_ENGINE, eng[e], SIM_UNC_FITTED,
                                          sqrt(sim_unc_percentile(need, rows, 80.0)),
                                          (int64_t)rows, src);
        }
    }
    for (int moe = 0; moe < 2; moe++) {
        int64_t src;
        size_t rows = engine_need(ev, n, exclude, NULL, false, moe, need, &src);
        if (moe && !rows)
            continue; /* no MoE rows: MoE runs take the dense default */
        ok &= sim_unc_set_sources(t, SIM_UNC_ENGINE, moe ? "*:moe" : "*", SIM_UNC_DEFAULT,
                                  rows ? sqrt(sim_unc_percentile(need, rows, 80.0)) : 0.0,
                                  (int64_t)rows, src);
    }
    free(need);
    return ok;
}
