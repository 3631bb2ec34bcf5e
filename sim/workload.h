/* workload.h - request streams: synthetic (vLLM's random dataset and arrival process) or replayed
 * from a trace file. Knows nothing of models, hardware or scheduling.
 *
 * Example (sim_err *err):
 *   sim_synth_cfg s = {.num_prompts = 1000, .input_len = 512, .output_len = 256,
 *                      .request_rate = 4.0, .burstiness = 1.0, .seed = 0};
 *   sim_workload w;
 *   sim_status st = sim_workload_synthetic(&s, &w, err);
 *   if (st)
 *       return st;
 *   ... w.reqs[i].arrival_ns: when request i is sent ...
 *   sim_workload_free(&w);
 *
 * Synthetic lengths are uniform integers in [floor(L x (1 - R)), ceil(L x (1 + R))] (at least 1),
 * R = --random-range-ratio. Arrivals: all at t = 0 when the rate is infinite; otherwise gaps drawn
 * from a gamma distribution of shape B (--burstiness; 1 = Poisson) and mean 1/rate, rescaled so
 * that the N gaps add up to exactly N / rate (as vLLM does); the first request arrives at 0.
 *
 * Trace formats, detected from the first line:
 *   - Azure LLM inference CSV: a header with TIMESTAMP, ContextTokens, GeneratedTokens (other
 *     columns ignored); TIMESTAMP is a date-time "2023-11-16 18:17:03.9799600";
 *   - Mooncake JSONL: one object per line with timestamp (ms), input_length, output_length and
 *     optionally hash_ids (one id per 512-token block of the prompt, naming the prefix up to the
 *     block's end: the prefix cache's sharing);
 *   - plain CSV: the header arrival_s,input_tokens,output_tokens.
 * The plain CSV's optional session_id column and Mooncake's optional session_id field (any text
 * or number; empty: none) make sessions of the requests that share one
 * (sim_workload_link_sessions).
 * Arrivals are taken relative to the earliest one, multiplied by the time scale (0.5 replays a
 * trace twice as fast) and sorted (stably). A malformed row is an error naming file and line, and
 * so is an arrival whose scaled offset from the earliest exceeds SIM_ARRIVAL_MAX_S.
 */
#ifndef SIM_WORKLOAD_H
#define SIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataset.h"
#include "status.h"

/* One request of the workload, as the client sends it (its run state in the engine is a sim_seq,
 * sched.h). */
typedef struct sim_request {
    int64_t arrival_ns;    /* when the client would send it (before any concurrency cap) */
    int64_t input_tokens;  /* prompt length, >= 1 */
    int64_t output_tokens; /* tokens to generate, >= 1 */
    int64_t line;          /* line of the trace file it came from; 0 for synthetic requests */
    size_t hash_off;       /* its prompt's prefix-cache ids: hash_ids[hash_off .. + n_hash) */
    int64_t n_hash;        /* 0: shares nothing */
    int64_t kv_ready;      /* prompt tokens whose KV comes with it (a disaggregated decode
                            * instance's requests: the prefill instance sent it); 0 otherwise */
    int64_t images;        /* images it carries (a multimodal model's vision encoder runs them;
                            * their placeholder tokens come on top of input_tokens: the engine's
                            * sim_engine_prompt_tokens); 0: text only */
} sim_request;

/* A request's place in a multi-turn session (sim_workload.links, sessions only). */
typedef struct sim_session_link {
    int64_t session;  /* session number, from 1 */
    int64_t turn;     /* turn within it, from 0 */
    int64_t follow;   /* index of the session's next turn; 0: none (a first turn is never one) */
    int64_t think_ns; /* from this turn's last token at the client to the next turn's send */
    bool follows;     /* a later turn: sent think_ns after the previous one's last token */
} sim_session_link;

/* A session's turn released to be sent at t_ns: request `id`, whose previous turn ran on replica
 * `prev` (-1: none, or the caller does not track it). The engine and the cluster keep min-heaps
 * of them by (t_ns, id), with sim_workload_turn_push / _pop on an array of room for every
 * request; n is the heap's size. Example:
 *     sim_session_turn h[2];
 *     size_t n = 0;
 *     sim_workload_turn_push(h, &n, (sim_session_turn){.t_ns = 5, .id = 1, .prev = -1});
 *     sim_workload_turn_push(h, &n, (sim_session_turn){.t_ns = 3, .id = 0, .prev = -1});
 *     sim_session_turn first = sim_workload_turn_pop(h, &n); // t_ns 3, id 0; n is 1
 */
typedef struct sim_session_turn {
    int64_t t_ns;
    int64_t id;
    int prev;
} sim_session_turn;

void sim_workload_turn_push(sim_session_turn *h, size_t *n, sim_session_turn x);
sim_session_turn sim_workload_turn_pop(sim_session_turn *h, size_t *n); /* n > 0 */

typedef struct sim_workload {
    sim_request *reqs; /* owned; sorted by arrival (a session's later turns: see links) */
    size_t n;
    uint64_t *hash_ids; /* owned; every request's ids, one per hash block of its prompt */
    size_t n_hash_ids;
    int64_t hash_block_tokens; /* tokens per hash block (Mooncake: 512); 0 = no ids */
    /* multi-turn sessions (sim_workload_sessions): per request its link, owned; NULL for
     * single requests. A later turn's arrival_ns is its session's start (a lower bound): the
     * engine sends it think_ns after the previous turn's last token reached the client. */
    sim_session_link *links;
    int64_t sessions;
    /* the ids name the blocks of the prompt AND the output (a session's context grows by both):
     * the engine caches output blocks as they are decoded */
    bool hash_covers_output;
    char source[256]; /* "random" or the trace path, for messages */
} sim_workload;

/* When turn `id` (finished at finish_ns, its session's next turn w->links[id].follow) releases
 * that next turn: think_ns after its last token, not before the next turn's own arrival (a
 * trace's recorded time; a synthetic one's session start) nor before not_before_ns (where the
 * caller's clock stands). */
int64_t sim_workload_turn_release(const sim_workload *w, size_t id, int64_t finish_ns,
                                  int64_t not_before_ns);

/* Arrival rates that vary over time (--rate-schedule T:RATE,T:RATE,...): from start_s[k] on,
 * rate_per_s[k] requests/s (piecewise constant; start_s[0] is 0, the starts increasing, every
 * rate > 0, the last one holding to the end). Arrivals come from the gamma gaps of a unit rate
 * (rescaled to add up to N, as a fixed rate's are) mapped through the inverse of the cumulative
 * rate, R(t) = the integral of the rate up to t: an arrival at unit time u is sent at R^-1(u),
 * so a Poisson process of the schedule's rate (time rescaling), and a fixed rate's stream when
 * the schedule has one segment.
 * Example (sim_err *err):
 *   sim_rate_schedule r;
 *   if (sim_workload_schedule_parse("0:10,60:40", &r, err)) // 10/s, then 40/s from 60 s on
 *       return SIM_EINPUT;
 *   double t = sim_workload_schedule_time(&r, 1200.0); // 600 in the first 60 s: 60 + 600/40 = 75
 */
#define SIM_RATE_SCHEDULE_MAX 256
typedef struct sim_rate_schedule {
    int n; /* segments, 1..SIM_RATE_SCHEDULE_MAX */
    double start_s[SIM_RATE_SCHEDULE_MAX], rate_per_s[SIM_RATE_SCHEDULE_MAX];
} sim_rate_schedule;

/* Parses "T:RATE,T:RATE,..." (seconds and requests/s, decimal; the first T 0, the Ts increasing,
 * each at most SIM_ARRIVAL_MAX_S, each RATE in (0, 1e9]). Errors name --rate-schedule. */
sim_status sim_workload_schedule_parse(const char *s, sim_rate_schedule *out, sim_err *err);

/* R^-1(u): the time (s) by which the schedule has offered u requests (u >= 0). */
double sim_workload_schedule_time(const sim_rate_schedule *r, double u);

typedef struct sim_synth_cfg {
    int64_t num_prompts; /* N >= 1 */
    int64_t input_len;   /* mean prompt length */
    int64_t output_len;  /* mean output length */
    double range_ratio;  /* [0, 1): 0 = fixed lengths */
    /* SGLang's random lengths instead (range_floor_on): uniform in [max(1, floor(L R)), L] for
     * R = range_floor in [0, 1] (sglang/bench_serving.py sample_random_requests; range_ratio
     * must then be 0) */
    bool range_floor_on;
    double range_floor;
    double request_rate; /* requests/s; INFINITY = all at t = 0 */
    double burstiness;   /* gamma shape > 0; 1 = Poisson */
    uint64_t seed;
    /* vLLM's prefix_repetition dataset (num_prefixes > 0): every prompt is one of num_prefixes
     * shared prefixes of prefix_len tokens plus its own suffix_len tokens, each prefix used by
     * N / num_prefixes requests (the remainder by the first ones), in a shuffled order; outputs
     * are output_len (input_len and range_ratio are not used). Ids name its hash blocks of
     * hash_block_tokens tokens: shared while a block lies wholly inside the prefix. */
    int64_t num_prefixes, prefix_len, suffix_len, hash_block_tokens;
    int64_t images_per_request; /* images each request carries (--random-images-per-request) */
    /* Exact lengths to replay (a vLLM --save-detailed result's input_lens and output_lens):
     * request i gets input_lens[i] and output_lens[i], each >= 1 (NULL: drawn as above). */
    const int64_t *input_lens, *output_lens;
    /* A public dataset's lengths (dataset.h, --dataset-name sharegpt, ...): each request's prompt
     * and output drawn from these fits instead of the uniform range (NULL: the range). */
    const sim_length_dist *input_dist, *output_dist;
    /* Rates over time instead of request_rate (NULL: request_rate; burstiness still applies) */
    const sim_rate_schedule *schedule;
} sim_synth_cfg;

/* A think (or tool) time distribution: a fixed number of seconds, an exponential of that mean,
 * or uniform in [a_s, b_s]. */
typedef enum sim_think_kind { SIM_THINK_FIXED, SIM_THINK_EXP, SIM_THINK_UNIFORM } sim_think_kind;
typedef struct sim_think {
    sim_think_kind kind;
    double a_s, b_s; /* FIXED, EXP: a_s; UNIFORM: a_s <= b_s */
} sim_think;

/* Multi-turn sessions (vLLM's benchmarks/multi_turn, agent loops): `sessions` sessions start at
 * request_rate (the arrival process of sim_synth_cfg: gamma gaps of shape burstiness, rescaled to
 * sessions / rate); each has `turns` turns. Turn 0's prompt is `input_len` new tokens (uniform in
 * the range of range_ratio, as sim_synth_cfg draws them); turn t's is turn t - 1's prompt plus
 * its output plus new tokens drawn the same way; each output is drawn from output_len. Request
 * s x turns + t is session s's turn t. Hash ids name hash_block_tokens-token blocks of each
 * session's token stream (prompt and output: the next turn shares both), (s + 1) << 32 | k,
 * held once per session (every turn's ids lead its last turn's). A context past 2^26 tokens
 * (the longest any model takes) is an error.
 * Think times are drawn per turn (the last turn's is not used).
 * Example (sim_err *err):
 *   sim_session_cfg c = {.sessions = 100, .turns = 4, .input_len = 256, .output_len = 128,
 *                        .request_rate = 2.0, .burstiness = 1.0,
 *                        .think = {SIM_THINK_EXP, 5.0, 0.0}, .hash_block_tokens = 16};
 *   sim_workload w;
 *   if (sim_workload_sessions(&c, &w, err))
 *       return SIM_EINPUT;
 *   ... w.reqs[4 * s + t]: session s's turn t ...
 *   sim_workload_free(&w);
 */
typedef struct sim_session_cfg {
    int64_t sessions, turns; /* >= 1 each */
    int64_t input_len, output_len;
    double range_ratio, request_rate, burstiness;
    uint64_t seed;
    sim_think think;
    int64_t hash_block_tokens; /* >= 1 */
} sim_session_cfg;

sim_status sim_workload_sessions(const sim_session_cfg *c, sim_workload *out, sim_err *err);

/* A trace's sessions (its session_id column or field): the requests of w with the same nonzero
 * key[i] (for w->reqs[i], in w's order: by arrival) are one session's turns, numbered from 1 in
 * the order their first turns arrive; a request whose key is 0 is a session of its own. A later
 * turn is sent at the later of its own arrival and its previous turn's last token (think 0: a
 * recorded conversation's next message cannot precede the answer it follows). Sets w->links and
 * w->sessions. Example (sim_workload *w, sim_err *err):
 *   uint64_t key[3] = {7, 0, 7}; // requests 0 and 2: one session; request 1 alone
 *   if (w->n == 3 && sim_workload_link_sessions(w, key, err))
 *       return SIM_EINTERNAL;
 *   ... w->links[0].follow == 2, w->links[2].follows, w->sessions == 2 ...
 */
sim_status sim_workload_link_sessions(sim_workload *w, const uint64_t *key, sim_err *err);

/* Parses "S", "exp:MEAN" or "uniform:LO:HI" (seconds, each finite, >= 0, LO <= HI, at most
 * 1e6). Errors name --think-time-s. */
sim_status sim_workload_think_parse(const char *s, sim_think *t, sim_err *err);

/* The latest an arrival may come after the earliest (a trace's after --time-scale, a synthetic
 * stream's N / rate): 1e9 s (about 32 years) keeps arrival_ns far inside int64_t (9.2e9 s). */
#define SIM_ARRIVAL_MAX_S 1e9

/* The most requests one workload holds: a serving run keeps every request's state (its request,
 * its sequence, its timeline: about 160 bytes), so 2^25 = 33,554,432 requests take about 5 GB.
 * More (--num-prompts, or a trace's lines without --num-prompts) is exit 2 naming the count and
 * the cap, never an out-of-memory failure halfway. */
#define SIM_WORKLOAD_MAX_REQUESTS ((int64_t)1 << 25)

/* Generates a synthetic stream. Errors name the flag; N / rate above SIM_ARRIVAL_MAX_S is one. */
sim_status sim_workload_synthetic(const sim_synth_cfg *cfg, sim_workload *out, sim_err *err);

/* Reads a trace. time_scale > 0 multiplies arrival offsets; limit > 0 keeps only the first
 * `limit` requests (in file order). Errors name the file and line. */
sim_status sim_workload_load_trace(const char *path, double time_scale, int64_t limit,
                                   sim_workload *out, sim_err *err);

/* A production trace at another rate (workload_rate.c; --dataset-name azure-conv-2023 ...): a
 * copy of src's requests and hash ids whose arrivals keep src's gaps, all scaled by one factor so
 * that the mean gap is 1 / rate: request i is sent at (t_i - t_0) (n - 1) / (rate (t_last - t_0)),
 * the last at (n - 1) / rate. Rate INFINITY, one request, or a trace whose requests all arrive
 * at once: every request at 0. src must have no sessions. SIM_EINPUT when (n - 1) / rate is past
 * SIM_ARRIVAL_MAX_S.
 * Example: arrivals 0, 1 and 3 s at 2 req/s: span (3 - 1) / 2 = 1 s, each time x 1/3: 0, 0.333,
 * 1 s (the shape kept: the second gap still twice the first). */
sim_status sim_workload_at_rate(const sim_workload *src, double rate, sim_workload *dst,
                                sim_err *err);

/* What a trace's requests are (workload_rate.c): per side the mean, median and p90 (nearest rank:
 * the ceil(q n)-th smallest) with the log-normal of that median and p90 (sim_dataset_fit, or of
 * median and mean when p90 equals the median; clipped to the side's smallest and largest), the
 * mean rate (n - 1 over the span; 0: all at once) and the gaps' coefficient of variation
 * (population standard deviation over mean; 1 for a Poisson stream). SIM_EINPUT when it has fewer
 * than 2 requests or a side that no log-normal fits (every length equal). */
typedef struct sim_workload_stats {
    sim_length_dist in, out;
    double rate_per_s, gap_cv;
    int64_t n;
    double span_s;
} sim_workload_stats;

sim_status sim_workload_stats_of(const sim_workload *w, sim_workload_stats *st, sim_err *err);

/* Frees the requests; safe on a zeroed or already freed workload. */
void sim_workload_free(sim_workload *w);

#endif
