/* frontend.c - the front end's queue of CPU jobs and the streaming rule. */
#include "frontend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sim_status sim_frontend_check(const sim_frontend_cfg *c, sim_err *err)
{
    if (!c->on)
        return SIM_OK;
    if (c->processes < 1 || c->processes > SIM_FRONTEND_MAX_PROCESSES)
        return sim_fail(err, SIM_EINPUT,
                        "frontend.processes (--api-server-count): value %lld, expected 1 to %d",
                        (long long)c->processes, SIM_FRONTEND_MAX_PROCESSES);
    if (c->stream_interval < 1 || c->stream_interval > (1 << 20))
        return sim_fail(err, SIM_EINPUT,
                        "frontend.stream_interval (--stream-interval): value %lld, expected 1 to "
                        "%d tokens",
                        (long long)c->stream_interval, 1 << 20);
    static const char *const names[] = {"frontend.request_us", "frontend.input_token_us",
                                        "frontend.output_token_us", "frontend.chunk_us"};
    const double v[] = {c->request_ns, c->input_token_ns, c->output_token_ns, c->chunk_ns};
    for (int i = 0; i < 4; i++)
        if (!(v[i] >= 0.0 && v[i] <= 1e10))
            return sim_fail(err, SIM_EINPUT, "%s: value %g us, expected a number in [0, 1e7]",
                            names[i], v[i] / 1e3);
    return SIM_OK;
}

bool sim_frontend_init(sim_frontend *f, const sim_frontend_cfg *c, size_t requests)
{
    *f = (sim_frontend){.n = c->on ? c->processes : 0};
    if (f->n == 0)
        return true;
    f->free_ns = calloc(4 * (size_t)f->n, sizeof *f->free_ns);
    if (f->free_ns) {
        f->out_at_ns = f->free_ns + f->n;
        f->out_ns = f->out_at_ns + f->n;
        f->pre_free_ns = f->out_ns + f->n;
    }
    if (requests) {
        f->t_ns = calloc(requests, sizeof *f->t_ns);
        f->streamed = calloc(requests, sizeof *f->streamed);
    }
    return f->free_ns && (!requests || (f->t_ns && f->streamed));
}

bool sim_frontend_grow(sim_frontend *f, size_t had, size_t requests)
{
    int64_t *t = realloc(f->t_ns, requests * sizeof *t);
    if (t)
        f->t_ns = t;
    int32_t *s = t ? realloc(f->streamed, requests * sizeof *s) : NULL;
    if (!s)
        return false;
    f->streamed = s;
    memset(t + had, 0, (requests - had) * sizeof *t);
    memset(s + had, 0, (requests - had) * sizeof *s);
    return true;
}

void sim_frontend_drop(sim_frontend *f, size_t k, size_t held)
{
    if (!f->t_ns || k == 0)
        return;
    memmove(f->t_ns, f->t_ns + k, (held - k) * sizeof *f->t_ns);
    memmove(f->streamed, f->streamed + k, (held - k) * sizeof *f->streamed);
    memset(f->t_ns + held - k, 0, k * sizeof *f->t_ns);
    memset(f->streamed + held - k, 0, k * sizeof *f->streamed);
}

void sim_frontend_free(sim_frontend *f)
{
    free(f->free_ns);
    free(f->t_ns);
    free(f->streamed);
    *f = (sim_frontend){0};
}

int64_t sim_frontend_request_ns(const sim_frontend_cfg *c, int64_t input_tokens)
{
    return (int64_t)llround(c->request_ns + c->input_token_ns * (double)input_tokens);
}

int64_t sim_frontend_output_ns(const sim_frontend_cfg *c, int64_t tokens, int64_t chunks)
{
    return (int64_t)llround(c->output_token_ns * (double)tokens + c->chunk_ns * (double)chunks);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* When process i can start a job sent at t_ns: before its last output job if that was
 * submitted after t_ns. */
static int64_t free_for(const sim_frontend *f, int64_t i, int64_t t_ns)
{
    return t_ns < f->out_at_ns[i] ? f->pre_free_ns[i] : f->free_ns[i];
}

int64_t sim_frontend_request(sim_frontend *f, const sim_frontend_cfg *c, int64_t t_ns,
                             int64_t input_tokens)
{
    int64_t k = 0;
    for (int64_t i = 1; i < f->n; i++)
        if (free_for(f, i, t_ns) < free_for(f, k, t_ns))
            k = i;
    const int64_t done =
        max64(t_ns, free_for(f, k, t_ns)) + sim_frontend_request_ns(c, input_tokens);
    if (t_ns < f->out_at_ns[k]) { /* ahead of the output job, which then runs after it */
        f->pre_free_ns[k] = done;
        f->free_ns[k] = max64(done, f->out_at_ns[k]) + f->out_ns[k];
    } else {
        f->free_ns[k] = done;
    }
    return done;
}

int64_t sim_frontend_output(sim_frontend *f, const sim_frontend_cfg *c, int64_t t_ns,
                            int64_t tokens, int64_t chunks)
{
    const int64_t job = sim_frontend_output_ns(c, tokens, chunks);
    if (job <= 0)
        return t_ns;
    /* each process takes an equal share, the first (job mod n) one nanosecond more */
    const int64_t share = job / f->n, extra = job % f->n;
    int64_t done = t_ns;
    for (int64_t i = 0; i < f->n; i++) {
        f->pre_free_ns[i] = f->free_ns[i];
        f->out_at_ns[i] = t_ns;
        f->out_ns[i] = share + (i < extra ? 1 : 0);
        f->free_ns[i] = max64(t_ns, f->free_ns[i]) + f->out_ns[i];
        done = max64(done, f->free_ns[i]);
    }
    return done;
}

bool sim_frontend_streams(const sim_frontend_cfg *c, int64_t before, int64_t streamed,
                          int64_t after, bool finished)
{
    const int64_t n = c->on ? c->stream_interval : 1;
    return finished || (c->on && c->first_token_alone && before == 0) || after - streamed >= n;
}

void sim_frontend_take(sim_frontend *f, const sim_frontend_cfg *c, int64_t id, int64_t send_ns,
                       int64_t input_tokens)
{
    f->t_ns[id] = sim_frontend_request(f, c, send_ns, input_tokens);
}

void sim_frontend_deliver(sim_frontend *f, int64_t id, int64_t send_ns)
{
    f->in_ns += (double)(f->t_ns[id] - send_ns);
}

int sim_frontend_stream(sim_frontend *f, const sim_frontend_cfg *c, int64_t now_ns,
                        sim_seq *seqs, sim_frontend_emit *e, size_t n, int64_t steady,
                        int64_t produced, sim_hist *itl, int64_t *client_ns)
{
    int64_t chunks = steady;
    for (size_t i = 0; i < n; i++) {
        if (e[i].before == 0)
            f->t_ns[e[i].id] = now_ns; /* the engine's first token */
        e[i].chunk = sim_frontend_streams(c, e[i].before, f->streamed[e[i].id], e[i].after,
                                          e[i].finished);
        chunks += e[i].chunk;
    }
    const int64_t t = sim_frontend_output(f, c, now_ns, produced, chunks);
    *client_ns = t;
    /* requests that also got a chunk from the previous job share one gap: one run for them */
    int64_t same = steady;
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        if (!e[i].chunk)
            continue;
        const int64_t id = e[i].id;
        sim_seq *r = &seqs[id];
        const int64_t m = e[i].after - f->streamed[id]; /* tokens in this chunk */
        if (f->streamed[id] == 0) {
            r->first_token_ns = t;
            f->first_ns += (double)(t - f->t_ns[id]);
        } else if (c->per_token_itl && m > 1) {
            ok &= sim_hist_add(itl, llround((double)(t - r->last_token_ns) / (double)m), m);
        } else if (r->last_token_ns == f->prev_ns) {
            same++;
        } else {
            ok &= sim_hist_add(itl, t - r->last_token_ns, 1);
        }
        r->last_token_ns = t;
        f->streamed[id] = (int32_t)e[i].after;
        if (e[i].finished) {
            r->finish_ns = t;
            f->finish_ns += (double)(t - now_ns);
        }
    }
    ok &= sim_hist_add(itl, t - f->prev_ns, same);
    f->prev_ns = t;
    f->last_ns = max64(f->last_ns, t);
    return ok;
}
