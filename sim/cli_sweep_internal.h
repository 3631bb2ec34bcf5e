/* cli_sweep_internal.h - what the sweep command's files share (cli_sweep.c: the grid, the points
 * and the rows; cli_sweep_decision.c: how sure the winner is). Private to sim/cli_sweep*.c. */
#ifndef SIM_CLI_SWEEP_INTERNAL_H
#define SIM_CLI_SWEEP_INTERNAL_H

#include <stdio.h>

#include "cli_grid.h"
#include "cli_load.h"
#include "strbuf.h"
#include "sweep.h"

/* sweep run: a thread's decode steps (run.h's sim_run_decode) and the group of points they are
 * of: the point's grid index with its --output-len coordinate taken out. */
typedef struct sweep_decode {
    sim_run_decode run;
    size_t group;
} sweep_decode;

typedef struct sweep_ctx {
    int mask; /* CLI_OPT_CMD_RUN or CLI_OPT_CMD_SERVE */
    const sim_grid *g;
    sim_grid_shard shard;
    cli_opts *opts;     /* per shard point */
    sim_status *opt_st; /* per shard point: building its options */
    sim_err *opt_err;
    cli_load_cache cache;
    bool jsonl;
    bool has_slo;
    sim_slo slo;
    int pct;       /* SLO percentile: 50, 90 or 99 */
    bool min_cost; /* --objective cost: the best point is the cheapest per output token */
    bool min_energy; /* --objective energy: the least energy per output token (power.h) */
    bool bands;    /* --uncertainty on (its first point's): KEY_lo and KEY_hi columns */
    size_t winner, runner; /* the best or cheapest row and the one after it (n: none) */
    double power_sigma;    /* --objective energy: the table's power sigma (unc.h) */
    sweep_decode *decode;  /* sweep run: one per thread (n_decode), else NULL */
    int n_decode;
    size_t out_stride, out_n; /* the --output-len dimension's stride and size (1, 1: none) */
} sweep_ctx;

/* The decision's line of the summary: the winner against the runner-up over the draws. */
void cli_sweep_decision_line(FILE *f, const sweep_ctx *c, const sim_sweep_row *rows, size_t n);

/* The same as text ("" without draws, a winner or a runner-up). */
void cli_sweep_decision_text(const sweep_ctx *c, const sim_sweep_row *rows, size_t n,
                             sim_strbuf *b);

/* Row i's decision columns (--uncertainty on): decision ("winner", "runner_up" or empty),
 * beat_probability (that it beats the other over the paired draws), decision_tie,
 * decision_versus_point (the other's point); CSV fields or JSONL keys as c->jsonl says. */
void cli_sweep_decision_cols(const sweep_ctx *c, const sim_sweep_row *rows, size_t n, size_t i,
                             sim_strbuf *b);

#endif
