"""torch's unsigned 16/32/64-bit dtypes (uint16, uint32, uint64): "barebones" dtypes in torch, stored
and converted, with kernels for only some ops. Their attributes, printing, conversions, promotion (for
every pair of dtypes), serialization, and a table of common ops run on each of them, which must work
where torch's kernels take them and refuse with torch's error where they do not — compared with torch
where it is installed, and with the table's own expectations everywhere."""
import io
import itertools
import pickle

import numpy as np
import pytest

import ndgrad
from ndgrad import _dtype
from parity import both, same_error

try:
    import torch
except ImportError:
    torch = None

UNSIGNED = ["uint16", "uint32", "uint64"]
NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128"] + UNSIGNED
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def outcome(fn):
    """fn()'s result as plain values ([dtype name, values] for a tensor), or [exception type, message]."""
    try:
        return _plain(fn())
    except Exception as e:   # noqa: BLE001 - the tests compare exceptions across libraries
        return [type(e).__name__, str(e)]


def _plain(r):
    if isinstance(r, (list, tuple)):
        return [_plain(v) for v in r]
    if hasattr(r, "dtype") and hasattr(r, "tolist") and not isinstance(r, np.ndarray):
        return [str(r.dtype), r.tolist()]
    return r


def _close(a, b):
    """Outcomes agree: same structure, exceptions and dtypes; floats to float32's precision."""
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or np.isclose(a, b, rtol=1e-6) or (np.isnan(a) and np.isnan(b))
    return a == b


# --- the dtypes ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", UNSIGNED)
def test_dtype_attributes_and_iinfo(name):
    d = getattr(ndgrad, name)
    bits = int(name[4:])
    assert (repr(d), str(d), d.itemsize) == (f"torch.{name}", f"torch.{name}", bits // 8)
    assert not d.is_floating_point and not d.is_signed and not d.is_complex and d.to_real() is d
    assert pickle.loads(pickle.dumps(d)) is d and _dtype.to_dtype(np.dtype(name)) is d
    info = ndgrad.iinfo(d)
    assert (info.min, info.max, info.bits, info.dtype) == (0, 2 ** bits - 1, bits, name)
    assert both(lambda T: [repr(T.iinfo(getattr(T, name))), outcome(lambda: getattr(T, name).to_complex()),
                           outcome(lambda: T.finfo(getattr(T, name)))])[:2] == [
        repr(info), ["RuntimeError", f"Unknown Complex ScalarType for UInt{bits}"]]
    if bits == 32:
        assert repr(info) == "iinfo(min=0, max=4.29497e+09, dtype=uint32)"


def test_integer_dtypes_have_no_complex_counterpart():
    same_error(lambda T: T.int64.to_complex(), RuntimeError)
    same_error(lambda T: T.bool.to_complex(), RuntimeError)
    assert ndgrad.float16.to_complex() is ndgrad.complex64


@needs_torch
def test_promote_types_matches_torch_for_every_pair():
    pairs = [(a, b) for a, b in itertools.product(NAMES, NAMES) if a in UNSIGNED or b in UNSIGNED]
    for a, b in pairs:
        ours = outcome(lambda: repr(ndgrad.promote_types(getattr(ndgrad, a), getattr(ndgrad, b))))
        theirs = outcome(lambda: str(torch.promote_types(getattr(torch, a), getattr(torch, b))))
        assert ours == theirs, (a, b)


def test_promotion_refuses_every_other_integer_bool_and_complex():
    msg = "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote UInt16 and Long"
    assert same_error(lambda T: T.promote_types(T.uint16, T.int64)) == msg
    assert same_error(lambda T: T.promote_types(T.bool, T.uint32)).endswith("promote Bool and UInt32")
    same_error(lambda T: T.promote_types(T.uint64, T.complex64))
    assert ndgrad.promote_types(ndgrad.uint64, ndgrad.float16) is ndgrad.float16
    assert ndgrad.promote_types(ndgrad.uint32, ndgrad.uint32) is ndgrad.uint32


@pytest.mark.parametrize("name", UNSIGNED)
def test_result_type_with_zero_dim_tensors_and_scalars(name):
    def scenario(T):
        d = getattr(T, name)
        x, z = T.ones(2, dtype=d), T.ones((), dtype=d)
        others = [2, True, 2.5, 1j, T.tensor(3), T.tensor(3.0), T.tensor([3]), T.tensor([3.0]), T.tensor([True])]
        return [outcome(lambda: str(T.result_type(a, b))) for o in others for a, b in ((x, o), (o, x), (z, o))]
    got = both(scenario)
    assert got[:3] == [f"torch.{name}"] * 3 and got[6] == "torch.float32"       # int scalar: stays; float: lifts
    assert got[18][0] == "RuntimeError" and got[20] == "torch.int64"   # [3] with x: refused; with zero-dim z: int64


# --- tensors of them -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", UNSIGNED)
def test_creation_conversion_and_printing(name):
    def scenario(T):
        d = getattr(T, name)
        top = T.iinfo(d).max
        x = T.tensor([[1, 2, 3], [4, 5, top]], dtype=d)
        return [repr(x), str(x[0, 0]), repr(x[:0]), repr(T.zeros(300, dtype=d)), x.type(), x.element_size(),
                x.is_signed(), x.is_floating_point(), x.numpy().dtype.name, x.numpy().tolist(),
                repr(T.from_numpy(np.array([1, top], dtype=name))), repr(T.as_tensor(np.array([3], dtype=name))),
                repr(T.tensor([1.7, 2.2]).to(d)), repr(T.tensor([-1]).to(d)), repr(x.to(T.float64)), repr(x.long()),
                repr(x.to(T.uint8)), x[1, 2].item(), x.tolist(), repr(x.new_zeros(2)), repr(T.full((2,), 7, dtype=d)),
                repr(x.view(T.uint8)), repr(T.tensor(np.arange(3)).to(d).t())]
    got = both(scenario)
    top = 2 ** int(name[4:]) - 1
    assert got[17] == top and got[8] == name and got[4] == f"torch.UInt{name[4:]}Tensor"
    assert got[0].endswith(f"dtype=torch.{name})") and str(top) in got[0]


@pytest.mark.parametrize("data,name", [([2 ** 64 - 1], "uint64"), ([2 ** 64], "uint64"), ([-1], "uint64"),
                                       ([1.5], "uint64"), ([], "uint64"), ([[1, 2 ** 63], [3, 4]], "uint64"),
                                       ([-1], "uint16"), ([70000], "uint16"), ([2 ** 32], "uint32"),
                                       ([-1.5], "uint32"), ([-0.0], "uint16"), ([255.5], "uint16"),
                                       ([-1.0], "uint8")])
def test_tensor_from_python_numbers_checks_their_range_like_torch(data, name):
    got = both(lambda T: outcome(lambda: T.tensor(data, dtype=getattr(T, name))))
    if data == [2 ** 64 - 1]:
        assert got == ["torch.uint64", [2 ** 64 - 1]]
    if data == [2 ** 64]:
        assert got == ["OverflowError", "int too big to convert"]


def test_from_numpy_names_the_unsigned_dtypes_among_the_supported():
    message = same_error(lambda T: T.from_numpy(np.array(["a"])), TypeError)
    assert "int8, uint64, uint32, uint16, uint8, and bool" in message


@pytest.mark.parametrize("name", UNSIGNED)
def test_requires_grad_is_refused_as_for_every_integer_dtype(name):
    msg = same_error(lambda T: T.tensor([1, 2], dtype=getattr(T, name), requires_grad=True))
    assert msg == "Only Tensors of floating point and complex dtype can require gradients"
    assert same_error(lambda T: T.tensor([1], dtype=getattr(T, name)).requires_grad_()) == \
        "only Tensors of floating point dtype can require gradients"
    same_error(lambda T: T.zeros(2, dtype=getattr(T, name), requires_grad=True))
    same_error(lambda T: T.full((2,), 3, dtype=getattr(T, name), requires_grad=True))


@pytest.mark.parametrize("name", UNSIGNED)
def test_save_and_load_in_torchs_format(name, tmp_path):
    d = getattr(ndgrad, name)
    top = ndgrad.iinfo(d).max
    x = ndgrad.tensor([[1, 2, 3], [4, 5, top]], dtype=d)
    buffer = io.BytesIO()
    ndgrad.save({"x": x, "xt": x.t(), "f": ndgrad.ones(2)}, buffer)
    buffer.seek(0)
    back = ndgrad.load(buffer)
    assert back["x"].dtype is d and back["x"].tolist() == x.tolist() and back["xt"].tolist() == x.t().tolist()
    if torch is not None:   # torch reads ndgrad's file, and ndgrad torch's
        buffer.seek(0)
        theirs = torch.load(buffer)
        assert theirs["x"].dtype == getattr(torch, name) and theirs["xt"].tolist() == x.t().tolist()
        buffer = io.BytesIO()
        torch.save({"y": torch.tensor([7, top], dtype=getattr(torch, name))[1:]}, buffer)
        buffer.seek(0)
        y = ndgrad.load(buffer)["y"]
        assert y.dtype is d and y.tolist() == [top]


@pytest.mark.parametrize("name", UNSIGNED)
def test_safetensors_round_trip(name, tmp_path):
    pytest.importorskip("safetensors")
    from ndgrad.serialization import load_safetensors, save_safetensors
    d = getattr(ndgrad, name)
    x = ndgrad.tensor([0, 1, ndgrad.iinfo(d).max], dtype=d)
    save_safetensors({"x": x}, tmp_path / "a.safetensors")
    back = load_safetensors(tmp_path / "a.safetensors")["x"]
    assert back.dtype is d and back.tolist() == x.tolist()
    if torch is not None:
        from safetensors.torch import load_file
        assert load_file(tmp_path / "a.safetensors")["x"].tolist() == x.tolist()
