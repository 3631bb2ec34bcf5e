/* spec.h - speculative decoding: the draft's cost, the verify step's shape, the acceptance model
 * and the memory the draft takes. Knows nothing of scheduling.
 *
 * One speculative iteration = the draft proposes K tokens per sequence, then ONE verify step of
 * the target runs K+1 query tokens per sequence over its cached context (every position needs
 * logits). The drafts are accepted left to right, each with probability alpha, until the first
 * rejection; the target adds one token of its own, so a verify step yields a + 1 tokens, a in
 * [0, K], with mean tau = (1 - alpha^(K+1)) / (1 - alpha) (K+1 when alpha = 1).
 *
 * Draft cost per method (priced by the step model on the same GPUs and TP as the target):
 *   draft   K sequential decode steps of the draft model (its own weights and KV cache); the
 *           draft also prefills every prompt chunk the target prefills;
 *   eagle   one draft head, priced as one transformer layer of the target's shape plus the shared
 *           embedding and LM head, run K times (its 2d->d input projection is not priced);
 *   mtp     the model's MTP layers (num_nextn_predict_layers), likewise run K times;
 *   medusa  K heads run once: each a d x d residual block and its own d x V LM head;
 *   ngram   no draft compute (prompt lookup on the CPU).
 * Memory: draft weights and their KV per token (draft model; eagle/mtp: their layers' KV), and the
 * K extra KV slots each sequence holds during verification.
 */
#ifndef SIM_SPEC_H
#define SIM_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "mem.h"
#include "rng.h"
#include "step.h"

typedef enum sim_spec_method {
    SIM_SPEC_NONE,
    SIM_SPEC_DRAFT,
    SIM_SPEC_EAGLE,
    SIM_SPEC_MEDUSA,
    SIM_SPEC_MTP,
    SIM_SPEC_NGRAM,
    SIM_SPEC_COUNT
} sim_spec_method;

typedef struct sim_spec {
    sim_spec_method method;
    int k;                  /* drafted tokens per verify step, 1..16 */
    double alpha;           /* per-token acceptance probability, 0..1 */
    const sim_model *draft; /* draft: the draft model (caller-owned); eagle/mtp: &head */
    sim_model head;         /* eagle/mtp: the target's shape with the head's layer count */
} sim_spec;

/* True when s is given and speculates (method other than none). */
bool sim_spec_active(const sim_spec *s);

/* "draft", "eagle", ... ("none" for SIM_SPEC_NONE). */
const char *sim_spec_method_name(sim_spec_method m);

/* Parses a --spec-method value. */
bool sim_spec_method_parse(const char *s, sim_spec_method *out);

/* Mean tokens per verify step: (1 - alpha^(K+1)) / (1 - alpha). */
double sim_spec_tau(double alpha, int k);

/* The alpha whose tau(alpha, k) is `tau` (1 <= tau <= K+1), by bisection. */
double sim_spec_alpha_for_tau(double tau, int k);

/* Sets up speculation for `target`; draft_model is needed (only) for SIM_SPEC_DRAFT. Exactly one
 * of alpha (>= 0) and tau (> 0) is given, the other negative. Errors name the flag. */
sim_status sim_spec_init(sim_spec *s, sim_spec_method method, int k, double alpha, double tau,
                         const sim_model *target, const sim_model *draft_model, sim_err *err);

/* Checks the draft against the target's configuration (the draft model under the same TP). */
sim_status sim_spec_check(const sim_spec *s, const sim_step_cfg *target, sim_err *err);

/* Memory the speculation adds on each GPU (zeros without speculation, s may be NULL). */
sim_mem_extra sim_spec_mem_extra(const sim_spec *s, const sim_step_cfg *target);

/* Memos for pricing the draft's steps iteration after iteration (draft, eagle, mtp): for the
 * first step, which carries the prefill chunks, one per launch mode; one for the later,
 * decode-only steps; so that none evicts another. Steps 2..K of an iteration differ only in their
 * contexts, which is what a memo reuses. One per spec and target configuration (the caller's run
 * state owns it); zero it to start. */
typedef struct sim_spec_memo {
    sim_step_memo first[2]; /* by launch mode: graph, eager */
    sim_step_memo rest;
} sim_spec_memo;

/* Time of the draft's proposals for one iteration: `decode` holds the verifying sequences (q is
 * ignored: each proposes K tokens from its context c), `prefill` the prompt chunks the draft must
 * also process (draft, eagle, mtp). scratch has room for n_prefill + n_decode groups. memo may be
 * NULL (every step priced afresh); the result is the same either way.
 * `target` is the target's configuration as given (target->eager is --enforce-eager, not the
 * iteration's launch mode): each draft step's launch mode follows sim_step_eager, so the first
 * step runs eagerly when it carries prefill chunks and the decode-only steps 2..K replay CUDA
 * graphs. Medusa's heads hang off the target's forward pass and launch as it does (eagerly when
 * the iteration has prefill). */
double sim_spec_draft_ns(const sim_spec *s, const sim_step_cfg *target,
                         const sim_seq_group *prefill, size_t n_prefill,
                         const sim_seq_group *decode, size_t n_decode, sim_seq_group *scratch,
                         sim_spec_memo *memo);

/* Draws the number of accepted drafts (0..drafted) of one verify step. */
int sim_spec_draw(const sim_spec *s, sim_rng *rng, int drafted);

#endif
