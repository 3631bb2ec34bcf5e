/* test_lines.c - the bounded line reader: newlines and CRLF stripped, a byte order mark skipped
 * before the first line only, the last line without a newline, line numbers, and the refusals
 * (a NUL byte, a line past 1 MiB, a directory, a missing file) naming the file and the line. */
#include "testutil.h"

#include "lines.h"

/* Writes `len` bytes to a new file in the test's temporary folder; returns its path. */
static const char *write_bytes(const char *name, const char *bytes, size_t len)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    fclose(f);
    return path;
}

static void test_lines_and_numbers(void **state)
{
    (void)state;
    /* a BOM, "a", CRLF "bb", an empty line, a BOM inside a line (kept: only the file's start
     * holds one), and a last line without its newline: five lines, numbered 1 to 5 */
    static const char text[] = "\xEF\xBB\xBF"
                               "a\nbb\r\n\n\xEF\xBB\xBFx\nlast";
    const char *path = write_bytes("five.txt", text, sizeof text - 1);
    static const char *const want[] = {"a", "bb", "", "\xEF\xBB\xBFx", "last"};
    sim_lines r;
    sim_err err;
    assert_int_equal(sim_lines_open(&r, path, &err), SIM_OK);
    char *line;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(sim_lines_next(&r, &line, &err), SIM_OK);
        assert_non_null(line);
        assert_string_equal(line, want[i]);
        assert_int_equal(r.lineno, i + 1);
    }
    assert_int_equal(sim_lines_next(&r, &line, &err), SIM_OK);
    assert_null(line);
    sim_lines_close(&r);
    /* an empty file: no line at all */
    path = write_bytes("empty.txt", "", 0);
    assert_int_equal(sim_lines_open(&r, path, &err), SIM_OK);
    assert_int_equal(sim_lines_next(&r, &line, &err), SIM_OK);
    assert_null(line);
    sim_lines_close(&r);
}

static void test_refusals(void **state)
{
    (void)state;
    sim_lines r;
    sim_err err;
    char *line;
    /* a NUL byte on line 2, its second byte */
    const char *path = write_bytes("nul.txt", "ok\nb\0d\n", 7);
    char want[400];
    assert_int_equal(sim_lines_open(&r, path, &err), SIM_OK);
    assert_int_equal(sim_lines_next(&r, &line, &err), SIM_OK);
    assert_int_equal(sim_lines_next(&r, &line, &err), SIM_EINPUT);
    snprintf(want, sizeof want, "%s:2: a NUL byte at column 2, expected a text file", path);
    assert_string_equal(err.msg, want);
    sim_lines_close(&r);
    /* a line of SIM_LINES_MAX_BYTES + 1 bytes: refused; one of exactly the limit is read */
    size_t n = SIM_LINES_MAX_BYTES + 1;
    char *big = malloc(n + 1);
    assert_non_null(big);
    memset(big, 'x', n);
    big[n] = '\n';
    path = write_bytes("long.txt", big, n + 1);
    assert_int_equal(sim_lines_open(&r, path, &err), SIM_OK);
    assert_int_equal(sim_lines_next(&r, &line, &err), SIM_EINPUT);
    snprintf(want, sizeof want, "%s:1: line longer than", path);
    assert_true(strncmp(err.msg, want, strlen(want)) == 0);
    sim_lines_close(&r);
    big[n - 1] = '\n';
    path = write_bytes("limit.txt", big, n);
    assert_int_equal(sim_lines_open(&r, path, &err), SIM_OK);
    assert_int_equal(sim_lines_next(&r, &line, &err), SIM_OK);
    assert_non_null(line);
    assert_int_equal(strlen(line), n - 1);
    sim_lines_close(&r);
    free(big);
    /* a directory and a missing file: refused at open, naming the path */
    assert_int_equal(sim_lines_open(&r, tu_tmpdir(), &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, tu_tmpdir()));
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no-such-file", tu_tmpdir());
    assert_int_equal(sim_lines_open(&r, missing, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, missing));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_and_numbers),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
