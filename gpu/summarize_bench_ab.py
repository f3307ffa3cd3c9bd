"""Summarise gpu/bench_issue19.sh's log: per row, best of the rounds for each tree.

    python3 gpu/summarize_bench_ab.py bench19.log
"""
import collections
import re
import sys

txt = open(sys.argv[1]).read()
blocks = re.split(r"^== round (\d) tree (\S+): bench/(\S+)\n", txt, flags=re.M)
res = collections.defaultdict(lambda: collections.defaultdict(list))
trees = []
for i in range(1, len(blocks), 4):
    _rnd, tree, script, body = blocks[i:i + 4]
    if tree not in trees:
        trees.append(tree)
    for line in body.splitlines():
        m = re.match(r"^(torchproxy: .+?|unrelated `import json`, no hook)\s+([\d.]+)$", line)
        if m:
            res[(script, m.group(1).strip() + " (us)")][tree].append(float(m.group(2)))
        m = re.match(r"^(x\S*(?: [=+] x)?|y = x; y \+= x)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", line)
        if m:
            res[(script, m.group(1).strip() + " C/off ratio")][tree].append(float(m.group(5)))
        m = re.match(r"^hook overhead.*: \+([\d.]+)", line)
        if m:
            res[(script, "hook overhead on an unrelated import (us)")][tree].append(float(m.group(1)))
print(f"{'script':20} {'row':52} " + " ".join(f"{t:>10}" for t in trees) + "   (best of the rounds; each round's values after)")
for (script, row), v in res.items():
    best = " ".join(f"{min(v[t]):>10.3f}" if v[t] else f"{'-':>10}" for t in trees)
    print(f"{script:20} {row:52} {best}   {dict((t, v[t]) for t in trees)}")
