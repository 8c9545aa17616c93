"""Distribution: the base class of torch.distributions, with its shapes and argument checks."""
import warnings

from .._tensor import Size, Tensor
from ..autograd.differentiate import grad
from ..autograd.grad_mode import no_grad
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """The base class of the probability distributions.

    A distribution has a ``batch_shape`` (independent distributions of different parameters) and an
    ``event_shape`` (the shape of one draw); subclasses implement ``sample`` / ``rsample``
    (reparameterized, differentiable), ``log_prob``, ``cdf``, ``entropy``, ``mean``, ``variance``... as
    they can, the others raise NotImplementedError.

    Args:
        batch_shape (Size, optional): the shape of the batch of distributions.
        event_shape (Size, optional): the shape of one sample.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Normal(torch.zeros(3), 1.0)
        >>> d.batch_shape, d.event_shape, d.sample((2,)).shape
        (torch.Size([3]), torch.Size([]), torch.Size([2, 3]))
    """
    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__  # torch validates by default, unless Python runs with -O

    @staticmethod
    def set_default_validate_args(value):
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set `arg_constraints = {{}}` "
                              "or initialize the distribution with `validate_args=False` to turn off validation.")
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # checked by the distribution itself
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # the other parametrisation was given
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                        f"distribution {self!r} to satisfy the constraint {constraint!r}, but found invalid "
                        f"values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A view with a larger batch_shape: the parameters are expanded (not copied)."""
        batch_shape = Size(batch_shape)
        new = self._get_checked_instance(type(self), _instance)
        new.__dict__.update(self.__dict__)
        for param, constraint in self.arg_constraints.items():
            if param in self.__dict__ and isinstance(self.__dict__[param], Tensor):
                value = self.__dict__[param]
                event = tuple(value.shape[value.dim() - _event_dim(constraint):])
                new.__dict__[param] = value.expand(tuple(batch_shape) + event)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError  # bare, as torch's (mode's has a message)

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=Size()):
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = value.dim() - len(self._event_shape)
        if value.shape[start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {value.shape} vs "
                             f"{self._event_shape}.")
        actual, expected = value.shape, self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.")
            return
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
                         for p in names)
        return f"{self.__class__.__name__}({args})"


class ExponentialFamily(Distribution):
    """The base of the distributions of an exponential family, ``p(x) = h(x) exp(<theta, T(x)> - A(theta))``.

    A subclass that gives its natural parameters ``theta`` (``_natural_params``), its log-normalizer
    ``A`` (``_log_normalizer``) and ``E[log h(X)]`` (``_mean_carrier_measure``) gets ``entropy()``
    (and the KL divergence to its own family) from the Bregman divergence of ``A``, whose gradient
    autograd computes.

    Example::

        >>> d = torch.distributions.Exponential(torch.tensor([1.0, 2.0]))
        >>> isinstance(d, torch.distributions.ExponentialFamily)
        True
        >>> torch.distributions.ExponentialFamily.entropy(d).detach()   # the generic formula
        tensor([1.0000, 0.3069])
        >>> d.entropy()   # the closed form
        tensor([1.0000, 0.3069])
    """

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """H = A(theta) - <theta, grad A(theta)> - E[log h(X)]."""
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_norm = self._log_normalizer(*params)
        grads = grad(log_norm.sum(), params, create_graph=True)
        result = -self._mean_carrier_measure + log_norm
        for p, g in zip(params, grads):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result


def _event_dim(constraint):
    try:
        return constraint.event_dim
    except NotImplementedError:
        return 0
