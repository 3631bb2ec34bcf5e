/* cli_load_prepare.c - a sweep's, plan's or capacity search's names and files, resolved and
 * loaded once before its points (cli_load.h cli_load_cache_prepare): the names table of
 * cli_load_names.c filled, each file the points name loaded into the file cache. */
#define _POSIX_C_SOURCE 200809L
#include "cli_load.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "price.h"

/* One name the points load: resolved, recorded, its file loaded into the cache. */
static sim_status prepare_file(cli_load_cache *c, cli_load_kind kind, const char *name)
{
    char path[PATH_MAX];
    sim_status st = cli_load_names_note(c, kind, name);
    cli_load_resolve_in(c, kind, name, path, sizeof path);
    return st | cli_load_cache_add(c, kind, path, 0, 0);
}

/* The devices of --replica-hw DEV:N,DEV:N,...: each DEV before its ':' (a malformed list is the
 * point's error, later). */
static sim_status prepare_replica_hw(cli_load_cache *c, const char *list)
{
    sim_status st = SIM_OK;
    for (const char *p = list; *p;) {
        const char *colon = strchr(p, ':'), *comma = strchr(p, ',');
        char name[PATH_MAX];
        if (colon && (!comma || colon < comma) && colon > p &&
            snprintf(name, sizeof name, "%.*s", (int)(colon - p), p) < (int)sizeof name)
            st |= prepare_file(c, CLI_LOAD_HW, name);
        if (!comma)
            break;
        p = comma + 1;
    }
    return st;
}

sim_status cli_load_cache_prepare(cli_load_cache *c, const cli_opts *o, bool serve, bool band)
{
    char path[PATH_MAX];
    sim_status st = SIM_OK;
    static const char *const data[] = {"datasets.json", "spec_acceptance.csv", "uncertainty.csv"};
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        st |= cli_load_names_note_data(c, data[i]);
    if (o->hw)
        st |= prepare_file(c, CLI_LOAD_HW, o->hw);
    if (o->prefill_hw && serve) /* --disagg's prefill device */
        st |= prepare_file(c, CLI_LOAD_HW, o->prefill_hw);
    if (o->replica_hw && serve)
        st |= prepare_replica_hw(c, o->replica_hw);
    if (o->model)
        st |= prepare_file(c, CLI_LOAD_MODEL, o->model);
    char draft[PATH_MAX];
    const char *spec_model = cli_load_spec_draft_name(o, draft, sizeof draft) ? draft
                             : o->spec_model && o->spec_method ? o->spec_model /* says why not */
                                                               : NULL;
    if (spec_model)
        st |= prepare_file(c, CLI_LOAD_MODEL, spec_model);
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
