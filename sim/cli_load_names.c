/* cli_load_names.c - names resolved once: the cache's table of what each name (a model, device,
 * engine, trace, a data file) resolved to and whether the files exist, filled before a sweep's,
 * plan's or capacity search's points, so that a point asks the file system nothing
 * (cli_load.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_load.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "find.h"
#include "unc.h"

/* Keys of the table: the data folder of a bare name, the data files' folder, or none (a path
 * whose existence was asked). */
static const char NAMES_DATA[] = "tools/data";
static const char NAMES_EXISTS[] = "";

static const cli_load_name *name_find(const cli_load_cache *c, const char *dir, const char *arg)
{
    for (size_t i = 0; c && i < c->n_names; i++)
        if (strcmp(c->names[i].dir, dir) == 0 && strcmp(c->names[i].arg, arg) == 0)
            return &c->names[i];
    return NULL;
}

/* Records one answer (dir must be one of the static keys). */
static sim_status name_add(cli_load_cache *c, const char *dir, const char *arg, const char *path,
                           bool found)
{
    if (name_find(c, dir, arg))
        return SIM_OK;
    if (c->n_names == c->cap_names) {
        size_t cap = c->cap_names ? 2 * c->cap_names : 16;
        cli_load_name *n = realloc(c->names, cap * sizeof *n);
        if (!n)
            return SIM_EINTERNAL;
        c->names = n;
        c->cap_names = cap;
    }
    cli_load_name *n = &c->names[c->n_names];
    n->dir = dir;
    n->found = found;
    n->arg = strdup(arg);
    n->path = strdup(path);
    if (!n->arg || !n->path) {
        free(n->arg);
        free(n->path);
        return SIM_EINTERNAL;
    }
    c->n_names++;
    return SIM_OK;
}

void cli_load_names_free(cli_load_cache *c)
{
    for (size_t i = 0; i < c->n_names; i++) {
        free(c->names[i].arg);
        free(c->names[i].path);
    }
    free(c->names);
    c->names = NULL;
    c->n_names = c->cap_names = 0;
}

/* Copies src into buf as snprintf would. */
static void copy(char *buf, size_t len, const char *src) { snprintf(buf, len, "%s", src); }

void cli_load_resolve_in(const cli_load_cache *c, cli_load_kind kind, const char *arg, char *buf,
                         size_t len)
{
    const cli_load_name *n = name_find(c, cli_load_dir(kind), arg);
    if (n)
        copy(buf, len, n->path);
    else
        cli_load_resolve(kind, arg, buf, len);
}

bool cli_load_exists_in(const cli_load_cache *c, const char *path)
{
    const cli_load_name *n = name_find(c, NAMES_EXISTS, path);
    return n ? n->found : access(path, F_OK) == 0;
}

bool cli_load_data_in(const cli_load_cache *c, const char *file, char *out, size_t len)
{
    const cli_load_name *n = name_find(c, NAMES_DATA, file);
    if (!n)
        return sim_find_file(NAMES_DATA, file, out, len);
    if (n->found)
        copy(out, len, n->path);
    return n->found;
}

sim_status cli_load_names_note(cli_load_cache *c, cli_load_kind kind, const char *arg)
{
    if (name_find(c, cli_load_dir(kind), arg))
        return SIM_OK;
    char path[PATH_MAX];
    cli_load_resolve(kind, arg, path, sizeof path);
    sim_status st = name_add(c, cli_load_dir(kind), arg, path, true);
    st |= name_add(c, NAMES_EXISTS, arg, "", access(arg, F_OK) == 0);
    st |= name_add(c, NAMES_EXISTS, path, "", access(path, F_OK) == 0);
    return st;
}

sim_status cli_load_names_note_data(cli_load_cache *c, const char *file)
{
    if (name_find(c, NAMES_DATA, file))
        return SIM_OK;
    char path[PATH_MAX];
    bool found = sim_find_file(NAMES_DATA, file, path, sizeof path);
    return name_add(c, NAMES_DATA, file, found ? path : "", found);
}

const sim_unc_table *cli_load_cache_unc(const cli_load_cache *c, const char *path)
{
    for (size_t i = 0; c && i < c->n_unc; i++)
        if (strcmp(c->unc[i].path, path) == 0)
            return c->unc[i].st ? NULL : c->unc[i].t;
    return NULL;
}

sim_status cli_load_unc_note(cli_load_cache *c, const cli_opts *o)
{
    char path[PATH_MAX];
    cli_load_unc_path(c, o, path, sizeof path);
    for (size_t i = 0; i < c->n_unc; i++)
        if (strcmp(c->unc[i].path, path) == 0)
            return SIM_OK;
    cli_load_unc *u = realloc(c->unc, (c->n_unc + 1) * sizeof *u);
    if (!u)
        return SIM_EINTERNAL;
    c->unc = u;
    u = &c->unc[c->n_unc];
    memset(u, 0, sizeof *u);
    if (!(u->t = malloc(sizeof *u->t)) || !(u->path = strdup(path))) {
        free(u->t);
        return SIM_EINTERNAL;
    }
    c->n_unc++;
    sim_err err;
    u->st = sim_unc_load(path, u->t, &err);
    return SIM_OK;
}

void cli_load_unc_path(const cli_load_cache *c, const cli_opts *o, char *buf, size_t len)
{
    copy(buf, len, o->unc_table ? o->unc_table : "tools/data/uncertainty.csv");
    if (!o->unc_table)
        cli_load_data_in(c, "uncertainty.csv", buf, len);
}

void cli_load_unc_free(cli_load_cache *c)
{
    for (size_t i = 0; i < c->n_unc; i++) {
        free(c->unc[i].t);
        free(c->unc[i].path);
    }
    free(c->unc);
    c->unc = NULL;
    c->n_unc = 0;
}
