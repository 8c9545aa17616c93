"""Backward helpers too long for one readable yaml line (the names formulas may call).

Everything here works on Tensors through public ops, so formulas stay differentiable and
`create_graph=True` gives higher derivatives for free. The ops it calls are imported from their
family modules; the yaml formulas see these helpers and every public op (derivatives/__init__.py).
"""
import warnings

import numpy as np

from ..autograd.gradient_checks import sum_to  # noqa: F401  (formulas call it)
from ..autograd.engine import vjp
from ..autograd.function import Error
from .._sparse_array import strided as _strided
from .._tensor import Tensor
from ..autograd.forward_ad import jvp_at
from ..autograd.grad_mode import enable_grad, state
from ..ops import linalg_decompositions as linalg
from ..ops._registry import OPS
from ..ops.activation import _log_sigmoid, _softplus
from ..ops.convolution import _convolution_backward, convolution
from ..ops.creation import eye, full_like, tensor, zeros
from ..ops.fft import _fft_c2c, _fft_r2c
from ..ops.indexing import (_index, _index_put, _index_reduce, _masked_scatter_backward, _select_backward, _slice,
                            _slice_backward)
from ..ops.indexing import _index_put_impl_op
from ..ops.linalg import trilinear_operands
from ..ops.linalg_decompositions import cholesky_solve
from ..ops.normalization import _weight_norm_interface_backward
from ..ops.pointwise import foreach_element, where, xlogy
from ..ops.reduction import _linalg_vector_norm
from ..ops.recurrent import packed_positions
from ..ops.sampling import affine_base_grid, grid_sample_composite
from ..ops.shape import (_as_strided, _as_strided_scatter, _block_shape, _diagonal_backward, _strided_sum,
                         _unfold_backward, _view_as_complex, cat, stack, storage_positions)
from ..ops.sparse import sparse_coo_tensor
from ..ops.special import _special_i0e, i0

# the public versions, which ops/nested.py extends to nested tensors
zeros_like, ones_like, lu_unpack = OPS["zeros_like"], OPS["ones_like"], OPS["lu_unpack"]


def not_implemented(what):
    """A derivative torch does not implement either (its formula raises the same error)."""
    raise NotImplementedError(f"the derivative for '{what}' is not implemented.")


def no_derivative(op_name):
    """The backward of torch's NotImplemented node (ops with no derivative entry at all)."""
    raise RuntimeError(f"derivative for aten::{op_name} is not implemented")


def handle_r_to_c(self, grad):
    """A real input's gradient from a complex formula keeps only the real part."""
    if self is not None and getattr(self, "is_complex", None) is not None and not self.is_complex() \
            and grad.is_complex():
        return grad.real
    return grad


def scalar_dtype_of(x):
    return x.dtype if hasattr(x, "dtype") else None


def unsqueeze_dims(t, dims, ndim):
    """Re-insert reduced dims (sorted, normalized) so `t` broadcasts against the input."""
    for d in sorted(int(d) % max(ndim, 1) for d in dims):
        t = t.unsqueeze(d)
    return t


def normalize_dims(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    return tuple(int(d) % max(ndim, 1) for d in dim)


def conj(x):
    """Complex conjugate of a tensor or Python number; identity for real values."""
    if type(x) is float or type(x) is int:   # (the usual scalar: no attribute lookup that fails)
        return x
    data = getattr(x, "_array", None)
    if data is not None:
        return x.conj() if data.dtype.kind == "c" else x
    return x.conjugate() if isinstance(x, complex) else x


def maybe_multiply(grad, alpha):
    return grad if alpha == 1 else grad * alpha


def column_major(sizes, strides):
    """Whether a matrix of these sizes and strides is laid out column by column (torch's test)."""
    return len(strides) == 2 and strides[0] == 1 and strides[1] == sizes[0]


def mm_mat1_backward(grad, mat2, mat1_sizes, mat1_strides, alpha):
    """d(mat1 @ mat2) / d mat1 = grad @ mat2^H; for a column-major mat1 (a transposed weight, say)
    computed as (conj(mat2) @ grad^T)^T, as torch does, so the gradient is laid out as mat1."""
    if column_major(mat1_sizes, mat1_strides) and grad.layout == mat2.layout == _strided:
        return maybe_multiply(conj(mat2).mm(grad.t()).t(), conj(alpha))
    return maybe_multiply(grad.mm(conj(mat2.t())), conj(alpha))


def mm_mat2_backward(grad, mat1, mat2_sizes, mat2_strides, alpha):
    """d(mat1 @ mat2) / d mat2 = mat1^H @ grad; for a column-major mat2, (grad^T @ conj(mat1))^T."""
    if column_major(mat2_sizes, mat2_strides) and grad.layout == mat1.layout == _strided:
        return maybe_multiply(grad.t().mm(conj(mat1)).t(), conj(alpha))
    return maybe_multiply(conj(mat1.t()).mm(grad), conj(alpha))


def reduce_backward(grad, shape, dim, keepdim):
    """Give a reduction's gradient back the reduced dims (as size 1) so it broadcasts."""
    ndim = len(shape)
    if keepdim or ndim == 0:
        return grad
    return unsqueeze_dims(grad, normalize_dims(dim, ndim), ndim)


# ---- pointwise ----------------------------------------------------------------------------
LN2, LN10 = float(np.log(2)), float(np.log(10))
TWO_OVER_SQRT_PI, HALF_SQRT_PI = float(2 / np.sqrt(np.pi)), float(np.sqrt(np.pi) / 2)
DEG2RAD, RAD2DEG = float(np.pi / 180), float(180 / np.pi)


def _is_tensor(x):
    return hasattr(x, "_array")


def pow_backward(grad, self, exponent):
    """d(self ** exponent)/dself, 0 where the exponent is 0 (torch's convention, also at self == 0)."""
    if not _is_tensor(exponent):
        return zeros_like(grad) if exponent == 0 else grad * conj(exponent * self.pow(exponent - 1))
    return where(exponent == 0, 0.0, grad * conj(exponent * self.pow(exponent - 1)))


def pow_exponent_backward(grad, self, exponent, result):
    """d(self ** exponent)/dexponent = result * log(self); 0 where self == 0 and exponent >= 0.
    With a complex result the log of a real base is taken as complex (finite for a negative base)."""
    complex_result = result.is_complex()
    if _is_tensor(self):
        base = self.to(result.dtype) if complex_result and not self.is_complex() else self
        g = grad * conj(result * base.log())
        return where((self == 0).logical_and(_nonnegative(exponent)), 0.0, g)
    with np.errstate(all="ignore"):
        log_self = np.log(complex(self) if complex_result else self).item()   # nan for a negative real base
    g = grad * conj(result * log_self)
    return where(_nonnegative(exponent), 0.0, g) if self == 0 else g


def _nonnegative(exponent):
    """torch's test of an exponent where the base is 0: a complex one must be real and not negative
    (complex numbers have no order)."""
    if exponent.is_complex():
        return (exponent.imag == 0).logical_and(exponent.real >= 0)
    return exponent >= 0


def tie_split(grad, tie, lost):
    """maximum/minimum: an operand gets the gradient where it was picked, half of it on ties, none
    where it `lost` (so all of it where an operand is nan, as in torch)."""
    return where(tie, grad / 2, where(lost, 0.0, grad))


def atan2_backward(grad, self, other):
    """d atan2(y, x) = (x dy - y dx) / (x² + y²); 0 at the origin."""
    r2 = self * self + other * other
    scale = where(r2 == 0, 0.0, grad / where(r2 == 0, 1.0, r2))
    return scale * other, -scale * self


def copysign_backward(grad, self, result):
    """d copysign(self, other)/dself = result / self (±1), 0 at self == 0."""
    return grad * where(self == 0, 0.0, result / where(self == 0, 1.0, self))


def clamp_backward(grad, self, min, max):
    if min is not None and max is not None:
        return where((self >= min).logical_and(self <= max), grad, 0.0)
    return where(self >= min, grad, 0.0) if min is not None else where(self <= max, grad, 0.0)


def clamp_tensor_backward(grad, self, min, max):
    """clamp(self, min, max) = minimum(maximum(self, min), max): self keeps the gradient inside the
    bounds; min gets it below min unless max wins (min > max); max above max or where max < min."""
    g_self = clamp_backward(grad, self, min, max)
    g_min = g_max = None
    if min is not None:
        below = self < min
        g_min = where(below if max is None else below.logical_and(min < max), grad, 0.0)
    if max is not None:
        above = self > max
        g_max = where(above if min is None else above.logical_or(max < min), grad, 0.0)
    return g_self, g_min, g_max


def sgn_backward(grad, self, result):
    """Real: 0. Complex z = r·s with |s| = 1: (grad - Re(grad·conj(s))·s) / r, 0 at z == 0."""
    if not self.is_complex():
        return zeros_like(grad)
    w = grad * result.conj()
    r = self.abs()
    return where(r == 0, 0.0, (grad - (w + w.conj()) / 2 * result) / where(r == 0, 1.0, r))


def angle_backward(grad, self):
    """Real: 0 (angle is piecewise constant). Complex: grad · i·z / |z|², 0 at z == 0."""
    if not self.is_complex():
        return zeros_like(grad)
    r2 = self * self.conj()
    return where(self == 0, 0.0, grad * self * 1j / where(self == 0, 1.0, r2))


def logit_backward(grad, self, eps):
    """1 / (self (1 - self)); 0 outside [eps, 1 - eps] when eps is given, nan outside [0, 1] otherwise."""
    g = grad / (self * (1 - self))
    if eps is None:
        return where((self < 0).logical_or(self > 1), float("nan"), g)
    return where((self >= eps).logical_and(self <= 1 - eps), g, 0.0)


def sinc_backward(grad, self):
    """d sin(pi x)/(pi x) = (cos(pi x) pi x - sin(pi x)) / (pi x²), 0 at x == 0."""
    px = self * np.pi
    safe = where(self == 0, 1.0, self)
    return where(self == 0, 0.0, grad * conj((px.cos() * px - px.sin()) / (safe * safe * np.pi)))


def mvlgamma_backward(grad, self, p):
    return grad * sum((self - j / 2).digamma() for j in range(p))


def xlogy_self_backward(grad, self, other):
    """log(other), and 0 where self == 0 and other <= 0 (where the forward is 0)."""
    g = xlogy(grad, other)
    if _is_tensor(other):
        return where((self == 0).logical_and(other <= 0), 0.0, g)
    return where(self == 0, 0.0, g) if other <= 0 else g


# ---- reductions ---------------------------------------------------------------------------
def reduced_numel(shape, dim):
    """How many input elements each output element of a reduction over `dim` (None/(): all) sums."""
    n = 1
    for d in normalize_dims(dim, len(shape)) or range(len(shape)):
        n *= shape[d] if shape else 1   # a 0-d tensor's dim 0 is itself
    return n


def mean_backward(grad, shape, dim, keepdim):
    return reduce_backward(grad, shape, dim, keepdim).expand(shape) / reduced_numel(shape, dim)


def amax_backward(grad, self, result, dim, keepdim):
    """amax/amin/aminmax: elements equal to the result share its gradient evenly."""
    grad = reduce_backward(grad, self.shape, dim, keepdim)
    mask = self == reduce_backward(result, self.shape, dim, keepdim)
    return grad / mask.sum(dim, keepdim=True) * mask


def evenly_distribute_backward(grad, self, result):
    """max()/min()/median() of all elements: the elements equal to the result (or, when it is nan,
    the nans) share the gradient evenly."""
    mask = self.isnan() if result._array.dtype.kind in "fc" and np.isnan(result._array) else self == result
    # filled, not multiplied by the mask: a nan or inf gradient stays off the other elements
    return grad.new_zeros(self.shape).masked_fill(mask, grad / mask.sum())


def select_backward(grad, dim, indices, shape, keepdim):
    """max/min/median/mode/kthvalue along dim: each output's gradient goes to the element its index picked."""
    if not shape:
        return grad
    d = normalize_dims(dim, len(shape))[0]
    if not keepdim:
        grad, indices = grad.unsqueeze(d), indices.unsqueeze(d)
    return grad.new_zeros(shape).scatter(d, indices, grad)


def cummaxmin_backward(grad, self, indices, dim):
    """cummax/cummin: every output's gradient goes to the element its index points at (summed)."""
    if self.ndim == 0:
        return grad
    return grad.new_zeros(self.shape).scatter_add(dim, indices, grad)


def var_backward(grad, self, dim, correction, keepdim):
    dof = reduced_numel(self.shape, dim) - (1 if correction is None else correction)   # (None: torch's default, 1)
    if dof <= 0 and (dim is None or not self.shape):
        # as torch for a full reduction with no dof left: inf (nan where self is its mean) times grad,
        # a constant as far as self is concerned (so a create_graph gradient has no path to self)
        return grad * where(self == self.mean(), float("nan"), float("inf"))
    scale = 2.0 / dof if dof > 0 else float("inf")   # torch: nan gradients when there is no dof left
    return scale * reduce_backward(grad, self.shape, dim, keepdim) * (self - self.mean(dim, keepdim=True))


def std_backward(result, grad, self, dim, correction, keepdim):
    """Through var = std**2, with a zero gradient where std is 0 (as torch)."""
    return var_backward(where(result == 0, 0.0, grad / (result * 2)), self, dim, correction, keepdim)


def logsumexp_backward(grad, self, result, dim, keepdim):
    grad = reduce_backward(grad, self.shape, dim, keepdim)
    softmax = (self - reduce_backward(result, self.shape, dim, keepdim)).exp()
    return grad * (softmax.conj() if softmax.is_complex() else softmax)   # conj: the complex gradient convention


def exclusive_prod(x, dim):
    """The product of the other elements of each slice along `dim`, without dividing: a left and a
    right exclusive cumprod, so zeros in `x` are handled and every derivative order is exact."""
    n = x.shape[dim]
    one = x.new_ones([1 if d == dim else s for d, s in enumerate(x.shape)])
    left = cat([one, x], dim).cumprod(dim).split([n, 1], dim)[0]                 # prod of x[:i]
    right = cat([x, one], dim).flip(dim).cumprod(dim).flip(dim).split([1, n], dim)[1]   # prod of x[i+1:]
    return left * right


def prod_backward(grad, self, result, dim, keepdim):
    """prod over `dim` (None: every element)."""
    if self.ndim == 0:
        return grad
    grad = reduce_backward(grad, self.shape, dim, keepdim)
    if not (self._array == 0).any():
        return grad * conj(reduce_backward(result, self.shape, dim, keepdim) / self)
    if dim is None:
        return grad * conj(exclusive_prod(self.reshape(-1), 0).reshape(self.shape))
    return grad * conj(exclusive_prod(self, normalize_dims(dim, self.ndim)[0]))


def reversed_cumsum(t, dim):
    return t.flip(dim).cumsum(dim).flip(dim)


def logcumsumexp_backward(grad, self, result, dim):
    """grad_i = sum_{j>=i} grad_j * exp(x_i - result_j), summed in log space separately for the
    positive and the negative grads so that nothing overflows."""
    if self.ndim == 0:
        return grad
    if grad.is_complex():   # the complex log keeps each grad's phase: one sum, no sign split
        logs = grad.conj().log() - result
        return (logs.flip(dim).logcumsumexp(dim).flip(dim) + self).exp().conj()
    lowest = float(np.finfo(grad._array.dtype).min)   # log(0), kept finite: no -inf - -inf = nan later
    log_abs_over_result = where(grad == 0, 1.0, grad.abs()).log() - result   # zeros are masked out below

    def part(mask):
        logs = where(mask, log_abs_over_result, lowest)
        return (logs.flip(dim).logcumsumexp(dim).flip(dim) + self).exp()
    return part(grad > 0) - part(grad < 0)


def cumsum_backward(grad, dim):
    return reversed_cumsum(grad, dim) if grad.ndim else grad


def cumprod_backward(grad, self, dim, result):
    """d cumprod: out_j = prod_{m<=j} x_m, so grad_i = sum_{j>=i} grad_j * out_j / x_i without zeros.

    With zeros, split each slice at its first zero k (x' = x with x_k set to 1, out' = cumprod(x')):
    before k the division formula holds; at k the gradient is sum_{j>=k} grad_j * out'_j; after k
    it is x_k times the gradient of cumprod(x'), which is zero in value but is needed for exact
    higher derivatives (so it is only built when grad mode records them).
    """
    if self.ndim == 0 or self.numel() == 0:
        return grad
    d = normalize_dims(dim, self.ndim)[0]
    if not (self._array == 0).any():
        return reversed_cumsum(grad * conj(result), d) / conj(self)
    is_zero = self == 0
    zeros_seen = is_zero.cumsum(d)
    before, first = zeros_seen == 0, is_zero & (zeros_seen == 1)
    primed = where(first, 1.0, self)
    primed_result = primed.cumprod(d)
    out = where(first, reversed_cumsum(grad * conj(primed_result), d), 0.0)
    if state.enabled:
        zero = (self * first).sum(d, keepdim=True)        # x_k: 0 in value, 1 in derivative
        after = conj(zero) * cumprod_backward(grad, primed, d, primed_result)
        out = out + where(before | first, 0.0, after)
    return where(before, reversed_cumsum(grad * conj(result), d) / conj(where(before, self, 1.0)), out)


def linalg_vector_norm_backward(grad, self, ord, result, dim, keepdim):
    """Gradient of ||x||_ord (a real function of possibly complex x)."""
    if ord == 0:
        return None   # torch: no gradient flows (the count of nonzeros is piecewise constant)
    grad = reduce_backward(grad, self.shape, dim, keepdim)
    norm = reduce_backward(result, self.shape, dim, keepdim)
    if ord == 1:
        return self.sgn() * grad
    if ord == 2:
        return self * where(norm == 0, 0.0, grad / norm)
    if np.isinf(ord):   # like amax of |x|: the elements at the norm (or nan) share the gradient
        absx = self.abs()
        mask = (absx == norm).logical_or(absx.isnan())
        return self.sgn() * (grad / mask.sum(dim, keepdim=True) * mask)
    if ord < 1:
        return self.sgn() * where(self == 0, 0.0, self.abs().pow(ord - 1)) * grad * norm.pow(1 - ord)
    if ord < 2:
        return self.sgn() * self.abs().pow(ord - 1) * where(norm == 0, 0.0, grad / norm.pow(ord - 1))
    return self * self.abs().pow(ord - 2) * where(norm == 0, 0.0, grad / norm.pow(ord - 1))


# ---- shape and views ----------------------------------------------------------------------
def invert_permutation(dims):
    return tuple(np.argsort(dims).tolist())


def cat_backward(grad, dim, sizes):
    """grad split back into cat's inputs; a skipped 1-D empty input (size None) gets an empty grad."""
    parts = iter(grad.split([s for s in sizes if s is not None], dim))
    return [next(parts) if s is not None else grad.new_zeros(0) for s in sizes]


def repeat_backward(grad, repeats, input_shape):
    """Sum the tiles: split every dim of grad into (repeat, size) and sum over the repeat axes."""
    if not repeats:
        return grad
    shape = (1,) * (len(repeats) - len(input_shape)) + tuple(input_shape)
    tiles = grad.reshape([n for r, s in zip(repeats, shape) for n in (r, s)])
    return tiles.sum(tuple(range(0, 2 * len(shape), 2))).reshape(input_shape)


def as_strided_backward(grad, input_shape, input_stride, size, stride, offset):
    """Each output element's gradient goes to the input elements at its memory location (positions counted
    from the input's first element); input elements sharing one location (an expanded input) share its
    gradient equally, as in torch."""
    if 0 in tuple(size):   # as torch: an empty view gives constant zeros (no path to grad)
        return grad.new_zeros(tuple(input_shape))
    in_pos = storage_positions(tuple(input_shape), input_stride, 0)
    out_pos = storage_positions(size, stride, offset)
    low = min(in_pos.min(initial=0), out_pos.min(initial=0))   # offset may point before the input
    g = strided_sum(grad, out_pos - low, in_pos - low, tuple(input_shape))
    counts = np.bincount((in_pos - low).ravel())[in_pos - low] if in_pos.size else in_pos
    return g if counts.max(initial=1) == 1 else g * grad.new_tensor(1.0 / counts)


def as_strided_rel(t, size, stride, offset):
    """as_strided with `offset` counted from t's own first element (t contiguous)."""
    return _as_strided(t, tuple(size), tuple(stride), t.storage_offset() + offset)


def as_strided_scatter_rel(t, src, size, stride, offset):
    return _as_strided_scatter(t, src, tuple(size), tuple(stride), offset)


def complex_view_of(grad):
    """view_as_complex of a gradient, without the storage-offset check meant for user tensors."""
    return _view_as_complex(grad.contiguous())


def strided_sum(grad, src_pos, dst_pos, dst_shape):
    return _strided_sum(grad, src_pos, dst_pos, dst_shape)


def diagonal_backward(grad, input_sizes, offset, dim1, dim2):
    return _diagonal_backward(grad, tuple(input_sizes), offset, dim1, dim2)


def unfold_backward(grad, input_sizes, dim, size, step):
    return _unfold_backward(grad, tuple(input_sizes), dim, size, step)


# ---- indexing -----------------------------------------------------------------------------
# select/slice/index and the backwards of select/slice/masked_scatter are private ops (torch has no
# public function for them): these helpers reach them
def unselect(grad, input_sizes, dim, index):
    """select's backward: zeros of input_sizes with grad at `index` along dim."""
    return _select_backward(grad, tuple(input_sizes), dim, index)


def unslice(grad, input_sizes, dim, start, end, step):
    """slice's backward: zeros of input_sizes with grad in the slice."""
    return _slice_backward(grad, tuple(input_sizes), dim, start, end, step)


def sliced(t, dim, start, end, step):
    return _slice(t, dim, start, end, step)


def indexed(t, indices):
    """t[indices] for an index list as the index op records it (None: a whole dim)."""
    return _index(t, indices)


def index_put_into(t, indices, values, accumulate):
    return _index_put(t, indices, values, accumulate)


def index_backward(zeros, indices, grad):
    """torch's: accumulated into fresh zeros by _index_put_impl_ (IndexPutImplBackward0 under create_graph;
    the op is run out of place: zeros is fresh, and indices may hold None for whole dims)."""
    return _index_put_impl_op(zeros, indices, grad, True, True)


def masked_scatter_backward(grad, mask, sizes):
    return _masked_scatter_backward(grad, mask, tuple(sizes))


def broadcast_shape(a, b):
    return np.broadcast_shapes(tuple(a), tuple(b))


def index_fill_value_grad(grad, dim, index):
    """index_fill's value gradient: grad summed over the filled slices, each slice once."""
    size = grad.shape[dim] if grad.ndim else 1
    return grad.index_select(dim, index.new_tensor(np.unique(index._array % size))).sum()


def scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result):
    return reduce_into_backward(
        grad, self, src, reduce, include_self, result,
        pick=lambda t: t.gather(dim, index),
        spread=lambda t: t.new_zeros(self.shape).scatter_add(dim, index, t),
        prod=lambda a, b: a.scatter_reduce(dim, index, b, "prod", include_self=include_self),
        names=("scatter_reduce", "src"))


def index_reduce_backward(grad, self, dim, index, source, reduce, include_self, result):
    return reduce_into_backward(
        grad, self, source, reduce, include_self, result,
        pick=lambda t: t.index_select(dim, index),
        spread=lambda t: t.new_zeros(self.shape).index_add(dim, index, t),
        prod=lambda a, b: _index_reduce(a, dim, index, b, "prod", include_self=include_self),
        names=("index_reduce", "source"))


def reduce_into_backward(grad, self, src, reduce, include_self, result, pick, spread, prod, names):
    """(self, src) gradients of reducing src's elements into positions of self (scatter_reduce and
    index_reduce). pick(t): t at the position each src element went to; spread(t): src-shaped t summed
    into self's shape; prod(a, b): the product reduction of b into a at the same positions."""
    hits = spread(ones_like(src))          # how many src elements reached each position of self
    reached = hits > 0
    if reduce == "sum":
        return (grad if include_self else grad.masked_fill(reached, 0)), pick(grad)
    if reduce == "mean":
        g = grad / (hits + 1 if include_self else hits.clamp(min=1))
        return (g if include_self else g.masked_fill(reached, 0)), pick(g)
    if reduce in ("amax", "amin"):
        # the gradient is shared evenly by every element equal to the result
        self_wins = self == result if include_self else (self == result).logical_and(reached.logical_not())
        src_wins = src == pick(result)
        g = grad / (self_wins.to(grad.dtype) + spread(src_wins.to(grad.dtype)))
        return g.masked_fill(self_wins.logical_not(), 0), pick(g).masked_fill(src_wins.logical_not(), 0)
    # prod: each factor's gradient is the product of the other factors at its position (zeros included)
    if include_self:
        kept = self.masked_fill(self == 0, 1)
        g_self = grad * prod(kept, src) / kept
    else:
        g_self = grad.masked_fill(reached, 0)
    src_zero = src == 0
    zeros_met = pick(spread(src_zero.to(grad.dtype)))
    # with two zeros at one position this gradient is not differentiable in self and src: torch makes
    # differentiating it raise (DelayedError). It stays linear in grad, which forward mode's
    # auto_transpose differentiates, so only the path to self and src goes through the Error node.
    poisoned = state.enabled and (self.requires_grad or src.requires_grad) and \
        bool(src_zero.logical_and(zeros_met > 1).any())
    if poisoned:
        leaves = [t for t in (self, src) if t.requires_grad]
        self, src, result = self.detach(), src.detach(), result.detach()
    lone_zero = src_zero.logical_and(zeros_met == 1)
    g_src = where(lone_zero, pick(grad * prod(self, src.masked_fill(lone_zero, 1))),
                  pick(grad * result) / src.masked_fill(src_zero, 1))
    if poisoned:
        op, arg = names
        err = Error(f"{op}(): Double backward is unsupported for {arg} when >1 zeros in {arg} are scattered to the "
                    "same position in self", leaves)
        g_src = g_src + Tensor._make(zeros(g_src.shape, dtype=g_src.dtype)._array, True, err, 0)
    return g_self, g_src


# ---- matmul, linear algebra and nn --------------------------------------------------------
def silu_backward(grad, x):
    s = x.sigmoid()
    return grad * s * (1 + x * (1 - s))


def elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, x):
    """d(elu_backward)/d(self_or_result): zero on the positive side."""
    if is_result:   # the slope there is (result / scale + alpha) * input_scale * scale
        curvature = input_scale
    else:
        curvature = (x * input_scale).exp() * (alpha * scale * input_scale * input_scale)
    return where(x > 0, zeros_like(x), grad * grad_output * curvature)


_GELU_K = float(np.sqrt(2 / np.pi))
_GELU_C = 0.044715


def gelu_second_derivative(x, approximate):
    if approximate == "tanh":
        t = (_GELU_K * (x + _GELU_C * x * x * x)).tanh()
        du = _GELU_K * (1 + 3 * _GELU_C * x * x)
        return (1 - t * t) * (du - x * (t * du * du - 3 * _GELU_K * _GELU_C * x))
    return (x * x * -0.5).exp() * (float(1 / np.sqrt(2 * np.pi))) * (2 - x * x)


def softplus_second_derivative(x, beta, threshold):
    s = (x * beta).sigmoid()
    return where(x * beta > threshold, zeros_like(x), s * (1 - s) * beta)


def mse_loss_double_backward(grad, grad_output, numel, reduction):
    """d(mse_loss_backward)/d(self): 2 * grad_output (/ numel for the mean) per element."""
    return grad * grad_output * (2 / numel if reduction == 1 else 2)


# ---- linear algebra decompositions and solvers ---------------------------------------------
def _real_np_dtype(x):
    return np.finfo(x._array.dtype).dtype if x._array.dtype.kind in "fc" else np.float64


def _tri(x, k=0, upper=False, diag=None):
    """x's lower (upper) triangle from diagonal k, the diagonal scaled by `diag` if given.

    A product with a constant 0/1 matrix, so it stays differentiable (tril/triu belong to
    another family and need not exist).
    """
    n, m = x.shape[-2:]
    w = np.triu(np.ones((n, m)), k) if upper else np.tril(np.ones((n, m)), k)
    if diag is not None:
        w[np.arange(min(n, m)), np.arange(min(n, m))] = diag
    return x * tensor(w.astype(_real_np_dtype(x)))


def _diag_embed(v):
    n = v.shape[-1]
    return v.unsqueeze(-1) * eye(n, dtype=v.dtype)


def _is_zero(g):
    """A gradient the engine filled with zeros for an unused output (no graph behind it)."""
    return not g.requires_grad and not g._array.any()


def _check_gauge(name, VhgV):
    """Complex singular/eigen-vectors are defined up to a phase: refuse losses that depend on it.

    VhgV: V^H gV (summed over U and V for the SVD), whose diagonal is real for a phase-invariant loss.
    """
    if VhgV._array.dtype.kind == "c":
        phase = np.abs(np.diagonal(VhgV._array, 0, -2, -1).imag).max(initial=0)
        if phase > 1e-6 * max(1.0, float(np.abs(VhgV._array).max(initial=0))):
            raise RuntimeError(f"{name}: The eigenvectors in the complex case are specified up to multiplication by "
                               "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.")


def _left_inv_h(L, X, unit=False):
    """L^{-H} X for lower-triangular L."""
    return linalg.solve_triangular(L.mH, X, upper=True, unitriangular=unit)


def _right_inv_h(X, U, upper=True):
    """X U^{-H} for triangular U (upper unless said otherwise)."""
    return linalg.solve_triangular(U.mH, X, upper=not upper, left=False)


def cholesky_backward(grad, upper, L):
    """A = L L^H: gA = sym(L^{-H} Phi(L^H gL) L^{-1}), Phi = lower triangle with the diagonal halved."""
    if upper:
        L, grad = L.mH, grad.mH
    phi = _tri(L.mH @ grad, diag=0.5)
    gA = _right_inv_h(_left_inv_h(L, phi), L.mH, upper=True)   # L^{-H} phi L^{-1}
    return (gA + gA.mH) * 0.5


def _factor_grad(gA, F, upper):
    """From the gradient of A = F F^H (F = L), or A = F^H F (F = U), to the gradient of F."""
    sym = gA + gA.mH
    return F @ sym if upper else sym @ F


def cholesky_solve_backward(grad, B, F, upper, X, grad_input_mask):
    gB = cholesky_solve(grad, F, upper)
    gF = _factor_grad(-(gB @ X.mH), F, upper) if grad_input_mask[1] else None
    return gB, gF


def cholesky_inverse_backward(grad, F, upper, Y):
    return _factor_grad(-(Y @ grad @ Y), F, upper)


def det_backward(grad, A, det):
    return (grad * conj(det)).unsqueeze(-1).unsqueeze(-1) * linalg.inv(A).mH


def slogdet_backward(grad_sign, grad_logabsdet, A, sign):
    c = grad_logabsdet
    if A._array.dtype.kind == "c":
        c = c + (conj(sign) * grad_sign).imag * 1j
    return c.unsqueeze(-1).unsqueeze(-1) * linalg.inv(A).mH


def _qr_square_backward(gQ, gR, Q, R):
    """A = QR with Q (m, n) orthonormal columns and R (n, n) upper: gA = (gQ - Q herm(M)) R^{-H}."""
    M = Q.mH @ gQ - gR @ R.mH
    upper = _tri(M, 1, upper=True)
    herm = upper + upper.mH + _diag_embed(M.diagonal(0, -2, -1).real.to(M.dtype))
    return _right_inv_h(gQ - Q @ herm, R)


def linalg_qr_backward(gQ, gR, Q, R, mode):
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
                           "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if m >= n:
        return _qr_square_backward(gQ, gR, Q, R)
    # wide: A = Q [R1 R2]; R2 = Q^H A2 feeds Q's gradient, A2's is Q gR2
    A2 = Q @ R[..., :, m:]
    gR2 = gR[..., :, m:]
    g1 = _qr_square_backward(gQ + A2 @ gR2.mH, gR[..., :, :m], Q, R[..., :, :m])
    return cat([g1, Q @ gR2], -1)


def svd_backward(gU, gS, gVh, U, S, Vh, full_matrices):
    k = S.shape[-1]
    if full_matrices:   # the extra columns of U / rows of Vh carry no gradient (as in torch)
        U, gU, Vh, gVh = U[..., :, :k], gU[..., :, :k], Vh[..., :k, :], gVh[..., :k, :]
    m, n = U.shape[-2], Vh.shape[-1]
    gS = gS.to(U.dtype)
    if _is_zero(gU) and _is_zero(gVh):   # svdvals: U diag(gS) Vh (no 1/(s_i^2 - s_j^2) terms)
        return U @ (gS.unsqueeze(-1) * Vh)
    J = U.mH @ gU
    K = Vh @ gVh.mH
    _check_gauge("linalg_svd_backward", J + K)
    J = J - J.mH
    K = K - K.mH
    S_ = S.to(U.dtype)
    S2 = S * S
    E = (S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye(k, dtype=S.dtype)).to(U.dtype)  # s_j^2 - s_i^2, 1 on the diagonal
    inner = (J * S_.unsqueeze(-2) + S_.unsqueeze(-1) * K) / E + _diag_embed(gS)
    if U._array.dtype.kind == "c":
        inner = inner + _diag_embed(J.diagonal(0, -2, -1) / (2 * S_))
    if m > n:
        gUS = gU / S_.unsqueeze(-2)
        return (U @ inner + gUS - U @ (U.mH @ gUS)) @ Vh
    if m < n:
        SgVh = gVh / S_.unsqueeze(-1)
        return U @ (inner @ Vh + SgVh - (SgVh @ Vh.mH) @ Vh)
    return U @ inner @ Vh


def eigh_backward(gL, gV, L, V):
    gL = gL.to(V.dtype)
    if _is_zero(gV):
        return (V * gL.unsqueeze(-2)) @ V.mH
    X = V.mH @ gV
    _check_gauge("linalg_eigh_backward", X)
    X = (X - X.mH) * 0.5    # the Hermitian part of the result only sees the skew part
    n = L.shape[-1]
    E = (L.unsqueeze(-2) - L.unsqueeze(-1) + eye(n, dtype=L.dtype)).to(V.dtype)
    return V @ (X / E + _diag_embed(gL)) @ V.mH


def eig_backward(gL, gV, A, L, V):
    """A = V diag(L) V^{-1} with unit-norm columns of V: gA = V^{-H} (diag(gL) + conj(F) o Z) V^H."""
    inner = _diag_embed(gL)
    if not _is_zero(gV):
        VhgV = V.mH @ gV
        _check_gauge("linalg_eig_backward", VhgV)
        Z = VhgV - (V.mH @ V) * VhgV.diagonal(0, -2, -1).real.to(V.dtype).unsqueeze(-2)
        n = L.shape[-1]
        E = conj(L.unsqueeze(-2) - L.unsqueeze(-1)) + eye(n, dtype=L.dtype)
        inner = inner + _tri(Z / E, 1, upper=True) + _tri(Z / E, -1)
    gA = linalg.solve(V.mH, inner @ V.mH)
    return gA if A._array.dtype.kind == "c" else gA.real


def pinv_backward(grad, P, A):
    """Gradient of P = pinv(A) (constant rank): -P^H g P^H + (I - AP) g^H P P^H + P^H P g^H (I - PA)."""
    Ph, gh = P.mH, grad.mH
    return -(Ph @ grad @ Ph) + (gh - A @ (P @ gh)) @ (P @ Ph) + (Ph @ P) @ (gh - (gh @ P) @ A)


def lstsq_backward(gX, gRes, A, B, X, grad_input_mask):
    vector = B.ndim == A.ndim - 1
    if vector:
        gX, B, X = gX.unsqueeze(-1), B.unsqueeze(-1), X.unsqueeze(-1)
    P = linalg.pinv(A)
    gA = pinv_backward(gX @ B.mH, P, A) if grad_input_mask[0] else None
    gB = P.mH @ gX if grad_input_mask[1] else None
    if gRes.numel() and not _is_zero(gRes):   # residuals |A x_j - b_j|^2 (x is optimal: no term through x)
        Rg = (A @ X - B) * gRes.to(A.dtype).unsqueeze(-2) * 2
        gA = None if gA is None else gA + Rg @ X.mH
        gB = None if gB is None else gB - Rg
    if vector and gB is not None:
        gB = gB.squeeze(-1)
    return gA, gB


def lu_backward(gL, gU, P, L, U):
    """A = P L U (L unit lower (m, k), U upper (k, n)): square, tall and wide cases."""
    m, n = L.shape[-2], U.shape[-1]
    if m == n:
        M = _tri(L.mH @ gL, -1) + _tri(gU @ U.mH, upper=True)
        return P @ _right_inv_h(_left_inv_h(L, M, unit=True), U)
    if m > n:   # L = [L1; L2]: L2 = A2 U^{-1}
        L1, L2, gL1, gL2 = L[..., :n, :], L[..., n:, :], gL[..., :n, :], gL[..., n:, :]
        M = _tri(L1.mH @ gL1, -1) + _tri(gU @ U.mH - L2.mH @ gL2, upper=True)
        return P @ cat([_right_inv_h(_left_inv_h(L1, M, unit=True), U), _right_inv_h(gL2, U)], -2)
    # wide: U = [U1 U2]: U2 = L^{-1} P^T A2
    U1, U2, gU1, gU2 = U[..., :, :m], U[..., :, m:], gU[..., :, :m], gU[..., :, m:]
    M = _tri(L.mH @ gL - gU2 @ U2.mH, -1) + _tri(gU1 @ U1.mH, upper=True)
    return P @ cat([_right_inv_h(_left_inv_h(L, M, unit=True), U1), _left_inv_h(L, gU2, unit=True)], -1)


def _split_packed(grad, k):
    return _tri(grad, -1)[..., :, :k], _tri(grad, upper=True)[..., :k, :]


def lu_factor_ex_backward(grad, LU, pivots):
    P, L, U = lu_unpack(LU, pivots)
    gL, gU = _split_packed(grad, min(LU.shape[-2:]))
    return lu_backward(gL, gU, P, L, U)


def lu_unpack_backward(gL, gU, LU):
    m, n = LU.shape[-2:]
    gL, gU = _tri(gL, -1), _tri(gU, upper=True)
    if m >= n:
        return gL + cat([gU, zeros(gU.shape[:-2] + (m - n, n), dtype=gU.dtype)], -2)
    return cat([gL, zeros(gL.shape[:-2] + (m, n - m), dtype=gL.dtype)], -1) + gU


def lu_solve_backward(grad, LU, pivots, X, left, adjoint, grad_input_mask):
    la = linalg
    gB = la.lu_solve(LU, pivots, grad, left=left, adjoint=not adjoint)
    if not grad_input_mask[0]:
        return None, gB
    if left:
        gA = -(X @ gB.mH) if adjoint else -(gB @ X.mH)
    else:
        gA = -(gB.mH @ X) if adjoint else -(X.mH @ gB)
    P, L, U = lu_unpack(LU, pivots)
    PtgA = P.mT @ gA
    return _tri(PtgA @ U.mH, -1) + _tri(L.mH @ PtgA, upper=True), gB


def solve_backward(grad, A, B, X, left, grad_input_mask):
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    gB = linalg.solve(A.mH, grad, left=left)
    if not grad_input_mask[0]:
        return None, gB
    gB2, X2 = (gB.unsqueeze(-1), X.unsqueeze(-1)) if vector else (gB, X)
    return (-(gB2 @ X2.mH) if left else -(X2.mH @ gB2)), gB


def _tri_project(gA, upper, unitriangular):
    return _tri(gA, (1 if unitriangular else 0) if upper else (-1 if unitriangular else 0), upper=upper)


def solve_triangular_backward(grad, A, X, upper, left, unitriangular, grad_input_mask):
    gB = linalg.solve_triangular(A.mH, grad, upper=not upper, left=left, unitriangular=unitriangular)
    if not grad_input_mask[0]:
        return gB, None
    return gB, _tri_project(-(gB @ X.mH) if left else -(X.mH @ gB), upper, unitriangular)


def triangular_solve_backward(grad, grad_M, A, X, upper, transpose, unitriangular, grad_input_mask):
    # op(A) X = B with op(A) = A or A^T; op(A)^H is A^H or conj(A)
    gB = linalg.solve_triangular(conj(A) if transpose else A.mH, grad, upper=upper == transpose,
                                unitriangular=unitriangular)
    if not grad_input_mask[1]:
        return gB, None
    g_op = -(gB @ X.mH)
    gA = _tri_project(g_op.mT if transpose else g_op, upper, unitriangular)
    return gB, gA + grad_M


def matrix_exp_backward(A, grad):
    """d exp(A)^H[G] is the top-right block of exp([[A^H, G], [0, A^H]])."""
    n = A.shape[-1]
    Ah = A.mH
    big = cat([cat([Ah, grad], -1), cat([zeros_like(Ah), Ah], -1)], -2)
    return linalg.matrix_exp(big)[..., :n, n:]


def householder_product_backward(grad, A, tau, full=False):
    """Q = (H_1 ... H_k)[:, :n], H_i = I - tau_i v_i v_i^H: the gradient of each H_i, then of tau_i and v_i."""
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    I = eye(m, dtype=A.dtype)
    V = _tri(A[..., :, :k], -1) + eye(m, k, dtype=A.dtype)
    vs = [V[..., :, i].unsqueeze(-1) for i in range(k)]
    Hs = [I - tau[..., i].unsqueeze(-1).unsqueeze(-1) * (vs[i] @ vs[i].mH) for i in range(k)]
    right = [None] * (k + 1)    # right[i] = H_{i+1} ... H_k (first n columns of it)
    right[k] = eye(m, m if full else n, dtype=A.dtype)
    for i in reversed(range(k)):
        right[i] = Hs[i] @ right[i + 1]
    left = I                    # H_1 ... H_{i-1}
    gtaus, gvs = [], []
    for i in range(k):
        M = left.mH @ grad @ right[i + 1].mH
        t = tau[..., i].unsqueeze(-1).unsqueeze(-1)
        gtaus.append(-(vs[i].mH @ M @ vs[i]).squeeze(-1).squeeze(-1))
        gvs.append(-(conj(t) * (M @ vs[i]) + t * (M.mH @ vs[i])))
        left = left @ Hs[i]
    gA = _tri(cat(gvs, -1), -1) if k else zeros_like(A[..., :, :0])
    if k < n:
        gA = cat([gA, zeros(gA.shape[:-1] + (n - k,), dtype=A.dtype)], -1)
    return gA, stack(gtaus, -1) if k else zeros_like(tau)


def ormqr_backward(grad, A, tau, C, left, transpose, grad_input_mask):
    m, n = A.shape[-2:]
    # the m x m Q: the reflectors are A's first min(m, n) columns (a wide A's others are unused)
    A_full = cat([A, zeros(A.shape[:-1] + (m - n,), dtype=A.dtype)], -1) if m > n else A[..., :, :m]
    Q = linalg.householder_product(A_full, tau)
    if left:
        gC, gQ = (Q @ grad, C @ grad.mH) if transpose else (Q.mH @ grad, grad @ C.mH)
    else:
        gC, gQ = (grad @ Q, grad.mH @ C) if transpose else (grad @ Q.mH, C.mH @ grad)
    gA = gtau = None
    if grad_input_mask[0] or grad_input_mask[1]:
        gA, gtau = householder_product_backward(gQ, A_full, tau)
        gA = gA[..., :, :n] if m >= n else cat([gA, zeros(A.shape[:-1] + (n - m,), dtype=gA.dtype)], -1)
    return gA, gtau, gC


def trace_backward(grad, shape):
    return grad * eye(shape[0], shape[1], dtype=grad.dtype)


# ---- nn: convolution, pooling, fold/unfold -------------------------------------------------
def conv_grads(grads, mask):
    """convolution_backward's outputs, with None for the inputs that need no gradient."""
    return tuple(g if m else None for g, m in zip(grads, mask))


def convolution_double_backward(grads, grad_output, input, weight, stride, padding, dilation, transposed,
                                output_padding, groups, mask):
    """Gradients of convolution_backward's (grad_input, grad_weight, grad_bias), all bilinear:
    grad_input(gO, w) and grad_weight(gO, x) are the adjoints of the convolution in x and in w."""
    ggi, ggw, ggb = grads
    args = (stride, padding, dilation, transposed, output_padding, groups)
    g_out = g_in = g_w = None
    if mask[0]:
        g_out = convolution(ggi, weight, None, *args) + convolution(input, ggw, None, *args)
        g_out = g_out + ggb.view((1, -1) + (1,) * (g_out.ndim - 2))
    if mask[1]:
        g_in = _convolution_backward(grad_output, input, ggw, None, *args, [True, False, False])[0]
    if mask[2]:
        g_w = _convolution_backward(grad_output, ggi, weight, None, *args, [False, True, False])[1]
    return g_out, g_in, g_w


def conv_tbc_backward(grad, self, weight, pad, mask):
    """conv_tbc is conv1d on (batch, channel, time) views with the weight as (out, in, kernel)."""
    gi, gw, _ = _convolution_backward(grad.permute(1, 2, 0), self.permute(1, 2, 0), weight.permute(2, 1, 0), None,
                                      [1], [pad], [1], False, [0], 1, [mask[0], mask[1], False])
    return (gi.permute(2, 0, 1) if mask[0] else None, gw.permute(2, 1, 0) if mask[1] else None,
            grad.sum((0, 1)) if mask[2] else None)


def max_pool_double_backward(grad, indices, dim):
    """The values of `grad` (input-shaped) at the argmax indices (flat per plane): a gather."""
    flat = grad.flatten(-dim) if dim > 1 else grad
    return flat.gather(-1, indices.flatten(-dim)).view(indices.shape)



# ---- nn: normalization, losses, activations, embedding, padding, interpolation -------------
def double_backward(forward, grads, grad_output, *inputs):
    """Gradients of a backward op, by differentiating `forward` (a composite of public ops equal to
    the forward op) twice. The backward op computed vjp(forward, inputs, grad_output); this returns
    the gradients of sum(grads * that vjp) w.r.t. (grad_output, *inputs), themselves differentiable
    when grad mode is on (create_graph). Inputs that are None get None."""
    create = state.enabled

    def leaf(t):
        return t if t is None or create and t.requires_grad else t.detach().requires_grad_()
    with enable_grad():
        go, xs = leaf(grad_output), [leaf(x) for x in inputs]
        live = [x for x in xs if x is not None]
        first = vjp([forward(*xs)], live, [go], create_graph=True)
        pairs = [(f, g) for f, g in zip(first, (g for g, x in zip(grads, xs) if x is not None))
                 if f is not None and f.requires_grad]
        wrt = [go] + live
        res = vjp([f for f, _ in pairs], wrt, [g for _, g in pairs], create_graph=create) if pairs else [None] * len(wrt)
    res = [zeros_like(t) if r is None else r for r, t in zip(res, wrt)]
    it = iter(res[1:])
    return (res[0],) + tuple(None if x is None else next(it) for x in xs)


def reduce_loss(losses, reduction):
    return losses.mean() if reduction == 1 else losses.sum() if reduction == 2 else losses


def glu_composite(x, dim):
    a, b = x.chunk(2, dim)
    return a * b.sigmoid()


def bce_composite(x, target, weight, reduction):
    losses = -(target * x.log() + (1 - target) * (1 - x).log())
    return reduce_loss(losses if weight is None else losses * weight, reduction)


def hardsigmoid_slope(x):
    return where((x > -3) & (x < 3), full_like(x, 1 / 6), zeros_like(x))


def mish_backward(grad, x):
    t = softplus_(x).tanh()
    s = x.sigmoid()
    return grad * (t + x * s * (1 - t * t))


def softplus_(x):
    return _softplus(x, 1, 20)


def bce_target_backward(grad, x, target, weight, reduction):
    g = grad * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100))
    if weight is not None:
        g = g * weight
    return g / x.numel() if reduction == 1 else g


def bce_with_logits_backward(grad, x, target, weight, pos_weight, reduction):
    s = x.sigmoid()
    if pos_weight is None:
        gx, gt = s - target, -x
    else:
        gx = s * (pos_weight * target + 1 - target) - pos_weight * target
        gt = _log_sigmoid(-x) - pos_weight * _log_sigmoid(x)
    if weight is not None:
        gx, gt = gx * weight, gt * weight
    scale = grad / x.numel() if reduction == 1 else grad
    return gx * scale, gt * scale


def piecewise_quadratic_double_backward(grad, grad_output, diff, width, curvature, reduction):
    """Second derivative of smooth_l1 / huber: `curvature` inside |diff| < width, zero outside."""
    g = where(diff.abs() < width, grad * grad_output * curvature, zeros_like(diff))
    return g / diff.numel() if reduction == 1 else g


def _norm_double_backward(normalize, grads, grad_out, input, weight):
    """Backward of a normalization's backward: `normalize(input)` is the composite normalized
    input (before the affine weight); gradients of (grad_input, grad_weight, grad_bias)."""
    def forward(x, w, b):
        out = normalize(x)
        return out if w is None else out * w + b
    if weight is None:
        return double_backward(forward, grads[:1], grad_out, input, None, None)[:3]
    grads = (grads[0], grads[1].reshape(weight.shape), grads[2].reshape(weight.shape))
    return double_backward(forward, grads, grad_out, input, weight, zeros_like(weight))[:3]


def _channel_view(v, ndim):
    return v.view([1, -1] + [1] * (ndim - 2)) if ndim > 1 else v


def batch_norm_double_backward(grads, grad_out, input, weight, running_mean, running_var, train, eps):
    nd = input.ndim
    axes = [0] + list(range(2, nd))

    def normalize(x):
        if train:
            mean, var = x.mean(axes, keepdim=True), x.var(axes, correction=0, keepdim=True)
        else:
            mean, var = _channel_view(running_mean, nd), _channel_view(running_var, nd)
        return (x - mean) * (var + eps).rsqrt()
    w = _channel_view(weight, nd) if weight is not None else None
    res = _norm_double_backward(normalize, grads, grad_out, input, w)
    return res[0], res[1], (None if weight is None else res[2].reshape(weight.shape))


def _eps_from(x, axes, rstd):
    """The eps a normalization used, recovered from its saved rstd = 1 / sqrt(var + eps)."""
    var = x._array.var(tuple(axes), keepdims=True)
    return float((1 / rstd._array.reshape(var.shape) ** 2 - var).mean()) if var.size else 0.0


def layer_norm_double_backward(grads, grad_out, input, normalized_shape, rstd, weight):
    axes = list(range(input.ndim - len(normalized_shape), input.ndim))
    eps = _eps_from(input, axes, rstd)

    def normalize(x):
        return (x - x.mean(axes, keepdim=True)) * (x.var(axes, correction=0, keepdim=True) + eps).rsqrt()
    return _norm_double_backward(normalize, grads, grad_out, input, weight)


def native_group_norm_backward_all(grads, input, mean, rstd, weight, N, C, HxW, group, mask):
    """The output's gradient through native_group_norm_backward, plus, for the input, the mean's and
    rstd's gradients where they arrived (the node takes absent gradients as None: zeros made for them
    would cost passes over the input for nothing)."""
    g0, gm, gr = (list(grads) + [None, None])[:3]
    if g0 is None and gm is None and gr is None:
        return None, None, None
    res = list(OPS["native_group_norm_backward"](zeros_like(input) if g0 is None else g0, input, mean, rstd, weight,
                                                 N, C, HxW, group, mask))
    if (gm is not None or gr is not None) and mask[0]:
        per = C // group * HxW   # d mean/dx = 1/M; d rstd/dx = -rstd^3 (x - mean) / M
        extra = zeros_like(mean).reshape(N, group, 1) if gm is None else gm.reshape(N, group, 1)
        if gr is not None:
            x = input.reshape(N, group, per)
            m, r = mean.reshape(N, group, 1), rstd.reshape(N, group, 1)
            extra = extra - gr.reshape(N, group, 1) * r ** 3 * (x - m)
        res[0] = res[0] + (extra / per).expand(N, group, per).reshape(input.shape)
    return tuple(res)


def group_norm_double_backward(grads, grad_out, input, rstd, weight, N, C, HxW, group):
    per_group = C // group * HxW   # spelled out: -1 is ambiguous for an empty batch
    eps = _eps_from(input.reshape(N, group, per_group), [2], rstd)

    def normalize(x):
        v = x.reshape(N, group, per_group)
        return ((v - v.mean(2, keepdim=True)) * (v.var(2, correction=0, keepdim=True) + eps).rsqrt()).reshape(x.shape)
    w = _channel_view(weight, input.ndim) if weight is not None else None
    res = _norm_double_backward(normalize, grads, grad_out, input, w)
    return res[0], res[1], (None if weight is None else res[2].reshape(weight.shape))


def embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq, sparse):
    """embedding's weight gradient: dense, or with sparse=True a COO tensor holding one row of `grad` per
    index (uncoalesced, padding_idx left out), built from differentiable ops as torch's."""
    if not sparse:
        return OPS["embedding_dense_backward"](grad, indices, num_weights, padding_idx, scale_grad_by_freq)
    if scale_grad_by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    flat = indices.reshape(-1)
    rows = grad.reshape(flat.shape[0], grad.shape[-1])
    if padding_idx >= 0:
        keep = (flat != padding_idx).nonzero().squeeze(1)
        flat, rows = flat.index_select(0, keep), rows.index_select(0, keep)
    return sparse_coo_tensor(flat.unsqueeze(0), rows, (num_weights, grad.shape[-1]))


def gather_backward(grad, self, dim, index, sparse_grad):
    """gather's input gradient: `grad` added at the gathered positions; with sparse_grad=True an
    uncoalesced COO tensor holding one entry per gathered element (index's row-major order), as torch's."""
    if not sparse_grad:
        return grad.new_zeros(self.shape).scatter_add(dim, index, grad)
    # one row per dim of self (none for a 0-dim self); a 0-dim index of a 1-dim self is one element
    n = index.numel()
    where = np.zeros((0, n), np.int64)
    if self.ndim:
        where = np.indices(index.shape if index.ndim else (1,)).reshape(self.ndim, n)
        where[dim] = index._array.reshape(-1)
    return sparse_coo_tensor(tensor(where), grad.reshape(-1), self.shape)


def embedding_dense_double_backward(grad, indices, padding_idx, scale_grad_by_freq):
    """d(embedding_dense_backward)/d(grad_output): the rows of `grad` the indices picked."""
    flat = indices.reshape(-1)
    out = grad.index_select(0, flat)
    keep = ones_like(flat, dtype=grad.dtype)
    if scale_grad_by_freq:
        counts = np.bincount(flat._array, minlength=grad.shape[0])[flat._array]
        keep = keep / ones_like(keep).new_tensor(counts)
    if padding_idx >= 0:
        keep = keep.masked_fill(flat == padding_idx, 0)
    return (out * keep.unsqueeze(1)).reshape(tuple(indices.shape) + (grad.shape[1],))



# ---- sorting, complex numbers, fft, foreach ------------------------------------------------
def polar_backward(grad, abs, angle):
    """result = abs·e^(i·angle): d/dabs = e^(i·angle), d/dangle = i·result; each real input's gradient
    is Re(grad · conj(derivative))."""
    gr, gi = grad.real, grad.imag
    c, s = angle.cos(), angle.sin()
    return gr * c + gi * s, abs * (gi * c - gr * s)


def fft_r2c_backward(grad, dim, normalization, onesided, input_shape):
    """The adjoint of a real-to-complex DFT: the backward DFT of grad (zero-filled to the full length
    when onesided dropped the upper half), real part."""
    if onesided:
        last = dim[-1]
        missing = input_shape[last] - grad.shape[last]
        if missing:
            shape = list(grad.shape)
            shape[last] = missing
            grad = cat([grad, grad.new_zeros(shape)], last)
    return _fft_c2c(grad, dim, normalization, False).real


def fft_c2r_backward(grad, dim, normalization):
    """The adjoint of a complex-to-real DFT: the onesided forward DFT of grad, with the entries that
    stand for two (an entry and its conjugate mirror) counted twice."""
    g = _fft_r2c(grad, dim, normalization, True)
    last = dim[-1] % grad.ndim
    n, m = grad.shape[last], g.shape[last]
    k = np.arange(m)
    weights = np.where((k > 0) & (2 * k < n), 2.0, 1.0).reshape([m if d == last else 1 for d in range(g.ndim)])
    return g * grad.new_tensor(weights)


def foreach_vjp(name, grads, *args):
    """Gradients of `_foreach_<name>(*args)` for every argument (a list for a tensor list, a summed tensor
    for a shared tensor, None for the rest): the element function is run again and differentiated
    through its own derivative formula, with a graph when grad mode records (double backward)."""
    fn = foreach_element(name)
    record = state.enabled
    out = [[] if isinstance(a, (list, tuple)) and a and _is_tensor(a[0]) else None for a in args]
    for i, g in enumerate(grads):
        xs = [a[i] if isinstance(a, (list, tuple)) else a for a in args]
        if not record:
            xs = [x.detach().requires_grad_() if _is_tensor(x) and x.requires_grad else x for x in xs]
        wanted = [k for k, x in enumerate(xs) if _is_tensor(x) and x.requires_grad]
        with enable_grad():
            y = fn(*xs)
        gs = vjp([y], [xs[k] for k in wanted], [g], create_graph=record) if wanted else ()
        got = dict(zip(wanted, gs))
        for k, a in enumerate(out):
            gk = got.get(k)
            if gk is None and _is_tensor(xs[k]) and k in wanted:
                gk = zeros_like(xs[k])
            if type(a) is list:
                a.append(gk)
            elif gk is not None:
                out[k] = gk if out[k] is None else out[k] + gk
    return tuple(out)


# ---- special functions, fake quantization, segment_reduce ----------------------------------
SQRT_2PI = float(np.sqrt(2 * np.pi))


def bessel_i1_backward(grad, self, result, scaled):
    """d I1(x) = I0(x) - I1(x) / x; for i1e = exp(-|x|) I1(x) also - sgn(x) i1e(x). 1/2 at 0."""
    safe = where(self == 0, 1.0, self)
    if scaled:
        d = _special_i0e(self) - result * (self.sgn() + 1 / safe)
    else:
        d = i0(self) - result / safe
    return grad * where(self == 0, 0.5, d)


def renorm_backward(grad, self, p, dim, maxnorm):
    """Gradient of x * f(||x||_p) over each slice along `dim`, f = maxnorm / (norm + 1e-7) where
    the norm exceeds maxnorm and 1 elsewhere: grad f + (d f / d norm) <grad, x> d norm / d x."""
    others = [d for d in range(self.ndim) if d != dim % self.ndim]
    norm = _linalg_vector_norm(self, p, others, True)
    over = norm > maxnorm
    factor = where(over, maxnorm / (norm + 1e-7), 1.0)
    dfactor = where(over, -maxnorm / ((norm + 1e-7) * (norm + 1e-7)), 0.0)
    # d norm carries <grad, x>: Re(sum conj(grad) x) for complex inputs (sum grad x for real ones)
    dot = (grad.conj() * self).sum(others, keepdim=True).real if self.is_complex() else \
        (grad * self).sum(others, keepdim=True)
    return grad * factor + linalg_vector_norm_backward(dfactor * dot, self, p, norm, others, True)


# ---- misc: triangular, unique, aliases, test ops ----
def block_diag_backward(grad, shapes):
    """grad's diagonal blocks, each in the shape of its block_diag input."""
    out, r, c = [], 0, 0
    for shape in shapes:
        rows, cols = _block_shape(shape)
        out.append(grad[r:r + rows, c:c + cols].reshape(shape))
        r, c = r + rows, c + cols
    return out


def warn_backwards(grad):
    """torch's _test_warn_in_autograd backward: warns, passes grad through."""
    warnings.warn("Warn from backward")
    return grad


# ---- forward-mode AD: helpers of `result:` formulas (see autograd/forward_ad.py) -------------
def reduce_sum(x, dim, keepdim):
    """x summed over dim (None or []: every dim), the reduced dims kept as size 1 when keepdim."""
    if dim is None or isinstance(dim, (list, tuple)) and len(dim) == 0:
        total = x.sum()
        return total.reshape([1] * x.ndim) if keepdim else total
    return x.sum(dim, keepdim=keepdim)


def reduction_jvp(weights, t, dim, keepdim):
    """Tangent of a reduction whose backward spreads the output gradient with these weights
    (None: the backward gives no gradient, e.g. the 0-norm)."""
    return reduce_sum(t * weights if weights is not None else t * 0, dim, keepdim)


def loss_jvp(weights, t, reduction):
    """Tangent of a loss over the last dim of its input: per sample (reduction 0) or summed."""
    return (weights * t).sum(-1) if reduction == 0 else (weights * t).sum()


def gather_jvp(t, dim, indices, keepdim):
    """Tangent of values picked along dim at indices (max.dim, sort, cummax, ...)."""
    if t.ndim == 0:
        return t.clone()
    r = t.gather(dim, indices if keepdim else indices.unsqueeze(dim))
    return r if keepdim else r.squeeze(dim)


def pool_jvp(t, indices, nd):
    """Tangent of a max pool: t picked at the flat per-plane indices the pool returned."""
    return t.flatten(-nd).gather(-1, indices.flatten(-nd)).reshape(indices.shape)


def foreach_jvp(name, args, tangents):
    """Tangents of `_foreach_<name>(*args)`: each element op run on dual numbers of its own level."""
    fn = foreach_element(name)
    n = next(len(a) for a in args if isinstance(a, (list, tuple)) and a and _is_tensor(a[0]))
    pick = lambda a, i: a[i] if isinstance(a, (list, tuple)) else a   # noqa: E731
    return [jvp_at(fn, [pick(a, i) for a in args], [pick(t, i) if t is not None else None for t in tangents])
            for i in range(n)]


# ---- nn: sampling, distances, ctc, embedding_bag, attention ----
def not_differentiable(op_name, aten=False):
    """torch's error for backward ops it has no derivative for (raised when such a node runs)."""
    if aten:
        raise RuntimeError(f"derivative for aten::{op_name} is not implemented")
    raise NotImplementedError(f"the derivative for '{op_name}' is not implemented.")


def euclidean_dist_backward(grad, x1, x2, res):
    ratio = (grad / res).masked_fill(res == 0, 0)
    return (x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2),
            x2 * ratio.sum(-2).unsqueeze(-1) - ratio.transpose(-1, -2).matmul(x1))


def trilinear_backward(grad, i1, i2, i3, expand1, expand2, expand3, sumdim, grad_input_mask):
    """Each input's gradient: grad (with the summed dims restored) times the other two, summed back
    to the input's expanded shape, expand dims removed."""
    ops = trilinear_operands(i1, i2, i3, expand1, expand2, expand3)
    g = grad
    for d in sorted(sumdim):
        g = g.unsqueeze(d)
    out = []
    for k, dims in enumerate((expand1, expand2, expand3)):
        if not grad_input_mask[k]:
            out.append(None)
            continue
        others = [o for j, o in enumerate(ops) if j != k]
        r = sum_to(g * others[0] * others[1], ops[k].shape)
        for d in sorted(dims, reverse=True):
            r = r.squeeze(d)
        out.append(r)
    return tuple(out)


def affine_grid_generator_backward(grad, size, align_corners):
    base = tensor(affine_base_grid(size, align_corners, grad._array.dtype))   # (HW, k+1)
    k = len(size) - 2
    return grad.reshape(size[0], -1, k).transpose(1, 2).matmul(base)


def weight_norm_backward(grad, v, g, norms, dim):
    """Gradients of w = g * v / ||v||: the fused kernel, or (building a graph) public ops with the
    norms recomputed from v, so double backward sees their dependence on v."""
    if not state.enabled:
        return _weight_norm_interface_backward(grad, v, g, norms, dim)
    dim %= v.ndim
    axes = [i for i in range(v.ndim) if i != dim]
    norms = (v * v).sum(axes, keepdim=True).sqrt()
    gb = g.reshape([s if i == dim else 1 for i, s in enumerate(v.shape)])
    dots = (grad * v).sum(axes, keepdim=True)
    return gb / norms * (grad - v * (dots / (norms * norms))), (dots / norms).reshape(g.shape)


def pack_padded_sequence_backward(grad, input_size, batch_sizes, batch_first):
    T, B = (input_size[1], input_size[0]) if batch_first else (input_size[0], input_size[1])
    rest = tuple(input_size[2:])
    rows = tensor(packed_positions(batch_sizes.numpy(), B))
    out = grad.new_zeros((T * B,) + rest).index_copy(0, rows, grad).view((T, B) + rest)
    return out.transpose(0, 1) if batch_first else out


def grid_sampler_double_backward(grads, grad_output, input, grid, interpolation_mode, padding_mode, align_corners):
    grads = [zeros_like(t) if g is None else g for g, t in zip(grads, (input, grid))]
    return double_backward(lambda x, g: grid_sample_composite(x, g, interpolation_mode, padding_mode, align_corners),
                           grads, grad_output, input, grid)


def eig_jvp(A_t, L, V):
    """Tangents of (eigenvalues, eigenvectors) of A = V diag(L) V^-1; eigenvectors keep unit norm."""
    B = linalg.solve(V, A_t.to(V.dtype) @ V)          # V^-1 dA V
    gaps = L.unsqueeze(-2) - L.unsqueeze(-1)           # [i, j]: L_j - L_i
    eye = eye_like(gaps)
    dV = V @ (B / (gaps + eye) * (1 - eye))
    dV = dV - V * (V.conj() * dV).sum(-2, keepdim=True).real
    return B.diagonal(0, -2, -1), dV


def eye_like(t):
    return eye(t.shape[-1], dtype=t.dtype).expand(t.shape)


def nested_sum_backward(grad, self, dim, keepdim):
    """sum.dim_IntList's gradient for a nested `self` (summed over its last dim, kept, as torch's nested
    kernel requires): each component's gradient expanded over that dim of the component."""
    return OPS["_nested_from_list_like"]([g.expand(s.shape) for g, s in zip(grad.unbind(), self.unbind())], self)
