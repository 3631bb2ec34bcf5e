/* cluster_client.c - the benchmark client's cap on requests in flight across replicas
 * (--max-concurrency with --replicas, cluster.h): the send time of each request. */
#include "cluster_internal.h"

#include <stdlib.h>

int sim_cluster_client_init(sim_cluster_client *c, int64_t cap, int n_replicas, size_t n_reqs)
{
    const size_t room = (size_t)cap < n_reqs ? (size_t)cap : n_reqs;
    *c = (sim_cluster_client){.cap = cap};
    c->fin = malloc((room ? room : 1) * sizeof *c->fin);
    c->counted = calloc((size_t)n_replicas, sizeof *c->counted);
    c->next_ns = malloc((size_t)n_replicas * sizeof *c->next_ns);
    for (int r = 0; c->next_ns && r < n_replicas; r++)
        c->next_ns[r] = INT64_MAX; /* started on empty streams */
    return c->fin && c->counted && c->next_ns;
}

void sim_cluster_client_free(sim_cluster_client *c)
{
    free(c->fin);
    free(c->counted);
    free(c->next_ns);
    c->fin = NULL;
    c->counted = NULL;
    c->next_ns = NULL;
}

/* The finish times not yet freed, a binary min-heap: at most the requests in flight. */
static void fin_push(sim_cluster_client *c, int64_t t)
{
    size_t i = c->n_fin++;
    while (i > 0 && c->fin[(i - 1) / 2] > t) {
        c->fin[i] = c->fin[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    c->fin[i] = t;
}

static void fin_pop(sim_cluster_client *c)
{
    const int64_t last = c->fin[--c->n_fin];
    size_t i = 0;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= c->n_fin)
            break;
        if (k + 1 < c->n_fin && c->fin[k + 1] < c->fin[k])
            k++;
        if (c->fin[k] >= last)
            break;
        c->fin[i] = c->fin[k];
        i = k;
    }
    if (c->n_fin > 0)
        c->fin[i] = last;
}

/* Runs, one event at a time in time order (sim_engine_next_ns), every iteration of the replicas
 * that starts before `until`, or with to_next_finish before the earliest finish found (the
 * others cannot end before it). Each finish is noted when its client has it, exactly. */
static sim_status run_before(sim_cluster_client *c, replica *rep, int n, int64_t until,
                             bool to_next_finish, sim_err *err)
{
    for (;;) {
        const int64_t limit =
            to_next_finish && c->n_fin > 0 && c->fin[0] < until ? c->fin[0] : until;
        int best = -1;
        int64_t low = limit;
        for (int r = 0; r < n; r++)
            if (c->next_ns[r] < low) {
                low = c->next_ns[r];
                best = r;
            }
        if (best < 0)
            return SIM_OK;
        sim_engine *e = rep[best].e;
        sim_status st = sim_engine_advance(e, low + 1, err);
        if (st)
            return st;
        for (size_t done = sim_engine_done(e); c->counted[best] < done; c->counted[best]++)
            fin_push(c, sim_engine_client_ns(e));
        c->next_ns[best] = sim_engine_next_ns(e);
        if (sim_engine_now(e) <= low && c->next_ns[best] <= low)
            return sim_fail(err, SIM_EINTERNAL, "replica %d stalled at t = %lld ns", best,
                            (long long)low);
    }
}

sim_status sim_cluster_client_send(sim_cluster_client *c, replica *rep, int n, int64_t arrival_ns,
                                   int64_t *send_ns, sim_err *err)
{
    int64_t t = arrival_ns > c->last_ns ? arrival_ns : c->last_ns;
    sim_status st = run_before(c, rep, n, t, false, err);
    for (;;) {
        while (!st && c->n_fin > 0 && c->fin[0] <= t) { /* slots freed by t */
            fin_pop(c);
            c->inflight--;
        }
        if (st || c->inflight < c->cap)
            break;
        /* all `cap` in flight: the send waits for the earliest finish, found by running every
         * iteration that starts before it */
        if ((st = run_before(c, rep, n, INT64_MAX, true, err)))
            break;
        if (c->n_fin == 0) {
            st = sim_fail(err, SIM_EINTERNAL, "%lld requests in flight and none finishes",
                          (long long)c->inflight);
            break;
        }
        t = c->fin[0];
    }
    for (int r = 0; !st && r < n; r++) /* the idle ones wait at t */
        st = sim_engine_advance(rep[r].e, t, err);
    c->last_ns = t;
    *send_ns = t;
    return st;
}

void sim_cluster_client_given(sim_cluster_client *c, const replica *rep, int r)
{
    c->next_ns[r] = sim_engine_next_ns(rep[r].e);
    c->inflight++;
}
