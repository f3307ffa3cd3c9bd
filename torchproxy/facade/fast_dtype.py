"""``x.dtype`` of a Paddle tensor at torch's cost while torchproxy is enabled (issue 26, eighth
round): torchproxy._cptensor (torchproxy/_paddle_tensor.c says how) reads the tensor's
phi::DataType through Paddle's exported C++ tensor API and hands out the canonical dtype object
(``paddle.float32`` itself), where Paddle 2.6's getter builds a new pybind enum instance per read
(0.19-0.25 us; Triton's specialiser reads it for every tensor argument of every launch).

The answer is Paddle's: the same type, ``==`` and hash; for every object the table cannot answer
(an undefined or non-dense tensor, a code no probe met) Paddle's own getter runs.  It serves
every caller, in scope or not, as Paddle's own getter did: the value does not depend on the
caller.  ``install`` checks first, on one CPU tensor of each dtype this Paddle has, that the C
reading and Paddle's answer agree, and installs nothing otherwise (nor where the extension or
the API is missing: Paddle's getter then stays).  Where Paddle's getter already returns the
canonical objects (3.x returns ``paddle.float32`` itself) nothing is installed either: nothing
would be gained.
"""
from __future__ import annotations

import os

# Paddle dtype names probed for the table (what this Paddle lacks is skipped)
_PROBE_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float32", "float64", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2")


def _module():
    try:
        from .. import _cptensor
    except ImportError:
        return None
    return _cptensor


def _library_paths(paddle) -> list[str]:
    from ..paddle_shims import tensor_api_libraries
    return tensor_api_libraries()


def build_table(C, paddle) -> dict | None:
    """phi::DataType code -> canonical Paddle dtype, from one CPU tensor per dtype; None when any
    probe disagrees with Paddle's own getter (then nothing is installed)."""
    from ..paddle_shims import paddle_dtype
    table = {}
    place = paddle.CPUPlace()
    for name in _PROBE_NAMES:
        canon = paddle_dtype(name)
        if canon is None:
            continue
        try:
            t = paddle.to_tensor([0], dtype=canon, place=place)
        except Exception:  # noqa: BLE001 - a dtype this Paddle cannot make on the CPU
            continue
        code = C.dtype_code(t, paddle.Tensor)
        theirs = t.dtype
        if code is None or type(theirs) is not type(canon) or theirs != canon:
            return None
        if table.get(code, canon) != canon:
            return None  # two dtypes with one code: something is not what this module assumes
        table[code] = canon
    return table or None


def make(paddle):
    """The descriptor to install as paddle.Tensor.dtype, or None (see the module docstring)."""
    C = _module()
    if C is None or not C.bind(_library_paths(paddle)):
        return None
    probe = paddle.to_tensor([0.0], dtype="float32", place=paddle.CPUPlace())
    if probe.dtype is probe.dtype:
        return None  # Paddle's getter already hands out canonical objects (3.x)
    table = build_table(C, paddle)
    if table is None:
        return None
    orig = paddle.Tensor.__dict__["dtype"]
    descr = C.DtypeDescr(orig, paddle.Tensor, table)
    # the installed reading must answer what Paddle answers on every probe
    for canon in table.values():
        t = paddle.to_tensor([0], dtype=canon, place=paddle.CPUPlace())
        mine = descr.__get__(t, paddle.Tensor)
        if mine is not canon or orig.__get__(t, paddle.Tensor) != mine:
            return None
    return descr


# -- x.device: the C dispatcher reads places through the same API -------------------------------
def install_device_reading(paddle) -> bool:
    """Hand the C dispatcher Paddle's place reader (_paddle_tensor.c read_place; _dispatch.c
    fast_device), after checking on a CPU tensor that it reads what Paddle's own Place says.
    False (and nothing set) without the builds, the exports, or when the check fails."""
    from . import dispatch
    C, D = _module(), dispatch._C
    if C is None or D is None or not hasattr(D, "set_tensor_api"):
        return False
    if not C.bind(_library_paths(paddle)):
        return False
    cap = C.api()
    if cap is None:
        return False
    from ..paddle_shims import place_type
    t = paddle.to_tensor([1.0], place=paddle.CPUPlace())
    if C.place_of(t, paddle.Tensor) != (place_type(t.place), 0):
        return False
    if not D.set_tensor_api(cap, paddle.Tensor):
        return False
    # the CPU-only paths' place test (paddle_shims.ON_CPU) reads it too
    _install_on_cpu(C, paddle, t)
    # the same reading keys torch.empty_like's Place objects (_paddle_tensor.c place())
    C.set_place_type(paddle.Tensor)
    if str(C.place(t)) != str(t.place):  # 2.6's Place has no __eq__ (identity)
        C.set_place_type(None)
    return True


def _install_on_cpu(C, paddle, cpu_tensor) -> None:
    """paddle_shims.ON_CPU through place_of(): the CPU's AllocationType learnt from a CPU
    tensor; Paddle's answer for the tensors place_of does not read (not dense, no allocation)."""
    from .. import paddle_shims
    key = C.place_of(cpu_tensor, paddle.Tensor)
    if key is None:
        return
    place_of, T, cpu = C.place_of, paddle.Tensor, key[0]

    def on_cpu(x):
        k = place_of(x, T)
        return k[0] == cpu if k is not None else x.place.is_cpu_place()
    paddle_shims.ON_CPU = on_cpu


def uninstall_device_reading() -> None:
    from .. import paddle_shims
    paddle_shims.ON_CPU = paddle_shims.paddle_on_cpu
    from . import dispatch
    D = dispatch._C
    if D is not None and hasattr(D, "set_tensor_api"):
        D.set_tensor_api(None, None)
    C = _module()
    if C is not None:
        C.set_place_type(None)


def place_reader():
    """x's place for torch.empty_like's hot path: _paddle_tensor.c like_place() (one Place
    object per place, None for a GPU-pinned x, once install_device_reading() ran; Paddle's own
    ``x.place`` before), or ``operator.attrgetter("place")`` without the build."""
    C = _module()
    if C is None:
        import operator
        return operator.attrgetter("place")
    return C.like_place
