"""The coverage report, generated from the source of truth: ``registry.TABLE`` (torch names),
``registry.TENSOR_TABLE`` (Tensor methods), ``facade/gaps.toml`` (known gaps and why) and
``facade/verified.json`` (which names the test suites exercised and passed, per Paddle version).

"Verified on Paddle X" means: recorded by :func:`record` -- the suites ran on Paddle X, and the
name was used (as traced by ``torchproxy.trace()``) by at least one passing test and by no
failing one.  Nothing else marks a name verified; a name no recording covers shows none.

    python -m torchproxy coverage --format markdown --out COVERAGE.md
    python -m torchproxy coverage --record          # run the suites on this Paddle, update the record
"""
from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
GAPS = os.path.join(HERE, "facade", "gaps.toml")
VERIFIED = os.path.join(HERE, "facade", "verified.json")
POLICY = os.path.join(HERE, "facade", "tensor_policy.json")
ROOT = os.path.dirname(HERE)
COVERAGE_MD = os.path.join(ROOT, "docs", "COVERAGE.md")
OPINFO_STATUS = os.path.join(ROOT, "docs", "results", "opinfo-status.json")
DEFAULT_SUITES = ("tests/facade", "tests/facade_runtime")


# -- inputs -------------------------------------------------------------------------------------
def load_gaps(path: str | None = None) -> dict[str, str]:
    """gaps.toml: ``"torch.name" = "reason"`` lines (a flat TOML table)."""
    path = path or GAPS
    if not os.path.exists(path):
        return {}
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the flat subset gaps.toml is written in
        return _parse_flat_toml(path)
    with open(path, "rb") as f:
        data = tomllib.load(f)
    out = {}
    for k, v in data.items():
        if not isinstance(v, str):
            raise ValueError(f"{path}: {k!r} must map to a reason string, got {type(v).__name__}")
        out[k] = v
    return out


def _parse_flat_toml(path: str) -> dict[str, str]:
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, val = line.partition("=")
            key, val = key.strip(), val.strip()
            if not sep or not (val.startswith('"') and val.endswith('"')):
                raise ValueError(f"{path}:{n}: expected `\"torch.name\" = \"reason\"`")
            out[json.loads(key) if key.startswith('"') else key] = json.loads(val)
    return out


def load_verified(path: str | None = None) -> dict:
    path = path or VERIFIED
    if not os.path.exists(path):
        return {"paddle": {}}
    with open(path) as f:
        return json.load(f)


def load_policy(path: str | None = None) -> dict[str, dict[str, str]]:
    """tensor_policy.json: the pinned install policy of every Tensor name, per Paddle series
    (``{"torch.Tensor.numel": {"2.6": "dispatched", "3.3": "dispatched"}}``).  ``added``: Paddle
    lacks the attribute, ours is added as is (free for Paddle's callers); ``dispatched``: Paddle
    has it, a scope check picks torch's or Paddle's meaning on every call; ``paddle``: not
    registered on that version (Paddle's own attribute already has torch's meaning)."""
    path = path or POLICY
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def paddle_series(version: str | None = None) -> str:
    """'3.3.1' -> '3.3' (the policy is pinned per series)."""
    if version is None:
        import paddle
        version = paddle.__version__
    return ".".join(version.split(".")[:2])


def policy_here() -> dict[str, str]:
    """The install policy of every Tensor name declared by an area, on the Paddle loaded here."""
    from .facade import registry, tensor as _tensor
    registry.load_table()
    out = {}
    for name in _declared_tensor_names():
        out[name] = (_tensor.policy_of(name.rsplit(".", 1)[1]) if name in registry.TENSOR_TABLE
                     else "paddle")
    return out


def _declared_tensor_names() -> list[str]:
    import sys as _sys
    from .facade import registry
    names = set(registry.TENSOR_TABLE)
    for area in registry.AREAS:
        names |= {n for n in getattr(_sys.modules[area], "NAMES", ())
                  if n.startswith("torch.Tensor.")}
    return sorted(names)


def pin_policy(path: str | None = None) -> dict:
    """Record this Paddle series' policy column in tensor_policy.json (other series kept)."""
    path = path or POLICY
    data = load_policy(path)
    series = paddle_series()
    here = policy_here()
    for name in set(data) | set(here):
        col = data.setdefault(name, {})
        if name in here:
            col[series] = here[name]
        else:
            col.pop(series, None)
    data = {k: dict(sorted(v.items())) for k, v in sorted(data.items()) if v}
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items())
                + "\n}\n")
    return data


def load_opinfo_status(path: str | None = None) -> dict:
    """docs/results/opinfo-status.json (written by tests/opinfo): per torch name and Paddle
    version, pass / fail of torch's OpInfo variants.  Absent: no OpInfo column."""
    path = path or OPINFO_STATUS
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f).get("names", {})


# -- rows ---------------------------------------------------------------------------------------
def _how(entry) -> str:
    impl = entry.impl
    if entry.kind == "alias":
        return impl
    if entry.kind == "module":
        return "facade module"
    if entry.kind == "value":
        r = repr(impl)
        return r if len(r) <= 60 else r[:57] + "..."
    if isinstance(impl, property):
        impl = impl.fget
    from .facade.layout import ORIGINAL_NAMES  # where ours is written, before torch's name
    if id(impl) in ORIGINAL_NAMES:
        return ORIGINAL_NAMES[id(impl)]
    mod = getattr(impl, "__module__", None) or type(impl).__module__
    name = getattr(impl, "__qualname__", None) or type(impl).__qualname__
    return f"{mod}.{name}"


def rows() -> list[dict]:
    """One row per provided torch name (module tree entries, then Tensor methods)."""
    from .facade import registry, tensor as _tensor
    registry.load_table()
    verified = load_verified().get("paddle", {})

    def on(name):
        return sorted(v for v, rec in verified.items() if name in set(rec.get("verified", ())))

    out = []
    for name in sorted(registry.TABLE):
        e = registry.TABLE[name]
        out.append({"name": name, "kind": e.kind, "how": _how(e), "note": e.note,
                    "verified_on": on(name)})
    for name in sorted(registry.TENSOR_TABLE):
        e = registry.TENSOR_TABLE[name]
        attr = name.rsplit(".", 1)[1]
        kind = "property" if isinstance(e.impl, property) else "method"
        out.append({"name": name, "kind": f"tensor {kind}",
                    "how": f"{_tensor.policy_of(attr)}: {_how(e)}", "note": e.note,
                    "verified_on": on(name)})
    return out


def category(name: str, entry=None) -> str:
    """function / method / inplace / property / type / value / module."""
    if name.startswith("torch.Tensor.") and name != "torch.Tensor.":
        attr = name.rsplit(".", 1)[1]
        if entry is not None and isinstance(entry.impl, property):
            return "property"
        if attr.endswith("_") and not attr.endswith("__"):
            return "inplace"
        return "method"
    if entry is None:
        return "function"
    return {"alias": "function", "adapter": "function"}.get(entry.kind, entry.kind)


def _md_how(name, entry) -> str:
    """``how`` without anything that depends on the Paddle version loaded (values' reprs do)."""
    if entry is None:
        return "not registered on every Paddle version (CONDITIONAL in its area)"
    if entry.kind == "value":
        return "value"
    return _how(entry)


def md_rows() -> list[dict]:
    """Rows of docs/COVERAGE.md: every name any area declares (NAMES), the same on every Paddle
    version (the install policy comes from tensor_policy.json, not from the Paddle loaded)."""
    import sys as _sys
    from .facade import registry
    registry.load_table()
    verified = load_verified().get("paddle", {})
    vsets = {v: set(rec.get("verified", ())) for v, rec in verified.items()}
    policy = load_policy()
    opinfo = load_opinfo_status()
    gaps = load_gaps()
    area_of, conditional = {}, {}
    for area in registry.AREAS:
        mod = _sys.modules[area]
        for n in getattr(mod, "NAMES", ()):
            area_of[n] = area.rsplit(".", 1)[1]
        cond = getattr(mod, "CONDITIONAL", ())
        for n in cond:
            conditional[n] = cond[n] if isinstance(cond, dict) else ""
    out = []
    for name in sorted(set(area_of) | set(registry.TABLE) | set(registry.TENSOR_TABLE)):
        entry = registry.TABLE.get(name) or registry.TENSOR_TABLE.get(name)
        if name in conditional:
            entry = None
        pol = policy.get(name, {})
        ops = opinfo.get(name, {})
        note = conditional.get(name) or (entry.note if entry is not None else "")
        quals = [g[len(name) + 1:] for g in gaps if g.startswith(name + " (")]
        if quals:
            note = (note + "; " if note else "") + "gaps.toml: " + ", ".join(quals)
        out.append({
            "name": name, "area": area_of.get(name, "?"), "category": category(name, entry),
            "policy": ", ".join(f"{s}: {p}" for s, p in sorted(pol.items(), reverse=True)),
            "how": _md_how(name, entry),
            "note": note,
            "verified_on": sorted(v for v, names in vsets.items() if name in names),
            "opinfo": ", ".join(f"{v}: {e.get('status')}" for v, e in sorted(ops.items(),
                                                                          reverse=True)),
        })
    return out


def render_coverage_md() -> str:
    """docs/COVERAGE.md: generated (``torchproxy coverage --write-md``), checked in, and
    compared with a fresh rendering by tests/facade_runtime/test_coverage.py."""
    rs = md_rows()
    gaps = load_gaps()
    ver = load_verified()
    cats = Counter(r["category"] for r in rs)
    tensor = [r for r in rs if r["category"] in ("method", "inplace", "property")]
    series = sorted({s for r in tensor for s in load_policy().get(r["name"], {})}, reverse=True)
    pol_counts = []
    for s in series:
        c = Counter(p for r in tensor if (p := load_policy().get(r["name"], {}).get(s)))
        pol_counts.append(f"Paddle {s}: " + ", ".join(f"{n} {k}" for k, n in sorted(c.items())))
    has_opinfo = any(r["opinfo"] for r in rs)
    out = ["# torchproxy coverage", "",
           "Generated by `torchproxy coverage --write-md` from the facade's registry (every area's "
           "`NAMES`), `torchproxy/facade/gaps.toml`, `torchproxy/facade/verified.json`, "
           "`torchproxy/facade/tensor_policy.json`"
           + (" and `docs/results/opinfo-status.json`" if has_opinfo else "")
           + "; do not edit by hand (tests/facade_runtime/test_coverage.py fails when it is "
           "stale).", "",
           f"**{len(rs)} torch names provided**: "
           + ", ".join(f"{n} {k}" for k, n in sorted(cats.items())) + ".", "",
           "Tensor names, install policy per Paddle series (`added`: Paddle lacks the attribute, "
           "ours is added and costs Paddle's callers nothing; `dispatched`: Paddle has it, every "
           "call pays a scope check; `paddle`: Paddle's own attribute, not registered there):", ""]
    out += [f"- {line}" for line in pol_counts]
    out += _layout_md(gaps)
    out += ["", "Verification (a name is verified on a Paddle version when the suites used it in "
            "a passing test and in no failing one):", ""]
    out += [f"- {line}" for line in _verified_legend(report_verified(rs, ver))]
    head = "| torch name | area | kind | Tensor policy | how | verified on Paddle | caveat |"
    sep = "|---|---|---|---|---|---|---|"
    if has_opinfo:
        head += " OpInfo |"
        sep += "---|"
    out += ["", head, sep]
    for r in rs:
        line = (f"| `{r['name']}` | {r['area']} | {r['category']} | {r['policy'] or '-'} | "
                f"`{_md(r['how'])}` | {', '.join(r['verified_on']) or '-'} | {_md(r['note'])} |")
        if has_opinfo:
            line += f" {r['opinfo'] or '-'} |"
        out.append(line)
    provided = {r["name"] for r in rs}
    also = sorted(set(gaps) & provided)
    out += [""] + [f"**WARNING**: `{n}` is provided AND listed in gaps.toml" for n in also]
    out += ["", f"## Known gaps ({len(gaps)})", "", "| torch name | why |", "|---|---|"]
    for name, reason in sorted(gaps.items()):
        out.append(f"| `{name}` | {_md(reason)} |")
    return "\n".join(out) + "\n"


def _layout_md(gaps) -> list[str]:
    """Per torch module: how many of the paths torch documents (facade/torch_layout.json) the
    facade resolves, and how many gaps.toml covers."""
    from .facade import layout, modules
    data = layout.load()
    out = ["", f"torch's module layout (torch {data['torch']}, `{data['generated_by']}`): paths "
           "torch documents per module (`__all__`, public names, home paths of its objects), "
           "resolved by the facade / listed in gaps.toml / neither (tests/facade_runtime/"
           "test_layout.py keeps the last at 0):", "",
           "| torch module | torch paths | resolved | gaps | neither |", "|---|---|---|---|---|"]
    for mod, total, prov, gap, miss in layout.counts(modules.build(), gaps):
        out.append(f"| `{mod}` | {total} | {prov} | {gap} | {miss} |")
    return out


def report_verified(rs, ver) -> dict:
    """The ``verified`` part of report() for md_rows()."""
    return {"verified": {v: {"names": sum(1 for r in rs if v in r["verified_on"]),
                             "recorded": rec.get("recorded"), "commit": rec.get("commit"),
                             "uncommitted_files": rec.get("uncommitted_files"),
                             "gpu": rec.get("gpu"), "suites": rec.get("suites"),
                             "tests_passed": rec.get("passed"),
                             "tests_failed": rec.get("failed_tests")}
                         for v, rec in sorted(ver.get("paddle", {}).items())}}


def write_coverage_md(path: str | None = None) -> str:
    path = path or COVERAGE_MD
    text = render_coverage_md()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def report() -> dict:
    import paddle
    rs = rows()
    gaps = load_gaps()
    ver = load_verified()
    kinds = Counter(r["kind"] for r in rs)
    return {
        "paddle_here": paddle.__version__,
        "provided": len(rs),
        "by_kind": dict(sorted(kinds.items())),
        "verified": {v: {"names": sum(1 for r in rs if v in r["verified_on"]),
                         "recorded": rec.get("recorded"), "commit": rec.get("commit"),
                         "uncommitted_files": rec.get("uncommitted_files"),
                         "gpu": rec.get("gpu"),
                         "suites": rec.get("suites"), "tests_passed": rec.get("passed"),
                         "tests_failed": rec.get("failed_tests")}
                     for v, rec in sorted(ver.get("paddle", {}).items())},
        "rows": rs,
        "gaps": dict(sorted(gaps.items())),
        # a name both provided and listed as a gap: one of the two is wrong
        "gaps_also_provided": sorted(set(gaps) & {r["name"] for r in rs}),
    }


# -- rendering ----------------------------------------------------------------------------------
def _verified_legend(rep) -> list[str]:
    lines = []
    for v, info in rep["verified"].items():
        lines.append(f"Paddle {v}: {info['names']} names verified by {info['tests_passed']} passing "
                     f"tests ({info['tests_failed']} failing) of {', '.join(info['suites'] or [])}, "
                     f"recorded {info['recorded']} at commit {str(info['commit'])[:10]}"
                     + (f" (+{info['uncommitted_files']} uncommitted files)"
                        if info.get("uncommitted_files") else "")
                     + ("; no GPU: torch.cuda names verified for their no-CUDA behaviour only"
                        if info.get("gpu") is False else ""))
    if not lines:
        lines.append("no verification recorded (torchproxy coverage --record)")
    return lines


def render_text(rep) -> str:
    out = [f"torchproxy coverage: {rep['provided']} torch names provided "
           f"({', '.join(f'{k} {n}' for k, n in rep['by_kind'].items())}); "
           f"Tensor method policy as on Paddle {rep['paddle_here']}"]
    out += ["  " + line for line in _verified_legend(rep)]
    out.append("")
    w = max(len(r["name"]) for r in rep["rows"]) if rep["rows"] else 10
    for r in rep["rows"]:
        ver = ",".join(r["verified_on"]) or "-"
        out.append(f"{r['name']:<{w}}  {r['kind']:<15}  verified: {ver:<12}  {r['how']}")
        if r["note"]:
            out.append(f"{'':<{w}}    note: {r['note']}")
    out.append("")
    for name in rep["gaps_also_provided"]:
        out.append(f"WARNING: {name} is provided AND listed in gaps.toml")
    out.append(f"known gaps ({len(rep['gaps'])}):")
    for name, reason in rep["gaps"].items():
        out.append(f"  {name}: {reason}")
    return "\n".join(out) + "\n"


def _md(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def render_markdown(rep) -> str:
    out = ["# torchproxy coverage", "",
           f"{rep['provided']} torch names provided: "
           + ", ".join(f"{n} {k}" for k, n in rep["by_kind"].items())
           + f". Tensor method policy (added / dispatched) as on Paddle {rep['paddle_here']}.", ""]
    out += [f"- {line}" for line in _verified_legend(rep)]
    out += ["", "| torch name | kind | how | verified on Paddle | caveat |", "|---|---|---|---|---|"]
    for r in rep["rows"]:
        out.append(f"| `{r['name']}` | {r['kind']} | `{_md(r['how'])}` | "
                   f"{', '.join(r['verified_on']) or '-'} | {_md(r['note'])} |")
    out += [""] + [f"**WARNING**: `{n}` is provided AND listed in gaps.toml" for n in rep["gaps_also_provided"]]
    out += ["", f"## Known gaps ({len(rep['gaps'])})", "", "| torch name | why |", "|---|---|"]
    for name, reason in rep["gaps"].items():
        out.append(f"| `{name}` | {_md(reason)} |")
    return "\n".join(out) + "\n"


def render(fmt: str) -> str:
    rep = report()
    if fmt == "json":
        return json.dumps(rep, indent=1) + "\n"
    if fmt == "markdown":
        return render_markdown(rep)
    if fmt == "text":
        return render_text(rep)
    raise ValueError(f"unknown format {fmt!r} (text, markdown, json)")


# -- recording verification ---------------------------------------------------------------------
def _recorder():
    """A pytest plugin tracing each test function: the names of passing and of failing tests."""
    import pytest

    class Recorder:
        def __init__(self):
            self.passed_names: set[str] = set()
            self.failed_names: set[str] = set()
            self.passed = 0
            self.failed = 0

        @pytest.hookimpl(hookwrapper=True)
        def pytest_pyfunc_call(self, pyfuncitem):
            import torchproxy
            with torchproxy.trace() as t:
                outcome = yield
            names = set(t.used)
            exc = outcome.excinfo
            if exc is not None and issubclass(exc[0], (pytest.skip.Exception,
                                                       pytest.xfail.Exception)):
                return  # skipped inside the test: neither verifies nor refutes
            if exc is None:
                self.passed += 1
                self.passed_names |= names
            else:
                self.failed += 1
                self.failed_names |= names

    return Recorder()


def record_key(version: str, gpu: bool) -> str:
    """'3.3.1' on a CPU-only run, '3.3.1+gpu' on a GPU run."""
    return f"{version}+gpu" if gpu else version


def _git_commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def _git_dirty_count() -> int | None:
    """How many files differed from that commit when recording (0 = the commit is the code)."""
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return len([line for line in out.splitlines() if line.strip()])


def record(suites=DEFAULT_SUITES, path: str | None = None, extra_args=()) -> dict:
    """Run ``suites`` with pytest in this process (this Paddle) and store what they verified."""
    import paddle
    path = path or VERIFIED
    import pytest
    rec = _recorder()
    args = ["-q", "-p", "no:cacheprovider", *extra_args,
            *[s if os.path.isabs(s) else os.path.join(ROOT, s) for s in suites]]
    code = pytest.main(args, plugins=[rec])
    if code not in (0, 1):  # 1 = some tests failed (recorded as such); others: no usable run
        raise RuntimeError(f"pytest exited with {code}: nothing recorded")
    data = load_verified(path)
    gpu = bool(paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0)
    # one record per Paddle version and machine kind: a GPU run does not replace the CPU one
    key = record_key(paddle.__version__, gpu)
    data.setdefault("paddle", {})[key] = {
        "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _git_commit(),
        "uncommitted_files": _git_dirty_count(),
        "python": sys.version.split()[0],
        # without a GPU, torch.cuda names are verified for their no-CUDA behaviour only
        "gpu": gpu,
        "suites": list(suites),
        "passed": rec.passed,
        "failed_tests": rec.failed,
        "verified": sorted(rec.passed_names - rec.failed_names),
        "used_by_failing_tests": sorted(rec.failed_names),
    }
    data["definition"] = ("a name is verified on a Paddle version when the suites, run on it, "
                          "used it in at least one passing test and in no failing test")
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    return data["paddle"][key]
