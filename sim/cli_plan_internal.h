/* cli_plan_internal.h - what the plan command's files share (private to sim/cli_plan*.c): the
 * candidates of the search and how they are enumerated (cli_plan_space.c). */
#ifndef SIM_CLI_PLAN_INTERNAL_H
#define SIM_CLI_PLAN_INTERNAL_H

#include "cli_load.h"
#include "cli_plan.h"
#include "cli_rate.h"

enum { PLAN_MAX_NAMES = 32, PLAN_EXTRA_REPLICAS = 3, PLAN_MAX_SPECS = 8 };

/* One speculation of --spec-methods: method "none", "eagle", "eagle3" or "mtp", and K (0: the
 * default, 3 for EAGLE heads as SGLang's --speculative-num-steps, the model's
 * num_nextn_predict_layers for MTP as vLLM's). */
typedef struct plan_spec {
    char method[16];
    int64_t k;
} plan_spec;

typedef struct plan_cand {
    int model, hw; /* indices into the plan's names */
    const char *engine;
    bool fp8, kv8, disagg, dp_attention; /* kv8: an fp8 KV cache (--kv-cache-dtypes fp8) */
    int spec;        /* index into the plan's speculations */
    int64_t spec_k;  /* its K on this model */
    int64_t tp, pp, ep, dp;
} plan_cand;

typedef struct plan_ctx {
    const cli_opts *o;
    char *names; /* the --model and --hw lists, split in place (owned) */
    const char *models[PLAN_MAX_NAMES], *hws[PLAN_MAX_NAMES];
    char hf[PLAN_MAX_NAMES][160]; /* per model */
    plan_spec specs[PLAN_MAX_SPECS]; /* --spec-methods, in order */
    int n_specs;
    /* per model and speculation: the dataset of its published acceptance ("": none found) */
    char spec_data[PLAN_MAX_NAMES][PLAN_MAX_SPECS][48];
    int n_models, n_hws;
    plan_cand *c;
    size_t n, cap;
    cli_load_cache cache;
    cli_plan_objective objective;
    sim_dataset ds; /* --dataset-name's (a trace's lengths measured), when has_ds */
    bool has_ds;
} plan_ctx;

/* The flags' values a candidate's options point at (they must outlive the options). */
typedef struct cli_plan_flags {
    char tp[24], pp[24], ep[24], dp[24], replicas[24], disagg[48], max_num_seqs[24];
    char spec_json[160], spec_sizes[3][24];
} cli_plan_flags;

/* Candidate k's options: the plan's flags with its model, device, engine, layout, precision,
 * KV-cache format and speculation set as the command line would (no outputs). A DP-attention
 * candidate without the user's --max-num-seqs runs at most DeepEP's low-latency buffer x ep / dp
 * sequences per DP group (128 x 8 / 8 = 128 at --ep 8 --dp 8), the largest decode batch whose
 * dispatch fits the buffer (step.h sim_step_check_a2a_tokens): the engines' defaults (SGLang's
 * 2048 running requests) would be refused. */
sim_status cli_plan_cand_opts(const plan_ctx *c, const plan_cand *k, cli_plan_flags *f,
                              cli_opts *q, sim_err *err);

/* --html (cli_plan_html.c): the deployments that serve the rate as charts, the report's text,
 * and the winner served once more at the rate with each instance's run over time. */
sim_status cli_plan_html(const plan_ctx *c, const cli_plan_report *rep, sim_err *err);

/* --kv-cache-dtypes and --spec-methods checked, the speculations listed into c->specs in order
 * (without the flag only none). SIM_EINPUT names the item. */
sim_status cli_plan_variants(plan_ctx *c, sim_err *err);

/* The flags of candidate k's KV-cache format and speculation, in its engine's own spelling (the
 * launch line's: vLLM's and TensorRT-LLM's --speculative-config JSON, SGLang's
 * --speculative-algorithm with its sizes), into q; spec_json must outlive q. Acceptance: the
 * flags given, else --spec-acceptance-data of the published row c->spec_data names. */
sim_status cli_plan_variant_flags(const plan_ctx *c, const plan_cand *k, cli_opts *q,
                                  char spec_json[160], char spec_sizes[3][24], sim_err *err);

/* A speculative candidate with no acceptance to price it by (none given, none published for
 * its method on its model): r becomes unfit, saying so, and true is returned. */
bool cli_plan_spec_unpriced(const plan_ctx *c, const plan_cand *k, cli_plan_row *r);

/* Whether the flags give an acceptance of their own (rate, length, rates or data). */
bool cli_plan_acceptance_given(const cli_opts *o);

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
sim_status cli_plan_set_flag(cli_opts *q, cli_opt_id id, const char *v, sim_err *err);

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
