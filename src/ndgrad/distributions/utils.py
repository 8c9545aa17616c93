"""Helpers shared by the distributions: broadcasting parameters, probs <-> logits, lazy properties."""
import numbers

import numpy as np

from .._dtype import get_default_dtype
from .._tensor import Size, Tensor
from ..autograd.grad_mode import enable_grad
from ..ops.creation import tensor, tril_indices
from ..ops.random import randn

__all__ = ["broadcast_all", "clamp_probs", "euler_constant", "lazy_property", "logits_to_probs", "probs_to_logits",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant


def broadcast_all(*values):
    """Tensors (numbers become tensors of the first tensor's dtype, or the default one) expanded to
    their common shape."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None else get_default_dtype()
    tensors = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in values]
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in tensors)  # as torch: no needless view


def broadcast_params(*values):
    """broadcast_all of a distribution's parameters, and the batch shape they give: () when every
    parameter is a Python number (torch's rule), else their common shape."""
    tensors = broadcast_all(*values)
    scalars = all(isinstance(v, numbers.Number) for v in values)
    return tensors, Size(()) if scalars else tensors[0].shape


def _standard_normal(shape, dtype):
    return randn(tuple(shape), dtype=dtype)


def _sum_rightmost(value, dim):
    """value summed over its `dim` rightmost dimensions."""
    return value if dim == 0 else value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def _eps(t):
    return float(np.finfo(t.detach().numpy().dtype).eps)


def _tiny(t):
    return float(np.finfo(t.detach().numpy().dtype).tiny)


def clamp_probs(probs):
    """probs kept eps away from 0 and 1, so their logarithms are finite."""
    eps = _eps(probs)
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    return logits.sigmoid() if is_binary else logits.softmax(dim=-1)


def probs_to_logits(probs, is_binary=False):
    p = clamp_probs(probs)
    return p.log() - (-p).log1p() if is_binary else p.log()


class lazy_property:
    """Computed (with grad enabled) on first access, then stored on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def vec_to_tril_matrix(vec, diag=0):
    """The last dimension of vec, read row by row into the lower triangle (below diagonal `diag`) of a
    square matrix whose other entries are 0."""
    # n solves n (n + 1) / 2 + diag n' = len for the triangle that tril_indices(n, n, diag) covers
    m = vec.shape[-1]
    n = int(round((-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2))
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    rows, cols = tril_indices(n, n, offset=diag)
    mat[..., rows, cols] = vec
    return mat


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (below diagonal `diag`) of the last two dimensions, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = tril_indices(n, n, offset=diag)
    return mat[..., rows, cols]


class BinaryProbsOrLogits:
    """For distributions given `probs` or `logits` of a binary event: the one given is stored, the
    other derived on first use (logits = log p - log(1 - p)); `_param` is the given one."""

    @staticmethod
    def _check_one_of(probs, logits):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")

    def _expand_probs_or_logits(self, new, shape):
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(tuple(shape)))

    @property
    def _param(self):
        return self.__dict__["probs"] if "probs" in self.__dict__ else self.__dict__["logits"]

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)
