/* run.h - a static batch: B sequences of input_len prompt tokens each generate output_len tokens.
 *
 *   TTFT = the prefill step of the whole batch (eager kernels);
 *   decode step j = 1 .. output_len-1 runs q = 1 over c = input_len + j - 1 cached tokens;
 *   TPOT = mean decode step; E2E = TTFT + all decode steps;
 *   output throughput = B x output_len / E2E (tokens/s over the whole batch).
 *
 * With speculative decoding (spec, expected-value mode): the prefill also runs the draft over the
 * prompt; each decode iteration is the draft's proposals plus one verify step of K+1 tokens per
 * sequence (a tree's mask and kernels added, spec.h) and yields a + 1 tokens, but never more than
 * are left, so E = sim_run_spec_iterations(output_len - 1) iterations run in expectation (>= 1
 * whole one: never a fraction of a verify step), the context growing by (output_len - 1) / E
 * each. The speed-up is the decode time without speculation over the decode time with it. A load
 * rule (spec.h's adapt) drafts the batch a shorter chain or turns speculation off (speed-up 1).
 * The break-even batch is the smallest batch whose speculative decode costs as much per token as
 * plain decoding, one iteration of each at the mean context, ignoring the load rule, searched
 * up to the largest batch that fits in memory; 0 when it still pays there.
 *
 * Energy (an estimate, power.h): E = P_idle x GPUs x E2E + GPUs of the TP group x (the prefill
 * step's energy above the idle floor + decode steps x the mean decode step's), over the
 * batch x output_len tokens.
 *
 * Example (const sim_step_cfg *step, sim_err *err):
 *   sim_run_cfg cfg = {.step = *step, .batch = 8, .input_len = 1024, .output_len = 256,
 *                      .mem_util = 0.9};
 *   sim_status st = sim_run_check(&cfg, err); // bad input (does not fit): exit 2 with err->msg
 *   if (st)
 *       return st;
 *   sim_run_result r;
 *   sim_run_simulate(&cfg, &r);
 *   if ((st = sim_run_check_result(&r, err))) // a bug: never reported as a number
 *       return st;
 */
#ifndef SIM_RUN_H
#define SIM_RUN_H

#include <stdint.h>

#include "mem.h"
#include "power.h"
#include "spec.h"
#include "step.h"

/* A static run's prefill and decode steps, kept for a run that only decodes longer: the same
 * deployment, batch and prompt with a larger output_len (a sweep's points along --output-len)
 * takes the prefill step and the decode steps priced so far and prices only the steps after
 * them. Exact: the prefill depends on the deployment, the batch and the prompt, step j's price
 * on those and its context input_len + j - 1, neither on output_len, and the totals and the mean
 * step's sums are running sums whose additions, in the same order, are the same for the longer
 * run up to step j (sim_step_sum keeps a run's pending additions across the stop), so the longer
 * run's numbers are bit for bit those it gets from scratch. The caller keeps one per thread and
 * hands it only to runs of the same deployment and images (sim_run_cfg.decode); a different
 * batch, prompt or a shorter output starts it afresh. Zero it to start. */
typedef struct sim_run_decode {
    bool valid;
    int64_t batch, input_len; /* the steps it holds are of these */
    int64_t next;             /* the next decode step to price (steps 1 .. next - 1 are in) */
    double total_ns;          /* their times' running sum */
    sim_step_memo memo;
    sim_step_sum mean; /* their sum (the mean step's before the scale) */
    bool has_prefill;  /* prefill and prefill_ns hold the prompt's step */
    sim_step_result prefill;
    double prefill_ns; /* its makespan (over pipeline stages, the micro-batches') */
} sim_run_decode;

typedef struct sim_run_cfg {
    sim_step_cfg step;    /* step.eager: decode kernels launched eagerly (--enforce-eager) */
    int64_t batch;        /* sequences */
    int64_t input_len;    /* prompt tokens per sequence (its images' placeholder tokens included) */
    int64_t images;       /* images per sequence the prefill encodes (a vision encoder's) */
    int64_t image_w, image_h; /* their pixels */
    int64_t output_len;   /* generated tokens per sequence (>= 1) */
    double mem_util;      /* --gpu-memory-utilization, (0, 1] */
    const sim_spec *spec; /* speculative decoding; NULL (or method none) for plain decoding */
    double usd_per_gpu_hour; /* price of a GPU-hour for the report (0 unknown); not simulated */
    /* --uncertainty: the headline metrics' bands for the report (unc.h; NULL: none); not
     * simulated */
    const struct sim_unc_band *band;
    /* plain decoding's steps kept from the run before of the same deployment (NULL: none; see
     * sim_run_decode); not simulated: the results are those without it */
    sim_run_decode *decode;
} sim_run_cfg;

typedef struct sim_run_result {
    double ttft_ns;
    double tpot_ns; /* 0 when output_len == 1 */
    double e2e_ns;
    double output_throughput; /* generated tokens per second, whole batch */
    sim_step_result prefill;
    sim_step_result decode; /* the mean decode (or verify) step (zeros when output_len == 1) */
    int64_t decode_steps;   /* decode steps, or whole verify iterations with speculation */
    sim_mem_report mem;
    /* speculative decoding (zeros without it) */
    double spec_tau;        /* tokens per verify step per sequence */
    double spec_iterations; /* expected verify iterations: (output_len - 1) / tau */
    double spec_draft_ns;   /* mean draft time per iteration */
    double spec_verify_ns;  /* mean verify-step time per iteration */
    double spec_speedup;    /* decode time without speculation / with it */
    /* the power estimate (power.h; zeros when the device file gives no power.tdp_w): every GPU
     * at its idle floor for e2e, plus the prefill step's and each decode (verify) step's energy
     * above it on each of the TP group's GPUs; a speculative draft's time counts at the floor */
    sim_power_totals power;
    double spec_tokens_per_iteration; /* (output_len - 1) / spec_iterations */
    int spec_depth;                   /* drafted depth at this batch after the load rule */
    int64_t spec_break_even_batch;    /* smallest batch where it stops paying; 0: none */
} sim_run_result;

#define SIM_RUN_BREAK_EVEN_MAX 65536

/* Expected verify iterations for `tokens` output tokens (see above). */
double sim_run_spec_iterations(const sim_spec *s, int64_t tokens);

/* The break-even batch (see above), searched up to max_batch. cfg->spec active. */
int64_t sim_run_spec_break_even(const sim_run_cfg *cfg, int64_t max_batch);

/* Validates everything a run needs: the step configuration, lengths against the model's
 * context, the memory utilization and that the batch fits. */
sim_status sim_run_check(const sim_run_cfg *cfg, sim_err *err);

/* The batch's prompt as one sequence group: batch sequences of input_len tokens from an empty
 * cache, logits at the last, with their images (the prefill step sim_run_simulate prices). */
sim_seq_group sim_run_prefill_group(const sim_run_cfg *cfg);

/* Simulates the batch. cfg must have passed sim_run_check. O(output_len x ops). */
void sim_run_simulate(const sim_run_cfg *cfg, sim_run_result *out);

/* SIM_EINTERNAL, naming the quantity, when a simulated run's TTFT, E2E latency or throughput is
 * not finite and positive or its TPOT not finite and non-negative: a result that must never be
 * reported (an op priced at a zero peak is a bug of the checks, not a number). Every caller of
 * sim_run_simulate that reports its result calls it. */
sim_status sim_run_check_result(const sim_run_result *r, sim_err *err);

#endif
