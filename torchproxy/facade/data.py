"""``torch.utils.data`` on Paddle tensors: datasets, samplers, ``default_collate`` and
``DataLoader`` with worker processes.

The classes follow torch's Python implementation (torch/utils/data/): the same constructor
arguments and checks, the same sampling procedures (``RandomSampler`` draws ``randperm`` /
``randint`` from a ``torch.Generator``, ``random_split`` one ``randperm``), the same collation
rules (``default_collate`` stacks tensors, turns ints into int64 and floats into float64
tensors, keeps strings, recurses into dicts, namedtuples and sequences -- a batch of tuples
becomes a *list*).  Random draws use the facade's generators (facade/random.py): a seeded
``generator=`` gives the same order every time, but not torch's order for that seed.

Workers (``num_workers > 0``) are processes of the default ``multiprocessing`` context (or
``multiprocessing_context=``).  Each worker gets its ``WorkerInfo`` (``get_worker_info()``), a
seed ``base_seed + worker_id`` (``random``, ``numpy`` and the facade's generator, as torch
seeds ``random`` and torch), runs ``worker_init_fn`` and fetches and collates whole batches; a
batch crosses the process boundary as numpy arrays and becomes Paddle tensors again in the main
process (torch uses shared memory).  Batches come back in sampler order (``in_order=True``);
an exception in a worker is raised in the main process with the worker's traceback.
"""
from __future__ import annotations

import bisect
import collections
import collections.abc
import copy
import itertools
import math
import pickle as _pickle
import queue
import random as _pyrandom
import re
import traceback
import warnings
import weakref

import numpy as np
import paddle

from ..errors import NotProvidedError
from .registry import module, torch_function, type_

from .registry import manifest

NAMES = manifest("""
    torch.utils: data
    torch.utils.data: BatchSampler ChainDataset ConcatDataset DataLoader Dataset IterableDataset
        RandomSampler Sampler SequentialSampler Subset SubsetRandomSampler TensorDataset
        WeightedRandomSampler dataloader dataset default_collate default_convert get_worker_info
        random_split sampler
    torch.utils.data.dataloader: DataLoader default_collate default_convert get_worker_info
    torch.utils.data.dataset: ChainDataset ConcatDataset Dataset IterableDataset Subset
        TensorDataset random_split
    torch.utils.data.sampler: BatchSampler RandomSampler Sampler SequentialSampler
        SubsetRandomSampler WeightedRandomSampler
""")

module("torch.utils.data")
module("torch.utils.data.dataset")
module("torch.utils.data.sampler")
module("torch.utils.data.dataloader")

D = "torch.utils.data."


def _register(cls_or_fn, *submodules):
    name = cls_or_fn.__name__
    reg = type_ if isinstance(cls_or_fn, type) else lambda n, o: torch_function(n)(o)
    reg(D + name, cls_or_fn)
    for sub in submodules:
        reg(f"{D}{sub}.{name}", cls_or_fn)


def _generator_cls():
    from .random import Generator
    return Generator


# -- datasets ------------------------------------------------------------------------------------
class Dataset:
    """torch.utils.data.Dataset: subclasses define ``__getitem__`` (and usually ``__len__``)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """torch.utils.data.IterableDataset: subclasses define ``__iter__``."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    def __init__(self, *tensors):
        if not all(tensors[0].shape[0] == t.shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class ConcatDataset(Dataset):
    @staticmethod
    def cumsum(sequence):
        r, s = [], 0
        for e in sequence:
            s += len(e)
            r.append(s)
        return r

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


class ChainDataset(IterableDataset):
    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """torch's procedure: fractions become counts (floor, the remainder spread one by one),
    then one ``randperm(len(dataset), generator=generator)`` is cut into the subsets."""
    from .random import default_generator, randperm
    if generator is None:
        generator = default_generator
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(int(math.floor(len(dataset) * frac)))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                              "dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, indices[offset:offset + length]))
        offset += length
    return out


for _c in (Dataset, IterableDataset, TensorDataset, ConcatDataset, ChainDataset, Subset,
           random_split):
    _register(_c, "dataset")


# -- samplers ------------------------------------------------------------------------------------
class Sampler:
    def __init__(self, data_source=None):
        if data_source is not None:
            warnings.warn("`data_source` argument is not used and will be removed in 2.2.0."
                          "You may still have custom implementation that utilizes it.",
                          stacklevel=2)

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _draw_seed(generator) -> int:
    """torch's ``torch.empty((), dtype=torch.int64).random_(generator=generator).item()``: one
    random64 draw of the torch CPU stream, so shuffles follow torch's for a seed."""
    from .random import _stream, _trng
    stream = _stream(generator)
    with stream.lock:
        return int(_trng.random_default(stream, 1, "int64")[0])


def _fresh_generator():
    """torch: a generator seeded from the global stream (``torch.empty((), int64).random_()``)."""
    seed = _draw_seed(None)
    g = _generator_cls()()
    g.manual_seed(seed)
    return g


class RandomSampler(Sampler):
    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got replacement="
                            f"{self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        from .random import randint
        from .random import randperm
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), generator=generator).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        from .random import randperm
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got replacement="
                             f"{replacement}")
        w = weights.astype("float64") if isinstance(weights, paddle.Tensor) else \
            paddle.to_tensor(np.asarray(weights, dtype=np.float64))
        if len(w.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(w.shape)}")
        self.weights, self.num_samples = w, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        from .random import multinomial
        rand = multinomial(self.weights, self.num_samples, self.replacement,
                           generator=self.generator)
        yield from iter(rand.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        sampler_iter = iter(self.sampler)
        if self.drop_last:
            args = [sampler_iter] * self.batch_size
            for batch in zip(*args):
                yield [*batch]
        else:
            batch = [*itertools.islice(sampler_iter, self.batch_size)]
            while batch:
                yield batch
                batch = [*itertools.islice(sampler_iter, self.batch_size)]

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


for _c in (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
           BatchSampler):
    _register(_c, "sampler")


# -- collation -----------------------------------------------------------------------------------
_NP_STR_OBJ = re.compile(r"[SaUO]")
_COLLATE_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                "lists; found {}")


def _np_to_tensor(arr):
    from .creation import from_numpy, tensor
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return tensor(arr)
    return from_numpy(arr) if arr.flags.writeable and arr.flags.c_contiguous else tensor(arr)


def default_collate(batch):
    from .creation import tensor
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, paddle.Tensor):
        return paddle.stack(list(batch), axis=0)
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if isinstance(elem, np.ndarray):
            if _NP_STR_OBJ.search(elem.dtype.str) is not None:
                raise TypeError(_COLLATE_ERR.format(elem.dtype))
            return default_collate([_np_to_tensor(b) for b in batch])
        if isinstance(elem, (np.bool_, np.number, np.object_)):
            return tensor(np.asarray(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=paddle.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: default_collate([d[key] for d in batch])
                                       for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        collated = [default_collate(samples) for samples in transposed]
        return collated if isinstance(elem, tuple) else _rebuild_sequence(elem, collated)
    raise TypeError(_COLLATE_ERR.format(elem_type))


def _rebuild_mapping(original, items):
    """torch's rebuilding of a mapping from its converted ``items``: a copy of a mutable
    mapping updated with them, else its type made from them, else (TypeError) a dict."""
    try:
        if isinstance(original, collections.abc.MutableMapping):
            clone = copy.copy(original)
            clone.update(items)
            return clone
        return type(original)(items)
    except TypeError:
        return items


def _rebuild_sequence(original, items):
    """The same for a sequence: a copy of a mutable one with ``items`` assigned in place,
    else its type made from the list, else (TypeError) the list."""
    try:
        if isinstance(original, collections.abc.MutableSequence):
            clone = copy.copy(original)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(original)(items)
    except TypeError:
        return items


def default_convert(data):
    elem_type = type(data)
    if isinstance(data, paddle.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and _NP_STR_OBJ.search(data.dtype.str) is not None:
            return data
        return _np_to_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


# -- worker processes ----------------------------------------------------------------------------
class WorkerInfo:
    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__dict__.get("_WorkerInfo__initialized", False):
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        return f"WorkerInfo({', '.join(f'{k}={getattr(self, k)}' for k in self.__keys)})"


_worker_info = None


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo (id, num_workers, seed, dataset); else None."""
    return _worker_info


class _Packed:
    """A Paddle tensor crossing a process boundary: numpy data plus what numpy cannot carry."""

    __slots__ = ("array", "dtype")

    def __init__(self, array, dtype):
        self.array, self.dtype = array, dtype

    def __reduce__(self):
        return (_Packed, (self.array, self.dtype))


def _map_containers(fn, obj):
    """``obj`` with ``fn`` applied to each element of its dicts (a copy of the dict's own type
    where it can be made), namedtuples, lists and tuples; anything else as it is."""
    if isinstance(obj, dict):
        try:
            clone = copy.copy(obj)
            clone.update({k: fn(v) for k, v in obj.items()})
            return clone
        except TypeError:
            return {k: fn(v) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(fn(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(fn(v) for v in obj)
    return obj


def _pack(obj):
    if isinstance(obj, paddle.Tensor):
        name = str(obj.dtype).split(".")[-1]
        if name == "bfloat16":
            return _Packed(obj.astype("float32").numpy(), "bfloat16")
        return _Packed(obj.numpy(), name)
    return _map_containers(_pack, obj)


def _unpack(obj):
    if isinstance(obj, _Packed):
        t = paddle.to_tensor(obj.array, place=paddle.CPUPlace())
        return t.astype("bfloat16") if obj.dtype == "bfloat16" else t
    return _map_containers(_unpack, obj)


class _WorkerError:
    def __init__(self, exc, worker_id):
        self.exc_type = type(exc)
        self.msg = (f"Caught {type(exc).__name__} in DataLoader worker process {worker_id}.\n"
                    f"Original {traceback.format_exc()}")

    def reraise(self):
        try:
            exc = self.exc_type(self.msg)
        except Exception:
            raise RuntimeError(self.msg) from None
        raise exc


class _IterableStop:
    pass


def _fetch(kind, dataset, it, indices, auto_collation, collate_fn, drop_last, batch_size):
    """One batch (map-style: these indices; iterable: the next batch_size items)."""
    if kind == "map":
        if auto_collation:
            getitems = getattr(dataset, "__getitems__", None)
            data = getitems(indices) if callable(getitems) else [dataset[i] for i in indices]
        else:
            data = dataset[indices]
        return collate_fn(data)
    if auto_collation:
        data = []
        for _ in range(batch_size):
            try:
                data.append(next(it))
            except StopIteration:
                break
        if not data or (drop_last and len(data) < batch_size):
            raise StopIteration
        return collate_fn(data)
    return collate_fn(next(it))


def _worker_loop(kind, dataset, index_queue, result_queue, auto_collation, collate_fn, drop_last,
                 batch_size, base_seed, init_fn, worker_id, num_workers):
    global _worker_info
    try:
        seed = base_seed + worker_id
        _pyrandom.seed(seed)
        from .random import manual_seed
        manual_seed(seed)  # torch.manual_seed(seed): the torch CPU stream and Paddle's
        np.random.seed(seed % (2 ** 32))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            it = iter(dataset) if kind == "iterable" else None
        except Exception as e:  # noqa: BLE001 - re-raised in the main process
            init_error = _WorkerError(e, worker_id)
        exhausted = False
        while True:
            msg = index_queue.get()
            if msg is None:
                break
            if msg == "reset":
                if kind == "iterable":
                    it, exhausted = iter(dataset), False
                continue
            idx, indices = msg
            if init_error is not None:
                result_queue.put((idx, init_error))
                init_error = None
                continue
            if exhausted:
                result_queue.put((idx, _IterableStop()))
                continue
            try:
                data = _pack(_fetch(kind, dataset, it, indices, auto_collation, collate_fn,
                                    drop_last, batch_size))
                # pickled here, not in the queue's feeder thread: a batch that cannot be
                # pickled becomes an error in the main process instead of a silent hang
                data = _pickle.dumps(data, protocol=_pickle.HIGHEST_PROTOCOL)
            except StopIteration:
                exhausted = True
                data = _IterableStop()
            except Exception as e:  # noqa: BLE001
                data = _WorkerError(e, worker_id)
            result_queue.put((idx, data))
    except KeyboardInterrupt:
        pass
    finally:
        result_queue.cancel_join_thread()


class _SingleProcessIter:
    def __init__(self, loader):
        self.loader = loader
        self.kind = "iterable" if loader._is_iterable else "map"
        self.index_iter = iter(loader._index_sampler) if self.kind == "map" else None
        self.data_iter = iter(loader.dataset) if self.kind == "iterable" else None
        self.done = False
        # torch draws the workers' base seed from loader.generator in every iterator, before
        # the sampler's first draw: the same draws keep shuffles equal with and without workers
        self.base_seed = _draw_seed(loader.generator)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self.loader)

    def __next__(self):
        if self.done:
            raise StopIteration
        ld = self.loader
        try:
            if self.kind == "map":
                indices = next(self.index_iter)
                data = _fetch("map", ld.dataset, None, indices, ld._auto_collation,
                              ld.collate_fn, ld.drop_last, ld.batch_size)
            else:
                data = _fetch("iterable", ld.dataset, self.data_iter, None, ld._auto_collation,
                              ld.collate_fn, ld.drop_last, ld.batch_size)
        except StopIteration:
            self.done = True
            raise
        return data


def _loader_len(is_iterable, dataset, batch_size, drop_last, index_sampler):
    if is_iterable:
        length = len(dataset)
        if batch_size is not None:
            length = length // batch_size if drop_last else math.ceil(length / batch_size)
        return length
    return len(index_sampler)


def _stop_workers(index_queues, workers):
    for q in index_queues:
        try:
            q.put(None)
        except Exception:  # noqa: BLE001 - best effort at teardown
            pass
    for w in workers:
        w.join(timeout=5)
        if w.is_alive():
            w.terminate()
            w.join(timeout=1)


class _MultiProcessIter:
    _POLL = 5.0

    def __init__(self, loader):
        import multiprocessing as mp
        # what it needs of the loader, copied (as torch's iterator does): no reference to the
        # loader, which holds a persistent iterator -- in a reference cycle, the pair would be
        # freed by the garbage collector, whose weakref callbacks close the index queues'
        # feeder threads before __del__ can send the workers their stop (each worker then
        # waited out the 5 s join and was killed: 10 s and Paddle's "Termination signal"
        # report at the end of a program with 2 persistent workers)
        ld = loader
        self.kind = "iterable" if ld._is_iterable else "map"
        self.timeout, self.persistent_workers = ld.timeout, ld.persistent_workers
        self.in_order = ld.in_order
        self._len_of = (ld._is_iterable, ld.dataset, ld.batch_size, ld.drop_last)
        ctx = ld.multiprocessing_context
        if ctx is None:
            ctx = mp.get_context()
        elif isinstance(ctx, str):
            ctx = mp.get_context(ctx)
        base_seed = _draw_seed(ld.generator)
        self.num_workers = ld.num_workers
        self.result_queue = ctx.Queue()
        self.index_queues, self.workers = [], []
        for i in range(self.num_workers):
            q = ctx.Queue()
            q.cancel_join_thread()
            w = ctx.Process(target=_worker_loop, daemon=True, args=(
                self.kind, ld.dataset, q, self.result_queue, ld._auto_collation, ld.collate_fn,
                ld.drop_last, ld.batch_size, base_seed, ld.worker_init_fn, i, self.num_workers))
            w.start()
            self.index_queues.append(q)
            self.workers.append(w)
        self.shut = False
        # the workers' stop, run by _shutdown or when this iterator is freed: the finalizer
        # holds the queues and processes, so in a garbage cycle the queues' own finalizers
        # (which close their feeder threads) cannot run before the stop is sent
        self._stop = weakref.finalize(self, _stop_workers, self.index_queues, self.workers)
        self._reset(loader, first=True)

    def _reset(self, loader, first=False):
        ld = loader
        self._index_sampler = ld._index_sampler
        self.index_iter = iter(ld._index_sampler) if self.kind == "map" else None
        self.send_idx = self.rcvd_idx = 0
        self.task_info = {}          # idx -> worker id (and, once received, the data)
        self.active = [True] * self.num_workers
        self.worker_cycle = itertools.cycle(range(self.num_workers))
        self.exhausted = False
        if not first:
            for q in self.index_queues:
                q.put("reset")
        prefetch = ld.prefetch_factor if ld.prefetch_factor is not None else 2
        for _ in range(prefetch * self.num_workers):
            self._try_put()

    def __iter__(self):
        return self

    def __len__(self):
        return _loader_len(*self._len_of, self._index_sampler)

    def _try_put(self):
        if self.exhausted or not any(self.active):
            return
        if self.kind == "map":
            try:
                indices = next(self.index_iter)
            except StopIteration:
                self.exhausted = True
                return
        else:
            indices = None
        for _ in range(self.num_workers):
            wid = next(self.worker_cycle)
            if self.active[wid]:
                break
        else:
            return
        self.index_queues[wid].put((self.send_idx, indices))
        self.task_info[self.send_idx] = (wid,)
        self.send_idx += 1

    def _get(self):
        timeout = self.timeout
        while True:
            try:
                return self.result_queue.get(timeout=timeout if timeout > 0 else self._POLL)
            except queue.Empty:
                if timeout > 0:
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None
                dead = [w.pid for w in self.workers if not w.is_alive()]
                if dead:
                    self._shutdown()
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(map(str, dead))}) "
                                       "exited unexpectedly") from None

    def __next__(self):
        while True:
            while self.rcvd_idx < self.send_idx:
                info = self.task_info.get(self.rcvd_idx)
                if info is None:  # returned already (in_order=False)
                    self.rcvd_idx += 1
                    continue
                if len(info) == 2 or self.active[info[0]]:
                    break
                del self.task_info[self.rcvd_idx]  # its worker ran out: nothing will come
                self.rcvd_idx += 1
            if self.rcvd_idx >= self.send_idx:
                if not self.persistent_workers:
                    self._shutdown()
                raise StopIteration
            info = self.task_info[self.rcvd_idx]
            if len(info) == 2:
                del self.task_info[self.rcvd_idx]
                self.rcvd_idx += 1
                data = info[1]
                if isinstance(data, _IterableStop):
                    continue
                self._try_put()
                return self._process(data)
            idx, data = self._get()
            if idx not in self.task_info:  # a late stop from a worker already known finished
                continue
            if isinstance(data, _IterableStop):
                wid = self.task_info[idx][0]
                self.active[wid] = False
            if idx == self.rcvd_idx or not self.in_order:
                del self.task_info[idx]
                if idx == self.rcvd_idx:
                    self.rcvd_idx += 1
                if isinstance(data, _IterableStop):
                    continue
                self._try_put()
                return self._process(data)
            self.task_info[idx] += (data,)

    def _process(self, data):
        if isinstance(data, bytes):
            data = _pickle.loads(data)
        if isinstance(data, _WorkerError):
            self._shutdown()
            data.reraise()
        return _unpack(data)

    def _shutdown(self):
        if self.shut:
            return
        self.shut = True
        self._stop()

    def __del__(self):
        try:
            self._shutdown()
        except Exception:  # noqa: BLE001
            pass


class DataLoader:
    """torch.utils.data.DataLoader: batches of Paddle tensors (see the module docstring)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers, self.prefetch_factor = num_workers, prefetch_factor
        self.pin_memory, self.pin_memory_device = pin_memory, pin_memory_device
        self.timeout, self.worker_init_fn = timeout, worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            if isinstance(shuffle, bool) and shuffle:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterator = None

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._iterator is None or self._iterator.shut:
                self._iterator = _MultiProcessIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _MultiProcessIter(self)

    def __len__(self):
        return _loader_len(self._is_iterable, self.dataset, self.batch_size, self.drop_last,
                           self._index_sampler)

    def __del__(self):
        it = self.__dict__.get("_iterator")
        if it is not None:
            try:
                it._shutdown()
            except Exception:  # noqa: BLE001
                pass


class _InfiniteConstantSampler(Sampler):
    def __iter__(self):
        while True:
            yield None


for _c in (DataLoader, default_collate, default_convert, get_worker_info):
    _register(_c, "dataloader")
