"""The matrix's static scans in one process: ``python -m compat_matrix.scanjob JOB.json OUT.json``.

``torchproxy scan --json`` of every package the specs name in ``scan=``, with one Classifier
(the facade's table and Paddle, loaded once) instead of one process per library, each of which
imported Paddle and loaded the table again.  JOB holds ``[{"lib", "target", "paths", "exclude"}]``: a
library's own ``pythonpath`` entries go first on ``sys.path`` while its targets are located
(the same package name can live in two places: the FlashInfer port in the venv, the upstream
wheel in its own folder).  OUT gets ``{lib: {target: report or {"error": ...}}}``, a report
being exactly what ``torchproxy scan TARGET --json --no-cpp [--exclude GLOB...]`` prints.
"""
from __future__ import annotations

import importlib
import json
import sys
import time


def run(items: list[dict]) -> dict:
    from torchproxy.scan import scan
    from torchproxy.scan.classify import Classifier

    clf = Classifier()
    base = list(sys.path)
    out: dict = {}
    for item in items:
        lib, target = item["lib"], item["target"]
        sys.path[:] = list(item["paths"]) + base
        importlib.invalidate_caches()
        t0 = time.process_time()
        try:
            rep = scan(target, clf, include_cpp=False, exclude=item.get("exclude", ())).as_dict()
        except FileNotFoundError as e:  # what `torchproxy scan` says (exit 2)
            rep = {"error": f"torchproxy scan: {e}"}
        finally:
            sys.path[:] = base
        out.setdefault(lib, {})[target] = rep
        out.setdefault("_cpu_s", {})[f"{lib}:{target}"] = round(time.process_time() - t0, 2)
    return out


def main(argv=None) -> int:
    from .lifeline import die_with_parent
    die_with_parent()
    job, dest = (sys.argv[1:] if argv is None else argv)[:2]
    with open(job) as f:
        items = json.load(f)
    result = run(items)
    tmp = dest + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f)
    import os
    os.replace(tmp, dest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
