"""Transforms: invertible (or not) maps between constrained spaces with the log |det J| that
TransformedDistribution and the constraint registry need, as torch.distributions.transforms."""
import functools
import math
import numbers
import operator
import weakref

from .._tensor import Size
from ..linalg import cholesky
from ..nn import functional as F
from ..ops.creation import eye, full_like, zeros_like
from ..ops.shape import broadcast_shapes, cat, stack
from . import constraints
from .utils import _eps, _sum_rightmost, _tiny, broadcast_all, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
           "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "Transform",
           "identity_transform"]


class Transform:
    """The base of the transforms: an invertible (or not) map ``y = t(x)`` between constrained spaces.

    A transform gives ``t.inv`` (so that ``t.inv(t(x))`` is `x` when it is bijective), its
    ``domain`` and ``codomain`` constraints, and ``log_abs_det_jacobian(x, y)`` for
    :class:`~ndgrad.distributions.TransformedDistribution`. With ``cache_size=1`` the last
    ``(x, y)`` pair is remembered, so that ``t.inv(t(x))`` returns `x` itself (no round-off, no
    recomputation). A subclass defines ``_call``, ``_inverse`` and ``log_abs_det_jacobian``.

    Args:
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.ExpTransform(cache_size=1)
        >>> x = torch.tensor([0.0, 1.0])
        >>> y = t(x)
        >>> y, t.log_abs_det_jacobian(x, y)
        (tensor([1.0000, 2.7183]), tensor([0., 1.]))
        >>> t.inv(y) is x
        True
        >>> t.inv.inv is t
        True
    """
    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y = None, None
        self._inv = None

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None  # a weak reference does not pickle
        return state

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (kept through a weak reference, so that the pair forms no cycle)."""
        inv = None if self._inv is None else self._inv()
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self):
        """+1 or -1: whether a bijective scalar transform increases or decreases."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape):
        """The shape of t(x) for x of `shape`."""
        return shape

    def inverse_shape(self, shape):
        """The shape of t.inv(y) for y of `shape`."""
        return shape


class _InverseTransform(Transform):
    """t.inv: the same map read backwards."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform  # a strong reference: the inverse keeps its forward transform alive

    @property
    def inv(self):
        return self._inv

    domain = constraints.dependent_property(lambda self: self._inv.codomain)
    codomain = constraints.dependent_property(lambda self: self._inv.domain)
    bijective = property(lambda self: self._inv.bijective)
    sign = property(lambda self: self._inv.sign)

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Transforms applied one after the other (``parts[0]`` first); their log-determinants add up.

    ``ComposeTransform([])`` is the identity, which the module offers as ``identity_transform``.

    Args:
        parts (list of Transform): the transforms, in order.
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> T = torch.distributions.transforms
        >>> t = T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.ExpTransform()])
        >>> x = torch.tensor([0.0, 0.5])
        >>> t(x), t.log_abs_det_jacobian(x, t(x))
        (tensor([1.0000, 2.7183]), tensor([0.6931, 1.6931]))
        >>> torch.distributions.identity_transform(x)
        tensor([0.0000, 0.5000])
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # the input's event dimensions: enough for every part, counted back from the last codomain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim, part.domain.event_dim)
        return constraints.independent(domain, event_dim - domain.event_dim) if event_dim > domain.event_dim \
            else domain

    @constraints.dependent_property
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim, part.codomain.event_dim)
        return constraints.independent(codomain, event_dim - codomain.event_dim) if event_dim > codomain.event_dim \
            else codomain

    bijective = property(lambda self: all(p.bijective for p in self.parts))

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        inv = None if self._inv is None else self._inv()
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms, event_dim = [], self.domain.event_dim
        for part, xi, yi in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(xi, yi), event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return self.__class__.__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Another transform with its `reinterpreted_batch_ndims` rightmost dimensions made event
    dimensions: its log-determinant is summed over them.

    Args:
        base_transform (Transform): the transform applied.
        reinterpreted_batch_ndims (int): the number of dimensions to sum over.
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.IndependentTransform(torch.distributions.transforms.ExpTransform(), 1)
        >>> x = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
        >>> t.log_abs_det_jacobian(x, t(x))
        tensor([1., 5.])
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else \
            IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    domain = constraints.dependent_property(
        lambda self: constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims))
    codomain = constraints.dependent_property(
        lambda self: constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims))
    bijective = property(lambda self: self.base_transform.bijective)
    sign = property(lambda self: self.base_transform.sign)

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost `in_shape` dimensions into `out_shape`: a bijection that preserves volume
    (its log-determinant is 0).

    Args:
        in_shape (torch.Size): the event shape of the input.
        out_shape (torch.Size): the event shape of the output (as many elements).
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.ReshapeTransform((4,), (2, 2))
        >>> t(torch.arange(8.0).reshape(2, 4)).shape
        torch.Size([2, 2, 2])
        >>> t.inv(torch.ones(2, 2))
        tensor([1., 1., 1., 1.])
    """
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = Size(in_shape), Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    domain = constraints.dependent_property(lambda self: constraints.independent(constraints.real,
                                                                                 len(self.in_shape)))
    codomain = constraints.dependent_property(lambda self: constraints.independent(constraints.real,
                                                                                   len(self.out_shape)))

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else \
            ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(batch + tuple(self.out_shape))

    def _inverse(self, y):
        batch = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(batch + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    @staticmethod
    def _swap(shape, old, new):
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {old}")
        return tuple(shape[:cut]) + tuple(new)

    def forward_shape(self, shape):
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap(shape, self.out_shape, self.in_shape)


class ExpTransform(Transform):
    """The transform ``y = exp(x)``, from the real line to the positive numbers.

    Args:
        cache_size (int, optional): 1 remembers the last ``(x, y)`` pair, so that ``t.inv(t(x))`` gives `x`
            back exactly; 0 (default) caches nothing.

    Example::

        >>> t = torch.distributions.ExpTransform()
        >>> x = torch.tensor([0.0, 1.0])
        >>> t(x), t.log_abs_det_jacobian(x, t(x))
        (tensor([1.0000, 2.7183]), tensor([0., 1.]))
    """
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """The map ``y = x ** exponent`` on the positive reals.

    Args:
        exponent (Tensor or float): the exponent.
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.PowerTransform(2.0)
        >>> x = torch.tensor([1.0, 3.0])
        >>> t(x), t.inv(torch.tensor([4.0])), t.log_abs_det_jacobian(x, t(x))
        (tensor([1., 9.]), tensor([2.]), tensor([0.6931, 1.7918]))
    """
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all().item())

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    inverse_shape = forward_shape


def _clipped_sigmoid(x):
    # sigmoid kept inside (0, 1) in x's precision, so that its inverse stays finite
    return x.sigmoid().clamp(min=_tiny(x), max=1.0 - _eps(x))


class SigmoidTransform(Transform):
    """The transform ``y = 1 / (1 + exp(-x))``, from the real line to (0, 1).

    Args:
        cache_size (int, optional): 1 remembers the last ``(x, y)`` pair, so that ``t.inv(t(x))`` gives `x`
            back exactly; 0 (default) caches nothing.

    Example::

        >>> t = torch.distributions.SigmoidTransform()
        >>> t(torch.tensor([0.0, 2.0])), t.inv(torch.tensor([0.5]))
        (tensor([0.5000, 0.8808]), tensor([0.]))
    """
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        y = y.clamp(min=_tiny(y), max=1.0 - _eps(y))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(Transform):
    """The map ``y = log(1 + exp(x))``, from the reals onto the positive reals.

    Args:
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.SoftplusTransform()
        >>> y = t(torch.tensor([-1.0, 0.0, 2.0]))
        >>> y
        tensor([0.3133, 0.6931, 2.1269])
        >>> t.inv(y)
        tensor([-1.0000,  0.0000,  2.0000])
    """
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class TanhTransform(Transform):
    """The transform ``y = tanh(x)``, from the real line to (-1, 1).

    Args:
        cache_size (int, optional): 1 remembers the last ``(x, y)`` pair, so that ``t.inv(t(x))`` gives `x`
            back exactly; 0 (default) caches nothing.

    Example::

        >>> t = torch.distributions.TanhTransform()
        >>> t(torch.tensor([0.0, 1.0])), t.inv(torch.tensor([0.5]))
        (tensor([0.0000, 0.7616]), tensor([0.5493]))
    """
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) written without the cancellation of 1 - y^2
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(Transform):
    """The map ``y = |x|``. It is not injective: its inverse picks the nonnegative preimage.

    Args:
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.AbsTransform()
        >>> t(torch.tensor([-2.0, 3.0])), t.inv(torch.tensor([2.0]))
        (tensor([2., 3.]), tensor([2.]))
    """
    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """The map ``y = loc + scale * x``, over events of `event_dim` dimensions.

    Args:
        loc (Tensor or float): the shift.
        scale (Tensor or float): the scale.
        event_dim (int, optional): the size of the event (the log-determinant is summed over it).
            Default: ``0``.
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.AffineTransform(loc=1.0, scale=torch.tensor([2.0, -3.0]))
        >>> x = torch.tensor([1.0, 1.0])
        >>> t(x), t.log_abs_det_jacobian(x, t(x))
        (tensor([ 3., -2.]), tensor([0.6931, 1.0986]))
        >>> t.inv(torch.tensor([3.0, -2.0]))
        tensor([1., 1.])
    """
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real,
                                                                                    self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real,
                                                                                    self.event_dim)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else \
            AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for mine, theirs in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(mine, numbers.Number) and isinstance(theirs, numbers.Number):
                if mine != theirs:
                    return False
            elif not bool((mine == theirs).all().item()):
                return False
        return True

    __hash__ = Transform.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        if isinstance(self.scale, numbers.Real):
            result = full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self.event_dim:
            result = result.reshape(tuple(result.shape[:result.dim() - self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    inverse_shape = forward_shape


class SoftmaxTransform(Transform):
    """Unconstrained vectors to the simplex by a softmax over the last dimension.

    It is not injective (adding a constant to `x` changes nothing), so its inverse is only a right
    inverse (a log) and it has no log-determinant: use it for optimization, and
    `StickBreakingTransform` for densities.

    Args:
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.SoftmaxTransform()
        >>> t(torch.tensor([0.0, 0.0, 0.6931]))
        tensor([0.2500, 0.2500, 0.5000])
    """
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    inverse_shape = forward_shape


class StickBreakingTransform(Transform):
    """A bijection from vectors of size ``K - 1`` onto the ``K``-simplex, by stick breaking.

    Each coordinate takes a sigmoid fraction of the stick left over; offsets make ``x = 0`` map to
    the uniform point. Unlike `SoftmaxTransform` it has a log-determinant, for densities (HMC).

    Args:
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.StickBreakingTransform()
        >>> y = t(torch.zeros(3))
        >>> y
        tensor([0.2500, 0.2500, 0.2500, 0.2500])
        >>> torch.allclose(t.inv(y), torch.zeros(3), atol=1e-6)
        True
    """
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = Transform.__hash__

    @staticmethod
    def _log_offset(x, k):
        # log(K - i) for the stick pieces i = 0 .. k-1, K = k + 1
        return (x.new_ones(k).cumsum(-1).neg() + (k + 1)).log()

    def _call(self, x):
        z = _clipped_sigmoid(x - self._log_offset(x, x.shape[-1]))
        remaining = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(remaining, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        left = (1 - y_crop.cumsum(-1)).clamp(min=_tiny(y))
        return y_crop.log() - left.log() + self._log_offset(y, y_crop.shape[-1])

    def log_abs_det_jacobian(self, x, y):
        x = x - self._log_offset(x, x.shape[-1])
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Square matrices to lower-triangular ones with a positive diagonal: the strict lower part is kept,
    the diagonal exponentiated.

    Args:
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.LowerCholeskyTransform()
        >>> t(torch.tensor([[0.0, 5.0], [2.0, 0.0]]))
        tensor([[1., 0.],
                [2., 1.]])
    """
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive-definite ones: ``L L^T`` of their `LowerCholeskyTransform` ``L``.

    Args:
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.PositiveDefiniteTransform()
        >>> t(torch.tensor([[0.0, 5.0], [2.0, 0.0]]))
        tensor([[1., 2.],
                [2., 5.]])
    """
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        L = LowerCholeskyTransform()(x)
        return L @ L.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(cholesky(y))


class CatTransform(Transform):
    """Transforms applied to consecutive slices of the input along `dim` (the way :func:`ndgrad.cat` joins them).

    Args:
        tseq (list of Transform): the transforms, one per slice.
        dim (int, optional): the dimension the slices are taken along. Default: ``0``.
        lengths (list of int, optional): the size of each slice (default: 1 each).
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> T = torch.distributions.transforms
        >>> t = T.CatTransform([T.ExpTransform(), T.AffineTransform(0.0, 10.0)], dim=0, lengths=[1, 2])
        >>> t(torch.tensor([0.0, 1.0, 2.0]))
        tensor([ 1., 10., 20.])
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        assert all(isinstance(t, Transform) for t in tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        assert len(self.lengths) == len(self.transforms)
        self.dim = dim

    @functools.cached_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @functools.cached_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else \
            CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, x):
        assert -x.dim() <= self.dim < x.dim()
        assert x.size(self.dim) == self.length
        start = 0
        for t, length in zip(self.transforms, self.lengths):
            yield t, x.narrow(self.dim, start, length)
            start += length

    def _call(self, x):
        return cat([t(piece) for t, piece in self._pieces(x)], dim=self.dim)

    def _inverse(self, y):
        return cat([t.inv(piece) for t, piece in self._pieces(y)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = []
        for (t, xs), (_, ys) in zip(self._pieces(x), self._pieces(y)):
            term = t.log_abs_det_jacobian(xs, ys)
            if t.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - t.event_dim)
            terms.append(term)
        # along a batch dimension the pieces' terms are concatenated; inside an event they add up
        dim = self.dim if self.dim >= 0 else self.dim + x.dim()
        return cat(terms, dim=dim) if dim < x.dim() - self.event_dim else functools.reduce(operator.add, terms)

    bijective = property(lambda self: all(t.bijective for t in self.transforms))
    domain = constraints.dependent_property(
        lambda self: constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths))
    codomain = constraints.dependent_property(
        lambda self: constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths))


class StackTransform(Transform):
    """Transforms applied to the successive slices ``x.select(dim, i)`` of the input (the way
    :func:`ndgrad.stack` joins them).

    Args:
        tseq (list of Transform): the transforms, one per slice.
        dim (int, optional): the dimension the slices are taken along. Default: ``0``.
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> T = torch.distributions.transforms
        >>> t = T.StackTransform([T.ExpTransform(), T.AffineTransform(0.0, 10.0)], dim=1)
        >>> t(torch.tensor([[0.0, 1.0], [1.0, 2.0]]))
        tensor([[ 1.0000, 10.0000],
                [ 2.7183, 20.0000]])
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        assert all(isinstance(t, Transform) for t in tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms, self.dim = list(tseq), dim

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        assert -x.dim() <= self.dim < x.dim()
        assert x.size(self.dim) == len(self.transforms)
        return stack([t(s) for s, t in zip(self._slices(x), self.transforms)], dim=self.dim)

    def _inverse(self, y):
        assert -y.dim() <= self.dim < y.dim()
        assert y.size(self.dim) == len(self.transforms)
        return stack([t.inv(s) for s, t in zip(self._slices(y), self.transforms)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        assert -x.dim() <= self.dim < x.dim()
        assert x.size(self.dim) == len(self.transforms)
        assert -y.dim() <= self.dim < y.dim()
        assert y.size(self.dim) == len(self.transforms)
        return stack([t.log_abs_det_jacobian(xs, ys)
                      for xs, ys, t in zip(self._slices(x), self._slices(y), self.transforms)], dim=self.dim)

    bijective = property(lambda self: all(t.bijective for t in self.transforms))
    domain = constraints.dependent_property(
        lambda self: constraints.stack([t.domain for t in self.transforms], self.dim))
    codomain = constraints.dependent_property(
        lambda self: constraints.stack([t.codomain for t in self.transforms], self.dim))


class CumulativeDistributionTransform(Transform):
    """The map ``x -> distribution.cdf(x)``: a bijection onto the unit interval (its inverse is ``icdf``).

    Args:
        distribution (Distribution): a univariate distribution with ``cdf``, ``icdf`` and ``log_prob``.
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.CumulativeDistributionTransform(torch.distributions.Normal(0.0, 1.0))
        >>> t(torch.tensor([0.0, 1.0]))
        tensor([0.5000, 0.8413])
        >>> t.inv(torch.tensor([0.5]))
        tensor([0.])
    """
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else type(self)(self.distribution, cache_size=cache_size)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)


class CorrCholeskyTransform(Transform):
    """A bijection from vectors of size ``D (D - 1) / 2`` onto Cholesky factors of ``D x D``
    correlation matrices.

    ``tanh`` makes each entry a partial correlation in (-1, 1); stick breaking row by row then keeps
    every row of unit norm. The entries fill the lower triangle row by row.

    Args:
        cache_size (int, optional): 1 to remember the last ``(x, y)`` pair, 0 not to. Default: ``0``.

    Example::

        >>> t = torch.distributions.transforms.CorrCholeskyTransform()
        >>> L = t(torch.tensor([0.0, 0.0, 0.0]))
        >>> L
        tensor([[1., 0., 0.],
                [0., 1., 0.],
                [0., 0., 1.]])
        >>> (L @ L.T).diagonal()
        tensor([1., 1., 1.])
    """
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        eps = _eps(x)
        r = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # each row's remaining length: cumulative product of sqrt(1 - r^2), shifted right by one
        remaining = (1 - r.pow(2)).sqrt().cumprod(-1)
        r = r + eye(r.shape[-1], dtype=r.dtype)
        return r * F.pad(remaining[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        left = 1 - (y * y).cumsum(-1)
        left = F.pad(left[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        left = 1 - (y * y).cumsum(-1)
        stick_breaking = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return tuple(shape[:-1]) + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return tuple(shape[:-2]) + (d * (d - 1) // 2,)
