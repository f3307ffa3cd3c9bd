"""The terminal rendering of a scan :class:`~torchproxy.scan.Report`."""
from __future__ import annotations

import textwrap

from .classify import CAVEAT, MISSING, PROVIDED, STATIC_NOTE


def _sites(sites, limit):
    if limit is None or len(sites) <= limit:
        return ", ".join(sites)
    return ", ".join(sites[:limit]) + f" (+{len(sites) - limit} more)"


def render(report, site_limit: int | None = 3, method_limit: int = 20) -> str:
    s = report.summary
    out = [f"torchproxy scan: {report.target} ({report.root})",
           f"  {report.python_files} Python files, {report.cpp_files} C/C++/CUDA files scanned "
           "(static: nothing imported)"
           + (f"; excluded: {', '.join(report.exclude)}" if report.exclude else ""),
           f"  {STATIC_NOTE}",
           "",
           f"torch names used: {s['used']}   provided: {s[PROVIDED]}   "
           f"with caveats: {s[CAVEAT]}   missing: {s[MISSING]}"]

    missing = [n for n in report.names if n.status == MISSING]
    if missing:
        out += ["", f"MISSING ({len(missing)}), most used first:"]
        for n in sorted(missing, key=lambda x: (-len(x.sites), x.name)):
            out.append(f"  {n.name}  [{len(n.sites)} use{'s' if len(n.sites) != 1 else ''}]"
                       + (f"  -- {n.note}" if n.note else ""))
            out.append(f"      at {_sites(n.sites, site_limit)}")
            if n.written:
                out.append(f"      written as {_sites(n.written, 6)}")
    if report.attributes:
        out += ["", f"ATTRIBUTES THE FACADE LACKS ({len(report.attributes)}), used on receivers "
                    "of unknown type (fail where the receiver is a tensor / module):"]
        for a in report.attributes:
            out.append(f"  {a['name']}  [{a['uses']} use{'s' if a['uses'] != 1 else ''}]"
                       + (f"  -- {a['note']}" if a["note"] else ""))
            out.append(f"      at {_sites(a['sites'], site_limit)}")
    caveats = [n for n in report.names if n.status == CAVEAT]
    if caveats:
        out += ["", f"PROVIDED WITH CAVEATS ({len(caveats)}):"]
        for n in caveats:
            out.append(f"  {n.name}  [{len(n.sites)}]  -- {n.note}")
    provided = [n for n in report.names if n.status == PROVIDED]
    if provided:
        out += ["", f"PROVIDED ({len(provided)}):"]
        out += textwrap.wrap(", ".join(n.name for n in provided), 100,
                             initial_indent="  ", subsequent_indent="  ")

    if report.registrations:
        ns = sorted({r["op"].split("::")[0] for r in report.registrations})
        out += ["", f"torch.library registrations: {len(report.registrations)} "
                    f"(namespaces: {', '.join(ns)})"]
    if report.tensor_methods:
        shown = report.tensor_methods[:method_limit]
        out += ["", "Tensor methods (static guess: call names only, receivers unknown; "
                    f"top {len(shown)} of {len(report.tensor_methods)}):"]
        for m in shown:
            mark = {PROVIDED: "provided", CAVEAT: "caveat", MISSING: "MISSING"}[m["status"]]
            out.append(f"  .{m['name']}()  x{m['calls']}  {mark}"
                       + (f"  -- {m['note']}" if m["note"] else ""))
    if report.cpp_includes:
        out += ["", "C++ torch headers (need libtorch at build and load time):"]
        for h, sites in sorted(report.cpp_includes.items()):
            out.append(f"  <{h}>  at {_sites(sites, site_limit)}")
    if report.errors:
        out += ["", f"files that could not be parsed ({len(report.errors)}):"]
        out += [f"  {e}" for e in report.errors]
    out += ["", f"verdict: {report.verdict}"]
    return "\n".join(out)


def summary_markdown(reports, labels=None, top: int = 8) -> str:
    """One Markdown table row per report: the headline numbers (docs/porting-reports.md)."""
    out = ["| package | .py / C++ files | torch names used | provided | with caveats | missing "
           "| C++ files with torch headers | torch.library registrations | most used missing "
           "(uses) |",
           "|---|---|---|---|---|---|---|---|---|"]
    for i, r in enumerate(reports):
        s = r.summary
        label = labels[i] if labels else r.target
        top_missing = ", ".join(f"`{n.name}` ({len(n.sites)})" for n in r.top_missing(top))
        out.append(f"| {label} | {r.python_files} / {r.cpp_files} | {s['used']} | {s[PROVIDED]} "
                   f"| {s[CAVEAT]} | {s[MISSING]} | {s['cpp_header_files']} "
                   f"| {len(r.registrations)} | {top_missing or '-'} |")
    return "\n".join(out)
