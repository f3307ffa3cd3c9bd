"""matrix.md: summary per library and backend, the full table, the missing torch names."""
from __future__ import annotations

from . import STATUSES

_ICON = {"matches": "✅ matches", "runs": "🟦 runs", "imports": "🟨 imports",
         "fails": "❌ fails", "n/a": "n/a"}


def _esc(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def cell_text(r) -> str:
    if r is None:
        return "·"
    text = _ICON[r["status"]]
    if r.get("reason"):
        text += f" ({r['reason']}"
        if r["reason"] == "unsupported" and r.get("unsupported"):
            text += f": `{r['unsupported'][0]}`"
        text += ")"
    return text


def render(m) -> str:
    meta = m.meta
    env = meta.get("env", {})
    lines = ["# Compatibility matrix", ""]
    if meta:
        lines.append(f"Paddle {env.get('paddle')}, torch {env.get('versions', {}).get('torch')}, "
                     f"triton {env.get('versions', {}).get('triton')}, Python {env.get('python')}; "
                     f"devices {', '.join(m.devices)}; wall time {meta.get('wall_s', '?')} s"
                     + (f" (+{meta['wall_s_previous_runs']} s before resume)"
                        if meta.get("wall_s_previous_runs") else "") + "."
                     + (" CPU = Triton's interpreter, with torchproxy's interpreter fixes (numpy>=2.4 "
                        "`__index__`, float arguments, autotune without a driver, loop index, "
                        "libdevice) applied to every backend alike (oracle included)."
                        if meta.get("options", {}).get("interpreter_fix") else ""))
        for lib, py in sorted(meta.get("options", {}).get("python_for", {}).items()):
            e = meta.get("env_for", {}).get(lib, {})
            lines.append(f"{lib} ran with `{py}` (Paddle {e.get('paddle')}, "
                         f"torch {e.get('versions', {}).get('torch')}).")
        lines.append("")
    lines += ["## Summary (pass = matches real torch; for the import case: imports)", "",
              "| library | cases | " + " | ".join(f"{b} ({d})" for b, d in m.columns) + " |",
              "|---|---:|" + "---:|" * len(m.columns)]
    per_lib = m.cases_per_lib()
    for lib in m.libs + [None]:
        cells = []
        for b, d in m.columns:
            ok, total = m.pass_rate(lib, b, d)
            cells.append(f"{ok}/{total}" if total else "n/a")
        name = lib or "**all**"
        n = per_lib[lib] if lib else sum(per_lib.values())
        lines.append(f"| {name} | {n} | " + " | ".join(cells) + " |")
    fair = []
    for b, d in m.columns:
        if b == "torch":
            continue
        ok, total = m.oracle_ok_rate(b, d)
        fair.append(f"{b} ({d}) matches {ok}/{total}")
    if fair:
        lines += ["", "Of the cases real torch itself runs: " + "; ".join(fair) + "."]
    lines += ["", "Status counts: " + "; ".join(
        f"{b} ({d}): " + ", ".join(f"{s} {m.counts(None, b, d)[s]}" for s in STATUSES
                                   if m.counts(None, b, d)[s])
        for b, d in m.columns), ""]

    from .html import STATUS_MEANING, oracle_fails
    lines += ["Statuses: " + "; ".join(f"**{k}**: {v}" for k, v in STATUS_MEANING.items())
              + ". ⚠ = real torch did not run this case either.", ""]
    lines += ["## All cases", "",
              "| library | case | " + " | ".join(f"{b} ({d})" for b, d in m.columns) + " |",
              "|---|---|" + "---|" * len(m.columns)]
    for lib, case in m.rows:
        cells = []
        for b, d in m.columns:
            r = m.cells.get((lib, case, b, d))
            cells.append(cell_text(r) + (" ⚠" if r and oracle_fails(m, r) else ""))
        lines.append(f"| {lib} | {case} | " + " | ".join(cells) + " |")

    lines += ["", "## Missing torch names (torchproxy, from the tracer)", ""]
    missing = m.missing_names("torchproxy")
    if not missing:
        lines.append("None recorded.")
    for lib, names in missing.items():
        lines.append(f"- **{lib}**: " + ", ".join(f"`{n}` ({len(c)})" for n, c in names.items()))

    lines += ["", "## Missing torch names in each library's code (static: `torchproxy scan`)", ""]
    if not m.scans:
        lines.append("No static scan (no spec names `scan` packages, or --no-scan).")
    for lib in sorted(m.scans):
        names, summary = m.static_missing(lib)
        lines.append(f"- **{lib}** ({summary}): " + (", ".join(f"`{n}`" for n in names) or "none"))

    lines += ["", "## Failure details", ""]
    for r in m.records:
        if r["status"] in ("matches", "n/a") or not r.get("reason"):
            continue
        detail = _esc((r.get("detail") or "").strip().splitlines()[0] if r.get("detail") else "")
        mark = " (torch fails too)" if oracle_fails(m, r) else ""
        lines.append(f"- {r['lib']}/{r['case']} [{r['backend']}, {r['device']}] "
                     f"{r['status']} / {r['reason']}{mark}: {detail[:300]}")
    libs = meta.get("libraries", {})
    if libs:
        lines += ["", "## Install", ""]
        for name, info in sorted(libs.items()):
            if info.get("install"):
                lines.append(f"- {name}: `" + " && ".join(info["install"]) + "`")
    return "\n".join(lines) + "\n"
