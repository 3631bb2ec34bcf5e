/* test_suggest.c - the edit distance and the "did you mean" pick, against distances worked out by
 * hand. */
#include "testutil.h"

#include "suggest.h"

static void test_distance(void **state)
{
    (void)state;
    /* equal, and equal up to case: 0 */
    assert_int_equal(sim_suggest_distance("vllm", "vllm"), 0);
    assert_int_equal(sim_suggest_distance("H100-SXM", "h100-sxm"), 0);
    /* empty against "abc": three insertions */
    assert_int_equal(sim_suggest_distance("", "abc"), 3);
    assert_int_equal(sim_suggest_distance("abc", ""), 3);
    /* "vlm" -> "vllm": insert one l */
    assert_int_equal(sim_suggest_distance("vlm", "vllm"), 1);
    /* "--num-prompt" -> "--num-prompts": insert the s */
    assert_int_equal(sim_suggest_distance("--num-prompt", "--num-prompts"), 1);
    /* "sgalng" -> "sglang": the neighbours a,l swapped: one transposition (Levenshtein says 2) */
    assert_int_equal(sim_suggest_distance("sgalng", "sglang"), 1);
    /* "kitten" -> "sitting": k->s, e->i, insert g = 3 (the textbook case) */
    assert_int_equal(sim_suggest_distance("kitten", "sitting"), 3);
    /* "ca" -> "abc": OSA is 3 (the swap ca->ac cannot then take an insertion between; true
     * Damerau-Levenshtein would say 2) */
    assert_int_equal(sim_suggest_distance("ca", "abc"), 3);
    /* "h20" -> "h100": h=h; 2->1 substitute; insert 0; 0=0: 2 */
    assert_int_equal(sim_suggest_distance("h20", "h100"), 2);
    /* "fp8" -> "bf16": f->b? align: insert b, f=f, 8->1, insert 6 = 3 */
    assert_int_equal(sim_suggest_distance("fp8", "bf16"), 3);
    /* limits: up to 4 characters one edit, beyond two */
    assert_int_equal(sim_suggest_limit("vlm"), 1);
    assert_int_equal(sim_suggest_limit("fp16"), 1);
    assert_int_equal(sim_suggest_limit("sglng"), 2);
}

static void pick(const char *name, const char *const *cands, const char *want, const char *ci)
{
    sim_suggest s;
    sim_suggest_init(&s, name);
    for (size_t i = 0; cands[i]; i++)
        sim_suggest_add(&s, cands[i]);
    char out[128];
    bool any = sim_suggest_text(&s, out, sizeof out);
    assert_int_equal(any, want != NULL);
    assert_string_equal(out, want ? want : "");
    if (ci)
        assert_string_equal(sim_suggest_case_match(&s), ci);
    else
        assert_null(sim_suggest_case_match(&s));
}

static void test_pick(void **state)
{
    (void)state;
    const char *const engines[] = {"sglang", "trtllm", "vllm", NULL};
    pick("vlm", engines, "vllm", NULL);
    pick("vLLM", engines, "vllm", "vllm");
    pick("SGLang", engines, "sglang", "sglang");
    pick("sgalng", engines, "sglang", NULL);
    pick("tensorrt", engines, NULL, NULL); /* 6 edits from trtllm */
    /* one engine offered once per profile: still one case match, named once */
    const char *const profiles[] = {"vllm", "vllm", "sglang", "vllm", NULL};
    pick("VLLM", profiles, "vllm", "vllm");
    pick("vlm", profiles, "vllm", NULL);
    const char *const hw[] = {"h100-pcie", "h100-sxm", "h20", "h200", "a100-sxm-80gb", NULL};
    /* a prefix beats h20 and h200 (distance 2 and 1): every prefix match is named */
    pick("h100", hw, "h100-pcie or h100-sxm", NULL);
    pick("H100-SXM", hw, "h100-sxm", "h100-sxm");
    pick("h100-sx", hw, "h100-sxm", NULL);
    pick("a100", hw, "a100-sxm-80gb", NULL);
    /* "h30" is one from h20 only (h200 is two; limit 1 at three characters) */
    pick("h30", hw, "h20", NULL);
    pick("b200", hw, "h200", NULL);
    /* too short for a prefix, too far for a distance */
    pick("h1", hw, NULL, NULL);
    /* two names equal up to case: no case match, both suggested */
    const char *const twins[] = {"Ab", "aB", NULL};
    pick("ab", twins, "Ab or aB", NULL);
    /* more ties than kept: four named, then "..." */
    const char *const many[] = {"xa1", "xa2", "xa3", "xa4", "xa5", NULL};
    pick("xa", many, "xa1, xa2, xa3, xa4, ...", NULL);
    /* flags */
    const char *const flags[] = {"--num-prompts", "--request-rate", "--max-concurrency", NULL};
    pick("--num-prompt", flags, "--num-prompts", NULL);
    pick("--Request-Rate", flags, "--request-rate", "--request-rate");
    pick("--bogus", flags, NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_pick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
