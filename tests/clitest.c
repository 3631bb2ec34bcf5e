/* clitest.c - the helpers the test_cli_* programs share (clitest.h). */
#include "clitest.h"

#include <stdarg.h>
#include <sys/wait.h>

result R;

void run(const char *args) { R.rc = tu_cli(args, R.out, sizeof R.out, R.err, sizeof R.err); }

void runf(const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && n < (int)sizeof args);
    run(args);
}

void run_process_bin(const char *cwd, const char *bin, const char *args)
{
    char errpath[256], cmd[4096];
    tu_snprintf(errpath, sizeof errpath, "%s/infersim-cli-%d.err", tu_tmpdir(), (int)getpid());
    tu_snprintf(cmd, sizeof cmd, "cd '%s' && env -u INFERSIM_DATA '%s' %s 2>%s", cwd, bin, args,
                errpath);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(R.out, 1, sizeof R.out - 1, p);
    R.out[n] = '\0';
    int status = pclose(p);
    R.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    FILE *e = fopen(errpath, "r");
    n = e ? fread(R.err, 1, sizeof R.err - 1, e) : 0;
    R.err[n] = '\0';
    if (e)
        fclose(e);
    remove(errpath);
}

void run_process_in(const char *cwd, const char *args)
{
    const char *bin = getenv("INFERSIM_BIN");
    assert_non_null(bin);
    run_process_bin(cwd, bin, args);
}

int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

void assert_no_nonfinite(const char *s)
{
    bool bad = strstr(s, "NaN") || strstr(s, "null");
    for (const char *p = strstr(s, "nan"); p && !bad; p = strstr(p + 1, "nan"))
        bad = p[3] != 'o';
    for (const char *p = strstr(s, "inf"); p && !bad; p = strstr(p + 1, "inf"))
        bad = strncmp(p, "infersim", 8) != 0;
    if (bad) {
        print_error("non-finite value in output:\n%s\n", s);
        fail();
    }
}

double num(const cJSON *o, const char *k)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(it)) {
        print_error("key '%s' missing or not a number\n", k);
        fail();
    }
    return it->valuedouble;
}

void expect_bad(const char *args, const char *must_mention)
{
    run(args);
    if (R.rc != 2 || count_lines(R.err) != 1 || !strstr(R.err, must_mention) || R.out[0]) {
        print_error("'%s': rc %d, stderr '%s', stdout %zu bytes; expected exit 2 and one line "
                    "naming '%s'\n",
                    args, R.rc, R.err, strlen(R.out), must_mention);
        fail();
    }
}

void bad_flag(const char *base, const char *extra, const char *mention)
{
    char a[1024];
    snprintf(a, sizeof a, "%s %s", base, extra);
    expect_bad(a, mention);
}

double out_num(const char *key)
{
    cJSON *j = cJSON_Parse(R.out);
    assert_non_null(j);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    assert_true(cJSON_IsNumber(v));
    double x = v->valuedouble;
    cJSON_Delete(j);
    return x;
}
