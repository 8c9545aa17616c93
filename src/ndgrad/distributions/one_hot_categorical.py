"""torch.distributions.one_hot_categorical: OneHotCategorical, and its straight-through variant whose
rsample passes the gradient of the probabilities through the (discrete) one-hot sample."""
from .._tensor import Size
from .discrete import OneHotCategorical

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A :class:`OneHotCategorical` whose ``rsample`` is differentiable with the straight-through
    estimator: the one-hot sample forward, the gradient of the probabilities backward.

    Args:
        probs (Tensor, optional): the (unnormalized, non-negative) probability of each category.
        logits (Tensor, optional): their (unnormalized) log-probabilities; give `probs` or `logits`.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> p = torch.tensor([0.25, 0.75], requires_grad=True)
        >>> d = torch.distributions.OneHotCategoricalStraightThrough(probs=p)
        >>> d.has_rsample, d.rsample().sum().backward(), p.grad
        (True, None, tensor([0., 0.]))
    """
    has_rsample = True

    def rsample(self, sample_shape=Size()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs  # cached, so the gradient reaches the parameters
        return samples + (probs - probs.detach())
