/* hw.c - device file loader: one table of fields, each read from the file or filled by its
 * documented default rule (an architecture's constant, or a value derived from the datasheet
 * fields). */
#include "hw.h"
#include "hw_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "jsonf.h"
#include "price.h"

#define GIB 1073741824.0

/* ------------------------------------------------------------------------------------------ */
/* Fields. A row is read from the file when present; else its rule fills it:
 *   HR_REQUIRED  no default: one of the six datasheet fields
 *   HR_ARCH      the architecture's constant (origin "default")
 *   HR_RATIO     an earlier field times the architecture's ratio (origin "derived")
 *   HR_PEAK      a format's peak: with "dense_tflops": N (the bf16 peak), N times the
 *                architecture's ratio (derived); with "dense_tflops": {...}, the object lists
 *                every format the chip computes, so one it leaves out is none (default 0)
 *   HR_COPY      an earlier field's value (origin "derived")
 *   HR_COPY_FILE an earlier field's value when the file gave that one, else the architecture's
 *                constant (efficiency.gemm.FORMAT: the file's bf16 efficiency, else the row's)
 *   HR_CONST     a fixed value (origin "default")
 * Fields other issues add become rows here, with their rule. */

typedef enum hw_rule {
    HR_REQUIRED,
    HR_ARCH,
    HR_RATIO,
    HR_PEAK,
    HR_COPY,
    HR_COPY_FILE,
    HR_CONST
} hw_rule;

typedef struct hw_field {
    const char *json;
    double min, max;
    double scale;  /* file units to SI */
    size_t offset; /* into sim_hw */
    bool is_int;   /* an int member, a whole number in the file */
    hw_rule rule;
    size_t arch;      /* HR_ARCH, HR_RATIO, HR_COPY_FILE: offset into sim_hw_arch */
    const char *from; /* HR_RATIO, HR_COPY, HR_COPY_FILE: the earlier field it follows */
    double value;     /* HR_CONST, in file units */
    const char *doc;
} hw_field;

#define HW(member) offsetof(sim_hw, member)
#define AR(member) offsetof(sim_hw_arch, member)
#define NUM(json, lo, hi, scale, member, rule, arch, from, value, doc)                             \
    {                                                                                              \
        json, lo, hi, scale, HW(member), false, rule, arch, from, value, doc                       \
    }
#define INT(json, lo, hi, member, rule, arch, doc)                                                 \
    {                                                                                              \
        json, lo, hi, 1.0, HW(member), true, rule, arch, NULL, 0, doc                              \
    }

static const hw_field hw_fields[] = {
    NUM("dense_tflops.bf16", 0.1, 1e5, 1e12, peak_flops[SIM_DT_BF16], HR_REQUIRED, 0, NULL, 0,
        "datasheet dense (not 2:4 sparse) bf16 tensor peak; \"dense_tflops\": N is the same"),
    NUM("dense_tflops.fp16", 0.1, 1e5, 1e12, peak_flops[SIM_DT_FP16], HR_PEAK, AR(fp16),
        "dense_tflops.bf16", 0, "= bf16 (same tensor-core rate), none on tpu"),
    NUM("dense_tflops.fp8", 0.1, 1e5, 1e12, peak_flops[SIM_DT_FP8], HR_PEAK, AR(fp8),
        "dense_tflops.bf16", 0,
        "= bf16 x 2 on hopper, ada, blackwell, cdna3; none on ampere, tpu and without arch"),
    NUM("dense_tflops.int8", 0.1, 1e5, 1e12, peak_flops[SIM_DT_INT8], HR_PEAK, AR(int8),
        "dense_tflops.bf16", 0, "= bf16 x 2 on every listed architecture; none without arch"),
    NUM("dense_tflops.int4", 0.1, 1e5, 1e12, peak_flops[SIM_DT_INT4], HR_PEAK, AR(int4),
        "dense_tflops.bf16", 0, "= bf16 x 4 on ampere; none elsewhere"),
    NUM("dense_tflops.fp4", 0.1, 1e5, 1e12, peak_flops[SIM_DT_FP4], HR_PEAK, AR(fp4),
        "dense_tflops.bf16", 0, "= bf16 x 4 on blackwell; none elsewhere (mxfp4 runs at it)"),
    NUM("dense_tflops.mxfp6", 0.1, 1e5, 1e12, peak_flops[SIM_DT_MXFP6], HR_PEAK, AR(mxfp6),
        "dense_tflops.bf16", 0, "= bf16 x 2 on blackwell (the fp8 rate); none elsewhere"),
    NUM("vector_tflops", 0.1, 1e5, 1e12, vector_flops, HR_RATIO, AR(vector_ratio),
        "dense_tflops.bf16", 0,
        "= bf16 x the architecture's FP32/bf16 ratio (hopper 67/989.4, ampere 19.5/312, ada "
        "91.6/362, blackwell 75/2250, cdna3 163.4/1307.4, tpu 6/197)"),
    NUM("hbm_gib", 0.5, 1e5, GIB, hbm_bytes, HR_REQUIRED, 0, NULL, 0,
        "datasheet memory capacity (GiB as the driver reports it)"),
    NUM("hbm_tb_per_s", 0.01, 1e3, 1e12, hbm_bytes_per_s, HR_REQUIRED, 0, NULL, 0,
        "datasheet memory bandwidth"),
    NUM("scaleup_gb_per_s_per_dir", 0.1, 1e5, 1e9, scaleup_bytes_per_s, HR_REQUIRED, 0, NULL, 0,
        "datasheet NVLink / Infinity Fabric / ICI / PCIe bandwidth per direction"),
    INT("compute_units", 1, 100000, compute_units, HR_REQUIRED, 0,
        "datasheet SMs / CUs / MXUs (tiles per GEMM wave)"),
    NUM("collective_latency_us", 0.0, 1e4, 1e3, collective_ns, HR_ARCH, AR(collective_us), NULL, 0,
        "architecture constant (estimate; calibrate fits it)"),
    NUM("scaleup_latency_us", 0.0, 1e4, 1e3, scaleup_latency_ns, HR_ARCH, AR(hop_us), NULL, 0,
        "architecture constant (estimate; calibrate fits it)"),
    NUM("scaleout_gb_per_s_per_dir", 0.1, 1e5, 1e9, scaleout_bytes_per_s, HR_ARCH, AR(scaleout_gb),
        NULL, 0,
        "architecture constant: one 400 Gb/s NIC per GPU (50), 200 Gb/s (25) on ampere, ada, tpu"),
    NUM("scaleout_latency_us", 0.0, 1e5, 1e3, scaleout_latency_ns, HR_ARCH, AR(scaleout_us), NULL,
        0, "architecture constant (estimate)"),
    INT("devices_per_node", 1, 65536, devices_per_node, HR_ARCH, AR(devices_per_node),
        "architecture constant: 8 (256 on tpu: a pod slice)"),
    NUM("kernel_launch_us", 0.0, 1e3, 1e3, launch_ns, HR_ARCH, AR(launch_us), NULL, 0,
        "architecture constant (estimate)"),
    NUM("graph_kernel_launch_us", 0.0, 1e3, 1e3, graph_launch_ns, HR_ARCH, AR(graph_launch_us),
        NULL, 0, "architecture constant (estimate)"),
    INT("gemm_tile_m", 1, 1024, gemm_tile_m, HR_ARCH, AR(tile_m),
        "architecture constant: 64 (128 on tpu)"),
    INT("gemm_weight_only_tile_m", 1, 1024, wo_tile_m, HR_ARCH, AR(wo_tile_m),
        "architecture constant: 16, the m16n8k16 MMA (128 on tpu)"),
    INT("gemm_wave_tile", 1, 4096, wave_tile, HR_ARCH, AR(wave_tile),
        "architecture constant: 128 x 128 output tiles"),
    NUM("gemm_cu_feed_gb_per_s", 0.0, 1e4, 1e9, gemm_cu_feed_bytes_per_s, HR_CONST, 0, NULL, 0,
        "0: no operand-feed bound and one tile edge until the file states (or calibrate fits) "
        "one"),
    NUM("attention_exp_tera_per_s", 0.0, 1e4, 1e12, attn_exp_per_s, HR_CONST, 0, NULL, 0,
        "0: softmax exponentials not priced apart (stated where FlashAttention-2 runs: SMs x 16 "
        "exp2 per clock x boost clock, the CUDA guide's throughput table)"),
    NUM("runtime_reserved_gib", 0.0, 1e3, GIB, runtime_reserved_bytes, HR_ARCH, AR(reserved_gib),
        NULL, 0, "architecture constant: 1 GiB (0.5 on tpu; estimate)"),
    NUM("efficiency.gemm.bf16", 0.01, 1.0, 1.0, eff_gemm[SIM_DT_BF16], HR_ARCH, AR(eff_bf16), NULL,
        0, "architecture constant (measured on the row's device; calibrate fits it)"),
    NUM("efficiency.gemm.fp16", 0.01, 1.0, 1.0, eff_gemm[SIM_DT_FP16], HR_COPY, 0,
        "efficiency.gemm.bf16", 0, "= efficiency.gemm.bf16"),
    NUM("efficiency.gemm.fp8", 0.01, 1.0, 1.0, eff_gemm[SIM_DT_FP8], HR_COPY_FILE, AR(eff_fp8),
        "efficiency.gemm.bf16", 0,
        "= the file's efficiency.gemm.bf16, else the architecture constant"),
    NUM("efficiency.gemm.int8", 0.01, 1.0, 1.0, eff_gemm[SIM_DT_INT8], HR_COPY_FILE, AR(eff_int8),
        "efficiency.gemm.bf16", 0,
        "= the file's efficiency.gemm.bf16, else the architecture constant"),
    NUM("efficiency.gemm.int4", 0.01, 1.0, 1.0, eff_gemm[SIM_DT_INT4], HR_COPY_FILE, AR(eff_int8),
        "efficiency.gemm.bf16", 0,
        "= the file's efficiency.gemm.bf16, else the architecture's int8 constant"),
    NUM("efficiency.gemm.fp4", 0.01, 1.0, 1.0, eff_gemm[SIM_DT_FP4], HR_COPY_FILE, AR(eff_fp8),
        "efficiency.gemm.bf16", 0,
        "= the file's efficiency.gemm.bf16, else the architecture's fp8 constant"),
    NUM("efficiency.gemm.mxfp6", 0.01, 1.0, 1.0, eff_gemm[SIM_DT_MXFP6], HR_COPY_FILE, AR(eff_fp8),
        "efficiency.gemm.fp8", 0,
        "= the file's efficiency.gemm.fp8 (the same block-scaled MMA instructions: tcgen05 "
        "kind::f8f6f4, CDNA4 V_MFMA_SCALE_F32_*_F8F6F4), else the architecture's fp8 constant"),
    NUM("efficiency.gemm_k_half", 0.0, 1e6, 1.0, gemm_k_half, HR_CONST, 0, NULL, 0,
        "0: no K term until calibrate fits one"),
    NUM("efficiency.tensor_rate_ratio", 0.0, 1.0, 1.0, tensor_rate_ratio, HR_CONST, 0, NULL, 0,
        "0: the tensor cores run at the rate the GEMM efficiencies were measured at"),
    NUM("efficiency.gemm_fixed_us", 0.0, 1e3, 1e3, gemm_fixed_ns, HR_CONST, 0, NULL, 0,
        "0: no fixed GEMM kernel time until calibrate fits one"),
    NUM("efficiency.gemm_weight_only", 0.01, 1.0, 1.0, eff_gemm_weight_only, HR_ARCH, AR(eff_wo),
        NULL, 0, "architecture constant (estimate)"),
    NUM("efficiency.attention", 0.01, 1.0, 1.0, eff_attention, HR_ARCH, AR(eff_attn), NULL, 0,
        "architecture constant (calibrate fits it)"),
    NUM("efficiency.attention_kv_half", 0.0, 1e6, 1.0, attn_kv_half, HR_CONST, 0, NULL, 0,
        "0: no fixed work per query block until the file states (or calibrate fits) one"),
    NUM("efficiency.memory", 0.01, 1.0, 1.0, eff_memory, HR_ARCH, AR(eff_mem), NULL, 0,
        "architecture constant (calibrate fits it)"),
    NUM("efficiency.attention_memory", 0.01, 1.0, 1.0, eff_attn_memory, HR_ARCH, AR(eff_attn_mem),
        NULL, 0, "architecture constant"),
    NUM("efficiency.network", 0.01, 1.0, 1.0, eff_network, HR_ARCH, AR(eff_net), NULL, 0,
        "architecture constant (calibrate fits it)"),
    NUM("decode_cta_gb_per_s", 0.1, 1e4, 1e9, decode_cta_bytes_per_s, HR_ARCH, AR(decode_cta_gb),
        NULL, 0,
        "architecture constant: ampere 13.67 (fitted by calibrate on the vLLM PagedAttention "
        "decode rows of tools/data/validation.csv), the others that value x their SM boost clock over A100's "
        "1410 MHz (hopper 1980, ada 2520, blackwell 1965, cdna3 2100 MHz; estimates); tpu and "
        "no arch: ampere's and hopper's (TPUs run no such kernel)"),
    NUM("block_fp8_cta_gb_per_s", 0.0, 1e4, 1e9, block_fp8_cta_bytes_per_s, HR_ARCH,
        AR(block_fp8_cta_gb), NULL, 0, "arch constant: hopper 42 (rows 3600-3601), else 0"),
    NUM("block_fp8_math_eff", 0.0, 1.0, 1.0, block_fp8_math_eff, HR_ARCH, AR(block_fp8_math_eff),
        NULL, 0, "arch constant: hopper 0.230 (row 3606), else 0"),
    NUM("moe_k_step_us", 0.0, 1e3, 1e3, moe_k_step_ns, HR_ARCH, AR(moe_k_step_us), NULL, 0,
        "arch constant: blackwell 0.545, ampere 0.798 (least squares on the B200 and A100 "
        "Triton fused_moe rows 3620-3628 and 3674-3678 of tools/data/validation.csv), else 0 "
        "(no term)"),
    NUM("mma_sync_fraction", 0.05, 1.0, 1.0, mma_sync_frac, HR_CONST, 0, NULL, 1.0,
        "1: mma.sync is the tensor-core instruction (ampere, ada); the hopper files state 0.667"),
    NUM("mla_decode.compute_eff", 0.01, 1.0, 1.0, mla_compute_eff, HR_CONST, 0, NULL, 0.667,
        "0.667: FlashMLA's 660 of H800's 989 TFLOP/s (deepseek-ai/FlashMLA README; the kernel "
        "runs throttled near 1600 MHz, its deep-dive doc)"),
    NUM("mla_decode.memory_eff", 0.01, 1.0, 1.0, mla_memory_eff, HR_CONST, 0, NULL, 0.84,
        "0.84: FlashMLA on H100 SXM, 2809 of 3350 GB/s (b 128, 4096 cached tokens: "
        "tools/data/validation.csv ids 2230-2234)"),
    NUM("alltoall.low_latency.latency_us", 0.0, 1e4, 1e3, a2a.ll_latency_ns, HR_CONST, 0, NULL,
        24, "24: DeepEP low-latency kernels on H800 + CX7 (fitted with the other alltoall.* "
        "constants on the DeepEP rows of tools/data/validation.csv)"),
    NUM("alltoall.low_latency.nvlink_bw_eff", 0.01, 1.0, 1.0, a2a.ll_nvlink_eff, HR_CONST, 0,
        NULL, 0.70, "0.70: DeepEP low-latency kernels over H800 NVLink (fitted, as above)"),
    NUM("alltoall.normal.latency_us", 0.0, 1e4, 1e3, a2a.normal_latency_ns, HR_CONST, 0, NULL,
        24, "24: the low-latency kernels' (estimate: DeepEP's normal-mode rows are ms long and "
        "do not identify it)"),
    NUM("alltoall.normal.nvlink_bw_eff", 0.01, 1.0, 1.0, a2a.normal_nvlink_eff, HR_CONST, 0,
        NULL, 0.66, "0.66: DeepEP normal kernels over H800 NVLink (fitted, as above)"),
    NUM("alltoall.rdma_bw_eff", 0.01, 1.0, 1.0, a2a.rdma_eff, HR_CONST, 0, NULL, 0.86,
        "0.86: DeepEP's RDMA writes over CX7 400 Gb/s InfiniBand (fitted, as above)"),
    NUM("host_link_gb_per_s_per_dir", 0.1, 1e5, 1e9, host_link_bytes_per_s, HR_ARCH,
        AR(host_link_gb), NULL, 0, "arch constant: PCIe x16 Gen5 63.0 (hopper, blackwell, cdna3), "
        "Gen4 31.5 (ampere, ada, tpu); NVLink-C2C (GH200, GB200, GB300): 450 in the file"),
    NUM("host_link_latency_us", 0.0, 1e5, 1e3, host_link_latency_ns, HR_CONST, 0, NULL, 10,
        "10: estimate: a KV load's fixed cost (launch, first bytes), per request"),
    NUM("efficiency.host_link", 0.01, 1.0, 1.0, eff_host_link, HR_CONST, 0, NULL, 0.88,
        "0.88: nvbandwidth host_to_device_memcpy_ce 55.63 of Gen5's 63.0 GB/s (estimate)"),
    NUM("host_disk_gb_per_s", 0.01, 1e4, 1e9, host_disk_bytes_per_s, HR_CONST, 0, NULL, 6.0,
        "6: estimate: local NVMe per GPU (a PCIe Gen4 x4 drive reads ~7 GB/s)"),
    NUM("host_disk_latency_us", 0.0, 1e6, 1e3, host_disk_latency_ns, HR_CONST, 0, NULL, 100,
        "100: estimate: an NVMe read and the file system, per request"),
    NUM("usd_per_gpu_hour", 0.001, SIM_PRICE_MAX_USD_PER_GPU_HOUR, 1.0, usd_per_gpu_hour, HR_CONST,
        0, NULL, 0, "0: unknown (the cost outputs say the price is unknown)"),
    NUM("power.tdp_w", 1.0, SIM_HW_MAX_POWER_W, 1.0, power.tdp_w, HR_CONST, 0, NULL, 0,
        "0: unknown (the energy outputs say the power is unknown)"),
    NUM("power.idle_w", 0.0, SIM_HW_MAX_POWER_W, 1.0, power.idle_w, HR_CONST, 0, NULL, 0,
        "0 W (give the idle floor with power.tdp_w)"),
};
#undef NUM
#undef INT
enum { N_FIELDS = sizeof hw_fields / sizeof hw_fields[0] };
_Static_assert(N_FIELDS <= SIM_HW_MAX_FIELDS, "sim_hw.origin is too small");

static double *num_at(sim_hw *hw, const hw_field *f) { return (double *)((char *)hw + f->offset); }
static int *int_at(sim_hw *hw, const hw_field *f) { return (int *)((char *)hw + f->offset); }

static double get_si(const sim_hw *hw, const hw_field *f)
{
    const char *p = (const char *)hw + f->offset;
    return f->is_int ? (double)*(const int *)p : *(const double *)p;
}

static void set_si(sim_hw *hw, const hw_field *f, double v)
{
    if (f->is_int)
        *int_at(hw, f) = (int)v;
    else
        *num_at(hw, f) = v;
}

/* The index of an earlier field by name (the table is small; names are fixed). */
static size_t field_index(const char *json)
{
    size_t i = 0;
    while (i < N_FIELDS && strcmp(hw_fields[i].json, json) != 0)
        i++;
    return i;
}

/* The rule's value (SI) and where it came from. */
static double apply_rule(const sim_hw *hw, const hw_field *f, const sim_hw_arch *a, bool listed,
                         sim_hw_origin *origin)
{
    *origin = SIM_HW_DEFAULT;
    size_t from = f->from ? field_index(f->from) : 0;
    switch (f->rule) {
    case HR_ARCH:
        return sim_hw_arch_num(a, f->arch) * f->scale;
    case HR_CONST:
        return f->value * f->scale;
    case HR_PEAK:
        if (listed)
            return 0.0; /* the file's dense_tflops object leaves this format out */
        /* fall through */
    case HR_RATIO:
        *origin = SIM_HW_DERIVED;
        return get_si(hw, &hw_fields[from]) * sim_hw_arch_num(a, f->arch);
    case HR_COPY:
        *origin = SIM_HW_DERIVED;
        return get_si(hw, &hw_fields[from]);
    case HR_COPY_FILE:
        if (hw->origin[from] == SIM_HW_FILE) {
            *origin = SIM_HW_DERIVED;
            return get_si(hw, &hw_fields[from]);
        }
        return sim_hw_arch_num(a, f->arch);
    case HR_REQUIRED:
        break;
    }
    return 0.0;
}

/* "arch": one of the table's names, or absent. */
static sim_status read_arch(const cJSON *root, const char *path, const sim_hw_arch **out,
                            sim_err *err)
{
    const char *s = NULL;
    sim_status st = sim_jsonf_str_opt(root, path, "arch", &s, err);
    *out = sim_hw_arch_find("");
    if (st || !s)
        return st;
    if (*s && (*out = sim_hw_arch_find(s)) != NULL)
        return SIM_OK;
    return sim_fail(err, SIM_EINPUT,
                    "%s: field 'arch' is \"%s\", expected ampere, ada, hopper, blackwell, cdna3 or "
                    "tpu (or no arch)",
                    path, s);
}

/* One field from the file (a number, or a whole number for int fields) or its rule. */
static sim_status load_field(const cJSON *root, const char *path, const hw_field *f,
                             const sim_hw_arch *a, sim_hw *hw, sim_err *err)
{
    size_t i = (size_t)(f - hw_fields);
    const char *json = f->json;
    /* "dense_tflops": N is the bf16 peak */
    const cJSON *dense = sim_jsonf_find(root, "dense_tflops");
    if (dense && !cJSON_IsNumber(dense) && !cJSON_IsObject(dense))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'dense_tflops' is not a number or an object, expected the dense "
                        "bf16 peak in TFLOP/s (\"dense_tflops\": 148) or one per format "
                        "({\"bf16\": 148, \"fp8\": 296})",
                        path);
    if (strcmp(json, "dense_tflops.bf16") == 0 && cJSON_IsNumber(dense))
        json = "dense_tflops";
    if (!sim_jsonf_find(root, json) && f->rule != HR_REQUIRED) {
        sim_hw_origin o;
        set_si(hw, f, apply_rule(hw, f, a, cJSON_IsObject(dense), &o));
        hw->origin[i] = (unsigned char)o;
        return SIM_OK;
    }
    hw->origin[i] = SIM_HW_FILE;
    if (f->is_int) {
        int64_t v;
        sim_status st = sim_jsonf_int(root, path, json, (int64_t)f->min, (int64_t)f->max, &v, err);
        if (!st)
            *int_at(hw, f) = (int)v;
        return st;
    }
    double v;
    sim_status st = sim_jsonf_num(root, path, json, f->min, f->max, &v, err);
    if (!st)
        *num_at(hw, f) = v * f->scale;
    return st;
}

/* Formats without a tensor peak of their own (mxfp4) take their peak format's peak and GEMM
 * efficiency. */
static void share_peaks(sim_hw *hw)
{
    for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
        sim_dtype of = sim_dtype_get((sim_dtype)dt)->peak_of;
        hw->peak_flops[dt] = hw->peak_flops[of];
        hw->eff_gemm[dt] = hw->eff_gemm[of];
    }
}

/* The quant object: per-format K-pipeline terms and streaming fractions of quantized GEMMs.
 * An absent entry stays 0, which the accessors below read as "the 16-bit value". */
static const struct {
    const char *key;
    size_t offset;
    double min, max; /* in file units */
    double scale;    /* stored = file value x scale */
    bool compute;    /* keyed by compute format (else by stored weight format) */
} quant_tables[] = {
    {"gemm_k_half", offsetof(sim_hw, quant.gemm_k_half), 1.0, 1e6, 1.0, true},
    {"gemm_memory", offsetof(sim_hw, quant.gemm_memory), 0.01, 1.0, 1.0, true},
    {"gemm_fixed_us", offsetof(sim_hw, quant.gemm_fixed_ns), 0.001, 1e3, 1e3, true},
    {"mixed_input_memory", offsetof(sim_hw, quant.mixed_input_memory), 0.01, 1.0, 1.0, false},
};
#define N_QUANT_TABLES (sizeof quant_tables / sizeof quant_tables[0])

/* Whether quant_tables[t] has an entry for format dt. */
static bool quant_keyed(size_t t, int dt)
{
    const sim_dtype_info *info = sim_dtype_get((sim_dtype)dt);
    return !sim_dtype_is_16bit((sim_dtype)dt) &&
           !(quant_tables[t].compute && (info->weights_only || info->peak_of != (sim_dtype)dt));
}

static sim_status load_quant(const cJSON *root, const char *path, sim_hw *hw, sim_err *err)
{
#define tables quant_tables
    char field[64];
    for (size_t t = 0; t < N_QUANT_TABLES; t++) {
        double *arr = (double *)((char *)hw + tables[t].offset);
        for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
            const sim_dtype_info *info = sim_dtype_get((sim_dtype)dt);
            if (!quant_keyed(t, dt))
                continue;
            snprintf(field, sizeof field, "quant.%s.%s", tables[t].key, info->name);
            sim_status st = sim_jsonf_num_opt(root, path, field, tables[t].min, tables[t].max, 0.0,
                                              &arr[dt], err);
            if (st)
                return st;
            arr[dt] *= tables[t].scale;
        }
        if (tables[t].compute)
            for (int dt = 0; dt < SIM_DT_COUNT; dt++)
                arr[dt] = arr[sim_dtype_get((sim_dtype)dt)->peak_of];
    }
    return SIM_OK;
#undef tables
}

/* NCCL protocol constants: "collectives.<proto>.<field>", the destination array, range, scale. */
static const struct {
    const char *field;
    size_t offset; /* of a double[3] in sim_hw_coll */
    double max, scale;
} coll_proto_fields[] = {
    {"base_us", offsetof(sim_hw_coll, proto_base_ns), 1e3, 1e3},
    {"hop_us", offsetof(sim_hw_coll, proto_hop_ns), 1e3, 1e3},
    {"bw_eff", offsetof(sim_hw_coll, proto_bw_eff), 1.0, 1.0},
};

/* The `collectives` object; absent: the ring with the Simple protocol only (as before it). */
static sim_status load_collectives(const cJSON *root, const char *path, sim_hw *hw, sim_err *err)
{
    sim_hw_coll *c = &hw->coll;
    c->algos = 1u << SIM_COLL_RING;
    c->proto_bw_eff[SIM_COLL_SIMPLE] = 1.0;
    const cJSON *obj = sim_jsonf_find(root, "collectives");
    if (!obj)
        return SIM_OK;
    const cJSON *list = sim_jsonf_find(root, "collectives.algorithms");
    if (!cJSON_IsObject(obj) || !cJSON_IsArray(list))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'collectives.algorithms' is missing or not an array, expected "
                        "a list of ring, tree, oneshot, twoshot, nvls",
                        path);
    c->algos = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        sim_coll_algo a;
        if (!cJSON_IsString(it) || !sim_coll_algo_parse(it->valuestring, &a) ||
            a == SIM_COLL_AUTO || a == SIM_COLL_NCCL)
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'collectives.algorithms' holds '%s', expected ring, tree, "
                            "oneshot, twoshot or nvls",
                            path, cJSON_IsString(it) ? it->valuestring : "(not a string)");
        c->algos |= 1u << a;
    }
    if (!(c->algos & (1u << SIM_COLL_RING)))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'collectives.algorithms' lacks \"ring\", expected every device "
                        "to have NCCL's ring",
                        path);
    char field[96];
    static const char *const protos[] = {"ll", "ll128"};
    sim_status st = SIM_OK;
    for (int p = 0; p < 2 && !st; p++) {
        snprintf(field, sizeof field, "collectives.%s", protos[p]);
        if (!sim_jsonf_find(root, field))
            continue; /* the device's runtime has no such protocol (TPU, ...) */
        for (size_t f = 0; f < sizeof coll_proto_fields / sizeof coll_proto_fields[0] && !st;
             f++) {
            double v;
            snprintf(field, sizeof field, "collectives.%s.%s", protos[p],
                     coll_proto_fields[f].field);
            st = sim_jsonf_num(root, path, field, 0.0, coll_proto_fields[f].max, &v, err);
            if (!st && coll_proto_fields[f].scale == 1.0 && !(v > 0.0))
                st = sim_fail(err, SIM_EINPUT, "%s: field '%s' is 0, expected a value in (0, 1]",
                              path, field);
            ((double *)((char *)c + coll_proto_fields[f].offset))[p] =
                v * coll_proto_fields[f].scale;
        }
    }
    double base;
    if (!st)
        st = sim_jsonf_num(root, path, "collectives.simple.base_us", 0.0, 1e3, &base, err);
    if (st)
        return st;
    c->proto_base_ns[SIM_COLL_SIMPLE] = base * 1e3;
    static const sim_coll_algo kernels[] = {SIM_COLL_ONESHOT, SIM_COLL_TWOSHOT, SIM_COLL_NVLS};
    for (size_t i = 0; i < 3 && !st; i++) {
        sim_coll_algo a = kernels[i];
        if (!(c->algos & (1u << a)))
            continue;
        double lat = 0.0, eff = 0.0; /* (read only when both parse) */
        snprintf(field, sizeof field, "collectives.%s.latency_us", sim_coll_algo_name(a));
        st = sim_jsonf_num(root, path, field, 0.0, 1e4, &lat, err);
        snprintf(field, sizeof field, "collectives.%s.bw_eff", sim_coll_algo_name(a));
        if (!st)
            st = sim_jsonf_num(root, path, field, 0.01, 1.0, &eff, err);
        if (st)
            break;
        c->algo_latency_ns[a] = lat * 1e3;
        c->algo_bw_eff[a] = eff;
    }
    if (!st && (c->algos & ((1u << SIM_COLL_ONESHOT) | (1u << SIM_COLL_TWOSHOT))))
        st = sim_jsonf_num(root, path, "collectives.custom_max_bytes", 1.0, 1e12,
                           &c->custom_max_bytes, err);
    return st;
}

/* Every field a device file may hold (outside "sources"), as the loaders above read them:
 * the field table's, "dense_tflops" as a number (the bf16 peak), "quant" per format,
 * "collectives" per protocol and kernel, "provenance" (hw_prov.c), and calibrate's own
 * "calibration" record. */
static bool hw_known(const char *field, const cJSON *v)
{
    /* "provenance" is read whole by hw_prov.c, which checks its entries */
    static const char *const fixed[] = {
        "name", "arch", "calibration", "provenance", "collectives.algorithms",
        "collectives.custom_max_bytes", "collectives.simple.base_us"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(field, fixed[i]) == 0)
            return true;
    if (strcmp(field, "dense_tflops") == 0) /* a number; load_field refuses what is not one */
        return !cJSON_IsObject(v);
    for (size_t i = 0; i < N_FIELDS; i++)
        if (strcmp(field, hw_fields[i].json) == 0)
            return true;
    char name[96];
    for (size_t t = 0; t < N_QUANT_TABLES; t++)
        for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
            snprintf(name, sizeof name, "quant.%s.%s", quant_tables[t].key,
                     sim_dtype_name((sim_dtype)dt));
            if (quant_keyed(t, dt) && strcmp(field, name) == 0)
                return true;
        }
    static const char *const protos[] = {"ll", "ll128"};
    for (size_t p = 0; p < 2; p++)
        for (size_t f = 0; f < sizeof coll_proto_fields / sizeof coll_proto_fields[0]; f++) {
            snprintf(name, sizeof name, "collectives.%s.%s", protos[p], coll_proto_fields[f].field);
            if (strcmp(field, name) == 0)
                return true;
        }
    static const sim_coll_algo kernels[] = {SIM_COLL_ONESHOT, SIM_COLL_TWOSHOT, SIM_COLL_NVLS};
    static const char *const kernel_fields[] = {"latency_us", "bw_eff"};
    for (size_t k = 0; k < 3; k++)
        for (size_t f = 0; f < 2; f++) {
            snprintf(name, sizeof name, "collectives.%s.%s", sim_coll_algo_name(kernels[k]),
                     kernel_fields[f]);
            if (strcmp(field, name) == 0)
                return true;
        }
    return false;
}

/* sim_hw_copied_from_fn (hw_internal.h) */
static const char *copied_from(const sim_hw *hw, const char *json)
{
    size_t i = field_index(json);
    if (i == N_FIELDS || hw->origin[i] != SIM_HW_DERIVED)
        return NULL;
    const hw_field *f = &hw_fields[i];
    return f->rule == HR_COPY || f->rule == HR_COPY_FILE ? f->from : NULL;
}

sim_status sim_hw_load(const char *path, sim_hw *hw, sim_err *err)
{
    memset(hw, 0, sizeof *hw);
    cJSON *root;
    sim_status st = sim_jsonf_load(path, &root, err);
    if (st)
        return st;
    const char *name = NULL;
    const sim_hw_arch *a = NULL;
    st = sim_jsonf_known_keys(root, path, hw_known,
                              "a device field (README: \"Devices from a datasheet\"; infersim hw "
                              "FILE lists them)",
                              err);
    if (!st && !(st = sim_jsonf_str_opt(root, path, "name", &name, err)))
        st = read_arch(root, path, &a, err);
    for (size_t i = 0; !st && i < N_FIELDS; i++)
        st = load_field(root, path, &hw_fields[i], a, hw, err);
    if (!st) {
        share_peaks(hw);
        st = load_quant(root, path, hw, err);
    }
    if (!st)
        st = load_collectives(root, path, hw, err);
    if (!st)
        st = sim_hw_prov_load(root, path, hw, copied_from, err);
    if (!st) {
        snprintf(hw->name, sizeof hw->name, "%s", name ? name : path);
        snprintf(hw->path, sizeof hw->path, "%s", path);
        snprintf(hw->arch, sizeof hw->arch, "%s", a->name);
        if (hw->runtime_reserved_bytes >= hw->hbm_bytes)
            st = sim_fail(
                err, SIM_EINPUT,
                "%s: field 'runtime_reserved_gib' is %.2f, expected less than hbm_gib %.2f", path,
                hw->runtime_reserved_bytes / GIB, hw->hbm_bytes / GIB);
        else
            st = sim_hw_check_power(hw, path, err);
    }
    cJSON_Delete(root);
    return st;
}

size_t sim_hw_n_fields(void) { return N_FIELDS; }

sim_hw_field_info sim_hw_field(const sim_hw *hw, size_t i)
{
    const hw_field *f = &hw_fields[i];
    const sim_hw_arch *a = sim_hw_arch_find(hw->arch);
    return (sim_hw_field_info){.json = f->json,
                               .value = get_si(hw, f) / f->scale,
                               .origin = (sim_hw_origin)hw->origin[i],
                               .rule = f->doc,
                               .arch_source = a && f->rule != HR_REQUIRED && f->rule != HR_COPY &&
                                                      f->rule != HR_CONST
                                                  ? a->source
                                                  : NULL};
}

const char *sim_hw_origin_name(sim_hw_origin o)
{
    static const char *const names[] = {
        [SIM_HW_FILE] = "file", [SIM_HW_DEFAULT] = "default", [SIM_HW_DERIVED] = "derived"};
    return names[o];
}
