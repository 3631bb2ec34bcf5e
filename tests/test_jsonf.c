/* test_jsonf.c - validated JSON reading: every bad input is an error naming file and field. */
#include "testutil.h"

#include "jsonf.h"

static cJSON *load_text(const char *text, const char **path)
{
    *path = tu_write_tmp(text);
    cJSON *root = NULL;
    sim_err err = {{0}};
    assert_int_equal(sim_jsonf_load(*path, &root, &err), SIM_OK);
    return root;
}

static void test_load_errors(void **state)
{
    (void)state;
    cJSON *root;
    sim_err err = {{0}};
    assert_int_equal(sim_jsonf_load("/nonexistent/x.json", &root, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "/nonexistent/x.json"));
    assert_non_null(strstr(err.msg, "cannot open"));

    const char *p = tu_write_tmp("{\"a\": 1,");
    assert_int_equal(sim_jsonf_load(p, &root, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "malformed JSON"));
    assert_non_null(strstr(err.msg, p));

    p = tu_write_tmp("[1, 2]");
    assert_int_equal(sim_jsonf_load(p, &root, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "not a JSON object"));

    p = tu_write_tmp("");
    assert_int_equal(sim_jsonf_load(p, &root, &err), SIM_EINPUT);

    assert_int_equal(sim_jsonf_load("/tmp", &root, &err), SIM_EINPUT);
}

static void test_numbers(void **state)
{
    (void)state;
    const char *p;
    cJSON *root = load_text("{\"n\": 4096, \"half\": 1.5, \"neg\": -3, \"s\": \"12\", "
                            "\"zero\": 0, \"big\": 1e30, \"nested\": {\"x\": 0.5}, \"nul\": null}",
                            &p);
    sim_err err = {{0}};
    int64_t i;
    double d;
    assert_int_equal(sim_jsonf_int(root, p, "n", 1, 1 << 20, &i, &err), SIM_OK);
    assert_int_equal(i, 4096);
    /* non-integer, negative, string, zero, absurd, missing: each an error naming the field */
    const char *bad[] = {"half", "neg", "s", "zero", "big", "missing", "nul"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err.msg[0] = '\0';
        assert_int_equal(sim_jsonf_int(root, p, bad[k], 1, 1 << 20, &i, &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, bad[k]));
        assert_non_null(strstr(err.msg, p));
        assert_non_null(strstr(err.msg, "expected"));
    }
    assert_int_equal(sim_jsonf_num(root, p, "nested.x", 0.0, 1.0, &d, &err), SIM_OK);
    assert_near(d, 0.5, 0);
    assert_int_equal(sim_jsonf_num(root, p, "nested.y", 0.0, 1.0, &d, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "nested.y"));
    assert_int_equal(sim_jsonf_num_opt(root, p, "nested.y", 0.0, 1.0, 0.25, &d, &err), SIM_OK);
    assert_near(d, 0.25, 0);
    assert_int_equal(sim_jsonf_int_opt(root, p, "nul", 1, 10, 7, &i, &err), SIM_OK);
    assert_int_equal(i, 7);
    assert_int_equal(sim_jsonf_num(root, p, "big", 0.0, 1e6, &d, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "1e+30"));
    cJSON_Delete(root);
}

static void test_bool_and_string(void **state)
{
    (void)state;
    const char *p;
    cJSON *root = load_text("{\"t\": true, \"n\": 1, \"s\": \"x\"}", &p);
    sim_err err = {{0}};
    bool b = false;
    const char *s = NULL;
    assert_int_equal(sim_jsonf_bool_opt(root, p, "t", false, &b, &err), SIM_OK);
    assert_true(b);
    assert_int_equal(sim_jsonf_bool_opt(root, p, "n", false, &b, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "true or false"));
    assert_int_equal(sim_jsonf_str_opt(root, p, "s", &s, &err), SIM_OK);
    assert_string_equal(s, "x");
    assert_int_equal(sim_jsonf_str_opt(root, p, "n", &s, &err), SIM_EINPUT);
    assert_int_equal(sim_jsonf_str_opt(root, p, "absent", &s, &err), SIM_OK);
    assert_null(s);
    cJSON_Delete(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_bool_and_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
