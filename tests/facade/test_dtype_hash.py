"""The fast hash of Paddle's dtype objects (issue 26): enable() installs the C dispatcher's
reading of the enum's value as the type's hash slot (_dispatch.c enum_hash_install), or without
the C build the dtype enum's own __int__ as its __hash__ (pybind's __hash__ is int(self) through
one more call), which Triton's argument specialiser pays per tensor per launch.  Same values as
Paddle's own, on every dtype; disable() puts Paddle's back."""
import paddle
import pytest

import torchproxy
from torchproxy.facade import dispatch, dtypes

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
        if dtypes._HASH_SAVED[-1] is dtypes._C_HASH:  # the C slot: the type's dict untouched
            assert dispatch._C.enum_hash_installed()
            assert DTYPE_TYPE.__dict__["__hash__"] is own
        else:
            assert DTYPE_TYPE.__dict__["__hash__"] is not own
        for d in ALL:
            assert hash(d) == truth[int(d)] == own(d), d
        # a dtype read off a tensor (a fresh object on Paddle 2.6) finds its dict entries
        table = {d: str(d) for d in ALL}
        for name in ("float32", "float16", "int64", "bool", "bfloat16"):
            x = paddle.zeros([2], dtype=name)
            assert table[x.dtype] == str(getattr(paddle, name))
            assert x.dtype in {getattr(paddle, name)}
        # equality: the same answers (read in C where the C dispatcher is built)
        assert paddle.float32 == paddle.float32 and paddle.float32 != paddle.float16
    finally:
        torchproxy.disable()
    assert DTYPE_TYPE.__dict__["__hash__"] is own
    assert not dtypes._HASH_SAVED
    assert dispatch._C is None or not dispatch._C.enum_hash_installed()
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


needs_c = pytest.mark.skipif(dtypes._c_enum_hash() is None, reason="no C dispatcher build")


@needs_c
def test_c_hash_matches_every_member_and_falls_back(paddle_own_hash):
    """Every member of the enum type (not only the dtypes), a fresh dtype read off a tensor,
    and an instance whose value was never constructed (the saved slot answers) hash as
    Paddle's own does."""
    own, _ = paddle_own_hash
    members = dtypes._enum_members()
    truth = {int(m): own(m) for m in members}
    blank = DTYPE_TYPE.__new__(DTYPE_TYPE)
    blank_hash = hash(blank)
    torchproxy.enable(scope={"test_dtype_hash_scoped"})
    try:
        assert dtypes._HASH_SAVED == [dtypes._C_HASH]
        for m in members:
            assert hash(m) == truth[int(m)], m
        assert hash(paddle.zeros([1], dtype="float16").dtype) == truth[int(paddle.float16)]
        assert hash(blank) == blank_hash
    finally:
        torchproxy.disable()


@needs_c
def test_c_hash_refuses_other_types():
    """Only pybind11 classes have the layout read: anything else is refused, untouched."""
    C = dispatch._C
    assert not C.enum_hash_installed()
    assert C.enum_hash_install(int, [1, 2]) is False
    assert C.enum_hash_install(DTYPE_TYPE, []) is False
    assert not C.enum_hash_installed()
    assert C.enum_hash_uninstall() is False


@needs_c
def test_c_equality_matches_paddles_own_on_every_pair(paddle_own_hash):
    """== and != between every two members (and fresh dtypes read off tensors) give Paddle's
    own answers; any other operand (None, int, str, a blank instance) and every other operator
    still reach Paddle's comparison, errors included; disable() puts Paddle's slot back."""
    members = dtypes._enum_members()
    blank = DTYPE_TYPE.__new__(DTYPE_TYPE)
    others = [None, 5, int(paddle.float32), "float32", 1.5, object(), blank]

    def outcome(f):
        try:
            return ("ok", f())
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return (type(e).__name__, str(e))

    def table():
        rows = [(a, b, a == b, a != b) for a in members for b in members]
        for a in members[:4] + [blank]:
            for o in others:
                rows.append((a, o, outcome(lambda: a == o), outcome(lambda: a != o),
                             outcome(lambda: o == a), outcome(lambda: a < o)))
        fresh = paddle.zeros([1], dtype="float16").dtype
        rows.append((fresh == paddle.float16, fresh != paddle.float16, fresh == paddle.float32))
        return [tuple(map(repr, r)) for r in rows]

    truth = table()
    torchproxy.enable(scope={"test_dtype_hash_scoped"})
    try:
        assert dispatch._C.enum_eq_installed()
        assert table() == truth
    finally:
        torchproxy.disable()
    assert not dispatch._C.enum_eq_installed()
    assert table() == truth


@needs_c
def test_c_equality_needs_the_c_hash_first():
    C = dispatch._C
    if torchproxy.is_enabled():
        torchproxy.disable()
    assert not C.enum_eq_installed()
    assert C.enum_eq_install(DTYPE_TYPE, dtypes._enum_members()) is False  # hash not ours
    assert C.enum_eq_install(int, [1, 2]) is False
    assert not C.enum_eq_installed()
    assert C.enum_eq_uninstall() is False
