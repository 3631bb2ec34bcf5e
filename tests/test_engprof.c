/* test_engprof.c - the shipped engine profiles load, say what differs, and bad ones are refused
 * with one message naming the file and field. */
#include "testutil.h"

#include "engprof.h"

static sim_engprof load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hw/engines/%s.json", tu_root(), name);
    sim_engprof p;
    sim_err err = {{0}};
    if (sim_engprof_load(path, &p, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    return p;
}

static void test_shipped_profiles(void **state)
{
    (void)state;
    sim_engprof v = load("vllm"), v0 = load("vllm-v0"), sg = load("sglang"), tr = load("trtllm"),
                hf = load("hf");
    /* vLLM: 0.9 of all HBM, 16-token blocks, async scheduling now, synchronous in V0 */
    assert_int_equal(v.mem_rule, SIM_MEM_OF_TOTAL);
    assert_near(v.mem_fraction, 0.9, 1e-12);
    assert_int_equal(v.block_size, 16);
    assert_true(v.async_scheduling);
    assert_false(v0.async_scheduling);
    assert_true(v.prefix_caching);
    assert_string_equal(v.name, "vllm");
    /* SGLang: token pages, its own scheduler with the 0.7 -> 0.098 new-token ratio */
    assert_int_equal(sg.block_size, 1);
    assert_int_equal(sg.policy, SIM_POLICY_SGLANG);
    assert_near(sg.ratio_init, 0.7, 1e-12);
    assert_near(sg.ratio_min, 0.7 * 0.14, 1e-9);
    /* TensorRT-LLM: a fraction of the free memory, never evicts, 32-token blocks */
    assert_int_equal(tr.mem_rule, SIM_MEM_OF_FREE);
    assert_int_equal(tr.policy, SIM_POLICY_NO_EVICT);
    assert_int_equal(tr.block_size, 32);
    /* Hugging Face: static batches, eager, per-layer Python */
    assert_int_equal(hf.policy, SIM_POLICY_STATIC);
    assert_false(hf.cuda_graphs);
    assert_true(hf.layer_overhead_us > 0.0);
    assert_false(hf.prefix_caching);
}

/* Each profile's all-reduce, all-reduce + RMSNorm fusion and length limits (the sources are in
 * the files): the engines' custom all-reduce (auto) except Hugging Face's plain NCCL; only the
 * current TensorRT-LLM fuses the norm into the all-reduce by default; only TensorRT-LLM 0.11's
 * engine build caps the prompt (max_input_len 1024); every context limit is the model's own. */
static void test_collectives_and_limits(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        sim_coll_algo allreduce;
        bool fuse;
        int64_t max_input_len;
    } want[] = {
        {"vllm", SIM_COLL_AUTO, false, 0},           {"vllm-v0", SIM_COLL_AUTO, false, 0},
        {"sglang", SIM_COLL_AUTO, false, 0},         {"trtllm", SIM_COLL_AUTO, true, 0},
        {"trtllm-0.11", SIM_COLL_AUTO, false, 1024}, {"hf", SIM_COLL_NCCL, false, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        sim_engprof p = load(want[i].name);
        assert_int_equal(p.allreduce, want[i].allreduce);
        assert_int_equal(p.fuse_allreduce_norm, want[i].fuse);
        assert_int_equal(p.max_input_len, want[i].max_input_len);
        assert_int_equal(p.max_model_len, 0);
    }
}

static void expect_bad(const char *json, const char *needle)
{
    const char *path = tu_write_tmp(json);
    sim_engprof p;
    sim_err err = {{0}};
    assert_int_equal(sim_engprof_load(path, &p, &err), SIM_EINPUT);
    if (!strstr(err.msg, needle) || !strstr(err.msg, path)) {
        print_error("message '%s' lacks '%s' or the path\n", err.msg, needle);
        fail();
    }
}

static void test_bad_profiles(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/hw/engines/vllm.json", tu_root());
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char good[16384];
    size_t n = fread(good, 1, sizeof good - 1, f);
    good[n] = '\0';
    fclose(f);
    /* each edit breaks one thing; the message names that field */
    static const struct {
        const char *from, *to, *needle;
    } edits[] = {
        {"\"fraction\": 0.9", "\"fraction\": 1.5", "memory.fraction"},
        {"\"policy\": \"vllm\"", "\"policy\": \"lifo\"", "scheduler.policy"},
        {"\"rule\": \"total\"", "\"rule\": \"half\"", "memory.rule"},
        {"\"block_size\": \"", "\"block_size_x\": \"", "sources.block_size"},
        {"\"prefix_caching\": true", "\"prefix_caching\": 1", "prefix_caching"},
        {"\"allreduce\": \"auto\"", "\"allreduce\": \"fastest\"", "collectives.allreduce"},
        {"\"fuse_allreduce_norm\": false", "\"fuse_allreduce_norm\": \"no\"",
         "collectives.fuse_allreduce_norm"},
        {"\"max_input_len\": 0", "\"max_input_len\": -1", "limits.max_input_len"},
        {"\"collectives.allreduce\": \"", "\"collectives.algo\": \"",
         "sources.collectives.allreduce"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        static char bad[16384];
        const char *at = strstr(good, edits[i].from);
        assert_non_null(at);
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - good), good, edits[i].to,
                 at + strlen(edits[i].from));
        expect_bad(bad, edits[i].needle);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_profiles),
        cmocka_unit_test(test_collectives_and_limits),
        cmocka_unit_test(test_bad_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
