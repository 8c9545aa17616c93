"""torch.autograd.Variable, kept for old code: `Variable(t)` gives a tensor, every tensor is a
Variable, and `Variable._execution_engine.queue_callback(fn)` runs fn at the end of the
running backward (after every node), as torch's engine does."""
from . import engine
from .._tensor import Tensor


class _ExecutionEngine:
    @staticmethod
    def queue_callback(callback):
        engine.queue_callback(callback)


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    _execution_engine = _ExecutionEngine()

    def __new__(cls, data, requires_grad=False, volatile=False):
        return data.detach().requires_grad_(requires_grad)
