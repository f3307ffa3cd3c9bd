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
td.cell{min-width:92px;color:#fff;font-size:12px;cursor:pointer;white-space:nowrap}
td.cell.dim{opacity:.25} .lib{color:#666}
.legend span{display:inline-block;padding:1px 8px;margin-right:6px;border-radius:3px;color:#fff;font-size:12px}
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
function cellLabel(r){
  if (!r) return '·';
  let t = r.status;
  if (r.reason) t += ' · ' + r.reason;
  return t;
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
      td.textContent = cellLabel(r);
      if (r && r.unsupported && r.unsupported.length) td.textContent += ': ' + r.unsupported[0];
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
  for (const th of document.querySelectorAll('#grid thead th[data-backend]'))
    th.hidden = STATE.backend && th.dataset.backend !== STATE.backend;
  document.body.dataset.visibleRows = visible;
  $('count').textContent = visible + ' of ' + DATA.rows.length + ' cases shown';
  if (updateHash) writeHash();
}
build(); readHash(); apply(false);
document.body.dataset.ready = '1';
"""


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
        "cells": {"\u0001".join(k): {f: r.get(f) for f in
                                      ("status", "reason", "detail", "unsupported", "missing",
                                       "compared_to", "proc_s")}
                  for k, r in m.cells.items()},
    }
    blob = json.dumps(data).replace("</", "<\\/")
    meta_line = (f"Paddle {env.get('paddle')} · torch {env.get('versions', {}).get('torch')} · "
                 f"triton {env.get('versions', {}).get('triton')} · Python {env.get('python')} · "
                 f"wall time {m.meta.get('wall_s', '?')} s · {len(m.records)} cells"
                 + (" · CPU: Triton interpreter with Triton 3.9's __index__ fix in every backend"
                    if m.meta.get("options", {}).get("interpreter_fix") else ""))
    legend = "".join(f"<span style='background:{c}'>{s}</span>" for s, c in COLOURS.items())
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>torchproxy compatibility matrix</title>
<style>{_CSS}</style></head>
<body>
<h1>torchproxy compatibility matrix</h1>
<div class="meta">{html.escape(meta_line)}</div>
<div class="legend">{legend}</div>
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
<h2>Missing torch names (torchproxy, from torchproxy.trace())</h2>
{_missing_section(m)}
<h2>Missing torch names in each library's code (static: torchproxy scan)</h2>
{_static_section(m)}
<script type="application/json" id="data">{blob}</script>
<script>{_JS}</script>
</body></html>
"""
