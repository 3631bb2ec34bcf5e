/* api_step.c - the step-time predictor (include/infersim_step.h): a deployment loaded once from
 * serve's flags into a handle, each iteration's batch priced as the serving engine prices it
 * (sim_engine_price_batch), with its split and its band. */
#define _POSIX_C_SOURCE 200809L
#include <infersim_step.h> /* include/: the public header, not a module of sim/ */

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_load.h"
#include "cli_opt.h"
#include "cli_point.h"
#include "engine.h"
#include "unc.h"

/* "infst" + the ABI: what an open handle starts with (a closed one is zeroed first) */
#define STEP_MAGIC 0x696e667374000001ULL

struct infersim_step {
    uint64_t magic;
    cli_load_result L; /* the model, device, engine profile, formats (the step points into it) */
    sim_engine_cfg cfg;
    int64_t max_seqs, context;
    sim_seq_group *groups; /* max_seqs + 1: the batch and the CUDA graph's padding */
    sim_seq_group *part;   /* max_seqs: the prefill or the decode sequences of a mixed batch */
    sim_engine_memo memo;
    sim_step_memo part_memo[2]; /* the prefill part, the decode part (priced eagerly) */
    /* the band: per draw the configuration, its device and its memos; the draws' times */
    int draws;
    sim_engine_cfg *dcfg;
    sim_hw *dhw;
    sim_engine_memo *dmemo;
    double *dv;
};

/* Writes "infersim: MESSAGE" into the caller's buffer; returns st. */
static infersim_step_status say(char *err, size_t err_len, infersim_step_status st,
                                const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static infersim_step_status say(char *err, size_t err_len, infersim_step_status st,
                                const char *fmt, ...)
{
    if (!err || err_len == 0)
        return st;
    int n = snprintf(err, err_len, "infersim: ");
    if (n > 0 && (size_t)n < err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, err_len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return st;
}

static infersim_step_status of_sim(sim_status st)
{
    return st == SIM_EINPUT ? INFERSIM_STEP_EINPUT : INFERSIM_STEP_EINTERNAL;
}

/* The serve flags that set a step's deployment: everything else serve takes is refused. */
static const cli_opt_id deployment_flags[] = {CLI_OPT_ID_MODEL,
                                              CLI_OPT_ID_HW,
                                              CLI_OPT_ID_TP,
                                              CLI_OPT_ID_PP,
                                              CLI_OPT_ID_EP,
                                              CLI_OPT_ID_DP_ATTENTION,
                                              CLI_OPT_ID_DP,
                                              CLI_OPT_ID_EXPERT_IMBALANCE,
                                              CLI_OPT_ID_MOE_A2A,
                                              CLI_OPT_ID_ENABLE_TWO_BATCH_OVERLAP,
                                              CLI_OPT_ID_ENABLE_DBO,
                                              CLI_OPT_ID_EXPERT_ROUTING,
                                              CLI_OPT_ID_EXPERT_LOAD,
                                              CLI_OPT_ID_REDUNDANT_EXPERTS,
                                              CLI_OPT_ID_MOE_KERNEL,
                                              CLI_OPT_ID_WEIGHT_DTYPE,
                                              CLI_OPT_ID_ACT_DTYPE,
                                              CLI_OPT_ID_KV_CACHE_DTYPE,
                                              CLI_OPT_ID_WEIGHT_GROUP_SIZE,
                                              CLI_OPT_ID_OVERLAP_COMM,
                                              CLI_OPT_ID_ENGINE,
                                              CLI_OPT_ID_ITERATION_OVERHEAD_US,
                                              CLI_OPT_ID_REQUEST_OVERHEAD_US,
                                              CLI_OPT_ID_LAYER_OVERHEAD_US,
                                              CLI_OPT_ID_ASYNC_SCHEDULING,
                                              CLI_OPT_ID_NO_ASYNC_SCHEDULING,
                                              CLI_OPT_ID_ENFORCE_EAGER,
                                              CLI_OPT_ID_CUDAGRAPH_MODE,
                                              CLI_OPT_ID_ALLREDUCE,
                                              CLI_OPT_ID_FUSE_ALLREDUCE_NORM,
                                              CLI_OPT_ID_NO_FUSE_ALLREDUCE_NORM,
                                              CLI_OPT_ID_CUDA_GRAPH_MAX_BS,
                                              CLI_OPT_ID_MAX_MODEL_LEN,
                                              CLI_OPT_ID_MAX_NUM_SEQS,
                                              CLI_OPT_ID_MAX_BATCH_SIZE,
                                              CLI_OPT_ID_MAX_RUNNING_REQUESTS,
                                              CLI_OPT_ID_UNCERTAINTY,
                                              CLI_OPT_ID_UNCERTAINTY_TABLE,
                                              CLI_OPT_ID_NONE};

static bool is_deployment_flag(size_t id)
{
    for (const cli_opt_id *f = deployment_flags; *f != CLI_OPT_ID_NONE; f++)
        if ((size_t)*f == id)
            return true;
    return false;
}

/* The flags given that the predictor does not take: speculative decoding named as such, the
 * rest as flags that do not change a step. */
static sim_status check_flags(const cli_opts *o, sim_err *err)
{
    for (size_t i = 0; i < cli_opt_count; i++) {
        const char *name = cli_opt_table[i].name;
        if (!o->given[i] || is_deployment_flag(i))
            continue;
        if (strstr(name, "spec")) /* --spec-*, --speculative-*, --num-speculative-tokens */
            return sim_fail(err, SIM_EINPUT,
                            "infersim_step_open: %s: speculative decoding is not priced by the "
                            "step predictor yet; expected a deployment without it",
                            name);
        return sim_fail(err, SIM_EINPUT,
                        "infersim_step_open: %s: a serve flag that does not change a step's "
                        "time; expected only the deployment's flags (model, device, "
                        "parallelism, formats, engine, launch mode, overheads, "
                        "--max-model-len, --max-num-seqs, --uncertainty)",
                        name);
    }
    return SIM_OK;
}

/* The draws' configurations: the error table's draw i of n applied to the device and the step,
 * as serve's bands draw them (cli_point_band.c). */
static sim_status open_draws(infersim_step *h, const cli_opts *o, sim_err *err)
{
    h->draws = cli_point_draw_count(o, true);
    if (h->draws == 0)
        return SIM_OK;
    const size_t n = (size_t)h->draws;
    h->dcfg = calloc(n, sizeof *h->dcfg);
    h->dhw = calloc(n, sizeof *h->dhw);
    h->dmemo = calloc(n, sizeof *h->dmemo);
    h->dv = calloc(n, sizeof *h->dv);
    sim_unc_table *t = malloc(sizeof *t);
    sim_status st = h->dcfg && h->dhw && h->dmemo && h->dv && t
                        ? cli_point_unc_table(o, NULL, t, err)
                        : sim_fail(err, SIM_EINTERNAL, "out of memory for %d draws", h->draws);
    sim_unc_engine_ref eng;
    sim_unc_engine_ref_of(h->L.eng.name, h->L.eng.engine, &h->L.model, &eng);
    for (int i = 0; !st && i < h->draws; i++) {
        sim_unc_draw d;
        sim_unc_draw_make_n(t, h->cfg.step.hw, &eng, 0, i, h->draws, 0, &d);
        h->dcfg[i] = h->cfg;
        h->dcfg[i].step = sim_unc_apply(&h->cfg.step, &d, &h->dhw[i]);
        if (sim_pp_stages(&h->cfg.step) > 1 &&
            !sim_pp_memo_init(&h->dmemo[i].pp, &h->dcfg[i].step, (size_t)h->max_seqs))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory for the pipeline's memos");
    }
    free(t);
    return st;
}

static sim_status open_handle(infersim_step *h, int argc, const char *const argv[], sim_err *err)
{
    cli_opts o = cli_opt_defaults;
    /* the command line never writes into argv */
    sim_status st = cli_opt_parse(argc, (char **)(void *)argv, 0, "serve", CLI_OPT_CMD_SERVE,
                                  CLI_OPT_ID_NONE, &o, err);
    if (!st)
        st = check_flags(&o, err);
    if (!st)
        st = cli_load_common(&o, true, &h->L, NULL, err);
    if (st)
        return st;
    /* the serving engine's configuration as serve builds it (cli_point_serve) */
    cli_load_engine_cfg(&h->L.eng, &h->cfg);
    h->cfg.step = h->L.step;
    const sim_par par = sim_step_par(&h->cfg.step);
    h->cfg.sched.max_num_seqs *= sim_par_dp(&par);
    h->cfg.sched.max_num_batched_tokens *= sim_par_dp(&par);
    h->cfg.spec = &h->L.spec;
    const sim_workload none = {0};
    if ((st = sim_engine_check(&h->cfg, &none, err)))
        return st;
    h->max_seqs = h->cfg.sched.max_num_seqs;
    h->context = h->L.model.max_positions;
    const size_t m = (size_t)h->max_seqs;
    h->groups = malloc((m + 1) * sizeof *h->groups);
    h->part = malloc(m * sizeof *h->part);
    if (!h->groups || !h->part ||
        (sim_pp_stages(&h->cfg.step) > 1 && !sim_pp_memo_init(&h->memo.pp, &h->cfg.step, m)))
        return sim_fail(err, SIM_EINTERNAL, "out of memory for a batch of %zu sequences", m);
    return open_draws(h, &o, err);
}

int infersim_step_abi(void) { return INFERSIM_STEP_ABI; }

infersim_step_status infersim_step_open(int abi, int argc, const char *const argv[],
                                        infersim_step **h, char *err, size_t err_len)
{
    if (!h)
        return say(err, err_len, INFERSIM_STEP_EINPUT, "infersim_step_open: h is NULL");
    *h = NULL;
    if (abi != INFERSIM_STEP_ABI)
        return say(err, err_len, INFERSIM_STEP_EVERSION,
                   "infersim_step_open: the caller was built for step ABI %d, the library "
                   "implements %d; rebuild against its infersim_step.h",
                   abi, INFERSIM_STEP_ABI);
    if (argc < 0 || (argc > 0 && !argv))
        return say(err, err_len, INFERSIM_STEP_EINPUT,
                   "infersim_step_open: argc %d with argv %s; expected argc >= 0 flags in argv",
                   argc, argv ? "given" : "NULL");
    for (int i = 0; i < argc; i++)
        if (!argv[i])
            return say(err, err_len, INFERSIM_STEP_EINPUT,
                       "infersim_step_open: argv[%d] is NULL, before argc %d", i, argc);
    infersim_step *s = calloc(1, sizeof *s);
    if (!s)
        return say(err, err_len, INFERSIM_STEP_EINTERNAL, "out of memory for a step handle");
    sim_err e = {{0}};
    sim_status st = open_handle(s, argc, argv, &e);
    if (st) {
        infersim_step_close(s);
        return say(err, err_len, of_sim(st), "%s", e.msg[0] ? e.msg : "out of memory");
    }
    s->magic = STEP_MAGIC;
    *h = s;
    return INFERSIM_STEP_OK;
}

static bool handle_ok(const infersim_step *h) { return h && h->magic == STEP_MAGIC; }

int64_t infersim_step_max_seqs(const infersim_step *h) { return handle_ok(h) ? h->max_seqs : 0; }

void infersim_step_close(infersim_step *h)
{
    if (!h)
        return;
    for (int i = 0; h->dmemo && i < h->draws; i++)
        sim_pp_memo_free(&h->dmemo[i].pp);
    sim_pp_memo_free(&h->memo.pp);
    free(h->dcfg);
    free(h->dhw);
    free(h->dmemo);
    free(h->dv);
    free(h->groups);
    free(h->part);
    h->magic = 0;
    free(h);
}

/* The batch as the step's groups (h->groups[0..n)): refused sequences name their index. */
static infersim_step_status to_groups(infersim_step *h, const infersim_step_seq *seqs, size_t n,
                                      size_t *n_pre, char *err, size_t err_len)
{
    *n_pre = 0;
    for (size_t i = 0; i < n; i++) {
        const infersim_step_seq *s = &seqs[i];
        if (s->kind < INFERSIM_SEQ_PREFILL || s->kind > INFERSIM_SEQ_DECODE)
            return say(err, err_len, INFERSIM_STEP_EINPUT,
                       "infersim_step_price: seqs[%zu].kind: value %d, expected "
                       "INFERSIM_SEQ_PREFILL (0), INFERSIM_SEQ_PREFILL_LAST (1) or "
                       "INFERSIM_SEQ_DECODE (2)",
                       i, (int)s->kind);
        if (s->new_tokens < 1 || s->new_tokens > h->context)
            return say(err, err_len, INFERSIM_STEP_EINPUT,
                       "infersim_step_price: seqs[%zu].new_tokens: value %lld, expected 1 to "
                       "the model's context, %lld",
                       i, (long long)s->new_tokens, (long long)h->context);
        if (s->cached_tokens < 0 || s->cached_tokens > h->context - s->new_tokens)
            return say(err, err_len, INFERSIM_STEP_EINPUT,
                       "infersim_step_price: seqs[%zu].cached_tokens: value %lld with %lld new "
                       "tokens, expected >= 0 and new + cached at most the model's context, "
                       "%lld (max_position_embeddings, or --max-model-len)",
                       i, (long long)s->cached_tokens, (long long)s->new_tokens,
                       (long long)h->context);
        if (s->kind == INFERSIM_SEQ_DECODE && s->new_tokens != 1)
            return say(err, err_len, INFERSIM_STEP_EINPUT,
                       "infersim_step_price: seqs[%zu].new_tokens: value %lld for a decode, "
                       "expected 1 (a verify of drafts is speculative decoding, which the "
                       "predictor does not price yet)",
                       i, (long long)s->new_tokens);
        if (s->dp_rank < 0)
            return say(err, err_len, INFERSIM_STEP_EINPUT,
                       "infersim_step_price: seqs[%zu].dp_rank: value %d, expected >= 0", i,
                       (int)s->dp_rank);
        const bool decode = s->kind == INFERSIM_SEQ_DECODE;
        *n_pre += !decode;
        h->groups[i] = (sim_seq_group){.count = 1,
                                       .q = s->new_tokens,
                                       .c = s->cached_tokens,
                                       .logits = s->kind == INFERSIM_SEQ_PREFILL ? 0 : 1,
                                       .rank = s->dp_rank};
    }
    return INFERSIM_STEP_OK;
}

/* The step's time without its exposed network time, for the part of the batch of one kind
 * (decode or not), priced alone under sc. */
static double part_ns(infersim_step *h, const sim_step_cfg *sc, const infersim_step_seq *seqs,
                      size_t n, bool decode)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((seqs[i].kind == INFERSIM_SEQ_DECODE) == decode)
            h->part[k++] = h->groups[i];
    const sim_step_result *r = sim_step_price_memo(sc, h->part, k, &h->part_memo[decode]);
    return r->t_ns - r->net_exposed_ns;
}

infersim_step_status infersim_step_price(infersim_step *h, const infersim_step_seq *seqs, size_t n,
                                         infersim_step_time *out, char *err, size_t err_len)
{
    if (!handle_ok(h))
        return say(err, err_len, INFERSIM_STEP_EHANDLE,
                   "infersim_step_price: %s, expected a handle from infersim_step_open",
                   h ? "not an open handle (closed, or never opened)" : "the handle is NULL");
    if (!seqs || !out)
        return say(err, err_len, INFERSIM_STEP_EINPUT, "infersim_step_price: %s is NULL",
                   seqs ? "out" : "seqs");
    if (n < 1 || n > (size_t)h->max_seqs)
        return say(err, err_len, INFERSIM_STEP_EINPUT,
                   "infersim_step_price: n: value %zu, expected 1 to %lld sequences (the "
                   "engine's max_num_seqs; --max-num-seqs raises it)",
                   n, (long long)h->max_seqs);
    size_t n_pre;
    infersim_step_status st = to_groups(h, seqs, n, &n_pre, err, err_len);
    if (st)
        return st;
    sim_engine_batch b;
    sim_engine_price_batch(&h->cfg, h->groups, n, n_pre > 0, 0, &h->memo, &b);
    const double t = b.gpu_ns, whole = b.step->t_ns;
    double lo = t, hi = t;
    for (int i = 0; i < h->draws; i++) {
        sim_engine_batch d;
        sim_engine_price_batch(&h->dcfg[i], h->groups, n, n_pre > 0, 0, &h->dmemo[i], &d);
        h->dv[i] = d.gpu_ns;
    }
    if (h->draws > 0)
        sim_unc_band_of(h->dv, (size_t)h->draws, &lo, &hi);
    if (!(isfinite(t) && t > 0.0 && isfinite(lo) && isfinite(hi) && whole > 0.0))
        return say(err, err_len, INFERSIM_STEP_EINTERNAL,
                   "infersim_step_price: a step's time is %g ns, not a finite positive number "
                   "(a bug: every format it computes in was checked)",
                   t);
    /* with pipeline stages the round's time in the whole step's proportions */
    const double comm = t * b.step->net_exposed_ns / whole, rest = t - comm;
    double pre = n_pre == n ? rest : 0.0;
    if (n_pre > 0 && n_pre < n) { /* each kind's share of the rest: its time priced alone */
        const double p = part_ns(h, &b.sc, seqs, n, false), d = part_ns(h, &b.sc, seqs, n, true);
        pre = p + d > 0.0 ? rest * p / (p + d) : 0.0;
    }
    const int64_t ns = (int64_t)llround(t);
    *out = (infersim_step_time){.step_us = t / 1e3,
                                .prefill_us = pre / 1e3,
                                .decode_us = (rest - pre) / 1e3,
                                .comm_us = comm / 1e3,
                                .host_us = t * b.step->t_host_ns / whole / 1e3,
                                .lo_us = lo / 1e3,
                                .hi_us = hi / 1e3,
                                .step_ns = ns < 1 ? 1 : ns,
                                .graph_batch = b.graph_seqs};
    return INFERSIM_STEP_OK;
}
