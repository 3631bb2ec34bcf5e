/* cli_load_price.c - the price of a GPU-hour for the command line: --usd-per-gpu-hour's number or
 * the pair naming the device, else the device file's (cli_load.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_load.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "price.h"

/* The device's name as --usd-per-gpu-hour pairs name it: the file's stem ("h100-sxm" of
 * hw/h100-sxm.json), into buf. */
static void device_stem(const char *path, char *buf, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0)
        n -= 5;
    snprintf(buf, len, "%.*s", (int)n, base);
}

sim_status cli_load_price(const cli_opts *o, const cli_load_cache *cache, const char *hw_path,
                          const sim_hw *hw, double *usd, sim_err *err)
{
    *usd = hw->usd_per_gpu_hour;
    if (!o->usd_prices)
        return SIM_OK;
    sim_price_list l;
    sim_status st = sim_price_list_parse("--usd-per-gpu-hour", o->usd_prices, &l, err);
    if (st)
        return st;
    char path[PATH_MAX], stem[NAME_MAX + 1];
    for (size_t i = 0; i < l.n; i++) { /* a misspelt device would price nothing, silently */
        cli_load_resolve_in(cache, CLI_LOAD_HW, l.names[i], path, sizeof path);
        if (!cli_load_exists_in(cache, path))
            return sim_fail(err, SIM_EINPUT,
                            "--usd-per-gpu-hour: device '%s' in '%s' is no device file or name "
                            "in hw/, expected names as --hw takes them (h100-sxm=2.49)",
                            l.names[i], o->usd_prices);
    }
    device_stem(hw_path, stem, sizeof stem);
    double x = sim_price_list_find(&l, stem);
    if (!(x > 0.0))
        x = sim_price_list_find(&l, o->hw);
    if (x > 0.0)
        *usd = x;
    return SIM_OK;
}
