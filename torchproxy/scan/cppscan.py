"""Static scan of C++/CUDA sources for torch's C++ headers.

``#include <torch/extension.h>``, ``<ATen/...>``, ``<c10/...>`` mean the extension is built
against libtorch: it needs the real torch C++ library at build and load time, which a Python
facade cannot provide.  Extensions built on tvm-ffi / DLPack (FlashInfer >= 0.4) have none.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".inl")

# the torch C++ include roots: torch/, ATen/, c10/, caffe2/ (and THC/ in old code)
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]((?:torch|ATen|c10|caffe2|THC)/[^>"]+)[>"]',
                      re.MULTILINE)


@dataclass(frozen=True)
class Include:
    header: str   # "torch/extension.h"
    path: str
    line: int


def scan_source(text: str, path: str) -> list[Include]:
    out = []
    for m in _INCLUDE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out.append(Include(m.group(1), path, line))
    return out
