"""Porting report: which torch names a package uses, and which the facade provides.

    from torchproxy.scan import scan
    report = scan("flashinfer")          # an importable package name, a directory, or a file
    report.summary, report.names, report.verdict

Static only: nothing of the package is imported or run (``torchproxy scan`` works before the
package's dependencies are even installed).  Provided-ness comes from the facade's own table
(see :mod:`torchproxy.scan.classify`).  Being static, "ready" means only that every torch name
the source spells, and every attribute it uses that is named like a torch Tensor / nn.Module
attribute, is provided; it cannot see crashes, numerical differences or names reached
dynamically at run time (``torchproxy.trace()`` and running the program can).
"""
from __future__ import annotations

import fnmatch
import importlib.machinery
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from . import cppscan, pyscan
from .classify import CAVEAT, MISSING, PROVIDED, STATIC_NOTE, Classifier
from .methods import COMMON_TENSOR_METHODS
from .torch_attrs import ATTRS as TORCH_CLASS_ATTRS

# attribute names of builtin types: `.index()`, `.copy()`, `.split()` on such receivers are far
# more common than on tensors, so they are never taken for torch-class attribute uses
_BUILTIN_ATTRS = frozenset(a for t in (list, str, dict, set, tuple, bytes, int, float, object)
                           for a in dir(t))
ATTR_NAMES = frozenset(a for names in TORCH_CLASS_ATTRS.values() for a in names) - _BUILTIN_ATTRS

SKIP_DIRS = {"__pycache__", ".git", ".hg", ".svn", "node_modules", ".tox", ".venv"}


@dataclass
class NameReport:
    name: str
    status: str
    note: str
    sites: list[str]                 # "path:line", sorted
    written: list[str] = field(default_factory=list)  # deeper names written below it

    def as_dict(self):
        return {"name": self.name, "status": self.status, "note": self.note,
                "uses": len(self.sites), "sites": self.sites, "written": self.written}


@dataclass
class Report:
    target: str
    root: str
    python_files: int
    cpp_files: int
    names: list[NameReport]
    cpp_includes: dict[str, list[str]]          # header -> sites
    registrations: list[dict]
    tensor_methods: list[dict]
    errors: list[str]
    exclude: list[str] = field(default_factory=list)
    cpp_symbols: list[dict] = field(default_factory=list)   # see cppscan.symbol_table
    # attributes used on receivers of unknown type, named like torch-class attributes the
    # facade lacks: {"name": "torch.Tensor.relu", "uses": n, "sites": [...], "note": ...}
    attributes: list[dict] = field(default_factory=list)

    @property
    def summary(self) -> dict:
        c = Counter(n.status for n in self.names)
        return {"used": len(self.names), PROVIDED: c[PROVIDED], CAVEAT: c[CAVEAT],
                MISSING: c[MISSING], "cpp_header_files": len({s.rsplit(":", 1)[0]
                                                              for v in self.cpp_includes.values()
                                                              for s in v})}

    def top_missing(self, n=10) -> list[NameReport]:
        miss = [x for x in self.names if x.status == MISSING]
        return sorted(miss, key=lambda x: (-len(x.sites), x.name))[:n]

    @property
    def verdict(self) -> str:
        s = self.summary
        if s["used"] == 0 and not self.cpp_includes:
            return "no torch use found: nothing to port"
        parts = []
        if s[MISSING]:
            top = ", ".join(x.name for x in self.top_missing(3))
            parts.append(f"blocked: {s[MISSING]} of {s['used']} torch names missing (most used: {top})")
        elif self.attributes:
            top = ", ".join(f".{a['name'].rsplit('.', 1)[1]} ({a['name']})"
                            for a in self.attributes[:3])
            parts.append(f"not ready: all {s['used']} torch names provided, but "
                         f"{len(self.attributes)} attribute names used on receivers of unknown "
                         f"type are torch attributes the facade lacks ({top}): the program "
                         "fails where those receivers are tensors or modules")
        else:
            parts.append(f"ready (static check): all {s['used']} torch names provided"
                         + (f" ({s[CAVEAT]} with caveats)" if s[CAVEAT] else ""))
        if self.cpp_includes:
            parts.append(f"C++ includes torch headers in {s['cpp_header_files']} files "
                         "(needs libtorch; not providable by the facade)")
        return "; ".join(parts)

    def as_dict(self) -> dict:
        return {"target": self.target, "root": self.root, "exclude": self.exclude,
                "files": {"python": self.python_files, "cpp": self.cpp_files},
                "summary": self.summary, "verdict": self.verdict,
                "names": [n.as_dict() for n in self.names],
                "cpp_includes": [{"header": h, "sites": s}
                                 for h, s in sorted(self.cpp_includes.items())],
                "registrations": self.registrations,
                "tensor_methods": self.tensor_methods,
                "cpp_symbols": self.cpp_symbols,
                "attributes_missing": self.attributes,
                "static": STATIC_NOTE,
                "errors": self.errors}


def locate(target: str) -> str:
    """A path as is; otherwise an importable package name -> its directory (not imported)."""
    if os.path.exists(target):
        return os.path.abspath(target)
    top, _, rest = target.partition(".")
    spec = importlib.machinery.PathFinder.find_spec(top)
    if spec is None:
        raise FileNotFoundError(f"{target!r} is neither a path nor an installed package")
    if spec.submodule_search_locations:
        base = list(spec.submodule_search_locations)[0]
    else:
        return spec.origin
    path = os.path.join(base, *rest.split(".")) if rest else base
    if not os.path.exists(path) and os.path.exists(path + ".py"):
        path += ".py"
    if not os.path.exists(path):
        raise FileNotFoundError(f"{target!r}: no such module under {base}")
    return path


def _excluded(rel: str, exclude) -> bool:
    rel = rel.replace(os.sep, "/")
    return any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(rel, pat.rstrip("/") + "/*")
               for pat in exclude)


def _files(root: str, exclude=()):
    if os.path.isfile(root):
        yield root, os.path.basename(root)
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for f in sorted(filenames):
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, root)
            if not _excluded(rel, exclude):
                yield full, rel


def scan(target: str, classifier: Classifier | None = None, include_cpp: bool = True,
         exclude=()) -> Report:
    """Scan ``target``; ``exclude`` holds glob patterns of paths relative to it
    (``"data/*"`` skips a vendored tree)."""
    root = locate(target)
    clf = classifier or Classifier()
    methods = frozenset(COMMON_TENSOR_METHODS) | {
        k.rsplit(".", 1)[1] for k in clf.tensor_table}
    uses, regs, calls, errors, attr_uses = [], [], [], [], []
    includes: dict[str, list[str]] = defaultdict(list)
    symbols: list = []
    n_py = n_cpp = 0
    for full, rel in _files(root, exclude):
        if full.endswith(".py"):
            n_py += 1
            with open(full, encoding="utf-8", errors="replace") as f:
                fs = pyscan.scan_source(f.read(), rel, methods, ATTR_NAMES)
            if fs.error:
                errors.append(f"{rel}: {fs.error}")
            uses += fs.uses
            attr_uses += fs.attr_uses
            regs += fs.registrations
            calls += fs.method_calls
        elif include_cpp and full.endswith(cppscan.SUFFIXES):
            n_cpp += 1
            with open(full, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for inc in cppscan.scan_source(text, rel):
                includes[inc.header].append(f"{inc.path}:{inc.line}")
            symbols += cppscan.scan_symbols(text, rel)

    own_ns = frozenset(r.op.split("::")[0] for r in regs)
    grouped: dict[str, NameReport] = {}
    for u in uses:
        v = clf.classify(u.name, own_ns)
        rep = grouped.get(v.name)
        if rep is None:
            rep = grouped[v.name] = NameReport(v.name, v.status, v.note, [])
        rep.sites.append(f"{u.path}:{u.line}" + (" (probe)" if u.how == "probe" else ""))
        if u.name != v.name and u.name not in rep.written:
            rep.written.append(u.name)
    for rep in grouped.values():
        rep.sites = sorted(set(rep.sites), key=_site_key)
        rep.written.sort()

    return Report(
        target=target, root=root, python_files=n_py, cpp_files=n_cpp, exclude=list(exclude),
        names=sorted(grouped.values(), key=lambda r: r.name),
        cpp_includes={h: sorted(set(s), key=_site_key) for h, s in includes.items()},
        registrations=[{"api": r.api, "op": r.op, "site": f"{r.path}:{r.line}"} for r in regs],
        tensor_methods=_methods(calls, clf),
        errors=errors,
        cpp_symbols=cppscan.symbol_table(symbols, includes) if (symbols or includes) else [],
        attributes=_missing_attributes(attr_uses, clf),
    )


def _missing_attributes(attr_uses, clf: Classifier) -> list[dict]:
    sites: dict[str, list[str]] = defaultdict(list)
    for attr, path, line in attr_uses:
        sites[attr].append(f"{path}:{line}")
    out = []
    for attr, where in sites.items():
        classes = [c for c, names in TORCH_CLASS_ATTRS.items() if attr in names]
        v = clf.class_attr(attr, classes)
        if v.status == MISSING:
            out.append({"name": v.name, "uses": len(where), "note": v.note,
                        "sites": sorted(set(where), key=_site_key)})
    return sorted(out, key=lambda a: (-a["uses"], a["name"]))


def _site_key(site: str):
    path, _, rest = site.partition(":")
    line = rest.split(" ")[0]
    return (path, int(line) if line.isdigit() else 0, site)


def _methods(calls, clf: Classifier) -> list[dict]:
    counts = Counter(m for m, _, _ in calls)
    out = []
    for m, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        v = clf.tensor_attr(m)
        out.append({"name": m, "calls": n, "status": v.status, "note": v.note})
    return out


__all__ = ["scan", "locate", "Report", "NameReport", "Classifier", "PROVIDED", "CAVEAT", "MISSING"]
