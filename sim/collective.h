/* collective.h - the time of one collective (all-reduce, all-gather, reduce-scatter, all-to-all)
 * over `ranks` GPUs, per algorithm and protocol, and the algorithm a runtime would pick.
 * Pure functions: no I/O, no state.
 *
 * Notation: M message bytes (all-reduce: the buffer each GPU holds; all-gather: the gathered
 * output; reduce-scatter: the input; all-to-all: each GPU's send buffer), N ranks, G = ranks in
 * one node (min(N, devices_per_node)), nodes = ceil(N / G), B_up / B_out the scale-up / scale-out
 * bandwidth per GPU per direction, e the device's network efficiency (efficiency.network: NCCL's
 * Simple ring on large messages), F the fixed cost of an NCCL collective (collective_latency_us:
 * NCCL's synchronization). NCCL's protocols p (LL, LL128, Simple) each have a base latency b_p, a
 * per-hop latency h_p on the scale-up links (Simple: scaleup_latency_us) and a payload
 * fraction w_p (LL moves 4 data bytes per 8-byte flagged store: at most 1/2; LL128: 120 of 128
 * bytes; both further capped by the bandwidth NCCL's channels reach with them, so fitted).
 *
 * All-reduce, one node (nodes = 1):
 *   ring (p)  F + b_p + 2(N-1) h_p + 2(N-1)/N M / (B_up e w_p)       NCCL ring
 *   tree (p)  the hierarchical form below with nodes = 1: the same as the ring
 *   oneshot   L_1 + (N-1) M / (B_up e_1)      every GPU reads all N-1 peers' buffers (P2P); the
 *                                             engine's own kernel: its barrier L_1, not NCCL's F
 *   twoshot   L_2 + 2(N-1)/N M / (B_up e_2)   reduce-scatter then all-gather over P2P
 *   nvls      F + L_s + (N+1)/N M / (B_up e_s)    NVSwitch multicast: each link carries M out
 *                                                 (multimem reduce reads) and M/N, and back
 * All-reduce across nodes (nodes > 1), with hop_out the scale-out hop latency:
 *   ring (p)  F + b_p + 2(N-1) hop_out + 2(N-1)/N M / (B_out e w_p)   flat ring: every step is
 *             paced by the slowest (inter-node) link
 *   tree (p)  hierarchical: intra-node ring reduce-scatter ((G-1) h_p, (G-1)/G M at B_up),
 *             an inter-node double binary tree on the M/G shard (2 ceil(log2 nodes) hop_out,
 *             M/G at B_out), intra-node ring all-gather (as the reduce-scatter)
 *   nvls      NVLS tree: the intra-node phases by multicast, the inter-node tree as above
 *   oneshot, twoshot: intra-node only (not offered)
 * All-gather / reduce-scatter: ring (p) F + b_p + (N-1) h + (N-1)/N M / (B e w_p) (B, h the
 *   scale-out ones across nodes); nvls F + L_s + (N-1)/N M / (B_up e_s) within a node.
 * All-to-all (M each GPU's send buffer, 1/N of it per peer) in `steps` sequential steps (1: every
 *   peer written at once, as low-latency MoE dispatch kernels do; N-1: one peer per step):
 *   F + b_p + steps h + max((G-1)/N M / (B_up e w_p), (N-G)/N M / (B_out e w_p)).
 *
 * `auto` takes the cheapest algorithm (and protocol) the device has, with custom all-reduce
 * (oneshot, twoshot) only up to collectives.custom_max_bytes (the engines' buffer limit) and
 * within a node; `nccl` the cheapest of NCCL's own (ring, tree, nvls), as an engine with its
 * custom all-reduce disabled. A forced algorithm is priced as asked (sim_collective_check
 * rejects one the device lacks).
 */
#ifndef SIM_COLLECTIVE_H
#define SIM_COLLECTIVE_H

#include <stdbool.h>

#include "coll.h"
#include "hw.h"
#include "status.h"

typedef struct sim_collective_cost {
    double t_ns;          /* the collective's time */
    sim_coll_algo algo;   /* the algorithm priced (never AUTO or NCCL) */
    sim_coll_proto proto; /* its protocol (NONE for oneshot, twoshot, nvls) */
} sim_collective_cost;

/* Whether the device has the algorithm (AUTO, NCCL and the ring always). */
bool sim_collective_has(const sim_hw *hw, sim_coll_algo a);

/* Checks that an all-reduce algorithm forced by `flag` can run on `ranks` GPUs of the device:
 * the device file lists it, and custom all-reduce stays within one node. */
sim_status sim_collective_check(const sim_hw *hw, sim_coll_algo a, int ranks, const char *flag,
                                sim_err *err);

/* The collectives. `want` is AUTO, NCCL or a specific algorithm; ranks <= 1 costs nothing. */
sim_collective_cost sim_collective_allreduce(const sim_hw *hw, double msg_bytes, int ranks,
                                             sim_coll_algo want);
sim_collective_cost sim_collective_allgather(const sim_hw *hw, double out_bytes, int ranks,
                                             sim_coll_algo want);
sim_collective_cost sim_collective_reduce_scatter(const sim_hw *hw, double in_bytes, int ranks,
                                                  sim_coll_algo want);
sim_collective_cost sim_collective_alltoall(const sim_hw *hw, double send_bytes, int ranks,
                                            int steps);

/* The all-reduce an engine asks for: `want` as given, except AUTO under vLLM's switch
 * (`vllm_stages`), where vLLM's custom all-reduce (csrc/custom_all_reduce.cuh, CustomAllreduce::
 * allreduce; SGLang's sgl-kernel copy, sgl-kernel/csrc/allreduce/custom_all_reduce.cuh, keeps the
 * same switch) runs within one node up to collectives.custom_max_bytes (custom_all_reduce.py:
 * should_custom_ar, max_size 8 MiB) and NCCL past it (NCCL's cheapest); within it the kernel is
 * chosen by size, not by cost (sim_collective_vllm_stage). Without the device's oneshot and
 * twoshot, or across nodes, NCCL. */
sim_coll_algo sim_collective_engine_algo(const sim_hw *hw, double msg_bytes, int ranks,
                                         sim_coll_algo want, bool vllm_stages);

/* vLLM's one- or two-shot switch for m bytes over `ranks` fully NVLink-connected GPUs: one-shot
 * (cross_device_reduce_1stage) on 2 GPUs at any size, on up to 4 below 512 KiB, on up to 8 below
 * 256 KiB; two-shot (cross_device_reduce_2stage) above. */
sim_coll_algo sim_collective_vllm_stage(double msg_bytes, int ranks);

/* Any of the above by kind (an all-to-all in one step). */
sim_collective_cost sim_collective_price(const sim_hw *hw, sim_coll_kind kind, double msg_bytes,
                                         int ranks, sim_coll_algo want);

/* The bytes each GPU sends in a ring collective of the kind (nccl-tests' "bus bytes"):
 * all-reduce 2(N-1)/N M, all-gather and reduce-scatter (N-1)/N M, all-to-all (N-1)/N M. */
double sim_collective_bus_bytes(sim_coll_kind kind, double msg_bytes, int ranks);

#endif
