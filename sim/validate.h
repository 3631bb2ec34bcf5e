/* validate.h - predictions against public measurements, and fitting a device's efficiencies to
 * them.
 *
 * The measurements live in a normalized CSV (tools/data/validation.csv, made from
 * ../shared/data/calibration.csv with every row's source kept): one row per measurement, its kind
 * and parameters in columns:
 *   id, kind (gemm | attention | copy | allreduce | e2e | ttft), hw, dtype, gpus, m, n, k, batch,
 *   seq, heads, head_dim, causal, bytes, model, tp, input_len, output_len, weight_dtype,
 *   act_dtype, kv_dtype, framework, metric, value, unit, skip (a reason it cannot be expressed),
 *   source.
 * Metrics: tflops, latency_ms, tb_per_s, busbw_gb_per_s (ops); e2e_s, ttft_ms (static batches);
 * output_tps (serve: `batch` requests of input_len / output_len tokens, all sent at t = 0, under
 * continuous batching; output tokens per second over the run).
 *
 * Op-level predictions price ONE op as the step model would (the GEMM, the fused attention, a
 * device copy, a ring all-reduce), with the per-kernel cost of back-to-back launches; end-to-end
 * rows run `run`. Fitting (sim_validate_fit) uses op-level rows only: end-to-end rows stay a test
 * of the whole model, never a target.
 */
#ifndef SIM_VALIDATE_H
#define SIM_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw.h"
#include "model.h"
#include "engine.h"
#include "step.h"

typedef enum sim_vkind {
    SIM_VK_GEMM,
    SIM_VK_ATTENTION,
    SIM_VK_COPY,
    SIM_VK_ALLREDUCE,
    SIM_VK_E2E,
    SIM_VK_TTFT,
    SIM_VK_SERVE,
    SIM_VK_COUNT
} sim_vkind;

typedef struct sim_vrow {
    int64_t id;
    sim_vkind kind;
    char hw[48], model[48], framework[96], metric[24], unit[16], skip[160], source[200];
    sim_dtype dtype, weight, act, kv;
    int64_t gpus, m, n, k, batch, seq, heads, head_dim, bytes, tp, input_len, output_len;
    bool causal;
    double value; /* measured, in `metric`'s unit */
    int64_t line; /* in the CSV */
} sim_vrow;

/* "gemm", ... */
const char *sim_vkind_name(sim_vkind k);

/* True for the op-level kinds (gemm, attention, copy, allreduce). */
bool sim_vkind_is_op(sim_vkind k);

/* Reads the CSV. *rows is owned by the caller (free). Errors name the file and line. */
sim_status sim_validate_load(const char *path, sim_vrow **rows, size_t *n, sim_err *err);

/* The prediction of an op-level row on `hw`, in the row's metric. */
sim_status sim_validate_op(const sim_vrow *row, const sim_hw *hw, double *predicted, sim_err *err);

/* The prediction of an end-to-end row: `run` of the row's batch with `tmpl`'s overheads and launch
 * settings on (model, hw). */
sim_status sim_validate_e2e(const sim_vrow *row, const sim_model *model, const sim_hw *hw,
                            const sim_step_cfg *tmpl, double *predicted, sim_err *err);

/* The prediction of a serve row: the engine `tmpl` (scheduler, KV sizing, host costs; its step's
 * model, device, TP and precision are the row's) serving the row's requests, all at t = 0. */
sim_status sim_validate_serve(const sim_vrow *row, const sim_model *model, const sim_hw *hw,
                              const sim_engine_cfg *tmpl, double *predicted, sim_err *err);

/* Signed relative error in percent. */
double sim_validate_error_pct(double predicted, double measured);

/* Median and p90 of |errors| (linear interpolation). n may be 0. */
void sim_validate_summary(const double *abs_err_pct, size_t n, double *median, double *p90);

/* The efficiency parameters a fit may move, with their bounds. */
typedef struct sim_fit_report {
    size_t rows;                        /* op-level rows of the device used */
    double before_median, after_median; /* |error| % over those rows */
    char fitted[768];                   /* "efficiency.gemm.bf16 0.80 -> 0.74, ..." */
} sim_fit_report;

/* Fits hw's efficiencies (GEMM per format, attention, memory, network, collective fixed cost and
 * per-hop latency) to the op-level rows whose `hw` column is `name`, minimizing the sum of squared
 * relative errors by coordinate descent (deterministic). Parameters no row constrains stay. */
sim_status sim_validate_fit(const sim_vrow *rows, size_t n, const char *name, sim_hw *hw,
                            sim_fit_report *report, sim_err *err);

#endif
