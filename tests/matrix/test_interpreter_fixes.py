"""torchproxy/integrations/triton_interpreter.py: each fix makes Triton's CPU interpreter do what
compiled Triton does, here on REAL torch tensors (the fixes are not about Paddle), checked
against numpy; and without the fixes the same kernels fail as the matrix reported.
Each scenario runs in a fresh interpreter process (TRITON_INTERPRET must be set before Triton
is imported, and the fixes are process-wide)."""

import pytest

from interpreter_child import run_kernels

pytest.importorskip("triton")
pytest.importorskip("torch")

KERNELS = '''
import math, sys
import numpy as np
import torch, triton, triton.language as tl
from triton.language.extra.libdevice import rsqrt, tanh

@triton.jit
def scaled_rsqrt(x_ptr, y_ptr, eps, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    eps = eps.to(tl.float32)              # a Python float argument is an fp32 scalar
    tl.store(y_ptr + offs, rsqrt(x + eps) + tanh(x), mask=m)

@triton.jit
def unknown_libdevice(x_ptr, BLOCK: tl.constexpr):
    from triton.language.extra.libdevice import j0
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, j0(tl.load(x_ptr + offs)))

@triton.autotune(configs=[triton.Config({"BLOCK": 8}), triton.Config({"BLOCK": 16})], key=["n"])
@triton.jit
def tuned_double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)

@triton.jit
def loop_sum(y_ptr, n):
    acc = 0.0
    for i in range(n):                    # compiled Triton: i is an int32 tensor
        acc += i.to(tl.float32)
    for j in tl.static_range(3):          # unrolled with Python ints, also compiled
        acc += j
    tl.store(y_ptr, acc)

@triton.jit
def _twice(x):
    return x * 2

@triton.jit
def _twice_plus_rsqrt(x):
    return _twice(x) + rsqrt(x)           # a device call and a libdevice stub in a device call

@triton.jit
def nested(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, _twice_plus_rsqrt(tl.load(x_ptr + offs, mask=m, other=1.0)), mask=m)

def run_all():
    x = torch.rand(20) + 0.5
    y = torch.empty_like(x)
    out = {}
    from triton.runtime import interpreter as interp
    patch_builtin, calls = interp._patch_builtin, []
    interp._patch_builtin = lambda *a: (calls.append(1), patch_builtin(*a))[1]
    w = torch.empty_like(x)
    try:
        nested[(3,)](x, w, 20, BLOCK=8)   # 3 programs, 2 device calls each
        ref = x.numpy() * 2 + 1 / np.sqrt(x.numpy())
        out["nested"] = "ok" if np.allclose(w.numpy(), ref, rtol=1e-6, atol=1e-6) else "wrong"
    except Exception as e:
        out["nested"] = f"{type(e.__cause__ or e).__name__}: {e.__cause__ or e}"
    interp._patch_builtin = patch_builtin
    out["patch_builtin_calls"] = len(calls)
    try:
        scaled_rsqrt[(1,)](x, y, 1e-6, 20, BLOCK=32)
        ref = 1 / np.sqrt(x.numpy() + np.float32(1e-6)) + np.tanh(x.numpy())
        out["float_libdevice"] = "ok" if np.allclose(y.numpy(), ref, rtol=1e-6, atol=1e-6) else "wrong"
    except Exception as e:
        out["float_libdevice"] = f"{type(e.__cause__ or e).__name__}: {e.__cause__ or e}"
    z = torch.empty_like(x)
    try:
        tuned_double[lambda meta: (triton.cdiv(20, meta["BLOCK"]),)](x, z, 20)
        out["autotune"] = "ok" if torch.equal(z, x * 2) else "wrong"
        out["autotune_config"] = tuned_double.best_config.kwargs["BLOCK"]
    except Exception as e:
        out["autotune"] = f"{type(e).__name__}: {e}"
    s = torch.zeros(1)
    try:
        loop_sum[(1,)](s, 5)
        out["loop"] = float(s[0])
    except Exception as e:
        out["loop"] = f"{type(e.__cause__ or e).__name__}: {e.__cause__ or e}"
    try:
        unknown_libdevice[(1,)](x, BLOCK=4)
        out["unknown"] = "no error"
    except Exception as e:
        out["unknown"] = f"{type(e.__cause__ or e).__name__}: {e.__cause__ or e}"
    return out
'''


def _run(tmp_path, fix: bool) -> dict:
    return run_kernels(tmp_path, "libdevice_kernels", KERNELS, fix, after='''
        import triton.language.extra.libdevice as stubs
        res["stub_restored"] = stubs.rsqrt.__code__.co_name == "rsqrt" and \\
            stubs.rsqrt.__code__.co_filename == stubs.__file__
    ''')


def test_fixes_make_the_interpreter_run_what_compiled_triton_runs(tmp_path):
    res = _run(tmp_path, fix=True)
    assert res["installed"]["float_args"] and res["installed"]["libdevice"], res
    assert res["float_libdevice"] == "ok", res
    assert res["autotune"] == "ok" and res["autotune_config"] == 8, res  # the first config
    assert res["loop"] == 0 + 1 + 2 + 3 + 4 + 0 + 1 + 2, res
    assert res["unknown"].startswith("NotImplementedError: triton.language.extra.libdevice.j0 "), res
    # device calls inside the launch reuse its patch: one _patch_lang (4 _patch_builtin scans:
    # tl, tl.tensor, tl.math, tensor_descriptor_base) instead of 1 + 3 programs x 2 calls
    assert res["installed"]["nested_calls"] and res["nested"] == "ok", res
    assert res["patch_builtin_calls"] == 4, res
    # the stubs are swapped only while a kernel runs
    assert res["stub_restored"] is True, res


def test_without_the_fixes_the_interpreter_fails_as_reported(tmp_path):
    res = _run(tmp_path, fix=False)
    assert "'float' object has no attribute 'to'" in res["float_libdevice"], res
    assert "0 active drivers" in res["autotune"], res
    # the interpreter as it is repeats the launch's scans at each device call (here it stops in
    # the first program, after its 2 device calls: rsqrt is a stub returning None)
    assert res["patch_builtin_calls"] == 4 * (1 + 2), res
    # Triton 3.6 + numpy 2.4 stops earlier, at range(n) over a tensor (the index fix)
    assert ("'int' object has no attribute 'to'" in res["loop"]
            or "only 0-dimensional arrays" in res["loop"]), res
