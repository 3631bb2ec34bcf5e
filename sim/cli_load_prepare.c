/* cli_load_prepare.c - a sweep's, plan's or capacity search's names and files, resolved and
 * loaded once before its points (cli_load.h cli_load_cache_prepare): the names table of
 * cli_load_names.c filled, each file the points name loaded into the file cache. */
#define _POSIX_C_SOURCE 200809L
#include "cli_load.h"

#include <limits.h>

#include "price.h"

sim_status cli_load_cache_prepare(cli_load_cache *c, const cli_opts *o, bool serve, bool band)
{
    char path[PATH_MAX];
    sim_status st = SIM_OK;
    static const char *const data[] = {"datasets.json", "spec_acceptance.csv", "uncertainty.csv"};
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        st |= cli_load_names_note_data(c, data[i]);
    if (o->hw) {
        st |= cli_load_names_note(c, CLI_LOAD_HW, o->hw);
        cli_load_resolve_in(c, CLI_LOAD_HW, o->hw, path, sizeof path);
        st |= cli_load_cache_add(c, CLI_LOAD_HW, path, 0, 0);
    }
    if (o->model) {
        st |= cli_load_names_note(c, CLI_LOAD_MODEL, o->model);
        cli_load_resolve_in(c, CLI_LOAD_MODEL, o->model, path, sizeof path);
        st |= cli_load_cache_add(c, CLI_LOAD_MODEL, path, 0, 0);
    }
    char draft[PATH_MAX];
    const char *spec_model = cli_load_spec_draft_name(o, draft, sizeof draft) ? draft
                             : o->spec_model && o->spec_method ? o->spec_model /* says why not */
                                                               : NULL;
    if (spec_model) {
        st |= cli_load_names_note(c, CLI_LOAD_MODEL, spec_model);
        cli_load_resolve_in(c, CLI_LOAD_MODEL, spec_model, path, sizeof path);
        st |= cli_load_cache_add(c, CLI_LOAD_MODEL, path, 0, 0);
    }
    sim_price_list l; /* the devices --usd-per-gpu-hour names */
    sim_err perr;
    if (o->usd_prices && !sim_price_list_parse("--usd-per-gpu-hour", o->usd_prices, &l, &perr))
        for (size_t i = 0; i < l.n; i++)
            st |= cli_load_names_note(c, CLI_LOAD_HW, l.names[i]);
    /* the profile --engine names on the point's device (a NAME@VERSION reads the catalogue,
     * loaded here once); a device or version that fails is the point's error, later */
    const cli_load_entry *hw = NULL;
    if (o->hw) {
        cli_load_resolve_in(c, CLI_LOAD_HW, o->hw, path, sizeof path);
        hw = cli_load_cache_find(c, CLI_LOAD_HW, path, 0, 0);
    }
    st |= cli_load_catalog_load(&c->catalog);
    st |= cli_load_names_note(c, CLI_LOAD_ENGINE, cli_load_engine_spec(o, NULL));
    sim_err eerr;
    if (hw && !hw->st && !cli_load_engine_path(o, c, &hw->hw, path, sizeof path, &eerr))
        st |= cli_load_cache_add(c, CLI_LOAD_ENGINE, path, 0, 0);
    if (o->trace && serve) {
        st |= cli_load_names_note(c, CLI_LOAD_TRACE, o->trace);
        cli_load_resolve_in(c, CLI_LOAD_TRACE, o->trace, path, sizeof path);
        st |= cli_load_cache_add(c, CLI_LOAD_TRACE, path, o->time_scale, cli_opt_trace_limit(o));
    }
    if (o->lengths_file && serve)
        st |= cli_load_names_note(c, CLI_LOAD_TRACE, o->lengths_file);
    if (band)
        st |= cli_load_unc_note(c, o);
    return st ? SIM_EINTERNAL : SIM_OK;
}
