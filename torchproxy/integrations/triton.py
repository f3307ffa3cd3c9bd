"""Binding Triton's GPU runtime to Paddle, explicitly: ``torchproxy.integrations.triton.bind()``.

Per launch Triton needs from a tensor only ``data_ptr()`` and ``str(dtype)``, which Paddle
tensors have.  Everything else it takes from torch lives in its *driver*
(``triton.runtime.driver.active``): current device, current stream, capability, the benchmark
device interface, the L2-flush buffer.  :class:`~.triton_driver.PaddleCudaDriver` answers those
from Paddle.  The active driver is one process-wide slot, so with both frameworks in a process
the question is *when* Paddle's driver holds it.  ``bind(mode=...)``:

- ``"default"``: Paddle's driver is Triton's default and active driver for the whole process
  (no real torch: every kernel here is a Paddle kernel).  No per-launch cost.  Without this,
  Triton <= 3.7 finds no driver at all without torch, and 3.8+ uses a torch-free driver that
  launches on the device's default stream instead of Paddle's current stream.
- ``"per-launch"``: Triton's own driver stays the default (for real torch), and Paddle's is
  activated around each launch that has a Paddle tensor argument (``JITFunction.run``,
  ``Autotuner.run``: autotuning benchmarks then time on Paddle's stream), and around
  ``triton.testing.do_bench`` / ``do_bench_cudagraph`` called from a module in torchproxy's
  scope.  Triton's default driver is created with the proxy switched off, so its own
  ``import torch`` gets real torch even when "triton" is in scope.
- ``"auto"`` (default): ``"per-launch"`` if real torch can be imported, else ``"default"``.

Works with Triton 3.3 to 3.9 (3.3 keeps the driver slots and the allocator in plain
attributes; 3.4+ behind properties and a ContextVar).  The CPU interpreter needs none of this
(no driver), but it calls Tensor methods from Triton's own modules: put "triton" in the scope.

``paddle_driver()`` activates Paddle's driver for any block (e.g. ``do_bench`` from code out of
scope).  ``paddle_allocator`` is an allocator for ``triton.set_allocator`` in Paddle memory;
``bind()`` installs it when no allocator is set.

Caveat: the active-driver slot is process-wide; in per-launch mode two threads launching
Paddle and torch kernels at the same moment can see each other's driver.
"""
from __future__ import annotations

import contextlib
import sys
import threading

from .. import scope as _scope
from ..facade.dispatch import caller_module as _caller_module

_lock = threading.RLock()
_state: dict | None = None   # what bind() replaced, for unbind(); None when not bound
_PADDLE = None                # the PaddleCudaDriver singleton


def paddle_driver_instance():
    """The process's PaddleCudaDriver (created on first use)."""
    global _PADDLE
    if _PADDLE is None:
        from .triton_driver import PaddleCudaDriver
        _PADDLE = PaddleCudaDriver()
    return _PADDLE


def _config():
    """Triton's DriverConfig (``triton.runtime.driver.driver``) and its module."""
    import triton.runtime.driver  # noqa: F401 - the module; the package attribute is the config
    mod = sys.modules["triton.runtime.driver"]
    return mod.driver, mod


def _slots(cfg):
    """(instance dict, active key, default key) of a DriverConfig: Triton 3.4+ keeps the
    drivers in ``_active``/``_default`` behind properties, 3.3 in plain ``active``/``default``
    attributes (its default a LazyProxy).  Reads and writes go straight to the dict."""
    d = cfg.__dict__
    return (d, "_active", "_default") if "_active" in d else (d, "active", "default")


@contextlib.contextmanager
def paddle_driver():
    """Paddle's driver is Triton's active driver inside the block; the previous one after."""
    cfg, _ = _config()
    d, active, _ = _slots(cfg)
    drv = paddle_driver_instance()
    prev = d[active]
    d[active] = drv
    try:
        yield drv
    finally:
        d[active] = prev


# -- the per-launch switch ---------------------------------------------------------------------
# What an argument's type says about a launch, cached per type (one dict lookup per argument):
# PADDLE / FOREIGN (a tensor of another framework: it decides the launch is not Paddle's) /
# WRAPPED (triton.reinterpret's TensorWrapper: look at its base) / None (scalars, constexprs).
PADDLE, FOREIGN, WRAPPED = "paddle", "foreign", "wrapped"


def _classify(tp, PT, TW):
    if issubclass(tp, PT):
        return PADDLE
    if tp is TW:
        return WRAPPED
    if hasattr(tp, "data_ptr"):
        return FOREIGN
    return None


def _launch_kind(values, kinds, PT, TW):
    """PADDLE or FOREIGN from the first tensor among ``values``; None if there is none."""
    for a in values:
        tp = type(a)
        k = kinds.get(tp, 0)
        if k == 0:
            k = kinds[tp] = _classify(tp, PT, TW)
        if k is None:
            continue
        if k is WRAPPED:
            base = a.base
            return PADDLE if isinstance(base, PT) else FOREIGN
        return k
    return None


def switching_run(orig, cfg, drv):
    """Wrap a ``run(self, *args, **kwargs)`` so Paddle launches run with ``drv`` active: the
    first tensor argument decides (a launch mixes no frameworks)."""
    import paddle
    from triton.runtime.jit import TensorWrapper as TW
    PT = paddle.Tensor
    d, active, _ = _slots(cfg)
    kinds = {int: None, float: None, bool: None, type(None): None, str: None}

    def run(self, *args, **kwargs):
        prev = d[active]
        if prev is drv:
            return orig(self, *args, **kwargs)
        # the common case inline (a kernel's first argument is a tensor, and its type was seen
        # before): one dict lookup instead of a _launch_kind call, per launch
        kind = kinds.get(type(args[0]), 0) if args else None
        if kind is not PADDLE and kind is not FOREIGN:
            kind = _launch_kind(args, kinds, PT, TW)
            if kind is None and kwargs:
                kind = _launch_kind(kwargs.values(), kinds, PT, TW)
        if kind is not PADDLE:
            return orig(self, *args, **kwargs)
        d[active] = drv
        try:
            return orig(self, *args, **kwargs)
        finally:
            d[active] = prev

    run.__wrapped__ = orig
    run.__name__ = getattr(orig, "__name__", "run")
    return run


def _user_module(name) -> bool:
    """Not Triton itself: with "triton" in scope, its autotuner calls do_bench too, for torch
    kernels as for Paddle ones; Autotuner.run's own switch has already chosen the driver."""
    return isinstance(name, str) and name != "triton" and not name.startswith("triton.")


def scoped_bench(orig, cfg, drv, wants=None):
    """Wrap ``do_bench``: called from a module in scope, it runs with Paddle's driver."""
    wants = wants or _scope.STATE.wants_facade
    d, active, _ = _slots(cfg)

    def do_bench(*args, **kwargs):
        caller = _caller_module(1)  # the module calling do_bench
        if d[active] is not drv and _user_module(caller) and wants(caller):
            prev = d[active]
            d[active] = drv
            try:
                return orig(*args, **kwargs)
            finally:
                d[active] = prev
        return orig(*args, **kwargs)

    do_bench.__wrapped__ = orig
    do_bench.__name__ = getattr(orig, "__name__", "do_bench")
    do_bench.__doc__ = getattr(orig, "__doc__", None)
    return do_bench


def real_torch_default(orig_create):
    """Wrap Triton's ``_create_driver`` so its ``import torch`` is real torch, also when
    "triton" is in scope (it is process-wide state, built once for torch's launches)."""
    def _create_driver():
        from .. import api
        if not api.is_enabled():
            return orig_create()
        with api.guard(enable=False):
            return orig_create()

    _create_driver.__wrapped__ = orig_create
    return _create_driver


# -- allocator ---------------------------------------------------------------------------------
class _AlignedBuffer:
    """A Paddle allocation and an aligned address inside it (what Triton's allocator returns:
    anything with ``data_ptr()``); holding it keeps the memory alive."""

    __slots__ = ("tensor", "_ptr")

    def __init__(self, tensor, ptr):
        self.tensor = tensor
        self._ptr = ptr

    def data_ptr(self) -> int:
        return self._ptr


def aligned(tensor, alignment: int):
    """``tensor`` itself when its address is aligned, else an aligned view into it (the caller
    allocated ``alignment - 1`` spare bytes)."""
    ptr = tensor.data_ptr()
    if alignment <= 1 or ptr % alignment == 0:
        return tensor
    return _AlignedBuffer(tensor, ptr + (alignment - ptr % alignment))


def paddle_allocator(size: int, alignment: int, stream):
    """``triton.set_allocator`` allocator: ``size`` bytes of Paddle GPU memory."""
    from . import paddle_cuda
    buf = paddle_cuda.empty(int(size))
    if alignment > 1 and buf.data_ptr() % alignment:
        buf = paddle_cuda.empty(int(size) + alignment - 1)
    return aligned(buf, alignment)


def _allocation_module():
    import triton.runtime._allocation as alloc
    return alloc


# Triton 3.4+ keeps the allocator in a ContextVar, 3.3 in a module global.
def current_allocator():
    a = _allocation_module()._allocator
    return a.get() if hasattr(a, "get") else a


def _install_allocator(fn):
    alloc = _allocation_module()
    if hasattr(alloc._allocator, "set"):
        return alloc._allocator.set(fn)
    alloc._allocator = fn
    return None


def _restore_allocator(previous, token):
    alloc = _allocation_module()
    if not hasattr(alloc._allocator, "set"):
        alloc._allocator = previous
        return
    try:
        alloc._allocator.reset(token)
    except ValueError:  # bound in another context: put the previous allocator back
        alloc._allocator.set(previous)


# -- bind / unbind -----------------------------------------------------------------------------
def _real_torch_installed() -> bool:
    """Whether real torch can be imported here (all finders; torchproxy is never in scope)."""
    import importlib.util
    if "torch" in sys.modules:
        return sys.modules["torch"] is not None and not _is_facade(sys.modules["torch"])
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def _is_facade(mod) -> bool:
    from ..hook import is_facade
    return is_facade(mod)


def bind(mode: str = "auto", *, allocator: bool = True) -> str:
    """Bind Triton's GPU runtime to Paddle (see the module docstring); returns the mode used.

    Call it before kernels are launched (the ``do_bench`` wrapper reaches code that imports
    ``triton.testing.do_bench`` after this call, or calls it as ``triton.testing.do_bench``)."""
    global _state
    if mode == "auto":
        mode = "per-launch" if _real_torch_installed() else "default"
    if mode not in ("default", "per-launch"):
        raise ValueError(f"mode must be 'auto', 'default' or 'per-launch', not {mode!r}")
    with _lock:
        if _state is not None:
            if _state["mode"] != mode:
                raise RuntimeError(f"Triton is already bound to Paddle in {_state['mode']!r} "
                                   f"mode; unbind() first")
            return mode
        import triton.testing
        from triton.runtime.autotuner import Autotuner
        from triton.runtime.jit import JITFunction
        cfg, driver_mod = _config()
        drv = paddle_driver_instance()
        d, active, default = _slots(cfg)
        state = {"mode": mode, "default": d[default], "active": d[active]}
        if mode == "default":
            d[default] = drv
            d[active] = drv
        else:
            state["patched"] = [(JITFunction, "run", JITFunction.__dict__["run"]),
                                (Autotuner, "run", Autotuner.__dict__["run"]),
                                (driver_mod, "_create_driver", driver_mod._create_driver)]
            for name in ("do_bench", "do_bench_cudagraph"):
                if hasattr(triton.testing, name):
                    state["patched"].append((triton.testing, name, getattr(triton.testing, name)))
            JITFunction.run = switching_run(JITFunction.__dict__["run"], cfg, drv)
            Autotuner.run = switching_run(Autotuner.__dict__["run"], cfg, drv)
            driver_mod._create_driver = real_torch_default(driver_mod._create_driver)
            lazy = d[default]
            if getattr(lazy, "_init_fn", None) is not None and lazy._obj is None:
                # Triton 3.3: the default is a LazyProxy holding _create_driver already
                state["patched"].append((lazy, "_init_fn", lazy._init_fn))
                lazy._init_fn = real_torch_default(lazy._init_fn)
            for name in ("do_bench", "do_bench_cudagraph"):
                if hasattr(triton.testing, name):
                    setattr(triton.testing, name, scoped_bench(getattr(triton.testing, name),
                                                               cfg, drv))
        if allocator:
            alloc = _allocation_module()
            if isinstance(current_allocator(), alloc.NullAllocator):
                state["allocator"] = current_allocator()
                state["allocator_token"] = _install_allocator(paddle_allocator)
        _state = state
        return mode


def unbind() -> None:
    """Undo bind(): Triton's functions, driver slots and allocator as they were."""
    global _state
    with _lock:
        if _state is None:
            return
        cfg, _ = _config()
        for owner, name, original in reversed(_state.get("patched", [])):
            setattr(owner, name, original)
        d, active, default = _slots(cfg)
        d[default] = _state["default"]
        d[active] = _state["active"]
        if "allocator" in _state:
            _restore_allocator(_state["allocator"], _state["allocator_token"])
        _state = None


def bound_mode() -> str | None:
    return None if _state is None else _state["mode"]
