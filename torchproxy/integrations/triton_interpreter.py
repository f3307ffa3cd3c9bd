"""One fix for Triton's CPU interpreter that is not about Paddle at all.

Triton 3.3 - 3.6's interpreter gives ``tl.tensor`` an ``__index__`` of ``int(self.handle.data)``,
where a scalar's data is a 1-element numpy array.  numpy 2.4 made ``int()`` of a 1-element
(non 0-d) array a TypeError, so ``for k in range(0, K, BLOCK)`` over a runtime ``K`` fails in
the interpreter -- for real torch tensors exactly as for Paddle ones.  Triton 3.9 reads
``int(self.handle.data.squeeze())``; :func:`ensure_index_fix` installs that same expression on
versions whose own ``__index__`` fails, detected by trying it, never by version number.
"""
from __future__ import annotations

import numpy as np

_installed = False


def _needs_fix(interp) -> bool:
    # Triton 3.5+ passes a _LangPatchScope (restored after each launch); older versions set
    # the attributes on the class directly.  The probe class is thrown away either way.
    scope_cls = getattr(interp, "_LangPatchScope", None)
    scratch = scope_cls() if scope_cls is not None else None

    class Probe:
        pass

    try:
        interp._patch_lang_tensor(Probe, *([scratch] if scratch is not None else []))
        obj = Probe()
        obj.handle = type("H", (), {"data": np.array([3], dtype=np.int32)})()
        try:
            return Probe.__index__(obj) != 3
        except TypeError:
            return True
    finally:
        if scratch is not None:
            scratch.restore()


def _index(self):
    return int(self.handle.data.squeeze())


def ensure_index_fix() -> bool:
    """Install the fix if this Triton needs it; returns whether it is (now) installed."""
    global _installed
    if _installed:
        return True
    from triton.runtime import interpreter as interp
    if not _needs_fix(interp):
        return False
    original = interp._patch_lang_tensor

    def _patch_lang_tensor(tensor, *scope):
        original(tensor, *scope)
        if scope:  # same scope: restored with everything else after the launch
            scope[0].set_attr(tensor, "__index__", _index)
        else:
            tensor.__index__ = _index

    _patch_lang_tensor.__wrapped__ = original
    interp._patch_lang_tensor = _patch_lang_tensor
    _installed = True
    return True
