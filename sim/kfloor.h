/* kfloor.h - the latency floor of an engine's small kernels: the least time one launch of an
 * RMSNorm, an activation quantization or a top-k routing kernel takes inside a CUDA graph,
 * whatever few bytes it moves. Pure functions: no I/O, no state.
 *
 * At decode sizes these kernels move a few tens of KB (one token's 7168-wide hidden row), which
 * the roofline prices at well under 1 us; measured inside a CUDA graph they take 3-9 us a launch
 * (one thread block per token walks its row, reduces across the block and walks it again: the
 * dependent round trips to memory, not the bytes, set the time). The engine profile states each
 * kind's measured time per launch in a graph (kernel_floor_us.norm / .quant / .topk, each with
 * its source; absent: 0, no floor); the floor of one launch's own work is that time less the
 * device's graph launch gap (hw.h graph_kernel_launch_us), which sim_cost_op adds on top as it
 * does for every kernel:
 *
 *   busy(op) >= kernels of the kind x max(0, floor_kind - graph launch)     (a vector op)
 *   busy(op) += max(0, floor_norm - graph launch)                           (MLA's q_down /
 *               kv_down: the latent's RMSNorm is the op's second kernel, after the GEMM)
 *   busy(op) += quant_kernels x max(0, floor_quant - graph launch)          (a block-scaled
 *               GEMM's input quantization, graph.h sim_graph_block_quant)
 *
 * A fused op (launched inside another kernel, op.fused) has no floor. Which ops hold which
 * kernels: the table in kfloor.c.
 *
 * vLLM's norm floor of 5.53 us on H200 (graph launch 1.5 us): a batch-1 DeepSeek-V3 attn_norm
 * moves 65 KB (0.02 us at 4.8 TB/s x 0.8), so its busy time is 5.53 - 1.5 = 4.03 us and the op
 * takes 4.03 + 1.5 = 5.53 us (tests/test_cost.c).
 * Example (const sim_hw *hw, const sim_model *m, const sim_op *op):
 *   const sim_kfloor f = {.in_graph_ns = {[SIM_KFLOOR_NORM] = 5530.0}};
 *   sim_op_cost c = sim_cost_op(hw, op, hw->graph_launch_ns);
 *   sim_kfloor_raise(hw, &f, m, op, &c); // that attn_norm: c.t_ns 5530.0 */
#ifndef SIM_KFLOOR_H
#define SIM_KFLOOR_H

#include "cost.h"
#include "graph.h"
#include "hw.h"
#include "model.h"

typedef enum sim_kfloor_kind {
    SIM_KFLOOR_NORM,  /* RMSNorm (with or without the residual add) */
    SIM_KFLOOR_QUANT, /* dynamic activation quantization (per token or per 1 x 128 group) */
    SIM_KFLOOR_TOPK,  /* the router's grouped top-k (DeepSeek-V3's n_group routing: a model with
                         route groups; a plain softmax top-k has no floor here) */
    SIM_KFLOOR_COUNT
} sim_kfloor_kind;

/* An engine's floors: ns per launch inside a CUDA graph, 0 for a kind without one. */
typedef struct sim_kfloor {
    double in_graph_ns[SIM_KFLOOR_COUNT];
} sim_kfloor;

/* The profile key of each kind ("norm", "quant", "topk"). */
const char *sim_kfloor_kind_name(sim_kfloor_kind k);

/* The floor of op's own work (its busy time, launch gaps apart) and the part of it that runs as
 * a kernel after the op's main one (added, not a max), ns; both 0 when no kernel of the op has a
 * floor. */
void sim_kfloor_of(const sim_hw *hw, const sim_kfloor *f, const sim_model *m, const sim_op *op,
                   double *floor_ns, double *serial_ns);

/* Raises c (sim_cost_op's price of op) to op's floors: math and memory time to at least the
 * floor, both plus the serial part, and the time and bound again from them. */
void sim_kfloor_raise(const sim_hw *hw, const sim_kfloor *f, const sim_model *m, const sim_op *op,
                      sim_op_cost *c);

#endif
