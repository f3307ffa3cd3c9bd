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
(``TVMFFIEnvGetStream``) see Paddle's current stream inside :func:`paddle_stream`, and during
:func:`call_on_paddle_stream` (the per-launch path TileLang's wrapper and
:func:`on_paddle_stream` use).  tvm-ffi sets that stream by itself only for torch tensors (its
DLPack exchange API asks torch for its current stream); a Paddle tensor reaches it through
``__dlpack__``, and the ``__tvm_ffi_env_stream__`` protocol tvm-ffi reads for such objects is
only honoured when an earlier argument already set a device (tvm-ffi 0.1.12 and 0.1.14.post1,
``TVMFFIPyArgSetterDLPack_``: ``ctx.device_type != -1``), i.e. never for a call whose tensors
are all Paddle's.  Without a wrapper the kernel runs on stream 0 while Paddle's work is queued
on its current stream: no ordering between them (issue 26, FlashInfer).
"""
from __future__ import annotations

import contextlib

import paddle

from ..paddle_shims import IS_PADDLE_2
# Paddle's current stream, read from Paddle once per stream switch (paddle_shims.STREAMS:
# every switch through paddle.base.core._set_current_stream invalidates it)
from ..paddle_shims import cached_stream_handle as _stream_handle
from ..paddle_shims import STREAMS as _STREAMS
from ..paddle_shims import dlpack_capsule as _dlpack_capsule

_PT = paddle.Tensor
_KDL_CUDA = 2  # DLDeviceType kDLCUDA: tvm-ffi's environment streams are per (type, index)


def _tvm_ffi():
    import tvm_ffi
    return tvm_ffi


_EXCHANGE: list = [None]  # exchange_api_sets_stream()'s answer, once known


def install_exchange_api() -> bool:
    """Put torchproxy's DLPack C exchange table on ``paddle.Tensor`` where Paddle has none of
    its own (2.6); idempotent.  True when the table on ``paddle.Tensor`` is torchproxy's.  It
    stays for the process (tvm-ffi keeps the table's address per type once it saw one, and the
    table's answers do not depend on the facade being enabled)."""
    try:
        from .. import _cdlpack
    except ImportError:  # not built (optional extension): the Python paths below
        return False
    have = _PT.__dict__.get("__dlpack_c_exchange_api__")
    if have is not None:
        return getattr(_PT, "__torchproxy_dlpack_exchange__", False)
    # the cache's handles are read in C first (no Python frame between stream switches)
    _cdlpack.set_stream_reader(_stream_handle, _STREAMS)
    install_fast_export()
    _PT.__dlpack_c_exchange_api__ = _cdlpack.capsule()
    _PT.__torchproxy_dlpack_exchange__ = True
    return True


# -- the table's export through Paddle's C++ tensor API (issue 26, eighth round) -----------------
_PROBE_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                 "float32", "float64", "complex64", "complex128")


def _views(t):
    """The views the export is checked on: whole, rows, block, transpose, column, element, 3-d."""
    return (t, t[1:], t[1:3, 1:3], t.T, t[:, 1], t[2], t.reshape([2, 2, 3]).transpose([2, 0, 1]))


def _agree(a, b) -> bool:
    """Two describe() tuples a consumer reads the same: address, device, dtype, shape, and the
    strides of every dim of size > 1 (None: compact)."""
    (da, ta, ia, dta, sa, sta), (db, tb, ib, dtb, sb, stb) = a, b
    if (da, ta, ia, dta, sa) != (db, tb, ib, dtb, sb):
        return False

    def strides(shape, st):
        if st is None:
            st, acc = [], 1
            for n in reversed(shape):
                st.insert(0, acc)
                acc *= n
        return [s for s, n in zip(st, shape) if n > 1]
    return strides(sa, sta) == strides(sb, stb)


def install_fast_export() -> bool:
    """Let torchproxy._cdlpack export Paddle tensors through torchproxy._cptensor (Paddle's
    exported C++ tensor API: _paddle_tensor.c export_dl; 0.1 us per tensor instead of Paddle's
    ``get_tensor()._to_dlpack()`` and ``get_strides()``, 1.1-1.7 us) after checking, on a CPU
    tensor of every dtype and seven views of each, that it exports what Paddle's own export
    (corrected: strides, bool) exports.  The dtype table comes from that export.  Ownership is
    torch's: the export holds the tensor, not a copy of its storage (_paddle_tensor.c says
    what that means for an in-place resize).  False, and Paddle's export alone, where a build,
    an export or the check is missing."""
    try:
        from .. import _cdlpack, _cptensor
    except ImportError:
        return False
    if not hasattr(_cdlpack, "set_tensor_api") or not hasattr(_cptensor, "set_export"):
        return False
    import numpy as np
    from ..facade.tensor import _paddle_attribute
    from ..paddle_shims import paddle_dtype, tensor_api_libraries
    if not _cptensor.bind(tensor_api_libraries()) or _cptensor.api() is None:
        return False
    _cdlpack.set_tensor_api(None, None)
    table, probes = {}, []
    for name in _PROBE_DTYPES:
        dt = paddle_dtype(name)
        if dt is None:
            continue
        try:
            t = paddle.to_tensor(np.arange(12).reshape(3, 4) % 2, dtype=dt,
                                 place=paddle.CPUPlace())
        except Exception:  # noqa: BLE001 - a dtype this Paddle cannot make on the CPU
            continue
        code = _cptensor.dtype_code(t, _PT)
        if code is None:
            return False
        addr = _cdlpack.export_paddle(t)
        try:
            table[code] = _cdlpack.describe(addr)[3]
        finally:
            _cdlpack.release(addr)
        probes.append(t)
    if not _cptensor.set_export(_paddle_attribute("data_ptr"), table):
        return False
    _cdlpack.set_tensor_api(_cptensor.api(), _PT)
    ok = True
    for t in probes:
        for v in _views(t):
            a, b = _cdlpack.export(v), _cdlpack.export_paddle(v)
            try:
                ok = ok and _agree(_cdlpack.describe(a), _cdlpack.describe(b))
            finally:
                _cdlpack.release(a)
                _cdlpack.release(b)
    if not ok:
        _cdlpack.set_tensor_api(None, None)
    return ok


def exchange_api_sets_stream() -> bool:
    """True when tvm-ffi reads Paddle tensors through torchproxy's exchange table (installed
    here if need be), so every tvm-ffi call with a Paddle GPU tensor runs on Paddle's current
    stream without a wrapper.  Found once, by a probe: tvm-ffi's ``testing.nop`` called with a
    one-element CPU Paddle tensor must go through the table (False without tvm-ffi, without
    that function, or when tvm-ffi already chose another way for ``paddle.Tensor``)."""
    got = _EXCHANGE[0]
    if got is not None:
        return got
    got = False
    if install_exchange_api():
        from .. import _cdlpack
        try:
            nop = _tvm_ffi().get_global_func("testing.nop", allow_missing=True)
        except ImportError:
            nop = None
        if nop is not None:
            before = _cdlpack.exports()
            nop(paddle.to_tensor([0.0], place=paddle.CPUPlace()))
            got = _cdlpack.exports() == before + 1
    _EXCHANGE[0] = got
    return got


def _is_paddle_tensor(x) -> bool:
    return isinstance(x, _PT)


_FROM_DLPACK: list = []  # tvm_ffi.from_dlpack, looked up once (an import statement per call
#                          costs more than the rest of this function)


def to_tvm_ffi(x):
    """A ``tvm_ffi.Tensor`` viewing the Paddle tensor's memory (no copy)."""
    if not _FROM_DLPACK:
        _FROM_DLPACK.append(_tvm_ffi().from_dlpack)
    if not IS_PADDLE_2 or not isinstance(x, _PT) or _EXCHANGE[0]:
        # Paddle >= 3 tensors speak __dlpack__ themselves; with the exchange table, tvm-ffi
        # reads a Paddle 2.6 tensor through it
        return _FROM_DLPACK[0](x)
    # Paddle 2.6: the capsule directly, not through __dlpack__ (the facade's, when enabled) or
    # paddle.utils.dlpack.to_dlpack, whose @dygraph_only x.value() costs more than the export
    return _FROM_DLPACK[0](_dlpack_capsule(x))


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


def gpu_index(x) -> int:
    """The CUDA device index of a Paddle tensor, -1 when it is not on a GPU."""
    place = x.place
    return place.gpu_device_id() if place.is_gpu_place() else -1


_SETTER: list = [None]  # tvm-ffi's stream setter, or False when it has none (found on first use)


def _setter():
    """tvm-ffi's ``core._env_set_current_stream(device_type, index, stream) -> previous``: what
    its ``use_raw_stream`` context manager calls on enter and on exit."""
    s = _SETTER[0]
    if s is None:
        ffi_core = getattr(_tvm_ffi(), "core", None)  # tvm-ffi's Cython core, not Paddle's
        s = _SETTER[0] = getattr(ffi_core, "_env_set_current_stream", None) or False
    return s


def call_on_paddle_stream(index: int, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with tvm-ffi's environment stream for CUDA device ``index`` set to
    Paddle's current stream there, restored after: the per-call path of TileLang launches.
    Paddle's raw stream handle comes straight from its binding and tvm-ffi's setter is called
    directly (no Paddle ``Stream`` object, no tvm-ffi ``Device`` object, no context-manager
    frames).  Around a tvm-ffi no-op taking one Paddle GPU tensor, on an H100 host: 13.6 us
    per call with the context managers, 4.8 us this way; the no-op called directly 0.14
    (docs/results/gpu-host-cost-h100.txt)."""
    setter = _setter()
    if setter is False:  # a tvm-ffi without the setter: its public context manager
        with paddle_stream_of(index):
            return fn(*args, **kwargs)
    prev = setter(_KDL_CUDA, index, _stream_handle(index))
    try:
        return fn(*args, **kwargs)
    finally:
        setter(_KDL_CUDA, index, prev)


def first_gpu_index(args, PT=_PT) -> int:
    """The CUDA device index of the first Paddle GPU tensor among ``args``, else -1 (one
    ``.place`` read per Paddle tensor until a GPU one is found)."""
    for a in args:
        if isinstance(a, PT):
            place = a.place
            if place.is_gpu_place():
                return place.gpu_device_id()
    return -1


def on_paddle_stream(fn):
    """``fn`` (a tvm-ffi function) wrapped so that a call with a Paddle GPU tensor among its
    positional arguments runs with tvm-ffi's environment stream set to Paddle's current stream
    of that tensor's device (:func:`call_on_paddle_stream`); any other call is ``fn``'s own."""
    def call(*args, **kwargs):
        index = first_gpu_index(args)
        if index < 0:
            return fn(*args, **kwargs)
        return call_on_paddle_stream(index, fn, *args, **kwargs)
    call.__wrapped__ = fn
    call.__name__ = getattr(fn, "__name__", "call")
    call.__torchproxy_stream__ = True
    return call


class PaddleStreamModule:
    """A loaded tvm-ffi ``Module`` whose functions run on Paddle's current stream when given
    Paddle GPU tensors (:func:`on_paddle_stream`); every other attribute is the module's.  Each
    wrapped function is made once per name (the cache holds at most the functions the module
    defines: a name the module lacks raises before anything is stored)."""

    __slots__ = ("module", "_functions", "__weakref__")

    def __init__(self, module):
        object.__setattr__(self, "module", module)
        object.__setattr__(self, "_functions", {})

    def _wrap(self, name, attr):
        if not _is_ffi_function(attr):
            return attr
        got = self._functions.get(name)
        if got is None or got.__wrapped__ is not attr:
            # dict assignment is atomic under the GIL: two threads racing here store equal
            # wrappers of the same function, either one is correct
            got = self._functions[name] = on_paddle_stream(attr)
        return got

    def _cached(self, name, attr):
        # the per-call path (FlashInfer's wrappers look the function up on every call): the
        # wrapper made before, while the module still holds the same function; no type check
        got = self._functions.get(name)
        if got is not None and got.__wrapped__ is attr:
            return got
        return self._wrap(name, attr)

    def __getattribute__(self, name):
        # a function wrapped before is answered here, before Python's own lookup fails and
        # calls __getattr__ (that failure, an AttributeError made and caught, costs more than
        # the rest): FlashInfer's wrappers look their function up on every call
        got = _FUNCTIONS_SLOT(self).get(name)
        if got is not None and got.__wrapped__ is getattr(_MODULE_SLOT(self), name):
            return got
        return _object_getattribute(self, name)

    def __getattr__(self, name):
        return self._cached(name, getattr(self.module, name))

    def __getitem__(self, name):
        return self._cached(name, self.module[name])

    def get_function(self, name, *args, **kwargs):
        return self._wrap(name, self.module.get_function(name, *args, **kwargs))

    def __repr__(self):
        return f"PaddleStreamModule({self.module!r})"


_FUNCTION: list = []  # tvm_ffi.Function, looked up once


_MODULE_SLOT = PaddleStreamModule.module.__get__
_FUNCTIONS_SLOT = PaddleStreamModule._functions.__get__
_object_getattribute = object.__getattribute__


def _is_ffi_function(obj) -> bool:
    if not _FUNCTION:
        _FUNCTION.append(_tvm_ffi().Function)
    return isinstance(obj, _FUNCTION[0])


def paddle_stream_of(index: int):
    """tvm-ffi's ``use_raw_stream`` context for CUDA device ``index`` and Paddle's current
    stream there."""
    tvm_ffi = _tvm_ffi()
    return tvm_ffi.use_raw_stream(tvm_ffi.device("cuda", index), _stream_handle(index))


@contextlib.contextmanager
def paddle_stream(x=None):
    """Within the block, tvm-ffi's environment stream for the tensor's CUDA device is Paddle's
    current stream there (on CPU there is no stream: the block changes nothing)."""
    index = -1 if x is None else gpu_index(x)
    if index < 0:
        yield
        return
    with paddle_stream_of(index):
        yield
