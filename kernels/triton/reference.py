"""numpy references for the kernels in this package (fp64 math, cast to the input dtype)."""
import numpy as np


def add(x, y):
    return (x.astype(np.float64) + y.astype(np.float64)).astype(x.dtype)


def matmul_relu(a, b):
    return np.maximum(a.astype(np.float64) @ b.astype(np.float64), 0.0).astype(a.dtype)


def softmax(x):
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(x.dtype)


def rmsnorm(x, w, eps):
    x64 = x.astype(np.float64)
    rstd = 1.0 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + eps)
    return (x64 * rstd * w.astype(np.float64)).astype(x.dtype)


def rmsnorm_backward(x, w, eps, dy):
    """(dx, dw) of sum(rmsnorm(x, w) * dy)."""
    x64, w64, dy64 = (a.astype(np.float64) for a in (x, w, dy))
    n = x.shape[1]
    rstd = 1.0 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + eps)
    dyw = dy64 * w64
    c = (dyw * x64).sum(axis=1, keepdims=True) / n
    dx = rstd * (dyw - x64 * rstd ** 2 * c)
    dw = (dy64 * x64 * rstd).sum(axis=0)
    return dx.astype(x.dtype), dw.astype(w.dtype)


def layernorm(x, w, b, eps):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    y = (x64 - mean) * rstd * w.astype(np.float64) + b.astype(np.float64)
    return y.astype(x.dtype), mean[:, 0].astype(np.float32), rstd[:, 0].astype(np.float32)


def silu_mul(x, y):
    x64 = x.astype(np.float64)
    return (x64 / (1.0 + np.exp(-x64)) * y.astype(np.float64)).astype(x.dtype)


# tolerances (rtol, atol) by dtype name, for outputs computed in fp32 and stored in the dtype
TOL = {"float32": (1e-5, 1e-5), "float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}
