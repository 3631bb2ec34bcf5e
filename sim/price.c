/* price.c - deployment cost per hour and per token. */
#include "price.h"

double sim_price_per_million(double usd_per_hour, double tokens_per_s)
{
    return tokens_per_s > 0.0 ? usd_per_hour / (tokens_per_s * 3600.0) * 1e6 : 0.0;
}

bool sim_price_compute(int64_t gpus, double usd_per_gpu_hour, double output_tokens_per_s,
                       double total_tokens_per_s, sim_price *out)
{
    bool known = usd_per_gpu_hour > 0.0;
    double per_hour = known ? (double)gpus * usd_per_gpu_hour : 0.0;
    *out = (sim_price){
        .gpus = gpus,
        .usd_per_gpu_hour = known ? usd_per_gpu_hour : 0.0,
        .usd_per_hour = per_hour,
        .usd_per_million_output_tokens = sim_price_per_million(per_hour, output_tokens_per_s),
        .usd_per_million_total_tokens = sim_price_per_million(per_hour, total_tokens_per_s),
    };
    return known;
}
