/* step.h - the time of one engine iteration: every op of the step priced with cost.h, per-layer
 * ops counted in the layers they run in (graph.repeats: one layer of each kind is priced, then
 * multiplied).
 *
 *   busy      = sum over ops of max(T_math, T_mem)
 *   launch    = sum over ops of the kernel launch overhead
 *   cpu       = iteration overhead + request overhead x sequences + sync overhead
 *               the engine's CPU work
 *   host      = cpu for a synchronous engine (the GPU waits for it); with async scheduling
 *               sync + max(0, cpu - sync - GPU time) (the CPU prepares step N+1 while the GPU
 *               runs N, except the part it can only do after waiting on the device: SGLang
 *               0.4's FlashInfer plan copies the KV index pointer to the host, a sync on step N)
 *   hidden    = min(overlap x sum T_net, busy)   network time hidden behind compute
 *   exposed   = sum T_net - hidden
 *   time      = busy + launch + host + exposed    the prediction
 *   t_lower   = launch + host + max(sum T_math, sum T_mem, sum T_net)   perfect overlap
 *   t_upper   = launch + host + sum (T_math + T_mem + T_net)             no overlap at all
 * so t_lower <= time <= t_upper always. Launch gaps and host time are serial: no overlap hides
 * them.
 */
#ifndef SIM_STEP_H
#define SIM_STEP_H

#include <stdbool.h>

#include "cost.h"
#include "graph.h"
#include "hw.h"
#include "kfloor.h"
#include "model.h"

/* How an engine sizes its KV cache (the memory every other use leaves is the same):
 *   SIM_MEM_OF_TOTAL:  HBM x fraction - weights - workspace - reserve (vLLM
 *                      --gpu-memory-utilization: its profile run's activation peak is inside);
 *   SIM_MEM_OF_FREE:   (HBM - weights - workspace - reserve) x fraction (TensorRT-LLM
 *                      kv_cache_free_gpu_mem_fraction: a share of what is free once the weights
 *                      and activations are in);
 *   SIM_MEM_STATIC:    HBM x fraction - weights - reserve, the activations outside the fraction
 *                      (SGLang --mem-fraction-static: "model weights and KV cache memory pool";
 *                      model_runner sizes the pool as the free memory after loading less
 *                      HBM x (1 - fraction), and server_args' reserve for a chunk's
 *                      activations and the CUDA graphs is that 1 - fraction). */
typedef enum sim_mem_rule { SIM_MEM_OF_TOTAL, SIM_MEM_OF_FREE, SIM_MEM_STATIC } sim_mem_rule;

typedef struct sim_step_cfg {
    const sim_model *model;
    const sim_hw *hw;
    int tp; /* tensor-parallel degree */
    int pp; /* pipeline stages (0 or 1: none); a step is priced whole, pp.h splits it */
    sim_prec prec;
    double overlap;               /* 0..1: fraction of network time that may hide behind compute */
    bool eager;                   /* kernels launched eagerly (else from a captured CUDA graph) */
    bool piecewise_graphs; /* graphs captured between the attention ops (vLLM V1's PIECEWISE
                              mode): a replayed step launches each layer's attention kernels
                              eagerly and relaunches the next piece (sim_step_op_launch_ns) */
    double iteration_overhead_ns; /* engine CPU time per iteration */
    double request_overhead_ns;   /* engine CPU time per request in the iteration */
    double sync_overhead_ns;      /* CPU time per iteration after a device wait (exposed) */
    double eager_kernel_cpu_ns;   /* CPU time to dispatch one kernel launched eagerly (Python and
                                     the framework's dispatch): an eager step's launches take
                                     kernels x this on the CPU, and the GPU waits for what of it
                                     exceeds its own work (sim_step_host_ns); 0: never the bound */
    bool async_sched;             /* CPU work overlaps the GPU step (vLLM --async-scheduling) */
    sim_mem_rule mem_rule;        /* how the memory fraction is read (engine profile) */
    int64_t graph_max_bs; /* largest decode batch captured as a CUDA graph; 0 = every batch */
    int ep;                       /* expert-parallel degree (0 or 1: none) */
    bool dp_attention;            /* attention data-parallel over the EP group */
    int dp; /* data-parallel attention groups (0: ep / tp; with ep 1: the MoE split by TP over
               tp x dp GPUs, graph.h) */
    double expert_imbalance;      /* a fixed busiest EP rank's routed tokens over the mean (>= 1);
                                   * 0: the routing's expected busiest rank per batch (moe.h) */
    sim_moe_routing routing;      /* how tokens pick experts; EPLB's redundant experts */
    sim_moe_cache *moe_cache;     /* run state, not configuration: the MoE load per batch
                                   * (moe.h), shared by copies of this configuration (their
                                   * routing is the same); NULL: computed each step */
    sim_moe_kernel moe_kernel;    /* the experts' grouped-GEMM kernel family (engine profile) */
    sim_moe_kernel moe_kernel_quantized; /* the same for 8- and 4-bit experts (engprof.h) */
    sim_moe_kernel moe_kernel_mixed;     /* the same for mixed-input experts (engprof.h) */
    bool block_fp8_triton; /* dense block-scaled fp8 GEMMs launch one thread block per 128
                            * weight columns, no split-K (vLLM's Triton kernel; cost.h), else
                            * SM-filling (DeepGEMM, SGLang) */
    sim_a2a_mode moe_a2a; /* MoE dispatch / combine kernels (a2a.h; AUTO: normal with prefill
                             tokens, low_latency on decode-only steps) */
    int a2a_ll_max_tokens; /* tokens per rank a low-latency dispatch holds (DeepEP's buffer;
                              0: SIM_A2A_LL_MAX_TOKENS) */
    bool tbo; /* two-batch overlap (SGLang --enable-two-batch-overlap, vLLM --enable-dbo):
                 the MoE layers of a step run as two micro-batches, below */
    sim_coll_algo allreduce;  /* the all-reduces' algorithm (AUTO: the cheapest, collective.h) */
    bool fuse_qk_norm_rope;   /* q/k norm and RoPE in one kernel (sim_graph_fuse_qk_norm_rope) */
    bool vllm_stages;         /* under AUTO, the engine's custom all-reduce as vLLM's size switch
                                 picks it (sim_collective_engine_algo) */
    bool fuse_allreduce_norm; /* all-reduce + residual + RMSNorm in one kernel where the
                                     all-reduce runs as a custom or multicast kernel */
    sim_dattn_kernel decode_attn;         /* the engine's decode attention kernel (dattn.h) */
    sim_dattn_kernel decode_attn_quant_kv; /* the one it runs over an 8-bit KV cache */
    int act_quant_kernels; /* kernels quantizing EVERY 8-bit GEMM input of a dense layer (vLLM
                              0.5: scale memset, max reduction, quantization); 0: fused into the
                              norms and activation, one before o_proj (the graph's) */
    sim_kfloor kfloor;     /* the engine's small kernels' time per launch in a graph (kfloor.h;
                              zero: no floor) */
} sim_step_cfg;

/* The run's parallelism as the graph takes it (ep 0 reads as 1; imbalance 0: from routing). */
sim_par sim_step_par(const sim_step_cfg *cfg);

/* The kernel family the model's experts run in: moe_kernel for 16-bit expert weights,
 * moe_kernel_mixed for mixed-input ones (weights below 16 bits under 16-bit math), else
 * moe_kernel_quantized (graph.h sim_par, which the graph picks from the same way). */
sim_moe_kernel sim_step_moe_kernel(const sim_step_cfg *cfg);

/* GPUs the run takes: tp x the data-parallel attention groups. */
int sim_step_gpus(const sim_step_cfg *cfg);

/* " (TP 1, EP 8, DP attention 8)" for expert-parallel runs, "" otherwise (for headers and
 * messages). */
void sim_step_par_text(const sim_step_cfg *cfg, char *buf, size_t len);

typedef struct sim_step_result {
    sim_graph graph;                /* the ops (one layer + the edges) */
    sim_op_cost cost[SIM_OP_COUNT]; /* cost of ONE instance of each op */
    double hidden_ns[SIM_OP_COUNT]; /* network time of one instance hidden by overlap */
    double flops, bytes, net_bytes; /* whole step, all layers, per GPU */
    double t_math_ns, t_mem_ns, t_net_ns, t_launch_ns; /* sums over the step */
    double t_cpu_ns;                                   /* engine CPU work of the iteration */
    double t_host_ns;                                  /* the part of it the GPU waits for */
    double busy_ns;                                    /* sum of max(T_math, T_mem) */
    double kernels; /* kernels the step launches (fused ops none; a replayed graph counts its
                       nodes) */
    double net_hidden_ns, net_exposed_ns;
    double t_lower_ns, t_upper_ns;
    double t_ns;     /* the prediction */
    sim_bound bound; /* the largest of math, memory, network, launch + host */
} sim_step_result;

/* Checks the configuration once (TP divides the heads, precision makes sense, the device
 * computes the formats, overlap in [0, 1], the device has the forced all-reduce algorithm). */
sim_status sim_step_check(const sim_step_cfg *cfg, sim_err *err);

/* Whether a step of `tokens` tokens over the whole deployment (every DP group's), with prefill
 * tokens or decode only, fits DeepEP's low-latency buffer where it runs that mode (a2a.h
 * SIM_A2A_LL_MAX_TOKENS): each EP rank sends ceil(tokens / ep), and past the buffer DeepEP's
 * dispatch fails its assertion, so infersim refuses the deployment (exit 2, naming `what`, the
 * flag that sets the tokens; run checks its batch, serve its --max-num-seqs over every DP group,
 * up to its workload's requests, and its --max-num-batched-tokens). No all-to-all, or the
 * normal mode: always fits.
 * DeepSeek-V3 at --tp 1 --ep 8 --dp-attention: a decode step of 1025 sequences puts 129 tokens
 * on a rank, one more than SGLang's 128: refused; 1024 fit.
 * Example (const sim_step_cfg *cfg, sim_err *err):
 *   sim_status st = sim_step_check_a2a_tokens(cfg, 1024, false, "--batch", err); // SIM_OK */
sim_status sim_step_check_a2a_tokens(const sim_step_cfg *cfg, double tokens, bool has_prefill,
                                     const char *what, sim_err *err);

/* SIM_EINPUT when the 16-bit format that model m's attention, LM head and residual stream compute
 * in under prec (sim_graph_resid_dtype: the activations' when 16-bit, else the checkpoint's
 * torch_dtype) has no peak on hw: an fp16 checkpoint with 8-bit GEMMs on Gaudi 3 or a TPU.
 * sim_step_check runs it for the target; speculative decoding for its draft model. */
sim_status sim_step_check_compute(const sim_model *m, const sim_hw *hw, const sim_prec *prec,
                                  sim_err *err);

/* The host time a step's GPU waits for (ns). cpu_ns is the engine's scheduling work of the
 * iteration (sync_ns of it done after a wait on the device), dispatch_ns the CPU time of the
 * step's own eager launches (kernels x eager_kernel_cpu_ns; 0 for a replayed graph), gpu_ns the
 * GPU's work. The launches cannot run ahead of their step: the GPU waits for what of them exceeds
 * its work, dispatch_ns - gpu_ns when positive. A synchronous engine adds its scheduling whole;
 * an asynchronous one schedules the next step while this one runs, so one CPU thread's work per
 * step (scheduling after sync_ns, and the launches) is exposed where it exceeds the GPU's:
 * sync_ns + max(0, cpu_ns - sync_ns + dispatch_ns - gpu_ns).
 * Example: a 40 us GPU step whose 100 kernels cost 25 us each on the CPU waits 2.46 ms:
 *     double host = sim_step_host_ns(1e6, 0.0, 100 * 25e3, 40e3, false); // 1e6 + 2.46e6
 */
double sim_step_host_ns(double cpu_ns, double sync_ns, double dispatch_ns, double gpu_ns,
                        bool async_sched);

/* Whether a step launches its kernels eagerly: engines capture CUDA graphs for decode-only
 * batches, so a step that carries prefill tokens runs eagerly, and a decode-only step replays a
 * graph unless cfg->eager (--enforce-eager) says otherwise. The one statement of that rule: the
 * engine's steps, the draft's and run's prefill all ask here. */
bool sim_step_eager(const sim_step_cfg *cfg, bool has_prefill);

/* The batch a decode-only step of `seqs` sequences replays from a CUDA graph: the next captured
 * size (1, 2, 4, then multiples of 8 up to graph_max_bs, and graph_max_bs itself; engines pad
 * the batch with dummy sequences), or 0 when it runs eagerly (cfg->eager, or seqs above
 * graph_max_bs). With graph_max_bs 0 every batch has its own graph: returns seqs. */
int64_t sim_step_graph_seqs(const sim_step_cfg *cfg, int64_t seqs);

/* The cost of op in a step under cfg: sim_cost_op at launch_ns per kernel (sim_step_launch_ns),
 * except that with piecewise graphs (cfg->piecewise_graphs) in a replayed step an attention op's
 * kernels run eagerly between the pieces, hw->launch_ns each, and the graph piece after it is
 * launched anew, one more hw->launch_ns. Per layer, on an H100 at 4 us eager and 1.5 us in a
 * graph, the attention's 2 kernels (KV write, attention) cost 2 x 4 + 4 = 12 us of launches
 * instead of 2 x 1.5 = 3 us.
 * Example (const sim_step_cfg *cfg, const sim_op *op):
 *   sim_op_cost c = sim_step_cost_op(cfg, op, sim_step_launch_ns(cfg));
 *   ... c.t_launch_ns is what the op's kernels cost to launch, per layer
 */
sim_op_cost sim_step_cost_op(const sim_step_cfg *cfg, const sim_op *op, double launch_ns);

/* The per-kernel launch overhead of a step under cfg: eager, or replayed from a CUDA graph. */
double sim_step_launch_ns(const sim_step_cfg *cfg);

/* Two-batch overlap. With cfg->tbo, under expert parallelism (ep > 1) and a step of at least
 * two sequences (or, with one, two tokens), the MoE layers run as two micro-batches A and B of
 * half the batch each (A: ceil(seqs / 2) sequences, B the rest, each priced as a step of its
 * own: every weight read twice), the dense layers and the step's edges on the whole batch. Each
 * MoE layer of a micro-batch is four segments: c0 compute (norms, attention, projections,
 * router, shared expert; TP all-reduces on the stream), x0 the dispatch, c1 the experts'
 * permute, grouped GEMMs and unpermute, x1 the combine. One compute stream runs A.c0, B.c0, A.c1, B.c1 in that order,
 * one communication stream A.x0, B.x0, A.x1, B.x1; a segment starts when the one before it in
 * its micro-batch has ended and its stream is free; layer l + 1's c0 follows layer l's x1. The
 * MoE layers take the makespan of that schedule; their ops are reported as the two halves' sum,
 * the network time the schedule hides as hidden (so time = busy + launch + host + exposed still
 * holds). */
bool sim_step_tbo_applies(const sim_step_cfg *cfg, const sim_batch_shape *s);

/* The schedule's makespan for micro-batches whose MoE layer segments take a[4] and b[4] ns
 * (c0, x0, c1, x1), over `layers` layers; both start at 0. */
double sim_step_tbo_makespan(const double a[4], const double b[4], int64_t layers);

/* Data-parallel attention (dp > 1): the step's attention side runs the slowest group's own
 * sequences (sim_seq_group.rank says whose; graph.h sim_graph_shape_dp), picked by the roofline
 * terms that differ between groups: per new token the attention projections' FLOPs at the GEMM
 * peak, per query-key pair attention's FLOPs at the attention peak, per cached token its KV bytes
 * at the paged-attention bandwidth. Fills *busiest and returns true when that applies. */
bool sim_step_dp_busiest(const sim_step_cfg *cfg, const sim_seq_group *groups, size_t n_groups,
                         sim_batch_shape *busiest);

/* Prices one step of the given batch. cfg must have passed sim_step_check. */
void sim_step_price(const sim_step_cfg *cfg, const sim_seq_group *groups, size_t n_groups,
                    sim_step_result *out);

/* Remembers the last step priced with one configuration: a step with the same tokens,
 * sequences, logits and decode tokens reuses every op but those that depend on the contexts
 * (attention, MLA's kv_up), which is what consecutive decode steps are. A hit reprices only
 * those ops and adds their sums to the kept sum of the rest (in the order a fresh step adds
 * them), and rewrites the ops' hidden network time only when the overlap's share moved. Results
 * are identical to sim_step_price's, bit for bit. One memo per configuration, the launch mode included (a caller whose steps
 * switch between eager and graph launches keeps one memo for each); zero it to start. */
typedef struct sim_step_memo {
    bool valid;
    double tokens, seqs, logits, dec_tokens;
    double vis_patches, vis_window_pairs; /* the images the step encodes (graph_vision.c) */
    double rank[4]; /* data-parallel attention: the slowest group's tokens, sequences, logits and
                       decode tokens */
    double base[9]; /* private: the sums over every op that does not depend on the contexts */
    int ctx_ops[SIM_OP_COUNT]; /* private: the ops that do, in order, and how many */
    int n_ctx;
    double share; /* private: the overlap's share of each op's network time in r.hidden_ns */
    bool hit;     /* the last call kept every op that does not depend on the contexts: their
                   * graph, cost and hidden_ns are those of the call before */
    sim_step_result r;
} sim_step_memo;

/* sim_step_price through a memo. The result lives in the memo (updated in place, no copy) and
 * stays valid until the memo's next use. */
const sim_step_result *sim_step_price_memo(const sim_step_cfg *cfg, const sim_seq_group *groups,
                                           size_t n_groups, sim_step_memo *memo);

/* Several memos, each remembering the last step of the shapes that map to it (by their tokens,
 * sequences, logits and decode tokens): a serving run's batch moves among a few shapes as
 * requests arrive and finish, and each keeps its ops instead of evicting the others'. Results
 * identical to sim_step_price's; zero it to start. */
#define SIM_STEP_MEMO_WAYS 8
typedef struct sim_step_memo_ways {
    sim_step_memo way[SIM_STEP_MEMO_WAYS];
} sim_step_memo_ways;

/* sim_step_price through the way of the step's shape; the result lives in that memo. */
const sim_step_result *sim_step_price_memo_ways(const sim_step_cfg *cfg,
                                                const sim_seq_group *groups, size_t n_groups,
                                                sim_step_memo_ways *m);

/* The same for a step of the groups plus n single decodes whose contexts sum to c_sum tokens
 * (sim_graph_shape_add_decodes: bit-identical to passing them as n groups of one; the model
 * must be sim_graph_decode_linear, and without data-parallel attention, whose split needs each
 * sequence). */
const sim_step_result *sim_step_price_memo_ways_plus(const sim_step_cfg *cfg,
                                                     const sim_seq_group *groups,
                                                     size_t n_groups, int64_t n, int64_t c_sum,
                                                     sim_step_memo_ways *m);

/* Times an op runs in a step: the layer count for per-layer ops, else 1. */
double sim_step_op_repeats(const sim_step_result *r, sim_op_id id);

/* Adds every additive field of `x` into `sum` (for averaging many steps); bounds are
 * recomputed by sim_step_scale. */
void sim_step_accumulate(sim_step_result *sum, const sim_step_result *x);

/* A sum of many steps, bit for bit what sim_step_accumulate gives adding them one at a time, at
 * less cost when consecutive steps are memo hits (sim_step_memo.hit): those keep every op that
 * does not depend on the contexts, so each of its additive fields adds the same value step after
 * step, and such a run of n additions is made at once (sim_step_add_repeated) when it ends. Zero
 * it to start; sim_step_sum_add each step; sim_step_sum_end gives the sum.
 * Example (const sim_step_result *a, const sim_step_result *b): b a memo hit after a
 *     sim_step_sum acc = {0};
 *     sim_step_sum_add(&acc, a, false);
 *     sim_step_sum_add(&acc, b, true);
 *     const sim_step_result *sum = sim_step_sum_end(&acc); // as accumulate(a) then (b)
 */
typedef struct sim_step_sum {
    sim_step_result sum;  /* every field added so far but the pending run's */
    sim_step_result kept; /* the step whose context-free ops' fields the run repeats */
    int64_t pending;      /* additions of those fields still to be made */
    int ctx[SIM_OP_COUNT]; /* private: the context-dependent ops a run adds step by step */
    int n_ctx;
} sim_step_sum;

/* Adds step x. same_ops: x's ops that do not depend on the contexts have the graph, cost and
 * hidden_ns fields of the step added before it (a memo hit: sim_step_memo.hit). */
void sim_step_sum_add(sim_step_sum *acc, const sim_step_result *x, bool same_ops);

/* Makes the pending additions; returns the sum (as sim_step_accumulate's of every step added). */
const sim_step_result *sim_step_sum_end(sim_step_sum *acc);

/* s + x + x + ... (n additions, each rounded to nearest in turn), in O(log n) additions: within
 * one binade of s each addition adds the same rounded increment, so a run of them is one
 * multiplication; the binade's edge and ties (whose rounding depends on the last bit) are added
 * one at a time. Bit-identical to the loop (tested against it).
 * Example: double s = sim_step_add_repeated(0.0, 0.1, 10); // the loop's 0.9999999999999999 */
double sim_step_add_repeated(double s, double x, int64_t n);

/* Multiplies every additive field by f (e.g. 1/steps for a mean) and recomputes the bounds. */
void sim_step_scale(sim_step_result *r, double f);

#endif
