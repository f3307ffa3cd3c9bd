"""torchproxy.abi_shim without decoding: schema binding (pure Python) and the symbol audit
(every symbol paddlecodec's libraries import is defined by the shim, Paddle or the system)."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from torchproxy import abi_shim

SCHEMA = ('add_video_stream(Tensor(a!) decoder, *, int? num_threads=None, str? dimension_order'
          '=None, int? stream_index=None, str device="cpu", str device_variant="ffmpeg", '
          'str transform_specs="", (Tensor, Tensor, Tensor)? custom_frame_mappings=None) -> ()')


def test_parse_schema():
    name, params = abi_shim.parse_schema(SCHEMA)
    assert name == "add_video_stream"
    assert [p[0] for p in params] == ["decoder", "num_threads", "dimension_order",
                                      "stream_index", "device", "device_variant",
                                      "transform_specs", "custom_frame_mappings"]
    assert params[0][1] is abi_shim._MISSING and params[0][2] is False
    assert [p[1] for p in params[1:]] == [None, None, None, "cpu", "ffmpeg", "", None]
    assert all(p[2] for p in params[1:])  # after "*": keyword-only
    name, params = abi_shim.parse_schema("seek(Tensor d, float s=1.5, int[] xs=[1, 2]) -> ()")
    assert [(p[0], p[1]) for p in params[1:]] == [("s", 1.5), ("xs", [1, 2])]


@pytest.fixture
def schema(monkeypatch):
    monkeypatch.setitem(abi_shim._SCHEMAS, "ns::op", abi_shim.parse_schema(SCHEMA))
    monkeypatch.setitem(abi_shim._SCHEMAS, "ns::nos", None)


def test_bind_arguments(schema):
    # keyword arguments in any order land in schema order, defaults fill the rest
    assert abi_shim.bind_arguments("ns::op", ("D",), {"stream_index": 3, "num_threads": 1}) == (
        "D", 1, None, 3, "cpu", "ffmpeg", "", None)
    assert abi_shim.bind_arguments("ns::nos", ("D",), {"x": 1}) is None  # no schema: as is
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        abi_shim.bind_arguments("ns::op", ("D",), {"bogus": 1})
    with pytest.raises(TypeError, match="missing value for argument 'decoder'"):
        abi_shim.bind_arguments("ns::op", (), {})
    with pytest.raises(TypeError, match="multiple values for argument 'decoder'"):
        abi_shim.bind_arguments("ns::op", ("D",), {"decoder": "E"})
    with pytest.raises(TypeError, match="at most 1 positional"):  # keyword-only after "*"
        abi_shim.bind_arguments("ns::op", ("D", 1), {})


def _symbols(nm, libs, *options):
    """lib -> the dynamic symbols ``nm -D *options`` lists for it, as (type, name) pairs.  One
    nm run for all of them: started once per library, nm took most of this test's time (about
    200 libraries, twice)."""
    libs = sorted(set(libs))
    out = subprocess.run([nm, "-D", *options, *libs], capture_output=True, text=True,
                         check=True).stdout
    syms = {lib: set() for lib in libs}
    current = libs[0]  # with one file nm prints no "<file>:" header
    for line in out.splitlines():
        if line.endswith(":") and line[:-1] in syms:
            current = line[:-1]
        elif line.strip():
            parts = line.split()
            syms[current].add((parts[-2], parts[-1].split("@")[0]))
    return syms


def _defined(nm, libs):
    """lib -> the names of the symbols it defines."""
    return {lib: {name for _, name in s}
            for lib, s in _symbols(nm, libs, "--defined-only").items()}


def _undefined(nm, libs):
    """lib -> the names of the symbols it imports (type U: weak references may stay unbound)."""
    return {lib: {name for kind, name in s if kind == "U"}
            for lib, s in _symbols(nm, libs, "--undefined-only").items()}


def _ldd_libs(lib):
    out = subprocess.run(["ldd", lib], capture_output=True, text=True, check=True).stdout
    return [part.split("=>")[1].split("(")[0].strip() for part in out.splitlines()
            if "=>" in part and "/" in part.split("=>")[1]]


def test_every_imported_symbol_is_defined(ffmpeg, paddlecodec_site, monkeypatch):
    """The shim closes the gap: paddlecodec's libraries import no symbol that neither the shim,
    the libraries themselves, Paddle nor the system libraries they link define."""
    from torchproxy.facade.cpp_extension import compat_available
    if not compat_available():
        with pytest.raises(abi_shim.ShimUnavailable, match="torch-compatible C.. API"):
            abi_shim.load_torchcodec()
        return
    nm = shutil.which("nm")
    assert nm, "binutils' nm is needed for the symbol audit"
    monkeypatch.syspath_prepend(paddlecodec_site)
    libs = [os.path.realpath(p) for p in abi_shim.torchcodec_libraries()]
    shim = abi_shim.build(libs)
    deps = {os.path.realpath(x) for lib in libs for x in _ldd_libs(lib)}
    everything = {os.path.realpath(p) for p in [shim] + libs + _ldd_libs(shim)} | deps
    defined_by = _defined(nm, everything)
    defined = set().union(*defined_by.values())
    imported = _undefined(nm, libs)
    missing = {}
    for lib in libs:
        for sym in sorted(imported[lib] - defined):
            missing.setdefault(os.path.basename(lib), []).append(sym)
    assert missing == {}
    # and the shim is needed: without it, these are what Paddle 3.3.1 lacks
    paddle_only = set().union(*(defined_by[lib] for lib in deps))
    lacking = set().union(*imported.values()) - paddle_only - set().union(
        *(defined_by[lib] for lib in libs))
    assert {"_ZN3c1017get_default_dtypeEv", "_ZN6caffe28TypeMeta13typeMetaDatasEv"} <= lacking
