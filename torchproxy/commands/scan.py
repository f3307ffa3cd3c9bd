"""`torchproxy scan <package-or-path>`: a porting report before running anything.

Lists every torch name the package's Python code uses (static scan), grouped into provided /
provided with caveats / missing by the facade's own table, with file:line for each missing
one, plus attributes named like torch Tensor / nn.Module attributes the facade lacks,
torch.library registrations, likely Tensor-method calls and C++ torch includes.  A static
check: "ready" cannot rule out runtime crashes or numerical differences (the output says so).
"""
from __future__ import annotations

import json
import sys


def add_arguments(p) -> None:
    p.add_argument("target", nargs="+",
                   help="an installed package name (not imported) or a directory / .py file")
    p.add_argument("--json", action="store_true", help="print the full report as JSON")
    p.add_argument("--all-sites", action="store_true",
                   help="list every file:line of each missing name (default: first 3)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="skip paths matching GLOB, relative to the target (e.g. 'data/*' for "
                        "a vendored tree); repeatable")
    p.add_argument("--no-cpp", action="store_true", help="skip C/C++/CUDA sources")
    p.add_argument("--summary-md", action="store_true",
                   help="print one Markdown table row of headline numbers per target")
    p.add_argument("--label", action="append", default=[],
                   help="with --summary-md: the row label of each target, in order")
    p.add_argument("--cpp", action="store_true",
                   help="print the C++ report: at::/torch::/c10:: names, TORCH_*/AT_*/C10_* macros "
                        "and torch headers the C++/CUDA sources use, and which of them the "
                        "installed Paddle's torch-compatible C++ headers provide (Markdown)")
    p.add_argument("--fail-on-missing", action="store_true",
                   help="exit 1 when any torch name is missing, or any attribute named like a "
                        "torch Tensor / nn.Module attribute the facade lacks is used (for CI "
                        "gates: exit 0 means the static verdict is 'ready')")


def main(args) -> int:
    from torchproxy.scan import MISSING, scan
    from torchproxy.scan.classify import Classifier
    from torchproxy.scan.text import render, summary_markdown

    clf = Classifier()
    reports = []
    for target in args.target:
        try:
            reports.append(scan(target, clf, include_cpp=not args.no_cpp, exclude=args.exclude))
        except FileNotFoundError as e:
            print(f"torchproxy scan: {e}", file=sys.stderr)
            return 2
    if args.cpp:
        from torchproxy.scan.cppscan import render_markdown
        labels = args.label if len(args.label) == len(reports) else args.target
        print("\n".join(render_markdown(lab, r.cpp_symbols) for lab, r in zip(labels, reports)))
        return 0
    if args.summary_md:
        labels = args.label if len(args.label) == len(reports) else None
        print(summary_markdown(reports, labels))
    elif args.json:
        data = [r.as_dict() for r in reports]
        print(json.dumps(data[0] if len(data) == 1 else data, indent=2))
    else:
        print("\n\n".join(render(r, None if args.all_sites else 3) for r in reports))
    if args.fail_on_missing and any(r.summary[MISSING] or r.attributes for r in reports):
        return 1
    return 0
