"""``torch.ops.aten``: a curated, declared table of ATen operators, not the whole dispatcher.

Real torch reaches every ATen operator (~2,500 overloads) through ``torch.ops.aten.<name>``.
The facade has no ATen dispatcher: each operator needs a function with that overload's exact
semantics (argument names and defaults, result dtype, in-place updates, views), and most
ATen overloads have no user-facing torch name whose semantics match.  So the facade serves
only the operators declared in :data:`ATEN` below, each with torch's schema string (copied
from torch 2.13; ``tests/facade_runtime/test_aten_ops.py`` compares every one with real
torch's) and the facade function that computes it.  Every other ``torch.ops.aten`` name, and
every overload of a listed operator that is not declared, raises ``NotProvidedError`` naming it.

The schema is the single source of the calling convention: a call binds its arguments to the
schema as torch's ``OpOverload`` does (positional, then keyword; keyword-only after ``*``;
defaults filled), converts each value as torch's parser does for its schema type (a packet
picks the first declared overload that accepts them, as torch's overload resolution does, e.g.
``_upsample_bilinear2d_aa(x, None, False, [2.0, 2.0])`` is the ``.vec`` overload), and calls
the implementation with the schema's argument names as keywords.
"""
from __future__ import annotations

import ast
import numbers
import re
from typing import NamedTuple

import paddle

from ..errors import NotProvidedError
from . import _aten_kernels as K


class Decl(NamedTuple):
    """One ATen operator: torch's overload names in torch's order (``overloads()``), and the
    declared ones: schema string -> the facade function computing it."""
    overloads: tuple
    impls: dict


# aten op name -> Decl.  What is here: the ATen operators torch's OpInfo database (op_db) calls
# directly (its only entries whose op is ``torch.ops.aten.*``, CPU ones), so the table is the
# set torch itself tests ATen-level callers against; add an operator with its schema, its
# implementation and a differential test (tests/facade_runtime/test_aten_ops.py).
ATEN: dict[str, Decl] = {
    "slice": Decl(("Tensor", "t", "str"), {
        "aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
        "SymInt step=1) -> Tensor(a)": K.slice_tensor,
    }),
    "_softmax_backward_data": Decl(("default", "out"), {
        "aten::_softmax_backward_data(Tensor grad_output, Tensor output, int dim, "
        "ScalarType input_dtype) -> Tensor": K.softmax_backward_data,
    }),
    "_safe_softmax": Decl(("default",), {
        "aten::_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor":
            K.safe_softmax,
    }),
    "native_dropout_backward": Decl(("default", "out"), {
        "aten::native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor":
            K.native_dropout_backward,
    }),
    "_batch_norm_with_update": Decl(("out", "default"), {
        "aten::_batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, "
        "Tensor(a!) running_mean, Tensor(b!) running_var, float momentum, float eps) -> "
        "(Tensor, Tensor, Tensor, Tensor)": K.batch_norm_with_update,
    }),
    "_upsample_bilinear2d_aa": Decl(("default", "vec", "out"), {
        "aten::_upsample_bilinear2d_aa(Tensor self, SymInt[2] output_size, bool align_corners, "
        "float? scales_h=None, float? scales_w=None) -> Tensor": K.upsample_bilinear2d_aa,
        "aten::_upsample_bilinear2d_aa.vec(Tensor input, SymInt[]? output_size, "
        "bool align_corners, float[]? scale_factors) -> Tensor": K.upsample_bilinear2d_aa_vec,
    }),
}


# -- schemas -----------------------------------------------------------------------------------
_HEAD = re.compile(r"^(\w+)::(\w+)(?:\.(\w+))?\((.*)\)\s*->\s*(.+)$")


class Arg(NamedTuple):
    name: str
    type: str         # as written, alias annotation removed: "Tensor?", "SymInt[2]"
    default: object   # _REQUIRED when none
    kwarg_only: bool
    alias: str        # "a", "a!" or ""


_REQUIRED = object()


def split_schema_args(text: str) -> list[str]:
    """A schema's argument list split at its top-level commas (not those inside ``[...]`` or
    ``(...)``); torch.library's schema checks use it too."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


def parse_schema(schema: str):
    """``(ns, name, overload, [Arg...], returns text)`` of a torch schema string."""
    m = _HEAD.match(schema)
    if m is None:
        raise ValueError(f"torchproxy: cannot parse the ATen schema {schema!r}")
    ns, name, overload, inner, ret = m.groups()
    args, kw_only = [], False
    for part in split_schema_args(inner):
        if part == "*":
            kw_only = True
            continue
        typ, _, rest = part.partition(" ")
        argname, _, default = rest.partition("=")
        alias = re.search(r"\(([a-z]!?)\)", typ)
        typ = re.sub(r"\([a-z]!?\)", "", typ)
        args.append(Arg(argname.strip(), typ, ast.literal_eval(default.strip()) if default
                        else _REQUIRED, kw_only, alias.group(1) if alias else ""))
    return ns, name, overload or "default", args, ret.strip()


_NO = object()  # a value the schema type does not take


def _scalar(v, integral: bool):
    """torch's parser reads a 0-d tensor where a number is asked (an integer one for int)."""
    if isinstance(v, paddle.Tensor) and v.ndim == 0:
        if integral and ("int" not in str(v.dtype) or "bool" in str(v.dtype)):
            return _NO
        return int(v) if integral else float(v)
    return v


def _convert(typ: str, v):
    """``v`` as torch's argument parser takes it for a schema type, or ``_NO``.  As lenient as
    torch's: bools for int and float, ints for bool and float, numpy scalars, 0-d tensors for
    numbers; a list's length is the kernel's check, not the parser's, and a single int is not
    a list (torch 2.13 refuses ``output_size=6`` for ``SymInt[2]``)."""
    if typ.endswith("?"):
        return None if v is None else _convert(typ[:-1], v)
    lst = re.match(r"^(\w+)\[(\d*)\]$", typ)
    if lst:
        elem = lst.group(1)
        if not isinstance(v, (list, tuple)):
            return _NO
        items = [_convert(elem, x) for x in v]
        return _NO if any(x is _NO for x in items) else items
    if typ == "Tensor":
        return v if isinstance(v, paddle.Tensor) else _NO
    if typ in ("int", "SymInt"):
        v = _scalar(v, True)
        return int(v) if isinstance(v, numbers.Integral) else _NO
    if typ == "float":
        v = _scalar(v, False)
        return float(v) if isinstance(v, numbers.Real) else _NO
    if typ == "bool":
        return bool(v) if isinstance(v, numbers.Integral) else _NO
    if typ == "ScalarType":
        return v if isinstance(v, type(paddle.float32)) else _NO
    raise ValueError(f"torchproxy: schema type {typ!r} has no argument check")


def _python_type(typ: str) -> str:
    """A schema type as torch's mismatch message writes it ('Optional[List[float]]')."""
    if typ.endswith("?"):
        return f"Optional[{_python_type(typ[:-1])}]"
    if typ.endswith("]"):
        return f"List[{_python_type(typ[:typ.index('[')])}]"
    return {"SymInt": "int", "ScalarType": "int"}.get(typ, typ)


def _type_name(v) -> str:
    return "Tensor" if isinstance(v, paddle.Tensor) else type(v).__name__


class _Mismatch(Exception):
    """The arguments do not fit one overload's schema (torch's message in args[0])."""


# -- the OpOverload / OpOverloadPacket look-alikes -------------------------------------------
class OpOverload:
    """``torch.ops.aten.<name>.<overload>``: torch's OpOverload surface (call, ``__name__``,
    ``str``/``repr``, ``name()``, ``overloadpacket``, ``_schema`` (the schema text),
    ``is_view``)."""

    def __init__(self, packet, schema: str, impl):
        ns, name, overload, args, ret = parse_schema(schema)
        self.namespace, self._opname, self._overloadname = ns, name, overload
        self._schema, self._args, self._impl = schema, args, impl
        self.overloadpacket = packet
        self.__name__ = f"{name}.{overload}"
        self.__qualname__ = self.__name__
        self.__module__ = "torch._ops.aten"
        self.__doc__ = impl.__doc__
        # torch: a view when some argument aliases the output without being written
        self.is_view = any(a.alias and not a.alias.endswith("!") for a in args)

    def name(self) -> str:
        return f"{self.namespace}::{self._opname}" + (
            "" if self._overloadname == "default" else f".{self._overloadname}")

    @property
    def op(self):
        return self

    def _bind(self, args, kwargs) -> dict:
        head = f"aten::{self._opname}()"
        positional = [a for a in self._args if not a.kwarg_only]
        if len(args) > len(positional):
            raise _Mismatch(f"{head} expected at most {len(positional)} argument(s) but "
                            f"received {len(args) + len(kwargs)} argument(s). Declaration: "
                            f"{self._schema}")
        names = {a.name for a in self._args}
        for k in kwargs:
            if k not in names:
                raise _Mismatch(f"Unknown keyword argument '{k}' for operator "
                                f"'aten::{self._opname}'. Schema: {self._schema}")
        bound = {}
        for i, a in enumerate(self._args):
            if i < len(args) and not a.kwarg_only:
                v = args[i]
            elif a.name in kwargs:
                v = kwargs[a.name]
            elif a.default is not _REQUIRED:
                v = a.default
            else:
                raise _Mismatch(f"{head} is missing value for argument '{a.name}'. "
                                f"Declaration: {self._schema}")
            c = _convert(a.type, v)
            if c is _NO:
                raise _Mismatch(f"{head} Expected a value of type '{_python_type(a.type)}' "
                                f"for argument '{a.name}' but instead found type "
                                f"'{_type_name(v)}'.\nPosition: {i}\nValue: {v!r}\n"
                                f"Declaration: {self._schema}")
            bound[a.name] = c
        return bound

    def __call__(self, *args, **kwargs):
        try:
            bound = self._bind(args, kwargs)
        except _Mismatch as e:
            raise RuntimeError(e.args[0]) from None
        return self._impl(**bound)

    def __str__(self):
        return f"{self.namespace}.{self._opname}.{self._overloadname}"

    def __repr__(self):
        return f"<OpOverload(op='{self.namespace}.{self._opname}', " \
               f"overload='{self._overloadname}')>"

    def __hash__(self):
        return id(self)


class OpOverloadPacket:
    """``torch.ops.aten.<name>``: its declared overloads as attributes (torch's names), the
    call resolved to the first declared overload that accepts the arguments."""

    def __init__(self, name: str, decl: Decl):
        self._name = name
        self.__name__ = self.__qualname__ = name
        self.__module__ = "torch._ops.aten"
        self._qualified_op_name = f"aten::{name}"
        self._overload_names = list(decl.overloads)
        self._ops = {}
        for schema, impl in decl.impls.items():
            o = OpOverload(self, schema, impl)
            self._ops[o._overloadname] = o

    def overloads(self) -> list[str]:
        return list(self._overload_names)

    @property
    def op(self):
        return self

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        ops = self.__dict__.get("_ops", {})
        if overload in ops:
            return ops[overload]
        if overload in self.__dict__.get("_overload_names", ()):
            raise NotProvidedError(f"torch.ops.aten.{self._name}.{overload}")
        raise AttributeError(f"The underlying op of 'aten.{self._name}' has no overload name "
                             f"'{overload}'")

    def __call__(self, *args, **kwargs):
        errors = []
        for o in self._ops.values():
            try:
                bound = o._bind(args, kwargs)
            except _Mismatch as e:
                errors.append(e.args[0])
                continue
            return o._impl(**bound)
        if len(self._overload_names) == 1:  # torch's message names the one schema
            raise RuntimeError(errors[0])
        raise RuntimeError("Overloaded torch operator invoked from Python failed to match any "
                           "schema:\n" + "\n\n".join(errors))

    def __str__(self):
        return f"aten.{self._name}"

    def __repr__(self):
        return f"<OpOverloadPacket(op='aten.{self._name}')>"

    def __dir__(self):
        return sorted(self._ops)


_PACKETS: dict[str, OpOverloadPacket] = {}


def packet(name: str) -> OpOverloadPacket | None:
    """The declared ``torch.ops.aten.<name>`` (one object per name, as torch caches it), or
    None when the table has no such operator."""
    if name not in _PACKETS:
        decl = ATEN.get(name)
        if decl is None:
            return None
        _PACKETS[name] = OpOverloadPacket(name, decl)
    return _PACKETS[name]
