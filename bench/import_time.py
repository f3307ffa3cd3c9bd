"""Import cost of torchproxy and of the facade in two source trees, interleaved, each import in
a fresh process (issue 21's aim: the house renovation must not make imports slower).

    python bench/import_time.py TREE_BEFORE TREE_AFTER [ROUNDS]    # default 15 rounds

A tree is a checkout with its C dispatcher built in place (`python setup.py build_ext
--inplace`); each child runs with the tree as its working directory, so `import torchproxy`
takes that tree's package.  Prints the median CPU time (user + system of the child) and wall
time per row; CPU time is the figure to read on a loaded machine.  "paddle only" is the floor
both trees pay (Paddle 3.3.1's `import paddle` also imports tvm-ffi, which imports real torch).
"""
from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

ROWS = {
    "import paddle (the floor)": "import paddle",
    "import torchproxy": "import torchproxy",
    "facade: enable() + import torch, torch.nn.functional + torch.ones":
        "import torchproxy; torchproxy.enable(); import torch, torch.nn.functional; torch.ones(2)",
}


def _child(code: str, cwd: str) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=cwd, check=True,
                   stderr=subprocess.DEVNULL, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or not all(os.path.isdir(t) for t in argv[:2]):
        print("usage: python bench/import_time.py TREE_BEFORE TREE_AFTER [ROUNDS]", file=sys.stderr)
        return 2
    trees, rounds = argv[:2], int(argv[2]) if len(argv) == 3 else 15
    seen: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(rounds):
        for label, code in ROWS.items():
            for tree in trees[:1] if code == "import paddle" else trees:
                seen.setdefault((label, tree), []).append(_child(code, tree))
    print(f"# {sys.executable}, {rounds} rounds, trees interleaved; medians; "
          f"load average at end {os.getloadavg()[0]:.1f}")
    for (label, tree), times in seen.items():
        print(f"{label:68s} {tree:28s} CPU {statistics.median(c for c, _ in times):6.3f} s"
              f"   wall {statistics.median(w for _, w in times):6.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
