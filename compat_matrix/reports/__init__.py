"""Reports from ``OUT/results.jsonl`` (+ ``meta.json``): Markdown, JUnit XML, HTML.

All three are written from the same :class:`Matrix` model, so they never disagree; they can be
regenerated at any time (``--report-only``), also from a partial (interrupted) run.
"""
from __future__ import annotations

import json
import os
from collections import Counter, defaultdict

from ..runner import read_results

STATUSES = ("matches", "runs", "imports", "fails", "n/a")
PROXY_BACKENDS = ("torchproxy", "paddle_compat")


class Matrix:
    def __init__(self, records: list[dict], meta: dict | None):
        self.meta = meta or {}
        # rows in the spec's order (import first), when meta.json says what it was
        spec_order = {(lib, c): i for lib, info in self.meta.get("libraries", {}).items()
                      for i, c in enumerate(info.get("cases", []))}
        self.records = sorted(records, key=lambda r: (
            r["lib"], r["case"] != "import", spec_order.get((r["lib"], r["case"]), 1 << 30),
            r["case"], r["device"], r["backend"]))
        order = {"torch": 0, "torchproxy": 1, "paddle_compat": 2}
        self.backends = sorted({r["backend"] for r in records}, key=lambda b: (order.get(b, 9), b))
        self.devices = sorted({r["device"] for r in records})
        self.libs = sorted({r["lib"] for r in records})
        self.columns = [(b, d) for d in self.devices for b in self.backends]
        self.cells = {(r["lib"], r["case"], r["backend"], r["device"]): r for r in records}
        self.scans: dict[str, dict] = {}  # lib -> target -> `torchproxy scan --json` report
        self.rows = []
        for r in self.records:
            row = (r["lib"], r["case"])
            if row not in self.rows:
                self.rows.append(row)

    @classmethod
    def load(cls, out_dir):
        recs = list(read_results(os.path.join(out_dir, "results.jsonl")).values())
        meta = None
        try:
            with open(os.path.join(out_dir, "meta.json")) as f:
                meta = json.load(f)
        except (OSError, json.JSONDecodeError):
            pass
        m = cls(recs, meta)
        scan_dir = os.path.join(out_dir, "scan")
        if os.path.isdir(scan_dir):
            for fn in sorted(os.listdir(scan_dir)):
                if fn.endswith(".json"):
                    try:
                        with open(os.path.join(scan_dir, fn)) as f:
                            m.scans[fn[:-5]] = json.load(f)
                    except (OSError, json.JSONDecodeError):
                        pass
        return m

    def static_missing(self, lib) -> tuple[list[str], str]:
        """(torch names `torchproxy scan` found missing in the library's code, summary line)."""
        names, parts = [], []
        for target, rep in self.scans.get(lib, {}).items():
            if "error" in rep:
                parts.append(f"{target}: scan failed ({rep['error'][:200]})")
                continue
            summ = rep.get("summary", {})
            parts.append(f"{target}: {summ.get('used', '?')} torch names used, "
                         f"{summ.get('missing', '?')} missing")
            names += [n["name"] for n in rep.get("names", []) if n.get("status") == "missing"]
        return sorted(set(names)), "; ".join(parts)

    def counts(self, lib=None, backend=None, device=None) -> Counter:
        c = Counter()
        for r in self.records:
            if (lib is None or r["lib"] == lib) and (backend is None or r["backend"] == backend) \
                    and (device is None or r["device"] == device):
                c[r["status"]] += 1
        return c

    def pass_rate(self, lib=None, backend=None, device=None) -> tuple[int, int]:
        """(cases that match [imports, for the import case], applicable cases)."""
        ok = total = 0
        for r in self.records:
            if (lib is None or r["lib"] == lib) and (backend is None or r["backend"] == backend) \
                    and (device is None or r["device"] == device) and r["status"] != "n/a":
                total += 1
                good = ("imports",) if r["case"] == "import" else ("matches",)
                if r["backend"] == "torch" and r["case"] != "import":
                    good = ("matches", "runs")  # the oracle without a reference can only run
                ok += r["status"] in good
        return ok, total

    def oracle_ok_rate(self, backend, device, lib=None) -> tuple[int, int]:
        """(cases this backend matches, cases real torch ran) -- the fair comparison of the
        proxies: a case the oracle cannot run (e.g. in the Triton interpreter) says nothing
        about them."""
        ok = total = 0
        for (l, c, b, d), r in self.cells.items():
            if b != "torch" or d != device or c == "import" or (lib and l != lib):
                continue
            if r["status"] in ("runs", "matches") or r.get("outputs") is not None:
                total += 1
                other = self.cells.get((l, c, backend, d))
                ok += bool(other and other["status"] == "matches")
        return ok, total

    def missing_names(self, backend="torchproxy") -> dict[str, dict[str, list[str]]]:
        """lib -> torch name -> cases that needed it (the cause, or seen by the tracer)."""
        out: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
        for r in self.records:
            if r["backend"] != backend:
                continue
            for n in list(r.get("unsupported") or []) + list(r.get("missing") or []):
                out[r["lib"]][n].add(r["case"])
        return {lib: {n: sorted(cases) for n, cases in sorted(d.items())} for lib, d in sorted(out.items())}

    def cases_per_lib(self) -> dict[str, int]:
        return {lib: sum(1 for (l, _c) in self.rows if l == lib) for lib in self.libs}


    def oracle_runs(self, device) -> tuple[int, int]:
        """(cases real torch ran, cases it applies to) on ``device``, import cases left out:
        a case the oracle cannot run compares nothing."""
        ran = total = 0
        for (l, c, b, d), r in self.cells.items():
            if b != "torch" or d != device or c == "import" or r["status"] == "n/a":
                continue
            total += 1
            ran += r["status"] in ("runs", "matches") or r.get("outputs") is not None
        return ran, total

    def summary(self) -> dict:
        """The numbers a README quotes, from this run (reports/summary.json)."""
        env = self.meta.get("env", {})
        per_lib = self.cases_per_lib()
        out = {
            "generated_from": "compat_matrix (python -m compat_matrix / torchproxy matrix)",
            "paddle": env.get("paddle"), "torch": env.get("versions", {}).get("torch"),
            "triton": env.get("versions", {}).get("triton"), "python": env.get("python"),
            "wall_s": self.meta.get("wall_s"), "jobs": self.meta.get("options", {}).get("jobs"),
            "shards": self.meta.get("shards"),
            "libraries": len(self.libs), "cases": sum(per_lib.values()),
            "cases_without_import": sum(per_lib.values()) - len(per_lib),
            "cells": len(self.records), "devices": self.devices, "backends": self.backends,
            "status_counts": {f"{b}/{d}": dict(self.counts(None, b, d)) for b, d in self.columns},
            "oracle_runs": {}, "proxy_matches_oracle": {}, "per_library": {},
        }
        for d in self.devices:
            ran, total = self.oracle_runs(d)
            out["oracle_runs"][d] = {"ran": ran, "of": total,
                                     "percent": round(100 * ran / total, 1) if total else None}
        for b, d in self.columns:
            if b != "torch":
                ok, total = self.oracle_ok_rate(b, d)
                out["proxy_matches_oracle"][f"{b}/{d}"] = {"matches": ok, "of": total}
        for lib in self.libs:
            row = {"cases": per_lib[lib]}
            for b, d in self.columns:
                ok, total = self.pass_rate(lib, b, d)
                row[f"{b}/{d}"] = [ok, total]
            out["per_library"][lib] = row
        return out


def write_all(out_dir) -> dict[str, str]:
    from . import html, junit, markdown
    m = Matrix.load(out_dir)
    paths = {
        "markdown": os.path.join(out_dir, "matrix.md"),
        "junit": os.path.join(out_dir, "junit.xml"),
        "html": os.path.join(out_dir, "matrix.html"),
        "summary": os.path.join(out_dir, "summary.json"),
    }
    renders = {"markdown": markdown.render, "junit": junit.render, "html": html.render,
               "summary": lambda mm: json.dumps(mm.summary(), indent=1) + "\n"}
    for key, render in renders.items():
        tmp = paths[key] + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(render(m))
        os.replace(tmp, paths[key])
    return paths


def merge(dirs, out_dir) -> dict[str, str]:
    """Join the OUT folders of shard runs (``--shard i/n``) into ``out_dir``; write reports."""
    import shutil
    out_abs = os.path.abspath(out_dir)
    if any(os.path.abspath(d) == out_abs for d in dirs):
        raise ValueError("--out must be a new folder, not one of the merged ones")
    records, owner, metas = {}, {}, []
    for d in dirs:
        path = os.path.join(d, "results.jsonl")
        if not os.path.exists(path):
            raise ValueError(f"{d} has no results.jsonl (not a matrix OUT folder)")
        for key, rec in read_results(path).items():
            if key in records:
                raise ValueError(f"cell {'/'.join(key)} is in both {owner[key]} and {d}: "
                                 "shards must not overlap")
            records[key], owner[key] = rec, d
        try:
            with open(os.path.join(d, "meta.json")) as f:
                metas.append((d, json.load(f)))
        except (OSError, json.JSONDecodeError):
            metas.append((d, {}))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "results.jsonl"), "w") as f:
        for key, rec in records.items():
            f.write(json.dumps({**rec, "shard": os.path.basename(os.path.normpath(owner[key]))},
                               default=str) + "\n")
    meta = dict(next((m for _, m in metas if m), {}))
    meta["libraries"], meta["env_for"] = {}, {}
    for _, m in metas:
        meta["libraries"].update(m.get("libraries", {}))
        meta["env_for"].update(m.get("env_for", {}))
    meta["shards"] = [{"dir": d, "wall_s": m.get("wall_s"), "libraries": sorted(m.get("libraries", {}))}
                      for d, m in metas]
    meta["wall_s"] = max((m.get("wall_s") or 0) for _, m in metas)  # the jobs ran side by side
    meta["wall_s_total"] = round(sum((m.get("wall_s") or 0) for _, m in metas), 1)
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)
    for d in dirs:
        scan = os.path.join(d, "scan")
        if os.path.isdir(scan):
            os.makedirs(os.path.join(out_dir, "scan"), exist_ok=True)
            for fn in os.listdir(scan):
                shutil.copy(os.path.join(scan, fn), os.path.join(out_dir, "scan", fn))
    return write_all(out_dir)
