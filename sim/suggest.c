/* suggest.c - the nearest names for "did you mean" (suggest.h). */
#define _POSIX_C_SOURCE 200809L
#include "suggest.h"

#include <stdio.h>
#include <string.h>

static char fold(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

size_t sim_suggest_distance(const char *a, const char *b)
{
    enum { N = SIM_SUGGEST_NAME_MAX };
    size_t la = strnlen(a, N - 1), lb = strnlen(b, N - 1);
    /* three rows of the (la+1) x (lb+1) table: i-2, i-1, i */
    size_t row[3][N];
    for (size_t j = 0; j <= lb; j++)
        row[0][j] = j; /* row i lives in row[i % 3] */
    for (size_t i = 1; i <= la; i++) {
        size_t *cur = row[i % 3], *prev = row[(i + 2) % 3], *prev2 = row[(i + 1) % 3];
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
            size_t d = prev[j] + 1; /* deletion */
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1; /* insertion */
            if (prev[j - 1] + cost < d)
                d = prev[j - 1] + cost; /* substitution */
            if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) &&
                fold(a[i - 2]) == fold(b[j - 1]) && prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1; /* swap of neighbours */
            cur[j] = d;
        }
    }
    return row[la % 3][lb];
}

size_t sim_suggest_limit(const char *name) { return strlen(name) <= 4 ? 1 : 2; }

void sim_suggest_init(sim_suggest *s, const char *name)
{
    *s = (sim_suggest){.name = name, .best = (size_t)-1};
}

static bool prefix_ci(const char *p, const char *s)
{
    for (; *p; p++, s++)
        if (fold(*p) != fold(*s))
            return false;
    return true;
}

static bool equal_ci(const char *a, const char *b)
{
    return strlen(a) == strlen(b) && prefix_ci(a, b);
}

static void keep(sim_suggest *s, const char *cand, bool prefix, size_t d)
{
    /* a prefix match beats any distance (an equal-but-case one beats a prefix: distance 0 vs 1);
     * then the smaller distance wins; ties are all kept */
    if (s->n_tied && (s->prefix > prefix || (s->prefix == prefix && d > s->best)))
        return;
    if (!s->n_tied || s->prefix != prefix || d < s->best) {
        s->prefix = prefix;
        s->best = d;
        s->n_keep = s->n_tied = 0;
    }
    for (size_t i = 0; i < s->n_keep; i++)
        if (strcmp(s->keep[i], cand) == 0)
            return; /* offered twice (several profiles of one engine) */
    if (s->n_keep < SIM_SUGGEST_KEEP)
        snprintf(s->keep[s->n_keep++], SIM_SUGGEST_NAME_MAX, "%s", cand);
    s->n_tied++;
}

void sim_suggest_add(sim_suggest *s, const char *cand)
{
    size_t lc = strlen(cand), ln = strlen(s->name);
    if (lc >= SIM_SUGGEST_NAME_MAX || ln == 0 || strcmp(cand, s->name) == 0)
        return;
    if (equal_ci(s->name, cand)) {
        if (s->n_ci && strcmp(s->ci, cand) == 0)
            return; /* offered twice */
        if (s->n_ci++ == 0)
            snprintf(s->ci, sizeof s->ci, "%s", cand);
        keep(s, cand, true, 0);
        return;
    }
    /* a prefix of at least 3 characters ("h1" names no device) */
    if (ln >= 3 && ln < lc && prefix_ci(s->name, cand)) {
        keep(s, cand, true, 1);
        return;
    }
    size_t d = sim_suggest_distance(s->name, cand);
    if (d <= sim_suggest_limit(s->name) && d < ln)
        keep(s, cand, false, d);
}

const char *sim_suggest_case_match(const sim_suggest *s) { return s->n_ci == 1 ? s->ci : NULL; }

bool sim_suggest_text(const sim_suggest *s, char *out, size_t len)
{
    if (len)
        out[0] = '\0';
    if (!s->n_tied || !len)
        return false;
    size_t used = 0;
    for (size_t i = 0; i < s->n_keep && used < len; i++) {
        const char *sep = i == 0                                           ? ""
                          : (i + 1 == s->n_keep && s->n_tied == s->n_keep) ? " or "
                                                                           : ", ";
        int w = snprintf(out + used, len - used, "%s%s", sep, s->keep[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (s->n_tied > s->n_keep && used < len)
        snprintf(out + used, len - used, ", ...");
    return true;
}
