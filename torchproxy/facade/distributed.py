"""``torch.distributed`` on Paddle's own distributed engine (``paddle.distributed``: process
groups over Gloo on CPU, NCCL on GPU).  The facade keeps no transport of its own: every byte
moves through a Paddle process group.

- ``init_process_group`` rendezvouses the torch way (``env://``: ``RANK``, ``WORLD_SIZE``,
  ``MASTER_ADDR``, ``MASTER_PORT`` as torchrun sets them; ``tcp://host:port`` with ``rank=`` and
  ``world_size=``) and hands that to ``paddle.distributed.init_parallel_env`` through the
  variables Paddle's launcher would set (``PADDLE_TRAINER_ID``, ``PADDLE_TRAINERS_NUM``,
  ``PADDLE_MASTER``...; Paddle's TCP store listens on ``MASTER_PORT``).  They stay set, as
  torchrun's do.
- Groups are :class:`_Group` handles (``isinstance(g, torch.distributed.ProcessGroup)``) around a
  Paddle ``Group``; a Paddle group passed as ``group=`` works too.
- Where Paddle's Gloo group lacks a collective torch's Gloo has, it is composed from the ones it
  has, moving real bytes: ``reduce_scatter(_tensor)`` is an all-reduce of the whole input and a
  copy of this rank's part (world-size times the traffic); ``all_to_all(_single)`` is an
  all_gather of every rank's padded send buffer, each keeping its parts (Paddle's Gloo tags
  point-to-point messages per group, so pairwise exchanges among 3+ ranks mismatch); ``ReduceOp.AVG`` is a SUM divided by the group
  size; float16 reductions run in float32 (Paddle 3.3.1's Gloo float16 SUM/PRODUCT overflow to
  inf on small values).  BAND/BOR/BXOR and PREMUL_SUM raise naming the op.
- ``send``/``recv``/``isend``/``irecv`` work in 2-rank groups only (the world of a 2-process job,
  or ``new_group([a, b])``): Paddle's Gloo tags messages per group, and a point-to-point pair in
  a larger group desynchronises its later collectives.  ``isend``/``irecv`` are Paddle's: on Gloo the send completes only when the peer receives, so
  two ranks that both ``isend`` before they ``recv`` wait on each other (torch's buffer them).
- Object collectives pickle as torch's do.  ``gather_object``/``scatter_object_list`` are
  torch's algorithm on Paddle's tensor collectives, not Paddle's ``scatter_object_list`` (which
  broadcasts its size over the world group whatever ``group=`` says, and replaces the whole
  output list where torch sets element 0).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: distributed
    torch.distributed: Backend GroupMember ReduceOp Work all_gather all_gather_into_tensor
        all_gather_object all_reduce all_to_all all_to_all_single barrier broadcast
        broadcast_object_list destroy_process_group gather gather_object get_backend get_global_rank
        get_group_rank get_process_group_ranks get_rank get_world_size group init_process_group
        irecv is_available is_gloo_available is_initialized is_mpi_available is_nccl_available
        is_torchelastic_launched isend new_group recv reduce reduce_scatter reduce_scatter_tensor
        scatter scatter_object_list send
""")

import enum
import os
from urllib.parse import urlparse

import paddle

from ..errors import NotProvidedError
from ..paddle_shims import cuda_device_count, is_compiled_with_nccl
from .distributed_tensor import ProcessGroup
from .registry import module, torch_function, type_

module("torch.distributed")

D = "torch.distributed."
_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")  # torch's ValueError message


def _pd():
    import paddle.distributed as dist
    return dist


# -- Backend, ReduceOp ----------------------------------------------------------------------------
class Backend(str):
    """torch.distributed.Backend: a lower-case backend name ('gloo', 'nccl')."""

    UNDEFINED, GLOO, NCCL, UCC, MPI, XCCL = "undefined", "gloo", "nccl", "ucc", "mpi", "xccl"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return str.__new__(cls, name.lower())


type_(D + "Backend", Backend)


class ReduceOp:
    """torch.distributed.ReduceOp: its members are ``ReduceOp.RedOpType`` values."""

    class RedOpType(enum.IntEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8

        def __repr__(self):
            return f"<RedOpType.{self.name}: {self.value}>"

    SUM, AVG, PRODUCT, MIN, MAX = (RedOpType.SUM, RedOpType.AVG, RedOpType.PRODUCT, RedOpType.MIN,
                                   RedOpType.MAX)
    BAND, BOR, BXOR, PREMUL_SUM = (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR,
                                   RedOpType.PREMUL_SUM)


type_(D + "ReduceOp", ReduceOp, note="SUM, PRODUCT, MIN, MAX on Paddle's ops, AVG as SUM / size; "
      "BAND, BOR, BXOR, PREMUL_SUM raise (Paddle's process groups have no such op)")


def _paddle_op(op, what: str):
    """(Paddle's ReduceOp, average?) for a torch op."""
    try:
        op = ReduceOp.RedOpType(int(op))
    except (TypeError, ValueError):
        raise TypeError(f"{what}: op must be a torch.distributed.ReduceOp, got {op!r}") from None
    pop = _pd().ReduceOp
    table = {ReduceOp.SUM: (pop.SUM, False), ReduceOp.AVG: (pop.SUM, True),
             ReduceOp.PRODUCT: (pop.PROD, False), ReduceOp.MIN: (pop.MIN, False),
             ReduceOp.MAX: (pop.MAX, False)}
    if op == ReduceOp.PREMUL_SUM:
        raise RuntimeError("Cannot use ReduceOp.PREMUL_SUM with Gloo")  # torch's error (NCCL-only)
    if op not in table:
        raise NotProvidedError(f"{what} with ReduceOp.{op.name} (Paddle's process groups reduce "
                               "with SUM, PRODUCT, MIN, MAX; AVG is provided as SUM / size)")
    return table[op]


# -- process groups --------------------------------------------------------------------------------
class _Group(ProcessGroup):
    """A torch ProcessGroup handle around a Paddle ``Group`` (made by init_process_group and
    new_group; constructing torch's way, from a store, is not provided)."""

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, pg, backend: str):
        self._pg, self._backend = pg, Backend(backend)

    def rank(self) -> int:
        return int(self._pg.rank)

    def size(self) -> int:
        return int(self._pg.nranks)

    def name(self) -> str:
        return str(self._backend)

    @property
    def group_name(self) -> str:
        return str(self._pg.id)

    def __repr__(self):
        return f"<torch.distributed.ProcessGroup on Paddle's {self._pg!r}>"


_NON_GROUP_MEMBER = -100  # torch's GroupMember.NON_GROUP_MEMBER (what new_group gives outsiders)


class _State:
    world: _Group | None = None
    destroyed = False


class _WorldMeta(type):
    @property
    def WORLD(cls):
        return _State.world


class group(metaclass=_WorldMeta):
    """torch.distributed.group: ``group.WORLD`` is the default process group (None before
    init_process_group)."""


class GroupMember(metaclass=_WorldMeta):
    NON_GROUP_MEMBER = _NON_GROUP_MEMBER


type_(D + "group", group)
type_(D + "GroupMember", GroupMember)


def _require_init():
    if _State.world is None:
        if _pd().is_initialized():
            # Paddle's launcher (paddle.distributed.launch + init_parallel_env) made the group
            _State.world = _Group(_pd().get_group(0), _paddle_backend_name())
        else:
            raise ValueError(_NOT_INIT)
    return _State.world


def _paddle_backend_name() -> str:
    return str(_pd().get_backend()).lower()


def _resolve(group_) -> _Group | None:
    """The facade handle for ``group=`` (None: the world), or None for a rank outside it."""
    world = _require_init()
    if group_ is None:
        return world
    if isinstance(group_, int) and group_ == _NON_GROUP_MEMBER:
        return None
    if not isinstance(group_, _Group):
        from paddle.distributed.communication.group import Group
        if not isinstance(group_, Group):
            raise TypeError(f"torch.distributed: group must be a ProcessGroup, got {group_!r}")
        group_ = _Group(group_, world._backend)
    return group_ if group_.rank() >= 0 else None


def _global(g: _Group, group_rank, what: str) -> int:
    ranks = list(g._pg.ranks)
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"{what}: group rank {group_rank} is not part of the group {ranks}")
    return ranks[group_rank]


def _peer(g, rank, group_rank, what):
    """A global peer rank from torch's (rank, group_rank) pair of arguments."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"{what}: pass one of the global rank and the group rank, not both")
    if group_rank is not None:
        return _global(g, group_rank, what)
    if rank is None:
        return _global(g, 0, what)  # torch's default src/dst: rank 0 of the group
    if rank not in g._pg.ranks:
        raise ValueError(f"Global rank {rank} is not part of group {g!r}")
    return int(rank)


# -- init / teardown -----------------------------------------------------------------------------
def _backend_for(backend) -> str:
    names = str(backend if backend is not None else "cpu:gloo,cuda:nccl").lower()
    have_gpu = is_compiled_with_nccl() and cuda_device_count() > 0
    if "," in names or ":" in names:  # "cpu:gloo,cuda:nccl": one Paddle backend per group
        parts = dict(p.split(":", 1) for p in names.split(","))
        names = parts.get("cuda", "nccl") if have_gpu else parts.get("cpu", "gloo")
    if names == "gloo":
        return "gloo"
    if names == "nccl":
        if not have_gpu:
            raise RuntimeError("torch.distributed backend 'nccl' needs Paddle built with NCCL "
                               "and a CUDA device; this Paddle has "
                               f"{'no NCCL' if not is_compiled_with_nccl() else 'no CUDA device'}"
                               " (use backend='gloo' on CPU)")
        return "nccl"
    raise NotProvidedError(f"torch.distributed backend {names!r} (Paddle's process groups are "
                           "gloo on CPU and nccl on GPU)")


def _env_int(name: str) -> int:
    v = os.environ.get(name)
    if v is None:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: "
                         f"environment variable {name} expected, but not set")
    return int(v)


def _rendezvous(init_method, rank: int, world_size: int):
    """(master address, port, rank, world size) from torch's init_method and arguments."""
    url = urlparse(init_method or "env://")
    if url.scheme == "env":
        rank = rank if rank >= 0 else _env_int("RANK")
        world_size = world_size if world_size >= 0 else _env_int("WORLD_SIZE")
        addr = os.environ.get("MASTER_ADDR") or _env_int("MASTER_ADDR")
        port = _env_int("MASTER_PORT")
    elif url.scheme == "tcp":
        if rank < 0 or world_size < 0:
            raise ValueError("tcp:// init_method needs rank= and world_size= (torch's rule)")
        if not url.hostname or not url.port:
            raise ValueError(f"tcp:// init_method needs host:port, got {init_method!r}")
        addr, port = url.hostname, url.port
    else:
        raise NotProvidedError(f"torch.distributed.init_process_group(init_method={init_method!r}) "
                               "(Paddle rendezvouses over its TCP store: use env:// or tcp://)")
    return addr, int(port), int(rank), int(world_size)


@torch_function(D + "init_process_group",
                note="env:// and tcp:// rendezvous onto paddle.distributed.init_parallel_env "
                     "(sets Paddle's PADDLE_* launcher variables); world_size >= 2; store= "
                     "and file:// are not provided; once per process")
def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    if _State.world is not None or _pd().is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    if _State.destroyed:
        raise RuntimeError("torch.distributed.init_process_group after destroy_process_group: "
                           "Paddle's default process group cannot be created twice in one process")
    if store is not None:
        raise NotProvidedError("torch.distributed.init_process_group(store=...) (Paddle "
                               "rendezvouses over its own TCP store: use env:// or tcp://)")
    name = _backend_for(backend)
    addr, port, rank, world_size = _rendezvous(init_method, rank, world_size)
    if world_size < 2:
        raise NotProvidedError("torch.distributed.init_process_group with world_size < 2 "
                               "(Paddle's init_parallel_env needs at least 2 processes)")
    if not 0 <= rank < world_size:
        raise ValueError(f"rank {rank} is not in [0, {world_size})")
    master = f"{addr}:{port}"
    os.environ.update({
        "PADDLE_DISTRI_BACKEND": name, "PADDLE_TRAINER_ID": str(rank),
        "PADDLE_TRAINERS_NUM": str(world_size), "PADDLE_MASTER": master,
        "PADDLE_CURRENT_ENDPOINT": master, "PADDLE_TRAINER_ENDPOINTS": ",".join([master] * world_size),
        "MASTER_ADDR": addr, "MASTER_PORT": str(port),
    })
    if name == "nccl":
        local = device_id.index if device_id is not None else int(os.environ.get("LOCAL_RANK", 0))
        os.environ.setdefault("FLAGS_selected_gpus", str(local))
    _State.world = _Group(_pd().init_parallel_env(), name)


@torch_function(D + "destroy_process_group")
def destroy_process_group(group=None):
    g = _resolve(group)
    if g is None:
        return
    _pd().destroy_process_group(g._pg if g is not _State.world else None)
    if g is _State.world:
        _State.world, _State.destroyed = None, True


@torch_function(D + "is_available")
def is_available() -> bool:
    return bool(_pd().is_available())


@torch_function(D + "is_initialized", note="Paddle's default process group")
def is_initialized() -> bool:
    return _State.world is not None or bool(_pd().is_initialized())


@torch_function(D + "is_nccl_available")
def is_nccl_available() -> bool:
    return is_compiled_with_nccl()


@torch_function(D + "is_gloo_available")
def is_gloo_available() -> bool:
    return bool(_pd().is_available())


@torch_function(D + "is_mpi_available")
def is_mpi_available() -> bool:
    return False


@torch_function(D + "is_torchelastic_launched")
def is_torchelastic_launched() -> bool:
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


@torch_function(D + "get_rank")
def get_rank(group=None) -> int:
    g = _resolve(group)
    return -1 if g is None else g.rank()


@torch_function(D + "get_world_size")
def get_world_size(group=None) -> int:
    g = _resolve(group)
    return -1 if g is None else g.size()


@torch_function(D + "get_backend")
def get_backend(group=None) -> str:
    g = _resolve(group)
    if g is None:
        raise ValueError("Invalid process group specified")
    return g._backend


@torch_function(D + "get_process_group_ranks")
def get_process_group_ranks(group) -> list:
    return list((_resolve(group) or _State.world)._pg.ranks)


@torch_function(D + "get_global_rank")
def get_global_rank(group, group_rank: int) -> int:
    return _global(_resolve(group), group_rank, "get_global_rank")


@torch_function(D + "get_group_rank")
def get_group_rank(group, global_rank: int) -> int:
    ranks = list(_resolve(group)._pg.ranks)
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


@torch_function(D + "new_group", note="paddle.distributed.new_group (collective: every rank calls it)")
def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None):
    world = _require_init()
    name = world._backend if backend is None else _backend_for(backend)
    ranks = sorted(ranks) if ranks else list(range(world.size()))
    pg = _pd().new_group(ranks, backend=name)
    return _Group(pg, name) if world.rank() in ranks else _NON_GROUP_MEMBER


# -- Work ----------------------------------------------------------------------------------------
class Work:
    """What async_op=True returns: ``wait()`` waits for Paddle's tasks, then writes the results
    the collective copies out (all_gather's list, a float16 reduction's cast back...)."""

    def __init__(self, tasks=(), finish=None):
        self._tasks, self._finish, self._done = [t for t in tasks if t is not None], finish, False

    def wait(self, timeout=None) -> bool:
        if not self._done:
            for t in self._tasks:
                t.wait()
            if self._finish is not None:
                with paddle.no_grad():
                    self._finish()
            self._done = True
        return True

    def is_completed(self) -> bool:
        return self._done

    def is_success(self) -> bool:
        return self._done

    def exception(self):
        return None

    def get_future(self):
        raise NotProvidedError("torch.distributed.Work.get_future (torch.futures)")


type_(D + "Work", Work)


def _done(work: Work, async_op: bool):
    if async_op:
        return work
    work.wait()
    return None


def _copy(dst, src) -> None:
    paddle.assign(src.reshape(dst.shape).astype(dst.dtype), output=dst)


def _reduce_into(tensor, op, g: _Group, what: str, dst=None, sync=True):
    """All-reduce (dst None) or reduce to global rank ``dst``, in place, with torch's op.
    Returns (Paddle task, finish)."""
    pop, average = _paddle_op(op, what)
    if average and not (paddle.is_floating_point(tensor) or paddle.is_complex(tensor)):
        raise RuntimeError(f"{what}: ReduceOp.AVG needs a floating-point tensor, got {tensor.dtype}")
    work = tensor.astype("float32") if tensor.dtype == paddle.float16 else tensor
    if dst is None:
        task = _pd().all_reduce(work, op=pop, group=g._pg, sync_op=sync)
    else:
        task = _pd().reduce(work, dst=dst, op=pop, group=g._pg, sync_op=sync)

    def finish():
        out = work / g.size() if average else work
        if out is not tensor:
            _copy(tensor, out)
    return task, finish


def _no_grad(fn):
    def wrapper(*args, **kwargs):
        with paddle.no_grad():
            return fn(*args, **kwargs)
    wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper


# -- collectives -----------------------------------------------------------------------------------
@torch_function(D + "all_reduce", note="paddle.distributed.all_reduce (in place); AVG as SUM / "
                "size; float16 reduced in float32")
@_no_grad
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    g = _resolve(group)
    if g is None:
        return None
    task, finish = _reduce_into(tensor, op, g, "torch.distributed.all_reduce", sync=not async_op)
    return _done(Work([task], finish), async_op)


@torch_function(D + "reduce")
@_no_grad
def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    g = _resolve(group)
    if g is None:
        return None
    dst = _peer(g, dst, group_dst, "torch.distributed.reduce")
    task, finish = _reduce_into(tensor, op, g, "torch.distributed.reduce", dst=dst,
                                sync=not async_op)
    me = _global(g, g.rank(), "reduce")
    return _done(Work([task], finish if me == dst else None), async_op)


@torch_function(D + "broadcast")
@_no_grad
def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    g = _resolve(group)
    if g is None:
        return None
    src = _peer(g, src, group_src, "torch.distributed.broadcast")
    task = _pd().broadcast(tensor, src=src, group=g._pg, sync_op=not async_op)
    return _done(Work([task]), async_op)


@torch_function(D + "all_gather", note="paddle.distributed.all_gather, copied into tensor_list")
@_no_grad
def all_gather(tensor_list, tensor, group=None, async_op=False):
    g = _resolve(group)
    if g is None:
        return None
    if len(tensor_list) != g.size():
        raise ValueError(f"torch.distributed.all_gather: tensor_list has {len(tensor_list)} "
                         f"tensors, the group has {g.size()} ranks")
    parts: list = []
    task = _pd().all_gather(parts, tensor, group=g._pg, sync_op=not async_op)

    def finish():
        for dst, src in zip(tensor_list, parts):
            _copy(dst, src)
    return _done(Work([task], finish), async_op)


@torch_function(D + "all_gather_into_tensor")
@_no_grad
def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    g = _resolve(group)
    if g is None:
        return None
    if output_tensor.size != input_tensor.size * g.size():
        raise ValueError("torch.distributed.all_gather_into_tensor: output_tensor must have "
                         "world_size times the elements of input_tensor")
    parts: list = []
    task = _pd().all_gather(parts, input_tensor, group=g._pg, sync_op=not async_op)
    return _done(Work([task], lambda: _copy(output_tensor, paddle.stack(parts))), async_op)


def _reduce_scatter(output, whole, op, g, what, async_op):
    """Paddle's Gloo group has no reduce_scatter: all-reduce the whole input, keep our part."""
    whole = whole.clone()
    task, finish = _reduce_into(whole, op, g, what, sync=not async_op)

    def done():
        finish()
        n = output.size
        _copy(output, whole.reshape([-1])[g.rank() * n:(g.rank() + 1) * n])
    return _done(Work([task], done), async_op)


@torch_function(D + "reduce_scatter", note="an all_reduce of the whole input, this rank's part "
                "kept (Paddle's Gloo group has no reduce_scatter)")
@_no_grad
def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    g = _resolve(group)
    if g is None:
        return None
    if len(input_list) != g.size():
        raise ValueError(f"torch.distributed.reduce_scatter: input_list has {len(input_list)} "
                         f"tensors, the group has {g.size()} ranks")
    whole = paddle.concat([t.reshape([-1]).astype(output.dtype) for t in input_list])
    return _reduce_scatter(output, whole, op, g, "torch.distributed.reduce_scatter", async_op)


@torch_function(D + "reduce_scatter_tensor", note="see torch.distributed.reduce_scatter")
@_no_grad
def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    g = _resolve(group)
    if g is None:
        return None
    if input.size != output.size * g.size():
        raise ValueError("torch.distributed.reduce_scatter_tensor: input must have world_size "
                         "times the elements of output")
    return _reduce_scatter(output, input.reshape([-1]), op, g,
                           "torch.distributed.reduce_scatter_tensor", async_op)


def _rooted(g, root, group_root, fn, tensors, list_name, role):
    """scatter/gather: the root's and this rank's global ranks, after torch's rule that the
    list (one tensor per rank) is given on the root and only there."""
    root = _peer(g, root, group_root, f"torch.distributed.{fn}")
    me = _global(g, g.rank(), fn)
    if me == root:
        if not tensors or len(tensors) != g.size():
            raise ValueError(f"Argument ``{list_name}`` must be specified on {role} rank.")
    elif tensors:
        raise ValueError(f"Argument ``{list_name}`` must NOT be specified on non-{role} ranks.")
    return root, me


@torch_function(D + "scatter")
@_no_grad
def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    g = _resolve(group)
    if g is None:
        return None
    src, me = _rooted(g, src, group_src, "scatter", scatter_list, "scatter_list", "source")
    task = _pd().scatter(tensor, list(scatter_list) if me == src else None, src=src, group=g._pg,
                         sync_op=not async_op)
    return _done(Work([task]), async_op)


@torch_function(D + "gather")
@_no_grad
def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    g = _resolve(group)
    if g is None:
        return None
    dst, me = _rooted(g, dst, group_dst, "gather", gather_list, "gather_list", "destination")
    parts: list = []
    task = _pd().gather(tensor, parts, dst=dst, group=g._pg, sync_op=not async_op)

    def finish():
        if me == dst:
            for d, s in zip(gather_list, parts):
                _copy(d, s)
    return _done(Work([task], finish), async_op)


def _p2p_peer(g, peer, group_peer, what):
    if g.size() > 2:
        # Paddle's Gloo group tags every message from one counter per group: a send/recv
        # between two of its ranks advances theirs only, and the group's next collective
        # waits forever on mismatched tags
        raise NotProvidedError(f"{what} in a process group of {g.size()} ranks (Paddle's Gloo "
                               "point-to-point desynchronises the group's later collectives); "
                               "make a 2-rank group with new_group([a, b]) and pass group=")
    if peer is None and group_peer is None:
        raise NotProvidedError(f"{what} from any source (src=None: Paddle's recv needs the peer)")
    return _peer(g, peer, group_peer, what)


def _no_tag(tag, what):
    if tag:
        raise NotProvidedError(f"{what}(tag={tag}) (Paddle's point-to-point ops have no tags)")


def _p2p(fn, tag, group, peer, group_peer):
    """send/recv/isend/irecv: refuse a tag, resolve the group and the peer's global rank;
    (None, None) when this rank is not in the group."""
    what = f"torch.distributed.{fn}"
    _no_tag(tag, what)
    g = _resolve(group)
    return (None, None) if g is None else (g, _p2p_peer(g, peer, group_peer, what))


@torch_function(D + "send")
@_no_grad
def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    g, dst = _p2p("send", tag, group, dst, group_dst)
    if g is not None:
        _pd().send(tensor, dst=dst, group=g._pg, sync_op=True)


@torch_function(D + "recv")
@_no_grad
def recv(tensor, src=None, group=None, tag=0, group_src=None):
    g, src = _p2p("recv", tag, group, src, group_src)
    if g is None:
        return -1
    _pd().recv(tensor, src=src, group=g._pg, sync_op=True)
    return src


@torch_function(D + "isend", note="Paddle's isend: on Gloo it returns once the peer received")
@_no_grad
def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    g, dst = _p2p("isend", tag, group, dst, group_dst)
    return None if g is None else Work([_pd().isend(tensor, dst=dst, group=g._pg)])


@torch_function(D + "irecv")
@_no_grad
def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    g, src = _p2p("irecv", tag, group, src, group_src)
    return None if g is None else Work([_pd().irecv(tensor, src=src, group=g._pg)])


def _exchange(sends, recvs, g: _Group) -> None:
    """recvs[j] <- what group rank j sends us; sends[j] goes to group rank j.  Built on
    all_gather, not on send/recv: Paddle's Gloo tags point-to-point messages from a counter
    per process group, so pairwise exchanges among more than two ranks stop matching (and its
    send blocks until received).  Each rank gathers every rank's whole send buffer (padded to
    the longest) and keeps its parts: world-size times the traffic of a real all_to_all."""
    dist, me, n = _pd(), g.rank(), g.size()
    counts = paddle.to_tensor([int(t.size) for t in sends], dtype="int64")
    table: list = []
    dist.all_gather(table, counts, group=g._pg)
    table = [t.tolist() for t in table]  # table[src][dst]: elements src sends dst
    longest = max(sum(row) for row in table)
    flat = paddle.concat([t.reshape([-1]).astype(recvs[0].dtype) for t in sends]) \
        if sum(table[me]) else paddle.zeros([0], dtype=recvs[0].dtype)
    if flat.shape[0] < longest:
        flat = paddle.concat([flat, paddle.zeros([longest - flat.shape[0]], dtype=flat.dtype)])
    got: list = []
    dist.all_gather(got, flat, group=g._pg)
    for src in range(n):
        start = sum(table[src][:me])
        want = table[src][me]
        if want != int(recvs[src].size):
            raise ValueError(f"all_to_all: rank {src} sends {want} elements, the output for it "
                             f"holds {int(recvs[src].size)}")
        if want:
            _copy(recvs[src], got[src][start:start + want])


@torch_function(D + "all_to_all", note="an all_gather of the padded send buffers (Paddle's Gloo group has no all_to_all)")
@_no_grad
def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    g = _resolve(group)
    if g is None:
        return None
    if len(output_tensor_list) != g.size() or len(input_tensor_list) != g.size():
        raise ValueError("torch.distributed.all_to_all: one input and one output tensor per rank")
    recvs = [paddle.empty_like(t) for t in output_tensor_list]
    _exchange(list(input_tensor_list), recvs, g)
    for d, s in zip(output_tensor_list, recvs):
        _copy(d, s)
    return _done(Work(), async_op)


@torch_function(D + "all_to_all_single", note="see torch.distributed.all_to_all")
@_no_grad
def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    g = _resolve(group)
    if g is None:
        return None
    n = g.size()

    def sizes(split, t, what):
        if split is None or len(split) == 0:
            if t.shape[0] % n:
                raise ValueError(f"torch.distributed.all_to_all_single: {what} dim 0 "
                                 f"({t.shape[0]}) is not divisible by the group size {n}")
            return [t.shape[0] // n] * n
        return [int(s) for s in split]
    ins = paddle.split(input, sizes(input_split_sizes, input, "input"), axis=0) if n > 1 else [input]
    outs = sizes(output_split_sizes, output, "output")
    recvs = [paddle.empty([s] + list(output.shape[1:]), dtype=output.dtype) for s in outs]
    _exchange(ins, recvs, g)
    _copy(output, paddle.concat(recvs, axis=0))
    return _done(Work(), async_op)


@torch_function(D + "barrier")
def barrier(group=None, async_op=False, device_ids=None):
    g = _resolve(group)
    if g is None:
        return None
    _pd().barrier(g._pg)
    return _done(Work(), async_op)


@torch_function(D + "all_gather_object", note="paddle.distributed.all_gather_object (pickle)")
def all_gather_object(object_list, obj, group=None):
    g = _resolve(group)
    if g is None:
        return None
    if len(object_list) != g.size():
        raise ValueError("torch.distributed.all_gather_object: object_list needs one slot per rank")
    got: list = []
    _pd().all_gather_object(got, obj, group=g._pg)
    object_list[:] = got


@torch_function(D + "broadcast_object_list", note="paddle.distributed.broadcast_object_list")
def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    g = _resolve(group)
    if g is None:
        return None
    _pd().broadcast_object_list(object_list, src=_peer(g, src, group_src, "broadcast_object_list"),
                                group=g._pg)


def _object_bytes(obj):
    """(uint8 tensor of obj's pickle, its length): torch's _object_to_tensor, on Paddle."""
    import io
    import pickle

    import numpy as np
    buf = io.BytesIO()
    pickle.Pickler(buf).dump(obj)
    data = np.frombuffer(buf.getvalue(), dtype=np.uint8)
    return paddle.to_tensor(data), len(data)


def _bytes_object(tensor, size: int):
    import io
    import pickle
    return pickle.Unpickler(io.BytesIO(tensor.numpy()[:size].tobytes())).load()


def _padded(tensor, size: int):
    pad = size - int(tensor.shape[0])
    return tensor if pad == 0 else paddle.concat([tensor, paddle.zeros([pad], dtype="uint8")])


@torch_function(D + "gather_object", note="torch's algorithm on Paddle's all_gather (sizes) and "
                "gather (pickles padded to the largest)")
@_no_grad
def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    g = _resolve(group)
    if g is None:
        return None
    dst = _peer(g, dst, group_dst, "gather_object")
    me = _global(g, g.rank(), "gather_object")
    # torch's check (gather's, in its words): given on the destination only, its length
    # unchecked (a short list fails at the assignment, as torch's)
    if me == dst and not object_gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if me != dst and object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    data, size = _object_bytes(obj)
    sizes: list = []
    _pd().all_gather(sizes, paddle.to_tensor([size], dtype="int64"), group=g._pg)
    sizes = [int(s.item()) for s in sizes]
    parts: list = []
    _pd().gather(_padded(data, max(sizes)), parts, dst=dst, group=g._pg)
    if me == dst:
        for i, (part, n) in enumerate(zip(parts, sizes)):
            object_gather_list[i] = _bytes_object(part, n)


@torch_function(D + "scatter_object_list", note="torch's algorithm on Paddle's broadcast and "
                "scatter (paddle.distributed.scatter_object_list broadcasts over the world "
                "group whatever group= says, and replaces the whole output list)")
@_no_grad
def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    g = _resolve(group)
    if g is None:
        return None
    src = _peer(g, src, group_src, "scatter_object_list")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    me = _global(g, g.rank(), "scatter_object_list")
    if me == src:
        if scatter_object_input_list is None:
            raise ValueError("source rank must provide non-None scatter_object_input_list")
        pickles = [_object_bytes(o) for o in scatter_object_input_list]
        longest = paddle.to_tensor([max(n for _, n in pickles)], dtype="int64")
    else:
        longest = paddle.zeros([1], dtype="int64")
    _pd().broadcast(longest, src=src, group=g._pg)
    longest = int(longest.item())
    out = paddle.zeros([longest], dtype="uint8")
    _pd().scatter(out, [_padded(t, longest) for t, _ in pickles] if me == src else None,
                  src=src, group=g._pg)
    size = paddle.zeros([1], dtype="int64")
    _pd().scatter(size, [paddle.to_tensor([n], dtype="int64") for _, n in pickles]
                  if me == src else None, src=src, group=g._pg)
    scatter_object_output_list[0] = _bytes_object(out, int(size.item()))
