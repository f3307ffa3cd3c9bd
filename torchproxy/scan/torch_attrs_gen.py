"""Writes ``torch_attrs.py``: the public attribute names of the torch classes whose attributes
``torchproxy scan`` looks for on receivers it cannot type (``x.relu()``, ``self.compile()`` in
an ``nn.Module`` subclass).  The scan itself runs without torch, so the names are recorded from
real torch once, by this command (it needs real torch installed):

    python -m torchproxy.scan.torch_attrs_gen

``tests/scan/test_scan_truth.py`` fails when the file differs from the installed torch of the
same version.
"""
from __future__ import annotations

import os
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_attrs.py")


def collect() -> tuple[str, dict[str, tuple[str, ...]]]:
    import torch
    objs = {"torch.Tensor": (torch.Tensor, torch.zeros(1)),
            "torch.nn.Module": (torch.nn.Module, torch.nn.Module())}
    attrs = {}
    for name, (cls, instance) in objs.items():
        # class attributes and what a default instance adds (nn.Module's `training`)
        found = set(dir(cls)) | set(dir(instance))
        attrs[name] = tuple(sorted(a for a in found if not a.startswith("_")))
    return torch.__version__, attrs


def render(version: str, attrs: dict) -> str:
    lines = ['"""Public attribute names of torch classes, recorded from real torch by',
             "``python -m torchproxy.scan.torch_attrs_gen`` (generated: do not edit).",
             '"""', "", f"TORCH_VERSION = {version!r}", "", "ATTRS = {"]
    for name, names in attrs.items():
        lines.append(f"    {name!r}: (")
        row = "       "
        for a in names:
            item = f" {a!r},"
            if len(row) + len(item) > 99:
                lines.append(row)
                row = "       "
            row += item
        lines.append(row)
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    version, attrs = collect()
    with open(OUT, "w") as f:
        f.write(render(version, attrs))
    print(f"wrote {OUT} (torch {version}: "
          + ", ".join(f"{k} {len(v)}" for k, v in attrs.items()) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
