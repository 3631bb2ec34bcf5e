/* workload_rate.c - arrival rates that vary over time (workload.h sim_rate_schedule). */
#include "workload.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

sim_status sim_workload_schedule_parse(const char *s, sim_rate_schedule *out, sim_err *err)
{
    memset(out, 0, sizeof *out);
    const char *p = s;
    while (*p) {
        char *end = NULL;
        errno = 0;
        double t = strtod(p, &end);
        bool ok = end != p && *end == ':' && !errno && !strpbrk(p, "xXnN");
        double r = 0.0;
        if (ok) {
            const char *q = end + 1;
            r = strtod(q, &end);
            ok = end != q && (*end == ',' || !*end) && !errno;
        }
        const int k = out->n;
        ok = ok && k < SIM_RATE_SCHEDULE_MAX && t >= 0.0 && t <= SIM_ARRIVAL_MAX_S && r > 0.0 &&
             r <= 1e9 && (k == 0 ? t == 0.0 : t > out->start_s[k - 1]);
        if (!ok)
            return sim_fail(err, SIM_EINPUT,
                            "--rate-schedule: value '%s' at '%s', expected T:RATE,T:RATE,... "
                            "(seconds from 0, increasing, at most %g; requests/s in (0, 1e9]; at "
                            "most %d segments)",
                            s, p, SIM_ARRIVAL_MAX_S, SIM_RATE_SCHEDULE_MAX);
        out->start_s[k] = t;
        out->rate_per_s[k] = r;
        out->n++;
        p = *end ? end + 1 : end;
    }
    if (out->n == 0)
        return sim_fail(err, SIM_EINPUT, "--rate-schedule: empty, expected T:RATE,T:RATE,...");
    return SIM_OK;
}

/* Walks the segments: each offers rate x its length; the one where u runs out holds the time. */
double sim_workload_schedule_time(const sim_rate_schedule *r, double u)
{
    for (int k = 0; k + 1 < r->n; k++) {
        const double offered = r->rate_per_s[k] * (r->start_s[k + 1] - r->start_s[k]);
        if (u <= offered)
            return r->start_s[k] + u / r->rate_per_s[k];
        u -= offered;
    }
    return r->start_s[r->n - 1] + u / r->rate_per_s[r->n - 1];
}
