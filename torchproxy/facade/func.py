"""``torch.vmap``: map a function over a dimension of its inputs and stack the results.

torch vectorizes (functorch's batching rules run each operator once on the whole batch); Paddle
has no batching rules, so the facade runs the function once per index of the mapped dimension
and stacks the outputs along ``out_dims``.  For a function without side effects that is the
same result (vmap's definition); what differs is in the entry's note: the cost (one call per
index; nested vmaps multiply), and torch's checks that need tracing (``randomness="error"``
refusing random operators, ``.item()`` refused, writing batched values into an unbatched
tensor) are not made.  Hugging Face transformers builds every attention mask it materializes
(padded batches, eager attention) with nested vmaps of small index functions
(``masking_utils._vmap_for_bhqkv``).

in_dims / out_dims follow torch: an int, or a (nested) tuple matching the structure of the
inputs / outputs (a pytree prefix: an int or None there applies to the whole subtree), with
torch's ValueErrors where they do not fit.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: vmap
""")

import functools

import paddle

from . import pytree as _pt
from .registry import torch_function


def _fname(func) -> str:
    return getattr(func, "__name__", repr(func))


def _broadcast_prefix(dims, tree, what: str, head: str):
    """``dims`` (a pytree prefix of ``tree``) -> one int/None per leaf of ``tree``."""
    leaves, spec = _pt.tree_flatten(tree)
    if dims is None or isinstance(dims, int):
        return [dims] * len(leaves)
    out = []

    def walk(d, node):
        if d is None or isinstance(d, int):
            out.extend([d] * len(_pt.tree_leaves(node)))
            return
        dl, dspec = _pt.tree_flatten(d, is_leaf=lambda v: v is None)
        if _pt.tree_is_leaf(node) or _pt._node_type(d) != _pt._node_type(node):
            raise ValueError(f"{head}: {what} is not compatible with the structure of "
                             f"`{'inputs' if what == 'in_dims' else 'outputs'}`. {what} has "
                             f"structure {dspec} but {'inputs' if what == 'in_dims' else 'outputs'}"
                             f" has structure {_pt.tree_structure(node)}.")
        dchildren, _ = _pt.SUPPORTED_NODES[_pt._node_type(d)].flatten_fn(d)
        nchildren, _ = _pt.SUPPORTED_NODES[_pt._node_type(node)].flatten_fn(node)
        if len(dchildren) != len(nchildren):
            raise ValueError(f"{head}: {what} is not compatible with the structure of "
                             f"`{'inputs' if what == 'in_dims' else 'outputs'}`. {what} has "
                             f"structure {dspec} but {'inputs' if what == 'in_dims' else 'outputs'}"
                             f" has structure {_pt.tree_structure(node)}.")
        for dc, nc in zip(dchildren, nchildren):
            walk(dc, nc)

    walk(dims, tree)
    return out


def _select(x, dim: int, i: int):
    return x[(slice(None),) * dim + (i,)]


@torch_function("torch.vmap", note="runs the function once per index of the mapped dimension "
                "and stacks the results (same values as torch's batching rules, one call per "
                "index: nested vmaps multiply the calls); randomness='error' and .item() inside "
                "are not refused, writing batched values into an unbatched tensor is not caught")
def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    name = _fname(func)

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        head = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                             "inputs, or you are trying to vmap over a function with no inputs. "
                             "The latter is unsupported.")
        if not (isinstance(in_dims, int) or isinstance(in_dims, tuple)):
            raise ValueError(f"{head}: expected `in_dims` to be int or a (potentially nested) "
                             f"tuple matching the structure of inputs, got: {type(in_dims)}.")
        if isinstance(in_dims, tuple) and len(in_dims) != len(args):
            raise ValueError(f"{head}: in_dims is not compatible with the structure of "
                             f"`inputs`. in_dims has structure {_pt.tree_structure(in_dims)} "
                             f"but inputs has structure {_pt.tree_structure(args)}.")
        leaves, spec = _pt.tree_flatten(args)
        dims = _broadcast_prefix(in_dims, args, "in_dims", head)
        sizes, norm = [], []
        for leaf, d in zip(leaves, dims):
            if d is None:
                norm.append(None)
                continue
            if not isinstance(leaf, paddle.Tensor):
                raise ValueError(f"{head}: Got in_dim={d} for an input but the input is of type "
                                 f"{type(leaf)}. We cannot vmap over non-Tensor arguments, "
                                 "please use None as the respective in_dim")
            nd = leaf.ndim
            if not -nd <= d < nd:
                raise ValueError(f"{head}: Got in_dim={d} for some input, but that input is a "
                                 f"Tensor of dimensionality {nd} so expected in_dim to satisfy "
                                 f"-{nd} <= in_dim < {nd}.")
            norm.append(d % nd)
            sizes.append(int(leaf.shape[d % nd]))
        if not sizes:
            raise ValueError(f"{head}: at least one input must be batched (a Tensor with an "
                             "in_dim that is not None); got none")
        if len(set(sizes)) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        results = []
        for i in range(sizes[0]):
            sliced = [leaf if d is None else _select(leaf, d, i) for leaf, d in zip(leaves, norm)]
            results.append(func(*_pt.tree_unflatten(sliced, spec), **kwargs))
        return _stack_outputs(results, out_dims, name)

    return wrapped


def _stack_outputs(results, out_dims, name):
    first = results[0]
    head = f"vmap({name}, ..., out_dims={out_dims})(<inputs>)"
    none_leaf = lambda v: v is None  # noqa: E731  (torch: a None output is a non-Tensor output)
    leaves0, spec = _pt.tree_flatten(first, is_leaf=none_leaf)
    if isinstance(out_dims, tuple) and not isinstance(first, tuple) and len(out_dims) != 1:
        raise ValueError(f"{head}: out_dims is not compatible with the structure of `outputs`. "
                         f"out_dims has structure {_pt.tree_structure(out_dims)} but outputs "
                         f"has structure {spec}.")
    if isinstance(out_dims, tuple) and len(out_dims) == 1 and not isinstance(first, tuple):
        dims = [out_dims[0]] * len(leaves0)
    else:
        dims = _broadcast_prefix(out_dims, first, "out_dims", head)
    per_leaf = [_pt.tree_leaves(r, is_leaf=none_leaf) for r in results]
    out = []
    for j, (leaf, d) in enumerate(zip(leaves0, dims)):
        column = [p[j] for p in per_leaf]
        if d is None:
            # an unbatched output: torch refuses one that depends on the mapped inputs
            if isinstance(leaf, paddle.Tensor) and any(
                    c is not leaf and not bool(paddle.equal_all(c, leaf)) for c in column[1:]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                                 "when out_dim is None")
            out.append(leaf)
            continue
        if not isinstance(leaf, paddle.Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(leaf)}. Did you mean to set out_dims= to None for output?")
        nd = leaf.ndim + 1
        if not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                             f"{nd - 1}], but got {d})")
        out.append(paddle.stack(column, axis=d % nd))
    return _pt.tree_unflatten(out, spec)
