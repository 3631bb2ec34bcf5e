/* cli_point_dataset.c - the public datasets of --dataset-name: fitted lengths, or a production
 * trace replayed at the request rate (cli_point.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_point.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "find.h"

bool cli_point_public_dataset(const cli_opts *o)
{
    return o->dataset_name && strcmp(o->dataset_name, "random") != 0 &&
           strcmp(o->dataset_name, "prefix_repetition") != 0;
}

sim_status cli_point_dataset(const cli_opts *o, const cli_load_cache *cache, sim_dataset *ds,
                             sim_err *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "tools/data/datasets.json");
    cli_load_data_in(cache, "datasets.json", path, sizeof path);
    return sim_dataset_load(path, o->dataset_name, ds, err);
}

/* The trace's requests: cached (the plan's and sweep's parallel loops) or read from disk into
 * tmp; *w points at one of them. */
static sim_status trace_requests(const cli_opts *o, const sim_dataset *ds,
                                 const cli_load_cache *cache, sim_workload *tmp,
                                 const sim_workload **w, sim_err *err)
{
    char path[PATH_MAX];
    cli_load_resolve_in(cache, CLI_LOAD_TRACE, ds->trace, path, sizeof path);
    const cli_load_entry *e = cli_load_cache_find(cache, CLI_LOAD_TRACE, path, 1.0, o->num_prompts);
    sim_status st = SIM_OK;
    if (e) {
        *w = &e->w;
        if (e->st)
            return sim_fail(err, e->st, "%s", e->err.msg);
    } else {
        *w = tmp;
        st = sim_workload_load_trace(path, 1.0, o->num_prompts, tmp, err);
    }
    if (!st && (*w)->n < (size_t)o->num_prompts)
        st = sim_fail(err, SIM_EINPUT,
                      "--num-prompts: value %lld, but --dataset-name %s's trace (%s) has %zu "
                      "requests",
                      (long long)o->num_prompts, ds->name, ds->trace, (*w)->n);
    return st;
}

sim_status cli_point_dataset_workload(const cli_opts *o, const sim_dataset *ds,
                                      const cli_load_cache *cache, sim_workload *own,
                                      sim_err *err)
{
    static const cli_opt_id shaped[] = {CLI_OPT_ID_BURSTINESS, CLI_OPT_ID_SHAREGPT_OUTPUT_LEN};
    for (size_t i = 0; i < sizeof shaped / sizeof shaped[0]; i++)
        if (cli_opt_given(o, shaped[i]))
            return sim_fail(err, SIM_EINPUT,
                            "%s: does not apply to --dataset-name %s (a production trace: its "
                            "requests give the lengths and the arrivals' shape; --request-rate "
                            "scales its gaps)",
                            cli_opt_name(shaped[i]), ds->name);
    sim_workload tmp = {0};
    const sim_workload *w = NULL;
    sim_status st = trace_requests(o, ds, cache, &tmp, &w, err);
    if (!st)
        st = sim_workload_at_rate(w, o->rate, own, err);
    sim_workload_free(&tmp);
    return st;
}

sim_status cli_point_dataset_cache_add(const cli_opts *o, const sim_dataset *ds,
                                       cli_load_cache *cache, sim_err *err)
{
    if (!ds->trace[0])
        return SIM_OK;
    char path[PATH_MAX];
    cli_load_resolve(CLI_LOAD_TRACE, ds->trace, path, sizeof path);
    return cli_load_cache_add(cache, CLI_LOAD_TRACE, path, 1.0, o->num_prompts)
               ? sim_fail(err, SIM_EINTERNAL, "out of memory")
               : SIM_OK;
}

sim_status cli_point_dataset_stats(const cli_opts *o, sim_dataset *ds, sim_workload_stats *st,
                                   sim_err *err)
{
    sim_workload_stats own;
    sim_workload_stats *s = st ? st : &own;
    memset(s, 0, sizeof *s);
    if (!ds->trace[0])
        return SIM_OK;
    sim_workload tmp = {0};
    const sim_workload *w = NULL;
    sim_status r = trace_requests(o, ds, NULL, &tmp, &w, err);
    if (!r)
        r = sim_workload_stats_of(w, s, err);
    sim_workload_free(&tmp);
    if (!r) {
        ds->in = s->in, ds->out = s->out;
        snprintf(ds->in.source, sizeof ds->in.source, "%s", ds->trace_source);
        snprintf(ds->out.source, sizeof ds->out.source, "%s", ds->trace_source);
    }
    return r;
}
