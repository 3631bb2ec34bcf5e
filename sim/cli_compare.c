/* cli_compare.c - the compare command: a measurement (vLLM --save-result or run-style JSON)
 * against the prediction for the same flags. */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_point.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "html.h"
#include "jsonf.h"
#include "strbuf.h"
#include "validate.h"

/* ------------------------------------------------------------------------------------------ */
/* compare: the run a vLLM --save-result file describes */

/* Marks a flag as given (its value set from the result file). */
static void set_given(cli_opts *o, cli_opt_id id) { o->given[id] = true; }

/* A number field of the result: *present false when missing or null; "inf" when allowed. */
static sim_status result_num(const cJSON *root, const char *file, const char *field, double min,
                             double max, bool allow_inf, double *v, bool *present, sim_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, field);
    *present = it && !cJSON_IsNull(it);
    if (!*present)
        return SIM_OK;
    if (allow_inf && ((cJSON_IsString(it) && strcmp(it->valuestring, "inf") == 0) ||
                      (cJSON_IsNumber(it) && isinf(it->valuedouble)))) {
        *v = INFINITY;
        return SIM_OK;
    }
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < min ||
        it->valuedouble > max)
        return sim_fail(err, SIM_EINPUT, "%s: field '%s' is not a number in [%g, %g]%s", file,
                        field, min, max, allow_inf ? " or \"inf\"" : "");
    *v = it->valuedouble;
    return SIM_OK;
}

static void contradiction(const cli_opts *o, cli_opt_id flag, double given, const char *file,
                          const char *field, double v)
{
    if (o->warn && given != v)
        fprintf(o->warn, "infersim: warning: %s %g contradicts %s's %s %g; using the flag\n",
                cli_opt_name(flag), given, file, field, v);
}

/* The file's value for a flag the command line did not give; a given flag wins, with a warning
 * when it disagrees. */
static void take_double(cli_opts *o, cli_opt_id flag, double *dst, double v, const char *file,
                        const char *field)
{
    if (cli_opt_given(o, flag)) {
        contradiction(o, flag, *dst, file, field, v);
        return;
    }
    *dst = v;
    set_given(o, flag);
}

static void take_int(cli_opts *o, cli_opt_id flag, int64_t *dst, double v, const char *file,
                     const char *field)
{
    if (cli_opt_given(o, flag)) {
        contradiction(o, flag, (double)*dst, file, field, v);
        return;
    }
    *dst = (int64_t)v;
    set_given(o, flag);
}

/* --save-detailed's per-request lengths: NULL when absent; whole numbers >= 1. */
static sim_status result_lens(const cJSON *root, const char *file, const char *field, int64_t **out,
                              size_t *n, sim_err *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, field);
    *out = NULL;
    if (!a || cJSON_IsNull(a))
        return SIM_OK;
    int len = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
    if (len < 1)
        return sim_fail(err, SIM_EINPUT, "%s: field '%s' is not a non-empty array of lengths", file,
                        field);
    if (*n && (size_t)len != *n)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field '%s' has %d lengths, expected %zu (as input_lens)", file, field,
                        len, *n);
    *n = (size_t)len;
    if (!(*out = malloc((size_t)len * sizeof **out)))
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    size_t k = 0;
    for (const cJSON *it = a->child; it; it = it->next, k++) {
        double v = cJSON_IsNumber(it) ? it->valuedouble : 0.0;
        if (!(v >= 1.0 && v <= (double)(1 << 26) && v == floor(v))) {
            free(*out);
            *out = NULL;
            return sim_fail(err, SIM_EINPUT,
                            "%s: field '%s' element %zu is not a whole number in [1, 67108864]",
                            file, field, k);
        }
        (*out)[k] = (int64_t)v;
    }
    return SIM_OK;
}

typedef struct result_run {
    char model[PATH_MAX];
    char engine[64];   /* --engine from the file's backend and version */
    int64_t *in, *out; /* replayed lengths (owned) */
} result_run;

/* model_id: a shipped name or path, or a Hugging Face id a model file lists. */
static sim_status result_model(const cJSON *root, const char *file, cli_opts *o, result_run *rr,
                               sim_err *err)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "model_id");
    if (!cJSON_IsString(id) || !id->valuestring[0])
        return SIM_OK;
    char path[PATH_MAX];
    cli_load_resolve(CLI_LOAD_MODEL, id->valuestring, path, sizeof path);
    bool found = access(path, F_OK) == 0;
    if (cli_opt_given(o,
                      CLI_OPT_ID_MODEL)) { /* the flag wins; say so when it names another model */
        char mine[PATH_MAX];
        cli_load_resolve(CLI_LOAD_MODEL, o->model, mine, sizeof mine);
        if (o->warn && (!found || strcmp(mine, path) != 0))
            fprintf(o->warn,
                    "infersim: warning: --model %s contradicts %s's model_id %s; using the "
                    "flag\n",
                    o->model, file, id->valuestring);
        return SIM_OK;
    }
    if (!found)
        return sim_fail(err, SIM_EINPUT,
                        "%s: model_id '%s' is no model file and no models/NAME.json lists it in "
                        "infersim_hf_ids; pass --model with a config.json or a shipped name",
                        file, id->valuestring);
    snprintf(rr->model, sizeof rr->model, "%s", path);
    o->model = rr->model;
    set_given(o, CLI_OPT_ID_MODEL);
    return SIM_OK;
}

/* The engine and release a result file names: its "backend" (vllm, sglang, sglang-oai, trt, ...:
 * the engine the benchmark talked to) and the first of "engine_version", "<engine>_version"
 * ("vllm_version", "sglang_version") and "version" that is a string (vllm bench serve
 * --metadata version=0.10.2 writes one). --engine wins, with a warning when it differs. */
static sim_status result_engine(const cJSON *root, const char *file, cli_opts *o, result_run *rr)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "backend");
    char base[64];
    if (!cJSON_IsString(b) || !sim_engprof_spec_of(b->valuestring, NULL, base, sizeof base))
        return SIM_OK; /* "openai" and the like: any server */
    char key[80];
    snprintf(key, sizeof key, "%.*s_version", (int)strcspn(base, "@-"), base);
    const char *keys[] = {"engine_version", key, "version"}, *version = NULL;
    for (size_t i = 0; i < 3 && !version; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, keys[i]);
        version = cJSON_IsString(v) ? v->valuestring : NULL;
    }
    if (!sim_engprof_spec_of(b->valuestring, version, rr->engine, sizeof rr->engine))
        return SIM_OK;
    if (cli_opt_given(o, CLI_OPT_ID_ENGINE)) {
        if (o->warn && strcmp(o->engine, rr->engine) != 0)
            fprintf(o->warn,
                    "infersim: warning: --engine %s contradicts %s's engine %s; using the "
                    "flag\n",
                    o->engine, file, rr->engine);
        return SIM_OK;
    }
    o->engine = rr->engine;
    set_given(o, CLI_OPT_ID_ENGINE);
    return SIM_OK;
}

/* Fills the serve flags the command line left out from a vLLM --save-result file: model_id, the
 * engine (backend and version), num_prompts, request_rate, burstiness, max_concurrency, and the
 * lengths (replayed exactly from --save-detailed's input_lens / output_lens, else the means of
 * total_*_tokens / completed). */
static sim_status result_workload(const cJSON *root, const char *file, cli_opts *o, result_run *rr,
                                  sim_err *err)
{
    sim_status st = result_model(root, file, o, rr, err);
    if (!st)
        st = result_engine(root, file, o, rr);
    if (st || o->trace)
        return st; /* a trace gives arrivals and lengths itself */
    static const struct {
        const char *field;
        cli_opt_id flag;
        double min, max;
        bool is_int;
    } fields[] = {{"num_prompts", CLI_OPT_ID_NUM_PROMPTS, 1, 1 << 28, true},
                  {"request_rate", CLI_OPT_ID_REQUEST_RATE, 1e-9, INFINITY, false},
                  {"burstiness", CLI_OPT_ID_BURSTINESS, 1e-3, 1e3, false},
                  {"max_concurrency", CLI_OPT_ID_MAX_CONCURRENCY, 0, 1 << 28, true}}; /* 0: none */
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        double v;
        bool present;
        if ((st = result_num(root, file, fields[i].field, fields[i].min, fields[i].max,
                             isinf(fields[i].max), &v, &present, err)))
            return st;
        if (!present || v == 0.0)
            continue;
        if (fields[i].is_int && v != floor(v))
            return sim_fail(err, SIM_EINPUT, "%s: field '%s' is %g, expected a whole number", file,
                            fields[i].field, v);
        if (fields[i].flag == CLI_OPT_ID_NUM_PROMPTS)
            take_int(o, fields[i].flag, &o->num_prompts, v, file, fields[i].field);
        else if (fields[i].flag == CLI_OPT_ID_MAX_CONCURRENCY)
            take_int(o, fields[i].flag, &o->max_concurrency, v, file, fields[i].field);
        else
            take_double(o, fields[i].flag,
                        fields[i].flag == CLI_OPT_ID_BURSTINESS ? &o->burstiness : &o->rate, v,
                        file, fields[i].field);
    }
    size_t n = 0;
    if ((st = result_lens(root, file, "input_lens", &rr->in, &n, err)) ||
        (rr->in && (st = result_lens(root, file, "output_lens", &rr->out, &n, err))))
        return st;
    bool flags = cli_opt_given(o, CLI_OPT_ID_RANDOM_INPUT_LEN) ||
                 cli_opt_given(o, CLI_OPT_ID_RANDOM_OUTPUT_LEN);
    if (rr->in && !rr->out)
        return sim_fail(err, SIM_EINPUT, "%s: field 'input_lens' without 'output_lens'", file);
    if (rr->in && !flags) {
        if ((size_t)o->num_prompts > n)
            return sim_fail(err, SIM_EINPUT,
                            "--num-prompts: value %lld, but %s has lengths for %zu requests",
                            (long long)o->num_prompts, file, n);
        o->replay_in = rr->in;
        o->replay_out = rr->out;
        return SIM_OK;
    }
    if (rr->in && o->warn)
        fprintf(o->warn,
                "infersim: warning: --random-input-len / --random-output-len contradict %s's "
                "input_lens / output_lens; using the flags\n",
                file);
    double done, tin, tout;
    bool p1, p2, p3;
    if ((st = result_num(root, file, "completed", 1, 1e12, false, &done, &p1, err)) ||
        (st = result_num(root, file, "total_input_tokens", 1, 1e18, false, &tin, &p2, err)) ||
        (st = result_num(root, file, "total_output_tokens", 1, 1e18, false, &tout, &p3, err)))
        return st;
    if (p1 && p2)
        take_int(o, CLI_OPT_ID_RANDOM_INPUT_LEN, &o->rand_in, fmax(1.0, round(tin / done)), file,
                 "total_input_tokens / completed");
    if (p1 && p3)
        take_int(o, CLI_OPT_ID_RANDOM_OUTPUT_LEN, &o->rand_out, fmax(1.0, round(tout / done)), file,
                 "total_output_tokens / completed");
    return SIM_OK;
}

/* The workload compare simulated, in two lines before its table: what it ran, and which flags it
 * took from the result file (the rest were the command line's or the defaults). */
static void describe_workload(const cli_opts *o, const bool *given, const char *file,
                              const char *engine, sim_strbuf *b)
{
    sim_strbuf_printf(b, "workload: model %s, engine %s, %lld prompts, ", o->model ? o->model : "-",
                      engine, (long long)o->num_prompts);
    if (o->trace)
        sim_strbuf_printf(b, "arrivals and lengths from trace %s", o->trace);
    else if (o->replay_in) {
        double in = 0, outl = 0;
        for (int64_t i = 0; i < o->num_prompts; i++)
            in += (double)o->replay_in[i], outl += (double)o->replay_out[i];
        sim_strbuf_printf(b,
                          "lengths per request from input_lens / output_lens (mean input %.1f, "
                          "output %.1f tokens)",
                          in / (double)o->num_prompts, outl / (double)o->num_prompts);
    } else
        sim_strbuf_printf(b, "input %lld, output %lld tokens", (long long)o->rand_in,
                          (long long)o->rand_out);
    if (!o->trace) {
        if (isinf(o->rate))
            sim_strbuf_printf(b, ", request rate inf");
        else
            sim_strbuf_printf(b, ", request rate %g/s", o->rate);
        sim_strbuf_printf(b, ", burstiness %g", o->burstiness);
    }
    if (o->max_concurrency > 0)
        sim_strbuf_printf(b, ", max concurrency %lld", (long long)o->max_concurrency);
    else
        sim_strbuf_printf(b, ", no max concurrency");
    sim_strbuf_printf(b, "\nworkload taken from %s:", file);
    size_t k = 0;
    for (size_t i = 0; i < CLI_OPT_ID_COUNT; i++)
        if (o->given[i] && !given[i])
            sim_strbuf_printf(b, "%s %s", k++ ? "," : "", cli_opt_table[i].name);
    if (o->replay_in)
        sim_strbuf_printf(b, "%s input_lens / output_lens", k++ ? "," : "");
    if (!k)
        sim_strbuf_printf(b, " nothing (all from the command line and the defaults)");
}

/* The comparison, as a table or JSON. */
static sim_status print_compare(FILE *out, sim_format fmt, const char *file, const char *engine,
                                const char *workload, const char *const *keys, const double *meas,
                                const double *pred, size_t nk)
{
    double abs_err[16];
    size_t m = 0;
    cJSON *root = fmt == SIM_FMT_JSON ? cJSON_CreateObject() : NULL;
    cJSON *arr = root ? cJSON_AddArrayToObject(root, "metrics") : NULL;
    if (fmt == SIM_FMT_JSON && (!root || !arr)) {
        cJSON_Delete(root);
        return SIM_EINTERNAL;
    }
    if (!root && workload)
        fprintf(out, "%s\n", workload);
    if (!root)
        fprintf(out, "%-22s %14s %14s %9s\n", "metric", "measured", "predicted", "error");
    for (size_t k = 0; k < nk; k++) {
        bool has = meas[k] > 0.0;
        double e = has ? sim_validate_error_pct(pred[k], meas[k]) : 0.0;
        if (has)
            abs_err[m++] = fabs(e);
        if (root) {
            cJSON *it = cJSON_CreateObject();
            cJSON_AddItemToArray(arr, it);
            cJSON_AddStringToObject(it, "metric", keys[k]);
            if (meas[k] >= 0.0)
                cJSON_AddNumberToObject(it, "measured", meas[k]);
            else
                cJSON_AddNullToObject(it, "measured");
            cJSON_AddNumberToObject(it, "predicted", pred[k]);
            if (has)
                cJSON_AddNumberToObject(it, "error_pct", e);
            else
                cJSON_AddNullToObject(it, "error_pct");
        } else if (meas[k] < 0.0) { /* not in the file */
            fprintf(out, "%-22s %14s %14.4g\n", keys[k], "-", pred[k]);
        } else if (!has) { /* measured 0: no relative error to take */
            fprintf(out, "%-22s %14.4g %14.4g %9s\n", keys[k], 0.0, pred[k], "n/a");
        } else {
            fprintf(out, "%-22s %14.4g %14.4g %+8.1f%%\n", keys[k], meas[k], pred[k], e);
        }
    }
    double med, p90;
    sim_validate_summary(abs_err, m, &med, &p90);
    if (!root) {
        fprintf(out,
                "compare: %zu metrics, median |error| %.1f%%, worst within p90 %.1f%% (engine "
                "profile %s)\n",
                m, med, p90, engine);
        return SIM_OK;
    }
    cJSON_AddStringToObject(root, "result", file);
    cJSON_AddStringToObject(root, "engine", engine);
    cJSON_AddNumberToObject(root, "metrics_compared", (double)m);
    cJSON_AddNumberToObject(root, "median_abs_error_pct", med);
    cJSON_AddNumberToObject(root, "p90_abs_error_pct", p90);
    char *txt = cJSON_Print(root);
    cJSON_Delete(root);
    if (!txt)
        return SIM_EINTERNAL;
    fprintf(out, "%s\n", txt);
    free(txt);
    return SIM_OK;
}

void cli_compare_help(FILE *f, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("usage: infersim compare --result FILE.json [the run or serve flags of the measurement]\n"
          "  --result S                 a vLLM --save-result file (mean_ttft_ms, ...: compared "
          "with\n"
          "                             'infersim serve') or a run-style JSON (ttft_ms, ...: "
          "'infersim\n"
          "                             run'); the other flags are those commands' flags\n",
          f);
}

/* compare --result FILE [run or serve flags]: a measurement against the prediction. A vLLM
 * --save-result file also says what it measured: the flags it implies are taken from it. */
sim_status cli_compare_cmd(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    const char *result = NULL;
    char **rest = malloc((size_t)argc * sizeof *rest);
    if (!rest)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    int nrest = 0;
    rest[nrest++] = argv[0];
    rest[nrest++] = argv[1];
    bool twice = false;
    for (int i = 2; i < argc; i++) {
        const char *prev = result;
        if (strcmp(argv[i], "--result") == 0 && i + 1 < argc)
            result = argv[++i];
        else if (strncmp(argv[i], "--result=", 9) == 0)
            result = argv[i] + 9;
        else
            rest[nrest++] = argv[i];
        twice |= prev && result != prev;
    }
    if (twice) {
        free(rest);
        return sim_fail(err, SIM_EINPUT, "--result: given twice, expected once");
    }
    cJSON *root = NULL;
    sim_status st = result ? sim_jsonf_load(result, &root, err)
                           : sim_fail(err, SIM_EINPUT, "compare: missing --result FILE.json");
    /* a vLLM --save-result file has mean_ttft_ms; a run-style one has ttft_ms */
    bool serve = root && cJSON_GetObjectItemCaseSensitive(root, "mean_ttft_ms");
    static const char *const serve_keys[] = {
        "mean_ttft_ms",       "median_ttft_ms",   "p99_ttft_ms",    "mean_tpot_ms",
        "median_tpot_ms",     "p99_tpot_ms",      "mean_itl_ms",    "median_itl_ms",
        "p99_itl_ms",         "mean_e2el_ms",     "median_e2el_ms", "p99_e2el_ms",
        "request_throughput", "output_throughput"};
    static const char *const run_keys[] = {"ttft_ms", "tpot_ms", "e2e_ms", "output_throughput"};
    /* the measurements, read before simulating: a missing key is not measured (shown as "-"), a
     * present one must be a number in [0, 1e15]; a file with none above 0 is not a result */
    size_t nk = serve ? 14 : 4;
    double meas[14];
    size_t found = 0;
    for (size_t k = 0; !st && k < nk; k++) {
        const char *key = serve ? serve_keys[k] : run_keys[k];
        st = sim_jsonf_num_opt(root, result, key, 0.0, 1e15, -1.0, &meas[k], err);
        /* a tiny measurement would make the relative error overflow to inf */
        if (!st && meas[k] > 0.0 && meas[k] < SIM_VALIDATE_MIN_MEASURED)
            st = sim_fail(err, SIM_EINPUT,
                          "%s: field '%s' is %.17g, expected 0 (not measured) or a number in "
                          "[%g, %g]",
                          result, key, meas[k], SIM_VALIDATE_MIN_MEASURED, 1e15);
        found += !st && meas[k] > 0.0;
    }
    if (!st && found == 0)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: none of the fields ttft_ms, tpot_ms, e2e_ms, output_throughput (a run "
                      "result) or mean_ttft_ms, ... (a vLLM --save-result file) is above 0, "
                      "expected at least one measured metric",
                      result);
    cli_opts o = cli_opt_defaults;
    o.warn = errf;
    result_run rr = {.in = NULL, .out = NULL};
    if (!st)
        st = cli_opt_parse(nrest, rest, 2, serve ? "serve" : "run",
                           serve ? CLI_OPT_CMD_SERVE : CLI_OPT_CMD_RUN, CLI_OPT_ID_NONE, &o, err);
    if (!st)
        st = cli_opt_check_outputs(&o, err);
    bool given[sizeof o.given / sizeof o.given[0]]; /* the flags the command line gave */
    memcpy(given, o.given, sizeof given);
    if (!st && serve)
        st = result_workload(root, result, &o, &rr, err);
    cli_load_result *L = calloc(1, sizeof *L);
    cli_point_serve_state *s = calloc(1, sizeof *s);
    sim_run_result *r = calloc(1, sizeof *r);
    if (!st && (!L || !s || !r))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    double pred[14] = {0};
    if (!st && serve) {
        st = cli_point_serve(&o, L, NULL, (uint64_t)o.seed, s, err);
        if (!st) {
            const sim_dist *d = s->m.dist;
            const double v[14] = {d[SIM_M_TTFT].mean,      d[SIM_M_TTFT].median,  d[SIM_M_TTFT].p99,
                                  d[SIM_M_TPOT].mean,      d[SIM_M_TPOT].median,  d[SIM_M_TPOT].p99,
                                  d[SIM_M_ITL].mean,       d[SIM_M_ITL].median,   d[SIM_M_ITL].p99,
                                  d[SIM_M_E2EL].mean,      d[SIM_M_E2EL].median,  d[SIM_M_E2EL].p99,
                                  s->m.request_throughput, s->m.output_throughput};
            memcpy(pred, v, sizeof v);
        }
    } else if (!st) {
        sim_run_cfg cfg;
        st = cli_point_run(&o, L, NULL, &cfg, r, err);
        if (!st) {
            pred[0] = r->ttft_ns / 1e6;
            pred[1] = r->tpot_ns / 1e6;
            pred[2] = r->e2e_ns / 1e6;
            pred[3] = r->output_throughput;
        }
    }
    if (!st && o.html) { /* the page first: a failed one leaves no half output */
        char *cmdline = cli_opt_cmdline(argc, argv);
        st = cmdline ? sim_html_compare(o.html, cmdline, result, serve ? serve_keys : run_keys,
                                        meas, pred, nk, err)
                     : sim_fail(err, SIM_EINTERNAL, "out of memory");
        free(cmdline);
    }
    sim_strbuf wl = {0};
    if (!st && serve)
        describe_workload(&o, given, result, L->eng.name, &wl);
    if (!st && (wl.oom || print_compare(out, L->fmt, result, L->eng.name, wl.s,
                                        serve ? serve_keys : run_keys, meas, pred, nk)))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory writing the comparison");
    if (s)
        cli_point_serve_free(s);
    free(s);
    free(r);
    free(L);
    free(rr.in);
    free(rr.out);
    sim_strbuf_free(&wl);
    cJSON_Delete(root);
    free(rest);
    return st;
}
