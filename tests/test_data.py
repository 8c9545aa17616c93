"""ndgrad.utils.data (torch.utils.data): datasets, samplers, collation and the DataLoader, compared
with torch (seeded shuffles included: ndgrad's Generator draws torch's streams), and checked against
their own expectations where a result is random."""
import collections
import os
import random
import time
import warnings

import numpy as np
import pytest

import ndgrad
from parity import both, err, parity

def data(T):
    return T.utils.data


def _xy(T, n=7):
    return T.arange(2.0 * n).reshape(n, 2), T.arange(n)


class _Squares:
    """A plain map-style dataset (any object with __getitem__ and __len__ works)."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return {"x": float(i) ** 2, "i": i}

    def __len__(self):
        return self.n


# ---- datasets --------------------------------------------------------------------------------
def test_tensor_dataset_rows_and_length():
    def scenario(T):
        ds = data(T).TensorDataset(*_xy(T))
        return [len(ds), list(ds[2]), list(ds[-1])]
    assert both(scenario)[0] == 7
    def mismatch(T):
        x, y = _xy(T)
        return err(lambda: data(T).TensorDataset(x, y[:3]))
    assert both(mismatch) == ["AssertionError", "Size mismatch between tensors"]


def test_concat_stack_subset_and_add():
    def scenario(T):
        d = data(T)
        a = d.TensorDataset(T.arange(3))
        b = d.TensorDataset(T.arange(10, 14))
        cat = a + b
        stacked = d.StackDataset(x=b, y=d.Subset(b, [3, 2, 1, 0]))
        sub = d.Subset(cat, [6, 0, 4])
        return [len(cat), cat.cumulative_sizes, [cat[i][0].item() for i in range(-7, 7)],
                [s[0].item() for s in sub], len(stacked), [v[0].item() for v in stacked[1].values()],
                err(lambda: cat[-8]), err(lambda: d.StackDataset(a, y=b)), err(lambda: d.StackDataset(a, b[:2])),
                err(lambda: d.ConcatDataset([]))]
    out = both(scenario)
    assert out[2] == [0, 1, 2, 10, 11, 12, 13] * 2
    assert out[3] == [13, 0, 11] and out[5] == [11, 12]
    assert out[6] == ["ValueError", "absolute value of index should not exceed dataset length"]


def test_iterable_datasets_chain():
    def scenario(T):
        d = data(T)

        class Count(d.IterableDataset):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return iter(range(self.n))

            def __len__(self):
                return self.n
        chained = Count(2) + Count(3)
        return [type(chained).__name__, list(chained), len(chained),
                err(lambda: d.ConcatDataset([Count(1)])), err(lambda: d.Dataset()[0])]
    assert both(scenario) == ["ChainDataset", [0, 1, 0, 1, 2], 5,
                              ["AssertionError", "ConcatDataset does not support IterableDataset"],
                              ["NotImplementedError", "Subclasses of Dataset should implement __getitem__."]]


def test_random_split_lengths_fractions_and_errors():
    d = ndgrad.utils.data
    g = ndgrad.Generator().manual_seed(3)
    parts = d.random_split(range(10), [0.34, 0.33, 0.33], generator=g)
    assert [len(p) for p in parts] == [4, 3, 3]      # floors 3,3,3; the remainder goes to the first
    assert sorted(sum((list(p) for p in parts), [])) == list(range(10))
    again = d.random_split(range(10), [4, 3, 3], generator=ndgrad.Generator().manual_seed(3))
    assert [list(p) for p in again] == [list(p) for p in parts]   # same seed, same split
    def errors(T):
        return [err(lambda: data(T).random_split(range(10), [3, 3])),
                err(lambda: data(T).random_split(range(10), [1.5, -0.5]))]
    assert both(errors) == [["ValueError", "Sum of input lengths does not equal the length of the input dataset!"],
                            ["ValueError", "Fraction at index 0 is not between 0 and 1"]]


# ---- samplers --------------------------------------------------------------------------------
def test_sequential_and_batch_samplers_match_torch():
    def scenario(T):
        d = data(T)
        seq = d.SequentialSampler(range(5))
        return [list(seq), list(d.BatchSampler(seq, 2, False)), list(d.BatchSampler(seq, 2, True)),
                len(d.BatchSampler(seq, 2, False)), len(d.BatchSampler(seq, 2, True)),
                err(lambda: d.BatchSampler(seq, 0, False)), err(lambda: d.BatchSampler(seq, 2, 1)),
                err(lambda: d.RandomSampler(range(3), replacement=1)),
                err(lambda: d.RandomSampler(range(0))),
                err(lambda: d.WeightedRandomSampler([[1.0, 2.0]], 2))]
    out = both(scenario)
    assert out[1] == [[0, 1], [2, 3], [4]] and out[2] == [[0, 1], [2, 3]]
    assert out[5] == ["ValueError", "batch_size should be a positive integer value, but got batch_size=0"]


def test_random_samplers_are_seeded_permutations():
    d = ndgrad.utils.data
    def draw(**kw):
        return list(d.RandomSampler(range(10), generator=ndgrad.Generator().manual_seed(5), **kw))
    assert sorted(draw()) == list(range(10)) and draw() == draw()
    longer = draw(num_samples=25)
    assert len(longer) == 25 and sorted(longer[:10]) == sorted(longer[10:20]) == list(range(10))
    with_replacement = draw(replacement=True, num_samples=70)
    assert len(with_replacement) == 70 and set(with_replacement) <= set(range(10))
    # without a generator each epoch seeds a private one from the default generator
    ndgrad.manual_seed(0)
    first = list(d.RandomSampler(range(10)))
    ndgrad.manual_seed(0)
    assert list(d.RandomSampler(range(10))) == first
    sub = list(d.SubsetRandomSampler([10, 20, 30], generator=ndgrad.Generator().manual_seed(1)))
    assert sorted(sub) == [10, 20, 30]


def test_weighted_sampler_follows_weights():
    d = ndgrad.utils.data
    picks = list(d.WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=ndgrad.Generator().manual_seed(0)))
    counts = collections.Counter(picks)
    assert counts[0] == 0 and 0.7 < counts[2] / 4000 < 0.8
    unique = list(d.WeightedRandomSampler([0.0, 1.0, 3.0], 2, replacement=False))
    assert sorted(unique) == [1, 2]     # zero weight last without replacement


def test_multinomial_errors_match_torch():
    def scenario(T):
        p = T.tensor([1.0, 1.0])
        return [err(lambda: T.multinomial(p, 3)), err(lambda: T.multinomial(T.tensor([-1.0, 1.0]), 1)),
                err(lambda: T.multinomial(T.zeros(2), 1)), err(lambda: T.multinomial(T.tensor([1, 1]), 1)),
                err(lambda: T.multinomial(T.ones(2, 2, 2), 1)), err(lambda: T.multinomial(p, 0)),
                T.multinomial(T.tensor([0.0, 1.0, 0.0]), 1).tolist(),
                list(T.multinomial(T.ones(2, 3), 2, generator=T.Generator().manual_seed(0)).shape)]
    out = both(scenario)
    assert out[0] == ["RuntimeError", "cannot sample n_sample > prob_dist.size(-1) samples without replacement"]
    assert out[6] == [1] and out[7] == [2, 2]


# ---- collation -------------------------------------------------------------------------------
Point = collections.namedtuple("Point", "x y")


@pytest.mark.parametrize("batch", [
    lambda T: [T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])],
    lambda T: [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)],
    lambda T: [np.float32(1.5), np.float32(2.5)],
    lambda T: [1.5, 2.0],
    lambda T: [1, 2],
    lambda T: [True, False],
    lambda T: ["a", "b"],
    lambda T: [("a", 1, 2.0), ("b", 3, 4.0)],
    lambda T: [[1, 2], [3, 4]],
    lambda T: [{"img": np.ones(2), "label": 3}, {"img": np.zeros(2), "label": 4}],
    lambda T: [Point(1, T.ones(1)), Point(2, T.zeros(1))],
], ids=["tensor", "ndarray", "np-scalar", "float", "int", "bool", "str", "tuple", "list", "dict", "namedtuple"])
def test_default_collate_matches_torch(batch):
    def scenario(T):
        out = data(T).default_collate(batch(T))
        if isinstance(out, dict):
            return [sorted(out), [out[k] for k in sorted(out)]]
        if isinstance(out, Point):
            return ["Point", list(out)]
        return [type(out).__name__, out if isinstance(out, (list, tuple)) else [out]]
    parity(scenario)


def test_default_collate_dtypes_and_errors():
    d = ndgrad.utils.data
    assert d.default_collate([1.0, 2.0]).dtype is ndgrad.float64
    assert d.default_collate([1, 2]).dtype is ndgrad.int64
    assert d.default_collate([("a", 1), ("b", 2)])[0] == ("a", "b")    # columns of strings stay tuples
    def errors(T):
        dd = data(T)
        return [err(lambda: dd.default_collate([object()])), err(lambda: dd.default_collate([[1, 2], [3]])),
                err(lambda: dd.default_collate([np.array(["a"]), np.array(["b"])])),
                err(lambda: dd.default_collate([T.ones(2), T.ones(3)]))]
    out = both(errors)
    assert out[0] == ["TypeError", "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                   "lists; found <class 'object'>"]
    assert out[1] == ["RuntimeError", "each element in list of batch should be of equal size"]


def test_default_convert_matches_torch():
    def scenario(T):
        conv = data(T).default_convert
        out = conv({"a": np.arange(3), "b": (np.float64(2.0), "s"), "t": T.ones(1)})
        return [out["a"], type(out["b"]).__name__, out["b"], out["t"], conv("text"), conv(np.array(["x"])).tolist()]
    assert both(scenario)[1] == "list"


# ---- DataLoader ------------------------------------------------------------------------------
def test_dataloader_batches_match_torch():
    def scenario(T):
        d = data(T)
        ds = d.TensorDataset(*_xy(T))
        plain_batches = list(d.DataLoader(ds, batch_size=3))
        dropped = list(d.DataLoader(ds, batch_size=3, drop_last=True))
        single = list(d.DataLoader(ds, batch_size=None))[:2]
        dicts = list(d.DataLoader(_Squares(5), batch_size=2))
        custom = list(d.DataLoader(range(6), batch_sampler=[[5, 0], [1]], collate_fn=lambda b: b))
        return [plain_batches, dropped, single, [[b["x"], b["i"]] for b in dicts], custom,
                len(d.DataLoader(ds, batch_size=3)), len(d.DataLoader(ds, batch_size=3, drop_last=True))]
    out = both(scenario)
    assert out[4] == [[5, 0], [1]] and out[5:] == [3, 2]


def test_dataloader_argument_errors_match_torch():
    def scenario(T):
        d = data(T)
        ds = list(range(4))
        loader = d.DataLoader(ds)
        return [err(lambda: d.DataLoader(ds, batch_sampler=[[0]], batch_size=2)),
                err(lambda: d.DataLoader(ds, sampler=[0], shuffle=True)),
                err(lambda: d.DataLoader(ds, num_workers=-1)),
                err(lambda: d.DataLoader(ds, batch_size=None, drop_last=True)),
                err(lambda: d.DataLoader(ds, persistent_workers=True)),
                err(lambda: d.DataLoader(ds, prefetch_factor=2)),
                err(lambda: setattr(loader, "batch_size", 3))]
    out = both(scenario)
    assert out[-1] == ["ValueError", "batch_size attribute should not be set after DataLoader is initialized"]


def test_shuffle_is_seeded_by_the_generator():
    d = ndgrad.utils.data
    ds = d.TensorDataset(ndgrad.arange(20))
    def epoch(loader):
        return [b[0].tolist() for b in loader]
    a = epoch(d.DataLoader(ds, batch_size=4, shuffle=True, generator=ndgrad.Generator().manual_seed(7)))
    b = epoch(d.DataLoader(ds, batch_size=4, shuffle=True, generator=ndgrad.Generator().manual_seed(7)))
    assert a == b and sorted(sum(a, [])) == list(range(20)) and sum(a, []) != list(range(20))
    loader = d.DataLoader(ds, batch_size=4, shuffle=True)
    assert epoch(loader) != epoch(loader)      # a new permutation each epoch


@pytest.mark.parametrize("num_workers", [0, 1, 3])
def test_iterable_dataset_with_workers_matches_torch(num_workers):
    def scenario(T):
        d = data(T)

        class Shards(d.IterableDataset):
            def __iter__(self):
                info = d.get_worker_info()
                return iter(range(9) if info is None else range(info.id, 9, info.num_workers))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            batches = list(d.DataLoader(Shards(), batch_size=2, num_workers=num_workers))
            singles = list(d.DataLoader(Shards(), batch_size=None, num_workers=num_workers))
        return [batches, singles, err(lambda: d.DataLoader(Shards(), shuffle=True))]
    parity(scenario)


_init_calls = []   # in a worker process: the worker_init_fn calls made in that process


def _record_init(worker_id):
    info = ndgrad.utils.data.get_worker_info()
    _init_calls.append((worker_id, info.id, info.num_workers, info.seed - worker_id))
    info.dataset.offset = 100 * worker_id     # a change to the worker's own copy only


class _Probe(ndgrad.utils.data.Dataset):
    """Each item tells what the worker process that loaded it has seen."""
    offset = 0

    def __getitem__(self, i):
        return [i + self.offset, random.random(), ndgrad.rand(()).item(), os.getpid(), len(_init_calls),
                *(_init_calls[0] if _init_calls else (-1,) * 4)]

    def __len__(self):
        return 4


class _Threads(ndgrad.utils.data.Dataset):
    def __getitem__(self, i):
        return ndgrad.get_num_threads()

    def __len__(self):
        return 2


def test_workers_run_one_thread_as_torchs():
    """torch's workers call set_num_threads(1): the kernels of the main process keep the cores."""
    before = ndgrad.get_num_threads()
    got = [int(b) for b in ndgrad.utils.data.DataLoader(_Threads(), batch_size=None, num_workers=2)]
    assert got == [1, 1] and ndgrad.get_num_threads() == before


def test_workers_are_processes_with_their_own_state():
    d = ndgrad.utils.data
    ds = _Probe()
    state = random.getstate(), ndgrad.get_rng_state()
    batches = list(d.DataLoader(ds, batch_size=None, num_workers=2, worker_init_fn=_record_init))
    assert [b[0] for b in batches] == [0, 101, 2, 103]            # item k comes from worker k % 2
    pids = [b[3] for b in batches]
    assert pids[0] == pids[2] != pids[1] == pids[3] and os.getpid() not in pids
    assert [b[4] for b in batches] == [1, 1, 1, 1]                # worker_init_fn once per worker
    assert [b[5:8] for b in batches[:2]] == [[0, 0, 2], [1, 1, 2]]
    assert batches[0][8] == batches[1][8]                         # one base seed; worker seed = base + id
    assert ds.offset == 0 and d.get_worker_info() is None and _init_calls == []
    assert random.getstate() == state[0]                          # the main process's state is untouched
    assert batches[0][1] != batches[1][1] and batches[0][2] != batches[1][2]   # workers are seeded apart


def _assign_worker_id(worker_id):
    ndgrad.utils.data.get_worker_info().id = 5


def test_worker_errors_reach_the_main_process():
    d = ndgrad.utils.data
    with pytest.raises(RuntimeError, match="(?s)Caught RuntimeError in DataLoader worker process 0.*"
                                           "Cannot assign attributes to WorkerInfo objects"):
        list(d.DataLoader(_Probe(), num_workers=1, worker_init_fn=_assign_worker_id))

    class Bad(_Probe):
        def __getitem__(self, i):
            if i == 3:
                raise KeyError(i)
            return i
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 1"):
        list(d.DataLoader(Bad(), num_workers=2))


def test_worker_timeout_and_death_are_named():
    d = ndgrad.utils.data

    class Slow(_Probe):
        def __getitem__(self, i):
            time.sleep(30)

    start = time.monotonic()
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        list(d.DataLoader(Slow(), num_workers=1, timeout=0.5))

    class Dies(_Probe):
        def __getitem__(self, i):
            os._exit(3)

    loader = d.DataLoader(Dies(), num_workers=1)
    it = iter(loader)
    it._poll_s = 0.2
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        next(it)
    assert time.monotonic() - start < 20


def test_persistent_workers_initialise_once():
    d = ndgrad.utils.data
    loader = d.DataLoader(_Probe(), batch_size=2, num_workers=2, persistent_workers=True,
                          worker_init_fn=_record_init)
    first = [(b[0].tolist(), b[3].tolist()) for b in loader]
    second = [(b[0].tolist(), b[3].tolist(), b[4].tolist()) for b in loader]
    assert [b[0] for b in first] == [[0, 1], [102, 103]]
    assert [b[1] for b in first] == [b[1] for b in second]   # the same processes
    assert [b[2] for b in second] == [[1, 1], [1, 1]]        # each initialised once


def test_training_loop_with_a_dataloader_matches_torch():
    def scenario(T):
        T.manual_seed(0)
        d = data(T)
        x = T.linspace(-1, 1, 32).reshape(16, 2)
        y = x.sum(1, keepdim=True) * 2 + 1
        model = T.nn.Linear(2, 1)
        with T.no_grad():
            model.weight.fill_(0.1)
            model.bias.fill_(0.0)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            for xb, yb in d.DataLoader(d.TensorDataset(x, y), batch_size=4):
                opt.zero_grad()
                loss = T.nn.functional.mse_loss(model(xb), yb)
                loss.backward()
                opt.step()
        return [model.weight.detach(), model.bias.detach(), loss.detach()]
    parity(scenario, rtol=1e-5, atol=1e-6)


# ---- batches built by NumPy (utils/data/_plain.py): the same as torch's, element by element -----
def _described(batches):
    """Each batch as its elements' types and dtypes (names) next to their values."""
    return [[[type(x).__name__, str(x.dtype), x] for x in b] for b in batches]


class _RowAndLabel:
    """Made a Dataset subclass by _row_and_label: a tensor row and a Python int label."""

    def __init__(self, x):
        self.x = x

    def __getitem__(self, i):
        return self.x[i], i % 3

    def __len__(self):
        return len(self.x)


def _row_and_label(T, x):
    return type("RowAndLabel", (_RowAndLabel, data(T).Dataset), {})(x)


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("kind", ["tensor-dataset", "tuples", "dataset-subclass"])
def test_dataloader_batches_are_torchs_exactly(kind, shuffle):
    def scenario(T):
        T.manual_seed(0)
        x, y = T.randn(70, 4), T.randint(0, 10, (70,))
        if kind == "tensor-dataset":
            ds = data(T).TensorDataset(x, y, x.double(), (y > 4))
        elif kind == "tuples":
            ds = [(x[i].clone(), y[i].clone(), x[i, 0].double().clone()) for i in range(70)]
        else:
            ds = _row_and_label(T, x)
        g = T.Generator().manual_seed(3)
        loader = data(T).DataLoader(ds, batch_size=32, shuffle=shuffle, generator=g)
        epochs = [_described(loader), _described(loader)]   # the short last batch too (70 = 2 * 32 + 6)
        # the draws after two epochs: the generator and the default one were used as torch uses them
        return epochs + [T.randint(0, 1000, (4,), generator=g), T.randint(0, 1000, (4,))]
    parity(scenario, rtol=0, atol=0)


def test_shuffle_without_a_generator_is_torchs_order():
    def scenario(T):
        T.manual_seed(5)
        loader = data(T).DataLoader(data(T).TensorDataset(T.arange(40)), batch_size=8, shuffle=True)
        return [[b[0] for b in loader], [b[0] for b in loader], T.randint(0, 1000, (4,))]
    parity(scenario, rtol=0, atol=0)


def test_batches_of_tensors_needing_autograd_or_in_inference_mode_are_torchs():
    def scenario(T):
        x = T.arange(12.0).reshape(6, 2).requires_grad_()
        batch = next(iter(data(T).DataLoader(data(T).TensorDataset(x, T.arange(6)), batch_size=4)))
        rows = data(T).default_collate([x[1], x[0]])
        with T.inference_mode():
            inferred = next(iter(data(T).DataLoader([(T.ones(2), 1)] * 3, batch_size=2)))
        return [[type(b.grad_fn).__name__ if b.grad_fn is not None else None for b in batch],
                type(rows.grad_fn).__name__, batch[0].detach(),
                [b.is_inference() for b in inferred], [b.requires_grad for b in inferred]]
    assert parity(scenario)[:2] == [["StackBackward0", None], "StackBackward0"]


def test_samplers_draw_through_the_namespace_as_torchs_do(monkeypatch):
    """torch's samplers call torch.randperm / torch.randint / torch.multinomial / torch.empty through the
    module at each epoch: replacing one (mock.patch, a seeding shim) changes what they yield; random_split
    holds its own randperm (torch imports it by name), so it does not."""
    def scenario(T):
        d = data(T)
        calls = []

        def fake(name, make):
            real = getattr(T, name)

            def replaced(*args, **kwargs):
                calls.append(name)
                out = real(*args, **kwargs)
                return make(out)
            monkeypatch.setattr(T, name, replaced)
        fake("randperm", lambda out: T.flip(T.arange(len(out)), [0]))
        fake("randint", lambda out: T.zeros_like(out))
        fake("multinomial", lambda out: T.ones_like(out))
        T.manual_seed(0)
        out = [list(d.RandomSampler(range(5))), list(d.RandomSampler(range(5), num_samples=10)),
               list(d.RandomSampler(range(5), replacement=True, num_samples=40)),
               list(d.SubsetRandomSampler([7, 8, 9])), list(d.WeightedRandomSampler([1.0, 2.0], 3)),
               [list(s) for s in d.random_split(range(4), [2, 2], generator=T.Generator().manual_seed(0))]]
        loader = d.DataLoader(d.TensorDataset(T.arange(6)), batch_size=4, shuffle=True)
        out.append([b[0].tolist() for b in loader])
        monkeypatch.undo()
        return out + [calls]
    out = both(scenario, rtol=0, atol=0)
    assert out[0] == [4, 3, 2, 1, 0] and out[2] == [0] * 40 and out[4] == [1, 1, 1]
    assert out[6] == [[5, 4, 3, 2], [1, 0]]
