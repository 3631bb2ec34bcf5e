/* api_example.c - a program built outside the project against an installed infersim:
 *   cc api_example.c $(pkg-config --cflags --libs infersim)
 * Prints the run's JSON, then the message for a model that does not exist. Exit 0 when both
 * behave as the header says. */
#include <infersim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    const char *good[] = {"run", "--model", "llama-3.1-8b", "--hw", "h100-sxm"};
    const char *bad[] = {"run", "--model", "no-such-model", "--hw", "h100-sxm"};
    char err[512] = "";
    char *json = infersim_json(5, good, err, sizeof err);
    if (!json || !strstr(json, "\"ttft_ms\"")) {
        fprintf(stderr, "api_example: run failed: %s\n", err);
        return 1;
    }
    printf("%s", json);
    free(json);
    json = infersim_json(5, bad, err, sizeof err);
    if (json || !strstr(err, "no-such-model")) {
        fprintf(stderr, "api_example: a bad model gave %s, '%s'\n", json ? "JSON" : "NULL", err);
        free(json);
        return 1;
    }
    printf("bad model: %s\n", err);
    return 0;
}
