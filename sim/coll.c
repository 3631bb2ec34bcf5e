/* coll.c - names of collective kinds, algorithms and protocols. */
#include "coll.h"

#include <assert.h>
#include <string.h>

static const char *const algo_names[SIM_COLL_ALGO_COUNT] = {
    [SIM_COLL_AUTO] = "auto",       [SIM_COLL_RING] = "ring",       [SIM_COLL_TREE] = "tree",
    [SIM_COLL_ONESHOT] = "oneshot", [SIM_COLL_TWOSHOT] = "twoshot", [SIM_COLL_NVLS] = "nvls",
    [SIM_COLL_NCCL] = "nccl",       [SIM_COLL_DIRECT] = "direct",
};
static const char *const proto_names[SIM_COLL_PROTO_COUNT + 1] = {[SIM_COLL_LL] = "ll",
                                                                  [SIM_COLL_LL128] = "ll128",
                                                                  [SIM_COLL_SIMPLE] = "simple",
                                                                  [SIM_COLL_PROTO_NONE] = ""};
static const char *const kind_names[SIM_COLL_KIND_COUNT] = {[SIM_COLL_ALLREDUCE] = "allreduce",
                                                            [SIM_COLL_ALLGATHER] = "allgather",
                                                            [SIM_COLL_REDUCE_SCATTER] =
                                                                "reduce_scatter",
                                                            [SIM_COLL_ALLTOALL] = "alltoall"};

const char *sim_coll_algo_name(sim_coll_algo a)
{
    assert(a >= 0 && a < SIM_COLL_ALGO_COUNT);
    return algo_names[a];
}

const char *sim_coll_proto_name(sim_coll_proto p)
{
    assert(p >= 0 && p <= SIM_COLL_PROTO_NONE);
    return proto_names[p];
}

const char *sim_coll_kind_name(sim_coll_kind k)
{
    assert(k >= 0 && k < SIM_COLL_KIND_COUNT);
    return kind_names[k];
}

bool sim_coll_algo_parse(const char *s, sim_coll_algo *out)
{
    for (int a = 0; a < SIM_COLL_DIRECT; a++)
        if (strcmp(s, algo_names[a]) == 0) {
            *out = (sim_coll_algo)a;
            return true;
        }
    return false;
}

