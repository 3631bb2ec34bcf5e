/* cli_dropin_flag.c - one engine flag found among its tool's rows (exact, or an argparse
 * abbreviation) and applied: its value or list taken, the row's action done; and `--config
 * FILE`'s keys taken as flags the same way. The row tables' --config handler (cli_dropin_vllm.c,
 * _sglang.c) lives here, below the translation of a whole line (cli_dropin.c), which calls it:
 * so no file of the drop-in calls back into one that calls it. */
#define _POSIX_C_SOURCE 200809L
#include "cli_dropin.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli_opt.h"
#include "suggest.h"

/* Whether engine spelling `name` (as typed, `len` bytes) is row name `row` under the tool's
 * rules; *prefix is set when it is only a prefix of it. */
static bool name_matches(const char *name, size_t len, const char *row, int style, bool *prefix)
{
    size_t rl = strlen(row);
    if (len > rl)
        return false;
    for (size_t i = 0; i < len; i++) {
        char a = name[i], b = row[i];
        if ((style & CLI_DROPIN_UNDERSCORE) && i >= 2) {
            a = a == '_' ? '-' : a;
            b = b == '_' ? '-' : b;
        }
        if (a != b)
            return false;
    }
    *prefix = len < rl;
    return !*prefix || ((style & CLI_DROPIN_ABBREV) && len > 2 && name[1] == '-');
}

/* The row named `name` ("--random-input" under argparse's abbreviations), or NULL with the
 * error set when it is ambiguous or unknown. */
static const cli_dropin_flag *find_row(const cli_dropin_tool *tool, const char *name, size_t len,
                                       sim_err *err)
{
    const cli_dropin_flag *exact = NULL, *pre = NULL;
    char several[512] = "";
    int n_pre = 0;
    for (int k = 0; k < CLI_DROPIN_MAX_TABLES && tool->tables[k]; k++)
        for (const cli_dropin_flag *r = tool->tables[k]; r->name; r++) {
            const char *spell[2] = {r->name, r->alias};
            for (int s = 0; s < 2 && spell[s]; s++) {
                bool prefix = false;
                if (!name_matches(name, len, spell[s], tool->style, &prefix))
                    continue;
                if (!prefix && !exact)
                    exact = r;
                else if (prefix && pre != r) {
                    pre = r;
                    n_pre++;
                    snprintf(several + strlen(several), sizeof several - strlen(several), "%s%s",
                             n_pre > 1 ? ", " : "", spell[s]);
                }
            }
        }
    if (exact)
        return exact;
    if (n_pre == 1)
        return pre;
    if (n_pre > 1) {
        sim_fail(err, SIM_EINPUT, "%s: ambiguous option: %.*s could match %s", tool->words,
                 (int)len, name, several);
        return NULL;
    }
    sim_suggest s;
    char want[128];
    snprintf(want, sizeof want, "%.*s", (int)len, name);
    /* where '_' and '-' are alike, the typed name is compared in the spelling most of the
     * tool's rows use (vLLM's dashes, trtllm-bench's underscores) */
    char near_of[sizeof want];
    snprintf(near_of, sizeof near_of, "%s", want);
    if (tool->style & CLI_DROPIN_UNDERSCORE) {
        long score = 0; /* underscores minus dashes inside the rows' names */
        for (int k = 0; k < CLI_DROPIN_MAX_TABLES && tool->tables[k]; k++)
            for (const cli_dropin_flag *r = tool->tables[k]; r->name; r++)
                for (const char *c = r->name + 2; *c; c++)
                    score += (*c == '_') - (*c == '-');
        char from = score > 0 ? '-' : '_', to = score > 0 ? '_' : '-';
        for (char *c = near_of + 2; c < near_of + strlen(near_of); c++)
            *c = *c == from ? to : *c;
    }
    sim_suggest_init(&s, near_of);
    for (int k = 0; k < CLI_DROPIN_MAX_TABLES && tool->tables[k]; k++)
        for (const cli_dropin_flag *r = tool->tables[k]; r->name; r++)
            sim_suggest_add(&s, r->name);
    char near[4 * SIM_SUGGEST_NAME_MAX + 16];
    bool any = sim_suggest_text(&s, near, sizeof near);
    sim_fail(err, SIM_EINPUT, "%s: unknown flag '%s'%s%s%s (its flags: 'infersim %s%s%s --help')",
             tool->words, want, any ? "; did you mean " : "", any ? near : "", any ? "?" : "",
             tool->words, tool->sub ? " " : "", tool->sub ? tool->sub : "");
    return NULL;
}

/* One row with its value (NULL for a flag; a list's values joined by spaces in `list`). */
static sim_status apply_row(cli_dropin_line *t, const cli_dropin_flag *r, const char *typed,
                            const char *value, char **values, int n_values, sim_err *err)
{
    switch (r->act) {
    case CLI_DROPIN_NONE:
        return cli_dropin_no_effect(t, typed);
    case CLI_DROPIN_REFUSE:
        return sim_fail(err, SIM_EINPUT, "%s: %s changes the timing and is not modelled (%s)",
                        t->tool->words, typed, r->note);
    case CLI_DROPIN_CALL: {
        /* a list's values, space-joined for the handler ("1 2 4") */
        char joined[1024] = "";
        for (int i = 0; i < n_values; i++)
            snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", i ? " " : "",
                     values[i]);
        return r->call(t, typed, n_values > 1 ? joined : value, err);
    }
    case CLI_DROPIN_MAP: {
        /* a flag the command does not take (a scheduler limit for a static batch) */
        int mask = strcmp(t->tool->cmd, "run") == 0 ? CLI_OPT_CMD_RUN : CLI_OPT_CMD_SERVE;
        if (!cli_opt_find(r->to, mask))
            return cli_dropin_no_effect(t, typed);
        sim_status st = cli_dropin_push(t, r->to, r->arity == CLI_DROPIN_FLAG ? NULL : value, err);
        for (int i = 1; !st && i < n_values; i++)
            st = cli_dropin_push(t, values[i], NULL, err);
        return st;
    }
    }
    return SIM_EINTERNAL;
}

bool cli_dropin_is_flag(const char *a)
{
    return a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.';
}

sim_status cli_dropin_take_flag(cli_dropin_line *t, int argc, char **args, int *i, int sub,
                                sim_err *err)
{
    const char *a = args[*i];
    const char *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    const cli_dropin_flag *r = find_row(t->tool, a, len, err);
    if (!r)
        return SIM_EINPUT;
    char typed[128];
    snprintf(typed, sizeof typed, "%.*s", (int)len, a);
    const char *value = eq ? eq + 1 : NULL;
    char **values = NULL;
    int n_values = 0;
    if (r->arity == CLI_DROPIN_FLAG && value)
        return sim_fail(err, SIM_EINPUT, "%s: takes no value, got '%s'", typed, value);
    if (r->arity == CLI_DROPIN_VALUE && !value) {
        if (*i + 1 >= argc || cli_dropin_is_flag(args[*i + 1]))
            return sim_fail(err, SIM_EINPUT, "%s: missing value", typed);
        value = args[++*i];
    }
    if (r->arity == CLI_DROPIN_LIST) {
        values = &args[*i + 1];
        while (!value && *i + 1 < argc && !cli_dropin_is_flag(args[*i + 1]) && *i + 1 != sub)
            ++*i, n_values++;
        if (value)
            values = NULL;
        else if (n_values)
            value = values[0];
    }
    return apply_row(t, r, typed, value, values, n_values, err);
}

/* Whether the command line itself (not its option file) sets what row `r` sets: the row, another
 * row mapped onto the same infersim flag, or (the positional's row) a bare first argument. */
static bool line_sets(const cli_dropin_line *t, const cli_dropin_flag *r)
{
    const cli_dropin_tool *tool = t->tool;
    if (tool->positional && r->act == CLI_DROPIN_MAP && strcmp(r->to, tool->positional) == 0 &&
        t->in_first < t->in_argc && !cli_dropin_is_flag(t->in_argv[t->in_first]))
        return true;
    for (int i = t->in_first; i < t->in_argc; i++) {
        const char *a = t->in_argv[i];
        if (!cli_dropin_is_flag(a))
            continue;
        sim_err scratch;
        const cli_dropin_flag *q = find_row(tool, a, strcspn(a, "="), &scratch);
        if (q == r || (q && q->act == CLI_DROPIN_MAP && r->act == CLI_DROPIN_MAP &&
                       strcmp(q->to, r->to) == 0))
            return true;
    }
    return false;
}

/* Whether the tool has a row named `flag` that takes no value (a store_true flag). */
static bool has_flag_row(const void *ctx, const char *flag)
{
    const cli_dropin_tool *tool = ctx;
    sim_err scratch;
    const cli_dropin_flag *r = find_row(tool, flag, strlen(flag), &scratch);
    return r && r->arity == CLI_DROPIN_FLAG;
}

sim_status cli_dropin_config(cli_dropin_line *t, const char *flag, const char *path, sim_err *err)
{
    if (t->config_read)
        return sim_fail(err, SIM_EINPUT, "%s: %s: given twice, expected one file", t->tool->words,
                        flag);
    t->config_read = true;
    cJSON *cfg = NULL;
    sim_status st = cli_dropin_yaml_load(path, flag, &cfg, err);
    cli_dropin_words w = {0};
    if (!st)
        st = cli_dropin_config_words(cfg, path, strncmp(t->tool->words, "vllm", 4) == 0,
                                     has_flag_row, t->tool, &w, err);
    /* each key as its flag, unless the command line gives it: the line wins over the file (vLLM
     * puts the file's words before the line's, SGLang likewise, and argparse keeps the last) */
    for (int i = 0; !st && i < w.n; i++) {
        const char *a = w.v[i];
        sim_err why;
        const cli_dropin_flag *r = find_row(t->tool, a, strlen(a), &why);
        if (!r) {
            st = sim_fail(err, SIM_EINPUT, "%s: key '%s': %s", path, a + 2, why.msg);
            break;
        }
        int last = i; /* the key's words: its flag and the values up to the next flag */
        while (last + 1 < w.n && !cli_dropin_is_flag(w.v[last + 1]))
            last++;
        if (line_sets(t, r)) {
            i = last;
            continue;
        }
        int key_at = i;
        st = cli_dropin_take_flag(t, last + 1, w.v, &i, 0, err);
        if (!st && i < last) /* a list for a flag of one value: argparse's "unrecognized" */
            st = sim_fail(err, SIM_EINPUT, "%s takes one value, the file gives %d", a,
                          last - key_at);
        if (st == SIM_EINPUT && !strstr(err->msg, path)) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            st = sim_fail(err, SIM_EINPUT, "%s: key '%s': %s", path, a + 2, msg);
        }
    }
    cli_dropin_words_free(&w);
    cJSON_Delete(cfg);
    return st;
}
