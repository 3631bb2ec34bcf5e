/* oai.c - OpenAI-compatible request bodies read, responses written (oai.h). */
#include "oai.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* appends a string literal */
#define PUT(b, lit) sim_strbuf_put((b), (lit), sizeof(lit) - 1)

/* UTF-8 code points of s: every byte but the continuation bytes 10xxxxxx. */
static int64_t code_points(const char *s)
{
    int64_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xC0) != 0x80;
    return n;
}

/* An integer field >= lo: *v set and true; absent or null: false and *v untouched. */
static sim_status int_field(const cJSON *o, const char *name, int64_t lo, int64_t hi, bool *given,
                            int64_t *v, sim_err *err)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, name);
    *given = false;
    if (!f || cJSON_IsNull(f))
        return SIM_OK;
    const double d = cJSON_IsNumber(f) ? f->valuedouble : NAN;
    if (!(d >= (double)lo && d <= (double)hi && d == floor(d)))
        return sim_fail(err, SIM_EINPUT, "body: field '%s' is %s, expected an integer %lld to %lld",
                        name, cJSON_IsNumber(f) ? "out of range or not whole" : "not a number",
                        (long long)lo, (long long)hi);
    *v = (int64_t)d;
    *given = true;
    return SIM_OK;
}

static sim_status bool_field(const cJSON *o, const char *name, bool *v, sim_err *err)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!f || cJSON_IsNull(f))
        return SIM_OK;
    if (!cJSON_IsBool(f))
        return sim_fail(err, SIM_EINPUT, "body: field '%s' is not true or false", name);
    *v = cJSON_IsTrue(f);
    return SIM_OK;
}

/* A token-id array: its length, when every element is an integer >= 0. */
static bool id_array(const cJSON *a, int64_t *n)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1)
        return false;
    const cJSON *e;
    cJSON_ArrayForEach(e, a) if (!cJSON_IsNumber(e) || e->valuedouble < 0) return false;
    *n = cJSON_GetArraySize(a);
    return true;
}

static int64_t text_tokens(int64_t chars, double chars_per_token)
{
    const int64_t t = (int64_t)ceil((double)chars / chars_per_token);
    return t < 1 ? 1 : t;
}

/* A completion's prompt: ids or text, one prompt. */
static sim_status completion_prompt(const cJSON *root, double cpt, int64_t *tokens, sim_err *err)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "prompt");
    if (!p)
        return sim_fail(err, SIM_EINPUT, "body: field 'prompt' is missing");
    if (cJSON_IsString(p)) {
        *tokens = text_tokens(code_points(p->valuestring), cpt);
        return SIM_OK;
    }
    if (id_array(p, tokens))
        return SIM_OK;
    if (cJSON_IsArray(p) && cJSON_GetArraySize(p) == 1) {
        const cJSON *e = cJSON_GetArrayItem(p, 0);
        if (cJSON_IsString(e)) {
            *tokens = text_tokens(code_points(e->valuestring), cpt);
            return SIM_OK;
        }
        if (id_array(e, tokens))
            return SIM_OK;
    }
    return sim_fail(err, SIM_EINPUT,
                    "body: field 'prompt' is %s, expected a string, an array of token ids, or one "
                    "of them in an array (one prompt per request)",
                    cJSON_IsArray(p) ? "an array of several prompts or of other values"
                                     : "not a string or an array");
}

/* A chat's messages: the characters of every content. */
static sim_status chat_prompt(const cJSON *root, double cpt, int64_t *tokens, sim_err *err)
{
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(root, "messages");
    if (!cJSON_IsArray(ms) || cJSON_GetArraySize(ms) < 1)
        return sim_fail(err, SIM_EINPUT, "body: field 'messages' is %s, expected a non-empty array",
                        ms ? "not a non-empty array" : "missing");
    int64_t chars = 0, i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, ms)
    {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
        if (cJSON_IsString(c)) {
            chars += code_points(c->valuestring);
        } else if (cJSON_IsArray(c)) {
            const cJSON *part;
            cJSON_ArrayForEach(part, c)
            {
                const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "text");
                if (cJSON_IsString(t))
                    chars += code_points(t->valuestring);
            }
        } else if (!cJSON_IsObject(m) || (c && !cJSON_IsNull(c))) {
            return sim_fail(err, SIM_EINPUT,
                            "body: messages[%lld] has no string or array 'content', expected one",
                            (long long)i);
        }
        i++;
    }
    *tokens = text_tokens(chars, cpt);
    return SIM_OK;
}

static sim_status read_fields(const cJSON *root, sim_oai_kind kind, double cpt, sim_oai_req *r,
                              sim_err *err)
{
    bool given;
    int64_t n = 1;
    sim_status st = int_field(root, "infersim_prompt_tokens", 1, (int64_t)1 << 26, &given,
                              &r->prompt_tokens, err);
    if (!st && !given)
        st = kind == SIM_OAI_CHAT ? chat_prompt(root, cpt, &r->prompt_tokens, err)
                                  : completion_prompt(root, cpt, &r->prompt_tokens, err);
    if (!st && kind == SIM_OAI_CHAT)
        st = int_field(root, "max_completion_tokens", 1, (int64_t)1 << 26, &given, &r->max_tokens,
                       err);
    if (!st && !(kind == SIM_OAI_CHAT && given))
        st = int_field(root, "max_tokens", 1, (int64_t)1 << 26, &given, &r->max_tokens, err);
    if (!st)
        st = int_field(root, "n", 1, 1, &given, &n, err);
    if (!st)
        st = bool_field(root, "stream", &r->stream, err);
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(root, "stream_options");
    if (!st && so && !cJSON_IsNull(so) && !cJSON_IsObject(so))
        st = sim_fail(err, SIM_EINPUT, "body: field 'stream_options' is not an object");
    if (!st && cJSON_IsObject(so))
        st = bool_field(so, "include_usage", &r->include_usage, err);
    if (!st && cJSON_IsObject(so))
        st = bool_field(so, "continuous_usage_stats", &r->continuous_usage, err);
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    if (!st && model && !cJSON_IsNull(model) &&
        (!cJSON_IsString(model) || strlen(model->valuestring) >= sizeof r->model))
        st = sim_fail(err, SIM_EINPUT, "body: field 'model' is not a string under %zu bytes",
                      sizeof r->model);
    if (!st && model && cJSON_IsString(model))
        snprintf(r->model, sizeof r->model, "%s", model->valuestring);
    return st;
}

sim_status sim_oai_parse(const char *body, size_t len, sim_oai_kind kind, double chars_per_token,
                         sim_oai_req *r, sim_err *err)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(body, len, &end, 0);
    if (!root)
        return sim_fail(err, SIM_EINPUT, "body: not JSON (at byte %zu of %zu)",
                        end && end >= body ? (size_t)(end - body) : (size_t)0, len);
    sim_status st = cJSON_IsObject(root) ? read_fields(root, kind, chars_per_token, r, err)
                                         : sim_fail(err, SIM_EINPUT, "body: not a JSON object");
    cJSON_Delete(root);
    return st;
}

/* ---- responses ---- */

static void filler(sim_strbuf *out, int64_t tokens)
{
    PUT(out, "\"");
    for (int64_t i = 0; i < tokens; i++)
        PUT(out, " x");
    PUT(out, "\"");
}

static void usage(sim_strbuf *out, const sim_oai_meta *m)
{
    sim_strbuf_printf(
        out, "{\"prompt_tokens\":%lld,\"total_tokens\":%lld,\"completion_tokens\":%lld}",
        (long long)m->prompt_tokens, (long long)m->prompt_tokens + (long long)m->completion_tokens,
        (long long)m->completion_tokens);
}

static void seconds(sim_strbuf *out, double s)
{
    if (s >= 0.0)
        sim_strbuf_printf(out, "%.9f", s);
    else
        PUT(out, "null");
}

static void times_obj(sim_strbuf *out, const sim_oai_times *t)
{
    PUT(out, ",\"infersim\":{\"ttft_s\":");
    seconds(out, t->ttft_s);
    PUT(out, ",\"e2e_s\":");
    seconds(out, t->e2e_s);
    PUT(out, ",\"itl_mean_s\":");
    seconds(out, t->itl_mean_s);
    PUT(out, "}");
}

/* {"id":..,"object":..,"created":..,"model":.., */
static void envelope(sim_strbuf *out, const char *object, const sim_oai_meta *m)
{
    PUT(out, "{\"id\":");
    sim_strbuf_json_str(out, m->id);
    sim_strbuf_printf(out, ",\"object\":\"%s\",\"created\":%lld,\"model\":", object, m->created);
    sim_strbuf_json_str(out, m->model);
}

void sim_oai_chunk(sim_strbuf *out, const sim_oai_req *r, const sim_oai_meta *m, int64_t tokens,
                   bool first, const sim_oai_times *times)
{
    const bool chat = r->kind == SIM_OAI_CHAT;
    const char *finish = times ? "\"length\"" : "null";
    PUT(out, "data: ");
    envelope(out, chat ? "chat.completion.chunk" : "text_completion", m);
    if (chat) {
        sim_strbuf_printf(out, ",\"choices\":[{\"index\":0,\"delta\":{%s\"content\":",
                          first ? "\"role\":\"assistant\"," : "");
        filler(out, tokens);
        sim_strbuf_printf(out, "},\"logprobs\":null,\"finish_reason\":%s}]", finish);
    } else {
        PUT(out, ",\"choices\":[{\"index\":0,\"text\":");
        filler(out, tokens);
        sim_strbuf_printf(out, ",\"logprobs\":null,\"finish_reason\":%s,\"stop_reason\":null}]",
                          finish);
    }
    if (r->continuous_usage) {
        PUT(out, ",\"usage\":");
        usage(out, m);
    }
    if (times)
        times_obj(out, times);
    PUT(out, "}\n\n");
}

void sim_oai_usage_chunk(sim_strbuf *out, const sim_oai_req *r, const sim_oai_meta *m)
{
    PUT(out, "data: ");
    envelope(out, r->kind == SIM_OAI_CHAT ? "chat.completion.chunk" : "text_completion", m);
    PUT(out, ",\"choices\":[],\"usage\":");
    usage(out, m);
    PUT(out, "}\n\n");
}

void sim_oai_done(sim_strbuf *out) { PUT(out, "data: [DONE]\n\n"); }

void sim_oai_response(sim_strbuf *out, const sim_oai_req *r, const sim_oai_meta *m,
                      const sim_oai_times *times)
{
    if (r->kind == SIM_OAI_CHAT) {
        envelope(out, "chat.completion", m);
        PUT(out, ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":");
        filler(out, m->completion_tokens);
        PUT(out, "},\"logprobs\":null,\"finish_reason\":\"length\"}]");
    } else {
        envelope(out, "text_completion", m);
        PUT(out, ",\"choices\":[{\"index\":0,\"text\":");
        filler(out, m->completion_tokens);
        PUT(out, ",\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}]");
    }
    PUT(out, ",\"usage\":");
    usage(out, m);
    times_obj(out, times);
    PUT(out, "}");
}

/* The error type vLLM names per status (create_error_response's HTTPStatus phrase). */
static const struct {
    int code;
    const char *type;
} error_types[] = {{400, "BadRequestError"},    {404, "NotFoundError"},
                   {405, "MethodNotAllowed"},   {413, "RequestEntityTooLarge"},
                   {503, "ServiceUnavailable"}, {500, "InternalServerError"}};

void sim_oai_error(sim_strbuf *out, int http_code, const char *message)
{
    const char *type = "InternalServerError";
    for (size_t i = 0; i < sizeof error_types / sizeof error_types[0]; i++)
        if (error_types[i].code == http_code)
            type = error_types[i].type;
    PUT(out, "{\"object\":\"error\",\"message\":");
    sim_strbuf_json_str(out, message);
    sim_strbuf_printf(out, ",\"type\":\"%s\",\"param\":null,\"code\":%d}\n", type, http_code);
}

void sim_oai_models(sim_strbuf *out, const char *model, long long created, int64_t max_model_len)
{
    PUT(out, "{\"object\":\"list\",\"data\":[{\"id\":");
    sim_strbuf_json_str(out, model);
    sim_strbuf_printf(
        out, ",\"object\":\"model\",\"created\":%lld,\"owned_by\":\"infersim\",\"root\":", created);
    sim_strbuf_json_str(out, model);
    sim_strbuf_printf(out, ",\"parent\":null,\"max_model_len\":%lld,\"permission\":[]}]}\n",
                      (long long)max_model_len);
}
