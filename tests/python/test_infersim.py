"""The Python package over the C library: python3 -m unittest discover -s tests/python
(PYTHONPATH names build/python or an installed PREFIX/lib/python3/dist-packages)."""

import threading
import unittest

import infersim


class TestInfersim(unittest.TestCase):
    def test_run(self):
        r = infersim.run(model="llama-3.1-8b", hw="h100-sxm", tp=2, batch=4)
        self.assertEqual(r["tp"], 2)
        self.assertGreater(r["ttft_ms"], 0)
        self.assertGreater(r["tpot_ms"], 0)

    def test_bad_input_raises_value_error(self):
        with self.assertRaises(ValueError) as cm:
            infersim.run(model="llama-3.1-8b", hw="h100-sxm", tp=3)
        self.assertIn("--tp: value 3", str(cm.exception))
        with self.assertRaises(ValueError):
            infersim.run(model="llama-3.1-8b", hw="h100-sxm", no_such_flag=1)

    def test_serve_keywords_are_flags(self):
        s = infersim.serve(model="meta-llama/Llama-3.1-8B-Instruct", hw="h100-sxm",
                           num_prompts=30, request_rate=10, random_input_len=256,
                           random_output_len=16, ignore_eos=True)
        self.assertEqual(s["completed"], 30)
        self.assertIn("p99_ttft_ms", s)

    def test_sweep_and_roofline(self):
        p = infersim.sweep("run", model="llama-3.1-8b", hw="h100-sxm", tp=[1, 2], threads=1)
        self.assertEqual(len(p["points"]), 2)
        r = infersim.roofline(hw="h100-sxm")
        self.assertGreater(r["critical_intensity"], 0)

    def test_hw_fields_and_origins(self):
        d = infersim.hw("l4")  # a datasheet device: its bf16 peak alone, fp8 from the arch
        fields = {f["field"]: f for f in d["fields"]}
        self.assertEqual(d["arch"], "ada")
        self.assertEqual(fields["dense_tflops.fp8"]["from"], "derived")
        self.assertEqual(fields["dense_tflops.fp8"]["value"], 242)
        provs = {p["field"]: p for p in d["provenance"]}
        self.assertEqual(provs["efficiency.gemm.bf16"]["kind"], "default")
        self.assertTrue(d["default_only"])
        self.assertEqual(infersim.hw("h20")["provenance"][0]["kind"], "inherited")
        self.assertEqual(fields["hbm_tb_per_s"]["from"], "file")

    def test_threads_agree(self):
        args = dict(model="llama-3.1-8b", hw="h100-sxm", num_prompts=40, request_rate=5)
        alone = infersim.serve(**args)
        got = [None] * 4

        def work(i):
            got[i] = infersim.serve(**args)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for g in got:
            self.assertEqual(g, alone)


if __name__ == "__main__":
    unittest.main()
