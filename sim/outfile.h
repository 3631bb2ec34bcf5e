/* outfile.h - output files that appear whole or not at all.
 *
 * Every file infersim writes (--out, --save-requests, --chrome-trace) goes to "<path>.tmp" and is
 * renamed to <path> only once every write succeeded, so a reader never sees half a file and a
 * failed run leaves nothing behind:
 *
 *   sim_outfile o;
 *   if ((st = sim_outfile_open(&o, path, "--out", &err)))
 *       return st;                       // "--out: cannot write x.tmp: No such file or directory"
 *   fprintf(o.f, ...);
 *   return sim_outfile_commit(&o, &err); // checks the stream, closes, renames to <path>
 *
 * On an error path before commit, sim_outfile_abort(&o) removes the temporary file.
 * `what` names the flag in messages; it must outlive the sim_outfile (a string literal).
 */
#ifndef SIM_OUTFILE_H
#define SIM_OUTFILE_H

#include <stdio.h>

#include "status.h"

typedef struct sim_outfile {
    FILE *f; /* the temporary file; NULL once committed or aborted */
    const char *what;
    char path[1024];
    char tmp[1100];
} sim_outfile;

/* Opens "<path>.tmp" for writing. SIM_EINPUT when the path is too long or cannot be created. */
sim_status sim_outfile_open(sim_outfile *o, const char *path, const char *what, sim_err *err);

/* Closes the temporary file and renames it to the path. Any write error on the stream, a failed
 * close or a failed rename: SIM_EINPUT, the temporary file removed, <path> untouched. */
sim_status sim_outfile_commit(sim_outfile *o, sim_err *err);

/* Closes and removes the temporary file; a no-op when already committed or aborted. */
void sim_outfile_abort(sim_outfile *o);

#endif
