"""How a tensor prints in scope: torch's ``repr``/``str``/``format`` (torch/_tensor_str.py's rules:
4 digits, integer mode, scientific mode, summarisation past 1000 elements with 3 edge items,
80 columns, the dtype suffix where it is not the default, ``requires_grad=True`` /
``grad_fn=<...>``), so scripts that print tensors, and doctest-style checks, read as with torch.

Outside the scope Paddle's own ``Tensor(shape=[...], dtype=..., place=...)`` stays.  Known
differences: a non-leaf's ``grad_fn=<...>`` names Paddle's grad node (``MultiplyGradNode``
where torch says ``MulBackward0``); an ``nn.Parameter`` prints through Paddle's own
``EagerParamBase.__repr__`` ("Parameter containing:" then Paddle's text), which the scope cannot
reach without changing it for Paddle's callers too.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: set_printoptions
    torch.Tensor: __format__ __repr__ __str__
""")

import math

import numpy as np
import paddle

from . import dtypes as _dt
from .registry import tensor_method, torch_function


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _PrintOptions()
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, math.inf, 3, 80)}


@torch_function("torch.set_printoptions")
def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    if profile is not None:
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems,
         PRINT_OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    """torch's _Formatter over a numpy array (the values that will be shown)."""

    def __init__(self, values: np.ndarray, floating: bool):
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
        else:
            finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
            if finite.size == 0:
                return self._user_mode()
            absv = np.abs(finite)
            lo, hi = float(absv.min()), float(absv.max())
            p = PRINT_OPTS.precision
            if np.any(finite != np.ceil(finite)):
                self.int_mode = False
            if self.int_mode:
                if hi / lo > 1000.0 or hi > 1.0e8:
                    self.sci_mode = True
                    for v in finite.tolist():
                        self.max_width = max(self.max_width, len(f"{v:.{p}e}"))
                else:
                    for v in finite.tolist():
                        self.max_width = max(self.max_width, len(f"{v:.0f}") + 1)
            elif hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4:
                self.sci_mode = True
                for v in finite.tolist():
                    self.max_width = max(self.max_width, len(f"{v:.{p}e}"))
            else:
                for v in finite.tolist():
                    self.max_width = max(self.max_width, len(f"{v:.{p}f}"))
        self._user_mode()

    def _user_mode(self):
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        p = PRINT_OPTS.precision
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{p}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _summarized(a: np.ndarray) -> np.ndarray:
    e = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate((a[:e], a[-e:])) if a.shape[0] > 2 * e else a
    if not e:
        return a[tuple(slice(0, 0) for _ in range(a.ndim))]
    rows = list(range(e)) + list(range(a.shape[0] - e, a.shape[0])) \
        if a.shape[0] > 2 * e else range(a.shape[0])
    return np.stack([_summarized(a[i]) for i in rows])


def _complex_val(val, f1, f2) -> str:
    real = f1.format(val.real)
    imag = (f2.format(val.imag) + "j").lstrip()
    return real + imag if imag[0] in "+-" else real + "+" + imag


def _vector_str(a, indent, summarize, f1, f2) -> str:
    width = f1.width() + 2 + (f2.width() + 1 if f2 is not None else 0)
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / width)))

    def fmt(v):
        return _complex_val(v, f1, f2) if f2 is not None else f1.format(v)
    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * e:
        data = [fmt(v) for v in a[:e].tolist()] + [" ..."] + [fmt(v) for v in a[-e:].tolist()]
    else:
        data = [fmt(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with(a, indent, summarize, f1, f2) -> str:
    if a.ndim == 0:
        v = a.item()
        return _complex_val(v, f1, f2) if f2 is not None else f1.format(v)
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, f1, f2)
    e = PRINT_OPTS.edgeitems
    if summarize and a.shape[0] > 2 * e:
        slices = [_tensor_str_with(a[i], indent + 1, summarize, f1, f2) for i in range(e)] + \
            ["..."] + [_tensor_str_with(a[i], indent + 1, summarize, f1, f2)
                       for i in range(a.shape[0] - e, a.shape[0])]
    else:
        slices = [_tensor_str_with(a[i], indent + 1, summarize, f1, f2)
                  for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _values(t) -> np.ndarray:
    name = _dt.torch_name(t.dtype)
    x = t.detach()
    if name in ("float16", "bfloat16"):
        x = x.astype("float32")  # torch prints half precision through float
    return x.cpu().numpy() if hasattr(x, "cpu") else x.numpy()


def _tensor_str(t, indent: int) -> str:
    a = _values(t)
    if a.size == 0:
        return "[]"
    summarize = a.size > PRINT_OPTS.threshold
    shown = _summarized(a) if summarize else a
    if np.iscomplexobj(a):
        return _tensor_str_with(a, indent, summarize, _Formatter(shown.real, True),
                                _Formatter(shown.imag, True))
    floating = np.issubdtype(a.dtype, np.floating)
    return _tensor_str_with(a, indent, summarize, _Formatter(shown, floating), None)


def _add_suffixes(text, suffixes, indent) -> str:
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last + len(s) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            parts.append(", " + s)
            last += len(s) + 2
    parts.append(")")
    return "".join(parts)


def _device_suffix(t):
    place = t.place
    if place.is_gpu_place():
        return f"device='cuda:{place.gpu_device_id()}'"
    return None


@tensor_method("__repr__", note="torch's layout of the text; a non-leaf's grad_fn=<...> names "
                                "Paddle's grad node (MultiplyGradNode for torch's MulBackward0)")
def tensor_repr(self, *, tensor_contents=None) -> str:
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    dev = _device_suffix(self)
    if dev:
        suffixes.append(dev)
    name = _dt.torch_name(self.dtype)
    default = paddle.get_default_dtype()  # "float32" (torch.set_default_dtype sets Paddle's)
    default_complex = "complex128" if default == "float64" else "complex64"
    numel = int(np.prod(self.shape)) if len(self.shape) else 1
    if numel == 0:
        if len(self.shape) != 1:
            suffixes.append("size=" + str(tuple(self.shape)))
        if name != default:
            suffixes.append(f"dtype=torch.{name}")
        text = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(self.shape)))
        if name not in (default, default_complex, "int64", "bool"):
            suffixes.append(f"dtype=torch.{name}")
        text = _tensor_str(self, indent)
    if tensor_contents is not None:
        text = tensor_contents
    if not self.stop_gradient:
        node = None if self.is_leaf else self.grad_fn
        if node is not None:
            suffixes.append(f"grad_fn=<{node.name()}>")
        else:
            suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + text, suffixes, indent)


tensor_method("__str__", note="as __repr__ (torch's str is its repr)")(tensor_repr)


@tensor_method("__format__")
def tensor_format(self, format_spec: str) -> str:
    """torch: a 0-d tensor formats as its Python number (f"{loss:.4f}"); others only with an
    empty spec (their str), as object.__format__."""
    if len(self.shape) == 0:
        return self.item().__format__(format_spec)
    if format_spec:
        raise TypeError("unsupported format string passed to Tensor.__format__")
    return tensor_repr(self)
