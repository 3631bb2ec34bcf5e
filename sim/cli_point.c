/* cli_point.c - one run or serve computation from the flags (the commands, sweep and compare). */
#define _POSIX_C_SOURCE 200809L
#include "cli_point.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_timeline.h"
#include "find.h"
#include "pp.h"
#include "timeline_serve.h"
#include "lenfile.h"

/* Refuses a timeline past --trace-max-mb: run's estimated before a byte of it is written, serve's
 * once its file passes the limit (est_bytes: the whole timeline's, about). */
sim_status cli_point_check_trace_size(const cli_opts *o, double est_bytes, const char *what,
                                      sim_err *err)
{
    if (est_bytes <= o->trace_max_mb * 1e6)
        return SIM_OK;
    return sim_fail(err, SIM_EINPUT,
                    "--chrome-trace: %s would take about %.0f MB, past --trace-max-mb %g; "
                    "raise the limit or write less (%s)",
                    what, est_bytes / 1e6, o->trace_max_mb,
                    o->trace_ranks ? "fewer ranks, a --trace-window or a coarser --trace-detail"
                                   : "a --trace-window, a coarser --trace-detail or fewer "
                                     "--num-prompts");
}

/* A static batch from the flags: loaded (from the cache when given), checked, simulated. */
/* run prices a static batch; serve, for the same engine, checks what the engine admits (its KV
 * cache in blocks, an unchunked prompt within the token budget, its limits). run keeps pricing a
 * batch that serve refuses, and says so on the warning stream: the engine would not run it as
 * given (issue 33 D12). */
static void warn_if_serve_refuses(const cli_opts *o, const cli_load_result *L,
                                  const sim_run_cfg *cfg)
{
    sim_engine_cfg ec = {0};
    cli_load_engine_cfg(&L->eng, &ec);
    ec.step = cfg->step;
    ec.spec = cfg->spec;
    ec.sched.spec_tokens = sim_spec_active(cfg->spec) ? cfg->spec->k : 0;
    sim_synth_cfg sc = {.num_prompts = cfg->batch,
                        .input_len = cfg->input_len,
                        .output_len = cfg->output_len,
                        .request_rate = INFINITY,
                        .burstiness = 1.0};
    sim_workload w;
    sim_err e = {{0}};
    if (sim_workload_synthetic(&sc, &w, &e))
        return;
    if (sim_engine_check(&ec, &w, &e) == SIM_EINPUT)
        fprintf(o->warn,
                "infersim: warning: serve with --engine %s refuses %lld requests of %lld + %lld "
                "tokens (%s); run prices the batch as given\n",
                L->eng.name, (long long)cfg->batch, (long long)cfg->input_len,
                (long long)cfg->output_len, e.msg);
    sim_workload_free(&w);
}

/* --images-per-request and --image-size: the pixels of every image (1280 x 720 unless given;
 * each side 1 to 65536), and a model that has a priced vision encoder when images are asked. */
static sim_status images_of(const cli_opts *o, const sim_model *m, int64_t *w, int64_t *h,
                            sim_err *err)
{
    *w = 1280;
    *h = 720;
    if (o->image_size) {
        long long a = 0, b = 0;
        int n = 0;
        // NOLINTNEXTLINE(cert-err34-c): the ranges are checked below, the rest by %n
        if (sscanf(o->image_size, "%7lldx%7lld%n", &a, &b, &n) != 2 ||
            o->image_size[n] != '\0' || a < 1 || b < 1 || a > 65536 || b > 65536)
            return sim_fail(err, SIM_EINPUT,
                            "--image-size: value '%s', expected WxH pixels, each 1 to 65536 "
                            "(e.g. 1280x720)",
                            o->image_size);
        *w = a;
        *h = b;
    }
    if (o->images > 0 && m->vision.kind == SIM_VISION_NONE)
        return sim_fail(err, SIM_EINPUT,
                        "--images-per-request: value %lld, but %s has no vision encoder "
                        "infersim prices (Qwen2.5-VL, Gemma 3, Llama 4; README \"Model "
                        "families\")",
                        (long long)o->images, m->path);
    return SIM_OK;
}

sim_status cli_point_run(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                         sim_run_cfg *cfg, sim_run_result *r, sim_err *err)
{
    return cli_point_run_decode(o, L, cache, NULL, cfg, r, err);
}

sim_status cli_point_run_decode(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                                sim_run_decode *decode, sim_run_cfg *cfg, sim_run_result *r,
                                sim_err *err)
{
    /* the files, then the cross-checks of run's flags (the option table's; a plan probes a
     * request alone through here with serve's flags, whose rules serve's point checks) */
    sim_status st = cli_load_common(o, true, L, cache, err);
    if (!st)
        st = cli_opt_check_rules(o, CLI_OPT_CMD_RUN, err);
    *cfg = (sim_run_cfg){.batch = o->batch,
                         .input_len = o->input_len,
                         .output_len = o->output_len,
                         .mem_util = L->eng.mem_fraction,
                         .spec = &L->spec,
                         .usd_per_gpu_hour = L->usd_per_gpu_hour};
    sim_vision_image im;
    if (!st && !(st = images_of(o, &L->model, &cfg->image_w, &cfg->image_h, err)) &&
        o->images > 0 && sim_model_vision_image(&L->model, cfg->image_w, cfg->image_h, &im)) {
        cfg->images = o->images;
        cfg->input_len += o->images * im.tokens; /* the prompt the engine prefills */
    }
    if (!st && L->eng.max_input_len > 0 && o->input_len > L->eng.max_input_len)
        st = sim_fail(err, SIM_EINPUT,
                      "--input-len: value %lld is past the engine's max_input_len %lld (%s; "
                      "pass --max-input-len to build for longer prompts)",
                      (long long)o->input_len, (long long)L->eng.max_input_len, L->eng.path);
    if (!st) {
        cfg->step = L->step;
        st = sim_run_check(cfg, err);
    }
    if (!st && o->warn)
        warn_if_serve_refuses(o, L, cfg);
    if (!st) {
        cfg->decode = decode;
        sim_run_simulate(cfg, r);
        cfg->decode = NULL; /* the band's draws are other deployments */
        st = sim_run_check_result(r, err);
    }
    return st;
}

/* The workload flags' rules that depend on --dataset-name's value (the rest are the option
 * table's needs / excludes, cli_opt_check_rules). */
static sim_status check_workload_flags(const cli_opts *o, sim_err *err)
{
    static const cli_opt_id repetition[] = {
        CLI_OPT_ID_PREFIX_REPETITION_PREFIX_LEN, CLI_OPT_ID_PREFIX_REPETITION_SUFFIX_LEN,
        CLI_OPT_ID_PREFIX_REPETITION_NUM_PREFIXES, CLI_OPT_ID_PREFIX_REPETITION_OUTPUT_LEN};
    static const cli_opt_id random_only[] = {
        CLI_OPT_ID_RANDOM_INPUT_LEN, CLI_OPT_ID_RANDOM_OUTPUT_LEN, CLI_OPT_ID_RANDOM_RANGE_RATIO};
    bool rep = o->dataset_name && strcmp(o->dataset_name, "prefix_repetition") == 0;
    if (cli_point_public_dataset(o))
        for (size_t i = 0; i < sizeof random_only / sizeof random_only[0]; i++)
            if (cli_opt_given(o, random_only[i]))
                return sim_fail(err, SIM_EINPUT,
                                "%s: does not apply to --dataset-name %s (its lengths come from "
                                "the dataset's fit: infersim workload --dataset-name %s)",
                                cli_opt_name(random_only[i]), o->dataset_name, o->dataset_name);
    for (size_t i = 0; i < sizeof repetition / sizeof repetition[0]; i++)
        if (!rep && cli_opt_given(o, repetition[i]))
            return sim_fail(err, SIM_EINPUT, "%s: needs --dataset-name prefix_repetition",
                            cli_opt_name(repetition[i]));
    for (size_t i = 0; i < sizeof random_only / sizeof random_only[0]; i++)
        if (rep && cli_opt_given(o, random_only[i]))
            return sim_fail(err, SIM_EINPUT,
                            "%s: does not apply to --dataset-name prefix_repetition (use "
                            "--prefix-repetition-* for its lengths)",
                            cli_opt_name(random_only[i]));
    if (cli_opt_given(o, CLI_OPT_ID_SHAREGPT_OUTPUT_LEN) && !cli_point_public_dataset(o))
        return sim_fail(err, SIM_EINPUT,
                        "--sharegpt-output-len: needs a public dataset's --dataset-name "
                        "(sharegpt, ...); with random use --random-output-len");
    return SIM_OK;
}

/* --sessions N --turns-per-session D --think-time-s DIST (workload.h sim_workload_sessions):
 * its hash ids name blocks of the engine's block size, at least 16 tokens, as
 * prefix_repetition's. */
static sim_status session_workload(const cli_opts *o, uint64_t seed, int64_t block_size,
                                   sim_workload *own, sim_err *err)
{
    sim_session_cfg c = {.sessions = o->sessions,
                         .turns = o->turns,
                         .input_len = o->rand_in,
                         .output_len = o->rand_out,
                         .range_ratio = o->range_ratio,
                         .request_rate = o->rate,
                         .burstiness = o->burstiness,
                         .seed = seed,
                         .hash_block_tokens = block_size >= 16 || 16 % block_size ? block_size : 16};
    sim_status st = o->think_time ? sim_workload_think_parse(o->think_time, &c.think, err) : SIM_OK;
    return st ? st : sim_workload_sessions(&c, own, err);
}

/* The workload of a serve command: a trace (from the cache when given), or vLLM's random or
 * prefix_repetition dataset drawn with `seed` (its prefix-cache ids name blocks of the engine's
 * block size, at least 16 tokens). *w points at `own` or at the cached trace. */
static sim_status serve_workload(const cli_opts *o, const cli_load_cache *cache, uint64_t seed,
                                 int64_t block_size, sim_workload *own, const sim_workload **w,
                                 sim_err *err)
{
    sim_status st = check_workload_flags(o, err);
    *w = own;
    if (st)
        return st;
    char path[PATH_MAX];
    if (o->trace)
        cli_load_resolve_in(cache, CLI_LOAD_TRACE, o->trace, path, sizeof path);
    if (o->trace && cache) {
        const cli_load_entry *e = cli_load_cache_get(cache, CLI_LOAD_TRACE, path, o->time_scale,
                                                     cli_opt_trace_limit(o), err, &st);
        if (e)
            *w = &e->w;
        return st;
    }
    if (o->trace)
        return sim_workload_load_trace(path, o->time_scale, cli_opt_trace_limit(o), own, err);
    if (cli_opt_given(o, CLI_OPT_ID_SESSIONS))
        return session_workload(o, seed, block_size, own, err);
    sim_synth_cfg s = {.num_prompts = o->num_prompts,
                       .input_len = o->rand_in,
                       .output_len = o->rand_out,
                       .range_ratio = o->range_ratio,
                       .request_rate = o->rate,
                       .burstiness = o->burstiness,
                       .seed = seed,
                       .input_lens = o->replay_in,
                       .output_lens = o->replay_out,
                       .images_per_request = o->images};
    if (cli_opt_given(o, CLI_OPT_ID_RANDOM_RANGE_FLOOR))
        s.range_floor_on = true, s.range_floor = o->range_floor;
    sim_rate_schedule sched;
    if (o->rate_schedule) {
        if ((st = sim_workload_schedule_parse(o->rate_schedule, &sched, err)))
            return st;
        s.schedule = &sched;
    }
    if (o->lengths_file) {
        /* every request's lengths from the file, the arrivals as a synthetic stream's */
        cli_load_resolve_in(cache, CLI_LOAD_TRACE, o->lengths_file, path, sizeof path);
        sim_lenfile f;
        sim_status lst = sim_lenfile_load(
            path, cli_opt_trace_limit(o),
            cli_opt_given(o, CLI_OPT_ID_CUSTOM_OUTPUT_LEN) ? o->custom_out : 0, &f, err);
        if (lst)
            return lst;
        /* a BurstGPT trace: --num-prompts of its rows drawn with the seed (vLLM's sample) */
        if (f.burstgpt && (lst = sim_lenfile_sample(&f, o->num_prompts, seed, err))) {
            sim_lenfile_free(&f);
            return lst;
        }
        s.num_prompts = (int64_t)f.n;
        s.input_lens = f.input_len;
        s.output_lens = f.output_len;
        lst = sim_workload_synthetic(&s, own, err);
        if (!lst) { /* the file's name for messages, cut to fit */
            size_t n = strnlen(path, sizeof own->source - 1);
            memcpy(own->source, path, n);
            own->source[n] = '\0';
        }
        sim_lenfile_free(&f);
        return lst;
    }
    sim_dataset ds;
    if (cli_point_public_dataset(o)) {
        if ((st = cli_point_dataset(o, cache, &ds, err)))
            return st;
        if (ds.trace[0]) /* a production trace: its requests, its gaps scaled to the rate */
            return cli_point_dataset_workload(o, &ds, cache, own, err);
        /* --sharegpt-output-len N: every output N tokens (the fit clipped to [N, N]) */
        if (cli_opt_given(o, CLI_OPT_ID_SHAREGPT_OUTPUT_LEN))
            ds.out.min = ds.out.max = o->sharegpt_out;
        s.input_dist = &ds.in;
        s.output_dist = &ds.out;
    }
    if (o->dataset_name && strcmp(o->dataset_name, "prefix_repetition") == 0) {
        s.num_prefixes = o->num_prefixes;
        s.prefix_len = o->prefix_len;
        s.suffix_len = o->suffix_len;
        s.output_len = o->prefix_out;
        s.hash_block_tokens = block_size >= 16 || 16 % block_size ? block_size : 16;
    }
    return sim_workload_synthetic(&s, own, err);
}

/* Parses --trace-window START:END (seconds; END may be empty) into nanoseconds. */
static sim_status parse_window(const char *s, int64_t *w0, int64_t *w1, sim_err *err)
{
    char *end;
    errno = 0;
    double a = strtod(s, &end), b = -1.0;
    /* decimal only: strtod also reads hexadecimal floats */
    bool ok = !strpbrk(s, "xX") && end != s && *end == ':' && !errno && isfinite(a) && a >= 0;
    if (ok && end[1]) {
        const char *p = end + 1;
        b = strtod(p, &end);
        ok = end != p && !*end && !errno && isfinite(b) && b > a;
    }
    if (!ok || a > 1e9 || b > 1e9)
        return sim_fail(err, SIM_EINPUT,
                        "--trace-window: value '%s', expected START:END seconds with "
                        "0 <= START < END (or START: for no end)",
                        s);
    *w0 = (int64_t)llround(a * 1e9);
    *w1 = b < 0 ? -1 : (int64_t)llround(b * 1e9);
    return SIM_OK;
}

/* What a refused serve timeline is called in the message. */
static void serve_trace_what(const cli_opts *o, char *what, size_t len)
{
    snprintf(what, len, "the serve timeline at --trace-detail %s",
             o->trace_detail ? o->trace_detail : "iteration");
}

static sim_status open_serve_trace(const cli_opts *o, sim_engine_cfg *cfg, const sim_workload *w,
                                   sim_timeline_serve **out, sim_err *err)
{
    sim_timeline_detail detail = SIM_TIMELINE_ITERATION;
    int64_t w0 = 0, w1 = -1;
    if (o->trace_detail && !sim_timeline_detail_parse(o->trace_detail, &detail))
        return sim_fail(err, SIM_EINPUT,
                        "--trace-detail: value '%s', expected iteration, layer "
                        "or op",
                        o->trace_detail);
    sim_status st = o->trace_window ? parse_window(o->trace_window, &w0, &w1, err) : SIM_OK;
    if (st)
        return st;
    sim_timeline_serve *ts = calloc(1, sizeof *ts);
    if (!ts)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    if ((st =
             sim_timeline_serve_open(ts, o->chrome_trace, detail, w0, w1, w->n, &cfg->step, err))) {
        free(ts);
        return st;
    }
    if (o->trace_full)
        sim_timeline_serve_full(ts);
    /* the limit is checked as the file streams (no first pass to estimate it) */
    sim_timeline_serve_limit(ts, o->trace_max_mb * 1e6);
    cfg->observer = &ts->observer;
    *out = ts;
    return SIM_OK;
}

/* A serving run from the flags, with what its report needs. */

int64_t cli_point_serve_gpus(const cli_point_serve_state *s)
{
    return s->gpus > 0 ? s->gpus : sim_pp_gpus(&s->cfg.step);
}

void cli_point_serve_free(cli_point_serve_state *s)
{
    free(s->series);
    s->series = NULL;
    if (s->instances)
        sim_series_set_free(s->instances);
    free(s->instances);
    s->instances = NULL;
    sim_engine_result_free(&s->res);
    sim_cluster_result_free(&s->cluster);
    sim_workload_free(&s->own);
    free(s->mix_hw);
    free(s->mix_cfg);
    s->mix_hw = NULL;
    s->mix_cfg = NULL;
}

/* The timeline of several engines (--replicas, --disagg): iteration detail, no window. */
static sim_status open_cluster_trace(const cli_opts *o, int n_prefill, int instances,
                                     sim_cluster_trace **out, sim_err *err)
{
    static const cli_opt_id one_engine[] = {CLI_OPT_ID_TRACE_DETAIL, CLI_OPT_ID_TRACE_WINDOW,
                                            CLI_OPT_ID_TRACE_MAX_MB,
                                            CLI_OPT_ID_TRACE_FULL};
    for (size_t i = 0; i < sizeof one_engine / sizeof one_engine[0]; i++)
        if (cli_opt_given(o, one_engine[i]))
            return sim_fail(err, SIM_EINPUT,
                            "%s: applies to one engine's timeline; with --replicas or --disagg "
                            "the timeline has iterations only",
                            cli_opt_name(one_engine[i]));
    sim_cluster_trace *ct = calloc(1, sizeof *ct);
    if (!ct)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_status st = sim_cluster_trace_open(ct, o->chrome_trace, n_prefill, instances, err);
    if (st)
        free(ct);
    else
        *out = ct;
    return st;
}

/* --prefill-hw: the prefill instances' device, loaded into s->prefill_hw; the price of a
 * GPU-hour becomes the pools' mean, (P x prefill GPUs x its price + D x decode GPUs x the
 * decode device's) / all GPUs, unknown when either is. */
static sim_status prefill_device(const cli_opts *o, const cli_load_cache *cache,
                                 const sim_disagg_cfg *dc, cli_point_serve_state *s, sim_err *err)
{
    char path[PATH_MAX];
    cli_load_resolve_in(cache, CLI_LOAD_HW, o->prefill_hw, path, sizeof path);
    double usd = 0.0;
    sim_status st = cli_load_hw(cache, path, &s->prefill_hw, err);
    if (!st)
        st = cli_load_price(o, cache, path, &s->prefill_hw, &usd, err);
    if (st)
        return st;
    s->prefill.step.hw = &s->prefill_hw;
    const double gp = (double)dc->n_prefill * (double)sim_pp_gpus(&s->prefill.step);
    const double gd = (double)dc->n_decode * (double)sim_pp_gpus(&s->cfg.step);
    s->usd_per_gpu_hour = usd > 0.0 && s->usd_per_gpu_hour > 0.0
                              ? (gp * usd + gd * s->usd_per_gpu_hour) / (gp + gd)
                              : 0.0;
    return SIM_OK;
}

/* Loads, checks and simulates; a --chrome-trace timeline is written alongside. */
sim_status cli_point_engine(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                            uint64_t seed, sim_engine_cfg *cfg, sim_err *err)
{
    /* the files, then the cross-checks of serve's and the endpoint's flags (the option table's) */
    sim_status st = cli_load_common(o, true, L, cache, err);
    if (!st)
        st = cli_opt_check_rules(o, CLI_OPT_CMD_SERVE_EP, err);
    cli_load_engine_cfg(&L->eng, cfg);
    cfg->max_concurrency = cli_opt_given(o, CLI_OPT_ID_MAX_CONCURRENCY) ? o->max_concurrency : 0;
    cfg->seed = seed;
    cfg->swa_full_tokens_ratio = o->swa_full_tokens_ratio;
    if (!st && cli_opt_given(o, CLI_OPT_ID_SWA_FULL_TOKENS_RATIO) &&
        cfg->sched.policy != SIM_POLICY_SGLANG)
        st = sim_fail(err, SIM_EINPUT,
                      "--swa-full-tokens-ratio: SGLang's flag, but --engine %s is not SGLang; "
                      "expected it only with --engine sglang",
                      L->eng.name);
    if (!st)
        st = images_of(o, &L->model, &cfg->image_w, &cfg->image_h, err);
    if (st)
        return st;
    cfg->step = L->step;
    sim_deploy_dp_limits(cfg); /* dp x the flags' batch limits (deploy.h) */
    cfg->spec = &L->spec;
    cfg->sched.spec_tokens = sim_spec_active(&L->spec) ? L->spec.k : 0;
    return cli_point_offload_flags(o, cfg->step.hw, &cfg->offload, err);
}

/* The deployment serve runs from the flags, into s->cc and dc: the router, --autoscale, the
 * replicas' devices, the engine checked against the workload, --disagg and its prefill
 * instances, and the router's other flags. s->gpus: every GPU it holds. */
static sim_status serve_deployment(const cli_opts *o, const cli_load_result *L,
                                   const cli_load_cache *cache, cli_point_serve_state *s,
                                   sim_disagg_cfg *dc, sim_err *err)
{
    sim_cluster_cfg *cc = &s->cc;
    *cc = (sim_cluster_cfg){.engine = &s->cfg,
                            .replicas = (int)o->replicas,
                            .router = SIM_ROUTER_LEAST_OUTSTANDING,
                            .kv_overlap_weight = o->kv_overlap_weight};
    if (o->router && !sim_router_parse(o->router, &cc->router))
        return sim_fail(err, SIM_EINPUT,
                        "--router: value '%s', expected round-robin, least-outstanding, "
                        "prefix-aware or kv-aware",
                        o->router);
    s->usd_per_gpu_hour = L->usd_per_gpu_hour;
    s->gpus = sim_pp_gpus(&s->cfg.step) * cc->replicas;
    sim_status st = cli_point_autoscale_flags(o, &s->cfg.step, &cc->autoscale, err);
    if (!st && o->replica_hw)
        st = cli_point_mixed_replicas(o, cache, s, cc, err);
    if (!st && cc->autoscale.max > 0) { /* the pool; the GPUs held at most, after the run */
        cc->replicas = cc->autoscale.max;
        s->gpus = sim_pp_gpus(&s->cfg.step) * cc->replicas;
    }
    if (!st)
        st = sim_engine_check(&s->cfg, s->w, err);
    if (!st)
        st = cli_point_disagg_flags(o, dc, err);
    if (!st && cli_opt_given(o, CLI_OPT_ID_KV_OVERLAP_SCORE_WEIGHT) &&
        cc->router != SIM_ROUTER_KV_AWARE)
        st = sim_fail(err, SIM_EINPUT,
                      "--kv-overlap-score-weight: applies only with --router kv-aware");
    cc->session_affinity = o->session_affinity;
    cc->refresh_ns = llround(o->router_refresh_ms * 1e6);
    if (!st && cc->refresh_ns > 0 && (cc->replicas < 2 || dc->n_prefill > 0))
        st = sim_fail(err, SIM_EINPUT,
                      "--router-refresh-ms: applies only with --replicas N > 1 (value %g)",
                      o->router_refresh_ms);
    if (!st && o->session_affinity && (!s->w->links || cc->replicas < 2))
        st = sim_fail(err, SIM_EINPUT,
                      "--session-affinity: applies only with sessions (--sessions, or a trace's "
                      "session_id) and --replicas N > 1");
    if (st || dc->n_prefill == 0)
        return st;
    s->prefill = s->cfg;
    s->prefill.step.tp =
        cli_opt_given(o, CLI_OPT_ID_PREFILL_TP) ? (int)o->prefill_tp : s->cfg.step.tp;
    /* one front end for the client: the prefill side takes the request in, its token is not
     * streamed; the decode side takes the hand-over without it and streams every token */
    s->prefill.frontend.output_token_ns = s->prefill.frontend.chunk_ns = 0.0;
    s->cfg.frontend.request_ns = s->cfg.frontend.input_token_ns = 0.0;
    s->gpus = sim_deploy_disagg_gpus(dc);
    return o->prefill_hw ? prefill_device(o, cache, dc, s, err) : SIM_OK;
}

/* What watches a serve run: its timeline (one engine's, or every instance's), a library
 * caller's observer, the --html series. */
typedef struct serve_watch {
    sim_timeline_serve *ts; /* one engine's --chrome-trace (owned) */
    sim_cluster_trace *ct; /* several engines': their own timeline (owned) */
} serve_watch;

/* Opens what watches the run and chains it into s->cc's, dc's and s->cfg's observers. */
static sim_status serve_watch_open(const cli_opts *o, cli_point_serve_state *s, sim_disagg_cfg *dc,
                                   serve_watch *w, sim_err *err)
{
    sim_cluster_cfg *cc = &s->cc;
    const int instances = dc->n_prefill > 0 ? dc->n_prefill + dc->n_decode : cc->replicas;
    sim_status st = SIM_OK;
    if (o->chrome_trace && instances > 1)
        st = open_cluster_trace(o, dc->n_prefill, instances, &w->ct, err);
    else if (o->chrome_trace)
        st = open_serve_trace(o, &s->cfg, s->w, &w->ts, err);
    cc->observer = dc->observer = w->ct ? &w->ct->observer : NULL;
    if (!st && o->observer && (instances > 1 || o->chrome_trace))
        st = sim_fail(err, SIM_EINPUT,
                      "an engine observer watches a single engine and no timeline; expected no "
                      "--replicas, --disagg or --chrome-trace");
    if (!st && o->observer) /* an --html series chains to it */
        s->cfg.observer = o->observer;
    /* the run over time, recorded before the timeline sees it: one series per engine */
    if (!st && o->html && instances > 1) {
        if (!(s->instances = calloc(1, sizeof *s->instances)))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        else if (!(st = sim_series_set_init(s->instances, instances, cc->observer, err)))
            cc->observer = dc->observer = &s->instances->observer;
    }
    if (!st && o->html && instances == 1) {
        if (!(s->series = malloc(sizeof *s->series)))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        else
            sim_series_init(s->series, s->cfg.observer);
        if (s->series)
            s->cfg.observer = &s->series->observer;
    }
    return st;
}

/* Unchains the observers and closes the timelines: written after a run that succeeded (`st`),
 * removed after one that failed. */
static sim_status serve_watch_close(const cli_opts *o, cli_point_serve_state *s, serve_watch *w,
                                    sim_status st, sim_err *err)
{
    if (s->series) {
        s->series->next = NULL;
        s->cfg.observer = NULL;
    }
    if (s->instances) { /* one time axis for every instance's chart */
        s->instances->next = NULL;
        sim_series_set_align(s->instances);
    }
    if (w->ts) {
        const bool ran = !st;
        if (ran)
            st = sim_timeline_serve_close(w->ts, s->res.duration_ns, err);
        else
            sim_timeline_serve_abort(w->ts);
        const double over = sim_timeline_serve_over_bytes(w->ts, s->res.duration_ns);
        if (ran && over > 0.0) { /* past --trace-max-mb: the file is already removed */
            char what[96];
            serve_trace_what(o, what, sizeof what);
            st = cli_point_check_trace_size(o, over, what, err);
        }
        free(w->ts);
        s->cfg.observer = NULL;
    }
    if (w->ct) {
        if (!st && s->cluster.autoscaled)
            sim_cluster_trace_autoscale(w->ct, &s->cluster);
        if (!st)
            st = sim_cluster_trace_close(w->ct, err);
        else
            sim_cluster_trace_abort(w->ct);
        free(w->ct);
    }
    return st;
}

/* Where speculation stops paying for the workload's mean request (run.h). */
static int64_t serve_spec_break_even(const cli_point_serve_state *s)
{
    double in = 0.0, out = 0.0;
    for (size_t i = 0; i < s->w->n; i++) {
        in += (double)s->w->reqs[i].input_tokens;
        out += (double)s->w->reqs[i].output_tokens;
    }
    sim_run_cfg rc = {.step = s->cfg.step,
                      .batch = 1,
                      .input_len = (int64_t)llround(in / (double)s->w->n),
                      .output_len = (int64_t)llround(out / (double)s->w->n),
                      .spec = s->cfg.spec};
    if (rc.input_len < 1)
        rc.input_len = 1;
    if (rc.output_len < 2)
        rc.output_len = 2;
    return sim_run_spec_break_even(&rc, s->cfg.sched.max_num_seqs);
}

sim_status cli_point_serve(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                           uint64_t seed, cli_point_serve_state *s, sim_err *err)
{
    memset(s, 0, sizeof *s);
    s->w = &s->own;
    sim_disagg_cfg dc = {.prefill = &s->prefill, .decode = &s->cfg, .kv_stream = o->kv_stream};
    serve_watch w = {0};
    /* the engine, the SLO, the workload, the deployment */
    sim_status st = cli_point_engine(o, L, cache, seed, &s->cfg, err);
    if (!st && o->goodput[0])
        st = sim_slo_parse(o->goodput, &s->slo, err);
    if (!st)
        st = serve_workload(o, cache, seed, L->eng.block_size, &s->own, &s->w, err);
    if (!st)
        st = serve_deployment(o, L, cache, s, &dc, err);
    /* what watches it, the run (the pools, the replicas or the one engine), the watchers closed */
    if (!st)
        st = serve_watch_open(o, s, &dc, &w, err);
    if (!st)
        st = sim_deploy_run(&s->cc, &dc, s->w, &s->res, &s->cluster, err);
    if (!st && s->cluster.autoscaled)
        s->gpus = sim_pp_gpus(&s->cfg.step) * s->cluster.peak_held;
    st = serve_watch_close(o, s, &w, st, err);
    /* the metrics */
    if (!st && sim_metrics_compute(&s->res, &s->slo, &s->m))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory computing metrics");
    if (!st && sim_spec_active(s->cfg.spec) && s->w->n > 0)
        s->spec_break_even = serve_spec_break_even(s);
    return st;
}
