"""Paddle tensors into apache-tvm-ffi functions (FlashInfer-style compiled libraries), zero-copy.

tvm-ffi takes any object with ``__dlpack__`` (Paddle >= 3.0 tensors have it) or a DLPack
capsule (Paddle 2.6: ``paddle.utils.dlpack.to_dlpack``).  Nothing is copied: the tvm-ffi
tensor views the Paddle allocation.

Why ``tvm_ffi`` is always blocked from the facade (``scope.DEFAULT_BLOCKED``): at import it
runs ``import torch`` and, if that succeeds, installs torch's DLPack exchange capsule on
``torch.Tensor`` and converts ``torch.dtype`` objects by torch's rules.  Given the facade it
would do that to ``paddle.Tensor``.  So tvm_ffi keeps real torch (or ImportError), and Paddle
tensors reach it through plain DLPack, here.

Streams: tvm-ffi functions that launch on "the environment stream"
(``TVMFFIEnvGetStream``) see Paddle's current stream inside :func:`paddle_stream`.
"""
from __future__ import annotations

import contextlib


def _tvm_ffi():
    import tvm_ffi
    return tvm_ffi


def _is_paddle_tensor(x) -> bool:
    import paddle
    return isinstance(x, paddle.Tensor)


def to_tvm_ffi(x):
    """A ``tvm_ffi.Tensor`` viewing the Paddle tensor's memory (no copy)."""
    tvm_ffi = _tvm_ffi()
    if hasattr(x, "__dlpack__"):
        return tvm_ffi.from_dlpack(x)
    import paddle
    return tvm_ffi.from_dlpack(paddle.utils.dlpack.to_dlpack(x))


def from_tvm_ffi(t):
    """A ``paddle.Tensor`` of a tvm-ffi tensor: a view on Paddle >= 3; Paddle 2.6's
    ``from_dlpack`` takes only capsules and copies (measured on CPU)."""
    import paddle
    try:
        return paddle.utils.dlpack.from_dlpack(t)
    except (TypeError, AttributeError, ValueError):
        # Paddle 2.6 takes only capsules
        return paddle.utils.dlpack.from_dlpack(t.__dlpack__())


def _convert(arg):
    # Paddle >= 3 tensors already speak __dlpack__; converting here keeps Paddle 2.6 working
    # and costs one capsule per tensor either way
    return to_tvm_ffi(arg) if _is_paddle_tensor(arg) else arg


def call(fn, *args):
    """``fn(*args)`` with Paddle tensors passed to the tvm-ffi function zero-copy."""
    return fn(*(_convert(a) for a in args))


def _device_of(x):
    tvm_ffi = _tvm_ffi()
    place = x.place
    if place.is_gpu_place():
        return tvm_ffi.device("cuda", place.gpu_device_id())
    return tvm_ffi.device("cpu", 0)


@contextlib.contextmanager
def paddle_stream(x=None):
    """Within the block, tvm-ffi's environment stream for the tensor's CUDA device is Paddle's
    current stream there (on CPU there is no stream: the block changes nothing)."""
    import paddle
    if x is None or not x.place.is_gpu_place():
        yield
        return
    device = _device_of(x)
    # a tensor's .place is a generic Place; current_stream wants a CUDAPlace (2.6 and 3.x)
    place = paddle.CUDAPlace(x.place.gpu_device_id())
    stream = paddle.device.current_stream(place)._as_parameter_.value or 0
    with _tvm_ffi().use_raw_stream(device, stream):
        yield
