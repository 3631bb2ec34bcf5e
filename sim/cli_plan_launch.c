/* cli_plan_launch.c - the command lines that deploy and measure a plan's candidate (cli_plan.h).
 *
 * Each engine's spelling, from its documentation:
 *   vLLM `vllm serve` (docs.vllm.ai, Engine Arguments: --tensor-parallel-size,
 *     --pipeline-parallel-size, --max-num-seqs, --max-num-batched-tokens,
 *     --gpu-memory-utilization, --kv-cache-dtype {auto,fp8,...}, --quantization fp8; Expert
 *     Parallel Deployment, docs.vllm.ai/en/latest/serving/expert_parallel_deployment/:
 *     --enable-expert-parallel with --data-parallel-size, EP = TP x DP; disaggregated prefill
 *     with --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}').
 *   SGLang `python -m sglang.launch_server` (docs.sglang.io/advanced_features/server_arguments:
 *     --model-path, --tp (every GPU of the server), --dp with --enable-dp-attention, --ep-size,
 *     --pp-size, --max-running-requests, --chunked-prefill-size, --mem-fraction-static,
 *     --kv-cache-dtype fp8_e4m3, --quantization fp8; --disaggregation-mode prefill|decode).
 *   TensorRT-LLM `trtllm-serve` (nvidia.github.io/TensorRT-LLM/1.0.0/commands/trtllm-serve:
 *     --backend pytorch, --tp_size, --pp_size, --ep_size, --max_batch_size, --max_num_tokens,
 *     --kv_cache_free_gpu_memory_fraction, --extra_llm_api_options FILE holding
 *     enable_attention_dp and kv_cache_config.dtype); it quantizes no checkpoint itself.
 *   Speculative decoding: vLLM --speculative-config '{"method": "eagle3", "model": HEAD,
 *     "num_speculative_tokens": K}' (docs.vllm.ai, Speculative Decoding; methods eagle, eagle3,
 *     mtp: vllm/config/speculative.py); SGLang --speculative-algorithm EAGLE|EAGLE3|NEXTN
 *     --speculative-draft-model-path HEAD --speculative-num-steps K --speculative-eagle-topk 1
 *     --speculative-num-draft-tokens K+1 (docs.sglang.io, Speculative Decoding; NEXTN: the
 *     model's own MTP layers); TensorRT-LLM speculative_config {decoding_type: Eagle3,
 *     max_draft_len: K, speculative_model_dir: HEAD} or {decoding_type: MTP,
 *     num_nextn_predict_layers: K} in the options file (TensorRT-LLM 1.0 llm_args.py).
 *   vLLM `vllm bench serve`: the benchmark whose metrics infersim's serve reports (--backend,
 *     --dataset-name random, --random-input-len, --random-output-len, --random-range-ratio,
 *     --num-prompts, --request-rate, --burstiness, --seed, --percentile-metrics,
 *     --metric-percentiles, --goodput, --save-result).
 * Facts carried over with their source; no code copied.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every GPU of one instance: TP x data-parallel attention groups x pipeline stages. */
static int64_t instance_gpus(const cli_plan_row *r)
{
    return r->tp * (r->dp_attention && r->dp > 1 ? r->dp : 1) * r->pp;
}

static bool fp8_weights(const cli_plan_row *r) { return strcmp(r->precision, "fp8") == 0; }
static bool fp8_kv(const cli_plan_row *r) { return strncmp(r->kv_dtype, "fp8", 3) == 0; }

/* Each speculation's names in the engines' spellings; head: it needs a draft checkpoint. */
static const struct spec_name {
    const char *method, *vllm, *sglang, *trtllm;
    bool head;
} spec_names[] = {{"eagle", "eagle", "EAGLE", "Eagle", true},
                  {"eagle3", "eagle3", "EAGLE3", "Eagle3", true},
                  {"mtp", "mtp", "NEXTN", "MTP", false}};

static const struct spec_name *spec_name_of(const char *method)
{
    for (size_t i = 0; i < sizeof spec_names / sizeof spec_names[0]; i++)
        if (strcmp(spec_names[i].method, method) == 0)
            return &spec_names[i];
    return NULL;
}

bool cli_plan_spec_parse(const char *spec, char method[16], int64_t *k)
{
    const char *colon = strchr(spec, ':');
    if (!colon || colon - spec >= 16)
        return false;
    memcpy(method, spec, (size_t)(colon - spec));
    method[colon - spec] = '\0';
    char *end;
    long long v = strtoll(colon + 1, &end, 10);
    *k = v;
    return *end == '\0' && v >= 1 && v <= 16 && spec_name_of(method) != NULL;
}

void cli_plan_spec_spelling(const char *engine, const char *method, int64_t k, char *buf,
                            size_t len)
{
    const struct spec_name *n = spec_name_of(method);
    if (!n) {
        snprintf(buf, len, "%s", method);
    } else if (strcmp(engine, "sglang") == 0) {
        snprintf(buf, len, "%s", n->sglang);
    } else if (strcmp(engine, "trtllm") == 0) {
        if (n->head)
            snprintf(buf, len,
                     "{\"decoding_type\":\"%s\",\"max_draft_len\":%lld,"
                     "\"speculative_model_dir\":\"HEAD\"}",
                     n->trtllm, (long long)k);
        else
            snprintf(buf, len, "{\"decoding_type\":\"%s\",\"num_nextn_predict_layers\":%lld}",
                     n->trtllm, (long long)k);
    } else {
        snprintf(buf, len, "{\"method\":\"%s\",%s\"num_speculative_tokens\":%lld}", n->vllm,
                 n->head ? "\"model\":\"HEAD\"," : "", (long long)k);
    }
}

static void vllm_line(const cli_plan_row *r, int which, sim_strbuf *b)
{
    sim_strbuf_printf(b, "vllm serve %s --tensor-parallel-size %lld", r->hf_id, (long long)r->tp);
    if (r->pp > 1)
        sim_strbuf_printf(b, " --pipeline-parallel-size %lld", (long long)r->pp);
    if (r->dp_attention && r->dp > 1)
        sim_strbuf_printf(b, " --data-parallel-size %lld", (long long)r->dp);
    if (r->ep > 1)
        sim_strbuf_printf(b, " --enable-expert-parallel");
    sim_strbuf_printf(b, " --max-num-seqs %lld --max-num-batched-tokens %lld",
                      (long long)r->max_num_seqs, (long long)r->max_num_batched_tokens);
    sim_strbuf_printf(b, " --gpu-memory-utilization %.4g", r->gpu_memory_utilization);
    if (fp8_kv(r))
        sim_strbuf_printf(b, " --kv-cache-dtype fp8");
    if (fp8_weights(r))
        sim_strbuf_printf(b, " --quantization fp8");
    char method[16], sp[160];
    int64_t k;
    if (cli_plan_spec_parse(r->spec, method, &k)) {
        cli_plan_spec_spelling("vllm", method, k, sp, sizeof sp);
        sim_strbuf_printf(b, " --speculative-config '%s'", sp);
    }
    if (r->disagg)
        sim_strbuf_printf(b, " --port %d --kv-transfer-config "
                             "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
                          which == 0 ? 8100 : 8200);
}

static void sglang_line(const cli_plan_row *r, int which, sim_strbuf *b)
{
    bool dpa = r->dp_attention && r->dp > 1;
    sim_strbuf_printf(b, "python -m sglang.launch_server --model-path %s --tp %lld", r->hf_id,
                      (long long)r->tp * (dpa ? r->dp : 1));
    if (dpa)
        sim_strbuf_printf(b, " --dp %lld --enable-dp-attention", (long long)r->dp);
    if (r->ep > 1)
        sim_strbuf_printf(b, " --ep-size %lld", (long long)r->ep);
    if (r->pp > 1)
        sim_strbuf_printf(b, " --pp-size %lld", (long long)r->pp);
    sim_strbuf_printf(b, " --max-running-requests %lld --chunked-prefill-size %lld",
                      (long long)r->max_num_seqs, (long long)r->max_num_batched_tokens);
    sim_strbuf_printf(b, " --mem-fraction-static %.4g", r->gpu_memory_utilization);
    if (fp8_kv(r))
        sim_strbuf_printf(b, " --kv-cache-dtype fp8_e4m3");
    if (fp8_weights(r))
        sim_strbuf_printf(b, " --quantization fp8");
    char method[16], algo[160];
    int64_t k;
    if (cli_plan_spec_parse(r->spec, method, &k)) {
        cli_plan_spec_spelling("sglang", method, k, algo, sizeof algo);
        sim_strbuf_printf(b, " --speculative-algorithm %s", algo);
        if (spec_name_of(method)->head)
            sim_strbuf_printf(b, " --speculative-draft-model-path HEAD");
        sim_strbuf_printf(b,
                          " --speculative-num-steps %lld --speculative-eagle-topk 1 "
                          "--speculative-num-draft-tokens %lld",
                          (long long)k, (long long)k + 1);
    }
    if (r->disagg)
        sim_strbuf_printf(b, " --disaggregation-mode %s --port %d", which == 0 ? "prefill" : "decode",
                          which == 0 ? 30100 : 30200);
}

static bool trtllm_options(const cli_plan_row *r)
{
    return (r->dp_attention && r->dp > 1) || fp8_kv(r) || r->disagg || strcmp(r->spec, "none") != 0;
}

static void trtllm_line(const cli_plan_row *r, int which, sim_strbuf *b)
{
    bool dpa = r->dp_attention && r->dp > 1;
    sim_strbuf_printf(b, "trtllm-serve %s --backend pytorch --tp_size %lld", r->hf_id,
                      (long long)r->tp * (dpa ? r->dp : 1));
    if (r->pp > 1)
        sim_strbuf_printf(b, " --pp_size %lld", (long long)r->pp);
    if (r->ep > 1)
        sim_strbuf_printf(b, " --ep_size %lld", (long long)r->ep);
    sim_strbuf_printf(b, " --max_batch_size %lld --max_num_tokens %lld", (long long)r->max_num_seqs,
                      (long long)r->max_num_batched_tokens);
    sim_strbuf_printf(b, " --kv_cache_free_gpu_memory_fraction %.4g", r->gpu_memory_utilization);
    if (trtllm_options(r))
        sim_strbuf_printf(b, " --extra_llm_api_options extra-llm-api-config.yml");
    if (r->disagg)
        sim_strbuf_printf(b, " --port %d", which == 0 ? 8100 : 8200);
}

void cli_plan_launch_serve(const cli_plan_row *r, int which, sim_strbuf *out)
{
    if (strcmp(r->engine, "sglang") == 0)
        sglang_line(r, which, out);
    else if (strcmp(r->engine, "trtllm") == 0)
        trtllm_line(r, which, out);
    else
        vllm_line(r, which, out);
}

/* The speculation's note: the head the operator names, the acceptance it was priced with. */
static void spec_note(const cli_plan_row *r, sim_strbuf *out)
{
    char method[16];
    int64_t k;
    if (!cli_plan_spec_parse(r->spec, method, &k))
        return;
    if (spec_name_of(method)->head)
        sim_strbuf_printf(out, "%s: HEAD is the %s head's checkpoint for %s; ", method,
                          strcmp(method, "eagle3") == 0 ? "EAGLE-3" : "EAGLE", r->hf_id);
    else
        sim_strbuf_printf(out, "%s: the checkpoint's own MTP layers; ", method);
    if (r->spec_acceptance_data[0])
        sim_strbuf_printf(out,
                          "priced with the acceptance published on dataset %s "
                          "(tools/data/spec_acceptance.csv): traffic that accepts less gains less\n",
                          r->spec_acceptance_data);
    else
        sim_strbuf_printf(out, "priced with the acceptance given on the command line\n");
}

void cli_plan_launch_notes(const cli_plan_row *r, sim_strbuf *out)
{
    int64_t g = instance_gpus(r);
    if (r->disagg)
        sim_strbuf_printf(out,
                          "%lld prefill instance%s (the first line) and %lld decode instance%s (the "
                          "second), %lld GPUs each, behind the engine's P/D proxy\n",
                          (long long)r->prefill, r->prefill == 1 ? "" : "s", (long long)r->decode,
                          r->decode == 1 ? "" : "s", (long long)g);
    else if (r->replicas > 1)
        sim_strbuf_printf(out,
                          "%lld replicas: one server per %lld GPUs (CUDA_VISIBLE_DEVICES), each on "
                          "its own port, behind a least-outstanding-requests load balancer\n",
                          (long long)r->replicas, (long long)g);
    if (strcmp(r->engine, "trtllm") == 0) {
        if (trtllm_options(r)) {
            sim_strbuf_printf(out, "extra-llm-api-config.yml:");
            if (r->dp_attention && r->dp > 1)
                sim_strbuf_printf(out, " enable_attention_dp: true;");
            if (fp8_kv(r))
                sim_strbuf_printf(out, " kv_cache_config: {dtype: fp8};");
            if (r->disagg)
                sim_strbuf_printf(out, " cache_transceiver_config: {backend: DEFAULT};");
            char method[16], sp[160];
            int64_t k;
            if (cli_plan_spec_parse(r->spec, method, &k)) {
                cli_plan_spec_spelling("trtllm", method, k, sp, sizeof sp);
                sim_strbuf_printf(out, " speculative_config: %s;", sp);
            }
            sim_strbuf_printf(out, "\n");
        }
        if (fp8_weights(r))
            sim_strbuf_printf(out, "fp8: serve an FP8 checkpoint of the model (TensorRT-LLM "
                                   "quantizes none itself; e.g. one made with Model Optimizer)\n");
    }
    spec_note(r, out);
}

void cli_plan_launch_bench(const cli_plan_row *r, const cli_plan_bench *b, sim_strbuf *out)
{
    bool sglang = strcmp(r->engine, "sglang") == 0;
    sim_strbuf_printf(out, "vllm bench serve --backend %s --model %s",
                      strcmp(r->engine, "vllm") == 0 ? "vllm" : "openai", r->hf_id);
    if (sglang && !r->disagg)
        sim_strbuf_printf(out, " --port 30000");
    if (strcmp(b->dataset, "prefix_repetition") == 0)
        sim_strbuf_printf(out,
                          " --dataset-name prefix_repetition --prefix-repetition-prefix-len %lld "
                          "--prefix-repetition-suffix-len %lld --prefix-repetition-num-prefixes "
                          "%lld --prefix-repetition-output-len %lld",
                          (long long)b->prefix_len, (long long)b->suffix_len,
                          (long long)b->num_prefixes, (long long)b->prefix_out);
    else if (strcmp(b->dataset, "sharegpt") == 0) /* vLLM's own ShareGPT sampler */
        sim_strbuf_printf(out, " --dataset-name sharegpt --dataset-path "
                               "ShareGPT_V3_unfiltered_cleaned_split.json");
    else if (strcmp(b->dataset, "random") != 0) /* a fit vLLM has no loader for: its means */
        sim_strbuf_printf(out,
                          " --dataset-name random --random-input-len %lld --random-output-len %lld "
                          "--random-range-ratio 0",
                          (long long)llround(b->in_mean), (long long)llround(b->out_mean));
    else
        sim_strbuf_printf(out,
                          " --dataset-name random --random-input-len %lld --random-output-len %lld "
                          "--random-range-ratio %g",
                          (long long)b->rand_in, (long long)b->rand_out, b->range_ratio);
    sim_strbuf_printf(out, " --num-prompts %lld --request-rate %g", (long long)b->num_prompts,
                      b->rate);
    if (b->burstiness != 1.0)
        sim_strbuf_printf(out, " --burstiness %g", b->burstiness);
    char w[32];
    sim_pct_word(b->pct, w, sizeof w);
    sim_strbuf_printf(out,
                      " --seed %lld --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles %s",
                      (long long)b->seed, w);
    const char *sep = " --goodput";
    for (int m = 0; m < SIM_M_COUNT; m++)
        if (b->slo.ms[m] > 0.0) {
            sim_strbuf_printf(out, "%s %s:%g", sep, sim_metric_name((sim_metric)m), b->slo.ms[m]);
            sep = "";
        }
    sim_strbuf_printf(out, " --save-result");
}
