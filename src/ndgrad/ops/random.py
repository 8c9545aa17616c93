"""Random ops: the factories (rand, randn, randint, randperm, normal and their _like forms) and the
in-place fills (normal_, uniform_, bernoulli_, random_, exponential_, ...), drawn from a Generator.

Samples carry no gradient: ops that take differentiable inputs (normal(mean, std), bernoulli(p),
`x.clone().normal_()`) have derivatives.yaml entries with zero gradients, so their grad_fn is
torch's (NormalBackward3, ...). The in-place fills write through `call_inplace` like any in-place op.
"""
import numpy as np

from .. import _dtype
from ._registry import call_inplace, op, register
from .._random import get_rng_state, rng, set_rng_state
from .._tensor import Tensor
from ._schema import Parser
from .creation import _FACTORY_KWARGS, _check_device, _check_out, _dtype_arg, _new, _shape

register("get_rng_state")(get_rng_state)
register("set_rng_state")(set_rng_state)


def _float_only(fname, d):
    if d._rank < 2:
        raise NotImplementedError(f"{fname}: draws floating-point numbers; dtype {d} is not supported "
                                  "(use randint for integers)")


def _uniform(gen, shape, np_dtype):
    """Uniform samples in [0, 1) of a real or complex dtype."""
    if np_dtype.kind == "c":
        real = np.float32 if np_dtype == np.complex64 else np.float64
        return (_uniform(gen, shape, np.dtype(real)) + 1j * _uniform(gen, shape, np.dtype(real))).astype(np_dtype)
    if np_dtype in (np.float32, np.float64):
        return rng(gen).random(shape, dtype=np_dtype)
    # narrower floats: rounding may reach 1.0, which the interval excludes
    below_one = np.nextafter(np_dtype.type(1), np_dtype.type(0))
    return np.minimum(rng(gen).random(shape).astype(np_dtype), below_one)


def _standard_normal(gen, shape, np_dtype):
    """N(0, 1) samples; complex ones have independent real and imaginary parts of variance 1/2."""
    if np_dtype.kind == "c":
        real = np.float32 if np_dtype == np.complex64 else np.float64
        parts = rng(gen).standard_normal((2,) + tuple(shape), dtype=real) * np.sqrt(0.5, dtype=real)
        return (parts[0] + 1j * parts[1]).astype(np_dtype)
    if np_dtype in (np.float32, np.float64):
        return rng(gen).standard_normal(shape, dtype=np_dtype)
    return rng(gen).standard_normal(shape).astype(np_dtype)


# ---- factories ------------------------------------------------------------------------------
# Most factories have two overloads in torch: with a generator (a required keyword) and without.
def _generator_overloads(head, rest=""):
    return (f"{head}, *, Generator? generator, Tensor? out=None, {_FACTORY_KWARGS}{rest})",
            f"{head}, *, Tensor? out=None, {_FACTORY_KWARGS}{rest})")


def _without_generator(which, values, n):
    """(generator, the values after it) of overload `which` of _generator_overloads, n positional values."""
    return (values[n], values[n + 1:]) if which % 2 == 0 else (None, values[n:])


_rand_args = Parser(*_generator_overloads("rand(SymInt[] size"))
_randn_args = Parser(*_generator_overloads("randn(SymInt[] size"))


@register()
@_rand_args.signature
def rand(*args, **kwargs):
    """Samples of the uniform distribution on [0, 1).

    Args:
        size: the shape, as ints or one sequence.
        generator: the generator to draw from (default: the global one, seeded by
            `torch.manual_seed`).
        dtype: a floating dtype (default: the default float dtype).
        requires_grad: whether autograd records operations on the result.

    Returns:
        Tensor: the samples. ndgrad's generator is not PyTorch's: the same seed gives other numbers.

    Example::

        >>> x = torch.rand(2, 3)
        >>> x.shape, bool(((0 <= x) & (x < 1)).all())
        (torch.Size([2, 3]), True)
    """
    which, values = _rand_args.parse(args, kwargs)
    generator, (out, dtype, layout, device, pin_memory, requires_grad) = _without_generator(which, values, 1)
    _check_out("rand", out)
    _check_device("rand", device)
    d = _dtype_arg("rand", dtype)
    _float_only("rand", d)
    return _new(_uniform(generator, _shape(values[0]), d.np), requires_grad)


@register()
@_randn_args.signature
def randn(*args, **kwargs):
    """Samples of the standard normal distribution (mean 0, variance 1).

    Args:
        size: the shape, as ints or one sequence.
        generator: the generator to draw from (default: the global one, seeded by
            `torch.manual_seed`).
        dtype: a floating dtype (default: the default float dtype).
        requires_grad: whether autograd records operations on the result.

    Returns:
        Tensor: the samples. ndgrad's generator is not PyTorch's: the same seed gives other numbers.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> a = torch.randn(3)
        >>> _ = torch.manual_seed(0)
        >>> torch.equal(a, torch.randn(3))
        True
    """
    which, values = _randn_args.parse(args, kwargs)
    generator, (out, dtype, layout, device, pin_memory, requires_grad) = _without_generator(which, values, 1)
    _check_out("randn", out)
    _check_device("randn", device)
    d = _dtype_arg("randn", dtype)
    _float_only("randn", d)
    return _new(_standard_normal(generator, _shape(values[0]), d.np), requires_grad)


def _integers(gen, low, high, shape, np_dtype):
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return rng(gen).integers(low, high, size=shape, dtype=np.int64).astype(np_dtype)


_randint_args = Parser(*_generator_overloads("randint(SymInt high, SymInt[] size"),
                       *_generator_overloads("randint(SymInt low, SymInt high, SymInt[] size"))


@register()
@_randint_args.signature
def randint(*args, **kwargs):
    """randint(low=0, high, size, *, generator=None, dtype=torch.int64, requires_grad=False) -> Tensor

    A tensor of `size` filled with random integers drawn uniformly from [`low`, `high`).

    Args:
        low (int): the smallest value. Default: ``0``.
        high (int): one more than the largest value.
        size (tuple of int): the shape.
        generator (torch.Generator, optional): the generator to draw from.
        dtype (torch.dtype): the dtype of the result. Default: ``torch.int64``.

    Returns:
        Tensor: the random integers.

    Example::

        >>> x = torch.randint(3, 10, (2, 4))
        >>> x.shape, x.dtype
        (torch.Size([2, 4]), torch.int64)
        >>> bool(((x >= 3) & (x < 10)).all())
        True
    """
    which, values = _randint_args.parse(args, kwargs)
    n = 2 if which < 2 else 3   # (high, size) or (low, high, size)
    generator, (out, dtype, layout, device, pin_memory, requires_grad) = _without_generator(which, values, n)
    low, high, size = (0, *values[:2]) if n == 2 else values[:3]
    _check_out("randint", out)
    _check_device("randint", device)
    d = _dtype_arg("randint", dtype, _dtype.int64)
    return _new(_integers(generator, low, high, _shape(size, "randint"), d.np), requires_grad)


_randperm_args = Parser(*_generator_overloads("randperm(SymInt n"))


@register()
@_randperm_args.signature
def randperm(*args, **kwargs):
    """A random permutation of the integers 0, ..., `n` - 1.

    Args:
        n (int): the number of integers.
        generator (torch.Generator, optional): the generator to draw from.
        dtype (torch.dtype): the dtype of the result. Default: ``torch.int64``.

    Returns:
        Tensor: the permutation.

    Example::

        >>> p = torch.randperm(5)
        >>> p.sort().values
        tensor([0, 1, 2, 3, 4])
    """
    which, values = _randperm_args.parse(args, kwargs)
    generator, (out, dtype, layout, device, pin_memory, requires_grad) = _without_generator(which, values, 1)
    n = values[0]
    _check_out("randperm", out)
    _check_device("randperm", device)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return _new(rng(generator).permutation(n).astype(_dtype_arg("randperm", dtype, _dtype.int64).np),
                requires_grad)


def _like_dtype(fname, input, dtype, device):
    _check_device(fname, device)
    return _dtype_arg(fname, dtype, input.dtype)


@register()
def rand_like(input, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False, memory_format=None):
    d = _like_dtype("rand_like", input, dtype, device)
    _float_only("rand_like", d)
    return _new(_uniform(generator, input._array.shape, d.np), requires_grad)


@register()
def randn_like(input, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,
               requires_grad=False, memory_format=None):
    d = _like_dtype("randn_like", input, dtype, device)
    _float_only("randn_like", d)
    return _new(_standard_normal(generator, input._array.shape, d.np), requires_grad)


_randint_like_args = Parser(*(f"randint_like(Tensor input, {bounds}, *, {generator}MemoryFormat? memory_format=None, "
                              f"{_FACTORY_KWARGS})" for bounds in ("SymInt low, SymInt high", "Tensor high", "SymInt high")
                              for generator in ("Generator? generator, ", "")))


@register()
@_randint_like_args.signature
def randint_like(*args, **kwargs):
    """randint_like(input, low=0, high, *, dtype=None, requires_grad=False) -> Tensor

    A tensor of `input`'s shape (and, unless `dtype` is given, dtype) filled with random integers drawn
    uniformly from [`low`, `high`).

    Args:
        input (Tensor): the tensor whose shape and dtype the result takes.
        low (int): the smallest value. Default: ``0``.
        high (int): one more than the largest value.
        dtype (torch.dtype, optional): the dtype of the result.

    Returns:
        Tensor: the random integers.

    Example::

        >>> x = torch.randint_like(torch.zeros(2, 3), 5)
        >>> x.shape, x.dtype
        (torch.Size([2, 3]), torch.float32)
        >>> bool(((x >= 0) & (x < 5)).all())
        True
    """
    which, values = _randint_like_args.parse(args, kwargs)
    n = 3 if which < 2 else 2   # (input, low, high) or (input, high)
    generator, (_, dtype, layout, device, pin_memory, requires_grad) = _without_generator(which, values, n)
    input, low, high = values[:3] if n == 3 else (values[0], 0, values[1])
    if which in (2, 3):   # a 0-dim tensor high
        high = int(high.item())
    d = _like_dtype("randint_like", input, dtype, device)
    return _new(_integers(generator, low, high, input._array.shape, d.np), requires_grad)


# ---- normal: four forms, as in torch --------------------------------------------------------
def _check_std(std):
    if isinstance(std, Tensor):
        if np.any(std._array < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def _normal_sample(mean, std, generator, out_dtype, shape=None):
    if shape is None:
        shape = np.broadcast_shapes(np.shape(mean), np.shape(std))
    return (mean + std * _standard_normal(generator, shape, out_dtype)).astype(out_dtype, copy=False)


@op("normal.Tensor_float", public=False)
def _normal_tensor_float(mean, std=1.0, generator=None):
    return _normal_sample(mean, std, generator, mean.dtype)


@op("normal.float_Tensor", public=False)
def _normal_float_tensor(mean, std, generator=None):
    return _normal_sample(mean, std, generator, std.dtype)


@op("normal.Tensor_Tensor", public=False)
def _normal_tensor_tensor(mean, std, generator=None):
    return _normal_sample(mean, std, generator, mean.dtype)


_normal_args = Parser("normal(Tensor mean, Tensor std, *, Generator? generator=None, Tensor? out=None)",
                      "normal(Tensor mean, float std=1, *, Generator? generator=None, Tensor? out=None)",
                      "normal(float mean, Tensor std, *, Generator? generator=None, Tensor? out=None)",
                      "normal(float mean, float std, SymInt[] size, *, Generator? generator=None, Tensor? out=None, "
                      f"{_FACTORY_KWARGS})")
_NORMAL = (_normal_tensor_tensor, _normal_tensor_float, _normal_float_tensor)


@register()
@_normal_args.signature
def normal(*args, **kwargs):
    """normal(mean, std, *, generator=None, out=None) -> Tensor
    normal(mean, std, size, *, generator=None, out=None) -> Tensor

    Samples from normal distributions N(`mean`, `std`²): one per element of the broadcast `mean` and
    `std` tensors (either may be a Python number when the other is a tensor), or, with two numbers
    and a `size`, a tensor of that shape.

    ndgrad draws its own numbers (NumPy's), not the ones torch draws after the same seed.

    Args:
        mean (Tensor or float): the means.
        std (Tensor or float): the standard deviations (non-negative).
        size (tuple of int, optional): the shape, when `mean` and `std` are numbers.
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        Tensor: the samples.

    Example::

        >>> torch.normal(0.0, 1.0, (2, 3)).shape
        torch.Size([2, 3])
        >>> torch.normal(torch.tensor([1.0, 2.0]), 0.0)
        tensor([1., 2.])
    """
    which, (mean, std, *rest) = _normal_args.parse(args, kwargs)
    for t in (mean, std):
        if isinstance(t, Tensor) and t.dtype._rank < 2:
            raise NotImplementedError(f"normal: mean and std must be floating-point tensors, got {t.dtype}")
    _check_std(std)
    if which < 3:
        generator, out = rest
        _check_out("normal", out)
        return _NORMAL[which](mean, float(std) if which == 1 else std, generator)
    size, generator, out, dtype, layout, device, pin_memory, requires_grad = rest
    _check_out("normal", out)
    _check_device("normal", device)
    d = _dtype_arg("normal", dtype)
    _float_only("normal", d)
    return _new(_normal_sample(mean, std, generator, d.np, _shape(size, "normal")), requires_grad)


# ---- in-place fills: x.normal_(), x.uniform_(), ... -------------------------------------------
# Each fill is an op whose forward draws a fresh array of self's shape and dtype; `call_inplace`
# writes it into self and records the entry's (zero-gradient) node when self has history.
def _fill_op(entry, draw):
    """The op spec for `entry`, drawing with draw(generator, shape, np_dtype, *params)."""
    def forward(self, *params):
        return np.asarray(draw(params[-1], self.shape, self.dtype, *params[:-1])).astype(self.dtype, copy=False)
    forward.__name__ = "_" + entry.replace(".", "_")
    return op(entry, public=False)(forward).spec


def _fill(name, spec, self, params, generator, check=None, floating=True):
    if floating and self.dtype._rank != 2:
        raise NotImplementedError(f"{name}: fills floating-point tensors only, got {self.dtype}")
    if check is not None:
        check(*params)
    return call_inplace(spec, (self,) + tuple(params) + (generator,))


def _check_lambda(lambd):
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")


def _check_probability(p):
    values = p._array if isinstance(p, Tensor) else p
    if np.any((values < 0) | (values > 1)):
        raise RuntimeError("bernoulli: probabilities must be in [0, 1]")


def _bernoulli_draw(gen, shape, dtype, p):
    return _uniform(gen, shape, np.dtype(np.float64)) < p


_NORMAL_ = _fill_op("normal_", lambda g, shape, dtype, mean, std: mean + std * _standard_normal(g, shape, dtype))
_UNIFORM_ = _fill_op("uniform_", lambda g, shape, dtype, low, high: low + (high - low) * _uniform(g, shape, dtype))
_EXPONENTIAL_ = _fill_op("exponential_", lambda g, shape, dtype, lambd: rng(g).exponential(1.0 / lambd, shape))
_GEOMETRIC_ = _fill_op("geometric_", lambda g, shape, dtype, p: rng(g).geometric(p, shape))
_CAUCHY_ = _fill_op("cauchy_", lambda g, shape, dtype, median, sigma: median + sigma * rng(g).standard_cauchy(shape))
_LOG_NORMAL_ = _fill_op("log_normal_", lambda g, shape, dtype, mean, std: rng(g).lognormal(mean, std, shape))
_BERNOULLI_TENSOR_ = _fill_op("bernoulli_.Tensor", _bernoulli_draw)
_BERNOULLI_FLOAT_ = _fill_op("bernoulli_.float", _bernoulli_draw)
_RANDOM_FROM_ = _fill_op("random_.from", lambda g, shape, dtype, low, high: _integers(g, low, high, shape, dtype))
_RANDOM_TO_ = _fill_op("random_.to", lambda g, shape, dtype, high: _integers(g, 0, high, shape, dtype))
_RANDOM_ = _fill_op("random_", lambda g, shape, dtype: _integers(g, 0, _full_range(dtype), shape, dtype))


def _full_range(dtype):
    """random_() draws from [0, this): every integer the dtype holds exactly."""
    digits = {np.float16: 11, np.float32: 24, np.float64: 53}.get(dtype.type)
    return (1 << digits) + 1 if digits else int(np.iinfo(dtype).max)


@register(method=True)
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    return _fill("normal_", _NORMAL_, self, (mean, std), generator, lambda m, s: _check_std(s))


@register(method=True)
def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    def check(low, high):
        if low > high:
            raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low:g} > to={high:g}")
    return _fill("uniform_", _UNIFORM_, self, (from_, to), generator, check)


@register(method=True)
def exponential_(self, lambd=1.0, *, generator=None):
    return _fill("exponential_", _EXPONENTIAL_, self, (lambd,), generator, _check_lambda)


@register(method=True)
def geometric_(self, p, *, generator=None):
    def check(p):
        if not 0 < p < 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return _fill("geometric_", _GEOMETRIC_, self, (p,), generator, check)


@register(method=True)
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    return _fill("cauchy_", _CAUCHY_, self, (median, sigma), generator)


@register(method=True)
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    def check(mean, std):
        if not std > 0:
            raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return _fill("log_normal_", _LOG_NORMAL_, self, (mean, std), generator, check)


_bernoulli__args = Parser("bernoulli_(Tensor self, Tensor p, *, Generator? generator=None)",
                          "bernoulli_(Tensor self, float p=0.5, *, Generator? generator=None)").method()


@register(method=True)
def bernoulli_(self, *args, **kwargs):
    which, (p, generator) = _bernoulli__args.parse(args, kwargs)
    spec = (_BERNOULLI_TENSOR_, _BERNOULLI_FLOAT_)[which]
    return _fill("bernoulli_", spec, self, (p,), generator, _check_probability, floating=False)


_random__args = Parser("random_(Tensor self, *, Generator? generator=None)",
                       "random_(Tensor self, int from, int? to, *, Generator? generator=None)",
                       "random_(Tensor self, int to, *, Generator? generator=None)").method()


@register(method=True)
def random_(self, *args, **kwargs):
    """random_(input, from=0, to=None, *, generator=None) -> Tensor

    Fills `input` in place with random integers drawn uniformly from [`from`, `to`); without `to`,
    up to the largest integer that `input`'s dtype holds exactly (its mantissa's range for a float).

    Args:
        input (Tensor): the tensor to fill.
        from (int): the smallest value. Default: ``0``.
        to (int, optional): one more than the largest value.
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        Tensor: `input`.

    Example::

        >>> x = torch.empty(4).random_(2, 5)
        >>> bool(((x >= 2) & (x < 5)).all())
        True
    """
    which, (*bounds, generator) = _random__args.parse(args, kwargs)
    if which == 1 and bounds[1] is None:   # random_(from, None): up to the end of random_()'s range
        bounds[1] = _full_range(self._array.dtype)
    return _fill("random_", (_RANDOM_, _RANDOM_FROM_, _RANDOM_TO_)[which], self, tuple(bounds), generator,
                 floating=False)


# ---- sampling from tensors of parameters ------------------------------------------------------
@op("bernoulli", public=False)
def _bernoulli(input, generator=None):
    return _bernoulli_draw(generator, input.shape, input.dtype, input).astype(input.dtype)


@op("bernoulli.p", public=False)
def _bernoulli_p(input, p, generator=None):
    return _bernoulli_draw(generator, input.shape, input.dtype, p).astype(input.dtype)


_bernoulli_args = Parser("bernoulli(Tensor input, *, Generator? generator=None, Tensor? out=None)",
                         "bernoulli(Tensor input, float p, *, Generator? generator=None)")


@register(method=True)
@_bernoulli_args.signature
def bernoulli(*args, **kwargs):
    """bernoulli(input, *, generator=None) -> Tensor
    bernoulli(input, p, *, generator=None) -> Tensor

    Draws 0 or 1 for each element: 1 with the probability held by that element of `input`, or with
    the probability `p` for every element of a tensor of `input`'s shape.

    Args:
        input (Tensor): the probabilities (each in [0, 1]), or, with `p`, the tensor whose shape and dtype the result takes.
        p (float, optional): one probability for every element.
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        Tensor: the 0/1 samples, in `input`'s dtype.

    Example::

        >>> torch.bernoulli(torch.tensor([0.0, 1.0, 1.0, 0.0]))
        tensor([0., 1., 1., 0.])
        >>> torch.bernoulli(torch.zeros(3), 1.0)
        tensor([1., 1., 1.])
    """
    which, values = _bernoulli_args.parse(args, kwargs)
    if which == 0:
        input, generator, out = values
        _check_out("bernoulli", out)
        _check_probability(input)
        return _bernoulli(input, generator)
    input, p, generator = values
    _check_probability(p)
    return _bernoulli_p(input, p, generator)


@op("poisson", public=False)
def _poisson(input, generator=None):
    return rng(generator).poisson(input).astype(input.dtype)


@register()
def poisson(input, generator=None):
    """Draws one sample from a Poisson distribution for each element of `input`, that element being its rate.

    Args:
        input (Tensor): the rates (non-negative).
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        Tensor: the samples, in `input`'s dtype.

    Example::

        >>> torch.poisson(torch.zeros(3))
        tensor([0., 0., 0.])
        >>> torch.poisson(torch.full((2, 2), 4.0)).shape
        torch.Size([2, 2])
    """
    if np.any(input._array < 0):
        raise RuntimeError("poisson: rates must be non-negative")
    return _poisson(input, generator)


@register(method=True)
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Draws `num_samples` category indices per row of `input`, whose elements are the (not necessarily
    normalised) probabilities of the categories.

    Without replacement, a category is drawn at most once per row, so `num_samples` may not exceed the
    number of categories with a non-zero probability.

    Args:
        input (Tensor): the probabilities, 1-D (one distribution) or 2-D (one per row).
        num_samples (int): how many indices to draw per row.
        replacement (bool): draw with replacement. Default: ``False``.
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        LongTensor: the indices, of shape (`num_samples`,) or (rows, `num_samples`).

    Example::

        >>> torch.multinomial(torch.tensor([0.0, 0.0, 1.0]), 2, replacement=True)
        tensor([2, 2])
        >>> torch.multinomial(torch.tensor([[1.0, 0.0], [0.0, 1.0]]), 1)
        tensor([[0],
                [1]])
    """
    _check_out("multinomial", out)
    p = input._array
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if p.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype.title}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > p.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rows = np.atleast_2d(p).astype(np.float64)
    if not np.all(np.isfinite(rows) & (rows >= 0)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(rows.sum(-1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    gen = rng(generator)
    if replacement:
        cdf = np.cumsum(rows / rows.sum(-1, keepdims=True), -1)
        u = gen.random((rows.shape[0], num_samples))
        picks = np.stack([np.minimum(np.searchsorted(c, v, side="right"), len(c) - 1) for c, v in zip(cdf, u)])
    else:
        with np.errstate(divide="ignore"):
            keys = gen.exponential(size=rows.shape) / rows
        picks = np.argsort(keys, -1, kind="stable")[:, :num_samples]
    return _new(picks.reshape(p.shape[:-1] + (num_samples,)).astype(np.int64), False)


# ---- api: binomial
@register()
def binomial(count, prob, generator=None):
    """Draws one sample from Binomial(`count`, `prob`) for each pair of elements (the number of successes
    in `count` trials of success probability `prob`). Not differentiable, as in torch.

    Args:
        count (Tensor): the numbers of trials (a floating tensor).
        prob (Tensor): the success probabilities, in [0, 1].
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        Tensor: the samples, in `count`'s dtype.

    Example::

        >>> torch.binomial(torch.tensor([5.0, 10.0]), torch.tensor([1.0, 0.0]))
        tensor([5., 0.])
    """
    n, p = np.broadcast_arrays(count._array, prob._array)
    return _new(rng(generator).binomial(n.astype(np.int64), p).astype(count._array.dtype))
