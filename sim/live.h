/* live.h - the serving simulation advancing in real time: requests submitted while it runs join
 * the engine loop of `serve` (engine.h, the same step prices) at the simulated time they come
 * in, and each request's streamed chunks are released when the wall clock reaches their
 * simulated time. The HTTP endpoint (httpd.h) is a thin layer over it.
 *
 * The clock. Simulated time runs time_scale simulated seconds per wall-clock second (1: real
 * time; 0.1: ten times slower) from sim_live_start, on CLOCK_MONOTONIC. A request submitted at
 * wall time w arrives at simulated time (w - start) x time_scale and joins the engine's next
 * iteration (one that starts at or after it). An engine iteration runs once the clock reaches its
 * start, so a request that comes in while the previous iteration is still being "computed"
 * waits for the next one, as in the engine loop. A chunk the simulation streams at simulated t
 * is released to its client once the clock reaches t, never before: a client measures at least
 * the simulated times divided by time_scale, later only by its thread's wake-up and its own
 * reading.
 *
 * The thread. sim_live_start starts one clock thread that advances the engine and releases
 * chunks; sim_live_submit, _wait, _release and _prometheus may be called from any thread. All
 * state is behind one mutex: the clock thread holds it while it advances the engine (each
 * iteration priced through the step memo, microseconds).
 *
 * Bounded memory. One engine holds max_requests requests (its per-request arrays, about 200
 * bytes a request); when it has taken that many and every one has finished and been released, it
 * is finished and a fresh one starts where the clock stands (the prefix cache starts empty
 * again). Until then a further request is refused (busy). A request released before its last
 * chunk (its client went away) is aborted in the engine as vLLM aborts it
 * (sim_engine_abort_request: out of the queue or the batch, its blocks freed), unless it is
 * still in the front end's queue.
 *
 * Example (const sim_engine_cfg *cfg, sim_err *err):
 *   sim_live *l;
 *   sim_live_cfg lc = {.time_scale = 1.0, .max_requests = 1024};
 *   if (sim_live_start(cfg, &lc, &l, err)) // cfg checked (sim_engine_check), the thread started
 *       return 1;
 *   int64_t h;
 *   bool busy;
 *   if (sim_live_submit(l, 128, 16, &h, &busy, err) == SIM_OK) {
 *       sim_live_view v = {0};
 *       while (!v.finished && !v.stopped)
 *           sim_live_wait(l, h, v.streamed, &v); // blocks until more tokens are out
 *       sim_live_release(l, h);
 *   }
 *   sim_live_stop(l);
 *   sim_live_free(l);
 */
#ifndef SIM_LIVE_H
#define SIM_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "status.h"
#include "strbuf.h"

typedef struct sim_live_cfg {
    double time_scale;   /* simulated seconds per wall-clock second, in [1e-3, 1e3] */
    size_t max_requests; /* requests one engine holds, >= 1 */
} sim_live_cfg;

typedef struct sim_live sim_live;

/* What a request's client may have now. */
typedef struct sim_live_view {
    int64_t streamed; /* output tokens released to the client */
    int64_t output;   /* tokens it generates */
    bool finished;    /* its last chunk is released */
    bool stopped;     /* the simulation stopped (shutdown or an internal error) */
    /* simulated seconds from its arrival: to its first chunk and to its last (-1 until
     * released), and the mean gap between its chunks (-1 with fewer than two) */
    double ttft_s, e2e_s, itl_mean_s;
    int64_t chunks; /* chunks released */
} sim_live_view;

/* Checks cfg (sim_engine_check with no requests) and lc, starts the engine and the clock
 * thread. cfg must outlive the sim_live. SIM_EINPUT naming the field; SIM_EINTERNAL when out of
 * memory or no thread could start. */
sim_status sim_live_start(const sim_engine_cfg *cfg, const sim_live_cfg *lc, sim_live **out,
                          sim_err *err);

/* A request of input_tokens prompt tokens generating output_tokens, arriving now: *handle names
 * it. SIM_EINPUT when it cannot be served (past the context, the KV cache, the token budget: the
 * engine's message, naming "request:N"), or when the engine holds max_requests and cannot
 * restart yet (*busy true: try later); SIM_EINTERNAL after the simulation failed. */
sim_status sim_live_submit(sim_live *l, int64_t input_tokens, int64_t output_tokens,
                           int64_t *handle, bool *busy, sim_err *err);

/* Blocks until request `handle` has more than `have` tokens released, is finished, or the
 * simulation stopped; fills *v. */
void sim_live_wait(sim_live *l, int64_t handle, int64_t have, sim_live_view *v);

/* The client is done with the request (or gone). Each handle once. */
void sim_live_release(sim_live *l, int64_t handle);

/* The engine's metrics now, in Prometheus' text format with vLLM's names (live.c cites them),
 * labelled model_name="model_name": appended to out. */
void sim_live_prometheus(sim_live *l, const char *model_name, sim_strbuf *out);

/* Whether the simulation runs (false after an internal error: the message in *err). */
bool sim_live_healthy(sim_live *l, sim_err *err);

/* Waits up to wall_s seconds of wall time for every request submitted to be released by its
 * client; true when they all were. */
bool sim_live_drain(sim_live *l, double wall_s);

/* Stops the clock thread and wakes every waiter (their views say stopped); the HTTP layer's
 * threads can then finish before sim_live_free. */
void sim_live_stop(sim_live *l);

/* Stops it (when sim_live_stop was not called) and frees everything; NULL is a no-op. */
void sim_live_free(sim_live *l);

#endif
