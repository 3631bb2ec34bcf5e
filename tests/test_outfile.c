/* test_outfile.c - output files appear whole or not at all, and every failure names the flag. */
#include "testutil.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include "outfile.h"

static bool exists(const char *path) { return access(path, F_OK) == 0; }

static void tmp_path(char *buf, size_t n, const char *name)
{
    tu_snprintf(buf, n, "%s/infersim-outfile-%d-%s", tu_tmpdir(), (int)getpid(), name);
}

static void test_commit_renames_complete_file(void **state)
{
    (void)state;
    char path[256];
    tmp_path(path, sizeof path, "ok.csv");
    sim_outfile o;
    sim_err err = {{0}};
    assert_int_equal(sim_outfile_open(&o, path, "--out", &err), SIM_OK);
    /* "<path>.XXXXXX.tmp" */
    assert_int_equal(strlen(o.tmp), strlen(path) + 11);
    assert_memory_equal(o.tmp, path, strlen(path));
    assert_int_equal(o.tmp[strlen(path)], '.');
    assert_string_equal(o.tmp + strlen(path) + 7, ".tmp");
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
    char path[256];
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
    assert_string_equal(err.msg, "--save-requests: cannot write /nonexistent-dir/x.csv: "
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
    char path[256];
    tmp_path(path, sizeof path, "stream-error.csv");
    assert_int_equal(sim_outfile_open(&o, path, "--out", &err), SIM_OK);
    fputs("x\n", o.f);
    (void)fgetc(o.f);
    assert_true(ferror(o.f));
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--out: writing "));
    assert_non_null(strstr(err.msg, "stream-error.csv."));
    assert_non_null(strstr(err.msg, ".tmp failed"));
    assert_false(exists(path));
    assert_false(exists(o.tmp));
}

/* Issue 33 D3: the temporary was the fixed "<path>.tmp", opened with truncation: a user's file of
 * that name was destroyed, and two writers of one output shared one temporary (an interleaved
 * file, one of them exiting 0). Each output now gets a temporary of its own, created
 * exclusively. */
static void test_temporary_is_unique(void **state)
{
    (void)state;
    char path[256], user[300];
    tmp_path(path, sizeof path, "unique.csv");
    tu_snprintf(user, sizeof user, "%s.tmp", path);
    FILE *f = fopen(user, "w");
    assert_non_null(f);
    fputs("the user's own\n", f);
    fclose(f);
    sim_outfile a, b;
    sim_err err = {{0}};
    assert_int_equal(sim_outfile_open(&a, path, "--out", &err), SIM_OK);
    assert_int_equal(sim_outfile_open(&b, path, "--html", &err), SIM_OK);
    assert_string_not_equal(a.tmp, b.tmp);
    assert_string_not_equal(a.tmp, user);
    assert_string_not_equal(b.tmp, user);
    for (int i = 0; i < 5000; i++) { /* past the stdio buffer: the writes interleave */
        fputs("aaaaaaaa\n", a.f);
        fputs("bbbbbbbb\n", b.f);
    }
    assert_int_equal(sim_outfile_commit(&a, &err), SIM_OK);
    assert_int_equal(sim_outfile_commit(&b, &err), SIM_OK);
    /* the last commit wins, whole: every line is b's */
    f = fopen(path, "r");
    assert_non_null(f);
    char line[64];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        assert_string_equal(line, "bbbbbbbb\n");
        n++;
    }
    fclose(f);
    assert_int_equal(n, 5000);
    /* the user's file named like the old temporary is untouched (and the only .tmp left) */
    f = fopen(user, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, "the user's own\n");
    assert_int_equal(tu_temporaries(path), 1);
    /* an output named like another's old temporary (--out X --html X.tmp): both appear whole */
    assert_int_equal(sim_outfile_open(&a, path, "--out", &err), SIM_OK);
    assert_int_equal(sim_outfile_open(&b, user, "--html", &err), SIM_OK);
    fputs("out\n", a.f);
    fputs("html\n", b.f);
    assert_int_equal(sim_outfile_commit(&b, &err), SIM_OK);
    assert_int_equal(sim_outfile_commit(&a, &err), SIM_OK);
    static const char *const want[2] = {"out\n", "html\n"};
    const char *const at[2] = {path, user};
    for (int i = 0; i < 2; i++) {
        f = fopen(at[i], "r");
        assert_non_null(f);
        assert_non_null(fgets(line, sizeof line, f));
        fclose(f);
        assert_string_equal(line, want[i]);
    }
    assert_int_equal(tu_temporaries(path), 1); /* the --html file itself */
    remove(user);
    remove(path);
}

/* A character device is written through, never replaced: /dev/null swallows the output and stays
 * a device; /dev/full fails with the system's reason. */
static void test_devices_are_written_through(void **state)
{
    (void)state;
    sim_outfile o;
    sim_err err = {{0}};
    assert_int_equal(sim_outfile_open(&o, "/dev/null", "--chrome-trace", &err), SIM_OK);
    fputs("{}\n", o.f);
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_OK);
    struct stat sb;
    assert_int_equal(stat("/dev/null", &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));
    assert_false(exists("/dev/null.tmp"));

    assert_int_equal(sim_outfile_open(&o, "/dev/full", "--save-requests", &err), SIM_OK);
    for (int i = 0; i < 10000; i++) /* past any stdio buffer */
        fputs("a,b,c,d\n", o.f);
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_EINPUT);
    assert_string_equal(err.msg, "--save-requests: writing /dev/full failed: No space left on "
                                 "device");
    assert_int_equal(stat("/dev/full", &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));
    assert_false(exists("/dev/full.tmp"));

    /* a short output that fits the stdio buffer fails at the commit's flush */
    assert_int_equal(sim_outfile_open(&o, "/dev/full", "--out", &err), SIM_OK);
    fputs("x\n", o.f);
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_EINPUT);
    assert_string_equal(err.msg, "--out: writing /dev/full failed: No space left on device");
}

/* A FIFO is written through: a reader on the other end gets the bytes, the FIFO stays. */
static void test_fifo_is_written_through(void **state)
{
    (void)state;
    char path[256];
    tmp_path(path, sizeof path, "fifo");
    remove(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) { /* the reader: exits 0 when it read exactly what was written */
        FILE *r = fopen(path, "r");
        char got[64] = {0};
        size_t n = r ? fread(got, 1, sizeof got - 1, r) : 0;
        _exit(n == 8 && strcmp(got, "a,b\n1,2\n") == 0 ? 0 : 1);
    }
    sim_outfile o;
    sim_err err = {{0}};
    assert_int_equal(sim_outfile_open(&o, path, "--out", &err), SIM_OK);
    fputs("a,b\n1,2\n", o.f);
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_OK);
    int status = -1;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    remove(path);
}

static char *slurp(const char *path)
{
    static char buf[256];
    memset(buf, 0, sizeof buf);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* A symlink stays a symlink: its target is replaced, whole, next to the target; a dangling link
 * gets its target created. */
static void test_symlink_target_is_replaced(void **state)
{
    (void)state;
    char dir[256], target[320], link[320], rel[320], dangling[320], missing[320];
    tmp_path(dir, sizeof dir, "linkdir");
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(target, sizeof target, "%s/target.csv", dir);
    snprintf(link, sizeof link, "%s/link.csv", dir);
    snprintf(rel, sizeof rel, "%s/rel.csv", dir);
    snprintf(dangling, sizeof dangling, "%s/dangling.csv", dir);
    snprintf(missing, sizeof missing, "%s/missing.csv", dir);
    FILE *f = fopen(target, "w");
    assert_non_null(f);
    fputs("old\n", f);
    fclose(f);
    assert_int_equal(chmod(target, 0640), 0);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(symlink("link.csv", rel), 0); /* relative, and a link to a link */
    assert_int_equal(symlink("missing.csv", dangling), 0);

    sim_outfile o;
    sim_err err = {{0}};
    assert_int_equal(sim_outfile_open(&o, rel, "--out", &err), SIM_OK);
    assert_string_equal(o.path, target);
    fputs("new\n", o.f);
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_OK);
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(lstat(rel, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_string_equal(slurp(target), "new\n");
    assert_int_equal(stat(target, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0640); /* the replaced file keeps its permissions */

    assert_int_equal(sim_outfile_open(&o, dangling, "--out", &err), SIM_OK);
    fputs("made\n", o.f);
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_OK);
    assert_int_equal(lstat(dangling, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_string_equal(slurp(missing), "made\n");

    /* a loop of links is refused with the system's reason */
    char loop_a[320], loop_b[320];
    snprintf(loop_a, sizeof loop_a, "%s/a", dir);
    snprintf(loop_b, sizeof loop_b, "%s/b", dir);
    assert_int_equal(symlink("b", loop_a), 0);
    assert_int_equal(symlink("a", loop_b), 0);
    assert_int_equal(sim_outfile_open(&o, loop_a, "--out", &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "Too many levels of symbolic links"));
    assert_null(o.f);

    remove(loop_a);
    remove(loop_b);
    remove(missing);
    remove(dangling);
    remove(rel);
    remove(link);
    remove(target);
    rmdir(dir);
}

/* /dev/stdout (a link in /proc) is opened, whatever it holds: a pipe gets the bytes; a file a
 * shell redirected to is appended to and stays the same file (it is not replaced by a rename). */
static void child_writes_stdout(int fd)
{
    if (dup2(fd, STDOUT_FILENO) < 0)
        _exit(3);
    sim_outfile o;
    sim_err err = {{0}};
    if (sim_outfile_open(&o, "/dev/stdout", "--out", &err) || !o.direct)
        _exit(4);
    fputs("hello\n", o.f);
    _exit(sim_outfile_commit(&o, &err) == SIM_OK ? 0 : 5);
}

static void test_dev_stdout_is_written_through(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(p[0]);
        child_writes_stdout(p[1]);
    }
    close(p[1]);
    char got[32] = {0};
    ssize_t n = read(p[0], got, sizeof got - 1);
    close(p[0]);
    int status = -1;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(n, 6);
    assert_string_equal(got, "hello\n");

    char path[256];
    tmp_path(path, sizeof path, "redirect.txt");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("before\n", f);
    fflush(f);
    struct stat before;
    assert_int_equal(fstat(fileno(f), &before), 0);
    child = fork();
    assert_true(child >= 0);
    if (child == 0)
        child_writes_stdout(fileno(f));
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    fclose(f);
    struct stat after;
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(after.st_ino, before.st_ino);
    assert_string_equal(slurp(path), "before\nhello\n");
    remove(path);
}

/* A directory (or any other non-regular file) is refused before anything is written. */
static void test_directory_is_refused(void **state)
{
    (void)state;
    char dir[256];
    tmp_path(dir, sizeof dir, "outdir");
    assert_int_equal(mkdir(dir, 0700), 0);
    sim_outfile o;
    sim_err err = {{0}};
    assert_int_equal(sim_outfile_open(&o, dir, "--out", &err), SIM_EINPUT);
    char want[512];
    snprintf(want, sizeof want,
             "--out: %s is a directory, expected a regular file, a character device or a FIFO",
             dir);
    assert_string_equal(err.msg, want);
    assert_null(o.f);
    assert_int_equal(tu_temporaries(dir), 0);
    rmdir(dir);
}

/* Two outputs name one file when their paths resolve to the same place. */
static void test_same_file(void **state)
{
    (void)state;
    char dir[256], a[320], b[320], l[320];
    tmp_path(dir, sizeof dir, "samedir");
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(a, sizeof a, "%s/x.csv", dir);
    snprintf(b, sizeof b, "%s/./x.csv", dir);
    snprintf(l, sizeof l, "%s/l.csv", dir);
    assert_true(sim_outfile_same(a, b)); /* neither exists yet */
    assert_true(sim_outfile_same(a, a));
    assert_int_equal(symlink("x.csv", l), 0);
    assert_true(sim_outfile_same(a, l)); /* a link to it, dangling */
    FILE *f = fopen(a, "w");
    assert_non_null(f);
    fclose(f);
    assert_true(sim_outfile_same(b, l));
    assert_false(sim_outfile_same(a, "/dev/null"));
    assert_true(sim_outfile_same("/dev/null", "/dev/./null"));
    remove(l);
    remove(a);
    rmdir(dir);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void read_text(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
}

/* The command writes a stage's placeholder as any output. */
static void write_staged(const sim_outfile_stage *s, const char *text)
{
    sim_outfile o;
    sim_err err = {{0}};
    assert_int_equal(sim_outfile_open(&o, s->staged, s->what, &err), SIM_OK);
    fputs(text, o.f);
    assert_int_equal(sim_outfile_commit(&o, &err), SIM_OK);
}

/* Issue 33: two outputs published together, the second's rename failing (its path became a
 * directory after staging): the first is taken back, whether it replaced a file (the old bytes
 * return) or was new (it is removed), and no temporary or second name is left. Before, the first
 * stayed published. When both succeed, both appear and no second name remains. */
static void test_publish_all_or_none(void **state)
{
    (void)state;
    char a[256], b[256], inner[300];
    tmp_path(a, sizeof a, "pub-a.json");
    tmp_path(b, sizeof b, "pub-b.html");
    tu_snprintf(inner, sizeof inner, "%s/keep", b);
    for (int old = 0; old < 2; old++) {
        if (old)
            write_text(a, "old a\n");
        sim_outfile_stage sa, sb;
        sim_err err = {{0}};
        assert_int_equal(sim_outfile_stage_open(&sa, a, "--out", &err), SIM_OK);
        assert_int_equal(sim_outfile_stage_open(&sb, b, "--html", &err), SIM_OK);
        write_staged(&sa, "new a\n");
        write_staged(&sb, "new b\n");
        assert_int_equal(mkdir(b, 0700), 0); /* a non-empty directory: the rename fails */
        write_text(inner, "x");
        sim_outfile_stage *both[] = {&sa, &sb};
        assert_int_equal(sim_outfile_stage_publish(both, 2, stdout, &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, "--html: cannot rename"));
        if (old) {
            char got[32];
            read_text(a, got, sizeof got);
            assert_string_equal(got, "old a\n");
        } else {
            assert_false(exists(a));
        }
        assert_int_equal(tu_temporaries(a) + tu_temporaries(b), 0);
        remove(inner);
        assert_int_equal(rmdir(b), 0);
        sim_outfile_stage_abort(&sa);
        sim_outfile_stage_abort(&sb);
    }
    /* both succeed: both appear, the replaced file's second name is gone */
    sim_outfile_stage sa, sb;
    sim_err err = {{0}};
    assert_int_equal(sim_outfile_stage_open(&sa, a, "--out", &err), SIM_OK);
    assert_int_equal(sim_outfile_stage_open(&sb, b, "--html", &err), SIM_OK);
    write_staged(&sa, "new a\n");
    write_staged(&sb, "new b\n");
    sim_outfile_stage *both[] = {&sa, &sb};
    assert_int_equal(sim_outfile_stage_publish(both, 2, stdout, &err), SIM_OK);
    char got[32];
    read_text(a, got, sizeof got);
    assert_string_equal(got, "new a\n");
    read_text(b, got, sizeof got);
    assert_string_equal(got, "new b\n");
    assert_int_equal(tu_temporaries(a) + tu_temporaries(b), 0);
    remove(a);
    remove(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_temporary_is_unique),
        cmocka_unit_test(test_commit_renames_complete_file),
        cmocka_unit_test(test_abort_leaves_nothing),
        cmocka_unit_test(test_failures_name_flag_and_path),
        cmocka_unit_test(test_devices_are_written_through),
        cmocka_unit_test(test_fifo_is_written_through),
        cmocka_unit_test(test_symlink_target_is_replaced),
        cmocka_unit_test(test_dev_stdout_is_written_through),
        cmocka_unit_test(test_directory_is_refused),
        cmocka_unit_test(test_same_file),
        cmocka_unit_test(test_publish_all_or_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
