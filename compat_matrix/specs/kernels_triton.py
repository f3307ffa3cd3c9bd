"""Our own Triton kernels (kernels/triton): torch-style host wrappers, unmodified.

Called through their public wrappers; numpy references from kernels/triton/reference.py check
the oracle itself.  On CPU they run in the Triton interpreter.
"""
from compat_matrix.spec import Case, randn, value
from compat_matrix.shared.triton_rows import triton_library

LIBRARY = triton_library(
    "kernels_triton", "kernels.triton", requires=("triton", "kernels"),
    install=("pip install -r ci/requirements-main.txt  # triton; kernels/ ships with torchproxy",))


def _ref(name, post=None):
    """A numpy reference from kernels/triton/reference.py, imported when used."""
    def ref(*args):
        import importlib
        out = getattr(importlib.import_module("kernels.triton.reference"), name)(*args)
        return post(out, *args) if post else out
    ref.__name__ = f"reference.{name}"
    return ref


def add(x, y):
    from kernels.triton.add import add
    return add(x, y)


def add_out(x, y):
    import torch
    from kernels.triton.add import add
    out = torch.empty_like(x)
    res = add(x, y, out=out)
    return out, res.data_ptr() == out.data_ptr()


def matmul_relu(a, b):
    from kernels.triton.matmul import matmul_relu
    return matmul_relu(a, b)


def matmul_relu_autotuned(a, b):
    from kernels.triton.matmul import matmul_relu_autotuned
    return matmul_relu_autotuned(a, b)


def softmax(x):
    from kernels.triton.softmax import softmax
    return softmax(x)


def softmax_strided(x):
    from kernels.triton.softmax import softmax
    return softmax(x.t())  # a transposed view: rows are not contiguous


def rmsnorm(x, w, eps):
    from kernels.triton.rmsnorm import rmsnorm
    return rmsnorm(x, w, eps)


def rmsnorm_backward(x, w, eps, dy):
    from kernels.triton.rmsnorm import rmsnorm
    y = rmsnorm(x, w, eps)
    y.backward(dy)
    return y, x.grad, w.grad


def layernorm(x, w, b, eps):
    from kernels.triton.layernorm import layernorm
    return layernorm(x, w, b, eps)


def silu_mul(x, y):
    from kernels.triton.library_op import silu_mul
    return silu_mul(x, y)


def silu_mul_op(x, y):
    import torch
    from kernels.triton import library_op
    return torch.ops.torchproxy_kernels.silu_mul(x, y)


F16 = {"float16": (2e-3, 2e-3)}
CASES = [
    Case("add", add, inputs=[randn(1000), randn(1000)], reference=_ref("add"),
         imports=("kernels.triton.add",)),
    Case("add_fp16", add, inputs=[randn(777, dtype="float16"), randn(777, dtype="float16")],
         reference=_ref("add"), tol=F16, imports=("kernels.triton.add",)),
    Case("add_out", add_out, inputs=[randn(64), randn(64)], imports=("kernels.triton.add",),
         reference=lambda x, y: (x + y, True)),
    Case("matmul_relu", matmul_relu, inputs=[randn(48, 32), randn(32, 40)],
         reference=_ref("matmul_relu"), tol={"float32": (1e-4, 1e-5)},
         imports=("kernels.triton.matmul",)),
    Case("matmul_relu_fp16", matmul_relu,
         inputs=[randn(32, 32, dtype="float16"), randn(32, 32, dtype="float16")],
         reference=_ref("matmul_relu"), tol={"float16": (1e-2, 1e-2)},
         imports=("kernels.triton.matmul",)),
    Case("matmul_relu_autotuned", matmul_relu_autotuned, inputs=[randn(64, 32), randn(32, 64)],
         reference=_ref("matmul_relu"), tol={"float32": (1e-4, 1e-5)},
         imports=("kernels.triton.matmul",)),
    Case("softmax", softmax, inputs=[randn(16, 100)], reference=_ref("softmax"),
         imports=("kernels.triton.softmax",)),
    Case("softmax_strided", softmax_strided, inputs=[randn(50, 12)],
         reference=lambda x: _ref("softmax")(x.T.copy()), imports=("kernels.triton.softmax",)),
    Case("rmsnorm", rmsnorm, inputs=[randn(8, 64), randn(64), value(1e-6)],
         reference=_ref("rmsnorm"), imports=("kernels.triton.rmsnorm",)),
    Case("rmsnorm_backward", rmsnorm_backward,
         inputs=[randn(8, 64, grad=True), randn(64, grad=True), value(1e-6), randn(8, 64)],
         reference=lambda x, w, eps, dy: (_ref("rmsnorm")(x, w, eps),
                                          *_ref("rmsnorm_backward")(x, w, eps, dy)),
         tol={"float32": (1e-4, 1e-5)}, imports=("kernels.triton.rmsnorm",)),
    Case("layernorm", layernorm, inputs=[randn(8, 64), randn(64), randn(64), value(1e-5)],
         reference=_ref("layernorm"), tol={"float32": (1e-4, 1e-5)},
         imports=("kernels.triton.layernorm",)),
    # the numpy reference checks the oracle too: Triton's interpreter added bf16 bit patterns
    # (the same garbage on every backend) until torchproxy's bf16 interpreter fix
    Case("add_bf16", add, inputs=[randn(513, dtype="bfloat16"), randn(513, dtype="bfloat16")],
         reference=_ref("add"), imports=("kernels.triton.add",)),
    Case("add_2d", add, inputs=[randn(33, 65), randn(33, 65)], reference=_ref("add"),
         imports=("kernels.triton.add",)),
    Case("softmax_fp16", softmax, inputs=[randn(8, 130, dtype="float16")], tol=F16,
         imports=("kernels.triton.softmax",)),
    Case("softmax_wide", softmax, inputs=[randn(3, 1000)], reference=_ref("softmax"),
         imports=("kernels.triton.softmax",)),
    Case("rmsnorm_fp16", rmsnorm, inputs=[randn(8, 64, dtype="float16"), randn(64, dtype="float16"),
                                          value(1e-6)], tol=F16, imports=("kernels.triton.rmsnorm",)),
    Case("matmul_relu_odd", matmul_relu, inputs=[randn(37, 19), randn(19, 23)],
         reference=_ref("matmul_relu"), tol={"float32": (1e-4, 1e-5)},
         imports=("kernels.triton.matmul",)),
    Case("silu_mul", silu_mul, inputs=[randn(300), randn(300)], reference=_ref("silu_mul"),
         imports=("kernels.triton.library_op",)),
    Case("silu_mul_torch_ops", silu_mul_op, inputs=[randn(300), randn(300)],
         reference=_ref("silu_mul"), imports=("kernels.triton.library_op",)),
]
