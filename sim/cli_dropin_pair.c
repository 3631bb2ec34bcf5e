/* cli_dropin_pair.c - `infersim serve --server "LINE" --bench "LINE"`: a server's launch line and
 * a benchmark's, each split as sh splits words and translated (cli_dropin.c), joined into one
 * infersim serve line: the deployment from the server's, the workload from the benchmark's. */
#define _POSIX_C_SOURCE 200809L
#include "cli_dropin.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Words as sh splits them (POSIX Shell Command Language 2.2 Quoting), never expanded. */

sim_status cli_dropin_split(const char *s, const char *what, char ***words, int *n, sim_err *err)
{
    *words = NULL;
    *n = 0;
    size_t len = strlen(s);
    char *buf = malloc(len + 1), **w = malloc((len / 2 + 2) * sizeof *w);
    if (!buf || !w) {
        free(buf);
        free(w);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    char *o = buf;
    int count = 0;
    bool in_word = false;
    for (const char *p = s; *p;) {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word)
                *o++ = '\0', in_word = false;
            p++;
            continue;
        }
        if (!in_word)
            w[count++] = o, in_word = true;
        if (c == '\\') { /* an escaped character; a backslash-newline joins lines */
            if (p[1] == '\n')
                p += 2;
            else if (p[1])
                *o++ = p[1], p += 2;
            else
                p++;
            if (o == w[count - 1] && (!*p || *p == ' ' || *p == '\t' || *p == '\n'))
                count--, in_word = false; /* the continuation alone made no word */
            continue;
        }
        if (c == '\'' || (c == '$' && p[1] == '\'')) {
            bool ansi = c == '$'; /* bash's $'...': backslash escapes inside */
            p += ansi ? 2 : 1;
            while (*p && *p != '\'') {
                if (ansi && *p == '\\' && p[1]) {
                    char e = p[1];
                    *o++ = e == 'n' ? '\n' : e == 't' ? '\t' : e;
                    p += 2;
                } else
                    *o++ = *p++;
            }
            if (!*p) {
                free(buf);
                free(w);
                return sim_fail(err, SIM_EINPUT, "%s: a ' is not closed", what);
            }
            p++;
            continue;
        }
        if (c == '"') {
            p++;
            while (*p && *p != '"') {
                if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' || p[1] == '`'))
                    p++;
                else if (*p == '\\' && p[1] == '\n') {
                    p += 2;
                    continue;
                }
                *o++ = *p++;
            }
            if (!*p) {
                free(buf);
                free(w);
                return sim_fail(err, SIM_EINPUT, "%s: a \" is not closed", what);
            }
            p++;
            continue;
        }
        *o++ = *p++;
    }
    if (in_word)
        *o = '\0';
    if (count == 0) {
        free(buf);
        free(w);
        return sim_fail(err, SIM_EINPUT, "%s: empty, expected a command line", what);
    }
    *words = w;
    *n = count;
    return SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */

bool cli_dropin_is_pair(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "serve") != 0)
        return false;
    static const char *const name[2] = {"--server", "--bench"};
    for (int i = 2; i < argc; i++)
        for (int j = 0; j < 2; j++) {
            size_t len = strlen(name[j]);
            if (!strncmp(argv[i], name[j], len) && (!argv[i][len] || argv[i][len] == '='))
                return true;
        }
    return false;
}

/* One line translated: "infersim" words..., as cli_dropin_translate reads them. */
static sim_status one_line(const char *flag, const char *line, bool server, cli_dropin_line *t,
                           sim_err *err)
{
    char **w;
    int n;
    sim_status st = cli_dropin_split(line, flag, &w, &n, err);
    if (st)
        return st;
    char **argv = malloc((size_t)(n + 1) * sizeof *argv);
    if (!argv) {
        free(w[0]);
        free(w);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    argv[0] = "infersim";
    memcpy(argv + 1, w, (size_t)n * sizeof *w);
    const cli_dropin_tool *tool = cli_dropin_find_tool(n + 1, argv);
    if (!tool || tool->server != server)
        st = sim_fail(err, SIM_EINPUT, "%s: '%s' is not %s; expected %s", flag, w[0],
                      server ? "a server's launch line" : "a benchmark's line",
                      server ? "vllm serve MODEL ..., python3 -m sglang.launch_server ... or "
                               "trtllm-serve MODEL ..."
                             : "vllm bench serve ..., python3 -m sglang.bench_serving ... or "
                               "trtllm-bench ... throughput|latency ...");
    if (!st)
        st = cli_dropin_translate(n + 1, argv, t, err);
    free(argv);
    free(w[0]);
    free(w);
    return st;
}

/* The value of infersim flag `flag` on line t (NULL: none or a flag without a value). */
static const char *value_of(const cli_dropin_line *t, const char *flag)
{
    for (int i = 2; i + 1 < t->argc; i++)
        if (strcmp(t->argv[i], flag) == 0)
            return strncmp(t->argv[i + 1], "--", 2) ? t->argv[i + 1] : NULL;
    return NULL;
}

sim_status cli_dropin_pair(int argc, char **argv, cli_dropin_line *t, sim_err *err)
{
    memset(t, 0, sizeof *t);
    const char *line[2] = {NULL, NULL}; /* server, bench */
    static const char *const name[2] = {"--server", "--bench"};
    int rest[CLI_DROPIN_MAX_ARGS], n_rest = 0;
    for (int i = 2; i < argc; i++) {
        int k = -1;
        for (int j = 0; j < 2; j++) {
            size_t len = strlen(name[j]);
            if (!strncmp(argv[i], name[j], len) && (!argv[i][len] || argv[i][len] == '='))
                k = j;
        }
        if (k < 0) {
            if (n_rest >= CLI_DROPIN_MAX_ARGS)
                return sim_fail(err, SIM_EINPUT, "serve: too many arguments");
            rest[n_rest++] = i;
            continue;
        }
        const char *eq = strchr(argv[i], '=');
        if (line[k])
            return sim_fail(err, SIM_EINPUT, "%s: given twice, expected once", name[k]);
        if (!eq && i + 1 >= argc)
            return sim_fail(err, SIM_EINPUT,
                            "%s: missing value, expected a command line in "
                            "quotes",
                            name[k]);
        line[k] = eq ? eq + 1 : argv[++i];
    }
    cli_dropin_line *part = calloc(2, sizeof *part);
    if (!part)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    sim_status st = SIM_OK;
    for (int k = 0; k < 2 && !st; k++)
        if (line[k])
            st = one_line(name[k], line[k], k == 0, &part[k], err);
    /* the server's engine, then the server's flags, the benchmark's that the server's line does
     * not give, infersim's own flags last */
    if (!st)
        st = cli_dropin_push(t, "infersim", "serve", err);
    t->tool = part[0].tool ? part[0].tool : part[1].tool;
    for (int k = 0; k < 2 && !st; k++) {
        const cli_dropin_line *p = &part[k];
        if (!p->tool)
            continue;
        char list[sizeof p->no_effect]; /* each flag listed once over both lines */
        snprintf(list, sizeof list, "%s", p->no_effect);
        for (char *save = NULL, *f = strtok_r(list, ", ", &save); f;
             f = strtok_r(NULL, ", ", &save))
            cli_dropin_no_effect(t, f);
        for (int i = 2; i < p->argc && !st; i++) {
            const char *f = p->argv[i];
            bool has_value = i + 1 < p->argc && strncmp(p->argv[i + 1], "--", 2) != 0;
            const char *v = has_value ? p->argv[i + 1] : NULL;
            if (k == 1 && cli_dropin_has(t, f)) {
                /* the engine is the server's; the model must be the server's */
                const char *mine = value_of(t, f);
                if (strcmp(f, "--model") == 0 && mine && v && strcmp(mine, v) != 0)
                    st = sim_fail(err, SIM_EINPUT,
                                  "--bench: --model %s is not the --server line's model %s", v,
                                  mine);
                else if (strcmp(f, "--engine") != 0 && strcmp(f, "--model") != 0 &&
                         !(mine && v && strcmp(mine, v) == 0) && !(!mine && !v))
                    st = sim_fail(err, SIM_EINPUT,
                                  "%s: given by both the --server and the --bench line, with "
                                  "different values",
                                  f);
                i += has_value;
                continue;
            }
            st = cli_dropin_push(t, f, v, err);
            i += has_value;
        }
    }
    for (int i = 0; i < n_rest && !st; i++)
        st = cli_dropin_push(t, argv[rest[i]], NULL, err);
    cli_dropin_line_free(&part[0]);
    cli_dropin_line_free(&part[1]);
    free(part);
    if (st)
        cli_dropin_line_free(t);
    return st;
}
