/* cost.h - the roofline time of one operator on one device. Pure functions: no I/O, no state.
 *
 *   T_math = FLOPs / (peak[compute format] x efficiency)    GEMM M padded to the tile (a
 *            grouped expert GEMM with M blocks is priced by its kernel family, moe.h:
 *            sim_moe_gemm_price; one without pads each expert's rows to the tile), and
 *            GEMM efficiency = the format's peak efficiency x shape efficiency (wave
 *            quantization of the output tiles over the compute units, K-pipeline fill), the
 *            cheaper of plain tiling and split-K plus its reduction for small-M GEMMs;
 *            weight-only GEMMs add the in-kernel dequantization on the vector units
 *   T_mem  = bytes / (HBM bandwidth x memory efficiency); attention's KV-cache reads at the
 *            (lower) paged-attention efficiency; quantized GEMMs at their format's streaming
 *            fraction (hw quant.gemm_memory, quant.mixed_input_memory); decode attention no
 *            less than its kernel's CTA bound (dattn.h: a kernel that gives one CTA a whole
 *            sequence's head runs batch x heads CTAs, too few to fill the SMs at small batch)
 *   T_net  = the collective's time under the algorithm and protocol collective.h picks (or the
 *            one forced), scale-out links once it spans more than one node
 *   time   = max(T_math, T_mem) + T_net + kernels x launch overhead
 *
 * Compute and memory traffic overlap inside a kernel (max); how much network time hides behind
 * other ops' compute is decided per step (step.h), not here.
 */
#ifndef SIM_COST_H
#define SIM_COST_H

#include <stdbool.h>

#include "collective.h"
#include "graph.h"
#include "hw.h"
#include "status.h"

typedef enum sim_bound {
    SIM_BOUND_COMPUTE,
    SIM_BOUND_MEMORY,
    SIM_BOUND_NETWORK,
    SIM_BOUND_OVERHEAD, /* launch overhead exceeds the op's math, memory and network time */
    SIM_BOUND_COUNT
} sim_bound;

typedef struct sim_op_cost {
    double t_math_ns;   /* compute time */
    double t_mem_ns;    /* HBM time */
    double t_net_ns;    /* collective time */
    double t_launch_ns; /* launch overhead */
    double t_ns;        /* max(math, mem) + net + launch */
    sim_bound bound;
    sim_coll_algo coll_algo;   /* collectives: the algorithm priced */
    sim_coll_proto coll_proto; /* and its protocol (NONE for custom / multicast kernels) */
    int moe_block_m;           /* grouped expert GEMMs: the M block their family picked */
    double moe_padded_rows;    /* and the rows their experts pad to (expected) */
    int extra_kernels;         /* decode attention's merge pass (dattn.h): 1, else 0 */
} sim_op_cost;

/* Whether `op` is a grouped expert GEMM priced by its kernel family (moe.h: M blocks set). */
bool sim_cost_is_grouped(const sim_op *op);

/* A block-scaled fp8 GEMM (sim_op.block_scaled: DeepSeek-V3's 128 x 128 weight blocks) as
 * vLLM launches it (Triton w8a8_block_fp8_matmul: one thread block per BLOCK_SIZE_M 64 rows x
 * BLOCK_SIZE_N 128 columns, the scale block's width; no split-K): each thread block streams its
 * K x 128 weights and K/128 scales at block_fp8_cta_gb_per_s, the blocks in waves of the
 * SMs. At small M a projection has fewer blocks than SMs (DeepSeek-V3's q_a, N 1536: 12 of
 * 132), so its time is the one block's, not the weights over HBM bandwidth: N 2112, K 7168 at
 * M 1 takes 23.3 us on H100 (vLLM PR #23280) where its 15 MB stream in 5 us. The memory-side
 * floor of the op (0 when it does not apply or the device has no measured rate). An engine
 * running DeepGEMM's fp8 GEMM instead (SGLang: its block_n heuristic fills the SMs) clears the
 * flag (step.c). Example:
 *   ... 918 KB per block / 42 GB/s: one wave of 17 blocks, 21.8 us */
enum { SIM_COST_BLOCK_FP8_M = 64, SIM_COST_BLOCK_FP8_N = 128 };
double sim_cost_block_fp8_cta_ns(const sim_hw *hw, const sim_op *op);

/* The same thread-block stream in a block-scaled fp8 Triton fused_moe (vLLM's and SGLang's
 * fused_moe_kernel with block_shape [128, 128]: BLOCK_SIZE_K is the scale block's 128 whatever
 * the config, BLOCK_SIZE_N 128 in the block-fp8 default config; vllm fused_moe.py
 * get_default_config, sglang fused_moe_triton_config.py): one program per M block of an
 * expert's rows x 128 columns walks that expert's K x 128 weights and K/128 scales as
 * w8a8_block_fp8_matmul's thread block does, at block_fp8_cta_gb_per_s; the programs of all the
 * M blocks (padded_rows / block_m, the family's: moe.h) in waves of the SMs. It bounds the op's
 * memory time from below on devices that state a block_fp8_cta_gb_per_s and no moe_k_step_us
 * (where the fitted K loop stands for the same steps, moe.h); 0 otherwise, and for other
 * families, formats or ops. DeepSeek-V3 at TP 8 and one token on H100 (42 GB/s): gate_up
 * (N 512, K 7168) 8 experts x 4 programs, one wave of 7168 x 128 + 56 x 4 = 917,728 B:
 * 21.85 us; down (N 7168, K 256) 8 x 56 = 448 programs in 4 waves of 32,776 B: 3.12 us.
 * Example (const sim_hw *hw, const sim_op *op):
 *   double t = sim_cost_block_fp8_moe_cta_ns(hw, op, 16, 128.0); // 8 experts' 16-row blocks */
double sim_cost_block_fp8_moe_cta_ns(const sim_hw *hw, const sim_op *op, int block_m,
                                     double padded_rows);

/* Its math floor: the BLOCK_SIZE_M x 128 tiles over K in waves of the SMs, each at block_fp8_math_eff of
 * an SM's fp8 peak (the block scales applied in the main loop): N 2112, K 7168 at M 4096 is
 * 1088 tiles in 9 waves, 9 x 117.4 MFLOP / (1979 / 132 TFLOP/s x 0.230) = 306 us on H100
 * (403 TFLOP/s measured). 0 when it does not apply. */
double sim_cost_block_fp8_math_ns(const sim_hw *hw, const sim_op *op);

/* "compute", "memory", "network", "overhead". */
const char *sim_bound_name(sim_bound b);

/* Checks that the device can compute every format the precision asks for (fp8 on an A100 is an
 * error that says so). */
sim_status sim_cost_check_support(const sim_hw *hw, const sim_prec *prec, sim_err *err);

/* Prices one op. launch_ns is the per-kernel overhead (eager or CUDA-graph). An op that is not
 * present costs nothing. */
sim_op_cost sim_cost_op(const sim_hw *hw, const sim_op *op, double launch_ns);

/* The shape part of a bf16 GEMM's efficiency, in (0, 1], with its K split `split` ways (1:
 * none): M padded to gemm_tile_m, counted in wave_tile x wave_tile tiles (64 padded rows are half
 * a 128-row tile's work: the waves are counted in the rows the FLOPs are padded to), times split,
 * run in waves over the compute units (a partial last wave idles the rest), times K / (K +
 * k_half) for the pipeline's fill. */
double sim_cost_gemm_shape_eff(const sim_hw *hw, int64_t m, int64_t n, int64_t k, int split);

/* The largest split-K factor, the one that fills the idle units of a GEMM with fewer output
 * tiles than units: floor(compute_units / tiles), or 1. A GEMM's math time is the cheapest of
 * plain tiling and each split up to this one plus the reduction of its partial sums
 * (sim_cost_gemm_split_bytes through HBM), as cuBLAS's heuristics choose among them. */
int sim_cost_gemm_split_k(const sim_hw *hw, int64_t m, int64_t n);

/* HBM bytes of a split-K reduction: each of `split` slices writes an fp32 M x N partial (the
 * GEMM's real rows) and the reduction reads them all back: 2 x split x M x N x 4. */
double sim_cost_gemm_split_bytes(int64_t m, int64_t n, int split);

/* The same for a GEMM computing in `compute`: its own K-pipeline term (sim_hw_gemm_k_half). */
double sim_cost_gemm_shape_eff_in(const sim_hw *hw, sim_dtype compute, int64_t m, int64_t n,
                                  int64_t k, int split);

/* The softmax exponentials of an attention op on a device that states its special-function
 * rate (hw.h attention_exp_tera_per_s): FlashAttention-2 computes one exp per (query, key)
 * score on the SFUs between its two MMAs, not overlapped with them (FlashAttention-3 on Hopper
 * overlaps them; the FA3 paper, arXiv:2407.08608, counts H100 SXM5's 3.9 TFLOPS of special
 * functions against 989 TFLOPS of matmul): scores = flops / (4 head_dim) at that rate, added
 * to the op's math time. 0 when the device states no rate, for MLA (dec.v_dim > 0) and for
 * ops that are not attention.
 * Example:
 *   sim_hw hw = {.attn_exp_per_s = 2.4365e12};
 *   sim_op op = {.id = SIM_OP_ATTENTION, .flops = 4.0 * 64 * 1e9, .dec = {.head_dim = 64}};
 *   double ns = sim_cost_attention_exp_ns(&hw, &op); // 1e9 scores: 410,425 ns
 */
double sim_cost_attention_exp_ns(const sim_hw *hw, const sim_op *op);

/* A fused attention kernel's fixed work per query block, as a factor on its math time: each
 * query block (FlashAttention's outer loop, CK's FMHA tile) loads its Q rows, fills the K/V
 * pipeline, and rescales and writes O once, however many keys it then attends; that costs
 * hw.h attention_kv_half keys of the main loop, so a kernel whose queries attend L keys each
 * (op->attn_keys: pairs / query tokens, N for a non-causal prefill of N, (N + 1) / 2 causal)
 * takes 1 + kv_half / L times its main loop. 1 when the device states no kv_half or the op no
 * keys (MLA, vision). MI355X's CK FMHA rows show it: causal at N runs at non-causal's rate at
 * N / 2 (745 TFLOP/s at 4096 against 733 at 2048, 893 at 16384 against 896 at 8192).
 * Example:
 *   sim_hw hw = {.attn_kv_half = 683.0};
 *   sim_op op = {.id = SIM_OP_ATTENTION, .attn_keys = 4096.0};
 *   double f = sim_cost_attention_block_factor(&hw, &op); // 1 + 683 / 4096 = 1.16675
 */
double sim_cost_attention_block_factor(const sim_hw *hw, const sim_op *op);

/* The largest of an op's math, memory, network and launch times (ties go to the first). */
sim_bound sim_cost_bound(const sim_op_cost *c);

/* Rows a grouped GEMM computes: `rows` spread over `groups` problems (experts), each padded up to
 * the tile: groups x ceil(rows / groups / tile) x tile (one problem: the plain padding). */
double sim_cost_grouped_padded_m(double rows, double groups, int tile);

/* One row of the seed's quantization table (section 4): a scheme, the bytes a decode GEMM
 * reads per weight (scales included), the dense peak of its math, and the critical batch where
 * decode GEMMs turn compute-bound on the pure roofline: 2 B FLOPs per weight against
 * bytes_per_param bytes, so B* = peak x bytes_per_param / (2 x HBM bandwidth). Full quantization
 * scales peak and bytes together and keeps B*; weight-only divides it. */
typedef struct sim_quant_scheme {
    const char *name;       /* bf16, int8-weight-only, int4-weight-only, int8, fp8, fp4, w4a8 */
    sim_dtype weight, act;  /* stored weights, math */
    double bytes_per_param; /* weight bytes per parameter, group/block scales included */
    double peak_flops;      /* dense peak of the math format, FLOP/s */
    double critical_batch;  /* sequences */
} sim_quant_scheme;

#define SIM_QUANT_SCHEMES 7

/* The schemes `hw` runs (its tensor cores compute the math format), in the order above, with
 * integer weight-only and W4A8 weights in groups of group_size (0: per channel). Returns how
 * many were written to out[SIM_QUANT_SCHEMES]. */
size_t sim_cost_quant_schemes(const sim_hw *hw, int64_t group_size, sim_quant_scheme *out);

/* Padded M of a GEMM: m rounded up to a multiple of the tile. */
double sim_cost_padded_m(int64_t m, int tile);

#endif
