/* spec_proposer.c - the engines' speculative proposers as their sources run the draft: which
 * passes run eagerly, the host's preparation ops around each pass and what they cost
 * (sim_spec_proposer_for, spec.h). */
#include "spec.h"

#include <string.h>

/* The engines' proposers, counted from their source; a profile takes the row whose name is the
 * longest prefix of the profile's name.
 * vLLM 0.8 (vllm/v1/spec_decode/eagle.py as of April 2025, before PRs #17211 and #17504 captured
 * the EAGLE heads in CUDA graphs for 0.9): every draft pass eager; the first pass's preparation
 * 18 kernels (last_token_indices, the shifted input ids and their index_put, seq_lens' gather and
 * add, two max().item() each with its device-to-host copy and a subtraction, the sample rows'
 * and positions' gathers, and prepare_inputs' two subtractions, cumsum, the zero store,
 * cu_num_tokens[-1].item() and prepare_input_kernel), each later pass 7 (positions += 1,
 * seq_lens += 1, the slot mapping's //, gather, *, % and +).
 * Its head was neither compiled nor captured (the torch.compile of #17211 came with the graphs), so
 * every pass dispatches its kernels from Python in eager PyTorch: 25 us a kernel, PyTorch's eager
 * dispatch of a model forward as the SGLang profiles derive it from SGLang's own eager-vs-graph
 * runs (hw/engines/sglang.json host.eager_kernel_cpu_us: sgl-project/sglang PR #1401,
 * deepspeedai/DeepSpeed PR #8352), which vLLM's own bounds from above: vllm-project/vllm PR #1440
 * (Llama-2-7B, batch 1, 100 tokens in 1.2 s eager against 1.05 s with CUDA graphs: 12 ms per eager
 * step over ~394 kernels, at most 30 us each). A light head's pass (EAGLE-3's) then waits on the
 * CPU rather than the GPU.
 * vLLM >= 0.9 (profiles vllm-0.9 and later; the same file as of v0.9.2 / v0.10: the first pass and the loop replay the
 * head's piecewise graphs): the first pass 21 (as above with the seq_lens int cast, the buffer
 * copies of positions and hidden states, the gathers of the last positions and hidden states, and
 * prepare_inputs' zeros_like, cumsum and prepare_eagle_input_kernel), each later pass 15 (the int
 * cast of the last draft, positions += 1, the max-model-length compare and where, seq_lens += 1
 * and masked_fill_, the slot mapping's //, gather, *, %, + and masked_fill_, three copies into
 * the graph's input buffers); EAGLE-3's compute_logits maps the draft vocabulary back to the
 * full one every pass (vllm/model_executor/models/llama_eagle3.py).
 * vLLM 0.10.2 (profile vllm-0.10): the same kernels, but the head's passes ran without CUDA
 * graphs: vllm-project/vllm PR #20059 (commit 74f441f, 2025-08-15; in 0.10.2, 2025-09-13; whether
 * 0.10.1, released 2025-08-18, carries it is not verified here) made graph replay
 * something the runner's CUDA-graph dispatcher asks for, which the proposer never did ("the
 * cudagraph ability of the EAGLE(3) model in V1 has been broken for a while since the launch of
 * #20059", PR #23679), until PR #25109 (2025-09-17, in 0.11) dispatched piecewise graphs for the
 * head again. 0.10.0 (2025-07) still replayed them; the profile covers the line, priced as its
 * last release runs. Its head was still compiled by torch.compile, so a pass runs Inductor's
 * generated code, not eager PyTorch: no eager_pass_cpu_ns (its per-kernel cost is not measured).
 * SGLang 0.4 (python/sglang/srt/speculative/eagle_worker.py, March 2025): the multi-step draft
 * replays one CUDA graph (EAGLEDraftCudaGraphRunner: the top-k selection and cache locations of
 * every step inside it); forward_draft_extend_after_decode runs eagerly (its CUDA graph came with
 * sgl-project/sglang PR #6606, 2025-05-26); the host launches assign_draft_cache_locs, the graph
 * runner's 7 input copies (seq_lens, out_cache_loc, positions, topk_p, topk_index, hidden
 * states, req_pool_indices) and the extend's create_extend_after_decode_spec_info with its 3
 * index updates: 12. The reduced vocabulary maps through hot_token_id inside the graph.
 * SGLang >= 0.4.7: the draft extend replays a graph too (PR #6606).
 * vLLM V0's speculative worker (vllm/spec_decode/) is not counted: a zeroed row.
 * TensorRT-LLM: after a tree's verify, updateKVCacheDraftTokenLocation
 * (cpp/tensorrt_llm/kernels/speculativeDecoding/kvCacheUpdateKernels.cu: per layer, KV heads and
 * head size, the accepted draft tokens' offsets) moves the accepted tokens' KV into place; its
 * proposer's host work is not counted. SGLang (page size 1) frees the rejected slots and keeps
 * the accepted ones where they are (eagle_utils.py verify), vLLM drafts chains: no move.
 *
 * vLLM 0.8 to 0.10's synchronous speculative step, where its host time lies (profiles vllm-0.8,
 * vllm-0.9, vllm-0.10; the newest row's proposer prepares its inputs on the device without that
 * wait, PR #24539's padded drafter batch, and keeps the device's launches). execute_model waits
 * on the device in the rejection sampler's parse_output (output_token_ids.cpu()) and only then
 * prepares the first draft pass, so nothing is queued on the GPU while the host dispatches that
 * pass's preparation: each op costs its Python dispatch, not its device launch. The ops, counted
 * from vllm/v1/worker/gpu_model_runner.py (the EAGLE branch of execute_model) and
 * vllm/v1/spec_decode/eagle.py of the 0.8 / 0.9 lines: the runner's 6 (next_token_ids and
 * num_rejected_tokens built as Python lists and copied to the device, the gathers of input ids,
 * positions, hidden states and slot mapping at token_indices; EAGLE-3's three auxiliary hidden
 * states gathered and concatenated are counted as the one gather) before the proposer's own 21
 * (0.9, 0.10) or 18 (0.8) above: 27 and 24. Before the target's forward the same synchronous
 * loop runs _calc_spec_decode_metadata: its four torch.from_numpy(...).to(device) copies ("TODO:
 * Optimize the CPU -> GPU copy."), the two gathers of the draft token ids and the index add: 7
 * (verify_host_ops). The passes after the first prepare while the GPU runs the pass before (no
 * blocking read inside the propose loop): those stay at the device's launch.
 * The cost of one op: 8 us, a raw PyTorch op dispatched on the CUDA path back to back
 * (flagos-ai/Torch-FL PR #27: torch.add on 512 x 512 tensors, 8 us per op on an A100 host),
 * within pytorch/pytorch issue #41383's 5-7 us for scalar CUDA ops and vLLM PR #34838's 8.68 us
 * per Triton JIT dispatch (GB200 host); a measured op cost, not fitted to any row. */
#define VLLM_HOST_OP_NS 8e3

static const sim_spec_proposer proposers[] = {
    {.name = "vllm", .first_host_kernels = 21, .step_host_kernels = 15, .full_vocab_logits = true},
    {.name = "vllm-0.9",
     .first_host_kernels = 27,
     .step_host_kernels = 15,
     .full_vocab_logits = true,
     .host_op_cpu_ns = VLLM_HOST_OP_NS,
     .verify_host_ops = 7},
    {.name = "vllm-0.10",
     .first_eager = true,
     .steps_eager = true,
     .first_host_kernels = 27,
     .step_host_kernels = 15,
     .full_vocab_logits = true,
     .host_op_cpu_ns = VLLM_HOST_OP_NS,
     .verify_host_ops = 7},
    {.name = "vllm-0.8",
     .first_eager = true,
     .steps_eager = true,
     .first_host_kernels = 24,
     .step_host_kernels = 7,
     .full_vocab_logits = true,
     .eager_pass_cpu_ns = 25e3,
     .host_op_cpu_ns = VLLM_HOST_OP_NS,
     .verify_host_ops = 7},
    {.name = "vllm-v0"},
    {.name = "sglang", .first_host_kernels = 12},
    {.name = "sglang-0.4", .first_eager = true, .first_host_kernels = 12},
    {.name = "trtllm", .kv_compaction = true},
};

sim_spec_proposer sim_spec_proposer_for(const char *profile)
{
    sim_spec_proposer best = {0};
    size_t best_len = 0;
    for (size_t i = 0; profile && i < sizeof proposers / sizeof proposers[0]; i++) {
        size_t n = strlen(proposers[i].name);
        if (n > best_len && strncmp(profile, proposers[i].name, n) == 0) {
            best = proposers[i];
            best_len = n;
        }
    }
    return best;
}
