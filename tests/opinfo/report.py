"""Reports of an OpInfo / ModuleInfo run: docs/results/opinfo-<paddle>.md/.json, opinfo-status.json.

``python -m tests.opinfo.report`` rebuilds the markdown reports and the status file from the
per-version JSON files already in docs/results (no run); ``python -m tests.opinfo.run --write``
runs first.
"""
from __future__ import annotations

import collections
import datetime
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RESULTS = os.path.join(ROOT, "docs", "results")
AREAS = ("unary", "binary", "reduction", "shape/indexing", "linalg", "fft", "special",
         "nn.functional", "creation/random", "other")
KINDS = ("fn", "method", "inplace", "operator", "inplace_operator", "alias_fn", "alias_method",
         "alias_inplace")


def facade_label() -> str:
    """The commit of the torchproxy that is imported, and whether its facade has local edits."""
    import torchproxy
    pkg = os.path.dirname(os.path.abspath(torchproxy.__file__))
    try:
        head = subprocess.run(["git", "-C", pkg, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", pkg, "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, check=True).stdout.strip()
        top = subprocess.run(["git", "-C", pkg, "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
        # the package's path inside its checkout: results files name no machine's directories
        where = os.path.relpath(pkg, top)
        return f"{head}{' + uncommitted changes' if dirty else ''} ({where})"
    except (OSError, subprocess.CalledProcessError):
        return f"unknown commit ({pkg})"


# -- causes -----------------------------------------------------------------------------------
_KERNEL_DT = re.compile(r"key \(CPU, [^,]*, (\w+)\)")
_KW = re.compile(r"unexpected keyword argument '(\w+)'")


def cause_key(r: dict) -> str:
    """A coarse, actionable grouping of one failure."""
    cat, d = r["category"], r.get("detail", "")
    if cat == "not provided":
        name = d.split()[0] if d else "?"
        parts = name.split(".")
        if name.startswith("torch.Tensor."):
            return "not provided: torch.Tensor in-place methods (x_)" if name.endswith("_") and not \
                name.endswith("__") else "not provided: torch.Tensor methods"
        if len(parts) >= 2 and parts[1] in ("linalg", "fft", "special", "signal", "ops", "masked", "sparse"):
            return f"not provided: torch.{parts[1]}.*"
        if name.startswith("torch.nn.functional."):
            return "not provided: torch.nn.functional.*"
        if name.startswith("torch.nn."):
            return "not provided: torch.nn modules"
        return "not provided: torch.* functions" if len(parts) == 2 else f"not provided: {'.'.join(parts[:2])}.*"
    if cat == "Paddle lacks kernel":
        m = _KERNEL_DT.search(d)
        return f"Paddle lacks kernel: {m.group(1)}" if m else "Paddle lacks kernel: dtype not supported"
    if cat == "argument not accepted":
        m = _KW.search(d)
        return f"argument not accepted: keyword {m.group(1)}=" if m else "argument not accepted: positional/overload"
    if cat == "wrong dtype":
        m = re.search(r"torch (\w+), facade (\w+)", d)
        return f"wrong dtype: torch {m.group(1)}, facade {m.group(2)}" if m else cat
    if cat == "wrong shape":
        return "wrong shape: torch 0-d, facade 1-d" if "torch (), facade (1,)" in d else "wrong shape"
    if cat == "wrong exception class":
        m = re.search(r"torch (\w+), facade (\w+)", d)
        return f"{cat}: torch {m.group(1)}, facade {m.group(2)}" if m else cat
    if cat == "raises where torch does not":
        exc = re.search(r"(\w+Error|\w+Exception|AssertionError)", d)
        return f"{cat}: {exc.group(1) if exc else '?'}"
    if cat == "wrong result type":
        if "namedtuple" in d:
            return "wrong result type: plain tuple where torch returns a named tuple"
        if "torch tuple, facade list" in d:
            return "wrong result type: list where torch returns a tuple"
    return cat


# -- tables -----------------------------------------------------------------------------------
def _pct(p, n):
    return f"{100.0 * p / n:.1f}%" if n else "-"


def _rate(rows):
    counted = [r for r in rows if r["status"] != "skip"]
    passed = sum(r["status"] == "pass" for r in counted)
    return passed, len(counted), sum(r["status"] == "skip" for r in rows)


def op_rows(results):
    return [r for r in results if r.get("suite") == "ops" and r.get("kind") != "errors"]


def summary(results, seconds) -> str:
    ops = op_rows(results)
    errs = [r for r in results if r.get("suite") == "ops" and r.get("kind") == "errors"]
    mods = [r for r in results if r.get("suite") == "modules"]
    lines = []
    if ops:
        p, n, s = _rate(ops)
        lines.append(f"[opinfo] operator variants: {p}/{n} pass ({_pct(p, n)}), {s} skipped")
    if errs:
        p, n, s = _rate(errs)
        lines.append(f"[opinfo] error_inputs variants: {p}/{n} pass ({_pct(p, n)})")
    if mods:
        p, n, s = _rate(mods)
        f = sum(1 for r in mods if r.get("forward_ok") or r["status"] == "pass")
        lines.append(f"[opinfo] modules: {p}/{n} pass forward+backward ({_pct(p, n)}), "
                     f"{f}/{n} forward ({_pct(f, n)})")
    lines.append(f"[opinfo] {len(results)} items in {seconds:.0f}s")
    return "\n".join(lines)


def top_causes(results, n=15):
    c = collections.Counter(cause_key(r) for r in results if r["status"] == "fail")
    return c.most_common(n)


def markdown(results, seconds, facade, version) -> str:
    import torch
    ops = op_rows(results)
    errs = [r for r in results if r.get("suite") == "ops" and r.get("kind") == "errors"]
    mods = [r for r in results if r.get("suite") == "modules"]
    out = [f"# OpInfo / ModuleInfo conformance on Paddle {version}", "",
           "Generated by `python -m tests.opinfo.run --write` (`./dev opinfo --write`); do not edit.",
           f"Oracle: real torch {torch.__version__} (CPU), torch's own `op_db` and `module_db`. "
           f"Facade measured: {facade}. Date: {datetime.date.today()}. Full run: {seconds:.0f}s "
           "(2-core machine shared with other jobs).", "",
           "A variant is one way of calling an OpInfo operator (function, Tensor method, in-place "
           "method, operator, alias); it passes when every CPU sample in float32/float64/int64/bool "
           "(where the op supports them) gives torch's values, dtype, shape and exception class. "
           "See tests/opinfo/README.md.", ""]
    p, n, s = _rate(ops)
    out += ["## Operators (op_db)", "",
            f"**{p} of {n} variants pass ({_pct(p, n)})**; {s} skipped (no CPU dtype or no sample "
            "expressible on Paddle).", "",
            "| area | variants | pass | fail | pass rate |", "|---|---:|---:|---:|---:|"]
    for area in AREAS:
        rows = [r for r in ops if r.get("area") == area]
        p, n, _ = _rate(rows)
        out.append(f"| {area} | {n} | {p} | {n - p} | {_pct(p, n)} |")
    p, n, _ = _rate(ops)
    out += [f"| **all** | {n} | {p} | {n - p} | **{_pct(p, n)}** |", "",
            "| variant kind | variants | pass | pass rate |", "|---|---:|---:|---:|"]
    for kind in KINDS:
        p, n, _ = _rate([r for r in ops if r.get("kind") == kind])
        if n:
            out.append(f"| {kind} | {n} | {p} | {_pct(p, n)} |")
    p, n, _ = _rate(errs)
    ops_ = {r["op"] for r in ops}
    ok_ops = {o for o in ops_ if all(r["status"] != "fail" for r in ops if r["op"] == o)}
    out += ["", f"Operators (OpInfo entries) with every variant passing: {len(ok_ops)} of {len(ops_)} "
            f"({_pct(len(ok_ops), len(ops_))}).",
            f"`error_inputs` (torch's error cases, the function variant, counted apart): {p} of {n} "
            f"pass ({_pct(p, n)}).", "",
            "### Failure categories (operators)", "", "| category | variants |", "|---|---:|"]
    for cat, k in collections.Counter(r["category"] for r in ops if r["status"] == "fail").most_common():
        out.append(f"| {cat} | {k} |")
    out += ["", "## Modules (module_db)", ""]
    p, n, s = _rate(mods)
    f = sum(1 for r in mods if r.get("forward_ok") or r["status"] == "pass")
    out += [f"**{p} of {n} modules pass forward and backward ({_pct(p, n)})**; forward alone: "
            f"{f} of {n} ({_pct(f, n)}); {s} skipped.", "",
            "| category | modules |", "|---|---:|"]
    for cat, k in collections.Counter(r["category"] for r in mods if r["status"] == "fail").most_common():
        out.append(f"| {cat} | {k} |")
    out += ["", "## The 15 most common failure causes (operators, error_inputs and modules)", "",
            "| cause | failures |", "|---|---:|"]
    for key, k in top_causes(results):
        out.append(f"| {key} | {k} |")
    out += ["", "The failing variants, one line each with the first error: "
            "tests/opinfo/xfails-*.txt and tests/opinfo/module-xfails-*.txt.", ""]
    return "\n".join(out)


def status(all_results: dict[str, list[dict]]) -> dict:
    """Per torch name and Paddle version: pass / fail (with the failing variants)."""
    names: dict = {}
    for ver, results in sorted(all_results.items()):
        for r in results:
            if r["status"] == "skip":
                continue
            label = r.get("label", r["id"])
            e = names.setdefault(label, {}).setdefault(ver, {"status": "pass", "variants": 0,
                                                             "failing": [], "errors": None})
            if r.get("kind") == "errors":
                ok = r["status"] == "pass"
                e["errors"] = ok if e["errors"] is None else (e["errors"] and ok)
                continue
            e["variants"] += 1
            if r["status"] != "pass":
                e["status"] = "fail"
                e["failing"].append(f"{r['id']}: {r['category']}")
    for per in names.values():
        for e in per.values():
            if e["variants"] == 0:
                e["status"] = "pass" if e["errors"] else "fail"
    return {"generated_by": "python -m tests.opinfo.run --write (tests/opinfo)",
            "meaning": "per torch name exercised by torch's op_db/module_db: 'pass' when every "
                       "variant with that name passes on that Paddle version; 'errors' says whether "
                       "torch's error_inputs raise the same exception class (null: none)",
            "paddle_versions": sorted(all_results),
            "names": {k: names[k] for k in sorted(names)}}


def load_all() -> dict[str, list[dict]]:
    out = {}
    for p in sorted(glob.glob(os.path.join(RESULTS, "opinfo-*.json"))):
        base = os.path.basename(p)[len("opinfo-"):-len(".json")]
        if base == "status" or base.startswith("before-"):
            continue
        with open(p, encoding="utf-8") as f:
            out[base] = json.load(f)["results"]
    return out


def write(results, seconds, facade) -> None:
    from . import ledger
    ver = ledger.paddle_version()
    os.makedirs(RESULTS, exist_ok=True)
    keep = ("id", "suite", "op", "kind", "label", "area", "status", "category", "detail", "where",
            "samples", "skipped", "random", "forward_ok", "margin", "margin_untabled")
    rows = []
    for r in results:
        row = {k: r.get(k) for k in keep if r.get(k) not in (None, "", False, 0) or k in ("id", "status")}
        for k in ("margin", "margin_untabled"):  # 2 digits: how close to the edge, not rounding noise
            if k in row:
                row[k] = float(f"{row[k]:.2g}")
        if row.get("margin_untabled") == row.get("margin"):
            row.pop("margin_untabled", None)  # no tolerances.txt entry changed anything
        if "detail" in row and len(row["detail"]) > 200:
            row["detail"] = row["detail"][:197] + "..."
        rows.append(json.dumps(row, separators=(",", ":")))
    head = json.dumps({"paddle": ver, "facade": facade, "seconds": round(seconds)})[:-1]
    with open(os.path.join(RESULTS, f"opinfo-{ver}.json"), "w", encoding="utf-8") as f:
        f.write(head + ', "results": [\n' + ",\n".join(rows) + "\n]}\n")
    with open(os.path.join(RESULTS, f"opinfo-{ver}.md"), "w", encoding="utf-8") as f:
        f.write(markdown(results, seconds, facade, ver))
    write_status()


def write_status() -> None:
    st = status(load_all())
    names = st.pop("names")
    head = json.dumps(st, indent=1)[:-2]
    body = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in names.items())
    with open(os.path.join(RESULTS, "opinfo-status.json"), "w", encoding="utf-8") as f:
        f.write(head + ',\n "names": {\n' + body + "\n }\n}\n")


def _example(r: dict) -> str:
    if r["category"] == "not provided":
        return (r.get("detail") or "?").split()[0]
    return r["id"]


def top_failures_md(all_results: dict[str, list[dict]], n: int = 15) -> str:
    """The most common failure causes per Paddle version, with the names/variants behind them."""
    out = ["# OpInfo/ModuleInfo: the most common failure causes", "",
           "Generated by `python -m tests.opinfo.report --top FILE` from docs/results/opinfo-<paddle>.json "
           "(tests/opinfo). Counts are failing variants (operators, error_inputs, modules). Each "
           "variant's first error is in tests/opinfo/xfails-*.txt.", ""]
    for ver, results in sorted(all_results.items(), reverse=True):
        fails = [r for r in results if r["status"] == "fail"]
        out += [f"## Paddle {ver}: {len(fails)} failing variants", "",
                "| # | cause | variants | most affected (variants) |", "|---:|---|---:|---|"]
        groups = collections.defaultdict(list)
        for r in fails:
            groups[cause_key(r)].append(r)
        for i, (key, rows) in enumerate(sorted(groups.items(), key=lambda kv: -len(kv[1]))[:n], 1):
            ex = collections.Counter(_example(r) for r in rows).most_common(8)
            exs = ", ".join(f"{e} ({k})" if k > 1 else e for e, k in ex)
            out.append(f"| {i} | {key} | {len(rows)} | {exs} |")
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m tests.opinfo.report")
    ap.add_argument("--top", metavar="FILE", help="also write the top failure causes to FILE")
    args = ap.parse_args(argv)
    if args.top:
        with open(args.top, "w", encoding="utf-8") as f:
            f.write(top_failures_md(load_all()))
    for ver, results in load_all().items():
        with open(os.path.join(RESULTS, f"opinfo-{ver}.json"), encoding="utf-8") as f:
            meta = json.load(f)
        with open(os.path.join(RESULTS, f"opinfo-{ver}.md"), "w", encoding="utf-8") as f:
            f.write(markdown(results, meta["seconds"], meta["facade"], ver))
    write_status()
    return 0


if __name__ == "__main__":
    sys.exit(main())
