"""(A copy of ../shared/gpu/probes/ffi_host_cost.py, run by gpu/run_host_cost.sh tilelang.)

Host cost per call of tvm-ffi kernels on Paddle tensors (through torchproxy) vs torch tensors,
and the parts that make up the difference.

Runs on the GPU machine, from the project root (/tmp/proj), one part per process:

  PYTHONPATH=/tmp/site-fi:/tmp/site:/tmp/proj python3 ffi_host_cost.py flashinfer OUT.json
  PYTHONPATH=/tmp/site:/tmp/proj TILELANG_CACHE_DIR=... python3 ffi_host_cost.py tilelang OUT.json
  PYTHONPATH=/tmp/site:/tmp/proj TILELANG_CACHE_DIR=... python3 ffi_host_cost.py tilelang-torch OUT.json
  python3 ffi_host_cost.py summary DIR        (tables from DIR/ffi_{flashinfer,tilelang,tilelang-torch}.json)

- flashinfer: Paddle 2.6 + torchproxy.enable(scope={"flashinfer", <body>}) + FlashInfer's Paddle
  port (its tvm-ffi 0.1.14) + real torch, in one process: flashinfer.norm.rmsnorm 99x1024 fp16 on
  Paddle tensors, and the same Python steps (torch.empty_like + flashinfer.norm._rmsnorm, which
  is upstream's wrapper body) on torch tensors; the bare tvm-ffi call on each; the parts.
- tilelang: Paddle 2.6 + torchproxy.enable(scope={"tilelang", "kernels.tilelang", <body>}) +
  upstream tilelang 0.1.15 (tvm-ffi 0.1.12) + real torch, in one process: each kernels/tilelang
  kernel on Paddle tensors (wrapper, JITKernel call, adapter, executable) and on torch tensors
  (JITKernel call through the facade-bound adapter, executable); the parts.
- tilelang-torch: real torch only (no torchproxy): the same kernels, wrapper and JITKernel call
  as plain torch users run them (the full wrapper cannot run on torch tensors in a process where
  tilelang is bound to the facade).

Every figure: microseconds per call, min (and median) over REPS repeats of N back-to-back calls,
device synchronized after each repeat; "host" excludes that final synchronize.
"""
from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import time
import traceback
import types

N_CALL = int(os.environ.get("FFI_N_CALL", "200"))
N_MICRO = int(os.environ.get("FFI_N_MICRO", "2000"))
REPS = int(os.environ.get("FFI_REPS", "15"))
BODY_NAME = "ffi_host_cost_body"

RESULTS: dict = {"info": {}, "items": [], "checks": {}}
_SYNC = [lambda: None]
_OUT = [None]


def _save():
    if _OUT[0]:
        with open(_OUT[0], "w") as f:
            json.dump(RESULTS, f, indent=1, default=str)


def _fmt(row):
    if "error" in row:
        return f"  {row['side']:<6} {row['label']:<70} ERROR {row['error'][:200]}"
    return (f"  {row['side']:<6} {row['label']:<70} {row['us']:9.3f} us "
            f"(median {row['us_median']:.3f}; host {row['host_us']:.3f})")


def bench(group, side, label, fn, n=None, reps=None):
    n = n or N_CALL
    reps = reps or REPS
    row = {"group": group, "side": side, "label": label, "n": n, "reps": reps}
    try:
        sync = _SYNC[0]
        fn()
        sync()
        for _ in range(min(n, 50)):
            fn()
        sync()
        tot, host = [], []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            t1 = time.perf_counter()
            sync()
            t2 = time.perf_counter()
            tot.append((t2 - t0) / n * 1e6)
            host.append((t1 - t0) / n * 1e6)
        row.update(us=min(tot), us_median=statistics.median(tot), host_us=min(host),
                   host_us_median=statistics.median(host))
    except Exception as e:  # recorded; the next item runs
        row["error"] = f"{type(e).__name__}: {e}"[:800]
        row["trace"] = traceback.format_exc()[-2000:]
    RESULTS["items"].append(row)
    print(_fmt(row), flush=True)
    _save()
    return row


def micro(group, side, label, fn):
    return bench(group, side, label, fn, n=N_MICRO)


def check(name, fn):
    try:
        RESULTS["checks"][name] = fn()
    except Exception as e:
        RESULTS["checks"][name] = f"ERROR {type(e).__name__}: {e}"[:800]
    print(f"  check {name}: {RESULTS['checks'][name]}", flush=True)


def info(name, fn):
    try:
        RESULTS["info"][name] = fn()
    except Exception as e:
        RESULTS["info"][name] = f"ERROR {type(e).__name__}: {e}"[:500]


# torch-written code that must run *in scope* (tensor methods dispatch on the caller's module)
BODY = r'''
import torch


def scoped(x, others=()):
    """Closures whose frames are in scope, as a scoped library's would be."""
    return {
        "facade torch.empty_like(x)": lambda: torch.empty_like(x),
        "facade torch.empty(shape, dtype=, device=x.device)":
            lambda: torch.empty(tuple(x.shape), dtype=x.dtype, device=x.device),
        "x.device (facade property)": lambda: x.device,
        "x.device.type (facade)": lambda: x.device.type,
        "isinstance(x, torch.Tensor) (facade)": lambda: isinstance(x, torch.Tensor),
        "x.__dlpack__() (scoped caller)": lambda: x.__dlpack__(),
        "x.dtype (facade)": lambda: x.dtype,
        "facade torch.cuda.current_stream().cuda_stream": lambda: torch.cuda.current_stream().cuda_stream,
    }
'''


def _load_body():
    mod = types.ModuleType(BODY_NAME)
    mod.__file__ = f"<{BODY_NAME}>"
    sys.modules[BODY_NAME] = mod
    exec(compile(BODY, mod.__file__, "exec"), mod.__dict__)
    return mod


@contextlib.contextmanager
def _trivial_cm():
    yield


def _with(cm_factory):
    def run():
        with cm_factory():
            pass
    return run


def common_paddle_parts(group, x, body, tvm_ffi, paddle):
    """Conversion and stream-lookup parts on one Paddle GPU tensor."""
    from paddle.base import core
    from torchproxy.integrations import tvm_ffi as tp_tvm
    place = paddle.CUDAPlace(0)
    micro(group, "-", "empty lambda (loop overhead)", lambda: None)
    # DLPack / tvm-ffi conversion
    micro(group, "paddle", "tvm_ffi.from_dlpack(x)  [what tvm-ffi does per Paddle arg]",
          lambda: tvm_ffi.from_dlpack(x))
    micro(group, "paddle", "x.__dlpack__()  (torchproxy's method, unscoped caller)",
          lambda: x.__dlpack__())
    for label, fn in body.scoped(x).items():
        if "__dlpack__" in label:
            micro(group, "paddle", label, fn)
    micro(group, "paddle", "paddle.utils.dlpack.to_dlpack(x)",
          lambda: paddle.utils.dlpack.to_dlpack(x))
    micro(group, "paddle", "x.value().get_tensor()._to_dlpack()  (to_dlpack's core)",
          lambda: x.value().get_tensor()._to_dlpack())
    micro(group, "paddle", "x.value()", lambda: x.value())
    micro(group, "paddle", "x.value().get_tensor()", lambda: x.value().get_tensor())
    micro(group, "paddle", "paddle.in_dynamic_mode()", lambda: paddle.in_dynamic_mode())
    micro(group, "paddle", "hasattr(x, '__dlpack_c_exchange_api__')",
          lambda: hasattr(x, "__dlpack_c_exchange_api__"))
    micro(group, "paddle", "tvm_ffi.from_dlpack(paddle.utils.dlpack.to_dlpack(x))",
          lambda: tvm_ffi.from_dlpack(paddle.utils.dlpack.to_dlpack(x)))
    micro(group, "paddle", "tvm_ffi.from_dlpack(x.value().get_tensor()._to_dlpack())",
          lambda: tvm_ffi.from_dlpack(x.value().get_tensor()._to_dlpack()))
    micro(group, "paddle", "torchproxy.integrations.tvm_ffi.to_tvm_ffi(x)",
          lambda: tp_tvm.to_tvm_ffi(x))
    # stream lookup (torchproxy.integrations.tvm_ffi.paddle_stream, piece by piece)
    micro(group, "paddle", "paddle_stream(x): enter+exit, empty body  [TileLang launch wrapper]",
          _with(lambda: tp_tvm.paddle_stream(x)))
    micro(group, "paddle", "  x.place", lambda: x.place)
    micro(group, "paddle", "  x.place.is_gpu_place()", lambda: x.place.is_gpu_place())
    micro(group, "paddle", "  x.place.gpu_device_id()", lambda: x.place.gpu_device_id())
    micro(group, "paddle", "  _device_of(x) -> tvm_ffi.device('cuda', i)",
          lambda: tp_tvm._device_of(x))
    micro(group, "paddle", "  tvm_ffi.device('cuda', 0)", lambda: tvm_ffi.device("cuda", 0))
    micro(group, "paddle", "  paddle.CUDAPlace(0)", lambda: paddle.CUDAPlace(0))
    micro(group, "paddle", "  paddle.device.current_stream(place)",
          lambda: paddle.device.current_stream(place))
    s = paddle.device.current_stream(place)
    micro(group, "paddle", "  stream._as_parameter_.value", lambda: s._as_parameter_.value)
    micro(group, "paddle", "  paddle.device.current_stream(place)._as_parameter_.value",
          lambda: paddle.device.current_stream(place)._as_parameter_.value)
    dev = tvm_ffi.device("cuda", 0)
    sv = s._as_parameter_.value or 0
    micro(group, "paddle", "  tvm_ffi.use_raw_stream(dev, s): enter+exit",
          _with(lambda: tvm_ffi.use_raw_stream(dev, sv)))
    micro(group, "paddle", "  a trivial @contextmanager: enter+exit", _with(_trivial_cm))
    micro(group, "paddle", "  (cheaper lookup) core._get_current_stream(0).cuda_stream",
          lambda: core._get_current_stream(0).cuda_stream)
    micro(group, "paddle", "paddle.empty_like(x)  (Paddle's own)", lambda: paddle.empty_like(x))
    for label, fn in body.scoped(x).items():
        if "__dlpack__" not in label:
            micro(group, "paddle", label + "  [scoped]", fn)


def common_torch_parts(group, x, tvm_ffi, torch):
    micro(group, "torch", "tvm_ffi.from_dlpack(x)  [what tvm-ffi does per torch arg]",
          lambda: tvm_ffi.from_dlpack(x))
    micro(group, "torch", "x.__dlpack__()", lambda: x.__dlpack__())
    micro(group, "torch", "torch.utils.dlpack.to_dlpack(x)", lambda: torch.utils.dlpack.to_dlpack(x))
    micro(group, "torch", "hasattr(x, '__dlpack_c_exchange_api__')",
          lambda: hasattr(x, "__dlpack_c_exchange_api__"))
    micro(group, "torch", "tvm_ffi.from_dlpack(torch.utils.dlpack.to_dlpack(x))",
          lambda: tvm_ffi.from_dlpack(torch.utils.dlpack.to_dlpack(x)))
    micro(group, "torch", "torch._C._cuda_getCurrentRawStream(0)",
          lambda: torch._C._cuda_getCurrentRawStream(0))
    micro(group, "torch", "torch.cuda.current_stream().cuda_stream",
          lambda: torch.cuda.current_stream().cuda_stream)
    micro(group, "torch", "torch.empty_like(x)", lambda: torch.empty_like(x))
    micro(group, "torch", "torch.empty(shape, dtype=, device=x.device)",
          lambda: torch.empty(tuple(x.shape), dtype=x.dtype, device=x.device))
    micro(group, "torch", "x.device", lambda: x.device)
    micro(group, "torch", "x.device.type", lambda: x.device.type)
    micro(group, "torch", "isinstance(x, torch.Tensor)", lambda: isinstance(x, torch.Tensor))
    micro(group, "torch", "x.dtype", lambda: x.dtype)


def _env_info(torch):
    info("python", lambda: sys.version.split()[0])
    info("torch", lambda: torch.__version__)
    info("gpu", lambda: torch.cuda.get_device_name(0))
    info("capability", lambda: list(torch.cuda.get_device_capability(0)))
    info("torch_has___dlpack_c_exchange_api__",
         lambda: hasattr(torch.Tensor, "__dlpack_c_exchange_api__"))
    info("TVM_FFI_DISABLE_TORCH_C_DLPACK", lambda: os.environ.get("TVM_FFI_DISABLE_TORCH_C_DLPACK"))
    info("N_CALL/N_MICRO/REPS", lambda: [N_CALL, N_MICRO, REPS])


def _paddle_info(paddle, tvm_ffi):
    import torchproxy
    from torchproxy.facade import dispatch
    info("paddle", lambda: paddle.__version__)
    info("tvm_ffi", lambda: tvm_ffi.__version__)
    info("torchproxy_dispatch_backend", lambda: dispatch.backend())
    info("torchproxy_file", lambda: torchproxy.__file__)
    info("paddle_current_stream", lambda: hex(
        paddle.device.current_stream(paddle.CUDAPlace(0))._as_parameter_.value or 0))
    info("tvm_ffi_env_stream_outside_any_context",
         lambda: hex(tvm_ffi.get_raw_stream(tvm_ffi.device("cuda", 0)) or 0))
    info("paddle_Tensor_has___dlpack__", lambda: hasattr(paddle.Tensor, "__dlpack__"))
    info("paddle_Tensor___dlpack___type", lambda: type(paddle.Tensor.__dict__.get("__dlpack__")).__name__)


# ------------------------------------------------------------------------------------------------
def part_flashinfer():
    import numpy as np
    import torch  # real torch: this script is not in scope
    _SYNC[0] = torch.cuda.synchronize
    cap = torch.cuda.get_device_capability(0)
    arch = f"{cap[0]}.{cap[1]}" + ("a" if cap[0] >= 9 else "")
    os.environ.setdefault("TVM_FFI_CACHE_DIR", "/tmp/tvm-ffi-cache")
    if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
    os.environ.setdefault("MAX_JOBS", str(min(8, os.cpu_count() or 1)))
    from torchproxy.integrations import flashinfer as fi_int
    RESULTS["info"]["jit"] = fi_int.configure_jit(arch=arch, workspace="/tmp/flashinfer-jit",
                                                  link_dir="/tmp/flashinfer-links")
    import paddle
    import torchproxy
    torchproxy.enable(scope={"flashinfer", BODY_NAME})
    t = time.time()
    import flashinfer as fi
    import tvm_ffi
    RESULTS["info"]["flashinfer"] = fi.__version__
    RESULTS["info"]["import_s"] = round(time.time() - t, 2)
    body = _load_body()
    _env_info(torch)
    _paddle_info(paddle, tvm_ffi)
    t = time.time()
    mod = fi.norm.get_norm_module()
    RESULTS["info"]["norm_module_s"] = round(time.time() - t, 1)

    rng = np.random.default_rng(3)
    x = rng.standard_normal((99, 1024)).astype(np.float16)
    w = (rng.standard_normal(1024) * 0.5 + 1).astype(np.float16)
    place = paddle.CUDAPlace(0)
    xp, wp = paddle.to_tensor(x, place=place), paddle.to_tensor(w, place=place)
    outp = fi.norm.rmsnorm(xp, wp, enable_pdl=False)
    xt, wt = torch.from_numpy(x).cuda(), torch.from_numpy(w).cuda()
    outt = torch.empty_like(xt)
    fi.norm._rmsnorm(outt, xt, wt, 1e-6, False)
    torch.cuda.synchronize()
    x32 = x.astype(np.float32)
    ref = x32 / np.sqrt((x32 * x32).mean(-1, keepdims=True) + 1e-6) * w.astype(np.float32)
    check("rmsnorm paddle max_abs_err", lambda: float(np.abs(outp.numpy().astype(np.float32) - ref).max()))
    check("rmsnorm torch max_abs_err", lambda: float(np.abs(outt.cpu().numpy().astype(np.float32) - ref).max()))

    def torch_rmsnorm(input, weight, eps=1e-6, out=None, enable_pdl=None):
        # upstream flashinfer.norm.rmsnorm's steps (the port's are the same) with real torch
        if enable_pdl is None:
            enable_pdl = fi.utils.device_support_pdl(input.device)
        if out is None:
            out = torch.empty_like(input)
        fi.norm._rmsnorm(out, input, weight, eps, enable_pdl)
        return out

    vp = [tvm_ffi.from_dlpack(t) for t in (outp, xp, wp)]
    vt = [tvm_ffi.from_dlpack(t) for t in (outt, xt, wt)]
    g = "flashinfer rmsnorm 99x1024 fp16"
    print(f"== {g}", flush=True)
    for rep in range(2):  # twice, interleaved, to see the spread
        bench(g, "paddle", "fi.norm.rmsnorm(x, w, enable_pdl=False)  [proxy wrapper]",
              lambda: fi.norm.rmsnorm(xp, wp, enable_pdl=False))
        bench(g, "torch", "torch.empty_like + fi.norm._rmsnorm  [upstream wrapper's steps]",
              lambda: torch_rmsnorm(xt, wt, enable_pdl=False))
        bench(g, "paddle", "fi.norm._rmsnorm(out, x, w, eps, False)  [no allocation]",
              lambda: fi.norm._rmsnorm(outp, xp, wp, 1e-6, False))
        bench(g, "torch", "fi.norm._rmsnorm(out, x, w, eps, False)  [no allocation]",
              lambda: fi.norm._rmsnorm(outt, xt, wt, 1e-6, False))
        bench(g, "paddle", "mod.rmsnorm(out, x, w, eps, False)  [bare tvm-ffi call]",
              lambda: mod.rmsnorm(outp, xp, wp, 1e-6, False))
        bench(g, "torch", "mod.rmsnorm(out, x, w, eps, False)  [bare tvm-ffi call]",
              lambda: mod.rmsnorm(outt, xt, wt, 1e-6, False))
        bench(g, "paddle", "mod.rmsnorm on tvm_ffi.Tensor views made once",
              lambda: mod.rmsnorm(*vp, 1e-6, False))
        bench(g, "torch", "mod.rmsnorm on tvm_ffi.Tensor views made once",
              lambda: mod.rmsnorm(*vt, 1e-6, False))
    print("== parts (per tensor / per lookup)", flush=True)
    common_paddle_parts("parts (tvm-ffi %s)" % tvm_ffi.__version__, xp, body, tvm_ffi, paddle)
    common_torch_parts("parts (tvm-ffi %s)" % tvm_ffi.__version__, xt, tvm_ffi, torch)


# ------------------------------------------------------------------------------------------------
def _tl_cases(np):
    rng = np.random.default_rng(0)
    M = N = K = 1024
    a = rng.standard_normal((M, K)).astype("float16")
    b = rng.standard_normal((K, N)).astype("float16")
    x = rng.standard_normal((4096, 1024)).astype("float32")
    w = rng.standard_normal(1024).astype("float32")
    s = (rng.standard_normal((4096, 1024)) * 4).astype("float32")
    return [("matmul_relu", "matmul_relu_kernel", (M, N, K), [a, b], ((M, N), "float16")),
            ("rmsnorm", "rmsnorm_kernel", (4096, 1024), [x, w], ((4096, 1024), "float32")),
            ("softmax", "softmax_kernel", (4096, 1024), [s], ((4096, 1024), "float32"))]


def part_tilelang():
    import numpy as np
    import torch  # real torch (unscoped)
    _SYNC[0] = torch.cuda.synchronize
    import torchproxy
    torchproxy.enable(scope={"tilelang", "kernels.tilelang", BODY_NAME})
    import paddle
    body = _load_body()
    import tvm_ffi
    from kernels.tilelang import matmul_relu, rmsnorm, softmax
    from torchproxy.integrations import tilelang as tp_tl
    _env_info(torch)
    _paddle_info(paddle, tvm_ffi)
    info("TILELANG_CACHE_DIR", lambda: os.environ.get("TILELANG_CACHE_DIR"))
    mods = {"matmul_relu": matmul_relu, "rmsnorm": rmsnorm, "softmax": softmax}
    place = paddle.CUDAPlace(0)
    first = None
    for name, factory_name, args, inputs, (oshape, odt) in _tl_cases(np):
        m = mods[name]
        wrapper, factory = getattr(m, name), getattr(m, factory_name)
        g = f"tilelang {name} {'x'.join(map(str, args))}"
        print(f"== {g}", flush=True)
        try:
            t = time.time()
            kernel = factory(*args)
            RESULTS["info"][f"{name}_compile_or_load_s"] = round(time.time() - t, 2)
            xs_p = [paddle.to_tensor(a, place=place) for a in inputs]
            xs_t = [torch.from_numpy(a).cuda() for a in inputs]
            yp = wrapper(*xs_p)
            torch.cuda.synchronize()
            check(f"{name} paddle nonzero_frac", lambda: float((yp.numpy() != 0).mean()))
            exe = kernel.adapter._get_executable()
            inner = getattr(kernel.torch_function, "__wrapped__", None)
            RESULTS["info"][f"{name}_launch_wrapped_by_torchproxy"] = inner is not None
            # issue 26, seventh round: tvm-ffi reads Paddle tensors through torchproxy's DLPack
            # C exchange table and sets the stream itself (no wrapper); absent in older trees
            from torchproxy.integrations import tvm_ffi as _tp
            RESULTS["info"]["exchange_api_sets_stream"] = bool(
                getattr(_tp, "exchange_api_sets_stream", lambda: False)())
            vp = [tvm_ffi.from_dlpack(t) for t in (*xs_p, yp)]
            yt = torch.empty(oshape, dtype=getattr(torch, odt), device="cuda")
            vt = [tvm_ffi.from_dlpack(t) for t in (*xs_t, yt)]
            check(f"{name} torch tensors through the facade-bound JITKernel",
                  lambda: (kernel(*xs_t, yt), torch.cuda.synchronize(), "ran")[-1])
            check(f"{name} paddle-vs-torch max_abs_diff",
                  lambda: float(np.abs(yp.numpy().astype("float32")
                                       - yt.cpu().numpy().astype("float32")).max()))
        except Exception as e:
            RESULTS["checks"][f"{name} setup"] = f"ERROR {type(e).__name__}: {e}"[:1500]
            RESULTS["checks"][f"{name} setup trace"] = traceback.format_exc()[-3000:]
            print(RESULTS["checks"][f"{name} setup trace"], flush=True)
            continue
        if first is None:
            first = (xs_p[0], xs_t[0])
        for rep in range(2):
            bench(g, "paddle", f"wrapper kernels.tilelang.{name}(...)",
                  lambda: wrapper(*xs_p))
            bench(g, "paddle", "JITKernel(inputs, out)  [proxy launch wrapper]",
                  lambda: kernel(*xs_p, yp))
            bench(g, "torch", "JITKernel(inputs, out)  [same facade-bound adapter]",
                  lambda: kernel(*xs_t, yt))
            if inner is not None:
                bench(g, "paddle", "adapter func without paddle_stream (launch.__wrapped__)",
                      lambda: inner(*xs_p, yp))
            bench(g, "paddle", "executable(inputs, out)  [bare tvm-ffi call]",
                  lambda: exe(*xs_p, yp))
            bench(g, "torch", "executable(inputs, out)  [bare tvm-ffi call]",
                  lambda: exe(*xs_t, yt))
            bench(g, "paddle", "executable on tvm_ffi.Tensor views made once",
                  lambda: exe(*vp))
            bench(g, "torch", "executable on tvm_ffi.Tensor views made once",
                  lambda: exe(*vt))
        micro(g, "paddle", f"{factory_name}(*args)  [JIT cache lookup]", lambda: factory(*args))
        micro(g, "paddle", "_first_gpu_tensor(args)  [launch wrapper's scan]",
              lambda: tp_tl._first_gpu_tensor((*xs_p, yp)))
    if first is not None:
        xp, xt = first
        print("== parts (per tensor / per lookup)", flush=True)
        common_paddle_parts("parts (tvm-ffi %s)" % tvm_ffi.__version__, xp, body, tvm_ffi, paddle)
        common_torch_parts("parts (tvm-ffi %s)" % tvm_ffi.__version__, xt, tvm_ffi, torch)


def part_tilelang_torch():
    import numpy as np
    import torch
    _SYNC[0] = torch.cuda.synchronize
    import tvm_ffi
    from kernels.tilelang import matmul_relu, rmsnorm, softmax
    _env_info(torch)
    info("tvm_ffi", lambda: tvm_ffi.__version__)
    info("TILELANG_CACHE_DIR", lambda: os.environ.get("TILELANG_CACHE_DIR"))
    info("torchproxy_loaded", lambda: "torchproxy" in sys.modules)
    mods = {"matmul_relu": matmul_relu, "rmsnorm": rmsnorm, "softmax": softmax}
    first = None
    for name, factory_name, args, inputs, (oshape, odt) in _tl_cases(np):
        m = mods[name]
        wrapper, factory = getattr(m, name), getattr(m, factory_name)
        g = f"tilelang {name} {'x'.join(map(str, args))}"
        print(f"== {g} (real torch process)", flush=True)
        try:
            t = time.time()
            kernel = factory(*args)
            RESULTS["info"][f"{name}_compile_or_load_s"] = round(time.time() - t, 2)
            xs_t = [torch.from_numpy(a).cuda() for a in inputs]
            yt = wrapper(*xs_t)
            exe = kernel.adapter._get_executable()
            vt = [tvm_ffi.from_dlpack(t) for t in (*xs_t, yt)]
        except Exception as e:
            RESULTS["checks"][f"{name} setup"] = f"ERROR {type(e).__name__}: {e}"[:1500]
            RESULTS["checks"][f"{name} setup trace"] = traceback.format_exc()[-3000:]
            print(RESULTS["checks"][f"{name} setup trace"], flush=True)
            continue
        if first is None:
            first = xs_t[0]
        for rep in range(2):
            bench(g, "torch*", f"wrapper kernels.tilelang.{name}(...)", lambda: wrapper(*xs_t))
            bench(g, "torch*", "JITKernel(inputs, out)", lambda: kernel(*xs_t, yt))
            bench(g, "torch*", "executable(inputs, out)  [bare tvm-ffi call]",
                  lambda: exe(*xs_t, yt))
            bench(g, "torch*", "executable on tvm_ffi.Tensor views made once", lambda: exe(*vt))
        micro(g, "torch*", f"{factory_name}(*args)  [JIT cache lookup]", lambda: factory(*args))
    if first is not None:
        print("== parts (per tensor / per lookup)", flush=True)
        micro("parts (real torch process)", "-", "empty lambda (loop overhead)", lambda: None)
        common_torch_parts("parts (real torch process)", first, tvm_ffi, torch)


# ------------------------------------------------------------------------------------------------
def _best(rows, group, side, label_start):
    """min over the (two) interleaved measurements of an item"""
    hits = [r for r in rows if r["group"] == group and r["side"] == side
            and r["label"].startswith(label_start) and "us" in r]
    if not hits:
        return None
    return min(hits, key=lambda r: r["us"])


def summary(d):
    data = {}
    for p in ("flashinfer", "tilelang", "tilelang-torch"):
        path = os.path.join(d, f"ffi_{p}.json")
        if os.path.exists(path):
            with open(path) as f:
                data[p] = json.load(f)
    lines = []
    info = data.get("tilelang", {}).get("info", {})
    if "torchproxy_file" in info:  # which tree the Paddle process ran
        lines.append(f"torchproxy: {info['torchproxy_file']}; tvm-ffi reads Paddle tensors "
                     f"through the exchange table: {info.get('exchange_api_sets_stream')}")

    def row(what, p, t, key="us"):
        if p is None or t is None:
            lines.append(f"| {what} | {'-' if p is None else round(p[key], 2)} | "
                         f"{'-' if t is None else round(t[key], 2)} | - |")
            return
        lines.append(f"| {what} | {p[key]:.2f} | {t[key]:.2f} | {p[key] / t[key]:.2f} |")

    lines.append("| call | Paddle us | torch us | ratio |")
    lines.append("| --- | ---: | ---: | ---: |")
    fi = data.get("flashinfer", {}).get("items", [])
    g = "flashinfer rmsnorm 99x1024 fp16"
    row("FlashInfer rmsnorm wrapper (alloc + call)", _best(fi, g, "paddle", "fi.norm.rmsnorm"),
        _best(fi, g, "torch", "torch.empty_like + fi.norm._rmsnorm"))
    row("FlashInfer _rmsnorm(out, x, w) (no alloc)", _best(fi, g, "paddle", "fi.norm._rmsnorm"),
        _best(fi, g, "torch", "fi.norm._rmsnorm"))
    row("FlashInfer bare tvm-ffi call", _best(fi, g, "paddle", "mod.rmsnorm(out"),
        _best(fi, g, "torch", "mod.rmsnorm(out"))
    row("FlashInfer tvm-ffi call on views", _best(fi, g, "paddle", "mod.rmsnorm on"),
        _best(fi, g, "torch", "mod.rmsnorm on"))
    tl = data.get("tilelang", {}).get("items", [])
    tt = data.get("tilelang-torch", {}).get("items", [])
    for name, args in (("matmul_relu", "1024x1024x1024"), ("rmsnorm", "4096x1024"),
                       ("softmax", "4096x1024")):
        g = f"tilelang {name} {args}"
        row(f"TileLang {name} wrapper (Paddle proc vs real-torch proc)",
            _best(tl, g, "paddle", "wrapper"), _best(tt, g, "torch*", "wrapper"))
        row(f"TileLang {name} JITKernel call (Paddle proc vs real-torch proc)",
            _best(tl, g, "paddle", "JITKernel"), _best(tt, g, "torch*", "JITKernel"))
        row(f"TileLang {name} JITKernel call (same process)",
            _best(tl, g, "paddle", "JITKernel"), _best(tl, g, "torch", "JITKernel"))
        row(f"TileLang {name} bare tvm-ffi executable (same process)",
            _best(tl, g, "paddle", "executable(inputs"), _best(tl, g, "torch", "executable(inputs"))
        row(f"TileLang {name} executable on views (same process)",
            _best(tl, g, "paddle", "executable on"), _best(tl, g, "torch", "executable on"))
    lines.append("")
    lines.append("host-only (loop time before the final synchronize):")
    lines.append("| call | Paddle host us | torch host us | ratio |")
    lines.append("| --- | ---: | ---: | ---: |")
    for name, args in (("matmul_relu", "1024x1024x1024"), ("rmsnorm", "4096x1024"),
                       ("softmax", "4096x1024")):
        g = f"tilelang {name} {args}"
        row(f"TileLang {name} wrapper (Paddle proc vs real-torch proc)",
            _best(tl, g, "paddle", "wrapper"), _best(tt, g, "torch*", "wrapper"), key="host_us")
        row(f"TileLang {name} JITKernel call (Paddle proc vs real-torch proc)",
            _best(tl, g, "paddle", "JITKernel"), _best(tt, g, "torch*", "JITKernel"), key="host_us")
    text = "\n".join(lines) + "\n"
    print(text)
    return text


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "summary":
        text = summary(sys.argv[2])
        if len(sys.argv) >= 4:
            with open(sys.argv[3], "w") as f:
                f.write(text)
        return 0
    part, out = sys.argv[1], sys.argv[2]
    _OUT[0] = out
    # last, not first: gpu/run_host_cost.sh runs the BASELINE tree by putting it on PYTHONPATH
    # from the AFTER tree's root; inserted first (rounds four to seven's first lease did), the
    # working directory's torchproxy shadowed it and both "trees" ran the AFTER code
    sys.path.append(os.getcwd())
    RESULTS["info"]["part"] = part
    import torchproxy
    RESULTS["info"]["torchproxy_file"] = torchproxy.__file__  # which tree this process runs
    t0 = time.time()
    try:
        {"flashinfer": part_flashinfer, "tilelang": part_tilelang,
         "tilelang-torch": part_tilelang_torch}[part]()
    except Exception as e:
        RESULTS["fatal"] = f"{type(e).__name__}: {e}"[:2000]
        RESULTS["trace"] = traceback.format_exc()[-4000:]
        print(RESULTS["trace"], flush=True)
    RESULTS["info"]["seconds"] = round(time.time() - t0, 1)
    _save()
    return 0 if "fatal" not in RESULTS else 1


if __name__ == "__main__":
    sys.exit(main())
