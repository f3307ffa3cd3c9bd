"""DeepEP (deepseek-ai/DeepEP): expert-parallel all-to-all (MoE dispatch/combine) kernels over
NVLink/RDMA with NCCL and NVSHMEM, a torch C++/CUDA extension (``deep_ep_cpp``).

Why this row: one of the C++ operator libraries Paddle users port (see docs/cpp-porting-report.md).
GPU-only, and several GPUs: on this CPU machine every cell is n/a with the reason; the row
records the install commands and the C++ porting report's figures.  Only the import case (no
machine here can run its kernels, so no case is written that was never run).
"""
from compat_matrix.spec import Library

NEEDS = "needs a Paddle 3.3+ CUDA build with the compat headers; sm_90"


def install(repo: str, sha: str, build: str) -> tuple:
    """Fetch the pinned commit, then build with torchproxy's build environment (Paddle's
    torch-compatible headers and libraries in place of torch's)."""
    name = repo.split("/")[1]
    return (f"git clone https://github.com/{repo} && git -C {name} checkout {sha}",
            f"cd {name} && python -m torchproxy.facade.cpp_extension -- {build}")


SHA = "dd758caf451848bd150e1046af3d0a73e5fff38d"   # "NCCL Device API compat: ... (#688)"

LIBRARY = Library(
    name="deepep",
    scope=("deep_ep",),
    requires=("deep_ep",),
    imports=("deep_ep",),
    install=('pip install "nvidia-nccl-cu13>=2.30.4" --no-deps   # and NVSHMEM (its docs/nvshmem.md)',)
    + install("deepseek-ai/DeepEP", SHA, "python setup.py install"),
    devices=("gpu",),
    unavailable_reason=NEEDS + ", several GPUs (C++ porting report: headers 3/3, names 26/31 "
                               "provided; missing at::cuda::setCurrentCUDAStream, "
                               "at::cuda::getStreamFromPool, torch::kBool, torch::kFloat8_e4m3fn, "
                               "torch::Stream)",
    notes="C++ porting report (Paddle 3.3.1 compat headers): headers 3/3, names 26/31 provided; "
          "missing: at::cuda::setCurrentCUDAStream (12 uses), torch::kBool (3), "
          "torch::kFloat8_e4m3fn (3), at::cuda::getStreamFromPool (2), torch::Stream (2)",
)

CASES = []
