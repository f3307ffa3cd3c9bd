"""Fixes for Triton's CPU interpreter (``TRITON_INTERPRET=1``) that are not about Paddle at all.

Each one makes the interpreter do what compiled Triton does, for real torch tensors exactly as
for Paddle ones; each is detected by trying the interpreter's own behaviour, never by version
number, and installed only where this Triton needs it.  :func:`ensure_fixes` installs them all
(the matrix applies it to every backend alike, the oracle included; ``--no-interpreter-fix`` or
``TORCHPROXY_INTERPRETER_FIX=0`` turns it off).

``index``
    Triton 3.3 - 3.6 give ``tl.tensor`` an ``__index__`` of ``int(self.handle.data)``, where a
    scalar's data is a 1-element numpy array.  numpy 2.4 made ``int()`` of a 1-element (non 0-d)
    array a TypeError, so ``for k in range(0, K, BLOCK)`` over a runtime ``K`` fails.  Triton
    3.9 reads ``int(self.handle.data.squeeze())``: installed as is.
``float_args``
    Compiled Triton passes a Python ``float`` argument as an fp32 scalar (``mangle_type(1e-6)``
    is ``"fp32"``), so kernels call ``eps.to(tl.float32)`` on it (Liger-Kernel's norms, losses).
    The interpreter (3.6 and 3.9) wraps ``int`` and ``bool`` arguments in ``tl.tensor`` but
    hands floats over as Python floats: ``'float' object has no attribute 'to'``.  Fixed by
    wrapping them as the compiler types them: an fp32 scalar.
``autotune``
    ``triton.autotune`` benchmarks its configs with ``driver.active.get_benchmarker()``; on a
    machine without a GPU there is no active driver ("0 active drivers"), so every autotuned
    kernel fails in the interpreter.  In interpreter mode, and only when no driver can be
    created, the autotuner gets a benchmarker that runs each config once (so every config is
    exercised, and its errors surface as on a GPU) and reports the same time for all of them:
    interpreter timings say nothing about a GPU, and equal times make the autotuner keep its
    first config, the same one on every backend.
``loop_index``
    In compiled Triton the variable of a ``for i in range(n)`` / ``tl.range`` loop is an int32
    tensor (kernels call ``i.to(tl.int64)``: flash-linear-attention's chunk kernels); the
    interpreter runs the loop in Python, so ``i`` is a Python int ("'int' object has no
    attribute 'to'").  The interpreter rewrites each kernel's AST already; the fix adds one
    rule: the values of ``range`` / ``tl.range`` loops become int32 scalars.  ``tl.static_range``
    loops keep Python ints, as compiled Triton unrolls them with constants.
``libdevice``
    ``triton.language.extra.libdevice`` holds stubs (``def rsqrt(arg0): ...``) that the
    compiler maps to the backend's libdevice (``__nv_rsqrtf``); the interpreter has no such
    mapping, so a kernel calling ``rsqrt(x)`` gets ``None`` (Liger-Kernel's norms: "cannot
    convert None to tensor").  While an interpreted kernel runs, each stub runs numpy's
    equivalent instead (a table below); a stub without one raises NotImplementedError naming
    it.  The stubs are restored after every launch, so compiled Triton never sees the change.
    Only the backend-independent module is covered (``triton.language.extra.cuda.libdevice``
    functions stay as the interpreter has them).
``bf16``
    The interpreter stores bfloat16 as ``uint16`` bit patterns and runs its arithmetic,
    comparisons, ``tl.dot`` and reductions on those integers (Liger-Kernel's
    ``geglu_a.cast(bf16) * b_row``: garbage, on real torch too).  Each bf16 operation computes
    in float32 and rounds back to bf16, as compiled Triton computes: see
    :mod:`torchproxy.integrations.triton_interpreter_bf16`.
``nested_calls`` (speed only: nothing a kernel computes changes)
    The interpreter runs ``_patch_lang(fn)`` (``inspect.getmembers`` over ``triton.language``,
    its ``tensor`` and ``math``: ~1,300 attributes) at every launch *and at every call of a
    ``@triton.jit`` function from inside a kernel*, once per program instance: a Liger
    sparsemax case (615 programs, 8 device calls each) spent 47% of its CPU there, on real
    torch and on the proxy alike.  Inside a launch whose patch already covers every language
    module the callee's globals hold, that repeat finds nothing left to patch (the builtins it
    looks for are the launch's wrappers by then) and re-sets equivalent closures, so it is
    skipped; a callee that sees a module the launch did not patch is patched as before.
"""
from __future__ import annotations

import os

import numpy as np

from torchproxy.integrations import triton_interpreter_bf16

FIXES = ("index", "float_args", "autotune", "loop_index", "libdevice", "bf16", "nested_calls")
_installed: set[str] = set()


def enabled_by_env() -> bool:
    """``TORCHPROXY_INTERPRETER_FIX=0`` turns every fix off (default: on)."""
    return os.environ.get("TORCHPROXY_INTERPRETER_FIX", "1").strip().lower() not in ("0", "off", "no", "false")


# -- index ---------------------------------------------------------------------------------------
def _needs_index_fix(interp) -> bool:
    # Triton 3.5+ passes a _LangPatchScope (restored after each launch); older versions set
    # the attributes on the class directly.  The probe class is thrown away either way.
    scope_cls = getattr(interp, "_LangPatchScope", None)
    scratch = scope_cls() if scope_cls is not None else None

    class Probe:
        pass

    try:
        interp._patch_lang_tensor(Probe, *([scratch] if scratch is not None else []))
        obj = Probe()
        obj.handle = type("H", (), {"data": np.array([3], dtype=np.int32)})()
        try:
            return Probe.__index__(obj) != 3
        except TypeError:
            return True
    finally:
        if scratch is not None:
            scratch.restore()


def _index(self):
    return int(self.handle.data.squeeze())


def ensure_index_fix() -> bool:
    """Install the ``__index__`` fix if this Triton needs it; returns whether it is installed."""
    if "index" in _installed:
        return True
    from triton.runtime import interpreter as interp
    if not _needs_index_fix(interp):
        return False
    original = interp._patch_lang_tensor

    def _patch_lang_tensor(tensor, *scope):
        original(tensor, *scope)
        if scope:  # same scope: restored with everything else after the launch
            scope[0].set_attr(tensor, "__index__", _index)
        else:
            tensor.__index__ = _index

    _patch_lang_tensor.__wrapped__ = original
    interp._patch_lang_tensor = _patch_lang_tensor
    _installed.add("index")
    return True


# -- float_args ----------------------------------------------------------------------------------
def ensure_float_args_fix() -> bool:
    """Python float kernel arguments become fp32 scalars, as the compiler makes them."""
    if "float_args" in _installed:
        return True
    from triton.runtime import interpreter as interp
    original = interp._implicit_cvt
    if not isinstance(original(1.5), float):
        return False  # this interpreter already wraps floats

    import triton.language as tl
    from triton.runtime.jit import mangle_type

    def _implicit_cvt(arg):
        if isinstance(arg, float):
            ty = tl.str_to_ty(mangle_type(arg), None)  # "fp32", what the compiler passes
            return tl.tensor(interp.TensorHandle(np.array([arg], dtype=np.float32), ty), ty)
        return original(arg)  # its tuple branch calls the module global: this function

    _implicit_cvt.__wrapped__ = original
    interp._implicit_cvt = _implicit_cvt
    _installed.add("float_args")
    return True


# -- autotune ------------------------------------------------------------------------------------
def _interpreter_benchmarker(kernel_call, quantiles=None, **_):
    kernel_call()
    return [1.0] * len(quantiles) if quantiles else 1.0


def ensure_autotune_fix() -> bool:
    """In interpreter mode without any Triton driver, the autotuner runs every config once and
    keeps the first (see the module docstring)."""
    if "autotune" in _installed:
        return True
    from functools import cached_property

    from triton.runtime import autotuner
    cls = autotuner.Autotuner
    prop = cls.__dict__.get("do_bench")
    if not isinstance(prop, cached_property):
        return False  # a Triton whose autotuner is built differently: left alone
    original = prop.func

    def do_bench(self):
        try:
            return original(self)
        except RuntimeError as e:
            if "active drivers" not in str(e) or not _interpreting():
                raise
            return _interpreter_benchmarker

    do_bench.__wrapped__ = original
    new = cached_property(do_bench)
    new.__set_name__(cls, "do_bench")
    cls.do_bench = new
    _installed.add("autotune")
    return True


# -- loop_index ---------------------------------------------------------------------------------
def _loop_values(values):
    """The values of a dynamic loop, as compiled Triton has them: int32 (int64 when large)."""
    from triton.runtime import interpreter as interp
    for i in values:
        yield interp.interpreter_semantic.to_tensor(i, False)


def ensure_loop_index_fix() -> bool:
    if "loop_index" in _installed:
        return True
    import ast

    from triton.runtime import interpreter as interp
    base = getattr(interp, "ASTTransformer", None)
    rewriter = getattr(interp, "FunctionRewriter", None)
    if base is None or rewriter is None or "visit_For" in vars(base):
        return False  # nothing to extend, or this interpreter already handles loops

    def callee(func):
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute):
            return func.attr
        return None

    class LoopIndexTransformer(base):
        def visit_For(self, node):
            self.generic_visit(node)
            it = node.iter
            if isinstance(it, ast.Call) and callee(it.func) == "range":
                node.iter = ast.Call(func=ast.Name(id="_torchproxy_loop_values", ctx=ast.Load()),
                                     args=[it], keywords=[])
            return node

    # the rewritten kernel's globals receive the interpreter module's names it lacks
    interp._torchproxy_loop_values = _loop_values
    rewriter.ast_transformer = LoopIndexTransformer()
    _installed.add("loop_index")
    return True


# -- libdevice ----------------------------------------------------------------------------------
def _erf(x):
    import math
    return np.vectorize(math.erf, otypes=[x.dtype])(x)


# name -> numpy function of the arguments' numpy data (computed in the first argument's dtype)
_LIBDEVICE = {
    "rsqrt": lambda x: 1 / np.sqrt(x), "sqrt": np.sqrt, "sqrt_rn": np.sqrt, "rcp_rn": lambda x: 1 / x,
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(x.dtype.type(10), x),
    "expm1": np.expm1, "fast_expf": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10,
    "log1p": np.log1p, "fast_logf": np.log, "fast_log2f": np.log2,
    "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "atanh": np.arctanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "fast_sinf": np.sin, "fast_cosf": np.cos,
    "erf": _erf, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
    "nearbyint": np.rint, "round": lambda x: np.trunc(x + np.copysign(x.dtype.type(0.5), x)),
    "fabs": np.abs, "abs": np.abs, "signbit": np.signbit, "isnan": np.isnan, "isinf": np.isinf,
    "finitef": np.isfinite, "isfinited": np.isfinite,
    "pow": np.power, "powf": np.power, "fast_powf": np.power, "fmax": np.fmax, "fmin": np.fmin,
    "fmod": np.fmod, "atan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign,
    "div_rn": np.divide, "fast_dividef": np.divide, "fdiv_rn": np.divide,
    "fma": lambda a, b, c: a * b + c, "fma_rn": lambda a, b, c: a * b + c,
}


def _libdevice_call(*args, **_kwargs):
    """Runs in place of a libdevice stub (its code is swapped for a call of this): the stub's
    name is the caller frame's code name."""
    import sys

    from triton.runtime import interpreter as interp
    import triton.language as tl
    name = sys._getframe(1).f_code.co_name
    fn = _LIBDEVICE.get(name)
    if fn is None:
        raise NotImplementedError(
            f"triton.language.extra.libdevice.{name} has no implementation in Triton's interpreter "
            f"(torchproxy's interpreter fix implements: {', '.join(sorted(_LIBDEVICE))})")
    tensors = [a if isinstance(a, tl.tensor) else interp.interpreter_semantic.to_tensor(
        a.value if isinstance(a, tl.constexpr) else a) for a in args]
    first = tensors[0]
    out_t = max(tensors, key=lambda t: len(t.shape))  # the broadcast shape
    bf16 = first.dtype.scalar == tl.bfloat16  # stored as bit patterns: compute on the values
    np_dtype = np.dtype(np.float32) if bf16 else interp._get_np_dtype(first.dtype.scalar)

    def values(t):
        if t.dtype.scalar == tl.bfloat16:
            return triton_interpreter_bf16.bf16_to_f32(t.handle.data)
        return np.asarray(t.handle.data).astype(np_dtype, copy=False)

    with np.errstate(all="ignore"):
        data = fn(*[values(t) for t in tensors])
    data = np.asarray(data)
    scalar = tl.int1 if data.dtype == np.bool_ else first.dtype.scalar
    if data.dtype != np.bool_:
        data = data.astype(np_dtype, copy=False)
        if bf16:
            data = triton_interpreter_bf16.f32_to_bf16(data)
    ty = out_t.type.with_element_ty(scalar) if out_t.type.is_block() else scalar
    return tl.tensor(interp.TensorHandle(data, scalar), ty)


def _libdevice_template(*args, **kwargs):
    return _torchproxy_libdevice_call(*args, **kwargs)  # noqa: F821 - a global of the stub module


def ensure_libdevice_fix() -> bool:
    """While an interpreted kernel runs, libdevice stubs compute with numpy."""
    if "libdevice" in _installed:
        return True
    from triton.runtime import interpreter as interp
    if not hasattr(interp, "_LangPatchScope") or not hasattr(interp, "_patch_lang"):
        return False
    try:
        from triton.language.extra import libdevice as stubs
    except ImportError:
        return False
    import types
    funcs = [(n, f) for n, f in vars(stubs).items()
             if isinstance(f, types.FunctionType) and f.__module__ == stubs.__name__
             and not n.startswith("_") and not f.__code__.co_freevars]
    if not funcs:
        return False
    stubs.__dict__["_torchproxy_libdevice_call"] = _libdevice_call
    codes = {n: _libdevice_template.__code__.replace(co_name=n) for n, _ in funcs}
    original = interp._patch_lang

    def _patch_lang(fn):
        scope = original(fn)
        for n, f in funcs:  # restored with everything else after the launch
            scope.set_attr(f, "__code__", codes[n])
        return scope

    _patch_lang.__wrapped__ = original
    interp._patch_lang = _patch_lang
    _installed.add("libdevice")
    return True


# -- nested_calls -------------------------------------------------------------------------------
# the patches in force: (scope, ids of the language modules it patched), oldest first; a launch's
# scope.restore() drops its own entry and those above it (device calls never restore theirs)
_patches: list[tuple[object, frozenset]] = []


def ensure_nested_calls_fix() -> bool:
    """Device calls inside a launch skip the interpreter's repeat of the launch's patch."""
    if "nested_calls" in _installed:
        return True
    from triton.runtime import interpreter as interp
    if not hasattr(interp, "_LangPatchScope") or not hasattr(interp, "_patch_lang"):
        return False
    import triton.language as tl
    original = interp._patch_lang  # the libdevice fix's wrapper when installed: installed after
    langs_of = (tl, tl.core)  # what Triton's _patch_lang looks for in fn.__globals__

    def _patch_lang(fn):
        langs = frozenset(id(v) for v in fn.__globals__.values() if any(v is m for m in langs_of))
        if langs and _patches and langs <= frozenset().union(*(p[1] for p in _patches)):
            return interp._LangPatchScope()  # everything it would patch is patched
        scope = original(fn)
        _patches.append((scope, langs))
        restore = scope.restore

        def _restore():
            for i, (s, _) in enumerate(_patches):
                if s is scope:
                    del _patches[i:]
                    break
            restore()

        scope.restore = _restore
        return scope

    _patch_lang.__wrapped__ = original
    interp._patch_lang = _patch_lang
    _installed.add("nested_calls")
    return True


# -- bf16 ----------------------------------------------------------------------------------------
def ensure_bf16_fix() -> bool:
    """bfloat16 operations compute on values (float32, rounded back), not on bit patterns."""
    if "bf16" in _installed:
        return True
    from triton.runtime import interpreter as interp
    import triton.language as tl
    if not triton_interpreter_bf16.install(interp, tl):
        return False
    _installed.add("bf16")
    return True


def _interpreting() -> bool:
    try:
        from triton import knobs
        return bool(knobs.runtime.interpret)
    except (ImportError, AttributeError):
        return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def ensure_fixes() -> dict[str, bool]:
    """Install every fix this Triton needs; -> {fix name: installed}.  Nothing is installed when
    ``TORCHPROXY_INTERPRETER_FIX=0``."""
    if not enabled_by_env():
        return dict.fromkeys(FIXES, False)
    return {"index": ensure_index_fix(), "float_args": ensure_float_args_fix(),
            "autotune": ensure_autotune_fix(), "loop_index": ensure_loop_index_fix(),
            "libdevice": ensure_libdevice_fix(), "bf16": ensure_bf16_fix(),
            # last: it wraps the _patch_lang the libdevice fix installed
            "nested_calls": ensure_nested_calls_fix()}
