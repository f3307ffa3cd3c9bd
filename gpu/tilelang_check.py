"""GPU check: the unmodified TileLang kernels (kernels/tilelang) on Paddle GPU tensors through
torchproxy, timed next to the same kernels on real torch tensors, in one session.

Run on the GPU machine from the project root (< 5 minutes):

    PYTHONPATH=/tmp/site:. OUT=/some/dir python3 gpu/tilelang_check.py

Wheels it needs in /tmp/site besides paddlepaddle-gpu (cp312; see tests/tilelang/INSTALL.md):
tilelang==0.1.15 apache-tvm-ffi==0.1.12 z3-solver==4.15.4.0 ml-dtypes cloudpickle psutil tqdm
(installed --no-deps).  Upstream tilelang, because Paddle there is 2.6.2: tilelang-paddle 0.1.13
compares Paddle Places in its Cython launcher, which Paddle 2.6 cannot (both work on Paddle 3.3;
the script runs with whichever `tilelang` is on the path and records which).

Two subprocesses, one per side, each with its own TileLang kernel cache (so both compile):
- paddle: ``torchproxy.enable(scope={"tilelang", "kernels.tilelang", <body>})``; inputs are
  numpy arrays copied to the GPU with ``paddle.to_tensor(..., place=CUDAPlace(0))``, outputs
  come back with ``.numpy()``.  Everything between is torch-written code on the facade.
- torch: no torchproxy; the same kernels and the same torch-written body on real torch.
The body (BODY below) compiles each kernel, checks one call of the torch-style wrapper against
a numpy reference, times the compiled kernel with CUDA events on the current stream, times the
wrapper per call on the host, runs TileLang's own profiler, and repeats one kernel on a side
stream.  Paddle 2.6.2's own GPU kernels do nothing on sm_90 (see shared/gpu/README.md beside this checkout):
the body uses no framework GPU op (allocation and copies only), and the paddle side records
whether Paddle's own ops work on this GPU.

Writes $OUT/tilelang_check.json and $OUT/tilelang_check.log; exits 1 on any mismatch or failure.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIDE_TIMEOUT_S = 140

# torch-written: runs on the facade (paddle side) and on real torch (torch side) unchanged.
BODY = r'''
import time
import numpy as np
import torch
from kernels.tilelang import matmul_relu, rmsnorm, softmax


def bench_events(fn, iters=100, warmup=10):
    """ms per call, CUDA events on the current stream around `iters` back-to-back launches."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / iters


def bench_host(fn, iters=200):
    """us per call of the host wrapper (allocation + JIT cache lookup + launch), synced at end."""
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / iters * 1e6


def _rmsnorm_ref(x, w, eps=1e-6):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def _softmax_ref(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def cases(rng):
    M = N = K = 1024
    a = rng.standard_normal((M, K)).astype("float16")
    b = rng.standard_normal((K, N)).astype("float16")
    x = rng.standard_normal((4096, 1024)).astype("float32")
    w = rng.standard_normal(1024).astype("float32")
    s = (rng.standard_normal((4096, 1024)) * 4).astype("float32")
    return [
        ("matmul_relu", matmul_relu.matmul_relu, matmul_relu.matmul_relu_kernel, (M, N, K), [a, b],
         lambda a, b: np.maximum(a.astype("float32") @ b.astype("float32"), 0), 1e-2, 1e-2),
        ("rmsnorm", rmsnorm.rmsnorm, rmsnorm.rmsnorm_kernel, (4096, 1024), [x, w],
         _rmsnorm_ref, 1e-4, 1e-5),
        ("softmax", softmax.softmax, softmax.softmax_kernel, (4096, 1024), [s],
         _softmax_ref, 1e-4, 1e-6),
    ]


def run(to_device, to_host, log):
    out = {}
    rng = np.random.default_rng(0)
    for name, wrapper, factory, args, inputs, ref, rtol, atol in cases(rng):
        r = out[name] = {}
        try:
            t0 = time.perf_counter()
            kernel = factory(*args)                       # JIT compile (fresh cache)
            r["compile_s"] = round(time.perf_counter() - t0, 2)
            r["target"] = str(getattr(kernel, "target", None))
            xs = [to_device(v) for v in inputs]
            y = wrapper(*xs)
            torch.cuda.synchronize()
            got = to_host(y).astype("float32")
            want = ref(*inputs).astype("float32")
            err = np.abs(got - want)
            r["max_abs_err"] = float(err.max())
            r["ok"] = bool(np.allclose(got, want, rtol=rtol, atol=atol))
            r["nonzero_frac"] = float((got != 0).mean())
            y2 = torch.empty_like(y)
            r["kernel_ms"] = round(bench_events(lambda: kernel(*xs, y2)), 4)
            r["wrapper_us"] = round(bench_host(lambda: wrapper(*xs)), 1)
            try:
                r["tilelang_do_bench_ms"] = round(
                    float(kernel.get_profiler().do_bench(input_tensors=[*xs, y2])), 4)
            except Exception as e:  # reported, not fatal: the timing above is the comparison
                r["tilelang_do_bench_error"] = f"{type(e).__name__}: {e}"[:500]
        except Exception as e:
            import traceback
            r["ok"] = False
            r["error"] = f"{type(e).__name__}: {e}"[:2000]
            r["trace"] = traceback.format_exc()[-3000:]
        log(f"{name}: {r}")

    # one kernel on a side stream: the wrapper launches on the current stream
    r = out["softmax_side_stream"] = {}
    try:
        x_np = (np.random.default_rng(1).standard_normal((256, 512)) * 3).astype("float32")
        x = to_device(x_np)
        torch.cuda.synchronize()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            r["stream"] = hex(int(torch.cuda.current_stream().cuda_stream))
            y = softmax.softmax(x)
        s.synchronize()
        got = to_host(y)
        r["max_abs_err"] = float(np.abs(got - _softmax_ref(x_np)).max())
        r["ok"] = bool(np.allclose(got, _softmax_ref(x_np), rtol=1e-4, atol=1e-6))
    except Exception as e:
        import traceback
        r["ok"] = False
        r["error"] = f"{type(e).__name__}: {e}"[:2000]
        r["trace"] = traceback.format_exc()[-3000:]
    log(f"softmax_side_stream: {r}")
    return out
'''


def _load_body(module_name: str):
    mod = types.ModuleType(module_name)
    mod.__file__ = f"<{module_name}>"
    sys.modules[module_name] = mod
    exec(compile(BODY, mod.__file__, "exec"), mod.__dict__)
    return mod


def _tilelang_dist() -> str:
    import importlib.metadata
    import tilelang
    origin = os.path.realpath(tilelang.__file__)
    for name in ("tilelang-paddle", "tilelang"):
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        if os.path.realpath(str(dist.locate_file("tilelang/__init__.py"))) == origin:
            return f"{name} {dist.version}"
    return f"unknown ({origin})"


def _log(msg):
    print(msg, flush=True)


def side_paddle() -> dict:
    import torchproxy
    body_name = "tilelang_check_body"
    torchproxy.enable(scope={"tilelang", "kernels.tilelang", body_name})
    import numpy as np
    import paddle

    info = {"paddle": paddle.__version__, "devices": paddle.device.cuda.device_count()}
    place = paddle.CUDAPlace(0)
    # does Paddle's own GPU arithmetic work here? (2.6.2 on sm_90: no; reported, not hidden)
    probe = paddle.to_tensor(np.arange(4, dtype="float32"), place=place)
    info["paddle_gpu_ops_work"] = bool(np.array_equal((probe * 3).numpy(), np.arange(4) * 3))

    body = _load_body(body_name)
    from torchproxy.facade.modules import FacadeModule
    assert isinstance(body.torch, FacadeModule), "the body must see the facade"
    from kernels.tilelang import matmul_relu
    assert isinstance(matmul_relu.torch, FacadeModule), "the kernels must see the facade"
    info["tilelang"] = _tilelang_dist()

    # tvm-ffi's environment stream inside our launch wrapper is Paddle's current stream
    try:
        import tvm_ffi

        from torchproxy.integrations import tvm_ffi as tp_tvm_ffi
        with tp_tvm_ffi.paddle_stream(probe):
            env = tvm_ffi.get_raw_stream(tvm_ffi.device("cuda", 0))
        pd = paddle.device.current_stream(place)._as_parameter_.value or 0
        info["tvm_ffi_env_stream_is_paddle_current"] = int(env or 0) == int(pd)
    except Exception as e:
        info["tvm_ffi_env_stream_error"] = f"{type(e).__name__}: {e}"[:500]

    results = body.run(lambda a: paddle.to_tensor(a, place=place), lambda t: t.numpy(), _log)
    return {"info": info, "results": results}


def side_torch() -> dict:
    import torch
    body = _load_body("tilelang_check_body")
    info = {"torch": torch.__version__, "tilelang": _tilelang_dist(),
            "device": torch.cuda.get_device_name(0),
            "torch_has_dlpack_c_exchange_api": hasattr(torch.Tensor, "__dlpack_c_exchange_api__")}
    results = body.run(lambda a: torch.from_numpy(a).cuda(), lambda t: t.cpu().numpy(), _log)
    return {"info": info, "results": results}


def _child(side: str, out_json: str) -> int:
    sys.path.insert(0, ROOT)
    try:
        data = side_paddle() if side == "paddle" else side_torch()
    except Exception as e:
        data = {"fatal": f"{type(e).__name__}: {e}"[:2000], "trace": traceback.format_exc()[-4000:]}
    with open(out_json, "w") as f:
        json.dump(data, f, indent=1)
    return 0


def _run_side(side: str, workdir: str, log) -> dict:
    out_json = os.path.join(workdir, f"{side}.json")
    env = dict(os.environ)
    env["TILELANG_CACHE_DIR"] = os.path.join(workdir, f"tl_cache_{side}")  # both sides compile
    # tvm-ffi would otherwise JIT-build torch's DLPack addon when torch lacks the native one
    env.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--side", side, out_json],
                           cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=SIDE_TIMEOUT_S)
        log(f"--- {side} side ({time.time() - t0:.0f} s, rc={p.returncode}) ---\n"
            f"{p.stdout[-6000:]}\n{p.stderr[-4000:]}")
    except subprocess.TimeoutExpired as e:
        log(f"--- {side} side TIMED OUT after {SIDE_TIMEOUT_S} s ---\n{(e.stdout or '')[-4000:]}")
        return {"fatal": f"timed out after {SIDE_TIMEOUT_S} s"}
    if not os.path.exists(out_json):
        return {"fatal": f"no result (rc={p.returncode})", "stderr": p.stderr[-4000:]}
    with open(out_json) as f:
        return json.load(f)


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--side":
        return _child(sys.argv[2], sys.argv[3])
    out_dir = os.environ.get("OUT") or tempfile.mkdtemp(prefix="tilelang_check_")
    os.makedirs(out_dir, exist_ok=True)
    log_lines = []

    def log(msg):
        print(msg, flush=True)
        log_lines.append(msg)

    workdir = tempfile.mkdtemp(prefix="tilelang_check_work_")
    data = {"paddle": _run_side("paddle", workdir, log), "torch": _run_side("torch", workdir, log)}
    summary, ok = [], True
    for side in ("paddle", "torch"):
        if "fatal" in data[side]:
            ok = False
            log(f"{side}: FATAL {data[side]['fatal']}")
    pr = data["paddle"].get("results", {})
    tr = data["torch"].get("results", {})
    for name in ("matmul_relu", "rmsnorm", "softmax", "softmax_side_stream"):
        p, t = pr.get(name, {}), tr.get(name, {})
        row = {"kernel": name, "paddle_ok": p.get("ok"), "torch_ok": t.get("ok"),
               "paddle_max_abs_err": p.get("max_abs_err"), "torch_max_abs_err": t.get("max_abs_err"),
               "paddle_kernel_ms": p.get("kernel_ms"), "torch_kernel_ms": t.get("kernel_ms"),
               "paddle_wrapper_us": p.get("wrapper_us"), "torch_wrapper_us": t.get("wrapper_us"),
               "paddle_do_bench_ms": p.get("tilelang_do_bench_ms"),
               "torch_do_bench_ms": t.get("tilelang_do_bench_ms"),
               "paddle_compile_s": p.get("compile_s"), "torch_compile_s": t.get("compile_s")}
        if p.get("kernel_ms") and t.get("kernel_ms"):
            row["kernel_ratio_paddle_over_torch"] = round(p["kernel_ms"] / t["kernel_ms"], 3)
        if p.get("wrapper_us") and t.get("wrapper_us"):
            row["wrapper_ratio_paddle_over_torch"] = round(p["wrapper_us"] / t["wrapper_us"], 3)
        summary.append(row)
        if p.get("ok") is not True or t.get("ok") is not True:
            ok = False
    data["summary"] = summary
    data["ok"] = ok
    log("\nkernel              paddle_ok torch_ok  paddle_ms  torch_ms  ratio   paddle_us torch_us")
    for r in summary:
        log(f"{r['kernel']:<20}{str(r['paddle_ok']):<10}{str(r['torch_ok']):<10}"
            f"{r['paddle_kernel_ms']!s:<11}{r['torch_kernel_ms']!s:<10}"
            f"{r.get('kernel_ratio_paddle_over_torch')!s:<8}"
            f"{r['paddle_wrapper_us']!s:<10}{r['torch_wrapper_us']!s}")
    log(f"paddle info: {data['paddle'].get('info')}")
    log(f"torch info: {data['torch'].get('info')}")
    log("OK" if ok else "FAILED")
    with open(os.path.join(out_dir, "tilelang_check.json"), "w") as f:
        json.dump(data, f, indent=1)
    with open(os.path.join(out_dir, "tilelang_check.log"), "w") as f:
        f.write("\n".join(log_lines) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
