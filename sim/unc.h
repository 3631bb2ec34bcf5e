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
 *
 * The table (tools/data/uncertainty.csv, written by `infersim validate --uncertainty-out`):
 *   family,scope,provenance,sigma,rows
 * one row per family, scope and provenance: scope is a device family (an arch name: hopper, ...)
 * or "*" (every device), and for the engine family an engine profile's name or "*"; provenance
 * is fitted, inherited or default (for the engine: fitted when the engine version has end-to-end
 * rows, default when it has none; a scope "NAME:moe" is the engine's MoE rows, "*:moe" the
 * default of MoE models); sigma is the standard deviation of log(measured / predicted)
 * (>= 0, < 3); rows the evidence behind it. Every family has a "*" row of each provenance (the
 * engine family: its "*" default row), so every lookup finds a value.
 *
 * Example (const sim_unc_table *t, const sim_hw *hw, const sim_step_cfg *cfg):
 *   sim_unc_draw d;
 *   sim_unc_draw_make(t, hw, "vllm", 0, 3, &d); // draw 3 of the table's distributions
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
const char *sim_unc_family_field(sim_unc_family f);

/* Where the device's value of family f came from. The one place provenance is read: today the
 * device file's origin of the family's first field (file: fitted, derived: inherited, default
 * rule: default); the engine family is not a device's (SIM_UNC_FITTED). */
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
} sim_unc_entry;

typedef struct sim_unc_table {
    size_t n;
    sim_unc_entry e[SIM_UNC_MAX_ENTRIES];
} sim_unc_table;

/* Reads the CSV above. Errors name the file, the line, the field and what was expected; a table
 * missing a family's "*" rows is refused. */
sim_status sim_unc_load(const char *path, sim_unc_table *t, sim_err *err);

/* Adds (or replaces) one entry; false when the table is full. */
bool sim_unc_set(sim_unc_table *t, sim_unc_family f, const char *scope, sim_unc_prov p,
                 double sigma, int64_t rows);

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

#endif
