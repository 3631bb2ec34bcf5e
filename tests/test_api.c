/* test_api.c - the public C API (include/infersim.h): JSON back, NULL and one message on bad
 * input, the same answers from several threads at once. */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <pthread.h>

#include "infersim.h"

#define N_ARGS(a) ((int)(sizeof a / sizeof a[0]))

static void test_run_json(void **state)
{
    (void)state;
    const char *argv[] = {"run", "--model", "llama-3.1-8b", "--hw", "h100-sxm", "--tp", "2"};
    char err[512] = "";
    char *json = infersim_json(N_ARGS(argv), argv, err, sizeof err);
    assert_non_null(json);
    assert_string_equal(err, "");
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    assert_true(cJSON_GetObjectItemCaseSensitive(j, "ttft_ms")->valuedouble > 0.0);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "tp")->valueint, 2);
    cJSON_Delete(j);
    free(json);
    /* a later --format is overridden: the API always answers JSON */
    const char *table[] = {"roofline", "--hw", "h100-sxm", "--format", "table"};
    json = infersim_json(N_ARGS(table), table, err, sizeof err);
    assert_non_null(json);
    j = cJSON_Parse(json);
    assert_non_null(j);
    cJSON_Delete(j);
    free(json);
}

static void test_bad_input(void **state)
{
    (void)state;
    char err[512];
    const char *argv[] = {"run", "--model", "no-such-model", "--hw", "h100-sxm"};
    assert_null(infersim_json(N_ARGS(argv), argv, err, sizeof err));
    assert_non_null(strstr(err, "infersim: "));
    assert_non_null(strstr(err, "no-such-model"));
    assert_null(strchr(err, '\n'));
    const char *tp3[] = {"run", "--model", "llama-3.1-8b", "--hw", "h100-sxm", "--tp", "3"};
    assert_null(infersim_json(N_ARGS(tp3), tp3, err, sizeof err));
    assert_non_null(strstr(err, "--tp: value 3"));
    const char *cmd[] = {"launch"};
    assert_null(infersim_json(1, cmd, err, sizeof err));
    assert_non_null(strstr(err, "unknown command 'launch'"));
    /* the endpoint is a server that waits for a signal: the program's, never a call's */
    const char *ep[] = {"endpoint", "--model", "llama-3.1-8b", "--hw", "h100-sxm"};
    assert_null(infersim_json(N_ARGS(ep), ep, err, sizeof err));
    assert_non_null(strstr(err, "endpoint: a server that runs until SIGINT or SIGTERM"));
    assert_null(infersim_json(0, cmd, err, sizeof err));
    /* a short buffer is truncated, never overrun; none at all is allowed */
    char tiny[8];
    assert_null(infersim_json(N_ARGS(tp3), tp3, tiny, sizeof tiny));
    assert_int_equal(strlen(tiny), 7);
    assert_null(infersim_json(N_ARGS(tp3), tp3, NULL, 0));
}

static void test_sweep_and_text(void **state)
{
    (void)state;
    char err[512];
    const char *argv[] = {"sweep",    "run",  "--model", "llama-3.1-8b", "--hw",
                          "h100-sxm", "--tp", "1,2",     "--threads",    "2"};
    char *json = infersim_json(N_ARGS(argv), argv, err, sizeof err);
    assert_non_null(json);
    cJSON *j = cJSON_Parse(json);
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(j, "points");
    assert_int_equal(cJSON_GetArraySize(pts), 2);
    cJSON_Delete(j);
    free(json);
    const char *help[] = {"serve", "--help"};
    json = infersim_json(N_ARGS(help), help, err, sizeof err);
    assert_non_null(json);
    j = cJSON_Parse(json);
    assert_non_null(
        strstr(cJSON_GetObjectItemCaseSensitive(j, "text")->valuestring, "--num-prompts"));
    cJSON_Delete(j);
    free(json);
    assert_non_null(strchr(infersim_version(), '.'));
}

/* Four threads serve the same configuration at once: every answer is the one a lone call gives. */
static const char *const serve_argv[] = {"serve",
                                         "--model",
                                         "llama-3.1-8b",
                                         "--hw",
                                         "h100-sxm",
                                         "--num-prompts",
                                         "50",
                                         "--request-rate",
                                         "10",
                                         "--random-input-len",
                                         "256",
                                         "--random-output-len",
                                         "32"};

static void *serve_once(void *out)
{
    char err[512];
    *(char **)out = infersim_json(N_ARGS(serve_argv), serve_argv, err, sizeof err);
    return NULL;
}

/* --report-html: the --html page in the answer, showing the caller's words (not the API's
 * --format and --html), its temporary folder gone; refused where there is no report */
static void test_report_html(void **state)
{
    (void)state;
    char err[512] = "";
    const char *argv[] = {"run", "--model", "llama-3.1-8b", "--hw", "h100-sxm", "--report-html",
                          "--batch", "4"};
    char *json = infersim_json(N_ARGS(argv), argv, err, sizeof err);
    assert_non_null(json);
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "batch")->valueint, 4);
    const char *html = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "report_html"));
    assert_non_null(html);
    assert_non_null(strstr(html, "<svg"));
    assert_non_null(strstr(html, "infersim run --model llama-3.1-8b --hw h100-sxm --batch 4<"));
    assert_null(strstr(html, "--format"));
    assert_null(strstr(html, "infersim-report."));
    cJSON_Delete(j);
    free(json);
    /* without the word, no field */
    json = infersim_json(5, argv, err, sizeof err);
    assert_non_null(json);
    assert_null(strstr(json, "report_html"));
    free(json);
    /* a sweep's points and its page */
    const char *sweep[] = {"sweep", "run", "--model", "llama-3.1-8b", "--hw", "h100-sxm",
                           "--batch", "1,8", "--report-html"};
    json = infersim_json(N_ARGS(sweep), sweep, err, sizeof err);
    assert_non_null(json);
    j = cJSON_Parse(json);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "points")), 2);
    html = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "report_html"));
    assert_non_null(html);
    assert_non_null(strstr(html, "<svg"));
    cJSON_Delete(j);
    free(json);
    const char *hw[] = {"hw", "h100-sxm", "--report-html"};
    assert_null(infersim_json(N_ARGS(hw), hw, err, sizeof err));
    assert_string_equal(err, "infersim: --report-html: only run, serve and sweep (without --out) "
                             "answer with their --html report");
    /* bad input: the command's own message */
    const char *bad[] = {"run", "--model", "no-such-model", "--hw", "h100-sxm", "--report-html"};
    assert_null(infersim_json(N_ARGS(bad), bad, err, sizeof err));
    assert_non_null(strstr(err, "no-such-model"));
}

static void test_threads(void **state)
{
    (void)state;
    char *alone = NULL;
    serve_once(&alone);
    assert_non_null(alone);
    pthread_t t[4];
    char *got[4] = {NULL};
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, serve_once, &got[i]), 0);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_non_null(got[i]);
        assert_string_equal(got[i], alone);
        free(got[i]);
    }
    free(alone);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_json),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_sweep_and_text),
        cmocka_unit_test(test_report_html),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
