/* dataset.h - the token lengths of public datasets (--dataset-name sharegpt, lmsys-chat,
 * arxiv-summarization, code, reasoning): each side (prompt, output) a log-normal fitted to the
 * statistics its source publishes, clipped to [min, max]. Lengths only: no text, no prefixes.
 *
 * The fit, from the data file's fields (tools/data/datasets.json, each side with its source):
 *   median and p90    mu = ln median, sigma = ln(p90 / median) / z90   (z90 = 1.2815516)
 *   median and mean   mu = ln median, sigma = sqrt(2 ln(mean / median))  (mean > median)
 *   mean and sigma    mu = ln mean - sigma^2 / 2   (sigma stated: an estimate, the source says)
 *   median and sigma  mu = ln median
 * A draw is round(exp(mu + sigma z)) for a standard normal z, clipped to [min, max].
 *
 * Example: ShareGPT's prompts, mean 161.31 tokens with sigma 1.0 (vLLM's paper; sigma an
 * estimate): mu = ln 161.31 - 0.5 = 4.5834, so the median is exp(4.5834) = 97.8 tokens and the
 * p90 exp(4.5834 + 1.2816) = 352.4.
 *
 *   sim_length_dist d;
 *   sim_err e;
 *   if (sim_dataset_fit(161.31, 0, 0, 1.0, 4, 4096, &d, &e) != SIM_OK)
 *       return 1;
 *   return sim_dataset_quantile(&d, 0.5) > 97.0 ? 0 : 1; // 97.8
 */
#ifndef SIM_DATASET_H
#define SIM_DATASET_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"
#include "status.h"

typedef struct sim_length_dist {
    double mu, sigma;     /* of ln(tokens) */
    int64_t min, max;     /* the clip */
    double mean, median, p90, sigma_given; /* the statistics fitted (0: not published) */
    char fit[48];         /* which of them: "median and p90", "mean and sigma", ... */
    char source[768];
} sim_length_dist;

typedef struct sim_dataset {
    char name[48];
    char description[256];
    sim_length_dist in, out; /* a trace's: unset until its requests are read (workload.h) */
    /* A production trace (the entry's "trace": a file under the data roots' traces/, its
     * "source"): its requests are the workload, lengths and arrival shape both, with its gaps
     * scaled to the request rate; "" for a fitted dataset. */
    char trace[256];
    char trace_source[768];
} sim_dataset;

/* The standard normal's 90th and 99th percentiles. */
#define SIM_DATASET_Z90 1.2815515655446004
#define SIM_DATASET_Z99 2.3263478740408408

/* Fits d from the statistics given (0: not given), as above; SIM_EINPUT when they do not
 * determine a log-normal (one statistic alone, a mean below the median, p90 below it). */
sim_status sim_dataset_fit(double mean, double median, double p90, double sigma, int64_t min,
                           int64_t max, sim_length_dist *d, sim_err *err);

/* One length: round(exp(mu + sigma z)) clipped to [min, max] (one normal draw of r). */
int64_t sim_dataset_draw(const sim_length_dist *d, sim_rng *r);

/* The fitted distribution's q-quantile (q = 0.5, 0.9 or 0.99: z from the table), clipped. */
double sim_dataset_quantile(const sim_length_dist *d, double q);

/* The unclipped log-normal's mean, exp(mu + sigma^2 / 2). */
double sim_dataset_mean(const sim_length_dist *d);

/* Dataset `name` from the data file at path; an unknown name is SIM_EINPUT listing the file's.
 * An entry with "trace" (a file name under traces/) and "source" is a production trace: no
 * fitted sides, out->trace set to the name as given. */
sim_status sim_dataset_load(const char *path, const char *name, sim_dataset *out, sim_err *err);

/* Whether `name` is one of the shipped datasets' names (the data file may hold more). */
bool sim_dataset_is_shipped(const char *name);

#endif
