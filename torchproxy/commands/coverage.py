"""`torchproxy coverage`: the facade's coverage table, generated from the registry, the gaps
ledger and the recorded verification (see torchproxy/coverage.py)."""
from __future__ import annotations

import sys


def add_arguments(p) -> None:
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.add_argument("--out", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument("--record", action="store_true",
                   help="first run the test suites on this Paddle and record which names they "
                        "verified (updates torchproxy/facade/verified.json)")
    p.add_argument("--write-md", action="store_true",
                   help="write docs/COVERAGE.md (the checked-in coverage file; the same output "
                        "on every Paddle version) and exit")
    p.add_argument("--pin-policy", action="store_true",
                   help="record this Paddle series' Tensor install policy (added / dispatched) "
                        "in torchproxy/facade/tensor_policy.json, then exit")
    p.add_argument("--suite", action="append", metavar="PATH",
                   help="test path for --record (repeatable; default: tests/facade, "
                        "tests/facade_runtime)")


def main(args) -> int:
    from .. import coverage
    if args.pin_policy:
        data = coverage.pin_policy()
        print(f"pinned the Paddle {coverage.paddle_series()} policy of {len(data)} Tensor names in "
              f"{coverage.POLICY}", file=sys.stderr)
        return 0
    if args.write_md:
        print(f"wrote {coverage.write_coverage_md()}", file=sys.stderr)
        return 0
    if args.record:
        rec = coverage.record(tuple(args.suite) if args.suite else coverage.DEFAULT_SUITES)
        print(f"recorded: {len(rec['verified'])} names verified by {rec['passed']} passing tests "
              f"({rec['failed_tests']} failing); rewrote {coverage.write_coverage_md()}",
              file=sys.stderr)
    text = coverage.render(args.format)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0
