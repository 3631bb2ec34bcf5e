/* cli_dropin_yaml.c - the engines' YAML option files (vLLM's and SGLang's --config, TensorRT-LLM's
 * --extra_llm_api_options), read with libyaml into a cJSON tree as PyYAML's yaml.safe_load reads
 * them (PyYAML's resolver, yaml/resolver.py: YAML 1.1's implicit types of plain scalars). The words
 * a file's keys become are cli_dropin_words.c's; a build without libyaml (the WebAssembly one)
 * compiles cli_dropin_noyaml.c in this file's place. */
#define _POSIX_C_SOURCE 200809L
#include "cli_dropin.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <yaml.h>

/* PyYAML's bool words (resolver.py: yes/no, true/false, on/off, each in three casings). */
static int yaml_bool(const char *s)
{
    static const char *const yes[] = {"yes",  "Yes", "YES", "true", "True",
                                      "TRUE", "on",  "On",  "ON"};
    static const char *const no[] = {"no",    "No",  "NO",  "false", "False",
                                     "FALSE", "off", "Off", "OFF"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcmp(s, yes[i]) == 0)
            return 1;
        if (strcmp(s, no[i]) == 0)
            return 0;
    }
    return -1;
}

/* s with its '_' digit separators left out, into buf; false when too long. */
static bool strip_underscores(const char *s, char *buf, size_t len)
{
    size_t k = 0;
    for (; *s; s++)
        if (*s != '_') {
            if (k + 1 >= len)
                return false;
            buf[k++] = *s;
        }
    buf[k] = '\0';
    return true;
}

/* A plain scalar as PyYAML resolves it: null (~, null, empty), a bool, an int (decimal, 0x, 0b,
 * 0 octal, '_' separators), a float (digits with a '.', an exponent with its sign), else a
 * string; .inf and .nan, which no setting takes, are refused. */
static sim_status plain_scalar(const char *s, const char *file, size_t line, cJSON **out,
                               sim_err *err)
{
    if (!*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
        strcmp(s, "NULL") == 0) {
        *out = cJSON_CreateNull();
        return SIM_OK;
    }
    int b = yaml_bool(s);
    if (b >= 0) {
        *out = cJSON_CreateBool(b);
        return SIM_OK;
    }
    char digits[64];
    const char *p = s + (*s == '-' || *s == '+');
    bool neg = *s == '-';
    bool lead = (*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9');
    if (lead && strip_underscores(p, digits, sizeof digits)) {
        int base = 10;
        const char *d = digits;
        if (d[0] == '0' && (d[1] == 'x' || d[1] == 'b'))
            base = d[1] == 'x' ? 16 : 2, d += 2;
        else if (d[0] == '0' && d[1] && strspn(d, "01234567") == strlen(d))
            base = 8;
        char *end = NULL;
        errno = 0;
        long long v = strtoll(d, &end, base);
        /* decimal: 0 or no leading zero (PyYAML reads 08 as a string) */
        if (*d && *d != '-' && *d != '+' && end && !*end && !errno &&
            (base != 10 || digits[0] != '0' || !digits[1])) {
            *out = cJSON_CreateNumber((double)(neg ? -v : v));
            return SIM_OK;
        }
        /* a float: digits, a '.', digits, an exponent whose sign is written (1.5e+3; 1e3 is a
         * string to PyYAML) */
        const char *q = digits + strspn(digits, "0123456789");
        if (*q == '.') {
            q += 1 + strspn(q + 1, "0123456789");
            if ((*q == 'e' || *q == 'E') && (q[1] == '+' || q[1] == '-') && q[2] >= '0' &&
                q[2] <= '9')
                q += 2 + strspn(q + 2, "0123456789");
            double x = strtod(digits, NULL);
            if (!*q && isfinite(x)) {
                *out = cJSON_CreateNumber(neg ? -x : x);
                return SIM_OK;
            }
        }
    }
    static const char *const odd[] = {".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        if (strcmp(p, odd[i]) == 0)
            return sim_fail(err, SIM_EINPUT, "%s: line %zu: value '%s', expected a finite number",
                            file, line, s);
    *out = cJSON_CreateString(s);
    return SIM_OK;
}

/* A libyaml node as a cJSON value (*out, owned by the caller). */
static sim_status node_json(yaml_document_t *doc, yaml_node_t *n, const char *file, int depth,
                            cJSON **out, sim_err *err)
{
    size_t line = n->start_mark.line + 1;
    *out = NULL;
    if (depth > 32)
        return sim_fail(err, SIM_EINPUT, "%s: line %zu: nested more than 32 deep", file, line);
    const char *plain_tag = n->type == YAML_SEQUENCE_NODE  ? YAML_SEQ_TAG
                            : n->type == YAML_MAPPING_NODE ? YAML_MAP_TAG
                                                           : YAML_STR_TAG;
    if (n->tag && strcmp((const char *)n->tag, plain_tag) != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: line %zu: tag '%s' is not read, expected untagged "
                        "values",
                        file, line, (const char *)n->tag);
    sim_status st = SIM_OK;
    if (n->type == YAML_SCALAR_NODE) {
        const char *s = (const char *)n->data.scalar.value;
        if (strlen(s) != n->data.scalar.length)
            return sim_fail(err, SIM_EINPUT, "%s: line %zu: a value holding a NUL byte", file,
                            line);
        if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            st = plain_scalar(s, file, line, out, err);
        else
            *out = cJSON_CreateString(s);
        return st || *out ? st : sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    cJSON *c = n->type == YAML_SEQUENCE_NODE ? cJSON_CreateArray() : cJSON_CreateObject();
    if (!c)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    if (n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             !st && it < n->data.sequence.items.top; it++) {
            cJSON *v = NULL;
            st = node_json(doc, yaml_document_get_node(doc, *it), file, depth + 1, &v, err);
            if (!st && !cJSON_AddItemToArray(c, v)) {
                cJSON_Delete(v);
                st = sim_fail(err, SIM_EINTERNAL, "out of memory");
            }
        }
    }
    for (yaml_node_pair_t *pr = n->type == YAML_MAPPING_NODE ? n->data.mapping.pairs.start : NULL;
         !st && pr && pr < n->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(doc, pr->key);
        if (k->type != YAML_SCALAR_NODE) {
            st = sim_fail(err, SIM_EINPUT, "%s: line %zu: a key that is not a name", file,
                          k->start_mark.line + 1);
            break;
        }
        const char *key = (const char *)k->data.scalar.value;
        cJSON *v = NULL;
        if ((st = node_json(doc, yaml_document_get_node(doc, pr->value), file, depth + 1, &v, err)))
            break;
        /* a key given twice: the later value, as PyYAML's dict keeps it */
        bool ok = cJSON_GetObjectItemCaseSensitive(c, key)
                      ? cJSON_ReplaceItemInObjectCaseSensitive(c, key, v)
                      : cJSON_AddItemToObject(c, key, v);
        if (!ok) {
            cJSON_Delete(v);
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        }
    }
    if (st)
        cJSON_Delete(c);
    else
        *out = c;
    return st;
}

/* The parser's own message: "FILE: line L, column C: PROBLEM (CONTEXT)". */
static sim_status parse_error(const yaml_parser_t *p, const char *file, sim_err *err)
{
    if (p->error == YAML_MEMORY_ERROR)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    return sim_fail(err, SIM_EINPUT, "%s: line %zu, column %zu: not YAML: %s%s%s%s", file,
                    p->problem_mark.line + 1, p->problem_mark.column + 1,
                    p->problem ? p->problem : "unreadable", p->context ? " (" : "",
                    p->context ? p->context : "", p->context ? ")" : "");
}

sim_status cli_dropin_yaml_load(const char *path, const char *what, cJSON **out, sim_err *err)
{
    *out = NULL;
    size_t n = strlen(path);
    if (!(n > 5 && strcmp(path + n - 5, ".yaml") == 0) &&
        !(n > 4 && strcmp(path + n - 4, ".yml") == 0))
        return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected a .yaml or .yml file", what,
                        path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return sim_fail(err, SIM_EINPUT, "%s: cannot open '%s': %s", what, path, strerror(errno));
    yaml_parser_t p;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&p)) {
        fclose(f);
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    }
    yaml_parser_set_input_file(&p, f);
    sim_status st = SIM_OK;
    if (!yaml_parser_load(&p, &doc))
        st = parse_error(&p, path, err);
    else {
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (!root) /* an empty file: no settings */
            *out = cJSON_CreateObject();
        else if (root->type != YAML_MAPPING_NODE)
            st = sim_fail(err, SIM_EINPUT,
                          "%s: line %zu: expected a mapping of settings (key: "
                          "value lines) at the top",
                          path, root->start_mark.line + 1);
        else
            st = node_json(&doc, root, path, 0, out, err);
        if (!st && !*out)
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        yaml_document_delete(&doc);
        /* safe_load reads one document: a second one is an error */
        if (!st && root) {
            if (!yaml_parser_load(&p, &doc))
                st = parse_error(&p, path, err);
            else {
                if (yaml_document_get_root_node(&doc))
                    st = sim_fail(err, SIM_EINPUT, "%s: more than one YAML document, expected one",
                                  path);
                yaml_document_delete(&doc);
            }
        }
    }
    yaml_parser_delete(&p);
    fclose(f);
    if (st) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return st;
}
