"""Data-parallel training the torch way, on the facade's torch.distributed (distributed.py):

- ``torch.nn.parallel.DistributedDataParallel``: parameters and buffers broadcast from rank 0
  when wrapped; after each backward (Paddle's one-shot final backward hook, registered by the
  forward), every gradient is all-reduced in one flat buffer per dtype and divided by the
  world size, as torch's reducer does; ``no_sync()`` skips that, gradients accumulate locally
  and the next synced backward reduces the accumulated sum; buffers are broadcast from rank 0
  at each forward (``broadcast_buffers=True``).  Bucket sizes and gradient views are torch's
  memory tuning: accepted, one bucket per dtype here.
- ``torch.utils.data.DistributedSampler``: torch's index order for the same seed and epoch
  (torch's CPU ``randperm`` on its mt19937 stream, computed with numpy's MT19937, which is the
  same generator with the same seeding).
- ``torch.multiprocessing.spawn``: N processes with the parent's ``torchproxy.enable`` rules
  (torchproxy/children.py hands them to each child before it imports ``__main__``).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.multiprocessing: ProcessContext ProcessExitedException ProcessRaisedException spawn
    torch.nn: parallel
    torch.nn.parallel: DistributedDataParallel
    torch.utils.data: DistributedSampler distributed
""")

import contextlib
import math
import os
import sys
import weakref

import numpy as np
import paddle

from ..errors import NotProvidedError
from ..paddle_shims import add_backward_final_hook
from . import distributed as _d
from .data import Sampler
from .nn import Module
from .registry import module, torch_function, type_

module("torch.nn.parallel")

module("torch.utils.data.distributed")


# -- DistributedDataParallel ----------------------------------------------------------------------
# torch's reducer error when a backward left parameters without a gradient
# (find_unused_parameters=False): raised at the next forward, as torch's rebuild_buckets does
_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This "
    "error indicates that your module has parameters that were not used in producing loss. You "
    "can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't able "
    "to locate the output tensors in the return value of your module's `forward` function. "
    "Please include the loss function and the structure of the return value of `forward` of "
    "your module when reporting this issue (e.g. list, dict, iterable).\n")


def _mark_used(ddp_ref, index):
    """A parameter's gradient hook (Paddle's, run when its gradient is computed): records that
    the parameter took part in this backward, as torch's reducer autograd hooks do."""
    def hook(grad):
        ddp = ddp_ref()
        if ddp is not None and grad is not None:
            ddp._used_since_forward[index] = ddp._used_since_reduction[index] = True
    return hook


class DistributedDataParallel(Module):
    """torch.nn.parallel.DistributedDataParallel for facade modules (the wrapped module is
    ``self.module``).

    Which parameters took part in a backward is recorded by a Paddle gradient hook on each
    (torch's reducer hooks on AccumulateGrad).  With ``find_unused_parameters=False`` a
    backward that leaves any without a gradient reduces nothing (gradients stay local) and the
    next forward raises torch's "Expected to have finished reduction" RuntimeError; torch
    reduces its buckets in order and stops at the first incomplete one, so in a model bigger
    than one torch bucket (1 MB first, then 25 MB) torch may have reduced some of them.  With
    ``True`` the ranks all-reduce which parameters each used (torch's local_used_map):
    gradients of parameters some rank used are averaged (zeros from the ranks that did not
    use them, a gradient kept from earlier iterations where one is set), those no rank used
    keep their ``.grad`` untouched (None stays None)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 init_sync=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False):
        super().__init__()
        for what, v in (("mixed_precision", mixed_precision), ("device_mesh", device_mesh),
                        ("delay_all_reduce_named_params", delay_all_reduce_named_params),
                        ("param_to_hook_all_reduce", param_to_hook_all_reduce)):
            if v is not None:
                raise NotProvidedError(f"torch.nn.parallel.DistributedDataParallel({what}=...)")
        if not any(not p.stop_gradient for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        self.module = module
        self.process_group = _d._resolve(process_group)
        self.device_ids, self.output_device, self.dim = device_ids, output_device, dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self._hook_pending = False
        # the reducer's parameters, torch's indices: those that require a gradient, in order
        named = [(n, p) for n, p in module.named_parameters() if not p.stop_gradient]
        self._param_names = [n for n, _ in named]
        self._params = [p for _, p in named]
        # used in the backward of the last synced forward (find_unused_parameters=False), and
        # since the last reduction, no_sync() backwards included (True: torch counts those)
        self._used_since_forward = [False] * len(named)
        self._used_since_reduction = [False] * len(named)
        self._unreduced = None  # indices without a gradient in the last synced backward
        ref = weakref.ref(self)
        for i, p in enumerate(self._params):
            p.register_hook(_mark_used(ref, i))
        if init_sync:
            self._broadcast(list(module.parameters()) + list(module.buffers()))

    def _broadcast(self, tensors) -> None:
        src = _d._global(self.process_group, 0, "DistributedDataParallel")
        with paddle.no_grad():
            for t in tensors:
                if t is not None:
                    _d.broadcast(t, src=src, group=self.process_group)

    def _raise_unfinished(self):
        rank = _d.get_rank()
        msg = _UNFINISHED
        if os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper() in ("INFO", "DETAIL"):
            names = ", ".join(self._param_names[i] for i in reversed(self._unreduced))
            msg += f"Parameters which did not receive grad for rank {rank}: {names}\n"
            msg += (f"Parameter indices which did not receive grad for rank {rank}: "
                    f"{' '.join(map(str, self._unreduced))}")
        else:
            msg += (f"Parameter indices which did not receive grad for rank {rank}: "
                    f"{' '.join(map(str, self._unreduced))}\n In addition, you can set the "
                    "environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to "
                    "print out information about which particular parameters did not receive "
                    "gradient on this rank as part of this error")
        raise RuntimeError(msg)

    def forward(self, *inputs, **kwargs):
        if self._unreduced is not None and paddle.is_grad_enabled():
            self._raise_unfinished()
        if self.broadcast_buffers:
            self._broadcast(list(self.module.buffers()))
        if self.require_backward_grad_sync and paddle.is_grad_enabled() and not self._hook_pending:
            # the gradients of this forward's backward are reduced once it has finished
            self._hook_pending = True
            self._used_since_forward = [False] * len(self._params)
            add_backward_final_hook(self._reduce_gradients)
        return self.module(*inputs, **kwargs)

    def _reduce_gradients(self) -> None:
        self._hook_pending = False
        if not any(self._used_since_forward):
            return  # no parameter of this module took part in the backward: torch's hooks
                    # never fired, nothing to reduce
        if self.find_unused_parameters:
            used = self._globally_used()
        else:
            missing = [i for i, u in enumerate(self._used_since_forward) if not u]
            if missing:
                self._unreduced = missing  # the next forward raises; gradients stay local
                return
            used = [True] * len(self._params)
        self._used_since_reduction = [False] * len(self._params)
        world = self.process_group.size()
        by_dtype: dict = {}
        for p, u in zip(self._params, used):
            if u:
                by_dtype.setdefault(p.dtype, []).append(p)
        with paddle.no_grad():
            for group in by_dtype.values():
                # a parameter without a gradient here (unused on this rank, used on another)
                # adds zeros, so every rank reduces buffers of the same layout
                grads = [p.grad for p in group]
                flat = paddle.concat([g.reshape([-1]) if g is not None
                                      else paddle.zeros([int(p.size)], dtype=p.dtype)
                                      for p, g in zip(group, grads)])
                _d.all_reduce(flat, group=self.process_group)
                flat = flat / world
                offset = 0
                for p, g in zip(group, grads):
                    n = int(p.size)
                    part = flat[offset:offset + n].reshape(p.shape)
                    if g is not None:
                        paddle.assign(part, output=g)
                    else:
                        p.grad = part  # Paddle's setter: the averaged gradient, as torch's
                    offset += n

    def _globally_used(self) -> list:
        """Which parameters some rank used since the last reduction (an all-reduce of the
        flags, torch's local_used_map)."""
        flags = paddle.to_tensor([int(u) for u in self._used_since_reduction], dtype="int32")
        with paddle.no_grad():
            _d.all_reduce(flags, group=self.process_group)
        return [bool(v) for v in flags.tolist()]

    @contextlib.contextmanager
    def no_sync(self):
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old


type_("torch.nn.parallel.DistributedDataParallel", DistributedDataParallel,
      note="gradients all-reduced and averaged after each backward (one flat buffer per dtype, "
           "Paddle's final backward hook); no_sync; find_unused_parameters as torch's (with "
           "False, an unused parameter leaves all gradients unreduced: torch's buckets may "
           "reduce part of a model over 1 MB); bucket options accepted, one bucket")


# -- DistributedSampler ---------------------------------------------------------------------------
def _torch_cpu_randperm(n: int, seed: int) -> list:
    """torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist() on CPU
    (facade/torch_cpu_rng.randperm on a fresh torch stream)."""
    if n >= (2 ** 32 - 1) // 20:
        raise NotProvidedError("torch.utils.data.DistributedSampler over 214748364 or more "
                               "samples (torch's random64 randperm path)")
    from .torch_cpu_rng import CPUStream, randperm
    return randperm(CPUStream(seed), n).tolist()


class DistributedSampler(Sampler):
    """torch.utils.data.DistributedSampler: torch's index order for the same seed and epoch."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None:
            if not _d.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = _d.get_world_size()
        if rank is None:
            if not _d.is_available():
                raise RuntimeError("Requires distributed package to be available")
            rank = _d.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last = 0, drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle, self.seed = shuffle, seed

    def __iter__(self):
        n = len(self.dataset)
        indices = _torch_cpu_randperm(n, self.seed + self.epoch) if self.shuffle else list(range(n))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank: self.total_size: self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch


type_("torch.utils.data.DistributedSampler", DistributedSampler)


# -- torch.multiprocessing.spawn ------------------------------------------------------------------
class _ProcessException(Exception):
    """torch.multiprocessing.spawn's ProcessException (not exported by torch.multiprocessing):
    ``msg``, ``error_index``, ``error_pid``; pickles with them."""

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(_ProcessException):
    """A spawned process raised: torch's message carries the child's traceback."""


class ProcessExitedException(_ProcessException):
    """A spawned process exited with a non-zero code (or a signal) without raising."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                            self.signal_name)


type_("torch.multiprocessing.ProcessRaisedException", ProcessRaisedException)
type_("torch.multiprocessing.ProcessExitedException", ProcessExitedException)


def _wrap(fn, i, args, error_queue):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        import traceback
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes spawn started (``join=False``): ``join()`` waits for them."""

    def __init__(self, processes, error_queues):
        self.processes, self.error_queues = processes, error_queues

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None, grace_period=None) -> bool:
        """True once every process finished; raises for the first that failed (terminating
        the others, killing those still alive after ``grace_period`` seconds), as torch's
        ProcessContext.join."""
        import multiprocessing.connection as conn
        import signal
        alive = {p.sentinel: i for i, p in enumerate(self.processes) if p.exitcode is None}
        if alive:
            conn.wait(list(alive), timeout=timeout)
        failed = next((i for i, p in enumerate(self.processes)
                       if p.exitcode is not None and p.exitcode != 0), None)
        if failed is None:
            if all(p.exitcode is not None for p in self.processes):
                for p in self.processes:
                    p.join()
                return True
            return False
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        if grace_period is not None:
            conn.wait([p.sentinel for p in self.processes if p.is_alive()], timeout=grace_period)
        for p in self.processes:
            if p.is_alive():
                p.kill()
            p.join()
        proc = self.processes[failed]
        if self.error_queues[failed].empty():
            code = proc.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(f"process {failed:d} terminated with signal {name}",
                                             failed, proc.pid, code, name)
            raise ProcessExitedException(f"process {failed:d} terminated with exit code "
                                         f"{code:d}", failed, proc.pid, code)
        trace = self.error_queues[failed].get()
        raise ProcessRaisedException(f"\n\n-- Process {failed:d} terminated with the following "
                                     f"error:\n{trace}", failed, proc.pid)


type_("torch.multiprocessing.ProcessContext", ProcessContext)


@torch_function("torch.multiprocessing.spawn",
                note="children enable torchproxy with the parent's enable() rules")
def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    import multiprocessing

    from .. import children
    if start_method != "fork" and children.current_rules() is None:
        raise RuntimeError("torch.multiprocessing.spawn under torchproxy needs torchproxy."
                           "enable(...) (a guard's rules stay in its block of code; the "
                           "children would import real torch)")
    ctx = multiprocessing.get_context(start_method)
    was = children.propagating()
    children.propagate()  # each child enables torchproxy before it imports __main__
    try:
        error_queues, processes = [], []
        for i in range(nprocs):
            q = ctx.SimpleQueue()
            p = ctx.Process(target=_wrap, args=(fn, i, args, q), daemon=daemon)
            p.start()
            error_queues.append(q)
            processes.append(p)
    finally:
        if not was:
            children.stop()
    context = ProcessContext(processes, error_queues)
    if not join:
        return context
    while not context.join():
        pass
    return None
