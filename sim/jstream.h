/* jstream.h - a JSON file of one top-level object, read one value at a time.
 *
 * A Chrome trace is one object whose "traceEvents" array can hold millions of events: parsing it
 * whole takes about 15 bytes of memory per byte of file. sim_jstream_object walks the object with
 * a small scanner and hands each top-level value -- and each element of the array under
 * `array_key` -- to a callback as its own parsed cJSON tree, so memory is bounded by the largest
 * single value (at most max_value_bytes), not by the file. The callback (sim_jstream_fn):
 *
 *   sim_status on_value(void *ctx, const char *key, long index, const cJSON *v, sim_err *err);
 *   // index: the element's, or -1 for a whole value (the array itself comes first, as [], at -1)
 *
 * Example (const char *path, sim_jstream_fn on_value, void *ctx, sim_err *err):
 *   return sim_jstream_object(path, "traceEvents", SIM_JSTREAM_MAX_VALUE, on_value, ctx, err);
 *
 * Errors (SIM_EINPUT, naming the file): cannot open, a directory, empty, malformed JSON (with the
 * byte offset), top level not an object, a value past max_value_bytes, a top-level key twice (or
 * a key twice in any object inside a value), anything after the object but whitespace. A
 * callback's non-OK status stops the walk and is returned.
 */
#ifndef SIM_JSTREAM_H
#define SIM_JSTREAM_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "status.h"

#define SIM_JSTREAM_MAX_VALUE ((size_t)16 << 20)

typedef sim_status (*sim_jstream_fn)(void *ctx, const char *key, long index, const cJSON *value,
                                     sim_err *err);

sim_status sim_jstream_object(const char *path, const char *array_key, size_t max_value_bytes,
                              sim_jstream_fn fn, void *ctx, sim_err *err);

#endif
