"""ndgrad.autograd.graph: Node, GradientEdge and get_gradient_edge."""
from .node import GradientEdge, Node  # noqa: F401


def get_gradient_edge(tensor):
    """The edge through which gradients reach `tensor` (usable as backward/grad output or input)."""
    from .._dispatch import _edge
    if not tensor._requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    return GradientEdge(*_edge(tensor))
