"""junit.xml: one testsuite per library x backend x device, one testcase per case.

``matches`` (``imports`` for the import case; ``runs`` for the oracle without a reference)
passes; ``n/a`` is skipped; ``runs`` with a failed oracle is skipped with the reason;
everything else is a failure (reason class as the type, detail as the text).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET


def _outcome(r):
    status, reason = r["status"], r.get("reason")
    if status == "n/a":
        return "skipped", reason or "n/a", r.get("detail", "")
    if r["case"] == "import":
        return ("pass", "", "") if status == "imports" else ("failure", reason or status, r.get("detail", ""))
    if status == "matches" or (status == "runs" and r["backend"] == "torch" and not reason):
        return "pass", "", ""
    if status == "runs" and reason == "oracle_failed":
        return "skipped", reason, r.get("detail", "")
    return "failure", reason or status, r.get("detail", "")


def render(m) -> str:
    root = ET.Element("testsuites", name="compat_matrix")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for lib in m.libs:
        for b, d in m.columns:
            recs = [r for r in m.records if r["lib"] == lib and r["backend"] == b and r["device"] == d]
            if not recs:
                continue
            suite = ET.SubElement(root, "testsuite", name=f"{lib}.{b}.{d}")
            n = {"tests": 0, "failures": 0, "skipped": 0}
            t_total = 0.0
            for r in recs:
                t = float(r.get("proc_s") or 0.0)
                t_total += t
                tc = ET.SubElement(suite, "testcase", classname=f"{lib}.{b}.{d}", name=r["case"],
                                   time=f"{t:.3f}")
                kind, typ, text = _outcome(r)
                n["tests"] += 1
                if kind == "failure":
                    n["failures"] += 1
                    el = ET.SubElement(tc, "failure", type=typ,
                                       message=(f"{r['status']}: " + (text or "").splitlines()[0][:300]
                                                if text else r["status"]))
                    el.text = text
                elif kind == "skipped":
                    n["skipped"] += 1
                    ET.SubElement(tc, "skipped", message=f"{typ}: {(text or '')[:300]}")
                if r.get("unsupported") or r.get("missing"):
                    props = ET.SubElement(tc, "properties")
                    for name in r.get("unsupported") or []:
                        ET.SubElement(props, "property", name="unsupported", value=name)
                    for name in r.get("missing") or []:
                        ET.SubElement(props, "property", name="missing", value=name)
            for k, v in n.items():
                suite.set(k, str(v))
                totals[k] += v
            suite.set("errors", "0")
            suite.set("time", f"{t_total:.3f}")
    for k, v in totals.items():
        root.set(k, str(v))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
