/* cli_internal.h - what the command line's files share (private to sim/cli*.c).
 *
 * cli.c holds the option table, the command table, flag parsing, file loading and the run / serve /
 * roofline / hw / trace-check commands; cli_sweep.c the sweep and merge commands; cli_validate.c
 * the op, validate, calibrate and compare commands. The public entry points are sim_cli_main and
 * sim_cli_run (cli.h); the C API (api.c) calls the latter.
 */
#ifndef SIM_CLI_INTERNAL_H
#define SIM_CLI_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cluster.h"
#include "engine.h"
#include "engprof.h"
#include "metrics.h"
#include "price.h"
#include "report.h"
#include "run.h"
#include "series.h"
#include "spec.h"
#include "workload.h"

enum {
    CMD_RUN = 1,
    CMD_ROOFLINE = 2,
    CMD_SERVE = 4,
    CMD_CHECK = 8,
    CMD_VALIDATE = 16,
    CMD_OP = 32,
    CMD_CALIBRATE = 64,
    CMD_HW = 128
};
#define CMD_MODEL (CMD_RUN | CMD_ROOFLINE | CMD_SERVE) /* flags every model command takes */
#define CMD_ENGINE (CMD_RUN | CMD_SERVE)               /* flags of commands that run steps */

/* OPT_RATE: a number > 0 or "inf"; OPT_LIST: one or more values up to the next flag, joined
 * with commas (vLLM's --goodput ttft:300 tpot:50). */
typedef enum opt_kind { OPT_STR, OPT_INT, OPT_NUM, OPT_BOOL, OPT_RATE, OPT_LIST } opt_kind;

#define LIST_LEN 256

typedef struct cli_opts {
    const char *model, *hw, *format, *weight_dtype, *act_dtype, *kv_dtype, *dtype;
    int64_t tp, pp, batch, input_len, output_len, group_size;
    double overlap, util, iter_us, req_us, usd_per_gpu_hour;
    bool enforce_eager, async_sched, help;
    /* engine profile and its overrides */
    const char *engine, *sched_policy, *order;
    double layer_us, conservativeness;
    int64_t graph_max_bs, max_model_len, max_input_len;
    bool no_async_sched, prefix_caching, no_prefix_caching, chunked;
    /* the prefix_repetition dataset (--dataset-name prefix_repetition) */
    int64_t prefix_len, suffix_len, num_prefixes, prefix_out;
    FILE *warn; /* where warnings go (NULL: nowhere); set by the command, not a flag */
    const int64_t *replay_in, *replay_out; /* compare: exact lengths, num_prompts of each */
    /* serve */
    const char *trace, *save_requests, *router, *disagg;
    int64_t replicas, prefill_tp;
    bool kv_stream;
    int64_t num_prompts, rand_in, rand_out, max_concurrency, seed, block_size, max_seqs, max_tokens;
    double range_ratio, rate, burstiness, time_scale;
    bool no_chunked;
    char goodput[LIST_LEN];
    /* validation */
    const char *data, *op, *out_file;
    int64_t m, n, k, heads, head_dim, seq, bytes, gpus;
    bool causal;
    double max_op_median, max_e2e_median, max_bucket_median;
    /* timelines */
    const char *chrome_trace, *trace_detail, *trace_window, *trace_ranks;
    double trace_max_mb;
    /* pictures */
    const char *html;
    const char *cmdline; /* the command as typed, for reports (set by sim_cli_main) */
    /* collectives */
    const char *allreduce;
    bool fuse_ar_norm, no_fuse_ar_norm;
    /* speculative decoding */
    const char *spec_method, *spec_model;
    int64_t spec_k;
    double spec_alpha, spec_tau;
    /* vLLM bench serve's own flags: recorded in --save-result, or accepted without effect */
    const char *backend, *label, *tokenizer, *dataset_name, *result_dir, *result_filename;
    const char *percentile_metrics, *metric_percentiles, *vllm_noop;
    bool save_result, vllm_noop_bool;
    /* mixture of experts */
    int64_t ep;
    bool dp_attention;
    double expert_imbalance;
    bool given[128]; /* by index into cli_opts_table */
} cli_opts;

typedef struct cli_opt_def {
    const char *name;
    opt_kind kind;
    size_t offset;
    double min, max; /* numeric range (inclusive) */
    int cmds;        /* commands that take it */
    const char *help;
} cli_opt_def;

/* The option table, its size, and the defaults every command starts from. */
extern const cli_opt_def cli_opts_table[];
extern const size_t cli_n_opts;
extern const cli_opts cli_defaults;

/* The option named `name` ("--tp") that a command in `mask` takes, or NULL. */
const cli_opt_def *cli_find_opt(const char *name, int mask);

/* Whether the command line named flag `name`. */
bool cli_given(const cli_opts *o, const char *name);

/* Sets one flag's value (a list flag appends) at o->offset into `out`: a cli_opts for the
 * table above, or whatever struct another table's offsets are into. Errors name the flag. */
sim_status cli_parse_value(const cli_opt_def *o, const char *v, void *out, sim_err *err);

/* A format flag's value ("--dtype", "fp8"); the error names the flag and the known formats. */
sim_status cli_parse_dtype_flag(const char *flag, const char *v, sim_dtype *out, sim_err *err);

/* --allreduce's value (AUTO when not given); an unknown name is an error naming the flag. */
sim_status cli_parse_allreduce(const cli_opts *o, sim_coll_algo *out, sim_err *err);

/* Parses argv[first..] for command `cmd` (bit `mask`). */
sim_status cli_parse_opts(int argc, char **argv, int first, const char *cmd, int mask,
                          cli_opts *out, sim_err *err);

/* No two outputs of one command (--save-requests, --chrome-trace, --html, --out,
 * --result-dir/--result-filename) on one file: one would silently replace the other. */
sim_status cli_check_outputs(const cli_opts *o, sim_err *err);

/* A bare name ("h100-sxm") as DIR/NAME.json (traces: DIR/NAME, e.g. traces/azure-conv-sample.csv)
 * in the data roots (find.h: working directory,
 * $INFERSIM_DATA, the source tree next to the binary, the installed share/infersim); a Hugging Face
 * id as the model file that lists it; anything else as given. */
void cli_resolve(const char *dir, const char *arg, char *buf, size_t len);

/* ------------------------------------------------------------------------------------------ */
/* Files, loaded once: a sweep loads every model, device and trace it names before its parallel
 * loop (the points only copy them), so no file is parsed on a worker thread. */

typedef struct cli_cache_entry {
    char kind; /* 'm' model, 'h' device, 't' trace, 'e' engine profile */
    char path[PATH_MAX];
    double scale;  /* traces: --time-scale */
    int64_t limit; /* traces: --num-prompts, 0 = all */
    sim_status st; /* how loading went */
    sim_err err;
    sim_model model;
    sim_hw hw;
    sim_workload w;
    sim_engprof eng;
} cli_cache_entry;

typedef struct cli_file_cache {
    cli_cache_entry *e;
    size_t n, cap;
} cli_file_cache;

const cli_cache_entry *cli_cache_find(const cli_file_cache *c, char kind, const char *path,
                                      double scale, int64_t limit);

/* Loads a file into the cache unless it is there (a failure is kept for the points). Returns
 * SIM_EINTERNAL only when out of memory. */
sim_status cli_cache_add(cli_file_cache *c, char kind, const char *path, double scale,
                         int64_t limit);

void cli_cache_free(cli_file_cache *c);

/* A cached entry, or its load error in *st and err. */
const cli_cache_entry *cli_cache_get(const cli_file_cache *c, char kind, const char *path,
                                     double scale, int64_t limit, sim_err *err, sim_status *st);

/* A model or device: from the cache when one is given, else from disk. */
sim_status cli_get_model(const cli_file_cache *c, const char *path, sim_model *out, sim_err *err);
sim_status cli_get_hw(const cli_file_cache *c, const char *path, sim_hw *out, sim_err *err);

/* The engine profile --engine names (hw/engines/NAME.json), resolved like models and devices. */
void cli_engine_path(const cli_opts *o, char *buf, size_t len);

/* ------------------------------------------------------------------------------------------ */
/* One run or serve computation from the flags (shared by the commands, sweep and compare) */

typedef struct cli_loaded {
    sim_model model;
    sim_hw hw;
    sim_format fmt;
    sim_step_cfg step;
    sim_model draft; /* --spec-model */
    sim_spec spec;   /* method none without --spec-method */
    sim_engprof eng; /* --engine's profile with the flags that override it applied */
    double usd_per_gpu_hour; /* --usd-per-gpu-hour, else the device file's; 0 = unknown */
} cli_loaded;

/* A profile's step settings for model m (launch mode, host costs, memory rule, CUDA graphs);
 * the caller sets device, TP, precision and overlap. */
sim_step_cfg cli_engine_step(const sim_engprof *e, const sim_model *m);

/* A profile's engine settings (scheduler, block size, memory fraction, prefix caching) into
 * cfg; the rest of cfg is left as it is. */
void cli_engine_cfg(const sim_engprof *e, sim_engine_cfg *cfg);

/* Loads what the commands share; the model is optional for roofline. */
sim_status cli_load_common(const cli_opts *o, bool need_model, cli_loaded *L,
                           const cli_file_cache *cache, sim_err *err);

/* A static batch: loaded, checked, simulated. */
sim_status cli_run_point(const cli_opts *o, cli_loaded *L, const cli_file_cache *cache,
                         sim_run_cfg *cfg, sim_run_result *r, sim_err *err);

/* --num-prompts as a trace limit (0: the whole trace). */
int64_t cli_trace_limit(const cli_opts *o);

typedef struct cli_serve_state {
    sim_engine_cfg cfg;
    sim_series *series;    /* with --html: the run over time (owned) */
    sim_workload own;      /* a synthetic workload */
    const sim_workload *w; /* &own or a cached trace */
    sim_engine_result res;
    sim_serve_metrics m;
    sim_slo slo;
    double usd_per_gpu_hour; /* as cli_loaded's */
    int64_t gpus;            /* every GPU the deployment holds */
    sim_cluster_result cluster; /* per-instance load with --replicas > 1 or --disagg */
    sim_engine_cfg prefill;     /* --disagg: the prefill instances' configuration */
} cli_serve_state;

/* GPUs of a serving point: s->gpus when set, else tp x pp. */
int64_t cli_serve_gpus(const cli_serve_state *s);

/* A serving run with the workload drawn from `seed`; a --chrome-trace is written alongside. */
sim_status cli_serve_point(const cli_opts *o, cli_loaded *L, const cli_file_cache *cache,
                           uint64_t seed, cli_serve_state *s, sim_err *err);

void cli_serve_state_free(cli_serve_state *s);

/* The command line as typed, "infersim run --model ..." (arguments with spaces or shell
 * characters quoted), malloc'd; NULL when out of memory. */
char *cli_cmdline(int argc, char **argv);

/* The commands of cli_sweep.c and cli_validate.c. */
sim_status cli_cmd_sweep(int argc, char **argv, FILE *out, FILE *errf, sim_err *err);
/* `infersim sweep [run|serve] --help`: the sweep's own flags (and which command's flags it
 * takes: sub is "run", "serve" or NULL). */
void cli_sweep_usage(FILE *f, const char *sub);
sim_status cli_cmd_merge(int argc, char **argv, FILE *out, sim_err *err);
sim_status cli_cmd_op(const cli_opts *o, FILE *out, sim_err *err);
sim_status cli_cmd_validate(const cli_opts *o, FILE *out, sim_err *err);
sim_status cli_cmd_calibrate(const cli_opts *o, FILE *out, sim_err *err);
sim_status cli_cmd_compare(int argc, char **argv, FILE *out, FILE *errf, sim_err *err);

#endif
