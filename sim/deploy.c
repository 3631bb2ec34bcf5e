/* deploy.c - the deployment a serving run asks for, chosen and run in one call (deploy.h
 * sim_deploy_run): prefill and decode pools, replicas or an autoscaled pool behind a router, or
 * one engine; and the batch limits of a data-parallel engine. */
#include "deploy.h"

#include <string.h>

#include "graph.h"
#include "pp.h"
#include "step.h"

void sim_deploy_dp_limits(sim_engine_cfg *cfg)
{
    sim_par par = sim_step_par(&cfg->step);
    cfg->sched.max_num_seqs *= sim_par_dp(&par);
    cfg->sched.max_num_batched_tokens *= sim_par_dp(&par);
}

int64_t sim_deploy_disagg_gpus(const sim_disagg_cfg *dc)
{
    return dc->n_prefill * sim_pp_gpus(&dc->prefill->step) +
           dc->n_decode * sim_pp_gpus(&dc->decode->step);
}

sim_status sim_deploy_run(const sim_cluster_cfg *cc, const sim_disagg_cfg *dc,
                          const sim_workload *w, sim_engine_result *all, sim_cluster_result *out,
                          sim_err *err)
{
    sim_status st;
    if (dc && dc->n_prefill > 0) {
        if (!(st = sim_disagg_check(dc, w, err)))
            st = sim_disagg_run(dc, w, all, out, err);
        return st;
    }
    if (cc->replicas > 1 || cc->autoscale.max > 0) {
        if (!(st = sim_cluster_check(cc, w, err)))
            st = sim_cluster_run(cc, w, all, out, err);
        return st;
    }
    memset(out, 0, sizeof *out);
    return sim_engine_run(cc->engine, w, all, err);
}
