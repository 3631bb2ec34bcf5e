/* outfile.c - see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

sim_status sim_outfile_open(sim_outfile *o, const char *path, const char *what, sim_err *err)
{
    memset(o, 0, sizeof *o);
    o->what = what;
    size_t n = strlen(path);
    if (n >= sizeof o->path)
        return sim_fail(err, SIM_EINPUT, "%s: path is %zu characters, expected at most %zu", what,
                        n, sizeof o->path - 1);
    memcpy(o->path, path, n + 1);
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp", path);
    if (!(o->f = fopen(o->tmp, "w")))
        return sim_fail(err, SIM_EINPUT, "%s: cannot write %s: %s", what, o->tmp, strerror(errno));
    return SIM_OK;
}

sim_status sim_outfile_commit(sim_outfile *o, sim_err *err)
{
    if (!o->f)
        return sim_fail(err, SIM_EINTERNAL, "%s: %s was already closed", o->what, o->tmp);
    bool bad = ferror(o->f) != 0;
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (bad) {
        remove(o->tmp);
        return sim_fail(err, SIM_EINPUT, "%s: writing %s failed", o->what, o->tmp);
    }
    if (rename(o->tmp, o->path) != 0) {
        int e = errno;
        remove(o->tmp);
        return sim_fail(err, SIM_EINPUT, "%s: cannot rename %s to %s: %s", o->what, o->tmp, o->path,
                        strerror(e));
    }
    return SIM_OK;
}

void sim_outfile_abort(sim_outfile *o)
{
    if (o->f) {
        fclose(o->f);
        o->f = NULL;
        remove(o->tmp);
    }
}
