/* cli_endpoint.c - the endpoint command: serve's deployment as a live OpenAI-compatible server
 * (live.h, httpd.h) until SIGINT or SIGTERM. Without libmicrohttpd at build time it says so. */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_point.h"

#include <signal.h>
#include <stdlib.h>

#ifdef INFERSIM_HTTPD
#include <pthread.h>

#include "httpd.h"
#include "live.h"

/* Wall seconds the requests open at a signal get to finish before the server closes them. */
#define CLI_ENDPOINT_DRAIN_S 10.0

/* Serves until SIGINT or SIGTERM: both are blocked in every thread (the mask is inherited) and
 * taken here with sigwait, so no handler and no global is needed. */
static sim_status serve_live(const cli_opts *o, const sim_engine_cfg *cfg, const char *engine,
                             FILE *out, sim_err *err)
{
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    const sim_live_cfg lc = {.time_scale = o->ep_time_scale,
                             .max_requests = (size_t)o->ep_max_requests};
    sim_live *l = NULL;
    sim_httpd *h = NULL;
    const char *name = o->ep_model_name ? o->ep_model_name : o->model;
    const sim_httpd_cfg hc = {.host = o->ep_host,
                              .port = (int)o->ep_port,
                              .model_name = name,
                              .max_model_len = cfg->step.model->max_positions,
                              .chars_per_token = o->ep_chars_per_token,
                              .max_connections = (unsigned)o->ep_max_connections,
                              .max_body_bytes = (size_t)o->ep_max_body_bytes};
    sim_status st = sim_live_start(cfg, &lc, &l, err);
    if (!st)
        st = sim_httpd_start(&hc, l, &h, err);
    if (!st) {
        fprintf(out,
                "infersim endpoint: %s on %d x %s as %s serves it, at http://%s:%d (time scale "
                "%g: simulated seconds per wall second)\n",
                name, sim_step_gpus(&cfg->step), cfg->step.hw->name, engine, o->ep_host,
                sim_httpd_port(h), o->ep_time_scale);
        fflush(out);
        int sig = 0;
        sigwait(&set, &sig);
        sim_httpd_quiesce(h);
        const bool drained = sim_live_drain(l, CLI_ENDPOINT_DRAIN_S);
        fprintf(out, "infersim endpoint: %s, stopping (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
                drained ? "every request finished" : "requests still open were closed");
        sim_err bad = {0};
        if (!sim_live_healthy(l, &bad))
            st = sim_fail(err, SIM_EINTERNAL, "%s", bad.msg);
    }
    if (l)
        sim_live_stop(l);
    sim_httpd_stop(h);
    sim_live_free(l);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return st;
}
#endif

sim_status cli_endpoint_cmd(const cli_opts *o, FILE *out, sim_err *err)
{
#ifdef INFERSIM_HTTPD
    cli_load_result *L = cli_load_result_new();
    sim_engine_cfg *cfg = calloc(1, sizeof *cfg);
    sim_status st = L && cfg ? SIM_OK : sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!st)
        st = cli_point_engine(o, L, NULL, (uint64_t)o->seed, cfg, err);
    if (!st)
        st = serve_live(o, cfg, L->eng.name, out, err);
    free(cfg);
    free(L);
    return st;
#else
    (void)o;
    (void)out;
    return sim_fail(err, SIM_EINPUT,
                    "endpoint: this infersim was built without libmicrohttpd; install "
                    "libmicrohttpd-dev and build again");
#endif
}
