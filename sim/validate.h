/* validate.h - predictions against public measurements, and fitting a device's efficiencies to
 * them.
 *
 * The measurements live in a normalized CSV (tools/data/validation.csv, made from
 * tools/data/calibration.csv with every row's source kept): one row per measurement, its kind
 * and parameters in columns:
 *   id, kind (gemm | attention | copy | allreduce | allreduce_norm | fused_allreduce_norm |
 *   grouped_gemm | alltoall | e2e | ttft | serve; the norm kinds use gpus, bytes = tokens x
 *   hidden x 2 and n = hidden), hw, dtype, gpus, m, n, k, batch,
 *   seq, heads, head_dim, causal, bytes, model, tp, input_len, output_len, weight_dtype,
 *   act_dtype, kv_dtype, framework, metric, value, unit, skip (a reason it cannot be expressed),
 *   source, group_size, act_quant, algo (allreduce rows: the algorithm the measurement ran;
 *   e2e and ttft rows: the engine's all-reduce; a --allreduce value or nccl; empty = auto), trust
 *   (high | medium | low | empty: low-trust rows are predicted and printed but left out of the
 *   summaries, the gate and the fit), request_rate (serve rows: requests per second of
 *   Poisson arrivals; empty or inf: all at t = 0), range_ratio (serve rows: input and output
 *   lengths uniform in [L(1 - R), L(1 + R)], vLLM's --random-range-ratio; empty: 0, fixed).
 *   Files without the last six columns (27) are read with them empty; the extra columns may come
 *   in any order after `source`.
 * A gemm row computes in `dtype` with weights stored as `weight_dtype` (default: dtype; a
 * narrower format is a mixed-input kernel, W4A16 or W4A8), in groups of `group_size` weights per
 * scale (empty or 0: per channel); `act_quant` true adds the dynamic quantization of its input
 * (the kernel the benchmark timed with the GEMM).
 * An end-to-end row (e2e, ttft, serve) runs its model in the formats its weight_dtype, act_dtype,
 * kv_dtype and group_size columns give; an empty one takes the default a run of that model on
 * that device takes (sim_graph_prec_defaults: the checkpoint's quantization_config, else its
 * torch_dtype, ...).
 * Metrics: tflops, latency_ms, tb_per_s, busbw_gb_per_s (ops); e2e_s, ttft_ms (static batches);
 * output_tps (serve: `batch` requests of input_len / output_len tokens, sent at request_rate, under
 * continuous batching; output tokens per second over the run), duration_s (serve: the run's
 * duration in seconds, for benchmarks whose requests stopped early at an end-of-sequence token,
 * where output tokens per second would count tokens that were never generated), and
 * mean_/median_ ttft_ms, tpot_ms, itl_ms, e2el_ms (serve: as `vllm bench serve` reports them,
 * metrics.h); avg_power_w and joules_per_output_token (e2e and serve rows: the power estimate,
 * power.h, of the run; measured by nvidia-smi / NVML over the benchmark).
 * metrics.h).
 * spec: a static batch (model, batch, tp, input_len, output_len, formats as e2e rows) run with
 * speculative decoding against the same run without it; `algo` gives the speculation as
 * "METHOD DEPTH TOPK TOKENS TAU": the method (eagle, eagle3, medusa, mtp, ngram), the draft depth,
 * the width of every level past the first (1: a chain), the tree tokens verified (the root
 * included) and the acceptance length the measurement reported (its source says where). Metrics:
 * speedup (plain decode time per token over speculative: TPOT's ratio) and throughput_ratio
 * (output tokens per second of the whole run, prefill included).
 * grouped_gemm: `batch` groups (experts) of m x n x k each, priced as the MoE layers' grouped
 * GEMM. alltoall: an MoE dispatch or combine over `gpus` ranks as DeepEP's kernels run it
 * (a2a.h), `bytes` the routed data each GPU holds (tokens x top-k x row bytes, its own share
 * included); `algo` the mode: low_latency (latency_ms of m tokens per rank of n values in
 * `dtype`, fp8 with its scales, each to its k experts of `batch`), normal (busbw_gb_per_s as
 * DeepEP's tests count it: the logical NVLink bytes within a node, the logical RDMA bytes
 * across nodes, sim_a2a_normal_logical_bytes; `heads` routing groups a token may pick when the
 * test limits it to that many nodes, empty: no limit), low_latency_rdma or empty (DeepEP's first
 * low-latency kernels, every peer over RDMA even within a node: `bytes` sent, latency_ms).
 * decode_attention: `batch` sequences each decoding one token over `seq` cached tokens,
 * `heads` query heads and n = KV heads of `head_dim`, the cache in `dtype`; `algo` names the
 * kernel as dattn.h does (split, fa2, vllm-paged, trtllm-0.11); with k (the value width) given,
 * MLA's absorbed decode as FlashMLA's test runs it: m query tokens per sequence (empty: 1), one
 * latent of head_dim values per cached token, values k wide (dattn.h).
 *
 * Op-level predictions price ONE op as the step model would (the GEMM, the fused attention, a
 * device copy, an all-reduce by its algorithm, alone or followed by a norm), with the per-kernel
 * cost of back-to-back launches; end-to-end
 * rows run `run`. Fitting (sim_validate_fit) uses op-level rows only: end-to-end rows stay a test
 * of the whole model, never a target.
 */
#ifndef SIM_VALIDATE_H
#define SIM_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collective.h"
#include "hw.h"
#include "model.h"
#include "engine.h"
#include "metrics.h"
#include "step.h"
#include "unc.h"

typedef enum sim_vkind {
    SIM_VK_GEMM,
    SIM_VK_ATTENTION,
    SIM_VK_COPY,
    SIM_VK_ALLREDUCE,
    SIM_VK_ALLREDUCE_NORM,       /* an all-reduce kernel, then residual add + RMSNorm */
    SIM_VK_FUSED_ALLREDUCE_NORM, /* the two in one kernel (--fuse-allreduce-norm) */
    SIM_VK_GROUPED_GEMM,
    SIM_VK_ALLTOALL,
    SIM_VK_DECODE_ATTENTION, /* one decode token per sequence over a KV cache (dattn.h) */
    SIM_VK_MOE_LAYER, /* a fused MoE layer as vLLM's benchmark_moe times it (moe.h) */
    SIM_VK_E2E,
    SIM_VK_TTFT,
    SIM_VK_SERVE,
    SIM_VK_SPEC, /* speculative decoding: a speed-up over the same run without it */
    SIM_VK_COUNT
} sim_vkind;

typedef struct sim_vrow {
    int64_t id;
    sim_vkind kind;
    char hw[48], model[48], framework[256], metric[24], unit[16], skip[160], source[200];
    sim_dtype dtype, weight, act, kv;
    int64_t gpus, m, n, k, batch, seq, heads, head_dim, bytes, tp, input_len, output_len;
    int64_t group_size; /* gemm: weights per scale of dequantized integer weights (0: channel) */
    /* end-to-end rows: which of weight_dtype, act_dtype, kv_dtype, group_size were filled; the
     * others are the model's defaults on the device (sim_graph_prec_defaults) */
    bool weight_set, act_set, kv_set, group_size_set;
    bool causal;
    bool act_quant;     /* gemm: the timing includes the dynamic quantization of the input */
    sim_coll_algo algo; /* allreduce rows: the algorithm measured; e2e: the engine's */
    sim_dattn_kernel dattn; /* decode_attention rows: the kernel measured (the algo column) */
    /* alltoall rows: the DeepEP kernels measured (the algo column: normal, low_latency, or
     * low_latency_rdma / empty for the first low-latency kernels, every peer over RDMA) */
    sim_a2a_mode a2a;
    bool a2a_rdma_only;
    /* grouped_gemm and moe_layer rows: the kernel family and layout measured (the algo column:
     * triton, deepgemm-contiguous, deepgemm-masked, cutlass, ck; empty: triton) */
    sim_moe_kernel moe_kernel;
    int block_fp8;      /* gemm: block-scaled fp8 (algo block-fp8-triton 1, block-fp8-deepgemm 2) */
    bool moe_decode;
    bool low_trust;     /* shown, but out of the summaries, the gate and the fit */
    double request_rate; /* serve rows: Poisson arrivals per second; INFINITY: all at t = 0 */
    double range_ratio;  /* serve rows: lengths uniform in [L(1 - R), L(1 + R)]; 0: fixed */
    char spec[96];      /* spec rows: the algo column, "METHOD DEPTH TOPK TOKENS TAU" */
    double value;       /* measured, in `metric`'s unit */
    int64_t line;       /* in the CSV */
} sim_vrow;

/* "gemm", ... */
const char *sim_vkind_name(sim_vkind k);

/* Whether `metric` is a serve row's latency metric: mean_ or median_ ttft_ms, tpot_ms, itl_ms or
 * e2el_ms, as `vllm bench serve` names them. */
bool sim_validate_is_serve_latency(const char *metric);

/* The serve latency metric named `metric`: the distribution it reads in *which and whether its
 * median (else its mean) in *median; false, both untouched, when it names none. */
bool sim_validate_serve_latency(const char *metric, sim_metric *which, bool *median);

/* Whether `metric` is one of the power estimate's (power.h): avg_power_w (W per GPU) or
 * joules_per_output_token (J, every GPU), which e2e and serve rows may measure. Their errors are
 * summarized apart from the latency and throughput rows' and gated by none of the medians. */
bool sim_validate_is_energy(const char *metric);

/* True for the op-level kinds (gemm, attention, copy, allreduce, the all-reduce + norms,
 * grouped_gemm, alltoall, decode_attention, moe_layer). A moe_layer row is one MoE layer's
 * experts as benchmark_moe.py runs fused_moe on precomputed router logits (top-k, permute, the
 * two grouped GEMMs, the activation, unpermute) under uniform routing on one GPU: m tokens,
 * batch experts, heads = top-k, k = hidden, n = each expert's width on the GPU (the N of vLLM's
 * tuned config files, E=..,N=..). */
bool sim_vkind_is_op(sim_vkind k);

/* Reads the CSV. *rows is owned by the caller (free). Errors name the file and line. */
sim_status sim_validate_load(const char *path, sim_vrow **rows, size_t *n, sim_err *err);

/* An end-to-end row's precision: the formats its columns give, the rest what a run of `model` on
 * `hw` takes by default (sim_graph_prec_defaults). */
sim_status sim_validate_row_prec(const sim_vrow *r, const sim_model *model, const sim_hw *hw,
                                 sim_prec *out, sim_err *err);

/* The prediction of an op-level row on `hw`, in the row's metric. */
sim_status sim_validate_op(const sim_vrow *row, const sim_hw *hw, double *predicted, sim_err *err);

/* The prediction of an end-to-end row: `run` of the row's batch with `tmpl`'s overheads and launch
 * settings on (model, hw). */
sim_status sim_validate_e2e(const sim_vrow *row, const sim_model *model, const sim_hw *hw,
                            const sim_step_cfg *tmpl, double *predicted, sim_err *err);

/* The smallest measured value taken (in the metric's unit: ms, s, TFLOP/s, TB/s, GB/s): below it
 * the relative error of a prediction could overflow to inf. */
#define SIM_VALIDATE_MIN_MEASURED 1e-6

/* Size buckets of op-level rows, so a regression in one regime cannot hide in a median: the
 * bytes an op moves (a GEMM's inputs, weights and output; attention's Q, K, V and O; a copy's
 * bytes; an all-reduce's message) up to 64 KiB, up to 4 MiB, larger. */
enum { SIM_VBUCKET_COUNT = 3 };

/* The bytes an op-level row moves, as above. */
double sim_validate_size_bytes(const sim_vrow *r);

/* The row's bucket, 0 .. SIM_VBUCKET_COUNT - 1, and its label ("<= 64 KB", ...). */
int sim_validate_bucket(const sim_vrow *r);
const char *sim_validate_bucket_name(int bucket);

/* The seed of a serve row's arrival draws (fixed: a row predicts the same on every run). */
#define SIM_VALIDATE_SERVE_SEED 0

/* The prediction of a serve row: the engine `tmpl` (scheduler, KV sizing, host costs; its step's
 * model, device, TP and precision are the row's) serving the row's requests, all at t = 0 or, at
 * a finite request_rate, in Poisson arrivals, their lengths drawn in the row's range_ratio
 * (sim_workload_synthetic, burstiness 1, seed SIM_VALIDATE_SERVE_SEED). */
sim_status sim_validate_serve(const sim_vrow *row, const sim_model *model, const sim_hw *hw,
                              const sim_engine_cfg *tmpl, double *predicted, sim_err *err);

/* A spec row's prediction (speedup or throughput_ratio). tmpl as for sim_validate_e2e, the
 * plain run's; the speculative run's CPU work overlaps the GPU only with spec_async (the engine's
 * rule, sim_spec_engine_async); prop is the engine's proposer (sim_spec_proposer_for; NULL: a
 * zeroed one). The algo column is "METHOD DEPTH TOPK TOKENS TAU" with, for eagle3, an optional
 * sixth "dv=N": the head's draft_vocab_size. */
sim_status sim_validate_spec(const sim_vrow *r, const sim_model *model, const sim_hw *hw,
                             const sim_step_cfg *tmpl, bool spec_async,
                             const sim_spec_proposer *prop, double *pred, sim_err *err);

/* Signed relative error in percent. */
double sim_validate_error_pct(double predicted, double measured);

/* Median and p90 of |errors| (linear interpolation). n may be 0. */
void sim_validate_summary(const double *abs_err_pct, size_t n, double *median, double *p90);

#define SIM_FIT_MAX_PARAMS 40

/* One parameter a fit moved, in the device file's unit. */
typedef struct sim_fit_param {
    char name[48];  /* dotted device-file field: "efficiency.gemm.fp8", "quant.gemm_memory.fp8" */
    char group[24]; /* the rows it was fitted on: "16-bit and non-GEMM", "fp8", ... */
    double before, value;
    size_t rows; /* rows of its group */
} sim_fit_param;

typedef struct sim_fit_report {
    size_t rows;                        /* op-level rows of the device used */
    double before_median, after_median; /* |error| % over those rows */
    double loo_median;                  /* leave-one-out |error| %: each row predicted by a fit
                                         * of its group without it */
    size_t n_params;                    /* parameters that moved */
    sim_fit_param params[SIM_FIT_MAX_PARAMS];
    char fitted[2048]; /* "efficiency.gemm.bf16 0.80 -> 0.74, ..." */
    size_t n_held;     /* parameters the rows constrain that kept their value (already fitted,
                        * or a fit that did not lower its group's loss): fitted on those rows
                        * all the same (the provenance calibrate writes) */
    sim_fit_param held[SIM_FIT_MAX_PARAMS];
} sim_fit_report;

/* Fits hw's efficiencies to the op-level rows whose `hw` column is `name`, minimizing the sum of
 * squared relative errors by coordinate descent (deterministic). Each format is fitted on its own
 * rows only: the 16-bit GEMM efficiency and K term, attention, memory, network, collective fixed
 * cost and per-hop latency on the 16-bit GEMM and non-GEMM rows; a quantized compute format's
 * efficiency, K term (quant.gemm_k_half) and streaming fraction (quant.gemm_memory) on its GEMM
 * rows; the mixed-input efficiency and streaming fractions (quant.mixed_input_memory) on the
 * mixed-input GEMM rows. Values are rounded as the file stores them (4 decimals), and a move that
 * does not lower its group's loss is dropped, so refitting a fitted file changes nothing.
 * Parameters no row constrains stay. The report adds each row's leave-one-out error. */
sim_status sim_validate_fit(const sim_vrow *rows, size_t n, const char *name, sim_hw *hw,
                            sim_fit_report *report, sim_err *err);

/* One piece of evidence for the uncertainty table (unc.h): a row's residual. */
typedef struct sim_unc_evidence {
    bool e2e;              /* an end-to-end row (engine evidence), else an op-level one */
    sim_unc_family family; /* op rows: the family whose parameters priced it */
    sim_unc_prov prov;     /* op rows: the provenance of those parameters when it was priced */
    char scope[32];        /* op rows: the device's arch; e2e rows: the version-exact engine
                            * profile ("vllm-0.11", ":moe" for a MoE model) */
    char engine_scope[32]; /* e2e rows: every version of its engine ("vllm@*", ":moe") */
    char source[200];      /* the row's source document (sim_validate_source_key) */
    int source_id;         /* the same as a number: rows of one document share it (0 ..
                            * SIM_UNC_MAX_SOURCES - 1; sim_validate_source_ids) */
    double log_err;        /* log(predicted / measured) */
    double op_var;         /* e2e rows: the variance of log(prediction) over draws of the op
                            * families alone (what the kernels' own error explains) */
} sim_unc_evidence;

/* The family an op-level row's prediction reads (unc.h): a GEMM by its formats (a memory-bound
 * 16-bit one: memory), a grouped GEMM or a fused MoE layer by its formats, attention, decode
 * attention, a copy (memory), collectives (network). */
sim_unc_family sim_validate_row_family(const sim_vrow *r, const sim_hw *hw);

/* The document a row's source cites, the unit leave-one-source-out leaves out: the text before
 * the first " @" (a commit), " (" or ";" (notes on the rows), so the rows one README or one
 * results file gives, whatever their notes say, are one source ("ovg-project/kvcached
 * benchmarks/bench_kvcached_overhead/README.md"). */
void sim_validate_source_key(const char *source, char *buf, size_t len);

/* Numbers the evidence's sources, in the order first met (one number per distinct document;
 * past SIM_UNC_MAX_SOURCES - 1 documents the last number is shared). */
enum { SIM_UNC_MAX_SOURCES = 4096 };
void sim_validate_source_ids(sim_unc_evidence *ev, size_t n);

/* The least rows behind a sigma of its own: fewer, and the pooled sigma of the provenance (every
 * family's rows) stands in. */
#define SIM_UNC_MIN_ROWS 3

/* Builds the table from the evidence, leaving out every row whose source is `exclude` (NULL:
 * none), so a row never vouches for itself:
 *   op families: sigma = RMS of log_err over the family's rows of that provenance (per arch
 *     with SIM_UNC_MIN_ROWS rows, and over all devices as "*"); a family or provenance with fewer
 *     rows takes the pooled RMS of every family's rows of that provenance; a weaker provenance
 *     never narrows the band (inherited >= fitted, default >= inherited);
 *   engine: per version-exact engine profile with SIM_UNC_MIN_ROWS end-to-end rows, the
 *     variance the op families do not explain: each row needs (log_err / z90)^2 - op_var
 *     (>= 0, z90 = 1.2816) for its measurement to sit inside an 80 % band around its
 *     prediction; sigma is the root of the 80th percentile of that need over the profile's rows
 *     ("fitted"; the scope of a MoE model's rows is "NAME:moe", unc.h); the same per engine over
 *     all its versions ("ENGINE@*", for a version without rows of its own); "*" default (an
 *     engine without end-to-end rows): the same over all dense rows, "*:moe" over the MoE rows.
 *     (Each row's need is measured from its prediction, so it already holds its engine's mean
 *     error: the spread between engines is in the pooled rows once.) Each entry counts the
 *     sources (documents) behind its rows;
 *   power: the RMS log error of the energy rows (family SIM_UNC_POWER, provenance default: the
 *     whole energy estimate's error, its step times' part included), "*" only.
 * Returns false when the table is full. */
bool sim_validate_unc_table(const sim_unc_evidence *ev, size_t n, const char *exclude,
                            sim_unc_table *out);

#endif
