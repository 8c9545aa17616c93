"""CopySlices: the node that an in-place op on a view installs as its base's new history.

The base's gradient passes through unchanged except in the region the view covers, where the
in-place op's own node (`fn`) maps it back to the gradient of the view's old value.
"""
from .node import Node, _next_seq


class CopySlices(Node):
    __slots__ = ("view_fn", "fn")

    def __init__(self, base_edge, base_meta, view_fn, fn):
        self.view_fn = view_fn
        self.fn = fn
        self.next_functions = (base_edge,) + tuple(fn.next_functions[1:])
        self._meta = [base_meta] + list(fn._meta[1:])
        self._sequence_nr_ = _next_seq()
        self._saved = None
        self._out_meta = None
        self._extra = None

    def name(self):
        return "torch::autograd::CopySlices"

    def _apply(self, grads, mask, create_graph):
        if self.fn is None:
            self._unpack_saved()   # (saves nothing itself) raises torch's "backward a second time" error
        # fn's self-gradient is wanted only when the base's is: fn saved nothing for it otherwise
        res_mask = list(mask)
        if not mask[0]:
            return [None] + list(self.fn._apply([self.view_fn(grads[0]).clone()], res_mask, create_graph)[1:])
        result = grads[0].clone()
        region = self.view_fn(result)
        res = self.fn._apply([region.clone()], res_mask, create_graph)
        if res[0] is None:
            region.zero_()
        else:
            region.copy_(res[0])
        return [result] + list(res[1:])

    def _release(self):
        # as torch: drop fn, not fn's saved values, which fn may still need where a create_graph
        # gradient reaches it directly (the op's saved output unpacks to fn once the view is gone)
        self.fn = None
