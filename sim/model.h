/* model.h - a dense decoder-only transformer (Llama-style: GQA attention, gated MLP, RMSNorm,
 * rotary embeddings), read from a Hugging Face config.json as it is.
 *
 * Fields read: hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
 * num_key_value_heads (default: num_attention_heads), head_dim (default: hidden/heads),
 * vocab_size, tie_word_embeddings (default false), max_position_embeddings, torch_dtype (or
 * dtype), sliding_window / use_sliding_window, attention_bias (default: true for qwen2),
 * num_nextn_predict_layers (MTP layers, default 0), and text_config (multimodal wrappers: the
 * language model inside is read).
 *
 * A shipped model file also lists the Hugging Face ids it stands for in "infersim_hf_ids" (read
 * only by sim_model_find_hf_id).
 *
 * Mixture-of-experts configs (num_local_experts, num_experts, n_routed_experts,
 * moe_intermediate_size) and MLA configs (kv_lora_rank) are rejected with a message that says
 * so: they are never priced as if they were dense.
 */
#ifndef SIM_MODEL_H
#define SIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "status.h"

typedef struct sim_model {
    char name[96];          /* file stem, e.g. "llama-3.1-8b" */
    char path[256];         /* file it was loaded from */
    int64_t hidden;         /* d */
    int64_t intermediate;   /* f: MLP width (gate and up each d x f) */
    int64_t layers;         /* L */
    int64_t heads;          /* h_q: query heads */
    int64_t kv_heads;       /* h_kv: key/value heads (GQA) */
    int64_t head_dim;       /* hd */
    int64_t vocab;          /* V */
    int64_t max_positions;  /* longest context the model accepts */
    int64_t sliding_window; /* attention window in tokens; 0 = full attention */
    int64_t mtp_layers;     /* multi-token-prediction layers (num_nextn_predict_layers) */
    bool tied_embeddings;   /* lm_head shares the embedding matrix */
    bool qkv_bias;          /* q, k, v projections carry a bias (Qwen2) */
    bool dtype_known;       /* torch_dtype was given */
    sim_dtype dtype;        /* checkpoint format (bf16 or fp16); float32 maps to bf16 */
} sim_model;

/* The model file in `dir` (models/) whose "infersim_hf_ids" array lists the Hugging Face id `id`
 * (case-insensitive, e.g. "meta-llama/Llama-3.1-8B-Instruct"): its path in buf. When several
 * do, the first by file name. SIM_EINPUT naming the id and the folder when none does. */
sim_status sim_model_find_hf_id(const char *dir, const char *id, char *buf, size_t len,
                                sim_err *err);

/* Loads and validates a config.json. Errors name the file, field, value and what was expected. */
sim_status sim_model_load(const char *path, sim_model *m, sim_err *err);

/* Parameter count of the whole model (embeddings, every layer, final norm, lm_head unless
 * tied). */
double sim_model_params(const sim_model *m);

/* Parameters of one transformer layer. */
double sim_model_layer_params(const sim_model *m);

#endif
