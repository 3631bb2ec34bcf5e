/* graph_dtype.c - the precision rules of the graph (graph.h): a deployment's default precision,
 * the residual stream's and the GEMMs' formats, a weight element's bytes with its group scales.
 * It calls nothing of graph.c, graph_build.c and the graph's other files, which call it. */
#include "graph.h"

#define SCALE_BYTES 2.0 /* a group scale of AWQ/GPTQ/W4A8 weights: fp16 */

sim_dtype sim_graph_resid_dtype(const sim_model *m, const sim_prec *prec)
{
    return sim_dtype_is_16bit(prec->act) ? prec->act : m->dtype;
}

sim_dtype sim_graph_gemm_dtype(const sim_prec *prec) { return prec->act; }

bool sim_graph_mixed_input(const sim_prec *prec, sim_dtype w)
{
    return !sim_dtype_is_16bit(w) && w != prec->act;
}

sim_moe_kernel sim_graph_moe_family(const sim_prec *prec, sim_moe_kernel plain,
                                    sim_moe_kernel quantized, sim_moe_kernel mixed)
{
    if (sim_dtype_is_16bit(prec->weight))
        return plain;
    return sim_graph_mixed_input(prec, prec->weight) && sim_dtype_is_16bit(prec->act) ? mixed
                                                                                      : quantized;
}

double sim_graph_weight_elem_bytes(const sim_prec *prec, sim_dtype w)
{
    const sim_dtype_info *i = sim_dtype_get(w);
    double b = sim_dtype_bytes(w);
    if (i->group_scaled && prec->group_size > 0 && sim_graph_mixed_input(prec, w))
        b += (SCALE_BYTES + (prec->zero_point ? i->bits / 8.0 : 0.0)) / (double)prec->group_size;
    return b;
}

bool sim_graph_prec_defaults(const sim_model *m, const sim_hw *hw, const sim_prec_given *given,
                             sim_prec *out)
{
    const sim_quant *q = &m->quant;
    sim_prec p = given->prec;
    if (!given->weight) {
        if (!q->present && !m->dtype_known)
            return false;
        p.weight = q->present ? q->weight : m->dtype;
    }
    /* the 16-bit format: the weights' when they are 16-bit, else the model's */
    const sim_dtype base = sim_dtype_is_16bit(p.weight) ? p.weight : m->dtype;
    if (given->act)
        ; /* as chosen */
    else if (q->act_set && !given->weight)
        p.act = q->act_16bit ? base : q->act;
    else if (p.weight == SIM_DT_FP8)
        p.act = SIM_DT_FP8;
    else if (sim_dtype_is_block_float(p.weight) && hw->peak_flops[p.weight] > 0.0)
        p.act = p.weight;
    else
        p.act = base;
    if (!given->group_size)
        p.group_size = q->present ? q->group_size : 128;
    p.zero_point = q->present && q->zero_point;
    /* the checkpoint's block scales stand while its fp8 weights do */
    p.block_scaled = q->block_n > 0 && p.weight == SIM_DT_FP8 && q->weight == SIM_DT_FP8;
    if (!given->kv)
        p.kv = q->kv_set ? q->kv : sim_dtype_is_16bit(p.act) ? p.act : base;
    *out = p;
    return true;
}

sim_prec sim_graph_linear_prec(const sim_model *m, const sim_prec *prec)
{
    if (!(m->quant.present && m->quant.experts_only && prec->weight == m->quant.weight))
        return *prec;
    sim_prec p = *prec;
    p.weight = p.act = sim_graph_resid_dtype(m, prec);
    return p;
}
