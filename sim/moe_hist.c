/* moe_hist.c - the measured expert-load histogram (--expert-load FILE): read once, checked,
 * normalised to each layer's shares. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonf.h"
#include "moe.h"

/* Layer l's array: its counts into share (normalised), or SIM_EINPUT naming the element. */
static sim_status read_layer(const cJSON *row, const char *path, int l, int64_t experts,
                             int64_t k, double *share, sim_err *err)
{
    if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != experts)
        return sim_fail(err, SIM_EINPUT,
                        "%s: logical_count[%d]: %s%d values, expected an array of the model's "
                        "%lld routed experts' counts",
                        path, l, cJSON_IsArray(row) ? "" : "not an array: ",
                        cJSON_IsArray(row) ? cJSON_GetArraySize(row) : 0, (long long)experts);
    double sum = 0.0;
    int e = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, row)
    {
        double c = cJSON_IsNumber(v) ? v->valuedouble : NAN;
        if (!isfinite(c) || c < 0.0)
            return sim_fail(err, SIM_EINPUT,
                            "%s: logical_count[%d][%d]: %s, expected a non-negative count or "
                            "fraction",
                            path, l, e, cJSON_IsNumber(v) ? "a negative or non-finite number" : "not a number");
        share[e++] = c;
        sum += c;
    }
    if (!(sum > 0.0) || !isfinite(sum))
        return sim_fail(err, SIM_EINPUT,
                        "%s: logical_count[%d]: the counts sum to %g, expected a positive finite "
                        "total",
                        path, l, sum);
    for (e = 0; e < experts; e++) {
        share[e] /= sum;
        /* each token picks k distinct experts: no expert gets more than 1/k of the rows */
        if ((double)k * share[e] > 1.0 + 1e-9)
            return sim_fail(err, SIM_EINPUT,
                            "%s: logical_count[%d][%d]: %.4g of the layer's rows, expected at "
                            "most 1/%lld (each token picks %lld distinct experts)",
                            path, l, e, share[e], (long long)k, (long long)k);
    }
    return SIM_OK;
}

sim_status sim_moe_hist_load(const char *path, int64_t experts, int64_t k, int64_t moe_layers,
                             sim_moe_hist *out, sim_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    if (experts <= 0 || k <= 0 || moe_layers <= 0)
        return sim_fail(err, SIM_EINPUT, "--expert-load: %s: the model has no MoE layers", path);
    cJSON *root = NULL;
    sim_status st = sim_jsonf_load_max(path, 64L << 20, &root, err);
    if (st)
        return st;
    const cJSON *lc = cJSON_GetObjectItemCaseSensitive(root, "logical_count");
    const int n = cJSON_IsArray(lc) ? cJSON_GetArraySize(lc) : 0;
    if (!cJSON_IsArray(lc))
        st = sim_fail(err, SIM_EINPUT,
                      "%s: logical_count: %s, expected an array of per-layer arrays of expert "
                      "counts",
                      path, lc ? "not an array" : "missing");
    else if (n != 1 && n != moe_layers)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: logical_count: %d layers, expected the model's %lld MoE layers (or "
                      "one for all)",
                      path, n, (long long)moe_layers);
    else if ((int64_t)n * experts > SIM_MOE_HIST_MAX)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: logical_count: %d layers x %lld experts, expected at most %d values",
                      path, n, (long long)experts, SIM_MOE_HIST_MAX);
    int l = 0;
    const cJSON *row;
    if (!st)
        cJSON_ArrayForEach(row, lc)
        {
            if ((st = read_layer(row, path, l, experts, k, out->share + (int64_t)l * experts, err)))
                break;
            l++;
        }
    cJSON_Delete(root);
    if (st)
        return st;
    out->layers = n;
    out->experts = (int)experts;
    return SIM_OK;
}
