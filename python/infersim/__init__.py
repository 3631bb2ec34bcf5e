"""infersim: predicts LLM serving performance (TTFT, TPOT, throughput, memory) on accelerators.

A thin ctypes layer over the C library's infersim_json (include/infersim.h); standard library
only. Every function takes the command's flags as keywords and returns the parsed JSON:

    import infersim
    r = infersim.run(model="llama-3.1-8b", hw="h100-sxm", tp=2, batch=8)
    r["ttft_ms"], r["tpot_ms"]
    s = infersim.serve(model="meta-llama/Llama-3.1-8B-Instruct", hw="h100-sxm",
                       num_prompts=200, request_rate=10)

A keyword is the flag with '-' written as '_' (num_prompts=... is --num-prompts); True passes a
flag that takes no value (enforce_eager=True), False and None leave a flag out, and a list or
tuple becomes a comma-separated list (sweep: tp=[1, 2, 4]). Bad input raises ValueError with
infersim's one-line message (an argument holding a NUL or a lone surrogate, which no C string can
carry, too); True for a flag that takes a value (tp=True) raises TypeError; calls are thread-safe.

The step-time predictor (include/infersim_step.h) prices one engine iteration's batch at a time,
for simulators that run a scheduler of their own:

    with infersim.Step(model="llama-3.1-8b", hw="h100-sxm", tp=2, engine="vllm") as step:
        t = step.price([(1, 900, infersim.DECODE), (512, 0, infersim.PREFILL_LAST)])
        t.step_us, t.prefill_us, t.decode_us, t.comm_us, t.lo_us, t.hi_us

Each sequence is (new_tokens, cached_tokens, kind) or (new_tokens, cached_tokens, kind, dp_rank);
a refused deployment or batch raises ValueError with the library's one-line message. A Step is
used by one thread at a time; separate Steps run on separate threads at once.
"""

import ctypes
import json
import os

__all__ = ["run", "serve", "sweep", "roofline", "hw", "command", "version", "Step", "StepTime",
           "PREFILL", "PREFILL_LAST", "DECODE"]


def _load():
    here = os.path.dirname(os.path.abspath(__file__))
    names = [os.environ.get("INFERSIM_LIBRARY"), os.path.join(here, "_infersim.so")]
    errors = []
    for name in names:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("infersim: cannot load the library: " + "; ".join(errors))


_lib = _load()
_lib.infersim_json.restype = ctypes.c_void_p
_lib.infersim_json.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                               ctypes.c_char_p, ctypes.c_size_t]
_lib.infersim_version.restype = ctypes.c_char_p
_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]
_libc.free.restype = None


def _flags(kwargs):
    args = []
    for key, value in kwargs.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


def _arg(i, a):
    """One argument as the C library takes it: UTF-8 bytes without NUL, or ValueError saying why."""
    s = str(a)
    if "\0" in s:
        raise ValueError("infersim: argument %d (%r) holds a NUL character, which ends a C string: "
                         "the library would read only %r" % (i, s, s.split("\0")[0]))
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError("infersim: argument %d (%r) is not valid Unicode text: %s at position %d "
                         "(a lone surrogate has no UTF-8 form)" % (i, s, e.reason, e.start)) from None


def command(*argv):
    """Runs one command line (argv[0] is the command) and returns its JSON as Python values."""
    args = [_arg(i, a) for i, a in enumerate(argv)]
    arr = (ctypes.c_char_p * len(args))(*args)
    err = ctypes.create_string_buffer(1024)
    ptr = _lib.infersim_json(len(args), arr, err, len(err))
    if not ptr:
        raise ValueError(err.value.decode(errors="replace"))
    try:
        return json.loads(ctypes.string_at(ptr).decode())
    finally:
        _libc.free(ptr)


def _call(name, flags, *head):
    """command(name, *head, *flags); a keyword given True for a flag that takes a value (tp=True)
    raises TypeError saying so, rather than the flag's missing value."""
    try:
        return command(name, *head, *_flags(flags))
    except ValueError as e:
        for key, value in flags.items():
            flag = "--" + key.replace("_", "-")
            if value is True and str(e).startswith("infersim: %s: missing value" % flag):
                raise TypeError("infersim: %s=True: %s takes a value, not True (True passes only "
                                "a flag that takes none); %s" % (key, flag, e)) from None
        raise


def run(**flags):
    """infersim run: a static batch (TTFT, TPOT, E2E, throughput, per-op breakdown)."""
    return _call("run", flags)


def serve(**flags):
    """infersim serve: a request stream under continuous batching (vLLM's benchmark metrics)."""
    return _call("serve", flags)


def sweep(cmd="run", **flags):
    """infersim sweep run|serve: {"points": [one dict per grid point]}."""
    return _call("sweep", flags, cmd)


def roofline(**flags):
    """infersim roofline: peaks, ridge points and, with a model, op intensities."""
    return _call("roofline", flags)


def hw(device):
    """infersim hw: every field of a device (a file or a name in hw/), with where it came from."""
    return command("hw", device)


def version():
    return _lib.infersim_version().decode()


# ---- the step-time predictor (include/infersim_step.h) ----

STEP_ABI = 1  # INFERSIM_STEP_ABI of the header this binding was written against
PREFILL, PREFILL_LAST, DECODE = 0, 1, 2  # infersim_step_kind


class _Seq(ctypes.Structure):
    _fields_ = [("new_tokens", ctypes.c_int64), ("cached_tokens", ctypes.c_int64),
                ("kind", ctypes.c_int32), ("dp_rank", ctypes.c_int32)]


class StepTime(ctypes.Structure):
    """One step's time in microseconds (infersim_step_time): step_us = prefill_us + decode_us +
    comm_us; host_us of it the engine's CPU time the GPU waits for; lo_us and hi_us the band;
    step_ns the engine's clock; graph_batch the CUDA-graph batch replayed (0: eager)."""
    _fields_ = [("step_us", ctypes.c_double), ("prefill_us", ctypes.c_double),
                ("decode_us", ctypes.c_double), ("comm_us", ctypes.c_double),
                ("host_us", ctypes.c_double), ("lo_us", ctypes.c_double),
                ("hi_us", ctypes.c_double), ("step_ns", ctypes.c_int64),
                ("graph_batch", ctypes.c_int64)]

    def __repr__(self):
        return "StepTime(%s)" % ", ".join("%s=%r" % (f, getattr(self, f)) for f, _ in self._fields_)


_lib.infersim_step_abi.restype = ctypes.c_int
_lib.infersim_step_open.restype = ctypes.c_int
_lib.infersim_step_open.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                    ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p,
                                    ctypes.c_size_t]
_lib.infersim_step_max_seqs.restype = ctypes.c_int64
_lib.infersim_step_max_seqs.argtypes = [ctypes.c_void_p]
_lib.infersim_step_price.restype = ctypes.c_int
_lib.infersim_step_price.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Seq), ctypes.c_size_t,
                                     ctypes.POINTER(StepTime), ctypes.c_char_p, ctypes.c_size_t]
_lib.infersim_step_close.restype = None
_lib.infersim_step_close.argtypes = [ctypes.c_void_p]


class Step:
    """A deployment loaded once (serve's flags as keywords, as serve() takes them); price() each
    iteration's batch. Close it with close() or a with block."""

    def __init__(self, **flags):
        args = [_arg(i, a) for i, a in enumerate(_flags(flags))]
        arr = (ctypes.c_char_p * max(1, len(args)))(*args)
        self._h = ctypes.c_void_p()
        self._err = ctypes.create_string_buffer(1024)
        rc = _lib.infersim_step_open(STEP_ABI, len(args), arr, ctypes.byref(self._h), self._err,
                                     len(self._err))
        if rc:
            self._h = None
            raise ValueError(self._err.value.decode(errors="replace"))
        self.max_seqs = _lib.infersim_step_max_seqs(self._h)
        self._seqs = (_Seq * self.max_seqs)()  # reused: no allocation per call in the library
        self._out = StepTime()

    def price(self, seqs):
        """The StepTime of one iteration: seqs is a sequence of (new_tokens, cached_tokens, kind)
        or (new_tokens, cached_tokens, kind, dp_rank) tuples, kind PREFILL, PREFILL_LAST or
        DECODE."""
        if self._h is None:
            raise ValueError("infersim: Step.price: the Step is closed")
        n = len(seqs)
        if n > self.max_seqs:
            raise ValueError("infersim: infersim_step_price: n: value %d, expected 1 to %d "
                             "sequences (the engine's max_num_seqs; --max-num-seqs raises it)"
                             % (n, self.max_seqs))
        buf = self._seqs
        for i, s in enumerate(seqs):
            if not 3 <= len(s) <= 4:
                raise ValueError("infersim: Step.price: seqs[%d]: %r, expected (new_tokens, "
                                 "cached_tokens, kind[, dp_rank])" % (i, s))
            for name, v, bits in zip(("new_tokens", "cached_tokens", "kind", "dp_rank"),
                                     tuple(s) + (0,) * (4 - len(s)), (64, 64, 32, 32)):
                if isinstance(v, bool) or not isinstance(v, int) or \
                        not -(1 << (bits - 1)) <= v < 1 << (bits - 1):
                    raise ValueError("infersim: Step.price: seqs[%d].%s: value %r, expected an "
                                     "integer of %d bits" % (i, name, v, bits))
                setattr(buf[i], name, v)
        rc = _lib.infersim_step_price(self._h, buf, n, ctypes.byref(self._out), self._err,
                                      len(self._err))
        if rc:
            raise ValueError(self._err.value.decode(errors="replace"))
        return StepTime.from_buffer_copy(self._out)

    def close(self):
        if self._h is not None:
            _lib.infersim_step_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_h", None) is not None:
            self.close()


def step_abi():
    """The library's INFERSIM_STEP_ABI."""
    return _lib.infersim_step_abi()
