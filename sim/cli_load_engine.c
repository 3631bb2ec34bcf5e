/* cli_load_engine.c - the engine profiles for the command line: the catalogue of hw/engines, the
 * profile --engine (or a validation row, a result file) names on a device, the flags that override
 * its fields, and a profile's step and engine settings (cli_load.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_load.h"
#include "cli_dropin.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "find.h"

/* ------------------------------------------------------------------------------------------ */
/* The catalogue of engine profiles and what --engine names */

static int json_file(const struct dirent *d)
{
    size_t l = strlen(d->d_name);
    return l > 5 && strcmp(d->d_name + l - 5, ".json") == 0;
}

sim_status cli_load_catalog_load(cli_load_catalog *c)
{
    if (c->loaded)
        return SIM_OK;
    c->loaded = true;
    char dir[PATH_MAX];
    if (!sim_find_file(cli_load_dir(CLI_LOAD_ENGINE), ".", dir, sizeof dir)) {
        c->st = sim_fail(&c->err, SIM_EINPUT,
                         "%s/: not found in the working directory, $INFERSIM_DATA, next to the "
                         "binary or in share/infersim; expected the engine profiles",
                         cli_load_dir(CLI_LOAD_ENGINE));
        return SIM_OK;
    }
    size_t dl = strlen(dir); /* sim_find_file's "DIR/." */
    if (dl > 2 && strcmp(dir + dl - 2, "/.") == 0)
        dir[dl - 2] = '\0';
    struct dirent **names = NULL;
    int n = scandir(dir, &names, json_file, alphasort);
    if (n > 0 && !(c->p = calloc((size_t)n, sizeof *c->p))) {
        for (int i = 0; i < n; i++)
            free(names[i]);
        free(names);
        return SIM_EINTERNAL;
    }
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (!c->st && (c->st = sim_engprof_load(path, &c->p[c->n], &c->err)) == SIM_OK)
            c->n++;
        free(names[i]);
    }
    free(names);
    return SIM_OK;
}

void cli_load_catalog_free(cli_load_catalog *c)
{
    free(c->p);
    *c = (cli_load_catalog){0};
}

/* Whether some profile of the catalogue is of engine `name` for platform `on` (up to case, as
 * cli_load_resolve found "vLLM" as engines/vllm.json: its ROCm profile is still wanted). */
static bool catalog_has(const cli_load_catalog *c, const char *name, sim_engprof_platform on)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcasecmp(c->p[i].engine, name) == 0 && c->p[i].platform == on)
            return true;
    return false;
}

sim_status cli_load_engine_spec_path(const char *spec, const char *what,
                                     const cli_load_cache *cache, const sim_hw *hw, char *buf,
                                     size_t len, sim_err *err)
{
    cli_load_resolve_in(cache, CLI_LOAD_ENGINE, spec, buf, len);
    const bool at = strchr(spec, '@') != NULL;
    const sim_engprof_platform on = sim_engprof_device_platform(hw);
    const bool file = cli_load_exists_in(cache, buf);
    const size_t l = strlen(spec);
    const bool json = l > 5 && strcmp(spec + l - 5, ".json") == 0; /* a file, found or not */
    if (cli_load_exists_in(cache, spec) || strchr(spec, '/') || json ||
        (!at && file && on == SIM_ENGPROF_CUDA))
        return SIM_OK;
    cli_load_catalog own = {0};
    const cli_load_catalog *c = cache && cache->catalog.loaded ? &cache->catalog : &own;
    if (c == &own && cli_load_catalog_load(&own))
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_status st = c->st;
    if (st && err)
        *err = c->err;
    size_t k = 0;
    /* a bare name on ROCm: the engine's ROCm profile when it has one, else the file */
    if (!st && !at && file && !catalog_has(c, spec, SIM_ENGPROF_ROCM)) {
        cli_load_catalog_free(&own);
        return SIM_OK;
    }
    if (!st)
        st = sim_engprof_pick(c->p, c->n, spec, on, what, &k, err);
    if (!st)
        snprintf(buf, len, "%s", c->p[k].path);
    cli_load_catalog_free(&own);
    return st;
}

const char *cli_load_engine_spec(const cli_opts *o, const char **what)
{
    /* vllm bench serve's --backend names the engine it measures (sglang, tensorrt-llm, ...):
     * its profile unless --engine says otherwise; openai and unknown names keep --engine's */
    const char *e = cli_opt_given(o, CLI_OPT_ID_ENGINE) || !o->backend
                        ? NULL
                        : cli_dropin_backend_engine(o->backend);
    if (what)
        *what = e ? "--backend" : "--engine";
    return e ? e : o->engine;
}

sim_status cli_load_engine_path(const cli_opts *o, const cli_load_cache *cache, const sim_hw *hw,
                                char *buf, size_t len, sim_err *err)
{
    const char *what;
    const char *spec = cli_load_engine_spec(o, &what);
    return cli_load_engine_spec_path(spec, what, cache, hw, buf, len, err);
}

/* The row of the other half of on/off row i's pair (ON for an OFF row, OFF for an ON one: the
 * same profile field) that the command line gave, or cli_opt_count when none. */
static size_t given_partner(const cli_opts *o, size_t i)
{
    const cli_opt_def *d = &cli_opt_table[i];
    const cli_opt_eng other = d->eng == CLI_OPT_ENG_ON ? CLI_OPT_ENG_OFF : CLI_OPT_ENG_ON;
    for (size_t j = 0; j < cli_opt_count; j++)
        if (o->given[j] && cli_opt_table[j].eng == other &&
            cli_opt_table[j].eng_offset == d->eng_offset)
            return j;
    return cli_opt_count;
}

sim_status cli_load_engine_overrides(const cli_opts *o, sim_engprof *e, sim_err *err)
{
    for (size_t i = 0; i < cli_opt_count; i++) {
        const cli_opt_def *d = &cli_opt_table[i];
        if (d->eng == CLI_OPT_ENG_NONE || !o->given[i])
            continue;
        const char *from = (const char *)o + d->offset;
        char *to = (char *)e + d->eng_offset;
        if (d->eng == CLI_OPT_ENG_I64) {
            memcpy(to, from, sizeof(int64_t));
        } else if (d->eng == CLI_OPT_ENG_F64) {
            memcpy(to, from, sizeof(double));
        } else {
            const size_t j = given_partner(o, i);
            if (j < cli_opt_count) {
                const bool on = d->eng == CLI_OPT_ENG_ON;
                return sim_fail(err, SIM_EINPUT, "%s and %s: contradict each other, expected one",
                                on ? d->name : cli_opt_table[j].name,
                                on ? cli_opt_table[j].name : d->name);
            }
            *(bool *)to = d->eng == CLI_OPT_ENG_ON;
        }
    }
    return SIM_OK;
}

sim_step_cfg cli_load_engine_step(const sim_engprof *e, const sim_model *m)
{
    /* eager Python runs every layer's modules on the CPU each iteration */
    double layers_us = e->layer_overhead_us * (double)m->layers;
    return (sim_step_cfg){.model = m,
                          .eager = !e->cuda_graphs,
                          .piecewise_graphs = e->piecewise_graphs,
                          .iteration_overhead_ns = (e->iteration_overhead_us + layers_us) * 1e3,
                          .request_overhead_ns = e->request_overhead_us * 1e3,
                          .sync_overhead_ns = e->sync_overhead_us * 1e3,
                          .eager_kernel_cpu_ns = e->eager_kernel_cpu_us * 1e3,
                          .async_sched = e->async_scheduling,
                          .mem_rule = e->mem_rule,
                          .graph_max_bs = e->cuda_graph_max_bs,
                          .allreduce = e->allreduce,
                          .fuse_allreduce_norm = e->fuse_allreduce_norm,
                          .vllm_stages = e->vllm_stages,
                          .fuse_qk_norm_rope = e->fuse_qk_norm_rope,
                          .decode_attn = e->decode_attn,
                          .decode_attn_quant_kv = e->decode_attn_quant_kv,
                          .act_quant_kernels = (int)e->act_quant_kernels,
                          .kfloor = e->kfloor,
                          .moe_kernel = e->moe_kernel,
                          .moe_kernel_quantized = m->mla ? e->moe_kernel_quantized : e->moe_kernel,
                          .moe_kernel_mixed = e->moe_kernel_mixed,
                          .block_fp8_triton = e->block_fp8_triton};
}

void cli_load_engine_cfg(const sim_engprof *e, sim_engine_cfg *cfg)
{
    cfg->sched = (sim_sched_cfg){.max_num_seqs = e->max_num_seqs,
                                 .max_num_batched_tokens = e->max_num_batched_tokens,
                                 .chunked_prefill = e->chunked_prefill,
                                 .policy = e->policy,
                                 .ratio_init = e->ratio_init,
                                 .ratio_min = e->ratio_min,
                                 .ratio_decay = e->ratio_decay,
                                 .lpm = e->lpm};
    cfg->block_size = e->block_size;
    cfg->mem_util = e->mem_fraction;
    cfg->prefix_caching = e->prefix_caching;
    cfg->no_hybrid_kv = e->no_hybrid_kv;
    cfg->max_input_len = e->max_input_len;
    cfg->frontend = (sim_frontend_cfg){.on = e->fe_on,
                                       .processes = e->fe_processes,
                                       .request_ns = e->fe_request_us * 1e3,
                                       .input_token_ns = e->fe_input_token_us * 1e3,
                                       .output_token_ns = e->fe_output_token_us * 1e3,
                                       .chunk_ns = e->fe_chunk_us * 1e3,
                                       .stream_interval = e->fe_stream_interval,
                                       .first_token_alone = e->fe_first_token_alone,
                                       .per_token_itl = e->per_token_itl};
}
