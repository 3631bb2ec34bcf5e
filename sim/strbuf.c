/* strbuf.c - growable text, JSON and CSV escaping. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_strbuf_printf(sim_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

void sim_strbuf_vprintf(sim_strbuf *b, const char *fmt, va_list ap)
{
    /* first into the room there is; when it does not fit, grow and format again */
    for (int tries = 0; tries < 2 && !b->oom; tries++) {
        va_list aq;
        va_copy(aq, ap);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, aq);
        va_end(aq);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 64) * 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
}

void sim_strbuf_json_str(sim_strbuf *b, const char *v)
{
    sim_strbuf_printf(b, "\"");
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\')
            sim_strbuf_printf(b, "\\%c", *p);
        else if (*p < 0x20)
            sim_strbuf_printf(b, "\\u%04x", *p);
        else
            sim_strbuf_printf(b, "%c", *p);
    }
    sim_strbuf_printf(b, "\"");
}

void sim_strbuf_csv(sim_strbuf *b, const char *v, bool always)
{
    if (!always && !strpbrk(v, ",\"\n\r")) {
        sim_strbuf_printf(b, "%s", v);
        return;
    }
    sim_strbuf_printf(b, "\"");
    for (const char *p = v; *p; p++)
        sim_strbuf_printf(b, *p == '"' ? "\"\"" : "%c", *p);
    sim_strbuf_printf(b, "\"");
}

void sim_strbuf_free(sim_strbuf *b)
{
    free(b->s);
    *b = (sim_strbuf){0};
}
