"""FlashMLA (deepseek-ai/FlashMLA): DeepSeek's multi-head latent attention decoding kernels for
Hopper (sm_90), a torch C++/CUDA extension (``flash_mla.cuda``) with a torch-style wrapper.

Why this row: one of the C++ operator libraries Paddle users port (see docs/cpp-porting-report.md).
GPU-only: on this CPU machine every cell is n/a with the reason; the row records the install
commands and the C++ porting report's figures.  Only the import case: its kernels need an sm_90
GPU and a Paddle >= 3.3 CUDA build, which no machine here has, so no case is written that was
never run.
"""
from compat_matrix.shared.cpp_extension_rows import gpu_only_library, install

SHA = "9241ae3ef9bac614dd25e45e507e089f888280e0"   # "Swap FlashMLA combine grid dimensions (#182)"

LIBRARY = gpu_only_library(
    "flashmla", "flash_mla",
    install=install("deepseek-ai/FlashMLA", SHA, "pip install --no-build-isolation --no-deps ."),
    missing=" (C++ porting report: headers 7/7, names 17/18 provided; "
            "missing torch::kFloat8_e4m3fn)",
    report="C++ porting report (Paddle 3.3.1 compat headers): headers 7/7, names 17/18, macros "
           "1/1 provided; missing: torch::kFloat8_e4m3fn (2 uses)",
)

CASES = []
