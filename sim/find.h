/* find.h - where infersim's data files (models/, hw/, traces/, tools/data/) are found.
 *
 * A bare name ("h100-sxm") is looked up as DIR/NAME.json (or DIR/NAME with an extension given)
 * under each data root, in this order:
 *   1. the working directory (so "./hw/h100-sxm.json" and a checkout's own files win);
 *   2. $INFERSIM_DATA (a folder holding models/, hw/, ...);
 *   3. the source tree next to the binary (build/infersim -> build/.., and the binary's folder),
 *      then the source tree a build folder records: the first line of `infersim-source` (an
 *      absolute path CMake writes at configure time) in the binary's folder, so that a binary built out of tree (cmake -S . -B ../build) finds its data from any
 *      working directory; an installed binary has no such file;
 *   4. the installed share folder: the nearest share/infersim above the binary (PREFIX/bin/infersim
 *      -> PREFIX/share/infersim), then above the library itself (PREFIX/lib/libinfersim.so, or the
 *      Python package's PREFIX/lib/python3/dist-packages/infersim/_infersim.so), and the source
 *      tree the library's build folder records (build/python/infersim/_infersim.so: the build
 *      tree's Python package used from any folder);
 *   5. the share folder the library was configured to install into (INFERSIM_DATADIR).
 * A path that exists, or that names a folder ("x/y.json"), is used as given.
 *
 * Nothing here keeps state: every call reads the environment and /proc/self/exe afresh, so it is
 * safe from any thread.
 */
#ifndef SIM_FIND_H
#define SIM_FIND_H

#include <stdbool.h>
#include <stddef.h>

#define SIM_FIND_MAX_ROOTS 10

/* The data roots in lookup order (each at most `len` bytes, roots[i] points into `buf`, which
 * holds SIM_FIND_MAX_ROOTS * len bytes). Returns how many. */
size_t sim_find_roots(char *buf, size_t len, const char *roots[SIM_FIND_MAX_ROOTS]);

/* ROOT/DIR/FILE for the first root where it exists, into out. False (out untouched) when none. */
bool sim_find_file(const char *dir, const char *file, char *out, size_t len);

/* The names (file stems) of DIR/NAME.json in the first root that has DIR, sorted, joined with ", "
 * into out (cut short with "..." when they do not fit). Empty when no root has DIR. */
void sim_find_names(const char *dir, char *out, size_t len);

/* Calls fn(ctx, NAME) for each DIR/NAME.json in the first root that has DIR, in sorted order (the
 * names a "did you mean" is chosen from). Returns how many. */
size_t sim_find_each(const char *dir, void (*fn)(void *ctx, const char *name), void *ctx);

#endif
