/* frontend.h - the serving engine's front end: the CPU processes around the GPU loop that
 * take each request in (HTTP, the OpenAI layer, tokenization: vLLM's API server, SGLang's
 * tokenizer manager, Triton's preprocessing model, trtllm-serve) and send each token back out
 * (detokenization, the streamed SSE chunk: vLLM's output processor in the API server, SGLang's
 * detokenizer and tokenizer manager, Triton's postprocessing model), and how the stream is cut
 * into the chunks a client sees.
 *
 * The model. The front end is `processes` identical CPU processes (vLLM --api-server-count,
 * SGLang --tokenizer-worker-num), each serving one job at a time, first come first served:
 *   - a request job when the client sends a request: request_ns + input_token_ns x prompt
 *     tokens, on the process that frees first (from the send, or when it frees); the request
 *     reaches the scheduler when it is done, and in send order (a later request that finishes
 *     first on another process waits for the earlier one: one queue into the engine);
 *   - an output job after each engine iteration that produced tokens:
 *     output_token_ns x tokens + chunk_ns x streamed chunks, split evenly over the processes
 *     (each serves its share of the requests), each share from when its process frees; the
 *     iteration's chunks reach the client when the last share is done.
 * The engine never waits for the front end (separate processes: vLLM's engine core, SGLang's
 * scheduler), so a saturated front end shows as queueing: a burst of N short requests reaches
 * the scheduler at N x (request_ns + input_token_ns x prompt) / processes, which bounds TTFT.
 *
 * Streaming. A request streams a chunk after an iteration when it finished, when it holds at
 * least stream_interval tokens the client has not had (vLLM's output processor: tokens since the
 * last send >= stream_interval; SGLang's len(output_ids) % stream_interval == 0, the same at one
 * token per iteration), or, with first_token_alone, when these are its first tokens (vLLM: the
 * first token is always sent; TensorRT-LLM: the first decoding iteration). Otherwise its tokens
 * wait for the next chunk: with stream_interval N and without first_token_alone the client sees
 * its first token only with the N-th (SGLang), so TTFT grows by N - 1 decode iterations.
 * An inter-token latency sample is the gap between two chunks the client receives (vLLM's
 * `vllm bench serve` and SGLang's bench_serving with an OpenAI backend); with per_token_itl, a
 * chunk of m tokens after a gap g gives m samples of g / m (SGLang's bench_serving with its
 * native backend), rounded to the nanosecond.
 *
 * Example:
 *   sim_frontend_cfg c = {.on = true, .processes = 1, .request_ns = 2e6, .input_token_ns = 1e3,
 *                         .output_token_ns = 2e4, .chunk_ns = 3e4, .stream_interval = 1};
 *   sim_frontend f;
 *   if (!sim_frontend_init(&f, &c, 0))
 *       return 1;                                          // out of memory
 *   int64_t ready = sim_frontend_request(&f, &c, 0, 128); // 2 ms + 128 x 1 us = 2128000 ns
 *   int64_t again = sim_frontend_request(&f, &c, 0, 128); // queued behind it: 4256000 ns
 *   int64_t seen = sim_frontend_output(&f, &c, 5000000, 2, 2); // + 2 x 20 + 2 x 30 us: 5100000
 *   sim_frontend_free(&f);
 *   ... ready, again and seen as the comments say ...
 *   return ready + again + seen > 0 ? 0 : 1;
 */
#ifndef SIM_FRONTEND_H
#define SIM_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "sched.h"
#include "status.h"

#define SIM_FRONTEND_MAX_PROCESSES 1024

typedef struct sim_frontend_cfg {
    bool on;                 /* false: requests reach the scheduler when sent, tokens the client
                                when emitted, every token a chunk (the engine as before) */
    int64_t processes;       /* front-end processes, 1..SIM_FRONTEND_MAX_PROCESSES */
    double request_ns;       /* CPU per request taken in */
    double input_token_ns;   /* CPU per prompt token (tokenization) */
    double output_token_ns;  /* CPU per output token (detokenization, output processing) */
    double chunk_ns;         /* CPU per streamed chunk (response object, SSE event, write) */
    int64_t stream_interval; /* output tokens per streamed chunk, >= 1 */
    bool first_token_alone;  /* the first token is streamed at once, not with its chunk */
    bool per_token_itl;      /* a chunk's gap is spread over its tokens (SGLang native client) */
} sim_frontend_cfg;

/* Run state: when each process is next free, and per request where its stream stands. */
typedef struct sim_frontend {
    int64_t *free_ns; /* owned, 4 x cfg.processes entries: when each process is free, and of its
                         last output job when it was submitted, how long it takes and when the
                         process was free before it (a request sent before that submission, told
                         late by a caller that steps engines side by side, goes ahead of it) */
    int64_t *out_at_ns, *out_ns, *pre_free_ns; /* into free_ns */
    int64_t n;
    /* per request (owned, `requests` entries; NULL when initialized for none): until the request
     * reaches the scheduler, when the front end is done with it; then when the engine emitted its
     * first token */
    int64_t *t_ns;
    int32_t *streamed;   /* output tokens the client has received */
    int64_t prev_ns;     /* when the last output job's chunks reached the client */
    int64_t last_ns;     /* the latest chunk any client received */
    double in_ns;        /* sum over delivered requests of (reached the scheduler - sent) */
    double first_ns;     /* sum of (client's first chunk - engine's first token) */
    double finish_ns;    /* sum of (client's last chunk - engine's last token) */
} sim_frontend;

/* One request's tokens of an iteration, as the engine emitted them. */
typedef struct sim_frontend_emit {
    int64_t id;            /* index into the requests */
    int64_t before, after; /* its output tokens before and after the iteration (after > before) */
    bool finished;         /* it is done */
    bool chunk;            /* set by sim_frontend_stream: it streams a chunk now */
} sim_frontend_emit;

/* Checks the numbers (each finite, in range; meaningful only when on). Errors name the profile
 * field or flag. */
sim_status sim_frontend_check(const sim_frontend_cfg *c, sim_err *err);

/* Allocates the run state for `requests` requests (0 for the queue alone), every process free
 * at 0. Returns false when out of memory. */
bool sim_frontend_init(sim_frontend *f, const sim_frontend_cfg *c, size_t requests);

/* Makes room for `requests` requests where it held `had` (had <= requests), the new ones not
 * yet taken in. Returns false when out of memory (what it held is kept). */
bool sim_frontend_grow(sim_frontend *f, size_t had, size_t requests);

/* Drops the first k of the `held` requests it has room for (all finished): the others move down
 * by k, the last k entries are as not yet taken in. */
void sim_frontend_drop(sim_frontend *f, size_t k, size_t held);

void sim_frontend_free(sim_frontend *f);

/* CPU time of one request job: request_ns + input_token_ns x input_tokens, rounded to ns. */
int64_t sim_frontend_request_ns(const sim_frontend_cfg *c, int64_t input_tokens);

/* CPU time of one output job: output_token_ns x tokens + chunk_ns x chunks, rounded to ns. */
int64_t sim_frontend_output_ns(const sim_frontend_cfg *c, int64_t tokens, int64_t chunks);

/* A request sent at t_ns: runs on the process that frees first (the lowest-numbered among
 * equals); returns when its job is done. Submissions come in time order, except that a request
 * sent before the last output job was submitted (an engine stepped past its arrival, cluster.h)
 * goes ahead of that job, which then finishes later than sim_frontend_output said (the one
 * approximation). */
int64_t sim_frontend_request(sim_frontend *f, const sim_frontend_cfg *c, int64_t t_ns,
                             int64_t input_tokens);

/* An iteration's output at t_ns, split over the processes; returns when its chunks reach the
 * client (t_ns when there is nothing to do). */
int64_t sim_frontend_output(sim_frontend *f, const sim_frontend_cfg *c, int64_t t_ns,
                            int64_t tokens, int64_t chunks);

/* Request `id` sent at send_ns: its job queued (sim_frontend_request), t_ns[id] its end. */
void sim_frontend_take(sim_frontend *f, const sim_frontend_cfg *c, int64_t id, int64_t send_ns,
                       int64_t input_tokens);

/* Request `id` (taken, sent at send_ns) reaches the scheduler now: its input share is summed. */
void sim_frontend_deliver(sim_frontend *f, int64_t id, int64_t send_ns);

/* An iteration ending at now_ns emitted e[0..n) (produced tokens in all): the engine's first
 * tokens are noted, the output job queued (sim_frontend_output), and each request that streams a
 * chunk (sim_frontend_streams) gets it when the job is done: seqs[id].first_token_ns,
 * last_token_ns and, when finished, finish_ns are set to that time, and the gap since its last
 * chunk goes into itl (per chunk, or spread over its tokens with per_token_itl). `steady` more
 * requests (the engine's steady decodes, not in e[], produced counts their tokens) each stream
 * one token as a chunk after one in the job before: one gap each, the jobs' (their own times are
 * the engine's to write). *client_ns gets when the chunks arrive. Returns 0 when out of memory,
 * else 1. */
int sim_frontend_stream(sim_frontend *f, const sim_frontend_cfg *c, int64_t now_ns,
                        sim_seq *seqs, sim_frontend_emit *e, size_t n, int64_t steady,
                        int64_t produced, sim_hist *itl, int64_t *client_ns);

/* Whether a request whose output went from `before` to `after` tokens in one iteration (after
 * > before), of which the client has `streamed`, streams a chunk now; `finished`: it produced
 * its last token. Without a front end, always. */
bool sim_frontend_streams(const sim_frontend_cfg *c, int64_t before, int64_t streamed,
                          int64_t after, bool finished);

#endif
