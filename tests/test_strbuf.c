/* test_strbuf.c - the growable buffer and its JSON and CSV escaping, against texts written out by
 * hand. */
#include "testutil.h"

#include <limits.h>

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

static void test_int_and_put(void **state)
{
    (void)state;
    sim_strbuf b = {0};
    /* the extremes of long long, zero and a negative number, as printf's %lld writes them */
    sim_strbuf_int(&b, 0);
    sim_strbuf_put(&b, "|", 1);
    sim_strbuf_int(&b, -42);
    sim_strbuf_put(&b, "|xyz", 2); /* two of the four bytes */
    sim_strbuf_int(&b, LLONG_MAX);
    sim_strbuf_put(&b, "|", 1);
    sim_strbuf_int(&b, LLONG_MIN);
    assert_string_equal(b.s, "0|-42|x9223372036854775807|-9223372036854775808");
    sim_strbuf_free(&b);
}

static void test_over_caller_storage(void **state)
{
    (void)state;
    char mem[16];
    memcpy(mem, "ab", 2);
    /* 16 bytes hold 15 characters and the NUL: "ab" + 13 more fit, the 14th does not */
    sim_strbuf b = sim_strbuf_over(mem, sizeof mem, 2);
    assert_string_equal(mem, "ab");
    sim_strbuf_printf(&b, "%s", "0123456789");
    sim_strbuf_json_str(&b, "x"); /* "x" with its quotes: 3 bytes, 15 in all */
    assert_false(b.oom);
    assert_string_equal(mem, "ab0123456789\"x\"");
    assert_int_equal(b.len, 15);
    /* one more byte does not fit: oom, and the text stays what it was */
    sim_strbuf_printf(&b, "%d", 7);
    assert_true(b.oom);
    assert_int_equal(b.len, 15);
    assert_string_equal(mem, "ab0123456789\"x\"");
    /* a JSON string that does not fit is not half written either */
    sim_strbuf c = sim_strbuf_over(mem, sizeof mem, 2);
    sim_strbuf_json_str(&c, "a long name that does not fit");
    assert_true(c.oom);
    assert_string_equal(mem, "ab");
    sim_strbuf_free(&c); /* the caller's storage is not freed */
    assert_null(c.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_printf_grows),
        cmocka_unit_test(test_json_str),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_int_and_put),
        cmocka_unit_test(test_over_caller_storage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
