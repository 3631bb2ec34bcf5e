/* pp.c - pipeline stages: layer split, per-stage memory, stage times, rounds. */
#include "pp.h"

#include <stdlib.h>
#include <string.h>

int sim_pp_stages(const sim_step_cfg *cfg) { return cfg->pp > 1 ? cfg->pp : 1; }

int64_t sim_pp_gpus(const sim_step_cfg *cfg)
{
    return (int64_t)sim_step_gpus(cfg) * sim_pp_stages(cfg);
}

void sim_pp_partition(int64_t layers, int pp, int64_t *out)
{
    for (int s = 0; s < pp; s++)
        out[s] = layers / pp;
    /* the left-over layers go to the stages before the last, from the second-to-last back */
    int64_t extra = layers % pp;
    for (int64_t i = 2; i < extra + 2; i++)
        out[pp - i]++;
}

bool sim_pp_boundary_scaleout(const sim_step_cfg *cfg, int s)
{
    const int64_t dpn = cfg->hw->devices_per_node > 0 ? cfg->hw->devices_per_node : 1;
    const int64_t first_next = (int64_t)(s + 1) * cfg->tp; /* first GPU of stage s + 1 */
    return (first_next - 1) / dpn != first_next / dpn;
}

/* The stage with the most layers (the first such). */
static int64_t max_layers(const sim_step_cfg *cfg)
{
    int64_t lay[SIM_PP_MAX];
    int pp = sim_pp_stages(cfg);
    sim_pp_partition(cfg->model->layers, pp, lay);
    int64_t best = 0;
    for (int s = 0; s < pp; s++)
        if (lay[s] > best)
            best = lay[s];
    return best;
}

double sim_pp_layer_share(const sim_step_cfg *cfg)
{
    return (double)max_layers(cfg) / (double)cfg->model->layers;
}

double sim_pp_weight_bytes(const sim_step_cfg *cfg)
{
    const sim_model *m = cfg->model;
    const sim_par par = sim_step_par(cfg);
    const double all = sim_graph_weight_bytes_par(m, &par, &cfg->prec);
    const int pp = sim_pp_stages(cfg);
    if (pp == 1)
        return all;
    sim_model bare = *m; /* the tables, the final norm (and MTP layers: on the last stage) */
    bare.layers = bare.moe_layers = bare.sliding_layers = 0;
    bare.linear_layers = bare.no_mixer_layers = bare.no_mlp_layers = 0;
    const double edges = sim_graph_weight_bytes_par(&bare, &par, &cfg->prec);
    const double per_layer = (all - edges) / (double)m->layers; /* the mean layer */
    /* one vocabulary table: the embedding on the first stage; the last keeps the LM head (its
     * own copy when tied, as vLLM's last stage does), the final norm and what else is not a
     * layer */
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, &cfg->prec));
    const double table = (double)((m->vocab + cfg->tp - 1) / cfg->tp) * (double)m->hidden * rb;
    const double last = m->tied_embeddings ? edges : edges - table;
    int64_t lay[SIM_PP_MAX];
    sim_pp_partition(m->layers, pp, lay);
    double best = 0.0;
    for (int s = 0; s < pp; s++) {
        double w = (double)lay[s] * per_layer + (s == 0 ? table : 0.0) + (s == pp - 1 ? last : 0.0);
        if (w > best)
            best = w;
    }
    return best;
}

double sim_pp_xfer_bytes(const sim_step_cfg *cfg, double tokens)
{
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(cfg->model, &cfg->prec));
    return 2.0 * tokens * (double)cfg->model->hidden * rb / (double)cfg->tp;
}

double sim_pp_xfer_ns(const sim_step_cfg *cfg, double tokens, int s)
{
    const sim_hw *hw = cfg->hw;
    const bool out = sim_pp_boundary_scaleout(cfg, s);
    const double bw = (out ? hw->scaleout_bytes_per_s : hw->scaleup_bytes_per_s) * hw->eff_network;
    const double lat = out ? hw->scaleout_latency_ns : hw->scaleup_latency_ns;
    return sim_pp_xfer_bytes(cfg, tokens) / bw * 1e9 + lat;
}

double sim_pp_stage_ns(const sim_step_cfg *cfg, const sim_step_result *r, int s)
{
    const int pp = sim_pp_stages(cfg);
    int64_t lay[SIM_PP_MAX];
    sim_pp_partition(cfg->model->layers, pp, lay);
    int64_t first = 0;
    for (int k = 0; k < s; k++)
        first += lay[k];
    const sim_graph *g = &r->graph;
    double busy = 0.0, launch = 0.0, net = 0.0;
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        double n = 0.0;
        if (g->repeats[i] == 0)
            continue;
        if (!sim_op_info((sim_op_id)i)->per_layer)
            /* the vision encoder and the embedding on the first stage, the head on the last */
            n = (double)g->repeats[i] * (i <= SIM_OP_EMBED ? s == 0 : s == pp - 1);
        else if (g->repeats[i] == g->layers)
            n = (double)lay[s];
        else /* the dense or MoE, sliding or full layers that fall in this stage */
            for (int64_t l = first; l < first + lay[s]; l++)
                n += sim_graph_op_in_layer(g, (sim_op_id)i, l);
        const sim_op_cost *c = &r->cost[i];
        busy += n * (c->t_math_ns > c->t_mem_ns ? c->t_math_ns : c->t_mem_ns);
        launch += n * c->t_launch_ns;
        net += n * c->t_net_ns;
    }
    double hidden = cfg->overlap * net;
    if (hidden > busy)
        hidden = busy;
    return busy + launch + net - hidden + (s == 0 ? r->t_host_ns : 0.0);
}

int sim_pp_memo_init(sim_pp_memo *pm, const sim_step_cfg *cfg, size_t n_groups)
{
    pm->m = calloc(2 * (size_t)sim_pp_stages(cfg), sizeof *pm->m);
    pm->scratch = malloc((n_groups ? n_groups : 1) * sizeof *pm->scratch);
    pm->scratch_n = n_groups;
    return pm->m && pm->scratch;
}

void sim_pp_memo_free(sim_pp_memo *pm)
{
    free(pm->m);
    free(pm->scratch);
    memset(pm, 0, sizeof *pm);
}

static int64_t seq_count(const sim_seq_group *g, size_t n)
{
    int64_t seqs = 0;
    for (size_t i = 0; i < n; i++)
        seqs += g[i].count;
    return seqs;
}

int sim_pp_micro_batches(const sim_step_cfg *cfg, const sim_seq_group *groups, size_t n_groups)
{
    const int64_t seqs = seq_count(groups, n_groups);
    const int pp = sim_pp_stages(cfg);
    return seqs < pp ? (int)seqs : pp;
}

size_t sim_pp_micro_batch(const sim_seq_group *g, size_t n, int j, int m, sim_seq_group *out)
{
    const int64_t seqs = seq_count(g, n);
    const int64_t lo = seqs * j / m, hi = seqs * (j + 1) / m;
    size_t k = 0;
    int64_t at = 0;
    for (size_t i = 0; i < n && at < hi; i++) {
        int64_t a = at > lo ? at : lo, b = at + g[i].count < hi ? at + g[i].count : hi;
        if (b > a) {
            out[k] = g[i];
            out[k++].count = b - a;
        }
        at += g[i].count;
    }
    return k;
}

double sim_pp_enter(double *stage_free_ns, double *arrive_ns, double stage_ns, double xfer_ns)
{
    double start = *stage_free_ns > *arrive_ns ? *stage_free_ns : *arrive_ns;
    *stage_free_ns = start + stage_ns;
    *arrive_ns = *stage_free_ns + xfer_ns;
    return start;
}

double sim_pp_round_ns(const sim_step_cfg *cfg, const sim_seq_group *groups, size_t n_groups,
                       sim_pp_memo *pm, bool steady)
{
    const int pp = sim_pp_stages(cfg);
    const int m = sim_pp_micro_batches(cfg, groups, n_groups);
    double stage_sum[SIM_PP_MAX] = {0}, link_sum[SIM_PP_MAX] = {0};
    double done[SIM_PP_MAX] = {0}; /* makespan: when each stage finished its last micro-batch */
    double latency = 0.0;
    sim_seq_group bare[SIM_PP_BARE_GROUPS];
    sim_seq_group *scratch = pm ? pm->scratch : bare;
    sim_step_result fresh;
    for (int j = 0; j < m; j++) {
        size_t k = sim_pp_micro_batch(groups, n_groups, j, m, scratch);
        const sim_step_result *r = &fresh;
        if (pm)
            r = sim_step_price_memo(cfg, scratch, k, &pm->m[(cfg->eager ? pp : 0) + j]);
        else
            sim_step_price(cfg, scratch, k, &fresh);
        double t = 0.0, lat = 0.0;
        for (int s = 0; s < pp; s++) {
            double ts = sim_pp_stage_ns(cfg, r, s);
            double x = s + 1 < pp ? sim_pp_xfer_ns(cfg, (double)r->graph.tokens, s) : 0.0;
            stage_sum[s] += ts;
            link_sum[s] += x;
            lat += ts + x;
            sim_pp_enter(&done[s], &t, ts, x); /* one-shot: fill and drain */
        }
        if (lat > latency)
            latency = lat;
    }
    if (!steady)
        return done[pp - 1];
    double round = latency;
    for (int s = 0; s < pp; s++) {
        if (stage_sum[s] > round)
            round = stage_sum[s];
        if (link_sum[s] > round)
            round = link_sum[s];
    }
    return round;
}
