/* validate_fit.c - fitting a device's efficiencies to the op-level rows (sim_validate_fit). */
#define _POSIX_C_SOURCE 200809L
#include "validate.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fit groups: each format is fitted on its own rows only. The base group holds the 16-bit GEMMs,
 * attention, copies and collectives; a quantized compute format has its GEMM rows; mixed-input
 * GEMMs (weights stored narrower than the math) have theirs. */
enum { FG_BASE = 0, FG_MIXED = 1, FG_FORMAT = 2, FG_COUNT = FG_FORMAT + SIM_DT_COUNT };

static int row_group(const sim_vrow *r)
{
    if (r->kind != SIM_VK_GEMM || (sim_dtype_is_16bit(r->dtype) && r->weight == r->dtype))
        return FG_BASE;
    if (r->weight != r->dtype)
        return FG_MIXED;
    return FG_FORMAT + (int)sim_dtype_get(r->dtype)->peak_of;
}

static const char *group_name(int g)
{
    return g == FG_BASE    ? "16-bit and non-GEMM"
           : g == FG_MIXED ? "mixed-input GEMM"
                           : sim_dtype_name(g - FG_FORMAT);
}

typedef struct fit_param {
    char name[48]; /* dotted field of the device file */
    double *value;
    double *twin; /* moved together with value (fp16 with bf16, mxfp4 with fp4: one rate) */
    double lo, hi;
    double scale; /* file value = *value / scale */
    int group;
} fit_param;

static void set_param(fit_param *p, double v)
{
    *p->value = v;
    if (p->twin)
        *p->twin = v;
}

/* A decode-attention row of a CUDA-core kernel with one CTA per (sequence, head) or partition:
 * neither the context split to fill the GPU nor FlashAttention-2's tensor-core tile. */
static bool unsplit_cuda_core(const sim_vrow *r)
{
    return r->dattn != SIM_DATTN_SPLIT && r->dattn != SIM_DATTN_FA2;
}

/* Sum of squared relative errors of the device's op rows in `group` (-1: all), leaving out row
 * `skip` (SIZE_MAX: none); sets *used and the |errors| in %. */
static double loss(const sim_vrow *rows, size_t n, const char *name, const sim_hw *hw, int group,
                   size_t skip, size_t *used, double *abs_err)
{
    double s = 0.0;
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_vrow *r = &rows[i];
        /* the fused kernels (FlashInfer's) test --fuse-allreduce-norm; they fit nothing. Nor do
         * the decode rows of split and FlashAttention-2 kernels: they test the launch model
         * (dattn.h) with constants fitted on their own kinds' rows; nor the fused MoE layers,
         * which fit their kernel family's efficiency (moe.c), not the device's */
        if (!sim_vkind_is_op(r->kind) || r->kind == SIM_VK_FUSED_ALLREDUCE_NORM ||
            r->kind == SIM_VK_MOE_LAYER || r->skip[0] ||
            (r->kind == SIM_VK_DECODE_ATTENTION && !unsplit_cuda_core(r)) ||
            r->low_trust || strcmp(r->hw, name) != 0 || i == skip ||
            (group >= 0 && row_group(r) != group))
            continue;
        double p = 0.0;
        if (sim_validate_op(r, hw, &p, NULL))
            continue;
        double e = (p - r->value) / r->value;
        if (abs_err)
            abs_err[u] = fabs(100.0 * e);
        s += e * e;
        u++;
    }
    if (used)
        *used = u;
    return s;
}

/* Whether any of the device's op rows of its group moves when the parameter does. */
static bool constrained(const sim_vrow *rows, size_t n, const char *name, sim_hw *hw, fit_param *p)
{
    double keep = *p->value, a = loss(rows, n, name, hw, p->group, SIZE_MAX, NULL, NULL);
    set_param(p, p->lo + 0.37 * (p->hi - p->lo));
    double b = loss(rows, n, name, hw, p->group, SIZE_MAX, NULL, NULL);
    set_param(p, keep);
    return fabs(a - b) > 1e-12;
}

/* Coordinate descent: golden-section search on each active parameter in turn, over its group's
 * rows (leaving out row `skip`); only parameters of group `only` (-1: all) move. Sweeps repeat
 * until one lowers the loss by less than 1e-9 of it (correlated parameters, such as a GEMM
 * efficiency and its K term, need many), at most `sweeps` times. */
static void descend(const sim_vrow *rows, size_t n, const char *name, sim_hw *hw, fit_param *params,
                    const bool *active, size_t np, int only, size_t skip, int sweeps, int iters)
{
    const double gr = 0.6180339887498949;
    bool moved = true;
    for (int sweep = 0; sweep < sweeps && moved; sweep++) {
        double l0 = loss(rows, n, name, hw, only, skip, NULL, NULL);
        for (size_t i = 0; i < np; i++) {
            if (!active[i] || (only >= 0 && params[i].group != only))
                continue;
            double a = params[i].lo, b = params[i].hi;
            double c = b - gr * (b - a), d = a + gr * (b - a);
            for (int it = 0; it < iters; it++) {
                set_param(&params[i], c);
                double fc = loss(rows, n, name, hw, params[i].group, skip, NULL, NULL);
                set_param(&params[i], d);
                double fd = loss(rows, n, name, hw, params[i].group, skip, NULL, NULL);
                if (fc <= fd)
                    b = d;
                else
                    a = c;
                c = b - gr * (b - a);
                d = a + gr * (b - a);
            }
            set_param(&params[i], 0.5 * (a + b));
        }
        moved = loss(rows, n, name, hw, only, skip, NULL, NULL) < l0 * (1.0 - 1e-9);
    }
}

/* A value as the device file stores it (4 decimals in the file's unit). */
static double file_round(const fit_param *p, double v)
{
    return round(v / p->scale * 1e4) / 1e4 * p->scale;
}

#define MAX_FIT_PARAMS 48

static fit_param param(const char *prefix, const char *suffix, double *value, double *twin,
                       double lo, double hi, double scale, int group)
{
    fit_param p = {
        .value = value, .twin = twin, .lo = lo, .hi = hi, .scale = scale, .group = group};
    snprintf(p.name, sizeof p.name, "%s%s", prefix, suffix);
    return p;
}

/* A kernel's two constants are fitted only on at least this many rows that can run it. */
enum { MIN_KERNEL_ROWS = 3 };

/* The device's usable all-reduce rows (alone or with a norm) that measured algorithm a itself
 * (not a runtime's choice, which may or may not have taken it). */
static size_t algo_rows(const sim_vrow *rows, size_t n, const char *name, sim_coll_algo a)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_vrow *r = &rows[i];
        if (r->kind < SIM_VK_ALLREDUCE || r->kind > SIM_VK_ALLREDUCE_NORM || r->skip[0] ||
            r->low_trust || strcmp(r->hw, name) != 0)
            continue;
        c += r->algo == a;
    }
    return c;
}

/* The device's usable NCCL all-reduce rows of at most 1 MiB: where its low-latency protocols run. */
static size_t small_nccl_rows(const sim_vrow *rows, size_t n, const char *name)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_vrow *r = &rows[i];
        c += r->kind == SIM_VK_ALLREDUCE && !r->skip[0] && !r->low_trust &&
             strcmp(r->hw, name) == 0 && r->bytes <= 1048576 &&
             (r->algo == SIM_COLL_NCCL || r->algo == SIM_COLL_RING || r->algo == SIM_COLL_TREE);
    }
    return c;
}

/* The collectives' parameters: NCCL's low-latency protocols' share of the link, and the custom
 * and multicast all-reduce kernels the device has, each where enough rows measure it (with
 * fewer, a protocol's share trades against the fixed cost along a flat valley). */
static size_t fit_collective_params(sim_hw *hw, const sim_vrow *rows, size_t n, const char *name,
                                    fit_param *ps)
{
    size_t np = 0;
    /* at most the protocols' payload fractions: LL 1/2, LL128 120/128 */
    static const char *const protos[] = {"collectives.ll.bw_eff", "collectives.ll128.bw_eff"};
    static const double proto_max[] = {0.5, 0.9375};
    for (int p = 0; p < 2; p++)
        if (hw->coll.proto_bw_eff[p] > 0.0 && small_nccl_rows(rows, n, name) >= MIN_KERNEL_ROWS &&
            algo_rows(rows, n, name, SIM_COLL_NCCL) >= MIN_KERNEL_ROWS)
            ps[np++] = param(protos[p], "", &hw->coll.proto_bw_eff[p], NULL, 0.05, proto_max[p],
                             1.0, FG_BASE);
    static const sim_coll_algo kernels[] = {SIM_COLL_ONESHOT, SIM_COLL_TWOSHOT, SIM_COLL_NVLS};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        sim_coll_algo a = kernels[i];
        if (!sim_collective_has(hw, a) || algo_rows(rows, n, name, a) < MIN_KERNEL_ROWS)
            continue;
        char prefix[24];
        snprintf(prefix, sizeof prefix, "collectives.%s.", sim_coll_algo_name(a));
        ps[np++] = param(prefix, "latency_us", &hw->coll.algo_latency_ns[a], NULL, 500.0, 200e3,
                         1e3, FG_BASE);
        ps[np++] =
            param(prefix, "bw_eff", &hw->coll.algo_bw_eff[a], NULL, 0.2, 1.0, 1.0, FG_BASE);
    }
    return np;
}

/* The device's usable decode-attention rows of CUDA-core kernels that give a CTA a whole
 * (sequence, head) or partition: what decode_cta_gb_per_s is fitted on. */
static size_t unsplit_decode_rows(const sim_vrow *rows, size_t n, const char *name)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += rows[i].kind == SIM_VK_DECODE_ATTENTION && unsplit_cuda_core(&rows[i]) &&
             !rows[i].skip[0] && !rows[i].low_trust && strcmp(rows[i].hw, name) == 0;
    return c;
}

/* The parameters a fit may move on `hw`. Quantized formats' K term and streaming fraction start
 * from the values they inherit, so that each format is fitted apart from the 16-bit rows. */
static size_t fit_params(sim_hw *hw, const sim_vrow *rows, size_t n, const char *name,
                         fit_param *ps)
{
    size_t np = 0;
    if (hw->peak_flops[SIM_DT_BF16] > 0.0)
        ps[np++] = param("efficiency.gemm.bf16", "", &hw->eff_gemm[SIM_DT_BF16],
                         &hw->eff_gemm[SIM_DT_FP16], 0.05, 1.0, 1.0, FG_BASE);
    ps[np++] =
        param("efficiency.gemm_k_half", "", &hw->gemm_k_half, NULL, 0.0, 4096.0, 1.0, FG_BASE);
    ps[np++] =
        param("efficiency.gemm_fixed_us", "", &hw->gemm_fixed_ns, NULL, 0.0, 30e3, 1e3, FG_BASE);
    /* a device whose GEMM operand feed is stated (hw.h) has it fitted with the 16-bit rows: it
     * bounds every format's tiles alike (cost.c, gemm_feed_ns) */
    if (hw->gemm_cu_feed_bytes_per_s > 0.0)
        ps[np++] = param("gemm_cu_feed_gb_per_s", "", &hw->gemm_cu_feed_bytes_per_s, NULL, 1e9,
                         1e12, 1e9, FG_BASE);
    ps[np++] = param("efficiency.attention", "", &hw->eff_attention, NULL, 0.05, 1.0, 1.0, FG_BASE);
    /* a device whose attention kernels' per-query-block work is stated has it fitted with them */
    if (hw->attn_kv_half > 0.0)
        ps[np++] = param("efficiency.attention_kv_half", "", &hw->attn_kv_half, NULL, 1.0, 1e5, 1.0,
                         FG_BASE);
    ps[np++] = param("efficiency.memory", "", &hw->eff_memory, NULL, 0.3, 1.0, 1.0, FG_BASE);
    if (unsplit_decode_rows(rows, n, name) >= MIN_KERNEL_ROWS)
        ps[np++] = param("decode_cta_gb_per_s", "", &hw->decode_cta_bytes_per_s, NULL, 1e9, 1e12,
                         1e9, FG_BASE);
    /* NCCL's constants need NCCL rows of several sizes: with two, its fixed cost, bandwidth and
     * protocols trade along a flat valley (the device keeps its stated values). NCCL's Simple
     * protocol reaches at least half the link on large messages everywhere. */
    if (algo_rows(rows, n, name, SIM_COLL_NCCL) >= MIN_KERNEL_ROWS) {
        ps[np++] = param("efficiency.network", "", &hw->eff_network, NULL, 0.5, 1.0, 1.0, FG_BASE);
        ps[np++] =
            param("collective_latency_us", "", &hw->collective_ns, NULL, 0.0, 50e3, 1e3, FG_BASE);
        ps[np++] = param("scaleup_latency_us", "", &hw->scaleup_latency_ns, NULL, 300.0, 10e3,
                         1e3, FG_BASE);
    }
    np += fit_collective_params(hw, rows, n, name, ps + np);
    for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
        const sim_dtype_info *info = sim_dtype_get((sim_dtype)dt);
        if (sim_dtype_is_16bit((sim_dtype)dt) || info->weights_only || (int)info->peak_of != dt ||
            !(hw->peak_flops[dt] > 0.0))
            continue;
        double *twin_e = dt == SIM_DT_FP4 ? &hw->eff_gemm[SIM_DT_MXFP4] : NULL;
        double *twin_k = dt == SIM_DT_FP4 ? &hw->quant.gemm_k_half[SIM_DT_MXFP4] : NULL;
        double *twin_m = dt == SIM_DT_FP4 ? &hw->quant.gemm_memory[SIM_DT_MXFP4] : NULL;
        hw->quant.gemm_k_half[dt] = sim_hw_gemm_k_half(hw, (sim_dtype)dt);
        hw->quant.gemm_memory[dt] = sim_hw_gemm_memory(hw, (sim_dtype)dt);
        ps[np++] = param("efficiency.gemm.", info->name, &hw->eff_gemm[dt], twin_e, 0.05, 1.0, 1.0,
                         FG_FORMAT + dt);
        ps[np++] = param("quant.gemm_k_half.", info->name, &hw->quant.gemm_k_half[dt], twin_k, 1.0,
                         4096.0, 1.0, FG_FORMAT + dt);
        ps[np++] = param("quant.gemm_memory.", info->name, &hw->quant.gemm_memory[dt], twin_m, 0.05,
                         1.0, 1.0, FG_FORMAT + dt);
        double *twin_f = dt == SIM_DT_FP4 ? &hw->quant.gemm_fixed_ns[SIM_DT_MXFP4] : NULL;
        hw->quant.gemm_fixed_ns[dt] = sim_hw_gemm_fixed_ns(hw, (sim_dtype)dt);
        ps[np++] = param("quant.gemm_fixed_us.", info->name, &hw->quant.gemm_fixed_ns[dt], twin_f,
                         1.0, 30e3, 1e3, FG_FORMAT + dt);
    }
    ps[np++] = param("efficiency.gemm_weight_only", "", &hw->eff_gemm_weight_only, NULL, 0.05, 1.0,
                     1.0, FG_MIXED);
    for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
        if (sim_dtype_is_16bit((sim_dtype)dt))
            continue;
        hw->quant.mixed_input_memory[dt] = sim_hw_mixed_input_memory(hw, (sim_dtype)dt);
        ps[np++] = param("quant.mixed_input_memory.", sim_dtype_name((sim_dtype)dt),
                         &hw->quant.mixed_input_memory[dt], NULL, 0.05, 1.0, 1.0, FG_MIXED);
    }
    assert(np <= MAX_FIT_PARAMS);
    return np;
}

/* How many different GPU counts the device's all-reduce rows have. */
static int allreduce_sizes(const sim_vrow *rows, size_t n, const char *name)
{
    int64_t first = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_vrow *r = &rows[i];
        if (r->kind != SIM_VK_ALLREDUCE || r->skip[0] || strcmp(r->hw, name) != 0)
            continue;
        if (first && r->gpus != first)
            return 2;
        first = r->gpus;
    }
    return first ? 1 : 0;
}

/* Median |error| of the rows in abs_err[0..n). */
static double median_of(const double *abs_err, size_t n)
{
    double med, p90;
    sim_validate_summary(abs_err, n, &med, &p90);
    return med;
}

sim_status sim_validate_fit(const sim_vrow *rows, size_t n, const char *name, sim_hw *hw,
                            sim_fit_report *rep, sim_err *err)
{
    memset(rep, 0, sizeof *rep);
    double *abs_err = malloc((n ? n : 1) * sizeof *abs_err);
    if (!abs_err)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    loss(rows, n, name, hw, -1, SIZE_MAX, &rep->rows, abs_err);
    rep->before_median = median_of(abs_err, rep->rows);
    if (rep->rows == 0) {
        free(abs_err);
        return sim_fail(err, SIM_EINPUT, "--hw %s: no op-level rows for it in the data", name);
    }
    const sim_hw start_hw = *hw;
    fit_param params[MAX_FIT_PARAMS];
    size_t np = fit_params(hw, rows, n, name, params);
    bool active[MAX_FIT_PARAMS] = {0}; /* all set below; zeroed for -Wmaybe-uninitialized */
    double before[MAX_FIT_PARAMS];
    bool constr[MAX_FIT_PARAMS] = {0};
    for (size_t i = 0; i < np; i++) {
        active[i] = constrained(rows, n, name, hw, &params[i]);
        before[i] = *params[i].value;
        /* with one group size, the hops are a constant: their latency and the fixed cost are one
         * number, and the fit keeps their split */
        if (params[i].value == &hw->scaleup_latency_ns)
            active[i] = active[i] && allreduce_sizes(rows, n, name) > 1;
        constr[i] = active[i];
    }
    if (hw->peak_flops[SIM_DT_FP16] > 0.0) /* fp16 and bf16 run at one rate: fit them as one */
        hw->eff_gemm[SIM_DT_FP16] = hw->eff_gemm[SIM_DT_BF16];
    descend(rows, n, name, hw, params, active, np, -1, SIZE_MAX, 2000, 60);
    /* the file keeps 4 decimals; a group whose loss falls by less than 0.1% keeps its starting
     * values (a flat valley is no evidence), so a second calibration on the first one's output
     * changes nothing */
    for (size_t i = 0; i < np; i++)
        if (active[i])
            set_param(&params[i], file_round(&params[i], *params[i].value));
    for (int g = 0; g < FG_COUNT; g++) {
        double l_fit = loss(rows, n, name, hw, g, SIZE_MAX, NULL, NULL);
        double fitted[MAX_FIT_PARAMS];
        for (size_t i = 0; i < np; i++)
            if (active[i] && params[i].group == g) {
                fitted[i] = *params[i].value;
                set_param(&params[i], before[i]);
            }
        double l_start = loss(rows, n, name, hw, g, SIZE_MAX, NULL, NULL);
        bool keep = l_fit < l_start * (1.0 - 1e-3);
        for (size_t i = 0; i < np; i++)
            if (active[i] && params[i].group == g) {
                if (keep)
                    set_param(&params[i], fitted[i]);
                active[i] = keep && fitted[i] != before[i];
            }
    }
    /* leave-one-out: refit each row's group without it and predict it */
    size_t nloo = 0;
    for (size_t r = 0; r < n; r++) {
        const sim_vrow *row = &rows[r];
        double p;
        if (!sim_vkind_is_op(row->kind) || row->skip[0] || strcmp(row->hw, name) != 0 ||
            sim_validate_op(row, hw, &p, NULL))
            continue;
        sim_hw keep = *hw;
        /* from the loaded values (a parameter only this row constrains stays there), five
         * sweeps of a coarser search: an estimate of the converged refit at a fraction of its
         * cost */
        for (size_t i = 0; i < np; i++)
            if (active[i] && params[i].group == row_group(row))
                set_param(&params[i], before[i]);
        descend(rows, n, name, hw, params, active, np, row_group(row), r, 5, 30);
        if (!sim_validate_op(row, hw, &p, NULL))
            abs_err[nloo++] = fabs(sim_validate_error_pct(p, row->value));
        *hw = keep;
    }
    rep->loo_median = median_of(abs_err, nloo);
    loss(rows, n, name, hw, -1, SIZE_MAX, &rep->rows, abs_err);
    rep->after_median = median_of(abs_err, rep->rows);
    size_t len = 0;
    for (size_t i = 0; i < np; i++) {
        if (!active[i] && constr[i] && rep->n_held < SIM_FIT_MAX_PARAMS) {
            sim_fit_param *hp = &rep->held[rep->n_held++];
            memcpy(hp->name, params[i].name, sizeof hp->name);
            snprintf(hp->group, sizeof hp->group, "%s", group_name(params[i].group));
            hp->before = hp->value = before[i] / params[i].scale;
            loss(rows, n, name, hw, params[i].group, SIZE_MAX, &hp->rows, NULL);
        }
        if (!active[i]) { /* as it was loaded (a quantized format's 0 stays "inherited") */
            *params[i].value =
                *(const double *)((const char *)&start_hw + ((char *)params[i].value - (char *)hw));
            if (params[i].twin)
                *params[i].twin = *(const double *)((const char *)&start_hw +
                                                    ((char *)params[i].twin - (char *)hw));
            continue;
        }
        size_t used = 0;
        loss(rows, n, name, hw, params[i].group, SIZE_MAX, &used, NULL);
        if (rep->n_params < SIM_FIT_MAX_PARAMS) {
            sim_fit_param *fp = &rep->params[rep->n_params++];
            static_assert(sizeof fp->name == sizeof params[i].name, "field name sizes differ");
            memcpy(fp->name, params[i].name, sizeof fp->name);
            snprintf(fp->group, sizeof fp->group, "%s", group_name(params[i].group));
            fp->value = *params[i].value / params[i].scale;
            fp->before = before[i] / params[i].scale;
            fp->rows = used;
        }
        if (len + 80 < sizeof rep->fitted)
            len += (size_t)snprintf(
                rep->fitted + len, sizeof rep->fitted - len, "%s%s %.4g -> %.4g", len ? ", " : "",
                params[i].name, before[i] / params[i].scale, *params[i].value / params[i].scale);
    }
    free(abs_err);
    return SIM_OK;
}
