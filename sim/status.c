/* status.c - error message formatting. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>

sim_status sim_fail(sim_err *err, sim_status st, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}
