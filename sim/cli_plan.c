/* cli_plan.c - the plan command: for a target request rate under an SLO, every deployment of each
 * model on each device that the search spans, ranked by an objective (cli_plan.h).
 *
 * The candidates of one model on one device, in this order (the point index):
 *   engine      vllm, sglang, trtllm on a CUDA device; vllm, sglang on ROCm; vllm elsewhere (or
 *               --engines);
 *   precision   the checkpoint's formats ("default"), and "fp8" (W8A8 fp8, vLLM's and SGLang's
 *               --quantization fp8) when the checkpoint is 16-bit and the device has fp8 math;
 *   layout      TP 1, 2, 4, 8; TP 4 and 8 with PP 2; a MoE model also TP N with EP N (experts
 *               split over the TP group) and data-parallel attention over N GPUs with EP N
 *               (N = 2, 4, 8); each aggregated (replicas) and, without PP, disaggregated.
 * Each candidate is pruned before any serving run when it does not load or fit (the run
 * command's checks), or when one request alone already misses the SLO (its static-batch TTFT,
 * TPOT or E2E over the limit: a lower bound on every percentile of a loaded run). Otherwise
 *   aggregated: capacity's search (cli_rate.h) finds the highest rate one instance meets the SLO
 *     at, r1; N = ceil(R / r1) replicas are served at the target rate R and judged by the same
 *     criterion, N + 1 (up to three more) while they miss;
 *   disaggregated: P:D from 1:1 up to 4:4, in order of instances, each served at R; the first
 *     that meets the SLO is the candidate's.
 * A row (cli_plan_row) per candidate says how it ended. The candidates run on OpenMP threads as
 * a sweep's points do (sweep.h: each its own state, rows in point order), so the rows and the
 * report are the same for any thread count; --shard I/N --out FILE writes the shard's rows,
 * `infersim merge` joins the shards' files, and --from FILE reports from them as from a run.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_plan.h"
#include "cli_plan_internal.h"
#include "cli_point.h"
#include "cli_rate.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engprof.h"
#include "html.h"
#include "jsonf.h"
#include "lines.h"
#include "outfile.h"
#include "power.h"
#include "report.h"
#include "sweep.h"

/* Flags plan searches or does not take (its output is its own report). */
static const cli_opt_id refused[] = {CLI_OPT_ID_TP,
                                     CLI_OPT_ID_PP,
                                     CLI_OPT_ID_EP,
                                     CLI_OPT_ID_DP,
                                     CLI_OPT_ID_DP_ATTENTION,
                                     CLI_OPT_ID_REPLICAS,
                                     CLI_OPT_ID_DISAGG,
                                     CLI_OPT_ID_PREFILL_TP,
                                     CLI_OPT_ID_ENGINE,
                                     CLI_OPT_ID_WEIGHT_DTYPE,
                                     CLI_OPT_ID_ACT_DTYPE,
                                     CLI_OPT_ID_DTYPE,
                                     CLI_OPT_ID_TRACE,
                                     CLI_OPT_ID_TIME_SCALE,
                                     CLI_OPT_ID_CHROME_TRACE,
                                     CLI_OPT_ID_SAVE_REQUESTS,
                                     CLI_OPT_ID_SAVE_RESULT,
                                     CLI_OPT_ID_RESULT_DIR,
                                     CLI_OPT_ID_RESULT_FILENAME,
                                     CLI_OPT_ID_MAX_CONCURRENCY,
                                     CLI_OPT_ID_TRACE_DETAIL,
                                     CLI_OPT_ID_TRACE_WINDOW,
                                     CLI_OPT_ID_TRACE_FULL};
enum { N_REFUSED = sizeof refused / sizeof refused[0] };

/* ------------------------------------------------------------------------------------------ */
/* One candidate */

/* Whether one request alone misses the SLO: the static batch of one sequence per attention
 * group. SIM_EINPUT (the candidate does not load or fit) is returned with its message. */
static sim_status alone(const cli_opts *q, const plan_cand *k, const plan_ctx *c,
                        const sim_slo *slo, char *why, size_t len, bool *misses, sim_err *err)
{
    const cli_load_cache *cache = &c->cache;
    *misses = false;
    cli_opts r = *q;
    r.batch = k->dp;
    bool rep = q->dataset_name && strcmp(q->dataset_name, "prefix_repetition") == 0;
    r.input_len = rep ? q->prefix_len + q->suffix_len : q->rand_in;
    r.output_len = rep ? q->prefix_out : q->rand_out;
    if (c->has_ds) { /* a public dataset: a median request (below every percentile from p50 up) */
        r.input_len = (int64_t)llround(sim_dataset_quantile(&c->ds.in, 0.5));
        r.output_len = (int64_t)llround(sim_dataset_quantile(&c->ds.out, 0.5));
    }
    cli_load_result *L = cli_load_result_new();
    sim_run_result *res = calloc(1, sizeof *res);
    sim_run_cfg cfg;
    sim_status st = L && res ? cli_point_run(&r, L, cache, &cfg, res, err)
                             : sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!st) {
        const double v[SIM_M_COUNT] = {[SIM_M_TTFT] = res->ttft_ns / 1e6,
                                       [SIM_M_TPOT] = res->tpot_ns / 1e6,
                                       [SIM_M_E2EL] = res->e2e_ns / 1e6};
        for (int m = 0; m < SIM_M_COUNT && !*misses; m++)
            if (slo->ms[m] > 0.0 && v[m] > slo->ms[m]) {
                *misses = true;
                snprintf(why, len, "one request alone: %s %.4g ms > %g ms",
                         sim_metric_name((sim_metric)m), v[m], slo->ms[m]);
            }
    }
    free(res);
    free(L);
    return st;
}

/* The row's result fields from a met serving run. */
static sim_status record(const cli_rate_search *cs, const cli_load_result *L,
                         const cli_point_serve_state *s, cli_plan_row *r, sim_err *err)
{
    r->gpus = cli_point_serve_gpus(s);
    sim_serve_report rep = {.cfg = &s->cfg,
                            .m = &s->m,
                            .usd_per_gpu_hour = s->usd_per_gpu_hour,
                            .gpus = s->gpus};
    sim_price p;
    if (sim_report_serve_price(&rep, &p)) {
        r->usd_per_gpu_hour = p.usd_per_gpu_hour;
        r->usd_per_hour = p.usd_per_hour;
        r->usd_per_million_output_tokens = p.usd_per_million_output_tokens;
    }
    r->request_throughput = s->m.request_throughput;
    r->output_throughput = s->m.output_throughput;
    r->attainment = cs->probes[cs->n - 1].attainment;
    r->headroom = INFINITY;
    for (int m = 0; m < SIM_M_COUNT; m++) {
        if (sim_metrics_percentiles(&s->res, (sim_metric)m, &cs->pct, 1, &r->p_ms[m]))
            return sim_fail(err, SIM_EINTERNAL, "out of memory computing percentiles");
        if (cs->slo.ms[m] > 0.0)
            r->headroom = fmin(r->headroom, 1.0 - r->p_ms[m] / cs->slo.ms[m]);
    }
    if (!isfinite(r->headroom))
        r->headroom = 0.0;
    if (s->m.has_power)
        r->joules_per_output_token =
            sim_power_totals_of(s->m.idle_w, s->m.active_j, s->m.duration_s, (double)r->gpus,
                                (double)s->m.total_output_tokens)
                .joules_per_output_token;
    snprintf(r->engine_version, sizeof r->engine_version, "%s", L->eng.version);
    r->max_num_seqs = s->cfg.sched.max_num_seqs;
    r->max_num_batched_tokens = s->cfg.sched.max_num_batched_tokens;
    r->block_size = s->cfg.block_size;
    r->gpu_memory_utilization = s->cfg.mem_util;
    snprintf(r->weight_dtype, sizeof r->weight_dtype, "%s", sim_dtype_name(s->cfg.step.prec.weight));
    snprintf(r->act_dtype, sizeof r->act_dtype, "%s", sim_dtype_name(s->cfg.step.prec.act));
    snprintf(r->kv_dtype, sizeof r->kv_dtype, "%s", sim_dtype_name(s->cfg.step.prec.kv));
    r->status = CLI_PLAN_OK;
    return SIM_OK;
}

/* Serves q at the plan's rate into rr's scratch run and judges it; *met says how it went, and a
 * met run is recorded into r. */
static sim_status serve_at(const cli_opts *q, const plan_ctx *c, cli_rate_run *rr,
                           cli_plan_row *r, bool *met, sim_err *err)
{
    cli_rate_search cs;
    sim_status st = cli_rate_init(q, &cs, err);
    cli_point_serve_free(rr->s[1]);
    memset(rr->L[1], 0, sizeof *rr->L[1]);
    if (!st)
        st = cli_rate_probe_at(q, &c->cache, c->o->rate, &cs, rr->L[1], rr->s[1], err);
    *met = !st && cs.probes[0].met;
    if (*met)
        st = record(&cs, rr->L[1], rr->s[1], r, err);
    if (*met && !st) /* the met deployment under the parameter draws */
        st = cli_plan_band(q, rr->L[1], rr->s[1], &cs, r, err);
    return st;
}

static sim_status eval_cand(const plan_ctx *c, const plan_cand *k, cli_plan_row *r, sim_err *err)
{
    cli_plan_flags f;
    cli_opts q;
    sim_status st = cli_plan_cand_opts(c, k, &f, &q, err);
    if (st)
        return st;
    if (cli_plan_spec_unpriced(c, k, r))
        return SIM_OK;
    cli_rate_search *cs = calloc(1, sizeof *cs);
    cli_rate_run rr = {{NULL, NULL}, {NULL, NULL}};
    if (!cs)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    st = cli_rate_init(&q, cs, err);
    bool misses = false;
    if (!st) {
        sim_err e = {{0}};
        sim_status a = alone(&q, k, c, &cs->slo, r->reason, sizeof r->reason, &misses, &e);
        if (a == SIM_EINPUT) {
            r->status = CLI_PLAN_UNFIT;
            snprintf(r->reason, sizeof r->reason, "%s", e.msg);
            free(cs);
            return SIM_OK;
        }
        if (a) {
            *err = e;
            st = a;
        }
    }
    if (st || misses) {
        r->status = CLI_PLAN_ALONE;
        free(cs);
        return st;
    }
    st = cli_rate_run_alloc(&rr, err);
    const int64_t per = k->tp * k->dp * k->pp;
    bool met = false;
    if (!st && k->disagg) {
        r->status = CLI_PLAN_MISSED;
        snprintf(r->reason, sizeof r->reason, "no P:D up to 4:4 within --max-gpus meets the SLO");
        for (int i = 0; i < CLI_PLAN_N_PD && !st && !met; i++) {
            if ((cli_plan_pd[i][0] + cli_plan_pd[i][1]) * per > c->o->max_gpus)
                continue;
            cli_opts d = q;
            snprintf(f.disagg, sizeof f.disagg, "%lld:%lld", (long long)cli_plan_pd[i][0],
                     (long long)cli_plan_pd[i][1]);
            if (!(st = cli_plan_set_flag(&d, CLI_OPT_ID_DISAGG, f.disagg, err)))
                st = serve_at(&d, c, &rr, r, &met, err);
            if (met)
                r->prefill = cli_plan_pd[i][0], r->decode = cli_plan_pd[i][1], r->reason[0] = '\0';
        }
    } else if (!st) {
        st = cli_rate_search_max(&q, &c->cache, cs, &rr, err);
        if (!st && cs->best < 0) {
            r->status = CLI_PLAN_MISSED;
            snprintf(r->reason, sizeof r->reason,
                     "one instance meets the SLO at no rate (down to %.4g req/s)", cs->min_rate);
        } else if (!st) {
            r->instance_max_rate = cs->lo;
            int64_t n = isinf(cs->lo) ? 1 : (int64_t)ceil(c->o->rate / cs->lo - 1e-9);
            n = n < 1 ? 1 : n;
            const int64_t first = n;
            r->status = CLI_PLAN_MISSED;
            snprintf(r->reason, sizeof r->reason,
                     "%lld to %lld replicas miss the SLO at the target rate", (long long)first,
                     (long long)first + PLAN_EXTRA_REPLICAS);
            for (; n <= first + PLAN_EXTRA_REPLICAS && !st && !met; n++) {
                if (n * per > c->o->max_gpus || n > SIM_CLUSTER_MAX_REPLICAS) {
                    r->status = CLI_PLAN_TOO_BIG;
                    snprintf(r->reason, sizeof r->reason,
                             "%lld replicas of %lld GPUs (one meets the SLO up to %.4g req/s) "
                             "exceed --max-gpus %lld",
                             (long long)n, (long long)per, cs->lo, (long long)c->o->max_gpus);
                    break;
                }
                cli_opts d = q;
                snprintf(f.replicas, sizeof f.replicas, "%lld", (long long)n);
                if (n > 1)
                    st = cli_plan_set_flag(&d, CLI_OPT_ID_REPLICAS, f.replicas, err);
                if (!st)
                    st = serve_at(&d, c, &rr, r, &met, err);
                if (met)
                    r->replicas = n, r->reason[0] = '\0';
            }
        }
    }
    if (!st && r->status == CLI_PLAN_OK && c->o->rate_low > 0.0) /* --request-rate LO:HI */
        st = cli_plan_range(c, &q, &rr, r, err);
    cli_rate_run_free(&rr);
    free(cs);
    if (st == SIM_EINPUT) { /* a serving run the engine refuses: the candidate is unfit */
        r->status = CLI_PLAN_UNFIT;
        snprintf(r->reason, sizeof r->reason, "%s", err->msg);
        return SIM_OK;
    }
    return st;
}

static void cand_row(const plan_ctx *c, size_t i, cli_plan_row *r)
{
    const plan_cand *k = &c->c[i];
    memset(r, 0, sizeof *r);
    r->point = (int64_t)i;
    snprintf(r->model, sizeof r->model, "%s", c->models[k->model]);
    snprintf(r->hw, sizeof r->hw, "%s", c->hws[k->hw]);
    snprintf(r->engine, sizeof r->engine, "%s", k->engine);
    snprintf(r->precision, sizeof r->precision, "%s", k->fp8 ? "fp8" : "default");
    snprintf(r->kv_cache, sizeof r->kv_cache, "%s", k->kv8 ? "fp8" : "default");
    if (k->spec_k > 0) {
        snprintf(r->spec, sizeof r->spec, "%s:%lld", c->specs[k->spec].method,
                 (long long)k->spec_k);
        if (!cli_plan_acceptance_given(c->o))
            snprintf(r->spec_acceptance_data, sizeof r->spec_acceptance_data, "%s",
                     c->spec_data[k->model][k->spec]);
    } else {
        snprintf(r->spec, sizeof r->spec, "none");
    }
    snprintf(r->hf_id, sizeof r->hf_id, "%s", c->hf[k->model]);
    r->disagg = k->disagg;
    r->tp = k->tp, r->pp = k->pp, r->ep = k->ep, r->dp = k->dp;
    r->dp_attention = k->dp_attention;
    r->replicas = 1;
}

static void eval_point(void *ctx, size_t point, sim_sweep_row *row)
{
    const plan_ctx *c = ctx;
    cli_plan_row r;
    cand_row(c, point, &r);
    sim_err err = {{0}};
    sim_status st = eval_cand(c, &c->c[point], &r, &err);
    row->point = point;
    row->ok = !st;
    if (st) { /* out of memory or an internal error: the row says so, the command fails */
        r.status = CLI_PLAN_UNFIT;
        snprintf(r.reason, sizeof r.reason, "internal error: %s", err.msg);
    }
    row->text = cli_plan_row_json(&r);
}

/* ------------------------------------------------------------------------------------------ */
/* The command */

void cli_plan_help(FILE *f, int argc, char **argv)
{
    (void)argc, (void)argv;
    cli_opt_usage(f, "plan", CLI_OPT_CMD_SERVE | CLI_OPT_CMD_CAPACITY | CLI_OPT_CMD_PLAN);
    fprintf(f, "--model and --hw take comma-separated lists; the flags plan searches or refuses:\n ");
    for (size_t i = 0; i < N_REFUSED; i++)
        fprintf(f, " %s", cli_opt_name(refused[i]));
    fprintf(f, "\n");
}

static sim_status check_flags(const cli_opts *o, cli_plan_objective *obj, sim_err *err)
{
    for (size_t i = 0; i < N_REFUSED; i++)
        if (cli_opt_given(o, refused[i]))
            return sim_fail(err, SIM_EINPUT,
                            "%s: does not apply to plan (it searches the layout, engine, "
                            "precision, replicas and disaggregation itself; --engines and "
                            "--precisions narrow the search)",
                            cli_opt_name(refused[i]));
    if (!o->model || !o->hw)
        return sim_fail(err, SIM_EINPUT,
                        "plan: needs --model M[,M2] and --hw H1[,H2...] (e.g. --model "
                        "llama-3.1-70b --hw h100-sxm,h200)");
    if (!cli_opt_given(o, CLI_OPT_ID_REQUEST_RATE) || !isfinite(o->rate))
        return sim_fail(err, SIM_EINPUT,
                        "--request-rate: %s, expected the target rate, a number > 0 (req/s)",
                        cli_opt_given(o, CLI_OPT_ID_REQUEST_RATE) ? "value 'inf'" : "missing");
    if (o->slo && o->goodput[0])
        return sim_fail(err, SIM_EINPUT, "--slo with --goodput: expected one of them");
    if (!o->slo && !o->goodput[0])
        return sim_fail(err, SIM_EINPUT,
                        "plan: needs --slo ttft:MS,tpot:MS (or --goodput ttft:MS tpot:MS)");
    sim_dataset ds; /* a public dataset's lengths: its name checked before any candidate */
    if (cli_point_public_dataset(o)) {
        sim_status st = cli_point_dataset(o, NULL, &ds, err);
        if (st)
            return st;
    }
    if (o->objective && !cli_plan_objective_parse(o->objective, obj))
        return sim_fail(err, SIM_EINPUT, "--objective: value '%s', expected cost, gpus, energy "
                                         "or ttft",
                        o->objective);
    static const char *const engines[] = {"vllm", "sglang", "trtllm"};
    static const char *const precisions[] = {"default", "fp8"};
    const char *lists[2] = {o->engines, o->precisions};
    const char *const *known[2] = {engines, precisions};
    const char *flag[2] = {"--engines", "--precisions"};
    for (int l = 0; l < 2; l++)
        for (const char *p = lists[l]; p && *p;) {
            const char *e = strchr(p, ',');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            bool ok = false;
            for (int i = 0; i < (l ? 2 : 3); i++)
                ok = ok || (strlen(known[l][i]) == n && strncmp(p, known[l][i], n) == 0);
            if (!ok)
                return sim_fail(err, SIM_EINPUT, "%s: item '%.*s' of '%s', expected %s", flag[l],
                                (int)n, p, lists[l],
                                l ? "default or fp8" : "vllm, sglang or trtllm");
            p = e ? e + 1 : NULL;
        }
    if (o->uncertainty > CLI_PLAN_MAX_DRAWS)
        return sim_fail(err, SIM_EINPUT,
                        "--uncertainty: value %lld, expected 0..%d for plan (the draws each row "
                        "keeps for the decision)",
                        (long long)o->uncertainty, CLI_PLAN_MAX_DRAWS);
    if (o->shard && !o->out_file)
        return sim_fail(err, SIM_EINPUT,
                        "--shard: needs --out FILE.jsonl (the shard's rows, joined by 'infersim "
                        "merge' and reported by plan --from)");
    if (o->shard && o->from)
        return sim_fail(err, SIM_EINPUT, "--shard with --from: expected one of them");
    return SIM_OK;
}

/* The rows of a --from file (merge's output of the shards), checked against the candidates. */
static sim_status read_rows(const plan_ctx *c, const char *path, cli_plan_row *rows, sim_err *err)
{
    sim_lines in;
    sim_status st = sim_lines_open(&in, path, err);
    if (st)
        return st;
    size_t n = 0;
    char *line;
    char where[PATH_MAX + 32];
    while (!st && (st = sim_lines_next(&in, &line, err)) == SIM_OK && line) {
        if (!*line)
            continue;
        snprintf(where, sizeof where, "%s: line %zu", path, n + 1);
        cli_plan_row r;
        if ((st = cli_plan_row_parse(line, where, &r, err)))
            break;
        cli_plan_row want;
        if (r.point < 0 || (size_t)r.point >= c->n)
            st = sim_fail(err, SIM_EINPUT, "%s: point %lld, expected 0..%zu (the plan's "
                                           "candidates)",
                          where, (long long)r.point, c->n - 1);
        else if (cand_row(c, (size_t)r.point, &want), strcmp(want.model, r.model) != 0 ||
                 strcmp(want.hw, r.hw) != 0 || strcmp(want.engine, r.engine) != 0 ||
                 strcmp(want.precision, r.precision) != 0 || want.tp != r.tp ||
                 want.pp != r.pp || want.ep != r.ep || want.dp != r.dp ||
                 want.disagg != r.disagg || strcmp(want.kv_cache, r.kv_cache) != 0 ||
                 strcmp(want.spec, r.spec) != 0)
            st = sim_fail(err, SIM_EINPUT,
                          "%s: point %lld is not this plan's candidate %lld (another plan's "
                          "rows? give the same --model, --hw, --engines, --precisions, "
                          "--kv-cache-dtypes and --spec-methods)",
                          where, (long long)r.point, (long long)r.point);
        else if (n != (size_t)r.point)
            st = sim_fail(err, SIM_EINPUT, "%s: point %lld, expected %zu (rows in point order, "
                                           "as merge writes them; a shard missing?)",
                          where, (long long)r.point, n);
        else
            rows[n++] = r;
    }
    sim_lines_close(&in);
    if (!st && n != c->n)
        st = sim_fail(err, SIM_EINPUT, "%s: %zu rows, expected the plan's %zu candidates (a shard "
                                       "missing?)",
                      path, n, c->n);
    return st;
}

static sim_status write_rows(const char *path, const sim_sweep_row *rows, size_t n, FILE *out,
                             sim_err *err)
{
    sim_outfile f;
    const char *dest = cli_opt_out_path(path);
    sim_status st = dest ? sim_outfile_open(&f, dest, "--out", err) : SIM_OK;
    FILE *w = dest ? f.f : out;
    for (size_t i = 0; !st && i < n; i++)
        fprintf(w, "%s\n", rows[i].text);
    if (dest)
        st = st ? (sim_outfile_abort(&f), st) : sim_outfile_commit(&f, err);
    return st;
}

sim_status cli_plan_cmd(const cli_opts *o, FILE *out, sim_err *err)
{
    plan_ctx c = {.o = o, .objective = CLI_PLAN_COST};
    sim_status st = check_flags(o, &c.objective, err);
    if (st)
        return st;
    size_t lm = strlen(o->model) + 1, lh = strlen(o->hw) + 1;
    if (!(c.names = malloc(lm + lh)))
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    memcpy(c.names, o->model, lm);
    memcpy(c.names + lm, o->hw, lh);
    st = cli_plan_split(c.names, c.models, &c.n_models, "--model", err);
    if (!st)
        st = cli_plan_split(c.names + lm, c.hws, &c.n_hws, "--hw", err);
    cli_rate_search *slo = calloc(1, sizeof *slo);
    if (!st)
        st = slo ? cli_rate_init(o, slo, err) : sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!st)
        st = cli_plan_variants(&c, err);
    for (int m = 0; m < c.n_models && !st; m++)
        cli_plan_hf_id(c.models[m], c.hf[m], sizeof c.hf[m]);
    for (int m = 0; m < c.n_models && !st; m++)
        for (int h = 0; h < c.n_hws && !st; h++)
            st = cli_plan_enumerate(&c, m, h, err);
    if (!st && !c.n)
        st = sim_fail(err, SIM_EINPUT, "plan: no candidate within --max-gpus %lld",
                      (long long)o->max_gpus);
    /* --dataset-name's fit (a trace's lengths measured, its requests cached) for the one-request
     * check and the bench line */
    c.has_ds = !st && cli_point_public_dataset(o);
    if (c.has_ds)
        st = cli_point_dataset(o, NULL, &c.ds, err);
    if (c.has_ds && !st)
        st = cli_point_dataset_stats(o, &c.ds, NULL, err);
    if (c.has_ds && !st)
        st = cli_point_dataset_cache_add(o, &c.ds, &c.cache, err);
    const sim_dataset plan_ds = c.ds;
    sim_grid_shard shard = {0, 1};
    if (!st && o->shard)
        st = sim_grid_shard_parse(o->shard, &shard, err);
    sim_sweep_row *srows = NULL;
    size_t n_srows = 0;
    cli_plan_row *rows = st ? NULL : calloc(c.n, sizeof *rows);
    if (!st && !rows)
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_grid g = {0};
    if (!st && o->from) {
        st = read_rows(&c, o->from, rows, err);
    } else if (!st) {
        char **vals = calloc(c.n, sizeof *vals);
        char buf[32];
        for (size_t i = 0; vals && i < c.n; i++) {
            snprintf(buf, sizeof buf, "%zu", i);
            vals[i] = strdup(buf);
        }
        st = vals ? sim_grid_add_values(&g, "candidate", (const char *const *)vals, c.n, err)
                  : sim_fail(err, SIM_EINTERNAL, "out of memory");
        for (size_t i = 0; vals && i < c.n; i++)
            free(vals[i]);
        free(vals);
        int threads = o->threads > 0 ? (int)o->threads : sim_sweep_max_threads();
        if (!st)
            st = sim_sweep_run(&g, &shard, threads, eval_point, &c, NULL, &srows, &n_srows, err);
        for (size_t i = 0; !st && i < n_srows; i++)
            if (!srows[i].ok || !srows[i].text)
                st = sim_fail(err, SIM_EINTERNAL, "plan: candidate %zu failed", srows[i].point);
        if (!st && o->out_file)
            st = write_rows(o->out_file, srows, n_srows, out, err);
        for (size_t i = 0; !st && !o->shard && i < n_srows; i++)
            st = cli_plan_row_parse(srows[i].text, "plan", &rows[i], err);
    }
    if (!st && o->shard) {
        fprintf(out, "plan: shard %zu/%zu: %zu of %zu candidates written to %s; join the shards "
                     "with 'infersim merge' and report with plan --from\n",
                shard.index, shard.count, n_srows, c.n, o->out_file);
    } else if (!st) {
        cli_plan_report rep = {
            .rows = rows,
            .n = c.n,
            .objective = c.objective,
            .top = o->top,
            .rate = o->rate,
            .rate_low = o->rate_low,
            .slo_text = o->slo ? o->slo : o->goodput,
            .goodput = !o->slo,
            .slo = slo->slo,
            .bench = {.dataset = o->dataset_name ? o->dataset_name : "random",
                      .num_prompts = o->num_prompts,
                      .rand_in = o->rand_in,
                      .rand_out = o->rand_out,
                      .seed = o->seed,
                      .range_ratio = o->range_ratio,
                      .rate = o->rate,
                      .burstiness = o->burstiness,
                      .pct = o->slo_percentile,
                      .prefix_len = o->prefix_len,
                      .suffix_len = o->suffix_len,
                      .num_prefixes = o->num_prefixes,
                      .prefix_out = o->prefix_out,
                      .slo = slo->slo,
                      .in_mean = !c.has_ds         ? 0
                                 : plan_ds.trace[0] ? plan_ds.in.mean
                                                    : sim_dataset_mean(&plan_ds.in),
                      .out_mean = !c.has_ds         ? 0
                                  : plan_ds.trace[0] ? plan_ds.out.mean
                                                     : sim_dataset_mean(&plan_ds.out)},
            .json = o->format && strcmp(o->format, "json") == 0,
            .csv = o->format && strcmp(o->format, "csv") == 0};
        if (o->format && strcmp(o->format, "json") != 0 && strcmp(o->format, "table") != 0 &&
            strcmp(o->format, "csv") != 0)
            st = sim_fail(err, SIM_EINPUT, "--format: value '%s', expected table, json or csv",
                          o->format);
        if (!st && !(o->out_file && strcmp(o->out_file, "-") == 0))
            st = cli_plan_report_write(out, &rep, err);
        if (!st && o->html)
            st = cli_plan_html(&c, &rep, err);
    }
    sim_sweep_rows_free(srows, n_srows);
    sim_grid_free(&g);
    free(rows);
    free(slo);
    free(c.c);
    free(c.names);
    cli_load_cache_free(&c.cache);
    return st;
}
