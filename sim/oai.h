/* oai.h - the OpenAI-compatible API as vLLM's server speaks it (vllm/entrypoints/openai/
 * protocol.py and serving_completion.py / serving_chat.py): a request body read into the token
 * counts the simulation needs, and the bodies and SSE chunks written back. Pure: no I/O.
 *
 * What a request counts (sim_oai_parse):
 *   - prompt tokens: the extension field "infersim_prompt_tokens" (an integer >= 1) when given;
 *     else a completion's "prompt" as token ids (an array of integers, or one such array in an
 *     array: their count), or as text (a string, or one string in an array); a chat's
 *     "messages", every message's "content" (a string, or an array of parts whose "text" parts
 *     count); text counts ceil(characters / chars_per_token) tokens, at least 1 (characters:
 *     UTF-8 code points), with no tokenizer and no chat template;
 *   - output tokens: "max_tokens" (a chat's "max_completion_tokens" first), else 0: the caller
 *     applies vLLM's default, the context left after the prompt;
 *   - "stream", and "stream_options": {"include_usage", "continuous_usage_stats"};
 *   - "model", when given, must name the served model (404 otherwise, as vLLM answers);
 *   - "n" other than 1 and several prompts in one request are refused (one sequence each).
 * Errors are one line naming the field, its value and what was expected.
 *
 * Example:
 *   sim_oai_req r;
 *   sim_err err = {0};
 *   static const char body[] = "{\"prompt\": \"0123456789\", \"max_tokens\": 8, \"stream\": true}";
 *   if (sim_oai_parse(body, sizeof body - 1, SIM_OAI_COMPLETION, 4.0, &r, &err))
 *       return 1;
 *   // r.prompt_tokens == 3 (ceil(10 / 4)), r.max_tokens == 8, r.stream
 *   return r.prompt_tokens == 3 ? 0 : 1;
 */
#ifndef SIM_OAI_H
#define SIM_OAI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "strbuf.h"

typedef enum sim_oai_kind { SIM_OAI_COMPLETION, SIM_OAI_CHAT } sim_oai_kind;

typedef struct sim_oai_req {
    sim_oai_kind kind;
    int64_t prompt_tokens;
    int64_t max_tokens; /* 0: not given */
    bool stream, include_usage, continuous_usage;
    char model[256]; /* "" when not given */
} sim_oai_req;

/* Reads a request body of len bytes. SIM_EINPUT with one line: not JSON (and where), a field of
 * the wrong type or range. */
sim_status sim_oai_parse(const char *body, size_t len, sim_oai_kind kind, double chars_per_token,
                         sim_oai_req *r, sim_err *err);

/* What a response carries besides its text: the request's id ("cmpl-..." / "chatcmpl-..."),
 * creation time (Unix seconds), the served model, and the usage counts. */
typedef struct sim_oai_meta {
    const char *id;
    long long created;
    const char *model;
    int64_t prompt_tokens, completion_tokens;
} sim_oai_meta;

/* The simulated times of a finished request, the extension object "infersim" of its last chunk
 * or body: seconds from its arrival to its first and last chunk, the mean gap between chunks
 * (-1: fewer than two chunks, written as null). */
typedef struct sim_oai_times {
    double ttft_s, e2e_s, itl_mean_s;
} sim_oai_times;

/* One SSE event "data: {...}\n\n" carrying `tokens` filler tokens (" x" each) as vLLM streams a
 * delta; a chat's first event carries the assistant's role. `times` non-NULL: the last one
 * (finish_reason "length", the extension object). Usage in every event with
 * continuous_usage_stats (counts so far: m->completion_tokens). */
void sim_oai_chunk(sim_strbuf *out, const sim_oai_req *r, const sim_oai_meta *m, int64_t tokens,
                   bool first, const sim_oai_times *times);

/* The usage event after the last chunk (include_usage: "choices": []) and the end, "data:
 * [DONE]". */
void sim_oai_usage_chunk(sim_strbuf *out, const sim_oai_req *r, const sim_oai_meta *m);
void sim_oai_done(sim_strbuf *out);

/* A whole (stream false) response: every filler token, finish_reason "length", usage. */
void sim_oai_response(sim_strbuf *out, const sim_oai_req *r, const sim_oai_meta *m,
                      const sim_oai_times *times);

/* vLLM's ErrorResponse body: {"object": "error", "message", "type", "param": null, "code"}. */
void sim_oai_error(sim_strbuf *out, int http_code, const char *message);

/* /v1/models: the one served model with its context (max_model_len). */
void sim_oai_models(sim_strbuf *out, const char *model, long long created, int64_t max_model_len);

#endif
