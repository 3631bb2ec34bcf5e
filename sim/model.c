/* model.c - Hugging Face config.json reader. */
#define _POSIX_C_SOURCE 200809L
#include "model.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonf.h"

/* Fields whose presence (non-null, non-zero) marks a model this simulator cannot price yet. */
static const struct {
    const char *field;
    const char *what;
} unsupported[] = {
    {"num_local_experts", "mixture-of-experts"},
    {"num_experts", "mixture-of-experts"},
    {"n_routed_experts", "mixture-of-experts"},
    {"moe_intermediate_size", "mixture-of-experts"},
    {"kv_lora_rank", "multi-head latent attention (MLA)"},
};

static sim_status reject_unsupported(const cJSON *cfg, const char *path, sim_err *err)
{
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
        const cJSON *it = sim_jsonf_find(cfg, unsupported[i].field);
        if (it && !(cJSON_IsNumber(it) && it->valuedouble == 0.0))
            return sim_fail(err, SIM_EINPUT,
                            "%s: field '%s' marks a %s model, which infersim does not price yet "
                            "(only dense Llama-style models)",
                            path, unsupported[i].field, unsupported[i].what);
    }
    return SIM_OK;
}

static sim_status read_dtype(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    const char *s = NULL;
    const char *field = "torch_dtype";
    sim_status st = sim_jsonf_str_opt(cfg, path, field, &s, err);
    if (!st && !s) {
        field = "dtype";
        st = sim_jsonf_str_opt(cfg, path, field, &s, err);
    }
    if (st || !s)
        return st;
    static const struct {
        const char *hf;
        sim_dtype dt;
    } map[] = {{"bfloat16", SIM_DT_BF16}, {"float16", SIM_DT_FP16}, {"float32", SIM_DT_BF16}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(s, map[i].hf) == 0) {
            m->dtype = map[i].dt;
            m->dtype_known = true;
            return SIM_OK;
        }
    }
    return sim_fail(err, SIM_EINPUT,
                    "%s: field '%s' is \"%s\", expected \"bfloat16\", \"float16\" or \"float32\"",
                    path, field, s);
}

static void stem(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out, len, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot && strcmp(dot, ".json") == 0)
        *dot = '\0';
    /* ".../Llama-3.1-8B/config.json" is better named by its folder */
    if (strcmp(out, "config") == 0 && base != path) {
        const char *start = base - 1;
        while (start > path && start[-1] != '/')
            start--;
        snprintf(out, len, "%.*s", (int)(base - 1 - start), start);
    }
}

static sim_status read_shape(const cJSON *cfg, const char *path, sim_model *m, sim_err *err)
{
    const int64_t big = (int64_t)1 << 20;
    sim_status st;
    if ((st = sim_jsonf_int(cfg, path, "hidden_size", 1, big, &m->hidden, err)) ||
        (st = sim_jsonf_int(cfg, path, "intermediate_size", 1, 8 * big, &m->intermediate, err)) ||
        (st = sim_jsonf_int(cfg, path, "num_hidden_layers", 1, 10000, &m->layers, err)) ||
        (st = sim_jsonf_int(cfg, path, "num_attention_heads", 1, 65536, &m->heads, err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "num_key_value_heads", 1, m->heads, m->heads,
                                &m->kv_heads, err)) ||
        (st = sim_jsonf_int(cfg, path, "vocab_size", 1, 64 * big, &m->vocab, err)) ||
        (st = sim_jsonf_int(cfg, path, "max_position_embeddings", 1, 64 * big, &m->max_positions,
                            err)) ||
        (st =
             sim_jsonf_bool_opt(cfg, path, "tie_word_embeddings", false, &m->tied_embeddings, err)))
        return st;
    if (m->heads % m->kv_heads != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'num_key_value_heads' is %lld, expected a divisor of "
                        "num_attention_heads %lld",
                        path, (long long)m->kv_heads, (long long)m->heads);
    if (!sim_jsonf_find(cfg, "head_dim") && m->hidden % m->heads != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'head_dim' is missing and hidden_size %lld is not a multiple of "
                        "num_attention_heads %lld; expected an explicit head_dim",
                        path, (long long)m->hidden, (long long)m->heads);
    return sim_jsonf_int_opt(cfg, path, "head_dim", 1, 65536, m->hidden / m->heads, &m->head_dim,
                             err);
}

static sim_status read_attention_options(const cJSON *cfg, const char *path, sim_model *m,
                                         sim_err *err)
{
    bool use_window = true;
    const char *type = NULL;
    sim_status st;
    if ((st = sim_jsonf_bool_opt(cfg, path, "use_sliding_window", true, &use_window, err)) ||
        (st = sim_jsonf_int_opt(cfg, path, "sliding_window", 1, (int64_t)1 << 32, 0,
                                &m->sliding_window, err)) ||
        (st = sim_jsonf_str_opt(cfg, path, "model_type", &type, err)))
        return st;
    if (!use_window || m->sliding_window >= m->max_positions)
        m->sliding_window = 0;
    bool qwen2 = type && strcmp(type, "qwen2") == 0;
    if ((st = sim_jsonf_int_opt(cfg, path, "num_nextn_predict_layers", 0, 64, 0, &m->mtp_layers,
                                err)))
        return st;
    return sim_jsonf_bool_opt(cfg, path, "attention_bias", qwen2, &m->qkv_bias, err);
}

sim_status sim_model_load(const char *path, sim_model *m, sim_err *err)
{
    memset(m, 0, sizeof *m);
    cJSON *root;
    sim_status st = sim_jsonf_load(path, &root, err);
    if (st)
        return st;
    const cJSON *cfg = root;
    const cJSON *text = sim_jsonf_find(root, "text_config");
    if (!sim_jsonf_find(root, "hidden_size") && cJSON_IsObject(text))
        cfg = text;
    if (!(st = reject_unsupported(cfg, path, err)) && !(st = read_shape(cfg, path, m, err)) &&
        !(st = read_attention_options(cfg, path, m, err)) &&
        !(st = read_dtype(cfg, path, m, err))) {
        snprintf(m->path, sizeof m->path, "%s", path);
        stem(path, m->name, sizeof m->name);
    }
    cJSON_Delete(root);
    return st;
}

double sim_model_layer_params(const sim_model *m)
{
    double d = (double)m->hidden, f = (double)m->intermediate;
    double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
    double attn = d * q + 2.0 * d * kv + q * d + (m->qkv_bias ? q + 2.0 * kv : 0.0);
    double mlp = 3.0 * d * f;
    return attn + mlp + 2.0 * d; /* two RMSNorm weight vectors */
}

double sim_model_params(const sim_model *m)
{
    double d = (double)m->hidden, v = (double)m->vocab;
    double embed = v * d * (m->tied_embeddings ? 1.0 : 2.0);
    return (double)m->layers * sim_model_layer_params(m) + embed + d;
}

/* Whether the JSON file at path lists `id` in its infersim_hf_ids (unreadable files do not). */
static bool lists_hf_id(const char *path, const char *id)
{
    cJSON *root;
    if (sim_jsonf_load(path, &root, NULL))
        return false;
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(root, "infersim_hf_ids");
    bool found = false;
    for (const cJSON *it = cJSON_IsArray(ids) ? ids->child : NULL; it && !found; it = it->next)
        found = cJSON_IsString(it) && strcasecmp(it->valuestring, id) == 0;
    cJSON_Delete(root);
    return found;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

sim_status sim_model_find_hf_id(const char *dir, const char *id, char *buf, size_t len,
                                sim_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return sim_fail(err, SIM_EINPUT, "%s: cannot open the models folder to look up '%s'", dir,
                        id);
    char **names = NULL;
    size_t n = 0, cap = 0;
    sim_status st = SIM_OK;
    for (struct dirent *e; !st && (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **g = realloc(names, cap * sizeof *g);
            if (!g) {
                st = sim_fail(err, SIM_EINTERNAL, "out of memory");
                break;
            }
            names = g;
        }
        if (!(names[n] = malloc(l + 1)))
            st = sim_fail(err, SIM_EINTERNAL, "out of memory");
        else
            memcpy(names[n++], e->d_name, l + 1);
    }
    closedir(d);
    if (names)
        qsort(names, n, sizeof *names, by_name);
    bool found = false;
    for (size_t i = 0; !st && !found && i < n; i++) {
        snprintf(buf, len, "%s/%s", dir, names[i]);
        found = lists_hf_id(buf, id);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (!st && !found)
        st = sim_fail(err, SIM_EINPUT,
                      "model_id '%s': no model file in %s lists it in infersim_hf_ids; pass "
                      "--model with a config.json or a shipped name",
                      id, dir);
    return st;
}
