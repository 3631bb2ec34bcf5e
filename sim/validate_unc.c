/* validate_unc.c - the uncertainty table from the validation rows' residuals (validate.h). */
#define _POSIX_C_SOURCE 200809L
#include "validate.h"

#include <math.h>
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

static bool keep(const sim_unc_evidence *e, const char *exclude)
{
    return !exclude || strcmp(e->source, exclude) != 0;
}

/* RMS of log_err over the op rows matching (family or -1, prov, scope or NULL). */
static double op_rms(const sim_unc_evidence *ev, size_t n, const char *exclude, int family,
                     sim_unc_prov p, const char *scope, int64_t *rows)
{
    double ss = 0.0;
    *rows = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_unc_evidence *e = &ev[i];
        if (e->e2e || !keep(e, exclude) || e->prov != p ||
            (family >= 0 && e->family != (sim_unc_family)family) ||
            (scope && strcmp(e->scope, scope) != 0))
            continue;
        ss += e->log_err * e->log_err;
        (*rows)++;
    }
    return *rows ? sqrt(ss / (double)*rows) : 0.0;
}

/* The archs the op rows name, each once (at most `cap`). */
static size_t scopes(const sim_unc_evidence *ev, size_t n, bool e2e, const char (**out),
                     size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].e2e != e2e)
            continue;
        size_t j = 0;
        while (j < k && strcmp(out[j], ev[i].scope) != 0)
            j++;
        if (j == k && k < cap)
            out[k++] = ev[i].scope;
    }
    return k;
}

/* The engine rows of `scope` (NULL: all): the engine variance each needs for an 80 % band
 * around its prediction to hold its measurement, (log_err / z90)^2 - op_var (at least 0), into
 * need[]; their mean log error in *mean. Returns their number. */
static bool is_moe(const char *scope)
{
    const char *c = strrchr(scope, ':');
    return c && strcmp(c, ":moe") == 0;
}

/* scope NULL: every row of the kind `moe` says. */
static size_t engine_need(const sim_unc_evidence *ev, size_t n, const char *exclude,
                          const char *scope, bool moe, double *need, double *mean)
{
    size_t rows = 0;
    *mean = 0.0;
    for (size_t i = 0; i < n; i++) {
        const sim_unc_evidence *e = &ev[i];
        if (!e->e2e || !keep(e, exclude) || (scope && strcmp(e->scope, scope) != 0) ||
            (!scope && is_moe(e->scope) != moe))
            continue;
        const double z = e->log_err / 1.2815515655446004;
        need[rows++] = fmax(0.0, z * z - e->op_var);
        *mean += e->log_err;
    }
    if (rows)
        *mean /= (double)rows;
    return rows;
}

bool sim_validate_unc_table(const sim_unc_evidence *ev, size_t n, const char *exclude,
                            sim_unc_table *t)
{
    memset(t, 0, sizeof *t);
    bool ok = true;
    const char *arch[32];
    const size_t n_arch = scopes(ev, n, false, arch, 32);
    for (int f = 0; f < SIM_UNC_ENGINE; f++) {
        double prev = 0.0;
        for (int p = 0; p < SIM_UNC_PROV_COUNT; p++) {
            int64_t rows;
            double s = op_rms(ev, n, exclude, f, (sim_unc_prov)p, NULL, &rows);
            if (rows < SIM_UNC_MIN_ROWS)
                s = op_rms(ev, n, exclude, -1, (sim_unc_prov)p, NULL, &rows);
            s = fmax(s, prev);
            prev = s;
            ok &= sim_unc_set(t, (sim_unc_family)f, "*", (sim_unc_prov)p, s, rows);
            for (size_t a = 0; a < n_arch; a++) {
                int64_t ra;
                double sa = op_rms(ev, n, exclude, f, (sim_unc_prov)p, arch[a], &ra);
                if (ra >= SIM_UNC_MIN_ROWS)
                    ok &= sim_unc_set(t, (sim_unc_family)f, arch[a], (sim_unc_prov)p,
                                      fmax(sa, p ? sim_unc_sigma(t, (sim_unc_family)f, arch[a],
                                                                 (sim_unc_prov)(p - 1))
                                                 : 0.0),
                                      ra);
            }
        }
    }
    const char *eng[32];
    const size_t n_eng = scopes(ev, n, true, eng, 32);
    double *need = malloc((n ? n : 1) * sizeof *need);
    if (!need)
        return false;
    for (int moe = 0; moe < 2; moe++) {
        double sum_mean = 0.0, sum_mean2 = 0.0, mean;
        size_t n_means = 0;
        for (size_t e = 0; e < n_eng; e++) {
            if (is_moe(eng[e]) != (bool)moe)
                continue;
            size_t rows = engine_need(ev, n, exclude, eng[e], moe, need, &mean);
            if (rows < SIM_UNC_MIN_ROWS)
                continue;
            ok &= sim_unc_set(t, SIM_UNC_ENGINE, eng[e], SIM_UNC_FITTED,
                              sqrt(sim_unc_percentile(need, rows, 80.0)), (int64_t)rows);
            sum_mean += mean;
            sum_mean2 += mean * mean;
            n_means++;
        }
        size_t rows = engine_need(ev, n, exclude, NULL, moe, need, &mean);
        const double m1 = n_means ? sum_mean / (double)n_means : 0.0;
        const double between = n_means > 1 ? fmax(0.0, sum_mean2 / (double)n_means - m1 * m1) : 0.0;
        if (moe && !rows)
            continue; /* no MoE rows: MoE runs take the dense default */
        ok &= sim_unc_set(t, SIM_UNC_ENGINE, moe ? "*:moe" : "*", SIM_UNC_DEFAULT,
                          sqrt((rows ? sim_unc_percentile(need, rows, 80.0) : 0.0) + between),
                          (int64_t)rows);
    }
    free(need);
    return ok;
}
