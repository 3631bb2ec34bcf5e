/* cli_point_band.c - a point's uncertainty bands: the run or serving simulation repeated under
 * correlated draws of the step model's parameters (unc.h), with the same workload. */
#define _POSIX_C_SOURCE 200809L
#include "cli_point.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capacity.h"
#include "find.h"
#include "pp.h"
#include "report.h"

/* The headline metrics that get a band, as the JSON names them. */
static const char *const run_keys[] = {"ttft_ms",
                                       "tpot_ms",
                                       "e2e_ms",
                                       "output_throughput",
                                       "usd_per_million_output_tokens",
                                       "usd_per_million_total_tokens",
                                       "joules_per_output_token"};
static const char *const serve_keys[] = {
    "duration",       "request_throughput", "output_throughput", "total_token_throughput",
    "request_goodput", "mean_ttft_ms",      "median_ttft_ms",    "p90_ttft_ms",
    "p99_ttft_ms",    "mean_tpot_ms",       "median_tpot_ms",    "p90_tpot_ms",
    "p99_tpot_ms",    "mean_itl_ms",        "median_itl_ms",     "p90_itl_ms",
    "p99_itl_ms",     "mean_e2el_ms",       "median_e2el_ms",    "p90_e2el_ms",
    "p99_e2el_ms",    "usd_per_million_output_tokens", "usd_per_million_total_tokens",
    "joules_per_output_token"};
enum {
    N_RUN_KEYS = sizeof run_keys / sizeof run_keys[0],
    N_SERVE_KEYS = sizeof serve_keys / sizeof serve_keys[0],
    RUN_DRAWS = 10,
    SERVE_DRAWS = 6,
    SERVE_PREFIX_MIN = 32, /* requests the default draws serve at least */
};

bool cli_point_band_key(bool serve, const char *key)
{
    const char *const *k = serve ? serve_keys : run_keys;
    const size_t n = serve ? N_SERVE_KEYS : N_RUN_KEYS;
    for (size_t i = 0; i < n; i++)
        if (strcmp(k[i], key) == 0)
            return true;
    return false;
}

int cli_point_draw_count(const cli_opts *o, bool serve)
{
    if (o->uncertainty >= 0)
        return (int)o->uncertainty;
    return serve ? SERVE_DRAWS : RUN_DRAWS;
}

void cli_point_draws_free(cli_point_draws *d)
{
    free(d->v);
    d->v = NULL;
}

const double *cli_point_draws_of(const cli_point_draws *d, const char *key)
{
    for (size_t k = 0; d->v && k < d->n_keys; k++)
        if (strcmp(d->keys[k], key) == 0)
            return d->v + k * (size_t)d->n;
    return NULL;
}

sim_status cli_point_unc_table(const cli_opts *o, const cli_load_cache *cache, sim_unc_table *t,
                               sim_err *err)
{
    char path[PATH_MAX];
    cli_load_unc_path(cache, o, path, sizeof path);
    const sim_unc_table *cached = cli_load_cache_unc(cache, path);
    if (cached) {
        *t = *cached;
        return SIM_OK;
    }
    return sim_unc_load(path, t, err);
}

/* The band's basis (unc.h's sim_unc_band.basis): the engine's evidence, the device's, the power
 * estimate's. A device family without rows of its own and an engine without end-to-end rows say
 * so. */
static sim_status basis_text(const sim_unc_table *t, const sim_hw *hw,
                             const sim_unc_engine_ref *eng, bool energy, char *buf, size_t len,
                             sim_err *err)
{
    /* no commas: the line is one CSV field, and naive readers split on them */
    sim_unc_basis b;
    sim_unc_engine_sigma(t, eng, &b);
    sim_strbuf s = {0};
    sim_strbuf_printf(&s, "engine %s: ", eng->profile);
    if (b.level == SIM_UNC_LEVEL_VERSION)
        sim_strbuf_printf(&s, "its own end-to-end rows");
    else if (b.level == SIM_UNC_LEVEL_ENGINE)
        sim_strbuf_printf(&s, "no end-to-end rows of this version so its engine's other "
                              "versions (%s)",
                          b.scope);
    else
        sim_strbuf_printf(&s, "no validation of this engine so the default of every engine (%s)",
                          b.scope);
    sim_strbuf_printf(&s, " - %lld rows from %lld sources - sigma %.2f; ", (long long)b.rows,
                      (long long)b.sources, b.sigma);
    const char *arch = sim_unc_device_family(hw);
    const sim_unc_prov p = sim_unc_provenance(hw, SIM_UNC_GEMM16);
    const sim_unc_entry *e = sim_unc_find(t, SIM_UNC_GEMM16, arch, p);
    if (sim_hw_default_only(hw)) /* estimates in the file: no measurement behind them */
        sim_strbuf_printf(&s, "device %s (%s): default-only efficiencies (no measurement on this "
                              "device; drawn as %s)",
                          hw->name, arch, sim_unc_prov_name(p));
    else
        sim_strbuf_printf(&s, "device %s (%s): efficiencies %s", hw->name, arch,
                          sim_unc_prov_name(p));
    if (e)
        sim_strbuf_printf(&s, " - %s 16-bit GEMM rows %lld from %lld sources", arch,
                          (long long)e->rows, (long long)e->sources);
    else if ((e = sim_unc_find(t, SIM_UNC_GEMM16, "*", p)))
        sim_strbuf_printf(&s, " - no 16-bit GEMM validation rows of %s devices so every "
                              "device's rows (%lld from %lld sources)",
                          arch, (long long)e->rows, (long long)e->sources);
    if (energy && (e = sim_unc_find(t, SIM_UNC_POWER, "*", SIM_UNC_DEFAULT)))
        sim_strbuf_printf(&s, "; power estimate: %lld energy rows from %lld sources - sigma %.2f "
                              "(wide: few rows)",
                          (long long)e->rows, (long long)e->sources, e->sigma);
    const bool oom = s.oom || !s.s;
    if (!oom)
        snprintf(buf, len, "%s", s.s);
    sim_strbuf_free(&s);
    return oom ? sim_fail(err, SIM_EINTERNAL, "out of memory") : SIM_OK;
}

static bool field_num(const sim_field *f, size_t n, const char *key, double *v)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].key, key) == 0) {
            if (f[i].missing || f[i].kind == SIM_FIELD_TEXT || !isfinite(f[i].num))
                return false;
            *v = f[i].num;
            return true;
        }
    return false;
}

/* The keys of `keys` the nominal fields have a number for, into d. */
static sim_status start_draws(cli_point_draws *d, int n, const char *const *keys, size_t nk,
                              const sim_field *f, size_t nf, double *nominal, sim_err *err)
{
    d->n = n;
    d->n_keys = 0;
    for (size_t k = 0; k < nk; k++) {
        double v;
        if (!field_num(f, nf, keys[k], &v))
            continue;
        nominal[d->n_keys] = v;
        snprintf(d->keys[d->n_keys++], sizeof d->keys[0], "%s", keys[k]);
    }
    d->v = calloc(d->n_keys * (size_t)n + 1, sizeof *d->v);
    return d->v ? SIM_OK : sim_fail(err, SIM_EINTERNAL, "out of memory");
}

sim_status cli_point_power_sigma(const cli_opts *o, double *sigma, sim_err *err)
{
    sim_unc_table *t = malloc(sizeof *t);
    sim_status st =
        t ? cli_point_unc_table(o, NULL, t, err) : sim_fail(err, SIM_EINTERNAL, "out of memory");
    *sigma = st ? 0.0 : sim_unc_sigma(t, SIM_UNC_POWER, "*", SIM_UNC_DEFAULT);
    free(t);
    return st;
}

/* The energy keys: moved by the draw's power factor as well (the power estimate's own error,
 * unc.h), on top of what the draw's step times do to them. */
static bool energy_key(const char *key) { return strcmp(key, "joules_per_output_token") == 0; }

static void power_factor(cli_point_draws *d, int i, const sim_unc_draw *dr)
{
    for (size_t k = 0; k < d->n_keys; k++)
        if (energy_key(d->keys[k]))
            d->v[k * (size_t)d->n + (size_t)i] *= dr->factor[SIM_UNC_POWER];
}

/* Draw i's value of every key from its fields (a key it lacks keeps the nominal value). */
static void record(cli_point_draws *d, int i, const sim_field *f, size_t nf, const double *nominal,
                   const double *scale)
{
    for (size_t k = 0; k < d->n_keys; k++) {
        double v;
        if (!field_num(f, nf, d->keys[k], &v))
            v = nominal[k];
        d->v[k * (size_t)d->n + (size_t)i] = scale ? v * scale[k] : v;
    }
}

static sim_status finish_band(cli_point_draws *d, sim_err *err)
{
    d->band = (sim_unc_band){.draws = d->n};
    double *tmp = malloc((size_t)d->n * sizeof *tmp);
    if (!tmp)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    for (size_t k = 0; k < d->n_keys; k++) {
        memcpy(tmp, d->v + k * (size_t)d->n, (size_t)d->n * sizeof *tmp);
        sim_unc_band_add(&d->band, d->keys[k], tmp, (size_t)d->n);
    }
    free(tmp);
    return SIM_OK;
}

/* With the default count, a run of more than this many decode steps (plain decoding) draws on a
 * short one: its prefill as it is, and THIN_STEPS decode steps around the same mean context. */
enum { THIN_STEPS = 64 };

/* The mean decode step of `steps` plain decode steps of cfg's batch from context `ctx` on, as
 * run.c's plain decoding prices them (through a memo; a round of micro-batches over pipeline
 * stages). */
static double mean_decode_ns(const sim_run_cfg *cfg, int64_t ctx, int64_t steps)
{
    sim_step_memo *memo = calloc(1, sizeof *memo);
    if (!memo)
        return 0.0;
    double total = 0.0;
    for (int64_t j = 0; j < steps; j++) {
        sim_seq_group g = {.count = cfg->batch, .q = 1, .c = ctx + j, .logits = 1};
        const sim_step_result *r = sim_step_price_memo(&cfg->step, &g, 1, memo);
        total += sim_pp_stages(&cfg->step) > 1 ? sim_pp_round_ns(&cfg->step, &g, 1, NULL, true)
                                               : r->t_ns;
    }
    free(memo);
    return total / (double)steps;
}

/* Draw i's run keys from a prefill-only run (TTFT as the full run's) and a short decode around
 * the full run's mean context: TPOT is the nominal one times the short decode's ratio to its
 * nominal (tpot0), and E2E, throughput and cost follow as run.c computes them (E2E = TTFT + TPOT
 * x (O - 1); throughput and cost per token scale with 1 / E2E). */
static void record_thin(cli_point_draws *d, int i, const sim_run_cfg *cfg, const double *nominal,
                        double ttft_ms, double tpot_ratio)
{
    double tpot0 = 0.0, e2e0 = 0.0;
    for (size_t k = 0; k < d->n_keys; k++) {
        tpot0 = strcmp(d->keys[k], "tpot_ms") == 0 ? nominal[k] : tpot0;
        e2e0 = strcmp(d->keys[k], "e2e_ms") == 0 ? nominal[k] : e2e0;
    }
    const double tpot = tpot0 * tpot_ratio, e2e = ttft_ms + tpot * (double)(cfg->output_len - 1);
    for (size_t k = 0; k < d->n_keys; k++) {
        const char *key = d->keys[k];
        double v = nominal[k];
        if (strcmp(key, "ttft_ms") == 0)
            v = ttft_ms;
        else if (strcmp(key, "tpot_ms") == 0)
            v = tpot;
        else if (strcmp(key, "e2e_ms") == 0)
            v = e2e;
        else if (strcmp(key, "output_throughput") == 0 && e2e > 0.0)
            v = nominal[k] * e2e0 / e2e;
        else if (e2e0 > 0.0) /* the costs and the energy per token (at the same power) */
            v = nominal[k] * e2e / e2e0;
        d->v[k * (size_t)d->n + (size_t)i] = v;
    }
}

sim_status cli_point_run_band(const cli_opts *o, const cli_load_result *L, sim_run_cfg *cfg,
                              cli_point_draws *d, sim_err *err)
{
    memset(d, 0, sizeof *d);
    const int n = cli_point_draw_count(o, false);
    if (n == 0)
        return SIM_OK;
    sim_unc_engine_ref eng;
    sim_unc_engine_ref_of(L->eng.name, L->eng.engine, &L->model, &eng);
    sim_unc_table *t = malloc(sizeof *t);
    sim_run_result *r = malloc(sizeof *r);
    sim_field *f = malloc(SIM_FIELDS_MAX * sizeof *f);
    double nominal[SIM_UNC_BAND_MAX];
    sim_status st = t && r && f ? cli_point_unc_table(o, L->cache, t, err)
                                : sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (!st) { /* the nominal run's fields say which keys have a value */
        sim_run_simulate(cfg, r);
        size_t nf = sim_report_run_fields(cfg, r, SIM_FIELDS_JSON, f);
        st = start_draws(d, n, run_keys, N_RUN_KEYS, f, nf, nominal, err);
    }
    /* the short runs: the prefill alone, and THIN_STEPS decode steps around the mean context */
    const bool thin = o->uncertainty < 0 && cfg->output_len > THIN_STEPS + 1 &&
                      !sim_spec_active(cfg->spec);
    sim_run_cfg pre = *cfg;
    pre.output_len = 1;
    pre.band = NULL;
    const int64_t ctx = cfg->input_len + (cfg->output_len - THIN_STEPS - 1) / 2;
    double tpot0 = 1.0;
    if (!st && thin)
        tpot0 = mean_decode_ns(cfg, ctx, THIN_STEPS);
    for (int i = 0; !st && i < n; i++) {
        sim_unc_draw dr;
        sim_unc_draw_make_n(t, cfg->step.hw, &eng, 0, i, n, 0, &dr);
        sim_hw hw;
        sim_run_cfg c = thin ? pre : *cfg;
        c.band = NULL;
        c.step = sim_unc_apply(&cfg->step, &dr, &hw);
        sim_run_simulate(&c, r);
        if (!thin) {
            record(d, i, f, sim_report_run_fields(&c, r, SIM_FIELDS_JSON, f), nominal, NULL);
        } else {
            const double tpot = mean_decode_ns(&c, ctx, THIN_STEPS);
            record_thin(d, i, cfg, nominal, r->ttft_ns / 1e6, tpot0 > 0.0 ? tpot / tpot0 : 1.0);
        }
        power_factor(d, i, &dr);
    }
    if (!st)
        st = finish_band(d, err);
    if (!st)
        st = basis_text(t, cfg->step.hw, &eng,
                        cli_point_draws_of(d, "joules_per_output_token") != NULL, d->band.basis,
                        sizeof d->band.basis, err);
    if (!st)
        cfg->band = &d->band;
    free(t);
    free(r);
    free(f);
    return st;
}

/* The point's capacity under cfg (capacity.h) at the workload's mean lengths, times the
 * replicas; 0 for disaggregated pools (no one steady state here). */
static double capacity_of(const cli_point_serve_state *s,
                          const sim_engine_cfg *cfg)
{
    if (s->cluster.prefill > 0 || !s->w->n)
        return 0.0;
    double in = 0.0, out = 0.0;
    for (size_t i = 0; i < s->w->n; i++) {
        in += (double)s->w->reqs[i].input_tokens;
        out += (double)s->w->reqs[i].output_tokens;
    }
    const double n = (double)s->w->n;
    if (s->cc.per_replica) { /* mixed hardware: each replica's own (the point's devices) */
        double rps = 0.0;
        for (int r = 0; r < s->cc.replicas; r++)
            rps += sim_capacity_rps(&s->cc.per_replica[r], in / n, out / n);
        return rps;
    }
    const int replicas = s->cc.replicas > 1 ? s->cc.replicas : 1;
    return sim_capacity_rps(cfg, in / n, out / n) * (double)replicas;
}

/* Mixed hardware under draw dr: every replica's device and step drawn as the point's are
 * (dr NULL: as they are). */
static sim_status mixed_draw(sim_cluster_cfg *cc, const sim_unc_draw *dr, const sim_workload *w,
                             sim_engine_result *res, sim_cluster_result *cl, sim_err *err)
{
    const size_t n = (size_t)cc->replicas;
    sim_engine_cfg *e = calloc(n, sizeof *e);
    sim_hw *hw = calloc(n, sizeof *hw);
    sim_status st = e && hw ? SIM_OK : sim_fail(err, SIM_EINTERNAL, "out of memory");
    for (size_t r = 0; !st && r < n; r++) {
        e[r] = cc->per_replica[r];
        e[r].observer = NULL;
        if (dr) {
            e[r].step = sim_unc_apply(&cc->per_replica[r].step, dr, &hw[r]);
            sim_unc_apply_frontend(&e[r].frontend, dr);
        }
    }
    cc->per_replica = e;
    if (!st)
        st = sim_cluster_run(cc, w, res, cl, err);
    free(e);
    free(hw);
    return st;
}

/* One serving simulation of w under draw dr (no observers), its metrics' fields into f. */
static sim_status serve_draw(const cli_opts *o, const cli_point_serve_state *s,
                             const sim_unc_draw *dr, const sim_workload *w, sim_field *f,
                             size_t *nf, double *capacity, sim_err *err)
{
    sim_engine_cfg cfg = s->cfg, pre = s->prefill;
    sim_hw hw, hw_pre;
    cfg.observer = pre.observer = NULL;
    if (dr) {
        cfg.step = sim_unc_apply(&s->cfg.step, dr, &hw);
        sim_unc_apply_frontend(&cfg.frontend, dr);
        if (s->cluster.prefill > 0) {
            pre.step = sim_unc_apply(&s->prefill.step, dr, &hw_pre);
            sim_unc_apply_frontend(&pre.frontend, dr);
        }
    }
    sim_engine_result res = {0};
    sim_cluster_result cl = {0};
    sim_status st;
    if (s->cluster.prefill > 0) {
        sim_disagg_cfg dc = {.prefill = &pre,
                             .decode = &cfg,
                             .kv_stream = o->kv_stream,
                             .n_prefill = s->cluster.prefill,
                             .n_decode = s->cluster.decode};
        st = sim_disagg_run(&dc, w, &res, &cl, err);
    } else if (s->cc.replicas > 1 || s->cc.autoscale.max > 0) {
        sim_cluster_cfg cc = s->cc; /* the point's router, its view, the autoscaler */
        cc.engine = &cfg;
        cc.observer = NULL;
        st = s->cc.per_replica ? mixed_draw(&cc, dr, w, &res, &cl, err)
                               : sim_cluster_run(&cc, w, &res, &cl, err);
    } else {
        st = sim_engine_run(&cfg, w, &res, err);
    }
    sim_serve_metrics m;
    if (!st && sim_metrics_compute(&res, &s->slo, &m))
        st = sim_fail(err, SIM_EINTERNAL, "out of memory computing metrics");
    if (!st) {
        sim_serve_report rep = {.cfg = &cfg,
                                .w = w,
                                .res = &res,
                                .m = &m,
                                .request_rate = o->trace || o->rate_schedule ? NAN : o->rate,
                                .usd_per_gpu_hour = s->usd_per_gpu_hour,
                                .gpus = s->gpus,
                                .cluster = &cl};
        *nf = sim_report_serve_fields(&rep, SIM_FIELDS_JSON, f);
        *nf += sim_report_serve_fields(&rep, SIM_FIELDS_JSON_TAIL, f + *nf);
    }
    if (!st && capacity)
        *capacity = capacity_of(s, &cfg);
    sim_cluster_result_free(&cl);
    sim_engine_result_free(&res);
    return st;
}

/* The offered load in requests per second: the rate, or a trace's requests over its span. */
static double offered_rps(const cli_opts *o, const sim_workload *w)
{
    if (!o->trace)
        return isfinite(o->rate) ? o->rate : 0.0;
    if (w->n < 2)
        return 0.0;
    const double span_s = (double)(w->reqs[w->n - 1].arrival_ns - w->reqs[0].arrival_ns) * 1e-9;
    return span_s > 0.0 ? (double)(w->n - 1) / span_s : 0.0;
}

sim_status cli_point_serve_band(const cli_opts *o, const cli_load_result *L,
                                const cli_point_serve_state *s, cli_point_draws *d, sim_err *err)
{
    memset(d, 0, sizeof *d);
    const int n = cli_point_draw_count(o, true);
    if (n == 0)
        return SIM_OK;
    sim_unc_engine_ref eng;
    sim_unc_engine_ref_of(L->eng.name, L->eng.engine, &L->model, &eng);
    sim_unc_table *t = malloc(sizeof *t);
    sim_field *f = malloc((size_t)2 * SIM_FIELDS_MAX * sizeof *f);
    double nominal[SIM_UNC_BAND_MAX], scale[SIM_UNC_BAND_MAX];
    sim_status st = t && f ? cli_point_unc_table(o, L->cache, t, err)
                           : sim_fail(err, SIM_EINTERNAL, "out of memory");
    /* the default count's draws serve a prefix; each value is the full run's times the draw's
     * ratio to the nominal run of the same prefix */
    sim_workload part = *s->w;
    if (o->uncertainty < 0 && part.n > SERVE_PREFIX_MIN) {
        size_t k = (part.n + 11) / 12;
        part.n = k < SERVE_PREFIX_MIN ? SERVE_PREFIX_MIN : k;
    }
    /* sessions: a turn of the prefix whose next turn lies past it is its session's last (the
     * engines would send the next one, past the prefix's arrays) */
    sim_session_link *links = NULL;
    if (!st && part.links && part.n < s->w->n) {
        links = malloc(part.n * sizeof *links);
        if (!links)
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        for (size_t i = 0; links && i < part.n; i++) {
            links[i] = part.links[i];
            if (links[i].follow >= (int64_t)part.n)
                links[i].follow = 0;
        }
        part.links = links;
    }
    size_t nf = 0;
    if (!st) { /* the nominal fields (the full run's, from the state) */
        sim_serve_report rep = {.cfg = &s->cfg,
                                .w = s->w,
                                .res = &s->res,
                                .m = &s->m,
                                .request_rate = o->trace || o->rate_schedule ? NAN : o->rate,
                                .usd_per_gpu_hour = s->usd_per_gpu_hour,
                                .gpus = s->gpus,
                                .cluster = &s->cluster};
        nf = sim_report_serve_fields(&rep, SIM_FIELDS_JSON, f);
        nf += sim_report_serve_fields(&rep, SIM_FIELDS_JSON_TAIL, f + nf);
        st = start_draws(d, n, serve_keys, N_SERVE_KEYS, f, nf, nominal, err);
    }
    const bool prefix = part.n < s->w->n;
    if (!st && prefix) {
        double *base = malloc(SIM_UNC_BAND_MAX * sizeof *base);
        if (!base)
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        if (!st && !(st = serve_draw(o, s, NULL, &part, f, &nf, NULL, err)))
            for (size_t k = 0; k < d->n_keys; k++)
                scale[k] = field_num(f, nf, d->keys[k], &base[k]) && base[k] != 0.0
                               ? nominal[k] / base[k]
                               : 1.0;
        free(base);
    }
    double *cap = st ? NULL : malloc((size_t)n * sizeof *cap);
    if (!st && !cap)
        st = sim_fail(err, SIM_EINTERNAL, "out of memory");
    for (int i = 0; !st && i < n; i++) {
        sim_unc_draw dr;
        sim_unc_draw_make_n(t, s->cfg.step.hw, &eng, 0, i, n, 0, &dr);
        if (!(st = serve_draw(o, s, &dr, &part, f, &nf, &cap[i], err))) {
            record(d, i, f, nf, nominal, prefix ? scale : NULL);
            power_factor(d, i, &dr);
        }
    }
    if (!st)
        st = finish_band(d, err);
    if (!st)
        st = basis_text(t, s->cfg.step.hw, &eng,
                        cli_point_draws_of(d, "joules_per_output_token") != NULL, d->band.basis,
                        sizeof d->band.basis, err);
    if (!st) {
        d->capacity_rps = capacity_of(s, &s->cfg);
        d->offered_rps = offered_rps(o, s->w);
        sim_unc_band_of(cap, (size_t)n, &d->capacity_lo, &d->capacity_hi);
    }
    free(cap);
    free(links);
    free(t);
    free(f);
    return st;
}

void cli_point_warn_capacity(const cli_point_draws *d, FILE *warn)
{
    if (!warn || !(d->capacity_rps > 0.0) || !(d->offered_rps > 0.0) || !(d->capacity_lo > 0.0))
        return;
    const double x = d->offered_rps / d->capacity_rps, hi = d->offered_rps / d->capacity_lo,
                 lo = d->offered_rps / d->capacity_hi;
    if (x > 1.0)
        fprintf(warn,
                "infersim: warning: the offered load is %.2f x the engine's capacity (%.2f "
                "req/s, 80 %%: %.2f-%.2f): queues grow without bound, latencies depend on the "
                "run's length\n",
                x, d->capacity_rps, d->capacity_lo, d->capacity_hi);
    else if (hi > 1.0)
        fprintf(warn,
                "infersim: warning: the offered load is %.2f x the engine's capacity (80 %%: "
                "%.2f-%.2f) and its band straddles 1: near saturation a small capacity error "
                "is a large latency error\n",
                x, lo, hi);
}

void cli_point_warn_provenance(const cli_point_draws *d, const sim_hw *hw, FILE *warn)
{
    if (!warn || !hw || d->band.draws <= 0 || !sim_hw_default_only(hw))
        return;
    fprintf(warn,
            "infersim: note: %s (%s) has no measured efficiency (default-only: none fitted on "
            "its rows or inherited from a measured part); its bands are the uncertainty table's "
            "default-provenance spread, an architecture guess\n",
            hw->name, hw->path[0] ? hw->path : "device file");
}
