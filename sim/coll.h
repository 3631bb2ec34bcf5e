/* coll.h - the vocabulary of collectives: which collective (all-reduce, all-gather, ...), which
 * algorithm (NCCL's ring and tree, the engines' one-shot and two-shot kernels, NVLS) and which
 * NCCL protocol, with their names. A device file lists the algorithms it has by these names
 * (hw.h); collective.h prices them. No state, no I/O.
 */
#ifndef SIM_COLL_H
#define SIM_COLL_H

#include <stdbool.h>

typedef enum sim_coll_kind {
    SIM_COLL_ALLREDUCE,
    SIM_COLL_ALLGATHER,
    SIM_COLL_REDUCE_SCATTER,
    SIM_COLL_ALLTOALL,
    SIM_COLL_KIND_COUNT
} sim_coll_kind;

/* Algorithms. AUTO and NCCL are choices, not algorithms; DIRECT is all-to-all's only one. The
 * device-file names (collectives.algorithms) and --allreduce values are sim_coll_algo_name's. */
typedef enum sim_coll_algo {
    SIM_COLL_AUTO,
    SIM_COLL_RING,
    SIM_COLL_TREE,
    SIM_COLL_ONESHOT,
    SIM_COLL_TWOSHOT,
    SIM_COLL_NVLS,
    SIM_COLL_NCCL,
    SIM_COLL_DIRECT,
    SIM_COLL_ALGO_COUNT
} sim_coll_algo;

/* NCCL's protocols (NONE for the custom and multicast kernels). */
typedef enum sim_coll_proto {
    SIM_COLL_LL,
    SIM_COLL_LL128,
    SIM_COLL_SIMPLE,
    SIM_COLL_PROTO_NONE,
    SIM_COLL_PROTO_COUNT = SIM_COLL_PROTO_NONE
} sim_coll_proto;

/* "auto", "ring", "tree", "oneshot", "twoshot", "nvls", "nccl", "direct". */
const char *sim_coll_algo_name(sim_coll_algo a);

/* "ll", "ll128", "simple", "" (none). */
const char *sim_coll_proto_name(sim_coll_proto p);

/* "allreduce", "allgather", "reduce_scatter", "alltoall". */
const char *sim_coll_kind_name(sim_coll_kind k);

/* Parses an algorithm name (auto ring tree oneshot twoshot nvls nccl); false if unknown. */
bool sim_coll_algo_parse(const char *s, sim_coll_algo *out);

#endif
