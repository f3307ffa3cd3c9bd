"""Summarise gpu/run_host_cost.sh logs (host_cost_log.txt, one per lease) into the results file
docs/results/gpu-host-cost-h100.txt: per launch row, the median and range over rounds of the
ratio Paddle+torchproxy / torch, for the baseline tree and the tree after issue 26, and the
tables of bench/host_cost.py --gpu as printed.

    python3 gpu/summarize_host_cost.py LOG [LOG...] > docs/results/gpu-host-cost-h100.txt
"""
from __future__ import annotations

import re
import statistics
import sys

ROW = re.compile(r"^(\S.*?|  \(.*?\)|  floor .*?)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)$")


def parse(paths):
    """{(tree, row): [ratio, ...]}, {(tree, row): [paddle us, ...]}, versions line, host_cost
    blocks {tree: [text, ...]}."""
    ratios, paddle_us, torch_us = {}, {}, {}
    versions, blocks = None, {"AFTER": [], "BASELINE": [], "SECTION": []}
    for path in paths:
        tree, in_host, block, last = None, False, None, None
        section = None
        for line in open(path, encoding="utf-8", errors="replace"):
            line = line.rstrip("\n")
            # "== SECTION: title" ... "== END SECTION": kept as printed (flashinfer, TileLang)
            if line.startswith("== SECTION: "):
                section = [line[len("== SECTION: "):]]
                blocks["SECTION"].append(section)
                continue
            if section is not None:
                if line.startswith("== END SECTION"):
                    section = None
                elif not line.startswith("W11"):
                    section.append(line)
                continue
            if line.startswith("versions:") and versions is None:
                versions = line
            m = re.match(r"^== round \d+: (BASELINE|AFTER\w*)", line)
            if m:
                tree, in_host = m.group(1), False
                continue
            m = re.match(r"^== (AFTER|BASELINE) bench/host_cost.py", line)
            if m:
                tree, block = None, [line]
                blocks[m.group(1)].append(block)
                continue
            if line.startswith("== "):
                block = None
            if block is not None:
                if not line.startswith("W11"):  # Paddle's glog lines about sm_90
                    block.append(line)
                continue
            if tree is None:
                continue
            if line.startswith("host us/call"):
                in_host = True
                continue
            if line.startswith("kernel ms"):
                in_host = False
                continue
            m = ROW.match(line) if in_host else None
            if m:
                name = m.group(1).strip()
                if not line.startswith("  "):
                    last = name
                else:
                    name = f"{last} {name}"
                key = (tree, name)
                ratios.setdefault(key, []).append(float(m.group(4)))
                paddle_us.setdefault(key, []).append(float(m.group(2)))
                torch_us.setdefault(key, []).append(float(m.group(3)))
    return ratios, paddle_us, torch_us, versions, blocks


def fmt(vals):
    if not vals:
        return f"{'-':>18s}"
    return f"{statistics.median(vals):5.2f} ({min(vals):4.2f}-{max(vals):4.2f}) n={len(vals)}"


def main(paths):
    ratios, paddle_us, torch_us, versions, blocks = parse(paths)
    rows = []
    for tree, name in ratios:
        if name not in rows:
            rows.append(name)
    trees = sorted({t for t, _ in ratios}, key=lambda t: (t != "BASELINE", t))
    out = [f"{versions}",
           f"logs: {', '.join(paths)}",
           "",
           "Triton launches, host us per call: ratio Paddle+torchproxy / torch, median (range) "
           "over rounds;",
           "each round is one process of bench/triton_launch.py (7 interleaved repeats, best of "
           "each side);",
           "BASELINE = this tree with issue 26's torchproxy/ commits reversed, AFTER = this tree; "
           "rounds alternate.",
           "",
           "AFTER_NO_STREAM_SAFE_ALLOCATOR = AFTER with FLAGS_use_stream_safe_cuda_allocator=0 "
           "(an experiment).",
           ""]
    for tree in trees:
        out += [f"{tree}", f"  {'row':68s} {'ratio median (range) n':>26s}  us paddle / torch "
                           "(medians)"]
        for name in rows:
            r = ratios.get((tree, name), [])
            if not r:
                continue
            pa, ta = paddle_us[(tree, name)], torch_us[(tree, name)]
            out.append(f"  {name[:68]:68s} {fmt(r):>26s}  {statistics.median(pa):6.2f} / "
                       f"{statistics.median(ta):6.2f}")
        out.append("")
    out += ["", "-- setup and correctness (AFTER tree), as logged"]
    for path in paths:
        for line in open(path, encoding="utf-8", errors="replace"):
            if re.match(r"^(slimmed Paddle|baseline tree:|triton_check rc=|facade_cuda_check rc=|"
                        r"== ALL OK|== .*FAILED|PASS |FAIL )", line):
                out.append(line.rstrip("\n")[:160])
    for tree in ("AFTER", "BASELINE"):
        for i, block in enumerate(blocks[tree]):
            out += ["", f"-- bench/host_cost.py, {tree} tree, lease {i + 1} of {len(blocks[tree])}"]
            out += block[1:]
    for block in blocks["SECTION"]:
        out += ["", f"-- {block[0]}"] + block[1:]
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
