/* fuzz_oai.c - the endpoint's request bodies (oai.h) on arbitrary bytes, as a completion and as
 * a chat: a body is refused with one line (SIM_EINPUT) or read into counts in range, and every
 * response written for it parses back as JSON. Seeds: tests/fuzz/seeds/oai. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oai.h"

static void check_json(const char *s)
{
    cJSON *j = cJSON_Parse(s);
    if (!j)
        abort();
    cJSON_Delete(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int k = 0; k < 2; k++) {
        sim_oai_req r;
        sim_err err = {0};
        const sim_status st = sim_oai_parse((const char *)data, size,
                                            k ? SIM_OAI_CHAT : SIM_OAI_COMPLETION, 4.0, &r, &err);
        if (st) {
            if (st != SIM_EINPUT || !err.msg[0] || strchr(err.msg, '\n'))
                abort();
            continue;
        }
        if (r.prompt_tokens < 1 || r.max_tokens < 0 || r.max_tokens > (1 << 26))
            abort();
        const sim_oai_meta m = {.id = "cmpl-0", .created = 1, .model = r.model,
                                .prompt_tokens = r.prompt_tokens, .completion_tokens = 3};
        const sim_oai_times t = {.ttft_s = 0.01, .e2e_s = 0.05, .itl_mean_s = -1.0};
        sim_strbuf b = {0};
        sim_oai_response(&b, &r, &m, &t);
        check_json(b.s);
        sim_strbuf_free(&b);
        sim_oai_chunk(&b, &r, &m, 2, true, &t);
        if (strncmp(b.s, "data: ", 6) != 0 || b.len < 8 || strcmp(b.s + b.len - 2, "\n\n") != 0)
            abort();
        b.s[b.len - 2] = '\0';
        check_json(b.s + 6);
        sim_strbuf_free(&b);
        sim_oai_error(&b, 400, err.msg[0] ? err.msg : r.model);
        check_json(b.s);
        sim_strbuf_free(&b);
    }
    return 0;
}
