"""TileLang on Paddle tensors: what the facade alone cannot do.

TileLang (upstream ``tilelang`` and Paddle's fork ``tilelang-paddle``) imports torch for
devices, dtypes, streams, output allocation and its profiler; with
``torchproxy.enable(scope={"tilelang"})`` all of that is the facade, so tensors in and out are
``paddle.Tensor``.  Three things need more than the facade:

- TileLang's Cython launcher is a compiled top-level module (``tilelang_cython_wrapper``) whose
  ``import torch`` bypasses ``builtins.__import__``; ``scope.COMPANIONS`` puts it in scope and
  the import hook rebinds its ``torch`` global (see ``hook._import_c_companion``), then calls
  :func:`on_import` here.
- Streams: the Cython backend asks ``torch.cuda.current_stream()`` (the facade answers with
  Paddle's current stream); the tvm_ffi backend (TileLang's default for CUDA) reads tvm-ffi's
  environment stream, which :func:`_launch_on_paddle_stream` sets to Paddle's current stream.
- Target auto-detection: on a machine with a CUDA toolkit but no GPU Paddle can use,
  tilelang-paddle 0.1.13 picks a bare ``"cuda"`` target, which TVM completes with its default
  ``sm_50``, and the user sees an nvcc error about an architecture CUDA 13 no longer has
  (upstream 0.1.15 reports "no target detector found an available target" instead).  :func:`on_import` wraps
  TileLang's CUDA target detector and normalizer to say what is wrong and what to pass instead.

Scope for kernels: ``torchproxy.enable(scope={"tilelang", "<your kernel package>"})`` or
:func:`enable` below.
"""
from __future__ import annotations

import sys

SCOPE = ("tilelang",)


class NoCudaDeviceError(RuntimeError):
    """TileLang would compile for CUDA, but Paddle has no CUDA device on this machine."""


def enable(*extra_scope: str) -> None:
    """``torchproxy.enable(scope={"tilelang", *extra_scope})``: TileLang and the packages that
    hold your kernels get the facade."""
    import torchproxy
    torchproxy.enable(scope=set(SCOPE) | set(extra_scope))


def _paddle_cuda_devices() -> int:
    import paddle
    if not paddle.is_compiled_with_cuda():
        return 0
    return paddle.device.cuda.device_count()


def _toolkit_path() -> str | None:
    try:
        from tilelang.contrib import nvcc
        return nvcc.find_cuda_path()
    except Exception:
        return None


def no_device_message(toolkit: str | None) -> str:
    import paddle
    return (
        f"torchproxy: TileLang needs a target. This machine has a CUDA toolkit ({toolkit}) "
        f"but Paddle {paddle.__version__} sees no CUDA GPU (compiled with CUDA: "
        f"{paddle.is_compiled_with_cuda()}, devices: {_paddle_cuda_devices()}), so there is no "
        "GPU to take the architecture from (a bare 'cuda' target means TVM's default sm_50, "
        "which nvcc 13 rejects). "
        "Pass a target: target='c' for CPU kernels on Paddle CPU tensors, or "
        "target={'kind': 'cuda', 'arch': 'sm_90'} (tilelang.jit(target=...) / "
        "tilelang.compile(..., target=...)) to generate and compile CUDA code for a GPU that "
        "is not on this machine.")


def _wrap_cuda_detection(target_mod) -> None:
    """Wrap TileLang's registered CUDA detector/normalizer (same position, same name)."""
    detectors = target_mod._TARGET_DETECTORS
    normalizers = target_mod._TARGET_NORMALIZERS
    det = detectors.get("cuda")
    if det is not None and not getattr(det.detect, "__torchproxy__", False):
        inner_detect = det.detect

        def detect():
            toolkit = _toolkit_path()
            if toolkit is not None and _paddle_cuda_devices() == 0:
                raise NoCudaDeviceError(no_device_message(toolkit))
            return inner_detect()
        detect.__torchproxy__ = True
        target_mod.register_target_detector("cuda", detect, override=True)

    norm = normalizers.get("cuda")
    if norm is not None and not getattr(norm.normalize, "__torchproxy__", False):
        inner_normalize = norm.normalize

        def normalize(target):
            # an explicit bare "cuda" on a GPU-less machine ends at sm_50 the same way
            if isinstance(target, str) and target.strip() == "cuda" and _paddle_cuda_devices() == 0:
                raise NoCudaDeviceError(no_device_message(_toolkit_path()))
            return inner_normalize(target)
        normalize.__torchproxy__ = True
        target_mod.register_target_normalizer("cuda", normalize, override=True)


def _first_gpu_index(args, PT) -> int:
    """The CUDA device index of the first Paddle GPU tensor among ``args``, else -1."""
    from .tvm_ffi import first_gpu_index
    return first_gpu_index(args, PT)


def _launch_on_paddle_stream(adapter_cls) -> None:
    """TileLang's default CUDA backend (tvm_ffi) launches on tvm-ffi's environment stream,
    which torch tensors set through torch's DLPack exchange API.  Paddle 2.6 tensors reach
    tvm-ffi as plain DLPack capsules that carry no stream, so the launch would go to the legacy
    default stream.  Wrap the adapter's launcher: with a Paddle GPU tensor among the arguments,
    the environment stream is Paddle's current stream for the call."""
    original = adapter_cls._convert_torch_func
    if getattr(original, "__torchproxy__", False):
        return
    from . import tvm_ffi as _tvm_ffi

    import paddle
    PT = paddle.Tensor
    on_stream = _tvm_ffi.call_on_paddle_stream
    first_gpu_index = _tvm_ffi.first_gpu_index

    def _convert_torch_func(self):
        func = original(self)
        if _tvm_ffi.exchange_api_sets_stream():
            # tvm-ffi reads Paddle tensors through torchproxy's DLPack C exchange table and
            # sets Paddle's current stream for the call itself: no per-call wrapper
            return func

        def launch(*args, **kwargs):
            index = first_gpu_index(args, PT)
            if index < 0:
                return func(*args, **kwargs)
            return on_stream(index, func, *args, **kwargs)
        launch.__wrapped__ = func
        return launch
    _convert_torch_func.__torchproxy__ = True
    adapter_cls._convert_torch_func = _convert_torch_func


def on_import() -> None:
    """Called by the import hook when TileLang's compiled launcher loads for a scoped
    importer (that happens inside ``import tilelang``)."""
    try:
        # both are loaded before the launcher in TileLang 0.1.13..0.1.15; the CUDA detector
        # registers when tilelang.cuda.target is imported
        import tilelang.backend.target as target_mod
        import tilelang.cuda.target  # noqa: F401
    except ImportError:  # a TileLang without pluggable targets: nothing to wrap
        return
    _wrap_cuda_detection(target_mod)
    # before any Paddle tensor reaches tvm-ffi (it keeps, per type, the way it read the first)
    from .tvm_ffi import install_exchange_api
    install_exchange_api()
    tvm_ffi_adapter = sys.modules.get("tilelang.jit.adapter.tvm_ffi")
    if tvm_ffi_adapter is not None:
        _launch_on_paddle_stream(tvm_ffi_adapter.TVMFFIKernelAdapter)
