"""Callers outside the scope (this test module) keep Paddle's semantics for every Tensor
method the facade dispatches: same results as calling Paddle's own implementation."""
import numpy as np
import paddle
import pytest

import torchproxy
from torchproxy.facade import registry, tensor as tensor_mod
from difftest import load
from _cases import F32

PADDLE2 = paddle.__version__.startswith("2.")


@pytest.fixture(autouse=True)
def _enabled():
    load("def f(): pass", scoped=True)  # enables the proxy with the difftest scope
    assert tensor_mod.installed()


def _x():
    return paddle.to_tensor(F32)


def test_numel_is_a_tensor():
    n = _x().numel()
    assert isinstance(n, paddle.Tensor) and int(n) == 12


@pytest.mark.skipif(PADDLE2, reason="Paddle 2.6's size is a method-less int property too")
def test_size_is_an_int_property():
    assert _x().size == 12


def test_shape_is_paddles():
    from torchproxy.facade.core import Size
    s = _x().shape
    assert list(s) == [3, 4] and not isinstance(s, Size)


def test_max_with_axis_returns_values_only():
    r = _x().max(axis=1)
    assert isinstance(r, paddle.Tensor)
    np.testing.assert_allclose(r.numpy(), F32.max(1))


def test_split_means_sections():
    parts = paddle.to_tensor(np.arange(6.0)).split(3)
    assert [list(p.shape) for p in parts] == [[2], [2], [2]]


def test_sum_axis_keyword():
    np.testing.assert_allclose(_x().sum(axis=0).numpy(), F32.sum(0), rtol=1e-6)


def test_transpose_perm_list():
    assert list(_x().transpose([1, 0]).shape) == [4, 3]


def test_reshape_and_view_lists():
    assert list(_x().reshape([2, 6]).shape) == [2, 6]
    assert list(_x().view([6, 2]).shape) == [6, 2]


def test_casts_are_paddles():
    x = _x()
    if not PADDLE2:
        assert x.float().dtype == paddle.float32
    assert x.astype("float16").dtype == paddle.float16


def test_dtype_attributes_do_not_change_paddle_dtype_behaviour():
    assert paddle.float16 == paddle.float16 and str(paddle.float32) == "paddle.float32"


def test_device_is_a_string():
    if tensor_mod.policy_of("device") == "added":
        pytest.skip(f"Paddle {paddle.__version__} has no Tensor.device "
                    "(2.6 and 3.0 to 3.2 lack it)")
    assert _x().device == "cpu"


def test_type_is_paddles():
    """Paddle's Tensor.type is an attribute (the variable type), not torch's method."""
    assert not callable(_x().type)


# Every dispatched name: called from here it must give what Paddle's own implementation gives.
CALLS = {
    "numel": ((), {}), "stride": ((), {}), "dim": ((), {}), "sum": ((), {"axis": 1}),
    "mean": ((), {"axis": 0}), "max": ((), {"axis": 0}), "min": ((), {}),
    "amax": ((), {"axis": 1}), "argmax": ((), {"axis": 1}), "cumsum": ((), {"axis": 0}),
    "reshape": (([6, 2],), {}), "transpose": (([1, 0],), {}), "flatten": ((), {}),
    "unsqueeze": ((0,), {}), "squeeze": ((), {}), "split": ((2,), {"axis": 1}),
    "chunk": ((2,), {"axis": 1}), "expand": (([2, 3, 4],), {}), "clone": ((), {}),
    "softmax": ((), {}), "topk": ((2,), {}), "sort": ((), {}), "abs": ((), {}),
    "clip": ((0.0, 1.0), {}), "add": ((paddle.ones([3, 4]),), {}), "tolist": ((), {}),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_dispatched_methods_keep_paddle_semantics(name):
    impl = paddle.Tensor.__dict__.get(name)
    args, kwargs = CALLS[name]
    x = _x()
    pair = getattr(impl, "__torchproxy_dispatch__", None)
    if pair is None:
        pytest.skip(f"{name} is not dispatched on Paddle {paddle.__version__}")
    got = getattr(x, name)(*args, **kwargs)
    want = pair[1](x, *args, **kwargs)
    _same(got, want)


def _same(a, b):
    if isinstance(a, paddle.Tensor):
        assert isinstance(b, paddle.Tensor) and a.dtype == b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for p, q in zip(a, b):
            _same(p, q)
    else:
        assert a == b and type(a) is type(b)


def test_scoped_and_unscoped_callers_disagree_where_torch_differs():
    """The same tensor, two callers: torch semantics in scope, Paddle's here."""
    mod = load("def f(x):\n    return x.numel(), x.split(2), x.max(1)\n", scoped=True)
    x = paddle.to_tensor(np.arange(12.0, dtype="float32").reshape(3, 4))
    n, parts, mx = mod.f(x)
    assert n == 12 and type(n) is int
    assert [list(p.shape) for p in parts] == [[2, 4], [1, 4]]
    assert hasattr(mx, "indices")
    assert isinstance(x.numel(), paddle.Tensor)
    assert [list(p.shape) for p in x.split(3)] == [[1, 4], [1, 4], [1, 4]]


def test_every_table_method_is_installed():
    """Each TENSOR_TABLE name is on paddle.Tensor while enabled (added or dispatched)."""
    registry.load_table()
    for full in registry.TENSOR_TABLE:
        name = full.rsplit(".", 1)[1]
        assert name in paddle.Tensor.__dict__ or hasattr(paddle.Tensor, name), name


def test_in_operator_of_unscoped_code_is_cpythons_own():
    # Paddle has no __contains__: CPython iterates.  The facade's torch rule (any element equal)
    # is for scoped callers; Paddle's callers keep iteration's answers and its error on 2-D
    import torchproxy

    def probe():
        out = []
        for arr, e in [([1, 2, 3], 3), ([1, 2, 3], 5), ([[1, 2], [3, 4]], 3)]:
            try:
                out.append(e in paddle.to_tensor(arr))
            except Exception as ex:  # noqa: BLE001 - the error is part of the answer
                out.append(type(ex).__name__)
        return out
    before = probe()
    assert before[:2] == [True, False] and isinstance(before[2], str)
    torchproxy.enable(scope={"tp_outside_contains_elsewhere"})
    assert probe() == before
    from difftest import load
    src = "import torch\ndef f(t):\n    return 3 in t, 5 in t\n"
    assert load(src, scoped=True).f(paddle.to_tensor([[1, 2], [3, 4]])) == (True, False)
