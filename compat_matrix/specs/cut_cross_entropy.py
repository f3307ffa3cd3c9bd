"""Cut Cross-Entropy (apple/ml-cross-entropy, the ``cut-cross-entropy`` wheel): the linear layer
and the cross-entropy loss of an LLM head fused in Triton, without materialising the logits.

Why this library: a small, pure-Triton training kernel used in fine-tuning stacks (Unsloth,
Axolotl) that Paddle users port; its wrapper is a torch.autograd.Function with custom
forward/backward, reductions, ignore_index and soft-capping.  Forward cases are checked
against numpy references as well as real torch; the backward needs fp16/bf16 embeddings
(an assertion of the library), so those cases use fp16.

The oracle runs real torch eagerly: the library decorates two small helpers with
``@torch.compile`` (``softcapping``: tanh(x / c) * c; ``sort_logit_avg``: an argsort), which on
real torch meant an Inductor C++ build in every oracle worker (about 70 s of CPU on a fresh
machine, more than the rest of this row), while under torchproxy ``torch.compile`` returns
the function as it is (the facade's documented behaviour; Paddle's own proxy has no
``torch.compile``: its cells stop at the import).  What this row checks is the Triton kernels and the autograd.Function
around them, on the same eager helpers on both sides; so the oracle's worker runs them eagerly
(``oracle_eager`` below: ``torch.compiler.set_stance("force_eager")``, real torch's own switch
that makes every ``torch.compile`` directive run the function as it is; turning Dynamo off with
``torch._dynamo.config.disable`` instead makes ``fullgraph=True`` functions raise "found no
compiled frames"), which is real torch's eager result for the same code.
"""
from compat_matrix.spec import Case, randint, randn, value
from compat_matrix.shared.triton_rows import triton_library

LIBRARY = triton_library(
    "cut_cross_entropy", pip=("cut-cross-entropy==25.1.1",),
    setup=(("torch", "*", "compat_matrix.specs.cut_cross_entropy:oracle_eager"),))


def oracle_eager():
    """Real torch running ``torch.compile``'d functions eagerly (see the module's docstring):
    called in the oracle's worker before the library is imported."""
    import torch
    torch.compiler.set_stance("force_eager")


def lce(e, c, y, reduction):
    from cut_cross_entropy import linear_cross_entropy
    return linear_cross_entropy(e, c, y, reduction=reduction)


def lce_ignore(e, c, y):
    from cut_cross_entropy import linear_cross_entropy
    y = y.clone()
    y[::3] = -100  # ignore_index: every third token does not count
    return linear_cross_entropy(e, c, y, reduction="none")


def lce_softcap(e, c, y):
    from cut_cross_entropy import linear_cross_entropy
    return linear_cross_entropy(e, c, y, softcap=5.0, reduction="none")


def lce_shift(e, c, y):
    from cut_cross_entropy import linear_cross_entropy
    return linear_cross_entropy(e, c, y, shift=True, reduction="none")


def lce_backward(e, c, y):
    from cut_cross_entropy import linear_cross_entropy
    loss = linear_cross_entropy(e, c, y)
    loss.backward()
    return loss, e.grad, c.grad


def _np():
    import numpy
    return numpy


def _ce(e, c, y, softcap=None):
    np = _np()
    z = e.astype("float64") @ c.astype("float64").T
    if softcap:
        z = softcap * np.tanh(z / softcap)
    lse = np.log(np.exp(z - z.max(-1, keepdims=True)).sum(-1)) + z.max(-1)
    return lse - z[np.arange(len(y)), y]


def _ce_ignore(e, c, y):
    out = _ce(e, c, y)
    out[::3] = 0.0
    return out.astype("float32")


TOL = {"float32": (1e-4, 1e-5), "float16": (2e-3, 2e-3)}
CASES = [
    Case("mean", lce, inputs=[randn(8, 16), randn(32, 16), randint(0, 32, 8), value("mean")],
         reference=lambda e, c, y, r: _np().float32(_ce(e, c, y).mean()), tol=TOL),
    Case("none", lce, inputs=[randn(8, 16), randn(32, 16), randint(0, 32, 8), value("none")],
         reference=lambda e, c, y, r: _ce(e, c, y).astype("float32"), tol=TOL),
    Case("sum", lce, inputs=[randn(16, 32), randn(64, 32), randint(0, 64, 16), value("sum")],
         reference=lambda e, c, y, r: _np().float32(_ce(e, c, y).sum()), tol={"float32": (1e-4, 1e-4)}),
    Case("ignore_index", lce_ignore, inputs=[randn(9, 16), randn(32, 16), randint(0, 32, 9)],
         reference=_ce_ignore, tol=TOL),
    Case("softcap", lce_softcap, inputs=[randn(8, 16), randn(32, 16), randint(0, 32, 8)],
         reference=lambda e, c, y: _ce(e, c, y, softcap=5.0).astype("float32"), tol=TOL),
    Case("shift", lce_shift, inputs=[randn(8, 16), randn(32, 16), randint(0, 32, 8)], tol=TOL),
    Case("mean_bf16", lce, inputs=[randn(8, 16, dtype="bfloat16"), randn(32, 16, dtype="bfloat16"),
                                   randint(0, 32, 8), value("mean")], tol={"bfloat16": (2e-2, 2e-2)}),
    Case("none_fp16", lce, inputs=[randn(8, 16, dtype="float16"), randn(32, 16, dtype="float16"),
                                   randint(0, 32, 8), value("none")], tol={"float16": (2e-3, 2e-3)}),
    Case("backward_bf16", lce_backward,
         inputs=[randn(8, 16, dtype="bfloat16", grad=True), randn(32, 16, dtype="bfloat16", grad=True),
                 randint(0, 32, 8)], tol={"bfloat16": (2e-2, 2e-2), "float32": (1e-2, 1e-2)}),
    Case("backward_fp16", lce_backward,
         inputs=[randn(8, 16, dtype="float16", grad=True), randn(32, 16, dtype="float16", grad=True),
                 randint(0, 32, 8)], tol={"float16": (5e-3, 5e-3), "float32": (1e-3, 1e-3)}),
]
