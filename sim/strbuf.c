/* strbuf.c - growable text, JSON and CSV escaping. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sim_strbuf sim_strbuf_over(char *mem, size_t cap, size_t len)
{
    mem[len] = '\0';
    return (sim_strbuf){.s = mem, .len = len, .cap = cap, .fixed = true};
}

/* Room for n more bytes and the NUL; false (oom set) when there is none to be had. */
static bool reserve(sim_strbuf *b, size_t n)
{
    if (b->oom)
        return false;
    if (b->s && b->len + n < b->cap)
        return true;
    if (b->fixed) {
        b->oom = true;
        return false;
    }
    size_t cap = (b->cap + n + 64) * 2;
    char *p = realloc(b->s, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->s = p;
    b->cap = cap;
    return true;
}

void sim_strbuf_put(sim_strbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

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
        if (n >= 0 && b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        if (b->s)
            b->s[b->len] = '\0'; /* what a cut attempt wrote is not text */
        if (n < 0)
            b->oom = true;
        else
            reserve(b, (size_t)n);
    }
}

void sim_strbuf_int(sim_strbuf *b, long long v)
{
    char digits[24], *end = digits + sizeof digits, *p = end;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    sim_strbuf_put(b, p, (size_t)(end - p));
}

void sim_strbuf_json_str(sim_strbuf *b, const char *v)
{
    /* the plain run up to the first byte that needs escaping (usually the whole text) goes in
     * with one copy, quote included */
    size_t n = 0;
    while (v[n] && v[n] != '"' && v[n] != '\\' && (unsigned char)v[n] >= 0x20)
        n++;
    if (!reserve(b, n + 2))
        return;
    b->s[b->len] = '"';
    memcpy(b->s + b->len + 1, v, n);
    b->len += n + 1;
    b->s[b->len] = '\0';
    const char *run = v + n, *p = run;
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c != '"' && c != '\\' && c >= 0x20)
            continue;
        sim_strbuf_put(b, run, (size_t)(p - run));
        if (c < 0x20)
            sim_strbuf_printf(b, "\\u%04x", c);
        else
            sim_strbuf_put(b, c == '"' ? "\\\"" : "\\\\", 2);
        run = p + 1;
    }
    sim_strbuf_put(b, run, (size_t)(p - run));
    sim_strbuf_put(b, "\"", 1);
}

void sim_strbuf_csv(sim_strbuf *b, const char *v, bool always)
{
    if (!always && !strpbrk(v, ",\"\n\r")) {
        sim_strbuf_put(b, v, strlen(v));
        return;
    }
    sim_strbuf_put(b, "\"", 1);
    const char *run = v;
    for (const char *q; (q = strchr(run, '"')); run = q + 1) {
        sim_strbuf_put(b, run, (size_t)(q - run) + 1); /* up to and with the quote */
        sim_strbuf_put(b, "\"", 1);                    /* doubled */
    }
    sim_strbuf_put(b, run, strlen(run));
    sim_strbuf_put(b, "\"", 1);
}

void sim_strbuf_free(sim_strbuf *b)
{
    if (!b->fixed)
        free(b->s);
    *b = (sim_strbuf){0};
}
