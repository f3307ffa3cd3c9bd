"""torch.library.opcheck on operators defined in Python (custom_op, Library.define): the same
snippet under real torch and under the facade (tests/difftest.py), results compared; and what
cannot be checked on Paddle (test_aot_dispatch_*) said by name.  opcheck on C++ (TORCH_LIBRARY)
operators: cases "torch_library/opcheck_*" of test_differential.py, and extension-cpp's own
test_opcheck_cpu in test_extcpp_own_suite.py."""
import os
import sys
import warnings

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import difftest  # noqa: E402

SRC = '''
import torch

def run(x, n):
    @torch.library.custom_op(f"tpxopcheck{n}::scale", mutates_args=())
    def scale(x: torch.Tensor, a: float) -> torch.Tensor:
        return x * a

    @scale.register_fake
    def _(x, a):
        return torch.empty_like(x)

    @torch.library.custom_op(f"tpxopcheck{n}::sneaky", mutates_args=())
    def sneaky(x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        x.zero_()
        return y

    @torch.library.custom_op(f"tpxopcheck{n}::fill_out", mutates_args=("out",))
    def fill_out(x: torch.Tensor, out: torch.Tensor) -> None:
        out.copy_(x)

    @torch.library.custom_op(f"tpxopcheck{n}::bad_fake", mutates_args=())
    def bad_fake(x: torch.Tensor) -> torch.Tensor:
        return x.sum(0)

    @bad_fake.register_fake
    def _(x):
        return torch.empty_like(x)

    res = {}
    for name, op, args, utils in (
            ("scale", scale, (x, 2.0), ("test_schema", "test_faketensor")),
            ("sneaky", sneaky, (x,), "test_schema"),
            ("fill_out", fill_out, (x, torch.zeros_like(x)), ("test_schema", "test_faketensor")),
            ("bad_fake_schema", bad_fake, (x,), "test_schema"),
            ("bad_fake", bad_fake, (x,), "test_faketensor")):
        r = torch.library.opcheck(op, args, test_utils=utils, raise_exception=False)
        res[name] = {k: v if v == "SUCCESS" else "failed" for k, v in r.items()}
    try:
        torch.library.opcheck(sneaky, (x,), test_utils="test_schema")
    except Exception as e:
        res["raised"] = (type(e).__name__, str(e).split(" (scroll")[0])
    res["x_kept"] = x
    return res
'''

_N = iter(range(1000))


def test_python_custom_ops_match_torch():
    x = np.array([[1.5, -2.0], [3.0, 4.0]], "float32")
    results = []
    for scoped, conv in ((False, difftest.to_torch), (True, difftest.to_paddle)):
        mod = difftest.load(SRC, scoped=scoped)
        r = mod.run(conv(x), next(_N))
        np.testing.assert_array_equal(np.asarray(r.pop("x_kept")), x)  # inputs are cloned
        results.append(r)
    torch_res, proxy_res = results
    assert proxy_res == torch_res


def test_aot_dispatch_cannot_be_checked_and_says_so():
    mod = difftest.load('''
import torch
def make(n):
    @torch.library.custom_op(f"tpxopcheck_aot{n}::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return x * 2
    @twice.register_fake
    def _(x):
        return torch.empty_like(x)
    return torch, twice
''', scoped=True)
    torch, op = mod.make(next(_N))
    x = difftest.to_paddle(np.ones(3, "float32"))
    from torchproxy.errors import NotProvidedError
    with pytest.raises(NotProvidedError, match="test_aot_dispatch_dynamic.*AOTAutograd"):
        torch.library.opcheck(op, (x,), test_utils="test_aot_dispatch_dynamic")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = torch.library.opcheck(op, (x,))
    assert res["test_schema"] == res["test_faketensor"] == "SUCCESS"
    assert res["test_autograd_registration"] == "SUCCESS"
    assert res["test_aot_dispatch_dynamic"].startswith("NOT CHECKED")
    assert any("did not check test_aot_dispatch_dynamic" in str(m.message) for m in w)
