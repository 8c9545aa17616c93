"""DataLoader: batches from a dataset, in the order of a sampler, through a collate function.

With `num_workers > 0` batches are loaded by worker processes (`multiprocessing`, the platform's
default start method unless `multiprocessing_context` names another), as torch loads them: each
worker gets the dataset (its own copy), is seeded from the loader's base seed plus its id (ndgrad's
default Generator, `random`, NumPy's global state), runs `worker_init_fn(worker_id)` once when it
starts, and receives the index lists of batches round-robin, at most `prefetch_factor` ahead per
worker; batches come back in the sampler's order. A worker's exception is raised again in the main
process with the worker's traceback; a worker that dies or a `timeout` that expires is a
RuntimeError naming it. `persistent_workers` keeps the processes across epochs.

Seeded shuffling draws from a `Generator` exactly where torch does (the loader's base seed, then
the sampler's permutation), so the same seed gives torch's order.
"""
import itertools
import multiprocessing
import os
import queue
import random
import traceback
import warnings

import numpy as np

from ... import _dtype, _random, _settings
from ... import random as _torch_random
from ...ops.creation import empty, from_numpy
from ._collate import default_collate, default_convert
from ._plain import plain_arrays
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler


class WorkerInfo:
    """What `get_worker_info()` returns inside a worker: id, num_workers, seed, dataset (its copy)."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({items})"


_current_worker = None   # this process's WorkerInfo when it is a worker


def get_worker_info():
    """The running worker's information, inside a :class:`DataLoader` worker process; ``None`` in the main process.

    Its attributes are ``id``, ``num_workers``, ``seed`` and ``dataset`` (the worker's own copy);
    an :class:`IterableDataset` uses them to yield only its share, and ``worker_init_fn`` to set
    up each worker.

    Returns:
        WorkerInfo or None

    Example::

        >>> print(torch.utils.data.get_worker_info())
        None

    In an iterable dataset read by two workers::

        def __iter__(self):
            info = torch.utils.data.get_worker_info()
            if info is None:                       # read in the main process: everything
                return iter(range(self.n))
            return iter(range(info.id, self.n, info.num_workers))
    """
    return _current_worker


_torch_random.worker_info = get_worker_info   # torch.random.thread_safe_generator asks it


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: no indices, only a count of samples to read."""

    def __iter__(self):
        while True:
            yield None


class _Fetcher:
    """Turns one entry of the index sampler into a batch (map-style), or reads the next batch
    from the dataset's stream (iterable-style); StopIteration when the stream is exhausted."""

    def __init__(self, dataset, auto_collation, collate_fn, batch_size, drop_last):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn
        self.batch_size, self.drop_last = batch_size, drop_last
        self.stream = iter(dataset) if isinstance(dataset, IterableDataset) else None

    def __call__(self, index):
        if self.stream is None:
            if not self.auto_collation:
                return self.collate_fn(self.dataset[index])
            if callable(getattr(self.dataset, "__getitems__", None)):
                return self.collate_fn(self.dataset.__getitems__(index))
            if type(self.dataset) is TensorDataset and self.collate_fn is default_collate:
                batch = _tensor_dataset_batch(self.dataset.tensors, index)
                if batch is not None:
                    return batch
            return self.collate_fn([self.dataset[i] for i in index])
        if not self.auto_collation:
            return self.collate_fn(next(self.stream))
        data = list(itertools.islice(self.stream, self.batch_size))
        if not data or (self.drop_last and len(data) < self.batch_size):
            raise StopIteration
        return self.collate_fn(data)


def _tensor_dataset_batch(tensors, index):
    """default_collate([dataset[i] for i in index]) for a TensorDataset's `tensors`, by one NumPy
    take of the rows per tensor; None where that might differ (the samples are then read one by one):
    indices other than a nonempty list of in-range ints, a tensor `plain_arrays` refuses."""
    if type(index) is not list or not index or not tensors or not all(type(i) is int for i in index):
        return None
    low, high = min(index), max(index)
    columns = []
    for t in tensors:
        plain = plain_arrays((t,))
        if plain is None or plain[0].ndim == 0 or low < -len(plain[0]) or high >= len(plain[0]):
            return None   # (out of range: the sample's indexing raises torch's IndexError)
        columns.append(plain[0])
    rows = np.array(index, dtype=np.intp)
    # take of a C-contiguous array is row-major, as stack's result; a tuple sample collates to a list
    return [from_numpy(np.take(a, rows, axis=0)) for a in columns]


class _WorkerError:
    """An exception raised in a worker, carried to the main process with its traceback."""

    def __init__(self, exc, worker_id):
        self.exc_type = type(exc)
        self.text = (f"Caught {self.exc_type.__name__} in DataLoader worker process {worker_id}.\n"
                     "Original " + "".join(traceback.format_exception(exc)))

    def reraise(self):
        try:   # the same exception type when it can be built from one message, as torch does
            exc = self.exc_type(self.text)
        except Exception:
            exc = RuntimeError(self.text)
        raise exc


_STOP, _RESUME = "stop", "resume"   # control messages on a worker's index queue
_EXHAUSTED = "exhausted"            # an iterable dataset's copy in a worker has no more batches


def _seed_worker(seed, base_seed, worker_id):
    random.seed(seed)
    _random.manual_seed(seed)
    np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))


def _worker_loop(loader_args, index_queue, result_queue, worker_id, num_workers, base_seed, init_fn):
    """A worker process: answers (task, index) requests with (task, batch) until told to stop."""
    global _current_worker
    dataset, auto_collation, collate_fn, batch_size, drop_last = loader_args
    _settings.set_num_threads(1)   # (as torch's workers: the main process's kernels have the cores)
    seed = base_seed + worker_id
    _seed_worker(seed, base_seed, worker_id)
    _current_worker = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = _Fetcher(dataset, auto_collation, collate_fn, batch_size, drop_last)
        init_error = None
    except Exception as exc:
        init_error = _WorkerError(exc, worker_id)
    exhausted = False
    while True:
        message = index_queue.get()
        if message == _STOP:
            break
        if message == _RESUME:   # a new epoch of persistent workers
            if init_error is None:
                fetcher = _Fetcher(dataset, auto_collation, collate_fn, batch_size, drop_last)
            exhausted = False
            continue
        task, index = message
        if init_error is not None:
            result_queue.put((task, init_error))
            init_error = None   # reported once; the main process raises it
            continue
        if exhausted:
            result_queue.put((task, _EXHAUSTED))
            continue
        try:
            result = fetcher(index)
        except StopIteration:
            exhausted, result = True, _EXHAUSTED
        except Exception as exc:
            result = _WorkerError(exc, worker_id)
        result_queue.put((task, result))


class DataLoader:
    """Iterates over a dataset in batches, in the order of a sampler, through a collate function.

    With ``num_workers > 0`` the batches are loaded by worker processes (see the module docstring
    for their start method, seeding and errors); they always come back in the sampler's order.
    `pin_memory` and `pin_memory_device` are accepted and change nothing (ndgrad runs on the CPU).
    Seeded shuffling gives torch's order (the same draws from the same generators).

    Args:
        dataset (Dataset): a map-style or iterable-style dataset.
        batch_size (int, optional): the samples per batch (``None``: no batching). Default: ``1``.
        shuffle (bool, optional): a new random order each epoch (map-style only). Default: ``False``.
        sampler (Sampler or iterable, optional): the order of the indices (not with `shuffle`).
        batch_sampler (Sampler or iterable, optional): yields whole index lists (not with
            `batch_size`, `shuffle`, `sampler` or `drop_last`).
        num_workers (int, optional): the worker processes (``0``: load in this process). Default: ``0``.
        collate_fn (Callable, optional): makes a batch of a list of samples (default: `default_collate`,
            or `default_convert` without batching).
        pin_memory (bool, optional): accepted; no effect on the CPU. Default: ``False``.
        drop_last (bool, optional): drop the last batch when it is shorter. Default: ``False``.
        timeout (float, optional): seconds to wait for a worker's batch (``0``: forever). Default: ``0``.
        worker_init_fn (Callable, optional): called with the worker id in each worker as it starts.
        multiprocessing_context (str or context, optional): the start method of the workers.
        generator (Generator, optional): the generator of the base seed and of the shuffle.
        prefetch_factor (int, optional): batches loaded ahead per worker. Default: ``2`` with workers.
        persistent_workers (bool, optional): keep the workers across epochs. Default: ``False``.
        pin_memory_device (str, optional): accepted; no effect.
        in_order (bool, optional): accepted; batches always come in order. Default: ``True``.

    Example::

        >>> ds = torch.utils.data.TensorDataset(torch.arange(5.0), torch.tensor([0, 1, 0, 1, 0]))
        >>> for x, y in torch.utils.data.DataLoader(ds, batch_size=2):
        ...     print(x, y)
        tensor([0., 1.]) tensor([0, 1])
        tensor([2., 3.]) tensor([0, 1])
        tensor([4.]) tensor([0])
        >>> len(torch.utils.data.DataLoader(ds, batch_size=2, drop_last=True))
        2
    """

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError("multiprocessing_context can only be used with multi-process loading "
                             f"(num_workers > 0), but got num_workers={num_workers}")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, "
                                 f"but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, "
                                 f"but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._persistent_iter = None   # the worker processes kept across epochs with persistent_workers
        self.__initialized = True

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self._index_sampler)

    def __iter__(self):
        if self.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=2)
        if not self.num_workers:
            return _SingleProcessIter(self)
        self.check_worker_number_rationality()
        if not self.persistent_workers:
            return _MultiProcessIter(self)
        if self._persistent_iter is None:
            self._persistent_iter = _MultiProcessIter(self)
        else:
            self._persistent_iter._reset()
        return self._persistent_iter

    def check_worker_number_rationality(self):
        """Warns when more workers are asked for than this process may use CPUs."""
        if not self.num_workers:
            return
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if cpus is None or self.num_workers > cpus:
            suggestion = ("DataLoader is not able to compute a suggested max number of worker in current system."
                          if cpus is None else
                          f"Our suggested max number of worker in current system is {cpus}"
                          f"{'' if hasattr(os, 'sched_getaffinity') else ' (`cpuset` is not taken into account)'}, "
                          "which is smaller than what this DataLoader is going to create.")
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. {suggestion} "
                          "Please be aware that excessive worker creation might get DataLoader running slow or even "
                          "freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
                          stacklevel=3)


class _SingleProcessIter:
    def __init__(self, loader):
        self._loader = loader
        # torch draws the workers' base seed in the main process too; keep the draws in step
        empty((), dtype=_dtype.int64).random_(generator=loader.generator)
        self._indices = iter(loader._index_sampler)
        self._fetch = _Fetcher(loader.dataset, loader._auto_collation, loader.collate_fn, loader.batch_size,
                               loader.drop_last)

    def __iter__(self):
        return self

    def __next__(self):
        return self._fetch(next(self._indices))

    def __len__(self):
        return len(self._loader)


class _MultiProcessIter:
    """Worker processes fed index lists round-robin; batches handed out in the order sent."""

    _poll_s = 5.0   # how often a wait without timeout checks that the workers are alive

    def __init__(self, loader):
        self._loader = loader
        n = loader.num_workers
        # one int64 from the loader's generator seeds the workers, as in torch
        base_seed = empty((), dtype=_dtype.int64).random_(generator=loader.generator).item()
        ctx = loader.multiprocessing_context
        ctx = multiprocessing.get_context(ctx) if ctx is None or isinstance(ctx, str) else ctx
        self._results = ctx.Queue()
        self._index_queues, self._workers = [], []
        args = (loader.dataset, loader._auto_collation, loader.collate_fn, loader.batch_size, loader.drop_last)
        for w in range(n):
            index_queue = ctx.Queue()
            proc = ctx.Process(target=_worker_loop, daemon=True,
                               args=(args, index_queue, self._results, w, n, base_seed, loader.worker_init_fn))
            proc.start()
            self._index_queues.append(index_queue)
            self._workers.append(proc)
        self._shut = False
        self._reset(first=True)

    def _reset(self, first=False):
        n = self._loader.num_workers
        self._indices = iter(self._loader._index_sampler)
        self._sent = self._received = 0     # task numbers: sent to workers, handed to the caller
        self._owner = {}                    # task -> worker, for tasks not yet handed out
        self._ready = {}                    # task -> result that came back early
        self._active = [True] * n           # iterable datasets: workers whose copy is not exhausted
        self._next_worker = itertools.cycle(range(n))
        if not first:
            for q in self._index_queues:
                q.put(_RESUME)
        for _ in range(self._loader.prefetch_factor * n):
            self._send()

    def _send(self):
        if not any(self._active):
            return
        index = next(self._indices, _STOP)
        if index is _STOP:
            return
        worker = next(w for w in self._next_worker if self._active[w])
        self._index_queues[worker].put((self._sent, index))
        self._owner[self._sent] = worker
        self._sent += 1

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        while True:
            if self._received not in self._owner:   # nothing outstanding: the epoch is over
                if not self._loader.persistent_workers:
                    self._shutdown()
                raise StopIteration
            task = self._received
            while task not in self._ready:
                got, result = self._get()
                self._ready[got] = result
            result = self._ready.pop(task)
            worker = self._owner.pop(task)
            self._received += 1
            if isinstance(result, str) and result == _EXHAUSTED:
                self._active[worker] = False   # its copy is done; the other workers go on
                continue
            self._send()
            if isinstance(result, _WorkerError):
                self._shutdown()
                result.reraise()
            return result

    def _get(self):
        timeout = self._loader.timeout
        while True:
            try:
                return self._results.get(timeout=timeout if timeout > 0 else self._poll_s)
            except queue.Empty:
                if timeout > 0:
                    self._shutdown(wait=False)
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None
                dead = [str(p.pid) for p in self._workers if not p.is_alive()]
                if dead:
                    self._shutdown(wait=False)
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(dead)}) exited unexpectedly") from None

    def _shutdown(self, wait=True):
        """Stops the workers: asks them to (wait=True), or terminates them (a worker may be stuck)."""
        if self._shut:
            return
        self._shut = True
        for q, p in zip(self._index_queues, self._workers):
            if wait and p.is_alive():
                q.put(_STOP)
        for p in self._workers:
            p.join(timeout=5 if wait else 0)
            if p.is_alive():
                p.terminate()
        for q in [*self._index_queues, self._results]:
            q.cancel_join_thread()
            q.close()
        if self._loader._persistent_iter is self:
            self._loader._persistent_iter = None

    def __del__(self):
        self._shutdown()
