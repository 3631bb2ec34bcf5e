"""tools/microbench without a GPU or PyTorch: its command line (--help, argument errors as one
line with exit 2, --dry-run's plan) and its rows, which must be exactly the fixture that
test_cli_validate's calibrate test fits (tests/data/microbench-rows.csv from tests/data/microbench-measured.json)."""

import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "tools", "microbench")


def load_script():
    loader = importlib.machinery.SourceFileLoader("microbench", SCRIPT)
    spec = importlib.util.spec_from_loader("microbench", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def cli(*args):
    env = dict(os.environ)
    env.pop("WORLD_SIZE", None)
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True,
                          env=env, timeout=60)


class TestMicrobench(unittest.TestCase):
    def test_help(self):
        r = cli("--help")
        self.assertEqual(r.returncode, 0)
        for flag in ("--hw", "--out", "--kinds", "--dtypes", "--iters", "--dry-run"):
            self.assertIn(flag, r.stdout)
        self.assertIn("infersim calibrate", r.stdout)

    def test_argument_errors_are_one_line(self):
        cases = [(["--bogus"], "unrecognized arguments: --bogus"),
                 (["--kinds", "gemm,softmax"], "--kinds: value 'softmax'"),
                 (["--dtypes", "fp4"], "--dtypes: value 'fp4'"),
                 (["--kinds", ""], "--kinds: empty"),
                 (["--iters", "0", "--hw", "x"], "--iters: value 0"),
                 (["--iters", "many"], "--iters: invalid int value"),
                 (["--warmup", "-1", "--hw", "x"], "--warmup: value -1"),
                 ([], "--hw: missing"),
                 (["--hw", "../h100"], "--hw: value '../h100'")]
        for args, msg in cases:
            r = cli(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(r.stdout, "", args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)
            self.assertTrue(r.stderr.startswith("microbench: "), args)

    def test_dry_run_lists_the_shapes(self):
        r = cli("--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        mb = load_script()
        # bf16 and fp8 GEMMs over 4 (N, K) x 7 M, 2 x 5 attention shapes, 3 copies
        self.assertEqual(len(lines), 2 * len(mb.GEMM_NK) * len(mb.GEMM_M) + 10 + 3)
        self.assertEqual(lines[0], "gemm bf16 m=1 n=6144 k=4096")
        self.assertIn("gemm fp8 m=16384 n=4096 k=14336", lines)
        self.assertIn("attention bf16 batch=1 seq=16384 heads=32 head_dim=128 causal=true",
                      lines)
        self.assertIn("copy bytes=1073741824", lines)
        r = cli("--dry-run", "--kinds", "allreduce")
        self.assertEqual(r.stdout.splitlines()[0], "allreduce bf16 bytes=4096 gpus=8")
        self.assertEqual(len(r.stdout.splitlines()), 9)

    def test_rows_are_the_calibrate_fixture(self):
        mb = load_script()
        with open(os.path.join(ROOT, "tests", "data", "microbench-measured.json")) as f:
            measured = json.load(f)
        with open(os.path.join(ROOT, "tests", "data", "microbench-rows.csv")) as f:
            fixture = f.read()
        source = fixture.splitlines()[1].split(",\"")[1].split("\"")[0]
        self.assertEqual(mb.rows_csv(measured, "h100-fixture", source), fixture)
        header = fixture.splitlines()[0]
        with open(os.path.join(ROOT, "tools", "data", "validation.csv")) as f:
            self.assertEqual(header, f.readline().strip())  # the project's columns, in order
        self.assertIn(",latency_ms,", fixture)

    def test_no_torch_no_gpu_is_one_line(self):
        try:
            import torch  # noqa: F401
            self.skipTest("PyTorch is installed here")
        except ImportError:
            pass
        r = cli("--hw", "h100-sxm")
        self.assertEqual(r.returncode, 2)
        self.assertIn("PyTorch is not importable", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
