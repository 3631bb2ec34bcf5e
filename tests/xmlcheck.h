/* xmlcheck.h - a strict little XML well-formedness check for the SVG the charts write, and
 * counters of what they hold (tests only).
 *
 * Accepts: elements with attributes in double quotes, self-closing tags, text, and the entities
 * &amp; &lt; &gt; &quot; &#39; (and numeric ones). Rejects: unbalanced or misnested tags, a raw
 * '<' or '&' in text or attribute values, unquoted attributes, anything before the root or after
 * it. Enough to prove a browser's XML parser (SVG in an XHTML or .svg file) would take it. */
#ifndef XMLCHECK_H
#define XMLCHECK_H

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Skips an entity at p ("&amp;"): its length, or 0 when it is not one. */
static inline size_t xml_entity(const char *p)
{
    static const char *const named[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strncmp(p, named[i], strlen(named[i])) == 0)
            return strlen(named[i]);
    if (p[1] == '#') {
        size_t n = 2;
        while (isdigit((unsigned char)p[n]))
            n++;
        return n > 2 && p[n] == ';' ? n + 1 : 0;
    }
    return 0;
}

static inline bool xml_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_' || c == ':' || c == '.';
}

/* Whether doc[0..len) is one well-formed element; on failure *why says what and where. */
static inline bool xml_well_formed(const char *doc, size_t len, char *why, size_t why_len)
{
    enum { DEPTH = 64 };
    const char *stack[DEPTH];
    size_t lens[DEPTH], depth = 0;
    bool seen_root = false;
    const char *p = doc, *end = doc + len;
#define XML_FAIL(msg)                                                                              \
    do {                                                                                           \
        snprintf(why, why_len, "%s at offset %ld: %.40s", msg, (long)(p - doc), p);                \
        return false;                                                                              \
    } while (0)
    while (p < end) {
        if (*p == '<') {
            bool closing = p[1] == '/';
            const char *name = p + 1 + closing;
            size_t nl = 0;
            while (xml_name_char(name[nl]))
                nl++;
            if (nl == 0)
                XML_FAIL("bad tag name");
            if (!closing && depth == 0 && seen_root)
                XML_FAIL("second root element");
            p = name + nl;
            if (closing) {
                if (depth == 0 || lens[depth - 1] != nl || strncmp(stack[depth - 1], name, nl))
                    XML_FAIL("misnested closing tag");
                depth--;
                if (*p != '>')
                    XML_FAIL("bad closing tag");
                p++;
                continue;
            }
            for (;;) { /* attributes */
                while (*p == ' ' || *p == '\n' || *p == '\t')
                    p++;
                if (*p == '>' || (*p == '/' && p[1] == '>'))
                    break;
                size_t an = 0;
                while (xml_name_char(p[an]))
                    an++;
                if (an == 0 || p[an] != '=' || p[an + 1] != '"')
                    XML_FAIL("bad attribute");
                p += an + 2;
                while (*p != '"') {
                    if (p >= end || *p == '<')
                        XML_FAIL("'<' or end in an attribute value");
                    if (*p == '&') {
                        size_t e = xml_entity(p);
                        if (!e)
                            XML_FAIL("bare '&' in an attribute value");
                        p += e;
                    } else {
                        p++;
                    }
                }
                p++;
            }
            seen_root = true;
            if (*p == '/') {
                p += 2;
                continue;
            }
            if (depth == DEPTH)
                XML_FAIL("too deep");
            stack[depth] = name;
            lens[depth++] = nl;
            p++;
        } else if (*p == '&') {
            size_t e = xml_entity(p);
            if (!e)
                XML_FAIL("bare '&' in text");
            p += e;
        } else {
            if (depth == 0 && !isspace((unsigned char)*p))
                XML_FAIL("text outside the root");
            p++;
        }
    }
#undef XML_FAIL
    if (depth != 0 || !seen_root) {
        snprintf(why, why_len, "%zu elements left open", depth);
        return false;
    }
    return true;
}

/* Whether a printed number went non-finite: "nan" or "inf" (not the "inf" of "infersim"). */
static inline bool xml_has_nonfinite(const char *doc)
{
    if (strstr(doc, "nan") || strstr(doc, "NaN"))
        return true;
    for (const char *p = strstr(doc, "inf"); p; p = strstr(p + 1, "inf"))
        if (strncmp(p, "infersim", 8) != 0)
            return true;
    return false;
}

/* Start tags <tag ...> in doc whose class attribute is `cls` (NULL: any tag of that name). */
static inline int xml_count(const char *doc, const char *tag, const char *cls)
{
    char open[64], want[96];
    snprintf(open, sizeof open, "<%s ", tag);
    snprintf(want, sizeof want, "class=\"%s\"", cls ? cls : "");
    int n = 0;
    for (const char *p = strstr(doc, open); p; p = strstr(p + 1, open)) {
        const char *gt = strchr(p, '>');
        if (!cls) {
            n++;
            continue;
        }
        const char *c = strstr(p, want);
        n += c && gt && c < gt;
    }
    return n;
}

#endif
