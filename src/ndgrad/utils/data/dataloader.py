"""DataLoader: batches from a dataset, in the order of a sampler, through a collate function.

Workers (`num_workers > 0`) run in the main process, one after another; there is no
parallelism. Each emulated worker still behaves as one of torch's worker processes: it has its
own shallow copy of the dataset (what `get_worker_info().dataset` returns, so a
`worker_init_fn` may cut it to the worker's share), its own random state (ndgrad's default
Generator, `random` and NumPy's global state, seeded from the loader's base seed plus the worker
id as torch seeds them, swapped in whenever the worker runs), `worker_init_fn(worker_id)` called
once per epoch (once in all with `persistent_workers`), and batches taken round-robin across
workers. So a program gets the same batches, in the same order, as with torch's workers.

Seeded shuffling draws from a `Generator` exactly where torch does (the loader's base seed, then
the sampler's permutation), so it is reproducible in ndgrad, but the permutations differ from
torch's: ndgrad's Generator (PCG64) does not reproduce torch's Mersenne-Twister streams.
"""
import contextlib
import copy
import random
import warnings

import numpy as np

from ... import _dtype, _random
from ...ops.creation import empty
from ._collate import default_collate, default_convert
from .dataset import IterableDataset
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


_DONE = object()
_current_worker = None   # the WorkerInfo of the emulated worker running now


def get_worker_info():
    """The running worker's WorkerInfo, or None in the main process."""
    return _current_worker


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: no indices, only a count of samples to read."""

    def __iter__(self):
        while True:
            yield None


class _Worker:
    """One emulated worker: its WorkerInfo, its random state, and (iterable datasets) its stream."""

    def __init__(self, loader, worker_id, base_seed):
        self.info = WorkerInfo(id=worker_id, num_workers=loader.num_workers, seed=base_seed + worker_id,
                               dataset=copy.copy(loader.dataset))
        self.stream = None
        saved = _rng_states()
        random.seed(self.info.seed)
        _random.manual_seed(self.info.seed)
        np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
        self.states = _rng_states()
        _set_rng_states(saved)

    @contextlib.contextmanager
    def running(self):
        global _current_worker
        saved, outer = _rng_states(), _current_worker
        _set_rng_states(self.states)
        _current_worker = self.info
        try:
            yield self.info.dataset
        finally:
            _current_worker = outer
            self.states = _rng_states()
            _set_rng_states(saved)


def _rng_states():
    return _random.default_generator.get_state(), random.getstate(), np.random.get_state()


def _set_rng_states(states):
    _random.default_generator.set_state(states[0])
    random.setstate(states[1])
    np.random.set_state(states[2])


class DataLoader:
    """Iterates over `dataset` in batches (see the module docstring for workers and seeding).
    `pin_memory`, `timeout`, `prefetch_factor`, `multiprocessing_context` and `in_order` are
    accepted and change nothing on the CPU."""

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
        self._workers = None   # kept across epochs with persistent_workers
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
        return _DataLoaderIter(self)

    def check_worker_number_rationality(self):
        """Nothing to check: emulated workers use no processes."""


class _DataLoaderIter:
    def __init__(self, loader):
        self._loader = loader
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=3)
        sampler_iter = iter(loader._index_sampler)
        workers = loader._workers if loader.persistent_workers else None
        if loader.num_workers and workers is None:
            # one int64 from the loader's generator seeds the workers, as in torch
            base_seed = empty((), dtype=_dtype.int64).random_(generator=loader.generator).item()
            workers = [_Worker(loader, w, base_seed) for w in range(loader.num_workers)]
            if loader.persistent_workers:
                loader._workers = workers
            if loader.worker_init_fn is not None:
                for w in workers:
                    with w.running():
                        loader.worker_init_fn(w.info.id)
        elif not loader.num_workers:
            # torch draws the base seed in the main process too; keep the draws in step
            empty((), dtype=_dtype.int64).random_(generator=loader.generator)
        self._batches = self._run(sampler_iter, workers)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._batches)

    def __len__(self):
        return len(self._loader)

    def _run(self, sampler_iter, workers):
        loader = self._loader
        if not workers:
            yield from self._fetch_all(sampler_iter, None, loader.dataset)
            return
        if not loader._iterable:
            for n, index in enumerate(sampler_iter):
                worker = workers[n % len(workers)]
                with worker.running() as dataset:
                    batch = self._fetch_map(dataset, index)
                yield batch
            return
        active = list(workers)
        for w in active:
            w.stream = None   # each epoch, each worker iterates its copy afresh
        while active:
            for w in list(active):
                with w.running() as dataset:
                    if w.stream is None:
                        w.stream = self._fetch_all(sampler_iter, w, dataset)
                    batch = next(w.stream, _DONE)
                if batch is _DONE:   # this worker's copy is exhausted; the others go on
                    active.remove(w)
                    continue
                yield batch

    def _fetch_all(self, sampler_iter, worker, dataset):
        """The batches of one stream: the whole loader (no workers), or one worker's dataset copy."""
        loader = self._loader
        if not loader._iterable:
            for index in sampler_iter:
                yield self._fetch_map(dataset, index)
            return
        stream = iter(dataset)
        if not loader._auto_collation:
            for item in stream:
                yield loader.collate_fn(item)
            return
        while True:
            data = []
            for item in stream:
                data.append(item)
                if len(data) == loader.batch_size:
                    break
            if not data or (loader.drop_last and len(data) < loader.batch_size):
                return
            yield loader.collate_fn(data)

    def _fetch_map(self, dataset, index):
        loader = self._loader
        if loader._auto_collation:
            if callable(getattr(dataset, "__getitems__", None)):
                data = dataset.__getitems__(index)
            else:
                data = [dataset[i] for i in index]
        else:
            data = dataset[index]
        return loader.collate_fn(data)
