/* quant.c - quantization_config reader. */
#include "quant.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonf.h"

#define QC "quantization_config"

/* group_size as AWQ/GPTQ/compressed-tensors write it: a positive count, or -1 / null for per
 * channel (read as 0). */
static sim_status read_group(const cJSON *cfg, const char *path, const char *field, int64_t dflt,
                             int64_t *out, sim_err *err)
{
    int64_t g;
    sim_status st = sim_jsonf_int_opt(cfg, path, field, -1, 1 << 20, dflt, &g, err);
    if (st)
        return st;
    if (g == 0)
        return sim_fail(err, SIM_EINPUT, "%s: field '%s' is 0, expected a group size >= 1 or -1",
                        path, field);
    *out = g < 0 ? 0 : g;
    return SIM_OK;
}

/* compressed-tensors' (num_bits, type) of one tensor under `base` ("...weights"). */
static sim_status ct_format(const cJSON *cfg, const char *path, const char *base, sim_dtype *out,
                            sim_err *err)
{
    static const struct {
        int64_t bits;
        const char *type;
        sim_dtype dt;
    } map[] = {{8, "float", SIM_DT_FP8},
               {8, "int", SIM_DT_INT8},
               {4, "int", SIM_DT_INT4},
               {4, "float", SIM_DT_FP4}};
    char f_bits[160], f_type[160];
    snprintf(f_bits, sizeof f_bits, "%s.num_bits", base);
    snprintf(f_type, sizeof f_type, "%s.type", base);
    int64_t bits;
    const char *type = NULL;
    sim_status st = sim_jsonf_int(cfg, path, f_bits, 1, 64, &bits, err);
    if (!st)
        st = sim_jsonf_str_opt(cfg, path, f_type, &type, err);
    if (st)
        return st;
    if (!type)
        type = "int"; /* compressed-tensors' default QuantizationType */
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].bits == bits && strcmp(map[i].type, type) == 0) {
            *out = map[i].dt;
            return SIM_OK;
        }
    return sim_fail(err, SIM_EINPUT,
                    "%s: fields '%s' %lld and '%s' \"%s\", expected 8 float (fp8), 8 int (int8), "
                    "4 int (int4) or 4 float (fp4)",
                    path, f_bits, (long long)bits, f_type, type);
}

static sim_status read_compressed_tensors(const cJSON *cfg, const char *path, sim_quant *q,
                                          sim_err *err)
{
    const cJSON *groups = sim_jsonf_find(cfg, QC ".config_groups");
    if (!cJSON_IsObject(groups) || !groups->child || !groups->child->string)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field '" QC ".config_groups' is missing or empty, expected an object "
                        "of quantization schemes",
                        path);
    char base[128], field[160];
    snprintf(base, sizeof base, QC ".config_groups.%.60s", groups->child->string);
    snprintf(field, sizeof field, "%s.weights", base);
    sim_status st = ct_format(cfg, path, field, &q->weight, err);
    const char *strategy = NULL;
    bool sym = true;
    if (!st) {
        snprintf(field, sizeof field, "%s.weights.strategy", base);
        st = sim_jsonf_str_opt(cfg, path, field, &strategy, err);
    }
    if (!st && strategy && strcmp(strategy, "group") == 0) {
        snprintf(field, sizeof field, "%s.weights.group_size", base);
        st = read_group(cfg, path, field, 128, &q->group_size, err);
    }
    if (!st) {
        snprintf(field, sizeof field, "%s.weights.symmetric", base);
        st = sim_jsonf_bool_opt(cfg, path, field, true, &sym, err);
    }
    if (st)
        return st;
    q->zero_point = !sym;
    q->act_set = true;
    snprintf(field, sizeof field, "%s.input_activations", base);
    if (sim_jsonf_find(cfg, field))
        st = ct_format(cfg, path, field, &q->act, err);
    else
        q->act_16bit = true;
    if (!st && sim_dtype_is_fp4(q->act) && !q->act_16bit)
        q->act_set = false; /* fp4 math where the device has it (else W4A16) */
    if (!st && sim_jsonf_find(cfg, QC ".kv_cache_scheme")) {
        q->kv_set = true;
        st = ct_format(cfg, path, QC ".kv_cache_scheme", &q->kv, err);
    }
    return st;
}

static sim_status read_modelopt(const cJSON *cfg, const char *path, sim_quant *q, sim_err *err)
{
    static const struct {
        const char *algo;
        sim_dtype weight, act;
        int64_t group;
    } algos[] = {{"FP8", SIM_DT_FP8, SIM_DT_FP8, 0},
                 {"NVFP4", SIM_DT_FP4, SIM_DT_FP4, 0},
                 {"W4A8_AWQ", SIM_DT_INT4, SIM_DT_FP8, 128}};
    const char *algo = NULL, *kv = NULL;
    sim_status st = sim_jsonf_str_opt(cfg, path, QC ".quant_algo", &algo, err);
    if (!st)
        st = sim_jsonf_str_opt(cfg, path, QC ".kv_cache_quant_algo", &kv, err);
    if (st)
        return st;
    size_t i = 0;
    while (i < sizeof algos / sizeof algos[0] && !(algo && strcmp(algo, algos[i].algo) == 0))
        i++;
    if (i == sizeof algos / sizeof algos[0])
        return sim_fail(err, SIM_EINPUT,
                        "%s: field '" QC ".quant_algo' is \"%s\", expected FP8, NVFP4 or W4A8_AWQ",
                        path, algo ? algo : "(missing)");
    q->weight = algos[i].weight;
    q->act = algos[i].act;
    q->act_set = !sim_dtype_is_fp4(q->act); /* fp4 math where the device has it (else W4A16) */
    if (algos[i].group &&
        (st = read_group(cfg, path, QC ".group_size", algos[i].group, &q->group_size, err)))
        return st;
    if (kv && strcmp(kv, "FP8") != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field '" QC ".kv_cache_quant_algo' is \"%s\", expected FP8 or null",
                        path, kv);
    q->kv_set = kv != NULL;
    q->kv = SIM_DT_FP8;
    return SIM_OK;
}

static sim_status read_awq_gptq(const cJSON *cfg, const char *path, bool awq, sim_quant *q,
                                sim_err *err)
{
    int64_t bits;
    bool flag;
    sim_status st = sim_jsonf_int(cfg, path, QC ".bits", 1, 64, &bits, err);
    if (st)
        return st;
    if (bits != 4 && (awq || bits != 8))
        return sim_fail(err, SIM_EINPUT, "%s: field '" QC ".bits' is %lld, expected %s", path,
                        (long long)bits, awq ? "4" : "4 or 8");
    q->weight = bits == 4 ? SIM_DT_INT4 : SIM_DT_INT8;
    q->act_set = q->act_16bit = true;
    if ((st = read_group(cfg, path, QC ".group_size", 128, &q->group_size, err)))
        return st;
    if (awq)
        st = sim_jsonf_bool_opt(cfg, path, QC ".zero_point", true, &q->zero_point, err);
    else if (!(st = sim_jsonf_bool_opt(cfg, path, QC ".sym", true, &flag, err)))
        q->zero_point = !flag;
    return st;
}

/* fp8 (HF's FP8 config, fbgemm_fp8): fp8 weights and activations; activation_scheme dynamic
 * (per-token scales computed on the fly) or static (calibrated per-tensor scales): both quantize
 * the activations before each GEMM. */
static sim_status read_fp8(const cJSON *cfg, const char *path, sim_quant *q, sim_err *err)
{
    const char *scheme = NULL;
    sim_status st = sim_jsonf_str_opt(cfg, path, QC ".activation_scheme", &scheme, err);
    if (!st && scheme && strcmp(scheme, "dynamic") != 0 && strcmp(scheme, "static") != 0)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field '" QC ".activation_scheme' is \"%s\", expected dynamic or static",
                      path, scheme);
    q->weight = q->act = SIM_DT_FP8;
    q->act_set = true;
    const cJSON *bs = sim_jsonf_find(cfg, QC ".weight_block_size");
    if (!st && bs && !cJSON_IsNull(bs)) {
        const cJSON *n = cJSON_GetArrayItem(bs, 0), *k = cJSON_GetArrayItem(bs, 1);
        bool ok = cJSON_IsArray(bs) && cJSON_GetArraySize(bs) == 2 && cJSON_IsNumber(n) &&
                  cJSON_IsNumber(k) && n->valuedouble >= 1 && n->valuedouble <= 4096 &&
                  k->valuedouble >= 1 && k->valuedouble <= 4096 &&
                  n->valuedouble == floor(n->valuedouble) && k->valuedouble == floor(k->valuedouble);
        if (!ok)
            st = sim_fail(err, SIM_EINPUT,
                          "%s: field '" QC ".weight_block_size' is not two integers in [1, "
                          "4096], expected the weight scale block [n, k] (e.g. [128, 128])",
                          path);
        else {
            q->block_n = (int64_t)n->valuedouble;
            q->block_k = (int64_t)k->valuedouble;
        }
    }
    return st;
}

sim_status sim_quant_read(const cJSON *cfg, const char *path, sim_quant *q, sim_err *err)
{
    memset(q, 0, sizeof *q);
    if (!sim_jsonf_find(cfg, QC))
        return SIM_OK;
    const char *method = NULL;
    sim_status st = sim_jsonf_str_opt(cfg, path, QC ".quant_method", &method, err);
    if (st)
        return st;
    q->present = true;
    snprintf(q->method, sizeof q->method, "%s", method ? method : "");
    if (!method)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field '" QC ".quant_method' is missing, expected the checkpoint's "
                      "quantization method",
                      path);
    else if (strcmp(method, "fp8") == 0 || strcmp(method, "fbgemm_fp8") == 0)
        st = read_fp8(cfg, path, q, err);
    else if (strcmp(method, "awq") == 0 || strcmp(method, "gptq") == 0)
        st = read_awq_gptq(cfg, path, method[0] == 'a', q, err);
    else if (strcmp(method, "compressed-tensors") == 0)
        st = read_compressed_tensors(cfg, path, q, err);
    else if (strcmp(method, "modelopt") == 0)
        st = read_modelopt(cfg, path, q, err);
    else if (strcmp(method, "mxfp4") == 0) {
        /* vLLM Mxfp4Config.get_quant_method (model_executor/layers/quantization/mxfp4.py):
         * FusedMoE -> Mxfp4MoEMethod, LinearBase -> UnquantizedLinearMethod */
        q->weight = SIM_DT_MXFP4;
        q->experts_only = true;
    }
    else
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field '" QC ".quant_method' is \"%s\", expected one of fp8, "
                      "fbgemm_fp8, awq, gptq, compressed-tensors, modelopt, mxfp4 (infersim "
                      "cannot price other methods)",
                      path, method);
    return st;
}
