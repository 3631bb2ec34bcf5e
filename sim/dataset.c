/* dataset.c - public datasets' token lengths as fitted log-normals (dataset.h). */
#define _POSIX_C_SOURCE 200809L
#include "dataset.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonf.h"

static const char *const shipped[] = {"sharegpt",        "lmsys-chat",      "arxiv-summarization",
                                      "code",            "reasoning",       "azure-code-2023",
                                      "azure-conv-2023", "mooncake-conversation"};

bool sim_dataset_is_shipped(const char *name)
{
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++)
        if (strcmp(name, shipped[i]) == 0)
            return true;
    return false;
}

sim_status sim_dataset_fit(double mean, double median, double p90, double sigma, int64_t min,
                           int64_t max, sim_length_dist *d, sim_err *err)
{
    memset(d, 0, sizeof *d);
    d->mean = mean, d->median = median, d->p90 = p90, d->sigma_given = sigma;
    d->min = min, d->max = max;
    if (!(min >= 1 && max >= min))
        return sim_fail(err, SIM_EINPUT, "lengths: min %lld and max %lld, expected 1 <= min <= max",
                        (long long)min, (long long)max);
    if (median > 0.0 && p90 > median) {
        d->mu = log(median), d->sigma = log(p90 / median) / SIM_DATASET_Z90;
        snprintf(d->fit, sizeof d->fit, "median and p90");
    } else if (median > 0.0 && mean > median) {
        d->mu = log(median), d->sigma = sqrt(2.0 * log(mean / median));
        snprintf(d->fit, sizeof d->fit, "median and mean");
    } else if (mean > 0.0 && sigma > 0.0 && !(median > 0.0)) {
        d->sigma = sigma, d->mu = log(mean) - 0.5 * sigma * sigma;
        snprintf(d->fit, sizeof d->fit, "mean and sigma (estimate)");
    } else if (median > 0.0 && sigma > 0.0 && !(mean > 0.0) && !(p90 > 0.0)) {
        d->sigma = sigma, d->mu = log(median);
        snprintf(d->fit, sizeof d->fit, "median and sigma (estimate)");
    } else {
        return sim_fail(err, SIM_EINPUT,
                        "lengths: mean %g, median %g, p90 %g, sigma %g, expected median and p90 > "
                        "median, median and mean > median, or mean or median with sigma > 0",
                        mean, median, p90, sigma);
    }
    if (!(d->sigma > 0.0 && d->sigma < 5.0 && isfinite(d->mu)))
        return sim_fail(err, SIM_EINPUT, "lengths: fitted sigma %g, expected (0, 5)", d->sigma);
    return SIM_OK;
}

static double clip(const sim_length_dist *d, double x)
{
    return fmin(fmax(x, (double)d->min), (double)d->max);
}

int64_t sim_dataset_draw(const sim_length_dist *d, sim_rng *r)
{
    double x = exp(d->mu + d->sigma * sim_rng_normal(r));
    return (int64_t)llround(clip(d, x));
}

double sim_dataset_quantile(const sim_length_dist *d, double q)
{
    double z = q >= 0.99 ? SIM_DATASET_Z99 : q >= 0.9 ? SIM_DATASET_Z90 : 0.0;
    return clip(d, exp(d->mu + d->sigma * z));
}

double sim_dataset_mean(const sim_length_dist *d) { return exp(d->mu + 0.5 * d->sigma * d->sigma); }

static sim_status side(const cJSON *ds, const char *path, const char *name, const char *key,
                       sim_length_dist *d, sim_err *err)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(ds, key);
    char where[PATH_MAX + 128];
    snprintf(where, sizeof where, "%s: datasets.%s.%s", path, name, key);
    if (!cJSON_IsObject(s))
        return sim_fail(err, SIM_EINPUT, "%s: missing, expected an object", where);
    double mean = 0, median = 0, p90 = 0, sigma = 0;
    int64_t min = 1, max = 1 << 20;
    sim_status st;
    if ((st = sim_jsonf_num_opt(s, where, "mean", 0, 1e7, 0, &mean, err)) ||
        (st = sim_jsonf_num_opt(s, where, "median", 0, 1e7, 0, &median, err)) ||
        (st = sim_jsonf_num_opt(s, where, "p90", 0, 1e7, 0, &p90, err)) ||
        (st = sim_jsonf_num_opt(s, where, "sigma", 0, 5, 0, &sigma, err)) ||
        (st = sim_jsonf_int(s, where, "min", 1, 1 << 24, &min, err)) ||
        (st = sim_jsonf_int(s, where, "max", 1, 1 << 24, &max, err)))
        return st;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(s, "source");
    if (!cJSON_IsString(src) || !src->valuestring[0])
        return sim_fail(err, SIM_EINPUT, "%s: field 'source' missing, expected where the numbers "
                                         "come from",
                        where);
    if ((st = sim_dataset_fit(mean, median, p90, sigma, min, max, d, err))) {
        sim_err e = *err;
        return sim_fail(err, st, "%s: %s", where, e.msg);
    }
    snprintf(d->source, sizeof d->source, "%s", src->valuestring);
    return SIM_OK;
}

sim_status sim_dataset_load(const char *path, const char *name, sim_dataset *out, sim_err *err)
{
    memset(out, 0, sizeof *out);
    cJSON *root;
    sim_status st = sim_jsonf_load(path, &root, err);
    if (st)
        return st;
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(root, "datasets");
    const cJSON *ds = cJSON_IsObject(all) ? cJSON_GetObjectItemCaseSensitive(all, name) : NULL;
    if (!cJSON_IsObject(all)) {
        st = sim_fail(err, SIM_EINPUT, "%s: field 'datasets' missing, expected an object", path);
    } else if (!cJSON_IsObject(ds)) {
        char names[512] = "";
        size_t n = 0;
        const cJSON *k;
        cJSON_ArrayForEach(k, all) if (n < sizeof names)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", k->string);
        st = sim_fail(err, SIM_EINPUT, "--dataset-name: value '%s', expected random, "
                                       "prefix_repetition or one of %s's: %s",
                      name, path, names);
    } else {
        snprintf(out->name, sizeof out->name, "%s", name);
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(ds, "description");
        if (cJSON_IsString(d))
            snprintf(out->description, sizeof out->description, "%s", d->valuestring);
        const cJSON *tr = cJSON_GetObjectItemCaseSensitive(ds, "trace");
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(ds, "source");
        if (tr && (!cJSON_IsString(tr) || !tr->valuestring[0] ||
                   strlen(tr->valuestring) >= sizeof out->trace || strstr(tr->valuestring, "..")))
            st = sim_fail(err, SIM_EINPUT, "%s: datasets.%s.trace: expected a file name under "
                                           "traces/",
                          path, name);
        else if (tr && (!cJSON_IsString(src) || !src->valuestring[0]))
            st = sim_fail(err, SIM_EINPUT, "%s: datasets.%s: field 'source' missing, expected "
                                           "where the trace comes from",
                          path, name);
        else if (tr) {
            snprintf(out->trace, sizeof out->trace, "%s", tr->valuestring);
            snprintf(out->trace_source, sizeof out->trace_source, "%s", src->valuestring);
        } else {
            st = side(ds, path, name, "input", &out->in, err);
            if (!st)
                st = side(ds, path, name, "output", &out->out, err);
        }
    }
    cJSON_Delete(root);
    return st;
}
