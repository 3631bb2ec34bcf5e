/* kfloor.c - the latency floor of an engine's small kernels (kfloor.h). */
#include "kfloor.h"

#include <math.h>
#include <stdbool.h>

/* Which ops' kernels have a floor: every kernel of a norm, quantization or top-k op, and the
 * latent RMSNorm that runs after the GEMM of MLA's q_down and kv_down (graph.c's kernel counts:
 * the GEMM + the RMSNorm of the latent). Other ops: none. */
static const struct {
    sim_op_id id;
    sim_kfloor_kind kind;
    bool serial; /* one kernel after the op's main one, not all of them */
} parts[] = {
    {SIM_OP_ATTN_NORM, SIM_KFLOOR_NORM, false},   {SIM_OP_MLP_NORM, SIM_KFLOOR_NORM, false},
    {SIM_OP_FINAL_NORM, SIM_KFLOOR_NORM, false},  {SIM_OP_QK_NORM, SIM_KFLOOR_NORM, false},
    {SIM_OP_LINEAR_NORM, SIM_KFLOOR_NORM, false}, {SIM_OP_Q_DOWN, SIM_KFLOOR_NORM, true},
    {SIM_OP_KV_DOWN, SIM_KFLOOR_NORM, true},      {SIM_OP_ACT_QUANT, SIM_KFLOOR_QUANT, false},
    {SIM_OP_MOE_TOPK, SIM_KFLOOR_TOPK, false},
};

const char *sim_kfloor_kind_name(sim_kfloor_kind k)
{
    static const char *const names[SIM_KFLOOR_COUNT] = {
        [SIM_KFLOOR_NORM] = "norm", [SIM_KFLOOR_QUANT] = "quant", [SIM_KFLOOR_TOPK] = "topk"};
    return k >= 0 && k < SIM_KFLOOR_COUNT ? names[k] : "?";
}

void sim_kfloor_of(const sim_hw *hw, const sim_kfloor *f, const sim_model *m, const sim_op *op,
                   double *floor_ns, double *serial_ns)
{
    *floor_ns = *serial_ns = 0.0;
    if (!f || !op->present || op->fused)
        return;
    /* a block-scaled GEMM's input quantization kernels (graph.h sim_graph_block_quant) */
    const double quant = f->in_graph_ns[SIM_KFLOOR_QUANT] - hw->graph_launch_ns;
    if (op->quant_kernels > 0 && quant > 0.0)
        *serial_ns = (double)op->quant_kernels * quant;
    const int kernels = op->kernels > 0 ? op->kernels : sim_op_info(op->id)->kernels;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (parts[i].id != op->id)
            continue;
        if (parts[i].kind == SIM_KFLOOR_TOPK && m->route_groups <= 1)
            return; /* a softmax top-k, not the grouped one the floor was measured on */
        const double own = f->in_graph_ns[parts[i].kind] - hw->graph_launch_ns;
        if (own <= 0.0)
            return;
        if (parts[i].serial) /* the latent norm: the kernel after the GEMM (none alone) */
            *serial_ns += kernels - op->quant_kernels > 1 ? own : 0.0;
        else
            *floor_ns = (double)kernels * own;
        return;
    }
}

void sim_kfloor_raise(const sim_hw *hw, const sim_kfloor *f, const sim_model *m, const sim_op *op,
                      sim_op_cost *c)
{
    double floor_ns, serial_ns;
    sim_kfloor_of(hw, f, m, op, &floor_ns, &serial_ns);
    if ((floor_ns <= 0.0 && serial_ns <= 0.0) || !isfinite(c->t_ns))
        return; /* a time that is not finite stays the step's internal error (run.h) */
    if (c->t_mem_ns < floor_ns && c->t_math_ns < floor_ns)
        c->t_mem_ns = floor_ns;
    c->t_math_ns += serial_ns;
    c->t_mem_ns += serial_ns;
    const double busy = c->t_math_ns > c->t_mem_ns ? c->t_math_ns : c->t_mem_ns;
    c->t_ns = busy + c->t_net_ns + c->t_launch_ns;
    c->bound = sim_cost_bound(c);
}
