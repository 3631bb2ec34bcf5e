/* workload_internal.h - what the workload's files share (private to the module): workload.c with
 * workload_jsonl.c, the synthetic streams with the sessions. */
#ifndef SIM_WORKLOAD_INTERNAL_H
#define SIM_WORKLOAD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* A Mooncake row's fields as its text gives them (has_*: the key is there). */
typedef struct sim_workload_jsonl_row {
    double timestamp, input_length, output_length, images;
    bool has_ts, has_in, has_out, has_images;
    bool has_hash;  /* hash_ids is an array (not absent, not null) */
    size_t n_hash;  /* its ids, appended to the caller's buffer */
} sim_workload_jsonl_row;

/* Reads one trimmed line holding a flat object of the row's keys (timestamp, input_length,
 * output_length, images: JSON numbers; hash_ids: an array of whole numbers >= 0 up to 2^53, or
 * null), each at most once, in one pass without a tree, appending hash_ids' ids to ids (n_ids,
 * cap: its count and room; grown with realloc). False for anything else: another key, a key
 * twice, an escape, another value, malformed JSON, out of memory; the caller then drops what
 * was appended and reads the line with cJSON, which words the error. */
bool sim_workload_jsonl_scan(const char *line, sim_workload_jsonl_row *row, uint64_t **ids,
                             size_t *n_ids, size_t *cap);

/* vLLM's random lengths as given: input and output >= 1 tokens, --random-range-ratio in [0, 1);
 * SIM_EINPUT naming the flags otherwise (workload_synth.c; the sessions' turns check the same). */
sim_status sim_workload_check_lengths(int64_t input_len, int64_t output_len, double range_ratio,
                                      sim_err *err);

#endif
