"""Compare a chain's facade record with the oracle's (real torch), by failure class.

Where torchproxy/facade/gaps.toml documents that the facade differs, the comparison follows the
documented behaviour for exactly the ops the entry names (``DOCUMENTED``), and says so: every
excluded or relaxed check is counted under the gaps.toml key that allows it (``Outcome.excused``).
A relaxation applies only while its key is in gaps.toml (read at each run): removing the entry
re-enables the check.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np

from viewchains import apply, root_expr

GAPS_TOML = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "torchproxy",
                         "facade", "gaps.toml")

# gaps.toml keys the comparison relies on, and what each one changes
EXPAND_COPIES = "torch.expand (zero stride)"
VIEW_NONCONTIG_26 = "torch.Tensor.view (non-contiguous, Paddle 2.6)"
VIEW_DTYPE_26 = "torch.Tensor.view (dtype, Paddle 2.6)"
ZERO_SIZE_STRIDE = "torch.Tensor.stride (transposed 0-size)"
# not a gaps.toml entry: torch's own rule (writes through self-overlapping views that torch
# accepts happen in an unspecified order), so the write part has no reference result
OVERLAP_ORDER = "torch: write order through a self-overlapping view is unspecified"
# view_as_real / .real / .imag of a non-contiguous complex tensor on Paddle 2.6: a copy with
# torch's values and contiguous strides; in-place writes into it raise RuntimeError
AS_REAL_COPIES_26 = "torch.view_as_real (non-contiguous, Paddle 2.6)"
# a size-1 dim inserted by None indexing gets Paddle's stride (no addressed element differs)
GETITEM_NONE = "torch.Tensor.__getitem__ (None)"
DOCUMENTED = (EXPAND_COPIES, VIEW_NONCONTIG_26, VIEW_DTYPE_26, ZERO_SIZE_STRIDE, AS_REAL_COPIES_26,
              GETITEM_NONE)
_NONE_INDEX = re.compile(r"^\{\}\[.*\bNone\b.*\]$")
_AS_REAL_OP = re.compile(r"view_as_real\(|\.real$|\.imag$")

# ops that the expand gap covers (Tensor.expand, Tensor.expand_as: the same facade function)
_EXPAND_OP = re.compile(r"\.expand(_as)?\(")
# after a copy, ops that read the layout (strides / storage) of their input give other values or
# other errors than on torch's zero-stride view: only crashes are checked for such chains
_LAYOUT_READING = re.compile(r"\.as_strided\(|view_as_complex\(|\.view\(")

CLASSES = ("crash", "error type", "facade raises", "facade accepts", "shape/dtype", "layout",
           "values", "write not reaching base", "write mismatch", "grad mismatch", "message")


def gaps_keys() -> set:
    keys = set()
    with open(GAPS_TOML) as f:
        for line in f:
            m = re.match(r'\s*"([^"]+)"\s*=', line)
            if m:
                keys.add(m.group(1))
    return keys


def documented_relaxations() -> set:
    """The relaxations whose gaps.toml entry exists now: a removed entry re-enables its check."""
    keys = gaps_keys()
    return {k for k in DOCUMENTED if k in keys}


@dataclass
class Outcome:
    failures: list = field(default_factory=list)   # (class, detail)
    excused: list = field(default_factory=list)    # gaps.toml keys that relaxed a check

    @property
    def ok(self):
        return not self.failures


def chain_steps(torch, chain):
    """[(template, torch tensor before the op)] by replaying the chain on real torch."""
    base = eval(root_expr(chain["dtype"], chain["shape"]), {"torch": torch})
    t = eval(apply(chain["input"], "_t"), {"torch": torch, "_t": base})
    steps = []
    for op in chain["ops"]:
        steps.append((op, t))
        try:
            t = eval(apply(op, "_t"), {"torch": torch, "_t": t})
        except Exception:  # noqa: BLE001 - the last op may be one torch refuses
            return steps, None
    return steps, t


def overlaps_itself(t) -> bool:
    """Do two elements of t share a memory location?  torch refuses in-place writes only when a
    stride is 0 and otherwise writes them in an order it does not define, so a write through
    such a view has no reference result."""
    if t is None or t.numel() < 2:
        return False
    import itertools
    offsets = set()
    for idx in itertools.product(*(range(s) for s in t.shape)):
        off = sum(i * st for i, st in zip(idx, t.stride()))
        if off in offsets:
            return True
        offsets.add(off)
    return False


def _exc_matches(oracle_rec, facade_rec):
    return oracle_rec[1][0] in facade_rec[1]


def _same_data(e, a, tol=None):
    """e, a: (dtype, shape, numpy dtype, bytes).  Bitwise unless tol=(rtol, atol)."""
    if e[:3] != a[:3]:
        return False
    if tol is None or e[2] in ("bool",) or not e[2].startswith(("float", "complex")):
        return e[3] == a[3]
    ea = np.frombuffer(e[3], dtype=e[2])
    aa = np.frombuffer(a[3], dtype=a[2])
    return bool(np.allclose(aa, ea, rtol=tol[0], atol=tol[1], equal_nan=True))


GRAD_TOL = {"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2)}


def _dense(t) -> bool:
    """Row-major strides exactly, size-1 dims included (Paddle's contiguity; torch's
    is_contiguous() ignores the stride of a size-1 dim)."""
    return tuple(t.stride()) == _contiguous_strides(tuple(t.shape))


def _contiguous_strides(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def compare(torch, chain, oracle, facade, flags, gaps=None) -> Outcome:
    """oracle/facade: run_chain records; flags: the child's paddle_shims feature flags;
    gaps: the DOCUMENTED keys present in gaps.toml (default: read it now)."""
    gaps = documented_relaxations() if gaps is None else gaps
    out = Outcome()
    steps, last = chain_steps(torch, chain)
    order_undefined = overlaps_itself(last) and oracle["write"][0] == "ok"
    copies = []  # (step index, gaps.toml key) of documented copies
    if EXPAND_COPIES in gaps:
        copies += [(i, EXPAND_COPIES) for i, (op, _) in enumerate(steps) if _EXPAND_OP.search(op)]
    if AS_REAL_COPIES_26 in gaps and flags.get("paddle_major") == 2:
        copies += [(i, AS_REAL_COPIES_26) for i, (op, before) in enumerate(steps)
                   if _AS_REAL_OP.search(op) and before.is_complex() and not _dense(before)]
    copy_at, copy_key = min(copies) if copies else (None, None)
    layout_after_copy = copy_at is not None and any(
        _LAYOUT_READING.search(op) for op, _ in steps[copy_at + 1:])
    if layout_after_copy:
        out.excused.append(copy_key)
        return out  # only crashes (found by the caller) count for this chain
    # Paddle 2.6: documented RuntimeErrors for view() of a non-contiguous input / view(dtype)
    refused_26 = None
    for op, before in steps:
        if VIEW_NONCONTIG_26 in gaps and flags.get("AS_STRIDED_NEEDS_CONTIGUOUS") and re.match(r"^\{\}\.view\((?!torch\.)", op) \
                and not before.is_contiguous():
            refused_26 = VIEW_NONCONTIG_26
            break
        m = re.match(r"^\{\}\.view\(torch\.(\w+)\)$", op)
        if m and VIEW_DTYPE_26 in gaps and not flags.get("HAS_VIEW_DTYPE") and str(before.dtype).split(".")[-1] != m.group(1):
            refused_26 = VIEW_DTYPE_26
            break

    for part in ("view", "write", "grad"):
        e, a = oracle[part], facade[part]
        if e[0] == "n/a":
            continue
        if part == "write" and copy_key == EXPAND_COPIES:
            out.excused.append(EXPAND_COPIES)
            continue
        if part == "write" and copy_key == AS_REAL_COPIES_26 and e[0] == "ok" and a[0] == "err" \
                and "RuntimeError" in a[1]:
            out.excused.append(AS_REAL_COPIES_26)  # the documented refusal
            continue
        if part == "write" and order_undefined:
            out.excused.append(OVERLAP_ORDER)
            continue
        if refused_26 and a[0] == "err" and "RuntimeError" in a[1]:
            out.excused.append(refused_26)
            continue
        if e[0] == "err" and a[0] == "err":
            if not _exc_matches(e, a):
                out.failures.append(("error type", f"{part}: torch {e[1][0]}: {e[2]} / "
                                                   f"facade {a[1][0]}: {a[2]}"))
            elif e[2] != a[2]:
                out.failures.append(("message", f"{part}: torch: {e[2]} / facade: {a[2]}"))
            continue
        if e[0] == "err":
            out.failures.append(("facade accepts", f"{part}: torch {e[1][0]}: {e[2]}"))
            continue
        if a[0] == "err":
            out.failures.append(("facade raises", f"{part}: {a[1][0]}: {a[2]}"))
            continue
        if part == "view":
            none_index = GETITEM_NONE in gaps and any(_NONE_INDEX.match(op) for op, _ in steps)
            _compare_view(e[1], a[1], copy_key, ZERO_SIZE_STRIDE in gaps, none_index, out)
        elif part == "write":
            _compare_write(e[1], a[1], out)
        else:
            _compare_grad(e[1], a[1], out)
    return out


def _compare_view(e, a, copy_key, zero_size_documented, none_index, out):
    if e["data"][:2] != a["data"][:2]:
        out.failures.append(("shape/dtype", f"torch {e['data'][:2]} facade {a['data'][:2]}"))
        return
    if copy_key:
        out.excused.append(copy_key)
    else:
        el = (e["stride"], e["offset"], e["contiguous"])
        al = (a["stride"], a["offset"], a["contiguous"])
        if el != al:
            shape = e["data"][1]
            zero = zero_size_documented and 0 in shape and a["stride"] == _contiguous_strides(shape) and el[1:] == al[1:]
            if zero:
                out.excused.append(ZERO_SIZE_STRIDE)
            elif none_index and _layout_kind(shape, el, al) == "size-1 strides":
                out.excused.append(GETITEM_NONE)
            else:
                out.failures.append(("layout", f"[{_layout_kind(shape, el, al)}] "
                                               f"stride/offset/contiguous torch {el} facade {al}"))
    if not _same_data(e["data"], a["data"]):
        out.failures.append(("values", "view values differ"))


def _layout_kind(shape, el, al):
    """Which part of the layout differs: 'offset' (storage_offset only), 'size-1 strides'
    (strides differ only where the size is 0 or 1, which torch fixes by convention),
    'contiguity' (is_contiguous() only), else 'strides'."""
    (es, eo, ec), (as_, ao, ac) = el, al
    kinds = []
    if es != as_:
        if len(es) == len(as_) and all(s <= 1 for s, x, y in zip(shape, es, as_) if x != y):
            kinds.append("size-1 strides")
        else:
            kinds.append("strides")
    if eo != ao:
        kinds.append("offset")
    if ec != ac:
        kinds.append("contiguity")
    return "+".join(kinds)


def _compare_write(e, a, out):
    if not _same_data(e["base"], a["base"]):
        lost = a["base"] == a["base0"] and e["base"] != e["base0"]
        out.failures.append(("write not reaching base" if lost else "write mismatch",
                             "base after v.copy_(pattern) differs"))
    if not _same_data(e["v"], a["v"]):
        out.failures.append(("write mismatch", "v after v.copy_(pattern) differs"))


def _compare_grad(e, a, out):
    if set(e) != set(a):
        out.failures.append(("grad mismatch", f"leaves torch {sorted(e)} facade {sorted(a)}"))
        return
    for leaf in e:
        if (e[leaf] is None) != (a[leaf] is None):
            def show(g):
                return "None" if g is None else "a tensor"
            out.failures.append(("grad mismatch", f"{leaf}.grad torch {show(e[leaf])} "
                                                  f"facade {show(a[leaf])}"))
        elif e[leaf] is not None and not _same_data(e[leaf], a[leaf],
                                                    GRAD_TOL.get(e[leaf][0], (1e-6, 1e-6))):
            out.failures.append(("grad mismatch", f"{leaf}.grad differs"))
