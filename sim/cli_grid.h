/* cli_grid.h - the sweep's command line (private to sim/cli*.c): its own flags (--out, --slo,
 * --shard, ...) and its --help, and the grid of flag values from the command line's
 * comma-separated lists and a --grid file, checked against the swept command's flags.
 */
#ifndef SIM_CLI_GRID_H
#define SIM_CLI_GRID_H

#include <stdint.h>
#include <stdio.h>

#include "cli_opt.h"
#include "sweep.h"

enum { CLI_GRID_MAX_DIMS = 48 };

/* Sweep-level flags, apart from the command's. */
typedef struct cli_grid_opts {
    const char *out, *slo, *shard, *grid, *html, *objective, *format;
    int64_t threads, pct;
    unsigned seen; /* bit i: sweep_flags[i] was given */
} cli_grid_opts;

/* Parses `infersim sweep run|serve [flags]` (command `mask`) into the command line's grid `g`
 * and the sweep's own flags. */
sim_status cli_grid_parse(int argc, char **argv, int mask, sim_grid *g, cli_grid_opts *so,
                          sim_err *err);

/* The sweep's grid: a --grid file's dimensions first, then the command line's (`cl`, moved). */
sim_status cli_grid_build(const cli_grid_opts *so, const char *cmd, int mask, sim_grid *cl,
                          sim_grid *g, sim_err *err);

/* `infersim sweep [run|serve] --help`: the sweep's own flags (and which command's flags it
 * takes: sub is "run", "serve" or NULL). */
void cli_grid_usage(FILE *f, const char *sub);

#endif
