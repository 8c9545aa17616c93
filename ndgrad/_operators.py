"""Python operators on Tensor, each one call of a public op (so they record like the op)."""
import ndgrad as _nd

from ._tensor import Tensor

_BINARY = {
    "add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "floordiv": "floor_divide",
    "mod": "remainder", "pow": "pow", "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
    "xor": "bitwise_xor", "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
}
_REFLECTED = {"add": "add", "mul": "mul", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor"}
_COMPARE = {"eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge"}


def _bind(op_name, swap=False):
    def method(self, other):
        fn = getattr(_nd, op_name, None)
        if fn is None:
            raise NotImplementedError(f"operator needs ndgrad.{op_name}, which is not implemented yet")
        if swap:
            return fn(other, self)
        return fn(self, other)
    return method


def _bind_inplace(op_name):
    def method(self, other):
        fn = getattr(Tensor, op_name + "_", None)
        if fn is None:
            raise NotImplementedError(f"operator needs Tensor.{op_name}_, which is not implemented yet")
        return fn(self, other)
    return method


for _py, _op in _BINARY.items():
    setattr(Tensor, f"__{_py}__", _bind(_op))
    setattr(Tensor, f"__i{_py}__", _bind_inplace(_op))
for _py, _op in _REFLECTED.items():
    setattr(Tensor, f"__r{_py}__", _bind(_op, swap=True))
for _py, _op in _COMPARE.items():
    setattr(Tensor, f"__{_py}__", _bind(_op))

# reflected ops whose torch form differs from swapping the arguments
Tensor.__rsub__ = lambda self, other: _nd.rsub(self, other)
Tensor.__rtruediv__ = lambda self, other: _nd.reciprocal(self) * other
Tensor.__rpow__ = lambda self, other: _nd.pow(other, self)
Tensor.__rmatmul__ = lambda self, other: _nd.matmul(other, self)
Tensor.__rfloordiv__ = lambda self, other: _nd.floor_divide(other, self)
Tensor.__rmod__ = lambda self, other: _nd.remainder(other, self)
Tensor.__neg__ = lambda self: _nd.neg(self)
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = lambda self: _nd.abs(self)
Tensor.__invert__ = lambda self: _nd.bitwise_not(self)
Tensor.__getitem__ = lambda self, index: _nd._index_get(self, index)
Tensor.__setitem__ = lambda self, index, value: _nd._index_set(self, index, value)
