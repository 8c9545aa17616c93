"""torch's unsigned 16/32/64-bit dtypes (uint16, uint32, uint64): "barebones" dtypes in torch, stored
and converted, with kernels for only some ops. Their attributes, printing, conversions, promotion (for
every pair of dtypes), serialization, and a table of common ops run on each of them, which must work
where torch's kernels take them and refuse with torch's error where they do not — compared with torch
where it is installed, and with the table's own expectations everywhere."""
import io
import itertools
import pickle
import warnings

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
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # torch.range's deprecation...
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


def _overflow(name):
    return ["RuntimeError", f"value cannot be converted to type {name} without overflow"]


@pytest.mark.parametrize("data,name,expected", [
    ([2 ** 64 - 1], "uint64", ["torch.uint64", [2 ** 64 - 1]]),
    ([[1, 2 ** 63], [3, 4]], "uint64", ["torch.uint64", [[1, 2 ** 63], [3, 4]]]),
    ([], "uint64", ["torch.uint64", []]),
    ([2 ** 64], "uint64", ["OverflowError", "int too big to convert"]),
    ([-1], "uint64", ["OverflowError", "can't convert negative int to unsigned"]),
    ([1.5], "uint64", ["TypeError", "an integer is required"]),
    ([-1], "uint16", ["torch.uint16", [65535]]),      # negative ints wrap, down to -max
    ([-0.0], "uint16", ["torch.uint16", [0]]),
    ([255.5], "uint16", ["torch.uint16", [255]]),
    ([70000], "uint16", _overflow("uint16")),
    ([2 ** 32], "uint32", _overflow("uint32")),
    ([-1.5], "uint32", _overflow("uint32")),          # negative floats never wrap
    ([-1.0], "uint8", _overflow("uint8")),
])
def test_tensor_from_python_numbers_checks_their_range_like_torch(data, name, expected):
    assert both(lambda T: outcome(lambda: T.tensor(data, dtype=getattr(T, name)))) == expected


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


# --- which ops take them ---------------------------------------------------------------------------------
def _set(t, i, v):
    t[i] = v
    return t


# (name, call on x: a 2x3 tensor of unsigned dtype d in library T, what torch does): None, it works; a
# kernel's name, it raises NotImplementedError('"<kernel>" not implemented for 'UInt16''); an exception
# type's name, it raises that (promotion refused, a dtype check of the op's own). Not listed, as known
# differences: the random fills (uniform_, bernoulli, exponential_...), which give ndgrad's own messages.
OPS = [
    # reductions that take them but compute in int64 refuse to write an unsigned result
    ("sum_into", lambda T, x, d: T.ones(3, dtype=T.int64).sum(dtype=d), "sum_cpu"),
    ("sum_dim_into", lambda T, x, d: x.sum(0, dtype=d), "sum_cpu"),
    ("nansum_into", lambda T, x, d: x.nansum(dtype=d), "sum_cpu"),
    ("prod_into", lambda T, x, d: x.prod(1, dtype=d), "prod_out_cpu"),
    ("cumsum_into", lambda T, x, d: x.long().cumsum(0, dtype=d), "cumsum_out_cpu"),
    ("cumsum_", lambda T, x, d: x.clone().cumsum_(0), "cumsum_out_cpu"),
    ("cumprod_", lambda T, x, d: x.clone().cumprod_(1), "cumprod_out_cpu"),
    ("sum_float_into", lambda T, x, d: x.float().sum(dtype=d), "sum_cpu"),
    ("zeros", lambda T, x, d: T.zeros(2, 3, dtype=d), None),
    ("ones", lambda T, x, d: T.ones(2, 3, dtype=d), None),
    ("full", lambda T, x, d: T.full((2,), 7, dtype=d), None),
    ("empty_shape", lambda T, x, d: T.empty(2, 3, dtype=d).shape, None),
    ("arange", lambda T, x, d: T.arange(5, dtype=d), "arange_cpu"),
    ("arange_step", lambda T, x, d: T.arange(1, 9, 3, dtype=d), "arange_cpu"),
    ("linspace", lambda T, x, d: T.linspace(0, 10, 5, dtype=d), "linspace_cpu"),
    ("eye", lambda T, x, d: T.eye(3, dtype=d), "eye"),
    ("zeros_like", lambda T, x, d: T.zeros_like(x), None),
    ("ones_like", lambda T, x, d: T.ones_like(x), None),
    ("full_like", lambda T, x, d: T.full_like(x, 9), None),
    ("empty_like", lambda T, x, d: T.empty_like(x).shape, None),
    ("randint", lambda T, x, d: T.randint(0, 5, (3,), dtype=d).shape, None),
    ("tensor_max", lambda T, x, d: T.tensor([T.iinfo(d).max], dtype=d), None),
    ("as_tensor", lambda T, x, d: T.as_tensor([1, 2], dtype=d), None),
    ("clone", lambda T, x, d: x.clone(), None),
    ("contiguous", lambda T, x, d: x.t().contiguous(), None),
    ("fill_", lambda T, x, d: x.clone().fill_(4), None),
    ("zero_", lambda T, x, d: x.clone().zero_(), None),
    ("tril", lambda T, x, d: T.tril(x), "tril"),
    ("triu", lambda T, x, d: T.triu(x), "triu"),
    ("to_float", lambda T, x, d: x.to(T.float32), None),
    ("to_int64", lambda T, x, d: x.to(T.int64), None),
    ("to_bool", lambda T, x, d: x.bool(), None),
    ("float_to", lambda T, x, d: T.tensor([1.7, 3.2]).to(d), None),
    ("int_to", lambda T, x, d: T.tensor([1, 3]).to(d), None),
    ("tolist", lambda T, x, d: x.tolist(), None),
    ("item", lambda T, x, d: x[0, 0].item(), None),
    ("numpy", lambda T, x, d: str(x.numpy().dtype), None),
    ("double", lambda T, x, d: x.double(), None),
    ("long", lambda T, x, d: x.long(), None),
    ("add", lambda T, x, d: x + x, "add_stub"),
    ("add_scalar", lambda T, x, d: x + 1, "add_stub"),
    ("add_float", lambda T, x, d: x + 1.5, None),
    ("sub", lambda T, x, d: x - x, "add_stub"),
    ("mul", lambda T, x, d: x * x, None),
    ("mul_scalar", lambda T, x, d: x * 2, None),
    ("div", lambda T, x, d: T.div(x, 2), None),
    ("div_tensor", lambda T, x, d: x / x, None),
    ("div_floor", lambda T, x, d: T.div(x, 2, rounding_mode="floor"), "div_floor_cpu"),
    ("div_trunc", lambda T, x, d: T.div(x, 2, rounding_mode="trunc"), "div_trunc_cpu"),
    ("floor_divide", lambda T, x, d: x // 2, "div_floor_cpu"),
    ("floor_divide_t", lambda T, x, d: T.floor_divide(x, x), "div_floor_cpu"),
    ("remainder", lambda T, x, d: x % 2, "remainder_cpu"),
    ("fmod", lambda T, x, d: T.fmod(x, 2), "fmod_cpu"),
    ("pow", lambda T, x, d: x ** 2, "pow"),
    ("pow_t", lambda T, x, d: T.pow(x, x), "pow"),
    ("neg", lambda T, x, d: -x, "neg_cpu"),
    ("abs", lambda T, x, d: T.abs(x), "abs_cpu"),
    ("sign", lambda T, x, d: T.sign(x), "sign_cpu"),
    ("square", lambda T, x, d: T.square(x), "pow"),
    ("sqrt", lambda T, x, d: T.sqrt(x), None),
    ("exp", lambda T, x, d: T.exp(x), None),
    ("sin", lambda T, x, d: T.sin(x), None),
    ("reciprocal", lambda T, x, d: T.reciprocal(x), None),
    ("addcmul", lambda T, x, d: T.addcmul(x, x, x), "addcmul_cpu_out"),
    ("lerp", lambda T, x, d: T.lerp(x, x, 0.5), "lerp_kernel_scalar"),
    ("mul_", lambda T, x, d: x.clone().mul_(3), None),
    ("add_", lambda T, x, d: x.clone().add_(3), "add_stub"),
    ("matmul", lambda T, x, d: x @ x.t(), "addmm_impl_cpu_"),
    ("dot", lambda T, x, d: T.dot(x[0], x[1]), "dot"),
    ("eq", lambda T, x, d: x == 3, None),
    ("eq_t", lambda T, x, d: x == x, None),
    ("ne", lambda T, x, d: x != 3, None),
    ("lt", lambda T, x, d: x < 3, "lt_cpu"),
    ("le", lambda T, x, d: x <= 3, "le_cpu"),
    ("gt", lambda T, x, d: x > 3, "gt_cpu"),
    ("ge", lambda T, x, d: x >= 3, "ge_cpu"),
    ("lt_t", lambda T, x, d: x < x, "lt_cpu"),
    ("maximum", lambda T, x, d: T.maximum(x, x), "maximum_cpu"),
    ("minimum", lambda T, x, d: T.minimum(x, x), "minimum_cpu"),
    ("equal", lambda T, x, d: T.equal(x, x), None),
    ("isclose", lambda T, x, d: T.isclose(x, x), None),
    ("allclose", lambda T, x, d: T.allclose(x, x), None),
    ("isnan", lambda T, x, d: T.isnan(x), None),
    ("isfinite", lambda T, x, d: T.isfinite(x), None),
    ("and", lambda T, x, d: x & x, None),
    ("or", lambda T, x, d: x | 1, None),
    ("xor", lambda T, x, d: x ^ x, None),
    ("not", lambda T, x, d: ~x, "bitwise_not_cpu"),
    ("lshift", lambda T, x, d: x << 1, "lshift_cpu"),
    ("rshift", lambda T, x, d: x >> 1, "rshift_cpu"),
    ("lshift_t", lambda T, x, d: x << x, "lshift_cpu"),
    ("logical_and", lambda T, x, d: T.logical_and(x, x), "logical_and_cpu"),
    ("logical_not", lambda T, x, d: T.logical_not(x), "logical_not_cpu"),
    ("sum", lambda T, x, d: x.sum(), None),
    ("sum_dim", lambda T, x, d: x.sum(1), None),
    ("sum_dtype", lambda T, x, d: x.sum(dtype=T.int64), None),
    ("prod", lambda T, x, d: x.prod(), None),
    ("mean", lambda T, x, d: x.mean(), "RuntimeError"),
    ("mean_float", lambda T, x, d: x.mean(dtype=T.float32), None),
    ("max", lambda T, x, d: x.max(), "max_all"),
    ("min", lambda T, x, d: x.min(), "min_all"),
    ("max_dim", lambda T, x, d: list(x.max(1)), "max_cpu"),
    ("min_dim", lambda T, x, d: list(x.min(0)), "min_cpu"),
    ("amax", lambda T, x, d: T.amax(x, 1), "max_values_cpu"),
    ("amin", lambda T, x, d: T.amin(x, 1), "min_values_cpu"),
    ("aminmax", lambda T, x, d: list(T.aminmax(x)), "aminmax_cpu"),
    ("argmax", lambda T, x, d: x.argmax(), "argmax_cpu"),
    ("argmin", lambda T, x, d: x.argmin(), "argmin_cpu"),
    ("any", lambda T, x, d: x.any(), None),
    ("all", lambda T, x, d: x.all(), None),
    ("cumsum", lambda T, x, d: x.cumsum(1), None),
    ("cumprod", lambda T, x, d: x.cumprod(1), None),
    ("count_nonzero", lambda T, x, d: T.count_nonzero(x), "nonzero_count_cpu"),
    ("nonzero", lambda T, x, d: x.nonzero(), "nonzero_count_cpu"),
    ("unique", lambda T, x, d: T.unique(x), None),
    ("bincount", lambda T, x, d: T.bincount(x.flatten()), "bincount_cpu"),
    ("std", lambda T, x, d: x.std(), "RuntimeError"),
    ("norm", lambda T, x, d: x.norm(), "RuntimeError"),
    ("median", lambda T, x, d: x.median(), "median_cpu"),
    ("kthvalue", lambda T, x, d: list(x.kthvalue(1)), "kthvalue_cpu"),
    ("mode", lambda T, x, d: list(x.mode()), "mode_cpu"),
    ("logsumexp", lambda T, x, d: T.logsumexp(x, 1), None),
    ("getitem_int", lambda T, x, d: x[1], None),
    ("getitem_slice", lambda T, x, d: x[:, 1:], None),
    ("getitem_list", lambda T, x, d: x[[1, 0]], None),
    ("getitem_mask", lambda T, x, d: x[T.tensor([[True, False, True], [False, True, False]])], None),
    ("setitem", lambda T, x, d: _set(x.clone(), 0, 9), None),
    ("setitem_t", lambda T, x, d: _set(x.clone(), (0, 1), T.tensor(9, dtype=d)), None),
    ("index_select", lambda T, x, d: T.index_select(x, 1, T.tensor([2, 0])), None),
    ("gather", lambda T, x, d: T.gather(x, 1, T.tensor([[0, 0], [1, 2]])), "scatter_gather_tensor_cpu"),
    ("scatter", lambda T, x, d: T.zeros(2, 3, dtype=d).scatter(1, T.tensor([[0], [2]]), x[:, :1]),
     "scatter_gather_tensor_cpu"),
    ("scatter_add", lambda T, x, d: T.zeros(2, 3, dtype=d).scatter_add(1, T.tensor([[0], [2]]), x[:, :1]),
     "scatter_gather_tensor_cpu"),
    ("index_add", lambda T, x, d: T.zeros(2, 3, dtype=d).index_add(0, T.tensor([1, 0]), x),
     "scatter_gather_tensor_cpu"),
    ("index_put", lambda T, x, d: x.clone().index_put_((T.tensor([0]),), T.tensor(7, dtype=d)), "index_put"),
    ("index_fill", lambda T, x, d: x.index_fill(1, T.tensor([0]), 5), "index_fill_cpu"),
    ("masked_fill", lambda T, x, d: x.masked_fill(T.tensor([True, False, True]), 5), "masked_fill"),
    ("masked_select", lambda T, x, d: T.masked_select(x, T.tensor([True, False, True])), "masked_select"),
    ("take", lambda T, x, d: T.take(x, T.tensor([0, 5])), "take_cpu"),
    ("where", lambda T, x, d: T.where(T.tensor([True, False, True]), x, x), None),
    ("where_scalar", lambda T, x, d: T.where(T.tensor([True, False, True]), x, 0), None),
    ("cat", lambda T, x, d: T.cat([x, x]), None),
    ("cat_mixed", lambda T, x, d: T.cat([x, x.long()]), "RuntimeError"),
    ("stack", lambda T, x, d: T.stack([x, x], 1), None),
    ("view", lambda T, x, d: x.view(3, 2), None),
    ("view_dtype", lambda T, x, d: x.view({2: T.int16, 4: T.int32, 8: T.int64}[d.itemsize]), None),
    ("reshape", lambda T, x, d: x.reshape(-1), None),
    ("flatten", lambda T, x, d: x.flatten(), None),
    ("transpose", lambda T, x, d: x.transpose(0, 1), None),
    ("permute", lambda T, x, d: x.permute(1, 0), None),
    ("unsqueeze", lambda T, x, d: x.unsqueeze(0), None),
    ("squeeze", lambda T, x, d: x[:1].squeeze(), None),
    ("expand", lambda T, x, d: x[:1].expand(3, 3), None),
    ("repeat", lambda T, x, d: x.repeat(2, 1), None),
    ("flip", lambda T, x, d: x.flip(1), "flip_cpu"),
    ("roll", lambda T, x, d: x.roll(1, 1), None),
    ("chunk", lambda T, x, d: list(x.chunk(3, 1)), None),
    ("split", lambda T, x, d: list(x.split(1)), None),
    ("narrow", lambda T, x, d: x.narrow(1, 1, 2), None),
    ("unbind", lambda T, x, d: list(x.unbind()), None),
    ("movedim", lambda T, x, d: x.movedim(0, 1), None),
    ("diag", lambda T, x, d: T.diag(x[0]), None),
    ("diagonal", lambda T, x, d: x.diagonal(), None),
    ("pad", lambda T, x, d: T.nn.functional.pad(x, (1, 1)), None),
    ("repeat_interleave", lambda T, x, d: x.repeat_interleave(2, 0), None),
    ("tile", lambda T, x, d: x.tile(2), None),
    ("sort", lambda T, x, d: list(T.sort(x, 1)), None),
    ("argsort", lambda T, x, d: T.argsort(x, 1), None),
    ("topk", lambda T, x, d: list(T.topk(x, 2)), "topk_cpu"),
    ("msort", lambda T, x, d: T.msort(x), None),
    ("searchsorted", lambda T, x, d: T.searchsorted(T.tensor([1, 3, 5], dtype=d), x), "searchsorted_out_cpu"),
    ("clamp", lambda T, x, d: T.clamp(x, 1, 3), "clamp_scalar_cpu"),
    ("clamp_min", lambda T, x, d: T.clamp(x, min=2), "clamp_min_scalar_cpu"),
    ("clip", lambda T, x, d: x.clip(max=2), "clamp_max_scalar_cpu"),
    ("clamp_t", lambda T, x, d: T.clamp(x, x, x), "clamp_cpu"),
    ("range", lambda T, x, d: T.range(0, 3, dtype=d), "range_cpu"),
    ("logspace", lambda T, x, d: T.logspace(0, 2, 3, dtype=d), "logspace_cpu"),
    ("scalar_tensor", lambda T, x, d: T.scalar_tensor(3, dtype=d), None),
    ("tril_indices", lambda T, x, d: T.tril_indices(3, 3, dtype=d), "tril_indices"),
    ("empty_strided", lambda T, x, d: T.empty_strided((2,), (1,), dtype=d).shape, None),
    ("full_float", lambda T, x, d: T.full((2,), 1.5, dtype=d), None),
    ("randint_like", lambda T, x, d: str(T.randint_like(x, 3).dtype), None),
    ("new_full", lambda T, x, d: x.new_full((2,), 3), None),
    ("new_ones", lambda T, x, d: x.new_ones(2), None),
    ("new_empty", lambda T, x, d: x.new_empty(2).shape, None),
    ("new_tensor", lambda T, x, d: x.new_tensor([1, 2]), None),
    ("zeros_like_dtype", lambda T, x, d: T.zeros_like(T.ones(2), dtype=d), None),
    ("full_like_dtype", lambda T, x, d: T.full_like(T.ones(2), 2, dtype=d), None),
    ("random_", lambda T, x, d: x.clone().random_(0, 3).shape, None),
    ("frombuffer", lambda T, x, d: T.frombuffer(bytearray(8), dtype=d), None),
    ("type_conv", lambda T, x, d: x.type(T.int32), None),
    ("float", lambda T, x, d: x.float(), None),
    ("int", lambda T, x, d: x.int(), None),
    ("byte", lambda T, x, d: x.byte(), None),
    ("half", lambda T, x, d: x.half(), None),
    ("bf16", lambda T, x, d: x.bfloat16().float(), None),
    ("cfloat", lambda T, x, d: x.cfloat(), None),
    ("trunc", lambda T, x, d: x.trunc(), None),
    ("floor", lambda T, x, d: x.floor(), None),
    ("ceil", lambda T, x, d: x.ceil(), None),
    ("round", lambda T, x, d: x.round(), None),
    ("frac", lambda T, x, d: x.frac(), "frac_cpu"),
    ("nan_to_num", lambda T, x, d: x.nan_to_num(), None),
    ("logical_or", lambda T, x, d: x.logical_or(x), "logical_or_cpu"),
    ("logical_xor", lambda T, x, d: x.logical_xor(x), "logical_xor_cpu"),
    ("and_scalar", lambda T, x, d: x & 3, None),
    ("rand_scalar", lambda T, x, d: 3 & x, None),
    ("rmul", lambda T, x, d: 3 * x, None),
    ("radd", lambda T, x, d: 1 + x, "add_stub"),
    ("rsub", lambda T, x, d: 1 - x, "add_stub"),
    ("rtruediv", lambda T, x, d: 6 / x, None),
    ("rpow", lambda T, x, d: 2 ** x, "pow"),
    ("iadd", lambda T, x, d: x.clone().__iadd__(1), "add_stub"),
    ("imul", lambda T, x, d: x.clone().__imul__(2), None),
    ("imul_f", lambda T, x, d: x.clone().__imul__(1.5), "RuntimeError"),
    ("iand", lambda T, x, d: x.clone().__iand__(1), None),
    ("masked_scatter", lambda T, x, d: x.masked_scatter(T.tensor([True, False, True]), x), "masked_scatter"),
    ("index_copy", lambda T, x, d: x.index_copy(0, T.tensor([1, 0]), x), "index_copy_cpu"),
    ("put_", lambda T, x, d: x.clone().put_(T.tensor([0]), T.tensor([9], dtype=d)), "take_put_cpu"),
    ("rot90", lambda T, x, d: x.rot90(), "flip_cpu"),
    ("outer", lambda T, x, d: T.outer(x[0], x[0]), None),
    ("diff", lambda T, x, d: T.diff(x), "add_stub"),
    ("unfold", lambda T, x, d: x.unfold(1, 2, 1), None),
    ("isin", lambda T, x, d: T.isin(x, x), "isin_default_cpu"),
    ("histc", lambda T, x, d: T.histc(x), "aminmax_cpu"),
    ("where_float", lambda T, x, d: T.where(T.tensor([True, False, True]), x, 1.5), None),
    ("masked_fill_f", lambda T, x, d: x.masked_fill(T.tensor([True, False, True]), 1.5), "masked_fill"),
    ("abs_", lambda T, x, d: x.clone().abs_(), "abs_cpu"),
    ("neg_", lambda T, x, d: x.clone().neg_(), "neg_cpu"),
    ("eq_float", lambda T, x, d: x == 1.5, None),
    ("sum_keepdim", lambda T, x, d: x.sum(1, keepdim=True), None),
    ("nansum", lambda T, x, d: x.nansum(), None),
    ("prod_dim", lambda T, x, d: x.prod(1), None),
    ("cummax", lambda T, x, d: list(T.cummax(x, 1)), "cummax_cpu"),
    ("logcumsumexp", lambda T, x, d: T.logcumsumexp(x, 1), "logcumsumexp_out_cpu"),
    ("unique_consecutive", lambda T, x, d: T.unique_consecutive(x), None),
    ("argwhere", lambda T, x, d: T.argwhere(x), "nonzero_count_cpu"),
    ("var", lambda T, x, d: x.var(), "RuntimeError"),
    ("equal_mixed", lambda T, x, d: T.equal(x, x.long()), "RuntimeError"),
    ("ne_t", lambda T, x, d: x != x, None),
    ("hstack", lambda T, x, d: T.hstack([x, x]), None),
    ("vstack", lambda T, x, d: T.vstack([x, x]), None),
    ("block_diag", lambda T, x, d: T.block_diag(x, x), None),
    ("cartesian_prod", lambda T, x, d: T.cartesian_prod(x[0], x[1]), None),
    ("broadcast_to", lambda T, x, d: T.broadcast_to(x[0], (2, 3)), None),
    ("take_along_dim", lambda T, x, d: T.take_along_dim(x, T.tensor([[0], [1]]), 1), "scatter_gather_tensor_cpu"),
    ("scatter_reduce", lambda T, x, d: T.zeros(3, dtype=d).scatter_reduce(0, T.tensor([0, 1]), x[0, :2], "sum"),
     "scatter_gather_tensor_cpu"),
    ("count_nonzero_dim", lambda T, x, d: T.count_nonzero(x, 1), None),
    ("trace", lambda T, x, d: T.trace(x), "trace"),
    ("kron", lambda T, x, d: T.kron(x, x), None),
    ("sgn", lambda T, x, d: T.sgn(x), "sign_cpu"),
    ("copysign", lambda T, x, d: T.copysign(x, x), None),
    ("gcd", lambda T, x, d: T.gcd(x, x), "gcd_cpu"),
    ("bitwise_and_", lambda T, x, d: x.clone().bitwise_and_(x), None),
    ("xlogy", lambda T, x, d: T.xlogy(x, x), None),
    ("hypot", lambda T, x, d: T.hypot(x, x), "hypot_cpu"),
    ("atan2", lambda T, x, d: T.atan2(x, x), None),
    ("heaviside", lambda T, x, d: T.heaviside(x, x), "heaviside_cpu"),
    ("positive", lambda T, x, d: T.positive(x), None),
    ("conj", lambda T, x, d: x.conj(), None),
    ("real", lambda T, x, d: x.real, None),
    ("fliplr", lambda T, x, d: x.fliplr(), "flip_cpu"),
    ("mul_t_int", lambda T, x, d: x * T.tensor(2), None),
    ("mul_zero_dim_u", lambda T, x, d: x * T.tensor(2, dtype=d), None),
    ("float_pow", lambda T, x, d: x ** 2.0, None),
    ("pow0", lambda T, x, d: x ** 0, None),
    ("pow1", lambda T, x, d: x ** 1, None),
    ("add_bool_zero_dim", lambda T, x, d: x + T.tensor(True), "add_stub"),
    ("mul_bool_dim", lambda T, x, d: x * T.tensor([True, False, True]), "RuntimeError"),
    ("add_float_t", lambda T, x, d: x + T.ones(3), None),
    ("mul_mixed_u", lambda T, x, d: x * T.ones(3, dtype=T.uint16 if d != T.uint16 else T.uint32), "RuntimeError"),
    ("cumsum_dtype", lambda T, x, d: x.cumsum(0, dtype=T.float64), None),
    ("softmax", lambda T, x, d: x.softmax(0), "softmax_kernel_impl"),
    ("sum_all_dim", lambda T, x, d: x.sum((0, 1)), None),
    ("mean_dim", lambda T, x, d: x.mean(0), "RuntimeError"),
    ("any_dim", lambda T, x, d: x.any(1), None),
    ("all_dim", lambda T, x, d: x.all(0), None),
    ("unique_inverse", lambda T, x, d: list(T.unique(x, return_inverse=True)), None),
    ("setitem_slice", lambda T, x, d: _set(x.clone(), (slice(None), 0), T.tensor([7, 8], dtype=d)), None),
    ("setitem_list", lambda T, x, d: _set(x.clone(), [1], 0), "index_put"),
    ("setitem_mask", lambda T, x, d: _set(x.clone(), T.tensor([[True, False, True], [False] * 3]), 4),
     "masked_fill"),
    ("copy_", lambda T, x, d: T.zeros(2, 3).copy_(x), None),
    ("copy_into", lambda T, x, d: x.clone().copy_(T.ones(2, 3)), None),
    ("copy_into_int", lambda T, x, d: x.clone().copy_(T.tensor([1, 2, 3])), None),
    ("as_strided", lambda T, x, d: x.as_strided((2, 2), (1, 2)), None),
    ("detach", lambda T, x, d: x.detach(), None),
    ("to_same", lambda T, x, d: x.to(d) is x, None),
    ("expand_as", lambda T, x, d: x[:1].expand_as(x), None),
    ("dist", lambda T, x, d: T.dist(x, x), "add_stub"),
    ("tensordot", lambda T, x, d: T.tensordot(x, x.t(), 1), "addmm_impl_cpu_"),
    ("sum_int8_dtype", lambda T, x, d: x.sum(dtype=T.int8), None),
    ("prod_dtype_float", lambda T, x, d: x.prod(dtype=T.float32), None),
    ("select_scatter", lambda T, x, d: T.select_scatter(x, x[0], 0, 1), None),
    ("slice_scatter", lambda T, x, d: T.slice_scatter(x, x[:1], 0, 0, 1), None),
    ("diagonal_scatter", lambda T, x, d: T.diagonal_scatter(x, x[0, :2]), None),
    ("as_strided_scatter", lambda T, x, d: T.as_strided_scatter(x, x[0, :2], (2,), (1,)), None),
    ("channel_shuffle", lambda T, x, d: T.nn.functional.channel_shuffle(x.reshape(1, 2, 3, 1), 2), "channel_shuffle"),
    ("pixel_shuffle", lambda T, x, d: T.nn.functional.pixel_shuffle(T.zeros(1, 4, 1, 1, dtype=d), 2), "pixel_shuffle"),
    ("bucketize", lambda T, x, d: T.bucketize(x, T.tensor([1, 3], dtype=d)), "searchsorted_out_cpu"),
    ("index_reduce", lambda T, x, d: x.index_reduce(0, T.tensor([0, 0]), x, "prod"), None),
    ("one_hot", lambda T, x, d: T.nn.functional.one_hot(x), "RuntimeError"),
    ("fill", lambda T, x, d: T.fill(x, 3), None),
    ("embedding", lambda T, x, d: T.nn.functional.embedding(T.tensor([1]), x), None),
    ("nonzero_tuple", lambda T, x, d: x.nonzero(as_tuple=True), "nonzero_count_cpu"),
    ("unsafe_split", lambda T, x, d: x.unsafe_split(1), None),
    ("eq_", lambda T, x, d: x.clone().eq_(3), None),
    ("ne_", lambda T, x, d: x.clone().ne_(3), None),
    ("lt_", lambda T, x, d: x.clone().lt_(3), "lt_cpu"),
    ("sort_stable", lambda T, x, d: T.sort(x, stable=True), None),
    ("log_softmax", lambda T, x, d: x.log_softmax(1), "log_softmax_lastdim_kernel_impl"),
    ("softmax1", lambda T, x, d: x.softmax(1), "softmax_lastdim_kernel_impl"),
    ("relu", lambda T, x, d: T.relu(x), "clamp_min_scalar_cpu"),
    ("values", lambda T, x, d: x.values(), "RuntimeError"),
    ("nanmedian", lambda T, x, d: x.nanmedian(), "median_cpu"),
    ("lcm", lambda T, x, d: T.lcm(x, x), "lcm_cpu"),
    ("angle", lambda T, x, d: x.angle(), None),
    ("deg2rad", lambda T, x, d: x.deg2rad(), None),
    ("fmax", lambda T, x, d: T.fmax(x, x), "maximum_cpu"),
    ("nextafter", lambda T, x, d: T.nextafter(x, x), "nextafter_cpu"),
    ("conj_physical", lambda T, x, d: T.conj_physical(x), None),
    ("linear", lambda T, x, d: T.nn.functional.linear(x, x), "addmm_impl_cpu_"),
    ("cross", lambda T, x, d: T.linalg.cross(x, x), "cross"),
    ("vdot", lambda T, x, d: T.vdot(x[0], x[0]), "dot"),
    ("addr", lambda T, x, d: T.addr(x, x[:, 0], x[0]), "addr_cpu"),
    ("max_other", lambda T, x, d: T.max(x, x), "maximum_cpu"),
    ("topk1", lambda T, x, d: T.topk(x, 1), "topk_cpu"),
    ("unique_dim", lambda T, x, d: T.unique(x, dim=0), None),
    ("unique_consec_dim", lambda T, x, d: T.unique_consecutive(x, dim=0), None),
    ("polar", lambda T, x, d: T.polar(x, x), "RuntimeError"),
    ("complex", lambda T, x, d: T.complex(x, x), "RuntimeError"),
    ("frexp", lambda T, x, d: T.frexp(x), "RuntimeError"),
    ("ldexp", lambda T, x, d: T.ldexp(x, x), None),
    ("i0", lambda T, x, d: T.i0(x), None),
    ("erfinv", lambda T, x, d: T.erfinv(x), None),
    ("logit", lambda T, x, d: T.logit(x), None),
    ("sinc", lambda T, x, d: T.sinc(x), None),
    ("rsqrt", lambda T, x, d: T.rsqrt(x), None),
    ("relu_", lambda T, x, d: T.relu_(x.clone()), "clamp_min_scalar_cpu"),
    ("threshold", lambda T, x, d: T.threshold(x, 1, 0), "threshold_cpu"),
    ("hardtanh", lambda T, x, d: T.nn.functional.hardtanh(x), "clamp_scalar_cpu"),
    ("leaky_relu", lambda T, x, d: T.nn.functional.leaky_relu(x), "leaky_relu_cpu"),
    ("matrix_power", lambda T, x, d: T.linalg.matrix_power(x[:, :2], 2), "addmm_impl_cpu_"),
    ("mv", lambda T, x, d: T.mv(x, x[0]), "addmv_impl_cpu"),
    ("bmm", lambda T, x, d: T.bmm(x[None], x.t()[None]), "bmm"),
    ("div_scalar", lambda T, x, d: T.div(x, 2), None),
    ("true_divide", lambda T, x, d: T.true_divide(x, 2), None),
    ("remainder_st", lambda T, x, d: T.remainder(3, x), "remainder_cpu"),
    ("fmod_t", lambda T, x, d: T.fmod(x, x), "fmod_cpu"),
    ("norm_p", lambda T, x, d: x.norm(1), "RuntimeError"),
    ("clamp_min_t", lambda T, x, d: x.clamp_min(2), "clamp_min_scalar_cpu"),
    ("clamp_max_t", lambda T, x, d: x.clamp_max(T.tensor(2, dtype=d)), "minimum_cpu"),
    ("median_dim", lambda T, x, d: x.median(0), "median_out"),
    ("nanmedian_dim", lambda T, x, d: x.nanmedian(0), "median_out"),
    ("lerp_t", lambda T, x, d: T.lerp(x, x, x), "lerp_kernel_tensor"),
    ("addcdiv", lambda T, x, d: T.addcdiv(x, x, x), "RuntimeError"),
]


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("case,call,expected", OPS, ids=[c[0] for c in OPS])
def test_op_takes_or_refuses_the_unsigned_dtype_as_torch(case, call, expected, name):
    def scenario(T):
        d = getattr(T, name)
        return outcome(lambda: call(T, T.tensor([[5, 1, 3], [2, 4, 0]], dtype=d), d))
    ours = scenario(ndgrad)
    if expected is None:
        assert not (isinstance(ours, list) and len(ours) == 2 and isinstance(ours[0], str)
                    and ours[0].endswith(("Error", "Exception"))), ours
    elif expected.endswith("Error"):
        assert ours[0] == expected, ours
    else:
        assert ours == ["NotImplementedError", f"\"{expected}\" not implemented for 'UInt{name[4:]}'"]
    if torch is not None:
        theirs = scenario(torch)
        assert _close(ours, theirs), (ours, theirs)
