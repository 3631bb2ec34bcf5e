"""The Python package over the C library: python3 -m unittest discover -s tests/python
(PYTHONPATH names build/python or an installed PREFIX/lib/python3/dist-packages)."""

import os
import subprocess
import sys
import tempfile
import threading
import unittest

import infersim


class TestInfersim(unittest.TestCase):
    def test_run(self):
        r = infersim.run(model="llama-3.1-8b", hw="h100-sxm", tp=2, batch=4)
        self.assertEqual(r["tp"], 2)
        self.assertGreater(r["ttft_ms"], 0)
        self.assertGreater(r["tpot_ms"], 0)

    def test_data_found_from_any_folder(self):
        # the package used from a folder of its own, without $INFERSIM_DATA: the build tree's
        # finds the source tree its build folder records, an installed one its share/infersim
        env = {k: v for k, v in os.environ.items() if k != "INFERSIM_DATA"}
        code = ("import infersim; r = infersim.run(model='llama-3.1-8b', hw='h100-sxm'); "
                "print(r['hw'])")
        with tempfile.TemporaryDirectory() as d:
            out = subprocess.run([sys.executable, "-c", code], cwd=d, env=env,
                                 capture_output=True, text=True, check=False)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("H100", out.stdout)

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
        d = infersim.hw("l4")  # a datasheet device: its peaks per format, fp16's fraction derived
        fields = {f["field"]: f for f in d["fields"]}
        self.assertEqual(d["arch"], "ada")
        self.assertEqual(fields["dense_tflops.fp8"]["from"], "file")
        self.assertEqual(fields["dense_tflops.fp8"]["value"], 242)
        self.assertEqual(fields["efficiency.gemm.fp16"]["from"], "derived")
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

    def test_unrepresentable_arguments_refused(self):
        # issue 33 D13: an embedded NUL was cut (the C string ends there: "llama-3.1-8b\0x" ran
        # llama-3.1-8b), a lone surrogate raised a bare UnicodeEncodeError, and tp=True passed
        # --tp without its value; each is a Python exception that says why
        with self.assertRaises(ValueError) as cm:
            infersim.run(model="llama-3.1-8b\0x", hw="h100-sxm")
        self.assertIn("NUL character", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            infersim.run(model="llama-3.1-8b", hw="h100\udc80")
        self.assertIn("lone surrogate", str(cm.exception))
        self.assertNotIsInstance(cm.exception, UnicodeError)
        for call in (lambda: infersim.run(model="llama-3.1-8b", hw="h100-sxm", tp=True),
                     lambda: infersim.run(model="llama-3.1-8b", hw="h100-sxm", tp=True,
                                          enforce_eager=True),
                     lambda: infersim.sweep("run", model="llama-3.1-8b", hw="h100-sxm", tp=True)):
            with self.assertRaises(TypeError) as cm:
                call()
            self.assertIn("tp=True: --tp takes a value", str(cm.exception))
        # a flag that takes no value still takes True
        self.assertEqual(infersim.run(model="llama-3.1-8b", hw="h100-sxm",
                                      enforce_eager=True)["tp"], 1)


if __name__ == "__main__":
    unittest.main()
