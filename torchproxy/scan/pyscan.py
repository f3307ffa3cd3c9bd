"""Static scan of Python source: which torch names does a file use, and where.

Nothing is imported or run.  Per file, the scanner keeps a map from local names to the torch
names they stand for (``import torch.nn.functional as F`` -> ``F`` = ``torch.nn.functional``;
``from torch.library import custom_op`` -> ``custom_op`` = ``torch.library.custom_op``) and
records every use:

- ``import`` / ``from ... import`` of torch modules and names,
- attribute chains rooted at such a local name (``torch.cuda.get_device_capability``,
  ``F.relu``), recorded once as the longest chain (``torch.a.b`` inside ``torch.a.b.c`` is the
  same use, not two),
- ``getattr(torch, "name")`` / ``hasattr(torch, "name")`` with a constant string (a probe),
- torch.library registrations: ``custom_op("ns::op")``, ``define``, ``register_fake``,
  ``impl``, ``Library("ns", ...)``, so ``torch.ops.<ns>.<op>`` uses of the package's own ops
  can be told apart from ``torch.ops.aten.*``,
- candidate Tensor-method calls (``x.data_ptr()``): statically the receiver's type is unknown,
  so these are reported separately, by name and count, never mixed with the torch names;
- attribute uses (calls or reads) on receivers of unknown type whose name is an attribute of a
  torch class (``x.relu()``, ``x.nbytes``, ``self.compile()``: see ``torch_attrs``), unless the
  receiver is an imported module (``re.compile``) or the file itself defines or assigns that
  attribute name (``self.relu = nn.ReLU()``, ``def index(...)``); the classifier keeps those
  the facade lacks: they may fail at run time, so the verdict cannot say "ready".

The alias map is per file, not per function scope: a local variable shadowing ``F`` would be
misread.  That is rare in library code and the report says the scan is static.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

# torch.library entry points whose first argument names an op "ns::op" (or "ns::op(schema)")
_REGISTRATION_CALLS = {
    "torch.library.custom_op", "torch.library.define", "torch.library.register_fake",
    "torch.library.impl", "torch.library.register_kernel", "torch.library.triton_op",
    "torch.library.register_autograd", "torch.library.impl_abstract",
    "torch.library.register_torch_dispatch", "torch.library.register_vmap",
}


@dataclass(frozen=True)
class Use:
    name: str        # full torch name as written: "torch.cuda.get_device_capability"
    path: str        # file, relative to the scanned root
    line: int
    how: str = "attr"  # attr | import | probe


@dataclass(frozen=True)
class Registration:
    api: str         # the torch.library entry point used
    op: str          # "ns::op", or "ns::*" for Library("ns", ...)
    path: str
    line: int


@dataclass
class FileScan:
    uses: list[Use] = field(default_factory=list)
    registrations: list[Registration] = field(default_factory=list)
    method_calls: list[tuple[str, str, int]] = field(default_factory=list)  # (method, path, line)
    attr_uses: list[tuple[str, str, int]] = field(default_factory=list)  # (attribute, path, line)
    error: str = ""  # a syntax error: the file could not be scanned


def _is_torch(name: str) -> bool:
    return name == "torch" or name.startswith("torch.")


def _chain(node) -> list[str] | None:
    """``a.b.c`` -> ["a", "b", "c"]; None when the root is not a plain name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def _const_str(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _own_names(tree) -> tuple[set[str], set[str]]:
    """(names bound by non-torch imports, attribute names the file defines or assigns)."""
    modules, own = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.update(a.asname or a.name for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            own.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            own.add(node.arg)  # SimpleNamespace(relu=...), dict(index=...)
    return modules, own


class _Visitor(ast.NodeVisitor):
    def __init__(self, path: str, method_names: frozenset[str], attr_names=frozenset(),
                 modules=frozenset(), own=frozenset()):
        self.path = path
        self.method_names = method_names
        self.attr_names = attr_names        # torch classes' attribute names to look for
        self.modules = modules              # local names of imported modules (non-torch too)
        self.own = own                      # attribute names the file defines or assigns
        self.aliases: dict[str, str] = {}   # local name -> torch name
        self.out = FileScan()
        self._inner: set[int] = set()       # ids of Attribute nodes inside a longer chain

    # -- imports ---------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import):
        for a in node.names:
            if not _is_torch(a.name):
                continue
            self.out.uses.append(Use(a.name, self.path, node.lineno, "import"))
            if a.asname:
                self.aliases[a.asname] = a.name
            else:
                # `import torch.nn` binds `torch`
                self.aliases[a.name.split(".")[0]] = "torch"

    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.level or not node.module or not _is_torch(node.module):
            return
        for a in node.names:
            if a.name == "*":
                self.out.uses.append(Use(node.module, self.path, node.lineno, "import"))
                continue
            full = f"{node.module}.{a.name}"
            self.out.uses.append(Use(full, self.path, node.lineno, "import"))
            self.aliases[a.asname or a.name] = full

    # -- names and attribute chains --------------------------------------------------------
    def _resolve(self, parts: list[str]) -> str | None:
        base = self.aliases.get(parts[0])
        if base is None:
            return None
        return ".".join([base, *parts[1:]])

    def _attr_use(self, node: ast.Attribute):
        if (node.attr not in self.attr_names or node.attr in self.own
                or not isinstance(node.ctx, ast.Load)):
            return
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and (root.id in self.aliases or root.id in self.modules):
            return  # torch.x.relu is a torch name; np.linalg.norm, re.compile are not tensors'
        self.out.attr_uses.append((node.attr, self.path, node.lineno))

    def visit_Attribute(self, node: ast.Attribute):
        self._attr_use(node)
        if id(node) in self._inner:
            self.generic_visit(node)
            return
        # mark the inner Attribute nodes of this chain: they are part of this one use
        inner = node.value
        while isinstance(inner, ast.Attribute):
            self._inner.add(id(inner))
            inner = inner.value
        parts = _chain(node)
        full = self._resolve(parts) if parts else None
        if full is not None:
            self.out.uses.append(Use(full, self.path, node.lineno))
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name):
        # a bare use of an imported torch name (`custom_op(...)`, `Tensor` in a hint): the
        # import already recorded it; re-recording every mention would only inflate counts
        pass

    def visit_Call(self, node: ast.Call):
        func = node.func
        parts = _chain(func)
        full = self._resolve(parts) if parts else None
        if isinstance(func, ast.Name) and func.id in ("getattr", "hasattr") and len(node.args) >= 2:
            target = _chain(node.args[0])
            base = self._resolve(target) if target else None
            attr = _const_str(node.args[1])
            if base is not None and attr is not None:
                self.out.uses.append(Use(f"{base}.{attr}", self.path, node.lineno, "probe"))
        if full is not None:
            self._registration(full, node)
        elif isinstance(func, ast.Attribute) and func.attr in self.method_names:
            # `x.data_ptr()` where x is not a torch module: a candidate Tensor method call
            self.out.method_calls.append((func.attr, self.path, node.lineno))
        self.generic_visit(node)

    def _registration(self, full: str, node: ast.Call):
        if full in _REGISTRATION_CALLS and node.args:
            op = _const_str(node.args[0])
            if op and "::" in op:
                op = op.split("(")[0]
                self.out.registrations.append(Registration(full, op, self.path, node.lineno))
        elif full == "torch.library.Library" and node.args:
            ns = _const_str(node.args[0])
            if ns:
                self.out.registrations.append(Registration(full, f"{ns}::*", self.path,
                                                           node.lineno))


def scan_source(source: str, path: str, method_names=frozenset(),
                attr_names=frozenset()) -> FileScan:
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as e:
        fs = FileScan()
        fs.error = f"{type(e).__name__}: {e}"
        return fs
    modules, own = _own_names(tree) if attr_names else (frozenset(), frozenset())
    v = _Visitor(path, frozenset(method_names), frozenset(attr_names), modules, own)
    v.visit(tree)
    return v.out
