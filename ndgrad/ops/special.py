"""Special functions (Bessel, erfcx, xlog1py, zeta, entr, ndtri, log_ndtr), dist and renorm,
segment_reduce, and the gamma sampler with its reparameterization gradient.

Forwards are scipy.special calls on arrays; derivatives.yaml's "special functions, fake
quantization, segment_reduce" section holds their formulas. ATen's `special_*` kernels are
registered under private names (`ndgrad._special_i1`, ...) that formulas can call;
`ndgrad/special.py` gives them torch.special's names. Fake quantization is in `quantize.py`.
"""
import math

import numpy as np

from .._dispatch import op, register
from .._tensor import Tensor, _wrap_dim
from ..backends.numpy_backend import special
from .pointwise import _named, _unary, pointwise
from .random import rng
from .reduction import _vector_norm


# ---- pointwise special functions --------------------------------------------------------------
def _special(name, fn):
    """ATen's `special_<name>`: a one-input float op, public as ndgrad._special_<name>."""
    return pointwise(f"special_{name}", public=f"_special_{name}", promote="float")(_named(name, fn))


i0 = _unary("i0", lambda x: special().i0(x))
_special_i0e = _special("i0e", lambda x: special().i0e(x))
_special_i1 = _special("i1", lambda x: special().i1(x))
_special_i1e = _special("i1e", lambda x: special().i1e(x))
_special_erfcx = _special("erfcx", lambda x: special().erfcx(x))
_special_entr = _special("entr", lambda x: special().entr(x))
_special_ndtri = _special("ndtri", lambda x: special().ndtri(x))
_special_log_ndtr = _special("log_ndtr", lambda x: special().log_ndtr(x))


def _binary(name, fn):
    """ATen's two-input `special_<name>` with its Scalar-self and Scalar-other overloads (whose
    nodes are Special<Name>Backward1 / 2 in torch); returns the function picking among them."""
    forward = _named(name, fn, 2)
    both = pointwise(f"special_{name}", public=f"_special_{name}", promote="float")(forward)
    scalar_self = pointwise(f"special_{name}.self_scalar", public=False, promote="float")(forward)
    scalar_other = pointwise(f"special_{name}.other_scalar", public=False, promote="float")(forward)

    def pick(input, other):
        if not isinstance(input, Tensor):
            if not isinstance(other, Tensor):
                raise TypeError(f"special.{name}(): expected at least one Tensor argument, got "
                                f"{type(input).__name__} and {type(other).__name__}")
            return scalar_self(input, other)
        return both(input, other) if isinstance(other, Tensor) else scalar_other(input, other)
    pick.__name__ = name
    return pick


xlog1py = _binary("xlog1py", lambda x, y: special().xlog1py(x, y))
zeta = _binary("zeta", lambda x, q: special().zeta(x, q))


# ---- dist and renorm --------------------------------------------------------------------------
def _check_float(name, a):
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: expected a floating point or complex tensor, got "
                           f"{np.dtype(a.dtype).name}; convert it with .double() or .float()")


@op("dist", method=True, promote="same", broadcast=True)
def dist(input, other, p=2):
    """The p-norm of input - other (broadcast)."""
    _check_float("dist", input)
    return np.asarray(_vector_norm("dist", input - other, float(p), None, False))


@op("renorm", method=True, inplace=True)
def renorm(input, p, dim, maxnorm):
    """Each slice along `dim` whose p-norm exceeds maxnorm, scaled down to norm maxnorm."""
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    _check_float("renorm", input)
    dim = _wrap_dim(dim, input.ndim)
    others = tuple(d for d in range(input.ndim) if d != dim)
    norm = _vector_norm("renorm", input, float(p), others, True)
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
                           f"data.size(lengths.dim()-1) when !unsafe (the segments cover {offsets[..., -1].tolist()} "
                           f"of the {data.shape[axis]} elements along axis {axis}).")
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
    """Reduce (sum, mean, prod, max / amax, min / amin) consecutive segments of `data` along `axis`,
    given by `lengths` or `offsets` (shape data.shape[:axis] + (segments,)); `initial` takes part in
    every segment (and is the value of empty ones)."""
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
    """Gamma(input, 1) samples, drawn by inverting the CDF at uniform draws: with the draws held
    fixed (same seed) a sample is a smooth function of the concentration whose derivative is the
    implicit reparameterization gradient that `_standard_gamma_grad` computes."""
    if input.dtype.kind != "f":
        raise NotImplementedError(f"_standard_gamma: expected a floating point tensor, got {input.dtype}")
    u = rng(generator).random(input.shape)
    return np.asarray(special().gammaincinv(input.astype(np.float64), u), dtype=input.dtype)


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
