"""torch's OpInfo samples through real torch (the oracle) and through the facade, compared.

Variants.  For every ``op_db`` entry (``name`` + ``variant_test_name``) the variants OpInfo lists:
``fn`` (``op.op``: ``torch.<name>``, or OpInfo's own wrapper lambda), ``method``
(``Tensor.<m>``), ``inplace`` (``Tensor.<m>_``), ``operator`` / ``inplace_operator``
(``a + b``, ``a += b``), and for each alias ``alias_fn`` / ``alias_method`` / ``alias_inplace``;
``errors`` runs ``op.error_inputs`` through the function (reported apart).  A variant id is
``<op>[.<variant_test_name>]::<kind>[:<alias>]``, e.g. ``abs::inplace``, ``abs::alias_fn:absolute``.

How the facade is reached: only through its public behaviour, as a scoped importer sees it.
Small modules named ``opinfo_scoped.*`` are executed with ``import torch`` in them after
``torchproxy.enable(scope={"opinfo_scoped"})``: their ``torch`` is the facade, and every call
(function, Tensor method, operator) is made from a frame of such a module, so the scope
dispatchers apply.  OpInfo's own wrapper lambdas are re-bound to globals whose ``torch`` is the
facade and whose ``__name__`` is in scope.

Samples: ``op.sample_inputs("cpu", dtype)`` with ``torch.manual_seed(0)`` before generation, for
the dtypes of :func:`dtypes_for`.  Tensors go to Paddle through numpy with the same dtype; torch
dtypes/devices/memory formats in arguments become the facade's.  A sample whose inputs cannot be
expressed on Paddle (sparse layouts, generators) is skipped and counted as skipped.

Comparison: values (tolerances in :data:`TOLERANCES`, per op in ``tolerances.txt``), dtype, shape, the Python type of
scalars, namedtuple field names, identity of the returned tensor for in-place forms; where torch
raises, the facade must raise the same exception class (or a subclass).  Results of random ops
(detected: two oracle runs with different seeds differ) and of ``empty*`` ops are compared
without values.  A variant passes when all its samples pass.
"""
from __future__ import annotations

import builtins
import functools
import itertools
import math
import operator
import os
import re
import sys
import types
import warnings
from typing import Callable, NamedTuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if ROOT not in sys.path:
    sys.path.append(ROOT)  # appended: a torchproxy on PYTHONPATH (another checkout) wins

import paddle  # noqa: E402
import torch  # noqa: E402  (real torch: this module is not in scope)

import torchproxy  # noqa: E402

from . import gauge, tolerance  # noqa: E402
from torchproxy.errors import (ModuleNotProvidedError, NameNotProvidedImportError,  # noqa: E402
                               NotProvidedError)

SCOPED = "opinfo_scoped"

# -- dtype policy -----------------------------------------------------------------------------
# float32: the dtype real code runs in; float64: precision and dtype preservation; int64 and
# bool: integer/boolean semantics and type promotion (true division, comparisons, reductions
# of bool).  float16/bfloat16 (Paddle's CPU kernels are sparse: measured separately in the
# Breadth issue), complex and the narrow integer types are left out of the measure to keep the
# full run to minutes; an op that supports none of the four runs on its first supported dtype
# from FALLBACK so that it is still measured.
PRIMARY = (torch.float32, torch.float64, torch.int64, torch.bool)
FALLBACK = (torch.complex64, torch.int32, torch.uint8, torch.int16, torch.int8, torch.float16)

# (rtol, atol) per result dtype when tests/opinfo/tolerances.txt has no entry for the op
# (tolerance.DEFAULTS, with the reasons for the values).
TOLERANCES = tolerance.DEFAULTS


def dtype_name(dtype) -> str:
    s = str(dtype).split(".")[-1].lower()
    return {"fp16": "float16", "fp32": "float32", "fp64": "float64", "bf16": "bfloat16",
            "complex64": "complex64", "complex128": "complex128"}.get(s, s)


def dtypes_for(op) -> list:
    supported = op.supported_dtypes("cpu")
    chosen = [d for d in PRIMARY if d in supported]
    if not chosen:
        chosen = [d for d in FALLBACK if d in supported][:1]
    return chosen


# -- the facade, as a scoped importer sees it -------------------------------------------------
_counter = itertools.count()
_TRAMPOLINE = '''
import torch
import operator

def call(fn, a, k):
    return fn(*a, **k)

def resolve(path):
    obj = torch
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj

def wrapper_set_seed(op, *args, **kwargs):
    # OpInfo's wrapper (common_utils.wrapper_set_seed) seeds torch's generator; the values of
    # random ops are not compared, so a facade without manual_seed still runs the op itself
    try:
        torch.manual_seed(42)
    except AttributeError:
        pass
    return op(*args, **kwargs)
'''


def _load(src: str, name: str) -> types.ModuleType:
    torchproxy.enable(scope={SCOPED})  # extends the session's scope, never replaces it
    full = f"{SCOPED}.{name}"
    mod = types.ModuleType(full)
    mod.__file__ = f"<opinfo {full}>"
    sys.modules[full] = mod
    try:
        exec(compile(src, mod.__file__, "exec"), mod.__dict__)
    finally:
        sys.modules.pop(full, None)
    return mod


_tramp = None


def trampoline() -> types.ModuleType:
    global _tramp
    if _tramp is None:
        _tramp = _load(_TRAMPOLINE, "trampoline")
    return _tramp


def facade_torch():
    return trampoline().torch


_method_callers: dict = {}


def method_caller(name: str) -> Callable:
    """``self.<name>(*a, **k)`` executed in a scoped module's frame."""
    fn = _method_callers.get(name)
    if fn is None:
        if not name.isidentifier():
            raise ValueError(name)
        mod = _load(f"def m(self, a, k):\n    return self.{name}(*a, **k)\n", f"m_{name}")
        fn = _method_callers[name] = mod.m
    return fn


class _Missing:
    """Stands in for a real-torch module a wrapper lambda refers to that the facade lacks."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        raise NotProvidedError(f"{self._name}.{attr}")


_rebound_globals: dict = {}


def _scoped_globals(g: dict) -> dict:
    key = id(g)
    out = _rebound_globals.get(key)
    if out is None:
        t = trampoline()
        out = dict(g)
        for k, v in g.items():
            if isinstance(v, types.ModuleType) and (v.__name__ == "torch" or v.__name__.startswith("torch.")) \
                    and not v.__name__.startswith("torch.testing"):
                try:
                    out[k] = t.resolve(v.__name__)
                except AttributeError:
                    out[k] = _Missing(v.__name__)
        out["__name__"] = f"{SCOPED}.rebound"
        out["wrapper_set_seed"] = t.wrapper_set_seed
        _rebound_globals[key] = out
    return out


def rebind_scoped(fn):
    """OpInfo's wrapper lambda, with the facade as its ``torch`` and a scoped ``__name__``."""
    return types.FunctionType(fn.__code__, _scoped_globals(fn.__globals__), fn.__name__,
                              fn.__defaults__, fn.__closure__)


_ORACLE_SEED = [0]


def _oracle_wrapper_set_seed(op, *args, **kwargs):
    # like OpInfo's, but with the seed of this oracle run (two runs detect random ops)
    with torch.random.fork_rng():
        torch.manual_seed(_ORACLE_SEED[0])
        return op(*args, **kwargs)


def rebind_oracle(fn):
    g = dict(fn.__globals__)
    g["wrapper_set_seed"] = _oracle_wrapper_set_seed
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


# -- converting inputs ------------------------------------------------------------------------
class Unconvertible(Exception):
    """The sample's inputs have no Paddle counterpart (the sample is skipped, and counted)."""


class TorchDoesNotRaise(Exception):
    """An OpInfo error input on which real torch (the oracle's version) does not raise: it is
    no error case there, so it is not counted (the sample is skipped, and counted apart)."""


def clone_torch(x):
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(clone_torch(v) for v in x)
    if isinstance(x, dict):
        return {k: clone_torch(v) for k, v in x.items()}
    return x


def _tensor_to_facade(x):
    if x.layout != torch.strided:
        raise Unconvertible(f"{x.layout} tensor")
    if x.dtype in (torch.bfloat16, torch.complex32) or x.is_quantized:
        raise Unconvertible(f"{x.dtype} tensor (no numpy dtype)")
    if x.ndim > 64:  # Paddle's rank limit (torch's too: its error inputs test the 65th)
        raise Unconvertible(f"a {x.ndim}-d tensor (Paddle: at most 64 dimensions)")
    if any(st == 0 and n > 1 for n, st in zip(x.shape, x.stride())):
        # an expanded tensor (OpInfo's error inputs write into one): the facade's own
        # broadcast_to view of the compact values, so the zero strides arrive too
        compact = x[tuple(slice(0, 1) if st == 0 and n > 1 else slice(None)
                          for n, st in zip(x.shape, x.stride()))]
        return facade_torch().broadcast_to(_tensor_to_facade(compact), tuple(x.shape))
    arr = x.detach().resolve_conj().resolve_neg().cpu().numpy()
    return paddle.to_tensor(np.array(arr, copy=True, order="C"))  # keeps 0-d as 0-d


def to_facade(x, memo=None):
    """torch -> facade values.  ``memo`` (id -> converted) keeps aliasing across one call's
    arguments: a tensor passed twice (``kthvalue(t, 5, out=(t, i))``) arrives as one tensor."""
    if memo is None:
        memo = {}
    if isinstance(x, torch.Tensor):
        got = memo.get(id(x))
        if got is None:
            got = memo[id(x)] = _tensor_to_facade(x)
            memo[("keep", id(x))] = x  # keep x alive while its id is a key
        return got
    ft = facade_torch()
    if isinstance(x, torch.dtype):
        return getattr(ft, str(x).split(".")[-1])
    if isinstance(x, torch.Size):
        try:
            return ft.Size(tuple(x))
        except AttributeError:
            return tuple(x)
    if isinstance(x, torch.device):
        return ft.device(str(x))
    if isinstance(x, (torch.memory_format, torch.layout)):
        return getattr(ft, str(x).split(".")[-1])
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(to_facade(v, memo) for v in x)
    if isinstance(x, dict):
        return {k: to_facade(v, memo) for k, v in x.items()}
    if isinstance(x, slice):
        return slice(to_facade(x.start, memo), to_facade(x.stop, memo), to_facade(x.step, memo))
    if x is None or x is Ellipsis or isinstance(x, (bool, int, float, complex, str, np.ndarray, np.generic)):
        return x
    raise Unconvertible(f"argument of type {type(x).__module__}.{type(x).__qualname__}")


# -- normalising and comparing results --------------------------------------------------------
class Mismatch(Exception):
    def __init__(self, category: str, detail: str):
        super().__init__(f"{category}: {detail}")
        self.category = category
        self.detail = detail


def _fields(v):
    f = getattr(v, "_fields", None) or getattr(type(v), "__match_args__", None)
    return tuple(f) if f else None


def normalize(v):
    if isinstance(v, torch.Tensor):
        if v.layout != torch.strided:
            return ("other", f"{v.layout} tensor")
        t = v.detach().resolve_conj().resolve_neg().cpu()
        dt = dtype_name(t.dtype)
        if t.dtype == torch.bfloat16:
            t = t.float()
        elif t.dtype == torch.complex32:
            t = t.to(torch.complex64)
        return ("tensor", dt, tuple(t.shape), t.numpy())
    if isinstance(v, paddle.Tensor):
        dt = dtype_name(v.dtype)
        p = v.detach()
        if dt == "bfloat16":
            p = p.astype("float32")
        return ("tensor", dt, tuple(p.shape), np.asarray(p.cpu().numpy()))
    if isinstance(v, torch.dtype) or (type(v).__name__ in ("dtype", "VarType", "DataType")
                                      and "paddle" in type(v).__module__ + str(v)):
        return ("dtype", dtype_name(v))
    if isinstance(v, torch.Size) or type(v).__name__ == "Size":
        return ("size", tuple(int(i) for i in v))
    if isinstance(v, torch.device) or (type(v).__name__ == "device" and hasattr(v, "index")):
        return ("device", v.type, v.index)
    if isinstance(v, (list, tuple)):
        f = _fields(v)
        kind = "namedtuple" if f else ("list" if isinstance(v, list) else "tuple")
        return (kind, f, tuple(normalize(i) for i in v))
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int):
        return ("int", v)
    if isinstance(v, float):
        return ("float", v)
    if isinstance(v, complex):
        return ("complex", v)
    if v is None:
        return ("none",)
    if isinstance(v, str):
        return ("str", v)
    return ("other", f"{type(v).__module__}.{type(v).__qualname__}")


def _short(x, n=60):
    s = repr(x)
    return s if len(s) <= n else s[:n] + "..."


class Margin:
    """Collects the largest error of a variant's compared float elements, as a fraction of the
    tolerance that judged them (1.0 = on the edge): how far a verdict is from moving when a
    CPU rounds differently (reported per variant; see tests/opinfo/isa.py)."""

    def __init__(self):
        self.value = 0.0
        self.untabled = 0.0  # the same under the default tolerances (what a table entry changes)

    def add(self, x: float, untabled: float) -> None:
        self.value = max(self.value, x)
        self.untabled = max(self.untabled, untabled)


def _close(av, ev, tol):
    """(elementwise ok, error / allowed error) for float/complex arrays under ``tol``."""
    with np.errstate(all="ignore"):
        fin = np.isfinite(ev)
        scale = float(np.max(np.abs(ev[fin]))) if tol.max_rtol and fin.any() else 0.0
        atol = tol.atol + tol.max_rtol * scale
        ok = np.isclose(av, ev, rtol=tol.rtol, atol=atol, equal_nan=True)
        err = np.abs(av.astype(np.complex128) - ev)
        ratio = np.where(ok & ~np.isfinite(err), 0.0, err / (atol + tol.rtol * np.abs(ev)))
        ratio = np.where(np.isnan(av) & np.isnan(ev), 0.0, np.nan_to_num(ratio, nan=np.inf))
    return ok, ratio


def compare(e, a, values: bool = True, path: str = "result", tol=None, margin: Margin | None = None) -> None:
    """Raise :class:`Mismatch` where the facade's normalized result ``a`` differs from ``e``.
    ``tol``: ``dtype name -> tolerance.Tol`` (default: :data:`TOLERANCES`); ``margin``: collects
    the largest error / tolerance of the float elements compared."""
    if e[0] != a[0]:
        if {e[0], a[0]} <= {"list", "tuple"}:
            raise Mismatch("wrong result type", f"{path}: torch {e[0]}, facade {a[0]}")
        raise Mismatch("wrong result type", f"{path}: torch {e[0]}, facade {a[0]} {_short(a[1:], 40)}")
    kind = e[0]
    if kind == "tensor":
        _, edt, eshape, ev = e
        _, adt, ashape, av = a
        if edt != adt:
            raise Mismatch("wrong dtype", f"{path}: torch {edt}, facade {adt}")
        if eshape != ashape:
            raise Mismatch("wrong shape", f"{path}: torch {eshape}, facade {ashape}")
        if not values or ev.size == 0:
            return
        if ev.dtype.kind in "fc":
            t = (tol or tolerance.default)(edt)
            ok, ratio = _close(av, ev, t)
            if margin is not None:
                d = getattr(tol, "untabled", tolerance.default)(edt)
                margin.add(float(np.max(ratio)), float(np.max(ratio if t == d else _close(av, ev, d)[1])))
        else:
            ok = av == ev
        if not np.all(ok):
            bad = int(np.size(ok) - np.count_nonzero(ok))
            i = np.unravel_index(int(np.argmin(ok)), ok.shape) if ok.ndim else ()
            with np.errstate(all="ignore"):
                rel = np.abs(av.astype(np.complex128) - ev) / np.maximum(np.abs(ev), 1e-30)
                rel = float(np.nanmax(np.where(ok, 0, np.nan_to_num(rel, nan=np.inf))))
            raise Mismatch("wrong value", f"{path}: {bad}/{ev.size} elements differ (max rel diff "
                           f"{rel:.1e}), e.g. at {tuple(int(j) for j in i)} torch {ev[i]!r} facade {av[i]!r}")
    elif kind in ("list", "tuple", "namedtuple"):
        if kind == "namedtuple" and e[1] != a[1]:
            raise Mismatch("wrong result type", f"{path}: fields torch {e[1]}, facade {a[1]}")
        if len(e[2]) != len(a[2]):
            raise Mismatch("wrong result type", f"{path}: length torch {len(e[2])}, facade {len(a[2])}")
        for i, (x, y) in enumerate(zip(e[2], a[2])):
            compare(x, y, values, f"{path}[{i}]", tol, margin)
    elif kind in ("float", "complex"):
        if values and not (e[1] == a[1] or np.isclose(a[1], e[1], rtol=1e-5, atol=1e-6, equal_nan=True)):
            raise Mismatch("wrong value", f"{path}: torch {e[1]!r}, facade {a[1]!r}")
    elif kind in ("int", "bool"):
        if values and e != a:
            raise Mismatch("wrong value", f"{path}: torch {e[1]!r}, facade {a[1]!r}")
    elif e != a:
        cat = "wrong dtype" if kind == "dtype" else ("wrong shape" if kind == "size" else "wrong value")
        raise Mismatch(cat, f"{path}: torch {_short(e[1:])}, facade {_short(a[1:])}")


# -- classifying the facade's errors ----------------------------------------------------------
_ARG_PATTERNS = re.compile(
    r"unexpected keyword|positional argument|required positional|takes \d+ .*argument|"
    r"takes (no|exactly|at most|from)|missing \d+ required|got multiple values|"
    r"argument .* must be|incompatible function arguments|invalid keyword")
_KERNEL_PATTERNS = re.compile(
    r"kernel .*not registered|not registered.*kernel|NotFound.*kernel|kernel.*(is )?not found|"
    r"Could not find .*kernel|no kernel|does not have kernel|kernel_key|not support(ed)? .*(dtype|data type)|"
    r"data type .* not support|dtype .* is not supported|supported data types|"
    r"Expected .*dtype.* (to be|in)|The type of data we are trying to retrieve", re.I)
_ADDR = re.compile(r"0x[0-9a-fA-F]+")


def first_line(exc: BaseException, n: int = 140) -> str:
    msg = str(exc).strip()
    # Paddle's C++ errors: keep the "(InvalidArgument) ..." line, not the C++ stack banner
    lines = [ln.strip() for ln in msg.splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith("(") and ")" in ln[:30]:
            msg = ln
            break
    else:
        msg = lines[0] if lines else ""
    msg = _ADDR.sub("0x..", msg)
    return f"{type(exc).__name__}: {msg[:n]}"


def not_provided_name(exc: BaseException, method: str | None = None):
    if isinstance(exc, (NotProvidedError, ModuleNotProvidedError, NameNotProvidedImportError)):
        return exc.torch_name
    if method and isinstance(exc, AttributeError) and f"attribute '{method}'" in str(exc):
        return f"torch.Tensor.{method}"
    return None


def classify_raise(exc: BaseException, method: str | None = None) -> Mismatch:
    """The facade raised where torch returned."""
    name = not_provided_name(exc, method)
    if name:
        return Mismatch("not provided", name)
    text = str(exc)
    if isinstance(exc, TypeError) and _ARG_PATTERNS.search(text):
        return Mismatch("argument not accepted", first_line(exc))
    if _KERNEL_PATTERNS.search(text):
        return Mismatch("Paddle lacks kernel", first_line(exc))
    return Mismatch("raises where torch does not", first_line(exc))


# -- variants ---------------------------------------------------------------------------------
class Variant(NamedTuple):
    id: str
    op: object           # the OpInfo
    kind: str            # fn, method, inplace, operator, inplace_operator, alias_*, errors
    label: str           # the torch name it exercises ("torch.abs", "torch.Tensor.abs_", ...)
    oracle: Callable     # (input, args, kwargs) -> result, on real torch
    facade: Callable     # () -> callable (input, args, kwargs) on the facade; raises when absent
    method: str | None   # Tensor method name, for "not provided" detection
    inplace: bool


def full_name(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def tolerance_keys(v: Variant) -> tuple[str, ...]:
    """The keys a tolerances.txt entry for ``v`` may have: its id, then its op (shared kernel)."""
    return (v.id, full_name(v.op))


def _real(path: str):
    obj = torch
    for part in path.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _is_lambda(fn) -> bool:
    return isinstance(fn, types.FunctionType) and fn.__name__ == "<lambda>"


def _fn_spec(name: str, fn):
    """(label, method name or None, facade factory, oracle callable) for a function variant."""
    path = name if name.startswith("torch.") else f"torch.{name}"
    if _real(path) is fn and fn is not None:
        def facade():
            f = trampoline().resolve(path)
            call = trampoline().call
            return lambda i, a, k: call(f, (i, *a), k)
        return path, None, facade, lambda i, a, k: fn(i, *a, **k)
    if getattr(torch.Tensor, name, None) is fn and fn is not None:
        return _method_spec(name)
    if isinstance(fn, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        apath = f"torch.ops.{fn}"  # aten.slice.Tensor

        def facade():
            f = trampoline().resolve(apath)
            call = trampoline().call
            return lambda i, a, k: call(f, (i, *a), k)
        return apath, None, facade, lambda i, a, k: fn(i, *a, **k)
    if _is_lambda(fn):
        label = path if _real(path) is not None else (
            f"torch.Tensor.{name}" if hasattr(torch.Tensor, name) else
            f"torch.Tensor.{name}_" if hasattr(torch.Tensor, name + "_") else f"opinfo:{name}")
        oracle_fn = rebind_oracle(fn)

        def facade():
            f = rebind_scoped(fn)
            return lambda i, a, k: f(i, *a, **k)
        return label, (label.rsplit(".", 1)[1] if label.startswith("torch.Tensor.") else None), facade, \
            lambda i, a, k: oracle_fn(i, *a, **k)
    return None


def _method_spec(mname: str, fn=None):
    if fn is not None and _is_lambda(fn):
        oracle_fn = rebind_oracle(fn)

        def facade():
            f = rebind_scoped(fn)
            return lambda i, a, k: f(i, *a, **k)
        return f"torch.Tensor.{mname}", mname, facade, lambda i, a, k: oracle_fn(i, *a, **k)

    def facade():
        m = method_caller(mname)
        return lambda i, a, k: m(i, a, k)
    return f"torch.Tensor.{mname}", mname, facade, lambda i, a, k: getattr(i, mname)(*a, **k)


def _operator_spec(fn):
    dunder = f"__{fn.__name__.rstrip('_')}__"

    def facade():
        call = trampoline().call
        return lambda i, a, k: call(fn, (i, *a), k)
    return f"torch.Tensor.{dunder}", None, facade, lambda i, a, k: fn(i, *a, **k)


def _partial_spec(name: str, part: functools.partial):
    """An in-place variant that is ``functools.partial(torch_fn, inplace=True)``."""
    spec = _fn_spec(name, part.func)
    if spec is None:
        return None
    label, method, facade, oracle = spec
    kw = dict(part.keywords)

    def facade_partial():
        call = facade()
        return lambda i, a, k: call(i, a, {**kw, **k})
    return label, method, facade_partial, lambda i, a, k: oracle(i, a, {**kw, **k})


def _method_name(fn, fallback):
    n = getattr(fn, "__name__", None)
    return fallback if (n is None or n == "<lambda>") else n


def variants_of(op) -> list[Variant]:
    out = []
    full = full_name(op)

    def add(kind, spec, inplace=False, suffix=""):
        if spec is None:
            return
        label, method, facade, oracle = spec
        out.append(Variant(f"{full}::{kind}{suffix}", op, kind, label, oracle, facade, method, inplace))

    add("fn", _fn_spec(op.name, op.op) if op.op is not None else None)
    if op.method_variant is not None:
        add("method", _method_spec(_method_name(op.method_variant, op.name), op.method_variant))
    if isinstance(op.inplace_variant, functools.partial) and not op.inplace_variant.args:
        # F.hardsigmoid(x, inplace=True): torch's function with its keywords, not a method
        add("inplace", _partial_spec(op.name, op.inplace_variant), inplace=True)
    elif op.inplace_variant is not None:
        add("inplace", _method_spec(_method_name(op.inplace_variant, op.name + "_"), op.inplace_variant),
            inplace=True)
    if getattr(op, "operator_variant", None) is not None:
        add("operator", _operator_spec(op.operator_variant))
    if getattr(op, "inplace_operator_variant", None) is not None:
        add("inplace_operator", _operator_spec(op.inplace_operator_variant), inplace=True)
    for al in op.aliases:
        add("alias_fn", _fn_spec(al.name, al.op) if al.op is not None else None, suffix=f":{al.name}")
        if al.method_variant is not None:
            add("alias_method", _method_spec(_method_name(al.method_variant, al.name), al.method_variant),
                suffix=f":{al.name}")
        if al.inplace_variant is not None:
            add("alias_inplace", _method_spec(_method_name(al.inplace_variant, al.name + "_"),
                                              al.inplace_variant), inplace=True, suffix=f":{al.name}")
    fn = next((v for v in out if v.kind == "fn"), None)
    if fn is not None and op.error_inputs_func is not None:
        out.append(fn._replace(id=f"{full}::errors", kind="errors"))
    return out


_db = None


def _no_test_fn():
    """OpInfo looks for the running unittest method (per-sample skips, tracked inputs) with
    ``inspect.stack()`` on every sample iterator: seconds per op outside unittest.  There is no
    test method here, so it answers None at once (same samples, same seeds)."""
    from torch.testing._internal import common_utils
    from torch.testing._internal.opinfo import core as opcore
    common_utils.extract_test_fn = opcore.extract_test_fn = lambda: None


def op_db():
    global _db
    if _db is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from torch.testing._internal.common_methods_invocations import op_db as db
        _no_test_fn()
        _db = db
    return _db


def all_variants() -> list[Variant]:
    return [v for op in op_db() for v in variants_of(op)]


# -- areas ------------------------------------------------------------------------------------
AREAS = ("unary", "binary", "reduction", "shape/indexing", "linalg", "fft", "special",
         "nn.functional", "creation/random", "other")
_LINALG = set("""matmul mm bmm mv addmm addmv addbmm baddbmm addr dot vdot inner outer ger kron
tensordot einsum cholesky cholesky_inverse cholesky_solve lu lu_solve lu_unpack svd svd_lowrank
pca_lowrank qr det logdet slogdet inverse pinverse matrix_exp triangular_solve ormqr geqrf trace
chain_matmul cross cdist tril triu tril_indices triu_indices norm renorm diag_embed diagonal
block_diag cartesian_prod __rmatmul__ _addmm_activation addmm_decomposed matrix_power""".split())
_REDUCTION = set("""max min amax amin aminmax argmax argmin median nanmedian mode kthvalue topk sort
argsort msort cumsum cumprod cummax cummin logcumsumexp std var std_mean var_mean quantile
nanquantile count_nonzero unique unique_consecutive histc histogram histogramdd bincount
logsumexp all any sum prod mean nansum nanmean softmax log_softmax _softmax_backward_data
dist allclose equal isin searchsorted bucketize""".split())
_SHAPE = set("""cat concat concatenate stack hstack vstack dstack column_stack row_stack reshape
reshape_as view view_as view_as_real view_as_complex permute transpose swapaxes swapdims movedim
moveaxis t T H mT mH adjoint gather scatter scatter_add scatter_reduce index_select index_add
index_copy index_fill index_put index_reduce take take_along_dim put narrow narrow_copy select
select_scatter slice slice_scatter diagonal_scatter as_strided as_strided_scatter as_strided_copy
split split_with_sizes tensor_split chunk unbind squeeze unsqueeze flatten unflatten ravel flip
fliplr flipud roll rot90 expand expand_as expand_copy broadcast_to broadcast_tensors
broadcast_shapes repeat repeat_interleave tile masked_fill masked_scatter masked_select nonzero
nonzero_static argwhere where __getitem__ atleast_1d atleast_2d atleast_3d hsplit vsplit dsplit
contiguous clone resize_ resize_as_ sum_to_size unfold unfold_copy diag diagflat triu tril
combinations meshgrid item to to_sparse view_copy permute_copy t_copy transpose_copy
unsqueeze_copy squeeze_copy alias_copy _unsafe_masked_index _unsafe_masked_index_put_accumulate
""".split())
_CREATION = set("""zeros ones full empty empty_like zeros_like ones_like full_like empty_strided
empty_permuted new_zeros new_ones new_full new_empty new_empty_strided arange linspace logspace
eye rand randn randint rand_like randn_like randint_like randperm normal bernoulli multinomial
uniform cauchy exponential geometric log_normal poisson zero_ fill fill_ tensor as_tensor
scalar_tensor""".split())


_defined_in: dict = {}


def _definition_module(op) -> str:
    """The opinfo.definitions module (linalg, special, fft, ...) that defines ``op``, or ''."""
    if not _defined_in:
        import importlib
        import pkgutil
        from torch.testing._internal.opinfo import definitions
        for info in pkgutil.iter_modules(definitions.__path__):
            try:
                m = importlib.import_module(f"{definitions.__name__}.{info.name}")
            except Exception:  # noqa: BLE001
                continue
            for o in getattr(m, "op_db", []):
                _defined_in.setdefault(id(o), info.name)
        _defined_in.setdefault(0, "")
    return _defined_in.get(id(op), "")


def area_of(op) -> str:
    name = op.name
    mod = _definition_module(op)
    if name.startswith("nn.functional.") or name.startswith("_native_batch_norm") or \
            name in ("_batch_norm_with_update", "_upsample_bilinear2d_aa", "native_layer_norm",
                     "native_batch_norm", "native_dropout_backward", "max_pool2d_with_indices_backward"):
        return "nn.functional"
    if name.startswith("linalg.") or "linalg" in mod:
        return "linalg"
    if name.startswith("fft.") or type(op).__name__ == "SpectralFuncInfo" or name in ("stft", "istft"):
        return "fft"
    if name.startswith("special.") or "special" in mod:
        return "special"
    base = name.split(".")[-1]
    if name.startswith("masked.") or name.startswith("_masked."):
        return "reduction" if type(op).__name__ == "ReductionOpInfo" else "other"
    if base in _CREATION:
        return "creation/random"
    if base in _LINALG:
        return "linalg"
    if type(op).__name__ == "ReductionOpInfo" or base in _REDUCTION:
        return "reduction"
    if type(op).__name__ == "ShapeFuncInfo" or base in _SHAPE:
        return "shape/indexing"
    if type(op).__name__ == "UnaryUfuncInfo":
        return "unary"
    if type(op).__name__ == "BinaryUfuncInfo":
        return "binary"
    return "other"


# -- running one variant ----------------------------------------------------------------------
class Result(NamedTuple):
    id: str
    status: str          # pass, fail, skip
    category: str = ""   # for fail/skip
    detail: str = ""
    where: str = "-"     # first failing sample: "float32#3" ("-": before any sample)
    samples: int = 0     # samples compared
    skipped: int = 0     # samples skipped (inputs not expressible on Paddle)
    random: bool = False  # values not compared (random or uninitialized results)
    forward_ok: bool = False  # modules: the forward part passed on all inputs
    margin: float = 0.0  # largest float error / its tolerance over the samples compared (1 = edge)
    margin_untabled: float = 0.0  # the same under the default tolerances (without tolerances.txt)


def _samples(v: Variant, dtype):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if v.kind == "errors":
            yield from (e for e in v.op.error_inputs("cpu"))
        else:
            yield from v.op.sample_inputs("cpu", dtype, requires_grad=False)


def _run_oracle(v: Variant, sample, seed: int, as_given: bool = False):
    """``as_given``: the sample's own tensors (an error input's aliasing and zero strides are
    its point; clones would lose them)."""
    _ORACLE_SEED[0] = seed
    torch.manual_seed(seed)
    if as_given:
        inp, args, kwargs = sample.input, sample.args, sample.kwargs
    else:
        inp = clone_torch(sample.input)
        args = clone_torch(sample.args)
        kwargs = clone_torch(sample.kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = v.oracle(inp, args, kwargs)
        except Exception as exc:  # noqa: BLE001 - the oracle's exception is the spec
            return None, exc
    if v.inplace:
        return (r, inp, r is inp), None
    return r, None


def check_sample(v: Variant, call, sample, error_type=None, tol=None, margin: Margin | None = None):
    """Compare one sample; raise Mismatch or Unconvertible; return True when values were
    not compared (random result)."""
    try:
        memo = {}
        pin = to_facade(sample.input, memo)
        pargs = to_facade(tuple(sample.args), memo)
        pkw = to_facade(dict(sample.kwargs), memo)
    except NotProvidedError as exc:  # e.g. torch.channels_last in the arguments
        raise Mismatch("not provided", exc.torch_name) from None
    if error_type is not None:  # an ErrorInput: OpInfo states what torch raises ...
        _, raised = _run_oracle(v, sample, 0, as_given=True)
        if raised is None:  # ... and real torch must, for the case to count
            raise TorchDoesNotRaise()
        expected, texc = None, f"{getattr(error_type, '__name__', error_type)} (OpInfo error input)"
        rand = False
    else:
        expected, texc = _run_oracle(v, sample, 0)
        rand = "empty" in v.op.name
        if texc is None and not rand:
            again, texc2 = _run_oracle(v, sample, 1)
            if texc2 is None:
                e1 = normalize(expected)
                try:
                    compare(e1, normalize(again))
                except Mismatch:
                    rand = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = call(pin, pargs, pkw)
        except Exception as fexc:  # noqa: BLE001
            if texc is not None:
                name = not_provided_name(fexc, v.method)
                if name:
                    raise Mismatch("not provided", name) from None
                want = error_type or type(texc)
                if isinstance(fexc, want):
                    return rand
                raise Mismatch("wrong exception class",
                               f"torch {getattr(want, '__name__', want)}, facade {first_line(fexc, 100)}") from None
            raise classify_raise(fexc, v.method) from None
    if texc is not None:
        told = texc if isinstance(texc, str) else first_line(texc, 80)
        raise Mismatch("no exception where torch raises",
                       f"torch raises {told}; facade returns {_short(normalize(got), 60)}")
    if v.inplace:
        r, inp, same = expected
        if same and got is not pin:
            raise Mismatch("not in place", "the in-place form returns a new tensor, not its input "
                           "(torch returns the mutated input)")
        compare(normalize(r), normalize(got), not rand, tol=tol, margin=margin)
        compare(normalize(inp), normalize(pin), not rand, path="input after in-place", tol=tol, margin=margin)
    else:
        e = normalize(expected)
        # svd/eigh/eig...: vectors unique up to a sign/phase each (gauge.py says why and how)
        compare(e, gauge.align(v.op.name, e, normalize(got)), not rand, tol=tol, margin=margin)
    return rand


def run_variant(v: Variant, limit: int | None = None, only: str | None = None) -> Result:
    """Run ``v`` on its samples (all, the first ``limit`` per dtype, or the one named
    ``only="float32#3"``)."""
    dts = dtypes_for(v.op)
    if not dts:
        return Result(v.id, "skip", "no CPU dtypes", "OpInfo lists no CPU dtype")
    trampoline()  # a facade that cannot even be imported fails the run, never one variant
    try:
        call = v.facade()
    except Exception as exc:  # noqa: BLE001
        m = classify_raise(exc, v.method)
        if m.category == "raises where torch does not":
            m = Mismatch("not provided", first_line(exc))
        return Result(v.id, "fail", m.category, m.detail)
    if only:
        want_dt, _, want_i = only.partition("#")
        dts = [d for d in dts if dtype_name(d) == want_dt] or dts[:1]
    if v.kind == "errors":
        dts = dts[:1]
    n = skipped = torch_silent = 0
    rand = False
    tol = tolerance.for_keys(tolerance_keys(v))
    mg = Margin()
    for dt in dts:
        it = enumerate(_samples(v, dt))
        if only:
            it = itertools.islice(it, int(want_i), int(want_i) + 1)
        elif limit is not None:
            it = itertools.islice(it, limit)
        for i, s in it:
            error_type = None
            if v.kind == "errors":
                s, error_type = s.sample_input, s.error_type
            if v.inplace and getattr(s, "broadcasts_input", False):
                continue  # in-place forms cannot broadcast their input (OpInfo skips these too)
            if v.kind in ("operator", "inplace_operator") and s.kwargs:
                continue  # an operator takes no keywords
            where = "errors" if v.kind == "errors" else dtype_name(dt)
            try:
                rand |= bool(check_sample(v, call, s, error_type, tol, mg))
                n += 1
            except Unconvertible:
                skipped += 1
            except TorchDoesNotRaise:
                torch_silent += 1
            except Mismatch as m:
                return Result(v.id, "fail", m.category, m.detail, f"{where}#{i}", n, skipped, rand,
                              margin=mg.value, margin_untabled=mg.untabled)
            except Exception as exc:  # noqa: BLE001 - a harness failure is reported, not hidden
                return Result(v.id, "fail", "harness error", first_line(exc), f"{where}#{i}", n, skipped, rand,
                              margin=mg.value, margin_untabled=mg.untabled)
    if n == 0:
        why = (f"{skipped} samples not expressible on Paddle" if skipped else
               f"real torch raises on none of its {torch_silent} error inputs" if torch_silent else
               "no sample inputs on CPU")
        return Result(v.id, "skip", "no samples", why, "-", 0, skipped + torch_silent)
    return Result(v.id, "pass", "", "", "-", n, skipped, rand, margin=mg.value, margin_untabled=mg.untabled)
