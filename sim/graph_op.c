/* graph_op.c - the op constructors the graph's builders share (graph.h, graph_internal.h): a
 * GEMM and an RMSNorm, their FLOPs and bytes. graph_build.c, graph_vision.c and validate.c call
 * them; they call only the precision rules (graph_dtype.c) and the op table (graph.c). The input
 * quantization kernels of block-scaled fp8 GEMMs (sim_graph_block_quant), which step.c adds. */
#include "graph.h"
#include "graph_internal.h"

#include <math.h>
#include <string.h>

/* A GEMM of T x K by K x N with weights in `wdt`: reads its input in the activation format,
 * writes 16-bit. The math runs in the activation format: 16-bit for plain and weight-only GEMMs,
 * fp8/int8/fp4 under full quantization and W4A8 (mixed-input kernels dequantize the weights). */
void sim_graph_gemm_shape(sim_op *op, double t, int64_t n, int64_t k, sim_dtype wdt,
                          const sim_prec *prec, double rb)
{
    op->m = (int64_t)t;
    op->n = n;
    op->k = k;
    op->flops = 2.0 * t * (double)n * (double)k;
    op->weight_bytes = (double)n * (double)k * sim_graph_weight_elem_bytes(prec, wdt);
    op->act_bytes = t * (double)k * sim_dtype_bytes(prec->act) + t * (double)n * rb;
    op->weight = wdt;
    op->compute = prec->act;
    op->weight_only = sim_graph_mixed_input(prec, wdt);
    op->block_scaled = prec->block_scaled && wdt == SIM_DT_FP8 && prec->act == SIM_DT_FP8;
}

void sim_graph_gemm(sim_op *op, sim_op_id id, double tokens, int64_t n, int64_t k, sim_dtype weight,
                    const sim_prec *prec, double resid_bytes)
{
    memset(op, 0, sizeof *op);
    op->id = id;
    op->present = true;
    sim_graph_gemm_shape(op, tokens, n, k, weight, prec, resid_bytes);
}

/* RMSNorm fused with the residual add: reads input and residual, writes both (the normed one in
 * the GEMM input format). */
void sim_graph_norm_shape(sim_op *op, double t, double d, double rb, double ab)
{
    op->flops = NORM_FLOPS * t * d;
    op->weight_bytes = d * rb;
    op->act_bytes = 2.0 * t * d * rb + t * d * rb + t * d * ab;
}

void sim_graph_norm(sim_op *op, sim_op_id id, double tokens, int64_t hidden, double resid_bytes,
                    double out_bytes)
{
    memset(op, 0, sizeof *op);
    op->id = id;
    op->present = true;
    sim_graph_norm_shape(op, tokens, (double)hidden, resid_bytes, out_bytes);
}

void sim_graph_block_quant(sim_graph *g, double resid_bytes)
{
    static const struct {
        sim_op_id id;
        int inputs;
    } in[] = {{SIM_OP_Q_DOWN, 1},       {SIM_OP_KV_DOWN, 1},      {SIM_OP_Q_UP, 1},
              {SIM_OP_QKV_PROJ, 1},     {SIM_OP_GATE_UP_PROJ, 1}, {SIM_OP_DOWN_PROJ, 1},
              {SIM_OP_SHARED_EXPERT, 2}};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        sim_op *op = &g->ops[in[i].id];
        if (!op->present || !op->block_scaled || op->weight_only || op->quant_kernels > 0)
            continue;
        if (in[i].id == SIM_OP_KV_DOWN && g->ops[SIM_OP_Q_DOWN].present)
            continue; /* one quantization of the fused q_a / kv_a input, counted on q_down */
        const int base = op->kernels > 0 ? op->kernels : sim_op_info(op->id)->kernels;
        op->quant_kernels = in[i].inputs;
        op->kernels = base + in[i].inputs;
        /* the shared expert's second input (its down_proj's) is its intermediate; its K is not
         * the op's, so its bytes are left to the one counted (a decode row's few KB) */
        op->act_bytes += (double)op->m * (double)op->k * (resid_bytes + 1.0) +
                         (double)op->m * ceil((double)op->k / 128.0) * 4.0;
    }
}
