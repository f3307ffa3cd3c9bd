"""Names that real clients (Triton's tutorials, Liger-Kernel's tests; tests/clients/) reach for:
each one differential against real torch (tests/difftest.py)."""
import numpy as np
import pytest

from difftest import check

RNG = np.random.default_rng(11)
F32 = RNG.standard_normal((4, 6)).astype("float32")
F16 = RNG.standard_normal((4, 6)).astype("float16")


# -- size= keyword of the creation functions (Triton 04: torch.randn(size=(10, ))) ----------------
@pytest.mark.parametrize("fn", ["randn", "rand", "zeros", "ones", "empty"])
def test_size_keyword(fn):
    check(f"""
import torch
def f():
    t = torch.{fn}(size=(3, 5), dtype=torch.float32)
    return tuple(t.shape), t.dtype
""")


@pytest.mark.parametrize("fn", ["randn", "zeros"])
def test_size_keyword_and_positional_conflict(fn):
    check(f"""
import torch
def f():
    return torch.{fn}(2, size=(3,))
""")


def test_randn_size_keyword_values_are_normal():
    check("""
import torch
def f():
    t = torch.randn(size=(20000,))
    return bool(abs(float(t.mean())) < 0.05), bool(abs(float(t.std()) - 1) < 0.05)
""")


# -- integer tolerances (Triton 03/05: torch.allclose(a, b, atol=1e-2, rtol=0)) ------------------
@pytest.mark.parametrize("expr", ["torch.allclose(x, y, atol=1e-2, rtol=0)",
                                  "torch.allclose(x, y, rtol=0, atol=0)",
                                  "torch.allclose(x, x, 0, 0)",
                                  "torch.isclose(x, y, rtol=0, atol=1)",
                                  "x.allclose(y, rtol=1, atol=0)"])
def test_integer_tolerances(expr):
    y = F32 + np.float32(5e-3)
    check(f"""
import torch
def f(x, y):
    return {expr}
""", F32, y)


# -- axis= as an alias of dim= (Triton 02: torch.softmax(x, axis=1)) -----------------------------
@pytest.mark.parametrize("expr", ["torch.softmax(x, axis=1)", "torch.softmax(x, axis=0)",
                                  "torch.log_softmax(x, axis=-1)", "x.softmax(axis=1)",
                                  "torch.softmax(x, 1)", "torch.softmax(x, dim=1)"])
def test_softmax_axis_alias(expr):
    check(f"""
import torch
def f(x):
    return {expr}
""", F32)


@pytest.mark.parametrize("expr", ["torch.softmax(x)", "torch.softmax(x, 1, axis=1)"])
def test_softmax_dim_errors(expr):
    check(f"""
import torch
def f(x):
    return {expr}
""", F32)


# -- float16 on the CPU: torch computes in float32 and rounds -------------------------------------
def test_layer_norm_half_forward_backward():
    x = (RNG.standard_normal((5, 16)) * 0.5 - 2.3).astype("float16")
    w = RNG.random(16).astype("float16")
    b = RNG.random(16).astype("float16")
    dy = (RNG.standard_normal((5, 16)) * 0.1).astype("float16")
    check("""
import torch
def f(x, w, b, dy):
    x.requires_grad_(True); w.requires_grad_(True); b.requires_grad_(True)
    y = torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, 1e-5)
    y.backward(dy)
    return y.detach(), x.grad, w.grad, b.grad
""", x, w, b, dy, rtol=2e-2, atol=2e-2)


def test_layer_norm_half_keyword_weight():
    x = RNG.standard_normal((3, 8)).astype("float16")
    w = RNG.random(8).astype("float16")
    check("""
import torch
def f(x, w):
    return torch.nn.functional.layer_norm(x, [8], weight=w, bias=None, eps=1e-5)
""", x, w)


@pytest.mark.parametrize("expr", ["F.log_softmax(x, dim=-1)", "F.softmax(x, dim=0)",
                                  "F.softmax(x, dim=1, dtype=torch.float32)",
                                  "F.cross_entropy(x, t)",
                                  "F.cross_entropy(x, t, reduction='none')",
                                  "F.cross_entropy(x, t, ignore_index=2, reduction='sum')"])
def test_functional_half(expr):
    t = np.array([0, 2, 5, 1], "int64")
    check(f"""
import torch
import torch.nn.functional as F
def f(x, t):
    return {expr}
""", F16, t)


def test_cross_entropy_half_backward():
    t = np.array([0, 2, 5, 1], "int64")
    check("""
import torch
import torch.nn.functional as F
def f(x, t):
    x.requires_grad_(True)
    loss = F.cross_entropy(x, t)
    loss.backward()
    return loss.detach(), x.grad
""", F16, t)


# -- boolean mask over the trailing dims (Triton 06: p[:, :, M == 0] = float("-inf")) -------------
def test_setitem_mask_trailing_dims():
    p = RNG.standard_normal((2, 3, 4, 4)).astype("float32")
    check("""
import torch
def f(p):
    M = torch.tril(torch.ones((4, 4)))
    p[:, :, M == 0] = float("-inf")
    return p
""", p)


def test_setitem_mask_middle_dim_and_tensor_value():
    p = RNG.standard_normal((3, 5, 2)).astype("float32")
    m = np.array([True, False, True, True, False])
    check("""
import torch
def f(p, m):
    p[:, m, 1] = torch.zeros(())
    p[0, m] = 7.0
    return p
""", p, m)


def test_setitem_mask_backward():
    p = RNG.standard_normal((2, 4, 4)).astype("float32")
    check("""
import torch
def f(p):
    p.requires_grad_(True)
    q = p * 2
    M = torch.tril(torch.ones((4, 4)))
    q[:, M == 0] = 0.0
    q.sum().backward()
    return q.detach(), p.grad
""", p)


def test_setitem_plain_indices_unchanged():
    p = RNG.standard_normal((3, 4)).astype("float32")
    check("""
import torch
def f(p):
    p[1] = 0.0
    p[:, 2] = 1.0
    p[p > 1.5] = 9.0
    return p
""", p)


# -- float8 on the CPU (Triton 06: torch.empty_like(q) for float8_e5m2 q) ------------------------
@pytest.mark.parametrize("dt", ["float8_e5m2", "float8_e4m3fn"])
def test_empty_like_float8(dt):
    import paddle
    if paddle.__version__.startswith("2."):
        pytest.skip(f"gaps.toml: torch.{dt} (Paddle 2.6)")
    check(f"""
import torch
def f(x):
    q = x.to(torch.{dt})
    o = torch.empty_like(q)
    o2 = torch.empty_like(q, dtype=torch.float16)
    return tuple(o.shape), o.dtype, tuple(o2.shape), o2.dtype
""", F32)


# -- isposinf / isneginf (Liger's tests) ----------------------------------------------------------
VALS = np.array([1.0, np.inf, -np.inf, np.nan, 0.0, -3.0], "float32")


@pytest.mark.parametrize("fn", ["isposinf", "isneginf"])
@pytest.mark.parametrize("x", [VALS, VALS.astype("float16"), VALS.astype("float64"),
                               np.array([1, -2, 3], "int64"), np.array([True, False])],
                         ids=["f32", "f16", "f64", "i64", "bool"])
def test_signed_inf(fn, x):
    check(f"""
import torch
def f(x):
    return torch.{fn}(x), x.{fn}()
""", x)


def test_signed_inf_out():
    check("""
import torch
def f(x):
    out = torch.empty(6, dtype=torch.bool)
    r = torch.isposinf(x, out=out)
    return r is out, out
""", VALS)


# -- deterministic mode (Liger's test/utils.py: require_deterministic) ---------------------------
def test_deterministic_mode_round_trip():
    check("""
import torch
def f():
    before = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True, warn_only=True)
    on = (torch.are_deterministic_algorithms_enabled(),
          torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(before)
    return before, on, torch.are_deterministic_algorithms_enabled(), \\
        torch.is_deterministic_algorithms_warn_only_enabled()
""")


def test_deterministic_mode_rejects_non_bool():
    check("""
import torch
def f():
    torch.use_deterministic_algorithms("yes")
""")


# -- nonzero of a 0-d tensor (Liger's test helpers) ------------------------------------------------
@pytest.mark.parametrize("v", [np.array(5.0, "float32"), np.array(0, "int64"), np.array(True)],
                         ids=["f32-nonzero", "i64-zero", "bool"])
def test_nonzero_0d(v):
    check("""
import torch
def f(x):
    return torch.nonzero(x), x.nonzero(), torch.nonzero(x, as_tuple=True)
""", v)


# -- autograd.Function.backward returning a gradient for an input that needs none (Liger) ---------
def test_function_backward_grad_for_input_without_grad():
    x = np.arange(6, dtype="float32").reshape(2, 3)
    check("""
import torch
class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        return a * b * scale
    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b * ctx.scale, g * a * ctx.scale, None
def f(a, b):
    a.requires_grad_(True)
    y = Mul.apply(a, b, 2.0)
    y.sum().backward()
    return y.detach(), a.grad, b.grad
""", x, x + 1)


# -- torch.multiprocessing (Liger's test_swiglu/test_rms_norm import it at the top) ---------------
def test_multiprocessing_module():
    check("""
import torch.multiprocessing as mp
def f():
    q = mp.SimpleQueue()
    q.put([1, 2.5, "x"])
    return (mp.cpu_count() > 0, q.get(), mp.get_context("fork").get_start_method(),
            "spawn" in mp.get_all_start_methods(), mp.current_process().name)
""")


# -- x[index]: torch's slice clamping and negative list entries (Paddle 2.6 needs the facade's
# Tensor.__getitem__; nanoGPT's generate indexes x[:, [-1], :]) ----------------------------------
@pytest.mark.parametrize("index", [
    "[:, [-1]]", "[[-1, 0, -4]]", "[:, 0:-7]", "[:, -9:-7]", "[:, 3:1]", "[5:9]", "[..., 1:1]",
    "[1:, -3:]", "[:, torch.tensor([-1, 2])]", "[None, :, -2:]", "[:, 1::2]", "[1]", "[-1, -2]",
    "[..., [-1]]",
])
def test_getitem_index_as_torch_reads_it(index):
    check(f"""
import torch
def f(x):
    y = x.clone().requires_grad_()
    v = y{index}
    (v * 2).sum().backward()
    return v, y.grad
""", F32)


def test_getitem_nanogpt_last_position():
    check("""
import torch
def f(x):
    return x.reshape(2, 3, 4)[:, [-1], :]
""", F32)


# -- names Hugging Face transformers 4.57.1 and safetensors reach for (tests/clients/
#    hf_transformers.py runs the models) ------------------------------------------------------
@pytest.mark.parametrize("elem", ["3", "5", "2.0", "torch.tensor([1, 2])", "torch.tensor(9)",
                                  "'a'"])
def test_tensor_contains(elem):
    check(f"import torch\ndef f(x):\n    return {elem} in x\n",
          np.array([[1, 2], [3, 4]], dtype="int64"))


def test_tensor_layout_is_strided():
    check("import torch\ndef f(x):\n    return x.layout == torch.strided, x.layout != torch.strided,"
          " repr(x.layout)\n", np.ones(2, dtype="float32"))


@pytest.mark.parametrize("grad_dtype,input_dtype", [("float32", "float32"),
                                                    ("float64", "float64"),
                                                    ("float16", "float32"),
                                                    ("float32", "float16"),
                                                    ("float64", "float32"),
                                                    ("float32", "float64")])
def test_softmax_backward_data(grad_dtype, input_dtype):
    rng = np.random.default_rng(3)
    g = rng.standard_normal((2, 5)).astype(grad_dtype)
    x = rng.standard_normal((2, 5)).astype(grad_dtype)
    check(f'''
import torch
def f(g, x):
    out = torch.softmax(x, 1)
    return torch._softmax_backward_data(g, out, 1, torch.{input_dtype})
''', g, x, rtol=1e-3, atol=1e-3)


def test_softmax_backward_data_refuses_an_output_of_another_dtype():
    rng = np.random.default_rng(4)
    check('''
import torch
def f(g, x):
    return torch._softmax_backward_data(g, torch.softmax(x, 1).double(), 1, torch.float32)
''', rng.standard_normal((2, 5)).astype("float32"), rng.standard_normal((2, 5)).astype("float32"))


def test_make_subclass_shares_memory():
    check('''
import torch
class Mask(torch.Tensor):
    pass
def f(x):
    m = torch.Tensor._make_subclass(Mask, x, require_grad=False)
    x.add_(1)
    return isinstance(m, Mask), isinstance(m, torch.Tensor), m.requires_grad, m + 0
''', np.arange(4, dtype="float32"))


@pytest.mark.parametrize("case", [
    "torch.asarray([1, 2.5])", "torch.asarray(3)", "torch.asarray([[1, 2]])",
    "torch.asarray(x) is x", "torch.asarray(x, dtype=torch.float64)",
    "torch.asarray(x, dtype=torch.float64, copy=False)", "torch.asarray(x, copy=True) is x",
    "torch.asarray(x.numpy())", "torch.asarray([1, 2], dtype=torch.int32, requires_grad=False)",
])
def test_asarray(case):
    check(f"import torch\ndef f(x):\n    return {case}\n", np.arange(3, dtype="float32"))


def test_asarray_shares_numpy_memory():
    check('''
import numpy as np
import torch
def f():
    a = np.arange(3.0)
    t = torch.asarray(a)
    a[0] = 9
    return t
''')


def test_storage_from_file_slices_and_asarray(tmp_path):
    """safetensors' torch loader: UntypedStorage.from_file(shared=False, nbytes) -> untyped()
    -> storage[a:b] -> asarray(dtype=uint8) -> view(dtype) -> reshape."""
    from torchproxy.paddle_shims import IS_PADDLE_2
    if IS_PADDLE_2:
        pytest.skip("Tensor.view(dtype) needs Paddle >= 3.0 (tensor_methods._view_dtype), so "
                    "safetensors' torch loader cannot run on Paddle 2.6")
    path = tmp_path / "blob.bin"
    raw = np.arange(6, dtype=np.float32).tobytes() + np.arange(4, dtype=np.int16).tobytes()
    path.write_bytes(raw)
    check(f'''
import torch
def f():
    s = torch.UntypedStorage.from_file({str(path)!r}, shared=False, nbytes={len(raw)}).untyped()
    a = torch.asarray(s[0:24], dtype=torch.uint8, device="cpu").view(dtype=torch.float32)
    b = torch.asarray(s[24:32], dtype=torch.uint8).view(dtype=torch.int16).reshape([2, 2])
    return len(s), s[4], len(s[8:16]), a.reshape([2, 3]), b, torch.asarray(s[0:4])
''')
    check(f'''
import torch
def f():
    return torch.UntypedStorage.from_file({str(path)!r}, shared=False, nbytes=10**6)
''')
