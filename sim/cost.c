/* cost.c - roofline pricing of one operator. */
#include "cost.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>

static const char *const bound_names[SIM_BOUND_COUNT] = {
    [SIM_BOUND_COMPUTE] = "compute",
    [SIM_BOUND_MEMORY] = "memory",
    [SIM_BOUND_NETWORK] = "network",
    [SIM_BOUND_OVERHEAD] = "overhead",
};

const char *sim_bound_name(sim_bound b)
{
    assert(b >= 0 && b < SIM_BOUND_COUNT);
    return bound_names[b];
}

sim_status sim_cost_check_support(const sim_hw *hw, const sim_prec *prec, sim_err *err)
{
    static const struct {
        const char *flag;
        size_t offset;
    } uses[] = {
        {"--weight-dtype", offsetof(sim_prec, weight)},
        {"--act-dtype", offsetof(sim_prec, act)},
        {"--kv-cache-dtype", offsetof(sim_prec, kv)},
    };
    for (size_t i = 0; i < sizeof uses / sizeof uses[0]; i++) {
        sim_dtype dt = *(const sim_dtype *)((const char *)prec + uses[i].offset);
        /* weights a mixed-input kernel dequantizes (W4A16, fp4 weight-only on Hopper, W4A8)
         * need no math in their own format */
        if (uses[i].offset == offsetof(sim_prec, weight) && sim_graph_mixed_input(prec, dt))
            continue;
        if (hw->peak_flops[dt] <= 0.0) {
            char has[96];
            sim_hw_formats(hw, has, sizeof has);
            return sim_fail(err, SIM_EINPUT,
                            "%s: value %s is not supported by %s (%s has no dense_tflops.%s); "
                            "it computes %s: choose one of those",
                            uses[i].flag, sim_dtype_name(dt), hw->name, hw->path,
                            sim_dtype_name(sim_dtype_get(dt)->peak_of), has);
        }
    }
    return SIM_OK;
}

double sim_cost_padded_m(int64_t m, int tile) { return (double)((m + tile - 1) / tile * tile); }

/* Output tiles of a GEMM whose rows are padded to `rows` (a multiple of the kernel's row tile;
 * a grouped GEMM's every expert padded, sim_cost_grouped_padded_m), in wave_tile x wave_tile
 * units: waves are counted in the very rows the FLOPs are padded to. Counting them in whole
 * wave_tile rows while padding the FLOPs to gemm_tile_m made a GEMM of 65..128 rows as fast as
 * one of 64 (twice the tiles for twice the FLOPs) and one of 129..192 rows cheaper per row than
 * 128, so a prompt's step could get faster as it grew (issue 33 D4). */
static double gemm_tiles(const sim_hw *hw, double rows, int64_t n)
{
    return rows / hw->wave_tile * ceil((double)n / hw->wave_tile);
}

static int gemm_split_k(const sim_hw *hw, double rows, int64_t n)
{
    double tiles = gemm_tiles(hw, rows, n);
    return tiles < hw->compute_units ? (int)(hw->compute_units / tiles) : 1;
}

static double gemm_shape_eff(const sim_hw *hw, sim_dtype compute, double rows, int64_t n,
                             int64_t k, int split)
{
    /* wave quantization: the output tiles (times the K splits) run in waves of compute_units; a
     * partial last wave leaves units idle */
    double work = gemm_tiles(hw, rows, n) * (split > 1 ? split : 1);
    double util = work / (ceil(work / hw->compute_units) * hw->compute_units);
    /* a short K loop spends a larger share filling and draining the pipeline */
    double kh = sim_hw_gemm_k_pipe(hw, compute);
    double kf = kh > 0.0 ? (double)k / ((double)k + kh) : 1.0;
    return util * kf;
}

double sim_cost_grouped_padded_m(double rows, double groups, int tile)
{
    if (rows <= 0.0)
        return 0.0;
    if (groups <= 1.0)
        return ceil(rows / tile) * tile;
    return groups * ceil(rows / groups / tile) * tile;
}

int sim_cost_gemm_split_k(const sim_hw *hw, int64_t m, int64_t n)
{
    return gemm_split_k(hw, sim_cost_padded_m(m, hw->gemm_tile_m), n);
}

double sim_cost_gemm_shape_eff(const sim_hw *hw, int64_t m, int64_t n, int64_t k, int split)
{
    return sim_cost_gemm_shape_eff_in(hw, SIM_DT_BF16, m, n, k, split);
}

double sim_cost_gemm_shape_eff_in(const sim_hw *hw, sim_dtype compute, int64_t m, int64_t n,
                                  int64_t k, int split)
{
    return gemm_shape_eff(hw, compute, sim_cost_padded_m(m, hw->gemm_tile_m), n, k, split);
}

double sim_cost_gemm_split_bytes(int64_t m, int64_t n, int split)
{
    return split > 1 ? 2.0 * split * (double)m * (double)n * 4.0 : 0.0;
}

/* The math time of a GEMM of m rows padded to `rows`, doing `flops` at `rate` FLOP/s before
 * shape effects: the cheapest of plain tiling (wave-quantized) and each split-K up to the one
 * that fills the idle units, plus the reduction of its fp32 partial sums through HBM, as
 * cuBLAS's heuristics choose. Every split is tried, not only the largest: the largest's
 * reduction grows with M while its compute falls, so taking it alone let a GEMM of more rows
 * (fewer tiles to split) cost less than one of fewer. The time of each split never falls as rows
 * grow, so neither does the cheapest. */
/* The output tiles (rows x columns) a tuned ROCm GEMM library keeps kernels of and picks the
 * fastest of per shape: the tiles of the kernels ROCm/aiter's tuner chose for gfx950
 * (aiter/configs/bf16_tuned_gemm.csv, a8w8_bpreshuffle_tuned_gemm.csv,
 * a4w4_blockscale_tuned_gemm.csv @e4048607a535ace3a2b51ded31b1c8c2d45c0879: 32x64, 64x64,
 * 96x64, 128x128, 128x192, 128x256, 256x128, 192x256, 256x256, 128x384, 128x512, ...). */
static const struct {
    int rows, cols;
} feed_tiles[] = {
    {32, 64},   {64, 64},   {96, 64},   {64, 128},  {128, 128}, {128, 192},
    {192, 128}, {128, 256}, {256, 128}, {192, 256}, {256, 256}, {128, 384},
};

/* The math time of a GEMM of m rows (K `k`, N `n`) on a device whose compute units' operand
 * feed is stated: the fastest tile and K split of feed_tiles. A wave of tiles lasts as long as
 * one tile's MMAs at a unit's share of `rate` (K-pipeline term included) or its operands at
 * the unit's feed, whichever is longer; the waves are the tiles times the split over the
 * units; a split adds its fp32 partials' reduction through HBM. */
static double gemm_feed_ns(const sim_hw *hw, const sim_op *op, int64_t m, double rate)
{
    const double kh = sim_hw_gemm_k_pipe(hw, op->compute);
    const double kf = kh > 0.0 ? (double)op->k / ((double)op->k + kh) : 1.0;
    const double unit_rate = rate * kf / hw->compute_units;
    const double elem = sim_dtype_bytes(op->compute);
    double best = INFINITY;
    for (size_t i = 0; i < sizeof feed_tiles / sizeof feed_tiles[0]; i++) {
        const double mt = feed_tiles[i].rows, nt = feed_tiles[i].cols;
        const double tiles = ceil((double)m / mt) * ceil((double)op->n / nt);
        const int most = tiles < hw->compute_units ? (int)(hw->compute_units / tiles) : 1;
        for (int split = 1; split <= most; split++) {
            const double kk = (double)op->k / split;
            const double math = 2.0 * mt * nt * kk / unit_rate;
            const double feed = (mt + nt) * kk * elem / hw->gemm_cu_feed_bytes_per_s;
            const double waves = ceil(tiles * split / hw->compute_units);
            double t = waves * (math > feed ? math : feed) * 1e9;
            if (split > 1)
                t += sim_cost_gemm_split_bytes(m, op->n, split) /
                     (hw->hbm_bytes_per_s * hw->eff_memory) * 1e9;
            if (t < best)
                best = t;
        }
    }
    return best;
}

/* The math time of a GEMM of m rows padded to `rows`, doing `flops` at `rate` FLOP/s before
 * shape effects: the cheapest of plain tiling (wave-quantized) and each split-K up to the one
 * that fills the idle units, plus the reduction of its fp32 partial sums through HBM, as
 * cuBLAS's heuristics choose. Every split is tried, not only the largest: the largest's
 * reduction grows with M while its compute falls, so taking it alone let a GEMM of more rows
 * (fewer tiles to split) cost less than one of fewer. The time of each split never falls as rows
 * grow, so neither does the cheapest. On a device whose compute units' operand feed is stated
 * (gemm_cu_feed_gb_per_s, hw.h) the tuned library's tiles are priced instead (gemm_feed_ns). */
static double gemm_tiled_ns(const sim_hw *hw, const sim_op *op, int64_t m, double rows,
                            double flops, double rate)
{
    if (hw->gemm_cu_feed_bytes_per_s > 0.0 && !op->weight_only && op->groups <= 1.0)
        return gemm_feed_ns(hw, op, m, rate);
    double plain = flops / (rate * gemm_shape_eff(hw, op->compute, rows, op->n, op->k, 1)) * 1e9;
    int most = gemm_split_k(hw, rows, op->n);
    double best = plain;
    for (int split = 2; split <= most; split++) {
        double red = sim_cost_gemm_split_bytes(m, op->n, split) /
                     (hw->hbm_bytes_per_s * hw->eff_memory) * 1e9;
        double splitk =
            flops / (rate * gemm_shape_eff(hw, op->compute, rows, op->n, op->k, split)) * 1e9 +
            red;
        if (splitk < best)
            best = splitk;
    }
    return best;
}

/* MLA's absorbed decode part of an attention op (dattn.h): its useful FLOPs (the graph's:
 * 2 rows (d_k + d_v) per cached key), the FLOPs of its query rows padded to the kernel's tiles,
 * and the latent it reads. Zero for other attention. */
typedef struct sim_mla_dec {
    double flops, padded_flops, kv_bytes;
} sim_mla_dec;

static sim_mla_dec mla_dec(const sim_op *op)
{
    const sim_dattn_shape *d = &op->dec;
    sim_mla_dec r = {0};
    if (d->v_dim <= 0 || !(d->seqs > 0.0) || !(d->q_per_seq > 0.0))
        return r;
    const double rows = (double)d->q_heads * d->q_per_seq;
    const double padded = ceil(rows / SIM_DATTN_MLA_TILE) * SIM_DATTN_MLA_TILE;
    /* every sequence's query rows (heads x tokens) against its ctx keys, as the pairs */
    r.flops = sim_graph_attention_flops(1.0, (double)d->head_dim, (double)d->v_dim,
                                        d->seqs * rows * d->ctx);
    if (r.flops > op->flops)
        r.flops = op->flops;
    r.padded_flops = r.flops * padded / rows;
    r.kv_bytes = fmin(d->seqs * d->ctx * (double)d->head_dim * d->kv_elem_bytes, op->kv_read_bytes);
    return r;
}

/* A grouped expert GEMM as its kernel family runs it (moe.h). */
static sim_moe_gemm grouped_gemm(const sim_hw *hw, const sim_op *op)
{
    return sim_moe_gemm_price(hw, op->moe_kernel, op->moe_decode, op->moe_tokens, op->compute,
                              op->weight, op->weight_only, op->moe_blocks, op->n, op->k);
}

bool sim_cost_is_grouped(const sim_op *op)
{
    for (int i = 0; i < SIM_MOE_BLOCKS; i++)
        if (op->moe_blocks[i] > 0.0)
            return true;
    return false;
}

/* The M block of the block-fp8 kernel's tuned configs: 16 rows up to 16, 32 up to 32, else
 * SIM_COST_BLOCK_FP8_M (the MMA computes a whole block whatever the rows) */
static int block_fp8_m(int64_t m)
{
    return m <= 16 ? 16 : m <= 32 ? 32 : SIM_COST_BLOCK_FP8_M;
}

double sim_cost_block_fp8_cta_ns(const sim_hw *hw, const sim_op *op)
{
    if (!op->present || !op->block_scaled || op->m <= 0 || sim_cost_is_grouped(op) ||
        !(hw->block_fp8_cta_bytes_per_s > 0.0) || sim_op_info(op->id)->kind != SIM_OPK_GEMM)
        return 0.0;
    const double ctas = ceil((double)op->m / block_fp8_m(op->m)) *
                        ceil((double)op->n / SIM_COST_BLOCK_FP8_N);
    const double waves = ceil(ctas / hw->compute_units);
    /* its 128 columns of K fp8 weights and their K/128 fp32 block scales */
    const double bytes = (double)op->k * SIM_COST_BLOCK_FP8_N * sim_dtype_bytes(op->weight) +
                         ceil((double)op->k / 128.0) * 4.0;
    return waves * bytes / hw->block_fp8_cta_bytes_per_s * 1e9;
}

double sim_cost_block_fp8_moe_cta_ns(const sim_hw *hw, const sim_op *op, int block_m,
                                     double padded_rows)
{
    if (!op->present || !op->block_scaled || op->weight_only || !sim_cost_is_grouped(op) ||
        op->moe_kernel != SIM_MOE_TRITON || block_m <= 0 || !(padded_rows > 0.0) || op->k <= 0 ||
        !(hw->block_fp8_cta_bytes_per_s > 0.0) || hw->moe_k_step_ns > 0.0)
        return 0.0;
    const double programs = ceil(padded_rows / block_m - 1e-9) *
                            ceil((double)op->n / SIM_COST_BLOCK_FP8_N);
    const double waves = ceil(programs / hw->compute_units);
    const double bytes = (double)op->k * SIM_COST_BLOCK_FP8_N * sim_dtype_bytes(op->weight) +
                         ceil((double)op->k / 128.0) * 4.0;
    return waves * bytes / hw->block_fp8_cta_bytes_per_s * 1e9;
}

double sim_cost_block_fp8_math_ns(const sim_hw *hw, const sim_op *op)
{
    if (!op->present || !op->block_scaled || op->m <= 0 || sim_cost_is_grouped(op) ||
        !(hw->block_fp8_math_eff > 0.0) || sim_op_info(op->id)->kind != SIM_OPK_GEMM)
        return 0.0;
    const int bm = block_fp8_m(op->m);
    const double ctas = ceil((double)op->m / bm) * ceil((double)op->n / SIM_COST_BLOCK_FP8_N);
    const double waves = ceil(ctas / hw->compute_units);
    const double tile_flops = 2.0 * bm * SIM_COST_BLOCK_FP8_N * (double)op->k;
    const double sm_rate =
        hw->peak_flops[op->compute] * sim_hw_gemm_frac(hw, hw->block_fp8_math_eff) /
        hw->compute_units;
    return waves * tile_flops / sm_rate * 1e9;
}

double sim_cost_attention_exp_ns(const sim_hw *hw, const sim_op *op)
{
    /* GQA / MHA attention: 4 x head_dim FLOPs per (query, key) score (graph_build.c); MLA's
     * (v_dim set) are left to its own kernels' constants */
    const double hd = (double)op->dec.head_dim;
    if (!(hw->attn_exp_per_s > 0.0) || !(hd > 0.0) || op->dec.v_dim > 0 ||
        sim_op_info(op->id)->kind != SIM_OPK_ATTENTION)
        return 0.0;
    return op->flops / (4.0 * hd) / hw->attn_exp_per_s * 1e9;
}

static double math_ns(const sim_hw *hw, const sim_op *op)
{
    switch (sim_op_info(op->id)->kind) {
    case SIM_OPK_GEMM: {
        if (sim_cost_is_grouped(op))
            return grouped_gemm(hw, op).math_ns;
        if (op->m <= 0)
            return 0.0;
        double nk = (double)op->n * (double)op->k;
        int tile = op->weight_only ? hw->wo_tile_m : hw->gemm_tile_m;
        /* a grouped GEMM pads each expert's rows to the tile; fused-MoE kernels pick the M block
         * from the load: the MMA's 16 rows (gemm_weight_only_tile_m) when an expert gets no
         * more, else the GEMM tile (vLLM's fused_moe configs: BLOCK_SIZE_M 16 at small M) */
        if (op->groups > 1.0 && (double)op->m / op->groups <= hw->wo_tile_m)
            tile = hw->wo_tile_m;
        double rows = op->groups > 1.0 ? sim_cost_grouped_padded_m((double)op->m, op->groups, tile)
                                       : sim_cost_padded_m(op->m, tile);
        double padded = 2.0 * rows * nk;
        double extra = op->flops - 2.0 * (double)op->m * nk; /* bias adds */
        /* a grouped GEMM's tiles cover every expert's padded rows */
        int64_t m_eff = op->groups > 1.0 ? (int64_t)rows : op->m;
        if (!op->weight_only)
            return gemm_tiled_ns(hw, op, m_eff, rows, padded + extra,
                                 hw->peak_flops[op->compute] *
                                     sim_hw_gemm_frac(hw, hw->eff_gemm[op->compute]));
        /* Mixed-input (W4A16, W8A16, W4A8): math in the activation format (M padded to the
         * mixed-input MMA tile) at the mixed-input kernels' efficiency, plus dequantizing every
         * weight on the vector units once per block of gemm_tile_m rows that a thread block
         * keeps in registers. */
        double tiles = (op->groups > 1.0
                            ? sim_cost_grouped_padded_m((double)op->m, op->groups, hw->gemm_tile_m)
                            : sim_cost_padded_m(op->m, hw->gemm_tile_m)) /
                       hw->gemm_tile_m;
        double deq = tiles * nk * sim_dtype_get(op->weight)->dequant_ops;
        return gemm_tiled_ns(hw, op, m_eff, rows, padded + extra,
                             hw->peak_flops[op->compute] *
                                 sim_hw_gemm_frac(hw, hw->eff_gemm_weight_only)) +
               deq / hw->vector_flops * 1e9;
    }
    case SIM_OPK_ATTENTION: {
        /* MLA's absorbed decode part: its query rows padded to the kernel's tiles (dattn.h) */
        const sim_mla_dec d = mla_dec(op);
        return (op->flops - d.flops) / (hw->peak_flops[op->compute] * hw->eff_attention) * 1e9 *
                   sim_cost_attention_block_factor(hw, op) +
               d.padded_flops / (hw->peak_flops[op->compute] * hw->mla_compute_eff) * 1e9 +
               sim_cost_attention_exp_ns(hw, op);
    }
    case SIM_OPK_VECTOR:
        return op->flops / hw->vector_flops * 1e9;
    case SIM_OPK_COMM:
        return 0.0;
    }
    return 0.0;
}

double sim_cost_attention_block_factor(const sim_hw *hw, const sim_op *op)
{
    if (!(hw->attn_kv_half > 0.0) || !(op->attn_keys > 0.0))
        return 1.0;
    return 1.0 + hw->attn_kv_half / op->attn_keys;
}

sim_bound sim_cost_bound(const sim_op_cost *c)
{
    double parts[SIM_BOUND_COUNT] = {
        [SIM_BOUND_COMPUTE] = c->t_math_ns,
        [SIM_BOUND_MEMORY] = c->t_mem_ns,
        [SIM_BOUND_NETWORK] = c->t_net_ns,
        [SIM_BOUND_OVERHEAD] = c->t_launch_ns,
    };
    sim_bound b = SIM_BOUND_COMPUTE;
    for (int i = 1; i < SIM_BOUND_COUNT; i++)
        if (parts[i] > parts[b])
            b = (sim_bound)i;
    return b;
}

sim_op_cost sim_cost_op(const sim_hw *hw, const sim_op *op, double launch_ns)
{
    sim_op_cost c = {0};
    if (!op->present)
        return c;
    c.t_math_ns = math_ns(hw, op);
    /* a block-scaled fp8 GEMM's tiles in waves at their own rate (cost.h) */
    const double bmath = sim_cost_block_fp8_math_ns(hw, op);
    if (bmath > c.t_math_ns)
        c.t_math_ns = bmath;
    if (sim_cost_is_grouped(op)) {
        sim_moe_gemm g = grouped_gemm(hw, op);
        c.moe_block_m = g.block_m;
        c.moe_padded_rows = g.padded_rows;
    }
    /* attention's KV-cache reads go through the paged-attention efficiency; quantized GEMMs
     * stream at their kernels' own fraction (skinny fp8 GEMMs and mixed-input kernels stay
     * below a plain copy); the rest streams */
    double paged = sim_op_info(op->id)->kind == SIM_OPK_ATTENTION ? op->kv_read_bytes : 0.0;
    double stream = hw->eff_memory;
    if (sim_op_info(op->id)->kind == SIM_OPK_GEMM)
        stream = op->weight_only ? sim_hw_mixed_input_memory(hw, op->weight)
                                 : sim_hw_gemm_memory(hw, op->compute);
    const double mla_kv = sim_op_info(op->id)->kind == SIM_OPK_ATTENTION ? mla_dec(op).kv_bytes : 0.0;
    c.t_mem_ns = ((sim_op_bytes(op) - paged) / stream + (paged - mla_kv) / hw->eff_attn_memory +
                  mla_kv / hw->mla_memory_eff) /
                 hw->hbm_bytes_per_s * 1e9;
    /* a dense GEMM kernel's fixed time (hw.h: efficiency.gemm_fixed_us): prologue, epilogue and
     * split-K clean-up, paid on top of whichever of math and memory bounds it, so added to both
     * (grouped expert GEMMs are priced by their kernel family, mixed-input ones by theirs) */
    if (sim_op_info(op->id)->kind == SIM_OPK_GEMM && !op->weight_only &&
        !sim_cost_is_grouped(op) && op->groups <= 1.0 && op->m > 0) {
        const double fixed = sim_hw_gemm_fixed_ns(hw, op->compute);
        c.t_math_ns += fixed;
        c.t_mem_ns += fixed;
    }
    /* a Triton fused_moe GEMM's K loop, paid on top of its bytes and math (moe.h) */
    if (sim_cost_is_grouped(op)) {
        const double kloop = op->weight_only ? 0.0
                                             : sim_moe_triton_kloop_ns(hw, op->moe_kernel,
                                                                       op->compute, op->k);
        c.t_math_ns += kloop;
        c.t_mem_ns += kloop;
        /* block-scaled fp8 experts: no faster than their programs' weight streams (cost.h) */
        const double mcta =
            sim_cost_block_fp8_moe_cta_ns(hw, op, c.moe_block_m, c.moe_padded_rows);
        if (mcta > c.t_mem_ns)
            c.t_mem_ns = mcta;
    }
    /* a decode kernel with fewer CTAs than SMs streams no faster than its CTAs can (dattn.h) */
    double cta = sim_dattn_cta_ns(hw, op->dattn, &op->dec);
    if (cta > c.t_mem_ns)
        c.t_mem_ns = cta;
    /* a split decode's merge pass: its own launch and its partial results read once (dattn.h) */
    if (sim_op_info(op->id)->kind == SIM_OPK_ATTENTION) {
        c.extra_kernels = sim_dattn_extra_kernels(hw, op->dattn, &op->dec);
        c.t_mem_ns += sim_dattn_merge_bytes(hw, op->dattn, &op->dec) /
                      (hw->hbm_bytes_per_s * hw->eff_memory) * 1e9;
    }
    /* a block-scaled fp8 GEMM with fewer thread blocks than SMs streams no faster than they do */
    const double bcta = sim_cost_block_fp8_cta_ns(hw, op);
    if (bcta > c.t_mem_ns)
        c.t_mem_ns = bcta;
    if (op->net_ranks > 1 && op->net_kind == SIM_COLL_ALLTOALL && op->a2a.ranks > 1) {
        /* MoE dispatch / combine: DeepEP's kernels in the op's mode (a2a.h) */
        c.t_net_ns = sim_a2a_price(hw, op->a2a_mode, &op->a2a).t_ns;
        c.coll_algo = SIM_COLL_DIRECT;
        c.coll_proto = SIM_COLL_PROTO_NONE;
    } else if (op->net_ranks > 1) {
        /* an all-to-all sends to its peers at once (low-latency kernels) or one peer per step */
        sim_collective_cost cc =
            op->net_kind == SIM_COLL_ALLTOALL
                ? sim_collective_alltoall(hw, op->net_msg_bytes, op->net_ranks, op->net_hops)
                : sim_collective_price(hw, op->net_kind, op->net_msg_bytes, op->net_ranks,
                                       op->net_algo);
        c.t_net_ns = cc.t_ns;
        c.coll_algo = cc.algo;
        c.coll_proto = cc.proto;
    }
    int kernels = (op->kernels > 0 ? op->kernels : sim_op_info(op->id)->kernels) + c.extra_kernels;
    c.t_launch_ns = op->fused ? 0.0 : kernels * launch_ns;
    double busy = c.t_math_ns > c.t_mem_ns ? c.t_math_ns : c.t_mem_ns;
    if (isnan(c.t_math_ns) || isnan(c.t_mem_ns))
        busy = NAN; /* the max must not swallow a NaN: the step's check reports it (run.h) */
    c.t_ns = busy + c.t_net_ns + c.t_launch_ns;
    c.bound = sim_cost_bound(&c);
    /* the op's bounds: max(math, memory, network) + launch <= time <= their sum; a time that
     * is not finite is the step's internal error (sim_run_check_result), not an op's */
    SIM_ASSERT(!isfinite(c.t_ns) ||
               (c.t_ns >= (busy > c.t_net_ns ? busy : c.t_net_ns) + c.t_launch_ns &&
                c.t_ns <= c.t_math_ns + c.t_mem_ns + c.t_net_ns + c.t_launch_ns));
    return c;
}

size_t sim_cost_quant_schemes(const sim_hw *hw, int64_t group_size, sim_quant_scheme *out)
{
    static const struct {
        const char *name;
        sim_dtype weight, act;
    } schemes[SIM_QUANT_SCHEMES] = {
        {"bf16", SIM_DT_BF16, SIM_DT_BF16},
        {"int8-weight-only", SIM_DT_INT8, SIM_DT_BF16},
        {"int4-weight-only", SIM_DT_INT4, SIM_DT_BF16},
        {"int8", SIM_DT_INT8, SIM_DT_INT8},
        {"fp8", SIM_DT_FP8, SIM_DT_FP8},
        {"fp4", SIM_DT_FP4, SIM_DT_FP4},
        {"w4a8", SIM_DT_INT4, SIM_DT_FP8},
    };
    size_t n = 0;
    for (size_t i = 0; i < SIM_QUANT_SCHEMES; i++) {
        double peak = hw->peak_flops[schemes[i].act];
        if (!(peak > 0.0))
            continue;
        sim_prec p = {.weight = schemes[i].weight,
                      .act = schemes[i].act,
                      .kv = schemes[i].act,
                      .group_size = group_size};
        double b = sim_graph_weight_elem_bytes(&p, p.weight);
        out[n++] = (sim_quant_scheme){.name = schemes[i].name,
                                      .weight = p.weight,
                                      .act = p.act,
                                      .bytes_per_param = b,
                                      .peak_flops = peak,
                                      .critical_batch = peak * b / (2.0 * hw->hbm_bytes_per_s)};
    }
    return n;
}
