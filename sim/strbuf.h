/* strbuf.h - a growable text buffer with printf-style appends and the two escapings the outputs
 * need: a JSON string and a CSV field (RFC 4180: quoted, a quote inside doubled).
 *
 * Example:
 *   sim_strbuf b = {0};
 *   sim_strbuf_printf(&b, "{\"name\":");
 *   sim_strbuf_json_str(&b, "a \"b\"");         // {"name":"a \"b\""
 *   sim_strbuf_csv(&b, "x,y", false);            // "x,y" (quoted: it holds a comma)
 *   bool complete = !b.oom;                     // false: memory ran out, the text is cut short
 *   sim_strbuf_free(&b);
 *
 * A zeroed sim_strbuf is empty; b.s is NULL until the first append, then NUL-terminated and owned
 * by the buffer. An allocation or format failure sets b.oom and stops further appends, so a
 * writer checks once at the end. No global state.
 *
 * A buffer can also write into storage the caller owns (sim_strbuf_over: a fixed array that is
 * never reallocated): an append that does not fit sets b.oom and adds nothing (a JSON string with
 * escapes may keep the pieces that fitted: a writer that needs all or nothing keeps its own
 * length, as timeline.h's args do). JSON escaping appends runs of plain bytes whole: it is the only JSON string escaper of the
 * code base, the Chrome trace writer's hot path included (timeline.h).
 */
#ifndef SIM_STRBUF_H
#define SIM_STRBUF_H

#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>

typedef struct sim_strbuf {
    char *s; /* the text so far, NUL-terminated (owned); NULL while empty */
    size_t len, cap;
    bool oom;   /* an append failed: the text is incomplete */
    bool fixed; /* s is the caller's storage (sim_strbuf_over): never reallocated nor freed */
} sim_strbuf;

/* A buffer over the caller's `cap` bytes at `mem`, whose first `len` bytes (len < cap) are text
 * already: appends go into mem and never past it (one that does not fit sets oom). */
sim_strbuf sim_strbuf_over(char *mem, size_t cap, size_t len);

/* Appends the n bytes at s as they are. */
void sim_strbuf_put(sim_strbuf *b, const char *s, size_t n);

/* Appends printf-formatted text. */
void sim_strbuf_printf(sim_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same with a va_list (for writers that wrap the buffer, e.g. svg.h). */
void sim_strbuf_vprintf(sim_strbuf *b, const char *fmt, va_list ap);

/* Appends v in decimal (as printf's %lld, faster). */
void sim_strbuf_int(sim_strbuf *b, long long v);

/* Appends v as a JSON string: quoted; '"' and '\\' escaped with a backslash, other control
 * characters (below 0x20) as \u00XX; other bytes (UTF-8 included) as they are. */
void sim_strbuf_json_str(sim_strbuf *b, const char *v);

/* Appends v as a CSV field: quoted (a quote inside doubled) when `always` or when v holds a
 * comma, a quote or a line break; else as it is. */
void sim_strbuf_csv(sim_strbuf *b, const char *v, bool always);

/* Frees the text (unless the caller owns it: sim_strbuf_over) and empties the buffer. */
void sim_strbuf_free(sim_strbuf *b);

#endif
