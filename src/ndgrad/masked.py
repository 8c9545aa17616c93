"""ndgrad.masked: torch.masked's reductions and normalizations on strided tensors.

Each op reads only the elements where `mask` is True (mask: a bool tensor broadcastable to the
input; None: every element). The masked-out elements are replaced by the op's identity (0 for sum,
-inf for amax, ...) and the plain op runs, so the graph holds the plain op's nodes (WhereBackward0
under them), as torch's. Sparse inputs and MaskedTensor are not supported: they raise.
"""
import math

from . import _dtype
from ._tensor import Tensor, _wrap_dim
from .ops._registry import OPS
from .ops.linalg_decompositions import vector_norm as _vector_norm

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp", "logsumexp", "mean",
           "median", "norm", "normalize", "prod", "softmax", "softmin", "std", "sum", "var"]

_INF = math.inf


def _mask(input, mask):
    """The mask as a bool tensor of input's shape (None: all True)."""
    if not isinstance(input, Tensor) or str(input.layout) != "torch.strided":
        raise NotImplementedError("ndgrad.masked supports strided tensors only (no sparse inputs or MaskedTensor)")
    if mask is None:
        return OPS["ones_like"](input).bool()
    if tuple(mask.shape) != tuple(input.shape):
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of the "
                             "input)")
        mask = OPS["broadcast_to"](mask, tuple(input.shape))
    return mask.bool()


def _fill(input, mask, identity):
    """input where mask is True, `identity` elsewhere."""
    if mask is None:
        return input
    return OPS["where"](_mask(input, mask), input, OPS["tensor"](identity, dtype=input.dtype))


def _dims(dim, ndim):
    """dim (None, an int or a sequence) as a sorted tuple of wrapped dims; None and () mean all."""
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    out = sorted({_wrap_dim(d, max(ndim, 1)) for d in dims})
    if len(out) != len(dims):
        raise RuntimeError(f"dim={dim} appears multiple times in the list of dims")
    return tuple(out)


def _reduce_dims(x, dims):
    """dims for a torch reduction: a 0-d input reduces over ()."""
    return dims if x.ndim else ()


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    x = _fill(input, mask, 0)
    return OPS["sum"](x, _reduce_dims(x, _dims(dim, x.ndim)), bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    r = _fill(input, mask, 1)
    if r.ndim == 0:
        return r.prod().to(dtype)
    for d in reversed(_dims(dim, r.ndim)):   # one dim at a time, from the last (the others keep their place)
        r = r.prod(d, bool(keepdim))
    return r.to(dtype)


def cumsum(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    return OPS["cumsum"](_fill(input, mask, 0), _dims(dim, input.ndim)[0], dtype=dtype).to(dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    return OPS["cumprod"](_fill(input, mask, 1), _dims(dim, input.ndim)[0], dtype=dtype).to(dtype)


def _extreme(name, identity, input, dim, keepdim, dtype, mask):
    dtype = input.dtype if dtype is None else dtype
    x = _fill(input, mask, identity)
    return OPS[name](x, _reduce_dims(x, _dims(dim, x.ndim)), bool(keepdim)).to(dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    return _extreme("amax", -_INF, input, dim, keepdim, dtype, mask)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    return _extreme("amin", _INF, input, dim, keepdim, dtype, mask)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    r = OPS["argmax"](_fill(input, mask, -_INF), dim, bool(keepdim))
    return r if dtype is None else r.to(dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    r = OPS["argmin"](_fill(input, mask, _INF), dim, bool(keepdim))
    return r if dtype is None else r.to(dtype)


def _count(input, dim, keepdim, mask):
    m = _mask(input, mask)
    return m.sum(_reduce_dims(m, _dims(dim, m.ndim)), bool(keepdim))


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The mean of the unmasked elements (nan where every element is masked out)."""
    if dtype is None:
        dtype, source = input.dtype, "Input"
    else:
        source = "Optional"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either a floating point or "
                         f"complex dtype. Got: {dtype}")
    return sum(input, dim, keepdim=keepdim, dtype=dtype, mask=mask) / _count(input, dim, keepdim, mask)


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """The median of the unmasked elements along one dim (nan where all are masked out)."""
    dtype = input.dtype if dtype is None else dtype
    is_float = input.dtype.is_floating_point
    x = input if is_float else input.to(_dtype.float32)
    x = OPS["where"](_mask(x, mask), x, OPS["tensor"](math.nan, dtype=x.dtype)) if mask is not None else x
    out = OPS["nanmedian"](x, _dims(dim, x.ndim)[0], bool(keepdim))[0]
    if is_float:
        return out
    if out.isnan().any():
        raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")
    return out.to(dtype)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    x = _fill(input, mask, -_INF)
    return OPS["logsumexp"](x, _reduce_dims(x, _dims(dim, x.ndim)), bool(keepdim)).to(dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    dtype = input.dtype if dtype is None else dtype
    if input.layout != other.layout:
        raise ValueError("masked logaddexp expects input and other to have the same layout")
    return OPS["logaddexp"](_fill(input, input_mask, -_INF), _fill(other, other_mask, -_INF)).to(dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The vector `ord`-norm of the unmasked elements (masked-out elements count as 0, or inf for ord=-inf)."""
    x = _fill(input, mask, _INF if ord == -_INF else 0)
    return _vector_norm(x, ord, _reduce_dims(x, _dims(dim, x.ndim)) or None, bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    corr = 1.0 if unbiased is None else (1.0 if unbiased else 0.0)
    if correction is not None:
        corr = float(correction)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = _dtype.float32
    count = _count(input, dim, True, mask)
    mean_ = sum(input, dim, keepdim=True, dtype=dtype, mask=mask) / count
    x = input - mean_
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=dtype, mask=mask)
    if not keepdim:
        count = count.reshape(tuple(total.shape))
    if corr != 0:
        count = (count.to(total.real.dtype if total.is_complex() else total.dtype) - corr).clamp_min(0)
    out = (total / count).to(dtype)
    return out.sqrt() if take_sqrt else out


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def softmax(input, dim, *, dtype=None, mask=None):
    return OPS["softmax"](_fill(input, mask, -_INF), _dims(dim, input.ndim)[0], dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    return OPS["log_softmax"](_fill(input, mask, -_INF), _dims(dim, input.ndim)[0], dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    # softmin(x) is softmax(-x): masked-out elements become +inf, so that -x is -inf there
    return OPS["softmax"](-_fill(input, mask, _INF), _dims(dim, input.ndim)[0], dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """The unmasked elements divided by their `ord`-norm along dim (at least eps); masked-out ones are 0."""
    dtype = input.dtype if dtype is None else dtype
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return _fill(input, mask, 0) / OPS["maximum"](nrm, OPS["tensor"](eps, dtype=nrm.dtype))
