/* cli_dropin.h - the engines' own benchmark command lines, prefixed with infersim (private to
 * sim/cli*.c).
 *
 *   infersim vllm bench serve|throughput|latency [vLLM's flags] --hw H
 *   infersim python3 -m sglang.bench_serving|sglang.bench_one_batch [SGLang's flags] --hw H
 *   infersim trtllm-bench --model M throughput|latency --dataset F [its flags] --hw H
 *
 * Each line is read under its engine's own spelling (vLLM's FlexibleArgumentParser takes
 * --max_num_seqs for --max-num-seqs; argparse takes a unique prefix, SGLang's --random-input for
 * --random-input-len; trtllm-bench's click options are spelled with underscores) and translated
 * flag by flag into an infersim `serve` or `run` line: one table per engine tool, each row an
 * engine flag and what it does here (cli_dropin_vllm.c, cli_dropin_sglang.c,
 * cli_dropin_trtllm.c, each citing the source its flags were read from). A row is
 *   - mapped onto an infersim flag (the meaning the engine gives it),
 *   - accepted with no effect on the prediction (sampling, endpoints, result files, plots,
 *     tokenizers): cli.c lists those once on its error stream,
 *   - or refused by name: it would change the timing and is not modelled (exit 2).
 * `--backend` picks the engine profile where it names an engine. An option file is read as its
 * engine reads it (cli_dropin_yaml.c): vLLM's and SGLang's `--config FILE.yaml` under the line's
 * flags, TensorRT-LLM's `--extra_llm_api_options FILE.yaml` over them. The translated line is what
 * runs (cli.c prints it), so every prediction comes from infersim's own, documented flags.
 *
 * Example (int argc, char **argv, sim_err *err):
 *   cli_dropin_line t;
 *   if (cli_dropin_is_tool(argc, argv) && !cli_dropin_translate(argc, argv, &t, err)) {
 *       ... t.argc, t.argv: "infersim serve --model ..."; t.no_effect: "--temperature, ..." ...
 *       cli_dropin_line_free(&t);
 *   }
 */
#ifndef SIM_CLI_DROPIN_H
#define SIM_CLI_DROPIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

/* How a row reads its value: one argument (or --flag=V), none, or every argument up to the next
 * flag (argparse's nargs="+", "*"). */
typedef enum cli_dropin_arity {
    CLI_DROPIN_VALUE,
    CLI_DROPIN_FLAG,
    CLI_DROPIN_LIST
} cli_dropin_arity;

/* What a row does. */
typedef enum cli_dropin_act {
    CLI_DROPIN_MAP,    /* the infersim flag `to`, with the value as given */
    CLI_DROPIN_NONE,   /* accepted, no effect on the prediction */
    CLI_DROPIN_REFUSE, /* would change the timing, not modelled: refused by name */
    CLI_DROPIN_CALL    /* `call` translates it (its infersim flags in `to`, for the help) */
} cli_dropin_act;

typedef struct cli_dropin_line cli_dropin_line;

/* A row's translation (CLI_DROPIN_CALL): `value` is NULL for a flag. */
typedef sim_status (*cli_dropin_fn)(cli_dropin_line *t, const char *flag, const char *value,
                                    sim_err *err);

typedef struct cli_dropin_flag {
    const char *name;  /* the engine's spelling, "--tensor-parallel-size" */
    const char *alias; /* a second spelling ("-tp") or NULL */
    cli_dropin_arity arity;
    cli_dropin_act act;
    const char *to; /* MAP: the infersim flag; CALL: the flags it sets (help, README) */
    cli_dropin_fn call;
    const char *note; /* the engine's meaning, or why it has no effect / is refused */
} cli_dropin_flag;

/* Spelling rules of a tool's parser. */
enum {
    CLI_DROPIN_ABBREV = 1,    /* argparse's allow_abbrev: a unique prefix names a flag */
    CLI_DROPIN_UNDERSCORE = 2 /* '_' and '-' are the same inside a name */
};

#define CLI_DROPIN_MAX_TABLES 4

typedef struct cli_dropin_tool {
    const char *words;      /* the words after infersim: "vllm bench serve" */
    const char *sub;        /* a subcommand word anywhere on the line ("throughput"), or NULL */
    const char *positional; /* the infersim flag a bare argument sets (vllm serve MODEL) */
    bool server;            /* a server's launch line (the deployment), not a benchmark's */
    const char *cmd;        /* the infersim command it becomes: "serve" or "run" */
    const char *engine;     /* its engine profile unless --backend names another */
    const char *source;     /* where its flags were read */
    int style;              /* CLI_DROPIN_ bits */
    const cli_dropin_flag *tables[CLI_DROPIN_MAX_TABLES]; /* each ends with a NULL name */
    const char *const *defaults; /* infersim flag, value pairs unless the line set the flag */
    sim_status (*finish)(cli_dropin_line *t, sim_err *err); /* flags that depend on others */
} cli_dropin_tool;

/* Values kept for a tool's finish (parallel layout, lengths, dataset) and the line built. */
#define CLI_DROPIN_MAX_ARGS 256
struct cli_dropin_line {
    const cli_dropin_tool *tool;
    int argc;
    char *argv[CLI_DROPIN_MAX_ARGS]; /* "infersim", cmd, flags: strings owned */
    char no_effect[2048];            /* ", "-joined flags as typed */
    /* what finish hooks combine (0 / NULL: not given) */
    int64_t tp, dp, ep;
    bool expert_parallel, dp_attention;
    const char *input_len, *output_len, *dataset, *quant, *dtype, *backend;
    const char *dataset_path;  /* vLLM's --dataset-path (burstgpt: the trace; hf: its id) */
    const char *hf_output_len; /* vLLM's --hf-output-len */
    const char *custom_output_len; /* vLLM's --custom-output-len */
    const char *sonnet[3]; /* vLLM's --sonnet-input-len, --sonnet-output-len, --sonnet-prefix-len */
    const char *gsp[5]; /* SGLang's generated-shared-prefix: groups, per group, system, question,
                         * output lengths */
    /* the engine's line as given (argv, its first flag's index): what an option file's keys
     * yield to */
    int in_argc, in_first;
    char **in_argv;
    bool config_read;          /* an option file was read (one per line) */
    const char *extra_options; /* TensorRT-LLM's --extra_llm_api_options FILE, applied last */
};

/* The tools, for the help and the README's list. */
extern const cli_dropin_tool cli_dropin_tools[];
extern const size_t cli_dropin_tool_count;

/* Whether argv[1..] starts like an engine's command line (vllm, python3 -m sglang.X,
 * trtllm-bench). */
bool cli_dropin_is_tool(int argc, char **argv);

/* Translates argv into an infersim line. Errors name the flag as typed and the tool. */
sim_status cli_dropin_translate(int argc, char **argv, cli_dropin_line *t, sim_err *err);

void cli_dropin_line_free(cli_dropin_line *t);

/* Appends infersim flag `flag` (and `value` unless NULL) to the line; a copy is kept. */
sim_status cli_dropin_push(cli_dropin_line *t, const char *flag, const char *value, sim_err *err);

/* Takes infersim flag `flag` and its value off the line; whether it was there. */
bool cli_dropin_drop(cli_dropin_line *t, const char *flag);

/* Whether the line already holds infersim flag `flag`. */
bool cli_dropin_has(const cli_dropin_line *t, const char *flag);

/* A whole number >= 1 from a flag's value (the error names the flag as typed). */
sim_status cli_dropin_count(const char *flag, const char *value, int64_t *out, sim_err *err);

/* `infersim vllm bench serve --help`: the tool's flags and what each does here. */
void cli_dropin_help(FILE *f, const cli_dropin_tool *tool);

/* The tool argv names (NULL when none; with --help the caller prints its help). */
const cli_dropin_tool *cli_dropin_find_tool(int argc, char **argv);

/* `infersim serve --server "LINE" --bench "LINE" [flags]`: the server's launch line (vllm serve,
 * python3 -m sglang.launch_server, trtllm-serve) sets the deployment, the benchmark's line the
 * workload, the other flags are infersim's; each line is split as a POSIX shell splits words
 * (quotes, backslashes, $'...'), never expanded. *t is the infersim serve line they make
 * (cli_dropin_line_free). Whether argv names --server or --bench: cli_dropin_is_pair. */
bool cli_dropin_is_pair(int argc, char **argv);
sim_status cli_dropin_pair(int argc, char **argv, cli_dropin_line *t, sim_err *err);

/* Splits `s` into words as sh does without expanding anything: *words (malloc'd, n of them,
 * each pointing into one malloc'd block, freed with free(*words) and free((*words)[0]) when
 * n > 0). Errors name `what` ("--server") and the unmatched quote. */
sim_status cli_dropin_split(const char *s, const char *what, char ***words, int *n, sim_err *err);

/* TensorRT-LLM's synthetic dataset (cli_dropin_prep.c): `python benchmarks/cpp/prepare_dataset.py
 * ... token-norm-dist|token-unif-dist ...` and `trtllm-bench ... prepare-dataset ...` write
 * trtllm-bench's JSON lines to `out`. */
bool cli_dropin_is_prepare(int argc, char **argv);
sim_status cli_dropin_prepare(int argc, char **argv, FILE *out, sim_err *err);

/* The engines' YAML option files (cli_dropin_yaml.c), read with libyaml as PyYAML's
 * yaml.safe_load reads them: plain scalars resolved as YAML 1.1 does (null, true/false/yes/no/
 * on/off, integers, floats with a '.'), quoted ones strings, the later of a key given twice. The
 * file must be .yaml or .yml and hold one mapping (an empty file is an empty one); *out is owned by
 * the caller (cJSON_Delete). Errors name `what` (the flag) or the file, its line and the value.
 * A build without libyaml (cli_dropin_noyaml.c, the WebAssembly page) refuses every file with
 * exit 2, naming `what` and the file. */
struct cJSON;
sim_status cli_dropin_yaml_load(const char *path, const char *what, struct cJSON **out,
                                sim_err *err);

/* A scalar as Python's str() writes it ("4", "0.9", "True", "None"), into buf; false for a list
 * or mapping, or when it does not fit (cli_dropin_words.c, as the two below). */
bool cli_dropin_yaml_text(const struct cJSON *v, char *buf, size_t len);

/* Command-line words (owned copies). */
typedef struct cli_dropin_words {
    int n;
    char *v[CLI_DROPIN_MAX_ARGS];
} cli_dropin_words;
void cli_dropin_words_free(cli_dropin_words *w);

/* A flat option file's keys as the command line's words, by the engine's rule: `--KEY VALUE`; a
 * list `--KEY A B` (empty: left out); true `--KEY`; false, vLLM: `--no-KEY` where the tool has it
 * (is_flag_row), SGLang: left out for a flag, `--KEY false` otherwise; a mapping, vLLM: `--KEY
 * JSON` (json.dumps), SGLang: refused (it would pass Python's text of it). */
sim_status cli_dropin_config_words(const struct cJSON *cfg, const char *file, bool vllm,
                                   bool (*is_flag_row)(const void *ctx, const char *flag),
                                   const void *ctx, cli_dropin_words *w, sim_err *err);

/* Whether argv[i] starts a new flag (argparse: "-x" but not a negative number). */
bool cli_dropin_is_flag(const char *a);

/* One engine flag at args[*i] (its value or list after it, or after '='), found among t's tool's
 * rows and translated; *i is left on its last word. `sub` is the index of the tool's subcommand
 * word (0: none). Unknown or ambiguous names fail naming the nearest rows. */
sim_status cli_dropin_take_flag(cli_dropin_line *t, int argc, char **args, int *i, int sub,
                                sim_err *err);

/* A row's handler for vLLM's and SGLang's `--config FILE.yaml`: each key of the file taken as its
 * flag, except those the command line gives itself (the line wins); one file per line. */
sim_status cli_dropin_config(cli_dropin_line *t, const char *flag, const char *path, sim_err *err);

/* The README's drop-in section: every tool's flags by what they do, as Markdown. */
void cli_dropin_markdown(FILE *f);

/* the three engines' tables (cli_dropin_vllm.c, cli_dropin_sglang.c, cli_dropin_trtllm.c) */
extern const cli_dropin_flag cli_dropin_vllm_serve[], cli_dropin_vllm_dataset[],
    cli_dropin_vllm_engine[], cli_dropin_vllm_throughput[], cli_dropin_vllm_latency[];
extern const cli_dropin_flag cli_dropin_sglang_serving[], cli_dropin_sglang_server[],
    cli_dropin_sglang_one_batch[];
extern const cli_dropin_flag cli_dropin_trtllm_bench[], cli_dropin_trtllm_serving[];
/* the servers' own flags (their engine arguments are the tables above) */
extern const cli_dropin_flag cli_dropin_vllm_server[], cli_dropin_sglang_launch[],
    cli_dropin_trtllm_serve[];
sim_status cli_dropin_vllm_finish(cli_dropin_line *t, sim_err *err);
sim_status cli_dropin_sglang_finish(cli_dropin_line *t, sim_err *err);
sim_status cli_dropin_trtllm_finish(cli_dropin_line *t, sim_err *err);
sim_status cli_dropin_trtllm_serve_finish(cli_dropin_line *t, sim_err *err);
/* TensorRT-LLM's --extra_llm_api_options keys (dotted paths: kv_cache_config.dtype) */
extern const cli_dropin_flag cli_dropin_trtllm_options[];
/* Adds `flag` (as typed) to the line's no-effect list. */
sim_status cli_dropin_no_effect(cli_dropin_line *t, const char *flag);

/* --backend VALUE: its engine's profile (and, for serve, --backend recorded); refused when it
 * names an engine without a profile */
sim_status cli_dropin_backend(cli_dropin_line *t, const char *flag, const char *v, sim_err *err);

/* an engine named by a --backend value (vLLM's, SGLang's, trtllm-bench's), or NULL */
const char *cli_dropin_backend_engine(const char *backend);

#endif
