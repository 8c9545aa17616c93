"""Distances and the losses built on them (pairwise_distance, cosine_similarity, triplet margin
losses): torch composes these from other ops, and so does ndgrad, so the recorded graph is torch's
(NormBackward1, DivBackward0, ClampMinBackward0...); pdist is the op of ops/distance.py.
"""
from ...autograd.grad_mode import no_grad
from ...ops._registry import autocast_as
from ...ops.distance import pdist
from ...ops.linalg_decompositions import vector_norm
from ...ops.loss import REDUCTIONS, _reduce, _reduction as legacy_reduction
from ...ops.pointwise import clamp_min, minimum
from ...ops.reduction import _norm_dim
from ...ops.shape import broadcast_tensors

__all__ = ["cosine_similarity", "pairwise_distance", "pdist", "triplet_margin_loss",
           "triplet_margin_with_distance_loss"]


def _reduction(reduction):
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return REDUCTIONS[reduction]


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The `p`-norm distance between the vectors of `x1` and `x2` over the last dimension:
    ``||x1 - x2 + eps||_p`` (the two broadcast).

    Args:
        x1 (Tensor): the first vectors.
        x2 (Tensor): the second vectors.
        p (float): the order of the norm. Default: ``2.0``.
        eps (float): added to the difference, to avoid a zero norm. Default: ``1e-6``.
        keepdim (bool): keep the last dimension with size 1. Default: ``False``.

    Returns:
        Tensor: the distances.

    Example::

        >>> a = torch.tensor([[0.0, 0.0], [1.0, 1.0]])
        >>> b = torch.tensor([[3.0, 4.0], [1.0, 1.0]])
        >>> torch.pairwise_distance(a, b, eps=0.0)
        tensor([5., 0.])
    """
    last = max(x1.ndim, x2.ndim) - 1
    return _norm_dim(x1 - x2 + eps, p, last if last >= 0 else 0, keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between `x1` and `x2` along `dim` (the two broadcast):
    ``sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps))``.

    Args:
        x1 (Tensor): the first tensor.
        x2 (Tensor): the second tensor.
        dim (int): the dimension of the vectors. Default: ``1``.
        eps (float): the smallest norm used, to avoid division by zero. Default: ``1e-8``.

    Returns:
        Tensor: the similarities, with `dim` removed.

    Example::

        >>> a = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> b = torch.tensor([[0.0, 1.0], [2.0, 2.0]])
        >>> torch.cosine_similarity(a, b)
        tensor([0.0000, 1.0000])
    """
    for x in (x1, x2):
        if x.is_complex():   # (torch's common dtype must be floating; the norms below would drop the phase)
            raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {x.dtype.title}")

    def unit(x):
        norm = vector_norm(x, 2, dim, True).clone()
        with no_grad():
            norm.clamp_min_(eps)
        return x / norm
    if x1.shape != x2.shape:   # broadcast first: a size-1 dim normalized alone would give +-1
        x1, x2 = broadcast_tensors(x1, x2)
    return (unit(x1) * unit(x2)).sum(dim)


def _triplet_checks(name, anchor, positive, negative):
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if len(set(dims)) != 1 or dims[0] not in (1, 2):
        raise RuntimeError(f"{name}: The anchor, positive, and negative tensors are expected to have the same "
                           f"number of dimensions (1 or 2), but got: anchor {dims[0]}D, positive {dims[1]}D, "
                           f"and negative {dims[2]}D inputs")


@autocast_as("triplet_margin_loss")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """The triplet loss ``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the p-norm distance.
    See `torch.nn.TripletMarginLoss`.

    Args:
        anchor (Tensor): `(N, D)` or `(D)`.
        positive (Tensor): the shape of `anchor`.
        negative (Tensor): the shape of `anchor`.
        margin (float): the margin. Default: ``1.0``.
        p (float): the norm degree of the distance. Default: ``2.0``.
        eps (float): added to the differences, for stability. Default: ``1e-6``.
        swap (bool): use the smaller of ``d(a, n)`` and ``d(p, n)``. Default: ``False``.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example::

        >>> a = torch.tensor([[0.0, 0.0], [1.0, 1.0]])
        >>> p = torch.tensor([[0.0, 1.0], [1.0, 1.0]])
        >>> n = torch.tensor([[1.0, 1.0], [1.0, 0.5]])
        >>> torch.nn.functional.triplet_margin_loss(a, p, n, reduction='none')
        tensor([0.5858, 0.5000])
    """
    red = legacy_reduction(reduction, size_average, reduce)
    _triplet_checks("triplet_margin_loss", anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(clamp_min(margin + d_pos - d_neg, 0), red)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """The triplet loss ``max(d(a, p) - d(a, n) + margin, 0)`` with a distance function of
    your choice. See `torch.nn.TripletMarginWithDistanceLoss`.

    Args:
        anchor (Tensor): `(N, *)` or `(*)`.
        positive (Tensor): the shape of `anchor`.
        negative (Tensor): the shape of `anchor`.
        distance_function (callable, optional): maps two tensors to their (non-negative) distances;
            ``None`` is `pairwise_distance`.
        margin (float): the margin, positive. Default: ``1.0``.
        swap (bool): use the smaller of ``d(a, n)`` and ``d(p, n)``. Default: ``False``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example::

        >>> cos = lambda x, y: 1 - torch.nn.functional.cosine_similarity(x, y)
        >>> a = torch.tensor([[1.0, 0.0]])
        >>> torch.nn.functional.triplet_margin_with_distance_loss(
        ...     a, torch.tensor([[1.0, 1.0]]), torch.tensor([[0.0, 1.0]]), distance_function=cos)
        tensor(0.2929)
    """
    red = _reduction(reduction)
    if margin <= 0:
        raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
    _triplet_checks("triplet_margin_with_distance_loss", anchor, positive, negative)
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        d_neg = minimum(d_neg, distance(positive, negative))
    return _reduce(clamp_min(margin + d_pos - d_neg, 0), red)
