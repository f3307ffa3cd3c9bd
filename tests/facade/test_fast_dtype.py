"""x.dtype through Paddle's exported C++ tensor API (facade/fast_dtype.py, torchproxy/_paddle_tensor.c;
issue 26, eighth round): while enabled, a Paddle 2.6 tensor's dtype is the canonical dtype object
(as real torch's is: ``x.dtype is torch.float16``), equal in value, type and hash to what Paddle's
own getter answers, for every dtype and for tensors the table cannot read (Paddle answers those);
disable() puts Paddle's getter back.  Where Paddle's getter already hands out canonical objects
(3.x) nothing is installed."""
import importlib.util

import paddle
import pytest

import torchproxy
from difftest import check
from torchproxy.facade import fast_dtype

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64", "complex64", "complex128"]
HAS_C = importlib.util.find_spec("torchproxy._cptensor") is not None
_INSTALLED = paddle.Tensor.__dict__["dtype"]  # ours when an earlier test left the proxy enabled
PADDLE_GETTER = getattr(_INSTALLED, "paddle", _INSTALLED)
PADDLE_26 = paddle.__version__.startswith("2.")


def _raw_fresh() -> bool:
    """Paddle's own getter builds a new dtype object per read (2.6), or not (3.x)."""
    x = paddle.zeros([1])
    return PADDLE_GETTER.__get__(x, paddle.Tensor) is not PADDLE_GETTER.__get__(x, paddle.Tensor)


@pytest.fixture
def enabled():
    torchproxy.enable(scope={"difftest_scoped"})
    yield paddle.Tensor.__dict__["dtype"]


def test_installed_where_it_gains_and_removed_by_disable():
    if torchproxy.is_enabled():
        torchproxy.disable()
    assert paddle.Tensor.__dict__["dtype"] is PADDLE_GETTER
    torchproxy.enable(scope={"difftest_scoped"})
    installed = paddle.Tensor.__dict__["dtype"]
    if HAS_C and _raw_fresh():
        assert type(installed).__name__ == "DtypeDescr", installed
        assert installed.paddle is PADDLE_GETTER
    else:
        assert installed is PADDLE_GETTER
    if PADDLE_26 and HAS_C:  # the build and the Paddle the GPU lease measures
        assert installed is not PADDLE_GETTER
    torchproxy.disable()
    assert paddle.Tensor.__dict__["dtype"] is PADDLE_GETTER
    torchproxy.enable(scope={"difftest_scoped"})


@pytest.mark.parametrize("name", NAMES)
def test_every_dtype_is_paddles_answer_and_canonical(enabled, name):
    canon = getattr(paddle, name)
    for x in (paddle.zeros([2, 3], dtype=canon), paddle.zeros([0, 3], dtype=canon),
              paddle.zeros([4, 4], dtype=canon)[1:3, ::2]):
        got, theirs = x.dtype, PADDLE_GETTER.__get__(x, paddle.Tensor)
        assert got == theirs == canon and type(got) is type(theirs)
        assert hash(got) == hash(theirs)
        assert got is canon, (got, "not the canonical object")


def test_tensors_the_table_cannot_read_get_paddles_answer(enabled):
    param = paddle.nn.Linear(2, 3).weight  # a Python subclass of paddle.Tensor
    coo = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])  # not dense
    bare = paddle.base.core.eager.Tensor()
    for x in (param, coo, bare):
        got, theirs = x.dtype, PADDLE_GETTER.__get__(x, type(x))
        assert got == theirs and type(got) is type(theirs), (x, got, theirs)
    with pytest.raises(AttributeError, match="not writable"):
        param.dtype = paddle.float16
    # the class attribute is Paddle's descriptor, as before
    assert paddle.Tensor.dtype is PADDLE_GETTER


@pytest.mark.skipif(not HAS_C, reason="torchproxy._cptensor is not built")
def test_c_reading_refuses_other_objects():
    from torchproxy import _cptensor as C
    assert C.bind(fast_dtype._library_paths(paddle)) in (True, False)
    if not C.bind(fast_dtype._library_paths(paddle)):
        pytest.skip("this Paddle exports no C++ tensor API where looked")
    assert C.dtype_code(object(), paddle.Tensor) is None
    assert C.dtype_code(paddle.zeros([1], dtype="int64"), paddle.Tensor) == \
        C.dtype_code(paddle.zeros([5], dtype="int64"), paddle.Tensor)
    with pytest.raises(TypeError):
        C.DtypeDescr(PADDLE_GETTER, paddle.Tensor, [])  # the table is a dict
    with pytest.raises(ValueError, match="out of range"):
        C.DtypeDescr(PADDLE_GETTER, paddle.Tensor, {999: paddle.float32})


@pytest.mark.parametrize("name", ["float16", "float32", "int64", "bool", "bfloat16"])
def test_dtype_identity_and_comparisons_as_in_torch(name):
    check(f"""
import torch
def f():
    x = torch.zeros(2, 3, dtype=torch.{name})
    y = torch.empty_like(x)
    return (x.dtype is torch.{name}, x.dtype is y.dtype, x.dtype == y.dtype,
            {{torch.{name}: 1}}.get(x.dtype), x.dtype in (torch.{name},), str(x.dtype))
""")


# -- x.device: the C dispatcher reads places through the same API --------------------------------
def _dispatch_c():
    from torchproxy.facade import dispatch
    return dispatch._C


@pytest.mark.skipif(not HAS_C, reason="torchproxy._cptensor is not built")
def test_device_reading_set_while_enabled_and_cleared_by_disable():
    D = _dispatch_c()
    if D is None:
        pytest.skip("no C dispatcher build")
    if torchproxy.is_enabled():
        torchproxy.disable()
    assert not D.tensor_api_set()
    torchproxy.enable(scope={"difftest_scoped"})
    assert D.tensor_api_set(), "Paddle's place reader was not handed to the dispatcher"
    torchproxy.disable()
    assert not D.tensor_api_set()
    torchproxy.enable(scope={"difftest_scoped"})


@pytest.mark.skipif(not HAS_C, reason="torchproxy._cptensor is not built")
def test_place_reading_matches_paddles_place():
    from torchproxy import _cptensor as C
    if not C.bind(fast_dtype._library_paths(paddle)) or C.api() is None:
        pytest.skip("this Paddle exports no place() where looked")
    x = paddle.ones([3, 4])
    p = x.place
    assert C.place_of(x, paddle.Tensor) == (p._type(), 0)
    assert C.place_of(x[1:, ::2], paddle.Tensor) == (p._type(), 0)
    assert C.place_of(paddle.nn.Linear(2, 2).weight, paddle.Tensor) == (p._type(), 0)
    # not read here: not a tensor, not dense, no allocation
    assert C.place_of(object(), paddle.Tensor) is None
    coo = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
    assert C.place_of(coo, paddle.Tensor) is None
    assert C.place_of(paddle.base.core.eager.Tensor(), paddle.Tensor) is None


@pytest.mark.parametrize("api", ["on", "off"])
def test_device_as_in_torch_with_and_without_the_reader(enabled, api):
    D = _dispatch_c()
    if api == "off":
        if D is None or not hasattr(D, "set_tensor_api"):
            pytest.skip("no C dispatcher build")
        D.set_tensor_api(None, None)
    try:
        check("""
import torch
def f():
    x = torch.ones(2, 3)
    views = [x, x[1:], x.t(), torch.empty(0, 3), torch.zeros(()), torch.nn.Linear(2, 2).weight]
    return [(str(v.device), v.device.type, v.device.index, v.device == torch.device("cpu"),
             v.is_cpu) for v in views] + [torch.empty(2, 2, device=x.device).device.type]
""")
    finally:
        if api == "off":
            torchproxy.disable()  # the next enable() sets the reader again
            torchproxy.enable(scope={"difftest_scoped"})
