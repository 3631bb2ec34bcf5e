/* fuzz_cli.c - the command line (sim_cli_main, in process): the input is whitespace-separated
 * arguments. So that a run stays short and writes nothing outside its directory, inputs with an
 * argument naming a path ('/') or a number of more than 3 digits, or with more than 8 list
 * commas, and the validate and calibrate commands, are skipped; the target runs in a directory
 * of its own ($INFERSIM_FUZZ_DIR, else under /tmp). Paths and large numbers enter through
 * placeholders instead: an argument "@c" (c a letter of `paths` below) is a file: copies of a
 * shipped model, device, engine profile, traces, a grid, a result and a shard (rewritten in
 * in/ before every input, so an output written over one changes nothing later), a path that does
 * not exist, a directory, /dev/null, /dev/full; an argument "#d" (a digit) is a number of
 * `numbers` below (above 999, negative, exponent forms, out of range). An input with one of the
 * numbers above 999 takes at most one comma (a sweep of several such points would be slow). */
#include "fuzz_util.h"

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* The shipped files behind the "@" placeholders, relative to the source root. */
static const struct {
    char letter;
    const char *src; /* NULL: `name` is used as it is */
    const char *name;
} paths[] = {
    {'m', "models/llama-3.2-1b.json", "in/model.json"},
    {'h', "hw/h100-sxm.json", "in/h100.json"},
    {'e', "hw/engines/vllm-0.10.json", "in/engine.json"},
    {'t', "traces/mixed-long-prompts.csv", "in/trace.csv"},
    {'j', "tests/fuzz/seeds/e2e/trace-mooncake.jsonl", "in/trace.jsonl"},
    {'g', "tests/fuzz/seeds/grid/run-tp-batch.json", "in/grid.json"},
    {'r', "tests/fuzz/seeds/compare/run-result.json", "in/result.json"},
    {'s', "tests/fuzz/seeds/merge/shard0.csv", "in/shard0.csv"},
    {'x', NULL, "/nonexistent-infersim-fuzz/x.json"},
    {'d', NULL, "in"},
    {'n', NULL, "/dev/null"},
    {'f', NULL, "/dev/full"},
};
enum { N_PATHS = sizeof paths / sizeof paths[0] };

/* The "#0".."#9" placeholders; the first six are above 999 (the comma rule). */
static const char *const numbers[10] = {"1000",  "4096",  "65536", "99999",
                                        "2.5e3", "1E4",   "-4096", "1e308",
                                        "-1e-5", "99999999999999999999"};
enum { N_LARGE = 6 };

static char *contents[N_PATHS]; /* the shipped files' bytes, read once */
static size_t lengths[N_PATHS];

static void load_sources(void)
{
    char root[1024];
    const char *file = __FILE__; /* <root>/tests/fuzz/fuzz_cli.c (CMake passes it absolute) */
    const char *cut = strstr(file, "/tests/fuzz/");
    if (!cut)
        abort();
    snprintf(root, sizeof root, "%.*s", (int)(cut - file), file);
    for (int i = 0; i < N_PATHS; i++) {
        if (!paths[i].src)
            continue;
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", root, paths[i].src);
        FILE *f = fopen(p, "rb");
        if (!f || fseek(f, 0, SEEK_END) != 0)
            abort();
        long n = ftell(f);
        rewind(f);
        if (n < 0 || !(contents[i] = malloc((size_t)n + 1)) ||
            fread(contents[i], 1, (size_t)n, f) != (size_t)n)
            abort();
        lengths[i] = (size_t)n;
        fclose(f);
    }
}

/* The copies in in/, as shipped (an earlier input may have replaced one with its output). */
static void restore_inputs(void)
{
    if (mkdir("in", 0700) != 0 && access("in", W_OK) != 0)
        abort();
    for (int i = 0; i < N_PATHS; i++) {
        if (!paths[i].src)
            continue;
        remove(paths[i].name);
        FILE *f = fopen(paths[i].name, "wb");
        if (!f || fwrite(contents[i], 1, lengths[i], f) != lengths[i] || fclose(f) != 0)
            abort();
    }
}

/* The argument as it goes to the command line: a placeholder's path or number, else itself. */
static const char *expand(const char *arg, int *large)
{
    if (arg[0] == '@' && arg[1] && !arg[2])
        for (int i = 0; i < N_PATHS; i++)
            if (paths[i].letter == arg[1])
                return paths[i].name;
    if (arg[0] == '#' && arg[1] >= '0' && arg[1] <= '9' && !arg[2]) {
        *large += arg[1] - '0' < N_LARGE;
        return numbers[arg[1] - '0'];
    }
    return arg;
}

static bool acceptable(const char *arg, int *commas)
{
    int digits = 0;
    for (const char *p = arg; *p; p++) {
        if (*p == '/')
            return false;
        digits = (*p >= '0' && *p <= '9') ? digits + 1 : 0;
        if (digits > 3)
            return false;
        *commas += *p == ',';
    }
    return *commas <= 8;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    static bool in_dir;
    if (!in_dir) { /* tools/fuzz names one under build-fuzz/ */
        char dir[1024];
        const char *env = getenv("INFERSIM_FUZZ_DIR");
        if (env)
            snprintf(dir, sizeof dir, "%s", env);
        else
            snprintf(dir, sizeof dir, "/tmp/infersim-fuzz-cli-%d", (int)getpid());
        if ((mkdir(dir, 0700) != 0 && access(dir, W_OK) != 0) || chdir(dir) != 0)
            abort();
        load_sources();
        in_dir = true;
    }
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    if (size > 512)
        return 0;
    char buf[513];
    memcpy(buf, data, size);
    buf[size] = '\0';
    if (strlen(buf) != size)
        return 0; /* a NUL cannot be in an argument */
    char *argv[66] = {"infersim"};
    int argc = 1, commas = 0, large = 0;
    for (char *w = strtok(buf, " \t\n"); w; w = strtok(NULL, " \t\n")) {
        if (argc == 65 || !acceptable(w, &commas))
            return 0;
        argv[argc++] = (char *)expand(w, &large);
    }
    argv[argc] = NULL;
    if (large && commas > 1)
        return 0;
    /* validate and calibrate price the whole shipped table (seconds under the sanitizers); their
     * CSV reader has its own target, fuzz_validation */
    if (argc > 1 && (strcmp(argv[1], "validate") == 0 || strcmp(argv[1], "calibrate") == 0))
        return 0;
    restore_inputs();
    (void)sim_cli_main(argc, argv, sink, sink);
    return 0;
}
