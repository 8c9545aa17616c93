"""Pointwise ops: arithmetic with broadcasting and Python scalars, math functions, comparisons.
Also here: complex numbers (complex, polar, the real/imag views, _neg_view) and the foreach ops
(`_foreach_<op>`: one node for the whole list, as torch records them).

Forwards are one or a few NumPy (or scipy.special) calls; the op glue (`_registry.py`) does torch's type
promotion and the autograd recording. Where torch has several overloads of one op (pow, div,
clamp, remainder, ...), each overload is a private op with its own derivatives.yaml entry, the
overloads are declared once as torch's schema strings (a `Parser`, see _schema.py), and the public
function runs the op of the overload the parser resolves, so that grad_fn names match:
`x ** 2` PowBackward0, `x ** y` PowBackward1, `2 ** x` PowBackward2. The in-place method of such
an op parses with `Parser.method()` and runs the same overload's op in place.

Where torch lists an overload taking a number as `self` (pow(Scalar self, Tensor exponent)) before
the one taking a tensor and a number, the latter is declared a second time, hidden, ahead of it:
no call binds both, and `x ** 2` then resolves without the parser testing the tensor x as a number
(which reads its shape; vmap's batched tensors refuse that, and it costs time).
"""
import builtins
import functools
import inspect
import math

import numpy as np

from ..backends import is_array, namespace

from .. import _dtype, _pool
from . import _registry
from ._registry import call_inplace, op, register
from ._torch_function import _NOT_OVERRIDING
from ._schema import ArgumentError, Parser
from .._tensor import CONJ_BIT, NEG_BIT, Tensor, _c_type, resolved_data
from ..autograd.grad_mode import no_grad
from ..backends.numpy_backend import special
from ._branchless import where as _branchless_where
from .creation import full_like
from .reduction import _linalg_vector_norm, amax, return_types
from .shape import view_as_real


# ---- registration helpers ------------------------------------------------------------------
def pointwise(name, **kwargs):
    """`op(name, **kwargs)` for a pointwise forward: operands that do not broadcast raise torch's
    RuntimeError naming the clashing sizes (see _registry.broadcast_shape)."""
    return op(name, broadcast=True, **kwargs)


def _named(name, fn, nargs=1):
    """A forward named `name` calling `fn` (NumPy ufuncs and lambdas have no usable signature).
    Defined here, so NumPy's warnings name this module (see the filter in ndgrad/__init__.py)."""
    if nargs == 1:
        def forward(input):
            return fn(input)
    else:
        def forward(input, other):
            return fn(input, other)
    forward.__name__ = forward.__qualname__ = name
    forward.kernel = fn   # what ndgrad.compile's tapes call directly (one Python frame less per step)
    return forward


def _alias(name, fn):
    """torch's other name for `fn`, as a function, a method and (if fn has one) an in-place method."""
    register(name, method=True)(fn)
    if fn.__doc__:   # an inline docstring, which functools.wraps copied whole: the alias points to it instead
        _registry.OPS[name].__doc__ = f"Alias for :func:`ndgrad.{fn.__name__}`.\n"
    inplace = getattr(fn, "inplace", None) or _registry.METHODS.get(fn.__name__ + "_")
    if inplace is not None:
        _registry.METHODS[name + "_"] = inplace


def _is_tensor(x):
    return isinstance(x, Tensor)


# the exact types of the arguments the public functions' fast paths take (subclasses and numpy
# numbers go through the parser)
_NUMBER = frozenset((int, float))
_TENSOR_OR_NUMBER = frozenset((Tensor, int, float))
_CLAMP_BOUNDS = frozenset(("min", "max"))


def _kind(x):
    return np.asarray(x).dtype.kind


_type_word = _dtype.type_word


def _refusing(kernel, kinds, fn, exc=NotImplementedError, message=None):
    """fn, refusing arrays of the dtype `kinds` (see _refuse_kinds) with torch's error naming the kernel
    and the dtype (NumPy would compute something torch does not, or raise its own ufunc TypeError)."""
    half = "e" in kinds

    def forward(*operands):
        for a in operands:   # (the usual call, NumPy arrays of other dtypes and numbers, without a call)
            if type(a) is np.ndarray:
                if a.dtype.kind in kinds or half and a.dtype.char == "e":
                    break
            elif type(a) not in _SCALARS:
                break
        else:
            return fn(*operands)
        _refuse_kinds(kernel, kinds, *operands, exc=exc, message=message)
        return fn(*operands)
    return forward


def _refuse_kinds(kernel, kinds, *operands, exc=NotImplementedError, message=None):
    """_refusing's check, for forwards that do more than call one function: `kinds` holds dtype kinds
    ("biufc") and "e" for float16, whose kind is float32's."""
    for a in operands:
        t = type(a)   # (Python numbers first: is_array asks every backend about them)
        if (t is np.ndarray or t not in _SCALARS and is_array(a)) and (
                a.dtype.kind in kinds or a.dtype.char == "e" and "e" in kinds):
            raise exc(message or f"\"{kernel}\" not implemented for '{_type_word(a.dtype)}'")


_SCALARS = frozenset((int, float, bool, complex))


def _half_in_float(fn):
    """fn (a SciPy function: it computes float16 in float32 or float64 and returns that dtype) on
    float16 arrays as torch's half kernels compute: in float32, rounded to float16 once."""
    def forward(*operands):
        if not any(type(a) is np.ndarray and a.dtype == np.float16 for a in operands):
            return fn(*operands)
        return np.asarray(fn(*(a.astype(np.float32) if type(a) is np.ndarray and a.dtype == np.float16 else a
                               for a in operands))).astype(np.float16)
    return forward


def _nonzero_divisor(input, other):
    """torch raises on integer division by zero (NumPy would give 0 and a warning); bool operands are
    refused by the kernels first (torch has none for bool)."""
    if _kind(input) in "iu" and _kind(other) in "iu" and np.any(np.equal(other, 0)):
        raise RuntimeError("ZeroDivisionError")


# ---- arithmetic ---------------------------------------------------------------------------
def _scaled(other, alpha, like):
    if alpha == 1:
        return other
    if isinstance(alpha, float) and _kind(like) in "biu" and _kind(other) in "biu":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return np.multiply(other, alpha)


def _pooled(kind, fn, a, b):
    """fn(a, b), a NumPy ufunc of kind `kind` (_pool.ADD ...), by the native pool where it takes the
    operands (large float arrays: the same bits, on all threads)."""
    if type(a) is _ndarray and type(b) is _ndarray and a.shape != b.shape and (wide := _widened(a, b)) is not None:
        return _pooled(kind, fn, *wide[0]).reshape(wide[1])
    if type(a) is _ndarray and a.size >= _POOL_MIN or type(b) is _ndarray and b.size >= _POOL_MIN:
        out = _pool.binary(kind, a, b)
        if out is not None:
            return out
    return fn(a, b)


_ndarray, _POOL_MIN = np.ndarray, _pool.MIN_ELEMENTS


def _widened(a, b):
    """((a, b), shape) with a short row (16 elements or fewer) broadcast along the last dim of a large
    C-contiguous array made rows of about 512 elements: the array reshaped, the row repeated. NumPy (and
    the pool) restart their inner loop for every row of the broadcast ((4096, 3) * (3,): 18 -> 7 µs;
    (16, 256, 16) * (16,): 25 -> 19 µs); the same pairs of elements, the same results. None otherwise."""
    x, r = (a, b) if a.size > b.size else (b, a)
    n = r.size
    if n > 16 or x.size < 4096 or r.ndim > x.ndim or x.shape[-1] != n or r.shape[-1] != n or not x.flags.c_contiguous:
        return None
    k = math.gcd(x.size // n, 1 << (512 // n).bit_length() - 1)   # rows per wide row: a power of 2 that divides
    if k == 1:
        return None
    wide, row = x.reshape(-1, k * n), np.broadcast_to(r.reshape(-1), (k, n)).reshape(-1)
    return ((wide, row) if x is a else (row, wide)), x.shape


@pointwise("add.Tensor", method=True, inplace=True, promote="same", operands=(0, 1))
def add(input, other, *, alpha=1):
    return _pooled(_pool.ADD, np.add, input, _scaled(other, alpha, input))


@pointwise("sub.Tensor", method=True, inplace=True, promote="same", operands=(0, 1))
def sub(input, other, *, alpha=1):
    # (a bool tensor beside a number or tensor of another dtype is promoted before this: not caught here)
    bool_input = type(input) is bool or getattr(input, "dtype", None) == np.bool_
    bool_other = type(other) is bool or getattr(other, "dtype", None) == np.bool_
    if bool_input and bool_other:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if bool_input or bool_other:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return _pooled(_pool.SUB, np.subtract, input, _scaled(other, alpha, input))


def _reversed_sub(input, other, alpha=1):
    return sub.spec.forward(other, input, alpha)


_rsub_tensor = pointwise("rsub.Tensor", public=False, promote="same", operands=(0, 1))(_reversed_sub)
_rsub_scalar = pointwise("rsub.Scalar", public=False, promote="same", operands=(0, 1))(_reversed_sub)


_rsub_args = Parser("rsub(Tensor input, Tensor other, *, Scalar alpha=1)",   # RsubBackward0
                    "rsub(Tensor input, Scalar other, Scalar alpha=1)")      # RsubBackward1
_rsub_ops = (_rsub_tensor, _rsub_scalar)


@register()
@_rsub_args.signature
def rsub(*args, **kwargs):
    """``other - alpha * input``: subtraction with the operands reversed (what ``2 - x`` runs).

    Args:
        input (Tensor): the tensor subtracted.
        other (Tensor or Number): the tensor subtracted from.
        alpha (Number): the factor of `input`. Default: ``1``.

    Returns:
        Tensor: the differences.

    Example::

        >>> torch.rsub(torch.tensor([1.0, 2.0]), 10)
        tensor([9., 8.])
        >>> torch.rsub(torch.tensor([1.0, 2.0]), 10, alpha=3)
        tensor([7., 4.])
    """
    which, values = _rsub_args.parse(args, kwargs)
    return _rsub_ops[which](*values)


# np.multiply called directly (mul is the commonest op on small tensors: no Python frame), the native pool's
# pass where the first operand is large (the glue checks the size: see OpSpec.large)
_mul = _named("mul", np.multiply, nargs=2)
_mul.large = lambda input, other: _pooled(_pool.MUL, np.multiply, input, other)
mul = pointwise("mul.Tensor", method=True, inplace=True, promote="same", operands=(0, 1))(_mul)



# div: true division (DivBackward0, Python scalars included, as in torch) or rounded (DivBackward2)
@pointwise("div.Tensor", public=False, promote="float", operands=(0, 1))
def _true_divide(input, other):
    return _pooled(_pool.DIV, np.true_divide, input, other)


@pointwise("div.Tensor_mode", public=False, promote="same", operands=(0, 1))
def _div_mode(input, other, *, rounding_mode):
    if rounding_mode is None:   # true division (div chooses this op for it only where the result is floating)
        return np.true_divide(input, other)
    _nonzero_divisor(input, other)
    if rounding_mode == "floor":
        return np.floor_divide(input, other)
    if rounding_mode != "trunc":
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    if _kind(input) in "biu" and _kind(other) in "biu":
        return np.sign(input) * np.sign(other) * np.floor_divide(np.abs(input), np.abs(other))
    return np.trunc(np.true_divide(input, other))


# torch reaches div.Tensor with a number divisor by wrapping the number (the hidden overload; it
# comes second only because it is the common call: no call binds both it and a rounding_mode one);
# a number dividend is wrapped the same way (torch's parser lets numbers stand for div's tensors)
_div_args = Parser("div(Tensor input, Tensor other)",
                   "div(Tensor input, Scalar other)|hidden",
                   "div(Tensor input, Tensor other, *, str? rounding_mode)",
                   "div(Tensor input, Scalar other, *, str? rounding_mode)",
                   "div(Scalar input, Tensor other)|hidden",
                   "div(Scalar input, Tensor other, *, str? rounding_mode)|hidden",
                   "div(Scalar input, Scalar other)|hidden",
                   "div(Scalar input, Scalar other, *, str? rounding_mode)|hidden")
_div_ops = (_true_divide, _true_divide, _div_mode, _div_mode, _true_divide, _div_mode, _true_divide, _div_mode)
_div_method_args = _div_args.method()


def _floating(values):
    return any(isinstance(v, Tensor) and v._array.dtype.kind in _dtype.INEXACT_KINDS for v in values)


# rounding_mode=None is true division, which torch records as div.Tensor_mode's node (DivBackward2,
# whose formula reads rounding_mode): so does ndgrad where a floating operand can carry a gradient;
# integers go to div.Tensor, whose promotion makes the quotient floating
@register(method=True)
@_div_args.signature
def div(*args, **kwargs):
    # x / y and x / 2 skip the parser (hot): it resolves them to overload 0 or 1, true division
    if not kwargs and len(args) == 2 and type(args[0]) is Tensor and type(args[1]) in _TENSOR_OR_NUMBER:
        return _true_divide(*args)
    which, values = _div_args.parse(args, kwargs)
    if _div_ops[which] is _div_mode and values[2] is None and not _floating(values[:2]):
        return _true_divide(*values[:2])
    return _div_ops[which](*values)


def div_(self, *args, **kwargs):
    which, values = _div_method_args.parse(args, kwargs)
    if _div_ops[which] is _div_mode and values[1] is None and not _floating((self, values[0])):
        return call_inplace(_true_divide.spec, (self, values[0]))
    return call_inplace(_div_ops[which].spec, (self, *values))


# true_divide is div without rounding_mode: its own schemas, so that rounding_mode= is refused as in
# torch (whose function lists an out=, parsed here but, as for div, not supported; its methods list none)
_true_divide_args = Parser("true_divide(Tensor input, Tensor other, *, Tensor? out=None)",
                           "true_divide(Tensor input, Scalar other)",
                           "true_divide(Scalar input, Tensor other)|hidden",   # a number dividend, as div's
                           "true_divide(Scalar input, Scalar other)|hidden")
_true_divide_method_args = Parser("true_divide(Tensor input, Tensor other)",
                                  "true_divide(Tensor input, Scalar other)").method()
_true_divide_inplace_args = Parser("true_divide_(Tensor input, Tensor other)",
                                   "true_divide_(Tensor input, Scalar other)").method()


@register()
@_true_divide_args.signature
def true_divide(*args, **kwargs):
    # torch's binding takes a number as the Tensor `other` of overload 0 (numbers as tensors), so a
    # stray keyword is what it reports, whatever `other` is
    for key in kwargs:
        if key not in _true_divide_args.overloads[0].names:
            raise ArgumentError(f"true_divide() got an unexpected keyword argument '{key}'")
    _, values = _true_divide_args.parse(args, kwargs)
    if len(values) > 2 and values[2] is not None:
        raise NotImplementedError("ndgrad: true_divide(..., out=) is not supported (neither is div's out=)")
    return _true_divide(*values[:2])


def _true_divide_method(self, *args, **kwargs):
    _, values = _true_divide_method_args.parse(args, kwargs)
    return _true_divide(self, values[0])


def true_divide_(self, *args, **kwargs):
    _, values = _true_divide_inplace_args.parse(args, kwargs)
    return call_inplace(_true_divide.spec, (self, values[0]))


_registry.METHODS.update(true_divide=_true_divide_method, true_divide_=true_divide_)


@pointwise("floor_divide", method=True, inplace=True, promote="same", operands=(0, 1))
def floor_divide(input, other):
    _refuse_kinds("div_floor_cpu", "bc", input, other)
    _nonzero_divisor(input, other)
    return np.floor_divide(input, other)


def _modulo(ufunc):
    def forward(input, other):
        _nonzero_divisor(input, other)
        return ufunc(input, other)
    return forward


_remainder = _refusing("remainder_cpu", "bc", np.remainder)
_fmod = _refusing("fmod_cpu", "bc", np.fmod)
_remainder_scalar = pointwise("remainder.Scalar", public=False, promote="same")(_modulo(_remainder))
_remainder_tensor = pointwise("remainder.Tensor", public=False, promote="same")(_modulo(_remainder))
_remainder_scalar_tensor = pointwise("remainder.Scalar_Tensor", public=False, promote="same")(_modulo(_remainder))
_fmod_scalar = pointwise("fmod.Scalar", public=False, promote="same")(_modulo(_fmod))
_fmod_tensor = pointwise("fmod.Tensor", public=False, promote="same")(_modulo(_fmod))


_remainder_args = Parser("remainder(Tensor input, Tensor other)",
                         "remainder(Tensor input, Scalar other)|hidden",   # see the module docstring
                         "remainder(Scalar self, Tensor other)",
                         "remainder(Tensor input, Scalar other)")
_remainder_ops = (_remainder_tensor, _remainder_scalar, _remainder_scalar_tensor, _remainder_scalar)
_remainder_method_args = _remainder_args.method()


@register(method=True)
@_remainder_args.signature
def remainder(*args, **kwargs):
    """The remainder of the division of `input` by `other`, elementwise, with the sign of the divisor
    (Python's ``%``; see :func:`ndgrad.fmod` for the sign of the dividend).

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor.

    Returns:
        Tensor: the remainders.

    Example::

        >>> torch.remainder(torch.tensor([-3, -1, 1, 3]), 2)
        tensor([1, 1, 1, 1])
        >>> torch.remainder(torch.tensor([5.5, -5.5]), -2)
        tensor([-0.5000, -1.5000])
    """
    which, values = _remainder_args.parse(args, kwargs)
    return _remainder_ops[which](*values)


def remainder_(self, *args, **kwargs):
    which, values = _remainder_method_args.parse(args, kwargs)
    return call_inplace(_remainder_ops[which].spec, (self, *values))


_fmod_args = Parser("fmod(Tensor input, Tensor other)", "fmod(Tensor input, Scalar other)")
_fmod_ops, _fmod_method_args = (_fmod_tensor, _fmod_scalar), _fmod_args.method()


@register(method=True)
@_fmod_args.signature
def fmod(*args, **kwargs):
    """The remainder of the division of `input` by `other`, elementwise, with the sign of the dividend (C's
    ``fmod``; see :func:`ndgrad.remainder` for the sign of the divisor).

    Args:
        input (Tensor): the dividend.
        other (Tensor or Number): the divisor.

    Returns:
        Tensor: the remainders.

    Example::

        >>> torch.fmod(torch.tensor([-3, -1, 1, 3]), 2)
        tensor([-1, -1,  1,  1])
        >>> torch.fmod(torch.tensor([5.5, -5.5]), -2)
        tensor([ 1.5000, -1.5000])
    """
    which, values = _fmod_args.parse(args, kwargs)
    return _fmod_ops[which](*values)


def fmod_(self, *args, **kwargs):
    which, values = _fmod_method_args.parse(args, kwargs)
    return call_inplace(_fmod_ops[which].spec, (self, *values))


# torch's own forms of a float32/float64 tensor to these Python-number powers (its pow kernel's, for
# their speed): the same bits as torch, where the general pow differs in the last bit (x ** 3) and
# costs ~20x more (NumPy's pow loop)
_SCALAR_POWERS = {0: lambda x: np.ones_like(x), 1: lambda x: x.copy(), 2: lambda x: x * x,
                  3: lambda x: x * x * x, 0.5: np.sqrt, -0.5: lambda x: 1 / np.sqrt(x), -1: lambda x: 1 / x,
                  -2: lambda x: 1 / (x * x)}


def _float32_int_power(x, e):
    """x ** e for a float32 array and an integer e: by squaring in float64, rounded once to float32
    (at least as accurate as NumPy's float32 pow loop, which costs ~60 ns an element; torch's own
    vectorized pow agrees with neither to the last bit)."""
    base, n, result = x.astype(np.float64), e if e > 0 else -e, None
    while n:
        if n & 1:
            result = base if result is None else result * base
        n >>= 1
        if n:
            base = base * base
    return (1 / result if e < 0 else result).astype(np.float32)


def _power(input, exponent):
    if (type(exponent) is int or type(exponent) is float) and getattr(input, "dtype", None) in _FLOAT32_64:
        if exponent in _SCALAR_POWERS:
            return _SCALAR_POWERS[exponent](input)
        if input.dtype == np.float32 and -64 <= exponent <= 64 and (type(exponent) is int or exponent.is_integer()) \
                and type(input) is np.ndarray:
            return _float32_int_power(input, int(exponent))
    if getattr(input, "dtype", None) == np.bool_ and getattr(exponent, "dtype", np.bool_) == np.bool_:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if _kind(input) in "biu" and _kind(exponent) in "biu" and np.any(np.less(exponent, 0)):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return np.power(input, exponent)


_FLOAT32_64 = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
_pow_tensor_scalar = pointwise("pow.Tensor_Scalar", public=False, promote="same")(_power)
_pow_tensor_tensor = pointwise("pow.Tensor_Tensor", public=False, promote="same")(_power)
_pow_scalar = pointwise("pow.Scalar", public=False, promote="same")(_power)


_pow_args = Parser("pow(Tensor input, Tensor exponent)",            # PowBackward1
                   "pow(Tensor input, Scalar exponent)|hidden",     # PowBackward0 (see the module docstring)
                   "pow(Scalar self, Tensor exponent)",             # PowBackward2
                   "pow(Tensor input, Scalar exponent)")            # PowBackward0
_pow_ops = (_pow_tensor_tensor, _pow_tensor_scalar, _pow_scalar, _pow_tensor_scalar)
_pow_method_args = _pow_args.method()


@register(method=True)
@_pow_args.signature
def pow(*args, **kwargs):
    # x ** y and x ** 2 skip the parser (hot): it resolves them to overload 0 or 1
    if not kwargs and len(args) == 2 and type(args[0]) is Tensor:
        exponent = type(args[1])
        if exponent is Tensor:
            return _pow_tensor_tensor(*args)
        if exponent is float or exponent is int:
            return _pow_tensor_scalar(*args)
    which, values = _pow_args.parse(args, kwargs)
    return _pow_ops[which](*values)


def pow_(self, *args, **kwargs):
    which, values = _pow_method_args.parse(args, kwargs)
    return call_inplace(_pow_ops[which].spec, (self, *values))


_float_power_args = Parser("float_power(Tensor input, Tensor exponent)",   # the overloads of pow, in its order
                           "float_power(Tensor input, Scalar exponent)|hidden",
                           "float_power(Scalar self, Tensor exponent)",
                           "float_power(Tensor input, Scalar exponent)")
_float_power_method_args = _float_power_args.method()


def _double_precision(*operands):
    """complex128 if an operand is complex, else float64."""
    complex_ = any(_is_tensor(a) and a.is_complex() or isinstance(a, builtins.complex) for a in operands)
    return _dtype.complex128 if complex_ else _dtype.float64


@register(method=True)
@_float_power_args.signature
def float_power(*args, **kwargs):
    """`input` raised to the power `exponent`, elementwise, computed in double precision (float64, or
    complex128 if an operand is complex).

    Args:
        input (Tensor or Number): the base.
        exponent (Tensor or Number): the exponent.

    Returns:
        Tensor: a float64 (or complex128) tensor.

    Example::

        >>> torch.float_power(torch.tensor([2, 3]), 2)
        tensor([4., 9.], dtype=torch.float64)
    """
    which, (input, exponent) = _float_power_args.parse(args, kwargs)
    dtype = _double_precision(input, exponent)
    pow_op = _pow_ops[which]
    if pow_op is not _pow_scalar:
        input = input.to(dtype)
    if pow_op is not _pow_tensor_scalar:
        exponent = exponent.to(dtype)
    return pow_op(input, exponent)


def float_power_(self, *args, **kwargs):
    which, (exponent,) = _float_power_method_args.parse(args, kwargs)
    dtype = _double_precision(self, exponent)
    if self.dtype is not dtype:
        raise RuntimeError(f"the base given to float_power_ has dtype {_type_word(self._array.dtype)} but the "
                           f"operation's result requires dtype {_type_word(dtype.np)}")
    return call_inplace(_pow_ops[which].spec, (self, exponent.to(dtype) if which == 0 else exponent))


@register(method=True)
def square(input):
    return _pow_tensor_scalar(input, 2)   # PowBackward0, as in torch


def square_(self):
    return call_inplace(_pow_tensor_scalar.spec, (self, 2))


@pointwise("neg", method=True, inplace=True)
def neg(input):
    if input.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return np.negative(input)


@register(method=True)
def positive(input):
    if input.dtype is _dtype.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@pointwise("reciprocal", method=True, inplace=True, promote="float")
def reciprocal(input):
    return np.reciprocal(input)


def _binary(name, ufunc, *, promote="same", inplace=False):
    """A two-operand pointwise op computed by the NumPy ufunc `ufunc`."""
    return pointwise(name, method=True, inplace=inplace, promote=promote, operands=(0, 1))(_named(name, ufunc, 2))


maximum = _binary("maximum", _refusing("", "c", np.maximum, RuntimeError, "maximum not implemented for complex tensors."))
minimum = _binary("minimum", _refusing("", "c", np.minimum, RuntimeError, "minimum not implemented for complex tensors."))
fmax = _binary("fmax", _refusing("", "c", np.fmax, RuntimeError, "fmax not implemented for complex tensors."))
fmin = _binary("fmin", _refusing("", "c", np.fmin, RuntimeError, "fmin not implemented for complex tensors."))
atan2 = _binary("atan2", _refusing("atan2_cpu", "c", np.arctan2), promote="float", inplace=True)
hypot = _binary("hypot", _refusing("hypot_cpu", "biuc", np.hypot), inplace=True)   # torch: floats only


def _logaddexp(a, b):
    """NumPy's logaddexp, extended to complex operands as torch does: log(exp(a) + exp(b)) computed
    around the operand of larger real part."""
    if not (np.iscomplexobj(a) or np.iscomplexobj(b)):
        return np.logaddexp(a, b)
    m = np.where(np.real(a) >= np.real(b), a, b)
    return m + np.log(np.exp(a - m) + np.exp(b - m))


# (integer operands are refused, not made float: torch has no integer kernel; an integer and a float
# tensor promote to the float first)
logaddexp = _binary("logaddexp", _refusing("logaddexp_cpu", "biu", _logaddexp))
logaddexp2 = _binary("logaddexp2", _refusing("logaddexp2_cpu", "biuc", np.logaddexp2))

_copysign = _refusing("copysign_cpu", "c", np.copysign)
_copysign_tensor = pointwise("copysign.Tensor", public=False, promote="float")(_named("copysign", _copysign, 2))
_copysign_scalar = pointwise("copysign.Scalar", public=False, promote="float")(_named("copysign", _copysign, 2))


_copysign_args = Parser("copysign(Tensor input, Tensor other)", "copysign(Tensor input, Scalar other)")
_copysign_ops, _copysign_method_args = (_copysign_tensor, _copysign_scalar), _copysign_args.method()


@register(method=True)
@_copysign_args.signature
def copysign(*args, **kwargs):
    """The magnitude of each element of `input` with the sign of the matching element of `other`
    (the sign bit, so ``-0.0`` counts as negative).

    Args:
        input (Tensor): the magnitudes.
        other (Tensor or Number): the signs (broadcast against `input`).

    Returns:
        Tensor: a floating-point tensor.

    Example::

        >>> torch.copysign(torch.tensor([1.0, -2.0, 3.0]), torch.tensor([-1.0, 1.0, -0.0]))
        tensor([-1.,  2., -3.])
    """
    which, values = _copysign_args.parse(args, kwargs)
    return _copysign_ops[which](*values)


def copysign_(self, *args, **kwargs):
    which, values = _copysign_method_args.parse(args, kwargs)
    return call_inplace(_copysign_ops[which].spec, (self, *values))


def _lerp(input, end, weight):
    return _lerp_into(input, end, weight)


def _lerp_into(input, end, weight, out=None):
    if input.dtype.kind in "biu":   # NumPy would compute it in float
        raise NotImplementedError(f"\"lerp_kernel_scalar\" not implemented for '{_type_word(input.dtype)}'")
    # torch's form: exact at both ends, and computed from the nearer end for |weight| >= 0.5
    diff = np.subtract(end, input)
    if not is_array(weight):
        if np.abs(weight) < 0.5:
            return np.add(input, _scaled_in_place(diff, weight), out=out)
        return np.subtract(end, _scaled_in_place(diff, 1 - weight), out=out)
    res = np.where(np.abs(weight) < 0.5, input + weight * diff, end - diff * (1 - weight))
    return res if out is None else _into(out, res)


def _scaled_in_place(a, number):
    """a * number, into a itself (a temporary) where a Python number leaves its dtype as it is."""
    if type(a) is _ndarray and (type(number) is float or type(number) is int) and a.dtype.kind in "fc":
        return np.multiply(a, number, out=a)
    return a * number


def _into(out, result):
    np.copyto(out, result)
    return out


def _writes_into(public, into):
    """`into` (the op's kernel with an `out` argument that may be its first operand's buffer) as the
    replay kernel of op `public`: what ndgrad.compile's tapes call, and an in-place call that nothing
    observes, writing straight into self (_registry._lean_inplace)."""
    into.out_operand = 0
    _registry.keyword_split(public.spec.forward)[0].replay = into


_lerp_scalar = pointwise("lerp.Scalar", public=False, promote="same", operands=(0, 1))(_lerp)
_lerp_tensor = pointwise("lerp.Tensor", public=False, promote="same")(_lerp)
_writes_into(_lerp_scalar, _lerp_into)   # (_lerp is lerp.Tensor's forward too)


_lerp_args = Parser("lerp(Tensor input, Tensor end, Tensor weight)", "lerp(Tensor input, Tensor end, Scalar weight)")
_lerp_ops, _lerp_method_args = (_lerp_tensor, _lerp_scalar), _lerp_args.method()


@register(method=True)
@_lerp_args.signature
def lerp(*args, **kwargs):
    """The linear interpolation from `input` to `end`: ``input + weight * (end - input)``, elementwise.

    Args:
        input (Tensor): the start points.
        end (Tensor): the end points.
        weight (float or Tensor): the weights (0 gives `input`, 1 gives `end`).

    Returns:
        Tensor: the interpolated values.

    Example::

        >>> torch.lerp(torch.tensor([0.0, 10.0]), torch.tensor([4.0, 20.0]), 0.25)
        tensor([ 1.0000, 12.5000])
    """
    which, values = _lerp_args.parse(args, kwargs)
    _lerp_dtypes(*values)
    return _lerp_ops[which](*values)


def lerp_(self, *args, **kwargs):
    which, values = _lerp_method_args.parse(args, kwargs)
    _lerp_dtypes(self, *values)
    return call_inplace(_lerp_ops[which].spec, (self, *values))


def _lerp_dtypes(input, end, weight):
    """torch's lerp promotes nothing: end, and a weight given as a tensor, must have input's dtype."""
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype != input.dtype:
            raise RuntimeError(f"expected dtype {_c_type(input.dtype)} for `{name}` but got dtype {_c_type(t.dtype)}")


@pointwise("addcmul", method=True, inplace=True, promote="same", operands=(0, 1, 2))
def addcmul(input, tensor1, tensor2, *, value=1):
    return _addcmul_into(input, tensor1, tensor2, value=value)


def _addcmul_into(input, tensor1, tensor2, *, value=1, out=None):
    prod = np.multiply(tensor1, tensor2)
    if value != 1:
        prod = _scaled_in_place(prod, int(value) if prod.dtype.kind in "biu" else value)   # integers truncate value
    return np.add(input, prod, out=out)


@pointwise("addcdiv", method=True, inplace=True, promote="same", operands=(0, 1, 2))
def addcdiv(input, tensor1, tensor2, *, value=1):
    return _addcdiv_into(input, tensor1, tensor2, value=value)


def _addcdiv_into(input, tensor1, tensor2, *, value=1, out=None):
    if _kind(tensor1) in "biu" and _kind(tensor2) in "biu":
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
                           "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
                           "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                           "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                           "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                           "for all dtypes.")
    quotient = np.true_divide(tensor1, tensor2)
    return np.add(input, quotient if value == 1 else _scaled_in_place(quotient, value), out=out)


_writes_into(addcmul, _addcmul_into)
_writes_into(addcdiv, _addcdiv_into)


@pointwise("where.self", public=False, promote="same", operands=(1, 2))
def _where(condition, input, other):
    return _branchless_where(condition, input, other)


# every three-argument overload is where.self (WhereBackward0): numbers are operands of its forward
_where_args = Parser("where(Tensor condition)",
                     "where(Tensor condition, Tensor input, Tensor other)",
                     "where(Tensor condition, Tensor input, Scalar other)|hidden",   # see the module docstring
                     "where(Tensor condition, Scalar self, Tensor other)",
                     "where(Tensor condition, Tensor input, Scalar other)",
                     "where(Tensor condition, Scalar self, Scalar other)")
# Tensor.where binds self to `input`, not to the first argument: torch declares the method apart
_where_method_args = Parser("where(Tensor condition, Tensor other)", "where(Tensor condition, Scalar other)")


@register()
@_where_args.signature
def where(*args, **kwargs):
    """where(condition, input, other) -> Tensor
    where(condition) -> tuple of LongTensor

    Picks each element from `input` where `condition` is True and from `other` elsewhere (the three
    broadcast together; `input` or `other` may be a Python number). With `condition` alone, the same as
    ``torch.nonzero(condition, as_tuple=True)``: one tensor of indices per dimension.

    Args:
        condition (BoolTensor): where to take `input`.
        input (Tensor or Number): the values where `condition` is True.
        other (Tensor or Number): the values where `condition` is False.

    Returns:
        Tensor: the selected values (or the tuple of index tensors).

    Example::

        >>> x = torch.tensor([-1.0, 2.0, -3.0])
        >>> torch.where(x > 0, x, 0.0)
        tensor([0., 2., 0.])
        >>> torch.where(x > 0)
        (tensor([1]),)
    """
    # where(c, x, y) and where(c, x, 0.0) skip the parser (hot): it resolves them to one of the
    # three-argument overloads, which all run where.self
    if not kwargs and len(args) == 3 and type(args[0]) is Tensor and type(args[1]) in _TENSOR_OR_NUMBER \
            and type(args[2]) in _TENSOR_OR_NUMBER:
        which, values = 1, args
    else:
        which, values = _where_args.parse(args, kwargs)
    condition = values[0]
    if condition.dtype not in (_dtype.bool_, _dtype.uint8):
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_type_word(condition._array.dtype)}")
    if which == 0:
        return tuple(Tensor._make(i, False, None, 0) for i in np.nonzero(condition._array))
    if condition.dtype is _dtype.uint8:   # torch still accepts uint8 masks (deprecated)
        condition = condition.to(_dtype.bool_)
    return _where(condition, values[1], values[2])


def _where_method(self, *args, **kwargs):
    _, (condition, other) = _where_method_args.parse(args, kwargs)
    return where(condition, self, other)


# clamp: number bounds (ClampBackward1) or tensor bounds (ClampBackward0); either bound may be None
def _clamp(input, min=None, max=None):
    if _kind(input) == "c":   # (NumPy would order complex numbers lexicographically)
        raise NotImplementedError("clamp is not supported for complex types")
    if _kind(input) == "b":
        kernel = "clamp_scalar_cpu" if min is not None and max is not None else \
            "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if min is not None:
        input = np.maximum(input, min)
    return input if max is None else np.minimum(input, max)


_clamp_tensor = pointwise("clamp.Tensor", public=False, promote="same")(_clamp)
_clamp_scalar = pointwise("clamp", public=False, promote="same")(_clamp)


_clamp_args = Parser("clamp(Tensor input, Tensor? min=None, Tensor? max=None)",
                     "clamp(Tensor input, Scalar? min=None, Scalar? max=None)")
_clamp_ops, _clamp_method_args = (_clamp_tensor, _clamp_scalar), _clamp_args.method()


def _check_bounds(min, max):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")


@register(method=True)
@_clamp_args.signature
def clamp(*args, **kwargs):
    """Limits each element of `input` to the range [`min`, `max`]: ``min(max(input, min), max)``.

    Where `min` is greater than `max`, every element becomes `max`. Either bound may be omitted (not both).

    Args:
        input (Tensor): the input.
        min (Number or Tensor, optional): the lower bound.
        max (Number or Tensor, optional): the upper bound.

    Returns:
        Tensor: the clamped tensor.

    Example::

        >>> x = torch.tensor([-2.0, 0.5, 3.0])
        >>> torch.clamp(x, min=-1, max=1)
        tensor([-1.0000,  0.5000,  1.0000])
        >>> torch.clamp(x, min=0)
        tensor([0.0000, 0.5000, 3.0000])
    """
    # x.clamp(min=0) and the like skip the parser (hot, and keywords take its slow path): number
    # bounds by keyword resolve to overload 1
    if len(args) == 1 and kwargs and type(args[0]) is Tensor and kwargs.keys() <= _CLAMP_BOUNDS \
            and all(type(b) in _NUMBER for b in kwargs.values()):
        return _clamp_scalar(args[0], kwargs.get("min"), kwargs.get("max"))
    which, (input, min, max) = _clamp_args.parse(args, kwargs)
    _check_bounds(min, max)
    return _clamp_ops[which](input, min, max)


def clamp_(self, *args, **kwargs):
    which, (min, max) = _clamp_method_args.parse(args, kwargs)
    _check_bounds(min, max)
    return call_inplace(_clamp_ops[which].spec, (self, min, max))


def _clamp_min(input, min):
    return _clamp(input, min)


def _clamp_max(input, max):
    return _clamp(input, None, max)


_clamp_min_scalar = pointwise("clamp_min", public=False, promote="same")(_clamp_min)
_clamp_min_tensor = pointwise("clamp_min.Tensor", public=False, promote="same")(_clamp_min)
_clamp_max_scalar = pointwise("clamp_max", public=False, promote="same")(_clamp_max)
_clamp_max_tensor = pointwise("clamp_max.Tensor", public=False, promote="same")(_clamp_max)


_clamp_min_args = Parser("clamp_min(Tensor input, Tensor min)", "clamp_min(Tensor input, Scalar min)")
_clamp_min_ops, _clamp_min_method_args = (_clamp_min_tensor, _clamp_min_scalar), _clamp_min_args.method()
_clamp_max_args = Parser("clamp_max(Tensor input, Tensor max)", "clamp_max(Tensor input, Scalar max)")
_clamp_max_ops, _clamp_max_method_args = (_clamp_max_tensor, _clamp_max_scalar), _clamp_max_args.method()


@register(method=True)
@_clamp_min_args.signature
def clamp_min(*args, **kwargs):
    which, values = _clamp_min_args.parse(args, kwargs)
    return _clamp_min_ops[which](*values)


def clamp_min_(self, *args, **kwargs):
    which, values = _clamp_min_method_args.parse(args, kwargs)
    return call_inplace(_clamp_min_ops[which].spec, (self, *values))


@register(method=True)
@_clamp_max_args.signature
def clamp_max(*args, **kwargs):
    which, values = _clamp_max_args.parse(args, kwargs)
    return _clamp_max_ops[which](*values)


def clamp_max_(self, *args, **kwargs):
    which, values = _clamp_max_method_args.parse(args, kwargs)
    return call_inplace(_clamp_max_ops[which].spec, (self, *values))


# ---- math ---------------------------------------------------------------------------------
def _unary(name, fn, *, promote="float", inplace=True):
    """A one-input pointwise op computed by `fn` (a NumPy or scipy.special ufunc). inplace="entry":
    the in-place form has a derivatives.yaml entry of its own (torch's asinh_ is AsinhBackward1)."""
    forward = _named(name, fn)
    public = pointwise(name, method=True, inplace=inplace is True, promote=promote)(forward)
    if inplace == "entry":
        own = pointwise(name + "_", public=False, promote=promote)(forward)

        def in_place(self):
            return call_inplace(own.spec, (self,))
        in_place.__name__ = in_place.__qualname__ = name + "_"
        _registry.METHODS[name + "_"] = in_place
    return public


def _integers_unchanged(fn):
    return lambda x: x.copy() if x.dtype.kind in "biu" else fn(x)


exp = _unary("exp", np.exp)
exp2 = _unary("exp2", np.exp2)
expm1 = _unary("expm1", np.expm1)
log = _unary("log", np.log)
log2 = _unary("log2", np.log2)
log10 = _unary("log10", np.log10)
log1p = _unary("log1p", np.log1p)
sin = _unary("sin", np.sin)
cos = _unary("cos", np.cos)
tan = _unary("tan", np.tan)
asin = _unary("asin", np.arcsin)
acos = _unary("acos", np.arccos)
atan = _unary("atan", np.arctan)
sinh = _unary("sinh", np.sinh)
cosh = _unary("cosh", np.cosh)
tanh = _unary("tanh", np.tanh)
asinh = _unary("asinh", np.arcsinh, inplace="entry")
acosh = _unary("acosh", np.arccosh, inplace="entry")
atanh = _unary("atanh", np.arctanh, inplace="entry")
sqrt = _unary("sqrt", np.sqrt)
rsqrt = _unary("rsqrt", lambda x: np.reciprocal(np.sqrt(x)))
def _sigmoid(x):
    # 1 / (1 + exp(-x)), torch's formula, for float64 and complex; float32 and narrower through SciPy's
    # expit, which matches torch's float32 bits in 96% of values (the formula through NumPy's exp: 83%);
    # in float64 both match in 97%, and the formula (in place) is twice as fast (an LSTM cell's gates)
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    if x.dtype == np.float16:   # (expit would return float32)
        return special().expit(x.astype(np.float32)).astype(np.float16)
    if x.dtype != np.float64 or type(x) is not np.ndarray:
        return special().expit(x)
    t = np.negative(x, out=np.empty(x.shape, x.dtype))   # (an array for a 0-d x too)
    np.exp(t, out=t)
    t += 1
    return np.reciprocal(t, out=t)


sigmoid = _unary("sigmoid", _sigmoid)
erf = _unary("erf", _refusing("erf_vml_cpu", "c", _half_in_float(lambda x: special().erf(x))))
erfc = _unary("erfc", _refusing("erfc_vml_cpu", "c", _half_in_float(lambda x: special().erfc(x))))
erfinv = _unary("erfinv", _refusing("erfinv_vml_cpu", "c", _half_in_float(lambda x: special().erfinv(x))))
lgamma = _unary("lgamma", _refusing("lgamma_vml_cpu", "c", _half_in_float(lambda x: special().gammaln(x))))
digamma = _unary("digamma", _refusing("digamma", "c", _half_in_float(lambda x: special().psi(x))))
deg2rad = _unary("deg2rad", _refusing("", "c", np.deg2rad, RuntimeError, "deg2rad is not supported for complex tensors."))
rad2deg = _unary("rad2deg", _refusing("", "c", np.rad2deg, RuntimeError, "rad2deg is not supported for complex tensors."))
sinc = _unary("sinc", np.sinc)
floor = _unary("floor", _refusing("floor_vml_cpu", "b", _refusing("", "c", _integers_unchanged(np.floor), message=
               "floor is not supported for complex inputs")), promote=None)
ceil = _unary("ceil", _refusing("ceil_vml_cpu", "b", _refusing("", "c", _integers_unchanged(np.ceil), message=
              "ceil is not supported for complex inputs")), promote=None)
trunc = _unary("trunc", _refusing("trunc_vml_cpu", "b", _refusing("", "c", _integers_unchanged(np.trunc), message=
               "trunc is not supported for complex inputs")), promote=None)
frac = _unary("frac", _refusing("frac_cpu", "biuc", lambda x: x - np.trunc(x)), promote=None)


# The first derivatives of tanh and sigmoid are ops of their own, so that double backward records
# TanhBackwardBackward0 / SigmoidBackwardBackward0 as in torch.
def _conj_if_complex(a):
    return np.conj(a) if a.dtype.kind == "c" else a   # np.conj copies even a real array


@pointwise("tanh_backward", public="_tanh_backward")
def _tanh_backward(grad_output, output):
    d = 1 - output * output
    return grad_output * (np.conj(d) if d.dtype.kind == "c" else d)   # (np.conj copies even a real array)


@pointwise("sigmoid_backward", public="_sigmoid_backward")
def _sigmoid_backward(grad_output, output):
    return grad_output * _conj_if_complex(output * (1 - output))


def _polygamma(n, input):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return np.asarray(special().psi(input) if n == 0 else special().polygamma(n, input), dtype=input.dtype)


polygamma = pointwise("polygamma", public="polygamma", promote="float", operands=(1,))(_polygamma)
# torch's in-place form takes self first and has an entry of its own (PolygammaBackward1)
_polygamma_ = pointwise("polygamma_", public=False, promote="float",
                        operands=(0,))(lambda input, n: _polygamma(n, input))


def _polygamma_method(self, n):
    return polygamma(n, self)


def polygamma_(self, n):
    return call_inplace(_polygamma_.spec, (self, n))


@pointwise("abs", method=True, inplace=True)
def abs(input):
    if input.dtype == np.bool_:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return np.abs(input)


@pointwise("sign", method=True, inplace=True)
def sign(input):
    if input.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. "
                                  "Please use torch.sgn instead.")
    if input.dtype == np.bool_:
        return input.copy()
    return np.where(np.isnan(input), 0, np.sign(input)) if input.dtype.kind == "f" else np.sign(input)  # sign(nan)=0


@pointwise("sgn", method=True, inplace=True)
def sgn(input):
    """The sign of each element of `input` (as :func:`ndgrad.sign`) for a real tensor; for a complex
    tensor, ``z / |z|`` (and 0 where ``z`` is 0).

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: the signs.

    Example::

        >>> torch.sgn(torch.tensor([3 + 4j, 0j]))
        tensor([0.6000+0.8000j, 0.0000+0.0000j])
        >>> torch.sgn(torch.tensor([-2.0, 0.0, 5.0]))
        tensor([-1.,  0.,  1.])
    """
    if input.dtype.kind != "c":
        return sign.spec.forward(input)
    mag = np.abs(input)
    return np.where(mag == 0, 0, input / np.where(mag == 0, 1, mag))


@pointwise("round", public=False)
def _round(input):
    if input.dtype.kind in "bc":
        raise NotImplementedError(f"\"round_vml_cpu\" not implemented for '{_type_word(input.dtype)}'")
    return input.copy() if input.dtype.kind in "biu" else np.round(input)


@pointwise("round.decimals", public=False)
def _round_decimals(input, *, decimals):
    if input.dtype.kind in "biu":
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{_type_word(input.dtype)}'")
    return np.round(input, decimals)


# round(x, decimals=0) is round.decimals (RoundBackward1), as in torch: the keyword picks the overload
_round_args = Parser("round(Tensor input)", "round(Tensor input, *, int decimals)")
_round_ops, _round_method_args = (_round, _round_decimals), _round_args.method()


@register(method=True)
@_round_args.signature
def round(*args, **kwargs):
    """round(input, *, decimals=0) -> Tensor

    Rounds each element of `input` to `decimals` digits after the point (a negative `decimals`: before
    it); halfway cases go to the even neighbour.

    Args:
        input (Tensor): the input.
        decimals (int): how many decimal places to keep. Default: ``0``.

    Returns:
        Tensor: the rounded tensor.

    Example::

        >>> torch.round(torch.tensor([0.5, 1.5, 2.5, -0.7]))
        tensor([ 0.,  2.,  2., -1.])
        >>> torch.round(torch.tensor([1.2345, 123.4]), decimals=2)
        tensor([  1.2300, 123.4000])
    """
    which, values = _round_args.parse(args, kwargs)
    return _round_ops[which](*values)


def round_(self, *args, **kwargs):
    which, values = _round_method_args.parse(args, kwargs)
    return call_inplace(_round_ops[which].spec, (self, *values))


@pointwise("logit", method=True, inplace=True, promote="float", operands=(0,))
def logit(input, eps=None):
    """The log-odds of each element of `input`: ``log(p / (1 - p))``; with `eps`, ``p`` is first clamped to
    [`eps`, 1 - `eps`].

    Args:
        input (Tensor): the probabilities.
        eps (float, optional): the clamping bound (default: no clamping, so 0 and 1 give -inf and inf).

    Returns:
        Tensor: the log-odds.

    Example::

        >>> torch.logit(torch.tensor([0.5, 0.75, 1.0]))
        tensor([0.0000, 1.0986,    inf])
        >>> torch.logit(torch.tensor([0.0, 1.0]), eps=1e-6)
        tensor([-13.8155,  13.8023])
    """
    _refuse_kinds("logit_cpu", "c", input)
    if eps is not None:
        input = np.clip(input, eps, 1 - eps)
    return np.log(input / (1 - input))


def _xlogy(input, other):
    _refuse_kinds("xlogy_cpu", "c", input, other)
    # scipy's xlogy computes a Python-number operand in float64: it takes the tensor's dtype instead
    if not is_array(other):
        other = namespace(input).asarray(other, dtype=input.dtype)
    elif not is_array(input):
        input = namespace(other).asarray(input, dtype=other.dtype)
    return _half_in_float(special().xlogy)(input, other)


_xlogy_tensor = pointwise("xlogy.Tensor", public=False, promote="float")(_xlogy)
_xlogy_scalar_self = pointwise("xlogy.Scalar_Self", public=False, promote="float")(_xlogy)
_xlogy_scalar_other = pointwise("xlogy.Scalar_Other", public=False, promote="float")(_xlogy)


_xlogy_args = Parser("xlogy(Tensor input, Tensor other)",
                     "xlogy(Tensor input, Scalar other)|hidden",   # see the module docstring
                     "xlogy(Scalar self, Tensor other)",
                     "xlogy(Tensor input, Scalar other)")
_xlogy_ops = (_xlogy_tensor, _xlogy_scalar_other, _xlogy_scalar_self, _xlogy_scalar_other)
_xlogy_method_args = _xlogy_args.method()


@register(method=True)
@_xlogy_args.signature
def xlogy(*args, **kwargs):
    """xlogy(input, other, *, out=None) -> Tensor

    ``input * log(other)`` elementwise, and 0 where `input` is 0 (unless `other` is nan).

    Args:
        input (Tensor or Number): the factor.
        other (Tensor or Number): the argument of the logarithm (broadcast with `input`).
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor: the values.

    Example::

        >>> torch.special.xlogy(torch.tensor([0.0, 1.0, 2.0]), torch.tensor([0.0, 2.0, 3.0]))
        tensor([0.0000, 0.6931, 2.1972])
        >>> torch.special.xlogy(torch.tensor([0.0, 0.0]), torch.tensor([1.0, float("nan")]))
        tensor([0., nan])
    """
    which, values = _xlogy_args.parse(args, kwargs)
    return _xlogy_ops[which](*values)


def xlogy_(self, *args, **kwargs):
    which, values = _xlogy_method_args.parse(args, kwargs)
    return call_inplace(_xlogy_ops[which].spec, (self, *values))


@pointwise("mvlgamma", method=True, inplace=True, promote="float", operands=(0,))
def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension `p`, elementwise
    (every element must be greater than ``(p - 1) / 2``).

    Args:
        input (Tensor): the input.
        p (int): the dimension.

    Returns:
        Tensor: the values.

    Example::

        >>> torch.mvlgamma(torch.tensor([2.5, 3.0]), p=2)
        tensor([0.8570, 1.5502])
    """
    if p < 1:
        raise RuntimeError(f"p has to be greater than or equal to 1, but got {p}")
    out = sum(special().gammaln(input - j / 2) for j in range(p))
    return np.asarray(out + p * (p - 1) / 4 * np.log(np.pi), dtype=input.dtype)


# the regularized lower / upper incomplete gamma functions
igamma = _binary("igamma", lambda a, x: special().gammainc(a, x), promote="float", inplace=True)
igammac = _binary("igammac", lambda a, x: special().gammaincc(a, x), promote="float", inplace=True)


@pointwise("ldexp.Tensor", method=True, inplace=True, promote="float")
def ldexp(input, other):
    """``input * 2 ** other``, elementwise.

    Args:
        input (Tensor): the mantissas.
        other (Tensor): the exponents.

    Returns:
        Tensor: a floating-point tensor.

    Example::

        >>> torch.ldexp(torch.tensor([1.0, 3.0]), torch.tensor([3, -1]))
        tensor([8.0000, 1.5000])
    """
    return input * np.exp2(other)


@pointwise("nextafter", method=True, inplace=True, promote="same")
def nextafter(input, other):
    _refuse_kinds("nextafter_cpu", "biuc", input, other)
    return np.nextafter(input, other)


@pointwise("heaviside", method=True, inplace=True, promote="same")
def heaviside(input, values):
    """The Heaviside step function: 0 where `input` < 0, 1 where `input` > 0, and the matching element of
    `values` where `input` is 0.

    Args:
        input (Tensor): the input.
        values (Tensor): the values at 0 (broadcast against `input`).

    Returns:
        Tensor: the step values.

    Example::

        >>> torch.heaviside(torch.tensor([-1.5, 0.0, 2.0]), torch.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
    """
    if input.dtype.kind == "c" or np.asarray(values).dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype != np.asarray(values).dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    return np.heaviside(input, values).astype(input.dtype)


@pointwise("frexp.Tensor", public=False)
def _frexp(input):
    if input.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(input)
    return mantissa, exponent.astype(np.int32)


@register(method=True)
def frexp(input):
    """Splits each element of `input` into a mantissa and an exponent, ``input = mantissa * 2 ** exponent``,
    with the magnitude of the mantissa in [0.5, 1) (and 0 for 0).

    Args:
        input (Tensor): a floating-point tensor.

    Returns:
        (Tensor, IntTensor): a named tuple ``(mantissa, exponent)``.

    Example::

        >>> torch.frexp(torch.tensor([8.0, 0.75]))
        torch.return_types.frexp(
        mantissa=tensor([0.5000, 0.7500]),
        exponent=tensor([4, 0], dtype=torch.int32))
    """
    return return_types.frexp(*_frexp(input))


@pointwise("nan_to_num", method=True, inplace=True)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if input.dtype.kind not in "fc":
        return input.copy()
    return np.nan_to_num(input, nan=nan, posinf=posinf, neginf=neginf)


@pointwise("angle", method=True, promote="float")
def angle(input):
    if input.dtype.kind == "c":
        return np.angle(input)
    return np.where(input < 0, np.pi, np.where(np.isnan(input), input, 0)).astype(input.dtype)   # 0 or pi


@op("conj", public=False, view=True, flips=CONJ_BIT)
def _conj(input):
    return input.view()


@register(method=True)
def conj(input):
    """The complex conjugate of `input`. A real tensor is returned as it is; for a complex tensor the
    result is, as in torch, a lazy view that shares `input`'s memory and has the conjugate bit set
    (:meth:`Tensor.is_conj`), which later operations resolve.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: the conjugate (a view).

    Example::

        >>> z = torch.tensor([1 + 2j, 3 - 1j])
        >>> torch.conj(z)
        tensor([1.-2.j, 3.+1.j])
        >>> torch.conj(z).is_conj()
        True
    """
    return _conj(input) if input.is_complex() else input


@pointwise("conj_physical", public=False)
def _conj_physical(input):
    return np.conj(input)


@register(method=True)
def conj_physical(input):
    return _conj_physical(input) if input.is_complex() else input


_conj_physical_own = pointwise("conj_physical_", public=False)(_conj_physical.spec.forward)


def conj_physical_(self):
    # a write on real tensors too, as torch's (the version counter moves, a leaf is refused)
    return call_inplace(_conj_physical_own.spec, (self,))


def _resolve(input, bit):
    """torch's resolve_conj / resolve_neg: when input has the math bit `bit`, a clone (which, as
    torch's, resolves both bits); else input itself."""
    return input.clone() if input._math_bits & bit else input


@register(method=True)
def resolve_conj(input):
    return _resolve(input, CONJ_BIT)


@register(method=True)
def resolve_neg(input):
    return _resolve(input, NEG_BIT)


@register(method=True)
def is_conj(input):
    return bool(input._math_bits & CONJ_BIT)


@register(method=True)
def is_neg(input):
    return bool(input._math_bits & NEG_BIT)


# ---- comparisons and logic (bool results, no gradient) ----------------------------------
def _comparison(name, ufunc):
    """Out of place a comparison has no derivative entry. In place (x.eq_(y) writes 0/1 in x's
    dtype) torch records it with a zero gradient: EqBackward0 for a number, EqBackward1 for a tensor."""
    fn = _binary(name, ufunc)
    in_self_dtype = _named(name, lambda input, other: ufunc(input, other).astype(input.dtype), 2)
    scalar = pointwise(f"{name}_.Scalar", public=False)(in_self_dtype)
    tensor = pointwise(f"{name}_.Tensor", public=False)(in_self_dtype)
    ops = (tensor, scalar)
    args = Parser(f"{name}_(Tensor self, Tensor other)", f"{name}_(Tensor self, Scalar other)").method()

    def in_place(self, *a, **kwargs):
        which, values = args.parse(a, kwargs)
        return call_inplace(ops[which].spec, (self, *values))
    in_place.__name__ = in_place.__qualname__ = name + "_"
    _registry.METHODS[name + "_"] = in_place
    return fn


eq = _comparison("eq", np.equal)
ne = _comparison("ne", np.not_equal)
lt = _comparison("lt", _refusing("lt_cpu", "c", np.less))   # (complex numbers have no order)
le = _comparison("le", _refusing("le_cpu", "c", np.less_equal))
gt = _comparison("gt", _refusing("gt_cpu", "c", np.greater))
ge = _comparison("ge", _refusing("ge_cpu", "c", np.greater_equal))


def _logical(name, ufunc):
    fn = pointwise(name, method=True, operands=(0, 1))(_named(name, ufunc, 2))   # operands: None is refused
    args = Parser(f"{name}_(Tensor self, Tensor other)").method()

    def in_place(self, *a, **kwargs):
        _, values = args.parse(a, kwargs)
        return call_inplace(fn.spec, (self, *values))
    in_place.__name__ = in_place.__qualname__ = name + "_"
    _registry.METHODS[name + "_"] = in_place
    return fn


logical_and = _logical("logical_and", np.logical_and)
logical_or = _logical("logical_or", np.logical_or)
logical_xor = _logical("logical_xor", np.logical_xor)
logical_not = _unary("logical_not", np.logical_not, promote=None)


def _bitwise(name, ufunc, kernel=None, nargs=2, kinds="biu"):
    def checked(*operands):
        for a in operands:
            if _kind(a) not in kinds:
                raise NotImplementedError(f"\"{kernel or name}_cpu\" not implemented for "
                                          f"'{_type_word(np.asarray(a).dtype)}'")
        return ufunc(*operands)
    forward = _named(name, checked, nargs)
    return pointwise(name, method=True, inplace=True, promote="same" if nargs == 2 else None,
                     operands=(0, 1) if nargs == 2 else None)(forward)   # (a None other: torch's TypeError)


bitwise_and = _bitwise("bitwise_and", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor)
bitwise_left_shift = _bitwise("bitwise_left_shift", np.left_shift, "lshift")
bitwise_right_shift = _bitwise("bitwise_right_shift", np.right_shift, "rshift")
bitwise_not = _bitwise("bitwise_not", np.invert, nargs=1)   # np.invert is logical not on bools

isnan = _unary("isnan", np.isnan, promote=None, inplace=False)
isinf = _unary("isinf", np.isinf, promote=None, inplace=False)
isfinite = _unary("isfinite", np.isfinite, promote=None, inplace=False)
isposinf = _unary("isposinf", _refusing("", "c", np.isposinf, RuntimeError, "isposinf does not support complex inputs."),
                  promote=None, inplace=False)
isneginf = _unary("isneginf", _refusing("", "c", np.isneginf, RuntimeError, "isneginf does not support complex inputs."),
                  promote=None, inplace=False)
signbit = _unary("signbit", _refusing("", "c", np.signbit, message="signbit is not implemented for complex tensors."),
                 promote=None, inplace=False)


@pointwise("isclose", method=True)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether each element of `input` is close to the matching element of `other`:
    ``|input - other| <= atol + rtol * |other|``.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor (broadcast against `input`).
        rtol (float): the relative tolerance. Default: ``1e-05``.
        atol (float): the absolute tolerance. Default: ``1e-08``.
        equal_nan (bool): count two NaNs as close. Default: ``False``.

    Returns:
        Tensor: a boolean tensor.

    Example::

        >>> a = torch.tensor([1.0, 2.0, float("nan")])
        >>> b = torch.tensor([1.0 + 1e-7, 2.1, float("nan")])
        >>> torch.isclose(a, b)
        tensor([ True, False, False])
        >>> torch.isclose(a, b, equal_nan=True)
        tensor([ True, False,  True])
    """
    if input.dtype != np.asarray(other).dtype:
        raise RuntimeError(f"{_type_word(input.dtype)} did not match {_type_word(np.asarray(other).dtype)}")
    if _blockwise(input, other):
        return _close_blocks(input, other, rtol, atol, equal_nan, np.empty(input.shape, bool))
    return np.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


@register(method=True)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if isinstance(input, Tensor) and isinstance(other, Tensor) and not (input._math_bits or other._math_bits) \
            and input._array.dtype == other._array.dtype and _blockwise(input._array, other._array):
        return _close_blocks(input._array, other._array, rtol, atol, equal_nan)   # (stops at the first block not close)
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


# np.isclose makes several temporaries the size of its operands: on a 300 MB per-sample gradient each one is
# fresh memory the kernel zero-fills (1.2 s, torch 1.5 s). Block by block its temporaries stay in cache (0.12 s).
_CLOSE_BLOCK = 1 << 16


def _blockwise(a, b):
    """Whether isclose(a, b) runs block by block: NumPy float arrays of one shape and dtype, C-contiguous,
    larger than a block."""
    return (type(a) is np.ndarray and type(b) is np.ndarray and a.size > _CLOSE_BLOCK and a.shape == b.shape
            and a.dtype == b.dtype and a.dtype.kind in "fc" and a.flags.c_contiguous and b.flags.c_contiguous)


def _close_blocks(a, b, rtol, atol, equal_nan, out=None):
    """np.isclose(a, b, ...) written into `out` block by block (the same values); without `out`, whether
    every element is close."""
    af, bf = a.reshape(-1), b.reshape(-1)
    of = None if out is None else out.reshape(-1)
    for i in range(0, af.size, _CLOSE_BLOCK):
        close = np.isclose(af[i:i + _CLOSE_BLOCK], bf[i:i + _CLOSE_BLOCK], rtol=rtol, atol=atol, equal_nan=equal_nan)
        if of is not None:
            of[i:i + _CLOSE_BLOCK] = close
        elif not close.all():
            return False
    return True if out is None else out


@register(method=True)
def equal(input, other):
    """``True`` if `input` and `other` have the same shape and the same elements, ``False`` otherwise.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Returns:
        bool: whether they are equal.

    Example::

        >>> torch.equal(torch.tensor([1, 2]), torch.tensor([1, 2]))
        True
        >>> torch.equal(torch.tensor([1, 2]), torch.tensor([[1, 2]]))
        False
    """
    if input.dtype is not other.dtype:   # torch compares in the promoted dtype: raises where there is none
        _dtype.promote_types(input.dtype, other.dtype)
    return input.shape == other.shape and bool(np.array_equal(resolved_data(input), resolved_data(other)))


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


_fill_args = Parser("fill(Tensor input, Tensor value)", "fill(Tensor input, Scalar value)")
_fill_ops, _fill_method_args = (_fill_tensor, _fill_scalar), _fill_args.method()
_fill_inplace_ops = (_fill_tensor_, _fill_scalar_)   # fill_ has entries of its own (FillBackward2 / 3)


@register()
@_fill_args.signature
def fill(*args, **kwargs):
    """A new tensor of `input`'s shape and dtype with every element `value` (:meth:`Tensor.fill_` fills in place).

    Args:
        input (Tensor): the tensor whose shape and dtype the result takes.
        value (Number or Tensor): the value (a 0-dim tensor).

    Returns:
        Tensor: the filled tensor.

    Example::

        >>> torch.fill(torch.zeros(2, 2), 7)
        tensor([[7., 7.],
                [7., 7.]])
    """
    which, values = _fill_args.parse(args, kwargs)
    return _fill_ops[which](*values)


def fill_(self, *args, **kwargs):
    which, values = _fill_method_args.parse(args, kwargs)
    return call_inplace(_fill_inplace_ops[which].spec, (self, *values))


@pointwise("zero_", public=False)
def _zeros(input):
    return np.zeros_like(input)


@register(method=True)
def zero_(input):
    return call_inplace(_zeros.spec, (input,))


# ---- Tensor-only methods, in-place forms of the ops with overloads, torch's other names ---------
_registry.METHODS.update(
    div_=div_, remainder_=remainder_, fmod_=fmod_, pow_=pow_, float_power_=float_power_, square_=square_,
    copysign_=copysign_, lerp_=lerp_, clamp_=clamp_, clamp_min_=clamp_min_, clamp_max_=clamp_max_, round_=round_,
    xlogy_=xlogy_, fill_=fill_, polygamma_=polygamma_, conj_physical_=conj_physical_, where=_where_method,
    polygamma=_polygamma_method)

for _name, _fn in {
    "subtract": sub, "multiply": mul, "divide": div, "negative": neg, "absolute": abs,
    "arcsin": asin, "arccos": acos, "arctan": atan, "arcsinh": asinh, "arccosh": acosh, "arctanh": atanh,
    "arctan2": atan2, "fix": trunc, "clip": clamp, "not_equal": ne, "less": lt, "less_equal": le,
    "greater": gt, "greater_equal": ge,
}.items():
    _alias(_name, _fn)

# functools.wraps gave these in-place forms their op's whole docstring: they point to it instead
for _name in ("ldexp", "logit"):
    _registry.METHODS[_name + "_"].__doc__ = (f"In-place version of :func:`ndgrad.{_name}`: writes the result "
                                              "into `input` and returns it.")

# torch also has these in-place forms as functions (torch.exp_(x))
for _name in ("neg negative reciprocal clamp clip clamp_min clamp_max exp exp2 expm1 log log2 log10 log1p sin cos "
              "tan asin acos atan sinh cosh tanh asinh acosh atanh arcsin arccos arctan arcsinh arccosh arctanh "
              "sqrt rsqrt sigmoid erf erfc abs floor ceil round trunc fix frac logit sinc xlogy square conj_physical "
              "fill zero deg2rad rad2deg nan_to_num ldexp").split():
    register(_name + "_")(_registry.METHODS[_name + "_"])


# ---- complex numbers ------------------------------------------------------------------------
_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _check_float_pair(a, b, name):
    if a.dtype == b.dtype == np.float16:   # torch: complex32 from complex(), which ndgrad has not; polar refuses
        raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'" if name == "polar" else
                                  "complex: ndgrad has no complex32 (ComplexHalf) dtype")
    if a.dtype not in _COMPLEX_OF or b.dtype not in _COMPLEX_OF:
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_type_word(a.dtype)} and {_type_word(b.dtype)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"Expected object of scalar type {_type_word(a.dtype)} but got scalar type "
                           f"{_type_word(b.dtype)} for second argument")


@op("complex")
def complex(real, imag):
    """The complex tensor ``real + imag * 1j``, elementwise (the two broadcast).

    Args:
        real (Tensor): the real parts (float32 or float64).
        imag (Tensor): the imaginary parts, of the same dtype.

    Returns:
        Tensor: a complex64 or complex128 tensor.

    Example::

        >>> torch.complex(torch.tensor([1.0, 2.0]), torch.tensor([3.0, -4.0]))
        tensor([1.+3.j, 2.-4.j])
    """
    _check_float_pair(real, imag, "complex")
    out = np.empty(np.broadcast_shapes(real.shape, imag.shape), _COMPLEX_OF[real.dtype])
    out.real, out.imag = real, imag
    return out


@op("polar")
def polar(abs, angle):
    """The complex numbers with the given absolute values and angles:
    ``abs * (cos(angle) + sin(angle) * 1j)``.

    Args:
        abs (Tensor): the absolute values (float32 or float64).
        angle (Tensor): the angles in radians, of the same dtype.

    Returns:
        Tensor: a complex tensor.

    Example::

        >>> torch.polar(torch.tensor([2.0]), torch.tensor([0.0]))
        tensor([2.+0.j])
    """
    _check_float_pair(abs, angle, "polar")
    return complex.spec.forward(abs * np.cos(angle), abs * np.sin(angle))


def _real(input):
    """The real part of `input`: for a complex tensor a view of its real parts, for a real tensor `input` itself.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: the real part.

    Example::

        >>> torch.real(torch.tensor([1 + 2j, -3 + 0.5j]))
        tensor([ 1., -3.])
    """
    if not input.is_complex():
        return input
    if input._math_bits & CONJ_BIT:   # as torch: the memory under the conjugate bit, whose real part is the same
        input = _conj(input)
    return view_as_real(input).select(-1, 0)


def _imag(input):
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    if input._math_bits & CONJ_BIT:   # as torch: the memory's imaginary part under a negative bit
        return _neg_view(view_as_real(_conj(input))).select(-1, 1)
    return view_as_real(input).select(-1, 1)


real = register("real")(_real)
imag = register("imag")(_imag)
# torch's Tensor.real / .imag are attributes (writable views), not methods
for _name in ("real", "imag"):
    _registry.METHODS.pop(_name, None)
Tensor.real = property(_real, lambda self, value: _real(self).copy_(value))
Tensor.imag = property(_imag, lambda self, value: _imag(self).copy_(value))


@op("_neg_view", public="_neg_view", method=True, view=True, flips=NEG_BIT)
def _neg_view(input):
    """torch's lazily negated view: input's memory with the negative bit toggled (is_neg)."""
    return input.view()


# ---- foreach --------------------------------------------------------------------------------
# `_foreach_<op>(tensors, ...)` applies a pointwise op to each tensor of a list (with the matching
# element of list arguments; other arguments are shared). Out of place, torch records ONE node for
# the call, with an output per tensor: each overload below is an op whose forward maps the element
# function over the lists, and whose yaml formula (formulas.foreach_vjp) runs the same element
# function's own derivative. In place (`_foreach_add_`) torch records each element's in-place op;
# so does ndgrad.
FOREACH_UNARY = ("abs", "acos", "asin", "atan", "ceil", "clone", "cos", "cosh", "erf", "erfc", "exp", "expm1",
                 "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt",
                 "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")
# name -> {overload: argument names}; the overload "" is the entry without a suffix
FOREACH_OVERLOADS = {
    **{n: {"List": ("self", "other", "alpha"), "Scalar": ("self", "scalar"), "ScalarList": ("self", "scalars")}
       for n in ("add", "sub")},
    **{n: {"List": ("self", "other"), "Scalar": ("self", "scalar"), "ScalarList": ("self", "scalars"),
           "Tensor": ("self", "other")} for n in ("mul", "div")},
    **{n: {"List": ("self", "other"), "Scalar": ("self", "scalar"), "ScalarList": ("self", "scalars")}
       for n in ("maximum", "minimum", "clamp_min", "clamp_max")},
    "pow": {"List": ("self", "exponent"), "Scalar": ("self", "exponent"), "ScalarList": ("self", "exponent"),
            "ScalarAndTensor": ("self", "exponent")},
    "lerp": {"List": ("self", "tensors1", "weights"), "Scalar": ("self", "tensors1", "weight"),
             "ScalarList": ("self", "tensors1", "weight")},
    **{n: {"Scalar": ("self", "tensor1", "tensor2", "value"), "ScalarList": ("self", "tensor1", "tensor2", "scalars")}
       for n in ("addcmul", "addcdiv")},
    "norm": {"Scalar": ("self", "ord", "dtype")},
    "max": {"": ("self",)},
    **{n: {"": ("self",)} for n in FOREACH_UNARY},
}
_ELEMENTS = {}


def foreach_element(name):
    """The pointwise function `_foreach_<name>` applies to each element (on Tensors)."""
    fn = _ELEMENTS.get(name)
    if fn is None:
        def operand(x, y):   # maximum/minimum take a tensor: a scalar becomes one of x's dtype
            return y if isinstance(y, Tensor) else full_like(x, y)
        special = {
            "add": lambda x, y, alpha=1: add(x, y, alpha=alpha),
            "sub": lambda x, y, alpha=1: sub(x, y, alpha=alpha),
            "maximum": lambda x, y: maximum(x, operand(x, y)),
            "minimum": lambda x, y: minimum(x, operand(x, y)),
            "addcmul": lambda x, a, b, value=1: addcmul(x, a, b, value=value),
            "addcdiv": lambda x, a, b, value=1: addcdiv(x, a, b, value=value),
            "norm": lambda x, ord=2, dtype=None: _linalg_vector_norm(x, ord, None, False, dtype=dtype),
            "max": lambda x: amax(x),
        }
        fn = _ELEMENTS[name] = special.get(name) or _registry.OPS[name]
    return fn


def foreach_apply(name, *args):
    """foreach_element(name) on element i of every list argument; one result per element."""
    fn = foreach_element(name)
    lists = [a for a in args if isinstance(a, (list, tuple))]
    if not lists[0]:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for other in lists[1:]:
        if len(other) != len(lists[0]):
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(lists[0])} and "
                               f"{len(other)}")
    return [fn(*[a[i] if isinstance(a, (list, tuple)) else a for a in args]) for i in range(len(lists[0]))]


def _foreach_op(name, overload, arg_names):
    def forward(*args):
        if (outs := _element_kernels(name, args)) is not None:
            return outs
        args = [[_as_tensor(x) for x in a] if isinstance(a, (list, tuple)) else _as_tensor(a) for a in args]
        with no_grad():
            return tuple(t._array for t in foreach_apply(name, *args))
    # the op's arguments are the schema's names (the glue reads them from the signature)
    forward.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in arg_names])
    forward.__name__ = forward.__qualname__ = name
    return op(f"_foreach_{name}" + (f".{overload}" if overload else ""), public=False)(forward)


def _as_tensor(x):
    return Tensor._make(x, False, None, 0) if is_array(x) else x


def _pick(name, ops, self, rest):
    """The overload torch's argument parser picks for `_foreach_<name>(self, *rest)`."""
    if "" in ops:
        return ops[""](self, *rest)
    if name == "norm":
        return ops["Scalar"](self, *rest)
    if name == "pow" and not isinstance(self, (list, tuple)):
        return ops["ScalarAndTensor"](self, *rest)
    other = rest[-1] if name in ("lerp", "addcmul", "addcdiv") else rest[0]
    if name in ("addcmul", "addcdiv") and isinstance(other, Tensor):   # a 1-D tensor of scalars
        other = other.tolist()
    if isinstance(other, (list, tuple)):
        form = "List" if other and isinstance(other[0], Tensor) else "ScalarList"
    elif isinstance(other, Tensor) and other.ndim == 0 and name in ("mul", "div"):
        form = "Tensor"
    else:
        form = "Scalar"
        if isinstance(other, Tensor):
            if other.ndim:
                raise TypeError(f"_foreach_{name}(): a tensor operand must be 0-dimensional")
            other = other.item()
    rest = list(rest)
    rest[-1 if name in ("lerp", "addcmul", "addcdiv") else 0] = other
    if form not in ops:
        raise TypeError(f"_foreach_{name}(): no overload takes a {form.lower()} here")
    return ops[form](self, *rest)


def _register_foreach():
    for name, overloads in FOREACH_OVERLOADS.items():
        ops = {ov: _foreach_op(name, ov, args) for ov, args in overloads.items()}
        if name in ("add", "sub"):
            def public(self, other, *, alpha=1, _n=name, _ops=ops):
                is_list = isinstance(other, (list, tuple)) and other and isinstance(other[0], Tensor)
                return _pick(_n, _ops, self, (other, alpha) if is_list else (other,))
        elif name in ("addcmul", "addcdiv"):
            def public(self, tensor1, tensor2, value=1, _n=name, _ops=ops):
                return _pick(_n, _ops, self, (tensor1, tensor2, value))
        elif name == "norm":
            def public(self, ord=2, dtype=None, _ops=ops):
                return _pick("norm", _ops, self, (ord, dtype))
        else:
            def public(self, *rest, _n=name, _ops=ops):
                return _pick(_n, _ops, self, rest)
        public.__name__ = f"_foreach_{name}"
        register(public.__name__)(public)
        if name not in ("norm", "max"):
            _register_foreach_inplace(name)
    _register_foreach_inplace("zero")


# The op each element's in-place method runs for Tensors and Python numbers, its keyword (if any) last:
# `_foreach_<name>_` of such arguments calls call_inplace with it directly, without the method's parser
# (an optimizer's step runs a dozen of these lists: Adam's on a small MLP 155 -> 136 us).
_ELEMENT_OPS = {"add": ("add.Tensor", "alpha"), "sub": ("sub.Tensor", "alpha"), "mul": ("mul.Tensor", None),
                "div": ("div.Tensor", None), "addcmul": ("addcmul", "value"), "addcdiv": ("addcdiv", "value"),
                "lerp": (None, None), **{n: (n, None) for n in FOREACH_UNARY if n not in ("round", "clone")}}


@functools.cache
def _element_op(name):
    """The spec of op `name` and how many arguments its forward takes."""
    spec = next(s for s in _registry.SPECS if s.name == name)
    return spec, len(inspect.signature(spec.forward).parameters)


def _element_kernels(name, args):
    """`_foreach_<name>`'s results on `args` (lists of arrays and shared values) by each element op's
    kernel, as _registry.call runs it on float arrays of one dtype and Python numbers, where nothing
    observes op calls; None for other arguments (the element ops then run, as Tensors)."""
    if (entry := _ELEMENT_OPS.get(name)) is None or not _registry.ops_unobserved():
        return None
    op_name = entry[0]
    if name == "lerp":
        weight = args[2]
        op_name = "lerp.Tensor" if type(weight) is _ndarray or type(weight) in (list, tuple) and weight and \
            type(weight[0]) is _ndarray else "lerp.Scalar"
    spec = _element_op(op_name)[0]
    lists = [a for a in args if type(a) in (list, tuple)]
    if not lists or any(len(a) != len(args[0]) for a in lists):
        return None
    outs = []
    for i in range(len(args[0])):
        xs = [a[i] if type(a) in (list, tuple) else a for a in args]
        first = xs[0]
        if type(first) is not _ndarray or first.dtype.kind not in "fc":
            return None
        for x in xs[1:]:
            if not (type(x) is _ndarray and x.dtype is first.dtype or type(x) is float or type(x) is int):
                return None
        kernel = spec.kernel if spec.large is None or first.size < _pool.MIN_ELEMENTS else spec.large
        out = kernel(*xs)
        if type(out) is not _ndarray:
            return None
        outs.append(out)
    return tuple(outs)


_ndarray = np.ndarray


def _element_call(name, t, xs, kwargs):
    """(spec, args) of the in-place element op for plain arguments (see _ELEMENT_OPS); None otherwise."""
    if type(t) not in _NOT_OVERRIDING or (entry := _ELEMENT_OPS.get(name)) is None:
        return None
    op_name, keyword = entry
    for x in xs:
        if (k := type(x)) not in _NOT_OVERRIDING or k is not Tensor and k is not float and k is not int:
            return None
    if kwargs and (keyword is None or len(kwargs) > 1 or keyword not in kwargs):
        return None
    if name == "lerp":
        op_name = "lerp.Tensor" if len(xs) == 2 and type(xs[1]) is Tensor else "lerp.Scalar"
    spec, arity = _element_op(op_name)
    if keyword is not None and len(xs) == arity - 2:
        xs = xs + [kwargs.get(keyword, 1)]
    elif kwargs:
        return None
    return (spec, (t, *xs)) if len(xs) == arity - 1 else None


def _register_foreach_inplace(name):
    """`_foreach_<name>_`: each element's in-place op (its method `<name>_`, else a copy_ of the result)."""
    def inplace(self, *args, **kwargs):
        lean = _registry.inplace_unobserved()   # (asked once for the list: an optimizer's step makes a dozen)
        for i, t in enumerate(self):
            xs = [a[i] if isinstance(a, (list, tuple)) else a for a in args]
            if (call := _element_call(name, t, xs, kwargs)) is not None:
                if not (lean and _registry.lean_inplace(*call)):
                    call_inplace(*call)
                continue
            method = getattr(t, name + "_", None)
            if name in ("addcmul", "addcdiv") and len(xs) == 3:   # the methods take `value` by keyword only
                kwargs = {**kwargs, "value": xs.pop()}
            if method is not None:
                method(*xs, **kwargs)
            else:
                t.copy_(foreach_element(name)(t, *xs, **kwargs))
    inplace.__name__ = f"_foreach_{name}_"
    register(inplace.__name__)(inplace)


_register_foreach()


# ---- api: integer gcd / lcm (torch's kernels take integer dtypes only, as the bitwise ops do)
gcd = _bitwise("gcd", np.gcd, kinds="iu")
lcm = _bitwise("lcm", np.lcm, kinds="iu")


@register("isreal", method=True)
def isreal(input):
    """Whether each element of `input` is real: its imaginary part is 0 (every element of a real tensor is).

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: a boolean tensor.

    Example::

        >>> torch.isreal(torch.tensor([1 + 0j, 2 + 1j]))
        tensor([ True, False])
    """
    if input.is_complex():
        return input.imag == 0
    return full_like(input, True, dtype=_dtype.bool_)
