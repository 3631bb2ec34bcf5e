/* unc.h - how sure an answer is: the error distribution of every efficiency and overhead the
 * step model reads, drawn in correlated sets and applied to copies of the device and the step's
 * configuration, so a run or a serving simulation is repeated with the same workload (common
 * random numbers) under each draw and its headline metrics get a band.
 *
 * Families. Each parameter the step model reads belongs to one kernel family (sim_unc_family):
 * one draw per family per device (and one per engine) perturbs every parameter of that family
 * together, never op by op. A draw is a time factor f = exp(sigma x z), z standard normal:
 * an efficiency (a fraction of a peak) is divided by f (capped at 1), a fixed time (a launch, a
 * collective latency, an engine's CPU overhead) is multiplied by it.
 *   gemm16            efficiency.gemm.{bf16,fp16}
 *   gemm8             efficiency.gemm.{fp8,int8}, quant.gemm_memory.{fp8,int8}
 *   gemm4             efficiency.gemm.{fp4,int4}, quant.gemm_memory.fp4
 *   mixed_input       efficiency.gemm_weight_only, quant.mixed_input_memory.*
 *   attention         efficiency.attention
 *   decode_attention  efficiency.attention_memory, decode_cta_gb_per_s
 *   memory            efficiency.memory (streaming kernels and memory-bound 16-bit GEMMs)
 *   network           efficiency.network, the collective latencies and the collectives' bw_eff
 *   launch            kernel_launch_us, graph_kernel_launch_us
 *   engine            the engine's policy as a whole: its CPU overheads and, as one common
 *                     factor, every rate of the step (the peaks, bandwidths and fixed times:
 *                     the kernels the engine version picks), uncapped
 *   power             the power estimate (power.h): a factor on a run's energy (joules per
 *                     output token), one per device, from the validation's energy rows (few:
 *                     the band is as wide as their error, and the table says how few)
 *
 * The table (tools/data/uncertainty.csv, written by `infersim validate --uncertainty-out`):
 *   family,scope,provenance,sigma,rows,sources
 * one row per family, scope and provenance: scope is a device family (an arch name: hopper, ...)
 * or "*" (every device), and for the engine family the version-exact engine profile's name
 * ("vllm-0.11", as --engine NAME@VERSION resolves it), "ENGINE@*" (every version of an engine:
 * "vllm@*") or "*"; a suffix ":moe" is the MoE rows of that scope, "*:moe" the default of MoE
 * models; provenance is fitted, inherited or default (for the engine: fitted when the scope has
 * end-to-end rows, default for "*" and "*:moe"); sigma is the standard deviation of
 * log(measured / predicted) (>= 0, < 3); rows and sources the evidence behind it (sources: the
 * cited documents; a table of five fields, without sources, still loads with sources 0). Every
 * family has a "*" row of each provenance (the engine family: its "*" default row), so every
 * lookup finds a value.
 *
 * Example (const sim_unc_table *t, const sim_hw *hw, const sim_step_cfg *cfg):
 *   sim_unc_engine_ref eng;
 *   sim_unc_engine_ref_of("vllm-0.11", "vllm", NULL, &eng); // --engine vllm@0.11, a dense model
 *   sim_unc_draw d;
 *   sim_unc_draw_make_n(t, hw, &eng, 0, 3, 10, 0, &d); // draw 3 of 10 of the table's distributions
 *   sim_hw drawn_hw;
 *   sim_step_cfg drawn = sim_unc_apply(cfg, &d, &drawn_hw); // drawn.hw == &drawn_hw
 */
#ifndef SIM_UNC_H
#define SIM_UNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frontend.h"
#include "hw.h"
#include "model.h"
#include "status.h"
#include "step.h"
#include "strbuf.h"

typedef enum sim_unc_family {
    SIM_UNC_GEMM16,
    SIM_UNC_GEMM8,
    SIM_UNC_GEMM4,
    SIM_UNC_MIXED,
    SIM_UNC_ATTENTION,
    SIM_UNC_DECODE_ATTENTION,
    SIM_UNC_MEMORY,
    SIM_UNC_NETWORK,
    SIM_UNC_LAUNCH,
    SIM_UNC_ENGINE,
    SIM_UNC_POWER,
    SIM_UNC_FAMILY_COUNT
} sim_unc_family;

typedef enum sim_unc_prov {
    SIM_UNC_FITTED,    /* the device file gives it (measured on this device) */
    SIM_UNC_INHERITED, /* copied from another field or device */
    SIM_UNC_DEFAULT,   /* the architecture's default rule */
    SIM_UNC_PROV_COUNT
} sim_unc_prov;


/* The device-file field whose origin is family f's provenance ("efficiency.memory"; NULL for the
 * engine). */
/* "fitted", "inherited", "default". */
const char *sim_unc_prov_name(sim_unc_prov p);
const char *sim_unc_family_field(sim_unc_family f);

/* Where the device's value of family f came from. The one place provenance is read: the
 * device's provenance of the family's field (hw.h, sim_hw_provenance: fitted, inherited,
 * default); a value stated in the file without a fit record, and a field with no provenance
 * (kernel_launch_us), by its origin (file: fitted, derived: inherited, default rule: default);
 * the engine family is not a device's (SIM_UNC_FITTED). */
sim_unc_prov sim_unc_provenance(const sim_hw *hw, sim_unc_family f);

/* The device family a table's scope names: the file's arch, else one read from the display name
 * (H100 ... hopper, A100 ... ampere, L40 ... ada, B200 ... blackwell, MI300X ... cdna3, TPU,
 * Gaudi), else "other". */
const char *sim_unc_device_family(const sim_hw *hw);

/* The family whose parameters a 16-bit or quantized GEMM computing in `compute` with weights in
 * `weight` reads, when math-bound (memory-bound 16-bit GEMMs stream at efficiency.memory). */
sim_unc_family sim_unc_gemm_family(sim_dtype compute, sim_dtype weight);

enum { SIM_UNC_MAX_ENTRIES = 512 };

typedef struct sim_unc_entry {
    sim_unc_family family;
    char scope[32]; /* arch, engine profile name, or "*" */
    sim_unc_prov prov;
    double sigma;   /* std of log(measured / predicted) */
    int64_t rows;
    int64_t sources; /* the cited documents behind the rows (0: not recorded) */
} sim_unc_entry;

typedef struct sim_unc_table {
    size_t n;
    sim_unc_entry e[SIM_UNC_MAX_ENTRIES];
} sim_unc_table;

/* Reads the CSV above. Errors name the file, the line, the field and what was expected; a table
 * missing a family's "*" rows is refused. */
sim_status sim_unc_load(const char *path, sim_unc_table *t, sim_err *err);

/* Adds (or replaces) one entry (its sources 0); false when the table is full. */
bool sim_unc_set(sim_unc_table *t, sim_unc_family f, const char *scope, sim_unc_prov p,
                 double sigma, int64_t rows);

/* The same with the number of sources behind the rows. */
bool sim_unc_set_sources(sim_unc_table *t, sim_unc_family f, const char *scope, sim_unc_prov p,
                         double sigma, int64_t rows, int64_t sources);

/* The entry of family f for exactly this scope and provenance, or NULL. */
const sim_unc_entry *sim_unc_find(const sim_unc_table *t, sim_unc_family f, const char *scope,
                                  sim_unc_prov p);

/* The CSV text of a table (header and rows, in the table's order, sigma to 4 decimals). */
void sim_unc_format(const sim_unc_table *t, sim_strbuf *b);

/* The sigma of family f for scope (an arch or engine name) and provenance p: the exact entry,
 * else the "*" entry of p, else the "*" default entry, else 0 (a table that sim_unc_load accepted
 * always has it). */
double sim_unc_sigma(const sim_unc_table *t, sim_unc_family f, const char *scope,
                     sim_unc_prov p);

/* One parameter set: a time factor per family. */
typedef struct sim_unc_draw {
    double factor[SIM_UNC_FAMILY_COUNT];
} sim_unc_draw;

/* The engine family's scope of a run: the engine profile's name, with ":moe" for a mixture-of-
 * experts model (its MoE path is evidence of its own: "vllm:moe"). A scope the table lacks takes
 * the default of its kind ("*:moe" for MoE, else "*"). */
void sim_unc_engine_scope(const char *engine, const sim_model *m, char *buf, size_t len);

/* The engine a run's band draws from: the version-exact profile ("vllm-0.11", with ":moe" for a
 * MoE model: the scope the draws of the engine factor are seeded by) and every version of its
 * engine ("vllm@*", ":moe"; "" when the engine is not known). */
typedef struct sim_unc_engine_ref {
    char profile[48];
    char family[48];
} sim_unc_engine_ref;

/* The reference of profile `profile` (its file stem, sim_engprof.name) of engine `engine`
 * (sim_engprof.engine; NULL or "": none) for model m (NULL: dense). */
void sim_unc_engine_ref_of(const char *profile, const char *engine, const sim_model *m,
                           sim_unc_engine_ref *r);

/* What an engine sigma rests on: the level of the evidence, the table's scope it came from, its
 * rows and sources, and why a closer level was not used. */
typedef enum sim_unc_level {
    SIM_UNC_LEVEL_VERSION, /* end-to-end rows of this engine version */
    SIM_UNC_LEVEL_ENGINE,  /* none of this version: the engine's other versions' rows */
    SIM_UNC_LEVEL_DEFAULT, /* none of this engine: the pooled rows of every engine */
} sim_unc_level;

typedef struct sim_unc_basis {
    sim_unc_level level;
    char scope[32];  /* the table's scope: "vllm-0.11:moe", "vllm@*:moe", "*:moe", "*" */
    double sigma;
    int64_t rows, sources;
} sim_unc_basis;

/* The engine sigma of a run: the version's own scope, else the engine's "ENGINE@*", else the
 * default of its kind ("*:moe", else "*"); basis (may be NULL) receives which. */
double sim_unc_engine_sigma(const sim_unc_table *t, const sim_unc_engine_ref *e,
                            sim_unc_basis *basis);

/* "engine version", "engine, other versions", "no validation of this engine". */
const char *sim_unc_level_name(sim_unc_level l);

/* Draw `index` (0, 1, ...) for a device and an engine scope (sim_unc_engine_scope): each family's z is seeded by the
 * device's name (the engine family by the engine's name), the family, `seed` and index, so the
 * same device gets the same draw in every run and every point of a sweep (paired comparisons),
 * and two devices get independent ones. Odd draws mirror the even one before them (z and -z:
 * antithetic pairs, so a small even N stays centred on the nominal parameters). `families` (a bit per family, 0: all) limits which
 * families move (the others stay at 1). */
void sim_unc_draw_make(const sim_unc_table *t, const sim_hw *hw, const char *engine,
                       uint64_t seed, int index, sim_unc_draw *d);
void sim_unc_draw_make_only(const sim_unc_table *t, const sim_hw *hw, const char *engine,
                            uint64_t seed, int index, unsigned families, sim_unc_draw *d);

/* Draw `index` of n (0 <= index < n) as a Latin hypercube: each family's n draws are the n
 * strata of the normal, z_k = Phi^-1((k + 0.5) / n) scaled so their mean is 0 and their standard
 * deviation 1 exactly, in an order shuffled by the device's (the engine's) name, the family and
 * `seed`. So a band from n draws has each family's spread exactly, not the spread of n random
 * numbers (which differ by +-20 % at n = 10, and alike for every run of one device and engine),
 * while the families stay independent of each other. The engine factor's sigma is
 * sim_unc_engine_sigma's. n <= 1: every factor 1. */
void sim_unc_draw_make_n(const sim_unc_table *t, const sim_hw *hw, const sim_unc_engine_ref *eng,
                         uint64_t seed, int index, int n, unsigned families, sim_unc_draw *d);

/* The standard normal's quantile function Phi^-1(p), 0 < p < 1 (Acklam's rational approximation,
 * relative error below 1.2e-9). */
double sim_unc_normal_quantile(double p);

/* The device with its parameters moved by d (pure: *out is a copy). */
void sim_unc_apply_hw(const sim_hw *hw, const sim_unc_draw *d, sim_hw *out);

/* A step configuration under d: *hw_out receives the moved device and the returned copy of cfg
 * points at it, its engine overheads moved by the engine factor. */
sim_step_cfg sim_unc_apply(const sim_step_cfg *cfg, const sim_unc_draw *d, sim_hw *hw_out);

/* A serving engine's front end under d: its CPU costs (per request, prompt token, output token,
 * chunk) moved by the engine's factor (the front end is the engine version's). */
void sim_unc_apply_frontend(sim_frontend_cfg *fe, const sim_unc_draw *d);

/* The band of one headline metric: its 10th and 90th percentiles over the draws. */
enum { SIM_UNC_BAND_MAX = 48, SIM_UNC_MAX_DRAWS = 1000 };

typedef struct sim_unc_band {
    int draws; /* 0: no band */
    /* what the band rests on, one line: the engine's evidence (its level, rows and sources:
     * sim_unc_basis), the device's (its family's rows, its efficiencies' provenance) and, for
     * energy, the power estimate's; "" when not told */
    char basis[384];
    size_t n;
    char key[SIM_UNC_BAND_MAX][40];
    double lo[SIM_UNC_BAND_MAX], hi[SIM_UNC_BAND_MAX];
} sim_unc_band;

/* The linearly interpolated p-th percentile (0..100) of n > 0 values (reorders them). */
double sim_unc_percentile(double *v, size_t n, double p);

/* The 10th and 90th percentiles of the distribution n draws' values come from: a log-normal
 * fitted to them (mean and standard deviation of their logs; a few draws give a steadier band
 * than their own order statistics, and a skewed metric such as a TTFT near saturation keeps its
 * skew), or, when a value is <= 0 or there is one draw, their own percentiles (reorders v). */
void sim_unc_band_of(double *v, size_t n, double *lo, double *hi);

/* Adds a key's band (sim_unc_band_of) from its n draws' values (reorders them); false when
 * full. */
bool sim_unc_band_add(sim_unc_band *b, const char *key, double *values, size_t n);

/* The band of `key`, or NULL. */
const double *sim_unc_band_get(const sim_unc_band *b, const char *key, double *hi);

/* The probability that a beats b over paired draws: the share of draws where a's value is below
 * b's (lower_better) or above it, a tie counting one half. 0.5 for n == 0. */
double sim_unc_beat_prob(const double *a, const double *b, size_t n, bool lower_better);

/* Whether a and b tie over paired draws: the 80 % band (sim_unc_band_of) of their ratio a / b
 * holds 1, so the draws do not say which is ahead. A draw's ratio is 1 where a == b (two
 * infinities included: a draw in which neither meets a requirement), 0 where b <= 0 or b is
 * infinite and a is not. False for n == 0; identical a and b tie (every ratio 1). */
bool sim_unc_tie(const double *a, const double *b, size_t n);

/* The decision's sentence (appended to *out): "beats the runner-up, OTHER, in P% of N parameter
 * draws", or for a tie "a tie with OTHER: the 80 % band of their ratio holds 1; the winner is
 * ahead in P% of N parameter draws" (p: sim_unc_beat_prob, OTHER: how the runner-up is named). */
void sim_unc_decision_text(double p, bool tie, int n, const char *other, sim_strbuf *out);

#endif
