/* disagg.h - prefill/decode disaggregation (P prefill and D decode instances, as vLLM's
 * disaggregated prefill, Dynamo, llm-d and Mooncake run them): a request goes to a prefill instance
 * (least-outstanding), which runs its prompt and samples one token (output 1). Its KV is then sent
 * to a decode instance (least-outstanding at the moment it is ready) over the link between them;
 * the decode instance admits it once its KV cache has blocks for the whole prompt, computes the
 * last prompt token (the KV of the others came over: vLLM's P/D connectors do the same to sample)
 * and streams every output token, so TTFT = prefill queue + prefill + transfer + decode queue + one
 * decode iteration. Transfer of one request, each GPU of the sending instance sending its share in
 * parallel (the receiving side's share when that is larger, fewer decode GPUs):
 *   bytes_per_gpu = input x max(KV bytes per token per GPU on either side)
 *   t_kv          = bytes_per_gpu / (link x efficiency.network) + link latency
 * over the scale-up link when every GPU of the deployment fits one node, else the scale-out NIC
 * (RDMA). Pools on two kinds of device (prefill and decode configurations whose devices' names
 * differ: mixed hardware) share no NVLink domain: the KV goes over the NICs, at the slower of the
 * two ends (scale-out x efficiency.network of each) plus the longer of their latencies. With
 * layer-wise streaming (kv_stream) each layer's KV leaves as soon as it is computed: only what
 * outlasts the prefill stays exposed, max(t_kv / layers, t_kv - prefill time). The prefill
 * instance's blocks are freed when its token is sampled (not held until the decode side has pulled
 * them). Sessions: a turn enters the prefill pool when it is released and its next turn is released
 * by its last token at the decode instance (the pools step as replicas do with sessions,
 * cluster.h); its prefix hit is the prefill instance's own cache (earlier turns' prompts it
 * computed; their outputs were decoded elsewhere). Not modelled: speculative decoding. With a front
 * end (engine.h) each engine has its own; the command line gives the prefill instances the request
 * stage and the decode instances the output stage, and the result sums their parts.
 *
 * Example (const sim_engine_cfg *prefill_cfg, const sim_engine_cfg *decode_cfg,
 *          const sim_workload *w, sim_err *err):
 *   sim_disagg_cfg d = {.prefill = prefill_cfg, .decode = decode_cfg, .n_prefill = 2,
 *                       .n_decode = 1};
 *   sim_engine_result all;  // every request as the client saw it
 *   sim_cluster_result per; // the prefill instances' load first, then the decode instances'
 *   sim_status st = sim_disagg_check(&d, w, err); // bad input: SIM_EINPUT, exit 2
 *   if (st || (st = sim_disagg_run(&d, w, &all, &per, err)))
 *       return st;
 *   sim_engine_result_free(&all);
 *   sim_cluster_result_free(&per);
 */
#ifndef SIM_DISAGG_H
#define SIM_DISAGG_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster.h"
#include "engine.h"

typedef struct sim_disagg_cfg {
    const sim_engine_cfg *prefill;        /* every prefill instance's configuration */
    const sim_engine_cfg *decode;         /* every decode instance's */
    int n_prefill, n_decode;              /* >= 1 each */
    bool kv_stream;                       /* layer-wise streaming of the KV during the prefill */
    const sim_cluster_observer *observer; /* NULL: nobody watches */
} sim_disagg_cfg;

/* Whether the KV goes over the scale-out NIC: the deployment's GPUs exceed one node. */
bool sim_disagg_scaleout(const sim_disagg_cfg *cfg);

/* Bytes each GPU sends for a prompt of `input` tokens, and the time they take (no streaming). */
double sim_disagg_kv_bytes(const sim_disagg_cfg *cfg, int64_t input);
double sim_disagg_kv_ns(const sim_disagg_cfg *cfg, int64_t input);

/* Both configurations against the workload, the instance counts, what is not modelled. */
sim_status sim_disagg_check(const sim_disagg_cfg *cfg, const sim_workload *w, sim_err *err);

/* Simulates the pools; `all` holds every request as the client saw it (its send and its
 * scheduling at the prefill side, its tokens from the decode side). */
sim_status sim_disagg_run(const sim_disagg_cfg *cfg, const sim_workload *w, sim_engine_result *all,
                          sim_cluster_result *out, sim_err *err);

#endif
