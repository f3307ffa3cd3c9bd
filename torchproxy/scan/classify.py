"""Provided / provided with caveats / missing: decided by the facade's own table.

The single source of truth is :func:`torchproxy.facade.registry.load_table` (``TABLE`` and
``TENSOR_TABLE``), plus the gaps ledger ``torchproxy/facade/gaps.toml`` for caveats.  A name is
resolved the way the facade module tree resolves it at run time: walk ``torch.a.b.c`` prefix
by prefix; a module entry (or a prefix that has entries below it) is walked into; any other
entry is the name (``torch.float16.itemsize`` is a use of ``torch.float16``); the first prefix
that is neither is what raises ``NotProvidedError`` at run time, so that is the missing name
(deeper names used below it are kept as detail).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

PROVIDED, CAVEAT, MISSING = "provided", "caveat", "missing"
STATIC_NOTE = ("static check: nothing is imported or run, so crashes, numerical differences and "
               "names reached dynamically (getattr with computed names, attributes of objects "
               "that calls return) are not seen; torchproxy.trace() around a real run records "
               "what the program touches")
GAPS_FILE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "facade", "gaps.toml")


@dataclass(frozen=True)
class Verdict:
    name: str      # the name as the facade sees it (may be a prefix of what was written)
    status: str    # PROVIDED | CAVEAT | MISSING
    note: str = ""


def load_gaps(path: str = GAPS_FILE) -> dict[str, str]:
    """``"torch.name" = "reason"`` entries from the gaps ledger, in any table of it.

    A key may carry a qualifier, ``"torch.uint32 (Paddle 3.x CPU)"``: the name is provided but
    that aspect differs; it counts for ``torch.uint32`` with the qualifier kept in the reason."""
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        data = f.read()
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the ledger is flat key = "string" lines
        raw = _parse_flat_toml(data.decode("utf-8"))
    else:
        raw = {}

        def walk(table):
            for k, v in table.items():
                if isinstance(v, dict):
                    walk(v)
                elif isinstance(k, str) and k.startswith("torch"):
                    raw[k] = v if isinstance(v, str) else str(v)
        walk(tomllib.loads(data.decode("utf-8")))
    out: dict[str, str] = {}
    for key, reason in raw.items():
        name, _, qual = key.partition(" ")
        text = f"{qual.strip()}: {reason}" if qual.strip() else reason
        out[name] = f"{out[name]}; {text}" if name in out else text
    return out


_FLAT = re.compile(r'^\s*"(torch[^"]*)"\s*=\s*"((?:[^"\\]|\\.)*)"', re.MULTILINE)


def _parse_flat_toml(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2).replace('\\"', '"') for m in _FLAT.finditer(text)}


class Classifier:
    def __init__(self, table=None, tensor_table=None, gaps=None, paddle_tensor=None,
                 aliases=None):
        real = table is None
        if table is None or tensor_table is None:
            from ..facade import registry
            registry.load_table()
            table = registry.TABLE if table is None else table
            tensor_table = registry.TENSOR_TABLE if tensor_table is None else tensor_table
        self.table = table
        self.tensor_table = tensor_table
        self.gaps = load_gaps() if gaps is None else gaps
        if paddle_tensor is None:
            import paddle
            paddle_tensor = paddle.Tensor
        self.paddle_tensor = paddle_tensor
        # every proper prefix of a registered name is a module of the tree (modules.py
        # creates parents on demand), whether or not it has its own "module" entry
        self.parents = set()
        # torch's other paths of a provided object, bound when the tree is built
        # (layout.apply: torch.autocast is torch.amp.autocast); torch's layout is that of the
        # real table, so a table given here has only the aliases given with it
        if aliases is None and real:
            from ..facade import layout
            aliases = layout.aliases(table)
        self.aliases = aliases or {}
        for name in list(table) + list(tensor_table) + list(self.aliases):
            parts = name.split(".")
            for i in range(1, len(parts)):
                self.parents.add(".".join(parts[:i]))

    # -- one entry -------------------------------------------------------------------------
    def _from_entry(self, name: str, note: str) -> Verdict:
        gap = self.gaps.get(name)
        if note or gap:
            return Verdict(name, CAVEAT, "; ".join(x for x in (note, gap) if x))
        return Verdict(name, PROVIDED)

    def _missing(self, name: str, why: str = "") -> Verdict:
        gap = self.gaps.get(name)
        return Verdict(name, MISSING, gap or why)

    def tensor_attr(self, attr: str) -> Verdict:
        """``torch.Tensor.<attr>``: the facade's TENSOR_TABLE, else Paddle's own attribute."""
        full = f"torch.Tensor.{attr}"
        entry = self.tensor_table.get(full)
        if entry is not None:
            return self._from_entry(full, entry.note)
        if full in self.table:
            return self._from_entry(full, self.table[full].note)
        if hasattr(self.paddle_tensor, attr):
            return Verdict(full, CAVEAT, self.gaps.get(full)
                           or f"Paddle's own Tensor.{attr} (torch semantics not checked)")
        return self._missing(full)

    def class_attr(self, attr: str, classes) -> Verdict:
        """An attribute used on a receiver of unknown type, named like an attribute of the torch
        ``classes`` that have it (``torch.Tensor``, ``torch.nn.Module``): provided when the
        facade has it on one of them, else MISSING (named after the first class)."""
        first = None
        for cls in classes:
            if cls == "torch.Tensor":
                v = self.tensor_attr(attr)
            else:
                v = self._type_attr(cls, attr)
            if v.status != MISSING:
                return v
            first = first or v
        return first

    def _type_attr(self, cls: str, attr: str) -> Verdict:
        full = f"{cls}.{attr}"
        entry = self.table.get(cls)
        if entry is None or entry.kind != "type":
            return self._missing(full, f"{cls} is not provided")
        if hasattr(entry.impl, attr) or hasattr(self._instance(cls, entry.impl), attr):
            return self._from_entry(full, "")
        return self._missing(full, f"not an attribute of the facade's {cls}")

    def _instance(self, cls: str, impl):
        # attributes a default instance sets in __init__ (nn.Module's `training`)
        cache = self.__dict__.setdefault("_instances", {})
        if cls not in cache:
            try:
                cache[cls] = impl()
            except Exception:  # a class that needs arguments: its class attributes only
                cache[cls] = None
        return cache[cls]

    def classify(self, name: str, own_op_namespaces=frozenset()) -> Verdict:
        parts = name.split(".")
        if parts[0] != "torch":
            raise ValueError(f"not a torch name: {name!r}")
        if len(parts) >= 4 and parts[1] == "ops":
            return self._op(parts, own_op_namespaces)
        for i in range(2, len(parts) + 1):
            prefix = ".".join(parts[:i])
            entry = self.table.get(prefix)
            if entry is None and prefix in self.aliases:
                entry = self.table[self.aliases[prefix]]
            if entry is not None and entry.kind != "module":
                if prefix == "torch.Tensor" and i < len(parts):
                    return self.tensor_attr(parts[i])
                if entry.kind == "type" and i < len(parts) and not hasattr(entry.impl, parts[i]):
                    # an attribute of a facade class that the class does not have
                    # (`torch.device.cuda`: a Paddle-ism, not torch): AttributeError at run time
                    return self._missing(f"{prefix}.{parts[i]}",
                                         f"not an attribute of the facade's {prefix}")
                return self._from_entry(prefix, entry.note)
            if entry is not None or prefix in self.parents:
                continue  # a module of the tree: walk into it
            return self._missing(prefix)
        entry = self.table.get(name) or self.table.get(self.aliases.get(name, ""))
        return self._from_entry(name, entry.note if entry else "")

    def _op(self, parts, own_op_namespaces) -> Verdict:
        """``torch.ops.<ns>.<op>``: an exact table entry, or an op the package registers."""
        full = ".".join(parts[:4])
        entry = self.table.get(full)
        if entry is not None:
            return self._from_entry(full, entry.note)
        ns = parts[2]
        if ns in own_op_namespaces:
            ops = self.classify("torch.ops")
            if ops.status == MISSING:
                return self._missing(full, "torch.ops is not provided")
            return Verdict(full, CAVEAT, self.gaps.get(full) or
                           f"registered by the package itself (torch.library) under {ns}::")
        return self._missing(full, "" if ns != "aten" else "aten ops are not in the facade table")
