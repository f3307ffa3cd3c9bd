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
# bench/facade_ops_host.py's rows (round eleven): label, facade, paddle, torch us, the two ratios
OPS_ROW = re.compile(r"^(\S.*?)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)"
                     r"\s+(\d+\.\d+)$")
TREES = r"(BASELINE|MAIN|AFTER\w*)"


def parse(paths):
    """{(tree, row): [ratio, ...]}, {(tree, row): [paddle us, ...]}, versions line, host_cost
    blocks {tree: [text, ...]}."""
    ratios, paddle_us, torch_us = {}, {}, {}
    versions, blocks = None, {"AFTER": [], "BASELINE": [], "SECTION": []}
    ops = {}  # (tree, row): [(facade, paddle, torch us), ...] (bench/facade_ops_host.py)
    for path in paths:
        tree, in_host, block, last = None, False, None, None
        section, ops_tree = None, None
        for line in open(path, encoding="utf-8", errors="replace"):
            line = line.rstrip("\n")
            m = re.match(r"^== facade-ops round \d+: " + TREES, line)
            if m:
                ops_tree = m.group(1)
                continue
            if ops_tree is not None:
                if line.startswith("end facade ops") or line.startswith("== "):
                    ops_tree = None
                else:
                    m = OPS_ROW.match(line)
                    if m:
                        ops.setdefault((ops_tree, m.group(1).strip()), []).append(
                            tuple(float(m.group(i)) for i in (2, 3, 4)))
                    continue
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
            m = re.match(r"^== round \d+: " + TREES, line)
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
    PARSED_OPS.clear()
    PARSED_OPS.update(ops)
    return ratios, paddle_us, torch_us, versions, blocks


PARSED_OPS: dict = {}


def ops_table():
    """Round eleven's facade-op rows: per row and tree, facade / Paddle and facade / torch,
    median (range) over rounds, and the facade's us (median)."""
    if not PARSED_OPS:
        return []
    trees = sorted({t for t, _ in PARSED_OPS}, key=lambda t: ("BASELINE", "MAIN").index(t)
                   if t in ("BASELINE", "MAIN") else 2)
    rows = []
    for _, name in PARSED_OPS:
        if name not in rows:
            rows.append(name)
    out = ["", "Facade ops, host us per call (bench/facade_ops_host.py; each round one process per "
           "tree, trees alternating;", "best of 7 interleaved repeats of 1000 calls, empty loop "
           "subtracted): facade / direct Paddle, median (range) over rounds; facade - Paddle: the "
           "facade's own us", "(median; Paddle's column includes its kernel launches, which fail on "
           "sm_90 with 2.6.2 at a cost that moves between rounds)", "",
           f"  {'row':40s} " + " ".join(f"{t + ' f/paddle':>23s}" for t in trees)
           + f" {'f/torch ' + trees[-1]:>23s}  facade - paddle us " + "/".join(trees)]
    for name in rows:
        cells, us = [], []
        for t in trees:
            v = PARSED_OPS.get((t, name), [])
            cells.append(fmt([f / p for f, p, _ in v]) if v else f"{'-':>18s}")
            us.append(f"{statistics.median([f - p for f, p, _ in v]):.2f}" if v else "-")
        last = PARSED_OPS.get((trees[-1], name), [])
        out.append(f"  {name[:40]:40s} " + " ".join(f"{c:>23s}" for c in cells)
                   + f" {fmt([f / t for f, _, t in last]):>23s}  " + " / ".join(us))
    return out


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
    out += ops_table()
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
