"""torch.distributions.one_hot_categorical: OneHotCategorical, and its straight-through variant whose
rsample passes the gradient of the probabilities through the (discrete) one-hot sample."""
from .._tensor import Size
from .discrete import OneHotCategorical

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategoricalStraightThrough(OneHotCategorical):
    has_rsample = True

    def rsample(self, sample_shape=Size()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs  # cached, so the gradient reaches the parameters
        return samples + (probs - probs.detach())
