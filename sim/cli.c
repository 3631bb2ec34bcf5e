/* cli.c - the command table: dispatch, the top-level usage, every command's --help. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_cmd.h"
#include "cli_dropin.h"
#include "outfile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#ifndef INFERSIM_VERSION
#define INFERSIM_VERSION "0.1.0"
#endif

/* One command. A table command takes the option table's flags that carry its bit (`flags`),
 * parsed into a const cli_opts for `run`, and its --help lists them; an argv command (flags 0)
 * parses argv[2..] itself in `run_argv` and prints its own --help. This one table drives
 * dispatch, the top-level usage and every --help. */
typedef struct cli_command {
    const char *name;
    int flags;              /* CLI_OPT_CMD_ bit: the option-table flags it takes; 0: argv */
    cli_opt_id positional;  /* the flag a bare argument sets (hw FILE, trace-check FILE) */
    sim_status (*run)(const cli_opts *o, FILE *out, sim_err *err);
    sim_status (*run_argv)(int argc, char **argv, FILE *out, FILE *errf, sim_err *err);
    void (*help)(FILE *f, int argc, char **argv); /* argv commands */
    const char *summary;                          /* its line in `infersim --help` */
} cli_command;

static const cli_command commands[] = {
    {"run", CLI_OPT_CMD_RUN, CLI_OPT_ID_NONE, cli_run_cmd, NULL, NULL,
     "static batch: TTFT, TPOT, E2E, throughput, per-op breakdown"},
    {"roofline", CLI_OPT_CMD_ROOFLINE, CLI_OPT_ID_NONE, cli_run_roofline, NULL, NULL,
     "peaks, bandwidth, ridge points, op intensities"},
    {"serve", CLI_OPT_CMD_SERVE, CLI_OPT_ID_NONE, cli_serve_cmd, NULL, NULL,
     "request stream under continuous batching: vLLM's serving benchmark metrics"},
    {"endpoint", CLI_OPT_CMD_ENDPOINT, CLI_OPT_ID_NONE, cli_endpoint_cmd, NULL, NULL,
     "serve's deployment as a live OpenAI-compatible server: tokens streamed at predicted times"},
    {"capacity", CLI_OPT_CMD_SERVE | CLI_OPT_CMD_CAPACITY, CLI_OPT_ID_NONE, cli_capacity_cmd, NULL,
     cli_capacity_help,
     "the highest request rate whose serve run meets an SLO (--slo ttft:MS,tpot:MS)"},
    {"plan", CLI_OPT_CMD_SERVE | CLI_OPT_CMD_CAPACITY | CLI_OPT_CMD_PLAN, CLI_OPT_ID_NONE,
     cli_plan_cmd, NULL, cli_plan_help,
     "deployments (device, layout, engine, precision, replicas, P:D) for a rate under an SLO"},
    {"sweep", 0, CLI_OPT_ID_NONE, NULL, cli_sweep_cmd, cli_sweep_help,
     "run|serve over a grid (any flag a comma-separated list), in parallel"},
    {"merge", 0, CLI_OPT_ID_NONE, NULL, cli_merge_cmd, cli_merge_help,
     "join sweep shard files back into grid order"},
    {"compare", 0, CLI_OPT_ID_NONE, NULL, cli_compare_cmd, cli_compare_help,
     "a vLLM --save-result (or run-style) JSON against the prediction for the same flags"},
    {"trace-check", CLI_OPT_CMD_CHECK, CLI_OPT_ID_TRACE, cli_info_trace_check, NULL, NULL,
     "validate a Chrome trace (slices nest, names, counters, ids)"},
    {"op", CLI_OPT_CMD_OP, CLI_OPT_ID_NONE, cli_info_op, NULL, NULL,
     "price one GEMM, attention, copy or all-reduce on a device"},
    {"validate", CLI_OPT_CMD_VALIDATE, CLI_OPT_ID_NONE, cli_validate_cmd, NULL, NULL,
     "predictions against the public measurements, with the error summary"},
    {"calibrate", CLI_OPT_CMD_CALIBRATE, CLI_OPT_ID_NONE, cli_calibrate_cmd, NULL, NULL,
     "fit a device's efficiencies to its op-level measurements"},
    {"workload", CLI_OPT_CMD_WORKLOAD, CLI_OPT_ID_DATASET_NAME, cli_info_workload, NULL, NULL,
     "a public dataset's token lengths: the published statistics, the fit, its percentiles"},
    {"hw", CLI_OPT_CMD_HW, CLI_OPT_ID_HW, cli_info_hw, NULL, NULL,
     "a device file's every field, and whether it came from the file, a default or is derived"},
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
    fprintf(f, "  %-11s %s\n", "drop-in",
            "the engines' benchmark lines infersim reads: infersim vllm bench serve ..., "
            "python3 -m sglang.bench_serving ..., trtllm-bench ...");
}

/* Whether argv[first..] asks for help. */
static bool wants_help(int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

/* Runs argv[1] with its flags; a failure's message is left in err. */
/* Runs an option-table command with its file outputs staged (outfile.h): every one of them
 * appears once the command succeeded, none when it failed; `-` names standard output for each
 * (--out's `-` its command handles), and then the command's own report goes to errf so that
 * standard output holds that file alone. */
static sim_status run_staged(const cli_command *c, cli_opts *o, FILE *out, FILE *errf,
                             sim_err *err)
{
    const char **paths[] = {&o->out_file, &o->html, &o->chrome_trace, &o->save_requests,
                            &o->unc_out, &o->coverage_out};
    static const char *const flags[] = {"--out", "--html", "--chrome-trace", "--save-requests",
                                        "--uncertainty-out", "--coverage-out"};
    /* `-`: the command's own writing to standard output, else the staged file's */
    static const bool own_dash[] = {true, false, false, false, true, false};
    enum { N = sizeof paths / sizeof paths[0] };
    sim_outfile_stage stage[N];
    const char *given[N]; /* the paths as given: o points at stage[] only while the command runs */
    for (size_t i = 0; i < N; i++)
        given[i] = *paths[i];
    sim_status st = SIM_OK;
    FILE *report = out;
    size_t n = 0;
    for (; n < N && !st; n++) {
        const char *p = *paths[n];
        bool self = own_dash[n] && p && strcmp(p, "-") == 0; /* --out -: the command writes out */
        st = sim_outfile_stage_open(&stage[n], self ? NULL : p, flags[n], err);
        if (!st && p && !self) {
            *paths[n] = stage[n].staged;
            if (stage[n].to_stream)
                report = errf;
        }
    }
    sim_outfile_stage late = {0}; /* the one an output named only by the command takes */
    o->late_stage = &late;
    if (!st)
        st = c->run(o, report, err);
    o->late_stage = NULL;
    /* standard output first: a result that could not be written there takes no file with it */
    if (!st && fflush(out) != 0)
        st = sim_fail(err, SIM_EINPUT, "writing the result failed");
    sim_outfile_stage *all[N + 1];
    for (size_t i = 0; i < n; i++)
        all[i] = &stage[i];
    all[n] = &late;
    if (!st)
        st = sim_outfile_stage_publish(all, n + 1, out, err); /* all or none */
    for (size_t i = 0; i <= n; i++)
        sim_outfile_stage_abort(all[i]);
    for (size_t i = 0; i < N; i++)
        *paths[i] = given[i];
    if (!st && fflush(out) != 0)
        st = sim_fail(err, SIM_EINPUT, "writing the result failed");
    return st;
}

static sim_status dispatch(int argc, char **argv, int shown, FILE *out, FILE *errf, sim_err *err);

/* An engine's own benchmark line (cli_dropin.h): translated, its no-effect flags listed once,
 * the infersim line it became shown, then run as that line. */
static sim_status run_dropin(int argc, char **argv, FILE *out, FILE *errf, sim_err *err)
{
    if (cli_dropin_is_prepare(argc, argv))
        return cli_dropin_prepare(argc, argv, out, err);
    const cli_dropin_tool *tool = cli_dropin_find_tool(argc, argv);
    if (tool && wants_help(argc, argv, 2)) {
        cli_dropin_help(out, tool);
        return SIM_OK;
    }
    cli_dropin_line *t = malloc(sizeof *t);
    if (!t)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_status st = cli_dropin_is_pair(argc, argv) ? cli_dropin_pair(argc, argv, t, err)
                                                   : cli_dropin_translate(argc, argv, t, err);
    if (st) {
        free(t);
        return st;
    }
    if (t->no_effect[0])
        fprintf(errf, "infersim: no effect on the prediction: %s\n", t->no_effect);
    char *line = cli_opt_cmdline(t->argc, t->argv);
    if (line)
        fprintf(errf, "infersim: simulating %s\n", line);
    free(line);
    st = dispatch(t->argc, t->argv, t->argc, out, errf, err);
    cli_dropin_line_free(t);
    free(t);
    return st;
}

static sim_status dispatch(int argc, char **argv, int shown, FILE *out, FILE *errf, sim_err *err)
{
    const char *name = argv[1];
    for (size_t i = 0; i < N_COMMANDS; i++) {
        const cli_command *c = &commands[i];
        if (strcmp(name, c->name) != 0)
            continue;
        if (wants_help(argc, argv, 2)) {
            if (c->help)
                c->help(out, argc, argv);
            else
                cli_opt_usage(out, c->name, c->flags);
            return SIM_OK;
        }
        if (c->run_argv)
            return c->run_argv(argc, argv, out, errf, err);
        cli_opts o = cli_opt_defaults;
        o.warn = errf;
        sim_status st = cli_opt_parse(argc, argv, 2, c->name, c->flags, c->positional, &o, err);
        if (!st)
            st = cli_opt_check_outputs(&o, err);
        if (st)
            return st;
        /* the command as typed, for --html reports */
        char *cmdline = cli_opt_cmdline(shown, argv);
        if (!cmdline)
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        o.cmdline = cmdline;
        st = run_staged(c, &o, out, errf, err);
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
    return sim_cli_run_shown(argc, argv, argc, out, errf, err);
}

sim_status sim_cli_run_shown(int argc, char **argv, int shown, FILE *out, FILE *errf,
                             sim_err *err)
{
    if (shown < 1 || shown > argc)
        shown = argc;
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
    if (strcmp(name, "drop-in") == 0) { /* the README's list of the engines' flags */
        if (argc > 2 && strcmp(argv[2], "--markdown") == 0)
            cli_dropin_markdown(out);
        else
            for (size_t i = 0; i < cli_dropin_tool_count; i++)
                fprintf(out, "infersim %s%s%s ...   (infersim %s)\n", cli_dropin_tools[i].words,
                        cli_dropin_tools[i].sub ? " " : "",
                        cli_dropin_tools[i].sub ? cli_dropin_tools[i].sub : "",
                        cli_dropin_tools[i].cmd);
        return SIM_OK;
    }
    bool dropin = cli_dropin_is_tool(argc, argv) || cli_dropin_is_pair(argc, argv);
    sim_status st = dropin ? run_dropin(argc, argv, out, errf, err)
                           : dispatch(argc, argv, shown, out, errf, err);
    if (st && !err->msg[0])
        sim_fail(err, st, "internal error");
    return st;
}

int sim_cli_main_fd(int argc, char **argv, int out_fd, FILE *errf)
{
    sim_outfile o;
    sim_err werr = {{0}};
    if (sim_outfile_fd(&o, out_fd, "standard output", &werr)) {
        fprintf(errf, "infersim: %s\n", werr.msg);
        return SIM_EINTERNAL;
    }
    sim_err err = {{0}};
    sim_status st = SIM_EINPUT;
    if (argc < 2)
        top_usage(errf);
    else
        st = sim_cli_run(argc, argv, o.f, errf, &err);
    /* a failed write to the output is the one failure worth telling: the command's own message
     * is then "writing the result failed", without the reason the stream kept */
    if (sim_outfile_commit(&o, &werr)) {
        fprintf(errf, "infersim: %s\n", werr.msg);
        return SIM_EINPUT;
    }
    if (st && err.msg[0])
        fprintf(errf, "infersim: %s\n", err.msg);
    return (int)st;
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
