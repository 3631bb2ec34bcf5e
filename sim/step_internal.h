/* step_internal.h - what step.c and step_sum.c share: the additive fields of an op and of its
 * cost, listed once for accumulate, scale and two-batch overlap. Private to the step module. */
#ifndef SIM_STEP_INTERNAL_H
#define SIM_STEP_INTERNAL_H

#define OP_FIELDS(X)                                                                               \
    X(flops)                                                                                       \
    X(weight_bytes) X(act_bytes) X(kv_read_bytes) X(kv_write_bytes) X(net_bytes) X(net_msg_bytes)
#define COST_FIELDS(X) X(t_math_ns) X(t_mem_ns) X(t_net_ns) X(t_launch_ns) X(t_ns)

#endif
