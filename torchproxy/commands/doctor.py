"""`torchproxy doctor`: what this machine can run, said plainly.

Reports Paddle (version, CUDA or CPU build, the GPU architectures its kernels were built for),
the GPU (name, compute capability) and -- the question that matters on new GPUs -- whether
Paddle's own kernels actually run there: a Paddle build without kernels for the GPU's
architecture (paddlepaddle-gpu 2.6.2 on sm_90) silently does nothing, so ``x * 3`` reads back
zeros.  Doctor runs that tiny op and says so instead of letting it be discovered as zeros.
Also: Triton (version, interpreter mode), TileLang, tvm-ffi, real torch, torchproxy's state.

Exit status 1 when a GPU is present and Paddle's kernels do not work on it (or Paddle cannot be
imported); 0 otherwise.  ``--json`` prints the report as JSON.
"""
from __future__ import annotations

import importlib.machinery
import importlib.metadata
import json
import os


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--no-gpu-op", action="store_true",
                        help="skip running a tiny Paddle op on the GPU")


def _dist_version(*names) -> str | None:
    for name in names:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _installed(module: str) -> bool:
    # PathFinder: what is on sys.path, not what torchproxy's import hook would answer
    return importlib.machinery.PathFinder.find_spec(module) is not None


def arch_in_build(capability, archs) -> bool | None:
    """Whether Paddle's build has kernels for ``capability`` (major, minor): an exact SASS
    match, or PTX for an older arch of the same major (the driver JIT-compiles it).
    ``archs`` is ``paddle.version.cuda_archs()`` (ints like 86, or "sm_86"/"compute_86"
    strings); None when the build does not say (Paddle 2.6)."""
    if not archs:
        return None
    want = capability[0] * 10 + capability[1]
    for a in archs:
        s = str(a)
        num = int("".join(ch for ch in s if ch.isdigit()) or 0)
        if num == want:
            return True
        if s.startswith("compute_") and num // 10 == want // 10 and num <= want:
            return True
    return False


def gpu_op_works(device: int = 0) -> tuple[bool, str]:
    """Run ``x * 3`` with Paddle on the GPU and read it back: (works, what happened)."""
    import numpy as np
    import paddle
    x = paddle.to_tensor(np.array([1.0, 2.0, 3.0], dtype="float32"),
                         place=paddle.CUDAPlace(device))
    try:
        got = (x * 3).numpy()
    except Exception as e:  # noqa: BLE001 - a launch error is the answer we are after
        return False, f"x * 3 raised {type(e).__name__}: {str(e).splitlines()[0][:200]}"
    if np.allclose(got, [3.0, 6.0, 9.0]):
        return True, "x * 3 on the GPU gave [3, 6, 9]"
    return False, f"x * 3 on the GPU gave {got.tolist()} instead of [3, 6, 9]"


def collect(run_gpu_op: bool = True) -> dict:
    report: dict = {"problems": []}
    from .._paddle_check import INSTALL_HINT
    try:
        import paddle
    except Exception as e:  # noqa: BLE001
        report["paddle"] = {"importable": False, "error": f"{type(e).__name__}: {e}"}
        report["problems"].append(f"Paddle cannot be imported ({type(e).__name__}: {e}); "
                                  + INSTALL_HINT)
        # the rest is still worth knowing (what is installed beside it); nothing below that
        # needs Paddle runs
        _collect_others(report, with_paddle=False)
        return report
    v = paddle.version
    cuda = v.cuda() if callable(getattr(v, "cuda", None)) else None
    archs = v.cuda_archs() if callable(getattr(v, "cuda_archs", None)) else None
    report["paddle"] = {
        "importable": True, "version": paddle.__version__,
        "build": "CUDA" if paddle.is_compiled_with_cuda() else "CPU",
        "cuda": cuda if cuda not in (False, "False") else None,
        "cuda_archs": list(archs) if archs else None,
    }
    gpus = paddle.device.cuda.device_count() if paddle.is_compiled_with_cuda() else 0
    gpu: dict = {"present": gpus > 0, "count": gpus}
    if gpus:
        props = paddle.device.cuda.get_device_properties(0)
        cap = (props.major, props.minor)
        gpu.update(name=props.name, capability=f"{cap[0]}.{cap[1]}",
                   arch=f"sm_{cap[0]}{cap[1]}",
                   paddle_build_has_arch=arch_in_build(cap, archs))
        if run_gpu_op:
            works, detail = gpu_op_works(0)
            gpu.update(paddle_kernels_work=works, paddle_kernels_check=detail)
            if not works:
                report["problems"].append(
                    f"Paddle's own GPU kernels do not run on this {gpu['arch']} GPU ({detail}): "
                    f"Paddle {paddle.__version__}'s build has no kernels for this architecture. "
                    "Allocation, host<->device copies, streams, events and kernels compiled by "
                    "others (Triton, TileLang) still work; any Paddle GPU op gives wrong data.")
    report["gpu"] = gpu
    _collect_others(report, with_paddle=True)
    return report


def _collect_others(report: dict, with_paddle: bool) -> None:
    """Triton, TileLang, tvm-ffi, real torch, the facade and torchproxy's state."""
    tri: dict = {"installed": _installed("triton")}
    if tri["installed"]:
        tri["version"] = _dist_version("triton", "pytorch-triton")
        tri["interpreter"] = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")
        try:
            from ..integrations import triton_interpreter as ti
            tri["interpreter_fixes"] = {"enabled": ti.enabled_by_env(), "installed": sorted(ti._installed),
                                        "available": list(ti.FIXES)}
        except Exception as e:  # noqa: BLE001
            tri["interpreter_fixes"] = f"unavailable: {type(e).__name__}: {e}"
        try:
            from ..integrations import triton as binding
            tri["torchproxy_binding"] = binding.bound_mode()
        except Exception as e:  # noqa: BLE001
            tri["torchproxy_binding"] = f"unavailable: {type(e).__name__}: {e}"
    report["triton"] = tri
    report["tilelang"] = {"installed": _installed("tilelang"),
                          "version": _dist_version("tilelang-paddle", "tilelang")}
    report["tvm_ffi"] = {"installed": _installed("tvm_ffi"),
                         "version": _dist_version("apache-tvm-ffi", "tvm-ffi", "tvm_ffi")}
    report["torch"] = {"installed": _installed("torch"), "version": _dist_version("torch")}
    TORCH_VERSION = None
    if with_paddle:
        try:
            from ..facade.core import TORCH_VERSION
        except Exception:  # noqa: BLE001 - a broken facade is reported by the suites, not here
            pass
    report["facade"] = {"torch_version": TORCH_VERSION}
    from .. import __version__
    enabled = False
    if with_paddle:
        from .. import api
        enabled = api.is_enabled()
        if api.environment_error:
            report["problems"].append(api.environment_error)
    report["torchproxy"] = {"version": __version__, "enabled": enabled}


def _fmt(report: dict) -> str:
    out = []
    p = report["paddle"]
    if not p.get("importable"):
        out.append("Paddle       NOT IMPORTABLE (see PROBLEM below)")
    else:
        out.append(f"Paddle       {p['version']} ({p['build']} build"
                   + (f", CUDA {p['cuda']}" if p.get("cuda") else "") + ")")
    if p.get("cuda_archs"):
        out.append(f"  built for  {', '.join(map(str, p['cuda_archs']))}")
    g = report.get("gpu")  # absent when Paddle cannot be imported
    if g is not None and not g["present"]:
        out.append("GPU          none visible to Paddle")
    elif g is not None:
        out.append(f"GPU          {g['name']} ({g['arch']}, compute capability {g['capability']}), "
                   f"{g['count']} device(s)")
        has = g.get("paddle_build_has_arch")
        out.append("  Paddle build has this arch: "
                   + {True: "yes", False: "NO", None: "not recorded by this Paddle"}[has])
        if "paddle_kernels_work" in g:
            out.append(f"  Paddle GPU kernels: {'WORK' if g['paddle_kernels_work'] else 'DO NOT WORK'}"
                       f" ({g['paddle_kernels_check']})")
    t = report["triton"]
    out.append("Triton       " + (f"{t['version']}, interpreter "
                                  f"{'ON (TRITON_INTERPRET)' if t['interpreter'] else 'off'}, "
                                  f"torchproxy binding: {t.get('torchproxy_binding') or 'not bound'}"
                                  if t["installed"] else "not installed  (pip install \"torchproxy[triton]\")"))
    if t["installed"] and not t["interpreter"]:
        out.append("  CPU kernels: set TRITON_INTERPRET=1 before Triton is imported (Triton's interpreter);"
                   " on a GPU, torchproxy.integrations.triton.bind() once")
    if t["installed"] and t["interpreter"]:
        out.append("  interpreter fixes: torchproxy.integrations.triton_interpreter.ensure_fixes() "
                   "(numpy>=2.4 index, float args, autotune, loop index, libdevice; "
                   "TORCHPROXY_INTERPRETER_FIX=0 turns it off)")
    for key, label in (("tilelang", "TileLang"), ("tvm_ffi", "tvm-ffi"), ("torch", "real torch")):
        r = report[key]
        out.append(f"{label:12s} " + (f"{r['version'] or 'installed'}" if r["installed"]
                                      else "not installed"))
    tp = report["torchproxy"]
    out.append(f"torchproxy   {tp['version']}, {'enabled' if tp['enabled'] else 'not enabled'}")
    fv = report.get("facade", {}).get("torch_version")
    if fv:
        real = report["torch"].get("version")
        out.append(f"  facade     torch.__version__ == {fv!r} in scope: the torch API level the facade "
                   "implements (libraries' version checks pick code paths it provides)"
                   + (f"; real torch here: {real}" if real else ""))
    for prob in report["problems"]:
        out.append(f"PROBLEM: {prob}")
    return "\n".join(out)


def main(args) -> int:
    report = collect(run_gpu_op=not getattr(args, "no_gpu_op", False))
    print(json.dumps(report, indent=2) if getattr(args, "json", False) else _fmt(report))
    return 1 if report["problems"] else 0
