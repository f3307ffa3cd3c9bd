"""``torch.distributed`` tensor-parallel names that kernel libraries import at module level.

flash-linear-attention (``fla.modules``) defines its tensor-parallel styles at import:
``from torch.distributed import DeviceMesh``, ``from torch.distributed.tensor import Replicate,
Shard, distribute_module``, ``class RMSNormParallel(ParallelStyle)``.  A single-process run
never applies them.  What is provided, and how far:

- the placements ``Placement``, ``Shard(dim)``, ``Replicate()``, ``Partial(reduce_op)`` are
  torch's value objects (equality, hash, ``repr``/``str``, ``is_shard(dim)``,
  ``is_replicate()``, ``is_partial()``): plain data, nothing Paddle-specific;
- ``ParallelStyle`` is torch's abstract base (one abstract ``_apply(module, device_mesh)``);
- ``ProcessGroup`` is a type whose ``isinstance`` answers True for Paddle's process groups
  (``paddle.distributed.new_group`` objects, which the facade's collectives take as ``group=``);
  constructing one torch's way (store, rank, size) is not provided: make groups with Paddle;
- ``DeviceMesh`` is a type for annotations and ``isinstance`` checks (False for everything):
  making one, and ``distribute_module``, need torch's DTensor runtime, which Paddle does not
  have (its auto-parallel API is ``paddle.distributed.ProcessMesh`` / ``shard_layer``, with
  other semantics); both raise NotProvidedError naming themselves.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

from ..errors import NotProvidedError
from .registry import module, torch_function, type_

from .registry import manifest

NAMES = manifest("""
    torch.distributed: DeviceMesh ProcessGroup fsdp
    torch.distributed.fsdp: FullyShardedDataParallel
    torch.distributed.tensor: Partial Placement Replicate Shard distribute_module parallel
        placement_types
    torch.distributed.tensor.parallel: ParallelStyle
    torch.distributed.tensor.placement_types: Partial Placement Replicate Shard
""")

module("torch.distributed.tensor.parallel")
module("torch.distributed.tensor.placement_types")


class Placement:
    """torch.distributed.tensor.Placement: base of Shard, Replicate, Partial."""

    def is_shard(self, dim=None) -> bool:
        return False

    def is_replicate(self) -> bool:
        return False

    def is_partial(self, reduce_op=None) -> bool:
        return False


class _ValuePlacement(Placement):
    """Shard, Replicate and Partial are values (torch: frozen dataclasses): equal when of
    the same class with the same fields (their ``__slots__``), hashed on those."""

    __slots__ = ()

    def _fields(self):
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other):
        return type(other) is type(self) and other._fields() == self._fields()

    def __hash__(self):
        return hash((type(self),) + self._fields())


class Shard(_ValuePlacement):
    """Shard(dim): the tensor is split along ``dim`` over a mesh dimension."""

    __slots__ = ("dim",)

    def __init__(self, dim):
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"Shard(dim): dim must be an int, got {type(dim).__name__}")
        self.dim = dim

    def is_shard(self, dim=None) -> bool:
        return dim is None or dim == self.dim

    def __repr__(self):
        return f"Shard(dim={self.dim})"

    def __str__(self):
        return f"S({self.dim})"


class Replicate(_ValuePlacement):
    """Replicate(): the whole tensor on every rank of a mesh dimension."""

    __slots__ = ()

    def is_replicate(self) -> bool:
        return True

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


class Partial(_ValuePlacement):
    """Partial(reduce_op="sum"): each rank holds a partial value, reduced on demand."""

    __slots__ = ("reduce_op",)

    def __init__(self, reduce_op: str = "sum"):
        self.reduce_op = reduce_op

    def is_partial(self, reduce_op=None) -> bool:
        return reduce_op is None or reduce_op == self.reduce_op

    def __repr__(self):
        return f"Partial({self.reduce_op})"

    def __str__(self):
        return f"P({self.reduce_op})"


for _cls in (Placement, Shard, Replicate, Partial):
    type_(f"torch.distributed.tensor.{_cls.__name__}", _cls)
    type_(f"torch.distributed.tensor.placement_types.{_cls.__name__}", _cls)


class ParallelStyle(ABC):
    """torch.distributed.tensor.parallel.ParallelStyle: how ``parallelize_module`` shards a
    module (subclasses implement ``_apply``)."""

    src_data_rank = 0

    @abstractmethod
    def _apply(self, module, device_mesh):
        ...


type_("torch.distributed.tensor.parallel.ParallelStyle", ParallelStyle)


class DeviceMesh:
    """torch.distributed.DeviceMesh: no object here is one (isinstance answers False); making one
    is not provided (torch's DTensor runtime; Paddle's counterpart is
    paddle.distributed.ProcessMesh)."""

    def __new__(cls, *args, **kwargs):
        raise NotProvidedError("torch.distributed.DeviceMesh (constructing one: torch's DTensor "
                               "runtime; Paddle's is paddle.distributed.ProcessMesh)")


type_("torch.distributed.DeviceMesh", DeviceMesh,
      note="a type for annotations and isinstance checks; constructing one raises NotProvidedError")


@torch_function("torch.distributed.tensor.distribute_module",
                note="raises NotProvidedError when called (torch's DTensor runtime)")
def distribute_module(module, device_mesh=None, partition_fn=None, input_fn=None,
                      output_fn=None):
    raise NotProvidedError("torch.distributed.tensor.distribute_module (torch's DTensor runtime; "
                           "Paddle's counterpart is paddle.distributed.shard_layer)")


class _PaddleGroupMeta(type):
    # Paddle's groups are ProcessGroups, and so are the facade's own handles
    # (distributed.py's _Group, what init_process_group/new_group return)
    def __instancecheck__(cls, obj):
        from paddle.distributed.communication.group import Group
        return isinstance(obj, Group) or type.__instancecheck__(cls, obj)

    def __subclasscheck__(cls, sub):
        from paddle.distributed.communication.group import Group
        return isinstance(sub, type) and (issubclass(sub, Group) or type.__subclasscheck__(cls, sub))


class ProcessGroup(metaclass=_PaddleGroupMeta):
    """torch.distributed.ProcessGroup: isinstance(g, ProcessGroup) is True for Paddle's groups."""

    def __new__(cls, *args, **kwargs):
        raise NotProvidedError("torch.distributed.ProcessGroup (constructing one: make groups "
                               "with paddle.distributed.new_group and pass them as group=)")


type_("torch.distributed.ProcessGroup", ProcessGroup,
      note="isinstance answers True for Paddle's groups (paddle.distributed.new_group); "
           "constructing one raises NotProvidedError")


# Hugging Face transformers' generate asks `isinstance(model, torch.distributed.fsdp.
# FullyShardedDataParallel)` on every call (integrations/fsdp.py).
module("torch.distributed.fsdp")


class FullyShardedDataParallel:
    """torch's FSDP wrapper: a type for isinstance checks (no module is one); wrapping a
    module is not provided (Paddle's sharding is paddle.distributed.sharding)."""

    def __new__(cls, *args, **kwargs):
        raise NotProvidedError("torch.distributed.fsdp.FullyShardedDataParallel (wrapping a "
                               "module; Paddle's sharding is paddle.distributed.sharding)")


FullyShardedDataParallel.__module__ = "torch.distributed.fsdp.fully_sharded_data_parallel"
type_("torch.distributed.fsdp.FullyShardedDataParallel", FullyShardedDataParallel,
      note="a type for isinstance checks; wrapping a module raises NotProvidedError")
