/* cli_opt.h - the command line's option table and flag parsing (private to sim/cli*.c).
 *
 * One row per flag in cli_opt_rows.def (its id, name, kind, the cli_opts member it sets, range,
 * the commands that take it, help, the engine-profile field it overrides, the flags it needs or
 * excludes); the table drives parsing, range checks, error messages, every command's --help, the
 * engine profile's overrides and the flags' cross-checks. The code names a flag by its id
 * (CLI_OPT_ID_MAX_NUM_SEQS for --max-num-seqs: a misspelt id does not compile); only what a user
 * types (a command line, a sweep's dimension, a drop-in line) is looked up by name.
 * A command starts from cli_opt_defaults and its parsed flags are then const.
 */
#ifndef SIM_CLI_OPT_H
#define SIM_CLI_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "coll.h"
#include "dtype.h"
#include "status.h"

/* The commands that take a flag (a row's cmds), one bit each. */
enum {
    CLI_OPT_CMD_RUN = 1,
    CLI_OPT_CMD_ROOFLINE = 2,
    CLI_OPT_CMD_SERVE = 4,
    CLI_OPT_CMD_CHECK = 8,
    CLI_OPT_CMD_VALIDATE = 16,
    CLI_OPT_CMD_OP = 32,
    CLI_OPT_CMD_CALIBRATE = 64,
    CLI_OPT_CMD_HW = 128,
    /* not a command: an output written once per run (sweep refuses it as a dimension) */
    CLI_OPT_PER_RUN = 256,
    CLI_OPT_CMD_CAPACITY = 512, /* capacity: its own flags (it also takes serve's) */
    CLI_OPT_CMD_PLAN = 1024,    /* plan: its own flags (it also takes serve's and capacity's) */
    CLI_OPT_CMD_WORKLOAD = 2048, /* workload: a dataset's length fit */
    CLI_OPT_CMD_ENDPOINT = 4096  /* endpoint: serve's deployment flags, no workload */
};
/* flags every model command takes; flags of the commands that run steps */
#define CLI_OPT_CMD_MODEL                                                                          \
    (CLI_OPT_CMD_RUN | CLI_OPT_CMD_ROOFLINE | CLI_OPT_CMD_SERVE | CLI_OPT_CMD_ENDPOINT)
#define CLI_OPT_CMD_ENGINE (CLI_OPT_CMD_RUN | CLI_OPT_CMD_SERVE)
/* an engine's or a serving engine's deployment flag that the live endpoint takes too */
#define CLI_OPT_CMD_ENGINE_EP (CLI_OPT_CMD_ENGINE | CLI_OPT_CMD_ENDPOINT)
#define CLI_OPT_CMD_SERVE_EP (CLI_OPT_CMD_SERVE | CLI_OPT_CMD_ENDPOINT)

/* CLI_OPT_RATE: a number > 0 or "inf"; CLI_OPT_LIST: one or more values up to the next flag,
 * joined with commas (vLLM's --goodput ttft:300 tpot:50). */
typedef enum cli_opt_kind {
    CLI_OPT_STR,
    CLI_OPT_INT,
    CLI_OPT_NUM,
    CLI_OPT_BOOL,
    CLI_OPT_RATE,
    CLI_OPT_LIST
} cli_opt_kind;

#define CLI_OPT_LIST_LEN 256

/* One id per row of the option table, in its order: CLI_OPT_ID_ and the flag's name in capitals
 * with '-' as '_' (--max-num-seqs: CLI_OPT_ID_MAX_NUM_SEQS); a second row of one name (another
 * command's flag) ends in _NOOP (serve's no-op --host) or starts ENDPOINT_ (endpoint's
 * --time-scale). CLI_OPT_ID_COUNT is the table's size. */
typedef enum cli_opt_id {
#define O(id, ...) CLI_OPT_ID_##id,
#define OE O
#define OR O
#include "cli_opt_rows.def"
#undef O
#undef OE
#undef OR
    CLI_OPT_ID_COUNT,
    CLI_OPT_ID_NONE = CLI_OPT_ID_COUNT /* no flag; ends a list */
} cli_opt_id;

typedef struct cli_opts {
    const char *model, *hw, *format, *weight_dtype, *act_dtype, *kv_dtype, *dtype;
    int64_t tp, pp, batch, input_len, output_len, group_size;
    double overlap, util, iter_us, req_us;
    const char *usd_prices; /* --usd-per-gpu-hour as given (price.h sim_price_list) */
    bool enforce_eager, async_sched, help;
    /* engine profile and its overrides */
    const char *engine, *sched_policy, *order;
    double layer_us, conservativeness;
    int64_t graph_max_bs, max_model_len, max_input_len;
    bool no_async_sched, prefix_caching, no_prefix_caching, chunked, no_hybrid_kv;
    /* the prefix_repetition dataset (--dataset-name prefix_repetition) */
    int64_t prefix_len, suffix_len, num_prefixes, prefix_out;
    FILE *warn; /* where warnings go (NULL: nowhere); set by the command, not a flag */
    /* watches serve's engine, its iterations and requests (engine.h; one engine, no
     * --chrome-trace, an --html series chains to it); set by a caller of the library (the step
     * predictor's replay test), not a flag; NULL: nobody */
    const struct sim_engine_observer *observer;
    const int64_t *replay_in, *replay_out; /* compare: exact lengths, num_prompts of each */
    /* serve */
    const char *trace, *save_requests, *router, *disagg;
    int64_t replicas, prefill_tp;
    const char *prefill_hw; /* --prefill-hw: the prefill instances' device with --disagg */
    const char *replica_hw; /* --replica-hw DEV:N,...: the replicas' devices (mixed hardware) */
    const char *kv_offload, *kv_offload_write; /* lower KV tiers (engine.h sim_engine_offload) */
    int64_t sessions, turns;                    /* multi-turn sessions (workload.h) */
    const char *think_time;
    double kv_overlap_weight; /* --router kv-aware's prefill weight (cluster.h) */
    bool session_affinity;    /* --session-affinity (cluster.h) */
    double router_refresh_ms; /* --router-refresh-ms: the router's stale view (cluster.h) */
    const char *rate_schedule; /* --rate-schedule T:RATE,... (workload.h sim_rate_schedule) */
    /* --autoscale MIN:MAX and its companions (cluster.h sim_autoscale) */
    const char *autoscale, *autoscale_metric;
    double autoscale_target, autoscale_interval_s, autoscale_provision_s, autoscale_down_window_s;
    bool kv_stream;
    int64_t num_prompts, rand_in, rand_out, max_concurrency, seed, block_size, max_seqs, max_tokens;
    double range_ratio, rate, burstiness, time_scale;
    double range_floor;       /* --random-range-floor: SGLang's random lengths */
    const char *lengths_file; /* --lengths-file: trtllm-bench's dataset file (lenfile.h) */
    int64_t sharegpt_out;     /* --sharegpt-output-len: fixed outputs over a dataset's prompts */
    int64_t custom_out;       /* --custom-output-len: fixed outputs over --lengths-file's prompts */
    const char *server_line, *bench_line; /* --server, --bench: expanded by cli.c (cli_dropin.h) */
    double rate_low; /* --request-rate LO:HI (plan only): LO, and rate is HI; 0: no range */
    bool no_chunked;
    /* images (a multimodal model's vision encoder): per request, and their size "WxH" */
    int64_t images;
    const char *image_size;
    double swa_full_tokens_ratio; /* SGLang's SWA pool over its full pool */
    char goodput[CLI_OPT_LIST_LEN];
    /* capacity: the SLO, its percentile and the rate search's relative tolerance */
    const char *slo;
    double slo_percentile, rate_tolerance;
    /* plan: the objective, rows per device, shards, threads, rows read back, the search's limits */
    const char *objective, *shard, *from, *engines, *precisions;
    const char *kv_dtypes, *spec_methods; /* the KV-cache formats and speculations searched */
    int64_t top, threads, max_gpus;
    /* validation */
    const char *data, *op, *out_file;
    int64_t m, n, k, heads, head_dim, seq, bytes, gpus;
    bool causal;
    double max_op_median, max_e2e_median, max_bucket_median, max_spec_median, max_family_median;
    /* timelines */
    const char *chrome_trace, *trace_detail, *trace_window, *trace_ranks;
    double trace_max_mb;
    bool trace_full;
    /* pictures */
    const char *html;
    /* endpoint: where it listens, its clock, its limits, the characters a token stands for */
    const char *ep_host, *ep_model_name;
    int64_t ep_port, ep_max_requests, ep_max_connections, ep_max_body_bytes;
    double ep_time_scale, ep_chars_per_token;
    const char *cmdline; /* the command as typed, for reports (set by sim_cli_main) */
    /* set by sim_cli_main while a command runs: an output whose path is known only then (serve's
     * --save-result file) is staged here (outfile.h) and published with the others */
    struct sim_outfile_stage *late_stage;
    /* collectives */
    const char *allreduce;
    const char *cudagraph_mode; /* --cudagraph-mode: vLLM's CUDAGraphMode names */
    bool fuse_ar_norm, no_fuse_ar_norm;
    /* speculative decoding */
    const char *spec_method, *spec_model, *spec_config, *spec_algorithm, *spec_data;
    int64_t spec_k, spec_steps, spec_topk, spec_draft_tokens, spec_draft_vocab;
    double spec_alpha, spec_tau;
    char spec_rates[CLI_OPT_LIST_LEN];
    /* vLLM bench serve's own flags: recorded in --save-result, or accepted without effect */
    const char *backend, *label, *tokenizer, *dataset_name, *result_dir, *result_filename;
    const char *percentile_metrics, *metric_percentiles, *vllm_noop;
    bool save_result, vllm_noop_bool;
    /* mixture of experts */
    int64_t ep;
    bool dp_attention;
    double expert_imbalance;
    const char *moe_a2a; /* --moe-a2a: auto|normal|low-latency (a2a.h) */
    int64_t deepep_ll_max_tokens; /* --deepep-ll-max-tokens (0: not given, a2a.h's default) */
    bool tbo;            /* --enable-two-batch-overlap, --enable-dbo (step.h) */
    int64_t dp;          /* --dp: data-parallel attention groups (graph.h sim_par) */
    const char *expert_routing, *moe_kernel;
    const char *expert_load; /* --expert-load FILE */
    int64_t redundant_experts;
    /* the front end and the stream (frontend.h) */
    const char *frontend;
    int64_t fe_processes, stream_interval;
    double fe_request_us, fe_input_token_us, fe_output_token_us, fe_chunk_us;
    bool itl_per_token;
    /* uncertainty bands (unc.h): draws (-1: the command's default), the table, validate's */
    int64_t uncertainty, coverage_draws;
    const char *unc_table, *unc_out, *coverage_out;
    double min_coverage, max_coverage, min_group_coverage, max_group_coverage;
    bool given[CLI_OPT_ID_COUNT]; /* by id, the row's index in cli_opt_table */
} cli_opts;

/* The engine-profile field a flag overrides (a row's eng, at eng_offset into sim_engprof): none;
 * an int64_t or a double, the flag's value (a CLI_OPT_INT or CLI_OPT_NUM row); a bool set true
 * (ON) or false (OFF) by a CLI_OPT_BOOL flag given. An ON and an OFF row of one field given
 * together contradict each other. cli_load_engine_overrides applies every such row. */
typedef enum cli_opt_eng {
    CLI_OPT_ENG_NONE,
    CLI_OPT_ENG_I64,
    CLI_OPT_ENG_F64,
    CLI_OPT_ENG_ON,
    CLI_OPT_ENG_OFF
} cli_opt_eng;

typedef struct cli_opt_def {
    const char *name;
    cli_opt_kind kind;
    size_t offset;
    double min, max; /* numeric range (inclusive) */
    int cmds;        /* commands that take it */
    const char *help;
    cli_opt_eng eng;   /* the sim_engprof field it overrides, if any */
    size_t eng_offset; /* offsetof(sim_engprof, field) */
    /* Cross-checks (cli_opt_check_rules), each list ended by CLI_OPT_ID_NONE, NULL: none. Given,
     * the flag needs one of `needs` given too, else the error is "NAME" needs_why; and none of
     * `excludes`, else the error is excludes_pre "OTHER" excludes_why. */
    const cli_opt_id *needs, *excludes;
    const char *needs_why, *excludes_pre, *excludes_why;
} cli_opt_def;

/* The option table, its size, and the defaults every command starts from. */
extern const cli_opt_def cli_opt_table[];
extern const size_t cli_opt_count;
extern const cli_opts cli_opt_defaults;

/* The option named `name` ("--tp") that a command in `mask` takes, or NULL. */
const cli_opt_def *cli_opt_find(const char *name, int mask);

/* The flags of commands `mask` near `name` ("--num-prompt": "--num-prompts"; suggest.h) as
 * "; did you mean X?" into out; empty (false) when none is near. A near miss is never taken. */
bool cli_opt_suggest(const char *name, int mask, char *out, size_t len);

/* Whether the command line gave flag `id` (a sweep's dimension, plan's candidate and compare's
 * result file give flags too). */
static inline bool cli_opt_given(const cli_opts *o, cli_opt_id id) { return o->given[id]; }

/* Whether any flag of list `ids` (ended by CLI_OPT_ID_NONE) was given. */
bool cli_opt_given_any(const cli_opts *o, const cli_opt_id *ids);

/* Flag `id`'s name ("--max-num-seqs"), for messages. */
static inline const char *cli_opt_name(cli_opt_id id) { return cli_opt_table[id].name; }

/* The cross-checks of the table's needs / excludes columns over the given flags that commands
 * `mask` take, in table order: the first a given flag breaks is the error ("--time-scale: applies
 * only to --trace"). A run point checks run's rows, a serving engine serve's and the endpoint's
 * (cli_point.c): a plan's probe of one request alone runs with serve's flags.
 * Example (sim_err *err):
 *   cli_opts o = cli_opt_defaults;
 *   o.given[CLI_OPT_ID_TIME_SCALE] = true; // --time-scale without --trace
 *   if (cli_opt_check_rules(&o, CLI_OPT_CMD_SERVE, err) != SIM_EINPUT)
 *       return SIM_EINTERNAL;
 *   if (cli_opt_check_rules(&o, CLI_OPT_CMD_RUN, err)) // not a flag of run's
 *       return SIM_EINTERNAL;
 *   o.given[CLI_OPT_ID_TRACE] = true; // with it
 *   return cli_opt_check_rules(&o, CLI_OPT_CMD_SERVE, err);
 */
sim_status cli_opt_check_rules(const cli_opts *o, int mask, sim_err *err);

/* Sets one flag's value (a list flag appends) at o->offset into `out`: a cli_opts for the
 * table above, or whatever struct another table's offsets are into. Errors name the flag. */
sim_status cli_opt_parse_value(const cli_opt_def *o, const char *v, void *out, sim_err *err);

/* A format flag's value ("--dtype", "fp8"); the error names the flag and the known formats. */
sim_status cli_opt_parse_dtype(const char *flag, const char *v, sim_dtype *out, sim_err *err);

/* --allreduce's value (AUTO when not given); an unknown name is an error naming the flag. */
sim_status cli_opt_parse_allreduce(const cli_opts *o, sim_coll_algo *out, sim_err *err);

/* `infersim CMD --help`: "usage: infersim CMD [flags]" and every flag that command `mask` takes,
 * with its help. */
void cli_opt_usage(FILE *f, const char *cmd, int mask);

/* One flag's line of a --help: "  --name META" padded to 28 columns, then `text`. */
void cli_opt_usage_line(FILE *f, const cli_opt_def *o, const char *text);

/* Parses argv[first..] for command `cmd` (bit `mask`) into `out` (which holds the defaults).
 * `positional` is the string flag a bare argument sets (hw FILE sets --hw), or CLI_OPT_ID_NONE:
 * then a bare argument is an error. Errors name the flag and point at 'infersim CMD --help'. */
sim_status cli_opt_parse(int argc, char **argv, int first, const char *cmd, int mask,
                         cli_opt_id positional, cli_opts *out, sim_err *err);

/* No two outputs of one command (--save-requests, --chrome-trace, --html, --out,
 * --result-dir/--result-filename) on one file: one would silently replace the other. */
sim_status cli_opt_check_outputs(const cli_opts *o, sim_err *err);

/* An --out path as the commands use it: NULL (standard output, the default) when the path is
 * absent or "-", as a Unix tool reads "-"; the path otherwise. */
const char *cli_opt_out_path(const char *path);

/* --num-prompts as a trace limit (0: the whole trace). */
int64_t cli_opt_trace_limit(const cli_opts *o);

/* The command line as typed, "infersim run --model ..." (arguments with spaces or shell
 * characters quoted), malloc'd; NULL when out of memory. */
char *cli_opt_cmdline(int argc, char **argv);

#endif
