/* cluster_release.c - a replica behind a router drops the finished front of its stream, its
 * requests' results kept in the deployment's compact form (cluster_internal.h). */
#include "cluster_internal.h"

#include <string.h>

sim_status sim_cluster_release_front(replica *R, sim_err *err)
{
    if (!R->done_to || R->w.n < R->room)
        return SIM_OK;
    const int64_t now = sim_engine_now(R->e);
    const sim_seq *x = R->res.seqs;
    size_t k = 0;
    while (k < R->w.n && x[k].phase == SIM_SEQ_DONE && x[k].finish_ns < now)
        k++;
    if (k == 0 || 2 * k < R->w.n) /* (k 0: an empty stream, its arrays not yet made) */
        return SIM_OK;
    for (size_t j = 0; j < k; j++) {
        R->done_to[R->global[j]] = sim_engine_req_of(&x[j]);
        R->released_input += x[j].input;
        R->released_output += x[j].output;
        if (x[j].finish_ns > R->released_finish_ns)
            R->released_finish_ns = x[j].finish_ns;
    }
    memmove(R->w.reqs, R->w.reqs + k, (R->w.n - k) * sizeof *R->w.reqs);
    memmove(R->global, R->global + k, (R->w.n - k) * sizeof *R->global);
    R->w.n -= k;
    R->base += k;
    R->first_open = R->first_open > k ? R->first_open - k : 0;
    return sim_engine_release(R->e, k, err);
}
