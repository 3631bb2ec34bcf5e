/* lenfile.h - request lengths read from a JSON-lines dataset file (trtllm-bench's --dataset).
 *
 * One JSON object a line, as TensorRT-LLM's prepare_dataset.py and `trtllm-bench prepare-dataset`
 * write them (tensorrt_llm/bench/utils/data.py, create_dataset_from_stream: "input_ids", a list of
 * token ids, and "output_tokens", the tokens to generate; "task_id" and the rest are not read).
 * A line may give the prompt's length as a number instead of its ids: "input_len" (or
 * "prompt_len"), and "output_len" for "output_tokens". A prompt given only as text ("prompt")
 * needs a tokenizer to count it and is refused, naming the line. Blank lines are skipped.
 *
 * Example (const char *path, sim_err *err):
 *   sim_lenfile f;
 *   sim_status st = sim_lenfile_load(path, 0, &f, err);
 *   if (st)
 *       return st;
 *   ... f.n requests: f.input_len[i], f.output_len[i], each >= 1 ...
 *   sim_lenfile_free(&f);
 */
#ifndef SIM_LENFILE_H
#define SIM_LENFILE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct sim_lenfile {
    int64_t *input_len, *output_len; /* owned, n each */
    size_t n;
} sim_lenfile;

/* Reads path; limit > 0 keeps the first `limit` requests. Errors name the file, the line, the
 * field and what was expected; an empty file is one. */
sim_status sim_lenfile_load(const char *path, int64_t limit, sim_lenfile *out, sim_err *err);

void sim_lenfile_free(sim_lenfile *f);

#endif
