"""Datasets (torch.utils.data): map-style `Dataset` (indexable, sized) and `IterableDataset`
(a stream), and the wrappers that combine or cut them."""
import bisect
import itertools
import math
import warnings

from ... import _random
from ...ops.random import randperm


class Dataset:
    """A map-style dataset: a subclass defines ``__getitem__`` (a sample per key) and usually ``__len__``.

    ``a + b`` is their `ConcatDataset`. A subclass may also define ``__getitems__(indices)`` to read a
    whole batch at once (a :class:`DataLoader` then calls it).

    Example::

        >>> class Squares(torch.utils.data.Dataset):
        ...     def __len__(self):
        ...         return 4
        ...     def __getitem__(self, i):
        ...         return torch.tensor(float(i * i))
        >>> Squares()[3]
        tensor(9.)
        >>> next(iter(torch.utils.data.DataLoader(Squares(), batch_size=4)))
        tensor([0., 1., 4., 9.])
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read as a stream: a subclass defines ``__iter__``.

    Under a :class:`DataLoader` with workers, each worker iterates its own copy; `get_worker_info`
    tells it which share to yield (otherwise every worker yields everything). ``a + b`` is their
    `ChainDataset`.

    Example::

        >>> class Count(torch.utils.data.IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n))
        >>> list(torch.utils.data.DataLoader(Count(5), batch_size=2))
        [tensor([0, 1]), tensor([2, 3]), tensor([4])]
    """

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """A dataset whose samples are the rows of tensors sharing their first dimension: a tuple per index.

    Args:
        *tensors (Tensor): the tensors, all of one size in dimension 0.

    Example::

        >>> ds = torch.utils.data.TensorDataset(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([0, 1]))
        >>> len(ds)
        2
        >>> ds[1]
        (tensor([3., 4.]), tensor(1))
    """

    def __init__(self, *tensors):
        assert all(tensors[0].size(0) == t.size(0) for t in tensors), "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Datasets of one length side by side: ``StackDataset(a, b)[i] == (a[i], b[i])`` and
    ``StackDataset(x=a, y=b)[i] == {"x": a[i], "y": b[i]}``.

    Args:
        *args (Dataset): the datasets, for tuple samples.
        **kwargs (Dataset): the datasets by name, for dict samples (not both forms at once).

    Example::

        >>> ds = torch.utils.data.StackDataset(x=torch.tensor([1.0, 2.0]), y=["a", "b"])
        >>> ds[1]
        {'x': tensor(2.), 'y': 'b'}
        >>> torch.utils.data.StackDataset([10, 20], [30, 40])[0]
        (10, 30)
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = args or list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        # a batch at once, through each dataset's own __getitems__ where it has one
        def column(d):
            if callable(getattr(d, "__getitems__", None)):
                items = d.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch. "
                                     f"Expected {len(indices)}, got {len(items)}")
                return items
            return [d[i] for i in indices]
        if isinstance(self.datasets, dict):
            columns = {k: column(d) for k, d in self.datasets.items()}
            return [{k: c[n] for k, c in columns.items()} for n in range(len(indices))]
        columns = [column(d) for d in self.datasets]
        return [tuple(c[n] for c in columns) for n in range(len(indices))]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after another, indexed as one.

    Args:
        datasets (sequence): the datasets (not iterable-style ones).

    Example::

        >>> ds = torch.utils.data.ConcatDataset([[1, 2, 3], [4, 5]])
        >>> len(ds), ds[3], ds[-1]
        (5, 4, 5)
        >>> ds.cumulative_sizes
        [3, 5]
    """

    @staticmethod
    def cumsum(sequence):
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Iterable-style datasets one after another, chained lazily.

    Args:
        datasets (iterable): the :class:`IterableDataset` s to chain.

    Example::

        >>> class Count(torch.utils.data.IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n))
        >>> list(torch.utils.data.ChainDataset([Count(2), Count(3)]))
        [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order.

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence): the indices of the subset.

    Example::

        >>> sub = torch.utils.data.Subset(torch.tensor([10.0, 20.0, 30.0, 40.0]), [3, 0])
        >>> len(sub), sub[0], sub[1]
        (2, tensor(40.), tensor(10.))
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Splits a dataset into disjoint random `Subset` s of the given lengths.

    Lengths may also be fractions summing to 1: each part gets the floor of its share of
    ``len(dataset)``, and the remainder is handed out one by one from the first part on. The
    permutation is ``randperm(len(dataset), generator=generator)``: the same seed gives torch's
    split.

    Args:
        dataset (Dataset): the dataset to split.
        lengths (sequence): the sizes of the parts, or their fractions.
        generator (Generator, optional): the generator of the permutation (default: the global one).

    Returns:
        List[Subset]: the parts.

    Example::

        >>> train, test = torch.utils.data.random_split(range(10), [0.7, 0.3],
        ...                                             generator=torch.Generator().manual_seed(0))
        >>> len(train), len(test)
        (7, 3)
        >>> sorted(train.indices + test.indices)
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    """
    generator = _random.default_generator if generator is None else generator
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(int(math.floor(len(dataset) * frac)))
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, n in enumerate(sizes):
            if n == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
        lengths = sizes
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    ends = list(itertools.accumulate(lengths))
    return [Subset(dataset, indices[end - n:end]) for end, n in zip(ends, lengths)]
