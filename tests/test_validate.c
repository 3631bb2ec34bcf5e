/* test_validate.c - predictions for measured rows, error statistics, and fitting efficiencies. */
#include "testutil.h"

#include "cost.h"
#include "validate.h"

static sim_vrow op_row(sim_vkind kind, const char *metric)
{
    sim_vrow r = {.kind = kind, .dtype = SIM_DT_BF16, .value = 1.0};
    snprintf(r.metric, sizeof r.metric, "%s", metric);
    snprintf(r.hw, sizeof r.hw, "fixture");
    return r;
}

static void test_source_key(void **state)
{
    (void)state;
    /* one document, whatever its notes: the text before " @", " (" or ";" */
    char k[200];
    sim_validate_source_key("ovg-project/kvcached bench/README.md @f533 ('without', rate 8)", k,
                            sizeof k);
    assert_string_equal(k, "ovg-project/kvcached bench/README.md");
    sim_validate_source_key("blogs.example.com/post (2024-10-10; OCI)", k, sizeof k);
    assert_string_equal(k, "blogs.example.com/post");
    sim_validate_source_key("a/b#340; notes", k, sizeof k);
    assert_string_equal(k, "a/b#340");
    sim_validate_source_key("estimate", k, sizeof k);
    assert_string_equal(k, "estimate");
    sim_unc_evidence ev[3] = {{.source = "x"}, {.source = "y"}, {.source = "x"}};
    sim_validate_source_ids(ev, 3);
    assert_int_equal(ev[0].source_id, 0);
    assert_int_equal(ev[1].source_id, 1);
    assert_int_equal(ev[2].source_id, 0);
}

static void test_quantized_gemm_rows(void **state)
{
    (void)state;
    /* fixture H100 (3.35 TB/s, memory 0.866, graph launch 1.5 us). A Marlin-style W4A16 GEMV,
     * M 1, N = K = 8192, groups of 128: weights 67,108,864 x (0.5 + 2/128) = 34,603,008 B, input
     * 16,384 B and output 16,384 B: 34,635,776 B / (0.866 x 3.35e12) = 11.9387 us, + 1.5 us;
     * its math (M padded to 16, at 0.6 of 989.4 TFLOP/s, plus dequantization) stays below. */
    sim_hw hw = tu_fixture_hw();
    sim_err err = {{0}};
    sim_vrow r = op_row(SIM_VK_GEMM, "latency_ms");
    r.dtype = SIM_DT_FP16;
    r.weight = SIM_DT_INT4;
    r.group_size = 128;
    r.m = 1;
    r.n = r.k = 8192;
    double ms;
    assert_int_equal(sim_validate_op(&r, &hw, &ms, &err), SIM_OK);
    assert_near(ms, (34635776.0 / (0.866 * 3.35e12) * 1e9 + 1500.0) / 1e6, 1e-9);
    /* fp8 with its dynamic activation quantization: the quantize kernel reads 8192 x 2 B, writes
     * 8192 x 1 B and one 4 B scale (24,580 B at 0.866 x 3.35 TB/s = 8.47 ns) + its launch; the
     * fp8 GEMM reads 67,108,864 + 8,192 + 16,384 B */
    r.dtype = r.weight = SIM_DT_FP8;
    r.act_quant = true;
    assert_int_equal(sim_validate_op(&r, &hw, &ms, &err), SIM_OK);
    double gemm = (67108864.0 + 8192.0 + 16384.0) / (0.866 * 3.35e12) * 1e9 + 1500.0;
    double quant = 24580.0 / (0.866 * 3.35e12) * 1e9 + 1500.0;
    assert_near(ms, (gemm + quant) / 1e6, 1e-9);
}

static void test_op_predictions(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    sim_err err = {{0}};
    double p;
    /* 8192^3 bf16: 64 x 64 = 4096 tiles in 32 waves of 132 (4096 / 4224 busy):
     * 2 x 8192^3 / (989.4e12 x 0.80 x 0.9697) = 1432.5 us (compute-bound; memory 138.8 us)
     * + 1.5 us launch = 1434.0 us -> 766.7 TFLOP/s */
    sim_vrow g = op_row(SIM_VK_GEMM, "tflops");
    g.m = g.n = g.k = 8192;
    assert_int_equal(sim_validate_op(&g, &hw, &p, &err), SIM_OK);
    assert_near(p, 766.73, 1e-4);
    /* a 1 GiB device copy reads and writes it: 2 x 2^30 B / (3.35e12 x 0.866) = 740.2 us, + 1.5 us
     * launch = 741.7 us -> 2.8952 TB/s */
    sim_vrow c = op_row(SIM_VK_COPY, "tb_per_s");
    c.bytes = 1 << 30;
    assert_int_equal(sim_validate_op(&c, &hw, &p, &err), SIM_OK);
    assert_near(p, 2.8952, 1e-4);
    /* 1 MiB all-reduce on 8 GPUs (the fixture's ring, test_cost): 1,835,008 bus bytes in
     * 33.797 us + 1.5 us launch = 35.297 us = 51.99 GB/s */
    sim_vrow a = op_row(SIM_VK_ALLREDUCE, "busbw_gb_per_s");
    a.bytes = 1 << 20;
    a.gpus = 8;
    assert_int_equal(sim_validate_op(&a, &hw, &p, &err), SIM_OK);
    assert_near(p, 1835008.0 / 35297.4, 1e-5);
    snprintf(a.metric, sizeof a.metric, "latency_ms");
    assert_int_equal(sim_validate_op(&a, &hw, &p, &err), SIM_OK);
    assert_near(p, 0.0352974, 1e-5);
    /* long non-causal attention is compute-bound at the attention efficiency: 0.57 x 989.4 */
    sim_vrow t = op_row(SIM_VK_ATTENTION, "tflops");
    t.batch = 1;
    t.seq = 16384;
    t.heads = 16;
    t.head_dim = 128;
    assert_int_equal(sim_validate_op(&t, &hw, &p, &err), SIM_OK);
    assert_near(p, 0.57 * 989.4, 0.01);
    /* DeepEP's low-latency dispatch over 16 GPUs (two nodes): 128 tokens x top-8 x 7168 B (fp8)
     * = 7,340,032 B per GPU, 15/16 of it sent, all over RDMA (its first kernels used no NVLink):
     * 6,881,280 B / (50 GB/s x alltoall.rdma_bw_eff 0.86) = 160.03 us + the low-latency
     * kernels' 24 us = 184.03 us (DeepEP measured 173 us) */
    sim_vrow e = op_row(SIM_VK_ALLTOALL, "latency_ms");
    e.gpus = 16;
    e.bytes = 7340032;
    assert_int_equal(sim_validate_op(&e, &hw, &p, &err), SIM_OK);
    assert_near(p, 0.024 + 6881280.0 / 43e9 * 1e3, 1e-9);
    /* a grouped GEMM of 4 experts x 256 rows prices as the MoE layers' op: 4 x 256 rows, each
     * expert's weights read, its M blocks exactly 4 x 256 / B (no algo: the Triton family) */
    sim_vrow gg = op_row(SIM_VK_GROUPED_GEMM, "tflops");
    gg.batch = 4;
    gg.m = 256;
    gg.n = 4096;
    gg.k = 7168;
    assert_int_equal(sim_validate_op(&gg, &hw, &p, &err), SIM_OK);
    sim_op op = {.id = SIM_OP_EXPERTS_GATE_UP,
                 .present = true,
                 .m = 1024,
                 .n = 4096,
                 .k = 7168,
                 .compute = SIM_DT_BF16,
                 .weight = SIM_DT_BF16,
                 .groups = 4,
                 .moe_kernel = SIM_MOE_TRITON,
                 .moe_blocks = {64, 32, 16, 8}};
    op.flops = 2.0 * 1024 * 4096 * 7168;
    op.weight_bytes = 4.0 * 4096 * 7168 * 2;
    op.act_bytes = 1024.0 * 7168 * 2 + 1024.0 * 4096 * 2;
    assert_near(p, op.flops / sim_cost_op(&hw, &op, hw.graph_launch_ns).t_ns / 1e3, 1e-12);
}

static void test_summary(void **state)
{
    (void)state;
    /* |errors| 1, 2, 3, 4, 10: median 3; p90 at position 3.6 between 4 and 10 = 7.6 */
    const double e[5] = {10, 2, 4, 1, 3};
    double med, p90;
    sim_validate_summary(e, 5, &med, &p90);
    assert_near(med, 3.0, 1e-12);
    assert_near(p90, 7.6, 1e-12);
    assert_near(sim_validate_error_pct(90, 100), -10.0, 1e-12);
}

static void test_fit_recovers_gemm_fixed_time(void **state)
{
    (void)state;
    /* fp8 GEMMs measured on a device whose fp8 kernels take a fixed 5 us and stream at 0.70 of
     * HBM: four memory-bound decode GEMMs (M = 1, 2 to 134 MB of weights: the fixed time is
     * most of the smallest, the stream most of the largest) and two compute-bound ones pin
     * both; a fit from no fixed time and the fixture's 0.866 finds them again */
    sim_hw truth = tu_fixture_hw();
    truth.quant.gemm_fixed_ns[SIM_DT_FP8] = 5000.0;
    truth.quant.gemm_memory[SIM_DT_FP8] = 0.70;
    const int64_t shapes[6][3] = {{1, 1024, 2048},    {1, 4096, 4096},     {1, 8192, 8192},
                                  {1, 16384, 8192},   {4096, 4096, 4096},  {8192, 8192, 8192}};
    sim_vrow rows[6];
    sim_err err = {{0}};
    for (int i = 0; i < 6; i++) {
        rows[i] = op_row(SIM_VK_GEMM, "latency_ms");
        rows[i].dtype = rows[i].weight = SIM_DT_FP8;
        rows[i].m = shapes[i][0];
        rows[i].n = shapes[i][1];
        rows[i].k = shapes[i][2];
        assert_int_equal(sim_validate_op(&rows[i], &truth, &rows[i].value, &err), SIM_OK);
    }
    sim_hw hw = tu_fixture_hw();
    sim_fit_report rep;
    assert_int_equal(sim_validate_fit(rows, 6, "fixture", &hw, &rep, &err), SIM_OK);
    assert_near(sim_hw_gemm_fixed_ns(&hw, SIM_DT_FP8), 5000.0, 300.0);
    assert_near(sim_hw_gemm_memory(&hw, SIM_DT_FP8), 0.70, 0.02);
    assert_true(rep.after_median < 1.0);
    assert_non_null(strstr(rep.fitted, "quant.gemm_fixed_us.fp8"));
}

static void test_fit_recovers_known_efficiencies(void **state)
{
    (void)state;
    /* measurements made by a device whose GEMMs reach 0.70, attention 0.45, copies 0.80: a fit
     * starting from the fixture's 0.80 / 0.57 / 0.866 finds them again */
    sim_hw truth = tu_fixture_hw();
    truth.eff_gemm[SIM_DT_BF16] = truth.eff_gemm[SIM_DT_FP16] = 0.70;
    truth.eff_attention = 0.45;
    truth.eff_memory = 0.80;
    sim_vrow rows[6];
    const int64_t shapes[3][3] = {{4096, 4096, 4096}, {8192, 28672, 8192}, {2048, 8192, 8192}};
    size_t n = 0;
    sim_err err = {{0}};
    for (int i = 0; i < 3; i++) {
        rows[n] = op_row(SIM_VK_GEMM, "tflops");
        rows[n].m = shapes[i][0];
        rows[n].n = shapes[i][1];
        rows[n].k = shapes[i][2];
        assert_int_equal(sim_validate_op(&rows[n], &truth, &rows[n].value, &err), SIM_OK);
        n++;
    }
    rows[n] = op_row(SIM_VK_ATTENTION, "tflops");
    rows[n].batch = 2;
    rows[n].seq = 8192;
    rows[n].heads = 16;
    rows[n].head_dim = 128;
    assert_int_equal(sim_validate_op(&rows[n], &truth, &rows[n].value, &err), SIM_OK);
    n++;
    rows[n] = op_row(SIM_VK_COPY, "tb_per_s");
    rows[n].bytes = 1 << 30;
    assert_int_equal(sim_validate_op(&rows[n], &truth, &rows[n].value, &err), SIM_OK);
    n++;
    /* a row of another device and an end-to-end row are ignored */
    rows[n] = op_row(SIM_VK_E2E, "e2e_s");
    n++;
    sim_hw hw = tu_fixture_hw();
    sim_fit_report rep;
    assert_int_equal(sim_validate_fit(rows, n, "fixture", &hw, &rep, &err), SIM_OK);
    assert_int_equal(rep.rows, 5);
    assert_near(hw.eff_gemm[SIM_DT_BF16], 0.70, 0.01);
    assert_near(hw.eff_gemm[SIM_DT_FP16], hw.eff_gemm[SIM_DT_BF16], 0); /* one rate */
    assert_near(hw.eff_attention, 0.45, 0.01);
    assert_near(hw.eff_memory, 0.80, 0.01);
    assert_true(rep.after_median < 0.5 && rep.before_median > 5.0);
    assert_non_null(strstr(rep.fitted, "efficiency.attention"));
    /* no rows for a device: an error that says so */
    assert_int_equal(sim_validate_fit(rows, n, "tpu-v9", &hw, &rep, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "no op-level rows"));
}

static void test_load(void **state)
{
    (void)state;
    sim_vrow *rows;
    size_t n;
    sim_err err = {{0}};
    char path[1024];
    snprintf(path, sizeof path, "%s/tools/data/validation.csv", tu_root());
    assert_int_equal(sim_validate_load(path, &rows, &n, &err), SIM_OK);
    /* 159, 24 MoE op rows (ids 100-123), Argonne's 40 Mixtral-8x7B static batches (ids 124-163:
     * 20 TensorRT-LLM, 15 of them skipped, and 20 vLLM), 20 TensorRT-LLM and 8 + 4 vLLM serve rows
     * (gpt-oss-20b, gpt-oss-120b at TP 2), 24 decode attention rows (ids 1300-1323), 13 SGLang
     * serve rows at a request rate (ids 1400-1412) and 3 skipped vLLM ones (DeepSeek-V3.2), 3 SGLang
     * median E2E rows at a rate (ids 2400-2402), 33 fused MoE layer rows (ids 2000-2032, 18 of
     * them low trust: untuned configs), 14 skipped Qwen3-30B-A3B serve rows whose GPUs are not
     * stated (2033-2046), 13 tuned fp8 fused_moe rows on L40S (2047-2059), 161 op rows of
     * issue 25's devices (ids 2800-2808, 2846-2997), 33 speculative-decoding rows (ids
     * 3200-3232, the last two low-trust), 24 DeepEP all-to-all rows (ids 2200-2223), 11 FlashMLA
     * decode rows (ids 2230-2240) and 17 low-trust DeepSeek-R1 serve rows (ids 2250-2266: vLLM's
     * recipe, SGLang on 16 H100) and 7 energy rows (ids 3400-3406, 3 skipped) and 9 low-trust
     * MI300X static batches of vLLM's ROCm build (ids 2600-2608), 4 speculative-decoding
     * rows of vLLM 0.8 (ids 3900-3903), 10 block-scaled fp8 GEMM rows (ids 3600-3609, 3 CUTLASS
     * ones skipped), 7 low-trust H200 fp8 fused_moe rows (untuned default config, ids
     * 3610-3616), a Nemotron-Nano-9B-v2 vLLM serve row (id 4000: Mamba-2 hybrid) and 13
     * ML.ENERGY H100 energy rows (ids 3800-3812) and 20 MI355X AITER bf16 GEMM rows at M 256,
     * 1024, 2048, 8192 (ids 3580-3599) and 20 MI300X fp8 GEMM rows (ids 3540-3559, AITER's tuned CK
     * kernels) and 4 low-trust MoE serve rows with TTFT and TPOT apart (ids 3504-3507: vLLM's
     * Qwen3-30B-A3B on one H100 with its default fused-MoE config, vllm#23151; 3500-3503 wait in
     * validation-pending.csv), 5 H20 Triton fused_moe_kernel rows (ids 3508-3512, vllm#44152) and
     * 9 B200 Triton fused_moe rows (ids 3620-3628: vLLM PR #31448 bf16, SGLang PR #11816 block
     * fp8; issue 24's K loop), 2 low-trust EAGLE-1 rows of vLLM 0.8 on Llama-3-8B whose
     * acceptance was measured in the same run (ids 3904-3905, vLLM PR #16035; GPU not named) and
     * 29 rows of Azure's ND MI300X v5 and ND GB200 v6 suites (ids 3721-3737, 3740-3752:
     * hipBLASLt / cuBLASLt fp8 GEMMs, a copy, an attention row, RCCL / NCCL all-reduce per size;
     * 3720 and 3726 wait in validation-pending.csv) and 13 H20 rows of vLLM's Marlin W4A16
     * fused MoE (ids 3661-3673, FlagGems PR #3609) and 5 A100 Triton fused_moe rows (ids
     * 3674-3678: vLLM PR #19049 bf16, default config; the A100 K loop) */
    assert_int_equal(n, 762);
    int ops = 0, skipped = 0, low = 0, rated = 0, ranged = 0, spec = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].kind == SIM_VK_SPEC) {
            spec++;
            assert_true(rows[i].spec[0] != '\0'); /* the speculation, from the algo column */
        }
        rated += isfinite(rows[i].request_rate) != 0;
        ranged += rows[i].range_ratio > 0.0;
        ops += sim_vkind_is_op(rows[i].kind);
        skipped += rows[i].skip[0] != '\0';
        low += rows[i].low_trust;
        assert_true(rows[i].value > 0 && rows[i].source[0]);
    }
    assert_int_equal(ops, 537); /* with the 5 A100 fused_moe rows 3674-3678, the 10 block-fp8 GEMM rows 3600-3609, 7 fused_moe 3610-3616,
                                 * 5 H20 fused_moe_kernel rows 3508-3512,
                                 * 20 MI355X GEMMs 3580-3599, 20 MI300X fp8 GEMMs 3540-3559, 9 B200
                                 * fused_moe 3620-3628, 29 Azure MI300X / GB200 rows 3721-3752 */
    assert_int_equal(spec, 39); /* with the EAGLE-1 rows 3904-3905 */
    assert_int_equal(rated, 33); /* the serve rows at a stated rate */
    assert_int_equal(ranged, 16); /* SGLang's random lengths, uniform from 1 */
    assert_int_equal(skipped, 51); /* GB200 ids 41, 76, 77 priced now that hw/gb200.json ships (58,
                                    * FlashAttention-2's Ampere path on SM100, stays out); with the 3 CUTLASS block-fp8 rows, two serve rows of 20,000-token prompts, Mixtral's 15,
                                    * the 3 DeepSeek-V3.2 rows, 14 Qwen3-30B-A3B ones and 3
                                    * energy rows */
    assert_int_equal(low, 81); /* with the 2 vLLM 0.8 EAGLE-1 rows whose GPU is not named
                                * (3904-3905), vLLM's 4 default-config Qwen3-30B-A3B rows (3504-3507),
                                * 7 untuned H200 fp8 fused_moe rows (3610-3616), the three vLLM serve rows that generated half their tokens,
                                * the 18 untuned fused_moe rows, an L2-resident one, SGLang's
                                * two DeepSeek MTP claims and the 17 DeepSeek-R1 serve rows and
                                * the 9 MI300X rows whose vLLM release is not stated */
    free(rows);
    const char *hdr = "id,kind,hw,dtype,gpus,m,n,k,batch,seq,heads,head_dim,causal,bytes,model,tp,"
                      "input_len,output_len,weight_dtype,act_dtype,kv_dtype,framework,metric,"
                      "value,unit,skip,source,group_size,act_quant\n";
    char text[2048];
    snprintf(text, sizeof text, "%s1,gemv,h100-sxm,,,,,,,,,,,,,,,,,,,,tflops,1,,,src,,\n", hdr);
    assert_int_equal(sim_validate_load(tu_write_tmp(text), &rows, &n, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, ":2: field 'kind'"));
    snprintf(text, sizeof text, "%s1,gemm,h100-sxm,,,,,,,,,,,,,,,,,,,,tflops,fast,,,src,,\n", hdr);
    assert_int_equal(sim_validate_load(tu_write_tmp(text), &rows, &n, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "field 'value'"));
    /* an alltoall row names DeepEP's mode, and a mode with a shape needs it */
    const char *hdr2 = "id,kind,hw,dtype,gpus,m,n,k,batch,seq,heads,head_dim,causal,bytes,model,tp,"
                       "input_len,output_len,weight_dtype,act_dtype,kv_dtype,framework,metric,"
                       "value,unit,skip,source,group_size,act_quant,algo\n";
    snprintf(text, sizeof text, "%s1,alltoall,h800,,8,,,,,,,,,1000,,,,,,,,,latency_ms,1,,,src,,,fast\n",
             hdr2);
    assert_int_equal(sim_validate_load(tu_write_tmp(text), &rows, &n, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "field 'algo' is 'fast', expected normal, low_latency"));
    snprintf(text, sizeof text,
             "%s1,alltoall,h800,fp8,8,128,,8,256,,,,,1000,,,,,,,,,latency_ms,1,,,src,,,low_latency\n",
             hdr2);
    assert_int_equal(sim_validate_load(tu_write_tmp(text), &rows, &n, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "needs m (tokens per rank), n (hidden)"));
    assert_int_equal(sim_validate_load(tu_write_tmp("a,b\n"), &rows, &n, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "header"));
}

/* One bad row after the header: SIM_EINPUT with path:2, the field, the value and what was expected
 */
static void expect_bad_row(const char *row, const char *mention)
{
    const char *hdr = "id,kind,hw,dtype,gpus,m,n,k,batch,seq,heads,head_dim,causal,bytes,model,tp,"
                      "input_len,output_len,weight_dtype,act_dtype,kv_dtype,framework,metric,"
                      "value,unit,skip,source,group_size,act_quant\n";
    char text[2048];
    snprintf(text, sizeof text, "%s%s\n", hdr, row);
    const char *path = tu_write_tmp(text);
    sim_vrow *rows = (sim_vrow *)1;
    size_t n = 7;
    sim_err err = {{0}};
    assert_int_equal(sim_validate_load(path, &rows, &n, &err), SIM_EINPUT);
    assert_null(rows);
    assert_int_equal(n, 0);
    char where[1100];
    snprintf(where, sizeof where, "%s:2: ", path);
    if (!strstr(err.msg, where) || !strstr(err.msg, mention)) {
        print_error("row '%s': message '%s', expected '%s' and '%s'\n", row, err.msg, where,
                    mention);
        fail();
    }
}

/* The algo and trust columns (files with 29 columns) are checked like the others. */
static void test_load_algo_trust(void **state)
{
    (void)state;
    const char *hdr = "id,kind,hw,dtype,gpus,m,n,k,batch,seq,heads,head_dim,causal,bytes,model,tp,"
                      "input_len,output_len,weight_dtype,act_dtype,kv_dtype,framework,metric,"
                      "value,unit,skip,source,algo,trust\n";
    static const struct {
        const char *row, *mention;
    } bad[] = {
        {"1,allreduce,h100-sxm,,8,,,,,,,,,1024,,,,,,,,x,latency_ms,0.01,ms,,s,magic,",
         ":2: field 'algo' is 'magic', expected auto, ring"},
        {"1,allreduce,h100-sxm,,8,,,,,,,,,1024,,,,,,,,x,latency_ms,0.01,ms,,s,,sure",
         ":2: field 'trust' is 'sure', expected high, medium, low or empty"},
        {"1,allreduce_norm,h100-sxm,,2,,,,,,,,,1024,,,,,,,,x,latency_ms,0.01,ms,,s,oneshot,",
         ":2: field 'n' is empty, expected a value for allreduce_norm rows"},
        {"1,allreduce,h100-sxm,,8,,,,,,,,,1024,,,,,,,,x,latency_ms,0.01,ms,,s",
         ":2: 27 fields, expected 29"},
        /* an unterminated quote and a line of too many fields named as such (they were "-1
         * fields", found by fuzz_validation's seeds) */
        {"1,allreduce,h100-sxm,,8,,,,,,,,,1024,,,,,,,,\"x,latency_ms,0.01,ms,,s,,",
         ":2: a quoted field without its closing '\"'"},
        {"1,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,", ":2: more than 40 fields, expected 33"},
    };
    char text[2048];
    sim_vrow *rows;
    size_t n;
    sim_err err = {{0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s\n", hdr, bad[i].row);
        assert_int_equal(sim_validate_load(tu_write_tmp(text), &rows, &n, &err), SIM_EINPUT);
        if (!strstr(err.msg, bad[i].mention)) {
            print_error("message '%s', expected '%s'\n", err.msg, bad[i].mention);
            fail();
        }
    }
    snprintf(text, sizeof text,
             "%s1,allreduce,h100-sxm,,8,,,,,,,,,1024,,,,,,,,x,latency_ms,0.01,ms,,s,nccl,low\n",
             hdr);
    assert_int_equal(sim_validate_load(tu_write_tmp(text), &rows, &n, &err), SIM_OK);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].algo, SIM_COLL_NCCL);
    assert_true(rows[0].low_trust);
    /* size buckets: a 1 KiB all-reduce is small, a 4096^3 bf16 GEMM (96 MiB) large */
    assert_int_equal(sim_validate_bucket(&rows[0]), 0);
    sim_vrow g = {.kind = SIM_VK_GEMM, .dtype = SIM_DT_BF16, .m = 4096, .n = 4096, .k = 4096};
    assert_near(sim_validate_size_bytes(&g), 3.0 * 4096 * 4096 * 2, 0);
    assert_int_equal(sim_validate_bucket(&g), 2);
    free(rows);
}

/* An end-to-end row runs `run` with the row's all-reduce: NCCL alone (65 rings of 8 KB per
 * decode step at TP 4) is slower than the engine's one-shot kernels; NVLS on an A100 cannot run. */
static void test_e2e_allreduce_column(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_vrow r = {.kind = SIM_VK_E2E, .batch = 1, .tp = 4, .input_len = 128, .output_len = 32,
                  .weight = SIM_DT_BF16, .act = SIM_DT_BF16, .kv = SIM_DT_BF16, .value = 1.0};
    const sim_step_cfg tmpl = {.iteration_overhead_ns = 1e6, .request_overhead_ns = 1e4};
    sim_err err = {{0}};
    double auto_s, nccl_s;
    assert_int_equal(sim_validate_e2e(&r, &m, &hw, &tmpl, &auto_s, &err), SIM_OK);
    r.algo = SIM_COLL_NCCL;
    assert_int_equal(sim_validate_e2e(&r, &m, &hw, &tmpl, &nccl_s, &err), SIM_OK);
    assert_true(nccl_s > auto_s);
    sim_hw a100 = tu_hw("a100-sxm-80gb");
    r.algo = SIM_COLL_NVLS;
    assert_int_equal(sim_validate_e2e(&r, &m, &a100, &tmpl, &nccl_s, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--allreduce: value nvls"));
}

static void test_load_strict(void **state)
{
    (void)state;
    /* numbers are digits only: no "4k" read as 4, no "abc" read as 0, no sign */
    expect_bad_row("1,gemm,h100-sxm,bf16,,4k,1024,1024,,,,,,,,,,,,,,x,tflops,100,,,s,,",
                   "field 'm' is '4k', expected a whole number in [0, 1099511627776]");
    expect_bad_row("1,gemm,h100-sxm,bf16,,abc,1024,1024,,,,,,,,,,,,,,x,tflops,100,,,s,,",
                   "field 'm' is 'abc'");
    expect_bad_row("1,gemm,h100-sxm,bf16,,-4,1024,1024,,,,,,,,,,,,,,x,tflops,100,,,s,,",
                   "field 'm' is '-4'");
    expect_bad_row("1,copy,h100-sxm,,,,,,,,,,,1125899906842625,,,,,,,,x,tb_per_s,1,,,s,,",
                   "field 'bytes' is '1125899906842625', expected a whole number in [0, "
                   "1125899906842624]");
    expect_bad_row("x1,copy,h100-sxm,,,,,,,,,,,1024,,,,,,,,x,tb_per_s,1,,,s,,",
                   "field 'id' is 'x1'");
    expect_bad_row(",copy,h100-sxm,,,,,,,,,,,1024,,,,,,,,x,tb_per_s,1,,,s,,",
                   "field 'id' is empty");
    /* formats are known names: no "fp6" read as bf16 */
    expect_bad_row("1,gemm,h100-sxm,fp6,,4,1024,1024,,,,,,,,,,,,,,x,tflops,100,,,s,,",
                   "field 'dtype' is 'fp6', expected one of");
    expect_bad_row("1,e2e,h100-sxm,,,,,,1,,,,,,llama-3.1-8b,1,128,128,fp16,fp12,,x,e2e_s,1,s,,s,,",
                   "field 'act_dtype' is 'fp12'");
    expect_bad_row("1,attention,h100-sxm,bf16,,,,,2,8,16,128,yes,,,,,,,,,x,tflops,100,,,s,,",
                   "field 'causal' is 'yes', expected true, false or empty");
    /* the framework column holds the engine and the flags validate applies: longer than the
     * field it would lose one, so it is refused, not cut */
    char longfw[512];
    snprintf(longfw, sizeof longfw,
             "1,e2e,h100-sxm,,,,,,1,,,,,,llama-3.1-8b,1,128,128,bf16,,,vLLM 0.11 (%0*d "
             "--max-concurrency 4),e2e_s,1,s,,s,,",
             250, 0);
    expect_bad_row(longfw, "field 'framework' has 282 characters, expected at most 255");
    /* what a kind uses is required: gemm m, n, k >= 1; all-reduce on >= 2 GPUs */
    expect_bad_row("1,gemm,h100-sxm,bf16,,,1024,1024,,,,,,,,,,,,,,x,tflops,100,,,s,,",
                   "field 'm' is empty, expected a value for gemm rows");
    expect_bad_row("1,gemm,h100-sxm,bf16,,0,1024,1024,,,,,,,,,,,,,,x,tflops,100,,,s,,",
                   "field 'm' is '0', expected >= 1 for gemm rows");
    expect_bad_row("1,gemm,h100-sxm,,,4,1024,1024,,,,,,,,,,,,,,x,tflops,100,,,s,,",
                   "field 'dtype' is empty, expected a value for gemm rows");
    expect_bad_row("4,allreduce,h100-sxm,,1,,,,,,,,,1024,,,,,,,,x,busbw_gb_per_s,100,,,s,,",
                   "field 'gpus' is '1', expected >= 2 for allreduce rows");
    expect_bad_row("4,allreduce,h100-sxm,,,,,,,,,,,1024,,,,,,,,x,busbw_gb_per_s,100,,,s,,",
                   "field 'gpus' is empty");
    expect_bad_row("1,attention,h100-sxm,bf16,,,,,2,8192,16,128,,,,,,,,,,x,tflops,100,,,s,,",
                   "field 'causal' is empty, expected a value for attention rows");
    expect_bad_row("1,copy,h100-sxm,,,,,,,,,,,0,,,,,,,,x,tb_per_s,1,,,s,,",
                   "field 'bytes' is '0', expected >= 1 for copy rows");
    expect_bad_row("1,ttft,h100-sxm,,,,,,16,,,,,,llama-3.1-8b,,1024,1,fp16,,,x,ttft_ms,1,ms,,s,,",
                   "field 'tp' is empty, expected a value for ttft rows");
    expect_bad_row("1,e2e,h100-sxm,,,,,,1,,,,,,llama-3.1-8b,1,128,128,,,,x,e2e_s,1,s,,s,,",
                   "field 'weight_dtype' is empty, expected a value for e2e rows");
    expect_bad_row("1,copy,,,,,,,,,,,,1024,,,,,,,,x,tb_per_s,1,,,s,,", "field 'hw' is empty");
    expect_bad_row("1,gemm,h100-sxm,bf16,,4,1024,1024,,,,,,,,,,,,,,x,e2e_s,100,,,s,,",
                   "field 'metric' is 'e2e_s', expected tflops, tb_per_s, busbw_gb_per_s or "
                   "latency_ms for gemm rows");
    /* columns a kind does not use may stay empty; a skipped row need not fill the ones it would */
    const char *hdr = "id,kind,hw,dtype,gpus,m,n,k,batch,seq,heads,head_dim,causal,bytes,model,tp,"
                      "input_len,output_len,weight_dtype,act_dtype,kv_dtype,framework,metric,"
                      "value,unit,skip,source,group_size,act_quant\n";
    char text[2048];
    snprintf(text, sizeof text,
             "%s7,allreduce,h100-sxm,,8,,,,,,,,,1048576,,,,,,,,x,busbw_gb_per_s,43.7,GB/s,,s,,\n"
             "8,e2e,h100-sxm,,,,,,1,,,,,,llama-3.1-8b,2,1024,1024,fp8,,,x,e2e_s,5.8,s,,s,,\n"
             "9,allreduce,,,,,,,,,,,,,,,,,,,,x,busbw_gb_per_s,80.5,GB/s,not a shipped device,s,,\n",
             hdr);
    sim_vrow *rows;
    size_t n;
    sim_err err = {{0}};
    assert_int_equal(sim_validate_load(tu_write_tmp(text), &rows, &n, &err), SIM_OK);
    assert_int_equal(n, 3);
    assert_int_equal(rows[0].gpus, 8);
    assert_int_equal(rows[0].bytes, 1048576);
    assert_int_equal(rows[0].m, 0);
    assert_int_equal(rows[0].line, 2);
    /* empty act_dtype and kv_dtype: what `infersim run --weight-dtype fp8` takes on this model
     * and device (sim_graph_prec_defaults): fp8 math (W8A8), the KV cache in bf16 */
    assert_true(rows[1].weight_set && !rows[1].act_set && !rows[1].kv_set);
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_prec p;
    assert_int_equal(sim_validate_row_prec(&rows[1], &m, &hw, &p, &err), SIM_OK);
    assert_int_equal(p.weight, SIM_DT_FP8);
    assert_int_equal(p.act, SIM_DT_FP8);
    assert_int_equal(p.kv, SIM_DT_BF16);
    assert_int_equal(rows[1].tp, 2);
    assert_string_equal(rows[2].skip, "not a shipped device");
    free(rows);
}

/* The serve rows' latency metric names: vllm bench serve's mean_ / median_ over TTFT, TPOT, ITL
 * and E2EL; anything else (a throughput, an energy, a misspelling) names none. */
static void test_serve_latency_names(void **state)
{
    (void)state;
    sim_metric which = SIM_M_TTFT;
    bool median = true;
    assert_true(sim_validate_serve_latency("mean_itl_ms", &which, &median));
    assert_int_equal(which, SIM_M_ITL);
    assert_false(median);
    assert_true(sim_validate_serve_latency("median_e2el_ms", &which, &median));
    assert_int_equal(which, SIM_M_E2EL);
    assert_true(median);
    assert_false(sim_validate_serve_latency("median_ttft_s", &which, &median));
    assert_int_equal(which, SIM_M_E2EL); /* untouched */
    assert_false(sim_validate_is_serve_latency("output_tps"));
    assert_true(sim_validate_is_serve_latency("mean_tpot_ms"));
    assert_true(sim_validate_is_energy("joules_per_output_token"));
    assert_false(sim_validate_is_energy("mean_tpot_ms"));
}

static void test_serve_rows(void **state)
{
    (void)state;
    expect_bad_row("1,serve,h100-sxm,,,,,,100,,,,,,llama-3.1-8b,1,128,128,fp8,,,x,e2e_s,1,s,,s,,",
                   "field 'metric' is 'e2e_s', expected output_tps, duration_s, avg_power_w, "
                   "joules_per_output_token or a mean_/median_ "
                   "ttft_ms, tpot_ms, itl_ms or e2el_ms for serve rows");
    expect_bad_row("1,serve,h100-sxm,,,,,,0,,,,,,llama-3.1-8b,1,128,128,fp8,,,x,output_tps,1,,,s,,",
                   "field 'batch' is '0', expected >= 1 for serve rows");
    /* one request alone is the static batch of one: its output throughput is output_len over
     * run's end-to-end time (the engine matches run at batch 1 to the rounding of each step to
     * a nanosecond) */
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_vrow r = {.kind = SIM_VK_SERVE,
                  .batch = 1,
                  .tp = 1,
                  .input_len = 512,
                  .output_len = 64,
                  .weight = SIM_DT_BF16,
                  .act = SIM_DT_BF16,
                  .kv = SIM_DT_BF16,
                  .request_rate = INFINITY};
    sim_engine_cfg tmpl = {
        .step = {.iteration_overhead_ns = 1e6, .request_overhead_ns = 1e4},
        .sched = {.max_num_seqs = 256, .max_num_batched_tokens = 8192, .chunked_prefill = true},
        .block_size = 16,
        .mem_util = 0.9};
    double tps, e2e_s;
    sim_err err = {{0}};
    assert_int_equal(sim_validate_serve(&r, &m, &hw, &tmpl, &tps, &err), SIM_OK);
    r.kind = SIM_VK_E2E;
    assert_int_equal(sim_validate_e2e(&r, &m, &hw, &tmpl.step, &e2e_s, &err), SIM_OK);
    assert_near(tps, 64.0 / e2e_s, 1e-6);
    /* measured as the benchmark's duration: the same run, its end-to-end time */
    double dur_s;
    r.kind = SIM_VK_SERVE;
    snprintf(r.metric, sizeof r.metric, "duration_s");
    assert_int_equal(sim_validate_serve(&r, &m, &hw, &tmpl, &dur_s, &err), SIM_OK);
    assert_near(dur_s, e2e_s, 1e-6);
    /* lengths drawn in a range: the one request gets the lengths the same seed draws, and its
     * output throughput counts the tokens it generated, not batch x output_len */
    r.range_ratio = 0.5;
    snprintf(r.metric, sizeof r.metric, "output_tps");
    sim_synth_cfg sc = {.num_prompts = 1,
                        .input_len = 512,
                        .output_len = 64,
                        .range_ratio = 0.5,
                        .request_rate = INFINITY,
                        .burstiness = 1.0,
                        .seed = SIM_VALIDATE_SERVE_SEED};
    sim_workload w;
    assert_int_equal(sim_workload_synthetic(&sc, &w, &err), SIM_OK);
    sim_vrow drawn = r;
    drawn.kind = SIM_VK_E2E;
    drawn.input_len = w.reqs[0].input_tokens;
    drawn.output_len = w.reqs[0].output_tokens;
    sim_workload_free(&w);
    assert_true(drawn.input_len != 512 || drawn.output_len != 64); /* the range took effect */
    assert_int_equal(sim_validate_serve(&r, &m, &hw, &tmpl, &tps, &err), SIM_OK);
    assert_int_equal(sim_validate_e2e(&drawn, &m, &hw, &tmpl.step, &e2e_s, &err), SIM_OK);
    assert_near(tps, (double)drawn.output_len / e2e_s, 1e-6);
}

/* A serve file with the request_rate and range_ratio columns: one row after the header. */
static const char *rate_file(const char *row)
{
    static char text[1024];
    snprintf(text, sizeof text,
             "id,kind,hw,dtype,gpus,m,n,k,batch,seq,heads,head_dim,causal,bytes,model,tp,"
             "input_len,output_len,weight_dtype,act_dtype,kv_dtype,framework,metric,value,unit,"
             "skip,source,request_rate,range_ratio\n%s\n",
             row);
    return tu_write_tmp(text);
}

/* The request_rate and range_ratio columns: a rate > 0, inf or empty and a ratio in [0, 1) or
 * empty on serve rows, empty elsewhere; anything else is an input error naming the file, line,
 * field and value. */
static void test_rate_column(void **state)
{
    (void)state;
    static const struct {
        const char *row, *mention;
    } bad[] = {
        {"1,serve,h100-sxm,,,,,,8,,,,,,llama-3.1-8b,1,64,8,bf16,,,x,median_ttft_ms,1,ms,,s,fast,",
         ":2: field 'request_rate' is 'fast', expected requests per second > 0, inf or empty"},
        {"1,serve,h100-sxm,,,,,,8,,,,,,llama-3.1-8b,1,64,8,bf16,,,x,median_ttft_ms,1,ms,,s,0,",
         ":2: field 'request_rate' is '0', expected requests per second > 0"},
        {"1,serve,h100-sxm,,,,,,8,,,,,,llama-3.1-8b,1,64,8,bf16,,,x,median_ttft_ms,1,ms,,s,-2,",
         ":2: field 'request_rate' is '-2'"},
        {"1,serve,h100-sxm,,,,,,8,,,,,,llama-3.1-8b,1,64,8,bf16,,,x,median_ttft_ms,1,ms,,s,nan,",
         ":2: field 'request_rate' is 'nan'"},
        {"1,serve,h100-sxm,,,,,,8,,,,,,llama-3.1-8b,1,64,8,bf16,,,x,median_ttft_ms,1,ms,,s,4rps,",
         ":2: field 'request_rate' is '4rps'"},
        {"1,e2e,h100-sxm,,,,,,1,,,,,,llama-3.1-8b,1,64,8,bf16,,,x,e2e_s,1,s,,s,4,",
         ":2: field 'request_rate' is '4', expected empty for e2e rows"},
        {"1,serve,h100-sxm,,,,,,8,,,,,,llama-3.1-8b,1,64,8,bf16,,,x,p99_ttft_ms,1,ms,,s,4,",
         ":2: field 'metric' is 'p99_ttft_ms'"},
        {"1,serve,h100-sxm,,,,,,8,,,,,,llama-3.1-8b,1,64,8,bf16,,,x,median_ttft_ms,1,ms,,s,4,1",
         ":2: field 'range_ratio' is '1', expected a ratio in [0, 1) or empty"},
        {"1,serve,h100-sxm,,,,,,8,,,,,,llama-3.1-8b,1,64,8,bf16,,,x,median_ttft_ms,1,ms,,s,4,-0.5",
         ":2: field 'range_ratio' is '-0.5'"},
        {"1,e2e,h100-sxm,,,,,,1,,,,,,llama-3.1-8b,1,64,8,bf16,,,x,e2e_s,1,s,,s,,0.5",
         ":2: field 'range_ratio' is '0.5', expected empty for e2e rows"},
    };
    sim_vrow *rows;
    size_t n;
    sim_err err = {{0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *path = rate_file(bad[i].row);
        assert_int_equal(sim_validate_load(path, &rows, &n, &err), SIM_EINPUT);
        if (!strstr(err.msg, path) || !strstr(err.msg, bad[i].mention)) {
            print_error("row '%s': message '%s', expected '%s'\n", bad[i].row, err.msg,
                        bad[i].mention);
            fail();
        }
    }
    static const struct {
        const char *rate, *range;
        double want_rate, want_range;
    } good[] = {{"", "", INFINITY, 0.0}, {"inf", "0", INFINITY, 0.0}, {"2.5", "0.5", 2.5, 0.5}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char row[256];
        snprintf(row, sizeof row,
                 "1,serve,h100-sxm,,,,,,8,,,,,,llama-3.1-8b,1,64,8,bf16,,,x,mean_tpot_ms,1,ms,,s,%s,%s",
                 good[i].rate, good[i].range);
        assert_int_equal(sim_validate_load(rate_file(row), &rows, &n, &err), SIM_OK);
        assert_int_equal(n, 1);
        assert_true(rows[0].request_rate == good[i].want_rate);
        assert_true(rows[0].range_ratio == good[i].want_range);
        free(rows);
    }
}

/* A serve row at a rate slow enough that no two requests overlap: every request runs alone, so
 * its TTFT is run's time to first token at batch 1, its end-to-end latency run's end-to-end time,
 * and its TPOT (e2e - ttft) / (output - 1), which is also the mean of its token gaps (ITL): the
 * same for every request, so mean = median. At
 * rate inf the same three requests queue: the mean TTFT grows. */
static void test_serve_row_at_rate(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_vrow r = {.kind = SIM_VK_SERVE,
                  .batch = 3,
                  .tp = 1,
                  .input_len = 512,
                  .output_len = 64,
                  .weight = SIM_DT_BF16,
                  .act = SIM_DT_BF16,
                  .kv = SIM_DT_BF16,
                  .request_rate = 0.05}; /* 3 requests over 60 s */
    sim_engine_cfg tmpl = {
        .step = {.iteration_overhead_ns = 1e6, .request_overhead_ns = 1e4},
        .sched = {.max_num_seqs = 256, .max_num_batched_tokens = 8192, .chunked_prefill = true},
        .block_size = 16,
        .mem_util = 0.9};
    sim_err err = {{0}};
    /* batch 1 alone */
    sim_vrow one = r;
    one.batch = 1;
    one.kind = SIM_VK_TTFT;
    double ttft_ms, e2e_s;
    assert_int_equal(sim_validate_e2e(&one, &m, &hw, &tmpl.step, &ttft_ms, &err), SIM_OK);
    one.kind = SIM_VK_E2E;
    assert_int_equal(sim_validate_e2e(&one, &m, &hw, &tmpl.step, &e2e_s, &err), SIM_OK);
    /* the precondition: the arrival stream (same seed) leaves each request a gap longer than its
     * whole run, so no two overlap */
    sim_synth_cfg sc = {.num_prompts = 3,
                        .input_len = 512,
                        .output_len = 64,
                        .request_rate = 0.05,
                        .burstiness = 1.0,
                        .seed = SIM_VALIDATE_SERVE_SEED};
    sim_workload w;
    assert_int_equal(sim_workload_synthetic(&sc, &w, &err), SIM_OK);
    for (size_t i = 1; i < w.n; i++)
        assert_true((double)(w.reqs[i].arrival_ns - w.reqs[i - 1].arrival_ns) > 2.0 * e2e_s * 1e9);
    sim_workload_free(&w);
    static const struct {
        const char *metric;
        int which; /* 0 ttft, 1 tpot, 2 e2el */
    } cases[] = {{"mean_ttft_ms", 0},   {"median_ttft_ms", 0}, {"mean_tpot_ms", 1},
                 {"median_tpot_ms", 1}, {"mean_e2el_ms", 2},   {"median_e2el_ms", 2},
                 {"mean_itl_ms", 1}};
    const double want[3] = {ttft_ms, (e2e_s * 1e3 - ttft_ms) / 63.0, e2e_s * 1e3};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(r.metric, sizeof r.metric, "%s", cases[i].metric);
        double pred;
        assert_int_equal(sim_validate_serve(&r, &m, &hw, &tmpl, &pred, &err), SIM_OK);
        /* the engine rounds each step to a nanosecond: 1e-4 ms */
        assert_near(pred, want[cases[i].which], 1e-3);
    }
    /* energy: the three requests run alone, so the serving run's energy is the idle floor over
     * its whole duration plus three times one request's energy above it (run: E = 70 W x e2e +
     * active); J per output token = that over 3 x 64 tokens, average power = that over the
     * duration (one GPU) */
    one.kind = SIM_VK_E2E;
    snprintf(one.metric, sizeof one.metric, "joules_per_output_token");
    double one_jt, one_w;
    assert_int_equal(sim_validate_e2e(&one, &m, &hw, &tmpl.step, &one_jt, &err), SIM_OK);
    snprintf(one.metric, sizeof one.metric, "avg_power_w");
    assert_int_equal(sim_validate_e2e(&one, &m, &hw, &tmpl.step, &one_w, &err), SIM_OK);
    assert_near(one_jt * 64.0, one_w * e2e_s, 1e-9 * one_w * e2e_s); /* J = W x s */
    const double active_j = one_w * e2e_s - hw.power.idle_w * e2e_s;
    snprintf(r.metric, sizeof r.metric, "duration_s");
    double dur_s, jt, w_avg;
    assert_int_equal(sim_validate_serve(&r, &m, &hw, &tmpl, &dur_s, &err), SIM_OK);
    snprintf(r.metric, sizeof r.metric, "joules_per_output_token");
    assert_int_equal(sim_validate_serve(&r, &m, &hw, &tmpl, &jt, &err), SIM_OK);
    snprintf(r.metric, sizeof r.metric, "avg_power_w");
    assert_int_equal(sim_validate_serve(&r, &m, &hw, &tmpl, &w_avg, &err), SIM_OK);
    const double energy_j = hw.power.idle_w * dur_s + 3.0 * active_j;
    assert_near(jt, energy_j / (3.0 * 64.0), 1e-4 * jt);
    assert_near(w_avg, energy_j / dur_s, 1e-4 * w_avg);
    /* long idle gaps: the average sits near the idle floor, far below one request's */
    assert_true(w_avg < 0.5 * one_w && w_avg > hw.power.idle_w);
    /* a device file without power cannot predict an energy row */
    sim_hw bare = hw;
    bare.power.tdp_w = bare.power.idle_w = 0.0;
    assert_int_equal(sim_validate_serve(&r, &m, &bare, &tmpl, &w_avg, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "power.tdp_w"));
    assert_int_equal(sim_validate_e2e(&one, &m, &bare, &tmpl.step, &w_avg, &err), SIM_EINPUT);
    /* all three at once: the later ones wait behind the first prefill, so the mean TTFT is above
     * one request's */
    r.request_rate = INFINITY;
    snprintf(r.metric, sizeof r.metric, "mean_ttft_ms");
    double burst_ttft;
    assert_int_equal(sim_validate_serve(&r, &m, &hw, &tmpl, &burst_ttft, &err), SIM_OK);
    assert_true(burst_ttft > ttft_ms * 1.05);
}

static void test_op_checks(void **state)
{
    (void)state;
    sim_hw hw = tu_fixture_hw();
    sim_err err = {{0}};
    double p = -1.0;
    /* an all-reduce on one GPU moves nothing: an input error, never "priced at 0 ns" */
    sim_vrow a = op_row(SIM_VK_ALLREDUCE, "busbw_gb_per_s");
    a.bytes = 1 << 20;
    a.gpus = 1;
    assert_int_equal(sim_validate_op(&a, &hw, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "field 'gpus' is 1, expected >= 2 for allreduce"));
    assert_near(p, -1.0, 0); /* untouched */
    sim_vrow g = op_row(SIM_VK_GEMM, "tflops");
    g.m = 0;
    g.n = g.k = 64;
    assert_int_equal(sim_validate_op(&g, &hw, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "field 'm' is 0, expected >= 1 for gemm"));
    /* the fixture has no int4 peak: attention in int4 is refused like a GEMM, not inf ms */
    sim_vrow t = op_row(SIM_VK_ATTENTION, "tflops");
    t.batch = 1;
    t.seq = 1024;
    t.heads = 8;
    t.head_dim = 128;
    t.dtype = SIM_DT_INT4;
    assert_int_equal(sim_validate_op(&t, &hw, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "field 'dense_tflops.int4' is missing"));
    assert_non_null(strstr(err.msg, "h100-fixture.json"));
    g.m = 64;
    g.dtype = SIM_DT_INT4;
    assert_int_equal(sim_validate_op(&g, &hw, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "to price gemm in int4"));
    /* copies and all-reduces compute nothing: an int4 row prices (tb_per_s and tflops share
     * work / ns / 1e3) */
    sim_vrow c = op_row(SIM_VK_COPY, "tb_per_s");
    c.bytes = 1 << 30;
    c.dtype = SIM_DT_INT4;
    assert_int_equal(sim_validate_op(&c, &hw, &p, &err), SIM_OK);
    assert_near(p, 2.8952, 1e-4);
}

static void test_summary_small(void **state)
{
    (void)state;
    /* one value: both percentiles are it; two values 1, 3: median at position 0.5 = 2, p90 at 0.9
     * = 1 + 0.9 x 2 = 2.8; the input is left as it was (a copy is reordered) */
    double one = 5.0, med, p90;
    sim_validate_summary(&one, 1, &med, &p90);
    assert_near(med, 5.0, 0);
    assert_near(p90, 5.0, 0);
    double two[2] = {3.0, 1.0};
    sim_validate_summary(two, 2, &med, &p90);
    assert_near(med, 2.0, 1e-12);
    assert_near(p90, 2.8, 1e-12);
    assert_near(two[0], 3.0, 0);
    sim_validate_summary(two, 0, &med, &p90);
    assert_near(med, 0.0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_key),
        cmocka_unit_test(test_quantized_gemm_rows),
        cmocka_unit_test(test_op_predictions),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_fit_recovers_known_efficiencies),
        cmocka_unit_test(test_fit_recovers_gemm_fixed_time),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_load_strict),
        cmocka_unit_test(test_load_algo_trust),
        cmocka_unit_test(test_e2e_allreduce_column),
        cmocka_unit_test(test_op_checks),
        cmocka_unit_test(test_serve_latency_names),
        cmocka_unit_test(test_serve_rows),
        cmocka_unit_test(test_rate_column),
        cmocka_unit_test(test_serve_row_at_rate),
        cmocka_unit_test(test_summary_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
