/* live_internal.h - the live simulation's state, shared by live.c (the clock and the engine) and
 * live_prom.c (the metrics it keeps and writes). Private to sim/live*.c. */
#ifndef SIM_LIVE_INTERNAL_H
#define SIM_LIVE_INTERNAL_H

#include <pthread.h>

#include "live.h"

/* An event of the engine, released when the clock reaches t_ns (simulated, from the start):
 * a request event (sim_request_event), a chunk (n: tokens the client then holds) or an
 * iteration's start (kv: the KV cache's usage) or an abort (n: the sim_seq_phase it left). */
enum { LIVE_EV_CHUNK = 100, LIVE_EV_ITERATION = 101, LIVE_EV_ABORT = 102 };
typedef struct live_event {
    int64_t t_ns;
    uint64_t seq; /* the order the engine told them: ties keep it */
    int kind;
    int64_t id, n;
    double kv;
} live_event;

/* One request, as its client sees it (times simulated, from the start). */
typedef struct live_req {
    int64_t arrival_ns, input, output, streamed, chunks;
    int64_t first_ns, last_ns;
    double ttft_s, e2e_s;
    bool finished, released;
} live_req;

/* A Prometheus histogram over fixed upper bounds (le, ascending; +Inf implied). */
#define LIVE_HIST_MAX 24
typedef struct live_hist {
    const double *le;
    size_t n;
    int64_t count[LIVE_HIST_MAX]; /* per bound, not cumulative; [n]: above the last */
    double sum;
    int64_t total;
} live_hist;

typedef struct live_prom {
    int64_t running, waiting; /* the scheduler's, as the clock stands */
    double kv_usage;          /* as of the last iteration started */
    int64_t preemptions, prompt_tokens, generation_tokens, success, aborted, iterations;
    live_hist ttft, itl, e2e;
} live_prom;

struct sim_live {
    sim_live_cfg cfg;
    sim_engine_cfg ecfg; /* the caller's, observed by this sim_live */
    const sim_engine_cfg *ecfg_ptr;
    sim_engine_observer obs;
    pthread_t thread;
    bool joined;
    pthread_mutex_t mu;
    pthread_cond_t in_cv;  /* to the clock thread: a request, a release, stop */
    pthread_cond_t out_cv; /* to the clients: chunks released, stop */
    bool stop, kick, failed, oom;
    sim_err fail_err;
    int64_t wall0_ns;
    /* the engine now: its workload (room for max_requests), per request the client's view */
    sim_engine *e;
    sim_engine_result res;
    sim_workload w;
    live_req *reqs;
    uint64_t gen;          /* engines started so far (a handle's high 32 bits) */
    int64_t gen_off_ns;    /* when this one started, on the simulated clock */
    int64_t last_until_ns; /* what it was last advanced to (its own time) */
    size_t released;
    live_event *ev;
    size_t n_ev, cap_ev;
    uint64_t ev_seq;
    live_prom prom;
};

/* The metrics (live_prom.c): zeroed with their bounds; then each event's share. */
void live_prom_init(live_prom *p);
void live_prom_iteration(live_prom *p, double kv_usage);
void live_prom_request(live_prom *p, sim_request_event ev);
void live_prom_tokens(live_prom *p, int64_t tokens);
void live_prom_ttft(live_prom *p, double s, int64_t prompt_tokens);
void live_prom_gap(live_prom *p, double s);
void live_prom_finished(live_prom *p, double e2e_s);
void live_prom_abort(live_prom *p, sim_seq_phase was);
void live_prom_write(const live_prom *p, const char *model_name, sim_strbuf *out);

#endif
