/* httpd.c - the endpoint's HTTP layer on libmicrohttpd (httpd.h). */
#define _POSIX_C_SOURCE 200809L
#include "httpd.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "oai.h"
#include "strbuf.h"

/* Seconds of wall time a connection may go without traffic before it is closed, so that
 * abandoned connections give their bounded slots back. A response asleep waiting for its next
 * token is without traffic too (libmicrohttpd checks after the wait): long enough that only a
 * request queued that long in the simulation meets it. */
#define SIM_HTTPD_IDLE_S 600

struct sim_httpd {
    sim_httpd_cfg cfg;
    sim_live *live;
    struct MHD_Daemon *d;
    int port;
};

/* One connection's request: its body as it comes in. */
typedef struct conn {
    sim_strbuf body;
    bool too_large;
} conn;

/* One streamed response: the request, the bytes written but not yet taken by the server, where
 * the stream stands. */
typedef struct stream {
    sim_live *live;
    int64_t handle;
    sim_oai_req req;
    sim_oai_meta meta;
    char id[48], model[256];
    sim_strbuf pend;
    size_t off;
    int64_t have; /* tokens written */
    bool done, ended;
} stream;

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned code, const char *type,
                                 const sim_strbuf *b)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(b->len, b->s ? b->s : (char *)"", MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    const enum MHD_Result ok = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned code, const char *msg)
{
    sim_strbuf b = {0};
    sim_oai_error(&b, (int)code, msg);
    const enum MHD_Result ok = b.oom ? MHD_NO : send_text(c, code, "application/json", &b);
    sim_strbuf_free(&b);
    return ok;
}

static sim_oai_times times_of(const sim_live_view *v)
{
    return (sim_oai_times){.ttft_s = v->ttft_s, .e2e_s = v->e2e_s, .itl_mean_s = v->itl_mean_s};
}

/* The next events of a stream into s->pend: waits for tokens, writes their chunk, and after the
 * last the usage event (when asked) and [DONE]. False when the simulation stopped first. */
static bool stream_more(stream *s)
{
    sim_live_view v;
    sim_live_wait(s->live, s->handle, s->have, &v);
    if (v.streamed > s->have) {
        s->meta.completion_tokens = v.streamed;
        const sim_oai_times t = times_of(&v);
        sim_oai_chunk(&s->pend, &s->req, &s->meta, v.streamed - s->have, s->have == 0,
                      v.finished ? &t : NULL);
        s->have = v.streamed;
    }
    if (v.finished) {
        if (s->req.include_usage)
            sim_oai_usage_chunk(&s->pend, &s->req, &s->meta);
        sim_oai_done(&s->pend);
        s->done = true;
        return !s->pend.oom;
    }
    return !v.stopped && !s->pend.oom;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    stream *s = cls;
    while (s->off == s->pend.len) {
        sim_strbuf_free(&s->pend);
        s->off = 0;
        if (s->done)
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (!stream_more(s))
            return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    size_t n = s->pend.len - s->off;
    n = n < max ? n : max;
    memcpy(buf, s->pend.s + s->off, n);
    s->off += n;
    return (ssize_t)n;
}

/* The response is done with (sent, or the client went away): the request is released. */
static void stream_free(void *cls)
{
    stream *s = cls;
    sim_live_release(s->live, s->handle);
    sim_strbuf_free(&s->pend);
    free(s);
}

/* A completion: counted, submitted, then streamed or answered whole. */
static enum MHD_Result complete(sim_httpd *h, struct MHD_Connection *c, sim_oai_kind kind,
                                const conn *cn)
{
    stream *s = calloc(1, sizeof *s);
    if (!s)
        return send_error(c, 500, "out of memory");
    sim_err err = {0};
    if (sim_oai_parse(cn->body.s ? cn->body.s : "", cn->body.len, kind, h->cfg.chars_per_token,
                      &s->req, &err)) {
        free(s);
        return send_error(c, 400, err.msg);
    }
    if (s->req.model[0] && strcmp(s->req.model, h->cfg.model_name) != 0) {
        char msg[400];
        snprintf(msg, sizeof msg, "The model `%s` does not exist.", s->req.model);
        free(s);
        return send_error(c, 404, msg);
    }
    /* vLLM's default output: the context the prompt leaves */
    if (s->req.max_tokens == 0 && s->req.prompt_tokens >= h->cfg.max_model_len) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "request: %lld prompt tokens leave no room in the model's context of %lld "
                 "tokens (max_model_len)",
                 (long long)s->req.prompt_tokens, (long long)h->cfg.max_model_len);
        free(s);
        return send_error(c, 400, msg);
    }
    const int64_t out =
        s->req.max_tokens > 0 ? s->req.max_tokens : h->cfg.max_model_len - s->req.prompt_tokens;
    bool busy = false;
    const sim_status st =
        sim_live_submit(h->live, s->req.prompt_tokens, out, &s->handle, &busy, &err);
    if (st) {
        free(s);
        return send_error(c, busy ? 503 : st == SIM_EINPUT ? 400 : 500, err.msg);
    }
    s->live = h->live;
    snprintf(s->id, sizeof s->id, "%s-%016llx", kind == SIM_OAI_CHAT ? "chatcmpl" : "cmpl",
             (unsigned long long)s->handle);
    snprintf(s->model, sizeof s->model, "%s", h->cfg.model_name);
    s->meta = (sim_oai_meta){.id = s->id,
                             .created = (long long)time(NULL),
                             .model = s->model,
                             .prompt_tokens = s->req.prompt_tokens};
    if (s->req.stream) {
        struct MHD_Response *r =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, s, stream_free);
        if (!r) {
            stream_free(s);
            return MHD_NO;
        }
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                                "text/event-stream; charset=utf-8");
        const enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ok;
    }
    sim_live_view v = {0};
    while (!v.finished && !v.stopped)
        sim_live_wait(h->live, s->handle, v.streamed, &v);
    enum MHD_Result ok;
    if (v.finished) {
        s->meta.completion_tokens = v.streamed;
        const sim_oai_times t = times_of(&v);
        sim_strbuf b = {0};
        sim_oai_response(&b, &s->req, &s->meta, &t);
        ok = b.oom ? MHD_NO : send_text(c, MHD_HTTP_OK, "application/json", &b);
        sim_strbuf_free(&b);
    } else {
        ok = send_error(c, 503, "the endpoint is shutting down");
    }
    stream_free(s);
    return ok;
}

static enum MHD_Result route(sim_httpd *h, struct MHD_Connection *c, const char *url,
                             const char *method, const conn *cn)
{
    const bool get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
    sim_strbuf b = {0};
    enum MHD_Result ok;
    if (strcmp(url, "/v1/completions") == 0 || strcmp(url, "/v1/chat/completions") == 0) {
        if (!post)
            return send_error(c, 405, "method not allowed: expected POST");
        if (cn->too_large) {
            char msg[160];
            snprintf(msg, sizeof msg, "body: longer than --max-body-bytes %zu",
                     h->cfg.max_body_bytes);
            return send_error(c, 413, msg);
        }
        return complete(h, c, url[4] == 'c' && url[5] == 'h' ? SIM_OAI_CHAT : SIM_OAI_COMPLETION,
                        cn);
    }
    if (strcmp(url, "/health") == 0 || strcmp(url, "/v1/models") == 0 ||
        strcmp(url, "/metrics") == 0) {
        if (!get)
            return send_error(c, 405, "method not allowed: expected GET");
        sim_err err = {0};
        if (url[1] == 'h') {
            if (!sim_live_healthy(h->live, &err))
                return send_error(c, 500, err.msg);
            return send_text(c, MHD_HTTP_OK, "text/plain", &b);
        }
        if (url[1] == 'v')
            sim_oai_models(&b, h->cfg.model_name, (long long)time(NULL), h->cfg.max_model_len);
        else
            sim_live_prometheus(h->live, h->cfg.model_name, &b);
        ok = b.oom
                 ? MHD_NO
                 : send_text(c, MHD_HTTP_OK,
                             url[1] == 'v' ? "application/json" : "text/plain; version=0.0.4", &b);
        sim_strbuf_free(&b);
        return ok;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "no route %.100s", url);
    return send_error(c, 404, msg);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    sim_httpd *h = cls;
    conn *cn = *con_cls;
    if (!cn) { /* the headers: a body announced past the limit is refused at once */
        cn = calloc(1, sizeof *cn);
        if (!cn)
            return MHD_NO;
        *con_cls = cn;
        const char *cl =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > h->cfg.max_body_bytes) {
            cn->too_large = true;
            return route(h, c, url, method, cn);
        }
        return MHD_YES;
    }
    if (*upload_size > 0) {
        if (!cn->too_large && cn->body.len + *upload_size <= h->cfg.max_body_bytes)
            sim_strbuf_put(&cn->body, upload, *upload_size);
        else
            cn->too_large = true;
        *upload_size = 0;
        return cn->body.oom ? MHD_NO : MHD_YES;
    }
    return route(h, c, url, method, cn);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    conn *cn = *con_cls;
    if (cn) {
        sim_strbuf_free(&cn->body);
        free(cn);
        *con_cls = NULL;
    }
}

sim_status sim_httpd_start(const sim_httpd_cfg *c, sim_live *l, sim_httpd **out, sim_err *err)
{
    *out = NULL;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    /* ITC: quiescing (no new connections) needs it with the internal thread */
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, c->host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)c->port);
    } else if (inet_pton(AF_INET6, c->host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)c->port);
        flags |= MHD_USE_IPv6;
    } else {
        return sim_fail(err, SIM_EINPUT,
                        "--host: value '%s', expected a numeric IPv4 or IPv6 address "
                        "(127.0.0.1, 0.0.0.0, ::1)",
                        c->host);
    }
    sim_httpd *h = calloc(1, sizeof *h);
    if (!h)
        return sim_fail(err, SIM_EINTERNAL, "out of memory for the HTTP server");
    h->cfg = *c;
    h->live = l;
    h->d =
        MHD_start_daemon(flags, (uint16_t)c->port, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR,
                         (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT, c->max_connections,
                         MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SIM_HTTPD_IDLE_S,
                         MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
    if (!h->d) {
        free(h);
        return sim_fail(err, SIM_EINPUT,
                        "--port: cannot listen on %s port %d (in use, or not allowed)", c->host,
                        c->port);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? (int)info->port : c->port;
    *out = h;
    return SIM_OK;
}

int sim_httpd_port(const sim_httpd *h) { return h->port; }

void sim_httpd_quiesce(sim_httpd *h) { (void)MHD_quiesce_daemon(h->d); }

void sim_httpd_stop(sim_httpd *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->d);
    free(h);
}
