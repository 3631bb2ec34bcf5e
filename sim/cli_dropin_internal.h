/* cli_dropin_internal.h - the row macros of the drop-in flag tables (cli_dropin.h), shared by
 * the three table files (cli_dropin_vllm.c, cli_dropin_sglang.c, cli_dropin_trtllm.c) and
 * included by them only: MAP an engine flag onto an infersim flag, CALL a function that writes
 * the translation, NONE: no effect on the prediction, REFUSE: timing not modelled, END. */
#ifndef SIM_CLI_DROPIN_INTERNAL_H
#define SIM_CLI_DROPIN_INTERNAL_H

#include "cli_dropin.h"

#define MAP(n, a, ar, to, note)                                                                    \
    {                                                                                              \
        n, a, CLI_DROPIN_##ar, CLI_DROPIN_MAP, to, NULL, note                                      \
    }
#define CALL(n, a, ar, fn, to, note)                                                               \
    {                                                                                              \
        n, a, CLI_DROPIN_##ar, CLI_DROPIN_CALL, to, fn, note                                       \
    }
#define NONE(n, ar, note)                                                                          \
    {                                                                                              \
        n, NULL, CLI_DROPIN_##ar, CLI_DROPIN_NONE, NULL, NULL, note                                \
    }
#define REFUSE(n, ar, note)                                                                        \
    {                                                                                              \
        n, NULL, CLI_DROPIN_##ar, CLI_DROPIN_REFUSE, NULL, NULL, note                              \
    }
#define END                                                                                        \
    {                                                                                              \
        NULL, NULL, CLI_DROPIN_FLAG, CLI_DROPIN_NONE, NULL, NULL, NULL                             \
    }

#endif
