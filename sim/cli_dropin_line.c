/* cli_dropin_line.c - the translated command line the engines' files build (cli_dropin.h): flags
 * pushed, looked up and dropped, a count's value checked, the flags of no effect noted. It calls
 * none of the drop-in's other files. */
#define _POSIX_C_SOURCE 200809L
#include "cli_dropin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sim_status cli_dropin_push(cli_dropin_line *t, const char *flag, const char *value, sim_err *err)
{
    const char *v[2] = {flag, value};
    for (int i = 0; i < 2 && v[i]; i++) {
        if (t->argc >= CLI_DROPIN_MAX_ARGS)
            return sim_fail(err, SIM_EINPUT, "%s: too many arguments (at most %d)", t->tool->words,
                            CLI_DROPIN_MAX_ARGS);
        if (!(t->argv[t->argc] = strdup(v[i])))
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        t->argc++;
    }
    return SIM_OK;
}

bool cli_dropin_has(const cli_dropin_line *t, const char *flag)
{
    for (int i = 2; i < t->argc; i++)
        if (strcmp(t->argv[i], flag) == 0)
            return true;
    return false;
}

bool cli_dropin_drop(cli_dropin_line *t, const char *flag)
{
    for (int k = 2; k + 1 < t->argc; k++)
        if (strcmp(t->argv[k], flag) == 0) {
            free(t->argv[k]);
            free(t->argv[k + 1]);
            memmove(&t->argv[k], &t->argv[k + 2], (size_t)(t->argc - k - 2) * sizeof t->argv[0]);
            t->argc -= 2;
            return true;
        }
    return false;
}

sim_status cli_dropin_count(const char *flag, const char *value, int64_t *out, sim_err *err)
{
    char *end = NULL;
    errno = 0;
    long long x = strtoll(value, &end, 10);
    if (errno || end == value || *end || x < 1 || x > (1LL << 30))
        return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected a whole number >= 1", flag,
                        value);
    *out = x;
    return SIM_OK;
}

sim_status cli_dropin_no_effect(cli_dropin_line *t, const char *flag)
{
    size_t len = strlen(t->no_effect), n = strlen(flag);
    for (const char *p = t->no_effect; (p = strstr(p, flag)); p += n)
        if ((p == t->no_effect || p[-1] == ' ') && (p[n] == ',' || !p[n]))
            return SIM_OK; /* listed once */
    snprintf(t->no_effect + len, sizeof t->no_effect - len, "%s%s", len ? ", " : "", flag);
    return SIM_OK;
}

void cli_dropin_line_free(cli_dropin_line *t)
{
    for (int i = 0; i < t->argc; i++)
        free(t->argv[i]);
    t->argc = 0;
}
