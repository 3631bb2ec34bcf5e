/* cli.c - command line parsing and the run / roofline commands. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_cmd.h"
#include "cli_grid.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine.h"
#include "find.h"
#include "html.h"
#include "jsonf.h"
#include "cluster_trace.h"
#include "metrics.h"
#include "outfile.h"
#include "pp.h"
#include "rng.h"
#include "report.h"
#include "run.h"
#include "spec.h"
#include "sweep.h"
#include "trace.h"
#include "validate.h"
#include "workload.h"

#ifndef INFERSIM_VERSION
#define INFERSIM_VERSION "0.1.0"
#endif

/* One command: its flags come from the option table (mask) and run through fn, or (sweep, merge,
 * compare) it parses its own arguments through argv_fn. One table drives dispatch, the top-level
 * usage and every --help. */
typedef struct command {
    const char *name;
    int mask;
    sim_status (*fn)(const cli_opts *, FILE *, sim_err *);
    sim_status (*argv_fn)(int argc, char **argv, FILE *out, FILE *errf, sim_err *err);
    const char *summary;
    const char *usage; /* argv commands: their synopsis and flags */
} command;

static sim_status cmd_merge(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    (void)errf;
    return cli_merge_cmd(argc, argv, out, err);
}

static sim_status cmd_compare(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    return cli_compare_cmd(argc, argv, out, errf, err);
}

static const command commands[] = {
    {"run", CLI_OPT_CMD_RUN, cli_run_cmd, NULL,
     "static batch: TTFT, TPOT, E2E, throughput, per-op breakdown", NULL},
    {"roofline", CLI_OPT_CMD_ROOFLINE, cli_run_roofline, NULL,
     "peaks, bandwidth, ridge points, op intensities", NULL},
    {"serve", CLI_OPT_CMD_SERVE, cli_serve_cmd, NULL,
     "request stream under continuous batching: vLLM's serving benchmark metrics", NULL},
    {"sweep", 0, NULL, cli_sweep_cmd,
     "run|serve over a grid (any flag a comma-separated list), in parallel", NULL},
    {"merge", 0, NULL, cmd_merge, "join sweep shard files back into grid order",
     "usage: infersim merge [--out FILE] SHARD...\n"
     "  SHARD...                   the files of 'infersim sweep --shard I/N --out FILE' (all CSV "
     "or\n"
     "                             all JSONL), joined back into grid order\n"
     "  --out S                    write the merged rows here (default: stdout)\n"},
    {"compare", 0, NULL, cmd_compare,
     "a vLLM --save-result (or run-style) JSON against the prediction for the same flags",
     "usage: infersim compare --result FILE.json [the run or serve flags of the measurement]\n"
     "  --result S                 a vLLM --save-result file (mean_ttft_ms, ...: compared with\n"
     "                             'infersim serve') or a run-style JSON (ttft_ms, ...: 'infersim\n"
     "                             run'); the other flags are those commands' flags\n"},
    {"trace-check", CLI_OPT_CMD_CHECK, cli_info_trace_check, NULL,
     "validate a Chrome trace (slices nest, names, counters, ids)", NULL},
    {"op", CLI_OPT_CMD_OP, cli_info_op, NULL,
     "price one GEMM, attention, copy or all-reduce on a device", NULL},
    {"validate", CLI_OPT_CMD_VALIDATE, cli_validate_cmd, NULL,
     "predictions against the public measurements, with the error summary", NULL},
    {"calibrate", CLI_OPT_CMD_CALIBRATE, cli_calibrate_cmd, NULL,
     "fit a device's efficiencies to its op-level measurements", NULL},
    {"hw", CLI_OPT_CMD_HW, cli_info_hw, NULL,
     "a device file's every field, and whether it came from the file, a default or is derived",
     NULL},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static void top_usage(FILE *f)
{
    fprintf(f,
            "infersim %s - predicts LLM serving performance with the roofline model\n"
            "usage: infersim COMMAND [flags]   (infersim COMMAND --help for its flags)\n",
            INFERSIM_VERSION);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
}

/* Whether argv[first..] asks for help. */
static bool wants_help(int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

/* A command's --help; sweep's names its subcommand's flags. */
static void command_help(FILE *f, const command *c, int argc, char **argv)
{
    if (c->fn)
        cli_opt_usage(f, c->name, c->mask);
    else if (strcmp(c->name, "sweep") == 0)
        cli_grid_usage(f, argc > 2 && (strcmp(argv[2], "run") == 0 || strcmp(argv[2], "serve") == 0)
                              ? argv[2]
                              : NULL);
    else
        fputs(c->usage, f);
}

/* Runs argv[1] with its flags; a failure's message is left in err. */
static sim_status dispatch(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    const char *name = argv[1];
    for (size_t i = 0; i < N_COMMANDS; i++) {
        const command *c = &commands[i];
        if (strcmp(name, c->name) != 0)
            continue;
        if (wants_help(argc, argv, 2)) {
            command_help(out, c, argc, argv);
            return SIM_OK;
        }
        if (c->argv_fn)
            return c->argv_fn(argc, argv, out, errf, err);
        cli_opts o = cli_opt_defaults;
        o.warn = errf;
        sim_status st = cli_opt_parse(argc, argv, 2, c->name, c->mask, &o, err);
        if (!st)
            st = cli_opt_check_outputs(&o, err);
        if (st)
            return st;
        char *cmdline = cli_opt_cmdline(argc, argv); /* the command as typed, for --html reports */
        if (!cmdline)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        o.cmdline = cmdline;
        st = c->fn(&o, out, err);
        free(cmdline);
        return st;
    }
    char names[512] = "";
    for (size_t i = 0; i < N_COMMANDS; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 i == 0                ? ""
                 : i + 1 == N_COMMANDS ? " or "
                                       : ", ",
                 commands[i].name);
    return sim_fail(err, SIM_EINPUT, "unknown command '%s'; expected %s (infersim --help)", name,
                    names);
}

sim_status sim_cli_run(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    if (argc < 2)
        return sim_fail(err, SIM_EINPUT,
                        "missing command; expected 'infersim COMMAND [flags]' (infersim --help)");
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "help") == 0 || strcmp(name, "-h") == 0) {
        top_usage(out);
        return SIM_OK;
    }
    if (strcmp(name, "--version") == 0) {
        fprintf(out, "infersim %s\n", INFERSIM_VERSION);
        return SIM_OK;
    }
    sim_status st = dispatch(argc, argv, out, errf, err);
    if (st && !err->msg[0])
        sim_fail(err, st, "internal error");
    return st;
}

int sim_cli_main(int argc, char **argv, FILE *out, FILE *errf)
{
    if (argc < 2) {
        top_usage(errf);
        return SIM_EINPUT;
    }
    sim_err err = {{0}};
    sim_status st = sim_cli_run(argc, argv, out, errf, &err);
    if (st)
        fprintf(errf, "infersim: %s\n", err.msg);
    return (int)st;
}
