/* sched.h - continuous batching: which requests run in the next iteration, and how many tokens
 * each. Knows nothing of costs.
 *
 * A request has `known` = input + generated tokens; `computed` of them have their KV in the cache.
 * An iteration feeds it num_new = known - computed tokens (capped by the token budget when
 * prefill is chunked): a fresh prompt, a prompt chunk, a single decode token (num_new = 1), or a
 * whole recompute after preemption. When computed reaches known, the iteration samples a token.
 *
 * Policy (vLLM v1, chunked prefill on):
 *   1. running requests in admission order, each taking min(num_new, budget) tokens and the KV
 *      blocks for them; when blocks run out, the most recently admitted running request is
 *      preempted (recompute: its blocks are freed, computed = 0, and it goes to the FRONT of the
 *      waiting queue), repeatedly, until the allocation succeeds or the request preempts itself;
 *   2. if nobody was preempted, waiting requests first-come-first-served while max_num_seqs, the
 *      token budget (max_num_batched_tokens) and free blocks allow.
 * With chunked prefill off (vLLM v0 style): if waiting requests can be admitted whole, the
 * iteration is prefill-only (as many as fit); otherwise it decodes every running request.
 * With speculative decoding (spec_tokens = K > 0) a decoding request is fed K + 1 tokens (its
 * last token and K drafts to verify) and reserves KV slots for all of them. An engine's load rule
 * may draft fewer (sim_sched_set_spec_tokens: K' in 0..K for the next iteration; the policies
 * that reserve whole outputs still reserve for K).
 *
 * Other engines' policies (cfg.policy):
 *   SIM_POLICY_MAX_UTIL (TensorRT-LLM MAX_UTILIZATION): steps 1 and 2 above whether or not prefill
 *     is chunked (unchunked, a prompt is admitted only whole within the budget left);
 *   SIM_POLICY_NO_EVICT (TensorRT-LLM GUARANTEED_NO_EVICT): the same iteration shape, but a request
 *     is admitted only when the blocks for its prompt AND its whole output are free, and takes
 *     them at once: a running request never needs a block, so nobody is ever preempted;
 *   SIM_POLICY_SGLANG (SGLang): prefill and decode never share an iteration. A prefill iteration
 *     (whenever there is prompt work) continues the running prompts' chunks, then admits waiting
 *     requests while the token budget (chunked_prefill_size) lasts and the new-token-ratio rule
 *     holds: prompt + min(output, 4096) of the new request must fit in the free tokens minus
 *     ratio x min(remaining output, 4096) of every running request. Otherwise every running
 *     request decodes; when the cache runs out the most recently admitted is retracted
 *     (recompute) and the ratio jumps to (generated + 20 per request) / outputs of those left.
 *     The ratio starts at ratio_init and falls by ratio_decay per decode iteration to ratio_min;
 *   SIM_POLICY_STATIC (Hugging Face generate): a batch of up to max_num_seqs whole prompts is
 *     admitted only when nobody runs, each reserving its prompt and whole output (no paged KV),
 *     then decodes until the last request of the batch finishes.
 *
 * With cfg.lpm (SGLang's --schedule-policy lpm) and prefix caching, admission first orders the
 * waiting queue by the length of each request's cached prefix, longest first (stable), as SGLang
 * does while at most 128 requests wait (FCFS beyond: sorting a long queue costs more than it
 * gains).
 *
 * Prefix caching (cfg.prefix_block_tokens > 0, see prefix.h): when a request is admitted with
 * nothing computed, its prompt's longest cached prefix (whole hash blocks, at least one prompt
 * token left to compute) is taken from the cache: computed starts there and those blocks are
 * shared, not allocated. As the prompt is computed its full hash blocks enter the cache; when the
 * request finishes or is preempted they stay cached, evictable, and are evicted least recently
 * used first when an allocation finds no free block (before anyone is preempted).
 *
 * Lower KV tiers (cfg.offload, kvtier.h; prefix caching on): blocks HBM evicts, or every block
 * it caches under write-through, are kept in host DRAM and disk. An admitted request whose
 * cached HBM prefix ends where a lower tier still holds the next hash blocks takes those too (the
 * longest run, each block from the fastest tier holding it): they are loaded, not computed, so
 * computed starts after them, and they take fresh KV blocks (loaded_tokens says how many tokens
 * came from each tier this iteration; the engine prices the transfer).
 */
#ifndef SIM_SCHED_H
#define SIM_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvcache.h"
#include "kvtier.h"
#include "prefix.h"
#include "status.h"

/* Longest waiting queue SGLang sorts by cached prefix (python/sglang/srt/managers/
 * schedule_policy.py: above it the policy falls back to FCFS). */
#define SIM_SCHED_LPM_MAX 128

typedef enum sim_sched_policy {
    SIM_POLICY_VLLM,     /* vLLM v1 (chunked prefill) or v0 (unchunked) */
    SIM_POLICY_SGLANG,   /* separate prefill / decode iterations, new-token-ratio admission */
    SIM_POLICY_NO_EVICT, /* TensorRT-LLM GUARANTEED_NO_EVICT */
    SIM_POLICY_MAX_UTIL, /* TensorRT-LLM MAX_UTILIZATION */
    SIM_POLICY_STATIC,   /* Hugging Face generate: static batches, whole sequences reserved */
} sim_sched_policy;

typedef enum sim_seq_phase {
    SIM_SEQ_PENDING, /* not yet sent by the client */
    SIM_SEQ_WAITING, /* queued at the engine */
    SIM_SEQ_RUNNING, /* admitted, holds KV blocks */
    SIM_SEQ_DONE,
} sim_seq_phase;

/* The scheduler's run state of one request: its sequence (the engine owns the array, one entry per
 * sim_request of the workload, in the same order; a million requests hold 96 MB of it).
 * Token and block counts are 32-bit: sim_engine_check caps every request's input + output at
 * the model's context, and model.c caps max_position_embeddings at 2^26, so the counts (and
 * their sums: known = input + generated <= 2^26) stay far below INT32_MAX. The fields the
 * scheduler reads every iteration come first. */
typedef struct sim_seq {
    int32_t input, output; /* prompt tokens; tokens to generate */
    int32_t computed;      /* tokens whose KV is in the cache */
    int32_t generated;     /* output tokens produced so far */
    int32_t blocks;        /* KV blocks held */
    int32_t n_ref;         /* leading hash blocks it holds as uses of cache entries */
    int32_t n_hash;        /* entries of hash */
    int32_t cached;        /* prompt tokens found in the prefix cache when first admitted */
    sim_seq_phase phase;
    const uint64_t *hash; /* prefix-cache ids of the prompt's full hash blocks (may be NULL) */
    int64_t preemptions;
    int64_t send_ns;        /* when the client sent it (TTFT and E2E count from here) */
    int64_t first_sched_ns; /* start of its first iteration; -1 before */
    int64_t first_token_ns, last_token_ns, finish_ns;
} sim_seq;

typedef struct sim_sched_cfg {
    int64_t max_num_seqs;           /* requests per iteration */
    int64_t max_num_batched_tokens; /* token budget per iteration */
    bool chunked_prefill;
    int64_t spec_tokens; /* K drafted tokens: a decoding request verifies K + 1 */
    sim_sched_policy policy;
    double ratio_init, ratio_min, ratio_decay; /* SGLang's new-token ratio */
    int64_t prefix_block_tokens;               /* hash block of the prefix cache; 0 = off */
    bool lpm; /* SGLang --schedule-policy lpm: longest cached prefix first (else FCFS) */
    sim_kvtier_cfg offload;                    /* lower KV tiers; zero: none */
} sim_sched_cfg;

/* One scheduled request of an iteration. */
typedef struct sim_sched_entry {
    int64_t req;     /* index into the request array */
    int64_t num_new; /* tokens fed this iteration */
    bool decode;     /* one known token left to feed (plus K drafts to verify): it samples */
} sim_sched_entry;

/* Steady decodes (sched_steady.c): with them on, a running request that decodes one token per
 * iteration and has nothing else happening to it is held in an aggregate, not walked: its
 * computed and generated counts (and its last token's time) are those of tick `base` and grow
 * by one per iteration since, implicitly, until its next event, the first iteration that needs a
 * KV block for it, produces its last token or reaches the ring's horizon (bucket `ev` mod the
 * ring). Only then, or when it is preempted, are its counts written (materialized) and it walked
 * as any request. An iteration costs the events and the requests not steady, not the running
 * batch. The engine turns it on (sim_sched_steady_init) where it applies: vLLM's chunked policy
 * or TensorRT-LLM's MAX_UTILIZATION, no speculation, no sliding block tables. */
typedef struct sim_sched_steady {
    bool on;
    bool full;          /* the last sim_sched_next walked every running request (a budget cut) */
    bool oom;           /* filing an event ran out of memory (the run fails) */
    int32_t *base, *ev; /* per request: tick of its written counts; tick of its event, -1 if not
                         * steady */
    int32_t *rank;      /* per request: its admission's order (the running list's order) */
    int32_t next_rank, tick;
    int64_t n, c_sum;   /* steady requests and the sum of their computed tokens at `tick` */
    int64_t last_ns;    /* when the steady requests got their last tokens (the engine sets it) */
    int32_t **bucket;   /* a ring of mask + 1 buckets of request ids by event tick */
    size_t *b_len, *b_cap, mask;
    int64_t *active, *due, *walk; /* running requests not steady, by rank; scratch */
    size_t n_active, m;           /* m: room of the three (max_num_seqs) */
} sim_sched_steady;

typedef struct sim_sched {
    sim_sched_cfg cfg;
    int64_t spec_now; /* drafted tokens a decode verifies this iteration (cfg.spec_tokens or
                       * fewer, sim_sched_set_spec_tokens) */
    sim_kvcache kv;
    int64_t *waiting;          /* ring buffer of request indices */
    size_t w_head, w_len, cap; /* cap = number of requests */
    int64_t *running;          /* admission order */
    size_t r_len;
    int64_t preemptions; /* total so far */
    int64_t *preempted;  /* requests preempted by the last sim_sched_next */
    size_t n_preempted;
    size_t n_finished; /* finished since the last compaction, still in the running list */
    double ratio;      /* SGLang's new-token ratio now */
    int64_t *lpm_buf;  /* room for SIM_SCHED_LPM_MAX (request, matched blocks) pairs */
    sim_prefix prefix; /* used when cfg.prefix_block_tokens > 0 */
    int64_t cached_tokens;       /* prompt tokens the last sim_sched_next took from the cache */
    int64_t prefix_hit_tokens;   /* sum of cached over first admissions */
    int64_t prefix_query_tokens; /* prompt tokens of first admissions (with prefix caching) */
    sim_kvtier tier;             /* lower KV tiers (used when cfg.offload has one) */
    /* per lower tier (DRAM, disk): prompt tokens the last sim_sched_next loaded from it and the
     * requests that loaded them; over the run, tokens loaded (every admission) */
    int64_t loaded_tokens[SIM_KVTIER_LOWER], loaded_reqs[SIM_KVTIER_LOWER];
    int64_t tier_hit_tokens[SIM_KVTIER_LOWER];
    sim_sched_steady st; /* off unless sim_sched_steady_init */
} sim_sched;

/* Tokens a request knows (prompt + generated). */
static inline int64_t sim_seq_known(const sim_seq *r) { return (int64_t)r->input + r->generated; }

/* Allocates queues for n requests (and the prefix cache). Returns SIM_EINTERNAL when out of
 * memory. With prefix caching, kv->block_size must divide cfg->prefix_block_tokens. */
sim_status sim_sched_init(sim_sched *s, const sim_sched_cfg *cfg, const sim_kvcache *kv, size_t n);

void sim_sched_free(sim_sched *s);

/* Makes the queues hold n requests (n above the capacity: grown, the waiting ring laid out from
 * its head; never shrunk), for an engine whose per-request arrays grow with its stream. False
 * when out of memory (the queues are unchanged). */
bool sim_sched_reserve(sim_sched *s, size_t n);

/* Every request index the queues hold, less k: the engine dropped its first k requests (all
 * finished, so none of them is queued) and renumbered the rest from 0. */
void sim_sched_renumber(sim_sched *s, int64_t k);

/* KV blocks only the prefix cache holds (entries nobody uses, reclaimable): its own count, the
 * one owner (0 without prefix caching). */
static inline int64_t sim_sched_evictable(const sim_sched *s)
{
    return s->cfg.prefix_block_tokens > 0 ? s->prefix.evictable_blocks : 0;
}

/* KV blocks running requests use now: all but the free and the evictable ones. */
static inline int64_t sim_sched_kv_used(const sim_sched *s)
{
    return sim_kvcache_used(&s->kv, sim_sched_evictable(s));
}

/* Whether the KV cache's blocks are all accounted for: free + each running request's own blocks
 * (those it holds minus its uses of prefix-cache entries) + every cache entry's blocks = total,
 * none negative. O(running requests): for SIM_ASSERT after each scheduling step. */
bool sim_sched_blocks_conserved(const sim_sched *s, const sim_seq *seqs);

/* Drafted tokens each decode verifies from the next iteration on (clamped to 0..spec_tokens). */
void sim_sched_set_spec_tokens(sim_sched *s, int64_t k);

/* Queues a request that just arrived at the engine. */
void sim_sched_enqueue(sim_sched *s, sim_seq *seqs, int64_t id);

/* Forms the next iteration into out[] (room for max_num_seqs entries); returns its size. Updates
 * KV blocks, preemptions and queue membership; does not advance computed or generated. */
size_t sim_sched_next(sim_sched *s, sim_seq *seqs, sim_sched_entry *out);

/* After an iteration advanced a request's computed tokens: its newly full prompt hash blocks
 * enter the prefix cache (a no-op without prefix caching). */
void sim_sched_cache_prompt(sim_sched *s, sim_seq *seqs, int64_t id);

/* After an iteration: frees a finished request's blocks and removes it from the running list. */
void sim_sched_finish(sim_sched *s, sim_seq *seqs, int64_t id);

/* Aborts request id between iterations (its client went away, as vLLM's abort_requests): a
 * running one frees its blocks and leaves the running list, a waiting one leaves the queue
 * (the others' order kept); then it is DONE. Returns its phase before (a PENDING or DONE one is
 * left as it is). */
sim_seq_phase sim_sched_abort(sim_sched *s, sim_seq *seqs, int64_t id);

/* Drops finished requests from the running list (call once per iteration, after the finishes;
 * O(1) when nothing finished). */
void sim_sched_compact(sim_sched *s, const sim_seq *seqs);

/* The same whatever the count (sim_sched_compact, with steady decodes, waits until the finished
 * are half the list). */
void sim_sched_compact_all(sim_sched *s, const sim_seq *seqs);

/* True when nothing is waiting or running. */
bool sim_sched_idle(const sim_sched *s);

/* Requests running now (the running list less its finished entries not yet dropped). */
static inline size_t sim_sched_running(const sim_sched *s) { return s->r_len - s->n_finished; }

/* Turns steady decodes on (above) for n requests, at most m running, KV blocks of block_size
 * tokens. False when out of memory (then off). The engine calls it before the first iteration,
 * only where steady decodes apply (it checks that, the scheduler does not). */
bool sim_sched_steady_init(sim_sched_steady *t, size_t n, size_t m, int64_t block_size);

void sim_sched_steady_free(sim_sched_steady *t);

/* With steady decodes, the decodes of the last sim_sched_next not in its out[]: how many, and
 * their computed tokens summed. Each feeds one token and needs no KV block. */
static inline int64_t sim_sched_steady_count(const sim_sched *s) { return s->st.on ? s->st.n : 0; }
static inline int64_t sim_sched_steady_context(const sim_sched *s) { return s->st.c_sum; }

/* After an iteration's tokens are applied (before sim_sched_compact): each steady request
 * advanced one token; the requests of out[] (n, as sim_sched_next gave them) that still run
 * become steady where they decode one token next and got a token at last_ns (when the engine
 * streamed it), the others stay walked. False when out of memory. */
bool sim_sched_steady_settle(sim_sched *s, sim_seq *seqs, const sim_sched_entry *out, size_t n,
                             int64_t last_ns);

/* Writes every steady request's counts (all walked from here; the mode stays on). */
void sim_sched_steady_flush(sim_sched *s, sim_seq *seqs);

/* The scheduler's own (sched.c): the requests to walk this iteration, by rank, into t->walk
 * (those not steady, and the steady ones whose event is now, still steady); returns how many. */
size_t sim_sched_steady_gather(sim_sched_steady *t);

/* Takes request id out of the aggregate, its counts written (a preemption): a no-op when it is
 * not steady. */
void sim_sched_steady_drop(sim_sched_steady *t, sim_seq *seqs, int64_t id);

/* Writes steady request id's counts (r = its entry) as of t->tick and takes it out. */
void sim_sched_steady_write(sim_sched_steady *t, sim_seq *r, int64_t id);

/* Iterations from a tick at which request r has `computed` and `generated` tokens until its
 * next event (0: that tick's), capped at the ring's horizon. */
int64_t sim_sched_steady_until(const sim_sched *s, const sim_seq *r, int64_t computed,
                               int64_t generated);

/* Files steady request id for its event at tick `at` (within the horizon). False when out of
 * memory. */
bool sim_sched_steady_file(sim_sched_steady *t, int64_t id, int32_t at);

#endif
