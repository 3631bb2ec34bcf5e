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
 * GPU waits for even with async scheduling (absent: 0; step.h), (optional
 * host.eager_kernel_cpu_us) the CPU time the engine spends dispatching one kernel of a step it
 * runs eagerly (its prefill steps, decode batches above the largest graph), which bounds that
 * step when the GPU's work is shorter (absent: 0; step.h sim_step_host_ns), (optional
 * cuda_graphs.piecewise) whether the captured graphs stop at every attention op, which then runs
 * eagerly between them (vLLM V1 before 0.11; absent: false; step.h sim_step_cost_op), (optional
 * fusion.qk_norm_rope) whether a model's per-head q/k RMSNorm and RoPE run as one kernel
 * (TensorRT-LLM's QKNormRoPEAttention; absent: false; graph.h sim_graph_fuse_qk_norm_rope), (object
 * "frontend") its front end as frontend.h models it: frontend.processes (API-server / tokenizer
 * processes), frontend.request_us, frontend.input_token_us, frontend.output_token_us,
 * frontend.chunk_us (CPU per request, prompt token, output token, streamed chunk),
 * frontend.stream_interval (output tokens per streamed chunk) and frontend.first_token_alone (the
 * first token is streamed at once), and (optional moe.kernel) the grouped-GEMM kernel family it
 * runs the MoE experts with, as moe.h names them (absent: triton, vLLM's and SGLang's fused_moe).
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
 *
 * Versions. Each profile names its engine ("engine": "vllm", the NAME of --engine NAME@VERSION)
 * and the releases whose defaults it carries ("versions": ">=0.10,<0.12"): comparators joined by
 * commas, each one of >=, >, <=, <, == and a release of 1 to 4 dot-separated whole numbers; a
 * release holds when every comparator does. Releases compare part by part, a missing part counting
 * 0 (0.10 is 0.10.0, and >=0.10,<0.12 holds 0.10.0 to 0.11.x); what follows the numbers of an
 * asked-for release (".post2", "rc1", "+rocm", "-dev") is ignored, so 0.4.6.post2 is 0.4.6.
 * "platform" (optional: cuda, rocm or any; absent any) is the build the defaults are those of:
 * on an AMD device (sim_engprof_device_platform) a rocm profile covering the release wins, else
 * the engine's cuda or any one; a rocm profile is never picked for another device.
 * sim_engprof_pick chooses among loaded profiles: NAME@VERSION the one whose range holds VERSION,
 * a bare NAME the newest (the greatest lower bound).
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

/* An engine release: up to 4 whole-number parts, missing ones 0. */
typedef struct sim_engprof_version {
    int64_t part[4];
} sim_engprof_version;

#define SIM_ENGPROF_MAX_BOUNDS 4

/* A profile's "versions": every comparator must hold. op is one of ">=", ">", "<=", "<", "==". */
typedef struct sim_engprof_range {
    int n;
    char op[SIM_ENGPROF_MAX_BOUNDS][3];
    sim_engprof_version v[SIM_ENGPROF_MAX_BOUNDS];
} sim_engprof_range;

/* The build a profile's defaults are those of; a device's platform is CUDA or ROCm. */
typedef enum sim_engprof_platform {
    SIM_ENGPROF_ANY,
    SIM_ENGPROF_CUDA,
    SIM_ENGPROF_ROCM
} sim_engprof_platform;

typedef struct sim_engprof {
    char name[32];     /* file stem: "vllm" */
    char engine[32];   /* "engine": the NAME of --engine NAME@VERSION ("vllm") */
    char versions[64]; /* "versions" as written: ">=0.10,<0.12" */
    sim_engprof_range range;
    sim_engprof_platform platform;
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
    double eager_kernel_cpu_us; /* host.eager_kernel_cpu_us: CPU time to dispatch one kernel of an
                                   eager step, Python and framework (absent: 0; step.h) */
    bool async_scheduling;
    bool cuda_graphs;
    int64_t cuda_graph_max_bs; /* 0 = every batch captured */
    bool piecewise_graphs;     /* cuda_graphs.piecewise: graphs between the attention ops (vLLM
                                  V1's PIECEWISE mode; absent: false, whole-step graphs) */
    bool fuse_qk_norm_rope;    /* fusion.qk_norm_rope: q/k norm and RoPE in one kernel (absent:
                                  false, two norm launches and the rotary one) */
    bool prefix_caching;
    bool no_hybrid_kv; /* --disable-hybrid-kv-cache-manager (vLLM v1) */
    sim_coll_algo allreduce;  /* the all-reduce the runtime picks: AUTO or NCCL (or one forced) */
    bool fuse_allreduce_norm; /* all-reduce + residual + RMSNorm in one kernel */
    bool vllm_stages; /* collectives.vllm_stages: under auto, the custom all-reduce's one- or
                         two-shot kernel by vLLM's size switch (sim_collective_vllm_stage) and NCCL
                         past its buffer, not the cheaper (absent: false) */
    int64_t max_model_len;    /* context limit in tokens; 0 = the model config's */
    int64_t max_input_len;    /* longest prompt the engine takes; 0 = only the context limit */
    sim_dattn_kernel decode_attn;          /* attention.decode (absent: split) */
    sim_dattn_kernel decode_attn_quant_kv; /* attention.decode_quant_kv: over an 8-bit KV cache */
    int64_t act_quant_kernels; /* quantization.act_quant_kernels (absent: 0, fused) */
    sim_kfloor kfloor; /* kernel_floor_us.{norm,quant,topk}: its small kernels' time per launch
                          in a CUDA graph (kfloor.h; absent: 0, no floor) */
    sim_moe_kernel moe_kernel; /* moe.kernel: the experts' grouped GEMMs (absent: triton) */
    /* moe.kernel_sm100_mla_quantized (absent: moe.kernel): the kernel of an MLA (DeepSeek-V3
     * architecture) model's 8- or 4-bit experts on an SM100 device (a name with B200 or B300:
     * B200, GB200, B300, GB300), as SGLang 0.5 picks flashinfer_trtllm there (sglang#11816) */
    bool has_moe_kernel_sm100;
    sim_moe_kernel moe_kernel_sm100;
    /* the kernel of quantized experts on the device sim_engprof_for_device was given: the one
     * above on an SM100 device, else moe_kernel (cli_load_engine_step applies it to MLA models) */
    sim_moe_kernel moe_kernel_quantized;
    /* moe.kernel_mixed_input (absent: moe.kernel): the kernel of mixed-input experts (weights
     * below 16 bits under 16-bit math: int4, mxfp4 W4A16) on a device that is not SM100, as
     * vLLM 0.10-0.11 runs them through Marlin there (mxfp4.py get_mxfp4_backend) */
    bool has_moe_kernel_mixed_input;
    sim_moe_kernel moe_kernel_mixed_input;
    /* the kernel of mixed-input experts on the device sim_engprof_for_device was given: the one
     * above off SM100, else moe_kernel */
    sim_moe_kernel moe_kernel_mixed;
    bool block_fp8_triton;     /* gemm.block_fp8 "triton": dense block-scaled fp8 GEMMs launch
                                * one thread block per 128 weight columns, no split-K (vLLM);
                                * "deepgemm" or absent: SM-filling, no such bound (cost.h) */
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
 * after the flags), records in p->chosen which rule set which field, and sets
 * p->moe_kernel_quantized: moe.kernel_sm100_mla_quantized on an SM100 device when the profile
 * gives it, else moe.kernel; and p->moe_kernel_mixed: moe.kernel_mixed_input off SM100 when the
 * profile gives it, else moe.kernel. */
void sim_engprof_for_device(sim_engprof *p, const sim_hw *hw, int64_t tp);

/* The memory fraction p->reserve gives on this device with p's chunk and graph sizes (tp x pp
 * GPUs per engine); p->mem_fraction when the profile has no reserve. */
double sim_engprof_reserve_fraction(const sim_engprof *p, const sim_hw *hw, int64_t tp, int64_t pp);

/* Sets p->mem_fraction from p->reserve (when the profile has one) and records it in p->chosen:
 * call it after the flags that set the chunk and graph sizes, unless a flag gives the fraction. */
void sim_engprof_apply_reserve(sim_engprof *p, const sim_hw *hw, int64_t tp, int64_t pp);

/* Parses a release ("0.10.2", "0.17", "0.4.6.post2": the numbers, then anything not a digit
 * ignored). False when it does not start with a digit or a part exceeds 999999. */
bool sim_engprof_version_parse(const char *s, sim_engprof_version *v);

/* <0, 0, >0 as a is older than, the same as, newer than b. */
int sim_engprof_version_cmp(const sim_engprof_version *a, const sim_engprof_version *b);

/* Parses a "versions" range (header comment); errors name `path`, the field and the value. */
sim_status sim_engprof_range_parse(const char *s, const char *path, sim_engprof_range *r,
                                   sim_err *err);

/* Whether every comparator of r holds for v. */
bool sim_engprof_range_holds(const sim_engprof_range *r, const sim_engprof_version *v);

/* ROCm for an AMD device (arch cdna*, or "AMD" / "Instinct" in its name), else CUDA. */
sim_engprof_platform sim_engprof_device_platform(const sim_hw *hw);

/* "any", "cuda", "rocm". */
const char *sim_engprof_platform_name(sim_engprof_platform p);

/* The profile `spec` names among the n loaded profiles: "NAME" (the newest of engine NAME) or
 * "NAME@VERSION" (the one whose range holds VERSION), for a device of platform `on` (header
 * comment: a rocm profile first on ROCm, never elsewhere). Its index in *pick. A name no profile
 * has, a bad version or one no range holds is SIM_EINPUT naming `what` (the flag or row), the
 * value and the engines or ranges there are.
 * Example (const sim_engprof *profiles, size_t n, sim_err *err):
 *   size_t k;
 *   sim_status st =
 *       sim_engprof_pick(profiles, n, "vllm@0.10.2", SIM_ENGPROF_CUDA, "--engine", &k, err);
 *   ... profiles[k] is the profile whose versions hold 0.10.2
 *   return st;
 */
sim_status sim_engprof_pick(const sim_engprof *profiles, size_t n, const char *spec,
                            sim_engprof_platform on, const char *what, size_t *pick, sim_err *err);

/* The --engine spec a benchmark's own name for its engine stands for: "vLLM 0.10.2 (...)" is
 * vllm@0.10.2, "SGLang 0.4.6.post2" sglang@0.4.6, "TensorRT-LLM 0.17 with Triton" trtllm-triton@0.17,
 * "vLLM nightly" vllm (the newest), a result file's backend "sglang-oai" sglang. `version`, when
 * not NULL, is the release (a result file's version field) instead of the one after the name.
 * False when the text names no engine infersim has profiles for, or spec is too short.
 * Example (char spec[64]):
 *   sim_engprof_spec_of("TensorRT-LLM 0.13 (C++ runtime)", NULL, spec, 64); // "trtllm@0.13"
 */
bool sim_engprof_spec_of(const char *text, const char *version, char *spec, size_t len);


/* Parses a policy name as above (TensorRT-LLM's upper-case spellings accepted). */
bool sim_engprof_policy_parse(const char *s, sim_sched_policy *out);

#endif
