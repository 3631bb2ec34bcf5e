/* collective.c - collective algorithms and protocols (formulas in collective.h). */
#include "collective.h"

#include <assert.h>
#include <math.h>

/* sim_hw_coll's arrays are indexed by these enums */
static_assert(SIM_COLL_PROTO_COUNT == 3, "sim_hw_coll.proto_* hold one value per protocol");
static_assert(SIM_COLL_ALGO_COUNT == 8, "sim_hw_coll.algo_* hold one value per algorithm");

bool sim_collective_has(const sim_hw *hw, sim_coll_algo a)
{
    if (a == SIM_COLL_AUTO || a == SIM_COLL_NCCL || a == SIM_COLL_RING)
        return true;
    return (hw->coll.algos >> a) & 1u;
}

static bool custom(sim_coll_algo a) { return a == SIM_COLL_ONESHOT || a == SIM_COLL_TWOSHOT; }

sim_status sim_collective_check(const sim_hw *hw, sim_coll_algo a, int ranks, const char *flag,
                                sim_err *err)
{
    if (!sim_collective_has(hw, a))
        return sim_fail(err, SIM_EINPUT,
                        "%s: value %s is not an algorithm of %s (%s has no \"%s\" in "
                        "collectives.algorithms); choose auto or one the device has",
                        flag, sim_coll_algo_name(a), hw->name, hw->path, sim_coll_algo_name(a));
    if (custom(a) && ranks > hw->devices_per_node)
        return sim_fail(err, SIM_EINPUT,
                        "%s: value %s is a custom all-reduce within one node, but %d GPUs span "
                        "nodes of %d (devices_per_node of %s); choose auto, ring, tree or nvls",
                        flag, sim_coll_algo_name(a), ranks, hw->devices_per_node, hw->path);
    return SIM_OK;
}

double sim_collective_bus_bytes(sim_coll_kind kind, double m, int n)
{
    if (n <= 1)
        return 0.0;
    double f = (double)(n - 1) / n;
    return kind == SIM_COLL_ALLREDUCE ? 2.0 * f * m : f * m;
}

/* The group's shape over the nodes. */
typedef struct shape {
    double n, g, nodes; /* ranks, ranks per node, nodes */
} shape;

static shape group(const sim_hw *hw, int ranks)
{
    int g = ranks < hw->devices_per_node ? ranks : hw->devices_per_node;
    return (shape){ranks, g, ceil((double)ranks / g)};
}

/* Bandwidth (bytes/ns) of protocol p on the scale-up or scale-out links. */
static double proto_bw(const sim_hw *hw, sim_coll_proto p, bool out)
{
    double link = out ? hw->scaleout_bytes_per_s : hw->scaleup_bytes_per_s;
    return link * hw->eff_network * hw->coll.proto_bw_eff[p] / 1e9;
}

/* Whether the device file gives the protocol's constants (Simple always). */
static bool has_proto(const sim_hw *hw, sim_coll_proto p) { return hw->coll.proto_bw_eff[p] > 0.0; }

static double proto_hop(const sim_hw *hw, sim_coll_proto p)
{
    return p == SIM_COLL_SIMPLE ? hw->scaleup_latency_ns : hw->coll.proto_hop_ns[p];
}

/* Bandwidth (bytes/ns) of a custom or multicast kernel over the scale-up links. */
static double kernel_bw(const sim_hw *hw, sim_coll_algo a)
{
    return hw->scaleup_bytes_per_s * hw->coll.algo_bw_eff[a] / 1e9;
}

/* One ring phase of `steps` steps moving `bytes` per GPU, within a node or across nodes. */
static double ring_phase(const sim_hw *hw, sim_coll_proto p, bool out, double steps, double bytes)
{
    double hop = out ? hw->scaleout_latency_ns : proto_hop(hw, p);
    return steps * hop + bytes / proto_bw(hw, p, out);
}

/* The inter-node part of the hierarchical all-reduce: a double binary tree on the M/G shard. */
static double tree_internode(const sim_hw *hw, sim_coll_proto p, shape s, double m)
{
    if (s.nodes <= 1.0)
        return 0.0;
    return 2.0 * ceil(log2(s.nodes)) * hw->scaleout_latency_ns + m / s.g / proto_bw(hw, p, true);
}

/* NCCL's ring or tree all-reduce with protocol p, without F. */
static double nccl_allreduce_ns(const sim_hw *hw, sim_coll_algo a, sim_coll_proto p, shape s,
                                double m)
{
    double base = hw->coll.proto_base_ns[p];
    if (a == SIM_COLL_RING)
        return base +
               ring_phase(hw, p, s.nodes > 1.0, 2.0 * (s.n - 1.0), 2.0 * (s.n - 1.0) / s.n * m);
    return base + 2.0 * ring_phase(hw, p, false, s.g - 1.0, (s.g - 1.0) / s.g * m) +
           tree_internode(hw, p, s, m);
}

/* A custom (oneshot, twoshot) or multicast (nvls) all-reduce kernel, without F. */
static double kernel_allreduce_ns(const sim_hw *hw, sim_coll_algo a, shape s, double m)
{
    double lat = hw->coll.algo_latency_ns[a], bw = kernel_bw(hw, a);
    if (a == SIM_COLL_ONESHOT)
        return lat + (s.n - 1.0) * m / bw;
    if (a == SIM_COLL_TWOSHOT)
        return lat + 2.0 * (s.n - 1.0) / s.n * m / bw;
    return lat + (s.g + 1.0) / s.g * m / bw + tree_internode(hw, SIM_COLL_SIMPLE, s, m);
}

/* Whether `want` lets the cheapest-choice consider algorithm a for an all-reduce of m bytes. */
static bool considered(const sim_hw *hw, sim_coll_algo want, sim_coll_algo a, shape s, double m)
{
    if (want != SIM_COLL_AUTO && want != SIM_COLL_NCCL)
        return a == want;
    if (!sim_collective_has(hw, a))
        return false;
    if (custom(a))
        return want == SIM_COLL_AUTO && s.nodes <= 1.0 && m <= hw->coll.custom_max_bytes;
    return true;
}

/* Keeps the cheaper of best and (t, a, p); ties keep the earlier. */
static void keep_min(sim_collective_cost *best, double t, sim_coll_algo a, sim_coll_proto p)
{
    if (t < best->t_ns)
        *best = (sim_collective_cost){t, a, p};
}

static const sim_collective_cost none = {0.0, SIM_COLL_RING, SIM_COLL_SIMPLE};

sim_collective_cost sim_collective_allreduce(const sim_hw *hw, double m, int ranks,
                                             sim_coll_algo want)
{
    if (ranks <= 1)
        return none;
    shape s = group(hw, ranks);
    sim_collective_cost best = {INFINITY, SIM_COLL_RING, SIM_COLL_SIMPLE};
    for (int a = SIM_COLL_RING; a <= SIM_COLL_NVLS; a++) {
        if (!considered(hw, want, (sim_coll_algo)a, s, m))
            continue;
        if (a == SIM_COLL_RING || a == SIM_COLL_TREE) {
            for (int p = 0; p < SIM_COLL_PROTO_COUNT; p++)
                if (has_proto(hw, (sim_coll_proto)p))
                    keep_min(&best,
                             hw->collective_ns +
                                 nccl_allreduce_ns(hw, (sim_coll_algo)a, (sim_coll_proto)p, s, m),
                             (sim_coll_algo)a, (sim_coll_proto)p);
        } else {
            /* NCCL's synchronization F prices its NVLS too; the custom kernels have their own */
            keep_min(&best,
                     (a == SIM_COLL_NVLS ? hw->collective_ns : 0.0) +
                         kernel_allreduce_ns(hw, (sim_coll_algo)a, s, m),
                     (sim_coll_algo)a, SIM_COLL_PROTO_NONE);
        }
    }
    assert(isfinite(best.t_ns)); /* the ring's Simple protocol always prices */
    return best;
}

/* All-gather and reduce-scatter move the same bytes in the same steps. */
static sim_collective_cost gather_like(const sim_hw *hw, double m, int ranks, sim_coll_algo want)
{
    if (ranks <= 1)
        return none;
    shape s = group(hw, ranks);
    bool multi = s.nodes > 1.0;
    sim_collective_cost best = {INFINITY, SIM_COLL_RING, SIM_COLL_SIMPLE};
    bool nvls = sim_collective_has(hw, SIM_COLL_NVLS) && !multi &&
                (want == SIM_COLL_AUTO || want == SIM_COLL_NCCL || want == SIM_COLL_NVLS);
    if (want != SIM_COLL_NVLS || !nvls)
        for (int p = 0; p < SIM_COLL_PROTO_COUNT; p++)
            if (has_proto(hw, (sim_coll_proto)p))
                keep_min(&best,
                         hw->coll.proto_base_ns[p] + ring_phase(hw, (sim_coll_proto)p, multi,
                                                                s.n - 1.0, (s.n - 1.0) / s.n * m),
                         SIM_COLL_RING, (sim_coll_proto)p);
    if (nvls)
        keep_min(&best,
                 hw->coll.algo_latency_ns[SIM_COLL_NVLS] +
                     (s.n - 1.0) / s.n * m / kernel_bw(hw, SIM_COLL_NVLS),
                 SIM_COLL_NVLS, SIM_COLL_PROTO_NONE);
    best.t_ns += hw->collective_ns;
    return best;
}

sim_collective_cost sim_collective_allgather(const sim_hw *hw, double out_bytes, int ranks,
                                             sim_coll_algo want)
{
    return gather_like(hw, out_bytes, ranks, want);
}

sim_collective_cost sim_collective_reduce_scatter(const sim_hw *hw, double in_bytes, int ranks,
                                                  sim_coll_algo want)
{
    return gather_like(hw, in_bytes, ranks, want);
}

sim_collective_cost sim_collective_alltoall(const sim_hw *hw, double m, int ranks, int steps)
{
    if (ranks <= 1)
        return (sim_collective_cost){0.0, SIM_COLL_DIRECT, SIM_COLL_SIMPLE};
    shape s = group(hw, ranks);
    sim_collective_cost best = {INFINITY, SIM_COLL_DIRECT, SIM_COLL_SIMPLE};
    for (int p = 0; p < SIM_COLL_PROTO_COUNT; p++) {
        sim_coll_proto pr = (sim_coll_proto)p;
        if (!has_proto(hw, pr))
            continue;
        double up = (s.g - 1.0) / s.n * m / proto_bw(hw, pr, false);
        double out = (s.n - s.g) / s.n * m / proto_bw(hw, pr, true);
        double hop = s.nodes > 1.0 ? hw->scaleout_latency_ns : proto_hop(hw, pr);
        keep_min(&best,
                 hw->coll.proto_base_ns[p] + (steps > 1 ? steps : 1) * hop + (up > out ? up : out),
                 SIM_COLL_DIRECT, pr);
    }
    best.t_ns += hw->collective_ns;
    return best;
}

sim_coll_algo sim_collective_vllm_stage(double m, int ranks)
{
    if (ranks <= 2)
        return SIM_COLL_ONESHOT;
    const double limit = ranks <= 4 ? 512.0 * 1024.0 : 256.0 * 1024.0;
    return m < limit ? SIM_COLL_ONESHOT : SIM_COLL_TWOSHOT;
}

sim_coll_algo sim_collective_engine_algo(const sim_hw *hw, double m, int ranks, sim_coll_algo want,
                                         bool vllm_stages)
{
    if (want != SIM_COLL_AUTO || !vllm_stages || ranks <= 1)
        return want;
    const bool custom_ok = sim_collective_has(hw, SIM_COLL_ONESHOT) &&
                           sim_collective_has(hw, SIM_COLL_TWOSHOT) &&
                           ranks <= hw->devices_per_node && m <= hw->coll.custom_max_bytes;
    return custom_ok ? sim_collective_vllm_stage(m, ranks) : SIM_COLL_NCCL;
}

sim_collective_cost sim_collective_price(const sim_hw *hw, sim_coll_kind kind, double m, int ranks,
                                         sim_coll_algo want)
{
    switch (kind) {
    case SIM_COLL_ALLREDUCE:
        return sim_collective_allreduce(hw, m, ranks, want);
    case SIM_COLL_ALLGATHER:
        return sim_collective_allgather(hw, m, ranks, want);
    case SIM_COLL_REDUCE_SCATTER:
        return sim_collective_reduce_scatter(hw, m, ranks, want);
    case SIM_COLL_ALLTOALL:
        return sim_collective_alltoall(hw, m, ranks, 1);
    case SIM_COLL_KIND_COUNT:
        break;
    }
    return none;
}
