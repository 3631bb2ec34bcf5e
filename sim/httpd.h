/* httpd.h - the endpoint's HTTP layer: an OpenAI-compatible server on libmicrohttpd (Debian's
 * libmicrohttpd-dev) in front of a live simulation (live.h). Built only when CMake finds the
 * library (INFERSIM_HTTPD); thin: requests read by oai.h, timing by live.h.
 *
 * Routes: POST /v1/completions and /v1/chat/completions (stream true: SSE chunks as vLLM's
 * server sends them, "data: [DONE]" last; false: one body when the last token is out), GET
 * /v1/models, /health (200 while the simulation runs, 500 with its error after) and /metrics
 * (Prometheus text, live_prom.c). Anything else: 404; a known path with another method: 405.
 * Errors are vLLM's ErrorResponse JSON with one-line messages: 400 for a malformed body or a
 * request the engine cannot hold, 404 for another model, 413 for a body past max_body_bytes,
 * 503 while the simulated engine is full.
 *
 * Threads: one per connection (MHD_USE_THREAD_PER_CONNECTION), at most max_connections (more are
 * refused at accept); a streaming response's thread sleeps in sim_live_wait between chunks, so
 * a slow reader slows only itself. A client that goes away releases its request, which is
 * aborted (live.h).
 *
 * Example (sim_live *l, sim_err *err):
 *   sim_httpd_cfg c = {.host = "127.0.0.1", .port = 0, .model_name = "llama", .max_model_len =
 *                      8192, .chars_per_token = 4.0, .max_connections = 64, .max_body_bytes = 1
 *                      << 20};
 *   sim_httpd *h;
 *   if (sim_httpd_start(&c, l, &h, err))
 *       return 1;
 *   int port = sim_httpd_port(h); // the one the system picked for port 0
 *   ... serve until a signal ...
 *   sim_httpd_quiesce(h);         // no new connections
 *   sim_live_stop(l);             // wakes the streams
 *   sim_httpd_stop(h);
 *   return port > 0 ? 0 : 1;
 */
#ifndef SIM_HTTPD_H
#define SIM_HTTPD_H

#include <stddef.h>
#include <stdint.h>

#include "live.h"
#include "status.h"

typedef struct sim_httpd_cfg {
    const char *host;       /* numeric IPv4 or IPv6 address to bind */
    int port;               /* 0: any free one (sim_httpd_port) */
    const char *model_name; /* served name: /v1/models, responses, the metrics' label */
    int64_t max_model_len;  /* context: a request without max_tokens generates the rest of it */
    double chars_per_token; /* a text prompt's characters per token */
    unsigned max_connections;
    size_t max_body_bytes;
} sim_httpd_cfg;

typedef struct sim_httpd sim_httpd;

/* Binds and starts serving. SIM_EINPUT naming --host or --port (not an address, in use). */
sim_status sim_httpd_start(const sim_httpd_cfg *c, sim_live *l, sim_httpd **out, sim_err *err);

int sim_httpd_port(const sim_httpd *h);

/* Stops accepting connections; those open go on. */
void sim_httpd_quiesce(sim_httpd *h);

/* Closes every connection (their threads joined) and frees h. Call sim_live_stop first so that
 * no stream is asleep waiting for a token. */
void sim_httpd_stop(sim_httpd *h);

#endif
