/* hw_arch.c - the architectures' constants of the device loader (hw.c): what a datasheet does not
 * give, one row per architecture. */
#include "hw_internal.h"

#include <string.h>

/* one architecture per block, its numbers grouped by kind */
/* clang-format off */
static const sim_hw_arch hw_archs[] = {
    {.name = "hopper",
     .fp16 = 1, .fp8 = 2, .int8 = 2, .int4 = 0, .fp4 = 0, .vector_ratio = 67.0 / 989.4,
     .tile_m = 64, .wo_tile_m = 16, .wave_tile = 128, .devices_per_node = 8,
     .launch_us = 4, .graph_launch_us = 1.5, .collective_us = 8, .hop_us = 1.5,
     .scaleout_gb = 50, .scaleout_us = 5, .host_link_gb = 63.0, .reserved_gib = 1,
     .eff_bf16 = 0.8, .eff_fp8 = 0.71, .eff_int8 = 0.71, .eff_wo = 0.6, .eff_attn = 0.57,
     .eff_mem = 0.866, .eff_attn_mem = 0.72, .eff_net = 0.85,
     .decode_cta_gb = 19.2, .block_fp8_cta_gb = 42.0, .block_fp8_math_eff = 0.230,
     .source = "hw/h100-pcie.json (H100 micro-benchmark ratios from tools/data/calibration.csv: "
               "mamf-finder bf16/fp8 matmul, FlashAttention-3, STREAM copy, paged attention, "
               "NCCL all-reduce; NVLink hop and launch costs estimated)"},
    {.name = "ampere",
     .fp16 = 1, .fp8 = 0, .int8 = 2, .int4 = 4, .fp4 = 0, .vector_ratio = 19.5 / 312.0,
     .tile_m = 64, .wo_tile_m = 16, .wave_tile = 128, .devices_per_node = 8,
     .launch_us = 4, .graph_launch_us = 1.5, .collective_us = 12, .hop_us = 3,
     .scaleout_gb = 25, .scaleout_us = 5, .host_link_gb = 31.5, .reserved_gib = 1,
     .eff_bf16 = 0.81, .eff_fp8 = 0.81, .eff_int8 = 0.81, .eff_wo = 0.6, .eff_attn = 0.575,
     .eff_mem = 0.79, .eff_attn_mem = 0.657, .eff_net = 0.6,
     .decode_cta_gb = 13.67, .moe_k_step_us = 0.798,
     .source = "hw/a100-sxm-40gb.json (A100 micro-benchmarks in tools/data/calibration.csv; "
               "latencies estimated)"},
    {.name = "ada",
     .fp16 = 1, .fp8 = 2, .int8 = 2, .int4 = 0, .fp4 = 0, .vector_ratio = 91.6 / 362.05,
     .tile_m = 64, .wo_tile_m = 16, .wave_tile = 128, .devices_per_node = 8,
     .launch_us = 4, .graph_launch_us = 1.5, .collective_us = 10, .hop_us = 5,
     .scaleout_gb = 25, .scaleout_us = 5, .host_link_gb = 31.5, .reserved_gib = 1,
     .eff_bf16 = 0.75, .eff_fp8 = 0.75, .eff_int8 = 0.75, .eff_wo = 0.6, .eff_attn = 0.5,
     .eff_mem = 0.85, .eff_attn_mem = 0.707, .eff_net = 0.7,
     .decode_cta_gb = 24.4,
     .source = "hw/l40s.json (estimates: no Ada micro-benchmarks in tools/data/calibration.csv)"},
    /* mxfp6 at the fp8 rate: tcgen05.mma computes e2m3 / e3m2 operands in its kind::f8f6f4, the
     * kind of fp8 (PTX ISA 8.7, tcgen05 "kind" table; NVIDIA's HGX B200 / B300 and GB200 / GB300
     * pages list one "FP8/FP6" tensor peak) */
    {.name = "blackwell",
     .fp16 = 1, .fp8 = 2, .int8 = 2, .int4 = 0, .fp4 = 4, .mxfp6 = 2, .vector_ratio = 75.0 / 2250.0,
     .tile_m = 64, .wo_tile_m = 16, .wave_tile = 128, .devices_per_node = 8,
     .launch_us = 4, .graph_launch_us = 1.5, .collective_us = 8, .hop_us = 1.5,
     .scaleout_gb = 50, .scaleout_us = 5, .host_link_gb = 63.0, .reserved_gib = 1,
     .eff_bf16 = 0.7925, .eff_fp8 = 0.7747, .eff_int8 = 0.76, .eff_wo = 0.6, .eff_attn = 0.5,
     .eff_mem = 0.85, .eff_attn_mem = 0.707, .eff_net = 0.755,
     .decode_cta_gb = 19.1, .moe_k_step_us = 0.545,
     .source = "hw/b200.json (B200)"},
    {.name = "cdna3",
     .fp16 = 1, .fp8 = 2, .int8 = 2, .int4 = 0, .fp4 = 0, .vector_ratio = 163.4 / 1307.4,
     .tile_m = 64, .wo_tile_m = 16, .wave_tile = 128, .devices_per_node = 8,
     .launch_us = 6, .graph_launch_us = 2, .collective_us = 10, .hop_us = 3,
     .scaleout_gb = 50, .scaleout_us = 5, .host_link_gb = 63.0, .reserved_gib = 1,
     .eff_bf16 = 0.6, .eff_fp8 = 0.6, .eff_int8 = 0.6, .eff_wo = 0.5, .eff_attn = 0.4,
     .eff_mem = 0.8, .eff_attn_mem = 0.665, .eff_net = 0.7,
     .decode_cta_gb = 20.4,
     .source = "hw/mi300x.json (MI300X estimates)"},
    {.name = "tpu",
     .fp16 = 0, .fp8 = 0, .int8 = 2, .int4 = 0, .fp4 = 0, .vector_ratio = 6.0 / 197.0,
     .tile_m = 128, .wo_tile_m = 128, .wave_tile = 128, .devices_per_node = 256,
     .launch_us = 0.5, .graph_launch_us = 0.5, .collective_us = 2, .hop_us = 1,
     .scaleout_gb = 25, .scaleout_us = 10, .host_link_gb = 31.5, .reserved_gib = 0.5,
     .eff_bf16 = 0.75, .eff_fp8 = 0.75, .eff_int8 = 0.75, .eff_wo = 0.6, .eff_attn = 0.5,
     .eff_mem = 0.85, .eff_attn_mem = 0.707, .eff_net = 0.7,
     .decode_cta_gb = 13.67,
     .source = "hw/tpu-v5e.json (TPU v5e estimates)"},
    /* no arch: the hopper row without the 8- and 4-bit formats (the file names those it has) */
    {.name = "",
     .fp16 = 1, .fp8 = 0, .int8 = 0, .int4 = 0, .fp4 = 0, .vector_ratio = 67.0 / 989.4,
     .tile_m = 64, .wo_tile_m = 16, .wave_tile = 128, .devices_per_node = 8,
     .launch_us = 4, .graph_launch_us = 1.5, .collective_us = 8, .hop_us = 1.5,
     .scaleout_gb = 50, .scaleout_us = 5, .host_link_gb = 63.0, .reserved_gib = 1,
     .eff_bf16 = 0.8, .eff_fp8 = 0.71, .eff_int8 = 0.71, .eff_wo = 0.6, .eff_attn = 0.57,
     .eff_mem = 0.866, .eff_attn_mem = 0.72, .eff_net = 0.85,
     .decode_cta_gb = 19.2,
     .source = "no arch given: the hopper row's numbers, with no fp8/int8/int4 peak unless the "
               "file gives one"},
};
/* clang-format on */
enum { N_ARCHS = sizeof hw_archs / sizeof hw_archs[0] };

const sim_hw_arch *sim_hw_arch_find(const char *name)
{
    for (size_t i = 0; i < N_ARCHS; i++)
        if (strcmp(name, hw_archs[i].name) == 0)
            return &hw_archs[i];
    return NULL;
}

double sim_hw_arch_num(const sim_hw_arch *a, size_t off)
{
    return *(const double *)((const char *)a + off);
}
