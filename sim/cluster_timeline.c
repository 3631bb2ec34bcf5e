/* cluster_timeline.c - a deployment's timeline: a process per instance, requests and transfers. */
#include "cluster_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_detail.h"

/* pid 1 + i: instance i; pid 1 + n: requests and transfers */
static int pid_requests(const sim_cluster_trace *ct) { return 1 + ct->n; }

static void instance_name(const sim_cluster_trace *ct, int i, char *buf, size_t len)
{
    if (ct->n_prefill == 0)
        snprintf(buf, len, "replica %d", i);
    else if (i < ct->n_prefill)
        snprintf(buf, len, "prefill %d", i);
    else
        snprintf(buf, len, "decode %d", i - ct->n_prefill);
}

static void on_iteration(void *ctx, int instance, const sim_iter_info *it)
{
    sim_cluster_trace *ct = ctx;
    sim_targs a;
    sim_timeline_detail_iter_args(&a, it, SIM_TIMELINE_DETAIL_ITER_INSTANCE);
    sim_timeline_slice(&ct->t, 1 + instance, 1, "iteration", "iteration", it->start_ns, it->dur_ns,
                       &a);
    sim_timeline_detail_kv_counter(&ct->t, 1 + instance, it, false);
}

static void on_request(void *ctx, int instance, int64_t id, sim_request_event ev, int64_t t)
{
    sim_cluster_trace *ct = ctx;
    char name[32];
    instance_name(ct, instance, name, sizeof name);
    const int pid = pid_requests(ct);
    if (ev == SIM_EV_ARRIVED) {
        sim_targs a;
        sim_targs_reset(&a);
        sim_targs_int(&a, "request", id);
        sim_timeline_async(&ct->t, 'b', pid, "request", name, id + 1, t, &a);
    } else if (ev == SIM_EV_FINISHED) {
        sim_timeline_async(&ct->t, 'e', pid, "request", name, id + 1, t, NULL);
    } else if (ev == SIM_EV_PREEMPTED) {
        sim_timeline_async(&ct->t, 'n', pid, "request", "preempted", id + 1, t, NULL);
    }
}

static void on_kv(void *ctx, int64_t id, int from, int to, int64_t start, int64_t end)
{
    sim_cluster_trace *ct = ctx;
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_int(&a, "request", id);
    sim_targs_int(&a, "from_prefill", from);
    sim_targs_int(&a, "to_decode", to - ct->n_prefill);
    const int pid = pid_requests(ct);
    sim_timeline_async(&ct->t, 'b', pid, "kv", "kv transfer", id + 1, start, &a);
    sim_timeline_async(&ct->t, 'e', pid, "kv", "kv transfer", id + 1, end, NULL);
    /* and an arrow from the prefill instance's iterations to the decode instance's */
    sim_timeline_flow(&ct->t, 's', 1 + from, 1, "kv", "kv transfer", id + 1, start);
    sim_timeline_flow(&ct->t, 'f', 1 + to, 1, "kv", "kv transfer", id + 1, end);
}

static void on_tier(void *ctx, int instance, const sim_tier_move *m)
{
    sim_cluster_trace *ct = ctx;
    sim_timeline_detail_tier(&ct->t, 1 + instance, 1, &ct->tiers[instance], &ct->tier_flows, m);
}

sim_status sim_cluster_trace_open(sim_cluster_trace *ct, const char *path, int n_prefill,
                                  int n_instances, sim_err *err)
{
    memset(ct, 0, sizeof *ct);
    ct->n_prefill = n_prefill;
    ct->n = n_instances;
    ct->tiers = calloc(n_instances > 0 ? (size_t)n_instances : 1, sizeof *ct->tiers);
    if (!ct->tiers)
        return sim_fail(err, SIM_EINTERNAL, "out of memory for the trace");
    sim_status st = sim_timeline_open(&ct->t, path, err);
    if (st) {
        free(ct->tiers);
        ct->tiers = NULL;
        return st;
    }
    char name[32];
    for (int i = 0; i < n_instances; i++) {
        instance_name(ct, i, name, sizeof name);
        sim_timeline_name_process(&ct->t, 1 + i, name, i);
        sim_timeline_name_thread(&ct->t, 1 + i, 1, "iterations", 0);
    }
    sim_timeline_name_process(&ct->t, pid_requests(ct), "requests", n_instances);
    ct->observer = (sim_cluster_observer){.ctx = ct,
                                          .iteration = on_iteration,
                                          .request = on_request,
                                          .kv_transfer = on_kv,
                                          .tier = on_tier};
    return SIM_OK;
}

void sim_cluster_trace_autoscale(sim_cluster_trace *ct, const sim_cluster_result *c)
{
    sim_targs a;
    for (size_t k = 0; c->autoscaled && k <= c->n_timeline; k++) {
        const sim_scale_point *p = k ? &c->timeline[k - 1] : NULL;
        sim_targs_reset(&a);
        sim_targs_int(&a, "ready", p ? p->ready : c->scale_min);
        sim_targs_int(&a, "held", p ? p->held : c->scale_min);
        sim_timeline_counter(&ct->t, pid_requests(ct), "replicas", p ? p->t_ns : 0, &a);
    }
}

sim_status sim_cluster_trace_close(sim_cluster_trace *ct, sim_err *err)
{
    free(ct->tiers);
    ct->tiers = NULL;
    return sim_timeline_close(&ct->t, err);
}

void sim_cluster_trace_abort(sim_cluster_trace *ct)
{
    free(ct->tiers);
    ct->tiers = NULL;
    sim_timeline_abort(&ct->t);
}
