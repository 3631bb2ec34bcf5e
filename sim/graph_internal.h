/* graph_internal.h - what the graph's builders share with its op constructors (graph_op.c).
 * Private to sim/graph*.c. */
#ifndef SIM_GRAPH_INTERNAL_H
#define SIM_GRAPH_INTERNAL_H

#include "graph.h"

/* Vector FLOPs per element of RMSNorm: square, sum, scale by rsqrt, multiply by weight. */
#define NORM_FLOPS 4.0

/* A GEMM of T x K by K x N with weights in `wdt` into op's shape, FLOPs, bytes and formats (the
 * rest of op as it was): reads its input in the activation format, writes 16-bit (rb bytes). */
void sim_graph_gemm_shape(sim_op *op, double t, int64_t n, int64_t k, sim_dtype wdt,
                          const sim_prec *prec, double rb);

/* RMSNorm fused with the residual add over t tokens of width d into op's FLOPs and bytes (rb the
 * residual's bytes, ab the normed output's). */
void sim_graph_norm_shape(sim_op *op, double t, double d, double rb, double ab);

#endif
