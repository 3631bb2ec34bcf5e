/* capacity.h - the request rate an engine sustains: its steady state under saturation, priced
 * with the step model (no event simulation), so a serving run can say how close its offered
 * load is to the edge, and a parameter draw moves it at the cost of one step.
 *
 * The steady state: B sequences run at once, B = min(max_num_seqs, max_concurrency, the KV
 * blocks over one sequence's blocks at its mean context in + out/2, over all the block tables
 * it holds (sim_engine_kv_groups_of: a sliding table within its window, a state table one block
 * of the raised block size)). Serving B requests of
 * `in` prompt and `out` output tokens takes S = max(out, ceil(B (in + out) / budget)) steps
 * (one decode token per sequence per step, at most max_num_batched_tokens tokens per step;
 * chunked prefill spreads the prompts over the steps), each step a mix of B out / S decodes at
 * context in + out/2 and B in / S prefill tokens, priced by step.h (host time included):
 *   capacity = B / (S x t_step)   requests per second
 * Speculative decoding and the prefix cache are not in it (it prices plain decoding of whole
 * prompts: a lower bound on what they reach).
 *
 * Example (const sim_engine_cfg *cfg):
 *   double rps = sim_capacity_rps(cfg, 1024.0, 128.0); // 0: the model does not fit
 */
#ifndef SIM_CAPACITY_H
#define SIM_CAPACITY_H

#include "engine.h"

/* B, the sequences the steady state runs at once (at least 1); 0 when no KV block is left or
 * a length is below 1. Mistral-7B v0.1 under vLLM v1 at 8000 + 1000: a sequence at its mean
 * 8500 tokens holds ceil(8500 / 16) - floor((8500 - 4096 + 1) / 16) = 532 - 275 = 257 blocks
 * of its one sliding table, so B = floor(blocks / 257), not floor(blocks / 532). */
double sim_capacity_seqs(const sim_engine_cfg *cfg, double mean_in, double mean_out);

/* Requests per second one engine completes at saturation; 0 when no KV block is left. */
double sim_capacity_rps(const sim_engine_cfg *cfg, double mean_in, double mean_out);

#endif
