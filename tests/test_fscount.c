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

/* A sweep's calls for grids of 2 and 12 points (bare names: found in the data roots). */
static void test_sweep_run_points(void **state)
{
    (void)state;
    long two = count_calls("sweep run --model llama-3.1-8b --hw h100-sxm --batch 1,2 "
                           "--input-len 128 --output-len 8");
    long twelve = count_calls("sweep run --model llama-3.1-8b --hw h100-sxm "
                              "--batch 1,2,3,4,5,6 --input-len 128,256 --output-len 8");
    assert_true(two > 0); /* the names were looked up and the files read, once */
    assert_int_equal(two, twelve);
}

/* Serve points (with their uncertainty bands, which read tools/data/uncertainty.csv) and two
 * devices, one named by a path. */
static void test_sweep_serve_points(void **state)
{
    (void)state;
    char a[512], b[512];
    const char *root = getenv("INFERSIM_ROOT");
    assert_non_null(root);
    snprintf(a, sizeof a,
             "sweep serve --model llama-3.1-8b --hw h100-sxm,%s/hw/h200.json --num-prompts 20 "
             "--random-input-len 64 --random-output-len 8 --request-rate 4",
             root);
    snprintf(b, sizeof b,
             "sweep serve --model llama-3.1-8b --hw h100-sxm,%s/hw/h200.json --num-prompts 20 "
             "--random-input-len 64 --random-output-len 8 --request-rate 1,2,4,8 --seed 0,1",
             root);
    assert_int_equal(count_calls(a), count_calls(b));
}

/* A capacity search probes many rates: as many calls as a search over fewer requests' runs. */
static void test_capacity_probes(void **state)
{
    (void)state;
    long few = count_calls("capacity --model llama-3.1-8b --hw h100-sxm --num-prompts 20 "
                           "--random-input-len 64 --random-output-len 8 --slo ttft:1");
    long many = count_calls("capacity --model llama-3.1-8b --hw h100-sxm --num-prompts 20 "
                            "--random-input-len 64 --random-output-len 8 --slo ttft:1000");
    assert_int_equal(few, many);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_run_points),
        cmocka_unit_test(test_sweep_serve_points),
        cmocka_unit_test(test_capacity_probes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
