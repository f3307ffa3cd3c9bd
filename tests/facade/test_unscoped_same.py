"""Names where torch's answer and Paddle's agree, served to every caller without a scope check
(issue 26, ninth round; ``same`` in torchproxy/_dispatch.c): ``x.dim()``, ``x.ndim`` (Paddle's
are Python, ``len(var.shape)``) and ``x.is_contiguous()`` where Paddle says True.

Checked here: scoped answers against real torch (difftest.check), unscoped answers against
Paddle's own originals called directly (values and types, on tensors torch code makes: 0-d,
0-size, transposed, sliced, size-1 dims), that the unscoped fast path runs no Python frame,
that a trace still records scoped calls (the ordinary path runs while tracing), and that an
original which is not Paddle's ``len(var.shape)`` keeps the scope check."""
import sys

import numpy as np
import pytest

from difftest import check, load

X = np.arange(24, dtype="float32").reshape(2, 3, 4)
TENSORS = ["x", "x[0]", "x[0, 0, 0]", "x[:0]", "x.transpose(0, 2)", "x[:, :1]",
           "x[:, :1].transpose(1, 2)", "x[:, ::2]", "x.reshape(1, 24).t()",
           "x[:, :, :0].transpose(0, 2)"]


@pytest.mark.parametrize("t", TENSORS)
@pytest.mark.parametrize("call", ["{}.ndim", "type({}.ndim).__name__", "{}.dim()",
                                  "{}.is_contiguous()", "torch.Tensor.ndim.__get__({})"])
def test_scoped_forms_match_torch(call, t):
    check(f"import torch\ndef f(x):\n    return {call.format(t)}\n", X)


def _c_dispatchers():
    from torchproxy.facade import dispatch
    if not dispatch.c_available():
        pytest.skip(f"the C dispatcher is not in use: {dispatch.c_error()}")
    from difftest import _ensure_enabled
    _ensure_enabled()
    import paddle
    return paddle.Tensor.__dict__


def test_same_is_on_where_the_answers_agree():
    d = _c_dispatchers()
    got = {n: d[n].same for n in ("dim", "ndim", "is_contiguous", "shape", "numel", "stride")}
    assert got == {"dim": True, "ndim": True, "is_contiguous": True, "shape": False,
                   "numel": False, "stride": False}


def _views():
    """Paddle tensors as torch code makes them (scoped views: strided on Paddle 3.x)."""
    import paddle
    x = paddle.to_tensor(X)
    return [load(f"import torch\ndef f(x):\n    return {t}\n", scoped=True).f(x)
            for t in TENSORS]


def test_unscoped_answers_are_paddles():
    _c_dispatchers()
    from torchproxy.facade.tensor import original
    dim, ndim, contig = original("dim"), original("ndim"), original("is_contiguous")
    got = load("def f(y):\n    return (y.dim(), y.ndim, y.is_contiguous())\n", scoped=False)
    for y in _views():
        want = (dim(y), ndim.__get__(y), contig(y))
        have = got.f(y)
        assert have == want and [type(v) for v in have] == [type(v) for v in want], (y.shape,)


def test_unscoped_fast_path_runs_no_python_frame():
    """Paddle's own ``dim`` / ``ndim`` (Python) are not entered: the C fast path answers."""
    _c_dispatchers()
    import paddle
    from torchproxy.facade.tensor import original
    codes = {original("dim").__code__, original("ndim").fget.__code__}
    f = load("def f(y):\n    return (y.dim(), y.ndim, y.is_contiguous())\n", scoped=False)
    x = paddle.to_tensor(X)
    entered = []

    def prof(frame, event, arg):
        if event == "call" and frame.f_code in codes:
            entered.append(frame.f_code.co_name)
    sys.setprofile(prof)
    try:
        got = f.f(x)
    finally:
        sys.setprofile(None)
    assert got == (3, 3, True) and entered == []


def test_trace_records_scoped_calls():
    _c_dispatchers()
    import paddle
    import torchproxy
    f = load("def f(y):\n    return (y.dim(), y.ndim, y.is_contiguous())\n", scoped=True)
    with torchproxy.trace() as t:
        assert f.f(paddle.to_tensor(X)) == (3, 3, True)
    for name in ("torch.Tensor.dim", "torch.Tensor.ndim", "torch.Tensor.is_contiguous"):
        assert name in t.used, name


def test_an_original_other_than_paddles_keeps_the_scope_check():
    from torchproxy.facade import dispatch
    if not dispatch.c_available():
        pytest.skip(f"the C dispatcher is not in use: {dispatch.c_error()}")
    d = _c_dispatchers()
    impl_dim, impl_ndim = d["dim"].impl, d["ndim"].impl

    def dim(var):  # this module is not paddle.*: same must stay off
        return len(var.shape)
    assert dispatch._C.Method("dim", impl_dim, dim).same is False
    assert dispatch._C.Attr("ndim", impl_ndim, property(dim)).same is False
    # Paddle's own, passed again: on
    from torchproxy.facade.tensor import original
    assert dispatch._C.Method("dim", impl_dim, original("dim")).same is True
    assert dispatch._C.Attr("ndim", impl_ndim, original("ndim")).same is True
    # a Python is_contiguous (not Paddle's C method) keeps the check
    assert dispatch._C.Method("is_contiguous", d["is_contiguous"].impl,
                              lambda self: True).same is False
