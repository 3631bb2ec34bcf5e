/* cli_load_name.c - names: a model, device, trace or engine profile looked up in the data roots,
 * and the spellings of one flag (cli_load.h). The loaders above call it; it calls none of them. */
#define _POSIX_C_SOURCE 200809L
#include "cli_load.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "find.h"
#include "suggest.h"

/* ------------------------------------------------------------------------------------------ */
/* Model and device names */

const char *cli_load_dir(cli_load_kind kind)
{
    static const char *const dirs[CLI_LOAD_KINDS] = {
        [CLI_LOAD_MODEL] = "models",
        [CLI_LOAD_HW] = "hw",
        [CLI_LOAD_TRACE] = "traces",
        [CLI_LOAD_ENGINE] = "hw/engines",
    };
    return dirs[kind];
}

static void suggest_add(void *s, const char *name) { sim_suggest_add(s, name); }

/* A bare name ("h100-sxm") is looked up as DIR/NAME.json in the data roots (find.h); for models, a
 * folder stands for its config.json (a checkpoint, as vLLM's --model takes it) and a Hugging Face
 * id ("meta-llama/Llama-3.1-8B") that is not a path names the model file listing it.
 * Anything else is used as given (and its loader says it cannot be opened). */
void cli_load_resolve(cli_load_kind kind, const char *arg, char *buf, size_t len)
{
    const char *dir = cli_load_dir(kind);
    snprintf(buf, len, "%s", arg);
    struct stat sb;
    if (kind == CLI_LOAD_MODEL && stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        /* a checkpoint folder, as vLLM's --model takes it: its config.json */
        char cfg[PATH_MAX + 16];
        snprintf(cfg, sizeof cfg, "%s/config.json", arg);
        if (strlen(cfg) < len)
            memcpy(buf, cfg, strlen(cfg) + 1);
        return;
    }
    if (access(arg, F_OK) == 0)
        return;
    if (strchr(arg, '/')) {
        if (kind == CLI_LOAD_MODEL)
            sim_model_find_hf(arg, buf, len);
        return;
    }
    char file[NAME_MAX + 8]; /* traces are named with their extension, models and devices not */
    if (snprintf(file, sizeof file, "%s%s", arg, kind == CLI_LOAD_TRACE ? "" : ".json") >=
            (int)sizeof file ||
        sim_find_file(dir, file, buf, len) || kind == CLI_LOAD_TRACE)
        return;
    /* "H100-SXM": the one data name equal up to case (suggest.h) */
    sim_suggest s;
    sim_suggest_init(&s, arg);
    sim_find_each(dir, suggest_add, &s);
    const char *ci = sim_suggest_case_match(&s);
    if (ci && snprintf(file, sizeof file, "%s.json", ci) < (int)sizeof file)
        sim_find_file(dir, file, buf, len);
}

/* A name that is no file and was found in no data folder (cli_load_resolve left it as given): the
 * message says where infersim looked and which names it has, instead of "cannot open". */
sim_status cli_load_explain_missing(cli_load_kind kind, const char *name, sim_status st,
                                    sim_err *err)
{
    const char *dir = cli_load_dir(kind);
    size_t l = strlen(name);
    bool is_json = l > 5 && strcmp(name + l - 5, ".json") == 0;
    if (!st || is_json || access(name, F_OK) == 0)
        return st;
    char known[384];
    sim_find_names(dir, known, sizeof known);
    if (!known[0])
        snprintf(known, sizeof known, "(no %s/ folder found)", dir);
    if (strchr(name, '/'))
        return kind != CLI_LOAD_MODEL
                   ? st
                   : sim_fail(err, SIM_EINPUT,
                              "%s: no such file, and no models/NAME.json lists this Hugging Face "
                              "id in its infersim_hf_ids; expected a config.json path, a model "
                              "name (%s) or a listed id",
                              name, known);
    sim_suggest s; /* a near miss: "did you mean" (suggest.h) */
    sim_suggest_init(&s, name);
    sim_find_each(dir, suggest_add, &s);
    char mean[4 * SIM_SUGGEST_NAME_MAX + 16], near[sizeof mean + 32] = "";
    if (sim_suggest_text(&s, mean, sizeof mean))
        snprintf(near, sizeof near, "; did you mean %s?", mean);
    return sim_fail(err, SIM_EINPUT,
                    "%s: no such file, and no %s/%s.json in the working directory, "
                    "$INFERSIM_DATA, next to the binary, in its build's source tree or in "
                    "share/infersim%s%s expected a path "
                    "or one of: %s",
                    name, dir, name, near, near[0] ? "" : ";", known);
}
