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
 *
 * Trees (EAGLE-2/3's dynamic trees as SGLang runs them, Medusa's static tree). A speculation is a
 * tree of `depth` levels: draft forward j (j = 0 .. depth-1) runs width[j] tokens per sequence
 * over its context + j, and the verify step runs all `tokens` tree tokens per sequence (the last
 * accepted token, the root, included: K = tokens - 1 drafted tokens) in one forward under a tree
 * mask. A chain is the tree of width 1 everywhere and tokens = depth + 1. The engines build the
 * tree mask on the device (SGLang's build_tree_kernel_efficient and verify_tree_greedy kernels,
 * sgl-project/sglang python/sglang/srt/speculative/eagle_utils.py), and the mask kernels
 * (FlashInfer's custom-mask prefill, TensorRT-LLM's spec-dec XQA) compute the dense
 * tokens x tokens block among the new tokens, not its causal triangle: sim_spec_tree_ns prices the
 * tokens (tokens - 1) / 2 extra query-key pairs per sequence and layer, the packed mask they read
 * (tokens^2 bits per sequence, per layer), and the engine's per-iteration tree kernels (one top-k
 * selection per draft level past the first, the tree build and the acceptance walk: a launch
 * each, latency-bound). A chain pays none of it (its mask is the causal one).
 *
 * Acceptance along the tree: reach[i] = P(at least i drafted tokens accepted), i = 0 .. depth
 * (reach[0] = 1, non-increasing; vLLM's "acceptance rate at token i" is reach[i + 1]); the mean
 * tokens per verify step is tau = sum_i reach[i]. From a per-depth rate alpha: reach[i] =
 * alpha^i; from a published acceptance length tau at this depth: the constant alpha whose
 * reach sums to tau.
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

#define SIM_SPEC_MAX_DEPTH 16
#define SIM_SPEC_MAX_TOKENS 128 /* vLLM's MAX_SPEC_LEN; SGLang caps draft tokens lower */

/* The shape of one speculation (a chain when every width is 1 and tokens = depth + 1). */
typedef struct sim_spec_tree {
    int depth;                     /* draft forwards per iteration (tree levels), 1..16 */
    int width[SIM_SPEC_MAX_DEPTH]; /* tokens per sequence draft forward j runs */
    int tokens;                    /* tree tokens verified per sequence, the root included */
} sim_spec_tree;

/* Load-adaptive speculation: the drafted depth as a step function of the batch, the rule of the
 * engine's source (sim_spec_adapt_* in spec_engine.c). n = 0: always on. For batch b the depth
 * is depth[i] of the last i with batch_min[i] <= b (0: speculation off for that iteration). */
#define SIM_SPEC_ADAPT_MAX 16
typedef struct sim_spec_adapt {
    int n;
    int64_t batch_min[SIM_SPEC_ADAPT_MAX];
    int depth[SIM_SPEC_ADAPT_MAX];
    char rule[96]; /* "vLLM V0 disable_by_batch_size 32", ... for reports */
} sim_spec_adapt;

/* The engine's proposer as its source runs the draft (sim_spec_proposer_for, spec_proposer.c): a
 * zeroed one follows the target's launch rule and launches nothing outside the draft's forwards. */
typedef struct sim_spec_proposer {
    bool first_eager;       /* the first draft pass (over the verified tokens) runs eagerly */
    bool steps_eager;       /* draft passes 2..depth run eagerly */
    int first_host_kernels; /* eager kernels (device-to-host copies included) the first pass's
                             * input preparation launches outside any graph */
    int step_host_kernels;  /* eager kernels each later pass's input update launches */
    bool full_vocab_logits; /* a reduced-vocabulary head's logits are scattered back to the full
                             * vocabulary every pass (4 eager kernels) and argmax runs over it */
    bool kv_compaction;     /* after a tree verify, the accepted tokens' KV is moved to their
                             * sequence positions, every layer (TensorRT-LLM's
                             * updateKVCacheDraftTokenLocation) */
    double eager_pass_cpu_ns; /* CPU time to dispatch one kernel of a draft pass that runs neither
                               * compiled nor captured (a Python model forward in eager PyTorch):
                               * an eager pass then takes max(its GPU time, kernels x this);
                               * 0: the target's eager_kernel_cpu_ns */
    double host_op_cpu_ns;  /* CPU time to dispatch one of the first pass's preparation ops from
                             * Python (a raw PyTorch op, a Triton launch, a list copied to the
                             * device): an engine that prepares the first pass after the verify's
                             * blocking read has nothing queued on the GPU meanwhile, so each op
                             * costs the larger of this and its launch; 0: its launch */
    int verify_host_ops;    /* ops the host runs for the verify's metadata before the target's
                             * forward, each at host_op_cpu_ns, exposed when the iteration's loop
                             * is synchronous (no asynchronous scheduling) */
    char name[24];          /* the row's name, for reports */
} sim_spec_proposer;

typedef struct sim_spec {
    sim_spec_method method;
    int k;                  /* drafted tokens per verify step (tree tokens - 1), 1..127 */
    double alpha;           /* per-depth acceptance probability, 0..1 */
    const sim_model *draft; /* draft: the draft model (caller-owned); eagle/mtp: &head */
    sim_model head;         /* eagle/mtp: the target's shape with the head's layer count */
    sim_spec_tree tree;     /* depth 0: the chain of k (tests may leave it) */
    int n_reach;            /* 0: reach[i] = alpha^i */
    double reach[SIM_SPEC_MAX_DEPTH + 1];
    sim_spec_adapt adapt;
    bool sync_host; /* the engine runs speculation without asynchronous scheduling (its CPU work
                     * exposed every iteration: sim_spec_engine_async) */
    bool eagle3;         /* an EAGLE-3 head (sim_spec_set_eagle3) */
    int64_t draft_vocab;  /* EAGLE-3: its LM head's rows (draft_vocab_size) */
    int64_t target_vocab; /* EAGLE-3: the target's vocabulary its logits map back onto */
    sim_spec_proposer prop;
} sim_spec;

/* Acceptance as given: exactly one of alpha (>= 0), tau (> 0) or n_rates > 0 (vLLM's per-position
 * acceptance rates, reach[1..n]; n = the depth). */
typedef struct sim_spec_accept {
    double alpha, tau;
    int n_rates;
    double rates[SIM_SPEC_MAX_DEPTH];
} sim_spec_accept;

/* Makes s's EAGLE head an EAGLE-3 head (vLLM vllm/model_executor/models/llama_eagle3.py, SGLang
 * python/sglang/srt/models/llama_eagle3.py): its layer's QKV projection reads the token embedding
 * and the hidden state concatenated (2d inputs), its first pass fuses the target's three hidden
 * states through a 3d -> d fc (combine_hidden_states), and it has an LM head of its own over
 * draft_vocab rows (draft_vocab_size of the head's config.json; 0: the target's vocabulary).
 * SIM_EINPUT when s is not an EAGLE speculation or draft_vocab is outside 1..the target's
 * vocabulary. Without it an EAGLE head is EAGLE-1's (a 2d -> d fc before the layer every pass,
 * the target's LM head shared). */
sim_status sim_spec_set_eagle3(sim_spec *s, int64_t draft_vocab, sim_err *err);

/* The proposer of the engine profile named `profile` ("vllm-0.8", "vllm", "sglang-0.4", ...):
 * the row of the table in spec_proposer.c whose name is the longest prefix of it (each row cites
 * the source its counts come from); engines without a row get a zeroed one. */
sim_spec_proposer sim_spec_proposer_for(const char *profile);

/* Extra time of an EAGLE or MTP head's pass beyond the decoder layer and LM head the step model
 * prices, over `tokens` tokens and `rows` logits rows, with d's launch mode: EAGLE-1's and MTP's
 * 2d -> d input projection, EAGLE-3's wider QKV input and (first pass) its 3d -> d fusion, and
 * the proposer's full-vocabulary logits scatter (spec.c). 0 for other methods. */
double sim_spec_head_extra_ns(const sim_spec *s, const sim_step_cfg *d, double tokens,
                              double rows, bool first);

/* A chain of k drafted tokens. */
sim_spec_tree sim_spec_chain(int k);

/* The tree's depth (k for a spec without one). */
int sim_spec_depth(const sim_spec *s);

/* P(at least i drafts accepted), i = 0 .. depth. */
double sim_spec_reach(const sim_spec *s, int i);

/* Mean tokens per verify step: sum of reach over 0 .. depth. */
double sim_spec_mean_tokens(const sim_spec *s);

/* Sets up a tree speculation: the tree checked (depth 1..16, each width 1..128, tokens from
 * depth + 1 to 128; an engine's own bounds, such as SGLang's candidates, are its parser's),
 * acceptance from `acc`. Errors name `flag` (the flag or config field that gave the tree). */
sim_status sim_spec_init_tree(sim_spec *s, sim_spec_method method, const sim_spec_tree *tree,
                              const sim_spec_accept *acc, const char *flag,
                              const sim_model *target, const sim_model *draft_model,
                              sim_err *err);

/* Extra time of a tree over a chain of the same tokens in one verify step of `seqs` sequences
 * (target's launch mode as given): the mask's dense block and its bytes in every layer's
 * attention, the engine's tree kernels and, with the proposer's kv_compaction, the move of the
 * accepted drafts' KV (mean tau - 1 per sequence, read and written). 0 for a chain. */
double sim_spec_tree_ns(const sim_spec *s, const sim_step_cfg *target, double seqs);

/* Drafted depth for an iteration of `batch` sequences under the spec's load rule (the full depth
 * without one; 0: no speculation this iteration). */
int sim_spec_adapt_depth(const sim_spec *s, int64_t batch);

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

/* A speculative configuration as an engine spells it, before the models are known (spec_engine.c).
 * tree.depth 0: the engine's default depth for the model (MTP: its num_nextn_predict_layers). */
typedef struct sim_spec_req {
    sim_spec_method method;
    char method_name[16];  /* as the acceptance data names it: eagle, eagle3, medusa, mtp, ... */
    sim_spec_tree tree;
    char draft_model[512]; /* the draft's config.json or name (draft models only) */
    sim_spec_adapt adapt;
} sim_spec_req;

/* vLLM's --speculative-config JSON (vllm/config/speculative.py): method eagle | eagle3 | medusa |
 * mtp | deepseek_mtp | qwen3_next_mtp | ngram | draft_model, num_speculative_tokens (a chain: V1
 * drafts chains), model (draft_model), disable_by_batch_size (V0 only: v0 true),
 * num_speculative_tokens_per_batch_size (V1's dynamic K). Unknown fields, bad JSON or an unknown
 * method: SIM_EINPUT naming the field.
 * Example:
 *   sim_spec_req r;
 *   sim_err err = {{0}};
 *   sim_status st = sim_spec_parse_vllm("{\"method\": \"eagle3\", \"num_speculative_tokens\": 3}",
 *                                       false, &r, &err);
 *   // st == SIM_OK, r.method == SIM_SPEC_EAGLE, r.tree.depth == 3, r.tree.tokens == 4
 */
sim_status sim_spec_parse_vllm(const char *json, bool v0, sim_spec_req *r, sim_err *err);

/* SGLang's --speculative-algorithm EAGLE | EAGLE3 | NEXTN | STANDALONE | NGRAM with
 * --speculative-num-steps (depth), --speculative-eagle-topk (width of every level past the
 * first), --speculative-num-draft-tokens (tree tokens verified, the root included; SGLang sets
 * it to steps + 1 when topk is 1); all three 0: SGLang's default (3, 1, 4). */
sim_status sim_spec_parse_sglang(const char *algo, int64_t steps, int64_t topk, int64_t tokens,
                                 sim_spec_req *r, sim_err *err);

/* TensorRT-LLM's speculative_config (the extra-llm-api-options YAML's object, as JSON):
 * decoding_type Eagle | Eagle3 | MTP | Medusa | NGram | Draft_Target, max_draft_len,
 * num_nextn_predict_layers (MTP), speculative_model_dir, max_concurrency. */
sim_status sim_spec_parse_trtllm(const char *json, sim_spec_req *r, sim_err *err);

/* The host scheduling an engine runs speculation with: vLLM turns its asynchronous scheduling
 * off under speculative decoding unless it is asked for (vllm/config/vllm.py, VllmConfig
 * __post_init__: "Async scheduling is not yet supported with speculative decoding ... and will be
 * disabled"; asked for, only EAGLE and MTP may keep it); SGLang disables its overlap scheduler
 * for EAGLE-family speculation unless SGLANG_ENABLE_SPEC_V2 is set (python/sglang/srt/
 * server_args.py, _handle_speculative_decoding). `sglang`: the SGLang family, else vLLM's;
 * async_asked: --async-scheduling given. Returns whether the iteration's CPU work may overlap
 * the GPU; SIM_EINPUT (async asked for a method vLLM refuses it with) through err. */
sim_status sim_spec_engine_async(const sim_spec *s, bool sglang, bool async_asked, bool *async_on,
                                 sim_err *err);

/* The published acceptance of r's method on `target` (its model name) and `dataset`, from a CSV
 * of method,model,dataset,depth,topk,tokens,tau,rates,source rows (tools/data/spec_acceptance.csv):
 * the row of r's tree shape, else (r a chain) a chain row (its per-position rates, or the constant per-depth
 * rate of its tau at its depth, carried to r's depth). Errors name the file and what it holds. */
sim_status sim_spec_acceptance_lookup(const char *path, const sim_spec_req *r,
                                      const sim_model *target, const char *dataset,
                                      sim_spec_accept *acc, sim_err *err);

/* Checks the draft against the target's configuration (the draft model under the same TP). */
sim_status sim_spec_check(const sim_spec *s, const sim_step_cfg *target, sim_err *err);

/* What a run and a serving engine both check first: the step configuration
 * (sim_step_check), then, with speculation active (s may be NULL), sim_spec_check, and that it
 * is not over pipeline stages (not modelled: SIM_EINPUT naming --pp and --spec-method). */
sim_status sim_spec_check_deployment(const sim_spec *s, const sim_step_cfg *target, sim_err *err);

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
 * the iteration has prefill). Included: the proposer's host work (sim_spec_proposer): its
 * preparation ops before each pass and, in an iteration that verifies sequences in a synchronous
 * loop, the verify's metadata ops. */
double sim_spec_draft_ns(const sim_spec *s, const sim_step_cfg *target,
                         const sim_seq_group *prefill, size_t n_prefill,
                         const sim_seq_group *decode, size_t n_decode, sim_seq_group *scratch,
                         sim_spec_memo *memo);

/* Draws the number of accepted drafts (0..drafted) of one verify step. */
int sim_spec_draw(const sim_spec *s, sim_rng *rng, int drafted);

#endif
