/* test_model.c - Hugging Face config.json reading and parameter counts. */
#include "testutil.h"

#include "jsonf.h"

#include "graph.h"

static void test_param_counts(void **state)
{
    (void)state;
    /* Published totals (the checkpoints' safetensors parameter counts). Per layer:
     * d*h*hd (q) + 2*d*kv*hd (k, v) + h*hd*d (o) + 3*d*f (gate, up, down) + 2*d (norms)
     * [+ (h + 2*kv)*hd qkv bias for Qwen2]; plus V*d embeddings, V*d LM head unless tied, d final
     * norm. E.g. Llama-2-7B: 32*(4*4096^2 + 3*4096*11008 + 2*4096) + 2*32000*4096 + 4096
     * = 6,738,415,616. */
    static const struct {
        const char *name;
        double published;
    } cases[] = {
        {"llama-2-7b", 6738415616.0},     {"llama-2-13b", 13015864320.0},
        {"llama-2-70b", 68976648192.0},   {"llama-3.1-8b", 8030261248.0},
        {"llama-3.1-70b", 70553706496.0}, {"llama-3.1-405b", 405853388800.0},
        {"llama-3.2-1b", 1235814400.0},   {"llama-3.2-3b", 3212749824.0},
        {"mistral-7b", 7241732096.0},
        {"qwen2.5-72b", 72706203648.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_model m = tu_model(cases[i].name);
        assert_near(sim_model_params(&m), cases[i].published, 0.01);
    }
}

static void test_fields(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-3.1-70b");
    assert_int_equal(m.hidden, 8192);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.head_dim, 128); /* derived: 8192 / 64 */
    assert_int_equal(m.dtype, SIM_DT_BF16);
    assert_string_equal(m.name, "llama-3.1-70b");
    assert_false(m.qkv_bias);
    m = tu_model("llama-3.2-1b");
    assert_int_equal(m.head_dim, 64); /* explicit head_dim */
    assert_true(m.tied_embeddings);
    m = tu_model("qwen2.5-72b");
    assert_true(m.qkv_bias);               /* qwen2 has q/k/v biases */
    assert_int_equal(m.sliding_window, 0); /* use_sliding_window: false */
    m = tu_model("mistral-7b");
    assert_int_equal(m.sliding_window, 4096);
    m = tu_model("llama-2-7b");
    assert_int_equal(m.dtype, SIM_DT_FP16);
    assert_int_equal(m.kv_heads, 32);
}

static void test_kv_bytes_per_token(void **state)
{
    (void)state;
    /* 2 (K,V) x layers x kv_heads x head_dim x 2 bytes:
     * 8B: 2*32*8*128*2 = 131072; 70B: 2*80*8*128*2 = 327680; 405B: 2*126*8*128*2 = 516096 */
    sim_prec p = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false, false};
    sim_model m = tu_model("llama-3.1-8b");
    assert_near(sim_graph_kv_bytes_per_token(&m, 1, &p), 131072.0, 0);
    m = tu_model("llama-3.1-70b");
    assert_near(sim_graph_kv_bytes_per_token(&m, 1, &p), 327680.0, 0);
    m = tu_model("llama-3.1-405b");
    assert_near(sim_graph_kv_bytes_per_token(&m, 1, &p), 516096.0, 0);
    p.kv = SIM_DT_FP8; /* fp8 KV halves it */
    assert_near(sim_graph_kv_bytes_per_token(&m, 1, &p), 258048.0, 0);
}

static sim_status load_text(const char *text, sim_model *m, sim_err *err)
{
    return sim_model_load(tu_write_tmp(text), m, err);
}

#define DENSE_FIELDS                                                                               \
    "\"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_hidden_layers\": 32, "             \
    "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"vocab_size\": 32000, "             \
    "\"max_position_embeddings\": 32768, \"torch_dtype\": \"bfloat16\""

static void test_moe_configs(void **state)
{
    (void)state;
    sim_model m;
    sim_err err = {{0}};
    /* a minimal Mixtral-style config: only the dense fields and the two MoE ones */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"num_local_experts\": 8, "
                               "\"num_experts_per_tok\": 2}",
                               &m, &err),
                     SIM_OK);
    assert_int_equal(m.experts, 8);
    assert_int_equal(m.experts_per_tok, 2);
    assert_int_equal(m.moe_intermediate, 14336); /* Mixtral experts are intermediate_size wide */
    assert_int_equal(m.moe_layers, 32);
    /* a MoE config without the top-k names the field */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"num_local_experts\": 8}", &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "num_experts_per_tok"));
    /* Qwen/DeepSeek-style experts need their width */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"num_experts\": 64, "
                               "\"num_experts_per_tok\": 8}",
                               &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "moe_intermediate_size"));
    /* top-k above the experts */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"num_local_experts\": 8, "
                               "\"num_experts_per_tok\": 9}",
                               &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "num_experts_per_tok"));
    /* Qwen's layer pattern: every 2nd layer MoE ((i+1) % 2 == 0: 16 of 32), minus layer 3 */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"num_experts\": 64, \"num_experts_per_tok\": "
                               "8, \"moe_intermediate_size\": 1408, \"decoder_sparse_step\": 2, "
                               "\"mlp_only_layers\": [3, 4], "
                               "\"shared_expert_intermediate_size\": 5632}",
                               &m, &err),
                     SIM_OK);
    assert_int_equal(m.moe_layers, 15);
    assert_int_equal(m.shared_intermediate, 5632);
    assert_true(m.shared_expert_gate);
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"num_experts\": 64, \"num_experts_per_tok\": "
                               "8, \"moe_intermediate_size\": 1408, \"mlp_only_layers\": [1e300]}",
                               &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "mlp_only_layers"));
    /* DeepSeek's: layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0 */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"n_routed_experts\": 64, "
                               "\"num_experts_per_tok\": 6, \"moe_intermediate_size\": 1408, "
                               "\"n_shared_experts\": 2, \"first_k_dense_replace\": 3, "
                               "\"moe_layer_freq\": 2}",
                               &m, &err),
                     SIM_OK);
    assert_int_equal(m.moe_layers, 14); /* even i >= 3: 4, 6, ..., 30 */
    assert_int_equal(m.shared_intermediate, 2 * 1408);
    /* a dense config with num_experts: 0 is still dense */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"num_experts\": 0}", &m, &err), SIM_OK);
    assert_int_equal(m.experts, 0);
    /* issue 33 N2: a mixture-of-experts config with no experts ran as a dense model; its top-k,
     * its expert width or its model_type say it is one, so 0 experts is refused */
    static const struct {
        const char *extra, *why;
    } moe0[] = {
        {"\"num_experts\": 0, \"num_experts_per_tok\": 8, \"moe_intermediate_size\": 768",
         "its num_experts_per_tok says so"},
        {"\"n_routed_experts\": 0, \"moe_intermediate_size\": 2048",
         "its moe_intermediate_size says so"},
        {"\"model_type\": \"qwen3_moe\", \"num_experts\": 0", "its model_type says so"},
        {"\"model_type\": \"mixtral\", \"num_local_experts\": 0", "its model_type says so"},
    };
    for (size_t i = 0; i < sizeof moe0 / sizeof moe0[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "{" DENSE_FIELDS ", %s}", moe0[i].extra);
        assert_int_equal(load_text(text, &m, &err), SIM_EINPUT);
        if (!strstr(err.msg, moe0[i].why) || !strstr(err.msg, "is 0 in a mixture-of-experts")) {
            print_error("'%s': message '%s'\n", moe0[i].extra, err.msg);
            fail();
        }
    }
}

static void test_mla_and_layer_types(void **state)
{
    (void)state;
    sim_model m;
    sim_err err = {{0}};
    /* MLA needs its head dimensions */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"kv_lora_rank\": 512, \"qk_rope_head_dim\": "
                               "64, \"v_head_dim\": 128}",
                               &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "qk_nope_head_dim"));
    m = tu_model("deepseek-v3");
    assert_true(m.mla);
    assert_int_equal(m.kv_lora_rank, 512);
    assert_int_equal(m.q_lora_rank, 1536);
    assert_int_equal(m.qk_rope_dim, 64);
    assert_int_equal(m.moe_layers, 58); /* 61 layers, the first 3 dense */
    assert_int_equal(m.mtp_layers, 1);
    /* gpt-oss: layer_types alternate sliding (128) and full attention */
    m = tu_model("gpt-oss-120b");
    assert_int_equal(m.sliding_window, 128);
    assert_int_equal(m.sliding_layers, 18);
    assert_true(m.attn_sinks);
    assert_int_equal(m.experts, 128);
    assert_int_equal(m.experts_per_tok, 4);
    /* a layer kind it does not know */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"sliding_window\": 128, \"layer_types\": "
                               "[\"sliding_attention\", \"linear_attention\"]}",
                               &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "layer_types"));
    /* Mistral's window applies to every layer */
    m = tu_model("mistral-7b");
    assert_int_equal(m.sliding_layers, 32);
}

/* DeepSeek's node-limited routing, read from n_group / topk_group (model.h) */
static void test_route_groups(void **state)
{
    (void)state;
    /* DeepSeek-V3's config: 256 experts in n_group 8 groups of 32, topk_group 4 */
    sim_model m = tu_model("deepseek-v3");
    assert_int_equal(m.route_groups, 8);
    assert_int_equal(m.route_topk_groups, 4);
    m = tu_model("mixtral-8x7b"); /* no groups: no limit */
    assert_int_equal(m.route_groups, 0);
    sim_err err = {{0}};
#define DS_MOE                                                                                     \
    "{" DENSE_FIELDS ", \"n_routed_experts\": 256, \"num_experts_per_tok\": 8, "                  \
    "\"moe_intermediate_size\": 2048"
    /* n_group 1 (DeepSeek-V2-Lite's), or every group kept: no limit */
    assert_int_equal(load_text(DS_MOE ", \"n_group\": 1, \"topk_group\": 1}", &m, &err), SIM_OK);
    assert_int_equal(m.route_groups, 0);
    assert_int_equal(load_text(DS_MOE ", \"n_group\": 8, \"topk_group\": 8}", &m, &err), SIM_OK);
    assert_int_equal(m.route_groups, 0);
    assert_int_equal(load_text(DS_MOE ", \"n_group\": 8}", &m, &err), SIM_OK); /* all 8 kept */
    assert_int_equal(m.route_groups, 0);
    /* DeepSeek-V2's 160 experts, 8 groups of 20, top-3 groups */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"n_routed_experts\": 160, "
                               "\"num_experts_per_tok\": 6, \"moe_intermediate_size\": 1536, "
                               "\"n_group\": 8, \"topk_group\": 3}",
                               &m, &err),
                     SIM_OK);
    assert_int_equal(m.route_groups, 8);
    assert_int_equal(m.route_topk_groups, 3);
    /* unequal groups, too few experts in the kept groups (1 group of 4 < 8), more groups kept
     * than there are */
    assert_int_equal(load_text(DS_MOE ", \"n_group\": 7, \"topk_group\": 4}", &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "field 'n_group' is 7, expected a divisor of the 256"));
    assert_int_equal(load_text(DS_MOE ", \"n_group\": 64, \"topk_group\": 1}", &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "field 'topk_group' is 1"));
    assert_int_equal(load_text(DS_MOE ", \"n_group\": 8, \"topk_group\": 9}", &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "topk_group"));
    assert_int_equal(load_text(DS_MOE ", \"n_group\": 0}", &m, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "n_group"));
#undef DS_MOE
}

static void test_moe_param_counts(void **state)
{
    (void)state;
    /* Hand-derived; per layer two RMSNorms (2d), plus V d embedding, V d LM head, d final norm.
     * Active = all layers with k experts instead of E, plus the LM head and final norm (not the
     * input embedding: DeepSeek-V3's and gpt-oss's cards; Mixtral's and Qwen3's add it).
     *
     * Mixtral-8x7B: attention 2*4096^2 + 2*4096*1024 = 41,943,040; expert 3*4096*14336 =
     * 176,160,768; router 8*4096 = 32,768. Total 32*(41,943,040 + 8*176,160,768 + 32,768 + 8192)
     * + 2*32000*4096 + 4096 = 46,702,792,704 (46.7B). Active 32*(41,943,040 + 2*176,160,768 +
     * 32,768 + 8192) + 131,072,000 + 4096 = 12,748,853,248; + the 0.131B embedding = 12.88B, the
     * card's 12.9B.
     *
     * DeepSeek-V3 (MLA): q_a 7168*1536 + norm 1536 + q_b 1536*128*192 + kv_a 7168*576 + norm 512
     * + kv_b 512*128*256 + o 128*128*7168 = 187,107,328; dense MLP 3*7168*18432 = 396,361,728;
     * expert 3*7168*2048 = 44,040,192; MoE MLP 256 experts + router 256*7168 + 1 shared =
     * 11,320,164,352. Total 61*(187,107,328 + 14,336) + 3*396,361,728 + 58*11,320,164,352 +
     * 2*129280*7168 + 7168 = 671,026,404,352 (671B). Active: 12,603,506,688 (attention, norms,
     * dense) + 58*(9*44,040,192 + 1,835,008) + 926,679,040 + 7168 = 36,625,603,584 (the card's
     * "36.6B incl. the 0.9B head", 37B).
     *
     * Qwen3-235B-A22B: attention 4096*8192*2 + 4096*512*2 + q/k norms 256 = 71,303,424; expert
     * 3*4096*1536 = 18,874,368; router 128*4096. Total 94*(71,303,424 + 128*18,874,368 + 524,288
     * + 8192) + 2*151936*4096 + 4096 = 235,093,634,560 (235B); active 94*(71,303,424 +
     * 8*18,874,368 + 524,288 + 8192) + 622,329,856 + 4096 = 21,568,433,664; + the 0.62B
     * embedding = 22.2B (22B).
     *
     * gpt-oss-120b: attention 2880*4096*2 + 2880*512*2 + biases 4096+1024+2880 + 64 sinks =
     * 26,550,336; expert 3*2880*2880 + biases 5760 + 2880 = 24,891,840; router 128*2880 + 128.
     * Total 36*(26,550,336 + 128*24,891,840 + 368,768 + 5760) + 2*201088*2880 + 2880 =
     * 116,829,156,672 (116.8B); active 36*(26,550,336 + 4*24,891,840 + 368,768 + 5760) +
     * 579,133,440 + 2880 = 5,132,849,472 (5.13B). */
    static const struct {
        const char *name;
        double total, active;
    } cases[] = {
        {"mixtral-8x7b", 46702792704.0, 12748853248.0},
        {"deepseek-v3", 671026404352.0, 36625603584.0},
        {"qwen3-235b-a22b", 235093634560.0, 21568433664.0},
        {"gpt-oss-120b", 116829156672.0, 5132849472.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_model m = tu_model(cases[i].name);
        assert_near(sim_model_params(&m), cases[i].total, 1e-12);
        assert_near(sim_model_active_params(&m), cases[i].active, 1e-12);
    }
    /* Qwen3-32B (dense, q/k norms): per layer q 5120*8192 + k, v 5120*1024 each + o 8192*5120 =
     * 94,371,840, q/k norms 256, MLP 3*5120*25600 = 393,216,000, norms 2*5120: 487,598,336;
     * x 64 = 31,206,293,504, + untied embedding and head 2*151936*5120 = 1,555,824,640 + the
     * final norm 5120 = 32,762,123,264 (the card's 32.8B; 31.2B without the embeddings) */
    sim_model q = tu_model("qwen3-32b");
    assert_near(sim_model_params(&q), 32762123264.0, 1e-12);
    /* the model cards' rounded figures */
    sim_model m = tu_model("mixtral-8x7b");
    assert_near(sim_model_params(&m), 46.7e9, 0.001);
    assert_near(sim_model_active_params(&m) + sim_model_embedding_params(&m), 12.9e9, 0.005);
    m = tu_model("deepseek-v3");
    assert_near(sim_model_active_params(&m), 37e9, 0.015);
    m = tu_model("qwen3-235b-a22b");
    assert_near(sim_model_active_params(&m) + sim_model_embedding_params(&m), 22e9, 0.01);
    m = tu_model("gpt-oss-120b");
    assert_near(sim_model_params(&m), 117e9, 0.002);
    assert_near(sim_model_active_params(&m), 5.1e9, 0.01);
    /* the other shipped MoE models: their cards' totals (Mixtral-8x22B 141B, Qwen3-30B-A3B 30.5B
     * with 3.3B active incl. the embedding, gpt-oss-20b 20.9B / 3.6B) */
    m = tu_model("mixtral-8x22b");
    assert_near(sim_model_params(&m), 140.6e9, 0.001);
    m = tu_model("qwen3-30b-a3b");
    assert_near(sim_model_params(&m), 30.5e9, 0.002);
    assert_near(sim_model_active_params(&m) + sim_model_embedding_params(&m), 3.3e9, 0.02);
    m = tu_model("gpt-oss-20b");
    assert_near(sim_model_params(&m), 20.9e9, 0.002);
    assert_near(sim_model_active_params(&m), 3.6e9, 0.005);
    /* dense: active = everything but the input embedding */
    m = tu_model("llama-3.1-8b");
    assert_near(sim_model_active_params(&m), sim_model_params(&m) - sim_model_embedding_params(&m),
                1e-12);
}

static void test_defaults_and_wrappers(void **state)
{
    (void)state;
    sim_model m;
    sim_err err = {{0}};
    /* no num_key_value_heads: MHA; no head_dim: hidden / heads */
    assert_int_equal(load_text("{\"hidden_size\": 2048, \"intermediate_size\": 5632, "
                               "\"num_hidden_layers\": 2, \"num_attention_heads\": 16, "
                               "\"vocab_size\": 1000, \"max_position_embeddings\": 2048, "
                               "\"torch_dtype\": \"float32\"}",
                               &m, &err),
                     SIM_OK);
    assert_int_equal(m.kv_heads, 16);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.dtype, SIM_DT_BF16); /* float32 checkpoints are served in bf16 */
    /* multimodal wrapper: the language model sits under text_config */
    assert_int_equal(
        load_text("{\"model_type\": \"llava\", \"text_config\": {" DENSE_FIELDS "}}", &m, &err),
        SIM_OK);
    assert_int_equal(m.intermediate, 14336);
    /* no torch_dtype: loads, but says so (the command line then asks for --weight-dtype) */
    assert_int_equal(load_text("{\"hidden_size\": 64, \"intermediate_size\": 128, "
                               "\"num_hidden_layers\": 1, \"num_attention_heads\": 4, "
                               "\"vocab_size\": 10, \"max_position_embeddings\": 64}",
                               &m, &err),
                     SIM_OK);
    assert_false(m.dtype_known);
}

static void test_bad_fields(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *field;
    } cases[] = {
        {"{\"hidden_size\": 0, \"intermediate_size\": 1, \"num_hidden_layers\": 1, "
         "\"num_attention_heads\": 1, \"vocab_size\": 1, \"max_position_embeddings\": 1}",
         "hidden_size"},
        {"{\"hidden_size\": 4096, \"intermediate_size\": -5, \"num_hidden_layers\": 1, "
         "\"num_attention_heads\": 1, \"vocab_size\": 1, \"max_position_embeddings\": 1}",
         "intermediate_size"},
        {"{\"hidden_size\": 4096, \"intermediate_size\": 1, \"num_hidden_layers\": 1.5, "
         "\"num_attention_heads\": 1, \"vocab_size\": 1, \"max_position_embeddings\": 1}",
         "num_hidden_layers"},
        {"{\"hidden_size\": 4096, \"intermediate_size\": 1, \"num_hidden_layers\": 1e12, "
         "\"num_attention_heads\": 1, \"vocab_size\": 1, \"max_position_embeddings\": 1}",
         "num_hidden_layers"},
        {"{\"hidden_size\": 4096, \"intermediate_size\": 1, \"num_hidden_layers\": 1, "
         "\"num_attention_heads\": 32, \"num_key_value_heads\": 5, \"vocab_size\": 1, "
         "\"max_position_embeddings\": 1}",
         "num_key_value_heads"},
        {"{\"hidden_size\": 4096, \"intermediate_size\": 1, \"num_hidden_layers\": 1, "
         "\"num_attention_heads\": 32, \"vocab_size\": \"many\", \"max_position_embeddings\": 1}",
         "vocab_size"},
        {"{\"hidden_size\": 4096, \"intermediate_size\": 1, \"num_hidden_layers\": 1, "
         "\"num_attention_heads\": 32, \"vocab_size\": 1, \"max_position_embeddings\": 1, "
         "\"torch_dtype\": \"int3\"}",
         "torch_dtype"},
        {"{\"hidden_size\": 4096, \"intermediate_size\": 1, \"num_hidden_layers\": 1, "
         "\"num_attention_heads\": 1, \"vocab_size\": 1}",
         "max_position_embeddings"},
        {"{\"hidden_size\": 4000, \"intermediate_size\": 1, \"num_hidden_layers\": 1, "
         "\"num_attention_heads\": 64, \"vocab_size\": 1, \"max_position_embeddings\": 1}",
         "head_dim"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_model m;
        sim_err err = {{0}};
        assert_int_equal(load_text(cases[i].text, &m, &err), SIM_EINPUT);
        if (!strstr(err.msg, cases[i].field) || !strstr(err.msg, tu_tmpdir())) {
            print_error("case %zu: '%s' does not name %s and the file\n", i, err.msg,
                        cases[i].field);
            fail();
        }
    }
}

/* Llama 4 by hand, d = 5120, V = 202048, 48 layers. Attention per layer: q and o 5120 x 5120,
 * k and v 5120 x 1024: 62,914,560, plus two norms 10,240. One expert (routed or the shared one)
 * 3 x 5120 x 8192 = 125,829,120; a dense MLP 3 x 5120 x 16384 = 251,658,240; router 5120 x E.
 * Embedding and LM head 1,034,485,760 each; final norm 5120. Vision tower (34 layers of h 1408,
 * f 5632): 34 x (4h^2 + 4h + 2hf + f + h + 4h) = 809,467,648, class 1408, positions 577 x 1408
 * = 812,416, patches 588 x 1408 = 827,904, pre/post norms 5632, adapter 5632 x 4096 + 4096^2 =
 * 39,845,888, projector 4096 x 5120 = 20,971,520: 871,932,416.
 * Scout (16 experts, every layer MoE): 48 x (62,924,800 + 17 x 125,829,120 + 81,920) +
 * 2,068,971,520 + 5120 + 871,932,416 = 108,641,793,536 (card: 109B, -0.33 %). Active, the
 * embedding counted as the card does: 48 x (62,924,800 + 2 x 125,829,120 + 81,920) + 5120 +
 * 2 x 1,034,485,760 = 17,172,894,720 (card: 17B, +1.02 %: the card rounds).
 * Maverick (128 experts, MoE every 2nd layer: 24 MoE, 24 dense): 24 x (62,924,800 + 129 x
 * 125,829,120 + 655,360) + 24 x (62,924,800 + 251,658,240) + 2,068,971,520 + 5120 + 871,932,416
 * = 401,583,781,376 (card: 400B, +0.40 %); active 24 x (62,924,800 + 2 x 125,829,120 + 655,360)
 * + 24 x 314,583,040 + 5120 + 2,068,971,520 = 17,184,691,200 (card 17B, +1.09 %). */
static void test_llama4(void **state)
{
    (void)state;
    sim_model m = tu_model("llama-4-scout");
    assert_int_equal(m.moe_layers, 48);
    assert_int_equal(m.experts, 16);
    assert_int_equal(m.experts_per_tok, 1);
    assert_int_equal(m.intermediate, 16384);
    assert_int_equal(m.moe_intermediate, 8192);
    assert_int_equal(m.shared_intermediate, 8192);
    assert_false(m.shared_expert_gate);
    assert_true(m.chunked_attn);
    assert_int_equal(m.sliding_layers, 36); /* no_rope_layers: 1, 1, 1, 0 repeated */
    assert_int_equal(m.sliding_window, 8192);
    assert_false(m.qk_norm); /* weightless L2 norm */
    assert_near(m.vision_params, 871932416.0, 0);
    assert_near(sim_model_params(&m), 108641793536.0, 0);
    assert_near(sim_model_active_params(&m) + sim_model_embedding_params(&m), 17172894720.0, 0);
    assert_near(sim_model_params(&m), 109e9, 0.01);
    assert_near(sim_model_active_params(&m) + sim_model_embedding_params(&m), 17e9, 0.011);
    m = tu_model("llama-4-maverick");
    assert_int_equal(m.moe_layers, 24);
    assert_int_equal(m.experts, 128);
    assert_int_equal(m.sliding_layers, 36); /* no list: every 4th layer NoPE (interval 4) */
    assert_near(sim_model_params(&m), 401583781376.0, 0);
    assert_near(sim_model_active_params(&m) + sim_model_embedding_params(&m), 17184691200.0, 0);
    assert_near(sim_model_params(&m), 400e9, 0.01);
    assert_near(sim_model_active_params(&m) + sim_model_embedding_params(&m), 17e9, 0.011);
}

/* Gemma 3 27B by hand (d 5376, 32 heads and 16 KV heads of 128, f 21504, 62 layers, V 262208
 * tied): a layer 2 x 5376 x 4096 + 2 x 5376 x 2048 = 66,060,288 (attention) + 256 (q/k norms)
 * + 3 x 5376 x 21504 = 346,816,512 + 4 x 5376 = 21,504 (norms) = 412,898,560; x 62 +
 * 1,409,630,208 + 5376 = 27,009,346,304 for the language model; the SigLIP tower (h 1152,
 * f 4304, 27 layers, 4096 patches of 588 values): patch embedding 588 x 1152 + 1152 = 678,528,
 * positions 4096 x 1152 = 4,718,592, a layer 4 x 1152^2 + 4 x 1152 (q, k, v, o) + 2 x 1152 x
 * 4304 + 4304 + 1152 (fc1, fc2) + 4 x 1152 (two LayerNorms) = 15,239,504, x 27 = 411,466,608,
 * post LayerNorm 2304, the projector's RMSNorm 1152 and 1152 x 5376 = 6,193,152: 423,060,336;
 * all 27,432,406,640 (the checkpoint's 27.4 B, +0.1 %).
 * Layers 5, 11, ..., 59 attend to everything: 10 full, 52 sliding of 1024. */
static void test_gemma3(void **state)
{
    (void)state;
    sim_model m = tu_model("gemma-3-27b");
    assert_int_equal(m.vocab, 262208);
    assert_int_equal(m.max_positions, 131072);
    assert_true(m.tied_embeddings);
    assert_true(m.dtype_known); /* the wrapper's torch_dtype */
    assert_int_equal(m.sliding_layers, 52);
    assert_int_equal(m.sliding_window, 1024);
    assert_int_equal(m.extra_norms, 2);
    assert_near(m.vision_params, 423060336.0, 0);
    assert_near(sim_model_params(&m), 27432406640.0, 0);
    assert_near(sim_model_params(&m), 27.4e9, 0.01);
}

/* Vision encoders and what an image becomes.
 * Qwen2.5-VL-72B's tower (h 1280, f 3456 SwiGLU, 32 layers, 16 heads, patch 14 x 14 x 2 frames x
 * 3 channels = 1176 values): patch embedding 1176 x 1280 = 1,505,280; a layer q, k, v, o with
 * biases 4 x 1280^2 + 4 x 1280 = 6,558,720, gate, up, down with biases 3 x 1280 x 3456 + 2 x
 * 3456 + 1280 = 13,279,232, two RMSNorms 2560: 19,840,512, x 32 = 634,896,384; the merger's
 * RMSNorm 1280, fc1 5120^2 + 5120 = 26,219,520, fc2 5120 x 8192 + 8192 = 41,951,232: 704,573,696.
 * The language model (Qwen2.5-72B): a layer 8192 x 8192 x 2 + 2 x 8192 x 1024 + qkv biases
 * 10,240 = 151,005,184 + 3 x 8192 x 29568 + 2 x 8192 = 877,684,736, x 80 + 2 x 152,064 x 8192 +
 * 8192 = 72,706,203,648; all 73,410,777,344 (the checkpoint's 73.4 B, +0.01 %).
 * A 1280 x 720 image (smart_resize, factor 28): 720 / 28 = 25.7 -> 26 x 28 = 728, 1280 / 28 =
 * 45.7 -> 46 x 28 = 1288; 26 x 46 = 1196 tokens, 52 x 92 = 4784 patches; a full layer
 * 4784^2 = 22,886,656 pairs; windows of 4 x 4 merged tokens: rows 6 x 4 + 2 (sum of squares
 * 6 x 16 + 4 = 100), columns 11 x 4 + 2 (180): 16 x 100 x 180 = 288,000 pairs.
 * 20 x 20 rounds to 28 x 28 = 784 < min_pixels 3136: beta = sqrt(3136 / 400) = 2.8, 56 x 56:
 * 4 tokens. 5000 x 3000 rounds to 5012 x 2996 = 15,015,952 > max_pixels 12,845,056: beta =
 * sqrt(15e6 / 12,845,056) = 1.08065, 4626.9 -> 165 x 28, 2776.1 -> 99 x 28: 16,335 tokens.
 * Gemma 3: 896 x 896 whatever the size, 64^2 = 4096 patches, 256 tokens.
 * Llama 4 Scout, 1280 x 720 on 336 tiles: the canvases that upscale need >= 4 columns (1344 /
 * 1280 = 1.05) and >= 3 rows (1008 / 720 = 1.4); the least upscale is 1.05, on 3 x 4 (12 tiles)
 * and 4 x 4 (16): 3 x 4, plus the global tile: 13 tiles of 577 = 7501 patches, 13 x 144 = 1872
 * tokens; 336 x 336 is one tile: 577 patches, 144 tokens. */
static void test_vision(void **state)
{
    (void)state;
    sim_model m = tu_model("qwen2.5-vl-72b");
    assert_int_equal(m.vision.kind, SIM_VISION_QWEN25);
    assert_int_equal(m.vision.full_layers, 4);
    assert_int_equal(m.vision.window, 4);
    assert_true(m.qkv_bias);
    assert_near(m.vision_params, 704573696.0, 0);
    assert_near(sim_model_params(&m), 73410777344.0, 0);
    assert_near(sim_model_params(&m), 73.4e9, 0.01);
    sim_vision_image im;
    assert_true(sim_model_vision_image(&m, 1280, 720, &im));
    assert_int_equal(im.resized_w, 1288);
    assert_int_equal(im.resized_h, 728);
    assert_int_equal(im.tokens, 1196);
    assert_int_equal(im.patches, 4784);
    assert_near(im.full_pairs, 22886656.0, 0);
    assert_near(im.window_pairs, 288000.0, 0);
    assert_true(sim_model_vision_image(&m, 20, 20, &im));
    assert_int_equal(im.tokens, 4);
    assert_true(sim_model_vision_image(&m, 5000, 3000, &im));
    assert_int_equal(im.resized_w, 4620);
    assert_int_equal(im.resized_h, 2772);
    assert_int_equal(im.tokens, 16335);
    assert_false(sim_model_vision_image(&m, 0, 720, &im));
    m = tu_model("gemma-3-27b");
    assert_int_equal(m.vision.kind, SIM_VISION_SIGLIP);
    assert_true(sim_model_vision_image(&m, 1280, 720, &im));
    assert_int_equal(im.patches, 4096);
    assert_int_equal(im.tokens, 256);
    assert_near(im.window_pairs, 0.0, 0);
    m = tu_model("llama-4-scout");
    assert_int_equal(m.vision.kind, SIM_VISION_LLAMA4);
    assert_true(sim_model_vision_image(&m, 1280, 720, &im));
    assert_int_equal(im.tiles, 13);
    assert_int_equal(im.patches, 7501);
    assert_int_equal(im.tokens, 1872);
    assert_near(im.full_pairs, 13.0 * 577 * 577, 0);
    assert_true(sim_model_vision_image(&m, 336, 336, &im));
    assert_int_equal(im.tiles, 1);
    assert_int_equal(im.tokens, 144);
    m = tu_model("llama-3.1-8b");
    assert_false(sim_model_vision_image(&m, 1280, 720, &im));
}

/* Qwen3-Next-80B-A3B: 12 gated-attention and 36 Gated DeltaNet layers, each with a MoE block.
 * By hand (d 2048):
 *   attention: q_proj 2048 x 16 x 256 x 2 (query and gate) 16,777,216 + k, v 2 x 2048 x 512
 *     2,097,152 + o 4096 x 2048 8,388,608 + q/k norms 512 = 27,263,488
 *   Gated DeltaNet: conv channels 2 x 16 x 128 + 32 x 128 = 8192, in_proj 2048 x (8192 + 4096 +
 *     64) 25,296,896 + conv 8192 x 4 32,768 + dt_bias, A_log 64 + norm 128 + out_proj 4096 x 2048
 *     8,388,608 = 33,718,464
 *   MoE: 512 x 3 x 2048 x 512 1,610,612,736 + router 1,048,576 + shared 3,145,728 + its gate
 *     2048 = 1,614,809,088; active: 10 experts 31,457,280 + 4,196,352 = 35,653,632
 *   norms 96 x 2048 = 196,608; embedding and LM head 2 x 151,936 x 2048 = 622,329,856; final
 *     norm 2048
 *   total 12 x 27,263,488 + 36 x 33,718,464 + 196,608 + 48 x 1,614,809,088 + 622,329,856 + 2048
 *     = 79,674,391,296 (the card's 80B, -0.4 %; the checkpoint's MTP layer is not counted)
 *   active 327,161,856 + 1,213,864,704 + 196,608 + 48 x 35,653,632 + 311,164,928 + 2048
 *     = 3,563,764,480 (the card's "3B activated" is the name's rounding: A3B; 3.25 B without
 *     the LM head)
 * Nemotron-Nano-9B-v2 (d 4480): Mamba-2 conv channels 2 x 8 x 128 + 128 x 80 = 12,288, in_proj
 * 4480 x (12,288 + 10,240 + 128) 101,498,880 + conv 12,288 x 4 + 12,288 bias 61,440 + dt_bias,
 * A_log, D 384 + norm 10,240 + out_proj 10,240 x 4480 45,875,200 = 147,446,144; attention
 * 22,937,600 + 9,175,040 + 22,937,600 = 55,050,240; relu2 MLP 2 x 4480 x 15,680 = 140,492,800;
 * 56 norms 250,880: 27 x 147,446,144 + 4 x 55,050,240 + 25 x 140,492,800 + 250,880 =
 * 7,713,817,728; + 2 x 587,202,560 + 4480 = 8,888,227,328 (the checkpoint's 8.89 B). */
static void test_hybrid_linear(void **state)
{
    (void)state;
    /* DeepSeek-V3.2: DeepSeek-V3's parameters and 61 indexers of 1536 x 8192 + 7168 x (128 + 64)
     * + 2 x 128 = 13,959,424: + 851,524,864 (671.9 B; the card's 685 B adds the 14 B MTP layer
     * as V3's does); the indexer runs for every token, so the active count grows by as much */
    sim_model v3 = tu_model("deepseek-v3"), v32 = tu_model("deepseek-v3.2");
    assert_int_equal(v32.index_topk, 2048);
    assert_int_equal(v32.index_heads, 64);
    assert_int_equal(v32.index_head_dim, 128);
    assert_near(sim_model_indexer_params(&v32), 13959424.0, 0);
    assert_near(sim_model_indexer_params(&v3), 0.0, 0);
    assert_near(sim_model_params(&v32) - sim_model_params(&v3), 61.0 * 13959424.0, 1e-9);
    assert_near(sim_model_active_params(&v32) - sim_model_active_params(&v3), 61.0 * 13959424.0,
                1e-9);
    sim_model q = tu_model("qwen3-next-80b-a3b");
    assert_int_equal(q.linear_kind, SIM_LINEAR_GDN);
    assert_int_equal(q.linear_layers, 36);
    assert_int_equal(sim_model_attn_layers(&q), 12);
    assert_int_equal(sim_model_mlp_layers(&q), 48);
    assert_int_equal(q.moe_layers, 48);
    assert_true(q.attn_out_gate);
    assert_near(sim_model_attn_params(&q), 27263488.0, 0);
    assert_near(sim_model_linear_params(&q), 33718464.0, 0);
    assert_near(sim_model_params(&q), 79674391296.0, 0);
    assert_near(sim_model_params(&q), 80e9, 0.01);
    assert_near(sim_model_active_params(&q), 3563764480.0, 0);

    sim_model n = tu_model("nemotron-nano-9b-v2");
    assert_int_equal(n.linear_kind, SIM_LINEAR_MAMBA2);
    assert_int_equal(n.linear_layers, 27);
    assert_int_equal(sim_model_attn_layers(&n), 4);
    assert_int_equal(sim_model_mlp_layers(&n), 25);
    assert_true(n.mlp_ungated);
    assert_near(sim_model_linear_params(&n), 147446144.0, 0);
    assert_near(sim_model_params(&n), 8888227328.0, 0);
    assert_near(sim_model_params(&n), 8.89e9, 0.01);
    assert_near(sim_model_active_params(&n), 7713817728.0 + 587202560.0 + 4480.0, 0);
}

/* A family, wrapper, architecture or layer kind infersim does not price is refused naming the
 * field and its value, before any shape field is asked for (a Mamba config has no
 * num_attention_heads; it must not fail on that). A priced family missing a field names it. */
static void test_unpriced_families(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *field, *value;
    } cases[] = {
        /* state-spaces/mamba-2.8b-hf's config: d_model-less hidden_size, no attention fields */
        {"{\"model_type\": \"mamba\", \"architectures\": [\"MambaForCausalLM\"], "
         "\"hidden_size\": 2560, \"num_hidden_layers\": 64, \"state_size\": 16}",
         "model_type", "mamba"},
        {"{" DENSE_FIELDS ", \"architectures\": [\"Qwen3_5MoeForCausalLM\"]}", "architectures",
         "Qwen3_5MoeForCausalLM"},
        {"{" DENSE_FIELDS ", \"model_type\": \"qwen3_5_moe\"}", "model_type", "qwen3_5_moe"},
        /* priced hybrid families missing a field they need, or with an unpriced block kind */
        {"{" DENSE_FIELDS ", \"model_type\": \"qwen3_next\"}", "linear_num_key_heads",
         "missing"},
        {"{" DENSE_FIELDS ", \"model_type\": \"nemotron_h\"}", "hybrid_override_pattern",
         "missing"},
        {"{\"hidden_size\": 64, \"intermediate_size\": 128, \"num_hidden_layers\": 4, "
         "\"num_attention_heads\": 4, \"vocab_size\": 10, \"max_position_embeddings\": 4096, "
         "\"model_type\": \"nemotron_h\", \"hybrid_override_pattern\": \"ME*-\"}",
         "hybrid_override_pattern", "'E'"},
        {"{\"hidden_size\": 64, \"intermediate_size\": 128, \"num_hidden_layers\": 4, "
         "\"num_attention_heads\": 4, \"vocab_size\": 10, \"max_position_embeddings\": 4096, "
         "\"model_type\": \"nemotron_h\", \"hybrid_override_pattern\": \"M-*-\"}",
         "mamba_num_heads", "missing"},
        {"{" DENSE_FIELDS ", \"linear_num_value_heads\": 32}", "linear_num_value_heads",
         "DeltaNet"},
        {"{" DENSE_FIELDS ", \"hybrid_override_pattern\": \"M-M*\"}", "hybrid_override_pattern",
         "Mamba"},
        {"{" DENSE_FIELDS ", \"model_type\": \"deepseek_v33\"}", "model_type", "deepseek_v33"},
        /* DeepSeek-V3.2 without its MLA or its indexer's fields */
        {"{" DENSE_FIELDS ", \"model_type\": \"deepseek_v32\"}", "kv_lora_rank", "missing"},
        {"{" DENSE_FIELDS ", \"model_type\": \"deepseek_v32\", \"kv_lora_rank\": 512, "
         "\"q_lora_rank\": 1536, \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, "
         "\"v_head_dim\": 128, \"index_topk\": 2048, \"index_head_dim\": 128}",
         "index_n_heads", "missing"},
        {"{" DENSE_FIELDS ", \"index_topk\": 2048}", "index_topk", "DSA"},
        {"{\"model_type\": \"mllama\", \"text_config\": {" DENSE_FIELDS "}}", "model_type",
         "mllama"},
        /* Qwen3-VL (Qwen/Qwen3-VL-4B-Instruct's config.json shape): its DeepStack features
         * (vision_config.deepstack_visual_indexes, added into the first decoder layers) and
         * learned position embeddings are not priced; refused by its wrapper type */
        {"{\"model_type\": \"qwen3_vl\", \"architectures\": "
         "[\"Qwen3VLForConditionalGeneration\"], \"text_config\": {" DENSE_FIELDS
         ", \"model_type\": \"qwen3_vl_text\"}, \"vision_config\": {\"depth\": 24, "
         "\"hidden_size\": 1024, \"deepstack_visual_indexes\": [5, 11, 17]}}",
         "model_type", "qwen3_vl"},
        {"{\"model_type\": \"llava\", \"text_config\": {" DENSE_FIELDS
         ", \"model_type\": \"gemma2\"}}",
         "model_type", "gemma2"},
        {"{" DENSE_FIELDS ", \"mamba_d_state\": 128}", "mamba_d_state", "Mamba"},
        /* Llama 4's own fields, malformed */
        {"{\"model_type\": \"llama4_text\", " DENSE_FIELDS ", \"num_local_experts\": 16, "
         "\"num_experts_per_tok\": 1, \"intermediate_size_mlp\": 16384, \"moe_layers\": \"all\"}",
         "moe_layers", "not a list"},
        {"{\"model_type\": \"llama4_text\", " DENSE_FIELDS ", \"num_local_experts\": 16, "
         "\"num_experts_per_tok\": 1, \"intermediate_size_mlp\": 16384, \"moe_layers\": [99]}",
         "moe_layers", "layer index"},
        {"{\"model_type\": \"llama4_text\", " DENSE_FIELDS ", \"num_local_experts\": 16, "
         "\"num_experts_per_tok\": 1, \"intermediate_size_mlp\": 16384, "
         "\"no_rope_layers\": [1, 0]}",
         "no_rope_layers", "2 entries"},
        {"{\"model_type\": \"llama4_text\", " DENSE_FIELDS ", \"intermediate_size_mlp\": 16384}",
         "num_local_experts", "missing"},
        /* a priced family missing a field it needs: Llama 4 without its dense MLP width */
        {"{\"model_type\": \"llama4_text\", " DENSE_FIELDS ", \"num_local_experts\": 16, "
         "\"num_experts_per_tok\": 1}",
         "intermediate_size_mlp", "missing"},
        {"{" DENSE_FIELDS ", \"architectures\": \"LlamaForCausalLM\"}", "architectures",
         "not a list"},
        {"{\"hidden_size\": 64, \"intermediate_size\": 128, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 4, \"vocab_size\": 10, \"max_position_embeddings\": 4096, "
         "\"sliding_window\": 128, \"layer_types\": [\"full_attention\", \"linear_attention\"]}",
         "layer_types", "linear_attention"},
        /* a priced family (gpt_oss) without a field it needs */
        {"{\"model_type\": \"gpt_oss\", \"hidden_size\": 2880, \"intermediate_size\": 2880, "
         "\"num_hidden_layers\": 36, \"vocab_size\": 201088, \"max_position_embeddings\": 131072}",
         "num_attention_heads", "missing"},
        {"{" DENSE_FIELDS ", \"model_type\": \"qwen3_moe\", \"num_experts\": 128, "
         "\"num_experts_per_tok\": 8}",
         "moe_intermediate_size", "missing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_model m;
        sim_err err = {{0}};
        assert_int_equal(load_text(cases[i].text, &m, &err), SIM_EINPUT);
        if (!strstr(err.msg, cases[i].field) || !strstr(err.msg, cases[i].value) ||
            !strstr(err.msg, tu_tmpdir())) {
            print_error("case %zu: '%s' does not name %s, %s and the file\n", i, err.msg,
                        cases[i].field, cases[i].value);
            fail();
        }
    }
    /* every shipped family still loads: a priced model_type with its architecture */
    sim_model m;
    sim_err err = {{0}};
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"model_type\": \"llama\", "
                               "\"architectures\": [\"LlamaForCausalLM\"]}",
                               &m, &err),
                     SIM_OK);
}

/* --model meta-llama/Llama-3.1-8B-Instruct: the shipped file that lists the id (CTest sets
 * INFERSIM_DATA to the source tree, one of the roots searched). */
static void test_hugging_face_ids(void **state)
{
    (void)state;
    char path[1024];
    assert_true(sim_model_find_hf("meta-llama/Llama-3.1-8B-Instruct", path, sizeof path));
    assert_non_null(strstr(path, "models/llama-3.1-8b.json"));
    assert_true(sim_model_find_hf("META-LLAMA/llama-3.1-70b", path, sizeof path)); /* any case */
    assert_non_null(strstr(path, "models/llama-3.1-70b.json"));
    assert_true(sim_model_find_hf("Qwen/Qwen2.5-72B-Instruct", path, sizeof path));
    assert_non_null(strstr(path, "qwen2.5-72b.json"));
    snprintf(path, sizeof path, "untouched");
    assert_false(sim_model_find_hf("meta-llama/Llama-3.1-8B-FP8", path, sizeof path));
    assert_string_equal(path, "untouched");
    /* every shipped model lists at least one id, and the file it names loads */
        static const char *const names[] = {
        "llama-2-7b",       "llama-2-13b",    "llama-2-70b",        "llama-3.1-8b",
        "llama-3.1-70b",    "llama-3.1-405b", "llama-3.2-1b",       "mistral-7b",
        "qwen2.5-72b",      "deepseek-v3",    "gpt-oss-120b",       "gpt-oss-20b",
        "llama-3.1-70b-awq", "llama-3.1-8b-fp8", "llama-3.1-8b-nvfp4", "mixtral-8x22b",
        "mixtral-8x7b",     "qwen3-235b-a22b", "qwen3-30b-a3b",     "llama-3.2-3b",
        "qwen3-32b"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        cJSON *root;
        sim_err err = {{0}};
        assert_int_equal(sim_jsonf_load(tu_path("models", names[i]), &root, &err), SIM_OK);
        const cJSON *ids = cJSON_GetObjectItemCaseSensitive(root, "infersim_hf_ids");
        assert_true(cJSON_GetArraySize(ids) >= 1);
        assert_true(sim_model_find_hf(cJSON_GetArrayItem(ids, 0)->valuestring, path, sizeof path));
        char want[64];
        snprintf(want, sizeof want, "/%s.json", names[i]);
        assert_non_null(strstr(path, want));
        cJSON_Delete(root);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_param_counts),          cmocka_unit_test(test_fields),
        cmocka_unit_test(test_kv_bytes_per_token),    cmocka_unit_test(test_moe_configs),
        cmocka_unit_test(test_mla_and_layer_types),   cmocka_unit_test(test_moe_param_counts),
        cmocka_unit_test(test_route_groups),
        cmocka_unit_test(test_defaults_and_wrappers), cmocka_unit_test(test_bad_fields),
        cmocka_unit_test(test_hugging_face_ids),      cmocka_unit_test(test_unpriced_families),
        cmocka_unit_test(test_llama4),
        cmocka_unit_test(test_gemma3),
        cmocka_unit_test(test_vision),
        cmocka_unit_test(test_hybrid_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
