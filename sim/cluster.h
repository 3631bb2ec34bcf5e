/* cluster.h - deployments of several engine instances fed by one arrival stream: replicas behind
 * a router, or prefill/decode disaggregation.
 *
 * Example (const sim_engine_cfg *engine_cfg, const sim_workload *w, sim_err *err):
 *   sim_cluster_cfg c = {.engine = engine_cfg, .replicas = 4,
 *                        .router = SIM_ROUTER_LEAST_OUTSTANDING};
 *   sim_engine_result all;  // every request, in workload order: metrics.h takes it as is
 *   sim_cluster_result per; // per-replica load
 *   sim_status st = sim_cluster_check(&c, w, err); // bad input: SIM_EINPUT, exit 2
 *   if (st || (st = sim_cluster_run(&c, w, &all, &per, err)))
 *       return st;
 *   sim_engine_result_free(&all);
 *   sim_cluster_result_free(&per);
 *
 * Replicas: N independent engines (each its own scheduler and KV cache, engine_cfg's GPUs), run
 * side by side in time order with the engine's stepping API: before each arrival at t every
 * replica is advanced to t, then the router picks one and the request is appended to its stream
 * (it joins that replica's next iteration). Routers:
 *   round-robin         request i goes to replica i mod N;
 *   least-outstanding   the replica with the fewest requests given and not finished at t (lowest
 *                       index on ties): vLLM production-stack's and llm-d's load signal;
 *   prefix-aware        the replica that was sent the longest leading run of the request's block
 *                       ids (Mooncake hash_ids); with no match (or no ids), least-outstanding.
 *                       The record is the router's own: which replica was sent which block,
 *                       never evicted (the engines do not cache prefixes; a replica's real cache
 *                       would evict under pressure), so it measures where prefixes would be
 *                       reusable, as a KV-aware router's index does;
 *   kv-aware            Dynamo's KV router (docs.nvidia.com/dynamo, router design: the cost
 *                       function): each replica's cost = kv_overlap_weight x its potential
 *                       prefill blocks + its potential active blocks, the lowest cost wins
 *                       (lowest index on ties, temperature 0). Prefill blocks: (input - the
 *                       tokens of the leading hash blocks its HBM prefix cache holds) / block
 *                       size; active blocks: the router's own count (Dynamo's: from routing to
 *                       completion) of the blocks of every request it gave the replica and that
 *                       is not finished, ceil((prompt + generated) / block size) each, plus the
 *                       request's ceil(input / block size). The prefix caches are read as of the
 *                       replicas' last iteration before the arrival (KV events without lag),
 *                       or before the router's last refresh (below).
 * A stale view (refresh_ns > 0): the router reads the replicas' state as it was at its last
 * refresh, floor(t / refresh_ns) x refresh_ns, as the Gateway API inference extension's endpoint
 * picker (llm-d's scheduler) scrapes each engine's metrics every 50 ms (its
 * DefaultRefreshMetricsInterval) and a KV router applies events published with a lag. The
 * replicas are advanced only to the refresh before an arrival, so what the routers read is the
 * state of that instant: least-outstanding (and prefix-aware's fallback) the requests each
 * replica held then (those sent since are not counted: the scraped queue has not seen them, so
 * every arrival between two refreshes goes to the same replica); kv-aware the prefix caches then
 * and, among the requests it gave, those finished by then (its own count of what it sent stays
 * current). Round-robin reads nothing; the results are the live router's. Not with sessions.
 * Sessions (a workload with links, workload.h): a later turn is released when its previous turn's
 * last chunk reached the client, think_ns later, and routed then (with session_affinity to the
 * replica of its previous turn, as llm-d's session-affinity scorer does; else by the router).
 * The replicas advance in steps no longer than the shortest think time, at least 1 ms, so a turn
 * whose think time is under 1 ms may be sent up to 1 ms late.
 * The merged result: each request's timeline; the inter-token gaps of all replicas; duration the
 * last replica's end; iterations, scheduled sequences, preemptions, busy time summed; KV blocks and
 * each replica's peak summed (kv_cache_peak_usage is then the mean replica's); peak concurrency and
 * the busiest second of output over the whole deployment, exact.
 * The client's cap across replicas (engine->max_concurrency > 0: --max-concurrency with
 * --replicas, as vllm bench serve's and inference-perf's clients hold it over the whole
 * deployment behind one address): at most that many requests between their send and their last
 * chunk at the client; a request that arrives with all of them in flight is sent when the
 * earliest of them finishes (its send, and its latencies' start, that finish), then routed. The
 * replicas are run one event at a time in time order up to each send (cluster_client.c), so
 * every iteration that starts before it has run, none after: the request joins its replica's
 * next iteration, as an arrival does without a cap. The replicas' own caps are off. Not with
 * sessions, a stale view or autoscaling. A timeline watches through a sim_cluster_observer (the
 * engines' own observers stay NULL).
 *
 * Disaggregation (prefill and decode pools of engines, the KV sent between them): disagg.h.
 * The deployment a serving run asks for, chosen and run in one call: deploy.h.
 */
#ifndef SIM_CLUSTER_H
#define SIM_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

#define SIM_CLUSTER_MAX_REPLICAS 4096

typedef enum sim_router {
    SIM_ROUTER_ROUND_ROBIN,
    SIM_ROUTER_LEAST_OUTSTANDING,
    SIM_ROUTER_PREFIX_AWARE,
    SIM_ROUTER_KV_AWARE,
    SIM_ROUTER_COUNT
} sim_router;

/* "round-robin" -> SIM_ROUTER_ROUND_ROBIN, ...; false for an unknown name. */
bool sim_router_parse(const char *s, sim_router *out);
const char *sim_router_name(sim_router r);

/* Autoscaling (autoscale.max > 0): a pool of `max` replicas of which the autoscaler holds
 * between min and max, as the Kubernetes HorizontalPodAutoscaler's algorithm runs (kubernetes.io,
 * "Horizontal Pod Autoscaling": the algorithm details and the default behavior). Every
 * interval_ns (HPA's 15 s sync period) it reads the metric of the replicas that are ready:
 *   queue  requests given and not finished (running + waiting; Knative's concurrency)
 *   kv     the KV cache's usage: blocks held by requests over the blocks (vllm:kv_cache_usage_perc)
 *   rate   requests routed since the last evaluation, per second (Knative's RPS)
 * and, with `current` the replicas held ready or starting (a starting one reports 0, as HPA
 * counts a pod not yet ready on a scale-up),
 *   desired = current                  when |sum / (current x target) - 1| <= tolerance (0.1)
 *           = ceil(sum / target)       otherwise,
 * within [min, max] and at most max(2 x current, current + 4) (HPA's default scale-up policies:
 * 100 % or 4 pods per 15 s, the larger); a scale-down takes the highest desired count of the
 * evaluations within down_window_ns (HPA's 300 s stabilization window). A replica added at t
 * (the lowest-index one off) takes requests from t + start_ns (provisioning + weight load: the
 * command line prices the load, cli_point.c); one removed is the highest-index ready one (a
 * starting one is cancelled first): it takes no more requests and is released when its last one
 * finishes (a draining replica still counts against max). The router picks among the ready
 * replicas only. Held time (from the decision to add to the release, or to the run's end) is
 * summed per replica: GPU-hours = held_ns x the replica's GPUs / 3.6e12. Not with sessions. */
typedef enum sim_scale_metric {
    SIM_SCALE_QUEUE,
    SIM_SCALE_KV,
    SIM_SCALE_RATE,
    SIM_SCALE_COUNT
} sim_scale_metric;

bool sim_scale_metric_parse(const char *s, sim_scale_metric *out);
const char *sim_scale_metric_name(sim_scale_metric m);

typedef struct sim_autoscale {
    int min, max; /* 1 <= min <= max <= SIM_CLUSTER_MAX_REPLICAS; max 0: off */
    sim_scale_metric metric;
    double target;      /* per replica: requests, a usage fraction (0, 1], requests/s */
    double tolerance;   /* HPA's 0.1 */
    int64_t interval_ns, start_ns, down_window_ns;
} sim_autoscale;

/* HPA's count (above) for `current` replicas whose metric adds up to `sum`, before the
 * stabilization window: 2 replicas with 60 requests in flight and a target of 10 want
 * ceil(60 / 10) = 6, within max(2 x 2, 2 + 4) = 6.
 * Example:
 *   sim_autoscale a = {.min = 1, .max = 8, .target = 10.0, .tolerance = 0.1};
 *   int n = sim_autoscale_desired(&a, 2, 60.0); // 6
 */
int sim_autoscale_desired(const sim_autoscale *a, int current, double sum);

/* One evaluation of the autoscaler: at t, the replicas ready, held (ready, starting, draining)
 * and the count it decided on, and the metric's sum over the ready ones. */
typedef struct sim_scale_point {
    int64_t t_ns;
    int ready, held, desired;
    double metric;
} sim_scale_point;

/* Watches every instance of a deployment (all callbacks optional): `instance` indexes the
 * result's load (prefill instances first), request ids are the workload's. A timeline writer is
 * one such observer. Each instance's events come in time order; the instances' events
 * interleave in the order they are simulated, not in global time order. */
typedef struct sim_cluster_observer {
    void *ctx;
    void (*iteration)(void *ctx, int instance, const sim_iter_info *it);
    void (*request)(void *ctx, int instance, int64_t id, sim_request_event ev, int64_t t_ns);
    /* disaggregation: request id's KV goes from prefill instance `from` to decode instance `to` */
    void (*kv_transfer)(void *ctx, int64_t id, int from, int to, int64_t start_ns, int64_t end_ns);
    /* a lower KV tier's load or store on `instance` (engine.h's observer) */
    void (*tier)(void *ctx, int instance, const sim_tier_move *m);
} sim_cluster_observer;

typedef struct sim_cluster_cfg {
    const sim_engine_cfg *engine; /* every replica's configuration (its observer NULL) */
    int replicas;                 /* >= 1 */
    sim_router router;
    double kv_overlap_weight; /* kv-aware: Dynamo's --kv-overlap-score-weight (its default 1) */
    bool session_affinity;    /* a session's later turn goes where its previous turn ran */
    int64_t refresh_ns;       /* the router's view refreshed every refresh_ns; 0: live */
    sim_autoscale autoscale;  /* .max 0: a fixed pool of `replicas` (else replicas = max) */
    /* mixed hardware: replica r runs per_replica[r] (the same model and engine on its own
     * device; every one's block size engine's), [replicas]; NULL: every replica runs `engine` */
    const sim_engine_cfg *per_replica;
    const sim_cluster_observer *observer; /* NULL: nobody watches */
} sim_cluster_cfg;

/* What one replica did. */
typedef struct sim_replica_load {
    int64_t requests, input_tokens, output_tokens;
    double busy_ns; /* time in iterations */
    int64_t iterations, scheduled_seqs, preemptions, kv_blocks, kv_peak_blocks;
    int64_t prefix_blocks; /* blocks of its requests' ids already sent to it (prefix-aware) */
    char hw[96];           /* its device's display name */
} sim_replica_load;

typedef struct sim_cluster_result {
    int replicas; /* engines: replicas, or prefill + decode instances */
    sim_router router;
    sim_replica_load *load; /* [replicas], owned; with disaggregation the prefill instances first */
    int64_t blocks;         /* block ids of all requests */
    int64_t prefix_blocks;  /* of which the chosen replica had been sent before */
    /* disaggregation (prefill 0 otherwise) */
    int prefill, decode;      /* instances */
    bool kv_scaleout;         /* the KV went over the scale-out NIC (else the scale-up link) */
    char prefill_hw[96];      /* the prefill instances' device (its display name) */
    double kv_transfer_ns;    /* sum over requests of the transfer time TTFT waits for */
    double kv_transfer_bytes; /* sum over requests of the bytes each GPU sent */
    bool mixed; /* the replicas ran on different devices (per_replica) */
    /* autoscaling (autoscaled false otherwise) */
    bool autoscaled;
    int scale_min;                  /* its MIN (MAX is replicas) */
    sim_scale_metric scale_metric;
    int64_t scale_start_ns;         /* from adding a replica to its first request */
    double held_ns;             /* replica time held, summed over the replicas */
    int peak_held;              /* most replicas held at once */
    int64_t scale_ups, scale_downs; /* replicas added, removed */
    sim_scale_point *timeline;  /* [n_timeline], owned: each evaluation */
    size_t n_timeline;
} sim_cluster_result;

/* The engine configuration against the workload (as sim_engine_check), the replica count, and
 * the combinations not modelled. */
sim_status sim_cluster_check(const sim_cluster_cfg *cfg, const sim_workload *w, sim_err *err);

/* Simulates the deployment. cfg must have passed sim_cluster_check with w. */
sim_status sim_cluster_run(const sim_cluster_cfg *cfg, const sim_workload *w,
                           sim_engine_result *all, sim_cluster_result *out, sim_err *err);

void sim_cluster_result_free(sim_cluster_result *r);

#endif
