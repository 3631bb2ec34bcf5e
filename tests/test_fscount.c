/* test_fscount.c - names resolved once: a sweep, a capacity search and a plan ask the file system
 * nothing per point.
 *
 * The test binary is linked with the library's objects and
 * -Wl,--wrap=access,--wrap=readlink,--wrap=stat,--wrap=fopen,--wrap=scandir, so every such call
 * the library makes (finding a name in the data roots: access and readlink of /proc/self/exe;
 * a model folder: stat; loading a file: fopen; listing a data folder: scandir) goes through the
 * counter below. A command is run twice over grids that differ only in their number of points;
 * both runs must make the same number of calls: the names are resolved and the files loaded
 * before the points (cli_load_cache_prepare), whatever their number. */
#include "testutil.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int __real_access(const char *path, int mode);
ssize_t __real_readlink(const char *path, char *buf, size_t len);
int __real_stat(const char *path, struct stat *sb);
FILE *__real_fopen(const char *path, const char *mode);
int __real_scandir(const char *dir, struct dirent ***names, int (*filter)(const struct dirent *),
                   int (*compar)(const struct dirent **, const struct dirent **));
int __wrap_access(const char *path, int mode);
ssize_t __wrap_readlink(const char *path, char *buf, size_t len);
int __wrap_stat(const char *path, struct stat *sb);
FILE *__wrap_fopen(const char *path, const char *mode);
int __wrap_scandir(const char *dir, struct dirent ***names, int (*filter)(const struct dirent *),
                   int (*compar)(const struct dirent **, const struct dirent **));

static long calls; /* file-system calls of the library while a command runs */

int __wrap_access(const char *path, int mode)
{
    calls++;
    return __real_access(path, mode);
}
ssize_t __wrap_readlink(const char *path, char *buf, size_t len)
{
    calls++;
    return __real_readlink(path, buf, len);
}
int __wrap_stat(const char *path, struct stat *sb)
{
    calls++;
    return __real_stat(path, sb);
}
FILE *__wrap_fopen(const char *path, const char *mode)
{
    calls++;
    return __real_fopen(path, mode);
}
int __wrap_scandir(const char *dir, struct dirent ***names, int (*filter)(const struct dirent *),
                   int (*compar)(const struct dirent **, const struct dirent **))
{
    calls++;
    return __real_scandir(dir, names, filter, compar);
}

/* Runs "infersim <line>" in this process (output and messages into memory, no file); returns
 * the library's file-system calls, and fails the test unless it exits 0. */
static long count_calls(const char *line)
{
    char buf[1024], *argv[64];
    snprintf(buf, sizeof buf, "%s", line);
    int argc = 0;
    static char name[] = "infersim";
    argv[argc++] = name;
    for (char *w = strtok(buf, " "); w && argc < 64; w = strtok(NULL, " "))
        argv[argc++] = w;
    char *out_text = NULL, *err_text = NULL;
    size_t out_len = 0, err_len = 0;
    FILE *out = open_memstream(&out_text, &out_len), *err = open_memstream(&err_text, &err_len);
    assert_non_null(out);
    assert_non_null(err);
    calls = 0;
    int rc = sim_cli_main(argc, argv, out, err);
    long n = calls;
    fclose(out);
    fclose(err);
    if (rc != 0)
        print_error("%s: exit %d: %s\n", line, rc, err_text ? err_text : "");
    assert_int_equal(rc, 0);
    free(out_text);
    free(err_text);
    return n;
}

/* Pairs of commands that differ only in their number of points: a sweep's grids of 2 and 12 run
 * points (bare names, found in the data roots), of 1 and 8 serve points with their uncertainty
 * bands (which read tools/data/uncertainty.csv) on two devices, one named by a path, and
 * capacity searches of 11 probes (ttft:1) and of 1 (ttft:1000). */
static void test_calls_per_point(void **state)
{
    (void)state;
    const char *root = getenv("INFERSIM_ROOT");
    assert_non_null(root);
    char serve[512];
    snprintf(serve, sizeof serve,
             "sweep serve --model llama-3.1-8b --hw h100-sxm,%s/hw/h200.json --num-prompts 20 "
             "--random-input-len 64 --random-output-len 8",
             root);
    const char *const pairs[][3] = {
        {"sweep run --model llama-3.1-8b --hw h100-sxm --output-len 8", "--batch 1,2 --input-len 128",
         "--batch 1,2,3,4,5,6 --input-len 128,256"},
        {serve, "--request-rate 4", "--request-rate 1,2,4,8 --seed 0,1"},
        {"capacity --model llama-3.1-8b --hw h100-sxm --num-prompts 20 --random-input-len 64 "
         "--random-output-len 8 --slo",
         "ttft:1", "ttft:1000"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char a[768], b[768];
        snprintf(a, sizeof a, "%s %s", pairs[i][0], pairs[i][1]);
        snprintf(b, sizeof b, "%s %s", pairs[i][0], pairs[i][2]);
        long na = count_calls(a), nb = count_calls(b);
        if (na != nb)
            print_error("%s: %ld calls; with %s: %ld\n", a, na, pairs[i][2], nb);
        assert_true(na > 0); /* the names were looked up and the files read, once */
        assert_int_equal(na, nb);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_per_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
