"""The spec format: one Python file per library in ``compat_matrix/specs/`` (see README.md).

A spec file defines ``LIBRARY = Library(...)`` and ``CASES = [Case(...), ...]``.  Case
functions are written for torch and import torch (and the library) *inside* the function:
the same file is imported by the runner (no torch at all), by the oracle worker (real torch)
and by the proxy workers, where the spec module itself is put in scope so its ``import torch``
gets the backend under test.

Inputs are data (``randn(4, 64)``...), generated once from numpy with a seed derived from the
case id, saved to a file, and handed identically to every backend.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys
import zlib
from typing import Any, Callable

import numpy as np

BACKENDS = ("torch", "torchproxy", "paddle_compat")
ORACLE = "torch"
DEVICES = ("cpu", "gpu")

# (rtol, atol) per output dtype; a case may override any of them with Case(tol={...}).
DEFAULT_TOL = {
    "float64": (1e-7, 1e-9),
    "float32": (1e-5, 1e-6),
    "float16": (1e-3, 1e-3),
    "bfloat16": (1.6e-2, 1e-2),
}


@dataclasses.dataclass(frozen=True)
class Library:
    name: str                              # the matrix's row group
    scope: tuple[str, ...]                 # modules that get the facade (torchproxy.enable(scope=))
    requires: tuple[str, ...] = ()         # top-level modules that must be installed
    imports: tuple[str, ...] = ()          # imported by every case before it runs: the "imports" level
    # THE pinned requirements of the library, installed with `pip install --no-deps` (the oracle's
    # torch is pinned separately: a library's own `torch` requirement would pull CUDA wheels).
    # ./dev installs them (python -m compat_matrix --requirements); reports show them.
    pip: tuple[str, ...] = ()
    install: tuple[str, ...] = ()          # further shell commands that install it (README, reports)
    devices: tuple[str, ...] = DEVICES     # where its cases can run at all
    env: tuple[tuple[str, str], ...] = ()  # extra environment for its workers
    pythonpath: tuple[str, ...] = ()       # extra sys.path entries, relative to the spec file
    scan: tuple[str, ...] = ()             # packages `torchproxy scan` reads statically (reports)
    scan_exclude: tuple[str, ...] = ()     # globs under them the scan skips (`--exclude`): vendored trees
    # ("backend", "device", "module:function"): called in that backend's worker after the
    # backend is enabled, before the library is imported -- what a user of that backend does
    # once, e.g. ("torchproxy", "gpu", "torchproxy.integrations.triton:bind").  "*" matches any.
    setup: tuple[tuple[str, str, str], ...] = ()
    notes: str = ""
    # why it does not run on the devices left out of ``devices`` (the n/a cells' detail), e.g.
    # "needs a Paddle 3.3+ CUDA build with the compat headers; sm_90"
    unavailable_reason: str = ""

    def install_lines(self) -> list[str]:
        """How to install it: the pinned pip line first, then any further commands."""
        lines = ["pip install --no-deps " + " ".join(self.pip)] if self.pip else []
        return lines + list(self.install)


@dataclasses.dataclass(frozen=True)
class Input:
    """One positional input: an array generated from numpy, or a plain Python value."""
    kind: str                # randn | rand | randint | value
    shape: tuple = ()
    dtype: str = "float32"
    args: tuple = ()         # randn: (scale,); rand: (low, high); randint: (low, high)
    grad: bool = False       # hand it over with requires_grad (torch) / stop_gradient=False
    value: Any = None        # kind == "value"

    def generate(self, rng: np.random.Generator):
        if self.kind == "value":
            return self.value
        if self.kind == "randn":
            (scale,) = self.args
            a = rng.standard_normal(self.shape) * scale
        elif self.kind == "rand":
            low, high = self.args
            a = rng.uniform(low, high, self.shape)
        elif self.kind == "randint":
            low, high = self.args
            a = rng.integers(low, high, self.shape)
        else:
            raise ValueError(f"unknown input kind {self.kind!r}")
        # bfloat16 has no numpy dtype: generated as float32 rounded to bf16, converted per backend
        np_dtype = "float32" if self.dtype == "bfloat16" else self.dtype
        a = np.asarray(a).astype(np_dtype)
        if self.dtype == "bfloat16":
            a = round_to_bfloat16(a)
        return a


def round_to_bfloat16(a: np.ndarray) -> np.ndarray:
    """float32 values that are exactly representable in bfloat16 (round to nearest even)."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def randn(*shape, dtype="float32", scale=1.0, grad=False) -> Input:
    return Input("randn", tuple(shape), dtype, (float(scale),), grad)


def rand(*shape, dtype="float32", low=0.0, high=1.0, grad=False) -> Input:
    return Input("rand", tuple(shape), dtype, (float(low), float(high)), grad)


def randint(low, high, *shape, dtype="int64") -> Input:
    return Input("randint", tuple(shape), dtype, (int(low), int(high)))


def value(v) -> Input:
    """A plain Python value (int, float, str, bool, tuple...) passed as is."""
    return Input("value", value=v)


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    fn: Callable                                   # torch-style; returns tensors / tuples / scalars
    inputs: tuple = ()                             # Input objects, positional
    kwargs: dict = dataclasses.field(default_factory=dict)  # plain Python keyword arguments
    tol: dict = dataclasses.field(default_factory=dict)     # dtype -> (rtol, atol) overrides
    reference: Callable | None = None              # numpy function of the inputs (optional)
    imports: tuple[str, ...] = ()                  # modules of this case only (import stage)
    devices: tuple[str, ...] | None = None         # default: the library's
    timeout: float | None = None                   # seconds; default: the runner's --timeout
    notes: str = ""

    def __post_init__(self):
        object.__setattr__(self, "inputs", tuple(self.inputs))

    def tolerance(self, dtype: str) -> tuple[float, float]:
        return self.tol.get(dtype, DEFAULT_TOL.get(dtype, (0.0, 0.0)))


def case_seed(library: str, case: str) -> int:
    return zlib.crc32(f"{library}/{case}".encode())


def make_inputs(library: str, case: Case) -> list:
    rng = np.random.default_rng(case_seed(library, case.name))
    return [inp.generate(rng) for inp in case.inputs]


# -- loading spec files ------------------------------------------------------------------------
SPECS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "specs")


@dataclasses.dataclass
class SpecFile:
    module_name: str   # what the spec module is called when imported (it joins the scope)
    path: str
    library: Library
    cases: list[Case]


def module_name_for(path: str) -> str:
    """Built-in specs are ``compat_matrix.specs.<stem>``; others get a name of their own."""
    path = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    if os.path.dirname(path) == SPECS_DIR:
        return f"compat_matrix.specs.{stem}"
    return f"compat_matrix_ext_{zlib.crc32(os.path.dirname(path).encode()):08x}.{stem}"


def import_spec(path: str, module_name: str | None = None, pre_exec: Callable | None = None):
    """Import a spec file as a module (fresh).  ``pre_exec(module)`` runs before its code,
    e.g. to mark it for paddle.compat's scope the way Paddle's own loader would."""
    module_name = module_name or module_name_for(path)
    parent = module_name.rpartition(".")[0]
    if parent and parent not in sys.modules:
        import types
        pkg = types.ModuleType(parent)
        pkg.__path__ = []
        sys.modules[parent] = pkg
    spec = importlib.util.spec_from_file_location(module_name, path)
    mod = importlib.util.module_from_spec(spec)
    if pre_exec is not None:
        pre_exec(mod)
    sys.modules[module_name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return mod


def load_spec(path: str) -> SpecFile:
    mod = import_spec(path)
    lib = getattr(mod, "LIBRARY", None)
    cases = getattr(mod, "CASES", None)
    if not isinstance(lib, Library) or not isinstance(cases, (list, tuple)):
        raise ValueError(f"{path}: a spec defines LIBRARY = Library(...) and CASES = [Case(...)]")
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"{path}: duplicate case names {sorted(dup)}")
    if "import" in names:
        raise ValueError(f"{path}: 'import' is reserved for the import case the runner adds")
    return SpecFile(mod.__name__, os.path.abspath(path), lib, list(cases))


def spec_paths(dirs=None) -> list[str]:
    out = []
    for d in dirs or [SPECS_DIR]:
        if os.path.isfile(d):
            out.append(os.path.abspath(d))
            continue
        for fn in sorted(os.listdir(d)):
            if fn.endswith(".py") and not fn.startswith("_"):
                out.append(os.path.join(os.path.abspath(d), fn))
    return out


def load_specs(dirs=None, libs=None) -> list[SpecFile]:
    return select_specs([load_spec(p) for p in spec_paths(dirs)], libs)


def select_specs(specs: list[SpecFile], libs=None) -> list[SpecFile]:
    """The specs of the libraries named in ``libs`` (all without it); a name no spec has is
    refused, naming the known ones."""
    if libs:
        wanted = set(libs)
        unknown = wanted - {s.library.name for s in specs}
        if unknown:
            raise ValueError(f"unknown libraries {sorted(unknown)}; known: "
                             f"{sorted(s.library.name for s in specs)}")
        specs = [s for s in specs if s.library.name in wanted]
    return specs
