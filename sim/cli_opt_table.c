/* cli_opt_table.c - the option table (cli_opt.h): every flag, its kind, the field of cli_opts
 * it sets, its bounds, the commands that take it and its --help line. cli_opt.c parses with it. */
#include <stddef.h>

#include "cli_opt.h"
#include "cluster.h"
#include "engprof.h"

/* ------------------------------------------------------------------------------------------ */
/* Options: one table drives parsing, validation and --help. */

#define O(name, kind, member, min, max, cmds, help)                                                \
    {                                                                                              \
        name, kind, offsetof(cli_opts, member), min, max, cmds, help, CLI_OPT_ENG_NONE, 0          \
    }
/* a flag that overrides engine-profile field `field` (cli_opt.h cli_opt_eng: I64, F64, ON, OFF) */
#define OE(name, kind, member, min, max, cmds, eng, field, help)                                   \
    {                                                                                              \
        name, kind, offsetof(cli_opts, member), min, max, cmds, help, CLI_OPT_ENG_##eng,           \
            offsetof(sim_engprof, field)                                                           \
    }
const cli_opt_def cli_opt_table[] = {
    O("--model", CLI_OPT_STR, model, 0, 0, CLI_OPT_CMD_MODEL,
      "model config.json path, or a name in models/ (e.g. llama-3.1-8b)"),
    O("--hw", CLI_OPT_STR, hw, 0, 0,
      CLI_OPT_CMD_MODEL | CLI_OPT_CMD_OP | CLI_OPT_CMD_CALIBRATE | CLI_OPT_CMD_HW,
      "device file path, or a name in hw/ (e.g. h100-sxm)"),
    O("--tp", CLI_OPT_INT, tp, 1, 1024, CLI_OPT_CMD_MODEL, "tensor-parallel GPUs (default 1)"),
    O("--pp", CLI_OPT_INT, pp, 1, 64, CLI_OPT_CMD_RUN | CLI_OPT_CMD_SERVE_EP,
      "pipeline stages, each --tp GPUs (default 1); layers split as vLLM splits them"),
    O("--ep", CLI_OPT_INT, ep, 1, 1024, CLI_OPT_CMD_MODEL,
      "expert-parallel GPUs: E/ep whole experts per GPU, tokens all-to-all'ed (default 1)"),
    O("--dp-attention", CLI_OPT_BOOL, dp_attention, 0, 0, CLI_OPT_CMD_MODEL,
      "attention data-parallel over the EP group: ep/tp groups of --tp GPUs"),
    O("--dp", CLI_OPT_INT, dp, 1, 1024, CLI_OPT_CMD_MODEL,
      "data-parallel attention groups with --dp-attention (default ep/tp); without --ep, the MoE "
      "layers split by TP over the --dp GPUs (SGLang --tp N --dp N --enable-dp-attention)"),
    O("--expert-imbalance", CLI_OPT_NUM, expert_imbalance, 1, 1024, CLI_OPT_CMD_MODEL,
      "a fixed busiest EP rank's routed tokens over the mean, >= 1 (default: the routing's "
      "expected busiest rank per batch)"),
    O("--moe-a2a", CLI_OPT_STR, moe_a2a, 0, 0, CLI_OPT_CMD_MODEL,
      "auto|normal|low-latency: the MoE dispatch / combine kernels under --ep, as DeepEP's "
      "(default auto: with --dp-attention normal on steps with prefill, low-latency on "
      "decode-only steps; without it none, the MLP all-reduce combines)"),
    O("--deepep-ll-max-tokens", CLI_OPT_INT, deepep_ll_max_tokens, 1, 65536, CLI_OPT_CMD_MODEL,
      "tokens per EP rank DeepEP's low-latency dispatch holds (SGLang's "
      "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK; default 128): a step past it is refused"),
    O("--enable-two-batch-overlap", CLI_OPT_BOOL, tbo, 0, 0, CLI_OPT_CMD_MODEL,
      "two-batch overlap under --ep: each MoE layer's compute of one half of the batch runs over "
      "the other half's dispatch / combine (SGLang's flag)"),
    O("--enable-dbo", CLI_OPT_BOOL, tbo, 0, 0, CLI_OPT_CMD_MODEL,
      "vLLM's name for --enable-two-batch-overlap (dual-batch overlap)"),
    O("--expert-routing", CLI_OPT_STR, expert_routing, 0, 0, CLI_OPT_CMD_MODEL,
      "uniform|zipf:S: how tokens pick experts (zipf:S: the i-th most popular expert "
      "picked with weight i^-S; default uniform)"),
    O("--expert-load", CLI_OPT_STR, expert_load, 0, 0, CLI_OPT_CMD_MODEL,
      "a measured per-layer expert load (JSON {\"logical_count\": [[count per expert], ...]} "
      "per MoE layer, as SGLang's expert distribution recorder counts it): the routing instead "
      "of --expert-routing"),
    O("--redundant-experts", CLI_OPT_INT, redundant_experts, 0, 4096, CLI_OPT_CMD_MODEL,
      "EPLB's redundant experts: replicas of the hottest experts packed to balance the EP ranks, "
      "each GPU holding (E + N)/ep (default 0)"),
    O("--moe-kernel", CLI_OPT_STR, moe_kernel, 0, 0, CLI_OPT_CMD_MODEL,
      "triton|deepgemm|cutlass|ck|marlin: the experts' grouped-GEMM kernel family, every "
      "expert format (default: the engine profile's moe.kernel, moe.kernel_mixed_input for "
      "mixed-input experts)"),
    O("--batch", CLI_OPT_INT, batch, 1, 1 << 20,
      CLI_OPT_CMD_RUN | CLI_OPT_CMD_ROOFLINE | CLI_OPT_CMD_OP, "sequences (default 1)"),
    O("--input-len", CLI_OPT_INT, input_len, 1, 1 << 26, CLI_OPT_CMD_RUN | CLI_OPT_CMD_ROOFLINE,
      "prompt tokens per sequence (default 1024)"),
    O("--output-len", CLI_OPT_INT, output_len, 1, 1 << 26, CLI_OPT_CMD_RUN,
      "generated tokens per sequence (default 256)"),
    O("--weight-dtype", CLI_OPT_STR, weight_dtype, 0, 0, CLI_OPT_CMD_MODEL | CLI_OPT_CMD_OP,
      "bf16|fp16|fp8|int8|int4|fp4|mxfp4|mxfp6 (default: the model's quantization_config, else "
      "its torch_dtype)"),
    O("--act-dtype", CLI_OPT_STR, act_dtype, 0, 0, CLI_OPT_CMD_MODEL,
      "bf16|fp16|fp8|int8|fp4|mxfp4|mxfp6 (default: the quantization_config's; fp8 with fp8 "
      "weights, fp4 / mxfp4 / mxfp6 with those weights on a device with their tensor peak, else "
      "the model's 16-bit format)"),
    O("--kv-cache-dtype", CLI_OPT_STR, kv_dtype, 0, 0, CLI_OPT_CMD_MODEL,
      "bf16|fp16|fp8|int8 (default: the quantization_config's, else the 16-bit activation "
      "format)"),
    O("--weight-group-size", CLI_OPT_INT, group_size, 0, 1 << 20,
      CLI_OPT_CMD_MODEL | CLI_OPT_CMD_OP,
      "weights per scale of int4/int8 weights a kernel dequantizes (AWQ, GPTQ, W4A8); 0 = per "
      "channel (default: the quantization_config's, else 128)"),
    O("--overlap-comm", CLI_OPT_NUM, overlap, 0, 1, CLI_OPT_CMD_MODEL,
      "fraction of network time hidden behind compute, 0..1 (default 0)"),
    O("--engine", CLI_OPT_STR, engine, 0, 0, CLI_OPT_CMD_MODEL,
      "vllm|sglang|trtllm|trtllm-triton|hf, NAME@VERSION (vllm@0.10.2: the profile whose "
      "range holds it), a profile's name (vllm-v0, trtllm-0.11, ...) or file: its defaults "
      "(default vllm)"),
    OE("--gpu-memory-utilization", CLI_OPT_NUM, util, 0.01, 1, CLI_OPT_CMD_ENGINE_EP, F64,
       mem_fraction,
       "KV-cache memory fraction (of all HBM; TensorRT-LLM: of what is free) (default: engine)"),
    OE("--mem-fraction-static", CLI_OPT_NUM, util, 0.01, 1, CLI_OPT_CMD_ENGINE_EP, F64,
       mem_fraction, "SGLang's name for --gpu-memory-utilization"),
    OE("--kv-cache-free-gpu-mem-fraction", CLI_OPT_NUM, util, 0.01, 1, CLI_OPT_CMD_ENGINE_EP, F64,
       mem_fraction, "TensorRT-LLM's name for --gpu-memory-utilization"),
    OE("--iteration-overhead-us", CLI_OPT_NUM, iter_us, 0, 1e7, CLI_OPT_CMD_ENGINE_EP, F64,
       iteration_overhead_us, "engine CPU time per iteration (default: engine; vllm 1000)"),
    OE("--request-overhead-us", CLI_OPT_NUM, req_us, 0, 1e7, CLI_OPT_CMD_ENGINE_EP, F64,
       request_overhead_us,
       "engine CPU time per request in the iteration (default: engine; vllm 10)"),
    OE("--layer-overhead-us", CLI_OPT_NUM, layer_us, 0, 1e6, CLI_OPT_CMD_ENGINE_EP, F64,
       layer_overhead_us,
       "engine CPU time per model layer per iteration (eager Python; default: engine, hf 100)"),
    O("--usd-per-gpu-hour", CLI_OPT_STR, usd_prices, 0, 0, CLI_OPT_CMD_ENGINE,
      "price of one GPU-hour in US$: a number for every device, or DEVICE=USD pairs "
      "(h100-sxm=2.49,b300=7.5) for the devices named (default: the device file's "
      "usd_per_gpu_hour)"),
    OE("--async-scheduling", CLI_OPT_BOOL, async_sched, 0, 0, CLI_OPT_CMD_ENGINE_EP, ON,
       async_scheduling,
       "the CPU prepares the next iteration while the GPU runs (default: engine)"),
    OE("--no-async-scheduling", CLI_OPT_BOOL, no_async_sched, 0, 0, CLI_OPT_CMD_ENGINE_EP, OFF,
       async_scheduling, "a synchronous engine loop: the GPU waits for the CPU's work"),
    OE("--enforce-eager", CLI_OPT_BOOL, enforce_eager, 0, 0, CLI_OPT_CMD_MODEL, OFF, cuda_graphs,
       "launch decode kernels eagerly instead of from CUDA graphs"),
    O("--cudagraph-mode", CLI_OPT_STR, cudagraph_mode, 0, 0, CLI_OPT_CMD_MODEL,
      "piecewise|full|full_and_piecewise|full_decode_only|none: vLLM's CUDA-graph mode; "
      "piecewise launches each layer's attention eagerly between graphs, none is "
      "--enforce-eager (default: engine)"),
    O("--allreduce", CLI_OPT_STR, allreduce, 0, 0, CLI_OPT_CMD_MODEL | CLI_OPT_CMD_OP,
      "auto|ring|tree|oneshot|twoshot|nvls|nccl: all-reduce algorithm (default: engine; auto "
      "is the cheapest the device has, nccl NCCL's own)"),
    OE("--fuse-allreduce-norm", CLI_OPT_BOOL, fuse_ar_norm, 0, 0, CLI_OPT_CMD_MODEL, ON,
       fuse_allreduce_norm,
       "fuse all-reduce + residual + RMSNorm into one kernel (custom / NVLS all-reduce only; "
       "default: engine)"),
    OE("--no-fuse-allreduce-norm", CLI_OPT_BOOL, no_fuse_ar_norm, 0, 0, CLI_OPT_CMD_MODEL, OFF,
       fuse_allreduce_norm, "run the all-reduce and the RMSNorm as separate kernels"),
    OE("--cuda-graph-max-bs", CLI_OPT_INT, graph_max_bs, 0, 1 << 20, CLI_OPT_CMD_MODEL, I64,
       cuda_graph_max_bs,
       "largest decode batch replayed from a CUDA graph; 0 = all (default: engine)"),
    OE("--max-model-len", CLI_OPT_INT, max_model_len, 1, 1 << 26, CLI_OPT_CMD_ENGINE_EP, I64,
       max_model_len,
       "context limit in tokens instead of the config's max_position_embeddings (default: "
       "engine)"),
    OE("--max-input-len", CLI_OPT_INT, max_input_len, 1, 1 << 26, CLI_OPT_CMD_ENGINE_EP, I64,
       max_input_len,
       "longest prompt the engine takes (default: engine; TensorRT-LLM's build limit)"),
    O("--spec-method", CLI_OPT_STR, spec_method, 0, 0, CLI_OPT_CMD_ENGINE_EP,
      "speculative decoding: draft|eagle|medusa|mtp|ngram (default: none)"),
    O("--num-speculative-tokens", CLI_OPT_INT, spec_k, 1, 16, CLI_OPT_CMD_ENGINE_EP,
      "K tokens drafted per verify step (required with --spec-method)"),
    O("--spec-model", CLI_OPT_STR, spec_model, 0, 0, CLI_OPT_CMD_ENGINE_EP,
      "the draft model's config.json or name (--spec-method draft)"),
    O("--spec-draft-vocab", CLI_OPT_INT, spec_draft_vocab, 1, 100000000, CLI_OPT_CMD_ENGINE_EP,
      "EAGLE-3: the head's draft_vocab_size (its own LM head; default: the target's vocab)"),
    O("--spec-acceptance-rate", CLI_OPT_NUM, spec_alpha, 0, 1, CLI_OPT_CMD_ENGINE_EP,
      "per-token probability that a drafted token is accepted"),
    O("--spec-acceptance-length", CLI_OPT_NUM, spec_tau, 1, 129, CLI_OPT_CMD_ENGINE_EP,
      "or: mean tokens per verify step, 1..depth+1"),
    O("--spec-acceptance-rates", CLI_OPT_LIST, spec_rates, 0, 0, CLI_OPT_CMD_ENGINE_EP,
      "or: per-position acceptance rates as vLLM reports them (P(token i accepted)), one per "
      "draft depth"),
    O("--spec-acceptance-data", CLI_OPT_STR, spec_data, 0, 0, CLI_OPT_CMD_ENGINE_EP,
      "or: a dataset of tools/data/spec_acceptance.csv (mt-bench, ...): the published "
      "acceptance of this method and model"),
    O("--speculative-config", CLI_OPT_STR, spec_config, 0, 0, CLI_OPT_CMD_ENGINE_EP,
      "speculative decoding as the engine takes it: vLLM's JSON ({\"method\": \"eagle3\", "
      "\"num_speculative_tokens\": 3}) or TensorRT-LLM's speculative_config as JSON "
      "({\"decoding_type\": \"MTP\", ...}), by --engine"),
    O("--speculative-algorithm", CLI_OPT_STR, spec_algorithm, 0, 0, CLI_OPT_CMD_ENGINE_EP,
      "SGLang: EAGLE|EAGLE3|NEXTN|STANDALONE|NGRAM (--engine sglang)"),
    O("--speculative-num-steps", CLI_OPT_INT, spec_steps, 1, 16, CLI_OPT_CMD_ENGINE_EP,
      "SGLang: draft depth (with --speculative-eagle-topk and --speculative-num-draft-tokens)"),
    O("--speculative-eagle-topk", CLI_OPT_INT, spec_topk, 1, 64, CLI_OPT_CMD_ENGINE_EP,
      "SGLang: tokens each draft level expands per branch (1: a chain)"),
    O("--speculative-num-draft-tokens", CLI_OPT_INT, spec_draft_tokens, 2, 128,
      CLI_OPT_CMD_ENGINE_EP, "SGLang: tree tokens the target verifies per sequence, root included"),
    O("--speculative-draft-model-path", CLI_OPT_STR, spec_model, 0, 0, CLI_OPT_CMD_ENGINE_EP,
      "SGLang's name for --spec-model"),
    O("--dtype", CLI_OPT_STR, dtype, 0, 0, CLI_OPT_CMD_ROOFLINE | CLI_OPT_CMD_OP,
      "compute format (roofline: of the ridge; default the GEMM format, bf16 without a model)"),
    O("--num-prompts", CLI_OPT_INT, num_prompts, 1, 1 << 28,
      CLI_OPT_CMD_SERVE | CLI_OPT_CMD_WORKLOAD,
      "requests (default 1000; with --trace or a trace's --dataset-name: its first N)"),
    O("--random-input-len", CLI_OPT_INT, rand_in, 1, 1 << 26, CLI_OPT_CMD_SERVE,
      "prompt tokens per request (default 1024)"),
    O("--images-per-request", CLI_OPT_INT, images, 0, 1024, CLI_OPT_CMD_RUN | CLI_OPT_CMD_SERVE,
      "images each request carries: a multimodal model's vision encoder runs them in the "
      "request's first prefill step, their placeholder tokens on top of the prompt (default 0)"),
    O("--random-images-per-request", CLI_OPT_INT, images, 0, 1024, CLI_OPT_CMD_SERVE,
      "serve's name for --images-per-request (the random dataset's images)"),
    O("--image-size", CLI_OPT_STR, image_size, 0, 0, CLI_OPT_CMD_RUN | CLI_OPT_CMD_SERVE,
      "WxH: every image's width and height in pixels, as the client sends it (default "
      "1280x720)"),
    O("--random-output-len", CLI_OPT_INT, rand_out, 1, 1 << 26, CLI_OPT_CMD_SERVE,
      "generated tokens per request (default 128)"),
    O("--random-range-ratio", CLI_OPT_NUM, range_ratio, 0, 0.999999, CLI_OPT_CMD_SERVE,
      "lengths uniform in [L(1-R), L(1+R)], R in [0, 1) (default 0: fixed)"),
    O("--random-range-floor", CLI_OPT_NUM, range_floor, 0, 1, CLI_OPT_CMD_SERVE,
      "lengths uniform in [max(1, floor(L R)), L] instead, R in [0, 1]: SGLang bench_serving's "
      "--random-range-ratio (infersim python3 -m sglang.bench_serving sets it)"),
    O("--server", CLI_OPT_STR, server_line, 0, 0, CLI_OPT_CMD_SERVE,
      "a server's launch line in quotes (vllm serve M ..., python3 -m sglang.launch_server ..., "
      "trtllm-serve M ...): its deployment flags, translated (infersim drop-in)"),
    O("--bench", CLI_OPT_STR, bench_line, 0, 0, CLI_OPT_CMD_SERVE,
      "a benchmark's line in quotes (vllm bench serve ..., python3 -m sglang.bench_serving ..., "
      "trtllm-bench ...): its workload flags, translated"),
    O("--sharegpt-output-len", CLI_OPT_INT, sharegpt_out, 1, 1 << 26, CLI_OPT_CMD_SERVE,
      "every request generates N tokens, its prompt still drawn from --dataset-name's lengths "
      "(vLLM's and SGLang's flag of that name)"),
    O("--lengths-file", CLI_OPT_STR, lengths_file, 0, 0, CLI_OPT_CMD_SERVE,
      "request lengths from a JSON-lines file: trtllm-bench's --dataset (input_ids or input_len, "
      "output_tokens per line); --num-prompts keeps the first N; or a BurstGPT CSV (its GPT-4 "
      "rows, --num-prompts drawn with --seed); vLLM's custom dataset once its lines carry "
      "prompt_len (and output_len)"),
    O("--custom-output-len", CLI_OPT_INT, custom_out, 1, 1 << 26, CLI_OPT_CMD_SERVE,
      "every request of --lengths-file generates N tokens, its lines' prompts kept (vLLM's flag "
      "for its custom dataset)"),
    O("--request-rate", CLI_OPT_RATE, rate, 0, 1e9, CLI_OPT_CMD_SERVE,
      "requests/s, or inf to send all at t = 0 (default inf); plan: the target, or a range "
      "LO:HI"),
    O("--rate-schedule", CLI_OPT_STR, rate_schedule, 0, 0, CLI_OPT_CMD_SERVE,
      "T:RATE,T:RATE,...: requests/s from T seconds on, piecewise, instead of --request-rate "
      "(a day of traffic; --burstiness still shapes the gaps)"),
    O("--burstiness", CLI_OPT_NUM, burstiness, 1e-3, 1e3, CLI_OPT_CMD_SERVE,
      "gamma shape of the arrival gaps; 1 = Poisson (default 1)"),
    O("--replicas", CLI_OPT_INT, replicas, 1, SIM_CLUSTER_MAX_REPLICAS, CLI_OPT_CMD_SERVE,
      "independent engines behind a router, each --tp x --pp GPUs (default 1)"),
    O("--replica-hw", CLI_OPT_STR, replica_hw, 0, 0, CLI_OPT_CMD_SERVE,
      "DEV:N,DEV:N,...: replicas on different devices behind one router, N of each in order "
      "(their sum is --replicas; default: every replica on --hw)"),
    O("--router", CLI_OPT_STR, router, 0, 0, CLI_OPT_CMD_SERVE,
      "round-robin|least-outstanding|prefix-aware|kv-aware: how --replicas share the requests; "
      "kv-aware: Dynamo's KV router, the lowest weight x prefill blocks + active blocks "
      "(default least-outstanding)"),
    O("--session-affinity", CLI_OPT_BOOL, session_affinity, 0, 0, CLI_OPT_CMD_SERVE,
      "with --sessions and --replicas: a session's later turn goes to the replica that ran its "
      "previous turn (llm-d's session-affinity scorer); default: the router decides"),
    O("--router-refresh-ms", CLI_OPT_NUM, router_refresh_ms, 0, 1e7, CLI_OPT_CMD_SERVE,
      "with --replicas: the router sees the replicas' state as of its last refresh, every MS "
      "(llm-d's endpoint picker scrapes every 50 ms; default 0: live)"),
    O("--autoscale", CLI_OPT_STR, autoscale, 0, 0, CLI_OPT_CMD_SERVE,
      "MIN:MAX: a pool of replicas the Kubernetes HPA's rule grows and shrinks on "
      "--autoscale-metric (reported: GPU-hours and cost; default off)"),
    O("--autoscale-metric", CLI_OPT_STR, autoscale_metric, 0, 0, CLI_OPT_CMD_SERVE,
      "queue|kv|rate: requests in flight, KV cache usage or requests/s per ready replica "
      "(default queue)"),
    O("--autoscale-target", CLI_OPT_NUM, autoscale_target, 1e-9, 1e9, CLI_OPT_CMD_SERVE,
      "the metric per replica the autoscaler keeps (needed with --autoscale)"),
    O("--autoscale-interval-s", CLI_OPT_NUM, autoscale_interval_s, 1e-3, 1e6, CLI_OPT_CMD_SERVE,
      "seconds between the autoscaler's evaluations (default 15, HPA's sync period)"),
    O("--autoscale-provision-s", CLI_OPT_NUM, autoscale_provision_s, 0, 1e6, CLI_OPT_CMD_SERVE,
      "seconds from adding a replica to its engine loading weights: node, pod, engine start "
      "(default 0; the weight load is priced on top)"),
    O("--autoscale-down-window-s", CLI_OPT_NUM, autoscale_down_window_s, 0, 1e6, CLI_OPT_CMD_SERVE,
      "a scale-down takes the highest count of this many seconds of evaluations (default 300, "
      "HPA's stabilization window)"),
    O("--kv-overlap-score-weight", CLI_OPT_NUM, kv_overlap_weight, 0, 1e6, CLI_OPT_CMD_SERVE,
      "--router kv-aware: the weight of the prefill blocks against the active ones (Dynamo's "
      "flag; default 1)"),
    O("--disagg", CLI_OPT_STR, disagg, 0, 0, CLI_OPT_CMD_SERVE,
      "P:D prefill and decode instances (prefill/decode disaggregation; default off)"),
    O("--prefill-tp", CLI_OPT_INT, prefill_tp, 1, 1024, CLI_OPT_CMD_SERVE,
      "tensor-parallel GPUs of each prefill instance with --disagg (default --tp)"),
    O("--prefill-hw", CLI_OPT_STR, prefill_hw, 0, 0, CLI_OPT_CMD_SERVE,
      "the prefill instances' device with --disagg (a file or name; default --hw, which is the "
      "decode instances')"),
    O("--kv-stream", CLI_OPT_BOOL, kv_stream, 0, 0, CLI_OPT_CMD_SERVE,
      "with --disagg: send the KV layer by layer during the prefill (overlap the transfer)"),
    O("--kv-offload", CLI_OPT_STR, kv_offload, 0, 0, CLI_OPT_CMD_SERVE,
      "cpu:GB[,disk:GB][,remote:GB]: lower KV tiers per replica (host DRAM, local disk, a "
      "remote store over RDMA) that keep the prefix cache's blocks; a prefix hit there is "
      "loaded over the device file's host_link (remote: scaleout) instead of recomputed "
      "(default: HBM only)"),
    O("--kv-offload-write", CLI_OPT_STR, kv_offload_write, 0, 0, CLI_OPT_CMD_SERVE,
      "through|evict: write every cached block to the lower tiers (LMCache, vLLM's "
      "OffloadingConnector, SGLang HiCache write_through) or only what HBM evicts (HiCache "
      "write_back) (default through)"),
    O("--sessions", CLI_OPT_INT, sessions, 1, 1 << 24, CLI_OPT_CMD_SERVE,
      "multi-turn sessions arriving at --request-rate: each turn's prompt is the previous "
      "turn's prompt and output plus --random-input-len new tokens (default: single requests)"),
    O("--turns-per-session", CLI_OPT_INT, turns, 1, 1 << 16, CLI_OPT_CMD_SERVE,
      "turns of each --sessions session (default 2)"),
    O("--think-time-s", CLI_OPT_STR, think_time, 0, 0, CLI_OPT_CMD_SERVE,
      "S|exp:MEAN|uniform:LO:HI: seconds from a turn's last token to the next turn's send "
      "(default 0)"),
    O("--max-concurrency", CLI_OPT_INT, max_concurrency, 1, 1 << 28, CLI_OPT_CMD_SERVE,
      "at most C requests in flight (closed loop; default: no limit)"),
    O("--seed", CLI_OPT_INT, seed, 0, 9e18, CLI_OPT_CMD_SERVE_EP, "random seed (default 0)"),
    O("--trace", CLI_OPT_STR, trace, 0, 0, CLI_OPT_CMD_SERVE,
      "replay a trace: Azure CSV, Mooncake JSONL or arrival_s,input_tokens,output_tokens"),
    O("--time-scale", CLI_OPT_NUM, time_scale, 1e-6, 1e6, CLI_OPT_CMD_SERVE,
      "multiply trace arrival times (0.5 = twice as fast; default 1)"),
    OE("--block-size", CLI_OPT_INT, block_size, 1, 1 << 16, CLI_OPT_CMD_SERVE_EP, I64, block_size,
       "KV-cache tokens per block (page) (default: engine; vllm 16)"),
    OE("--max-num-seqs", CLI_OPT_INT, max_seqs, 1, 1 << 20, CLI_OPT_CMD_SERVE_EP, I64, max_num_seqs,
       "requests per iteration (default: engine; vllm 256)"),
    OE("--max-batch-size", CLI_OPT_INT, max_seqs, 1, 1 << 20, CLI_OPT_CMD_SERVE_EP, I64,
       max_num_seqs, "TensorRT-LLM's name for --max-num-seqs"),
    OE("--max-running-requests", CLI_OPT_INT, max_seqs, 1, 1 << 20, CLI_OPT_CMD_SERVE_EP, I64,
       max_num_seqs, "SGLang's name for --max-num-seqs"),
    OE("--max-num-batched-tokens", CLI_OPT_INT, max_tokens, 1, 1 << 26, CLI_OPT_CMD_SERVE_EP, I64,
       max_num_batched_tokens, "token budget per iteration (default: engine; vllm 8192)"),
    OE("--max-num-tokens", CLI_OPT_INT, max_tokens, 1, 1 << 26, CLI_OPT_CMD_SERVE_EP, I64,
       max_num_batched_tokens, "TensorRT-LLM's name for --max-num-batched-tokens"),
    OE("--chunked-prefill-size", CLI_OPT_INT, max_tokens, 1, 1 << 26, CLI_OPT_CMD_SERVE_EP, I64,
       max_num_batched_tokens, "SGLang's name for --max-num-batched-tokens (its prefill budget)"),
    OE("--no-chunked-prefill", CLI_OPT_BOOL, no_chunked, 0, 0, CLI_OPT_CMD_SERVE_EP, OFF,
       chunked_prefill, "whole prompts (vllm: in prefill-only iterations, v0 style)"),
    OE("--enable-chunked-prefill", CLI_OPT_BOOL, chunked, 0, 0, CLI_OPT_CMD_SERVE_EP, ON,
       chunked_prefill, "split long prompts across iterations within the token budget"),
    O("--scheduler-policy", CLI_OPT_STR, sched_policy, 0, 0, CLI_OPT_CMD_SERVE_EP,
      "vllm|sglang|guaranteed_no_evict|max_utilization|static (default: engine)"),
    O("--capacity-scheduler-policy", CLI_OPT_STR, sched_policy, 0, 0, CLI_OPT_CMD_SERVE_EP,
      "TensorRT-LLM's GUARANTEED_NO_EVICT|MAX_UTILIZATION (sets --scheduler-policy)"),
    O("--schedule-policy", CLI_OPT_STR, order, 0, 0, CLI_OPT_CMD_SERVE_EP,
      "fcfs|lpm: admission order; lpm = longest cached prefix first, as SGLang (default: engine)"),
    O("--frontend", CLI_OPT_STR, frontend, 0, 0, CLI_OPT_CMD_SERVE_EP | CLI_OPT_CMD_VALIDATE,
      "profile|none: the API server / tokenizer and detokenizer / stream as the engine profile "
      "prices them, or none (requests and tokens as the engine sees them) (default profile; "
      "validate: the serve rows whose benchmark went through HTTP)"),
    OE("--api-server-count", CLI_OPT_INT, fe_processes, 1, 1024, CLI_OPT_CMD_SERVE_EP, I64,
       fe_processes, "front-end processes (vLLM's --api-server-count) (default: engine, 1)"),
    OE("--tokenizer-worker-num", CLI_OPT_INT, fe_processes, 1, 1024, CLI_OPT_CMD_SERVE_EP, I64,
       fe_processes, "SGLang's name for --api-server-count"),
    OE("--stream-interval", CLI_OPT_INT, stream_interval, 1, 1 << 20, CLI_OPT_CMD_SERVE_EP, I64,
       fe_stream_interval,
       "output tokens per streamed chunk (vLLM, SGLang, TensorRT-LLM) (default: engine, 1)"),
    OE("--frontend-request-us", CLI_OPT_NUM, fe_request_us, 0, 1e7, CLI_OPT_CMD_SERVE_EP, F64,
       fe_request_us, "front-end CPU per request taken in (default: engine)"),
    OE("--frontend-input-token-us", CLI_OPT_NUM, fe_input_token_us, 0, 1e7, CLI_OPT_CMD_SERVE_EP,
       F64, fe_input_token_us, "front-end CPU per prompt token, tokenization (default: engine)"),
    OE("--frontend-output-token-us", CLI_OPT_NUM, fe_output_token_us, 0, 1e7, CLI_OPT_CMD_SERVE_EP,
       F64, fe_output_token_us, "front-end CPU per output token, detokenization (default: engine)"),
    OE("--frontend-chunk-us", CLI_OPT_NUM, fe_chunk_us, 0, 1e7, CLI_OPT_CMD_SERVE_EP, F64,
       fe_chunk_us, "front-end CPU per streamed chunk, response and SSE write (default: engine)"),
    OE("--itl-per-token", CLI_OPT_BOOL, itl_per_token, 0, 0, CLI_OPT_CMD_SERVE, ON, per_token_itl,
       "a chunk's gap counts once per token it holds (gap / tokens), as SGLang's bench_serving "
       "with its native backend; default: one ITL sample per chunk, as vllm bench serve"),
    O("--schedule-conservativeness", CLI_OPT_NUM, conservativeness, 0.01, 100, CLI_OPT_CMD_SERVE_EP,
      "SGLang: scales the new-token ratio it reserves for running requests (default 1)"),
    OE("--enable-prefix-caching", CLI_OPT_BOOL, prefix_caching, 0, 0, CLI_OPT_CMD_SERVE_EP, ON,
       prefix_caching,
       "reuse cached prompt prefixes (default: engine; on for vllm, sglang, trtllm)"),
    OE("--no-enable-prefix-caching", CLI_OPT_BOOL, no_prefix_caching, 0, 0, CLI_OPT_CMD_SERVE_EP,
       OFF, prefix_caching, "turn prefix caching off"),
    O("--swa-full-tokens-ratio", CLI_OPT_NUM, swa_full_tokens_ratio, 0.01, 1, CLI_OPT_CMD_SERVE_EP,
      "SGLang: its sliding-window layers' token pool over the full layers' (default 0.8, "
      "SGLang's)"),
    OE("--disable-hybrid-kv-cache-manager", CLI_OPT_BOOL, no_hybrid_kv, 0, 0, CLI_OPT_CMD_SERVE_EP,
       ON, no_hybrid_kv,
       "vLLM: size sliding-window layers' KV at full length, as vLLM's flag of that name does "
       "(default: a model mixing full and sliding layers keeps only the window's blocks)"),
    O("--prefix-repetition-prefix-len", CLI_OPT_INT, prefix_len, 0, 1 << 26, CLI_OPT_CMD_SERVE,
      "shared prefix tokens per prompt (default 256)"),
    O("--prefix-repetition-suffix-len", CLI_OPT_INT, suffix_len, 0, 1 << 26, CLI_OPT_CMD_SERVE,
      "own tokens after the prefix (default 256)"),
    O("--prefix-repetition-num-prefixes", CLI_OPT_INT, num_prefixes, 1, 1 << 28, CLI_OPT_CMD_SERVE,
      "distinct prefixes (default 10)"),
    O("--prefix-repetition-output-len", CLI_OPT_INT, prefix_out, 1, 1 << 26, CLI_OPT_CMD_SERVE,
      "generated tokens per request (default 128)"),
    O("--goodput", CLI_OPT_LIST, goodput, 0, 0, CLI_OPT_CMD_SERVE,
      "SLOs for request_goodput: ttft:MS tpot:MS e2el:MS"),
    O("--slo", CLI_OPT_STR, slo, 0, 0, CLI_OPT_CMD_CAPACITY,
      "ttft:MS,tpot:MS,e2el:MS: each metric's --slo-percentile must be at most MS (or give "
      "--goodput: that share of requests must meet every SLO)"),
    O("--slo-percentile", CLI_OPT_NUM, slo_percentile, 1, 100, CLI_OPT_CMD_CAPACITY,
      "the percentile the SLO holds at, 1..100 (default 90)"),
    O("--rate-tolerance", CLI_OPT_NUM, rate_tolerance, 0.001, 0.5, CLI_OPT_CMD_CAPACITY,
      "stop when the missed rate is within this fraction above the met one (default 0.02)"),
    O("--objective", CLI_OPT_STR, objective, 0, 0, CLI_OPT_CMD_PLAN,
      "cost|gpus|energy|ttft: what plan ranks by (default cost: the least US$ per hour)"),
    O("--top", CLI_OPT_INT, top, 1, 1000, CLI_OPT_CMD_PLAN,
      "deployments listed per model and device (default 3)"),
    O("--shard", CLI_OPT_STR, shard, 0, 0, CLI_OPT_CMD_PLAN,
      "I/N: evaluate every N-th candidate from the I-th and write their rows to --out (join "
      "the shards with merge, report with --from)"),
    O("--threads", CLI_OPT_INT, threads, 1, 4096, CLI_OPT_CMD_PLAN,
      "OpenMP threads over the candidates (default: every core)"),
    O("--from", CLI_OPT_STR, from, 0, 0, CLI_OPT_CMD_PLAN,
      "report from a file of rows (merge's of the shards) instead of evaluating"),
    O("--engines", CLI_OPT_STR, engines, 0, 0, CLI_OPT_CMD_PLAN,
      "vllm,sglang,trtllm: the engines plan tries (default: those the device runs)"),
    O("--precisions", CLI_OPT_STR, precisions, 0, 0, CLI_OPT_CMD_PLAN,
      "default,fp8: the checkpoint's formats and W8A8 fp8 (default both where they apply)"),
    O("--kv-cache-dtypes", CLI_OPT_STR, kv_dtypes, 0, 0, CLI_OPT_CMD_PLAN,
      "default,fp8: the KV-cache formats plan tries (default: the engine's, as --kv-cache-dtype "
      "auto)"),
    O("--spec-methods", CLI_OPT_STR, spec_methods, 0, 0, CLI_OPT_CMD_PLAN,
      "none,eagle,eagle3,mtp (each with :K drafted tokens): the speculations plan tries "
      "(default none), with the published acceptance of tools/data/spec_acceptance.csv"),
    O("--max-gpus", CLI_OPT_INT, max_gpus, 1, 65536, CLI_OPT_CMD_PLAN,
      "the most GPUs one deployment may take (default 64)"),
    O("--save-requests", CLI_OPT_STR, save_requests, 0, 0, CLI_OPT_CMD_SERVE | CLI_OPT_PER_RUN,
      "write one CSV row per request to FILE"),
    O("--dataset-name", CLI_OPT_STR, dataset_name, 0, 0, CLI_OPT_CMD_SERVE | CLI_OPT_CMD_WORKLOAD,
      "random|prefix_repetition (vLLM's synthetic datasets), sharegpt|lmsys-chat|"
      "arxiv-summarization|code|reasoning (their lengths, fitted to published statistics), "
      "azure-code-2023|azure-conv-2023|mooncake-conversation (production traces, their gaps "
      "scaled to --request-rate): infersim workload --dataset-name NAME; recorded traffic at "
      "its own times: --trace"),
    O("--percentile-metrics", CLI_OPT_STR, percentile_metrics, 0, 0,
      CLI_OPT_CMD_SERVE | CLI_OPT_PER_RUN,
      "metrics whose percentiles are printed and saved: ttft,tpot,itl,e2el (vLLM's flag)"),
    O("--metric-percentiles", CLI_OPT_STR, metric_percentiles, 0, 0,
      CLI_OPT_CMD_SERVE | CLI_OPT_PER_RUN,
      "the percentiles, e.g. 50,90,99 (default: 90,99; --save-result: vLLM's 99)"),
    O("--save-result", CLI_OPT_BOOL, save_result, 0, 0, CLI_OPT_CMD_SERVE | CLI_OPT_PER_RUN,
      "write vLLM's result JSON (--result-dir, --result-filename; vLLM's default name)"),
    O("--result-dir", CLI_OPT_STR, result_dir, 0, 0, CLI_OPT_CMD_SERVE | CLI_OPT_PER_RUN,
      "folder of the --save-result file"),
    O("--result-filename", CLI_OPT_STR, result_filename, 0, 0, CLI_OPT_CMD_SERVE | CLI_OPT_PER_RUN,
      "name of the --save-result file"),
    O("--backend", CLI_OPT_STR, backend, 0, 0, CLI_OPT_CMD_SERVE,
      "the benchmark's backend, recorded in --save-result; one naming an engine (sglang, "
      "tensorrt-llm, ...) picks its profile unless --engine is given (default openai)"),
    O("--label", CLI_OPT_STR, label, 0, 0, CLI_OPT_CMD_SERVE,
      "names the --save-result file instead of --backend (no effect on the prediction)"),
    O("--tokenizer", CLI_OPT_STR, tokenizer, 0, 0, CLI_OPT_CMD_SERVE,
      "recorded in the --save-result file (no effect: lengths are token counts)"),
    O("--base-url", CLI_OPT_STR, vllm_noop, 0, 0, CLI_OPT_CMD_SERVE,
      "accepted, no effect (no server)"),
    O("--host", CLI_OPT_STR, ep_host, 0, 0, CLI_OPT_CMD_ENDPOINT,
      "address to listen on (default 127.0.0.1, the loopback; 0.0.0.0 for every interface)"),
    O("--port", CLI_OPT_INT, ep_port, 0, 65535, CLI_OPT_CMD_ENDPOINT,
      "TCP port (default 8000, vLLM's; 0: one the system picks, printed on start)"),
    O("--served-model-name", CLI_OPT_STR, ep_model_name, 0, 0, CLI_OPT_CMD_ENDPOINT,
      "the model's name in /v1/models and the responses (default: --model as given)"),
    O("--time-scale", CLI_OPT_NUM, ep_time_scale, 1e-3, 1e3, CLI_OPT_CMD_ENDPOINT,
      "simulated seconds per wall-clock second (default 1: real time; 0.1 plays the "
      "prediction ten times slower)"),
    O("--chars-per-token", CLI_OPT_NUM, ep_chars_per_token, 0.1, 100, CLI_OPT_CMD_ENDPOINT,
      "characters a token stands for when a prompt comes as text (default 4)"),
    O("--max-requests", CLI_OPT_INT, ep_max_requests, 1, 1 << 24, CLI_OPT_CMD_ENDPOINT,
      "requests one simulated engine holds before it restarts when idle (default 65536)"),
    O("--max-connections", CLI_OPT_INT, ep_max_connections, 1, 4096, CLI_OPT_CMD_ENDPOINT,
      "connections open at once; more are refused (default 256)"),
    O("--max-body-bytes", CLI_OPT_INT, ep_max_body_bytes, 64, 1 << 30, CLI_OPT_CMD_ENDPOINT,
      "largest request body; a longer one is refused with 413 (default 1048576)"),
    O("--host", CLI_OPT_STR, vllm_noop, 0, 0, CLI_OPT_CMD_SERVE, "accepted, no effect (no server)"),
    O("--port", CLI_OPT_STR, vllm_noop, 0, 0, CLI_OPT_CMD_SERVE, "accepted, no effect (no server)"),
    O("--endpoint", CLI_OPT_STR, vllm_noop, 0, 0, CLI_OPT_CMD_SERVE,
      "accepted, no effect (no server)"),
    O("--served-model-name", CLI_OPT_STR, vllm_noop, 0, 0, CLI_OPT_CMD_SERVE,
      "accepted, no effect"),
    O("--ignore-eos", CLI_OPT_BOOL, vllm_noop_bool, 0, 0, CLI_OPT_CMD_SERVE,
      "accepted, no effect (every request generates its output length, as with it in vLLM)"),
    O("--trust-remote-code", CLI_OPT_BOOL, vllm_noop_bool, 0, 0, CLI_OPT_CMD_SERVE,
      "accepted, no effect"),
    O("--disable-tqdm", CLI_OPT_BOOL, vllm_noop_bool, 0, 0, CLI_OPT_CMD_SERVE,
      "accepted, no effect"),
    O("--chrome-trace", CLI_OPT_STR, chrome_trace, 0, 0, CLI_OPT_CMD_ENGINE | CLI_OPT_PER_RUN,
      "write a Chrome Trace Event JSON timeline (Perfetto, chrome://tracing) to FILE"),
    O("--trace-detail", CLI_OPT_STR, trace_detail, 0, 0, CLI_OPT_CMD_SERVE | CLI_OPT_PER_RUN,
      "iteration|layer|op: how deep the serve timeline goes (default iteration)"),
    O("--trace-window", CLI_OPT_STR, trace_window, 0, 0, CLI_OPT_CMD_SERVE | CLI_OPT_PER_RUN,
      "START:END seconds of simulated time to keep in the timeline (END may be empty)"),
    O("--trace-full", CLI_OPT_BOOL, trace_full, 0, 0, CLI_OPT_CMD_SERVE | CLI_OPT_PER_RUN,
      "every event in the serve timeline: no iteration merged, every counter sample"),
    O("--trace-ranks", CLI_OPT_STR, trace_ranks, 0, 0, CLI_OPT_CMD_RUN | CLI_OPT_PER_RUN,
      "all|one: GPU ranks in the run timeline (they are identical; default one)"),
    O("--trace-max-mb", CLI_OPT_NUM, trace_max_mb, 1, 1e7, CLI_OPT_CMD_ENGINE | CLI_OPT_PER_RUN,
      "refuse a timeline estimated past this many MB (default 512)"),
    O("--html", CLI_OPT_STR, html, 0, 0, CLI_OPT_CMD_ENGINE,
      "write a self-contained HTML report with the charts to FILE"),
    O("--data", CLI_OPT_STR, data, 0, 0, CLI_OPT_CMD_VALIDATE | CLI_OPT_CMD_CALIBRATE,
      "measurements CSV (default tools/data/validation.csv)"),
    O("--max-op-median", CLI_OPT_NUM, max_op_median, 0, 1000, CLI_OPT_CMD_VALIDATE,
      "exit 1 if the op-level median |error| (%) is above this"),
    O("--max-bucket-median", CLI_OPT_NUM, max_bucket_median, 0, 1000, CLI_OPT_CMD_VALIDATE,
      "exit 1 if any op-level size bucket's median |error| (%) is above this"),
    O("--max-e2e-median", CLI_OPT_NUM, max_e2e_median, 0, 1000, CLI_OPT_CMD_VALIDATE,
      "exit 1 if the end-to-end median |error| (%) is above this"),
    O("--max-family-median", CLI_OPT_NUM, max_family_median, 0, 1000, CLI_OPT_CMD_VALIDATE,
      "exit 1 if a device family's op-level median |error| (%) is above this (families of 8 "
      "rows or more; a family: the chip the device names, A100 for its 40 and 80 GB boards)"),
    O("--uncertainty", CLI_OPT_INT, uncertainty, 0, 1000, CLI_OPT_CMD_ENGINE,
      "N parameter draws for the 80 % bands, 0: off (default: run 16; serve 8, each on the "
      "first tenth of the requests)"),
    O("--uncertainty-table", CLI_OPT_STR, unc_table, 0, 0, CLI_OPT_CMD_ENGINE,
      "the error table the draws read (default tools/data/uncertainty.csv)"),
    O("--uncertainty-out", CLI_OPT_STR, unc_out, 0, 0, CLI_OPT_CMD_VALIDATE,
      "write the error table built from the rows to FILE (- : stdout)"),
    O("--coverage-draws", CLI_OPT_INT, coverage_draws, 0, 1000, CLI_OPT_CMD_VALIDATE,
      "draws per end-to-end row for the bands' coverage, 0: none (default 20)"),
    O("--coverage-out", CLI_OPT_STR, coverage_out, 0, 0, CLI_OPT_CMD_VALIDATE,
      "write each end-to-end row's band (with its source left out) to FILE as CSV: the engine "
      "scope and sigma it drew from and whether it held the measurement (- : stdout)"),
    O("--min-coverage", CLI_OPT_NUM, min_coverage, 0, 100, CLI_OPT_CMD_VALIDATE,
      "exit 1 if the 80 % bands hold fewer end-to-end rows (%) than this"),
    O("--max-coverage", CLI_OPT_NUM, max_coverage, 0, 100, CLI_OPT_CMD_VALIDATE,
      "exit 1 if they hold more (%) than this"),
    O("--min-group-coverage", CLI_OPT_NUM, min_group_coverage, 0, 100, CLI_OPT_CMD_VALIDATE,
      "the same for each group of rows (static, serve, MoE, quantized, device family)"),
    O("--max-group-coverage", CLI_OPT_NUM, max_group_coverage, 0, 100, CLI_OPT_CMD_VALIDATE,
      "the same, upper limit, for each group"),
    O("--max-spec-median", CLI_OPT_NUM, max_spec_median, 0, 1000, CLI_OPT_CMD_VALIDATE,
      "exit 1 if the speculative-decoding rows' median |error| (%) is above this"),
    O("--out", CLI_OPT_STR, out_file, 0, 0, CLI_OPT_CMD_CALIBRATE | CLI_OPT_CMD_PLAN,
      "calibrate: write the calibrated device file here (- or default: stdout); plan: the "
      "candidates' rows (JSON lines)"),
    O("--op", CLI_OPT_STR, op, 0, 0, CLI_OPT_CMD_OP,
      "gemm|attention|allreduce|copy|grouped_gemm|alltoall"),
    O("--m", CLI_OPT_INT, m, 1, (double)(1LL << 40), CLI_OPT_CMD_OP, "GEMM rows (tokens)"),
    O("--n", CLI_OPT_INT, n, 1, (double)(1LL << 40), CLI_OPT_CMD_OP, "GEMM columns"),
    O("--k", CLI_OPT_INT, k, 1, (double)(1LL << 40), CLI_OPT_CMD_OP, "GEMM inner dimension"),
    O("--heads", CLI_OPT_INT, heads, 1, 1 << 16, CLI_OPT_CMD_OP, "attention heads"),
    O("--head-dim", CLI_OPT_INT, head_dim, 1, 1 << 16, CLI_OPT_CMD_OP, "attention head dimension"),
    O("--seq", CLI_OPT_INT, seq, 1, 1 << 26, CLI_OPT_CMD_OP, "attention sequence length"),
    O("--causal", CLI_OPT_BOOL, causal, 0, 0, CLI_OPT_CMD_OP, "causal attention (half the pairs)"),
    O("--bytes", CLI_OPT_INT, bytes, 1, (double)(1LL << 50), CLI_OPT_CMD_OP,
      "copy / all-reduce message size"),
    O("--gpus", CLI_OPT_INT, gpus, 2, 65536, CLI_OPT_CMD_OP, "all-reduce participants"),
    O("--format", CLI_OPT_STR, format, 0, 0,
      CLI_OPT_CMD_MODEL | CLI_OPT_CMD_CHECK | CLI_OPT_CMD_HW | CLI_OPT_CMD_WORKLOAD |
          CLI_OPT_PER_RUN,
      "table|json|csv (default table; hw: table|json)"),
    O("--help", CLI_OPT_BOOL, help, 0, 0,
      CLI_OPT_CMD_MODEL | CLI_OPT_CMD_CHECK | CLI_OPT_CMD_VALIDATE | CLI_OPT_CMD_OP |
          CLI_OPT_CMD_CALIBRATE | CLI_OPT_CMD_HW | CLI_OPT_CMD_WORKLOAD | CLI_OPT_PER_RUN,
      "this text"),
};
#undef O
const size_t cli_opt_count = sizeof cli_opt_table / sizeof cli_opt_table[0];
_Static_assert(sizeof cli_opt_table / sizeof cli_opt_table[0] <=
                   sizeof(((cli_opts *)0)->given) / sizeof(((cli_opts *)0)->given[0]),
               "cli_opts.given is too small");

