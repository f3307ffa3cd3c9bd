"""torch's meta device, the part the facade provides (paddle_shims.meta_tensor: a Paddle tensor
with a shape and a dtype and no storage): creation (torch.empty / empty_like), Tensor.to to and
from it, is_meta / device, metadata reads, and torch's refusal to read data out of it; every
answer against real torch.  What it does not provide (operators on meta tensors) is in
facade/gaps.toml."""
import pytest

import torchproxy
from difftest import check, load, run
from _cases import F32
from torchproxy.paddle_shims import META_TENSORS_SAFE


def test_paddle_26_refuses_meta_tensors_by_name():
    # Paddle 2.6 reads a storage-less tensor in numpy()/tolist() instead of raising: no meta
    # tensors there, a clear refusal instead (paddle_shims.META_TENSORS_SAFE)
    src = "import torch\ndef f():\n    return torch.empty(2, device='meta'), torch.ones(2).to('meta')\n"
    if META_TENSORS_SAFE:
        assert all(t.is_meta for t in load(src, scoped=True).f())
    else:
        with pytest.raises(torchproxy.NotProvidedError, match=r"torch.device\('meta'\) tensors on "
                                                             r"Paddle 2.6"):
            load(src, scoped=True).f()


needs_meta = pytest.mark.skipif(not META_TENSORS_SAFE, reason="no meta tensors on Paddle 2.6 "
                                "(refused by name: test_paddle_26_refuses_meta_tensors_by_name)")

# a meta tensor's description both sides can compare (a meta tensor itself has no values)
META = "def d(t):\n    return (tuple(t.shape), t.dtype, t.device.type, t.is_meta, t.dim(), t.numel())\n"


@needs_meta
@pytest.mark.parametrize("expr", [
    "torch.empty(2, 3, device='meta')", "torch.empty((2, 3), device=torch.device('meta'))",
    "torch.empty(4, dtype=torch.float64, device='meta')", "torch.empty([], device='meta')",
    "torch.empty(2, 0, device='meta')", "torch.empty(size=(3,), dtype=torch.int64, device='meta')",
    "torch.empty_like(x, device='meta')", "torch.empty_like(x, dtype=torch.float16, device='meta')",
    "torch.empty_like(torch.empty(2, 5, device='meta'))",
    "torch.empty_like(torch.empty(2, 5, device='meta'), dtype=torch.bfloat16)",
    "x.to('meta')", "x.to(torch.device('meta'))", "x.to(device='meta', dtype=torch.float64)",
    "x.to('meta').to(torch.float16)", "x.to('meta').to('meta')", "x.to('meta').to(torch.float32)",
    "torch.nn.Parameter(x.to('meta'))", "torch.nn.Parameter(torch.empty(3, device='meta'), requires_grad=False)",
])
@needs_meta
def test_meta_tensors_carry_shape_and_dtype(expr):
    check(f"import torch\n{META}def f(x):\n    return d({expr})\n", F32)


@needs_meta
@pytest.mark.parametrize("expr", [
    "m.requires_grad", "torch.nn.Parameter(m).requires_grad", "torch.nn.Parameter(m).is_meta",
    "isinstance(torch.nn.Parameter(m), torch.nn.Parameter)", "isinstance(m, torch.Tensor)",
    "m.device == torch.device('meta')", "m.device.type == 'meta'", "str(m.device)",
    "x.is_meta", "x.to('meta').is_meta", "m.to('meta') is m", "m.to(torch.float32) is m",
    "x.device.type", "m.size()", "m.shape[0]", "m.ndim", "m.dtype",
    "m.is_floating_point()", "m.element_size()",
    "torch.empty(2, 3, device='meta', requires_grad=True).requires_grad",
    # materialising: a real tensor of the meta one's shape (values unspecified: not compared)
    "tuple(torch.empty_like(m, device='cpu').shape)", "torch.empty_like(m, device='cpu').device",
    "torch.empty_like(m, dtype=torch.float64, device='cpu').dtype",
])
@needs_meta
def test_meta_metadata(expr):
    check(f"import torch\ndef f(x):\n    m = torch.empty(2, 3, device='meta')\n    return {expr}\n",
          F32)


NO_DATA = "Cannot copy out of meta tensor; no data!"


@needs_meta
@pytest.mark.parametrize("expr", ["m.to('cpu')", "m.cpu()", "m.to(x.device)",
                                  "m.to('cpu', torch.float64)", "m.to(x)"])
@needs_meta
def test_reading_data_out_of_meta_raises_torchs_error(expr):
    src = f"import torch\ndef f(x):\n    m = torch.empty(2, 3, device='meta')\n    return {expr}\n"
    messages = []
    for scoped in (False, True):
        with pytest.raises(NotImplementedError) as e:
            run(src, F32, scoped=scoped)
        messages.append(str(e.value))
    assert messages == [NO_DATA, NO_DATA]


@needs_meta
def test_creation_functions_without_meta_support_say_so():
    """torch.zeros & co. on the meta device are not provided: a RuntimeError that says what
    is (real torch returns a meta tensor, so this is checked on the facade alone)."""
    src = "import torch\ndef f():\n    return torch.zeros(2, device='meta')\n"
    with pytest.raises(RuntimeError, match="meta device"):
        run(src, scoped=True)
