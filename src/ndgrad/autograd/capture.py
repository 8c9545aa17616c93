"""Captures: the gradients a backward returns instead of accumulating (autograd.grad,
backward(inputs=), engine.run_backward(inputs=)).

Only the nodes on a path to a captured edge run (`targets`); the gradient arriving at each
captured edge is kept, after its tensor hooks, in `results`. With accumulate=True a captured
captured edge's node also runs (backward(inputs=): a leaf's AccumulateGrad fills `.grad`, a
non-leaf's node runs its hooks, retains_grad among them).
"""
from .graph_walk import nodes_reaching


class Capture:
    __slots__ = ("at", "needed", "targets", "results", "accumulate")

    def __init__(self, root, edges, accumulate):
        self.at = {}   # node -> [(output_nr, position in edges)]
        for k, (node, nr) in enumerate(edges):
            self.at.setdefault(node, []).append((nr, k))
        self.needed = nodes_reaching(root, self.at)
        self.targets = self.needed | self.at.keys()   # every node that receives a gradient
        self.results = [None] * len(edges)
        self.accumulate = accumulate

    def take(self, node, grads):
        """Keep what arrives at `node` for its captured edges; whether the node itself must run."""
        slots = self.at.get(node)
        if slots is not None:
            for nr, k in slots:
                self.results[k] = grads[nr] if nr < len(grads) else None
        return node in self.needed or (self.accumulate and slots is not None)
