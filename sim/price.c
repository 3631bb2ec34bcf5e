/* price.c - deployment cost per hour and per token. */
#include "price.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* A decimal price in range (strtod alone would read hexadecimal floats and "inf"). */
static bool read_usd(const char *s, size_t len, double *out)
{
    char buf[64];
    if (!len || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (strpbrk(buf, "xXnNiI"))
        return false;
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    if (errno || end == buf || *end || !isfinite(x) || x < 0.001 ||
        x > SIM_PRICE_MAX_USD_PER_GPU_HOUR)
        return false;
    *out = x;
    return true;
}

sim_status sim_price_list_parse(const char *flag, const char *text, sim_price_list *out,
                                sim_err *err)
{
    memset(out, 0, sizeof *out);
    if (!strchr(text, '=')) {
        if (read_usd(text, strlen(text), &out->all_usd))
            return SIM_OK;
        return sim_fail(err, SIM_EINPUT,
                        "%s: value '%s', expected a number in [0.001, %g] or DEVICE=USD pairs "
                        "(h100-sxm=2.49,b300=7.5)",
                        flag, text, SIM_PRICE_MAX_USD_PER_GPU_HOUR);
    }
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        size_t nl = eq ? (size_t)(eq - p) : 0;
        double usd = 0.0;
        if (!eq || !nl || nl >= sizeof out->names[0] ||
            !read_usd(eq + 1, len - nl - 1, &usd))
            return sim_fail(err, SIM_EINPUT,
                            "%s: item '%.*s' of '%s', expected DEVICE=USD with USD a number in "
                            "[0.001, %g] (h100-sxm=2.49,b300=7.5)",
                            flag, (int)len, p, text, SIM_PRICE_MAX_USD_PER_GPU_HOUR);
        char name[64];
        memcpy(name, p, nl);
        name[nl] = '\0';
        if (sim_price_list_find(out, name) > 0.0)
            return sim_fail(err, SIM_EINPUT, "%s: device '%s' priced twice in '%s', expected once",
                            flag, name, text);
        if (out->n >= SIM_PRICE_MAX_PAIRS)
            return sim_fail(err, SIM_EINPUT, "%s: more than %d devices in '%s'", flag,
                            SIM_PRICE_MAX_PAIRS, text);
        memcpy(out->names[out->n], name, nl + 1);
        out->usd[out->n++] = usd;
        if (!comma)
            return SIM_OK;
        p = comma + 1;
    }
}

double sim_price_list_find(const sim_price_list *l, const char *device)
{
    if (l->all_usd > 0.0)
        return l->all_usd;
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->names[i], device) == 0)
            return l->usd[i];
    return 0.0;
}
