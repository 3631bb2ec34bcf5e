/* timeline_run.c - a static batch's timeline: its steps per rank, or per pipeline stage. */
#include "timeline_run.h"

#include <math.h>
#include <stdlib.h>

#include "pp.h"
#include "report.h"
#include "timeline_detail.h"

enum { TID_ISSUE = SIM_TIMELINE_DETAIL_TID_ISSUE };

sim_status sim_timeline_run(const char *path, const sim_step_cfg *cfg,
                            const sim_step_result *prefill, const sim_step_result *decode,
                            bool all_ranks, sim_err *err)
{
    sim_timeline t;
    sim_targs meta;
    sim_targs_reset(&meta);
    int ranks = all_ranks ? cfg->tp : 1;
    sim_targs_int(&meta, "tp", cfg->tp);
    sim_targs_int(&meta, "ranks_written", ranks);
    sim_targs_str(&meta, "ranks",
                  all_ranks ? "all: every GPU rank (tensor-parallel ranks are identical)"
                            : "one: GPU 0 stands for every rank (tensor-parallel ranks are "
                              "identical; --trace-ranks all writes each)");
    sim_status st = sim_timeline_open_meta(&t, path, &meta, err);
    if (st)
        return st;
    for (int rank = 0; rank < ranks; rank++) {
        char name[64];
        snprintf(name, sizeof name, "GPU %d", rank);
        sim_timeline_name_process(&t, rank, name, rank);
        sim_timeline_detail_tracks(&t, rank, true);
        sim_timeline_detail_writer w = {.t = &t, .pid = rank, .detail = SIM_TIMELINE_OP};
        int64_t t0 = 0;
        const sim_step_result *steps[2] = {prefill, decode};
        static const char *const names[2] = {"prefill step", "decode step"};
        for (int k = 0; k < 2; k++) {
            if (!steps[k])
                continue;
            sim_targs a;
            sim_timeline_detail_step_args(&a, steps[k]);
            int64_t d = sim_timeline_detail_step_ns(steps[k]);
            sim_timeline_slice(&t, rank, TID_ISSUE, names[k], "step", t0, d, &a);
            sim_timeline_detail_write_step(&w, steps[k], t0);
            t0 += d;
        }
    }
    return sim_timeline_close(&t, err);
}

/* ------------------------------------------------------------------------------------------ */
/* A run over pipeline stages */

/* Run-trace state over the stages: one process per stage and rank (pid stage x ranks + rank). */
typedef struct pp_writer {
    sim_timeline *t;
    const sim_step_cfg *cfg;
    int ranks;
    int64_t *net_free_ns; /* per process */
    int64_t next_id;      /* async ids of the transfers */
} pp_writer;

/* One micro-batch at stage k from start_ns (already priced as r): its stage slice with the
 * stage's ops nested inside, on every rank of the stage. */
static void write_stage_mb(pp_writer *pw, const sim_step_result *r, const char *name, int k, int j,
                           int64_t start_ns, double stage_ns)
{
    const sim_timeline_detail_part p = sim_timeline_detail_stage(pw->cfg, k);
    const int64_t dur = (int64_t)floor(stage_ns);
    /* the stage time overlaps its own collectives (pp.c); when that hides more than the step's
     * share per op would, the ops do not fit: the stage slice stands alone */
    const bool nest = sim_timeline_detail_part_ns(r, &p) <= dur;
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_int(&a, "stage", k);
    sim_targs_int(&a, "first_layer", p.l0);
    sim_targs_int(&a, "last_layer", p.l1 - 1);
    sim_targs_int(&a, "micro_batch", j);
    sim_field f[SIM_FIELDS_STAGE_MAX];
    sim_timeline_detail_add_fields(&a, f, sim_report_step_fields(r, SIM_FIELDS_TRACE_STAGE, f));
    sim_targs_num(&a, "stage_us", stage_ns / 1e3);
    for (int rank = 0; rank < pw->ranks; rank++) {
        const int pid = k * pw->ranks + rank;
        sim_timeline_slice(pw->t, pid, TID_ISSUE, name, "stage", start_ns, dur, &a);
        if (!nest)
            continue;
        sim_timeline_detail_writer w = {.t = pw->t, .pid = pid, .detail = SIM_TIMELINE_OP};
        w.net_free_ns = pw->net_free_ns[pid] > start_ns ? pw->net_free_ns[pid] : start_ns;
        sim_timeline_detail_write_part(&w, r, &p, start_ns);
        pw->net_free_ns[pid] = w.net_free_ns;
    }
}

/* The activations of micro-batch j sent from stage k to k + 1: an async span on each rank. */
static void write_send(pp_writer *pw, const sim_step_result *r, int k, int j, int64_t from_ns,
                       double xfer_ns)
{
    char name[48];
    snprintf(name, sizeof name, "activations to stage %d", k + 1);
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_int(&a, "micro_batch", j);
    sim_targs_num(&a, "bytes_per_gpu", sim_pp_xfer_bytes(pw->cfg, (double)r->graph.tokens));
    sim_targs_str(&a, "link", sim_pp_boundary_scaleout(pw->cfg, k) ? "scale-out" : "scale-up");
    sim_targs_num(&a, "xfer_us", xfer_ns / 1e3);
    for (int rank = 0; rank < pw->ranks; rank++) {
        const int pid = k * pw->ranks + rank;
        const int64_t id = ++pw->next_id;
        sim_timeline_async(pw->t, 'b', pid, "pp", name, id, from_ns, &a);
        sim_timeline_async(pw->t, 'e', pid, "pp", name, id, from_ns + (int64_t)floor(xfer_ns),
                           NULL);
    }
}

/* One step's micro-batches through the stages as a one-shot pipeline from base_ns (pp.h: fill
 * and drain); returns the makespan's whole nanoseconds. */
static int64_t write_pp_step(pp_writer *pw, const sim_step_cfg *cfg, const sim_seq_group *g,
                             const char *what, int64_t base_ns, sim_step_result *r,
                             sim_seq_group *scratch)
{
    const int pp = sim_pp_stages(cfg), m = sim_pp_micro_batches(cfg, g, 1);
    double free_ns[SIM_PP_MAX] = {0};
    for (int j = 0; j < m; j++) {
        size_t k = sim_pp_micro_batch(g, 1, j, m, scratch);
        sim_step_price(cfg, scratch, k, r);
        char name[48];
        snprintf(name, sizeof name, "%s micro-batch %d", what, j);
        double arrive = 0.0;
        for (int s = 0; s < pp; s++) {
            double ts = sim_pp_stage_ns(cfg, r, s);
            double x = s + 1 < pp ? sim_pp_xfer_ns(cfg, (double)r->graph.tokens, s) : 0.0;
            double start = sim_pp_enter(&free_ns[s], &arrive, ts, x);
            write_stage_mb(pw, r, name, s, j, base_ns + (int64_t)floor(start), ts);
            if (s + 1 < pp)
                write_send(pw, r, s, j, base_ns + (int64_t)floor(free_ns[s]), x);
        }
    }
    return (int64_t)ceil(free_ns[pp - 1]);
}

sim_status sim_timeline_run_pp(const char *path, const sim_step_cfg *cfg,
                               const sim_seq_group *prefill, const sim_seq_group *decode,
                               bool all_ranks, sim_err *err)
{
    const int pp = sim_pp_stages(cfg), ranks = all_ranks ? cfg->tp : 1;
    sim_step_result *r = malloc(sizeof *r);
    int64_t *net_free = calloc((size_t)pp * (size_t)ranks, sizeof *net_free);
    if (!r || !net_free) {
        free(r);
        free(net_free);
        return sim_fail(err, SIM_EINTERNAL, "out of memory for the trace");
    }
    sim_timeline t;
    sim_targs meta;
    sim_targs_reset(&meta);
    sim_targs_int(&meta, "tp", cfg->tp);
    sim_targs_int(&meta, "pp", pp);
    sim_targs_int(&meta, "ranks_written", ranks);
    sim_targs_str(&meta, "ranks",
                  all_ranks ? "all: every GPU rank of every stage (a stage's tensor-parallel "
                              "ranks are identical)"
                            : "one per stage: its first GPU stands for its ranks (--trace-ranks "
                              "all writes each)");
    sim_targs_str(&meta, "pipeline",
                  "one process per stage; each step's micro-batches as a one-shot pipeline (fill "
                  "and drain); the decode step is one round drawn alone (the run's TPOT is the "
                  "steady round, where rounds overlap)");
    sim_status st = sim_timeline_open_meta(&t, path, &meta, err);
    pp_writer pw = {.t = &t, .cfg = cfg, .ranks = ranks, .net_free_ns = net_free};
    for (int k = 0; !st && k < pp; k++) {
        const sim_timeline_detail_part p = sim_timeline_detail_stage(cfg, k);
        for (int rank = 0; rank < ranks; rank++) {
            char name[96];
            if (all_ranks)
                snprintf(name, sizeof name, "stage %d GPU %d: layers %lld-%lld", k,
                         k * cfg->tp + rank, (long long)p.l0, (long long)(p.l1 - 1));
            else
                snprintf(name, sizeof name, "stage %d: layers %lld-%lld", k, (long long)p.l0,
                         (long long)(p.l1 - 1));
            const int pid = k * ranks + rank;
            sim_timeline_name_process(&t, pid, name, pid);
            sim_timeline_detail_tracks(&t, pid, true);
        }
    }
    if (!st) {
        /* prefill runs eagerly (run.h), its decode steps as configured */
        sim_step_cfg pre = *cfg;
        pre.eager = sim_step_eager(cfg, true);
        sim_seq_group scratch;
        int64_t end = write_pp_step(&pw, &pre, prefill, "prefill", 0, r, &scratch);
        if (decode)
            write_pp_step(&pw, cfg, decode, "decode", end, r, &scratch);
        st = sim_timeline_close(&t, err);
    }
    free(r);
    free(net_free);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Size estimates (timeline_detail.h) */

double sim_timeline_run_estimate_bytes(const sim_step_result *prefill,
                                       const sim_step_result *decode, int ranks)
{
    double n[SIM_TIMELINE_DETAIL_EV_KINDS] = {0};
    n[SIM_TIMELINE_DETAIL_EV_META] =
        10; /* the process and its four tracks, each named and sorted */
    const sim_step_result *steps[2] = {prefill, decode};
    for (int k = 0; k < 2; k++)
        if (steps[k]) {
            n[SIM_TIMELINE_DETAIL_EV_STEP] += 1;
            sim_timeline_detail_count(steps[k], SIM_TIMELINE_OP, n);
        }
    for (int k = 0; k < SIM_TIMELINE_DETAIL_EV_KINDS; k++)
        n[k] *= ranks;
    return sim_timeline_detail_bytes(n);
}

double sim_timeline_run_pp_estimate_bytes(const sim_step_cfg *cfg, const sim_seq_group *prefill,
                                          const sim_seq_group *decode, int ranks)
{
    sim_step_result *r = malloc(sizeof *r);
    if (!r)
        return -1.0; /* out of memory */
    const int pp = sim_pp_stages(cfg);
    double n[SIM_TIMELINE_DETAIL_EV_KINDS] = {0};
    n[SIM_TIMELINE_DETAIL_EV_META] =
        10.0 * pp; /* each stage's process and its four tracks, named and sorted */
    sim_step_cfg pre = *cfg;
    pre.eager = sim_step_eager(cfg, true);
    const sim_seq_group *steps[2] = {prefill, decode};
    for (int k = 0; k < 2; k++) {
        if (!steps[k])
            continue;
        const int m = sim_pp_micro_batches(cfg, steps[k], 1);
        for (int j = 0; j < m; j++) {
            sim_seq_group g;
            size_t c = sim_pp_micro_batch(steps[k], 1, j, m, &g);
            sim_step_price(k == 0 ? &pre : cfg, &g, c, r);
            /* the stages' parts add up to the step; a stage slice each, a transfer each but the
             * last (begun and ended) */
            sim_timeline_detail_count(r, SIM_TIMELINE_OP, n);
            n[SIM_TIMELINE_DETAIL_EV_STAGE] += pp;
            n[SIM_TIMELINE_DETAIL_EV_SEND] += pp - 1;
        }
    }
    free(r);
    for (int k = 0; k < SIM_TIMELINE_DETAIL_EV_KINDS; k++)
        n[k] *= ranks;
    return sim_timeline_detail_bytes(n);
}
