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
"""

import ctypes
import json
import os

__all__ = ["run", "serve", "sweep", "roofline", "hw", "command", "version"]


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
