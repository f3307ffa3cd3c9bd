"""What eager code asks torch's compiler, exporter and accelerator API (facade/compiler_probes.py,
accelerator.py, the SDP switches of nn_functional_attention.py, ops_clients.py's deterministic
debug mode and checkpoint), against real torch's answers on this CPU machine."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import check, load

pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _keep_real_torchs_distribution_validation():
    # real torch.cond compiles its branches with dynamo, which turns distributions' argument
    # validation off for the whole process (Distribution.set_default_validate_args(False)) and
    # leaves it off: later oracle calls (test_distributions) would then not raise
    import torch
    before = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution.set_default_validate_args(before)


def test_export_and_trace_probes():
    check('''
import torch
import torch._dynamo
from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex
def f(x):
    with TransformGetItemToIndex():
        y = x[torch.tensor(1)]
    torch._dynamo.mark_static_address(x)
    return (torch.compiler.is_exporting(), torch.compiler.is_compiling(),
            isinstance(x, torch.fx.Proxy), isinstance(3, torch.fx.Proxy), y)
''', np.arange(3, dtype="float32"))


@pytest.mark.parametrize("call", ["torch._dynamo.mark_static_address(3)",
                                  "torch._dynamo.config.no_such_setting",
                                  "setattr(torch._dynamo.config, 'no_such_setting', 1)"])
def test_probe_errors(call):
    check(f'''
import torch
import torch._dynamo
def f():
    return {call}
''')


def test_dynamo_config_is_an_importable_module():
    """Liger-Kernel's chunked losses (fused_linear_ppo) do `import torch._dynamo.config`."""
    check('''
import torch
import torch._dynamo.config
import torch._dynamo.config as cfg
from torch._dynamo import config
def f():
    import types
    return (cfg is config is torch._dynamo.config, isinstance(cfg, types.ModuleType),
            cfg.__name__, cfg.cache_size_limit)
''')


def test_dynamo_config_names_defaults_and_alias():
    check('''
import torch
import torch._dynamo
def f():
    c = torch._dynamo.config
    before = (c.cache_size_limit, c.recompile_limit, c.accumulated_cache_size_limit,
              c.capture_scalar_outputs, c.suppress_errors)
    old = c.cache_size_limit
    c.cache_size_limit = 64
    after = (c.cache_size_limit, c.recompile_limit)
    c.cache_size_limit = old
    return before, after
''')


@pytest.mark.parametrize("pred", ["True", "False", "torch.tensor(True)", "torch.tensor([0])",
                                  "torch.tensor([True, False])", "'a'"])
def test_cond_runs_the_chosen_branch(pred):
    check(f'''
import torch
def f(x):
    return torch.cond({pred}, lambda a: a + 1, lambda a: a - 1, (x,))
''', np.ones(2, dtype="float32"))


def test_xpu_probes_without_an_xpu():
    """What Hugging Face transformers asks torch.xpu (import_utils, modeling_utils' memory
    planning): both CPU builds here answer 0 / False."""
    check('''
import torch
def f():
    return (torch.xpu.is_available(), torch.xpu.device_count(), torch.xpu.is_bf16_supported(),
            torch.xpu.is_bf16_supported(including_emulation=False),
            torch.xpu.memory_allocated(), torch.xpu.memory_allocated(0),
            torch.xpu.memory_reserved(), torch.xpu.memory_reserved(0))
''')


def test_is_traceable_wrapper_subclass():
    """huggingface_hub's storage ids (save_pretrained) ask it of every tensor: plain tensors and
    Parameters are no traceable wrapper subclass; a subclass with the flatten protocol is."""
    check('''
import torch
from torch.utils._python_dispatch import is_traceable_wrapper_subclass as f_
def f(x):
    p = torch.nn.Parameter(x.clone())
    return (f_(x), f_(p), f_(3), f_(None))
''', np.ones(2, dtype="float32"))


def test_incompatible_keys_at_torchs_path():
    """torch.nn.modules.module._IncompatibleKeys: what load_state_dict returns, built directly
    by transformers' load_sharded_checkpoint."""
    check('''
import torch
def f():
    K = torch.nn.modules.module._IncompatibleKeys
    res = torch.nn.Linear(2, 3).load_state_dict({"weight": torch.zeros(3, 2)}, strict=False)
    made = K(["a"], [])
    return (isinstance(res, K), repr(res), res.missing_keys, repr(K([], [])), repr(made),
            made.missing_keys, made.unexpected_keys, K.__name__, K.__module__)
''')


def test_accelerator_on_this_machine():
    """CPU builds on both sides here: no accelerator, and torch's RuntimeError where one is
    needed."""
    import paddle
    if paddle.is_compiled_with_cuda():
        pytest.skip("compares a CPU-only machine's answers (real torch here is the CPU build)")
    check('''
import torch
def f():
    a = torch.accelerator
    return a.is_available(), a.current_accelerator(), a.device_count(), hasattr(torch, "npu"), \\
        hasattr(torch, "musa"), hasattr(torch, "hpu"), hasattr(torch, "mlu")
''')
    for call in ("current_device_index()", "synchronize()", "set_device_index(0)"):
        check(f"import torch\ndef f():\n    return torch.accelerator.{call}\n")


def test_cpu_stream():
    check('''
import torch
def f():
    s = torch.Stream()
    return (s.device_type, s.device_index, s.stream_id, s.query(), s.synchronize(), repr(s),
            str(s.device), s == torch.Stream(), hash(s) == hash(torch.Stream()))
''')


def test_sdp_switches_shared_with_sdpa_kernel():
    check('''
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
def f(q):
    b = torch.backends.cuda
    out = [(b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled(),
            b.cudnn_sdp_enabled())]
    with sdpa_kernel(SDPBackend.MATH):
        out.append((b.flash_sdp_enabled(), b.math_sdp_enabled()))
    out.append(b.flash_sdp_enabled())
    b.enable_flash_sdp(False)
    try:
        out.append(b.flash_sdp_enabled())
        out.append(torch.nn.functional.scaled_dot_product_attention(q, q, q))
        b.enable_math_sdp(False)
        try:
            torch.nn.functional.scaled_dot_product_attention(q, q, q)
        except RuntimeError:
            out.append("no backend")
    finally:
        b.enable_flash_sdp(True)
        b.enable_math_sdp(True)
    return out
''', np.random.default_rng(0).standard_normal((1, 2, 3, 4)).astype("float32"))
    check("import torch\ndef f():\n    return torch.backends.cuda.enable_flash_sdp('x')\n")


def test_flex_attention_import_names():
    check('''
import torch
from torch.nn.attention.flex_attention import _DEFAULT_SPARSE_BLOCK_SIZE, BlockMask
def f(x):
    return _DEFAULT_SPARSE_BLOCK_SIZE, isinstance(x, BlockMask)
''', np.ones(2, dtype="float32"))


@pytest.mark.parametrize("mode", ["'default'", "'warn'", "'error'", "0", "1", "2", "'x'", "3",
                                  "1.0"])
def test_deterministic_debug_mode(mode):
    check(f'''
import torch
def f():
    before = torch.get_deterministic_debug_mode()
    try:
        torch.set_deterministic_debug_mode({mode})
        return (torch.get_deterministic_debug_mode(), torch.are_deterministic_algorithms_enabled(),
                torch.is_deterministic_algorithms_warn_only_enabled())
    finally:
        torch.set_deterministic_debug_mode(before)
''')


def test_checkpoint_values_and_gradients():
    check('''
import torch
from torch.utils.checkpoint import checkpoint
def f(x):
    x = x.clone().requires_grad_(True)
    y = checkpoint(lambda a, b=2.0: (a * b).sin(), x, b=3.0, use_reentrant=False)
    y.sum().backward()
    return y.detach(), x.grad
''', np.linspace(-1, 1, 5).astype("float32"))
    check('''
import torch
from torch.utils.checkpoint import checkpoint
def f(x):
    return checkpoint(lambda a, b=1: a * b, x, b=3, use_reentrant=True)
''', np.ones(2, dtype="float32"))


@pytest.mark.parametrize("name", ["uniform", "normal", "xavier_uniform", "kaiming_normal"])
def test_nn_init_deprecated_names_warn_and_init(name):
    check(f'''
import warnings
import torch
def f():
    w = torch.empty(3, 4)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = torch.nn.init.{name}(w)
    return out is w, tuple(w.shape), [str(r.message) for r in rec], [r.category for r in rec]
''')


def test_fsdp_type_for_isinstance():
    check('''
import torch
import torch.distributed.fsdp
def f():
    m = torch.nn.Linear(2, 2)
    return isinstance(m, torch.distributed.fsdp.FullyShardedDataParallel)
''')
