/* cli_serve.c - the serve command and vLLM's --save-result file. */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_point.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "html.h"
#include "outfile.h"

/* Python's str() of a float, as vLLM's file name holds the request rate: "inf", "10.0", "2.5". */
static void py_float(double v, char *buf, size_t len)
{
    if (isinf(v)) {
        snprintf(buf, len, "inf");
        return;
    }
    snprintf(buf, len, "%.15g", v);
    if (!strpbrk(buf, ".e"))
        snprintf(buf + strlen(buf), len - strlen(buf), ".0");
}

/* Creates every folder of `dir` that is missing (vLLM's os.makedirs(exist_ok=True)). */
static sim_status make_dirs(const char *dir, sim_err *err)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return sim_fail(err, SIM_EINPUT, "--result-dir: path too long");
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p)
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return sim_fail(err, SIM_EINPUT, "--result-dir: cannot create %s: %s", buf,
                            strerror(errno));
        if (!c)
            return SIM_OK;
        *p = c;
    }
}

/* vLLM's --save-result: its file name (or --result-filename) in --result-dir, its JSON. */
static sim_status save_vllm_result(const cli_opts *o, const sim_serve_report *rep, sim_err *err)
{
    char date[32], rate[64], name[PATH_MAX], path[PATH_MAX * 2];
    time_t now = time(NULL);
    struct tm tm;
    if (!localtime_r(&now, &tm) || !strftime(date, sizeof date, "%Y%m%d-%H%M%S", &tm))
        snprintf(date, sizeof date, "19700101-000000");
    const char *backend = o->backend ? o->backend : "openai";
    const char *base = strrchr(o->model, '/') ? strrchr(o->model, '/') + 1 : o->model;
    py_float(o->rate, rate, sizeof rate);
    if (o->result_filename)
        snprintf(name, sizeof name, "%s", o->result_filename);
    else if (o->max_concurrency > 0 && cli_opt_given(o, CLI_OPT_ID_MAX_CONCURRENCY))
        snprintf(name, sizeof name, "%s-%sqps-concurrency%lld-%s-%s.json",
                 o->label ? o->label : backend, rate, (long long)o->max_concurrency, base, date);
    else
        snprintf(name, sizeof name, "%s-%sqps-%s-%s.json", o->label ? o->label : backend, rate,
                 base, date);
    sim_status st = o->result_dir ? make_dirs(o->result_dir, err) : SIM_OK;
    if (st)
        return st;
    /* "-" is a file of that name here, as in vLLM, not standard output */
    snprintf(path, sizeof path, "%s%s%s", o->result_dir ? o->result_dir : "",
             o->result_dir ? "/" : strcmp(name, "-") == 0 ? "./" : "", name);
    sim_vllm_meta meta = {
        .backend = backend,
        .model_id = o->model,
        .tokenizer_id = o->tokenizer ? o->tokenizer : o->model,
        .date = date,
        .num_prompts = (int64_t)rep->w->n,
        .request_rate = rep->request_rate,
        .burstiness = o->burstiness,
        .max_concurrency = cli_opt_given(o, CLI_OPT_ID_MAX_CONCURRENCY) ? o->max_concurrency : 0};
    /* staged with the command's other outputs (cli.c): published with them, or none */
    if (o->late_stage && (st = sim_outfile_stage_open(o->late_stage, path, "--save-result", err)))
        return st;
    return sim_report_vllm_result(o->late_stage ? o->late_stage->staged : path, rep, &meta, err);
}

/* vLLM's flags that only make sense together, and its datasets. */
static sim_status check_vllm_flags(const cli_opts *o, sim_err *err)
{
    /* --dataset-name: the workload checks it (cli_point.c: vLLM's synthetic ones, or a public
     * dataset's lengths from tools/data/datasets.json) */
    if (!o->save_result && (o->result_dir || o->result_filename))
        return sim_fail(err, SIM_EINPUT, "%s: needs --save-result",
                        o->result_dir ? "--result-dir" : "--result-filename");
    return SIM_OK;
}

sim_status cli_serve_cmd(const cli_opts *o, FILE *out, sim_err *err)
{
    cli_load_result *L = calloc(1, sizeof *L);
    cli_point_serve_state *s = calloc(1, sizeof *s);
    sim_pct_values *saved = calloc(1, sizeof *saved);
    if (!L || !s || !saved) {
        free(L);
        free(s);
        free(saved);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    /* printed: every metric at p90 and p99 unless vLLM's two flags say otherwise; saved: what
     * vLLM saves (its defaults ttft,tpot,itl at p99 unless the flags say otherwise) */
    bool pick = o->percentile_metrics || o->metric_percentiles;
    sim_pct_sel sel;
    sim_status st = check_vllm_flags(o, err);
    if (!st)
        st = sim_pct_sel_parse(o->percentile_metrics, o->metric_percentiles, &sel, err);
    cli_point_draws draws = {0};
    if (!st)
        st = cli_point_serve(o, L, NULL, (uint64_t)o->seed, s, err);
    if (!st)
        st = cli_point_serve_band(o, L, s, &draws, err);
    if (!st) {
        cli_point_warn_capacity(&draws, o->warn);
        cli_point_warn_provenance(&draws, s->cfg.step.hw, o->warn);
    }
    if (!st && (pick || o->save_result) && sim_metrics_selected(&s->res, &sel, saved))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory computing percentiles");
    sim_serve_report rep = {.cfg = &s->cfg,
                            .w = s->w,
                            .res = &s->res,
                            .m = &s->m,
                            .request_rate = o->trace || o->rate_schedule ? NAN : o->rate,
                            .engine = L->eng.name,
                            .engine_version = L->eng.version,
                            .engine_fusions = L->eng.fusions,
                            .engine_rules = L->eng.chosen,
                            .usd_per_gpu_hour = s->usd_per_gpu_hour,
                            .gpus = s->gpus,
                            .cluster = &s->cluster,
                            .pct = &sel,
                            .pct_ms = saved,
                            .band = &draws.band,
                            .capacity_rps = draws.capacity_rps,
                            .capacity_lo = draws.capacity_lo,
                            .capacity_hi = draws.capacity_hi,
                            .offered_rps = draws.offered_rps,

                            .spec_break_even_batch = s->spec_break_even};
    /* the staged outputs first (cli.c publishes them once the command succeeded), vLLM's result
     * file, named only here, last: a failure before it leaves no file at all */
    sim_serve_report shown = rep;
    if (!pick)
        shown.pct = NULL, shown.pct_ms = NULL;
    if (!st && o->save_requests)
        st = sim_report_save_requests(o->save_requests, &rep, err);
    if (!st && o->html)
        st = sim_html_serve(o->html, o->cmdline ? o->cmdline : "infersim serve", &shown, &s->slo,
                            s->series, s->instances, err);
    if (!st && o->save_result) { /* vLLM's file: its keys only */
        sim_serve_report plain = rep;
        plain.band = NULL;
        st = save_vllm_result(o, &plain, err);
    }
    rep = shown;
    if (!st && (st = sim_report_serve(out, L->fmt, &rep)))
        sim_fail(err, st, "writing the result failed");
    cli_point_draws_free(&draws);
    cli_point_serve_free(s);
    free(s);
    free(L);
    free(saved);
    return st;
}
