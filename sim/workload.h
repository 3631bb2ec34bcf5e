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

typedef struct sim_workload {
    sim_request *reqs; /* owned; sorted by arrival */
    size_t n;
    uint64_t *hash_ids; /* owned; every request's ids, one per hash block of its prompt */
    size_t n_hash_ids;
    int64_t hash_block_tokens; /* tokens per hash block (Mooncake: 512); 0 = no ids */
    char source[256]; /* "random" or the trace path, for messages */
} sim_workload;

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
} sim_synth_cfg;

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

/* Frees the requests; safe on a zeroed or already freed workload. */
void sim_workload_free(sim_workload *w);

#endif
