/* cli.h - the command line: commands, flags, exit codes. main.c only calls sim_cli_main.
 *
 *   infersim run --model M --hw H [--tp N --pp N --batch B --input-len I --output-len O ...]
 *       a static batch: TTFT, TPOT, E2E, throughput, the per-op breakdown
 *   infersim roofline --hw H [--dtype D] [--model M --batch B --input-len I --tp N ...]
 *       the device's peaks, bandwidth and ridge points; with a model, its ops' intensities
 *   infersim serve --model M --hw H [--num-prompts N --request-rate R | --trace FILE ...]
 *       a request stream under continuous batching: vLLM's serving benchmark metrics
 *   infersim sweep run|serve [that command's flags, any value a list: --tp 1,2,4] [--out FILE
 *                            --slo ttft:MS,tpot:MS --shard I/N --grid FILE ...]
 *       every combination, points in parallel, rows in grid order, the Pareto frontier
 *   infersim merge [--out FILE] SHARD...         sweep --shard files joined in grid order
 *   infersim compare --result FILE.json [run or serve flags]
 *       a vLLM --save-result (or run-style) JSON against the prediction for the same flags
 *   infersim op --hw H --op gemm|attention|copy|allreduce|grouped_gemm|alltoall [its shape]
 *       one operator priced on a device
 *   infersim validate [--data CSV] [--max-op-median PCT ...]
 *       predictions against the measurements table, with the error summary
 *   infersim calibrate --hw H [--data CSV] [--out FILE]
 *       a device's efficiencies fitted to its op-level rows
 *   infersim hw FILE|NAME [--format table|json]  a device file's fields and where each came from
 *   infersim trace-check FILE                    a Chrome trace's consistency
 *   infersim vllm bench serve ... --hw H, infersim python3 -m sglang.bench_serving ... --hw H,
 *   infersim trtllm-bench --model M throughput ... --hw H (and the servers' launch lines, and
 *   serve --server "LINE" --bench "LINE"): the engines' own command lines, translated into an
 *   infersim serve or run line (cli_dropin.h); infersim drop-in [--markdown] lists them
 *
 * `infersim --help` lists the commands, `infersim COMMAND --help` a command's flags (both from
 * cli.c's command table and cli_opt.c's option table).
 * --model and --hw take a path, or a bare name looked up as models/NAME.json and hw/NAME.json
 * in the data roots (find.h); --model also takes a Hugging Face id a model file lists.
 * Exit status: 0 success, 2 bad input (one line on `err` naming the flag or file, the field, the
 * value and what was expected), 1 internal failure (and validate's gates when they fail).
 */
#ifndef SIM_CLI_H
#define SIM_CLI_H

#include <stdio.h>

#include "status.h"

/* Runs one command line; results go to `out`, diagnostics to `err`. Returns the exit status. */
int sim_cli_main(int argc, char **argv, FILE *out, FILE *err);

/* sim_cli_main writing its results to the open descriptor out_fd (main.c's standard output)
 * through a stream that keeps the reason of a failed write: once the command is done the stream
 * is flushed and checked, and a write that failed (a full disk, a closed stdout, a reader gone)
 * is exit 2 with one line naming the system's reason ("infersim: standard output: writing
 * failed: No space left on device"), whatever the command returned, never exit 0. */
int sim_cli_main_fd(int argc, char **argv, int out_fd, FILE *err);

/* The same without printing the failure: it is left in *err (one line, no "infersim: " prefix).
 * Keeps no state between calls (the C API runs it from any thread). */
sim_status sim_cli_run(int argc, char **argv, FILE *out, FILE *errf, sim_err *err);

/* sim_cli_run whose --html report shows argv's first `shown` words as its command line: the C
 * API adds its own --format and --html after the caller's words and leaves them out of the
 * report (a drop-in engine line shows its translation, as always). */
sim_status sim_cli_run_shown(int argc, char **argv, int shown, FILE *out, FILE *errf,
                             sim_err *err);

#endif
