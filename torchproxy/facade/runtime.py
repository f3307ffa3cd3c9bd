"""Runtime names around the tensor API: ``torch.version``, ``torch._C`` (the few private names
Triton and TileLang call), ``torch.backends``, ``torch.compile`` / ``torch.jit`` /
``torch._dynamo`` (which run the function as is), (``torch.amp``: facade/autocast.py).

API level: the facade claims ``torch.__version__ == core.TORCH_VERSION`` ("2.6.0+torchproxy"):
the torch API the names here follow (e.g. ``torch.amp.custom_fwd(device_type=...)``, which
Liger-Kernel picks when torch >= 2.4).
"""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: _C _dynamo backends compile compiler get_float32_matmul_precision jit mps
        set_float32_matmul_precision torch_version version xpu
    torch._C: _CudaDeviceProperties _cuda_getCurrentRawStream _cuda_getDevice
    torch._dynamo: allow_in_graph disable is_compiling
    torch.backends: cuda cudnn mps
    torch.backends.cuda: is_built matmul
    torch.compiler: allow_in_graph disable is_compiling is_dynamo_compiling
    torch.jit: ignore is_scripting is_tracing script unused
    torch.mps: is_available
    torch.torch_version: TorchVersion __version__
    torch.version: __version__ cuda debug hip
    torch.xpu: device_count is_available is_bf16_supported memory_allocated memory_reserved
""")

import contextlib
import functools
import types
import warnings

import paddle

from . import cuda as _cuda
from .core import TORCH_VERSION
from ..errors import NotProvidedError
from ..paddle_shims import (cached_stream_handle, cublas_switch, hip_version,
                            xpu_device_count)
from .registry import module, torch_function, type_, value


# -- torch.version ------------------------------------------------------------------------------
module("torch.version")
value("torch.version.__version__", TORCH_VERSION)


def _cuda_version():
    if not paddle.is_compiled_with_cuda() or paddle.is_compiled_with_rocm():
        return None
    v = paddle.version.cuda()
    return None if v in (None, "False", "") else str(v)


def _hip_version():
    if not paddle.is_compiled_with_rocm():
        return None
    v = hip_version()  # Paddle >= 3.0
    # a ROCm build whose Paddle cannot tell the HIP version still must not look like CUDA
    return str(v) if v not in (None, "False", "") else "unknown"


value("torch.version.cuda", _cuda_version(), note="Paddle's CUDA version; None without CUDA")
value("torch.version.hip", _hip_version(), note="Paddle's HIP version on ROCm builds, else None")
value("torch.version.debug", False)

# -- torch._C: the private entry points Triton's driver and TileLang's adapters read ------------
module("torch._C")


@torch_function("torch._C._cuda_getCurrentRawStream",
                note="raw cudaStream_t of Paddle's current stream (Triton's and TileLang's launch "
                     "path)")
def _cuda_getCurrentRawStream(device_index: int) -> int:
    # on every Triton launch: straight to Paddle's stream of that device, no wrapper object
    _cuda._lazy_init()
    return int(cached_stream_handle(device_index))  # read once per stream switch


@torch_function("torch._C._cuda_getDevice")
def _cuda_getDevice() -> int:
    return _cuda.current_device()


# -- torch.backends -------------------------------------------------------------------------------
module("torch.backends")


class _Switch:
    """A torch.backends flag bridged to a Paddle switch where Paddle has one.

    Paddle builds without cuBLAS/cuDNN (CPU builds of 2.6) have no switch: the value is kept
    here, and there is no GPU math for it to affect."""

    def __init__(self, getter: str, setter: str, default: bool):
        self.get, self.set = cublas_switch(getter, setter)
        self.value = default

    def read(self) -> bool:
        return bool(self.get()) if self.get is not None else self.value

    def write(self, flag) -> None:
        flag = bool(flag)
        if self.set is not None:
            self.set(flag)
        self.value = flag


class _Flag:
    """A torch.backends flag that is a Paddle FLAGS_* on builds with cuDNN.

    A build without it (CPU) has no such flag and no cuDNN for it to affect: the value is kept
    here.  A CUDA build that refuses the flag raises, rather than ignoring the request."""

    def __init__(self, flag: str, default: bool):
        self.flag, self.value = flag, default

    def read(self) -> bool:
        try:
            return bool(paddle.get_flags([self.flag])[self.flag])
        except ValueError:
            return self.value

    def write(self, on) -> None:
        on = bool(on)
        try:
            paddle.set_flags({self.flag: on})
        except ValueError:
            if paddle.is_compiled_with_cuda():
                raise
        self.value = on


def _backed_by(setting, doc=None):
    """A torch.backends attribute that reads and writes a Paddle flag or switch."""
    return property(lambda self: setting.read(), lambda self, flag: setting.write(flag), doc=doc)


_CUDNN_DETERMINISTIC = _Flag("FLAGS_cudnn_deterministic", False)
_CUDNN_BENCHMARK = _Flag("FLAGS_cudnn_exhaustive_search", False)
_CUBLAS_TF32 = _Switch("get_cublas_switch", "set_cublas_switch", False)
_CUDNN_TF32 = _Switch("get_cudnn_switch", "set_cudnn_switch", True)


class _CudaMatmul:
    """``torch.backends.cuda.matmul``: ``allow_tf32`` is Paddle's cuBLAS TF32 switch."""

    def _reduced(self, flag, name):
        if not flag:
            raise NotImplementedError(f"torchproxy: torch.backends.cuda.matmul.{name} = False has "
                                      "no Paddle counterpart (cuBLAS reductions are Paddle's)")

    allow_fp16_reduced_precision_reduction = property(
        lambda self: True,
        lambda self, f: self._reduced(f, "allow_fp16_reduced_precision_reduction"))
    allow_bf16_reduced_precision_reduction = property(
        lambda self: True,
        lambda self, f: self._reduced(f, "allow_bf16_reduced_precision_reduction"))

    def __setattr__(self, name, value):
        if not hasattr(type(self), name):  # unknown flags are refused, not silently kept
            raise NotProvidedError(f"torch.backends.cuda.matmul.{name}")
        object.__setattr__(self, name, value)

    allow_tf32 = _backed_by(_CUBLAS_TF32)

    def __repr__(self):
        return f"<torch.backends.cuda.matmul allow_tf32={self.allow_tf32}>"


module("torch.backends.cuda")
value("torch.backends.cuda.matmul", _CudaMatmul(),
      note="allow_tf32 reads/writes Paddle's cuBLAS TF32 switch (core.set_cublas_switch)")


# torch.get/set_float32_matmul_precision: torch's legacy view of the same cuBLAS TF32 switch as
# torch.backends.cuda.matmul.allow_tf32 ("highest" = off; "high"/"medium" = on).
_MATMUL_PRECISION = ["highest"]


@torch_function("torch.set_float32_matmul_precision",
                note="'medium' switches TF32 on as 'high' does (Paddle has no bf16-internal "
                     "float32 matmul)")
def set_float32_matmul_precision(precision: str) -> None:
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _CUBLAS_TF32.write(precision != "highest")
    _MATMUL_PRECISION[0] = precision


@torch_function("torch.get_float32_matmul_precision")
def get_float32_matmul_precision() -> str:
    """The last precision set, while the TF32 switch still agrees with it; else what the switch
    says (``allow_tf32 = True`` -> "high", False -> "highest")."""
    tf32 = _CUBLAS_TF32.read()
    if (_MATMUL_PRECISION[0] != "highest") == tf32:
        return _MATMUL_PRECISION[0]
    return "high" if tf32 else "highest"


@torch_function("torch.backends.cuda.is_built")
def _cuda_is_built() -> bool:
    return paddle.is_compiled_with_cuda()


class _Cudnn(types.ModuleType):
    """``torch.backends.cudnn``: ``allow_tf32`` is Paddle's cuDNN TF32 switch.

    A module subclass whose flags are properties, as torch's (CudnnModule): ``import
    torch.backends.cudnn as cudnn`` then ``cudnn.benchmark = True`` (pytorch/examples dcgan)
    works as ``torch.backends.cudnn.benchmark = True`` does."""

    def __init__(self):
        super().__init__("torch.backends.cudnn")

    @property
    def enabled(self) -> bool:
        return True

    @enabled.setter
    def enabled(self, flag) -> None:
        if not flag:
            raise NotImplementedError("torchproxy: torch.backends.cudnn.enabled = False has no "
                                      "Paddle counterpart (cuDNN cannot be switched off globally)")

    allow_tf32 = _backed_by(_CUDNN_TF32)
    deterministic = _backed_by(_CUDNN_DETERMINISTIC)
    benchmark = _backed_by(_CUDNN_BENCHMARK, "Paddle's FLAGS_cudnn_exhaustive_search (cuDNN "
                                             "algorithm search).")

    def __setattr__(self, name, value):
        # a flag this module does not know would be set and silently ignored: refuse it
        if not hasattr(type(self), name):
            raise NotProvidedError(f"torch.backends.cudnn.{name}")
        object.__setattr__(self, name, value)

    @staticmethod
    def version():
        """cuDNN version as an int (e.g. 90100), None without cuDNN -- as torch."""
        v = paddle.device.get_cudnn_version()
        return int(v) if v else None

    def is_available(self) -> bool:
        return self.version() is not None

    @contextlib.contextmanager
    def flags(self, enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
              allow_tf32=True):
        """allow_tf32 / benchmark / deterministic set inside, restored after (``enabled`` and
        ``benchmark_limit`` have no Paddle counterpart: cuDNN stays on)."""
        saved = (self.allow_tf32, self.benchmark, self.deterministic)
        self.allow_tf32, self.benchmark, self.deterministic = allow_tf32, benchmark, deterministic
        try:
            yield
        finally:
            self.allow_tf32, self.benchmark, self.deterministic = saved

    def __repr__(self):
        return f"<torch.backends.cudnn allow_tf32={self.allow_tf32}>"


value("torch.backends.cudnn", _Cudnn(),
      note="allow_tf32 = Paddle's cuDNN TF32 switch, deterministic / benchmark = "
           "FLAGS_cudnn_deterministic / FLAGS_cudnn_exhaustive_search; version(), "
           "is_available(), flags(); other attributes raise NotProvidedError")


class _Mps:
    @staticmethod
    def is_available() -> bool:
        return False  # Paddle has no Metal backend

    @staticmethod
    def is_built() -> bool:
        return False


value("torch.backends.mps", _Mps(), note="Paddle has no Metal backend: is_available() is False")

# -- torch.compile / torch.compiler / torch._dynamo / torch.jit: run the Python as is -----------
_notified = False


def _notice_once():
    global _notified
    if not _notified:
        _notified = True
        warnings.warn("torchproxy: torch.compile runs the function as is (no graph compilation "
                      "on Paddle); this notice is shown once", RuntimeWarning, stacklevel=3)


@torch_function("torch.compile",
                note="returns the function unchanged (one RuntimeWarning per process)")
def compile_(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    if model is None:  # @torch.compile(...) with arguments
        def deco(fn):
            _notice_once()
            return fn
        return deco
    _notice_once()
    return model


def _passthrough_decorator(fn=None, *args, **kwargs):
    """``@x``, ``@x(...)`` and ``x(fn, ...)`` all give back ``fn``."""
    if fn is None or not callable(fn):
        return lambda f: f
    return fn


module("torch.compiler")
torch_function("torch.compiler.disable")(_passthrough_decorator)
torch_function("torch.compiler.allow_in_graph")(_passthrough_decorator)


@torch_function("torch.compiler.is_compiling")
def is_compiling() -> bool:
    return False


@torch_function("torch.compiler.is_dynamo_compiling")
def is_dynamo_compiling() -> bool:
    return False


module("torch._dynamo")
torch_function("torch._dynamo.disable")(_passthrough_decorator)
torch_function("torch._dynamo.allow_in_graph")(_passthrough_decorator)
torch_function("torch._dynamo.is_compiling")(is_compiling)

module("torch.jit")
torch_function("torch.jit.script", note="returns the function unchanged")(_passthrough_decorator)
torch_function("torch.jit.ignore")(_passthrough_decorator)
torch_function("torch.jit.unused")(_passthrough_decorator)


@torch_function("torch.jit.is_scripting")
def is_scripting() -> bool:
    return False


@torch_function("torch.jit.is_tracing")
def is_tracing() -> bool:
    return False


# -- torch dtypes given as names or objects (nn.py, nn_functional.py) --------------------------
def paddle_dtype_of(dtype):
    """A torch dtype of the facade (whatever its representation) -> Paddle's dtype."""
    if isinstance(dtype, str):
        name = dtype
    else:
        name = str(dtype).split(".")[-1]  # torch.float16 / paddle.float16 / VarType.FP16
    name = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
            "half": "float16", "float": "float32", "double": "float64"}.get(name.lower(), name.lower())
    return paddle.to_tensor([], dtype=name).dtype


# -- other accelerators the libraries probe for: Paddle's answer -------------------------------
module("torch.xpu")


@torch_function("torch.xpu.is_available")
def xpu_is_available() -> bool:
    return paddle.is_compiled_with_xpu() and xpu_device_count() > 0


# Hugging Face transformers asks these of torch.xpu (import_utils, modeling_utils' memory
# planning); a torch build without XPU answers 0 / False, and so does a Paddle without one.
# Where Paddle does drive an XPU, its numbers are not wired up: NotProvidedError says so.
def _no_xpu(name: str) -> bool:
    if not xpu_is_available():
        return True
    raise NotProvidedError(f"{name} with a Paddle XPU device")


@torch_function("torch.xpu.device_count")
def xpu_device_count_() -> int:
    return xpu_device_count() if paddle.is_compiled_with_xpu() else 0


@torch_function("torch.xpu.is_bf16_supported")
def xpu_is_bf16_supported(including_emulation: bool = True) -> bool:
    _no_xpu("torch.xpu.is_bf16_supported")
    return False


@torch_function("torch.xpu.memory_allocated")
def xpu_memory_allocated(device=None) -> int:
    _no_xpu("torch.xpu.memory_allocated")
    return 0  # torch: memory_stats() is empty before the XPU is initialized


@torch_function("torch.xpu.memory_reserved")
def xpu_memory_reserved(device=None) -> int:
    _no_xpu("torch.xpu.memory_reserved")
    return 0


module("torch.mps")


@torch_function("torch.mps.is_available")
def mps_is_available() -> bool:
    return False


type_("torch._C._CudaDeviceProperties", _cuda._CudaDeviceProperties)


# added for FlashInfer: flashinfer/utils.py does `from torch.torch_version import TorchVersion,
# __version__` and compares against "2.4" to pick its custom-op registration path.
def _release(v) -> tuple:
    """'2.6.0+torchproxy' / '2.4' / (2, 4) -> (2, 6, 0) / (2, 4, 0): the numeric release."""
    if isinstance(v, (tuple, list)):
        parts = [int(x) for x in v]
    else:
        head = str(v).split("+")[0]
        parts = []
        for piece in head.split("."):
            digits = ""
            for ch in piece:
                if not ch.isdigit():
                    break
                digits += ch
            if not digits:
                break
            parts.append(int(digits))
            if len(digits) != len(piece):  # "0a0", "0rc1": a pre-release ends the release
                break
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


def _as_version(v):
    """packaging's Version when installed (torch's own rules: pre-releases and local tags
    count), else the numeric release tuple."""
    try:
        from packaging.version import Version
    except ImportError:
        return _release(v)
    if isinstance(v, (tuple, list)):
        v = ".".join(str(x) for x in v)
    return Version(str(v))


class TorchVersion(str):
    """torch.torch_version.TorchVersion: a str that compares as a version with str/tuples."""

    def _cmp(self, other, op):
        try:
            return op(_as_version(self), _as_version(other))
        except (TypeError, ValueError):
            return NotImplemented

    def __lt__(self, o):
        return self._cmp(o, lambda a, b: a < b)

    def __le__(self, o):
        return self._cmp(o, lambda a, b: a <= b)

    def __gt__(self, o):
        return self._cmp(o, lambda a, b: a > b)

    def __ge__(self, o):
        return self._cmp(o, lambda a, b: a >= b)

    def __eq__(self, o):
        res = self._cmp(o, lambda a, b: a == b)
        return str.__eq__(self, o) if res is NotImplemented else res

    __hash__ = str.__hash__


module("torch.torch_version")
type_("torch.torch_version.TorchVersion", TorchVersion,
      note="without the packaging module, compares the numeric release only")
value("torch.torch_version.__version__", TorchVersion(TORCH_VERSION))
