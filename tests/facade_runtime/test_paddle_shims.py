"""One Paddle layer: private Paddle API and Paddle-version checks live in torchproxy/paddle_shims.py
only.  This test reads the code of every other torchproxy module (comments and string literals
left out, so messages may name a version) and fails on any use outside the allow list below,
where each entry says why it stays."""
import io
import os
import re
import tokenize

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PKG = os.path.join(ROOT, "torchproxy")
SHIMS = os.path.join(PKG, "paddle_shims.py")


def _shim_files(pkg=None):
    """The one Paddle layer's files: paddle_shims.py and the paddle_shims_*.py modules whose names
    it re-exports (``from .paddle_shims_cuda import ...``); no other file is exempt."""
    pkg = pkg or PKG
    shims = os.path.join(pkg, "paddle_shims.py")
    with open(shims, encoding="utf-8") as f:
        parts = re.findall(r"^from \.(paddle_shims_\w+) import", f.read(), re.M)
    return {shims} | {os.path.join(pkg, p + ".py") for p in parts}

# what counts as private Paddle API or a version check -> the shim to use instead
PATTERNS = {
    "_C_ops": (r"\b_C_ops\b", "paddle_shims.kernel_empty / kernel_full / kernel_empty_like"),
    "paddle.base": (r"\bpaddle\s*\.\s*(base|fluid)\b|\bfrom\s+paddle\s*\.\s*(base|fluid)\b|"
                    r"\bfrom\s+paddle\s+import\s+[^\n]*\b(base|fluid|_C_ops)\b",
                    "a named shim in paddle_shims (add one, with its removal condition)"),
    "core binding": (r"(?<![\w.])core\s*\.\s*[A-Za-z_]\w*\s*\(", "a named shim in paddle_shims"),
    "private Tensor/place method": (
        r"\.\s*(_offset|_type|_copy_to|_equals|_share_underline_tensor_to|_set_grad_enabled|"
        r"_get_current_stream|_device_synchronize|_get_operation|_dygraph_tracer|"
        r"_dygraph_place_guard|_current_expected_place|_set_expected_place)\s*\(",
        "paddle_shims.byte_offset / place_type / copy_to / same_place / share_buffer / ..."),
    "private framework state": (r"\b_global_expected_place_\b|\._amp_(level|dtype)\b",
                                "paddle_shims.expected_place_object"),
    "version check": (r"\bpaddle\s*\.\s*__version__\b|\bpaddle\s*\.\s*version\s*\.\s*"
                      r"(full_version|major|minor|patch|show|hip|compiled_cuda_archs)\b|"
                      r"\b_IS_PADDLE_\d", "paddle_shims.SERIES / IS_PADDLE_2 / a feature flag"),
    "feature probe": (r"\b(hasattr|getattr)\s*\(\s*(paddle|core)(\s*\.\s*(version|Tensor|device|base))?"
                      r"\s*,|"
                      r"inspect\s*\.\s*signature\s*\(\s*paddle\b",
                      "a feature flag in paddle_shims (ARGSORT_HAS_STABLE...)"),
}

# (path relative to torchproxy/, pattern name) -> why it stays outside paddle_shims
ALLOW = {
    ("facade/device.py", "private Tensor/place method"):
        "Place._type() inline on the Tensor.device / device_of_place hot path: a shim call "
        "would add a Python call per x.device (paddle_shims.place_type documents it)",
    ("facade/device.py", "feature probe"):
        "the place classes this build has (XPUPlace, IPUPlace...): a build difference, not a "
        "version one",
    ("_paddle_check.py", "version check"):
        "the install check: enforces the supported floor before anything imports Paddle's API",
    ("coverage.py", "version check"):
        "the key of a verification record (which Paddle the suites ran on), not a behaviour "
        "switch",
    ("commands/doctor.py", "version check"):
        "reports the Paddle version found; changes no behaviour",
    ("facade/cpp_extension.py", "version check"):
        "part of the build-cache key of JIT extensions (an extension built against one Paddle "
        "is never loaded by another); changes no behaviour",
}


def _code_lines(path):
    """The file's code with comments and string literals (f-strings whole) blanked out."""
    with open(path, encoding="utf-8") as f:
        src = f.read()
    lines = src.splitlines()
    out = [list(line) for line in lines]
    depth = 0
    blank_types = {tokenize.COMMENT, tokenize.STRING}
    fs_start = getattr(tokenize, "FSTRING_START", None)
    fs_end = getattr(tokenize, "FSTRING_END", None)
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == fs_start:
            depth += 1
        blank = depth > 0 or tok.type in blank_types
        if tok.type == fs_end:
            depth -= 1
        if not blank:
            continue
        (r0, c0), (r1, c1) = tok.start, tok.end
        for r in range(r0, r1 + 1):
            if r - 1 >= len(out):
                break
            row = out[r - 1]
            a = c0 if r == r0 else 0
            b = c1 if r == r1 else len(row)
            for i in range(a, min(b, len(row))):
                row[i] = " "
    return ["".join(r) for r in out]


def _violations(pkg=None):
    pkg = pkg or PKG
    exempt = _shim_files(pkg)
    found = []
    for dirpath, _, files in os.walk(pkg):
        for name in files:
            path = os.path.join(dirpath, name)
            if not name.endswith(".py") or path in exempt:
                continue
            rel = os.path.relpath(path, pkg).replace(os.sep, "/")
            for n, line in enumerate(_code_lines(path), 1):
                for what, (pat, use) in PATTERNS.items():
                    if re.search(pat, line) and (rel, what) not in ALLOW:
                        found.append(f"torchproxy/{rel}:{n}: {what} ({line.strip()}) -> use {use}")
    return found


def test_private_paddle_api_and_version_checks_only_in_paddle_shims():
    found = _violations()
    assert not found, ("private Paddle API / version checks outside torchproxy/paddle_shims.py "
                       "(move them there, each with its removal condition, or add an ALLOW entry "
                       "with the reason):\n" + "\n".join(found))


def test_only_the_shim_layer_is_exempt(tmp_path):
    """paddle_shims.py and the paddle_shims_* modules it re-exports may use private API; a
    module it does not re-export (even one named like a shim) and every other module may not."""
    pkg = tmp_path / "torchproxy"
    pkg.mkdir()
    (pkg / "paddle_shims.py").write_text("from .paddle_shims_cuda import f\nx = t._offset()\n")
    (pkg / "paddle_shims_cuda.py").write_text("def f():\n    return core.get_device()\n")
    (pkg / "paddle_shims_stray.py").write_text("y = core.get_device()\n")
    (pkg / "area.py").write_text("import paddle.base\n")
    found = _violations(str(pkg))
    assert sorted(line.split(":")[0] for line in found) == ["torchproxy/area.py",
                                                            "torchproxy/paddle_shims_stray.py"]
    assert _shim_files() == {SHIMS, os.path.join(PKG, "paddle_shims_cuda.py")}


def test_allow_list_entries_are_still_needed():
    """An allow-list entry whose file no longer matches is stale: remove it."""
    stale = []
    for (rel, what), _ in ALLOW.items():
        pat = PATTERNS[what][0]
        lines = _code_lines(os.path.join(PKG, rel))
        if not any(re.search(pat, line) for line in lines):
            stale.append((rel, what))
    assert not stale, f"allow-list entries that match nothing: {stale}"


def test_the_scanner_sees_code_not_strings(tmp_path, monkeypatch):
    """The patterns fire on code and not on comments, docstrings or f-string messages."""
    sample = tmp_path / "sample.py"
    sample.write_text('"""paddle.base.core._C_ops in a docstring"""\n'
                      "# core._get_current_stream(0) in a comment\n"
                      'msg = f"Paddle {paddle.__version__} lacks it"\n'
                      "x = t._offset()\n"
                      "import paddle.base\n"
                      "y = core.get_cuda_device_count()\n"
                      'ok = getattr(paddle, "uint32", None)\n')
    hits = {what for line in _code_lines(str(sample)) for what, (pat, _) in PATTERNS.items()
            if re.search(pat, line)}
    assert hits == {"private Tensor/place method", "paddle.base", "core binding",
                    "feature probe"}
    lines = _code_lines(str(sample))
    assert lines[0].strip() == "" and lines[1].strip() == ""
    assert "__version__" not in lines[2]


def test_shims_cover_both_supported_series():
    """The flags that bridge versions agree with the Paddle loaded here."""
    import paddle

    from torchproxy import paddle_shims as s
    assert s.VERSION == paddle.__version__
    assert s.IS_PADDLE_2 == paddle.__version__.startswith("2.")
    assert s.AS_STRIDED_NEEDS_CONTIGUOUS == s.IS_PADDLE_2
    assert s.DATA_PTR_NONE_FOR_EMPTY == (paddle.to_tensor([]).data_ptr() is None)
    assert s.HAS_VIEW_DTYPE == (not s.IS_PADDLE_2)
    x = paddle.arange(12, dtype="float32").reshape([3, 4])
    v = x[1:, 2:]
    assert s.byte_offset(v) == (1 * 4 + 2) * 4
    assert s.same_place(s.copy_to(x, paddle.CPUPlace()).place, x.place)
    if not s.IS_PADDLE_2:  # 2.6's default expected place may be a GPU place on GPU builds
        assert s.gpu_index(paddle.CPUPlace()) is None


@pytest.mark.parametrize("module,names", [
    ("torchproxy.integrations.paddle_cuda",
     ["current_device", "current_stream_handle", "capability", "synchronize", "empty",
      "has_cuda", "set_device"]),
    ("torchproxy.integrations.cuda_events", ["DriverEvent", "CudaDriverError"]),
])
def test_moved_modules_keep_their_imports(module, names):
    import importlib

    from torchproxy import paddle_shims
    mod = importlib.import_module(module)
    for n in names:
        assert getattr(mod, n) is getattr(paddle_shims, n)
