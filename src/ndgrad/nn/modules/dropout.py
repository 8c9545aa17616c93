"""Dropout modules: Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout."""
from .. import functional as F
from .module import Module


class Dropout(Module):
    """In training, zeros each element with probability `p` and scales the others by ``1 / (1 - p)``, so
    that the expectation is unchanged (a regulariser); in evaluation (``module.eval()``), the identity.
    The random draws come from ndgrad's generator: the same seed does not give torch's mask.

    Args:
        p (float): the probability of zeroing an element. Default: ``0.5``.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.Dropout(p=0.5)
        >>> x = torch.ones(8)
        >>> m(x).unique()
        tensor([0., 2.])
        >>> torch.equal(m.eval()(x), x)
        True
    """
    _fn = staticmethod(F.dropout)

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    """In training, zeros whole channels (the 1-D feature maps ``input[b, c]``) with probability `p`
    and scales the others by ``1 / (1 - p)``; in evaluation, the identity. Suits convolutional features,
    whose neighbouring elements are correlated.

    Args:
        p (float): the probability of zeroing a channel. Default: ``0.5``.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(N, C, L)` or `(C, L)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.Dropout1d(p=0.5)
        >>> x = torch.ones(4, 8, 2)
        >>> m(x).unique()
        tensor([0., 2.])
        >>> torch.equal(m.eval()(x), x)
        True
    """
    _fn = staticmethod(F.dropout1d)


class Dropout2d(Dropout):
    """In training, zeros whole channels (the 2-D feature maps ``input[b, c]``) with probability `p`
    and scales the others by ``1 / (1 - p)``; in evaluation, the identity. Suits convolutional features,
    whose neighbouring elements are correlated.

    Args:
        p (float): the probability of zeroing a channel. Default: ``0.5``.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(N, C, H, W)` or `(C, H, W)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.Dropout2d(p=0.5)
        >>> x = torch.ones(4, 8, 2, 2)
        >>> m(x).unique()
        tensor([0., 2.])
        >>> torch.equal(m.eval()(x), x)
        True
    """
    _fn = staticmethod(F.dropout2d)


class Dropout3d(Dropout):
    """In training, zeros whole channels (the 3-D feature maps ``input[b, c]``) with probability `p`
    and scales the others by ``1 / (1 - p)``; in evaluation, the identity. Suits convolutional features,
    whose neighbouring elements are correlated.

    Args:
        p (float): the probability of zeroing a channel. Default: ``0.5``.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.Dropout3d(p=0.5)
        >>> x = torch.ones(4, 8, 2, 2, 2)
        >>> m(x).unique()
        tensor([0., 2.])
        >>> torch.equal(m.eval()(x), x)
        True
    """
    _fn = staticmethod(F.dropout3d)


class AlphaDropout(Dropout):
    """Dropout that keeps the mean and variance of its input (for `SELU` networks): in training, dropped
    elements are set to SELU's negative saturation value and the result is scaled and shifted to keep
    zero mean and unit variance; in evaluation, the identity.

    Args:
        p (float): the probability of zeroing an element. Default: ``0.5``.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.AlphaDropout(p=0.5)
        >>> x = torch.zeros(8)
        >>> m(x).unique().numel() <= 2
        True
        >>> torch.equal(m.eval()(x), x)
        True
    """
    _fn = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(Dropout):
    """`AlphaDropout` over whole channels: in training, each channel ``input[b, c]`` is set
    to SELU's negative saturation value with probability `p`, then the result is scaled and shifted as
    `AlphaDropout` does; in evaluation, the identity.

    Args:
        p (float): the probability of zeroing a channel. Default: ``0.5``.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(N, C, *)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.FeatureAlphaDropout(p=0.5)
        >>> x = torch.zeros(4, 8, 2)
        >>> m(x).unique().numel() <= 2
        True
        >>> torch.equal(m.eval()(x), x)
        True
    """
    _fn = staticmethod(F.feature_alpha_dropout)


__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]
