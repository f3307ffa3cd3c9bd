"""matrix.html: one self-contained page (no CDN, no network): the matrix as a colour grid.

Filters (library, status, backend, reason, text) live in the URL hash, e.g.
``matrix.html#lib=liger_kernel&status=fails``, so a filtered view is a link, and a headless
browser can load a filtered page (tests/matrix/test_html_browser.py).  The data is embedded as
JSON; the grid is built by plain JS.  ``body[data-visible-rows]`` and each row's ``hidden``
attribute are kept up to date for tests and for scripts.
"""
from __future__ import annotations

import html
import json

from . import STATUSES

COLOURS = {"matches": "#2e9d4f", "runs": "#3b7dd8", "imports": "#e0b000",
           "fails": "#d64541", "n/a": "#b8b8b8"}

_CSS = """
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,sans-serif;margin:16px;color:#222}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:20px 0 6px}
.meta{color:#555;margin-bottom:10px}
#filters{display:flex;flex-wrap:wrap;gap:10px;align-items:center;padding:8px;background:#f4f4f4;
 border-radius:6px;position:sticky;top:0;z-index:2}
#filters label{font-size:13px} select,input{font:inherit;padding:2px 4px}
table{border-collapse:collapse} th,td{border:1px solid #ddd;padding:3px 6px;text-align:left}
th{background:#fafafa;position:sticky;top:44px}
td.cell{min-width:92px;max-width:300px;color:#fff;font-size:12px;cursor:pointer;vertical-align:top}
td.cell .st{font-weight:600;white-space:nowrap} td.cell .msg{display:block;font:11px/1.25 ui-monospace,monospace;
 opacity:.95;word-break:break-word;margin-top:2px}
td.cell.oracle-fails{background-image:repeating-linear-gradient(135deg,rgba(255,255,255,.18) 0 6px,transparent 6px 12px)}
td.cell .tag{display:inline-block;background:rgba(0,0,0,.28);border-radius:3px;padding:0 4px;margin-left:4px;font-size:10px}
table.legend-table td{vertical-align:top;font-size:13px} table.legend-table td:first-child{white-space:nowrap}
#failures li{font:12px/1.35 ui-monospace,monospace;margin:2px 0} #failures li[hidden]{display:none}
td.cell.dim{opacity:.25} .lib{color:#666}
.legend span,.swatch{display:inline-block;padding:1px 8px;margin-right:6px;border-radius:3px;color:#fff;font-size:12px}
#detail{white-space:pre-wrap;background:#fbfbe8;border:1px solid #e5e5b0;padding:8px;margin:10px 0;
 font:12px/1.35 ui-monospace,monospace;display:none;max-height:300px;overflow:auto}
.missing code{background:#f1f1f1;padding:0 3px;margin:1px;display:inline-block}
.summary td,.summary th{text-align:right} .summary td:first-child{text-align:left}
"""

_JS = r"""
const DATA = JSON.parse(document.getElementById('data').textContent);
const COLOURS = DATA.colours;
const STATE = {lib:'', status:'', backend:'', reason:'', q:''};
const $ = id => document.getElementById(id);

function readHash(){
  const h = new URLSearchParams(location.hash.slice(1));
  for (const k of Object.keys(STATE)) STATE[k] = h.get(k) || '';
  for (const k of ['lib','status','backend','reason','q']) $('f-'+k).value = STATE[k];
}
function writeHash(){
  const h = new URLSearchParams();
  for (const [k,v] of Object.entries(STATE)) if (v) h.set(k, v);
  const s = h.toString();
  history.replaceState(null, '', s ? '#'+s : location.pathname);
}
function options(sel, values){
  for (const v of values){ const o = document.createElement('option'); o.value = v; o.textContent = v; sel.appendChild(o); }
}
function fillCell(td, r){
  if (!r){ td.textContent = '·'; return; }
  const st = document.createElement('span'); st.className = 'st';
  st.textContent = r.status + (r.reason ? ' · ' + r.reason : '');
  td.appendChild(st);
  if (r.oracle_fails){
    const tag = document.createElement('span'); tag.className = 'tag';
    tag.textContent = 'torch fails too'; st.appendChild(tag);
    td.classList.add('oracle-fails');
  }
  if (r.msg){
    const m = document.createElement('span'); m.className = 'msg'; m.textContent = r.msg;
    td.appendChild(m);
  }
}
function build(){
  options($('f-lib'), DATA.libs); options($('f-status'), DATA.statuses);
  options($('f-backend'), DATA.backends); options($('f-reason'), DATA.reasons);
  const head = $('grid').querySelector('thead tr');
  for (const [b,d] of DATA.columns){
    const th = document.createElement('th'); th.textContent = b + ' (' + d + ')';
    th.dataset.backend = b; head.appendChild(th);
  }
  const body = $('grid').querySelector('tbody');
  for (const [lib, c] of DATA.rows){
    const tr = document.createElement('tr'); tr.className = 'row';
    tr.dataset.lib = lib; tr.dataset.case = c;
    tr.innerHTML = '<td class="lib"></td><td class="case"></td>';
    tr.children[0].textContent = lib; tr.children[1].textContent = c;
    for (const [b,d] of DATA.columns){
      const r = DATA.cells[[lib,c,b,d].join('\u0001')];
      const td = document.createElement('td'); td.className = 'cell';
      td.dataset.backend = b; td.dataset.status = r ? r.status : '';
      td.dataset.reason = r && r.reason ? r.reason : '';
      td.style.background = r ? COLOURS[r.status] : '#eee';
      fillCell(td, r);
      td.title = r ? (r.detail || r.status) : '';
      td.onclick = () => showDetail(lib, c, b, d, r);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  for (const k of ['lib','status','backend','reason']) $('f-'+k).onchange = e => { STATE[k] = e.target.value; apply(); };
  $('f-q').oninput = e => { STATE.q = e.target.value; apply(); };
  $('f-clear').onclick = () => { for (const k of Object.keys(STATE)) STATE[k]=''; readHashFromState(); apply(); };
  window.addEventListener('hashchange', () => { readHash(); apply(false); });
}
function readHashFromState(){ for (const k of Object.keys(STATE)) $('f-'+k).value = STATE[k]; }
function showDetail(lib, c, b, d, r){
  const el = $('detail'); el.style.display = 'block';
  el.textContent = lib + ' / ' + c + ' [' + b + ', ' + d + ']\n' + (r ? JSON.stringify(r, null, 1) : 'no result');
}
function apply(updateHash=true){
  let visible = 0;
  for (const tr of document.querySelectorAll('#grid tbody tr.row')){
    let show = !STATE.lib || tr.dataset.lib === STATE.lib;
    let any = false;
    const q = STATE.q.toLowerCase();
    for (const td of tr.querySelectorAll('td.cell')){
      const colShown = !STATE.backend || td.dataset.backend === STATE.backend;
      td.hidden = !colShown;
      const hit = colShown && (!STATE.status || td.dataset.status === STATE.status)
                  && (!STATE.reason || td.dataset.reason === STATE.reason)
                  && (!q || (tr.dataset.case + ' ' + td.textContent + ' ' + td.title).toLowerCase().includes(q));
      td.classList.toggle('dim', !hit && (STATE.status || STATE.reason || q) !== '');
      any = any || hit;
    }
    show = show && any;
    tr.hidden = !show;
    if (show) visible++;
  }
  for (const div of document.querySelectorAll('.missing'))
    div.hidden = STATE.lib && div.dataset.lib !== STATE.lib;
  for (const li of document.querySelectorAll('#failures li'))
    li.hidden = (STATE.lib && li.dataset.lib !== STATE.lib) || (STATE.backend && li.dataset.backend !== STATE.backend)
                || (STATE.reason && li.dataset.reason !== STATE.reason) || (STATE.status && li.dataset.status !== STATE.status);
  for (const th of document.querySelectorAll('#grid thead th[data-backend]'))
    th.hidden = STATE.backend && th.dataset.backend !== STATE.backend;
  document.body.dataset.visibleRows = visible;
  $('count').textContent = visible + ' of ' + DATA.rows.length + ' cases shown';
  if (updateHash) writeHash();
}
build(); readHash(); apply(false);
document.body.dataset.ready = '1';
"""


STATUS_MEANING = {
    "matches": "ran, and its outputs equal real torch's (per-dtype tolerances); for the torch "
               "column: equal the case's numpy reference",
    "runs": "ran, but there was nothing to compare with (real torch failed and the case has no "
            "numpy reference; or real torch itself, on a case without a reference)",
    "imports": "the library imported; the case gave no result: it raised, crashed or timed out "
               "(the reason says which)",
    "fails": "did not get as far as importing, or gave wrong numbers",
    "n/a": "the backend or device does not exist here (no GPU; Paddle without paddle.compat)",
}
REASON_MEANING = {
    "unsupported": "a torch name the backend lacks (named in the cell)",
    "wrong_numbers": "outputs differ from real torch (or from the numpy reference)",
    "error": "an exception (type and message)",
    "import_error": "importing the library or the case's modules raised",
    "not_installed": "the library is not installed in the worker's Python (install line in the details)",
    "crash": "the worker process died (signal or exit code)",
    "timeout": "no result within the case's time limit; the worker was killed",
    "oracle_failed": "this backend ran, but real torch did not: nothing to compare with",
    "unavailable": "the device or backend is not here",
}


def first_message(r) -> str:
    """What a non-matching cell shows in the grid: the named torch name, or the first line of
    its detail (shortened)."""
    if r["status"] == "matches":
        return ""
    if r.get("reason") == "unsupported" and r.get("unsupported"):
        return r["unsupported"][0]
    detail = (r.get("detail") or "").strip()
    if not detail:
        return ""
    line = detail.splitlines()[0]
    return line if len(line) <= 140 else line[:137] + "..."


def oracle_fails(m, r) -> bool:
    """A proxy cell whose case real torch itself did not run (on the same device)."""
    if r["backend"] == "torch" or r["case"] == "import" or r["status"] == "n/a":
        return False
    o = m.cells.get((r["lib"], r["case"], "torch", r["device"]))
    return bool(o) and o["status"] not in ("runs", "matches") and o.get("outputs") is None


def _legend() -> str:
    rows = "".join(f"<tr><td><span class='swatch' style='background:{COLOURS[s]}'>{s}</span></td>"
                   f"<td>{html.escape(STATUS_MEANING[s])}</td></tr>" for s in STATUSES)
    rows += ("<tr><td><span class='swatch oracle-mark' style='background:#888;background-image:"
             "repeating-linear-gradient(135deg,rgba(255,255,255,.3) 0 6px,transparent 6px 12px)'>"
             "torch fails too</span></td><td>real torch did not run this case either (on this device): "
             "the cell says nothing about the proxy</td></tr>")
    reasons = "; ".join(f"<b>{html.escape(k)}</b>: {html.escape(v)}" for k, v in REASON_MEANING.items())
    return (f"<table class='legend-table'><tbody>{rows}</tbody></table>"
            f"<p class='reasons'>Reasons: {reasons}. Each non-matching cell shows its reason and "
            "first message; click a cell for the full record.</p>")


def _failures(m) -> str:
    items = []
    for r in m.records:
        if r["status"] in ("matches", "n/a") or not r.get("reason"):
            continue
        detail = first_message(r) if r.get("reason") != "unsupported" else \
            ((r.get("detail") or "").strip().splitlines() or [""])[0]
        mark = " [torch fails too]" if oracle_fails(m, r) else ""
        items.append(f"<li data-lib='{html.escape(r['lib'])}' data-backend='{html.escape(r['backend'])}' "
                     f"data-status='{html.escape(r['status'])}' data-reason='{html.escape(r['reason'])}'>"
                     f"{html.escape(r['lib'])}/{html.escape(r['case'])} [{html.escape(r['backend'])}, "
                     f"{html.escape(r['device'])}] {html.escape(r['status'])} / {html.escape(r['reason'])}"
                     f"{mark}: {html.escape(detail[:300])}</li>")
    return f"<ul id='failures'>{''.join(items)}</ul>" if items else "<p>None.</p>"


def _summary_table(m) -> str:
    head = "".join(f"<th>{html.escape(b)} ({html.escape(d)})</th>" for b, d in m.columns)
    rows = []
    per_lib = m.cases_per_lib()
    for lib in m.libs + [None]:
        cells = []
        for b, d in m.columns:
            ok, total = m.pass_rate(lib, b, d)
            pct = f" ({100 * ok / total:.0f}%)" if total else ""
            cells.append(f"<td>{ok}/{total}{pct}</td>" if total else "<td>n/a</td>")
        name = html.escape(lib) if lib else "<b>all</b>"
        n = per_lib[lib] if lib else sum(per_lib.values())
        rows.append(f"<tr><td>{name}</td><td>{n}</td>{''.join(cells)}</tr>")
    fair = []
    for b, d in m.columns:
        if b != "torch":
            ok, total = m.oracle_ok_rate(b, d)
            fair.append(f"{html.escape(b)} ({html.escape(d)}) matches {ok}/{total}")
    note = (f"<p>Of the cases real torch itself runs: {'; '.join(fair)}.</p>" if fair else "")
    return (f"<table class='summary'><thead><tr><th>library</th><th>cases</th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>{note}")


def _missing_section(m) -> str:
    missing = m.missing_names("torchproxy")
    if not missing:
        return "<p>None recorded.</p>"
    parts = []
    for lib, names in missing.items():
        items = " ".join(f"<code title='{html.escape(', '.join(c))}'>{html.escape(n)} ({len(c)})</code>"
                         for n, c in names.items())
        parts.append(f"<div class='missing' data-lib='{html.escape(lib)}'><b>{html.escape(lib)}</b> "
                     f"({len(names)} names): {items}</div>")
    return "".join(parts)


def _static_section(m) -> str:
    if not m.scans:
        return "<p>No static scan (no spec names `scan` packages, or --no-scan).</p>"
    parts = []
    for lib in sorted(m.scans):
        names, summary = m.static_missing(lib)
        items = " ".join(f"<code>{html.escape(n)}</code>" for n in names) or "none"
        parts.append(f"<div class='missing' data-lib='{html.escape(lib)}'><b>{html.escape(lib)}</b> "
                     f"({html.escape(summary)}): {items}</div>")
    return "".join(parts)


def render(m) -> str:
    env = m.meta.get("env", {})
    data = {
        "libs": m.libs, "backends": m.backends, "statuses": list(STATUSES), "colours": COLOURS,
        "reasons": sorted({r["reason"] for r in m.records if r.get("reason")}),
        "columns": m.columns, "rows": m.rows,
        "cells": {"\u0001".join(k): {**{f: r.get(f) for f in
                                         ("status", "reason", "detail", "unsupported", "missing",
                                          "compared_to", "proc_s")},
                                      "msg": first_message(r), "oracle_fails": oracle_fails(m, r)}
                  for k, r in m.cells.items()},
    }
    blob = json.dumps(data).replace("</", "<\\/")
    meta_line = (f"Paddle {env.get('paddle')} · torch {env.get('versions', {}).get('torch')} · "
                 f"triton {env.get('versions', {}).get('triton')} · Python {env.get('python')} · "
                 f"wall time {m.meta.get('wall_s', '?')} s · {len(m.records)} cells"
                 + (" · CPU: Triton's interpreter with torchproxy's interpreter fixes in every backend "
                    "(numpy>=2.4 index, float args, autotune, loop index, libdevice), the oracle included"
                    if m.meta.get("options", {}).get("interpreter_fix") else ""))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>torchproxy compatibility matrix</title>
<style>{_CSS}</style></head>
<body>
<h1>torchproxy compatibility matrix</h1>
<div class="meta">{html.escape(meta_line)}</div>
<h2>What the cells say</h2>
<div class="legend">{_legend()}</div>
<h2>Pass rates (proxies: matches real torch; torch: matches the numpy reference, or runs when the case has none; import case: imports)</h2>
{_summary_table(m)}
<h2>All cases</h2>
<div id="filters">
 <label>library <select id="f-lib"><option value="">all</option></select></label>
 <label>status <select id="f-status"><option value="">any</option></select></label>
 <label>backend <select id="f-backend"><option value="">all</option></select></label>
 <label>reason <select id="f-reason"><option value="">any</option></select></label>
 <label>text <input id="f-q" type="search" placeholder="case, reason, torch name"></label>
 <button id="f-clear">clear</button> <span id="count"></span>
</div>
<div id="detail"></div>
<table id="grid"><thead><tr><th>library</th><th>case</th></tr></thead><tbody></tbody></table>
<h2>Failure details (every cell that did not match; filters apply)</h2>
{_failures(m)}
<h2>Missing torch names (torchproxy, from torchproxy.trace())</h2>
{_missing_section(m)}
<h2>Missing torch names in each library's code (static: torchproxy scan)</h2>
{_static_section(m)}
<script type="application/json" id="data">{blob}</script>
<script>{_JS}</script>
</body></html>
"""
