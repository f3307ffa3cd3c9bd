"""Differential harness: one torch-written snippet, run under real torch and under the proxy.

Each snippet is source code that does ``import torch`` and defines ``f(*args)``.  It is executed
twice in the same process, as two modules:
- ``difftest_oracle.<n>``: not in scope, so ``import torch`` is real torch (the CPU build);
- ``difftest_scoped.<n>``: in scope, so ``import torch`` is the facade and every Tensor method
  called from it has torch semantics, on paddle.Tensor objects.
Inputs are numpy arrays (converted to each side's tensors) or plain Python values.
The results are compared structurally: values (numpy allclose / exact), dtypes (by the name
after the last dot: ``float16``), shapes, Python types of scalars, and the exception *type*
when the oracle raises.

    from difftest import check
    check('''
    import torch
    def f(x):
        return x.sum(dim=-1, keepdim=True)
    ''', np.ones((2, 3), "float32"))
"""
from __future__ import annotations

import itertools
import sys
import textwrap
import traceback
import types

import numpy as np

import torchproxy

SCOPED_PKG = "difftest_scoped"
ORACLE_PKG = "difftest_oracle"
_counter = itertools.count()


def _ensure_enabled():
    # extend (never replace) whatever scope the test session has
    torchproxy.enable(scope={SCOPED_PKG})


def load(src: str, scoped: bool) -> types.ModuleType:
    """Execute ``src`` as a fresh module of the scoped or the oracle package."""
    _ensure_enabled()
    name = f"{SCOPED_PKG if scoped else ORACLE_PKG}.m{next(_counter)}"
    mod = types.ModuleType(name)
    mod.__file__ = f"<difftest {name}>"
    sys.modules[name] = mod
    try:
        exec(compile(textwrap.dedent(src), mod.__file__, "exec"), mod.__dict__)
    finally:
        sys.modules.pop(name, None)
    return mod


# -- converting inputs and outputs ------------------------------------------------------------
def to_torch(value):
    import torch
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value.copy())
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, np.ndarray) for v in value):
        return type(value)(to_torch(v) for v in value)
    return value


def to_paddle(value):
    import paddle
    if isinstance(value, np.ndarray):
        return paddle.to_tensor(value.copy())
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, np.ndarray) for v in value):
        return type(value)(to_paddle(v) for v in value)
    return value


def _dtype_name(dtype) -> str:
    s = str(dtype).split(".")[-1]
    # Paddle 2.6 prints VarType names
    return {"fp16": "float16", "fp32": "float32", "fp64": "float64", "bf16": "bfloat16",
            "int32": "int32", "bool": "bool"}.get(s.lower(), s)


def normalize(value):
    """Turn a result of either side into comparable plain data."""
    try:
        import torch
    except ImportError:  # pragma: no cover - the oracle is required for these tests
        torch = None
    import paddle

    if torch is not None and isinstance(value, torch.Tensor):
        t = value.detach().cpu()
        dt = _dtype_name(t.dtype)
        if t.dtype == torch.bfloat16:
            t = t.float()
        return ("tensor", dt, tuple(t.shape), t.numpy().copy(), bool(value.requires_grad))
    if isinstance(value, paddle.Tensor):
        dt = _dtype_name(value.dtype)
        v = value.detach()
        if dt == "bfloat16":
            v = v.astype("float32")
        return ("tensor", dt, tuple(v.shape), v.cpu().numpy().copy(), not value.stop_gradient)
    if torch is not None and isinstance(value, torch.dtype):
        return ("dtype", _dtype_name(value))
    if type(value).__name__ in ("dtype", "VarType", "DataType") and "paddle" in type(value).__module__ + str(value):
        return ("dtype", _dtype_name(value))
    if torch is not None and isinstance(value, torch.Size):
        return ("size", tuple(value))
    if type(value).__name__ == "Size":
        return ("size", tuple(value))
    if torch is not None and isinstance(value, torch.device):
        return ("device", value.type, value.index)
    if type(value).__name__ == "device" and hasattr(value, "type") and hasattr(value, "index"):
        return ("device", value.type, value.index)
    # namedtuples (values, indices); torch's return types are structseqs: __match_args__
    fields = getattr(value, "_fields", None) or getattr(type(value), "__match_args__", None)
    if isinstance(value, tuple) and fields:
        return ("namedtuple", tuple(fields), tuple(normalize(v) for v in value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(normalize(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, normalize(v)) for k, v in value.items())))
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", value)
    return ("other", type(value).__name__, repr(value))


def assert_same(expected, actual, rtol=1e-5, atol=1e-6, path="result", check_grad_flag=True):
    if expected[0] != actual[0]:
        raise AssertionError(f"{path}: torch gives {expected[0]} {expected[1:]!r:.200}, "
                             f"proxy gives {actual[0]} {actual[1:]!r:.200}")
    kind = expected[0]
    if kind == "tensor":
        _, edt, eshape, eval_, egrad = expected
        _, adt, ashape, aval, agrad = actual
        assert edt == adt, f"{path}: dtype torch={edt} proxy={adt}"
        assert eshape == ashape, f"{path}: shape torch={eshape} proxy={ashape}"
        if check_grad_flag:
            assert egrad == agrad, f"{path}: requires_grad torch={egrad} proxy={agrad}"
        if eval_.dtype.kind in "fc":
            tol = {"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2)}.get(edt, (rtol, atol))
            np.testing.assert_allclose(aval, eval_, rtol=tol[0], atol=tol[1], equal_nan=True,
                                       err_msg=path)
        else:
            np.testing.assert_array_equal(aval, eval_, err_msg=path)
    elif kind in ("list", "tuple", "namedtuple"):
        e_items, a_items = expected[-1], actual[-1]
        if kind == "namedtuple":
            assert expected[1] == actual[1], f"{path}: fields torch={expected[1]} proxy={actual[1]}"
        assert len(e_items) == len(a_items), f"{path}: length torch={len(e_items)} proxy={len(a_items)}"
        for i, (e, a) in enumerate(zip(e_items, a_items)):
            assert_same(e, a, rtol, atol, f"{path}[{i}]", check_grad_flag)
    elif kind == "float":
        assert np.isclose(actual[1], expected[1], rtol=rtol, atol=atol, equal_nan=True), \
            f"{path}: torch={expected[1]} proxy={actual[1]}"
    elif kind == "dict":
        assert [k for k, _ in expected[1]] == [k for k, _ in actual[1]], f"{path}: keys differ"
        for (k, e), (_, a) in zip(expected[1], actual[1]):
            assert_same(e, a, rtol, atol, f"{path}[{k!r}]", check_grad_flag)
    else:
        assert expected == actual, f"{path}: torch={expected!r} proxy={actual!r}"


def run(src: str, *args, scoped: bool, **kwargs):
    mod = load(src, scoped)
    conv = to_paddle if scoped else to_torch
    cargs = [conv(a) for a in args]
    ckw = {k: conv(v) for k, v in kwargs.items()}
    return mod.f(*cargs, **ckw)


def check(src: str, *args, rtol=1e-5, atol=1e-6, check_grad_flag=True, **kwargs):
    """Run ``f(*args)`` under real torch and under the proxy; assert they agree.

    If torch raises, the proxy must raise an exception of the same type (or a subclass)."""
    # outside the try: a broken facade (enable() failing) must fail the test, not count as
    # "both sides raised the same error"
    _ensure_enabled()
    try:
        expected = run(src, *args, scoped=False, **kwargs)
    except Exception as torch_exc:  # noqa: BLE001 - the oracle's exception is the spec
        # the oracle's frames are done: free their locals now, not in a later garbage
        # collection (a torch DataLoader iterator left in the traceback's cycle shuts its
        # workers down from the collector, 5 s each, inside whichever test runs then)
        traceback.clear_frames(torch_exc.__traceback__)
        try:
            got = run(src, *args, scoped=True, **kwargs)
        except Exception as proxy_exc:  # noqa: BLE001
            if not isinstance(proxy_exc, type(torch_exc)):
                raise AssertionError(f"torch raised {type(torch_exc).__name__}: {torch_exc}; "
                                     f"proxy raised {type(proxy_exc).__name__}: {proxy_exc}") from proxy_exc
            return None
        raise AssertionError(f"torch raised {type(torch_exc).__name__}: {torch_exc}; "
                             f"proxy returned {got!r:.300}")
    actual = run(src, *args, scoped=True, **kwargs)
    e, a = normalize(expected), normalize(actual)
    assert_same(e, a, rtol, atol, check_grad_flag=check_grad_flag)
    return actual
