"""Does the ledger hold on other x86-64 CPUs?  The OpInfo / ModuleInfo run under forced
instruction-set paths.

    python -m tests.opinfo.isa                          # every setting, every variant
    python -m tests.opinfo.isa --kinds fn,module        # the function variants and the modules
    python -m tests.opinfo.isa --settings default,sse4 --match addbmm
    python -m tests.opinfo.isa ... --write               # also docs/results/opinfo-isa-<paddle>.md

Floating-point results of the CPU libraries both sides call depend on the instruction set they
pick at run time: MKL (BLAS: torch and Paddle both link it), oneDNN, and ATen's own vectorised
kernels (torch only; Paddle's Eigen kernels are compiled for one ISA in the wheel).  Each
setting below forces a path through their documented environment variables, in a fresh process
for the oracle and the facade alike (they run in one process, so the variables apply to both
sides).  A CPU without AVX-512 cannot be forced up to it: on such a CPU the settings cover the
paths at and below AVX2, and an AVX-512 machine is covered by the margins (how close each
verdict is to its tolerance, reported per variant) and by running this command there.

A verdict (status and category) that differs between settings, or a ledger that does not match
the run of any setting, is reported and makes the exit status 1.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RESULTS = os.path.join(ROOT, "docs", "results")

# name -> (environment, what it forces)
SETTINGS = {
    "default": ({}, "nothing forced: the libraries' own choice on this CPU"),
    "avx2": ({"ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ATEN_CPU_CAPABILITY": "avx2"},
             "oneDNN, MKL and ATen at most AVX2 (an AVX-512 CPU's fallback; this CPU's default when it lacks AVX-512)"),
    "sse4": ({"ONEDNN_MAX_CPU_ISA": "SSE41", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ATEN_CPU_CAPABILITY": "default"},
             "oneDNN SSE4.1, MKL SSE4.2, ATen's non-vectorised kernels: no AVX, no FMA"),
    "cbwr": ({"MKL_CBWR": "COMPATIBLE"},
             "MKL's conditional numerical reproducibility: the same SSE2 code path on every x86-64 CPU"),
    "threads1": ({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
                 "one thread (reductions and GEMMs split the work by thread count)"),
    "mkl-intel-path": ({"MKL_DEBUG_CPU_TYPE": "5"},
                       "MKL 2019-2020.0 (Paddle's mklml) on an AMD CPU: the AVX2 path it takes on Intel CPUs"),
}

def cpu() -> dict:
    info = {"model": "?", "flags": []}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for ln in f:
                k, _, v = ln.partition(":")
                k = k.strip()
                if k == "model name" and info["model"] == "?":
                    info["model"] = v.strip()
                elif k == "flags" and not info["flags"]:
                    fl = set(v.split())
                    info["flags"] = [x for x in ("sse4_1", "sse4_2", "avx", "fma", "avx2", "avx512f",
                                                 "avx512_vnni", "avx512_bf16", "amx_tile") if x in fl]
    except OSError:
        pass
    info["threads"] = os.cpu_count()
    return info


def probe(env: dict) -> str:
    """What the libraries report they use under ``env`` (ATen's capability; MKL's reproducibility
    mode and thread count on both sides, from MKL_VERBOSE)."""
    code = ("import torch, paddle\n"
            "print('PROBE aten_capability', torch.backends.cpu.get_cpu_capability(), flush=True)\n"
            "a = torch.randn(64, 64); a @ a\n"
            "print('PROBE paddle', flush=True)\n"
            "p = paddle.randn([64, 64]); paddle.matmul(p, p)\n")
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, **env, MKL_VERBOSE="1"),
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    side, seen = "torch", []
    for ln in r.stdout.splitlines():
        if ln.startswith("PROBE aten_capability"):
            seen.append("ATen " + ln.split()[-1])
        elif ln.startswith("PROBE paddle"):
            side = "Paddle"
        elif ln.startswith("MKL_VERBOSE SGEMM"):
            f = dict(t.split(":", 1) for t in ln.split() if t.startswith(("CNR:", "NThr:")))
            seen.append(f"{side} MKL sgemm CNR:{f.get('CNR')} threads:{f.get('NThr')}")
    if r.returncode:
        seen.append(f"probe failed (exit {r.returncode})")
    return "; ".join(dict.fromkeys(seen))


def run_setting(name: str, args) -> dict:
    env, _ = SETTINGS[name]
    fd, path = tempfile.mkstemp(prefix=f"opinfo-isa-{name}-", suffix=".json")
    os.close(fd)
    cmd = [sys.executable, "-m", "tests.opinfo.run", "--json", path, "--timeout", str(args.timeout)]
    for opt in ("match", "kinds", "limit"):
        if getattr(args, opt) is not None:
            cmd += [f"--{opt}", str(getattr(args, opt))]
    t = time.perf_counter()
    p = subprocess.run(cmd, env=dict(os.environ, **env), cwd=ROOT, capture_output=True, text=True)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except ValueError:
        raise SystemExit(f"setting {name}: the run wrote no results (exit {p.returncode}):\n"
                         f"{p.stdout[-2000:]}\n{p.stderr[-3000:]}") from None
    finally:
        os.unlink(path)
    run = {"name": name, "env": env, "results": {r["id"]: r for r in data["results"]},
           "seconds": time.perf_counter() - t, "probe": probe(env), "paddle": data["paddle"],
           "facade": args.facade, "selection": {k: getattr(args, k) for k in ("match", "kinds", "limit")}}
    if args.save:  # each setting as soon as it is done: a later one's failure keeps it
        os.makedirs(args.save, exist_ok=True)
        with open(os.path.join(args.save, f"{name}.json"), "w", encoding="utf-8") as f:
            json.dump(run, f)
    return run


def check_ledger(run: dict) -> list[str]:
    """The ledger lines this setting's results contradict (the ledger files as they are now)."""
    from . import ledger
    sel = run["selection"]
    return ledger.check(list(run["results"].values()), partial=bool(sel["match"] or sel["kinds"]),
                        sampled=sel["limit"] is not None)


def verdict(r: dict | None) -> str:
    if r is None:
        return "(not run)"
    return r["status"] if r["status"] != "fail" else f"fail: {r['category']}"


def analyse(runs: list[dict]) -> dict:
    ids = sorted(set().union(*(r["results"] for r in runs)))
    moved, edge = [], []
    for i in ids:
        vs = [verdict(r["results"].get(i)) for r in runs]
        if len(set(vs)) > 1:
            moved.append((i, vs))
        ms = [float(r["results"].get(i, {}).get("margin") or 0.0) for r in runs]
        passing = all(r["results"].get(i, {}).get("status") == "pass" for r in runs)
        if passing and max(ms) >= 0.25:
            edge.append((i, ms))
    edge.sort(key=lambda x: -max(x[1]))
    return {"ids": ids, "moved": moved, "edge": edge}


def _fmt_m(x: float) -> str:
    return f"{x:.2f}" if x < 100 else f"{x:.1e}"


def markdown(runs, an, args, cmdline) -> str:
    from . import tolerance
    facade = args.facade
    c = cpu()
    names = [r["name"] for r in runs]
    out = [f"# OpInfo / ModuleInfo verdicts under forced instruction-set paths (Paddle {runs[0]['paddle']})", "",
           f"Generated by `{cmdline}`; do not edit by hand.", "",
           f"Facade: {facade}.", "",
           f"CPU: {c['model']}, {c['threads']} threads; flags: {' '.join(c['flags'])}"
           + ("" if "avx512f" in c["flags"] else " (no AVX-512: no setting can force it here; see the margins)"), "",
           f"Variants run: {len(an['ids'])}" + (f" (kinds {args.kinds})" if args.kinds else "")
           + (f" (ids containing {args.match})" if args.match else "")
           + (f", first {args.limit} samples per dtype" if args.limit else ", all samples"), "",
           "| setting | environment (both sides: one process) | what the libraries report | pass | fail | ledger | minutes |",
           "|---|---|---|---|---|---|---|"]
    for r in runs:
        env = " ".join(f"{k}={v}" for k, v in r["env"].items()) or "-"
        res = r["results"].values()
        npass = sum(1 for x in res if x["status"] == "pass")
        nfail = sum(1 for x in res if x["status"] == "fail")
        led = "holds" if not r["stale"] else f"{len(r['stale'])} lines off"
        out.append(f"| {r['name']} | `{env}` | {r['probe']} | {npass} | {nfail} | {led} | {r['seconds'] / 60:.1f} |")
    out += ["", "Settings: " + "; ".join(f"**{n}**: {SETTINGS[n][1]}" for n in names), ""]
    out += ["## Verdicts that differ between settings", ""]
    if an["moved"]:
        out += ["| variant | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        out += [f"| {i} | " + " | ".join(vs) + " |" for i, vs in an["moved"]]
    else:
        out.append("None: every variant has the same verdict (status and failure category) under every setting.")
    out += ["", "## Where the ledger and a setting's run disagree", ""]
    common = set.intersection(*(set(r["stale"]) for r in runs))
    if any(r["stale"] for r in runs):
        if common:
            out += ["In every setting (the ledger is stale for this code, whatever the CPU path):", ""]
            out += [f"- {ln}" for ln in sorted(common)]
            out.append("")
        some = [(r["name"], ln) for r in runs for ln in r["stale"] if ln not in common]
        out += ["In some settings only (depends on the CPU path):" if some else
                "In some settings only: none.", ""]
        out += [f"- {n}: {ln}" for n, ln in some]
    else:
        out.append("Nowhere: the ledger matches the run of every setting.")
    out += ["", "## Closest to the tolerance (passing everywhere, largest error >= 0.25 of its tolerance)", "",
            "Margin: the largest |facade - torch| of the variant's float elements divided by the tolerance "
            "that judged it (tests/opinfo/tolerances.txt or the default); 1 is the edge.", ""]
    if an["edge"]:
        out += ["| variant | tolerance entry | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
        tab = tolerance.table()
        for i, ms in an["edge"]:
            op = runs[0]["results"].get(i, {}).get("op", i)
            has = "yes" if any(k in (i, op) for (k, _) in tab) else "-"
            out.append(f"| {i} | {has} | " + " | ".join(_fmt_m(m) for m in ms) + " |")
    else:
        out.append("None.")
    out += ["", "## The tolerance table's entries under each setting", ""]
    out += ["Largest margin of the entry's variants per setting, with the entry / under the default "
            "tolerance (above 1: that setting would fail the variant without the entry).", ""]
    out += ["| entry | dtype | tolerance | variants | " + " | ".join(names) + " |",
            "|---|---|---|---|" + "---|" * len(names)]
    for (k, dt), e in sorted(tolerance.table().items()):
        vids = [i for i in an["ids"] if i == k or runs[0]["results"].get(i, {}).get("op") == k]
        def worst(r, field):
            return max((float(r["results"].get(i, {}).get(field) or 0) for i in vids), default=0.0)
        cells = [f"{_fmt_m(worst(r, 'margin'))} / {_fmt_m(worst(r, 'margin_untabled'))}" for r in runs]
        t = f"rtol={e.tol.rtol:g} atol={e.tol.atol:g}" + (f" max_rtol={e.tol.max_rtol:g}" if e.tol.max_rtol else "")
        out.append(f"| {k} | {dt} | {t} | {len(vids)} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.opinfo.isa", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--settings", default=",".join(SETTINGS), help="comma-separated, of: " + ", ".join(SETTINGS))
    ap.add_argument("--match")
    ap.add_argument("--kinds")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--jobs", type=int, default=1, help="settings run at the same time")
    ap.add_argument("--write", action="store_true", help="write docs/results/opinfo-isa-<paddle>.md")
    ap.add_argument("--name", help="write docs/results/opinfo-isa-<paddle>-<name>.md instead (a second selection)")
    ap.add_argument("--save", help="also keep each setting's results here (<setting>.json)")
    ap.add_argument("--load", help="no run: the settings' results saved with --save in this folder, "
                    "checked against the ledger as it is now")
    args = ap.parse_args(argv)
    names = args.settings.split(",")
    for n in names:
        if n not in SETTINGS:
            ap.error(f"unknown setting {n!r}")
    if args.load:
        runs = []
        for n in names:
            with open(os.path.join(args.load, f"{n}.json"), encoding="utf-8") as f:
                runs.append(json.load(f))
        for r in runs:  # saved by an earlier version of this file: the selection as given now
            r.setdefault("selection", {k: getattr(args, k) for k in ("match", "kinds", "limit")})
            r.setdefault("facade", "not recorded")
        sel = runs[0]["selection"]
        if any(r["selection"] != sel or r["paddle"] != runs[0]["paddle"] for r in runs):
            raise SystemExit("the saved settings were not run on the same selection and Paddle")
        args.match, args.kinds, args.limit = sel["match"], sel["kinds"], sel["limit"]
        args.facade = runs[0]["facade"]
    else:
        from . import report
        args.facade = report.facade_label()  # at the start: other work may change the facade meanwhile
        with ThreadPoolExecutor(max(1, args.jobs)) as ex:
            runs = list(ex.map(lambda n: run_setting(n, args), names))
    for r in runs:
        r["stale"] = check_ledger(r)
    an = analyse(runs)
    argv_ = list(argv if argv is not None else sys.argv[1:])
    for opt in ("--jobs", "--save", "--load"):  # how, not what: left out of the command that reproduces the file
        if opt in argv_:
            j = argv_.index(opt)
            del argv_[j:j + 2]
    if args.load:  # the command that measured these runs
        argv_ = [a for a in argv_ if a != "--write"] + [f"--{k} {v}" for k, v in runs[0]["selection"].items()
                                                        if v is not None]
    cmdline = " ".join(["python -m tests.opinfo.isa"] + [a for a in argv_ if a != "--write"] + ["--write"])
    md = markdown(runs, an, args, cmdline)
    print(md)
    if args.write:
        os.makedirs(RESULTS, exist_ok=True)
        p = os.path.join(RESULTS, f"opinfo-isa-{runs[0]['paddle']}{'-' + args.name if args.name else ''}.md")
        with open(p, "w", encoding="utf-8") as f:
            f.write(md)
        print(f"[opinfo-isa] wrote {os.path.relpath(p, ROOT)}")
    return 1 if an["moved"] or any(r["stale"] for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
