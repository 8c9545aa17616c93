"""Loss modules: _Loss (reduction, with torch's legacy size_average/reduce) and one module per
loss of ndgrad.nn.functional."""
import math
import warnings

from .. import functional as F
from .distance import PairwiseDistance
from .linear import Linear
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .module import Module


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        self.reduction = reduction


def _legacy_reduction(size_average, reduce):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  stacklevel=3)
    return reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """The mean squared error: ``(input - target) ** 2``, reduced.

    Args:
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Target: `(*)`, the shape of the input.
        Output: a scalar, or `(*)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.MSELoss()
        >>> loss(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.0, 5.0]))
        tensor(2.6667)
    """
    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """The negative log likelihood loss: for log-probabilities `input` and class indices `target`, the
    loss of a sample is ``-weight[t] * input[t]`` with ``t`` its target class.

    With ``reduction='mean'`` the losses are divided by the sum of the weights of the targets; samples
    whose target is `ignore_index` count for nothing.

    Args:
        weight (Tensor, optional): a rescaling weight per class, of shape `(C)`.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        ignore_index (int): a target value that contributes no loss. Default: ``-100``.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(N, C)`, `(C)` or `(N, C, d1, ...)`: log-probabilities (e.g. from `LogSoftmax`).
        Target: `(N)`, `()` or `(N, d1, ...)`: class indices in ``[0, C)``.
        Output: a scalar, or the target's shape with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.NLLLoss()
        >>> logp = torch.tensor([[-0.5, -1.0, -2.0], [-3.0, -0.1, -2.5]])
        >>> loss(logp, torch.tensor([0, 1]))
        tensor(0.3000)
    """
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """The cross entropy between the softmax of unnormalised scores (logits) and a target.

    The target holds class indices (as for `NLLLoss`) or, with the input's shape, class probabilities.
    For class indices this is ``NLLLoss`` applied to ``log_softmax(input, 1)``.

    Args:
        weight (Tensor, optional): a rescaling weight per class, of shape `(C)`.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        ignore_index (int): a target class index that contributes no loss. Default: ``-100``.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        label_smoothing (float): in ``[0, 1]``: the share of the target mass spread uniformly over the
            classes. Default: ``0.0``.

    Shape:
        Input: `(N, C)`, `(C)` or `(N, C, d1, ...)`: logits.
        Target: `(N)`, `()` or `(N, d1, ...)` class indices, or probabilities of the input's shape.
        Output: a scalar, or the per-sample shape with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.CrossEntropyLoss()
        >>> logits = torch.tensor([[2.0, 0.5, -1.0], [0.0, 0.0, 3.0]])
        >>> loss(logits, torch.tensor([0, 2]))
        tensor(0.1681)
        >>> loss(logits, torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]))
        tensor(0.9181)
    """
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class LinearCrossEntropyLoss(_WeightedLoss):
    """The cross entropy of a linear layer's logits: :class:`CrossEntropyLoss` of ``self.linear(input)``,
    through :func:`ndgrad.nn.functional.linear_cross_entropy`.

    The layer (``self.linear``, a :class:`Linear`) has ``num_classes * prod(out_features)`` outputs,
    read as logits of shape ``(N, num_classes, *out_features)``.

    Args:
        in_features (int): the size of each input sample.
        num_classes (int): the number of classes, `C`.
        out_features (tuple of int, optional): the extra dimensions of a K-dimensional loss. Default: ``()``.
        bias (bool, optional): whether the linear layer adds a bias. Default: ``False``.
        device, dtype (optional): of the linear layer's parameters.
        reduction (str, optional): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        weight (Tensor, optional): a rescaling weight per class, of shape `(C)`.
        ignore_index (int, optional): a target class index that contributes no loss (``-100`` when ``None``
            and the target holds class indices).
        label_smoothing (float, optional): in ``[0, 1]``. Default: ``0.0``.
        options (LinearCrossEntropyOptions, optional): torch's chunking options (kept; ndgrad does not chunk).

    Example::

        >>> loss = torch.nn.LinearCrossEntropyLoss(3, 4)
        >>> loss(torch.randn(5, 3), torch.tensor([0, 1, 2, 3, 0])).shape
        torch.Size([])
    """
    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction="mean", weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if not 0 <= label_smoothing <= 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight, None, None, reduction)
        self.num_classes, self.out_features = num_classes, out_features
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing
        # Linear's weight is 2-D: the class dims are folded into its outputs and unfolded in forward
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input, target):
        shape = (self.num_classes, *self.out_features)
        bias = None if self.linear.bias is None else self.linear.bias.reshape(shape)
        return F.linear_cross_entropy(input, self.linear.weight.reshape(*shape, self.linear.in_features), target,
                                      linear_bias=bias, weight=self.weight, reduction=self.reduction,
                                      ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
                                      options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, reduction={self.reduction}, "
                f"ignore_index={self.ignore_index}, label_smoothing={self.label_smoothing}, options={self.options}")


class L1Loss(_Loss):
    """The mean absolute error: ``|input - target|``, reduced.

    Args:
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Target: `(*)`, the shape of the input.
        Output: a scalar, or `(*)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.L1Loss()
        >>> loss(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.0, 5.0]))
        tensor(1.3333)
    """
    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """A squared error for small differences and an absolute one for large: ``0.5 * d ** 2 / beta``
    where ``|d| < beta``, ``|d| - 0.5 * beta`` elsewhere, with ``d = input - target``.

    Args:
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        beta (float): where the loss changes from squared to linear (not negative). Default: ``1.0``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Target: `(*)`, the shape of the input.
        Output: a scalar, or `(*)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.SmoothL1Loss(reduction='none')
        >>> loss(torch.tensor([0.5, 3.0]), torch.tensor([0.0, 0.0]))
        tensor([0.1250, 2.5000])
    """
    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """The Huber loss: ``0.5 * d ** 2`` where ``|d| < delta``, ``delta * (|d| - 0.5 * delta)`` elsewhere,
    with ``d = input - target`` (`SmoothL1Loss` times `delta`).

    Args:
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        delta (float): where the loss changes from squared to linear (positive). Default: ``1.0``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Target: `(*)`, the shape of the input.
        Output: a scalar, or `(*)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.HuberLoss(reduction='none', delta=2.0)
        >>> loss(torch.tensor([0.5, 3.0]), torch.tensor([0.0, 0.0]))
        tensor([0.1250, 4.0000])
    """
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class SoftMarginLoss(_Loss):
    """The two-class logistic loss ``log(1 + exp(-target * input))`` for targets of 1 or -1.

    Args:
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Target: `(*)`, the shape of the input, of 1 and -1.
        Output: a scalar, or `(*)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.SoftMarginLoss()
        >>> loss(torch.tensor([2.0, -1.0]), torch.tensor([1.0, 1.0]))
        tensor(0.7201)
    """
    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """A multi-label hinge loss: each sample's target lists its classes (class indices,
    ended by the first -1) and every (target class, non-target class) pair adds
    ``max(0, 1 - (x[target] - x[other]))``, the sum divided by the number of classes.

    Args:
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(C)` or `(N, C)`.
        Target: the shape of the input, of class indices padded with -1.
        Output: a scalar, or `(N)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.MultiLabelMarginLoss()
        >>> loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class KLDivLoss(_Loss):
    """The Kullback-Leibler divergence ``target * (log(target) - input)`` with `input` given as
    log-probabilities.

    ``reduction='batchmean'`` divides the sum by the batch size (the size of the dimension 0), which is
    the mathematical KL divergence; ``'mean'`` divides by the number of elements.

    Args:
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'``, ``'batchmean'``, ``'sum'`` or ``'mean'``. Default: ``'mean'``.
        log_target (bool): `target` is given as log-probabilities too. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Target: `(*)`, the shape of the input.
        Output: a scalar, or `(*)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.KLDivLoss(reduction='batchmean')
        >>> p = torch.tensor([[0.5, 0.5]])
        >>> loss(torch.tensor([[0.25, 0.75]]).log(), p)
        tensor(0.1438)
    """
    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class BCELoss(_WeightedLoss):
    """The binary cross entropy between probabilities `input` and targets in ``[0, 1]``:
    ``-weight * (target * log(input) + (1 - target) * log(1 - input))``, the logarithms clamped at -100.

    Args:
        weight (Tensor, optional): a rescaling weight, broadcast to the input's shape.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(*)`, any number of dimensions, of probabilities.
        Target: `(*)`, the shape of the input.
        Output: a scalar, or `(*)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.BCELoss()
        >>> loss(torch.tensor([0.9, 0.2]), torch.tensor([1.0, 0.0]))
        tensor(0.1643)
    """
    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """`BCELoss` on ``sigmoid(input)``, computed stably from the logits.

    Args:
        weight (Tensor, optional): a rescaling weight, broadcast to the input's shape.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        pos_weight (Tensor, optional): a weight of the positive term, per class (broadcast along the
            last dimension); above 1 it favours recall.

    Shape:
        Input: `(*)`, any number of dimensions, of logits.
        Target: `(*)`, the shape of the input.
        Output: a scalar, or `(*)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.BCEWithLogitsLoss()
        >>> loss(torch.tensor([2.0, -1.0]), torch.tensor([1.0, 0.0]))
        tensor(0.2201)
    """
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """A multi-label loss: the binary cross entropy of ``sigmoid(input)`` against 0/1
    targets, averaged over the classes.

    Args:
        weight (Tensor, optional): a rescaling weight per class, of shape `(C)`.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(N, C)` or `(C)`.
        Target: the shape of the input, of 0 and 1.
        Output: a scalar, or `(N)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.MultiLabelSoftMarginLoss()
        >>> loss(torch.tensor([[2.0, -1.0, 0.0]]), torch.tensor([[1.0, 0.0, 1.0]]))
        tensor(0.3778)
    """
    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """A multi-class hinge loss: for a sample of target class ``y``, the sum over the other classes
    ``i`` of ``max(0, margin - x[y] + x[i]) ** p``, divided by the number of classes.

    Args:
        p (int): 1 or 2. Default: ``1``.
        margin (float): the margin. Default: ``1.0``.
        weight (Tensor, optional): a rescaling weight per class, of shape `(C)`.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(N, C)` or `(C)`.
        Target: `(N)` or `()`, class indices.
        Output: a scalar, or `(N)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.MultiMarginLoss()
        >>> loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([3]))
        tensor(0.3250)
    """
    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D instead")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class _MarginLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class MarginRankingLoss(_MarginLoss):
    """A ranking loss: ``max(0, -target * (input1 - input2) + margin)``, where a target of 1 asks
    `input1` to rank above `input2` and -1 the opposite.

    Args:
        margin (float): the margin. Default: ``0.0``.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input1: `(N)` or `()`.
        Input2: the shape of `input1`.
        Target: the shape of `input1`, of 1 and -1.
        Output: a scalar, or `(N)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.MarginRankingLoss(margin=0.5)
        >>> loss(torch.tensor([1.0, 0.2]), torch.tensor([0.0, 0.5]), torch.tensor([1.0, 1.0]))
        tensor(0.4000)
    """
    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """A hinge loss for targets of 1 and -1: ``x`` where the target is 1, ``max(0, margin - x)``
    where it is -1; `input` is usually a distance.

    Args:
        margin (float): the margin. Default: ``1.0``.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Target: `(*)`, the shape of the input.
        Output: a scalar, or `(*)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.HingeEmbeddingLoss(reduction='none')
        >>> loss(torch.tensor([0.3, 0.3]), torch.tensor([1.0, -1.0]))
        tensor([0.3000, 0.7000])
    """
    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """A loss on the cosine similarity of pairs: ``1 - cos(x1, x2)`` for a target of 1 and
    ``max(0, cos(x1, x2) - margin)`` for -1.

    Args:
        margin (float): in ``[-1, 1]``. Default: ``0.0``.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input1: `(N, D)` or `(D)`.
        Input2: the shape of `input1`.
        Target: `(N)` or `()`, of 1 and -1.
        Output: a scalar, or `(N)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.CosineEmbeddingLoss(reduction='none')
        >>> x1 = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> x2 = torch.tensor([[0.0, 1.0], [1.0, 1.0]])
        >>> loss(x1, x2, torch.tensor([1.0, -1.0]))
        tensor([1., 1.])
    """
    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """The negative log likelihood of `target` under a Poisson distribution of rate `input`:
    ``exp(input) - target * input`` with ``log_input=True``, ``input - target * log(input + eps)`` otherwise.

    Args:
        log_input (bool): `input` is the logarithm of the rate. Default: ``True``.
        full (bool): add Stirling's approximation of ``log(target!)``. Default: ``False``.
        size_average (bool, optional): deprecated, use `reduction`.
        eps (float): keeps ``log`` finite when ``log_input=False``. Default: ``1e-8``.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Target: `(*)`, the shape of the input.
        Output: a scalar, or `(*)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.PoissonNLLLoss()
        >>> loss(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
        tensor(0.8591)
    """
    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """The negative log likelihood of `target` under a normal distribution of mean `input` and
    variance `var`: ``0.5 * (log(var) + (input - target) ** 2 / var)`` (plus a constant with `full`).

    Args:
        full (bool): add the constant ``0.5 * log(2 * pi)``. Default: ``False``.
        eps (float): the variances are clamped at this value, for stability. Default: ``1e-6``.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(N, *)` or `(*)`.
        Target: the shape of the input (or one broadcastable to it).
        Var: the shape of the input, or with its last dimension (or one dimension) of size 1.
        Output: a scalar, or the input's shape with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.GaussianNLLLoss()
        >>> loss(torch.tensor([1.0, 2.0]), torch.tensor([1.5, 2.0]), torch.tensor([1.0, 0.5]))
        tensor(-0.1108)
    """
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """The triplet loss: ``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the p-norm distance,
    pulling an anchor towards its positive and away from its negative.

    Args:
        margin (float): the margin. Default: ``1.0``.
        p (float): the norm degree of the distance. Default: ``2.0``.
        eps (float): added to the differences, for stability. Default: ``1e-6``.
        swap (bool): use the smaller of ``d(a, n)`` and ``d(p, n)`` (the distance swap). Default: ``False``.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(N, D)` or `(D)` for the anchor, positive and negative.
        Output: a scalar, or `(N)` with ``reduction='none'``.

    Example::

        >>> loss = torch.nn.TripletMarginLoss(margin=1.0)
        >>> a = torch.tensor([[0.0, 0.0]])
        >>> loss(a, torch.tensor([[0.0, 1.0]]), torch.tensor([[1.0, 1.0]]))
        tensor(0.5858)
    """
    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """The triplet loss ``max(d(a, p) - d(a, n) + margin, 0)`` with a distance function
    of your choice.

    Args:
        distance_function (callable, optional): maps two tensors to their distances (of non-negative
            values); ``None`` is `PairwiseDistance`.
        margin (float): the margin, positive. Default: ``1.0``.
        swap (bool): use the smaller of ``d(a, n)`` and ``d(p, n)`` (the distance swap). Default: ``False``.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Shape:
        Input: `(N, *)` for the anchor, positive and negative, as `distance_function` takes them.
        Output: a scalar, or `(N)` with ``reduction='none'``.

    Example::

        >>> l1 = lambda x, y: (x - y).abs().sum(-1)
        >>> loss = torch.nn.TripletMarginWithDistanceLoss(distance_function=l1)
        >>> a = torch.tensor([[0.0, 0.0]])
        >>> loss(a, torch.tensor([[0.0, 1.0]]), torch.tensor([[1.0, 1.0]]))
        tensor(0.)
    """
    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function, margin=self.margin,
                                                   swap=self.swap, reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """Deprecated alias of `NLLLoss` (it warns on construction); use `NLLLoss`, which takes inputs of
    shape `(N, C, H, W)` as well.

    Args:
        weight (Tensor, optional): a rescaling weight per class, of shape `(C)`.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        ignore_index (int): a target value that contributes no loss. Default: ``-100``.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Example::

        >>> loss = torch.nn.NLLLoss()
        >>> loss(torch.full((1, 2, 1, 1), -0.5), torch.zeros(1, 1, 1, dtype=torch.long))
        tensor(0.5000)
    """
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement and see "
                      "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.", FutureWarning,
                      stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class CTCLoss(_Loss):
    """The connectionist temporal classification loss: the negative log likelihood of a target
    sequence summed over all its alignments with an unsegmented input sequence.

    Args:
        blank (int): the index of the blank label. Default: ``0``.
        reduction (str): ``'none'`` (one loss per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
            ``'mean'`` divides each loss by its target length first.
        zero_infinity (bool): replace infinite losses (input too short for the target) and their
            gradients by zero. Default: ``False``.

    Shape:
        Log_probs: `(T, N, C)` or `(T, C)`: log-probabilities over the classes, blank included.
        Targets: `(N, S)` padded, or the concatenated targets `(sum(target_lengths))`.
        Input_lengths: `(N)` or `()`, each at most `T`.
        Target_lengths: `(N)` or `()`.
        Output: a scalar, or `(N)` with ``reduction='none'``.

    Example::

        >>> ctc = torch.nn.CTCLoss()
        >>> log_probs = torch.full((3, 1, 2), 0.5).log()
        >>> ctc(log_probs, torch.tensor([[1]]), torch.tensor([3]), torch.tensor([1]))
        tensor(0.2877)
    """
    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)


__all__ = ["MSELoss", "NLLLoss", "CrossEntropyLoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "SoftMarginLoss",
           "MultiLabelMarginLoss", "KLDivLoss", "BCELoss", "BCEWithLogitsLoss", "MultiLabelSoftMarginLoss",
           "MultiMarginLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss", "PoissonNLLLoss",
           "GaussianNLLLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "NLLLoss2d", "CTCLoss",
           "LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]
