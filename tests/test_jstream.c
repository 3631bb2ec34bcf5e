/* test_jstream.c - a JSON object read value by value: each top-level value handed over whole, the
 * streamed array first as [] and then element by element, and the refusals (malformed JSON, a
 * value over the limit, a key twice, trailing text, a top level not an object) naming the file. */
#include "testutil.h"

#include "jstream.h"

/* What the callback saw, as "key[index]=json;" lines. */
typedef struct seen {
    char log[1024];
    int calls, stop_at; /* stop_at: the call that returns SIM_EINPUT (0: none) */
} seen;

static sim_status on_value(void *ctx, const char *key, long index, const cJSON *v, sim_err *err)
{
    seen *s = ctx;
    char *text = cJSON_PrintUnformatted(v);
    assert_non_null(text);
    snprintf(s->log + strlen(s->log), sizeof s->log - strlen(s->log), "%s[%ld]=%s;", key, index,
             text);
    cJSON_free(text);
    if (++s->calls == s->stop_at)
        return sim_fail(err, SIM_EINPUT, "stopped at call %d", s->calls);
    return SIM_OK;
}

static void test_values_in_order(void **state)
{
    (void)state;
    /* two whole values around the streamed array: "a" (an object, its braces and strings with
     * escapes inside), the array's [] then its three elements 0, 1, 2, then "z" */
    const char *path = tu_write_tmp(" {\"a\": {\"s\": \"}\\\"]\", \"n\": [1, 2]},\n"
                                    "  \"ev\": [1, {\"x\": 2}, \"three\"], \"z\": null}\n");
    seen s = {0};
    sim_err err;
    assert_int_equal(sim_jstream_object(path, "ev", SIM_JSTREAM_MAX_VALUE, on_value, &s, &err),
                     SIM_OK);
    assert_string_equal(s.log, "a[-1]={\"s\":\"}\\\"]\",\"n\":[1,2]};ev[-1]=[];ev[0]=1;"
                               "ev[1]={\"x\":2};ev[2]=\"three\";z[-1]=null;");
    /* without the array's key the array is one whole value */
    memset(&s, 0, sizeof s);
    assert_int_equal(sim_jstream_object(path, NULL, SIM_JSTREAM_MAX_VALUE, on_value, &s, &err),
                     SIM_OK);
    assert_int_equal(s.calls, 3);
    assert_non_null(strstr(s.log, "ev[-1]=[1,{\"x\":2},\"three\"];"));
    /* the callback's error stops the walk at its call and is returned */
    memset(&s, 0, sizeof s);
    s.stop_at = 3;
    assert_int_equal(sim_jstream_object(path, "ev", SIM_JSTREAM_MAX_VALUE, on_value, &s, &err),
                     SIM_EINPUT);
    assert_int_equal(s.calls, 3);
    assert_string_equal(err.msg, "stopped at call 3");
    /* an empty object: no call */
    memset(&s, 0, sizeof s);
    path = tu_write_tmp("{}");
    assert_int_equal(sim_jstream_object(path, "ev", SIM_JSTREAM_MAX_VALUE, on_value, &s, &err),
                     SIM_OK);
    assert_int_equal(s.calls, 0);
}

static void test_refusals(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",                                                      /* empty */
        "[1, 2]",                                                /* not an object */
        "{\"a\": 1,}",                                           /* malformed */
        "{\"a\": 1, \"a\": 2}",                                  /* a top-level key twice */
        "{\"a\": {\"b\": 1, \"b\": 2}}",                         /* a key twice inside a value */
        "{\"a\": 1} x",                                          /* text after the object */
        "{\"a\": \"0123456789012345678901234567890123456789\"}", /* over the 32-byte limit */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *path = tu_write_tmp(bad[i]);
        seen s = {0};
        sim_err err;
        assert_int_equal(sim_jstream_object(path, "ev", 32, on_value, &s, &err), SIM_EINPUT);
        if (!strstr(err.msg, path)) {
            print_error("case %zu: '%s' does not name the file\n", i, err.msg);
            fail();
        }
    }
    sim_err err;
    seen s = {0};
    assert_int_equal(sim_jstream_object(tu_tmpdir(), "ev", 32, on_value, &s, &err), SIM_EINPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_in_order),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
