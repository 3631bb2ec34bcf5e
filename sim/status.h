/* status.h - error reporting shared by every infersim module.
 *
 * Two classes of error:
 *   - bad input (a file, a field, a flag): the function returns SIM_EINPUT and writes ONE line into
 *     the caller's sim_err naming the file or flag, the field, the value and what was expected.
 *     The command line turns that into exit status 2.
 *   - internal failure (out of memory, a broken invariant): SIM_EINTERNAL, exit status 1.
 *
 * Functions never exit and never write to stdout or stderr of their own accord: one that writes
 * (a report, the sweep's progress bar, sim_cli_main) writes to the FILE * its caller passes, and
 * only main.c names stdout and stderr (tools/layers checks it); the C API (include/infersim.h)
 * hands the text back instead.
 */
#ifndef SIM_STATUS_H
#define SIM_STATUS_H

#include <stddef.h>

typedef enum sim_status {
    SIM_OK = 0,
    SIM_EINTERNAL = 1, /* out of memory, broken invariant: exit 1 */
    SIM_EINPUT = 2,    /* bad file, field or flag: exit 2 */
} sim_status;

#define SIM_ERR_LEN 512

typedef struct sim_err {
    char msg[SIM_ERR_LEN]; /* one line, no trailing newline; empty when no error */
} sim_err;

/* Formats the message into err (if err is not NULL), non-printable bytes escaped. */
void sim_failf(sim_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* sim_fail's value: st (the int only sequences the message before it). */
static inline sim_status sim_fail_ret(sim_status st, int formatted)
{
    (void)formatted;
    return st;
}

/* Formats the message into err (if err is not NULL), non-printable bytes escaped, and returns st.
 * A macro over a plain inline function, so that static analysis (which does not follow variadic
 * calls) sees that the result is st and never SIM_OK on an error path.
 *
 * Example (sim_err *err, const char *path, const char *name, double v):
 *   return sim_fail(err, SIM_EINPUT, "%s: field '%s' is %g, expected > 0", path, name, v);
 */
#define sim_fail(err, st, ...) sim_fail_ret((st), (sim_failf((err), __VA_ARGS__), 0))

/* Copies `in` into out (len bytes, always terminated) with every byte that is not printable --
 * control characters, DEL, bytes that are not part of well-formed UTF-8 -- written as \xNN, so
 * a message quoting a binary file cannot move the cursor or change a terminal's state.
 * sim_fail escapes every message this way. */
void sim_escape(const char *in, char *out, size_t len);

/* SIM_ASSERT(cond): an invariant of the simulation itself (never of its input: bad input is
 * SIM_EINPUT), checked where it must hold in the sanitizer, fuzz and Debug builds (CMake defines
 * SIM_ASSERTS there) and compiled out elsewhere, so the checks may cost (a pass over the running
 * requests per iteration). A failure aborts through assert(), naming the condition, the file and
 * the line. The invariants checked: the KV cache's blocks are conserved after each scheduling
 * step (sim_sched_blocks_conserved; its evictable blocks are the prefix cache's one count);
 * each op's time lies within its bounds (max of math, memory and network plus launch .. their
 * sum), and a step's within its lower and upper bound; at the end of a serving run every
 * request generated exactly its output tokens and their sum is the tokens emitted. */
#ifdef SIM_ASSERTS
#undef NDEBUG
#include <assert.h>
#define SIM_ASSERT(cond) assert(cond)
#else
#define SIM_ASSERT(cond) ((void)sizeof(!(cond)))
#endif

#endif
