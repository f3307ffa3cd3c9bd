"""Host cost of handing Paddle tensors to kernel launchers (issue 26), in one process: the
pieces Triton's argument specialiser and tvm-ffi pay per tensor, torch vs Paddle as it was
(the old expression, measured here too) vs Paddle with torchproxy's fast paths.

    python bench/host_cost.py            # CPU: every row that needs no GPU
    python bench/host_cost.py --gpu      # also the GPU rows (Paddle GPU build, torch CUDA)

Rows (us per call, best of R interleaved rounds of N calls, empty loop subtracted):
- ``hash(dtype)``: Triton's specialiser hashes every tensor argument's dtype per launch;
  Paddle's dtype hash before (pybind's __hash__) and after enable() (dtypes.py: __int__);
- ``specialise 1 tensor``: Triton's ``native_specialize_impl`` on one tensor (3.6: the dtype,
  its hash, ``data_ptr()``), torch vs Paddle (proxy off, then on) vs a minimal object with a
  torch dtype (the floor);
- ``tvm-ffi from_dlpack``: one tensor into tvm-ffi, torch vs Paddle's ``to_dlpack`` (old) vs
  ``integrations.tvm_ffi.to_tvm_ffi`` (new); Paddle 2.6 only differs;
- GPU: the stream lookups (Paddle's per call, and the per-switch cache the tvm-ffi launches
  use), and the TileLang-style launch wrapper (old context managers vs
  ``call_on_paddle_stream``) and FlashInfer's (``on_paddle_stream``) around a do-nothing
  tvm-ffi function;
- the softmax / add wrappers' host calls one by one, facade vs the same work in Paddle vs
  torch (``empty`` / ``empty_like`` / ``stride`` / ``device`` ... fast paths);
- the kernels/triton wrappers themselves (softmax, matmul_relu, layernorm, rmsnorm through its
  ``autograd.Function``, add) with their launches replaced by a no-op, facade vs the same work
  in Paddle vs torch, and the facade calls they make that the rows above do not
  (``Function.apply``, ``ctx.save_for_backward``, dtype checks, ``x.device.type``, ...).
Ratios are to torch's row in the same run.  Nothing here is a kernel launch: see
bench/triton_launch.py for those.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# TORCHPROXY_TREE: the torchproxy of another checkout (a baseline tree), same script
for _p in (ROOT, os.environ.get("TORCHPROXY_TREE") or ROOT):
    if _p not in sys.path:
        sys.path.insert(0, _p)


def _loop_us(fn, n):
    t0 = time.perf_counter()
    fn(n)
    return (time.perf_counter() - t0) / n * 1e6


def _make(stmt, env):
    src = f"def _f(_n):\n    for _ in range(_n):\n        {stmt}\n"
    ns = dict(env)
    exec(src, ns)
    return ns["_f"]


def _make_in(stmt, env, module, setup=""):
    """The loop compiled in a namespace whose ``__name__`` is ``module``: in torchproxy's scope
    when the scope names it (the facade then sees a scoped caller, as a kernel wrapper is)."""
    ns = {"__name__": module, **env}
    exec(setup, ns)
    exec(f"def _f(_n):\n    for _ in range(_n):\n        {stmt}\n", ns)
    return ns["_f"]


def measure(rows, n=20000, rounds=9):
    """rows: {label: (stmt, env)} or {label: (stmt, env, module, setup)} -> {label: best us per
    call}, rounds interleaved."""
    fns = {k: (_make_in(*v) if len(v) == 4 else _make(*v)) for k, v in rows.items()}
    empty = _make("pass", {})
    best = {k: float("inf") for k in rows}
    e = float("inf")
    for _ in range(rounds):
        e = min(e, _loop_us(empty, n))
        for k, f in fns.items():
            best[k] = min(best[k], _loop_us(f, n))
    return {k: v - e for k, v in best.items()}


def table(title, res, base_key):
    lines = [f"\n{title}", f"{'':58s} {'us':>8s} {'/torch':>8s}"]
    base = res.get(base_key)
    for k, v in res.items():
        r = f"{v / base:8.2f}" if base and base > 0 else f"{'':8s}"
        lines.append(f"{k:58s} {v:8.3f} {r}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("-n", type=int, default=20000)
    args = ap.parse_args(argv)
    import numpy as np
    import paddle
    import torch

    import torchproxy
    from torchproxy.facade import dtypes as tp_dtypes

    gpu = args.gpu
    place = paddle.CUDAPlace(0) if gpu else paddle.CPUPlace()
    a = np.arange(4096, dtype="float32")
    xp = paddle.to_tensor(a, place=place)
    xt = torch.from_numpy(a).cuda() if gpu else torch.from_numpy(a)
    pd_dt, t_dt = paddle.float32, torch.float32
    out = [f"torchproxy from {os.path.dirname(os.path.dirname(torchproxy.__file__))}",
           f"Paddle {paddle.__version__}, torch {torch.__version__}, Python "
           f"{sys.version.split()[0]}, {platform.machine()}, "
           f"{'GPU ' + torch.cuda.get_device_name(0) if gpu else 'CPU tensors'}; "
           f"us per call, best of 9 interleaved rounds of {args.n}"]
    N = args.n

    # -- dtype hash and x.dtype: before enable (Paddle as it is), after enable ---------------
    before = measure({"hash(torch.float32)": ("h(d)", {"h": hash, "d": t_dt}),
                      "hash(paddle.float32), Paddle's own": ("h(d)", {"h": hash, "d": pd_dt}),
                      "hash(x.dtype) Paddle, Paddle's own": ("h(x.dtype)", {"h": hash, "x": xp}),
                      "x.dtype torch": ("x.dtype", {"x": xt}),
                      "x.dtype Paddle": ("x.dtype", {"x": xp})}, N)
    torchproxy.enable(scope={"bench_host_cost_scoped", "triton"})
    after = measure({"hash(paddle.float32), enabled": ("h(d)", {"h": hash, "d": pd_dt}),
                     "hash(x.dtype) Paddle, enabled": ("h(x.dtype)", {"h": hash, "x": xp})}, N)
    fast = bool(getattr(tp_dtypes, "_HASH_SAVED", None))
    out.append(table(f"dtype (fast hash installed: {fast})", {**before, **after},
                     "hash(torch.float32)"))
    torchproxy.disable()

    # -- Triton's specialiser on one tensor ---------------------------------------------------
    try:
        from triton._C.libtriton import native_specialize_impl as S
        from triton.backends.compiler import BaseBackend
    except ImportError as e:
        out.append(f"\nTriton specialiser: not measured ({e})")
    else:
        class Floor:
            __slots__ = ("_p", "dtype")

            def __init__(self, p, d):
                self._p, self.dtype = p, d

            def data_ptr(self):
                return self._p

        floor = Floor(xp.data_ptr(), t_dt)
        env = {"S": S, "B": BaseBackend}
        rows0 = {"specialise 1 tensor: torch": ("S(B, x, False, True, True)", {**env, "x": xt}),
                 "specialise 1 tensor: floor (data_ptr + torch dtype)":
                     ("S(B, x, False, True, True)", {**env, "x": floor}),
                 "specialise 1 tensor: Paddle, proxy off":
                     ("S(B, x, False, True, True)", {**env, "x": xp})}
        r0 = measure(rows0, N)
        torchproxy.enable(scope={"bench_host_cost_scoped", "triton"})
        r1 = measure({"specialise 1 tensor: Paddle, enabled":
                      ("S(B, x, False, True, True)", {**env, "x": xp})}, N)
        out.append(table("Triton native_specialize_impl (one tensor argument)", {**r0, **r1},
                         "specialise 1 tensor: torch"))
        torchproxy.disable()

    # -- tvm-ffi: one tensor in ----------------------------------------------------------------
    try:
        import tvm_ffi
    except ImportError as e:
        out.append(f"\ntvm-ffi: not measured ({e})")
        tvm_ffi = None
    if tvm_ffi is not None:
        from torchproxy.integrations import tvm_ffi as tp_tvm
        # issue 26, seventh round: the DLPack C exchange table (absent in older trees).  Before
        # any Paddle tensor reaches tvm-ffi: tvm-ffi keeps, per type, the way it read the first
        exchange = getattr(tp_tvm, "exchange_api_sets_stream", lambda: False)()
        out.append(f"\ntvm-ffi reads Paddle tensors through torchproxy's DLPack C exchange "
                   f"table: {exchange}")
        to_dl = paddle.utils.dlpack.to_dlpack
        env = {"F": tvm_ffi.from_dlpack, "to_dl": to_dl, "new": tp_tvm.to_tvm_ffi}
        nop = tvm_ffi.get_global_func("testing.nop")  # takes any arguments, does nothing
        torchproxy.enable(scope={"bench_host_cost_scoped"})
        rows = {"from_dlpack(torch tensor)": ("F(x)", {**env, "x": xt}),
                "Paddle: from_dlpack(paddle.utils.dlpack.to_dlpack(x)) (old)":
                    ("F(to_dl(x))", {**env, "x": xp}),
                "Paddle: from_dlpack(x) (x.__dlpack__; the facade's on 2.6)":
                    ("F(x)", {**env, "x": xp}),
                "Paddle: integrations.tvm_ffi.to_tvm_ffi(x) (new)": ("new(x)", {**env, "x": xp}),
                "tvm-ffi no-op(x), Paddle x": ("nop(x)", {"nop": nop, "x": xp}),
                "tvm-ffi no-op(x), torch x": ("nop(x)", {"nop": nop, "x": xt})}
        if hasattr(tp_tvm, "on_paddle_stream"):  # absent in trees before issue 26's fix
            rows["on_paddle_stream(no-op)(x), Paddle x (a CPU x: no stream set)"] = \
                ("w(x)", {"w": tp_tvm.on_paddle_stream(nop), "x": xp})
        out.append(table("tvm-ffi: one tensor handed over (proxy enabled)",
                         measure(rows, N // 4), "from_dlpack(torch tensor)"))
        if gpu:
            try:
                out.append(_gpu_stream_rows(tvm_ffi, tp_tvm, xp, xt, N))
            except Exception:  # noqa: BLE001 - the rows above still count; say what failed
                import traceback
                out.append("\nGPU stream rows failed:\n" + traceback.format_exc())
        torchproxy.disable()
    out.append(_wrapper_rows(xt, gpu, N))
    out.append(_kernel_wrapper_rows(gpu, N))
    text = "\n".join(out)
    print(text)
    return text


SCOPED = "bench_host_cost_scoped"


def _wrapper_rows(xt, gpu, N):
    """The host calls of kernels/triton/softmax.py's wrapper on a (256, 1000) float32 input,
    one by one: through the facade (from a module in scope, as the wrapper calls them), the
    same work written in Paddle, and real torch.  Allocation is where the wrappers' extra
    time goes (issue 26's wrapper rows)."""
    import paddle
    import torch

    import torchproxy
    torchproxy.enable(scope={SCOPED, "triton"})
    try:
        xp = paddle.to_tensor(xt.cpu().numpy().reshape(-1)[:1].repeat(256000).reshape(256, 1000),
                              place=paddle.CUDAPlace(0) if gpu else paddle.CPUPlace())
        xtt = torch.empty((256, 1000), device=xt.device)
        fac = {"x": xp}
        setup = "import torch\nd = x.device\ndt = x.dtype\n"
        cases = [  # label, torch-style statement, the same in Paddle
            ("x.dim()", "x.dim()", "x.ndim"),
            ("n_rows, n_cols = x.shape", "a, b = x.shape", "a, b = x.shape"),
            ("x.size()", "x.size()", "x.shape"),
            # Paddle's x.size / x.numel() build a tensor or go through Python: its cheapest
            # element count is the shape's product
            ("x.numel()", "x.numel()", "a, b = x.shape; n = a * b"),
            ("x.dtype", "x.dtype", "x.dtype"),
            ("x.device", "x.device", "x.place"),
            ("x.stride(0)", "x.stride(0)", "x.strides[0]"),
            ("x.stride(-1)", "x.stride(-1)", "x.strides[-1]"),
            ("x.stride()", "x.stride()", "x.strides"),
            ("x.is_contiguous()", "x.is_contiguous()", "x.is_contiguous()"),
            ("x.data_ptr()", "x.data_ptr()", "x.data_ptr()"),
            ("torch.empty((256, 1000), device=x.device, dtype=x.dtype)",
             "torch.empty((256, 1000), device=d, dtype=dt)", "paddle.empty([256, 1000], dt)"),
            # sizes spread out: TileLang's adapter allocates every output so
            ("torch.empty(256, 1000, device=x.device, dtype=x.dtype)",
             "torch.empty(256, 1000, device=d, dtype=dt)", "paddle.empty([256, 1000], dt)"),
            ("torch.empty(x.shape, device=x.device, dtype=x.dtype)",
             "torch.empty(x.shape, device=d, dtype=dt)", "paddle.empty(x.shape, dt)"),
            ("torch.empty_like(x)", "torch.empty_like(x)", "paddle.empty_like(x)"),
            ("softmax wrapper's host part (no launch)",
             "x.dim(); a, b = x.shape; o = torch.empty((a, b), device=x.device, "
             "dtype=x.dtype); s = (x.stride(0), x.stride(1), o.stride(0))",
             "x.ndim; a, b = x.shape; o = paddle.empty([a, b], x.dtype); "
             "s = (x.strides[0], x.strides[1], o.strides[0])"),
            ("add wrapper's host part: empty_like + numel()",
             "o = torch.empty_like(x); n = o.numel()",
             "o = paddle.empty_like(x); a, b = o.shape; n = a * b"),
        ]
        rows = {}
        for label, tstmt, pstmt in cases:
            rows[f"{label} | facade"] = (tstmt, fac, SCOPED, setup)
            rows[f"{label} | paddle"] = (pstmt, {"x": xp, "paddle": paddle}, "bench_unscoped",
                                         "dt = x.dtype\n")
            rows[f"{label} | torch"] = (tstmt, {"x": xtt, "torch": torch}, "bench_torch",
                                        "d = x.device\ndt = x.dtype\n")
        res = measure(rows, N // 10)
    finally:
        torchproxy.disable()
    lines = [f"\nsoftmax wrapper's host calls, (256, 1000) float32 "
             f"({'GPU' if gpu else 'CPU'}); us per call",
             f"{'':58s} {'facade':>8s} {'paddle':>8s} {'torch':>8s} {'fac/tor':>8s}"]
    for label, _t, _p in cases:
        f, p_, t = (res[f"{label} | {k}"] for k in ("facade", "paddle", "torch"))
        lines.append(f"{label[:58]:58s} {f:8.2f} {p_:8.2f} {t:8.2f} {f / t:8.2f}")
    return "\n".join(lines)


class _NoLaunch:
    """Stands in for a ``@triton.jit`` kernel: ``kernel[grid](...)`` does nothing, so a
    wrapper's host part is measured without Triton's launch (bench/triton_launch.py has those)."""

    def __getitem__(self, grid):
        return self._launch

    @staticmethod
    def _launch(*args, **kwargs):
        return None


def _load_wrapper(name, package):
    """kernels/triton/<name>.py as ``<package>.<name>``: in scope (the facade) when package is
    SCOPED, real torch otherwise; its Triton kernels replaced by _NoLaunch."""
    import importlib.util
    modname = f"{package}.{name}"
    if modname not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            modname, os.path.join(ROOT, "kernels", "triton", f"{name}.py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
        for k, v in list(vars(mod).items()):
            if type(v).__module__.startswith("triton.runtime"):  # JITFunction, Autotuner
                setattr(mod, k, _NoLaunch())
    return sys.modules[modname]


# the same host work written in Paddle (the ``paddle`` column), per wrapper
_PADDLE_WRAPPERS = """
import paddle
from paddle.autograd import PyLayer
def softmax(x):
    assert x.ndim == 2
    n_rows, n_cols = x.shape
    out = paddle.empty([n_rows, n_cols], x.dtype)
    s = (x.strides[0], x.strides[1], out.strides[0])
    return out
def matmul_relu(a, b):
    assert a.ndim == 2 and b.ndim == 2
    assert a.shape[1] == b.shape[0]
    assert a.dtype == b.dtype and a.dtype in (paddle.float16, paddle.float32)
    M, K = a.shape
    N = b.shape[1]
    c = paddle.empty([M, N], a.dtype)
    s = (a.strides[0], a.strides[1], b.strides[0], b.strides[1], c.strides[0], c.strides[1])
    return c
def layernorm(x, weight, bias, eps=1e-5):
    assert x.ndim == 2 and x.strides[1] == 1
    n_rows, n_cols = x.shape
    y = paddle.empty_like(x)
    mean = paddle.empty([n_rows], paddle.float32)
    rstd = paddle.empty([n_rows], paddle.float32)
    s = (x.strides[0], y.strides[0])
    return y, mean, rstd
class RMSNorm(PyLayer):
    @staticmethod
    def forward(ctx, x, weight, eps):
        assert x.ndim == 2 and x.strides[1] == 1
        n_rows, n_cols = x.shape
        y = paddle.empty_like(x)
        rstd = paddle.empty([n_rows], paddle.float32)
        s = (x.strides[0], y.strides[0])
        ctx.save_for_backward(x, weight, rstd)
        return y
    @staticmethod
    def backward(ctx, dy):
        return dy, None
def rmsnorm(x, weight, eps=1e-6):
    return RMSNorm.apply(x, weight, eps)
def add(x, y, out=None):
    if out is None:
        out = paddle.empty_like(x)
    n = out.size
    return out
"""

_ORACLE = "bench_host_cost_oracle"


def _kernel_wrapper_rows(gpu, N):
    """kernels/triton's wrappers with no launch, and the facade calls they make, facade (the
    wrapper module in scope) vs Paddle (the same work, _PADDLE_WRAPPERS) vs real torch."""
    import numpy as np
    import paddle
    import torch

    import torchproxy
    try:
        import triton  # noqa: F401 - the wrappers' @triton.jit needs it, not a GPU
    except ImportError as e:
        return f"\nkernels/triton wrappers: not measured ({e})"
    torchproxy.enable(scope={SCOPED, "triton"})
    try:
        place = paddle.CUDAPlace(0) if gpu else paddle.CPUPlace()
        rng = np.random.default_rng(0)

        def both(a):
            return (paddle.to_tensor(a, place=place),
                    torch.from_numpy(a).to("cuda" if gpu else "cpu"))

        x32 = rng.standard_normal((256, 1024)).astype("float32")
        inputs = {  # (module, function): numpy arguments (triton_launch.py's shapes)
            ("softmax", "softmax"): (rng.standard_normal((256, 1000)).astype("float32"),),
            ("matmul", "matmul_relu"): (rng.standard_normal((256, 256)).astype("float16"),
                                        rng.standard_normal((256, 256)).astype("float16")),
            ("layernorm", "layernorm"): (x32, np.ones(1024, "float32"),
                                         np.zeros(1024, "float32")),
            ("rmsnorm", "rmsnorm"): (x32, np.ones(1024, "float32")),
            ("add", "add"): (x32.reshape(-1)[:4096].copy(), x32.reshape(-1)[:4096].copy()),
        }
        pw = {"__name__": "bench_unscoped_wrappers"}
        exec(_PADDLE_WRAPPERS, pw)
        rows, labels = {}, []
        for (mod, fn), arrays in inputs.items():
            fac, orc = _load_wrapper(mod, SCOPED), _load_wrapper(mod, _ORACLE)
            pa, ta = zip(*(both(a) for a in arrays))
            label = f"{fn} wrapper, no launch"
            labels.append(label)
            rows[f"{label} | facade"] = ("f(*a)", {"f": getattr(fac, fn), "a": pa})
            rows[f"{label} | paddle"] = ("f(*a)", {"f": pw[fn], "a": pa})
            rows[f"{label} | torch"] = ("f(*a)", {"f": getattr(orc, fn), "a": ta})
        res = measure(rows, max(N // 20, 200))

        # the facade calls those wrappers make, one by one (scoped caller, as the wrapper is)
        a16, t16 = both(inputs[("matmul", "matmul_relu")][0])
        w32, tw32 = both(np.ones(1024, "float32"))
        xx, tx = both(x32)
        fn_src = """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, eps):
        ctx.save_for_backward(x, w)
        return out
    @staticmethod
    def backward(ctx, dy):
        return dy, None, None
"""
        pl_src = """
class F(PyLayer):
    @staticmethod
    def forward(ctx, x, w, eps):
        ctx.save_for_backward(x, w)
        return out
    @staticmethod
    def backward(ctx, dy):
        return dy, None
"""
        fac_env = {"a": a16, "b": a16, "x": xx, "w": w32, "n": 256}
        tor_env = {"a": t16, "b": t16, "x": tx, "w": tw32, "n": 256, "torch": torch}
        pad_env = {"a": a16, "b": a16, "x": xx, "w": w32, "n": 256, "paddle": paddle}
        cases = [  # label, torch-style statement, the same in Paddle
            ("a.shape[1] == b.shape[0]", "a.shape[1] == b.shape[0]", "a.shape[1] == b.shape[0]"),
            ("a.dtype == b.dtype", "a.dtype == b.dtype", "a.dtype == b.dtype"),
            ("a.dtype in (torch.float16, torch.float32)",
             "a.dtype in (torch.float16, torch.float32)",
             "a.dtype in (paddle.float16, paddle.float32)"),
            ("x.device.type", "x.device.type", "x.place.is_gpu_place()"),
            ("torch.empty((n,), device=x.device, dtype=torch.float32)",
             "torch.empty((n,), device=x.device, dtype=torch.float32)",
             "paddle.empty([n], paddle.float32)"),
            ("torch.empty((n, n), device=x.device, dtype=x.dtype)",
             "torch.empty((n, n), device=x.device, dtype=x.dtype)",
             "paddle.empty([n, n], x.dtype)"),
            ("torch.empty_like(x)", "torch.empty_like(x)", "paddle.empty_like(x)"),
            ("x.data_ptr()", "x.data_ptr()", "x.data_ptr()"),
            ("F.apply(x, w, 1e-6) (forward: save_for_backward, return)",
             "F.apply(x, w, 1e-6)", "F.apply(x, w, 1e-6)"),
        ]
        crow = {}
        for label, tstmt, pstmt in cases:
            crow[f"{label} | facade"] = (tstmt, fac_env, SCOPED, "import torch\nout = x * 1\n" + fn_src)
            crow[f"{label} | paddle"] = (pstmt, pad_env, "bench_unscoped",
                                         "from paddle.autograd import PyLayer\nout = x * 1\n" + pl_src)
            crow[f"{label} | torch"] = (tstmt, tor_env, "bench_torch", "out = x * 1\n" + fn_src)
        res.update(measure(crow, N // 10))
    finally:
        torchproxy.disable()
    lines = [f"\nkernels/triton wrappers (launch replaced by a no-op) and the facade calls they make "
             f"({'GPU' if gpu else 'CPU'}); us per call",
             f"{'':58s} {'facade':>8s} {'paddle':>8s} {'torch':>8s} {'fac/tor':>8s}"]
    for label in labels + [c[0] for c in cases]:
        f, p_, t = (res[f"{label} | {k}"] for k in ("facade", "paddle", "torch"))
        lines.append(f"{label[:58]:58s} {f:8.2f} {p_:8.2f} {t:8.2f} {f / t:8.2f}")
    return "\n".join(lines)


def _gpu_stream_rows(tvm_ffi, tp_tvm, xp, xt, N):
    """Stream lookups and the TileLang launch wrapper, old and new, around a tvm-ffi no-op."""
    import contextlib

    import paddle
    import torch
    from torchproxy import paddle_shims

    nop = tvm_ffi.get_global_func("testing.nop")  # takes any arguments, does nothing

    @contextlib.contextmanager
    def old_paddle_stream(x):  # the wrapper as it was before issue 26
        if x is None or not x.place.is_gpu_place():
            yield
            return
        device = tvm_ffi.device("cuda", x.place.gpu_device_id())
        place = paddle.CUDAPlace(x.place.gpu_device_id())
        stream = paddle.device.current_stream(place)._as_parameter_.value or 0
        with tvm_ffi.use_raw_stream(device, stream):
            yield

    def old_first(args):
        for a in args:
            if isinstance(a, paddle.Tensor) and a.place.is_gpu_place():
                return a
        return None

    def old_launch(*args):
        x = old_first(args)
        if x is None:
            return nop(*args)
        with old_paddle_stream(x):
            return nop(*args)

    # what TileLang's launch wrapper calls (tilelang's own copy in older trees)
    _first_gpu_index = getattr(tp_tvm, "first_gpu_index", None)
    if _first_gpu_index is None:
        from torchproxy.integrations.tilelang import _first_gpu_index
    PT = paddle.Tensor
    on_stream = tp_tvm.call_on_paddle_stream

    def new_launch(*args):
        index = _first_gpu_index(args, PT)
        if index < 0:
            return nop(*args)
        return on_stream(index, nop, *args)

    getraw = torch._C._cuda_getCurrentRawStream
    rows = {"torch: _cuda_getCurrentRawStream(0)": ("g(0)", {"g": getraw}),
            "Paddle: paddle.device.current_stream(place) handle (old)":
                ("cs(pl)._as_parameter_.value", {"cs": paddle.device.current_stream,
                                                 "pl": paddle.CUDAPlace(0)}),
            "Paddle: paddle_shims.current_stream_handle(0)":
                ("h(0)", {"h": paddle_shims.current_stream_handle}),
            "tvm-ffi no-op call, no wrapper (reference)": ("nop()", {"nop": nop}),
            "TileLang launch wrapper around it, old": ("w(x)", {"w": old_launch, "x": xp}),
            "TileLang launch wrapper around it, new": ("w(x)", {"w": new_launch, "x": xp})}
    # issue 26's pieces, absent in trees before it (a baseline run leaves them out)
    if hasattr(paddle_shims, "cached_stream_handle"):
        rows["Paddle: paddle_shims.cached_stream_handle(0) (per switch)"] = \
            ("h(0)", {"h": paddle_shims.cached_stream_handle})
    if hasattr(tp_tvm, "on_paddle_stream"):
        rows["FlashInfer module function (on_paddle_stream) around it"] = \
            ("w(x)", {"w": tp_tvm.on_paddle_stream(nop), "x": xp})
    # the whole per-call path where no wrapper is needed: tvm-ffi sets the stream itself (torch's
    # C exchange API; Paddle's through torchproxy's table where it is in use)
    rows["tvm-ffi no-op(x), torch GPU x (stream from torch's exchange API)"] = \
        ("nop(x)", {"nop": nop, "x": xt})
    rows["tvm-ffi no-op(x), Paddle GPU x, no wrapper (stream only with the exchange table)"] = \
        ("nop(x)", {"nop": nop, "x": xp})
    return table("GPU: stream lookup and the TileLang launch wrapper", measure(rows, N // 4),
                 "torch: _cuda_getCurrentRawStream(0)")


if __name__ == "__main__":
    main()
