"""The part of ``torch.testing._internal`` that extension test suites import (pytorch/extension-cpp's
``test/test_extension.py``): ``common_utils.TestCase`` (a ``unittest.TestCase`` whose
``assertEqual`` compares tensors as torch's does), ``common_utils.run_tests`` (``unittest.main``)
and ``optests.opcheck`` (torch.library.opcheck, facade/library.py)."""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch.testing: _internal
    torch.testing._internal: common_utils optests
    torch.testing._internal.common_utils: TestCase run_tests
    torch.testing._internal.optests: opcheck
""")

import unittest

import paddle

from .misc import assert_close
from .registry import module, torch_function, type_

module("torch.testing._internal")
module("torch.testing._internal.common_utils")
module("torch.testing._internal.optests")

_NUM = (int, float, complex)


def _has_tensor(x) -> bool:
    if isinstance(x, paddle.Tensor):
        return True
    if isinstance(x, (list, tuple)):
        return any(_has_tensor(v) for v in x)
    if isinstance(x, dict):
        return any(_has_tensor(v) for v in x.values())
    return False


class TestCase(unittest.TestCase):
    """torch.testing._internal.common_utils.TestCase: assertEqual compares tensors (and lists,
    tuples, dicts of them) with torch.testing.assert_close's default tolerances per dtype,
    equal_nan=True, exact_dtype=True and exact_device=False (torch's defaults for assertEqual);
    two Python numbers are compared with float64's tolerances when either is a float (torch
    accepts 1 == 1.0 and 0.1 + 0.2 == 0.3); anything else with unittest's ==."""

    def assertEqual(self, x, y, msg=None, *, atol=None, rtol=None, equal_nan=True,
                    exact_dtype=True, exact_device=False, **kwargs):
        if kwargs:
            raise TypeError(f"torchproxy's TestCase.assertEqual does not take "
                            f"{', '.join(sorted(kwargs))} (torch.testing._internal keyword)")
        if (rtol is None) != (atol is None):
            raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got "
                             f"no {'rtol' if rtol is None else 'atol'}.")
        user_msg = ((lambda generated: f"{generated}\n{msg}")
                    if isinstance(msg, str) and self.longMessage else msg)
        if _has_tensor(x) or _has_tensor(y):
            if not (_has_tensor(x) and _has_tensor(y)):
                raise TypeError("torchproxy's TestCase.assertEqual compares a tensor only with a "
                                f"tensor, got {type(x).__name__} and {type(y).__name__}")
            assert_close(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_device=exact_device, check_dtype=exact_dtype, msg=user_msg)
            return
        if (isinstance(x, _NUM) and isinstance(y, _NUM) and not isinstance(x, bool)
                and not isinstance(y, bool)):
            exact = not any(isinstance(v, (float, complex)) for v in (x, y))
            r, a = (0, 0) if exact else (1e-7, 1e-7) if rtol is None else (rtol, atol)
            if x == y or abs(x - y) <= a + r * abs(y) or (equal_nan and x != x and y != y):
                return
            rel = abs(x - y) / abs(y) if y else float("inf")
            text = (f"Scalars are not equal!\n\nExpected {y} but got {x}.\n"
                    f"Absolute difference: {abs(x - y)}\nRelative difference: {rel}" if exact else
                    f"Scalars are not close!\n\nExpected {y} but got {x}.\n"
                    f"Absolute difference: {abs(x - y)} (up to {a} allowed)\n"
                    f"Relative difference: {rel} (up to {r} allowed)")
            raise self.failureException(user_msg(text) if callable(user_msg) else
                                        (user_msg or text))
        super().assertEqual(x, y, msg)

    def assertNotEqual(self, x, y, msg=None, **kwargs):
        try:
            self.assertEqual(x, y, **kwargs)
        except AssertionError:
            return
        raise self.failureException(msg or f"{x!r} == {y!r}")


type_("torch.testing._internal.common_utils.TestCase", TestCase,
      note="assertEqual/assertNotEqual with torch's defaults; no device-generic test machinery")


@torch_function("torch.testing._internal.common_utils.run_tests", note="unittest.main()")
def run_tests(argv=None):
    unittest.main(argv=argv)


@torch_function("torch.testing._internal.optests.opcheck",
                note="= torch.library.opcheck (facade/library.py: what Paddle can check)")
def opcheck(op, args, kwargs=None, **options):
    from .library import opcheck as library_opcheck
    return library_opcheck(op, args, kwargs, **options)
