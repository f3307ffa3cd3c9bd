"""Import-time check that a supported Paddle is importable, without importing it (slow)."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import re

MIN_PADDLE = (2, 6, 2)
# Paddle ships under several distribution names (CPU, GPU per CUDA version); any will do.
DISTRIBUTIONS = ("paddlepaddle", "paddlepaddle-gpu", "paddlepaddle-cpu", "paddlepaddle-dcu",
                 "paddlepaddle-xpu", "paddlepaddle-rocm")
INSTALL_HINT = ("install PaddlePaddle >= 2.6.2 first: `pip install paddlepaddle` (CPU) or the "
                "GPU build for your CUDA version (`pip install paddlepaddle-gpu`, see "
                "paddlepaddle.org.cn/install)")


def parse_version(text: str) -> tuple[int, ...]:
    nums = re.findall(r"\d+", text.split("+")[0])[:3]
    return tuple(int(n) for n in nums) + (0,) * (3 - len(nums))


def paddle_version() -> str:
    """The installed Paddle's version string; ImportError with what to install if none."""
    if importlib.util.find_spec("paddle") is None:
        raise ImportError(f"torchproxy: PaddlePaddle is not installed; {INSTALL_HINT}")
    for dist in DISTRIBUTIONS:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    import paddle  # a source build with no distribution metadata: ask it
    return paddle.__version__


def check() -> str:
    version = paddle_version()
    parsed = parse_version(version)
    if parsed != (0, 0, 0) and parsed < MIN_PADDLE:  # 0.0.0 = Paddle develop builds
        raise ImportError(f"torchproxy: PaddlePaddle {version} is too old; {INSTALL_HINT}")
    return version
