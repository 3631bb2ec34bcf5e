/* test_outfile.c - output files appear whole or not at all, and every failure names the flag. */
#include "testutil.h"

#include <sys/stat.h>

#include "outfile.h"

static bool exists(const char *path) { return access(path, F_OK) == 0; }

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "/tmp/infersim-outfile-%d-%s", (int)getpid(), name);
}

static void test_commit_renames_complete_file(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof path, "ok.csv");
    sim_outfile o;
    sim_err err = {{0}};
    assert_int_equal(sim_outfile_open(&o, path, "--out", &err), SIM_OK);
    char want_tmp[160];
    snprintf(want_tmp, sizeof want_tmp, "%s.tmp", path);
    assert_string_equal(o.tmp, want_tmp);
    fputs("a,b\n1,2\n", o.f);
    assert_false(exists(path)); /* nothing at the final path while writing */
    assert_true(exists(o.tmp));
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_OK);
    assert_null(o.f);
    assert_false(exists(o.tmp));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char got[32] = {0};
    assert_int_equal(fread(got, 1, sizeof got - 1, f), 8);
    fclose(f);
    assert_string_equal(got, "a,b\n1,2\n");
    /* a second commit is a programming error, not a silent success */
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_EINTERNAL);
    remove(path);
}

static void test_abort_leaves_nothing(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof path, "aborted.json");
    sim_outfile o;
    sim_err err = {{0}};
    assert_int_equal(sim_outfile_open(&o, path, "--chrome-trace", &err), SIM_OK);
    fputs("{\"half\":", o.f);
    sim_outfile_abort(&o);
    sim_outfile_abort(&o); /* idempotent */
    assert_false(exists(path));
    assert_false(exists(o.tmp));
}

static void test_failures_name_flag_and_path(void **state)
{
    (void)state;
    sim_outfile o;
    sim_err err = {{0}};
    /* the directory does not exist */
    assert_int_equal(sim_outfile_open(&o, "/nonexistent-dir/x.csv", "--save-requests", &err),
                     SIM_EINPUT);
    assert_string_equal(err.msg, "--save-requests: cannot write /nonexistent-dir/x.csv.tmp: "
                                 "No such file or directory");
    assert_null(o.f);

    /* 1100 characters do not fit the 1023 the path buffer holds */
    char longp[1101];
    memset(longp, 'a', 1100);
    longp[0] = '/';
    longp[1100] = '\0';
    assert_int_equal(sim_outfile_open(&o, longp, "--out", &err), SIM_EINPUT);
    assert_string_equal(err.msg, "--out: path is 1100 characters, expected at most 1023");

    /* a stream error (reading a write-only stream sets it) fails the commit: no file appears */
    char path[128];
    tmp_path(path, sizeof path, "stream-error.csv");
    assert_int_equal(sim_outfile_open(&o, path, "--out", &err), SIM_OK);
    fputs("x\n", o.f);
    (void)fgetc(o.f);
    assert_true(ferror(o.f));
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--out: writing "));
    assert_non_null(strstr(err.msg, "stream-error.csv.tmp failed"));
    assert_false(exists(path));
    assert_false(exists(o.tmp));

    /* the final path is a non-empty directory: the rename fails, the directory is untouched */
    char dir[128], inner[160];
    tmp_path(dir, sizeof dir, "dir");
    snprintf(inner, sizeof inner, "%s/keep", dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    FILE *k = fopen(inner, "w");
    assert_non_null(k);
    fclose(k);
    assert_int_equal(sim_outfile_open(&o, dir, "--out", &err), SIM_OK);
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--out: cannot rename "));
    assert_false(exists(o.tmp));
    assert_true(exists(inner));
    remove(inner);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commit_renames_complete_file),
        cmocka_unit_test(test_abort_leaves_nothing),
        cmocka_unit_test(test_failures_name_flag_and_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
