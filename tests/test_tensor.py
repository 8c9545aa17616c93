"""Factories, conversions and printing of tensors.

Each factory call is written once against the torch API; where torch is installed it also runs
there and dtype, shape and values must agree (printing: the exact repr string). Random factories
are checked for reproducibility and distribution shape, not for torch's numbers.
"""
import math
import warnings

import numpy as np
import pytest

import ndgrad

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
LIBS = [ndgrad] + ([torch] if torch is not None else [])


def _same(ours, theirs, exact=True):
    assert repr(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    if exact:
        np.testing.assert_array_equal(a, b)
    else:   # torch's vectorised kernels may round the last bit differently
        np.testing.assert_allclose(a, b, rtol=4 * np.finfo(a.dtype).eps if a.dtype.kind in "fc" else 0, atol=1e-6)
    assert ours.requires_grad == theirs.requires_grad


def both(call, exact=True):
    """call(T) on ndgrad and, where installed, on torch: the results must agree."""
    ours = call(ndgrad)
    if torch is not None:
        _same(ours, call(torch), exact)
    return ours


# For a test whose only check is agreement with torch: skipped without torch, never a vacuous pass.
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed: this test only compares with torch")


def both_raise(call, exc):
    """call(T) raises `exc` in ndgrad and in torch."""
    for T in LIBS:
        with pytest.raises(exc):
            call(T)


# ---- tensor(): dtype inference ------------------------------------------------------------
INFERENCE = {
    "float list": lambda T: T.tensor([1.5, 2.0]),
    "int list": lambda T: T.tensor([1, 2, 3]),
    "bool list": lambda T: T.tensor([True, False]),
    "bool and int": lambda T: T.tensor([True, 2]),
    "int and float": lambda T: T.tensor([1, 2.5]),
    "int and complex": lambda T: T.tensor([1, 2j]),
    "nested": lambda T: T.tensor([[1, 2], [3, 4]]),
    "nested tuples": lambda T: T.tensor(((1.0, 2.0), [3, 4])),
    "scalar float": lambda T: T.tensor(1.5),
    "scalar bool": lambda T: T.tensor(True),
    "scalar complex": lambda T: T.tensor(1 + 2j),
    "empty": lambda T: T.tensor([]),
    "nested empty": lambda T: T.tensor([[], []]),
    "range": lambda T: T.tensor(range(4)),
    "numpy float64": lambda T: T.tensor(np.array([1.0, 2.0])),
    "numpy int32": lambda T: T.tensor(np.array([1, 2], dtype=np.int32)),
    "numpy uint8 2-d": lambda T: T.tensor(np.arange(6, dtype=np.uint8).reshape(2, 3)),
    "numpy scalar float32": lambda T: T.tensor(np.float32(1.25)),
    "numpy scalar int16": lambda T: T.tensor(np.int16(7)),
    "numpy scalars in a list": lambda T: T.tensor([np.int32(1), np.int32(2)]),
    "numpy int64 with float16": lambda T: T.tensor([np.int64(1), np.float16(2)]),
    "numpy float64 with python float": lambda T: T.tensor([np.float64(1), 0.1]),
    "zero-dim tensors in a list": lambda T: T.tensor([T.tensor(1, dtype=T.int8), T.tensor(2, dtype=T.int8)]),
    "int8 tensor with python int": lambda T: T.tensor([T.tensor(1, dtype=T.int8), 3]),
    "dtype given": lambda T: T.tensor([1, 2], dtype=T.float64),
    "float to float64 exactly": lambda T: T.tensor([0.1], dtype=T.float64),
    "float truncated to int": lambda T: T.tensor([1.7, -1.7], dtype=T.int64),
    "negative wraps in uint8": lambda T: T.tensor([-1, 255], dtype=T.uint8),
    "int to bool": lambda T: T.tensor([2, 0], dtype=T.bool),
    "python type as dtype": lambda T: T.tensor([1, 2], dtype=float),
    "requires_grad": lambda T: T.tensor([1.0, 2.0], requires_grad=True),
    "complex requires_grad": lambda T: T.tensor([1j], requires_grad=True),
    "overflow to inf in float32": lambda T: T.tensor([1e40], dtype=T.float32),
}


@pytest.mark.parametrize("name", INFERENCE)
@needs_torch
def test_tensor_infers_dtype_like_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(INFERENCE[name])


def test_tensor_infers_from_the_default_dtype():
    ndgrad.set_default_dtype(ndgrad.float64)
    try:
        assert ndgrad.tensor([1.5]).dtype is ndgrad.float64
        assert ndgrad.tensor([np.float32(1.5), 2.0]).dtype is ndgrad.float64
        assert ndgrad.tensor(1j).dtype is ndgrad.complex128
        assert ndgrad.tensor(np.array([1.0], np.float32)).dtype is ndgrad.float32
    finally:
        ndgrad.set_default_dtype(ndgrad.float32)


def test_tensor_copies_its_data():
    a = np.zeros(2)
    t = ndgrad.tensor(a)
    a[0] = 5
    assert t.tolist() == [0.0, 0.0]


def test_tensor_of_a_tensor_copies_and_warns():
    src = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="detach"):
        t = ndgrad.tensor(src)
    assert t.is_leaf and not t.requires_grad
    t.add_(1)
    assert src.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("call,exc", [
    (lambda T: T.tensor([1, 2], requires_grad=True), RuntimeError),
    (lambda T: T.tensor([[1, 2], [3]]), ValueError),
    (lambda T: T.tensor("a"), TypeError),
    (lambda T: T.tensor([1, "a"]), TypeError),
    (lambda T: T.tensor(None), RuntimeError),
    (lambda T: T.tensor({1: 2}), RuntimeError),
    (lambda T: T.tensor(np.array(["a"])), TypeError),
    (lambda T: T.tensor([1 + 1j], dtype=T.float32), TypeError),
    (lambda T: T.tensor(2 ** 70), ValueError),
    (lambda T: T.tensor([1.0], dtype=np.float64), TypeError),
], ids=["int requires_grad", "ragged", "str", "str in list", "None", "dict", "numpy str",
        "complex to real", "int overflow", "numpy dtype"])
def test_tensor_rejects_bad_data_like_torch(call, exc):
    both_raise(call, exc)


# ---- as_tensor, from_numpy, numpy() -----------------------------------------------------------
def test_from_numpy_shares_memory_both_ways():
    a = np.zeros(3)
    t = ndgrad.from_numpy(a)
    assert t.dtype is ndgrad.float64
    a[0] = 1.0
    t.add_(1)
    assert t.tolist() == [2.0, 1.0, 1.0] and a.tolist() == [2.0, 1.0, 1.0]


def test_from_numpy_keeps_strides_of_views():
    a = np.zeros((3, 4))[:, ::2]
    assert ndgrad.from_numpy(a).stride() == torch_or(lambda: torch.from_numpy(a).stride(), (4, 2))


def torch_or(call, fallback):
    return call() if torch is not None else fallback


@pytest.mark.parametrize("call,exc", [
    (lambda T: T.from_numpy([1, 2]), TypeError),
    (lambda T: T.from_numpy(np.zeros(4)[::-1]), ValueError),
    (lambda T: T.from_numpy(np.array([1, "a"], dtype=object)), TypeError),
], ids=["list", "negative stride", "object dtype"])
def test_from_numpy_rejects_like_torch(call, exc):
    both_raise(call, exc)


def test_from_numpy_warns_on_read_only_arrays():
    with pytest.warns(UserWarning, match="not writable"):
        ndgrad.from_numpy(np.broadcast_to(np.zeros(1), (3,)))


def test_as_tensor_shares_memory_when_dtype_matches():
    a = np.zeros(2)
    ndgrad.as_tensor(a).add_(1)
    assert a.tolist() == [1.0, 1.0]
    ndgrad.as_tensor(a, dtype=ndgrad.float32).add_(1)
    assert a.tolist() == [1.0, 1.0]


def test_as_tensor_returns_the_same_tensor_or_a_differentiable_cast():
    t = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    assert ndgrad.as_tensor(t) is t
    both(lambda T: T.as_tensor(T.tensor([1.0, 2.0], requires_grad=True), dtype=T.float64))
    assert ndgrad.as_tensor(t, dtype=ndgrad.float64).grad_fn.name() == "ToCopyBackward0"
    both(lambda T: T.as_tensor([1, 2.5]))
    both(lambda T: T.as_tensor(np.float64(3)))


def test_numpy_shares_memory_and_refuses_tensors_that_require_grad():
    t = ndgrad.zeros(2)
    t.numpy()[0] = 3.0
    assert t.tolist() == [3.0, 0.0]
    with pytest.raises(RuntimeError, match="detach"):
        ndgrad.zeros(2, requires_grad=True).numpy()


def test_item_and_tolist_give_python_numbers():
    assert both(lambda T: T.tensor([2.5])).item() == 2.5
    assert type(ndgrad.tensor(3).item()) is int and type(ndgrad.tensor(True).item()) is bool
    assert ndgrad.tensor([0.1]).tolist() == torch_or(lambda: torch.tensor([0.1]).tolist(), [0.10000000149011612])
    assert ndgrad.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert ndgrad.tensor(2.5).tolist() == 2.5
    for T in LIBS:
        with pytest.raises(RuntimeError, match="2 elements cannot be converted to Scalar"):
            T.tensor([1, 2]).item()
    for T in LIBS:   # Python's conversions refuse with ValueError, item() with RuntimeError
        for convert in (int, float, complex):
            with pytest.raises(ValueError, match="^only one element tensors can be converted to Python scalars$"):
                convert(T.tensor([1, 2]))
        assert (int(T.tensor([3.7])), float(T.tensor(2)), complex(T.tensor([1.5]))) == (3, 2.0, 1.5 + 0j)


# ---- constant factories ---------------------------------------------------------------------
FACTORIES = {
    "zeros varargs": lambda T: T.zeros(2, 3),
    "zeros tuple": lambda T: T.zeros((2, 3)),
    "zeros list": lambda T: T.zeros([2, 3]),
    "zeros Size": lambda T: T.zeros(T.Size([2, 3])),
    "zeros size=": lambda T: T.zeros(size=(2, 3)),
    "zeros 0-dim": lambda T: T.zeros(()),
    "zeros 0-dim tensor size": lambda T: T.zeros(T.tensor(2)),
    "zeros numpy int size": lambda T: T.zeros(np.int64(2)),
    "zeros int64": lambda T: T.zeros(2, dtype=T.int64),
    "zeros bool": lambda T: T.zeros(2, dtype=T.bool),
    "zeros python float dtype": lambda T: T.zeros(2, dtype=float),
    "zeros requires_grad": lambda T: T.zeros(2, requires_grad=True),
    "zeros empty dim": lambda T: T.zeros(2, 0),
    "ones": lambda T: T.ones(3, dtype=T.complex64),
    "ones requires_grad": lambda T: T.ones(2, 2, dtype=T.float64, requires_grad=True),
    "empty shape": lambda T: T.zeros_like(T.empty(2, 3)),
    "full float": lambda T: T.full((2, 2), 1.5),
    "full int": lambda T: T.full((2,), 7),
    "full bool": lambda T: T.full((2,), True),
    "full complex": lambda T: T.full((2,), 1j),
    "full dtype": lambda T: T.full((2,), 7, dtype=T.float64),
    "full wraps uint8": lambda T: T.full((2,), -1, dtype=T.uint8),
    "full tensor value": lambda T: T.full((2,), T.tensor(1.5)),
    "full float16 overflow is inf": lambda T: T.full((1,), 1e10, dtype=T.float16),
    "full_like": lambda T: T.full_like(T.tensor([1, 2]), 1.5),
    "full_like dtype": lambda T: T.full_like(T.tensor([1, 2]), 1.5, dtype=T.float64),
    "zeros_like keeps dtype": lambda T: T.zeros_like(T.tensor([1, 2])),
    "zeros_like dtype": lambda T: T.zeros_like(T.tensor([1, 2]), dtype=T.float64),
    "ones_like does not inherit requires_grad": lambda T: T.ones_like(T.ones(2, requires_grad=True)),
    "ones_like requires_grad": lambda T: T.ones_like(T.ones(2), requires_grad=True),
    "empty_like shape": lambda T: T.zeros_like(T.empty_like(T.ones(2, 3))),
    "eye": lambda T: T.eye(3),
    "eye n m": lambda T: T.eye(2, 4, dtype=T.int32),
    "eye m=": lambda T: T.eye(2, m=3),
    "eye 0": lambda T: T.eye(0),
}


@pytest.mark.parametrize("name", FACTORIES)
@needs_torch
def test_factory_matches_torch(name):
    both(FACTORIES[name])


# ---- ranges -------------------------------------------------------------------------------
RANGES = {
    "arange end": lambda T: T.arange(5),
    "arange float end": lambda T: T.arange(5.0),
    "arange start end step": lambda T: T.arange(1, 10, 3),
    "arange float step": lambda T: T.arange(0, 1, 0.1),
    "arange float64": lambda T: T.arange(0, 1, 0.1, dtype=T.float64),
    "arange negative step": lambda T: T.arange(10, 0, -1.5),
    "arange keywords": lambda T: T.arange(start=1, end=4),
    "arange end=": lambda T: T.arange(end=3),
    "arange empty": lambda T: T.arange(3, 3),
    "arange bool": lambda T: T.arange(True),
    "arange tensor bounds": lambda T: T.arange(T.tensor(3)),
    "arange float tensor bound": lambda T: T.arange(T.tensor(3.0)),
    "arange int dtype from floats": lambda T: T.arange(0.5, 5, dtype=T.int64),
    "arange requires_grad": lambda T: T.arange(3.0, requires_grad=True),
    "arange uneven": lambda T: T.arange(-3.7, 10.2, 0.37),
    "linspace": lambda T: T.linspace(0, 1, 5),
    "linspace int dtype": lambda T: T.linspace(0, 10, 4, dtype=T.int64),
    "linspace one": lambda T: T.linspace(0, 10, 1),
    "linspace zero": lambda T: T.linspace(0, 10, 0),
    "linspace descending": lambda T: T.linspace(3, -2.2, 11),
    "linspace float64": lambda T: T.linspace(-3.3, 7.1, 50, dtype=T.float64),
    "linspace complex": lambda T: T.linspace(0, 1j, 3),
    "linspace tensor bounds": lambda T: T.linspace(T.tensor(0.0), T.tensor(1.0), 3),
    "logspace": lambda T: T.logspace(0, 2, 3),
    "logspace base": lambda T: T.logspace(0, 3, 4, base=2),
    "logspace int": lambda T: T.logspace(0, 2, 3, dtype=T.int64),
    "logspace fractional": lambda T: T.logspace(-2, 3.5, 17, dtype=T.float64),
}


@pytest.mark.parametrize("name", RANGES)
@needs_torch
def test_range_matches_torch(name):
    both(RANGES[name], exact=False)


FACTORY_ERRORS = {
    "zeros negative": (lambda T: T.zeros(-1), RuntimeError),
    "ones negative": (lambda T: T.ones(2, -1), RuntimeError),
    "float size": (lambda T: T.empty(2.0), TypeError),
    "bool size": (lambda T: T.zeros(True), TypeError),
    "1-d tensor size": (lambda T: T.zeros(T.tensor([2, 3])), TypeError),
    "str dtype": (lambda T: T.zeros(2, dtype="float64"), TypeError),
    "int requires_grad": (lambda T: T.zeros(2, dtype=T.int64, requires_grad=True), RuntimeError),
    "int like requires_grad": (lambda T: T.ones_like(T.tensor([1]), requires_grad=True), RuntimeError),
    "full int size": (lambda T: T.full(2, 1.0), TypeError),
    "full float in size": (lambda T: T.full((2.0,), 1.0), TypeError),
    "full negative": (lambda T: T.full((-1,), 1.0), RuntimeError),
    "full str": (lambda T: T.full((1,), "a"), TypeError),
    "full inf into int64": (lambda T: T.full((1,), float("inf"), dtype=T.int64), RuntimeError),
    "full 300 into uint8": (lambda T: T.full((1,), 300, dtype=T.uint8), RuntimeError),
    "tensor 256 into uint8": (lambda T: T.tensor([256], dtype=T.uint8), RuntimeError),
    "full 1e300 into float32": (lambda T: T.full((1,), 1e300, dtype=T.float32), RuntimeError),
    "full_like nan into int64": (lambda T: T.full_like(T.tensor([1]), float("nan")), RuntimeError),
    "arange zero step": (lambda T: T.arange(0, 1, 0), RuntimeError),
    "arange wrong sign": (lambda T: T.arange(0, 1, -1), RuntimeError),
    "arange nan": (lambda T: T.arange(0, float("nan")), RuntimeError),
    "arange step truncated to 0": (lambda T: T.arange(0, 2.5, 0.5, dtype=T.int64), ValueError),
    "linspace negative steps": (lambda T: T.linspace(0, 10, -1), RuntimeError),
    "eye negative": (lambda T: T.eye(-1), RuntimeError),
    "eye float": (lambda T: T.eye(2.0), TypeError),
}


@pytest.mark.parametrize("name", FACTORY_ERRORS)
def test_factory_errors_match_torch(name):
    both_raise(*FACTORY_ERRORS[name])


@pytest.mark.parametrize("device", ["cuda", "cuda:0"])
def test_factories_on_other_devices_are_not_implemented(device):
    with pytest.raises(NotImplementedError, match="CPU"):
        ndgrad.zeros(2, device=device)


def test_factories_make_leaves():
    t = ndgrad.ones(2, requires_grad=True)
    assert t.is_leaf and t.grad_fn is None
    (t * 2).sum().backward()
    assert t.grad.tolist() == [2.0, 2.0]


# ---- random -------------------------------------------------------------------------------
RANDOM = {
    "rand": lambda T, g: T.rand(3, 4, generator=g),
    "rand tuple": lambda T, g: T.rand((3, 4), generator=g),
    "rand float64": lambda T, g: T.rand(5, dtype=T.float64, generator=g),
    "rand complex": lambda T, g: T.rand(2, dtype=T.complex64, generator=g),
    "randn": lambda T, g: T.randn(3, generator=g),
    "randn float16": lambda T, g: T.randn(3, dtype=T.float16, generator=g),
    "randint high": lambda T, g: T.randint(5, (10,), generator=g),
    "randint low high": lambda T, g: T.randint(3, 7, (10,), generator=g),
    "randint size=": lambda T, g: T.randint(3, size=(4,), generator=g),
    "randint float": lambda T, g: T.randint(0, 3, (4,), dtype=T.float32, generator=g),
    "randperm": lambda T, g: T.randperm(6, generator=g),
    "rand_like": lambda T, g: T.rand_like(T.ones(2, dtype=T.float64)),
    "randn_like": lambda T, g: T.randn_like(T.ones(2, 2)),
    "randint_like": lambda T, g: T.randint_like(T.ones(3), 5),
    "randint_like low high": lambda T, g: T.randint_like(T.ones(3, dtype=T.int32), 3, 5),
    "normal sizes": lambda T, g: T.normal(2.0, 3.0, (4,), generator=g),
    "normal float64": lambda T, g: T.normal(0.0, 1.0, size=(2,), dtype=T.float64, generator=g),
    "normal tensors": lambda T, g: T.normal(T.zeros(2, 1), T.ones(3), generator=g),
    "normal mean tensor": lambda T, g: T.normal(T.zeros(3, dtype=T.float64), 1.0, generator=g),
    "normal std tensor": lambda T, g: T.normal(1.0, T.ones(3, dtype=T.float64), generator=g),
    "normal mixed dtypes keep mean's": lambda T, g: T.normal(T.zeros(2), T.ones(2, dtype=T.float64), generator=g),
    "rand requires_grad": lambda T, g: T.rand(2, requires_grad=True, generator=g),
}


def _generator(T, seed):
    return T.Generator().manual_seed(seed)


@pytest.mark.parametrize("name", RANDOM)
@needs_torch
def test_random_factory_has_torchs_dtype_and_shape(name):
    ours = RANDOM[name](ndgrad, _generator(ndgrad, 0))
    if torch is not None:
        theirs = RANDOM[name](torch, _generator(torch, 0))
        assert repr(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
        assert ours.requires_grad == theirs.requires_grad


@pytest.mark.parametrize("name", RANDOM)
def test_random_factory_is_reproducible_from_a_seed(name):
    ndgrad.manual_seed(123)
    a = RANDOM[name](ndgrad, _generator(ndgrad, 7))
    ndgrad.manual_seed(123)
    b = RANDOM[name](ndgrad, _generator(ndgrad, 7))
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_manual_seed_drives_the_default_generator():
    ndgrad.manual_seed(0)
    a = ndgrad.rand(5)
    b = ndgrad.rand(5)
    ndgrad.manual_seed(0)
    assert ndgrad.rand(5).tolist() == a.tolist() and not np.array_equal(a.numpy(), b.numpy())
    assert ndgrad.initial_seed() == 0


def test_generators_are_independent_of_the_default_one():
    g = ndgrad.Generator().manual_seed(3)
    first = ndgrad.rand(4, generator=g)
    ndgrad.rand(10)
    g.manual_seed(3)
    assert ndgrad.rand(4, generator=g).tolist() == first.tolist()
    assert g.initial_seed() == 3 and repr(g.device) == "device(type='cpu')"
    assert ndgrad.Generator().initial_seed() == 67280421310721


def test_generator_state_round_trips():
    g = ndgrad.Generator().manual_seed(5)
    state = g.get_state()
    assert state.dtype is ndgrad.uint8
    a = ndgrad.randn(3, generator=g)
    g.set_state(state)
    assert ndgrad.randn(3, generator=g).tolist() == a.tolist()
    saved = ndgrad.get_rng_state()
    b = ndgrad.rand(2)
    ndgrad.set_rng_state(saved)
    assert ndgrad.rand(2).tolist() == b.tolist()


def test_negative_seeds_wrap_like_torch():
    assert ndgrad.manual_seed(-1).initial_seed() == torch_or(lambda: torch.Generator().manual_seed(-1).initial_seed(),
                                                            2 ** 64 - 1)


def test_random_values_lie_in_their_ranges():
    ndgrad.manual_seed(1)
    u = ndgrad.rand(10000).numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.02
    assert ndgrad.rand(10000, dtype=ndgrad.float16).numpy().max() < 1
    n = ndgrad.randn(10000, dtype=ndgrad.float64).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05
    r = ndgrad.randint(3, 7, (1000,)).numpy()
    assert r.min() == 3 and r.max() == 6
    assert sorted(ndgrad.randperm(50).tolist()) == list(range(50))
    m = ndgrad.normal(ndgrad.full((10000,), 5.0), 2.0).numpy()
    assert abs(m.mean() - 5) < 0.1 and abs(m.std() - 2) < 0.1


RANDOM_ERRORS = {
    "rand int": (lambda T: T.rand(2, dtype=T.int64), NotImplementedError),
    "randn int": (lambda T: T.randn(2, dtype=T.int64), NotImplementedError),
    "rand_like int": (lambda T: T.rand_like(T.tensor([1])), NotImplementedError),
    "rand negative": (lambda T: T.rand(-1), RuntimeError),
    "randint no size": (lambda T: T.randint(3), TypeError),
    "randint int size": (lambda T: T.randint(3, 2), TypeError),
    "randint empty range": (lambda T: T.randint(3, 3, (2,)), RuntimeError),
    "randperm negative": (lambda T: T.randperm(-1), RuntimeError),
    "normal numbers without size": (lambda T: T.normal(0.0, 1.0), TypeError),
    "normal negative std": (lambda T: T.normal(0.0, -1.0, (2,)), RuntimeError),
    "normal negative std tensor": (lambda T: T.normal(T.zeros(2), T.tensor([1.0, -1.0])), RuntimeError),
    "normal int mean": (lambda T: T.normal(T.zeros(2, dtype=T.int64), 1.0), NotImplementedError),
    "uniform_ reversed": (lambda T: T.zeros(3).uniform_(3, 2), RuntimeError),
    "exponential_ negative": (lambda T: T.zeros(3).exponential_(-2.0), RuntimeError),
    "bernoulli p over 1": (lambda T: T.bernoulli(T.tensor([2.0, 1.0])), RuntimeError),
}


@pytest.mark.parametrize("name", RANDOM_ERRORS)
def test_random_errors_match_torch(name):
    both_raise(*RANDOM_ERRORS[name])


RANDOM_NODES = {
    "NormalBackward0": lambda T, x: x.clone().normal_(),
    "NormalBackward1": lambda T, x: T.normal(x, 1.0),
    "NormalBackward2": lambda T, x: T.normal(0.0, x),
    "NormalBackward3": lambda T, x: T.normal(x, x),
    "UniformBackward0": lambda T, x: x.clone().uniform_(),
    "BernoulliBackward0": lambda T, x: T.bernoulli(x),
    "BernoulliBackward1": lambda T, x: T.zeros(3, dtype=T.float64).bernoulli_(x),
    "BernoulliBackward2": lambda T, x: x.clone().bernoulli_(0.5),
    "RandomBackward0": lambda T, x: x.clone().random_(0, 10),
    "RandomBackward1": lambda T, x: x.clone().random_(10),
    "RandomBackward2": lambda T, x: x.clone().random_(),
    "ExponentialBackward0": lambda T, x: x.clone().exponential_(),
    "GeometricBackward0": lambda T, x: x.clone().geometric_(0.5),
    "CauchyBackward0": lambda T, x: x.clone().cauchy_(),
    "LogNormalBackward0": lambda T, x: x.clone().log_normal_(),
    "PoissonBackward0": lambda T, x: T.poisson(x),
}


@pytest.mark.parametrize("name", RANDOM_NODES)
def test_random_ops_record_torchs_node_with_zero_gradient(name):
    for T in LIBS:
        x = T.tensor([0.2, 0.5, 0.7], dtype=T.float64, requires_grad=True)
        out = RANDOM_NODES[name](T, x)
        assert out.grad_fn.name() == name
        out.sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_in_place_fills_write_into_the_tensor():
    t = ndgrad.zeros(1000, dtype=ndgrad.float64)
    version = t._version
    assert t.uniform_(2, 3) is t and t._version == version + 1
    assert 2 <= t.numpy().min() and t.numpy().max() < 3
    assert set(ndgrad.zeros(100).bernoulli_(0.5).tolist()) == {0.0, 1.0}
    assert 0 <= ndgrad.zeros(100, dtype=ndgrad.int64).random_(5).numpy().max() < 5
    assert ndgrad.zeros(100).exponential_(2.0).numpy().min() >= 0


def test_in_place_fill_of_a_leaf_that_requires_grad_is_refused():
    for T in LIBS:
        with pytest.raises(RuntimeError, match="leaf Variable"):
            T.zeros(2, requires_grad=True).normal_()


# ---- printing -----------------------------------------------------------------------------
REPRS = {
    "floats": lambda T: T.tensor([1.2214, 0.7358, 24.4985]),
    "integer-valued floats": lambda T: T.tensor([1.0, 2.0]),
    "negative floats": lambda T: T.tensor([-1.5, 2.25]),
    "ints": lambda T: T.tensor([1, -20, 300]),
    "bools": lambda T: T.tensor([True, False]),
    "0-dim float": lambda T: T.tensor(3.5),
    "0-dim int": lambda T: T.tensor(7),
    "0-dim zero": lambda T: T.tensor(0.0),
    "0-dim nan": lambda T: T.tensor(float("nan")),
    "empty": lambda T: T.tensor([]),
    "empty int": lambda T: T.tensor([], dtype=T.int64),
    "empty 2-d": lambda T: T.zeros(2, 0),
    "empty 3-d int": lambda T: T.zeros(0, 2, 3, dtype=T.int32),
    "2-d": lambda T: T.tensor([[1.0, 2.5], [3.0, 4.0]]),
    "3-d": lambda T: T.arange(24.0).reshape(2, 3, 4),
    "small values": lambda T: T.tensor([1e-5, 1.0]),
    "large values": lambda T: T.tensor([1e8, 1.0]),
    "huge": lambda T: T.tensor([1e9]),
    "tiny": lambda T: T.tensor([1e-5]),
    "ratio over 1000": lambda T: T.tensor([1.0, 1001.0]),
    "ratio under 1000": lambda T: T.tensor([1.0, 999.0]),
    "wide fixed": lambda T: T.tensor([123456.0, 1.5]),
    "extreme exponents": lambda T: T.tensor([1e200, 1e-200], dtype=T.float64),
    "nan and inf": lambda T: T.tensor([float("nan"), float("inf"), -float("inf"), 1.5]),
    "nan with integers": lambda T: T.tensor([float("nan"), 1.0]),
    "signed zeros": lambda T: T.tensor([0.0, -0.0]),
    "complex": lambda T: T.tensor([1 + 2j, 3 - 1j]),
    "complex fractions": lambda T: T.tensor([1.5 - 2.25j, 0.5j], dtype=T.complex128),
    "complex scalar": lambda T: T.tensor(1 + 1j),
    "complex small imaginary": lambda T: T.tensor([1 + 1e-6j, 2], dtype=T.complex128),
    "float64": lambda T: T.tensor([1.0, 2.0], dtype=T.float64),
    "float16": lambda T: T.tensor([1.5, 2.0], dtype=T.float16),
    "int32": lambda T: T.tensor([1, 2], dtype=T.int32),
    "uint8": lambda T: T.tensor([1, 2], dtype=T.uint8),
    "long line wraps": lambda T: T.arange(100.0),
    "long int line": lambda T: T.arange(60),
    "summarised": lambda T: T.arange(2000.0),
    "summarised 2-d": lambda T: T.arange(1200).reshape(30, 40),
    "summarised 3-d": lambda T: T.tensor(np.arange(2700.0).reshape(3, 30, 30) / 7),
    "summarised bools": lambda T: T.tensor(np.arange(1001) % 7 == 0),
    "wide 2-d wraps rows": lambda T: T.tensor(np.linspace(-5000, 5000, 120).reshape(4, 30)),
    "requires_grad": lambda T: T.tensor([1.0, 2.0], requires_grad=True),
    "requires_grad 0-dim": lambda T: T.tensor(1.0, requires_grad=True),
    "grad_fn": lambda T: T.tensor([1.0, 2.0], requires_grad=True) * 2,
    "grad_fn suffix wraps": lambda T: T.linspace(-3, 3, 20, dtype=T.float64, requires_grad=True) * 1.5,
    "dtype and grad_fn": lambda T: T.tensor([[0.25, -1.5], [2.0, 3.0]], dtype=T.float64, requires_grad=True) * 2,
}


@needs_torch
@pytest.mark.parametrize("name", REPRS)
def test_repr_matches_torch(name):
    assert repr(REPRS[name](ndgrad)) == repr(REPRS[name](torch))


@needs_torch
def test_repr_follows_the_default_dtype():
    ndgrad.set_default_dtype(ndgrad.float64)
    torch.set_default_dtype(torch.float64)
    try:
        for call in (lambda T: T.tensor([1.5, 2.0]), lambda T: T.tensor([1.5], dtype=T.float32),
                     lambda T: T.tensor([1j]), lambda T: T.tensor([], dtype=T.float64)):
            assert repr(call(ndgrad)) == repr(call(torch))
    finally:
        ndgrad.set_default_dtype(ndgrad.float32)
        torch.set_default_dtype(torch.float32)


def test_repr_of_common_cases():
    assert repr(ndgrad.tensor([1.2214, 0.7358, 24.4985])) == "tensor([ 1.2214,  0.7358, 24.4985])"
    assert repr(ndgrad.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(ndgrad.tensor(2.0, requires_grad=True)) == "tensor(2., requires_grad=True)"
    assert repr(ndgrad.tensor([1, 2], dtype=ndgrad.int32)) == "tensor([1, 2], dtype=torch.int32)"
    x = ndgrad.tensor([1.0], requires_grad=True)
    assert repr(x * x) == "tensor([1.], grad_fn=<MulBackward0>)"
    assert str(ndgrad.tensor([[1, 2], [3, 4]])) == "tensor([[1, 2],\n        [3, 4]])"
    assert math.isnan(float(ndgrad.tensor(float("nan"))))


# ---- the README's tour --------------------------------------------------------------------
README = __import__("pathlib").Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.parametrize("lib", ["ndgrad", "torch"])
def test_readme_tour_runs_as_shown(lib, tmp_path):
    import doctest
    if lib == "torch" and torch is None:
        pytest.skip("torch is not installed")
    text = README.read_text().replace("import ndgrad as torch", f"import {lib} as torch")
    (tmp_path / "README.md").write_text(text)
    result = doctest.testfile(str(tmp_path / "README.md"), module_relative=False)
    assert result.attempted > 0 and result.failed == 0


# ---- pickling ------------------------------------------------------------------------------
def _pickled_round_trip(T, protocol):
    """What pickle.loads(pickle.dumps(...)) gives back for a leaf, a non-leaf, a Parameter, an
    int tensor with a user attribute and two views of it (written to after loading: as in torch,
    tensors pickled together come back with separate memory, strides kept)."""
    import pickle
    x = T.tensor([1.5, -2.0, 3.0], requires_grad=True)
    y = x * 2
    p = T.nn.Parameter(T.tensor([0.25]), requires_grad=False)
    n = T.arange(6).view(2, 3)
    n.label = "ints"
    row, col = n[1], n.t()
    xs, ys, ps, ns, rows, cols = pickle.loads(pickle.dumps([x, y, p, n, row, col], protocol=protocol))
    ns[1, 1] = 40
    return [xs, xs.requires_grad, xs.is_leaf, ys, ys.requires_grad, ys.is_leaf, ys.grad_fn,
            type(ps).__name__, ps.requires_grad, ns.label, str(ns.dtype), rows, cols, cols.stride(),
            n[1, 1].item()]


@pytest.mark.parametrize("protocol", [0, 1, 2, None])
def test_pickle_round_trips_like_torch(protocol):
    ours = _pickled_round_trip(ndgrad, protocol)
    if torch is not None:
        theirs = _pickled_round_trip(torch, protocol)
        theirs[10] = theirs[10].replace("torch.", "")
        ours[10] = ours[10].replace("torch.", "")
        for a, b in zip(ours, theirs):
            if hasattr(a, "detach"):
                np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
            else:
                assert a == b
    np.testing.assert_array_equal(ours[3].detach().numpy(), [3.0, -4.0, 6.0])
    assert ours[1:3] == [True, True] and ours[4:9] == [True, True, None, "Parameter", False]
    assert ours[9] == "ints" and ours[13] == (1, 3) and ours[14] == 4
    np.testing.assert_array_equal(ours[11].numpy(), [3, 4, 5])
    np.testing.assert_array_equal(ours[12].numpy(), [[0, 3], [1, 4], [2, 5]])


def test_copy_of_a_tensor_shares_memory_but_not_history():
    import copy
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    c = copy.copy(x * 1)
    assert c.is_leaf and c.requires_grad and c.grad_fn is None
    d = copy.copy(x)
    with ndgrad.no_grad():
        d[0] = 10.0
    assert x[0].item() == 10.0 and x._version == 0


# ---- window functions: torch's overloads (alpha=, beta= need periodic) and its arithmetic --------
def test_window_keyword_parameters():
    from parity import same_error
    w = both(lambda T: T.hamming_window(5, periodic=False, alpha=0.5, beta=0.5))
    np.testing.assert_allclose(w.numpy(), [0.0, 0.5, 1.0, 0.5, 0.0], atol=1e-7)
    w = both(lambda T: T.hamming_window(window_length=4, periodic=False, alpha=0.5, dtype=T.float64))
    np.testing.assert_allclose(w.numpy(), [0.04, 0.73, 0.73, 0.04])
    w = both(lambda T: T.kaiser_window(3, periodic=False, beta=2.0, dtype=T.float64), exact=False)
    np.testing.assert_allclose(w.numpy(), [1 / np.i0(2.0), 1.0, 1 / np.i0(2.0)])
    # the parameters exist only after periodic: without it no overload binds
    msg = same_error(lambda T: T.kaiser_window(5, beta=3.0), TypeError)
    assert msg.startswith("kaiser_window() received an invalid combination of arguments - got (int, beta=float), "
                          "but expected one of:\n * (int window_length, *, torch.dtype dtype = None")
    assert " * (int window_length, bool periodic, float beta, *, torch.dtype dtype = None" in msg
    msg = same_error(lambda T: T.hann_window(5, False, 3.0), TypeError)
    assert msg.startswith("hann_window() received an invalid combination of arguments - got (int, bool, float)")


def test_window_dtype_errors():
    from parity import same_error
    assert same_error(lambda T: T.hann_window(3, dtype=T.int32, pin_memory=True)) == (
        "hann_window expects floating point dtypes, got: TensorOptions(dtype=int, device=cpu, layout=Strided "
        "(default), requires_grad=false (default), pinned_memory=true, memory_format=(nullopt))")
    assert same_error(lambda T: T.bartlett_window(3, dtype=T.complex64), NotImplementedError) == \
        "\"arange_cpu\" not implemented for 'ComplexFloat'"


@pytest.mark.parametrize("name", ["hann", "hamming", "blackman", "bartlett"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows_in_their_dtype_bit_for_bit(name, dtype):
    # computed in the window's dtype in torch's order: blackman's endpoints are float32 rounding
    # (-2.98e-08) and float64 zeros, not the -1.39e-17 of a float64 sum cast down
    for n in range(2, 9):
        for periodic in (True, False):
            both(lambda T: getattr(T, name + "_window")(n, periodic, dtype=getattr(T, dtype)))
    ends = both(lambda T: T.blackman_window(5, periodic=False, dtype=getattr(T, dtype)))[[0, -1]]
    np.testing.assert_array_equal(ends.numpy(), [-2.9802322387695312e-08] * 2 if dtype == "float32" else [0.0, 0.0])


@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16", "bool", "int16", "complex64", "uint32"])
def test_nbytes_and_itemsize(dtype):
    def sizes(T):
        t = T.zeros(3, 4, dtype=getattr(T, dtype))
        return [t.itemsize, t.nbytes, t[:, :2].nbytes, t.t().nbytes, t[:1].expand(5, 4).nbytes, t[0, 0].nbytes]
    got = sizes(ndgrad)
    assert got[1] == 12 * got[0] and got[4] == 20 * got[0] and got[5] == got[0]
    if torch is not None:
        assert got == sizes(torch)


@pytest.mark.parametrize("name", ["bool", "int", "long", "short", "char", "byte"])
def test_integer_casts_take_a_memory_format(name):
    for T in LIBS:
        x = T.ones(2, 3, 4, 5).to(memory_format=T.channels_last)
        kept, plain = getattr(x, name)(memory_format=T.preserve_format), getattr(x, name)(memory_format=T.contiguous_format)
        assert (kept.stride(), plain.stride()) == ((60, 1, 15, 3), (60, 20, 5, 1))


def test_new_empty_strided():
    for T in LIBS:
        y = T.ones(1, dtype=T.float64).new_empty_strided((2, 3), (1, 2))
        assert (tuple(y.shape), y.stride(), y.dtype, y.requires_grad) == ((2, 3), (1, 2), T.float64, False)
