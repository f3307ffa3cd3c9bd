"""The known-open findings ledger (tests/memory/ledger.json) and the regression chains
(tests/memory/regressions.json), as the CI test reads them.

ledger.json: {"findings": [{"id": "F4", "title": ..., "paddle": ["3", "2"],
                            "classes": ["facade raises"], "match": REGEX}, ...]}
  - ``paddle``: the Paddle series (major version) on which the finding is open;
  - ``classes``: the failure classes it explains (tests/memory/viewcompare.py CLASSES, plus
    "fails only after earlier chains" for a chain that fails in its batch but not alone);
  - ``match``: a regular expression searched in the chain's one-line snippet plus its reduction
    (``ledger_text``), and the optional
    ``detail``: one searched in the failure's text ("stride/offset/contiguous torch ... facade
    ..."): the finding explains a failure only when its class is one of ``classes`` AND both match.
regressions.json: [{"id": "F4-a", "finding": "F4", "chain": {...}}, ...]: every failing chain the
fuzzer found, shrunk.  A regression whose finding is open on this series must still fail with
one of its classes (a strict xfail); one that passes says "remove it from the ledger".
"""
from __future__ import annotations

import json
import os
import re

from chainrun import REDUCE
from viewchains import one_line

HERE = os.path.dirname(os.path.abspath(__file__))
LEDGER = os.path.join(HERE, "ledger.json")
REGRESSIONS = os.path.join(HERE, "regressions.json")
CONTEXT = "fails only after earlier chains"


def load_ledger():
    with open(LEDGER) as f:
        return json.load(f)["findings"]


def load_regressions():
    with open(REGRESSIONS) as f:
        return json.load(f)


def open_findings(series: str):
    """Findings open on this Paddle series ("3" or "2")."""
    return [f for f in load_ledger() if series in f["paddle"]]


def ledger_text(chain) -> str:
    """What ``match`` is searched in: the snippet and the grad part's reduction."""
    return one_line(chain) + "; " + REDUCE[chain["reduce"]].replace("\n", "; ")


def explain(chain, failures, findings, text=None):
    """failures: [(class, detail)] -> (explained: {class: finding id}, unexplained: [(class, detail)]).

    A failure is explained by an open finding that names its class, whose ``match`` is found in
    the chain's snippet and whose optional ``detail`` is found in the failure's text.  ``text``:
    what ``match`` is searched in, when not a view chain's (the gradient-state fuzzer's
    programs)."""
    text = ledger_text(chain) if text is None else text
    explained, unexplained = {}, []
    for cls, detail in failures:
        hit = next((f["id"] for f in findings
                    if cls in f["classes"] and re.search(f["match"], text)
                    and re.search(f.get("detail", ""), detail)), None)
        if hit:
            explained[cls] = hit
        else:
            unexplained.append((cls, detail))
    return explained, unexplained
