/* quant.h - a checkpoint's quantization_config (Hugging Face config.json), read once.
 *
 * The config says how the published weights are stored and, for some methods, how activations
 * and the KV cache are quantized. It sets the DEFAULTS of --weight-dtype, --act-dtype,
 * --kv-cache-dtype and --weight-group-size (explicit flags win). Methods understood:
 *
 *   quant_method          weights                         activations         group / zeros
 *   fp8, fbgemm_fp8       fp8                             fp8 (activation_scheme dynamic or
 *                                                         static: both quantize before GEMMs)
 *                         weight_block_size [n, k]: block-scaled (one scale per n x k weights,
 *                         per 1 x k activations: DeepSeek-V3's [128, 128]); two integers in
 *                         [1, 4096]
 *   awq                   int4 (bits must be 4)           16-bit              group_size,
 *                                                                             zero_point (true)
 *   gptq                  int4 or int8 (bits)             16-bit              group_size,
 *                                                                             zeros unless sym
 *   compressed-tensors    config_groups.<first group>.weights num_bits/type/strategy:
 *                         8 float fp8, 8 int int8, 4 int int4, 4 float fp4 (NVFP4);
 *                         input_activations the same (null: 16-bit, weight-only);
 *                         strategy group: group_size, symmetric false: zero points;
 *                         kv_cache_scheme 8 float: fp8 KV
 *   (fp4 activations, NVFP4's, are left to the device: fp4 math on fp4 tensor cores, else the
 *   weights are dequantized to 16 bits, as vLLM's Marlin fallback does on Hopper)
 *   modelopt              quant_algo FP8 (fp8/fp8), NVFP4 (fp4), W4A8_AWQ (int4, fp8 math,
 *                         group_size default 128); kv_cache_quant_algo FP8: fp8 KV
 *   mxfp4                 mxfp4 (gpt-oss) in the MoE experts only; activations as the device
 *                         decides (fp4 math where it has fp4 tensor cores, else 16-bit). vLLM's
 *                         Mxfp4Config quantizes FusedMoE layers and runs every linear layer
 *                         (attention projections, dense MLPs) unquantized, as the gpt-oss
 *                         checkpoints store them (modules_to_not_convert lists self_attn):
 *                         `experts_only`
 *
 * group_size -1 (GPTQ/AWQ spelling of "per channel") reads as 0. Any other quant_method, or a
 * value the table does not cover, is an error naming the file, the field and the value: an
 * unpriceable checkpoint is never priced as bf16. Module exclusion lists (modules_to_not_convert,
 * ignore) are not read: the LM head and embeddings are never quantized anyway, and every
 * transformer-layer GEMM takes the config's format, except under mxfp4 (experts only, above).
 */
#ifndef SIM_QUANT_H
#define SIM_QUANT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "dtype.h"
#include "status.h"

typedef struct sim_quant {
    bool present;       /* config.json has a quantization_config */
    char method[32];    /* its quant_method ("awq", ...) */
    sim_dtype weight;   /* stored weight format */
    bool act_set;       /* the config says how activations are quantized */
    bool act_16bit;     /* ... and they are not (weight-only): the model's 16-bit format */
    sim_dtype act;      /* the quantized activation format when act_set && !act_16bit */
    bool kv_set;        /* the config quantizes the KV cache */
    sim_dtype kv;       /* ... to this format */
    int64_t group_size; /* weights per group scale; 0 = per channel / per tensor */
    bool zero_point;    /* groups carry zero points */
    bool experts_only;  /* only MoE expert weights take `weight`; other GEMMs run 16-bit (mxfp4) */
    int64_t block_n, block_k; /* fp8 weight_block_size [n, k]: one scale per n x k weights
                               * and per 1 x k activations (DeepSeek-V3: 128 x 128); 0: none */
} sim_quant;

/* Reads cfg's quantization_config (absent: q->present = false). Errors name `path` and the
 * dotted field ("quantization_config.bits"). */
sim_status sim_quant_read(const cJSON *cfg, const char *path, sim_quant *q, sim_err *err);

#endif
