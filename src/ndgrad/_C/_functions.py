"""torch._C._functions: the node classes torch builds in C++ (see ndgrad._C).

AccumulateGrad is the sink node of a leaf. DelayedError and UndefinedGrad are nodes called as
functions on tensors: they return the tensors (same data) with a history whose backward raises
the given message (DelayedError, its node is an Error) or hands on no gradient (UndefinedGrad).
"""
from ..autograd.function import Error
from ..autograd.grad_mode import state as _state
from ..autograd.node import AccumulateGrad, Node, _next_seq, edge as _edge

__all__ = ["AccumulateGrad", "DelayedError", "Error", "UndefinedGrad", "UndefinedGradBackward"]


def _rewrap(inputs, make_node):
    """The inputs as new tensors on the same data, with the node make_node(inputs) as grad_fn
    when one of them requires grad and grad mode is on (outputs numbered in input order)."""
    outs = [t.detach() if t is not None else None for t in inputs]
    if _state.enabled and any(t is not None and t.requires_grad for t in inputs):
        node = make_node([t for t in inputs if t is not None])
        k = 0
        for o in outs:
            if o is not None:
                o._requires_grad, o._grad_fn, o._output_nr = True, node, k
                k += 1
    return outs


class DelayedError(Node):
    """DelayedError(msg, num_inputs)(*tensors): the tensors, whose backward raises `msg`."""
    __slots__ = ("msg", "num_inputs")

    def __init__(self, msg, num_inputs):
        self.msg, self.num_inputs = msg, num_inputs
        self.next_functions = ()
        self._sequence_nr_ = _next_seq()
        self._saved = self._meta = self._out_meta = self._extra = None

    def name(self):
        return "torch::autograd::DelayedError"

    def _num_call_args(self):
        return self.num_inputs

    def _apply(self, inputs, mask, create_graph):
        return _rewrap(inputs, lambda leaves: Error(self.msg, leaves))


class UndefinedGradBackward(Node):
    """The node of UndefinedGrad's outputs: no gradient flows through it."""
    __slots__ = ()

    def __init__(self, inputs):
        self.next_functions = tuple(_edge(t) for t in inputs)
        self._meta = [(t._data.shape, t._data.dtype) for t in inputs]
        self._out_meta = self._meta if len(inputs) > 1 else None
        self._sequence_nr_ = _next_seq()
        self._saved = self._extra = None

    def name(self):
        return "torch::autograd::UndefinedGradBackward"

    def _apply(self, grads, mask, create_graph):
        return [None] * len(self.next_functions)


class UndefinedGrad(Node):
    """UndefinedGrad()(*tensors): the tensors, through which no gradient flows back."""
    __slots__ = ()

    def __init__(self):
        self.next_functions = ()
        self._sequence_nr_ = _next_seq()
        self._saved = self._meta = self._out_meta = self._extra = None

    def name(self):
        return "torch::autograd::UndefinedGrad"

    def _num_call_args(self):
        return 1

    def _apply(self, inputs, mask, create_graph):
        return _rewrap(inputs, UndefinedGradBackward)
