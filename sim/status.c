/* status.c - error message formatting. */
#include "status.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The length of the well-formed UTF-8 sequence of a printable character at s (no C1 control,
 * no overlong form, no surrogate), or 0. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((n == 2 && s[0] == 0xC2 && s[1] < 0xA0) ||  /* C1 controls U+0080..U+009F */
        (n == 3 && s[0] == 0xE0 && s[1] < 0xA0) ||  /* overlong */
        (n == 3 && s[0] == 0xED && s[1] >= 0xA0) || /* surrogates */
        (n == 4 && s[0] == 0xF0 && s[1] < 0x90) ||  /* overlong */
        (n == 4 && s[0] == 0xF4 && s[1] >= 0x90))   /* past U+10FFFF */
        return 0;
    return n;
}

void sim_escape(const char *in, char *out, size_t len)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t o = 0;
    if (!len)
        return;
    while (*s) {
        size_t n = *s >= 0x20 && *s < 0x7F ? 1 : *s >= 0x80 ? utf8_len(s) : 0;
        if (n) {
            if (o + n >= len)
                break;
            memcpy(out + o, s, n);
            o += n;
            s += n;
        } else {
            if (o + 4 >= len)
                break;
            snprintf(out + o, 5, "\\x%02x", *s);
            o += 4;
            s++;
        }
    }
    out[o] = '\0';
}

void sim_failf(sim_err *err, const char *fmt, ...)
{
    if (err) {
        char raw[SIM_ERR_LEN];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        sim_escape(raw, err->msg, sizeof err->msg);
    }
}
