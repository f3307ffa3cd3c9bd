"""DeepEP (deepseek-ai/DeepEP): expert-parallel all-to-all (MoE dispatch/combine) kernels over
NVLink/RDMA with NCCL and NVSHMEM, a torch C++/CUDA extension (``deep_ep_cpp``).

Why this row: one of the C++ operator libraries Paddle users port (see docs/cpp-porting-report.md).
GPU-only, and several GPUs: on this CPU machine every cell is n/a with the reason; the row
records the install commands and the C++ porting report's figures.  Only the import case (no
machine here can run its kernels, so no case is written that was never run).
"""
from compat_matrix.shared.cpp_extension_rows import gpu_only_library, install

SHA = "dd758caf451848bd150e1046af3d0a73e5fff38d"   # "NCCL Device API compat: ... (#688)"

LIBRARY = gpu_only_library(
    "deepep", "deep_ep",
    install=('pip install "nvidia-nccl-cu13>=2.30.4" --no-deps   # and NVSHMEM: see DeepEP\'s '
             'README, "Download and install NVSHMEM dependency"',)
            + install("deepseek-ai/DeepEP", SHA, "python setup.py install"),
    missing=", several GPUs (C++ porting report: headers 3/3, names 26/31 "
            "provided; missing at::cuda::setCurrentCUDAStream, "
            "at::cuda::getStreamFromPool, torch::kBool, torch::kFloat8_e4m3fn, "
            "torch::Stream)",
    report="C++ porting report (Paddle 3.3.1 compat headers): headers 3/3, names 26/31 provided; "
           "missing: at::cuda::setCurrentCUDAStream (12 uses), torch::kBool (3), "
           "torch::kFloat8_e4m3fn (3), at::cuda::getStreamFromPool (2), torch::Stream (2)",
)

CASES = []
