"""FlashInfer on Paddle tensors: the JIT toolchain set-up the facade cannot do by itself.

``torchproxy.enable(scope={"flashinfer"})`` is all FlashInfer's Python needs (its torch names
are the facade's; its kernels are tvm-ffi modules that read Paddle tensors through DLPack).
What is left is the machine: FlashInfer JIT-compiles each kernel family with nvcc on first use,
and reads its configuration from the environment *at import*:

- ``FLASHINFER_CUDA_ARCH_LIST`` ("9.0a"): the target.  Without it FlashInfer asks
  ``torch.cuda.get_device_capability`` for every visible GPU (Paddle's answer through the
  facade); on a machine without a GPU that list is empty and FlashInfer refuses to build.
- ``FLASHINFER_WORKSPACE_BASE``: where ``.cache/flashinfer/<version>/<arch>/`` goes.
- ``CUDA_HOME``: the toolkit; FlashInfer links ``-lcudart -lcuda`` from ``$CUDA_HOME/lib64``.
- its kernels include ``<cublasLt.h>`` and ``<curand_kernel.h>``: toolkits assembled from pip
  packages (``nvidia-cuda-nvcc`` ...) may lack them; ``nvidia-cublas`` / ``nvidia-curand``
  wheels carry them under ``site-packages/nvidia/<cu13|cublas|curand>/include``.

:func:`configure_jit` finds those pieces and sets the variables (never overriding ones the user
set), and says what it found; nothing is downloaded.

Streams: FlashInfer's kernels launch on tvm-ffi's environment stream (``get_stream(device)``
in its csrc), which tvm-ffi sets from torch for torch tensors and leaves at 0 for Paddle
tensors (see ``integrations/tvm_ffi.py``).  :func:`install_stream_wrapping` makes every module
FlashInfer's JIT loads (``flashinfer.jit.core.JitSpec.load``, the one place it calls
``tvm_ffi.load_module``) a :class:`~torchproxy.integrations.tvm_ffi.PaddleStreamModule`: each
call with a Paddle GPU tensor runs on Paddle's current stream.  The import hook calls
:func:`on_user` for each ``flashinfer.*`` module handed the facade, which installs it as soon
as ``flashinfer.jit.core`` is loaded (``import flashinfer`` loads it before its first kernel
module).  Where tvm-ffi reads Paddle tensors through torchproxy's DLPack C exchange table
(Paddle 2.6, ``tvm_ffi.exchange_api_sets_stream``), tvm-ffi sets that stream itself and the
modules are returned unwrapped.
"""
from __future__ import annotations

import glob
import os
import shutil
import site
import sys
import tempfile

SCOPE = ("flashinfer",)
HEADERS = ("cublasLt.h", "curand_kernel.h")
# where GPU drivers put libcuda (checked after $CUDA_HOME, before link-time stubs)
SYSTEM_LIB_DIRS = ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64",
                   "/usr/lib/wsl/lib"]


def enable(*extra_scope: str) -> None:
    import torchproxy
    torchproxy.enable(scope=set(SCOPE) | set(extra_scope))
    install_stream_wrapping()


def install_stream_wrapping() -> bool:
    """Wrap ``flashinfer.jit.core.JitSpec.load`` (once): the modules it returns run their
    functions on Paddle's current stream.  False when FlashInfer's JIT core is not loaded yet
    (nothing is imported here) or has no ``JitSpec.load``."""
    jit_core = sys.modules.get("flashinfer.jit.core")  # FlashInfer's, not Paddle's
    spec = getattr(jit_core, "JitSpec", None) if jit_core is not None else None
    original = getattr(spec, "load", None) if spec is not None else None
    if original is None:
        return False
    if getattr(original, "__torchproxy__", False):
        return True
    from .tvm_ffi import PaddleStreamModule, exchange_api_sets_stream

    def load(self, so_path):
        mod = original(self, so_path)
        if exchange_api_sets_stream():
            # tvm-ffi sets Paddle's current stream itself (the C exchange table): no wrapper
            return mod
        return mod if isinstance(mod, PaddleStreamModule) else PaddleStreamModule(mod)
    load.__wrapped__ = original
    load.__torchproxy__ = True
    load.__name__, load.__qualname__ = original.__name__, original.__qualname__
    spec.load = load
    return True


def on_user(module_name: str) -> None:
    """The import hook: ``module_name`` (a ``flashinfer.*`` module) was handed the facade."""
    # the exchange table first: tvm-ffi keeps, per type, the way it read the first Paddle
    # tensor it saw, so it must be in place before any reaches tvm-ffi
    from .tvm_ffi import install_exchange_api
    install_exchange_api()
    install_stream_wrapping()


def _site_dirs(extra=()):
    dirs = list(extra)
    for d in list(sys.path) + site.getsitepackages() + [site.getusersitepackages()]:
        if d and os.path.isdir(d) and d not in dirs:
            dirs.append(d)
    return dirs


def find_cuda_home():
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home:
        return home
    nvcc = shutil.which("nvcc")
    if nvcc:
        real = os.path.realpath(nvcc)        # /usr/local/bin/nvcc may be a wrapper script
        for cand in (os.path.dirname(os.path.dirname(real)),
                     os.path.dirname(os.path.dirname(nvcc))):
            if os.path.exists(os.path.join(cand, "include", "cuda_runtime.h")):
                return cand
        with open(nvcc, "rb") as f:          # a `exec /x/bin/nvcc "$@"` wrapper
            head = f.read(400).decode("utf-8", "ignore")
        for tok in head.split():
            if tok.endswith("/bin/nvcc") and os.path.exists(tok):
                return os.path.dirname(os.path.dirname(tok))
    if os.path.exists("/usr/local/cuda/include/cuda_runtime.h"):
        return "/usr/local/cuda"
    return None


def find_header_dirs(cuda_home, search=()):
    """{header: include dir} for HEADERS not in the toolkit, from pip nvidia-* packages."""
    found = {}
    for h in HEADERS:
        if cuda_home and os.path.exists(os.path.join(cuda_home, "include", h)):
            continue
        for d in _site_dirs(search):
            hits = glob.glob(os.path.join(d, "nvidia", "*", "include", h))
            if hits:
                found[h] = os.path.dirname(hits[0])
                break
    return found


def _find_lib(name, cuda_home, search=()):
    dirs = []
    if cuda_home:
        dirs += [os.path.join(cuda_home, "lib64"), os.path.join(cuda_home, "lib")]
    dirs += SYSTEM_LIB_DIRS
    # last: link-time stubs (the toolkit's lib64/stubs, or a stub dir passed in `search`) for
    # building on a machine without a GPU driver
    if cuda_home:
        dirs.append(os.path.join(cuda_home, "lib64", "stubs"))
    dirs += [os.path.join(d, "stubs") for d in search]
    for d in dirs:
        for cand in (f"lib{name}.so", f"lib{name}.so.1", f"lib{name}.so.13", f"lib{name}.so.12"):
            p = os.path.join(d, cand)
            if os.path.exists(p):
                return p
    for d in _site_dirs():
        hits = glob.glob(os.path.join(d, "nvidia", "*", "lib", f"lib{name}.so*"))
        if hits:
            return sorted(hits)[0]
    return None


def configure_jit(arch: str | None = None, workspace: str | None = None, link_dir: str | None = None,
                  search=None) -> dict:
    """Set FlashInfer's JIT environment (call before ``import flashinfer``).

    ``arch``: "9.0a" etc. (None: FlashInfer asks the GPU).  ``workspace``: cache base.
    ``link_dir``: where to put ``libcuda.so`` / ``libcudart.so`` links when only versioned
    names exist (the linker wants the bare name; default: a folder under the temp dir).
    ``search``: extra folders holding ``nvidia/*/include`` headers and a ``stubs/libcuda.so``
    (default: $TORCHPROXY_CUDA_EXTRA, os.pathsep-separated).  Returns what was set and found.
    With no arguments (a compat-matrix setup hook) everything comes from the environment."""
    env = os.environ
    if search is None:
        search = [d for d in env.get("TORCHPROXY_CUDA_EXTRA", "").split(os.pathsep) if d]
    if link_dir is None:
        link_dir = os.path.join(tempfile.gettempdir(), "torchproxy-cuda-links")
    out = {"set": {}, "found": {}, "problems": []}

    def setdefault(k, v):
        if v is not None and not env.get(k):
            env[k] = v
            out["set"][k] = v

    setdefault("FLASHINFER_CUDA_ARCH_LIST", arch)
    setdefault("FLASHINFER_WORKSPACE_BASE", workspace)
    home = find_cuda_home()
    out["found"]["CUDA_HOME"] = home
    if home is None:
        out["problems"].append("no CUDA toolkit (nvcc) found: FlashInfer cannot JIT-build")
        return out
    setdefault("CUDA_HOME", home)
    flags = []
    for h, d in find_header_dirs(home, search).items():
        out["found"][h] = d
        if f"-I{d}" not in flags:
            flags.append(f"-I{d}")
    missing = [h for h in HEADERS if h not in out["found"]
               and not os.path.exists(os.path.join(home, "include", h))]
    if missing:
        out["problems"].append(f"headers not found: {missing} (pip download nvidia-cublas / "
                               "nvidia-curand and pass their include dirs)")
    if flags:
        setdefault("FLASHINFER_EXTRA_CUDAFLAGS", " ".join(flags))
    ldirs = []
    for lib in ("cudart", "cuda"):
        p = _find_lib(lib, home, search)
        out["found"][f"lib{lib}"] = p
        if p is None:
            out["problems"].append(f"lib{lib}.so not found (needed to link; a GPU driver "
                                   "provides libcuda, or a stub)")
            continue
        d = os.path.dirname(p)
        if not os.path.basename(p).endswith(".so"):
            if link_dir is None:
                out["problems"].append(f"only {p} exists; pass link_dir= to make lib{lib}.so")
                continue
            os.makedirs(link_dir, exist_ok=True)
            link = os.path.join(link_dir, f"lib{lib}.so")
            if not os.path.exists(link):
                os.symlink(p, link)
            d = link_dir
        if d not in ldirs and d != os.path.join(home, "lib64"):
            ldirs.append(d)
    if ldirs:
        setdefault("FLASHINFER_EXTRA_LDFLAGS", " ".join(f"-L{d}" for d in ldirs))
    return out
