r"""torch dtypes, finfo/iinfo and the default dtype.

Decision: a torch dtype IS Paddle's dtype object (``torch.float16 is paddle.float16``), and the
attributes torch code reads on a dtype (``itemsize``, ``is_floating_point``, ``is_signed``,
``is_complex``, ``to_real()``, ``to_complex()``) are added to Paddle's dtype *type* at enable()
(``paddle.dtype`` is ``DataType`` on 3.x and ``VarType`` on 2.6; both accept new type
attributes, neither accepts instance attributes).  Why not a small type of our own comparing
equal to Paddle's (measured in bench/facade_calls.py, "dtype design"):
- ``x.dtype`` would need a scope dispatcher on every Paddle ``.dtype`` read (Paddle's own code
  reads it constantly) to hand out our object, which makes Paddle slower outside scope;
- ``x.dtype == torch.float16`` then costs a Python ``__eq__`` (or breaks when a Paddle dtype
  arrives from outside scope and is compared by identity);
- our dtypes would leak into Paddle calls made with them and need converting everywhere.
With Paddle's objects there is no conversion at all and ``x.dtype`` is Paddle's own getter; on
Paddle 2.6, whose getter builds a new enum object per read, enable() installs a C reading of the
same answer that hands out the canonical object instead (fast_dtype.py; issue 26, eighth round).
``str(dtype)`` and ``repr(dtype)`` are torch's (``'torch.float16'``) for callers in scope and
Paddle's (``'paddle.float16'``, ``<DataType.FLOAT16: 15>``) for everyone else: test suites parse
``^torch\.(\w+)$`` out of ``str(x.dtype)``, and Paddle's own code formats its dtypes (see
``_scoped_text``).  Cost: ``==`` is pybind's enum comparison (about 0.5 us on 3.3, 0.9 us on 2.6;
torch's is 0.1 us), except with the C dispatcher built: enable() then reads ``==`` / ``!=``
between two dtypes in C, as it does their hash (issue 26, sixth round; _install_fast_hash).
"""
from __future__ import annotations

import sys

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: bfloat16 bool cdouble cfloat complex128 complex64 double dtype finfo float float16
        float32 float4_e2m1fn_x2 float64 float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz
        float8_e8m0fnu get_default_dtype half iinfo int int16 int32 int64 int8 is_complex
        is_floating_point is_tensor long promote_types set_default_dtype short uint16 uint32 uint64
        uint8
""")

import paddle

from .. import scope as _scope
from ..errors import NotProvidedError
from ..paddle_shims import paddle_dtype
from .registry import torch_function, type_, value

DTYPE_TYPE = type(paddle.float32)

# torch name -> Paddle attribute name.  Aliases (torch.float == torch.float32) are the same
# object, as in torch.
_NAMES = {
    "bool": "bool", "uint8": "uint8", "int8": "int8", "int16": "int16", "int32": "int32",
    "int64": "int64", "float16": "float16", "bfloat16": "bfloat16", "float32": "float32",
    "float64": "float64", "complex64": "complex64", "complex128": "complex128",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
    "uint32": "uint32", "uint64": "uint64",
}
_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "short": "int16",
            "int": "int32", "long": "int64", "cfloat": "complex64", "cdouble": "complex128"}

# Names torch has that the facade does not provide, with the reason (mirrored in gaps.toml).
NOT_PROVIDED = {
    "complex32": "Paddle has no complex32", "chalf": "Paddle has no complex32",
    "qint8": "no quantized dtypes", "quint8": "no quantized dtypes", "qint32": "no quantized dtypes",
    "quint4x2": "no quantized dtypes", "quint2x4": "no quantized dtypes",
    "bits8": "no bits dtypes", "bits16": "no bits dtypes",
}

DTYPES: dict[str, object] = {}   # torch name -> Paddle dtype (what this Paddle has)
MISSING_ON_THIS_PADDLE: dict[str, str] = {}
for _torch, _pd in _NAMES.items():
    _obj = paddle_dtype(_pd)
    if _obj is None or type(_obj) is not DTYPE_TYPE:
        MISSING_ON_THIS_PADDLE[_torch] = f"Paddle {paddle.__version__} has no paddle.{_pd}"
        continue
    DTYPES[_torch] = _obj
for _alias, _torch in _ALIASES.items():
    DTYPES[_alias] = DTYPES[_torch]

for _name, _obj in DTYPES.items():
    value(f"torch.{_name}", _obj)
type_("torch.dtype", DTYPE_TYPE)


# added for FlashInfer: its jit/utils.py builds {torch.float8_e4m3fn: "__nv_fp8_e4m3",
# torch.uint32: "uint32_t", ...} at import, so on a Paddle without those dtypes (2.6.2, the only
# Paddle GPU build for sm_90) the whole package failed to import.  There each such name is a
# dtype *token*: hashable, comparable, printable, usable as a dict key; the facade's creation
# functions and Paddle reject it wherever a real dtype is needed (creating or casting a
# tensor), so nothing silently computes in another dtype.
class UnavailableDtype:
    __slots__ = ("name", "reason")
    _SIZES = {"float8_e4m3fn": 1, "float8_e5m2": 1, "uint16": 2, "uint32": 4, "uint64": 8,
              "float8_e8m0fnu": 1, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1,
              "float4_e2m1fn_x2": 1}

    def __init__(self, name: str, reason: str):
        self.name, self.reason = name, reason

    def __repr__(self):
        return f"torch.{self.name}"

    @property
    def itemsize(self) -> int:
        return self._SIZES[self.name]

    @property
    def is_floating_point(self) -> bool:
        return self.name.startswith("float")

    is_complex = False

    @property
    def is_signed(self) -> bool:
        return not self.name.startswith("uint")


# upstream FlashInfer (0.7) sets `_scale_dtype = torch.float8_e8m0fnu` in a class body at
# import; no Paddle has e8m0, so it is a token on every version.  Notes are the same on every
# Paddle version (docs/COVERAGE.md is generated on any): the per-version tokens are documented
# in gaps.toml ("torch.uint32 (Paddle 2.6)").
# torch.uint16 is a token on every Paddle: paddle.uint16 is its legacy bfloat16 storage type
# (it prints 'paddle.bfloat16'), so handing it out would make str() and Triton see bfloat16.
# safetensors.torch builds {torch.uint16: 2, ...} at import (Hugging Face transformers imports it).
# safetensors.torch probes getattr(torch, "float8_e4m3fnuz", None) (and e5m2fnuz,
# float4_e2m1fn_x2) at import, as real torch has them: tokens too, so the probe answers as
# torch does (Hugging Face transformers' save/load goes through it).
for _name, _why in {**MISSING_ON_THIS_PADDLE,
                    "float8_e8m0fnu": "Paddle has no e8m0 float8",
                    "float8_e4m3fnuz": "Paddle has no fnuz float8",
                    "float8_e5m2fnuz": "Paddle has no fnuz float8",
                    "float4_e2m1fn_x2": "Paddle has no float4",
                    "uint16": "Paddle has no uint16 tensors (paddle.uint16 is its legacy "
                              "bfloat16 storage type)"}.items():
    value(f"torch.{_name}", UnavailableDtype(_name, _why),
          note="" if _name in MISSING_ON_THIS_PADDLE else
          _why + ": a dtype token (dict key, comparisons); tensors of it cannot be created")

# Per-dtype facts, keyed by the Paddle dtype object (hashable on both versions).
_ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8,
             "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "complex64": 8,
             "complex128": 16, "float8_e4m3fn": 1, "float8_e5m2": 1, "uint32": 4, "uint64": 8}
_FLOATING = {"float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2"}
_COMPLEX = {"complex64", "complex128"}
_UNSIGNED = {"bool", "uint8", "uint32", "uint64"}
_TO_REAL = {"complex64": "float32", "complex128": "float64"}
_TO_COMPLEX = {"float32": "complex64", "float64": "complex128", "float16": "complex64"}

NAME_OF: dict = {}  # Paddle dtype -> torch name
for _torch in _NAMES:
    if _torch in DTYPES:
        NAME_OF[DTYPES[_torch]] = _torch


def torch_name(dtype) -> str:
    """The torch name of a Paddle dtype (``paddle.float16`` -> ``"float16"``)."""
    try:
        return NAME_OF[dtype]
    except KeyError:
        raise TypeError(f"{dtype!r} has no torch dtype counterpart") from None


def _itemsize(self) -> int:
    return _ITEMSIZE[torch_name(self)]


def _is_floating_point(self) -> bool:
    return torch_name(self) in _FLOATING


def _is_complex(self) -> bool:
    return torch_name(self) in _COMPLEX


def _is_signed(self) -> bool:
    n = torch_name(self)
    return n not in _UNSIGNED


def _to_real(self):
    n = torch_name(self)
    return DTYPES[_TO_REAL.get(n, n)]


def _to_complex(self):
    n = torch_name(self)
    if n in _COMPLEX:
        return self
    if n not in _TO_COMPLEX:
        raise RuntimeError(f"Unsupported dtype {n} for to_complex")
    return DTYPES[_TO_COMPLEX[n]]


# str()/repr() of a dtype: torch's text for callers in scope, Paddle's for everyone else (Paddle
# formats dtypes in its own messages and code: paddle/framework/dtype.py patches __str__ on the
# type itself).  The caller's module is the frame above the function (str/repr/format/print are
# C calls and push no frame).  Not a TENSOR_TABLE dispatcher (dispatch.make names and traces
# every entry as torch.Tensor.<name>); the check is _CHECK's of dispatch.py, inline.
def _scoped_text(name: str, paddle_fn):
    state, wants, getframe = _scope.STATE, _scope.STATE.wants_facade, sys._getframe

    def text(self):
        try:
            scoped = state.snapshot.cache[getframe(1).f_globals["__name__"]]
        except (KeyError, TypeError):
            scoped = wants(getframe(1).f_globals.get("__name__"))
        if scoped:
            torch = NAME_OF.get(self)
            if torch is not None:  # a Paddle-only dtype (paddle.uint16, raw...) keeps Paddle's
                return "torch." + torch
        return paddle_fn(self)
    text.__name__ = text.__qualname__ = name
    text.__wrapped__ = paddle_fn
    return text


# Installed on the Paddle dtype type by tensor.install() (enable), removed by uninstall().
# Paddle's dtype has none of these names, so Paddle code never sees a difference.
TYPE_ATTRS = {
    "itemsize": property(_itemsize),
    "is_floating_point": property(_is_floating_point),
    "is_complex": property(_is_complex),
    "is_signed": property(_is_signed),
    "to_real": _to_real,
    "to_complex": _to_complex,
}
_saved_type_attrs: dict = {}
_MISSING = object()

# hash() of a Paddle dtype is pybind11's enum __hash__, which returns int_(self): two pybind
# calls (__hash__, then __int__), 0.40 us on an H100 host (torch's 0.03).  Triton's argument
# specialiser hashes the dtype of every tensor argument on every launch (its dtype -> "*fp32"
# cache is keyed by hash(dtype)), so that is ~1.2 us of a 3-tensor launch.  Installing the
# enum's own __int__ as __hash__ gives the same values (pybind's __hash__ IS int(self)) in one
# call.  Checked per dtype before it is installed; restored by uninstall().
# With the C dispatcher built, the hash is read in C instead (_dispatch.c, enum_hash_install:
# the type's tp_hash slot reads the enum's value, checked on every member first): no Python
# call at all, about torch's cost (issue 26, third round).  _HASH_SAVED then holds _C_HASH.
_HASH_SAVED: list = []
_C_HASH = "c"


def _c_enum_hash():
    """The C dispatcher's enum-hash functions, or None (pure-Python dispatcher, older build)."""
    from . import dispatch
    C = dispatch._C
    return C if C is not None and hasattr(C, "enum_hash_install") else None


def _enum_members():
    members = dict.fromkeys(DTYPES.values())
    for v in getattr(DTYPE_TYPE, "__members__", {}).values():
        if type(v) is DTYPE_TYPE:
            members[v] = None
    return list(members)


def _fast_hash_candidate():
    """Paddle's own ``__int__`` of the dtype type when it may stand in for ``__hash__``:
    it returns the same value for every dtype this Paddle has; else None."""
    own = DTYPE_TYPE.__dict__
    fast, orig = own.get("__int__"), own.get("__hash__")
    if fast is None or orig is None:
        return None
    try:
        if any(fast(d) != hash(d) for d in set(DTYPES.values())):
            return None
    except Exception:
        return None
    return fast


def _install_fast_hash() -> None:
    if _HASH_SAVED:
        return
    C = _c_enum_hash()
    if C is not None:
        try:
            members = _enum_members()
            if C.enum_hash_install(DTYPE_TYPE, members):
                _HASH_SAVED.append(_C_HASH)
                # == / != between two dtypes read in C too (sixth round: kernel wrappers'
                # `a.dtype == b.dtype` checks; x.dtype is a fresh object, so no identity
                # shortcut applies); checked on every member pair first, undone with the hash
                if hasattr(C, "enum_eq_install"):
                    C.enum_eq_install(DTYPE_TYPE, members)
                return
        except Exception:  # noqa: BLE001 - the Python fallback below still applies
            pass
    fast = _fast_hash_candidate()
    if fast is not None:
        _HASH_SAVED.append(DTYPE_TYPE.__dict__["__hash__"])
        DTYPE_TYPE.__hash__ = fast


def _uninstall_fast_hash() -> None:
    if _HASH_SAVED:
        saved = _HASH_SAVED.pop()
        if saved is _C_HASH:
            _c_enum_hash().enum_hash_uninstall()
        else:
            DTYPE_TYPE.__hash__ = saved


_TEXT_SLOTS = ("__str__", "__repr__")


def install() -> None:
    if _saved_type_attrs:
        return
    for name, attr in TYPE_ATTRS.items():
        _saved_type_attrs[name] = DTYPE_TYPE.__dict__.get(name, _MISSING)
        if _saved_type_attrs[name] is not _MISSING:
            continue  # a future Paddle providing it keeps its own
        setattr(DTYPE_TYPE, name, attr)
    for name in _TEXT_SLOTS:  # Paddle's own (its type's or a base's) stays the unscoped side
        _saved_type_attrs[name] = DTYPE_TYPE.__dict__.get(name, _MISSING)
        setattr(DTYPE_TYPE, name, _scoped_text(name, getattr(DTYPE_TYPE, name)))
    _install_fast_hash()


def uninstall() -> None:
    for name, old in _saved_type_attrs.items():
        if old is _MISSING:
            try:
                delattr(DTYPE_TYPE, name)
            except AttributeError:
                pass
        elif name in _TEXT_SLOTS:
            setattr(DTYPE_TYPE, name, old)
    _saved_type_attrs.clear()
    _uninstall_fast_hash()


# -- conversion used by every adapter --------------------------------------------------------
def to_paddle(dtype):
    """A dtype argument of a torch call -> Paddle dtype (None stays None).

    torch accepts only torch.dtype objects; we also accept Paddle dtype names as strings and
    numpy dtypes because Paddle callers hand those to scoped code."""
    if dtype is None or type(dtype) is DTYPE_TYPE:
        return dtype
    if isinstance(dtype, DTYPE_TYPE):
        return dtype
    if isinstance(dtype, type) and dtype in _PY_TYPES:
        return _PY_TYPES[dtype]()
    try:
        return DTYPES[str(dtype).rsplit(".", 1)[-1]]
    except KeyError:
        raise TypeError(f"expected a torch.dtype, got {dtype!r}") from None


def _default_float():
    return DTYPES[paddle.get_default_dtype()]


_PY_TYPES = {float: _default_float, int: lambda: DTYPES["int64"], bool: lambda: DTYPES["bool"],
             complex: lambda: DTYPES["complex128"] if paddle.get_default_dtype() == "float64"
             else DTYPES["complex64"]}


@torch_function("torch.get_default_dtype")
def get_default_dtype():
    """torch: a dtype (Paddle: a string)."""
    return DTYPES[paddle.get_default_dtype()]


@torch_function("torch.set_default_dtype")
def set_default_dtype(d):
    d = to_paddle(d)
    n = torch_name(d)
    if n not in ("float32", "float64", "float16", "bfloat16"):
        # torch: "only floating-point types are supported as the default type"
        raise TypeError(f"only floating-point types are supported as the default type, got {n}")
    paddle.set_default_dtype(n)


@torch_function("torch.is_floating_point")
def is_floating_point(x) -> bool:
    return torch_name(x.dtype) in _FLOATING


@torch_function("torch.is_complex")
def is_complex(x) -> bool:
    return torch_name(x.dtype) in _COMPLEX


@torch_function("torch.is_tensor")
def is_tensor(obj) -> bool:
    return isinstance(obj, paddle.Tensor)


@torch_function("torch.promote_types")
def promote_types(a, b):
    """torch's promotion lattice: a float wins over any int (numpy would widen int32+float16
    to float64); bfloat16 + float16 -> float32; otherwise numpy's rules agree with torch."""
    import numpy as np
    na, nb = torch_name(to_paddle(a)), torch_name(to_paddle(b))
    rank = {"bool": 0, "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1}
    ka = 2 if na in _FLOATING else 3 if na in _COMPLEX else rank.get(na, 1)
    kb = 2 if nb in _FLOATING else 3 if nb in _COMPLEX else rank.get(nb, 1)
    if ka != kb and max(ka, kb) >= 2:
        hi, lo = (na, nb) if ka > kb else (nb, na)
        if max(ka, kb) == 3 and min(ka, kb) == 2 and _ITEMSIZE[lo] == 8:
            return DTYPES["complex128"]
        return DTYPES[hi]
    if {na, nb} == {"bfloat16", "float16"}:
        return DTYPES["float32"]
    if "bfloat16" in (na, nb):
        return DTYPES[nb if na == "bfloat16" else na] if (na, nb) != ("bfloat16", "bfloat16") \
            and _ITEMSIZE[nb if na == "bfloat16" else na] > 2 else DTYPES["bfloat16"]
    if "float8_e4m3fn" in (na, nb) or "float8_e5m2" in (na, nb):
        if na != nb:
            raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to "
                               f"promote {na} and {nb}")
        return DTYPES[na]
    return DTYPES[str(np.promote_types(na, nb))]


# float8 formats: (mantissa bits, exponent bias, largest finite value).  e4m3fn has no
# infinities, so its largest value uses the top exponent: 1.75 * 2**8.
_FLOAT8_FORMATS = {"float8_e4m3fn": (3, 7, 448.0), "float8_e5m2": (2, 15, 57344.0)}


def _float8_info(mantissa_bits, bias, largest):
    import math
    import types
    eps = 2.0 ** -mantissa_bits
    tiny = 2.0 ** (1 - bias)  # smallest normal
    return types.SimpleNamespace(bits=8, eps=eps, max=largest, min=-largest, tiny=tiny,
                                 smallest_normal=tiny,
                                 resolution=10.0 ** -math.floor(-math.log10(eps)))


class finfo:
    """torch.finfo: machine limits of a floating dtype (``dtype`` is the name, a str)."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=None):
        d = get_default_dtype() if type is None else to_paddle(type)
        n = torch_name(d)
        if n not in _FLOATING and n not in _COMPLEX:
            raise TypeError("torch.finfo() requires a floating point input type. "
                            "Use torch.iinfo to handle 'torch.finfo'")
        try:
            info = paddle.finfo(DTYPES[_TO_REAL.get(n, n)])
        except ValueError:
            # Paddle 3.0, 3.1 and 3.2 have the float8 dtypes but their paddle.finfo rejects them
            # (3.3 accepts them): the limits follow from the formats themselves
            if n not in _FLOAT8_FORMATS:
                raise
            info = _float8_info(*_FLOAT8_FORMATS[n])
        for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            setattr(self, attr, getattr(info, attr))
        self.dtype = _TO_REAL.get(n, n)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """torch.iinfo: limits of an integer dtype."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type):
        n = torch_name(to_paddle(type))
        if n in _FLOATING or n in _COMPLEX:
            raise TypeError("torch.iinfo() requires an integer input type. "
                            "Use torch.finfo to handle 'torch.iinfo'")
        if n == "bool":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = paddle.iinfo(DTYPES[n])
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), n

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


type_("torch.finfo", finfo)
type_("torch.iinfo", iinfo)


def require(name: str):
    """The Paddle dtype for a torch name, or NotProvidedError naming ``torch.<name>``."""
    try:
        return DTYPES[name]
    except KeyError:
        raise NotProvidedError(f"torch.{name}") from None


# torch's scalar-type names in kernel error messages ('"normal_kernel_cpu" not implemented for
# 'Long'')
LEGACY_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                "uint8": "Byte", "bool": "Bool", "float32": "Float", "float64": "Double",
                "float16": "Half", "bfloat16": "BFloat16", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble"}

# torch's C++ scalar names in matmul's dtype error ("float != double")
CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
             "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
