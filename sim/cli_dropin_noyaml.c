/* cli_dropin_noyaml.c - cli_dropin_yaml.c's place in a build without libyaml (the WebAssembly
 * page, web/CMakeLists.txt): the engines' option files are a command-line feature, so every one
 * is refused by name. */
#include "cli_dropin.h"

#include <stddef.h>

sim_status cli_dropin_yaml_load(const char *path, const char *what, struct cJSON **out,
                                sim_err *err)
{
    *out = NULL;
    return sim_fail(err, SIM_EINPUT,
                    "%s: value '%s': this build reads no option files (built without libyaml); "
                    "pass the settings as flags",
                    what, path);
}
