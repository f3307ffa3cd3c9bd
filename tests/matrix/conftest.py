"""One run of the fixture spec (tests/matrix/fixtures/specs/fake.py) shared by the tests:
every cell is a real worker subprocess, so it is done once per session."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from matrix_testpaths import FIXTURE_SPECS, ROOT  # noqa: E402
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


@pytest.fixture(scope="session")
def fixture_run(tmp_path_factory):
    """-> (out dir, {(case, backend): record}) for the fake library on all three backends."""
    from compat_matrix import reports
    from compat_matrix.runner import Options, Runner, read_results
    out = str(tmp_path_factory.mktemp("matrix"))
    runner = Runner(Options(out=out, specs=[FIXTURE_SPECS], jobs=2, timeout=60))
    runner.plan()
    runner.run()
    reports.write_all(out)
    recs = read_results(os.path.join(out, "results.jsonl"))
    return out, {(k[1], k[2]): r for k, r in recs.items()}
