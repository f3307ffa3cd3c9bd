"""torch's numpy-style keyword aliases: its Python argument parser accepts ``axis=`` for
``dim=`` and ``keepdims=`` for ``keepdim=`` on every native function and Tensor method
(``numpy_compatibility_arg_names`` in torch/csrc/utils/python_arg_parser.cpp), so
``torch.cummax(x, axis=0)`` and ``x.sum(axis=1, keepdims=True)`` work.  The registry wraps the
``torch.<name>`` functions and Tensor methods whose signature has ``dim``/``keepdim`` (and no
``axis``/``keepdims`` or ``**kwargs`` of its own); the wrapper renames the keyword and calls the
function.  torch.nn.functional and the other Python-level namespaces take no aliases in torch,
so they are not wrapped."""
from __future__ import annotations

import functools
import inspect
import types

_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"))


def _alias_pairs(fn):
    if not isinstance(fn, types.FunctionType):
        return ()
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return ()
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return ()
    return tuple((alias, real) for alias, real in _ALIASES
                 if real in params and alias not in params)


def with_aliases(torch_name: str, fn):
    """``fn`` taking ``axis=``/``keepdims=`` as torch does, or ``fn`` itself when nothing to
    add (or not a native torch name)."""
    parts = torch_name.split(".")
    native = len(parts) == 2 or (len(parts) == 3 and parts[1] == "Tensor")
    pairs = _alias_pairs(fn) if native else ()
    if not pairs:
        return fn

    @functools.wraps(fn)
    def aliased(*args, **kwargs):
        if kwargs:
            for alias, real in pairs:
                if alias in kwargs:
                    if real in kwargs:
                        raise TypeError(f"{parts[-1]}() got multiple values for argument "
                                        f"'{real}' (also given as '{alias}')")
                    kwargs[real] = kwargs.pop(alias)
        return fn(*args, **kwargs)
    return aliased
