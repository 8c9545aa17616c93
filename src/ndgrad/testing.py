"""torch.testing: `assert_close` (torch's default tolerances, checks and messages) and
`make_tensor` (random test tensors)."""
import cmath
import collections.abc
import math
import warnings

import numpy as np

from . import _dtype
from ._tensor import Size, Tensor
from ._typeinfo import finfo, iinfo
from .ops.creation import from_numpy, tensor
from .ops.random import rand, randint

# (rtol, atol) by dtype; the looser of the two inputs' applies; exact for integers and bool
_TOLERANCES = {_dtype.float16: (1e-3, 1e-5), _dtype.float32: (1.3e-6, 1e-5), _dtype.float64: (1e-7, 1e-7),
               _dtype.complex64: (1.3e-6, 1e-5), _dtype.complex128: (1e-7, 1e-7)}
_NUMBER_DTYPES = {bool: _dtype.bool_, int: _dtype.int64, float: _dtype.float64, complex: _dtype.complex128}


class _Mismatch(Exception):
    def __init__(self, exc_type, msg):
        super().__init__(msg)
        self.exc_type = exc_type
        self.path = []   # the keys leading to the failing item, outermost first


def _tolerances(dtypes, rtol, atol):
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _diff_lines(abs_diff, rel_diff, rtol, atol, abs_idx=None, rel_idx=None):
    equality = rtol == 0 and atol == 0
    lines = []
    for kind, diff, idx, tol in (("absolute", abs_diff, abs_idx, atol), ("relative", rel_diff, rel_idx, rtol)):
        line = (f"{kind.title()} difference: {diff}" if idx is None
                else f"Greatest {kind} difference: {diff} at index {idx}")
        lines.append(line + ("" if equality else f" (up to {tol} allowed)"))
    return "\n".join(lines)


def _header(what, rtol, atol):
    return f"{what} are not {'equal' if rtol == 0 and atol == 0 else 'close'}!\n\n"


def _scalar_message(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = math.inf if expected == 0 else abs_diff / abs(expected)
    return (_header("Scalars", rtol, atol) + f"Expected {expected} but got {actual}.\n"
            + _diff_lines(abs_diff, rel_diff, rtol, atol))


def _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype):
    if isinstance(actual, bool) and isinstance(expected, bool):
        if actual is not expected:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}")
        return
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(actual)], _NUMBER_DTYPES[type(expected)]], rtol, atol)
    if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
        return
    diff = abs(actual - expected)
    if cmath.isfinite(diff) and diff <= atol + rtol * abs(expected) or actual == expected:
        return
    raise _Mismatch(AssertionError, _scalar_message(actual, expected, rtol, atol))


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype, check_device, check_layout):
    for name, check in (("shape", True), ("device", check_device), ("dtype", check_dtype), ("layout", check_layout)):
        a, e = getattr(actual, name), getattr(expected, name)
        if check and a != e:
            raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: {a} != {e}.")
    rtol, atol = _tolerances([actual.dtype, expected.dtype], rtol, atol)
    a, e = actual.detach().numpy(), expected.detach().numpy()
    if a.dtype != e.dtype:   # without check_dtype: compared in the common dtype
        common = _dtype.promote_types(actual.dtype, expected.dtype).np
        a, e = a.astype(common), e.astype(common)
    if a.dtype.kind == "b":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        matches = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
        if a.dtype.kind in "iu":   # np.isclose converts to float; integers are compared exactly
            matches = np.abs(a.astype(np.int64) - e.astype(np.int64)) <= atol + rtol * np.abs(e.astype(np.int64))
        if matches.all():
            return
        if a.ndim == 0:
            raise _Mismatch(AssertionError, _scalar_message(a.item(), e.item(), rtol, atol))
        integral = a.dtype.kind in "iu"
        if integral:
            a, e = a.astype(np.int64), e.astype(np.int64)
        abs_diff = np.abs(a.ravel() - e.ravel())
        abs_diff[matches.ravel()] = 0
        rel_diff = abs_diff / np.abs(e.ravel())
        if integral:   # torch divides integers into the default floating dtype
            rel_diff = rel_diff.astype(_dtype.defaults.float.np)
        rel_diff[matches.ravel()] = 0
    total, bad = matches.size, int(matches.size - matches.sum())
    abs_i, rel_i = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))
    msg = (_header("Tensor-likes", rtol, atol) + f"Mismatched elements: {bad} / {total} ({bad / total:.1%})\n"
           + _diff_lines(abs_diff[abs_i].item(), rel_diff[rel_i].item(), rtol, atol,
                         _index_tuple(np.unravel_index(abs_i, a.shape)),
                         _index_tuple(np.unravel_index(rel_i, a.shape))))
    raise _Mismatch(AssertionError, msg)


def _index_tuple(idx):
    return tuple(int(i) for i in idx)


def _compare(actual, expected, options):
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        return _compare_tensors(actual, expected, **options)
    if isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
        return _compare_tensors(from_numpy(actual), from_numpy(expected), **options)
    numbers = (bool, int, float, complex)
    if type(actual) in numbers and type(expected) in numbers:
        opts = {k: options[k] for k in ("rtol", "atol", "equal_nan", "check_dtype")}
        return _compare_numbers(actual, expected, **opts)
    if (isinstance(actual, collections.abc.Sequence) and isinstance(expected, collections.abc.Sequence)
            and not isinstance(actual, str) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare_item(a, e, i, options)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            missing = sorted(set(expected) - set(actual), key=repr)
            extra = sorted(set(actual) - set(expected), key=repr)
            raise _Mismatch(AssertionError, "The keys of the mappings do not match:\n"
                            + (f"Missing keys in the actual mapping: {missing}\n" if missing else "")
                            + (f"Additional keys in the actual mapping: {extra}" if extra else ""))
        for k in expected:
            _compare_item(actual[k], expected[k], k, options)
        return
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def _compare_item(actual, expected, key, options):
    try:
        _compare(actual, expected, options)
    except _Mismatch as m:
        m.path.insert(0, key)
        raise


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raise AssertionError unless `actual` and `expected` are close: tensors (shape, device, dtype,
    layout and values within `atol + rtol * |expected|`, tolerances by dtype when omitted), NumPy
    arrays, Python numbers, and sequences or mappings of them, compared item by item."""
    options = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype,
                   check_device=check_device, check_layout=check_layout)
    try:
        _compare(actual, expected, options)
    except _Mismatch as m:
        text = str(m)
        if msg is not None:
            text = msg(text) if callable(msg) else msg
        elif m.path:
            text += "\n\nThe failure occurred for item " + "".join(f"[{k!r}]" for k in m.path)
        raise m.exc_type(text) from None


# assert_allclose's looser tolerances (by dtype; the looser of the two inputs' applies, exact otherwise)
_ALLCLOSE_TOLERANCES = {_dtype.float16: (1e-3, 1e-3), _dtype.float32: (1e-4, 1e-5), _dtype.float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated since torch 1.12 (a FutureWarning says so): :func:`assert_close` with the old defaults,
    NaNs equal, dtypes free to differ, numbers and lists turned into tensors (`expected` in `actual`'s dtype).

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     torch.testing.assert_allclose(torch.tensor([1.0, float("nan")]), [1.00001, float("nan")])
    """
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_ALLCLOSE_TOLERANCES.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of random values in [low, high): floats in [-9, 9) by default, integers in [-9, 10)
    (unsigned from 0), bools either value; drawn from the default generator."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        shape = tuple(shape[0])
    if str(device).split(":")[0] != "cpu":
        raise NotImplementedError(f"make_tensor(device={str(device)!r}): ndgrad only has the CPU backend")
    if dtype is _dtype.bool_:
        result = randint(0, 2, shape, dtype=_dtype.int64).to(_dtype.bool_)
    elif dtype._rank == 1:
        info = iinfo(dtype)
        lo, hi = _bounds(low, high, -9 if info.min < 0 else 0, 10, info.min, info.max)
        result = randint(math.ceil(lo), math.ceil(hi), shape, dtype=dtype)
    else:
        info = finfo(dtype)
        lo, hi = _bounds(low, high, -9, 9, info.min, info.max)
        real = dtype.to_real()
        result = rand(shape, dtype=real) * (hi - lo) + lo
        if dtype.is_complex:
            result = result + 1j * (rand(shape, dtype=real) * (hi - lo) + lo)
        result = result.to(dtype)
    if exclude_zero:
        replacement = 1 if dtype._rank <= 1 else finfo(dtype).tiny
        result = result.masked_fill(result == 0, replacement)
    if noncontiguous and result.numel() > 1:
        result = result.repeat_interleave(2, dim=-1)[..., ::2]
    if requires_grad:
        result.requires_grad_(True)
    return result


def _bounds(low, high, default_low, default_high, lowest, highest):
    low = default_low if low is None else low
    high = default_high if high is None else high
    if math.isnan(low) or math.isnan(high):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    return max(low, lowest), min(high, highest)
