/* lenfile.h - request lengths read from a JSON-lines dataset file (trtllm-bench's --dataset) or
 * a BurstGPT trace (vllm bench serve --dataset-name burstgpt --dataset-path FILE.csv).
 *
 * One JSON object a line, as TensorRT-LLM's prepare_dataset.py and `trtllm-bench prepare-dataset`
 * write them (tensorrt_llm/bench/utils/data.py, create_dataset_from_stream: "input_ids", a list of
 * token ids, and "output_tokens", the tokens to generate; "task_id" and the rest are not read).
 * A line may give the prompt's length as a number instead of its ids: "input_len" (or
 * "prompt_len"), and "output_len" for "output_tokens". This is also how vLLM's custom dataset
 * (vllm bench serve --dataset-name custom: one {"prompt": TEXT} a line) is read once its lines
 * carry their lengths. A prompt given only as text ("prompt") needs a tokenizer to count it and
 * is refused, naming the line. Blank lines are skipped.
 *
 * A file whose first line is a CSV header (comma-separated, no '{') is a BurstGPT trace (HPMLL/
 * BurstGPT: Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type): its rows are
 * read as vLLM's BurstGPTDataset keeps them (vllm/benchmarks/datasets.py: Model "GPT-4" and
 * Response tokens > 0; a kept row's request tokens must be >= 1), every one of them, and
 * sim_lenfile_sample draws the requests from them.
 *
 * Example (const char *path, sim_err *err):
 *   sim_lenfile f;
 *   sim_status st = sim_lenfile_load(path, 0, 0, &f, err);
 *   if (st)
 *       return st;
 *   ... f.n requests: f.input_len[i], f.output_len[i], each >= 1 ...
 *   sim_lenfile_free(&f);
 */
#ifndef SIM_LENFILE_H
#define SIM_LENFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct sim_lenfile {
    int64_t *input_len, *output_len; /* owned, n each */
    size_t n;
    bool burstgpt; /* a BurstGPT trace: every kept row, to be sampled */
} sim_lenfile;

/* Reads path; limit > 0 keeps the first `limit` requests of a JSON-lines file (a BurstGPT trace
 * is read whole). every_out > 0 makes every request's output that many tokens, and a JSON line
 * need not give one (vLLM's --custom-output-len over its custom dataset); 0 keeps the file's. Errors name the file, the line, the field and what was expected; an empty file
 * is one. */
sim_status sim_lenfile_load(const char *path, int64_t limit, int64_t every_out, sim_lenfile *out,
                            sim_err *err);

/* Replaces f's requests by n drawn from them with `seed`, as pandas' DataFrame.sample draws
 * vLLM's BurstGPT requests (alike in distribution, not row for row): without replacement when
 * n <= f->n, else each with replacement. */
sim_status sim_lenfile_sample(sim_lenfile *f, int64_t n, uint64_t seed, sim_err *err);

void sim_lenfile_free(sim_lenfile *f);

#endif
