/* grid.h - a parameter grid: dimensions of flag values, its points in mixed radix (the last
 * dimension fastest), their labels; and its shards, every N-th point from the I-th (Slurm array
 * style). No I/O; the sweep (sweep.h) runs the points.
 *
 * Example (sim_err *err):
 *   sim_grid g = {0};
 *   sim_status st = sim_grid_add(&g, "--tp", "1,2,4,8", err);
 *   if (!st)
 *       st = sim_grid_add(&g, "--request-rate", "1,4,inf", err); // 12 points, the last fastest
 *   sim_grid_shard sh;
 *   if (!st)
 *       st = sim_grid_shard_parse("2/3", &sh, err); // points 2, 5, 8, 11
 *   if (!st && sim_grid_shard_points(&sh, sim_grid_points(&g)) != 4)
 *       st = SIM_EINTERNAL;
 *   sim_grid_free(&g);
 *   return st;
 */
#ifndef SIM_GRID_H
#define SIM_GRID_H

#include <stddef.h>

#include "status.h"

typedef struct sim_grid_dim {
    char name[64]; /* flag, e.g. "--tp" */
    char **values; /* owned strings */
    size_t n;
} sim_grid_dim;

typedef struct sim_grid {
    sim_grid_dim *dims; /* owned; in the order given */
    size_t n_dims;
} sim_grid;

/* Adds a dimension whose values are a comma-separated list (empty items are errors); the same
 * checks as sim_grid_add_values. */
sim_status sim_grid_add(sim_grid *g, const char *name, const char *csv, sim_err *err);

/* Adds a dimension from an array of values. A name already in the grid is an error (SIM_EINPUT,
 * "--batch: given twice ..."), as is one longer than sim_grid_dim.name holds. */
sim_status sim_grid_add_values(sim_grid *g, const char *name, const char *const *values, size_t n,
                               sim_err *err);

/* Number of points: the product of the dimensions' sizes (1 for no dimension). */
size_t sim_grid_points(const sim_grid *g);

/* The values of point `index` (mixed radix, the last dimension fastest): out[d] for dim d. */
void sim_grid_point(const sim_grid *g, size_t index, const char **out);

void sim_grid_free(sim_grid *g);

/* "--tp 2 --request-rate 4": the values point `index` takes in the dimensions with more than one
 * value, into buf (cut to len). */
void sim_grid_label(const sim_grid *g, size_t index, char *buf, size_t len);

/* Which points this process runs: every `count`-th starting at `index` (Slurm array style). */
typedef struct sim_grid_shard {
    size_t index, count; /* 0 <= index < count */
} sim_grid_shard;

/* Parses "I/N". */
sim_status sim_grid_shard_parse(const char *s, sim_grid_shard *out, sim_err *err);

/* Points of the grid in the shard, in grid order. */
size_t sim_grid_shard_points(const sim_grid_shard *s, size_t total);
size_t sim_grid_shard_point(const sim_grid_shard *s, size_t k); /* grid index of the shard's k-th point */

#endif
