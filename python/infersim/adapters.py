"""Adapters from engine simulators' batch shapes to infersim.Step (include/infersim_step.h).

Each turns what an engine's scheduler hands its model runner for one forward step into the
predictor's batch, (new_tokens, cached_tokens, kind) per sequence, and prices it. They read only
the fields named below, so they take the engines' own objects or any object with those fields.

SGLangPredictor: the latency-predictor hook of SGLang's simulator (tools/sglang-simulator,
  sgl-project/sglang PR #33824; sgl-project/sglang@2f070b1bf46268e51498d579a062e8e933eb1b25
  tools/sglang-simulator/src/sglang_simulator/time_predictor/base.py): InferTimePredictor's
  predict_infer_time(batch) -> seconds, a negative value on failure, where batch.reqs holds one
  ScheduleRequest per sequence with extend_length (tokens this step) and past_kv_length (its
  cached context), and the batch is a decode batch when every extend_length is at most 1
  (ScheduleBatch.is_decode). SGLang runs prompt chunks and decodes in separate batches; a chunk
  is priced as sampling (PREFILL_LAST: one LM-head row more than a chunk with more to come),
  since the hook does not say which request is the chunked one.

VLLMStepClock: vLLM V1's SchedulerOutput (vllm-project/vllm@00e8f1fd0936d138370d01dbe1b4f8e12baf63b1
  vllm/v1/core/sched/output.py), which a model runner's execute_model receives each step (vLLM's
  simulated forward mode, vllm-project/vllm PR #47922, runs the real scheduler this way):
  num_scheduled_tokens {req_id: tokens this step}; scheduled_new_reqs (NewRequestData: req_id,
  prompt_token_ids, num_computed_tokens); scheduled_cached_reqs (CachedRequestData: req_ids,
  num_computed_tokens, num_output_tokens); finished_req_ids. A request knows its prompt plus the
  tokens it has output; it decodes when one known token is left to feed (computed = known - 1),
  its step samples when it reaches the end of what it knows (computed + scheduled >= known: a
  prompt's last chunk, or the end of a recompute after preemption), else it is a prompt chunk.
"""

from . import DECODE, PREFILL, PREFILL_LAST, Step

__all__ = ["SGLangPredictor", "VLLMStepClock", "sglang_batch", "vllm_batch"]


def sglang_batch(batch):
    """The predictor's batch of an SGLang simulator ScheduleBatch."""
    decode = all(r.extend_length <= 1 for r in batch.reqs)
    kind = DECODE if decode else PREFILL_LAST
    return [(r.extend_length, r.past_kv_length, kind) for r in batch.reqs]


class SGLangPredictor:
    """An InferTimePredictor for SGLang's simulator: predict_infer_time(batch) in seconds.
    flags: the deployment as Step takes it (model=..., hw=..., tp=..., engine="sglang", ...)."""

    def __init__(self, **flags):
        self.step = Step(**flags)
        self.last_error = None  # the message of the last refused batch

    def predict_infer_time(self, batch):
        try:
            return self.step.price(sglang_batch(batch)).step_us / 1e6
        except ValueError as e:  # the hook's contract: a negative value on failure
            self.last_error = str(e)
            return -1.0


def vllm_batch(scheduler_output, prompt_len):
    """The predictor's batch of a vLLM V1 SchedulerOutput. prompt_len maps a request to its
    prompt's length: a new request's is added here, a finished one's dropped."""
    so = scheduler_output
    known, computed = {}, {}
    for r in so.scheduled_new_reqs:
        prompt_len[r.req_id] = known[r.req_id] = len(r.prompt_token_ids)
        computed[r.req_id] = r.num_computed_tokens
    cached = so.scheduled_cached_reqs
    for rid, c, out in zip(cached.req_ids, cached.num_computed_tokens, cached.num_output_tokens):
        known[rid] = prompt_len[rid] + out
        computed[rid] = c
    seqs = []
    for rid, n in so.num_scheduled_tokens.items():
        c, k = computed[rid], known[rid]
        kind = DECODE if c == k - 1 else PREFILL_LAST if c + n >= k else PREFILL
        seqs.append((n, c, kind))
    for rid in so.finished_req_ids:
        prompt_len.pop(rid, None)
    return seqs


class VLLMStepClock:
    """Prices each SchedulerOutput of a vLLM V1 scheduler: price(scheduler_output) is the
    StepTime a simulated execute_model advances its clock (or sleeps) by."""

    def __init__(self, **flags):
        self.step = Step(**flags)
        self.prompt_len = {}

    def price(self, scheduler_output):
        return self.step.price(vllm_batch(scheduler_output, self.prompt_len))
