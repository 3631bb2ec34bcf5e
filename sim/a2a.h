/* a2a.h - MoE dispatch and combine under expert parallelism as DeepEP's kernels (and the engines
 * that call them: SGLang --moe-a2a-backend deepep, vLLM's deepep_high_throughput /
 * deepep_low_latency all2all backends, TensorRT-LLM's wide-EP all-to-all) move the routed tokens.
 * Pure functions: no I/O, no state.
 *
 * Two modes, each with its own latency and link efficiencies (device file `alltoall.*`):
 *   normal       high-throughput kernels for prefill (DeepEP `dispatch` / `combine`): a token
 *                goes ONCE to each rank (within an NVLink domain) or each domain (across
 *                domains) that holds one of its experts; across domains it crosses RDMA once,
 *                to the GPU of the same local index, which forwards it over NVLink to the
 *                ranks of its domain that need it. Not CUDA-graph capturable (a host wait on
 *                the received counts), so engines run it on prefill (and mixed) steps.
 *   low_latency  decode kernels (DeepEP `low_latency_dispatch` / `low_latency_combine`, fp8
 *                dispatch): every (token, expert) copy written straight into the expert's rank,
 *                over NVLink inside the domain and by RDMA (IBGDA) to other domains; one hop,
 *                graph capturable.
 *
 * Notation: T tokens this rank dispatches, k experts per token, E experts, N ranks of the EP
 * group, G = min(N, devices_per_node) ranks per NVLink domain (72 on a GB200 NVL72 rack),
 * n = ceil(N / G) domains, b bytes per token as sent (dispatch: the GEMM-input format, fp8 with
 * one fp32 scale per 128 values; combine: 16-bit), B_up / B_out the NVLink / NIC bandwidth per
 * GPU per direction, imb the busiest rank's load over the mean (>= 1).
 * u(D) = expected distinct blocks, out of D equal blocks of experts, one token's k experts fall
 * in: D (1 - prod_{i<k} (E - E/D - i) / (E - i)) (top-k without replacement, uniform routing;
 * sim_a2a_distinct, which also takes node-limited routing).
 *
 *   low_latency  t = L_ll + imb max(T k b (G-1)/N / (B_up e_ll), T k b (N-G)/N / (B_out e_rdma))
 *   normal, n=1  t = L_n + imb T b u(N) (N-1)/N / (B_up e_n)
 *   normal, n>1  t = L_n + imb max(T b u(N) (G-1)/G / (B_up e_n), T b u(n) (n-1)/n / (B_out e_rdma))
 * (the local share, 1/N of the copies or 1/G of the forwarded ones, never leaves the GPU; the
 * NVLink and RDMA phases are pipelined, so the slower bounds the kernel).
 *
 * Example (const sim_hw *hw):
 *   sim_a2a_shape s = {.tokens = 128, .topk = 8, .experts = 256, .token_bytes = 7392,
 *                      .ranks = 16, .imbalance = 1};
 *   double us = sim_a2a_price(hw, SIM_A2A_LOW_LATENCY, &s).t_ns / 1e3; // decode dispatch, EP 16
 */
#ifndef SIM_A2A_H
#define SIM_A2A_H

#include <stdbool.h>

#include "hw.h"

typedef enum sim_a2a_mode {
    /* normal on steps with prefill tokens, low_latency on decode-only ones, under data-parallel
     * attention; without it (EP over the TP group) every rank already holds every token and the
     * MLP all-reduce sums the experts' outputs: no all-to-all at all (step.c) */
    SIM_A2A_AUTO,
    SIM_A2A_NORMAL,      /* high-throughput (NVLink + RDMA forwarding) */
    SIM_A2A_LOW_LATENCY, /* one hop per (token, expert) copy, fp8 dispatch */
    SIM_A2A_MODE_COUNT
} sim_a2a_mode;

/* "auto", "normal", "low_latency". */
const char *sim_a2a_mode_name(sim_a2a_mode m);

/* Parses a mode name ("low-latency" is taken for low_latency); false if unknown. */
bool sim_a2a_mode_parse(const char *s, sim_a2a_mode *out);

/* The mode an AUTO step runs: normal when it carries prefill tokens, else low_latency. Any other
 * mode is kept. As SGLang's --deepep-mode auto chooses (DeepEPMode.resolve: NORMAL when the
 * batch has extend tokens, else LOW_LATENCY; python/sglang/srt/layers/moe/utils.py, SGLang 0.5). */
sim_a2a_mode sim_a2a_resolve(sim_a2a_mode m, bool has_prefill);

/* The tokens one rank may send in one low-latency dispatch, by default: DeepEP's
 * low_latency_dispatch asserts x.size(0) <= num_max_dispatch_tokens_per_rank (csrc/deep_ep.cpp),
 * the size its RDMA buffer was laid out for, which the engine chooses: SGLang's
 * SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK, default 128 (python/sglang/srt/environ.py, 0.5),
 * the 128 of DeepEP's own low-latency tests and README tables. */
#define SIM_A2A_LL_MAX_TOKENS 128

/* One dispatch or combine on the busiest rank of the EP group. */
typedef struct sim_a2a_shape {
    double tokens;      /* T: tokens this rank sends (its share of the step's tokens) */
    double topk;        /* k */
    double experts;     /* E (routed experts, redundant copies included) */
    double token_bytes; /* b */
    int ranks;          /* N */
    double imbalance;   /* busiest rank's load over the mean (0 reads as 1) */
    int route_groups;   /* node-limited routing: experts in this many equal groups ... */
    int route_topk_groups; /* ... of which a token picks this many (0 or >= groups: no limit) */
    bool rdma_only;     /* every peer over RDMA, even within a node (DeepEP's first low-latency
                         * kernels, Feb 2025; the validation rows of that version) */
} sim_a2a_shape;

typedef struct sim_a2a_cost {
    double t_ns;                      /* the kernel's time */
    double nvlink_bytes, rdma_bytes;  /* bytes this GPU sends over each (busiest rank) */
    double t_nvlink_ns, t_rdma_ns;    /* each phase's transfer time */
} sim_a2a_cost;

/* The time of one dispatch or combine in `mode` (AUTO prices as normal; resolve it first).
 * N <= 1 or no tokens cost nothing. */
sim_a2a_cost sim_a2a_price(const sim_hw *hw, sim_a2a_mode mode, const sim_a2a_shape *s);

/* u: the expected number of distinct blocks, of `blocks` equal blocks of `experts` experts, that
 * one token's `topk` experts fall in (uniform top-k without replacement); with node-limited
 * routing (groups > 1, topk_groups < groups: the token first picks topk_groups of the groups,
 * then its experts among theirs) when blocks and groups divide one another, else uniform. */
double sim_a2a_distinct(double experts, double topk, double blocks, int groups, int topk_groups);

/* The bytes DeepEP's tests count for a normal-mode kernel's "bottleneck bandwidth" (the logical
 * traffic, the local share included): within one domain the tokens received over NVLink,
 * T b u(N); across domains those sent over RDMA, T b u(n). For the validation rows. */
double sim_a2a_normal_logical_bytes(const sim_hw *hw, const sim_a2a_shape *s);

#endif
