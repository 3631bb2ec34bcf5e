/* test_find.c - the data roots in their order (the working directory, then $INFERSIM_DATA), a
 * file found in the first root that holds it, and a folder's names listed from the first root
 * that has the folder, sorted and cut short by hand-counted lengths. */
#include "testutil.h"

#include <sys/stat.h>

#include "find.h"

static char cwd_root[300], data_root[300];

static void touch(const char *root, const char *rel)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("{}\n", f);
    fclose(f);
}

static void sub(const char *root, const char *rel)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    assert_int_equal(mkdir(p, 0700), 0);
}

/* cwd/hw/{alpha,beta,gamma}.json and notes.txt; data/hw/zeta.json, data/models/m.json; the
 * working directory cwd/, $INFERSIM_DATA data/ */
static int setup(void **state)
{
    (void)state;
    snprintf(cwd_root, sizeof cwd_root, "%s/cwd", tu_tmpdir());
    snprintf(data_root, sizeof data_root, "%s/data", tu_tmpdir());
    if (mkdir(cwd_root, 0700) || mkdir(data_root, 0700))
        return -1;
    sub(cwd_root, "hw");
    touch(cwd_root, "hw/gamma.json");
    touch(cwd_root, "hw/alpha.json");
    touch(cwd_root, "hw/beta.json");
    touch(cwd_root, "hw/notes.txt");
    sub(data_root, "hw");
    sub(data_root, "models");
    touch(data_root, "hw/zeta.json");
    touch(data_root, "models/m.json");
    return chdir(cwd_root) || setenv("INFERSIM_DATA", data_root, 1);
}

static void test_roots_and_files(void **state)
{
    (void)state;
    char buf[SIM_FIND_MAX_ROOTS * 512];
    const char *roots[SIM_FIND_MAX_ROOTS];
    size_t n = sim_find_roots(buf, 512, roots);
    assert_true(n >= 2);
    assert_string_equal(roots[0], ".");
    assert_string_equal(roots[1], data_root);
    char out[600], want[600];
    /* the working directory's file, written relative to it */
    assert_true(sim_find_file("hw", "alpha.json", out, sizeof out));
    assert_string_equal(out, "hw/alpha.json");
    /* not in the working directory's hw/: the next root's */
    assert_true(sim_find_file("hw", "zeta.json", out, sizeof out));
    snprintf(want, sizeof want, "%s/hw/zeta.json", data_root);
    assert_string_equal(out, want);
    assert_true(sim_find_file("models", "m.json", out, sizeof out));
    snprintf(want, sizeof want, "%s/models/m.json", data_root);
    assert_string_equal(out, want);
    /* nowhere: false, out untouched; "hw/alpha.json" is 13 bytes, so 13 bytes of out are too few */
    strcpy(out, "kept");
    assert_false(sim_find_file("hw", "no-such-device.json", out, sizeof out));
    assert_string_equal(out, "kept");
    assert_false(sim_find_file("hw", "alpha.json", out, 13));
    assert_string_equal(out, "kept");
}

static void collect(void *ctx, const char *name)
{
    char *s = ctx;
    strcat(s, name);
    strcat(s, ";");
}

static void test_names(void **state)
{
    (void)state;
    char out[64];
    /* the working directory's hw/ only (zeta is in a later root), sorted, no notes.txt */
    sim_find_names("hw", out, sizeof out);
    assert_string_equal(out, "alpha, beta, gamma");
    /* cut at 24 bytes: a name of l bytes (stem + ".json") goes in while used + l + 8 < 24:
     * alpha 0 + 10 + 8 = 18 (used 5), beta 5 + 9 + 8 = 22 (used 11, ", beta"), gamma 11 + 10 + 8
     * = 29 does not: ", ..." instead */
    char small[24];
    sim_find_names("hw", small, sizeof small);
    assert_string_equal(small, "alpha, beta, ...");
    /* models/ is in $INFERSIM_DATA only */
    sim_find_names("models", out, sizeof out);
    assert_string_equal(out, "m");
    sim_find_names("no-such-folder", out, sizeof out);
    assert_string_equal(out, "");
    char seen[128] = "";
    assert_int_equal(sim_find_each("hw", collect, seen), 3);
    assert_string_equal(seen, "alpha;beta;gamma;");
    assert_int_equal(sim_find_each("no-such-folder", collect, seen), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roots_and_files),
        cmocka_unit_test(test_names),
    };
    int rc = cmocka_run_group_tests(tests, setup, NULL);
    return chdir("/") == 0 ? rc : 1; /* out of the temporary folder before it is removed */
}
