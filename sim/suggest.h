/* suggest.h - names that forgive: the name a user most likely meant, for a one-line
 * "did you mean X?" and for a case-insensitive match of a data name.
 *
 * The distance is the optimal string alignment distance (Damerau-Levenshtein restricted to
 * non-overlapping edits: an insertion, a deletion, a substitution or a swap of two neighbours each
 * cost 1), with ASCII letters compared case-folded. A candidate is a near miss when its distance
 * is at most sim_suggest_limit(name) (1 for names of up to 4 characters, 2 beyond: "vlm" is one
 * from "vllm", "--num-prompt" one from "--num-prompts"), or when the name is a prefix of it
 * ("h100" of "h100-sxm", for names of 3 characters or more). A name equal up to case beats a
 * prefix, a prefix beats a distance, a smaller distance a larger one; every prefix match ties, and
 * tied candidates are all named ("h100-pcie or h100-sxm").
 *
 * Nothing here keeps state beyond the caller's sim_suggest; pure and safe from any thread.
 *
 * Example:
 *     sim_suggest s;
 *     sim_suggest_init(&s, "vlm");
 *     sim_suggest_add(&s, "sglang");
 *     sim_suggest_add(&s, "vllm");
 *     char msg[128];
 *     if (sim_suggest_text(&s, msg, sizeof msg)) {
 *         // msg == "vllm"
 *     }
 */
#ifndef SIM_SUGGEST_H
#define SIM_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

#define SIM_SUGGEST_NAME_MAX 64 /* longer candidates are skipped */
#define SIM_SUGGEST_KEEP 4      /* tied candidates named at most */

/* The OSA distance between a and b, letters case-folded (see above). Names longer than
 * SIM_SUGGEST_NAME_MAX - 1 characters are compared on their first SIM_SUGGEST_NAME_MAX - 1. */
size_t sim_suggest_distance(const char *a, const char *b);

/* The largest distance at which a candidate still counts as a near miss of `name`. */
size_t sim_suggest_limit(const char *name);

typedef struct {
    const char *name;              /* what was given (not copied: keep it alive) */
    char ci[SIM_SUGGEST_NAME_MAX]; /* the candidate equal to name up to case, if exactly one */
    size_t n_ci;                   /* how many candidates equal name up to case */
    bool prefix;                   /* the kept candidates are prefix matches */
    size_t best;                   /* their distance (prefix: 0 equal up to case, else 1) */
    char keep[SIM_SUGGEST_KEEP][SIM_SUGGEST_NAME_MAX];
    size_t n_keep; /* tied candidates kept (at most SIM_SUGGEST_KEEP) */
    size_t n_tied; /* tied candidates seen */
} sim_suggest;

void sim_suggest_init(sim_suggest *s, const char *name);

/* Offers one candidate. An exact (case-sensitive) match is ignored (the caller had found it), and
 * so is a candidate offered again. */
void sim_suggest_add(sim_suggest *s, const char *cand);

/* The unique candidate equal to the name up to case, or NULL (none, or several). */
const char *sim_suggest_case_match(const sim_suggest *s);

/* The suggestion as text ("vllm"; "h100-pcie or h100-sxm"; "a, b, c or d"; more tied than kept
 * end in ", ..."), into out. False (out empty) when no candidate is near. */
bool sim_suggest_text(const sim_suggest *s, char *out, size_t len);

#endif
