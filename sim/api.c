/* api.c - the public C API (include/infersim.h): one command line in-process, its JSON back. */
#define _POSIX_C_SOURCE 200809L
#include <infersim.h> /* include/: the public header, not a module of sim/ */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"

const char *infersim_version(void) { return INFERSIM_VERSION; }

/* The message into the caller's buffer, prefixed as the command line prints it. */
static char *fail(char *err, size_t err_len, const char *msg)
{
    if (err && err_len > 0)
        snprintf(err, err_len, "infersim: %s", msg);
    return NULL;
}

static bool has_flag(int argc, const char *const argv[], const char *flag)
{
    size_t n = strlen(flag);
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], flag, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
            return true;
    return false;
}

/* {"points": [...]} from JSON lines. NULL when out of memory or a line is not JSON. */
static char *points_json(const char *lines)
{
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "points");
    bool ok = root && arr;
    for (const char *p = lines; ok && *p;) {
        const char *end = NULL;
        cJSON *o = cJSON_ParseWithOpts(p, &end, 0);
        ok = o && cJSON_AddItemToArray(arr, o);
        p = end ? end + strspn(end, " \r\n") : p;
    }
    char *txt = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return txt;
}

/* {"text": "..."} for commands that print text. */
static char *text_json(const char *text)
{
    cJSON *root = cJSON_CreateObject();
    char *txt =
        root && cJSON_AddStringToObject(root, "text", text) ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return txt;
}

/* The report a call asked for with --report-html: written by --html into a folder of its own
 * under $TMPDIR (or /tmp), read back, and the folder removed. */
typedef struct report {
    char dir[512], path[540];
} report;

static bool report_open(report *r)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(r->dir, sizeof r->dir, "%s/infersim-report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(r->dir))
        return false;
    snprintf(r->path, sizeof r->path, "%s/report.html", r->dir);
    return true;
}

/* The report's text (malloc'd; NULL when the command wrote none or out of memory), its file and
 * folder removed. */
static char *report_close(report *r)
{
    char *text = NULL;
    FILE *f = fopen(r->path, "rb");
    if (f) {
        size_t cap = 1 << 16, n = 0, got;
        text = malloc(cap);
        while (text && (got = fread(text + n, 1, cap - n - 1, f)) > 0) {
            n += got;
            char *more = n + 1 < cap ? text : realloc(text, cap *= 2);
            if (!more)
                free(text);
            text = more;
        }
        if (text)
            text[n] = '\0';
        fclose(f);
        remove(r->path);
    }
    rmdir(r->dir);
    return text;
}

/* json with "report_html": html added (json freed; NULL when out of memory or not an object). */
static char *with_report(char *json, const char *html)
{
    cJSON *root = cJSON_Parse(json);
    free(json);
    char *txt = root && cJSON_IsObject(root) && cJSON_AddStringToObject(root, "report_html", html)
                    ? cJSON_PrintUnformatted(root)
                    : NULL;
    cJSON_Delete(root);
    return txt;
}

char *infersim_json(int argc, const char *const argv[], char *err, size_t err_len)
{
    if (argc < 1 || !argv || !argv[0])
        return fail(err, err_len,
                    "expected a command in argv[0] (run, serve, roofline, sweep, ...)");
    for (int i = 0; i < argc; i++)
        if (!argv[i])
            return fail(err, err_len, "argv holds a NULL before argc");
    const char *cmd = argv[0];
    if (strcmp(cmd, "endpoint") == 0) /* blocks for signals until one comes: not a computation */
        return fail(err, err_len,
                    "endpoint: a server that runs until SIGINT or SIGTERM, not one computation; "
                    "expected the infersim program for it");
    bool formatted = strcmp(cmd, "run") == 0 || strcmp(cmd, "serve") == 0 ||
                     strcmp(cmd, "roofline") == 0 || strcmp(cmd, "hw") == 0;
    bool rows = strcmp(cmd, "sweep") == 0 && !has_flag(argc, argv, "--out") &&
                !has_flag(argc, argv, "--help");
    bool want_report = has_flag(argc, argv, "--report-html");
    if (want_report && (!(strcmp(cmd, "run") == 0 || strcmp(cmd, "serve") == 0 || rows) ||
                        has_flag(argc, argv, "--help")))
        return fail(err, err_len,
                    "--report-html: only run, serve and sweep (without --out) answer with their "
                    "--html report");
    /* "infersim" argv... [--format json|jsonl] [--html REPORT] NULL */
    char **av = calloc((size_t)argc + 5, sizeof *av);
    if (!av)
        return fail(err, err_len, "out of memory");
    report rep;
    if (want_report && !report_open(&rep)) {
        free(av);
        return fail(err, err_len, "--report-html: cannot make a temporary folder under $TMPDIR");
    }
    int n = 0;
    av[n++] = "infersim";
    bool own_format = (formatted || rows) && !has_flag(argc, argv, "--help");
    for (int i = 0; i < argc; i++) {
        /* the API answers JSON: a caller's --format gives way (a flag is taken once) */
        if (own_format && i > 0 && strcmp(argv[i], "--format") == 0) {
            i++;
            continue;
        }
        if (own_format && i > 0 && strncmp(argv[i], "--format=", 9) == 0)
            continue;
        if (i > 0 && strcmp(argv[i], "--report-html") == 0)
            continue;
        av[n++] = (char *)argv[i]; /* the command line never writes into argv */
    }
    int shown = n; /* the report shows the caller's words, not the two below */
    if (own_format)
        av[n++] = formatted ? "--format=json" : "--format=jsonl";
    if (want_report) {
        av[n++] = "--html";
        av[n++] = rep.path;
    }
    char *out = NULL, *diag = NULL;
    size_t out_len = 0, diag_len = 0;
    FILE *fo = open_memstream(&out, &out_len), *fd = open_memstream(&diag, &diag_len);
    sim_err e = {{0}};
    sim_status st = fo && fd ? sim_cli_run_shown(n, av, shown, fo, fd, &e) : SIM_EINTERNAL;
    if (fo)
        fclose(fo);
    if (fd)
        fclose(fd);
    free(av);
    free(diag);
    char *res = NULL;
    if (st)
        fail(err, err_len, e.msg[0] ? e.msg : "out of memory");
    else if (formatted && !has_flag(argc, argv, "--help"))
        res = out, out = NULL;
    else if (!(res = rows ? points_json(out ? out : "") : text_json(out ? out : "")))
        fail(err, err_len,
             rows ? "the sweep's rows are not JSON lines, or out of memory" : "out of memory");
    free(out);
    if (want_report) {
        char *html = report_close(&rep);
        if (res && !(res = with_report(res, html ? html : "")))
            fail(err, err_len, "out of memory");
        free(html);
    }
    return res;
}
