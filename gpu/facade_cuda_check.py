"""GPU check of the facade's torch.cuda against real torch, in one process (run on the GPU
machine: PYTHONPATH=/tmp/site:. python3 gpu/facade_cuda_check.py).

Real torch (CUDA build) is imported by this unscoped script; the facade is used by a scoped
module.  Each check compares the facade's answer with real torch's (or with Paddle's own
runtime where the two must differ: the current stream is Paddle's, not torch's).
Writes $OUT/facade_cuda.json; exits 1 if any check failed.
"""
from __future__ import annotations

import json
import os
import sys
import traceback
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import paddle  # noqa: E402
import torch as real  # noqa: E402  (unscoped: real torch)

import torchproxy  # noqa: E402

print("torchproxy from", os.path.dirname(torchproxy.__file__), flush=True)
torchproxy.enable(scope={"gpu_scoped"})
scoped = types.ModuleType("gpu_scoped")
sys.modules["gpu_scoped"] = scoped
exec("import torch", scoped.__dict__)
T = scoped.torch
assert torchproxy.is_facade(T) and not torchproxy.is_facade(real)

results: dict[str, dict] = {}


def check(name):
    def deco(fn):
        try:
            detail = fn()
            results[name] = {"ok": True, "detail": detail}
        except Exception as e:  # noqa: BLE001 - every check is reported, the rest go on
            results[name] = {"ok": False, "error": f"{type(e).__name__}: {e}",
                             "trace": traceback.format_exc()[-2000:]}
        return fn
    return deco


def in_scope(code: str, **names):
    """Run torch-written code as the scoped module (Tensor methods get torch semantics)."""
    ns = scoped.__dict__
    ns.update(names)
    exec(code, ns)
    return ns.get("result")


@check("device queries match real torch")
def _():
    got = (T.cuda.is_available(), T.cuda.device_count(), T.cuda.current_device(),
           T.cuda.get_device_capability(), T.cuda.get_device_name(0))
    want = (real.cuda.is_available(), real.cuda.device_count(), real.cuda.current_device(),
            real.cuda.get_device_capability(), real.cuda.get_device_name(0))
    assert got == want, (got, want)
    p, q = T.cuda.get_device_properties(0), real.cuda.get_device_properties(0)
    assert p.multi_processor_count == q.multi_processor_count, (p.multi_processor_count, q.multi_processor_count)
    assert (p.major, p.minor) == (q.major, q.minor)
    assert abs(p.total_memory - q.total_memory) < 0.05 * q.total_memory, (p.total_memory, q.total_memory)
    return {"facade": repr(got), "sms": p.multi_processor_count}


@check("current_stream is Paddle's stream")
def _():
    s = T.cuda.current_stream()
    pd = paddle.device.current_stream()
    handle = int(s.cuda_stream)
    pd_handle = int(getattr(pd, "cuda_stream", getattr(pd, "stream_base", pd).cuda_stream))
    assert handle == pd_handle, (handle, pd_handle)
    return {"facade_stream": hex(handle), "torch_stream": hex(real.cuda.current_stream().cuda_stream)}


@check("stream context switches and restores")
def _():
    before = int(T.cuda.current_stream().cuda_stream)
    s = T.cuda.Stream()
    with T.cuda.stream(s):
        inside = int(T.cuda.current_stream().cuda_stream)
    after = int(T.cuda.current_stream().cuda_stream)
    assert inside == int(s.cuda_stream) != before and after == before, (before, inside, after)
    return {"new_stream": hex(inside)}


@check("events time work")
def _():
    a, b = T.cuda.Event(enable_timing=True), T.cuda.Event(enable_timing=True)
    x = paddle.to_tensor(np.ones(1 << 24, "float32"), place=paddle.CUDAPlace(0))
    a.record()
    for _ in range(5):
        x.cpu()  # device->host copies are real work on any architecture
    b.record()
    b.synchronize()
    ms = a.elapsed_time(b)
    assert ms > 0, ms
    return {"ms": ms}


@check("creation on cuda, torch semantics, data round trip")
def _():
    src = np.arange(12, dtype="float32").reshape(3, 4)
    out = in_scope("""
x = torch.empty((3, 4), device="cuda", dtype=torch.float32)
y = torch.tensor(src, device="cuda")
result = (x.device, x.is_cuda, x.numel(), x.stride(), y.cpu().numpy(), x.data_ptr() != 0,
          isinstance(x.device, torch.device), y.device == torch.device("cuda", 0))
""", src=src)
    dev, is_cuda, numel, stride, back, ptr_ok, dev_is_type, eq = out
    assert (dev.type, dev.index) == ("cuda", 0) and is_cuda and numel == 12 and stride == (4, 1)
    assert ptr_ok and dev_is_type and eq
    np.testing.assert_array_equal(back, src)
    return {"device": str(dev)}


@check("issue 26 fast paths on cuda: empty / empty_like / device / stride")
def _():
    out = in_scope("""
x = torch.empty((3, 4), device="cuda", dtype=torch.float16)
e = torch.empty(x.shape, device=x.device, dtype=x.dtype)
l = torch.empty_like(x)
l2 = torch.empty_like(x[:, 1:])
b = torch.empty_like(torch.empty((2,), device="cuda", dtype=torch.bfloat16))
result = [(str(t.device), t.dtype, tuple(t.shape), t.stride(), t.is_cuda) for t in (x, e, l, l2, b)]
result.append((x.device is x.device, x.stride(0), x.stride(-1), x.device == torch.device("cuda:0")))
""")
    want = [("cuda:0", T.float16, (3, 4), (4, 1), True), ("cuda:0", T.float16, (3, 4), (4, 1), True),
            ("cuda:0", T.float16, (3, 4), (4, 1), True), ("cuda:0", T.float16, (3, 3), (3, 1), True),
            ("cuda:0", T.bfloat16, (2,), (1,), True), (True, 4, 1, True)]
    assert out == want, out
    return {"rows": repr(out)}


@check("issue 26 stream cache follows every switch (paddle and facade paths)")
def _():
    from torchproxy import paddle_shims
    from torchproxy.integrations import tvm_ffi as tp
    get = tp._stream_handle          # the cached getter the tvm-ffi launches use
    truth = paddle_shims.current_stream_handle
    seen = [(get(0), truth(0))]
    s1, s2 = paddle.device.cuda.Stream(), paddle.device.Stream()
    with paddle.device.cuda.stream_guard(s1):
        seen.append((get(0), truth(0)))
        with paddle.device.stream_guard(s2):
            seen.append((get(0), truth(0)))
        seen.append((get(0), truth(0)))
    seen.append((get(0), truth(0)))
    ts = T.cuda.Stream()
    with T.cuda.stream(ts):
        seen.append((get(0), truth(0), int(ts.cuda_stream)))
    seen.append((get(0), truth(0)))
    prev = T.cuda.current_stream()
    T.cuda.set_stream(ts)
    seen.append((get(0), truth(0)))
    T.cuda.set_stream(prev)
    seen.append((get(0), truth(0)))
    paddle.device.set_stream(s2)
    seen.append((get(0), truth(0)))
    paddle.device.set_stream(prev._paddle)
    seen.append((get(0), truth(0)))
    assert all(r[0] == r[1] for r in seen), [tuple(hex(v) for v in r) for r in seen]
    assert len({r[1] for r in seen}) >= 3, "the switches did not change Paddle's stream"
    return {"seen": [tuple(hex(v) for v in r) for r in seen]}


@check("issue 26 round 8: dtype, device and the DLPack export read through Paddle's C++ API on cuda")
def _():
    """The readings _paddle_tensor.c makes, on GPU tensors (the install-time checks use CPU
    ones): x.dtype is the canonical object, x.device is cuda:0, and where the exchange table
    exports through the C++ API its DLPack export of GPU views agrees with Paddle's own."""
    from torchproxy import _cdlpack
    from torchproxy.integrations import tvm_ffi as tp
    tp.install_exchange_api()
    fast = tp.install_fast_export()
    rows = []
    for dt in ("float16", "float32", "bfloat16", "int64", "bool", "uint8"):
        x = in_scope(f"result = torch.empty((3, 4), device='cuda', dtype=torch.{dt})")
        dev = in_scope("result = (str(x.device), x.device.type, x.device.index, x.is_cuda)", x=x)
        assert dev == ("cuda:0", "cuda", 0, True), dev
        assert x.dtype is getattr(paddle, dt) or not paddle.__version__.startswith("2."), dt
        if fast:
            for v in tp._views(x):
                a, b = _cdlpack.export(v), _cdlpack.export_paddle(v)
                da, db = _cdlpack.describe(a), _cdlpack.describe(b)
                _cdlpack.release(a)
                _cdlpack.release(b)
                assert da[1:3] == (2, 0) and tp._agree(da, db), (dt, da, db)
        rows.append(dt)
    return {"dtypes": rows, "cxx_export": fast}


@check("round 10: torch.empty_like's result lands where torch's does (GPU, CPU and pinned inputs)")
def _():
    """The hot path passes x's place read through fast_dtype.place_reader (one Place object per
    device) on GPU builds: GPU inputs (whole, views, each dtype) get a GPU result on x's device,
    as Paddle's kernel given x.place does; CPU and GPU-pinned inputs an ordinary CPU tensor
    (torch's empty_like does not pin).  Each input is tried (an error is recorded, not the end
    of the check).  Any tree: the BASELINE tree has no place_reader."""
    from torchproxy import paddle_shims
    from torchproxy.facade import fast_dtype
    k, od = paddle_shims.kernel_empty_like, paddle_shims.EMPTY_LIKE_OWN_DTYPE
    reader = getattr(fast_dtype, "place_reader", None)
    g = lambda v: paddle.to_tensor(v, place=paddle.CUDAPlace(0))  # noqa: E731
    one_object = None if reader is None else reader()(g([1.0])) is reader()(g([2.0]))
    gpu = g(np.arange(12, dtype="float32").reshape(3, 4))
    cpu = paddle.to_tensor(np.arange(12, dtype="float32").reshape(3, 4), place=paddle.CPUPlace())
    inputs = [("gpu", gpu), ("gpu view", gpu[:, 1:]), ("gpu fp16", g(np.ones((3, 4), "float16"))),
              ("gpu int64", g(np.arange(4))), ("cpu", cpu), ("pinned", cpu.pin_memory())]

    def attempt(fn):
        try:
            t = fn()
            return (str(t.place), str(t.dtype), list(t.shape))
        except Exception as e:  # noqa: BLE001 - recorded per input
            return f"{type(e).__name__}: {str(e)[:90]}"
    rows, bad = [], []
    for label, x in inputs:
        got = attempt(lambda: in_scope("result = torch.empty_like(x)", x=x))
        ref = attempt(lambda: k(x, od, x.place))  # Paddle's kernel given x.place
        want = "Place(cpu)" if label in ("cpu", "pinned") else "Place(gpu:0)"
        ok = (isinstance(got, tuple) and got[0] == want and got[1] == str(x.dtype)
              and got[2] == list(x.shape) and (label == "pinned" or got == ref))
        rows.append((label, str(x.place), got, ref, ok))
        if not ok:
            bad.append(label)
    assert not bad, rows
    return {"one_place_object_per_device": one_object, "rows": rows}


@check("round 10: the exchange table's stream read (cache first) follows every switch")
def _():
    """What tvm-ffi is told per call (_cdlpack's current_work_stream, as tvm-ffi calls it)
    equals Paddle's current stream before, inside and after stream switches."""
    from torchproxy import _cdlpack, paddle_shims
    from torchproxy.integrations import tvm_ffi as tp
    if not tp.install_exchange_api():
        return {"skipped": f"Paddle {paddle.__version__} has its own exchange table"}
    truth = paddle_shims.current_stream_handle
    seen = [(_cdlpack.stream(2, 0), truth(0))]
    # each guard with its own module's Stream (paddle.device.stream_guard reads .device)
    s1, s2 = paddle.device.cuda.Stream(), paddle.device.Stream()
    with paddle.device.cuda.stream_guard(s1):
        seen += [(_cdlpack.stream(2, 0), truth(0)), (_cdlpack.stream(2, 0), truth(0))]
        with paddle.device.stream_guard(s2):
            seen.append((_cdlpack.stream(2, 0), truth(0)))
        seen.append((_cdlpack.stream(2, 0), truth(0)))
    ts = T.cuda.Stream()
    with T.cuda.stream(ts):
        seen.append((_cdlpack.stream(2, 0), truth(0)))
    seen.append((_cdlpack.stream(2, 0), truth(0)))
    assert all(a == b for a, b in seen), [(hex(a), hex(b)) for a, b in seen]
    assert len({b for _, b in seen}) >= 3, "the switches did not change Paddle's stream"
    return {"seen": [hex(a) for a, _ in seen]}


@check("memory stats move with allocations")
def _():
    before = T.cuda.memory_allocated()
    keep = paddle.to_tensor(np.zeros(1 << 22, "float32"), place=paddle.CUDAPlace(0))
    after = T.cuda.memory_allocated()
    assert after >= before + (1 << 24) - 4096, (before, after)
    del keep
    return {"before": before, "after": after}


@check("paddle GPU kernels work on this architecture (doctor's question)")
def _():
    x = paddle.to_tensor(np.ones(16, "float32"), place=paddle.CUDAPlace(0))
    y = (x * 3).numpy()
    ok = bool(np.all(y == 3))
    return {"paddle_kernels_run": ok, "sample": y[:4].tolist(),
            "note": "False is expected with paddlepaddle-gpu 2.6.2 on sm_90 (no kernels for it)"}


out = os.environ.get("OUT", ".")
with open(os.path.join(out, "facade_cuda.json"), "w") as f:
    json.dump(results, f, indent=2, default=str)
for name, r in results.items():
    print(("PASS " if r["ok"] else "FAIL ") + name + ": " + json.dumps(r.get("detail", r.get("error")), default=str))
sys.exit(0 if all(r["ok"] for r in results.values()) else 1)
