"""The torch namespace around autograd that programs touch first: the device preamble
(torch.cuda, torch.backends, torch.accelerator, torch.device), process-wide settings, testing
helpers, dtype info, print options, the benchmark Timer and the legacy tensor types; compared with
torch where it is installed."""
import array
import math
import warnings

import numpy as np
import pytest

import ndgrad
from parity import both, err, parity, same_error


# ---- devices ---------------------------------------------------------------------------------
def test_device_preamble_matches_a_cpu_only_torch():
    def scenario(T):
        device = "cuda" if T.cuda.is_available() else "cpu"
        T.cuda.manual_seed(1)
        T.cuda.manual_seed_all(1)
        T.cuda.empty_cache()
        return [device, T.cuda.device_count(), T.cuda.is_initialized(), T.cuda.memory_allocated(),
                T.backends.cudnn.enabled, T.backends.cudnn.benchmark, T.backends.cudnn.deterministic,
                T.backends.cudnn.is_available(), T.backends.mps.is_available(), T.backends.mps.is_built(),
                T.backends.cuda.matmul.allow_tf32, T.accelerator.is_available(),
                T.accelerator.current_accelerator(), T.accelerator.device_count(), repr(T.get_default_device()),
                err(T.cuda.synchronize), err(T.cuda.current_device), err(T.cuda.get_device_name)]
    out = both(scenario)
    assert out[0] == "cpu" and out[-1] == ["AssertionError", "Torch not compiled with CUDA enabled"]


def test_xpu_and_mps_are_those_of_a_build_without_them():
    def scenario(T):
        T.xpu.manual_seed(1)
        T.xpu.manual_seed_all(1)
        T.xpu.empty_cache()
        return [T.xpu.is_available(), T.xpu.device_count(), T.xpu.is_initialized(), T.xpu.is_bf16_supported(),
                T.xpu.memory_allocated(), T.xpu.max_memory_reserved(), err(T.xpu.synchronize),
                err(T.xpu.current_device), err(T.xpu.get_device_name),
                T.mps.is_available(), T.mps.device_count(), T.mps.manual_seed(0), err(T.mps.synchronize),
                err(T.mps.empty_cache), err(T.mps.current_allocated_memory), err(T.mps.seed)]
    out = both(scenario)
    assert out[:6] == [False, 0, False, False, 0, 0] and out[6] == ["AssertionError", "Torch not compiled with XPU enabled"]
    assert out[12] == ["RuntimeError", "Cannot execute deviceSynchronize() without MPS backend."]


def test_cuda_seeding_leaves_the_cpu_generator_alone():
    ndgrad.manual_seed(3)
    expected = ndgrad.rand(3)
    ndgrad.manual_seed(3)
    ndgrad.cuda.manual_seed_all(99)
    assert ndgrad.equal(ndgrad.rand(3), expected)


def test_cudnn_flags_are_settings():
    old = ndgrad.backends.cudnn.benchmark
    try:
        ndgrad.backends.cudnn.benchmark = True
        assert ndgrad.backends.cudnn.benchmark is True
    finally:
        ndgrad.backends.cudnn.benchmark = old


def test_default_device():
    def scenario(T):
        T.set_default_device("cpu")
        T.set_default_device(None)
        return repr(T.get_default_device())
    assert both(scenario) == "device(type='cpu')"
    with pytest.raises(NotImplementedError, match="CPU backend"):
        ndgrad.set_default_device("cuda")


@pytest.mark.parametrize("spec", [("cuda",), ("cuda", 1), ("cuda:1",), ("mps",), ("meta",), ("cpu", 0),
                                  ("cpu:0",)])
def test_device_objects_match_torch(spec):
    def scenario(T):
        d = T.device(*spec)
        return [repr(d), str(d), d.type, d.index, d == T.device(str(d)), d == str(d), hash(d) == hash(T.device(str(d)))]
    parity(scenario)


@pytest.mark.parametrize("spec", [("foo",), ("cuda:x",), ("cuda:-1",), ("cpu:0:1",), ("cuda:01",), ("CPU",),
                                  ("cpu", -1), ("cpu:1", 1), (0,)])
def test_device_errors_match_torch(spec):
    same_error(lambda T: T.device(*spec), RuntimeError)


# ---- process-wide settings -------------------------------------------------------------------
def test_threads_and_determinism_settings():
    def scenario(T):
        threads = T.get_num_threads()
        T.set_num_threads(3)
        got = T.get_num_threads()
        T.set_num_threads(threads)
        modes = []
        for mode, warn_only in [(True, False), (True, True), (False, False)]:
            T.use_deterministic_algorithms(mode, warn_only=warn_only)
            modes.append([T.are_deterministic_algorithms_enabled(), T.is_deterministic_algorithms_warn_only_enabled(),
                          T.get_deterministic_debug_mode()])
        T.set_deterministic_debug_mode("error")
        modes.append(T.get_deterministic_debug_mode())
        T.set_deterministic_debug_mode(0)
        return [got, modes, err(lambda: T.set_num_threads(0)), err(lambda: T.set_num_threads("a")),
                err(lambda: T.use_deterministic_algorithms(1)), err(lambda: T.set_deterministic_debug_mode("x")),
                err(lambda: T.set_deterministic_debug_mode(5)), T.are_deterministic_algorithms_enabled()]
    out = both(scenario)
    assert out[0] == 3 and out[1] == [[True, False, 2], [True, True, 1], [False, False, 0], 2]


# ---- testing helpers -------------------------------------------------------------------------
@pytest.mark.parametrize("pair", [
    lambda T: (T.tensor([1.0, 2.0, 3.0]), T.tensor([1.0, 2.5, 3.0])),
    lambda T: (T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0], dtype=T.float64)),
    lambda T: (T.tensor([1.0, 2.0, 3.0]), T.tensor([1.0, 2.0])),
    lambda T: (1.0, 1.1),
    lambda T: (1, 2),
    lambda T: (1, 1.0),
    lambda T: (True, False),
    lambda T: (T.tensor([1, 2]), T.tensor([1, 3])),
    lambda T: (T.tensor([True]), T.tensor([False])),
    lambda T: (T.tensor(1.0), T.tensor(2.0)),
    lambda T: (T.ones(2, 2), T.ones(2, 2) * 2),
    lambda T: (T.tensor([0.0, 1.0]), T.tensor([1.0, 1.0])),
    lambda T: (T.tensor([float("nan")]), T.tensor([float("nan")])),
    lambda T: (T.tensor([1.0 + 1j]), T.tensor([1.0 + 2j])),
    lambda T: (np.array([1.0, 2.0]), np.array([1.0, 3.0])),
    lambda T: ([T.tensor(1.0), T.tensor(2.0)], [T.tensor(1.0), T.tensor(3.0)]),
    lambda T: ({"a": [T.tensor(1.0)]}, {"a": [T.tensor(3.0)]}),
    lambda T: ({"a": 1}, {"b": 1}),
    lambda T: ([1, 2], [1, 2, 3]),
    lambda T: (T.ones(2, dtype=T.int32), T.ones(2, dtype=T.int64)),
], ids=lambda p: "")
def test_assert_close_messages_match_torch(pair):
    same_error(lambda T: T.testing.assert_close(*pair(T)), AssertionError)


def test_assert_close_passes_and_options_match_torch():
    def scenario(T):
        ac = T.testing.assert_close
        close = [ac(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0 + 1e-7])),
                 ac(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.1]), rtol=0.1, atol=0),
                 ac(T.tensor([float("nan")]), T.tensor([float("nan")]), equal_nan=True),
                 ac(T.tensor([1.0, 2.0]), T.tensor([1, 2]), check_dtype=False),
                 ac(T.tensor([1.0], requires_grad=True), T.tensor([1.0]))]
        return [close, err(lambda: ac(T.tensor([1.0]), T.tensor([1.1]), rtol=0.1)),
                err(lambda: ac(T.tensor([1.0]), T.tensor([2.0]), msg="boom")),
                err(lambda: ac(T.tensor([1.0]), T.tensor([2.0]), msg=lambda m: m.splitlines()[0] + "!"))]
    out = both(scenario)
    assert out[0] == [None] * 5
    assert out[1] == ["ValueError", "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."]
    assert out[2:] == [["AssertionError", "boom"], ["AssertionError", "Tensor-likes are not close!!"]]


def test_assert_close_refuses_unrelated_types():
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        ndgrad.testing.assert_close(ndgrad.ones(1), [1.0])


@pytest.mark.parametrize("dtype,low,high", [("float32", None, None), ("float64", -1, 1), ("int64", None, None),
                                            ("uint8", None, None), ("int32", 3, 7), ("complex64", None, None)])
def test_make_tensor_ranges(dtype, low, high):
    d = getattr(ndgrad, dtype)
    t = ndgrad.testing.make_tensor((40, 5), dtype=d, device="cpu", low=low, high=high)
    assert t.shape == (40, 5) and t.dtype is d
    lo, hi = (low if low is not None else (0 if dtype == "uint8" else -9)), (high if high is not None else 9)
    parts = [t.real, t.imag] if d.is_complex else [t]
    for p in parts:
        assert p.min().item() >= lo and p.max().item() <= (hi if d._rank > 1 else hi + 1)


def test_make_tensor_options_and_errors():
    mt = ndgrad.testing.make_tensor
    t = mt(3, 4, dtype=ndgrad.int64, device="cpu", low=-1, high=2, exclude_zero=True, requires_grad=False)
    assert t.shape == (3, 4) and not (t == 0).any().item()
    g = mt(5, dtype=ndgrad.float64, device="cpu", requires_grad=True)
    assert g.requires_grad and g.is_leaf
    b = mt(50, dtype=ndgrad.bool, device="cpu")
    assert b.dtype is ndgrad.bool and 0 < b.sum().item() < 50
    def errors(T):
        return [err(lambda: T.testing.make_tensor(3, dtype=T.float32)),
                err(lambda: T.testing.make_tensor((2, 2), dtype=T.int64, device="cpu", low=5, high=5)),
                err(lambda: T.testing.make_tensor((2, 2), dtype=T.float32, device="cpu", low=5, high=4))]
    assert both(errors)[1] == ["ValueError", "`low` must be less than `high`, but got 5 >= 5"]


# ---- dtype info, constants, asarray, print options -------------------------------------------
@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128"])
def test_finfo_matches_torch(name):
    def scenario(T):
        f = T.finfo(getattr(T, name))
        return [repr(f), f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, f.dtype]
    parity(scenario)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    def scenario(T):
        i = T.iinfo(getattr(T, name))
        return [repr(i), i.bits, i.max, i.min, i.dtype]
    parity(scenario)


def test_dtype_info_defaults_errors_and_constants():
    def scenario(T):
        return [repr(T.finfo()), err(lambda: T.finfo(T.int32)), err(lambda: T.iinfo(T.float32)),
                err(lambda: T.iinfo(T.bool)), T.pi, T.e, T.inf, str(T.nan), T.newaxis]
    out = both(scenario)
    assert out[5:7] == [math.e, math.inf]


def test_asarray_aliases_and_converts_like_torch():
    def scenario(T):
        a = np.arange(3.0)
        shared, copied, cast = T.asarray(a), T.asarray(a, copy=True), T.asarray(a, dtype=T.float32)
        a[0] = 9.0
        x = T.ones(2)
        return [shared, copied, cast, T.asarray([1, 2]), T.asarray([1.0, 2.0]), T.asarray(np.float32(2)),
                T.asarray(x) is x, T.asarray(x, copy=True) is x, T.asarray(x, requires_grad=True).requires_grad,
                err(lambda: T.asarray(np.ones(2), dtype=T.float32, copy=False)),
                err(lambda: T.asarray([1, 2], copy=False))]
    out = both(scenario)
    assert out[0].tolist() == [9.0, 1.0, 2.0] and out[1].tolist() == [0.0, 1.0, 2.0] and out[6:8] == [True, False]


def test_asarray_and_frombuffer_share_buffer_bytes_like_torch():
    # a buffer-protocol object is raw bytes read in the dtype given (default: the default float dtype)
    def scenario(T):
        b, floats = bytearray(b"\x01\x02\x03\x04\x05\x06"), array.array("f", [1.0, 2.0])
        shared, as_floats, copied = T.asarray(b, dtype=T.uint8), T.asarray(floats), T.asarray(b, dtype=T.int16, copy=True)
        b[0], floats[0] = 9, 5.0
        errors = [err(lambda: T.asarray(b)), err(lambda: T.asarray(b, dtype=T.uint8, requires_grad=True))] + [
            err(lambda kw=kw, buf=buf, dt=dt: T.frombuffer(buf, dtype=dt, **kw)) for buf, dt, kw in [
                (b, T.float32, {}), (bytearray(), T.float32, {}), (b, T.int8, dict(count=0)),
                (b, T.int8, dict(offset=6)), (b, T.int16, dict(count=3, offset=1)), (b, T.int16, dict(offset=1))]]
        return [shared, as_floats, copied, T.asarray(bytearray(8), requires_grad=True), errors]
    shared, as_floats, copied, zeros, errors = both(scenario)
    assert shared.tolist()[0] == 9 and as_floats.tolist() == [5.0, 2.0] and copied.tolist()[0] == 513
    assert zeros.tolist() == [0.0, 0.0] and errors[0][0] == "ValueError" and "multiple of element size (4)" in errors[0][1]


def test_asarray_shares_a_dlpack_object():
    class Exporter:   # only the DLPack protocol: neither a NumPy array nor a Tensor
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kwargs):
            return self.a.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    def scenario(T):
        a = np.arange(3.0)
        shared, cast = T.asarray(Exporter(a)), T.asarray(Exporter(a), dtype=T.float32)
        a[0] = 7.0
        return [shared, cast]
    shared, cast = both(scenario)
    assert shared.tolist() == [7.0, 1.0, 2.0] and cast.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("options,values", [
    (dict(sci_mode=True), [1.5, 2.0]),
    (dict(sci_mode=False), [1e-9, 2e10]),
    (dict(precision=2), [1.2345, 2.0]),
    (dict(precision=2), [1e-9, 2e10]),
    (dict(threshold=5, edgeitems=1), list(range(10))),
    (dict(profile="short"), [1.23456] * 2000),
    (dict(profile="full", linewidth=40), [0.5] * 1100),
])
def test_set_printoptions_matches_torch(options, values):
    def scenario(T):
        T.set_printoptions(**options)
        try:
            return [repr(T.tensor(values)), repr(T.tensor([1, 2]))]
        finally:
            T.set_printoptions(profile="default")
    parity(scenario)


# ---- benchmark Timer -------------------------------------------------------------------------
def test_timer_measurements():
    from ndgrad.utils.benchmark import Timer
    x = ndgrad.ones(10)
    m = Timer("x.sum()", globals={"x": x}).timeit(200)
    assert m.number_per_run == 200 and len(m.raw_times) == 1 and m.mean == m.median == m.times[0] > 0
    lines = repr(m).splitlines()
    assert lines[0].startswith("<") and lines[1] == "x.sum()" and lines[3] == "  1 measurement, 200 runs , 1 thread"
    assert lines[2].split()[1] in ("ns", "us", "ms", "s")
    blocked = Timer("torch.ones(2) + 1", label="add", sub_label="small", description="cpu").blocked_autorange(
        min_run_time=0.02)
    assert sum(blocked.raw_times) >= 0.02 and blocked.title == "add: small"
    text = repr(blocked).splitlines()
    assert text[1:3] == ["add: small", "cpu"]
    assert (len(blocked.times) > 1) == text[3].startswith("  Median: ")


# ---- legacy constructors and types -----------------------------------------------------------
LEGACY = ["DoubleTensor", "FloatTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
          "ByteTensor", "BoolTensor"]


@pytest.mark.parametrize("call", [
    lambda T: T.Tensor([1, 2]),
    lambda T: T.Tensor([[1, 2], [3, 4]]),
    lambda T: T.Tensor((1, 2)),
    lambda T: T.Tensor(np.array([1, 2])),
    lambda T: T.Tensor(T.tensor([1, 2])),
    lambda T: T.Tensor(),
    lambda T: T.Tensor(2, 3).shape,
    lambda T: T.Tensor(T.Size([2, 2])).shape,
    lambda T: T.LongTensor([1, 2]),
    lambda T: T.BoolTensor([1, 0]),
    lambda T: T.IntTensor([1.7, -2.5]),
    lambda T: T.HalfTensor([1]),
    lambda T: T.DoubleTensor(),
    lambda T: T.FloatTensor(3).shape,
    lambda T: T.ones(2, dtype=T.int32).new([1.5, 2]),
    lambda T: T.ones(2).new(),
    lambda T: T.ones(2).new(2, 3).shape,
    lambda T: T.ones(2).new(np.array([1.0, 2.0])),
    lambda T: T.ones(2, requires_grad=True).new([1.0]).requires_grad,
], ids=lambda c: "")
def test_legacy_constructors_match_torch(call):
    def scenario(T):
        out = call(T)
        return [str(out.dtype), out] if isinstance(out, T.Tensor) else list(out) if isinstance(out, tuple) else out
    parity(scenario)


@pytest.mark.parametrize("call", [
    lambda T: T.Tensor(2.5), lambda T: T.Tensor(-1), lambda T: T.Tensor(2, [3]), lambda T: T.LongTensor(2.5),
    lambda T: T.ones(2).new(2.5), lambda T: T.ones(2).new(T.tensor([1, 2])),
    lambda T: T.LongTensor(T.tensor([1.0, 2.0])),
    lambda T: T.ones(2).type("torch.float64"), lambda T: T.ones(2).type("foo"), lambda T: T.ones(2).type(int),
], ids=lambda c: "")
def test_legacy_errors_match_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call(ndgrad)
        except Exception as e:  # noqa: BLE001 - the type is compared below
            exc = type(e)
    same_error(call, exc)


def test_legacy_constructor_aliases_a_tensor():
    def scenario(T):
        x = T.tensor([1.0, 2.0])
        return [T.Tensor(x).data_ptr() == x.data_ptr(), x.new(x).data_ptr() == x.data_ptr(),
                T.FloatTensor(x).data_ptr() == x.data_ptr()]
    assert both(scenario) == [True, True, True]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_types_check_dtype_like_torch(name):
    def scenario(T):
        kind = getattr(T, name)
        made = kind([1, 0])
        x = T.ones(2)
        return [str(kind.dtype), repr(kind), type(kind).__name__, type(made) is T.Tensor, str(made.dtype),
                isinstance(made, kind), isinstance(x.type(kind), kind), x.type(kind).type(), made.type(),
                issubclass(kind, T.Tensor), isinstance(1, kind), kind.is_cuda,
                [isinstance(made, getattr(T, other)) for other in LEGACY]]
    out = both(scenario)
    assert out[5] and out[6] and out[8] == "torch." + name


def test_type_conversions():
    def scenario(T):
        x = T.ones(2)
        y = T.ones(2, dtype=T.float64)
        return [x.type(), x.type("torch.DoubleTensor"), x.type(T.LongTensor), x.type(T.float64),
                y.type(T.DoubleTensor).data_ptr() == y.data_ptr(), T.ones(1, dtype=T.complex64).type(),
                T.ones(1, dtype=T.bool).type()]
    out = both(scenario)
    assert out[0] == "torch.FloatTensor" and out[4] is True and out[5] == "torch.ComplexFloatTensor"


# ---- NumPy interop and keyword conveniences --------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda T, x: np.exp(x),
    lambda T, x: np.add(x, 1),
    lambda T, x: np.multiply(2, x),
    lambda T, x: np.greater(x, 1),          # bool results come back as uint8
    lambda T, x: np.isnan(x),
    lambda T, x: np.exp(x[0]),              # 0-dim stays a tensor
    lambda T, x: np.exp(T.tensor([1, 2])),  # NumPy's own result dtype
    lambda T, x: list(np.divmod(x, 1)),
    lambda T, x: np.exp(x, out=np.empty(2, dtype=np.float32)),   # with out=, NumPy's array
], ids=lambda c: "")
def test_numpy_ufuncs_on_tensors_return_tensors(call):
    def scenario(T):
        out = call(T, T.tensor([1.0, 2.0]))
        kinds = [type(o).__name__ for o in (out if isinstance(out, list) else [out])]
        return [kinds, out]
    parity(scenario)


def test_randint_by_keyword():
    def scenario(T):
        g = T.Generator().manual_seed(0)
        t = T.randint(high=10, size=(50,), generator=g)
        lo = T.randint(low=3, high=5, size=(50,))
        return [str(t.dtype), list(t.shape), bool((t >= 0).all() and (t < 10).all()),
                bool((lo >= 3).all() and (lo < 5).all())]
    assert both(scenario) == ["torch.int64", [50], True, True]


def test_onnx_export_is_refused_with_a_way_out():
    assert ndgrad.onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="no ONNX exporter.*ndgrad.save"):
        ndgrad.onnx.export(ndgrad.nn.Linear(2, 2), (ndgrad.ones(1, 2),), "model.onnx")
