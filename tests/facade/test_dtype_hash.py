"""The fast hash of Paddle's dtype objects (issue 26): enable() installs the dtype enum's own
__int__ as its __hash__ (pybind's __hash__ is int(self) through one more call), which Triton's
argument specialiser pays per tensor per launch.  Same values as Paddle's own, on every dtype;
disable() puts Paddle's back."""
import paddle
import pytest

import torchproxy
from torchproxy.facade import dtypes

DTYPE_TYPE = type(paddle.float32)
ALL = sorted(set(dtypes.DTYPES.values()), key=int)


@pytest.fixture
def paddle_own_hash():
    """{dtype value: Paddle's own hash} with the facade off (the ground truth)."""
    if torchproxy.is_enabled():  # left enabled (parked) by an earlier test: start clean
        torchproxy.disable()
    own = DTYPE_TYPE.__dict__["__hash__"]
    truth = {int(d): hash(d) for d in ALL}
    yield own, truth


def test_enabled_hash_is_paddles_value_for_every_dtype(paddle_own_hash):
    own, truth = paddle_own_hash
    torchproxy.enable(scope={"test_dtype_hash_scoped"})
    try:
        assert dtypes._HASH_SAVED, "the fast hash was not installed on this Paddle"
        assert DTYPE_TYPE.__dict__["__hash__"] is not own
        for d in ALL:
            assert hash(d) == truth[int(d)] == own(d), d
        # a dtype read off a tensor (a fresh object on Paddle 2.6) finds its dict entries
        table = {d: str(d) for d in ALL}
        for name in ("float32", "float16", "int64", "bool", "bfloat16"):
            x = paddle.zeros([2], dtype=name)
            assert table[x.dtype] == str(getattr(paddle, name))
            assert x.dtype in {getattr(paddle, name)}
        # equality is untouched: still Paddle's
        assert paddle.float32 == paddle.float32 and paddle.float32 != paddle.float16
    finally:
        torchproxy.disable()
    assert DTYPE_TYPE.__dict__["__hash__"] is own
    assert not dtypes._HASH_SAVED
    for d in ALL:
        assert hash(d) == truth[int(d)]


def test_enable_twice_and_disable_restore_once(paddle_own_hash):
    own, _ = paddle_own_hash
    torchproxy.enable(scope={"test_dtype_hash_scoped"})
    torchproxy.enable(scope={"test_dtype_hash_scoped", "test_dtype_hash_other"})
    try:
        assert len(dtypes._HASH_SAVED) <= 1
    finally:
        torchproxy.disable()
    assert DTYPE_TYPE.__dict__["__hash__"] is own


def test_candidate_refused_when_values_differ(monkeypatch):
    """The stand-in is checked against Paddle's hash before it is installed."""
    monkeypatch.setitem(dtypes.DTYPES, "_bogus_", object())  # hash(object) != any __int__
    assert dtypes._fast_hash_candidate() is None
