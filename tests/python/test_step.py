"""The step-time predictor through the Python package (infersim.Step over
include/infersim_step.h): python3 -m unittest discover -s tests/python."""

import threading
import unittest

import infersim
from infersim import DECODE, PREFILL, PREFILL_LAST


class TestStep(unittest.TestCase):
    def test_matches_run(self):
        # a static batch's prefill step and its decode step at the prompt's context are the
        # batches run prices: 4 prompts of 1000 tokens, then 4 decodes over 1000 cached tokens
        r = infersim.run(model="llama-3.1-8b", hw="h100-sxm", tp=2, batch=4, input_len=1000,
                         output_len=2, uncertainty=0)
        with infersim.Step(model="llama-3.1-8b", hw="h100-sxm", tp=2, uncertainty=0) as s:
            pre = s.price([(1000, 0, PREFILL_LAST)] * 4)
            dec = s.price([(1, 1000, DECODE)] * 4)
        self.assertAlmostEqual(pre.step_us / 1e3, r["prefill"]["time_ms"],
                               delta=1e-9 * pre.step_us)
        self.assertAlmostEqual(dec.step_us / 1e3, r["decode"]["time_ms"],
                               delta=1e-9 * dec.step_us)
        self.assertAlmostEqual(pre.comm_us / 1e3, r["prefill"]["net_exposed_ms"],
                               delta=1e-9 * pre.step_us)
        self.assertEqual(pre.decode_us, 0.0)
        self.assertEqual(dec.prefill_us, 0.0)
        self.assertEqual(dec.graph_batch, 4)
        self.assertEqual(pre.graph_batch, 0)

    def test_split_and_band(self):
        with infersim.Step(model="llama-3.1-8b", hw="h100-sxm", tp=2) as s:  # 8 draws
            t = s.price([(1, 900, DECODE), (256, 1024, PREFILL), (512, 0, PREFILL_LAST, 0)])
        self.assertAlmostEqual(t.prefill_us + t.decode_us + t.comm_us, t.step_us,
                               delta=1e-9 * t.step_us)
        self.assertTrue(t.prefill_us > t.decode_us > 0 and t.comm_us > 0)
        self.assertTrue(t.lo_us < t.step_us < t.hi_us)
        self.assertEqual(t.step_ns, round(t.step_us * 1e3))

    def test_refused(self):
        with self.assertRaises(ValueError) as cm:
            infersim.Step(model="llama-3.1-8b", hw="h100-sxm", request_rate=4)
        self.assertIn("--request-rate: a serve flag that does not change", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            infersim.Step(model="no-such-model", hw="h100-sxm")
        self.assertIn("no-such-model", str(cm.exception))
        s = infersim.Step(model="llama-3.1-8b", hw="h100-sxm", max_num_seqs=2, uncertainty=0)
        self.assertEqual(s.max_seqs, 2)
        for batch, says in [([], "n: value 0"),
                            ([(1, 1, DECODE)] * 3, "n: value 3, expected 1 to 2"),
                            ([(0, 1, PREFILL)], "seqs[0].new_tokens: value 0"),
                            ([(1, 1, DECODE), (2, 1, DECODE)], "seqs[1].new_tokens: value 2"),
                            ([(1, -5, DECODE)], "seqs[0].cached_tokens: value -5"),
                            ([(1, 1, 9)], "seqs[0].kind: value 9"),
                            ([(1, 1 << 64, DECODE)], "seqs[0].cached_tokens: value"),
                            ([(1, 1.5, DECODE)], "seqs[0].cached_tokens: value 1.5"),
                            ([(1, 1)], "seqs[0]: (1, 1), expected")]:
            with self.assertRaises(ValueError) as cm:
                s.price(batch)
            self.assertIn(says, str(cm.exception))
        self.assertGreater(s.price([(1, 1, DECODE)]).step_us, 0)  # still usable after refusals
        s.close()
        with self.assertRaises(ValueError) as cm:
            s.price([(1, 1, DECODE)])
        self.assertIn("closed", str(cm.exception))
        self.assertEqual(infersim.step_abi(), infersim.STEP_ABI)

    def test_threads_on_separate_steps(self):
        batches = [[(1, 100 + 37 * i + j, DECODE) for j in range(1 + i % 7)] +
                   ([(300 + i, 0, PREFILL_LAST)] if i % 3 == 0 else []) for i in range(60)]

        def replay():
            with infersim.Step(model="qwen3-30b-a3b", hw="h100-sxm", ep=2, tp=2,
                               uncertainty=2) as s:
                return [s.price(b).step_ns for b in batches]

        alone = replay()
        got = [None] * 4

        def work(k):
            got[k] = replay()

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(got, [alone] * 4)


if __name__ == "__main__":
    unittest.main()


class TestAdapters(unittest.TestCase):
    """The engines' batch shapes (infersim/adapters.py cites the source of each) as stand-in
    objects with the same fields."""

    def test_sglang(self):
        from types import SimpleNamespace as NS

        from infersim.adapters import SGLangPredictor, sglang_batch
        decode = NS(reqs=[NS(extend_length=1, past_kv_length=900),
                          NS(extend_length=1, past_kv_length=40)])
        extend = NS(reqs=[NS(extend_length=512, past_kv_length=0),
                          NS(extend_length=300, past_kv_length=128)])
        self.assertEqual(sglang_batch(decode), [(1, 900, DECODE), (1, 40, DECODE)])
        self.assertEqual(sglang_batch(extend), [(512, 0, PREFILL_LAST), (300, 128, PREFILL_LAST)])
        flags = dict(model="qwen3-32b", hw="h200", tp=2, engine="sglang", uncertainty=0)
        p = SGLangPredictor(**flags)
        with infersim.Step(**flags) as s:
            for b in (decode, extend):
                self.assertEqual(p.predict_infer_time(b), s.price(sglang_batch(b)).step_us / 1e6)
        # the hook's contract: a negative time on failure, the message kept
        self.assertEqual(p.predict_infer_time(NS(reqs=[NS(extend_length=1, past_kv_length=-3)])),
                         -1.0)
        self.assertIn("cached_tokens: value -3", p.last_error)

    def test_vllm(self):
        from types import SimpleNamespace as NS

        from infersim.adapters import VLLMStepClock, vllm_batch

        def cached(ids, computed, outputs):
            return NS(req_ids=ids, num_computed_tokens=computed, num_output_tokens=outputs)

        def new(rid, prompt, computed=0):
            return NS(req_id=rid, prompt_token_ids=list(range(prompt)),
                      num_computed_tokens=computed)

        # step 1: A's first 512-token chunk of 600, B's whole 100-token prompt (16 cached)
        s1 = NS(scheduled_new_reqs=[new("A", 600), new("B", 100, 16)],
                scheduled_cached_reqs=cached([], [], []),
                num_scheduled_tokens={"A": 512, "B": 84}, finished_req_ids=set())
        # step 2: A's last chunk, B's first decode (it knows 100 + 1 tokens, 100 computed)
        s2 = NS(scheduled_new_reqs=[],
                scheduled_cached_reqs=cached(["A", "B"], [512, 100], [0, 1]),
                num_scheduled_tokens={"A": 88, "B": 1}, finished_req_ids=set())
        # step 3: B preempted and resumed: its 100 + 5 known tokens recomputed in one step
        s3 = NS(scheduled_new_reqs=[],
                scheduled_cached_reqs=cached(["A", "B"], [600, 0], [1, 5]),
                num_scheduled_tokens={"A": 1, "B": 105}, finished_req_ids={"A"})
        prompt = {}
        self.assertEqual(vllm_batch(s1, prompt), [(512, 0, PREFILL), (84, 16, PREFILL_LAST)])
        self.assertEqual(vllm_batch(s2, prompt), [(88, 512, PREFILL_LAST), (1, 100, DECODE)])
        self.assertEqual(vllm_batch(s3, prompt), [(1, 600, DECODE), (105, 0, PREFILL_LAST)])
        self.assertEqual(prompt, {"B": 100})  # A finished: forgotten
        flags = dict(model="llama-3.1-8b", hw="h100-sxm", uncertainty=0)
        clock = VLLMStepClock(**flags)
        with infersim.Step(**flags) as s:
            for so, want in [(s1, [(512, 0, PREFILL), (84, 16, PREFILL_LAST)]),
                             (s2, [(88, 512, PREFILL_LAST), (1, 100, DECODE)])]:
                self.assertEqual(clock.price(so).step_ns, s.price(want).step_ns)
