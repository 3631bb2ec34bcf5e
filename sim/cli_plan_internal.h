/* cli_plan_internal.h - what the plan command's files share (private to sim/cli_plan*.c): the
 * candidates of the search and how they are enumerated (cli_plan_space.c). */
#ifndef SIM_CLI_PLAN_INTERNAL_H
#define SIM_CLI_PLAN_INTERNAL_H

#include "cli_load.h"
#include "cli_plan.h"
#include "cli_rate.h"

enum { PLAN_MAX_NAMES = 32, PLAN_EXTRA_REPLICAS = 3 };

typedef struct plan_cand {
    int model, hw; /* indices into the plan's names */
    const char *engine;
    bool fp8, disagg, dp_attention;
    int64_t tp, pp, ep, dp;
} plan_cand;

typedef struct plan_ctx {
    const cli_opts *o;
    char *names; /* the --model and --hw lists, split in place (owned) */
    const char *models[PLAN_MAX_NAMES], *hws[PLAN_MAX_NAMES];
    char hf[PLAN_MAX_NAMES][160]; /* per model */
    int n_models, n_hws;
    plan_cand *c;
    size_t n, cap;
    cli_load_cache cache;
    cli_plan_objective objective;
} plan_ctx;

/* Splits a comma-separated list in place into out (at most PLAN_MAX_NAMES). */
sim_status cli_plan_split(char *s, const char **out, int *n, const char *flag, sim_err *err);

/* The checkpoint's Hugging Face id for the launch lines: the model file's first
 * infersim_hf_ids entry, else the name as given. */
void cli_plan_hf_id(const char *model, char *buf, size_t len);

/* Appends every candidate of model m on device h to c, loading each file once into c's cache. */
sim_status cli_plan_enumerate(plan_ctx *c, int m, int h, sim_err *err);

/* P:D of a disaggregated candidate, in the order tried. */
enum { CLI_PLAN_N_PD = 14 };
extern const int64_t cli_plan_pd[CLI_PLAN_N_PD][2];

/* Sets flag `name` to `v` in q as the command line would (v must outlive q). */
sim_status cli_plan_set_flag(cli_opts *q, const char *name, const char *v, sim_err *err);

/* --request-rate LO:HI, for a row r that serves HI (c->o->rate) under the SLO, q its candidate's
 * options (cli_plan_range.c): the fewest instances of its kind that serve LO (replicas from
 * ceil(LO / r1); P:D in the order tried, up to HI's), and the highest rate the deployment sized
 * for HI meets the SLO at (capacity's search, cli_rate.h). A row that does not meet it at LO
 * with HI's deployment becomes missed. rr: the candidate's scratch runs. */
sim_status cli_plan_range(const plan_ctx *c, const cli_opts *q, cli_rate_run *rr,
                          cli_plan_row *r, sim_err *err);

/* The row's bands (--uncertainty on; nothing with 0): the met serving run s of deployment q at
 * the target rate (L its files, cs the search that judged it) repeated under each parameter draw
 * with the same workload (cli_point_serve_band), each draw judged against the same SLO. */
sim_status cli_plan_band(const cli_opts *q, const cli_load_result *L,
                         const cli_point_serve_state *s, const cli_rate_search *cs,
                         cli_plan_row *r, sim_err *err);

#endif
