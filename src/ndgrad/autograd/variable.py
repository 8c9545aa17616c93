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
    """The pre-0.4 wrapper of a tensor, kept for old code: ``Variable(t, requires_grad=False)`` returns
    ``t.detach()`` with `requires_grad` set, and every tensor counts as a Variable.

    Args:
        data (Tensor): the tensor.
        requires_grad (bool, optional): whether the result requires grad.
        volatile (bool, optional): ignored (removed in torch 0.4).

    Example::

        >>> v = torch.autograd.Variable(torch.tensor([1.0]), requires_grad=True)
        >>> v, isinstance(torch.zeros(1), torch.autograd.Variable)
        (tensor([1.], requires_grad=True), True)
    """
    _execution_engine = _ExecutionEngine()

    def __new__(cls, data, requires_grad=False, volatile=False):
        return data.detach().requires_grad_(requires_grad)
