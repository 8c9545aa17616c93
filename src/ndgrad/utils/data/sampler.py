"""Samplers: the order in which a DataLoader reads a map-style dataset. They draw from a
`Generator` exactly where torch's do (the same calls in the same order), so a seeded run gives
torch's order (ndgrad's Generator draws torch's Mersenne-Twister streams)."""
import itertools
import sys

from ... import _dtype
from ..._random import Generator
from ...ops.creation import as_tensor
from ...ops.random import randperm
from ._plain import ops_unobserved


def _torch():
    """The ndgrad namespace. torch's samplers call torch.empty, torch.randint, torch.randperm and
    torch.multinomial through the module at each epoch, so a program or test that replaces one of
    them (mock.patch("torch.randperm"), a seeding shim) changes the samplers' draws as well."""
    return sys.modules[__package__.partition(".")[0]]


class Sampler:
    """The base of the samplers: an iterable of dataset indices (or, for a batch sampler, of lists of them).

    A subclass defines ``__iter__`` and usually ``__len__``; a :class:`DataLoader` reads the
    dataset in its order.

    Example::

        >>> class Reversed(torch.utils.data.Sampler):
        ...     def __init__(self, data):
        ...         self.n = len(data)
        ...     def __iter__(self):
        ...         return iter(range(self.n - 1, -1, -1))
        ...     def __len__(self):
        ...         return self.n
        >>> data = torch.tensor([1.0, 2.0, 3.0])
        >>> list(torch.utils.data.DataLoader(data, batch_size=2, sampler=Reversed(data)))
        [tensor([3., 2.]), tensor([1.])]
    """

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Yields the indices ``0, 1, ..., len(data_source) - 1`` in order (the sampler a
    :class:`DataLoader` uses without ``shuffle``).

    Args:
        data_source (Sized): the dataset whose indices to yield.

    Example::

        >>> list(torch.utils.data.SequentialSampler(["a", "b", "c"]))
        [0, 1, 2]
    """
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _fresh_generator():
    # without a generator, a sampler seeds a private one from the default generator, as torch's do
    seed = int(_torch().empty((), dtype=_dtype.int64).random_().item())
    return Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """A random order of the indices: a new permutation each epoch, or `num_samples` independent draws with replacement.

    Seeded runs draw torch's indices (see the module docstring).

    Args:
        data_source (Dataset): the dataset to sample from.
        replacement (bool, optional): draw with replacement. Default: ``False``.
        num_samples (int, optional): the number of indices per epoch (default: ``len(data_source)``).
        generator (Generator, optional): the generator of the draws.

    Example::

        >>> s = torch.utils.data.RandomSampler(range(5), generator=torch.Generator().manual_seed(0))
        >>> len(s), sorted(s)
        (5, [0, 1, 2, 3, 4])
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        torch = _torch()
        generator = _fresh_generator() if self.generator is None else self.generator
        if self.replacement:
            # drawn 32 at a time, as torch does, so a seed gives the same indices however many are read
            for _ in range(self.num_samples // 32):
                yield from torch.randint(high=n, size=(32,), dtype=_dtype.int64, generator=generator).tolist()
            yield from torch.randint(high=n, size=(self.num_samples % 32,), dtype=_dtype.int64,
                               generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from torch.randperm(n, generator=generator).tolist()
            # torch draws this last permutation even when none of it is used; skipped only where no
            # one can tell (a private generator, ndgrad's own randperm, no one watching the ops): it
            # costs a whole epoch's draw
            if self.num_samples % n or self.generator is not None \
                    or getattr(torch.randperm, "__wrapped__", None) is not randperm or not ops_unobserved():
                yield from torch.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a new random order each epoch.

    Args:
        indices (sequence): the indices to sample.
        generator (Generator, optional): the generator of the permutations.

    Example::

        >>> s = torch.utils.data.SubsetRandomSampler([7, 3, 9])
        >>> len(s), sorted(s)
        (3, [3, 7, 9])
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _torch().randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probabilities proportional to `weights`.

    Args:
        weights (sequence): one nonnegative weight per index (they need not sum to 1).
        num_samples (int): the number of indices to draw.
        replacement (bool, optional): draw with replacement (otherwise an index comes at most once).
            Default: ``True``.
        generator (Generator, optional): the generator of the draws.

    Example::

        >>> list(torch.utils.data.WeightedRandomSampler([0.0, 0.0, 1.0, 0.0], 4))
        [2, 2, 2, 2]
        >>> sorted(torch.utils.data.WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False))
        [0, 1, 2]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = as_tensor(weights, dtype=_dtype.float64)
        if weights.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from _torch().multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of `batch_size`.

    Args:
        sampler (Sampler or iterable): the indices to group.
        batch_size (int): the size of a batch.
        drop_last (bool): drop the last batch when it is shorter.

    Example::

        >>> list(torch.utils.data.BatchSampler(range(5), batch_size=2, drop_last=False))
        [[0, 1], [2, 3], [4]]
        >>> len(torch.utils.data.BatchSampler(range(5), batch_size=2, drop_last=True))
        2
    """

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        while True:
            batch = list(itertools.islice(indices, self.batch_size))   # (the sampler's items pulled in C)
            if len(batch) < self.batch_size:   # the sampler is exhausted: never asked again
                if batch and not self.drop_last:
                    yield batch
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
