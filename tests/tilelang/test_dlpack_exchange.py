"""torchproxy._cdlpack: the DLPack C exchange table tvm-ffi reads Paddle 2.6 tensors through
(issue 26, seventh round).  The exported DLTensor is compared field by field with real torch's
DLPack export of the same values and view (shape, strides, dtype, device, values read back
through the exported pointer), on whichever Paddle runs the suite (the table works on 3.x
tensors too; 3.x puts its own on paddle.Tensor, so the tvm-ffi end-to-end part runs where the
table is installed: Paddle 2.6 with tvm-ffi importable)."""
import ctypes
import gc

import numpy as np
import paddle
import pytest
import torch

_cdlpack = pytest.importorskip("torchproxy._cdlpack")

# Two exports stand behind the table (issue 26, eighth round): Paddle's own (get_tensor().
# _to_dlpack(), corrected) and the one through Paddle's C++ tensor API (torchproxy._cptensor;
# integrations/tvm_ffi.install_fast_export checks it against the first at install).  Every field
# test runs on both.


def _fast_available() -> bool:
    from torchproxy.integrations import tvm_ffi as tp
    return tp.install_fast_export()


@pytest.fixture(params=["paddle", "cxx"], autouse=True)
def export_path(request):
    if request.param == "cxx":
        if not _fast_available():
            pytest.skip("no export through Paddle's C++ tensor API on this build")
    else:
        _cdlpack.set_tensor_api(None, None)
    yield request.param
    _fast_available()  # as installing the table leaves it (where available)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):  # torch's legacy capsule
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_NP = {(0, 8): np.int8, (0, 16): np.int16, (0, 32): np.int32, (0, 64): np.int64,
       (1, 8): np.uint8, (2, 16): np.float16, (2, 32): np.float32, (2, 64): np.float64,
       (5, 64): np.complex64, (5, 128): np.complex128, (6, 8): np.bool_}


def fields(dl: DLTensor) -> dict:
    """What a consumer reads: shape, strides (compact when NULL), dtype, device, and the
    elements read through data + byte_offset with those strides."""
    shape = tuple(dl.shape[i] for i in range(dl.ndim))
    if dl.strides:
        strides = tuple(dl.strides[i] for i in range(dl.ndim))
    else:
        strides, acc = [], 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= n
        strides = tuple(strides)
    dtype = (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes)
    out = {"shape": shape, "dtype": dtype, "device": dl.device.device_type,
           "strides": strides if all(n > 1 for n in shape) else
           tuple(s for s, n in zip(strides, shape) if n > 1)}
    npdt = np.dtype(_NP[dtype[:2]])
    if 0 not in shape:
        span = 1 + sum((n - 1) * s for n, s in zip(shape, strides))
        buf = (ctypes.c_char * (span * npdt.itemsize)).from_address(
            dl.data + dl.byte_offset)
        flat = np.frombuffer(buf, dtype=npdt)
        out["values"] = np.lib.stride_tricks.as_strided(
            flat, shape, [s * npdt.itemsize for s in strides]).copy()
    return out


def ours(x) -> dict:
    addr = _cdlpack.export(x)
    try:
        m = DLManagedTensorVersioned.from_address(addr)
        assert (m.major, m.minor, m.flags) == (1, 0, 0)
        return fields(m.dl_tensor)
    finally:
        _cdlpack.release(addr)


def torchs(t) -> dict:
    cap = torch.utils.dlpack.to_dlpack(t)
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    m = DLManagedTensor.from_address(get(cap, b"dltensor"))
    got = fields(m.dl_tensor)
    del cap  # its destructor frees the unconsumed tensor
    return got


def same(a: dict, b: dict):
    assert {k: v for k, v in a.items() if k != "values"} == \
        {k: v for k, v in b.items() if k != "values"}
    assert ("values" in a) == ("values" in b)
    if "values" in a:
        np.testing.assert_array_equal(a["values"], b["values"])


VIEWS = {
    "whole": lambda x: x,
    "rows": lambda x: x[1:3],
    "block": lambda x: x[1:3, 1:3],
    "transpose": lambda x: x.T,
    "column": lambda x: x[:, 1],
    "row": lambda x: x[2],
    "empty": lambda x: x[1:1],
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "int32", "uint8", "bool",
                                   "float64", "complex64"])
def test_export_matches_torch(view, dtype):
    a = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    x, t = paddle.to_tensor(a), torch.from_numpy(a.copy())
    same(ours(VIEWS[view](x)), torchs(VIEWS[view](t)))


def test_scalar_and_3d():
    a = np.arange(24, dtype="float32").reshape(2, 3, 4)
    same(ours(paddle.to_tensor(a)), torchs(torch.from_numpy(a)))
    same(ours(paddle.to_tensor(a).transpose([2, 0, 1])), torchs(torch.from_numpy(a).permute(2, 0, 1)))
    s = np.array(3.5, dtype="float32")
    same(ours(paddle.to_tensor(s)), torchs(torch.from_numpy(s)))


def test_export_views_the_paddle_memory_and_outlives_the_tensor():
    x = paddle.to_tensor(np.arange(6, dtype="float32"))
    addr = _cdlpack.export(x)
    m = DLManagedTensorVersioned.from_address(addr)
    assert m.dl_tensor.data + m.dl_tensor.byte_offset == x.data_ptr()
    x[0] = 42.0  # a write through Paddle is seen through the export: no copy
    assert fields(m.dl_tensor)["values"][0] == 42.0
    del x
    gc.collect()
    paddle.to_tensor(np.full(6, -1, dtype="float32"))  # reuse freed memory if any was freed
    # the export owns a share of the allocation (Paddle's own _to_dlpack: a DenseTensor copy;
    # the C++ API export: the tensor object, as torch's export holds the tensor)
    np.testing.assert_array_equal(fields(m.dl_tensor)["values"],
                                  np.array([42, 1, 2, 3, 4, 5], dtype="float32"))
    _cdlpack.release(addr)


def test_export_counts_and_errors():
    before = _cdlpack.exports()
    _cdlpack.release(_cdlpack.export(paddle.to_tensor([1.0])))
    assert _cdlpack.exports() == before + 1
    with pytest.raises(AttributeError):  # not a Paddle tensor: Paddle's own error, not a crash
        _cdlpack.export(object())
    assert _cdlpack.exports() == before + 1


def test_current_work_stream_reads_the_reader():
    try:
        _cdlpack.set_stream_reader(lambda index: 0x5000 + index)
        assert _cdlpack.stream(2, 3) == 0x5003  # kDLCUDA, device 3
        assert _cdlpack.stream(1, 0) == 0  # kDLCPU: no stream
        _cdlpack.set_stream_reader(lambda index: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            _cdlpack.stream(2, 0)
        with pytest.raises(TypeError):
            _cdlpack.set_stream_reader(5)
    finally:
        from torchproxy.paddle_shims import STREAMS, cached_stream_handle
        _cdlpack.set_stream_reader(cached_stream_handle, STREAMS)


def test_current_work_stream_reads_the_cache_first():
    """With a cache (paddle_shims.STREAMS in use), a device whose handle the cache holds is
    answered from its dict without calling the reader; a miss, and every read after the cache
    was emptied (a stream switch), calls the reader, whose answer the cache keeps."""
    from torchproxy.paddle_shims import STREAMS, StreamHandleCache, cached_stream_handle
    calls = []

    def read(index):
        calls.append(index)
        return 0x7000 + index + 16 * len(calls)  # a new handle per read: a stale one shows

    cache = StreamHandleCache(read)
    try:
        _cdlpack.set_stream_reader(cache.get, cache)
        assert _cdlpack.stream(2, 1) == 0x7011 and calls == [1]   # miss: the reader
        assert _cdlpack.stream(2, 1) == 0x7011 and calls == [1]   # hit: the dict, no call
        assert _cdlpack.stream(2, 0) == 0x7020 and calls == [1, 0]
        cache.invalidate()                                         # a stream switch
        assert _cdlpack.stream(2, 1) == 0x7031 and calls == [1, 0, 1]
        assert _cdlpack.stream(1, 1) == 0 and calls == [1, 0, 1]   # kDLCPU: neither
        _cdlpack.set_stream_reader(lambda index: 0x9000 + index, object())
        with pytest.raises(AttributeError):                        # a cache without _handles
            _cdlpack.stream(2, 0)
        _cdlpack.set_stream_reader(None, cache)                    # no reader: no stream
        assert _cdlpack.stream(2, 1) == 0
    finally:
        _cdlpack.set_stream_reader(cached_stream_handle, STREAMS)


def test_tvm_ffi_reads_paddle_tensors_through_the_table():
    """Where the table is on paddle.Tensor (Paddle 2.6 with tvm-ffi): tvm-ffi's own argument
    path and from_dlpack read through it, strided views included."""
    tvm_ffi = pytest.importorskip("tvm_ffi")
    from torchproxy.integrations import tvm_ffi as tp
    if not tp.install_exchange_api():
        pytest.skip(f"Paddle {paddle.__version__} has its own __dlpack_c_exchange_api__")
    assert tp.exchange_api_sets_stream()
    echo = tvm_ffi.get_global_func("testing.echo")
    a = np.arange(12, dtype="float32").reshape(3, 4)
    x, t = paddle.to_tensor(a), torch.from_numpy(a)
    for view in VIEWS:
        before = _cdlpack.exports()
        got = echo(VIEWS[view](x))
        assert _cdlpack.exports() == before + 1
        want = VIEWS[view](t)
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_array_equal(np.from_dlpack(got), want.numpy())
        np.testing.assert_array_equal(np.from_dlpack(tp.to_tvm_ffi(VIEWS[view](x))), want.numpy())


def test_cxx_export_holds_the_tensor_and_lets_go(export_path):
    if export_path != "cxx":
        pytest.skip("the C++ API export's ownership")
    import sys
    x = paddle.to_tensor(np.arange(6, dtype="float32"))
    before = sys.getrefcount(x)
    addr = _cdlpack.export(x)
    assert sys.getrefcount(x) == before + 1
    _cdlpack.release(addr)
    assert sys.getrefcount(x) == before


@pytest.mark.parametrize("make", ["zero_size", "sparse", "not_a_tensor"])
def test_cxx_export_leaves_what_it_cannot_read_to_paddles(export_path, make):
    """0-size tensors, sparse ones and other objects: the same outcome as Paddle's export."""
    if export_path != "cxx":
        pytest.skip("the C++ API export's fallbacks")
    x = {"zero_size": lambda: paddle.zeros([0, 3]),
         "sparse": lambda: paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2]),
         "not_a_tensor": lambda: object()}[make]()
    outcomes = []
    for export in (_cdlpack.export, _cdlpack.export_paddle):
        try:
            addr = export(x)
        except Exception as e:  # noqa: BLE001 - compared below
            outcomes.append(type(e))
        else:
            outcomes.append(_cdlpack.describe(addr)[1:])
            _cdlpack.release(addr)
    assert outcomes[0] == outcomes[1]


def test_fast_export_installed_with_the_table_on_paddle_26():
    from torchproxy.integrations import tvm_ffi as tp
    if not tp.install_exchange_api():
        pytest.skip(f"Paddle {paddle.__version__} has its own __dlpack_c_exchange_api__")
    import importlib.util
    if importlib.util.find_spec("torchproxy._cptensor") is None:
        pytest.skip("torchproxy._cptensor is not built")
    assert _fast_available() and _cdlpack.tensor_api_set()
