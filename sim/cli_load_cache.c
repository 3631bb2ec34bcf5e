/* cli_load_cache.c - the file cache: models, devices, traces and engine profiles loaded once
 * (cli_load.h), their names resolved by cli_load_name.c. */
#define _POSIX_C_SOURCE 200809L
#include "cli_load.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "find.h"
#include "suggest.h"

/* ------------------------------------------------------------------------------------------ */
/* Files, loaded once: a sweep loads every model, device and trace it names before its parallel
 * loop (the points only copy them), so no file is parsed on a worker thread. */

const cli_load_entry *cli_load_cache_find(const cli_load_cache *c, cli_load_kind kind,
                                          const char *path, double scale, int64_t limit)
{
    for (size_t i = 0; c && i < c->n; i++)
        if (c->e[i].kind == kind && strcmp(c->e[i].path, path) == 0 &&
            (kind != CLI_LOAD_TRACE || (c->e[i].scale == scale && c->e[i].limit == limit)))
            return &c->e[i];
    return NULL;
}

static sim_status load_model(const char *path, sim_model *m, sim_err *err)
{
    return cli_load_explain_missing(CLI_LOAD_MODEL, path, sim_model_load(path, m, err), err);
}

static sim_status load_hw(const char *path, sim_hw *hw, sim_err *err)
{
    return cli_load_explain_missing(CLI_LOAD_HW, path, sim_hw_load(path, hw, err), err);
}

/* Loads a file into the cache unless it is there (its failure is kept for the points). */
sim_status cli_load_cache_add(cli_load_cache *c, cli_load_kind kind, const char *path, double scale,
                              int64_t limit)
{
    if (cli_load_cache_find(c, kind, path, scale, limit))
        return SIM_OK;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        cli_load_entry *e = realloc(c->e, cap * sizeof *e);
        if (!e)
            return SIM_EINTERNAL;
        c->e = e;
        c->cap = cap;
    }
    cli_load_entry *e = &c->e[c->n++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    snprintf(e->path, sizeof e->path, "%s", path);
    e->scale = scale;
    e->limit = limit;
    e->st = kind == CLI_LOAD_MODEL    ? load_model(path, &e->model, &e->err)
            : kind == CLI_LOAD_HW     ? load_hw(path, &e->hw, &e->err)
            : kind == CLI_LOAD_ENGINE ? sim_engprof_load(path, &e->eng, &e->err)
                                      : sim_workload_load_trace(path, scale, limit, &e->w, &e->err);
    return SIM_OK;
}

void cli_load_cache_free(cli_load_cache *c)
{
    for (size_t i = 0; i < c->n; i++)
        sim_workload_free(&c->e[i].w);
    free(c->e);
    c->e = NULL;
    c->n = c->cap = 0;
    cli_load_catalog_free(&c->catalog);
    cli_load_names_free(c);
    cli_load_unc_free(c);
}

/* A cached entry, or its load error; SIM_EINTERNAL if the sweep forgot to load it. */
const cli_load_entry *cli_load_cache_get(const cli_load_cache *c, cli_load_kind kind,
                                         const char *path, double scale, int64_t limit,
                                         sim_err *err, sim_status *st)
{
    const cli_load_entry *e = cli_load_cache_find(c, kind, path, scale, limit);
    *st = !e ? sim_fail(err, SIM_EINTERNAL, "%s was not preloaded", path) : e->st;
    if (e && e->st && err)
        *err = e->err;
    return *st ? NULL : e;
}

sim_status cli_load_model(const cli_load_cache *c, const char *path, sim_model *out, sim_err *err)
{
    if (!c)
        return load_model(path, out, err);
    sim_status st;
    const cli_load_entry *e = cli_load_cache_get(c, CLI_LOAD_MODEL, path, 0, 0, err, &st);
    if (e)
        *out = e->model;
    return st;
}

sim_status cli_load_hw(const cli_load_cache *c, const char *path, sim_hw *out, sim_err *err)
{
    if (!c)
        return load_hw(path, out, err);
    sim_status st;
    const cli_load_entry *e = cli_load_cache_get(c, CLI_LOAD_HW, path, 0, 0, err, &st);
    if (e)
        *out = e->hw;
    return st;
}
