/* test_quant.c - quantization_config as published checkpoints write it. */
#include "testutil.h"

#include "model.h"
#include "quant.h"

#define SHAPE                                                                                      \
    "\"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_hidden_layers\": 32, "             \
    "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"vocab_size\": 128256, "            \
    "\"max_position_embeddings\": 131072, \"torch_dtype\": \"bfloat16\""

static sim_status load_with(const char *qc, sim_model *m, sim_err *err)
{
    char text[2048];
    snprintf(text, sizeof text, "{" SHAPE ", \"quantization_config\": %s}", qc);
    const char *p = tu_write_tmp(text);
    sim_status st = sim_model_load(p, m, err);
    remove(p);
    return st;
}

static sim_quant quant_of(const char *qc)
{
    sim_model m;
    sim_err err = {{0}};
    if (load_with(qc, &m, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    assert_true(m.quant.present);
    return m.quant;
}

static void test_shipped_examples(void **state)
{
    (void)state;
    /* RedHatAI Llama-3.1-8B FP8-dynamic (compressed-tensors): fp8 weights per channel, fp8
     * activations per token */
    sim_model m = tu_model("llama-3.1-8b-fp8");
    assert_true(m.quant.present);
    assert_int_equal(m.quant.weight, SIM_DT_FP8);
    assert_true(m.quant.act_set && !m.quant.act_16bit);
    assert_int_equal(m.quant.act, SIM_DT_FP8);
    assert_false(m.quant.kv_set);
    assert_int_equal(m.quant.group_size, 0);
    /* hugging-quants Llama-3.1-70B AWQ-INT4: int4, group 128, zero points, fp16 math */
    m = tu_model("llama-3.1-70b-awq");
    assert_int_equal(m.quant.weight, SIM_DT_INT4);
    assert_true(m.quant.act_16bit);
    assert_int_equal(m.quant.group_size, 128);
    assert_true(m.quant.zero_point);
    assert_int_equal(m.dtype, SIM_DT_FP16);
    /* modelopt NVFP4 with an fp8 KV cache */
    m = tu_model("llama-3.1-8b-nvfp4");
    assert_int_equal(m.quant.weight, SIM_DT_FP4);
    assert_false(m.quant.act_set); /* fp4 math only where the device has fp4 tensor cores */
    assert_true(m.quant.kv_set);
    assert_int_equal(m.quant.kv, SIM_DT_FP8);
    /* an unquantized config has none */
    m = tu_model("llama-3.1-8b");
    assert_false(m.quant.present);
}

static void test_methods(void **state)
{
    (void)state;
    sim_quant q = quant_of("{\"quant_method\": \"fp8\", \"activation_scheme\": \"dynamic\"}");
    assert_int_equal(q.weight, SIM_DT_FP8);
    assert_int_equal(q.act, SIM_DT_FP8);
    assert_int_equal(q.block_n, 0);
    /* DeepSeek-V3's block scales */
    q = quant_of("{\"quant_method\": \"fp8\", \"weight_block_size\": [128, 128]}");
    assert_int_equal(q.block_n, 128);
    assert_int_equal(q.block_k, 128);
    /* GPTQ: 8 bits, per channel (-1), asymmetric */
    q = quant_of("{\"quant_method\": \"gptq\", \"bits\": 8, \"group_size\": -1, \"sym\": false}");
    assert_int_equal(q.weight, SIM_DT_INT8);
    assert_int_equal(q.group_size, 0);
    assert_true(q.zero_point);
    q = quant_of("{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 32}");
    assert_int_equal(q.weight, SIM_DT_INT4);
    assert_int_equal(q.group_size, 32);
    assert_false(q.zero_point);
    q = quant_of("{\"quant_method\": \"modelopt\", \"quant_algo\": \"W4A8_AWQ\"}");
    assert_int_equal(q.weight, SIM_DT_INT4);
    assert_int_equal(q.act, SIM_DT_FP8);
    assert_int_equal(q.group_size, 128);
    assert_false(q.experts_only);
    q = quant_of("{\"quant_method\": \"mxfp4\"}");
    assert_int_equal(q.weight, SIM_DT_MXFP4);
    assert_false(q.act_set); /* the device decides */
    assert_true(q.experts_only); /* vLLM's Mxfp4Config: linear layers unquantized */
    /* compressed-tensors W4A16 with groups of 64, asymmetric, fp8 KV */
    q = quant_of("{\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"group_0\": "
                 "{\"weights\": {\"num_bits\": 4, \"type\": \"int\", \"strategy\": \"group\", "
                 "\"group_size\": 64, \"symmetric\": false}, \"input_activations\": null}}, "
                 "\"kv_cache_scheme\": {\"num_bits\": 8, \"type\": \"float\"}}");
    assert_int_equal(q.weight, SIM_DT_INT4);
    assert_true(q.act_16bit);
    assert_int_equal(q.group_size, 64);
    assert_true(q.zero_point);
    assert_true(q.kv_set);
    assert_int_equal(q.kv, SIM_DT_FP8);
}

static void expect_bad(const char *qc, const char *needle)
{
    sim_model m;
    sim_err err = {{0}};
    assert_int_equal(load_with(qc, &m, &err), SIM_EINPUT);
    if (!strstr(err.msg, needle)) {
        print_error("'%s' does not name '%s'\n", err.msg, needle);
        fail();
    }
}

static void test_rejects(void **state)
{
    (void)state;
    /* a method infersim cannot price is an error naming the field and the value */
    expect_bad("{\"quant_method\": \"bitsandbytes\"}",
               "field 'quantization_config.quant_method' is \"bitsandbytes\"");
    expect_bad("{\"bits\": 4}", "'quantization_config.quant_method' is missing");
    expect_bad("{\"quant_method\": \"awq\", \"bits\": 3}", "'quantization_config.bits' is 3");
    expect_bad("{\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 0}",
               "'quantization_config.group_size' is 0");
    expect_bad("{\"quant_method\": \"modelopt\", \"quant_algo\": \"INT8_SQ\"}",
               "'quantization_config.quant_algo' is \"INT8_SQ\"");
    expect_bad("{\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"g\": "
               "{\"weights\": {\"num_bits\": 2, \"type\": \"int\"}}}}",
               "'quantization_config.config_groups.g.weights.num_bits' 2");
    expect_bad("{\"quant_method\": \"compressed-tensors\"}", "config_groups' is missing");
    expect_bad("{\"quant_method\": \"fp8\", \"activation_scheme\": \"lazy\"}",
               "'quantization_config.activation_scheme' is \"lazy\"");
    expect_bad("{\"quant_method\": \"fp8\", \"weight_block_size\": [128]}",
               "'quantization_config.weight_block_size' is not two integers");
    expect_bad("{\"quant_method\": \"fp8\", \"weight_block_size\": [128, 0.5]}",
               "'quantization_config.weight_block_size' is not two integers");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_examples),
        cmocka_unit_test(test_methods),
        cmocka_unit_test(test_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
