"""dtypes and type promotion: promote_types and result_type for every pair of dtypes, with tensors
that have dimensions, zero-dim tensors and Python scalars, under both default float dtypes —
compared with torch where it is installed; plus the default dtype's effect on inference."""
import itertools

import numpy as np
import pytest

import ndgrad
from ndgrad import _dtype
from parity import both, parity

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128"]
PAIRS = list(itertools.product(NAMES, NAMES))
SCALARS = [True, 2, 2.5, 1 + 2j]


@pytest.fixture(params=["float32", "float64"])
def default_dtype(request):
    """Run the test under each default float dtype, in both libraries."""
    ndgrad.set_default_dtype(getattr(ndgrad, request.param))
    if torch is not None:
        torch.set_default_dtype(getattr(torch, request.param))
    yield request.param
    ndgrad.set_default_dtype(ndgrad.float32)
    if torch is not None:
        torch.set_default_dtype(torch.float32)


def _expect(torch_dtype):
    """torch's answer as an ndgrad dtype; skip where torch answers with a dtype ndgrad lacks."""
    name = str(torch_dtype).split(".")[1]
    if not hasattr(_dtype, name) and name != "bool":
        pytest.skip(f"ndgrad has no {torch_dtype} (float16 with complex promotes to it in torch)")
    return _dtype.bool_ if name == "bool" else getattr(_dtype, name)


@needs_torch
def test_promote_types_matches_torch_for_every_pair():
    for a, b in PAIRS:
        got = ndgrad.promote_types(getattr(ndgrad, a), getattr(ndgrad, b))
        assert repr(got) == str(torch.promote_types(getattr(torch, a), getattr(torch, b))), (a, b)


@needs_torch
@pytest.mark.parametrize("a,b", PAIRS)
def test_result_type_of_tensors_matches_torch(a, b, default_dtype):
    na, nb, ta, tb = getattr(ndgrad, a), getattr(ndgrad, b), getattr(torch, a), getattr(torch, b)
    dim, zero = torch.ones(2, dtype=ta), torch.ones((), dtype=tb)
    assert _dtype.result_type([na, nb]) is _expect(torch.result_type(dim, torch.ones(2, dtype=tb)))
    assert _dtype.result_type([na], [nb]) is _expect(torch.result_type(dim, zero))
    assert _dtype.result_type([], [na, nb]) is _expect(torch.result_type(torch.ones((), dtype=ta), zero))


@needs_torch
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scalar", SCALARS, ids=lambda s: type(s).__name__)
def test_result_type_with_python_scalar_matches_torch(name, scalar, default_dtype):
    d = getattr(ndgrad, name)
    expected_dim = torch.result_type(torch.ones(2, dtype=getattr(torch, name)), scalar)
    expected_zero = torch.result_type(torch.ones((), dtype=getattr(torch, name)), scalar)
    assert _dtype.result_type([d], [], [scalar]) is _expect(expected_dim)
    assert _dtype.result_type([], [d], [scalar]) is _expect(expected_zero)
    assert ndgrad.result_type(ndgrad.ones(2, dtype=d), scalar) is _expect(expected_dim)


def test_dimensioned_tensor_decides_within_a_category():
    assert _dtype.result_type([ndgrad.int8], [ndgrad.int64]) is ndgrad.int8
    assert _dtype.result_type([ndgrad.float16], [ndgrad.float64], [2.5]) is ndgrad.float16


def test_zero_dim_tensor_or_scalar_lifts_the_category():
    assert _dtype.result_type([ndgrad.int32], [ndgrad.float64]) is ndgrad.float64
    assert _dtype.result_type([ndgrad.int32], [], [2.5]) is ndgrad.float32
    assert _dtype.result_type([ndgrad.float64], [], [1j]) is ndgrad.complex128


def test_python_scalars_alone_use_the_default_dtypes(default_dtype):
    d = getattr(ndgrad, default_dtype)
    assert _dtype.result_type([], [], [2.5]) is d
    assert _dtype.result_type([], [], [1j]) is d.to_complex()
    assert _dtype.result_type([], [], [2]) is ndgrad.int64
    assert _dtype.result_type([], [], [True]) is ndgrad.bool


def test_default_dtype_drives_float_inference(default_dtype):
    d = getattr(ndgrad, default_dtype)
    assert ndgrad.get_default_dtype() is d
    assert ndgrad.tensor([1.5]).dtype is d
    assert ndgrad.tensor([1j]).dtype is d.to_complex()
    assert ndgrad.zeros(2).dtype is d
    assert ndgrad.arange(2.0).dtype is d
    assert ndgrad.full((1,), 2.5).dtype is d
    assert ndgrad.rand(2).dtype is d
    assert ndgrad.linspace(0, 1, 3).dtype is d
    assert ndgrad.tensor([1]).dtype is ndgrad.int64
    assert (ndgrad.tensor([1]) * 0.5).dtype is d


def test_default_dtype_must_be_floating():
    with pytest.raises(TypeError, match="floating-point"):
        ndgrad.set_default_dtype(ndgrad.int64)
    assert ndgrad.get_default_dtype() is ndgrad.float32


def test_dtype_aliases_and_properties():
    assert ndgrad.float is ndgrad.float32 and ndgrad.double is ndgrad.float64 and ndgrad.half is ndgrad.float16
    assert ndgrad.long is ndgrad.int64 and ndgrad.int is ndgrad.int32 and ndgrad.short is ndgrad.int16
    assert ndgrad.cfloat is ndgrad.complex64 and ndgrad.cdouble is ndgrad.complex128
    assert repr(ndgrad.float64) == "torch.float64"
    assert ndgrad.float16.is_floating_point and not ndgrad.int8.is_floating_point
    assert ndgrad.complex64.is_complex and ndgrad.int8.is_signed and not ndgrad.uint8.is_signed
    assert ndgrad.complex64.to_real() is ndgrad.float32 and ndgrad.float64.to_complex() is ndgrad.complex128
    assert ndgrad.float32.itemsize == 4


# --- bfloat16 (storage from ml_dtypes) ---------------------------------------------------------
needs_bf16 = pytest.mark.skipif(ml_dtypes is None, reason="ml_dtypes is not installed")


def _exact(t):
    """A bfloat16 result as comparable values: its dtype's name and its (exact) float32 values."""
    return [repr(t.dtype), t.detach().float()]


def test_bfloat16_is_a_floating_dtype_with_torchs_names():
    b = ndgrad.bfloat16
    assert repr(b) == "torch.bfloat16" and b.title == "BFloat16" and b.itemsize == 2
    assert b.is_floating_point and b.is_signed and not b.is_complex
    assert b.to_complex() is ndgrad.complex64 and b.to_real() is b
    assert ndgrad.half is ndgrad.float16   # torch.half is float16, never bfloat16
    assert ndgrad.promote_types(b, ndgrad.float16) is ndgrad.float32
    assert ndgrad.promote_types(ndgrad.int64, b) is b and ndgrad.promote_types(b, ndgrad.float64) is ndgrad.float64
    assert _dtype.result_type([b], [ndgrad.float64], [2.5]) is b


@needs_bf16
def test_finfo_of_bfloat16_has_torchs_values():
    f = ndgrad.finfo(ndgrad.bfloat16)
    assert (f.bits, f.eps, f.resolution, f.tiny, f.max) == (16, 2.0 ** -7, 0.01, 2.0 ** -126, 3.3895313892515355e38)
    assert repr(f) == ("finfo(resolution=0.01, min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, "
                       "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=bfloat16)")


@needs_bf16
def test_bfloat16_prints_like_torch():
    parity(lambda T: [repr(T.tensor([1.0], dtype=T.bfloat16)), repr(T.tensor([1.0, 2.5, 3.3], dtype=T.bfloat16)),
                    repr(T.tensor(2.0, dtype=T.bfloat16)), repr(T.ones(2, 2).bfloat16().requires_grad_()),
                    str(T.tensor([1e10, 1.0], dtype=T.bfloat16))])
    assert repr(ndgrad.tensor([1.0], dtype=ndgrad.bfloat16)) == "tensor([1.], dtype=torch.bfloat16)"


@needs_bf16
def test_conversions_round_to_nearest_even_like_torch():
    def scenario(T):
        x = T.tensor([1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, 3.3, -0.7, 1e39, float("nan")], dtype=T.float64)
        return [_exact(x.to(T.bfloat16)), _exact(x.float().bfloat16()), _exact(x.bfloat16().half()),
                repr(x.bfloat16().double().dtype), x.bfloat16()[2].item(), x.bfloat16()[:3].tolist()]
    got = both(scenario, rtol=0, atol=0)
    assert got[0][1][:2].tolist() == [1.0, 1.015625]   # ties to the even neighbour


@needs_bf16
def test_bfloat16_arithmetic_rounds_each_op_once_like_torch():
    def scenario(T):
        b = T.bfloat16
        x = T.tensor([1.0, 2.5, 3.3, -0.7], dtype=b)
        y = T.tensor([0.3, 1.7, 2.2, 5.1], dtype=b)
        w = T.tensor([[1.1, 2.2, 0.3], [3.3, 4.4, -1.7], [0.1, 0.01, 7.0]], dtype=b)
        long = T.linspace(0, 10, 1000).to(b)
        return [_exact(r) for r in (
            x * 2.5, x + y, x / y, 1 - x, x ** 2, x.exp(), x.tanh(), x.softmax(0), w @ w, w @ x[:3],
            (x * y).sum(), x.mean(), x.cumsum(0), long.sum(), long.mean(), long.cumsum(0), long.var(), long.norm(),
            x + T.tensor([1, 2, 3, 4]), x * T.tensor(2.0, dtype=T.float64),        # bfloat16 stays
            x * T.ones(4, dtype=T.float16), x * T.ones(4, dtype=T.float32),       # float32
            T.cat([x, y]), T.nn.functional.layer_norm(w, (3,)), T.nn.functional.gelu(x))]
    got = both(scenario, rtol=0, atol=0)
    assert [d for d, _ in got].count("torch.float32") == 2
    # accumulated in float32 and rounded once; summed in bfloat16 itself it would stall at 4096
    assert got[13][1] == 4992.0


@needs_bf16
def test_gradients_through_bfloat16_are_bfloat16():
    def scenario(T):
        x = T.tensor([1.0, 2.5, 3.3, -0.7], dtype=T.bfloat16, requires_grad=True)
        w = T.tensor([[1.1, 2.2], [3.3, 4.4]], dtype=T.bfloat16, requires_grad=True)
        p = T.tensor([0.5, 1.5], requires_grad=True)
        out = (x.exp() * x).sum() + (w @ w).tanh().sum() + (p.bfloat16() * w).sum()
        out.backward()
        return [_exact(out), _exact(x.grad), _exact(w.grad), repr(p.grad.dtype), p.grad, type(out.grad_fn).__name__]
    got = both(scenario, rtol=0, atol=0)
    assert got[1][0] == "torch.bfloat16" and got[3] == "torch.float32"


@needs_bf16
def test_bfloat16_storage_round_trips_through_checkpoints(tmp_path):
    x = ndgrad.tensor([1.1, 2.5, -3.0], dtype=ndgrad.bfloat16)
    ndgrad.save({"x": x, "tail": x[1:]}, tmp_path / "nd.pt")
    back = ndgrad.load(tmp_path / "nd.pt")
    assert back["x"].dtype is ndgrad.bfloat16 and back["x"].tolist() == x.tolist()
    assert back["tail"].tolist() == [2.5, -3.0]
    if torch is not None:   # torch reads ndgrad's BFloat16Storage, and ndgrad reads torch's
        theirs = torch.load(tmp_path / "nd.pt")
        assert theirs["x"].dtype == torch.bfloat16 and theirs["x"].tolist() == x.tolist()
        torch.save({"y": torch.tensor([0.1, 7.0], dtype=torch.bfloat16)}, tmp_path / "t.pt")
        y = ndgrad.load(tmp_path / "t.pt")["y"]
        assert y.dtype is ndgrad.bfloat16 and y.tolist() == [0.10009765625, 7.0]


@needs_bf16
def test_from_numpy_shares_an_ml_dtypes_array():
    a = np.array([1.5, 2.0], dtype=ml_dtypes.bfloat16)
    t = ndgrad.from_numpy(a)
    a[0] = 7
    assert t.dtype is ndgrad.bfloat16 and t.tolist() == [7.0, 2.0]
    assert ndgrad.tensor(a).dtype is ndgrad.bfloat16 and t.numpy().dtype == a.dtype
    assert isinstance(t, ndgrad.BFloat16Tensor) and ndgrad.BFloat16Tensor([1.0]).dtype is ndgrad.bfloat16


@needs_bf16
def test_bfloat16_views_share_memory_and_in_place_ops_round():
    x = ndgrad.zeros(4, dtype=ndgrad.bfloat16)
    v = x[1:3]
    v.add_(ndgrad.tensor([1.1, 2.2]))
    assert v.dtype is ndgrad.bfloat16 and x.tolist() == [0.0, 1.1015625, 2.203125, 0.0]


def test_complex_conversions_take_memory_format_and_chalf_refuses():
    def scenario(T):
        x = T.tensor([[1.5, -2.0]], dtype=T.float64, requires_grad=True)
        y = x.cdouble(memory_format=T.preserve_format)
        z = x.cfloat(memory_format=T.preserve_format)
        return [str(y.dtype), str(z.dtype), y.grad_fn.name(), T.view_as_real(y)]
    out = both(scenario)
    assert out[:3] == ["torch.complex128", "torch.complex64", "ToCopyBackward0"]
    np.testing.assert_array_equal(out[3], [[[1.5, 0.0], [-2.0, 0.0]]])
    with pytest.raises(NotImplementedError, match="complex32"):
        ndgrad.ones(2).chalf()
