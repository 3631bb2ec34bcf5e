/* infersim_step.h - the step-time predictor: one engine iteration's batch in, its time out, for
 * engine simulators that run a real scheduler and ask a model for each forward step's latency
 * (SGLang's and vLLM's simulated-forward hooks, Dynamo's mocker, a scheduler of your own).
 *
 * A handle holds one deployment, loaded and checked once from the flags `infersim serve` takes
 * for it (model, device, TP / EP / PP, precisions, engine profile, launch mode, overheads); each
 * call prices one iteration's batch, given per sequence the tokens scheduled this step and the
 * context already in its KV cache, exactly as `infersim serve` prices that iteration: the launch
 * mode (eager with prefill tokens, else the captured CUDA graph the batch pads to), every op of
 * the step, the engine's host time, and with --pp a steady round of micro-batches.
 *
 * Example:
 *   #include <infersim_step.h>
 *   #include <stdio.h>
 *   const char *argv[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--engine", "vllm"};
 *   char err[512];
 *   infersim_step *h;
 *   if (infersim_step_open(INFERSIM_STEP_ABI, 6, argv, &h, err, sizeof err)) {
 *       fprintf(stderr, "%s\n", err);
 *       return 2;
 *   }
 *   infersim_step_seq batch[3] = {
 *       {.new_tokens = 1, .cached_tokens = 900, .kind = INFERSIM_SEQ_DECODE},
 *       {.new_tokens = 1, .cached_tokens = 4000, .kind = INFERSIM_SEQ_DECODE},
 *       {.new_tokens = 512, .cached_tokens = 0, .kind = INFERSIM_SEQ_PREFILL_LAST}};
 *   infersim_step_time t;
 *   if (infersim_step_price(h, batch, 3, &t, err, sizeof err) == INFERSIM_STEP_OK)
 *       printf("%.1f us (prefill %.1f, decode %.1f, comm %.1f)\n", t.step_us, t.prefill_us,
 *              t.decode_us, t.comm_us);
 *   infersim_step_close(h);
 *
 * Versioning. INFERSIM_STEP_ABI is the version of this header's structs and functions; the
 * caller passes the one it was compiled against to infersim_step_open, which refuses any other
 * (INFERSIM_STEP_EVERSION): a struct's layout never changes within a version, and a new version
 * is a new number. infersim_step_abi() is the library's.
 *
 * Cost and threads. Opening parses files and allocates; pricing allocates nothing and writes
 * nothing but *out and err: its work is the step model's (consecutive decode steps reuse every op
 * that does not depend on the contexts). A handle is used by one thread at a time; separate
 * handles share nothing and run on separate threads at once.
 *
 * Errors. Every function returns a code (infersim_step_status) and, where it fails, writes one
 * line naming what was wrong, "infersim: ...", into err (truncated to err_len - 1 bytes; err may
 * be NULL when err_len is 0). A refused call leaves *out unchanged.
 *
 * Link with `pkg-config --cflags --libs infersim` (the header is installed next to infersim.h).
 */
#ifndef INFERSIM_STEP_H
#define INFERSIM_STEP_H

#include <stddef.h>
#include <stdint.h>

#include "infersim.h" /* INFERSIM_API */

#ifdef __cplusplus
extern "C" {
#endif

#define INFERSIM_STEP_ABI 1

typedef enum infersim_step_status {
    INFERSIM_STEP_OK = 0,
    INFERSIM_STEP_EINTERNAL = 1, /* out of memory, or a step time that is not finite (a bug) */
    INFERSIM_STEP_EINPUT = 2,    /* a flag, file, batch or sequence refused: the message says */
    INFERSIM_STEP_EHANDLE = 3,   /* NULL, or not a handle infersim_step_open returned */
    INFERSIM_STEP_EVERSION = 4   /* the caller's INFERSIM_STEP_ABI is not the library's */
} infersim_step_status;

/* What a sequence does in the step (the scheduler's view of it). */
typedef enum infersim_step_kind {
    INFERSIM_SEQ_PREFILL = 0,      /* a chunk of its prompt with more to come: no token sampled */
    INFERSIM_SEQ_PREFILL_LAST = 1, /* its prompt's last (or only) chunk: samples its first token */
    INFERSIM_SEQ_DECODE = 2        /* one token over its context: samples the next (new_tokens 1) */
} infersim_step_kind;

/* One sequence of the batch (24 bytes). */
typedef struct infersim_step_seq {
    int64_t new_tokens;    /* tokens scheduled this step, >= 1 (vLLM's num_scheduled_tokens,
                            * SGLang's extend_input_len; 1 for a decode) */
    int64_t cached_tokens; /* context already in its KV cache, >= 0 (computed before this step,
                            * prefix-cache hits included: vLLM's num_computed_tokens, SGLang's
                            * prefix_len); new + cached at most the model's context length */
    int32_t kind;          /* an infersim_step_kind */
    int32_t dp_rank;       /* with --dp-attention: the data-parallel group it lives in (taken
                            * mod the groups; infersim serve passes the request's index); else 0 */
} infersim_step_seq;

/* One step's time, in microseconds. prefill_us + decode_us + comm_us = step_us: comm_us is the
 * network time no compute hides (all-reduces, all-to-alls); the rest is apportioned between the
 * prefill and the decode sequences by the times each group takes priced alone (a batch of one
 * kind gets it all). With --pp, step_us is the round of micro-batches and the split is the whole
 * step's proportions of it (the stages' activation transfers fall in the compute parts). */
typedef struct infersim_step_time {
    double step_us;
    double prefill_us, decode_us, comm_us;
    double host_us;      /* of step_us, the engine's CPU time the GPU waits for */
    double lo_us, hi_us; /* the band: 10th and 90th percentiles of step_us over --uncertainty N
                          * parameter draws (unc.h's error table; N = 8 unless given); both
                          * step_us with --uncertainty 0 */
    int64_t step_ns;     /* the engine's clock: step_us in whole nanoseconds, at least 1, as
                          * infersim serve advances by it */
    int64_t graph_batch; /* the CUDA-graph batch replayed (the batch padded up); 0: eager */
} infersim_step_time;

typedef struct infersim_step infersim_step; /* opaque */

/* The library's INFERSIM_STEP_ABI. */
INFERSIM_API int infersim_step_abi(void);

/* Opens a handle on the deployment argv[0..argc) names: serve's flags that set it, exactly as on
 * the command line (`infersim serve --help`): --model and --hw (required), --tp, --pp, --ep, --dp,
 * --dp-attention and the MoE flags, the formats (--dtype ...), --engine, the launch mode and CUDA
 * graphs (--enforce-eager, --cudagraph-mode, --cuda-graph-max-bs), the collectives (--allreduce,
 * --overlap-comm, ...), the engine's overheads, --max-model-len, --max-num-seqs (and its
 * spellings: the most sequences a batch may hold, as infersim serve's scheduler has them), and the
 * band's --uncertainty N and --uncertainty-table. A serve flag that does not change a step's time
 * (the workload, the scheduler's token budget, outputs) is refused naming it, and so is
 * speculative decoding (not priced per step here yet). abi is the caller's INFERSIM_STEP_ABI. On
 * success *h is the handle (close it with infersim_step_close); on failure *h is NULL. */
INFERSIM_API infersim_step_status infersim_step_open(int abi, int argc, const char *const argv[],
                                                     infersim_step **h, char *err,
                                                     size_t err_len);

/* The most sequences a batch of h may hold (the engine profile's max_num_seqs, or the flag's,
 * times the data-parallel groups); 0 for a bad handle. */
INFERSIM_API int64_t infersim_step_max_seqs(const infersim_step *h);

/* Prices one iteration of n sequences (1 <= n <= infersim_step_max_seqs) into *out. Refused
 * (INFERSIM_STEP_EINPUT, naming the sequence's index, field and value) are an empty or oversized
 * batch, a NULL seqs or out, new_tokens < 1, cached_tokens < 0, new + cached past the model's
 * context, a kind not listed above, a decode of other than one token, a negative dp_rank. */
INFERSIM_API infersim_step_status infersim_step_price(infersim_step *h,
                                                      const infersim_step_seq *seqs, size_t n,
                                                      infersim_step_time *out, char *err,
                                                      size_t err_len);

/* Closes the handle and frees what it holds; NULL is a no-op. */
INFERSIM_API void infersim_step_close(infersim_step *h);

#ifdef __cplusplus
}
#endif

#endif
