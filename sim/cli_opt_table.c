/* cli_opt_table.c - the option table (cli_opt.h), built from its rows in cli_opt_rows.def: each
 * row at its id's index, with designated members. cli_opt.c parses with it. */
#include <stddef.h>

#include "cli_opt.h"
#include "cluster.h"
#include "engprof.h"

/* A row's columns: name, kind, the cli_opts member it sets, range, commands, help. */
#define CLI_OPT_COLUMNS(name_, kind_, member, min_, max_, cmds_, help_)                            \
    .name = (name_), .kind = (kind_), .offset = offsetof(cli_opts, member), .min = (min_),         \
    .max = (max_), .cmds = (cmds_), .help = (help_)
/* a flag */
#define O(id, name, kind, member, min, max, cmds, help)                                            \
    [CLI_OPT_ID_##id] = {CLI_OPT_COLUMNS(name, kind, member, min, max, cmds, help)},
/* a flag that overrides engine-profile field `field` (cli_opt.h cli_opt_eng: I64, F64, ON, OFF) */
#define OE(id, name, kind, member, min, max, cmds, eng_, field, help)                              \
    [CLI_OPT_ID_##id] = {CLI_OPT_COLUMNS(name, kind, member, min, max, cmds, help),                \
                         .eng = CLI_OPT_ENG_##eng_, .eng_offset = offsetof(sim_engprof, field)},
/* a flag with cross-checks: the flags it needs (one of them) and those it excludes, each with its
 * error's words (cli_opt.h cli_opt_def) */
#define OR(id, name, kind, member, min, max, cmds, needs_, needs_why_, excludes_, pre, why, help)  \
    [CLI_OPT_ID_##id] = {CLI_OPT_COLUMNS(name, kind, member, min, max, cmds, help),                \
                         .needs = (needs_),                                                        \
                         .needs_why = (needs_why_),                                                \
                         .excludes = (excludes_),                                                  \
                         .excludes_pre = (pre),                                                    \
                         .excludes_why = (why)},
/* an id list of a cross-check */
#define L(...) ((const cli_opt_id[]){__VA_ARGS__, CLI_OPT_ID_NONE})

const cli_opt_def cli_opt_table[CLI_OPT_ID_COUNT] = {
#include "cli_opt_rows.def"
};
#undef O
#undef OE
#undef OR
#undef L
#undef CLI_OPT_COLUMNS
const size_t cli_opt_count = CLI_OPT_ID_COUNT;
