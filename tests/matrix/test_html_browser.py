"""The HTML report in a real headless browser (Debian's chromium): load it with a filter in the
URL hash, dump the DOM after the page's JS ran, check which rows are shown; take a screenshot."""
import html.parser
import os
import shutil
import subprocess

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None,
                                reason="chromium is not installed (apt-get install chromium)")


def _chromium(tmp_path, *args):
    profile = tmp_path / f"profile{len(list(tmp_path.iterdir()))}"
    profile.mkdir()
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


class _Rows(html.parser.HTMLParser):
    """Collects <body> data attributes and each grid row's (lib, case, hidden)."""

    def __init__(self):
        super().__init__()
        self.body, self.rows = {}, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "tr" and a.get("class") == "row":
            self.rows.append((a["data-lib"], a["data-case"], "hidden" in a))


def _dom(tmp_path, url):
    r = _chromium(tmp_path, "--dump-dom", url)
    assert r.returncode == 0, r.stderr[-2000:]
    p = _Rows()
    p.feed(r.stdout)
    assert p.body.get("data-ready") == "1", "the page's script did not finish"
    return p


def test_hash_filter_shows_exactly_the_matching_rows(fixture_run, tmp_path):
    out, cells = fixture_run
    page = "file://" + os.path.join(out, "matrix.html")

    everything = _dom(tmp_path, page)
    assert len(everything.rows) == len({c for c, _ in cells}) == 9
    assert not any(hidden for *_, hidden in everything.rows)
    assert everything.body["data-visible-rows"] == "9"

    filtered = _dom(tmp_path, page + "#backend=torchproxy&status=fails")
    shown = {case for _, case, hidden in filtered.rows if not hidden}
    expected = {case for (case, backend), r in cells.items()
                if backend == "torchproxy" and r["status"] == "fails"}
    assert shown == expected and 0 < len(shown) < 9, (shown, expected)
    assert filtered.body["data-visible-rows"] == str(len(expected))

    by_reason = _dom(tmp_path, page + "#reason=crash")
    assert {case for _, case, hidden in by_reason.rows if not hidden} == {"crash"}


def test_screenshot(fixture_run, tmp_path):
    out, _ = fixture_run
    shot = os.path.join(out, "matrix.png")
    r = _chromium(tmp_path, "--window-size=1300,900", f"--screenshot={shot}",
                  "file://" + os.path.join(out, "matrix.html") + "#status=fails")
    assert r.returncode == 0, r.stderr[-2000:]
    with open(shot, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert os.path.getsize(shot) > 10_000  # a rendered page, not a blank image
