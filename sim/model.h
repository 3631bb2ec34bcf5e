/* model.h - a decoder-only transformer (Llama-style: GQA or MLA attention, a gated MLP or a mixture
 * of experts, RMSNorm, rotary embeddings), read from a Hugging Face config.json as it is.
 *
 * Fields read: hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
 * num_key_value_heads (default: num_attention_heads), head_dim (default: hidden/heads),
 * vocab_size, tie_word_embeddings (default false), max_position_embeddings, torch_dtype (or
 * dtype), sliding_window / use_sliding_window, attention_bias (default: true for qwen2),
 * num_nextn_predict_layers (MTP layers, default 0), text_config (multimodal wrappers: the
 * language model inside is read), vision_config (Qwen2.5-VL, Gemma 3, Llama 4: the vision
 * encoder, model_vision.c), and quantization_config (quant.h: the defaults of the dtype
 * flags for a quantized checkpoint).
 *
 * infersim_hf_ids (optional) lists the Hugging Face ids a shipped file stands for, so that
 * `--model meta-llama/Llama-3.1-8B-Instruct` finds models/llama-3.1-8b.json.
 *
 * Mixture of experts, as each family publishes it:
 *   Mixtral, gpt-oss   num_local_experts, num_experts_per_tok (gpt-oss: experts_per_token); each
 *                      expert is intermediate_size wide; every layer is MoE
 *   Qwen2/3-MoE        num_experts, num_experts_per_tok, moe_intermediate_size,
 *                      shared_expert_intermediate_size (Qwen2-MoE, with a d -> 1 sigmoid gate),
 *                      decoder_sparse_step (layer i is MoE when (i+1) % step == 0), mlp_only_layers
 *   DeepSeek-V2/V3     n_routed_experts, num_experts_per_tok, moe_intermediate_size,
 *                      n_shared_experts (each moe_intermediate_size wide), first_k_dense_replace,
 *                      moe_layer_freq (layer i is MoE when i >= first_k_dense_replace and
 *                      i % moe_layer_freq == 0); dense layers are intermediate_size wide;
 *                      n_group, topk_group (node-limited routing: the experts in n_group equal
 *                      groups by id, each token's k picked from its topk_group best groups;
 *                      optional, absent or n_group 1 is no limit; topk_group groups must hold k
 *                      experts)
 * A MoE config missing a field it needs (the top-k, the expert width) is an error naming it.
 *
 * Multi-head latent attention (DeepSeek-V2/V3), when kv_lora_rank is given: q_lora_rank (null:
 * a plain query projection), qk_nope_head_dim, qk_rope_head_dim, v_head_dim (all required).
 * Per-layer attention kinds (gpt-oss): layer_types, a list of "sliding_attention" /
 * "full_attention" with sliding_window; without it a sliding_window applies to every layer.
 * gpt-oss (model_type gpt_oss) also has attention sinks (one learned logit per head), biases on
 * the o projection, the router and the experts. Qwen3 (model_type qwen3, qwen3_moe) normalizes q
 * and k per head (q_norm, k_norm).
 * Hybrid layer plans (model_linear.c): Qwen3-Next (qwen3_next: layer_types' linear_attention or
 * full_attention_interval; linear_num_key_heads, linear_num_value_heads, linear_key_head_dim,
 * linear_value_head_dim, linear_conv_kernel_dim, all required; attn_output_gate, default true) and
 * Nemotron-H (nemotron_h: hybrid_override_pattern of M, *, - blocks; mamba_num_heads,
 * mamba_head_dim, ssm_state_size, n_groups, conv_kernel required; chunk_size (256),
 * use_conv_bias (true), mlp_hidden_act relu2). DeepSeek-V3.2 (deepseek_v32): MLA with
 * index_topk, index_n_heads, index_head_dim (required).
 */
#ifndef SIM_MODEL_H
#define SIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "quant.h"
#include "status.h"

/* The token mixer of a model's linear layers. */
typedef enum sim_linear_kind {
    SIM_LINEAR_NONE,
    SIM_LINEAR_GDN,    /* Gated DeltaNet (Qwen3-Next): gated delta rule, FLA's chunked kernels */
    SIM_LINEAR_MAMBA2, /* Mamba-2 SSD (Nemotron-H): mamba_chunk_scan_combined, selective update */
} sim_linear_kind;

/* A multimodal checkpoint's vision encoder (model_vision.c): a ViT over an image's patches, then
 * the merger / projector that writes the language model's image tokens. */
typedef enum sim_vision_kind {
    SIM_VISION_NONE,
    SIM_VISION_QWEN25, /* Qwen2.5-VL: dynamic resolution, 2x2 spatial merge, window attention */
    SIM_VISION_SIGLIP, /* Gemma 3: SigLIP at a fixed 896 x 896, pooled to mm_tokens_per_image */
    SIM_VISION_LLAMA4, /* Llama 4: 336 x 336 tiles (+ a global one), pixel shuffle 0.5 */
} sim_vision_kind;

typedef struct sim_vision {
    sim_vision_kind kind;
    int64_t depth, hidden, intermediate, heads; /* the ViT's layers and widths */
    int64_t patch;          /* patch side in pixels */
    int64_t in_patch;       /* values of one patch into the patch embedding (channels x frames x
                               patch^2) */
    int64_t merge;          /* patches merged per LM token along each side (Qwen: spatial_merge_size;
                               Gemma 3: the 4 x 4 average pool; Llama 4: 1 / pixel_shuffle_ratio) */
    int64_t window;         /* Qwen2.5-VL: window side in merged tokens (window_size / merge /
                               patch); 0: every layer full */
    int64_t full_layers;    /* layers with full attention (the others windowed) */
    int64_t image_size;     /* fixed input side (SigLIP 896, a Llama 4 tile 336); 0: dynamic */
    int64_t min_pixels, max_pixels; /* Qwen's smart_resize bounds */
    int64_t fixed_tokens;   /* LM tokens per image when fixed (Gemma 3's mm_tokens_per_image) */
    int64_t max_tiles;      /* Llama 4: local tiles at most */
    int64_t merger_in, merger_mid, merger_out; /* the merger / adapter MLP in -> mid -> out
                                                  (0: none) */
    int64_t out_hidden;     /* the language model width the projection writes */
    int64_t proj_in;        /* a last projection's input width into out_hidden (0: none) */
    bool gated_mlp;         /* SwiGLU MLP (Qwen2.5-VL), else fc1 -> GELU -> fc2 */
    bool class_token;       /* a class token per tile (Llama 4) */
} sim_vision;

/* One image as the encoder sees it (sim_model_vision_image). */
typedef struct sim_vision_image {
    int64_t tiles;       /* encoder sequences (Llama 4's tiles; 1 otherwise) */
    int64_t patches;     /* encoder tokens over all tiles */
    int64_t merged;      /* rows into the merger / projector */
    int64_t tokens;      /* the language model's placeholder tokens for it */
    double full_pairs;   /* query-key pairs of one full-attention layer (non-causal) */
    double window_pairs; /* of one windowed layer (Qwen2.5-VL); 0 without windows */
    int64_t resized_w, resized_h; /* the pixels it is resized to (Qwen's smart_resize; the tile
                                     canvas of Llama 4; SigLIP's fixed square) */
} sim_vision_image;

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
    bool mtp_shared_fc;     /* one TP-sharded 2d -> d fc for all MTP layers (Qwen3-Next), not
                               one unsharded eh_proj per layer (DeepSeek) */
    bool tied_embeddings;   /* lm_head shares the embedding matrix */
    bool qkv_bias;          /* q, k, v projections carry a bias (Qwen2) */
    bool dtype_known;       /* torch_dtype was given */
    sim_dtype dtype;        /* checkpoint format (bf16 or fp16); float32 maps to bf16 */
    /* per-layer attention */
    int64_t sliding_layers; /* layers that use sliding_window (all of them unless layer_types) */
    bool attn_sinks;        /* a learned sink logit per head (gpt-oss) */
    bool o_bias;            /* o_proj carries a bias (gpt-oss) */
    bool qk_norm;           /* per-head RMSNorm of q and k (Qwen3) */
    int64_t extra_norms;    /* RMSNorm weight vectors a layer has beyond the usual two (Gemma 3: 2) */
    bool chunked_attn;      /* the sliding_layers attend within aligned chunks of sliding_window
                               tokens (Llama 4's iRoPE), not a sliding window */
    double vision_params;   /* a multimodal checkpoint's vision tower and projector: held in
                               memory (Llama 4, Gemma 3, Qwen2.5-VL) */
    sim_vision vision;      /* its encoder, priced per image (kind NONE: none) */
    /* hybrid layer plans (model_linear.c; 0 for a plain decoder, whose every layer has
     * attention and an MLP): layers whose token mixer is a linear-attention / state-space
     * layer (no per-token KV: a constant state per sequence), layers with no token mixer
     * (Nemotron-H's MLP blocks), layers with no MLP (Nemotron-H's Mamba and attention blocks).
     * sim_model_attn_layers and sim_model_mlp_layers give the others. */
    int64_t linear_layers, no_mixer_layers, no_mlp_layers;
    sim_linear_kind linear_kind;
    /* the linear mixer's shape, one name for both kinds (heads are split by TP):
     *   Gated DeltaNet  lin_k_heads q/k heads (linear_num_key_heads) of lin_k_dim, lin_v_heads
     *                   v heads (linear_num_value_heads) of lin_v_dim; state per v head
     *                   lin_k_dim x lin_v_dim
     *   Mamba-2         lin_k_heads = n_groups (B and C, each of lin_k_dim = ssm_state_size),
     *                   lin_v_heads = mamba_num_heads of lin_v_dim = mamba_head_dim; state per
     *                   head lin_k_dim x lin_v_dim
     * conv_dim = 2 lin_k_heads lin_k_dim + lin_v_heads lin_v_dim channels in both. */
    int64_t lin_k_heads, lin_v_heads, lin_k_dim, lin_v_dim;
    int64_t lin_conv_kernel; /* causal depthwise conv taps (linear_conv_kernel_dim, conv_kernel) */
    int64_t lin_chunk;       /* prefill scan chunk (GDN 64 as FLA runs it; Mamba-2 chunk_size) */
    bool lin_conv_bias;      /* the conv carries a bias (Mamba-2's use_conv_bias) */
    bool mlp_ungated;        /* the dense MLP is up -> act -> down (Nemotron-H's relu2), no gate */
    bool attn_out_gate;      /* q_proj also yields a sigmoid gate on the attention output
                                (Qwen3-Next's gated attention: heads x head_dim more outputs) */
    /* mixture of experts: experts == 0 is a dense model */
    int64_t experts;             /* E: routed experts per MoE layer */
    int64_t experts_per_tok;     /* k: experts each token is routed to */
    int64_t route_groups;        /* n_group: experts in this many equal groups by id (0: none) */
    int64_t route_topk_groups;   /* topk_group: a token's experts come from this many of them */
    int64_t moe_intermediate;    /* width of one routed expert's gated MLP */
    int64_t shared_intermediate; /* width of the always-on shared expert(s), all together; 0 none */
    bool shared_expert_gate;     /* Qwen2-MoE: a d -> 1 sigmoid gate scales the shared expert */
    bool moe_bias;               /* router and experts carry biases (gpt-oss) */
    int64_t moe_layers;          /* layers whose MLP is a MoE block; the others are dense */
    /* multi-head latent attention: mla false is GQA/MHA */
    bool mla;
    int64_t q_lora_rank;  /* 0: queries are a plain d -> heads x (nope + rope) projection */
    int64_t kv_lora_rank; /* the compressed latent cached per token */
    int64_t qk_nope_dim, qk_rope_dim, v_head_dim;
    /* DeepSeek Sparse Attention (deepseek_v32; 0: dense MLA): each query attends to the
     * index_topk cached tokens the lightning indexer scores highest (index_heads heads of
     * index_head_dim over its own fp8 key cache; graph_dsa.c) */
    int64_t index_topk, index_heads, index_head_dim;
    sim_quant quant; /* quantization_config (quant.present false without one) */
} sim_model;

/* The model file that stands for a Hugging Face id ("meta-llama/Llama-3.1-8B-Instruct"): the
 * first models/NAME.json, in the data roots' order (find.h), whose "infersim_hf_ids" array holds
 * the id (compared without regard to case, as the Hub does). Its path goes to out; false when
 * none does. Files that do not parse are skipped here (loading the one found reports its
 * errors). */
bool sim_model_find_hf(const char *id, char *out, size_t len);

/* Loads and validates a config.json. Errors name the file, field, value and what was expected. */
sim_status sim_model_load(const char *path, sim_model *m, sim_err *err);

/* Parameter count of the whole model (embeddings, every layer, final norm, lm_head unless
 * tied). MTP layers are not counted (DeepSeek-V3's 671B leaves them out too). */
double sim_model_params(const sim_model *m);

/* Parameters one token's forward pass multiplies by: every layer's attention and norms, the
 * dense MLPs, the router, k routed experts and the shared expert of each MoE layer, the final
 * norm and the LM head. The input embedding is a row lookup and is left out, as DeepSeek-V3's
 * (37B) and gpt-oss's (5.1B) model cards count; Mixtral's 12.9B and Qwen3's cards add the
 * embedding table (sim_model_embedding_params). Equal to sim_model_params minus the embedding
 * for a dense model with untied embeddings. */
double sim_model_active_params(const sim_model *m);

/* The input embedding table: V x d. */
double sim_model_embedding_params(const sim_model *m);


/* Parameters of one layer's attention block (projections, biases, sinks, q/k norms; MLA's down
 * and up projections and their norms). */
double sim_model_attn_params(const sim_model *m);

/* Layers with an attention mixer (full, sliding or chunked): those neither linear nor mixer-free. */
static inline int64_t sim_model_attn_layers(const sim_model *m)
{
    return m->layers - m->linear_layers - m->no_mixer_layers;
}

/* Layers with an MLP (dense or MoE). */
static inline int64_t sim_model_mlp_layers(const sim_model *m) { return m->layers - m->no_mlp_layers; }

/* Parameters of one layer's lightning indexer (DeepSeek-V3.2: wq_b q_lora x heads x dim, wk
 * d x dim, weights_proj d x heads, k_norm's LayerNorm 2 x dim; vLLM's Indexer in
 * model_executor/models/deepseek_v2.py); 0 without DSA. 1536 x 8192 + 7168 x 128 + 7168 x 64 +
 * 256 = 13,959,424. */
double sim_model_indexer_params(const sim_model *m);

/* Parameters of one linear-attention / state-space layer's mixer (model_linear.c): Gated
 * DeltaNet: in_proj_qkvz d x (2 hk dk + 2 hv dv), in_proj_ba d x 2 hv, conv1d conv_dim x K,
 * dt_bias and A_log (hv each), the gated norm (dv), out_proj hv dv x d. Mamba-2: in_proj
 * d x (2 hv dv + 2 G N + hv) (z, x, B, C, dt), conv1d conv_dim x K (+ conv_dim bias), dt_bias,
 * A_log, D (hv each), the gated norm (hv dv), out_proj hv dv x d. 0 without linear layers. */
double sim_model_linear_params(const sim_model *m);

/* model_vision.c: one image of width x height pixels (each >= 1) as the model's vision encoder
 * takes it. Qwen2.5-VL: resized to multiples of patch x merge (28) within [min_pixels,
 * max_pixels] (smart_resize), patches (h/14)(w/14), tokens a quarter of them, windows of
 * 8 x 8 patches; Gemma 3: 4096 patches, 256 tokens whatever the size; Llama 4: the tile canvas
 * get_best_fit picks (rows x cols <= max_tiles, the least upscale, else the least downscale),
 * plus a global tile when more than one, 577 patches and 144 tokens each. False when the model
 * has no vision encoder.
 * A 1280 x 720 image on Qwen2.5-VL resizes to 1288 x 728: 92 x 52 = 4784 patches, 1196 tokens.
 * Example (const sim_model *m):
 *     sim_vision_image im;
 *     bool has_encoder = sim_model_vision_image(m, 1280, 720, &im);
 *     ... im.tokens: the image's placeholder tokens in the prompt
 */
bool sim_model_vision_image(const sim_model *m, int64_t width, int64_t height,
                            sim_vision_image *out);

/* Parameters of the vision encoder and its projector (0 without one). */
double sim_model_vision_params(const sim_vision *v);

/* Parameters of one routed expert (gate, up, down and their biases). */
double sim_model_expert_params(const sim_model *m);

#endif
