"""ndgrad.distributions: the part of torch.distributions built so far — Gamma, whose rsample is
reparameterized through ndgrad._standard_gamma (StandardGammaBackward0), as torch's is.
"""
import numbers

import numpy as np

from ._dtype import get_default_dtype
from ._tensor import Size, Tensor
from .autograd.grad_mode import no_grad
from .ops.creation import tensor
from .ops.special import _standard_gamma

__all__ = ["Gamma"]


def broadcast_all(*values):
    """Tensors (numbers become tensors of the first tensor's dtype, or the default one) expanded to
    their common shape."""
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None else get_default_dtype()
    tensors = [v if isinstance(v, Tensor) else tensor(float(v), dtype=dtype) for v in values]
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


class Gamma:
    """Gamma(concentration, rate): density rate^a x^(a-1) exp(-rate x) / Gamma(a) on x > 0."""

    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalars = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        self.batch_shape = Size(()) if scalars else self.concentration.shape
        self.event_shape = Size(())
        if validate_args and (bool((self.concentration <= 0).any()) or bool((self.rate <= 0).any())):
            raise ValueError("Expected parameters concentration and rate of distribution Gamma to be positive "
                             f"(got concentration {self.concentration} and rate {self.rate})")

    def _extended_shape(self, sample_shape=()):
        return tuple(sample_shape) + tuple(self.batch_shape)

    def rsample(self, sample_shape=()):
        """Samples that carry the gradient with respect to concentration and rate."""
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # keep samples positive without recording the clamp in the graph (as torch does)
        value.detach().clamp_(min=float(np.finfo(value.detach().numpy().dtype).tiny))
        return value

    def sample(self, sample_shape=()):
        with no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        a, rate = self.concentration, self.rate
        return a * rate.log() + (a - 1) * value.log() - rate * value - a.lgamma()

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __repr__(self):
        return f"Gamma(concentration: {self.concentration}, rate: {self.rate})"
