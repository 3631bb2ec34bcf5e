/* fuzz_cli.c - the command line (sim_cli_main, in process): the input is whitespace-separated
 * arguments. So that a run stays short and writes nothing outside its directory, inputs with an
 * argument naming a path ('/'), a number of more than 3 digits, or more than 8 list commas, and
 * the validate and calibrate commands, are skipped; the target runs in a directory of its own
 * ($INFERSIM_FUZZ_DIR, else under /tmp). */
#include "fuzz_util.h"

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

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
    int argc = 1, commas = 0;
    for (char *w = strtok(buf, " \t\n"); w; w = strtok(NULL, " \t\n")) {
        if (argc == 65 || !acceptable(w, &commas))
            return 0;
        argv[argc++] = w;
    }
    argv[argc] = NULL;
    /* validate and calibrate price the whole shipped table (seconds under the sanitizers); their
     * CSV reader has its own target, fuzz_validation */
    if (argc > 1 && (strcmp(argv[1], "validate") == 0 || strcmp(argv[1], "calibrate") == 0))
        return 0;
    (void)sim_cli_main(argc, argv, sink, sink);
    return 0;
}
