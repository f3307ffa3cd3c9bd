"""Per-op value tolerances: the checked-in table ``tolerances.txt``.

torch's own OpInfo tests keep these as ``DecorateInfo(toleranceOverride({dtype: tol(atol,
rtol)}), ...)`` on the op; torchax keeps a table beside its OpInfo test.  Here the table is a
text file, one entry a line, every entry with its reason:

    addbmm  float32  rtol=1e-5 atol=1e-5 max_rtol=1e-6  <why>

- the key: an OpInfo name (``name[.variant_test_name]``: every variant of the op, since they
  share the kernel), one variant id (``addbmm::method``), or a ModuleInfo id (``nn.Conv3d``);
  a variant id wins over its op's entry;
- the dtype of the result the tolerance applies to (``float32``, ``float64``, ``complex64``...);
- ``rtol`` / ``atol`` as in ``numpy.isclose`` (and torch's ``tol``), and ``max_rtol``: a part
  of the absolute tolerance relative to the largest finite ``|value|`` of torch's result tensor.
  An element of a sum of products (matmul, conv, matrix_exp) carries a rounding error of a few
  ulps of its largest *terms*, not of its own value: where terms cancel, the element is small
  and its error is not, and which rounding a CPU makes (FMA or not, summation blocking, vector
  width) is the CPU's choice.  ``max_rtol`` states that error bound without loosening the
  comparison of the large elements.

An element passes when ``|facade - torch| <= atol + rtol * |torch| + max_rtol * max|torch|``.
Entries are for results whose rounding depends on the CPU's instruction set or on the kernel's
summation order; a facade that computes something else must stay a ledger line instead.
"""
from __future__ import annotations

import os
import re
from typing import NamedTuple

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "tolerances.txt")

# (rtol, atol) per result dtype when the table has no entry.  torch.testing's defaults are
# float32 1.3e-6/1e-5 and float64 1e-7/1e-7 for comparing a kernel with itself; the two sides
# here are different kernels (summation order, vectorised transcendental approximations), so
# float32's rtol is 1e-5.
DEFAULTS = {
    "float32": (1e-5, 1e-5), "complex64": (1e-5, 1e-5),
    "float64": (1e-7, 1e-7), "complex128": (1e-7, 1e-7),
    "float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2),
}


class Tol(NamedTuple):
    rtol: float
    atol: float
    max_rtol: float = 0.0


class Entry(NamedTuple):
    key: str
    dtype: str
    tol: Tol
    reason: str
    line: int


_LINE = re.compile(r"^(\S+)\s+(\S+)\s+((?:(?:rtol|atol|max_rtol)=\S+\s+)+)(.*)$")


def read(path: str = TABLE) -> dict[tuple[str, str], Entry]:
    out: dict[tuple[str, str], Entry] = {}
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            s = raw.rstrip("\n")
            if not s.strip() or s.lstrip().startswith("#"):
                continue
            m = _LINE.match(s)
            if not m:
                raise ValueError(f"{path}:{n}: not '<op> <dtype> rtol=.. atol=.. [max_rtol=..] <reason>': {s!r}")
            key, dtype, fields, reason = m.group(1), m.group(2), m.group(3).split(), m.group(4).strip()
            vals = dict(f.split("=", 1) for f in fields)
            if "rtol" not in vals or "atol" not in vals:
                raise ValueError(f"{path}:{n}: rtol= and atol= are required")
            if not reason:
                raise ValueError(f"{path}:{n}: an entry needs its reason")
            if (key, dtype) in out:
                raise ValueError(f"{path}:{n}: {key} {dtype} is listed twice")
            tol = Tol(float(vals["rtol"]), float(vals["atol"]), float(vals.get("max_rtol", 0)))
            base = DEFAULTS.get(dtype)
            if base is not None and tol.rtol < base[0] and tol.atol < base[1] and not tol.max_rtol:
                raise ValueError(f"{path}:{n}: tighter than the default {base}: the table only loosens")
            out[(key, dtype)] = Entry(key, dtype, tol, reason, n)
    return out


_table: dict | None = None


def table() -> dict[tuple[str, str], Entry]:
    global _table
    if _table is None:
        _table = read()
    return _table


def default(dtype: str) -> Tol:
    return Tol(*DEFAULTS.get(dtype, (1e-5, 1e-5)))


def for_keys(keys: tuple[str, ...]):
    """``dtype -> Tol`` for a variant known by ``keys`` (most specific first)."""
    t = table()

    def get(dtype: str) -> Tol:
        for k in keys:
            e = t.get((k, dtype))
            if e is not None:
                return e.tol
        return default(dtype)
    get.untabled = default  # what the variant is judged by without the table
    return get


def entries_for(keys: tuple[str, ...]) -> list[Entry]:
    t = table()
    return [e for (k, _), e in t.items() if k in keys]
