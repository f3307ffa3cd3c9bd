"""Python's in-place operators (``x += y``...) on facade tensors, against real torch.

In scope, torch's semantics: x is mutated and stays the same object (other references see the
change), the result is cast to x's dtype (torch's RuntimeError where it refuses the cast), a
result that broadcasts beyond x's shape is torch's RuntimeError.  ``x @= y`` rebinds in torch
too (torch has no ``__imatmul__``).  Outside the scope, Paddle's behaviour exactly: ``x += y``
rebinds x to ``x + y`` and leaves the old tensor alone; disable() leaves no ``__iadd__``.
Both dispatchers (C and pure Python).
"""
from __future__ import annotations

import numpy as np
import paddle
import pytest
import torch as real_torch

import torchproxy
from difftest import load
from torchproxy.facade import dispatch, tensor as tensor_mod

OPS = ("+", "-", "*", "/", "%", "**", "&", "|", "^", "<<", ">>", "//")
DUNDERS = ("__iadd__", "__isub__", "__imul__", "__itruediv__", "__imod__", "__ipow__",
           "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__ifloordiv__")
BACKENDS = ["c", "python"] if dispatch.c_available() else ["python"]

SNIPPET = """
import torch
def f(x, y, op):
    x0 = x
    alias = x0
    ns = {{"x": x, "y": y}}
    exec(compile(f"x {{op}}= y", "<op>", "exec"), globals(), ns)
    x = ns["x"]
    return x is x0, x, alias
"""
# The exec above runs with the module's globals: the statement's caller is this module
SRC = SNIPPET.format()

F32 = np.array([[1.5, -2.25, 3.0], [0.5, 4.0, -1.0]], "float32")
F32B = np.array([[2.0, 0.5, -1.5], [3.0, -2.0, 0.25]], "float32")
I64 = np.array([[7, -3, 5], [2, 9, -8]], "int64")
I64B = np.array([[2, 3, 1], [1, 2, 3]], "int64")
BOOL = np.array([[True, False, True], [False, False, True]])
BOOLB = np.array([[True, True, False], [False, True, True]])
ROW = np.array([1.0, 2.0, 3.0], "float32")


def _cases():
    out = []
    for op in OPS:
        bitwise = op in ("&", "|", "^", "<<", ">>")
        if not bitwise:
            out.append((op, F32, F32B))                # same dtype
            out.append((op, F32, 2))                   # Python scalar
            out.append((op, F32, ROW))                 # broadcast into x's shape
            out.append((op, ROW, F32))                 # broadcast beyond x's shape: error
        out.append((op, I64, I64B))
        out.append((op, I64, 2))
        out.append((op, I64, 1.5))                     # float into int64: cast error / ok
        out.append((op, I64, F32B))                    # float tensor into int64
        out.append((op, F32, I64B))                    # int tensor into float32
        if bitwise:
            out.append((op, BOOL, BOOLB) if op in ("&", "|", "^") else (op, I64, True))
        out.append((op, I64, np.array(2.0, "float32")))  # a 0-d float tensor lifts to float
        out.append((op, F32, np.array(3, "int64")))     # a 0-d int tensor: float32 stays
    out.append(("+", BOOL, 1))                           # int into bool: cast error
    out.append(("|", BOOL, True))
    out.append(("*", BOOL, BOOLB))
    return out


CASES = _cases()
_IDS = [f"{op}-{getattr(a, 'dtype', type(a).__name__)}{getattr(a, 'shape', '')}"
        f"-{getattr(b, 'dtype', type(b).__name__)}{getattr(b, 'shape', '')}"
        for op, a, b in _cases()]


def _to(side, v):
    if isinstance(v, np.ndarray):
        return real_torch.from_numpy(v.copy()) if side == "torch" else paddle.to_tensor(v.copy())
    return v


def _norm(res):
    if isinstance(res, BaseException):
        return ("raises", type(res).__name__)
    same, x, alias = res
    arr = x.numpy() if hasattr(x, "numpy") else np.asarray(x)
    return (same, str(x.dtype).split(".")[-1], arr.shape, arr.tolist(),
            np.asarray(alias.numpy()).tolist())


def _run(mod, side, op, a, b):
    try:
        return mod.f(_to(side, a), _to(side, b), op)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return e


@pytest.fixture(scope="module", params=BACKENDS)
def mods(request):
    torchproxy.enable(scope={"difftest_scoped"})
    old = dispatch.backend()
    tensor_mod.uninstall()
    dispatch.set_backend(request.param)
    tensor_mod.install()
    try:
        yield load(SRC, scoped=True), load(SRC, scoped=False), request.param
    finally:
        tensor_mod.uninstall()
        dispatch.set_backend(old)
        tensor_mod.install()


@pytest.mark.parametrize("op,a,b", CASES, ids=_IDS)
def test_in_scope_matches_torch(mods, op, a, b):
    scoped, oracle, _ = mods
    want = _run(oracle, "torch", op, a, b)
    got = _run(scoped, "paddle", op, a, b)
    w, g = _norm(want), _norm(got)
    if w[0] == "raises":
        assert g[0] == "raises", (op, got)
        assert g[1] == w[1], (op, got, want)
        return
    assert g[:3] == w[:3], (op, got)
    assert w[0] is True  # torch mutates in place: x is the same object, the alias sees it
    _close(g[3], w[3])
    _close(g[4], w[4])


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got, dtype="float64"), np.asarray(want, "float64"),
                               rtol=1e-6, atol=1e-6, equal_nan=True)


def test_cast_and_broadcast_errors_say_what_torch_says(mods):
    scoped, oracle, _ = mods
    for a, b in ((I64, 1.5), (ROW, F32)):
        want = _run(oracle, "torch", "+", a, b)
        got = _run(scoped, "paddle", "+", a, b)
        assert isinstance(want, RuntimeError) and isinstance(got, RuntimeError)
    assert "can't be cast to the desired output type" in str(_run(scoped, "paddle", "+", I64, 1.5))
    assert "doesn't match the broadcast shape" in str(_run(scoped, "paddle", "+", ROW, F32))


def test_matmul_assignment_rebinds_as_in_torch(mods):
    scoped, oracle, _ = mods
    a = np.ones((2, 3), "float32")
    b = np.arange(9, dtype="float32").reshape(3, 3)
    want = oracle.f(_to("torch", a), _to("torch", b), "@")
    got = scoped.f(_to("paddle", a), _to("paddle", b), "@")
    assert want[0] is False and got[0] is False
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy())
    np.testing.assert_allclose(got[2].numpy(), a)


def test_other_operands_fall_back_to_the_binary_operator(mods):
    """Neither a tensor nor a Python number: NotImplemented, then Python's fallback to the
    binary operator (a numpy array: x = x + array, rebinding, as torch does)."""
    scoped, oracle, _ = mods
    y = np.ones(3, "float32")
    for side, mod in (("torch", oracle), ("paddle", scoped)):
        same, x, alias = mod.f(_to(side, F32), y, "+")
        assert same is False, side
        _close(np.asarray(x), F32 + y)
        _close(alias.numpy(), F32)


BINARY_DUNDER = dict(zip(OPS, ("__add__", "__sub__", "__mul__", "__truediv__", "__mod__",
                                 "__pow__", "__and__", "__or__", "__xor__", "__lshift__",
                                 "__rshift__", "__floordiv__")))
REBIND = """
def f(x, y, op):
    x0 = x
    ns = {"x": x, "y": y}
    exec(compile(f"x = x {op} y", "<op>", "exec"), globals(), ns)
    return ns["x"] is x0, ns["x"], x0
"""


@pytest.mark.parametrize("op", OPS)
def test_unscoped_code_keeps_paddles_rebinding(mods, op):
    _, oracle, _ = mods  # difftest_oracle.* is not in scope: here it runs on Paddle tensors
    a, b = (I64, I64B) if op in ("&", "|", "^", "<<", ">>", "%") else (F32, F32B)
    got = _run(oracle, "paddle", op, a, b)
    # exactly x = x <op> y, with the proxy on (the binary operator is what it is outside the
    # scope: Paddle's own, or torch's where Paddle lacks it -- Paddle 2.6 has no <<)
    rebind = _run(load(REBIND, scoped=False), "paddle", op, a, b)
    assert _norm(got)[:3] == _norm(rebind)[:3]
    if tensor_mod.original(BINARY_DUNDER[op]) is None:
        want = rebind
    else:  # Paddle has the operator: the same as with the proxy off
        torchproxy.disable()
        try:
            want = _run(oracle, "paddle", op, a, b)
        finally:
            torchproxy.enable(scope={"difftest_scoped"})
    g, w = _norm(got), _norm(want)
    assert g[:3] == w[:3]
    if not isinstance(want, BaseException):
        _close(g[3], w[3])
        _close(g[4], w[4])
        assert want[0] is False  # Paddle rebinds: a new tensor, the old one untouched
        np.testing.assert_array_equal(want[2].numpy(), a)


def test_disable_removes_every_trace(mods):
    _, _, backend = mods
    before = {n: (hasattr(paddle.Tensor, n), n in paddle.Tensor.__dict__) for n in DUNDERS}
    assert before == {n: (True, True) for n in DUNDERS}  # installed by the fixture
    info = dispatch.info(paddle.Tensor.__dict__["__iadd__"])
    assert info[0] == "__iadd__" and info[3] == backend
    x = paddle.to_tensor(F32.copy())
    assert x.__iadd__(1) is NotImplemented  # called from here: unscoped
    torchproxy.disable()
    try:
        assert not any(hasattr(paddle.Tensor, n) for n in DUNDERS)
        y = x
        y += 1
        assert y is not x
    finally:
        torchproxy.enable(scope={"difftest_scoped"})
        tensor_mod.uninstall()
        dispatch.set_backend(backend)
        tensor_mod.install()


def test_views_and_in_place_on_an_indexed_element(mods):
    """x[0] += 1 (getitem, __iadd__, setitem) and an in-place op through a view change x."""
    src = """
import torch
def f(x):
    x[0] += 1
    v = x[1]
    v *= 2
    return x
"""
    scoped, oracle = load(src, scoped=True), load(src, scoped=False)
    want = oracle.f(_to("torch", F32)).numpy()
    got = scoped.f(_to("paddle", F32)).numpy()
    np.testing.assert_allclose(got, want)
