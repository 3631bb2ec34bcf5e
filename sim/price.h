/* price.h - what a deployment costs: GPUs held times their hourly price, and that price spread
 * over the tokens the deployment produces.
 *
 *   usd_per_hour                  = gpus x usd_per_gpu_hour
 *   usd_per_million_output_tokens = usd_per_hour / (output tokens/s x 3600 s/h) x 1e6
 *   usd_per_million_total_tokens  = the same over prompt + output tokens/s
 *
 * Example: 8 GPUs at $2.69 per GPU-hour producing 1000 output tokens/s cost $21.52 per hour and
 * 21.52 / 3.6e6 x 1e6 = $5.978 per million output tokens.
 *
 *   sim_price p;
 *   if (sim_price_compute(8, 2.69, 1000.0, 3000.0, &p)) ...p.usd_per_hour == 21.52...
 *
 * Pure functions; a price of 0 means "unknown" (the device file has none and no flag gave one).
 */
#ifndef SIM_PRICE_H
#define SIM_PRICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct sim_price {
    int64_t gpus;                         /* every GPU the deployment holds */
    double usd_per_gpu_hour;              /* 0: unknown */
    double usd_per_hour;                  /* gpus x usd_per_gpu_hour */
    double usd_per_million_output_tokens; /* 0 when no output tokens were produced */
    double usd_per_million_total_tokens;  /* prompt + output tokens; 0 when none */
} sim_price;

/* The most a GPU-hour may cost in a device file or on the command line. */
#define SIM_PRICE_MAX_USD_PER_GPU_HOUR 10000.0

/* US dollars per million tokens at `usd_per_hour` for `tokens_per_s`; 0 when tokens_per_s <= 0. */
double sim_price_per_million(double usd_per_hour, double tokens_per_s);

/* Fills *out; returns whether the price is known (usd_per_gpu_hour > 0). */
bool sim_price_compute(int64_t gpus, double usd_per_gpu_hour, double output_tokens_per_s,
                       double total_tokens_per_s, sim_price *out);

/* The most DEVICE=USD pairs one price list holds. */
enum { SIM_PRICE_MAX_PAIRS = 64 };

/* One --usd-per-gpu-hour value: a bare number (every device's price), or DEVICE=USD pairs,
 * comma-separated ("h100-sxm=2.49,b300=7.5"), each device named as --hw names it. */
typedef struct sim_price_list {
    double all_usd;       /* the bare number; 0: pairs */
    size_t n;             /* pairs */
    char names[SIM_PRICE_MAX_PAIRS][64];
    double usd[SIM_PRICE_MAX_PAIRS];
} sim_price_list;

/* Parses `text` (named `flag` in messages). SIM_EINPUT names the item and what was expected: a
 * number in [0.001, SIM_PRICE_MAX_USD_PER_GPU_HOUR] (decimal, as the option table reads
 * numbers), a NAME=USD pair with a non-empty name, each name once.
 *
 * Example:
 *   sim_price_list l;
 *   sim_err e;
 *   if (sim_price_list_parse("--usd-per-gpu-hour", "h100-sxm=2.49,b300=7.5", &l, &e))
 *       return 1;
 *   double b300 = sim_price_list_find(&l, "b300"); // 7.5
 *   double h200 = sim_price_list_find(&l, "h200"); // 0: the device file's price holds
 *   return b300 > h200 ? 0 : 1;
 */
sim_status sim_price_list_parse(const char *flag, const char *text, sim_price_list *out,
                                sim_err *err);

/* The price the list gives `device` (the bare number for every device); 0 when the pairs do not
 * name it (the device file's price then holds). */
double sim_price_list_find(const sim_price_list *l, const char *device);

#endif
