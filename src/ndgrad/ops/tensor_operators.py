"""Python operators on Tensor, each one call of a public op, so they record what torch records:
`x / 2` DivBackward0, `2 / x` reciprocal then MulBackward0, `2 - x` RsubBackward1, `2 ** x`
PowBackward2. An operand that is neither a Tensor nor a number gives NotImplemented, so Python
raises its usual TypeError (or, for == and !=, falls back to identity). Imported by ops/__init__.py
after every family has registered its ops."""
import inspect
import numbers

import numpy as np

from .._tensor import Tensor
from ._registry import OPS
from ._registry import call as _call
from ._torch_function import _FAST_SETS, _modes

_OPERAND = (Tensor, numbers.Number, np.ndarray, np.bool_)   # (NumPy's bool is no numbers.Number)
_COMMON = {Tensor, float, int, bool}   # checked by type first: ABC isinstance checks are slow
_FAST_SETS.append(_COMMON)   # emptied while a TorchFunctionMode is active: operators then go through the public op

# operator -> (op, in-place method); reflected forms below
_BINARY = {
    "add": (OPS["add"], "add_"), "sub": (OPS["sub"], "sub_"), "mul": (OPS["mul"], "mul_"), "truediv": (OPS["div"], "div_"),
    "floordiv": (OPS["floor_divide"], "floor_divide_"), "mod": (OPS["remainder"], "remainder_"),
    "pow": (OPS["pow"], "pow_"), "matmul": (OPS["matmul"], None), "and": (OPS["bitwise_and"], "bitwise_and_"),
    "or": (OPS["bitwise_or"], "bitwise_or_"), "xor": (OPS["bitwise_xor"], "bitwise_xor_"),
    "lshift": (OPS["bitwise_left_shift"], "bitwise_left_shift_"),
    "rshift": (OPS["bitwise_right_shift"], "bitwise_right_shift_"),
}
_COMPARE = {"eq": OPS["eq"], "ne": OPS["ne"], "lt": OPS["lt"], "le": OPS["le"], "gt": OPS["gt"], "ge": OPS["ge"]}

# reflected: `other <op> self`. torch keeps self first where the op commutes (2 * x is mul(x, 2))
_REFLECTED = {
    "add": OPS["add"],
    "mul": OPS["mul"],
    "and": OPS["bitwise_and"],
    "or": OPS["bitwise_or"],
    "xor": OPS["bitwise_xor"],
    "sub": lambda self, other: OPS["rsub"](self, other),
    "truediv": lambda self, other: OPS["reciprocal"](self) * other,
    "floordiv": lambda self, other: OPS["floor_divide"](other, self),
    "mod": lambda self, other: OPS["remainder"](other, self),
    "pow": lambda self, other: OPS["pow"](other, self),
    "matmul": lambda self, other: OPS["matmul"](other, self),
    "lshift": lambda self, other: OPS["bitwise_left_shift"](other, self),
    "rshift": lambda self, other: OPS["bitwise_right_shift"](other, self),
}


def _checked(fn):
    direct = _direct(fn)
    if direct is not None:   # the op glue called as fn(self, other) would call it, one frame less
        spec, defaults = direct

        def method(self, other):
            if type(other) in _COMMON and type(self) is Tensor:
                return _call(spec, (self, other, *defaults) if defaults else (self, other))
            if type(self) is not Tensor or _modes or not isinstance(other, _OPERAND):
                return _through_public(fn, self, other)
            return _call(spec, (self, other, *defaults) if defaults else (self, other))
        return method

    def method(self, other):
        if type(other) not in _COMMON and not isinstance(other, _OPERAND):
            return _through_public(fn, self, other)
        return fn(self, other)
    return method


def _through_public(fn, self, other):
    """A Tensor subclass or an operand with `__torch_function__` goes through the public op (which
    dispatches it); any other operand gives NotImplemented."""
    if isinstance(other, _OPERAND) or hasattr(type(other), "__torch_function__"):
        return fn(self, other)
    return NotImplemented


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

Tensor.__neg__ = lambda self: OPS["neg"](self)
Tensor.__pos__ = lambda self: OPS["positive"](self)
Tensor.__abs__ = lambda self: OPS["abs"](self)


def _invert(self):
    if self.dtype.is_floating_point or self.dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return OPS["bitwise_not"](self)


Tensor.__invert__ = _invert
Tensor.__getitem__ = lambda self, index: OPS["_index_get"](self, index)
Tensor.__setitem__ = lambda self, index, value: OPS["_index_set"](self, index, value)
Tensor.__rdiv__ = Tensor.__rtruediv__   # torch keeps Python 2's name as an alias
