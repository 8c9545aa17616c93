"""dtypes and type promotion: promote_types and result_type for every pair of dtypes, with tensors
that have dimensions, zero-dim tensors and Python scalars, under both default float dtypes —
compared with torch where it is installed; plus the default dtype's effect on inference."""
import itertools

import pytest

import ndgrad
from ndgrad import _dtype

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
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
