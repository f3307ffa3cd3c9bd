"""What eager code asks torch's compiler and exporter, answered for a facade that never compiles:
``torch.compiler.is_exporting`` / ``torch._dynamo.is_exporting`` (False), ``torch.fx.Proxy`` (a
class no value is an instance of: nothing is ever traced), ``torch._dynamo.mark_static_address``
(a hint for CUDA graphs), ``torch._dynamo.config`` (settings with torch's names and defaults,
which nothing reads), ``torch._dynamo._trace_wrapped_higher_order_op.TransformGetItemToIndex``
(a mode that only matters under vmap tracing) and ``torch.cond`` run eagerly.  Hugging Face
transformers calls these on every forward or at import (masking_utils, cache_utils,
generation), and huggingface_hub asks ``torch.utils._python_dispatch.
is_traceable_wrapper_subclass`` when it saves.  torch.compile / torch.compiler basics are in
runtime.py.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: cond fx
    torch._dynamo: _trace_wrapped_higher_order_op config is_exporting mark_static_address
    torch._dynamo._trace_wrapped_higher_order_op: TransformGetItemToIndex
    torch.compiler: is_exporting
    torch.fx: Proxy
    torch.utils: _python_dispatch
    torch.utils._python_dispatch: is_traceable_wrapper_subclass
""")

import types

import paddle

from .registry import module, torch_function, type_, value


@torch_function("torch.compiler.is_exporting")
def is_exporting() -> bool:
    return False  # torch.export never runs on the facade


torch_function("torch._dynamo.is_exporting")(is_exporting)

# -- torch.fx: nothing is traced, so no value is a Proxy ----------------------------------------
module("torch.fx")


class Proxy:
    """torch.fx.Proxy stands for a value during symbolic tracing.  The facade has no tracer,
    so no Proxy is ever made: ``isinstance(x, torch.fx.Proxy)`` is False for everything, as it
    is in real torch outside ``torch.fx.symbolic_trace``."""

    def __init__(self, *args, **kwargs):
        from ..errors import NotProvidedError
        raise NotProvidedError("torch.fx.Proxy (torch.fx symbolic tracing)")


Proxy.__module__ = "torch.fx.proxy"
type_("torch.fx.Proxy", Proxy,
      note="isinstance checks only (always False): symbolic tracing is not provided, so "
           "constructing one raises NotProvidedError")


# -- torch._dynamo --------------------------------------------------------------------------------
@torch_function("torch._dynamo.mark_static_address",
                note="checks its argument as torch does; the hint itself is for compiled "
                     "CUDA graphs, which the facade has none of")
def mark_static_address(t, guard=False):
    if not isinstance(t, paddle.Tensor):
        raise TypeError(f"mark_static_address expects a tensor but received {type(t)}")


class _DynamoConfig(types.ModuleType):
    """``torch._dynamo.config``: torch's setting names with torch's defaults, readable and
    settable as there (an unknown name raises torch's AttributeError); nothing compiles, so
    no value changes behaviour.  ``cache_size_limit`` is torch's alias of
    ``recompile_limit`` (and ``accumulated_cache_size_limit`` of
    ``accumulated_recompile_limit``).  A module, as in torch: Liger-Kernel's chunked losses do
    ``import torch._dynamo.config`` (the hook imports a module held as a value)."""

    _ALIASES = {"cache_size_limit": "recompile_limit",
                "accumulated_cache_size_limit": "accumulated_recompile_limit"}
    _DEFAULTS = {
        "recompile_limit": 8, "accumulated_recompile_limit": 256, "suppress_errors": False,
        "verbose": False, "capture_scalar_outputs": False,
        "capture_dynamic_output_shape_ops": False, "automatic_dynamic_shapes": True,
        "assume_static_by_default": True, "optimize_ddp": True,
        "inline_inbuilt_nn_modules": True, "force_parameter_static_shapes": True,
        "allow_unspec_int_on_nn_module": False, "specialize_int": False,
        "specialize_float": False, "error_on_recompile": False, "guard_nn_modules": True,
    }

    def __init__(self):
        super().__init__("torch._dynamo.config")
        object.__setattr__(self, "_values", dict(self._DEFAULTS))

    def _key(self, name):
        key = self._ALIASES.get(name, name)
        if key not in self._values:
            raise AttributeError(f"torch._dynamo.config.{name} does not exist")
        return key

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._values[self._key(name)]

    def __setattr__(self, name, val):
        self._values[self._key(name)] = val

    def __repr__(self):
        return "<torchproxy facade torch._dynamo.config (no compiler: settings are kept only)>"


value("torch._dynamo.config", _DynamoConfig(),
      note="torch's setting names and defaults, settable; they change nothing (no compiler)")

module("torch._dynamo._trace_wrapped_higher_order_op")


class TransformGetItemToIndex:
    """A context manager in torch (a TorchFunctionMode) that rewrites ``tensor[index_tensor]``
    into ``torch.ops.aten.index`` so that vmap can trace it; eager indexing gives the same
    values, so entering it changes nothing here."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


TransformGetItemToIndex.__module__ = "torch._dynamo._trace_wrapped_higher_order_op"
type_("torch._dynamo._trace_wrapped_higher_order_op.TransformGetItemToIndex",
      TransformGetItemToIndex, note="entering it changes nothing (its rewrite only matters to "
                                    "vmap tracing)")


# -- torch.cond: run the chosen branch --------------------------------------------------------
@torch_function("torch.cond", note="runs the chosen branch eagerly (torch compiles the call)")
def cond(pred, true_fn, false_fn, operands=()):
    if isinstance(pred, paddle.Tensor):
        if pred.size != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got "
                               f"{pred}.")
        pred = bool(pred.item())
    elif not isinstance(pred, (bool, int, float)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    return (true_fn if pred else false_fn)(*operands)


# -- torch.utils._python_dispatch: huggingface_hub's storage ids (save_pretrained) ask it --------
module("torch.utils._python_dispatch")


@torch_function("torch.utils._python_dispatch.is_traceable_wrapper_subclass")
def is_traceable_wrapper_subclass(t) -> bool:
    """torch's test: a strict Tensor subclass with ``__tensor_flatten__`` and
    ``__tensor_unflatten__`` (the traceable wrapper protocol)."""
    return (isinstance(t, paddle.Tensor) and type(t) is not paddle.Tensor
            and hasattr(t, "__tensor_flatten__") and hasattr(t, "__tensor_unflatten__"))
