"""Import cycles inside the torchproxy package, counting imports made inside functions too.

A module-level import and an import inside a function are both dependencies: the second only
runs later.  An in-function import whose line carries ``# lazy: <why>`` is a deliberate lazy
load (an optional or heavy dependency, the public API loading the facade on first use) and is
not counted.  The cycles are the strongly connected components of that graph.

    python ci/import_cycles.py            # print the cycles (modules, and the edges inside)
    python ci/import_cycles.py --write    # record them in ci/import-cycles.txt

ci/import-cycles.txt is a ratchet: tests/matrix/test_import_floors.py fails when a cycle gains
a module or a new one appears, and when one shrank (then --write records the progress).
"""
from __future__ import annotations

import ast
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "torchproxy")
LEDGER = os.path.join(ROOT, "ci", "import-cycles.txt")


def modules() -> dict[str, str]:
    out = {}
    for folder, _dirs, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                name = os.path.relpath(path[:-3], ROOT).replace(os.sep, ".")
                out[name[:-9] if name.endswith(".__init__") else name] = path
    return out


def _targets(mods, module, node) -> list[str]:
    is_pkg = mods[module].endswith("__init__.py")
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = module.split(".")[: len(module.split(".")) - node.level + (1 if is_pkg else 0)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    out = []
    for a in node.names:
        sub = f"{target}.{a.name}"
        if sub in mods:
            out.append(sub)
        elif f"{target}" in mods and not _is_extension(target, a.name):
            out.append(target)
    return out


def _is_extension(package: str, name: str) -> bool:
    """``from torchproxy import _cdispatch``: a compiled submodule, not the package's code."""
    folder = os.path.join(ROOT, *package.split("."))
    return os.path.isdir(folder) and any(f.startswith(name + ".") and f.endswith((".so", ".pyd"))
                                         for f in os.listdir(folder))


def graph() -> dict[str, set[str]]:
    mods = modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        with open(path) as f:
            lines = f.read().split("\n")
        tree = ast.parse("\n".join(lines))
        in_function = set()
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                in_function.update(id(c) for c in ast.walk(n)
                                   if isinstance(c, (ast.Import, ast.ImportFrom)))
        for n in ast.walk(tree):
            if not isinstance(n, (ast.Import, ast.ImportFrom)):
                continue
            if id(n) in in_function and any("# lazy:" in lines[i - 1]
                                             for i in range(n.lineno, n.end_lineno + 1)):
                continue
            for t in _targets(mods, m, n):
                if t in mods and t != m and not m.startswith(t + "."):
                    edges[m].add(t)  # (a submodule importing its own package is no cycle)
    return edges


def cycles(edges=None) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    edges = graph() if edges is None else edges
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out, key=lambda c: (-len(c), c))


def read_ledger() -> list[list[str]]:
    if not os.path.exists(LEDGER):
        return []
    with open(LEDGER) as f:
        return [line.split() for line in f if line.strip() and not line.startswith("#")]


def main(argv) -> int:
    edges = graph()
    found = cycles(edges)
    for comp in found:
        members = set(comp)
        print(f"{len(comp)} modules: {' '.join(comp)}")
        for m in comp:
            inside = sorted(edges[m] & members)
            print(f"    {m} -> {', '.join(inside)}")
    print(f"{len(found)} cycle(s), {sum(map(len, found))} modules in them")
    if "--write" in argv:
        with open(LEDGER, "w") as f:
            f.write("# import cycles in torchproxy/ (in-function imports counted; '# lazy:' ones not):\n"
                    "# one line per cycle, its modules.  Generated by `python ci/import_cycles.py "
                    "--write`; a ratchet\n# (tests/matrix/test_import_floors.py): it may only shrink.\n")
            for comp in found:
                f.write(" ".join(comp) + "\n")
        print(f"wrote {os.path.relpath(LEDGER, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
