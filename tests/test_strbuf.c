/* test_strbuf.c - the growable buffer and its JSON and CSV escaping, against texts written out by
 * hand. */
#include "testutil.h"

#include "strbuf.h"

static void test_printf_grows(void **state)
{
    (void)state;
    sim_strbuf b = {0};
    assert_null(b.s);
    /* 200 appends of "12345," = 1200 characters: more than the first allocation, so the buffer
     * grows several times and keeps every byte */
    for (int i = 0; i < 200; i++)
        sim_strbuf_printf(&b, "%d%s,", 123, "45");
    assert_false(b.oom);
    assert_int_equal(b.len, 1200);
    assert_int_equal(strlen(b.s), 1200);
    assert_true(b.cap > b.len);
    assert_memory_equal(b.s + 1194, "12345,", 7); /* the last one and the NUL */
    sim_strbuf_free(&b);
    assert_null(b.s);
    assert_int_equal(b.len, 0);
}

static void test_json_str(void **state)
{
    (void)state;
    sim_strbuf b = {0};
    /* a quote and a backslash get a backslash; a tab (0x09) and 0x01 become \u0009 and \u0001;
     * UTF-8 (U+00E9 = C3 A9) passes through */
    sim_strbuf_json_str(&b, "a\"b\\c\td\x01\xc3\xa9");
    assert_string_equal(b.s, "\"a\\\"b\\\\c\\u0009d\\u0001\xc3\xa9\"");
    sim_strbuf_free(&b);
    sim_strbuf_json_str(&b, "");
    assert_string_equal(b.s, "\"\"");
    sim_strbuf_free(&b);
}

static void test_csv(void **state)
{
    (void)state;
    sim_strbuf b = {0};
    /* plain text stays as it is unless quoting is asked for */
    sim_strbuf_csv(&b, "h100-sxm", false);
    sim_strbuf_printf(&b, "|");
    sim_strbuf_csv(&b, "h100-sxm", true);
    assert_string_equal(b.s, "h100-sxm|\"h100-sxm\"");
    sim_strbuf_free(&b);
    /* a comma, a quote (doubled) or a line break forces the quotes */
    sim_strbuf_csv(&b, "a,b", false);
    sim_strbuf_printf(&b, "|");
    sim_strbuf_csv(&b, "say \"hi\"", false);
    sim_strbuf_printf(&b, "|");
    sim_strbuf_csv(&b, "x\ny", false);
    sim_strbuf_printf(&b, "|");
    sim_strbuf_csv(&b, "r\r", false);
    assert_string_equal(b.s, "\"a,b\"|\"say \"\"hi\"\"\"|\"x\ny\"|\"r\r\"");
    sim_strbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_printf_grows),
        cmocka_unit_test(test_json_str),
        cmocka_unit_test(test_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
