/* cli_rate.h - the highest request rate whose serving run meets an SLO (private to sim/cli*.c):
 * the search `capacity` reports and `plan` sizes its replica counts with.
 *
 * Every probe is one serve run (cli_point_serve) of the SAME workload: the same seed draws the
 * same prompts and lengths first and then the same gamma variates for the arrival gaps, whose
 * scale is 1 / rate (workload.c), so a probe at rate r has the arrivals of a probe at rate r0
 * times r0 / r (common random numbers; the search compares rates, not draws).
 *
 * The search: a probe with every request at t = 0 (rate inf) first: if it meets the SLO, every
 * rate does. Else its request throughput X (the deployment's saturated rate) is the first finite
 * probe; from there the rate doubles while met (or halves while missed) until one probe meets and
 * one misses, then bisection until the missed rate is within --rate-tolerance of the met one:
 * hi <= lo (1 + tol). The result is lo, a rate that was run and met.
 *
 * A criterion: --slo ttft:MS,tpot:MS,e2el:MS holds when each named metric's --slo-percentile
 * over the run's requests is at most MS; --goodput (vLLM's form) holds when at least
 * --slo-percentile % of the requests meet every SLO (request_goodput / request_throughput); and
 * the deployment keeps up: its queueing delay does not grow over the run.
 *
 * Example (const cli_opts *o, const cli_load_cache *cache, sim_err *err):
 *   cli_rate_search c;
 *   cli_rate_run r = {{NULL, NULL}, {NULL, NULL}};
 *   sim_status st = cli_rate_init(o, &c, err); // o names --slo (or --goodput)
 *   if (!st)
 *       st = cli_rate_run_alloc(&r, err);
 *   if (!st)
 *       st = cli_rate_search_max(o, cache, &c, &r, err);
 *   // c.best >= 0: met up to c.lo req/s (INFINITY: at every rate); r.s[0] is that run
 *   cli_rate_run_free(&r);
 *   return st;
 */
#ifndef SIM_CLI_RATE_H
#define SIM_CLI_RATE_H

#include <stdbool.h>

#include "cli_point.h"

/* A run reaches its steady state when its arrivals span several request lifetimes: with fewer,
 * its latencies are those of the ramp-up (a batch that never fills), and the rate found is the
 * burst's, not the deployment's (measured: 8B on an H100, p90 TPOT <= 50 ms, 500 requests give
 * 25.8 req/s on one replica and 90.9 on two; 2,000 give 21.8 and 44.4, 4,000 21.0 and 42.3). */
#define CLI_RATE_STEADY_LIFETIMES 5.0
/* The rate halving goes down to: arrivals 20 request lifetimes apart, each request alone. */
#define CLI_RATE_ALONE_GAPS 20.0

enum {
    CLI_RATE_MAX_PROBES = 96,
    CLI_RATE_MAX_STEPS = 40 /* doublings or halvings of the bracket: 2^40 either side of X */
};

typedef struct cli_rate_probe {
    double rate;                  /* req/s; INFINITY: every request at t = 0 */
    bool met;                     /* the SLO holds and the deployment keeps up */
    bool keeps_up;                /* the queueing delay does not grow over the run (queue_grows) */
    double value_ms[SIM_M_COUNT]; /* each SLO metric at the percentile; 0 where none is set */
    double attainment;            /* share of requests meeting every SLO */
    double mean_e2el_ms;
    double request_throughput;
} cli_rate_probe;

typedef struct cli_rate_search {
    sim_slo slo;
    bool goodput; /* vLLM's --goodput form: attainment >= percentile / 100 */
    double pct;   /* --slo-percentile */
    double tol;   /* --rate-tolerance */
    cli_rate_probe probes[CLI_RATE_MAX_PROBES];
    int n;
    double lo, hi;   /* met at lo (0: none met), missed at hi (0: none missed) */
    int best;        /* the probe at lo, or -1 */
    bool converged;  /* hi <= lo (1 + tol), or every rate met */
    double min_rate; /* the lowest rate the halving went down to */
} cli_rate_search;

typedef struct cli_rate_run {
    cli_load_result *L[2];
    cli_point_serve_state *s[2]; /* [0]: the best met probe's run, [1]: scratch */
} cli_rate_run;

/* The search's settings from the flags: --slo (or --goodput), --slo-percentile,
 * --rate-tolerance; SIM_EINPUT for an SLO that does not parse, naming the flag. */
sim_status cli_rate_init(const cli_opts *o, cli_rate_search *c, sim_err *err);

/* The two runs a search keeps (the best met probe's and a scratch one). */
sim_status cli_rate_run_alloc(cli_rate_run *r, sim_err *err);
void cli_rate_run_free(cli_rate_run *r);

/* One serve run of o at `rate` into s (the caller frees it with cli_point_serve_free), judged
 * against c's SLO and appended to c's probes (c->probes[c->n - 1]). */
sim_status cli_rate_probe_at(const cli_opts *o, const cli_load_cache *cache, double rate,
                             cli_rate_search *c, cli_load_result *L, cli_point_serve_state *s,
                             sim_err *err);

/* The search above, from c as cli_rate_init left it; r->s[0] and r->L[0] hold the run at c->lo
 * when c->best >= 0. */
sim_status cli_rate_search_max(const cli_opts *o, const cli_load_cache *cache, cli_rate_search *c,
                               cli_rate_run *r, sim_err *err);

#endif
