"""Pointwise ops: arithmetic with broadcasting and Python scalars, math functions, comparisons.

Forwards are one or a few NumPy (or scipy.special) calls; `_dispatch` does torch's type
promotion and the autograd recording. Where torch has several overloads of one op (pow, div,
clamp, remainder, ...), each overload is a private op with its own derivatives.yaml entry and a
public function picks among them as torch's argument parser does, so that grad_fn names match:
`x ** 2` PowBackward0, `x ** y` PowBackward1, `2 ** x` PowBackward2.
"""
import functools
import inspect
import math

import numpy as np

from .. import _dispatch, _dtype
from .._dispatch import call_inplace, op, register
from .._tensor import Tensor
from ..backends.numpy_backend import special


# ---- broadcasting and the pointwise decorator ---------------------------------------------
def broadcast_shape(*shapes):
    """The shape `shapes` broadcast to, or torch's RuntimeError naming the clashing sizes."""
    out = ()
    for shape in shapes:
        n = max(len(out), len(shape))
        a = (1,) * (n - len(out)) + tuple(out)
        b = (1,) * (n - len(shape)) + tuple(shape)
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) "
                                   f"at non-singleton dimension {i}")
        out = tuple(y if x == 1 else x for x, y in zip(a, b))
    return out


def pointwise(name, *, quiet=False, **kwargs):
    """`op(name, **kwargs)` for a pointwise forward.

    Forwards with several operands turn NumPy's ValueError on shapes that do not broadcast into
    torch's RuntimeError (see broadcast_shape). `quiet` forwards run with NumPy's floating-point
    warnings off: torch returns inf/nan silently where the math does (log(0), 1/0, sqrt(-1)).
    """
    def deco(fn):
        params = inspect.signature(fn).parameters.values()
        operands = sum(p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
        if operands < 2 and not quiet:
            return op(name, **kwargs)(fn)

        @functools.wraps(fn)
        def forward(*args, **kw):
            try:
                if quiet:
                    with np.errstate(all="ignore"):
                        return fn(*args, **kw)
                return fn(*args, **kw)
            except ValueError:
                broadcast_shape(*(a.shape for a in args if isinstance(a, np.ndarray)))
                raise
        return op(name, **kwargs)(forward)
    return deco


def _alias(name, fn, method=True):
    """Register `fn` (and its in-place variant) under torch's other name for it."""
    register(name, method=method)(fn)
    if method and hasattr(fn, "inplace"):
        _dispatch.METHODS[name + "_"] = fn.inplace


def _in_place(name, pick):
    """Tensor.<name>: the in-place form of the overload that `pick(self, ...)` returns."""
    def method(self, *args, **kwargs):
        chosen = pick(self, *args, **kwargs)
        bound = _signature(chosen).bind(self, *args, **kwargs)
        bound.apply_defaults()
        return call_inplace(chosen.spec, tuple(bound.arguments.values()))
    method.__name__ = name
    _dispatch.METHODS[name] = method


@functools.lru_cache(maxsize=None)
def _signature(fn):
    return inspect.signature(fn)


def _named(name, fn):
    """A Python forward called `name` for the NumPy function `fn` (ufuncs have no signature)."""
    params = ", ".join(f"a{i}" for i in range(fn.nin)) if isinstance(fn, np.ufunc) else None
    scope = {"fn": fn}
    exec(f"def {name}({params}):\n    return fn({params})\n", scope)
    return scope[name]


def _no_bool(a, what):
    if a.dtype == np.bool_:
        raise RuntimeError(what)


def _type_word(np_dtype):
    return _dispatch._TYPE_WORD[np.dtype(np_dtype).name.capitalize()]


def _integral(kernel, *operands):
    """Bitwise ops take integers and bools only (torch's kernel error otherwise)."""
    for a in operands:
        dtype = np.asarray(a).dtype
        if dtype.kind not in "biu":
            raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{_type_word(dtype)}\'')


def _nonzero_divisor(input, other):
    """torch raises on integer division by zero (NumPy would return 0 with a warning)."""
    if np.asarray(input).dtype.kind in "biu" and np.asarray(other).dtype.kind in "biu" and np.any(other == 0):
        raise RuntimeError("ZeroDivisionError")


def _is_tensor(x):
    return isinstance(x, Tensor)


# ---- arithmetic ---------------------------------------------------------------------------
@pointwise("add.Tensor", method=True, inplace=True, promote="same", operands=(0, 1))
def add(input, other, *, alpha=1):
    return np.add(input, other if alpha == 1 else np.multiply(other, alpha))


@pointwise("sub.Tensor", method=True, inplace=True, promote="same", operands=(0, 1))
def sub(input, other, *, alpha=1):
    if np.asarray(input).dtype == np.bool_ and np.asarray(other).dtype == np.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    return np.subtract(input, other if alpha == 1 else np.multiply(other, alpha))


@pointwise("rsub.Tensor", public=False, promote="same", operands=(0, 1))
def _rsub_tensor(input, other, *, alpha=1):
    return sub.spec.forward(other, input, alpha)


@pointwise("rsub.Scalar", public=False, promote="same", operands=(0, 1))
def _rsub_scalar(input, other, alpha=1):
    return sub.spec.forward(other, input, alpha)


@register()
def rsub(input, other, *, alpha=1):
    """other - alpha * input (what `2 - x` runs)."""
    return _rsub_tensor(input, other, alpha=alpha) if _is_tensor(other) else _rsub_scalar(input, other, alpha)


@pointwise("mul.Tensor", method=True, inplace=True, promote="same", operands=(0, 1))
def mul(input, other):
    return np.multiply(input, other)


@pointwise("div.Tensor", public=False, promote="float", operands=(0, 1), quiet=True)
def _true_divide(input, other):
    return np.true_divide(input, other)


_ROUNDING = {"trunc": lambda q: np.trunc(q), "floor": lambda q: np.floor(q)}


@pointwise("div.Tensor_mode", public=False, promote="same", operands=(0, 1), quiet=True)
def _div_mode(input, other, *, rounding_mode):
    if rounding_mode not in _ROUNDING:
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    _nonzero_divisor(input, other)
    if np.asarray(input).dtype.kind in "biu" and np.asarray(other).dtype.kind in "biu":
        if rounding_mode == "floor":
            return np.floor_divide(input, other)
        return np.sign(input) * np.sign(other) * np.floor_divide(np.abs(input), np.abs(other))
    return _ROUNDING[rounding_mode](np.true_divide(input, other))


def _div_overload(input, other, rounding_mode=None):
    return _true_divide if rounding_mode is None else functools.partial(_div_mode, rounding_mode=rounding_mode)


@register(method=True)
def div(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _true_divide(input, other)
    return _div_mode(input, other, rounding_mode=rounding_mode)


def div_(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return call_inplace(_true_divide.spec, (self, other))
    return call_inplace(_div_mode.spec, (self, other, rounding_mode))


@pointwise("floor_divide", method=True, inplace=True, promote="same", operands=(0, 1), quiet=True)
def floor_divide(input, other):
    _nonzero_divisor(input, other)
    return np.floor_divide(input, other)


@pointwise("remainder.Scalar", public=False, promote="same", operands=(0, 1), quiet=True)
def _remainder_scalar(input, other):
    _nonzero_divisor(input, other)
    return np.remainder(input, other)


@pointwise("remainder.Tensor", public=False, promote="same", operands=(0, 1), quiet=True)
def _remainder_tensor(input, other):
    _nonzero_divisor(input, other)
    return np.remainder(input, other)


@pointwise("remainder.Scalar_Tensor", public=False, promote="same", operands=(0, 1), quiet=True)
def _remainder_scalar_tensor(input, other):
    _nonzero_divisor(input, other)
    return np.remainder(input, other)


def _remainder_overload(input, other):
    if not _is_tensor(input):
        return _remainder_scalar_tensor
    return _remainder_tensor if _is_tensor(other) else _remainder_scalar


@register(method=True)
def remainder(input, other):
    """Python's %: the result takes the sign of the divisor."""
    return _remainder_overload(input, other)(input, other)


@pointwise("fmod.Scalar", public=False, promote="same", operands=(0, 1), quiet=True)
def _fmod_scalar(input, other):
    _nonzero_divisor(input, other)
    return np.fmod(input, other)


@pointwise("fmod.Tensor", public=False, promote="same", operands=(0, 1), quiet=True)
def _fmod_tensor(input, other):
    _nonzero_divisor(input, other)
    return np.fmod(input, other)


def _fmod_overload(input, other):
    return _fmod_tensor if _is_tensor(other) else _fmod_scalar


@register(method=True)
def fmod(input, other):
    """C's fmod: the result takes the sign of the dividend."""
    return _fmod_overload(input, other)(input, other)


def _power(base, exponent):
    if np.asarray(base).dtype.kind in "biu" and np.asarray(exponent).dtype.kind in "biu" and np.any(exponent < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return np.power(base, exponent)


_pow_tensor_scalar = pointwise("pow.Tensor_Scalar", public=False, promote="same", operands=(0, 1),
                               quiet=True)(_power)
_pow_tensor_tensor = pointwise("pow.Tensor_Tensor", public=False, promote="same", operands=(0, 1),
                               quiet=True)(_power)
_pow_scalar = pointwise("pow.Scalar", public=False, promote="same", operands=(0, 1), quiet=True)(_power)


def _pow_overload(input, exponent):
    if not _is_tensor(input):
        return _pow_scalar
    return _pow_tensor_tensor if _is_tensor(exponent) else _pow_tensor_scalar


@register(method=True)
def pow(input, exponent):
    return _pow_overload(input, exponent)(input, exponent)


@register(method=True)
def float_power(input, exponent):
    """pow in double precision (complex128 for complex operands)."""
    complex_ = any(_is_tensor(a) and a.is_complex() or isinstance(a, complex) for a in (input, exponent))
    dtype = _dtype_of("complex128" if complex_ else "float64")
    cast = (lambda a: a.to(dtype) if _is_tensor(a) else a)
    return pow(cast(input), cast(exponent))


def _dtype_of(name):
    from .. import _dtype
    return getattr(_dtype, name)


@register(method=True)
def square(input):
    return pow(input, 2)


@pointwise("neg", method=True, inplace=True)
def neg(input):
    _no_bool(input, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                    "invert a mask, use the `~` or `logical_not()` operator instead.")
    return np.negative(input)


@register(method=True)
def positive(input):
    if input.dtype == _dtype_of("bool_"):
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@pointwise("reciprocal", method=True, inplace=True, promote="float", quiet=True)
def reciprocal(input):
    return np.reciprocal(input)


@pointwise("maximum", method=True, promote="same", operands=(0, 1))
def maximum(input, other):
    return np.maximum(input, other)


@pointwise("minimum", method=True, promote="same", operands=(0, 1))
def minimum(input, other):
    return np.minimum(input, other)


@pointwise("fmax", method=True, promote="same", operands=(0, 1))
def fmax(input, other):
    return np.fmax(input, other)


@pointwise("fmin", method=True, promote="same", operands=(0, 1))
def fmin(input, other):
    return np.fmin(input, other)


@pointwise("atan2", method=True, inplace=True, promote="float", operands=(0, 1))
def atan2(input, other):
    return np.arctan2(input, other)


@pointwise("hypot", method=True, inplace=True, promote="float", operands=(0, 1))
def hypot(input, other):
    return np.hypot(input, other)


@pointwise("copysign.Tensor", public=False, promote="float", operands=(0, 1))
def _copysign_tensor(input, other):
    return np.copysign(input, other)


@pointwise("copysign.Scalar", public=False, promote="float", operands=(0, 1))
def _copysign_scalar(input, other):
    return np.copysign(input, other)


def _copysign_overload(input, other):
    return _copysign_tensor if _is_tensor(other) else _copysign_scalar


@register(method=True)
def copysign(input, other):
    return _copysign_overload(input, other)(input, other)


def _lerp(input, end, weight):
    # torch's form: exact at both ends, and from the nearer end for |weight| >= 0.5
    diff = np.subtract(end, input)
    if not isinstance(weight, np.ndarray):
        return input + weight * diff if abs(weight) < 0.5 else end - diff * (1 - weight)
    return np.where(np.abs(weight) < 0.5, input + weight * diff, end - diff * (1 - weight))


_lerp_scalar = pointwise("lerp.Scalar", public=False, promote="same", operands=(0, 1))(_lerp)
_lerp_tensor = pointwise("lerp.Tensor", public=False, promote="same", operands=(0, 1, 2))(_lerp)


def _lerp_overload(input, end, weight):
    return _lerp_tensor if _is_tensor(weight) else _lerp_scalar


@register(method=True)
def lerp(input, end, weight):
    """input + weight * (end - input)."""
    return _lerp_overload(input, end, weight)(input, end, weight)


@pointwise("addcmul", method=True, inplace=True, promote="same", operands=(0, 1, 2))
def addcmul(input, tensor1, tensor2, *, value=1):
    prod = np.multiply(tensor1, tensor2)
    return np.add(input, prod if value == 1 else np.multiply(prod, value, dtype=prod.dtype, casting="unsafe"))


@pointwise("addcdiv", method=True, inplace=True, promote="same", operands=(0, 1, 2), quiet=True)
def addcdiv(input, tensor1, tensor2, *, value=1):
    if np.asarray(tensor1).dtype.kind in "biu" and np.asarray(tensor2).dtype.kind in "biu":
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                           "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
                           "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                           "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                           "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                           "for all dtypes.")
    return np.add(input, np.multiply(value, np.true_divide(tensor1, tensor2)))


@pointwise("where.self", public=False, promote="same", operands=(1, 2))
def _where(condition, input, other):
    return np.where(condition, input, other)


@register()
def where(condition, input=None, other=None):
    """input where condition is True, else other (Python scalars allowed); where(condition) gives
    the indices of the True elements, one index tensor per dimension."""
    if condition.dtype not in (_dtype_of("bool_"), _dtype_of("uint8")):
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_type_word(condition)}")
    if input is None and other is None:
        return tuple(Tensor._make(i, False, None, 0) for i in np.nonzero(condition._data))
    if condition.dtype != _dtype_of("bool_"):
        condition = condition.to(_dtype_of("bool_"))
    return _where(condition, input, other)


def _type_word(t):
    return _dispatch._TYPE_WORD[t.dtype.name.capitalize()]


_dispatch.METHODS["where"] = lambda self, condition, other: where(condition, self, other)


# clamp: scalar bounds (ClampBackward1) or tensor bounds (ClampBackward0), either may be None
def _clamp(input, min, max):
    if min is not None:
        input = np.maximum(input, min)
    return input if max is None else np.minimum(input, max)


_clamp_scalar = pointwise("clamp", public=False, promote="same", operands=(0, 1, 2))(_clamp)
_clamp_tensor = pointwise("clamp.Tensor", public=False, promote="same", operands=(0, 1, 2))(_clamp)


def _clamp_overload(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    tensors = _is_tensor(min) or _is_tensor(max)
    if tensors and not all(b is None or _is_tensor(b) for b in (min, max)):
        raise TypeError("clamp() received an invalid combination of arguments: min and max must be both "
                        "tensors or both numbers (or None)")
    return _clamp_tensor if tensors else _clamp_scalar


@register(method=True)
def clamp(input, min=None, max=None):
    """min(max(input, min), max), elementwise."""
    return _clamp_overload(input, min, max)(input, min, max)


_clamp_min_scalar = pointwise("clamp_min", public=False, promote="same", operands=(0, 1))(np.maximum)
_clamp_min_tensor = pointwise("clamp_min.Tensor", public=False, promote="same", operands=(0, 1))(np.maximum)
_clamp_max_scalar = pointwise("clamp_max", public=False, promote="same", operands=(0, 1))(np.minimum)
_clamp_max_tensor = pointwise("clamp_max.Tensor", public=False, promote="same", operands=(0, 1))(np.minimum)


def _clamp_min_overload(input, min):
    return _clamp_min_tensor if _is_tensor(min) else _clamp_min_scalar


def _clamp_max_overload(input, max):
    return _clamp_max_tensor if _is_tensor(max) else _clamp_max_scalar


@register(method=True)
def clamp_min(input, min):
    return _clamp_min_overload(input, min)(input, min)


@register(method=True)
def clamp_max(input, max):
    return _clamp_max_overload(input, max)(input, max)


# ---- math ---------------------------------------------------------------------------------
def _unary(name, fn, *, quiet=False, promote="float", method=True, inplace=True):
    """A one-input pointwise op computed by the NumPy/SciPy ufunc `fn`."""
    def forward(input):
        return fn(input)
    forward.__name__ = forward.__qualname__ = name
    return pointwise(name, quiet=quiet, promote=promote, method=method, inplace=inplace)(forward)


exp = _unary("exp", np.exp, quiet=True)
exp2 = _unary("exp2", np.exp2, quiet=True)
expm1 = _unary("expm1", np.expm1, quiet=True)
log = _unary("log", np.log, quiet=True)
log2 = _unary("log2", np.log2, quiet=True)
log10 = _unary("log10", np.log10, quiet=True)
log1p = _unary("log1p", np.log1p, quiet=True)
sin = _unary("sin", np.sin)
cos = _unary("cos", np.cos)
tan = _unary("tan", np.tan)
asin = _unary("asin", np.arcsin, quiet=True)
acos = _unary("acos", np.arccos, quiet=True)
atan = _unary("atan", np.arctan)
sinh = _unary("sinh", np.sinh, quiet=True)
cosh = _unary("cosh", np.cosh, quiet=True)
tanh = _unary("tanh", np.tanh)
asinh = _unary("asinh", np.arcsinh)
acosh = _unary("acosh", np.arccosh, quiet=True)
atanh = _unary("atanh", np.arctanh, quiet=True)
sqrt = _unary("sqrt", np.sqrt, quiet=True)
deg2rad = _unary("deg2rad", np.deg2rad)
rad2deg = _unary("rad2deg", np.rad2deg)
erf = _unary("erf", lambda x: special().erf(x))
erfc = _unary("erfc", lambda x: special().erfc(x))
erfinv = _unary("erfinv", lambda x: special().erfinv(x), quiet=True)
lgamma = _unary("lgamma", lambda x: special().gammaln(x), quiet=True)
digamma = _unary("digamma", lambda x: special().psi(x), quiet=True)
frac = _unary("frac", lambda x: x - np.trunc(x), promote=None)


@pointwise("rsqrt", method=True, inplace=True, promote="float", quiet=True)
def rsqrt(input):
    return np.reciprocal(np.sqrt(input))


@pointwise("sigmoid", method=True, inplace=True, promote="float")
def sigmoid(input):
    return special().expit(input)


# the first derivatives of tanh and sigmoid are ops of their own, so double backward records
# TanhBackwardBackward0 / SigmoidBackwardBackward0 as torch does
@pointwise("tanh_backward", public="_tanh_backward")
def _tanh_backward(grad_output, output):
    return grad_output * np.conj(1 - output * output)


@pointwise("sigmoid_backward", public="_sigmoid_backward")
def _sigmoid_backward(grad_output, output):
    return grad_output * np.conj(output * (1 - output))


@pointwise("polygamma", method=False, promote="float", operands=(1,), quiet=True)
def polygamma(n, input):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    out = special().psi(input) if n == 0 else special().polygamma(n, input)
    return np.asarray(out, dtype=input.dtype)


_dispatch.METHODS["polygamma"] = lambda self, n: polygamma(n, self)
_dispatch.METHODS["polygamma_"] = lambda self, n: call_inplace(polygamma.spec, (n, self)) and self


@pointwise("abs", method=True, inplace=True)
def abs(input):
    if input.dtype == np.bool_:
        raise RuntimeError("\"abs_cpu\" not implemented for 'Bool'")
    return np.abs(input)


@pointwise("sign", method=True, inplace=True)
def sign(input):
    if input.dtype.kind == "c":
        raise RuntimeError("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                           "torch.sgn instead.")
    return input.copy() if input.dtype == np.bool_ else np.sign(input)


@pointwise("sgn", method=True, inplace=True, quiet=True)
def sgn(input):
    if input.dtype.kind != "c":
        return sign.spec.forward(input)
    mag = np.abs(input)
    return np.where(mag == 0, 0, input / np.where(mag == 0, 1, mag))


floor = _unary("floor", lambda x: x.copy() if x.dtype.kind in "biu" else np.floor(x), promote=None)
ceil = _unary("ceil", lambda x: x.copy() if x.dtype.kind in "biu" else np.ceil(x), promote=None)
trunc = _unary("trunc", lambda x: x.copy() if x.dtype.kind in "biu" else np.trunc(x), promote=None)


@pointwise("round", public=False)
def _round(input):
    return input.copy() if input.dtype.kind in "biu" else np.round(input)


@pointwise("round.decimals", public=False)
def _round_decimals(input, *, decimals):
    if input.dtype.kind in "biu":
        raise RuntimeError(f"\"round_cpu\" not implemented for '{_dispatch._TYPE_WORD[input.dtype.name.capitalize()]}'")
    return np.round(input, decimals)


@register(method=True)
def round(input, *, decimals=0):
    """Round half to even; `decimals` digits after the point (negative: before it)."""
    return _round(input) if decimals == 0 else _round_decimals(input, decimals=decimals)


def round_(self, *, decimals=0):
    if decimals == 0:
        return call_inplace(_round.spec, (self,))
    return call_inplace(_round_decimals.spec, (self, decimals))


@pointwise("logit", method=True, inplace=True, promote="float", quiet=True)
def logit(input, eps=None):
    if eps is not None:
        input = np.clip(input, eps, 1 - eps)
    return np.log(input / (1 - input))


@pointwise("sinc", method=True, inplace=True, promote="float")
def sinc(input):
    return np.sinc(input)


def _xlogy(input, other):
    return special().xlogy(input, other)


_xlogy_tensor = pointwise("xlogy.Tensor", public=False, promote="float", operands=(0, 1), quiet=True)(_xlogy)
_xlogy_scalar_self = pointwise("xlogy.Scalar_Self", public=False, promote="float", operands=(0, 1),
                               quiet=True)(_xlogy)
_xlogy_scalar_other = pointwise("xlogy.Scalar_Other", public=False, promote="float", operands=(0, 1),
                                quiet=True)(_xlogy)


def _xlogy_overload(input, other):
    if not _is_tensor(input):
        return _xlogy_scalar_self
    return _xlogy_tensor if _is_tensor(other) else _xlogy_scalar_other


@register(method=True)
def xlogy(input, other):
    """input * log(other), 0 where input is 0 (unless other is nan)."""
    return _xlogy_overload(input, other)(input, other)


@pointwise("logaddexp", method=True, promote="float", operands=(0, 1))
def logaddexp(input, other):
    return np.logaddexp(input, other)


@pointwise("logaddexp2", method=True, promote="float", operands=(0, 1))
def logaddexp2(input, other):
    return np.logaddexp2(input, other)


@pointwise("nan_to_num", method=True, inplace=True)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if input.dtype.kind not in "fc":
        return input.copy()
    return np.nan_to_num(input, nan=nan, posinf=posinf, neginf=neginf)


@pointwise("angle", method=True, promote="float")
def angle(input):
    if input.dtype.kind == "c":
        return np.angle(input)
    return np.where(input < 0, np.asarray(np.pi, input.dtype), np.where(np.isnan(input), input, 0)).astype(input.dtype)


@pointwise("conj", public=False)
def _conj(input):
    return np.conj(input)


@register(method=True)
def conj(input):
    """The complex conjugate; a real tensor is returned as it is. (torch's conj of a complex tensor
    is a lazy view; ndgrad's is a copy, so writing into it does not write into the input.)"""
    return _conj(input) if input.is_complex() else input


@pointwise("conj_physical", method=True, inplace=True)
def conj_physical(input):
    return np.conj(input)


@register(method=True)
def resolve_conj(input):
    return input


@register(method=True)
def resolve_neg(input):
    return input


@register(method=True)
def real(input):
    if not input.is_complex():
        return input
    raise NotImplementedError("real() of a complex tensor is a view in torch (view_as_real + select); ndgrad "
                              "does not have complex views yet")


@register(method=True)
def imag(input):
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    raise NotImplementedError("imag() of a complex tensor is a view in torch (view_as_real + select); ndgrad "
                              "does not have complex views yet")


# ---- comparisons and logic (no gradient: bool results) -----------------------------------
# Out of place they have no derivative entry; in place (x.eq_(y): 0/1 in x's dtype) they are
# recorded with a zero gradient as in torch (EqBackward0 for a scalar, EqBackward1 for a tensor).
def _comparison(name, ufunc, aliases=()):
    fwd = pointwise(name, method=True, promote="same", operands=(0, 1))(_named(name, ufunc))

    def into(input, other):
        return ufunc(input, other).astype(input.dtype)
    scalar = pointwise(f"{name}_.Scalar", public=False)(_named(f"_{name}_scalar", into))
    tensor = pointwise(f"{name}_.Tensor", public=False)(_named(f"_{name}_tensor", into))
    _in_place(name + "_", lambda self, other: tensor if _is_tensor(other) else scalar)
    for alias in aliases:
        _alias(alias, fwd)
        _dispatch.METHODS[alias + "_"] = _dispatch.METHODS[name + "_"]
    return fwd


def _named(name, fn):
    def forward(input, other):
        return fn(input, other)
    forward.__name__ = forward.__qualname__ = name
    return forward


eq = _comparison("eq", np.equal)
ne = _comparison("ne", np.not_equal, ("not_equal",))
lt = _comparison("lt", np.less, ("less",))
le = _comparison("le", np.less_equal, ("less_equal",))
gt = _comparison("gt", np.greater, ("greater",))
ge = _comparison("ge", np.greater_equal, ("greater_equal",))


def _logical(name, ufunc):
    def forward(input, other):
        return ufunc(input, other)
    forward.__name__ = forward.__qualname__ = name
    fn = pointwise(name, method=True)(forward)
    _dispatch.METHODS[name + "_"] = lambda self, other: call_inplace(
        fn.spec, (self, other)) if _is_tensor(other) else _tensor_only(name + "_", other)
    return fn


def _tensor_only(name, other):
    raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")


logical_and = _logical("logical_and", np.logical_and)
logical_or = _logical("logical_or", np.logical_or)
logical_xor = _logical("logical_xor", np.logical_xor)


@pointwise("logical_not", method=True, inplace=True)
def logical_not(input):
    return np.logical_not(input)


def _bitwise(name, kernel_name, ufunc):
    def forward(input, other):
        _integral(kernel_name, input, other)
        return ufunc(input, other)
    forward.__name__ = forward.__qualname__ = name
    return pointwise(name, method=True, inplace=True, promote="same", operands=(0, 1))(forward)


bitwise_and = _bitwise("bitwise_and", "bitwise_and", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", "bitwise_or", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", "bitwise_xor", np.bitwise_xor)
bitwise_left_shift = _bitwise("bitwise_left_shift", "lshift", np.left_shift)
bitwise_right_shift = _bitwise("bitwise_right_shift", "rshift", np.right_shift)


@pointwise("bitwise_not", method=True, inplace=True)
def bitwise_not(input):
    _integral("bitwise_not", input)
    return np.logical_not(input) if input.dtype == np.bool_ else np.invert(input)


isnan = _unary("isnan", np.isnan, promote=None, inplace=False)
isinf = _unary("isinf", np.isinf, promote=None, inplace=False)
isfinite = _unary("isfinite", np.isfinite, promote=None, inplace=False)
isposinf = _unary("isposinf", np.isposinf, promote=None, inplace=False)
isneginf = _unary("isneginf", np.isneginf, promote=None, inplace=False)
signbit = _unary("signbit", np.signbit, promote=None, inplace=False)


@pointwise("isclose", method=True)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if input.dtype != np.asarray(other).dtype:
        raise RuntimeError(f"{_dispatch._TYPE_WORD[input.dtype.name.capitalize()]} did not match "
                           f"{_dispatch._TYPE_WORD[np.asarray(other).dtype.name.capitalize()]}")
    return np.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


@register(method=True)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


@register(method=True)
def equal(input, other):
    """True if both tensors have the same shape and elements."""
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


# ---- fill and zero ------------------------------------------------------------------------
def _filled(input, value):
    if np.ndim(value):
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {np.ndim(value)} "
                           "dimensions.")
    return np.full_like(input, value)


_fill_scalar = pointwise("fill.Scalar", public=False)(_filled)
_fill_tensor = pointwise("fill.Tensor", public=False)(_filled)
_fill_scalar_ = pointwise("fill_.Scalar", public=False)(_filled)
_fill_tensor_ = pointwise("fill_.Tensor", public=False)(_filled)


@register()
def fill(input, value):
    """A tensor like input, every element `value`."""
    return (_fill_tensor if _is_tensor(value) else _fill_scalar)(input, value)


_in_place("fill_", lambda self, value: _fill_tensor_ if _is_tensor(value) else _fill_scalar_)


@pointwise("zero_", public=False)
def _zeros(input):
    return np.zeros_like(input)


def zero_(input):
    return call_inplace(_zeros.spec, (input,))


register("zero_", method=True)(zero_)


# ---- in-place forms of the ops with several overloads, and torch's other names -----------------
_in_place("pow_", _pow_overload)
_in_place("remainder_", _remainder_overload)
_in_place("fmod_", _fmod_overload)
_in_place("copysign_", _copysign_overload)
_in_place("lerp_", _lerp_overload)
_in_place("xlogy_", _xlogy_overload)
_in_place("clamp_", lambda self, min=None, max=None: _clamp_overload(self, min, max))
_in_place("clamp_min_", _clamp_min_overload)
_in_place("clamp_max_", _clamp_max_overload)
_dispatch.METHODS.update(div_=div_, round_=round_, square_=lambda self: _in_place_pow2(self))


def _in_place_pow2(self):
    return call_inplace(_pow_tensor_scalar.spec, (self, 2))


_ALIASES = {
    "subtract": sub, "multiply": mul, "divide": div, "true_divide": div, "negative": neg, "absolute": abs,
    "arcsin": asin, "arccos": acos, "arctan": atan, "arcsinh": asinh, "arccosh": acosh, "arctanh": atanh,
    "arctan2": atan2, "fix": trunc, "clip": clamp,
}
for _name, _fn in _ALIASES.items():
    _alias(_name, _fn)
_dispatch.METHODS.update({
    "subtract_": sub.inplace, "multiply_": mul.inplace, "divide_": div_, "true_divide_": div_,
    "clip_": _dispatch.METHODS["clamp_"],
})
