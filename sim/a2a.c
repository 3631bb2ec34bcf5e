/* a2a.c - DeepEP's dispatch and combine per mode (formulas in a2a.h). */
#include "a2a.h"

#include <math.h>
#include <string.h>

static const char *const mode_names[SIM_A2A_MODE_COUNT] = {
    [SIM_A2A_AUTO] = "auto", [SIM_A2A_NORMAL] = "normal", [SIM_A2A_LOW_LATENCY] = "low_latency"};

const char *sim_a2a_mode_name(sim_a2a_mode m)
{
    return m >= 0 && m < SIM_A2A_MODE_COUNT ? mode_names[m] : "?";
}

bool sim_a2a_mode_parse(const char *s, sim_a2a_mode *out)
{
    if (strcmp(s, "low-latency") == 0) {
        *out = SIM_A2A_LOW_LATENCY;
        return true;
    }
    for (int i = 0; i < SIM_A2A_MODE_COUNT; i++)
        if (strcmp(s, mode_names[i]) == 0) {
            *out = (sim_a2a_mode)i;
            return true;
        }
    return false;
}

sim_a2a_mode sim_a2a_resolve(sim_a2a_mode m, bool has_prefill)
{
    if (m != SIM_A2A_AUTO)
        return m;
    return has_prefill ? SIM_A2A_NORMAL : SIM_A2A_LOW_LATENCY;
}

/* The chance that none of k draws without replacement from a pool of `pool` experts falls in a
 * block of `block` of them: prod_{i<k} (pool - block - i) / (pool - i). */
static double miss(double pool, double block, double k)
{
    double p = 1.0;
    for (int i = 0; i < (int)k && p > 0.0; i++)
        p *= pool - i > 0.0 ? fmax(pool - block - i, 0.0) / (pool - i) : 0.0;
    return p;
}

/* C(n, r) for the small counts of routing groups. */
static double choose(int n, int r)
{
    if (r < 0 || r > n)
        return 0.0;
    double c = 1.0;
    for (int i = 1; i <= r; i++)
        c = c * (n - r + i) / i;
    return c;
}

double sim_a2a_distinct(double e, double k, double d, int ng, int kg)
{
    if (!(d >= 1.0) || !(e > 0.0) || !(k > 0.0))
        return 0.0;
    int di = (int)d;
    bool limited = ng > 1 && kg > 0 && kg < ng && (di % ng == 0 || ng % di == 0);
    if (!limited)
        return d * (1.0 - miss(e, e / d, k));
    const double pool = kg * e / ng; /* the experts of the groups a token picked */
    if (di >= ng) /* a group spans d / ng blocks: touched only if its group was picked */
        return d * (double)kg / ng * (1.0 - miss(pool, e / d, k));
    /* a block holds g whole groups, j of them picked (hypergeometric) */
    const int g = ng / di;
    double untouched = 0.0;
    for (int j = 0; j <= g && j <= kg; j++)
        untouched += choose(g, j) * choose(ng - g, kg - j) / choose(ng, kg) *
                     miss(pool, j * e / ng, k);
    return d * (1.0 - untouched);
}

/* The group's shape: ranks per NVLink domain and domains. */
static void domains(const sim_hw *hw, const sim_a2a_shape *s, double *g, double *n)
{
    int per = s->rdma_only ? 1 : hw->devices_per_node;
    *g = s->ranks < per ? s->ranks : per;
    *n = ceil((double)s->ranks / *g);
}

double sim_a2a_normal_logical_bytes(const sim_hw *hw, const sim_a2a_shape *s)
{
    double g, n;
    domains(hw, s, &g, &n);
    double blocks = n > 1.0 ? n : (double)s->ranks;
    return s->tokens * s->token_bytes *
           sim_a2a_distinct(s->experts, s->topk, blocks, s->route_groups, s->route_topk_groups);
}

sim_a2a_cost sim_a2a_price(const sim_hw *hw, sim_a2a_mode mode, const sim_a2a_shape *s)
{
    sim_a2a_cost c = {0};
    if (s->ranks <= 1 || !(s->tokens > 0.0))
        return c;
    double g, n;
    domains(hw, s, &g, &n);
    const double nr = (double)s->ranks, tb = s->tokens * s->token_bytes;
    const double imb = s->imbalance > 1.0 ? s->imbalance : 1.0;
    double lat, up_eff;
    if (mode == SIM_A2A_LOW_LATENCY) {
        lat = hw->a2a.ll_latency_ns;
        up_eff = hw->a2a.ll_nvlink_eff;
        c.nvlink_bytes = tb * s->topk * (g - 1.0) / nr;
        c.rdma_bytes = tb * s->topk * (nr - g) / nr;
    } else {
        lat = hw->a2a.normal_latency_ns;
        up_eff = hw->a2a.normal_nvlink_eff;
        const int ng = s->route_groups, kg = s->route_topk_groups;
        const double ranks_hit = sim_a2a_distinct(s->experts, s->topk, nr, ng, kg);
        if (n <= 1.0) {
            c.nvlink_bytes = tb * ranks_hit * (nr - 1.0) / nr;
        } else {
            c.nvlink_bytes = tb * ranks_hit * (g - 1.0) / g;
            c.rdma_bytes = tb * sim_a2a_distinct(s->experts, s->topk, n, ng, kg) * (n - 1.0) / n;
        }
    }
    c.nvlink_bytes *= imb;
    c.rdma_bytes *= imb;
    c.t_nvlink_ns = c.nvlink_bytes / (hw->scaleup_bytes_per_s * up_eff) * 1e9;
    c.t_rdma_ns = c.rdma_bytes / (hw->scaleout_bytes_per_s * hw->a2a.rdma_eff) * 1e9;
    c.t_ns = lat + fmax(c.t_nvlink_ns, c.t_rdma_ns);
    return c;
}
