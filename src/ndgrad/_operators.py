"""Python operators on Tensor, each one call of a public op, so they record what torch records:
`x / 2` DivBackward0, `2 / x` reciprocal then MulBackward0, `2 - x` RsubBackward1, `2 ** x`
PowBackward2. An operand that is neither a Tensor nor a number gives NotImplemented, so Python
raises its usual TypeError (or, for == and !=, falls back to identity)."""
import inspect
import numbers

import numpy as np

import ndgrad as _nd

from .ops._registry import call as _call
from ._tensor import Tensor

_OPERAND = (Tensor, numbers.Number, np.ndarray)
_COMMON = frozenset((Tensor, float, int, bool))   # checked by type first: ABC isinstance checks are slow

# operator -> (op, in-place method); reflected forms below
_BINARY = {
    "add": (_nd.add, "add_"), "sub": (_nd.sub, "sub_"), "mul": (_nd.mul, "mul_"), "truediv": (_nd.div, "div_"),
    "floordiv": (_nd.floor_divide, "floor_divide_"), "mod": (_nd.remainder, "remainder_"),
    "pow": (_nd.pow, "pow_"), "matmul": (_nd.matmul, None), "and": (_nd.bitwise_and, "bitwise_and_"),
    "or": (_nd.bitwise_or, "bitwise_or_"), "xor": (_nd.bitwise_xor, "bitwise_xor_"),
    "lshift": (_nd.bitwise_left_shift, "bitwise_left_shift_"),
    "rshift": (_nd.bitwise_right_shift, "bitwise_right_shift_"),
}
_COMPARE = {"eq": _nd.eq, "ne": _nd.ne, "lt": _nd.lt, "le": _nd.le, "gt": _nd.gt, "ge": _nd.ge}

# reflected: `other <op> self`. torch keeps self first where the op commutes (2 * x is mul(x, 2))
_REFLECTED = {
    "add": _nd.add,
    "mul": _nd.mul,
    "and": _nd.bitwise_and,
    "or": _nd.bitwise_or,
    "xor": _nd.bitwise_xor,
    "sub": lambda self, other: _nd.rsub(self, other),
    "truediv": lambda self, other: _nd.reciprocal(self) * other,
    "floordiv": lambda self, other: _nd.floor_divide(other, self),
    "mod": lambda self, other: _nd.remainder(other, self),
    "pow": lambda self, other: _nd.pow(other, self),
    "matmul": lambda self, other: _nd.matmul(other, self),
    "lshift": lambda self, other: _nd.bitwise_left_shift(other, self),
    "rshift": lambda self, other: _nd.bitwise_right_shift(other, self),
}


def _checked(fn):
    direct = _direct(fn)
    if direct is not None:   # the op glue called as fn(self, other) would call it, one frame less
        spec, defaults = direct

        def method(self, other):
            if type(other) not in _COMMON and not isinstance(other, _OPERAND):
                return NotImplemented
            return _call(spec, (self, other, *defaults) if defaults else (self, other))
        return method

    def method(self, other):
        if type(other) not in _COMMON and not isinstance(other, _OPERAND):
            return NotImplemented
        return fn(self, other)
    return method


def _direct(fn):
    """(spec, default values of the arguments after the two operands) when fn is an `@op` public
    function whose other arguments all have defaults; None otherwise (hand-written dispatchers)."""
    spec = getattr(fn, "spec", None)
    if spec is None:
        return None
    params = list(inspect.signature(fn).parameters.values())[2:]
    if any(p.default is p.empty for p in params):
        return None
    return spec, tuple(p.default for p in params)


def _in_place(name):
    def method(self, other):
        if type(other) not in _COMMON and not isinstance(other, _OPERAND):
            return NotImplemented
        return getattr(self, name)(other)
    return method


for _py, (_fn, _inplace) in _BINARY.items():
    setattr(Tensor, f"__{_py}__", _checked(_fn))
    setattr(Tensor, f"__r{_py}__", _checked(_REFLECTED[_py]))
    if _inplace:
        setattr(Tensor, f"__i{_py}__", _in_place(_inplace))
for _py, _fn in _COMPARE.items():
    setattr(Tensor, f"__{_py}__", _checked(_fn))

Tensor.__neg__ = lambda self: _nd.neg(self)
Tensor.__pos__ = lambda self: _nd.positive(self)
Tensor.__abs__ = lambda self: _nd.abs(self)


def _invert(self):
    if self.dtype.is_floating_point or self.dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _nd.bitwise_not(self)


Tensor.__invert__ = _invert
Tensor.__getitem__ = lambda self, index: _nd._index_get(self, index)
Tensor.__setitem__ = lambda self, index, value: _nd._index_set(self, index, value)
