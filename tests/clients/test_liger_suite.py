"""Liger-Kernel 0.8.5's own tests (liger_suite.SELECTED), unmodified: every case real torch
passes must pass under the proxy, except the ones in liger_suite.KNOWN_PROXY_FAILURES (each with its reason;
the test fails when that set changes either way, so a fix or a regression shows)."""
from __future__ import annotations

import pytest

import liger_suite as ls

pytest.importorskip("torch")
pytest.importorskip("paddle")
pytest.importorskip("triton")
pytest.importorskip("transformers")  # Liger's test/utils.py imports it
pytest.importorskip("pytest_timeout")

def test_liger_selected_cases():
    try:
        ls.sources()
    except ls.SourcesMissing as e:
        pytest.skip(str(e))
    real, proxy, out = ls.compare(ls.SELECTED)
    ok = sorted(k for k, v in real.items() if v == "PASSED")
    assert len(ok) == len(ls.SELECTED), f"real torch passed only {len(ok)} selected cases: {real}"
    failing = {k for k in ok if proxy.get(k) != "PASSED"}
    known = {k for k in ls.KNOWN_PROXY_FAILURES if k in ok}
    unexpected = sorted(failing - known)
    fixed = sorted(known - failing)
    tail = out[out.find("torchproxy ====="):][:2000]
    assert not unexpected, (f"the proxy fails {len(unexpected)} cases real torch passes: "
                            f"{unexpected}\n{tail}")
    assert not fixed, f"now passing under the proxy (drop from KNOWN_PROXY_FAILURES): {fixed}"
    print(f"Liger-Kernel {ls.VERSION}: real torch passes {len(ok)} selected cases, the proxy "
          f"{len(ok) - len(failing)}")
