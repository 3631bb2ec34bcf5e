/* jsonf.h - reading validated numbers out of JSON input files.
 *
 * Every getter names the file and the field in its error, says what value it found and what was
 * expected, so a bad config never becomes a crash, a NaN or a silent default:
 *
 * Example (sim_err *err):
 *   cJSON *root;
 *   sim_status st = sim_jsonf_load("hw/h100-sxm.json", &root, err);
 *   if (st)
 *       return st;
 *   double bw;
 *   st = sim_jsonf_num(root, "hw/h100-sxm.json", "hbm_tb_per_s", 0.01, 100.0, &bw, err);
 *   cJSON_Delete(root);
 *   return st;
 *
 * Dotted field names ("efficiency.gemm") are looked up through nested objects.
 */
#ifndef SIM_JSONF_H
#define SIM_JSONF_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "status.h"

/* Reads and parses a whole file. On success *out owns the tree (free with cJSON_Delete).
 * Errors: unreadable file, a directory, empty file, malformed JSON (with the byte offset), top
 * level not an object, a key twice in one object (which of the two counts is up to the reader,
 * so neither is taken). */
sim_status sim_jsonf_load(const char *path, cJSON **out, sim_err *err);

/* Like sim_jsonf_load, for files up to max_bytes (config files are capped at 16 MiB). */
sim_status sim_jsonf_load_max(const char *path, long max_bytes, cJSON **out, sim_err *err);

/* SIM_EINPUT naming the key when an object anywhere in the tree holds a key twice. */
sim_status sim_jsonf_unique_keys(const cJSON *node, const char *path, sim_err *err);

/* Whether a loader reads the field at the dotted path `field` (its value `v`): a value it reads,
 * or an object or array it reads whole. */
typedef bool (*sim_jsonf_known_fn)(const char *field, const cJSON *v);

/* SIM_EINPUT naming the first field of `root`, in file order, that no loader reads: a value that
 * `known` does not accept, inside objects it does not accept whole. An object named "sources" at
 * any depth holds notes and is never looked into. `expected` ends the message ("a device field:
 * infersim hw FILE lists them"). A field that is read nowhere is a typo or a value silently
 * ignored, so it is refused. */
sim_status sim_jsonf_known_keys(const cJSON *root, const char *path, sim_jsonf_known_fn known,
                                const char *expected, sim_err *err);

/* The item at a dotted path, or NULL if any part is missing or JSON null. */
const cJSON *sim_jsonf_find(const cJSON *root, const char *field);

/* A required finite number in [min, max]. */
sim_status sim_jsonf_num(const cJSON *root, const char *path, const char *field, double min,
                         double max, double *out, sim_err *err);

/* Like sim_jsonf_num, but a missing field (or JSON null) leaves *out = dflt. */
sim_status sim_jsonf_num_opt(const cJSON *root, const char *path, const char *field, double min,
                             double max, double dflt, double *out, sim_err *err);

/* A required whole number in [min, max] (1.0 is accepted, 1.5 and "1" are not). */
sim_status sim_jsonf_int(const cJSON *root, const char *path, const char *field, int64_t min,
                         int64_t max, int64_t *out, sim_err *err);

/* Like sim_jsonf_int, but a missing field (or JSON null) leaves *out = dflt. */
sim_status sim_jsonf_int_opt(const cJSON *root, const char *path, const char *field, int64_t min,
                             int64_t max, int64_t dflt, int64_t *out, sim_err *err);

/* An optional boolean; missing or null gives dflt. */
sim_status sim_jsonf_bool_opt(const cJSON *root, const char *path, const char *field, bool dflt,
                              bool *out, sim_err *err);

/* An optional string; missing or null gives NULL. The pointer lives as long as root. */
sim_status sim_jsonf_str_opt(const cJSON *root, const char *path, const char *field,
                             const char **out, sim_err *err);

#endif
