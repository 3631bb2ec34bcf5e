/* timeline_run.h - the Chrome trace timeline of a static batch (run.h): its prefill step and one
 * decode step, op by op and layer by layer (timeline_detail.h), per GPU rank or per pipeline stage.
 *
 * Example (const sim_step_cfg *cfg, const sim_step_result *pre, const sim_step_result *dec):
 *   sim_err err;
 *   if (cfg->pp > 1) { // pipeline stages price the groups per stage: 8 prompts of 1024 tokens
 *       sim_seq_group prefill = {.count = 8, .q = 1024, .logits = 1};
 *       sim_seq_group decode = {.count = 8, .q = 1, .c = 1024, .logits = 1};
 *       return sim_timeline_run_pp("run.json", cfg, &prefill, &decode, false, &err);
 *   }
 *   return sim_timeline_run("run.json", cfg, pre, dec, false, &err); // the run's two steps
 *
 * Both write the file whole or not at all (timeline.h); their _estimate_bytes say how large it will
 * be before it is written (the command line refuses one past --trace-max-mb).
 */
#ifndef SIM_TIMELINE_RUN_H
#define SIM_TIMELINE_RUN_H

#include <stdbool.h>

#include "step.h"

/* Writes `path`: one prefill and one decode step, op by op and layer by layer, on a compute, a
 * memory, a network and an as-issued track for GPU rank 0, or every rank when all_ranks
 * (tensor-parallel ranks run the same ops: one stands for all, and the header's otherData says
 * which was written). Each op slice's args carry its FLOPs, bytes, intensity, bound and
 * exposed/hidden network time. decode may be NULL. */
sim_status sim_timeline_run(const char *path, const sim_step_cfg *cfg,
                            const sim_step_result *prefill, const sim_step_result *decode,
                            bool all_ranks, sim_err *err);

/* Estimated size in bytes of sim_timeline_run's file: its events counted exactly, times the
 * measured mean size of each kind. */
double sim_timeline_run_estimate_bytes(const sim_step_result *prefill,
                                       const sim_step_result *decode, int ranks);

/* The run's timeline over pipeline stages (cfg->pp > 1): one process per stage named "stage k:
 * layers a-b" (with all_ranks one per GPU of each stage, "stage k GPU g: layers a-b"), each
 * showing its share of every micro-batch (pp.h) as a "stage" slice with the stage's layers and
 * ops nested inside (the first stage's embedding and host time, the last's final norm, LM head
 * and sampling) on the same four tracks as sim_timeline_run, placed as the one-shot pipeline runs
 * them (a micro-batch enters stage k when stage k is free and its activations have arrived),
 * and each activation transfer as an async span "activations to stage k+1" on the sending
 * stage. The prefill step (eager, as run.h prices it) is followed by one decode round drawn the
 * same way. decode may be NULL. */
sim_status sim_timeline_run_pp(const char *path, const sim_step_cfg *cfg,
                               const sim_seq_group *prefill, const sim_seq_group *decode,
                               bool all_ranks, sim_err *err);

/* Estimated size in bytes of sim_timeline_run_pp's file (-1 when out of memory). */
double sim_timeline_run_pp_estimate_bytes(const sim_step_cfg *cfg, const sim_seq_group *prefill,
                                          const sim_seq_group *decode, int ranks);

#endif
