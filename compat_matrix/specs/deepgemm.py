"""DeepGEMM (deepseek-ai/DeepGEMM): FP8/FP4/BF16 GEMMs and MoE kernels for Hopper/Blackwell,
JIT-compiled at run time through a small torch C++ extension (``deep_gemm._C``).

Why this row: one of the C++ operator libraries Paddle users port (see docs/cpp-porting-report.md).
GPU-only: on this CPU machine every cell is n/a with the reason; the row records the install
commands and the C++ porting report's figures.  Only the import case (no machine here can run
its kernels, so no case is written that was never run).
"""
from compat_matrix.shared.cpp_extension_rows import gpu_only_library, install

SHA = "54e22612409371d6364144b69086735beb54e98b"   # "Multiple updates and refactorings (#364)"

LIBRARY = gpu_only_library(
    "deepgemm", "deep_gemm",
    install=install("deepseek-ai/DeepGEMM", SHA, "pip install --no-build-isolation --no-deps ."),
    missing=" (C++ porting report: headers 4/5, names 27/29 provided; missing "
            "torch::kFloat8_e4m3fn, at::cuda::getCurrentCUDABlasLtHandle, "
            "torch/version.h)",
    report="C++ porting report (Paddle 3.3.1 compat headers): headers 4/5, names 27/29 provided; "
           "missing: torch::kFloat8_e4m3fn (18 uses), torch/version.h (2), "
           "at::cuda::getCurrentCUDABlasLtHandle (1)",
)

CASES = []
