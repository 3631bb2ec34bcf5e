/* test_oai.c - OpenAI-compatible request bodies counted and refused, and the bodies and SSE
 * events written back, against texts worked out by hand. */
#include "testutil.h"

#include <cjson/cJSON.h>

#include "oai.h"

static sim_status parse(const char *body, sim_oai_kind kind, sim_oai_req *r, sim_err *err)
{
    return sim_oai_parse(body, strlen(body), kind, 4.0, r, err);
}

static void test_prompt_counts(void **state)
{
    (void)state;
    sim_oai_req r;
    sim_err err = {0};
    /* 10 characters at 4 a token: ceil(2.5) = 3 */
    assert_int_equal(
        parse("{\"prompt\": \"0123456789\", \"max_tokens\": 8}", SIM_OAI_COMPLETION, &r, &err),
        SIM_OK);
    assert_int_equal(r.prompt_tokens, 3);
    assert_int_equal(r.max_tokens, 8);
    assert_false(r.stream);
    /* characters are code points: "é" is 2 bytes, 1 character; 8 of them = 2 tokens */
    assert_int_equal(parse("{\"prompt\": [\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                           "\xc3\xa9\xc3\xa9\"]}",
                           SIM_OAI_COMPLETION, &r, &err),
                     SIM_OK);
    assert_int_equal(r.prompt_tokens, 2);
    assert_int_equal(r.max_tokens, 0); /* not given: the caller's default */
    /* token ids: their count; one list in a list too */
    assert_int_equal(parse("{\"prompt\": [5, 6, 7, 8, 9]}", SIM_OAI_COMPLETION, &r, &err), 0);
    assert_int_equal(r.prompt_tokens, 5);
    assert_int_equal(parse("{\"prompt\": [[1, 2]]}", SIM_OAI_COMPLETION, &r, &err), 0);
    assert_int_equal(r.prompt_tokens, 2);
    /* the extension field wins; an empty prompt is still one token */
    assert_int_equal(
        parse("{\"prompt\": \"\", \"infersim_prompt_tokens\": 4000}", SIM_OAI_COMPLETION, &r, &err),
        0);
    assert_int_equal(r.prompt_tokens, 4000);
    assert_int_equal(parse("{\"prompt\": \"\"}", SIM_OAI_COMPLETION, &r, &err), 0);
    assert_int_equal(r.prompt_tokens, 1);
    /* a chat: 5 + 7 + 4 characters of content (a text part counted, an image part not) = 16:
     * 4 tokens; max_completion_tokens before max_tokens */
    assert_int_equal(parse("{\"messages\": [{\"role\": \"system\", \"content\": \"abcde\"},"
                           "{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": "
                           "\"fghijkl\"}, {\"type\": \"image_url\"}]}, {\"role\": \"assistant\","
                           " \"content\": \"mnop\"}], \"max_tokens\": 9, \"max_completion_tokens\":"
                           " 7, \"stream\": true, \"stream_options\": {\"include_usage\": true}}",
                           SIM_OAI_CHAT, &r, &err),
                     0);
    assert_int_equal(r.prompt_tokens, 4);
    assert_int_equal(r.max_tokens, 7);
    assert_true(r.stream && r.include_usage && !r.continuous_usage);
}

static void test_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        sim_oai_kind kind;
        const char *says;
    } bad[] = {
        {"{\"prompt\":", SIM_OAI_COMPLETION, "body: not JSON (at byte"},
        {"[1]", SIM_OAI_COMPLETION, "body: not a JSON object"},
        {"{}", SIM_OAI_COMPLETION, "field 'prompt' is missing"},
        {"{\"prompt\": [\"a\", \"b\"]}", SIM_OAI_COMPLETION, "one prompt per request"},
        {"{\"prompt\": 3}", SIM_OAI_COMPLETION, "not a string or an array"},
        {"{\"prompt\": \"a\", \"max_tokens\": 0}", SIM_OAI_COMPLETION, "'max_tokens'"},
        {"{\"prompt\": \"a\", \"max_tokens\": 2.5}", SIM_OAI_COMPLETION, "not whole"},
        {"{\"prompt\": \"a\", \"n\": 2}", SIM_OAI_COMPLETION, "field 'n'"},
        {"{\"prompt\": \"a\", \"stream\": 1}", SIM_OAI_COMPLETION, "'stream' is not true or false"},
        {"{\"prompt\": \"a\", \"stream_options\": 1}", SIM_OAI_COMPLETION, "'stream_options'"},
        {"{\"prompt\": \"a\", \"model\": 7}", SIM_OAI_COMPLETION, "'model' is not a string"},
        {"{\"messages\": []}", SIM_OAI_CHAT, "'messages' is not a non-empty array"},
        {"{\"messages\": [{\"content\": 5}]}", SIM_OAI_CHAT, "messages[0]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sim_oai_req r;
        sim_err err = {0};
        assert_int_equal(parse(bad[i].body, bad[i].kind, &r, &err), SIM_EINPUT);
        if (!strstr(err.msg, bad[i].says))
            fail_msg("%s: message '%s', expected it to say '%s'", bad[i].body, err.msg,
                     bad[i].says);
        assert_null(strchr(err.msg, '\n'));
    }
}

static void test_chunks_as_vllm_sends_them(void **state)
{
    (void)state;
    sim_oai_req r = {.kind = SIM_OAI_COMPLETION, .include_usage = true};
    const sim_oai_meta m = {
        .id = "cmpl-1", .created = 5, .model = "m", .prompt_tokens = 3, .completion_tokens = 2};
    sim_strbuf b = {0};
    sim_oai_chunk(&b, &r, &m, 2, true, NULL);
    assert_string_equal(b.s,
                        "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":5,"
                        "\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" x x\","
                        "\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}]}\n\n");
    sim_strbuf_free(&b);
    const sim_oai_times t = {.ttft_s = 0.5, .e2e_s = 1.25, .itl_mean_s = -1};
    sim_oai_chunk(&b, &r, &m, 1, false, &t);
    sim_oai_usage_chunk(&b, &r, &m);
    sim_oai_done(&b);
    assert_non_null(strstr(b.s, "\"finish_reason\":\"length\""));
    assert_non_null(strstr(b.s, "\"infersim\":{\"ttft_s\":0.500000000,\"e2e_s\":1.250000000,"
                                "\"itl_mean_s\":null}"));
    assert_non_null(strstr(b.s, "\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"total_tokens\":5,"
                                "\"completion_tokens\":2}}\n\ndata: [DONE]\n\n"));
    sim_strbuf_free(&b);
    /* a chat's first delta carries the role; the whole response is one JSON object */
    r.kind = SIM_OAI_CHAT;
    sim_oai_chunk(&b, &r, &m, 1, true, NULL);
    assert_non_null(strstr(b.s, "\"object\":\"chat.completion.chunk\""));
    assert_non_null(strstr(b.s, "\"delta\":{\"role\":\"assistant\",\"content\":\" x\"}"));
    sim_strbuf_free(&b);
    sim_oai_response(&b, &r, &m, &t);
    cJSON *j = cJSON_Parse(b.s);
    assert_non_null(j);
    const cJSON *msg = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "choices"), 0), "message"),
        "content");
    assert_string_equal(msg->valuestring, " x x");
    cJSON_Delete(j);
    sim_strbuf_free(&b);
    sim_oai_error(&b, 400, "body: \"bad\"");
    assert_string_equal(b.s, "{\"object\":\"error\",\"message\":\"body: \\\"bad\\\"\",\"type\":"
                             "\"BadRequestError\",\"param\":null,\"code\":400}\n");
    sim_strbuf_free(&b);
    sim_oai_models(&b, "m", 7, 8192);
    j = cJSON_Parse(b.s);
    assert_non_null(j);
    assert_int_equal(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "data"), 0), "max_model_len")
            ->valueint,
        8192);
    cJSON_Delete(j);
    sim_strbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prompt_counts),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_chunks_as_vllm_sends_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
