"""Issue 19, item 16: @torchproxy.guard(...) on coroutine and generator functions runs their
body inside the guard (as `with guard(...):` at its top would); async generator functions are
refused with a clear error."""
from __future__ import annotations

import asyncio

import pytest

import torchproxy
from helpers import unique


@pytest.fixture
def clean():
    torchproxy.disable()
    yield
    torchproxy.disable()


def _in_scope(name):
    return name in torchproxy.status()["scope"]


def test_guard_on_a_coroutine_function_holds_across_awaits(clean):
    name = unique("tp_gd_async")

    @torchproxy.guard(scope=name)
    async def body(x):
        before = _in_scope(name)
        await asyncio.sleep(0)
        return x, before, _in_scope(name)

    assert asyncio.run(body(7)) == (7, True, True)
    assert not _in_scope(name) and not torchproxy.is_enabled()
    assert body.__name__ == "body"


def test_guard_on_a_coroutine_function_leaves_on_exception(clean):
    name = unique("tp_gd_async_err")

    @torchproxy.guard(scope=name)
    async def body():
        assert _in_scope(name)
        raise ValueError("inside")

    with pytest.raises(ValueError, match="^inside$"):
        asyncio.run(body())
    assert not torchproxy.is_enabled()


def test_guard_on_a_generator_function_holds_across_yields_and_send(clean):
    name = unique("tp_gd_gen")

    @torchproxy.guard(scope=name)
    def body():
        got = yield _in_scope(name)
        yield (got, _in_scope(name))
        return "done"

    gen = body()
    assert not torchproxy.is_enabled()  # nothing runs before the first next()
    assert next(gen) is True
    assert gen.send("sent") == ("sent", True)
    with pytest.raises(StopIteration) as stop:
        next(gen)
    assert stop.value.value == "done"
    assert not torchproxy.is_enabled()


def test_guard_on_a_generator_closed_early_leaves(clean):
    name = unique("tp_gd_gen_close")

    @torchproxy.guard(scope=name)
    def body():
        while True:
            yield _in_scope(name)

    gen = body()
    assert next(gen) is True and torchproxy.is_enabled()
    gen.close()
    assert not torchproxy.is_enabled()


def test_guard_refuses_an_async_generator_function(clean):
    async def agen():
        yield 1

    with pytest.raises(TypeError, match=r"^torchproxy.guard cannot decorate the async generator "
                                        r"function '.*agen': use `with torchproxy.guard"):
        torchproxy.guard(scope="tp_gd_agen")(agen)


def test_guard_on_a_plain_function_still_works(clean):
    name = unique("tp_gd_plain")

    @torchproxy.guard(scope=name)
    def body():
        return _in_scope(name)

    assert body() is True and not torchproxy.is_enabled()
