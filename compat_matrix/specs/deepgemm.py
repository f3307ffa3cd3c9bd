"""DeepGEMM (deepseek-ai/DeepGEMM): FP8/FP4/BF16 GEMMs and MoE kernels for Hopper/Blackwell,
JIT-compiled at run time through a small torch C++ extension (``deep_gemm._C``).

Why this row: one of the C++ operator libraries Paddle users port (see docs/cpp-porting-report.md).
GPU-only: on this CPU machine every cell is n/a with the reason; the row records the install
commands and the C++ porting report's figures.  Only the import case (no machine here can run
its kernels, so no case is written that was never run).
"""
from compat_matrix.spec import Library

NEEDS = "needs a Paddle 3.3+ CUDA build with the compat headers; sm_90"


def install(repo: str, sha: str, build: str) -> tuple:
    """Fetch the pinned commit, then build with torchproxy's build environment (Paddle's
    torch-compatible headers and libraries in place of torch's)."""
    name = repo.split("/")[1]
    return (f"git clone https://github.com/{repo} && git -C {name} checkout {sha}",
            f"cd {name} && python -m torchproxy.facade.cpp_extension -- {build}")


SHA = "54e22612409371d6364144b69086735beb54e98b"   # "Multiple updates and refactorings (#364)"

LIBRARY = Library(
    name="deepgemm",
    scope=("deep_gemm",),
    requires=("deep_gemm",),
    imports=("deep_gemm",),
    install=install("deepseek-ai/DeepGEMM", SHA, "pip install --no-build-isolation --no-deps ."),
    devices=("gpu",),
    unavailable_reason=NEEDS + " (C++ porting report: headers 4/5, names 27/29 provided; missing "
                               "torch::kFloat8_e4m3fn, at::cuda::getCurrentCUDABlasLtHandle, "
                               "torch/version.h)",
    notes="C++ porting report (Paddle 3.3.1 compat headers): headers 4/5, names 27/29 provided; "
          "missing: torch::kFloat8_e4m3fn (18 uses), torch/version.h (2), "
          "at::cuda::getCurrentCUDABlasLtHandle (1)",
)

CASES = []
