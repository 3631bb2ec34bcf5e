/* cli_cmd.h - the commands' handlers (private to sim/cli*.c). Each command group has its own file
 * and depends only on the option, loading and point modules (cli_opt, cli_load, cli_point,
 * cli_grid), never on another command's file; cli.c's command table names these handlers.
 *
 * A table command gets its flags parsed (cli_opt) into a const cli_opts; an argv command (sweep,
 * merge, compare) parses its own arguments, argv[2..].
 */
#ifndef SIM_CLI_CMD_H
#define SIM_CLI_CMD_H

#include <stdio.h>

#include "cli_opt.h"

/* cli_run.c: a static batch; the device's peaks and the model's op intensities */
sim_status cli_run_cmd(const cli_opts *o, FILE *out, sim_err *err);
sim_status cli_run_roofline(const cli_opts *o, FILE *out, sim_err *err);

/* cli_serve.c: a request stream under continuous batching */
sim_status cli_serve_cmd(const cli_opts *o, FILE *out, sim_err *err);

/* cli_endpoint.c: serve's deployment as a live OpenAI-compatible HTTP server (libmicrohttpd) */
sim_status cli_endpoint_cmd(const cli_opts *o, FILE *out, sim_err *err);

/* cli_capacity.c: the highest request rate whose serving run meets an SLO */
sim_status cli_capacity_cmd(const cli_opts *o, FILE *out, sim_err *err);
void cli_capacity_help(FILE *f, int argc, char **argv); /* serve's flags, those it refuses */

/* cli_plan.c: the deployments that serve a target rate under an SLO, ranked, with launch lines */
sim_status cli_plan_cmd(const cli_opts *o, FILE *out, sim_err *err);
void cli_plan_help(FILE *f, int argc, char **argv);

/* cli_info.c: one op priced on a device; a device file's fields; a Chrome trace checked */
sim_status cli_info_op(const cli_opts *o, FILE *out, sim_err *err);
sim_status cli_info_hw(const cli_opts *o, FILE *out, sim_err *err);
sim_status cli_info_trace_check(const cli_opts *o, FILE *out, sim_err *err);
sim_status cli_info_workload(const cli_opts *o, FILE *out, sim_err *err); /* a dataset's fit */

/* cli_validate.c, cli_calibrate.c: the measurements table */
sim_status cli_validate_cmd(const cli_opts *o, FILE *out, sim_err *err);
sim_status cli_calibrate_cmd(const cli_opts *o, FILE *out, sim_err *err);

/* cli_sweep.c, cli_merge.c, cli_compare.c: argv commands, each with its --help (`infersim sweep
 * run --help` names run's flags) */
sim_status cli_sweep_cmd(int argc, char **argv, FILE *out, FILE *errf, sim_err *err);
void cli_sweep_help(FILE *f, int argc, char **argv);
sim_status cli_merge_cmd(int argc, char **argv, FILE *out, FILE *errf, sim_err *err);
void cli_merge_help(FILE *f, int argc, char **argv);
sim_status cli_compare_cmd(int argc, char **argv, FILE *out, FILE *errf, sim_err *err);
void cli_compare_help(FILE *f, int argc, char **argv);

#endif
