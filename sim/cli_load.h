/* cli_load.h - files and names for the command line (private to sim/cli*.c): a bare name looked
 * up in the data roots, a cache of loaded files, and what every model command loads from its
 * flags (device, engine profile with its flag overrides, model, precision, speculative decoding).
 */
#ifndef SIM_CLI_LOAD_H
#define SIM_CLI_LOAD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli_opt.h"
#include "engine.h"
#include "engprof.h"
#include "report.h"
#include "spec.h"
#include "unc.h"
#include "workload.h"

/* The files the command line loads. */
typedef enum cli_load_kind {
    CLI_LOAD_MODEL,  /* a model's config.json */
    CLI_LOAD_HW,     /* a device file */
    CLI_LOAD_TRACE,  /* a request trace (with its --time-scale and --num-prompts) */
    CLI_LOAD_ENGINE, /* an engine profile */
    CLI_LOAD_KINDS
} cli_load_kind;

/* The data folder a bare name of that kind is looked up in: "models", "hw", "traces",
 * "hw/engines". */
const char *cli_load_dir(cli_load_kind kind);

/* A bare name of that kind ("h100-sxm") as DIR/NAME.json (traces: DIR/NAME, e.g.
 * traces/azure-conv-sample.csv) in the data roots (find.h: working directory, $INFERSIM_DATA, the
 * source tree next to the binary, the installed share/infersim); a model's folder as its
 * config.json and a Hugging Face id as the model file that lists it; anything else as given. */
void cli_load_resolve(cli_load_kind kind, const char *arg, char *buf, size_t len);

/* A loader's status st for `name` as cli_load_resolve left it: st itself when SIM_OK, when the
 * name ends in .json or when it is a file; else, for a name found in no data folder, a message
 * in err saying where infersim looked and which names it has (a near miss: "did you mean"),
 * instead of "cannot open". */
sim_status cli_load_explain_missing(cli_load_kind kind, const char *name, sim_status st,
                                    sim_err *err);

/* ------------------------------------------------------------------------------------------ */
/* Files, loaded once: a sweep loads every model, device and trace it names before its parallel
 * loop (the points only copy them), so no file is parsed on a worker thread. */

typedef struct cli_load_entry {
    cli_load_kind kind;
    char path[PATH_MAX];
    double scale;  /* traces: --time-scale */
    int64_t limit; /* traces: --num-prompts, 0 = all */
    sim_status st; /* how loading went */
    sim_err err;
    sim_model model;
    sim_hw hw;
    sim_workload w;
    sim_engprof eng;
} cli_load_entry;

/* Every profile of hw/engines (in the first data root that has it), for --engine NAME@VERSION:
 * loaded once (cli_load_catalog_load), on failure its error kept. */
typedef struct cli_load_catalog {
    bool loaded;
    sim_status st;
    sim_err err;
    sim_engprof *p;
    size_t n;
} cli_load_catalog;

/* A name resolved once (cli_load_names.c): dir is the data folder a bare name of its kind is
 * looked up in, "tools/data" for a data file, "" for a path whose existence was asked; path what
 * it resolved to, found whether it exists. */
typedef struct cli_load_name {
    const char *dir;
    char *arg, *path;
    bool found;
} cli_load_name;

/* An uncertainty table loaded once (its load's status kept: a failed one is loaded again, and
 * reported, by the point). */
typedef struct cli_load_unc {
    char *path;
    sim_unc_table *t;
    sim_status st;
} cli_load_unc;

typedef struct cli_load_cache {
    cli_load_entry *e;
    size_t n, cap;
    cli_load_catalog catalog; /* the engine profiles, once a NAME@VERSION needed them */
    cli_load_name *names;     /* the names resolved before the points (cli_load_cache_prepare) */
    size_t n_names, cap_names;
    cli_load_unc *unc; /* the uncertainty tables the points' bands read */
    size_t n_unc;
} cli_load_cache;

const cli_load_entry *cli_load_cache_find(const cli_load_cache *c, cli_load_kind kind,
                                          const char *path, double scale, int64_t limit);

/* Loads a file into the cache unless it is there (a failure is kept for the points). Returns
 * SIM_EINTERNAL only when out of memory. */
sim_status cli_load_cache_add(cli_load_cache *c, cli_load_kind kind, const char *path, double scale,
                              int64_t limit);

void cli_load_cache_free(cli_load_cache *c);

/* Names resolved once (cli_load_names.c, cli_load_prepare.c). cli_load_cache_prepare resolves every name a point of
 * options o names (its device, model, draft model, the devices of --usd-per-gpu-hour, its
 * engine profile, trace and lengths file, the data files of tools/data), records what each
 * resolved to and whether the files exist, and loads each file it names into the cache once:
 * the device, models, engine profile, trace, and (band: the point draws an uncertainty band) the
 * uncertainty table. A sweep, plan or capacity search prepares every point's options serially,
 * then its points resolve through the *_in functions below and ask the file system nothing
 * (tests/test_fscount.c counts the calls). SIM_EINTERNAL only when out of memory; a name that
 * fails to load is the point's error, later. */
sim_status cli_load_cache_prepare(cli_load_cache *c, const cli_opts *o, bool serve, bool band);

/* cli_load_resolve, answered from the cache's names when prepared (c may be NULL). */
void cli_load_resolve_in(const cli_load_cache *c, cli_load_kind kind, const char *arg, char *buf,
                         size_t len);

/* Whether a file exists (access F_OK), answered from the cache's names when prepared. */
bool cli_load_exists_in(const cli_load_cache *c, const char *path);

/* sim_find_file("tools/data", file, ...), answered from the cache's names when prepared. */
bool cli_load_data_in(const cli_load_cache *c, const char *file, char *out, size_t len);

/* The uncertainty table's path for o: --uncertainty-table, else tools/data/uncertainty.csv in
 * the data roots. */
void cli_load_unc_path(const cli_load_cache *c, const cli_opts *o, char *buf, size_t len);

/* The table at path when the cache loaded it without error, else NULL. */
const sim_unc_table *cli_load_cache_unc(const cli_load_cache *c, const char *path);

/* What cli_load_cache_prepare (cli_load_prepare.c) records, one entry at a time
 * (cli_load_names.c): a name of that kind resolved, with whether the name and its file exist;
 * a data file of tools/data found; the uncertainty table a band reads (--uncertainty-table, else
 * tools/data/uncertainty.csv) loaded, a failure left for the point to meet and report.
 * SIM_EINTERNAL only when out of memory. */
sim_status cli_load_names_note(cli_load_cache *c, cli_load_kind kind, const char *arg);
sim_status cli_load_names_note_data(cli_load_cache *c, const char *file);
sim_status cli_load_unc_note(cli_load_cache *c, const cli_opts *o);

void cli_load_names_free(cli_load_cache *c);
void cli_load_unc_free(cli_load_cache *c);

/* A cached entry, or its load error in *st and err. */
const cli_load_entry *cli_load_cache_get(const cli_load_cache *c, cli_load_kind kind,
                                         const char *path, double scale, int64_t limit,
                                         sim_err *err, sim_status *st);

/* A model or device: from the cache when one is given, else from disk. */
sim_status cli_load_model(const cli_load_cache *c, const char *path, sim_model *out, sim_err *err);
sim_status cli_load_hw(const cli_load_cache *c, const char *path, sim_hw *out, sim_err *err);

/* Loads the catalogue of engine profiles unless it is loaded (a failure is kept in c->st and
 * c->err). Returns SIM_EINTERNAL only when out of memory. */
sim_status cli_load_catalog_load(cli_load_catalog *c);
void cli_load_catalog_free(cli_load_catalog *c);

/* The engine profile file `spec` (--engine, a validation row's engine) names on device hw:
 *   a path that exists: as given;
 *   NAME@VERSION: the profile of engine NAME whose "versions" hold VERSION (engprof.h: a rocm
 *     one first on an AMD device);
 *   a bare NAME: hw/engines/NAME.json on a CUDA device (vllm, sglang, trtllm are their engines'
 *     newest; vllm-v0, trtllm-0.11, ... name one profile), the newest ROCm profile of engine
 *     NAME on an AMD device that has one, and the newest profile of engine NAME when there is no
 *     NAME.json.
 * The catalogue comes from cache when it has one loaded, else from disk. An unknown version is
 * SIM_EINPUT naming `what`, the value and the known ranges. */
sim_status cli_load_engine_spec_path(const char *spec, const char *what,
                                     const cli_load_cache *cache, const sim_hw *hw, char *buf,
                                     size_t len, sim_err *err);

/* What names the engine profile: vllm bench serve's --backend unless --engine is given, else
 * --engine; *what (may be NULL) the flag's name. */
const char *cli_load_engine_spec(const cli_opts *o, const char **what);

/* The engine profile --engine names on device hw (cli_load_engine_spec_path). */
sim_status cli_load_engine_path(const cli_opts *o, const cli_load_cache *cache, const sim_hw *hw,
                                char *buf, size_t len, sim_err *err);

/* The draft model's config a speculative configuration names (--spec-method draft with
 * --spec-model, SGLang's STANDALONE with --speculative-draft-model-path, vLLM's draft_model or
 * TensorRT-LLM's Draft_Target in --speculative-config), copied to buf; false when it names none
 * (EAGLE heads and MTP layers are priced from the target's shape) or the config does not parse
 * (loading reports that). */
bool cli_load_spec_draft_name(const cli_opts *o, char *buf, size_t len);

/* ------------------------------------------------------------------------------------------ */
/* What the model commands load from their flags (run, roofline, serve, sweep's points, compare) */

typedef struct cli_load_result {
    sim_model model;
    sim_hw hw;
    sim_format fmt;
    sim_step_cfg step;
    sim_model draft;         /* --spec-model */
    sim_spec spec;           /* method none without --spec-method */
    sim_engprof eng;         /* --engine's profile with the flags that override it applied */
    double usd_per_gpu_hour; /* --usd-per-gpu-hour, else the device file's; 0 = unknown */
    sim_moe_hist moe_hist;   /* --expert-load's histogram (step.routing points here) */
    sim_moe_cache moe_cache; /* the MoE load per batch, shared by step's copies (run state) */
    const cli_load_cache *cache; /* the cache it was loaded from (NULL: from disk) */
} cli_load_result;

/* A zeroed cli_load_result (NULL when out of memory; free() it), but for the --expert-load
 * histogram's shares, which sim_moe_hist_load writes whole before anything reads them (512 KB a
 * sweep's point would otherwise clear), and the device, which cli_load_common loads first. */
cli_load_result *cli_load_result_new(void);

/* Speculative decoding from the flags into L->step (cli_load_spec.c), after the target model and
 * the engine are loaded: the engine family's spelling, the draft, the acceptance rates. */
sim_status cli_load_spec(const cli_opts *o, cli_load_result *L, const cli_load_cache *cache,
                         sim_err *err);

/* Every flag of the option table that overrides a profile field (a row's eng column, cli_opt.h)
 * and that the command line gave, applied to e in table order: a number is copied, an on/off
 * flag sets its bool; an ON and an OFF flag of one field given together are an error naming both.
 * Flags whose value needs parsing or checking against other fields are cli_load.c's.
 * Example (sim_engprof *e, sim_err *err):
 *   cli_opts o = cli_opt_defaults;
 *   o.block_size = 32;
 *   o.given[CLI_OPT_ID_BLOCK_SIZE] = true;
 *   sim_status st = cli_load_engine_overrides(&o, e, err); // e->block_size == 32
 *   return st;
 */
sim_status cli_load_engine_overrides(const cli_opts *o, sim_engprof *e, sim_err *err);

/* A profile's step settings for model m (launch mode, host costs, memory rule, CUDA graphs);
 * the caller sets device, TP, precision and overlap. */
sim_step_cfg cli_load_engine_step(const sim_engprof *e, const sim_model *m);

/* A profile's engine settings (scheduler, block size, memory fraction, prefix caching) into
 * cfg; the rest of cfg is left as it is. */
void cli_load_engine_cfg(const sim_engprof *e, sim_engine_cfg *cfg);

/* Loads what the commands share; the model is optional for roofline. */
sim_status cli_load_common(const cli_opts *o, bool need_model, cli_load_result *L,
                           const cli_load_cache *cache, sim_err *err);

/* The measurements table validate and calibrate read by default. */
#define CLI_LOAD_VALIDATION_DATA "tools/data/validation.csv"

/* The measurements file: --data as given, else tools/data/validation.csv in the data roots
 * (find.h), so the commands work from any directory and from an installed copy. */
void cli_load_data_path(const cli_opts *o, char *buf, size_t len);

/* Whether an output or shard file holds JSON lines, by its name (.jsonl or .json); else CSV. */
bool cli_load_is_jsonl(const char *path);

/* The price of a GPU-hour of the device at hw_path: --usd-per-gpu-hour's (a bare number, or the
 * pair naming the device as --hw does or by its file's stem), else the device file's (0:
 * unknown). SIM_EINPUT for a malformed list or a pair naming no device file. */
sim_status cli_load_price(const cli_opts *o, const cli_load_cache *cache, const char *hw_path,
                          const sim_hw *hw, double *usd, sim_err *err);

#endif
