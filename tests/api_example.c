/* api_example.c - a program built outside the project against an installed infersim:
 *   cc api_example.c $(pkg-config --cflags --libs infersim)
 * Prints the run's JSON, one decode step's time from the step predictor (infersim_step.h), then
 * the message for a model that does not exist. Exit 0 when all behave as the headers say. */
#include <infersim.h>
#include <infersim_step.h>
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
    const char *dep[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm"};
    infersim_step *h;
    infersim_step_seq seq = {.new_tokens = 1, .cached_tokens = 1024, .kind = INFERSIM_SEQ_DECODE};
    infersim_step_time t;
    if (infersim_step_open(INFERSIM_STEP_ABI, 4, dep, &h, err, sizeof err) ||
        infersim_step_price(h, &seq, 1, &t, err, sizeof err) || !(t.step_us > 0.0)) {
        fprintf(stderr, "api_example: the step predictor failed: %s\n", err);
        return 1;
    }
    infersim_step_close(h);
    printf("decode step: %.1f us\n", t.step_us);
    json = infersim_json(5, bad, err, sizeof err);
    if (json || !strstr(err, "no-such-model")) {
        fprintf(stderr, "api_example: a bad model gave %s, '%s'\n", json ? "JSON" : "NULL", err);
        free(json);
        return 1;
    }
    printf("bad model: %s\n", err);
    return 0;
}
