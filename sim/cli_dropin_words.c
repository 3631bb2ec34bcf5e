/* cli_dropin_words.c - vLLM's and SGLang's rules that turn an option file's top-level keys (read by
 * cli_dropin_yaml.c) into command-line words (vllm/utils/argparse_utils.py
 * FlexibleArgumentParser.load_config_file, vllm-project/vllm@00da11e;
 * python/sglang/srt/server_args_config_parser.py ConfigArgumentMerger, sgl-project/sglang@03bd2f1). */
#define _POSIX_C_SOURCE 200809L
#include "cli_dropin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

bool cli_dropin_yaml_text(const cJSON *v, char *buf, size_t len)
{
    int w;
    if (cJSON_IsString(v))
        w = snprintf(buf, len, "%s", v->valuestring);
    else if (cJSON_IsNumber(v))
        w = v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15
                ? snprintf(buf, len, "%lld", (long long)v->valuedouble)
                : snprintf(buf, len, "%.15g", v->valuedouble);
    else if (cJSON_IsBool(v)) /* Python's str(True) */
        w = snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "True" : "False");
    else if (cJSON_IsNull(v))
        w = snprintf(buf, len, "None");
    else
        return false;
    return w >= 0 && (size_t)w < len;
}

/* Appends a copy of `s` to the word list. */
static sim_status push_word(cli_dropin_words *w, const char *s, sim_err *err)
{
    if (w->n >= CLI_DROPIN_MAX_ARGS)
        return sim_fail(err, SIM_EINPUT, "too many settings (at most %d words)",
                        CLI_DROPIN_MAX_ARGS);
    if (!(w->v[w->n] = strdup(s)))
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    w->n++;
    return SIM_OK;
}

sim_status cli_dropin_config_words(const cJSON *cfg, const char *file, bool vllm,
                                   bool (*is_flag_row)(const void *ctx, const char *flag),
                                   const void *ctx, cli_dropin_words *w, sim_err *err)
{
    sim_status st = SIM_OK;
    for (const cJSON *it = cfg->child; !st && it; it = it->next) {
        char flag[160], text[1024];
        if (snprintf(flag, sizeof flag, "--%s", it->string) >= (int)sizeof flag)
            return sim_fail(err, SIM_EINPUT, "%s: key '%.40s...' is too long", file, it->string);
        if (cJSON_IsBool(it)) {
            /* vLLM: true is the flag, false its --no- form where the parser has one; SGLang:
             * true is a store_true flag, false leaves it out, other flags take true / false */
            bool flag_row = is_flag_row(ctx, flag);
            if (cJSON_IsTrue(it) && (vllm || flag_row))
                st = push_word(w, flag, err);
            else if (!cJSON_IsTrue(it) && vllm) {
                char no[170];
                snprintf(no, sizeof no, "--no-%s", it->string);
                if (is_flag_row(ctx, no))
                    st = push_word(w, no, err);
            } else if (!flag_row && !(st = push_word(w, flag, err)))
                st = push_word(w, cJSON_IsTrue(it) ? "true" : "false", err);
        } else if (cJSON_IsArray(it)) {
            if (!it->child)
                continue; /* an empty list: left out */
            st = push_word(w, flag, err);
            for (const cJSON *e = it->child; !st && e; e = e->next) {
                if (!cli_dropin_yaml_text(e, text, sizeof text))
                    return sim_fail(err, SIM_EINPUT,
                                    "%s: key '%s': a list of lists or mappings, expected a list "
                                    "of values",
                                    file, it->string);
                st = push_word(w, text, err);
            }
        } else if (cJSON_IsObject(it)) {
            if (!vllm) /* SGLang writes a mapping as Python's str(dict) */
                return sim_fail(err, SIM_EINPUT,
                                "%s: key '%s': a mapping, expected a value (SGLang passes a "
                                "mapping as Python text; write the flag's JSON as a quoted "
                                "string)",
                                file, it->string);
            char *json = cJSON_PrintUnformatted(it); /* vLLM: json.dumps(value) */
            if (!json)
                return sim_fail(err, SIM_EINTERNAL, "out of memory");
            st = push_word(w, flag, err);
            if (!st)
                st = push_word(w, json, err);
            free(json);
        } else {
            if (!cli_dropin_yaml_text(it, text, sizeof text))
                return sim_fail(err, SIM_EINPUT, "%s: key '%s': value too long", file, it->string);
            st = push_word(w, flag, err);
            if (!st)
                st = push_word(w, text, err);
        }
    }
    return st;
}

void cli_dropin_words_free(cli_dropin_words *w)
{
    for (int i = 0; i < w->n; i++)
        free(w->v[i]);
    w->n = 0;
}
