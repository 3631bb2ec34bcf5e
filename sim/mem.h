/* mem.h - what a run keeps in each GPU's memory, and whether it fits.
 *
 *   need = weights / TP + KV cache of the batch at full length + activation workspace
 *          + runtime reserve
 *   capacity = HBM x gpu_memory_utilization
 *   (TensorRT-LLM's rule, SIM_MEM_OF_FREE: the KV cache may take the fraction of what weights,
 *    workspace and reserve leave: capacity = others + fraction x (HBM - others))
 *
 * The activation workspace is the peak of one layer's live tensors for the largest step (the
 * prefill of the whole batch in `run`): residual and normed hidden states, the wider of
 * {q, k, v and attention output} and {gate/up output and activation} (MoE: the routed copies of
 * the token and their expert intermediates), plus the fp32 logits of the tokens that need them.
 * With data-parallel attention a GPU holds 1/dp of the batch's attention-side activations.
 *
 * A serving engine's paged KV cache (kvcache.h) gets what the rest leaves:
 *   KV capacity = HBM x utilization - weights/TP - activation workspace - runtime reserve
 *                 (SIM_MEM_OF_FREE: utilization x (HBM - weights/TP - workspace - reserve))
 *   blocks      = floor(KV capacity / (block_size x KV bytes per token per GPU))
 */
#ifndef SIM_MEM_H
#define SIM_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "step.h"

/* Memory that rides along with the target model: a speculative draft model or heads. */
typedef struct sim_mem_extra {
    double weight_bytes;       /* their weights per GPU */
    double kv_bytes_per_token; /* their KV cache per token per GPU */
    int64_t kv_slots_per_seq;  /* extra tokens each sequence reserves (speculative verify) */
} sim_mem_extra;

typedef struct sim_mem_report {
    double weight_bytes;       /* per GPU, the extra weights included */
    double kv_bytes;           /* per GPU, whole batch at input + output (+ extra) tokens */
    double kv_bytes_per_token; /* per GPU, all layers, the extra KV included */
    double workspace_bytes;    /* activations of the largest step */
    double reserved_bytes;     /* runtime reserve (hw) */
    double need_bytes;         /* sum of the above */
    double capacity_bytes;     /* HBM x utilization */
    bool fits;
    int64_t max_batch; /* largest batch of these lengths that fits; 0 if none */
} sim_mem_report;

/* Weight bytes each GPU holds under cfg's parallelism (sim_graph_weight_bytes_par). */
double sim_mem_weight_bytes(const sim_step_cfg *cfg);

/* KV bytes one token takes per GPU under cfg's parallelism and KV format (MLA: the latent, on
 * every TP rank; data-parallel attention: the mean over the DP groups). */
double sim_mem_kv_bytes_per_token(const sim_step_cfg *cfg);

/* KV bytes one sequence of `tokens` tokens keeps per GPU: every full-attention layer all of
 * them, a sliding-window layer only its last sliding_window (what a cache that frees the blocks
 * a window has left keeps; model.h's layer_types), a linear layer its constant state
 * (sim_mem_state_bytes_per_seq). gpt-oss-120b, bf16 KV, TP 1 (2048 B per
 * token per layer, 18 + 18 layers, window 128) at 4096 tokens: 18 x 2048 x (4096 + 128) =
 * 155,713,536 B. Uniform models: tokens x sim_mem_kv_bytes_per_token. */
double sim_mem_kv_bytes_per_seq(const sim_step_cfg *cfg, double tokens);

/* The constant state one sequence keeps per GPU in a hybrid model's linear layers (conv and
 * recurrent state, sim_graph_linear_state_bytes x the linear layers; the heaviest pipeline
 * stage's share); 0 for other models. Qwen3-Next-80B at TP 1: 36 x 1,097,728 = 39,518,208 B. */
double sim_mem_state_bytes_per_seq(const sim_step_cfg *cfg);

/* Activation workspace of a step with `tokens` new tokens and `logit_tokens` needing logits. */
double sim_mem_workspace_bytes(const sim_step_cfg *cfg, double tokens, double logit_tokens);

/* KV-cache bytes per GPU that the memory plan leaves a serving engine: HBM x util - weights (the
 * target's plus extra_weight_bytes, e.g. a draft model) - workspace of a step of `max_tokens`
 * tokens and `max_seqs` logits - runtime reserve (cfg->mem_rule SIM_MEM_OF_FREE: util x (HBM -
 * the same three)). May be <= 0. */
double sim_mem_kv_capacity_bytes(const sim_step_cfg *cfg, double util, int64_t max_tokens,
                                 int64_t max_seqs, double extra_weight_bytes);

/* The usable fraction of HBM a memory plan takes (--gpu-memory-utilization), checked before any
 * plan: SIM_OK for util in (0, 1], else SIM_EINPUT "--gpu-memory-utilization: value 1.5,
 * expected a number in (0, 1]" (NaN too). The static batch's check (run.h) and the serving
 * engine's (engine.h) both ask it. */
sim_status sim_mem_check_util(double util, sim_err *err);

/* Memory plan of a static batch of `batch` sequences of input_len + output_len tokens.
 * util is the usable fraction of HBM (0, 1]; extra may be NULL. */
void sim_mem_plan(const sim_step_cfg *cfg, double util, const sim_mem_extra *extra, int64_t batch,
                  int64_t input_len, int64_t output_len, sim_mem_report *out);

/* The bad-input error for a plan that does not fit: "needs 141.1 GB per GPU, has 72.0 GB ...". */
sim_status sim_mem_fail(const sim_mem_report *r, const sim_step_cfg *cfg, sim_err *err);

#endif
