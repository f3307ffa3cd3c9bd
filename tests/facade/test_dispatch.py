"""The one Tensor-method dispatcher (torchproxy/facade/dispatch.py, torchproxy/_dispatch.c).

For EVERY name in TENSOR_TABLE on this Paddle, called from a module in scope:
- the attribute installed on paddle.Tensor is the dispatcher, and the implementation it calls
  is the table's (what coverage and the matrix certify);
- traced and untraced calls enter the same implementation function (seen with
  sys.setprofile: the first Python frame below the dispatcher is the implementation's code)
  and give the same result; the trace records the name; nothing on paddle.Tensor is swapped;
- the C dispatcher and the pure-Python fallback give the same results;
and called from a module out of scope: Paddle's own attribute (the same result as calling it
directly), the torch implementation never entered.  Plus Paddle's semantics outside the scope,
compared with the proxy off.
"""
import sys

import numpy as np
import paddle
import pytest

import torchproxy
from difftest import load
from torchproxy.facade import dispatch, registry, tensor as tensor_mod
from torchproxy.facade.storage import UntypedStorage

registry.load_table()
NAMES = sorted(full.rsplit(".", 1)[1] for full in registry.TENSOR_TABLE)
BACKENDS = ["c", "python"] if dispatch.c_available() else ["python"]

_BASE = (np.arange(12, dtype="float32").reshape(3, 4) / 7 + 0.5)


def X():
    return paddle.to_tensor(_BASE)


def Y():
    return paddle.to_tensor(_BASE[::-1].copy() * 2)


def IDX():
    return paddle.to_tensor(np.array([[0, 1, 2, 3], [3, 2, 1, 0], [1, 1, 0, 0]], "int64"))


def IDX1():
    return paddle.to_tensor(np.array([0, 2], "int64"))


def MASK():
    return paddle.to_tensor(_BASE > 1.0)


def GRAD_ROOT():
    return (paddle.to_tensor(np.ones(3, "float32"), stop_gradient=False) * 2).sum()


# name -> (make self, make args, kwargs): arguments torch accepts.  Names not listed are called
# without arguments on X().
BINARY = ("mul", "mul_", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "remainder",
          "logical_and", "logical_or", "add", "add_", "sub", "sub_", "div", "div_", "pow",
          "pow_", "allclose", "equal", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
          "__rmul__", "__truediv__", "__rtruediv__", "copy_", "set_",
          # names from the OpInfo work (ops_pointwise, linalg...); shapes torch would refuse still
          # enter the implementation, and both sides are compared
          "arctan2", "atan2", "copysign", "dist", "floor_divide", "fmax", "fmin", "fmod", "gcd",
          "lcm", "greater", "greater_equal", "heaviside", "hypot", "ldexp", "less", "less_equal",
          "logaddexp", "logaddexp2", "logical_xor", "nextafter", "not_equal", "true_divide",
          "xlogy", "float_power", "float_power_", "kron", "inner", "reshape_as",
          # elementwise breadth (tests/facade/test_elementwise_breadth.py)
          "clamp_min", "clamp_min_", "clamp_max", "clamp_max_", "isclose",
          "bitwise_left_shift", "bitwise_left_shift_", "bitwise_right_shift",
          "bitwise_right_shift_", "__and__", "__or__", "__xor__", "__rand__", "__ror__",
          "__rxor__", "__lshift__", "__rshift__", "__rlshift__", "__rrshift__", "__rmod__",
          "__pow__", "__rpow__", "__rdiv__", "__mod__", "__eq__", "__ne__", "__lt__", "__le__",
          "__gt__", "__ge__", "bitwise_and", "bitwise_or", "bitwise_xor", "__matmul__",
          "__rmatmul__", "matmul", "mm",
          # tensor_attributes.py (tests/facade/test_tensor_attributes.py)
          "is_same_size",
          # in-place operators (tests/facade/test_inplace_operators.py)
          *sorted(dispatch.INPLACE_OPERATORS))
SAMPLES = {name: (X, lambda: (Y(),), {}) for name in BINARY}
SAMPLES.update({
    "clamp": (X, lambda: (0.6, 1.5), {}), "clamp_": (X, lambda: (0.6, 1.5), {}),
    "clip": (X, lambda: (0.6, 1.5), {}),
    "addcmul": (X, lambda: (Y(), Y()), {}), "addcmul_": (X, lambda: (Y(), Y()), {}),
    "addcdiv": (X, lambda: (Y(), Y()), {}), "addcdiv_": (X, lambda: (Y(), Y()), {}),
    "lerp": (X, lambda: (Y(), 0.5), {}), "lerp_": (X, lambda: (Y(), 0.5), {}),
    "logical_and_": (X, lambda: (Y(),), {}), "logical_or_": (X, lambda: (Y(),), {}),
    "multiply": (X, lambda: (Y(),), {}), "multiply_": (X, lambda: (Y(),), {}),
    "subtract": (X, lambda: (Y(),), {}), "subtract_": (X, lambda: (Y(),), {}),
    "divide": (X, lambda: (Y(),), {}), "divide_": (X, lambda: (Y(),), {}),
    "clip_": (X, lambda: (0.6, 1.5), {}), "flip": (X, lambda: (0,), {}),
    "addmm": (X, lambda: (X(), paddle.ones([4, 4])), {}),
    "logsumexp": (X, lambda: (1,), {}), "cumsum": (X, lambda: (1,), {}),
    "topk": (X, lambda: (2,), {}), "chunk": (X, lambda: (2,), {}),
    "narrow": (X, lambda: (0, 0, 2), {}), "gather": (X, lambda: (1, IDX()), {}),
    "index_select": (X, lambda: (0, IDX1()), {}),
    "masked_fill": (X, lambda: (MASK(), 0.0), {}), "masked_fill_": (X, lambda: (MASK(), 0.0), {}),
    "repeat_interleave": (X, lambda: (2,), {}),
    "scatter": (X, lambda: (1, IDX(), Y()), {}), "scatter_": (X, lambda: (1, IDX(), Y()), {}),
    "scatter_add": (X, lambda: (1, IDX(), Y()), {}),
    "scatter_add_": (X, lambda: (1, IDX(), Y()), {}),
    "index_add": (X, lambda: (0, IDX1(), Y()[:2]), {}),
    "index_add_": (X, lambda: (0, IDX1(), Y()[:2]), {}),
    "transpose": (X, lambda: (0, 1), {}), "permute": (X, lambda: (1, 0), {}),
    "expand": (X, lambda: (2, 3, 4), {}), "unsqueeze": (X, lambda: (0,), {}),
    "broadcast_to": (X, lambda: ((2, 3, 4),), {}),
    "view": (X, lambda: (4, 3), {}), "reshape": (X, lambda: (4, 3), {}),
    "new_zeros": (X, lambda: (2,), {}), "new_ones": (X, lambda: (2,), {}),
    "new_empty": (X, lambda: (2,), {}), "new_full": (X, lambda: ((2,), 1.5), {}),
    "new_tensor": (X, lambda: ([1.0, 2.0],), {}), "where": (X, lambda: (MASK(), Y()), {}),
    "split": (X, lambda: (2,), {}), "repeat": (X, lambda: (2, 1), {}),
    "fill_": (X, lambda: (2.0,), {}), "type_as": (X, lambda: (IDX(),), {}),
    "to": (X, lambda: (paddle.float64,), {}), "size": (X, lambda: (1,), {}),
    "stride": (X, lambda: (0,), {}), "max": (X, lambda: (1,), {}), "min": (X, lambda: (0,), {}),
    "backward": (GRAD_ROOT, lambda: (), {}),
    "register_hook": (GRAD_ROOT, lambda: (lambda g: g * 2,), {}),
    "__setitem__": (X, lambda: ((0, 1), 9.0), {}), "__getitem__": (X, lambda: ((0, 1),), {}),
    "geometric_": (X, lambda: (0.5,), {}), "multinomial": (X, lambda: (2,), {}),
})
SAMPLES.update({
    "__contains__": (X, lambda: (0.5,), {}),
    "__format__": (X, lambda: ("",), {}),
    # torch calls it on the class (Tensor._make_subclass(cls, data)); on an instance, self is
    # taken for cls and refused: the call still reaches the implementation
    "_make_subclass": (X, lambda: (X(),), {}),  # (unscoped: CPython's iteration over 2-D raises)
    "addbmm": (X, lambda: (paddle.ones([2, 3, 5]), paddle.ones([2, 5, 4])), {}),
    "baddbmm": (X, lambda: (paddle.ones([2, 3, 5]), paddle.ones([2, 5, 4])), {}),
    "addmv": (X, lambda: (paddle.ones([4, 5]), paddle.ones([5])), {}),
    "addr": (X, lambda: (paddle.ones([3]), paddle.ones([4])), {}),
    "diagonal_scatter": (X, lambda: (paddle.ones([3]),), {}),
    "dsplit": (X, lambda: (2,), {}), "hsplit": (X, lambda: (2,), {}),
    "vsplit": (X, lambda: (3,), {}), "tensor_split": (X, lambda: (2,), {}),
    "unsafe_split": (X, lambda: (2,), {}), "split_with_sizes": (X, lambda: ([1, 2],), {}),
    "dot": (X, lambda: (Y(),), {}), "vdot": (X, lambda: (Y(),), {}),
    "ger": (X, lambda: (paddle.ones([4]),), {}), "mv": (X, lambda: (paddle.ones([4]),), {}),
    "index_copy": (X, lambda: (0, IDX1(), Y()[:2]), {}),
    "index_fill": (X, lambda: (0, IDX1(), 1.5), {}),
    "index_reduce": (X, lambda: (0, IDX1(), Y()[:2], "prod"), {}),
    "kthvalue": (X, lambda: (2,), {}), "logcumsumexp": (X, lambda: (1,), {}),
    "cummax": (X, lambda: (1,), {}), "cummin": (X, lambda: (1,), {}),
    "cumprod": (X, lambda: (1,), {}), "cumprod_": (X, lambda: (1,), {}),
    "cumsum_": (X, lambda: (1,), {}), "quantile": (X, lambda: (0.5,), {}),
    "nanquantile": (X, lambda: (0.5,), {}),
    "masked_select": (X, lambda: (MASK(),), {}), "matrix_power": (X, lambda: (2,), {}),
    "moveaxis": (X, lambda: (0, 1), {}), "movedim": (X, lambda: (0, 1), {}),
    "swapdims": (X, lambda: (0, 1), {}), "mvlgamma": (X, lambda: (1,), {}),
    "narrow_copy": (X, lambda: (0, 0, 2), {}),
    "new_empty_strided": (X, lambda: ((2, 3), (3, 1)), {}),
    "orgqr": (X, lambda: (paddle.ones([3]),), {}), "polygamma": (X, lambda: (1,), {}),
    "renorm": (X, lambda: (2, 0, 1.0), {}),
    "scatter_reduce": (X, lambda: (1, IDX(), Y(), "sum"), {}),
    "select": (X, lambda: (0, 1), {}), "select_scatter": (X, lambda: (paddle.ones([4]), 0, 1), {}),
    "slice_scatter": (X, lambda: (Y(),), {}), "take": (X, lambda: (IDX1(),), {}),
    "take_along_dim": (X, lambda: (IDX(), 1), {}), "unflatten": (X, lambda: (1, (2, 2)), {}),
})
SAMPLES.update({  # ops_indexing / ops_shape (tests/facade/test_shape_breadth.py)
    "as_strided": (X, lambda: ((2, 2), (1, 2), 1), {}),
    "as_strided_": (X, lambda: ((2, 2), (1, 2), 1), {}),
    "as_strided_scatter": (X, lambda: (paddle.ones([2, 2]), (2, 2), (1, 2), 1), {}),
    "masked_scatter": (X, lambda: (MASK(), Y()), {}),
    "masked_scatter_": (X, lambda: (MASK(), Y()), {}),
    "nonzero_static": (X, lambda: (), {"size": 4}),
    "put": (X, lambda: (IDX1(), paddle.ones([2])), {}),
    "put_": (X, lambda: (IDX1(), paddle.ones([2])), {}),
    "resize_": (X, lambda: (2, 3), {}), "resize_as_": (X, lambda: (paddle.ones([6]),), {}),
    "roll": (X, lambda: (1, 0), {}), "tile": (X, lambda: ((2, 1),), {}),
    "swapaxes": (X, lambda: (0, 1), {}), "swapaxes_": (X, lambda: (0, 1), {}),
    "swapdims_": (X, lambda: (0, 1), {}), "transpose_": (X, lambda: (0, 1), {}),
    "unsqueeze_": (X, lambda: (0,), {}),
    "view_as": (X, lambda: (paddle.ones([4, 3]),), {}),
    "unsafe_chunk": (X, lambda: (2,), {}), "diagonal": (X, lambda: (1,), {}),
    "expand_as": (X, lambda: (paddle.ones([2, 3, 4]),), {}),
    "unfold": (X, lambda: (1, 2, 1), {}),
})
SAMPLES.update({  # fft.py, special.py (tests/facade/test_special_masked_breadth.py)
    **{n: (X, lambda: (Y(),), {}) for n in ("igamma", "igamma_", "igammac", "igammac_")},
    "stft": (X, lambda: (4,), {"return_complex": True}),
    "istft": (lambda: paddle.to_tensor(np.ones((3, 5), "complex64")), lambda: (4,), {}),
})
SAMPLES.update({  # linalg_more.py (tests/facade/test_linalg_breadth.py)
    "cholesky_solve": (X, lambda: (paddle.eye(3),), {}),
    "cross": (lambda: paddle.ones([4, 3]), lambda: (paddle.ones([4, 3]),), {}),
    "lu_solve": (X, lambda: (paddle.eye(3), paddle.to_tensor(np.array([1, 2, 3], "int32"))), {}),
    "ormqr": (X, lambda: (paddle.ones([3]), paddle.ones([3, 2])), {}),
    "triangular_solve": (X, lambda: (paddle.eye(3),), {}),
    "addmm_": (X, lambda: (X(), paddle.ones([4, 4])), {}), "outer": (X, lambda: (Y(),), {}),
    "bmm": (lambda: paddle.ones([2, 3, 4]), lambda: (paddle.ones([2, 4, 5]),), {}),
})
# compare dtype and shape, not the values: uninitialised memory; addresses of fresh tensors
UNINITIALISED = {"new_empty", "new_empty_strided", "data_ptr"}
# Paddle's own signature where calling it with torch's arguments would crash the process
# (Paddle 2.6's copy_ reads a missing `blocking` argument: SIGSEGV)
PADDLE_SAMPLES = {"copy_": (X, lambda: (Y(), True), {})}
# Paddle's own attribute that cannot be called here at all: Paddle 2.6's x.cuda() on a CPU
# build ends the process
PADDLE_UNCALLABLE = set() if paddle.is_compiled_with_cuda() else {"cuda"}


def _sample(name, paddle_args=False):
    make_x, make_args, kwargs = (paddle_args and PADDLE_SAMPLES.get(name)) or SAMPLES.get(
        name, (X, lambda: (), {}))
    return make_x(), make_args(), dict(kwargs)


def _is_property(obj) -> bool:
    return isinstance(obj, property) or (hasattr(obj, "__get__") and hasattr(obj, "__set__"))


def _caller(name, as_attr):
    """A module function reading ``x.<name>`` or calling ``x.<name>(...)`` (LOAD_METHOD: no
    bound method), the way user code does."""
    body = f"x.{name}" if as_attr else f"x.{name}(*args, **kwargs)"
    return f"def f(x, args, kwargs):\n    return {body}\n"


# the dispatcher (pure-Python backend), the scope decision on a cache miss, the trace recorder
_SKIP_FILES = ("<torchproxy.facade.dispatch", sys.modules["torchproxy.tracing"].__file__,
               sys.modules["torchproxy.scope"].__file__)


def _run(fn, x, args, kwargs):
    """(outcome, code objects entered, in order) for fn(x, args, kwargs) under sys.setprofile."""
    codes = []

    def prof(frame, event, arg):
        if event == "call":
            codes.append(frame.f_code)
    # the random in-place fills (normal_, uniform_...) draw the same: the facade's CPU stream
    # (torch's) and Paddle's generators, seeded as torch.manual_seed seeds them
    from torchproxy.facade.random import manual_seed
    manual_seed(20251123)
    sys.setprofile(prof)
    try:
        out = fn(x, args, kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        out = e
    finally:
        sys.setprofile(None)
    return out, codes


def _first_below(codes, caller_code):
    """The first code entered below the caller that is not the dispatcher or the recorder."""
    for c in codes:
        if c is caller_code or c.co_filename.startswith(_SKIP_FILES):
            continue
        return c
    return None


def _norm(v, values=True):
    if isinstance(v, BaseException):
        return ("raises", type(v).__name__, str(v))
    if isinstance(v, paddle.Tensor):
        return ("Tensor", str(v.dtype), tuple(v.shape),
                v.numpy().tobytes() if values else None)
    if isinstance(v, UntypedStorage):
        return ("UntypedStorage", v.nbytes())
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_norm(i, values) for i in v))
    if type(v).__name__ in ("PyCapsule", "GradNodeBase", "_HookHandle",
                            "TensorHookRemoveHelper"):
        # a new wrapper object on every read, or register_hook's handle (one per call):
        # compare the type
        return (type(v).__name__,)
    if isinstance(v, (bool, int, float, str, type(None))):
        return (type(v).__name__, v if values else None)
    return (type(v).__name__, repr(v))


def _install(backend):
    tensor_mod.uninstall()
    dispatch.set_backend(backend)
    tensor_mod.install()
    got = dispatch.info(paddle.Tensor.__dict__["numel"])
    assert got is not None and got[3] == backend, got


@pytest.fixture(scope="module")
def outcomes():
    """Every name, every backend: untraced and traced from a scoped module, untraced from an
    unscoped one; Paddle's original called directly; the installed attributes."""
    load("def f(): pass", scoped=True)  # enables the proxy with the difftest scope
    default = dispatch.backend()
    res = {}
    try:
        for backend in BACKENDS:
            _install(backend)
            installed = {n: paddle.Tensor.__dict__[n] for n in NAMES}
            for name in NAMES:
                entry = registry.TENSOR_TABLE[f"torch.Tensor.{name}"]
                torch_attr = isinstance(entry.impl, property)
                paddle_orig = tensor_mod.original(name)
                scoped = load(_caller(name, torch_attr), scoped=True)
                unscoped = load(_caller(name, paddle_orig is not None and _is_property(
                    paddle_orig)), scoped=False)
                r = res.setdefault(name, {})
                r[backend, "plain"] = _run(scoped.f, *_sample(name)), scoped.f.__code__
                with torchproxy.trace() as t:
                    r[backend, "traced"] = _run(scoped.f, *_sample(name)), scoped.f.__code__
                    during = {n: paddle.Tensor.__dict__[n] for n in NAMES}
                r[backend, "recorded"] = set(t.used.get(f"torch.Tensor.{name}", ()))
                r[backend, "site"] = scoped.__file__
                r[backend, "swapped"] = [n for n in NAMES if during[n] is not installed[n]]
                r[backend, "info"] = dispatch.info(installed[name])
                r[backend, "fast"] = getattr(installed[name], "fast", None)
                if paddle_orig is not None and name in PADDLE_UNCALLABLE:
                    continue
                r[backend, "unscoped"] = (_run(unscoped.f, *_sample(name, paddle_args=True)),
                                          unscoped.f.__code__)
                if paddle_orig is not None:
                    x, args, kwargs = _sample(name, paddle_args=True)
                    paddle.seed(20251123)
                    try:
                        direct = (paddle_orig.__get__(x, type(x)) if _is_property(paddle_orig)
                                  else paddle_orig(x, *args, **kwargs))
                    except Exception as e:  # noqa: BLE001
                        direct = e
                    r[backend, "direct"] = direct
    finally:
        _install(default)
    return res


def _impl_code(name):
    impl = registry.TENSOR_TABLE[f"torch.Tensor.{name}"].impl
    return (impl.fget if isinstance(impl, property) else impl).__code__


@pytest.mark.parametrize("name", NAMES)
def test_traced_and_untraced_run_the_same_implementation(outcomes, name):
    r = outcomes[name]
    impl = registry.TENSOR_TABLE[f"torch.Tensor.{name}"].impl
    impl_fn = impl.fget if isinstance(impl, property) else impl
    values = name not in UNINITIALISED
    first = None
    for backend in BACKENDS:
        got_name, got_impl, _, got_backend = r[backend, "info"]
        assert (got_name, got_backend) == (name, backend)
        assert got_impl is impl_fn, "the dispatcher must call the table's implementation"
        (plain, plain_codes), caller = r[backend, "plain"]
        (traced, traced_codes), _ = r[backend, "traced"]
        # the C dispatcher answers the common case of a few names itself (_dispatch.c's fast
        # paths: no Python frame); its result is compared with the pure-Python backend's below
        ok = (impl_fn.__code__, None) if r[backend, "fast"] else (impl_fn.__code__,)
        assert _first_below(plain_codes, caller) in ok, (backend, "untraced")
        assert _first_below(traced_codes, caller) in ok, (backend, "traced")
        assert _norm(plain, values) == _norm(traced, values), backend
        # the trace saw the call, at the scoped module's line, and swapped nothing
        assert r[backend, "recorded"] == {f"{r[backend, 'site']}:2"}, backend
        assert r[backend, "swapped"] == [], backend
        if first is None:
            first = _norm(plain, values)
        else:  # the C dispatcher and the pure-Python fallback: the same result
            assert _norm(plain, values) == first, "C and pure-Python dispatchers differ"


@pytest.mark.parametrize("name", NAMES)
def test_unscoped_callers_get_paddles_own_attribute(outcomes, name):
    if name in PADDLE_UNCALLABLE and tensor_mod.original(name) is not None:
        pytest.skip(f"Paddle's own Tensor.{name} cannot be called on this build")
    r = outcomes[name]
    values = name not in UNINITIALISED
    for backend in BACKENDS:
        (out, codes), caller = r[backend, "unscoped"]
        entered = [c for c in codes if c is not caller]
        if name in dispatch.INPLACE_OPERATORS:
            # Paddle lacks it, yet dispatched: NotImplemented (x += y then rebinds, as Paddle)
            assert out is NotImplemented and _impl_code(name) not in entered, backend
            continue
        if name in dispatch.PROTOCOL_DEFAULTS:
            # Paddle lacks it, yet dispatched: CPython's default behaviour (`in` iterates)
            default = dispatch.PROTOCOL_DEFAULTS[name]
            assert _first_below(codes, caller) is default.__code__, backend
            assert _impl_code(name) not in entered, backend
            continue
        if (backend, "direct") not in r:
            # Paddle lacks the name: torch's implementation for every caller, no recording
            # (or, for the C dispatcher's fast-path names, its C answer to the common case)
            ok = (_impl_code(name), None) if r[backend, "fast"] else (_impl_code(name),)
            assert _first_below(codes, caller) in ok, backend
            continue
        assert _impl_code(name) not in entered, f"{backend}: torch's implementation ran"
        assert _norm(out, values) == _norm(r[backend, "direct"], values), backend


def test_every_name_is_sampled_or_takes_no_arguments():
    """A new name without a SAMPLES entry would only be tested with a no-argument call: make
    sure that call reaches the implementation (it may raise inside it, that is compared)."""
    import inspect
    for name in NAMES:
        if name in SAMPLES:
            continue
        impl = registry.TENSOR_TABLE[f"torch.Tensor.{name}"].impl
        fn = impl.fget if isinstance(impl, property) else impl
        try:
            inspect.signature(fn).bind(X())
        except TypeError as e:
            raise AssertionError(f"torch.Tensor.{name} needs arguments: add a SAMPLES entry "
                                 f"in {__file__} ({e})") from None


def test_setters_dispatch_by_scope():
    """``x.requires_grad = flag``: torch's setter in scope, Paddle's outside, both backends."""
    if "requires_grad" not in NAMES:
        pytest.skip("requires_grad is not registered")
    scoped = load("def f(x, v):\n    x.requires_grad = v\n    return x.requires_grad\n",
                  scoped=True)
    unscoped = load("def f(x, v):\n    x.requires_grad = v\n    return x.stop_gradient\n",
                    scoped=False)
    default = dispatch.backend()
    try:
        for backend in BACKENDS:
            _install(backend)
            assert scoped.f(X(), True) is True
            assert scoped.f(X(), False) is False
            x = X()
            try:
                got = unscoped.f(x, True)
            except Exception as e:  # noqa: BLE001
                got = e
            y = X()
            try:
                paddle_attr = tensor_mod.original("requires_grad")
                if paddle_attr is None:  # added on this Paddle: torch's setter for everyone
                    registry.TENSOR_TABLE["torch.Tensor.requires_grad"].impl.fset(y, True)
                else:
                    paddle_attr.__set__(y, True)
                want = y.stop_gradient
            except Exception as e:  # noqa: BLE001
                want = e
            assert _norm(got) == _norm(want), backend
    finally:
        _install(default)


# -- Paddle semantics outside the scope: proxy on (each backend) == proxy off ------------------
UNSCOPED_EXPRS = ["x.shape", "x.shape[0]", "x.numel()", "x.size", "x.is_contiguous()", "x.ndim",
                  "x.dim()", "x.strides", "x.data_ptr() == x.data_ptr()", "x.place", "x.dtype",
                  "x + x", "x * 2", "x.max()", "x.sum(axis=0)", "x.reshape([4, 3])",
                  "x.transpose([1, 0]).is_contiguous()", "x.split(2, axis=1)"]
if hasattr(paddle.Tensor, "stride"):
    UNSCOPED_EXPRS.append("x.stride()")
if hasattr(paddle.Tensor, "device"):
    UNSCOPED_EXPRS.append("x.device")


def test_paddle_semantics_outside_the_scope_unchanged():
    load("def f(): pass", scoped=True)
    src = "def f(x):\n    return [" + ", ".join(UNSCOPED_EXPRS) + "]\n"
    mod = load(src, scoped=False)

    def both(v):
        return _norm(v), [type(i).__name__ for i in v]
    default = dispatch.backend()
    try:
        tensor_mod.uninstall()  # the proxy's Tensor methods off: Paddle's own attributes
        off = both(mod.f(X()))
        for backend in BACKENDS:
            _install(backend)
            assert both(mod.f(X())) == off, backend
    finally:
        _install(default)


def test_pure_python_is_selected_by_the_environment(monkeypatch):
    """TORCHPROXY_PURE_PYTHON=1 makes the dispatcher module choose the fallback, and say so
    (a fresh copy of the module, loaded with the variable set)."""
    import importlib.util
    monkeypatch.setenv(dispatch.PURE_PYTHON_ENV, "1")
    spec = importlib.util.spec_from_file_location("torchproxy.facade._dispatch_envtest",
                                                  dispatch.__file__)
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    assert (fresh.backend(), fresh.c_available()) == ("python", False)
    assert fresh.c_error().startswith("TORCHPROXY_PURE_PYTHON=1")
    with pytest.raises(RuntimeError, match="C dispatcher is unavailable"):
        fresh.set_backend("c")
    # what it builds is the pure-Python dispatcher, with the same implementation
    impl = registry.TENSOR_TABLE["torch.Tensor.numel"].impl
    built = fresh.make("numel", impl, tensor_mod.original("numel"))
    assert fresh.info(built)[1:] == (impl, tensor_mod.original("numel"), "python")


def test_the_c_dispatcher_is_built_and_current():
    """No silent fallback: where the environment does not ask for the pure-Python dispatcher,
    the C one is built from the current torchproxy/_dispatch.c (`pip install -e .` builds
    it; ./dev does at set-up)."""
    import os
    if os.environ.get(dispatch.PURE_PYTHON_ENV, "") not in ("", "0"):
        pytest.skip(f"{dispatch.PURE_PYTHON_ENV} is set")
    assert dispatch.c_available(), dispatch.c_error()
    assert dispatch.backend() == "c"
    assert not dispatch._source_changed(dispatch._C)

    class Stale:
        SOURCE_SHA = "0" * 40
    assert dispatch._source_changed(Stale)  # a build from another source is refused
