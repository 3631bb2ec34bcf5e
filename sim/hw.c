/* hw.c - device file loader. */
#include "hw.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "jsonf.h"
#include "price.h"

#define GIB 1073741824.0

/* Scalar fields: JSON name, range, scale to SI, destination offset. One table drives parsing. */
typedef struct hw_field {
    const char *json;
    double min, max;
    double scale;
    size_t offset;
} hw_field;

#define HWF(json, min, max, scale, member)                                                         \
    {                                                                                              \
        json, min, max, scale, offsetof(sim_hw, member)                                            \
    }
static const hw_field hw_fields[] = {
    HWF("vector_tflops", 0.1, 1e5, 1e12, vector_flops),
    HWF("hbm_gib", 0.5, 1e5, GIB, hbm_bytes),
    HWF("hbm_tb_per_s", 0.01, 1e3, 1e12, hbm_bytes_per_s),
    HWF("scaleup_gb_per_s_per_dir", 0.1, 1e5, 1e9, scaleup_bytes_per_s),
    HWF("collective_latency_us", 0.0, 1e4, 1e3, collective_ns),
    HWF("scaleup_latency_us", 0.0, 1e4, 1e3, scaleup_latency_ns),
    HWF("scaleout_gb_per_s_per_dir", 0.1, 1e5, 1e9, scaleout_bytes_per_s),
    HWF("scaleout_latency_us", 0.0, 1e5, 1e3, scaleout_latency_ns),
    HWF("kernel_launch_us", 0.0, 1e3, 1e3, launch_ns),
    HWF("graph_kernel_launch_us", 0.0, 1e3, 1e3, graph_launch_ns),
    HWF("runtime_reserved_gib", 0.0, 1e3, GIB, runtime_reserved_bytes),
    HWF("efficiency.gemm_weight_only", 0.01, 1.0, 1.0, eff_gemm_weight_only),
    HWF("efficiency.attention", 0.01, 1.0, 1.0, eff_attention),
    HWF("efficiency.memory", 0.01, 1.0, 1.0, eff_memory),
    HWF("efficiency.attention_memory", 0.01, 1.0, 1.0, eff_attn_memory),
    HWF("efficiency.network", 0.01, 1.0, 1.0, eff_network),
};
#undef HWF

static sim_status load_fields(const cJSON *root, const char *path, sim_hw *hw, sim_err *err)
{
    for (size_t i = 0; i < sizeof hw_fields / sizeof hw_fields[0]; i++) {
        const hw_field *f = &hw_fields[i];
        double v;
        sim_status st = sim_jsonf_num(root, path, f->json, f->min, f->max, &v, err);
        if (st)
            return st;
        *(double *)((char *)hw + f->offset) = v * f->scale;
    }
    return SIM_OK;
}

/* dense_tflops.X and efficiency.gemm.X for every format that has its own tensor peak; the others
 * (mxfp4) share their peak format's. */
static sim_status load_per_dtype(const cJSON *root, const char *path, sim_hw *hw, sim_err *err)
{
    char field[64];
    for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
        if (sim_dtype_get((sim_dtype)dt)->peak_of != (sim_dtype)dt)
            continue;
        const char *n = sim_dtype_name((sim_dtype)dt);
        double v;
        snprintf(field, sizeof field, "dense_tflops.%s", n);
        sim_status st = dt == SIM_DT_BF16
                            ? sim_jsonf_num(root, path, field, 0.1, 1e5, &v, err)
                            : sim_jsonf_num_opt(root, path, field, 0.1, 1e5, 0.0, &v, err);
        if (st)
            return st;
        hw->peak_flops[dt] = v * 1e12;
    }
    sim_status st = sim_jsonf_num(root, path, "efficiency.gemm.bf16", 0.01, 1.0,
                                  &hw->eff_gemm[SIM_DT_BF16], err);
    if (st)
        return st;
    for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
        if (dt == SIM_DT_BF16 || sim_dtype_get((sim_dtype)dt)->peak_of != (sim_dtype)dt)
            continue;
        snprintf(field, sizeof field, "efficiency.gemm.%s", sim_dtype_name((sim_dtype)dt));
        st = sim_jsonf_num_opt(root, path, field, 0.01, 1.0, hw->eff_gemm[SIM_DT_BF16],
                               &hw->eff_gemm[dt], err);
        if (st)
            return st;
    }
    for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
        sim_dtype of = sim_dtype_get((sim_dtype)dt)->peak_of;
        hw->peak_flops[dt] = hw->peak_flops[of];
        hw->eff_gemm[dt] = hw->eff_gemm[of];
    }
    return SIM_OK;
}

/* The quant object: per-format K-pipeline terms and streaming fractions of quantized GEMMs.
 * An absent entry stays 0, which the accessors below read as "the 16-bit value". */
static sim_status load_quant(const cJSON *root, const char *path, sim_hw *hw, sim_err *err)
{
    static const struct {
        const char *key;
        size_t offset;
        double min, max;
        bool compute; /* keyed by compute format (else by stored weight format) */
    } tables[] = {
        {"gemm_k_half", offsetof(sim_hw, quant.gemm_k_half), 1.0, 1e6, true},
        {"gemm_memory", offsetof(sim_hw, quant.gemm_memory), 0.01, 1.0, true},
        {"mixed_input_memory", offsetof(sim_hw, quant.mixed_input_memory), 0.01, 1.0, false},
    };
    char field[64];
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        double *arr = (double *)((char *)hw + tables[t].offset);
        for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
            const sim_dtype_info *info = sim_dtype_get((sim_dtype)dt);
            if (sim_dtype_is_16bit((sim_dtype)dt) ||
                (tables[t].compute && (info->weights_only || info->peak_of != (sim_dtype)dt)))
                continue;
            snprintf(field, sizeof field, "quant.%s.%s", tables[t].key, info->name);
            sim_status st = sim_jsonf_num_opt(root, path, field, tables[t].min, tables[t].max, 0.0,
                                              &arr[dt], err);
            if (st)
                return st;
        }
        if (tables[t].compute)
            for (int dt = 0; dt < SIM_DT_COUNT; dt++)
                arr[dt] = arr[sim_dtype_get((sim_dtype)dt)->peak_of];
    }
    return SIM_OK;
}

sim_status sim_hw_load(const char *path, sim_hw *hw, sim_err *err)
{
    memset(hw, 0, sizeof *hw);
    cJSON *root;
    sim_status st = sim_jsonf_load(path, &root, err);
    if (st)
        return st;
    const char *name = NULL;
    int64_t per_node = 0, tile = 0, wo_tile = 0, units = 0, wave = 0;
    if (!(st = sim_jsonf_str_opt(root, path, "name", &name, err)) &&
        !(st = load_fields(root, path, hw, err)) && !(st = load_per_dtype(root, path, hw, err)) &&
        !(st = sim_jsonf_int(root, path, "devices_per_node", 1, 65536, &per_node, err)) &&
        !(st = sim_jsonf_int(root, path, "gemm_tile_m", 1, 1024, &tile, err)) &&
        !(st = sim_jsonf_int(root, path, "gemm_weight_only_tile_m", 1, 1024, &wo_tile, err)) &&
        !(st = sim_jsonf_int(root, path, "compute_units", 1, 100000, &units, err)) &&
        !(st = sim_jsonf_int(root, path, "gemm_wave_tile", 1, 4096, &wave, err)) &&
        !(st = sim_jsonf_num_opt(root, path, "efficiency.gemm_k_half", 0.0, 1e6, 0.0,
                                 &hw->gemm_k_half, err)) &&
        !(st = load_quant(root, path, hw, err)) &&
        !(st = sim_jsonf_num_opt(root, path, "usd_per_gpu_hour", 0.001,
                                 SIM_PRICE_MAX_USD_PER_GPU_HOUR, 0.0, &hw->usd_per_gpu_hour, err))) {
        snprintf(hw->name, sizeof hw->name, "%s", name ? name : path);
        snprintf(hw->path, sizeof hw->path, "%s", path);
        hw->devices_per_node = (int)per_node;
        hw->gemm_tile_m = (int)tile;
        hw->wo_tile_m = (int)wo_tile;
        hw->compute_units = (int)units;
        hw->wave_tile = (int)wave;
        if (hw->runtime_reserved_bytes >= hw->hbm_bytes)
            st = sim_fail(
                err, SIM_EINPUT,
                "%s: field 'runtime_reserved_gib' is %.2f, expected less than hbm_gib %.2f", path,
                hw->runtime_reserved_bytes / GIB, hw->hbm_bytes / GIB);
    }
    cJSON_Delete(root);
    return st;
}

double sim_hw_ridge(const sim_hw *hw, sim_dtype compute)
{
    return hw->peak_flops[compute] / hw->hbm_bytes_per_s;
}

double sim_hw_gemm_k_half(const sim_hw *hw, sim_dtype compute)
{
    double q = hw->quant.gemm_k_half[compute];
    return q > 0.0 ? q : hw->gemm_k_half;
}

double sim_hw_gemm_memory(const sim_hw *hw, sim_dtype compute)
{
    double q = hw->quant.gemm_memory[compute];
    return q > 0.0 ? q : hw->eff_memory;
}

double sim_hw_mixed_input_memory(const sim_hw *hw, sim_dtype weight)
{
    double q = hw->quant.mixed_input_memory[weight];
    return q > 0.0 ? q : hw->eff_memory;
}
