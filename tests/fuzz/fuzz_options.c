/* fuzz_options.c - the engines' YAML option files (cli_dropin_yaml.c) on arbitrary bytes: the
 * file read by libyaml into settings and translated through each engine's rule, `vllm serve m
 * --config F.yaml`, `python3 -m sglang.launch_server --model-path m --config F.yaml` and
 * `trtllm-serve m --extra_llm_api_options F.yaml`; translation only (nothing is simulated), so a
 * run is short. Seeds: tests/fuzz/seeds/options. */
#include "fuzz_util.h"

#include "cli_dropin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = (char *)fuzz_file(data, size, ".yaml");
    char *lines[][8] = {
        {"infersim", "vllm", "serve", "m", "--config", path, NULL},
        {"infersim", "python3", "-m", "sglang.launch_server", "--model-path", "m", "--config",
         path},
        {"infersim", "trtllm-serve", "m", "--extra_llm_api_options", path, NULL},
    };
    const int argc[] = {6, 8, 5};
    for (int k = 0; k < 3; k++) {
        cli_dropin_line t;
        sim_err err = {{0}};
        if (cli_dropin_translate(argc[k], lines[k], &t, &err) == SIM_OK)
            cli_dropin_line_free(&t);
        else if (!err.msg[0])
            abort(); /* a refusal always says why */
    }
    return 0;
}
