"""Liger-Kernel 0.7.0's apply_liger_kernel_to_llama on the tiny Llama (liger_llama.py), Triton's
CPU interpreter: on each side the patched model's loss, gradients and AdamW steps equal the
unpatched model's within Liger's own tolerances, and the facade's patched run equals real
torch's.  Each side in its own heap-checked process; a crash is a failure."""
from __future__ import annotations

import pytest

import liger_llama as ll

pytest.importorskip("torch")
pytest.importorskip("paddle")
pytest.importorskip("triton")
transformers = pytest.importorskip("transformers")
if transformers.__version__ != ll.hf.VERSION:
    pytest.skip(f"transformers {transformers.__version__} installed; the test pins "
                f"{ll.hf.VERSION}", allow_module_level=True)


def test_liger_patched_tiny_llama_matches_unpatched_and_real_torch():
    try:
        ll.sources()
    except ll.SourcesMissing as e:
        pytest.skip(str(e))
    rep = ll.compare()
    bad = ll.failures(rep)
    assert not bad, "; ".join(bad)
