"""The one Paddle layer: every Paddle-version difference and every private Paddle API that
torchproxy uses, each with why it is needed and the condition under which it can go.

Supporting a new Paddle release means reading this file (and paddle_shims_cuda.py, its CUDA
runtime bindings and libcuda events, whose names it re-exports).  Outside it, torchproxy calls Paddle's
public API only: tests/facade_runtime/test_paddle_shims.py greps the tree for private Paddle
API (``_C_ops``, ``paddle.base``, ``core.``, ``_offset()``, ``place._type()``...) and version
checks, with an explicit allow list (each entry with its reason).

Each shim is grouped with its removal condition ("remove when Paddle 2.6 support is dropped",
"keep while ...").  Shims that name a C++ binding only some builds have (the CUDA ones on CPU
builds) read it at call time, so a test can stand in for it, and say what they do without it.

Supported: Paddle 2.6.2 and 3.0 to 3.3.1 (``torchproxy/_paddle_check.py`` enforces the floor).
"""
from __future__ import annotations

import inspect
import re
import struct
import threading
import weakref

import paddle
from paddle import _C_ops
from paddle.base import core as _core
from paddle.base import framework as _framework

# the CUDA runtime bindings and libcuda events live in paddle_shims_cuda.py (one layer, two files)
from .paddle_shims_cuda import (cuda_device_count, cuda_current_device_id,
                                set_cuda_current_device_id, cuda_device_properties, current_stream,
                                dlpack_capsule, device_synchronize, cuda_event,
                                cuda_event_can_time, cuda_empty_cache, reset_peak_memory,
                                is_cuda_graph_capturing, nvtx, CU_EVENT_DEFAULT,
                                CU_EVENT_BLOCKING_SYNC, CU_EVENT_DISABLE_TIMING,
                                CUDA_ERROR_NOT_READY, CudaDriverError,
                                DriverEvent)  # noqa: F401 - re-exported

# ================================================================================================
# Versions
# ================================================================================================
VERSION: str = paddle.__version__
# develop builds report "0.0.0": newer than any release
SERIES: tuple = (99, 0) if VERSION.startswith("0.0") else \
    tuple(int(p) for p in VERSION.split(".")[:2])

# Paddle 2.6: the only Paddle GPU build for sm_90 at 2.6.2, and the oldest supported series.
# Remove (and every use, each named below) when Paddle 2.6 support is dropped.
IS_PADDLE_2: bool = SERIES[0] == 2


# ================================================================================================
# Fast kernels without Paddle's Python wrapper (private: paddle._C_ops)
# Why: paddle.empty / full / empty_like validate and convert their arguments in Python (a few
# microseconds per call: bench/facade_calls.py); torch.empty & co. sit on kernel wrappers' hot
# paths.  Same signatures on 2.6 and 3.x: (shape list, dtype, place) / (tensor, dtype, place).
# Keep while the public functions cost measurably more; re-check on each Paddle release.
# ================================================================================================
kernel_empty = _C_ops.empty
kernel_empty_like = _C_ops.empty_like
# The dtype argument that makes empty_like take x's own dtype (phi's
# ParseDataTypeWithInputOrder: an undefined dtype defers to the input): torch.empty_like's hot
# path then neither reads x.dtype (a new pybind enum object per read, 0.6 us on an H100 host
# with 2.6) nor hashes it (the float8 check).  2.6 takes a VarType (RAW is its undefined), 3.x
# a DataType.  Checked per dtype in tests/facade/test_host_fast_paths.py.
EMPTY_LIKE_OWN_DTYPE = _core.VarDesc.VarType.RAW if IS_PADDLE_2 else _core.DataType.UNDEFINED


def _empty_like_own_place():
    """The place argument that makes empty_like allocate where x lives without reading x.place
    (a new pybind Place per read: 0.15-0.2 us of torch.empty_like's hot path), or None where
    x's own place must be passed.

    An undefined Place defers to the input (phi's ParseBackendWithInputOrder) on builds without
    any device support: CPU-only builds of 2.6.2 and 3.3.1 (tests/facade/test_host_fast_paths.py).
    A CUDA build refuses it: Paddle 2.6.2's GPU build raises "Place(undefined:0) is not
    supported" (context_pool.cc; seen on the H100 lease of round ten, gpu/facade_cuda_check.py),
    so there the facade passes x's place, read through fast_dtype.place_reader (one Place
    object per device).  Keep while reading x.place costs a pybind object."""
    try:
        custom = list(_core.get_all_custom_device_type())
    except AttributeError:  # builds without custom-device support
        custom = []
    if (custom or _core.is_compiled_with_xpu() or _core.is_compiled_with_cuda()
            or _core.is_compiled_with_rocm()):
        return None
    return _core.Place()


# None: pass x.place (see _empty_like_own_place)
EMPTY_LIKE_OWN_PLACE = _empty_like_own_place()
_full_kernel = _C_ops.full
# Paddle 3.x has uint32/uint64 tensors (cast and view kernels) but no CPU `full` kernel for them
# ("kernel `full` is not registered ... uint32"): such a fill is made in int64 (the value's bits
# modulo 2**64) and cast, an exact conversion for every value of the unsigned range.  Remove when
# Paddle registers full for uint32/uint64 on every device.
_UNSIGNED_WIDE = tuple(getattr(paddle, n) for n in ("uint32", "uint64") if hasattr(paddle, n))


def kernel_full(shape, fill, dtype, place):
    try:
        return _full_kernel(shape, fill, dtype, place)
    except Exception:
        if dtype not in _UNSIGNED_WIDE:
            raise
    width = 32 if dtype == _UNSIGNED_WIDE[0] else 64
    if isinstance(fill, float):  # torch: 0 <= value <= max, truncated toward zero
        ok = 0 <= fill <= (1 << width) - 1
        fill = int(fill) if ok else fill
    else:  # torch: integers wrap modulo 2**width; uint32 takes (-2**32, 2**32), uint64 takes
        fill = int(fill)  # [-2**63, 2**64)
        ok = (-(1 << 32) < fill if width == 32 else -(1 << 63) <= fill) and fill < (1 << width)
    if not ok:
        raise RuntimeError(f"value cannot be converted to type uint{width}_t without overflow")
    bits = fill % (1 << 64)
    bits = bits - (1 << 64) if bits >= 1 << 63 else bits
    return _full_kernel(shape, bits, paddle.int64, place).cast(dtype)


# The same CPU build has no equal/equal_all/not_equal, assign (clone) or set_value (x[i] = v)
# kernels for uint32/uint64 either: those run on int64 (a cast each way is exact: uint64 values
# past 2**63 keep their bits), on the failure path only.  Remove with the `full` note above.
def unsigned_wide(x) -> bool:
    """``x`` is a uint32/uint64 tensor (the dtypes whose CPU kernels run through int64)."""
    return x.dtype in _UNSIGNED_WIDE


def on_int64_if_unsigned(fn, *tensors):
    """``fn(*tensors)``; where it fails on a uint32/uint64 operand, ``fn`` of the operands with
    those cast to int64 (compare ops: the answer is the same)."""
    try:
        return fn(*tensors)
    except RuntimeError:
        if not any(isinstance(t, paddle.Tensor) and unsigned_wide(t) for t in tensors):
            raise
    return fn(*(t.astype(paddle.int64) if isinstance(t, paddle.Tensor) and unsigned_wide(t)
                else t for t in tensors))


# ================================================================================================
# Tensor and place internals (private methods; no public equivalent on 2.6 or 3.x)
# ================================================================================================
def byte_offset(t) -> int:
    """A view's offset in BYTES from the start of its allocation (``Tensor._offset()``);
    torch's ``storage_offset()`` is this over the item size.  Keep while Paddle has no public
    storage offset."""
    return t._offset()


def copy_to(t, place, blocking: bool = True):
    """``t`` copied to ``place`` (``Tensor._copy_to``: one call on 2.6 and 3.x; the public
    ``Tensor.to`` is 3.x only and parses its arguments).  Remove when 2.6 support is dropped
    (then ``t.to(place, blocking=...)``)."""
    return t._copy_to(place, blocking)


def same_place(a, b) -> bool:
    """Two places are the same device (``Place._equals``; ``==`` compares identity for some
    place types on 2.6).  Remove when 2.6 support is dropped and ``==`` is checked on 3.x."""
    return a._equals(b)


def share_buffer(src, dst) -> None:
    """Make ``dst`` the same DenseTensor as ``src`` (no copy): torch's ``set_`` / storage
    views (``Tensor._share_underline_tensor_to``).  Keep while Paddle has no public set_."""
    src._share_underline_tensor_to(dst)


def place_type(place) -> int:
    """Paddle's AllocationType number of a place (``Place._type()``, one pybind call instead of
    up to three ``is_*_place()``).  facade/device.py calls ``place._type()`` inline on the
    ``Tensor.device`` hot path (allow-listed); the numbers are learnt at run time there, never
    assumed, so a renumbering only loses the fast path."""
    return place._type()


# torch's meta device (tensors with a shape and a dtype and no storage: what from_pretrained and
# accelerate's init_empty_weights build models on).  Paddle has no meta device, but its eager
# Tensor constructor (dtype, dims, name, type, persistable) makes a DenseTensor whose dims and
# dtype are set and which is never allocated: its place is Place(undefined), which no Paddle
# kernel accepts (they raise), so such a tensor carries metadata only.  The facade calls that
# tensor "meta".  Same constructor on 2.6 and 3.x (2.6 names the type LOD_TENSOR, 3.x
# DENSE_TENSOR too).  Keep while Paddle has no meta device of its own.
_DENSE_TYPE = getattr(_core.VarDesc.VarType, "LOD_TENSOR", None) or \
    _core.VarDesc.VarType.DENSE_TENSOR


# Paddle 2.6's numpy()/tolist() of a storage-less tensor return values read from nowhere
# instead of raising (3.3: nothing to read), so the facade makes no meta tensors there: a
# torch.device("meta") tensor is refused by name.  Remove with 2.6 support.
META_TENSORS_SAFE: bool = not IS_PADDLE_2


def meta_tensor(shape, dtype):
    """A tensor of ``shape`` and Paddle ``dtype`` with no storage (place undefined)."""
    from paddle.utils import unique_name
    return _core.eager.Tensor(dtype, [int(d) for d in shape], unique_name.generate("meta"),
                              _DENSE_TYPE, False)


# the AllocationType number of Place(undefined), learnt from such a tensor (never assumed)
UNDEFINED_PLACE_TYPE = meta_tensor([1], paddle.float32).place._type()


def param_class_takes_tensor() -> bool:
    """``type(param)(tensor, requires_grad=...)`` works: Paddle 3.3's EagerParamBase accepts
    a tensor (torch's Parameter signature), 2.6's wants (shape, dtype).  accelerate's and
    transformers' init_empty_weights rebuild each parameter that way.  Probed, not assumed;
    remove when 2.6 support is dropped (and 3.0-3.2 are checked)."""
    global _PARAM_TAKES_TENSOR
    if _PARAM_TAKES_TENSOR is None:
        try:
            _PARAM_TAKES_TENSOR = isinstance(EagerParamBase(paddle.ones([1]), requires_grad=True),
                                             EagerParamBase)
        except TypeError:
            _PARAM_TAKES_TENSOR = False
    return _PARAM_TAKES_TENSOR


_PARAM_TAKES_TENSOR = None


def is_meta(t) -> bool:
    """A storage-less tensor of meta_tensor's kind (its place is undefined; a 0-size tensor's is
    not: it has a place and no bytes)."""
    if t._is_initialized():  # one call answers every tensor with storage
        return False
    try:
        return t.place._type() == UNDEFINED_PLACE_TYPE
    except RuntimeError:  # a 1-D 0-size storage-less tensor: Paddle cannot report its place
        return True


def generic_place(place):
    """A generic ``core.Place`` for ``paddle.CPUPlace()`` & co. (2.6's and 3.x's typed places
    lack ``is_gpu_place()``...).  Keep while typed places lack the is_*_place() queries."""
    generic = _core.Place()
    generic.set_place(place)
    return generic


def tensor_from_numpy_zero_copy(ndarray):
    """A CPU tensor sharing ``ndarray``'s memory (the eager Tensor constructor with
    zero_copy=True; ``paddle.to_tensor`` always copies).  ``ndarray`` must be C-contiguous and
    writable.  Keep while Paddle has no public zero-copy from_numpy."""
    return _core.eager.Tensor(ndarray, paddle.CPUPlace(), False, True, "", True)


# The class of Paddle's parameters (torch.nn.Parameter's counterpart): paddle.base.framework's
# EagerParamBase on 2.6 and 3.x (paddle.Tensor subclasses it is not).  Keep while no public name.
EagerParamBase = _framework.EagerParamBase


# ================================================================================================
# The expected place (Paddle's default device; paddle.framework's private accessors)
# Why: Paddle's random and creation ops take no place argument; torch's take device=.
# paddle.device.set_device/get_device are public but parse strings and build new place objects
# on every call.  Keep while Paddle's ops lack a place argument.
# ================================================================================================
expected_place = _framework._current_expected_place
set_expected_place = _framework._set_expected_place
place_guard = _framework._dygraph_place_guard


def expected_place_object():
    """The expected-place object itself (no copy): ``paddle.set_device`` replaces it, so its
    identity tells a cache whether the device changed (Triton asks on every launch)."""
    return _framework._global_expected_place_


# ================================================================================================
# Autograd state (private; the public paddle.set_grad_enabled is a context manager)
# ================================================================================================
# The one grad flag (paddle.base.dygraph.base._set_grad_enabled, 2.6 and 3.x): torch's
# no_grad/enable_grad/set_grad_enabled toggle it directly.  Keep while Paddle has no public setter.
set_grad_enabled = paddle.base.dygraph.base._set_grad_enabled


# ================================================================================================
# Random generators (private core bindings; paddle.seed seeds them all, nothing exposes one)
# ================================================================================================
def default_cpu_generator():
    return _core.default_cpu_generator()


def default_cuda_generator(index: int):
    return _core.default_cuda_generator(int(index))


def new_generator():
    """An independent Paddle generator (``core.Generator``), for torch.Generator()."""
    return _core.Generator()


# ================================================================================================
# Build and runtime queries (core bindings; several exist on GPU builds only)
# ================================================================================================
def is_compiled_with_nccl() -> bool:
    return bool(_core.is_compiled_with_nccl())


def add_backward_final_hook(fn) -> None:
    """Run ``fn()`` once when the current backward pass has finished (every gradient
    accumulated): Paddle's one-shot final hook (``core.eager._add_backward_final_hook``, what
    Paddle's own sharding uses to all-reduce gradients; the hook list is cleared after each
    backward).  DistributedDataParallel all-reduces there.  Private on 2.6.2 and 3.3.1: goes
    when Paddle has a public post-backward callback."""
    _core.eager._add_backward_final_hook(fn)


def xpu_device_count() -> int:
    return _core.get_xpu_device_count()


def core_library_dir() -> str | None:
    """The directory of Paddle's C++ core library (cpp_extension's link path)."""
    return getattr(_core, "__file__", None)


def tensor_api_libraries() -> list[str]:
    """The libraries that may export Paddle's C++ tensor API (``paddle::Tensor::dtype() const``
    and the rest that custom operators link against): libpaddle.so on 2.6, libphi_core.so /
    libphi.so under paddle/libs on 3.x.  torchproxy._cptensor looks them up with RTLD_NOLOAD
    (only what Paddle loaded); facade/fast_dtype.py checks every reading against Paddle's own
    answer before using it.  Keep while that API is exported (it is Paddle's custom-op ABI)."""
    import os
    root = os.path.dirname(os.path.abspath(paddle.__file__))
    paths = [core_library_dir() or os.path.join(root, "base", "libpaddle.so")]
    paths += [os.path.join(root, "libs", n) for n in ("libphi_core.so", "libphi.so")]
    return [p for p in paths if os.path.exists(p)]


def cublas_switch(getter: str, setter: str):
    """(get, set) of a cuBLAS/cuDNN switch (``core.get_cublas_switch``...); (None, None) on
    builds without it (CPU builds of 2.6)."""
    return getattr(_core, getter, None), getattr(_core, setter, None)


def hip_version():
    """Paddle's HIP version on ROCm builds, else None (``paddle.version.hip`` is 3.x only).
    Remove the fallback when 2.6 support is dropped."""
    hip = getattr(paddle.version, "hip", None)
    return hip() if callable(hip) else None


def compiled_cuda_archs():
    """The CUDA archs Paddle was compiled for (``paddle.version.compiled_cuda_archs``, 3.x);
    None on 2.6.  Remove the fallback when 2.6 support is dropped."""
    archs = getattr(paddle.version, "compiled_cuda_archs", None)
    return archs() if callable(archs) else archs


def compat_get_operation(qualname: str):
    """The TORCH_LIBRARY operator ``"ns::op[.overload]"`` from Paddle's torch-compatible
    registry (``core.torch_compat._get_operation``, Paddle >= 3.3); raises when unknown."""
    return _core.torch_compat._get_operation(qualname)


def torch_compat():
    """Paddle's torch-compatible operator registry (``core.torch_compat``, Paddle >= 3.3: the
    TORCH_LIBRARY operators of loaded libraries); None before.  Remove the fallback when
    Paddle < 3.3 support is dropped."""
    return getattr(_core, "torch_compat", None)


# ================================================================================================
# The few fast CUDA functions a kernel launcher needs (Triton asks on every launch: device,
# stream; once per device: capability).  Formerly torchproxy/integrations/paddle_cuda.py, which
# re-exports them.
# ================================================================================================
_CUDAPlace = _core.CUDAPlace
_capability: dict = {}
_last_place = [None, 0]  # (Paddle's expected-place object, its device index)


def has_cuda() -> bool:
    """A CUDA build of Paddle that sees at least one GPU."""
    return paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0


def current_device() -> int:
    """Paddle's current GPU: the expected place when it is a GPU (``paddle.set_device``),
    else the CUDA runtime's current device."""
    # paddle.set_device replaces the expected-place object, so the object's identity says
    # whether the cached answer still holds (one global read)
    place = _framework._global_expected_place_
    if place is not None and place is _last_place[0]:
        return _last_place[1]
    idx = gpu_index(expected_place())
    if idx is None:  # the expected place is not a GPU: the CUDA runtime's own current device
        return _core.get_cuda_current_device_id()
    _last_place[0], _last_place[1] = _framework._global_expected_place_, idx
    return idx


def gpu_index(place):
    """The GPU index of a place, or None when it is not a GPU place.  Paddle 2.6's CUDAPlace
    has only get_device_id() (remove that branch when 2.6 support is dropped)."""
    if isinstance(place, _CUDAPlace):
        return place.get_device_id()
    if getattr(place, "is_gpu_place", None) is not None and place.is_gpu_place():
        return place.gpu_device_id()  # a generic core.Place (or any 3.x place)
    return None


def set_device(index: int) -> None:
    paddle.device.set_device(f"gpu:{int(index)}")


def current_stream_handle(device: int) -> int:
    """The raw ``cudaStream_t`` (an int) Paddle launches its own kernels on, for ``device``."""
    return _core._get_current_stream(device).cuda_stream


class StreamHandleCache:
    """Paddle's current raw stream handle per device, read from Paddle once per stream change
    instead of once per launch (``core._get_current_stream`` builds a Python stream object:
    0.77 us on an H100 host, torch's getter 0.07; issue 26).

    Correct only while every change of Paddle's current stream calls :meth:`invalidate`
    *after* it took effect.  :func:`track_stream_changes` arranges that: Paddle's current stream
    is process-wide (the device context's, not per thread), and every Python path that changes
    it calls ``paddle.base.core._set_current_stream`` at call time (``paddle.device.set_stream``,
    ``paddle.device.stream_guard``, ``paddle.device.cuda.stream_guard``, and so the facade's
    ``torch.cuda.set_stream`` / ``torch.cuda.stream``; Paddle 2.6.2 and 3.3.1,
    tests/facade_runtime/test_stream_cache.py reads their source).  A switch made by C++ code
    without that Python call, or by code holding ``libpaddle._set_current_stream`` itself, is
    not seen: for such code, :meth:`invalidate` (``paddle_shims.STREAMS.invalidate()``).

    Thread safety: a read stores its handle only if no invalidation happened since it began
    (the generation check under the lock), so a reader racing a switch never caches the old
    stream after the switch's invalidation.  Bounded: at most ``MAX_DEVICES`` entries."""

    MAX_DEVICES = 64

    def __init__(self, read):
        self._read = read
        self._handles: dict = {}
        self._generation = 0
        self._lock = threading.Lock()

    def get(self, device: int) -> int:
        h = self._handles.get(device)
        if h is not None:
            return h
        generation = self._generation
        h = self._read(device)
        with self._lock:
            if generation == self._generation and len(self._handles) < self.MAX_DEVICES:
                self._handles[device] = h
        return h

    def invalidate(self) -> None:
        with self._lock:
            self._generation += 1
            self._handles = {}  # a new dict: a get() already past its lookup keeps the old one


STREAMS = StreamHandleCache(current_stream_handle)
_stream_setter_saved: list = []  # [(module, original)] while tracking is installed
_stream_setter_lock = threading.Lock()


def track_stream_changes(core=None, cache=None) -> bool:
    """Wrap ``core._set_current_stream`` (Paddle's ``paddle.base.core`` by default) so each
    call invalidates ``cache`` (:data:`STREAMS`) after the switch; idempotent; undone by
    :func:`untrack_stream_changes`.  False where Paddle has no such function (no CUDA): then
    there is no stream to cache either."""
    core = _core if core is None else core
    cache = STREAMS if cache is None else cache
    with _stream_setter_lock:
        if any(m is core for m, _ in _stream_setter_saved):
            return True
        original = getattr(core, "_set_current_stream", None)
        if original is None:
            return False

        def _set_current_stream(*args, **kwargs):
            try:
                return original(*args, **kwargs)
            finally:
                cache.invalidate()  # after the switch (also if it failed half-way)
        _set_current_stream.__wrapped__ = original
        _set_current_stream.__torchproxy__ = True
        cache.invalidate()  # switches made before tracking began
        core._set_current_stream = _set_current_stream
        _stream_setter_saved.append((core, original))
        return True


def untrack_stream_changes() -> None:
    """Restore every ``_set_current_stream`` :func:`track_stream_changes` wrapped; the caches
    are emptied (nothing tracks switches any more)."""
    with _stream_setter_lock:
        while _stream_setter_saved:
            core, original = _stream_setter_saved.pop()
            core._set_current_stream = original
        STREAMS.invalidate()


def cached_stream_handle(device: int) -> int:
    """:func:`current_stream_handle` through :data:`STREAMS` once switches are tracked
    (tracking starts on the first call); Paddle's own read where they cannot be."""
    if _stream_setter_saved or track_stream_changes():
        return STREAMS.get(device)
    return current_stream_handle(device)


def capability(device: int) -> tuple:
    cap = _capability.get(device)
    if cap is None:
        prop = paddle.device.cuda.get_device_properties(device)
        cap = _capability[device] = (prop.major, prop.minor)
    return cap


def synchronize(device: int | None = None) -> None:
    _core._device_synchronize(current_device() if device is None else device)


def empty(numel: int, dtype: str = "uint8", device: int | None = None):
    """Uninitialised 1-D Paddle GPU tensor.  Allocation only: no Paddle kernel runs, so it
    works even where Paddle's build has no kernels for the GPU's architecture."""
    place = paddle.CUDAPlace(current_device() if device is None else device)
    with _framework._dygraph_place_guard(place):
        return paddle.empty([int(numel)], dtype=dtype)


# ================================================================================================
# Behaviour that differs between Paddle versions (feature flags; the facade branches on these)
# ================================================================================================
# Paddle 2.6's as_strided accepts contiguous inputs only: view() of a non-contiguous tensor
# raises there (gaps.toml).  Remove when 2.6 support is dropped.
AS_STRIDED_NEEDS_CONTIGUOUS: bool = IS_PADDLE_2

# ================================================================================================
# Strided views with an exact backward (paddle.as_strided's own backward is unsafe)
# Paddle 2.6.2 and 3.0 .. 3.3.1: as_strided's backward lays the requested strides over a zero
# buffer the size of a CONTIGUOUS input starting at the allocation's first byte.  Over a slice
# (non-contiguous, or at an offset) it drops gradient and writes past that buffer: a (64, 64)
# slice of a (64, 192) tensor viewed as (64, 2, 32) gets 1408 of 4096 gradient ones, then glibc
# aborts ("free(): corrupted unsorted chunks") or the process segfaults (docs/memory-model.md
# has the pure-Paddle reproducer).  Paddle 2.6's as_strided also refuses a non-contiguous input.
# strided_view() builds the aliasing view with as_strided and gives it the backward its caller
# states, in a PyLayer, so Paddle's as_strided backward never runs.  Keep while a supported
# Paddle has that backward (the reproducer must give 4096 under MALLOC_CHECK_=3 to remove it).
# ================================================================================================
def _alias(x, shape, strides, offset):
    src = x
    if AS_STRIDED_NEEDS_CONTIGUOUS and not x.is_contiguous():
        # Paddle 2.6: a one-element index is a contiguous view of the same allocation
        # (storage.py checks that), and as_strided's offset counts from the allocation's start
        src = x[(0,) * len(x.shape)]
    return paddle.as_strided(src, shape, strides, offset)


class _StridedView(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x, shape, strides, offset, grad_of):
        ctx.grad_of = grad_of
        return _alias(x, shape, strides, offset)

    @staticmethod
    def backward(ctx, grad):
        return ctx.grad_of(grad)


def strided_view(x, shape, strides, offset, grad_of):
    """A view of ``x``'s allocation (``offset`` in BYTES from its start; every dim of ``shape``
    non-zero) whose gradient for ``x`` is ``grad_of(grad)``."""
    if x.stop_gradient or not paddle.is_grad_enabled():
        return _alias(x, list(shape), list(strides), offset)
    return _StridedView.apply(x, list(shape), list(strides), offset, grad_of)


# A view with no elements (as_strided to a 0-size shape) aliases nothing, so it is a fresh empty
# tensor; torch still gives its base a gradient (zeros) through it.  _EmptyView keeps the
# autograd edge: its backward is zeros of the base's shape.  On Paddle 2.6 the edge goes to the
# base's nonempty sources instead (see cut_empty_grads below).
class _EmptyView(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x, shape):
        ctx.base_shape = list(x.shape)
        return paddle.zeros(shape, dtype="int64").astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        return paddle.zeros(ctx.base_shape, dtype=grad.dtype)


def empty_view(x, shape):
    """The 0-element view of ``x`` with ``shape``, differentiable to zeros when ``x`` requires
    grad."""
    if x.stop_gradient or not paddle.is_grad_enabled():
        return paddle.zeros(shape, dtype="int64").astype(x.dtype)
    if ZERO_SIZE_GRAD_CRASHES:
        return _empty_from_sources(list(shape), x.dtype, x.place, grad_sources((x,)))
    return _EmptyView.apply(x, list(shape))


# ================================================================================================
# Paddle 2.6: no gradient with 0 elements may reach a Paddle kernel's backward
# Paddle 2.6.2's backward kernels fail on a 0-size incoming gradient: slice_grad and
# reshape_grad segfault (docs/memory-model.md bug 10), multiply_grad raises "Unable to fill
# empty grad inputs due to empty GradSlotMeta"; Python PyLayer nodes take one fine.  So on 2.6
# every facade result with 0 elements that requires grad is swapped for a fresh empty tensor
# whose one autograd edge (a PyLayer) goes straight to the NONEMPTY tensors it was computed
# from (its "sources"), with zeros: the exact gradient, since nothing depends on a tensor with
# no elements.  Paddle's own node of the empty result is dropped unused.  A result with
# elements computed from empty operands (2.6's 0-size recovery: sums, matmuls of empty
# operands, zero_size.py) gets the same zero edges beside its own.  Sources are found through
# operands: a nonempty operand is its own source, an empty one made here carries its sources
# (side table), an empty leaf is its own (Paddle 2.6 then leaves its .grad None: it accumulates
# no 0-size gradient), and an empty tensor with a Paddle node of its own contributes none.
# The facade's op wrappers (_opbase, zero_size.guard) and the 2.6 Tensor.__getitem__ call
# cut_empty_grads.  Remove with Paddle 2.6 support (Paddle 3.x's kernels take 0-size
# gradients: bug 10's reproducer prints 0.0 there).
# ================================================================================================
ZERO_SIZE_GRAD_CRASHES: bool = IS_PADDLE_2


class TensorSideTable:
    """A value kept beside each of some tensors while the tensor lives (Paddle tensors take no
    attributes of ours): id(tensor) -> (weak reference, value).  An id is reused once its
    tensor is gone, so an entry counts only while its weak reference still gives that tensor,
    and the reference's callback drops it."""

    __slots__ = ("_entries",)

    def __init__(self):
        self._entries: dict = {}

    def put(self, t, value) -> None:
        key, entries = id(t), self._entries
        entries[key] = (weakref.ref(t, lambda _r, key=key: entries.pop(key, None)), value)

    def get(self, t, default=None):
        entry = self._entries.get(id(t))
        return entry[1] if entry is not None and entry[0]() is t else default

    def discard(self, t) -> None:
        self._entries.pop(id(t), None)


_EMPTY_SOURCES = TensorSideTable()  # empty tensor made here -> its sources


class _ZeroGradEdge(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, value, spec, *sources):
        ctx.specs = [(list(s.shape), s.dtype) for s in sources]
        # empty leaves: Paddle 2.6 drops their (0-size) gradient, torch stores an empty one
        ctx.empty_leaves = [weakref.ref(s) for s in sources if s.is_leaf and 0 in s.shape]
        ctx.value = isinstance(value, paddle.Tensor)
        ctx.through = ctx.value and not value.stop_gradient
        if ctx.value:
            return value.clone()
        shape, dtype, place = spec
        return kernel_empty(shape, dtype, place)

    @staticmethod
    def backward(ctx, grad):
        for ref in ctx.empty_leaves:
            leaf = ref()
            if leaf is not None:
                _REACHED_EMPTY_LEAVES.put(leaf, True)
        zeros = tuple(paddle.zeros(shape, dtype=dt) for shape, dt in ctx.specs)
        if not ctx.value:
            return zeros if len(zeros) != 1 else zeros[0]
        out = (grad if ctx.through else None,) + zeros
        return out


# Paddle 2.6 reads a 0 in a reshape target as "this dimension of the input" ((2, 0, 3) reshaped
# to (0, 0, 0) gives (2, 0, 3)); 3.x takes it as a size, as torch.  Remove with 2.6 support.
RESHAPE_ZERO_MEANS_INPUT_DIM: bool = IS_PADDLE_2


def reshape_exact(x, shape):
    """``x.reshape(shape)`` with every entry a size (no -1): on Paddle 2.6 a target with a 0
    (``x`` then has no elements, so nothing is aliased) is a new empty tensor of that shape;
    its gradient edge comes from the op wrappers (cut_empty_grads)."""
    if RESHAPE_ZERO_MEANS_INPUT_DIM and 0 in shape:
        out = kernel_empty(list(shape), x.dtype, x.place)
        out.stop_gradient = x.stop_gradient
        return out
    out = x.reshape(shape)
    if out is x:
        return fresh_view(x)
    if not out.stop_gradient and out.data_ptr() == x.data_ptr():
        mark_reshape_view(out, x)
    return out


# Paddle's reshape, squeeze and expand to the shape a tensor already has return that tensor
# itself; torch's view ops always return a new tensor: a view with its own autograd node
# (ViewBackward, not a leaf), so ``p.view(-1).requires_grad_(False)``, a hook, ``.grad`` or an
# in-place view op (``t_``, ``resize_``) on it leaves ``p`` alone.  ``view_shape`` is one kernel
# for that view on 3.x; Paddle 2.6 registers no ``view_shape_grad`` kernel, so a view in the
# autograd graph there is unsqueeze + squeeze (SqueezeGradNode).  Paddle 3.3's view_shape refuses
# a tensor with 0 elements (nothing to alias: unsqueeze + squeeze too).  Remove the 2.6 branch
# with 2.6 support.
VIEW_SHAPE_HAS_GRAD: bool = not IS_PADDLE_2


def fresh_view(x):
    """A new tensor viewing ``x``'s memory with ``x``'s shape and strides (never ``x``)."""
    shape = list(x.shape)  # (x.numel() is a kernel on Paddle 2.6, none for int8)
    if 0 not in shape and (VIEW_SHAPE_HAS_GRAD or x.stop_gradient or not paddle.is_grad_enabled()):
        return mark_reshape_view(_C_ops.view_shape(x, shape), x)
    view = _C_ops.squeeze(_C_ops.unsqueeze(x, [0]), [0])
    return mark_reshape_view(view, x) if 0 not in shape else view


# Views made by Paddle's reshape (the facade's view / reshape / flatten / unflatten / view_as /
# unsqueeze / squeeze of a contiguous tensor) carry a ReshapeGradNode (ViewShapeGradNode for
# fresh_view), which Paddle also gives to COPIES (a reshape of a non-contiguous tensor) and to
# reshapes of the facade's own temporaries.  An in-place write into such a view of a tensor in
# the autograd graph reaches the base's memory but not the base's gradient (Paddle 2.6.2 and
# 3.3.1: ``h.view(6).mul_(3)`` left ``h``'s gradient without the 3, silently).  So the reshapes
# that are views a caller asked for are recorded here with their base (id -> (weak reference,
# base), torch's ``_base``): autograd_view_root counts exactly those as views, and an in-place
# write into one is carried into its base (reshape_rebase: every such view covers its whole
# base in order, so the base's new value is the view's reshaped: torch's CopySlices).
_RESHAPE_VIEW_NODES = frozenset(("ReshapeGradNode", "ViewShapeGradNode"))
_RESHAPE_VIEWS = TensorSideTable()  # view -> its base


def mark_reshape_view(t, base):
    """``t`` (a reshape of ``base`` aliasing it) is a view torch would return."""
    if not t.stop_gradient:
        _RESHAPE_VIEWS.put(t, base)
    return t


def reshape_rebase(t):
    """For ``t``, a reshape view of a reshape view ... of a computed tensor that is no view
    itself: a function that, after an in-place write gave ``t`` the value ``value``, gives
    each base that value (reshaped) and, with it, the write's autograd history.  None for any
    other tensor."""
    chain, base = [], _RESHAPE_VIEWS.get(t)
    while base is not None:
        chain.append(base)
        t, base = base, _RESHAPE_VIEWS.get(base)
    if not chain or t.is_leaf or autograd_view_root(t) is not None:
        return None

    def rebase(value):
        for b in chain:
            paddle.assign(value.reshape(list(b.shape)), output=b)
    return rebase


# leaves with 0 elements a backward reached (Paddle 2.6 keeps their .grad None; torch holds an
# empty gradient)
_REACHED_EMPTY_LEAVES = TensorSideTable()


def empty_leaf_grad(t):
    """Paddle 2.6: the gradient torch holds for ``t``, a leaf with 0 elements that a backward
    reached through the edges above (an empty tensor of its shape), or None.  Remove with 2.6
    support (with ZERO_SIZE_GRAD_CRASHES)."""
    if not _REACHED_EMPTY_LEAVES.get(t, False):
        return None
    return paddle.zeros(list(t.shape), dtype=t.dtype)


def forget_empty_leaf_grad(t) -> None:
    """``t.grad = None`` (zero_grad): the empty gradient above is released too."""
    _REACHED_EMPTY_LEAVES.discard(t)


def _record(t, sources):
    _EMPTY_SOURCES.put(t, sources)
    return t


def _recorded(t):
    return _EMPTY_SOURCES.get(t)


def grad_sources(values, out=None, seen=None):
    """The nonempty tensors requiring grad that the tensors in ``values`` (nested lists,
    tuples, dicts) were computed from, as above."""
    out = [] if out is None else out
    seen = set() if seen is None else seen
    for v in values:
        if isinstance(v, paddle.Tensor):
            if v.stop_gradient:
                continue
            if 0 not in v.shape or v.is_leaf:
                found = (v,)
            else:
                found = _recorded(v) or ()
            for s in found:
                if id(s) not in seen:
                    seen.add(id(s))
                    out.append(s)
        elif isinstance(v, (list, tuple)):
            grad_sources(v, out, seen)
        elif isinstance(v, dict):
            grad_sources(v.values(), out, seen)
    return out


def _empty_from_sources(shape, dtype, place, sources):
    if sources:
        t = _ZeroGradEdge.apply(None, (shape, dtype, place), *sources)
    else:  # nothing reachable safely: requires grad, as torch's, with no edge
        t = kernel_empty(shape, dtype, place)
        t.stop_gradient = False
    return _record(t, tuple(sources))


_DIFFERENTIABLE = frozenset(("float16", "bfloat16", "float32", "float64", "complex64",
                             "complex128"))


def _differentiated(operands, dtype):
    """The operands requiring grad that a result of ``dtype`` must reach: none outside grad
    mode or for a dtype torch does not differentiate (integers, bool)."""
    if not paddle.is_grad_enabled() or str(dtype).rsplit(".", 1)[-1] not in _DIFFERENTIABLE:
        return []
    return [o for o in operands if isinstance(o, paddle.Tensor) and not o.stop_gradient]


def empty_result(shape, dtype, place, operands):
    """The 0-element result of a differentiable op on ``operands`` that a facade op makes
    without a kernel call (Paddle 2.6 kernels reject 0-size inputs): in grad mode, with a
    floating or complex ``dtype``, it requires grad and its gradient edge reaches the operands
    that require grad, so a backward gives their bases zeros, as torch's.  A bare
    ``kernel_empty`` had no edge: ``torch.exp(x[:, :0]).sum().backward()`` raised "element 0
    of tensors does not require grad" (both Paddles; memory-model fuzzer F14)."""
    sources = _differentiated(operands, dtype)
    if not sources:
        return kernel_empty(shape, dtype, place)
    if ZERO_SIZE_GRAD_CRASHES:  # edges to the empty operands' nonempty sources (above)
        return _empty_from_sources(shape, dtype, place, grad_sources(sources))
    return _ZeroGradEdge.apply(None, (shape, dtype, place), *sources)


# Paddle 2.6's CPU casts float32 -> bfloat16 and float32 -> float16 truncate (2380.0 became
# 2368.0 in bfloat16, 242.34375 became 242.25 in float16; torch, and Paddle 3.x, round to nearest
# even).  Measured once per dtype, on first use.  Remove with 2.6 support.
_CAST_PROBES = {"bfloat16": (2380.0, 2368.0), "float16": (242.34375, 242.25)}
_CAST_TRUNCATES: dict = {}


def cast_truncates(name: str) -> bool:
    """Paddle's CPU cast from float32 to ``name`` ("bfloat16", "float16") truncates."""
    if name not in _CAST_TRUNCATES:
        value, truncated = _CAST_PROBES[name]
        with paddle.no_grad():
            probe = paddle.to_tensor([value], dtype="float32", place=paddle.CPUPlace())
            _CAST_TRUNCATES[name] = bool(
                probe.astype(name).astype("float32").numpy()[0] == truncated)
    return _CAST_TRUNCATES[name]


# Paddle 3.3.1's CPU cast float32 -> float16 turns magnitudes of about 1.6e-27 to 6.6e-24 (float32
# exponents -89 to -78) into garbage (1.7e-24 became 3.2e-05; torch: 0.0, and so does 2.6.2):
# every magnitude up to 2**-25 is a signed zero in float16, so those are zeroed before the cast.
# Measured once, on first use; remove when no supported Paddle has it.
_TINY_TO_FLOAT16_GARBLED = None


def tiny_to_float16_garbled() -> bool:
    global _TINY_TO_FLOAT16_GARBLED
    if _TINY_TO_FLOAT16_GARBLED is None:
        with paddle.no_grad():
            probe = paddle.to_tensor([2.0 ** -80], dtype="float32", place=paddle.CPUPlace())
            _TINY_TO_FLOAT16_GARBLED = bool(
                probe.astype("float16").astype("float32").numpy()[0] != 0.0)
    return _TINY_TO_FLOAT16_GARBLED


def _f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


# per half dtype: Veltkamp's split factor (2**(24 - significant bits) + 1); the float32 value
# from which results round to infinity (the midpoint between the largest finite value and
# infinity: a tie, which rounds to the even infinity); below which results are subnormal, and the
# magic addend that rounds those to the subnormal quantum (1.5 * 2**23 quanta)
_HALF_ROUNDING = {
    "bfloat16": (65537.0, _f32(0x7F7F8000), 0.0, 0.0),
    "float16": (8193.0, 65520.0, 2.0 ** -14, 1.5 * 2.0 ** -1),
}
_SCALE_ABOVE = 2.0 ** 100  # the split's product overflows float32 past about 5e33


def paddle_on_cpu(x) -> bool:
    """Whether x is on the CPU, as Paddle's ``x.place`` says (a Place object per read)."""
    return x.place.is_cpu_place()


# Whether x is on the CPU, asked by the CPU-only paths (widen, facade/_accurate_sum.py) on every
# cast and reduction: Paddle's answer until the facade installs its C place reading
# (facade/fast_dtype.install_device_reading: _paddle_tensor.c place_of(), 0.1 us; Paddle's
# x.place costs 0.3 us on a CPU tensor here and more on CUDA tensors: main's partial-axis sum
# measured 2.4 us slower on the H100 lease of round eleven than before the CPU-only paths)
ON_CPU = paddle_on_cpu


class _Widen(paddle.autograd.PyLayer):
    """A half tensor widened to float32/float64 whose backward rounds the gradient to the half
    dtype as torch does (astype_exact): Paddle's own cast backward is its cast of the float32
    gradient, which truncates (2.6) or turns values far below float16's smallest subnormal into
    nonzero ones (3.3.1: tiny_to_float16_garbled), e.g. a cross-entropy gradient of widely
    spread logits behind ``.float()`` (Liger-Kernel's test_amp)."""

    @staticmethod
    def forward(ctx, x, dtype):
        ctx.half = x.dtype
        return x.astype(dtype)

    @staticmethod
    def backward(ctx, g):
        return astype_exact(g, ctx.half)


def widen(x, dtype="float32"):
    """``x.astype(dtype)`` for a half tensor widened to float32/float64: through _Widen where
    it records a graph and Paddle's cast backward would round the gradient otherwise than torch
    (cast_truncates / tiny_to_float16_garbled)."""
    # (the probes are of Paddle's CPU cast kernels; the cheap tests first: a tensor recording no
    # graph, or one on a GPU, pays no dtype name: host cost, bench/facade_ops_host.py)
    if x.stop_gradient or not paddle.is_grad_enabled() or not ON_CPU(x):
        return x.astype(dtype)
    half = str(x.dtype).rsplit(".", 1)[-1]
    if half not in _HALF_ROUNDING or not (
            cast_truncates(half) or half == "float16" and tiny_to_float16_garbled()):
        return x.astype(dtype)
    return _Widen.apply(x, dtype)


def astype_exact(x, dtype):
    """``x.astype(dtype)``, rounding to nearest even where Paddle's cast to a half dtype
    truncates (cast_truncates), and zeroing what float16 cannot hold where Paddle garbles it
    (tiny_to_float16_garbled).  Normal values: Veltkamp's split at the dtype's significant bits
    (``c = k * x; c - (c - x)`` in float32: exact rounding for every float32 and tie); float16's
    subnormal range: the float32 magic-addend rounding to its quantum; then the now exact cast,
    with gradient 1.  Checked against torch on every exponent range, ties and edges
    (tests/facade/test_half_rounding.py)."""
    name = str(dtype).rsplit(".", 1)[-1]
    if name in ("float32", "float64"):
        return widen(x, dtype)  # (a half source: its gradient rounded as torch's)
    if name not in _HALF_ROUNDING or str(x.dtype).rsplit(".", 1)[-1] not in ("float32",
                                                                             "float64"):
        return x.astype(dtype)
    truncates = cast_truncates(name)
    garbles_tiny = name == "float16" and tiny_to_float16_garbled()
    if not truncates and not garbles_tiny:
        return x.astype(dtype)
    f = x.astype("float32")
    if not truncates:
        with paddle.no_grad():
            r = paddle.where(paddle.abs(f) <= 2.0 ** -25, f * 0.0, f)
        return (f + (r - f.detach()) if not f.stop_gradient else r).astype(dtype)
    split, to_inf, subnormal_below, magic = _HALF_ROUNDING[name]
    with paddle.no_grad():
        scale = paddle.where(paddle.abs(f) > _SCALE_ABOVE, paddle.full_like(f, 2.0 ** -32),
                             paddle.ones_like(f))
        fs = f * scale
        c = fs * split
        r = (c - (c - fs)) / scale
        if subnormal_below:  # (zeros keep their sign)
            tiny = (paddle.abs(f) < subnormal_below) & (f != 0)
            r = paddle.where(tiny, (f + magic) - magic, r)
        r = paddle.where(paddle.abs(f) >= to_inf, f * float("inf"), r)
        r = paddle.where(paddle.isnan(f), f, r)
    if not f.stop_gradient:  # gradient 1, as a cast's
        r = f + (r - f.detach())
    return r.astype(dtype)


# Paddle 2.6's remainder (and floor_mod/mod) has no gradient: ``x % y`` of a tensor requiring
# grad comes back with stop_gradient set, so a backward through it silently skips ``x``.
# Remove with Paddle 2.6 support.
REMAINDER_HAS_NO_GRAD: bool = IS_PADDLE_2


def remainder(a, b):
    """torch.remainder of two broadcastable Paddle tensors of one dtype: Paddle's kernel, or
    on Paddle 2.6 for floating operands under autograd ``a - floor(a / b) * b``, whose
    gradients are torch's (1 for ``a``, ``-floor(a / b)`` for ``b``)."""
    if REMAINDER_HAS_NO_GRAD and paddle.is_grad_enabled() and \
            (not a.stop_gradient or not b.stop_gradient) and \
            str(a.dtype).rsplit(".", 1)[-1] in _DIFFERENTIABLE:
        return a - paddle.floor(a / b) * b
    return paddle.remainder(a, b)


def constant_result(value, operands):
    """``value``, a result a facade op computes without its operands' graph (the norm of
    nothing is 0), made a result of a differentiable op on ``operands``: in grad mode, with a
    floating or complex dtype, zero gradient edges reach the operands that require grad."""
    sources = _differentiated(operands, value.dtype)
    if not sources:
        return value
    if ZERO_SIZE_GRAD_CRASHES:
        return _with_sources(value, grad_sources(sources))
    return _ZeroGradEdge.apply(value, None, *sources)


def _cut(r, args, kwargs, empties):
    if isinstance(r, paddle.Tensor):
        # a result that does not require grad stays so (torch's non-differentiable results:
        # detach(), view(dtype), new_zeros...); so does an operand handed back (in place, out=)
        if r.stop_gradient or any(r is a for a in args) or \
                any(r is a for a in kwargs.values()):
            return r
        if 0 in r.shape:
            if _recorded(r) is not None:
                return r  # an empty tensor made here already
            return _empty_from_sources(list(r.shape), r.dtype, r.place,
                                       grad_sources((args, kwargs)))
        return _with_sources(r, grad_sources(empties)) if empties else r
    if isinstance(r, (list, tuple)):
        items = [_cut(i, args, kwargs, empties) for i in r]
        if all(a is b for a, b in zip(items, r)):
            return r
        return type(r)(*items) if hasattr(r, "_fields") else type(r)(items)
    return r


def cut_empty_grads(result, args, kwargs):
    """``result`` (a tensor, or a list/tuple of them) of a facade op on ``args``/``kwargs``,
    with the gradient edges above: each tensor of 0 elements that requires grad swapped for one
    whose gradient goes to the nonempty sources of the operands; a floating tensor with
    elements computed from empty operands that require grad (a sum of nothing) given zero
    edges to their sources.  Call on Paddle 2.6 only (ZERO_SIZE_GRAD_CRASHES)."""
    if isinstance(result, paddle.Tensor):
        if result.stop_gradient:
            return result  # no gradient flows through it: nothing to cut (the common case)
    elif not (isinstance(result, (list, tuple)) and
              any(isinstance(r, paddle.Tensor) for r in result)):
        return result  # (sizes, numbers, bools: the common Tensor methods)
    if not paddle.is_grad_enabled():
        return result
    empties = []
    _empty_operands((args, kwargs), empties)
    return _cut(result, args, kwargs, empties)


def _with_sources(value, sources):
    if not sources:
        return value
    if 0 in value.shape:
        return _empty_from_sources(list(value.shape), value.dtype, value.place, sources)
    return _ZeroGradEdge.apply(value, None, *sources)


def _empty_operands(values, out):
    for v in values:
        if isinstance(v, paddle.Tensor):
            if not v.stop_gradient and 0 in v.shape:
                out.append(v)
        elif isinstance(v, (list, tuple)):
            _empty_operands(v, out)
        elif isinstance(v, dict):
            _empty_operands(v.values(), out)


# paddle.broadcast_tensors' backward segfaults (Paddle 2.6.2 and 3.3.1) when an operand does not
# require grad (``a`` requiring grad, ``b = paddle.to_tensor(ndarray)``, ``((x - y) ** 2).mean()
# .backward()``: docs/memory-model.md); broadcast_to's backward is sound, so each operand is
# broadcast on its own.  Keep while a supported Paddle has that backward.
def broadcast_tensors(tensors):
    """``paddle.broadcast_tensors`` without its backward: torch's shape rule and message."""
    shapes = [list(t.shape) for t in tensors]
    nd = max(len(s) for s in shapes)
    out = [1] * nd
    for k, s in enumerate(shapes):
        s = [1] * (nd - len(s)) + s
        for i, n in enumerate(s):
            if n != out[i] and n != 1 and out[i] != 1:
                raise RuntimeError(f"The size of tensor a ({out[i]}) must match the size of "
                                   f"tensor b ({n}) at non-singleton dimension {i}")
            if out[i] == 1:
                out[i] = n
    return [t if list(t.shape) == out else paddle.broadcast_to(t, out) for t in tensors]


# paddle.as_real's backward calls as_complex on the incoming gradient, which refuses a
# non-contiguous one ("cannot be as_complex directly": a view_as_real followed by movedim or
# expand; Paddle 3.3.1).  as_real_view gives the aliasing as_real its own backward.  Keep while
# a supported Paddle's as_real backward needs a contiguous gradient.
class _AsReal(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x):
        return paddle.as_real(x)

    @staticmethod
    def backward(ctx, grad):
        return paddle.as_complex(grad.clone())  # (contiguous() would change grad itself)


def as_real_view(x):
    if x.stop_gradient or not paddle.is_grad_enabled():
        return paddle.as_real(x)
    return _AsReal.apply(x)


# Paddle 2.6's as_real (and as_complex) of a non-contiguous tensor shares the allocation with
# contiguous strides, reading the wrong elements (docs/memory-model.md bug 8); over a contiguous
# alias of the allocation from its first element they are right.  as_real_strided builds torch's
# view_as_real that way: the allocation as 1-D complex, as_real, then as_strided with torch's
# real strides.  Remove with Paddle 2.6 support.
AS_REAL_NEEDS_CONTIGUOUS: bool = IS_PADDLE_2


def _elements_spanned(x, itemsize):
    """Elements of ``itemsize`` bytes from the allocation's start through x's last element."""
    return byte_offset(x) // itemsize + 1 + sum((n - 1) * st for n, st in zip(x.shape, x.strides))


def _as_real_alias(x, shape, strides, offset):
    itemsize = {paddle.complex64: 8, paddle.complex128: 16}[x.dtype]
    end = _elements_spanned(x, itemsize)
    whole = paddle.as_real(_alias(x, [end], [1], 0))
    return paddle.as_strided(whole, shape, strides, offset * itemsize // 2)


def _as_complex_alias(x, shape, strides, offset):
    # torch's checks passed (even offset, even strides, last dim (2, stride 1)), so the view's
    # last float element has an odd index and the prefix holds whole complex numbers
    itemsize = {paddle.float32: 4, paddle.float64: 8}[x.dtype]
    end = _elements_spanned(x, itemsize)
    whole = paddle.as_complex(_alias(x, [end // 2, 2], [2, 1], 0))
    return paddle.as_strided(whole, shape, strides, offset * itemsize * 2)


class _ComplexViewAlias(paddle.autograd.PyLayer):
    """The gradient edge of as_real_strided/as_complex_strided: forward is ``alias`` (one of the
    two above), backward converts the gradient back to the input's kind (``to_input``)."""
    @staticmethod
    def forward(ctx, x, alias, to_input, shape, strides, offset):
        ctx.to_input = to_input
        return alias(x, shape, strides, offset)

    @staticmethod
    def backward(ctx, grad):
        return ctx.to_input(grad.clone())


def _complex_view(alias, to_input, x, shape, strides, offset):
    if x.stop_gradient or not paddle.is_grad_enabled():
        return alias(x, list(shape), list(strides), offset)
    return _ComplexViewAlias.apply(x, alias, to_input, list(shape), list(strides), offset)


def as_complex_strided(x, shape, strides, offset):
    """torch's view_as_complex of a non-contiguous float32/float64 ``x`` with elements (complex
    strides and storage offset given) as an alias of ``x``'s allocation (Paddle 2.6's
    as_complex of a non-contiguous tensor reads the wrong elements, like its as_real)."""
    return _complex_view(_as_complex_alias, paddle.as_real, x, shape, strides, offset)


def as_real_strided(x, shape, strides, offset):
    """torch's view_as_real of ``x`` (shape, real-element strides and storage offset given)
    as an alias of ``x``'s allocation, for a non-contiguous ``x`` with elements."""
    return _complex_view(_as_real_alias, paddle.as_complex, x, shape, strides, offset)


# Views in the autograd graph.  Paddle's in-place kernels, and the facade's in-place ops, write
# into a view without carrying the write into its base's gradient (torch's CopySlices; Paddle
# 2.6.2 and 3.3.1, docs/memory-model.md bug 5), so the facade refuses in-place methods on views
# that require grad rather than compute a wrong gradient.  ``Tensor.grad_fn`` is public, the
# node names are Paddle's internals: these are the ops whose output aliases their input while
# stride kernels are on (the default on 2.6 and 3.x; read once here).  Re-check the names on
# each Paddle release; remove when Paddle rebases a view's base on an in-place write.
_VIEW_GRAD_NODES = frozenset((
    "SliceGradNode", "StridedSliceGradNode", "TransposeGradNode", "DiagonalGradNode",
    "UnbindGradNode", "SplitGradNode", "SplitWithNumGradNode", "SqueezeGradNode",
    "UnsqueezeGradNode", "AsRealGradNode", "AsComplexGradNode", "AsStridedGradNode",
    "IndexSelectStridedGradNode"))
# the facade's own aliasing PyLayers (Paddle 2.6 appends "_backward" to the node name)
_VIEW_PYLAYER_NODES = tuple("GradNodePyLayer_" + c.__name__
                            for c in (_StridedView, _AsReal, _ComplexViewAlias))
STRIDE_KERNELS: bool = bool(paddle.get_flags(["FLAGS_use_stride_kernel"])
                            .get("FLAGS_use_stride_kernel", False))


def _is_view_node(node) -> bool:
    name = node.name()
    return name in _VIEW_GRAD_NODES or name.startswith(_VIEW_PYLAYER_NODES)


def autograd_view_root(t):
    """None when ``t`` is not an aliasing view in the autograd graph; else "leaf" when the chain
    of views starts at a leaf, "graph" when it starts at a computed tensor."""
    node = t.grad_fn
    if node is None or not STRIDE_KERNELS:
        return None
    if not _is_view_node(node) and not (node.name() in _RESHAPE_VIEW_NODES
                                        and _RESHAPE_VIEWS.get(t) is not None):
        return None
    # (a reshape node further up is taken for a view: at worst a copy's chain is reported as
    # starting at a leaf, and both answers refuse the write)
    while node is not None and (_is_view_node(node) or node.name() in _RESHAPE_VIEW_NODES):
        nxt = node.next_functions
        node = nxt[0] if nxt else None
    return "leaf" if node is not None and node.name() == "GradNodeAccumulation" else "graph"


# Paddle 2.6's Tensor.__getitem__ refuses negative entries of a list or integer tensor index
# ("The value of Input(index) must be no less than 0": nanoGPT's x[:, [-1], :]), and reads a
# slice whose bounds are not clamped as torch/Python do: x[0:-5] of 4 elements gives 3 (torch 0),
# x[-9:-7] gives 1 (torch 0), x[3:1] raises (torch 0 elements).  The facade registers
# Tensor.__getitem__ there only, normalising the index first (ops_clients.py).  Remove when 2.6
# support is dropped.
GETITEM_NEEDS_NORMAL_INDEX: bool = IS_PADDLE_2

# Tensor.view(dtype) (a reinterpreting view) exists from Paddle 3.0.  Remove when 2.6 support
# is dropped.
HAS_VIEW_DTYPE: bool = hasattr(paddle.Tensor, "view") and not IS_PADDLE_2

# Paddle 2.6 returns None for a 0-size tensor's data_ptr() (torch: 0): the facade registers
# Tensor.data_ptr there only.  Remove when 2.6 support is dropped.
DATA_PTR_NONE_FOR_EMPTY: bool = IS_PADDLE_2

# paddle.argsort(stable=) (3.x); 2.6's argsort is stable without the argument.  Remove when
# 2.6 support is dropped.
ARGSORT_HAS_STABLE: bool = "stable" in inspect.signature(paddle.argsort).parameters

# paddle.take_along_axis(broadcast=) (3.x; False gives torch.gather's no-broadcast rule); 2.6
# never broadcasts.  Remove when 2.6 support is dropped.
TAKE_ALONG_AXIS_HAS_BROADCAST: bool = \
    "broadcast" in inspect.signature(paddle.take_along_axis).parameters


def paddle_dtype(name: str):
    """``paddle.<name>`` when this Paddle has that dtype (float8_e4m3fn, uint32... are 3.x
    only), else None."""
    return getattr(paddle, name, None)


def external_stream_factory():
    """``paddle.device.get_stream_from_external`` (Paddle >= 3.0), else None: Paddle 2.6
    cannot wrap an external cudaStream_t.  Remove the fallback when 2.6 support is dropped."""
    return getattr(paddle.device, "get_stream_from_external", None)


# ================================================================================================
# Paddle 2.6: kernels that refuse tensors with a 0-size dimension
# Every 0-size tensor of Paddle 2.6 is "uninitialized" (no allocation, whichever way it was made:
# to_tensor of an empty array, paddle.empty/zeros, a kernel's output), and these 2.6 kernels
# raise on one: broadcasting elementwise ops ("The meta data must be valid when call the
# mutable data function"), clone ("only support initialized tensor in clone"), matmul ("The
# Input(X) dims size must not be equal 0"), reductions and any()/all() ("Tensor need be reduced
# must not empty"), static-graph style ops ("The Input variable 'x' has not been initialized"),
# expand to a shape with a 0 ("... for expand_v2 op must be greater than 0"), tile, stack, QR,
# eigvalsh, svdvals... (the list below).
# Paddle 3.x computes all of these.  The facade's op wrapper (facade/zero_size.py) recognises
# these failures and computes torch's result another way.  Remove when Paddle < 3 is no longer
# supported (2.6 support dropped): then ZERO_SIZE_KERNELS_FAIL and every use of it go.
# ================================================================================================
ZERO_SIZE_KERNELS_FAIL: bool = IS_PADDLE_2
_ZERO_SIZE_MESSAGES = (
    "The meta data must be valid when call the mutable data function",
    "only support initialized tensor in clone",
    "dims size must not be equal 0",
    "Tensor need be reduced must not empty",
    "has not been initialized",
    "The input X should not be empty",  # elementwise kernels (kron's products)
    "Tensor not initialized yet when DenseTensor::place() is called",  # (gather: diag_embed)
    # expand/broadcast_to a 0-size shape
    "for expand_v2 op must be greater than 0",
    "for non-existing dimensions must be positive for expand_v2 op",
    # tile/repeat, stack, concat of what is left after dropping empty tensors, reshape with -1
    # (ambiguous for 0 elements), shape attributes, linear algebra kernels
    "for tile op must be greater than 0",
    "The dims of Input(X) should be greater than 0",
    "must be list of Tensors, but got empty list",
    "because the unspecified dimension",
    "The 'shape' in ReshapeOp is invalid",
    "is expected to be no less than 0",
    "The expanded size cannot be zero",
    "Tensor holds no memory",
    "The input of QR is empty",
    "The col of Input(X) should be greater than 0",
)


def is_zero_size_failure(exc: BaseException) -> bool:
    """``exc`` is one of Paddle 2.6's refusals of a 0-size operand (always False on 3.x)."""
    if not ZERO_SIZE_KERNELS_FAIL or not isinstance(exc, (ValueError, RuntimeError)):
        return False
    msg = str(exc)
    return any(m in msg for m in _ZERO_SIZE_MESSAGES)


# -- higher-order gradients Paddle lacks -------------------------------------------------------
# paddle.grad(create_graph=True) through an op whose grad op has no grad op of its own (softmax,
# log_softmax, layer_norm, gelu, elementwise_pow, cumsum, prod, erf... on 2.6.2 and 3.3.1) fails
# with "(Unavailable) The Op softmax_grad doesn't have any grad op" (2.6: "any gradop").  The
# facade names the op in a NotProvidedError.  Goes when Paddle registers double grads for all.
_NO_DOUBLE_GRAD = re.compile(r"The Op (\w+?)(?:_grad)? doesn't have any ?grad ?op"
                             # 2.6.2's cos double grad fails on an absent optional output
                             r"|Output \w+ in operator (\w+)DoubleGrad")


# Paddle 2.6.2's divide_double_grad segfaults (DivideDoubleGradNode reads an absent optional)
# when the second backward runs through `c / f(x)` whose numerator records no gradient; the
# facade's div then records `c * f(x) ** -1.0` (scalar pow: a double gradient that works) while
# a graph is recorded.  Remove when Paddle 2.6 support is dropped (3.x is fine).
DIVIDE_DOUBLE_GRAD_CRASHES: bool = IS_PADDLE_2


def missing_double_grad(exc: BaseException):
    """The Paddle op (``softmax``) whose higher-order gradient ``exc`` says is missing, or
    None when ``exc`` is another error."""
    if not isinstance(exc, RuntimeError):
        return None
    m = _NO_DOUBLE_GRAD.search(str(exc))
    return None if m is None else m.group(1) or m.group(2).lower()


# -- CPU kernels registered without some dtypes ---------------------------------------------------
# Paddle's CPU argsort has no int8 kernel (2.6: no int8/int16/uint8), its index_select none for int8/int16/uint8/float16,
# its abs none for int8/int16/uint8 (3.3.1 and 2.6.2).  The op runs on a wider dtype that holds every value exactly and the caller
# casts the result back.  An entry goes when every supported Paddle registers the kernel.
CPU_KERNEL_WIDENING = {
    # (2.6's argsort has int32/int64/float32/float64 only)
    "argsort": {"int8": "int32", "int16": "int32", "uint8": "int32"} if IS_PADDLE_2 else
               {"int8": "int16"},
    "index_select": {"int8": "int32", "int16": "int32", "uint8": "int32", "float16": "float32"},
    "abs": {"int8": "int32", "int16": "int32", "uint8": "int32"},  # (int8 -128 wraps back)
    "maximum": {"int8": "int32", "int16": "int32", "uint8": "int32"},  # (relu of them)
}


def widen_for_kernel(op: str, x):
    """``x`` as the dtype ``op``'s CPU kernel exists for (``x`` itself when it has one)."""
    wide = CPU_KERNEL_WIDENING[op].get(str(x.dtype).rsplit(".", 1)[-1].lower()
                                        .replace("fp16", "float16"))
    if wide is None or not x.place.is_cpu_place():
        return x
    return x.astype(wide)
