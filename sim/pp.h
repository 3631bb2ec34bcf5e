/* pp.h - pipeline parallelism: the model's layers split over `pp` stages, each stage a TP group
 * of tp GPUs, activations sent from stage to stage.
 *
 * Split: vLLM's get_pp_indices (vllm/distributed/utils.py,
 * https://github.com/vllm-project/vllm/blob/main/vllm/distributed/utils.py): every stage gets
 * floor(L / pp) layers and the L mod pp left over go one each to the stages before the last,
 * counting back from the second-to-last (the last stage also holds the LM head):
 * 80 layers at pp 3 -> 27, 27, 26; 5 at pp 3 -> 2, 2, 1. The first stage holds the embedding, the
 * last the final norm, LM head, logits gather and sampling.
 *
 * Memory per GPU is the heaviest stage's: its layers' weights and KV, its tables. (The KV-cache
 * size of the engine is the smallest any stage allows, as vLLM takes the minimum over workers;
 * planning with the heaviest stage's weights and KV per token is that minimum, or below it by
 * at most one table when the two maxima sit on different stages.)
 *
 * Transfer between stages s and s+1: the hidden states and the residual (vLLM's
 * IntermediateTensors: two T x d tensors in the residual format), each of the tp ranks sending
 * its 1/tp share, over the scale-up link when both stages' GPUs share a node and the scale-out
 * link when the boundary crosses one (GPUs numbered stage by stage, devices_per_node a node):
 *   bytes_per_gpu = 2 x T x d x resid_bytes / tp
 *   t_xfer       = bytes_per_gpu / (link bandwidth x efficiency.network) + link latency
 *
 * A round of continuous batching: the scheduled sequences are cut into m = min(pp, sequences)
 * micro-batches of equal sequence count in the scheduler's order, each priced as a whole step
 * (step.h) and split into stage times T[j][s] (its per-layer ops times the stage's layers, the
 * edge ops on their stages, the host time on the first). vLLM keeps pp micro-batches in flight,
 * one per stage, so in steady state a round (every scheduled sequence advanced once) takes
 *   round = max( max over stages s of sum_j T[j][s],                    (a stage is the bottleneck)
 *                max over micro-batches j of sum_s T[j][s] + sum_b X[j][b] )  (a token's latency)
 * With one sequence the second term rules: a token still crosses every stage and every link,
 * so pipeline parallelism never lowers batch-1 latency (it adds the transfers); with many
 * sequences the stages work in parallel. A one-shot batch (`run`'s prefill) takes the pipeline's
 * makespan instead (fill and drain: micro-batch j enters stage s when both it has left stage s-1
 * and stage s has finished micro-batch j-1).
 */
#ifndef SIM_PP_H
#define SIM_PP_H

#include <stdbool.h>
#include <stdint.h>

#include "step.h"

#define SIM_PP_MAX 64 /* most stages */

/* Stages of a configuration: cfg->pp, 1 when it is 0. */
int sim_pp_stages(const sim_step_cfg *cfg);

/* GPUs of one engine instance: its stage's GPUs (step.h: tp, x the DP groups with data-parallel
 * attention) x stages. */
int64_t sim_pp_gpus(const sim_step_cfg *cfg);

/* Layers of each of the pp stages (out has pp entries), as vLLM splits them. 1 <= pp <= layers. */
void sim_pp_partition(int64_t layers, int pp, int64_t *out);

/* Whether the pp stages' boundary after stage s crosses nodes (then it uses the scale-out link). */
bool sim_pp_boundary_scaleout(const sim_step_cfg *cfg, int s);

/* Weight bytes on each GPU of the heaviest stage (the whole model's without stages); a MoE
 * model's layers are counted at their mean (its dense leading layers are lighter). */
double sim_pp_weight_bytes(const sim_step_cfg *cfg);

/* The fraction of the layers (so of the KV per token) the stage with the most layers holds. */
double sim_pp_layer_share(const sim_step_cfg *cfg);

/* Bytes each GPU sends across one stage boundary for a step of `tokens` new tokens. */
double sim_pp_xfer_bytes(const sim_step_cfg *cfg, double tokens);

/* Time to send them across the boundary after stage s. */
double sim_pp_xfer_ns(const sim_step_cfg *cfg, double tokens, int s);

/* Time stage s spends on a step priced whole (the step's per-layer ops run the stage's layers). */
double sim_pp_stage_ns(const sim_step_cfg *cfg, const sim_step_result *r, int s);

/* Memos for the micro-batches of a pipelined engine: 2 x stages (by launch mode), zeroed. */
typedef struct sim_pp_memo {
    sim_step_memo *m; /* [eager][micro-batch] */
    sim_seq_group *scratch;
    size_t scratch_n;
} sim_pp_memo;

/* Allocates the memos and a scratch of n_groups groups; returns 0 when out of memory. */
int sim_pp_memo_init(sim_pp_memo *pm, const sim_step_cfg *cfg, size_t n_groups);
void sim_pp_memo_free(sim_pp_memo *pm);

/* The time of a round of the groups under cfg's stages: the steady-state bound above, or the
 * one-shot makespan when `steady` is false. cfg->eager picks the memos' launch mode; pm must
 * have been initialised for at least n_groups groups, or be NULL for a batch of at most
 * SIM_PP_BARE_GROUPS groups (each micro-batch then priced afresh: a static batch's). */
/* Micro-batches a round of these groups is cut into: min(stages, sequences). */
int sim_pp_micro_batches(const sim_step_cfg *cfg, const sim_seq_group *groups, size_t n_groups);

/* Micro-batch j of m: the sequences [S j / m, S (j+1) / m) of the groups in the scheduler's
 * order, into out (room for n_groups); returns its group count. */
size_t sim_pp_micro_batch(const sim_seq_group *groups, size_t n_groups, int j, int m,
                          sim_seq_group *out);

/* One-shot placement of a micro-batch at a stage: it enters when the stage is free (*stage_free_ns)
 * and it has arrived (*arrive_ns); returns its start and moves both on (the stage is free after
 * stage_ns, the micro-batch arrives at the next stage xfer_ns later). */
double sim_pp_enter(double *stage_free_ns, double *arrive_ns, double stage_ns, double xfer_ns);

#define SIM_PP_BARE_GROUPS 4
double sim_pp_round_ns(const sim_step_cfg *cfg, const sim_seq_group *groups, size_t n_groups,
                       sim_pp_memo *pm, bool steady);

#endif
