/* graph_op.c - the op constructors the graph's builders share (graph.h, graph_internal.h): a
 * GEMM and an RMSNorm, their FLOPs and bytes. graph_build.c, graph_vision.c and validate.c call
 * them; they call only the precision rules (graph_dtype.c). */
#include "graph.h"
#include "graph_internal.h"

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
