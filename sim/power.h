/* power.h - an ESTIMATE of a GPU's average power and energy from the utilization the step model
 * already computes. Nothing here is measured: the device file gives the board power (TDP) and an
 * idle floor, and the step's busy fractions scale the range between them. The idle floor is what
 * a GPU an engine holds draws with no kernel running (context loaded, clocks at boost: H100 117 W
 * against 70 W parked, hw/h100-sxm.json), since a serving engine's GPUs never park between
 * kernels or iterations.
 *
 * For one step of time t on one GPU, with its FLOPs F, and the sums over its ops of memory time
 * T_mem (bytes at the achievable bandwidth) and network time T_net (step.h):
 *   busy fractions   c = F / (peak x efficiency.gemm of the compute format) / t
 *                    m = T_mem / t,  n = T_net / t                          (each in [0, 1])
 * c counts the FLOPs done, not the step's math time T_math: a skinny GEMM's M padded to the
 * tile is priced as math time, but the padded rows are zeros that switch almost nothing (zero
 * inputs draw less power, H. He below), and a memory-bound decode step would otherwise read as
 * a quarter compute-busy.
 *   activity         a = min(1, W_COMPUTE c + W_MEMORY m + W_NETWORK n)
 *   power            P = P_idle + (P_tdp - P_idle) a                        (W, per GPU)
 *   energy           E = P t = P_idle t + (P_tdp - P_idle) a t
 * Launch gaps and host time add no activity: the GPU sits at its idle floor then, and so does it
 * between iterations of a serving run. A whole run sums E over its steps, and holds every GPU at
 * P_idle for the wall time it is held; its average power is that energy over time and GPUs.
 *
 * The weights (each a fraction of P_tdp - P_idle at a busy fraction of 1):
 *   W_COMPUTE 1.0   a GEMM at its achievable rate runs at the power limit: H100 matmuls are
 *                   "power limited" (H. He, "Strangely, Matrix Multiplications on GPUs Run Faster
 *                   When Given Predictable Data", thonking.ai, 2024: A100 random-input matmuls
 *                   throttle at the 400 W limit, 15 % below zero inputs)
 *   W_MEMORY  0.40  a kernel streaming HBM at its achievable bandwidth draws well under the limit:
 *                   memory-bound LLM decode on H200 draws 137-300 W of 700 W (B. Ma et al., "The
 *                   Illusion of Power Capping in LLM Decode", arXiv:2605.11999, 2026), so at the
 *                   top of that range, HBM near saturation (m ~ 0.85 in this model's decode
 *                   steps), (300 - 75) / (700 - 75) / 0.85 = 0.42; taken as 0.40 (estimate;
 *                   it puts an H100 batch-1 run of Llama-3.1-8B at 304 W, where ML.ENERGY's v3.0
 *                   measurements read about 300 W, as the vLLM semantic-router fleet-sim power
 *                   model docs quote them)
 *   W_NETWORK 0.10  NVLink / NIC transfers at full link rate: estimate (the SerDes and copy
 *                   engines; no public per-kernel measurement found)
 * These are estimates; tools/data/validation.csv holds the public power and energy measurements
 * the outputs are checked against (never fitted to).
 *
 * Example (const sim_hw *hw, const sim_step_result *step):
 *   if (sim_power_known(hw)) {
 *       double w = sim_power_step_w(hw, SIM_DT_BF16, step); // the step's power, one GPU
 *       double j = sim_power_step_active_j(hw, SIM_DT_BF16, step); // above the idle floor
 *       (void)w;
 *       (void)j;
 *   }
 */
#ifndef SIM_POWER_H
#define SIM_POWER_H

#include <stdbool.h>

#include "hw.h"
#include "step.h"

#define SIM_POWER_W_COMPUTE 1.0
#define SIM_POWER_W_MEMORY 0.40
#define SIM_POWER_W_NETWORK 0.10

/* Busy fractions of a step's time (each in [0, 1]; all 0 for a step of no time). */
typedef struct sim_power_busy {
    double compute, memory, network;
} sim_power_busy;

/* Whether the device file gives a board power (power.tdp_w): without it the energy outputs are
 * unknown, as the price is without usd_per_gpu_hour. */
bool sim_power_known(const sim_hw *hw);

/* The step's busy fractions on `hw`, its GEMMs computing in `compute` (a format the device has
 * no peak for counts at the bf16 peak). */
sim_power_busy sim_power_step_busy(const sim_hw *hw, sim_dtype compute, const sim_step_result *r);

/* min(1, W_COMPUTE c + W_MEMORY m + W_NETWORK n) */
double sim_power_activity(sim_power_busy b);

/* P_idle + (P_tdp - P_idle) x activity, W (0 when the power is unknown). */
double sim_power_w(const sim_hw *hw, double activity);

/* The step's average power on one GPU, W. */
double sim_power_step_w(const sim_hw *hw, sim_dtype compute, const sim_step_result *r);

/* The step's energy above the idle floor on one GPU, J: (P_tdp - P_idle) x activity x t. The
 * idle floor's part, P_idle x t, is counted with the wall time a run holds its GPUs. */
double sim_power_step_active_j(const sim_hw *hw, sim_dtype compute, const sim_step_result *r);

/* What a run's or a serving run's energy comes to, from the parts the simulations add up. */
typedef struct sim_power_totals {
    double energy_j;                   /* every GPU, the whole run */
    double avg_power_w;                /* per GPU: energy / (time x GPUs) */
    double joules_per_output_token;    /* energy / output tokens (0 without tokens) */
    double output_tokens_per_s_per_mw; /* output tokens/s / (GPUs x avg_power_w / 1e6) */
} sim_power_totals;

/* idle_w: the idle floor of every GPU held, summed (W); active_j: the energy above it (J);
 * time_s: the wall time; gpus: GPUs held; output_tokens: tokens produced. Ratios guard their
 * denominators (0 when time, GPUs or tokens are 0). */
sim_power_totals sim_power_totals_of(double idle_w, double active_j, double time_s, double gpus,
                                     double output_tokens);

#endif
