/* cli.h - the command line: subcommands, flags, exit codes. main.c only calls sim_cli_main.
 *
 *   infersim run --model M --hw H --tp N --batch B --input-len I --output-len O
 *                [--weight-dtype D] [--act-dtype D] [--kv-cache-dtype D] [--overlap-comm F]
 *                [--gpu-memory-utilization U] [--enforce-eager] [--format table|json|csv]
 *   infersim roofline --hw H [--dtype D] [--model M --batch B --input-len I --tp N ...]
 *
 * --model and --hw take a path, or a bare name looked up as models/NAME.json and hw/NAME.json
 * in the data roots (find.h); --model also takes a Hugging Face id a model file lists.
 * Exit status: 0 success, 2 bad input (one line on `err` naming the flag or file, the field, the
 * value and what was expected), 1 internal failure.
 */
#ifndef SIM_CLI_H
#define SIM_CLI_H

#include <stdio.h>

#include "status.h"

/* Runs one command line; results go to `out`, diagnostics to `err`. Returns the exit status. */
int sim_cli_main(int argc, char **argv, FILE *out, FILE *err);

/* The same without printing the failure: it is left in *err (one line, no "infersim: " prefix).
 * Keeps no state between calls (the C API runs it from any thread). */
sim_status sim_cli_run(int argc, char **argv, FILE *out, FILE *errf, sim_err *err);

#endif
