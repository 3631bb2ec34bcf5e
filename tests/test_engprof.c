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
    /* vLLM's small-kernel floors per launch in a graph (kfloor.h); none in SGLang's profile */
    assert_near(v.kfloor.in_graph_ns[SIM_KFLOOR_NORM], 5530.0, 1e-9);
    assert_near(v.kfloor.in_graph_ns[SIM_KFLOOR_QUANT], 3100.0, 1e-9);
    assert_near(v.kfloor.in_graph_ns[SIM_KFLOOR_TOPK], 8500.0, 1e-9);
    assert_near(sg.kfloor.in_graph_ns[SIM_KFLOOR_NORM], 0.0, 0);
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
    /* the experts' kernel family: fused_moe (Triton) for vLLM and SGLang, CUTLASS's grouped GEMM
     * for TensorRT-LLM */
    assert_int_equal(v.moe_kernel, SIM_MOE_TRITON);
    assert_int_equal(sg.moe_kernel, SIM_MOE_TRITON);
    assert_int_equal(tr.moe_kernel, SIM_MOE_CUTLASS);
    /* the front end: one API server at 3 ms + 1 us a prompt token, 15 + 25 us a streamed token;
     * SGLang streams its first token with the first chunk, vLLM alone; none for offline hf */
    assert_int_equal(v.fe_processes, 1);
    assert_near(v.fe_request_us, 3000.0, 0);
    assert_near(v.fe_input_token_us, 1.0, 0);
    assert_near(v.fe_output_token_us + v.fe_chunk_us, 40.0, 0);
    assert_int_equal(v.fe_stream_interval, 1);
    assert_true(v.fe_first_token_alone && v.fe_on);
    assert_false(sg.fe_first_token_alone);
    assert_near(v0.fe_output_token_us, 0.0, 0); /* V0 detokenizes in the engine's step */
    assert_near(hf.fe_request_us + hf.fe_output_token_us + hf.fe_chunk_us, 0.0, 0);
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

/* The profile as the engine sets itself up on a device at a TP size: the rules, then (no flag
 * giving a fraction) the memory reserve. */
static sim_engprof on_device(const char *name, const char *hw_name, int64_t tp)
{
    sim_engprof p = load(name);
    sim_hw hw = tu_hw(hw_name);
    sim_engprof_for_device(&p, &hw, tp);
    sim_engprof_apply_reserve(&p, &hw, tp, 1);
    return p;
}

/* vLLM (EngineArgs.get_batch_defaults, OpenAI server): >= 70 GiB and not an A100 gets 1024
 * sequences / 8192 tokens; A100 and smaller GPUs 256 / 2048; TPU v6e 1024 tokens. The memory
 * fraction (no reserve rule) stays 0.9. */
static void test_vllm_device_rules(void **state)
{
    (void)state;
    static const struct {
        const char *hw;
        int64_t seqs, tokens;
    } want[] = {
        {"h100-sxm", 1024, 8192},     /* 79.6 GiB, no 'a100' */
        {"h200", 1024, 8192},         /* 140.4 GiB */
        {"mi300x", 1024, 8192},       /* 192 GiB */
        {"a100-sxm-80gb", 256, 2048}, /* 80 GiB but an A100 (vLLM PR #17885) */
        {"a100-sxm-40gb", 256, 2048}, /* 40 GiB */
        {"l40s", 256, 2048},          /* 45 GiB */
        {"tpu-v6e", 256, 1024},       /* 32 GiB; the v6e rule sets the tokens */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        sim_engprof p = on_device("vllm", want[i].hw, 1);
        assert_int_equal(p.max_num_seqs, want[i].seqs);
        assert_int_equal(p.max_num_batched_tokens, want[i].tokens);
        assert_near(p.mem_fraction, 0.9, 1e-12);
        assert_non_null(strstr(p.chosen, "scheduler.max_num_seqs="));
    }
    /* the legacy profile has no rules: the same values everywhere, nothing chosen */
    sim_engprof v0 = on_device("vllm-v0", "a100-sxm-40gb", 1);
    assert_int_equal(v0.max_num_seqs, 256);
    assert_int_equal(v0.max_num_batched_tokens, 8192);
    assert_string_equal(v0.chosen, "");
}

/* SGLang (server_args.py _handle_gpu_memory_settings): chunk and CUDA-graph batch by memory and
 * TP, then mem_fraction_static = round3((MiB - reserved) / MiB), reserved = 512 + 1.5 x
 * max(chunk, 2048) + 2 x graph_bs + 128 x tp (at least 10240 above 60 GiB). By hand:
 *   H100 (79.6 GiB = 81510.4 MiB) TP 1: 8192 / 256; 512 + 12288 + 512 + 128 = 13440;
 *     68070.4 / 81510.4 = 0.83511 -> 0.835
 *   H100 TP 8: 8192 / 512; 512 + 12288 + 1024 + 1024 = 14848; 66662.4 / 81510.4 = 0.81784 ->
 *     0.818
 *   A100 40GB (40960 MiB) TP 1: 4096 / 32; 512 + 6144 + 64 + 128 = 6848 (no floor at 40 GiB);
 *     34112 / 40960 = 0.83281 -> 0.833
 *   A100 40GB TP 4: 4096 / 160; 512 + 6144 + 320 + 512 = 7488; 33472 / 40960 = 0.81719 -> 0.817
 *   L4 (22.4 GiB = 22937.6 MiB) TP 1: 2048 / 24; 512 + 3072 + 48 + 128 = 3760;
 *     19177.6 / 22937.6 = 0.83608 -> 0.836
 *   B200 (179 GiB = 183296 MiB) TP 1: 16384 / 512; 512 + 24576 + 1024 + 128 = 26240;
 *     157056 / 183296 = 0.85684 -> 0.857
 *   H200 (140.4 GiB = 143769.6 MiB) TP 1: 8192 / 256; 13440; 130329.6 / 143769.6 = 0.90652 ->
 *     0.907
 *   H20 (95.58 GiB = 97873.92 MiB) TP 8: 8192 / 512; 14848; 83025.92 / 97873.92 = 0.84830 ->
 *     0.848 */
static void test_sglang_device_rules(void **state)
{
    (void)state;
    static const struct {
        const char *hw;
        int64_t tp, chunk, graph_bs;
        double fraction;
    } want[] = {
        {"h100-sxm", 1, 8192, 256, 0.835},
        {"h100-sxm", 8, 8192, 512, 0.818},
        {"a100-sxm-40gb", 1, 4096, 32, 0.833},
        {"a100-sxm-40gb", 4, 4096, 160, 0.817},
        {"l4", 1, 2048, 24, 0.836},
        {"b200", 1, 16384, 512, 0.857},
        {"h200", 1, 8192, 256, 0.907},
        {"h20", 8, 8192, 512, 0.848},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        sim_engprof p = on_device("sglang", want[i].hw, want[i].tp);
        assert_int_equal(p.max_num_batched_tokens, want[i].chunk);
        assert_int_equal(p.cuda_graph_max_bs, want[i].graph_bs);
        assert_near(p.mem_fraction, want[i].fraction, 1e-12);
        assert_non_null(strstr(p.chosen, "memory.fraction="));
    }
    /* a chunk size given on the command line (applied between the two) moves the reserve:
     * A100 40GB, 8192: 512 + 12288 + 64 + 128 = 12992; 27968 / 40960 = 0.68281 -> 0.683 */
    sim_engprof p = load("sglang");
    sim_hw hw = tu_hw("a100-sxm-40gb");
    sim_engprof_for_device(&p, &hw, 1);
    p.max_num_batched_tokens = 8192;
    assert_near(sim_engprof_reserve_fraction(&p, &hw, 1, 1), 0.683, 1e-12);
}

/* SGLang 0.4 (server_args.py of early 2025): the memory fraction by TP (0.88 at TP 1, 0.81 at
 * TP 8), chunk 8192 and CUDA graphs to batch 160 from 25,000 MiB, 2048 / 8 below; no reserve
 * rule; and 2 ms per iteration after the FlashInfer plan's wait on the device, which the current
 * profile does not charge (the field is optional: absent reads 0). */
static void test_sglang_04(void **state)
{
    (void)state;
    static const struct {
        const char *hw;
        int64_t tp, chunk, graph_bs;
        double fraction;
    } want[] = {
        {"a100-sxm-80gb", 1, 8192, 160, 0.88},
        {"h100-sxm", 8, 8192, 160, 0.81},
        {"l4", 1, 2048, 8, 0.88},
        {"l4", 4, 2048, 80, 0.85},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        sim_engprof p = on_device("sglang-0.4", want[i].hw, want[i].tp);
        assert_int_equal(p.max_num_batched_tokens, want[i].chunk);
        assert_int_equal(p.cuda_graph_max_bs, want[i].graph_bs);
        assert_near(p.mem_fraction, want[i].fraction, 1e-12);
        assert_false(p.reserve.on);
    }
    sim_engprof old = load("sglang-0.4"), cur = load("sglang");
    assert_near(old.sync_overhead_us, 2000.0, 1e-12);
    assert_true(old.async_scheduling);
    assert_near(cur.sync_overhead_us, 0.0, 0);
    /* SGLang dispatches an eager step's kernels from Python, 25 us each (the profiles' source);
     * a profile without the field (TensorRT-LLM's C++ runtime) reads 0 */
    assert_near(old.eager_kernel_cpu_us, 25.0, 1e-12);
    assert_near(cur.eager_kernel_cpu_us, 25.0, 1e-12);
    assert_near(load("trtllm").eager_kernel_cpu_us, 0.0, 0);
    /* vLLM's V1 graphs: piecewise through 0.10, whole decode steps from 0.11 (PR #25444), whole in
     * V0; the others' absent field reads false */
    assert_true(load("vllm-0.8").piecewise_graphs && load("vllm-0.10").piecewise_graphs &&
                load("vllm-rocm-0.10").piecewise_graphs);
    assert_false(load("vllm-0.11").piecewise_graphs || load("vllm").piecewise_graphs ||
                 load("vllm-v0").piecewise_graphs || load("sglang").piecewise_graphs ||
                 load("trtllm").piecewise_graphs);
    /* q/k norm + RoPE in one kernel: TensorRT-LLM 1.x's QKNormRoPEAttention (fuse_qk_norm_rope
     * True); vLLM's pass (enable_qk_norm_rope_fusion) is off by default, SGLang 0.5 and the older
     * TensorRT-LLM runtimes read false */
    assert_true(load("trtllm").fuse_qk_norm_rope);
    assert_false(load("vllm").fuse_qk_norm_rope || load("sglang").fuse_qk_norm_rope ||
                 load("trtllm-0.14").fuse_qk_norm_rope);
}

/* Releases: the numbers, missing parts 0, what follows ignored (0.4.6.post2 is 0.4.6, 1.2.0rc4 is
 * 1.2.0); 0.9 is older than 0.10 (parts compare as numbers, not text). */
static void test_versions(void **state)
{
    (void)state;
    sim_engprof_version v, w;
    assert_true(sim_engprof_version_parse("0.10.2", &v));
    assert_true(v.part[0] == 0 && v.part[1] == 10 && v.part[2] == 2 && v.part[3] == 0);
    assert_true(sim_engprof_version_parse("0.4.6.post2", &v));
    assert_true(v.part[1] == 4 && v.part[2] == 6 && v.part[3] == 0);
    assert_true(sim_engprof_version_parse("1.2.0rc4", &v));
    assert_true(v.part[0] == 1 && v.part[1] == 2 && v.part[2] == 0);
    assert_true(sim_engprof_version_parse("0.10", &v) && sim_engprof_version_parse("0.10.0", &w));
    assert_int_equal(sim_engprof_version_cmp(&v, &w), 0);
    assert_true(sim_engprof_version_parse("0.9.2", &w));
    assert_true(sim_engprof_version_cmp(&w, &v) < 0 && sim_engprof_version_cmp(&v, &w) > 0);
    assert_false(sim_engprof_version_parse("x1", &v));
    assert_false(sim_engprof_version_parse("", &v));
    assert_false(sim_engprof_version_parse(".1", &v));
    assert_false(sim_engprof_version_parse("1234567", &v)); /* a part past 999999 */
}

static bool holds(const char *range, const char *version)
{
    sim_engprof_range r;
    sim_engprof_version v;
    sim_err err = {{0}};
    assert_int_equal(sim_engprof_range_parse(range, "p.json", &r, &err), SIM_OK);
    assert_true(sim_engprof_version_parse(version, &v));
    return sim_engprof_range_holds(&r, &v);
}

/* Ranges: every comparator must hold; the bounds as written (>= holds its release, < does not). */
static void test_ranges(void **state)
{
    (void)state;
    assert_true(holds(">=0.10,<0.12", "0.10"));
    assert_true(holds(">=0.10,<0.12", "0.11.9"));
    assert_false(holds(">=0.10,<0.12", "0.12"));
    assert_false(holds(">=0.10,<0.12", "0.9.9"));
    assert_true(holds(">= 0.13 , < 0.14", "0.13.0"));
    assert_true(holds("==0.13", "0.13.0.post1"));
    assert_false(holds("==0.13", "0.13.1"));
    assert_true(holds(">0.5,<=0.6", "0.6"));
    assert_false(holds(">0.5,<=0.6", "0.5"));
    assert_true(holds(">=0.12", "7.0"));
    static const char *const bad[] = {
        "", ">0.1,", "~0.1", ">=a", "0.1", ">=0.1;<0.2", ">=0.1,<0.2,<0.3,<0.4,<0.5", ">=0.1rc1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sim_engprof_range r;
        sim_err err = {{0}};
        assert_int_equal(sim_engprof_range_parse(bad[i], "p.json", &r, &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, "p.json: field 'versions'"));
    }
}

/* Profiles built by hand: one engine with three CUDA ranges and a ROCm one, another with one
 * profile for any platform. */
static sim_engprof fake(const char *name, const char *engine, const char *versions,
                        sim_engprof_platform plat)
{
    sim_engprof p;
    memset(&p, 0, sizeof p);
    sim_err err = {{0}};
    snprintf(p.name, sizeof p.name, "%s", name);
    snprintf(p.engine, sizeof p.engine, "%s", engine);
    snprintf(p.versions, sizeof p.versions, "%s", versions);
    assert_int_equal(sim_engprof_range_parse(versions, name, &p.range, &err), SIM_OK);
    p.platform = plat;
    return p;
}

static const char *pick(const sim_engprof *p, size_t n, const char *spec, sim_engprof_platform on)
{
    size_t k = n;
    sim_err err = {{0}};
    sim_status st = sim_engprof_pick(p, n, spec, on, "--engine", &k, &err);
    return st ? NULL : p[k].name;
}

/* By hand: e@0.9 holds only in e-old (>=0.5,<1.0); e@1.5 in e-mid; e@2.3 in e-new (>=2); on ROCm
 * e@1.5 takes e-rocm (>=1,<2, the device's own build) and e@0.9 falls back to the CUDA e-old; a
 * bare e is the greatest lower bound, e-new on CUDA, e-rocm on ROCm; a rocm profile is never
 * picked for a CUDA device; 'any' serves both. */
static void test_pick(void **state)
{
    (void)state;
    const sim_engprof p[] = {
        fake("e-new", "e", ">=2", SIM_ENGPROF_CUDA),
        fake("e-old", "e", ">=0.5,<1.0", SIM_ENGPROF_CUDA),
        fake("e-mid", "e", ">=1.0,<2", SIM_ENGPROF_CUDA),
        fake("e-rocm", "e", ">=1,<2", SIM_ENGPROF_ROCM),
        fake("f", "f", ">=3", SIM_ENGPROF_ANY),
    };
    const size_t n = sizeof p / sizeof p[0];
    assert_string_equal(pick(p, n, "e@0.9", SIM_ENGPROF_CUDA), "e-old");
    assert_string_equal(pick(p, n, "e@1.5", SIM_ENGPROF_CUDA), "e-mid");
    assert_string_equal(pick(p, n, "e@2.3", SIM_ENGPROF_CUDA), "e-new");
    assert_string_equal(pick(p, n, "e@1.5", SIM_ENGPROF_ROCM), "e-rocm");
    assert_string_equal(pick(p, n, "e@0.9", SIM_ENGPROF_ROCM), "e-old");
    assert_string_equal(pick(p, n, "e", SIM_ENGPROF_CUDA), "e-new");
    assert_string_equal(pick(p, n, "e", SIM_ENGPROF_ROCM), "e-rocm");
    assert_string_equal(pick(p, n, "f@3.1", SIM_ENGPROF_ROCM), "f");
    assert_string_equal(pick(p, n, "f", SIM_ENGPROF_CUDA), "f");
    /* refusals: the release, the version text, the engine; each names the known ranges */
    size_t k;
    sim_err err = {{0}};
    assert_int_equal(sim_engprof_pick(p, n, "e@0.3", SIM_ENGPROF_CUDA, "--engine", &k, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--engine: value 'e@0.3'"));
    assert_non_null(strstr(err.msg, "e-old >=0.5,<1.0 (cuda)"));
    assert_non_null(strstr(err.msg, "e-rocm >=1,<2 (rocm)"));
    assert_int_equal(sim_engprof_pick(p, n, "f@2", SIM_ENGPROF_CUDA, "--engine", &k, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "f >=3"));
    assert_int_equal(sim_engprof_pick(p, n, "e@next", SIM_ENGPROF_CUDA, "--engine", &k, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "version 'next'"));
    assert_int_equal(sim_engprof_pick(p, n, "g@1", SIM_ENGPROF_CUDA, "--engine", &k, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "expected one of: e, f"));
    assert_int_equal(sim_engprof_pick(p, n, "@1", SIM_ENGPROF_CUDA, "--engine", &k, &err),
                     SIM_EINPUT);
}

/* The shipped profiles: every release the issue names goes to the profile of its generation
 * (both platforms); no two profiles of one engine and platform share a release (each one's
 * lower bound holds in it alone); the bare name's file is its engine's newest CUDA profile. */
static void test_shipped_versions(void **state)
{
    (void)state;
    static const char *const names[] = {
        "vllm-v0",     "vllm-v0-rocm", "vllm-0.8", "vllm-0.9", "vllm-0.11", "vllm-rocm-0.10", "vllm-0.10",     "vllm",
        "vllm-rocm",   "sglang-0.4",   "sglang",   "sglang-rocm",   "trtllm-0.11",
        "trtllm-0.13", "trtllm-0.14",  "trtllm",   "trtllm-triton", "hf", "trtllm-triton-0.11",
        "trtllm-triton-0.13"};
    enum { N = sizeof names / sizeof names[0] };
    sim_engprof p[N];
    for (size_t i = 0; i < N; i++)
        p[i] = load(names[i]);
    static const struct {
        const char *spec, *cuda, *rocm;
    } want[] = {
        {"vllm@0.6.3", "vllm-v0", "vllm-v0-rocm"},
        {"vllm@0.8.5", "vllm-0.8", "vllm-0.8"},
        {"vllm@0.9.2", "vllm-0.9", "vllm-0.9"},
        {"vllm@0.10.2", "vllm-0.10", "vllm-rocm-0.10"},
        {"vllm@0.11.0", "vllm-0.11", "vllm-rocm"},
        {"vllm@0.12.0", "vllm", "vllm"},
        {"sglang@0.4.6.post2", "sglang-0.4", "sglang-0.4"},
        {"sglang@0.5.4", "sglang", "sglang-rocm"},
        {"trtllm@0.11", "trtllm-0.11", "trtllm-0.11"},
        {"trtllm@0.12.0", "trtllm-0.11", "trtllm-0.11"},
        {"trtllm@0.13", "trtllm-0.13", "trtllm-0.13"},
        {"trtllm@0.14", "trtllm-0.14", "trtllm-0.14"},
        {"trtllm@0.17", "trtllm-0.14", "trtllm-0.14"},
        {"trtllm@1.0", "trtllm", "trtllm"},
        {"trtllm@1.2.0rc4", "trtllm", "trtllm"},
        {"trtllm-triton@0.17", "trtllm-triton", "trtllm-triton"},
        {"trtllm-triton@0.11", "trtllm-triton-0.11", "trtllm-triton-0.11"},
        {"trtllm-triton@0.13.0", "trtllm-triton-0.13", "trtllm-triton-0.13"},
        {"vllm", "vllm", "vllm-rocm"},
        {"sglang", "sglang", "sglang-rocm"},
        {"trtllm", "trtllm", "trtllm"},
        {"hf@4.45", "hf", "hf"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *c = pick(p, N, want[i].spec, SIM_ENGPROF_CUDA);
        const char *r = pick(p, N, want[i].spec, SIM_ENGPROF_ROCM);
        if (!c || !r || strcmp(c, want[i].cuda) != 0 || strcmp(r, want[i].rocm) != 0) {
            print_error("%s: %s / %s, expected %s / %s\n", want[i].spec, c ? c : "-", r ? r : "-",
                        want[i].cuda, want[i].rocm);
            fail();
        }
    }
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) {
            sim_engprof_version lo = p[i].range.v[0]; /* each file's first comparator is >= */
            assert_string_equal(p[i].range.op[0], ">=");
            assert_true(sim_engprof_range_holds(&p[i].range, &lo));
            if (i != j && strcmp(p[i].engine, p[j].engine) == 0 && p[i].platform == p[j].platform &&
                sim_engprof_range_holds(&p[j].range, &lo)) {
                print_error("%s and %s both hold %s\n", p[i].name, p[j].name, p[i].versions);
                fail();
            }
        }
    /* a CUDA device never gets a ROCm profile: vllm@0.10.2 is vllm-0.10 there (above) */
    sim_hw h100 = tu_hw("h100-sxm"), mi300 = tu_hw("mi300x");
    assert_int_equal(sim_engprof_device_platform(&h100), SIM_ENGPROF_CUDA);
    assert_int_equal(sim_engprof_device_platform(&mi300), SIM_ENGPROF_ROCM);
}

/* A benchmark's own name for its engine as a spec: the framework column of validation rows and
 * a result file's backend. */
static void test_spec_of(void **state)
{
    (void)state;
    static const struct {
        const char *text, *version, *spec;
    } want[] = {
        {"vLLM 0.10.2 (--async-scheduling -tp 2, vllm bench serve random, rate inf)", NULL,
         "vllm@0.10.2"},
        {"vLLM ~0.5/0.6 (benchmark_latency/throughput, offline)", NULL, "vllm@0.5"},
        {"vLLM nightly as of the recipe", NULL, "vllm"},
        {"SGLang 0.4.6.post2 (bench_serving)", NULL, "sglang@0.4.6"},
        {"TensorRT-LLM 0.11 (static batch, run.py)", NULL, "trtllm@0.11"},
        {"TensorRT-LLM 0.17 with Triton (tensorrtllm_backend)", NULL, "trtllm-triton@0.17"},
        {"TensorRT-LLM v1.0 (PyTorch backend)", NULL, "trtllm@1.0"},
        {"sglang-oai", "0.5.4", "sglang@0.5.4"},
        {"vllm", "0.11.0+rocm", "vllm@0.11.0"},
        {"vllm", NULL, "vllm"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char spec[64];
        assert_true(sim_engprof_spec_of(want[i].text, want[i].version, spec, sizeof spec));
        assert_string_equal(spec, want[i].spec);
    }
    char spec[64];
    assert_false(sim_engprof_spec_of("nccl-tests all_reduce_perf", NULL, spec, sizeof spec));
    assert_false(sim_engprof_spec_of("vllmx 1.0", NULL, spec, sizeof spec));
    assert_false(sim_engprof_spec_of("openai", "0.10", spec, sizeof spec));
    assert_false(sim_engprof_spec_of("vLLM 0.10.2", NULL, spec, 8)); /* too short */
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

/* The text of a shipped profile, whole (a file too long for buf fails the test). */
static void read_shipped(const char *name, char *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hw/engines/%s.json", tu_root(), name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    assert_true(feof(f));
    buf[n] = '\0';
    fclose(f);
}

/* SGLang 0.5 on SM100 runs an MLA model's quantized experts through FlashInfer's TRT-LLM MoE
 * (sglang#11816: the cutlass family here); on Hopper, and for every profile without the field,
 * the quantized experts keep moe.kernel. The name test: B200 and GB200 are SM100, the
 * workstation Blackwell (SM120) is not. A wrong kernel or a missing source is refused. */
static void test_moe_kernel_sm100(void **state)
{
    (void)state;
    static const struct {
        const char *profile, *hw;
        sim_moe_kernel want;
    } cases[] = {
        {"sglang", "b200", SIM_MOE_CUTLASS},
        {"sglang", "gb200", SIM_MOE_CUTLASS},
        {"sglang", "h200", SIM_MOE_TRITON},
        {"sglang", "rtx-pro-6000-blackwell", SIM_MOE_TRITON},
        {"sglang-0.4", "b200", SIM_MOE_TRITON},
        {"vllm", "b200", SIM_MOE_TRITON},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_engprof p = on_device(cases[i].profile, cases[i].hw, 8);
        assert_int_equal(p.moe_kernel, SIM_MOE_TRITON);
        assert_int_equal(p.moe_kernel_quantized, cases[i].want);
    }
    /* vLLM 0.10-0.11's mixed-input experts (mxfp4 / int4 under bf16 math) run Marlin's fused MoE
     * below SM100 (mxfp4.py get_mxfp4_backend: FlashInfer on SM100); later profiles and other
     * engines keep moe.kernel */
    static const struct {
        const char *profile, *hw;
        sim_moe_kernel want;
    } mixed[] = {
        {"vllm-0.11", "h100-sxm", SIM_MOE_TRITON}, {"vllm-0.11", "a100-sxm-80gb", SIM_MOE_TRITON},
        {"vllm-0.10", "h200", SIM_MOE_TRITON},     {"vllm-0.11", "b200", SIM_MOE_TRITON},
        {"vllm", "h100-sxm", SIM_MOE_TRITON},      {"sglang", "h100-sxm", SIM_MOE_TRITON},
    };
    for (size_t i = 0; i < sizeof mixed / sizeof mixed[0]; i++) {
        sim_engprof p = on_device(mixed[i].profile, mixed[i].hw, 1);
        assert_int_equal(p.moe_kernel, SIM_MOE_TRITON);
        assert_int_equal(p.moe_kernel_mixed, mixed[i].want);
    }
    /* the shipped profiles leave moe.kernel_mixed_input unset (README: the Hopper runs do not
     * say whether triton_kernels was installed); a profile that names marlin runs mixed-input
     * experts in it off SM100 (an H100: Marlin; a B200: moe.kernel), and an unknown family is
     * refused by the key's name */
    static char good[32768], bad[32768], with[32768];
    read_shipped("vllm-0.11", good, sizeof good);
    const char *kern = strstr(good, "\"kernel\": \"triton\"");
    assert_non_null(kern);
    const size_t cut = (size_t)(kern - good) + strlen("\"kernel\": \"triton\"");
    char named[32768];
    snprintf(named, sizeof named, "%.*s, \"kernel_mixed_input\": \"marlin\"%s", (int)cut, good,
             good + cut);
    const char *src = strstr(named, "\"sources\": {");
    assert_non_null(src);
    const size_t open = (size_t)(src - named) + strlen("\"sources\": {");
    snprintf(with, sizeof with, "%.*s\"moe.kernel_mixed_input\": \"a test's\", %s", (int)open,
             named, named + open);
    snprintf(bad, sizeof bad, "%.*s, \"kernel_mixed_input\": \"machete\"%s", (int)cut, good,
             good + cut);
    expect_bad(bad, "moe.kernel_mixed_input");
    static const char *const dev[] = {"h100-sxm", "b200"};
    static const sim_moe_kernel want[] = {SIM_MOE_MARLIN, SIM_MOE_TRITON};
    for (size_t i = 0; i < 2; i++) {
        sim_engprof p;
        sim_err err = {{0}};
        assert_int_equal(sim_engprof_load(tu_write_tmp(with), &p, &err), SIM_OK);
        sim_hw hw = tu_hw(dev[i]);
        sim_engprof_for_device(&p, &hw, 1);
        assert_int_equal(p.moe_kernel_mixed, want[i]);
    }
    read_shipped("sglang", good, sizeof good);
    static const struct {
        const char *from, *to, *needle;
    } edits[] = {
        {"\"kernel_sm100_mla_quantized\": \"cutlass\"", "\"kernel_sm100_mla_quantized\": \"cublas\"",
         "moe.kernel_sm100_mla_quantized"},
        {"\"moe.kernel_sm100_mla_quantized\": \"", "\"moe.kernel_sm100\": \"",
         "sources.moe.kernel_sm100_mla_quantized"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        const char *at = strstr(good, edits[i].from);
        assert_non_null(at);
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - good), good, edits[i].to,
                 at + strlen(edits[i].from));
        expect_bad(bad, edits[i].needle);
    }
}

#define X50 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

static void test_bad_profiles(void **state)
{
    (void)state;
    static char good[16384];
    read_shipped("vllm", good, sizeof good);
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
        {"\"hbm_gib_min\": 70", "\"hbm_gb_min\": 70", "rules[2].when.hbm_gb_min"},
        {"\"hbm_gib_min\": 70", "\"hbm_gib_min\": -1", "rules[2].when"},
        {"\"scheduler.max_num_seqs\": 256", "\"scheduler.max_seqs\": 256",
         "rules[3].set.scheduler.max_seqs"},
        {"\"scheduler.max_num_seqs\": 256", "\"scheduler.max_num_seqs\": 25.5",
         "rules[3].set.scheduler.max_num_seqs"},
        {"\"when\": {}", "\"when\": []", "rules[3].when"},
        {"\"scheduler.max_num_seqs\": 256", "\"scheduler.new_token_ratio_min\": 0.5",
         "rules[3].set.scheduler.new_token_ratio_min"},
        {"\"source\": \"TPU v6e", "\"origin\": \"TPU v6e", "rules[0].source"},
        {"\"name_has\": \"v6e\"", "\"name_has\": \"\"", "rules[0].when.name_has"},
        {"\"async_scheduling\": true", "\"sync_overhead_us\": -1, \"async_scheduling\": true",
         "host.sync_overhead_us"},
        {"\"async_scheduling\": true", "\"sync_overhead_us\": 5, \"async_scheduling\": true",
         "sources.host.sync_overhead_us"},
        {"\"async_scheduling\": true", "\"eager_kernel_cpu_us\": -1, \"async_scheduling\": true",
         "host.eager_kernel_cpu_us"},
        {"\"async_scheduling\": true", "\"eager_kernel_cpu_us\": 5, \"async_scheduling\": true",
         "sources.host.eager_kernel_cpu_us"},
        {"\"kernel\": \"triton\"", "\"kernel\": \"cublas\"", "moe.kernel"},
        {"\"moe.kernel\": \"", "\"moe.kern\": \"", "sources.moe.kernel"},
        {"\"processes\": 1", "\"processes\": 0", "frontend.processes"},
        {"\"stream_interval\": 1", "\"stream_interval\": 1.5", "frontend.stream_interval"},
        {"\"chunk_us\": 25", "\"chunk_us\": -25", "frontend.chunk_us"},
        {"\"first_token_alone\": true", "\"first_token_alone\": 1", "frontend.first_token_alone"},
        {"\"frontend.request_us\": \"", "\"frontend.request\": \"", "sources.frontend.request_us"},
        /* 200 more characters: a version too long for its 199 is refused, not cut */
        {"\"version\": \"", "\"version\": \"" X50 X50 X50 X50, "field 'version' is"},
        {"\"versions\": \">=0.12\"", "\"versions\": \"0.12+\"", "field 'versions'"},
        {"\"versions\": \">=0.12\",", "", "field 'versions' is missing"},
        {"\"engine\": \"vllm\"", "\"engine\": \"vLLM\"", "field 'engine'"},
        {"\"engine\": \"vllm\",", "", "field 'engine' is missing"},
        {"\"platform\": \"cuda\"", "\"platform\": \"metal\"", "field 'platform'"},
        {"\"piecewise\": false", "\"piecewise\": 0", "cuda_graphs.piecewise"},
        {"\"cuda_graphs.piecewise\": \"", "\"cuda_graphs.pw\": \"", "sources.cuda_graphs.piecewise"},
        {"\"versions\": \"vllm-project", "\"versions_x\": \"vllm-project", "sources.versions"},
        {"\"norm\": 5.53", "\"norm\": -1", "kernel_floor_us.norm"},
        {"\"topk\": 8.5", "\"topk\": \"fast\"", "kernel_floor_us.topk"},
        {"\"kernel_floor_us.quant\": \"", "\"kernel_floor_us.q\": \"", "sources.kernel_floor_us.quant"},
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

/* Issue 33 D10: an engine profile's keys that nothing reads were accepted silently. Every key
 * outside "sources" must be one the loader reads, and a rule holds only when, set and source;
 * every shipped profile still loads. */
static void test_unknown_profile_keys_refused(void **state)
{
    (void)state;
    char path[512];
    tu_snprintf(path, sizeof path, "%s/hw/engines/vllm.json", tu_root());
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    /* the shipped profile with one more key: a typo of a field, and an object nothing reads */
    char *brace = strchr(text, '{');
    assert_non_null(brace);
    static char edited[sizeof text + 64];
    snprintf(edited, sizeof edited, "{\"prefix_cashing\": false, %s", brace + 1);
    expect_bad(edited, "field 'prefix_cashing' is unknown");
    snprintf(edited, sizeof edited, "{\"limits_\": {\"max_model_len\": 4}, %s", brace + 1);
    expect_bad(edited, "field 'limits_.max_model_len' is unknown");
    snprintf(edited, sizeof edited, "{\"fusion\": {\"qk_norm_rope\": 1}, %s", brace + 1);
    expect_bad(edited, "field 'fusion.qk_norm_rope' is not a boolean");
    /* every shipped profile loads */
    static const char *const names[] = {"vllm", "vllm-v0", "sglang", "sglang-0.4",
                                        "trtllm", "trtllm-0.11", "hf"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        (void)load(names[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_profiles),
        cmocka_unit_test(test_unknown_profile_keys_refused),    cmocka_unit_test(test_collectives_and_limits),
        cmocka_unit_test(test_bad_profiles),        cmocka_unit_test(test_vllm_device_rules),
        cmocka_unit_test(test_sglang_device_rules), cmocka_unit_test(test_sglang_04),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_pick),
        cmocka_unit_test(test_moe_kernel_sm100),
        cmocka_unit_test(test_shipped_versions),
        cmocka_unit_test(test_spec_of),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
