/* cli_point_fleet.c - the deployment flags of a serving point (cli_point.h): --disagg,
 * --kv-offload and --autoscale with their companions. */
#define _POSIX_C_SOURCE 200809L
#include "cli_point.h"

#include "kvtier.h"
#include "mem.h"
#include "pp.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "A:B", two decimal integers; false when it is not that. */
static bool int_pair(const char *s, long *a, long *b)
{
    char *end;
    errno = 0;
    *a = strtol(s, &end, 10);
    *b = 0;
    if (end == s || *end != ':' || errno)
        return false;
    const char *q = end + 1;
    *b = strtol(q, &end, 10);
    return end != q && !*end && !errno;
}

/* --disagg P:D (with its companions) into dc; n_prefill stays 0 without it. */
sim_status cli_point_disagg_flags(const cli_opts *o, sim_disagg_cfg *dc, sim_err *err)
{
    if (!o->disagg) /* its companions need it (the option table's rule) */
        return SIM_OK;
    long p, d;
    if (!int_pair(o->disagg, &p, &d) || p < 1 || d < 1 || p + d > SIM_CLUSTER_MAX_REPLICAS)
        return sim_fail(err, SIM_EINPUT,
                        "--disagg: value '%s', expected P:D prefill and decode instances, each "
                        ">= 1, P + D <= %d",
                        o->disagg, SIM_CLUSTER_MAX_REPLICAS);
    if (o->replicas > 1)
        return sim_fail(err, SIM_EINPUT,
                        "--replicas with --disagg: expected one of them (--disagg P:D gives the "
                        "instance counts)");
    dc->n_prefill = (int)p;
    dc->n_decode = (int)d;
    return SIM_OK;
}

/* --kv-offload cpu:GB[,disk:GB][,remote:GB] and --kv-offload-write into the engine's lower KV
 * tiers, read at the device file's links (engine.h sim_engine_offload): DRAM at host_link x its
 * efficiency, disk at the slower of the drive and that link, each with its latency; the remote
 * store at the GPU's NIC, scaleout x alltoall.rdma_bw_eff (RDMA reads into HBM, as Mooncake's
 * transfer engine moves KV with GPUDirect RDMA), with one hop's scaleout_latency_us. */
sim_status cli_point_offload_flags(const cli_opts *o, const sim_hw *hw, sim_engine_offload *off,
                                   sim_err *err)
{
    memset(off, 0, sizeof *off);
    off->write_through = true;
    if (o->kv_offload_write) {
        if (strcmp(o->kv_offload_write, "evict") == 0)
            off->write_through = false;
        else if (strcmp(o->kv_offload_write, "through") != 0)
            return sim_fail(err, SIM_EINPUT,
                            "--kv-offload-write: value '%s', expected through or evict",
                            o->kv_offload_write);
        if (!o->kv_offload)
            return sim_fail(err, SIM_EINPUT, "--kv-offload-write: applies only with --kv-offload");
    }
    if (!o->kv_offload)
        return SIM_OK;
    const char *p = o->kv_offload;
    bool seen[SIM_KVTIER_LOWER] = {false};
    while (*p) {
        int t = -1;
        for (int i = 0; i < SIM_KVTIER_LOWER && t < 0; i++) {
            const size_t n = strlen(sim_kvtier_name(i));
            if (strncmp(p, sim_kvtier_name(i), n) == 0 && p[n] == ':')
                t = i;
        }
        char *end = NULL;
        double gb = -1.0;
        if (t >= 0) {
            errno = 0;
            const char *num = p + strlen(sim_kvtier_name(t)) + 1;
            gb = strtod(num, &end);
            if (end == num || errno || strpbrk(num, "xX") || (*end && *end != ','))
                gb = -1.0;
        }
        if (t < 0 || !(gb > 0.0 && gb <= 1e6) || seen[t])
            return sim_fail(err, SIM_EINPUT,
                            "--kv-offload: value '%s', expected cpu:GB[,disk:GB][,remote:GB] "
                            "(each tier once, 0 < GB <= 1e6)",
                            o->kv_offload);
        seen[t] = true;
        off->bytes[t] = gb * 1e9;
        p = *end ? end + 1 : end;
    }
    const double link = hw->host_link_bytes_per_s * hw->eff_host_link;
    off->read_bytes_per_s[0] = link;
    off->latency_ns[0] = hw->host_link_latency_ns;
    off->read_bytes_per_s[1] = hw->host_disk_bytes_per_s < link ? hw->host_disk_bytes_per_s : link;
    off->latency_ns[1] = hw->host_disk_latency_ns + hw->host_link_latency_ns;
    off->read_bytes_per_s[2] = hw->scaleout_bytes_per_s * hw->a2a.rdma_eff;
    off->latency_ns[2] = hw->scaleout_latency_ns;
    return SIM_OK;
}


/* --autoscale MIN:MAX and its companions into a (a->max 0 without it). The start of a replica
 * added: --autoscale-provision-s plus its weight load, each GPU reading its shard from local
 * NVMe over its host link at the slower of the two (the device file's host_disk_gb_per_s and
 * host_link x efficiency.host_link), as an engine loads safetensors from a node's disk. */
sim_status cli_point_autoscale_flags(const cli_opts *o, const sim_step_cfg *step,
                                     sim_autoscale *a, sim_err *err)
{
    memset(a, 0, sizeof *a);
    if (!o->autoscale) /* its companions need it (the option table's rule) */
        return SIM_OK;
    long lo, hi;
    if (!int_pair(o->autoscale, &lo, &hi) || lo < 1 || lo > hi || hi > SIM_CLUSTER_MAX_REPLICAS)
        return sim_fail(err, SIM_EINPUT,
                        "--autoscale: value '%s', expected MIN:MAX replicas with 1 <= MIN <= MAX "
                        "<= %d",
                        o->autoscale, SIM_CLUSTER_MAX_REPLICAS);
    /* without --replicas or --disagg, with --autoscale-target: the option table's rules */
    a->min = (int)lo;
    a->max = (int)hi;
    a->metric = SIM_SCALE_QUEUE;
    if (o->autoscale_metric && !sim_scale_metric_parse(o->autoscale_metric, &a->metric))
        return sim_fail(err, SIM_EINPUT, "--autoscale-metric: value '%s', expected queue, kv or rate",
                        o->autoscale_metric);
    a->target = o->autoscale_target;
    a->tolerance = 0.1; /* HPA's --horizontal-pod-autoscaler-tolerance default */
    a->interval_ns = llround(o->autoscale_interval_s * 1e9);
    a->down_window_ns = llround(o->autoscale_down_window_s * 1e9);
    const sim_hw *hw = step->hw;
    const double link = hw->host_link_bytes_per_s * hw->eff_host_link;
    const double read = hw->host_disk_bytes_per_s < link ? hw->host_disk_bytes_per_s : link;
    const double load_s = sim_mem_weight_bytes(step) / read;
    a->start_ns = llround((o->autoscale_provision_s + load_s) * 1e9);
    return SIM_OK;
}

/* The most kinds of device one --replica-hw list names. */
#define MIX_KINDS 16

sim_status cli_point_mixed_replicas(const cli_opts *o, const cli_load_cache *cache,
                                    cli_point_serve_state *s, sim_cluster_cfg *cc, sim_err *err)
{
    if (o->disagg || o->autoscale)
        return sim_fail(err, SIM_EINPUT, "--replica-hw with %s: expected one of them",
                        o->disagg ? "--disagg" : "--autoscale");
    char names[MIX_KINDS][PATH_MAX];
    long count[MIX_KINDS];
    int kinds = 0;
    long total = 0;
    for (const char *p = o->replica_hw; *p;) {
        const char *colon = strchr(p, ':');
        char *end = NULL;
        errno = 0;
        long k = colon ? strtol(colon + 1, &end, 10) : 0;
        if (!colon || colon == p || (size_t)(colon - p) >= PATH_MAX || errno || end == colon + 1 ||
            (*end && *end != ',') || k < 1 || kinds == MIX_KINDS ||
            total + k > SIM_CLUSTER_MAX_REPLICAS)
            return sim_fail(err, SIM_EINPUT,
                            "--replica-hw: value '%s', expected DEV:N,DEV:N,... (each N >= 1, at "
                            "most %d devices and %d replicas)",
                            o->replica_hw, MIX_KINDS, SIM_CLUSTER_MAX_REPLICAS);
        snprintf(names[kinds], sizeof names[kinds], "%.*s", (int)(colon - p), p);
        count[kinds++] = k;
        total += k;
        p = *end ? end + 1 : end;
    }
    if (total < 2 || (cli_opt_given(o, CLI_OPT_ID_REPLICAS) && o->replicas != total))
        return sim_fail(err, SIM_EINPUT, "--replica-hw: value '%s' names %ld replicas, expected %s",
                        o->replica_hw, total,
                        total < 2 ? "at least 2" : "as many as --replicas gives");
    s->mix_hw = calloc((size_t)kinds, sizeof *s->mix_hw);
    s->mix_cfg = calloc((size_t)total, sizeof *s->mix_cfg);
    if (!s->mix_hw || !s->mix_cfg)
        return sim_fail(err, SIM_EINTERNAL, "out of memory for --replica-hw");
    const double per = (double)sim_pp_gpus(&s->cfg.step);
    double usd = 0.0;
    bool known = true;
    for (int k = 0, r = 0; k < kinds; k++) {
        char path[PATH_MAX];
        cli_load_resolve_in(cache, CLI_LOAD_HW, names[k], path, sizeof path);
        double price = 0.0;
        sim_status st = cli_load_hw(cache, path, &s->mix_hw[k], err);
        if (!st)
            st = cli_load_price(o, cache, path, &s->mix_hw[k], &price, err);
        if (st)
            return st;
        known &= price > 0.0;
        usd += price * per * (double)count[k];
        for (long j = 0; j < count[k]; j++, r++) {
            s->mix_cfg[r] = s->cfg;
            s->mix_cfg[r].step.hw = &s->mix_hw[k];
        }
    }
    cc->replicas = (int)total;
    cc->per_replica = s->mix_cfg;
    s->gpus = (int64_t)(per * (double)total);
    s->usd_per_gpu_hour = known ? usd / (per * (double)total) : 0.0;
    return SIM_OK;
}
