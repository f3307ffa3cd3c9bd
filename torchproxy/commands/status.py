"""`torchproxy status`: what is enabled in this process (TORCHPROXY_SCOPE applies), which
scopes, which modules got the facade, and what this machine has."""
from __future__ import annotations

import json


def add_arguments(p) -> None:
    p.add_argument("--json", action="store_true", help="print JSON")


def main(args) -> int:
    import torchproxy

    st = torchproxy.status()
    if args.json:
        print(json.dumps(st, indent=2))
        return 0
    width = max(len(k) for k in st)
    for key, value in st.items():
        if isinstance(value, list):
            value = ", ".join(value) or "-"
        print(f"{key:<{width}}  {value}")
    return 0
