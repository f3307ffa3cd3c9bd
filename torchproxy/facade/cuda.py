"""``torch.cuda`` on Paddle's CUDA runtime: devices, properties, streams, events, memory.

Paddle has ONE current device (its "expected place", set by ``paddle.set_device``) that decides
both where new tensors go and which GPU runs kernels; torch keeps the allocation default (CPU)
apart from the current CUDA device.  ``torch.cuda.set_device(i)`` here therefore sets Paddle's
place to ``gpu:i`` (noted in the coverage report).

Streams and events are Paddle's own (``paddle.device.Stream`` / ``core.CUDAEvent``), so a
stream set through ``torch.cuda.stream(s)`` is the stream Paddle's kernels run on, and
``current_stream().cuda_stream`` is the raw ``cudaStream_t`` of Paddle's current stream: the
handle Triton and TileLang pass to their launches.

Without CUDA the calls fail the way torch's CPU build fails (``AssertionError: Torch not
compiled with CUDA enabled``, ``RuntimeError`` for Stream/Event), and the calls torch's CPU build
answers (``is_available`` False, ``device_count`` 0, memory counters 0, ``empty_cache``) answer
the same.  Every Paddle call below exists with the same signature on Paddle 2.6.2 and 3.x.
"""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: cuda
    torch.cuda: CUDAGraph Event ExternalStream OutOfMemoryError Stream StreamContext
        _CudaDeviceProperties _DeviceGuard _lazy_init current_device current_stream default_stream
        device device_count device_of empty_cache get_arch_list get_device_capability
        get_device_name get_device_properties graph init is_available is_bf16_supported
        is_current_stream_capturing is_initialized manual_seed manual_seed_all max_memory_allocated
        max_memory_reserved memory_allocated memory_reserved nvtx reset_max_memory_allocated
        reset_peak_memory_stats set_device set_stream stream synchronize
    torch.cuda.nvtx: range range_pop range_push
""")

import paddle

from ..errors import NotProvidedError
from ..paddle_shims import (DriverEvent, compiled_cuda_archs, cuda_current_device_id,
                            cuda_device_count, cuda_device_properties, cuda_empty_cache,
                            cuda_event, cuda_event_can_time, default_cuda_generator,
                            device_synchronize, expected_place, external_stream_factory,
                            is_cuda_graph_capturing, nvtx, reset_peak_memory,
                            set_cuda_current_device_id, set_expected_place)
from ..paddle_shims import current_stream as current_stream_object
from .registry import module, TABLE, torch_function, type_, value


module("torch.cuda")

_NOT_COMPILED = "Torch not compiled with CUDA enabled"  # torch's own message, kept for greps


def _compiled() -> bool:
    return paddle.is_compiled_with_cuda()


@torch_function("torch.cuda.device_count")
def device_count() -> int:
    return cuda_device_count() if _compiled() else 0


@torch_function("torch.cuda.is_available")
def is_available() -> bool:
    return device_count() > 0


@torch_function("torch.cuda.is_initialized")
def is_initialized() -> bool:
    # Paddle initialises CUDA when it is imported: initialised exactly when a GPU is usable
    return is_available()


_ready = False  # set once a GPU was found: Triton asks for the stream on every launch


@torch_function("torch.cuda._lazy_init")
def _lazy_init() -> None:
    """torch's entry check for every call that needs a GPU."""
    global _ready
    if _ready:
        return
    if not _compiled():
        raise AssertionError(_NOT_COMPILED)
    if device_count() == 0:
        raise RuntimeError("No CUDA GPUs are available")
    _ready = True


@torch_function("torch.cuda.init")
def init() -> None:
    _lazy_init()


@torch_function("torch.cuda.current_device")
def current_device() -> int:
    _lazy_init()
    place = expected_place()
    if isinstance(place, paddle.CUDAPlace):
        return place.get_device_id()
    # Paddle's place is the CPU: the CUDA runtime's current device is the answer
    return cuda_current_device_id()


def _index(device, optional: bool = False) -> int:
    """torch.cuda._utils._get_device_index: int / 'cuda:i' / torch.device / Paddle place -> int."""
    if device is None:
        if optional:
            return current_device()
        raise ValueError("Expected a torch.device with a specified index or an integer, but got:None")
    if isinstance(device, bool):
        raise ValueError(f"Expected a cuda device, but got: {device}")
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        kind, _, idx = device.partition(":")
        if kind not in ("cuda", "gpu"):
            raise ValueError(f"Expected a cuda device, but got: {device}")
        if idx:
            return int(idx)
        if optional:
            return current_device()
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
    if isinstance(device, paddle.CUDAPlace):
        return device.get_device_id()
    if isinstance(device, paddle.CPUPlace):
        raise ValueError("Expected a cuda device, but got: cpu")
    kind = getattr(device, "type", None)  # torch.device of the facade (or any duck)
    if isinstance(kind, str):
        if kind != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        if device.index is not None:
            return device.index
        if optional:
            return current_device()
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
    if hasattr(device, "is_gpu_place") and hasattr(device, "gpu_device_id"):
        # a tensor's place (core.Place, on 2.6 and 3.x; it has no get_device_id)
        if not device.is_gpu_place():
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return device.gpu_device_id()
    if hasattr(device, "get_device_id"):  # other Paddle places
        return device.get_device_id()
    raise ValueError(f"Expected a cuda device, but got: {device!r}")


def _switch_to(idx: int) -> None:
    """Make GPU ``idx`` current: the CUDA runtime's device (cudaSetDevice, what torch's
    set_device does, and what Triton's launches run on) and Paddle's place."""
    set_cuda_current_device_id(idx)  # GPU builds (a no-op on others)
    paddle.set_device(f"gpu:{idx}")


@torch_function("torch.cuda.set_device",
                note="sets the CUDA runtime's device and Paddle's current place to gpu:i (Paddle "
                     "has "
                     "one current device for allocation and kernels; torch keeps new tensors on "
                     "the CPU)")
def set_device(device) -> None:
    idx = _index(device)
    if idx < 0:  # torch: a negative index is a no-op
        return
    _lazy_init()
    _switch_to(idx)


class _DeviceGuard:
    """``with torch.cuda.device(i):`` -- the current device is ``i`` inside, restored after."""

    def __init__(self, device):
        self.idx = -1 if device is None else _index(device, optional=True)
        self.prev_place = None

    def __enter__(self):  # returns None, as torch's
        if self.idx < 0:
            return
        if not _compiled():
            raise RuntimeError("PyTorch was compiled without CUDA support")
        _lazy_init()
        self.prev_place = expected_place()
        self.prev_runtime = cuda_current_device_id()
        _switch_to(self.idx)

    def __exit__(self, *exc):
        if self.prev_place is not None:
            # restore the exact place object (CPU or another GPU), as torch restores the index
            set_cuda_current_device_id(self.prev_runtime)
            set_expected_place(self.prev_place)
            self.prev_place = None
        return False


type_("torch.cuda.device", _DeviceGuard,
      note="a context manager; None or a negative index is a no-op, as in torch")
type_("torch.cuda._DeviceGuard", _DeviceGuard)


class device_of(_DeviceGuard):
    """``with torch.cuda.device_of(tensor):`` -- the tensor's device (no-op for CPU tensors)."""

    def __init__(self, obj):
        place = obj.place
        idx = place.gpu_device_id() if place.is_gpu_place() else -1
        super().__init__(idx)


type_("torch.cuda.device_of", device_of)


# -- device properties --------------------------------------------------------------------------
class _CudaDeviceProperties:
    """torch.cuda._CudaDeviceProperties over Paddle's properties object.

    Paddle reports name, major, minor, total_memory, multi_processor_count (and, depending on
    the version, a few more); any field Paddle does not report raises NotProvidedError naming it
    rather than a made-up value (so ``getattr(p, "gcnArchName", None)`` answers None)."""

    def __init__(self, paddle_props):
        object.__setattr__(self, "_p", paddle_props)

    def __getattr__(self, attr):
        p = object.__getattribute__(self, "_p")
        if not attr.startswith("_") and hasattr(p, attr):
            return getattr(p, attr)
        from .. import tracing
        tracing.record_missing(f"torch.cuda._CudaDeviceProperties.{attr}")
        raise NotProvidedError(f"torch.cuda._CudaDeviceProperties.{attr}")

    def __repr__(self):
        p = self._p
        return (f"_CudaDeviceProperties(name='{p.name}', major={p.major}, minor={p.minor}, "
                f"total_memory={p.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={p.multi_processor_count})")


type_("torch.cuda._CudaDeviceProperties", _CudaDeviceProperties)


@torch_function("torch.cuda.get_device_properties",
                note="fields Paddle reports: name, major, minor, total_memory, "
                     "multi_processor_count; "
                     "others raise NotProvidedError")
def get_device_properties(device=None) -> _CudaDeviceProperties:
    _lazy_init()
    idx = _index(device, optional=True)
    if not 0 <= idx < device_count():
        raise AssertionError("Invalid device id")
    return _CudaDeviceProperties(cuda_device_properties(idx))


@torch_function("torch.cuda.get_device_capability")
def get_device_capability(device=None) -> tuple:
    p = get_device_properties(device)
    return (p.major, p.minor)


@torch_function("torch.cuda.get_device_name")
def get_device_name(device=None) -> str:
    return get_device_properties(device).name


@torch_function("torch.cuda.is_bf16_supported")
def is_bf16_supported(including_emulation: bool = True) -> bool:
    if not is_available():
        return False
    return get_device_capability()[0] >= 8 or bool(including_emulation)


# -- streams ------------------------------------------------------------------------------------
def _torch_device(idx: int):
    """torch.device('cuda', idx) of the facade (registered by the device area)."""
    entry = TABLE.get("torch.device")
    if entry is None:
        raise NotProvidedError("torch.device")
    return entry.impl("cuda", idx)


def _wrap_stream_base(base):
    s = Stream.__new__(Stream)
    s._paddle = paddle.device.Stream(stream_base=base)
    return s


class Stream:
    """torch.cuda.Stream over a Paddle stream (``paddle.device.Stream``).

    torch priorities: 0 = default, negative = higher; Paddle's: 2 = low (default), 1 = high."""

    def __new__(cls, device=None, priority: int = 0, **kwargs):
        if not _compiled():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        return super().__new__(cls)

    def __init__(self, device=None, priority: int = 0, **kwargs):
        if kwargs:
            raise TypeError(f"torch.cuda.Stream() got unexpected arguments {sorted(kwargs)}")
        _lazy_init()
        idx = _index(device, optional=True)
        self._paddle = paddle.device.Stream(device=paddle.CUDAPlace(idx),
                                            priority=1 if priority < 0 else 2)

    @property
    def cuda_stream(self) -> int:
        """The raw cudaStream_t as an int (0 = the legacy default stream)."""
        return int(self._paddle.stream_base.cuda_stream)

    @property
    def device_index(self) -> int:
        return self._paddle.stream_base.place.get_device_id()

    @property
    def device(self):
        return _torch_device(self.device_index)

    @property
    def paddle_stream(self):
        """The Paddle stream underneath (for code that mixes both APIs)."""
        return self._paddle

    def query(self) -> bool:
        return self._paddle.query()

    def synchronize(self) -> None:
        self._paddle.synchronize()

    def wait_event(self, event) -> None:
        if event._driver is not None:
            event._driver.wait_by(self.cuda_stream)
        else:
            self._paddle.stream_base.wait_event(event._base)

    def wait_stream(self, stream) -> None:
        self._paddle.stream_base.wait_stream(stream._paddle.stream_base)

    def record_event(self, event=None):
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and self.cuda_stream == other.cuda_stream \
            and self.device_index == other.device_index

    def __hash__(self):
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self):
        return f"<torch.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"


type_("torch.cuda.Stream", Stream)


# added for FlashInfer: upstream 0.7 annotates `external_stream: torch.cuda.ExternalStream` in
# class bodies at import.  Paddle 3.3.1 wraps a foreign cudaStream_t
# (paddle.device.get_stream_from_external); older Paddle cannot, and constructing one there
# raises, naming what is missing.
class ExternalStream(Stream):
    """torch.cuda.ExternalStream: a stream allocated elsewhere (not owned, not destroyed)."""

    def __new__(cls, stream_ptr, device=None, **kwargs):
        return object.__new__(cls)

    def __init__(self, stream_ptr, device=None, **kwargs):
        if kwargs:
            raise TypeError(f"torch.cuda.ExternalStream() got unexpected arguments {sorted(kwargs)}")
        wrap = external_stream_factory()
        if wrap is None:
            raise NotImplementedError(
                f"torch.cuda.ExternalStream: Paddle {paddle.__version__} cannot wrap an external "
                "cudaStream_t (paddle.device.get_stream_from_external: in 3.3.1, not in 2.6.2)")
        _lazy_init()
        self._paddle = wrap(int(stream_ptr), paddle.CUDAPlace(_index(device, optional=True)))


type_("torch.cuda.ExternalStream", ExternalStream,
      note="needs paddle.device.get_stream_from_external (3.3.1 has it, 2.6.2 not: there constructing raises)")


@torch_function("torch.cuda.current_stream", note="Paddle's current stream on that device")
def current_stream(device=None) -> Stream:
    _lazy_init()
    return _wrap_stream_base(current_stream_object(_index(device, optional=True)))


@torch_function("torch.cuda.default_stream",
                note="Paddle has no separate default stream: this is the stream of Paddle's device "
                     "context as first seen by torchproxy (not the legacy null stream 0)")
def default_stream(device=None) -> Stream:
    _lazy_init()
    idx = _index(device, optional=True)
    # Paddle's device context owns the stream kernels use unless one is set; it is what
    # _get_current_stream returns when nothing was set.  Paddle keeps no record of it once a
    # stream is set, so we remember the one seen before our first set_stream/stream() per device.
    base = _DEFAULT.get(idx)
    if base is None:
        base = _DEFAULT.setdefault(idx, current_stream_object(idx))
    return _wrap_stream_base(base)


_DEFAULT: dict = {}


@torch_function("torch.cuda.set_stream")
def set_stream(stream) -> None:
    if stream is None:
        return
    default_stream(stream.device_index)  # remember the context stream before replacing it
    paddle.device.set_stream(stream._paddle)


class StreamContext:
    """``with torch.cuda.stream(s):`` -- ``s`` is the current stream inside (None: no-op)."""

    def __init__(self, stream):
        self.stream = stream
        self._guard = None

    def __enter__(self):
        if self.stream is None:
            return self.stream
        default_stream(self.stream.device_index)
        self._guard = paddle.device.stream_guard(self.stream._paddle)
        self._guard.__enter__()
        return self.stream

    def __exit__(self, *exc):
        if self._guard is not None:
            self._guard.__exit__(*exc)
            self._guard = None
        return False


type_("torch.cuda.StreamContext", StreamContext)


@torch_function("torch.cuda.stream")
def stream(stream) -> StreamContext:
    return StreamContext(stream)


@torch_function("torch.cuda.synchronize")
def synchronize(device=None) -> None:
    _lazy_init()
    device_synchronize(_index(device, optional=True))


# -- events -------------------------------------------------------------------------------------
class Event:
    """torch.cuda.Event over Paddle's ``core.CUDAEvent`` (same constructor on 2.6 and 3.x).

    Paddle 2.6's event cannot time (no ``elapsed_time``): a timing event there is a driver-API
    event (integrations/cuda_events.py) recorded on the same raw stream handle."""

    def __new__(cls, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False):
        if not _compiled():
            raise RuntimeError("Tried to instantiate dummy base class Event")
        return super().__new__(cls)

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False):
        _lazy_init()
        self.enable_timing = bool(enable_timing)
        if enable_timing and not cuda_event_can_time():
            self._base = None
            self._driver = DriverEvent(current_device(), True, bool(blocking))
        else:
            self._base = cuda_event(enable_timing, blocking, interprocess)
            self._driver = None

    def record(self, stream=None) -> None:
        if stream is None:
            stream = current_stream()
        if self._driver is not None:
            self._driver.record(stream.cuda_stream)
        else:
            self._base.record(stream._paddle.stream_base)

    def wait(self, stream=None) -> None:
        if stream is None:
            stream = current_stream()
        stream.wait_event(self)

    def query(self) -> bool:
        return self._driver.query() if self._driver is not None else self._base.query()

    def synchronize(self) -> None:
        if self._driver is not None:
            self._driver.synchronize()
        else:
            self._base.synchronize()

    def elapsed_time(self, end_event) -> float:
        """Milliseconds between this event and ``end_event`` (both recorded, timing enabled)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._driver is not None:
            return self._driver.elapsed_ms(end_event._driver)
        return float(self._base.elapsed_time(end_event._base))

    def __repr__(self):
        return f"<torch.cuda.Event enable_timing={self.enable_timing}>"


type_("torch.cuda.Event", Event)


# -- memory -------------------------------------------------------------------------------------
def _memory_query(paddle_fn_name: str, device):
    if not _compiled():
        return 0  # torch's CPU build answers 0
    idx = _index(device, optional=True)
    return int(getattr(paddle.device.cuda, paddle_fn_name)(idx))


@torch_function("torch.cuda.memory_allocated", note="Paddle allocator's counter")
def memory_allocated(device=None) -> int:
    return _memory_query("memory_allocated", device)


@torch_function("torch.cuda.max_memory_allocated", note="Paddle allocator's peak counter")
def max_memory_allocated(device=None) -> int:
    return _memory_query("max_memory_allocated", device)


@torch_function("torch.cuda.memory_reserved")
def memory_reserved(device=None) -> int:
    return _memory_query("memory_reserved", device)


@torch_function("torch.cuda.max_memory_reserved")
def max_memory_reserved(device=None) -> int:
    return _memory_query("max_memory_reserved", device)


@torch_function("torch.cuda.reset_peak_memory_stats",
                note="needs Paddle >= 3.0 (Paddle 2.6 cannot reset its peak counters)")
def reset_peak_memory_stats(device=None) -> None:
    _lazy_init()
    idx = _index(device, optional=True)
    if not reset_peak_memory(idx):
        raise RuntimeError(
            f"torch.cuda.reset_peak_memory_stats needs Paddle >= 3.0; Paddle {paddle.__version__} "
            "cannot reset its peak memory counters")


@torch_function("torch.cuda.reset_max_memory_allocated")
def reset_max_memory_allocated(device=None) -> None:
    reset_peak_memory_stats(device)


@torch_function("torch.cuda.empty_cache")
def empty_cache() -> None:
    if _compiled():
        cuda_empty_cache()


@torch_function("torch.cuda.get_arch_list",
                note="the archs Paddle was compiled for (paddle.version.compiled_cuda_archs, 3.x); "
                     "Paddle 2.6 cannot tell (raises)")
def get_arch_list() -> list:
    if not is_available():
        return []  # torch's answer without CUDA
    archs = compiled_cuda_archs()
    if not archs:  # 2.6 has no record; a build that recorded none cannot tell either
        raise NotImplementedError(f"torch.cuda.get_arch_list: Paddle {paddle.__version__} does "
                                  "not record the CUDA archs it was compiled for")
    return [f"sm_{str(a).removeprefix('sm_')}" for a in archs]


# -- RNG, graphs --------------------------------------------------------------------------------
@torch_function("torch.cuda.manual_seed")
def manual_seed(seed: int) -> None:
    if is_available():
        default_cuda_generator(current_device()).manual_seed(int(seed))


@torch_function("torch.cuda.manual_seed_all")
def manual_seed_all(seed: int) -> None:
    for i in range(device_count()):
        default_cuda_generator(i).manual_seed(int(seed))


@torch_function("torch.cuda.is_current_stream_capturing",
                note="Paddle's CUDA-graph capture flag (process-wide, not per stream)")
def is_current_stream_capturing() -> bool:
    if not _compiled():
        raise RuntimeError("Tried to instantiate dummy base class _cuda_isCurrentStreamCapturing")
    return is_cuda_graph_capturing()


# -- torch.cuda.nvtx on Paddle's NVTX bindings (GPU builds) ------------------------------------
module("torch.cuda.nvtx")


def _nvtx(name: str):
    fn = nvtx(name)
    if fn is None:  # CPU builds of Paddle, like torch's CPU build, have no NVTX
        raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")
    return fn


@torch_function("torch.cuda.nvtx.range_push", note="Paddle's core.nvprof_nvtx_push")
def nvtx_range_push(msg: str):
    _nvtx("nvprof_nvtx_push")(msg)


@torch_function("torch.cuda.nvtx.range_pop")
def nvtx_range_pop():
    _nvtx("nvprof_nvtx_pop")()


class _NvtxRange:
    """``with torch.cuda.nvtx.range("name"):`` (also a decorator, as torch's)."""

    def __init__(self, msg, *args, **kwargs):
        self.msg = msg.format(*args, **kwargs) if (args or kwargs) else msg

    def __enter__(self):
        nvtx_range_push(self.msg)

    def __exit__(self, *exc):
        nvtx_range_pop()
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with _NvtxRange(self.msg):
                return fn(*a, **k)
        return wrapper


type_("torch.cuda.nvtx.range", _NvtxRange)


# Paddle reports every failed allocation (GPU "Out of memory error", CPU alike) as its
# ResourceExhausted error, which reaches Python as MemoryError: `except
# torch.cuda.OutOfMemoryError` must catch exactly that.
value("torch.cuda.OutOfMemoryError", MemoryError,
      note="= MemoryError: what Paddle raises for a failed allocation (GPU or CPU)")


# -- CUDA graphs on Paddle's (paddle.device.cuda.graphs.CUDAGraph, 2.6 and 3.x) ---------------
# Paddle's capture modes have torch's names ("global", "thread_local", "relaxed").  It captures
# the work issued on Paddle's current stream of the device -- the stream torch.cuda.graph()
# makes current -- and keeps the captured allocations in the graph's own memory pool.
class CUDAGraph:
    def __new__(cls, *args, **kwargs):
        if not _compiled():
            raise RuntimeError("Tried to instantiate dummy base class CUDAGraph")
        return super().__new__(cls)

    def __init__(self, keep_graph: bool = False):
        _lazy_init()
        self._graph = None

    def capture_begin(self, pool=None, capture_error_mode: str = "global"):
        if pool is not None:
            raise NotImplementedError("torchproxy: CUDAGraph.capture_begin(pool=) (memory pools "
                                      "shared between graphs) is not provided")
        from paddle.device.cuda.graphs import CUDAGraph as PaddleGraph
        self._graph = PaddleGraph(place=paddle.CUDAPlace(current_device()),
                                  mode=capture_error_mode)
        self._graph.capture_begin()

    def capture_end(self):
        self._graph.capture_end()

    def replay(self):
        if self._graph is None:
            raise RuntimeError("CUDAGraph.replay() called before a capture")
        self._graph.replay()

    def reset(self):
        if self._graph is not None:
            self._graph.reset()
            self._graph = None


type_("torch.cuda.CUDAGraph", CUDAGraph,
      note="on Paddle's CUDA graphs; capture_begin(pool=) is not provided")


class graph:
    """``with torch.cuda.graph(g):`` -- capture on a side stream (torch's default), as torch:
    synchronize, free cached memory, make the capture stream current, capture."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode: str = "global"):
        self.cuda_graph = cuda_graph
        self.pool = pool
        self.capture_error_mode = capture_error_mode
        self.capture_stream = stream if stream is not None else Stream()
        self._stream_ctx = StreamContext(self.capture_stream)

    def __enter__(self):
        synchronize()
        import gc
        gc.collect()
        empty_cache()
        self._stream_ctx.__enter__()
        self.cuda_graph.capture_begin(self.pool, capture_error_mode=self.capture_error_mode)

    def __exit__(self, *exc):
        try:
            self.cuda_graph.capture_end()
        finally:
            self._stream_ctx.__exit__(*exc)
        return False


type_("torch.cuda.graph", graph, note="capture on a side stream; pool= is not provided")
