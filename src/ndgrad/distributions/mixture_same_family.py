"""MixtureSameFamily(mixture_distribution, component_distribution): a Categorical mixture over the
rightmost batch dimension of one family of component distributions."""
from .._tensor import Size
from ..autograd.grad_mode import no_grad
from . import constraints
from .discrete import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """A mixture of distributions of one family: `component_distribution`'s rightmost batch dimension
    holds the components, weighted by the categorical `mixture_distribution`.

    Args:
        mixture_distribution (Categorical): the weights of the components.
        component_distribution (Distribution): the components, batched along the rightmost batch dimension.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> mix = torch.distributions.Categorical(probs=torch.tensor([0.5, 0.5]))
        >>> comp = torch.distributions.Normal(torch.tensor([-1.0, 1.0]), torch.tensor([1.0, 1.0]))
        >>> d = torch.distributions.MixtureSameFamily(mix, comp)
        >>> d.mean, d.variance, d.log_prob(torch.tensor(0.0))
        (tensor(0.), tensor(2.), tensor(-1.4189))
    """
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of torch.distributions.Distribution")
        mix_batch, comp_batch = mixture_distribution.batch_shape, component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mix_batch), reversed(comp_batch)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mix_batch}) is not compatible with "
                                 f"`component_distribution.batch_shape`({comp_batch})")
        k_mix = mixture_distribution.logits.shape[-1]
        k_comp = component_distribution.batch_shape[-1]
        if k_mix != k_comp:
            raise ValueError(f"`mixture_distribution component` ({k_mix}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_comp})")
        self._num_component = k_mix
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(comp_batch, component_distribution.event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component, new._event_ndims = self._num_component, self._event_ndims
        Distribution.__init__(new, batch_shape, new._component_distribution.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    mixture_distribution = property(lambda self: self._mixture_distribution)
    component_distribution = property(lambda self: self._component_distribution)

    def _pad_mixture_dimensions(self, x):
        """Mixture weights (batch..., k) shaped to broadcast with the components' (batch..., k, event...)."""
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad_ndims + xs[-1:] + (1,) * self._event_ndims)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        # law of total variance: E[Var(X | k)] + Var(E[X | k])
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        expected_var = (probs * self.component_distribution.variance).sum(dim)
        var_of_means = (probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2)).sum(dim)
        return expected_var + var_of_means

    def cdf(self, x):
        x = self._pad(x)
        return (self.component_distribution.cdf(x) * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = self.mixture_distribution.logits.log_softmax(-1)
        return (log_prob_x + log_mix_prob).logsumexp(-1)

    def sample(self, sample_shape=Size()):
        with no_grad():
            sample_shape = Size(sample_shape)
            sample_len, batch_len = len(sample_shape), len(self.batch_shape)
            gather_dim = sample_len + batch_len
            es = self.event_shape
            mix_sample = self.mixture_distribution.sample(sample_shape)
            comp_samples = self.component_distribution.sample(sample_shape)
            index = mix_sample.reshape(tuple(mix_sample.shape) + (1,) * (len(es) + 1))
            index = index.repeat(*((1,) * (mix_sample.dim() + 1)), *es)
            return comp_samples.gather(gather_dim, index).squeeze(gather_dim)

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self.mixture_distribution!r},\n  {self.component_distribution!r})")
