/* workload_free.c - a workload's storage given back (workload.h sim_workload_free): below the
 * readers, the synthetic streams and the sessions, which all call it. */
#include "workload.h"

#include <stdlib.h>

void sim_workload_free(sim_workload *w)
{
    free(w->reqs);
    free(w->hash_ids);
    free(w->links);
    w->reqs = NULL;
    w->hash_ids = NULL;
    w->links = NULL;
    w->n = 0;
    w->n_hash_ids = 0;
}
