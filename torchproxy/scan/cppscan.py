"""Static scan of C++/CUDA sources for torch's C++ API, and what Paddle's compat headers provide.

``#include <torch/extension.h>``, ``<ATen/...>``, ``<c10/...>`` mean the extension is built
against torch's C++ API.  Paddle >= 3.3 ships a torch-compatible subset of it
(``paddle/include/paddle/phi/api/include/compat/``), which torchproxy builds against
(``torch.utils.cpp_extension``).  :func:`scan_symbols` lists the ``at::`` / ``torch::`` /
``c10::`` names and the ``TORCH_*`` / ``AT_*`` / ``C10_*`` macros a source uses;
:class:`CompatHeaders` parses the installed Paddle's compat headers (plus torchproxy's own,
``torchproxy/include``) and says which of them are declared there.

The header check is lexical (no preprocessor, no overload or template resolution): a
qualified name counts as provided when its last component is declared in the compat headers
(class / struct / enum / function / alias / variable / enumerator / ``using`` re-export) and
its namespace path exists there; a macro when the headers ``#define`` it; a header when the
file exists.  Tensor *methods* (``x.sigmoid()``) are not resolved statically.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".inl")

# the torch C++ include roots: torch/, ATen/, c10/, caffe2/ (and THC/ in old code)
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]((?:torch|ATen|c10|caffe2|THC)/[^>"]+)[>"]',
                      re.MULTILINE)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_QUALIFIED = re.compile(r"(?<![\w:])((?:at|torch|c10)(?:::[A-Za-z_]\w*)+)")
_MACRO = re.compile(r"(?<![\w])((?:TORCH|AT|C10)_[A-Z0-9_]+)\s*\(")


@dataclass(frozen=True)
class Include:
    header: str   # "torch/extension.h"
    path: str
    line: int


@dataclass(frozen=True)
class Symbol:
    name: str     # "at::Tensor", "TORCH_CHECK"
    kind: str     # "name" or "macro"
    path: str
    line: int


def scan_source(text: str, path: str) -> list[Include]:
    out = []
    for m in _INCLUDE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out.append(Include(m.group(1), path, line))
    return out


def _strip(text: str) -> str:
    """Comments and string literals blanked (newlines kept, so line numbers stay)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return _STRING.sub(blank, _COMMENT.sub(blank, text))


def scan_symbols(text: str, path: str) -> list[Symbol]:
    code = _strip(text)
    out = []
    for m in _QUALIFIED.finditer(code):
        name = m.group(1)
        out.append(Symbol(name, "name", path, code.count("\n", 0, m.start()) + 1))
    for m in _MACRO.finditer(code):
        if re.match(r"\s*#\s*define\s", code[code.rfind("\n", 0, m.start()) + 1:m.start()]):
            continue  # the source defines it itself
        out.append(Symbol(m.group(1), "macro", path, code.count("\n", 0, m.start()) + 1))
    return out


def defined_macros(text: str) -> set[str]:
    return set(re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)", text, re.MULTILINE))


# -- the compat headers ---------------------------------------------------------------------------
_DECL_PATTERNS = [
    re.compile(r"\b(?:class|struct|union|enum(?:\s+class)?)\s+(?:[A-Z_]+_API\s+)?(?:alignas\([^)]*\)\s*)?([A-Za-z_]\w*)"),
    re.compile(r"\busing\s+([A-Za-z_]\w*)\s*="),
    re.compile(r"\busing\s+(?:typename\s+)?(?:::)?(?:[A-Za-z_]\w*::)+([A-Za-z_]\w*)\s*;"),
    re.compile(r"\btypedef\b[^;]*?\b([A-Za-z_]\w*)\s*;"),
    re.compile(r"\b(?:constexpr|const|static|inline|extern)\b[^;=(){}]*?\b([A-Za-z_]\w*)\s*(?:=|\{|;)"),
]
# a function declaration: a type (identifier, maybe qualified / templated, *, &) then the name;
# calls (``return f(``, ``x = f(``, ``ns::f(``, ``obj.f(``) do not match
_FUNC = re.compile(r"([A-Za-z_][\w:]*)(?:<[^;(){}]*>)?[\s\*&]+([A-Za-z_]\w*)\s*\(")
_NOT_TYPES = {"return", "new", "delete", "else", "case", "throw", "co_return", "typename",
              "sizeof", "decltype", "goto", "not", "and", "or"}
_ENUM_BODY = re.compile(r"\benum(?:\s+class)?\s+\w+[^{;]*\{([^}]*)\}", re.DOTALL)
_NAMESPACE = re.compile(r"\bnamespace\s+([A-Za-z_][\w:]*)\s*\{")


class CompatHeaders:
    """What the compat headers of a Paddle installation declare (lexically)."""

    def __init__(self, roots: list[str]):
        self.roots = [r for r in roots if os.path.isdir(r)]
        self.files: set[str] = set()
        self.names: set[str] = set()
        self.namespaces: set[str] = {"at", "torch", "c10"}
        self.macros: set[str] = set()
        for root in self.roots:
            for dirpath, _, files in os.walk(root):
                for fn in files:
                    full = os.path.join(dirpath, fn)
                    self.files.add(os.path.relpath(full, root).replace(os.sep, "/"))
                    with open(full, encoding="utf-8", errors="replace") as f:
                        self._read(f.read())

    def _read(self, text: str) -> None:
        self.macros |= defined_macros(text)
        code = _strip(text)
        for m in _NAMESPACE.finditer(code):
            parts = m.group(1).split("::")
            for i in range(len(parts)):
                self.namespaces.add("::".join(parts[i:]))
                self.namespaces.add(parts[i])
        for pat in _DECL_PATTERNS:
            self.names.update(pat.findall(code))
        for typ, name in _FUNC.findall(code):
            if typ.split("::")[-1] not in _NOT_TYPES:
                self.names.add(name)
        for body in _ENUM_BODY.findall(code):
            self.names.update(re.findall(r"\b([A-Za-z_]\w*)\s*(?:=[^,]*)?(?:,|$)", body))
        # enumerators generated by X-macros (kFloat, kHalf, ...): names used after k
        self.names.update(re.findall(r"\b(k[A-Z]\w*)\b", code))

    @classmethod
    def installed(cls) -> "CompatHeaders | None":
        """The headers torchproxy builds against: torchproxy/include + Paddle's compat dir."""
        try:
            import paddle  # noqa: F401
            from torchproxy.facade.cpp_extension import INCLUDE_DIR, compat_include_dir
        except Exception:
            return None
        compat = compat_include_dir()
        if not os.path.isdir(compat):
            return None
        return cls([INCLUDE_DIR, compat, os.path.join(compat, "torch", "csrc", "api", "include")])

    def has_header(self, header: str) -> bool:
        return header in self.files

    def has(self, sym: Symbol) -> bool:
        if sym.kind == "macro":
            return sym.name in self.macros
        parts = sym.name.split("::")
        if len(parts) == 1:
            return False
        # a nested namespace path (at::cuda::...) must exist; the leaf must be declared
        for i in range(1, len(parts) - 1):
            if parts[i] not in self.namespaces and parts[i] not in self.names:
                return False
        return parts[-1] in self.names or parts[-1] in self.namespaces


# -- the report -------------------------------------------------------------------------------
_HEADERS_CACHE: list = []


def _headers() -> "CompatHeaders | None":
    if not _HEADERS_CACHE:
        _HEADERS_CACHE.append(CompatHeaders.installed())
    return _HEADERS_CACHE[0]


def symbol_table(symbols: list[Symbol], includes: dict[str, list[str]]) -> list[dict]:
    """One row per torch C++ name / macro / header used: uses, sites, and ``provided``
    (True / False by the installed Paddle's compat headers, None when it has none)."""
    h = _headers()
    rows: dict[tuple, dict] = {}
    for s in symbols:
        r = rows.setdefault((s.kind, s.name), {"name": s.name, "kind": s.kind, "sites": []})
        r["sites"].append(f"{s.path}:{s.line}")
    for header, sites in includes.items():
        rows[("header", header)] = {"name": header, "kind": "header", "sites": list(sites)}
    out = []
    for (kind, name), r in rows.items():
        if h is None:
            provided = None
        elif kind == "header":
            provided = h.has_header(name)
        else:
            provided = h.has(Symbol(name, kind, "", 0))
        r["provided"] = provided
        r["uses"] = len(r["sites"])
        r["sites"] = sorted(set(r["sites"]))
        out.append(r)
    return sorted(out, key=lambda r: ({"header": 0, "name": 1, "macro": 2}[r["kind"]], r["name"]))


def compat_summary(rows: list[dict]) -> dict:
    out = {}
    for kind in ("header", "name", "macro"):
        ks = [r for r in rows if r["kind"] == kind]
        out[kind] = {"used": len(ks), "provided": sum(1 for r in ks if r["provided"]),
                     "missing": sum(1 for r in ks if r["provided"] is False)}
    return out


def render_markdown(label: str, rows: list[dict], max_sites: int = 2) -> str:
    """The C++ part of a porting report, as Markdown."""
    import paddle
    if not rows:
        return f"### {label}\n\nNo torch C++ API use found.\n"
    s = compat_summary(rows)
    lines = [f"### {label}", "",
             f"Against Paddle {paddle.__version__}'s compat headers (+ torchproxy/include): "
             + "; ".join(f"{k}s {v['provided']}/{v['used']} provided" for k, v in s.items()),
             ""]
    if rows[0]["provided"] is None:
        lines.append("(this Paddle ships no compat headers: nothing can be checked)")
        return "\n".join(lines) + "\n"
    miss = [r for r in rows if r["provided"] is False]
    if miss:
        lines += ["| missing | kind | uses | first sites |", "|---|---|---:|---|"]
        for r in sorted(miss, key=lambda r: (-r["uses"], r["name"])):
            lines.append(f"| `{r['name']}` | {r['kind']} | {r['uses']} | "
                         + ", ".join(r["sites"][:max_sites]) + " |")
    else:
        lines.append("Every torch C++ name, macro and header used is declared in the compat headers.")
    return "\n".join(lines) + "\n"
