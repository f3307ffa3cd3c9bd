"""FlashInfer on Paddle GPU tensors through torchproxy, checked against numpy, timed next to torch.

    PYTHONPATH=/tmp/site:<repo> OUT=/tmp/out python gpu/flashinfer_check.py

Wheels (cp312) beside paddlepaddle-gpu==2.6.2 in /tmp/site (torch 2.11's environment already
has filelock, jinja2, markupsafe, typing-extensions, and cuBLAS/cuRAND headers under
site-packages/nvidia/cu13/include, which configure_jit finds):
    EXTRA_WHEELS="flashinfer-python-paddle==0.4.1.1 apache-tvm-ffi==0.1.14.post1 requests
                  urllib3 charset-normalizer idna certifi packaging"
JIT builds go to /tmp/flashinfer-jit (arch from the GPU: sm_90a on H100/H200); the first run
compiles two modules with nvcc (~1-3 min), later runs reuse them.

Parts (each isolated: a failure is recorded and the next part runs):
  import    torchproxy.enable(scope={"flashinfer"}); import flashinfer (the Paddle port)
  build     JIT-build FlashInfer's norm module with nvcc for this GPU (cache under /tmp)
  rmsnorm   flashinfer.norm.rmsnorm(x, w, enable_pdl=False) on Paddle fp16 tensors, several
            shapes incl. 99 x 1024 and a 3-D (QK-norm) one, vs a numpy reference
  fused_add_rmsnorm  in place on two Paddle tensors (input and residual both mutated)
  silu_and_mul       another JIT module; output shape computed by the wrapper (torch.Size math)
  stream    issue 26: FlashInfer's kernels on Paddle's current stream.  Under
            paddle.device.cuda.stream_guard(s) (a new Paddle stream): a tvm-ffi probe function
            called through the wrapper sees s as tvm-ffi's environment stream; then, on s, a
            300 ms host sleep (cuLaunchHostFunc with libc usleep: no Python, no GIL) followed
            by cuMemsetD16Async setting the input to 1.0, then flashinfer.norm.rmsnorm(x, w):
            on s the kernel reads the 1.0s (output == w); on another stream it would run
            before the memset and read the random input.  The unwrapped module function is
            run the same way and reported (it is the defect: tvm-ffi's stream stays 0; when s
            is a blocking stream the legacy stream 0 waits for it, so only a non-blocking s
            tells them apart: the flags are reported; where tvm-ffi reads Paddle tensors
            through torchproxy's DLPack C exchange table (tvm_ffi.exchange_api_sets_stream)
            the defect is gone: then a bare tvm-ffi probe must see s and the unwrapped
            module function must read the 1.0s too)
  timing    per-call host time: flashinfer.norm.rmsnorm on Paddle tensors (the proxy path) vs
            the same compiled kernel called with real torch tensors (out-of-scope code keeps
            real torch), plus the bare kernel call on Paddle tensors
Inputs come from numpy and outputs go back to numpy: Paddle 2.6.2's own GPU kernels do nothing
on sm_90, so no Paddle GPU op is used for data (allocation and copies only).
Writes $OUT/flashinfer_check.json and $OUT/flashinfer_check.log; exits 1 on any mismatch or
failed part.
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback

import numpy as np

OUT = os.environ.get("OUT") or "/tmp/flashinfer_check_out"
os.makedirs(OUT, exist_ok=True)
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

RESULTS: dict = {"parts": {}}
_log = open(os.path.join(OUT, "flashinfer_check.log"), "w")


def log(*a):
    msg = " ".join(str(x) for x in a)
    print(msg, flush=True)
    _log.write(msg + "\n")
    _log.flush()


def write_json():
    # after every part: a hard crash (a signal, Paddle aborting) still leaves what came before
    with open(os.path.join(OUT, "flashinfer_check.json"), "w") as f:
        json.dump(RESULTS, f, indent=1, default=str)


def part(name):
    def deco(fn):
        def run(*a, **k):
            t0 = time.time()
            log(f"== {name}")
            try:
                res = fn(*a, **k) or {}
                ok = res.pop("_ok", True)
                RESULTS["parts"][name] = {"ok": ok, "seconds": round(time.time() - t0, 2), **res}
                log(f"   {name}: {'OK' if ok else 'MISMATCH'} ({time.time() - t0:.1f}s)")
                return res
            except Exception as e:
                tb = traceback.format_exc()
                RESULTS["parts"][name] = {"ok": False, "error": f"{type(e).__name__}: {e}"[:2000],
                                          "traceback": tb[-4000:],
                                          "seconds": round(time.time() - t0, 2)}
                log(f"   {name}: FAILED {type(e).__name__}: {str(e)[:1500]}\n{tb[-2500:]}")
                return None
            finally:
                write_json()
        return run
    return deco


# -- environment: before paddle / flashinfer are imported ------------------------------------
def setup_env():
    import torch  # real torch: this script is not in scope
    cap = torch.cuda.get_device_capability(0)
    arch = f"{cap[0]}.{cap[1]}" + ("a" if cap[0] >= 9 else "")
    os.environ.setdefault("TVM_FFI_CACHE_DIR", "/tmp/tvm-ffi-cache")
    if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        # tvm-ffi would JIT-compile a torch extension at import (minutes); the torch path then
        # uses __dlpack__, which the timing note says
        os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
    os.environ.setdefault("MAX_JOBS", str(min(8, os.cpu_count() or 1)))
    from torchproxy.integrations import flashinfer as fi_int
    cfg = fi_int.configure_jit(arch=arch, workspace="/tmp/flashinfer-jit",
                               link_dir="/tmp/flashinfer-links")
    RESULTS["env"] = {"torch": torch.__version__, "torch_cuda": torch.version.cuda,
                      "gpu": torch.cuda.get_device_name(0), "capability": list(cap),
                      "arch": arch, "jit": cfg, "python": sys.version.split()[0],
                      "torch_c_dlpack_exchange": hasattr(torch.Tensor, "__dlpack_c_exchange_api__")}
    log("env:", json.dumps(RESULTS["env"], indent=1))


# -- helpers -----------------------------------------------------------------------------------
def to_pd(a):
    import paddle
    return paddle.to_tensor(a, place=paddle.CUDAPlace(0))


def sync():
    import paddle
    paddle.device.cuda.synchronize()


def rms_ref(x, w, eps=1e-6):
    x32 = x.astype(np.float32)
    r = x32 / np.sqrt(np.mean(x32 * x32, axis=-1, keepdims=True) + eps)
    return (r * w.astype(np.float32)).astype(np.float16)


def compare(name, got, ref, rtol=1e-3, atol=1e-3):
    got32, ref32 = got.astype(np.float32), ref.astype(np.float32)
    err = np.abs(got32 - ref32)
    ok = bool(np.all(err <= atol + rtol * np.abs(ref32))) and got.shape == ref.shape
    info = {"shape": list(ref.shape), "max_abs_err": float(err.max()) if err.size else 0.0,
            "ok": ok, "all_zero_output": bool(not np.any(got32))}
    log(f"   {name} {list(ref.shape)}: max_abs_err={info['max_abs_err']:.2e} "
        f"{'ok' if ok else 'MISMATCH'}" + ("  (output is all zeros)" if info["all_zero_output"] else ""))
    return info


# -- parts -------------------------------------------------------------------------------------
STATE: dict = {}


@part("import")
def p_import():
    import paddle
    if not paddle.is_compiled_with_cuda() or paddle.device.cuda.device_count() == 0:
        # Paddle aborts the process on CUDAPlace(0) without a GPU build/device: stop here
        raise RuntimeError(f"Paddle {paddle.__version__} has no CUDA device here "
                           f"(compiled with CUDA: {paddle.is_compiled_with_cuda()})")
    import torchproxy
    torchproxy.enable(scope={"flashinfer"})
    t = time.time()
    import flashinfer
    import tvm_ffi
    STATE["flashinfer"] = flashinfer
    return {"paddle": paddle.__version__, "flashinfer": flashinfer.__version__,
            "tvm_ffi": tvm_ffi.__version__, "import_seconds": round(time.time() - t, 2),
            "facade_users": len(torchproxy.status()["facade_users"])}


@part("build")
def p_build():
    fi = STATE["flashinfer"]
    t = time.time()
    mod = fi.norm.get_norm_module()  # JIT build (nvcc) + load
    STATE["norm_mod"] = mod
    spec_path = str(fi.jit.norm.gen_norm_module().get_library_path())
    return {"build_and_load_seconds": round(time.time() - t, 1), "so": spec_path}


@part("rmsnorm")
def p_rmsnorm():
    fi = STATE["flashinfer"]
    rng = np.random.default_rng(0)
    checks = []
    for shape in [(1, 128), (7, 512), (99, 1024), (128, 4096), (3, 8, 128)]:
        x = rng.standard_normal(shape).astype(np.float16)
        w = (rng.standard_normal(shape[-1:]) * 0.5 + 1).astype(np.float16)
        y = fi.norm.rmsnorm(to_pd(x), to_pd(w), enable_pdl=False)
        sync()
        checks.append(compare("rmsnorm", y.numpy(), rms_ref(x, w)))
        checks[-1]["out_type"] = type(y).__module__ + "." + type(y).__name__
    return {"_ok": all(c["ok"] for c in checks), "checks": checks}


@part("fused_add_rmsnorm")
def p_fused_add():
    fi = STATE["flashinfer"]
    rng = np.random.default_rng(1)
    checks = []
    for shape in [(99, 1024), (16, 4096)]:
        x = rng.standard_normal(shape).astype(np.float16)
        r = rng.standard_normal(shape).astype(np.float16)
        w = (rng.standard_normal(shape[-1:]) * 0.5 + 1).astype(np.float16)
        xp, rp = to_pd(x), to_pd(r)
        ret = fi.norm.fused_add_rmsnorm(xp, rp, to_pd(w), eps=1e-6, enable_pdl=False)
        sync()
        s32 = x.astype(np.float32) + r.astype(np.float32)
        checks.append(compare("fused_add_rmsnorm.residual", rp.numpy(), s32.astype(np.float16)))
        checks.append(compare("fused_add_rmsnorm.input", xp.numpy(), rms_ref(s32, w)))
        checks[-1]["returns"] = repr(ret)
    return {"_ok": all(c["ok"] for c in checks), "checks": checks}


@part("silu_and_mul")
def p_silu():
    fi = STATE["flashinfer"]
    rng = np.random.default_rng(2)
    checks = []
    for shape in [(99, 2048), (4, 256)]:
        x = rng.standard_normal(shape).astype(np.float16)
        y = fi.activation.silu_and_mul(to_pd(x), enable_pdl=False)
        sync()
        d = shape[-1] // 2
        a, b = x[:, :d].astype(np.float32), x[:, d:].astype(np.float32)
        ref = (a / (1 + np.exp(-a)) * b).astype(np.float16)
        checks.append(compare("silu_and_mul", y.numpy(), ref))
    return {"_ok": all(c["ok"] for c in checks), "checks": checks}


@part("stream")
def p_stream():
    import ctypes

    import paddle
    import tvm_ffi

    from torchproxy import paddle_shims
    # the libcuda bindings live in paddle_shims_cuda since paddle_shims was split (10bb556)
    from torchproxy import paddle_shims_cuda as cuda_shims
    from torchproxy.integrations import tvm_ffi as tp
    fi, mod = STATE["flashinfer"], STATE["norm_mod"]
    raw = getattr(mod, "module", mod)  # the tvm-ffi module under torchproxy's wrapper
    lib, libc = cuda_shims._driver(), ctypes.CDLL(None)
    lib.cuLaunchHostFunc.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.cuMemsetD16Async.argtypes = [ctypes.c_uint64, ctypes.c_ushort, ctypes.c_size_t,
                                     ctypes.c_void_p]
    usleep = ctypes.cast(libc.usleep, ctypes.c_void_p)
    s = paddle.device.cuda.Stream()
    handle = int(s.cuda_stream)
    flags = ctypes.c_uint()
    cuda_shims._check(lib, lib.cuStreamGetFlags(ctypes.c_void_p(handle), ctypes.byref(flags)),
                        "cuStreamGetFlags")
    res = {"wrapped_module": type(mod).__name__, "paddle_stream": hex(handle),
           "stream_non_blocking": bool(flags.value & 1)}

    seen = []
    get = tvm_ffi.core._env_get_current_stream
    probe = tp.on_paddle_stream(tvm_ffi.convert(lambda *a: seen.append(get(2, 0)) or 0))
    rng = np.random.default_rng(4)
    shape = (256, 4096)
    w = (rng.standard_normal(shape[-1:]) * 0.5 + 1).astype(np.float16)
    wp = to_pd(w)
    with paddle.device.cuda.stream_guard(s):
        probe(wp)
        res["paddle_current_in_guard"] = hex(paddle_shims.current_stream_handle(0))
    res["probe_saw"] = [hex(v) for v in seen]
    res["env_stream_after"] = hex(get(2, 0))
    probe_ok = seen == [handle] and res["paddle_current_in_guard"] == hex(handle)
    # the same probe without torchproxy's wrapper: where tvm-ffi reads Paddle tensors through
    # torchproxy's DLPack C exchange table (Paddle 2.6, issue 26 seventh round), tvm-ffi itself
    # sets Paddle's current stream for the call (older trees: it stays 0, reported only)
    exchange = bool(getattr(tp, "exchange_api_sets_stream", lambda: False)())
    res["exchange_api_sets_stream"] = exchange
    seen_bare = []
    bare = tvm_ffi.convert(lambda *a: seen_bare.append(get(2, 0)) or 0)
    with paddle.device.cuda.stream_guard(s):
        bare(wp)
    res["bare_probe_saw"] = [hex(v) for v in seen_bare]
    res["env_stream_after_bare"] = hex(get(2, 0))
    if exchange:
        probe_ok = (probe_ok and seen_bare == [handle]
                    and res["env_stream_after_bare"] == res["env_stream_after"])  # restored

    def busy_then_ones(xp):
        # on s: sleep 300 ms, then x = 1.0 (fp16 0x3C00) everywhere
        cuda_shims._check(lib, lib.cuLaunchHostFunc(ctypes.c_void_p(handle), usleep,
                                                      ctypes.c_void_p(300000)),
                            "cuLaunchHostFunc")
        cuda_shims._check(lib, lib.cuMemsetD16Async(xp.data_ptr(), 0x3C00, int(np.prod(shape)),
                                                      ctypes.c_void_p(handle)),
                            "cuMemsetD16Async")

    ones_ref = rms_ref(np.ones(shape, np.float16), w)
    runs = {}
    for name in ("flashinfer.norm.rmsnorm (wrapped)", "module function unwrapped (defect)"):
        x = rng.standard_normal(shape).astype(np.float16)
        xp = to_pd(x)
        sync()
        with paddle.device.cuda.stream_guard(s):
            busy_then_ones(xp)
            if name.startswith("flashinfer"):
                y = fi.norm.rmsnorm(xp, wp, enable_pdl=False)
            else:
                y = paddle.empty(list(shape), dtype=paddle.float16)
                raw.rmsnorm(y, xp, wp, 1e-6, False)
        cuda_shims._check(lib, lib.cuCtxSynchronize(), "cuCtxSynchronize")
        sync()
        info = compare(f"stream: {name}", y.numpy(), ones_ref)
        info["read_the_random_input"] = bool(np.allclose(
            y.numpy().astype(np.float32), rms_ref(x, w).astype(np.float32), atol=1e-2))
        runs[name] = info
    res["runs"] = runs
    unwrapped_ok = runs["module function unwrapped (defect)"]["ok"]
    # with the exchange table the module function alone runs on Paddle's stream too: the
    # defect is gone, and the check requires it
    res["_ok"] = (probe_ok and runs["flashinfer.norm.rmsnorm (wrapped)"]["ok"]
                  and (unwrapped_ok or not exchange))
    res["discriminating"] = res["stream_non_blocking"] and (exchange or not unwrapped_ok)
    log("   stream", json.dumps(res, default=str))
    return res


def _time(fn, sync_fn, iters=200, warmup=20):
    for _ in range(warmup):
        fn()
    sync_fn()
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    sync_fn()
    return (time.perf_counter() - t) / iters * 1e6


@part("timing")
def p_timing():
    import torch
    fi, mod = STATE["flashinfer"], STATE["norm_mod"]
    tmod = getattr(mod, "module", mod)  # torch rows: the tvm-ffi module itself, no wrapper
    rng = np.random.default_rng(3)
    rows = []
    ok = True
    for shape in [(99, 1024), (128, 4096)]:
        x = rng.standard_normal(shape).astype(np.float16)
        w = (rng.standard_normal(shape[-1:]) * 0.5 + 1).astype(np.float16)
        xp, wp = to_pd(x), to_pd(w)
        outp = fi.norm.rmsnorm(xp, wp, enable_pdl=False)
        xt = torch.from_numpy(x).cuda()
        wt = torch.from_numpy(w).cuda()
        outt = torch.empty_like(xt)
        tmod.rmsnorm(outt, xt, wt, 1e-6, False)
        torch.cuda.synchronize()
        ok &= compare("torch-tensor kernel", outt.cpu().numpy(), rms_ref(x, w))["ok"]

        def both_sync():
            torch.cuda.synchronize()
            sync()

        def torch_e2e():
            o = torch.empty_like(xt)
            tmod.rmsnorm(o, xt, wt, 1e-6, False)
            return o

        row = {
            "shape": list(shape),
            "proxy_flashinfer_rmsnorm_us": _time(lambda: fi.norm.rmsnorm(xp, wp, enable_pdl=False), both_sync),
            "proxy_kernel_only_us": _time(lambda: mod.rmsnorm(outp, xp, wp, 1e-6, False), both_sync),
            "torch_empty_like_plus_kernel_us": _time(torch_e2e, both_sync),
            "torch_kernel_only_us": _time(lambda: tmod.rmsnorm(outt, xt, wt, 1e-6, False), both_sync),
        }
        row["ratio_proxy_vs_torch"] = row["proxy_flashinfer_rmsnorm_us"] / row["torch_empty_like_plus_kernel_us"]
        log("   timing", json.dumps({k: (round(v, 2) if isinstance(v, float) else v)
                                      for k, v in row.items()}))
        rows.append(row)
    return {"_ok": ok, "rows": rows,
            "note": "host time per call incl. launch, 200 calls after 20 warm-up, one device "
                    "sync at the end; the torch side calls the same compiled kernel directly "
                    "(flashinfer's Python wrapper is bound to the facade in this process)"}


def main() -> int:
    t0 = time.time()
    try:
        setup_env()
    except Exception as e:
        RESULTS["env_error"] = f"{type(e).__name__}: {e}"
        log("env setup failed:", traceback.format_exc())
    p_import()
    if "flashinfer" in STATE:
        p_build()
        p_rmsnorm()
        p_fused_add()
        p_silu()
        if "norm_mod" in STATE:
            p_stream()
            p_timing()
    RESULTS["seconds"] = round(time.time() - t0, 1)
    expected = ["import", "build", "rmsnorm", "fused_add_rmsnorm", "silu_and_mul", "stream",
                "timing"]
    RESULTS["ok"] = all(RESULTS["parts"].get(p, {}).get("ok") for p in expected)
    write_json()
    log(f"== overall: {'OK' if RESULTS['ok'] else 'FAILED'} in {RESULTS['seconds']}s; "
        + ", ".join(f"{k}={'ok' if v.get('ok') else 'FAIL'}" for k, v in RESULTS["parts"].items()))
    return 0 if RESULTS["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
