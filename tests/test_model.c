/* test_model.c - Hugging Face config.json reading and parameter counts. */
#include "testutil.h"

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
        {"llama-3.2-1b", 1235814400.0},   {"mistral-7b", 7241732096.0},
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
    sim_prec p = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false};
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

static void test_unsupported_architectures(void **state)
{
    (void)state;
    sim_model m;
    sim_err err = {{0}};
    /* Mixtral-style MoE */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"num_local_experts\": 8, "
                               "\"num_experts_per_tok\": 2}",
                               &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "mixture-of-experts"));
    assert_non_null(strstr(err.msg, "num_local_experts"));
    /* DeepSeek-style MLA */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"kv_lora_rank\": 512}", &m, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "MLA"));
    /* a dense config with num_experts: 0 is still dense */
    assert_int_equal(load_text("{" DENSE_FIELDS ", \"num_experts\": 0}", &m, &err), SIM_OK);
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
        load_text("{\"model_type\": \"mllama\", \"text_config\": {" DENSE_FIELDS "}}", &m, &err),
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
        if (!strstr(err.msg, cases[i].field) || !strstr(err.msg, "/tmp/infersim-test")) {
            print_error("case %zu: '%s' does not name %s and the file\n", i, err.msg,
                        cases[i].field);
            fail();
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_param_counts),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_kv_bytes_per_token),
        cmocka_unit_test(test_unsupported_architectures),
        cmocka_unit_test(test_defaults_and_wrappers),
        cmocka_unit_test(test_bad_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
