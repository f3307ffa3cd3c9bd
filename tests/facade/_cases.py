"""Shared inputs for the facade differential tests (plain numpy; difftest converts them)."""
import numpy as np

RNG = np.random.default_rng(0)
F32 = RNG.standard_normal((3, 4)).astype("float32")
F32_3D = RNG.standard_normal((2, 3, 4)).astype("float32")
F16 = RNG.standard_normal((3, 4)).astype("float16")
F64 = RNG.standard_normal((3, 4)).astype("float64")
POS = (RNG.random((3, 4)) + 0.5).astype("float32")
I32 = RNG.integers(-5, 6, (3, 4)).astype("int32")
I64 = RNG.integers(-5, 6, (3, 4)).astype("int64")
B = RNG.random((3, 4)) > 0.5
EMPTY = np.zeros((0, 4), "float32")
VEC = RNG.standard_normal(5).astype("float32")
SCALAR = np.array(2.5, "float32")


def snippet(body: str) -> str:
    return f"import torch\ndef f(x, y=None):\n    return {body}\n"
