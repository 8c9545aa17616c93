"""Special functions (Bessel, erfcx, xlog1py, zeta, entr, ndtri, log_ndtr), dist and renorm,
segment_reduce, and the gamma sampler with its reparameterization gradient.

Forwards are scipy.special calls on arrays; derivatives.yaml's "special functions, fake
quantization, segment_reduce" section holds their formulas. ATen's `special_*` kernels are
registered under private names (`ndgrad._special_i1`, ...) that formulas can call;
`ndgrad/special.py` gives them torch.special's names. Fake quantization is in `quantization.py`.
"""
import numpy as np

from ..backends import is_array

from ._registry import op
from ._schema import Parser
from .._dtype import type_word
from .._tensor import _wrap_dim
from ..backends.numpy_backend import special
from .pointwise import _half_in_float, _named, _refuse_kinds, _refusing, _unary, pointwise
from .random import _gamma_sample
from .._random import generator as _generator
from .reduction import _vector_norm


# ---- pointwise special functions --------------------------------------------------------------
def _special(name, fn, half=True):
    """ATen's `special_<name>`: a one-input float op, public as ndgrad._special_<name>; float16 computed
    in float32 as torch's half kernels, or refused where torch's kernel has no half version."""
    fn = _half_in_float(fn) if half else _refusing(f"{name}_cpu", "e", fn)
    return pointwise(f"special_{name}", public=f"_special_{name}", promote="float")(_named(name, fn))


i0 = _unary("i0", _refusing("i0_vml_cpu", "c", _half_in_float(lambda x: special().i0(x))))
_special_i0e = _special("i0e", lambda x: special().i0e(x))
_special_i1 = _special("i1", lambda x: special().i1(x))
_special_i1e = _special("i1e", lambda x: special().i1e(x))
_special_erfcx = _special("erfcx", lambda x: special().erfcx(x), half=False)
_special_entr = _special("entr", lambda x: special().entr(x))
_special_ndtri = _special("ndtri", lambda x: special().ndtri(x), half=False)
_special_log_ndtr = _special("log_ndtr", lambda x: special().log_ndtr(x), half=False)


def _array_dtype(*args):
    """The result dtype of the array arguments: a Python number adapts to them, as in torch
    (scipy's ufuncs would compute float32 tensors with a Python scalar in float64)."""
    return np.result_type(*(a for a in args if is_array(a)))


def _binary(name, fn):
    """ATen's two-input `special_<name>` with its Scalar-self and Scalar-other overloads (whose
    nodes are Special<Name>Backward1 / 2 in torch); returns the public function."""
    forward = _named(name, lambda x, y: np.asarray(fn(x, y)).astype(_array_dtype(x, y), copy=False), 2)
    both = pointwise(f"special_{name}", public=f"_special_{name}", promote="float")(forward)
    scalar_self = pointwise(f"special_{name}.self_scalar", public=False, promote="float")(forward)
    scalar_other = pointwise(f"special_{name}.other_scalar", public=False, promote="float")(forward)
    # the hidden copy first, as in pointwise.py: x and a number resolve without testing x as a number
    args = Parser(f"special_{name}(Tensor input, Tensor other)",
                  f"special_{name}(Tensor input, Scalar other)|hidden",
                  f"special_{name}(Scalar self, Tensor other)",
                  f"special_{name}(Tensor input, Scalar other)")
    ops = (both, scalar_other, scalar_self, scalar_other)

    @args.signature
    def public(*a, **kwargs):
        which, values = args.parse(a, kwargs)
        return ops[which](*values)
    public.__name__ = public.__qualname__ = name
    return public


xlog1py = _binary("xlog1py", lambda x, y: special().xlog1py(x, y))
zeta = _binary("zeta", _refusing("zeta_cpu", "e", lambda x, q: special().zeta(x, q)))


# Bessel functions and orthogonal polynomials: torch gives them no derivative (their outputs do
# not require grad); their entries say so with output_differentiability: [False].
def _no_grad_special(name, fn):   # (torch's kernels for these have no half version)
    return pointwise(f"special_{name}", public=False, promote="float")(_named(name, _refusing(f"{name}_cpu", "e", fn)))


airy_ai = _no_grad_special("airy_ai", lambda x: special().airy(x)[0])
bessel_j0 = _no_grad_special("bessel_j0", lambda x: special().j0(x))
bessel_j1 = _no_grad_special("bessel_j1", lambda x: special().j1(x))
bessel_y0 = _no_grad_special("bessel_y0", lambda x: special().y0(x))
bessel_y1 = _no_grad_special("bessel_y1", lambda x: special().y1(x))
modified_bessel_i0 = _no_grad_special("modified_bessel_i0", lambda x: special().i0(x))
modified_bessel_i1 = _no_grad_special("modified_bessel_i1", lambda x: special().i1(x))
modified_bessel_k0 = _no_grad_special("modified_bessel_k0", lambda x: special().k0(x))
modified_bessel_k1 = _no_grad_special("modified_bessel_k1", lambda x: special().k1(x))
scaled_modified_bessel_k0 = _no_grad_special("scaled_modified_bessel_k0", lambda x: special().k0e(x))
scaled_modified_bessel_k1 = _no_grad_special("scaled_modified_bessel_k1", lambda x: special().k1e(x))
spherical_bessel_j0 = _no_grad_special("spherical_bessel_j0", lambda x: special().spherical_jn(0, x).astype(x.dtype))


def _third_fourth_kind(first):
    """Chebyshev V (first = 2x - 1) or W (first = 2x + 1): P0 = 1, P1 = first, P(k+1) = 2x Pk - P(k-1)."""
    def evaluate(n, x):
        n, x = np.broadcast_arrays(n, x)
        prev, cur = np.ones(x.shape), first(x)
        out = np.where(n == 0, prev, cur)
        for k in range(2, int(n.max(initial=0)) + 1):
            prev, cur = cur, 2 * x * cur - prev
            out = np.where(n == k, cur, out)
        return out
    return evaluate


_chebyshev_v = _third_fourth_kind(lambda x: 2 * x - 1)
_chebyshev_w = _third_fourth_kind(lambda x: 2 * x + 1)
_POLYNOMIALS = {
    "chebyshev_polynomial_t": lambda n, x: special().eval_chebyt(n, x),
    "chebyshev_polynomial_u": lambda n, x: special().eval_chebyu(n, x),
    "chebyshev_polynomial_v": _chebyshev_v,
    "chebyshev_polynomial_w": _chebyshev_w,
    "shifted_chebyshev_polynomial_t": lambda n, x: special().eval_sh_chebyt(n, x),
    "shifted_chebyshev_polynomial_u": lambda n, x: special().eval_sh_chebyu(n, x),
    "shifted_chebyshev_polynomial_v": lambda n, x: _chebyshev_v(n, 2 * x - 1),
    "shifted_chebyshev_polynomial_w": lambda n, x: _chebyshev_w(n, 2 * x - 1),
    "hermite_polynomial_h": lambda n, x: special().eval_hermite(n, x),
    "hermite_polynomial_he": lambda n, x: special().eval_hermitenorm(n, x),
    "laguerre_polynomial_l": lambda n, x: special().eval_laguerre(n, x),
    "legendre_polynomial_p": lambda n, x: special().eval_legendre(n, x),
}


def _polynomial(name, evaluate):
    """The degree-n polynomial at input (n truncated to an integer; 0 for negative n)."""
    def forward(input, n):
        _refuse_kinds(f"{name}_cpu", "e", input, n)
        degree = np.trunc(n).astype(np.int64)
        value = evaluate(np.maximum(degree, 0), np.asarray(input, dtype=np.float64))
        return np.where(degree < 0, 0.0, value).astype(_array_dtype(input, n))
    forward.__name__ = name
    return pointwise(f"special_{name}", public=False, promote="float")(forward)


POLYNOMIALS = {name: _polynomial(name, fn) for name, fn in _POLYNOMIALS.items()}


# ---- dist and renorm --------------------------------------------------------------------------
@op("dist", method=True, promote="same", broadcast=True)
def dist(input, other, p=2):
    """The `p`-norm of ``input - other`` (the two broadcast), over all its elements.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.
        p (float): the order of the norm. Default: ``2``.

    Returns:
        Tensor: a 0-dim tensor.

    Example::

        >>> a = torch.tensor([0.0, 0.0])
        >>> b = torch.tensor([3.0, 4.0])
        >>> torch.dist(a, b), torch.dist(a, b, p=1)
        (tensor(5.), tensor(7.))
    """
    if input.dtype.kind not in "fc":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {type_word(input.dtype)} instead.")
    return np.asarray(_vector_norm("dist", input - other, float(p), None, False))


@op("renorm", method=True, inplace=True)
def renorm(input, p, dim, maxnorm):
    """Rescales each slice of `input` along `dim` (each ``input.select(dim, i)``) whose `p`-norm exceeds
    `maxnorm` so that its norm is `maxnorm`; the other slices are kept.

    Args:
        input (Tensor): the input.
        p (float): the order of the norm.
        dim (int): the dimension that indexes the slices.
        maxnorm (float): the largest norm kept.

    Returns:
        Tensor: the renormalised tensor.

    Example::

        >>> x = torch.tensor([[3.0, 4.0], [0.3, 0.4]])
        >>> torch.renorm(x, p=2, dim=0, maxnorm=1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    dim = _wrap_dim(dim, input.ndim)
    others = tuple(d for d in range(input.ndim) if d != dim)
    norm = _vector_norm("linalg.vector_norm", input, float(p), others, True)
    factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)   # torch's scale, kept bit for bit
    return input * factor.astype(input.dtype)


# ---- segment_reduce ---------------------------------------------------------------------------
_SEGMENT_REDUCTIONS = {"sum": "sum", "mean": "mean", "prod": "prod", "max": "max", "amax": "max",
                       "min": "min", "amin": "min"}
_EMPTY = {"sum": 0.0, "mean": np.nan, "prod": 1.0, "max": -np.inf, "min": np.inf}


def _segment_offsets(data, reduce, lengths, offsets, axis, unsafe):
    """(reduction name, offsets array of shape data.shape[:axis] + (segments + 1,), axis)."""
    if reduce not in _SEGMENT_REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if data.dtype.kind not in "fc":
        raise NotImplementedError(f"segment_reduce: data must be a floating point tensor, got {data.dtype} "
                                  "(convert it with .double() or .float())")
    axis = _wrap_dim(axis, data.ndim)
    given = lengths if lengths is not None else offsets
    if given is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if given.dtype.kind not in "iu":
        raise NotImplementedError(f"segment_reduce: lengths and offsets must be integer tensors, got {given.dtype}")
    if given.ndim - 1 != axis or given.shape[:-1] != data.shape[:axis]:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis} "
                           f"(lengths / offsets of shape {list(given.shape)} for data of shape {list(data.shape)} "
                           "need the shape data.shape[:axis] + (segments,))")
    if lengths is not None:
        if np.any(lengths < 0):
            raise RuntimeError("lengths contains negative value!")
        zero = np.zeros(lengths.shape[:-1] + (1,), dtype=np.int64)
        offsets = np.concatenate([zero, np.cumsum(lengths, axis=-1)], axis=-1)
    if not unsafe and np.any(offsets[..., -1] != data.shape[axis]):
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                           "data.size(lengths.dim()-1) when !unsafe.")
    return _SEGMENT_REDUCTIONS[reduce], offsets.astype(np.int64), axis


def _segments(offsets):
    """(leading index, segment index, start, stop) of every segment: the segment is
    `data[lead][start:stop]` (indexing the dims before axis leaves axis first)."""
    for lead in np.ndindex(*offsets.shape[:-1]):
        o = offsets[lead]
        for s in range(len(o) - 1):
            yield lead, lead + (s,), o[s], o[s + 1]


@op("segment_reduce")
def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    """Reduces consecutive segments of `data` along `axis`, whose lengths are given by `lengths` (or by
    `offsets`): one value per segment.

    Args:
        data (Tensor): the values.
        reduce (str): ``'sum'``, ``'mean'``, ``'prod'``, ``'max'`` or ``'min'``.
        lengths (Tensor, optional): the length of each segment.
        indices (Tensor, optional): not supported (as in torch: a RuntimeError).
        offsets (Tensor, optional): the segment boundaries, instead of `lengths`.
        axis (int): the dimension to reduce along. Default: ``0``.
        unsafe (bool): skip the checks of `lengths`. Default: ``False``.
        initial (Number, optional): a value included in every segment (and the value of empty ones).

    Returns:
        Tensor: of shape ``data.shape[:axis] + (segments,) + data.shape[axis + 1:]``.

    Example::

        >>> data = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
        >>> torch.segment_reduce(data, "sum", lengths=torch.tensor([2, 3]))
        tensor([ 3., 12.])
        >>> torch.segment_reduce(data, "max", lengths=torch.tensor([1, 4]))
        tensor([1., 5.])
    """
    if indices is not None and lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    how, offsets, axis = _segment_offsets(data, reduce, lengths, offsets, axis, unsafe)
    out = np.empty(offsets.shape[:-1] + (offsets.shape[-1] - 1,) + data.shape[axis + 1:], dtype=data.dtype)
    empty = _EMPTY[how] if initial is None else initial
    combine = {"sum": np.add, "mean": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[how]
    for lead, at, lo, hi in _segments(offsets):
        seg = data[lead][lo:hi]
        if hi == lo:
            out[at] = empty
            continue
        r = seg.sum(0) if how == "mean" else getattr(seg, how)(0)
        if initial is not None:
            r = combine(r, initial)
        out[at] = r / (hi - lo) if how == "mean" else r
    return out


# torch has no derivative of this backward (its node raises "not implemented"), nor does ndgrad
@op("_segment_reduce_backward", public="_segment_reduce_backward")
def _segment_reduce_backward(grad, output, data, reduce, *, lengths=None, offsets=None, axis=0, initial=None):
    how, offsets, axis = _segment_offsets(data, reduce, lengths, offsets, axis, True)
    out = np.zeros_like(data)
    for lead, at, lo, hi in _segments(offsets):
        seg, g = data[lead][lo:hi], grad[at]
        if how == "sum":
            d = g
        elif how == "mean":
            d = g / (hi - lo)
        elif how in ("max", "min"):    # ties share the gradient
            hit = seg == output[at]
            d = hit * (g / np.maximum(hit.sum(0), 1))
        else:
            d = g * _exclusive_prod(seg, 1.0 if initial is None else initial)
        out[lead][lo:hi] = d
    return out


def _exclusive_prod(seg, initial):
    """initial times the product of the other elements of the segment, for each element (no
    division by zero: a segment with one zero gives that element the product of the rest)."""
    zeros = seg == 0
    rest = np.where(zeros, 1, seg).prod(0) * initial
    n_zeros = zeros.sum(0)
    return np.where(zeros, np.where(n_zeros == 1, rest, 0), np.where(n_zeros == 0, rest / np.where(zeros, 1, seg), 0))


# ---- gamma sampling -----------------------------------------------------------------------------
@op("_standard_gamma", public="_standard_gamma")
def _standard_gamma(input, generator=None):
    """Gamma(input, 1) samples, torch's: its rejection sampler, element by element in order (each takes
    a varying number of draws). The gradient, `_standard_gamma_grad`, is the implicit
    reparameterization one, a function of the concentration and the sample only."""
    if input.dtype.kind != "f":
        raise NotImplementedError(f"_standard_gamma: expected a floating point tensor, got {input.dtype}")
    gen, single = _generator(generator), input.dtype == np.float32
    samples = np.array([_gamma_sample(gen, a, single) for a in input.ravel().tolist()], np.float64)
    return np.maximum(samples.astype(input.dtype).reshape(input.shape), np.finfo(input.dtype).tiny)


@op("_standard_gamma_grad", public="_standard_gamma_grad")
def _standard_gamma_grad(input, output):
    """d sample / d concentration at a fixed CDF value: -(d P(a, x) / d a) / pdf(x; a), with the
    derivative of the regularized incomplete gamma P taken by central differences (of Q, the
    smaller tail, beyond the median, so nothing cancels)."""
    a, x = input.astype(np.float64), output.astype(np.float64)
    h = 1e-5 * a
    sc = special()
    upper = x > a
    tail = np.where(upper, -1.0, 1.0) * (np.where(upper, sc.gammaincc(a + h, x), sc.gammainc(a + h, x)) -
                                         np.where(upper, sc.gammaincc(a - h, x), sc.gammainc(a - h, x)))
    d_cdf = tail / (2 * h)
    log_pdf = (a - 1) * np.log(x) - x - sc.gammaln(a)
    return np.asarray(-d_cdf * np.exp(-log_pdf), dtype=input.dtype)
