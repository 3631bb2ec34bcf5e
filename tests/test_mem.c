/* test_mem.c - what fits in a GPU. */
#include "testutil.h"

#include <math.h>

#include "mem.h"

static sim_step_cfg cfg_for(const sim_model *m, const sim_hw *hw, int tp, sim_dtype kv)
{
    sim_step_cfg c = {.model = m, .hw = hw, .tp = tp, .prec = {SIM_DT_BF16, SIM_DT_BF16, kv}};
    return c;
}

/* Llama-3.1-8B on the H100 fixture, TP 1, bf16: the plan of `batch` sequences of 1024 + 1024. */
static void plan_8b_h100(double util, int64_t batch, sim_mem_report *r)
{
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = cfg_for(&m, &hw, 1, SIM_DT_BF16);
    sim_mem_plan(&c, util, NULL, batch, 1024, 1024, r);
}

/* The MoE workspace takes the expert slice from graph.h (sim_par_moe_slice): Qwen3-30B-A3B with
 * data-parallel attention over 2 groups of TP 2 and the experts split by TP over all 4 GPUs (no
 * EP): 768 / 4 = 192 columns a GPU, not 768 / 2. Per token: residual + normed 2 x 2048 x 2 =
 * 8,192, plus the widest of attention ((16 + 2 x 2) x 128 x 2 + 16 x 128 x 2 = 9,216), the dense
 * MLP (6 x 3072 = 18,432) and the 8 routed copies (8 x (2048 x 2 + 2 x 192 x 2 + 192 x 2) =
 * 41,984): 50,176 B; 1000 tokens over the 2 groups: 25,088,000 B (768 / 2 would give 29,696,000). */
static void test_workspace_moe_slice(void **state)
{
    (void)state;
    sim_model m = tu_model("qwen3-30b-a3b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = cfg_for(&m, &hw, 2, SIM_DT_BF16);
    c.dp_attention = true;
    c.dp = 2;
    assert_near(sim_mem_workspace_bytes(&c, 1000.0, 0.0), 25088000.0, 1e-6);
}

static void test_plan_numbers(void **state)
{
    (void)state;
    sim_mem_report r;
    plan_8b_h100(0.9, 8, &r);
    /* weights: 2 B x 8,030,261,248 parameters */
    assert_near(r.weight_bytes, 16060522496.0, 1e-12);
    /* KV: 8 sequences x 2048 tokens x 131,072 B = 2,147,483,648 */
    assert_near(r.kv_bytes, 2147483648.0, 0);
    /* workspace per token: residual + normed 2 x 4096 x 2 = 16,384, plus the wider of attention
     * ((32 + 2x8) x 128 x 2 + 32 x 128 x 2 = 20,480) and MLP (2 x 14336 x 2 + 14336 x 2 =
     * 86,016): 102,400 B x 8192 prefill tokens, plus 8 x 128256 fp32 logits = 842,964,992 */
    assert_near(r.workspace_bytes, 102400.0 * 8192 + 8.0 * 128256 * 4, 0);
    /* capacity 79.6 GiB x 0.9 = 76.92 GB */
    assert_near(r.capacity_bytes, 79.6 * 1073741824.0 * 0.9, 1e-12);
    assert_true(r.fits);
    /* largest batch: (76.92e9 - 16.06e9 weights - 1 GiB runtime) / (2048 x 131072 + 1024 x
     * 102400 + 128256 x 4 = 373,806,080 B per sequence) = 159.9 -> 159 */
    assert_int_equal(r.max_batch, 159);
}

/* KV bytes per sequence with sliding-window layers: gpt-oss-120b, bf16 KV, TP 1: 2 (K, V) x 8
 * heads x 64 x 2 B = 2048 B per token per layer; 18 full layers keep every token, 18 sliding
 * ones their last 128. 4K: 18 x 2048 x 4096 + 18 x 2048 x 128 = 150,994,944 + 4,718,592 =
 * 155,713,536 B (all 36 at full length: 301,989,888). 128K: 18 x 2048 x 131072 + 4,718,592 =
 * 4,836,556,800 B (9,663,676,416). Mistral-7B (every layer sliding, window 4096, 32 x 2 x 8 x
 * 128 x 2 = 131,072 B per token): 4096 x 131,072 = 536,870,912 B at 4K and at its 32K alike. */
static void test_kv_bytes_per_seq_sliding(void **state)
{
    (void)state;
    sim_model m = tu_model("gpt-oss-120b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = cfg_for(&m, &hw, 1, SIM_DT_BF16);
    assert_near(sim_mem_kv_bytes_per_token(&c), 73728.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 4096.0), 155713536.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 131072.0), 4836556800.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 100.0), 100.0 * 73728.0, 0); /* inside the window */
    sim_model mi = tu_model("mistral-7b");
    c = cfg_for(&mi, &hw, 1, SIM_DT_BF16);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 4096.0), 536870912.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 32768.0), 536870912.0, 0);
    /* Llama 4 Scout (2 x 8 x 128 x 2 = 4096 B per token per layer, 12 full + 36 chunked layers
     * of 8192): 4K, inside one chunk, 48 x 4096 x 4096 = 805,306,368 B; 128K: 12 x 4096 x 131072
     * + 36 x 4096 x 8192 = 6,442,450,944 + 1,207,959,552 = 7,650,410,496 B (25,769,803,776 at
     * full length) */
    sim_model l4 = tu_model("llama-4-scout");
    c = cfg_for(&l4, &hw, 1, SIM_DT_BF16);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 4096.0), 805306368.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 131072.0), 7650410496.0, 0);
    /* Gemma 3 27B (2 x 16 x 128 x 2 = 8192 B per token per layer, 10 full + 52 sliding of 1024):
     * 4K: 10 x 8192 x 4096 + 52 x 8192 x 1024 = 335,544,320 + 436,207,616 = 771,751,936 B; 128K:
     * 10 x 8192 x 131072 + 436,207,616 = 11,173,625,856 B (66,571,993,088 at full length) */
    sim_model g3 = tu_model("gemma-3-27b");
    c = cfg_for(&g3, &hw, 1, SIM_DT_BF16);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 4096.0), 771751936.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 131072.0), 11173625856.0, 0);
    /* a uniform model: tokens x per token */
    sim_model l = tu_model("llama-3.1-8b");
    c = cfg_for(&l, &hw, 1, SIM_DT_BF16);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 4096.0), 4096.0 * 131072.0, 0);
}

/* KV per sequence at 4K and 128K of the sparse-attention and vision-language families.
 * DeepSeek-V3.2 (bf16 latent, TP 8: MLA's latent is not split by TP): per layer the latent
 * (512 + 64) x 2 = 1152 B and the indexer's fp8 key with its fp32 scale, 128 + 4 = 132 B
 * (DeepseekV32IndexerCache), 61 layers: 61 x 1284 = 78,324 B a token; 4K 320,815,104 B, 128K
 * 10,266,083,328 B. Qwen2.5-VL-72B (its Qwen2.5 decoder, TP 4): 80 x 2 x (8 / 4) x 128 x 2 =
 * 81,920 B a token; 4K 335,544,320 B, 128K 10,737,418,240 B (the vision tower caches nothing). */
static void test_kv_bytes_per_seq_dsa_vl(void **state)
{
    (void)state;
    sim_hw hw = tu_hw("h200");
    sim_model d = tu_model("deepseek-v3.2");
    sim_step_cfg c = cfg_for(&d, &hw, 8, SIM_DT_BF16);
    assert_near(sim_mem_kv_bytes_per_token(&c), 78324.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 4096.0), 320815104.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 131072.0), 10266083328.0, 0);
    sim_model v = tu_model("qwen2.5-vl-72b");
    c = cfg_for(&v, &hw, 4, SIM_DT_BF16);
    assert_near(sim_mem_kv_bytes_per_token(&c), 81920.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 4096.0), 335544320.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 131072.0), 10737418240.0, 0);
}

/* Hybrid linear models keep a constant state per sequence beside the attention layers' KV
 * (graph.h's sim_graph_linear_state_bytes). Qwen3-Next-80B, TP 1: 12 x 2 x 2 x 256 x 2 = 24,576
 * B per token, 36 x 1,097,728 = 39,518,208 B of state: 4K 100,663,296 + 39,518,208 =
 * 140,181,504 B; 128K 3,221,225,472 + 39,518,208 = 3,260,743,680 B (all 48 layers as attention
 * at 128K: 12,884,901,888). Nemotron-Nano-9B-v2, TP 1: 4 x 2 x 8 x 128 x 2 = 16,384 B per token,
 * 27 x 2,695,168 = 72,769,536 B of state: 4K 67,108,864 + 72,769,536 = 139,878,400 B; 128K
 * 2,147,483,648 + 72,769,536 = 2,220,253,184 B. */
static void test_state_bytes_per_seq(void **state)
{
    (void)state;
    sim_hw hw = tu_hw("h100-sxm");
    sim_model q = tu_model("qwen3-next-80b-a3b");
    sim_step_cfg c = cfg_for(&q, &hw, 1, SIM_DT_BF16);
    assert_near(sim_mem_kv_bytes_per_token(&c), 24576.0, 0);
    assert_near(sim_mem_state_bytes_per_seq(&c), 39518208.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 4096.0), 140181504.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 131072.0), 3260743680.0, 0);
    /* speculation with 2 tokens (vLLM's MambaSpec num_speculative_blocks): each sequence holds
     * its state twice more and two more tokens of KV: 2 x 39,518,208 + 2 x 24,576 = 79,085,568 B */
    sim_mem_report r0, r2;
    const sim_mem_extra two = {.kv_slots_per_seq = 2};
    sim_mem_plan(&c, 0.9, NULL, 1, 1024, 1024, &r0);
    sim_mem_plan(&c, 0.9, &two, 1, 1024, 1024, &r2);
    assert_near(r2.kv_bytes - r0.kv_bytes, 79085568.0, 1e-6);
    sim_model n = tu_model("nemotron-nano-9b-v2");
    c = cfg_for(&n, &hw, 1, SIM_DT_BF16);
    assert_near(sim_mem_state_bytes_per_seq(&c), 72769536.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 4096.0), 139878400.0, 0);
    assert_near(sim_mem_kv_bytes_per_seq(&c, 131072.0), 2220253184.0, 0);
    /* two pipeline stages of 28 blocks: the mean block (17,776,454,656 B of weights less the two
     * tables and the final norm, 2,348,819,200, over 56) x 28 = 7,713,817,728 B, the last stage
     * with the LM head and the final norm, 1,174,414,080: 8,888,231,808 B */
    c.pp = 2;
    assert_near(sim_mem_weight_bytes(&c), 8888231808.0, 1e-12);
    c.pp = 1;
    /* a model without linear layers keeps none */
    sim_model l = tu_model("llama-3.1-8b");
    c = cfg_for(&l, &hw, 1, SIM_DT_BF16);
    assert_near(sim_mem_state_bytes_per_seq(&c), 0.0, 0);
}

static void test_plan_of_free_memory(void **state)
{
    (void)state;
    /* TensorRT-LLM's rule, same batch: the KV cache may take 0.9 of what weights, workspace and
     * reserve leave. capacity = 16,060,522,496 + 1,073,741,824 + 842,964,992 + 0.9 x (HBM
     * 85,469,849,190.4 - those) = 78,720,587,202.56 B (vs 76.92e9 as a share of all HBM).
     * Largest batch: B x 268,435,456 KV <= 0.9 x (HBM - weights - reserve - B x 105,370,624
     * workspace) -> B <= 61,502,026,383.36 / 363,269,017.6 = 169.3 -> 169 */
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = cfg_for(&m, &hw, 1, SIM_DT_BF16);
    c.mem_rule = SIM_MEM_OF_FREE;
    sim_mem_report r;
    sim_mem_plan(&c, 0.9, NULL, 8, 1024, 1024, &r);
    assert_near(r.capacity_bytes, 78720587202.56, 1e-12);
    assert_true(r.fits);
    assert_int_equal(r.max_batch, 169);
}

static void test_does_not_fit(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-70b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = cfg_for(&m, &hw, 1, SIM_DT_BF16);
    sim_mem_report r;
    sim_mem_plan(&c, 0.9, NULL, 1, 1024, 1024, &r);
    assert_false(r.fits);
    assert_int_equal(r.max_batch, 0);
    sim_err err = {{0}};
    assert_int_equal(sim_mem_fail(&r, &c, &err), SIM_EINPUT);
    /* 141.1 GB of weights alone; 79.6 GiB x 0.9 = 76.9 GB */
    assert_non_null(strstr(err.msg, "needs 1"));
    assert_non_null(strstr(err.msg, "weights 141.1"));
    assert_non_null(strstr(err.msg, "has 76.9 GB"));
    /* at TP 4 it fits */
    c = cfg_for(&m, &hw, 4, SIM_DT_BF16);
    sim_mem_plan(&c, 0.9, NULL, 1, 1024, 1024, &r);
    assert_true(r.fits);
}

/* DeepSeek-V3 (fp8) at TP 8 on 8 x H20 under SGLang's --mem-fraction-static, which holds the
 * weights and the KV pool only (SIM_MEM_STATIC): its default on H20 at TP 8 is 0.848
 * (test_engprof: reserve 14848 MiB of 97873.9). By hand:
 *   HBM 95.58 GiB = 102,628,243,537.92 B; x 0.848 = 87,028,750,520.2 B
 *   less the weights W (85.12 GB: vLLM on 8 Gaudi 2 reports 79.41 GiB = 85.27 GB for the same
 *   checkpoint, HabanaAI/vllm-fork#809) and the 1 GiB runtime reserve: the KV pool
 *   KV per token: 61 layers x (512 latent + 64 rope) x 2 B = 70,272 B (MLA, replicated per rank)
 *   1024 + 256 tokens a sequence: 89,948,160 B; the pool / that = the largest batch.
 * Under the "total" rule a serving step's activations (SGLang's 8192-token chunk, 2048 sequences'
 * logits: 0.95 GB) were charged inside the fraction as well (they sit in SGLang's 1 - 0.848)
 * and the pool came out negative: serve refused every request. */
static void test_static_fraction_deepseek_h20(void **state)
{
    (void)state;
    sim_model m = tu_model("deepseek-v3");
    sim_hw hw = tu_hw("h20");
    assert_near(hw.hbm_bytes, 102628243537.92, 1e-12);
    sim_prec_given given = {0};
    sim_step_cfg c = {.model = &m, .hw = &hw, .tp = 8, .mem_rule = SIM_MEM_STATIC};
    assert_true(sim_graph_prec_defaults(&m, &hw, &given, &c.prec));
    assert_int_equal(c.prec.weight, SIM_DT_FP8);
    const double w = sim_mem_weight_bytes(&c);
    assert_near(w, 85.12e9, 1e-3);
    assert_near(sim_mem_kv_bytes_per_token(&c), 70272.0, 1e-12);
    const double pool = 87028750520.2 - w - 1073741824.0;
    /* a serving step of SGLang's 8192-token chunk and 2048 sequences' logits */
    assert_near(sim_mem_kv_capacity_bytes(&c, 0.848, 8192, 2048, 0.0), pool, 1e-9);
    sim_mem_report r;
    sim_mem_plan(&c, 0.848, NULL, 1, 1024, 256, &r);
    assert_true(r.fits);
    assert_int_equal(r.max_batch, (int64_t)floor(pool / 89948160.0));
    assert_true(r.max_batch >= 9);
    /* the activations are outside the fraction: the capacity shown is HBM x 0.848 plus them */
    assert_near(r.capacity_bytes, 87028750520.2 + r.workspace_bytes, 1e-9);
    /* vLLM's reading of the same fraction charges the chunk's activations inside it */
    c.mem_rule = SIM_MEM_OF_TOTAL;
    assert_near(sim_mem_kv_capacity_bytes(&c, 0.848, 8192, 2048, 0.0),
                pool - sim_mem_workspace_bytes(&c, 8192.0, 2048.0), 1e-6);
    assert_true(sim_mem_kv_capacity_bytes(&c, 0.848, 8192, 2048, 0.0) < 0.0);
}

static void test_kv_precision_raises_capacity(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-70b");
    sim_hw hw = tu_hw("h200");
    sim_step_cfg c16 = cfg_for(&m, &hw, 8, SIM_DT_BF16);
    sim_step_cfg c8 = cfg_for(&m, &hw, 8, SIM_DT_FP8);
    sim_mem_report r16, r8;
    sim_mem_plan(&c16, 0.9, NULL, 1, 128, 16384, &r16);
    sim_mem_plan(&c8, 0.9, NULL, 1, 128, 16384, &r8);
    assert_near(r8.kv_bytes_per_token, r16.kv_bytes_per_token / 2, 0);
    /* With a short prompt and a long output, KV dominates each sequence's footprint (16512 x
     * 40960 B = 676 MB against 128 x 54272 B = 7 MB of prefill activations at TP 8), so halving
     * the KV bytes nearly doubles the batch. */
    assert_between((double)r8.max_batch / (double)r16.max_batch, 1.95, 2.0);
    /* a lower utilization leaves room for fewer sequences */
    sim_mem_report low;
    sim_mem_plan(&c16, 0.5, NULL, 1, 128, 16384, &low);
    assert_true(low.max_batch < r16.max_batch);
}

static void test_kv_capacity(void **state)
{
    (void)state;
    /* Llama-3.1-8B on one H100 at 0.9: 79.6 GiB x 0.9 = 76,922,864,271 B, minus weights
     * 16,060,522,496, minus the workspace of an 8192-token step with 256 logits
     * (8192 x 102,400 + 256 x 128256 x 4 = 970,194,944), minus 1 GiB runtime reserve:
     * 58,818,405,007 B = 28,046 blocks of 16 tokens x 131,072 B. */
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = {
        .model = &m, .hw = &hw, .tp = 1, .prec = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false}};
    double bytes = sim_mem_kv_capacity_bytes(&c, 0.9, 8192, 256, 0.0);
    assert_near(bytes, 58818405007.0, 1e-9);
    assert_int_equal((int64_t)(bytes / (16 * 131072.0)), 28046);
    /* fp8 KV: the same bytes hold twice the tokens */
    c.prec.kv = SIM_DT_FP8;
    assert_near(sim_mem_kv_capacity_bytes(&c, 0.9, 8192, 256, 0.0), bytes, 1e-12);
    assert_near(sim_graph_kv_bytes_per_token(&m, 1, &c.prec), 65536.0, 0);
}

static void test_kv_capacity_of_free_memory(void **state)
{
    (void)state;
    /* TensorRT-LLM's rule on the same setup: 0.9 of what the others leave. HBM 79.6 GiB =
     * 85,469,849,190.4 B, minus weights, workspace and reserve (16,060,522,496 + 970,194,944 +
     * 1,073,741,824) = 67,365,389,926.4 B free; x 0.9 = 60,628,850,933.8 B (vs 58,818,405,007 B
     * under vLLM's rule): 14,455 blocks of 32 tokens x 131,072 B. */
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_step_cfg c = {.model = &m,
                      .hw = &hw,
                      .tp = 1,
                      .prec = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16},
                      .mem_rule = SIM_MEM_OF_FREE};
    double bytes = sim_mem_kv_capacity_bytes(&c, 0.9, 8192, 256, 0.0);
    assert_near(bytes, 60628850933.76, 1e-9);
    assert_int_equal((int64_t)(bytes / (32 * 131072.0)), 14455);
}

/* The fraction of HBM a plan may take: (0, 1], the one check a static batch's and a serving
 * engine's configuration both make before their memory plan. */
static void test_check_util(void **state)
{
    (void)state;
    sim_err err = {{0}};
    assert_int_equal(sim_mem_check_util(0.9, &err), SIM_OK);
    assert_int_equal(sim_mem_check_util(1.0, &err), SIM_OK);
    /* at the top of the range the plan has all of HBM: 79.6 GiB = 79.6 x 2^30 =
     * 85,469,849,190.4 B on the H100 fixture */
    sim_mem_report r;
    plan_8b_h100(1.0, 1, &r);
    assert_near(r.capacity_bytes, 85469849190.4, 1e-12);
    const double bad[] = {0.0, -0.5, 1.5, 1.0000001, NAN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        assert_int_equal(sim_mem_check_util(bad[i], &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, "--gpu-memory-utilization: value "));
        assert_non_null(strstr(err.msg, ", expected a number in (0, 1]"));
    }
    sim_mem_check_util(1.5, &err);
    assert_string_equal(err.msg,
                        "--gpu-memory-utilization: value 1.5, expected a number in (0, 1]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_numbers),
        cmocka_unit_test(test_workspace_moe_slice),
        cmocka_unit_test(test_kv_bytes_per_seq_sliding),
        cmocka_unit_test(test_state_bytes_per_seq),
        cmocka_unit_test(test_kv_bytes_per_seq_dsa_vl),
        cmocka_unit_test(test_kv_capacity),
        cmocka_unit_test(test_kv_capacity_of_free_memory),
        cmocka_unit_test(test_plan_of_free_memory),
        cmocka_unit_test(test_does_not_fit),
        cmocka_unit_test(test_check_util),
        cmocka_unit_test(test_kv_precision_raises_capacity),
        cmocka_unit_test(test_static_fraction_deepseek_h20),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
