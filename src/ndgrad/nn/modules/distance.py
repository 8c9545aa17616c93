"""Distance modules: CosineSimilarity and PairwiseDistance."""
from .. import functional as F
from .module import Module


class CosineSimilarity(Module):
    """The cosine similarity along a dimension: ``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))``.

    Args:
        dim (int): the dimension along which to compare. Default: ``1``.
        eps (float): the smallest norm, to avoid division by zero. Default: ``1e-8``.

    Shape:
        Input1: `(*1, D, *2)`, with `D` at `dim`.
        Input2: the shape of `input1`, or one broadcastable to it.
        Output: `(*1, *2)`.

    Example::

        >>> cos = torch.nn.CosineSimilarity(dim=1)
        >>> cos(torch.tensor([[1.0, 0.0], [1.0, 1.0]]), torch.tensor([[0.0, 1.0], [2.0, 2.0]]))
        tensor([0.0000, 1.0000])
    """
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The p-norm distance between the rows of two inputs: ``||x1 - x2 + eps||_p`` along the last dimension.

    Args:
        p (float): the norm degree. Default: ``2.0``.
        eps (float): added to the differences, to avoid division by zero. Default: ``1e-6``.
        keepdim (bool): keep the last dimension, of size 1. Default: ``False``.

    Shape:
        Input1: `(N, D)` or `(D)`.
        Input2: the shape of `input1`, or one broadcastable to it.
        Output: `(N)` or `()` (with a last dimension of size 1 if `keepdim`).

    Example::

        >>> dist = torch.nn.PairwiseDistance(p=1.0, eps=0.0)
        >>> dist(torch.tensor([[0.0, 0.0], [1.0, 1.0]]), torch.tensor([[3.0, 4.0], [1.0, 1.0]]))
        tensor([7., 0.])
    """
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


__all__ = ["CosineSimilarity", "PairwiseDistance"]
