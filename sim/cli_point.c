/* cli_point.c - one run or serve computation from the flags (the commands, sweep and compare). */
#define _POSIX_C_SOURCE 200809L
#include "cli_point.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_trace.h"
#include "find.h"
#include "pp.h"
#include "trace_serve.h"
#include "lenfile.h"

/* Refuses a timeline estimated past --trace-max-mb, before a byte of it is written. */
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
    sim_status st = cli_load_common(o, true, L, cache, err);
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
        sim_run_simulate(cfg, r);
        st = sim_run_check_result(r, err);
    }
    return st;
}

bool cli_point_public_dataset(const cli_opts *o)
{
    return o->dataset_name && strcmp(o->dataset_name, "random") != 0 &&
           strcmp(o->dataset_name, "prefix_repetition") != 0;
}

sim_status cli_point_dataset(const cli_opts *o, const cli_load_cache *cache, sim_dataset *ds,
                             sim_err *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "tools/data/datasets.json");
    cli_load_data_in(cache, "datasets.json", path, sizeof path);
    return sim_dataset_load(path, o->dataset_name, ds, err);
}

/* The workload of a serve command: a trace, or vLLM's random or prefix_repetition dataset. */
static sim_status check_workload_flags(const cli_opts *o, sim_err *err)
{
    static const char *const repetition[] = {
        "--prefix-repetition-prefix-len", "--prefix-repetition-suffix-len",
        "--prefix-repetition-num-prefixes", "--prefix-repetition-output-len"};
    static const char *const random_only[] = {"--random-input-len", "--random-output-len",
                                              "--random-range-ratio"};
    bool rep = o->dataset_name && strcmp(o->dataset_name, "prefix_repetition") == 0;
    if (cli_point_public_dataset(o))
        for (size_t i = 0; i < sizeof random_only / sizeof random_only[0]; i++)
            if (cli_opt_given(o, random_only[i]))
                return sim_fail(err, SIM_EINPUT,
                                "%s: does not apply to --dataset-name %s (its lengths come from "
                                "the dataset's fit: infersim workload --dataset-name %s)",
                                random_only[i], o->dataset_name, o->dataset_name);
    for (size_t i = 0; i < sizeof repetition / sizeof repetition[0]; i++)
        if (!rep && cli_opt_given(o, repetition[i]))
            return sim_fail(err, SIM_EINPUT, "%s: needs --dataset-name prefix_repetition",
                            repetition[i]);
    for (size_t i = 0; i < sizeof random_only / sizeof random_only[0]; i++)
        if (rep && cli_opt_given(o, random_only[i]))
            return sim_fail(err, SIM_EINPUT,
                            "%s: does not apply to --dataset-name prefix_repetition (use "
                            "--prefix-repetition-* for its lengths)",
                            random_only[i]);
    if (cli_opt_given(o, "--random-range-floor") && cli_opt_given(o, "--random-range-ratio"))
        return sim_fail(err, SIM_EINPUT,
                        "--random-range-floor: expected it or --random-range-ratio, not both");
    if (cli_opt_given(o, "--sharegpt-output-len") && !cli_point_public_dataset(o))
        return sim_fail(err, SIM_EINPUT,
                        "--sharegpt-output-len: needs a public dataset's --dataset-name "
                        "(sharegpt, ...); with random use --random-output-len");
    if (o->lengths_file) {
        static const char *const other[] = {"--trace", "--dataset-name", "--random-input-len",
                                            "--random-output-len", "--random-range-ratio",
                                            "--random-range-floor"};
        for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
            if (cli_opt_given(o, other[i]))
                return sim_fail(err, SIM_EINPUT,
                                "%s: does not apply to --lengths-file (the file gives every "
                                "request's lengths)",
                                other[i]);
    }
    static const char *const synthetic_only[] = {"--random-input-len",   "--random-output-len",
                                                 "--random-range-ratio", "--request-rate",
                                                 "--burstiness",         "--seed",
                                                 "--dataset-name"};
    if (o->trace) {
        for (size_t i = 0; i < sizeof synthetic_only / sizeof synthetic_only[0]; i++)
            if (cli_opt_given(o, synthetic_only[i]))
                return sim_fail(err, SIM_EINPUT,
                                "%s: does not apply to --trace (the trace gives arrivals and "
                                "lengths; use --time-scale to replay it faster or slower)",
                                synthetic_only[i]);
        return SIM_OK;
    }
    if (cli_opt_given(o, "--time-scale"))
        return sim_fail(err, SIM_EINPUT, "--time-scale: applies only to --trace");
    return SIM_OK;
}

/* --sessions N --turns-per-session D --think-time-s DIST (workload.h sim_workload_sessions):
 * its hash ids name blocks of the engine's block size, at least 16 tokens, as
 * prefix_repetition's. */
static sim_status session_workload(const cli_opts *o, uint64_t seed, int64_t block_size,
                                   sim_workload *own, sim_err *err)
{
    static const char *const single[] = {"--trace", "--dataset-name", "--num-prompts"};
    for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
        if (cli_opt_given(o, single[i]))
            return sim_fail(err, SIM_EINPUT,
                            "%s with --sessions: expected one workload (--sessions N makes N x "
                            "--turns-per-session requests)",
                            single[i]);
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
    if (!cli_opt_given(o, "--sessions") &&
        (cli_opt_given(o, "--turns-per-session") || o->think_time))
        return sim_fail(err, SIM_EINPUT, "%s: applies only with --sessions N",
                        o->think_time ? "--think-time-s" : "--turns-per-session");
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
    if (cli_opt_given(o, "--sessions"))
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
    if (cli_opt_given(o, "--random-range-floor"))
        s.range_floor_on = true, s.range_floor = o->range_floor;
    if (o->lengths_file) {
        /* every request's lengths from the file, the arrivals as a synthetic stream's */
        cli_load_resolve_in(cache, CLI_LOAD_TRACE, o->lengths_file, path, sizeof path);
        sim_lenfile f;
        sim_status lst = sim_lenfile_load(path, cli_opt_trace_limit(o), &f, err);
        if (lst)
            return lst;
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
        /* --sharegpt-output-len N: every output N tokens (the fit clipped to [N, N]) */
        if (cli_opt_given(o, "--sharegpt-output-len"))
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

/* The timeline's estimated size: a first pass of the simulation (deterministic, so the second
 * pass repeats it exactly) counts the iterations, requests and preemptions inside the window. */
static sim_status serve_trace_size(const cli_opts *o, const sim_engine_cfg *cfg,
                                   const sim_workload *w, sim_trace_detail detail, int64_t w0,
                                   int64_t w1, sim_err *err)
{
    sim_engine_cfg quiet = *cfg;
    quiet.observer = NULL;
    sim_engine_result res;
    sim_status st = sim_engine_run(&quiet, w, &res, err);
    if (st)
        return st;
    double dur = (double)res.duration_ns;
    double end = w1 < 0 || (double)w1 > dur ? dur : (double)w1;
    double frac = dur > 0.0 ? fmax(0.0, end - (double)w0) / dur : 1.0;
    double est =
        sim_trace_serve_estimate_bytes(detail, &cfg->step, frac * (double)res.iterations,
                                       frac * (double)res.n, frac * (double)res.preemptions);
    sim_engine_result_free(&res);
    if (est < 0.0)
        return sim_fail(err, SIM_EINTERNAL, "out of memory estimating the timeline");
    char what[96];
    snprintf(what, sizeof what, "the serve timeline at --trace-detail %s",
             o->trace_detail ? o->trace_detail : "iteration");
    return cli_point_check_trace_size(o, est, what, err);
}

static sim_status open_serve_trace(const cli_opts *o, sim_engine_cfg *cfg, const sim_workload *w,
                                   sim_trace_serve **out, sim_err *err)
{
    sim_trace_detail detail = SIM_TRACE_ITERATION;
    int64_t w0 = 0, w1 = -1;
    if (o->trace_detail && !sim_trace_detail_parse(o->trace_detail, &detail))
        return sim_fail(err, SIM_EINPUT,
                        "--trace-detail: value '%s', expected iteration, layer "
                        "or op",
                        o->trace_detail);
    sim_status st = o->trace_window ? parse_window(o->trace_window, &w0, &w1, err) : SIM_OK;
    if (!st)
        st = serve_trace_size(o, cfg, w, detail, w0, w1, err);
    if (st)
        return st;
    sim_trace_serve *ts = calloc(1, sizeof *ts);
    if (!ts)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    if ((st = sim_trace_serve_open(ts, o->chrome_trace, detail, w0, w1, w->n, &cfg->step, err))) {
        free(ts);
        return st;
    }
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
    sim_engine_result_free(&s->res);
    sim_cluster_result_free(&s->cluster);
    sim_workload_free(&s->own);
}

/* The timeline of several engines (--replicas, --disagg): iteration detail, no window. */
static sim_status open_cluster_trace(const cli_opts *o, int n_prefill, int instances,
                                     sim_cluster_trace **out, sim_err *err)
{
    static const char *const one_engine[] = {"--trace-detail", "--trace-window", "--trace-max-mb"};
    for (size_t i = 0; i < sizeof one_engine / sizeof one_engine[0]; i++)
        if (cli_opt_given(o, one_engine[i]))
            return sim_fail(err, SIM_EINPUT,
                            "%s: applies to one engine's timeline; with --replicas or --disagg "
                            "the timeline has iterations only",
                            one_engine[i]);
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

/* --disagg P:D (with its companions) into dc; n_prefill stays 0 without it. */
static sim_status disagg_flags(const cli_opts *o, sim_disagg_cfg *dc, sim_err *err)
{
    if (!o->disagg) {
        if (cli_opt_given(o, "--prefill-tp") || o->kv_stream)
            return sim_fail(err, SIM_EINPUT, "%s: applies only with --disagg P:D",
                            o->kv_stream ? "--kv-stream" : "--prefill-tp");
        return SIM_OK;
    }
    char *end;
    errno = 0;
    long p = strtol(o->disagg, &end, 10), d = 0;
    bool ok = end != o->disagg && *end == ':' && !errno;
    if (ok) {
        const char *q = end + 1;
        d = strtol(q, &end, 10);
        ok = end != q && !*end && !errno;
    }
    if (!ok || p < 1 || d < 1 || p + d > SIM_CLUSTER_MAX_REPLICAS)
        return sim_fail(err, SIM_EINPUT,
                        "--disagg: value '%s', expected P:D prefill and decode instances, each "
                        ">= 1, P + D <= %d",
                        o->disagg, SIM_CLUSTER_MAX_REPLICAS);
    if (o->replicas > 1)
        return sim_fail(err, SIM_EINPUT,
                        "--replicas with --disagg: expected one of them (--disagg P:D gives the "
                        "instance counts)");
    dc->n_prefill = (int)p;
    dc->n_decode = (int)d;
    return SIM_OK;
}

/* --kv-offload cpu:GB[,disk:GB] and --kv-offload-write into the engine's lower KV tiers, read
 * at the device file's host link (engine.h sim_engine_offload): DRAM at host_link x its
 * efficiency, disk at the slower of the drive and that link, each with its latency. */
static sim_status offload_flags(const cli_opts *o, const sim_hw *hw, sim_engine_offload *off,
                                sim_err *err)
{
    memset(off, 0, sizeof *off);
    off->write_through = true;
    if (o->kv_offload_write) {
        if (strcmp(o->kv_offload_write, "evict") == 0)
            off->write_through = false;
        else if (strcmp(o->kv_offload_write, "through") != 0)
            return sim_fail(err, SIM_EINPUT,
                            "--kv-offload-write: value '%s', expected through or evict",
                            o->kv_offload_write);
        if (!o->kv_offload)
            return sim_fail(err, SIM_EINPUT, "--kv-offload-write: applies only with --kv-offload");
    }
    if (!o->kv_offload)
        return SIM_OK;
    static const char *const names[SIM_KVTIER_LOWER] = {"cpu", "disk"};
    const char *p = o->kv_offload;
    bool seen[SIM_KVTIER_LOWER] = {false};
    while (*p) {
        int t = strncmp(p, "cpu:", 4) == 0 ? 0 : strncmp(p, "disk:", 5) == 0 ? 1 : -1;
        char *end = NULL;
        double gb = -1.0;
        if (t >= 0) {
            errno = 0;
            const char *num = p + strlen(names[t]) + 1;
            gb = strtod(num, &end);
            if (end == num || errno || strpbrk(num, "xX") || (*end && *end != ','))
                gb = -1.0;
        }
        if (t < 0 || !(gb > 0.0 && gb <= 1e6) || seen[t])
            return sim_fail(err, SIM_EINPUT,
                            "--kv-offload: value '%s', expected cpu:GB[,disk:GB] (each tier once, "
                            "0 < GB <= 1e6)",
                            o->kv_offload);
        seen[t] = true;
        off->bytes[t] = gb * 1e9;
        p = *end ? end + 1 : end;
    }
    const double link = hw->host_link_bytes_per_s * hw->eff_host_link;
    off->read_bytes_per_s[0] = link;
    off->latency_ns[0] = hw->host_link_latency_ns;
    off->read_bytes_per_s[1] = hw->host_disk_bytes_per_s < link ? hw->host_disk_bytes_per_s : link;
    off->latency_ns[1] = hw->host_disk_latency_ns + hw->host_link_latency_ns;
    return SIM_OK;
}

/* Loads, checks and simulates; a --chrome-trace timeline is written alongside. */
sim_status cli_point_serve(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                           uint64_t seed, cli_point_serve_state *s, sim_err *err)
{
    memset(s, 0, sizeof *s);
    s->w = &s->own;
    if (!o->chrome_trace &&
        (o->trace_detail || o->trace_window || cli_opt_given(o, "--trace-max-mb")))
        return sim_fail(err, SIM_EINPUT, "%s: needs --chrome-trace FILE",
                        o->trace_detail   ? "--trace-detail"
                        : o->trace_window ? "--trace-window"
                                          : "--trace-max-mb");
    sim_status st = cli_load_common(o, true, L, cache, err);
    cli_load_engine_cfg(&L->eng, &s->cfg);
    s->cfg.max_concurrency = cli_opt_given(o, "--max-concurrency") ? o->max_concurrency : 0;
    s->cfg.seed = seed;
    if (!st && o->goodput[0])
        st = sim_slo_parse(o->goodput, &s->slo, err);
    s->cfg.swa_full_tokens_ratio = o->swa_full_tokens_ratio;
    if (!st && cli_opt_given(o, "--swa-full-tokens-ratio") && s->cfg.sched.policy != SIM_POLICY_SGLANG)
        st = sim_fail(err, SIM_EINPUT,
                      "--swa-full-tokens-ratio: SGLang's flag, but --engine %s is not SGLang; "
                      "expected it only with --engine sglang",
                      L->eng.name);
    if (!st)
        st = images_of(o, &L->model, &s->cfg.image_w, &s->cfg.image_h, err);
    if (!st)
        st = serve_workload(o, cache, seed, L->eng.block_size, &s->own, &s->w, err);
    sim_cluster_cfg cc = {
        .engine = &s->cfg, .replicas = (int)o->replicas, .router = SIM_ROUTER_LEAST_OUTSTANDING,
        .kv_overlap_weight = o->kv_overlap_weight};
    if (!st && o->router && !sim_router_parse(o->router, &cc.router))
        st = sim_fail(err, SIM_EINPUT,
                      "--router: value '%s', expected round-robin, least-outstanding, "
                      "prefix-aware or kv-aware",
                      o->router);
    if (!st) {
        s->usd_per_gpu_hour = L->usd_per_gpu_hour;
        s->cfg.step = L->step;
        /* each of vLLM's data-parallel engines has its own batch limits: the replica's scheduler
         * gets dp times the flags' */
        sim_par par = sim_step_par(&s->cfg.step);
        s->cfg.sched.max_num_seqs *= sim_par_dp(&par);
        s->cfg.sched.max_num_batched_tokens *= sim_par_dp(&par);
        s->cfg.spec = &L->spec;
        s->cfg.sched.spec_tokens = sim_spec_active(&L->spec) ? L->spec.k : 0;
        s->gpus = sim_pp_gpus(&s->cfg.step) * cc.replicas;
        st = offload_flags(o, s->cfg.step.hw, &s->cfg.offload, err);
        if (!st)
            st = sim_engine_check(&s->cfg, s->w, err);
    }
    sim_disagg_cfg dc = {.prefill = &s->prefill, .decode = &s->cfg, .kv_stream = o->kv_stream};
    if (!st)
        st = disagg_flags(o, &dc, err);
    if (!st && cli_opt_given(o, "--kv-overlap-score-weight") && cc.router != SIM_ROUTER_KV_AWARE)
        st = sim_fail(err, SIM_EINPUT,
                      "--kv-overlap-score-weight: applies only with --router kv-aware");
    cc.session_affinity = o->session_affinity;
    if (!st && o->session_affinity && (!s->w->links || cc.replicas < 2))
        st = sim_fail(err, SIM_EINPUT,
                      "--session-affinity: applies only with --sessions and --replicas N > 1");
    if (!st && s->w->links && dc.n_prefill > 0)
        st = sim_fail(err, SIM_EINPUT,
                      "--sessions with --disagg: a session's turns over prefill and decode pools "
                      "are not modeled yet; expected one of them");
    sim_trace_serve *ts = NULL;
    sim_cluster_trace *ct = NULL; /* several engines: their own timeline */
    const int instances = dc.n_prefill > 0 ? dc.n_prefill + dc.n_decode : cc.replicas;
    if (!st && o->chrome_trace && instances > 1)
        st = open_cluster_trace(o, dc.n_prefill, instances, &ct, err);
    else if (!st && o->chrome_trace)
        st = open_serve_trace(o, &s->cfg, s->w, &ts, err);
    cc.observer = dc.observer = ct ? &ct->observer : NULL;
    /* the run over time, recorded before the timeline sees it; several engines' pages show
     * each instance's load instead (one series cannot hold interleaved engines) */
    if (!st && o->html && instances == 1) {
        if (!(s->series = malloc(sizeof *s->series)))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        else
            sim_series_init(s->series, s->cfg.observer);
        if (s->series)
            s->cfg.observer = &s->series->observer;
    }
    if (!st && dc.n_prefill > 0) {
        s->prefill = s->cfg;
        s->prefill.step.tp = cli_opt_given(o, "--prefill-tp") ? (int)o->prefill_tp : s->cfg.step.tp;
        /* one front end for the client: the prefill side takes the request in, its token is not
         * streamed; the decode side takes the hand-over without it and streams every token */
        s->prefill.frontend.output_token_ns = s->prefill.frontend.chunk_ns = 0.0;
        s->cfg.frontend.request_ns = s->cfg.frontend.input_token_ns = 0.0;
        s->gpus =
            dc.n_prefill * sim_pp_gpus(&s->prefill.step) + dc.n_decode * sim_pp_gpus(&s->cfg.step);
        if (!(st = sim_disagg_check(&dc, s->w, err)))
            st = sim_disagg_run(&dc, s->w, &s->res, &s->cluster, err);
    } else if (!st && cc.replicas > 1 && !(st = sim_cluster_check(&cc, s->w, err))) {
        st = sim_cluster_run(&cc, s->w, &s->res, &s->cluster, err);
    } else if (!st) {
        st = sim_engine_run(&s->cfg, s->w, &s->res, err);
    }
    if (s->series) {
        s->series->next = NULL;
        s->cfg.observer = NULL;
    }
    if (ts) {
        if (!st)
            st = sim_trace_serve_close(ts, s->res.duration_ns, err);
        else
            sim_trace_serve_abort(ts);
        free(ts);
        s->cfg.observer = NULL;
    }
    if (ct) {
        if (!st)
            st = sim_cluster_trace_close(ct, err);
        else
            sim_cluster_trace_abort(ct);
        free(ct);
    }
    if (!st && sim_metrics_compute(&s->res, &s->slo, &s->m))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory computing metrics");
    if (!st && sim_spec_active(s->cfg.spec) && s->w->n > 0) {
        /* where speculation stops paying for this workload's mean request (run.h) */
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
        s->spec_break_even = sim_run_spec_break_even(&rc, s->cfg.sched.max_num_seqs);
    }
    return st;
}
