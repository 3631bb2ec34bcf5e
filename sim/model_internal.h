/* model_internal.h - what model.c shares with model_linear.c (private to the model module). */
#ifndef SIM_MODEL_INTERNAL_H
#define SIM_MODEL_INTERNAL_H

#include <cjson/cJSON.h>

#include "model.h"

/* Qwen3-Next (qwen3_next): the Gated DeltaNet layers (layer_types already counted into
 * m->linear_layers by model.c, else full_attention_interval), their shape, the gated attention
 * of the others. */
sim_status sim_model_read_qwen3_next(const cJSON *cfg, const char *path, sim_model *m,
                                     sim_err *err);

/* DeepSeek-V3.2 (deepseek_v32): MLA (read already) with the lightning indexer's index_topk,
 * index_n_heads and index_head_dim, all required. */
sim_status sim_model_read_dsa(const cJSON *cfg, const char *path, sim_model *m, sim_err *err);

/* Nemotron-H (nemotron_h): hybrid_override_pattern's Mamba-2, attention and MLP blocks, the
 * Mamba-2 shape, the relu2 MLP. */
sim_status sim_model_read_nemotron_h(const cJSON *cfg, const char *path, sim_model *m,
                                     sim_err *err);

/* The vision encoder of a multimodal checkpoint (model_vision.c): Qwen2.5-VL's (model_type
 * qwen2_5_vl), Gemma 3's SigLIP (a gemma3 wrapper), Llama 4's (a llama4 wrapper), from root's
 * vision_config; its parameters into m->vision_params. Other wrappers' towers are not priced. */
sim_status sim_model_read_vision(const cJSON *root, const cJSON *cfg, const char *path,
                                 sim_model *m, sim_err *err);

#endif
