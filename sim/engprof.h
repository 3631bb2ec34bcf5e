/* engprof.h - engine profiles: the defaults an inference engine serves with, read from a data
 * file (hw/engines/NAME.json: vllm, vllm-v0, sglang, trtllm, hf), each with its public source.
 *
 * A profile says how the engine sizes its KV cache (rule and fraction), its block (page) size,
 * its scheduler (policy, batch and token limits, chunked prefill, SGLang's new-token ratio), the
 * CPU time an iteration costs and whether it hides behind the GPU (async scheduling / overlap
 * scheduler), per-layer Python overhead (eager Hugging Face), CUDA graphs (on, and the largest
 * captured batch), prefix caching, the all-reduce its runtime runs (collectives.allreduce: auto =
 * its custom one-shot / two-shot kernels below their size limit, else NCCL; nccl = NCCL only) and
 * whether it fuses all-reduce + residual + RMSNorm (collectives.fuse_allreduce_norm; both priced by
 * the step, step.h), its context limits (limits.max_model_len: 0 = the model config's
 * max_position_embeddings; limits.max_input_len: 0 = none but the context), and the other kernel
 * fusions it applies (recorded, not priced), and (optional object "attention") the decode
 * attention kernel it runs (attention.decode) and the one over an 8-bit KV cache
 * (attention.decode_quant_kv), as dattn.h names them; absent, both are "split" (the context split
 * to fill the GPU: what current engines run), and (optional object "quantization") the kernels
 * that quantize each 8-bit GEMM input when the engine does not fuse that into the norm or
 * activation before it (quantization.act_quant_kernels; absent: 0, fused), and (optional
 * host.sync_overhead_us) the CPU time per iteration spent after a wait on the device, which the
 * GPU waits for even with async scheduling (absent: 0; step.h), and (object "frontend") its
 * front end as frontend.h models it: frontend.processes (API-server / tokenizer processes),
 * frontend.request_us, frontend.input_token_us, frontend.output_token_us, frontend.chunk_us (CPU
 * per request, prompt token, output token, streamed chunk), frontend.stream_interval (output
 * tokens per streamed chunk) and frontend.first_token_alone (the first token is streamed at once), and (optional moe.kernel) the
 * grouped-GEMM kernel family it runs the MoE experts with, as moe.h names them (absent: triton,
 * vLLM's and SGLang's fused_moe).
 * Every other field is required; every field given must have an entry in "sources"; the command
 * line's flags override each one.
 *
 * Device- and TP-dependent defaults are data too. "rules" (optional) is an array of
 *   {"when": {CONDITIONS}, "set": {"scheduler.max_num_seqs": 1024, ...}, "source": "..."}
 * whose conditions (all optional, all must hold) are hbm_gib_min (>=), hbm_gib_below (<),
 * name_has / name_lacks (a case-insensitive substring of the device's display name), tp_min
 * (>=) and tp_below (<); "set" names numeric fields of the table above. For each field the
 * first matching rule that sets it wins; a field no rule sets keeps its top-level value.
 * "memory.reserve_mib" (optional; SGLang's rule for --mem-fraction-static) derives the memory
 * fraction from the device and the settings in force:
 *   fraction = round3((hbm_mib - reserved) / hbm_mib),   hbm_mib = hbm_gib x 1024
 *   reserved = base + per_prefill_token x max(max_num_batched_tokens, min_prefill_tokens)
 *            + per_graph_batch x cuda_graph_max_bs + per_gpu x tp x pp,
 *   raised to floor when hbm_gib > floor_above_hbm_gib.
 * sim_engprof_for_device applies both once, when a run's configuration is built: the rules
 * before the command line's flags, the reserve after them (so an explicit chunk size or graph
 * size counts, and an explicit memory fraction wins).
 */
#ifndef SIM_ENGPROF_H
#define SIM_ENGPROF_H

#include <stdbool.h>
#include <stdint.h>

#include "coll.h"
#include "hw.h"
#include "sched.h"
#include "status.h"
#include "step.h"

#define SIM_ENGPROF_MAX_RULES 16
#define SIM_ENGPROF_RULE_SETS 6

/* One rule of a profile: conditions on the device and the tensor-parallel size, and the fields
 * it sets (indices into engprof.c's field table). */
typedef struct sim_engprof_rule {
    double hbm_gib_min, hbm_gib_below; /* 0 and INFINITY when absent */
    int64_t tp_min, tp_below;          /* 0 and INT64_MAX when absent */
    char name_has[32], name_lacks[32]; /* "" when absent */
    int n_sets;
    int field[SIM_ENGPROF_RULE_SETS];
    double value[SIM_ENGPROF_RULE_SETS];
} sim_engprof_rule;

/* SGLang's memory reserve (MiB), see the header comment; on = false without one. */
typedef struct sim_engprof_reserve {
    bool on;
    double base_mib, per_prefill_token_mib, min_prefill_tokens, per_graph_batch_mib, per_gpu_mib;
    double floor_mib, floor_above_hbm_gib;
} sim_engprof_reserve;

typedef struct sim_engprof {
    char name[32];     /* file stem: "vllm" */
    char path[256];    /* file it was loaded from */
    char version[200]; /* the engine release its defaults come from */
    sim_mem_rule mem_rule;
    double mem_fraction; /* of total HBM, or of what is free after weights and activations */
    int64_t block_size;
    sim_sched_policy policy;
    int64_t max_num_seqs, max_num_batched_tokens;
    bool chunked_prefill;
    bool lpm; /* admission order: longest cached prefix first (SGLang lpm), else FCFS */
    double ratio_init, ratio_min, ratio_decay; /* SGLang's new-token ratio (0 elsewhere) */
    double iteration_overhead_us, request_overhead_us, layer_overhead_us;
    double sync_overhead_us; /* host.sync_overhead_us: CPU time per iteration after a wait on the
                                device, exposed even with async scheduling (absent: 0) */
    bool async_scheduling;
    bool cuda_graphs;
    int64_t cuda_graph_max_bs; /* 0 = every batch captured */
    bool prefix_caching;
    sim_coll_algo allreduce;  /* the all-reduce the runtime picks: AUTO or NCCL (or one forced) */
    bool fuse_allreduce_norm; /* all-reduce + residual + RMSNorm in one kernel */
    int64_t max_model_len;    /* context limit in tokens; 0 = the model config's */
    int64_t max_input_len;    /* longest prompt the engine takes; 0 = only the context limit */
    sim_dattn_kernel decode_attn;          /* attention.decode (absent: split) */
    sim_dattn_kernel decode_attn_quant_kv; /* attention.decode_quant_kv: over an 8-bit KV cache */
    int64_t act_quant_kernels; /* quantization.act_quant_kernels (absent: 0, fused) */
    sim_moe_kernel moe_kernel; /* moe.kernel: the experts' grouped GEMMs (absent: triton) */
    /* the front end (frontend.h): processes, CPU per request, prompt token, output token and
     * streamed chunk, tokens per chunk, whether the first token goes alone */
    int64_t fe_processes;
    double fe_request_us, fe_input_token_us, fe_output_token_us, fe_chunk_us;
    int64_t fe_stream_interval;
    bool fe_first_token_alone;
    bool fe_on;          /* not a file field: true at load; --frontend none turns it off */
    bool per_token_itl;  /* not a file field: the client's ITL (--itl-per-token) */
    char fusions[256]; /* comma-separated, as recorded */
    int n_rules;
    sim_engprof_rule rules[SIM_ENGPROF_MAX_RULES];
    sim_engprof_reserve reserve;
    char chosen[512]; /* after sim_engprof_for_device: which rules chose what ("" when none) */
} sim_engprof;

/* Loads and validates a profile. Errors name the file, the field, the value and what was
 * expected (a field without a source is one). */
sim_status sim_engprof_load(const char *path, sim_engprof *p, sim_err *err);

/* Applies the rules that match the device and tp to p (once; sim_engprof_reserve_fraction comes
 * after the flags), and records in p->chosen which rule set which field. */
void sim_engprof_for_device(sim_engprof *p, const sim_hw *hw, int64_t tp);

/* The memory fraction p->reserve gives on this device with p's chunk and graph sizes (tp x pp
 * GPUs per engine); p->mem_fraction when the profile has no reserve. */
double sim_engprof_reserve_fraction(const sim_engprof *p, const sim_hw *hw, int64_t tp, int64_t pp);

/* Sets p->mem_fraction from p->reserve (when the profile has one) and records it in p->chosen:
 * call it after the flags that set the chunk and graph sizes, unless a flag gives the fraction. */
void sim_engprof_apply_reserve(sim_engprof *p, const sim_hw *hw, int64_t tp, int64_t pp);

/* "vllm", "sglang", "guaranteed_no_evict", "max_utilization", "static". */
const char *sim_engprof_policy_name(sim_sched_policy p);

/* Parses a policy name as above (TensorRT-LLM's upper-case spellings accepted). */
bool sim_engprof_policy_parse(const char *s, sim_sched_policy *out);

#endif
