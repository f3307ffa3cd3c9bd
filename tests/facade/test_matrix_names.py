"""Names the compatibility matrix's libraries reach for (flash-linear-attention, cut-cross-entropy):
torch.cpu, torch.autograd.function.once_differentiable, the tensor-parallel names fla imports at
module level, Tensor.reshape_as, and unsigned fills (torch.full with uint32/uint64).  Each one
differential against real torch (tests/difftest.py) where torch has a behaviour to compare."""
import numpy as np
import pytest

from difftest import check, run

RNG = np.random.default_rng(14)
X = RNG.standard_normal((3, 4)).astype("float32")


# -- torch.cpu ----------------------------------------------------------------------------------
def test_cpu_module_values():
    check("""
import torch
def f():
    return (torch.cpu.current_device(), torch.cpu.device_count(), torch.cpu.is_available(),
            torch.cpu.is_initialized(), torch.cpu.synchronize(), torch.cpu.synchronize("cpu"),
            torch.cpu.set_device(0))
""")


def test_cpu_getattr_by_backend_name():
    """fla.utils.hardware: getattr(torch, 'cpu') under Triton's interpreter."""
    check("""
import torch
def f():
    lib = getattr(torch, "cpu")
    return lib.current_device(), lib.device_count(), hasattr(lib, "device")
""")


def test_cpu_stream_context_switches_and_restores():
    check("""
import torch
def f():
    default = torch.cpu.current_stream()
    s = torch.cpu.Stream()
    with torch.cpu.stream(s):
        inside = torch.cpu.current_stream() is s
    with torch.cpu.StreamContext(None):
        unchanged = torch.cpu.current_stream() is default
    e = torch.cpu.Event()
    e.record(); e.synchronize(); e.wait()
    s.wait_stream(default); s.wait_event(e); s.record_event()
    return inside, unchanged, torch.cpu.current_stream() is default, e.query()
""")


def test_cpu_get_capabilities_is_a_named_gap():
    from torchproxy.errors import NotProvidedError
    with pytest.raises(NotProvidedError, match="torch.cpu.get_capabilities"):
        run("""
import torch
def f():
    return torch.cpu.get_capabilities()
""", scoped=True)


# -- once_differentiable ------------------------------------------------------------------------
ONCE = """
import torch
from torch.autograd.function import once_differentiable

class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        seen.append(torch.is_grad_enabled())
        return 3 * x * x * g

seen = []
"""


def test_once_differentiable_first_order_grad():
    check(ONCE + """
def f(x):
    x = x.clone().requires_grad_(True)
    y = Cube.apply(x)
    y.sum().backward()
    return y.detach(), x.grad, seen[-1]
""", X)


def test_once_differentiable_keeps_name_and_runs_without_grad():
    check(ONCE + """
def f(x):
    x = x.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(Cube.apply(x).sum(), x)
    return g, Cube.backward.__name__, seen[-1], g.requires_grad
""", X)


def test_once_differentiable_double_backward_raises():
    """create_graph=True with a cotangent that requires grad: the first gradient exists and
    requires grad; differentiating it again raises torch's RuntimeError."""
    check(ONCE + """
def f(x):
    x = x.clone().requires_grad_(True)
    v = torch.ones_like(x).requires_grad_(True)
    (g,) = torch.autograd.grad(Cube.apply(x), x, grad_outputs=v, create_graph=True)
    first, flag = g.detach().clone(), g.requires_grad
    try:
        g.sum().backward()
        return first, flag, "no error"
    except RuntimeError as e:
        return first, flag, str(e)
""", X)


# -- torch.distributed tensor-parallel names (import-time in fla.modules) -----------------------
def test_placements_are_torch_values():
    check("""
import torch
from torch.distributed.tensor import Placement, Replicate, Shard
from torch.distributed.tensor.placement_types import Partial
def f():
    s = Shard(1)
    return (repr(s), str(s), s == Shard(1), s == Shard(0), hash(s) == hash(Shard(1)),
            s.is_shard(), s.is_shard(1), s.is_shard(0), s.is_replicate(), s.dim,
            repr(Replicate()), str(Replicate()), Replicate() == Replicate(),
            Replicate().is_replicate(), Replicate().is_shard(), isinstance(s, Placement),
            isinstance(Replicate(), Placement), Partial().is_partial(), s.is_partial())
""")


def test_parallel_style_is_abstract():
    check("""
import torch
from torch.distributed.tensor.parallel import ParallelStyle
class Mine(ParallelStyle):
    def _apply(self, module, device_mesh):
        return module
def f():
    try:
        ParallelStyle()
        abstract = False
    except TypeError:
        abstract = True
    return abstract, Mine()._apply(7, None), Mine.src_data_rank
""")


def test_device_mesh_and_process_group_are_types_for_annotations():
    """fla annotates with them at import; no Paddle tensor is a mesh, Paddle groups are groups."""
    out = run("""
import torch
from torch.distributed import DeviceMesh, ProcessGroup
def g(mesh: DeviceMesh | None = None, group: ProcessGroup | None = None):
    return mesh, group
def f(x):
    return g(), isinstance(x, DeviceMesh), isinstance(x, ProcessGroup)
""", X, scoped=True)
    assert out == ((None, None), False, False)


def test_device_mesh_and_distribute_module_raise_named_errors():
    from torchproxy.errors import NotProvidedError
    for body, name in (("DeviceMesh('cpu', [0])", "torch.distributed.DeviceMesh"),
                       ("torch.distributed.tensor.distribute_module(None)",
                        "torch.distributed.tensor.distribute_module"),
                       ("ProcessGroup()", "torch.distributed.ProcessGroup")):
        with pytest.raises(NotProvidedError, match=name):
            run(f"""
import torch
from torch.distributed import DeviceMesh, ProcessGroup
def f():
    return {body}
""", scoped=True)


# -- Tensor.reshape_as ----------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 3), (12,), (2, 6, 1)])
def test_reshape_as(shape):
    check("""
import torch
def f(x, other):
    y = x.reshape_as(other)
    return y, tuple(y.shape)
""", X, np.zeros(shape, "float32"))


def test_reshape_as_bad_sizes_and_argument():
    check("""
import torch
def f(x):
    return x.reshape_as(torch.zeros(5))
""", X)
    check("""
import torch
def f(x):
    return x.reshape_as((4, 3))
""", X)


# -- unsigned fills: torch.full / new_full / zeros with uint32 and uint64 -------------------------
def _needs_uint():
    import paddle
    if not hasattr(paddle, "uint32"):
        pytest.skip("this Paddle has no uint32/uint64 dtypes (Paddle 2.6: gaps.toml)")


@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
@pytest.mark.parametrize("value", [0, 5, 2**32 - 1, -1, 1.5, True, 2**32, -1.0, -2**31 - 1])
def test_full_unsigned(dtype, value):
    _needs_uint()
    check(f"""
import torch
def f():
    t = torch.full((2, 3), {value!r}, dtype=torch.{dtype})
    return t.dtype, t.to(torch.float64)
""")


def test_new_full_and_zeros_unsigned():
    """cut-cross-entropy: e.new_full((n,), 0, dtype=torch.uint32) for its locks."""
    _needs_uint()
    check("""
import torch
def f(x):
    locks = x.new_full((5,), 0, dtype=torch.uint32)
    z = torch.zeros(2, 2, dtype=torch.uint64)
    return locks.dtype, locks.to(torch.int64), z.dtype, z.to(torch.int64)
""", X)


# -- torch.get/set_float32_matmul_precision (cut-cross-entropy's DOT_PRECISION heuristic) -------
def test_float32_matmul_precision_round_trip():
    check("""
import torch
def f():
    before = torch.get_float32_matmul_precision()
    seen = []
    try:
        for p in ("high", "highest", "medium", "highest"):
            torch.set_float32_matmul_precision(p)
            seen.append((torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32))
    finally:
        torch.set_float32_matmul_precision(before)
    return before, seen, torch.get_float32_matmul_precision()
""")


def test_float32_matmul_precision_bad_value_warns_and_keeps():
    check("""
import torch, warnings
def f():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.set_float32_matmul_precision("fastest")
    return torch.get_float32_matmul_precision(), [str(x.category.__name__) for x in w]
""")


# -- storages of uint32 tensors (the Triton interpreter's view of cut-cross-entropy's locks) -----
def test_uint32_storage_set_round_trip():
    """What Triton's interpreter does with every tensor argument: new_empty(0) + set_(storage,
    offset, size, stride); Paddle has no as_strided kernel for uint32, the whole view works."""
    _needs_uint()
    check("""
import torch
def f():
    t = torch.full((6,), 7, dtype=torch.uint32)
    host = t.new_empty(0, device="cpu").set_(t.untyped_storage(), t.storage_offset(), t.size(),
                                             t.stride())
    return (host.dtype, tuple(host.shape), host.data_ptr() == t.data_ptr(),
            t.untyped_storage().nbytes(), host.to(torch.int64))
""")


def test_uint32_storage_other_view_is_refused_clearly():
    _needs_uint()
    import paddle
    import torchproxy  # noqa: F401
    from torchproxy.facade.storage import UntypedStorage, set_
    t = paddle.zeros([6], dtype="int64").cast(paddle.uint32)
    dst = paddle.zeros([0], dtype="int64").cast(paddle.uint32)
    with pytest.raises(NotImplementedError, match="set_.*uint32 tensor: Paddle .* has no as_strided/view kernels"):
        set_(dst, UntypedStorage.of_tensor(t), 2, [3], [1])


# -- uint32/uint64 comparisons and writes (Paddle's CPU build has no equal / not_equal /
# equal_all / set_value kernels for them: run on int64) ------------------------------------------
@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
@pytest.mark.parametrize("expr", [
    "torch.equal(a, a), torch.equal(a, z), a.equal(a), torch.equal(a, torch.zeros(5, dtype=dt))",
    "a == a, a != z, a == 3, torch.eq(a, 2), a.ne(1), torch.ne(a, a)",
    "w(0, 7), w(slice(1, 3), 9), w(-1, torch.tensor(8).to(dt)), w((slice(None),), 2)",
    "big == big, big != 0, torch.equal(big, big), w2(big)",
])
def test_unsigned_compare_and_setitem(dtype, expr):
    _needs_uint()
    check(f"""
import torch
def f():
    dt = torch.{dtype}
    a = torch.arange(5).to(dt)
    z = torch.zeros(5, dtype=dt)
    top = 2 ** 63 + 5 if dt == torch.uint64 else 2 ** 32 - 1
    big = torch.full((3,), top, dtype=dt)
    def w(index, value):
        b = torch.arange(5).to(dt)
        b[index] = value
        return b.to(torch.int64)
    def w2(t):
        t[1] = 3
        return t == 3
    return {expr}
""")
