/* moe.h - mixture-of-experts kernels and expert load: which grouped-GEMM kernel family an engine
 * runs the experts with (its M blocks, N block and layout), how many rows the busiest
 * expert-parallel rank expects from the routing, how its experts' rows pad to the kernel's block,
 * and the math time of the tiles of all active experts packed into waves of SMs.
 *
 * Expert load (sim_moe_load_compute). Each of T tokens picks k of E experts. Routing gives
 * every expert a per-token probability p_e (sum k): uniform p_e = k/E, or Zipf-skewed
 * p_(i) ∝ i^-s for the i-th most popular expert (scaled to sum k, none above 1; the popularity
 * order is a fixed shuffle of the expert ids, so hot experts are not all on one rank). Experts
 * sit on the EP ranks contiguously by id (E/ep each), or, with R redundant experts (EPLB), the
 * R replicas go one at a time to the expert of the highest load per replica and the E + R slots
 * are packed onto the ranks heaviest first, each to the lightest rank with a free slot
 * (DeepSeek's eplb.py: replicate_experts, balanced_packing); a replica takes p_e / replicas.
 *   A rank with m slots of mean probability q receives L ~ Binomial(T m, q) rows (each (token,
 * slot) pair independent: exact in the mean, the variance ignores that a token's k picks are
 * distinct). The busiest rank expects E[max_r L_r] = sum_{x >= 1} (1 - prod_r F_r(x - 1)) rows
 * (ranks independent), at least the largest mean and at most T min(k, m). At ep = 1 the one rank
 * gets exactly T k rows. The busiest rank is the one with the largest mean; its slot
 * probabilities scale by s = E[max] / its mean, so each of its experts gets n ~ Binomial(T, q s)
 * rows: it touches sum (1 - (1 - q s)^T) experts (or the most any rank touches at its mean,
 * when more: the weights a memory-bound step reads) and pads them to sum E[ceil(n / B)] blocks of
 * B rows. `--expert-imbalance X` fixes s = X instead (rows T k X / ep).
 *
 * Kernel families (sim_moe_kernel), each as the named kernels run it:
 *   triton    vLLM / SGLang fused_moe (Triton): tokens sorted by expert, each expert's rows
 *             padded to BLOCK_SIZE_M (moe_align_block_size); the tuned configs pick
 *             BLOCK_SIZE_M 16, 32, 64 or 128 by the step's tokens (vLLM fused_moe/configs/
 *             E=...,N=....json), BLOCK_SIZE_N 32..128. Without a tuned file the engines run
 *             get_default_config, which this does not model: vLLM (@13cb3e44, fused_moe.py)
 *             16 x 32 x 64 (M, N, K blocks) when M <= E, else 64 x 64 x 32; block-scaled fp8
 *             64 x 128 x 128 at every M. SGLang (@083d6013, fused_moe_triton_config.py): the
 *             same 16 / 64 for 16-bit, per-tensor fp8 64 x 128 x 128 when M <= E, else
 *             128 x 256 x 128, block-scaled fp8 64 x 128 x 128. Each quantizes an 8-bit
 *             GEMM's input in a kernel of its own (priced: graph_build.c build_moe)
 *   deepgemm  DeepGEMM m-grouped GEMMs: contiguous layout for prefill (each expert's segment
 *             aligned to the 128-row M block, get_mk_alignment_for_contiguous_layout), masked
 *             layout for decode (each expert computes its valid rows in blocks of 64 or 128)
 *   cutlass   CUTLASS grouped GEMM (TensorRT-LLM's MoE runner, FlashInfer cutlass_fused_moe):
 *             one problem per expert, CTA tiles 64 or 128 rows x 128
 *   ck        ROCm aiter / Composable Kernel fused MoE (2-stage): M blocks 32, 64 or 128 x 128
 *   marlin    vLLM's fused_marlin_moe (csrc/moe/marlin_moe_wna16), the mixed-input experts'
 *             kernel (int4 / mxfp4 weights, 16-bit activations): tokens sorted by expert and
 *             gathered in the kernel as Triton's; moe_block_size the first of 8, 16, 32, 48, 64
 *             with M x topk / E / block < 0.9 (fused_marlin_moe.py; 8 pads to the MMA's 16
 *             here), thread tiles 64 or 128 columns wide. Its MMA is the warp-level
 *             mma.sync.m16n8k16 of Ampere (marlin's mma helpers; no wgmma), so on every device
 *             it computes at hw mma_sync_fraction of the dense peak (Hopper: about 2/3)
 * The tiles of all active experts are packed into waves of compute_units; a tile of B x Nb
 * outputs over K takes 2 B Nb K / (peak x eff_gemm x family efficiency / compute_units) / kf,
 * with kf = K / (K + gemm_k_half of the format) (the K pipeline of bf16, fp8 block-scaled,
 * fp4/mxfp4, int8). Mixed-input experts (int4 / mxfp4 weights under 16-bit math) run at the
 * weight-only efficiency and dequantize each weight once per M block. The family picks the M
 * block of the least time among those it has (as its autotuned configs do).
 *
 * Example:
 *   sim_moe_routing r = {.kind = SIM_MOE_ROUTE_UNIFORM};
 *   sim_moe_load ld;
 *   sim_moe_load_compute(&r, 8, 2, 4, 1.0, 0.0, &ld); // Mixtral, EP 4, one token
 *   double rows = ld.rows;                            // 1.127: the busiest rank's expectation
 *   double blocks[SIM_MOE_BLOCKS];
 *   sim_moe_row_blocks(&ld, blocks);                  // expected 16-, 32-, 64-, 128-row blocks
 */
#ifndef SIM_MOE_H
#define SIM_MOE_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "hw.h"
#include "status.h"

typedef enum sim_moe_kernel {
    SIM_MOE_TRITON,
    SIM_MOE_DEEPGEMM,
    SIM_MOE_CUTLASS,
    SIM_MOE_CK,
    SIM_MOE_MARLIN,
    SIM_MOE_KERNEL_COUNT
} sim_moe_kernel;

/* "triton", "deepgemm", "cutlass", "ck", "marlin". */
const char *sim_moe_kernel_name(sim_moe_kernel k);

/* The family named `s`; false when none is. */
bool sim_moe_kernel_parse(const char *s, sim_moe_kernel *out);

/* "triton, deepgemm, cutlass, ck or marlin" (for messages). */
const char *sim_moe_kernel_names(void);

/* The M blocks any family may pick: 16, 32, 64, 128 rows. */
enum { SIM_MOE_BLOCKS = 4 };
int sim_moe_block_rows(int i);

/* The layout a family runs: "sorted" (Triton, Marlin), "contiguous" / "masked" (DeepGEMM
 * prefill / decode), "grouped" (CUTLASS, CK). */
const char *sim_moe_layout(sim_moe_kernel k, bool decode);

/* True when the family gathers each expert's rows inside its GEMM from sorted token ids
 * (Triton, Marlin), false when the rows are copied into expert segments first. */
bool sim_moe_gathers_rows(sim_moe_kernel k);

/* The share of the device's dense peak the family's MMA instruction reaches: hw
 * mma_sync_fraction for Marlin's mma.sync (1 when a hand-built device leaves it 0), 1 for the
 * families that issue the device's own tensor-core instruction.
 * Example:
 *     sim_hw hw = {.mma_sync_frac = 0.667};
 *     double f = sim_moe_kernel_peak_frac(&hw, SIM_MOE_MARLIN); // 0.667
 */
double sim_moe_kernel_peak_frac(const sim_hw *hw, sim_moe_kernel k);

typedef enum sim_moe_route_kind {
    SIM_MOE_ROUTE_UNIFORM,
    SIM_MOE_ROUTE_ZIPF,
    SIM_MOE_ROUTE_FILE /* a measured per-layer expert histogram (sim_moe_hist) */
} sim_moe_route_kind;

/* Expert slots a skewed or redundant routing handles (uniform routing has no limit). */
#define SIM_MOE_MAX_SLOTS 1024

/* Layers x experts values an expert-load histogram holds (DeepSeek-V3: 58 x 256). */
#define SIM_MOE_HIST_MAX 65536

/* A measured expert load (--expert-load FILE, read by sim_moe_hist_load): for each MoE layer,
 * each expert's share of the layer's routed rows (token copies), summing to 1 per layer. A
 * token picks expert e of that layer with probability k x share (k the model's top-k). One
 * layer stands for every MoE layer. */
typedef struct sim_moe_hist {
    char path[512];               /* the file, for messages */
    int layers, experts;
    double share[SIM_MOE_HIST_MAX]; /* [layer * experts + expert] */
} sim_moe_hist;

/* How tokens pick experts, and the redundant experts EPLB adds. */
typedef struct sim_moe_routing {
    sim_moe_route_kind kind;
    double zipf_s; /* ZIPF: exponent s > 0 of p_(i) ∝ i^-s */
    int redundant; /* EPLB's redundant experts (0: none, experts contiguous by id) */
    const sim_moe_hist *hist; /* FILE: the histogram (not owned) */
    int layer;                /* FILE: the histogram's layer sim_moe_load_compute prices */
} sim_moe_routing;

/* Parses "uniform" or "zipf:S" (S in (0, 8]). */
bool sim_moe_routing_parse(const char *s, sim_moe_routing *out);

/* The busiest EP rank's expected load for one step. */
typedef struct sim_moe_load {
    double tokens;       /* T */
    double rows;         /* its expected routed rows (token copies) */
    double mean_rows;    /* a rank's mean: T k / ep */
    double imbalance;    /* rows / mean_rows */
    double touched;      /* its experts (slots) expected to get at least one row, or the most
                          * any rank expects to touch when that is more (skewed routing: a rank
                          * of colder experts touches more of them) */
    double touched_other; /* that most of any rank at its mean load (skewed or redundant) */
    int slots;           /* its expert slots */
    double q[SIM_MOE_MAX_SLOTS]; /* per-token probability of each of them (scaled by s) */
    int distinct;        /* how many of q are listed: 1 when they are all equal */
} sim_moe_load;

/* Checks E, k, ep and the routing: ep divides E + redundant, at most SIM_MOE_MAX_SLOTS slots
 * when skewed or redundant. Errors name the flag. */
sim_status sim_moe_routing_check(const sim_moe_routing *r, int64_t experts, int64_t k, int ep,
                                 sim_err *err);

/* The busiest rank's load for T tokens (see above); fixed_imbalance > 0 fixes s instead. The
 * routing must have passed sim_moe_routing_check. */
void sim_moe_load_compute(const sim_moe_routing *r, int64_t experts, int64_t k, int ep,
                          double tokens, double fixed_imbalance, sim_moe_load *out);

/* Expected experts touched on a rank of `slots` experts each picked per token with probability
 * q: slots (1 - (1 - q)^T). With q = k/E and all E slots: E (1 - (1 - k/E)^T). */
double sim_moe_experts_touched(double slots, double q, double tokens);

/* Expected M blocks of each of sim_moe_block_rows(i) rows the busiest rank's experts pad to:
 * sum over its slots of E[ceil(n / B)], n ~ Binomial(T, q). */
void sim_moe_row_blocks(const sim_moe_load *ld, double blocks[SIM_MOE_BLOCKS]);

/* What a step's MoE ops take of the busiest rank's load: sim_moe_load's scalars and the M
 * blocks of sim_moe_row_blocks. Under a FILE routing, the mean over the histogram's layers of
 * each layer's (the step prices one MoE layer times the MoE layers, and its grouped GEMMs' time
 * is near-linear in rows, experts touched and blocks). */
typedef struct sim_moe_step_load {
    double tokens, rows, mean_rows, imbalance, touched;
    double blocks[SIM_MOE_BLOCKS];
} sim_moe_step_load;

/* A memo of step loads, keyed by every input (routing, E, k, ep, tokens, fixed imbalance): the
 * load is a pure function of them, and a run's decode steps, its uncertainty draws and a
 * serving run's iterations ask for the same few token counts again and again. Caller-owned run
 * state (zero it to start; one per thread); a slot reused by another key is recomputed, so the
 * results are those of sim_moe_step_load_of without it, bit for bit. */
enum { SIM_MOE_CACHE_SLOTS = 128 };
typedef struct sim_moe_cache_entry {
    bool used;
    sim_moe_routing r;
    int64_t experts, k;
    int ep;
    double tokens, fixed;
    sim_moe_step_load v;
} sim_moe_cache_entry;
typedef struct sim_moe_cache {
    sim_moe_cache_entry e[SIM_MOE_CACHE_SLOTS];
    uint64_t hits, misses; /* for tests and benchmarks */
} sim_moe_cache;

/* The cache's slot of a token count: a multiplicative hash of floor(tokens), so the powers of
 * two a run's prefill and decode ask for (256 x 2048 and 256) do not share one. */
size_t sim_moe_cache_slot(double tokens);

/* The step load (above) through `cache` (NULL: computed each time). */
void sim_moe_step_load_of(const sim_moe_routing *r, int64_t experts, int64_t k, int ep,
                          double tokens, double fixed_imbalance, sim_moe_cache *cache,
                          sim_moe_step_load *out);

/* Reads an expert-load histogram for a model of `experts` routed experts, top-k `k`, and
 * `moe_layers` MoE layers. The file is JSON:
 *   {"logical_count": [[c_0, c_1, ..., c_(E-1)],   one array per MoE layer, in layer order
 *                      ...]}
 * each c a count of rows (token copies) routed to that expert or a fraction (any non-negative
 * scale: each layer is normalised to shares summing to 1), as SGLang's expert distribution
 * recorder counts them per layer and logical expert (`logical_count`, [layers, experts]) and as
 * DeepSeek's eplb.py takes its `weight` input; one layer's array stands for every layer. A
 * wrong count of layers or experts, a negative or non-finite count, an all-zero layer, or an
 * expert above 1/k of a layer's rows (each token picks k distinct experts) is SIM_EINPUT naming
 * the file, the field, the value and what was expected.
 * Example (sim_err *err):
 *   static sim_moe_hist h;                      // 512 KiB: static or on the heap
 *   sim_status st = sim_moe_hist_load("load.json", 256, 8, 58, &h, err); // DeepSeek-V3
 *   sim_moe_routing r = {.kind = SIM_MOE_ROUTE_FILE, .hist = &h};
 *   (void)r;
 *   return st;
 */
sim_status sim_moe_hist_load(const char *path, int64_t experts, int64_t k, int64_t moe_layers,
                             sim_moe_hist *out, sim_err *err);

/* E[ceil(n / B)] for n ~ Binomial(trials, p). */
double sim_moe_binomial_blocks(double trials, double p, int block);

/* One grouped GEMM of the experts as priced. */
typedef struct sim_moe_gemm {
    int block_m, block_n; /* the tile chosen */
    double row_blocks;    /* expected M blocks over the active experts */
    double padded_rows;   /* row_blocks x block_m */
    double tiles, waves;  /* row_blocks x ceil(N / block_n); ceil(tiles / compute_units) */
    double math_ns;       /* waves x one tile's time (+ dequantization) */
} sim_moe_gemm;

/* The grouped GEMM's math on `hw`: N x K per expert, `blocks` from sim_moe_row_blocks, math in
 * `compute` (weights in `weight`, dequantized when weight_only), for a step of `tokens` tokens:
 * Triton's least-time M block among the one its tuned configs pick for that many tokens
 * (sim_moe_triton_block_m) and the larger ones they pick at more tokens (so the time never
 * falls as tokens grow; tokens 0: the least-time one), the other families' least-time M block;
 * every family's least-time N block. All blocks 0: an empty GEMM (math 0). */
sim_moe_gemm sim_moe_gemm_price(const sim_hw *hw, sim_moe_kernel kernel, bool decode,
                                double tokens, sim_dtype compute, sim_dtype weight,
                                bool weight_only, const double blocks[SIM_MOE_BLOCKS], int64_t n,
                                int64_t k);

/* Triton fused_moe's BLOCK_SIZE_M for a step of `tokens` tokens, as vLLM's tuned configs key it
 * on M: 16 below 64 tokens, 32 below 128, 64 below 1024, else 128 (E=8,N=3584 on A100, vLLM
 * PR #3389; other tuned files were not checked). Not the
 * untuned default (get_default_config, above), which keys on M <= E instead and never takes
 * 128 rows for 16-bit weights; the two differ only in the padding of the M blocks. */
int sim_moe_triton_block_m(double tokens);

/* Triton fused_moe's BLOCK_SIZE_K: 64 for 16-bit math, 128 for 8- and 4-bit (get_default_config
 * of vLLM's fused_moe.py and SGLang's fused_moe_triton_config.py at M <= E; the block-scaled fp8
 * config takes block_shape[1] = 128; the tuned B200 fp8 file of sgl-project/sglang#11816 128). */
int sim_moe_triton_block_k(sim_dtype compute);

/* The K loop of a Triton fused_moe GEMM on `hw`: every thread block walks its BLOCK_SIZE_N
 * weight columns' whole K in ceil(K / BLOCK_SIZE_K) dependent steps of hw moe_k_step_ns, which
 * the kernel pays on top of its bytes (a latency its few resident blocks per SM do not hide at
 * small M). The loop as the engines run it: sgl-project/sglang@006fc20 (and vLLM's original it
 * was adapted from) python/sglang/srt/layers/moe/fused_moe_triton/fused_moe.py, fused_moe_kernel:
 * `for k in range(0, tl.cdiv(K, BLOCK_SIZE_K))`, one BLOCK_SIZE_M x BLOCK_SIZE_K tile of the
 * gathered tokens and one BLOCK_SIZE_K x BLOCK_SIZE_N tile of the expert loaded per step, no
 * split-K; fused_experts_impl launches it twice (w13, w2) between moe_align_block_size,
 * silu_and_mul and the top-k sum, the kernels graph_build.c counts. 0 for another kernel family, math below 8 bits (4-bit experts run other kernels:
 * triton_kernels' matmul_ogs, Marlin, FlashInfer's), K <= 0, or a device without the constant;
 * the caller leaves out mixed-input experts for the same reason.
 * B200's 0.545 us: least squares over rows 3620-3628 (vLLM PR #31448 bf16, 44 steps; SGLang
 * PR #11816 block fp8, 58 steps; median 3.8%); by hand, Qwen3-235B-A22B at TP 8 in bf16
 * (K 4096 and 192): 64 + 3 steps = 36.5 us a layer. A100's 0.798 us: least squares (relative
 * error) over rows 3674-3678 alone (vLLM PR #19049, A100 PCIe 40GB, Qwen3-30B-A3B bf16 with the
 * default config: K 2048 and 768, 32 + 12 = 44 steps; 1-16 tokens). The loop adds 44 s to
 * every row, so s = sum(a_i b_i) / sum(a_i^2) with a_i = 44 / t_i and b_i = (t_i - p_i) / t_i
 * (t measured, p priced without the loop: 109.2 / 69.7, 159.8 / 126.5, 268.9 / 229.9,
 * 403.1 / 400.6, 611.2 / 634.7 us) = 0.2247 / 0.2820 = 0.798 us; median 4.1 % (before -36 % at
 * 1 token), worst +9.6 % at 16.
 * Example:
 *     sim_hw hw = {.moe_k_step_ns = 545.0};
 *     double ns = sim_moe_triton_kloop_ns(&hw, SIM_MOE_TRITON, SIM_DT_BF16, 4096);
 *     // 64 steps: 34880 ns
 */
double sim_moe_triton_kloop_ns(const sim_hw *hw, sim_moe_kernel kernel, sim_dtype compute,
                               int64_t k);

/* The family's efficiency on top of the device's GEMM efficiency for `compute` (fitted on its
 * op-level rows; 1 where no public rows were found). */
double sim_moe_kernel_eff(sim_moe_kernel kernel, sim_dtype compute);

#endif
