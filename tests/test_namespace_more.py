"""Smaller torch namespaces: signal.windows, torch_version, functional, native_channel_shuffle,
BFloat16Storage, profiler_util / ProfilerActivity (values and errors against torch)."""
import pytest

from parity import both, same_error

WINDOWS = [("bartlett", {}), ("blackman", {}), ("cosine", {}), ("exponential", {"tau": 2.0}), ("gaussian", {"std": 1.5}),
           ("general_cosine", {"a": [0.5, 0.3, 0.2]}), ("general_hamming", {"alpha": 0.6}), ("hamming", {}),
           ("hann", {}), ("kaiser", {"beta": 5.0}), ("nuttall", {})]


@pytest.mark.parametrize("name,kwargs", WINDOWS)
@pytest.mark.parametrize("M", [0, 1, 2, 7, 10])
@pytest.mark.parametrize("sym", [True, False])
def test_windows(name, kwargs, M, sym):
    def scenario(T):
        fn = getattr(T.signal.windows, name)
        return fn(M, sym=sym, **kwargs), fn(M, sym=sym, dtype=T.float64, **kwargs)
    w32, w64 = both(scenario, rtol=1e-6, atol=1e-7)
    assert w32.dtype.name == "float32" and len(w64) == M


def test_window_errors():
    same_error(lambda T: T.signal.windows.gaussian(-1), ValueError)
    same_error(lambda T: T.signal.windows.gaussian(3, dtype=T.int64), ValueError)
    same_error(lambda T: T.signal.windows.gaussian(3, std=-1), ValueError)
    same_error(lambda T: T.signal.windows.kaiser(3, beta=-1.0), ValueError)


def test_torch_version_compares_by_release():
    import ndgrad
    from ndgrad.torch_version import TorchVersion
    v = TorchVersion("2.13.0+cpu")
    assert v > "2.1" and v < (2, 14) and v >= (2, 13) and v != (2, 13, 0) and v == "2.13.0+cpu" and v < "10.0"
    assert isinstance(ndgrad.torch_version.__version__, str)


def test_functional_module():
    def scenario(T):
        a, b = T.functional.meshgrid(T.arange(2), T.arange(3), indexing="ij")
        return a, b, T.functional.einsum("ij->j", a.double()), T.functional.unique(T.tensor([2, 1, 2]))
    a, b, s, u = both(scenario)
    assert s.tolist() == [1.0, 1.0, 1.0] and u.tolist() == [1, 2]


def test_native_channel_shuffle_has_no_derivative():
    def scenario(T):
        x = T.arange(8.0).reshape(1, 4, 2).requires_grad_()
        y = T.native_channel_shuffle(x, 2)
        return y, type(y.grad_fn).__name__, T.nn.functional.native_channel_shuffle(x.detach(), 2)
    y, name, _ = both(scenario)
    assert name == "NotImplemented" and y.tolist() == [[[0.0, 1.0], [4.0, 5.0], [2.0, 3.0], [6.0, 7.0]]]
    same_error(lambda T: T.native_channel_shuffle(T.ones(1, 4, 2, requires_grad=True), 2).sum().backward())


def test_bfloat16_storage_and_profiler_names():
    def scenario(T):
        s = T.BFloat16Storage([1.5, 2.0])
        return s.dtype is T.bfloat16, len(s), isinstance(s, T.BFloat16Storage), T.autograd.ProfilerActivity.CPU.name, \
            T.autograd.profiler_util.EventList is T.autograd.profiler.EventList, \
            isinstance(T.ones(2).untyped_storage(), T.storage.UntypedStorage), T.storage.TypedStorage is T.TypedStorage
    assert both(scenario) == [True, 2, True, "CPU", True, True, True]
