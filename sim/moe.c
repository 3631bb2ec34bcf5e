/* moe.c - grouped-GEMM kernel families and the busiest expert-parallel rank's load. */
#include "moe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "status.h"

static const int block_rows[SIM_MOE_BLOCKS] = {16, 32, 64, 128};

static const int block_cols[] = {32, 64, 128, 256};
enum { N_BLOCK_COLS = sizeof block_cols / sizeof block_cols[0] };

/* Each family: its name, the M blocks it picks from (a mask over block_rows) in its prefill and
 * decode layouts, the N blocks (a mask over block_cols), and its layouts' names. */
static const struct {
    const char *name;
    unsigned prefill_blocks, decode_blocks, n_blocks;
    const char *prefill_layout, *decode_layout;
} families[SIM_MOE_KERNEL_COUNT] = {
    /* vLLM fused_moe/configs (E=..,N=..,device_name=..json): BLOCK_SIZE_M 16..128 and
     * BLOCK_SIZE_N 32..128 by batch (small batches: narrow N blocks to fill the SMs) */
    [SIM_MOE_TRITON] = {"triton", 0xF, 0xF, 0x7, "sorted", "sorted"},
    /* DeepGEMM: contiguous segments aligned to 128 rows; masked blocks of 64 or 128; block_n
     * chosen among many to fill the SMs (64..256 here) */
    [SIM_MOE_DEEPGEMM] = {"deepgemm", 0x8, 0xC, 0xE, "contiguous", "masked"},
    /* CUTLASS grouped (TensorRT-LLM / FlashInfer): CTA tiles 64 or 128 x 64..256 */
    [SIM_MOE_CUTLASS] = {"cutlass", 0xC, 0xC, 0xE, "grouped", "grouped"},
    /* aiter / CK 2-stage fused MoE: block_m 32, 64, 128 x 64..128 */
    [SIM_MOE_CK] = {"ck", 0xE, 0xE, 0x6, "grouped", "grouped"},
    /* Marlin MoE: moe_block_size 8..64 (8 pads to the 16-row MMA), thread_n 64 or 128 */
    [SIM_MOE_MARLIN] = {"marlin", 0x7, 0x7, 0x6, "sorted", "sorted"},
};

/* The families' efficiency over the device's GEMM efficiency, per format class (16-bit, 8-bit,
 * 4-bit math), fitted on their op-level rows in tools/data/validation.csv (1: no public rows;
 * the device's dense GEMM efficiency stands).
 *   triton 16-bit 0.8: Mixtral-8x7B TP 2 on H100 with vLLM's tuned config (rows 2000-2014,
 *     vLLM PR #24700), its M block by the tokens (sim_moe_triton_block_m): 0.8 leaves M = 1024 /
 *     1536 at -1% / +3%, 0.9 at -11% / -8%, 0.7 at +12% / +17%; the memory-bound rows
 *     (M <= 256) do not move. 8-bit 0.56: the Qwen3-30B-A3B expert shape with
 *     a tuned fp8_w8a8 config on L40S (rows 2048-2059, vLLM PR #53710), refitted once the
 *     activation-quantization kernels before each GEMM were priced (graph_build.c build_moe;
 *     0.5 before them): only M = 4096 / 8192 are compute-bound in the model; 0.56 leaves them
 *     at -1.3% / 0.0% (0.5: +4.1% / +5.7%, 0.54: +0.4% / +1.8%)
 *     (the H100 fp8 rows 2015-2032 ran vLLM's untuned default config: low trust, not fitted).
 *   deepgemm 8-bit 1: its ten README rows (100-109) sit at a median of 7% with the device's fp8
 *     GEMM efficiency as it is. */
static const double family_eff[SIM_MOE_KERNEL_COUNT][3] = {
    [SIM_MOE_TRITON] = {0.8, 0.56, 1.0},
    [SIM_MOE_DEEPGEMM] = {1.0, 1.0, 1.0},
    [SIM_MOE_CUTLASS] = {1.0, 1.0, 1.0},
    [SIM_MOE_CK] = {1.0, 1.0, 1.0},
    [SIM_MOE_MARLIN] = {1.0, 1.0, 1.0},
};

const char *sim_moe_kernel_name(sim_moe_kernel k)
{
    return k >= 0 && k < SIM_MOE_KERNEL_COUNT ? families[k].name : "?";
}

bool sim_moe_kernel_parse(const char *s, sim_moe_kernel *out)
{
    for (int i = 0; s && i < SIM_MOE_KERNEL_COUNT; i++)
        if (strcmp(s, families[i].name) == 0) {
            *out = (sim_moe_kernel)i;
            return true;
        }
    return false;
}

const char *sim_moe_kernel_names(void) { return "triton, deepgemm, cutlass, ck or marlin"; }

bool sim_moe_gathers_rows(sim_moe_kernel k) { return k == SIM_MOE_TRITON || k == SIM_MOE_MARLIN; }

double sim_moe_kernel_peak_frac(const sim_hw *hw, sim_moe_kernel k)
{
    if (k != SIM_MOE_MARLIN)
        return 1.0;
    return hw->mma_sync_frac > 0.0 ? hw->mma_sync_frac : 1.0;
}

int sim_moe_block_rows(int i) { return i >= 0 && i < SIM_MOE_BLOCKS ? block_rows[i] : 0; }

const char *sim_moe_layout(sim_moe_kernel k, bool decode)
{
    if (k < 0 || k >= SIM_MOE_KERNEL_COUNT)
        return "?";
    return decode ? families[k].decode_layout : families[k].prefill_layout;
}

double sim_moe_kernel_eff(sim_moe_kernel kernel, sim_dtype compute)
{
    int bits = sim_dtype_get(compute)->bits;
    int cls = bits >= 16 ? 0 : bits >= 8 ? 1 : 2;
    return family_eff[kernel][cls];
}

bool sim_moe_routing_parse(const char *s, sim_moe_routing *out)
{
    if (!s)
        return false;
    if (strcmp(s, "uniform") == 0) {
        out->kind = SIM_MOE_ROUTE_UNIFORM;
        out->zipf_s = 0.0;
        return true;
    }
    /* "file" is set by --expert-load, never spelled by --expert-routing */
    if (strncmp(s, "zipf:", 5) != 0 || !s[5])
        return false;
    char *end = NULL;
    double v = strtod(s + 5, &end);
    /* decimal numbers only: no hex, inf or nan */
    for (const char *c = s + 5; *c; c++)
        if (!strchr("0123456789.", *c))
            return false;
    if (*end || !(v > 0.0 && v <= 8.0))
        return false;
    out->kind = SIM_MOE_ROUTE_ZIPF;
    out->zipf_s = v;
    return true;
}

sim_status sim_moe_routing_check(const sim_moe_routing *r, int64_t experts, int64_t k, int ep,
                                 sim_err *err)
{
    if (experts <= 0 || k <= 0 || k > experts || ep < 1)
        return sim_fail(err, SIM_EINTERNAL, "moe: %lld experts, top-%lld, ep %d",
                        (long long)experts, (long long)k, ep);
    int64_t slots = experts + r->redundant;
    if (r->redundant < 0 || slots % ep != 0)
        return sim_fail(err, SIM_EINPUT,
                        "--redundant-experts: value %d, expected experts + redundant (%lld) "
                        "to be a multiple of --ep %d",
                        r->redundant, (long long)slots, ep);
    if (r->redundant > 0 && ep < 2)
        return sim_fail(err, SIM_EINPUT,
                        "--redundant-experts: value %d applies to expert parallelism; pass --ep",
                        r->redundant);
    if (r->kind == SIM_MOE_ROUTE_FILE && (!r->hist || r->hist->experts != experts))
        return sim_fail(err, SIM_EINPUT,
                        "--expert-load: %s: logical_count: %d experts per layer, expected the "
                        "model's %lld routed experts",
                        r->hist ? r->hist->path : "?", r->hist ? r->hist->experts : 0,
                        (long long)experts);
    if ((r->kind != SIM_MOE_ROUTE_UNIFORM || r->redundant > 0) && slots > SIM_MOE_MAX_SLOTS)
        return sim_fail(err, SIM_EINPUT,
                        "--expert-routing: %lld expert slots, expected at most %d for skewed "
                        "or redundant routing",
                        (long long)slots, SIM_MOE_MAX_SLOTS);
    return SIM_OK;
}

double sim_moe_experts_touched(double slots, double q, double tokens)
{
    if (slots <= 0.0 || tokens <= 0.0 || q <= 0.0)
        return 0.0;
    return slots * (1.0 - pow(1.0 - fmin(q, 1.0), tokens));
}

/* A Binomial(n, p) walked upward from `lo`: its pmf and cdf at x. */
typedef struct binom {
    double n, p;
    double x, pmf, cdf;
    double lo, hi; /* outside [lo, hi] the mass is below 1e-30 */
} binom;

static void binom_init(binom *b, double n, double p)
{
    b->n = n;
    b->p = p < 0.0 ? 0.0 : p > 1.0 ? 1.0 : p;
    if (b->p == 0.0 || b->p == 1.0 || n <= 0.0) {
        double at = b->p == 1.0 ? n : 0.0;
        b->lo = b->hi = b->x = at;
        b->pmf = b->cdf = 1.0;
        return;
    }
    double mu = n * b->p, sd = sqrt(n * b->p * (1.0 - b->p));
    b->lo = fmax(0.0, floor(mu - 12.0 * sd - 2.0));
    b->hi = fmin(n, ceil(mu + 12.0 * sd + 2.0));
    b->x = b->lo;
    b->pmf = exp(lgamma(n + 1.0) - lgamma(b->lo + 1.0) - lgamma(n - b->lo + 1.0) +
                 b->lo * log(b->p) + (n - b->lo) * log1p(-b->p));
    b->cdf = b->pmf;
}

/* F(x) for x >= b->x, walking the pmf up. */
static double binom_cdf_at(binom *b, double x)
{
    if (x < b->lo)
        return 0.0;
    if (x >= b->hi)
        return 1.0;
    while (b->x < x) {
        b->pmf *= (b->n - b->x) / (b->x + 1.0) * b->p / (1.0 - b->p);
        b->x += 1.0;
        b->cdf += b->pmf;
    }
    return b->cdf > 1.0 ? 1.0 : b->cdf;
}

double sim_moe_binomial_blocks(double trials, double p, int block)
{
    /* E[ceil(n / B)] = sum_{j >= 0} P(n > j B) */
    binom b;
    binom_init(&b, trials, p);
    if (b.p == 0.0 || trials <= 0.0)
        return 0.0;
    const int64_t j0 = (int64_t)floor(b.lo / block);
    double sum = (double)j0; /* P(n > jB) = 1 while jB < lo */
    for (int64_t j = j0; (double)j * block < b.hi; j++)
        sum += 1.0 - binom_cdf_at(&b, (double)j * block);
    return sum;
}

/* Per-token probability of each expert (sum k): uniform, or Zipf over a fixed shuffle. */
static void expert_probs(const sim_moe_routing *r, int64_t e, int64_t k, double *p)
{
    /* a file routing always carries its histogram (the loader sets both); asserted, and
     * uniform rather than a null dereference if a caller ever broke that */
    SIM_ASSERT(r->kind != SIM_MOE_ROUTE_FILE || r->hist);
    if (r->kind == SIM_MOE_ROUTE_UNIFORM || (r->kind == SIM_MOE_ROUTE_FILE && !r->hist)) {
        for (int64_t i = 0; i < e; i++)
            p[i] = (double)k / (double)e;
        return;
    }
    if (r->kind == SIM_MOE_ROUTE_FILE) { /* the measured shares, on the experts' own ids */
        const int layer = r->layer >= 0 && r->layer < r->hist->layers ? r->layer : 0;
        for (int64_t i = 0; i < e; i++)
            p[i] = fmin(1.0, (double)k * r->hist->share[(int64_t)layer * e + i]);
        return;
    }
    double w[SIM_MOE_MAX_SLOTS] = {0};
    for (int64_t i = 0; i < e; i++)
        w[i] = pow((double)(i + 1), -r->zipf_s);
    /* the scale c with sum min(1, c w_i) = k, by bisection */
    double lo = 0.0, hi = (double)k / w[e - 1];
    for (int it = 0; it < 200; it++) {
        double c = 0.5 * (lo + hi), s = 0.0;
        for (int64_t i = 0; i < e; i++)
            s += fmin(1.0, c * w[i]);
        if (s < (double)k)
            lo = c;
        else
            hi = c;
    }
    int64_t perm[SIM_MOE_MAX_SLOTS] = {0};
    for (int64_t i = 0; i < e; i++)
        perm[i] = i;
    sim_rng g;
    sim_rng_seed(&g, 0x5eed);
    for (int64_t i = e - 1; i > 0; i--) {
        int64_t j = sim_rng_int(&g, 0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int64_t i = 0; i < e; i++)
        p[perm[i]] = fmin(1.0, hi * w[i]);
}

/* EPLB: slots' probabilities and ranks. Without redundancy, experts contiguous by id. */
static void place(const sim_moe_routing *r, int64_t e, int ep, const double *p, double *slot_q,
                  int *slot_rank)
{
    const int64_t slots = e + r->redundant, per = slots / ep;
    if (r->redundant == 0) {
        for (int64_t i = 0; i < e; i++) {
            slot_q[i] = p[i];
            slot_rank[i] = (int)(i / per);
        }
        return;
    }
    int reps[SIM_MOE_MAX_SLOTS] = {0};
    for (int64_t i = 0; i < e; i++)
        reps[i] = 1;
    for (int n = 0; n < r->redundant; n++) {
        int64_t best = 0;
        for (int64_t i = 1; i < e; i++)
            if (p[i] / reps[i] > p[best] / reps[best])
                best = i;
        reps[best]++;
    }
    int64_t s = 0;
    for (int64_t i = 0; i < e; i++)
        for (int j = 0; j < reps[i]; j++)
            slot_q[s++] = p[i] / reps[i];
    /* heaviest first (insertion sort, stable), each to the lightest rank with room */
    for (int64_t i = 1; i < slots; i++)
        for (int64_t j = i; j > 0 && slot_q[j] > slot_q[j - 1]; j--) {
            double t = slot_q[j];
            slot_q[j] = slot_q[j - 1];
            slot_q[j - 1] = t;
        }
    double load[SIM_MOE_MAX_SLOTS] = {0};
    int count[SIM_MOE_MAX_SLOTS] = {0};
    for (int64_t i = 0; i < slots; i++) {
        int best = -1;
        for (int q = 0; q < ep; q++)
            if (count[q] < per && (best < 0 || load[q] < load[best]))
                best = q;
        slot_rank[i] = best;
        load[best] += slot_q[i];
        count[best]++;
    }
}

/* E[max_r L_r] over `n` rank groups, group g having mult[g] ranks of L ~ Binomial(trials[g], q[g]). */
static double expected_max(int n, const double *trials, const double *q, const int *mult)
{
    binom b[SIM_MOE_MAX_SLOTS];
    double start = 0.0, end = 0.0;
    for (int g = 0; g < n; g++) {
        binom_init(&b[g], trials[g], q[g]);
        start = fmax(start, b[g].lo);
        end = fmax(end, b[g].hi);
    }
    /* 1 - prod F(x - 1) is 1 while x - 1 < the largest lo */
    double sum = start;
    for (int64_t x = (int64_t)start + 1; (double)x <= end; x++) {
        double prod = 1.0;
        for (int g = 0; g < n; g++)
            prod *= pow(binom_cdf_at(&b[g], (double)(x - 1)), mult[g]);
        sum += 1.0 - prod;
    }
    return sum;
}

void sim_moe_load_compute(const sim_moe_routing *r, int64_t experts, int64_t k, int ep,
                          double tokens, double fixed_imbalance, sim_moe_load *out)
{
    memset(out, 0, sizeof *out);
    const double T = tokens > 0.0 ? floor(tokens + 0.5) : 0.0;
    const int64_t slots = experts + r->redundant;
    const int per = (int)(slots / ep);
    out->tokens = T;
    out->slots = per;
    out->mean_rows = T * (double)k / ep;
    if (T <= 0.0)
        return;
    const bool uniform = r->kind == SIM_MOE_ROUTE_UNIFORM && r->redundant == 0;
    double busy_mean = out->mean_rows;
    if (uniform) {
        out->distinct = 1;
        out->q[0] = (double)k / (double)experts;
        if (fixed_imbalance > 0.0)
            out->rows = out->mean_rows * fixed_imbalance;
        else if (ep == 1)
            out->rows = T * (double)k; /* one rank gets every routed row */
        else {
            double trials = T * per, q = out->q[0];
            int mult = ep;
            out->rows = expected_max(1, &trials, &q, &mult);
        }
    } else {
        double p[SIM_MOE_MAX_SLOTS] = {0}, sq[SIM_MOE_MAX_SLOTS] = {0};
        int srank[SIM_MOE_MAX_SLOTS] = {0};
        expert_probs(r, experts, k, p);
        place(r, experts, ep, p, sq, srank);
        double rank_q[SIM_MOE_MAX_SLOTS] = {0};
        for (int64_t s = 0; s < slots; s++)
            rank_q[srank[s]] += sq[s];
        int busy = 0;
        for (int q = 1; q < ep; q++)
            if (rank_q[q] > rank_q[busy])
                busy = q;
        busy_mean = T * rank_q[busy];
        /* another rank may touch more experts than the busiest one (fewer, colder experts) */
        double touched_r[SIM_MOE_MAX_SLOTS] = {0};
        for (int64_t s = 0; s < slots; s++)
            touched_r[srank[s]] += sim_moe_experts_touched(1.0, sq[s], T);
        for (int q = 0; q < ep; q++)
            if (touched_r[q] > out->touched_other)
                out->touched_other = touched_r[q];
        out->distinct = 0;
        for (int64_t s = 0; s < slots; s++)
            if (srank[s] == busy)
                out->q[out->distinct++] = sq[s];
        if (fixed_imbalance > 0.0)
            out->rows = out->mean_rows * fixed_imbalance;
        else if (ep == 1)
            out->rows = T * (double)k;
        else {
            double trials[SIM_MOE_MAX_SLOTS] = {0}, q[SIM_MOE_MAX_SLOTS] = {0};
            int mult[SIM_MOE_MAX_SLOTS] = {0};
            for (int g = 0; g < ep; g++) {
                trials[g] = T * per;
                q[g] = rank_q[g] / per;
                mult[g] = 1;
            }
            out->rows = expected_max(ep, trials, q, mult);
        }
    }
    /* at least the busiest mean, at most T min(k, slots) (a token's picks are distinct) */
    double cap = T * (double)(k < per ? k : per);
    if (fixed_imbalance <= 0.0 && out->rows < busy_mean)
        out->rows = busy_mean;
    if (out->rows > cap)
        out->rows = cap;
    out->imbalance = out->mean_rows > 0.0 ? out->rows / out->mean_rows : 1.0;
    /* the busiest rank's slots scaled to its expected rows */
    double base = fixed_imbalance > 0.0 ? out->mean_rows : busy_mean;
    double s = base > 0.0 ? out->rows / base : 1.0;
    double reps = out->distinct == 1 ? (double)per : 1.0;
    for (int i = 0; i < out->distinct; i++) {
        out->q[i] = fmin(1.0, out->q[i] * s);
        out->touched += sim_moe_experts_touched(reps, out->q[i], T);
    }
    if (out->touched_other > out->touched)
        out->touched = out->touched_other;
}

void sim_moe_row_blocks(const sim_moe_load *ld, double blocks[SIM_MOE_BLOCKS])
{
    double reps = ld->distinct == 1 ? (double)ld->slots : 1.0;
    for (int b = 0; b < SIM_MOE_BLOCKS; b++) {
        blocks[b] = 0.0;
        for (int i = 0; i < ld->distinct; i++)
            blocks[b] += reps * sim_moe_binomial_blocks(ld->tokens, ld->q[i], block_rows[b]);
    }
}

/* One layer's step load (sim_moe_load_compute, then its M blocks). */
static void step_load_layer(const sim_moe_routing *r, int64_t experts, int64_t k, int ep,
                            double tokens, double fixed, sim_moe_step_load *out)
{
    sim_moe_load ld;
    sim_moe_load_compute(r, experts, k, ep, tokens, fixed, &ld);
    *out = (sim_moe_step_load){.tokens = ld.tokens,
                               .rows = ld.rows,
                               .mean_rows = ld.mean_rows,
                               .imbalance = ld.imbalance,
                               .touched = ld.touched};
    sim_moe_row_blocks(&ld, out->blocks);
}

static void step_load(const sim_moe_routing *r, int64_t experts, int64_t k, int ep,
                      double tokens, double fixed, sim_moe_step_load *out)
{
    if (r->kind != SIM_MOE_ROUTE_FILE || !r->hist || r->hist->layers <= 1) {
        step_load_layer(r, experts, k, ep, tokens, fixed, out);
        return;
    }
    /* the layers' mean: each layer's busiest rank, experts touched and blocks */
    sim_moe_routing lr = *r;
    sim_moe_step_load sum = {0}, one;
    const int n = r->hist->layers;
    for (int l = 0; l < n; l++) {
        lr.layer = l;
        step_load_layer(&lr, experts, k, ep, tokens, fixed, &one);
        sum.rows += one.rows;
        sum.touched += one.touched;
        for (int b = 0; b < SIM_MOE_BLOCKS; b++)
            sum.blocks[b] += one.blocks[b];
        sum.tokens = one.tokens;
        sum.mean_rows = one.mean_rows;
    }
    sum.rows /= n;
    sum.touched /= n;
    for (int b = 0; b < SIM_MOE_BLOCKS; b++)
        sum.blocks[b] /= n;
    sum.imbalance = sum.mean_rows > 0.0 ? sum.rows / sum.mean_rows : 1.0;
    *out = sum;
}

static bool same_routing(const sim_moe_routing *a, const sim_moe_routing *b)
{
    return a->kind == b->kind && a->zipf_s == b->zipf_s && a->redundant == b->redundant &&
           a->hist == b->hist && (a->kind != SIM_MOE_ROUTE_FILE || a->layer == b->layer);
}

size_t sim_moe_cache_slot(double tokens)
{
    /* a multiplicative (Fibonacci) hash of the count: token counts are often powers of two (a
     * prefill of 256 x 2048 tokens and its decode of 256), which the count modulo the slots sent
     * to one slot, so a run's draws evicted each other's prefill and decode loads in turn
     * (DeepSeek-V3's run of "What it answers": 1 hit in 25 lookups, 23 in 25 hashed) */
    const double t = tokens > 0.0 && tokens < 1e15 ? floor(tokens) : 0.0;
    return (size_t)((((uint64_t)t + 1u) * UINT64_C(0x9E3779B97F4A7C15)) >> 32) %
           SIM_MOE_CACHE_SLOTS;
}

void sim_moe_step_load_of(const sim_moe_routing *r, int64_t experts, int64_t k, int ep,
                          double tokens, double fixed_imbalance, sim_moe_cache *cache,
                          sim_moe_step_load *out)
{
    if (!cache) {
        step_load(r, experts, k, ep, tokens, fixed_imbalance, out);
        return;
    }
    sim_moe_cache_entry *e = &cache->e[sim_moe_cache_slot(tokens)];
    if (e->used && e->tokens == tokens && e->experts == experts && e->k == k && e->ep == ep &&
        e->fixed == fixed_imbalance && same_routing(&e->r, r)) {
        cache->hits++;
        *out = e->v;
        return;
    }
    cache->misses++;
    step_load(r, experts, k, ep, tokens, fixed_imbalance, out);
    e->used = true;
    e->r = *r;
    e->experts = experts;
    e->k = k;
    e->ep = ep;
    e->tokens = tokens;
    e->fixed = fixed_imbalance;
    e->v = *out;
}

int sim_moe_triton_block_m(double tokens)
{
    /* vLLM's tuned configs key on M, the step's tokens: E=8,N=3584 on A100 (vLLM PR #3389)
     * gives BLOCK_SIZE_M 32 at M 64 and 96, 64 from 128 to 512, 128 from 1024; below 64 the
     * files (and get_default_config for M <= E) take 16 */
    return tokens < 64.0 ? 16 : tokens < 128.0 ? 32 : tokens < 1024.0 ? 64 : 128;
}

int sim_moe_triton_block_k(sim_dtype compute) { return sim_dtype_is_16bit(compute) ? 64 : 128; }

double sim_moe_triton_kloop_ns(const sim_hw *hw, sim_moe_kernel kernel, sim_dtype compute,
                               int64_t k)
{
    /* fused_moe_kernel runs 16-bit and w8a8 (fp8, int8) experts; 4-bit ones go to other
     * kernels (triton_kernels' matmul_ogs, Marlin, FlashInfer's), which this does not price */
    const double bytes = sim_dtype_bytes(compute);
    if (kernel != SIM_MOE_TRITON || k <= 0 || !(hw->moe_k_step_ns > 0.0) || bytes < 1.0)
        return 0.0;
    return ceil((double)k / sim_moe_triton_block_k(compute)) * hw->moe_k_step_ns;
}

sim_moe_gemm sim_moe_gemm_price(const sim_hw *hw, sim_moe_kernel kernel, bool decode,
                                double tokens, sim_dtype compute, sim_dtype weight,
                                bool weight_only, const double blocks[SIM_MOE_BLOCKS], int64_t n,
                                int64_t k)
{
    sim_moe_gemm best = {0};
    if (kernel < 0 || kernel >= SIM_MOE_KERNEL_COUNT)
        kernel = SIM_MOE_TRITON;
    unsigned mask = decode ? families[kernel].decode_blocks : families[kernel].prefill_blocks;
    /* Triton: the tuned configs' M block for this batch, or a larger one that the configs use at
     * more tokens when it is cheaper here. vLLM (fused_moe.py, try_get_optimal_moe_config) takes
     * the config of the key nearest M, and each key's config is the fastest one measured at that
     * M (benchmarks/kernels/benchmark_moe.py --tune); the model's block switch then made a step
     * faster with more tokens (qwen3-30b-a3b on Gaudi 3: 1012 tokens 23.69 ms, 1041 22.76 ms, the
     * 128-row block past 1024). A config usable at more tokens is usable at fewer, and an engine
     * tuned for speed never runs a slower one: the cheapest of them is priced, so a step never
     * gets faster with more tokens (each block's time grows with the rows). */
    if (kernel == SIM_MOE_TRITON && tokens > 0.0) {
        const int tuned = sim_moe_triton_block_m(tokens);
        for (int b = 0; b < SIM_MOE_BLOCKS; b++)
            if (block_rows[b] < tuned)
                mask &= ~(1u << b);
    }
    /* mixed-input experts run at the device's weight-only efficiency (the family's was fitted on
     * plain 16- and 8-bit rows) */
    const double eff = sim_hw_gemm_frac(
        hw, weight_only ? hw->eff_gemm_weight_only
                        : hw->eff_gemm[compute] * sim_moe_kernel_eff(kernel, compute));
    const double rate_per_cu =
        hw->peak_flops[compute] * eff * sim_moe_kernel_peak_frac(hw, kernel) / hw->compute_units;
    const double kh = sim_hw_gemm_k_pipe(hw, compute);
    const double kf = kh > 0.0 ? (double)k / ((double)k + kh) : 1.0;
    bool have = false;
    /* largest tiles first: a tie keeps the larger (what the tuned configs pick at large M) */
    for (int b = SIM_MOE_BLOCKS - 1; b >= 0; b--)
        for (int c = N_BLOCK_COLS - 1; c >= 0; c--) {
            if (!(mask & (1u << b)) || !(families[kernel].n_blocks & (1u << c)))
                continue;
            const int bn = block_cols[c];
            const double n_blocks = ceil((double)n / bn);
            sim_moe_gemm g = {.block_m = block_rows[b], .block_n = bn, .row_blocks = blocks[b]};
            g.padded_rows = g.row_blocks * g.block_m;
            g.tiles = g.row_blocks * n_blocks;
            g.waves = g.tiles > 0.0 ? ceil(g.tiles / hw->compute_units - 1e-9) : 0.0;
            double tile_ns = 2.0 * g.block_m * bn * (double)k / (rate_per_cu * kf) * 1e9;
            g.math_ns = g.waves * tile_ns;
            if (weight_only)
                g.math_ns += g.row_blocks * (double)n * (double)k *
                             sim_dtype_get(weight)->dequant_ops / hw->vector_flops * 1e9;
            if (!have || g.math_ns < best.math_ns * (1.0 - 1e-9)) {
                best = g;
                have = true;
            }
        }
    return best;
}
