/* cli_run.c - the run and roofline commands. */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_point.h"

#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "pp.h"
#include "timeline_run.h"

/* The run's timeline over pipeline stages (speculative decoding is refused with --pp). */
static sim_status write_run_trace_pp(const cli_opts *o, const sim_run_cfg *cfg, bool all,
                                     sim_err *err)
{
    const sim_seq_group pre = sim_run_prefill_group(cfg);
    const sim_seq_group dec = {.count = cfg->batch, .q = 1, .c = cfg->input_len, .logits = 1};
    const sim_seq_group *d = cfg->output_len > 1 ? &dec : NULL;
    const int ranks = all ? cfg->step.tp : 1;
    char what[96];
    snprintf(what, sizeof what, "the run timeline of %d stage%s x %d rank%s", cfg->step.pp,
             cfg->step.pp > 1 ? "s" : "", ranks, ranks > 1 ? "s" : "");
    double est = sim_timeline_run_pp_estimate_bytes(&cfg->step, &pre, d, ranks);
    if (est < 0)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_status st = cli_point_check_trace_size(o, est, what, err);
    return st ? st : sim_timeline_run_pp(o->chrome_trace, &cfg->step, &pre, d, all, err);
}

/* The run's timeline: its prefill step and its first decode (or verify) step. */
static sim_status write_run_trace(const cli_opts *o, const sim_run_cfg *cfg,
                                  const sim_run_result *r, sim_err *err)
{
    bool all = false;
    if (o->trace_ranks && !(all = strcmp(o->trace_ranks, "all") == 0) &&
        strcmp(o->trace_ranks, "one") != 0)
        return sim_fail(err, SIM_EINPUT, "--trace-ranks: value '%s', expected all or one",
                        o->trace_ranks);
    if (sim_pp_stages(&cfg->step) > 1) /* one process per stage */
        return write_run_trace_pp(o, cfg, all, err);
    sim_step_result *dec = NULL;
    if (cfg->output_len > 1) {
        dec = calloc(1, sizeof *dec);
        if (!dec)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        bool spec = sim_spec_active(cfg->spec);
        int64_t q = spec ? cfg->spec->k + 1 : 1;
        sim_seq_group g = {.count = cfg->batch, .q = q, .c = cfg->input_len, .logits = q};
        sim_step_price(&cfg->step, &g, 1, dec);
    }
    char what[64];
    snprintf(what, sizeof what, "the run timeline of %d rank%s", all ? cfg->step.tp : 1,
             all && cfg->step.tp > 1 ? "s" : "");
    sim_status st = cli_point_check_trace_size(
        o, sim_timeline_run_estimate_bytes(&r->prefill, dec, all ? cfg->step.tp : 1), what, err);
    if (!st)
        st = sim_timeline_run(o->chrome_trace, &cfg->step, &r->prefill, dec, all, err);
    free(dec);
    return st;
}

sim_status cli_run_cmd(const cli_opts *o, FILE *out, sim_err *err)
{
    cli_load_result *L = calloc(1, sizeof *L);
    sim_run_result *r = calloc(1, sizeof *r);
    if (!L || !r) {
        free(L);
        free(r);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    sim_run_cfg cfg;
    cli_point_draws draws = {0};
    sim_status st = cli_point_run(o, L, NULL, &cfg, r, err);
    if (!st)
        st = cli_point_run_band(o, L, &cfg, &draws, err);
    if (!st)
        cli_point_warn_provenance(&draws, cfg.step.hw, o->warn);
    if (!st && o->chrome_trace)
        st = write_run_trace(o, &cfg, r, err);
    if (!st && o->html)
        st = sim_html_run(o->html, o->cmdline ? o->cmdline : "infersim run", &cfg, r, err);
    if (!st && (st = sim_report_run(out, L->fmt, &cfg, r)))
        sim_fail(err, st, "writing the result failed");
    cli_point_draws_free(&draws);
    free(r);
    free(L);
    return st;
}

sim_status cli_run_roofline(const cli_opts *o, FILE *out, sim_err *err)
{
    cli_load_result *L = calloc(1, sizeof *L);
    sim_step_result *pre = calloc(1, sizeof *pre), *dec = calloc(1, sizeof *dec);
    if (!L || !pre || !dec) {
        free(L);
        free(pre);
        free(dec);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    sim_status st = cli_load_common(o, false, L, NULL, err);
    sim_roofline rf = {.hw = &L->hw,
                       .dtype = SIM_DT_BF16,
                       .batch = o->batch,
                       .input_len = o->input_len,
                       .group_size =
                           cli_opt_given(o, CLI_OPT_ID_WEIGHT_GROUP_SIZE) ? o->group_size : 128};
    if (!st && o->model) {
        rf.dtype = sim_graph_gemm_dtype(&L->step.prec);
        rf.group_size = L->step.prec.group_size;
    }
    if (!st && o->dtype && !(st = cli_opt_parse_dtype("--dtype", o->dtype, &rf.dtype, err)) &&
        L->hw.peak_flops[rf.dtype] <= 0.0)
        st = sim_fail(err, SIM_EINPUT,
                      "--dtype: value %s is not computed by %s (%s has no "
                      "dense_tflops.%s)",
                      o->dtype, L->hw.name, L->hw.path, o->dtype);
    if (!st && o->model) {
        if (o->input_len > L->model.max_positions)
            st =
                sim_fail(err, SIM_EINPUT,
                         "--input-len: value %lld is past the context of %s "
                         "(max_position_embeddings %lld)",
                         (long long)o->input_len, L->model.path, (long long)L->model.max_positions);
        sim_step_cfg pcfg = L->step;
        pcfg.eager = true;
        sim_seq_group gp = {.count = o->batch, .q = o->input_len, .c = 0, .logits = 1};
        sim_seq_group gd = {.count = o->batch, .q = 1, .c = o->input_len, .logits = 1};
        sim_step_price(&pcfg, &gp, 1, pre);
        sim_step_price(&L->step, &gd, 1, dec);
        rf.step = &L->step;
        rf.prefill = pre;
        rf.decode = dec;
    }
    if (!st && (st = sim_report_roofline(out, L->fmt, &rf)))
        sim_fail(err, st, "writing the result failed");
    free(pre);
    free(dec);
    free(L);
    return st;
}
